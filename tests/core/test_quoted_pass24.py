"""Quoted history in mail text that earlier passes missed: attribution lines in the forms webmail writes above a
quote it does not mark with '>' (Yahoo in German, Turkish, Greek, Indonesian…; Gmail's Japanese and Korean), and a
forward whose separator is itself quoted (Apple Mail's HTML)."""
from __future__ import annotations

import pytest

from core.extraction.quoted import own_words, split_inline_forward

OWN, QUOTE = "I started at Brightwave on Monday.", "I moved to Lisbon last week."


@pytest.mark.parametrize("attribution", [
    "Am Montag, 4. März 2024, 10:00:00 MEZ hat Ann Lee <ann@example.org> Folgendes geschrieben:",
    "Ann Lee <ann@example.org>, 4 Mar 2024 Pzt, 10:00 tarihinde şunu yazdı:",
    "Στις Δευ 4 Μαρ 2024 στις 10:00, ο/η Ann Lee <ann@example.org> έγραψε:",
    "Pada tanggal Sen, 4 Mar 2024 pukul 10.00 Ann Lee <ann@example.org> menulis:",
    "Ann Lee <ann@example.org> ezt írta (időpont: 2024. márc. 4., H, 10:00):",
    "Ann Lee <ann@example.org> kirjoitti ma 4.3.2024 klo 10.00:",
    "пн, 4 мар. 2024 г. в 10:00, Ann Lee <ann@example.org>:",
    "2024年3月4日(月) 10:00 Ann Lee <ann@example.org>:",
    "2024. 3. 4. 오전 10:00, Ann Lee <ann@example.org> 작성:",
    "Ann Lee schrieb am 04.03.2024 um 10:00:",
    "On Monday, March 4, 2024, 10:00:00 AM GMT+1, Ann Lee <\nann@example.org> wrote:",
])
def test_an_unmarked_quote_under_an_attribution_in_any_language_is_not_the_writers(attribution):
    """Bob's own line is kept; Ann's line below the attribution (not marked with '>') is not his."""
    assert own_words(f"{OWN}\n\n{attribution}\n\n{QUOTE}").strip() == OWN


@pytest.mark.parametrize("text", [
    "Agenda:\n- budget\nI moved to Lisbon.",
    "Here is my new address, ann@example.org:\nI moved to Lisbon.",
    "The plan for 2024:\nI moved to Lisbon.",
    "Write to ann@example.org before 10:00 on 4 March:\nI moved to Lisbon.",
])
def test_own_lines_ending_with_a_colon_stay(text):
    """A line of one's own that ends with ':' and names an address or a year, but not both a writer and a dated
    year, is no attribution."""
    assert own_words(text) == text


def test_a_forward_whose_separator_is_quoted_is_split():
    """Apple Mail's HTML forward, as text: the separator and every line after it quoted once."""
    fwd = split_inline_forward("See below.\n\n> Begin forwarded message:\n>\n> From: Ann Lee <ann@example.org>\n\n"
                               "> Subject: news\n\n> Date: 4 March 2024 at 10:00:00 CET\n\n> " + QUOTE)
    assert fwd is not None and fwd.before == "See below." and fwd.body == QUOTE
    assert fwd.headers["From"] == "Ann Lee <ann@example.org>" and fwd.headers["Date"] == "4 March 2024 at 10:00:00 CET"
    # quoted under someone's attribution: a reply quoting their forward, not this writer's forward
    assert split_inline_forward("Thanks.\n\nOn 4 Mar 2024, at 11:00, Ann Lee <ann@example.org> wrote:\n\n"
                                "> Begin forwarded message:\n> From: Desk <d@hall.example>\n\n> Booked.") is None


@pytest.mark.parametrize("block", [
    "Kimden: Ann Lee <ann@example.org>\nGönderildi: 4 Mart 2024 Pazartesi 10:00\nKime: Bob <bob@example.net>\nKonu: news",
    "差出人: Ann Lee <ann@example.org>\n送信日時: 2024年3月4日 10:00\n宛先: Bob <bob@example.net>\n件名: news",
    "发件人：Ann Lee <ann@example.org>\n发送时间：2024年3月4日 10:00\n收件人：Bob <bob@example.net>\n主题：news",
    "寄件者: Ann Lee <ann@example.org>\n寄件日期: 2024年3月4日 上午 10:00\n收件者: Bob <bob@example.net>\n主旨: news",
    "Od: Ann Lee <ann@example.org>\nOdesláno: pondělí 4. března 2024 10:00\nKomu: Bob <bob@example.net>\nPředmět: news",
    "Feladó: Ann Lee <ann@example.org>\nElküldve: 2024. március 4., hétfő 10:00\nCímzett: Bob\nTárgy: news",
    "Από: Ann Lee <ann@example.org>\nΣτάλθηκε: Δευτέρα, 4 Μαρτίου 2024 10:00 πμ\nΠρος: Bob\nΘέμα: news",
    "보낸 사람: Ann Lee <ann@example.org>\n보낸 날짜: 2024년 3월 4일 월요일 오전 10:00\n받는 사람: Bob\n제목: news",
    "De la: Ann Lee <ann@example.org>\nTrimis: luni, 4 martie 2024 10:00\nCătre: Bob\nSubiect: news",
    "De: Ann Lee <ann@example.org>\nEnviada em: segunda-feira, 4 de março de 2024 10:00\nPara: Bob\nAssunto: news",
    "Dari: Ann Lee <ann@example.org>\nDikirim: Senin, 04 Maret 2024 10.00\nKepada: Bob\nSubjek: news",
])
def test_an_outlook_header_block_in_other_languages_starts_the_quoted_history(block):
    """Outlook writes the quoted message's header block in the user's language; what follows it is not Bob's."""
    assert own_words(f"{OWN}\n\n{block}\n\n{QUOTE}").strip() == OWN


@pytest.mark.parametrize("separator", ["---------- 転送されたメッセージ ---------", "---------- Přeposlaná zpráva ---------",
                                       "---------- 전달된 메시지 ---------", "-------- Weitergeleitete Nachricht --------"])
def test_a_forward_separator_in_any_language_is_split_when_a_sender_line_follows(separator):
    """Gmail's and Thunderbird's separator shape (8–10 dashes, words, 8–10 dashes) in a language the list does not
    name, followed by a From line (here Japanese Outlook/Gmail's '差出人:'), starts a forwarded message."""
    text = (f"FYI\n\n{separator}\n差出人: Ann Lee <ann@example.org>\nDate: 2024年3月4日(月) 10:00\nSubject: news\n\n"
            + QUOTE)
    fwd = split_inline_forward(text)
    assert fwd is not None and fwd.before == "FYI" and fwd.body == QUOTE
    assert fwd.headers["差出人"] == "Ann Lee <ann@example.org>" and own_words(text).strip() == "FYI"


def test_a_dashed_heading_of_ones_own_is_no_forward():
    text = "Notes\n\n---------- Section 2 ----------\nI moved to Lisbon."
    assert split_inline_forward(text) is None and own_words(text) == text
    # Outlook's/Thunderbird's "Original Message" is a reply's quote: cut from own words, not split as a forward
    reply = "Ok.\n\n-------- Original Message --------\nFrom: Ann Lee <ann@example.org>\nDate: x\n\n" + QUOTE
    assert split_inline_forward(reply) is None and own_words(reply).strip() == "Ok."


def test_an_outlook_header_block_is_a_forward_only_under_a_forward_subject():
    from core.extraction.quoted import split_header_block_forward

    text = ("See below.\n\n________________________________\nFrom: Ann Lee <ann@example.org>\n"
            "Sent: Monday, March 4, 2024 10:00 AM\nTo: Bob\nSubject: news\n\n" + QUOTE)
    for subject in ("FW: news", "Fwd: news", "WG: news", "TR: news", "RV: news", "I: news", "[club] Fw: news"):
        fwd = split_header_block_forward(text, subject)
        assert fwd is not None and fwd.before == "See below." and fwd.body == QUOTE, subject
        assert fwd.headers["From"] == "Ann Lee <ann@example.org>"
    for subject in ("RE: news", "AW: news", "news", None):
        assert split_header_block_forward(text, subject) is None

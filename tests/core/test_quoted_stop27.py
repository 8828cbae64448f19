"""core/extraction/quoted.py, stop 27 (red team rt3 F1, F2, F10, F11, F12): a quote whose attribution line is
inside the quote, bottom-posted and interleaved replies, Thunderbird's forward in other languages, a quoted date's
day/month order settled by the reply's date, and attribution lines in Polish, Czech, Hungarian, Turkish, Japanese,
Chinese and Korean."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from core.extraction.quoted import (attribution_headers, own_words, settle_day_month, split_inline_forward,
                                    split_reply_quote)
from ingestors.mbox import EmlIngestor

PLUS1 = timezone(timedelta(hours=1))


def _eml(tmp_path, body: str, subject: str = "Re: dinner", date: str = "Fri, 7 May 2021 20:00:00 -0400",
         html: bool = False) -> list:
    path = tmp_path / "m.eml"
    path.write_bytes((f"From: Nina Park <nina@example.com>\nTo: Ann Lee <a@x.org>\nSubject: {subject}\nDate: {date}\n"
                      f"Message-ID: <q27@example.com>\nMIME-Version: 1.0\n"
                      f"Content-Type: text/{'html' if html else 'plain'}; charset=utf-8\n\n{body}").encode("utf-8"))
    return list(EmlIngestor().read(path))


# --------------------------------------------------------------------------- F1: the attribution inside the quote

def test_an_attribution_line_inside_the_quote_names_the_quote_writer():
    text = ("Fine by me, Copper Kettle it is.\n\n> On May 6, 2021, at 9:00 AM, Ann Lee <a@x.org> wrote:\n>\n"
            "> Shall we go to the Golden Fork?\n")
    q = split_reply_quote(text, "Re: dinner 2")
    assert q.before == "Fine by me, Copper Kettle it is."
    assert q.headers == {"From": "Ann Lee <a@x.org>", "Date": "May 6, 2021, 9:00 AM", "Subject": "dinner 2"}
    assert q.body == "Shall we go to the Golden Fork?"


def test_a_quote_inside_the_quote_stays_in_the_quoted_body():
    text = ("Agreed.\n\n> On Thu, May 6, 2021 at 9:00 AM Ann Lee <a@x.org> wrote:\n> Yes, the Fork.\n>\n"
            "> > On Wed, May 5, 2021 at 8:00 AM Bob Stone <b@x.org> wrote:\n> > Which place?\n")
    q = split_reply_quote(text)
    assert q.before == "Agreed." and q.headers["From"] == "Ann Lee <a@x.org>"
    assert q.body.startswith("Yes, the Fork.") and "> Which place?" in q.body
    deeper = split_reply_quote(q.body)
    assert deeper.headers["From"] == "Bob Stone <b@x.org>" and deeper.body == "Which place?"


def test_apple_mail_html_reply_with_the_attribution_in_the_blockquote_is_two_records(tmp_path):
    body = ('<html><body>Yes, let\'s do the Copper Kettle.<br><div><br><blockquote type="cite"><div>On May 6, 2021, '
            'at 9:00 AM, Ann Lee &lt;<a href="mailto:a@x.org">a@x.org</a>&gt; wrote:</div><br class="Apple-'
            'interchange-newline"><div><div>Shall we go to the Silver Spoon?</div></div></blockquote></div><br>'
            '</body></html>')
    reply, quote = _eml(tmp_path, body, html=True)
    assert (reply.sender.address, reply.text.strip()) == ("nina@example.com", "Yes, let's do the Copper Kettle.")
    assert (quote.sender.name, quote.sender.address, quote.text.strip()) == (
        "Ann Lee", "a@x.org", "Shall we go to the Silver Spoon?")
    assert quote.sent_at.astimezone(UTC) == datetime(2021, 5, 6, 13, 0, tzinfo=UTC)
    assert quote.attrs["quoted_in"] == reply.external_id


# --------------------------------------------------------------------------- F2: bottom-posted and interleaved

def test_a_bottom_posted_reply_under_its_attribution_is_split():
    text = ("On Mon, May 3, 2021 at 10:00 PM Ann Lee <a@x.org> wrote:\n> I moved to Zermatt yesterday.\n"
            "> How are you?\n\nCongratulations! I am fine. We booked the Matterhorn Lodge for July.\n")
    q = split_reply_quote(text, "Re: news")
    assert q.before == "Congratulations! I am fine. We booked the Matterhorn Lodge for July."
    assert q.headers == {"From": "Ann Lee <a@x.org>", "Date": "Mon, May 3, 2021 10:00 PM", "Subject": "news"}
    assert q.body == "I moved to Zermatt yesterday.\nHow are you?"


def test_an_interleaved_reply_under_its_attribution_keeps_only_the_writers_answers():
    text = ("Hi Ann,\n\nOn Mon, May 3, 2021 at 10:00 PM Ann Lee <a@x.org> wrote:\n> I moved to Zermatt yesterday.\n"
            "\nNice, I started at Swatch Group last week.\n\n> How are you?\n\nBusy with the Rhone Glacier survey.\n")
    q = split_reply_quote(text)
    assert q.before == "Hi Ann,\n\nNice, I started at Swatch Group last week.\n\nBusy with the Rhone Glacier survey."
    assert q.body == "I moved to Zermatt yesterday.\n\nHow are you?"
    assert q.headers["From"] == "Ann Lee <a@x.org>"
    assert "Zermatt" not in own_words(text)


@pytest.mark.parametrize("text, before, body", [
    ("> I moved to Zermatt yesterday.\n\nNice, I started at Swatch Group last week.\n\n> How are you?\n\n"
     "Busy with the Rhone Glacier survey.\n",
     "Nice, I started at Swatch Group last week.\n\nBusy with the Rhone Glacier survey.",
     "I moved to Zermatt yesterday.\n\nHow are you?"),
    ("Sure, see you at Lake Brienz.\n\n> I live in Interlaken now, by the way.\n> Ann\n",
     "Sure, see you at Lake Brienz.", "I live in Interlaken now, by the way.\nAnn"),
])
def test_a_quote_no_attribution_names_is_the_quoted_writers_when_the_caller_knows_them(text, before, body):
    assert split_reply_quote(text, "Re: news") is None  # nobody to name: not split
    q = split_reply_quote(text, "Re: news", quoted_writer="Ann Lee <a@x.org>")
    assert (q.before, q.body, q.headers) == (before, body, {"From": "Ann Lee <a@x.org>", "Subject": "news"})


@pytest.mark.parametrize("text", [
    "On Mon, May 3, 2021 at 10:00 PM Ann Lee <a@x.org> wrote:\n> I moved to Zermatt yesterday.\n",  # only the quote
    "> I moved.\n> Ann\n",
    "Just my own words.\nNo quote at all.\n",
])
def test_a_reply_with_no_words_of_its_own_or_no_quote_is_not_split(text):
    assert split_reply_quote(text, quoted_writer="Ann Lee <a@x.org>") is None


# --------------------------------------------------------------------------- F10: Thunderbird's forward, languages

TB = {  # separator, subject, date, from, to (Thunderbird's forward header block, Subject first)
    "fr": ("Message transféré", "Sujet :", "Date :", "De :", "Pour :"),
    "fr-nospace": ("Message transféré", "Sujet:", "Date:", "De:", "Pour:"),
    "es": ("Mensaje reenviado", "Asunto:", "Fecha:", "De:", "Para:"),
    "it": ("Messaggio Inoltrato", "Oggetto:", "Data:", "Mittente:", "A:"),
    "pl": ("Przekazana wiadomość", "Temat:", "Data:", "Nadawca:", "Adresat:"),
    "cs": ("Přeposlaná zpráva", "Předmět:", "Datum:", "Od:", "Komu:"),
    "de": ("Weitergeleitete Nachricht", "Betreff:", "Datum:", "Von:", "An:"),
    "nl": ("Doorgestuurd bericht", "Onderwerp:", "Datum:", "Van:", "Aan:"),
    "pt": ("Mensagem encaminhada", "Assunto:", "Data:", "De:", "Para:"),
    "sv": ("Vidarebefordrat meddelande", "Ämne:", "Datum:", "Från:", "Till:"),
    "ru": ("Пересланное сообщение", "Тема:", "Дата:", "От:", "Кому:"),
    "hu": ("Továbbított üzenet", "Tárgy:", "Dátum:", "Feladó:", "Címzett:"),
    "tr": ("İletilen Mesaj", "Konu:", "Tarih:", "Kimden:", "Kime:"),
    "ja": ("転送メッセージ", "件名:", "日付:", "差出人:", "宛先:"),
    "zh": ("转发的消息", "主题:", "日期:", "发件人:", "收件人:"),
    "ca": ("Missatge reenviat", "Assumpte:", "Data:", "De:", "A:"),
    "fi": ("Välitetty viesti", "Aihe:", "Päiväys:", "Lähettäjä:", "Vastaanottaja:"),
}


@pytest.mark.parametrize("lang", sorted(TB))
def test_thunderbirds_forward_in_each_language_is_split(lang):
    sep, subj, date, frm, to = TB[lang]
    text = (f"Pour info.\n\n-------- {sep} --------\n{subj} Facture\n{date} Fri, 7 May 2021 09:00:00 +0200\n"
            f"{frm} EDF Service <service@edf.example>\n{to} Paul Roux <paul@example.fr>\n\n"
            "Votre facture pour le compteur de Montmartre est disponible.\n")
    f = split_inline_forward(text)
    assert f is not None, lang
    assert f.before == "Pour info."
    assert list(f.headers.values()) == ["Facture", "Fri, 7 May 2021 09:00:00 +0200",
                                        "EDF Service <service@edf.example>", "Paul Roux <paul@example.fr>"]
    assert f.body == "Votre facture pour le compteur de Montmartre est disponible."
    assert own_words(text).strip() == "Pour info."


def test_thunderbirds_forward_with_a_reply_to_and_cc_line_keeps_the_body_apart():
    text = ("FYI\n\n-------- Message transféré --------\nSujet : Facture\nDate : Fri, 7 May 2021 09:00:00 +0200\n"
            "De : EDF <service@edf.example>\nRépondre à : noreply@edf.example\nPour : Paul <paul@example.fr>\n"
            "Copie à : Lea <lea@example.fr>\n\nVotre facture est disponible.")
    f = split_inline_forward(text)
    assert f.headers["Répondre à"] == "noreply@edf.example" and f.headers["Copie à"] == "Lea <lea@example.fr>"
    assert f.body == "Votre facture est disponible."


def test_forwarded_mails_in_french_spanish_italian_are_the_senders_records(tmp_path):
    for lang in ("fr", "es", "it"):
        sep, subj, date, frm, to = TB[lang]
        body = (f"Pour info.\n\n-------- {sep} --------\n{subj} Facture\n{date} Fri, 7 May 2021 09:00:00 +0200\n"
                f"{frm} Utility Co <bill@utility.example>\n{to} Paul Roux <paul@example.fr>\n\n"
                "The meter reading is ready.\n")
        main, fwd = _eml(tmp_path, body, subject="Fwd: facture", date="Sat, 8 May 2021 10:00:00 +0200")
        assert main.text.strip() == "Pour info.", lang
        assert (fwd.sender.address, fwd.text.strip()) == ("bill@utility.example", "The meter reading is ready.")
        assert fwd.sent_at.astimezone(UTC) == datetime(2021, 5, 7, 7, 0, tzinfo=UTC)


def test_a_dashed_line_without_a_header_block_is_not_a_forward():
    assert split_inline_forward("Notes\n\n-------- Chapter two --------\nIt was a dark night.\n") is None
    assert split_inline_forward("x\n-------- Chapter two --------\nSubject: the plot\nIt was.\n") is None


# --------------------------------------------------------------------------- F11: day/month order by chronology

@pytest.mark.parametrize("date, sent, want", [
    ("05/03/2021 10:00", datetime(2021, 3, 8, 12, tzinfo=PLUS1), "2021-03-05 10:00"),  # May 3 is after the reply
    ("03/05/2021 10:00", datetime(2021, 3, 8, 12, tzinfo=PLUS1), "2021-03-05 10:00"),  # month-first is the one
    ("05/03/2021 10:00", datetime(2021, 5, 8, 12, tzinfo=PLUS1), "05/03/2021 10:00"),  # both before: left as is
    ("13/03/2021 10:00", datetime(2021, 3, 14, 12, tzinfo=PLUS1), "13/03/2021 10:00"),  # one reading only
    ("05/05/2021 10:00", datetime(2021, 5, 8, 12, tzinfo=PLUS1), "05/05/2021 10:00"),  # reads the same
    ("05.03.21, 9:00 PM", datetime(2021, 3, 8, 12), "2021-03-05, 9:00 PM"),
    ("05/03/2021 10:00", None, "05/03/2021 10:00"),
])
def test_a_quoted_date_is_read_in_the_order_that_puts_it_before_the_reply(date, sent, want):
    assert settle_day_month(date, sent) == want


def test_a_thunderbird_quote_is_dated_before_the_reply_quoting_it():
    text = "Reply text for chrono.\n\nOn 05/03/2021 10:00, Ann Lee wrote:\n> Quoted words of Ann.\n"
    q = split_reply_quote(text, sent=datetime(2021, 3, 8, 12, tzinfo=PLUS1))
    assert q.headers == {"From": "Ann Lee", "Date": "2021-03-05 10:00"}
    assert attribution_headers("On 05/03/2021 10:00, Ann Lee wrote:") == {"From": "Ann Lee", "Date": "05/03/2021 10:00"}


# --------------------------------------------------------------------------- F12: attribution lines, languages

@pytest.mark.parametrize("line, sender, date", [
    ("W dniu 3.05.2021 o 10:00, Ann Lee pisze:", "Ann Lee", "3.05.2021 10:00"),  # Polish Thunderbird
    ("pon., 3 maj 2021 o 10:00 Ann Lee <a@x.org> napisał(a):", "Ann Lee <a@x.org>", "pon., 3 maj 2021 10:00"),
    ("Dne 03.05.21 v 10:00 Ann Lee napsal(a):", "Ann Lee", "03.05.21 10:00"),  # Czech Thunderbird
    ("po 3. 5. 2021 v 10:00 odesílatel Ann Lee <a@x.org> napsal:", "Ann Lee <a@x.org>", "po 3.5.2021 10:00"),
    ("2021. 05. 03. 10:00 keltezéssel, Ann Lee írta:", "Ann Lee", "2021. 05. 03. 10:00"),  # Hungarian
    ("Ann Lee <a@x.org> ezt írta (időpont: 2021. máj. 3., H, 10:00):", "Ann Lee <a@x.org>", "2021. máj. 3., H, 10:00"),
    ("03.05.2021 10:00 tarihinde Ann Lee yazdı:", "Ann Lee", "03.05.2021 10:00"),  # Turkish
    ("Ann Lee <a@x.org>, 3 May 2021 Pzt, 10:00 tarihinde şunu yazdı:", "Ann Lee <a@x.org>", "3 May 2021 Pzt, 10:00"),
    ("2021/05/03 10:00 に Ann Lee さんは書きました:", "Ann Lee", "2021/05/03 10:00"),  # Japanese
    ("2021/05/03 10:00、Ann Lee <a@x.org>のメール：", "Ann Lee <a@x.org>", "2021/05/03 10:00"),
    ("2021年5月3日(月) 10:00 Ann Lee <a@x.org>:", "Ann Lee <a@x.org>", "2021年5月3日(月) 10:00"),
    ("在 2021/5/3 10:00, Ann Lee 写道:", "Ann Lee", "2021/5/3 10:00"),  # Chinese
    ("Ann Lee <a@x.org> 于2021年5月3日周一 10:00写道：", "Ann Lee <a@x.org>", "2021年5月3日周一 10:00"),
    ("Ann Lee <a@x.org> 於 2021年5月3日 週一 下午3:00寫道：", "Ann Lee <a@x.org>", "2021年5月3日 週一 3:00 PM"),
    ("2021年5月3日 上午10:00，Ann Lee <a@x.org> 写道：", "Ann Lee <a@x.org>", "2021年5月3日 10:00 AM"),
    ("2021년 5월 3일 (월) 오전 10:00, Ann Lee <a@x.org>님이 작성:", "Ann Lee <a@x.org>", "2021년 5월 3일 (월) 10:00 AM"),
])
def test_attribution_lines_in_other_languages_name_the_writer_and_date(line, sender, date):
    assert attribution_headers(line) == {"From": sender, "Date": date}
    q = split_reply_quote(f"My answer.\n\n{line}\n> Quoted words of Ann.\n")
    assert (q.before, q.headers["From"], q.body) == ("My answer.", sender, "Quoted words of Ann.")
    assert own_words(f"My answer.\n\n{line}\n> Quoted words of Ann.\n").strip() == "My answer."


@pytest.mark.parametrize("line", [
    "W dniu 3.05.2021 o 10:00, Ann Lee pisze:", "03.05.2021 10:00 tarihinde Ann Lee yazdı:",
    "2021. 05. 03. 10:00 keltezéssel, Ann Lee írta:", "2021/05/03 10:00 に Ann Lee さんは書きました:",
])
def test_an_attribution_above_an_unmarked_quote_cuts_it_off(line):
    q = split_reply_quote(f"My answer.\n\n{line}\n\nQuoted words of Ann.\n")
    assert (q.before, q.headers["From"], q.body) == ("My answer.", "Ann Lee", "Quoted words of Ann.")


def test_a_polish_reply_is_two_records_the_quote_anns(tmp_path):
    body = "Reply text for pl.\n\nW dniu 3.05.2021 o 10:00, Ann Lee pisze:\n> Quoted words of Ann about Placepl.\n"
    reply, quote = _eml(tmp_path, body, subject="Re: pl", date="Wed, 5 May 2021 12:00:00 +0200")
    assert reply.text.strip() == "Reply text for pl."
    assert (quote.sender.name, quote.sender.address, quote.text.strip()) == (
        "Ann Lee", "a@x.org", "Quoted words of Ann about Placepl.")
    assert quote.sent_at.astimezone(UTC) == datetime(2021, 5, 3, 8, 0, tzinfo=UTC)


def test_a_line_ending_with_a_colon_that_names_nobody_does_not_split_a_quote():
    text = "Meeting at 10:30:\n> the agenda\nFine by me.\n"
    assert split_reply_quote(text) is None
    assert split_reply_quote(text, quoted_writer="Ann Lee <a@x.org>").before == "Meeting at 10:30:\nFine by me."

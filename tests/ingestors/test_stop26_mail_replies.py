"""Stop 26: the message a reply quotes below the writer's own lines — under an attribution line (``On … Mila
Ross <mila@…> wrote:`` with ``>`` lines, Gmail's HTML quote, ``Le … a écrit :``, ``Am … schrieb …:``) or under
Outlook's header block (HTML, OWA's rule, ``-----Original Message-----``) — is its writer's record, as a forwarded message is:
the reply's record holds the replier's own lines only, so "Who works at Tidewater?" is not answered with the
replier.  Each test writes its input and checks the records worked out by hand, through the real ingest path."""
from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from ingestors.mbox import EmlIngestor

UTC = timezone.utc


def _eml(tmp_path, sender: str, subject: str, date: str, body: str, html: bool = False) -> list:
    path = tmp_path / "m.eml"
    path.write_bytes((f"From: {sender}\nTo: Other <other@example.com>\nSubject: {subject}\nDate: {date}\n"
                      f"Message-ID: <r1@example.org>\nMIME-Version: 1.0\n"
                      f"Content-Type: text/{'html' if html else 'plain'}; charset=utf-8\n\n{body}").encode("utf-8"))
    return list(EmlIngestor().read(path))


def _rows(records) -> list:
    return [(r.sender.name, r.sender.address, r.text.strip(), r.sent_at.astimezone(UTC), r.subject) for r in records]


KURT = "Kurt Lamb <kurt@example.org>"
VICTOR = "Victor Hale <victor@example.org>"

CASES = {
    "plain '>' quote": (
        KURT, "Re: boat", "Sun, 15 Oct 2023 11:00:00 +0000", False,
        "Sure, the Osprey boat it is.\n\nOn Sat, Oct 14, 2023 at 9:30 PM Mila Ross <mila@example.net> wrote:\n"
        "> I work at Tidewater now. Shall we take the Heron boat?\n",
        ("Kurt Lamb", "kurt@example.org", "Sure, the Osprey boat it is.", datetime(2023, 10, 15, 11, tzinfo=UTC),
         "Re: boat"),
        # 9:30 PM written without a zone: read at the reply's +00:00
        ("Mila Ross", "mila@example.net", "I work at Tidewater now. Shall we take the Heron boat?",
         datetime(2023, 10, 14, 21, 30, tzinfo=UTC), "boat")),
    "Gmail's HTML quote": (
        KURT, "Re: cabin", "Sun, 15 Oct 2023 10:00:00 +0000", True,
        '<html><body><div dir="ltr">Yes, I already paid the deposit for the Fernhill cabin.</div><br>'
        '<div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Sat, Oct 14, 2023 at 9:00 PM Mila Ross '
        '&lt;mila@example.net&gt; wrote:<br></div><blockquote class="gmail_quote">Did you pay for the Oakridge '
        'cabin? I am allergic to cats.</blockquote></div></body></html>',
        ("Kurt Lamb", "kurt@example.org", "Yes, I already paid the deposit for the Fernhill cabin.",
         datetime(2023, 10, 15, 10, tzinfo=UTC), "Re: cabin"),
        ("Mila Ross", "mila@example.net", "Did you pay for the Oakridge cabin? I am allergic to cats.",
         datetime(2023, 10, 14, 21, tzinfo=UTC), "cabin")),
    "Outlook's HTML header block": (
        VICTOR, "RE: parking", "Fri, 13 Oct 2023 09:00:00 -0400", True,
        '<html><body><p>Wanda, I reserved spot 42 in the Maple garage.</p><div style="border:none;border-top:solid '
        '#E1E1E1 1.0pt"><p><b>From:</b> Wanda Kim &lt;wanda@example.net&gt;<br><b>Sent:</b> Thursday, October 12, '
        '2023 5:00 PM<br><b>To:</b> Victor Hale &lt;victor@example.org&gt;<br><b>Subject:</b> parking</p></div>'
        '<p>Can you book me a spot in the Cedar garage?</p></body></html>',
        ("Victor Hale", "victor@example.org", "Wanda, I reserved spot 42 in the Maple garage.",
         datetime(2023, 10, 13, 13, tzinfo=UTC), "RE: parking"),
        # 5:00 PM at the reply's -04:00: 21:00 UTC
        ("Wanda Kim", "wanda@example.net", "Can you book me a spot in the Cedar garage?",
         datetime(2023, 10, 12, 21, tzinfo=UTC), "parking")),
    "OWA's rule": (
        VICTOR, "RE: keys", "Fri, 13 Oct 2023 12:00:00 -0400", False,
        "I left the keys with the concierge at Elm Tower.\n\n________________________________\n"
        "From: Wanda Kim <wanda@example.net>\nSent: Thursday, October 12, 2023 7:00 PM\n"
        "To: Victor Hale <victor@example.org>\nSubject: keys\n\nMy brother lives in Tromso.\n",
        ("Victor Hale", "victor@example.org", "I left the keys with the concierge at Elm Tower.",
         datetime(2023, 10, 13, 16, tzinfo=UTC), "RE: keys"),
        ("Wanda Kim", "wanda@example.net", "My brother lives in Tromso.", datetime(2023, 10, 12, 23, tzinfo=UTC),
         "keys")),
    "Original Message, mailto": (
        VICTOR, "RE: storage", "Fri, 13 Oct 2023 11:00:00 -0400", True,
        "<html><body><p>Wanda, the storage unit is number 9 at Birch Lane.</p><p>-----Original Message-----<br>"
        "From: Wanda Kim [mailto:wanda@example.net]<br>Sent: Thursday, October 12, 2023 6:00 PM<br>"
        "To: Victor Hale<br>Subject: storage</p><p>Which storage unit did you rent at Aspen Road?</p></body></html>",
        ("Victor Hale", "victor@example.org", "Wanda, the storage unit is number 9 at Birch Lane.",
         datetime(2023, 10, 13, 15, tzinfo=UTC), "RE: storage"),
        ("Wanda Kim", "wanda@example.net", "Which storage unit did you rent at Aspen Road?",
         datetime(2023, 10, 12, 22, tzinfo=UTC), "storage")),
    "French attribution": (
        "Claire Dubois <claire@example.fr>", "RE: vacances", "Thu, 12 Oct 2023 11:00:00 +0200", False,
        "D'accord pour Biarritz.\n\nLe mer. 11 oct. 2023 à 18:00, Hugo Martin <hugo@example.fr> a écrit :\n"
        "> Je travaille chez Lumiflex maintenant.\n",
        ("Claire Dubois", "claire@example.fr", "D'accord pour Biarritz.", datetime(2023, 10, 12, 9, tzinfo=UTC),
         "RE: vacances"),
        ("Hugo Martin", "hugo@example.fr", "Je travaille chez Lumiflex maintenant.",
         datetime(2023, 10, 11, 16, tzinfo=UTC), "vacances")),
    "German attribution, no address": (
        "Jonas Berg <jonas@example.de>", "AW: Umzug", "Thu, 12 Oct 2023 11:00:00 +0200", False,
        "Gern helfe ich.\n\nAm 11.10.2023 um 18:00 schrieb Lena Vogt:\n> Ich wohne jetzt in Bremen.\n",
        ("Jonas Berg", "jonas@example.de", "Gern helfe ich.", datetime(2023, 10, 12, 9, tzinfo=UTC), "AW: Umzug"),
        ("Lena Vogt", None, "Ich wohne jetzt in Bremen.", datetime(2023, 10, 11, 16, tzinfo=UTC), "Umzug")),
    "attribution wrapped over two lines": (
        KURT, "Re: boat", "Sun, 15 Oct 2023 11:00:00 +0000", False,
        "Sure.\n\nOn Sat, Oct 14, 2023 at 9:30 PM Mila Ross <mila@example.net>\nwrote:\n\n> Which boat?\n",
        ("Kurt Lamb", "kurt@example.org", "Sure.", datetime(2023, 10, 15, 11, tzinfo=UTC), "Re: boat"),
        ("Mila Ross", "mila@example.net", "Which boat?", datetime(2023, 10, 14, 21, 30, tzinfo=UTC), "boat")),
    "mutt attribution": (
        KURT, "Re: logs", "Sun, 15 Oct 2023 11:00:00 +0000", False,
        "Rotated them.\n\n* Mila Ross (mila@example.net) [231014 21:30]:\n> The logs are full again.\n",
        ("Kurt Lamb", "kurt@example.org", "Rotated them.", datetime(2023, 10, 15, 11, tzinfo=UTC), "Re: logs"),
        ("Mila Ross", "mila@example.net", "The logs are full again.", datetime(2023, 10, 14, 21, 30, tzinfo=UTC),
         "logs")),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_quoted_message_is_its_writers_record(tmp_path, case):
    sender, subject, date, html, body, mine, theirs = CASES[case]
    records = _eml(tmp_path, sender, subject, date, body, html)
    assert _rows(records) == [mine, theirs]
    reply, quoted = records
    assert quoted.attrs["quoted_in"] == reply.external_id == "<r1@example.org>"
    assert quoted.external_id == "<r1@example.org> quoted 1" and quoted.thread == reply.thread
    assert reply.attrs["quoted"][0]["external_id"] == quoted.external_id
    # a store that imported the reply before (its whole text) knows it again
    assert reply.former_text is not None and theirs[2].split()[0] in reply.former_text
    assert re.sub(r"\s+", " ", reply.former_text).startswith(mine[2])


def test_answers_between_the_quoted_lines_are_the_replier_s_and_the_quoted_lines_the_quoted_writer_s(tmp_path):
    """An interleaved reply under an attribution (stop 27): the replier's lines are their record, the quoted lines,
    joined, the quoted writer's (``core.extraction.quoted``)."""
    body = ("On Sat, Oct 14, 2023 at 9:30 PM Mila Ross <mila@example.net> wrote:\n> Which boat?\nThe Osprey.\n"
            "> And when?\nAt nine.\n")
    rec, quote = _eml(tmp_path, KURT, "Re: boat", "Sun, 15 Oct 2023 11:00:00 +0000", body)
    assert rec.text == "The Osprey.\nAt nine." and rec.sender.address == "kurt@example.org"
    assert quote.text == "Which boat?\n\nAnd when?" and quote.sender.address == "mila@example.net"
    assert quote.sent_at == datetime(2023, 10, 14, 21, 30, tzinfo=UTC) and quote.attrs["quoted_in"] == rec.external_id


@pytest.mark.parametrize("body", [
    # the reply is only the quote
    "On Sat, Oct 14, 2023 at 9:30 PM Mila Ross <mila@example.net> wrote:\n> Which boat?\n",
    # quoted lines under no attribution: nobody to attribute them to
    "The Osprey.\n\n> Which boat?\n",
])
def test_a_reply_without_a_quote_of_its_own_at_the_end_stays_one_record(tmp_path, body):
    (rec,) = _eml(tmp_path, KURT, "Re: boat", "Sun, 15 Oct 2023 11:00:00 +0000", body)
    assert rec.text == body and rec.former_text is None and "quoted" not in rec.attrs


def test_a_forward_is_still_a_forward(tmp_path):
    body = ("FYI.\n\n-----Original Message-----\nFrom: Wanda Kim [mailto:wanda@example.net]\n"
            "Sent: Thursday, October 12, 2023 6:00 PM\nTo: Victor Hale\nSubject: gate code\n\n"
            "The gate code for the Linden yard is 4471.\n")
    outer, inner = _eml(tmp_path, VICTOR, "FW: gate code", "Fri, 13 Oct 2023 12:00:00 -0400", body)
    assert _rows([outer, inner]) == [
        ("Victor Hale", "victor@example.org", "FYI.", datetime(2023, 10, 13, 16, tzinfo=UTC), "FW: gate code"),
        ("Wanda Kim", "wanda@example.net", "The gate code for the Linden yard is 4471.",
         datetime(2023, 10, 12, 22, tzinfo=UTC), "gate code")]
    assert inner.attrs["forwarded_in"] == "<r1@example.org>" and "quoted_in" not in inner.attrs


def test_who_works_at_tidewater_is_the_quoted_writer(container, tmp_path):
    from sqlmodel import select

    from app.operations.ingest import ingest
    from core.store.schema import Entity, Fact

    path = tmp_path / "reply.eml"
    path.write_bytes((f"From: {KURT}\nTo: Mila Ross <mila@example.net>\nSubject: Re: boat\n"
                      "Date: Sun, 15 Oct 2023 11:00:00 +0000\nMessage-ID: <pq1@example.org>\n"
                      "Content-Type: text/plain; charset=utf-8\n\nSure, the Osprey boat it is.\n\n"
                      "On Sat, Oct 14, 2023 at 9:30 PM Mila Ross <mila@example.net> wrote:\n"
                      "> I work at Tidewater now. Shall we take the Heron boat?\n").encode())
    assert ingest(container, [path]).records_added == 2
    with container.db.session() as s:
        def employer(name):
            (e,) = s.exec(select(Entity).where(Entity.canonical_name == name, Entity.tombstoned_at.is_(None))).all()
            return [f.value for f in s.exec(select(Fact).where(Fact.subject_entity_id == e.id,
                                                               Fact.key == "employer")).all()]
        assert employer("Kurt Lamb") == [] and employer("Mila Ross") == ["Tidewater"]
    assert ingest(container, [path]).records_added == 0  # imported again: nothing new


def test_a_quote_inside_the_quoted_message_is_its_own_writers_record_too(tmp_path):
    body = ("Sure.\n\nFrom: Wanda Kim <wanda@example.net>\nSent: Thursday, October 12, 2023 5:00 PM\nTo: Kurt Lamb\n"
            "Subject: RE: parking\n\nOk by me.\n\nFrom: Kurt Lamb <kurt@example.org>\n"
            "Sent: Thursday, October 12, 2023 4:00 PM\nTo: Wanda Kim\nSubject: parking\n\nI work at Tidewater now.\n")
    records = _eml(tmp_path, KURT, "Re: parking", "Sun, 15 Oct 2023 11:00:00 +0200", body)
    assert _rows(records) == [
        ("Kurt Lamb", "kurt@example.org", "Sure.", datetime(2023, 10, 15, 9, tzinfo=UTC), "Re: parking"),
        ("Wanda Kim", "wanda@example.net", "Ok by me.", datetime(2023, 10, 12, 15, tzinfo=UTC), "RE: parking"),
        ("Kurt Lamb", "kurt@example.org", "I work at Tidewater now.", datetime(2023, 10, 12, 14, tzinfo=UTC),
         "parking")]
    assert records[2].attrs["quoted_in"] == records[1].external_id


def test_the_same_message_quoted_in_two_replies_is_one_record(container, tmp_path):
    from app.operations.ingest import ingest

    def reply(n, day, words):
        return (f"From kurt@example.org Mon Oct {day} 11:00:00 2023\nFrom: {KURT}\nTo: Mila Ross <mila@example.net>\n"
                f"Subject: Re: boat\nDate: Mon, {day} Oct 2023 11:00:00 +0000\nMessage-ID: <q{n}@example.org>\n\n"
                f"{words}\n\nOn Sat, Oct 14, 2023 at 9:30 PM Mila Ross <mila@example.net> wrote:\n"
                "> Shall we take the Heron boat?\n\n")
    path = tmp_path / "two.mbox"
    path.write_text(reply(1, 15, "Yes.") + reply(2, 16, "Still yes."))
    assert ingest(container, [path]).records_added == 3  # two replies, Mila's message once


def test_a_quoted_date_is_read_in_the_order_that_puts_it_before_its_reply(tmp_path):
    """'On 05/03/2021 10:00' in a reply sent Mon 8 Mar 2021 (+0100): month-first it would be 3 May, after the reply
    that quotes it — so it is 5 March, 10:00 at the reply's offset, 09:00 UTC (stop 27)."""
    body = ("Reply text for chrono.\n\nOn 05/03/2021 10:00, Ann Lee <ann@example.org> wrote:\n"
            "> Quoted words of Ann about the chrono place.\n")
    rec, quote = _eml(tmp_path, "Paul Roux <paul@example.fr>", "Re: chrono", "Mon, 08 Mar 2021 12:00:00 +0100", body)
    assert quote.sender.address == "ann@example.org"
    assert quote.sent_at == datetime(2021, 3, 5, 9, 0, tzinfo=UTC) and quote.sent_at < rec.sent_at

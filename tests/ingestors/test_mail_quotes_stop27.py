"""A reply's quoted message (stop 27): kept once, from the original, whichever mailbox comes first; a quote
attributed by name alone is the participant of that name.

1. The reply's mailbox first (Kurt quoting Mila: the quote is Mila's record), the original's mailbox later: the
   original is stored and the quote retired in its favour (its episode superseded, ``attrs["duplicate_of"]``, an
   ``episode_superseded`` learning event) — an answer shows Mila's words once, from her mail
   (``app.pipeline.retire_quotes``).  A mail of the same words by someone else, or days away, retires nothing.
2. ``On Monday, Ann Lee wrote:`` names no address: the quote is the reply's participant Ann Lee <ann@…>
   (``ingestors.mbox.quote_sender``); two participants of that name, or none, leave it without one.
3. A mailbox imported before quotes were records (the reply stored whole: its text holds the quote, even when the
   quoted mail is not stored or days away), or before a quote's name was resolved to an address, imported again adds
   nothing (``app.pipeline._quotes_in_whole_replies``).

Worked out by hand: Mila's mail is Sat 14 Oct 2023 21:30 +0200 = 19:30 UTC; Kurt's attribution line says "Sat, Oct
14, 2023 at 9:30 PM" at Kurt's offset (+0000) = 21:30 UTC, 2 h from it (inside the ±36 h window).  Nina's mail of
the same words as Mila's second quote is the same day but Nina's; Mila's third mail is 17 Oct (3 days on)."""
from __future__ import annotations

from pathlib import Path

import pytest

from app.operations.ingest import ingest
from helpers.files import rows
from ingestors.mbox import message_records, quote_sender
from ingestors.base import Party

ORIGINAL = """From mila@example.net Sat Oct 14 21:30:00 2023
From: Mila Ross <mila@example.net>
To: Kurt Lamb <kurt@example.org>
Subject: boat
Date: Sat, 14 Oct 2023 21:30:00 +0200
Message-ID: <o1@example.net>

I work at Tidewater now. Shall we take the Heron boat?

"""
REPLY = """From kurt@example.org Sun Oct 15 11:00:00 2023
From: Kurt Lamb <kurt@example.org>
To: Mila Ross <mila@example.net>
Subject: Re: boat
Date: Sun, 15 Oct 2023 11:00:00 +0000
Message-ID: <pq1@example.org>

Sure, the Osprey boat it is.

On Sat, Oct 14, 2023 at 9:30 PM Mila Ross <mila@example.net> wrote:
> I work at Tidewater now. Shall we take the Heron boat?

"""
# Kurt quotes two more of Mila's mails; the mailbox that comes later holds the same words from Nina (not Mila's),
# and Mila's own mail three days after the one quoted (outside the window): neither retires a quote
REPLY_2 = """From kurt@example.org Sun Oct 15 12:00:00 2023
From: Kurt Lamb <kurt@example.org>
To: Mila Ross <mila@example.net>
Subject: Re: lanterns
Date: Sun, 15 Oct 2023 12:00:00 +0000
Message-ID: <pq2@example.org>

I'll bring two.

On Sat, Oct 14, 2023 at 8:00 PM Mila Ross <mila@example.net> wrote:
> Bring the paper lanterns for the quayside party please.

"""
REPLY_3 = """From kurt@example.org Sun Oct 15 13:00:00 2023
From: Kurt Lamb <kurt@example.org>
To: Mila Ross <mila@example.net>
Subject: Re: oars
Date: Sun, 15 Oct 2023 13:00:00 +0000
Message-ID: <pq3@example.org>

Fine by me.

On Sat, Oct 14, 2023 at 7:00 PM Mila Ross <mila@example.net> wrote:
> The spare oars are stored in the red shed by the slipway.

"""
NINA = """From nina@example.com Sat Oct 14 20:05:00 2023
From: Nina Holt <nina@example.com>
To: Kurt Lamb <kurt@example.org>
Subject: lanterns
Date: Sat, 14 Oct 2023 20:05:00 +0000
Message-ID: <n1@example.com>

Bring the paper lanterns for the quayside party please.

"""
MILA_LATER = """From mila@example.net Tue Oct 17 19:00:00 2023
From: Mila Ross <mila@example.net>
To: Kurt Lamb <kurt@example.org>
Subject: oars
Date: Tue, 17 Oct 2023 19:00:00 +0000
Message-ID: <o3@example.net>

The spare oars are stored in the red shed by the slipway.

"""
TIDEWATER = "I work at Tidewater now. Shall we take the Heron boat?"


@pytest.fixture(scope="module")
def later(tmp_path_factory):
    """One data folder: the replies' mailbox imported, then the originals' mailbox, then the replies' again
    (reports of the three imports)."""
    from app.container import Container

    folder = tmp_path_factory.mktemp("stop27")
    replies, originals = folder / "kurt.mbox", folder / "mila.mbox"  # ("sent.mbox": its senders the owner)
    replies.write_text(REPLY + REPLY_2 + REPLY_3, encoding="utf-8")
    originals.write_text(ORIGINAL + NINA + MILA_LATER, encoding="utf-8")
    mp = pytest.MonkeyPatch()
    mp.setenv("KITH_HOME", str(folder / "kith-home"))
    c = Container()
    try:
        reports = [ingest(c, [replies])]
        from app.memory import service

        service(c).mem.index  # loaded: the retired quote is marked in it too, not only in SQLite
        reports += [ingest(c, [originals]), ingest(c, [replies])]
        yield c, reports
    finally:
        c.close()
        mp.undo()


def _texts(c) -> list[tuple]:
    """(sender, text, duplicate_of's sender, superseded) of every record, oldest first."""
    return [(n, t.strip(), d, bool(sup)) for n, t, d, sup in rows(
        c.settings.db_path, "SELECT e.canonical_name, r.text, (SELECT de.canonical_name FROM record d JOIN entity de "
        "ON de.id = d.sender_entity_id WHERE d.id = json_extract(r.attrs, '$.duplicate_of')), p.superseded_by "
        "FROM record r LEFT JOIN entity e ON e.id = r.sender_entity_id JOIN episode p ON p.record_id = r.id "
        "ORDER BY r.sent_at, r.id")]


def test_a_quote_imported_before_its_original_is_retired_for_it(later):
    c, (first, second, again) = later
    assert (first.records_added, first.errors) == (6, [])  # three replies, three quotes of Mila's
    assert (second.records_added, second.errors) == (3, [])
    assert (again.records_added, again.records_skipped) == (0, 6)
    assert [x for x in _texts(c) if TIDEWATER in x[1]] == [
        ("Mila Ross", TIDEWATER, None, False),          # the original stands
        ("Mila Ross", TIDEWATER, "Mila Ross", True)]    # the quote: kept, a duplicate of it, superseded
    [(quote, original)] = rows(c.settings.db_path, "SELECT id, json_extract(attrs, '$.duplicate_of') FROM record "
                               "WHERE json_extract(attrs, '$.duplicate_of') IS NOT NULL")  # that one alone
    [(kind, detail)] = rows(c.settings.db_path, "SELECT kind, detail FROM learningevent WHERE kind = "
                            "'episode_superseded'")
    assert f'"record": {quote}' in detail and f'"duplicate_of": {original}' in detail
    from app.memory import service

    index = service(c).mem.index
    [(episode,)] = rows(c.settings.db_path, "SELECT id FROM episode WHERE record_id = ?", (quote,))
    [(kept,)] = rows(c.settings.db_path, "SELECT id FROM episode WHERE record_id = ?", (original,))
    mask = index.valid_mask()
    assert not mask[index.row_of[episode]] and mask[index.row_of[kept]]


def test_another_writers_words_or_a_mail_days_away_retire_nothing(later):
    c, _ = later
    got = _texts(c)
    assert [x for x in got if "lanterns" in x[1]] == [
        ("Mila Ross", "Bring the paper lanterns for the quayside party please.", None, False),  # Kurt's quote
        ("Nina Holt", "Bring the paper lanterns for the quayside party please.", None, False)]
    assert [x[3] for x in got if "oars" in x[1]] == [False, False]


def test_an_answer_shows_the_words_once_from_the_original(later):
    from app.operations.ask import ask

    c, _ = later
    shown = [h for h in ask(c, "Tidewater Heron boat", k=10) if h.kind != "fact" and "Tidewater" in (h.text or "")]
    assert len(shown) == 1
    [(original,)] = rows(c.settings.db_path, "SELECT id FROM record WHERE external_id = '<o1@example.net>'")
    assert shown[0].record_id == original


def test_quick_search_shows_the_words_once_from_the_original(later):
    from app.operations.quick_search import quick_search

    c, _ = later
    [(original,)] = rows(c.settings.db_path, "SELECT id FROM record WHERE external_id = '<o1@example.net>'")
    assert [h.id for h in quick_search(c, "Tidewater") if h.kind == "memory"] == [original]


NAMED = b"""From: Bo Kim <bo@y.org>
To: Ann Lee <ann@x.org>
Cc: "Lee, Carl" <carl@z.org>, Dan Moss <dan@z.org>
Date: Tue, 4 May 2021 10:00:00 +0000
Subject: Re: trip
Message-ID: <r1@y.org>

Sounds good to me.

On Monday, WHO wrote:
> I moved to Lisbon last spring and I love it there.
> See you soon.
"""


@pytest.mark.parametrize("who, sender", [
    (b"Ann Lee", Party("Ann Lee", "ann@x.org")),
    (b"Carl Lee", Party("Carl Lee", "carl@z.org")),    # "Lee, Carl" in the Cc line
    (b"Carl", Party("Lee, Carl", "carl@z.org")),       # a first name alone: the one participant it names
    (b"Lee", Party("Lee")),                            # two Lees: neither
    (b"Eve Stone", Party("Eve Stone"))])               # not a participant: no address
def test_a_quote_named_without_an_address_is_the_participant_of_that_name(who, sender):
    main, quote = message_records(NAMED.replace(b"WHO", who), Path("x.mbox"), 1)
    assert quote.attrs["quoted_in"] == "<r1@y.org>" and quote.sender == sender
    assert quote.former_identity == (None if sender.address is None else
                                     "mail-quote\x00" + who.decode().casefold() + "\x00\x00" + quote.text.replace("\n", " "))


def test_quote_sender_wants_exactly_one_address():
    twice = [Party("Ann Lee", "ann@x.org", role="to"), Party("Ann Lee", "ANN@x.org", role="cc")]
    assert quote_sender(Party("Ann Lee"), twice) == Party("Ann Lee", "ann@x.org")  # one address, written twice
    two = [Party("Ann Lee", "ann@x.org"), Party("Ann Lee", "ann@work.example")]
    assert quote_sender(Party("Ann Lee"), two) is None
    assert quote_sender(Party("Ann Lee", "a@b.org"), two) is None and quote_sender(None, two) is None


def _old_import(c, box: Path, monkeypatch, what: str):
    """Import ``box`` as Kith did before: the reply stored whole (``what == "quotes"``), or quotes named by name
    alone kept without an address (``"names"``)."""
    import ingestors.mbox as mbox

    with monkeypatch.context() as mp:
        if what == "quotes":
            mp.setattr(mbox, "split_reply_quote", lambda *a, **k: None)
        else:
            mp.setattr(mbox, "quote_sender", lambda *a, **k: None)
        return ingest(c, [box])


def test_a_mailbox_imported_before_quotes_were_records_adds_nothing_again(container, tmp_path, monkeypatch):
    box = tmp_path / "box.mbox"
    box.write_text(REPLY + ORIGINAL, encoding="utf-8")
    assert _old_import(container, box, monkeypatch, "quotes").records_added == 2  # the reply whole, the original
    rep = ingest(container, [box])
    assert (rep.records_added, rep.errors) == (0, [])
    # a reply days after the mail it quotes, that mail not in the mailbox: the reply stored whole holds the quote
    late = tmp_path / "late.mbox"
    late.write_text(REPLY.replace("Sun Oct 15 11:00:00", "Fri Oct 20 11:00:00").replace("Sun, 15 Oct", "Fri, 20 Oct")
                    .replace("pq1@", "pq9@").replace("Heron", "Kestrel"), encoding="utf-8")
    assert _old_import(container, late, monkeypatch, "quotes").records_added == 1
    rep = ingest(container, [late])
    assert (rep.records_added, rep.errors) == (0, [])
    # and a name-only quote stored before its name was resolved is known again under its address
    named = tmp_path / "named.mbox"
    named.write_text("From bo@y.org Tue May  4 10:00:00 2021\n" + NAMED.replace(b"WHO", b"Ann Lee").decode()
                     .replace("On Monday,", "On Mon, 3 May 2021 at 09:00,") + "\n", encoding="utf-8")
    assert _old_import(container, named, monkeypatch, "names").records_added == 2
    rep = ingest(container, [named])
    assert (rep.records_added, rep.errors) == (0, [])
    assert rows(container.settings.db_path, "SELECT count(*) FROM record") == [(5,)]

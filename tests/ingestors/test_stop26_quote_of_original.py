"""A reply's quoted message is its writer's record (stop 26) — unless the mailbox holds that message itself: Mila's
original mail and Kurt's reply quoting it are two records, not three (app.pipeline._quote_of_a_mail)."""
from __future__ import annotations

from app.operations.ingest import ingest
from helpers.files import rows

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


def _records(c):
    return [(n, t.strip()) for n, t in rows(c.settings.db_path, "SELECT e.canonical_name, r.text FROM record r "
                                            "LEFT JOIN entity e ON e.id = r.sender_entity_id ORDER BY r.sent_at, r.id")]


def test_the_quoted_message_is_the_original_in_the_same_mailbox(container, tmp_path):
    box = tmp_path / "box.mbox"
    box.write_text(ORIGINAL + REPLY, encoding="utf-8")
    rep = ingest(container, [box])
    assert (rep.records_added, rep.errors) == (2, [])
    assert _records(container) == [("Mila Ross", "I work at Tidewater now. Shall we take the Heron boat?"),
                                   ("Kurt Lamb", "Sure, the Osprey boat it is.")]


def test_the_quoted_message_is_the_original_imported_before(container, tmp_path):
    first, second = tmp_path / "sent.mbox", tmp_path / "inbox.mbox"
    first.write_text(ORIGINAL, encoding="utf-8")
    second.write_text(REPLY, encoding="utf-8")
    assert ingest(container, [first]).records_added == 1
    rep = ingest(container, [second])
    assert (rep.records_added, rep.records_skipped) == (1, 1)
    assert [n for n, _t in _records(container)] == ["Mila Ross", "Kurt Lamb"]


def test_without_the_original_the_quote_is_its_writers_record(container, tmp_path):
    box = tmp_path / "inbox.mbox"
    box.write_text(REPLY, encoding="utf-8")
    assert ingest(container, [box]).records_added == 2
    assert _records(container) == [("Mila Ross", "I work at Tidewater now. Shall we take the Heron boat?"),
                                   ("Kurt Lamb", "Sure, the Osprey boat it is.")]

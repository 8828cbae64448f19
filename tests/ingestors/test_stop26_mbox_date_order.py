"""A mailbox that writes its numeric dates day-first (stop 26).  A message forwarded in the text of a mail carries
its own Date line, written as the forwarder's mail program writes dates and without a zone: ``04/05/2021 10:00``
reads either way.  Alone it is read month-first (5 April, the common order of slashed dates); in a mailbox where
``13/05/2021`` appears (which only reads day-first), it is 4 May.  The forwarded Date line is read at the forwarding
message's offset (+01:00 here), so the values below are worked out by hand: 4 May 2021 10:00 +01:00 is 09:00 UTC,
5 April 2021 10:00 +01:00 is 09:00 UTC of 5 April."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from ingestors.base import Record
from ingestors.mbox import MailboxOrder, MboxIngestor, mailbox_date_order

FORWARD = (b"From ann@example.com Mon May 17 09:00:00 2021\n"
           b"From: Ann Lee <ann@example.com>\n"
           b"To: Cy Dunn <cy@example.com>\n"
           b"Subject: Fwd: the plan\n"
           b"Date: Mon, 17 May 2021 09:00:00 +0100\n"
           b"Message-ID: <fwd-1@example.com>\n"
           b"\n"
           b"See below.\n"
           b"\n"
           b"---------- Forwarded message ---------\n"
           b"From: Bo Ray <bo@example.com>\n"
           b"Date: 04/05/2021 10:00\n"
           b"Subject: the plan\n"
           b"To: Ann Lee <ann@example.com>\n"
           b"\n"
           b"We meet at the harbour.\n"
           b"\n")


def _other(day_written: bytes) -> bytes:
    return (b"From cy@example.com Tue May 18 09:00:00 2021\n"
            b"From: Cy Dunn <cy@example.com>\n"
            b"To: Ann Lee <ann@example.com>\n"
            b"Subject: invoice\n"
            b"Date: Tue, 18 May 2021 09:00:00 +0100\n"
            b"Message-ID: <inv-1@example.com>\n"
            b"\n"
            b"The invoice dated " + day_written + b" is paid.\n"
            b"\n")


def _forwarded_time(tmp_path: Path, data: bytes) -> datetime:
    path = tmp_path / "Inbox.mbox"
    path.write_bytes(data)
    recs = [r for r in MboxIngestor().read(path) if isinstance(r, Record)]
    [fwd] = [r for r in recs if r.attrs.get("forwarded_in")]
    assert fwd.sender.address == "bo@example.com"
    return fwd.sent_at.astimezone(timezone.utc)


def test_a_day_first_mailbox_reads_an_ambiguous_forwarded_date_day_first(tmp_path):
    # the evidence comes after the ambiguous date, in another message's body
    when = _forwarded_time(tmp_path, FORWARD + _other(b"13/05/2021"))
    assert when == datetime(2021, 5, 4, 9, 0, tzinfo=timezone.utc)
    assert mailbox_date_order(tmp_path / "Inbox.mbox") == MailboxOrder("DMY", "13/05/2021")
    # every record of the mailbox says so, for whoever reads the dates in its text
    recs = [r for r in MboxIngestor().read(tmp_path / "Inbox.mbox") if isinstance(r, Record)]
    assert [(r.attrs["date_order"], r.attrs["date_order_basis"]) for r in recs] == [
        ("DMY", "the mailbox writes 13/05/2021")] * 3


def test_without_evidence_or_in_a_month_first_mailbox_it_stays_month_first(tmp_path):
    assert _forwarded_time(tmp_path, FORWARD) == datetime(2021, 4, 5, 9, 0, tzinfo=timezone.utc)
    assert mailbox_date_order(tmp_path / "Inbox.mbox") is None
    assert not any("date_order" in r.attrs for r in MboxIngestor().read(tmp_path / "Inbox.mbox"))
    assert _forwarded_time(tmp_path, FORWARD + _other(b"05/13/2021")) == datetime(2021, 4, 5, 9, 0,
                                                                                 tzinfo=timezone.utc)
    assert mailbox_date_order(tmp_path / "Inbox.mbox") == MailboxOrder("MDY", "05/13/2021")


def test_a_mailbox_of_both_orders_does_not_say(tmp_path):
    (tmp_path / "m.mbox").write_bytes(FORWARD + _other(b"13/05/2021") + _other(b"05/14/2021"))
    assert mailbox_date_order(tmp_path / "m.mbox") is None
    (tmp_path / "m.mbox").write_bytes(FORWARD + _other(b"13/05/2021") * 3 + _other(b"05/14/2021"))
    assert mailbox_date_order(tmp_path / "m.mbox") == MailboxOrder("DMY", "13/05/2021")


def test_a_date_header_not_in_the_standard_form_is_read_in_the_mailbox_order_too(tmp_path):
    """The first message has no ``From_`` line (nothing else dates it) and a Date header written ``04/05/2021
    10:00 +0100``: month-first alone (5 April), day-first in a mailbox where ``On 13/05/2021 … wrote`` appears
    (4 May, 10:00 +01:00 = 09:00 UTC)."""
    first = (b"From: Bo Ray <bo@example.com>\nTo: Ann Lee <ann@example.com>\nSubject: a\n"
             b"Date: 04/05/2021 10:00 +0100\nMessage-ID: <a@example.com>\n\nhello\n\n")
    reply = (b"From cy@example.com Tue May 18 09:00:00 2021\nFrom: Cy Dunn <cy@example.com>\nSubject: x\n"
             b"Date: Tue, 18 May 2021 09:00:00 +0100\nMessage-ID: <x@example.com>\n\nOn 13/05/2021 Ann wrote: hi\n\n")
    path = tmp_path / "Inbox.mbox"
    for data, want in ((first, datetime(2021, 4, 5, 9, 0, tzinfo=timezone.utc)),
                       (first + reply, datetime(2021, 5, 4, 9, 0, tzinfo=timezone.utc))):
        path.write_bytes(data)
        [rec] = [r for r in MboxIngestor().read(path) if r.external_id == "<a@example.com>"]
        assert rec.sent_at.astimezone(timezone.utc) == want

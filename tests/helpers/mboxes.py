"""Test data the tests write themselves: small, real mbox files."""
from __future__ import annotations

import mailbox
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

OWNER_TO = "Owner Person <owner@example.net>"


def write_mbox(path: Path, messages, start: datetime | None = None, step: timedelta = timedelta(days=1)) -> Path:
    """Write an mbox of ``messages``: tuples (from, subject, body) sent to the owner, or (from, to, subject, body);
    the first at ``start`` (default 2023-04-02 09:30 UTC), each next one ``step`` later."""
    start = start or datetime(2023, 4, 2, 9, 30, tzinfo=timezone.utc)
    box = mailbox.mbox(str(path), create=True)
    try:
        for i, msg in enumerate(messages):
            sender, to, subject, body = msg if len(msg) == 4 else (msg[0], OWNER_TO, msg[1], msg[2])
            m = EmailMessage()
            m["From"], m["To"], m["Subject"] = sender, to, subject
            m["Date"] = format_datetime(start + step * i)
            m["Message-ID"] = f"<{path.stem}-{i}@example.test>"
            m.set_content(body)
            box.add(mailbox.mboxMessage(m))
        box.flush()
    finally:
        box.close()
    return path


KITCHEN = [
    ("Alice Example <alice@example.com>", "Sourdough starter", "Feed the sourdough starter twice a day."),
    ("Bob Stone <bob@example.org>", "Climbing", "Shall we go climbing on Saturday morning?"),
    ("Alice Example <alice@example.com>", "Rye flour", "Rye flour makes the starter bubble."),
    (OWNER_TO, "Bob Stone <bob@example.org>", "Printer", "Remember that Alice Example fixed the printing last week."),
]
"""kitchen.mbox's messages: Alice ×2, Bob, and the owner's own line naming Alice (4 records, 3 senders)."""


def write_raw_mbox(path: Path, msgs) -> Path:
    """An mbox of ``(from, Date header as written, subject, body)`` sent to the owner, written as text (so a Date
    header in any form, odd ones included, reaches the reader as it is)."""
    out = []
    for i, (frm, date, subject, body) in enumerate(msgs):
        out.append(f"From MAILER-DAEMON Thu Jan  1 00:00:00 2023\nFrom: {frm}\nTo: Owner <owner@example.net>\n"
                   f"Subject: {subject}\nDate: {date}\nMessage-ID: <{path.stem}-{i}@mbox.test>\n\n{body}\n\n")
    path.write_text("".join(out), encoding="utf-8")
    return path

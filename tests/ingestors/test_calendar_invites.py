"""A calendar service's invitation is the organizer's: "Ann Lee (Google Calendar)" <calendar-notification@google.com>
with an RFC 5545 part naming ``ORGANIZER;CN=Ann Lee:mailto:ann.lee@acme.example`` is from Ann at her address (stop
25) — two Ann Lees' invitations were filed under one person, by the name alone.  Mails made here; the right
senders are the organizers the calendar parts name."""
from __future__ import annotations

from datetime import datetime, timezone
from email.message import EmailMessage
from email.utils import format_datetime

from helpers.files import rows
from ingestors.base import Party
from ingestors.mbox import MboxIngestor


def invite(i: int, name: str, organizer: str | None, frm: str | None = None) -> EmailMessage:
    m = EmailMessage()
    m["From"] = frm or f'"{name} (Google Calendar)" <calendar-notification@google.com>'
    m["To"], m["Subject"] = "me@example.net", f"Invitation: Meeting {i} @ Mon 4 Mar 2024"
    m["Date"], m["Message-ID"] = format_datetime(datetime(2024, 3, 1 + i, 9, tzinfo=timezone.utc)), f"<cal{i}@x>"
    m.set_content(f"You have been invited by {name} to Meeting {i}.\n")
    if organizer is not None:
        m.add_alternative("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\n"
                          f"ORGANIZER;CN={name}:mailto:{organizer}\r\nSUMMARY:Meeting {i}\r\n"
                          "DTSTART:20240304T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n", subtype="calendar")
    return m


def mbox(path, mails):
    path.write_bytes(b"".join(b"From calendar-notification@google.com Fri Mar  1 09:00:00 2024\n" + m.as_bytes()
                              + b"\n" for m in mails))
    return path


def test_an_invitation_is_from_the_organizer_its_calendar_part_names(tmp_path):
    box = mbox(tmp_path / "cal.mbox", [invite(0, "Ann Lee", "ann.lee@acme.example"),
                                       invite(1, "Ann Lee", "annlee77@gmail.com"),
                                       invite(2, "Ann Lee", "ann.lee@acme.example",  # a reminder: the service's own
                                              frm='"Google Calendar" <calendar-notification@google.com>'),
                                       invite(3, "Ann Lee", "ann.lee@acme.example",  # sent from her own address
                                              frm='"Ann Lee" <ann.lee@acme.example>'),
                                       invite(4, "Ann Lee", None)])                      # no calendar part
    got = [(r.sender, r.attrs.get("sent_via")) for r in MboxIngestor().read(box)]
    via = "Ann Lee (Google Calendar) <calendar-notification@google.com>"
    assert got == [
        (Party("Ann Lee", "ann.lee@acme.example", "email", "from"), via),
        (Party("Ann Lee", "annlee77@gmail.com", "email", "from"), via),
        (Party("Google Calendar", "calendar-notification@google.com", "email", "from"), None),
        (Party("Ann Lee", "ann.lee@acme.example", "email", "from"), None),
        (Party("Ann Lee (Google Calendar)", "calendar-notification@google.com", "email", "from"), None)]


def test_two_ann_lees_inviting_are_two_people_with_a_suggestion(container, tmp_path):
    from app.operations.ingest import ingest

    box = mbox(tmp_path / "cal.mbox", [invite(0, "Ann Lee", "ann.lee@acme.example"),
                                       invite(1, "Ann Lee", "annlee77@gmail.com")])
    assert ingest(container, [box]).records_added == 2
    db = container.settings.db_path
    anns = rows(db, "SELECT count(*) FROM entity WHERE canonical_name = 'Ann Lee' AND tombstoned_at IS NULL")
    assert anns == [(2,)] and rows(db, "SELECT count(*) FROM mergecandidate WHERE status = 'pending'") == [(1,)]

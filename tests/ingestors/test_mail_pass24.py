"""Mail inputs of the kinds in ../shared/corpus/regressions/README.md (an mbox split wrongly, a date read wrongly,
someone else's words taken as the sender's, a relative date read in the wrong calendar), in forms earlier passes
did not try: each test writes its input and checks the values worked out by hand."""
from __future__ import annotations

from datetime import datetime, timezone

from ingestors.base import Record
from ingestors.mbox import EmlIngestor, MboxIngestor, is_envelope

UTC = timezone.utc


def _msg(subject: str, body: str, sender: str = "Ann Lee <ann@example.org>",
         date: str = "Mon, 04 Mar 2024 10:00:00 +0000",
         envelope: str | None = "From ann@example.org Mon Mar  4 10:00:00 2024",
         headers: str = "") -> str:
    return ((envelope + "\n" if envelope else "") + f"From: {sender}\nTo: Me <me@example.com>\nSubject: {subject}\n"
            f"Date: {date}\nMessage-ID: <{subject.replace(' ', '.')}@example.org>\n{headers}\n{body}\n\n")


def _read(tmp_path, name: str, data: str | bytes, reader=None) -> list:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    reader = reader or (EmlIngestor() if ".eml" in name else MboxIngestor())
    return list(reader.read(path))


def test_a_body_sentence_holding_a_date_is_not_an_envelope_line(tmp_path):
    """'From 10:00 to 12:00 on Mon 4 March 2024 we meet…' after a blank line, then 'Agenda: …', has a month, a
    time and a year, and a header-like line follows; but an envelope line's date is a bare ctime stamp, so it is
    Ann's text, not a header-less second message."""
    body = ("Hi,\n\nFrom 10:00 to 12:00 on Mon 4 March 2024 we meet in room B.\nAgenda: budget review\n\n"
            "From Jane Doe Sent: Monday, March 4, 2024 10:00 AM\nTo: Ann\n\nLunch at the Blue Fig?\nAnn")
    items = _read(tmp_path, "meet.mbox", _msg("Meeting", body)
                  + _msg("Re: Meeting", "Ok.", sender="Bob <bob@example.net>",
                         envelope="From bob@example.net Tue Mar  5 11:00:00 2024"))
    assert [i.subject for i in items] == ["Meeting", "Re: Meeting"]
    assert all(isinstance(i, Record) and i.sender for i in items)
    lines = items[0].text.splitlines()
    assert "From 10:00 to 12:00 on Mon 4 March 2024 we meet in room B." in lines and "Lunch at the Blue Fig?" in lines
    for line in (b"From ann@example.org Mon Mar  4 10:00:00 2024", b"From - Mon Mar 04 10:00:00 2024",
                 b"From 1790@xxx Mon Mar 04 10:00:00 +0000 2024", b"From a@b Wed Feb  9 22:02 MET DST 2000",
                 b"From a@b Sat, 04 Mar 2024 10:00:00 +0000 (UTC)", b"From u Mon Jan  1 09:00:00 2001 remote from h"):
        assert is_envelope(line), line

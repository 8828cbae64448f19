"""Mailbox faults of the rt3 red team (stop 27): an envelope line with an empty sender, a mailbox cut short, the text
of attached text files."""
from __future__ import annotations

import base64
from datetime import datetime, timezone
from pathlib import Path

from ingestors.base import Record
from ingestors.mbox import (TEXT_ATTACHMENT_CHARS, MboxIngestor, attachment_texts, envelope_time, is_envelope,
                            message_records)

UTC = timezone.utc


def _msg(envelope: str, n: int, hour: int, extra: str = "") -> str:
    return (f"{envelope}\nFrom: Sender{n} Person <s{n}@example.com>\nSubject: env {n}\n"
            f"Date: Mon, 3 May 2021 {hour:02d}:00:00 +0000\nMessage-ID: <env{n}@example.com>\n{extra}\n"
            f"Message {n} mentions Landmark{n}.\n\n")


def _read(tmp_path: Path, text: str | bytes, name: str = "box.mbox") -> list:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return list(MboxIngestor().read(path))


ENVELOPES = [
    "From 1698765432101234567@xxx Mon May 03 10:00:00 +0000 2021",  # Gmail Takeout
    "From <> Mon May  3 11:00:00 2021",
    "From MAILER-DAEMON Mon May  3 12:00:00 2021",
    "From user@example.com Mon, 3 May 2021 13:00:00 +0000",  # an RFC 2822 date
    "From  Mon May  3 14:00:00 2021",  # an empty sender (null return path): two spaces
    "From - Mon May  3 15:00:00 2021",  # Thunderbird
    "From  Mon May  3 16:00:00 2021",
    "From user@example.com Mon May 3 17:00:00 CEST 2021",  # a zone name
    "From user@example.com  Mon May  3 18:00:00 2021 remote from mars",
    "From  Mon May  3 19:00:00 2021",  # the last message
]


def test_every_envelope_form_starts_a_message_an_empty_sender_included(tmp_path):
    items = _read(tmp_path, "".join(_msg(e, n, 10 + n - 1) for n, e in enumerate(ENVELOPES, 1)))
    assert [type(x) for x in items] == [Record] * len(ENVELOPES)
    assert [r.sender.name for r in items] == [f"Sender{n} Person" for n in range(1, len(ENVELOPES) + 1)]
    assert [r.text.strip() for r in items] == [f"Message {n} mentions Landmark{n}." for n in range(1, 11)]
    assert [r.sent_at.astimezone(UTC).hour for r in items] == list(range(10, 20))
    assert items[4].attrs["mbox_from"] == "From  Mon May  3 14:00:00 2021"


def test_an_empty_sender_envelope_without_a_date_header_gives_its_time(tmp_path):
    box = ("From a@example.com Mon May  3 09:00:00 2021\nFrom: A <a@example.com>\nSubject: one\n\nFirst.\n\n"
           "From  Mon May  3 15:00:00 2021\nFrom: B <b@example.com>\nSubject: two\n\nSecond.\n")
    items = _read(tmp_path, box)
    assert [(r.sender.address, r.text.strip(), r.sent_at) for r in items] == [
        ("a@example.com", "First.", datetime(2021, 5, 3, 9, tzinfo=UTC)),
        ("b@example.com", "Second.", datetime(2021, 5, 3, 15, tzinfo=UTC))]
    assert items[1].attrs["date_source"] == "envelope"


def test_envelope_time_and_shape_with_an_empty_sender():
    assert envelope_time("From  Mon May  3 15:00:00 2021") == datetime(2021, 5, 3, 15, tzinfo=UTC)
    assert envelope_time("From  3 May 2021 15:00:00") == datetime(2021, 5, 3, 15, tzinfo=UTC)  # not "sender 3"
    assert envelope_time("From u@x Mon May  3 14:00:00 2021 remote from mars") == datetime(2021, 5, 3, 14, tzinfo=UTC)
    assert envelope_time("From - Mon May  3 10:00:00 2021") == datetime(2021, 5, 3, 10, tzinfo=UTC)
    assert is_envelope(b"From  Mon May  3 15:00:00 2021\n")
    assert not is_envelope(b"From  Monday's talk at 10:00, 3 May 2021\n")  # a sentence is body text


def test_an_empty_sender_line_in_a_body_without_headers_after_it_stays_text(tmp_path):
    box = ("From a@example.com Mon May  3 09:00:00 2021\nFrom: A <a@example.com>\nSubject: one\n\nLook:\n\n"
           "From  Mon May  3 15:00:00 2021\nwe met at the Quarry.\n")
    items = _read(tmp_path, box)
    assert len(items) == 1 and "we met at the Quarry." in items[0].text


ENC = ("From ann@example.org Mon May  3 08:00:00 2021\nFrom: Ann Body <ann@example.org>\nSubject: first\n"
       "Date: Mon, 3 May 2021 10:00:00 +0200\nMessage-ID: <f1@example.org>\n\nThe first one is whole.\n\n"
       "From cyd@example.org Mon May  3 09:00:00 2021\nFrom: Cyd Nora <cyd@example.org>\nSubject: Grüße\n"
       "Date: Mon, 3 May 2021 11:00:00 +0200\nMessage-ID: <f2@example.org>\nMIME-Version: 1.0\n"
       "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
       + base64.b64encode("Wir sehen uns in München am Marienplatz.".encode()).decode() + "\n")


def test_a_mailbox_cut_inside_a_message_keeps_it_and_says_so(tmp_path):
    cut = ENC.encode()[:ENC.encode().index(b"Content-Transfer-Encoding") + 60]  # inside the base64 line
    items = _read(tmp_path, cut)
    assert [type(x) for x in items] == [Record, Record]
    assert [r.text.strip()[:4] for r in items] == ["The ", "Wir "]  # nothing the file holds is lost
    assert "cut_short" not in items[0].attrs
    reason = items[1].attrs["cut_short"]  # what the import tells the user (app.operations.ingest)
    assert reason.startswith("the file ends in the middle of this message (from Cyd Nora, 2021-05-03T11:00:00+02:00, "
                             "'Grüße')") and items[1].attrs["index"] == 2


def test_a_mailbox_cut_at_a_line_end_inside_a_multipart_says_so_too(tmp_path):
    box = ("From a@example.com Mon May  3 09:00:00 2021\nFrom: A <a@example.com>\nSubject: parts\n"
           "Date: Mon, 3 May 2021 09:00:00 +0000\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"Q\"\n\n"
           "--Q\nContent-Type: text/plain\n\nThe Saffron Gate opens at nine.\n\n--Q\n"
           "Content-Type: application/pdf; name=\"a.pdf\"\nContent-Transfer-Encoding: base64\n\nJVBERi0xLjQK\n")
    items = _read(tmp_path, box)
    assert [type(x) for x in items] == [Record] and "Saffron Gate" in items[0].text
    assert "ends in the middle of this message" in items[0].attrs["cut_short"]
    whole = _read(tmp_path, box + "--Q--\n", "whole.mbox")
    assert [type(x) for x in whole] == [Record] and "cut_short" not in whole[0].attrs  # whole: nothing to say
    assert not [r for r in _read(tmp_path, ENC, "enc.mbox") if "cut_short" in r.attrs]


def _with_files(*parts: str, body: str = "Notes attached.") -> bytes:
    head = ("From: Xia Wen <xia@example.com>\nTo: me@example.com\nSubject: trip\nDate: Wed, 5 May 2021 14:00:00 +0000\n"
            "Message-ID: <g7@example.com>\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B1\"\n\n"
            f"--B1\nContent-Type: text/plain; charset=utf-8\n\n{body}\n")
    return (head + "".join(f"--B1\n{p}\n" for p in parts) + "--B1--\n").encode("latin-1")


NOTES = ('Content-Type: text/plain; charset=utf-8; name="notes.txt"\nContent-Disposition: attachment; '
         'filename="notes.txt"\n\nPacking list: tent, stove, the Juniper map. I work at Zephyr Corp.')


def test_a_text_attachment_is_its_own_record_without_a_sender(tmp_path):
    out = message_records(_with_files(NOTES), tmp_path / "m.mbox", 1)
    main, att = out
    assert main.text.strip() == "Notes attached." and "Juniper" not in main.text  # not the sender's own words
    assert main.attrs["attachments"] == ["notes.txt"]
    assert att.text == "Packing list: tent, stove, the Juniper map. I work at Zephyr Corp."
    assert (att.kind, att.sender, att.recipients, att.sent_at) == ("email", None, [], main.sent_at)
    assert att.subject == "notes.txt (attached by Xia Wen)"
    assert (att.attrs["attached_in"], att.external_id, att.thread) == ("<g7@example.com>",
                                                                      "<g7@example.com> attached 1", main.thread)
    assert att.attrs["attached_by"] == "Xia Wen <xia@example.com>"
    assert main.attrs["attached"] == [{"external_id": "<g7@example.com> attached 1",
                                       "subject": "notes.txt (attached by Xia Wen)", "from": None}]


def test_csv_markdown_calendar_and_octet_stream_texts_are_read_with_their_charsets(tmp_path):
    patch = ('Content-Type: text/x-patch; name="fix.patch"\nContent-Disposition: attachment; filename="fix.patch"\n\n'
             '--- a/x\n+++ b/x\n')  # code: named, not kept
    csv = ('Content-Type: text/csv; charset=iso-8859-1; name="costs.csv"\nContent-Disposition: attachment; '
           'filename="costs.csv"\nContent-Transfer-Encoding: quoted-printable\n\nitem,cost\nCr=E8me br=FBl=E9e,4')
    md = ('Content-Type: application/octet-stream; name="agenda.md"\nContent-Disposition: attachment; '
          'filename="agenda.md"\nContent-Transfer-Encoding: base64\n\n'
          + base64.b64encode("# Agenda\n\n* Visit the Obsidian Tower".encode()).decode())
    ics = ('Content-Type: text/calendar; charset=utf-8; name="invite.ics"\nContent-Disposition: attachment; '
           'filename="invite.ics"\n\nBEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:Lantern walk at Quillby\r\n'
           'END:VEVENT\r\nEND:VCALENDAR')
    utf16 = ('Content-Type: text/plain; name="w.txt"\nContent-Disposition: attachment; filename="w.txt"\n'
             'Content-Transfer-Encoding: base64\n\n' + base64.b64encode("Wide Ember Lake".encode("utf-16")).decode())
    binary = ('Content-Type: text/plain; name="x.txt"\nContent-Disposition: attachment; filename="x.txt"\n'
              'Content-Transfer-Encoding: base64\n\n' + base64.b64encode(b"\x00\x01\x02MZ\x00").decode())
    pdf = ('Content-Type: application/pdf; name="a.pdf"\nContent-Disposition: attachment; filename="a.pdf"\n'
           'Content-Transfer-Encoding: base64\n\nJVBERi0xLjQK')
    msg = _with_files(csv, md, ics, utf16, binary, pdf, patch)
    out = message_records(msg, tmp_path / "m.mbox", 1)
    texts = {r.attrs["attachment"]: r.text for r in out[1:]}
    assert set(texts) == {"costs.csv", "agenda.md", "invite.ics", "w.txt"}
    assert texts["costs.csv"] == "item,cost\nCrème brûlée,4"
    assert texts["agenda.md"] == "# Agenda\n\n* Visit the Obsidian Tower"
    assert "SUMMARY:Lantern walk at Quillby" in texts["invite.ics"] and "\r" not in texts["invite.ics"]
    assert texts["w.txt"] == "Wide Ember Lake"
    assert out[0].attrs["attachments"] == ["costs.csv", "agenda.md", "invite.ics", "w.txt", "x.txt", "a.pdf",
                                        "fix.patch"]


def test_a_long_text_attachment_is_bounded(tmp_path):
    long = ('Content-Type: text/plain; name="big.txt"\nContent-Disposition: attachment; filename="big.txt"\n\n'
            + "word " * 10_000)
    from email import message_from_bytes, policy

    texts = attachment_texts(message_from_bytes(_with_files(long), policy=policy.default))
    assert len(texts) == 1 and len(texts[0][2]) == TEXT_ATTACHMENT_CHARS
    att = message_records(_with_files(long), tmp_path / "m.mbox", 1)[1]
    assert len(att.text) == TEXT_ATTACHMENT_CHARS and any("trimmed" in n for n in att.notes)


def test_a_body_marked_as_an_attachment_is_not_kept_twice(tmp_path):
    only = ("From: Xia Wen <xia@example.com>\nSubject: s\nDate: Wed, 5 May 2021 14:00:00 +0000\nMIME-Version: 1.0\n"
            "Content-Type: text/plain; charset=utf-8\nContent-Disposition: attachment; filename=\"body.txt\"\n\n"
            "Meet at the Cobalt Mill.\n").encode()
    out = message_records(only, tmp_path / "m.mbox", 1)
    assert len(out) == 1 and "Cobalt Mill" in out[0].text

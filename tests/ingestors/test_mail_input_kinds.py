"""Mail inputs of the kinds in ../shared/corpus/regressions/README.md (an mbox split wrongly, a message read
without its headers, a date read wrongly, someone else's words taken as the sender's), in forms the first
pass did not try: each test writes its input and checks the values worked out by hand."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from core.errors import InputError
from ingestors.base import Record, RecordError
from ingestors.mbox import EmlIngestor, MboxIngestor
from ingestors.registry import expand_inputs, unsupported_reason

UTC = timezone.utc


def _msg(subject: str, body: str, sender: str = "Ann Lee <ann@example.org>",
         date: str = "Mon, 01 Jan 2001 09:05:00 +0100",
         envelope: str | None = "From ann@example.org Mon Jan  1 08:05:00 2001",
         headers: str = "") -> str:
    return ((envelope + "\n" if envelope else "") + f"From: {sender}\nTo: Me <me@example.com>\nSubject: {subject}\n"
            f"Date: {date}\nMessage-ID: <{subject.replace(' ', '.')}@example.org>\n{headers}\n{body}\n\n")


def _read(tmp_path, name: str, data: str | bytes, reader=None) -> list:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    reader = reader or (EmlIngestor() if ".eml" in name else MboxIngestor())
    return list(reader.read(path))


PATCH = """MIME-Version: 1.0
Content-Type: multipart/mixed;
\tboundary="pp"

--pp
Content-Type: text/plain

Here is the patch for the Birchwood build.

--pp
Content-Type: text/x-patch; name="0001-fix.patch"
Content-Disposition: attachment; filename="0001-fix.patch"

From 4f3a2b1c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a Mon Sep 17 00:00:00 2001
From: Dev One <dev@example.org>
Date: Mon, 1 Jan 2001 09:00:00 +0100
Subject: [PATCH] fix

---
 a.c | 1 +
"""


def test_an_envelope_line_inside_an_attachment_does_not_split_the_message(tmp_path):
    """``git format-patch`` output (or a saved mbox) attached unencoded starts with an envelope line and headers;
    a writer that does not quote ``From `` leaves it so.  Inside the open multipart it is body text."""
    first = _msg("Patch", "").rstrip("\n") + "\n" + PATCH + "--pp--\n"
    items = _read(tmp_path, "patch.mbox", first + "\n" + _msg("Two", "Second."))
    assert [(r.subject, r.sender.address) for r in items] == [("Patch", "ann@example.org"),
                                                               ("Two", "ann@example.org")]
    assert items[0].text.strip() == "Here is the patch for the Birchwood build."
    assert items[0].attrs["attachments"] == ["0001-fix.patch"]


def test_a_multipart_that_never_closes_is_cut_at_the_next_envelope_and_loses_no_message(tmp_path):
    """A message cut short inside its multipart: the envelope line after it separates after all, whether the file
    ends there or the held bytes reach the size limit."""
    cut = _msg("Cut", "").rstrip("\n") + "\n" + PATCH.replace("Here is the patch", "Cut short here")
    data = cut + "\n" + _msg("Two", "Second.") + _msg("Three", "Third.")
    for reader in (MboxIngestor(), MboxIngestor(max_message_bytes=len(cut) + 40)):  # Two does not fit
        items = [i for i in _read(tmp_path, "cut.mbox", data, reader) if isinstance(i, Record)]
        subjects = [r.subject for r in items]
        assert subjects == ["Cut", "[PATCH] fix", "Two", "Three"], subjects
        assert "Cut short here" in items[0].text


def test_bom_blank_lines_crlf_and_thunderbird_envelopes(tmp_path):
    body = _msg("One", "Hello.\n\nFrom what I remember, the Juniper Cafe.", envelope="From - Mon Jan  1 00:00:00 2001",
                headers="X-Mozilla-Status: 0001\n") + _msg("Two", "Second.", envelope="From - Tue Jan  2 00:00:00 2001")
    for name, data in (("bom.mbox", "\ufeff" + body), ("blank.mbox", "\n \n" + body),
                       ("crlf.mbox", ("\ufeff" + body).replace("\n", "\r\n"))):
        items = _read(tmp_path, name, data)
        assert [r.subject for r in items] == ["One", "Two"], name
        assert "From what I remember, the Juniper Cafe." in items[0].text
        assert items[0].sent_at == datetime(2001, 1, 1, 8, 5, tzinfo=UTC)
    headers_first = "\ufeff" + _msg("One", "Hello.", envelope=None) + _msg("Two", "Second.")
    assert [r.subject for r in _read(tmp_path, "noenv.mbox", headers_first)] == ["One", "Two"]


@pytest.mark.parametrize("prefix", ["\ufeff", "\n\n", " \n", "\ufeff\r\n",
                                    "Microsoft Mail Internet Headers Version 2.0\n"])
def test_an_eml_with_something_before_its_headers(tmp_path, prefix):
    (r,) = _read(tmp_path, "one.eml", prefix + _msg("Lunch", "See you at noon.", envelope=None))
    assert (r.subject, r.sender.name, r.text.strip()) == ("Lunch", "Ann Lee", "See you at noon.")
    assert r.sent_at == datetime(2001, 1, 1, 8, 5, tzinfo=UTC)


def test_an_eml_saved_with_its_mbox_line_and_crlf(tmp_path):
    (r,) = _read(tmp_path, "saved.eml", _msg("Lunch", "See you at noon.").replace("\n", "\r\n"))
    assert (r.subject, r.text.strip()) == ("Lunch", "See you at noon.")
    assert r.sent_at == datetime(2001, 1, 1, 8, 5, tzinfo=UTC)


def test_apple_mail_emlx_and_an_exported_mbox_folder(tmp_path):
    msg = _msg("Apple", "Sent from Mail.", envelope=None).encode()
    (r,) = _read(tmp_path, "123.emlx", str(len(msg)).encode() + b"\n" + msg
                 + b'<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict/></plist>\n')
    assert (r.subject, r.text.strip()) == ("Apple", "Sent from Mail.")
    folder = tmp_path / "export" / "Work.mbox"
    folder.mkdir(parents=True)
    (folder / "mbox").write_text(_msg("One", "a"))
    (folder / "table_of_contents").write_bytes(b"bplist00\x00")
    (folder / "Info.plist").write_text("<plist/>")
    files, problems = expand_inputs([tmp_path / "export"])
    assert [f.name for f in files] == ["mbox"] and problems == []


def test_an_outlook_msg_file_is_refused_saying_what_it_is(tmp_path):
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512
    for name in ("renamed.eml", "renamed.mbox"):
        with pytest.raises(InputError) as err:
            _read(tmp_path, name, ole)
        assert str(tmp_path / name) in str(err.value) and "Outlook .msg" in str(err.value)
    assert "Outlook .msg" in unsupported_reason(tmp_path / "mail.msg")


def test_a_file_that_ends_inside_a_message(tmp_path):
    good = _msg("One", "Complete.")
    in_headers = _read(tmp_path, "a.mbox", good + "From ann@example.org Mon Jan  1 08:05:00 2001\nFrom: Bob <b")
    assert isinstance(in_headers[0], Record) and in_headers[0].subject == "One"
    assert isinstance(in_headers[1], RecordError) and "cut short" in in_headers[1].reason
    in_body = _read(tmp_path, "b.mbox", good + _msg("Two", "The text stops in the mid").rstrip("\n"))
    assert [r.subject for r in in_body] == ["One", "Two"]
    assert "The text stops in the mid" in in_body[1].text and any("cut short" in n for n in in_body[1].notes)
    assert not any("cut short" in n for n in in_body[0].notes)


@pytest.mark.parametrize("date, utc, offset_min, source", [
    ("Mon, 1 Jan 2001 9:05:00 +0100 (CET)", datetime(2001, 1, 1, 8, 5, tzinfo=UTC), 60, None),
    ("01 Jan 2001 09:05 GMT", datetime(2001, 1, 1, 9, 5, tzinfo=UTC), 0, None),
    ("Mon, 1 Jan 2001 09:05:00 +01:00", datetime(2001, 1, 1, 8, 5, tzinfo=UTC), 60, None),  # was: "no zone"
    ("Mon, 01 Jan 2001 09:05:00 PM +0100", datetime(2001, 1, 1, 20, 5, tzinfo=UTC), 60, None),  # was: 08:05
    ("Jan 1, 2001 9:05:00 PM PST", datetime(2001, 1, 2, 5, 5, tzinfo=UTC), -480, None),  # was: 09:05 UTC
    ("Monday, January 1, 2001 9:05 AM", datetime(2001, 1, 1, 9, 5, tzinfo=UTC), 0, "date-header-no-zone"),
    ("Monday, January 1, 2001 12:30 AM", datetime(2001, 1, 1, 0, 30, tzinfo=UTC), 0, "date-header-no-zone"),
    ("2001-01-01T09:05:00Z", datetime(2001, 1, 1, 9, 5, tzinfo=UTC), 0, "date-header-lenient"),
    ("Mon, 1 Jan 01 09:05:00 +0100", datetime(2001, 1, 1, 8, 5, tzinfo=UTC), 60, None),  # two-digit year
    ("Mon, 1 Jan 99 09:05:00 +0100", datetime(1999, 1, 1, 8, 5, tzinfo=UTC), 60, None),
    ("Mon, 1 Jan 2001 09:05:00 +2500", datetime(2001, 1, 1, 9, 5, tzinfo=UTC), 0, "date-header-no-zone"),
])
def test_date_forms(tmp_path, date, utc, offset_min, source):
    (r,) = _read(tmp_path, "d.eml", _msg("s", "b", date=date, envelope=None))
    assert r.sent_at == utc
    assert r.sent_at.utcoffset().total_seconds() / 60 == offset_min
    assert r.attrs.get("date_source") == source
    assert not any("'AM'" in n or "'PM'" in n for n in r.notes)  # AM/PM is not a time zone


def test_a_date_offset_no_zone_has_does_not_cost_the_file(tmp_path):
    items = _read(tmp_path, "z.mbox", _msg("Bad", "x", date="Mon, 1 Jan 2001 09:05:00 +2500")
                  + _msg("Good", "y", date="Tue, 2 Jan 2001 10:00:00 +0000"))
    assert [(r.subject, r.sent_at) for r in items] == [("Bad", datetime(2001, 1, 1, 9, 5, tzinfo=UTC)),
                                                       ("Good", datetime(2001, 1, 2, 10, 0, tzinfo=UTC))]


def test_a_broken_clock_is_flagged_and_the_envelope_used_when_there_is_one(tmp_path):
    future = "Wed, 01 Jan 2098 10:00:00 +0000"
    env = _read(tmp_path, "f.mbox", _msg("Env", "x", date=future))
    alone = _read(tmp_path, "f.eml", _msg("Alone", "x", date=future, envelope=None))
    assert env[0].sent_at == datetime(2001, 1, 1, 8, 5, tzinfo=UTC) and env[0].attrs["date_source"] == "envelope"
    assert alone[0].sent_at == datetime(2098, 1, 1, 10, 0, tzinfo=UTC)  # nothing better known: kept, flagged
    for r in (env[0], alone[0]):
        assert r.attrs["date_suspect"] == "future" and r.attrs["date_header"] == future
        assert any("in the future" in n for n in r.notes)
    (epoch,) = _read(tmp_path, "e.mbox", _msg("Epoch", "x", date="Thu, 01 Jan 1970 00:00:00 +0000"))
    assert epoch.sent_at == datetime(2001, 1, 1, 8, 5, tzinfo=UTC) and epoch.attrs["date_source"] == "envelope"
    assert any("1970 epoch" in n for n in epoch.notes)
    (none,) = _read(tmp_path, "n.mbox", _msg("NoDate", "x").replace("Date: Mon, 01 Jan 2001 09:05:00 +0100\n", ""))
    assert none.sent_at == datetime(2001, 1, 1, 8, 5, tzinfo=UTC) and none.attrs["date_source"] == "envelope"


def _mime(subject: str, mime: str) -> str:
    """A message (no envelope line) whose MIME headers and body are ``mime``."""
    return _msg(subject, "", envelope=None).rstrip("\n") + "\nMIME-Version: 1.0\n" + mime


def test_utf8_text_under_a_one_byte_charset_label_and_cut_encoded_words(tmp_path):
    body = "Grüße aus München, schöne Zeit.".encode()
    for label in ("iso-8859-1", "windows-1252", "iso-8859-15"):
        raw = _mime("s", f"Content-Type: text/plain; charset={label}\nContent-Transfer-Encoding: 8bit\n\n").encode()
        (r,) = _read(tmp_path, "l.eml", raw + body + b"\n")
        assert r.text.strip() == "Grüße aus München, schöne Zeit.", label  # was: GrÃ¼ÃŸe aus MÃ¼nchen
    raw = _mime("s", "Content-Type: text/plain; charset=iso-8859-1\n\n").encode() + "Café crème".encode("latin-1")
    assert _read(tmp_path, "k.eml", raw)[0].text.strip() == "Café crème"  # real Latin-1 stays Latin-1
    (r,) = _read(tmp_path, "w.eml", _msg("=?utf-8?q?Gr=C3=BC=C3=9Fe?=", "x", envelope=None,
                                          sender="=?UTF-8?B?SsO8cmdlbiBNw7xsbGVy <jm@example.de>"))
    assert (r.sender.name, r.sender.address, r.subject) == ("Jürgen Müller", "jm@example.de", "Grüße")


def test_a_placeholder_text_part_gives_way_to_the_html_that_holds_the_message(tmp_path):
    alt = ('Content-Type: multipart/alternative; boundary="b1"\n\n--b1\nContent-Type: text/plain; charset=utf-8\n\n'
           "This email requires an HTML viewer.\n\n--b1\nContent-Type: text/html; charset=utf-8\n\n"
           "<div>Hi Sam,</div><div>The Juniper Cafe opens at 8&nbsp;am &amp; closes at 5.<br>Best,<br>Ann</div>\n"
           "--b1--\n")
    (r,) = _read(tmp_path, "a.eml", _mime("Cafe", alt))
    assert r.text.split("\n") == ["Hi Sam,", "", "The Juniper Cafe opens at 8 am & closes at 5.", "Best,", "Ann"]
    assert any("HTML part read instead" in n for n in r.notes)
    same = alt.replace("This email requires an HTML viewer.", "Hi Sam, the Juniper Cafe opens at 8 am.")
    (r,) = _read(tmp_path, "b.eml", _mime("Cafe", same))
    assert r.text.strip() == "Hi Sam, the Juniper Cafe opens at 8 am."  # a real plain rendition is kept


def test_messages_forwarded_two_deep_are_each_their_own_senders(tmp_path):
    carol = ("From: Carol Deep <carol@example.net>\nSubject: Original plan\nDate: Sat, 30 Dec 2000 10:00:00 +0000\n"
             "Message-ID: <deep@x>\n\nThe Lantern Inn is booked for the 5th.\n")
    bob = ("From: Bob Mid <bob@example.net>\nSubject: Fwd: Original plan\nDate: Sun, 31 Dec 2000 10:00:00 +0000\n"
           'Message-ID: <mid@x>\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="in1"\n\n'
           "--in1\nContent-Type: text/plain\n\nBob's note: see below.\n--in1\nContent-Type: message/rfc822\n\n"
           + carol + "--in1--\n")
    outer = ('Content-Type: multipart/mixed; boundary="out1"\n\n--out1\nContent-Type: text/plain\n\n'
             "Ann's words: forwarding Bob's forward.\n--out1\nContent-Type: message/rfc822\n\n" + bob + "--out1--\n")
    ann, mid, deep = _read(tmp_path, "n.eml", _mime("Fwd: Fwd: Original plan", outer))
    assert (ann.sender.name, ann.text.strip()) == ("Ann Lee", "Ann's words: forwarding Bob's forward.")
    assert (mid.sender.name, mid.text.strip(), mid.attrs["forwarded_in"]) == ("Bob Mid", "Bob's note: see below.",
                                                                              ann.external_id)
    assert (deep.sender.name, deep.text.strip(), deep.attrs["forwarded_in"]) == (
        "Carol Deep", "The Lantern Inn is booked for the 5th.", "<mid@x>")  # was: not read at all
    assert deep.sent_at == datetime(2000, 12, 30, 10, 0, tzinfo=UTC) and ann.thread == mid.thread == deep.thread


def test_an_html_part_without_a_charset_label_is_read_in_its_meta_charset(tmp_path):
    page = ('<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1251"></head>'
            "<body><p>Привет, встретимся у метро.</p></body></html>").encode("cp1251")
    raw = _mime("s", "Content-Type: text/html\nContent-Transfer-Encoding: 8bit\n\n").encode() + page + b"\n"
    assert _read(tmp_path, "m.eml", raw)[0].text == "Привет, встретимся у метро."  # was: Ïðèâåò…

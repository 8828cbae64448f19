"""Mail ingestors against the real corpus files (right values from ../shared/corpus/README.md) and small made-up cases."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

import ingestors.mbox as mbox_module
from core.errors import InputError
from ingestors.base import Party, Record, RecordError
from ingestors.mbox import EmlIngestor, MboxIngestor, decode_bytes, decode_header_value, html_to_text

UTC = timezone.utc


def records(items):
    assert all(isinstance(i, Record) for i in items), [i for i in items if not isinstance(i, Record)]
    return items


# ----------------------------------------------------------------------------- corpus

@pytest.mark.corpus
def test_mailbox_mbox_has_45_messages_all_dated(corpus):
    items = records(list(MboxIngestor().read(corpus / "mbox/MailBox_mbox.src.mbox")))
    # 45 messages, and the messages their replies quote (stop 26: under Outlook's block and mutt's attribution;
    # stop 27: interleaved, a list's answers between the quoted lines): each quote its quoted writer's record
    messages = [r for r in items if "quoted_in" not in r.attrs]
    quotes = [r for r in items if "quoted_in" in r.attrs]
    assert len(messages) == 45 and len(quotes) == 24
    assert all(r.kind == "email" and r.sent_at is not None and r.sent_at.tzinfo is not None for r in messages)
    by_id = {r.external_id: r for r in items}
    for q in quotes:  # each is quoted in one of the messages (or in a quote of one), by a writer it names
        assert q.attrs["quoted_in"] in by_id and q.sender is not None and (q.sender.name or q.sender.address)
    first = items[0]
    assert first.subject == "Re: File Conversion From HTML to PS and TIFF"
    assert first.sender == Party("William Park", "parkw@better.net", "email", "from")
    assert first.sent_at == datetime(2000, 2, 9, 20, 44, 5, tzinfo=UTC)
    assert first.external_id == first.attrs["message_id"]
    assert first.source_path.endswith("MailBox_mbox.src.mbox")


# Expected strings worked out from the raw bytes (xxd): the ISO-8859-1 subject is
# e1 e9 ed f3 fa fd fe e6 f6 f0 c1 c9 cd d3 da dd de c6 d6 d0, the UTF-8 one c3a1 c3a9 ... c390:
# both are the same twenty letters.  The emoji subject is RFC 2047 Q: =E2=9C=88 is U+2708.
MAILPILE_SUBJECTS = [
    "Moderation request [kde-isl] <bang>",
    "✈ Northern Lights Extravaganza: Iceland from DKK599/£69/€96",
    "Testing encryption, raw ISO-8859-1: áéíóúýþæöðÁÉÍÓÚÝÞÆÖÐ",
    "Testing signatures, raw UTF-8: áéíóúýþæöðÁÉÍÓÚÝÞÆÖÐ",
    "Email That Is Encrypted",
    "Email That Is Signed",
    "Inline encryption test",
    "PGP Testing Email",
    "RE: [PATCH v3 00/11] usbip: features to USB over WebSocket",
]


@pytest.mark.corpus
def test_mailpile_subjects_are_decoded_text(corpus):
    items = records(list(MboxIngestor().read(corpus / "mbox/Mailpile_tests.mbx")))
    assert len(items) == 9
    subjects = [r.subject for r in items]
    for s in subjects:
        assert type(s) is str and "=?" not in s and "Ã" not in s and "\ufffd" not in s
    assert subjects == MAILPILE_SUBJECTS
    assert "\u2708" in subjects[1]
    # ISO-8859-1 body, Icelandic
    assert "skilaboð" in items[0].text
    # the From_ line says 2014, the Date header 2015: the header wins
    assert items[8].sent_at == datetime(2015, 4, 28, 9, 35, 25, tzinfo=UTC)
    assert items[1].sender.name == "Bjarni Rúnar Einarsson"


@pytest.mark.corpus
def test_date_whenever_from_whomever(corpus):
    items = records(list(EmlIngestor().read(corpus / "mbox/eml_date_Whenever_rfc001.eml")))
    assert len(items) == 1
    r = items[0]
    assert r.sent_at is None
    assert any("Date" in n and "Whenever" in n for n in r.notes)
    assert r.sender == Party(name="Whomever", address=None, address_kind="email", role="from")
    assert r.subject == "whatever"
    assert r.external_id == "<id1@host.com>" == r.attrs["message_id"]


@pytest.mark.corpus
def test_gb2312_split_encoded_word_and_html_only_body(corpus):
    items = records(list(EmlIngestor().read(corpus / "mbox/eml_gb2312_split_encoded_word_htmlonly_spamscope9.eml")))
    assert len(items) == 1
    r = items[0]
    # The two base64 words concatenated and read as GB18030 (the superset every mail reader uses
    # for "gb2312"; the bytes 8c c2 are a GBK-only character, which is why strict gb2312 fails).
    # Real spam; the text is what the sender wrote.
    assert r.subject == "我把镜头拉近些，你们看看这个是什么屄，这种场合自然少不了内射"
    assert r.sent_at == datetime(2016, 12, 26, 5, 33, 31, tzinfo=UTC)
    assert "我把镜头拉近些" in r.text and "http://go2buy.com.cn/" in r.text
    assert "<" not in r.text and "DOCTYPE" not in r.text
    assert r.sender == Party("xwfcpggy", "zyb@sgis.com.cn", "email", "from")
    assert len(r.recipients) == 21 and r.recipients[0].address == "webmaster@khaleejtimes.com"


@pytest.mark.corpus
def test_eucjp_and_utf16_parts(corpus):
    items = records(list(EmlIngestor().read(corpus / "mbox/eml_eucjp_utf16_dovecot005.eml")))
    assert len(items) == 1
    r = items[0]
    assert r.text.count("Test message") == 3  # utf-16le (binary), utf-16be and utf-16le (base64)
    assert "『世界人権宣言』" in r.text  # euc-jp, base64 odjApLOmv824osDruMCh2Q==
    assert "\x00" not in r.text
    assert r.sent_at is None and r.external_id == "#1"


@pytest.mark.corpus
def test_stalwart_mboxrd_unquoting(corpus):
    items = records(list(MboxIngestor().read(corpus / "mbox/stalwart_sample_mboxrd.mbox")))
    assert len(items) == 4
    assert [r.external_id for r in items] == ["#1", "#2", "#3", "#4"]
    assert items[2].text.splitlines() == ["Message 3", "From hello", ">From world", ">>From test"]
    assert items[3].text.splitlines() == ["Message 4", "> From", ">F"]
    assert all(r.sender is None for r in items)
    # no Date header: the time comes from the envelope line, and says so
    assert [r.sent_at for r in items] == [datetime(1996, 1, 3, 1, 5, 34, tzinfo=UTC),
                                          datetime(2002, 7, 23, 19, 39, 23, tzinfo=UTC),
                                          datetime(2002, 8, 6, 13, 34, 34, tzinfo=UTC),
                                          datetime(2018, 1, 15, 15, 30, tzinfo=UTC)]
    assert all(r.attrs["date_source"] == "envelope" for r in items)
    assert items[3].attrs["mbox_from"] == "From other@domain.com Mon Jan 15  15:30:00  2018"


# ----------------------------------------------------------------------------- made-up cases

def _mbox(*messages: bytes) -> bytes:
    return b"".join(b"From sender@example.com Mon Jan  1 00:00:00 2024\n" + m.rstrip(b"\n") + b"\n\n"
                    for m in messages)


GOOD1 = b"From: A <a@example.com>\nSubject: first\nDate: Tue, 02 Jan 2024 10:00:00 +0100\nMessage-ID: <m1@x>\n\nhello\n"
BAD = (b"From: \xff\xfe\x00\x81 <??>\nSubject: \xc3\x28 broken \x00\nDate: 99 Foo 99999 99:99\n"
       b"Content-Type: text/plain; charset=no-such-charset\nContent-Transfer-Encoding: base64\n\n"
       b"!!!not base64\xff\xfe\n")
GOOD3 = (b"From: C <c@example.com>\nSubject: Re: first\nIn-Reply-To: <m1@x>\nReferences: <m1@x>\n"
         b"Message-ID: <m3@x>\nDate: Tue, 02 Jan 2024 11:00:00 -0000\n\nreply\n")


def test_bad_message_does_not_drop_its_neighbours(tmp_path):
    path = tmp_path / "mixed.mbox"
    path.write_bytes(_mbox(GOOD1, BAD, GOOD3))
    items = list(MboxIngestor().read(path))
    assert len(items) == 3
    assert items[0].subject == "first" and items[2].subject == "Re: first"
    middle = items[1]
    assert isinstance(middle, (Record, RecordError))
    if isinstance(middle, Record):  # an unreadable Date: the envelope line's time, labelled
        assert middle.sent_at == datetime(2024, 1, 1, tzinfo=UTC) and middle.external_id == "#2"
        assert middle.attrs["date_source"] == "envelope"
        assert "\x00" not in middle.subject
    # threading: the reply's References root is the first message's id, which is the first's own key
    assert items[0].thread == items[2].thread == "<m1@x>"
    assert items[0].sent_at == datetime(2024, 1, 2, 9, 0, tzinfo=UTC)
    assert items[2].sent_at == datetime(2024, 1, 2, 11, 0, tzinfo=UTC)  # -0000: UTC


def test_parser_failure_becomes_record_error_and_reading_goes_on(tmp_path, monkeypatch):
    path = tmp_path / "three.mbox"
    path.write_bytes(_mbox(GOOD1, GOOD1.replace(b"first", b"second"), GOOD3))
    real = mbox_module.message_records

    def flaky(raw, p, index, mbox_from=None):
        if index == 2:
            raise ValueError("simulated parser failure")
        return real(raw, p, index, mbox_from)

    monkeypatch.setattr(mbox_module, "message_records", flaky)
    items = list(MboxIngestor().read(path))
    assert [type(i).__name__ for i in items] == ["Record", "RecordError", "Record"]
    assert items[1] == RecordError(str(path), "message 2", "ValueError: simulated parser failure")


def test_not_mail_raises_input_error(tmp_path):
    text = tmp_path / "notes.eml"
    text.write_text("just some notes\nnot a header in sight\n")
    with pytest.raises(InputError, match="notes.eml"):
        list(EmlIngestor().read(text))
    png = tmp_path / "picture.mbox"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    with pytest.raises(InputError, match="picture.mbox"):
        list(MboxIngestor().read(png))
    with pytest.raises(InputError):
        list(MboxIngestor().read(tmp_path / "missing.mbox"))


def test_empty_mbox_says_no_messages(tmp_path):
    path = tmp_path / "empty.mbox"
    path.write_bytes(b"")
    with pytest.raises(InputError, match="no messages in this file"):
        list(MboxIngestor().read(path))
    path.write_bytes(b"\n\n  \n")
    with pytest.raises(InputError, match="no messages in this file"):
        list(MboxIngestor().read(path))


def test_crlf_html_only_and_trim(tmp_path):
    html = "<html><head><style>p{}</style></head><body><p>Caf&eacute; at 5</p><p>see&nbsp;you</p></body></html>"
    path = tmp_path / "a.eml"
    path.write_bytes((f"From: B <b@example.com>\r\nTo: x@example.com, \"Doe, John\" <j@example.com>\r\n"
                      f"Subject: =?utf-8?q?Doe=2C_hi?= there\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{html}\r\n"
                      ).encode())
    r = list(EmlIngestor().read(path))[0]
    assert r.text == "Café at 5\n\nsee you"  # one paragraph a block, entities decoded, no style
    assert r.subject == "Doe, hi there"
    assert [p.address for p in r.recipients] == ["x@example.com", "j@example.com"]
    assert r.recipients[1].name == "Doe, John"
    assert r.thread == "doe, hi there"  # no Message-ID, no references: the normalised subject

    big = tmp_path / "big.eml"
    big.write_bytes(b"Subject: big\r\nDate: Mon, 1 Jan 2024 00:00:00 +0000\r\n\r\n" + b"line\r\n" * 30000)
    r = list(EmlIngestor().read(big))[0]
    assert len(r.text) == mbox_module.MAX_TEXT and "\r" not in r.text
    assert any("trimmed" in n for n in r.notes)


def test_decoding_helpers():
    assert decode_bytes("Grüße".encode("latin-1"), "iso-8859-1") == "Grüße"
    assert decode_bytes("Grüße".encode(), None) == "Grüße"
    assert decode_bytes(b"\x93quoted\x94", "iso-8859-1") == "\u201cquoted\u201d"  # Windows-1252 under a Latin-1 label
    assert decode_bytes(b"caf\xe9", "x-made-up") == "café"
    assert decode_bytes(b"ok \xff", "utf-8") == "ok \ufffd"  # declared charset, bad byte replaced
    raw_latin1 = b"Caf\xe9".decode("ascii", "surrogateescape")  # how the parser carries 8-bit header bytes
    assert decode_header_value(raw_latin1) == "Café"
    assert decode_header_value("=?utf-8?b?w6k=?=\n =?utf-8?b?w6k=?=") == "éé"
    assert decode_header_value("=?gb2312?B?1tY=?=") == "种"
    assert decode_header_value("=?utf-8?q?broken") == "broken"  # an encoded-word cut before its "?=" is decoded
    assert decode_header_value("=?utf-8?q?broken_=ZZ?=") == "broken =ZZ"
    assert decode_header_value("=?utf-8?q?caf=C3=A9?= in C:\\users") == "café in C:\\users"
    assert html_to_text("<div>a<br>b</div><script>x()</script>") == "a\nb"


# ----------------------------------------------------------------------------- regressions (issue 12)
# Right values from ../shared/corpus/regressions/README.md, then other inputs of the same kinds.

REG = "regressions"


@pytest.mark.corpus
def test_unquoted_from_lines_after_blank_lines_stay_in_their_message(corpus):
    items = records(list(MboxIngestor().read(corpus / REG / "mbox_unquoted_from_after_blank.mbox")))
    assert [r.subject for r in items] == ["Trip notes", "Re: Trip notes"]
    first = items[0]
    assert "From the archive I found the old photos of Lisbon." in first.text.splitlines()
    assert "From what I remember, we stayed at the Hotel Azul." in first.text.splitlines()
    assert first.text.rstrip().endswith("Talk soon, Alice")
    assert items[1].text.strip() == "Thanks Alice!"


def test_body_lines_shaped_like_envelopes_split_only_when_headers_follow(tmp_path):
    body = (b"From: A <a@example.com>\nSubject: one\nDate: Mon, 01 Jan 2024 10:00:00 +0000\n\n"
            b"Quoting the log:\n\nFrom daemon@example.com Mon Jan  1 09:00:00 2024\nthe relay said no\n\n"
            b"From here on it is fine.\n")
    path = tmp_path / "tricky.mbox"
    path.write_bytes(b"From a@example.com Mon Jan  1 10:00:00 2024\n" + body
                     + b"\nFrom b@example.com Tue Jan  2 10:00:00 2024\nFrom: B <b@example.com>\nSubject: two\n\nok\n")
    items = records(list(MboxIngestor().read(path)))
    assert [r.subject for r in items] == ["one", "two"]
    lines = items[0].text.splitlines()
    assert "From daemon@example.com Mon Jan  1 09:00:00 2024" in lines and "From here on it is fine." in lines


@pytest.mark.corpus
def test_first_message_without_an_envelope_line(corpus):
    items = records(list(MboxIngestor().read(corpus / REG / "mbox_no_leading_from_line.mbox")))
    assert [r.subject for r in items] == ["Garden plans", "Re: Garden plans"]
    assert items[0].text.strip() == "Let's plant the tomatoes next to the shed this year."
    assert items[0].sent_at == datetime(2024, 3, 2, 9, 0, tzinfo=UTC)
    assert "mbox_from" not in items[0].attrs


@pytest.mark.corpus
def test_nonstandard_date_falls_back_to_the_envelope_time(corpus):
    items = records(list(MboxIngestor().read(corpus / REG / "mbox_nonstandard_date.mbox")))
    assert len(items) == 2
    assert items[0].sent_at == datetime(1999, 1, 31, 12, 0, 0, tzinfo=UTC)
    assert items[0].attrs["date_source"] == "envelope"
    assert any("envelope" in n for n in items[0].notes)
    assert items[1].sent_at == datetime(1999, 2, 1, 11, 0, 0, tzinfo=UTC)
    assert "date_source" not in items[1].attrs


@pytest.mark.parametrize("date, envelope, when, source", [
    ("2024-03-01 10:00", None, datetime(2024, 3, 1, 10, 0, tzinfo=UTC), "date-header-lenient"),
    ("2024-03-01T10:00:00+02:00", None, datetime(2024, 3, 1, 8, 0, tzinfo=UTC), "date-header-lenient"),
    ("31.01.1999", "From x@y Sun Jan 31 07:15:00 1999", datetime(1999, 1, 31, 7, 15, tzinfo=UTC), "envelope"),
    ("1999/01/31", "From x@y Mon Feb  1 07:15:00 1999", datetime(1999, 1, 31, 12, 0, tzinfo=UTC), "date-header-day"),
    ("sometime soon", "From x@y Mon Feb  1 07:15:00 1999", datetime(1999, 2, 1, 7, 15, tzinfo=UTC), "envelope"),
    (None, "From x@y Mon Feb  1 07:15:00 1999", datetime(1999, 2, 1, 7, 15, tzinfo=UTC), "envelope"),
    ("sometime soon", None, None, None),
])
def test_dates_that_are_not_rfc5322(tmp_path, date, envelope, when, source):
    head = f"From: K <k@example.org>\nSubject: s\n" + (f"Date: {date}\n" if date else "")
    raw = (envelope + "\n" if envelope else "") + head + "\nbody\n"
    path = tmp_path / ("m.mbox" if envelope else "m.eml")
    path.write_text(raw)
    reader = MboxIngestor() if envelope else EmlIngestor()
    r = records(list(reader.read(path)))[0]
    assert r.sent_at == when
    assert r.attrs.get("date_source") == source
    assert r.notes  # always said


@pytest.mark.corpus
def test_forwarded_message_is_not_the_forwarders_words(corpus):
    items = records(list(EmlIngestor().read(corpus / REG / "eml_html_reply_with_forward.eml")))
    assert len(items) == 2
    reply, forwarded = items
    assert reply.sender.name == "Dana Reyes"
    assert reply.text == "Sam, I booked the Harbour Hall for the 14th. The forwarded note below is outdated."
    assert "Garden Room" not in reply.text
    assert forwarded.sender == Party("Venue Desk", "desk@venue.example", "email", "from")
    assert forwarded.text.strip() == "The Garden Room is available on the 21st only."
    assert forwarded.external_id == "<orig1@venue.example>"
    assert forwarded.sent_at == datetime(2023, 9, 4, 14, 0, tzinfo=UTC)
    assert forwarded.thread == reply.thread and forwarded.attrs["forwarded_in"] == reply.external_id
    assert reply.attrs["forwarded"] == [{"external_id": "<orig1@venue.example>", "subject": "venue options",
                                         "from": "Venue Desk"}]


def test_forward_as_attachment_in_an_mbox_and_plain_reply(tmp_path):
    raw = (b"From a@example.com Mon Jan  1 10:00:00 2024\n"
           b"From: A <a@example.com>\nSubject: Fwd: x\nMIME-Version: 1.0\n"
           b"Content-Type: multipart/mixed; boundary=b1\n\n--b1\nContent-Type: text/plain\n\nSee below.\n"
           b"--b1\nContent-Type: message/rfc822\nContent-Disposition: attachment; filename=x.eml\n\n"
           b"From: Z <z@example.com>\nSubject: x\n\nZ's own words.\n--b1--\n")
    path = tmp_path / "f.mbox"
    path.write_bytes(raw)
    items = records(list(MboxIngestor().read(path)))
    assert [(r.sender.name, r.text.strip()) for r in items] == [("A", "See below."), ("Z", "Z's own words.")]
    assert items[1].external_id == "#1 forwarded 1"


def test_boundary_mismatch_and_empty_text_part_fall_back_to_text(tmp_path):
    mismatch = (b"From: A <a@example.com>\nSubject: broken\nMIME-Version: 1.0\n"
                b"Content-Type: multipart/alternative; boundary=\"DECLARED\"\n\n"
                b"--ACTUAL\nContent-Type: text/plain; charset=utf-8\n\nMeet at the pier at noon.\n"
                b"--ACTUAL\nContent-Type: text/html; charset=utf-8\n\n<p>Meet at the <b>pier</b> at noon.</p>\n"
                b"--ACTUAL--\n")
    empty_plain = (b"From: A <a@example.com>\nSubject: html\nMIME-Version: 1.0\n"
                   b"Content-Type: multipart/alternative; boundary=x\n\n"
                   b"--x\nContent-Type: text/plain; charset=utf-8\n\n\n"
                   b"--x\nContent-Type: text/html; charset=utf-8\n\n<div>The cake is in the <i>fridge</i>.</div>\n--x--\n")
    no_boundary = (b"From: A <a@example.com>\nSubject: none\nContent-Type: multipart/mixed\n\n"
                   b"Just words, no parts at all.\n")
    texts = []
    for n, raw in enumerate((mismatch, empty_plain, no_boundary)):
        path = tmp_path / f"{n}.eml"
        path.write_bytes(raw)
        r = records(list(EmlIngestor().read(path)))[0]
        texts.append(r.text.strip())
        assert "no readable text body" not in r.notes
    assert texts == ["Meet at the pier at noon.", "The cake is in the fridge .".replace(" .", "."),
                     "Just words, no parts at all."]


# ----------------------------------------------------------------------------- variants of the regression kinds

def _eml(tmp_path, raw: bytes, name: str = "m.eml") -> list[Record]:
    path = tmp_path / name
    path.write_bytes(raw)
    return records(list(EmlIngestor().read(path)))


def test_latin1_body_declared_utf8_is_read_as_latin1(tmp_path):
    body = "Grüße aus Köln, the café was très bien.\n".encode("latin-1")
    raw = (b"From: D <d@example.org>\nSubject: s\nDate: Tue, 05 Mar 2024 09:00:00 +0000\nMIME-Version: 1.0\n"
           b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n" + body)
    (r,) = _eml(tmp_path, raw)
    assert r.text == "Grüße aus Köln, the café was très bien.\n"
    # UTF-8 text with one Latin-1 byte keeps both; a lone stray byte next to no letter is still replaced
    assert decode_bytes("naïve “x” ".encode() + b"caf\xe9", "utf-8") == "naïve “x” café"
    assert decode_bytes(b"ok \xff", "utf-8") == "ok \ufffd"
    assert decode_bytes(b"\x93quoted\x94", None) == "\u201cquoted\u201d"


@pytest.mark.parametrize("date, utc, source", [
    ("Thu, 04 Jul 2024 10:00:00 CEST", datetime(2024, 7, 4, 8, 0, tzinfo=UTC), None),
    ("Mon, 04 Mar 2024 10:00:00 CET", datetime(2024, 3, 4, 9, 0, tzinfo=UTC), None),
    ("Thu, 04 Jul 2024 10:00:00 BST", datetime(2024, 7, 4, 9, 0, tzinfo=UTC), None),
    ("Thu, 04 Jul 2024 10:00:00 JST", datetime(2024, 7, 4, 1, 0, tzinfo=UTC), None),
    ("Thu, 04 Jul 2024 10:00:00 AEST", datetime(2024, 7, 4, 0, 0, tzinfo=UTC), None),
    ("Mon, 4 Mar 2024 10:00:00 EST", datetime(2024, 3, 4, 15, 0, tzinfo=UTC), None),
    ("Monday, 04-Mar-24 10:00:00 CET", datetime(2024, 3, 4, 9, 0, tzinfo=UTC), None),  # RFC 850
    ("Mon, 4 Mar 24 10:00:00 +0100", datetime(2024, 3, 4, 9, 0, tzinfo=UTC), None),  # two-digit year
    ("Mon, 4 Mar 2024 10:00:00 GMT+1", datetime(2024, 3, 4, 9, 0, tzinfo=UTC), None),
    ("Mon, 4 Mar 2024 10:00:00 UTC-05:30", datetime(2024, 3, 4, 15, 30, tzinfo=UTC), None),
    ("Mon, 4 Mar 2024 10:00:00 -0000", datetime(2024, 3, 4, 10, 0, tzinfo=UTC), None),
    ("Mon, 4 Mar 2024 10:00:00", datetime(2024, 3, 4, 10, 0, tzinfo=UTC), "date-header-no-zone"),
    ("Mon, 4 Mar 2024 10:00:00 IST", datetime(2024, 3, 4, 10, 0, tzinfo=UTC), "date-header-no-zone"),
    ("Thu Jul  4 10:00:00 2024", datetime(2024, 7, 4, 10, 0, tzinfo=UTC), "date-header-no-zone"),
])
def test_date_zones_by_name_and_dates_without_a_zone(tmp_path, date, utc, source):
    (r,) = _eml(tmp_path, f"From: K <k@example.org>\nSubject: s\nDate: {date}\n\nbody\n".encode())
    assert r.sent_at == utc  # the same instant, whatever offset it is kept at
    assert r.attrs.get("date_source") == source
    if source:
        assert any("read as UTC" in n for n in r.notes)


def test_html_tables_keep_cells_apart_and_blockquotes_are_quoted():
    html = ("<p>Plan:<br/>see table</p><table><tr><td>Mon</td><td>Rehearsal</td></tr><tr><th>Tue</th><td>Show</td>"
            "</tr></table><div>On Mon, Bob wrote:<blockquote>I live in Berlin now.<br>Bye"
            "<blockquote>older</blockquote></blockquote></div><p>Mine again</p>")
    assert html_to_text(html).splitlines() == [
        "Plan:", "see table", "", "Mon Rehearsal", "", "Tue Show", "", "On Mon, Bob wrote:",
        "> I live in Berlin now.", "> Bye", "> > older", "", "Mine again"]


@pytest.mark.parametrize("separator, headers, when", [
    ("-------- Forwarded Message --------",  # Thunderbird: tab-aligned, zone written
     "Subject: \tBooking\nDate: \tMon, 4 Mar 2024 17:00:00 +0100\nFrom: \tVenue Desk <desk@hall.example>\n"
     "To: \tDana <dana@example.org>", datetime(2024, 3, 4, 16, 0, tzinfo=UTC)),
    ("Begin forwarded message:",  # Apple Mail: "GMT+1" is one hour east
     "\nFrom: Venue Desk <desk@hall.example>\nSubject: Booking\nDate: March 4, 2024 at 5:00:00 PM GMT+1\n"
     "To: Dana <dana@example.org>", datetime(2024, 3, 4, 16, 0, tzinfo=UTC)),
    ("---------- Forwarded message ---------",  # Gmail: no zone, the forwarder's (-05:00)
     "From: Venue Desk <desk@hall.example>\nDate: Mon, Mar 4, 2024 at 5:00 PM\nSubject: Booking\n"
     "To: Dana <dana@example.org>", datetime(2024, 3, 4, 22, 0, tzinfo=UTC)),
])
def test_inline_forward_is_its_own_record(tmp_path, separator, headers, when):
    raw = (f"From: Dana Reyes <dana@example.org>\nSubject: Fwd: Booking\nDate: Tue, 05 Mar 2024 09:00:00 -0500\n"
           f"Message-ID: <o@x>\n\nLook at this.\n\n{separator}\n{headers}\n\nThe Willow Room is yours.\n").encode()
    outer, inner = _eml(tmp_path, raw)
    assert (outer.sender.name, outer.text) == ("Dana Reyes", "Look at this.")
    assert inner.sender == Party("Venue Desk", "desk@hall.example", "email", "from")
    assert (inner.subject, inner.text, inner.sent_at) == ("Booking", "The Willow Room is yours.", when)
    assert inner.external_id == "<o@x> forwarded 1" and inner.attrs["forwarded_in"] == "<o@x>"
    assert outer.attrs["forwarded"] == [{"external_id": "<o@x> forwarded 1", "subject": "Booking",
                                         "from": "Venue Desk"}]


def test_attached_files_are_named_and_a_mail_of_files_only_is_never_blank(tmp_path):
    """A mail whose only part is a file (the corpus has two: a Perl script sent as application/octet-stream
    under a MIME preamble) had an empty text: it is now "[attached: NAME]"; a mail with text keeps its text and
    lists its files in ``attrs["attachments"]``."""
    from email.message import EmailMessage

    only = EmailMessage()
    only["From"], only["To"], only["Subject"] = "Cristy <cristy@example.com>", "me@example.net", ""
    only["Date"], only["Message-ID"] = "Wed, 14 Jun 2000 12:03:33 -0400", "<only@example.com>"
    only.add_attachment(b"use Image::Magick;\n", maintype="application", subtype="octet-stream",
                        filename="gravity.pl", disposition="inline")
    both = EmailMessage()
    both["From"], both["To"], both["Subject"] = "Dana <dana@example.com>", "me@example.net", "Report"
    both["Date"], both["Message-ID"] = "Thu, 15 Jun 2000 09:00:00 +0000", "<both@example.com>"
    both.set_content("The report is attached.\n")
    both.add_attachment(b"%PDF-1.4\n", maintype="application", subtype="pdf", filename="report 2000.pdf")
    path = tmp_path / "files.mbox"
    path.write_bytes(b"".join(b"From x@example.com Thu Jun 15 09:00:00 2000\n" + m.as_bytes() + b"\n"
                              for m in (only, both)))
    a, b = records(list(MboxIngestor().read(path)))
    assert a.text == "[attached: gravity.pl]" and a.attrs["attachments"] == ["gravity.pl"]
    assert any("attached files are named" in n for n in a.notes)
    assert b.text.strip() == "The report is attached." and b.attrs["attachments"] == ["report 2000.pdf"]


def test_a_date_header_that_reads_either_way_is_settled_by_the_envelope_or_its_form_and_noted(tmp_path):
    def mail(date, n):
        return (f"From: Ana <ana@example.com>\nTo: me@example.net\nSubject: s{n}\nDate: {date}\n"
                f"Message-ID: <amb{n}@example.com>\n\nhello {n}\n")
    box = tmp_path / "ambiguous.mbox"
    box.write_text("From ana@example.com Thu Feb  1 10:05:00 2024\n" + mail("01/02/2024 10:00", 1) + "\n")
    got = records(list(MboxIngestor().read(box)))  # the envelope line says 1 February
    for n, date in ((2, "01/02/2024 10:00"), (3, "01.02.2024 10:00"), (4, "13/02/2024 10:00")):
        (tmp_path / f"m{n}.eml").write_text(mail(date, n))  # no envelope line
        got += records(list(EmlIngestor().read(tmp_path / f"m{n}.eml")))
    assert [r.sent_at for r in got] == [datetime(2024, 2, 1, 10, 0, tzinfo=UTC), datetime(2024, 1, 2, 10, 0, tzinfo=UTC),
                                         datetime(2024, 2, 1, 10, 0, tzinfo=UTC), datetime(2024, 2, 13, 10, 0, tzinfo=UTC)]
    assert [sum("could be either way" in n for n in r.notes) for r in got] == [1, 1, 1, 0]
    assert "day-first" in " ".join(got[0].notes) and "month-first" in " ".join(got[1].notes)

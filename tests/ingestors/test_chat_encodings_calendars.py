"""Chat exports as phones and computers really write them, second pass: other encodings (UTF-16, bytes
re-saved as Windows-1252, lone surrogates in Telegram's JSON), other calendars (Solar Hijri, Hijri) and zip
member names without the UTF-8 flag.  Right values worked out by hand (calendar dates from published
conversion tables: 3 Dey 1402 = 11 Jumada al-Thani 1445 (Umm al-Qura) = 24 December 2023)."""
from __future__ import annotations

import struct
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import pytest

import ingestors.telegram as telegram
from ingestors.archives import zip_members
from ingestors.base import Record, RecordError, decode_utf8_or_1252
from ingestors.registry import ingestor_for
from ingestors.telegram import TelegramIngestor
from ingestors.whatsapp import RECODED_NOTE, WhatsAppIngestor, chat_title, thread_key

UTC = timezone.utc
CHAT = "24/12/2023, 18:05 - Ana: hi ü\n25/12/2023, 09:05 - Bo: ok 😀\n"


def _wa(path: Path) -> list:
    return list(WhatsAppIngestor().read(path))


@pytest.mark.parametrize("encoded", [
    b"\xff\xfe" + CHAT.encode("utf-16-le"),   # Windows Notepad's "Unicode"
    b"\xfe\xff" + CHAT.encode("utf-16-be"),   # "Unicode big endian"
    CHAT.encode("utf-16-le"),                 # no BOM
    CHAT.replace("\n", "\r\n").encode("utf-16"),
])
def test_utf16_exports_are_read_as_text(tmp_path, encoded):
    p = tmp_path / "WhatsApp Chat with Ana.txt"
    p.write_bytes(encoded)
    assert ingestor_for(p).name == "whatsapp"
    items = _wa(p)
    assert [(r.sent_at, r.sender.name, r.text) for r in items] == [
        (datetime(2023, 12, 24, 18, 5, tzinfo=UTC), "Ana", "hi ü"),
        (datetime(2023, 12, 25, 9, 5, tzinfo=UTC), "Bo", "ok 😀")]
    assert [p.name for p in items[0].recipients] == ["Bo"]


def test_lines_re_saved_as_windows_1252_keep_every_character(tmp_path):
    p = tmp_path / "WhatsApp Chat with Jörg.txt"
    p.write_bytes("24/12/2023, 18:05 - Jörg: Grüße aus Köln\n".encode("utf-8")
                  + b"24/12/2023, 18:06 - J\xf6rg: \x93caf\xe9\x94 \x80 5\n"     # one line re-saved as Windows-1252
                  + "25/12/2023, 09:05 - Bo: danke 😀\n".encode("utf-8"))
    items = _wa(p)
    assert [(r.sender.name, r.text) for r in items] == [
        ("Jörg", "Grüße aus Köln"), ("Jörg", "\u201ccafé\u201d € 5"), ("Bo", "danke 😀")]
    assert [RECODED_NOTE in r.notes for r in items] == [False, True, False]
    assert {p.name for p in items[2].recipients} == {"Jörg"}  # one person, whatever the line's encoding


def test_decode_utf8_or_1252_keeps_valid_utf8_and_waits_for_a_cut_character():
    assert decode_utf8_or_1252("café".encode() + b" \xe9t\xe9 \x81") == ("café été \x81", 3, b"")
    assert decode_utf8_or_1252(b"ok \xf0\x9f", final=False) == ("ok ", 0, b"\xf0\x9f")
    assert decode_utf8_or_1252(b"ok \xf0\x9f", final=True) == ("ok ð\u0178", 2, b"")


@pytest.mark.parametrize("lines, calendar", [
    # Persian (Iran) Android: Solar Hijri, Persian digits, year first
    (["۱۴۰۲/۱۰/۰۳، ۱۸:۰۵ - سارا: سلام", "۱۴۰۲/۱۰/۰۴، ۰۷:۰۰ - علی: صبح بخیر"], "persian"),
    (["[۱۴۰۲/۱۰/۰۳، ۱۸:۰۵:۰۰] سارا: سلام", "[۱۴۰۲/۱۰/۰۴، ۷:۰۰:۰۰] علی: صبح بخیر"], "persian"),
    # Saudi Android: Hijri (Umm al-Qura), Arabic-Indic digits, day first, ص/م markers
    (["١١/٠٦/١٤٤٥، ٦:٠٥ م - سارا: سلام", "١٢/٠٦/١٤٤٥، ٧:٠٠ ص - علی: صبح بخیر"], "islamic-umalqura"),
])
def test_solar_hijri_and_hijri_dates_are_read_in_their_calendar(tmp_path, lines, calendar):
    p = tmp_path / "WhatsApp Chat with سارا.txt"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    items = _wa(p)
    assert [(r.sent_at, r.sender.name) for r in items] == [
        (datetime(2023, 12, 24, 18, 5, tzinfo=UTC), "سارا"), (datetime(2023, 12, 25, 7, 0, tzinfo=UTC), "علی")]
    assert {r.attrs["calendar"] for r in items} == {calendar}
    assert any("calendar, read as 2023-12-24" in n for n in items[0].notes)


def test_a_gregorian_export_has_no_calendar_note(tmp_path):
    p = tmp_path / "chat.txt"
    p.write_text(CHAT, encoding="utf-8")
    assert all("calendar" not in r.attrs and not any("calendar" in n for n in r.notes) for r in _wa(p))


def _clear_utf8_flags(data: bytes) -> bytes:
    """The zip as macOS's and Windows' zippers write it: UTF-8 names without the UTF-8 flag (bit 11)."""
    out = bytearray(data)
    for signature, at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        i = 0
        while (i := out.find(signature, i)) >= 0:
            flags = struct.unpack_from("<H", out, i + at)[0]
            struct.pack_into("<H", out, i + at, flags & ~0x800)
            i += 4
    return bytes(out)


@pytest.mark.parametrize("flagged", [True, False])
def test_zip_member_names_without_the_utf8_flag(tmp_path, flagged):
    z = tmp_path / "WhatsApp Chat - Família.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("WhatsApp Chat - Família/_chat.txt", "[24/12/2023, 18:05:00] Ana: oi\n")
        zf.writestr("WhatsApp Chat - Família/IMG-20231224-WA0001.jpg", b"\xff\xd8\xff")
    if not flagged:
        z.write_bytes(_clear_utf8_flags(z.read_bytes()))
    errors: list = []
    seen = []
    for member in zip_members(z, str(z), errors=errors):
        seen.append(member.cite)
        if member.path.name == "_chat.txt":
            assert (thread_key(member.path), chat_title(member.path)) == ("whatsapp:whatsapp chat - família", "Família")
    assert errors == []
    assert seen == [f"{z}/WhatsApp Chat - Família/_chat.txt", f"{z}/WhatsApp Chat - Família/IMG-20231224-WA0001.jpg"]


# ----------------------------------------------------------------------------- Telegram JSON

def _tg(tmp_path: Path, body: bytes) -> list:
    p = tmp_path / "result.json"
    p.write_bytes(b'{"name": "Ana", "type": "personal_chat", "id": 7, "messages": [' + body + b"]}")
    return list(TelegramIngestor().read(p))


def _m(i: int, who: bytes, text: bytes) -> bytes:
    return (b'{"id": %d, "type": "message", "date": "2023-12-24T18:0%d:00", "date_unixtime": "%d", '
            b'"from": "%s", "from_id": "user%d", "text": "%s"}' % (i, i, 1703441000 + 60 * i, who, i, text))


def test_lone_surrogate_escapes_do_not_take_the_file_down(tmp_path):
    # a low half alone made yajl raise UnicodeDecodeError: the whole file was lost
    items = _tg(tmp_path, b", ".join([_m(1, b"Ana", rb"hi \ude00 there"), _m(2, b"Bo", rb"ok \ud83d"),
                                      _m(3, b"Ana", rb"pair \ud83d\ude00 kept \\ud83d literal")]))
    assert all(isinstance(r, Record) for r in items)
    assert [(r.sender.name, r.text) for r in items] == [
        ("Ana", "hi \ufffd there"), ("Bo", "ok \ufffd"), ("Ana", "pair 😀 kept \\ud83d literal")]
    assert items[0].sent_at == datetime(2023, 12, 24, 18, 4, 20, tzinfo=UTC)
    assert all("file repaired: 2 lone surrogates fixed in result.json" in r.notes for r in items)


@pytest.mark.parametrize("chunk", [1, 5, 9, 13, 1 << 16])
def test_a_surrogate_pair_or_a_character_cut_by_a_read_stays_whole(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(telegram, "CHUNK", chunk)
    items = _tg(tmp_path, _m(1, b"Ana", rb"\ud83d\ude00 caf" + "é ü".encode()))
    assert [r.text for r in items] == ["😀 café ü"] and not any("repaired" in n for n in items[0].notes)


def test_bytes_that_are_not_utf8_are_read_as_windows_1252(tmp_path):
    # a name and a text re-saved as Latin-1: yajl stopped the whole file at the first such byte
    items = _tg(tmp_path, b", ".join([_m(1, b"J\xf6rg", b"Gr\xfc\xdfe"), _m(2, b"Bo", "ok 😀".encode())]))
    assert not any(isinstance(r, RecordError) for r in items)
    assert [(r.sender.name, r.text) for r in items] == [("Jörg", "Grüße"), ("Bo", "ok 😀")]
    assert [p.name for p in items[1].recipients] == ["Jörg"]
    assert "file repaired: 3 bytes that are not UTF-8 (read as Windows-1252) fixed in result.json" in items[0].notes

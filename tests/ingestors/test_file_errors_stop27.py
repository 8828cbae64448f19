"""A file of a type Kith reads by content (WhatsApp's .txt, the JSON chat exports) that no reader takes is
reported with what is wrong with it, not as "unsupported file type: .txt" (red team F9): an empty file, blank
lines, binary data, text with no WhatsApp message line; empty mail, JSON and contact files name the file and say
what is wrong too."""
from __future__ import annotations

import codecs
import json
import random
from pathlib import Path

from app.operations.ingest import ingest
from ingestors.registry import ingestor_for, unsupported_reason
from ingestors.whatsapp import looks_binary, why_not_an_export

NO_DATE = ("not a WhatsApp chat export: no line starts with a date and time like '31/12/2023, 21:05 - Name: text' "
           "(first line: '{}')")


def _random_bytes(n: int) -> bytes:
    return bytes(random.Random(27).randrange(256) for _ in range(n))


def _write(path: Path, data: bytes | str) -> Path:
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path


def test_why_a_text_file_is_not_a_whatsapp_export(tmp_path):
    cases = {
        "empty.txt": (b"", "empty file"),
        "blank.txt": (b"  \n\n\t\r\n", "empty file (only blank lines)"),
        "bom.txt": (codecs.BOM_UTF8 + b"\n \n", "empty file (only blank lines)"),
        "zeros.txt": (bytes(5000), "empty file (only zero bytes)"),
        "garbage.txt": (_random_bytes(4000), "not a WhatsApp chat export: binary data, not text"),
        "notes.txt": ("\n  Meeting notes  \nbuy milk\n", NO_DATE.format("Meeting notes")),
        "long.txt": ("x" * 200 + "\n", NO_DATE.format("x" * 59 + "…")),
        "utf16.txt": (codecs.BOM_UTF16_LE + "Einkaufsliste\nMilch\n".encode("utf-16-le"),
                      NO_DATE.format("Einkaufsliste")),
        "late.txt": ("".join(f"preface {i}\n" for i in range(1, 26)) + "03/05/2021, 14:00 - Eli Gray: hi\n"
                     "03/05/2021, 14:01 - Dee Park: yo\n",
                     "not a WhatsApp chat export: 25 lines of other text come before the first line that starts "
                     "with a date and time (line 26); an export starts with one (first line: 'preface 1')"),
        "one.txt": ("hello\n03/05/2021, 14:00 - Eli Gray: hi\n",
                    "not a WhatsApp chat export: only one line starts with a date and time (line 2), after 1 line "
                    "of other text (first line: 'hello')"),
    }
    for name, (data, reason) in cases.items():
        path = _write(tmp_path / name, data)
        assert ingestor_for(path) is None, name
        assert why_not_an_export(path) == reason, name
        assert unsupported_reason(path) == reason, name  # what an import shows
    assert why_not_an_export(tmp_path / "missing.txt") == "cannot read: No such file or directory"
    assert unsupported_reason(tmp_path / "missing.txt") == "unsupported file type: .txt"  # a name alone


def test_a_whatsapp_export_is_still_read_and_text_is_not_binary(tmp_path):
    chat = _write(tmp_path / "chat.txt", "03/05/2021, 14:00 - Eli Gray: hi\n03/05/2021, 14:01 - Dee Park: yo\n")
    assert ingestor_for(chat).name == "whatsapp"
    assert not looks_binary("café crème, naïve déjà vu\n".encode("cp1252") * 40)  # re-saved as Windows-1252
    assert not looks_binary(codecs.BOM_UTF16_LE + "Привет, как дела?\n".encode("utf-16-le") * 40)
    assert not looks_binary("Hello, how are you?\n".encode("utf-16-le") * 40)  # UTF-16 without a BOM
    assert not looks_binary(b"")
    assert looks_binary(_random_bytes(4096)) and looks_binary(b"\x89PNG\r\n\x1a\n" + bytes(200))


def test_why_a_json_file_is_not_read(tmp_path):
    cases = {
        "empty.json": (b"", "empty file"),
        "blank.json": (b"\n\n   \n", "empty file (only blank lines)"),
        "garbage.json": (_random_bytes(3000), "not a JSON file: binary data, not text"),
        "words.json": ("hello world\nmore\n",
                       "not a JSON file: it does not start with '{' or '[' (first line: 'hello world')"),
        "package.json": (json.dumps({"name": "kith"}),
                         "unsupported file type: .json (not a chat export Kith reads: Telegram's result.json, "
                         "Instagram's or Facebook Messenger's message_N.json, Google Takeout's Hangouts.json or "
                         "Google Chat's messages.json)"),
    }
    for name, (data, reason) in cases.items():
        path = _write(tmp_path / name, data)
        assert ingestor_for(path) is None, name
        assert unsupported_reason(path) == reason, name


def test_other_types_read_by_content_say_empty_and_unknown_types_stay_unsupported(tmp_path):
    assert unsupported_reason(_write(tmp_path / "README", b"")) == "empty file"
    assert unsupported_reason(_write(tmp_path / "index.html", b"")) == "empty file"
    assert unsupported_reason(_write(tmp_path / "plain", "plain words\n")) == "unsupported file type: no suffix"
    assert unsupported_reason(_write(tmp_path / "notes.xyz", b"")) == "unsupported file type: .xyz"


def test_an_import_names_each_bad_file_and_what_is_wrong_and_keeps_the_good(container, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("empty.txt", "empty.json", "empty.mbox", "empty.eml", "empty.vcf"):
        _write(folder / name, b"")
    _write(folder / "garbage.txt", _random_bytes(4000))
    _write(folder / "notes.txt", "Meeting notes\n")
    _write(folder / "chat.txt", "03/05/2021, 14:00 - Eli Gray: hi\n03/05/2021, 14:01 - Dee Park: yo\n")
    report = ingest(container, [folder])
    assert report.records_added == 2
    assert sorted((Path(e.path).name, e.reason) for e in report.errors) == [
        ("empty.eml", "not an email message: it does not start with mail headers"),
        ("empty.json", "empty file"),
        ("empty.mbox", "no messages in this file"),
        ("empty.txt", "empty file"),
        ("empty.vcf", "no contact cards in this file (no BEGIN:VCARD)"),
        ("garbage.txt", "not a WhatsApp chat export: binary data, not text"),
        ("notes.txt", NO_DATE.format("Meeting notes")),
    ]

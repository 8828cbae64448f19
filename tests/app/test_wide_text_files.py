"""Mail and JSON exports saved in UTF-16 or UTF-32 (Windows' "Unicode" save, with or without a byte-order mark)
are read as the same file in UTF-8 (``app.operations.ingest._utf8_copy``), cited by their own path.  Each test writes
its own files."""
from __future__ import annotations

import json

from app.operations.ask import ask
from app.operations.ingest import _wide_encoding, ingest

EML = ("From: Ann Lee <ann@example.org>\r\nTo: Nic <nic@example.com>\r\nSubject: Ferry\r\n"
       "Date: Mon, 01 Jan 2001 09:00:00 +0000\r\n\r\nThe ferry to Kirkwall leaves at seven. Æbleskiver after.\r\n")
TELEGRAM = {"name": "Orchard", "type": "personal_chat", "id": 42, "messages": [
    {"id": 1, "type": "message", "date": "2021-02-03T09:15:00", "date_unixtime": "1612343700",
     "from": "Ann Lee", "from_id": "user1", "text": "The orchard walk is on Saturday"},
    {"id": 2, "type": "message", "date": "2021-02-03T09:16:00", "date_unixtime": "1612343760",
     "from": "Nic Obi", "from_id": "user2", "text": "Я принесу пресс для сидра"}]}


def test_the_encoding_is_told_by_the_mark_or_the_nul_bytes():
    assert _wide_encoding("{}".encode("utf-16")) == "utf-16"
    assert _wide_encoding("{}".encode("utf-32")) == "utf-32"
    assert _wide_encoding('{"name": "x"}'.encode("utf-16-le")) == "utf-16-le"
    assert _wide_encoding('{"name": "x"}'.encode("utf-16-be")) == "utf-16-be"
    assert _wide_encoding('{"name": "x"}'.encode("utf-8")) is None
    assert _wide_encoding("\ufeff{}".encode("utf-8")) is None


def test_utf16_and_utf32_mail_and_chats_are_imported_as_written(container, tmp_path):
    folder = tmp_path / "exports"
    (folder / "tg").mkdir(parents=True)
    (folder / "ferry.eml").write_bytes(EML.encode("utf-16"))
    (folder / "tg" / "result.json").write_bytes(json.dumps(TELEGRAM, ensure_ascii=False).encode("utf-16-le"))
    (folder / "old.eml").write_bytes(EML.replace("seven", "eight").replace("Ferry", "Old ferry").encode("utf-32"))
    r = ingest(container, [folder])
    assert (r.records_added, r.errors) == (1 + 2 + 1, [])
    hits = ask(container, "ferry to Kirkwall", k=2)
    assert {h.source for h in hits} == {str(folder / "ferry.eml"), str(folder / "old.eml")}
    assert any("Æbleskiver" in h.text for h in hits)
    chat = ask(container, "пресс для сидра", k=1)
    assert chat[0].sender == "Nic Obi" and chat[0].text == "Я принесу пресс для сидра"
    assert chat[0].source == str(folder / "tg" / "result.json")
    again = ingest(container, [folder])  # the same files again: already known, nothing added twice
    assert again.records_added == 0 and again.errors == []
    assert not list((container.settings.home / "tmp").glob("kith-utf8-*"))  # the UTF-8 copies are gone

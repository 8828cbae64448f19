"""iMessage chat.db ingestor: the real typedstream blobs and plists from the corpus, in databases built
here with the Messages schema (no real chat.db is public)."""
from __future__ import annotations

import hashlib
import os
import plistlib
import sqlite3
import stat
import unicodedata
from datetime import datetime, timezone
from pathlib import Path

import pytest

from core.errors import InputError
from ingestors.base import Party, Record
from ingestors.imessage import (AttributedBodyError, IMessageIngestor, apple_time, decode_attributed_body,
                                read_summary_info)
from ingestors.registry import ingestor_for

UTC = timezone.utc
ME = Party("me", None, "handle", "from")

# Independently: `date -u -d @1710084600` is Sun Mar 10 15:30:00 UTC 2024, and 1710084600 - 978307200
# (2001-01-01 UTC) = 731777400 seconds after Apple's epoch.
T0 = 731_777_400
T0_UTC = datetime(2024, 3, 10, 15, 30, tzinfo=UTC)

# The columns Kith reads, declared as macOS 13/14 declares them (plus a few neighbours).
SCHEMA = """
CREATE TABLE handle (ROWID INTEGER PRIMARY KEY AUTOINCREMENT UNIQUE, id TEXT NOT NULL, country TEXT,
    service TEXT NOT NULL, uncanonicalized_id TEXT, person_centric_id TEXT, UNIQUE (id, service));
CREATE TABLE chat (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, style INTEGER,
    state INTEGER, account_id TEXT, properties BLOB, chat_identifier TEXT, service_name TEXT,
    room_name TEXT, account_login TEXT, is_archived INTEGER DEFAULT 0, last_addressed_handle TEXT,
    display_name TEXT, group_id TEXT, is_filtered INTEGER DEFAULT 0, successful_query INTEGER);
CREATE TABLE message (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, text TEXT,
    replace INTEGER DEFAULT 0, service_center TEXT, handle_id INTEGER DEFAULT 0, subject TEXT,
    country TEXT, attributedBody BLOB, version INTEGER DEFAULT 0, type INTEGER DEFAULT 0,
    service TEXT, account TEXT, account_guid TEXT, error INTEGER DEFAULT 0, date INTEGER,
    date_read INTEGER, date_delivered INTEGER, is_delivered INTEGER DEFAULT 0,
    is_finished INTEGER DEFAULT 0, is_emote INTEGER DEFAULT 0, is_from_me INTEGER DEFAULT 0,
    is_empty INTEGER DEFAULT 0, is_read INTEGER DEFAULT 0, is_system_message INTEGER DEFAULT 0,
    is_sent INTEGER DEFAULT 0, cache_has_attachments INTEGER DEFAULT 0, cache_roomnames TEXT,
    item_type INTEGER DEFAULT 0, other_handle INTEGER DEFAULT 0, group_title TEXT,
    group_action_type INTEGER DEFAULT 0, associated_message_guid TEXT,
    associated_message_type INTEGER DEFAULT 0, balloon_bundle_id TEXT, payload_data BLOB,
    expressive_send_style_id TEXT, message_summary_info BLOB, reply_to_guid TEXT DEFAULT NULL,
    thread_originator_guid TEXT DEFAULT NULL, thread_originator_part TEXT DEFAULT NULL,
    date_retracted INTEGER DEFAULT 0, date_edited INTEGER DEFAULT 0, part_count INTEGER);
CREATE TABLE chat_message_join (chat_id INTEGER REFERENCES chat (ROWID) ON DELETE CASCADE,
    message_id INTEGER REFERENCES message (ROWID) ON DELETE CASCADE, message_date INTEGER DEFAULT 0,
    PRIMARY KEY (chat_id, message_id));
CREATE TABLE chat_handle_join (chat_id INTEGER REFERENCES chat (ROWID) ON DELETE CASCADE,
    handle_id INTEGER REFERENCES handle (ROWID) ON DELETE CASCADE, UNIQUE(chat_id, handle_id));
CREATE TABLE attachment (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL,
    created_date INTEGER DEFAULT 0, start_date INTEGER DEFAULT 0, filename TEXT, uti TEXT,
    mime_type TEXT, transfer_state INTEGER DEFAULT 0, is_outgoing INTEGER DEFAULT 0, user_info BLOB,
    transfer_name TEXT, total_bytes INTEGER DEFAULT 0, is_sticker INTEGER DEFAULT 0,
    sticker_user_info BLOB, attribution_info BLOB, hide_attachment INTEGER DEFAULT 0,
    original_guid TEXT UNIQUE NOT NULL);
CREATE TABLE message_attachment_join (message_id INTEGER REFERENCES message (ROWID) ON DELETE CASCADE,
    attachment_id INTEGER REFERENCES attachment (ROWID) ON DELETE CASCADE, UNIQUE(message_id, attachment_id));
"""

BLOB_TEXTS = {  # corpus/README.md
    "AttributedBodyTextOnly": "Noter test",
    "AttributedBodyTextOnly2": "Test 3",
    "MultiPart": "\ufffctest 1\ufffctest 2 \ufffctest 3",
    "URL": "https://github.com/ReagentX/Logria",
    "WeirdText": "\U0001d58d\U0001d58a\U0001d591\U0001d591\U0001d594 \U0001d59c\U0001d594\U0001d597\U0001d591\U0001d589",
}


@pytest.fixture
def imsg(corpus) -> Path:
    return corpus / "messages/imessage"


def blob(imsg: Path, name: str) -> bytes:
    return (imsg / f"streamtyped_{name}.bin").read_bytes()


# ----------------------------------------------------------------------------- the typedstream decoder

@pytest.mark.corpus
@pytest.mark.parametrize("name", sorted(BLOB_TEXTS))
def test_decode_corpus_blobs(imsg, name):
    assert decode_attributed_body(blob(imsg, name)) == BLOB_TEXTS[name]


@pytest.mark.corpus
def test_weird_text_is_math_fraktur_outside_the_bmp(imsg):
    text = decode_attributed_body(blob(imsg, "WeirdText"))
    assert len(text) == 11 and all(ord(c) > 0xFFFF for c in text if c != " ")
    assert unicodedata.name(text[0]) == "MATHEMATICAL BOLD FRAKTUR SMALL H"


@pytest.mark.corpus
def test_decode_extra_data_blob(imsg):
    # its length field (0x81 0x9d 0x00 = 157) runs past the blob's end: read up to the end-of-object byte
    assert decode_attributed_body(blob(imsg, "ExtraData")).startswith("This is parsing")


@pytest.mark.corpus
def test_blank_blob_is_a_clear_error(imsg):
    with pytest.raises(AttributedBodyError, match="empty"):
        decode_attributed_body(blob(imsg, "Blank"))


def test_decode_errors_and_long_lengths():
    with pytest.raises(ValueError, match="streamtyped"):
        decode_attributed_body(b"bplist00")
    with pytest.raises(ValueError, match="no NSString"):
        decode_attributed_body(b"\x04\x0bstreamtyped\x81\xe8\x03\x84\x01@\x86")
    head = b"\x04\x0bstreamtyped\x81\xe8\x03\x84\x01@\x84\x84\x84\x08NSString\x01\x94\x84\x01+"
    long = "é" * 200  # 400 UTF-8 bytes: 0x81 + 2-byte little-endian length
    assert decode_attributed_body(head + b"\x81" + (400).to_bytes(2, "little") + long.encode() + b"\x86") == long
    assert decode_attributed_body(head + b"\x82" + (3).to_bytes(4, "little") + b"abc\x86\x86") == "abc"


@pytest.mark.corpus
def test_summary_info_plists(imsg):
    edited = read_summary_info((imsg / "edited_message_Edited.plist").read_bytes())
    assert [e["text"] for e in edited["edits"]] == ["First message  ", "Edit 1", "Edit 2", "Edited message"]
    assert edited["latest"] == "Edited message" and edited["unsent_parts"] == []
    assert edited["edits"][-1]["at"].startswith("2022-11-19T01:18:14")  # 690513494 s after 2001-01-01
    deleted = read_summary_info((imsg / "edited_message_Deleted.plist").read_bytes())
    assert deleted == {"edits": [], "latest": None, "unsent_parts": [0]}
    assert read_summary_info(b"garbage") == {"edits": [], "latest": None, "unsent_parts": []}


def test_apple_time_detects_seconds_and_nanoseconds():
    assert apple_time(T0 * 10**9) == T0_UTC
    assert apple_time(T0) == T0_UTC
    assert apple_time(500_000_000) == datetime(2016, 11, 5, 0, 53, 20, tzinfo=UTC)  # date -u -d @1478307200
    assert apple_time(0) is None and apple_time(None) is None


# ----------------------------------------------------------------------------- a built chat.db

def build_db(path: Path, imsg: Path) -> Path:
    edited_plist = (imsg / "edited_message_Edited.plist").read_bytes()
    latest_blob = plistlib.loads(edited_plist)["ec"]["0"][-1]["t"]
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    conn.executemany("INSERT INTO handle (ROWID, id, country, service) VALUES (?, ?, ?, ?)", [
        (1, "+15555550123", "us", "iMessage"), (2, "ana@example.com", "us", "iMessage"),
        (3, "+447700900123", "gb", "SMS")])
    conn.executemany("INSERT INTO chat (ROWID, guid, style, chat_identifier, service_name, display_name) "
                     "VALUES (?, ?, ?, ?, ?, ?)", [
                         (1, "iMessage;-;+15555550123", 45, "+15555550123", "iMessage", None),
                         (2, "iMessage;+;chat123456789", 43, "chat123456789", "iMessage", "Hikers")])
    conn.executemany("INSERT INTO chat_handle_join VALUES (?, ?)", [(1, 1), (2, 2), (2, 3)])
    ns = 10**9
    rows = [  # ROWID, guid, text, attributedBody, handle_id, date, is_from_me, item_type, assoc type, summary, retracted, edited, chat
        (1, "G1", None, blob(imsg, "AttributedBodyTextOnly"), 1, T0 * ns, 0, 0, 0, None, 0, 0, 1),
        (2, "G2", None, blob(imsg, "MultiPart"), 1, (T0 + 60) * ns, 1, 0, 0, None, 0, 0, 1),
        (3, "G3", None, blob(imsg, "WeirdText"), 2, (T0 + 120) * ns, 0, 0, 0, None, 0, 0, 2),
        (4, "G4", None, blob(imsg, "URL"), 0, (T0 + 180) * ns, 1, 0, 0, None, 0, 0, 2),
        (5, "G5", None, blob(imsg, "ExtraData"), 3, (T0 + 240) * ns, 0, 0, 0, None, 0, 0, 2),
        (6, "G6", None, latest_blob, 1, (T0 + 300) * ns, 1, 0, 0, edited_plist, 0, (T0 + 320) * ns, 1),
        (7, "G7", None, None, 1, (T0 + 360) * ns, 1, 0, 0,
         (imsg / "edited_message_Deleted.plist").read_bytes(), (T0 + 365) * ns, 0, 1),
        (8, "G8", None, blob(imsg, "Blank"), 1, (T0 + 420) * ns, 0, 0, 0, None, 0, 0, 1),
        (9, "G9", "Loved \u201cNoter test\u201d", None, 2, (T0 + 480) * ns, 0, 0, 2000, None, 0, 0, 2),
        (10, "G10", None, None, 2, (T0 + 540) * ns, 0, 2, 0, None, 0, 0, 2),  # renamed the group
        (11, "G11", "plain text wins", blob(imsg, "AttributedBodyTextOnly2"), 1, T0 - 86400, 0, 0, 0,
         None, 0, 0, 1),  # an old database row: seconds, not nanoseconds
        (12, "G12", "no chat", None, 3, (T0 + 600) * ns, 0, 0, 0, None, 0, 0, None),
    ]
    for (rowid, guid, text, body, handle, date, me, item, assoc, summary, retracted, edited, chat) in rows:
        conn.execute("INSERT INTO message (ROWID, guid, text, attributedBody, handle_id, date, is_from_me, "
                     "item_type, associated_message_type, message_summary_info, date_retracted, date_edited, "
                     "service) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'iMessage')",
                     (rowid, guid, text, body, handle, date, me, item, assoc, summary, retracted, edited))
        if chat is not None:
            conn.execute("INSERT INTO chat_message_join VALUES (?, ?, ?)", (chat, rowid, date))
    conn.execute("INSERT INTO attachment (ROWID, guid, filename, mime_type, transfer_name, total_bytes, "
                 "is_sticker, original_guid) VALUES (1, 'A1', '~/Library/Messages/Attachments/ab/comic.heic', "
                 "'image/heic', 'comic.heic', 48081, 1, 'A1')")
    conn.execute("INSERT INTO message_attachment_join VALUES (2, 1)")
    conn.commit()
    conn.close()
    return path


@pytest.fixture
def chat_db(tmp_path, imsg) -> Path:
    return build_db(tmp_path / "chat.db", imsg)


@pytest.mark.corpus
def test_chat_db_records(chat_db):
    items = list(IMessageIngestor().read(chat_db))
    assert all(isinstance(i, Record) for i in items)
    by_id = {r.external_id: r for r in items}
    # 12 rows: the tapback (G9) and the empty group-rename row (G10) are not records; oldest first
    assert [r.external_id for r in items] == ["G11", "G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8", "G12"]
    assert all(r.kind == "chat" and r.attrs["time_basis"] == "utc" for r in items)

    g1 = by_id["G1"]
    assert g1.text == "Noter test" and g1.sent_at == T0_UTC
    assert g1.sender == Party(None, "+15555550123", "phone", "from")
    assert g1.recipients == [Party("me", None, "handle", "member")]
    assert g1.thread == "imessage:iMessage;-;+15555550123"

    g2 = by_id["G2"]
    assert g2.sender == ME and g2.attrs["is_from_me"] is True
    assert g2.recipients == [Party(None, "+15555550123", "phone", "member")]
    assert g2.text == BLOB_TEXTS["MultiPart"]
    assert g2.attrs["attachments"] == [{"filename": "~/Library/Messages/Attachments/ab/comic.heic",
                                        "transfer_name": "comic.heic", "mime_type": "image/heic",
                                        "total_bytes": 48081, "is_sticker": 1}]

    g3 = by_id["G3"]
    assert g3.sender == Party(None, "ana@example.com", "email", "from") and g3.text == BLOB_TEXTS["WeirdText"]
    assert g3.recipients == [Party(None, "+447700900123", "phone", "member"), Party("me", None, "handle", "member")]
    assert g3.thread == "imessage:iMessage;+;chat123456789"
    assert by_id["G4"].recipients == [Party(None, "ana@example.com", "email", "member"),
                                      Party(None, "+447700900123", "phone", "member")]
    assert by_id["G4"].text == BLOB_TEXTS["URL"] and by_id["G4"].sent_at == datetime(2024, 3, 10, 15, 33, tzinfo=UTC)
    assert by_id["G5"].text.startswith("This is parsing")

    g6 = by_id["G6"]
    assert g6.text == "Edited message" and "edited" in g6.notes
    assert [e["text"] for e in g6.attrs["edits"]] == ["First message  ", "Edit 1", "Edit 2", "Edited message"]
    g7 = by_id["G7"]
    assert g7.text == "" and "unsent" in g7.notes and g7.sender == ME and g7.attrs["unsent_parts"] == [0]
    g8 = by_id["G8"]
    assert g8.text == "" and any("attributedBody unreadable" in n and "empty" in n for n in g8.notes)

    g11 = by_id["G11"]
    assert g11.text == "plain text wins" and g11.sent_at == datetime(2024, 3, 9, 15, 30, tzinfo=UTC)
    g12 = by_id["G12"]
    assert g12.thread == "imessage:handle:+447700900123" and g12.recipients == [Party("me", None, "handle", "member")]


@pytest.mark.corpus
def test_edited_row_without_body_takes_the_latest_edit(tmp_path, imsg):
    db = build_db(tmp_path / "chat.db", imsg)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE message SET attributedBody = NULL WHERE guid = 'G6'")
    conn.commit()
    conn.close()
    g6 = next(r for r in IMessageIngestor().read(db) if r.external_id == "G6")
    assert g6.text == "Edited message"


@pytest.mark.corpus
def test_the_database_is_never_modified(tmp_path, imsg):
    db = build_db(tmp_path / "chat.db", imsg)
    before = hashlib.sha256(db.read_bytes()).hexdigest(), db.stat().st_mtime_ns, sorted(os.listdir(tmp_path))
    os.chmod(db, stat.S_IRUSR)  # a read-only file still reads
    try:
        assert len(list(IMessageIngestor().read(db))) == 10
    finally:
        os.chmod(db, stat.S_IRUSR | stat.S_IWUSR)
    assert (hashlib.sha256(db.read_bytes()).hexdigest(), db.stat().st_mtime_ns, sorted(os.listdir(tmp_path))) == before


@pytest.mark.corpus
def test_registry_and_sniff(chat_db, tmp_path):
    assert ingestor_for(chat_db).name == "imessage"
    bare = tmp_path / "messages-backup"
    bare.write_bytes(chat_db.read_bytes())
    head = bare.read_bytes()[:4096]
    assert IMessageIngestor().sniff(bare, head) >= 0.3
    assert IMessageIngestor().sniff(bare, b"not sqlite") == 0.0


def test_not_a_messages_database(tmp_path):
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE notes (id INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(InputError, match="not a Messages database: missing table"):
        list(IMessageIngestor().read(other))
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(InputError, match="not a readable SQLite database"):
        list(IMessageIngestor().read(junk))
    with pytest.raises(InputError):
        list(IMessageIngestor().read(tmp_path / "missing.db"))


def test_odd_rows_keep_their_neighbours(tmp_path, monkeypatch):
    db = tmp_path / "chat.db"
    conn = sqlite3.connect(db)
    conn.executescript(SCHEMA)
    conn.execute("INSERT INTO handle (ROWID, id, service) VALUES (1, 'bo@example.com', 'iMessage')")
    conn.execute("INSERT INTO message (ROWID, guid, text, handle_id, date) VALUES (1, 'B1', 'ok', 1, ?)", (T0 * 10**9,))
    conn.execute("INSERT INTO message (ROWID, guid, text, handle_id, date) VALUES (2, 'B2', 'bad date', 1, 'soon')")
    conn.execute("INSERT INTO message (ROWID, guid, text, handle_id, date) VALUES (3, 'B3', ?, 1, 0)",
                 (b"bytes \xff",))
    conn.commit()
    conn.close()
    items = list(IMessageIngestor().read(db))
    assert [(r.external_id, r.text, r.sent_at) for r in items] == [
        ("B3", "bytes \ufffd", None), ("B1", "ok", T0_UTC), ("B2", "bad date", None)]  # SQLite: text sorts last
    assert "no date: time unknown" in items[2].notes and items[2].thread == "imessage:handle:bo@example.com"

    original = IMessageIngestor._record

    def flaky(self, path, row, *rest):
        if row[0] == 2:
            raise KeyError("boom")
        return original(self, path, row, *rest)

    monkeypatch.setattr(IMessageIngestor, "_record", flaky)
    items = list(IMessageIngestor().read(db))
    assert [type(i).__name__ for i in items] == ["Record", "Record", "RecordError"]
    assert items[2].locator == "message ROWID 2" and "KeyError" in items[2].reason

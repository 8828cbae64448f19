"""chat.db variants real Messages databases have, beyond the regression file: local-form SMS numbers,
reactions sent as plain text by phones that are not Apple's, named group chats, attachment-only
messages, long ``attributedBody`` texts (0x81/0x82 length forms) with emoji, NULL/0/seconds/nanoseconds
dates, older schemas missing columns and tables, and locked or damaged files.  Every database is built
here with the Messages schema's own columns (``test_imessage.SCHEMA``); the right values are worked out
by hand: ``date -u -d @1710084600`` is 2024-03-10 15:30:00 UTC = 731777400 s after 2001-01-01."""
from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path

import pytest

from core.errors import InputError
from ingestors import imessage
from ingestors.base import Party, Record
from ingestors.imessage import IMessageIngestor, canonical_phone, is_text_reaction
from tests.ingestors.test_imessage import SCHEMA

UTC = timezone.utc
T0 = 731_777_400  # seconds after 2001-01-01 UTC: 2024-03-10 15:30:00 UTC
NS = 10**9
ME = Party("me", None, "handle", "from")


def typedstream(text: str) -> bytes:
    """An ``attributedBody`` as Messages writes it: the NSMutableAttributedString class chain, the NSString's
    UTF-8 bytes after ``+`` and a typedstream length (one byte; 0x81 + 2 bytes; 0x82 + 4 bytes, little-endian),
    then the attribute run (its character count in the same integer form) and the attributes dictionary."""
    def integer(n: int) -> bytes:
        if n < 0x80:
            return bytes([n])
        if n < 0x10000:
            return b"\x81" + n.to_bytes(2, "little")
        return b"\x82" + n.to_bytes(4, "little")

    data = text.encode("utf-8")
    return (b"\x04\x0bstreamtyped\x81\xe8\x03\x84\x01@\x84\x84\x84\x19NSMutableAttributedString\x00\x84\x84"
            b"\x12NSAttributedString\x00\x84\x84\x08NSObject\x00\x85\x92\x84\x84\x84\x08NSString\x01\x94\x84\x01+"
            + integer(len(data)) + data + b"\x86\x84\x02iI\x01" + integer(len(text.encode("utf-16-le")) // 2)
            + b"\x92\x84\x84\x84\x0cNSDictionary\x00\x94\x84\x01i\x01\x92\x84\x96\x96\x1d__kIMMessagePartAttributeName"
              b"\x86\x92\x84\x84\x84\x08NSNumber\x00\x84\x84\x07NSValue\x00\x94\x84\x01*\x84\x99\x99\x00\x86\x86\x86")


def build(path: Path, handles, chats=(), members=(), messages=(), attachments=(), schema: str = SCHEMA) -> Path:
    """A chat.db: ``handles`` (ROWID, id, country, service); ``chats`` (ROWID, guid, identifier, display_name);
    ``members`` (chat, handle); ``messages`` dicts of message columns plus ``chat``; ``attachments``
    (message ROWID, mime_type, transfer_name)."""
    conn = sqlite3.connect(path)
    conn.executescript(schema)
    hcols = {r[1] for r in conn.execute("PRAGMA table_info(handle)")}
    for rowid, hid, country, service in handles:
        if "country" in hcols:
            conn.execute("INSERT INTO handle (ROWID, id, country, service) VALUES (?, ?, ?, ?)",
                         (rowid, hid, country, service))
        else:
            conn.execute("INSERT INTO handle (ROWID, id, service) VALUES (?, ?, ?)", (rowid, hid, service))
    ccols = {r[1] for r in conn.execute("PRAGMA table_info(chat)")}
    for rowid, guid, ident, name in chats:
        if "display_name" in ccols:
            conn.execute("INSERT INTO chat (ROWID, guid, chat_identifier, display_name) VALUES (?, ?, ?, ?)",
                         (rowid, guid, ident, name))
        else:
            conn.execute("INSERT INTO chat (ROWID, guid, chat_identifier) VALUES (?, ?, ?)", (rowid, guid, ident))
    for chat, handle in members:
        conn.execute("INSERT INTO chat_handle_join VALUES (?, ?)", (chat, handle))
    for m in messages:
        m = dict(m)
        chat = m.pop("chat", None)
        conn.execute(f"INSERT INTO message ({', '.join(m)}) VALUES ({', '.join('?' * len(m))})", tuple(m.values()))
        if chat is not None:
            conn.execute("INSERT INTO chat_message_join (chat_id, message_id) VALUES (?, ?)", (chat, m["ROWID"]))
    for n, (message, mime, name) in enumerate(attachments, 1):
        conn.execute("INSERT INTO attachment (ROWID, guid, mime_type, transfer_name, original_guid) "
                     "VALUES (?, ?, ?, ?, ?)", (n, f"AT{n}", mime, name, f"AT{n}"))
        conn.execute("INSERT INTO message_attachment_join VALUES (?, ?)", (message, n))
    conn.commit()
    conn.close()
    return path


def records(path: Path) -> list[Record]:
    items = list(IMessageIngestor().read(path))
    assert all(isinstance(i, Record) for i in items), items
    return items


_AUTO = object()


def msg(rowid, text=None, handle=0, date=_AUTO, me=0, chat=None, **more) -> dict:
    """One message row; ``date`` defaults to T0 + ``rowid`` minutes in nanoseconds (None: NULL)."""
    return {"ROWID": rowid, "guid": f"M{rowid}", "text": text, "handle_id": handle,
            "date": (T0 + 60 * rowid) * NS if date is _AUTO else date, "is_from_me": me, "chat": chat, **more}


def test_local_form_sms_numbers_become_e164_by_the_handles_country(tmp_path):
    assert canonical_phone("07700 900123", "gb") == "+447700900123"
    assert canonical_phone("(555) 123-4567", "us") == "+15551234567"
    assert canonical_phone("5551234567", "US") == "+15551234567"
    assert canonical_phone("+1 (555) 123-4567", "gb") == "+1 (555) 123-4567"  # has its country code: as written
    assert canonical_phone("07700 900123", None) == "07700 900123"
    assert canonical_phone("12", "gb") == "12"
    db = build(tmp_path / "chat.db",
               handles=[(1, "+447700900123", "gb", "iMessage"), (2, "07700 900123", "gb", "SMS"),
                        (3, "(555) 123-4567", "us", "SMS")],
               chats=[(1, "iMessage;-;+447700900123", "+447700900123", None),
                      (2, "SMS;-;07700 900123", "07700 900123", None), (3, "SMS;-;(555) 123-4567", "x", None)],
               members=[(1, 1), (2, 2), (3, 3)],
               messages=[msg(1, "over iMessage", 1, chat=1), msg(2, "over SMS", 2, chat=2),
                         msg(3, "to the US one", 0, me=1, chat=3), msg(4, "no chat", 2)])
    a, b, c, d = records(db)
    assert a.sender == b.sender == Party(None, "+447700900123", "phone", "from")
    assert c.sender == ME and c.recipients == [Party(None, "+15551234567", "phone", "member")]
    assert d.thread == "imessage:handle:+447700900123"


def test_local_form_numbers_are_one_person_whatever_the_default_region(container, tmp_path):
    from sqlmodel import select

    from app.operations.ingest import ingest
    from core.store.schema import Entity, Record as Row

    assert container.settings.default_region == "US"
    db = build(tmp_path / "chat.db",
               handles=[(1, "+44 7700 900123", "gb", "iMessage"), (2, "07700 900123", "gb", "SMS")],
               messages=[msg(1, "Fancy a pint at the Crown?", 1), msg(2, "The Crown at 8 then", 2)])
    r = ingest(container, [db])
    assert r.records_added == 2 and not r.errors
    with container.db.session() as s:
        senders = {row.sender_entity_id for row in s.exec(select(Row)).all()}
        assert len(senders) == 1
        (who,) = [s.get(Entity, e) for e in senders]
        assert who.kind == "person"


def test_reactions_sent_as_text_by_other_phones_are_not_messages(tmp_path):
    long = "Shall we take the early train to Porto on Saturday and walk along the river after lunch?"
    db = build(tmp_path / "chat.db", handles=[(1, "+15551230000", "us", "SMS")],
               chats=[(1, "SMS;-;+15551230000", "+15551230000", None)], members=[(1, 1)],
               messages=[msg(1, "Dinner at 8?", 0, me=1, chat=1),
                         msg(2, "Loved \u201cDinner at 8?\u201d", 1, chat=1),
                         msg(3, 'Laughed at "Dinner at 8?"', 1, chat=1),
                         msg(4, long, 0, me=1, chat=1),
                         msg(5, "Liked \u201cShall we take the early train to Porto on Sat\u2026\u201d", 1, chat=1),
                         msg(6, "Loved \u201cDune\u201d", 1, chat=1),  # no message "Dune": their own words
                         msg(7, "Removed a heart from \u201cDinner at 8?\u201d", 1, chat=1)])
    assert [(r.external_id, r.text) for r in records(db)] == [
        ("M1", "Dinner at 8?"), ("M4", long), ("M6", "Loved \u201cDune\u201d")]
    assert is_text_reaction("Emphasized \u201cok\u201d", ["ok"]) and not is_text_reaction("Loved it", ["it"])


def test_named_group_chat_and_my_messages_in_it(tmp_path):
    db = build(tmp_path / "chat.db",
               handles=[(1, "ana@example.com", None, "iMessage"), (2, "+15551230001", "us", "iMessage"),
                        (3, "+15551230002", "us", "iMessage")],
               chats=[(1, "iMessage;+;chat4242", "chat4242", "Porto trip"),
                      (2, "iMessage;-;ana@example.com", "ana@example.com", "")],
               members=[(1, 1), (1, 2), (1, 3), (2, 1)],
               messages=[msg(1, "Tickets booked", 0, me=1, chat=1), msg(2, "Great!", 2, chat=1),
                         msg(3, "Just us two", 0, me=1, chat=2)])
    mine, theirs, direct = records(db)
    assert mine.attrs["chat_name"] == theirs.attrs["chat_name"] == "Porto trip" and "chat_name" not in direct.attrs
    assert mine.sender == ME and [p.address for p in mine.recipients] == [
        "ana@example.com", "+15551230001", "+15551230002"]
    assert [p.address for p in theirs.recipients] == ["ana@example.com", "+15551230002", None]
    assert direct.recipients == [Party(None, "ana@example.com", "email", "member")]


def test_attachment_only_messages_have_no_text_and_say_what_they_hold(tmp_path):
    db = build(tmp_path / "chat.db", handles=[(1, "ana@example.com", None, "iMessage")],
               messages=[msg(1, "\ufffc", 1), msg(2, None, 1, attributedBody=typedstream("\ufffc\ufffc")),
                         msg(3, "\ufffcLook at this view", 1), msg(4, "\ufffc", 1)],
               attachments=[(1, "image/heic", "IMG_0001.HEIC"), (2, "audio/x-m4a", "Audio Message.caf"),
                            (2, "video/quicktime", "IMG_0002.MOV"), (3, "image/jpeg", "view.jpg")])
    photo, voice, words, unknown = records(db)
    assert (photo.text, photo.notes) == ("", ["photo"])
    assert photo.attrs["attachments"] == [{"mime_type": "image/heic", "transfer_name": "IMG_0001.HEIC",
                                           "total_bytes": 0, "is_sticker": 0}]
    assert (voice.text, voice.notes) == ("", ["voice message", "video"])
    assert (words.text, words.notes) == ("\ufffcLook at this view", ["photo"])
    assert (unknown.text, unknown.notes) == ("", ["attachment"])  # no attachment row for it


def test_long_attributed_bodies_with_emoji_and_dates_in_every_unit(tmp_path):
    medium = "Grüße aus Köln 🎉 — " * 20   # 27 × 20 = 540 UTF-8 bytes: 0x81 + 2-byte length
    huge = "Ωmega 🚆 " * 7000            # 84,000 UTF-8 bytes: 0x82 + 4-byte length
    assert len(medium.encode()) == 540 and len(huge.encode()) == 84_000
    db = build(tmp_path / "chat.db", handles=[(1, "ana@example.com", None, "iMessage")],
               messages=[msg(1, None, 1, attributedBody=typedstream(medium), date=T0 * NS),
                         msg(2, None, 1, attributedBody=typedstream(huge), date=T0 + 60),  # seconds (pre-10.13)
                         msg(3, None, 1, attributedBody=typedstream("naïve café ☕"), date=None),
                         msg(4, "zero date", 1, date=0)])
    items = {r.external_id: r for r in records(db)}
    assert items["M1"].text == medium and items["M1"].sent_at == datetime(2024, 3, 10, 15, 30, tzinfo=UTC)
    assert items["M2"].text == huge and items["M2"].sent_at == datetime(2024, 3, 10, 15, 31, tzinfo=UTC)
    assert items["M3"].text == "naïve café ☕" and items["M3"].sent_at is None
    assert items["M4"].sent_at is None and "no date: time unknown" in items["M4"].notes


OLD_SCHEMA = """
CREATE TABLE handle (ROWID INTEGER PRIMARY KEY AUTOINCREMENT UNIQUE, id TEXT NOT NULL, service TEXT NOT NULL,
    uncanonicalized_id TEXT);
CREATE TABLE chat (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, style INTEGER,
    state INTEGER, chat_identifier TEXT, service_name TEXT, room_name TEXT);
CREATE TABLE message (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, text TEXT,
    handle_id INTEGER DEFAULT 0, subject TEXT, service TEXT, date INTEGER, is_from_me INTEGER DEFAULT 0);
CREATE TABLE chat_message_join (chat_id INTEGER, message_id INTEGER, PRIMARY KEY (chat_id, message_id));
"""


def test_an_old_schema_without_bodies_reactions_members_or_attachments(tmp_path):
    # macOS 10.8-era: no attributedBody, associated_message_type, item_type, chat_handle_join, attachment tables,
    # handle.country or chat.display_name; dates in seconds
    db = build(tmp_path / "chat.db", schema=OLD_SCHEMA,
               handles=[(1, "+15551230001", None, "iMessage"), (2, "bo@example.com", None, "iMessage")],
               chats=[(1, "iMessage;-;+15551230001", "+15551230001", None),
                      (2, "iMessage;+;chat1", "chat1", None)],
               messages=[{"ROWID": 1, "guid": "O1", "text": "hi", "handle_id": 1, "date": T0, "chat": 1},
                         {"ROWID": 2, "guid": "O2", "text": "hello back", "handle_id": 1, "date": T0 + 30,
                          "is_from_me": 1, "chat": 1},
                         {"ROWID": 3, "guid": "O3", "text": "group hi", "handle_id": 2, "date": T0 + 60, "chat": 2},
                         {"ROWID": 4, "guid": "O4", "text": "group me", "handle_id": 0, "date": T0 + 90,
                          "is_from_me": 1, "chat": 2}])
    a, b, c, d = records(db)
    assert (a.text, a.sent_at, a.sender) == ("hi", datetime(2024, 3, 10, 15, 30, tzinfo=UTC),
                                             Party(None, "+15551230001", "phone", "from"))
    assert b.sender == ME and b.recipients == [Party(None, "+15551230001", "phone", "member")]
    assert b.sent_at == datetime(2024, 3, 10, 15, 30, 30, tzinfo=UTC)
    assert c.recipients == [Party("me", None, "handle", "member")]
    assert d.recipients == [Party(None, "bo@example.com", "email", "member")]  # members seen in the chat


def test_locked_and_damaged_databases_are_clear_errors_naming_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(imessage, "BUSY_TIMEOUT_S", 0.1)
    db = build(tmp_path / "chat.db", handles=[(1, "ana@example.com", None, "iMessage")],
               messages=[msg(n, f"message {n} " + "words " * 40, 1) for n in range(1, 400)])
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("UPDATE message SET text = 'half written' WHERE ROWID = 1")  # another program mid-write
    assert Path(str(db) + "-journal").exists()
    try:
        with pytest.raises(InputError) as err:
            list(IMessageIngestor().read(db))
        assert str(db) in str(err.value) and "locked by another program" in err.value.reason
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert len(records(db)) == 399 and not Path(str(db) + "-journal").exists()  # once it is free, it reads

    damaged = tmp_path / "damaged.db"
    raw = db.read_bytes()
    damaged.write_bytes(raw[:len(raw) // 2])  # a copy cut short
    with pytest.raises(InputError) as err:
        list(IMessageIngestor().read(damaged))
    assert str(damaged) in str(err.value) and "damaged" in err.value.reason


def test_an_iphone_backups_sms_db_without_a_suffix_is_found_by_its_tables(tmp_path):
    from ingestors.registry import ingestor_for

    # iTunes/Finder backups keep sms.db as a hash with no suffix; pad the schema so the Messages tables are
    # named past the first 4 KiB that the registry sniffs
    padding = "".join(f"CREATE TABLE pad_{i} (a TEXT, b TEXT, c TEXT, d TEXT, e TEXT, f TEXT);\n" for i in range(80))
    db = build(tmp_path / "3d0d7e5fb2ce288813306e4d4636395e047a3d28", schema=padding + SCHEMA,
               handles=[(1, "+15551230001", "us", "SMS")], messages=[msg(1, "from the backup", 1)])
    head = db.read_bytes()[:4096]
    assert b"chat_message_join" not in head and b"attributedBody" not in head
    assert ingestor_for(db).name == "imessage"
    (rec,) = records(db)
    assert rec.text == "from the backup" and rec.sender == Party(None, "+15551230001", "phone", "from")
    other = tmp_path / "notes"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE note (id INTEGER, body TEXT)")
    conn.commit()
    conn.close()
    assert IMessageIngestor().sniff(other, other.read_bytes()[:4096]) == 0.3 and ingestor_for(other) is None

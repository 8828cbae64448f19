"""A folder of chat exports as a person drops it in, through the whole import: a live Messages database
(chat.db with its chat.db-wal and chat.db-shm beside it), a damaged copy of a chat.db, a Facebook
conversation split over message_1.json and message_2.json, and a JSON file that is no chat export.
The bad files are errors naming them, kept in the quarantine; everything else is imported, once."""
from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from sqlmodel import select

from app.operations.ingest import ingest
from core.store.schema import QuarantineItem, Record
from ingestors.registry import expand_inputs
from tests.ingestors.test_imessage import SCHEMA

T0 = 731_777_400  # 2024-03-10 15:30:00 UTC, in seconds after 2001-01-01


def _live_chat_db(folder: Path, src: Path) -> None:
    """chat.db as copied (from ``src``) while Messages has it open: its newest message only in chat.db-wal."""
    src.mkdir()
    conn = sqlite3.connect(src / "chat.db")
    conn.executescript(SCHEMA)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("INSERT INTO handle (ROWID, id, country, service) VALUES (1, '07700 900123', 'gb', 'SMS')")
    conn.execute("INSERT INTO message (ROWID, guid, text, handle_id, date) VALUES (1, 'W1', 'Ferry at noon', 1, ?)",
                 (T0 * 10**9,))
    conn.commit()
    conn.execute("INSERT INTO message (ROWID, guid, text, handle_id, date) VALUES (2, 'W2', 'Bring the tent', 1, ?)",
                 (T0 * 10**9 + 60 * 10**9,))
    conn.commit()
    for name in ("chat.db", "chat.db-wal", "chat.db-shm"):
        shutil.copy(src / name, folder / name)
    conn.close()
    assert (folder / "chat.db-wal").stat().st_size > 0


def test_a_folder_of_chat_exports(container, tmp_path):
    drop = tmp_path / "drop"
    (drop / "Messages").mkdir(parents=True)
    _live_chat_db(drop / "Messages", tmp_path / "live")
    good = (drop / "Messages/chat.db").read_bytes()
    (drop / "old-mac-chat.db").write_bytes(good[:len(good) // 2])  # a copy cut short
    thread = drop / "your_activity_across_facebook/messages/inbox/teresa_1234567"
    thread.mkdir(parents=True)
    head = {"participants": [{"name": "Teresa Lund"}, {"name": "Owner Person"}], "title": "Teresa Lund"}
    (thread / "message_1.json").write_text(json.dumps({**head, "messages": [
        {"sender_name": "Teresa Lund", "timestamp_ms": 1609459320000, "content": "Bring the map"}]}))
    (thread / "message_2.json").write_text(json.dumps({**head, "messages": [
        {"sender_name": "Teresa Lund", "timestamp_ms": 1609459200000, "content": "Leaving now"},
        {"sender_name": "Owner Person", "timestamp_ms": 1609459200000, "content": "Leaving now"}]}))
    (drop / "settings.json").write_text(json.dumps({"theme": "dark", "messages": {"welcome": "hi"}}))

    files, problems = expand_inputs([drop])
    assert not problems and {f.name for f in files} == {"chat.db", "old-mac-chat.db", "message_1.json",
                                                         "message_2.json", "settings.json"}  # no -wal, -shm

    report = ingest(container, [drop])
    bad = {Path(e.path).name: e.reason for e in report.errors}
    assert set(bad) == {"old-mac-chat.db", "settings.json"}
    assert "damaged" in bad["old-mac-chat.db"] and "not a Telegram export" in bad["settings.json"]
    with container.db.session() as s:
        quarantined = {Path(q.path).name for q in s.exec(select(QuarantineItem)).all()}
        rows = s.exec(select(Record).order_by(Record.sent_at)).all()
    assert quarantined == {"old-mac-chat.db", "settings.json"}
    assert report.records_added == 5
    assert [r.text for r in rows if r.thread == "facebook:inbox/teresa_1234567"] == [
        "Leaving now", "Leaving now", "Bring the map"]
    assert [r.text for r in rows if r.thread and r.thread.startswith("imessage:")] == [
        "Ferry at noon", "Bring the tent"]  # the second only in chat.db-wal

    # reading wrote nothing beside the databases (a WAL-mode copy would get -wal and -shm files)
    assert sorted(p.name for p in drop.iterdir()) == ["Messages", "old-mac-chat.db", "settings.json",
                                                      "your_activity_across_facebook"]
    again = ingest(container, [drop])
    assert again.records_added == 0 and again.records_skipped == 5

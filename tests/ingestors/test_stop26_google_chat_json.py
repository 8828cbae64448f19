"""A Google Chat export part with a broken JSON escape keeps every message (the repairing reader Telegram's,
Messenger's and Instagram's files are read through), with a note naming the file."""
from __future__ import annotations

import json

from ingestors.google_chat import GoogleChatIngestor

ANN = {"name": "Ann Lee", "email": "ann@example.com", "user_type": "Human"}
BOB = {"name": "Bob Roy", "email": "bob@example.com", "user_type": "Human"}


def test_an_invalid_escape_loses_nothing(tmp_path):
    d = tmp_path / "Groups" / "DM x"
    d.mkdir(parents=True)
    (d / "group_info.json").write_text(json.dumps({"members": [ANN, BOB]}), encoding="utf-8")
    msgs = [{"creator": ANN, "created_date": "Monday, March 4, 2024 at 10:00:00 AM UTC", "text": "Bring towels"},
            {"creator": BOB, "created_date": "Monday, March 4, 2024 at 10:05:00 AM UTC", "text": "And rope"},
            {"creator": ANN, "created_date": "Monday, March 4, 2024 at 10:07:00 AM UTC", "text": "See you at 6"}]
    raw = json.dumps({"messages": msgs}).replace("Bring towels", "Bring\\x0Ctowels").replace("rope", "rope\\q")
    (d / "messages.json").write_text(raw, encoding="utf-8")
    with_error = json.JSONDecodeError
    try:
        json.loads(raw)
        raise AssertionError("the file was meant to be invalid JSON")
    except with_error:
        pass
    got = list(GoogleChatIngestor().read(d / "messages.json"))
    assert [(r.sender.name, r.text) for r in got] == [
        ("Ann Lee", "Bring towels"), ("Bob Roy", "And rope"), ("Ann Lee", "See you at 6")]
    assert all("file repaired: 2 invalid escapes fixed in messages.json" in r.notes for r in got)


def test_a_hangouts_file_with_an_invalid_escape_keeps_every_conversation(tmp_path):
    """Takeout's Hangouts.json, two conversations, the first with "\\x0C" between two words: both read whole."""
    from ingestors.hangouts import HangoutsIngestor

    def conversation(cid: str, text: str) -> dict:
        conv = {"id": {"id": cid}, "type": "STICKY_ONE_TO_ONE",
                "participant_data": [{"id": {"gaia_id": "111"}, "fallback_name": "Nic Owner"},
                                     {"id": {"gaia_id": "222"}, "fallback_name": "Ann Lee"}]}
        event = {"sender_id": {"gaia_id": "222"}, "timestamp": "1355997600000000", "event_id": cid + "-e1",
                 "event_type": "REGULAR_CHAT_MESSAGE",
                 "chat_message": {"message_content": {"segment": [{"type": "TEXT", "text": text}]}}}
        return {"conversation": {"conversation_id": {"id": cid}, "conversation": conv}, "events": [event]}

    raw = json.dumps({"conversations": [conversation("Ugx1", "Bring towels"), conversation("Ugx2", "And rope")]})
    path = tmp_path / "Hangouts.json"
    path.write_text(raw.replace("Bring towels", "Bring\\x0Ctowels"), encoding="utf-8")
    items = list(HangoutsIngestor().read(path))
    assert [(type(i).__name__, getattr(i, "text", None)) for i in items] == [
        ("Record", "Bring towels"), ("Record", "And rope")]
    assert "file repaired: 1 invalid escape fixed in Hangouts.json" in items[0].notes

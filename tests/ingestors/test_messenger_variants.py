"""Instagram / Facebook Messenger exports as real users have them, beyond the two regression files: 2018's
``timestamp`` in seconds with plain participant names, the encrypted chats' camelCase export, big groups
whose participant list fills the sniffed head, the owner's own "You ..." notices, a conversation split
over ``message_1.json``/``message_2.json`` in the newer folder layouts, and JSON that is no Messenger
export.  Every file is written here; the right values are worked out by hand (``date -u -d @SECONDS``)."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from core.errors import InputError
from ingestors.base import Party, Record, RecordError
from ingestors.messenger import MessengerIngestor, service_from_path, timestamp_ms
from ingestors.registry import ingestor_for, unsupported_reason

UTC = timezone.utc


def _moj(text: str) -> str:
    """Text as Meta writes it: each UTF-8 byte as its own character."""
    return text.encode("utf-8").decode("latin-1")


def _write(path: Path, data: dict, indent: int | None = 2) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=indent))  # ASCII escapes, as Meta writes them
    return path


def _records(path: Path) -> list[Record]:
    items = list(MessengerIngestor().read(path))
    assert all(isinstance(i, Record) for i in items), [i for i in items if isinstance(i, RecordError)]
    return items


def test_2018_export_timestamp_in_seconds_and_plain_participants(tmp_path):
    # The first JSON exports (spring 2018): "timestamp" in seconds, participants as plain names.
    p = _write(tmp_path / "messages/inbox/anabelle_x1y2z3/message.json", {
        "participants": ["Anabelle Ng", "Owner Person"], "title": "Anabelle Ng", "is_still_participant": True,
        "thread_type": "Regular", "thread_path": "inbox/anabelle_x1y2z3",
        "messages": [{"sender_name": "Owner Person", "timestamp": 1520000060, "content": "See you at 6",
                      "type": "Generic"},
                     {"sender_name": "Anabelle Ng", "timestamp": 1520000000, "content": _moj("Dinner at Café Luz?"),
                      "type": "Generic"}]})
    assert ingestor_for(p).name == "messenger"  # not Telegram's reader (both are JSON with "messages")
    items = _records(p)
    # date -u -d @1520000000 → Fri Mar  2 14:13:20 UTC 2018
    assert [(r.sent_at, r.sender.name, r.text) for r in items] == [
        (datetime(2018, 3, 2, 14, 13, 20, tzinfo=UTC), "Anabelle Ng", "Dinner at Café Luz?"),
        (datetime(2018, 3, 2, 14, 14, 20, tzinfo=UTC), "Owner Person", "See you at 6")]
    assert items[0].recipients == [Party("Owner Person", None, "handle", "member")]
    assert items[0].attrs["timestamp_ms"] == 1520000000000 and items[0].thread == "facebook:inbox/anabelle_x1y2z3"


def test_timestamp_units():
    assert timestamp_ms({"timestamp_ms": 1609459200000}) == 1609459200000
    assert timestamp_ms({"timestamp": 1609459200}) == 1609459200000        # seconds
    assert timestamp_ms({"timestamp": 1609459200000}) == 1609459200000     # milliseconds
    assert timestamp_ms({"timestamp": 1609459200.25}) == 1609459200250
    assert timestamp_ms({"timestamp_ms": "soon"}) is None and timestamp_ms({"timestamp": True}) is None


def test_encrypted_chat_export_camel_case(tmp_path):
    # messenger.com's secure-storage download of an end-to-end encrypted chat: camelCase keys, proper UTF-8,
    # "timestamp" in milliseconds, "media" lists of files.
    p = tmp_path / "messages/e2ee/JoaoSilva_12.json"
    p.parent.mkdir(parents=True)
    p.write_text(json.dumps({
        "participants": ["João Silva", "Owner Person"], "threadName": "João Silva",
        "messages": [  # newest first
            {"isUnsent": False, "media": [{"uri": "media/voice_1.m4a"}], "reactions": [], "senderName": "João Silva",
             "text": "", "timestamp": 1700000060000, "type": "media"},
            {"isUnsent": True, "media": [], "reactions": [], "senderName": "Owner Person", "text": "",
             "timestamp": 1700000030000, "type": "text"},
            {"isUnsent": False, "media": [], "reactions": [{"actor": "Owner Person", "reaction": "❤"}],
             "senderName": "João Silva", "text": "Olá! Até amanhã 👋", "timestamp": 1700000000000,
             "type": "text"},
        ]}, ensure_ascii=False), encoding="utf-8")
    assert ingestor_for(p).name == "messenger"
    items = _records(p)
    # date -u -d @1700000000 → Tue Nov 14 22:13:20 UTC 2023
    assert [(r.sent_at, r.sender.name, r.text) for r in items] == [
        (datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC), "João Silva", "Olá! Até amanhã 👋"),
        (datetime(2023, 11, 14, 22, 13, 50, tzinfo=UTC), "Owner Person", ""),
        (datetime(2023, 11, 14, 22, 14, 20, tzinfo=UTC), "João Silva", "")]
    hello, unsent, voice = items
    assert hello.attrs["reactions"] == [{"actor": "Owner Person", "reaction": "❤"}]
    assert hello.recipients == [Party("Owner Person", None, "handle", "member")]
    assert "unsent" in unsent.notes and unsent.attrs["unsent"] is True
    assert "voice message" in voice.notes and voice.attrs["media"] == [{"uri": "media/voice_1.m4a"}]
    assert {r.attrs["service"] for r in items} == {"facebook"} and hello.attrs["chat_name"] == "João Silva"


def test_big_group_whose_participants_fill_the_head_is_still_messenger(tmp_path):
    people = [_moj(f"Zoë Participant-Number {i:03d}") for i in range(120)]
    p = _write(tmp_path / "message_1.json", {
        "participants": [{"name": n} for n in people], "title": _moj("Choir 🎶"), "thread_path": "inbox/choir_77",
        "messages": [{"sender_name": people[5], "timestamp_ms": 1609459200000, "content": "Rehearsal moved to 7"}]})
    assert b'"sender_name"' not in p.read_bytes()[:4096]  # the reader is chosen without seeing a message
    assert ingestor_for(p).name == "messenger"
    (rec,) = _records(p)
    assert rec.sender.name == "Zoë Participant-Number 005" and len(rec.recipients) == 119
    assert rec.attrs["chat_name"] == "Choir 🎶"


def test_the_owners_own_notices_are_not_messages(tmp_path):
    base = 1577836800000  # 2020-01-01 00:00:00 UTC
    msgs = [  # oldest first here, reversed below
        ("Owner Person", "You created the group."),
        ("Owner Person", "You named the group Lisbon 2020."),
        ("Owner Person", "You added Rui Costa to the group."),
        ("Rui Costa", "You are now connected on Messenger"),
        ("Owner Person", "You changed the group photo."),
        ("Owner Person", "You set the nickname for Rui Costa to Rui."),
        ("Rui Costa", "You left the party early, so I took the bus"),  # Rui's own words about the owner
        ("Owner Person", "You left the group."),
    ]
    p = _write(tmp_path / "message_1.json", {
        "participants": [{"name": "Owner Person"}, {"name": "Rui Costa"}], "title": "Lisbon 2020",
        "thread_path": "inbox/lisbon2020_9", "magic_words": [],
        "messages": [{"sender_name": n, "timestamp_ms": base + i * 1000, "content": t, "type": "Generic"}
                     for i, (n, t) in reversed(list(enumerate(msgs)))]})
    (rec,) = _records(p)
    assert (rec.sender.name, rec.text) == ("Rui Costa", "You left the party early, so I took the bus")
    assert [e["text"] for e in rec.attrs["system_events"]] == [t for _, t in msgs[:6]] + ["You left the group."]


def test_conversation_in_two_files_of_the_newer_layout_is_one_chat(tmp_path):
    # Facebook's 2024 layout; no thread_path in these files and no "type" on messages: the folder is the chat.
    folder = tmp_path / "facebook-owner-2024-05-01/your_activity_across_facebook/messages/inbox/teresa_1234567"
    newer = [{"sender_name": "Teresa Lund", "timestamp_ms": 1609459320000, "content": "Bring the map"},
             {"sender_name": "Owner Person", "timestamp_ms": 1609459260000, "content": "Leaving now"}]
    older = [{"sender_name": "Teresa Lund", "timestamp_ms": 1609459200000, "content": "Leaving now"},
             {"sender_name": "Owner Person", "timestamp_ms": 1609459200000, "content": "Leaving now"}]
    head = {"participants": [{"name": "Teresa Lund"}, {"name": "Owner Person"}], "title": "Teresa Lund"}
    one = _write(folder / "message_1.json", {**head, "messages": newer})
    two = _write(folder / "message_2.json", {**head, "messages": older})
    a, b = _records(one), _records(two)
    both = sorted(a + b, key=lambda r: r.sent_at)
    assert {r.thread for r in both} == {"facebook:inbox/teresa_1234567"}
    assert {r.attrs["service"] for r in both} == {"facebook"}  # the folder says so, with no "type" or magic words
    # the same second, the same words, two senders: both kept
    assert [(r.sender.name, r.text) for r in b] == [("Owner Person", "Leaving now"), ("Teresa Lund", "Leaving now")]
    assert len({r.content_hash for r in both}) == 4
    assert [r.sent_at for r in a] == sorted(r.sent_at for r in a)  # oldest first in each file
    # read again (a second download of the same export), nothing is new
    assert {r.content_hash for r in _records(one) + _records(two)} == {r.content_hash for r in both}


def test_service_from_the_folders(tmp_path):
    ig = tmp_path / "instagram-noor-2024-01-02/your_instagram_activity/messages/inbox/noor_99/message_1.json"
    assert service_from_path(ig) == "instagram"
    assert service_from_path(tmp_path / "x/your_activity_across_facebook/messages/inbox/a_1/message_1.json") == \
        "facebook"
    assert service_from_path(Path("/home/u/Downloads/chat/message_1.json")) is None
    p = _write(ig, {"participants": [{"name": "noor.s"}, {"name": "owner"}], "title": "noor.s", "magic_words": [],
                    "messages": [{"sender_name": "noor.s", "timestamp_ms": 1609459200000, "content": "hey"}]})
    (rec,) = _records(p)
    assert rec.attrs["service"] == "instagram" and rec.thread == "instagram:inbox/noor_99"


def test_json_that_is_not_a_messenger_export(tmp_path):
    plain = _write(tmp_path / "package.json", {"name": "kith", "version": "1.0"})
    assert ingestor_for(plain) is None
    assert unsupported_reason(plain).startswith("unsupported file type: .json (not a chat export")
    # "messages" but no chat in it: the reader that takes it says so, naming the file (it read nothing, silently)
    other = _write(tmp_path / "settings.json", {"theme": "dark", "messages": {"welcome": "hi"}})
    with pytest.raises(InputError) as err:
        list(ingestor_for(other).read(other))
    assert str(other) in str(err.value) and "not a Telegram export" in str(err.value)
    with pytest.raises(InputError) as err:
        list(MessengerIngestor().read(other))
    assert str(other) in str(err.value) and "no 'messages' list" in str(err.value)
    no_times = _write(tmp_path / "message_1.json", {"participants": [{"name": "A"}],
                                                    "messages": [{"sender_name": "A", "content": "x"}]})
    assert ingestor_for(no_times).name == "messenger"
    (bad,) = list(MessengerIngestor().read(no_times))
    assert isinstance(bad, RecordError) and bad.path == str(no_times) and "no time" in bad.reason

"""Telegram Desktop result.json ingestor: the real corpus export and small made-up exports."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from core.errors import InputError
from ingestors.base import Party, Record, RecordError
from ingestors.registry import ingestor_for
from ingestors.telegram import TelegramIngestor, join_text

UTC = timezone.utc


def write(tmp_path: Path, data, name: str = "result.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return p


# ----------------------------------------------------------------------------- corpus

@pytest.mark.corpus
def test_corpus_single_export(corpus):
    path = corpus / "messages/chats/telegram_test_single_export.json"
    items = list(TelegramIngestor().read(path))
    assert all(isinstance(i, Record) for i in items) and len(items) == 2
    first, second = items
    # "1544006350" = 17870 days + 38350 s after the Unix epoch = 2018-12-05 10:39:10 UTC
    assert first.sent_at == datetime(2018, 12, 5, 10, 39, 10, tzinfo=UTC)
    assert first.sender == Party("Author 1", None, "handle", "from")
    assert first.text == "Minimal Message"
    # "1544006964" is 614 s later; the text is two parts, bold "Link:" and a link, joined as they are
    assert second.sent_at == datetime(2018, 12, 5, 10, 49, 24, tzinfo=UTC)
    assert second.sender.name == "Author 2"
    assert second.text == "Link:https://telegram.org/"
    assert first.recipients == [Party("Author 2", None, "handle", "member")]
    assert second.recipients == [Party("Author 1", None, "handle", "member")]
    assert {r.thread for r in items} == {"telegram:telegram_test_single_export"}  # no id or name in the file
    assert [r.external_id for r in items] == ["#1", "#2"]
    assert all(r.kind == "chat" and r.attrs["time_basis"] == "utc" and r.notes == [] for r in items)


@pytest.mark.corpus
def test_corpus_export_is_sniffed_as_telegram(corpus):
    assert ingestor_for(corpus / "messages/chats/telegram_test_single_export.json").name == "telegram"


# ----------------------------------------------------------------------------- made-up exports

def msg(id, unix, who, uid, text, **extra):
    return {"id": id, "type": "message", "date": "2024-05-01T10:00:00", "date_unixtime": str(unix),
            "from": who, "from_id": uid, "text": text, **extra}


def test_full_export_with_several_chats_service_messages_and_media(tmp_path):
    data = {
        "about": "Here is the data you requested. Remember: Telegram is ad free...",
        "personal_information": {"user_id": 1},
        "chats": {"about": "...", "list": [
            {"name": "Ana", "type": "personal_chat", "id": 42, "messages": [
                {"id": 1, "type": "service", "date": "2024-05-01T09:00:00", "date_unixtime": "1714554000",
                 "actor": "Ana", "actor_id": "user7", "action": "phone_call", "text": ""},
                msg(2, 1714557600, "Ana", "user7", ["see ", {"type": "text_link", "text": "this",
                                                             "href": "https://example.org/x"}, "!"]),
                msg(3, 1714557660, "Me", "user1", "", photo="photos/photo_1.jpg", width=10, height=10,
                    edited="2024-05-01T10:05:00", edited_unixtime="1714557900", reply_to_message_id=2),
                "not a message",
                msg(5, "soon", "Ana", "user7", "bad time"),
            ]},
        ]},
        "left_chats": {"about": "...", "list": [
            {"name": "Old group", "type": "private_group", "id": 99, "messages": [
                msg(1, 1600000000, "Bo", "user8", [{"type": "bold", "text": "Hi"}, " all ",
                                                   {"type": "mention", "text": "@ana"}]),
                {"id": 2, "type": "service", "date_unixtime": "1600000100", "actor": "Bo",
                 "action": "remove_members", "members": ["Ana"], "text": ""},
            ]},
        ]},
    }
    items = list(TelegramIngestor().read(write(tmp_path, data)))
    errors = [i for i in items if isinstance(i, RecordError)]
    records = [i for i in items if isinstance(i, Record)]
    assert [(e.locator, e.reason) for e in errors] == [
        ("chat 42 #4", "message is not a JSON object"),
        ("chat 42 message 5", "date_unixtime is not a number: 'soon'")]
    assert [r.external_id for r in records] == ["chat 42 message 2", "chat 42 message 3", "chat 99 message 1"]
    a, b, c = records
    assert a.text == "see this!" and a.attrs["links"] == ["https://example.org/x"]
    assert a.sender == Party("Ana", "user7", "handle", "from")
    # the account holder (personal_information.user_id 1) is named as the owner among the recipients
    assert a.recipients == [Party("Me", None, "handle", "member")] and a.attrs["owner_name"] == "Me"
    assert a.sent_at == datetime(2024, 5, 1, 10, 0, tzinfo=UTC) and a.thread == "telegram:42"
    assert a.attrs["system_events"] == [{"id": 1, "at": "2024-05-01T09:00:00+00:00", "actor": "Ana",
                                         "action": "phone_call", "text": ""}]
    assert b.text == "" and b.attrs["media"] == {"photo": "photos/photo_1.jpg"}
    assert "edited" in b.notes and b.attrs["reply_to_message_id"] == 2 and b.attrs["is_from_me"] is True
    assert c.text == "Hi all @ana" and c.thread == "telegram:99" and c.recipients == []
    assert c.attrs["chat_name"] == "Old group"
    assert c.attrs["system_events"][0]["action"] == "remove_members"  # after the last message: kept on it


def test_old_export_without_unixtime_uses_the_assumed_zone(tmp_path):
    data = {"name": "Ana", "type": "personal_chat", "id": 5, "messages": [
        {"id": 1, "type": "message", "date": "2019-07-01T12:00:00", "from": "Ana", "from_id": 7, "text": "hi"},
        {"id": 2, "type": "message", "from": None, "text": "ghost"},
    ]}
    a, b = TelegramIngestor(local_timezone="Europe/Berlin").read(write(tmp_path, data))
    assert a.sent_at == datetime(2019, 7, 1, 10, 0, tzinfo=UTC)  # CEST, +2
    assert a.attrs["time_basis"] == "assumed-local"
    assert a.sender == Party("Ana", "user7", "handle", "from")  # an old numeric from_id, written as new ones are
    assert b.sent_at is None and b.sender is None and "sender unknown" in b.notes
    assert a.external_id == "message 1"


def test_join_text():
    assert join_text("plain") == "plain"
    assert join_text(["a", {"type": "bold", "text": "b"}, {"type": "x"}, 3, "c"]) == "abc"
    assert join_text(None) == ""


def test_not_telegram(tmp_path):
    bad = tmp_path / "result.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        list(TelegramIngestor().read(bad))
    other = write(tmp_path, {"name": "package", "version": "1.0"}, "package.json")
    with pytest.raises(InputError, match="not a Telegram export"):
        list(TelegramIngestor().read(other))
    assert TelegramIngestor().sniff(other, other.read_bytes()) == 0.0
    assert ingestor_for(other) is None
    assert TelegramIngestor().sniff(bad, b"[1, 2]") == 0.0


# ----------------------------------------------------------------------------- regressions (issue 12)

@pytest.mark.corpus
def test_invalid_escape_is_repaired_with_a_note(corpus):
    items = list(TelegramIngestor().read(corpus / "regressions/telegram_invalid_escape.json"))
    assert all(isinstance(i, Record) for i in items)
    assert [(r.sender.name, r.text) for r in items] == [("Ines Moreau", "Paddle trip is on Saturday at 8"),
                                                        ("Karl Eng", "ok see you"),
                                                        ("Ines Moreau", "Bring the dry bags")]
    assert all("file repaired: 1 invalid escape fixed in telegram_invalid_escape.json" in r.notes for r in items)
    assert items[1].sent_at == datetime(2023, 4, 1, 10, 5, tzinfo=UTC)


def _raw_export(*texts: bytes) -> bytes:
    msgs = b",\n".join(b'  {"id": %d, "type": "message", "date_unixtime": "%d", "from": "Ana", "from_id": "user1", '
                       b'"text": "%s"}' % (n, 1700000000 + n, t) for n, t in enumerate(texts, 1))
    return b'{\n "name": "Ana", "type": "personal_chat", "id": 7,\n "messages": [\n' + msgs + b"\n ]\n}\n"


@pytest.mark.parametrize("raw, texts, repaired", [
    # a raw control character, an unknown escape, a short \u, an escaped backslash before x (valid)
    (_raw_export(b"tab\x01here", b"what\\q", b"bad \\u12 code", b"C:\\\\x1"),
     ["tabhere", "what", "bad u12 code", "C:\\x1"], "3"),
    # raw line breaks and tabs inside strings: the slower string-aware repair
    (_raw_export(b"two\nlines", b"a\ttab"), ["two\nlines", "a\ttab"], "2"),
])
def test_other_broken_json_is_repaired(tmp_path, raw, texts, repaired):
    p = tmp_path / "result.json"
    p.write_bytes(raw)
    items = list(TelegramIngestor().read(p))
    assert [r.text for r in items] == texts
    assert all(any(n.startswith("file repaired") for n in r.notes) for r in items)


def test_a_file_that_breaks_keeps_the_messages_before_the_break(tmp_path):
    p = tmp_path / "result.json"
    p.write_bytes(_raw_export(b"one", b"two", b"three")[:-40])
    items = list(TelegramIngestor().read(p))
    assert [i.text for i in items if isinstance(i, Record)] == ["one", "two"]
    assert isinstance(items[-1], RecordError) and "JSON breaks" in items[-1].reason


def test_repairs_across_read_boundaries(tmp_path, monkeypatch):
    import ingestors.telegram as tg

    monkeypatch.setattr(tg, "CHUNK", 7)  # every escape sits on some boundary
    p = tmp_path / "result.json"
    p.write_bytes(_raw_export(b"x\\x0Cy \\\\ \\\"q\\\" \\u00e9 \\/", b"\\\\\\\\x"))
    items = list(TelegramIngestor().read(p))
    assert [r.text for r in items] == ['xy \\ "q" é /', "\\\\x"]


def test_forwarded_messages_are_their_authors_words_and_media_is_noted(tmp_path):
    data = {"name": "Ana", "type": "personal_chat", "id": 42, "messages": [
        msg(1, 1714557600, "Ana", "user7", "morning"),
        msg(2, 1714557660, "Ana", "user7", "Trains cancelled on Friday", forwarded_from="Daily News"),
        msg(3, 1714557720, "Me", "user1", "mine again", forwarded_from="Ana"),   # a member: her id
        msg(4, 1714557780, "Me", "user1", "", file="stickers/sticker.webp", media_type="sticker",
            sticker_emoji="\U0001F602"),
        msg(5, 1714557840, "Ana", "user7", "", file="voice_messages/audio_1.ogg", media_type="voice_message"),
    ]}
    records = list(TelegramIngestor().read(write(tmp_path, data)))
    assert [(r.sent_at, r.sender, r.text) for r in records] == [
        (datetime(2024, 5, 1, 10, 0, tzinfo=UTC), Party("Ana", "user7", "handle", "from"), "morning"),
        (datetime(2024, 5, 1, 10, 1, tzinfo=UTC), Party("Daily News", None, "handle", "from"),
         "Trains cancelled on Friday"),
        (datetime(2024, 5, 1, 10, 2, tzinfo=UTC), Party("Ana", "user7", "handle", "from"), "mine again"),
        (datetime(2024, 5, 1, 10, 3, tzinfo=UTC), Party("Me", "user1", "handle", "from"), ""),
        (datetime(2024, 5, 1, 10, 4, tzinfo=UTC), Party("Ana", "user7", "handle", "from"), "")]
    news = records[1]
    assert news.attrs["forwarded_by"] == {"name": "Ana", "id": "user7"}
    assert news.notes == ["forwarded by Ana: written by Daily News"]
    # Ana's chat got it from her; "Me" exported this chat named after Ana: the owner, by name
    assert news.recipients == [Party("Me", None, "handle", "member")] and news.attrs["owner_name"] == "Me"
    assert records[3].attrs["is_from_me"] is True and "is_from_me" not in records[2].attrs
    assert records[2].recipients == [Party("Ana", "user7", "handle", "member")]
    assert records[3].notes == ["media: sticker \U0001F602"] and records[4].notes == ["media: voice message"]


def test_channel_posts_and_a_group_posting_as_itself_are_not_people(tmp_path):
    data = {"about": "...", "chats": {"list": [
        {"name": "Daily News", "type": "public_channel", "id": 777, "messages": [
            {"id": 1, "type": "service", "date_unixtime": "1714550000", "actor": "Daily News",
             "actor_id": "channel777", "action": "create_channel", "title": "Daily News", "text": ""},
            msg(2, 1714557600, "Daily News", "channel777", "Trains cancelled on Friday", author="Mia Ross"),
        ]},
        {"name": "Paddle club", "type": "private_supergroup", "id": 42, "messages": [
            msg(5, 1714557660, "Ana", "user7", "who drives?"),
            msg(6, 1714557720, "Paddle club", "channel42", "Meeting moved to 9"),  # an anonymous admin
            msg(7, 1714557780, "Daily News", "channel777", "Trains cancelled on Friday"),  # the linked channel
            msg(8, 1714557840, "Bo", "user8", "ok", forwarded_from="Daily News", forwarded_from_id="channel777"),
        ]},
    ]}}
    post, ana, admin, linked, fwd = TelegramIngestor().read(write(tmp_path, data))
    assert post.sender == Party("Daily News", "channel777", "handle", "from")
    assert post.attrs["sender_group"] == "telegram_channel" and post.recipients == []
    assert post.attrs["signature"] == "Mia Ross"
    assert "sender_group" not in ana.attrs
    assert ana.recipients == [Party("Bo", "user8", "handle", "member")]  # neither the group nor the channel
    assert admin.attrs["sender_group"] == "telegram_group"
    assert linked.attrs["sender_group"] == "telegram_channel"
    assert fwd.sender == Party("Daily News", "channel777", "handle", "from")
    assert fwd.attrs["sender_group"] == "telegram_channel" and fwd.attrs["forwarded_by"]["name"] == "Bo"

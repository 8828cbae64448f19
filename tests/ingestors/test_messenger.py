"""Instagram and Facebook Messenger JSON exports (issue 12): right values from
../shared/corpus/regressions/README.md, then other exports of the same kind."""
from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from core.errors import InputError
from ingestors.base import Party, Record, RecordError
from ingestors.messenger import MessengerIngestor, fix_mojibake
from ingestors.registry import ingestor_for

UTC = timezone.utc


@pytest.mark.corpus
def test_instagram_export(corpus):
    p = corpus / "regressions/instagram_message_1.json"
    assert ingestor_for(p).name == "messenger"
    items = list(MessengerIngestor().read(p))
    assert all(isinstance(i, Record) for i in items) and len(items) == 3
    assert [r.sent_at for r in items] == sorted(r.sent_at for r in items)  # oldest first
    hello = items[1]
    assert hello.text == "Hello from Lisbon \U0001F600" and hello.sender == Party("Noor Sample", None, "handle", "from")
    assert hello.sent_at == datetime.fromtimestamp(1609459260, tz=UTC)
    assert hello.recipients == [Party("Owner Person", None, "handle", "member")]
    assert items[0].attrs["share"] == {"link": "https://example.org/p/1"} and "shared link" in items[0].notes
    assert items[2].sender.name == "Owner Person" and items[2].text == "Happy new year! Are you still in Lisbon?"
    assert {r.attrs["service"] for r in items} == {"instagram"} and items[0].thread == "instagram:inbox/noorsample_123"


@pytest.mark.corpus
def test_facebook_export_keeps_same_second_messages_and_notes_the_photo(corpus):
    p = corpus / "regressions/facebook_message_1.json"
    assert ingestor_for(p).name == "messenger"
    items = list(MessengerIngestor().read(p))
    assert all(isinstance(i, Record) for i in items)
    # newest first in the file: for the two of the same millisecond, the file's order reversed
    assert [(r.sender.name, r.text) for r in items] == [
        ("Tomas Example", ""), ("Owner Person", "Perfect, I'll bring the boat"),
        ("Tomas Example", "See you at the lake on Saturday")]
    assert "photo" in items[0].notes and items[0].attrs["photos"][0]["uri"].endswith("1.jpg")
    assert items[1].sent_at == items[2].sent_at == datetime.fromtimestamp(1672574400, tz=UTC)
    assert items[1].external_id != items[2].external_id
    assert len({r.content_hash for r in items}) == 3
    assert {r.attrs["service"] for r in items} == {"facebook"}


def test_mojibake_and_odd_messages(tmp_path):
    data = {"participants": [{"name": "Jos\u00c3\u00a9"}, {"name": "Me"}], "title": "Jos\u00c3\u00a9",
            "messages": [{"sender_name": "Me", "timestamp_ms": 3000, "content": "\u00c3\u00a7a va \u2013 ok"},
                         {"sender_name": "Jos\u00c3\u00a9", "timestamp_ms": "soon", "content": "x"},
                         "junk",
                         {"sender_name": "Jos\u00c3\u00a9", "timestamp_ms": 1000, "content": "Gr\u00c3\u00bc\u00c3\u009fe",
                          "is_unsent": True, "reactions": [{"reaction": "\u00e2\u009d\u00a4", "actor": "Me"}]}]}
    p = tmp_path / "message_1.json"
    p.write_text(json.dumps(data))
    items = list(MessengerIngestor().read(p))
    errors = [i for i in items if isinstance(i, RecordError)]
    records = [i for i in items if isinstance(i, Record)]
    assert len(errors) == 2
    assert [(r.sender.name, r.text) for r in records] == [("José", "Grüße"), ("Me", "\u00c3\u00a7a va \u2013 ok")]
    assert records[0].attrs["reactions"] == [{"reaction": "\u2764", "actor": "Me"}] and "unsent" in records[0].notes
    assert records[0].attrs["chat_name"] == "José"


def test_mojibake_helper_and_not_messenger(tmp_path):
    assert fix_mojibake("caf\u00c3\u00a9") == "café"
    assert fix_mojibake("plain") == "plain" and fix_mojibake("déjà vu") == "déjà vu"  # not UTF-8 bytes: kept
    assert fix_mojibake({"k": ["\u00c3\u00a9", 3]}) == {"k": ["é", 3]}
    p = tmp_path / "message_1.json"
    p.write_text('{"title": "x"}')
    with pytest.raises(InputError, match="no 'messages' list"):
        list(MessengerIngestor().read(p))
    assert MessengerIngestor().sniff(p, p.read_bytes()) == 0.0


def _moj(text: str) -> str:
    """Text as Meta writes it: each UTF-8 byte as its own character."""
    return text.encode("utf-8").decode("latin-1")


def test_words_meta_wrote_are_not_the_senders(tmp_path):
    base = 1678629600000  # 2023-03-12 14:00:00 UTC
    joao, zoe = _moj("João Silva"), _moj("Zoë Müller")
    data = {"participants": [{"name": joao}, {"name": zoe}, {"name": "Facebook user"}], "title": joao,
            "thread_path": "inbox/joaosilva_123", "magic_words": [], "messages": [  # newest first
                {"sender_name": joao, "timestamp_ms": base + 9000, "content": _moj("Até já! 👋"),
                 "reactions": [{"reaction": _moj("❤"), "actor": zoe}]},
                {"sender_name": zoe, "timestamp_ms": base + 8000, "content": _moj("Zoë Müller sent a photo."),
                 "photos": [{"uri": "photos/1.jpg", "creation_timestamp": 1678629608}]},
                {"sender_name": joao, "timestamp_ms": base + 7000, "content": _moj("João Silva sent a link."),
                 "share": {"link": "https://example.com/x", "share_text": _moj("Café guide")}},
                {"sender_name": "Facebook user", "timestamp_ms": base + 6000, "content": "hi from an old account"},
                {"sender_name": joao, "timestamp_ms": base + 5000, "content": "You unsent a message",
                 "is_unsent": True},
                {"sender_name": zoe, "timestamp_ms": base + 4000,
                 "content": _moj("Zoë Müller reacted ❤ to your message ")},
                {"sender_name": joao, "timestamp_ms": base + 3000, "content": _moj("João Silva started a video call."),
                 "call_duration": 125},
                {"sender_name": zoe, "timestamp_ms": base + 2000, "content": _moj("Zoë Müller named the group Beach."),
                 "type": "Generic"},
                {"sender_name": "Ana", "timestamp_ms": base + 1500, "content": "Ana and I will bring food"},
                {"sender_name": zoe, "timestamp_ms": base + 1000, "content": _moj("Zoë Müller added Ana to the group."),
                 "type": "Subscribe", "users": [{"name": "Ana"}]},
            ]}
    p = tmp_path / "message_1.json"
    p.write_text(json.dumps(data))  # ASCII escapes, as Meta writes them
    items = list(MessengerIngestor().read(p))
    assert all(isinstance(i, Record) for i in items)
    assert [(r.sent_at, r.sender.name if r.sender else None, r.text) for r in items] == [
        (datetime(2023, 3, 12, 14, 0, 1, 500000, tzinfo=UTC), "Ana", "Ana and I will bring food"),
        (datetime(2023, 3, 12, 14, 0, 5, tzinfo=UTC), "João Silva", ""),
        (datetime(2023, 3, 12, 14, 0, 6, tzinfo=UTC), None, "hi from an old account"),
        (datetime(2023, 3, 12, 14, 0, 7, tzinfo=UTC), "João Silva", ""),
        (datetime(2023, 3, 12, 14, 0, 8, tzinfo=UTC), "Zoë Müller", ""),
        (datetime(2023, 3, 12, 14, 0, 9, tzinfo=UTC), "João Silva", "Até já! 👋")]
    ana, unsent, old, link, photo, last = items
    assert [e["text"] for e in ana.attrs["system_events"]] == ["Zoë Müller added Ana to the group."]
    assert [e["text"] for e in unsent.attrs["system_events"]] == [
        "Zoë Müller named the group Beach.", "João Silva started a video call.", "Zoë Müller reacted ❤ to your message "]
    assert unsent.attrs["system_events"][1] == {"at": "2023-03-12T14:00:03+00:00", "actor": "João Silva",
                                                "text": "João Silva started a video call."}
    assert "unsent" in unsent.notes
    assert "Facebook user" in old.notes[0] and {p.name for p in old.recipients} == {"João Silva", "Zoë Müller"}
    assert link.attrs["share"]["share_text"] == "Café guide" and "shared link" in link.notes
    assert "photo" in photo.notes and photo.attrs["photos"][0]["uri"] == "photos/1.jpg"
    assert last.attrs["reactions"] == [{"reaction": "❤", "actor": "Zoë Müller"}]
    assert {p.name for p in last.recipients} == {"Zoë Müller"}  # "Facebook user" is nobody


def test_instagram_notices_and_one_word_names(tmp_path):
    data = {"participants": [{"name": "sam.k"}, {"name": "max"}], "title": "sam.k", "thread_path": "inbox/samk_1",
            "messages": [
                {"sender_name": "max", "timestamp_ms": 4000, "content": "max out the budget, I say"},
                {"sender_name": "sam.k", "timestamp_ms": 3000, "content": "Liked a message"},
                {"sender_name": "sam.k", "timestamp_ms": 2000, "content": "sam.k sent an attachment.",
                 "share": {"link": "https://www.instagram.com/p/abc/"}},
                {"sender_name": "max", "timestamp_ms": 1000, "content": "Replied to your story",
                 "share": {"link": "https://www.instagram.com/stories/max/1"}},
            ]}
    p = tmp_path / "message_1.json"
    p.write_text(json.dumps(data))
    items = list(MessengerIngestor().read(p))
    assert [(r.sender.name, r.text) for r in items] == [("max", ""), ("sam.k", ""),
                                                        ("max", "max out the budget, I say")]
    assert items[2].attrs["system_events"] == [{"at": "1970-01-01T00:00:03+00:00", "actor": "sam.k",
                                                "text": "Liked a message"}]
    assert {r.attrs["service"] for r in items} == {"instagram"}

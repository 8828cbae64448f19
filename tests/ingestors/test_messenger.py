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

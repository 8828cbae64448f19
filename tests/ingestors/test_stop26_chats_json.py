"""Stop 26: a bad escape in a Facebook, Instagram or Telegram JSON export costs one character, never messages.

A Messenger ``message_1.json`` with ``\\x0C`` in one message lost 6 of its 8 messages (the repairing reader's string
tracking took the escape's next quote for escaped and read the rest of the file inside out), an Instagram one lost all
(the same), and an invalid escape such as ``\\q`` was kept as its letter ("Lea Vogt\\q" was "Lea Vogtq").  One reader
(``ingestors.telegram.RepairingReader``) reads all three; the escape that names no text is dropped, a space where it
stood between two letters; each record notes the repair and the file.  Through the real ingest path."""
from __future__ import annotations

import json

from app.operations.ingest import ingest
from helpers.files import rows


def _sql(c, sql: str) -> list[tuple]:
    return rows(c.settings.db_path, sql)


def _records(c) -> list[tuple]:
    return _sql(c, "SELECT e.canonical_name, r.text, r.attrs FROM record r LEFT JOIN entity e "
                   "ON e.id = r.sender_entity_id ORDER BY r.sent_at, r.id")


def test_a_messenger_export_with_bad_escapes_keeps_every_message(container, tmp_path):
    folder = tmp_path / "messages" / "inbox" / "lea_1"
    folder.mkdir(parents=True)
    path = folder / "message_1.json"
    # newest first, as Meta writes it; \x0C, \q and \a are no JSON escapes
    path.write_text(
        '{"participants": [{"name": "Lea Vogt\\q"}, {"name": "Nic Owner"}],\n'
        ' "messages": [\n'
        '  {"sender_name": "Lea Vogt\\q", "timestamp_ms": 1672574500000, '
        '"content": "Bring\\x0Ctowels and \\"soap\\""},\n'
        '  {"sender_name": "Nic Owner", "timestamp_ms": 1672574400000, "content": "rope\\a and\\npegs"},\n'
        '  {"sender_name": "Lea Vogt\\q", "timestamp_ms": 1672574300000, "content": "Tent\\x41 is \\\'packed\\\'"},\n'
        '  {"sender_name": "Nic Owner", "timestamp_ms": 1672574200000, "content": "ok"}\n'
        ' ],\n "title": "Lea Vogt\\q", "thread_path": "inbox/lea_1"}\n', encoding="utf-8")
    rep = ingest(container, [path])
    assert (rep.files, rep.records_added, rep.errors) == (1, 4, [])
    got = _records(container)
    assert [(who, text) for who, text, _a in got] == [
        ("Nic Owner", "ok"),
        ("Lea Vogt", "TentA is 'packed'"),            # \x41 is the A it names; \' the quote
        ("Nic Owner", "rope and\npegs"),              # \a dropped (no space: one stood after it already)
        ("Lea Vogt", 'Bring towels and "soap"'),       # \x0C (a form feed) between two words: a space
    ]
    note = "file repaired: 9 invalid escapes fixed in message_1.json"  # 4 × \\q, \\x0C, \\a, \\x41, 2 × \\'
    assert [json.loads(a)["notes"] for _w, _t, a in got] == [[note]] * 4


def test_an_instagram_export_with_an_invalid_escape_is_read_whole(container, tmp_path):
    path = tmp_path / "your_instagram_activity" / "messages" / "inbox" / "noor_123" / "message_1.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({
        "participants": [{"name": "Noor Sample"}, {"name": "Nic Owner"}],
        "messages": [{"sender_name": "Nic Owner", "timestamp_ms": 1609459320000, "content": "Are you in@@Lisbon?"},
                     {"sender_name": "Noor Sample", "timestamp_ms": 1609459260000, "content": "Hello\nfrom Porto"}],
        "title": "Noor Sample", "thread_path": "inbox/noor_123"}, indent=1).replace("@@", "\\x0C"), encoding="utf-8")
    rep = ingest(container, [path])
    assert (rep.records_added, rep.errors) == (2, [])
    got = _records(container)
    assert [(who, text) for who, text, _a in got] == [("Noor Sample", "Hello\nfrom Porto"),
                                                      ("Nic Owner", "Are you in Lisbon?")]
    assert {json.loads(a)["service"] for _w, _t, a in got} == {"instagram"}
    assert all(json.loads(a)["notes"] == ["file repaired: 1 invalid escape fixed in message_1.json"]
               for _w, _t, a in got)


def test_a_messenger_file_with_raw_line_breaks_and_escapes_keeps_its_strings_apart(container, tmp_path):
    # the string-aware repair (raw line breaks inside strings) after an escape other than \" or \\: the quote
    # that ends the string is a quote, not an escaped one
    path = tmp_path / "inbox" / "ana_2" / "message_1.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"participants": [{"name": "Ana Lima"}, {"name": "Nic Owner"}], "messages": [\n'
                     b'{"sender_name": "Ana Lima", "timestamp_ms": 1700000200000, "content": "two\nlines\\tand \\q"},\n'
                     b'{"sender_name": "Nic Owner", "timestamp_ms": 1700000100000, "content": "a\\nb"}],\n'
                     b'"title": "Ana Lima", "thread_path": "inbox/ana_2"}')
    rep = ingest(container, [path])
    assert (rep.records_added, rep.errors) == (2, [])
    got = _records(container)
    assert [(who, text) for who, text, _a in got] == [("Nic Owner", "a\nb"), ("Ana Lima", "two\nlines\tand ")]
    assert json.loads(got[0][2])["notes"] == [
        "file repaired: 1 invalid escape, 1 line break or tab inside a string fixed in message_1.json"]


def test_a_telegram_export_drops_an_escape_naming_no_text(container, tmp_path):
    path = tmp_path / "result.json"
    path.write_bytes(b'{"name": "Ana", "type": "personal_chat", "id": 7, "messages": [\n'
                     b'{"id": 1, "type": "message", "date_unixtime": "1700000000", "from": "Ana Lima\\q", '
                     b'"from_id": "user1", "text": "see you\\qat the lake\\a"},\n'
                     b'{"id": 2, "type": "message", "date_unixtime": "1700000060", "from": "Nic", '
                     b'"from_id": "user2", "text": "C:\\\\x1 ok"}]}')
    rep = ingest(container, [path])
    assert (rep.records_added, rep.errors) == (2, [])
    got = _records(container)
    assert [(who, text) for who, text, _a in got] == [("Ana Lima", "see you at the lake"), ("Nic", "C:\\x1 ok")]
    assert json.loads(got[0][2])["notes"] == ["file repaired: 3 invalid escapes fixed in result.json"]


def test_a_read_whose_bytes_were_all_dropped_is_not_the_end_of_the_file(container, tmp_path, monkeypatch):
    import ingestors.telegram as tg

    monkeypatch.setattr(tg, "CHUNK", 2)  # every "\q" read alone: repaired to nothing, which ended the file
    path = tmp_path / "inbox" / "ana_3" / "message_1.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"participants": [{"name": "Ana Lima"}, {"name": "Nic Owner"}], "messages": [\n'
                     b'{"sender_name": "Ana Lima", "timestamp_ms": 1700000200000, "content": "end\\q\\q\\q"},\n'
                     b'{"sender_name": "Nic Owner", "timestamp_ms": 1700000100000, "content": "start"}],\n'
                     b'"title": "Ana Lima", "thread_path": "inbox/ana_3"}')
    rep = ingest(container, [path])
    assert (rep.records_added, rep.errors) == (2, [])
    assert [(who, text) for who, text, _a in _records(container)] == [("Nic Owner", "start"), ("Ana Lima", "end")]


def test_a_profile_file_with_a_bad_escape_still_names_the_account_holder(container, tmp_path):
    root = tmp_path / "facebook-nic-2024"  # the export, beside the data folder
    profile = root / "personal_information" / "profile_information" / "profile_information.json"
    profile.parent.mkdir(parents=True)
    profile.write_bytes(b'{"profile_v2": {"name": {"full_name": "Nic\\x0COwner\\q"}}}')
    chat = root / "your_activity_across_facebook" / "messages" / "inbox" / "ana_1" / "message_1.json"
    chat.parent.mkdir(parents=True)
    chat.write_text(json.dumps({"participants": [{"name": "Ana Lima"}, {"name": "Nic Owner"}], "messages": [
        {"sender_name": "Nic Owner", "timestamp_ms": 1700000200000, "content": "hi Ana"},
        {"sender_name": "Ana Lima", "timestamp_ms": 1700000100000, "content": "hello"}],
        "title": "Ana Lima", "thread_path": "inbox/ana_1"}), encoding="utf-8")
    rep = ingest(container, [root])
    assert (rep.files, rep.records_added, rep.errors) == (2, 2, [])
    assert _sql(container, "SELECT canonical_name, is_owner FROM entity ORDER BY id") == [("Ana Lima", 0),
                                                                                        ("Nic Owner", 1)]

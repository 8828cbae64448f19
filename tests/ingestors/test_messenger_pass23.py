"""Instagram / Facebook Messenger exports and the macOS Messages chat.db, pass 23: the account holder is the
owner (not a contact), a conversation split over message_1/2/3.json, former group members, shared links, the
export's profile file (also inside a zip), and chat.db handles written in several phone formats."""
from __future__ import annotations

import json
import sqlite3
import zipfile
from datetime import datetime, timezone
from pathlib import Path

from click.testing import CliRunner
from sqlmodel import select

from app.cli import main
from app.memory import owner_entity
from app.operations.entities import find_entity, list_entities
from app.operations.ingest import ingest
from core.store.schema import Entity, Record, RecordEntity
from ingestors.archives import zip_members
from ingestors.base import Record as Rec
from ingestors.messenger import MessengerIngestor, is_profile_file, profile_name

T0 = 1_600_000_000_000  # 2020-09-13T12:26:40Z


def meta(text: str) -> str:
    """Meta's mojibake: each UTF-8 byte written as its own character."""
    return text.encode("utf-8").decode("latin-1")


def mojibake(obj):
    if isinstance(obj, str):
        return meta(obj)
    if isinstance(obj, list):
        return [mojibake(x) for x in obj]
    if isinstance(obj, dict):
        return {k: mojibake(v) for k, v in obj.items()}
    return obj


def write(path: Path, data: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(mojibake(data), ensure_ascii=True))
    return path


def records(path: Path, ing: MessengerIngestor | None = None) -> list[Rec]:
    return [r for r in (ing or MessengerIngestor()).read(path) if isinstance(r, Rec)]


def split_chat(root: Path) -> list[Path]:
    """A 1:1 chat with José Müller, nine messages over message_1..3.json, each file newest first (file 1 the
    newest three): the owner is the participant who is not the title."""
    folder = root / "your_activity_across_facebook" / "messages" / "inbox" / "josemuller_1234567"
    msgs = [{"sender_name": "José Müller" if i % 2 == 0 else "Nic Owner", "timestamp_ms": T0 + i * 60_000,
             "content": f"regatta note {i}"} for i in range(9)]
    msgs[4]["content"] = "Vamos à praia amanhã? 🌊"
    out = []
    for n, chunk in enumerate([msgs[6:9], msgs[3:6], msgs[0:3]], 1):
        out.append(write(folder / f"message_{n}.json", {
            "participants": [{"name": "José Müller"}, {"name": "Nic Owner"}], "title": "José Müller",
            "messages": list(reversed(chunk)), "is_still_participant": True, "magic_words": [],
            "thread_path": "inbox/josemuller_1234567", "joinable_mode": {"mode": 1, "link": ""}}))
    return out


def group_chat(root: Path, notice: bool = True) -> Path:
    """A group where Bob Kray wrote and then left (no longer a participant), a deleted account wrote, Nic shared
    a link, and (with ``notice``) Meta's "You sent an attachment." stands under Nic's name."""
    t = T0 + 10_000_000
    msgs = [
        {"sender_name": "Zoë Ålund", "timestamp_ms": t + 1000, "content": "Welcome aboard the Petrel crew!"},
        {"sender_name": "Nic Owner", "timestamp_ms": t + 2000, "content": "Nic Owner sent a link.", "type": "Share",
         "share": {"link": "https://example.org/tide-tables", "share_text": "Tide tables for Cascais"}},
        {"sender_name": "Facebook user", "timestamp_ms": t + 3000, "content": "I will bring the spinnaker"},
        {"sender_name": "Bob Kray", "timestamp_ms": t + 4000, "content": "Bring the sailing gloves too"},
        {"sender_name": "Bob Kray", "timestamp_ms": t + 5000, "content": "Bob Kray left the group.",
         "type": "Unsubscribe"},
        {"sender_name": "Zoë Ålund", "timestamp_ms": t + 6000, "content": "Bob is off the boat now"},
    ]
    if notice:
        msgs.append({"sender_name": "Nic Owner", "timestamp_ms": t + 7000, "content": "You sent an attachment.",
                     "files": [{"uri": "f.pdf"}], "type": "Generic"})
    return write(root / "your_activity_across_facebook" / "messages" / "inbox" / "sailingcrew_998877" /
                 "message_1.json",
                 {"participants": [{"name": "Zoë Ålund"}, {"name": "Facebook user"}, {"name": "Nic Owner"}],
                  "title": "Petrel Crew ⛵", "messages": list(reversed(msgs)), "magic_words": [],
                  "thread_path": "inbox/sailingcrew_998877", "joinable_mode": {"mode": 1, "link": "https://m.me/j/x"}})


def test_split_conversation_is_one_chat_oldest_first_and_the_owner_is_marked(tmp_path):
    files = split_chat(tmp_path / "facebook-nic-2024")
    ing = MessengerIngestor()
    got = [r for f in sorted(files, reverse=True) for r in records(f, ing)]  # message_3 (oldest) first
    assert [r.text for r in got] == ["regatta note 0", "regatta note 1", "regatta note 2", "regatta note 3",
                                     "Vamos à praia amanhã? 🌊", "regatta note 5", "regatta note 6",
                                     "regatta note 7", "regatta note 8"]
    assert len({r.content_hash for r in got}) == 9 and len({r.thread for r in got}) == 1
    assert [r.sent_at for r in got] == sorted(r.sent_at for r in got)
    assert got[0].sent_at == datetime(2020, 9, 13, 12, 26, 40, tzinfo=timezone.utc)
    assert {r.attrs["owner_name"] for r in got} == {"Nic Owner"}
    assert [bool(r.attrs.get("is_from_me")) for r in got] == [i % 2 == 1 for i in range(9)]


def test_group_owner_from_the_notice_former_member_and_shared_link(tmp_path):
    got = records(group_chat(tmp_path / "facebook-nic-2024"))
    by_text = {r.text: r for r in got}
    assert {r.attrs["owner_name"] for r in got} == {"Nic Owner"}
    share = next(r for r in got if r.attrs.get("share"))
    assert share.attrs["is_from_me"] and share.text == "" and share.subject == "Tide tables for Cascais"
    # Bob left: a member of what was said up to his last message, not of what came after
    assert "Bob Kray" in [p.name for p in by_text["Welcome aboard the Petrel crew!"].recipients]
    assert "Bob Kray" not in [p.name for p in by_text["Bob is off the boat now"].recipients]
    assert by_text["I will bring the spinnaker"].sender is None
    assert not any(r.attrs.get("is_from_me") for r in got if r.sender and r.sender.name != "Nic Owner")


def test_a_words_of_someone_that_begin_like_a_notice_do_not_make_them_the_owner(tmp_path):
    path = write(tmp_path / "x" / "inbox" / "trip_1" / "message_1.json", {
        "participants": [{"name": "Zoë Ålund"}, {"name": "Bob Kray"}, {"name": "Nic Owner"}], "title": "Trip",
        "messages": [{"sender_name": "Zoë Ålund", "timestamp_ms": T0, "content": "You sent the wrong file!"}]})
    assert "owner_name" not in records(path)[0].attrs


def test_group_owner_from_the_other_conversations_of_the_export(tmp_path):
    root = tmp_path / "facebook-nic-2024"
    group = group_chat(root, notice=False)
    assert not any("owner_name" in r.attrs for r in records(group))  # one group alone does not say
    split_chat(root)  # a second conversation: Nic Owner is the one name both have
    write(root / "your_activity_across_facebook" / "messages" / "inbox" / "ana_5" / "message_1.json", {
        "participants": [{"name": "Ana Lima"}, {"name": "Nic Owner"}], "title": "Ana Lima",
        "messages": [{"sender_name": "Ana Lima", "timestamp_ms": T0, "content": "oi"}]})
    assert {r.attrs.get("owner_name") for r in records(group)} == {"Nic Owner"}


def test_profile_file_names_the_owner_of_an_instagram_group(tmp_path):
    root = tmp_path / "instagram-nic.owner-2024-05-01"
    chat = write(root / "your_instagram_activity" / "messages" / "inbox" / "hikingclub_17845" / "message_1.json", {
        "participants": [{"name": "Søren Ølgaard"}, {"name": "Mía Peña"}, {"name": "Nic Ø."}],
        "title": "Hiking Club 🥾",
        "messages": [{"sender_name": "Nic Ø.", "timestamp_ms": T0 + 1, "content": "Count me in"},
                     {"sender_name": "Søren Ølgaard", "timestamp_ms": T0, "content": "Preikestolen on Saturday?",
                      "reactions": [{"reaction": "👍", "actor": "Nic Ø."}]}]})
    profile = write(root / "personal_information" / "personal_information" / "personal_information.json",
                    {"profile_user": [{"string_map_data": {"Name": {"value": "Nic Ø.", "href": "", "timestamp": 0},
                                                           "Username": {"value": "nic.owner"}}}]})
    got = records(chat)
    assert [r.text for r in got] == ["Preikestolen on Saturday?", "Count me in"]
    assert [bool(r.attrs.get("is_from_me")) for r in got] == [False, True]
    assert got[0].attrs["reactions"] == [{"reaction": "👍", "actor": "Nic Ø."}]  # a reaction is no message
    assert is_profile_file("x/personal_information/personal_information/personal_information.json")
    assert profile_name(json.loads(profile.read_text())) is not None
    assert profile_name({"profile_v2": {"name": {"full_name": meta("José Müller")}}}) == "José Müller"
    assert profile_name({"autofill_information_v2": {"FULL_NAME": ["Ana Lima"]}}) == "Ana Lima"
    assert list(MessengerIngestor().read(profile)) == []  # read for the owner's name: no records, no error


def test_zip_reads_the_profile_file_first_and_the_owner_is_the_owner(tmp_path, container):
    root = tmp_path / "src" / "instagram-nic.owner-2024-05-01"
    write(root / "your_instagram_activity" / "messages" / "inbox" / "hikingclub_17845" / "message_1.json", {
        "participants": [{"name": "Søren Ølgaard"}, {"name": "Mía Peña"}, {"name": "Nic Ø."}],
        "title": "Hiking Club",
        "messages": [{"sender_name": "Mía Peña", "timestamp_ms": T0 + 2, "content": "Bring the headlamps"},
                     {"sender_name": "Nic Ø.", "timestamp_ms": T0 + 1, "content": "Count me in"},
                     {"sender_name": "Søren Ølgaard", "timestamp_ms": T0, "content": "Preikestolen on Saturday?"}]})
    write(root / "personal_information" / "personal_information" / "personal_information.json",
          {"profile_user": [{"string_map_data": {"Name": {"value": "Nic Ø."}}}]})
    archive = tmp_path / "instagram.zip"
    with zipfile.ZipFile(archive, "w") as zf:  # the conversation before the profile, as Meta may zip them
        for f in sorted((tmp_path / "src").rglob("*.json"), key=lambda p: "personal" in str(p)):
            zf.write(f, f.relative_to(tmp_path / "src").as_posix())
    names = [m.cite for m in zip_members(archive, first=is_profile_file)]
    assert "personal_information.json" in names[0] and len(names) == 2
    report = ingest(container, [archive])
    assert report.records_added == 3 and not report.errors
    me = owner_entity(container)
    assert me is not None and me[1] == "Nic Ø."
    people = {row.name: row for row in list_entities(container, "person")}
    assert set(people) == {"Nic Ø.", "Søren Ølgaard", "Mía Peña"}  # no placeholder "Me", no contact "Nic Ø."


def test_facebook_export_owner_is_the_owner_not_a_contact(tmp_path, container):
    root = tmp_path / "facebook-nic-2024"
    split_chat(root)
    group_chat(root)
    report = ingest(container, [root])
    assert report.records_added == 9 + 6 and not report.errors
    me = owner_entity(container)
    assert me is not None and me[1] == "Nic Owner"
    with container.db.session() as s:
        people = {e.canonical_name for e in s.exec(select(Entity).where(Entity.kind == "person")).all()}
        assert people == {"Nic Owner", "José Müller", "Zoë Ålund", "Bob Kray"}
        mine = s.exec(select(Record.text).where(Record.sender_entity_id == me[0])).all()
        assert sorted(mine) == ["", "", "regatta note 1", "regatta note 3", "regatta note 5", "regatta note 7"]
        # José's messages were to the owner
        jose = find_entity(container, "José Müller").id
        to_me = s.exec(select(RecordEntity.record_id).join(Record, Record.id == RecordEntity.record_id).where(
            Record.sender_entity_id == jose, RecordEntity.entity_id == me[0], RecordEntity.role == "member")).all()
        assert len(to_me) == 5
    out = CliRunner().invoke(main, ["ask", "who do I talk to most on Messenger?"], catch_exceptions=False).output
    assert "Nic Owner" not in out.split("\n")[0] and "José Müller" in out
    out = CliRunner().invoke(main, ["ask", "tide tables"], catch_exceptions=False).output
    assert "Tide tables for Cascais" in out


def test_owner_placeholder_from_an_earlier_import_takes_the_account_holders_name(tmp_path, container):
    db = tmp_path / "chat.db"
    conn = sqlite3.connect(db)
    conn.executescript("""
        CREATE TABLE handle (ROWID INTEGER PRIMARY KEY, id TEXT, country TEXT, service TEXT);
        CREATE TABLE chat (ROWID INTEGER PRIMARY KEY, guid TEXT, chat_identifier TEXT, display_name TEXT);
        CREATE TABLE chat_handle_join (chat_id INTEGER, handle_id INTEGER);
        CREATE TABLE chat_message_join (chat_id INTEGER, message_id INTEGER);
        CREATE TABLE message (ROWID INTEGER PRIMARY KEY, guid TEXT, text TEXT, handle_id INTEGER, date INTEGER,
                              is_from_me INTEGER, service TEXT);
        INSERT INTO handle VALUES (1, '+14155550100', 'us', 'iMessage');
        INSERT INTO chat VALUES (1, 'iMessage;-;+14155550100', '+14155550100', NULL);
        INSERT INTO chat_handle_join VALUES (1, 1);
        INSERT INTO message VALUES (1, 'g1', 'Dinner at Zuni on Friday?', 1, 483789600, 0, 'iMessage');
        INSERT INTO chat_message_join VALUES (1, 1);
    """)
    conn.commit()
    conn.close()
    assert ingest(container, [db]).records_added == 1
    assert owner_entity(container)[1] == "Me"  # nothing named the owner yet
    ingest(container, [split_chat(tmp_path / "facebook-nic")[0].parent])
    me = owner_entity(container)
    assert me[1] == "Nic Owner"
    with container.db.session() as s:
        assert not s.exec(select(Entity).where(Entity.canonical_name == "Nic Owner",
                                               Entity.is_owner.is_(False))).all()


def old_chat_db(path: Path) -> Path:
    """A macOS 10.12-style chat.db: no attributedBody, dates in seconds since 2001 (one row already in
    nanoseconds), the same person as +14155550100 (iMessage) and 4155550100 (SMS, country us), a named group with
    three handles, a photo-only message (U+FFFC), a tapback, and an unsent (retracted) message."""
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE handle (ROWID INTEGER PRIMARY KEY, id TEXT NOT NULL, country TEXT, service TEXT);
        CREATE TABLE chat (ROWID INTEGER PRIMARY KEY, guid TEXT, style INTEGER, chat_identifier TEXT,
                           display_name TEXT);
        CREATE TABLE chat_handle_join (chat_id INTEGER, handle_id INTEGER);
        CREATE TABLE chat_message_join (chat_id INTEGER, message_id INTEGER);
        CREATE TABLE message (ROWID INTEGER PRIMARY KEY, guid TEXT, text TEXT, handle_id INTEGER, date INTEGER,
                              is_from_me INTEGER, service TEXT, associated_message_type INTEGER DEFAULT 0,
                              date_retracted INTEGER DEFAULT 0, cache_has_attachments INTEGER DEFAULT 0);
        CREATE TABLE attachment (ROWID INTEGER PRIMARY KEY, filename TEXT, mime_type TEXT, transfer_name TEXT);
        CREATE TABLE message_attachment_join (message_id INTEGER, attachment_id INTEGER);
        INSERT INTO handle VALUES (1, '+14155550100', 'us', 'iMessage'), (2, '4155550100', 'us', 'SMS'),
                                  (3, 'ana@example.com', NULL, 'iMessage');
        INSERT INTO chat VALUES (1, 'iMessage;-;+14155550100', 45, '+14155550100', ''),
                                (2, 'SMS;-;4155550100', 45, '4155550100', NULL),
                                (3, 'iMessage;+;chat42', 43, 'chat42', 'Book Club');
        INSERT INTO chat_handle_join VALUES (1, 1), (2, 2), (3, 1), (3, 3);
        INSERT INTO message VALUES
            (1, 'g1', 'Hi, it''s Dana with a new number', 1, 483789600, 0, 'iMessage', 0, 0, 0),
            (2, 'g2', 'Saved it, Dana', 0, 483789660, 1, 'iMessage', 0, 0, 0),
            (3, 'g3', 'Running late for the Fillmore show', 2, 483789720, 0, 'SMS', 0, 0, 0),
            (4, 'g4', char(65532), 2, 483789780, 0, 'SMS', 0, 0, 1),
            (5, 'g5', 'Loved “Running late for the Fillmore show”', 0, 483789790, 1, 'SMS', 2000, 0, 0),
            (6, 'g6', 'Next book: The Overstory', 3, 483789840000000000, 0, 'iMessage', 0, 0, 0),
            (7, 'g7', NULL, 0, 483789900000000000, 1, 'iMessage', 0, 483789960000000000, 0);
        INSERT INTO chat_message_join VALUES (1, 1), (1, 2), (2, 3), (2, 4), (2, 5), (3, 6), (3, 7);
        INSERT INTO attachment VALUES (1, '~/Library/Messages/Attachments/IMG_0001.jpeg', 'image/jpeg', 'IMG_0001.jpeg');
        INSERT INTO message_attachment_join VALUES (4, 1);
    """)
    conn.commit()
    conn.close()
    return path


def test_old_chat_db_one_person_in_any_phone_format(tmp_path, container):
    from ingestors.imessage import IMessageIngestor

    db = old_chat_db(tmp_path / "chat.db")
    got = [r for r in IMessageIngestor().read(db) if isinstance(r, Rec)]
    assert [r.external_id for r in got] == ["g1", "g2", "g3", "g4", "g6", "g7"]  # the tapback is no message
    assert got[0].sent_at == datetime(2016, 5, 1, 10, 0, tzinfo=timezone.utc)  # seconds since 2001
    assert got[4].sent_at == datetime(2016, 5, 1, 10, 4, tzinfo=timezone.utc)  # nanoseconds since 2001
    assert got[3].text == "" and "photo" in got[3].notes
    assert got[5].text == "" and "unsent" in got[5].notes and got[5].attrs["is_from_me"]
    assert got[4].attrs["chat_name"] == "Book Club"
    assert ingest(container, [db]).records_added == 6
    dana = find_entity(container, "+1 (415) 555-0100")
    assert find_entity(container, "4155550100").id == dana.id == find_entity(container, "(415) 555-0100").id
    with container.db.session() as s:
        assert len(s.exec(select(Record.id).where(Record.sender_entity_id == dana.id)).all()) == 3
    out = CliRunner().invoke(main, ["ask", "who is 4155550100?"], catch_exceptions=False).output
    # "Hi, it's Dana with a new number": the number is named Dana (stop 25: core.graph.introductions)
    assert out.startswith("Dana (+14155550100)") and "found nothing" not in out


def test_a_lone_surrogate_or_a_cut_emoji_costs_one_character_not_the_file(tmp_path, container):
    from ingestors.messenger import fix_mojibake

    path = tmp_path / "messages" / "inbox" / "ana_1" / "message_1.json"
    path.parent.mkdir(parents=True)
    # written by hand: json.dumps would not write a lone surrogate escape
    path.write_text('{"participants": [{"name": "Ana Lima"}, {"name": "Nic Owner"}], "title": "Ana Lima", '
                    '"messages": [{"sender_name": "Ana Lima", "timestamp_ms": 1600000000000, '
                    '"content": "broken emoji \\ud83d at the fjord"}, '
                    '{"sender_name": "Nic Owner", "timestamp_ms": 1599999990000, '
                    '"content": "Caf\\u00c3\\u00a9 at Bryggen \\u00f0\\u009f\\u0098"}]}')
    got = records(path)
    assert [r.text for r in got] == ["Café at Bryggen \ufffd", "broken emoji \ufffd at the fjord"]
    assert fix_mojibake("Zoë") == "Zoë" and fix_mojibake("Noël et Zoë") == "Noël et Zoë"  # not mojibake: kept
    assert Rec("f", "1", "chat", "a \udc00").text == "a \ufffd"
    report = ingest(container, [path])
    assert report.records_added == 2 and not report.errors
    out = CliRunner().invoke(main, ["ask", "fjord"], catch_exceptions=False).output
    assert "at the fjord" in out


def test_encrypted_chats_group_after_a_chat_of_two_in_the_same_folder(tmp_path):
    folder = tmp_path / "messages" / "e2ee"
    ing = MessengerIngestor()
    one = write(folder / "JoaoSilva_12.json", {
        "participants": ["João Silva", "Nic Owner"], "threadName": "João Silva",
        "messages": [{"senderName": "João Silva", "text": "Olá", "timestamp": 1700000000000, "isUnsent": False}]})
    group = write(folder / "Surfers_99.json", {
        "participants": ["João Silva", "Ana Lima", "Nic Owner"], "threadName": "Surfers",
        "messages": [{"senderName": "Nic Owner", "text": "Waves at Ericeira tomorrow", "timestamp": 1700000100000,
                      "isUnsent": False}]})
    assert [r.attrs.get("owner_name") for r in records(group)] == [None]  # alone, a group does not say
    assert [r.attrs["owner_name"] for r in records(one, ing)] == ["Nic Owner"]
    got = records(group, ing)
    assert [(r.attrs.get("owner_name"), r.attrs.get("is_from_me")) for r in got] == [("Nic Owner", True)]


def test_a_file_cut_short_keeps_the_whole_messages_before_the_cut(tmp_path, container):
    from ingestors.base import RecordError

    data = {"participants": [{"name": "Ana Lima"}, {"name": "Nic Owner"}], "messages": [  # newest first
        {"sender_name": "Ana Lima", "timestamp_ms": T0 + 300_000, "content": "third: meet at the harbour"},
        {"sender_name": "Nic Owner", "timestamp_ms": T0 + 200_000, "content": meta("second: café")},
        {"sender_name": "Ana Lima", "timestamp_ms": T0 + 100_000, "content": "first"}], "title": "Ana Lima"}
    text = json.dumps(data)
    path = tmp_path / "messages" / "inbox" / "ana_1" / "message_1.json"
    path.parent.mkdir(parents=True)
    path.write_text(text[:text.index('"first"') + 4])  # the copy stopped inside the oldest message
    items = list(MessengerIngestor().read(path))
    assert [i.text for i in items if isinstance(i, Rec)] == ["second: café", "third: meet at the harbour"]
    assert isinstance(items[-1], RecordError) and "2 messages before it were read" in items[-1].reason
    broken = tmp_path / "b" / "message_1.json"  # an invalid escape: repaired, every message kept
    broken.parent.mkdir()
    broken.write_text(text.replace("third: meet", "third:\\x20meet"))
    got = [i for i in MessengerIngestor().read(broken)]
    assert [i.text for i in got] == ["first", "second: café", "third: meet at the harbour"]
    assert all("file repaired: 1 invalid escape fixed in message_1.json" in i.notes for i in got)
    report = ingest(container, [path])
    assert report.records_added == 2 and len(report.errors) == 1
    out = CliRunner().invoke(main, ["ask", "harbour"], catch_exceptions=False).output
    assert "meet at the harbour" in out


def test_meta_html_export_says_to_download_json(tmp_path):
    from ingestors.registry import ingestor_for, unsupported_reason

    page = tmp_path / "messages" / "inbox" / "ana_1" / "message_1.html"
    page.parent.mkdir(parents=True)
    page.write_text('<html><head><meta charset="utf-8" /><title>Ana Lima</title></head><body><div class="_3-96 '
                    '_2pio _2lek _2lel">Ana Lima</div><div>See you at the harbour</div></body></html>')
    assert ingestor_for(page) is None
    assert "Format: JSON" in unsupported_reason(page) and "Facebook or Instagram" in unsupported_reason(page)
    assert unsupported_reason(tmp_path / "index.html") == "unsupported file type: .html"

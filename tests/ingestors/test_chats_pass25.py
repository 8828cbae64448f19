"""Chat exports, fifth pass: a WhatsApp or Telegram chat across the hour the clocks go back, a WhatsApp file starting inside a
message, two Telegram chats of one name exported each alone, Google Chat in a Takeout.  Right values worked out by
hand: in Europe/London on 29 October 2023 the clocks went back at 02:00 BST (01:00 UTC) to 01:00 GMT, so
the wall times 01:00–01:59 happened twice — first at +01:00 (00:00–00:59 UTC), then at +00:00 (01:00–01:59
UTC)."""
from __future__ import annotations

import json
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import pytest

from sqlmodel import select

from app.operations.ingest import ingest
from core.errors import InputError
from core.store.schema import Record as Row
from ingestors.base import Party, Record, RecordError
from ingestors.google_chat import GoogleChatIngestor
from ingestors.registry import ingestor_for
from ingestors.telegram import TelegramIngestor
from ingestors.whatsapp import WhatsAppIngestor

UTC = timezone.utc


def _wa(tmp_path: Path, text: str, name: str = "WhatsApp Chat with X.txt", **kw) -> list:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return list(WhatsAppIngestor(**kw).read(p))


# ----------------------------------------------------------------------------- the hour the clocks go back

def test_a_wall_time_that_happened_twice_keeps_the_files_order(tmp_path):
    items = _wa(tmp_path, "29/10/2023, 01:50 - Anna: before the change\n"
                          "29/10/2023, 01:10 - Bob: after the clocks went back\n"
                          "29/10/2023, 01:40 - Anna: still the second hour\n"
                          "29/10/2023, 02:05 - Bob: later\n", local_timezone="Europe/London")
    assert [r.text for r in items] == ["before the change", "after the clocks went back", "still the second hour",
                                       "later"]
    # 01:50 BST is 00:50 UTC; the 01:10 after it is 01:10 GMT (01:10 UTC), not 01:10 BST (00:10 UTC, 40 minutes
    # before the message above it); 01:40 likewise; 02:05 exists once (GMT)
    assert [r.sent_at.astimezone(UTC) for r in items] == [
        datetime(2023, 10, 29, 0, 50, tzinfo=UTC), datetime(2023, 10, 29, 1, 10, tzinfo=UTC),
        datetime(2023, 10, 29, 1, 40, tzinfo=UTC), datetime(2023, 10, 29, 2, 5, tzinfo=UTC)]
    assert [r.sent_at.utcoffset().total_seconds() for r in items] == [3600, 0, 0, 0]
    assert not any("twice" in n for n in items[0].notes + items[3].notes)
    assert any("happened twice" in n for n in items[1].notes)
    # an import made before this was read stored 01:10 BST: that record is this one, not a new one
    assert items[1].former_sent_at.astimezone(UTC) == datetime(2023, 10, 29, 0, 10, tzinfo=UTC)
    was = Record(items[1].source_path, items[1].external_id, "chat", items[1].text, items[1].former_sent_at,
                 items[1].sender)
    assert was.content_hash in items[1].known_hashes and items[1].content_hash != was.content_hash
    # its own hash, then the hash before the chat was part of it (stop 25: Record.scope)
    assert items[0].former_sent_at is None and items[0].known_hashes == [items[0].content_hash, items[0].file_hash]


def test_a_wall_time_in_the_repeated_hour_in_order_stays_the_first(tmp_path):
    # 01:10 then 01:50, in order: both the first time round (BST), nothing suggests the second
    items = _wa(tmp_path, "29/10/2023, 01:10 - Anna: one\n29/10/2023, 01:50 - Bob: two\n",
                local_timezone="Europe/London")
    assert [r.sent_at.astimezone(UTC) for r in items] == [datetime(2023, 10, 29, 0, 10, tzinfo=UTC),
                                                          datetime(2023, 10, 29, 0, 50, tzinfo=UTC)]
    assert not any("twice" in n for r in items for n in r.notes)



def test_telegram_times_without_an_instant_in_the_repeated_hour_keep_the_files_order(tmp_path):
    from ingestors.telegram_html import TelegramHtmlIngestor
    from tests.ingestors.test_telegram_html import message, page, text

    # messages.html writes London's standard offset ('UTC') even in summer: 01:50 then 01:10 on 29 October 2023
    # are 00:50 UTC (BST) and 01:10 UTC (GMT, after the change), as in the WhatsApp test above
    html = tmp_path / "ChatExport_2023-11-01" / "messages.html"
    html.parent.mkdir()
    html.write_text(page("Dawn patrol",
                         message(1, "29.10.2023 01:50:00 UTC", "01:50", "Ana Lima", text("before the change")),
                         message(2, "29.10.2023 01:10:00 UTC", "01:10", "Bruno Costa", text("after it"))),
                    encoding="utf-8")
    items = list(TelegramHtmlIngestor(local_timezone="Europe/London").read(html))
    assert [r.sent_at.astimezone(UTC) for r in items] == [datetime(2023, 10, 29, 0, 50, tzinfo=UTC),
                                                          datetime(2023, 10, 29, 1, 10, tzinfo=UTC)]
    # an old result.json (no date_unixtime: the wall time only) likewise
    p = tmp_path / "result.json"
    p.write_text(json.dumps({"name": "Dawn patrol", "type": "private_group", "id": 9, "messages": [
        {"id": 1, "type": "message", "date": "2023-10-29T01:50:00", "from": "Ana Lima", "from_id": 1, "text": "a"},
        {"id": 2, "type": "message", "date": "2023-10-29T01:10:00", "from": "Bruno Costa", "from_id": 2, "text": "b"},
    ]}), encoding="utf-8")
    items = list(TelegramIngestor(local_timezone="Europe/London").read(p))
    assert [r.sent_at.astimezone(UTC) for r in items] == [datetime(2023, 10, 29, 0, 50, tzinfo=UTC),
                                                          datetime(2023, 10, 29, 1, 10, tzinfo=UTC)]
    assert any("happened twice" in n for n in items[1].notes)

# ----------------------------------------------------------------------------- a file starting inside a message

MID = ("and the second reason is the price\n"
       "which is too high for the Harbour Hall\n"
       "\n"
       "12/03/2023, 14:05 - Anna: ok, fair\n"
       "12/03/2023, 14:06 - Bob: so no?\n")


def test_a_file_starting_inside_a_message_keeps_its_first_lines(tmp_path, container):
    p = tmp_path / "WhatsApp Chat with Anna.txt"
    p.write_text(MID, encoding="utf-8")
    assert WhatsAppIngestor().sniff(p, p.read_bytes()) == 0.7 and ingestor_for(p).name == "whatsapp"
    items = list(WhatsAppIngestor().read(p))
    # the two lines above the first header are the end of a message whose header was cut off: kept, by nobody
    # known, at no known time (before 14:05 on 12 March); the messages after them are as before
    assert [(r.external_id, r.sender, r.sent_at, r.text) for r in items] == [
        ("line 1", None, None, "and the second reason is the price\nwhich is too high for the Harbour Hall"),
        ("line 4", Party("Anna", None, "phone", "from"), datetime(2023, 3, 12, 14, 5, tzinfo=UTC), "ok, fair"),
        ("line 5", Party("Bob", None, "phone", "from"), datetime(2023, 3, 12, 14, 6, tzinfo=UTC), "so no?")]
    assert "the file starts inside a message" in items[0].notes[0]
    assert items[0].attrs["before"] == "2023-03-12T14:05:00+00:00"
    assert items[0].recipients == [Party("Anna", None, "phone", "member"), Party("Bob", None, "phone", "member")]
    assert items[1].attrs["owner_name"] == "Bob" and items[0].attrs["owner_name"] == "Bob"
    report = ingest(container, [p])
    assert report.errors == []
    with container.db.session() as s:
        assert s.exec(select(Row).where(Row.text.contains("Harbour Hall"))).first() is not None


def test_text_then_one_header_line_is_still_no_chat(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_text("Dear diary: nothing to see\nhad lunch\n01/02/24, 09:00 - Ana: hi\n", encoding="utf-8")
    assert WhatsAppIngestor().sniff(p, p.read_bytes()) == 0.0
    with pytest.raises(InputError, match="not a WhatsApp chat export"):
        list(WhatsAppIngestor().read(p))
    # more than 20 lines of text before the headers: no chat export either
    p.write_text("".join(f"line {i} of my notes\n" for i in range(21)) + MID.split("\n\n")[1], encoding="utf-8")
    assert WhatsAppIngestor().sniff(p, p.read_bytes()) == 0.0
    with pytest.raises(InputError, match="not a WhatsApp chat export"):
        list(WhatsAppIngestor().read(p))


# ----------------------------------------------------------------------------- Telegram: two chats of one name

def _family(chat_id: int, texts: list[tuple[int, str, int, str]]) -> str:
    """A single-chat result.json of a supergroup called 'Family' ((id, sender, unix time, text) messages)."""
    return json.dumps({"name": "Family", "type": "private_supergroup", "id": chat_id, "messages": [
        {"id": mid, "type": "message", "date": datetime.fromtimestamp(unix, UTC).replace(tzinfo=None).isoformat(),
         "date_unixtime": str(unix), "from": who, "from_id": "user7", "text": words}
        for mid, who, unix, words in texts]})


def test_two_chats_of_one_name_exported_each_alone_keep_every_message(tmp_path, container):
    # two supergroups called 'Family' (each numbers its messages from 1), Mum in both, exported one by one
    lisbon = tmp_path / "ChatExport_2023-05-01" / "result.json"
    oslo = tmp_path / "ChatExport_2023-05-02" / "result.json"
    lisbon.parent.mkdir(), oslo.parent.mkdir()
    # 1682935200 is 2023-05-01T10:00:00Z (0 s into its quarter hour); 1682935333 is 10:02:13 (133 s)
    lisbon.write_text(_family(111, [(5, "Mum", 1682935200, "Dinner in Lisbon on Sunday")]), encoding="utf-8")
    oslo.write_text(_family(222, [(5, "Mum", 1682935333, "The cabin in Oslo is booked")]), encoding="utf-8")
    a, b = (list(TelegramIngestor().read(p))[0] for p in (lisbon, oslo))
    assert a.identity != b.identity and a.former_identity == b.former_identity  # the old one took b for a
    assert a.identity.endswith("\x1fq 0") and b.identity.endswith("\x1fq 133")
    assert ingest(container, [lisbon]).records_added == 1
    rep = ingest(container, [oslo])
    assert (rep.records_added, rep.records_skipped) == (1, 0) and not rep.errors  # it was 'already known'
    with container.db.session() as s:
        assert sorted(r.text for r in s.exec(select(Row)).all()) == ["Dinner in Lisbon on Sunday",
                                                                     "The cabin in Oslo is booked"]
    # the same file again adds nothing
    assert ingest(container, [oslo]).records_added == 0


def test_a_telegram_chat_imported_before_the_identity_held_its_time_is_still_known(tmp_path):
    p = tmp_path / "result.json"
    p.write_text(_family(111, [(5, "Mum", 1682935200, "Dinner in Lisbon on Sunday")]), encoding="utf-8")
    r = list(TelegramIngestor().read(p))[0]
    old = Record(r.source_path, r.external_id, r.kind, r.text, r.sent_at, r.sender, identity=r.former_identity)
    # an earlier version stored the record under its identity without the time: that hash counts as known
    assert old.content_hash in r.known_hashes and r.content_hash != old.content_hash



def test_saved_messages_as_json_and_as_html_are_one_set_and_the_owners(tmp_path, container):
    from ingestors.telegram_html import TelegramHtmlIngestor
    from tests.ingestors.test_telegram_html import message, page, text

    # result.json writes no name for the account holder's own chat (type saved_messages), messages.html titles it
    # 'Saved messages': the JSON records had no identity, so the HTML export of it came twice; and its one poster
    # is the account holder (1678813331 is 2023-03-14T17:02:11Z, 18:02:11 at UTC+01:00)
    data = {"type": "saved_messages", "id": 5001, "messages": [
        {"id": 11, "type": "message", "date": "2023-03-14T18:02:11", "date_unixtime": "1678813331",
         "from": "Nic Owner", "from_id": "user5001", "text": "passport number is in the blue folder"}]}
    p = tmp_path / "ChatExport_json" / "result.json"
    p.parent.mkdir()
    p.write_text(json.dumps(data), encoding="utf-8")
    html = tmp_path / "ChatExport_html" / "messages.html"
    html.parent.mkdir()
    html.write_text(page("Saved messages", message(11, "14.03.2023 18:02:11 UTC+01:00", "18:02", "Nic Owner",
                                                   text("passport number is in the blue folder"))), encoding="utf-8")
    [a] = list(TelegramIngestor().read(p))
    [b] = list(TelegramHtmlIngestor().read(html))
    assert a.identity == b.identity and a.identity is not None
    assert a.attrs.get("is_from_me") is True and b.attrs.get("is_from_me") is True
    assert a.attrs["chat_name"] == "Saved Messages"
    assert ingest(container, [p]).records_added == 1
    rep = ingest(container, [html])
    assert (rep.records_added, rep.records_skipped) == (0, 1)

# ----------------------------------------------------------------------------- Google Chat in a Takeout
# Google Chat/Groups/<DM or Space>/messages.json beside group_info.json, the account holder in
# Google Chat/Users/User <id>/user_info.json: Telegram's reader took messages.json for its own and kept every
# message with no sender and no time.

ANN = {"name": "Ann Lee", "email": "ann@example.com", "user_type": "Human"}
BOB = {"name": "Bob Roy", "email": "bob@example.com", "user_type": "Human"}


def _takeout(root: Path) -> Path:
    chat = root / "Takeout" / "Google Chat"
    dm = chat / "Groups" / "DM 8i2fRMAAAAE"
    dm.mkdir(parents=True)
    (chat / "Users" / "User 1045").mkdir(parents=True)
    (chat / "Users" / "User 1045" / "user_info.json").write_text(json.dumps(
        {"user": BOB, "membership_info": [{"group_name": "", "group_id": "DM 8i2fRMAAAAE"}]}), encoding="utf-8")
    (dm / "group_info.json").write_text(json.dumps({"members": [ANN, BOB]}), encoding="utf-8")
    (dm / "messages.json").write_text(json.dumps({"messages": [
        {"creator": ANN, "created_date": "Monday, March 4, 2024 at 10:00:00\u202fAM UTC",
         "text": "Lunch at the Harbour Hall on Friday?", "topic_id": "t1", "message_id": "8i2fRMAAAAE/t1/t1"},
        {"creator": BOB, "created_date": "Monday, March 4, 2024 at 10:02:13\u202fPM UTC", "text": "Yes! Booked it",
         "topic_id": "t2", "message_id": "8i2fRMAAAAE/t2/t2",
         "attached_files": [{"original_name": "menu.pdf", "export_name": "File-menu.pdf"}]},
        {"creator": ANN, "created_date": "Tuesday, March 5, 2024 at 8:15:00\u202fAM UTC", "text": "",
         "topic_id": "t3", "message_id": "8i2fRMAAAAE/t3/t3", "deletion_metadata": {"deletion_type": "CREATOR"}},
    ]}, indent=2), encoding="utf-8")
    return dm / "messages.json"


def test_a_google_chat_conversation_is_read_with_its_senders_and_times(tmp_path):
    path = _takeout(tmp_path)
    assert ingestor_for(path).name == "googlechat"  # not Telegram's reader
    assert ingestor_for(path.parent / "group_info.json").name == "googlechat"
    items = list(GoogleChatIngestor().read(path))
    # 10:00:00 AM UTC; 10:02:13 PM is 22:02:13; 8:15:00 AM the next day
    assert [(r.external_id, r.sender, r.sent_at, r.text) for r in items] == [
        ("8i2fRMAAAAE/t1/t1", Party("Ann Lee", "ann@example.com"), datetime(2024, 3, 4, 10, 0, tzinfo=UTC),
         "Lunch at the Harbour Hall on Friday?"),
        ("8i2fRMAAAAE/t2/t2", Party("Bob Roy", "bob@example.com"), datetime(2024, 3, 4, 22, 2, 13, tzinfo=UTC),
         "Yes! Booked it"),
        ("8i2fRMAAAAE/t3/t3", Party("Ann Lee", "ann@example.com"), datetime(2024, 3, 5, 8, 15, tzinfo=UTC), "")]
    assert items[0].recipients == [Party("Bob Roy", "bob@example.com", "email", "member")]
    assert items[1].notes == ["attachment: menu.pdf"] and items[2].notes == ["deleted"]
    # the account holder (user_info.json) is Bob: the owner, his own message is from him
    assert [r.attrs.get("is_from_me") for r in items] == [None, True, None]
    assert {r.attrs["owner_name"] for r in items} == {"Bob Roy"}
    assert {r.thread for r in items} == {"googlechat:dm 8i2frmaaaae"}
    assert list(GoogleChatIngestor().read(path.parent / "group_info.json")) == []


def test_a_date_in_the_accounts_language_is_read(tmp_path):
    path = tmp_path / "Groups" / "Space AAAA" / "messages.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"messages": [
        {"creator": ANN, "created_date": "lundi 4 mars 2024 à 22:05:09 UTC", "text": "à vendredi"}]}), encoding="utf-8")
    [r] = list(GoogleChatIngestor().read(path))
    assert r.sent_at == datetime(2024, 3, 4, 22, 5, 9, tzinfo=UTC) and r.sender.name == "Ann Lee"
    assert r.recipients == [] and r.external_id == "#1"


def test_a_takeout_zip_holding_google_chat_imports_it(tmp_path, container):
    _takeout(tmp_path / "t")
    archive = tmp_path / "takeout-20240401T000000Z-001.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in sorted((tmp_path / "t").rglob("*")):
            if f.is_file():
                z.write(f, f.relative_to(tmp_path / "t").as_posix())
    report = ingest(container, [archive])
    assert report.errors == [] and report.records_added == 3
    with container.db.session() as s:
        row = s.exec(select(Row).where(Row.text == "Lunch at the Harbour Hall on Friday?")).one()
        bobs = s.exec(select(Row).where(Row.text == "Yes! Booked it")).one()
    assert row.sender_entity_id is not None
    # in the zip the side files are not beside messages.json on disk: they are read first, so Bob, the account
    # holder (user_info.json, listed after the conversation), is still the owner
    assert bobs.attrs.get("is_from_me") is True and bobs.attrs.get("owner_name") == "Bob Roy"


def test_another_programs_json_with_a_messages_list_is_no_telegram_export(tmp_path):
    # DiscordChatExporter's JSON: a "messages" list whose items Telegram never writes (no date, date_unixtime,
    # from_id): it was read as Telegram, each message kept with no sender and no time; now the file is refused,
    # named, with why
    p = tmp_path / "Friends - general [2].json"
    p.write_text(json.dumps({"guild": {"id": "1", "name": "Friends"}, "channel": {"id": "2", "name": "general"},
                             "messages": [{"id": "3", "type": "Default", "timestamp": "2024-03-04T10:00:00+00:00",
                                           "content": "Harbour Hall at 8?",
                                           "author": {"id": "4", "name": "ann"}}]}), encoding="utf-8")
    with pytest.raises(InputError, match="not a Telegram export: its messages have no 'date'") as caught:
        list(TelegramIngestor().read(p))
    assert caught.value.path == str(p)



# ----------------------------------------------------------------------------- WhatsApp: day/month order

def test_a_real_line_of_another_shape_settles_the_day_month_order(tmp_path):
    # every Android line could be either way (01/02 … 03/02), the 'AM' marker's locale says month-first; the
    # iOS-shaped line at the top is Ann's (she writes in the file) and its 13/01/2023 exists only day-first,
    # before 1 February: the file is day-first — it was read month-first (2 January, 2 February, 2 March) and
    # Ann's line, impossible month-first, was text of no one
    items = _wa(tmp_path, "[13/01/2023, 7:02:11 PM] Ann: Lisbon photos coming\n"
                          "01/02/2023, 9:00 AM - Bob: hi\n02/02/2023, 10:00 AM - Ann: yo\n"
                          "03/02/2023, 11:00 AM - Bob: ok\n")
    assert [(r.sent_at, r.sender.name, r.text) for r in items] == [
        (datetime(2023, 1, 13, 19, 2, 11, tzinfo=UTC), "Ann", "Lisbon photos coming"),
        (datetime(2023, 2, 1, 9, 0, tzinfo=UTC), "Bob", "hi"), (datetime(2023, 2, 2, 10, 0, tzinfo=UTC), "Ann", "yo"),
        (datetime(2023, 2, 3, 11, 0, tzinfo=UTC), "Bob", "ok")]
    assert {(r.attrs["date_order"], r.attrs["date_order_basis"]) for r in items} == {("DMY", "dates")}
    # an import before this read Bob's 'hi' on 2 January: that record is this one
    assert items[1].former_sent_at == datetime(2023, 1, 2, 9, 0, tzinfo=UTC) and items[0].former_sent_at is None


def test_a_pasted_line_of_another_shape_by_someone_else_does_not_vote(tmp_path):
    # Jonas never writes in this file: his pasted line says nothing of this phone's order (the locale decides)
    items = _wa(tmp_path, "01/02/2023, 9:00 AM - Bob: look\n[13/01/2023, 7:02:11 PM] Jonas: selling my bike\n"
                          "02/02/2023, 10:00 AM - Ann: yo\n")
    assert {(r.attrs["date_order"], r.attrs["date_order_basis"]) for r in items} == {("MDY", "locale")}

# ----------------------------------------------------------------------------- WhatsApp: the export's own name

@pytest.mark.parametrize("name", ["WhatsApp Chat with Ana Lopez (1).txt", "WhatsApp Chat with Ana Lopez(2).txt",
                                  "WhatsApp-Chat mit Ana Lopez - Kopie.txt", "WhatsApp Chat with Ana Lopez copy.txt",
                                  "Chat WhatsApp con Ana Lopez.txt", "Czat WhatsApp z Ana Lopez.txt",
                                  "WhatsApp-chatt med Ana Lopez.txt", "Чат WhatsApp с Ana Lopez.txt"])
def test_a_second_copy_or_another_languages_export_name_still_names_the_chat(tmp_path, name):
    # a browser saving the export twice adds ' (1)', a file manager ' - Copy'/' - Kopie'; Italian, Polish, Swedish
    # and Russian phones name the file their way: the chat is still Ana Lopez's, so Nic (the other) exported it —
    # it was no one's ('Ana Lopez (1)' is not a sender) and the copy was another thread
    items = _wa(tmp_path, "24/12/2022, 18:05 - Ana Lopez: are you coming?\n24/12/2022, 18:06 - Nic Owner: yes\n",
                name=name)
    assert [r.attrs.get("is_from_me") for r in items] == [None, True]
    assert {r.attrs["owner_name"] for r in items} == {"Nic Owner"}
    if "WhatsApp Chat with" in name:
        assert {r.thread for r in items} == {"whatsapp:whatsapp chat with ana lopez"}


def test_a_chat_whose_name_ends_in_a_number_keeps_it(tmp_path):
    items = _wa(tmp_path, "24/12/2022, 18:05 - Ana: a\n24/12/2022, 18:06 - Bo: b\n",
                name="WhatsApp Chat with Team 2.txt")
    assert {r.thread for r in items} == {"whatsapp:whatsapp chat with team 2"}


# ----------------------------------------------------------------------------- Hangouts in a Takeout

def _hangouts_conversation() -> tuple[dict, list]:
    conv = {"id": {"id": "UgxAAA"}, "type": "STICKY_ONE_TO_ONE",
            "self_conversation_state": {"self_read_state": {"participant_id": {"gaia_id": "111", "chat_id": "111"}}},
            "participant_data": [{"id": {"gaia_id": "111", "chat_id": "111"}, "fallback_name": "Nic Owner"},
                                 {"id": {"gaia_id": "222", "chat_id": "222"}, "fallback_name": "Ann Lee"}]}
    events = [  # listed out of time order, as Takeout may
        {"sender_id": {"gaia_id": "111"}, "timestamp": "1355997660000000", "event_id": "7-e2",
         "event_type": "REGULAR_CHAT_MESSAGE", "chat_message": {"message_content": {"segment": [
             {"type": "TEXT", "text": "yes,"}, {"type": "LINE_BREAK", "text": "\n"}, {"type": "TEXT", "text": "by the door"}]}}},
        {"sender_id": {"gaia_id": "222"}, "timestamp": "1355997600000000", "event_id": "7-e1",
         "event_type": "REGULAR_CHAT_MESSAGE", "chat_message": {"message_content": {"segment": [
             {"type": "TEXT", "text": "are you at the "}, {"type": "LINK", "text": "Harbour Hall"},
             {"type": "TEXT", "text": "?"}]}}},
        {"sender_id": {"gaia_id": "222"}, "timestamp": "1355997700000000", "event_id": "7-e3",
         "event_type": "HANGOUT_EVENT", "hangout_event": {"event_type": "END_HANGOUT"}},
        {"sender_id": {"gaia_id": "222"}, "timestamp": "1355997800000000", "event_id": "7-e4",
         "event_type": "REGULAR_CHAT_MESSAGE", "chat_message": {"message_content": {"attachment": [
             {"embed_item": {"plus_photo": {"url": "https://example.org/p.jpg"}}}]}}},
    ]
    return conv, events


@pytest.mark.parametrize("layout", ["2018", "2014"])
def test_a_hangouts_takeout_is_read_as_each_persons_messages(tmp_path, container, layout):
    from ingestors.hangouts import HangoutsIngestor

    conv, events = _hangouts_conversation()
    data = ({"conversations": [{"conversation": {"conversation_id": {"id": "UgxAAA"}, "conversation": conv},
                                "events": events}]} if layout == "2018" else
            {"continuation_end_timestamp": "0", "conversation_state": [
                {"conversation_id": {"id": "UgxAAA"},
                 "conversation_state": {"conversation_id": {"id": "UgxAAA"}, "conversation": conv, "event": events}}]})
    path = tmp_path / "Takeout" / "Hangouts" / "Hangouts.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    assert ingestor_for(path).name == "hangouts"  # it was 'unsupported file type: .json'
    items = list(HangoutsIngestor().read(path))
    # 1355997600000000 µs is 2012-12-20T10:00:00Z; time order, not the file's; the call ending is an event of
    # the next record; the photo-only message is a record with no words
    ann, nic = Party("Ann Lee", "gaia:222", "handle", "from"), Party("Nic Owner", "gaia:111", "handle", "from")
    assert [(r.external_id, r.sender, r.sent_at, r.text) for r in items] == [
        ("7-e1", ann, datetime(2012, 12, 20, 10, 0, tzinfo=UTC), "are you at the Harbour Hall?"),
        ("7-e2", nic, datetime(2012, 12, 20, 10, 1, tzinfo=UTC), "yes,\nby the door"),
        ("7-e4", ann, datetime(2012, 12, 20, 10, 3, 20, tzinfo=UTC), "")]
    assert [r.attrs.get("is_from_me") for r in items] == [None, True, None]
    assert {r.attrs["owner_name"] for r in items} == {"Nic Owner"} and {r.thread for r in items} == {"hangouts:UgxAAA"}
    assert items[2].notes == ["attachment"] and items[2].attrs["system_events"][0]["type"] == "HANGOUT_EVENT"
    assert items[0].recipients == [Party("Nic Owner", "gaia:111", "handle", "member")]
    assert ingest(container, [path]).errors == []


def test_a_hangouts_file_cut_short_keeps_the_conversations_before_the_cut(tmp_path):
    from ingestors.hangouts import HangoutsIngestor

    conv, events = _hangouts_conversation()
    one = {"conversation": {"conversation_id": {"id": "UgxAAA"}, "conversation": conv}, "events": events}
    text = json.dumps({"conversations": [one, one]})
    path = tmp_path / "Hangouts.json"
    path.write_text(text[:len(text) - 200], encoding="utf-8")
    items = list(HangoutsIngestor().read(path))
    assert [type(i).__name__ for i in items] == ["Record", "Record", "Record", "RecordError"]
    path.write_text("{\"conversations\": [", encoding="utf-8")
    with pytest.raises(InputError, match="not valid JSON|not a Hangouts export"):
        list(HangoutsIngestor().read(path))


def test_a_hangouts_sms_participant_is_their_phone_number(tmp_path):
    from ingestors.hangouts import HangoutsIngestor

    conv, events = _hangouts_conversation()
    # Hangouts' SMS (Google Voice) conversations name the other side by number: the e164 number is the address,
    # so it is the same person as that number's iMessage or WhatsApp contact (it was the gaia id only)
    conv["participant_data"][1] = {"id": {"gaia_id": "222", "chat_id": "222"}, "fallback_name": "+15555550100",
                                   "phone_number": {"e164": "+15555550100", "i18n_data": {"country_code": 1}}}
    path = tmp_path / "Hangouts.json"
    path.write_text(json.dumps({"conversations": [{"conversation": {"conversation_id": {"id": "UgxAAA"},
                                                                    "conversation": conv}, "events": events}]}),
                    encoding="utf-8")
    items = list(HangoutsIngestor().read(path))
    assert items[0].sender == Party(None, "+15555550100", "phone", "from")
    assert items[1].recipients == [Party(None, "+15555550100", "phone", "member")]


def test_an_ios_polls_lines_keep_no_invisible_direction_marks(tmp_path):
    """iOS writes a poll with a left-to-right mark (U+200E) opening each of its lines; the text kept them
    ('POLL:\\n\\u200eDinner?\\n\\u200eOPTION: Pizza (1 vote)'), so the words could not be matched as typed."""
    from ingestors.whatsapp import WhatsAppIngestor

    p = tmp_path / "_chat.txt"
    p.write_text("[12/03/2023, 14:05:00] Ana Lopez: \u200ePOLL:\n\u200eDinner?\n\u200eOPTION: Pizza (1 vote)\n"
                 "\u200eOPTION: Sushi (0 votes)\n[12/03/2023, 14:06:00] Ben Ode: Pizza!\n", encoding="utf-8")
    first = list(WhatsAppIngestor().read(p))[0]
    assert "\u200e" not in first.text
    assert first.text.endswith("Dinner?\nOPTION: Pizza (1 vote)\nOPTION: Sushi (0 votes)")


def test_a_poll_imported_with_its_marks_before_is_known_again(tmp_path):
    """Imports before the marks were dropped stored the poll's text with them: the record still knows that
    text's hash (former_text), so importing the chat again adds nothing."""
    from ingestors.whatsapp import WhatsAppIngestor

    p = tmp_path / "_chat.txt"
    p.write_text("[12/03/2023, 14:05:00] Ana Lopez: \u200ePOLL:\n\u200eDinner?\n\u200eOPTION: Pizza (1 vote)\n",
                 encoding="utf-8")
    (r,) = list(WhatsAppIngestor().read(p))
    assert r.former_text == "POLL:\n\u200eDinner?\n\u200eOPTION: Pizza (1 vote)"
    assert r._file_hash(r.sent_at, r.former_text) in r.known_hashes and r.content_hash in r.known_hashes

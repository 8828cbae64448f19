"""Chat exports, third pass: header shapes of more locales (Korean two-digit year first, Thai two-digit
Buddhist-era years), contact names holding ": ", iOS's named "document omitted" and Android's view-once
"null"; Telegram full exports (the account holder from ``personal_information``, a call's length, NUL bytes).
Right values worked out by hand: 22. 12. 24. is 24 December 2022 on a Korean phone (CLDR ko short date
``yy. M. d.``); 65 BE is 2565 − 543 = 2022; Unix 1671905100 is 2022-12-24T18:05:00Z."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlmodel import select

from app.operations.ask import ask
from app.operations.ingest import ingest
from core.store.schema import Alias, Entity, Record as Row
from ingestors.base import Party, Record, RecordError
from ingestors.telegram import TelegramIngestor
from ingestors.whatsapp import WhatsAppIngestor

UTC = timezone.utc


def _wa(tmp_path: Path, text: str, name: str = "WhatsApp Chat with X.txt", **kw) -> list:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return list(WhatsAppIngestor(**kw).read(p))


# ----------------------------------------------------------------------------- WhatsApp header shapes

@pytest.mark.parametrize("text, basis", [
    # 12-hour Korean phone: nothing in the dates settles it; 오후 is Korean, whose short date is yy. M. d.
    ("22. 12. 24. 오후 6:05 - 민수: 메리 크리스마스\n22. 12. 25. 오전 9:15 - 지영: 너도\n", "locale"),
    # a one-digit day: as day-first it would be the year 2002, before WhatsApp
    ("22. 12. 24. 18:05 - 민수: 메리 크리스마스\n22. 12. 25. 09:15 - 지영: 너도\n23. 1. 2. 08:00 - 민수: 새해\n", "dates"),
])
def test_korean_two_digit_year_first_dates(tmp_path, text, basis):
    items = _wa(tmp_path, text)
    assert [(r.sent_at, r.sender.name) for r in items][:2] == [
        (datetime(2022, 12, 24, 18, 5, tzinfo=UTC), "민수"), (datetime(2022, 12, 25, 9, 15, tzinfo=UTC), "지영")]
    assert {r.attrs["date_order"] for r in items} == {"YMD"} and items[0].attrs["date_order_basis"] == basis
    if len(items) == 3:
        assert items[2].sent_at == datetime(2023, 1, 2, 8, 0, tzinfo=UTC) and items[2].text == "새해"
        assert items[1].text == "너도"  # the third line is a message, not text of the second


def test_korean_dates_that_only_run_forwards_year_first(tmp_path):
    items = _wa(tmp_path, "22. 12. 24. 18:05 - 민수: a\n22. 12. 25. 09:15 - 지영: b\n23. 01. 12. 09:15 - 지영: c\n")
    # every date is possible day-first too (2024-12-22, 2025-12-22, 2012-01-23), but then they run backwards
    assert [r.sent_at.date().isoformat() for r in items] == ["2022-12-24", "2022-12-25", "2023-01-12"]
    assert items[0].attrs["date_order_basis"] == "chronology"


def test_british_two_digit_years_stay_day_first(tmp_path):
    items = _wa(tmp_path, "22/12/24, 18:05 - Ann: a\n23/12/24, 09:15 - Bob: b\n02/01/25, 10:00 - Ann: c\n")
    assert [r.sent_at.date().isoformat() for r in items] == ["2024-12-22", "2024-12-23", "2025-01-02"]
    assert {r.attrs["date_order"] for r in items} == {"DMY"}


def test_thai_two_digit_buddhist_era_years(tmp_path):
    items = _wa(tmp_path, "24/12/65 18:05 - สมชาย: สวัสดี\n25/12/65 09:00 - มานี: ครับ\n")
    assert [r.sent_at for r in items] == [datetime(2022, 12, 24, 18, 5, tzinfo=UTC),
                                         datetime(2022, 12, 25, 9, 0, tzinfo=UTC)]


@pytest.mark.parametrize("text, when", [
    ("24.12.22, 18:05 - Jörg Müller: Frohe Weihnachten\n", datetime(2022, 12, 24, 18, 5)),
    ("[24/12/2022 à 18:05:09] Éloïse: Joyeux Noël\n", datetime(2022, 12, 24, 18, 5, 9)),
    ("24/12/22, 6:05\u202fp.\u00a0m. - Lucía: Feliz Navidad\n", datetime(2022, 12, 24, 18, 5)),
    ("2022/12/24 下午6:05 - 小明: 圣诞快乐\n", datetime(2022, 12, 24, 18, 5)),
    ("[2022/12/24 午後6:05:00] 太郎: メリークリスマス\n", datetime(2022, 12, 24, 18, 5)),
    ("[24.12.2022, 18:05:00] \u200fדנה\u200f: חג שמח\n", datetime(2022, 12, 24, 18, 5)),
    ("[24/12/2565 18:05:00] สมชาย: สวัสดี\n", datetime(2022, 12, 24, 18, 5)),
    ("2022-12-24, 6:05 p.m. - Kim: merry xmas\n", datetime(2022, 12, 24, 18, 5)),
])
def test_locale_headers_read_in_the_phone_zone(tmp_path, text, when):
    (r,) = _wa(tmp_path, text, local_timezone="Asia/Seoul")
    assert r.sent_at == when.replace(tzinfo=timezone(timedelta(hours=9)))
    assert r.sent_at.astimezone(UTC) == when.replace(tzinfo=UTC) - timedelta(hours=9)
    assert r.sender.name and ":" not in r.sender.name and "\u200f" not in r.sender.name


# ----------------------------------------------------------------------------- WhatsApp names and placeholders

def test_contact_name_holding_a_colon_is_one_sender(tmp_path):
    items = _wa(tmp_path, "24/12/2022, 18:05 - Work: Anna: the report is in the shared folder\n"
                          "24/12/2022, 18:06 - Ana: thanks\n"
                          "24/12/2022, 18:07 - Work: Anna: also booked the Lisbon flight\n")
    assert [(r.sender.name, r.text) for r in items] == [
        ("Work: Anna", "the report is in the shared folder"), ("Ana", "thanks"),
        ("Work: Anna", "also booked the Lisbon flight")]
    assert items[1].recipients == [Party("Work: Anna", None, "phone", "member")]


@pytest.mark.parametrize("first, second", [("Note: bring the tent", "PS: and the stove"),
                                           ("ALERT: door open", "ALERT: door closed"),
                                           ("Reminder: bins tonight", "Reminder: bins tomorrow")])
def test_a_text_starting_with_a_label_is_not_a_name(tmp_path, first, second):
    items = _wa(tmp_path, f"24/12/2022, 18:05 - Ana: {first}\n24/12/2022, 18:06 - Bo: ok\n"
                          f"24/12/2022, 18:07 - Ana: {second}\n")
    assert [(r.sender.name, r.text) for r in items] == [("Ana", first), ("Bo", "ok"), ("Ana", second)]


def test_named_document_omitted_and_view_once(tmp_path):
    items = _wa(tmp_path, "[24/12/2022, 18:05:00] Ana: \u200eTrip plan.pdf \u2022 \u200e3 pages \u200edocument omitted\n"
                          "[24/12/2022, 18:06:00] Bo: Budget.xlsx \u200edocument omitted\n"
                          "[24/12/2022, 18:07:00] Ana: null\n"
                          "[24/12/2022, 18:08:00] Bo: see the pier at 10:30: bring snacks\n")
    assert [(r.sender.name, r.text, r.attrs.get("media"), r.attrs.get("media_name")) for r in items] == [
        ("Ana", "", "omitted", "Trip plan.pdf"), ("Bo", "", "omitted", "Budget.xlsx"),
        ("Ana", "", "omitted", None), ("Bo", "see the pier at 10:30: bring snacks", None, None)]
    assert "media omitted from the export: Trip plan.pdf" in items[0].notes
    assert "media omitted from the export (view once)" in items[2].notes


# ----------------------------------------------------------------------------- Telegram full export

def _full_export() -> dict:
    return {
        "about": "Here is the data you requested.",
        "personal_information": {"user_id": 111, "first_name": "Nic", "last_name": "Owner",
                                 "phone_number": "+44 7700 900001"},
        "chats": {"about": "", "list": [
            {"name": "Ana Lopez", "type": "personal_chat", "id": 222, "messages": [
                {"id": 1, "type": "message", "date": "2022-12-24T19:05:00", "date_unixtime": "1671905100",
                 "from": "Ana Lopez", "from_id": "user222",
                 "text": ["See ", {"type": "bold", "text": "the lighthouse"}, " with ",
                          {"type": "mention", "text": "@nic"}]},
                {"id": 2, "type": "service", "date": "2022-12-24T19:06:00", "date_unixtime": "1671905160",
                 "actor": "Ana Lopez", "actor_id": "user222", "action": "phone_call", "duration_seconds": 125,
                 "discard_reason": "hangup", "text": ""},
                {"id": 3, "type": "message", "date": "2022-12-24T19:10:00", "date_unixtime": "1671905400",
                 "edited": "2022-12-24T19:11:00", "from": "Nic Owner", "from_id": "user111",
                 "text": "Booked the ferry to Texel"},
                {"id": 4, "type": "message", "date": "2022-12-24T19:12:00", "date_unixtime": "1671905520",
                 "from": "Nic Owner", "from_id": "user111", "forwarded_from": "Bram de Vries",
                 "text": "Texel tide tables are out"},
            ]},
            {"name": "Harbour Club", "type": "private_supergroup", "id": 333, "messages": [
                {"id": 12, "type": "message", "date": "2022-12-25T11:02:00", "date_unixtime": "1671962520",
                 "from": None, "from_id": "user999", "text": "the kayak rental closes at noon"},
                {"id": 13, "type": "message", "date": "2022-12-25T11:03:00", "date_unixtime": "1671962580",
                 "from": "Nic Owner", "from_id": "user111", "text": "noted"},
            ]},
        ]},
    }


def _tg(tmp_path: Path, data: bytes) -> list:
    p = tmp_path / "result.json"
    p.write_bytes(data)
    return list(TelegramIngestor().read(p))


def test_full_export_account_holder_calls_and_forwards(tmp_path):
    items = _tg(tmp_path, json.dumps(_full_export(), ensure_ascii=False).encode())
    assert all(isinstance(i, Record) for i in items)
    a, mine, fwd, kayak, noted = items
    assert a.text == "See the lighthouse with @nic" and a.sent_at == datetime(2022, 12, 24, 18, 5, tzinfo=UTC)
    assert a.sent_at.utcoffset() == timedelta(hours=1)  # the export's wall clock: 19:05 at +01:00
    assert a.recipients == [Party("Nic Owner", None, "handle", "member")] and a.attrs["owner_name"] == "Nic Owner"
    assert mine.attrs["is_from_me"] is True and mine.sender == Party("Nic Owner", "user111", "handle", "from")
    assert mine.attrs["system_events"] == [{"id": 2, "at": "2022-12-24T19:06:00+01:00", "actor": "Ana Lopez",
                                            "action": "phone_call", "text": "", "duration_seconds": 125,
                                            "discard_reason": "hangup"}]
    assert "edited" in mine.notes
    assert fwd.sender.name == "Bram de Vries" and "is_from_me" not in fwd.attrs  # the words are Bram's
    assert kayak.sender == Party(None, "user999", "handle", "from")  # a deleted account: its id only
    assert noted.attrs["is_from_me"] is True


def test_account_holder_forwarding_their_own_words_is_the_owner(tmp_path):
    data = _full_export()
    data["chats"]["list"][1]["messages"].append(
        {"id": 14, "type": "message", "date": "2022-12-25T11:04:00", "date_unixtime": "1671962640",
         "from": "Ana Lopez", "from_id": "user222", "forwarded_from": "Nic Owner", "text": "my old note on tides"})
    last = _tg(tmp_path, json.dumps(data).encode())[-1]
    assert last.sender == Party("Nic Owner", "user111", "handle", "from") and last.attrs["is_from_me"] is True
    assert last.attrs["forwarded_by"] == {"name": "Ana Lopez", "id": "user222"}


@pytest.mark.parametrize("damage", ["inside", "outside", "trailing"])
def test_nul_bytes_are_dropped_not_fatal(tmp_path, damage):
    raw = json.dumps(_full_export(), ensure_ascii=False, indent=1).encode()
    raw = {"inside": raw.replace(b"Booked the", b"Booked\x00 the"),
           "outside": raw.replace(b'"id": 3,', b'"id": 3,\x00\x00'),
           "trailing": raw + b"\x00" * 64}[damage]
    items = _tg(tmp_path, raw)
    assert not [i for i in items if isinstance(i, RecordError)]
    assert [r.text for r in items] == ["See the lighthouse with @nic", "Booked the ferry to Texel",
                                      "Texel tide tables are out", "the kayak rental closes at noon", "noted"]
    assert all(any(n.startswith("file repaired:") and "NUL byte" in n for n in r.notes) for r in items)


def test_cut_and_nul_padded_export_keeps_what_came_before(tmp_path):
    raw = json.dumps(_full_export(), ensure_ascii=False).encode()
    raw = raw[: raw.index(b"kayak")] + b"\x00" * 4096  # a crash: the rest of the file is zero bytes
    items = _tg(tmp_path, raw)
    records = [i for i in items if isinstance(i, Record)]
    errors = [i for i in items if isinstance(i, RecordError)]
    assert [r.text for r in records] == ["See the lighthouse with @nic", "Booked the ferry to Texel",
                                        "Texel tide tables are out"]
    assert len(errors) == 1 and "the messages before it were read" in errors[0].reason


# ----------------------------------------------------------------------------- through the import

def test_telegram_owner_is_one_entity_after_a_whatsapp_import(tmp_path, container):
    wa = tmp_path / "WhatsApp Chat with Harbour Club.txt"  # a group: it does not say who exported it
    wa.write_text("24/12/2022, 18:05 - Ana: see you at the harbour\n24/12/2022, 18:06 - Bo: ok\n"
                  "24/12/2022, 18:07 - Cy: me too\n", encoding="utf-8")
    tg = tmp_path / "tg" / "result.json"
    tg.parent.mkdir()
    tg.write_bytes(json.dumps(_full_export(), ensure_ascii=False).encode() + b"\x00" * 16)
    report = ingest(container, [wa])
    report = ingest(container, [tg])
    assert report.errors == []
    with container.db.session() as s:
        owners = s.exec(select(Entity).where(Entity.is_owner.is_(True))).all()
        holders = s.exec(select(Alias.entity_id).where(Alias.kind == "handle", Alias.value == "user111")).all()
        rows = s.exec(select(Row).where(Row.text == "Booked the ferry to Texel")).all()
    assert len(owners) == 1 and set(holders) == {owners[0].id}
    assert owners[0].canonical_name == "Nic Owner"
    assert len(rows) == 1 and rows[0].sender_entity_id == owners[0].id
    assert rows[0].sent_at.replace(tzinfo=UTC) == datetime(2022, 12, 24, 18, 10, tzinfo=UTC) and rows[0].utc_offset == 60
    top = ask(container, "ferry to Texel", k=3)
    assert top and "Booked the ferry to Texel" in top[0].text


def test_korean_and_colon_named_chats_through_the_import(tmp_path, container):
    ko = tmp_path / "WhatsApp Chat with 민수.txt"
    ko.write_text("22. 12. 24. 오후 6:05 - 민수: 부산 해운대에서 만나요\n22. 12. 25. 오전 9:15 - 지영: 좋아요\n",
                  encoding="utf-8")
    work = tmp_path / "WhatsApp Chat with Work Anna.txt"
    work.write_text("24/12/2022, 18:05 - Work: Anna: the quarterly report is in the shared folder\n"
                    "24/12/2022, 18:06 - Ana: thanks\n"
                    "24/12/2022, 18:07 - Work: Anna: also booked the Lisbon flight\n", encoding="utf-8")
    report = ingest(container, [ko, work])
    assert report.errors == []
    with container.db.session() as s:
        rows = {r.text: r for r in s.exec(select(Row)).all()}
        names = {e.id: e.canonical_name for e in s.exec(select(Entity)).all()}
    assert rows["부산 해운대에서 만나요"].sent_at.replace(tzinfo=UTC) == datetime(2022, 12, 24, 18, 5, tzinfo=UTC)
    assert names[rows["also booked the Lisbon flight"].sender_entity_id] == "Work: Anna"
    assert names[rows["thanks"].sender_entity_id] == "Ana"
    top = ask(container, "quarterly report shared folder", k=3)
    assert top and "quarterly report" in top[0].text


def test_asking_a_message_in_its_own_words_finds_it(tmp_path, container):
    wa = tmp_path / "WhatsApp Chat with Ana.txt"
    wa.write_text("24/12/2022, 18:05 - Ana: see you at the pier\n24/12/2022, 18:06 - Bo: ok\n", encoding="utf-8")
    assert ingest(container, [wa]).errors == []
    top = ask(container, "see you at the pier", k=3)  # the whole text, as pasted from the chat
    assert top and top[0].text == "see you at the pier"


@pytest.mark.parametrize("media, deleted, edited", [
    ("\u200f<המדיה לא נכללה>", "\u200fהודעה זו נמחקה", "בסדר <ההודעה נערכה>"),            # Hebrew
    ("<تم استبعاد الوسائط>", "تم حذف هذه الرسالة", "حسنا <تم تعديل هذه الرسالة>"),        # Arabic
    ("<メディアは含まれていません>", "このメッセージは削除されました", "はい <編集済み>"),   # Japanese
    ("<미디어 파일 생략>", "삭제된 메시지입니다", "네 <수정됨>"),                          # Korean
])
def test_placeholders_in_right_to_left_and_east_asian_locales(tmp_path, media, deleted, edited):
    items = _wa(tmp_path, f"24/12/2022, 18:05 - A: {media}\n24/12/2022, 18:06 - B: {deleted}\n"
                          f"24/12/2022, 18:07 - B: {edited}\n")
    assert [(r.text, r.attrs.get("media"), r.attrs.get("deleted"), r.attrs.get("edited")) for r in items] == [
        ("", "omitted", None, None), ("", None, True, None), (edited.split(" <")[0], None, None, True)]


@pytest.mark.parametrize("line", [
    "24/12/2022, 18:06 - Marc a changé le sujet de « Vieux » en « Voyage : Lisbonne »",
    "24/12/2022, 18:06 - Udo hat den Betreff zu „Reise: Rom“ geändert",
    "24/12/2022, 18:06 - 花子が件名を「旅行: 東京」に変更しました",
])
def test_subject_changes_quoting_a_colon_in_any_script_are_events(tmp_path, line):
    items = _wa(tmp_path, f"24/12/2022, 18:05 - Éloïse: salut\n{line}\n24/12/2022, 18:07 - Zoé: ok\n")
    assert [(r.sender.name, r.text) for r in items] == [("Éloïse", "salut"), ("Zoé", "ok")]
    assert items[0].recipients == [Party("Zoé", None, "phone", "member")]  # nobody named after the line
    assert items[1].attrs["system_events"][0]["text"] == line.split(" - ", 1)[1]


def test_undelivered_and_other_omitted_placeholders_are_not_words(tmp_path):
    items = _wa(tmp_path, "24/12/2022, 18:05 - Ana: Waiting for this message. This may take a while.\n"
                          "24/12/2022, 18:06 - Bo: <View once voice message omitted>\n"
                          "24/12/2022, 18:07 - Ana: waiting for the bus, omitted the stop\n")
    assert [(r.text, r.attrs.get("undelivered"), r.attrs.get("media")) for r in items] == [
        ("", True, None), ("", None, "omitted"), ("waiting for the bus, omitted the stop", None, None)]


def test_whatsapp_export_padded_or_holed_with_zero_bytes(tmp_path):
    from ingestors.registry import ingestor_for
    from ingestors.whatsapp import NUL_NOTE

    p = tmp_path / "WhatsApp Chat with Bo.txt"
    p.write_bytes(b"\x00" * 8 + b"24/12/2022, 18:05 - Ana: hi\x00 there\n24/12/2022, 18:06 - Bo: the bakery on Elm street\n"
                  + b"\x00" * 5000)  # a half-synced copy: zero bytes where the rest should be
    assert ingestor_for(p).name == "whatsapp"
    items = list(WhatsAppIngestor().read(p))
    assert [(r.sender.name, r.text) for r in items] == [("Ana", "hi there"), ("Bo", "the bakery on Elm street")]
    assert all(NUL_NOTE in r.notes for r in items)


def test_a_word_of_an_unspaced_script_finds_its_message(tmp_path, container):
    from core.retrieval.lexicon import tokens

    assert tokens("外滩的咖啡馆") == ["外滩", "滩的", "的咖", "咖啡", "啡馆"]
    assert tokens("해수욕장에서 茶") == ["해수", "수욕", "욕장", "장에", "에서", "茶"]
    assert tokens("नमस्ते दोस्त") == ["नमस्ते", "दोस्त"]  # vowel signs belong to their word
    chats = {"zh.txt": "2022/12/24 下午6:05 - 小明: 我们明天在外滩的咖啡馆见面\n2022/12/24 下午6:07 - 小红: 好的，几点？\n",
             "ja.txt": "[2022/12/24 午後6:05:00] 太郎: 明日は浅草の天ぷら屋で会いましょう\n[2022/12/24 午後6:07:00] 花子: いいですね\n",
             "ko.txt": "22. 12. 24. 오후 6:05 - 민수: 내일 해운대 해수욕장에서 만나요\n22. 12. 24. 오후 6:07 - 지영: 좋아요\n"}
    for name, text in chats.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert ingest(container, [tmp_path / n for n in chats]).errors == []
    for asked, found in (("外滩", "我们明天在外滩的咖啡馆见面"), ("咖啡馆", "我们明天在外滩的咖啡馆见面"),
                         ("天ぷら", "明日は浅草の天ぷら屋で会いましょう"), ("해수욕장", "내일 해운대 해수욕장에서 만나요")):
        top = ask(container, asked, k=3)
        assert top and top[0].text == found, asked


def test_who_exported_a_chat_of_two_is_the_owner(tmp_path, container):
    items = _wa(tmp_path, "24/12/2022, 18:05 - Ana Lopez: are you coming to the lantern festival?\n"
                          "24/12/2022, 18:06 - Nic Owner: yes, with Bram\n", name="WhatsApp Chat with Ana Lopez.txt")
    assert [r.attrs.get("is_from_me") for r in items] == [None, True]
    assert {r.attrs["owner_name"] for r in items} == {"Nic Owner"}
    group = _wa(tmp_path, "24/12/2022, 18:05 - Ana: a\n24/12/2022, 18:06 - Bo: b\n24/12/2022, 18:07 - Cy: c\n",
                name="WhatsApp Chat with Trip.txt")
    assert not any("owner_name" in r.attrs or "is_from_me" in r.attrs for r in group)  # a group: nobody's export
    (tmp_path / "WhatsApp Chat with Bo.txt").write_text("25/12/2022, 10:05 - Bo: merry xmas\n"
                                                        "25/12/2022, 10:06 - Nic Owner: you too\n", encoding="utf-8")
    assert ingest(container, [tmp_path / "WhatsApp Chat with Ana Lopez.txt", tmp_path / "WhatsApp Chat with Bo.txt"]).errors == []
    with container.db.session() as s:
        owners = s.exec(select(Entity).where(Entity.is_owner.is_(True))).all()
        mine = s.exec(select(Row).where(Row.text.in_(["yes, with Bram", "you too"]))).all()
    assert [o.canonical_name for o in owners] == ["Nic Owner"]
    assert {r.sender_entity_id for r in mine} == {owners[0].id}


def test_a_one_to_one_chat_exported_alone_knows_its_owner(tmp_path):
    chat = _full_export()["chats"]["list"][0]  # "Ana Lopez", personal_chat, no personal_information
    items = _tg(tmp_path, json.dumps(chat).encode())
    assert [(r.sender.name, r.attrs.get("is_from_me")) for r in items] == [
        ("Ana Lopez", None), ("Nic Owner", True), ("Bram de Vries", None)]
    assert items[0].recipients == [Party("Nic Owner", None, "handle", "member")]
    group = _full_export()["chats"]["list"][1]  # a group: nobody's export
    assert not any("is_from_me" in r.attrs for r in _tg(tmp_path, json.dumps(group).encode()))


def test_a_one_to_one_html_export_knows_its_owner(tmp_path):
    from ingestors.telegram_html import TelegramHtmlIngestor
    from tests.ingestors.test_telegram_html import message, page, text

    folder = tmp_path / "ChatExport_2022-12-24"
    folder.mkdir()
    (folder / "messages.html").write_text(page(
        "Ana Lopez",
        message(1, "24.12.2022 19:05:00 UTC+01:00", "19:05", "Ana Lopez", text("lantern festival at eight?")),
        message(2, "24.12.2022 19:06:00 UTC+01:00", "19:06", "Nic Owner", text("yes"))), encoding="utf-8")
    items = list(TelegramHtmlIngestor().read(folder / "messages.html"))
    assert [(r.sender.name, r.attrs.get("is_from_me"), r.attrs.get("owner_name")) for r in items] == [
        ("Ana Lopez", None, "Nic Owner"), ("Nic Owner", True, "Nic Owner")]
    assert items[0].sent_at == datetime(2022, 12, 24, 18, 5, tzinfo=UTC)


@pytest.mark.parametrize("text, day", [
    ("22. 12. 24. 18:05 - 민수: 내일 봐요\n22. 12. 24. 18:07 - 지영: 좋아요\n", "2022-12-24"),  # Korean, 24-hour clock
    ("24. 12. 22 18:05 - Ana: se vidimo\n24. 12. 22 18:07 - Bor: prav\n", "2022-12-24"),      # Slovenian d. MM. yy
    ("24.12.22. 18:05 - Ana: vidimo se\n24.12.22. 18:07 - Bor: može\n", "2022-12-24"),         # Serbian d.M.yy.
])
def test_dotted_two_digit_dates_by_locale_shape(tmp_path, text, day):
    items = _wa(tmp_path, text)
    assert [r.sent_at.date().isoformat() for r in items] == [day, day]


def test_deleted_by_an_admin_is_a_deleted_message(tmp_path):
    items = _wa(tmp_path, "24/12/2022, 18:05 - Ana: This message was deleted by admin Bo.\n"
                          "24/12/2022, 18:06 - Bo: You deleted this message as admin\n24/12/2022, 18:07 - Cy: ok\n")
    assert [(r.text, r.attrs.get("deleted")) for r in items] == [("", True), ("", True), ("ok", None)]

"""Chat exports, fourth pass: inputs shaped like real exports that Kith still read wrongly.

Right values worked out by hand from the inputs (the wall-clock times are the phone's, read in UTC
as the ingestors' default zone)."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from ingestors.whatsapp import WhatsAppIngestor

UTC = timezone.utc
LRM = "\u200e"


def _wa(tmp_path: Path, text: str, name: str = "_chat.txt", **kw) -> list:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return list(WhatsAppIngestor(**kw).read(p))


# ----------------------------------------------------------------------------- WhatsApp media

def test_ios_caption_before_attached_file(tmp_path):
    """iOS writes a photo's caption before its file tag, on the same line (and lines above it)."""
    items = _wa(tmp_path, "\r\n".join([
        "[24.09.25, 17:50:12] Bob Stone: Hi there",
        f"{LRM}[24.09.25, 17:51:00] Bob Stone: The view from Sintra {LRM}<attached: 00000005-PHOTO-2025-09-24-17-50-12.jpg>",
        f"{LRM}[24.09.25, 17:52:00] Alice: First line\nSecond line {LRM}<attached: 00000006-VIDEO-2025-09-24-17-52-00.mp4>",
    ]) + "\r\n")
    assert [(r.sender.name, r.text, r.attrs.get("media")) for r in items] == [
        ("Bob Stone", "Hi there", None),
        ("Bob Stone", "The view from Sintra", "00000005-PHOTO-2025-09-24-17-50-12.jpg"),
        ("Alice", "First line\nSecond line", "00000006-VIDEO-2025-09-24-17-52-00.mp4"),
    ]
    assert items[1].sent_at == datetime(2025, 9, 24, 17, 51, tzinfo=UTC)


@pytest.mark.parametrize("placeholder", [
    "imagem não revelada", "ficheiro de áudio não revelado", "Contacto não revelado",  # Portuguese (Portugal)
    "зображення відсутнє", "GIF-анімацію пропущено", "Наклейку не додано", "Картка контакту відсутня",  # Ukrainian
    "obrázek vynechán", "video vynecháno", "Vizitka vynechána",  # Czech
    "لم يتم إدراج الصورة", "لم يتم إدراج المستند", "تم حذف الملصقات",  # Arabic
    "Fiche contact manquante", "document manquant", "GIF retiré",  # French
    "sticker non incluso", "GIF esclusa",  # Italian
    "стикер не добавлен", "Kontaktkarte ausgelassen", "obraz pominięty",  # Russian, German, Polish
])
def test_ios_media_omitted_in_more_locales(tmp_path, placeholder):
    """An iOS "image omitted" in the phone's language is Ana's photo message (empty text, media noted),
    not a system line that takes the message away."""
    items = _wa(tmp_path, f"[01.02.23, 10:00:00] Ana Silva: Look\n"
                          f"{LRM}[01.02.23, 10:01:00] Ana Silva: {LRM}{placeholder}\n"
                          f"[01.02.23, 10:02:00] Bo: ok\n")
    assert [(r.sender.name, r.text, r.attrs.get("media")) for r in items] == [
        ("Ana Silva", "Look", None), ("Ana Silva", "", "omitted"), ("Bo", "ok", None)]
    assert items[1].sent_at == datetime(2023, 2, 1, 10, 1, tzinfo=UTC)
    assert not any(r.attrs.get("system_events") for r in items)


@pytest.mark.parametrize("placeholder", ["<Без медіафайлів>", "<Παράλειψη πολυμέσων>"])
def test_android_media_omitted_ukrainian_greek(tmp_path, placeholder):
    items = _wa(tmp_path, f"01.02.23, 10:00 - Ana: {placeholder}\n01.02.23, 10:02 - Bo: ok\n")
    assert [(r.text, r.attrs.get("media")) for r in items] == [("", "omitted"), ("ok", None)]


# ----------------------------------------------------------------------------- Telegram: chats of one name

def _two_families() -> dict:
    """A full export with two supergroups both called "Family": each numbers its messages from 1."""
    def msg(i, who, uid, words, unix):
        return {"id": i, "type": "message", "date": "2023-05-01T12:00:00", "date_unixtime": str(unix),
                "from": who, "from_id": uid, "text": words, "text_entities": []}
    return {"about": "", "personal_information": {"user_id": 1000, "first_name": "Me", "last_name": "Owner"},
            "chats": {"about": "", "list": [
                {"name": "Family", "type": "private_supergroup", "id": 501, "messages": [
                    msg(1, "Me Owner", "user1000", "Grandma lands in Porto on Friday", 1682942400),
                    msg(2, "Rui", "user7", "I will pick her up", 1682942460)]},
                {"name": "Family", "type": "private_supergroup", "id": 502, "messages": [
                    msg(1, "Me Owner", "user1000", "The cabin in Tromso is booked", 1682942500),
                    msg(2, "Rui", "user7", "Great news", 1682942560)]},
            ]}}


def test_telegram_full_export_two_chats_of_one_name_keep_every_message(tmp_path, container):
    from sqlmodel import select

    from app.operations.ingest import ingest
    from core.store.schema import Record as Row

    path = tmp_path / "result.json"
    path.write_text(json.dumps(_two_families()), encoding="utf-8")
    report = ingest(container, [path])
    assert report.errors == []
    with container.db.session() as s:
        rows = {r.text: r.thread for r in s.exec(select(Row)).all()}
    assert rows == {"Grandma lands in Porto on Friday": "telegram:501", "I will pick her up": "telegram:501",
                    "The cabin in Tromso is booked": "telegram:502", "Great news": "telegram:502"}
    again = ingest(container, [path])  # the same file again adds nothing
    with container.db.session() as s:
        assert len(s.exec(select(Row)).all()) == 4


def test_telegram_identity_of_a_chat_whose_name_is_unique_is_unchanged(tmp_path):
    from ingestors.telegram import TelegramIngestor, message_identity

    data = _two_families()
    data["chats"]["list"][1]["name"] = "Family (Norway)"
    path = tmp_path / "result.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    first = next(iter(TelegramIngestor().read(path)))
    # still the HTML export's identity (where in its quarter hour it was sent, too, since pass 25); the one
    # before that is its former identity
    assert first.identity == message_identity("Family", 1, first.sender, None, 0)  # 12:00:00 is 0 s into its quarter
    assert first.former_identity == message_identity("Family", 1, first.sender)


def test_telegram_html_full_export_two_chats_of_one_name(tmp_path):
    from ingestors.telegram_html import TelegramHtmlIngestor

    def page(chat, body):
        return ('<!DOCTYPE html><html><head><meta charset="utf-8"/><title>Exported Data</title></head><body>'
                f'<div class="page_wrap"><div class="page_header"><div class="content"><div class="text bold">{chat}'
                '</div></div></div><div class="page_body chat_page"><div class="history">' + body +
                '</div></div></div></body></html>')

    def message(mid, hhmm, who, words):
        return (f'<div class="message default clearfix" id="message{mid}"><div class="body">'
                f'<div class="pull_right date details" title="01.05.2023 {hhmm}:00 UTC+02:00">{hhmm}</div>'
                f'<div class="from_name">{who}</div><div class="text">{words}</div></div></div>')

    root = tmp_path / "DataExport"
    (root / "lists").mkdir(parents=True)
    entries = "".join(
        f'<a class="entry block_link clearfix" href="../chats/chat_00{n}/messages.html#allow_back">'
        f'<div class="body"><div class="pull_right info details">group</div><div class="name bold">Family</div>'
        f'</div></a>' for n in (1, 2))
    (root / "lists" / "chats.html").write_text(page("Chats", f'</div><div class="entry_list">{entries}'),
                                               encoding="utf-8")
    for n, words in ((1, "Grandma lands in Porto on Friday"), (2, "The cabin in Tromso is booked")):
        folder = root / "chats" / f"chat_00{n}"
        folder.mkdir(parents=True)
        (folder / "messages.html").write_text(page("Family", message(1, "14:00", "Me Owner", words)), encoding="utf-8")
    reader = TelegramHtmlIngestor()
    one, = reader.read(root / "chats" / "chat_001" / "messages.html")
    two, = reader.read(root / "chats" / "chat_002" / "messages.html")
    assert (one.text, two.text) == ("Grandma lands in Porto on Friday", "The cabin in Tromso is booked")
    assert one.content_hash != two.content_hash and one.thread != two.thread
    assert one.sent_at == datetime(2023, 5, 1, 14, 0, tzinfo=timezone(__import__("datetime").timedelta(hours=2)))


# ----------------------------------------------------------------------------- WhatsApp: pasted lines of its own shape

@pytest.mark.parametrize("name", ["_chat.txt", "WhatsApp Chat with Maya Ortiz.txt"])
def test_pasted_lines_of_the_files_own_shape_are_text(tmp_path, name):
    """Maya pastes two lines of another chat's Android export into her Android message: a day back in time,
    by people who never write here. They are her text; Jonas and Priya are not members of this chat (nor
    make a chat named after Maya a group whose name she would be)."""
    items = _wa(tmp_path, "12/03/2023, 18:02 - Maya Ortiz: look what Jonas wrote:\n"
                          "11/03/2023, 09:00 - Jonas Berg: the ferry leaves at 7\n"
                          "11/03/2023, 09:01 - Priya Nair: thanks!\n"
                          "12/03/2023, 18:05 - Tom Weller: ha\n"
                          "13/03/2023, 08:00 - Maya Ortiz: yes\n", name=name)
    assert [(r.sent_at, r.sender.name, r.text) for r in items] == [
        (datetime(2023, 3, 12, 18, 2, tzinfo=UTC), "Maya Ortiz", "look what Jonas wrote:\n"
         "11/03/2023, 09:00 - Jonas Berg: the ferry leaves at 7\n11/03/2023, 09:01 - Priya Nair: thanks!"),
        (datetime(2023, 3, 12, 18, 5, tzinfo=UTC), "Tom Weller", "ha"),
        (datetime(2023, 3, 13, 8, 0, tzinfo=UTC), "Maya Ortiz", "yes")]
    assert {p.name for r in items for p in [r.sender, *r.recipients]} == {"Maya Ortiz", "Tom Weller"}


def test_typed_agenda_in_header_shape_stays_in_the_message(tmp_path):
    """Lines shaped like a system line ("13/03/2023, 09:00 - arrive in Faro") dated after the next message
    are Ana's agenda, not WhatsApp's notices."""
    items = _wa(tmp_path, "12/03/2023, 10:00 - Ana Lima: Agenda for the trip:\n"
                          "13/03/2023, 09:00 - arrive in Faro\n"
                          "13/03/2023, 12:30 - lunch at Tasca do Ze\n"
                          "12/03/2023, 10:05 - Tom Weller: great\n")
    assert [(r.sender.name, r.text) for r in items] == [
        ("Ana Lima", "Agenda for the trip:\n13/03/2023, 09:00 - arrive in Faro\n13/03/2023, 12:30 - lunch at Tasca do Ze"),
        ("Tom Weller", "great")]
    assert not any(r.attrs.get("system_events") for r in items)


def test_late_delivered_messages_and_system_lines_keep_their_place(tmp_path):
    """A member's message delivered hours late (shown at its own time, below later ones) is still a message;
    so is a newcomer's a few minutes late; system lines in order stay system lines."""
    items = _wa(tmp_path, "12/03/2023, 10:00 - Ana Lima: leaving now\n"
                          "12/03/2023, 10:01 - Tom Weller added Bo\n"
                          "12/03/2023, 18:00 - Tom Weller: where are you?\n"
                          "12/03/2023, 09:30 - Ana Lima: the train is late\n"
                          "12/03/2023, 17:40 - Bo Ng: hi all\n")
    assert [(r.sent_at.hour, r.sender.name, r.text) for r in items] == [
        (10, "Ana Lima", "leaving now"), (18, "Tom Weller", "where are you?"), (9, "Ana Lima", "the train is late"),
        (17, "Bo Ng", "hi all")]
    assert items[1].attrs["system_events"][0]["text"] == "Tom Weller added Bo"


def test_chat_named_after_a_person_with_a_system_line_holding_a_colon(tmp_path):
    """'Tom Weller changed the group description: …' is a system line, not a third person: the chat stays
    Maya and Tom's, and Maya's messages are hers (they were taken for group notices under the chat's name)."""
    items = _wa(tmp_path, "12/03/2023, 10:00 - Maya Ortiz: hi Tom\n12/03/2023, 10:01 - Tom Weller: hi!\n"
                          "12/03/2023, 10:02 - Tom Weller changed the group description: Faro trip\n"
                          "12/03/2023, 10:03 - Maya Ortiz: see you\n", name="WhatsApp Chat with Maya Ortiz.txt")
    assert [(r.sender.name, r.text) for r in items] == [
        ("Maya Ortiz", "hi Tom"), ("Tom Weller", "hi!"), ("Maya Ortiz", "see you")]
    assert items[1].attrs.get("is_from_me") is True  # the chat is named after Maya: Tom exported it


# ----------------------------------------------------------------------------- Telegram: broken escapes

@pytest.mark.parametrize("pad", [0, 1, 3, 5, 7, 9, 10, 11])
def test_telegram_python_style_unicode_escape_is_the_character(tmp_path, pad):
    """A result.json re-written by a tool that escapes characters as \\U0001F600 (not JSON): the emoji it
    names, wherever the escape falls against the reader's 64 KiB chunks; the other messages kept, with a note."""
    from ingestors.telegram import CHUNK, TelegramIngestor

    def msg(i, who, words, unix):
        return ('{"id": %d, "type": "message", "date_unixtime": "%d", "from": "%s", "from_id": "user%d", '
                '"text": "%s"}' % (i, unix, who, i, words))
    head = '{"name": "Trip", "type": "private_group", "id": 9, "messages": [' + msg(1, "Ana", "x" * 10, 1682935200)
    filler = ', ' + msg(2, "Ben", "y" * (CHUNK - len(head) - 400), 1682935260)
    body = head + filler
    before = len(body + ", " + msg(3, "Ana", "", 1682935320).split('"text": "')[0] + '"text": "' + " we landed ")
    body += ", " + msg(3, "Ana", "z" * (CHUNK - pad - before) + " we landed \\U0001F600 at last", 1682935320)
    assert body.index("\\U") == CHUNK - pad  # the escape starts pad bytes before the first chunk's end
    body += ", " + msg(4, "Ben", "great", 1682935380) + "]}"
    path = tmp_path / "result.json"
    path.write_bytes(body.encode())
    items = list(TelegramIngestor().read(path))
    assert [r.sender.name for r in items] == ["Ana", "Ben", "Ana", "Ben"]
    assert items[2].text.endswith(" we landed \U0001F600 at last") and items[3].text == "great"
    assert "file repaired: 1 invalid escape fixed in result.json" in items[0].notes


# ----------------------------------------------------------------------------- Messenger: file order

def test_messenger_file_listed_oldest_first_keeps_same_millisecond_order(tmp_path):
    """An encrypted-chat download whose messages run forwards: two messages of the same millisecond come in
    the file's order (a newest-first message_1.json is still read reversed)."""
    from ingestors.messenger import MessengerIngestor

    data = {"participants": ["Ana Lima", "Rui Costa"], "threadName": "Ana Lima", "messages": [
        {"isUnsent": False, "media": [], "reactions": [], "senderName": "Ana Lima", "text": "Chegámos a Lisboa!",
         "timestamp": 1714557600000, "type": "text"},
        {"isUnsent": False, "media": [], "reactions": [], "senderName": "Rui Costa", "text": "Onde estão?",
         "timestamp": 1714557720000, "type": "text"},
        {"isUnsent": False, "media": [], "reactions": [], "senderName": "Rui Costa", "text": "Boa viagem",
         "timestamp": 1714557720000, "type": "text"}]}
    path = tmp_path / "ana_lima_123.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    items = list(MessengerIngestor().read(path))
    assert [r.text for r in items] == ["Chegámos a Lisboa!", "Onde estão?", "Boa viagem"]
    assert items[2].sent_at == datetime(2024, 5, 1, 10, 2, tzinfo=UTC)
    data["messages"].reverse()  # the same conversation newest first, as message_1.json lists it
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    assert [r.text for r in MessengerIngestor().read(path)] == ["Chegámos a Lisboa!", "Onde estão?", "Boa viagem"]


@pytest.mark.parametrize("note", ["Video chat ended", "Audio call ended", "You missed an audio call",
                                  "You missed a video call", "You started an audio call", "You sent a reel.",
                                  "You sent a post.", "You took a screenshot."])
def test_instagram_call_and_share_notes_are_not_words(tmp_path, note):
    """Instagram writes these itself (no call_duration on them in some exports): a system event, so 'what did
    Noor say?' answers with her words, not 'Video chat ended'."""
    from ingestors.messenger import MessengerIngestor

    folder = tmp_path / "your_instagram_activity" / "messages" / "inbox" / "noorsample_1789"
    folder.mkdir(parents=True)
    data = {"participants": [{"name": "Noor Sample"}, {"name": "Alex Owner"}], "title": "Noor Sample",
            "thread_path": "inbox/noorsample_1789", "messages": [
                {"sender_name": "Noor Sample", "timestamp_ms": 1682942700000, "content": note},
                {"sender_name": "Noor Sample", "timestamp_ms": 1682942600000, "content": "Landed in Lisbon"}]}
    (folder / "message_1.json").write_text(json.dumps(data), encoding="utf-8")
    items = list(MessengerIngestor().read(folder / "message_1.json"))
    assert [(r.sender.name, r.text) for r in items] == [("Noor Sample", "Landed in Lisbon")]
    assert items[0].attrs["system_events"][0]["text"] == note
    assert items[0].sent_at == datetime(2023, 5, 1, 12, 3, 20, tzinfo=UTC)


def test_blank_lines_before_the_next_header_are_not_text(tmp_path):
    """A file re-saved with blank lines between messages (or at its end): each message's text is as sent."""
    items = _wa(tmp_path, "12/03/2023, 18:02 - Ana: line1\n\n   indented line3  \n\n"
                          "13/03/2023, 18:03 - Bo: next\n\n\n")
    assert [r.text for r in items] == ["line1\n\n   indented line3  ", "next"]


def test_odd_line_at_the_top_does_not_set_the_files_shape(tmp_path):
    """A US export whose first line is an iOS-shaped one (brackets, seconds) and the rest Android's: the file
    is Android's; the odd line is Person One's message (she writes in it), and Person Two's messages are his,
    not text of hers. Month-first throughout: 1/4/23 is 4 January."""
    items = _wa(tmp_path, f"{LRM}[1/4/23, 7:02:11\u202fPM] Person One: {LRM}image omitted\n"
                          "2/2/23, 2:51\u202fAM - Person Two: <Media omitted>\n"
                          "2/4/23, 10:35\u202fPM - Person One: Got it. So is it 4:30 or 6?\n"
                          "2/5/23, 9:02\u202fAM - Person Two: Great see you then!\n"
                          "2/5/23, 9:03\u202fAM - Person One: ok\n")
    assert [(r.sent_at, r.sender.name, r.text) for r in items] == [
        (datetime(2023, 1, 4, 19, 2, 11, tzinfo=UTC), "Person One", ""),
        (datetime(2023, 2, 2, 2, 51, tzinfo=UTC), "Person Two", ""),
        (datetime(2023, 2, 4, 22, 35, tzinfo=UTC), "Person One", "Got it. So is it 4:30 or 6?"),
        (datetime(2023, 2, 5, 9, 2, tzinfo=UTC), "Person Two", "Great see you then!"),
        (datetime(2023, 2, 5, 9, 3, tzinfo=UTC), "Person One", "ok")]


def test_more_pasted_lines_than_messages_stay_pasted(tmp_path):
    """Three iOS lines pasted into the first of two Android messages: still the file's shape is Android's."""
    items = _wa(tmp_path, "12/03/2023, 18:02 - Maya Ortiz: Look what they wrote:\n"
                          "[11/03/2023, 21:15:03] Jonas Berg: selling my bike\n"
                          "[11/03/2023, 21:16:40] Priya Nair: I'll take it\n"
                          "[11/03/2023, 21:17:00] Jonas Berg: deal\n"
                          "12/03/2023, 18:05 - Tom Weller: Ha, Priya is quick\n")
    assert [(r.sender.name, r.text.splitlines()[0]) for r in items] == [
        ("Maya Ortiz", "Look what they wrote:"), ("Tom Weller", "Ha, Priya is quick")]
    assert len(items[0].text.splitlines()) == 4


# ----------------------------------------------------------------------------- Telegram: polls

def test_telegram_poll_is_found_by_its_words(tmp_path, container):
    """A poll's text is empty in result.json; its question and answers are the record's subject, so asking
    about the dinner finds it."""
    from app.operations.ask import ask
    from app.operations.ingest import ingest
    from ingestors.telegram import TelegramIngestor

    data = {"name": "Trip group", "type": "private_group", "id": 222, "messages": [
        {"id": 1, "type": "message", "date": "2023-05-01T12:00:00", "date_unixtime": "1682935200", "from": "Ana",
         "from_id": "user1", "text": "", "poll": {"question": "Dinner in Porto on Friday?", "closed": False,
                                                  "total_voters": 1, "answers": [
                                                      {"text": "Francesinha place", "voters": 1, "chosen": False},
                                                      {"text": "Fish market", "voters": 0, "chosen": False}]}},
        {"id": 2, "type": "message", "date": "2023-05-01T12:01:00", "date_unixtime": "1682935260", "from": "Ben",
         "from_id": "user2", "text": "voted"}]}
    path = tmp_path / "result.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    poll = next(iter(TelegramIngestor().read(path)))
    assert (poll.text, poll.subject) == ("", "Dinner in Porto on Friday? (Francesinha place / Fish market)")
    assert poll.sent_at == datetime(2023, 5, 1, 10, 0, tzinfo=UTC).astimezone(poll.sent_at.tzinfo)
    assert ingest(container, [path]).errors == []
    top = ask(container, "dinner in Porto", k=3)
    assert top and "Dinner in Porto on Friday?" in (top[0].subject or top[0].text)


def test_telegram_html_poll_subject_matches_the_json(tmp_path):
    from ingestors.telegram_html import TelegramHtmlIngestor

    poll = ('<div class="media_wrap clearfix"><div class="media_poll"><div class="question bold">Dinner in Porto '
            'on Friday?</div><div class="details">Anonymous poll</div><div class="answer">- Francesinha place</div>'
            '<div class="answer">- Fish market</div><div class="total details">1 vote</div></div></div>')
    html = ('<!DOCTYPE html><html><head><meta charset="utf-8"/><title>Exported Data</title></head><body>'
            '<div class="page_wrap"><div class="page_header"><div class="content"><div class="text bold">Trip group'
            '</div></div></div><div class="page_body chat_page"><div class="history">'
            '<div class="message default clearfix" id="message1"><div class="body">'
            '<div class="pull_right date details" title="01.05.2023 12:00:00 UTC+02:00">12:00</div>'
            f'<div class="from_name">Ana</div>{poll}</div></div></div></div></div></body></html>')
    path = tmp_path / "messages.html"
    path.write_text(html, encoding="utf-8")
    rec, = TelegramHtmlIngestor().read(path)
    assert (rec.text, rec.subject) == ("", "Dinner in Porto on Friday? (Francesinha place / Fish market)")
    assert rec.sent_at == datetime(2023, 5, 1, 10, 0, tzinfo=UTC)


def test_finnish_ap_and_ip_are_morning_and_afternoon():
    """Finnish phones write 'ap.'/'ip.' (aamupäivällä / iltapäivällä, CLDR fi) after a dotted time with 'klo'.
    'ip.' was no marker at all (Inari Sami writes it for AM, so the two meanings cancelled): '7.02 ip.' was read
    as 07:02, and a file mixing 'ap.' and 'ip.' lines split into two shapes.  Finnish has ~10,000 times the
    speakers (CLDR territory populations), so 'ip.' is PM."""
    from ingestors.whatsapp import read_marker

    assert (read_marker("ip."), read_marker("ap."), read_marker("IP")) == ("p", "a", "p")


def test_a_finnish_export_with_ap_and_ip_lines_is_read_in_order(tmp_path):
    items = _wa(tmp_path, "3.4.2023 klo 7.02 ip. - Aino: Hei\n"
                          "4.4.2023 klo 7.05 ap. - Mikko: Moi\n"
                          "4.4.2023 klo 12.10 ip. - Aino: Nähdään\n", name="WhatsApp Chat with Aino.txt")
    assert [(r.sender.name, r.text, r.sent_at) for r in items] == [
        ("Aino", "Hei", datetime(2023, 4, 3, 19, 2, tzinfo=UTC)),
        ("Mikko", "Moi", datetime(2023, 4, 4, 7, 5, tzinfo=UTC)),
        ("Aino", "Nähdään", datetime(2023, 4, 4, 12, 10, tzinfo=UTC))]

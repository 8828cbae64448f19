"""A forwarded chat message's words are its origin's, but the origin (a bot, a channel, someone outside the chat)
never wrote to the chat's people: no "X wrote to Y" correspondence fact for the origin (red team F8: "Weather Bot
wrote to Alex").  The one who forwarded it, and one who forwards their own words, keep theirs; a shared link's
sharer (Messenger) and a WhatsApp sender are the ones who wrote."""
from __future__ import annotations

import json

from sqlmodel import select

from app.operations.ingest import ingest
from core.store.schema import Entity, Fact, Record


def _wrote(container) -> list[tuple[str, str]]:
    """Every (writer, recipient) correspondence fact, sorted."""
    with container.db.session() as s:
        names = {e.id: e.canonical_name for e in s.exec(select(Entity)).all()}
        return sorted({(names[f.subject_entity_id], f.value) for f in s.exec(select(Fact)).all()
                       if f.key.startswith("writes_to:")})


def _senders(container) -> list[tuple[str, str | None]]:
    """(sender's name, text) of every record, in id order."""
    with container.db.session() as s:
        names = {e.id: e.canonical_name for e in s.exec(select(Entity)).all()}
        return [(names.get(r.sender_entity_id), r.text) for r in s.exec(select(Record).order_by(Record.id)).all()]


def _tg_message(mid: int, minute: int, name: str, uid: str, text: str, **extra) -> dict:
    return {"id": mid, "type": "message", "date": f"2021-05-03T14:{minute:02d}:00",
            "date_unixtime": str(1620050400 + minute * 60), "from": name, "from_id": uid, "text": text, **extra}


def test_telegram_json_forward_gives_its_origin_no_wrote_to_facts(container, tmp_path):
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"name": "Hikers", "type": "private_group", "id": 999, "messages": [
        _tg_message(1, 0, "Alex Moor", "user111", "Morning all"),
        _tg_message(2, 1, "Bea Lund", "user222", "Hi Alex"),
        _tg_message(3, 2, "Alex Moor", "user111", "Storm warning for the Cairngorms.",
                    forwarded_from="Weather Bot", forwarded_from_id="user999"),
        _tg_message(4, 3, "Cal Ross", "user333", "Thanks for the warning",
                    forwarded_from=None),  # a null origin: Cal's own message
    ]}), encoding="utf-8")
    report = ingest(container, [path])
    assert report.records_added == 4 and report.errors == []
    assert _senders(container)[2] == ("Weather Bot", "Storm warning for the Cairngorms.")  # the words are the bot's
    assert _wrote(container) == [("Alex Moor", "Bea Lund"), ("Alex Moor", "Cal Ross"),
                                 ("Bea Lund", "Alex Moor"), ("Bea Lund", "Cal Ross"),
                                 ("Cal Ross", "Alex Moor"), ("Cal Ross", "Bea Lund")]  # none for Weather Bot


def test_telegram_json_forward_of_ones_own_words_still_wrote_to_the_chat(container, tmp_path):
    # Bea forwards her own message from another chat: she is the origin and the one who posted it here
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"name": "Pair", "type": "private_group", "id": 7, "messages": [
        _tg_message(1, 0, "Alex Moor", "user111", "Where is the trailhead?"),
        _tg_message(2, 1, "Bea Lund", "user222", "At the car park by the bridge.",
                    forwarded_from="Bea Lund", forwarded_from_id="user222"),
    ]}), encoding="utf-8")
    assert ingest(container, [path]).records_added == 2
    assert _wrote(container) == [("Alex Moor", "Bea Lund"), ("Bea Lund", "Alex Moor")]


def _div(cls: str, *inner: str, **attrs: str) -> str:
    extra = "".join(f' {k}="{v}"' for k, v in attrs.items())
    return f'\n<div class="{cls}"{extra}>\n{"".join(inner)}\n</div>\n'


def _html_message(mid: int, hhmm: str, name: str, *content: str) -> str:
    when = f"03.05.2021 {hhmm}:00 UTC+02:00"
    initials = "".join(w[0] for w in name.split())
    return _div("message default clearfix",
                _div("pull_left userpic_wrap", _div("userpic userpic1", _div("initials", initials))),
                _div("body", _div("pull_right date details", hhmm, title=when), _div("from_name", name), *content),
                id=f"message{mid}")


def test_telegram_html_forward_gives_its_origin_no_wrote_to_facts(container, tmp_path):
    folder = tmp_path / "ChatExport_2021-05-04"
    folder.mkdir()
    forwarded = _div("forwarded body",
                     _div("from_name", 'Daily News<span class="date details" title="03.05.2021 07:00:00 UTC+02:00">'
                                       ' 03.05.2021 07:00:00</span>'),
                     _div("text", "Trains cancelled on Friday"))
    history = "".join([
        _html_message(101, "18:00", "Ana Lima", _div("text", "Dinner on Friday?")),
        _html_message(102, "18:05", "Bruno Costa", _div("text", "Yes!")),
        _html_message(103, "19:00", "Carla Dias", _div("pull_left forwarded userpic_wrap",
                                                       _div("userpic userpic3", "DN")), forwarded),
    ])
    (folder / "messages.html").write_text(
        '<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8"/>\n<title>Exported Data</title>\n</head>\n<body>\n'
        + _div("page_wrap", _div("page_header", _div("content", _div("text bold", "Paddle club"))),
               _div("page_body chat_page", _div("history", history)))
        + "\n</body>\n</html>\n", encoding="utf-8")
    report = ingest(container, [folder / "messages.html"])
    assert report.records_added == 3 and report.errors == []
    assert _senders(container)[2] == ("Daily News", "Trains cancelled on Friday")
    # Carla posted only the forward (she is a member: the others wrote to her); Daily News never wrote to anyone
    assert _wrote(container) == [("Ana Lima", "Bruno Costa"), ("Ana Lima", "Carla Dias"),
                                 ("Bruno Costa", "Ana Lima"), ("Bruno Costa", "Carla Dias")]


def test_whatsapp_sender_is_the_one_who_wrote(container, tmp_path):
    # WhatsApp's export marks no forwards: the sender is the one who sent it to the chat, who wrote to it
    chat = tmp_path / "WhatsApp Chat with Dee Park.txt"
    chat.write_text("03/05/2021, 14:00 - Eli Gray: Look at this\n"
                    "03/05/2021, 14:01 - Dee Park: Nice\n", encoding="utf-8")
    assert ingest(container, [chat]).errors == []
    assert _wrote(container) == [("Dee Park", "Eli Gray"), ("Eli Gray", "Dee Park")]


def test_messenger_share_sender_is_the_one_who_wrote(container, tmp_path):
    # a Messenger share names no origin: its sender is the one who shared it, who wrote to the chat
    inbox = tmp_path / "messages" / "inbox" / "fay_abc" / "message_1.json"
    inbox.parent.mkdir(parents=True)
    inbox.write_text(json.dumps({
        "participants": [{"name": "Fay Hill"}, {"name": "Gus Lowe"}], "title": "Fay Hill",
        "messages": [{"sender_name": "Fay Hill", "timestamp_ms": 1620050460000, "content": "Fay Hill sent a link.",
                      "share": {"link": "https://example.org/trail"}},
                     {"sender_name": "Gus Lowe", "timestamp_ms": 1620050400000, "content": "Any plans?"}]}),
        encoding="utf-8")
    assert ingest(container, [inbox]).errors == []
    assert _wrote(container) == [("Fay Hill", "Gus Lowe"), ("Gus Lowe", "Fay Hill")]

"""Telegram Desktop HTML exports (ingestors/telegram_html.py), on pages written here the way Telegram Desktop
writes them (export_output_html.cpp: block elements on their own lines, indented one space a level; a joined
message has no from_name; a forwarded message's text sits inside div.forwarded.body; date headings are
service messages with negative ids; the first message of every file starts a new run)."""
from __future__ import annotations

import json
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import pytest

from core.errors import InputError
from ingestors.base import Party, Record, RecordError
from ingestors.registry import ingestor_for
from ingestors.telegram import TelegramIngestor
from ingestors.telegram_html import TelegramHtmlIngestor, parse_when, plain_text

UTC = timezone.utc


# ----------------------------------------------------------------------------- a page as Telegram writes it

def _block(tag: str, attrs: str, children: list, depth: int) -> str:
    """One block element: a line break and indentation before the opening and the closing tag, as
    HtmlContext::pushTag/popTag write them; text children go in as they are."""
    pad = " " * depth
    inner = "".join(c if isinstance(c, str) else c(depth + 1) for c in children)
    return f"\n{pad}<{tag}{attrs}>\n{inner}\n{pad}</{tag}>\n"


def div(cls: str, *children, **attrs):
    extra = "".join(f' {k}="{v}"' for k, v in attrs.items())
    return lambda depth: _block("div", f' class="{cls}"{extra}', list(children), depth)


def userpic(initials: str, color: int = 1):
    return div("pull_left userpic_wrap", div(f"userpic userpic{color}", div("initials", initials,
                                                                            style="line-height: 42px"),
                                             style="width: 42px; height: 42px"))


def message(mid: int, title: str, hhmm: str, name: str | None, *content, joined: bool = False):
    """A div.message.default: its userpic and from_name only when it starts a run."""
    body = [div("pull_right date details", hhmm, title=title)]
    if not joined:
        body.append(div("from_name", name))
    body += content
    parts = ([] if joined else [userpic("".join(w[0] for w in name.split()))]) + [div("body", *body)]
    return div("message default clearfix" + (" joined" if joined else ""), *parts, id=f"message{mid}")


def service(mid: int, text: str):
    return div("message service", div("body details", text), id=f"message{mid}")


def text(html: str):
    return div("text", html)


def page(chat: str, *messages, base: str = "", back: str | None = None) -> str:
    head = (f'<!DOCTYPE html>\n<html>\n\n <head>\n\n  <meta charset="utf-8"/>\n<title>Exported Data</title>\n'
            f'  <meta name="viewport" content="width=device-width, initial-scale=1.0"/>\n\n'
            f'  <link href="{base}css/style.css" rel="stylesheet"/>\n\n'
            f'  <script src="{base}js/script.js" type="text/javascript">\n\n  </script>\n\n </head>\n\n'
            f' <body onload="CheckLocation();">\n\n  <div class="page_wrap">\n')
    header = div("page_header", div("content", div("text bold", chat)))(3)
    if back:
        header = header.replace('<div class="content">', f'<a class="content block_link" href="{back}" '
                                                          'onclick="return GoBack(this)">', 1)
        header = header.replace("</div>\n\n   </div>", "</a>\n\n   </div>", 1)
    history = div("page_body chat_page", div("history", *messages))(3)
    return head + header + history + "\n  </div>\n\n </body>\n\n</html>\n"


T = "14.03.2023 {} UTC+01:00"

PAGE1 = page(
    "Paddle club",
    service(-1, "14 March 2023"),
    service(100, "Ana Lima created group &laquo;Paddle club&raquo;"),
    message(101, T.format("18:02:11"), "18:02", "Ana Lima ",
            text("Dinner at <strong>Casa Azul</strong> on Friday?<br>Table for 4")),
    message(102, T.format("18:03:40"), "18:03", None,
            text('See <a href="https://example.org/menu">the menu</a> and <a href="https://t.me/bruno">@bruno</a>'
                 ' &amp; <a href="https://example.org/x">https://example.org/x</a>'), joined=True),
    message(103, T.format("18:10:00"), "18:10", "Bruno Costa",
            div("reply_to details", 'In reply to <a href="#go_to_message101" onclick="return GoToMessage(101)">'
                                    'this message</a>'),
            div("media_wrap clearfix", '<a class="photo_wrap clearfix pull_left" '
                                       'href="photos/photo_1@14-03-2023_18-10-00.jpg"><img class="photo" '
                                       'src="photos/photo_1@14-03-2023_18-10-00_thumb.jpg" '
                                       'style="width: 260px; height: 195px"/></a>'),
            text("the place")),
    message(104, T.format("18:10:30"), "18:10", None,
            div("media_wrap clearfix",
                '<a class="media clearfix pull_left block_link media_voice_message" '
                'href="voice_messages/audio_1@14-03-2023_18-10-30.ogg"><div class="fill pull_left"></div>'
                '<div class="body"><div class="title bold">Voice message</div>'
                '<div class="status details">00:07</div></div></a>'), joined=True),
    service(105, "Bruno Costa invited Carla Dias"),
    message(106, T.format("19:00:00"), "19:00", "Carla Dias",
            div("pull_left forwarded userpic_wrap", div("userpic userpic3", "DN")),
            div("forwarded body",
                div("from_name", 'Daily News<span class="date details" title="13.03.2023 07:00:00 UTC+01:00">'
                                 ' 13.03.2023 07:00:00</span>'),
                text("Trains cancelled on Friday"))),
    message(107, T.format("19:00:05"), "19:00", "Carla Dias",
            div("media_wrap clearfix", '<a class="sticker_wrap clearfix pull_left" href="stickers/sticker.webp">'
                                       '<img class="sticker" src="stickers/sticker.webp_thumb.png"/></a>')),
    message(108, T.format("20:00:00"), "20:00", "Deleted Account", text("ghost")),
)

PAGE2 = page(
    "Paddle club",
    '\n     <a class="pagination block_link" href="messages.html">\nPrevious messages\n     </a>\n',
    service(-2, "15 March 2023"),
    message(201, "15.03.2023 09:00:00 UTC+01:00", "09:00", "Ana Lima ", text("Morning!")),
    message(202, "15.03.2023 09:01:00 UTC+01:00", "09:01", None, text("Who&apos;s driving?"), joined=True),
    message(203, "15.03.2023 09:30:00 UTC+01:00", "09:30", "Bruno Costa",
            div("media_wrap clearfix", '<div class="media clearfix pull_left media_call success">'
                                       '<div class="fill pull_left"></div><div class="body">'
                                       '<div class="title bold">Ana Lima</div>'
                                       '<div class="status details">Outgoing (35 seconds)</div></div></div>')),
    message(204, "15.03.2023 09:31:00 UTC+01:00", "09:31", "Bruno Costa", text("I&apos;ll drive")),
)

ANA = Party("Ana Lima", None, "handle", "from")
BRUNO = Party("Bruno Costa", None, "handle", "from")
CARLA = Party("Carla Dias", None, "handle", "from")


def member(p: Party) -> Party:
    return Party(p.name, p.address, p.address_kind, "member")


def chat_folder(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "messages.html").write_text(PAGE1, encoding="utf-8")
    (root / "messages2.html").write_text(PAGE2, encoding="utf-8")
    return root


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


# ----------------------------------------------------------------------------- one chat, two files

def test_a_chat_in_two_files_is_one_chat(tmp_path):
    folder = chat_folder(tmp_path / "ChatExport_2023-03-16")
    ing = TelegramHtmlIngestor()
    first = list(ing.read(folder / "messages.html"))
    second = list(ing.read(folder / "messages2.html"))
    assert all(isinstance(i, Record) for i in first + second)
    # 18:02:11 at UTC+01:00 is 17:02:11 UTC, and so on; 108's sender is a deleted account
    assert [(r.external_id, r.sender, r.text, r.sent_at.astimezone(UTC)) for r in first] == [
        ("message 101", ANA, "Dinner at Casa Azul on Friday?\nTable for 4", utc(2023, 3, 14, 17, 2, 11)),
        ("message 102", ANA, "See the menu and @bruno & https://example.org/x", utc(2023, 3, 14, 17, 3, 40)),
        ("message 103", BRUNO, "the place", utc(2023, 3, 14, 17, 10)),
        ("message 104", BRUNO, "", utc(2023, 3, 14, 17, 10, 30)),
        ("message 106", Party("Daily News", None, "handle", "from"), "Trains cancelled on Friday",
         utc(2023, 3, 14, 18, 0)),
        ("message 107", CARLA, "", utc(2023, 3, 14, 18, 0, 5)),
        ("message 108", None, "ghost", utc(2023, 3, 14, 19, 0))]
    assert [(r.external_id, r.sender, r.text, r.sent_at.astimezone(UTC)) for r in second] == [
        ("message 201", ANA, "Morning!", utc(2023, 3, 15, 8, 0)),
        ("message 202", ANA, "Who's driving?", utc(2023, 3, 15, 8, 1)),
        ("message 204", BRUNO, "I'll drive", utc(2023, 3, 15, 8, 31))]
    a, b, c, d, fwd, sticker, ghost = first
    # every other sender of the whole chat (both files) received each message
    assert a.recipients == [member(BRUNO), member(CARLA)]
    assert c.recipients == [member(ANA), member(CARLA)] and ghost.recipients == [member(p) for p in (ANA, BRUNO, CARLA)]
    assert second[-1].recipients == [member(ANA), member(CARLA)]
    assert {r.thread for r in first + second} == {"telegram:Paddle club"}
    assert all(r.attrs["chat_name"] == "Paddle club" and r.kind == "chat" for r in first + second)
    assert a.sent_at.utcoffset().total_seconds() == 3600  # kept at the export's offset
    assert a.attrs["time_basis"] == "export-standard-offset" and a.attrs["utc_offset"] == "UTC+01:00"
    assert a.attrs["system_events"] == [{"id": 100, "at": None, "actor": "Ana Lima", "action": "create_group",
                                         "text": "Ana Lima created group «Paddle club»"}]
    assert b.attrs["links"] == ["https://example.org/menu"]  # a mention's and a bare URL's targets are the text
    assert c.attrs["reply_to_message_id"] == 101
    assert c.attrs["media"] == {"photo": "photos/photo_1@14-03-2023_18-10-00.jpg"} and c.notes == ["media: photo"]
    assert d.attrs["media"] == {"file": "voice_messages/audio_1@14-03-2023_18-10-30.ogg",
                                "media_type": "voice_message"}
    assert d.notes == ["media: voice message"]
    assert fwd.attrs["system_events"] == [{"id": 105, "at": None, "actor": "Bruno Costa",
                                           "action": "invite_members", "text": "Bruno Costa invited Carla Dias"}]
    assert fwd.attrs["forwarded_by"] == {"name": "Carla Dias", "id": None}
    assert fwd.attrs["forwarded_from"] == "Daily News"
    assert fwd.notes == ["forwarded by Carla Dias: written by Daily News"]
    assert fwd.recipients == [member(ANA), member(BRUNO)]  # Carla's chat got it from her
    assert sticker.notes == ["media: sticker"] and sticker.attrs["media"]["file"] == "stickers/sticker.webp"
    assert ghost.notes == ["sender unknown"]
    # the call is a system event on the next message, as the JSON reader keeps a phone_call service message
    assert second[2].attrs["system_events"] == [{"id": 203, "at": "2023-03-15T09:30:00+01:00",
                                                 "actor": "Bruno Costa", "action": "phone_call",
                                                 "text": "Outgoing (35 seconds)"}]


def test_the_same_chat_as_json_gives_the_same_records(tmp_path):
    """The JSON reader on result.json of the same messages: same senders, texts, instants, notes, members."""
    def m(mid, unix, who, txt, **extra):
        return {"id": mid, "type": "message", "date": "x", "date_unixtime": str(unix), "from": who,
                "from_id": None, "text": txt, **extra}

    data = {"name": "Paddle club", "type": "private_group", "messages": [
        {"id": 100, "type": "service", "date_unixtime": "1678813000", "actor": "Ana Lima", "action": "create_group",
         "title": "Paddle club", "text": ""},
        m(101, 1678813331, "Ana Lima", ["Dinner at ", {"type": "bold", "text": "Casa Azul"},
                                        " on Friday?\nTable for 4"]),
        m(102, 1678813420, "Ana Lima", ["See ", {"type": "text_link", "text": "the menu",
                                                 "href": "https://example.org/menu"}, " and ",
                                        {"type": "mention", "text": "@bruno"}, " & ",
                                        {"type": "link", "text": "https://example.org/x"}]),
        m(103, 1678813800, "Bruno Costa", "the place", photo="photos/photo_1@14-03-2023_18-10-00.jpg",
          reply_to_message_id=101),
        m(104, 1678813830, "Bruno Costa", "", file="voice_messages/audio_1@14-03-2023_18-10-30.ogg",
          media_type="voice_message"),
        m(106, 1678816800, "Carla Dias", "Trains cancelled on Friday", forwarded_from="Daily News"),
        m(107, 1678816805, "Carla Dias", "", file="stickers/sticker.webp", media_type="sticker"),
        m(108, 1678820400, None, "ghost"),
    ]}
    p = tmp_path / "result.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    from_json = list(TelegramIngestor().read(p))
    html = tmp_path / "html" / "messages.html"
    html.parent.mkdir()
    html.write_text(PAGE1, encoding="utf-8")
    from_html = list(TelegramHtmlIngestor().read(html))

    def same(r: Record):
        return (r.external_id, r.sender.name if r.sender else None, r.text, r.sent_at.astimezone(UTC),
                [x.name for x in r.recipients], r.notes, r.attrs.get("media"), r.attrs.get("links"),
                r.attrs.get("reply_to_message_id"), r.attrs.get("forwarded_from"), r.attrs["chat_name"])

    assert [same(r) for r in from_html] == [same(r) for r in from_json]
    assert len(from_html) == 7


# ----------------------------------------------------------------------------- times

@pytest.mark.parametrize("title, expected", [
    ("14.03.2023 18:02:11 UTC+01:00", (datetime(2023, 3, 14, 18, 2, 11), 60)),
    ("01.07.2021 09:15:00 UTC-04:00", (datetime(2021, 7, 1, 9, 15), -240)),
    ("01.07.2021 09:15:00 UTC+05:30", (datetime(2021, 7, 1, 9, 15), 330)),
    ("01.07.2021 09:15:00 UTC", (datetime(2021, 7, 1, 9, 15), 0)),
    ("01.07.2021 09:15:00", (datetime(2021, 7, 1, 9, 15), None)),
    ("31.02.2021 09:15:00", None), ("", None), (None, None), ("yesterday", None),
])
def test_parse_when(title, expected):
    got = parse_when(title)
    if expected is None:
        assert got is None
    else:
        assert (got[0], None if got[1] is None else got[1].total_seconds() / 60) == expected


def test_times_with_and_without_the_offset(tmp_path):
    body = page("Ana Lima",
                message(1, "01.07.2021 18:00:00 UTC+01:00", "18:00", "Ana Lima", text("summer, Berlin's +1")),
                message(2, "01.07.2021 18:00:00 UTC-05:00", "18:00", "Bruno Costa", text("another zone")),
                message(3, "01.07.2019 12:00:00", "12:00", "Ana Lima", text("an older export")),
                message(4, "not a date", "12:00", "Ana Lima", text("no time")))
    p = tmp_path / "messages.html"
    p.write_text(body, encoding="utf-8")
    a, b, c, d = TelegramHtmlIngestor(local_timezone="Europe/Berlin").read(p)
    # Telegram writes the zone's standard offset (+01:00) in summer too: Berlin's summer time (+02:00) applies
    assert a.sent_at.astimezone(UTC) == utc(2021, 7, 1, 16, 0) and a.attrs["time_basis"] == "export-local"
    # an offset that is not Berlin's: read as written
    assert b.sent_at.astimezone(UTC) == utc(2021, 7, 1, 23, 0)
    assert b.attrs["time_basis"] == "export-standard-offset"
    # no offset: the assumed zone, labelled
    assert c.sent_at.astimezone(UTC) == utc(2019, 7, 1, 10, 0) and c.attrs["time_basis"] == "assumed-local"
    assert c.notes == ["no UTC offset in the export: time read in Europe/Berlin"]
    assert d.sent_at is None and d.notes == ["no readable date: time unknown"] and d.text == "no time"
    a2, b2, c2, _ = TelegramHtmlIngestor().read(p)  # the default zone, UTC
    assert a2.sent_at.astimezone(UTC) == utc(2021, 7, 1, 17, 0) and a2.attrs["utc_offset"] == "UTC+01:00"
    assert c2.sent_at == utc(2019, 7, 1, 12, 0) and c2.notes == ["no UTC offset in the export: time read in UTC"]


# ----------------------------------------------------------------------------- text, sniffing, damage

def test_plain_text_keeps_what_was_written():
    from bs4 import BeautifulSoup

    html = ('<div class="text">\n  two  spaces<br><em>it</em> <code>x = 1</code> '
            '<span class="spoiler hidden" onclick="ShowSpoiler(this)"><span aria-hidden="true">secret</span></span>'
            ' <a href="" onclick="return ShowHashtag(&quot;tag&quot;)">#tag</a>\n      </div>')
    links: list[str] = []
    tag = BeautifulSoup(html, "html.parser").div
    assert plain_text(tag, links) == "  two  spaces\nit x = 1 secret #tag" and links == []
    assert plain_text(None) == ""


def test_sniffing_and_other_pages_of_the_export(tmp_path):
    folder = chat_folder(tmp_path / "export")
    assert ingestor_for(folder / "messages.html").name == "telegram-html"
    other = tmp_path / "index.html"
    other.write_text("<!DOCTYPE html><html><head><title>My page</title></head><body><p>hi</p></body></html>")
    assert ingestor_for(other) is None  # stays "unsupported file type: .html"
    with pytest.raises(InputError, match="not a Telegram Desktop export page"):
        list(TelegramHtmlIngestor().read(other))
    lists = tmp_path / "lists" / "chats.html"
    lists.parent.mkdir()
    lists.write_text(page("Chats").replace('<div class="history">', '<div class="entry_list">'))
    assert ingestor_for(lists).name == "telegram-html" and list(TelegramHtmlIngestor().read(lists)) == []
    css = tmp_path / "css" / "style.css"
    css.parent.mkdir()
    css.write_text("body { margin: 0; }")
    assert ingestor_for(css).name == "telegram-html" and list(TelegramHtmlIngestor().read(css)) == []
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 40
    (tmp_path / "images").mkdir()
    icon, picture = tmp_path / "images" / "media_photo@2x.png", tmp_path / "images" / "beach.png"
    icon.write_bytes(png)
    picture.write_bytes(png)
    assert ingestor_for(icon).name == "telegram-html"  # Telegram's own icon, not a photo
    assert ingestor_for(picture).name == "photo"


def test_a_page_cut_short_keeps_what_came_before(tmp_path):
    p = tmp_path / "messages.html"
    cut = PAGE1.index("</a>", PAGE1.index('class="sticker_wrap')) + 4
    p.write_text(PAGE1[:cut], encoding="utf-8")  # inside message 107, after its sticker
    items = list(TelegramHtmlIngestor().read(p))
    records = [i for i in items if isinstance(i, Record)]
    assert [r.external_id for r in records] == ["message 101", "message 102", "message 103", "message 104",
                                                "message 106", "message 107"]
    assert records[-1].notes == ["media: sticker", "file ends early: this message may be cut off"]
    assert isinstance(items[-1], RecordError) and items[-1].locator == "end of file"
    assert items[-1].reason == ("the file ends early (no closing </html>): the 6 messages before the break were "
                                "read, the rest is missing")


def test_bytes_that_are_not_utf8_are_replaced_and_noted(tmp_path):
    p = tmp_path / "messages.html"
    p.write_bytes(PAGE2.replace("Morning!", "Morning\x00!").encode("utf-8").replace(b"Morning", b"Morn\xe9ing"))
    first = next(iter(TelegramHtmlIngestor().read(p)))
    assert first.text == "Morn\ufffding!"
    assert "file repaired: 1 byte that are not UTF-8 replaced" in first.notes


def test_a_message_without_a_body_is_an_error_and_the_rest_is_read(tmp_path):
    broken = PAGE2.replace('<div class="body">\n', '<div class="bodyx">\n', 1)
    p = tmp_path / "messages.html"
    p.write_text(broken, encoding="utf-8")
    items = list(TelegramHtmlIngestor().read(p))
    assert isinstance(items[0], RecordError) and items[0].locator == "message 201"
    assert "no body" in items[0].reason
    # the joined message after the broken one has no sender it could take
    assert [(i.external_id, i.sender) for i in items[1:]] == [("message 202", None), ("message 204", BRUNO)]


# ----------------------------------------------------------------------------- whole import

def test_a_whole_account_export_folder_and_its_zip(container, tmp_path):
    from app.operations.ingest import ingest

    root = tmp_path / "Telegram Desktop" / "DataExport_2023-03-16"
    (root / "lists").mkdir(parents=True)
    (root / "export_results.html").write_text(page("Exported Data").replace('<div class="history">', "<div>"))
    (root / "lists" / "chats.html").write_text(page("Chats").replace('<div class="history">', "<div>"))
    for sub, content in (("css/style.css", "body {}"), ("js/script.js", "function CheckLocation() {}"),
                         ("images/back.png", "png"), ("images/back@2x.png", "png")):
        (root / sub).parent.mkdir(exist_ok=True)
        (root / sub).write_text(content)
    chat = root / "chats" / "chat_001"
    chat.mkdir(parents=True)
    (chat / "messages.html").write_text(PAGE1.replace('"css/', '"../../css/'), encoding="utf-8")
    (chat / "messages2.html").write_text(PAGE2, encoding="utf-8")
    damaged = root / "chats" / "chat_002" / "messages.html"
    damaged.parent.mkdir()
    damaged.write_text(page("Bruno Costa", message(7, T.format("10:00:00"), "10:00", "Bruno Costa",
                                                   text("kayak on Sunday")))[:-30], encoding="utf-8")
    report = ingest(container, [root])
    assert report.records_added == 7 + 3 + 1
    assert [(Path(e.path).name, e.locator) for e in report.errors] == [("messages.html", "end of file")]
    assert Path(report.errors[0].path) == damaged.resolve()
    from sqlmodel import select

    from core.store.schema import QuarantineItem, Record as Row

    with container.db.session() as s:
        quarantined = [Path(q.path) for q in s.exec(select(QuarantineItem)).all()]
        texts = set(s.exec(select(Row.text)).all())
    assert quarantined == [damaged.resolve()]
    assert {"kayak on Sunday", "I'll drive", "Trains cancelled on Friday"} <= texts
    # the same export zipped: nothing new (the same messages), nothing unsupported
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for f in sorted(root.rglob("*")):
            if f.is_file():
                zf.write(f, f.relative_to(root.parent).as_posix())
    again = ingest(container, [archive])
    assert again.records_added == 0 and again.records_skipped == 11
    assert [e.locator for e in again.errors] == ["end of file"]


# ----------------------------------------------------------------------------- channels (task: not people)

def test_a_channel_is_told_by_its_signatures_or_the_account_list(tmp_path):
    post = message(3, T.format("08:00:00"), "08:00", "Daily News", text("Trains cancelled on Friday"),
                   div("signature details", "Mia Ross"))
    p = tmp_path / "one" / "messages.html"
    p.parent.mkdir()
    p.write_text(page("Daily News", service(2, "Channel &laquo;Daily News&raquo; created"), post), encoding="utf-8")
    rec, = TelegramHtmlIngestor().read(p)
    assert rec.sender == Party("Daily News", None, "handle", "from") and rec.recipients == []
    assert rec.attrs["sender_group"] == "telegram_channel" and rec.attrs["signature"] == "Mia Ross"
    assert rec.attrs["system_events"][0]["action"] == "create_channel"
    # a whole-account export: lists/chats.html says which chat is a channel, which a group
    root = tmp_path / "DataExport"
    (root / "lists").mkdir(parents=True)
    entries = "".join(
        f'<a class="entry block_link clearfix" href="../chats/chat_00{n}/messages.html#allow_back">'
        f'<div class="pull_left userpic_wrap"></div><div class="body"><div class="pull_right info details">{kind}'
        f'</div><div class="name bold">{name}</div><div class="details_entry details">2 messages</div></div></a>'
        for n, name, kind in ((1, "Weekend Hikes", "channel"), (2, "Paddle club", "group")))
    (root / "lists" / "chats.html").write_text(page("Chats").replace('<div class="history">',
                                                                     f'<div class="entry_list">{entries}'))
    for n, name, posts in ((1, "Weekend Hikes", [("Weekend Hikes", "Saturday: Blue Ridge")]),
                           (2, "Paddle club", [("Paddle club", "Meeting moved to 9"), ("Ana Lima", "ok")])):
        folder = root / "chats" / f"chat_00{n}"
        folder.mkdir(parents=True)
        (folder / "messages.html").write_text(page(name, *[
            message(10 + i, T.format(f"09:0{i}:00"), f"09:0{i}", who, text(words))
            for i, (who, words) in enumerate(posts)]), encoding="utf-8")
    hikes, = TelegramHtmlIngestor().read(root / "chats" / "chat_001" / "messages.html")
    admin, ana = TelegramHtmlIngestor().read(root / "chats" / "chat_002" / "messages.html")
    assert hikes.attrs["sender_group"] == "telegram_channel"
    assert admin.attrs["sender_group"] == "telegram_group" and admin.recipients == [member(ANA)]
    assert "sender_group" not in ana.attrs and ana.recipients == []
    # a one-chat export that shows nothing of a channel is read as a chat
    plain = tmp_path / "two" / "messages.html"
    plain.parent.mkdir()
    plain.write_text(page("Ana Lima", message(1, T.format("10:00:00"), "10:00", "Ana Lima", text("hi"))))
    assert "sender_group" not in next(iter(TelegramHtmlIngestor().read(plain))).attrs


def test_channels_are_groups_after_an_import(container, tmp_path):
    from app.operations.browse import browse_entities
    from app.operations.ingest import ingest

    data = {"name": "Daily News", "type": "public_channel", "id": 777, "messages": [
        {"id": 2, "type": "message", "date_unixtime": "1714557600", "from": "Daily News", "from_id": "channel777",
         "text": "Trains cancelled on Friday"}]}
    (tmp_path / "json").mkdir()
    (tmp_path / "json" / "result.json").write_text(json.dumps(data), encoding="utf-8")
    chat_folder(tmp_path / "html")
    report = ingest(container, [tmp_path / "json", tmp_path / "html"])
    assert report.errors == [] and report.records_added == 1 + 10
    rows = browse_entities(container)
    # the channel is a group; "Daily News" forwarded in the HTML chat (no id, nothing says it is a channel)
    # stays a name Kith cannot tell apart from a person's
    assert sorted(r.kind for r in rows if r.name == "Daily News") == ["group", "person"]
    assert {r.name: r.kind for r in rows if r.name in ("Ana Lima", "Bruno Costa", "Carla Dias")} == {
        "Ana Lima": "person", "Bruno Costa": "person", "Carla Dias": "person"}

"""One message reached through two export formats of one service is one record: a Telegram chat's
``result.json`` and its HTML export (``messages.html``), and a WhatsApp chat's ``_chat.txt`` and the ``.zip`` the
phone shares, imported one after the other through the real ingest path, in either order.  Files written here."""
from __future__ import annotations

import json
import sqlite3
import zipfile
from datetime import datetime, timezone

import pytest

from app.operations.ingest import ingest

CHAT = "Paddle club"
MSGS = [  # id, sender, sender's Telegram id, UTC time, text
    (101, "Ana Lima", "user501", datetime(2023, 3, 14, 17, 2, 11, tzinfo=timezone.utc), "Dinner at Casa Azul on Friday?"),
    (102, "Bruno Costa", "user502", datetime(2023, 3, 14, 17, 3, 40, tzinfo=timezone.utc), "Table for 4, I'll book"),
    (103, "Ana Lima", "user501", datetime(2023, 3, 14, 17, 10, 0, tzinfo=timezone.utc), "Great & thanks"),
]


def _json(folder):
    folder.mkdir()
    data = {"name": CHAT, "type": "private_group", "id": 4242, "messages": [
        {"id": mid, "type": "message", "date": at.astimezone().replace(tzinfo=None).isoformat(),
         "date_unixtime": str(int(at.timestamp())), "from": who, "from_id": uid, "text": words}
        for mid, who, uid, at, words in MSGS]}
    (folder / "result.json").write_text(json.dumps(data), encoding="utf-8")
    return folder / "result.json"


def _html(folder):
    """messages.html as Telegram Desktop writes it (the parts the reader reads), times at UTC+01:00."""
    folder.mkdir()
    rows = []
    for mid, who, _uid, at, words in MSGS:
        local = at.astimezone(timezone.utc).replace(tzinfo=None) + (datetime(2000, 1, 1, 1) - datetime(2000, 1, 1))
        title = local.strftime("%d.%m.%Y %H:%M:%S") + " UTC+01:00"
        rows.append(f'<div class="message default clearfix" id="message{mid}">\n'
                    f' <div class="body">\n  <div class="pull_right date details" title="{title}">'
                    f'{local:%H:%M}</div>\n  <div class="from_name">{who}</div>\n'
                    f'  <div class="text">{words.replace("&", "&amp;")}</div>\n </div>\n</div>\n')
    page = ('<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8"/>\n<title>Exported Data</title>\n</head>\n'
            '<body>\n<div class="page_wrap">\n<div class="page_header">\n<div class="content">\n'
            f'<div class="text bold">{CHAT}</div>\n</div>\n</div>\n<div class="page_body chat_page">\n'
            '<div class="history">\n' + "".join(rows) + "</div>\n</div>\n</div>\n</body>\n</html>\n")
    (folder / "messages.html").write_text(page, encoding="utf-8")
    return folder / "messages.html"


def _texts(c) -> list[str]:
    db = sqlite3.connect(str(c.settings.db_path))
    try:
        return sorted(t for (t,) in db.execute("SELECT text FROM record WHERE tombstoned_at IS NULL"))
    finally:
        db.close()


@pytest.mark.parametrize("first", ["json", "html"])
def test_a_telegram_chat_exported_as_json_and_as_html_is_imported_once(container, tmp_path, first):
    paths = {"json": _json(tmp_path / "ChatExport_json"), "html": _html(tmp_path / "ChatExport_html")}
    second = "html" if first == "json" else "json"
    rep = ingest(container, [paths[first]])
    assert rep.records_added == 3 and not rep.errors
    rep = ingest(container, [paths[second]])
    assert (rep.records_added, rep.records_skipped) == (0, 3) and not rep.errors  # "already known"
    assert _texts(container) == sorted(m[4] for m in MSGS)
    # a message only one of them holds still comes
    extra = json.loads(paths["json"].read_text(encoding="utf-8"))
    extra["messages"].append({"id": 104, "type": "message", "date_unixtime": "1678814000", "from": "Bruno Costa",
                              "from_id": "user502", "text": "See you there"})
    paths["json"].write_text(json.dumps(extra), encoding="utf-8")
    assert ingest(container, [paths["json"]]).records_added == 1
    assert len(_texts(container)) == 4


def test_the_same_message_id_in_another_chat_of_the_same_name_is_not_taken_for_it(container, tmp_path):
    first = _json(tmp_path / "one")
    ingest(container, [first])
    data = json.loads(first.read_text(encoding="utf-8"))
    for m in data["messages"]:  # another group with the same name, other people, the same message ids
        m["from"], m["from_id"], m["text"] = "Carla Dias", "user503", "other words " + str(m["id"])
    other = tmp_path / "two"
    other.mkdir()
    (other / "result.json").write_text(json.dumps({**data, "id": 999}), encoding="utf-8")
    assert ingest(container, [other / "result.json"]).records_added == 3


WA = """[02/04/2023, 09:00:00] Ana Lima: The kayak trip is on for Sunday
[02/04/2023, 09:01:00] Owner Person: Great, bring the paddles
"""


@pytest.mark.parametrize("first", ["txt", "zip"])
def test_a_whatsapp_chat_as_txt_and_as_the_shared_zip_is_imported_once(container, tmp_path, first):
    folder = tmp_path / "WhatsApp Chat - Ana Lima"
    folder.mkdir()
    (folder / "_chat.txt").write_text(WA, encoding="utf-8")
    z = tmp_path / "WhatsApp Chat - Ana Lima.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("_chat.txt", WA)
    order = [folder / "_chat.txt", z] if first == "txt" else [z, folder / "_chat.txt"]
    assert ingest(container, [order[0]]).records_added == 2
    rep = ingest(container, [order[1]])
    assert (rep.records_added, rep.records_skipped) == (0, 2) and not rep.errors
    assert _texts(container) == ["Great, bring the paddles", "The kayak trip is on for Sunday"]


def test_an_export_folder_holding_both_formats_gives_each_message_once(container, tmp_path):
    """Telegram Desktop's "HTML and JSON" export writes both into one folder; the folder is dragged in whole."""
    folder = tmp_path / "ChatExport_2023-03-15"
    _json(folder)
    (folder / "result.json").rename(tmp_path / "result.json")
    folder.rmdir()
    _html(folder)
    (tmp_path / "result.json").rename(folder / "result.json")
    rep = ingest(container, [folder])
    assert (rep.records_added, rep.records_skipped) == (3, 3) and not rep.errors
    assert _texts(container) == sorted(m[4] for m in MSGS)

"""Forget means gone for this stop's new kinds of records and fields (issue 11), on inputs the tests write:
a mail forwarded inline (its own record under the forwarded sender), a file attached to a mail and named
after the person (``attrs["attachments"]``), WhatsApp system lines the person is the actor of, Messenger
reactions and calls.  Each test forgets Xavier Quint for good, then reads every byte of the data folder for
his name, his address and his words, and checks that what others wrote stays."""
from __future__ import annotations

import json
import mailbox
import sqlite3
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import format_datetime

from app.operations.forget import forget
from app.operations.ingest import ingest
from helpers.files import scan

X, X_ADDR = "Xavier Quint", "xavier.quint@acme.io"
T0 = datetime(2023, 4, 2, 9, 30, tzinfo=timezone.utc)


def rows(c, sql: str, params=()) -> list[tuple]:
    db = sqlite3.connect(str(c.settings.db_path))
    try:
        return db.execute(sql, params).fetchall()
    finally:
        db.close()


def purge_him(c) -> None:
    rep = forget(c, X, purge=True)
    assert rep.state == "purged"


def _mail(frm: str, to: str, subject: str, body: str, i: int, files=()) -> EmailMessage:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = frm, to, subject
    m["Date"] = format_datetime(T0 + timedelta(days=i))
    m["Message-ID"] = f"<kinds-{i}@example.test>"
    m.set_content(body)
    for name in files:
        m.add_attachment(b"%PDF-1.4 test", maintype="application", subtype="pdf", filename=name)
    return m


def test_mail_forwarded_inline_quoted_and_attached_files_named_after_him(container, tmp_path):
    container.settings.owner_emails = ["owner@example.net"]
    container.settings.owner_name = "Owner Person"
    me, x, y = "Owner Person <owner@example.net>", f"{X} <{X_ADDR}>", "Yara Okafor <yara@example.org>"
    path = tmp_path / "mail.mbox"
    box = mailbox.mbox(str(path), create=True)
    for m in (
        _mail(x, me, "Greenhouse", "Hi,\nThe tomato seedlings glow purple at dusk.\n", 0),
        _mail(y, me, "Fwd: Greenhouse notes", "Look at this, the compost heap is brilliant.\n\n"
              "---------- Forwarded message ---------\n"
              f"From: {x}\nDate: Mon, 3 Apr 2023 at 10:00\nSubject: Greenhouse notes\nTo: {y}\n\n"
              "Our heirloom seedlings shimmer violet whenever the lamps dim.\n", 1),
        _mail(me, x, "Your CV", "Here is the quarterly turnip ledger you asked for.", 2,
              files=["Xavier_Quint_cv.pdf", "XavierQuint-portfolio.pdf", "garden-plan.pdf"]),
        _mail(y, me, "Re: Greenhouse", "The marigold border is lovely.\n\n"
              f"On Mon, 3 Apr 2023 at 10:00, {x} wrote:\n> The tomato seedlings glow purple at dusk.\n", 3),
    ):
        box.add(mailbox.mboxMessage(m))
    box.flush()
    box.close()
    rep = ingest(container, [path])
    # the forwarded message is a record of its own; the one Yara's reply quotes is his first mail, already there
    assert rep.records_added == 5 and rep.records_skipped == 1 and not rep.errors
    assert rows(container, "SELECT count(*) FROM record WHERE attrs LIKE '%Xavier_Quint_cv.pdf%'") == [(1,)]

    purge_him(container)
    home = container.settings.home
    assert scan(home, [X, "Xavier", "Quint", X_ADDR, "glow purple", "shimmer violet", "heirloom"]) == {}
    # what others wrote stays: Yara's own lines, the owner's mail and the other file's name
    texts = [t for (t,) in rows(container, "SELECT text FROM record")]
    assert any("compost heap is brilliant" in t for t in texts)
    assert any(t.strip() == "The marigold border is lovely." for t in texts)  # his quoted mail went with him
    assert any("quarterly turnip ledger" in t for t in texts)
    (attrs,) = rows(container, "SELECT attrs FROM record WHERE subject = 'Your CV'")[0]
    assert json.loads(attrs)["attachments"] == ["[forgotten]_cv.pdf", "[forgotten]-portfolio.pdf", "garden-plan.pdf"]
    # no concept is left that only his name gave a kept message ("quint" from the file name)
    assert rows(container, "SELECT label FROM concept WHERE label LIKE '%quint%'") == []


WA = """[02/04/2023, 09:00:00] Garden Club: \u200eYara Okafor created group "Garden Club"
[02/04/2023, 09:00:01] Garden Club: \u200eYara Okafor added Xavier Quint
[02/04/2023, 09:01:00] Xavier Quint: The seedlings glow purple near the pond
[02/04/2023, 09:02:00] Yara Okafor: Yara bought a wheelbarrow today
[02/04/2023, 09:03:00] Xavier Quint: \u200eXavier Quint changed the group description
[02/04/2023, 09:03:30] Xavier Quint: \u200eMissed voice call
[02/04/2023, 09:04:00] Bruno Costa: Bruno planted garlic, thanks Xavier Quint
[02/04/2023, 09:05:00] Garden Club: \u200eXavier Quint left
[02/04/2023, 09:06:00] Bruno Costa: Bruno trims the hedge
[02/04/2023, 09:07:00] Garden Club: \u200eXavier Quint changed the subject to "Xavier's lilac seedlings"
"""


def test_whatsapp_group_with_his_system_lines(container, tmp_path):
    folder = tmp_path / "WhatsApp Chat - Garden Club"
    folder.mkdir()
    (folder / "_chat.txt").write_text(WA, encoding="utf-8")
    rep = ingest(container, [folder / "_chat.txt"])
    assert rep.records_added == 4 and not rep.errors
    assert rows(container, "SELECT count(*) FROM evidence WHERE excerpt LIKE '%thanks Xavier Quint%'")[0][0] >= 1

    purge_him(container)
    home = container.settings.home
    # his name, his message, and what his own system lines said (the subject he chose) are nowhere
    assert scan(home, [X, "Xavier", "Quint", "glow purple", "lilac"]) == {}
    texts = sorted(t for (t,) in rows(container, "SELECT text FROM record"))
    assert texts == ["Bruno planted garlic, thanks [forgotten]", "Bruno trims the hedge",
                     "Yara bought a wheelbarrow today"]
    # the evidence excerpt of a fact that stays is redacted like the message it quotes
    assert set(rows(container, "SELECT excerpt FROM evidence WHERE excerpt LIKE '%garlic%'")) == {
        ("Bruno planted garlic, thanks [forgotten]",)}
    # the group's own system line stays; his acts (left, changed the subject, description, call) do not
    events = [e for (a,) in rows(container, "SELECT attrs FROM record") for e in json.loads(a).get("system_events", [])]
    assert all("[forgotten]" not in e["text"] and e.get("shown_as") != "[forgotten]" for e in events)
    # the word index of a redacted turn's neighbours holds its redacted words, not the old ones
    near = " ".join(n for (n,) in rows(container, "SELECT near1 || ' ' || near2 FROM episode_lex"))
    assert "garlic forgotten" in near


def test_messenger_reactions_calls_and_notices(container, tmp_path):
    moj = "\u00e2\u009d\u00a4"  # ❤ as Meta writes it (UTF-8 read as Latin-1)
    export = {"participants": [{"name": X}, {"name": "Yara Okafor"}, {"name": "Owner Person"}],
              "messages": [
                  {"sender_name": "Yara Okafor", "timestamp_ms": 1680430000000, "content": "Yara repotted the fern",
                   "type": "Generic", "reactions": [{"reaction": moj, "actor": X},
                                                    {"reaction": moj, "actor": "Owner Person"}]},
                  {"sender_name": X, "timestamp_ms": 1680429000000, "content": f"{X} reacted {moj} to your message",
                   "type": "Generic"},
                  {"sender_name": X, "timestamp_ms": 1680428000000, "content": "Amber glowing seedlings again",
                   "type": "Generic"},
                  {"sender_name": X, "timestamp_ms": 1680427000000, "content": "", "type": "Call", "call_duration": 35},
                  {"sender_name": "Owner Person", "timestamp_ms": 1680425000000, "content": "Owner waters the basil",
                   "type": "Generic"}],
              "title": "Garden chat", "thread_path": "inbox/gardenchat_123", "magic_words": []}
    folder = tmp_path / "messages" / "inbox" / "gardenchat_123"
    folder.mkdir(parents=True)
    (folder / "message_1.json").write_text(json.dumps(export), encoding="utf-8")
    rep = ingest(container, [folder / "message_1.json"])
    assert rep.records_added == 3 and not rep.errors

    purge_him(container)
    home = container.settings.home
    assert scan(home, [X, "Xavier", "Quint", "Amber glowing"]) == {}
    (attrs,) = rows(container, "SELECT attrs FROM record WHERE text = 'Yara repotted the fern'")[0]
    attrs = json.loads(attrs)
    assert [r["actor"] for r in attrs["reactions"]] == ["Owner Person"]  # his reaction went, the owner's stays
    assert not [e for e in attrs.get("system_events", []) if e.get("actor") in (X, "[forgotten]")]
    assert sorted(t for (t,) in rows(container, "SELECT text FROM record")) == ["Owner waters the basil",
                                                                             "Yara repotted the fern"]

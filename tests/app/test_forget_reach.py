"""Forget reaches people the other forget tests do not (issue 11): someone only in a mail's Cc, someone only in a
group chat's member list, someone merged from two identities (a chat name and a mail address), and someone whose
merge was undone.  Each is forgotten for good, then every file of the data folder is read for their name,
address and words; what others wrote stays.  Inputs are written by the test."""
from __future__ import annotations

import json
import mailbox
import sqlite3
from email.message import EmailMessage

from app.jobs import regenerate_summaries
from app.operations.forget import forget
from app.operations.ingest import ingest
from app.operations.review import merge_entities, undo_merge
from helpers.files import scan


def texts(c) -> list[str]:
    db = sqlite3.connect(str(c.settings.db_path))
    try:
        return sorted(t.strip() for (t,) in db.execute("SELECT text FROM record"))
    finally:
        db.close()


def ids(c) -> dict[str, int]:
    db = sqlite3.connect(str(c.settings.db_path))
    try:
        return dict(db.execute("SELECT canonical_name, id FROM entity WHERE tombstoned_at IS NULL"))
    finally:
        db.close()


def _setup(c, tmp_path):
    c.settings.owner_emails = ["owner@example.net"]
    c.settings.owner_name = "Owner Person"
    box = mailbox.mbox(str(tmp_path / "m.mbox"), create=True)
    for i, (frm, cc, subject, body) in enumerate([
            ("Yara Okafor <yara@example.org>", "Quentin Zephyr <quentin.zephyr@zz.io>", "Garden",
             "The marigolds bloomed."),
            ("Mira Holt <mira@holt.io>", None, "Hello", "The saffron kite flew over the pier."),
            ("Rex Dunmore <rex@dunmore.io>", None, "Boat", "The cobalt dinghy leaks again.")]):
        m = EmailMessage()
        m["From"], m["To"], m["Subject"] = frm, "Owner Person <owner@example.net>", subject
        if cc:
            m["Cc"] = cc
        m["Date"], m["Message-ID"] = f"Mon, {3 + i} Apr 2023 10:00:00 +0000", f"<reach-{i}@example.test>"
        m.set_content(body)
        box.add(mailbox.mboxMessage(m))
    box.flush()
    box.close()
    group = tmp_path / "messages" / "inbox" / "bookclub_1"
    group.mkdir(parents=True)
    (group / "message_1.json").write_text(json.dumps({
        "participants": [{"name": "Wendell Quarry"}, {"name": "Yara Okafor"}, {"name": "Owner Person"}],
        "title": "Book club", "thread_type": "RegularGroup",
        "messages": [{"sender_name": "Yara Okafor", "timestamp_ms": 1680600000000, "content": "Next book is Dune"}]}),
        encoding="utf-8")
    chat = tmp_path / "WhatsApp Chat - Rex"
    chat.mkdir()
    (chat / "_chat.txt").write_text("[05/04/2023, 09:00:00] Rex: the cobalt dinghy sank\n"
                                    "[05/04/2023, 09:01:00] Owner Person: oh no\n"
                                    "[05/04/2023, 09:02:00] Rex: call me on +1 415 555 0199\n", encoding="utf-8")
    mira = tmp_path / "WhatsApp Chat - Mira"
    mira.mkdir()
    (mira / "_chat.txt").write_text("[06/04/2023, 09:00:00] Mira: my violet canoe is ready\n", encoding="utf-8")
    rep = ingest(c, [tmp_path / "m.mbox", group / "message_1.json", chat / "_chat.txt", mira / "_chat.txt"])
    assert rep.records_added == 8 and not rep.errors


def test_a_person_only_in_cc_or_only_in_a_group_member_list_is_erased(container, tmp_path):
    _setup(container, tmp_path)
    regenerate_summaries(container)
    for who, words in (("Quentin Zephyr", ["Quentin", "Zephyr", "quentin.zephyr@zz.io", "zz.io"]),
                       ("Wendell Quarry", ["Wendell", "Quarry"])):
        assert set(scan(container.settings.home, words)) == set(words)
        assert forget(container, who, purge=True).state == "purged"
        assert scan(container.settings.home, words) == {}
    assert "The marigolds bloomed." in texts(container) and "Next book is Dune" in texts(container)


def test_a_person_merged_from_a_chat_name_and_a_mail_address_is_erased_for_good(container, tmp_path):
    """The merge gives the survivor two facts of the same key; the purge used to fail on them
    (sqlite3.IntegrityError in the one-active-fact index) and left everything in place."""
    _setup(container, tmp_path)
    e = ids(container)
    merge_entities(container, e["Rex Dunmore"], e["Rex"])
    regenerate_summaries(container)
    rep = forget(container, "Rex Dunmore", purge=True)
    assert rep.state == "purged" and rep.counts["graph"]["records"] == 3
    # ("Rex" alone is in SQLite's bytes by chance: "member" + "exact_name"); his one-word chat name in the
    # thread of the owner's line that stays ("whatsapp:whatsapp chat - rex", machine-written, lower-cased) goes too
    assert scan(container.settings.home, ["Dunmore", "rex@dunmore.io", "cobalt dinghy", "555 0199", "4155550199",
                                          "chat - rex", "Rex:", "Rex/"]) == {}
    assert "oh no" in texts(container) and "The marigolds bloomed." in texts(container)
    db = sqlite3.connect(str(container.settings.db_path))
    try:
        assert db.execute("SELECT thread FROM record WHERE text = 'oh no'").fetchall() == [
            ("whatsapp:whatsapp chat - [forgotten]",)]
    finally:
        db.close()


def test_after_an_undone_merge_forgetting_one_leaves_the_other(container, tmp_path):
    _setup(container, tmp_path)
    e = ids(container)
    review = merge_entities(container, e["Mira Holt"], e["Mira"])
    undo_merge(container, review.id)
    regenerate_summaries(container)
    assert forget(container, "Mira Holt", purge=True).state == "purged"
    assert scan(container.settings.home, ["Mira Holt", "mira@holt.io", "saffron kite"]) == {}
    assert "my violet canoe is ready" in texts(container) and "Mira" in ids(container)
    assert forget(container, "Mira", purge=True).state == "purged"
    assert scan(container.settings.home, ["violet canoe"]) == {}

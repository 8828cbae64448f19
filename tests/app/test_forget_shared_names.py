"""Forgetting one Ben leaves the other Ben alone (issue 11): Ben Carter — known in his chat only as "Ben", merged
by hand with his mail identity — is forgotten for good, while Ben Okafor, another live person, keeps his first
name in his own chat, in mail that names him, in the episodes, the full-text index, the summaries and the
ledger.  A bare "Ben" is redacted only where it can be Ben Carter: in his own thread, or where no other Ben is
a party and the text names no other Ben.  Every expected text below was worked out by hand."""
from __future__ import annotations

import sqlite3

from app.jobs import regenerate_summaries
from app.operations.forget import forget, plan_forget
from app.operations.ingest import ingest
from app.operations.ask import ask
from app.operations.review import merge_entities
from helpers.files import scan
from helpers.mboxes import write_mbox

CARTER_CHAT = """[02/04/2023, 09:00:00] Ben: The kayak trip is on for Sunday
[02/04/2023, 09:01:00] Owner Person: Great, Ben, bring the paddles
[02/04/2023, 09:02:00] Owner Person: Ben Okafor is coming too
"""
OKAFOR_CHAT = """[03/04/2023, 10:00:00] Ben Okafor: Ben here, the violin recital moved to Friday
[03/04/2023, 10:01:00] Owner Person: Thanks Ben, see you Friday
[03/04/2023, 10:02:00] Ben Okafor: Ben Carter sends his regards
"""


def rows(c, sql: str) -> list[tuple]:
    db = sqlite3.connect(str(c.settings.db_path))
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def _chat(tmp_path, title: str, text: str):
    folder = tmp_path / f"WhatsApp Chat - {title}"
    folder.mkdir()
    (folder / "_chat.txt").write_text(text, encoding="utf-8")
    return folder / "_chat.txt"


def _two_bens(container, tmp_path):
    container.settings.owner_emails = ["owner@example.net"]
    container.settings.owner_name = "Owner Person"
    mail = write_mbox(tmp_path / "mail.mbox", [
        ("Ben Carter <ben.carter@example.com>", "Kayak", "Ben Carter here: the lake is frozen solid."),
        ("Dana Reyes <dana@example.com>", "Party", "Ben Okafor said hi. Also ask Ben about it."),
        ("Dana Reyes <dana@example.com>", "Photos", "Ben promised the photos."),
    ])
    rep = ingest(container, [_chat(tmp_path, "Ben Carter", CARTER_CHAT), _chat(tmp_path, "Ben Okafor", OKAFOR_CHAT),
                             mail])
    assert rep.records_added == 9 and not rep.errors
    ids = dict(rows(container, "SELECT canonical_name, id FROM entity WHERE tombstoned_at IS NULL"))
    assert {"Ben", "Ben Carter", "Ben Okafor"} <= set(ids)
    merge_entities(container, ids["Ben Carter"], ids["Ben"])  # the chat's "Ben" is Ben Carter
    regenerate_summaries(container)
    return ids


def test_forgetting_one_ben_redacts_only_where_it_can_be_him(container, tmp_path):
    ids = _two_bens(container, tmp_path)
    okafor = ids["Ben Okafor"]
    assert any("Ben Okafor" in t for (t,) in rows(container, f"SELECT text FROM summary WHERE kind = 'entity' "
                                                              f"AND subject = '{okafor}'"))
    plan = plan_forget(container, "Ben Carter")
    # kept with a mention redacted: his thread's two lines by the owner, Okafor's line naming him in full,
    # Dana's "Ben promised" (no other Ben there)
    assert plan.records == 2 and plan.redacted == 4
    rep = forget(container, "Ben Carter", purge=True)
    assert rep.state == "purged" and rep.counts["graph"]["record_redacted"] == 4

    texts = sorted(t.strip() for (t,) in rows(container, "SELECT text FROM record"))
    assert texts == sorted([
        "Great, [forgotten], bring the paddles",          # his thread: "Ben" is him
        "Ben Okafor is coming too",                       # another live person's full name: never him
        "Ben here, the violin recital moved to Friday",   # Okafor's chat: "Ben" is Okafor
        "Thanks Ben, see you Friday",
        "[forgotten] sends his regards",                  # his full name, wherever it is
        "Ben Okafor said hi. Also ask Ben about it.",     # the text is about the other Ben
        "[forgotten] promised the photos.",               # no other Ben is a party: it can be him
    ])
    # the episodes and the full-text index hold the same words
    eps = sorted(t.strip() for (t,) in rows(container, "SELECT text FROM episode"))
    assert [t for t in eps if "Ben" in t] == sorted([
        "Ben Okafor is coming too", "Ben here, the violin recital moved to Friday", "Thanks Ben, see you Friday",
        "Party\nBen Okafor said hi. Also ask Ben about it."])
    fts = dict(rows(container, "SELECT body, people FROM record_fts WHERE body LIKE '%violin%'"))
    assert fts == {"Ben here, the violin recital moved to Friday": "Ben Okafor"}
    assert any("Ben here, the violin recital" in h.text for h in ask(container, "Ben", k=10))
    # the ledger's messages
    msgs = sorted(t.strip() for (t,) in rows(container, "SELECT text FROM message"))
    assert "Thanks Ben, see you Friday" in msgs and "Ben Okafor said hi. Also ask Ben about it." in msgs
    assert "[forgotten] sends his regards" in msgs and not [m for m in msgs if "Carter" in m or "kayak" in m]
    # Okafor's own facts and summary keep his name
    assert rows(container, f"SELECT count(*) FROM fact WHERE subject_entity_id = {okafor} "
                           "AND statement LIKE '%Ben Okafor%'")[0][0] >= 1
    summary = " ".join(t for (t,) in rows(container, f"SELECT text FROM summary WHERE subject = '{okafor}'"))
    assert "Ben Okafor" in summary and "[forgotten]" not in summary
    # and nothing of Ben Carter is left in any file
    assert scan(container.settings.home, ["Ben Carter", "ben.carter@example.com", "frozen solid", "kayak"]) == {}

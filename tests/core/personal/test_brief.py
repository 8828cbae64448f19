"""The brief: from a constructed conversation with known answers, and from the corpus chat exports."""
from __future__ import annotations

import json
import re
from datetime import datetime, timezone

import numpy as np
import pytest

from core.personal import briefing, observations
from core.personal.conversation import ChatMessage, learn_conversation, plan, turns_of
from core.personal.learn import set_person
from core.personal.signals import DAY, Window, epoch
from tests.core.personal.conftest import T0

t0 = epoch(T0)
H = 3600.0
IDS = {"me": 1, "sarah": 2}


def fake_embed(texts):
    out = np.zeros((len(texts), 384), np.float32)
    for i, t in enumerate(texts):
        out[i, hash(t.split()[0].lower()) % 384] = 1.0
    return out


def constructed(days: int = 28) -> list[ChatMessage]:
    """Every day: 09:00 football (answered in 40 s), 14:00 work (never answered), 21:00 dinner (answered in 30 min)."""
    msgs = []
    for d in range(days):
        b = t0 + d * DAY
        msgs += [ChatMessage("me", b + 9 * H, "morning! did you see the football match last night?"),
                 ChatMessage("sarah", b + 9 * H + 40, "yes!! what a game, arsenal were brilliant, loved it"),
                 ChatMessage("me", b + 14 * H, "any news on the project deadline at work?"),
                 ChatMessage("me", b + 21 * H, "fancy dinner at the new pizza place this weekend?"),
                 ChatMessage("sarah", b + 21 * H + 1800, "sounds lovely, yes let's do dinner and pizza")]
    return msgs


def test_turns_and_plan_rules():
    msgs = [ChatMessage("me", 0, "hi"), ChatMessage("me", 60, "how was work?"),     # one turn (60 s gap)
            ChatMessage("sarah", 100, "good, I started playing guitar"),            # reply; guitar unprompted
            ChatMessage("me", 10_000, "cool"),                                      # silent: owner writes again
            ChatMessage("me", 20_000, "see you at the gym?"),                      # silent: nothing in 24 h
            ChatMessage("sarah", 20_000 + 2 * DAY, "sorry, was away")]              # she writes first
    turns = turns_of(msgs)
    assert [t.sender for t in turns] == ["me", "sarah", "me", "me", "sarah"]
    p = plan(turns, "me")
    assert [(x.prompt, x.reply) for x in p] == [(0, 1), (2, None), (3, None), (None, 4)]
    assert p[0].initiated == ("music",)


def test_brief_of_constructed_conversation_has_the_known_answers(ledger):
    set_person(ledger, 2, name="Sarah", relationship="friend", timezone="UTC")
    res = learn_conversation(ledger, constructed(), "me", IDS.__getitem__, conversation="wa:sarah",
                             embed=fake_embed)
    assert (res.replies, res.silences) == (56, 28)
    now = t0 + 28 * DAY
    assert ledger.windowed("went_silent", 2, Window.D7, now) == (7, 7.0)
    b = briefing.assemble(ledger, 2, now, context="football tonight?")
    assert b.timing.fastest_reply_hours == [9]           # 40 s replies at 09:00
    assert b.timing.most_active_hours == [9, 21]
    assert b.timing.goes_silent_after == 14              # the 14:00 work messages go unanswered
    assert b.timing.hour_buckets[9] == 28 and b.timing.hour_buckets[14] == 0
    assert sum(map(sum, b.timing.heatmap)) == 56 and b.timing.heatmap[0][9] == 4   # 4 Mondays at 09h
    assert b.topics.cold[0].topic == "work"               # the topic they go silent on
    assert {h.topic for h in b.topics.hot} == {"football", "food"}
    assert all(h.velocity == "stable" for h in b.topics.hot)  # one a day for 28 days
    assert b.person.interaction_count == 56 and b.person.name == "Sarah"
    assert any("work" in p for p in b.what_doesnt_work.low_engagement_patterns)
    assert b.what_works.recent_positive_messages
    assert "friends" in b.cohort_priors and b.cohort_priors["friends"]["weight"] == pytest.approx(1 / 6.6, abs=1e-4)
    doc = json.loads(b.dumps())
    assert set(doc) >= {"person", "topics", "style", "timing", "what_works", "what_doesnt_work",
                        "observations", "cohort_priors"}
    assert briefing.Brief.model_validate(doc) == b
    text = briefing.render(b)
    assert "Sarah" in text and "work" in text
    # template observations from the brief, stored, then retrieved into the next brief
    for stmt, cat in observations.from_brief(b):
        observations.write(ledger, 2, stmt, cat, now)
    b2 = briefing.assemble(ledger, 2, now, context="what time does she reply")
    assert any("09:00" in o for o in b2.observations) and len(b2.observations) <= 5


def test_brief_is_read_only(ledger):
    """Assembling a brief changes no row of any ledger table (every table's rows, compared whole; on SQLite the
    connection's change counter too)."""
    import core.store.personal_schema as ps
    from sqlmodel import SQLModel

    tables = sorted(t.name for t in SQLModel.metadata.sorted_tables
                    if any(getattr(m, "__tablename__", None) == t.name for m in vars(ps).values()))
    assert {"signal", "signal_agg", "signal_wm", "observation", "preference_vector"} <= set(tables)

    def state():
        rows = {t: sorted(map(repr, ledger.conn.execute(f"SELECT * FROM {t}").fetchall())) for t in tables}
        if getattr(ledger.conn, "dialect_name", "sqlite") != "postgresql":
            rows["changes"] = ledger.conn.execute("SELECT total_changes()").fetchone()
        return rows

    learn_conversation(ledger, constructed(3), "me", IDS.__getitem__)
    before = state()
    assert before["signal"]
    briefing.assemble(ledger, 2, t0 + 3 * DAY)
    assert state() == before


# --------------------------------------------------------------------------- corpus exports
_WA = re.compile(r"^(\d\d)/(\d\d)/(\d\d), (\d\d):(\d\d) - ([^:]+): ?(.*)$")


def parse_whatsapp_ddmmyy(path) -> list[ChatMessage]:
    """Minimal WhatsApp 'DD/MM/YY, HH:MM - Name: text' reader (continuation lines appended; system lines skipped)."""
    out: list[ChatMessage] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = _WA.match(line)
        if m:
            d, mo, y, hh, mm, who, text = m.groups()
            out.append(ChatMessage(who.strip(), datetime(2000 + int(y), int(mo), int(d), int(hh), int(mm),
                                                          tzinfo=timezone.utc), text))
        elif out and not re.match(r"^\d\d/\d\d/\d\d, ", line):
            out[-1] = ChatMessage(out[-1].sender, out[-1].at, out[-1].text + "\n" + line)
    return out


def parse_telegram(path) -> list[ChatMessage]:
    data = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for m in data["messages"]:
        if m.get("type") != "message":
            continue
        text = m["text"] if isinstance(m["text"], str) else "".join(
            p if isinstance(p, str) else p.get("text", "") for p in m["text"])
        out.append(ChatMessage(m["from"], float(m["date_unixtime"]), text))
    return out


@pytest.mark.corpus
def test_brief_from_corpus_telegram_export(ledger, corpus):
    msgs = parse_telegram(corpus / "messages/chats/telegram_test_single_export.json")
    ids = {"Author 1": 1, "Author 2": 2}
    res = learn_conversation(ledger, msgs, "Author 1", ids.__getitem__, conversation="tg")
    assert (res.replies, res.silences) == (1, 0)          # 614 s later: replied, not fast
    now = 1544006964 + DAY
    b = briefing.assemble(ledger, 2, now)
    assert b.person.interaction_count == 1
    assert b.timing.hour_buckets[10] == 1                 # 1544006350 = 2018-12-05 10:39 UTC
    assert b.timing.fastest_reply_hours == []
    assert ledger.windowed("replied_fast", 2, Window.D7, now) == (0, 0.0)


@pytest.mark.corpus
def test_brief_from_corpus_whatsapp_group_export(ledger, corpus):
    msgs = parse_whatsapp_ddmmyy(corpus / "messages/chats/whatsapp_test_ddmmyy_24hrs.txt")
    assert len(msgs) == 7 and msgs[2].sender == "Jahn Doe" and "consectetur" in msgs[2].text
    names = sorted({m.sender for m in msgs})
    ids = {n: 10 + i for i, n in enumerate(names)}
    res = learn_conversation(ledger, msgs, "John Doe", ids.__getitem__, conversation="wa:group")
    # a group chat, days apart: no replies within 24 h, silence not attributed in groups; the owner's
    # 3 unanswered turns have no counterpart, so only the 4 turns of the others are stored
    assert res.replies == 0 and res.silences == 0 and res.messages == 4 and res.exchanges == 4
    b = briefing.assemble(ledger, ids["Jahn Doe"], datetime(2022, 1, 1, tzinfo=timezone.utc))
    assert b.person.interaction_count == 1 and b.timing.hour_buckets == [0] * 24
    assert b.person.first_interaction.startswith("2019-01-30T20:49")

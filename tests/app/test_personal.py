"""App glue: the LLM observer's retry and counted fallback, PersonalService over a real container, `kith brief`."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

import core.store.personal_schema  # noqa: F401  (until core/store/db.py imports it)
from app.observer_llm import LLMObserver
from core.personal.observer import ObserverOutput, Turn, observe

GOOD = ObserverOutput.from_json({"engagement": {"replied": True, "sentiment_score": 0.9,
                                                "sentiment_direction": "positive", "substantive": True},
                                 "style": {"formality": 0.1, "uses_lowercase": True}}).model_dump_json()


class Scripted:
    def __init__(self, *answers):
        self.answers, self.seen = list(answers), []

    def complete_json(self, messages):
        self.seen.append(messages)
        a = self.answers.pop(0)
        if isinstance(a, Exception):
            raise a
        return a


P, R = Turn("how was the match?", 0.0), Turn("so good, we won 3-1!", 42.0)


def test_llm_observer_first_try_retry_and_counted_fallback():
    o = LLMObserver(Scripted(GOOD))
    out, src = o.observe(P, R)
    assert src == "llm" and out.style.formality == 0.1
    assert out.engagement.latency_seconds == 42.0 and out.engagement.word_count == 5  # measured, not the model's
    m = Scripted('{"engagement": {"replied": "perhaps"}}', "```json\n" + GOOD + "\n```")
    o = LLMObserver(m)
    out, src = o.observe(P, R)
    assert src == "llm_retry" and "engagement.replied" in m.seen[1][-1]["content"]
    o = LLMObserver(Scripted("nope", "still nope"))
    out, src = o.observe(P, R)
    assert src == "fallback" and out == observe(P, R)
    assert o.stats.fallbacks == 1 and o.stats.calls == 1 and "JSON" in o.stats.last_error
    o = LLMObserver(Scripted(RuntimeError("server down")))
    assert o.observe(P, R)[1] == "fallback" and o.stats.model_errors == 1 and o.stats.fallbacks == 1
    # silence and no model: deterministic, not a fallback
    o = LLMObserver(None)
    assert o.observe(P, None)[1] == "deterministic" and o.stats.fallbacks == 0


def chat_records():
    from ingestors.base import Party, Record

    t0 = datetime(2024, 3, 4, tzinfo=timezone.utc)
    me, sarah = Party("You", None, "handle", "from"), Party("Sarah Connor", "+15550001", "phone", "from")
    out = []
    for d in range(6):
        b = t0 + timedelta(days=d)
        out += [Record("chat.txt", f"{d}a", "chat", "did you see the football match?", b + timedelta(hours=9), me,
                       thread="wa:sarah"),
                Record("chat.txt", f"{d}b", "chat", "yes! brilliant match, loved every minute", b + timedelta(hours=9, seconds=30),
                       sarah, thread="wa:sarah"),
                Record("chat.txt", f"{d}c", "chat", "any news on the project deadline at work?",
                       b + timedelta(hours=14), me, thread="wa:sarah"),
                Record("chat.txt", f"{d}d", "chat", "fancy dinner this weekend?", b + timedelta(hours=21), me,
                       thread="wa:sarah"),
                Record("chat.txt", f"{d}e", "chat", "yes, dinner this weekend sounds lovely",
                       b + timedelta(hours=21, minutes=20), sarah, thread="wa:sarah")]
    return out


@pytest.mark.slow
def test_service_learns_chats_briefs_and_cli(container, kith_home):
    from click.testing import CliRunner

    from app.cli_personal import brief as brief_cmd
    from app.personal import PersonalService

    svc = PersonalService(container)
    res = svc.learn_from_conversation(chat_records())
    assert (res.replies, res.silences) == (12, 6) and res.preference_updates > 0
    now = datetime(2024, 3, 10, 12, tzinfo=timezone.utc)
    b = svc.brief("sarah connor", context="football", now=now)
    assert b.timing.fastest_reply_hours == [9], b.timing
    assert [c.topic for c in b.topics.cold] == ["work"], b.topics
    view = svc.profile_view("Sarah Connor", now=now)
    assert len(view["heatmap"]) == 7 and len(view["heatmap"][0]) == 24
    msgs = svc.writing_help("Sarah Connor", "ask her to dinner on Friday")
    assert "Sarah Connor" in msgs[0]["content"] and msgs[1]["content"] == "ask her to dinner on Friday"
    svc.close()
    container.close()
    out = CliRunner().invoke(brief_cmd, ["Sarah Connor", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert doc["person"]["name"] == "Sarah Connor" and doc["timing"]["hour_buckets"][9] == 6
    bad = CliRunner().invoke(brief_cmd, ["Nobody Here"])
    assert bad.exit_code == 1 and "no entity named 'Nobody Here'" in bad.output


@pytest.mark.slow
def test_live_chat_sessions_and_observations(container):
    from app.personal import PersonalService

    svc = PersonalService(container)
    t = datetime(2024, 5, 1, 20, tzinfo=timezone.utc)
    results = []
    for k in range(5):
        results.append(svc.observe_owner_turn("What did you think of the match?", t + timedelta(minutes=2 * k),
                                              "loved it, the football was great tonight",
                                              t + timedelta(minutes=2 * k, seconds=20)))
    assert [bool(r["observations"]) for r in results] == [False, False, False, False, True]
    # about the owner, by name: the owner entity here is the unnamed "Me" (no owner name in settings)
    assert container.settings.owner_name in (None, "")
    assert results[4]["observations"] and all(o.startswith("The owner ") for o in results[4]["observations"]), \
        results[4]["observations"]
    owner = svc.owner_id()
    from core.personal.signals import Window
    assert svc.ledger.windowed("replied", owner, Window.ALL, t + timedelta(hours=1)) == (0, 0.0)  # session-scoped
    closed = svc.close_session(at=t + timedelta(minutes=15))
    assert closed["promoted"] > 0 and closed["preference_updates"] == 5
    assert svc.ledger.windowed("replied", owner, Window.ALL, t + timedelta(hours=1)) == (5, 5.0)
    svc.close()


def test_forget_person_removes_everything_personal_and_only_theirs(container):
    """Hand-counted: what Sarah (2) leaves in each table, and that Bob (3) and the cohorts keep theirs."""
    import numpy as np

    from app.personal import PersonalService
    from core.personal import observations as obs
    from core.personal import preference
    from core.personal.learn import add_messages, record_patterns, set_person
    from core.personal.signals import SignalWrite, Window, cohort_owner

    svc = PersonalService(container)
    L = svc.ledger
    t = datetime(2024, 5, 6, 9, tzinfo=timezone.utc).timestamp()  # a Monday, 09:00 UTC
    set_person(L, 2, name="Sarah", relationship="friend")   # cohorts: friends, everyone
    set_person(L, 3, name="Bob", relationship="friend")
    with L.transaction() as c:
        m_s1, m_s2, m_b = add_messages(c, [
            {"person_id": 2, "direction": "out", "text": "football tonight?", "topic": "football", "length": 2,
             "at": t},
            {"person_id": 2, "direction": "in", "text": "yes!", "length": 1, "at": t + 30},
            {"person_id": 3, "direction": "out", "text": "lunch?", "length": 1, "at": t}])
        sarah = [SignalWrite("replied", 2, f"m:{m_s1}", 1.0, t), SignalWrite("topic_engaged", 2, "t:football", 1.0, t + 30)]
        record_patterns(c, sarah)                            # "*", "nq", "h:9", "short", "t:football": 5 rows
        preference.update(c, 2, [np.eye(384, dtype=np.float32)[0]], t)
    L.write_many(sarah)                                      # 2 own rows + 2 × 2 cohort copies
    L.write_many([SignalWrite("replied", 3, f"m:{m_b}", 1.0, t)])  # Bob: 1 own + 2 cohort copies
    sid = svc.sessions.open(2, t + 60)                       # 1 session
    L.write("replied", 2, f"m:{m_s2}", 1.0, t + 60, session_id=sid)  # 1 session-scoped signal
    obs.write(L, 2, "Sarah replies within a minute", "timing", t + 60, np.eye(384, dtype=np.float32)[1])
    # ^ 1 observation, 1 FTS row, 1 confidence signal in her own ledger (not copied to cohorts)

    counts = svc.forget_person(2)
    assert counts == {"signal": 3, "cohort_signal": 4, "session_signal": 1,
                      "signal_agg": 3, "signal_wm": 3,       # replied '*' @ Mon 09h, t:football, o:<id>
                      "message": 2, "observation": 1, "observation_fts": 1, "preference_vector": 1,
                      "person_pattern": 5, "person_profile": 1, "conversation_session": 1}
    now = t + 3600
    friends = cohort_owner(L.cohorts.ids["friends"])
    assert L.windowed("replied", 2, Window.ALL, now) == (0, 0.0) and L.targets("confidence", 2, now, "o:") == {}
    assert L.windowed("replied", 3, Window.ALL, now) == (1, 1.0)                   # Bob untouched
    assert L.windowed("replied", friends, Window.ALL, now) == (1, 1.0)             # the cohort keeps Bob's
    assert L.targets("topic_engaged", friends, now) == {} and L.totals(friends, now) == {"replied": (1, 1.0)}
    assert L.conn.execute("SELECT count(*) FROM message").fetchone()[0] == 1
    assert svc.forget_person(2) == dict.fromkeys(counts, 0)                        # idempotent
    svc.close()


class _Scripted:
    available = True
    name = "scripted"

    def __init__(self, answer):
        self.answer = answer

    def complete_json(self, messages, **kw):
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_observations_come_from_the_model_when_configured_else_templates_counted(container):
    from datetime import datetime, timezone

    from app.personal import PersonalService
    from core.personal import observations as obs

    at = datetime(2026, 3, 1, 12, tzinfo=timezone.utc)
    good = PersonalService(container, observer_model=_Scripted(
        {"observations": [{"text": "Replies fastest to short morning questions.", "category": "timing"}]}))
    pid = good.owner_id()
    assert good.write_observations(pid, at) == ["Replies fastest to short morning questions."]
    assert good.observation_fallbacks == 0
    assert [o.text for o in obs.active(good.ledger, pid, at)] == ["Replies fastest to short morning questions."]
    bad = PersonalService(container, observer_model=_Scripted({"observations": [{"text": "x"}]}))
    bad.write_observations(pid, at)
    assert bad.observation_fallbacks == 1  # too short: the template statements were used instead


def test_observations_an_earlier_version_wrote_as_person_n_are_shown_with_the_name_once(container):
    from datetime import datetime, timezone

    from app.personal import PersonalService
    from core.personal import observations as obs

    at = datetime(2026, 3, 1, 12, tzinfo=timezone.utc)
    svc = PersonalService(container)
    pid = svc.owner_id()  # the unnamed owner, "Me": "the owner"
    obs.write(svc.ledger, pid, f"Person {pid} writes long messages, formally", "style", at)
    obs.write(svc.ledger, pid, "The owner writes long messages, formally", "style", at)
    obs.write(svc.ledger, pid, f"Person {pid} tends to go silent on messages sent around 23:00", "timing", at)
    b = svc.brief(pid, now=at)
    assert sorted(b.observations) == ["The owner tends to go silent on messages sent around 23:00",
                                      "The owner writes long messages, formally"]
    svc.close()

"""Observer, learn, sessions, preference EMA, observations, cohorts — hand-computed right values."""
from __future__ import annotations

import math
from datetime import timedelta

import numpy as np
import pytest

from core.personal import observations, preference
from core.personal.cohorts import Eq, In, Range, prior_weight
from core.personal.learn import Exchange, add_messages, learn, load_profile, set_person, signal_writes
from core.personal.observer import ObserverOutput, ObserverSchemaError, Turn, observe
from core.personal.sessions import Sessions
from core.personal.signals import DAY, Window, epoch
from tests.core.personal.conftest import T0

t0 = epoch(T0)


def unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
    return v / np.linalg.norm(v)


# --------------------------------------------------------------------------- observer
def test_deterministic_observer_on_the_seed_example():
    out = observe(Turn("Have you looked at what happens when segment count exceeds L0?", 0.0),
                  Turn("yeah good call - the compaction pass is actually the bottleneck, not the segment "
                       "count itself. been profiling it all morning", 47.0))
    e, s = out.engagement, out.style
    assert e.replied and e.latency_seconds == 47.0 and e.word_count == 21 and e.substantive
    assert e.sentiment_direction == "positive" and 0 < e.sentiment_score <= 1
    assert s.uses_lowercase and s.uses_jargon and not s.emoji and s.formality < 0.4
    assert out.dynamics.who_is_leading == "person"
    assert ObserverOutput.from_json(out.model_dump_json()) == out


def test_observer_silence_and_emoji_and_question():
    assert observe(Turn("dinner tonight?", 0), None).engagement.replied is False
    assert observe(Turn("dinner tonight?", 0), Turn("sure", 25 * 3600)).engagement.replied is False  # after timeout
    out = observe(Turn("dinner tonight?", 0), Turn("Yes!! 🍕 where shall we go?", 30))
    assert out.style.emoji and out.style.asks_question and out.topic.continued_from_previous is False


def test_schema_errors_name_the_field():
    with pytest.raises(ObserverSchemaError, match="engagement.sentiment_score"):
        ObserverOutput.from_json('{"engagement": {"replied": true, "sentiment_score": 3}}')
    with pytest.raises(ObserverSchemaError, match="not JSON|Invalid JSON"):
        ObserverOutput.from_json("yes they replied")


# --------------------------------------------------------------------------- learn
def test_learn_writes_the_seed_signals_and_style(ledger):
    out = ObserverOutput.from_json({"engagement": {"replied": True, "latency_seconds": 47, "substantive": True,
                                                   "word_count": 20, "sentiment_score": 0.75,
                                                   "sentiment_direction": "positive"},
                                    "style": {"formality": 0.2, "uses_lowercase": True}})
    x = Exchange(person_id=2, output=out, reply_at=t0 + 47, prompt_message_id=11, prompt_at=t0,
                 prompt_topics=("tech", "work"), reply_topics=("tech", "music"), initiated=("music",))
    got = sorted((w.name, w.target, w.weight) for w in signal_writes(x))
    assert got == sorted([("replied", "m:11", 1.0), ("replied_fast", "m:11", 1.0),
                          ("replied_substantively", "m:11", 0.8),       # 20 words / 25
                          ("positive_sentiment", "m:11", 0.75),
                          ("topic_engaged", "t:tech", 1.0),
                          ("initiated", "t:music", 1.5)])               # "work" kept: reply was not brief
    learn(ledger, x)
    assert ledger.windowed("replied", 2, Window.ALL, t0 + 60) == (1, 1.0)
    p = load_profile(ledger.conn, 2)
    assert p.interaction_count == 1 and p.style["formality_fast"] == 0.2 and p.style["lowercase"] == 1
    # learning the same input against the same store gives the same store (pure function of input + store)
    silent = Exchange(person_id=2, output=observe(Turn("how's work?", 0), None), reply_at=t0 + DAY,
                      prompt_message_id=12, prompt_at=t0 + 100, prompt_topics=("work",))
    assert sorted((w.name, w.target) for w in signal_writes(silent)) == [("topic_dropped", "t:work"),
                                                                          ("went_silent", "m:12")]


def test_signals_copy_to_matching_cohorts(ledger):
    set_person(ledger, 3, name="Jordan", role="engineer", timezone="America/Los_Angeles")
    assert set(ledger.cohorts.matching(3)) == {"developers", "us_pacific", "everyone"}
    ledger.write("replied", 3, "m:1", 1.0, t0)
    dev = ledger.cohorts.owners_for(3)
    assert len(dev) == 3 and all(o < 0 for o in dev)
    for o in dev:
        assert ledger.windowed("replied", o, Window.ALL, t0) == (1, 1.0)


def test_cohort_predicates_and_weighting():
    assert Eq("role", "engineer")({"role": "Engineer"}) and not Eq("role", "engineer")({})
    assert Range("interaction_count", min=20)({"interaction_count": 20})
    assert not Range("interaction_count", min=20)({"interaction_count": 19})
    assert In("relationship", ("friend", "family"))({"relationship": "family"})
    # seed 000: weight = 1 / (1 + n/10)
    assert prior_weight(0) == 1.0 and prior_weight(10) == 0.5 and prior_weight(30) == 0.25


def test_cohort_priors_in_brief_weighting(ledger):
    set_person(ledger, 4, name="Ann", relationship="friend")
    set_person(ledger, 5, name="Bo", relationship="friend")
    for k in range(3):
        ledger.write("replied", 4, f"m:{k}", 1.0, t0 + k)
    ledger.write("went_silent", 4, "m:9", 1.0, t0 + 9)
    pri = ledger.cohorts.priors(5, t0 + 10)   # Bo has 0 interactions: full weight, Ann's evidence
    assert pri["friends"]["weight"] == 1.0 and pri["friends"]["reply_rate"] == 0.75


# --------------------------------------------------------------------------- sessions
def test_session_signals_invisible_globally_until_close(ledger):
    s = Sessions(ledger)
    sid = s.open(2, T0)
    with ledger.transaction() as c:
        mid = add_messages(c, [{"person_id": 2, "direction": "out", "text": "hi", "at": t0,
                                "embedding": unit(1)}])[0]
    x = Exchange(person_id=2, output=observe(Turn("hi, how was the football?", t0),
                                             Turn("Great game, loved every minute of it!", t0 + 30)),
                 reply_at=t0 + 30, prompt_message_id=mid, prompt_at=t0, session_id=sid)
    learn(ledger, x)
    now = t0 + 60
    assert ledger.windowed("replied", 2, Window.ALL, now) == (0, 0.0)
    assert ledger.windowed("replied", 2, Window.ALL, now, session_id=sid) == (1, 1.0)
    assert ledger.decayed("replied", 2, now) == 0.0
    assert preference.load(ledger.conn, 2) == (None, 0)
    summary = s.close(sid, now)
    assert summary.promoted >= 3 and summary.preference_updates == 1
    assert ledger.windowed("replied", 2, Window.ALL, now) == (1, 1.0)
    assert ledger.decayed("replied", 2, now) == pytest.approx(0.5 ** (60 / (7 * DAY)))
    v, n = preference.load(ledger.conn, 2)
    assert n == 1 and np.allclose(v, unit(1), atol=1e-6)
    # cohort ledger ("everyone") got the promoted copy
    everyone = ledger.cohorts.owners_for(2)[-1]
    assert ledger.windowed("replied", everyone, Window.ALL, now) == (1, 1.0)


def test_rotation_every_30_minutes_and_observations_every_5_turns(ledger):
    s = Sessions(ledger)
    sid = s.open(2, t0)
    assert [s.turn(sid) for _ in range(5)] == [False, False, False, False, True]
    same, summary = s.rotate_if_due(sid, t0 + 29 * 60)
    assert same == sid and summary is None
    new, summary = s.rotate_if_due(sid, t0 + 30 * 60)
    assert new != sid and summary is not None and s.get(sid).closed_at == t0 + 30 * 60
    assert s.get(new).rotated_from == sid and s.current(2).id == new


# --------------------------------------------------------------------------- preference
def test_alpha_schedule():
    # 0.15 / (1 + ln(n + 1))
    assert preference.alpha(0) == pytest.approx(0.15)
    assert preference.alpha(1) == pytest.approx(0.15 / (1 + math.log(2)))  # 0.0886
    assert preference.alpha(1) == pytest.approx(0.0886, abs=1e-4)
    assert preference.alpha(5) == pytest.approx(0.0537, abs=1e-4)
    assert preference.alpha(20) == pytest.approx(0.0371, abs=1e-4)   # seed: ≈ 0.04
    assert preference.alpha(100) == pytest.approx(0.0267, abs=1e-4)  # seed: ≈ 0.03


def test_ema_blend_by_hand():
    a, b = np.zeros(384, np.float32), np.zeros(384, np.float32)
    a[0], b[1] = 1.0, 1.0
    v, n = preference.blend(None, a, 0)
    assert n == 1 and np.array_equal(v, a)          # first positive message: the vector is the embedding
    v, n = preference.blend(v, b, n)                # alpha(1) = 0.08859
    al = 0.15 / (1 + math.log(2))
    expect = np.array([1 - al, al]) / math.hypot(1 - al, al)
    assert n == 2 and np.allclose(v[:2], expect, atol=1e-6) and v.dtype == np.float32


# --------------------------------------------------------------------------- observations
def test_observation_decay_reinforcement_and_forgetting(ledger):
    oid, again = observations.write(ledger, 2, "Sarah replies fastest to messages sent around 21:00", "timing",
                                    T0, unit(7))
    assert not again
    assert observations.confidence(ledger, 2, oid, T0 + timedelta(days=30)) == pytest.approx(0.5)
    assert observations.confidence(ledger, 2, oid, T0 + timedelta(days=60)) == pytest.approx(0.25)
    # seen again at day 30 (digits normalised): back to 1.0, then decays from there
    oid2, again = observations.write(ledger, 2, "Sarah replies fastest to messages sent around 22:00", "timing",
                                     T0 + timedelta(days=30))
    assert oid2 == oid and again
    assert observations.confidence(ledger, 2, oid, T0 + timedelta(days=30)) == pytest.approx(1.0)
    assert observations.confidence(ledger, 2, oid, T0 + timedelta(days=60)) == pytest.approx(0.5)
    # a contradicting observation is stored beside it; decay decides: 120 days later only the new one
    new, _ = observations.write(ledger, 2, "Sarah now answers in the morning", "timing", T0 + timedelta(days=130))
    live = observations.active(ledger, 2, T0 + timedelta(days=150))
    assert [o.id for o in live] == [new]  # old one: 0.5^(120/30) = 0.0625 < 0.1 forgotten


def test_observation_retrieval_is_hybrid_top_5(ledger):
    texts = ["Sam prefers short casual messages", "Sam goes quiet about work late at night",
             "Sam brings up football unprompted", "Sam likes direct questions", "Sam uses emoji often",
             "Sam answers fastest in the evening", "Sam dislikes long explanations"]
    for i, t in enumerate(texts):
        observations.write(ledger, 8, t, "style", t0 + i, unit(100 + i))
    got = observations.retrieve(ledger, 8, t0 + 10, query="talking about football", query_embedding=unit(102))
    assert len(got) == 5 and got[0].text == "Sam brings up football unprompted"

"""Episodes and the recall cascade on a real SQLite file and real signature files."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from core import hdc
from core.memory.episodes import EpisodeDraft, EpisodicMemory, structured_signature
from core.memory.recall import B_MIN_SIM, make_cue, recall
from core.memory.working import WorkingMemory
from core.store.memory_schema import AttentionTrace, LearningEvent
from tests.core.memory.conftest import near, unit

T0 = datetime(2026, 5, 1, 12, tzinfo=timezone.utc)


def seed_store(mem):
    drafts = [
        EpisodeDraft("Sarah recommended Bawri in Bandra", unit(1), T0, speaker="Priya"),
        EpisodeDraft("The Bawri dinner with Sarah was lovely", unit(2), T0 + timedelta(days=1), speaker="Priya"),
        EpisodeDraft("Bob bought a guitar", unit(3), T0 + timedelta(days=2), speaker="Bob"),
        EpisodeDraft("Quarterly taxes are due", unit(4), T0 + timedelta(days=3), speaker="Accountant"),
    ]
    return mem.store_many(drafts)


def test_store_writes_rows_signatures_and_postings(mem):
    ids = seed_store(mem)
    assert ids == [1, 2, 3, 4]
    assert len(mem.structured) == len(mem.gists) == 4
    ep = mem.get(3)
    assert ep.signature_row == ep.gist_row == 2 and ep.t_valid == T0 + timedelta(days=2)
    s, g = mem.signatures([3])
    # independently rebuilt: entities [bob] (speaker + capitalised), terms [bob, bought, guitar],
    # triple (bob, bought, guitar) from the "<Name> bought <object>" pattern
    assert np.array_equal(s[0], structured_signature(["bob"], ["bob", "bought", "guitar"], [("bob", "bought", "guitar")]))
    assert np.array_equal(g[0], hdc.project(unit(3)))
    assert mem.concept_rows("entity:sarah").tolist() == [0, 1]
    assert mem.concept_rows("term:guitar").tolist() == [2]
    # reopening rebuilds the same in-memory index from SQLite
    again = EpisodicMemory(mem.db, mem.folder, durable=False)
    assert again.concept_rows("entity:sarah").tolist() == [0, 1]
    assert again.index.episode[:4].tolist() == [1, 2, 3, 4]
    with mem.db.session() as s:
        assert len(s.exec(LearningEvent.__table__.select().where(LearningEvent.kind == "episode_stored")).all()) == 4


def test_tier_a_exact(mem):
    seed_store(mem)
    r = recall(mem, make_cue(mem, "Sarah Bawri Bandra", unit(50)), k=3)
    assert r.tier_used == "A" and r.matches[0].episode_id == 1 and r.matches[0].confidence == 1.0
    assert [m.tier for m in r.matches] == ["A", "B", "D"] or r.matches[1].tier in ("B", "C", "D")
    assert r.matches[0].episode.text == "Sarah recommended Bawri in Bandra"
    with mem.db.session() as s:
        tr = s.get(AttentionTrace, r.trace_id)
        assert tr.tier_used == "A" and tr.detail["matches"][0]["episode"] == 1


def test_tier_b_similarity(mem):
    seed_store(mem)
    # "dinner" and "Sarah" both appear only together in episode 2; "Paris" is unknown -> no exact match
    r = recall(mem, make_cue(mem, "Sarah dinner in Paris", unit(51)), k=2)
    assert r.tier_used == "B" and r.matches[0].episode_id == 2
    m = r.matches[0]
    assert 0.6 <= m.confidence <= 0.95 and m.similarity >= B_MIN_SIM
    assert "A" in r.tiers_run and "B" in r.tiers_run


def test_tier_c_gist(mem):
    seed_store(mem)
    # no shared concept at all, but the embedding is at cosine 0.9 from episode 3's
    r = recall(mem, make_cue(mem, "a musical instrument purchase", near(unit(3), 0.9, 7)), k=1)
    assert r.tier_used == "C" and r.matches[0].episode_id == 3
    assert 0.3 <= r.matches[0].confidence <= 0.6
    assert r.matches[0].similarity == pytest.approx(0.9, abs=0.05)  # Charikar estimate of the cosine


def test_tier_d_nearest_never_empty(mem):
    seed_store(mem)
    r = recall(mem, make_cue(mem, "zebra crossing", near(unit(4), 0.2, 8)), k=4)
    assert r.tier_used == "D" and len(r.matches) == 4
    assert r.matches[0].episode_id == 4 and all(m.low_confidence and m.confidence <= 0.3 for m in r.matches)


def test_goal_bias_reorders(mem):
    # two episodes that match the cue equally ("Sarah" + one shared term each)
    mem.store_many([EpisodeDraft("Sarah mentioned hiking", unit(10), T0),
                    EpisodeDraft("Sarah mentioned cooking", unit(11), T0)])
    cue = make_cue(mem, "Sarah mentioned", unit(12))
    plain = recall(mem, cue, k=2)
    assert {m.episode_id for m in plain.matches} == {1, 2}
    assert plain.matches[0].confidence == plain.matches[1].confidence
    loser = plain.matches[1].episode_id
    goal = structured_signature([], ["hiking" if loser == 1 else "cook"], [])
    biased = recall(mem, cue, k=2, goal_signature=goal)
    assert biased.matches[0].episode_id == loser and biased.matches[0].goal_bias > 0
    assert biased.matches[1].goal_bias == pytest.approx(0.0, abs=0.06)


def test_as_of_and_supersession(mem):
    a = mem.store(EpisodeDraft("Sarah lives in Pune", unit(20), T0, t_recorded=T0))
    b = mem.store(EpisodeDraft("Sarah lives in Mumbai", unit(21), T0 + timedelta(days=30),
                               t_recorded=T0 + timedelta(days=30)))
    mem.supersede(a, b)
    cue = make_cue(mem, "Sarah lives", unit(22))
    now = recall(mem, cue, k=5)
    assert [m.episode_id for m in now.matches] == [b]
    before = recall(mem, cue, k=5, as_of=T0 + timedelta(days=1))
    assert [m.episode_id for m in before.matches] == [a]
    assert [e.id for e in mem.as_of(T0 + timedelta(days=1))] == [a]
    assert [e.id for e in mem.between(T0, T0 + timedelta(days=31), include_superseded=True)] == [a, b]
    assert [e.id for e in mem.between(T0, T0 + timedelta(days=31))] == [b]
    assert recall(mem, cue, k=5, as_of=T0 - timedelta(days=1)).matches == []


def test_working_memory_boost(mem):
    mem.store_many([EpisodeDraft("Sarah mentioned hiking", unit(10), T0),
                    EpisodeDraft("Sarah mentioned cooking", unit(11), T0)])
    wm = WorkingMemory()
    cue = make_cue(mem, "Sarah mentioned", unit(12))
    second = recall(mem, cue, k=2).matches[1].episode_id
    wm.touch("s1", [second])
    r = recall(mem, cue, k=2, session="s1", working=wm)
    assert r.matches[0].episode_id == second and r.matches[0].recency_boost == pytest.approx(0.25)

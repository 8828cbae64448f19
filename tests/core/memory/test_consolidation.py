"""Consolidation on a constructed history: atoms, beliefs, supersession, self-vector, decay, unlearn."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from sqlmodel import select

from core import clock, hdc
from core.memory import beliefs as B, goals, procedures, self_model
from core.memory.consolidation import cluster, consolidate
from core.memory.episodes import EpisodeDraft
from core.memory.events import what_did_i_learn
from core.memory.recall import make_cue, recall
from core.memory.sensory import SensoryBuffer
from core.memory.unlearn import purge_expired, restore, unlearn
from core.store.memory_schema import Belief, BeliefRevision, SemanticAtom
from tests.core.memory.conftest import unit

NOW = datetime(2026, 5, 20, 12, tzinfo=timezone.utc)


def history(mem):
    d = []
    for i in range(5):  # January: Sarah likes thai food (5 episodes)
        d.append(EpisodeDraft("Sarah likes thai food", unit(100 + i), datetime(2026, 1, 1 + i, tzinfo=timezone.utc),
                              t_recorded=NOW - timedelta(days=2)))
    for i in range(5):  # March: Sarah likes sushi (5 episodes) -> contradicts, newer
        d.append(EpisodeDraft("Sarah likes sushi", unit(200 + i), datetime(2026, 3, 1 + i, tzinfo=timezone.utc),
                              t_recorded=NOW - timedelta(days=1)))
    for i in range(3):  # Bob has a guitar (3 episodes): an atom, not a belief
        d.append(EpisodeDraft("Bob has a guitar", unit(300 + i), datetime(2026, 4, 1 + i, tzinfo=timezone.utc),
                              t_recorded=NOW - timedelta(days=1)))
    for i in range(2):  # two episodes only: no atom
        d.append(EpisodeDraft("Alice visited Lisbon", unit(400 + i), datetime(2026, 4, 10 + i, tzinfo=timezone.utc),
                              t_recorded=NOW - timedelta(days=1)))
    d.append(EpisodeDraft("Old news about Carol", unit(500), datetime(2025, 1, 1, tzinfo=timezone.utc),
                          t_recorded=NOW - timedelta(days=30)))  # outside the 7-day scan
    return mem.store_many(d)


def test_cluster_threshold_is_095():
    a = hdc.hv("x")
    near = a.copy()
    near[:50] ^= 0xFF          # 400 bits flipped: similarity 1 - 400/8192 = 0.951 -> same cluster
    far = a.copy()
    far[:52] ^= 0xFF           # 416 bits: 0.949 -> its own cluster
    assert cluster(np.stack([a, near, far])) == [[0, 1], [2]]


def test_consolidation_builds_atoms_beliefs_and_supersedes(mem):
    history(mem)
    with clock.frozen(NOW):
        rep = consolidate(mem, NOW)
    assert rep.scanned == 15 and rep.clusters == 3
    with mem.db.session() as s:
        atoms = {(a.subject, a.predicate, a.object): a for a in s.exec(select(SemanticAtom)).all()}
        assert set(atoms) == {("sarah", "likes", "thai food"), ("sarah", "likes", "sushi"), ("bob", "has", "guitar")}
        assert atoms[("sarah", "likes", "thai food")].evidence_count == 5
        assert atoms[("sarah", "likes", "thai food")].confidence == pytest.approx(1 - 0.5 ** 4)   # 0.9375
        assert atoms[("bob", "has", "guitar")].confidence == pytest.approx(0.75)                 # 1 - 0.5^2
        beliefs = {b.object: b for b in s.exec(select(Belief)).all()}
        assert set(beliefs) == {"thai food", "sushi"}  # guitar: evidence 3 < 5
        thai, sushi = beliefs["thai food"], beliefs["sushi"]
        assert thai.superseded_by == sushi.id and sushi.superseded_by is None
        assert clock.ensure_utc(thai.valid_to) == datetime(2026, 3, 1, tzinfo=timezone.utc)
        kinds = [r.kind for r in B.revisions(s, thai.id)]
        assert kinds == ["asserted", "superseded"]
        assert [b.object for b in B.what_do_i_believe(s, "Sarah")] == ["sushi"]
        # self-vector: accum = 0.95 * 0.5 + 0.05 * bits(bundle(atom signatures)), worked out here
        sigs = np.stack([np.frombuffer(a.signature, np.uint8) for a in
                         s.exec(select(SemanticAtom).order_by(SemanticAtom.id)).all()])
        want = 0.95 * 0.5 + 0.05 * np.unpackbits(hdc.bundle(sigs)).astype(np.float32)
        _, accum = self_model.current(s)
        assert np.allclose(accum, want, atol=1e-6)
        assert np.array_equal(self_model.self_vector(s), hdc.bundle(sigs))  # 0.525 > 0.5 exactly where bits are 1
        learned = [e.kind for e in what_did_i_learn(s, NOW - timedelta(days=1))]
    assert learned.count("atom_created") == 3 and learned.count("belief_asserted") == 2
    assert "belief_superseded" in learned and "self_vector_updated" in learned and "consolidation" in learned
    # a second run adds nothing new (episodes already evidence)
    with clock.frozen(NOW):
        again = consolidate(mem, NOW)
    assert again.atoms_created == [] and again.beliefs_asserted == []


def test_recall_hydrates_beliefs_and_atoms(mem):
    history(mem)
    with clock.frozen(NOW):
        consolidate(mem, NOW)
    r = recall(mem, make_cue(mem, "Sarah sushi", unit(999)), k=1)
    m = r.matches[0]
    assert m.tier == "A" and m.episode.text == "Sarah likes sushi"
    assert [b.object for b in m.beliefs] == ["sushi"]
    assert [a.object for a in m.atoms] == ["sushi"]


def test_decay_after_90_days(mem):
    history(mem)
    with clock.frozen(NOW):
        consolidate(mem, NOW)
    later = NOW + timedelta(days=91)
    with clock.frozen(later):
        rep = consolidate(mem, later)
    assert len(rep.atoms_decayed) == 3
    with mem.db.session() as s:
        assert {a.strength for a in s.exec(select(SemanticAtom)).all()} == {0.5}


def test_unlearn_cascades_and_restore(mem):
    ids = history(mem)
    with clock.frozen(NOW):
        consolidate(mem, NOW)
        with mem.db.session() as s:
            before = self_model.self_vector(s)
        rep = unlearn(mem, concept="Bob", reason="asked to forget")
    assert rep.episodes_removed == ids[10:13]
    assert rep.self_vector_drift_bits > 0
    with mem.db.session() as s:
        atom = s.exec(select(SemanticAtom).where(SemanticAtom.subject == "bob")).one()
        assert atom.tombstoned_at is not None and atom.evidence_count == 0
        assert int(hdc.hamming(before, self_model.self_vector(s))) == rep.self_vector_drift_bits
    r = recall(mem, make_cue(mem, "Bob guitar", unit(300)), k=20)
    assert not set(ids[10:13]) & {m.episode_id for m in r.matches}
    with clock.frozen(NOW + timedelta(days=1)):
        assert restore(mem, [ids[10]]) == [ids[10]]
    assert ids[10] in {m.episode_id for m in recall(mem, make_cue(mem, "guitar", unit(300)), k=20).matches}
    # after the window, the rest are purged: rows zeroed, compaction drops them and renumbers
    with clock.frozen(NOW + timedelta(days=31)):
        assert purge_expired(mem) == 2
        n_before = len(mem.structured)
        rep2 = consolidate(mem, NOW + timedelta(days=31))
    assert rep2.signatures_dropped == 2 and len(mem.structured) == n_before - 2
    e = mem.get(ids[13])  # "Alice visited Lisbon": row 13 moved down by 2
    assert e.signature_row == 11
    assert np.array_equal(mem.gists.get(11), hdc.project(unit(400)))


def test_goals_state_machine_and_bundle(mem):
    with mem.db.session() as s:
        root = goals.set_goal(s, "Find a thai place for the team dinner")
        kid = goals.set_goal(s, "Ask Sarah", parent_id=root.id)
        assert [t.goal.id for t in goals.goal_tree(s, root.id).children] == [kid.id]
        goals.revise_goal(s, kid.id, state="paused")
        with pytest.raises(Exception):
            goals.revise_goal(s, kid.id, state="bogus")
        goals.revise_goal(s, kid.id, state="completed")
        with pytest.raises(Exception):
            goals.revise_goal(s, kid.id, state="active")  # completed is terminal
        assert [g.id for g in goals.active_goals(s)] == [root.id]
        assert np.array_equal(goals.goal_bundle(s), np.frombuffer(root.signature, np.uint8))


def test_procedures_stats(mem):
    with mem.db.session() as s:
        p = procedures.observe_procedure(s, "weekly backup", "copy photos to the external disk")
        procedures.record_execution(s, p.id, True, 10.0)
        procedures.record_execution(s, p.id, False, 20.0)
        procedures.record_execution(s, p.id, True, 30.0)
        st = procedures.procedure_stats(s, p.id)
        assert (st.runs, st.successes, st.mean_duration_s) == (3, 2, 20.0)
        assert st.success_rate == pytest.approx(2 / 3)
        assert procedures.recall_procedure(s, "backup photos")[0][0].id == p.id


def test_sensory_surprise_gating():
    buf = SensoryBuffer(capacity=3)
    belief = hdc.hv("belief")
    same = buf.observe("known", belief, belief, at=NOW)
    assert same.surprise == 0.0 and not same.promoted
    new = buf.observe("new", hdc.hv("other"), belief, at=NOW)
    assert new.surprise == pytest.approx(float(hdc.hamming(belief, hdc.hv("other"))) / 8192) and new.promoted
    assert buf.observe("explicit", belief, belief, explicit=True, at=NOW).promoted
    buf.observe("4th", belief, None, at=NOW)
    with clock.frozen(NOW):
        assert [f.text for f in buf.frames()] == ["new", "explicit", "4th"]  # capacity 3
    with clock.frozen(NOW + timedelta(seconds=61)):
        assert buf.frames() == []  # 60 s window

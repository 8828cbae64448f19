"""Consolidation (seed 001, steps 1–10): episodes → semantic atoms → beliefs, contradictions, self-vector,
decay, signature compaction, and a learning event for every action.

Thresholds (all seed 001 unless noted): scan window 7 days; cluster when structured similarity
≥ 0.95; an atom needs ≥ 3 episodes; a belief needs evidence ≥ 5, confidence ≥ 0.8 and no
contradiction; α = 0.05 for the self-vector; atoms unreferenced for 90 days decay by λ = 0.5
(ours; the seed leaves λ open) and are archived below strength 0.1 (ours).
Atom confidence (ours): mean member confidence × (1 − 2^−(N−1)) — 3 episodes → 0.75, 5 → 0.94.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np
from sqlalchemy import text as sql
from sqlmodel import select

from core import clock, hdc
from core.memory import beliefs as beliefs_mod
from core.memory import self_model
from core.memory.episodes import EpisodicMemory
from core.memory.events import log_event
from core.memory.sensory import held_bundle
from core.store.memory_schema import AtomEvidence, Belief, EpisodeTriple, SemanticAtom
from core.store.schema import Episode

SCAN_DAYS = 7
CLUSTER_SIM = 0.95
MIN_CLUSTER = 3
BELIEF_EVIDENCE = 5
BELIEF_CONFIDENCE = 0.8
DECAY_DAYS = 90
DECAY_LAMBDA = 0.5
ARCHIVE_BELOW = 0.1
SURPRISE_THRESHOLD = 0.4


@dataclass
class ConsolidationReport:
    """What one run did (ids of what it created or changed)."""

    scanned: int = 0
    mean_surprise: float = 0.0
    surprising: int = 0
    clusters: int = 0
    atoms_created: list[int] = field(default_factory=list)
    atoms_reinforced: list[int] = field(default_factory=list)
    beliefs_asserted: list[int] = field(default_factory=list)
    beliefs_superseded: list[int] = field(default_factory=list)
    atoms_decayed: list[int] = field(default_factory=list)
    atoms_archived: list[int] = field(default_factory=list)
    self_vector_snapshot: int | None = None
    signatures_dropped: int = 0


def _overlaps(a_from, a_to, b_from, b_to) -> bool:
    lo = max(x for x in (a_from, b_from, datetime.min.replace(tzinfo=clock.now().tzinfo)) if x is not None)
    his = [x for x in (a_to, b_to) if x is not None]
    return not his or lo <= min(his)


def cluster(sigs: np.ndarray, threshold: float = CLUSTER_SIM) -> list[list[int]]:
    """Greedy leader clustering: each unassigned row (in order) takes every unassigned row whose
    similarity to it is ≥ ``threshold``.  ``sigs``: ``uint8 (n, 1024)``; returns lists of row indices."""
    n = sigs.shape[0]
    free = np.ones(n, dtype=bool)
    out = []
    max_h = int((1.0 - threshold) * hdc.DIM)
    for i in range(n):
        if not free[i]:
            continue
        cand = np.flatnonzero(free)
        h = hdc.hamming(sigs[i], sigs[cand])
        members = cand[h <= max_h]
        free[members] = False
        out.append(members.tolist())
    return out


def consolidate(mem: EpisodicMemory, now: datetime | None = None, compact: bool = True) -> ConsolidationReport:
    """Run steps 1–10 once.  Idempotent on an unchanged store (atoms gain evidence, not duplicates).

    Args:
        mem: the episodic memory (its database holds atoms, beliefs, snapshots, events).
        now: the time to consolidate at (UTC; default ``clock.now()``).
        compact: rewrite the signature files when rows were invalidated (step 9).
    """
    now = clock.ensure_utc(now) or clock.now()
    rep = ConsolidationReport()
    idx = mem.index
    cutoff = int((now - timedelta(days=SCAN_DAYS)).timestamp())
    # 1. SCAN
    rows = np.flatnonzero(idx.valid_mask() & (idx.t_recorded[: idx.n] >= cutoff))
    rep.scanned = int(rows.size)
    with mem.db.session() as s:
        known = {eid for (eid,) in s.exec(sql("SELECT episode_id FROM atomevidence")).all()} if rows.size else set()
        sigs = mem.structured.rows()[rows] if rows.size else np.zeros((0, hdc.NBYTES), np.uint8)
        # 2. SURPRISE against the bundle of held beliefs and live atoms
        ref = held_bundle(s)
        if rows.size:
            if ref is not None:
                surprise = 1.0 - hdc.similarity(ref, sigs)
            else:
                surprise = np.ones(rows.size)
            rep.mean_surprise = float(surprise.mean())
            rep.surprising = int((surprise > SURPRISE_THRESHOLD).sum())
        # 3. CLUSTER (episodes already evidence of an atom are left out)
        fresh = np.array([int(idx.episode[r]) not in known for r in rows], dtype=bool)
        f_rows, f_sigs = rows[fresh], sigs[fresh] if rows.size else sigs
        groups = [g for g in cluster(f_sigs) if len(g) >= MIN_CLUSTER] if f_rows.size else []
        rep.clusters = len(groups)
        new_atoms: list[SemanticAtom] = []
        for g in groups:
            ep_ids = [int(idx.episode[f_rows[j]]) for j in g]
            eps = s.exec(select(Episode).where(Episode.id.in_(ep_ids))).all()
            triples = Counter((t.subject, t.predicate, t.object) for t in
                              s.exec(select(EpisodeTriple).where(EpisodeTriple.episode_id.in_(ep_ids))).all())
            spo = triples.most_common(1)[0][0] if triples else ("", "", "")
            sig = hdc.bundle(f_sigs[g])
            # an existing live atom with the same triple (or the same signature) is reinforced instead
            existing = None
            if spo[0]:
                existing = s.exec(select(SemanticAtom).where(
                    SemanticAtom.subject == spo[0], SemanticAtom.predicate == spo[1], SemanticAtom.object == spo[2],
                    SemanticAtom.tombstoned_at.is_(None), SemanticAtom.archived_at.is_(None))).first()
            n = len(ep_ids)
            conf_members = float(np.mean([e.confidence for e in eps])) if eps else 1.0
            t_from = min((clock.ensure_utc(e.t_valid) for e in eps if e.t_valid), default=None)
            # 4. ATOMS
            if existing is not None:
                existing.evidence_count += n
                existing.confidence = conf_members * (1 - 0.5 ** (existing.evidence_count - 1))
                existing.last_referenced_at = now
                existing.strength = 1.0
                atom = existing
                rep.atoms_reinforced.append(atom.id)
                log_event(s, "atom_created", f"atom:{atom.id}", reinforced=True, added=n)
            else:
                atom = SemanticAtom(subject=spo[0], predicate=spo[1], object=spo[2],
                                    statement=eps[0].text if eps else "", signature=sig.tobytes(), evidence_count=n,
                                    confidence=conf_members * (1 - 0.5 ** (n - 1)), valid_from=t_from,
                                    created_at=now, last_referenced_at=now)
                rep.atoms_created.append(-1)
            s.add(atom)
            s.flush()
            if existing is None:
                rep.atoms_created[-1] = atom.id
                log_event(s, "atom_created", f"atom:{atom.id}", evidence=ep_ids, triple=list(spo))
            for eid in ep_ids:
                s.add(AtomEvidence(atom_id=atom.id, episode_id=eid))
            new_atoms.append(atom)
        s.flush()
        # 5. BELIEFS and 6. CONTRADICT
        cands = [a for a in new_atoms if a.subject and a.evidence_count >= BELIEF_EVIDENCE
                 and a.confidence >= BELIEF_CONFIDENCE]
        for a in cands:
            rivals = [b for b in cands if b is not a and (b.subject, b.predicate) == (a.subject, a.predicate)
                      and b.object != a.object and b.valid_from == a.valid_from]
            if rivals:  # same (s, p), different o, same start: a contradiction nothing can order
                continue
            held_same = s.exec(select(Belief).where(Belief.subject == a.subject, Belief.predicate == a.predicate,
                                                    Belief.object == a.object, Belief.superseded_by.is_(None),
                                                    Belief.withdrawn_at.is_(None))).first()
            if held_same is not None:
                if abs(held_same.confidence - a.confidence) > 1e-9 or held_same.evidence_count != a.evidence_count:
                    held_same.evidence_count = a.evidence_count
                    beliefs_mod.revise_confidence(s, held_same.id, a.confidence, "more evidence")
                continue
            b = beliefs_mod.assert_belief(s, a.subject, a.predicate, a.object, confidence=a.confidence,
                                          evidence_count=a.evidence_count, atom_id=a.id, statement=a.statement,
                                          valid_from=a.valid_from, signature=a.signature,
                                          reason=f"atom {a.id}: {a.evidence_count} episodes")
            rep.beliefs_asserted.append(b.id)
        for bid in rep.beliefs_asserted:
            b = s.get(Belief, bid)
            others = s.exec(select(Belief).where(Belief.subject == b.subject, Belief.predicate == b.predicate,
                                                 Belief.object != b.object, Belief.id != b.id,
                                                 Belief.superseded_by.is_(None), Belief.withdrawn_at.is_(None))).all()
            for o in others:
                bf, of = clock.ensure_utc(b.valid_from), clock.ensure_utc(o.valid_from)
                if not _overlaps(bf, clock.ensure_utc(b.valid_to), of, clock.ensure_utc(o.valid_to)):
                    continue
                older, newer = (o, b) if (of or datetime.min.replace(tzinfo=now.tzinfo)) <= \
                    (bf or datetime.min.replace(tzinfo=now.tzinfo)) else (b, o)
                beliefs_mod.supersede(s, older, newer, f"contradicted: {newer.subject} {newer.predicate} "
                                                       f"{newer.object}")
                rep.beliefs_superseded.append(older.id)
                if older.atom_id and newer.atom_id:
                    oa = s.get(SemanticAtom, older.atom_id)
                    if oa is not None:
                        oa.superseded_by = newer.atom_id
                        oa.valid_to = clock.ensure_utc(newer.valid_from)
                        s.add(oa)
        # 7. SELF-VECTOR
        if new_atoms:
            snap = self_model.update(s, np.stack([np.frombuffer(a.signature, np.uint8) for a in new_atoms]))
            rep.self_vector_snapshot = snap.id
        # 8. DECAY
        stale = s.exec(select(SemanticAtom).where(SemanticAtom.archived_at.is_(None),
                                                  SemanticAtom.tombstoned_at.is_(None),
                                                  SemanticAtom.last_referenced_at < now - timedelta(days=DECAY_DAYS))
                       ).all()
        for a in stale:
            a.strength *= DECAY_LAMBDA
            a.last_referenced_at = now  # one decay step per 90 days unreferenced
            if a.strength < ARCHIVE_BELOW:
                a.archived_at = now
                rep.atoms_archived.append(a.id)
                log_event(s, "atom_archived", f"atom:{a.id}", strength=a.strength)
            else:
                rep.atoms_decayed.append(a.id)
                log_event(s, "atom_decayed", f"atom:{a.id}", strength=a.strength)
            s.add(a)
    # 9. COMPACT
    if compact:
        rep.signatures_dropped = compact_signatures(mem)
    # 10. AUDIT (summary; every step above logged its own events)
    with mem.db.session() as s:
        log_event(s, "consolidation", "", scanned=rep.scanned, atoms=rep.atoms_created, reinforced=rep.atoms_reinforced,
                  beliefs=rep.beliefs_asserted, superseded=rep.beliefs_superseded, decayed=rep.atoms_decayed,
                  archived=rep.atoms_archived, signatures_dropped=rep.signatures_dropped,
                  mean_surprise=round(rep.mean_surprise, 4))
    return rep


def compact_signatures(mem: EpisodicMemory) -> int:
    """Step 9: drop invalidated rows (and rows no episode points to) from both signature files and
    renumber the episodes' rows, crash-safely (``core.memory.forget.compact``).

    Returns the number of rows dropped (0: nothing to do)."""
    from core.memory.forget import compact

    return compact(mem)

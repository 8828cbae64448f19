"""Unlearn (seed 001): tombstone a concept's (or given) episodes and cascade through atoms, beliefs,
procedures and the self-vector; restorable for 30 days (seed 001), then purged.

Tombstoning hides rows from recall at once (the in-memory index marks them dead); their
signature rows are kept so :func:`restore` can bring them back.  :func:`purge_expired`
invalidates the rows (zeroed in the files) and consolidation's compaction drops them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

import numpy as np
from sqlmodel import select

from core import clock, hdc
from core.memory import beliefs as beliefs_mod
from core.memory import self_model
from core.memory.consolidation import MIN_CLUSTER
from core.memory.episodes import EpisodicMemory, entity_key
from core.memory.events import log_event
from core.store.memory_schema import AtomEvidence, Belief, Concept, SemanticAtom, Tombstone
from core.store.schema import Episode

RECOVERY_DAYS = 30


@dataclass
class UnlearnReport:
    episodes_removed: list[int] = field(default_factory=list)
    atoms_affected: list[int] = field(default_factory=list)
    beliefs_removed: list[int] = field(default_factory=list)
    signatures_invalidated: int = 0
    self_vector_drift_bits: int = 0
    audit_event: int | None = None
    tombstone_expiry: object = None


def unlearn(mem: EpisodicMemory, *, concept: str | None = None, episode_ids=(), reason: str = "",
            recovery_days: int = RECOVERY_DAYS) -> UnlearnReport:
    """Forget every episode indexed under entity ``concept`` (a name) and/or ``episode_ids``.

    Cascade: episodes tombstoned (hidden from recall); atoms losing evidence below 3 are
    tombstoned, others have their evidence count reduced; beliefs built on removed atoms are
    withdrawn (revision written); the concept is withdrawn from the index; the self-vector
    has ``α·bundle(forgotten signatures)`` subtracted; one ``unlearned`` event records it all.
    """
    now = clock.now()
    rep = UnlearnReport(tombstone_expiry=now + timedelta(days=recovery_days))
    rows = set()
    if concept:
        rows |= set(mem.concept_rows(entity_key(concept)).tolist())
    ids = {int(mem.index.episode[r]) for r in rows} | {int(e) for e in episode_ids}
    ids = {e for e in ids if e in mem.index.row_of and mem.index.alive[mem.index.row_of[e]]}
    with mem.db.session() as s:
        for eid in sorted(ids):
            ep = s.get(Episode, eid)
            ep.tombstoned_at = now
            s.add(ep)
            s.add(Tombstone(target=f"episode:{eid}", reason=reason, at=now, expires_at=rep.tombstone_expiry))
        rep.episodes_removed = sorted(ids)
        if ids:
            for atom in s.exec(select(SemanticAtom).join(AtomEvidence, AtomEvidence.atom_id == SemanticAtom.id)
                               .where(AtomEvidence.episode_id.in_(ids), SemanticAtom.tombstoned_at.is_(None))
                               .distinct()).all():
                lost = len(s.exec(select(AtomEvidence).where(AtomEvidence.atom_id == atom.id,
                                                             AtomEvidence.episode_id.in_(ids))).all())
                atom.evidence_count -= lost
                rep.atoms_affected.append(atom.id)
                if atom.evidence_count < MIN_CLUSTER:
                    atom.tombstoned_at = now
                    s.add(Tombstone(target=f"atom:{atom.id}", reason=reason, at=now, expires_at=rep.tombstone_expiry))
                    for b in s.exec(select(Belief).where(Belief.atom_id == atom.id, Belief.withdrawn_at.is_(None))).all():
                        beliefs_mod.withdraw(s, b, f"unlearn: {reason}")
                        rep.beliefs_removed.append(b.id)
                s.add(atom)
        if concept:
            c = s.exec(select(Concept).where(Concept.key == entity_key(concept))).first()
            if c is not None:
                c.withdrawn_at = now
                s.add(c)
        if ids:
            sigs = mem.structured.get([mem.index.row_of[e] for e in sorted(ids)])
            snap = self_model.subtract(s, sigs, reason=f"unlearn: {reason}")
            rep.self_vector_drift_bits = snap.drift_bits
        if ids:  # the episode lexicon forgets them now, their neighbours' context windows too
            from core.retrieval import lexicon

            lexicon.remove(s.connection(), sorted(ids))
        ev = log_event(s, "unlearned", f"concept:{concept}" if concept else "episodes", reason=reason,
                       episodes=rep.episodes_removed, atoms=rep.atoms_affected, beliefs=rep.beliefs_removed,
                       self_vector_drift_bits=rep.self_vector_drift_bits)
        s.flush()
        rep.audit_event = ev.id
    for eid in ids:
        mem.index.alive[mem.index.row_of[eid]] = False
    return rep


def restore(mem: EpisodicMemory, episode_ids) -> list[int]:
    """Bring back tombstoned episodes still inside their recovery window; returns those restored."""
    now = clock.now()
    back = []
    with mem.db.session() as s:
        for eid in episode_ids:
            t = s.exec(select(Tombstone).where(Tombstone.target == f"episode:{eid}", Tombstone.restored_at.is_(None))
                       .order_by(Tombstone.id.desc())).first()
            ep = s.get(Episode, eid)
            if t is None or ep is None or clock.ensure_utc(t.expires_at) < now or ep.signature_row is None:
                continue
            t.restored_at = now
            ep.tombstoned_at = None
            s.add(t)
            s.add(ep)
            back.append(eid)
        if back:
            from core.retrieval import lexicon

            s.flush()
            lexicon.rebuild(s.connection(), back)
            log_event(s, "restored", "episodes", episodes=back)
    for eid in back:
        mem.index.alive[mem.index.row_of[eid]] = True
    return back


def purge_expired(mem: EpisodicMemory) -> int:
    """Invalidate the signature rows of episodes whose recovery window has passed (compaction then
    drops them).  Returns rows invalidated."""
    now = clock.now()
    rows = []
    with mem.db.session() as s:
        for t in s.exec(select(Tombstone).where(Tombstone.restored_at.is_(None),
                                                Tombstone.target.like("episode:%"))).all():
            if clock.ensure_utc(t.expires_at) >= now:
                continue
            ep = s.get(Episode, int(t.target.split(":")[1]))
            if ep is not None and ep.signature_row is not None:
                rows.append(ep.signature_row)
    if rows:
        mem.structured.invalidate(rows)
        mem.gists.invalidate(rows)
    return len(rows)

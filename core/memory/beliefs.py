"""Beliefs (seed 001 floor 6): revisable claims with an append-only revision log."""
from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, select

from core import clock
from core.errors import NotFound
from core.extraction import normalize_label
from core.memory.events import log_event
from core.store.memory_schema import Belief, BeliefRevision


def assert_belief(s: Session, subject: str, predicate: str, obj: str, *, confidence: float, evidence_count: int = 0,
                  atom_id: int | None = None, statement: str = "", valid_from: datetime | None = None,
                  signature: bytes | None = None, reason: str = "asserted") -> Belief:
    """Add a belief and its ``asserted`` revision; returns it (with id)."""
    b = Belief(subject=normalize_label(subject), predicate=predicate, object=obj, statement=statement,
               confidence=confidence, evidence_count=evidence_count, atom_id=atom_id,
               valid_from=clock.ensure_utc(valid_from), signature=signature)
    s.add(b)
    s.flush()
    s.add(BeliefRevision(belief_id=b.id, kind="asserted", new_confidence=confidence, reason=reason,
                         detail={"atom": atom_id, "evidence": evidence_count}))
    log_event(s, "belief_asserted", f"belief:{b.id}", triple=[b.subject, predicate, obj], confidence=confidence)
    return b


def revise_confidence(s: Session, belief_id: int, confidence: float, reason: str) -> Belief:
    """Change a belief's confidence (revision ``confidence``).  Raises NotFound."""
    b = s.get(Belief, belief_id)
    if b is None:
        raise NotFound(f"belief {belief_id} not found")
    s.add(BeliefRevision(belief_id=b.id, kind="confidence", old_confidence=b.confidence, new_confidence=confidence,
                         reason=reason))
    b.confidence = confidence
    s.add(b)
    log_event(s, "belief_revised", f"belief:{b.id}", old=b.confidence, new=confidence, reason=reason)
    return b


def supersede(s: Session, old: Belief, new: Belief, reason: str) -> None:
    """``old`` stops being held: superseded by ``new``, valid until ``new.valid_from`` (revision ``superseded``)."""
    old.superseded_by = new.id
    old.valid_to = new.valid_from
    s.add(old)
    s.add(BeliefRevision(belief_id=old.id, kind="superseded", old_confidence=old.confidence, reason=reason,
                         detail={"by": new.id, "new_object": new.object}))
    log_event(s, "belief_superseded", f"belief:{old.id}", by=new.id, reason=reason)


def withdraw(s: Session, belief: Belief, reason: str) -> None:
    """Stop holding ``belief`` (unlearn, lost evidence); revision ``withdrawn``."""
    belief.withdrawn_at = clock.now()
    s.add(belief)
    s.add(BeliefRevision(belief_id=belief.id, kind="withdrawn", old_confidence=belief.confidence, reason=reason))
    log_event(s, "belief_revised", f"belief:{belief.id}", withdrawn=True, reason=reason)


def what_do_i_believe(s: Session, about: str) -> list[Belief]:
    """Held beliefs whose subject is ``about`` (an entity label), most confident first."""
    return list(s.exec(select(Belief).where(Belief.subject == normalize_label(about), Belief.superseded_by.is_(None),
                                            Belief.withdrawn_at.is_(None)).order_by(Belief.confidence.desc())).all())


def revisions(s: Session, belief_id: int) -> list[BeliefRevision]:
    """A belief's revision log, oldest first."""
    return list(s.exec(select(BeliefRevision).where(BeliefRevision.belief_id == belief_id)
                       .order_by(BeliefRevision.id)).all())

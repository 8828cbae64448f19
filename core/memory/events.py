"""The learning-event log (seed 001 floor 7): append-only, one row per introspectable action."""
from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, select

from core import clock
from core.store.memory_schema import LearningEvent

KINDS = ("episode_stored", "recall", "consolidation", "atom_created", "atom_decayed", "atom_archived",
         "belief_asserted", "belief_revised", "belief_superseded", "goal_set", "goal_revised", "procedure_stored",
         "procedure_executed", "self_vector_updated", "signatures_compacted", "episode_superseded", "unlearned",
         "restored")


def log_event(s: Session, kind: str, target: str = "", **detail) -> LearningEvent:
    """Append a learning event in the caller's unit of work (never updated, never deleted)."""
    ev = LearningEvent(kind=kind, target=target, detail=detail, at=clock.now())
    s.add(ev)
    return ev


def what_did_i_learn(s: Session, since: datetime | None = None, kinds: tuple[str, ...] | None = None,
                     limit: int = 500) -> list[LearningEvent]:
    """Learning events at or after ``since`` (UTC; all when None), oldest first, at most ``limit``.

    ``recall`` events are included only when asked for in ``kinds`` (they are many)."""
    q = select(LearningEvent)
    if since is not None:
        q = q.where(LearningEvent.at >= clock.ensure_utc(since))
    if kinds:
        q = q.where(LearningEvent.kind.in_(kinds))
    else:
        q = q.where(LearningEvent.kind != "recall")
    rows = list(s.exec(q.order_by(LearningEvent.at, LearningEvent.id).limit(limit)).all())
    for r in rows:
        r.at = clock.ensure_utc(r.at)
    return rows

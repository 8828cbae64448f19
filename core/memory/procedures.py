"""Procedural memory (seed 001 floor 5): procedures with execution traces and stats."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np
from sqlmodel import Session, select

from core import clock, hdc
from core.errors import NotFound
from core.extraction import extract
from core.memory.episodes import structured_signature
from core.memory.events import log_event
from core.store.memory_schema import ExecutionTrace, Procedure


def _sig(text: str) -> np.ndarray:
    ex = extract(text)
    return structured_signature(ex.entities, ex.terms, ex.triples)


def observe_procedure(s: Session, name: str, description: str = "", steps: list | None = None,
                      trigger: str = "") -> Procedure:
    """Store a procedure; its signature is the structured signature of name + description + trigger."""
    p = Procedure(name=name, description=description, steps=list(steps or []), trigger=trigger,
                  signature=_sig(f"{name}. {description}. {trigger}").tobytes())
    s.add(p)
    s.flush()
    log_event(s, "procedure_stored", f"procedure:{p.id}", name=name)
    return p


def record_execution(s: Session, procedure_id: int, success: bool, duration_s: float = 0.0,
                     steps: list | None = None, notes: str = "", started_at: datetime | None = None) -> ExecutionTrace:
    """Append an execution trace.  Raises NotFound."""
    if s.get(Procedure, procedure_id) is None:
        raise NotFound(f"procedure {procedure_id} not found")
    t = ExecutionTrace(procedure_id=procedure_id, success=success, duration_s=duration_s, steps=list(steps or []),
                       notes=notes, started_at=clock.ensure_utc(started_at) or clock.now())
    s.add(t)
    s.flush()
    log_event(s, "procedure_executed", f"procedure:{procedure_id}", success=success, duration_s=duration_s)
    return t


@dataclass
class ProcedureStats:
    runs: int
    successes: int
    success_rate: float
    mean_duration_s: float
    last_run: datetime | None


def procedure_stats(s: Session, procedure_id: int) -> ProcedureStats:
    """Runs, successes, success rate, mean duration (seconds), last run (UTC)."""
    ts = s.exec(select(ExecutionTrace).where(ExecutionTrace.procedure_id == procedure_id)).all()
    if not ts:
        return ProcedureStats(0, 0, 0.0, 0.0, None)
    ok = sum(1 for t in ts if t.success)
    return ProcedureStats(len(ts), ok, ok / len(ts), float(np.mean([t.duration_s for t in ts])),
                          max(clock.ensure_utc(t.started_at) for t in ts))


def recall_procedure(s: Session, query: str, k: int = 5) -> list[tuple[Procedure, float]]:
    """Live procedures most similar to ``query`` (structured-signature similarity), best first."""
    ps = s.exec(select(Procedure).where(Procedure.tombstoned_at.is_(None))).all()
    if not ps:
        return []
    sims = hdc.similarity(_sig(query), np.stack([np.frombuffer(p.signature, np.uint8) for p in ps]))
    order = np.argsort(-sims, kind="stable")[:k]
    return [(ps[i], float(sims[i])) for i in order]

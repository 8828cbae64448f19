"""Goals (seed 001 floor 6): a state machine in a parent-child tree, each with an HV for goal-biased recall.

States: ``active`` ⇄ ``paused``; either → ``completed`` or ``abandoned`` (terminal).  A goal's
signature is the structured signature of its title and success criteria (entities + terms),
so :func:`goal_bundle` compares with episodes' structured signatures in recall.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from sqlmodel import Session, select

from core import clock, hdc
from core.errors import InputError, NotFound
from core.extraction import extract
from core.memory.episodes import structured_signature
from core.memory.events import log_event
from core.store.memory_schema import GOAL_STATES, Goal

TRANSITIONS = {"active": {"paused", "completed", "abandoned"}, "paused": {"active", "completed", "abandoned"},
               "completed": set(), "abandoned": set()}


def goal_signature(title: str, success_criteria: str = "") -> np.ndarray:
    """``uint8 (1024,)``: the structured signature of the goal's text."""
    ex = extract(f"{title}. {success_criteria}")
    return structured_signature(ex.entities, ex.terms, ex.triples)


def set_goal(s: Session, title: str, *, parent_id: int | None = None, success_criteria: str = "",
             deadline: datetime | None = None, priority: float = 1.0) -> Goal:
    """Create an active goal.  Raises NotFound (no such parent), InputError (empty title)."""
    if not title.strip():
        raise InputError("goal", "a goal needs a title")
    if parent_id is not None and s.get(Goal, parent_id) is None:
        raise NotFound(f"goal {parent_id} not found")
    g = Goal(title=title.strip(), parent_id=parent_id, success_criteria=success_criteria,
             deadline=clock.ensure_utc(deadline), priority=priority,
             signature=goal_signature(title, success_criteria).tobytes())
    s.add(g)
    s.flush()
    log_event(s, "goal_set", f"goal:{g.id}", title=g.title, parent=parent_id)
    return g


def revise_goal(s: Session, goal_id: int, **patch) -> Goal:
    """Change a goal's state/title/criteria/deadline/priority; state changes must follow TRANSITIONS.

    Raises:
        NotFound: no such goal.  InputError: an illegal state transition or unknown field.
    """
    g = s.get(Goal, goal_id)
    if g is None:
        raise NotFound(f"goal {goal_id} not found")
    allowed = {"state", "title", "success_criteria", "deadline", "priority"}
    bad = set(patch) - allowed
    if bad:
        raise InputError(f"goal {goal_id}", f"cannot change {sorted(bad)}")
    if "state" in patch and patch["state"] != g.state:
        new = patch["state"]
        if new not in GOAL_STATES or new not in TRANSITIONS[g.state]:
            raise InputError(f"goal {goal_id}", f"cannot go from {g.state} to {new}")
    old = {k: getattr(g, k) for k in patch}
    for k, v in patch.items():
        setattr(g, k, clock.ensure_utc(v) if k == "deadline" else v)
    if {"title", "success_criteria"} & set(patch):
        g.signature = goal_signature(g.title, g.success_criteria).tobytes()
    g.updated_at = clock.now()
    s.add(g)
    log_event(s, "goal_revised", f"goal:{goal_id}", old={k: str(v) for k, v in old.items()},
              new={k: str(v) for k, v in patch.items()})
    return g


def active_goals(s: Session) -> list[Goal]:
    """Active goals, highest priority first."""
    return list(s.exec(select(Goal).where(Goal.state == "active").order_by(Goal.priority.desc(), Goal.id)).all())


@dataclass
class GoalTree:
    goal: Goal
    children: list["GoalTree"] = field(default_factory=list)


def goal_tree(s: Session, root_id: int) -> GoalTree:
    """The goal and its descendants.  Raises NotFound."""
    root = s.get(Goal, root_id)
    if root is None:
        raise NotFound(f"goal {root_id} not found")
    kids = s.exec(select(Goal).where(Goal.parent_id == root_id).order_by(Goal.id)).all()
    return GoalTree(root, [goal_tree(s, k.id) for k in kids])


def goal_bundle(s: Session) -> np.ndarray | None:
    """The bundle of the active goals' signatures (``uint8 (1024,)``), or None when none is active."""
    gs = active_goals(s)
    if not gs:
        return None
    return hdc.bundle(np.stack([np.frombuffer(g.signature, dtype=np.uint8) for g in gs]))

"""Sensory memory (seed 001 floor 1): a ring buffer of raw frames with surprise-gated promotion.

Capacity 1000 frames or 60 seconds, whichever is smaller (seed 001 defaults).
``surprise = 1 − similarity(signature, bundle(current beliefs))``; a frame is promoted to
episodic memory when surprise > 0.4 (seed 001) or when observed explicitly.  With no beliefs
yet, everything is surprising (surprise 1.0).
"""
from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from core import clock, hdc

CAPACITY = 1000
WINDOW_S = 60.0
THRESHOLD = 0.4


@dataclass
class SensoryFrame:
    """One raw observation: text, its structured signature ``uint8 (1024,)``, when (UTC)."""

    text: str
    signature: np.ndarray
    at: datetime
    surprise: float = 1.0
    promoted: bool = False


def surprise_score(signature: np.ndarray, beliefs_bundle: np.ndarray | None) -> float:
    """``1 − similarity(signature, beliefs_bundle)`` in [0, 1]; 1.0 when there are no beliefs."""
    if beliefs_bundle is None:
        return 1.0
    return float(1.0 - hdc.similarity(signature, beliefs_bundle))


def held_bundle(session) -> np.ndarray | None:
    """The bundle (``hdc.bundle``) of the signatures of every held belief (not superseded, not withdrawn)
    and live semantic atom — what surprise is measured against (seed 001) — or None when there are none.

    Args:
        session: an open SQLModel session on the data folder's database.

    Returns:
        ``uint8 (1024,)`` or None.
    """
    from sqlmodel import select

    from core.store.memory_schema import Belief, SemanticAtom

    held = [b.signature for b in session.exec(select(Belief).where(Belief.superseded_by.is_(None),
                                                                   Belief.withdrawn_at.is_(None))).all() if b.signature]
    held += [a.signature for a in session.exec(select(SemanticAtom).where(SemanticAtom.archived_at.is_(None),
                                                                          SemanticAtom.tombstoned_at.is_(None))).all()]
    if not held:
        return None
    return hdc.bundle(np.stack([np.frombuffer(h, np.uint8) for h in held]))


class SensoryBuffer:
    """The ring buffer.  ``observe`` returns the frame with its surprise and promotion decision."""

    def __init__(self, capacity: int = CAPACITY, window_s: float = WINDOW_S, threshold: float = THRESHOLD):
        self.capacity, self.window_s, self.threshold = capacity, window_s, threshold
        self._frames: deque[SensoryFrame] = deque(maxlen=capacity)
        self._lock = threading.Lock()

    def observe(self, text: str, signature: np.ndarray, beliefs_bundle: np.ndarray | None = None,
                explicit: bool = False, at: datetime | None = None) -> SensoryFrame:
        at = clock.ensure_utc(at) or clock.now()
        s = surprise_score(signature, beliefs_bundle)
        f = SensoryFrame(text, np.asarray(signature, np.uint8), at, s, explicit or s > self.threshold)
        with self._lock:
            self._frames.append(f)
            self._expire(at)
        return f

    def _expire(self, now: datetime) -> None:
        edge = now - timedelta(seconds=self.window_s)
        while self._frames and self._frames[0].at < edge:
            self._frames.popleft()

    def clear(self) -> int:
        """Drop every frame (a forget does: a frame is raw text, it may name what was forgotten); returns how many."""
        with self._lock:
            n = len(self._frames)
            self._frames.clear()
            return n

    def frames(self) -> list[SensoryFrame]:
        """Frames still inside the window, oldest first."""
        with self._lock:
            self._expire(clock.now())
            return list(self._frames)

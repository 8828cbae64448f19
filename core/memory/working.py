"""Working memory (seed 001 floor 2): no table — a session-scoped recency boost on episodic recall.

Each session keeps the last ``capacity`` episodes it touched (stored or recalled),
newest first; capacity 7 after Miller (1956) "seven, plus or minus two", as in seed 001.
A match found in working memory gets its score multiplied by
``1 + boost · (1 - position / capacity)`` (position 0 = most recent).
"""
from __future__ import annotations

import threading
from collections import OrderedDict, deque

CAPACITY = 7
BOOST = 0.25


class WorkingMemory:
    """Per-session recency lists (in memory only; a session ends with the app)."""

    def __init__(self, capacity: int = CAPACITY, boost: float = BOOST, max_sessions: int = 64):
        self.capacity = capacity
        self.boost_weight = boost
        self._sessions: OrderedDict[str, deque[int]] = OrderedDict()
        self._max = max_sessions
        self._lock = threading.Lock()

    def touch(self, session: str | None, episode_ids) -> None:
        """Put ``episode_ids`` (iterable of int) at the front of ``session``'s list, in order given."""
        if session is None:
            return
        with self._lock:
            dq = self._sessions.pop(session, None) or deque(maxlen=self.capacity)
            for e in episode_ids:
                e = int(e)
                if e in dq:
                    dq.remove(e)
                dq.appendleft(e)
            self._sessions[session] = dq
            while len(self._sessions) > self._max:
                self._sessions.popitem(last=False)

    def items(self, session: str | None) -> list[int]:
        """The session's episode ids, most recent first (at most ``capacity``)."""
        with self._lock:
            return list(self._sessions.get(session, ())) if session is not None else []

    def boost(self, session: str | None, episode_id: int) -> float:
        """The multiplicative recency bonus minus one: 0.0 when absent, ``boost`` for the newest item."""
        items = self.items(session)
        if episode_id not in items:
            return 0.0
        return self.boost_weight * (1.0 - items.index(episode_id) / self.capacity)

    def clear(self, session: str) -> None:
        with self._lock:
            self._sessions.pop(session, None)

"""Conversation sessions (seed 000 "Conversation (Session) Mechanics").

Signals written inside a session are scoped (table ``session_signal``): global reads do
not see them until :meth:`Sessions.close` promotes them, copies them to the
person's cohort ledgers and blends the positively received messages of the
session into the preference vector.  Long conversations rotate: close and
reopen every 30 minutes (seed 000: "close and immediately reopen every 30
minutes").  Observations are due every 5 turns and on close (seed 000,
"Every 5 conversation turns / On session close").
"""
from __future__ import annotations

from dataclasses import dataclass

from core.errors import NotFound
from core.personal import preference
from core.personal.learn import message_embeddings, record_patterns
from core.personal.observer import SUBSTANTIVE_MIN_WORDS, SUBSTANTIVE_WORDS
from core.personal.signals import Ledger, SignalWrite, epoch

ROTATE_AFTER_S = 30 * 60.0   # seed 000: rotate sessions every 30 minutes
OBSERVE_EVERY_TURNS = 5      # seed 000: observations every 5 conversation turns


@dataclass(frozen=True)
class SessionInfo:
    """A session row: id, person, conversation key, start/close (UTC epoch s), turns, predecessor."""

    id: int
    person_id: int
    conversation: str
    started_at: float
    closed_at: float | None
    turns: int
    rotated_from: int | None


@dataclass(frozen=True)
class CloseSummary:
    """What closing a session did: signals promoted, preference updates, whether observations are due (always)."""

    session_id: int
    person_id: int
    promoted: int
    preference_updates: int


class Sessions:
    """Open, count turns in, rotate and close conversation sessions over a ledger."""

    def __init__(self, ledger: Ledger):
        self.ledger = ledger

    def get(self, session_id: int) -> SessionInfo:
        """The session.  Raises NotFound when there is no such session."""
        row = self.ledger.conn.execute(
            "SELECT id, person_id, conversation, started_at, closed_at, turns, rotated_from "
            "FROM conversation_session WHERE id=?", (session_id,)).fetchone()
        if row is None:
            raise NotFound(f"no conversation session {session_id}")
        return SessionInfo(*row)

    def open(self, person_id: int, at, conversation: str = "", rotated_from: int | None = None) -> int:
        """Start a session (``at``: tz-aware UTC datetime or epoch s); returns its id."""
        with self.ledger.transaction() as c:
            return c.execute("INSERT INTO conversation_session(person_id, conversation, started_at, turns, "
                             "rotated_from) VALUES (?,?,?,0,?)",
                             (person_id, conversation, epoch(at), rotated_from)).lastrowid

    def current(self, person_id: int, conversation: str = "") -> SessionInfo | None:
        """The person's open session in ``conversation``, or None."""
        row = self.ledger.conn.execute(
            "SELECT id FROM conversation_session WHERE person_id=? AND conversation=? AND closed_at IS NULL "
            "ORDER BY id DESC LIMIT 1", (person_id, conversation)).fetchone()
        return self.get(row[0]) if row else None

    def turn(self, session_id: int) -> bool:
        """Count one turn; True when observations are due (every 5th turn)."""
        with self.ledger.transaction() as c:
            c.execute("UPDATE conversation_session SET turns = turns + 1 WHERE id=?", (session_id,))
            n = c.execute("SELECT turns FROM conversation_session WHERE id=?", (session_id,)).fetchone()[0]
        return n % OBSERVE_EVERY_TURNS == 0

    def close(self, session_id: int, at) -> CloseSummary:
        """Close a session: promote its signals, copy them to cohorts, blend its positive messages
        into the preference vector and fold its outcomes into the "what works" counts.  Closing a closed session promotes nothing more.

        Raises:
            NotFound: no such session.
        """
        info = self.get(session_id)
        t = epoch(at)
        with self.ledger.transaction() as c:
            ids = _positive_targets(c, session_id)
            record_patterns(c, [SignalWrite(n, o, tg, w, a) for n, o, tg, w, a in c.execute(
                "SELECT name, owner, target, weight, at FROM session_signal WHERE session_id=? AND name IN "
                "('replied', 'went_silent', 'negative_sentiment')", (session_id,))])
            promoted = self.ledger.promote_session(session_id, conn=c)
            embs = message_embeddings(c, ids)
            if embs:
                preference.update(c, info.person_id, embs, t)
            c.execute("UPDATE conversation_session SET closed_at = coalesce(closed_at, ?) WHERE id=?",
                      (t, session_id))
        return CloseSummary(session_id, info.person_id, promoted, len(embs))

    def rotate_if_due(self, session_id: int, now) -> tuple[int, CloseSummary | None]:
        """Close and reopen when the session is 30 minutes old; returns (current session id, summary or None)."""
        info = self.get(session_id)
        t = epoch(now)
        if info.closed_at is None and t - info.started_at >= ROTATE_AFTER_S:
            summary = self.close(session_id, t)
            return self.open(info.person_id, t, info.conversation, rotated_from=session_id), summary
        return session_id, None


def _positive_targets(c, session_id: int) -> list[int]:
    """Message ids positively received in a session (replied; positive sentiment or substantive; not negative)."""
    rows = c.execute("SELECT target, name, weight, at FROM session_signal WHERE session_id=? "
                     "AND name IN ('replied','positive_sentiment','negative_sentiment','replied_substantively') "
                     "ORDER BY at", (session_id,)).fetchall()
    seen: dict[str, dict] = {}
    for target, name, weight, at in rows:
        seen.setdefault(target, {})[name] = weight
    out = []
    for target, s in seen.items():
        if not target.startswith("m:") or target == "m:" or "replied" not in s or "negative_sentiment" in s:
            continue
        if "positive_sentiment" in s or s.get("replied_substantively", 0) >= SUBSTANTIVE_MIN_WORDS / SUBSTANTIVE_WORDS:
            out.append(int(target[2:]))
    return out

"""Observations (seed 000 "Observation Lifecycle"): write, reinforce, decay, retrieve.

An observation is a natural-language statement about a person's pattern, stored
with its embedding (float32 (384,)) and a ``confidence`` signal in the person's
ledger on target ``"o:<id>"``: 1.0 at creation, 30-day half-life (seed 000 meta
signal table).  Seeing the same pattern again (same normalised text, or an
embedding with cosine ≥ 0.95) writes a new confidence signal of weight
``1 − current``, which raises the observation back to 1.0 (seed: "reinforcing the
observation back toward full weight").  Below :data:`FORGET_BELOW` an observation
is no longer retrieved (forgotten without deletion); contradictions resolve by
decay alone — a contradicting observation is simply stored beside the old one.

Retrieval: top-5 (seed: "Top-5 observations are included in the brief") by
reciprocal rank fusion (``core.retrieval.fusion.rrf``) of FTS5 BM25 over the text,
cosine against the current conversation's embedding, and confidence.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from core.personal import preference
from core.personal.signals import Ledger, SignalWrite, epoch, spec
from core.retrieval.fusion import rrf
from core.store.search import fts_match_expression

FORGET_BELOW = 0.1       # not in the seed ("fade below a retrieval threshold"); ≈ 3.3 half-lives ≈ 100 days
SAME_COSINE = 0.95       # embeddings this close are "the same pattern" (Kith's choice)
TOP_K = 5                # seed 000: top-5 observations in the brief
CATEGORIES = ("style", "topic", "timing", "dynamics")  # seed 000


@dataclass(frozen=True)
class ObservationView:
    """A retrieved observation: id, text, category, confidence at ``now`` (0–1), fused score."""

    id: int
    text: str
    category: str
    confidence: float
    score: float = 0.0


def normalise(text: str) -> str:
    """The reinforcement key: lower-case words, digits replaced by '#', single spaces."""
    return " ".join(re.sub(r"\d+", "#", w) for w in re.findall(r"\w+", text.lower()))


def confidence(ledger: Ledger, person_id: int, obs_id: int, now) -> float:
    """Decayed confidence of one observation at ``now`` (0–1)."""
    return min(1.0, ledger.decayed("confidence", person_id, now, target=f"o:{obs_id}"))


def write(ledger: Ledger, person_id: int, text: str, category: str, at, embedding: np.ndarray | None = None,
          source: str = "") -> tuple[int, bool]:
    """Store an observation, or reinforce the existing one it repeats.

    Args:
        person_id: whom it is about; text: the statement; category: style | topic | timing | dynamics;
        at: tz-aware UTC datetime or epoch s; embedding: float32 (384,) or None; source: conversation key.

    Returns:
        (observation id, reinforced?) — reinforced is True when an existing one was seen again.

    Raises:
        ValueError: unknown category.
    """
    if category not in CATEGORIES:
        raise ValueError(f"category must be one of {CATEGORIES}, not {category!r}")
    t = epoch(at)
    key = normalise(text)
    c = ledger.conn
    row = c.execute("SELECT id FROM observation WHERE person_id=? AND key=? ORDER BY id LIMIT 1",
                    (person_id, key)).fetchone()
    if row is None and embedding is not None:
        e = np.asarray(embedding, dtype=np.float32)
        for oid, blob in c.execute("SELECT id, embedding FROM observation WHERE person_id=? AND embedding IS NOT NULL",
                                   (person_id,)):
            if float(preference.from_bytes(blob) @ e) >= SAME_COSINE:
                row = (oid,)
                break
    with ledger.transaction() as tx:
        if row is not None:
            oid = int(row[0])
            current = min(1.0, ledger.decayed("confidence", person_id, t, target=f"o:{oid}"))
            if current < 1.0:
                ledger.write_many([SignalWrite("confidence", person_id, f"o:{oid}", 1.0 - current, t)],
                                  conn=tx, to_cohorts=False)
            tx.execute("UPDATE observation SET reinforced_at=max(reinforced_at, ?), times_seen=times_seen+1 "
                       "WHERE id=?", (t, oid))
            return oid, True
        oid = tx.execute("INSERT INTO observation(person_id, text, key, category, source_conversation, created_at, "
                         "reinforced_at, times_seen, embedding) VALUES (?,?,?,?,?,?,?,1,?)",
                         (person_id, text, key, category, source, t, t,
                          None if embedding is None else preference.to_bytes(embedding))).lastrowid
        tx.execute("INSERT INTO observation_fts(rowid, text) VALUES (?, ?)", (oid, text))
        ledger.write_many([SignalWrite("confidence", person_id, f"o:{oid}", spec("confidence").default_weight, t)],
                          conn=tx, to_cohorts=False)
    return oid, False


def active(ledger: Ledger, person_id: int, now, threshold: float = FORGET_BELOW) -> list[ObservationView]:
    """The person's observations whose confidence at ``now`` is at least ``threshold``, most confident first."""
    scores = ledger.targets("confidence", person_id, now, prefix="o:")
    ids = {int(t[2:]): min(1.0, v[2]) for t, v in scores.items() if v[2] >= threshold}
    if not ids:
        return []
    rows = ledger.conn.execute(f"SELECT id, text, category FROM observation WHERE id IN ({','.join('?' * len(ids))})",
                               list(ids)).fetchall()
    return sorted((ObservationView(r[0], r[1], r[2], round(ids[r[0]], 4)) for r in rows),
                  key=lambda o: (-o.confidence, o.id))  # ties: oldest first (not the order a database returns rows)


def retrieve(ledger: Ledger, person_id: int, now, query: str = "", query_embedding: np.ndarray | None = None,
             k: int = TOP_K, threshold: float = FORGET_BELOW) -> list[ObservationView]:
    """Top-``k`` observations for the current conversation by RRF of BM25, cosine and confidence.

    Args:
        query: the current conversation's text (recent turns); query_embedding: its float32 (384,) vector.
        threshold: observations below this confidence are forgotten (not returned).
    """
    cands = active(ledger, person_id, now, threshold)
    if not cands:
        return []
    by_id = {o.id: o for o in cands}
    rankings: list[list[int]] = [[o.id for o in cands]]  # by confidence
    expr = fts_match_expression(query) if query else None
    if expr:
        ids = ",".join(str(i) for i in by_id)
        if getattr(ledger, "url", None):  # PostgreSQL: the same BM25 over a GIN-indexed tsvector
            from core.store.search import pg_bm25, query_terms

            rows = pg_bm25(ledger.conn, "observation_fts", ("text",), (1.0,), query_terms(query), len(by_id),
                           fold=True, restrict=list(by_id))
        else:
            rows = ledger.conn.execute(f"SELECT rowid FROM observation_fts WHERE observation_fts MATCH ? "
                                       f"AND rowid IN ({ids}) ORDER BY bm25(observation_fts)", (expr,)).fetchall()
        rankings.append([r[0] for r in rows])
    if query_embedding is not None:
        q = np.asarray(query_embedding, dtype=np.float32)
        rows = ledger.conn.execute(f"SELECT id, embedding FROM observation WHERE embedding IS NOT NULL AND id IN "
                                   f"({','.join(str(i) for i in by_id)})").fetchall()
        if rows:
            m = np.stack([preference.from_bytes(b) for _i, b in rows])
            order = np.argsort(-(m @ q), kind="stable")
            rankings.append([rows[i][0] for i in order])
    fused = rrf(rankings)[:k]
    return [ObservationView(o.id, o.text, o.category, o.confidence, round(s, 6))
            for o, s in ((by_id[i], s) for i, s in fused)]


def from_brief(brief) -> list[tuple[str, str]]:
    """Template observations over a :class:`core.personal.briefing.Brief` (used when no LLM is configured).

    Returns:
        (statement, category) pairs; the same signals give the same sentences, so they reinforce.
    """
    name = brief.person.name or f"Person {brief.person.id}"
    out: list[tuple[str, str]] = []
    t, s = brief.timing, brief.style
    if t.fastest_reply_hours:
        out.append((f"{name} replies fastest to messages sent around "
                    + ", ".join(f"{h:02d}:00" for h in t.fastest_reply_hours), "timing"))
    if t.goes_silent_after is not None:
        out.append((f"{name} tends to go silent on messages sent around {t.goes_silent_after:02d}:00", "timing"))
    if brief.topics.hot:
        out.append((f"{name} engages most with {brief.topics.hot[0].topic}", "topic"))
    for c in brief.topics.cold[:1]:
        out.append((f"{name} tends to drop or ignore {c.topic}", "topic"))
    if brief.topics.initiated_by_person:
        out.append((f"{name} often brings up {brief.topics.initiated_by_person[0]} unprompted", "topic"))
    if s.samples >= 3:
        out.append((f"{name} writes {s.preferred_length} messages, "
                    f"{'casually' if s.formality.current < 0.4 else 'formally' if s.formality.current > 0.6 else 'in a neutral register'}"
                    + (", in lowercase" if s.lowercase_share >= 0.5 else "")
                    + ("" if s.emoji_usage == "none" else f", with {s.emoji_usage} emoji"), "style"))
        if s.prefers_to_lead:
            out.append((f"{name} likes to lead the conversation and steer it to new topics", "dynamics"))
        if s.responds_to_questions is True:
            out.append((f"{name} replies more often when asked a direct question", "dynamics"))
    return [(text[:1].upper() + text[1:], category) for text, category in out]


def confidence_curve(ledger: Ledger, person_id: int, obs_id: int, times) -> np.ndarray:
    """The observation's confidence at each of ``times`` (seed 000: 1.0 at creation, 30-day half-life,
    reinforcement writes ``1 − current``), capped at 1.0.

    Args:
        times: epoch seconds (UTC), any order; shape (n,).

    Returns:
        float64 (n,): Σ wᵢ·2^(−(t − tᵢ)/half-life) over the confidence signals written at tᵢ ≤ t, capped at 1
        — the same sum :meth:`Ledger.decayed` takes, at many times at once.  0 before the first signal.
    """
    t = np.asarray(times, dtype=np.float64)
    rows = ledger.conn.execute("SELECT at, weight FROM signal WHERE owner=? AND name='confidence' AND target=?",
                               (person_id, f"o:{obs_id}")).fetchall()
    out = np.zeros_like(t)
    hl = spec("confidence").half_life_s
    for at, w in rows:
        age = t - float(at)
        out += np.where(age >= 0, float(w) * np.power(0.5, np.clip(age, 0, None) / hl), 0.0)
    return np.minimum(out, 1.0)


def signal_times(ledger: Ledger, person_id: int, obs_id: int) -> list[float]:
    """When the observation's confidence signals were written (creation, then each reinforcement), epoch s, sorted."""
    return sorted(float(r[0]) for r in ledger.conn.execute(
        "SELECT at FROM signal WHERE owner=? AND name='confidence' AND target=?", (person_id, f"o:{obs_id}")))

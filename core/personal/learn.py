"""Learn (seed 000 "Phase 2: Learn"): ObserverOutput → signal writes + the person's style metadata.

:func:`learn` is a pure function of its input (an :class:`Exchange`) plus the
store: no clock, no model.  Signals written per exchange (seed 000 tables):

* replied (1.0), replied_fast (1.0 when latency < 120 s), replied_substantively
  (word count / 25, capped at 1), positive_/negative_sentiment (the observer's
  0–1 magnitude) — on the prompt message ``m:<id>``, at the prompt's send time
  (so hour buckets say when writing to them works);
* went_silent (1.0) when they did not reply, and topic_dropped on the prompt's topics;
* topic_engaged (1.0) on topics they stayed on, topic_dropped (1.0) on prompt
  topics they redirected away from or answered briefly (≤ 5 words),
  initiated (1.5) on topics they raised unprompted — at their reply's time.

Global exchanges also blend the prompt's embedding into the preference vector
when it was positively received, and fold the prompt's features into the person's
"what works" counts (:func:`record_patterns`, table ``person_pattern``); session
exchanges do both at session close.
"""
from __future__ import annotations

import json
import math
import sqlite3
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from core.personal import preference
from core.personal.observer import ObserverOutput, substantive_weight
from core.personal.signals import INITIATED_WEIGHT, REPLIED_FAST_S, Ledger, SignalWrite

PATTERN_HALF_LIFE_S = 30 * 86400.0  # "what works" counts decay with a 30-day half-life (Kith's choice)
SHORT_WORDS, LONG_WORDS = 12, 40     # message length features: short ≤ 12 words, long > 40
BRIEF_WORDS = 5          # "went brief": a reply of at most this many words drops the prompt's topics
FORMALITY_FAST = 0.3     # EMA rates for the formality trend (current vs long-run); Kith's choice
FORMALITY_SLOW = 0.05


@dataclass(frozen=True)
class Exchange:
    """One observed exchange with a person, everything :func:`learn` needs.

    Attributes:
        person_id: the person (entity id) whose ledger learns.
        output: the observer's :class:`ObserverOutput` for their reaction.
        prompt_message_id: the Message they reacted to (signals' target), or None if they wrote first.
        prompt_at: when that message was sent (UTC epoch s); None if they wrote first.
        reply_at: when they replied (UTC epoch s); for silence, when the timeout ran out.
        prompt_topics: the prompt's keyword topics; reply_topics: theirs.
        initiated: topics they raised unprompted (not in the prompt nor the recent conversation).
        prompt_is_question: whether the prompt asked something.
        session_id: a ConversationSession id (signals stay session-scoped) or None (global).
        reply_message_id: their Message row, if stored.
    """

    person_id: int
    output: ObserverOutput
    reply_at: float
    prompt_message_id: int | None = None
    prompt_at: float | None = None
    prompt_topics: tuple[str, ...] = ()
    reply_topics: tuple[str, ...] = ()
    initiated: tuple[str, ...] = ()
    prompt_is_question: bool = False
    session_id: int | None = None
    reply_message_id: int | None = None


def positively_received(out: ObserverOutput) -> bool:
    """Replied, not negative, and either positive or substantive: the EMA's "positive response"."""
    e = out.engagement
    return e.replied and e.sentiment_direction != "negative" and (
        e.sentiment_direction == "positive" or e.substantive)


def signal_writes(x: Exchange) -> list[SignalWrite]:
    """The signals an exchange implies (pure: no store access)."""
    e, d = x.output.engagement, x.output.dynamics
    p, out = x.person_id, []
    target = f"m:{x.prompt_message_id}" if x.prompt_message_id is not None else "m:"
    t_prompt = x.prompt_at if x.prompt_at is not None else x.reply_at
    if x.prompt_at is not None:
        if e.replied:
            out.append(SignalWrite("replied", p, target, 1.0, t_prompt))
            if e.latency_seconds is not None and e.latency_seconds < REPLIED_FAST_S:
                out.append(SignalWrite("replied_fast", p, target, 1.0, t_prompt))
            if e.word_count > 0:
                out.append(SignalWrite("replied_substantively", p, target, substantive_weight(e.word_count),
                                       t_prompt))
            if e.sentiment_direction == "positive" and e.sentiment_score > 0:
                out.append(SignalWrite("positive_sentiment", p, target, e.sentiment_score, t_prompt))
            elif e.sentiment_direction == "negative" and e.sentiment_score > 0:
                out.append(SignalWrite("negative_sentiment", p, target, e.sentiment_score, t_prompt))
        else:
            out.append(SignalWrite("went_silent", p, target, 1.0, t_prompt))
    reply_set = set(x.reply_topics)
    for t in x.prompt_topics:
        if e.replied and t in reply_set:
            out.append(SignalWrite("topic_engaged", p, f"t:{t}", 1.0, x.reply_at))
        elif x.prompt_at is not None and (not e.replied or d.redirected or e.word_count <= BRIEF_WORDS):
            out.append(SignalWrite("topic_dropped", p, f"t:{t}", 1.0, x.reply_at))
    for t in x.initiated:
        out.append(SignalWrite("initiated", p, f"t:{t}", INITIATED_WEIGHT, x.reply_at))
    return out


# --------------------------------------------------------------------------- profiles
@dataclass
class Profile:
    """A person's communication metadata (``person_profile`` row)."""

    person_id: int
    name: str = ""
    meta: dict = field(default_factory=dict)
    style: dict = field(default_factory=dict)
    interaction_count: int = 0
    first_interaction: float | None = None
    last_interaction: float | None = None


def load_profile(conn: sqlite3.Connection, person_id: int) -> Profile:
    """The person's profile (an empty one when none is stored)."""
    row = conn.execute("SELECT name, meta, style, interaction_count, first_interaction, last_interaction "
                       "FROM person_profile WHERE person_id=?", (person_id,)).fetchone()
    if row is None:
        return Profile(person_id)
    return Profile(person_id, row[0] or "", json.loads(row[1] or "{}"), json.loads(row[2] or "{}"),
                   int(row[3] or 0), row[4], row[5])


def save_profile(conn: sqlite3.Connection, p: Profile) -> None:
    conn.execute(
        "INSERT INTO person_profile(person_id, name, meta, style, interaction_count, first_interaction, "
        "last_interaction) VALUES (?,?,?,?,?,?,?) ON CONFLICT(person_id) DO UPDATE SET name=excluded.name, "
        "meta=excluded.meta, style=excluded.style, interaction_count=excluded.interaction_count, "
        "first_interaction=excluded.first_interaction, last_interaction=excluded.last_interaction",
        (p.person_id, p.name, json.dumps(p.meta), json.dumps(p.style), p.interaction_count,
         p.first_interaction, p.last_interaction))


def set_person(ledger: Ledger, person_id: int, name: str | None = None, **meta) -> Profile:
    """Create or update a person's name and cohort metadata (relationship, role, timezone, …)."""
    with ledger.transaction() as c:
        p = load_profile(c, person_id)
        if name is not None:
            p.name = name
        p.meta.update({k: v for k, v in meta.items() if v is not None})
        save_profile(c, p)
    if getattr(ledger, "cohorts", None) is not None:
        ledger.cohorts.invalidate(person_id)
    return p


def update_style(p: Profile, x: Exchange) -> None:
    """Fold one exchange into the running style statistics (in place)."""
    s, e, st, dyn = p.style, x.output.engagement, x.output.style, x.output.dynamics
    if x.prompt_at is not None:
        key = "prompts_question" if x.prompt_is_question else "prompts_other"
        s[key] = s.get(key, 0) + 1
        if e.replied:
            s[key + "_replied"] = s.get(key + "_replied", 0) + 1
    wrote = e.replied or x.prompt_at is None
    if not wrote:
        return
    n = s.get("n", 0)
    f = st.formality
    s["formality_fast"] = f if n == 0 else (1 - FORMALITY_FAST) * s["formality_fast"] + FORMALITY_FAST * f
    s["formality_slow"] = f if n == 0 else (1 - FORMALITY_SLOW) * s["formality_slow"] + FORMALITY_SLOW * f
    s["n"] = n + 1
    for flag, on in (("lowercase", st.uses_lowercase), ("emoji", st.emoji), ("jargon", st.uses_jargon),
                     ("question", st.asks_question), ("leads", dyn.who_is_leading == "person"),
                     ("corrects", dyn.corrected_system)):
        s[flag] = s.get(flag, 0) + int(bool(on))
    s["words"] = s.get("words", 0) + e.word_count
    structs = s.setdefault("structure", {})
    structs[st.structure] = structs.get(st.structure, 0) + 1
    p.interaction_count += 1
    t = x.reply_at
    p.first_interaction = t if p.first_interaction is None else min(p.first_interaction, t)
    p.last_interaction = t if p.last_interaction is None else max(p.last_interaction, t)


@dataclass
class LearnResult:
    """What :func:`learn_many` did: signals written, exchanges positively received, preference updates."""

    signals: int = 0
    positive: int = 0
    preference_updates: int = 0


def learn(ledger: Ledger, x: Exchange) -> LearnResult:
    """Learn one exchange (one transaction).  See :func:`learn_many`."""
    return learn_many(ledger, [x])


def learn_many(ledger: Ledger, exchanges: list[Exchange]) -> LearnResult:
    """Learn a batch of exchanges in one transaction: signals, style metadata, preference EMA.

    Global exchanges (``session_id`` None) update cohort ledgers and the preference vector
    now; session exchanges wait for the session's close (``sessions.py``).

    Raises:
        ValueError: an exchange names an unknown signal (never, for the writes produced here).
    """
    res = LearnResult()
    by_person: dict[int, list[Exchange]] = {}
    for x in exchanges:
        by_person.setdefault(x.person_id, []).append(x)
    with ledger.transaction() as c:
        for pid, xs in by_person.items():
            p = load_profile(c, pid)
            for x in xs:
                update_style(p, x)
            save_profile(c, p)
        if getattr(ledger, "cohorts", None) is not None:
            for pid in by_person:
                ledger.cohorts.invalidate(pid)
        for sid in {x.session_id for x in exchanges}:
            writes = [w for x in exchanges if x.session_id == sid for w in signal_writes(x)]
            res.signals += ledger.write_many(writes, session_id=sid, conn=c)
        glob_writes = [w for x in exchanges if x.session_id is None for w in signal_writes(x)]
        if glob_writes:
            record_patterns(c, glob_writes)
        for pid, xs in by_person.items():
            pos = [x for x in xs if positively_received(x.output)]
            res.positive += len(pos)
            glob = [x for x in pos if x.session_id is None and x.prompt_message_id is not None]
            embs = message_embeddings(c, [x.prompt_message_id for x in sorted(glob, key=lambda x: x.reply_at)])
            if embs:
                preference.update(c, pid, embs, max(x.reply_at for x in glob))
                res.preference_updates += len(embs)
    return res


_OUTCOME = {"replied": 0, "went_silent": 1, "negative_sentiment": 2}


def message_features(topic: str | None, length: int, is_question: bool, at: float) -> list[str]:
    """The ``person_pattern`` feature keys of a sent message (hour in UTC: the brief rotates it to local time)."""
    f = ["*", "q" if is_question else "nq", f"h:{int(at // 3600) % 24}"]
    if length <= SHORT_WORDS:
        f.append("short")
    elif length > LONG_WORDS:
        f.append("long")
    if topic:
        f.append(f"t:{topic}")
    return f


def record_patterns(conn: sqlite3.Connection, writes: Sequence[SignalWrite]) -> int:
    """Fold the outcomes among ``writes`` (replied / went_silent / negative_sentiment on ``m:<id>``
    targets of people) into ``person_pattern``, in the caller's transaction.

    Each outcome counts 1 and, decayed, 2^(−(t_ref − at)/30 d) at the batch's reference time; rows
    merge with the stored ones symmetrically in time (exact for out-of-order batches).  Returns
    outcomes recorded.
    """
    hits = [(w.owner, int(w.target[2:]), _OUTCOME[w.name], w.at) for w in writes
            if w.name in _OUTCOME and w.owner > 0 and w.target[:2] == "m:" and w.target[2:].isdigit()]
    if not hits:
        return 0
    ids = sorted({h[1] for h in hits})
    meta: dict[int, tuple] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        for r in conn.execute(f"SELECT id, topic, length, is_question FROM message WHERE id IN "
                              f"({','.join('?' * len(chunk))})", chunk):
            meta[r[0]] = r[1:]
    t_ref = max(h[3] for h in hits)
    acc: dict[tuple[int, str], list] = {}
    for owner, mid, k, at in hits:
        m = meta.get(mid)
        if m is None:
            continue
        d = math.pow(0.5, (t_ref - at) / PATTERN_HALF_LIFE_S)
        for f in message_features(m[0], int(m[1] or 0), bool(m[2]), at):
            a = acc.setdefault((owner, f), [0, 0.0, 0, 0.0, 0, 0.0])
            a[2 * k] += 1
            a[2 * k + 1] += d
    conn.executemany(_PATTERN_SQL, [(o, f, *a, t_ref) for (o, f), a in acc.items()])
    return len(hits)


_DECAY_TO = "pow(0.5, (max(person_pattern.t_ref, excluded.t_ref) - {t}) / %r)" % PATTERN_HALF_LIFE_S
_PATTERN_SQL = (
    "INSERT INTO person_pattern(person_id, feature, replied_n, replied, silent_n, silent, negative_n, negative, "
    "t_ref) VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT(person_id, feature) DO UPDATE SET "
    + ", ".join(f"{c}_n = person_pattern.{c}_n + excluded.{c}_n, {c} = person_pattern.{c} * "
                f"{_DECAY_TO.format(t='person_pattern.t_ref')} + excluded.{c} * "
                f"{_DECAY_TO.format(t='excluded.t_ref')}" for c in ("replied", "silent", "negative"))
    + ", t_ref = max(person_pattern.t_ref, excluded.t_ref)")


def load_patterns(conn: sqlite3.Connection, person_id: int, now: float) -> dict[str, tuple[int, float, int, float,
                                                                                             int, float]]:
    """feature → (replied_n, replied, silent_n, silent, negative_n, negative), the decayed counts taken to ``now``."""
    out = {}
    for f, rn, r, sn, sv, nn, nv, t_ref in conn.execute(
            "SELECT feature, replied_n, replied, silent_n, silent, negative_n, negative, t_ref FROM person_pattern "
            "WHERE person_id=?", (person_id,)):
        d = math.pow(0.5, (now - t_ref) / PATTERN_HALF_LIFE_S)
        out[f] = (rn, r * d, sn, sv * d, nn, nv * d)
    return out


def rebuild_patterns(conn: sqlite3.Connection, person_id: int) -> int:
    """Recompute a person's ``person_pattern`` rows from their global signals (caller's transaction).
    For files learned before the table existed; returns outcomes recorded."""
    conn.execute("DELETE FROM person_pattern WHERE person_id=?", (person_id,))
    rows = conn.execute("SELECT name, target, weight, at FROM signal WHERE owner=? AND name IN "
                        "('replied', 'went_silent', 'negative_sentiment')", (person_id,)).fetchall()
    return record_patterns(conn, [SignalWrite(n, person_id, t, w, a) for n, t, w, a in rows])


def message_embeddings(conn: sqlite3.Connection, ids: list[int]) -> list[np.ndarray]:
    """Embeddings (float32 (384,)) of the given Message ids that have one, in the given order."""
    if not ids:
        return []
    found: dict[int, bytes] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        q = f"SELECT id, embedding FROM message WHERE embedding IS NOT NULL AND id IN ({','.join('?' * len(chunk))})"
        found.update(conn.execute(q, chunk).fetchall())
    return [preference.from_bytes(found[i]) for i in ids if i in found]


def add_messages(conn: sqlite3.Connection, rows: list[dict]) -> list[int]:
    """Insert Message rows (dicts of the ``message`` columns; ``embedding`` float32 (384,) array or None).

    Returns their ids, in order.  Runs in the caller's transaction.
    """
    ids = []
    for r in rows:
        emb = r.get("embedding")
        cur = conn.execute(
            "INSERT INTO message(person_id, direction, conversation, session_id, record_ref, text, topic, tone, "
            "length, structure, is_question, at, embedding) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (r["person_id"], r["direction"], r.get("conversation", ""), r.get("session_id"), r.get("record_ref"),
             r.get("text", ""), r.get("topic"), r.get("tone"), int(r.get("length", 0)), r.get("structure"),
             bool(r.get("is_question", False)), float(r["at"]),
             None if emb is None else preference.to_bytes(emb)))
        ids.append(cur.lastrowid)
    return ids

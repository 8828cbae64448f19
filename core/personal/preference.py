"""Preference vectors: an EMA over the embeddings of positively received messages (seed 000).

Seed 000, "Preference Vector Evolution"::

    After 1 msg: preference = message_embedding
    After N:     preference = (1 - alpha) * preference + alpha * new_message_embedding
                 alpha = base_alpha / (1 + ln(update_count + 1)),  base_alpha = 0.15

Here ``update_count`` is the number of embeddings already blended in (n), so the
first blend after the initial vector uses alpha(1) = 0.15 / (1 + ln 2) ≈ 0.0886,
alpha(5) ≈ 0.0537, alpha(20) ≈ 0.0371, alpha(100) ≈ 0.0267.  The seed's prose
rounds these as ≈ 0.15, 0.08, 0.04, 0.03; its own formula gives the values
above (0.15 is alpha(0)), and the formula is what is implemented.

Vectors are float32 (384,), kept L2-normalised after each blend so cosine = dot.
"""
from __future__ import annotations

import math
import sqlite3

import numpy as np

BASE_ALPHA = 0.15  # seed 000: base_alpha = 0.15
DIM = 384          # seed 000: 384D embeddings (all-MiniLM-L6-v2)


def alpha(n: int) -> float:
    """EMA rate after ``n`` prior updates: 0.15 / (1 + ln(n + 1)).  alpha(0) = 0.15."""
    if n < 0:
        raise ValueError("n must be >= 0")
    return BASE_ALPHA / (1.0 + math.log(n + 1))


def blend(pref: np.ndarray | None, emb: np.ndarray, n: int) -> tuple[np.ndarray, int]:
    """One EMA step.

    Args:
        pref: current vector float32 (384,) or None (cold start); emb: the new embedding (384,);
        n: updates so far.

    Returns:
        (new vector float32 (384,), L2-normalised; n + 1).  From None the vector is ``emb`` itself.
    """
    e = np.asarray(emb, dtype=np.float32).reshape(-1)
    if pref is None:
        v = e.copy()
    else:
        a = np.float32(alpha(n))
        v = (np.float32(1.0) - a) * np.asarray(pref, dtype=np.float32) + a * e
    norm = float(np.linalg.norm(v))
    if norm > 0:
        v = (v / np.float32(norm)).astype(np.float32)
    return v, n + 1


def to_bytes(v: np.ndarray) -> bytes:
    return np.asarray(v, dtype="<f4").tobytes()


def from_bytes(b: bytes | None) -> np.ndarray | None:
    return None if b is None else np.frombuffer(b, dtype="<f4").copy()


def load(conn: sqlite3.Connection, person_id: int) -> tuple[np.ndarray | None, int]:
    """(vector float32 (384,) or None, update count) of a person."""
    row = conn.execute("SELECT vector, n_updates FROM preference_vector WHERE person_id=?", (person_id,)).fetchone()
    return (None, 0) if row is None else (from_bytes(row[0]), int(row[1]))


def update(conn: sqlite3.Connection, person_id: int, embeddings: list[np.ndarray], at: float) -> np.ndarray | None:
    """Blend ``embeddings`` (in order) into the person's vector and store it (caller's transaction)."""
    if not embeddings:
        return load(conn, person_id)[0]
    v, n = load(conn, person_id)
    for e in embeddings:
        v, n = blend(v, e, n)
    conn.execute("INSERT INTO preference_vector(person_id, vector, n_updates, updated_at) VALUES (?,?,?,?) "
                 "ON CONFLICT(person_id) DO UPDATE SET vector=excluded.vector, n_updates=excluded.n_updates, "
                 "updated_at=excluded.updated_at", (person_id, to_bytes(v), n, at))
    return v

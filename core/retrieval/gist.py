"""The ``gist`` ranking: the episodes whose HDC gist signatures (seed 001) are nearest to the question's.

A two-stage scan of the memory-mapped signature file ``gists.dat`` (``core/store/signatures.py``): the
Hamming distance of every row's 256-bit *sketch* (the first 32 bytes: each bit of a Charikar signature is an
independent estimate, so a prefix is a coarse but unbiased one), then the full 8192-bit distance of the best
``shortlist`` rows, whose episodes — and whether recall may return them (live, not superseded, as of
``as_of``) — are looked up in SQLite by signature row (a unique index).  Nothing is loaded in memory but the
mapped pages the scan touches, so a cold ``kith ask`` pays no index build (the seed's cascade keeps its
in-memory :class:`core.memory.episodes.EpisodeIndex` for itself).

The cosine of two vectors is estimated from the Hamming distance ``h`` of their signatures as
``cos(π·h / 8192)`` (Charikar 2002: P[bit differs] = θ/π).
"""
from __future__ import annotations

from datetime import datetime

import numpy as np

from core import clock, hdc

SHORTLIST = 512
"""Rows re-ranked on full signatures after the sketch scan (``core.memory.recall.SHORTLIST``)."""


def _dt(v) -> datetime | None:
    if v is None:
        return None
    return clock.ensure_utc(v if isinstance(v, datetime) else datetime.fromisoformat(str(v)))


def ranking(cur, mem, gist_q: np.ndarray, n: int, as_of: datetime | None = None,
            shortlist: int = SHORTLIST) -> list[tuple[int, float]]:
    """The ``n`` episodes nearest to ``gist_q`` that recall may return.

    Args:
        cur: a ``sqlite3`` cursor on the Kith database (or ``core.store.dialect.PgCursor``).
        mem: the ``core.memory.episodes.EpisodicMemory`` (its ``gists`` file).
        gist_q: the question's gist signature, ``uint8 (1024,)``.
        n: episodes wanted.
        as_of: UTC; valid then (``t_valid`` and ``t_recorded`` ≤ it, not superseded by then); None: now
            (not superseded at all).
        shortlist: rows re-ranked on full signatures (at least ``n``).

    Returns:
        ``[(episode id, estimated cosine)]``, nearest first.
    """
    look = lookup(cur, mem, gist_q, n, as_of, shortlist)
    if look is None:
        return []
    return look.parse(cur.execute(look.sql, look.params).fetchall())


def lookup(cur, mem, gist_q: np.ndarray, n: int, as_of: datetime | None = None, shortlist: int = SHORTLIST):
    """:func:`ranking` as a ``core.retrieval.lexicon.Lookup``: the signature scan is done here; the statement
    reads the episodes of the shortlist's nearest rows (``n`` + a margin: most rows are live, so it usually
    finds ``n``), and the parse reads further rows, nearest first, a chunk at a time, in the rare case it did
    not (on ``cur``).  So the retriever can send the statement with others.  None when there is nothing to
    scan."""
    from core.retrieval.lexicon import Lookup

    files = mem.gists
    if not len(files) or n <= 0:
        return None
    sk = files.sketch()
    rows_n = sk.shape[0]
    d = hdc.hamming(gist_q[: sk.shape[1]], sk)
    m = min(max(shortlist, n), rows_n)
    short = np.argpartition(d, m - 1)[:m] if m < rows_n else np.arange(rows_n)
    short = np.sort(short)
    cos = np.cos(np.pi * np.atleast_1d(hdc.hamming(gist_q, files.rows()[short])) / hdc.DIM)
    t = clock.ensure_utc(as_of) if as_of is not None else None
    order = short[np.argsort(-cos, kind="stable")].tolist()  # signature rows, nearest first
    cos_of = dict(zip(short.tolist(), cos.tolist()))
    step = n + max(8, n // 4)

    def parse(found) -> list[tuple[int, float]]:
        out: list[tuple[int, float]] = []
        start, size, ep_of = 0, step, _live(found, t)
        while True:
            for r in order[start:start + size]:
                e = ep_of.get(r)
                if e is not None:
                    out.append((e, cos_of[r]))
                    if len(out) == n:
                        return out
            start, size = start + size, size * 4
            if start >= len(order):
                return out
            sql, params = _live_sql(cur, order[start:start + size], t)
            ep_of = _live(cur.execute(sql, params).fetchall(), t)

    sql, params = _live_sql(cur, order[:step], t)
    return Lookup(sql, tuple(params), parse)


def _live_sql(cur, rows: list[int], t: datetime | None) -> tuple[str, list]:
    """The statement reading the episodes of signature ``rows`` that recall may return (live, and not
    superseded; with ``t``: with the timestamps :func:`_live` checks)."""
    from core.store.dialect import in_list

    where, params = in_list(cur, "e.signature_row", rows)
    if t is None:  # now: not superseded at all (no timestamps to read and parse)
        return ("SELECT e.id, e.signature_row FROM episode e LEFT JOIN episode s ON s.id = e.superseded_by "
                f"WHERE {where} AND e.tombstoned_at IS NULL AND (e.superseded_by IS NULL OR s.t_recorded IS NULL)",
                params)
    return ("SELECT e.id, e.signature_row, e.t_valid, e.t_recorded, e.superseded_by, s.t_recorded FROM episode e "
            f"LEFT JOIN episode s ON s.id = e.superseded_by WHERE {where} AND e.tombstoned_at IS NULL", params)


def _live(found, t: datetime | None) -> dict[int, int]:
    """``{signature row: episode id}`` of the rows of :func:`_live_sql` (with ``t``: valid and recorded by then,
    not superseded by then)."""
    ep_of: dict[int, int] = {}
    if t is None:
        for eid, row in found:
            ep_of[int(row)] = int(eid)
        return ep_of
    for eid, row, tv, tr, sup, sup_tr in found:
        tv, tr = _dt(tv), _dt(tr)
        if (tv is not None and tv > t) or (tr is not None and tr > t):
            continue
        if sup is not None and sup_tr is not None and _dt(sup_tr) <= t:
            continue
        ep_of[int(row)] = int(eid)
    return ep_of

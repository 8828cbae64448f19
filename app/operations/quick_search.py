"""Ctrl+K: find a person, a place or a memory by a few letters, fast (no model, reads only).

People, places and other entities match on their name or any alias: a prefix of
the name or of one of its words first, then a substring, then a fuzzy match
(rapidfuzz's partial ratio ≥ 80).  Memories are records found by SQLite FTS5 BM25
over subject, body and people (``core.store.search.bm25``), with a prefix query
for the last word so results appear while typing.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from sqlmodel import select

from app.container import Container
from core.clock import ensure_utc
from core.store import search as fts
from core.store.schema import Alias, Entity, Record

FUZZY_MIN = 80  # rapidfuzz partial_ratio threshold (Kith's choice)


@dataclass
class QuickHit:
    """One result: ``kind`` person | group | place | event | topic | thing | memory; ``id`` the entity or record id."""

    kind: str
    id: int
    title: str
    detail: str = ""
    score: float = 0.0


def _entity_hits(c: Container, q: str, limit: int) -> list[QuickHit]:
    from rapidfuzz import fuzz

    from app.operations.browse import group_ids

    qf = q.casefold()
    with c.db.session() as s:
        ents = {e.id: e for e in s.exec(select(Entity).where(Entity.tombstoned_at.is_(None))).all()}
        names: dict[int, list[str]] = {i: [e.canonical_name] for i, e in ents.items()}
        for eid, value in s.exec(select(Alias.entity_id, Alias.value)).all():
            if eid in names:
                names[eid].append(value)
    groups = group_ids(c)
    hits = []
    for eid, vals in names.items():
        best = 0.0
        for v in vals:
            vf = v.casefold()
            if vf.startswith(qf):
                score = 3.0
            elif any(w.startswith(qf) for w in re.split(r"[\s@._\-]+", vf)):
                score = 2.5
            elif qf in vf:
                score = 2.0
            elif len(qf) >= 3 and fuzz.partial_ratio(qf, vf) >= FUZZY_MIN:
                score = 1.0 + fuzz.partial_ratio(qf, vf) / 1000
            else:
                continue
            best = max(best, score)
        if best:
            e = ents[eid]
            kind = "group" if eid in groups else e.kind
            aliases = [v for v in vals[1:] if v.casefold() != e.canonical_name.casefold()]
            hits.append(QuickHit(kind, eid, e.canonical_name, ", ".join(aliases[:3]), best))
    hits.sort(key=lambda h: (-h.score, h.title.casefold()))
    return hits[:limit]


def _memory_hits(c: Container, q: str, limit: int) -> list[QuickHit]:
    words = re.findall(r"\w+", q)
    if not words:
        return []
    with c.db.session() as s:
        conn = s.connection()
        expr = " ".join(f'"{w}"' for w in words[:-1]) + (" " if len(words) > 1 else "") + f'"{words[-1]}"*'
        try:
            rows = conn.exec_driver_sql("SELECT rowid, bm25(record_fts, 2.0, 1.0, 1.0) FROM record_fts WHERE "
                                        "record_fts MATCH ? ORDER BY 2 LIMIT ?", (expr, limit)).fetchall()
        except Exception:  # noqa: BLE001 - an FTS syntax corner: fall back to the plain OR query
            rows = fts.bm25(conn, q, limit)
        ids = [int(r[0]) for r in rows]
        recs = {r.id: r for r in s.exec(select(Record).where(Record.id.in_(ids))).all()} if ids else {}
        senders = {e.id: e.canonical_name for e in s.exec(select(Entity).where(
            Entity.id.in_([r.sender_entity_id for r in recs.values() if r.sender_entity_id]))).all()}
    out = []
    for rank, rid in enumerate(ids):
        r = recs.get(rid)
        if r is None or r.tombstoned_at is not None or (r.attrs or {}).get("duplicate_of"):
            continue  # forgotten, or a mail quote stored again as the mail it quotes (shown once, as that mail)
        title = r.subject or (r.text or "").strip().split("\n", 1)[0][:90] or f"({r.kind})"
        when = ensure_utc(r.sent_at)
        bits = [b for b in (senders.get(r.sender_entity_id), when.date().isoformat() if when else None, r.kind) if b]
        out.append(QuickHit("memory", rid, title[:120], " \u00b7 ".join(bits), 1.0 / (rank + 1)))
    return out


def quick_search(c: Container, text: str, limit: int = 8) -> list[QuickHit]:
    """Entities (up to ``limit``) then memories (up to ``limit``) matching ``text``; [] for blank text."""
    q = (text or "").strip()
    if not q:
        return []
    return _entity_hits(c, q, limit) + _memory_hits(c, q, limit)

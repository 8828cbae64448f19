"""Ask: answer from memory with no language model — hybrid search over records.

BM25 (SQLite FTS5) and cosine nearest neighbours (Chroma, all-MiniLM-L6-v2)
each give a ranking of up to ``POOL`` records; reciprocal rank fusion
(k = 60) combines them; the top ``k`` are hydrated with their source file and time.
"""
from __future__ import annotations

from sqlmodel import select

from app.container import Container
from app.operations.ingest import RECORDS
from app.operations.types import AskResult
from core.clock import ensure_utc
from core.store import search
from core.store.schema import Entity, Record, Source

POOL = 50
# A record found only by the vector index counts when its cosine similarity reaches this; below it the
# "match" is just the nearest of unrelated texts (all-MiniLM-L6-v2 puts unrelated English pairs at ~0.0–0.2).
MIN_DENSE_SIMILARITY = 0.25


def ask(c: Container, question: str, k: int | None = None) -> list[AskResult]:
    """The best ``k`` records for ``question`` (default: settings.ask_k), best first.

    A record is returned when BM25 matched it or its cosine similarity to the question is at least
    ``MIN_DENSE_SIMILARITY``; so a question about something absent returns an empty list rather than
    the nearest unrelated texts.

    Raises:
        ValueError: the question is empty.
    """
    question = (question or "").strip()
    if not question:
        raise ValueError("ask needs a question")
    k = k or c.settings.ask_k
    with c.db.session() as s:
        lexical = [rid for rid, _ in search.bm25(s.connection(), question, POOL)]
    dense: list[int] = []
    if c.vectors.count(RECORDS):
        qv = c.encoder.encode([question])[0]
        hits = c.vectors.query(RECORDS, qv, POOL)
        dense = [int(i.split(":", 1)[1]) for i, _ in hits]
        similar = {int(i.split(":", 1)[1]) for i, dist in hits if 1.0 - dist >= MIN_DENSE_SIMILARITY}
    else:
        similar = set()
    keep = set(lexical) | similar
    fused = [(rid, score) for rid, score in search.rrf([lexical, dense]) if rid in keep]
    results: list[AskResult] = []
    with c.db.session() as s:
        for rid, score in fused:
            if len(results) >= k:
                break
            row = s.get(Record, rid)
            if row is None:  # a vector whose record was forgotten mid-query
                continue
            src = s.get(Source, row.source_id)
            sender = s.get(Entity, row.sender_entity_id) if row.sender_entity_id else None
            when = ensure_utc(row.sent_at)
            text = (f"{row.subject}\n\n{row.text}" if row.subject and row.kind not in ("photo", "voice") else row.text).strip()
            results.append(AskResult(text=text, source=src.path if src else "", when=when.isoformat() if when else None,
                                     score=round(float(score), 6), record_id=rid, subject=row.subject,
                                     sender=sender.canonical_name if sender else None))
    return results

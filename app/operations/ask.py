"""Ask: answer from memory with no language model — hybrid search over records.

BM25 (SQLite FTS5) and cosine nearest neighbours (Chroma, all-MiniLM-L6-v2)
each give a ranking of up to ``POOL`` records; reciprocal rank fusion
(k = 60) combines them; the top ``k`` are hydrated with their source file and time.
"""
from __future__ import annotations


from sqlmodel import select

from app.container import Container
from app.memory import owner_view
from core.store.collections import FACTS, RECORDS
from app.operations.types import AskResult
from core.clock import ensure_utc
from core.store import search
from core.store.schema import Entity, Evidence, Fact, Record, Source

POOL = 50
# A record found only by the vector index counts when its cosine similarity reaches this; below it the
# "match" is just the nearest of unrelated texts (all-MiniLM-L6-v2 puts unrelated English pairs at ~0.0–0.2).
MIN_DENSE_SIMILARITY = 0.25
# Fact statements are short and templated ("As of DATE, X works at Y."), so they need a closer match.
MIN_FACT_SIMILARITY = 0.45


def _memory_ranking(c: Container, question: str, qv) -> tuple[list[tuple[str, int]], set[tuple[str, int]]]:
    """The HDC memory's fused recall (seed 001 cascade + episode BM25 + gist, app/memory.recall) as
    ("record", id) / ("episode", id) keys best first, and the keys a lexical ranking found.  Falls back
    to the records' FTS5 BM25 alone if the memory index cannot answer (the error is not hidden: logged)."""
    try:
        from app.memory import recall

        hits = recall(c, question, k=POOL, query_vector=qv).hits
    except Exception:  # a broken memory index must not take ask down; BM25 still answers
        import logging

        logging.getLogger(__name__).exception("memory recall failed; answering from BM25 only")
        with c.db.session() as s:
            keys = [("record", rid) for rid, _ in search.bm25(s.connection(), question, POOL)]
        return keys, set(keys)
    keys, lexical = [], set()
    for h in hits:
        key = ("record", h.record_id) if h.record_id else ("episode", h.episode_id)
        keys.append(key)
        if {"lex", "bm25"} & set(h.sources):
            lexical.add(key)
    return keys, lexical


def ask(c: Container, question: str, k: int | None = None) -> list[AskResult]:
    """The best ``k`` memories for ``question`` (default: settings.ask_k), best first.

    Fuses (reciprocal rank fusion, k = 60) the HDC memory's recall — seed 001's cascade with the episode
    BM25 and gist rankings (``app.memory.recall``) — with the graph's current facts.  A record is returned
    when a lexical ranking matched it or its cosine similarity to the question is at least
    ``MIN_DENSE_SIMILARITY``; so a question about something absent returns an empty list rather than
    the nearest unrelated texts.  Results are records (messages, photos, memos), current facts, or
    episodes the person told Kith in chat.

    Raises:
        ValueError: the question is empty.
    """
    question = (question or "").strip()
    if not question:
        raise ValueError("ask needs a question")
    k = k or c.settings.ask_k
    c.refresh()  # pick up what another Kith process wrote (reloads in-memory indexes; writes nothing)
    # the owner's "I" as their name: records, gists and facts are embedded in the third person
    qv = c.encoder.encode([owner_view(c, question)])[0]
    similar: set[tuple[str, int]] = set()
    if c.vectors.count(RECORDS):
        similar = {("record", int(i.split(":", 1)[1])) for i, dist in c.vectors.query(RECORDS, qv, POOL)
                   if 1.0 - dist >= MIN_DENSE_SIMILARITY}
    memory_ranking, lexical = _memory_ranking(c, question, qv)
    facts: list[tuple[str, int]] = []
    if c.vectors.count(FACTS):
        fact_hits = [(("fact", int(i.split(":", 1)[1])), 1.0 - dist) for i, dist in c.vectors.query(FACTS, qv, POOL)]
        with c.db.session() as s:  # current facts only: a superseded fact is history, not an answer
            facts = [key for key, sim in fact_hits if sim >= MIN_FACT_SIMILARITY
                     and (f := s.get(Fact, key[1])) is not None and f.superseded_by is None]
        similar |= set(facts)
    keep = set(lexical) | similar
    fused = [(key, score) for key, score in search.rrf([memory_ranking, facts]) if key in keep or
             (key[0] == "episode" and key in lexical)]
    results: list[AskResult] = []
    with c.db.session() as s:
        for (kind, rid), score in fused:
            if len(results) >= k:
                break
            if kind == "episode":  # something the person told Kith in chat (no source file)
                from core.store.schema import Episode

                ep = s.get(Episode, rid)
                if ep is None or ep.tombstoned_at is not None or ep.text.strip().casefold() == question.casefold() \
                        or (ep.provenance or "").endswith("#question"):  # an earlier question is not an answer
                    continue
                when = ensure_utc(ep.t_valid)
                results.append(AskResult(text=ep.text, source=f"chat ({ep.session or 'Kith'})",
                                         when=when.isoformat() if when else None, score=round(float(score), 6),
                                         kind="episode"))
                continue
            if kind == "fact":
                f = s.get(Fact, rid)
                if f is None or f.tombstoned_at is not None:  # forgotten (issue 11)
                    continue
                src = s.exec(select(Source.path).join(Record, Record.source_id == Source.id)
                             .join(Evidence, Evidence.record_id == Record.id).where(Evidence.fact_id == rid)).first()
                subject = s.get(Entity, f.subject_entity_id)
                when = ensure_utc(f.valid_from)
                results.append(AskResult(text=f.statement, source=src or "", when=when.isoformat() if when else None,
                                         score=round(float(score), 6), kind="fact", fact_id=rid,
                                         subject=f"{f.domain}: {f.key}", sender=subject.canonical_name if subject else None,
                                         confidence=round(f.confidence, 4)))
                continue
            row = s.get(Record, rid)
            if row is None or row.tombstoned_at is not None:  # forgotten (mid-query, or restorable: issue 11)
                continue
            src = s.get(Source, row.source_id)
            sender = s.get(Entity, row.sender_entity_id) if row.sender_entity_id else None
            when = ensure_utc(row.sent_at)
            text = (f"{row.subject}\n\n{row.text}" if row.subject and row.kind not in ("photo", "voice") else row.text).strip()
            results.append(AskResult(text=text, source=src.path if src else "", when=when.isoformat() if when else None,
                                     score=round(float(score), 6), record_id=rid, subject=row.subject,
                                     sender=sender.canonical_name if sender else None))
    return results

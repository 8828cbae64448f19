"""App-level glue for the cognitive memory (seed 001): encode with the container's encoder, call core/memory.

Hooks (called from app/operations/ingest.py and ask.py):

* :func:`remember_records` — after a batch of Records is written, make (or complete) one
  Episode per record with both HDC signatures and concept postings.
* :func:`recall` — the tiered cascade (goal-biased, ``as_of``, supersession-filtered),
  fused by reciprocal rank fusion with the record BM25 (FTS5) and dense (Chroma) rankings.

The :class:`MemoryService` lives on the container (``container.memory`` when wired, else
created on first use and kept as ``container._memory_service``); its files are
``<data folder>/memory/signatures.dat`` and ``gists.dat``.
"""
from __future__ import annotations

import math
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Sequence

import numpy as np
from sqlmodel import select

from core import clock
from core.extraction.text import STOPWORDS as TEXT_STOPWORDS, stem
from core.extraction.time_anchors import find_time_anchors
from core.memory import goals as goals_mod
from core.memory.episodes import EpisodeDraft, EpisodicMemory
from core.memory.recall import Recall, gist_ranking, make_cue, recall as cascade
from core.memory.working import WorkingMemory
from core.store import memory_schema  # noqa: F401  (tables registered before the DB is opened)
from core.store import search
from core.store.schema import Entity, Episode, Record

POOL = 50
RECORDS = "records"  # the Chroma collection app/operations/ingest.py writes


class MemoryService:
    """The memory of one data folder.

    Args:
        container: an ``app.container.Container`` (db, settings, encoder, vectors).
    """

    def __init__(self, container):
        self.c = container
        self.mem = EpisodicMemory(container.db, container.settings.home / "memory")
        self.working = WorkingMemory()
        self._lock = threading.Lock()

    def lexicon(self) -> "Lexicon":
        """The episode-level BM25 index (built on first use, rebuilt when episodes were added or changed)."""
        with self.c.db.session() as s:
            key = tuple(s.connection().exec_driver_sql(
                "SELECT count(*), max(id), max(t_recorded) FROM episode").one())
        lex = getattr(self, "_lexicon", None)
        if lex is None or lex.key != key:
            lex = Lexicon.build(self.c, key)
            self._lexicon = lex
        return lex

    def context_text(self, rec: Record, prev: Record | None, speaker: str | None, prev_speaker: str | None) -> str:
        """The text a record's gist is embedded from: the previous message of its thread, then the
        record itself, each prefixed by its sender — a reply is often meaningless alone."""
        def line(who, r):
            body = "\n".join(p for p in (r.subject if r.kind != "chat" else None, r.text) if p)
            return f"{who}: {body}" if who else body
        cur = line(speaker, rec)
        return f"{line(prev_speaker, prev)}\n{cur}" if prev is not None else cur


def service(c) -> MemoryService:
    """The container's :class:`MemoryService` (created once)."""
    svc = getattr(c, "memory", None)
    if isinstance(svc, MemoryService):
        return svc
    svc = getattr(c, "_memory_service", None)
    if svc is None:
        svc = MemoryService(c)
        c._memory_service = svc
    return svc


def remember_records(c, record_rows: Sequence[Record], vectors: np.ndarray | None = None) -> list[int]:
    """Make an episode (structured + gist signatures, postings, learning event) for each record.

    Idempotent: a record whose episode already has signatures is skipped; an Episode row that
    ingest wrote without signatures is completed in place.  Call it in the writer thread.

    Args:
        c: the container.
        record_rows: ``core.store.schema.Record`` rows (with ids).
        vectors: unused by the gist (kept for a future "plain" gist); the gist is embedded from
            the message in its thread context (see :meth:`MemoryService.context_text`).

    Returns:
        Episode ids stored now (skipped records are not listed).
    """
    svc = service(c)
    if not record_rows:
        return []
    with c.db.session() as s:
        ids = [r.id for r in record_rows]
        existing = {e.record_id: e for e in s.exec(select(Episode).where(Episode.record_id.in_(ids))).all()}
        todo = [r for r in record_rows if r.id not in existing or existing[r.id].signature_row is None]
        names: dict[int, str] = {}
        prevs: dict[int, Record] = {}
        for r in todo:
            if r.thread:
                p = s.exec(select(Record).where(Record.thread == r.thread, Record.id < r.id)
                           .order_by(Record.id.desc()).limit(1)).first()
                if p is not None:
                    prevs[r.id] = p
        ent_ids = {r.sender_entity_id for r in todo if r.sender_entity_id} | \
                  {p.sender_entity_id for p in prevs.values() if p.sender_entity_id}
        if ent_ids:
            for e in s.exec(select(Entity).where(Entity.id.in_(list(ent_ids)))).all():
                names[e.id] = e.canonical_name
    if not todo:
        return []
    texts = []
    for r in todo:
        p = prevs.get(r.id)
        texts.append(svc.context_text(r, p, names.get(r.sender_entity_id),
                                      names.get(p.sender_entity_id) if p is not None else None))
    emb = c.encoder.encode(texts)
    drafts = []
    for r, e in zip(todo, emb):
        body = "\n".join(x for x in (r.subject, r.text) if x)
        ep = existing.get(r.id)
        drafts.append(EpisodeDraft(text=body, embedding=e, t_valid=clock.ensure_utc(r.sent_at),
                                   speaker=names.get(r.sender_entity_id), record_id=r.id,
                                   session=r.thread, provenance=f"record:{r.id}",
                                   episode_id=ep.id if ep is not None else None))
    with svc._lock:
        return svc.mem.store_many(drafts)


@dataclass
class MemoryHit:
    """One recalled memory for ask/chat: the episode, its record, its tier and confidence, and why."""

    episode_id: int
    record_id: int | None
    text: str
    when: datetime | None
    tier: str
    confidence: float
    score: float
    low_confidence: bool
    provenance: str
    why: str
    sources: list[str] = field(default_factory=list)


@dataclass
class MemoryRecall:
    """Fused hits best first, plus the cascade's own answer (tiers, trace id, beliefs, atoms)."""

    hits: list[MemoryHit]
    cascade: Recall


WEIGHTS = {"gist": 1.0, "bm25": 1.0}
"""RRF weights per ranking, chosen on LoCoMo conv-26 (benchmarks/locomo.py --ablations): the HDC
gist ranking (context-and-speaker embedding, Charikar cosine) + record BM25 gave the best R@10/R@20;
adding the structured cascade (hdc, R@10 0.15 alone) or the plain-text Chroma vectors (dense, 0.24)
at any tried weight lowered both.  The cascade still runs: it supplies each hit's tier, confidence,
goal bias and the attention trace."""


def weighted_rrf(rankings: dict[str, list[int]], weights: dict[str, float], k: int = search.RRF_K):
    """Σ_r w_r / (k + rank_r(d)) (Cormack et al. 2009 with per-ranking weights; a ranking missing
    from ``weights`` is left out), best first."""
    scores: dict[int, float] = {}
    for name, ranking in rankings.items():
        w = weights.get(name, 0.0)
        if not w:
            continue
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + w / (k + rank)
    return sorted(scores.items(), key=lambda kv: -kv[1])


def rankings(c, question: str, as_of: datetime | None = None, goal_bias: bool = True,
             session: str | None = None, pool: int = POOL, query_vector: np.ndarray | None = None):
    """The four rankings recall fuses (episode ids, best first) and the cascade's :class:`Recall`:
    ``hdc`` (the A→D cascade), ``gist`` (HDC gist nearest neighbours), ``bm25`` and ``dense`` (records)."""
    svc = service(c)
    qv = c.encoder.encode([question])[0] if query_vector is None else query_vector
    goal_sig = None
    if goal_bias:
        with c.db.session() as s:
            goal_sig = goals_mod.goal_bundle(s)
    cue = make_cue(svc.mem, question, qv)
    res = cascade(svc.mem, cue, k=pool, pool=pool, as_of=as_of, session=session, working=svc.working,
                  goal_signature=goal_sig)
    out: dict[str, list[int]] = {"hdc": [m.episode_id for m in res.matches],
                                 "gist": [e for e, _ in gist_ranking(svc.mem, cue.gist, pool, as_of)]}
    rec_to_ep: dict[int, int] = {}
    lexical: list[int] = []
    dense: list[int] = []
    with c.db.session() as s:
        lexical = [rid for rid, _ in search.bm25(s.connection(), question, pool)]
        if c.vectors.count(RECORDS):
            dense = [int(i.split(":", 1)[1]) for i, _ in c.vectors.query(RECORDS, qv, pool)]
        rids = list(dict.fromkeys(lexical + dense))
        if rids:
            for eid, rid in s.exec(select(Episode.id, Episode.record_id).where(Episode.record_id.in_(rids))).all():
                rec_to_ep[rid] = eid
    idx = svc.mem.index

    def allowed(eid: int) -> bool:
        r = idx.row_of.get(eid)
        return r is not None and bool(idx.valid_mask(np.array([r]), as_of)[0])
    out["bm25"] = [rec_to_ep[r] for r in lexical if r in rec_to_ep and allowed(rec_to_ep[r])]
    out["dense"] = [rec_to_ep[r] for r in dense if r in rec_to_ep and allowed(rec_to_ep[r])]
    return out, res


def recall(c, question: str, k: int = 10, as_of: datetime | None = None, goal_bias: bool = True,
           session: str | None = None, pool: int = POOL, weights: dict[str, float] | None = None,
           query_vector: np.ndarray | None = None) -> MemoryRecall:
    """Answer ``question`` from memory: the HDC cascade and HDC gist ranking fused (weighted RRF,
    k = 60) with record BM25 (FTS5) and dense (Chroma) rankings.

    Args:
        c: the container.
        question: the user's text (non-empty).
        k: hits returned.
        as_of: recall as of this UTC time (later and superseded episodes are excluded from every ranking).
        goal_bias: weight cascade matches by the bundle of active goals.
        session: chat session id for the working-memory boost.
        pool: candidates taken from each ranking before fusion.
        weights: per-ranking RRF weights (default :data:`WEIGHTS`).
        query_vector: the question's embedding when the caller already has it (``float32 (384,)``).

    Raises:
        ValueError: the question is empty.
    """
    question = (question or "").strip()
    if not question:
        raise ValueError("recall needs a question")
    svc = service(c)
    ranks, res = rankings(c, question, as_of, goal_bias, session, pool, query_vector)
    by_episode = {m.episode_id: m for m in res.matches}
    fused = weighted_rrf(ranks, weights or WEIGHTS)[:k]
    eps = {e.id: e for e in svc.mem.hydrate([eid for eid, _ in fused])}
    hits = []
    for eid, score in fused:
        e = eps.get(eid)
        if e is None:
            continue
        m = by_episode.get(eid)
        src = [name for name, lst in ranks.items() if eid in lst]
        hits.append(MemoryHit(eid, e.record_id, e.text, e.t_valid, m.tier if m else "",
                              m.confidence if m else 0.0, float(score), m.low_confidence if m else True,
                              e.provenance, m.why if m else "lexical/dense match", src))
    return MemoryRecall(hits, res)


def consolidate(c, now: datetime | None = None):
    """Run consolidation (seed 001 steps 1–10) on the container's memory; returns the report.
    Call it in the writer thread (``c.writer.run(consolidate, c)``)."""
    from core.memory.consolidation import consolidate as run

    svc = service(c)
    with svc._lock:
        return run(svc.mem, now)


def learned(c, since: datetime | None = None, limit: int = 500):
    """``what_did_i_learn(since)``: learning events (recalls excluded), oldest first."""
    from core.memory.events import what_did_i_learn

    with c.db.session() as s:
        return what_did_i_learn(s, since, limit=limit)

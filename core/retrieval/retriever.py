"""The one retriever: a question in, ranked evidence and the facts it supports out.

``ask``, the chat (terminal and window) and the benchmarks all call :func:`retrieve` (through
``app.memory.recall``).  Query-time work is done once: the caller encodes the question once (as the
owner's third person, ``app.memory.owner_view``: one owner lookup), the retriever queries Chroma once
and SQLite through one connection, and writes nothing — the attention trace it returns is written
by the caller's writer thread.

Steps:

1. **Rankings** (each computed only when its weight in :data:`~core.retrieval.config.CONFIG` is > 0):
   ``lex`` — the episode lexicon (FTS5 BM25 over context windows, ``core/retrieval/lexicon.py``);
   ``dense`` — Chroma's nearest record vectors; ``gist`` — the HDC gist signatures (seed 001).
2. **Fusion**: weighted reciprocal rank fusion (``core/retrieval/fusion.py``).
3. **Boosts**: the messages of the first sender the question names (× (1 + speaker_boost)); for a question
   asking when, the turns that say when
   (× (1 + time_boost): the expected answer type, ``core/retrieval/cues.py``); seed 001's goal bias against
   the active goals.
4. **Filters** on the hydrated rows: tombstoned episodes, records, entities and facts; ``as_of``
   (valid and recorded by then, not yet superseded); questions asked in chat are never evidence.
5. **Current before superseded**: a turn whose facts were all superseded (seed 002) is placed after the
   turn that supersedes them (fetched when it was not found), and the facts are attached: current ones
   as answers, superseded ones as history.
6. **Relevance**: each hit's calibrated relevance (``core/retrieval/relevance.py``) and seed 001's tier
   and confidence (``core/retrieval/tiers.py``).
"""
from __future__ import annotations

import functools
import re
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Sequence

import numpy as np

from core import clock, hdc
from core.retrieval import lexicon, relevance as rel
from core.retrieval.cues import asks_when, tells_time
from core.retrieval.config import CONFIG, RetrievalConfig
from core.retrieval.fusion import rrf
from core.store import dialect
from core.store.collections import RECORDS
from core.store.schema import Entity, Fact, Record

_HAS_TOMB = {name: "tombstoned_at" in model.__table__.columns
             for name, model in (("record", Record), ("fact", Fact), ("entity", Entity))}


@dataclass
class Hit:
    """One retrieved turn (an episode: a message, photo, memo, or something said in chat).

    Attributes:
        episode_id / record_id: the episode and its record (None for chat statements).
        text, when (UTC), session, provenance, speaker (sender's name or None), kind (record kind or "chat").
        score: the fused score after boosts.  rank: 1-based position.
        relevance: calibrated P(evidence) in [0, 1].  features: what it was computed from.
        sources: the rankings that found it (``lex``, ``dense``, ``gist``, ``supersedes``).
        tier, confidence, low_confidence, why: seed 001's cascade labels for the hit.
        facts: ids of the attached facts this turn is evidence for.
    """

    episode_id: int
    record_id: int | None
    text: str
    when: datetime | None
    session: str | None
    provenance: str
    speaker: str | None
    kind: str
    score: float
    rank: int = 0
    relevance: float = 0.0
    features: dict = field(default_factory=dict)
    sources: tuple[str, ...] = ()
    tier: str = "D"
    confidence: float = 0.0
    low_confidence: bool = True
    why: str = ""
    facts: list[int] = field(default_factory=list)


@dataclass
class FactHit:
    """A fact attached to the hits: ``current`` ones answer, superseded ones are history.

    Attributes:
        fact_id, subject_id, subject (name), domain, category, key, value, statement, confidence.
        valid_from / valid_to: UTC validity (``valid_to`` set once superseded).
        current: True when it holds now (or at ``as_of``).  superseded_by: the fact that replaced it.
        evidence: record ids it rests on.  relevance: the best relevance among its evidence hits.
    """

    fact_id: int
    subject_id: int
    subject: str
    domain: str
    category: str
    key: str
    value: str
    statement: str
    confidence: float
    valid_from: datetime | None
    valid_to: datetime | None
    current: bool
    superseded_by: int | None
    evidence: list[int] = field(default_factory=list)
    relevance: float = 0.0


@dataclass
class Retrieval:
    """What :func:`retrieve` found: ``hits`` best first (all of them: the caller applies the relevance
    threshold), ``facts`` (current first), ``rankings`` (ids per ranking), ``trace`` (for the attention
    trace), ``timings`` (ms per step)."""

    question: str
    hits: list[Hit]
    facts: list[FactHit]
    rankings: dict[str, list[int]]
    trace: dict
    timings: dict[str, float]

    def shown(self, threshold: float | None = None) -> list[Hit]:
        """The hits shown: at or above the relevance threshold (default: the configured one), or in seed
        001's exact tier A (the turn holds every concept of the question)."""
        t = CONFIG.relevance.threshold if threshold is None else threshold
        return [h for h in self.hits if is_shown(h, t)]


_WORD = re.compile(r"\w")


def is_shown(hit: Hit, threshold: float) -> bool:
    """Whether a hit is shown: relevance ≥ ``threshold``; or, unless the threshold is 0 or 1, an exact match
    — seed 001's tier A, or a turn holding every word of a question of two words or more (the relevance model
    was fitted on chit-chat, where shared words say little; a message with all of them is relevant).  Unless the
    threshold is 0, a turn with no word of its own (an attachment-only mail, a message that is just ".") is not
    shown: it was found through its neighbours' words and says nothing itself."""
    if threshold > 0.0 and not _WORD.search(hit.text or ""):
        return False
    if hit.relevance >= threshold:
        return True
    if not 0.0 < threshold < 1.0:
        return False
    return hit.tier == "A" or (hit.features.get("coverage", 0.0) >= 1.0 and hit.features.get("question_words", 0) >= 2)


def _marks(ids: Sequence) -> str:
    return ",".join("?" * len(ids))


def _dt(v) -> datetime | None:
    if v is None:
        return None
    return clock.ensure_utc(v if isinstance(v, datetime) else datetime.fromisoformat(str(v)))


_EP_SQL = (
    "SELECT e.id, e.record_id, e.text, e.t_valid, e.t_recorded, e.session, e.provenance, e.superseded_by, "
    "e.signature_row, r.kind, en.canonical_name, {rtomb}, {etomb}, sup.t_valid, ld.own "
    "FROM episode e LEFT JOIN record r ON r.id = e.record_id "
    "LEFT JOIN lexdoc ld ON ld.episode_id = e.id "
    "LEFT JOIN entity en ON en.id = r.sender_entity_id "
    "LEFT JOIN episode sup ON sup.id = e.superseded_by "
    "WHERE {where} AND e.tombstoned_at IS NULL")


def _ep_sql(where: str) -> str:
    """:data:`_EP_SQL` for the episodes ``where`` selects (a condition on ``e.id``)."""
    return _EP_SQL.format(rtomb="r.tombstoned_at" if _HAS_TOMB["record"] else "NULL",
                          etomb="en.tombstoned_at" if _HAS_TOMB["entity"] else "NULL", where=where)


def _hydrate_sql(cur, ids: Sequence[int]) -> tuple[str, list]:
    """:func:`_hydrate`'s statement and parameters (``core.store.dialect.in_list``: one array parameter on
    PostgreSQL, so the statement is prepared once)."""
    where, params = dialect.in_list(cur, "e.id", [int(i) for i in ids])
    return _ep_sql(where), params


def _hydrate(cur, ids: Sequence[int], as_of: datetime | None, read: list | None = None) -> dict[int, dict]:
    """Episode rows for ``ids`` that recall may return (live, as of ``as_of``, not superseded), each with its
    lexicon words (``own``: the relevance features' coverage; None when the turn is not in the lexicon).
    ``read``: the rows of :func:`_hydrate_sql` when the caller already ran it."""
    if not ids:
        return {}
    t = clock.ensure_utc(as_of) if as_of is not None else None
    out = {}
    for (eid, rid, text, tv, tr, session, prov, sup_by, row, kind, sender, rtomb, etomb, sup_t, own) in \
            (read if read is not None else cur.execute(*_hydrate_sql(cur, ids))):
        if rtomb is not None or etomb is not None:
            continue
        if (prov or "").endswith("#question"):  # a question asked in chat is never an answer
            continue
        tv, tr = _dt(tv), _dt(tr)
        if t is not None:  # valid time: what was true then (Kith may have learned it later)
            if tv is not None and tv > t:
                continue
            if sup_by is not None and sup_t is not None and _dt(sup_t) <= t:
                continue
        elif sup_by is not None:
            continue
        out[eid] = {"record_id": rid, "text": text or "", "when": tv, "session": session, "provenance": prov or "",
                    "row": row, "kind": kind or "chat", "speaker": sender, "own": own}
    return out


_POOL: ThreadPoolExecutor | None = None


def pool() -> ThreadPoolExecutor:
    """The retriever's two helper threads (made on first use): the question-only lookups run on one while the
    caller encodes the question, the Chroma query on one while the caller scans the gist signatures.  SQLite,
    numpy's kernels and Chroma's index search release the GIL, so on two cores or more these overlap."""
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="kith-retrieve")
    return _POOL


@dataclass
class Lexical:
    """What retrieval needs of the question's words alone (no embedding), computed by :func:`lexical`.

    Attributes:
        tokens: the question's lexicon tokens.
        ranking: the episode lexicon's best ``pool`` episode ids (empty when its weight is 0).
        named: senders the question names, first named first; ``several``: the lexicon has ≥ 2 senders.
        goal: the bundle of active goals' signatures, or None.
        idfs: each token's idf (relevance features).  cue: seed 001's cue (tiers).
        as_of: the time the rows were read as of.  rows: :func:`_hydrate` of ``ranking`` (the ones recall may
            return, with their lexicon words) — read here, while the question is encoded, so that after it only
            the other rankings' candidates are.
        ms: milliseconds it took.
    """

    tokens: list[str]
    ranking: list[int]
    named: list[str]
    several: bool
    goal: np.ndarray | None
    idfs: dict[str, float]
    cue: object
    as_of: datetime | None = None
    rows: dict[int, dict] = field(default_factory=dict)
    ms: float = 0.0


def lexical(db, question: str, config: RetrievalConfig = CONFIG, as_of: datetime | None = None) -> Lexical:
    """The question-only part of :func:`retrieve`, on a connection of its own (so it can run while the caller
    encodes the question: ``pool().submit(lexical, db, question, config, as_of)``, or on a server
    :func:`lexical_start` before encoding and ``.result()`` after).  Reads only.

    Args:
        db: the ``core.store.db.Database``.
        question, config, as_of: as given to :func:`retrieve`.
    """
    return lexical_start(db, question, config, as_of).result()


class LexicalPending:
    """:func:`lexical` begun: its reads sent (on a server, computed there while the caller encodes the
    question); :meth:`result` reads them and returns the :class:`Lexical`.  Call :meth:`result` or
    :meth:`close` once."""

    def __init__(self, db, question: str, config: RetrievalConfig, as_of: datetime | None):
        from core.retrieval.tiers import cue_lookup

        t0 = time.perf_counter()
        self.question, self.as_of = (question or "").strip(), as_of
        self.qtok = lexicon.tokens(self.question)
        self.raw = dialect.read_connection(db.engine)
        try:  # independent reads: one round trip to a server
            name = dialect.name(self.raw)
            held, self.docs = None, None
            if name != "postgresql" and config.weights.get("lex", 0) and self.qtok:
                # SQLite: a bounded count per word first (lexicon.FREQUENT_ROWS), where a word can be that frequent
                cur = self.raw.cursor()
                self.docs = lexicon.DOC_COUNT.parse(cur.execute(lexicon.DOC_COUNT.sql, lexicon.DOC_COUNT.params)
                                                    .fetchall())
                if self.docs >= lexicon.FREQUENT_ROWS:
                    look = lexicon.held_lookup(self.qtok)
                    held = look.parse(cur.execute(look.sql, look.params).fetchall())
            looks = {"ranking": lexicon.search_lookup(name, self.qtok, config.pool, config.lexicon, held)
                     if config.weights.get("lex", 0) else None,
                     "named": lexicon.speakers_named_lookup(self.qtok) if config.speaker_boost else None,
                     "several": lexicon.SEVERAL_SPEAKERS if config.speaker_boost else None,
                     "goal": GOALS if config.goal_bias_weight else None,
                     "docs": lexicon.DOC_COUNT if self.docs is None else None,  # (read above on SQLite)
                     "dfs": lexicon.doc_freqs_lookup(name, self.qtok),
                     "cue": cue_lookup(self.question)}
            self.looks = {k: v for k, v in looks.items() if v is not None}
            self.hydrated = name == "postgresql" and "ranking" in self.looks
            if self.hydrated:  # the ranked turns' rows in the same statement
                self.looks["ranking"] = _ranked_rows(self.looks["ranking"])
            self.sent = dialect.send(self.raw, [(look.sql, look.params) for look in self.looks.values()], native=True)
        except BaseException:
            self.raw.close()
            raise
        self.ms = (time.perf_counter() - t0) * 1000

    def result(self) -> Lexical:
        from core.retrieval.tiers import cue_for

        t0 = time.perf_counter()
        raw = self.raw
        try:
            got = {k: look.parse(rows) for (k, look), rows in zip(self.looks.items(), self.sent.rows())}
            cue = got["cue"] if "cue" in got else cue_for(raw.cursor(), self.question)
            if self.hydrated:
                ranked, read = got["ranking"]
                ranking = [e for e, _ in ranked]
                rows = _hydrate(None, ranking, self.as_of, read=read)
            else:
                ranking = [e for e, _ in got.get("ranking", [])]
                rows = _hydrate(raw.cursor(), ranking, self.as_of)
        finally:
            self.close()
        named = got.get("named", [])
        several = bool(named) and got.get("several", False)
        idfs = rel.idfs_of(got["docs"] if "docs" in got else self.docs, got.get("dfs", {}))
        return Lexical(self.qtok, ranking, named, several, got.get("goal"), idfs, cue, self.as_of, rows,
                       self.ms + (time.perf_counter() - t0) * 1000)

    def close(self) -> None:
        """Give the connection back (:meth:`result` does; a caller that failed before it calls this)."""
        if self.raw is not None:
            raw, self.raw = self.raw, None
            try:
                self.sent.close()
            finally:
                raw.close()


def lexical_start(db, question: str, config: RetrievalConfig = CONFIG, as_of: datetime | None = None) -> LexicalPending:
    """Begin :func:`lexical`: on a server its reads are sent now and computed there while the caller does something
    else on this thread (no helper thread: its Python would contend with the encoder's); on SQLite they run at
    ``.result()`` (run it on a helper thread)."""
    return LexicalPending(db, question, config, as_of)


def _ranked_rows(search: "lexicon.Lookup") -> "lexicon.Lookup":
    """PostgreSQL: the lexicon's ranking (``lexicon.search_lookup``, columns ``rowid, score``) with each ranked
    turn's :func:`_hydrate` row, in one statement; parses to ``(ranking, hydrate rows)``."""
    ep = _ep_sql("e.id IN (SELECT rowid FROM s)")
    sql = (f"WITH s AS ({search.sql}) SELECT s.rowid, s.score, x.* FROM s LEFT JOIN ({ep}) x ON x.id = s.rowid "
           "ORDER BY s.score DESC, s.rowid")

    def parse(rows):
        return search.parse([r[:2] for r in rows]), [r[2:] for r in rows if r[2] is not None]

    return lexicon.Lookup(sql, search.params, parse)


def retrieve(db, vectors, mem, question: str, vector: np.ndarray, *, k: int = 10, as_of: datetime | None = None,
             config: RetrievalConfig = CONFIG, exclude_text: str | None = None,
             prefetched: "Lexical | LexicalPending | Future | None" = None, implied: Sequence[str] = ()) -> Retrieval:
    """Retrieve evidence for ``question``.

    Args:
        db: the ``core.store.db.Database``.
        vectors: the ``core.store.vectors.VectorStore`` (queried once, collection ``records``).
        mem: the ``core.memory.episodes.EpisodicMemory`` (its signature files; never its in-memory index).
        question: the question as the owner's third person (``app.memory.owner_view``), non-empty.
        vector: its embedding, ``float32 (384,)``, unit length.
        k: hits returned (all relevances; the caller shows those above the threshold).
        as_of: answer as of this UTC time, in valid time (turns from later, and turns and facts superseded
            by then, are left out; facts true then are current).
        config: the retrieval configuration (default :data:`CONFIG`).
        exclude_text: a text never returned as its own answer (the chat message being answered); a record
            from the archives with the same words is still returned (asking a message's words finds it).
        prefetched: :func:`lexical` of the same question and configuration (or its Future, or its
            :func:`lexical_start`), when the caller started it while encoding; else it is computed here.
        implied: question tokens every turn implies — the owner's name put for "I" (``app.memory.owner_view``):
            counted as held by each turn in the relevance features' coverage (``core.retrieval.relevance``).

    Returns:
        :class:`Retrieval`.

    Raises:
        ValueError: the question is empty.
    """
    question = (question or "").strip()
    if not question:
        raise ValueError("retrieve needs a question")
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    w = config.weights
    pool_n = config.pool
    rankings: dict[str, list[int]] = {}
    cosine: dict[int, float] = {}  # episode id → dense cosine
    # Chroma's nearest neighbours on a helper thread while this one scans the gist signatures
    dense_f = None
    if w.get("dense", 0):
        if config.parallel:
            dense_f = pool().submit(vectors.query, RECORDS, vector, pool_n)
        else:
            dense_f = Future()
            dense_f.set_result(vectors.query(RECORDS, vector, pool_n))
    raw = dialect.read_connection(db.engine)
    try:
        cur = raw.cursor()
        t1 = time.perf_counter()
        timings["setup"] = (t1 - t0) * 1000  # the Chroma query sent, a connection taken
        gist_q = hdc.project(np.asarray(vector, dtype=np.float32))
        timings["project"] = (time.perf_counter() - t1) * 1000
        gist_look = None
        if w.get("gist", 0):  # the signature scan now, its episodes read with the dense ones' below
            from core.retrieval.gist import lookup as gist_lookup

            t1 = time.perf_counter()
            gist_look = gist_lookup(cur, mem, gist_q, pool_n, as_of)
            timings["gist"] = (time.perf_counter() - t1) * 1000
        t1 = time.perf_counter()
        lex = prefetched if prefetched is not None else lexical(db, question, config, as_of)
        if isinstance(lex, (Future, LexicalPending)):
            lex = lex.result()
        timings["lex"] = lex.ms
        timings["lex_wait"] = (time.perf_counter() - t1) * 1000
        qtok = lex.tokens
        if w.get("lex", 0):
            rankings["lex"] = lex.ranking
        dense: list[tuple[int, float]] = []
        if dense_f is not None:
            t1 = time.perf_counter()
            dense = [(int(i.split(":", 1)[1]), 1.0 - float(d)) for i, d in dense_f.result()]
            timings["dense"] = (time.perf_counter() - t1) * 1000
        # the gist shortlist's episodes and the dense hits' episodes: one round trip to a server
        t1 = time.perf_counter()
        looks = [(gist_look.sql, gist_look.params)] if gist_look is not None else []
        if dense:
            where, params = dialect.in_list(cur, "record_id", [r for r, _ in dense])
            looks.append((f"SELECT record_id, id FROM episode WHERE {where}", params))
        got = dialect.pipeline(raw, looks, native=True) if looks else []
        if w.get("gist", 0):
            rankings["gist"] = [e for e, _ in gist_look.parse(got.pop(0))] if gist_look is not None else []
        if dense_f is not None:
            rid_ep = dict(got.pop(0)) if dense else {}
            rankings["dense"] = []
            for rid, cos in dense:
                e = rid_ep.get(rid)
                if e is not None:
                    rankings["dense"].append(e)
                    cosine[e] = cos
        timings["episodes"] = (time.perf_counter() - t1) * 1000
        rankings = {n: rankings[n] for n in ("lex", "dense", "gist") if n in rankings}  # ties: first-seen order
        t1 = time.perf_counter()
        fused = rrf(rankings, w, k=config.fusion_k)
        cand = [e for e, _ in fused[: max(pool_n, 3 * k)]]
        # the candidates' rows (the lexical ones' were read while the question was encoded) and the facts
        # they are evidence for: one round trip to a server
        t2 = time.perf_counter()
        known = lex.rows if lex.as_of == as_of else {}
        checked = set(lex.ranking) if lex.as_of == as_of else set()
        rest = [e for e in cand if e not in checked]
        looks = [_hydrate_sql(cur, rest)] if rest else []
        if cand:
            where, params = dialect.in_list(cur, "id", cand)
            looks.append((_fact_sql(f"ev.record_id IN (SELECT record_id FROM episode WHERE {where})"), params))
        from core.retrieval.tiers import classify, postings_sql

        tier_a = postings_sql(cur, lex.cue, cand)  # the candidates' postings under the cue's concepts (tier A)
        if tier_a is not None:
            looks.append(tier_a)
        got = dialect.pipeline(raw, looks, native=True) if looks else []
        rows = _hydrate(cur, rest, as_of, read=got.pop(0)) if rest else {}
        rows.update((e, known[e]) for e in cand if e in known)
        cand_facts = got.pop(0) if cand else []
        cand_posted = got.pop(0) if tier_a is not None else []
        timings["hydrate"] = (time.perf_counter() - t2) * 1000
        if exclude_text:  # the chat turn being answered; a message from the archives with those words is an answer
            ex = exclude_text.strip().casefold()
            rows = {e: r for e, r in rows.items() if r["record_id"] is not None or r["text"].strip().casefold() != ex}
        scores = {e: s for e, s in fused if e in rows}
        # the first sender the question names: their own messages answer "what does Melanie do …" — not the owner
        # named only as "I" (``implied``): a party to every message, whose own unrelated lines would outrank what
        # others wrote to them ("where did I leave my umbrella?" ← "you left it at the Crown")
        boosted = None
        named = [n for n in lex.named if not implied or not set(lexicon.tokens(n)) <= set(implied)]
        if config.speaker_boost and scores and named and lex.several:
            boosted = named[0]
            for e in scores:
                if rows[e]["speaker"] == boosted:
                    scores[e] *= 1.0 + config.speaker_boost
        # a question asking when: the turns that say when (expected answer type, core/retrieval/cues.py)
        if config.time_boost and scores and asks_when(question):
            t2 = time.perf_counter()
            for e in sorted(scores, key=lambda e: -scores[e])[: config.time_depth]:
                if tells_time(rows[e]["text"], rows[e]["when"]):
                    scores[e] *= 1.0 + config.time_boost
            timings["time_cue"] = (time.perf_counter() - t2) * 1000
        goal_sig = lex.goal
        if goal_sig is not None and config.goal_bias_weight and scores:
            es = [e for e in scores if rows[e]["row"] is not None]
            if es:
                sims = hdc.similarity(goal_sig, mem.structured.get([rows[e]["row"] for e in es]))
                for e, sim in zip(es, np.atleast_1d(sims)):
                    scores[e] *= 1.0 + config.goal_bias_weight * max(0.0, 2.0 * (float(sim) - 0.5))
        order = sorted(scores, key=lambda e: -scores[e])
        timings["fuse"] = (time.perf_counter() - t1) * 1000
        t1 = time.perf_counter()
        facts, order, rows, added, lift = _facts_and_supersession(cur, order[: max(k, 1) * 2], rows, as_of, qtok,
                                                                  read=cand_facts)
        order = order[:k]
        timings["facts"] = (time.perf_counter() - t1) * 1000
        t1 = time.perf_counter()
        found = {e: tuple(name for name, lst in rankings.items() if e in lst) for e in order}
        for e in added:
            found[e] = found.get(e, ()) + ("supersedes",)
        hits = [Hit(e, rows[e]["record_id"], rows[e]["text"], rows[e]["when"], rows[e]["session"],
                    rows[e]["provenance"], rows[e]["speaker"], rows[e]["kind"], float(scores.get(e, 0.0)), i,
                    sources=found[e]) for i, e in enumerate(order, 1)]
        for h in hits:
            h.facts = [f.fact_id for f in facts if h.record_id is not None and h.record_id in f.evidence]
        rel.score_hits(cur, mem, hits, rows, qtok, gist_q, cosine, set(rankings.get("lex", [])),
                       set(rankings.get("dense", [])), config.relevance, idfs=lex.idfs, implied=implied)
        t2 = time.perf_counter()
        classify(cur, mem, question, gist_q, hits, rows, cue=lex.cue, posted=(set(cand), cand_posted))
        timings["tiers"] = (time.perf_counter() - t2) * 1000
        by_ep = {h.episode_id: h for h in hits}
        for new, old in lift.items():  # what replaced a relevant fact answers the same question, now
            if new in by_ep and old in by_ep and by_ep[old].relevance > by_ep[new].relevance:
                by_ep[new].relevance = by_ep[old].relevance
                by_ep[new].features["lifted_from"] = old
            if new in by_ep and old in by_ep and (by_ep[old].tier == "A" or by_ep[old].features.get("coverage", 0.0)
                                                  > by_ep[new].features.get("coverage", 0.0)):
                # shown whenever what it replaced is shown (is_shown): "I got a job at Southbank" answers "where does
                # Rosa work?" although it lacks the word "work" that "I work at Northwind" had
                for name in ("coverage", "question_words"):
                    by_ep[new].features[name] = max(by_ep[new].features.get(name, 0), by_ep[old].features.get(name, 0),
                                                    1.0 if name == "coverage" and by_ep[old].tier == "A" else 0)
                by_ep[new].features.setdefault("lifted_from", old)
        for f in facts:
            f.relevance = max([h.relevance for h in hits if h.record_id in f.evidence] or [0.0])
        for f in facts:  # the other photos of a relevant visit substantiate it: shown with it
            if f.current and f.domain in ("places", "events"):
                for h in hits:
                    if h.record_id in f.evidence and h.relevance < f.relevance:
                        h.relevance = f.relevance
                        h.features["lifted_by_fact"] = f.fact_id
        timings["relevance"] = (time.perf_counter() - t1) * 1000
    finally:
        t1 = time.perf_counter()
        raw.close()
        timings["close"] = (time.perf_counter() - t1) * 1000
    timings["total"] = (time.perf_counter() - t0) * 1000
    trace = {"query": question[:500], "as_of": as_of.isoformat() if as_of else None,
             "rankings": {n: lst[:10] for n, lst in rankings.items()}, "speaker_boost": boosted,
             "matches": [{"episode": h.episode_id, "tier": h.tier, "confidence": round(h.confidence, 4),
                          "relevance": round(h.relevance, 4), "score": round(h.score, 6), "why": h.why}
                         for h in hits], "elapsed_ms": round(timings["total"], 3)}
    return Retrieval(question, hits, facts, rankings, trace, timings)


def _goals(rows) -> np.ndarray | None:
    sigs = [r[0] for r in rows if r[0]]
    if not sigs:
        return None
    return hdc.bundle(np.stack([np.frombuffer(s, dtype=np.uint8) for s in sigs]))


GOALS = lexicon.Lookup("SELECT signature FROM goal WHERE state = 'active'", (), _goals)
"""The bundle of the active goals' signatures (seed 001), or None when no goal is active (a Lookup)."""


_META_CATEGORIES = frozenset({"correspondence", "contact"})
"""Facts every message is evidence for (who wrote to whom, which address): attached only when the
question asks about them (shares a word with them)."""


@functools.lru_cache(maxsize=8192)
def _words(text: str) -> frozenset[str]:
    """The lexicon tokens of a fact's text, remembered: the same "who wrote to whom" facts come back with
    every message of a conversation (0.5 ms of a LoCoMo question when tokenised each time)."""
    return frozenset(lexicon.tokens(text))


def _fact_sql(where: str) -> str:
    """The facts the records ``where`` selects (a condition on ``ev.record_id``) are evidence for."""
    ftomb = "f.tombstoned_at" if _HAS_TOMB["fact"] else "NULL"
    stomb = "en.tombstoned_at" if _HAS_TOMB["entity"] else "NULL"
    return ("SELECT ev.record_id, f.id, f.subject_entity_id, en.canonical_name, f.domain, f.category, f.key, "
            f"f.value, f.statement, f.confidence, f.valid_from, f.valid_to, f.superseded_by, {ftomb}, {stomb} "
            "FROM evidence ev JOIN fact f ON f.id = ev.fact_id JOIN entity en ON en.id = f.subject_entity_id "
            f"WHERE {where}")


def _later_holder(cur, f, t) -> int | None:
    """The fact that holds now (or at ``t``) for ``f``'s subject and key and began when ``f`` ended or later —
    what came after a spell that ended with nothing replacing it ("I quit Northwind", then "I got a job at
    Southbank"): superseded_by chains stop at such a spell.  None when none holds."""
    ftomb = "AND tombstoned_at IS NULL" if _HAS_TOMB["fact"] else ""
    end = f.valid_to or f.valid_from
    best = None
    for fid, vf, vt, sup in cur.execute(
            "SELECT id, valid_from, valid_to, superseded_by FROM fact WHERE subject_entity_id = ? AND domain = ? "
            f"AND category = ? AND key = ? AND id != ? {ftomb}",
            (f.subject_id, f.domain, f.category, f.key, f.fact_id)).fetchall():
        vf, vt = _dt(vf), _dt(vt)
        if vf is None or (end is not None and vf < end):
            continue
        if (sup is None and t is None) or (t is not None and vf <= t and (vt is None or vt > t)):
            if best is None or vf > best[1]:
                best = (fid, vf)
    return best[0] if best else None


def _facts_and_supersession(cur, order: list[int], rows: dict[int, dict], as_of, qtok, read: list | None = None):
    """Attach the facts the hits are evidence for and put current before superseded (seed 002).

    ``read``: rows of :func:`_fact_sql` for records including those of ``order`` (the caller read them with the
    candidates); else they are read here.

    Returns (facts, new order, rows (with any fetched turn), episode ids fetched, {successor turn: the
    superseded turn it was placed before})."""
    rids = [rows[e]["record_id"] for e in order if rows[e]["record_id"] is not None]
    if not rids:
        return [], order, rows, [], {}
    sql = _fact_sql("ev.record_id IN ({})")
    q = set(qtok)
    facts: dict[int, object] = {}
    by_record: dict[int, list[int]] = {}
    t = clock.ensure_utc(as_of) if as_of is not None else None

    def load(record_ids, read=None):
        if read is not None:
            want = set(record_ids)
            read = [r for r in read if r[0] in want]
        for (rid, fid, sid, sname, dom, cat, key, val, stmt, conf, vf, vt, sup, ftb, stb) in \
                (read if read is not None else cur.execute(sql.format(_marks(record_ids)), list(record_ids)).fetchall()):
            if ftb is not None or stb is not None:
                continue
            vf, vt = _dt(vf), _dt(vt)
            if t is not None and vf is not None and vf > t:
                continue
            if cat in _META_CATEGORIES and not (q & _words(f"{key} {val} {stmt}") - _words(sname)):
                continue
            current = sup is None if t is None else (vt is None or vt > t)
            f = facts.get(fid)
            if f is None:
                f = facts[fid] = FactHit(fid, sid, sname, dom, cat, key, val, stmt, float(conf), vf, vt, current,
                                         sup)
            if rid not in f.evidence:
                f.evidence.append(rid)
            by_record.setdefault(rid, []).append(fid)
    load(rids, read)
    # follow each superseded fact to the one that holds now (or at as_of), and its evidence
    added: list[int] = []
    successors: dict[int, int] = {}
    for f in list(facts.values()):
        if f.current or f.superseded_by is None:
            continue
        nxt, seen, holds = f.superseded_by, {f.fact_id}, False
        while nxt is not None and nxt not in seen:
            seen.add(nxt)
            row = cur.execute("SELECT id, superseded_by, valid_to FROM fact WHERE id = ?", (nxt,)).fetchone()
            if row is None:
                nxt = None
                break
            vt = _dt(row[2])
            if (t is None and row[1] is None) or (t is not None and (vt is None or vt > t)):
                holds = True
                break
            nxt = row[1]
        if not holds:  # an ended spell (superseded by itself: "I quit Northwind"), later followed by another value
            nxt = _later_holder(cur, f, t)
        if nxt is None:
            continue
        successors[f.fact_id] = nxt
        if nxt not in facts:
            ev = [r[0] for r in cur.execute("SELECT record_id FROM evidence WHERE fact_id = ?", (nxt,)).fetchall()]
            if ev:
                load(ev)
    # the turns that are evidence of a current successor, fetched when recall did not find them
    need = {r for fid in successors.values() if fid in facts for r in facts[fid].evidence}
    have = {rows[e]["record_id"]: e for e in rows}
    missing = sorted(need - set(have))
    if missing:
        eps = [r[0] for r in cur.execute(f"SELECT id FROM episode WHERE record_id IN ({_marks(missing)})",
                                         missing).fetchall()]
        more = _hydrate(cur, eps, as_of)
        rows = {**rows, **more}
        have.update({r["record_id"]: e for e, r in more.items()})
    # current before superseded: a turn that is evidence of a superseded fact goes after the turn that is
    # evidence for its successor
    order = list(order)
    lift: dict[int, int] = {}
    for e in list(order):
        rid = rows[e]["record_id"]
        fids = [f for f in by_record.get(rid, []) if not facts[f].current]
        if not fids:
            continue
        succ_turns = [have[r] for f in fids if f in successors and successors[f] in facts
                      for r in facts[successors[f]].evidence if r in have]
        for s in succ_turns:
            lift.setdefault(s, e)
            pos = order.index(e)
            if s in order:
                if order.index(s) > pos:
                    order.remove(s)
                    order.insert(pos, s)
            else:
                order.insert(pos, s)
                added.append(s)
    shown = {rows[e]["record_id"] for e in order}
    ordered = sorted((f for f in facts.values() if set(f.evidence) & shown),
                     key=lambda f: (not f.current, min(order.index(have[r]) for r in f.evidence if r in have
                                                       and have[r] in order)))
    return ordered, order, rows, added, lift

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
from core.extraction.text import STOPWORDS as TEXT_STOPWORDS, speaker_view, stem, third_person
from core.extraction.time_anchors import find_time_anchors
from core.memory import goals as goals_mod
from core.memory.episodes import EpisodeDraft, EpisodicMemory
from core.memory.sensory import SensoryBuffer, SensoryFrame, held_bundle
from core.memory.recall import Recall, gist_ranking, make_cue, recall as cascade
from core.memory.working import WorkingMemory
from core.store import memory_schema  # noqa: F401  (tables registered before the DB is opened)
from core.store import search
from core.store.collections import RECORDS
from core.store.schema import Entity, Episode, Record

POOL = 50


class MemoryService:
    """The memory of one data folder.

    Args:
        container: an ``app.container.Container`` (db, settings, encoder, vectors).
    """

    def __init__(self, container):
        self.c = container
        self.mem = EpisodicMemory(container.db, container.settings.home / "memory")
        self.working = WorkingMemory()
        self.sensory = SensoryBuffer()
        self._lock = threading.Lock()

    def perceive(self, texts: Sequence[str], signatures: np.ndarray, *, explicit: bool = False,
                 at: datetime | None = None) -> list[SensoryFrame]:
        """Pass observations through the sensory buffer (seed 001 floor 1): each frame's surprise
        against the bundle of held beliefs and atoms, and whether it is promoted to episodic memory
        (surprise > 0.4, or ``explicit``).

        Args:
            texts: what was perceived.  signatures: their structured signatures, ``uint8 (n, 1024)``.
            explicit: the person gave it (an import, a statement): promoted whatever its surprise.
            at: when, UTC (default now).

        Returns:
            One :class:`core.memory.sensory.SensoryFrame` per text, in order.
        """
        with self.c.db.session() as s:
            ref = held_bundle(s)
        return [self.sensory.observe(t, sig, ref, explicit=explicit, at=at) for t, sig in zip(texts, signatures)]

    def perceive_episodes(self, episode_ids: Sequence[int], texts: Sequence[str]) -> list[SensoryFrame]:
        """:meth:`perceive` stored episodes (explicit observations) by their structured signatures."""
        rows = [self.mem.index.row_of.get(int(e)) for e in episode_ids]
        keep = [(t, r) for t, r in zip(texts, rows) if r is not None]
        if not keep:
            return []
        sigs = self.mem.structured.rows()[np.array([r for _, r in keep])]
        return self.perceive([t for t, _ in keep], sigs, explicit=True)

    def refresh(self) -> None:
        """Another process wrote the data folder: re-read the signature files and rebuild the indexes."""
        with self._lock:
            self.mem.refresh()
            self._lexicon = None

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

    def context_text(self, rec: Record, speaker: str | None, before: Sequence = (), after: Sequence = ()) -> str:
        """The text a record's gist is embedded from (context chunking, issue #4): the thread's date,
        then up to ``GIST['before']`` previous and ``GIST['after']`` following messages of its thread
        around the record itself, each line as its sender tells it (``"Name: …"`` in the third person,
        ``core.extraction.text.speaker_view``) — a reply is often meaningless alone.

        Args:
            rec: the record.
            speaker: its sender's name (or None).
            before, after: ``(Record, sender name or None)`` pairs, oldest first.
        """
        def line(who, r):
            body = "\n".join(p for p in (r.subject if r.kind != "chat" else None, r.text) if p)
            return speaker_view(who, body)
        lines = [line(w, r) for r, w in before] + [line(speaker, rec)] + [line(w, r) for r, w in after]
        if GIST["date"] and rec.sent_at is not None:
            lines.insert(0, f"{clock.ensure_utc(rec.sent_at):%d %B %Y}")
        return "\n".join(lines)


GIST = {"before": 1, "after": 0, "date": False}
"""Gist context window (issue #4): messages of the same thread embedded with a record, and whether
the date is prefixed.  Measured on the first 3 LoCoMo conversations: ±2 turns with the date gave
R@10 0.766 (0.778 with ``gist_nb`` = 0) against 0.784 for the previous turn alone — MiniLM's
single vector blurs when 5 turns share it; the BM25 windows already carry the context."""


LEX_STOPWORDS = TEXT_STOPWORDS | search.STOPWORDS
_TOKEN = re.compile(r"[a-z0-9]+")
LEX = {"neighbour": 0.5, "span": 3, "decay": 0.5, "gist_nb": 0.3, "prf": 0.0, "prf_docs": 3, "prf_terms": 5,
       "speaker": True, "dates": True, "k1": 1.2, "b": 0.75, "own_date": 0.5, "own_day": False}
"""Episode BM25 settings (tuned on LoCoMo, issue #4): the ``span`` turns either side in the same
session are added to a turn's document at weight ``neighbour`` × ``decay``^(distance − 1) (context
chunking: 0.5, 0.25, 0.125); ``gist_nb`` is the weight of each adjacent turn's gist cosine in
``gistw``; ``prf`` the query weight of pseudo-relevance-feedback terms (0 = off: it did not help);
``speaker``/``dates``: index the sender's name and the month and year that the turn's time
expressions resolve to; ``own_date``: the weight of the month and year the turn was sent
(``own_day`` adds the day of the month: no gain)."""
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december")


def lex_tokens(text: str) -> list[str]:
    """BM25 tokens: lower-cased words, stopwords dropped, light-stemmed (``core.extraction.text.stem``)."""
    out = []
    for w in _TOKEN.findall(text.lower().replace("’", "'").replace("'s", "")):
        if w in LEX_STOPWORDS or (len(w) < 2 and not w.isdigit()):
            continue
        out.append(stem(w))
    return out


def _date_words(text: str, when: datetime | None) -> list[str]:
    """Words naming the absolute dates a message talks about ("last week" resolved against its own time)."""
    if when is None:
        return []
    out = []
    for a in find_time_anchors(text, when):
        out += [_MONTHS[a.day.month - 1], str(a.day.year)]
    return out


class Lexicon:
    """In-memory Okapi BM25 over episodes (k1 = 1.2, b = 0.75), each document = the turn (with its
    sender's name and resolved dates) plus its session neighbours at a lower weight."""

    def __init__(self, key, ids: list[int], docs: list[Counter], sessions: list | None = None,
                 own: list[Counter] | None = None, speakers: list | None = None):
        self.key = key
        self.speakers = [frozenset(lex_tokens(w or "")) for w in speakers] if speakers is not None else [frozenset()] * len(ids)
        self.session = list(sessions) if sessions is not None else [None] * len(ids)
        self.own = own if own is not None else docs
        self.ids = np.asarray(ids, dtype=np.int64)
        self.n = len(ids)
        self.len = np.array([sum(d.values()) for d in docs], dtype=np.float64)
        self.avg = float(self.len.mean()) if self.n else 1.0
        post: dict[str, tuple[list[int], list[float]]] = {}
        for i, d in enumerate(docs):
            for t, f in d.items():
                p = post.setdefault(t, ([], []))
                p[0].append(i)
                p[1].append(f)
        self.post = {t: (np.asarray(a, dtype=np.int64), np.asarray(f)) for t, (a, f) in post.items()}

    @classmethod
    def build(cls, c, key) -> "Lexicon":
        with c.db.session() as s:
            rows = s.connection().exec_driver_sql(
                "SELECT e.id, e.text, e.session, e.t_valid, en.canonical_name FROM episode e "
                "LEFT JOIN record r ON r.id = e.record_id LEFT JOIN entity en ON en.id = r.sender_entity_id "
                "WHERE e.tombstoned_at IS NULL "  # a forgotten turn is no one's context (issue 11)
                "ORDER BY e.session, e.t_valid, e.id").all()
        own: list[Counter] = []
        for eid, txt, sess, tv, who in rows:
            toks = lex_tokens(txt or "")
            if LEX["speaker"] and who:
                toks += lex_tokens(who)
            when = None if tv is None else clock.ensure_utc(tv if isinstance(tv, datetime) else datetime.fromisoformat(tv))
            if LEX["dates"] and when is not None:
                toks += _date_words(txt or "", when)
            cnt = Counter(toks)
            if LEX["own_date"] and when is not None:
                extra = [_MONTHS[when.month - 1], str(when.year)] + ([str(when.day)] if LEX["own_day"] else [])
                for t in extra:
                    cnt[t] += LEX["own_date"]
            own.append(cnt)
        w, span = LEX["neighbour"], LEX["span"]
        docs = []
        for i, r in enumerate(rows):
            d = Counter(own[i])
            if w:
                for j in range(i - span, i + span + 1):
                    if j != i and 0 <= j < len(rows) and rows[j][2] is not None and rows[j][2] == r[2]:
                        wj = w * LEX["decay"] ** (abs(j - i) - 1)
                        for t, f in own[j].items():
                            d[t] += wj * f
            docs.append(d)
        return cls(key, [r[0] for r in rows], docs, [r[2] for r in rows], own, [r[4] for r in rows])

    def speaker_boost(self, question: str, fused: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """Fused ``(episode id, score)`` re-sorted with the score of every message sent by the first
        sender the question names (any word of the name) multiplied by 1 + ``SPEAKER_BOOST``: "what
        does Melanie do …" is mostly answered by Melanie's own messages, and a question's subject is
        the first person it names ("what did Jon tell Gina …" → Jon).  Unchanged when no sender is
        named, or when the store has one sender only."""
        if not SPEAKER_BOOST or not fused:
            return fused
        qt = lex_tokens(question)
        q = set(qt)
        if not hasattr(self, "_row"):
            self._row = {int(e): i for i, e in enumerate(self.ids)}
        who = {sp for sp in self.speakers if sp}
        hit = {sp: min(qt.index(t) for t in sp & q) for sp in who if sp & q}
        if not hit or len(who) < 2:
            return fused
        first = min(hit, key=lambda sp: (hit[sp], sorted(sp)))
        f = 1.0 + SPEAKER_BOOST
        out = [(e, sc * f if (i := self._row.get(e)) is not None and self.speakers[i] == first else sc)
               for e, sc in fused]
        return sorted(out, key=lambda kv: -kv[1])

    def _same_as_previous(self) -> np.ndarray:
        if getattr(self, "_same", None) is None:
            self._same = np.array([i > 0 and self.session[i] is not None and self.session[i] == self.session[i - 1]
                                   for i in range(self.n)], dtype=bool)
        return self._same

    def smoothed_gist(self, mem, gist: np.ndarray, n: int, as_of: datetime | None = None):
        """Gist cosine of every episode plus ``LEX['gist_nb']`` × its same-session neighbours' (context
        smoothing: a turn next to relevant turns is likely relevant); best ``n`` (episode id, score)."""
        from core import hdc

        idx = mem.index
        rows = np.array([idx.row_of.get(int(e), -1) for e in self.ids], dtype=np.int64)
        ok = rows >= 0
        cos = np.full(self.n, -1.0)
        if ok.any():
            cos[ok] = np.cos(np.pi * hdc.hamming(gist, mem.gists.rows()[rows[ok]]) / hdc.DIM)
            ok[ok] = idx.valid_mask(rows[ok], as_of)
        w = LEX["gist_nb"]
        sm = cos.copy()
        same = self._same_as_previous()  # same[i]: rows i-1 and i are one session
        sm[1:] += np.where(same[1:], w * cos[:-1], 0.0)
        sm[:-1] += np.where(same[1:], w * cos[1:], 0.0)
        sm[~ok] = -np.inf
        order = np.argsort(-sm, kind="stable")[:n]
        return [(int(self.ids[i]), float(sm[i])) for i in order if np.isfinite(sm[i])]

    def _idf(self, t: str) -> float:
        p = self.post.get(t)
        m = 0 if p is None else p[0].size
        return math.log(1 + (self.n - m + 0.5) / (m + 0.5))

    def _score(self, q: dict[str, float]) -> np.ndarray:
        k1, b = LEX["k1"], LEX["b"]
        score = np.zeros(self.n)
        norm = k1 * (1 - b + b * self.len / self.avg)
        for t, qw in q.items():
            p = self.post.get(t)
            if p is None:
                continue
            idx, f = p
            score[idx] += qw * self._idf(t) * f * (k1 + 1) / (f + norm[idx])
        return score

    def search(self, query: str, n: int) -> list[tuple[int, float]]:
        """Best ``n`` episode ids for ``query`` by BM25, best first."""
        if not self.n:
            return []
        q = {t: 1.0 for t in lex_tokens(query)}
        score = self._score(q)
        if LEX["prf"] and score.any():  # pseudo-relevance feedback (RM3-like): top docs' rarest terms
            fb: Counter = Counter()
            for i in np.argsort(-score, kind="stable")[:LEX["prf_docs"]]:
                for t in self.own[i]:
                    if t not in q:
                        fb[t] += self._idf(t)
            for t, _ in fb.most_common(LEX["prf_terms"]):
                q[t] = LEX["prf"]
            score = self._score(q)
        top = np.flatnonzero(score > 0)
        top = top[np.argsort(-score[top], kind="stable")[:n]]
        return [(int(self.ids[i]), float(score[i])) for i in top]


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


def remember_records(c, record_rows: Sequence[Record], vectors: dict[int, np.ndarray] | None = None) -> list[int]:
    """Make an episode (structured + gist signatures, postings, learning event) for each record: the
    ingest's memory stage (``app/pipeline.py``).  Call it on the writer thread.

    Idempotent: a record whose episode already has signatures is skipped; an Episode row that
    ingest wrote without signatures is completed in place.

    The gist is the Charikar projection of the record's own vector — the one vector computed for it
    at ingest (``vectors``; else read back from Chroma; else encoded now) — blended with the vector of
    the previous message of its thread (context: a reply is often meaningless alone).  MiniLM's
    sentence vector is the mean of its token vectors, so the vector of two messages read together is
    close to the token-count-weighted mean of theirs: ``g = n_prev·v_prev + n·v`` (normalised), with
    ``n`` the messages' word counts.  No text is encoded twice (issue #10).

    Args:
        c: the container.
        record_rows: ``core.store.schema.Record`` rows (with ids).
        vectors: record id → float32 (384,) unit vector of the record (``app.pipeline.vector_text``).

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
    if not todo:
        return []
    names, gists = gist_vectors(c, todo, vectors)
    drafts = []
    for r in todo:
        body = "\n".join(x for x in (r.subject, r.text) if x)
        ep = existing.get(r.id)
        drafts.append(EpisodeDraft(text=body, embedding=gists[r.id], t_valid=clock.ensure_utc(r.sent_at),
                                   speaker=names.get(r.sender_entity_id), record_id=r.id,
                                   session=r.thread, provenance=f"record:{r.id}",
                                   episode_id=ep.id if ep is not None else None))
    with svc._lock:
        ids = svc.mem.store_many(drafts)
    svc.perceive_episodes(ids, [d.text for d in drafts])  # imports are explicit observations: all promoted
    return ids


def gist_vectors(c, records: Sequence[Record], vectors: dict[int, np.ndarray] | None = None
                 ) -> tuple[dict[int, str], dict[int, np.ndarray]]:
    """The vectors the records' gists are projected from (see :func:`remember_records`): each record's own
    vector blended with the previous message of its thread, ``g = n_prev·v_prev + n·v`` (normalised).
    A forgotten (tombstoned) message is nobody's previous message.

    Args:
        records: ``core.store.schema.Record`` rows with ids.
        vectors: record id → float32 (384,) vector already at hand (else read from Chroma, else encoded).

    Returns:
        (sender entity id → name, record id → float32 (384,) unit vector).
    """
    from app.pipeline import vector_text

    vectors = dict(vectors or {})
    prev: dict[int, tuple[int, int]] = {}  # record id -> (previous record of its thread, its word count)
    with c.db.session() as s:
        if GIST["before"]:
            part = ",".join(str(int(r.id)) for r in records if r.thread)
            if part:
                for rid, pid, plen in s.connection().exec_driver_sql(
                        "SELECT r.id, p.id, length(p.text) - length(replace(p.text, ' ', '')) + 1 FROM record r "
                        "JOIN record p ON p.id = (SELECT max(q.id) FROM record q WHERE q.thread = r.thread "
                        f"AND q.id < r.id AND q.tombstoned_at IS NULL) WHERE r.id IN ({part})").all():
                    prev[rid] = (pid, int(plen or 1))
        ent_ids = {r.sender_entity_id for r in records if r.sender_entity_id}
        names: dict[int, str] = {}
        if ent_ids:
            for e in s.exec(select(Entity).where(Entity.id.in_(list(ent_ids)))).all():
                names[e.id] = e.canonical_name
    want = [r.id for r in records if r.id not in vectors] + [p for p, _ in prev.values() if p not in vectors]
    if want:
        from core.store.collections import id_of, record_vid

        got = c.vectors.get_vectors(RECORDS, [record_vid(i) for i in dict.fromkeys(want)])
        vectors.update({id_of(k): v for k, v in got.items()})
    missing = [r for r in records if r.id not in vectors]
    if missing:
        enc = c.encoder.encode([vector_text(names.get(r.sender_entity_id), r.subject, r.text) for r in missing])
        vectors.update({r.id: v for r, v in zip(missing, enc)})
    out = {}
    for r in records:
        v = np.asarray(vectors[r.id], dtype=np.float32)
        p = prev.get(r.id)
        if p is not None and p[0] in vectors:
            n = len((r.text or "").split()) or 1
            v = n * v + p[1] * np.asarray(vectors[p[0]], dtype=np.float32)
            v = v / (np.linalg.norm(v) or 1.0)
        out[r.id] = v
    return names, out


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


WEIGHTS = {"lex": 1.0, "dense": 0.5, "gistw": 0.3}
"""RRF weights per ranking, chosen on LoCoMo (benchmarks/locomo.py --ablations, issue #4): the
episode BM25 ``lex`` (stemmed, speaker and dates indexed, ±3 same-session turns at 0.5/0.25/0.125:
context chunking) carries most of the recall; the record vectors (``dense``: each message embedded
as its sender tells it, in the third person) and the HDC gist ranking of each message with the
previous one, smoothed over session neighbours (``gistw``), add paraphrase matches.  The record
FTS5 BM25 (``bm25``) and the structured cascade (``hdc``) each lowered R@10 when added.  The
cascade still runs: it supplies each hit's tier, confidence, goal bias and the attention trace."""

SPEAKER_BOOST = 1.0
"""Fused-score bonus of the messages of the first sender a question names
(:meth:`Lexicon.speaker_boost`, issue #4: LoCoMo R@10 +0.03, most on multi-hop questions)."""

FUSION_K = 5
"""RRF constant: k = 5 beat the paper's 60 (and 10) when fusing one strong and two weaker rankings
(LoCoMo R@10 0.797 → 0.801 against k = 10)."""


def weighted_rrf(rankings: dict[str, list[int]], weights: dict[str, float], k: int = FUSION_K):
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


_FIRST_PERSON = re.compile(r"\b(?:[Ii]|me|my|mine|myself)\b", re.IGNORECASE)


def owner_view(c, question: str) -> str:
    """``question`` with the owner's first person in the third ("where did I camp?" → "where did Nic
    camp?", ``core.extraction.text.third_person``): messages are indexed and embedded as their senders
    tell them, the owner's included.  Unchanged when it has no first person or no owner is known."""
    from core.graph.owner import owner

    if not _FIRST_PERSON.search(question):
        return question
    with c.db.session() as s:
        me = owner(s)
        name = me.canonical_name if me is not None else None
    return third_person(question, name) if name else question


def rankings(c, question: str, as_of: datetime | None = None, goal_bias: bool = True,
             session: str | None = None, pool: int = POOL, query_vector: np.ndarray | None = None):
    """The rankings recall may fuse (episode ids, best first) and the cascade's :class:`Recall`:
    ``hdc`` (the A→D cascade), ``gist`` (HDC gist nearest neighbours), ``gistw`` (gist cosine smoothed
    over session neighbours), ``lex`` (episode BM25 with context windows), ``bm25`` and ``dense`` (records)."""
    svc = service(c)
    question = owner_view(c, question)
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
    lex = svc.lexicon()
    out["lex"] = [e for e, _ in lex.search(question, pool) if allowed(e)]
    if cue.gist is not None:
        out["gistw"] = [e for e, _ in lex.smoothed_gist(svc.mem, cue.gist, pool, as_of)]
    out["dense"] = [rec_to_ep[r] for r in dense if r in rec_to_ep and allowed(rec_to_ep[r])]
    return out, res


def recall(c, question: str, k: int = 10, as_of: datetime | None = None, goal_bias: bool = True,
           session: str | None = None, pool: int = POOL, weights: dict[str, float] | None = None,
           query_vector: np.ndarray | None = None) -> MemoryRecall:
    """Answer ``question`` from memory: the rankings of :func:`rankings` fused by weighted RRF
    (:data:`WEIGHTS`, k = :data:`FUSION_K`) — by default the context-window episode BM25 and the
    neighbour-smoothed HDC gist ranking.

    Args:
        c: the container.
        question: the user's text (non-empty).
        k: hits returned.
        as_of: recall as of this UTC time (later and superseded episodes are excluded from every ranking).
        goal_bias: weight cascade matches by the bundle of active goals.
        session: chat session id for the working-memory boost.
        pool: candidates taken from each ranking before fusion.
        weights: per-ranking RRF weights (default :data:`WEIGHTS`).
        query_vector: the embedding of ``owner_view(c, question)`` when the caller already has it
            (``float32 (384,)``).

    Raises:
        ValueError: the question is empty.
    """
    question = (question or "").strip()
    if not question:
        raise ValueError("recall needs a question")
    svc = service(c)
    ranks, res = rankings(c, question, as_of, goal_bias, session, pool, query_vector)
    by_episode = {m.episode_id: m for m in res.matches}
    fused = svc.lexicon().speaker_boost(owner_view(c, question), weighted_rrf(ranks, weights or WEIGHTS))[:k]
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


def perceived(c) -> list[dict]:
    """The sensory buffer's frames (seed 001 floor 1: the last 60 s, at most 1000), newest first:
    ``[{"at": ISO UTC, "text", "surprise": 0–1, "promoted": bool}]``."""
    return [{"at": f.at.isoformat(), "text": f.text, "surprise": round(f.surprise, 4), "promoted": f.promoted}
            for f in reversed(service(c).sensory.frames())]


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


def beliefs(c) -> list[dict]:
    """Current beliefs (not withdrawn, not superseded), most confident first:
    ``[{"id", "statement", "confidence", "evidence_count", "valid_from"}]``."""
    from core.store.memory_schema import Belief

    with c.db.session() as s:
        rows = s.exec(select(Belief).where(Belief.withdrawn_at.is_(None), Belief.superseded_by.is_(None))
                      .order_by(Belief.confidence.desc(), Belief.id)).all()
        return [{"id": b.id, "statement": b.statement or f"{b.subject} {b.predicate} {b.object}",
                 "confidence": round(b.confidence, 4), "evidence_count": b.evidence_count,
                 "valid_from": clock.ensure_utc(b.valid_from).isoformat() if b.valid_from else None} for b in rows]


def goals(c) -> list[dict]:
    """Every goal, active first: ``[{"id", "title", "state", "deadline", "parent_id", "success_criteria"}]``."""
    from core.store.memory_schema import Goal

    order = {"active": 0, "paused": 1, "completed": 2, "abandoned": 3}
    with c.db.session() as s:
        rows = sorted(s.exec(select(Goal)).all(), key=lambda g: (order.get(g.state, 9), g.id))
        return [{"id": g.id, "title": g.title, "state": g.state, "parent_id": g.parent_id,
                 "success_criteria": g.success_criteria,
                 "deadline": clock.ensure_utc(g.deadline).isoformat() if g.deadline else None} for g in rows]


def set_goal(c, title: str, *, parent_id: int | None = None, success_criteria: str = "",
             deadline: datetime | None = None) -> dict:
    """Add an active goal (recall is biased toward what serves active goals, seed 001). Raises InputError/NotFound."""
    from core.memory.goals import set_goal as _set

    def work():
        with c.db.session() as s:
            return _set(s, title, parent_id=parent_id, success_criteria=success_criteria, deadline=deadline).id
    gid = c.writer.run(work)
    return next(g for g in goals(c) if g["id"] == gid)


def change_goal(c, goal_id: int, state: str) -> dict:
    """Move a goal to ``state`` (active, paused, completed, abandoned) along the allowed transitions."""
    from core.memory.goals import revise_goal

    def work():
        with c.db.session() as s:
            revise_goal(s, goal_id, state=state)
    c.writer.run(work)
    return next(g for g in goals(c) if g["id"] == goal_id)

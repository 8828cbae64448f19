"""App-level glue for the cognitive memory (seed 001): encode with the container's encoder, call core/memory.

Hooks (called from app/operations/ingest.py and ask.py):

* :func:`remember_records` — after a batch of Records is written, make (or complete) one
  Episode per record with both HDC signatures and concept postings.
* :func:`recall` — Kith's one retriever (``core/retrieval/``) with the question as the owner's third
  person, encoded once; the attention trace is queued to the writer, never written on the read path.

The :class:`MemoryService` lives on the container (``container.memory`` when wired, else
created on first use and kept as ``container._memory_service``); its files are
``<data folder>/memory/signatures.dat`` and ``gists.dat``.
"""
from __future__ import annotations

import re
import threading
from concurrent.futures import Future
from datetime import datetime
from typing import Sequence

import numpy as np
from sqlmodel import select

from core import clock
from core.extraction.text import speaker_view, third_person
from core.memory.episodes import EpisodeDraft, EpisodicMemory
from core.memory.sensory import SensoryBuffer, SensoryFrame, held_bundle
from core.memory.working import WorkingMemory
from core.store import memory_schema  # noqa: F401  (tables registered before the DB is opened)
from core.store.collections import RECORDS
from core.store.schema import Entity, Episode, Record


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
        """Another process wrote the data folder: re-read the signature files (the memory index is
        rebuilt on its next use; the episode lexicon lives in SQLite and needs nothing)."""
        with self._lock:
            self.mem.refresh()

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


def loaded_service(c) -> MemoryService | None:
    """The container's :class:`MemoryService` when one was made (by :func:`service` or passed in as ``c.memory``),
    else None — for writers that only keep a loaded one in step and must not make one."""
    svc = getattr(c, "memory", None)
    return svc if isinstance(svc, MemoryService) else getattr(c, "_memory_service", None)


def service(c) -> MemoryService:
    """The container's :class:`MemoryService` (created once)."""
    svc = loaded_service(c)
    if svc is None:
        svc = MemoryService(c)
        c._memory_service = svc
    return svc


class _FileRows:
    """Reads signature rows from a data folder's signature file (read-only memmap)."""

    def __init__(self, sf):
        self.sf = sf

    def read(self, rows: np.ndarray) -> np.ndarray:
        """``uint8 (len(rows), 1024)``; a row beyond the file (should not happen) reads as zeros."""
        all_rows = self.sf.rows()
        rows = np.asarray(rows, dtype=np.int64)
        out = np.zeros((len(rows), all_rows.shape[1] if all_rows.ndim == 2 else 1024), dtype=np.uint8)
        ok = rows < len(all_rows)
        if ok.any():
            out[ok] = all_rows[rows[ok]]
        return out


def signature_source(c, name: str) -> _FileRows:
    """Where the rows of signature file ``name`` (``"signatures"`` or ``"gists"``) are read from for an
    export: an object with ``read(rows) -> uint8 (k, 1024)``.  Read-only (opening a signature file writes
    nothing)."""
    from core.store.signatures import SignatureFile

    if c.db.server:  # the database holds the rows (this device's files are only its cache)
        return service(c).mem.structured if name == "signatures" else service(c).mem.gists
    return _FileRows(SignatureFile(c.settings.home / "memory" / f"{name}.dat"))


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


_FIRST_PERSON = re.compile(r"\b(?:[Ii]|me|my|mine|myself)\b", re.IGNORECASE)


def owner_entity(c) -> tuple[int, str] | None:
    """The owner's ``(entity id, name)`` (one indexed lookup, raw SQL: no ORM statement to compile on a cold
    ``kith ask``), or None when no owner is known."""
    from core.store import dialect

    raw = dialect.read_connection(c.db.engine)
    try:
        row = raw.cursor().execute("SELECT id, canonical_name FROM entity WHERE is_owner = 1 AND tombstoned_at IS NULL "
                                   "ORDER BY id LIMIT 1").fetchone()
    finally:
        raw.close()
    return (int(row[0]), row[1]) if row else None


def owner_name(c) -> str | None:
    """The owner's name (:func:`owner_entity`), or None when no owner is known."""
    me = owner_entity(c)
    return me[1] if me else None


_OWNER_SUBJECT = re.compile(r"\b(?:I|I[’']m|I[’']ve|I[’']d|I[’']ll|my|mine|myself|we|our)\b", re.IGNORECASE)
"""The owner as the one who acts or owns in a question ("what did *I* say", "*my* trip"), as against "me", the one
written to ("who emailed me?")."""


def owner_view(c, question: str, name: str | None = ...) -> str:
    """``question`` with the owner's first person in the third ("where did I camp?" → "where did Nic
    camp?", ``core.extraction.text.third_person``): messages are indexed and embedded as their senders
    tell them, the owner's included.  Unchanged when it has no first person or no owner is known, and when the
    owner is only the one written to ("who emailed me about PGP?": their name would rank their own messages
    first, and they are a party to every message).

    Args:
        name: the owner's name when the caller already looked it up (else it is looked up here).
    """
    if not _FIRST_PERSON.search(question) or not _OWNER_SUBJECT.search(question):
        return question  # "who emailed me about PGP?": the owner is only written to, a party to every message
    if name is ...:
        name = owner_name(c)
    return third_person(question, name) if name else question


def recall(c, question: str, k: int = 10, as_of: datetime | None = None, *, query_vector: np.ndarray | None = None,
           config=None, trace: bool = False, exclude_text: str | None = None, refresh: bool = False):
    """Answer ``question`` from memory with Kith's one retriever (``core.retrieval.retrieve``).

    One owner lookup, one encoding (unless ``query_vector`` is given), one Chroma query; nothing is
    written here.  With ``trace``, seed 001's attention trace and ``recall`` learning event are queued
    to the writer thread (the chat does; ``kith ask`` does not).

    Args:
        c: the container.
        question: the person's text (non-empty).
        k: hits returned (each with its calibrated relevance; the caller applies the threshold).
        as_of: recall as of this UTC time.
        query_vector: the embedding of ``owner_view(c, question)``, ``float32 (384,)``, when the caller has it.
        config: a ``core.retrieval.config.RetrievalConfig`` (default: the configured one).
        trace: queue the attention trace to the writer.
        exclude_text: a text never returned as its own answer (the message being answered).
        refresh: first pick up what another Kith process wrote (``Container.refresh``), on a helper thread
            while the question is encoded (on a server, reading the write generation is a round trip).

    Returns:
        ``core.retrieval.retriever.Retrieval``.

    Raises:
        ValueError: the question is empty.
    """
    from core.retrieval.config import CONFIG
    from core.retrieval.retriever import retrieve

    question = (question or "").strip()
    if not question:
        raise ValueError("recall needs a question")
    from core.retrieval.retriever import lexical, lexical_start, pool

    config = config or CONFIG
    implied: tuple[str, ...] = ()
    q = question
    if _FIRST_PERSON.search(question):  # "I" as the owner's name, a party to every message (held by each turn)
        name = owner_name(c)
        q = owner_view(c, question, name)
        if name and q != question:
            from core.retrieval.lexicon import tokens

            implied = tuple(tokens(name))
    lex = None
    if config.parallel:  # the question's words are looked up while it is encoded: on a server, sent to it now;
        # on SQLite, on a helper thread (SQLite's own time then runs beside the encoder's)
        lex = lexical_start(c.db, q, config, as_of) if c.db.server else pool().submit(lexical, c.db, q, config, as_of)
    fresh = None
    if refresh:
        fresh = pool().submit(c.refresh) if config.parallel else c.refresh()
    try:
        qv = c.encoder.encode([q])[0] if query_vector is None else np.asarray(query_vector, dtype=np.float32)
    except BaseException:
        if hasattr(lex, "close"):
            lex.close()
        raise
    if isinstance(fresh, Future):
        fresh.result()  # before the signature files and Chroma are read
    try:
        res = retrieve(c.db, c.vectors, service(c).mem, q, qv, k=k, as_of=as_of, config=config,
                       exclude_text=exclude_text, prefetched=lex, implied=implied)
    finally:
        if hasattr(lex, "close"):  # a server's reads, if retrieve failed before reading them
            lex.close()
    if trace:
        c.writer.submit(write_trace, c, res.trace, res.hits[0].tier if res.hits else "")
    return res


def write_trace(c, detail: dict, tier: str) -> int:
    """Write seed 001's attention trace of one recall and its ``recall`` learning event (writer thread).
    Returns the trace id."""
    from core.memory.events import log_event
    from core.store.memory_schema import AttentionTrace

    with c.db.session() as s:
        tr = AttentionTrace(query=detail.get("query", "")[:500], session=None, tier_used=tier,
                            elapsed_ms=float(detail.get("elapsed_ms", 0.0)), detail=detail)
        s.add(tr)
        s.flush()
        log_event(s, "recall", f"trace:{tr.id}", tier=tier, matches=len(detail.get("matches", [])),
                  as_of=detail.get("as_of"))
        return tr.id


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

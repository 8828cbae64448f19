"""Ask: answer from memory with no language model — Kith's one retriever, shown by calibrated relevance.

``ask`` calls ``app.memory.recall`` (the retriever of ``core/retrieval/``: the episode lexicon, the
record vectors and the HDC memory fused by RRF, current before superseded, each hit with a calibrated
relevance) and returns what clears the relevance threshold: records (messages, photos, memos),
things the person told Kith in chat, and the facts they are evidence for — a current fact just before
its evidence, a superseded one as history ("Rosa Vidal lived in Berlin until June 2023").  An empty
list means "I found nothing about that".  ``ask`` writes nothing and takes no lock.
"""
from __future__ import annotations

import json
from datetime import datetime

from app.container import Container
from app.operations.types import AskResult
from core.clock import ensure_utc
from core.retrieval.answer import history_statement
from core.retrieval.config import CONFIG
from core.store.schema import Entity, Record, Source


def ask(c: Container, question: str, k: int | None = None, *, as_of: datetime | None = None,
        min_relevance: float | None = None, trace: bool = False, facts: bool = True) -> list[AskResult]:
    """The best ``k`` memories for ``question`` (default: settings.ask_k), best first.

    Args:
        c: the container.
        question: the person's text (non-empty), recalled as meant and as reworded in the words messages use
            (``app.answer.recall_questions``: "whats the name of …", "where does Lena work" / "… job"), each turn
            at its best relevance.
        k: how many turns at most (facts come on top of them, each beside its evidence).
        as_of: answer as of this UTC time (later turns are left out; facts true then are current).
        min_relevance: the least calibrated relevance shown (default: the configured threshold, chosen on
            the LoCoMo dev split; 0 shows everything retrieved).
        trace: queue seed 001's attention trace to the writer (the chat does; ``kith ask`` does not).
        facts: attach the facts the turns are evidence for.

    Returns:
        :class:`AskResult` list; empty when nothing relevant was found.

    Raises:
        ValueError: the question is empty.
    """
    res, k = _recall(c, question, k, as_of, trace)
    return results_from(c, res, k, min_relevance, facts)


def ask_all(c: Container, question: str, k: int | None = None, *, as_of: datetime | None = None,
            every: bool = True) -> tuple[list[AskResult], list[AskResult]]:
    """``(shown, all)`` from one recall: what :func:`ask` shows at the relevance threshold, and (``every``) every
    result retrieved, relevance ≥ 0 (``kith ask --all``; else ``shown`` again).  Raises ValueError: the question
    is empty."""
    res, k = _recall(c, question, k, as_of, False)
    shown = results_from(c, res, k)
    return shown, (results_from(c, res, k, 0.0) if every else shown)


def _recall(c: Container, question: str, k: int | None, as_of: datetime | None, trace: bool):
    from app.answer import recall_questions, with_possessives
    from app.memory import recall

    # "wher does …": the question word as meant; "whats the name of …": the name is the answer, not a word to find;
    # "where does Lena work": also asked with "job"
    asked = recall_questions(with_possessives(question, lambda word: _first_name(c, word)))
    if not asked:
        raise ValueError("ask needs a question")
    k = k or c.settings.ask_k
    typed = (question or "").strip()
    # refresh: pick up what another Kith process wrote (reloads in-memory indexes; writes nothing)
    res = recall(c, asked[0], k=max(k, 10), as_of=as_of, trace=trace, exclude_text=typed, refresh=True)
    for other in asked[1:]:
        res = merged(res, recall(c, other, k=max(k, 10), as_of=as_of, exclude_text=typed))
    return res, k


def _first_name(c: Container, word: str) -> bool:
    """Whether a live person's name starts with the word ``word`` (case-insensitive): "Tom" for Tom Hill."""
    from core.graph.resolution import first_name_of_someone

    with c.db.session() as s:
        return first_name_of_someone(s, word)


def merged(first, second):
    """Two ``core.retrieval.retriever.Retrieval`` of the same question worded two ways as one: each turn once, as
    the recall that shows it (``is_shown`` at the configured threshold) found it, else as the one with the better
    relevance (its features and tier with it), best relevance first (ties: the first recall's order); each fact once,
    at its better relevance.  Keeps ``first``'s question, rankings, trace and timings."""
    from dataclasses import replace

    from core.retrieval.retriever import is_shown

    def rank(h) -> tuple[bool, float]:
        return is_shown(h, CONFIG.relevance.threshold), h.relevance

    best: dict[int, object] = {}
    for h in [*first.hits, *second.hits]:
        if h.episode_id not in best or rank(h) > rank(best[h.episode_id]):
            best[h.episode_id] = h
    order = {e: i for i, e in enumerate(best)}
    hits = sorted(best.values(), key=lambda h: (-h.relevance, order[h.episode_id]))
    facts: dict[int, object] = {}
    for f in [*first.facts, *second.facts]:
        if f.fact_id not in facts or f.relevance > facts[f.fact_id].relevance:
            facts[f.fact_id] = f
    return replace(first, hits=hits, facts=sorted(facts.values(), key=lambda f: not f.current))


def results_from(c: Container, res, k: int, min_relevance: float | None = None, facts: bool = True) -> list[AskResult]:
    """:class:`AskResult` rows for a ``core.retrieval.retriever.Retrieval``: the hits at or above the
    threshold (at most ``k``), each current fact just before its first shown evidence, history after it."""
    from core.retrieval.retriever import is_shown

    threshold = CONFIG.relevance.threshold if min_relevance is None else min_relevance
    shown = [h for h in res.hits if is_shown(h, threshold)][:k]
    if not shown:
        return []
    rids = [h.record_id for h in shown if h.record_id is not None]
    meta: dict[int, tuple] = {}
    if rids:  # raw SQL: an ORM statement costs ~30 ms to compile on a cold `kith ask`
        from core.store import dialect

        raw = dialect.read_connection(c.db.engine)
        try:
            rows = raw.cursor().execute(
                "SELECT r.id, r.kind, r.subject, r.text, r.utc_offset, s.path, e.canonical_name, r.attrs FROM record r "
                "LEFT JOIN source s ON s.id = r.source_id LEFT JOIN entity e ON e.id = r.sender_entity_id "
                f"WHERE r.id IN ({','.join('?' * len(rids))})", rids).fetchall()
        finally:
            raw.close()
        meta = {rid: (_Row(kind, subject, text, offset, _date_only(attrs)), path or "", sender)
                for rid, kind, subject, text, offset, path, sender, attrs in rows}
    placed: set[int] = set()
    by_fact = {f.fact_id: f for f in res.facts} if facts else {}
    # a trip's event fact ("2 photos were taken at Arezzo on 2008-10-22") says again what the place's visit fact
    # on those photos says: shown once, as the visit
    visits = [set(f.evidence) for f in by_fact.values()
              if f.current and f.domain == "places" and f.key.startswith("photographed:")]
    placed.update(f.fact_id for f in by_fact.values()
                  if f.domain == "events" and f.evidence and any(set(f.evidence) <= v for v in visits))
    out: list[AskResult] = []
    for h in shown:
        if facts and h.record_id is not None:
            for f in sorted((by_fact[i] for i in h.facts if i in by_fact), key=lambda f: not f.current):
                if f.fact_id in placed:
                    continue
                placed.add(f.fact_id)
                row, path = meta.get(h.record_id, (None, ""))[:2]
                out.append(_fact_result(f, path, h.relevance, h.record_id, row.utc_offset if row else None))
        out.append(_hit_result(h, meta.get(h.record_id)))
    return out


class _Row:
    """What a shown record needs: kind, subject, text, its offset where it was sent (minutes, or None), and
    whether only its day is known."""

    __slots__ = ("kind", "subject", "text", "utc_offset", "date_only")

    def __init__(self, kind, subject, text, utc_offset=None, date_only=False):
        self.kind, self.subject, self.text, self.utc_offset = kind, subject, text, utc_offset
        self.date_only = date_only


def _date_only(attrs) -> bool:
    """``attrs["date_only"]`` of a record row's attrs (JSON text on SQLite, a dict on PostgreSQL)."""
    if isinstance(attrs, (str, bytes)):
        if b"date_only" not in (attrs if isinstance(attrs, bytes) else attrs.encode()):
            return False
        try:
            attrs = json.loads(attrs)
        except ValueError:
            return False
    return bool(isinstance(attrs, dict) and attrs.get("date_only"))


def _fact_result(f, source: str, relevance: float, shown_with: int | None = None,
                 utc_offset: int | None = None) -> AskResult:
    """A fact as shown just before the turn ``shown_with`` (one of its evidence records): that record is the one it
    cites (``record_id``; all of them in ``evidence``), so the fact and the turn beside it are one source; its time is
    read at that record's ``utc_offset`` (where it was said or taken)."""
    when = ensure_utc(f.valid_from)
    text = f.statement if f.current else history_statement(f.statement, f.valid_to)
    return AskResult(text=text, source=source, when=when.isoformat() if when else None, score=round(f.relevance, 6),
                     kind="fact" if f.current else "history", fact_id=f.fact_id, subject=f"{f.domain}: {f.key}",
                     sender=f.subject, confidence=round(f.confidence, 4), relevance=round(relevance, 4),
                     record_id=shown_with if shown_with in f.evidence else (f.evidence[0] if f.evidence else 0),
                     evidence=list(f.evidence), utc_offset=utc_offset)


def shown_text(subject: str | None, text: str | None, kind: str | None) -> str:
    """A record's text as results show it: a message's subject, a blank line, its text (a photo's or a memo's
    "subject" is its file's title, not said: the text alone)."""
    return (f"{subject}\n\n{text or ''}" if subject and kind not in ("photo", "voice") else text or "").strip()


def _hit_result(h, meta) -> AskResult:
    when = ensure_utc(h.when)
    iso = when.isoformat() if when else None
    if h.record_id is None or meta is None:  # something the person told Kith in chat (no source file)
        return AskResult(text=h.text, source=f"chat ({h.session or 'Kith'})", when=iso, score=round(h.score, 6),
                         kind="episode", relevance=round(h.relevance, 4), episode_id=h.episode_id, tier=h.tier)
    row, path, sender = meta
    text = shown_text(row.subject, row.text, row.kind)
    return AskResult(text=text, source=path, when=iso, score=round(h.score, 6), record_id=h.record_id,
                     subject=row.subject, sender=sender, relevance=round(h.relevance, 4), episode_id=h.episode_id,
                     tier=h.tier, record_kind=row.kind, utc_offset=row.utc_offset, date_only=row.date_only)


def record_source(c: Container, record_id: int) -> dict:
    """What a citation opens: the record's own text and where it came from.

    Returns:
        ``{"record_id", "kind" (email, chat, photo, voice, …), "path" (the source file), "subject", "sender",
        "when" (ISO UTC or None), "text" (the whole message, or a memo's transcript), "thread"}``.

    Raises:
        NotFound: no such record (forgotten, or never there).
    """
    from core.errors import NotFound

    with c.db.session() as s:
        row = s.get(Record, record_id)
        if row is None or getattr(row, "tombstoned_at", None) is not None:
            raise NotFound(f"record {record_id} is not in memory (it may have been forgotten)")
        src = s.get(Source, row.source_id)
        sender = s.get(Entity, row.sender_entity_id) if row.sender_entity_id else None
        when = ensure_utc(row.sent_at)
        return {"record_id": row.id, "kind": row.kind, "path": src.path if src else "", "subject": row.subject,
                "sender": sender.canonical_name if sender else None, "when": when.isoformat() if when else None,
                "text": row.text, "thread": row.thread}

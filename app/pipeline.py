"""The ingest pipeline as named stages that finish what they start (beets' importer, DESIGN.md §6).

    read → parse → resolve → rows (+ facts, FTS) ═ commit ═ → vectors → memory → ledger → fact vectors → events

``read``/``parse`` run in the ingestors (``ingestors/``), on the caller's thread, together with the one
encoding of each record's text.  Everything after runs on the container's writer thread, under the
data folder's writer lock (``core.store.lock``):

* **rows** — one SQLite transaction per batch: senders, recipients and places resolved (each distinct
  party once per batch), the Record rows, their links, an Episode row per record, the facts the text
  states (with evidence, marking summaries stale) and the FTS5 rows.  After it commits, each record
  carries the stages it still needs in ``record.pending`` (:class:`Stage` bits).
* **vectors** — the record's vector (computed once, before the batch) into Chroma's ``records``
  collection; clears :attr:`Stage.VECTORS`.
* **memory** — the episode's HDC signatures (seed 001), gist from the same vector; done when
  ``episode.signature_row`` is set.
* **ledger** — the personalization ledger learns the conversation (seed 000); the ledger writes and
  the clearing of :attr:`Stage.LEDGER` are one transaction.
* **fact vectors** — statements of facts not yet embedded (``fact.indexed_at IS NULL``).
* **events** — photo clusters become events (:attr:`Stage.EVENTS` on geotagged photos).

Every stage after the commit is idempotent and works from what SQLite says is left, so a crash, a
failure or a cancel at any point is completed by the next ingest (:func:`complete_pending`) or by
``kith doctor --repair``; a record whose later stages are not done is never skipped as "already known".
"""
from __future__ import annotations

import enum
import re
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
from sqlmodel import select

from core import clock
from core.extraction.text import speaker_view
from core.store import search
from core.store.collections import FACTS, RECORDS, record_vid
from core.store.schema import Entity, Episode, Fact, Record as RecordRow, Source, StoreMeta

STAGES = ("read", "parse", "resolve", "rows", "fts", "vectors", "memory", "ledger", "fact vectors", "events")
"""The stage names, in order (reported by ``kith doctor`` and the benchmark)."""


class Stage(enum.IntFlag):
    """Bits of ``record.pending``: the stages a stored record still needs."""

    VECTORS = 1
    LEDGER = 2
    EVENTS = 4


def embed_text(subject: str | None, text: str) -> str:
    """The text a record is embedded from: subject, then body (the encoder keeps the first 256 tokens)."""
    return "\n".join(p for p in (subject, (text or "")[:4000]) if p)


def vector_text(sender_name: str | None, subject: str | None, text: str) -> str:
    """:func:`embed_text` as its sender tells it, ``"Sender: …"`` in the third person
    (``core.extraction.text.speaker_view``; issue #4: questions name people, messages say "I").
    Unchanged for records without a sender name (photos)."""
    return speaker_view(sender_name, embed_text(subject, text))


# ------------------------------------------------------------------------------------------- stages

def vectors_stage(c, record_ids: Sequence[int] | None = None, vectors: dict[int, np.ndarray] | None = None,
                  limit: int = 256) -> int:
    """Write record vectors to Chroma for ``record_ids`` (default: the oldest ``limit`` pending ones),
    using ``vectors`` where given and encoding the rest once; clears :attr:`Stage.VECTORS`.

    Returns:
        How many records it completed.
    """
    vectors = vectors or {}
    with c.db.session() as s:
        q = select(RecordRow).where(RecordRow.pending.op("&")(int(Stage.VECTORS)) != 0,
                                    RecordRow.tombstoned_at.is_(None))  # a forgotten record gets no vector
        q = q.where(RecordRow.id.in_(list(record_ids))) if record_ids is not None else q.order_by(RecordRow.id).limit(limit)
        rows = list(s.exec(q).all())
        if not rows:
            return 0
        names = _names(s, {r.sender_entity_id for r in rows if r.sender_entity_id})
    missing = [r for r in rows if r.id not in vectors]
    if missing:
        enc = c.encoder.encode([vector_text(names.get(r.sender_entity_id), r.subject, r.text) for r in missing])
        vectors = {**vectors, **{r.id: v for r, v in zip(missing, enc)}}
    ids = [r.id for r in rows]
    c.vectors.upsert(RECORDS, [record_vid(i) for i in ids], np.stack([vectors[i] for i in ids]),
                     [{"record_id": i} for i in ids])
    _clear(c, ids, Stage.VECTORS)
    return len(ids)


def memory_stage(c, record_ids: Sequence[int] | None = None, vectors: dict[int, np.ndarray] | None = None,
                 limit: int = 256) -> int:
    """Give episodes without signatures their HDC signatures (``app.memory.remember_records``), for the
    records ``record_ids`` (default: the oldest ``limit`` unsigned episodes of records).

    Returns:
        How many episodes it completed.
    """
    from app.memory import remember_records

    with c.db.session() as s:
        q = (select(RecordRow).join(Episode, Episode.record_id == RecordRow.id)
             .where(Episode.signature_row.is_(None), Episode.tombstoned_at.is_(None)))
        q = q.where(RecordRow.id.in_(list(record_ids))) if record_ids is not None else q.order_by(RecordRow.id).limit(limit)
        rows = list(s.exec(q).all())
    if not rows:
        return 0
    return len(remember_records(c, rows, vectors=vectors))


def ledger_stage(c, record_ids: Sequence[int] | None = None, vectors: dict[int, np.ndarray] | None = None,
                 limit: int = 512) -> int:
    """Learn the conversations of records marked :attr:`Stage.LEDGER` (seed 000: who replied, how fast,
    who went silent) and clear the mark in the same transaction.

    Returns:
        How many records it completed.
    """
    from app.personal import personal_service

    with c.db.session() as s:
        q = select(RecordRow).where(RecordRow.pending.op("&")(int(Stage.LEDGER)) != 0,
                                    RecordRow.tombstoned_at.is_(None))  # nor signals
        q = q.where(RecordRow.id.in_(list(record_ids))) if record_ids is not None else q.order_by(RecordRow.id).limit(limit)
        rows = list(s.exec(q).all())
        if not rows:
            return 0
        names = _names(s, {r.sender_entity_id for r in rows if r.sender_entity_id})
    svc = personal_service(c)
    owner = svc.owner_id()
    by_text: dict[str, np.ndarray] = {}
    if vectors:
        for r in rows:
            if r.id in vectors:
                by_text[r.text] = vectors[r.id]

    def embed(texts: list[str]) -> np.ndarray:  # each text was encoded once, for its record vector
        todo = [t for t in texts if t not in by_text]
        if todo:
            by_text.update(zip(todo, c.encoder.encode(todo)))
        return np.stack([by_text[t] for t in texts])

    ids = [r.id for r in rows]
    marks = ",".join(str(int(i)) for i in ids)
    svc.learn_stored(rows, names, owner, embed=embed,
                     done_sql=f"UPDATE record SET pending = pending & ~{int(Stage.LEDGER)} WHERE id IN ({marks})")
    return len(ids)


def fact_vectors_stage(c, limit: int = 512) -> int:
    """Embed the statements of facts not yet in Chroma's ``facts`` collection (``fact.indexed_at IS NULL``).

    Returns:
        How many facts it embedded.
    """
    from app.operations.graph import index_facts

    with c.db.session() as s:
        ids = list(s.exec(select(Fact.id).where(Fact.indexed_at.is_(None), Fact.tombstoned_at.is_(None))
                          .order_by(Fact.id).limit(limit)).all())
    return index_facts(c, ids) if ids else 0


def events_stage(c) -> int:
    """Refresh photo clusters → events when geotagged photos arrived (:attr:`Stage.EVENTS`); clears the mark.

    Returns:
        How many records it completed.
    """
    from app.operations.events import _refresh

    with c.db.session() as s:
        n = s.connection().exec_driver_sql(
            f"SELECT count(*) FROM record WHERE pending & {int(Stage.EVENTS)} != 0").scalar() or 0
    if not n:
        return 0
    _refresh(c)
    with c.db.session() as s:
        s.connection().exec_driver_sql(f"UPDATE record SET pending = pending & ~{int(Stage.EVENTS)} "
                                       f"WHERE pending & {int(Stage.EVENTS)} != 0")
    return int(n)


def _clear(c, ids: Sequence[int], bit: Stage) -> None:
    with c.db.session() as s:
        conn = s.connection()
        for i in range(0, len(ids), 500):
            part = ",".join(str(int(x)) for x in ids[i:i + 500])
            conn.exec_driver_sql(f"UPDATE record SET pending = pending & ~{int(bit)} WHERE id IN ({part})")


def _names(s, ids: set[int]) -> dict[int, str]:
    if not ids:
        return {}
    return dict(s.exec(select(Entity.id, Entity.canonical_name).where(Entity.id.in_(list(ids)))).all())


# ----------------------------------------------------------------------------- after a batch, resume

AFTER_ROWS: tuple[tuple[str, str], ...] = (("vectors", "vectors_stage"), ("memory", "memory_stage"),
                                           ("ledger", "ledger_stage"))


def after_rows(c, record_ids: Sequence[int], vectors: dict[int, np.ndarray] | None = None) -> list[str]:
    """Run the post-commit stages for one batch of new records (writer thread).  A stage that fails is
    reported and left marked for the next run; the stages after it still run.

    Returns:
        Warnings, one per failed stage (``"<stage> not done (…): will be completed by the next import or
        `kith doctor --repair`"``).
    """
    import sys

    warnings: list[str] = []
    mod = sys.modules[__name__]
    for name, fn in AFTER_ROWS:
        try:
            getattr(mod, fn)(c, record_ids, vectors)
        except Exception as exc:
            if name == "vectors":
                _recover_vector_store(c)
            warnings.append(f"{name} stage not done ({type(exc).__name__}: {exc}); it will be completed by the "
                            "next import or `kith doctor --repair`")
    try:
        mod.fact_vectors_stage(c)
    except Exception as exc:
        _recover_vector_store(c)
        warnings.append(f"fact vectors not done ({type(exc).__name__}: {exc}); they will be completed by the next "
                        "import or `kith doctor --repair`")
    return warnings


def _recover_vector_store(c) -> None:
    """After a Chroma failure: reopen the store, and if its folder was lost, mark every vector to redo."""
    try:
        c.vectors.reopen()
        check_vector_store(c)
    except Exception:  # the store stays broken: the marks stay, doctor reports it
        pass


def pending(c) -> dict[str, int]:
    """What is left per post-commit stage: ``{"vectors", "memory", "ledger", "fact vectors", "events"}``."""
    with c.db.session() as s:
        conn = s.connection()
        one = lambda q: int(conn.exec_driver_sql(q).scalar() or 0)  # noqa: E731
        return {
            "vectors": one(f"SELECT count(*) FROM record WHERE pending & {int(Stage.VECTORS)} != 0 "
                            "AND tombstoned_at IS NULL"),
            "memory": one("SELECT count(*) FROM episode e WHERE e.signature_row IS NULL AND e.tombstoned_at IS NULL "
                          "AND e.record_id IS NOT NULL"),
            "ledger": one(f"SELECT count(*) FROM record WHERE pending & {int(Stage.LEDGER)} != 0 "
                           "AND tombstoned_at IS NULL"),
            "fact vectors": one("SELECT count(*) FROM fact WHERE indexed_at IS NULL AND tombstoned_at IS NULL"),
            "events": one(f"SELECT count(*) FROM record WHERE pending & {int(Stage.EVENTS)} != 0"),
        }


@dataclass
class Completion:
    """What :func:`complete_pending` did: records/facts completed per stage, and failures."""

    done: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    cancelled: bool = False

    def to_json(self) -> dict:
        return {"done": self.done, "errors": self.errors, "cancelled": self.cancelled}


def complete_pending(c, progress: Callable[[str, int, int], None] | None = None, cancel=None,
                     batch: int = 256) -> Completion:
    """Finish every stage a crash, a failure or a cancel left undone, oldest first, in batches.

    Args:
        c: the container.
        progress: called as ``progress(stage, done, total)`` after each batch.
        cancel: a ``threading.Event``; when set, stops after the current batch (what is done stays done).
        batch: records per batch.

    Returns:
        :class:`Completion`.  A stage that keeps failing is reported once and left for later.
    """
    out = Completion()
    c.writer.run(check_vector_store, c)
    left = pending(c)
    for name, fn, per in (("vectors", vectors_stage, batch), ("memory", memory_stage, batch),
                          ("ledger", ledger_stage, 2 * batch), ("fact vectors", fact_vectors_stage, 2 * batch)):
        total, done = left[name], 0
        while done < total:
            if cancel is not None and cancel.is_set():
                out.cancelled = True
                return out
            try:
                n = c.writer.run(fn, c, limit=per) if name != "fact vectors" else c.writer.run(fn, c, per)
            except Exception as exc:
                out.errors.append(f"{name}: {type(exc).__name__}: {exc}")
                if name == "vectors":
                    c.writer.run(_recover_vector_store, c)
                break
            if not n:
                break
            done += n
            if progress:
                progress(name, done, total)
        if done:
            out.done[name] = done
    if left["events"]:
        try:
            out.done["events"] = c.writer.run(events_stage, c)
        except Exception as exc:
            out.errors.append(f"events: {type(exc).__name__}: {exc}")
    return out


# ---------------------------------------------------------------------------------- the vector store

CHROMA_ID = "chroma_store_id"


def vector_store_warning(c) -> str | None:
    """Read-only: a warning when the Chroma folder is missing or is not the one the vectors were written to
    (searching by meaning then finds nothing old until the next import or ``kith doctor --repair``)."""
    from core.store import dialect

    raw = dialect.raw_connection(c.db.engine)  # raw SQL: an ORM statement costs ~15 ms to compile in a cold `kith ask`
    try:
        meta = raw.cursor().execute("SELECT value FROM storemeta WHERE key = ?", (CHROMA_ID,)).fetchone()
    finally:
        raw.close()
    if meta is None or c.vectors.store_id() == meta[0]:
        return None
    return (f"the vector store in {c.settings.chroma_path} is missing or was replaced: searching by meaning "
            "misses what was imported before; the next import, `kith doctor --repair` or the window rebuilds it")


def check_vector_store(c) -> str | None:
    """Writer only: make sure the Chroma folder is the one the vectors were written to.

    Kith writes a random id into the Chroma folder (``core.store.vectors.STORE_MARKER``) and into
    SQLite (``storemeta``).  When the folder is missing, or holds another id (deleted, replaced,
    restored from a backup of another time), every record and fact vector is marked to be written
    again, and the stages rebuild the store from SQLite.

    Returns:
        A message saying what was found and done, or None when the store is the expected one.
    """
    with c.db.session() as s:
        meta = s.get(StoreMeta, CHROMA_ID)
        expected = meta.value if meta is not None else None
        conn = s.connection()
        records = int(conn.exec_driver_sql("SELECT count(*) FROM record").scalar() or 0)
        facts = int(conn.exec_driver_sql("SELECT count(*) FROM fact").scalar() or 0)
    actual = c.vectors.store_id()
    if actual is not None and actual == expected:
        return None
    msg = None
    if records or facts:
        with c.db.session() as s:
            conn = s.connection()
            conn.exec_driver_sql(f"UPDATE record SET pending = pending | {int(Stage.VECTORS)}")
            conn.exec_driver_sql("UPDATE fact SET indexed_at = NULL")
        c.vectors.reopen()
        msg = (f"the vector store in {c.settings.chroma_path} was missing or not the one Kith wrote; {records} record "
               f"vector(s) and {facts} fact vector(s) will be rebuilt from the database")
    claim_vector_store(c)
    return msg


def claim_vector_store(c) -> str:
    """Mark the current vector store as the one this database's vectors are in: a new random id written into
    the Chroma folder and into ``storemeta``.  Returns the id."""
    new_id = uuid.uuid4().hex
    c.vectors.write_store_id(new_id)
    with c.db.session() as s:
        row = s.get(StoreMeta, CHROMA_ID) or StoreMeta(key=CHROMA_ID, value=new_id)
        row.value = new_id
        s.add(row)
    return new_id


# ------------------------------------------------------------------------------------------- rows

def stored_already(s, records: Sequence, source: tuple[str, str] | None = None) -> list[bool]:
    """For each of ``records`` (``ingestors.base.Record``), whether it is stored already — or was, and a forget purged
    it (``core.store.forgetting.ForgottenRecord``): under its content hash, or under a hash an earlier version gave
    it (``known_hashes``) — for a record with a ``scope`` (a WhatsApp line) only a stored record whose thread is that
    scope (``ingestors.base.thread_scope``), since that hash did not name the chat (the same first line of two chats
    was one record); or it repeats an earlier one of ``records`` (the same file read twice in one import).

    A WhatsApp line's hash names its line number, and a new export of a long chat starts later (WhatsApp exports
    its latest 40,000 or 10,000 messages) or lost a deleted message: every line number moves.  So a chat line whose
    hash is not stored is also known when its chat (scope) holds a line of the same time and text from another
    file (``source``: ``(name, file hash)`` of the file being imported, whose own earlier batches do not count): the
    k-th such line of the records is known while the chat holds k of them.  Only with ``source`` (the import's check
    of a whole batch as read, ``app.operations.ingest``): the writer's check of what is left of it goes by hash.

    Also only with ``source``: a message a reply quotes (``attrs["quoted_in"]``) is known when its reply was stored
    whole by an import made before quotes were records (:func:`_quotes_in_whole_replies`), or when its mail is stored
    or among ``records`` (:func:`_quotes_of_mails`)."""
    from ingestors.base import thread_scope

    from core.store.forgetting import ForgottenRecord

    hashes = sorted({h for r in records for h in r.known_hashes})
    threads: dict[str, set] = {}
    for i in range(0, len(hashes), 500):
        for h, th in s.exec(select(RecordRow.content_hash, RecordRow.thread).where(
                RecordRow.content_hash.in_(hashes[i:i + 500]))).all():
            threads.setdefault(h, set()).add(th)
        for h in s.exec(select(ForgottenRecord.content_hash).where(
                ForgottenRecord.content_hash.in_(hashes[i:i + 500]))).all():
            threads.setdefault(h, set()).add(None)  # purged by a forget: known, never stored again
    out: list[bool] = []
    seen: set[str] = set()
    for r in records:
        olds = [h for h in r.known_hashes[1:] if h in threads and (
            not r.scope or None in threads[h] or r.scope in {thread_scope(t) for t in threads[h]})]
        out.append(r.content_hash in threads or bool(olds) or bool(seen.intersection(r.known_hashes)))
        seen.add(r.content_hash)
        if not r.scope:
            seen.update(r.known_hashes)
    lines = [i for i, r in enumerate(records) if (r.scope or "").startswith("whatsapp:") and r.sent_at is not None] \
        if source is not None else []
    if any(not out[i] for i in lines):
        for i, known in zip(lines, _chat_lines_stored(s, [records[i] for i in lines], [out[i] for i in lines],
                                                      source)):
            out[i] = known
    if source is not None:
        _quotes_in_whole_replies(records, out, threads)
    quotes = [i for i, r in enumerate(records) if not out[i] and "quoted_in" in r.attrs and source is not None]
    if quotes:
        for i, known in zip(quotes, _quotes_of_mails(s, [records[i] for i in quotes],
                                                      [r for r in records if "quoted_in" not in r.attrs], records)):
            out[i] = known
    return out


def _quotes_in_whole_replies(records: Sequence, out: list[bool], stored: dict) -> None:
    """Mark known (in ``out``) the quotes (``attrs["quoted_in"]``) of each reply among ``records`` that an import made
    before quotes were records stored whole, its quote in its text (under its ``former_text``'s hash, ``stored``
    holding it, not under its own): that text holds the quote's words already — a quote record would say them twice,
    whether or not the mail it quotes is stored.  A quote quoted in such a quote is marked too."""
    whole: set[str] = set()
    for i, r in enumerate(records):
        if "quoted_in" in r.attrs and r.attrs["quoted_in"] in whole:
            out[i] = True
            whole.add(r.external_id)  # the message the quote quotes in turn was in that text too
        elif r.former_text is not None and r.attrs.get("quoted") and r.content_hash not in stored \
                and r._file_hash(r.sent_at, r.former_text) in stored:  # (the hash known_hashes gives former_text)
            whole.add(r.external_id)


QUOTE_WINDOW_S = 36 * 3600
"""How far from a quoted message's time (read from the reply's attribution line, often in the replier's zone or
none) its original mail may be: ±36 h covers any zone offset and a day's rounding."""


def _words(text: str | None) -> str:
    return " ".join(re.sub(r"(?m)^\s*>+", " ", text or "").split()).casefold()


def _fragments(text: str | None) -> list[str]:
    """The words (:func:`_words`) of a quote's lines of 20 characters or more, the first 12: an interleaved reply
    quotes its original in pieces, which the quote's record joins, and a list's footer may come with it, so the
    lines, not the whole, are matched against the original's words (:func:`_holds`)."""
    lines = [_words(line) for line in (text or "").splitlines()]
    return [w for w in lines if len(w) >= 20][:12]


def _holds(words: str, fragments: Sequence[str]) -> bool:
    """Whether a mail's ``words`` are a quote's original by its ``fragments`` (:func:`_fragments`): its first line,
    and lines of at least 60 % of its characters, are in them (a list's footer or the replier's cuts aside)."""
    if not fragments or fragments[0] not in words:
        return False
    held = sum(len(f) for f in fragments if f in words)
    return held >= 0.6 * sum(len(f) for f in fragments)


UNDATED_QUOTE_S = 30 * 86400
"""A quote whose attribution gives no date ("William, … wrote:") is matched against the mails of the 30 days before
its reply (what it quotes came before it)."""


def _original_window(s, q, by_ext: dict) -> tuple | None:
    """When quote ``q``'s original was written: ``(earliest, latest, its time)`` UTC — within :data:`QUOTE_WINDOW_S`
    of the quote's own time, or, undated, within :data:`UNDATED_QUOTE_S` before the message quoting it (or quoting the
    quote that quotes it …), found in ``by_ext`` (records by external id) or, with a session ``s``, stored.  None
    when nothing dates it."""
    if q.sent_at is not None:
        t, span = clock.ensure_utc(q.sent_at), timedelta(seconds=QUOTE_WINDOW_S)
        return t - span, t + span, t
    up = q
    for _ in range(8):
        ext = (up.attrs or {}).get("quoted_in")
        up = by_ext.get(ext)
        if up is None:
            got = s.exec(select(RecordRow.sent_at).where(RecordRow.external_id == ext)).first() \
                if s is not None and ext else None
            if got is None:
                return None
            t = clock.ensure_utc(got)
            break
        if up.sent_at is not None:
            t = clock.ensure_utc(up.sent_at)
            break
    else:
        return None
    return t - timedelta(seconds=UNDATED_QUOTE_S), t, t


def _same_writer(s, entity_ids) -> Callable[[int | None, int | None], bool]:
    """Whether two sender entity ids (of ``entity_ids``) are one writer: the same entity or name, or either unknown
    (a quote's writer is often named in its attribution line only)."""
    names = _names(s, {e for e in entity_ids if e})
    return lambda a, b: (a is None or b is None or a == b
                         or (names.get(a) or "").casefold() == (names.get(b) or "#").casefold())


def _quotes_of_mails(s, quotes: Sequence, batch: Sequence, read: Sequence = ()) -> list[bool]:
    """Whether each of ``quotes`` (messages replies quote, ``ingestors.mbox``: ``attrs["quoted_in"]``) is a mail
    stored already (or a quote of it stored already), or among ``batch`` (this import's records being checked), or
    an earlier quote among ``quotes`` (two replies quoting one message): a mail in :func:`_original_window` whose
    words hold the quote's lines (:func:`_holds`; whitespace and ">" marks aside) — the original of a reply is usually
    in the same mailbox, and is the better record (its own time and id).  ``read``: every record of the import's
    batch (an undated quote's reply may be a quote known already).  One query per stretch of overlapping windows;
    each mail's words are read once."""
    by_ext = {r.external_id: r for r in [*read, *batch, *quotes]}
    wants = [(_fragments(q.text), _original_window(None, q, by_ext)) for q in quotes]
    if not any(w and win for w, win in wants):
        return [False] * len(quotes)
    mails = [(clock.ensure_utc(r.sent_at), _words(r.text)) for r in batch if r.kind == "email" and r.sent_at is not None]
    for lo, hi in _spans([win[:2] for w, win in wants if w and win]):  # one query per stretch
        mails += [(clock.ensure_utc(t), _words(text)) for t, text in s.exec(
            select(RecordRow.sent_at, RecordRow.text).where(RecordRow.kind == "email", RecordRow.sent_at >= lo,
                                                            RecordRow.sent_at <= hi)).all()]
    out: list[bool] = []
    for q, (w, win) in zip(quotes, wants):
        known = win is not None and any(win[0] <= at <= win[1] and _holds(words, w) for at, words in mails)
        out.append(known)
        if not known and q.sent_at is not None:  # kept: a later quote of the same words is known by it
            mails.append((clock.ensure_utc(q.sent_at), _words(q.text)))
    return out


def _spans(windows: Sequence[tuple]) -> list[list]:
    """``(earliest, latest)`` windows (UTC) merged where they overlap."""
    spans: list[list] = []
    for lo, hi in sorted(windows):
        if spans and lo <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], hi)
        else:
            spans.append([lo, hi])
    return spans


def _windows(times: Sequence) -> list[list]:
    """``times`` (UTC) as the stretches their ±:data:`QUOTE_WINDOW_S` windows cover, overlapping ones merged."""
    span = timedelta(seconds=QUOTE_WINDOW_S)
    return _spans([(t - span, t + span) for t in times])


def retire_quotes(s, new_rows: Sequence[tuple[int, object]], senders: dict[int, int | None]) -> list[tuple[int, int]]:
    """Retire the quote records (``attrs["quoted_in"]``, ``ingestors.mbox``) stored before the mails they quote,
    when those mails are among ``new_rows`` — a reply's mailbox imported before the original's.  The original mail
    is the better record (its own time and id), as :func:`stored_already` keeps it when it comes first.

    A stored quote is retired in favour of a new mail (its episode and the quote's already inserted, in the caller's
    transaction ``s``) when it is of the same writer (the same sender entity, the same name, or either unknown), within
    :data:`QUOTE_WINDOW_S` of the mail's time, and the mail's words hold the quote's lines (:func:`_holds`), as
    :func:`_quotes_of_mails` matches them.  Nothing is deleted: the quote's
    episode is superseded by the mail's (recall shows the words once, from the mail), the quote record's
    ``attrs["duplicate_of"]`` names the mail's record id, and an ``episode_superseded`` learning event says so
    (``core.memory.events``), as ``core.memory.episodes.EpisodicMemory.supersede`` marks a supersession.

    Args:
        s: the rows stage's session.  new_rows: ``(record id, ingestors.base.Record)`` of the records just inserted.
        senders: record id → sender entity id (or None) of ``new_rows``.
    Returns:
        ``(quote episode id, mail episode id)`` for each quote retired.
    """
    from core.memory.events import log_event

    mails = [(rid, clock.ensure_utc(rec.sent_at), rec.text) for rid, rec in new_rows
             if rec.kind == "email" and rec.sent_at is not None and "quoted_in" not in (rec.attrs or {})
             and len(rec.text or "") >= 20]
    early = _new_quotes_of_stored(s, new_rows, senders)
    if not mails and not early:
        return []
    span = timedelta(seconds=QUOTE_WINDOW_S)
    mail_ids = {rid for rid, _t, _w in mails}
    quotes: dict[int, tuple] = {}
    for lo, hi in _windows([t for _r, t, _w in mails]):
        for qid, t, text, who in s.exec(
                select(RecordRow.id, RecordRow.sent_at, RecordRow.text, RecordRow.sender_entity_id)
                .join(Episode, Episode.record_id == RecordRow.id)
                .where(RecordRow.kind == "email", RecordRow.sent_at >= lo, RecordRow.sent_at <= hi,
                       RecordRow.tombstoned_at.is_(None), Episode.superseded_by.is_(None),
                       Episode.tombstoned_at.is_(None), RecordRow.attrs["quoted_in"].as_string().is_not(None))).all():
            if qid not in mail_ids and (w := _fragments(text)):
                quotes[qid] = (clock.ensure_utc(t), w, who)
    if not quotes and not early:
        return []
    mails = [(rid, t, _words(text)) for rid, t, text in mails]  # each mail's words read once, only when needed
    same = _same_writer(s, [*senders.values(), *(q[2] for q in quotes.values())])
    pairs: dict[int, int] = {}
    for qid, (t, w, who) in quotes.items():
        found = [(abs(at - t), rid) for rid, at, words in mails
                 if abs(at - t) <= span and _holds(words, w) and same(who, senders.get(rid))]
        if found:
            pairs[qid] = min(found)[1]  # the mail nearest the quote's time
    pairs.update({q: m for q, m in early.items() if q not in pairs})
    if not pairs:
        return []
    ids = [*pairs, *set(pairs.values())]
    episode = {rid: eid for eid, rid in s.exec(select(Episode.id, Episode.record_id).where(
        Episode.record_id.in_(ids), Episode.tombstoned_at.is_(None))).all()}
    out: list[tuple[int, int]] = []
    for qid, mid in pairs.items():
        old, new = episode.get(qid), episode.get(mid)
        row = s.get(RecordRow, qid)
        row.attrs = {**(row.attrs or {}), "duplicate_of": mid}
        if old is None or new is None:  # an undated quote has no episode: the record says it, recall never had it
            continue
        s.get(Episode, old).superseded_by = new
        log_event(s, "episode_superseded", f"episode:{old}", by=new, record=qid, duplicate_of=mid,
                  reason="a quote of a mail that is stored: the mail itself stands")
        out.append((old, new))
    s.flush()
    return out


def _new_quotes_of_stored(s, new_rows: Sequence[tuple[int, object]], senders: dict[int, int | None]) -> dict[int, int]:
    """The quotes among ``new_rows`` whose mail was stored before them — by an earlier batch of the same import, which
    :func:`stored_already` may have checked before that batch was written — as ``{quote record id: mail record id}``:
    a stored mail (not a quote) of the same writer in :func:`_original_window` whose words hold the quote's lines
    (:func:`_holds`), the nearest to the quote's time."""
    new_ids = {rid for rid, _rec in new_rows}
    by_ext = {rec.external_id: rec for _rid, rec in new_rows}
    wants = []  # (quote id, lines, (earliest, latest, time))
    for rid, rec in new_rows:
        if rec.kind == "email" and "quoted_in" in (rec.attrs or {}) and (lines := _fragments(rec.text)) and \
                (win := _original_window(s, rec, by_ext)) is not None:
            wants.append((rid, lines, win))
    if not wants:
        return {}
    stored: list[tuple] = []
    for lo, hi in _spans([win[:2] for _q, _l, win in wants]):
        stored += [(mid, clock.ensure_utc(t), _words(text), who) for mid, t, text, who in s.exec(
            select(RecordRow.id, RecordRow.sent_at, RecordRow.text, RecordRow.sender_entity_id)
            .where(RecordRow.kind == "email", RecordRow.sent_at >= lo, RecordRow.sent_at <= hi,
                   RecordRow.tombstoned_at.is_(None), RecordRow.attrs["quoted_in"].as_string().is_(None))).all()
            if mid not in new_ids]
    if not stored:
        return {}
    same = _same_writer(s, [*senders.values(), *(m[3] for m in stored)])
    out: dict[int, int] = {}
    for qid, lines, (lo, hi, t) in wants:
        found = [(abs(at - t), mid) for mid, at, words, who in stored
                 if lo <= at <= hi and _holds(words, lines) and same(senders.get(qid), who)]
        if found:
            out[qid] = min(found)[1]
    return out


def _chat_lines_stored(s, records: Sequence, known: Sequence[bool], source: tuple[str, str] | None) -> list[bool]:
    """:func:`stored_already`'s fallback for chat lines: whether each is a stored line of its chat by time and
    text (not by line number), counting each stored line once — first for the lines ``known`` by their hash, then
    for the others in order."""
    from collections import Counter

    from ingestors.base import thread_scope

    times = sorted({clock.ensure_utc(r.sent_at) for r in records})
    held: Counter = Counter()
    for i in range(0, len(times), 500):
        q = select(RecordRow.thread, RecordRow.sent_at, RecordRow.text).join(
            Source, Source.id == RecordRow.source_id).where(
            RecordRow.sent_at.in_(times[i:i + 500]), RecordRow.thread.like("whatsapp:%"))
        if source is not None:
            q = q.where(~((Source.path == source[0]) & (Source.content_hash == source[1])))
        for th, t, text in s.exec(q).all():
            held[(thread_scope(th), clock.ensure_utc(t), text or "")] += 1
    keys = [(r.scope, clock.ensure_utc(r.sent_at), r.text or "") for r in records]
    for key, k in zip(keys, known):
        if k and held[key] > 0:
            held[key] -= 1
    out = []
    for key, k in zip(keys, known):
        out.append(k or held[key] > 0)
        if not k and held[key] > 0:
            held[key] -= 1
    return out


def rows_stage_sources(c, path: Path, file_hash: str, kind: str, s, cite: str | None = None) -> Source:
    """The Source row of ``path`` with ``file_hash`` (created when new), inside session ``s``; named ``cite``
    instead of the path when given (a zip member, read from a temporary file: ``archive.zip/member``)."""
    name = cite or str(path)
    src = s.exec(select(Source).where(Source.path == name, Source.content_hash == file_hash)).first()
    if src is None:
        src = Source(kind=kind, path=name, content_hash=file_hash, size=path.stat().st_size)
        s.add(src)
        s.flush()
    return src


@dataclass
class RowsOutcome:
    """What the rows stage stored: new record ids (in order), how many were already known, and the
    vectors of the new records (record id → float32 (384,)) for the stages after the commit."""

    added: list[int] = field(default_factory=list)
    skipped: int = 0
    vectors: dict[int, np.ndarray] = field(default_factory=dict)


def rows_stage(c, path: Path, file_hash: str, kind: str, batch: Sequence[tuple],
               cite: str | None = None) -> RowsOutcome:
    """The rows stage for one batch, in one SQLite transaction (writer thread).

    Args:
        c: the container.
        path: the file the records came from; file_hash: its SHA-256; kind: the ingestor's name.
        cite: the source's name when it is not ``path`` (a zip member: ``archive.zip/member``).
        batch: ``(ingestors.base.Record, vector float32 (384,) or None)`` pairs.

    Returns:
        :class:`RowsOutcome`.  Records whose content hash is already stored are skipped (their unfinished
        stages, if any, are completed by :func:`complete_pending`, never lost).

    Raises:
        whatever the store raises; nothing of the batch is then committed.
    """
    from core import clock
    from core.graph.owner import owner as current_owner
    from core.graph.parties import resolve_parties

    region = c.settings.default_region
    owner_emails = list(c.settings.owner_emails)
    out = RowsOutcome()
    now = clock.now()
    cache: dict = {}  # each distinct identified party resolved once per batch (core.graph.parties)

    with c.db.session() as s:
        src = rows_stage_sources(c, path, file_hash, kind, s, cite)
        conn = s.connection()
        new_rows: list[tuple[int, object]] = []
        senders: dict[int, int | None] = {}  # new record id → its sender entity (for :func:`retire_quotes`)
        repeating: list = []
        episodes: list[dict] = []
        fts: list[dict] = []
        stored = stored_already(s, [rec for rec, _ in batch])  # an older import's hash of it counts too
        insert_record = RecordRow.__table__.insert()  # one compiled statement for the batch
        entities = EntityCache(s)
        for (rec, vec), known in zip(batch, stored):
            h = rec.content_hash
            if known:
                out.skipped += 1
                continue
            # who: sender, recipients, list, place — the identity step (core/graph/parties.py, issue 13)
            parties = resolve_parties(s, rec, region, c.settings.owner_name, owner_emails, c.names, cache)
            sender_id, place_id = parties.sender_id, parties.place_id
            attrs = dict(rec.attrs)
            if rec.notes:
                attrs["notes"] = list(rec.notes)
            todo = Stage.VECTORS
            if rec.kind == "photo" and place_id is not None and rec.sent_at is not None:
                todo |= Stage.EVENTS
            s.flush()  # what resolution added (entities, aliases) is in the transaction before the record cites it
            rid = int(conn.execute(insert_record, dict(
                source_id=src.id, external_id=rec.external_id, kind=rec.kind, sender_entity_id=sender_id,
                sent_at=clock.ensure_utc(rec.sent_at), utc_offset=clock.offset_minutes(rec.sent_at),
                subject=rec.subject, text=rec.text, thread=rec.thread,
                place_entity_id=place_id, content_hash=h, attrs=attrs, pending=int(todo))).inserted_primary_key[0])
            parties.write_links(s, rid, conn)
            episodes.append({"record_id": rid, "text": embed_text(rec.subject, rec.text),
                             "t_valid": clock.ensure_utc(rec.sent_at), "t_recorded": now,
                             "provenance": f"{cite or path}#{rec.external_id}", "confidence": 1.0})
            record_facts(s, rec, rid, sender_id, place_id, c.names, c.fact_extractor, parties.recipients, repeating,
                         entities)
            fts.append({"id": rid, "s": rec.subject or "", "b": rec.text, "p": _people_text(rec)})
            new_rows.append((rid, rec))
            senders[rid] = sender_id
            out.added.append(rid)
            if vec is not None:
                out.vectors[rid] = vec
        if episodes:
            conn.execute(Episode.__table__.insert(), episodes)
        retired = retire_quotes(s, new_rows, senders)  # a quote stored before the mail it quotes: the mail stands
        if fts:
            search.index_records(conn, fts)
        if repeating:
            from core.graph.facts import write_facts

            write_facts(s, _live_drafts(s, repeating))
        owner_known = bool(c.settings.owner_name or owner_emails or current_owner(s))
        # Mail threads teach how people reply to the owner only when Kith knows who the owner is.
        convo = [rid for rid, rec in new_rows
                 if rec.thread and rec.sender and (rec.kind == "chat" or (rec.kind == "email" and owner_known))]
        for i in range(0, len(convo), 500):
            part = ",".join(str(x) for x in convo[i:i + 500])
            conn.exec_driver_sql(f"UPDATE record SET pending = pending | {int(Stage.LEDGER)} WHERE id IN ({part})")
    if retired:
        from app.memory import loaded_service

        svc = loaded_service(c)
        if svc is not None:  # a loaded memory index keeps step (SQLite says it for the next load)
            svc.mem.superseded_in_index([q for q, _m in retired], now)
    return out


def _live_drafts(s, drafts: list) -> list:
    """``drafts`` (kept for the end of a batch) with each entity a later record of the batch merged away replaced by
    the one it was merged into — a signature's mobile joins two addresses after the first one's "writes from" was
    drafted — unless the merge is held (its facts wait on that identity for the person's word).  Changes the
    drafts in place and returns them."""
    from core.graph.merge import live_survivor
    from core.graph.resolution import held_merge

    live: dict[int, int] = {}

    def of(eid: int) -> int:
        if eid not in live:
            e = s.get(Entity, eid)
            w = live_survivor(s, eid) if e is not None and e.tombstoned_at is not None \
                and held_merge(s, eid) is None else None
            live[eid] = w.id if w is not None else eid
        return live[eid]

    for d in drafts:
        d.subject_id = of(d.subject_id)
        d.links = [(of(eid), role) for eid, role in d.links]
        if d.key.startswith("writes_to:") and d.key[10:].isdigit():
            d.key = f"writes_to:{of(int(d.key[10:]))}"
    return [d for d in drafts if not (d.key.startswith("writes_to:") and d.key == f"writes_to:{d.subject_id}")]


def _people_text(rec) -> str:
    card = (rec.attrs or {}).get("card") if rec.kind == "contact" else None
    if isinstance(card, dict):  # a contact card: every name it gives the person (FTS "people" column)
        return " ".join(dict.fromkeys([*card.get("names", []), *card.get("nicknames", [])])).strip()
    parties = ([rec.sender] if rec.sender else [])
    return " ".join(filter(None, ((p.name or "") + " " + (p.address or "") for p in parties))).strip()


def card_facts(rec, record_id: int, entity_id: int, name: str) -> list:
    """The facts a contact card states about its person (``attrs["card"]``, ``ingestors/contacts.py``):
    employer and job title (domain ``work``, category ``employment``), department, and birthday
    (``identity``/``birthday``, ``"YYYY-MM-DD"`` or ``"--MM-DD"``), each "as of" the card's ``REV`` or the
    file's export time, with confidence 0.9 (the person's own address book; seed 002's facts pipeline
    dedupes and supersedes them as any other: an edited card's new employer supersedes the old one).

    Returns:
        ``core.graph.facts.FactDraft`` items (none for an organisation's card).
    """
    from datetime import datetime

    from core.graph.facts import FactDraft, as_of_statement

    card = (rec.attrs or {}).get("card") or {}
    if card.get("kind") == "organisation":
        return []
    try:
        when = datetime.fromisoformat(card["as_of"]) if card.get("as_of") else None
    except ValueError:
        when = None
    where = f"contact card {card.get('contact_id', '')}"
    out = []

    def add(category: str, key: str, value: str, sentence: str, excerpt: str, domain: str = "work") -> None:
        out.append(FactDraft(subject_id=entity_id, domain=domain, category=category, key=key, value=value,
                             statement=as_of_statement(when, sentence), confidence=0.9, valid_from=when,
                             record_id=record_id, excerpt=f"{excerpt} ({where})", by_arrival=True))
    if card.get("org"):
        add("employment", "employer", card["org"], f"{name} works at {card['org']}.", f"ORG: {card['org']}")
    if card.get("title"):
        add("employment", "title", card["title"], f"{name}'s job title is {card['title']}.", f"TITLE: {card['title']}")
    if card.get("department"):
        add("employment", "department", card["department"], f"{name} works in {card['department']}.",
            f"ORG: {card.get('org', '')}; {card['department']}")
    if card.get("birthday"):
        b = card["birthday"]
        add("birthday", "birthday", b, f"{name}'s birthday is {b.lstrip('-')}.", f"BDAY: {b}", domain="identity")
    return out


class EntityCache:
    """Entities looked up once per batch (``s.get`` on every message flushed the session each time)."""

    def __init__(self, s):
        self.s = s
        self._got: dict[int, Entity | None] = {}

    def get(self, eid: int | None) -> Entity | None:
        if eid is None:
            return None
        if eid not in self._got:
            self._got[eid] = self.s.get(Entity, eid)
        return self._got[eid]


MASS_MAIL_RECIPIENTS = 10
"""A mail to more people than this (To and Cc) says nothing about who writes to whom — a newsletter, a
circular, spam sent to a list of strangers (the corpus's spam mail, to 21 addresses, had made 21 "wrote to"
facts and put its sender first on the knowledge map): no per-recipient correspondence facts for it."""


def record_facts(s, rec, record_id: int, sender_id: int | None, place_id: int | None,
                 names=None, extractor=None, recipients: Sequence[tuple[int, str]] = (),
                 repeating: list | None = None, entities: EntityCache | None = None) -> None:
    """Deterministic facts: a sender's email address; a photo taken at a place; what the text says
    about its writer, their relatives and named people (core/extraction/personal_facts.py; of a mail, only
    its writer's own lines: core/extraction/quoted.py's ``own_words``); and what a
    contact card states about its person (:func:`card_facts`).

    ``repeating``: when given, the facts every message repeats (who wrote to whom, a sender's address)
    are appended to it as drafts, for the caller to write once per batch (``core.graph.facts.write_facts``)."""
    from core.extraction.personal_facts import extract_facts
    from core.extraction.quoted import own_words
    from core.graph.apply import apply_candidates
    from core.graph.facts import FactDraft, as_of_statement, write_fact

    def later(draft):
        if repeating is not None:
            repeating.append(draft)
        else:
            write_fact(s, draft)

    entities = entities or EntityCache(s)
    speaker = entities.get(sender_id)
    if rec.kind == "contact":  # a card states facts in fields, not sentences: no text extraction
        if speaker is not None:
            for draft in card_facts(rec, record_id, speaker.id, speaker.canonical_name):
                write_fact(s, draft)
        return
    # a mail's facts come from its writer's own lines, never the message it quotes or forwards
    text = own_words(rec.text) if rec.text and rec.kind == "email" else rec.text
    if speaker is not None and rec.kind == "chat" and not rec.attrs.get("is_from_me"):
        from core.graph.introductions import introduce

        introduce(s, speaker, text, rec.sent_at, record_id, names)  # "Hi, it's Jane, new number!"
    if text and text.strip() and rec.kind != "photo":
        order = rec.attrs.get("date_order")  # the order its mailbox or chat writes numeric dates in
        candidates = (extractor(text[:20000], rec.sent_at, speaker.canonical_name if speaker else None)
                      if extractor is not None else extract_facts(text[:20000], rec.sent_at, order))
        if rec.kind == "email" and extractor is None and speaker is not None:
            from core.extraction.signature import signature_job  # "Jane Doe\nHead of Finance, Acme Ltd"

            sender_name = rec.sender.name if rec.sender is not None else None
            candidates = list(candidates) + signature_job(text, sender_name or speaker.canonical_name, rec.sent_at)
        apply_candidates(s, candidates, speaker, record_id, rec.sent_at, names)
    mass = rec.kind == "email" and len({eid for eid, _ in recipients}) > MASS_MAIL_RECIPIENTS
    # a forwarded chat message ("forwarded_from": a bot, a channel, someone outside the chat) is its origin's
    # words, but the origin never wrote to this chat's people: the one who forwarded it did.  No "wrote to"
    # fact for the origin (one who forwards their own words did write to them)
    origin, poster = rec.attrs.get("forwarded_from"), rec.attrs.get("forwarded_by")
    forwarded = bool((isinstance(origin, str) and origin.strip()) or isinstance(poster, dict)) and not (
        isinstance(poster, dict) and rec.sender is not None
        and ((poster.get("id") and poster.get("id") == rec.sender.address)
             or (not poster.get("id") and poster.get("name") and poster.get("name") == rec.sender.name)))
    if sender_id and recipients and rec.kind in ("email", "chat") and not mass and not forwarded:
        # Who wrote to whom (seed 002): one fact per pair, reinforced by every further message.
        for rid in dict.fromkeys(eid for eid, _ in recipients):
            other = entities.get(rid)
            if other is None or other.id == sender_id or other.kind != "person":
                continue
            later(FactDraft(
                subject_id=sender_id, domain="relationships", category="correspondence",
                key=f"writes_to:{other.id}", value=other.canonical_name, confidence=0.3, valid_from=rec.sent_at,
                record_id=record_id, excerpt=(rec.subject or rec.text)[:200], links=[(other.id, "object")],
                statement=as_of_statement(rec.sent_at, f"{speaker.canonical_name} wrote to {other.canonical_name}"
                                          f"{' by ' + rec.kind if rec.kind == 'email' else ''}.")))
    from core.graph.entities import is_role_address

    if sender_id and rec.sender and rec.sender.address and rec.sender.address_kind == "email" and not (
            speaker is not None and speaker.kind == "person" and rec.sender.name
            and is_role_address(rec.sender.address)):  # "Ann Lee (via Google Docs)" <comments-noreply@…>: not hers
        from core.graph.entities import person_display_name

        who = rec.sender.name or rec.sender.address
        later(FactDraft(
            subject_id=sender_id, domain="identity", category="contact", key=f"email:{rec.sender.address.lower()}",
            value=rec.sender.address.lower(), confidence=0.6, valid_from=rec.sent_at, record_id=record_id,
            statement=as_of_statement(rec.sent_at, f"{person_display_name(who, mail=True)} writes from "
                                                   f"{rec.sender.address.lower()}."),  # "Lee, Ann" → "Ann Lee"
            excerpt=f"From: {who} <{rec.sender.address}>"))
    if place_id and rec.place is not None:
        day = rec.sent_at.date().isoformat() if rec.sent_at else "unknown"
        write_fact(s, FactDraft(
            subject_id=place_id, domain="places", category="visit", key=f"photographed:{day}",
            value=day, confidence=0.8, valid_from=rec.sent_at, record_id=record_id,
            statement=as_of_statement(rec.sent_at, f"{rec.place.name} was photographed."),  # one photo or more
            excerpt=rec.text[:200]))

"""Ingest: files → ingestors → Records → (writer thread) dedupe, resolve, facts, episodes, FTS, vectors.

Reading and embedding happen on the calling thread; every store write is
handed to the container's single writer.  A repeated import adds nothing
(records are keyed by content hash); a cancelled import keeps what it wrote
and a re-run skips it, so an interrupted import resumes where it stopped.
"""
from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from typing import Callable, Iterable

from sqlmodel import select

from app.container import Container
from app.operations.types import IngestError, IngestProgress, IngestReport
from core.errors import InputError
from core.extraction.personal_facts import extract_facts
from core.graph.apply import apply_candidates
from core.graph.facts import FactDraft, as_of_statement, write_fact
from core.graph.owner import ensure_owner, is_owner_address, owner as current_owner, set_owner
from core.graph.resolution import add_alias, resolve
from core.store import search
from core.store.collections import RECORDS
from core.store.schema import Entity, Episode, Evidence, QuarantineItem, Record as RecordRow, RecordEntity, Source
from ingestors.base import Record, RecordError
from ingestors.registry import expand_paths, ingestor_for, unsupported_reason

ProgressFn = Callable[[IngestProgress], None]
GMAIL_FILTERED = frozenset({"spam", "trash", "category promotions"})


def _file_hash(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def embed_text(rec: Record) -> str:
    """The text a record is embedded from: subject, then body (the encoder keeps the first 256 tokens)."""
    return "\n".join(p for p in (rec.subject, rec.text[:4000]) if p)


def vector_text(rec: Record) -> str:
    """The text a record's vector is computed from: :func:`embed_text` as its sender tells it,
    ``"Sender: …"`` in the third person (``core.extraction.text.speaker_view``; issue #4: questions
    name people, messages say "I").  Unchanged for records without a sender name (photos)."""
    from core.extraction.text import speaker_view

    return speaker_view(rec.sender.name if rec.sender is not None else None, embed_text(rec))


def _people_text(rec: Record) -> str:
    parties = ([rec.sender] if rec.sender else [])
    return " ".join(filter(None, ((p.name or "") + " " + (p.address or "") for p in parties))).strip()


def _write_batch(c: Container, path: Path, file_hash: str, kind: str,
                 batch: list[tuple[Record, object]]) -> tuple[int, int, list[str]]:
    """Writer-thread work for one batch: returns (added, skipped, warnings)."""
    try:
        return _write_batch_unguarded(c, path, file_hash, kind, batch)
    except BaseException:
        c.names.invalidate()  # the name index may hold entities of the rolled-back transaction
        raise


def _write_batch_unguarded(c: Container, path: Path, file_hash: str, kind: str,
                           batch: list[tuple[Record, object]]) -> tuple[int, int, list[str]]:
    region = c.settings.default_region
    owner_emails = list(c.settings.owner_emails)
    added_ids: list[tuple[int, object]] = []
    added_records: list[Record] = []
    warnings: list[str] = []
    skipped = 0
    with c.db.session() as s:
        src = s.exec(select(Source).where(Source.path == str(path), Source.content_hash == file_hash)).first()
        if src is None:
            src = Source(kind=kind, path=str(path), content_hash=file_hash, size=path.stat().st_size)
            s.add(src)
            s.flush()
        conn = s.connection()
        for rec, vec in batch:
            h = rec.content_hash
            if s.exec(select(RecordRow.id).where(RecordRow.content_hash == h)).first() is not None:
                skipped += 1
                continue
            links: list[tuple[int, str]] = []
            sender_id = place_id = None
            if rec.sender and (rec.attrs.get("is_from_me") or is_owner_address(rec.sender.address, owner_emails)):
                me = current_owner(s)
                real = rec.sender.name not in (None, "me", "Me") or rec.sender.address
                if me is None and real and not c.settings.owner_name and not owner_emails:
                    # No owner configured: the first "sent by me" message names them (Gmail's Sent label).
                    me = resolve(s, "person", rec.sender.name, rec.sender.address, rec.sender.address_kind,
                                 region, index=c.names).entity
                    set_owner(s, me)
                me = me or ensure_owner(s, c.settings.owner_name, owner_emails, c.names)
                if rec.sender.address:
                    add_alias(s, me, rec.sender.address_kind, rec.sender.address, region)
                sender_id = me.id
                links.append((sender_id, "from", "owner", 1.0))
            elif rec.sender and (rec.sender.name or rec.sender.address):
                r = resolve(s, "person", rec.sender.name, rec.sender.address, rec.sender.address_kind, region,
                            index=c.names)
                sender_id = r.entity.id
                links.append((sender_id, "from", r.signal, r.score))
            for p in rec.recipients:
                role = p.role if p.role in ("to", "cc", "member") else "to"
                if is_owner_address(p.address, owner_emails):
                    links.append((ensure_owner(s, c.settings.owner_name, owner_emails, c.names).id, role, "owner", 1.0))
                elif p.name or p.address:
                    r = resolve(s, "person", p.name, p.address, p.address_kind, region, index=c.names)
                    links.append((r.entity.id, role, r.signal, r.score))
            if rec.place is not None:
                g = rec.place
                r = resolve(s, "place", g.name, attrs={"lat": g.lat, "lon": g.lon, "locality": g.locality,
                                                      "region": g.region, "country": g.country,
                                                      "country_code": g.country_code})
                place_id = r.entity.id
                links.append((place_id, "place", r.signal, r.score))
            attrs = dict(rec.attrs)
            if rec.notes:
                attrs["notes"] = list(rec.notes)
            row = RecordRow(source_id=src.id, external_id=rec.external_id, kind=rec.kind, sender_entity_id=sender_id,
                            sent_at=rec.sent_at, subject=rec.subject, text=rec.text, thread=rec.thread,
                            place_entity_id=place_id, content_hash=h, attrs=attrs)
            s.add(row)
            s.flush()
            seen_links: set[tuple[int, str]] = set()
            for eid, role, signal, score in links:
                if (eid, role) not in seen_links:
                    seen_links.add((eid, role))
                    s.add(RecordEntity(record_id=row.id, entity_id=eid, role=role, signal=signal,
                                       score=round(float(score), 4)))
            s.add(Episode(record_id=row.id, text=embed_text(rec), t_valid=rec.sent_at,
                          provenance=f"{path}#{rec.external_id}", confidence=1.0))
            _record_facts(s, rec, row.id, sender_id, place_id, c.names, c.fact_extractor,
                          [(eid, role) for eid, role, _, _ in links if role in ("to", "cc", "member")])
            search.index_record(conn, row.id, rec.subject or "", rec.text, _people_text(rec))
            added_ids.append((row.id, vec))
            added_records.append(rec)
    if added_ids:
        import numpy as np

        from app.operations.graph import index_facts

        with c.db.session() as s:
            fact_ids = sorted(set(s.exec(select(Evidence.fact_id).where(
                Evidence.record_id.in_([rid for rid, _ in added_ids]))).all()))
        try:
            c.vectors.upsert(RECORDS, [f"record:{rid}" for rid, _ in added_ids],
                             np.stack([v for _, v in added_ids]),
                             [{"record_id": rid} for rid, _ in added_ids])
            index_facts(c, fact_ids)
        except Exception as exc:  # the rows are committed; say the vectors are missing rather than lose them
            warnings.append(f"vectors not written ({type(exc).__name__}: {exc}); keyword search still finds them")
    if added_ids:
        # Episodes get their HDC signatures (structured + gist), postings and a learning event (seed 001).
        from app.memory import remember_records

        with c.db.session() as s:
            rows = list(s.exec(select(RecordRow).where(RecordRow.id.in_([rid for rid, _ in added_ids]))).all())
        try:
            remember_records(c, rows)
        except Exception as exc:  # the records are stored; a memory-index failure is reported, not fatal
            warnings.append(f"memory signatures not written ({type(exc).__name__}: {exc})")
    with c.db.session() as s:
        owner_known = bool(c.settings.owner_name or owner_emails or current_owner(s))
    # Mail threads teach how people reply to the owner only when Kith knows who the owner is.
    conversational = [r for r in added_records if r.thread and (r.kind == "chat" or (r.kind == "email" and owner_known))]
    if conversational:
        # Communication signals from the conversation's shape (seed 000): who replied, how fast, who went silent —
        # chats and mail threads alike. Only newly added records, so a repeated import does not count twice.
        from app.personal import personal_service

        try:
            personal_service(c).learn_from_conversation(conversational)
        except Exception as exc:
            warnings.append(f"communication signals not learned ({type(exc).__name__}: {exc})")
    return len(added_ids), skipped, warnings


def _record_facts(s, rec: Record, record_id: int, sender_id: int | None, place_id: int | None,
                  names=None, extractor=None, recipients: list[tuple[int, str]] = ()) -> None:
    """Deterministic facts: a sender's email address; a photo taken at a place; and what the text says
    about its writer, their relatives and named people (core/extraction/personal_facts.py)."""
    if rec.text and rec.kind != "photo":
        speaker = s.get(Entity, sender_id) if sender_id else None
        candidates = (extractor(rec.text[:20000], rec.sent_at, speaker.canonical_name if speaker else None)
                      if extractor is not None else extract_facts(rec.text[:20000], rec.sent_at))
        apply_candidates(s, candidates, speaker, record_id, rec.sent_at, names)
    if sender_id and recipients and rec.kind in ("email", "chat"):
        # Who wrote to whom (seed 002): one fact per pair, reinforced by every further message.
        writer = s.get(Entity, sender_id)
        for rid in dict.fromkeys(eid for eid, _ in recipients):
            other = s.get(Entity, rid)
            if other is None or other.id == sender_id or other.kind != "person":
                continue
            write_fact(s, FactDraft(
                subject_id=sender_id, domain="relationships", category="correspondence",
                key=f"writes_to:{other.id}", value=other.canonical_name, confidence=0.3, valid_from=rec.sent_at,
                record_id=record_id, excerpt=(rec.subject or rec.text)[:200], links=[(other.id, "object")],
                statement=as_of_statement(rec.sent_at, f"{writer.canonical_name} wrote to {other.canonical_name}"
                                          f"{' by ' + rec.kind if rec.kind == 'email' else ''}.")))
    if sender_id and rec.sender and rec.sender.address and rec.sender.address_kind == "email":
        who = rec.sender.name or rec.sender.address
        write_fact(s, FactDraft(
            subject_id=sender_id, domain="identity", category="contact", key=f"email:{rec.sender.address.lower()}",
            value=rec.sender.address.lower(), confidence=0.6, valid_from=rec.sent_at, record_id=record_id,
            statement=as_of_statement(rec.sent_at, f"{who} writes from {rec.sender.address.lower()}."),
            excerpt=f"From: {who} <{rec.sender.address}>"))
    if place_id and rec.place is not None:
        day = rec.sent_at.date().isoformat() if rec.sent_at else "unknown"
        write_fact(s, FactDraft(
            subject_id=place_id, domain="places", category="visit", key=f"photographed:{day}",
            value=day, confidence=0.8, valid_from=rec.sent_at, record_id=record_id,
            statement=as_of_statement(rec.sent_at, f"a photo was taken at {rec.place.name}."),
            excerpt=rec.text[:200]))


def _quarantine(c: Container, errors: list[IngestError]) -> None:
    def write():
        with c.db.session() as s:
            for e in errors:
                s.add(QuarantineItem(path=e.path, locator=e.locator, reason=e.reason))
    if errors:
        c.writer.run(write)


def _existing_hashes(c: Container, hashes: list[str]) -> set[str]:
    found: set[str] = set()
    with c.db.session() as s:
        for i in range(0, len(hashes), 500):
            chunk = hashes[i:i + 500]
            found.update(s.exec(select(RecordRow.content_hash).where(RecordRow.content_hash.in_(chunk))).all())
    return found


def _ingest_file(c: Container, ing, path: Path, report: IngestReport, file_errors: list[IngestError],
                 batch_size: int, cancel: threading.Event | None, tick: Callable[[str], None]) -> None:
    """Stream one file's items in batches: dedupe by hash, embed the new ones, hand each batch to the writer."""
    try:
        file_hash = _file_hash(path)
    except OSError as exc:
        file_errors.append(IngestError(str(path), f"cannot read: {exc.strerror or exc}"))
        return
    pending: list[Record] = []

    def flush() -> None:
        known = _existing_hashes(c, [r.content_hash for r in pending])
        fresh = [r for r in pending if r.content_hash not in known]
        report.records_skipped += len(pending) - len(fresh)
        pending.clear()
        if fresh:
            vecs = c.encoder.encode([vector_text(r) for r in fresh])
            added, skipped, warnings = c.writer.run(_write_batch, c, path, file_hash, ing.name,
                                                    list(zip(fresh, vecs)))
            report.records_added += added
            report.records_skipped += skipped
            file_errors.extend(IngestError(str(path), w, "after import") for w in dict.fromkeys(warnings))
        tick(str(path))

    try:
        for item in ing.read(path):
            if isinstance(item, RecordError):
                file_errors.append(IngestError(item.path, item.reason, item.locator))
                continue
            labels = {x.strip().casefold() for x in str(item.attrs.get("gmail_labels", "")).split(",") if x.strip()}
            if labels & GMAIL_FILTERED:  # seed 002: Gmail Takeout spam, trash and promotions are not memories
                report.records_filtered += 1
                continue
            if "sent" in labels:
                item.attrs["is_from_me"] = True  # Gmail's own "Sent" label: the mailbox owner wrote it
            pending.append(item)
            if len(pending) >= batch_size:
                flush()
                if cancel is not None and cancel.is_set():
                    report.cancelled = True
                    return
        if pending:
            flush()
    except InputError as exc:
        file_errors.append(IngestError(str(path), exc.reason, exc.locator or ""))
    except Exception as exc:  # a parser bug must not take the rest of the import down
        file_errors.append(IngestError(str(path), f"could not be read ({type(exc).__name__}: {exc})"))


def ingest(c: Container, paths: Iterable[str | Path], progress: ProgressFn | None = None,
           cancel: threading.Event | None = None) -> IngestReport:
    """Ingest files and folders.

    Args:
        c: the services.
        paths: files and/or folders (folders are walked recursively; hidden files skipped).
        progress: called after each batch and each file with an :class:`IngestProgress`.
        cancel: when set, the import stops after the current batch; what was written stays.

    Returns:
        :class:`IngestReport` — files read, records added, records skipped (already known),
        and per-file / per-item errors (also kept in the quarantine table).  Never raises
        for bad input: a bad file is an error in the report.
    """
    report = IngestReport()
    given = [Path(p).expanduser().resolve() for p in paths]  # sources are cited by absolute path
    missing = [str(p) for p in given if not p.exists()]
    files = expand_paths([p for p in given if p.exists()])
    for m in missing:
        report.errors.append(IngestError(m, "no such file or folder"))
    batch_size = max(1, c.settings.ingest_batch_size)
    pool = c.ingestors()
    fallbacks_before = getattr(getattr(c.fact_extractor, "stats", None), "fallbacks", 0)

    def tick(current: str) -> None:
        if progress:
            progress(IngestProgress(report.files, len(files), current, report.records_added,
                                    report.records_skipped, len(report.errors)))

    for path in files:
        if cancel is not None and cancel.is_set():
            report.cancelled = True
            break
        tick(str(path))
        file_errors: list[IngestError] = []
        try:
            ing = ingestor_for(path, pool)
        except InputError as exc:  # the file's first bytes could not even be read
            ing = None
            file_errors.append(IngestError(str(path), exc.reason))
        if ing is None and not file_errors:
            file_errors.append(IngestError(str(path), unsupported_reason(path)))
        elif ing is not None:
            _ingest_file(c, ing, path, report, file_errors, batch_size, cancel, tick)
        report.errors += file_errors
        _quarantine(c, file_errors)
        report.files += 1
        if report.cancelled:
            break
    stats = getattr(c.fact_extractor, "stats", None)
    if stats is not None:
        report.extraction_fallbacks = stats.fallbacks - fallbacks_before
    if report.records_added:
        from app.operations.events import refresh_photo_events

        refresh_photo_events(c)
    tick("")
    return report

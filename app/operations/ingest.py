"""Ingest: files → ingestors → Records → the staged pipeline (``app/pipeline.py``).

Reading, parsing and the one encoding of each record's text happen on the calling thread; every
store write is handed to the container's single writer, one batch at a time, while the next batch
is read and encoded (two batches in flight at most, so memory stays flat however long the file).
Each batch's writes hold the data folder's writer lock (``core.store.lock``) for as long as they take:
another Kith process that wants to write waits at most one batch, and two imports into one folder
take turns batch by batch (each reloads what it keeps in memory when it finds the other has written).

A repeated import adds nothing (records are keyed by content hash); a cancelled, killed or failed
import keeps what it committed, and the stages it left undone are completed by the next import
(:func:`app.pipeline.complete_pending`) or by ``kith doctor --repair``.
"""
from __future__ import annotations

import codecs
import hashlib
import os
import re
import shutil
import tempfile
import threading
from concurrent.futures import Future
from dataclasses import replace
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Callable, Iterable

from sqlmodel import func, select

from app import pipeline
from app.container import Container
from app.operations.types import IngestError, IngestProgress, IngestReport
from core import clock
from core.errors import InputError
from core.store.schema import QuarantineItem, Record as RecordRow
from ingestors.base import Record, RecordError
from ingestors.archives import archive_members, is_compressed, is_tar, is_zip
from ingestors.registry import expand_inputs, ingestor_for, read_head, unsupported_reason

ProgressFn = Callable[[IngestProgress], None]
GMAIL_FILTERED = frozenset({"spam", "trash", "category promotions"})
ADDRESS_BOOK_SUFFIXES = frozenset({".vcf", ".vcard"})  # read first (ingestors/contacts.py)
MEDIA_SUFFIXES = frozenset({".jpg", ".jpeg", ".jpe", ".tif", ".tiff", ".heic", ".heif", ".png", ".webp", ".m4a",
                            ".mp3", ".wav", ".flac", ".ogg", ".opus", ".aac", ".amr", ".caf", ".webm", ".mp4", ".mov",
                            ".m4v", ".3gp"})  # read last, after the chats that sent them
CHAT_SUFFIXES = frozenset({".txt"})  # then chat exports (WhatsApp's), before the media they sent


def _file_hash(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _is_zip_head(path: Path) -> bool:
    try:
        return is_zip(path, read_head(path, 4))
    except InputError:
        return False


def embed_text(rec: Record) -> str:
    """The text a record is embedded from: subject, then body (``app.pipeline.embed_text``)."""
    return pipeline.embed_text(rec.subject, rec.text)


def vector_text(rec: Record) -> str:
    """The text a record's vector is computed from (``app.pipeline.vector_text``): :func:`embed_text` as
    its sender tells it, ``"Sender: …"`` in the third person.  Unchanged for records without a sender name.  A mail
    whose From its mailing list rewrote (``"'Ann Lee' via Hikers" <hikers@…>``) is told by its author
    (``core.graph.parties.list_author``: ``"Ann Lee: …"``)."""
    from core.graph.parties import list_author

    sender = list_author(rec.sender, rec.attrs or {}) if rec.kind == "email" else rec.sender
    return pipeline.vector_text(sender.name if sender is not None else None, rec.subject, rec.text)


def _store_batch(c: Container, path: Path, file_hash: str, kind: str, batch: list[tuple[Record, object]],
                 defer: bool = False, cite: str | None = None):
    """Writer-thread work for one batch: the rows stage (one transaction), then the post-commit stages.
    ``cite``: the source's name when it is not ``path`` itself (a zip member: ``archive.zip/member``).

    Returns:
        (records added, records already known, warnings of post-commit stages left for later)."""
    try:
        out = pipeline.rows_stage(c, path, file_hash, kind, batch, cite=cite)
    except BaseException:
        c.names.invalidate()  # the name index may hold entities of the rolled-back transaction
        raise
    warnings = pipeline.after_rows(c, out.added, out.vectors) if out.added and not defer else []
    if out.added:
        c.lock.touch()  # readers in other processes (the window) pick up the new batch
    return len(out.added), out.skipped, warnings


def _quarantine(c: Container, errors: list[IngestError]) -> None:
    def write():
        with c.db.session() as s:
            for e in errors:
                s.add(QuarantineItem(path=e.path, locator=e.locator, reason=e.reason))
    if errors:
        c.writer.run(write)


def _photos_known_by_bytes(c: Container, records: list[Record]) -> set[str]:
    """The ``content_hash`` of each photo among ``records`` whose file's bytes (``attrs["sha256"]``) an earlier
    import already holds as a live photo: a photo's identity is its bytes, and a version of Kith that hashed a
    photo by its name, time and caption stored another hash for the same picture (a repeated import must add
    nothing, whatever version made the first)."""
    photos = {r.attrs["sha256"]: r.content_hash for r in records if r.kind == "photo" and r.attrs.get("sha256")}
    if not photos:
        return set()
    from core.store import dialect

    found: set[str] = set()
    raw = dialect.read_connection(c.db.engine)
    try:
        cur = raw.cursor()
        digests = list(photos)
        for i in range(0, len(digests), 500):
            chunk = digests[i:i + 500]
            where, params = dialect.in_list(cur, "s.content_hash", chunk)
            rows = cur.execute(f"SELECT DISTINCT s.content_hash FROM source s JOIN record r ON r.source_id = s.id "
                               f"WHERE {where} AND r.kind = 'photo' AND r.tombstoned_at IS NULL", params).fetchall()
            found.update(photos[d] for (d,) in rows)
    finally:
        raw.close()
    return found


def _shot(kind: str, name: str | None, attrs: dict | None) -> tuple | None:
    """What names the shot a photo file holds, whatever its format: (file stem, camera model, DateTimeOriginal as
    written, sub-second) — ``IMG_1234.HEIC`` and the ``IMG_1234.JPG`` exported from it share it; None for a record
    that is not a photo, or has no camera model or capture time (a scan, a screenshot: nothing to tell two shots
    apart by).  ``name``: the file name (the photo record's ``external_id``)."""
    a = attrs or {}
    if kind != "photo" or not a.get("camera_model") or not a.get("datetime_original"):
        return None
    return (Path(name or "").stem.casefold(), a["camera_model"], a["datetime_original"], a.get("subsec_us"))


def _photos_known_by_shot(c: Container, records: list[Record]) -> set[str]:
    """The ``content_hash`` of each photo among ``records`` that is another file of a shot a live photo already
    holds (:func:`_shot`: an iPhone's HEIC original and its JPEG export, same stem, camera and capture time to the
    sub-second, sent at the same instant): one shot is one record.  Reads the photos sent at that instant only
    (``record.sent_at`` is indexed)."""
    from core.store.schema import Record as Row

    want = [(r, _shot(r.kind, r.external_id, r.attrs)) for r in records if r.sent_at is not None]
    want = [(r, key) for r, key in want if key is not None]
    if not want:
        return set()
    found: set[str] = set()
    with c.db.session() as s:
        for r, key in want:
            rows = s.exec(select(Row.external_id, Row.attrs).where(
                Row.kind == "photo", Row.sent_at == r.sent_at, Row.tombstoned_at.is_(None))).all()
            if any(_shot("photo", name, attrs) == key for name, attrs in rows):
                found.add(r.content_hash)
    return found


_MEDIA_KINDS = frozenset({"photo", "voice", "video"})


def _sent_files(rec: Record, name: str) -> list[str]:
    """The files a chat line says it sent (WhatsApp's ``IMG-20230512-WA0003.jpg (file attached)``, Telegram's
    ``{"photo": "photos/photo_1@….jpg"}``), as paths beside the chat file ``name`` (normalised)."""
    media = rec.attrs.get("media")
    names = [media] if isinstance(media, str) else [v for k, v in media.items() if k in ("photo", "file") and
                                                    isinstance(v, str)] if isinstance(media, dict) else []
    return [os.path.normpath(os.path.join(os.path.dirname(name), n.strip())) for n in names
            if n and n.strip() != "omitted" and "." in n]


def _weak_time(sent_at, attrs: dict | None) -> bool:
    """Whether a photo's, voice note's or video's time is no better than a day (or none): a chat line that sent it
    times it.  A real capture time (EXIF, a clip's creation time, a time of day in its name) is kept."""
    a = attrs or {}
    return sent_at is None or bool(a.get("date_only")) or a.get("time_basis") is None


_LINE_DAY_SLACK = 1
"""Days a WhatsApp file name's day may lie from its chat line's local day (a file received after midnight)."""


def _by_name(sent: dict[str, Record]) -> dict[str, dict[int, Record]]:
    """``sent`` indexed by file name (case-folded), for :func:`_line_for` over many files."""
    out: dict[str, dict[int, Record]] = {}
    for k, x in sent.items():
        out.setdefault(os.path.basename(k).casefold(), {})[id(x)] = x
    return out


def _line_for(rec: Record, name: str, sent: dict[str, Record],
              named: dict[str, dict[int, Record]] | None = None) -> Record | None:
    """The chat line of ``sent`` (sent file path → chat record) that sent the file ``name`` (``rec`` read from it):
    the line that names that path, or the same file name in a folder above it (a Media/ folder beside the chat
    file); else, when the file was read from elsewhere (imported alone, from a copy), the one line that sent a file
    of that name, provided its local day is within a day of the one the file gave (``attrs["local_date"]``, or its
    time; a file that gave none is not matched by its name alone).  ``named``: :func:`_by_name` of ``sent``, when the
    caller looks up many files in one ``sent``."""
    path = os.path.normpath(name)
    line = sent.get(path)
    folder = os.path.dirname(path)
    while line is None and os.path.dirname(folder) != folder and folder:  # a Media/ folder beside the chat file
        folder = os.path.dirname(folder)
        line = sent.get(os.path.join(folder, os.path.basename(path)))
    if line is not None:
        return line
    base = os.path.basename(path).casefold()
    lines = (named.get(base, {}) if named is not None else
             {id(x): x for k, x in sent.items() if os.path.basename(k).casefold() == base})
    if len(lines) != 1:
        return None  # none, or two chats sent a file of that name: which one is not known
    [line] = lines.values()
    day = rec.attrs.get("local_date")
    try:
        day = date.fromisoformat(str(day)[:10]) if day else (rec.sent_at.date() if rec.sent_at else None)
    except ValueError:
        day = None
    if day is None or line.sent_at is None or abs((line.sent_at.date() - day).days) > _LINE_DAY_SLACK:
        return None  # a file without a day of its own ("image.jpg") is not told apart by its name alone
    return line


def _time_from_chat(rec: Record, name: str, sent: dict[str, Record]) -> None:
    """Complete a photo, voice note or video from the chat line that sent it (``sent``: sent file path → chat
    record, this import's): its time when the file gave only a day or none (WhatsApp's ``IMG-20230512-WA0003.jpg``
    has no EXIF and a day alone in its name), and its sender.  The record keeps its hash as read
    (:attr:`ingestors.base.Record.read_hash`), so the file imported alone later is the same record."""
    line = _line_for(rec, name, sent)
    if line is None or rec.kind not in _MEDIA_KINDS:
        return
    weak = _weak_time(rec.sent_at, rec.attrs)
    if not weak and rec.sender is not None:
        return
    rec.read_hash = rec.content_hash
    who = line.sender.name or line.sender.address if line.sender else None
    if weak and line.sent_at is not None:
        rec.sent_at = line.sent_at
        rec.attrs.update(time_basis="chat-line", date_only=False, time_zone=line.attrs.get("time_zone"))
        rec.attrs.pop("local_date", None)
        if rec.kind in ("photo", "video"):  # "Photo from 2023-05-12 (time of day unknown) at …" → "Photo sent
            label = rec.kind.capitalize()   # 2023-05-12 09:01 by …", a video's likewise
            rec.text = re.sub(rf"^{label}(?: from \d{{4}}-\d{{2}}-\d{{2}} \(time of day unknown\))?",
                              f"{label} sent {line.sent_at:%Y-%m-%d %H:%M}" + (f" by {who}" if who else ""), rec.text,
                              count=1)
        rec.notes.append(f"time from the chat line that sent it ({line.sent_at:%Y-%m-%d %H:%M}, "
                         f"{os.path.basename(line.source_path)})")
    if rec.sender is None and line.sender is not None:
        rec.sender = line.sender
        rec.recipients = list(line.recipients)
        rec.thread = rec.thread or line.thread


_NEAR_LINE = timedelta(hours=36)
"""How far a file's day-only time (noon of its day, in some zone) may lie from the line that sent it."""


def _stored_record(row, path: str, sender: str | None = None) -> Record:
    """A stored record (``core.store.schema.Record``) as its ingestor read it, for :func:`_time_from_chat`: its
    time at the offset it was sent at, its notes apart from its attrs; ``sender``: its sender's name, if any."""
    from ingestors.base import Party

    attrs = dict(row.attrs or {})
    notes = attrs.pop("notes", None)
    return Record(source_path=path, external_id=row.external_id, kind=row.kind, text=row.text or "",
                  sent_at=clock.local_time(row.sent_at, row.utc_offset), subject=row.subject, thread=row.thread,
                  attrs=attrs, notes=list(notes) if isinstance(notes, list) else [],
                  sender=Party(name=sender) if sender else None)


def _names_of(s, ids) -> dict[int, str]:
    from core.store.schema import Entity

    ids = sorted({int(i) for i in ids if i})
    return dict(s.exec(select(Entity.id, Entity.canonical_name).where(Entity.id.in_(ids))).all()) if ids else {}


def _stored_media_for_lines(c, sent: dict[str, Record]) -> list[tuple]:
    """Stored photos, voice notes and videos with a day-only time (or none) that a chat line of this import sent
    (:func:`_line_for`): an earlier import, or this one, stored the file before its chat was read.  Returns
    ``(row id, record completed from its line, the line, the line's stored row id or None)``."""
    from core.store.schema import Record as Row, Source

    days = sorted({clock.ensure_utc(x.sent_at).date() for x in sent.values() if x.sent_at is not None})
    if not days:
        return []
    cols = (Row, Source.path)
    live = (Row.kind.in_(sorted(_MEDIA_KINDS)), Row.tombstoned_at.is_(None))
    found: dict[int, tuple] = {}
    with c.db.session() as s:
        for r, path in s.exec(select(*cols).join(Source, Source.id == Row.source_id)
                              .where(*live, Row.sent_at.is_(None))).all():
            found[r.id] = (r, path)
        for d in days:
            start = datetime(d.year, d.month, d.day, tzinfo=timezone.utc)
            for r, path in s.exec(select(*cols).join(Source, Source.id == Row.source_id).where(
                    *live, Row.sent_at >= start - _NEAR_LINE, Row.sent_at < start + timedelta(days=1) + _NEAR_LINE)
                    ).all():
                found.setdefault(r.id, (r, path))
        todo = [(r, path) for r, path in found.values() if _weak_time(r.sent_at, r.attrs)]
        names = _names_of(s, [r.sender_entity_id for r, _ in todo])
        named = _by_name(sent)
        out = []
        for r, path in todo:
            rec = _stored_record(r, path, names.get(r.sender_entity_id))
            line = _line_for(rec, path, sent, named)
            if line is None:
                continue
            line_id = s.exec(select(Row.id).where(Row.content_hash.in_(line.known_hashes), Row.kind == "chat",
                                                  Row.tombstoned_at.is_(None))).first()
            out.append((r.id, rec, line, line_id))
    return out


def _stored_lines_for_media(c, hashes: list[str]) -> list[tuple]:
    """Stored photos, voice notes and videos among ``hashes`` (read in this import, no line of it sent them) whose
    time is still a day alone, and the stored chat line that sent each (an earlier import read the chat first):
    ``(row id, record completed from its line, the line, the line's row id)``."""
    from core.store.schema import Record as Row, Source

    if not hashes:
        return []
    out = []
    with c.db.session() as s:
        media = []
        for i in range(0, len(hashes), 500):
            media += s.exec(select(Row, Source.path).join(Source, Source.id == Row.source_id).where(
                Row.content_hash.in_(hashes[i:i + 500]), Row.kind.in_(sorted(_MEDIA_KINDS)),
                Row.tombstoned_at.is_(None), Row.sent_at.is_not(None))).all()
        media = [(r, path) for r, path in media if _weak_time(r.sent_at, r.attrs)]
        names = _names_of(s, [r.sender_entity_id for r, _ in media])
        by_day: dict = {}
        for r, path in media:
            day = clock.ensure_utc(r.sent_at).date()
            if day not in by_day:
                start = datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
                lines = s.exec(select(Row, Source.path).join(Source, Source.id == Row.source_id).where(
                    Row.kind == "chat", Row.tombstoned_at.is_(None), Row.sent_at >= start - _NEAR_LINE,
                    Row.sent_at < start + timedelta(days=1) + _NEAR_LINE).order_by(Row.id)).all()
                lines = [(x, p) for x, p in lines if (x.attrs or {}).get("media")]
                who = _names_of(s, [x.sender_entity_id for x, _ in lines])
                sent: dict[str, Record] = {}
                row_of: dict[int, tuple] = {}  # id(line record) → (it, its row id): each kept alive
                for x, p in lines:
                    rec = _stored_record(x, p, who.get(x.sender_entity_id))
                    row_of[id(rec)] = (rec, x.id)
                    for f in _sent_files(rec, p):
                        sent.setdefault(f, rec)
                by_day[day] = (sent, _by_name(sent), row_of)
            sent, named, row_of = by_day[day]
            rec = _stored_record(r, path, names.get(r.sender_entity_id))
            line = _line_for(rec, path, sent, named)
            if line is not None:
                out.append((r.id, rec, line, row_of[id(line)][1]))
    return out


def _retime_stored(c, found: list[tuple]) -> list[int]:
    """Writer-thread work: each stored photo, voice note or video of ``found`` (:func:`_stored_media_for_lines`,
    :func:`_stored_lines_for_media`) takes the time of the chat line that sent it, as it would have had the chat been
    read first (:func:`_time_from_chat`: time, text, notes; the line's sender and recipients when it had none).
    Its episode (and its episode-lexicon row), full-text row and vector follow; each change is an ``AuditEvent``
    ("retime").  A record that meanwhile
    has a better time, or was forgotten, is left alone.  Returns the ids changed."""
    from sqlmodel import update

    from core.store import search
    from core.store.schema import AuditEvent, Episode, Record as Row, RecordEntity

    done: list[int] = []
    with c.db.session() as s:
        conn = s.connection()
        for rid, rec, line, line_id in found:
            row = s.get(Row, rid)
            if row is None or row.tombstoned_at is not None or not _weak_time(row.sent_at, row.attrs):
                continue
            before = clock.ensure_utc(row.sent_at)
            had_sender = rec.sender is not None
            _time_from_chat(rec, rec.source_path, {os.path.normpath(rec.source_path): line})
            if not rec.attrs.get("time_basis") == "chat-line":
                continue
            attrs = dict(rec.attrs)
            if rec.notes:
                attrs["notes"] = list(rec.notes)
            sender_id = row.sender_entity_id
            if not had_sender and sender_id is None and line_id is not None:
                have = set(s.exec(select(RecordEntity.entity_id, RecordEntity.role)
                                  .where(RecordEntity.record_id == rid)).all())
                for x in s.exec(select(RecordEntity).where(RecordEntity.record_id == line_id, RecordEntity.role.in_(
                        ("from", "to", "cc", "member")))).all():
                    if (x.entity_id, x.role) not in have:
                        have.add((x.entity_id, x.role))
                        s.add(RecordEntity(record_id=rid, entity_id=x.entity_id, role=x.role, signal="chat-line",
                                           score=x.score, alias_id=x.alias_id))
                    if x.role == "from" and sender_id is None:
                        sender_id = x.entity_id
            todo = pipeline.Stage.VECTORS
            if row.kind == "photo" and row.place_entity_id is not None:
                todo |= pipeline.Stage.EVENTS
            row.sent_at, row.utc_offset = clock.ensure_utc(rec.sent_at), clock.offset_minutes(rec.sent_at)
            row.text, row.attrs, row.sender_entity_id = rec.text, attrs, sender_id
            row.thread = row.thread or rec.thread
            row.pending = int(row.pending or 0) | int(todo)
            s.add(row)
            conn.execute(update(Episode).where(Episode.record_id == rid).values(
                t_valid=row.sent_at, text=pipeline.embed_text(row.subject, rec.text)))
            signed = s.exec(select(Episode.id).where(Episode.record_id == rid, Episode.signature_row.is_not(None),
                                                     Episode.tombstoned_at.is_(None))).all()
            if signed:  # remembered already: its row of the episode lexicon moves to the line's time and chat
                from core.retrieval import lexicon

                speaker = _names_of(s, [sender_id]).get(sender_id) if sender_id else None
                body = "\n".join(x for x in (row.subject, rec.text) if x)
                lexicon.add(conn, [lexicon.Turn(int(e), row.thread, row.sent_at, speaker, body) for e in signed])
            search.index_record(conn, rid, row.subject or "", rec.text, pipeline._people_text(rec))
            s.add(AuditEvent(action="retime", target=f"record:{rid}", detail={
                "from": before.isoformat() if before else None, "to": row.sent_at.isoformat(),
                "basis": "chat-line", "line_record": line_id}))
            done.append(rid)
    return done


def _complete_stored_media(c, sent: dict[str, Record], weak: list[str], defer: bool = False) -> list[int]:
    """Stored media this import's chat lines time, and media of this import stored chat lines time
    (:func:`_retime_stored`, on the writer); their vectors redone (left marked when ``defer``).  Returns the ids
    changed."""
    found = {x[0]: x for x in _stored_lines_for_media(c, list(dict.fromkeys(weak)))}
    if sent:
        found.update((x[0], x) for x in _stored_media_for_lines(c, sent) if x[0] not in found)
    if not found:
        return []
    ids = c.writer.run(_retime_stored, c, list(found.values()))
    if ids:
        from app.memory import loaded_service

        svc = loaded_service(c)
        if svc is not None:  # its index holds each episode's time (recall filters on it): read again
            c.writer.run(svc.mem.reload)
            svc._lexicon = None
        if not defer:
            try:
                c.writer.run(pipeline.vectors_stage, c, ids)
            except Exception:  # left marked: the next import or `kith doctor --repair` completes it
                pass
        c.lock.touch()
    return ids


CHAT_PROBE = 20  # a WhatsApp export's first lines compared with the chats stored (:func:`_as_stored_chat`)


def _stored_chat(c: Container, head: list[Record]) -> tuple[str, str] | None:
    """The stored WhatsApp chat ``head`` (an export's first lines, as read) is a new export of, when the file's own
    name does not already find it: ``(thread, scope)`` to read the file as, or None (the file is its own chat).

    What identifies a WhatsApp chat: the export names it (``WhatsApp Chat with Ann.txt``, ``WhatsApp Chat -
    Family/_chat.txt``, ``WhatsApp Chat - Family.zip``: ``ingestors.whatsapp.scope_of_thread``) — else its lines.  A
    stored chat is this one when at least 2 of the file's first :data:`CHAT_PROBE` lines, and more than half of
    those the two can share (as many as the shorter has), are its lines: the same line number, time, sender and
    text.  WhatsApp writes an export of a chat the same way each time (what was added comes at the end), so the
    same chat exported again under another file name (``wa.txt``, then ``wa_more.txt`` with a line more, with CRLF
    line ends, without the final line break) is this chat, and its old lines are known.  Two chats whose exports
    both name a chat, by different names, are two chats, however alike their lines; and one line alike (the same
    "Happy New Year!" at 00:01 as each chat's first line) does not make two chats one.  Not found: a chat whose
    new export starts later (WhatsApp cut its oldest lines: every line number differs), or of a single line."""
    from core.store.forgetting import ForgottenRecord
    from ingestors.whatsapp import scope_of_thread

    own_thread, own_scope = head[0].thread or "", head[0].scope or ""
    titled = own_scope != own_thread  # the export's name names the chat
    times = sorted({clock.ensure_utc(r.sent_at) for r in head if r.sent_at is not None})
    if len(head) < 2 or not times:
        return None
    with c.db.session() as s:
        own = [r.content_hash for r in head]
        if s.exec(select(RecordRow.id).where(RecordRow.content_hash.in_(own))).first() or s.exec(
                select(ForgottenRecord.content_hash).where(ForgottenRecord.content_hash.in_(own))).first():
            return None  # the file's own name finds its chat
        threads = [t for t in s.exec(select(RecordRow.thread).where(
            RecordRow.sent_at.in_(times), RecordRow.thread.like("whatsapp:%")).distinct()).all() if t]
        scopes: dict[str, list[str]] = {}
        for t in threads:
            scope = scope_of_thread(t)
            if scope != own_scope and not (titled and scope != t):
                scopes.setdefault(scope, []).append(t)
        if not scopes:
            return None
        counts = dict(s.exec(select(RecordRow.thread, func.count()).where(
            RecordRow.thread.in_([t for ts in scopes.values() for t in ts])).group_by(RecordRow.thread)).all())
        best: tuple[int, str] | None = None
        for scope, ts in sorted(scopes.items()):  # a tie: the first by name, every time
            hashes = [replace(r, scope=scope).content_hash for r in head]
            found = set(s.exec(select(RecordRow.content_hash).where(RecordRow.content_hash.in_(hashes))).all())
            found.update(s.exec(select(ForgottenRecord.content_hash).where(  # lines forgotten stay the chat's
                ForgottenRecord.content_hash.in_(hashes))).all())
            shared = sum(h in found for h in hashes)
            if shared >= 2 and 2 * shared > min(len(head), sum(counts.get(t, 0) for t in ts)) and \
                    (best is None or shared > best[0]):
                best = (shared, scope)
    if best is None:
        return None
    thread = max(scopes[best[1]], key=lambda t: (counts.get(t, 0), t))
    return thread, best[1]


def _as_stored_chat(c: Container, items: Iterable) -> Iterable:
    """``items`` as read, a WhatsApp export's records given the thread and scope of the stored chat it is a new
    export of (:func:`_stored_chat`; the first :data:`CHAT_PROBE` lines are held until that is known)."""
    head: list[Record] = []
    found: tuple[str, str] | None = None

    def settle() -> Iterable:
        nonlocal found
        found = _stored_chat(c, head) if head else None
        for r in head:
            if found:
                r.thread, r.scope = found
            yield r
        head.clear()

    held = True
    try:
        for item in items:
            if isinstance(item, Record) and (item.scope or "").startswith("whatsapp:"):
                if held:
                    head.append(item)
                    if len(head) >= CHAT_PROBE:
                        held = False
                        yield from settle()
                    continue
                if found:
                    item.thread, item.scope = found
            yield item
    except Exception:
        yield from settle()  # what was read before a failure is still stored
        raise
    yield from settle()


def _ingest_file(c: Container, ing, path: Path, report: IngestReport, file_errors: list[IngestError],
                 batch_size: int, cancel: threading.Event | None, tick: Callable[[str], None],
                 defer: bool = False, cite: str | None = None, sent: dict[str, Record] | None = None,
                 weak: list[str] | None = None) -> None:
    """Stream one file's items in batches: dedupe by hash, encode the new ones once, hand each batch to
    the writer and read the next one meanwhile (at most one batch waiting on the writer).  A record its ingestor
    kept from a file cut short inside it (``attrs["cut_short"]``: what to tell the user) is stored and is an error of
    the file too (``kith ingest`` exits 2).

    ``cite``: how the file is named in sources and errors when that is not its path (a zip member).
    ``sent``: this import's chat lines by the file each sent (:func:`_sent_files`): a chat's lines are
    added, a photo, voice note or video is completed from its line (:func:`_time_from_chat`).
    ``weak``: the hashes of this import's photos, voice notes and videos still timed by a day alone are added to it
    (a chat stored earlier may time them: :func:`_complete_stored_media`)."""
    name = cite or str(path)
    try:
        file_hash = _file_hash(path)
    except OSError as exc:
        file_errors.append(IngestError(name, f"cannot read: {exc.strerror or exc}"))
        return
    pending: list[Record] = []
    inflight: list[Future] = []

    def collect(fut: Future) -> None:
        try:
            added, skipped, warnings = fut.result()
        except Exception as exc:  # the batch's transaction rolled back: say so, keep going with the file
            file_errors.append(IngestError(name, f"a batch could not be stored ({type(exc).__name__}: {exc})"))
            return
        report.records_added += added
        report.records_skipped += skipped
        file_errors.extend(IngestError(name, w, "after import") for w in dict.fromkeys(warnings))
        tick(name)

    def flush() -> None:
        with c.db.session() as s:
            stored = pipeline.stored_already(s, pending, (name, file_hash))
        photos = _photos_known_by_bytes(c, pending) | _photos_known_by_shot(c, pending)
        fresh = [r for r, known in zip(pending, stored) if not known and not photos.intersection(r.known_hashes)]
        report.records_skipped += len(pending) - len(fresh)
        pending.clear()
        if not fresh:
            tick(name)
            return
        # each text encoded once (issue #10); deferred imports leave it to the vectors stage
        vecs = [None] * len(fresh) if defer else c.encoder.encode([vector_text(r) for r in fresh])
        while inflight:  # the previous batch must be stored before this one (order, and flat memory)
            collect(inflight.pop(0))
        inflight.append(c.writer.submit(_store_batch, c, path, file_hash, ing.name, list(zip(fresh, vecs)), defer,
                                        cite))

    try:
        for item in _as_stored_chat(c, ing.read(path)):
            if isinstance(item, RecordError):
                file_errors.append(IngestError(name if item.path == str(path) else item.path, item.reason,
                                               item.locator))
                continue
            if isinstance(item.attrs.get("cut_short"), str):  # kept as far as it goes; the user is told (exit 2)
                file_errors.append(IngestError(name, item.attrs["cut_short"], f"message {item.attrs['index']}"
                                               if item.attrs.get("index") else item.external_id))
            labels = {x.strip().casefold() for x in str(item.attrs.get("gmail_labels", "")).split(",") if x.strip()}
            if labels & GMAIL_FILTERED or item.attrs.get("folder") in ("Trash", "Junk"):
                # seed 002: Gmail Takeout spam, trash and promotions are not memories; nor a mail program's Trash/Junk
                report.records_filtered += 1
                continue
            if "sent" in labels:
                item.attrs["is_from_me"] = True  # Gmail's own "Sent" label: the mailbox owner wrote it
            if sent is not None:
                if item.kind == "chat" and item.attrs.get("media"):
                    sent.update((f, item) for f in _sent_files(item, name))
                elif item.kind in _MEDIA_KINDS and sent:
                    _time_from_chat(item, name, sent)
            if weak is not None and item.kind in _MEDIA_KINDS and _weak_time(item.sent_at, item.attrs):
                weak.append(item.content_hash)
            pending.append(item)
            if len(pending) >= batch_size:
                flush()
                if cancel is not None and cancel.is_set():
                    report.cancelled = True
                    return
        if pending:
            flush()
    except InputError as exc:
        file_errors.append(IngestError(name, exc.reason, exc.locator or ""))
    except Exception as exc:  # a parser bug must not take the rest of the import down
        file_errors.append(IngestError(name, f"could not be read ({type(exc).__name__}: {exc})"))
    finally:
        while inflight:
            collect(inflight.pop(0))


def ingest(c: Container, paths: Iterable[str | Path], progress: ProgressFn | None = None,
           cancel: threading.Event | None = None, defer: bool = False) -> IngestReport:
    """Ingest files and folders.

    Args:
        c: the services.
        paths: files, folders (walked recursively; hidden files skipped) and zip archives (read like
            folders, member by member: ``ingestors.archives``).  Address books (``.vcf``) are read first.  A path that is missing, unreadable or a
            symbolic link loop is one error in the report; the others are still read.
        progress: called after each batch and each file with an :class:`IngestProgress`.
        cancel: when set, the import stops after the current batch; what was written stays.
        defer: store the records (rows, people, facts, full-text search) and leave the stages that need
            the text encoder (vectors, memory, ledger) for later: the next import or ``kith doctor
            --repair`` completes them.  Keyword search finds deferred records at once.

    Returns:
        :class:`IngestReport` — files read, records added, records skipped (already known),
        and per-file / per-item errors (also kept in the quarantine table).  Never raises
        for bad input: a bad file is an error in the report.
    """
    report = IngestReport()
    files, problems = expand_inputs(paths)  # absolute: sources are cited by absolute path
    # Address books first: every message after them resolves against the person's own contact cards
    # (a card read later still joins what came before: core.graph.contacts).
    # Photos, voice notes and videos last: a WhatsApp folder's chat before its IMG-…-WA0003.jpg (the line that sent
    # a photo times it).
    files.sort(key=lambda p: (p.suffix.lower() not in ADDRESS_BOOK_SUFFIXES, p.suffix.lower() in MEDIA_SUFFIXES))
    report.errors += [IngestError(given, reason) for given, reason in problems]
    _quarantine(c, report.errors)
    total = [len(files)]
    batch_size = max(1, c.settings.ingest_batch_size)
    pool = c.ingestors()
    fallbacks_before = getattr(getattr(c.fact_extractor, "stats", None), "fallbacks", 0)

    def tick(current: str) -> None:
        if progress:
            progress(IngestProgress(report.files, total[0], current, report.records_added,
                                    report.records_skipped, len(report.errors)))

    started, first_new = clock.now(), _next_entity_id(c)  # for forgets made while this import runs
    lk = c.lock
    before = (lk.holds, lk.waited_s, lk.overhead_s)
    # Each batch's writes hold the writer lock (the writer thread takes it per job), not the whole import:
    # another Kith process's writes — a chat turn in the window, a forget, another import — go in between.
    _ingest_held(c, files, report, batch_size, pool, cancel, tick, defer, total)
    report.lock = {"holds": lk.holds - before[0], "waited_s": round(lk.waited_s - before[1], 3),
                   "overhead_s": round(lk.overhead_s - before[2], 4)}
    if report.records_added:
        from app.operations.forget import forget_late_arrivals, purged_during

        report.forgotten_again = [r.label for r in forget_late_arrivals(c, started, first_new)]
        report.purged_during = purged_during(c, started)
    stats = getattr(c.fact_extractor, "stats", None)
    if stats is not None:
        report.extraction_fallbacks = stats.fallbacks - fallbacks_before
    tick("")
    return report


def _next_entity_id(c: Container) -> int:
    """The id the next entity will have at least (one past the largest so far)."""
    from sqlalchemy import func

    from core.store.schema import Entity

    with c.db.session() as s:
        return int(s.exec(select(func.max(Entity.id))).one() or 0) + 1


WIDE_TEXT_SUFFIXES = frozenset({".json", ".eml", ".mbox", ".mbx", ".mbs", ".html", ".htm", ".vcf", ".csv", ".ics"})
"""Text formats whose readers expect UTF-8 (or a declared charset): a UTF-16/32 copy (Windows' "Unicode" save) is
read through :func:`_utf8_copy`.  WhatsApp's ``.txt`` reader detects UTF-16 itself."""


def _wide_encoding(head: bytes) -> str | None:
    """``"utf-32"``/``"utf-16"`` for a head with that byte-order mark, ``"utf-16-le"``/``"utf-16-be"`` for text whose
    first 64 bytes have a NUL as every other byte (ASCII written in UTF-16 without a mark), else None."""
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    pairs = head[:64]
    if len(pairs) >= 8:
        odd, even = pairs[1::2], pairs[0::2]
        if odd.count(0) >= 0.9 * len(odd) and even.count(0) == 0:
            return "utf-16-le"
        if even.count(0) >= 0.9 * len(even) and odd.count(0) == 0:
            return "utf-16-be"
    return None


def _utf8_copy(path: Path, workdir: Path) -> Path | None:
    """A UTF-8 copy of a UTF-16/32 text file (:data:`WIDE_TEXT_SUFFIXES`, :func:`_wide_encoding`) under a private
    folder in ``workdir``, with the same file name (readers go by it: ``result.json``, ``message_1.json``); the
    caller deletes its folder.  None for any other file, or when it does not decode (its reader then says what is
    wrong with it)."""
    if path.suffix.lower() not in WIDE_TEXT_SUFFIXES:
        return None
    try:
        with open(path, "rb") as fh:
            enc = _wide_encoding(fh.read(64))
    except OSError:
        return None
    if enc is None:
        return None
    workdir.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="kith-utf8-", dir=workdir))
    target = folder / path.name
    try:
        with open(path, encoding=enc, newline="") as src, open(target, "w", encoding="utf-8", newline="") as dst:
            os.chmod(target, 0o600)
            while chunk := src.read(1 << 20):
                dst.write(chunk)
    except (OSError, UnicodeError):
        shutil.rmtree(folder, ignore_errors=True)
        return None
    return target


def _read_first(name: str) -> bool:
    """Whether a zip member is read before the others, as in a folder: an address book (its cards name the
    people of the messages after it), a Meta export's profile file (it names the export's owner), or Google
    Chat's group_info.json / user_info.json (its conversations' members and owner)."""
    from ingestors.google_chat import is_side_file
    from ingestors.messenger import is_profile_file

    return Path(name).suffix.lower() in ADDRESS_BOOK_SUFFIXES | CHAT_SUFFIXES or is_profile_file(name) \
        or is_side_file(name)


def _ingest_held(c: Container, files: list[Path], report: IngestReport, batch_size: int, pool,
                 cancel: threading.Event | None, tick: Callable[[str], None], defer: bool = False,
                 total: list[int] | None = None) -> None:
    """The import, under the writer lock: first what earlier imports left undone, then each file."""
    if not defer:
        done = pipeline.complete_pending(c, cancel=cancel)
        report.resumed = sum(done.done.values())
        report.errors += [IngestError(str(c.settings.home), f"could not complete earlier imports: {e}", "resume")
                          for e in done.errors]
    total = total if total is not None else [len(files)]

    def one(path: Path, cite: str | None = None) -> None:
        utf8 = _utf8_copy(path, workdir)
        if utf8 is not None:  # a UTF-16/32 mail or JSON export: read as the same file in UTF-8, named as itself
            try:
                return one(utf8, cite or str(path))
            finally:
                shutil.rmtree(utf8.parent, ignore_errors=True)
        name = cite or str(path)
        tick(name)
        file_errors: list[IngestError] = []
        try:
            ing = ingestor_for(path, pool)
        except InputError as exc:  # the file's first bytes could not even be read
            ing = None
            file_errors.append(IngestError(name, exc.reason))
        if ing is None and not file_errors:
            file_errors.append(IngestError(name, unsupported_reason(path)))
        elif ing is not None:
            _ingest_file(c, ing, path, report, file_errors, batch_size, cancel, tick, defer, cite, sent, weak)
        report.errors += file_errors
        report.files_ok += not file_errors
        _quarantine(c, file_errors)
        report.files += 1

    sent: dict[str, Record] = {}  # chat lines by the file each sent: its photo is timed by the line
    weak: list[str] = []  # this import's media timed by a day alone: a chat line stored earlier may time them
    workdir = c.settings.home / "tmp"  # extracted zip members live here only while they are read
    for path in files:
        if cancel is not None and cancel.is_set():
            report.cancelled = True
            break
        # a .zip, or a zip without a suffix (not .docx, .epub and the like, which are zips too), a .tgz/.tar, or
        # one compressed file (.mbox.gz)
        if path.suffix.lower() == ".zip" or (not path.suffix and _is_zip_head(path)) or is_tar(path) \
                or is_compressed(path):
            workdir.mkdir(parents=True, exist_ok=True)
            archive_errors: list[tuple[str, str]] = []
            tick(str(path))
            members = 0
            for member in archive_members(path, str(path), errors=archive_errors, workdir=workdir,
                                          first=_read_first):
                total[0] += bool(members)  # the archive itself is not a file read: its first member takes its place
                members += 1
                one(member.path, member.cite)
                if report.cancelled or (cancel is not None and cancel.is_set()):
                    report.cancelled = True
                    break
            errors = [IngestError(where, reason) for where, reason in archive_errors]
            report.errors += errors
            _quarantine(c, errors)
            if not members:  # not an archive after all (a fake or cut .zip), or an empty one: it is one file, counted
                report.files += 1  # (9 paths were "8 file(s)", and the progress went from [5/9] to [6/8])
                report.files_ok += not errors
        else:
            one(path)
        if report.cancelled:
            break
    retimed: list[int] = []
    if (sent or weak) and not (cancel is not None and cancel.is_set()):
        try:  # media stored before the chat that sent them (another import, or this one) take its line's time
            retimed = _complete_stored_media(c, sent, weak, defer)
        except Exception as exc:
            report.errors.append(IngestError(str(c.settings.home), "photos sent in chats could not be timed by their "
                                             f"chat lines ({type(exc).__name__}: {exc})", "after import"))
    if (report.records_added or retimed) and not defer:
        try:
            c.writer.run(pipeline.events_stage, c)
        except Exception as exc:
            report.errors.append(IngestError(str(c.settings.home), f"events stage not done ({type(exc).__name__}: "
                                             f"{exc}); the next import or `kith doctor --repair` completes it",
                                             "after import"))

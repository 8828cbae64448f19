"""The import history and quarantine, for the Inbox (reads never write), the first-run test and the demo archive.

Every import — from the window, ``kith ingest`` or the watched Inbox folder — leaves
``Source`` rows (one per file read) and ``QuarantineItem`` rows (one per file or
message that could not be read).  :func:`import_history` reads both back and
works out what each file *added*: the people, places and other entities whose
first record came from it, and the facts whose first evidence did.  Files read
within :data:`SESSION_GAP_S` of each other form one import.
"""
from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from sqlalchemy import func
from sqlmodel import select

from app.container import Container
from core.clock import ensure_utc
from core.store.schema import Entity, Evidence, QuarantineItem, Record, RecordEntity, Source

SESSION_GAP_S = 600.0  # files read less than 10 minutes apart belong to one import (Kith's choice)


def _iso(d: datetime | None) -> str | None:
    d = ensure_utc(d)
    return d.isoformat() if d else None


@dataclass
class QuarantinedItem:
    """Something that could not be read: the file, where in it (``locator``, may be empty), why, when (ISO UTC)."""

    id: int
    path: str
    locator: str
    reason: str
    at: str | None


@dataclass
class ImportedFile:
    """One file read: how many records it holds and what it brought that Kith did not know before."""

    source_id: int
    path: str
    kind: str
    at: str | None
    records: int
    new_people: list[str] = field(default_factory=list)
    new_places: list[str] = field(default_factory=list)
    new_other: list[str] = field(default_factory=list)  # events, topics, things
    other_kinds: list[str] = field(default_factory=list)  # each of new_other's entity kinds (group, event, thing)
    new_facts: int = 0
    quarantined: list[QuarantinedItem] = field(default_factory=list)


@dataclass
class ImportSession:
    """Files (and quarantined items) read together, oldest first; ``at`` is when it started (ISO UTC)."""

    at: str | None
    files: list[ImportedFile] = field(default_factory=list)
    quarantined: list[QuarantinedItem] = field(default_factory=list)  # not tied to a file that was read

    @property
    def records(self) -> int:
        return sum(f.records for f in self.files)

    @property
    def errors(self) -> int:
        return len(self.quarantined) + sum(len(f.quarantined) for f in self.files)

    def added(self) -> dict[str, int]:
        """Counts of what this import added: people, places, other entities (``other``; of them ``lists`` —
        mailing lists and organisations —, ``trips`` and ``things``), facts."""
        kinds = [k for f in self.files for k in f.other_kinds]
        return {"people": sum(len(f.new_people) for f in self.files),
                "places": sum(len(f.new_places) for f in self.files),
                "other": sum(len(f.new_other) for f in self.files),
                "lists": kinds.count("group"), "trips": kinds.count("event"),
                "things": len(kinds) - kinds.count("group") - kinds.count("event"),
                "facts": sum(f.new_facts for f in self.files)}


def quarantine(c: Container, limit: int = 5000) -> list[QuarantinedItem]:
    """The quarantine list, newest first (everything any import could not read, with the reason)."""
    with c.db.session() as s:
        rows = s.exec(select(QuarantineItem).order_by(QuarantineItem.at.desc(), QuarantineItem.id.desc())
                      .limit(limit)).all()
    return [QuarantinedItem(q.id, q.path, q.locator, q.reason, _iso(q.at)) for q in rows]


def import_history(c: Container) -> list[ImportSession]:
    """Every import, newest first, with each file's records and what it added, and the quarantine beside it."""
    with c.db.session() as s:
        sources = s.exec(select(Source).order_by(Source.ingested_at, Source.id)).all()
        rec_counts = dict(s.exec(select(Record.source_id, func.count(Record.id)).group_by(Record.source_id)).all())
        # Each entity's first record (lowest id) tells the file that introduced it.
        first_rec = s.exec(select(RecordEntity.entity_id, func.min(RecordEntity.record_id))
                           .group_by(RecordEntity.entity_id)).all()
        first_ev = s.exec(select(Evidence.fact_id, func.min(Evidence.record_id)).group_by(Evidence.fact_id)).all()
        rec_ids = {r for _e, r in first_rec} | {r for _f, r in first_ev}
        rec_source = dict(s.exec(select(Record.id, Record.source_id).where(Record.id.in_(rec_ids))).all()) \
            if rec_ids else {}
        entities = {e.id: e for e in s.exec(select(Entity).where(Entity.tombstoned_at.is_(None))).all()}
        quarantined = s.exec(select(QuarantineItem).order_by(QuarantineItem.at, QuarantineItem.id)).all()
    files: dict[int, ImportedFile] = {}
    for src in sources:
        files[src.id] = ImportedFile(src.id, src.path, src.kind, _iso(src.ingested_at), int(rec_counts.get(src.id, 0)))
    for eid, rid in first_rec:
        e = entities.get(eid)
        f = files.get(rec_source.get(rid))
        if e is None or f is None or e.is_owner:
            continue
        {"person": f.new_people, "place": f.new_places}.get(e.kind, f.new_other).append(e.canonical_name)
        if e.kind not in ("person", "place"):
            f.other_kinds.append(e.kind)
    for _fid, rid in first_ev:
        f = files.get(rec_source.get(rid))
        if f is not None:
            f.new_facts += 1
    # Quarantined items: under the file of the same path read closest before them, else on their own.
    by_path: dict[str, list[ImportedFile]] = defaultdict(list)
    for f in files.values():
        by_path[f.path].append(f)
    loose: list[tuple[float, QuarantinedItem]] = []
    for q in quarantined:
        item = QuarantinedItem(q.id, q.path, q.locator, q.reason, _iso(q.at))
        at = ensure_utc(q.at).timestamp() if q.at else 0.0
        cands = [f for f in by_path.get(q.path, []) if f.at and datetime.fromisoformat(f.at).timestamp() <= at + 1]
        if cands:
            cands[-1].quarantined.append(item)
        else:
            loose.append((at, item))
    events: list[tuple[float, object]] = [(datetime.fromisoformat(f.at).timestamp() if f.at else 0.0, f)
                                          for f in files.values()] + loose
    events.sort(key=lambda e: e[0])
    sessions: list[ImportSession] = []
    last = None
    for at, obj in events:
        if last is None or at - last > SESSION_GAP_S:
            sessions.append(ImportSession(datetime.fromtimestamp(at, tz=timezone.utc).isoformat() if at else None))
        last = at
        if isinstance(obj, ImportedFile):
            sessions[-1].files.append(obj)
        else:  # the same file failing the same way again in one session (an import run twice): listed once
            same = [q for q in sessions[-1].quarantined if (q.path, q.locator, q.reason) == (obj.path, obj.locator,
                                                                                              obj.reason)]
            for q in same:
                sessions[-1].quarantined.remove(q)
            sessions[-1].quarantined.append(obj)
    sessions.reverse()
    return sessions


def is_empty(c: Container) -> bool:
    """True when nothing was ever imported into this data folder (no records, nothing quarantined): first run."""
    with c.db.session() as s:
        return s.exec(select(Record.id).limit(1)).first() is None and \
            s.exec(select(QuarantineItem.id).limit(1)).first() is None


def needs_full_disk_access(path: str, reason: str) -> bool:
    """True when an error reading Messages' ``chat.db`` looks like macOS privacy protection (Full Disk Access).

    macOS refuses other apps the ``~/Library/Messages`` folder until the person allows them in System
    Settings → Privacy & Security → Full Disk Access; the refusal reads "Operation not permitted",
    "Permission denied", "authorization denied" or SQLite's "unable to open database file".
    """
    name = Path(path).name.casefold()
    if not (name.startswith("chat.db") or "/library/messages" in path.casefold()):
        return False
    r = reason.casefold()
    return any(k in r for k in ("operation not permitted", "permission denied", "authorization denied",
                                "unable to open database", "not authorized"))


FULL_DISK_ACCESS_HELP = (
    "macOS keeps Messages' chat.db private. To import your iMessage history, open System Settings → "
    "Privacy & Security → Full Disk Access, switch Kith on (add it with + if it is not listed), quit "
    "and reopen Kith, then drop ~/Library/Messages/chat.db here again. Kith only reads the file; it "
    "never changes it and nothing leaves this computer.")


# -- the demo archive ---------------------------------------------------------------------------
DEMO_OWNER = ("Sam Rivera", "sam.rivera@example.net")


def demo_folder() -> Path:
    """``resources/demo``: made-up people's mail, chats and photos (written by ``scripts/make_demo.py``).

    Raises:
        FileNotFoundError: the folder is missing (a build that skipped ``scripts/make_demo.py``).
    """
    from importlib import resources

    folder = Path(str(resources.files("resources").joinpath("demo")))
    if not folder.is_dir() or not any(folder.rglob("*.*")):
        raise FileNotFoundError(f"the demo archive is missing: {folder} (run scripts/make_demo.py)")
    return folder


def import_demo(c: Container, progress: Callable | None = None, cancel: threading.Event | None = None):
    """Import the demo archive into this (empty) data folder, naming its owner (Sam Rivera) first when no
    owner is set, so "I" in the demo's chats is Sam.  Returns the :class:`IngestReport`.

    Raises:
        ValueError: the data folder already holds an import (the demo is for first runs only).
    """
    from app.operations.ingest import ingest

    if not is_empty(c):
        raise ValueError("the demo archive goes into an empty data folder only; this one already has imports")
    st = c.settings
    if not st.owner_name and not st.owner_emails:
        st.owner_name, st.owner_emails = DEMO_OWNER[0], [DEMO_OWNER[1]]
        st.save()
    report = ingest(c, [str(demo_folder())], progress=progress, cancel=cancel)
    if not report.cancelled:
        observe_demo_people(c)
    return report


def observe_demo_people(c: Container) -> int:
    """Observations about each person the demo's chats learned from (seed 000 writes them on session
    close): once halfway through their messages and again at their last one, so the profile's confidence
    picture shows both decay and reinforcement.  Returns how many observation writes were made."""
    from app.personal import personal_service

    svc = personal_service(c)
    rows = svc.ledger.conn.execute("SELECT person_id, min(at), max(at), count(*) FROM message "
                                   "WHERE direction='in' GROUP BY person_id").fetchall()
    owner = svc.owner_id()
    n = 0
    for pid, first, last, count in rows:
        if pid == owner or count < 3:
            continue
        for at in ((first + last) / 2, last):
            n += len(svc.write_observations(int(pid), float(at), source="demo"))
    return n

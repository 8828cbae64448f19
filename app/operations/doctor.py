"""``kith doctor``: check that the stores of a data folder agree with each other, row by row, and repair them.

What is checked (:func:`diagnose`, read-only — it takes no lock and writes nothing):

* ``sqlite`` — ``PRAGMA integrity_check`` and ``PRAGMA foreign_key_check``.
* ``fts`` — every live record has its FTS5 row; no FTS5 row without a live record.
* ``record vectors`` — every record whose vector stage is done has its vector in Chroma's ``records``
  collection; no vector without a live record; the Chroma folder is the one Kith wrote (its marker).
* ``fact vectors`` — the same for facts and the ``facts`` collection.
* ``signatures`` — ``signatures.dat`` and ``gists.dat`` are whole (no torn row) and equally long; every
  episode's row is inside them, belongs to no other episode, and is not zeroed while the episode lives.
* ``episodes`` — every record has its episode.
* ``lexicon`` — every live, signed episode is in the episode lexicon (``lexdoc``) and has its FTS5 row in
  ``episode_lex``; no row for a gone or tombstoned episode, no FTS5 row without its document.
* ``ledger`` — no personalization row (signals, messages, observations, profiles…) about an entity that
  no longer exists.
* ``pending`` — stages an import left undone (``app/pipeline.py``).

:func:`repair` (``kith doctor --repair``) runs under the writer lock: it cuts torn and orphan signature
tails, gives episodes that shared or lost a row new signatures, re-indexes missing FTS rows, marks
missing vectors for re-embedding (a deleted Chroma folder is rebuilt from SQLite), drops orphans, creates
missing episodes, then completes every pending stage, and reports counts of what it did.  A damaged SQLite
file is reported, never a traceback: indexes out of step with their tables are rebuilt (``REINDEX``); with
damaged table pages nothing is changed (:data:`DAMAGED`), since every other repair trusts the database.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from sqlalchemy.exc import DBAPIError
from sqlmodel import SQLModel

from app import pipeline
from app.container import Container
from core.store import search
from core.store.collections import FACTS, RECORDS, fact_vid, id_of, record_vid

SAMPLE = 5


@dataclass
class Check:
    """One check: ``problems`` counts what is wrong (0 everywhere = ok); ``info`` counts what is merely
    noted (e.g. reclaimable rows); ``samples`` lists a few offending ids."""

    name: str
    problems: dict[str, int] = field(default_factory=dict)
    info: dict[str, int] = field(default_factory=dict)
    samples: dict[str, list] = field(default_factory=dict)
    message: str = ""

    @property
    def ok(self) -> bool:
        return not any(self.problems.values())

    def flag(self, what: str, items) -> None:
        items = sorted(items) if not isinstance(items, int) else items
        n = items if isinstance(items, int) else len(items)
        self.problems[what] = n
        if n and not isinstance(items, int):
            self.samples[what] = list(items[:SAMPLE])

    def to_json(self) -> dict:
        d = {"ok": self.ok, "problems": {k: v for k, v in self.problems.items() if v}}
        if self.info:
            d["info"] = self.info
        if self.samples:
            d["samples"] = self.samples
        if self.message:
            d["message"] = self.message
        return d


@dataclass
class DoctorReport:
    """Every check, what was repaired (counts per action), and what is still pending per stage."""

    checks: list[Check]
    repaired: dict[str, int] = field(default_factory=dict)
    pending: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    busy: str = ""
    """Another process writing to the data folder as the checks ran (``"pid 123: kith ingest …"``), else ``""``:
    what it has not finished yet is pending, as expected, not a fault."""

    @property
    def ok(self) -> bool:
        return all(ch.ok for ch in self.checks) and (self.busy or not any(self.pending.values())) and not self.errors

    def problems(self) -> int:
        return sum(sum(ch.problems.values()) for ch in self.checks) + sum(self.pending.values())

    def to_json(self) -> dict:
        d = {"ok": self.ok, "checks": {ch.name: ch.to_json() for ch in self.checks},
             "pending": {k: v for k, v in self.pending.items() if v}}
        if self.busy:
            d["busy"] = self.busy
        if self.repaired:
            d["repaired"] = {k: v for k, v in self.repaired.items() if v}
        if self.errors:
            d["errors"] = self.errors
        return d

    def describe(self) -> list[str]:
        """Human-readable lines: one per check, then pending stages and repairs."""
        out = []
        for ch in self.checks:
            if ch.ok:
                out.append(f"ok       {ch.name}" + (f"  ({ch.message})" if ch.message else ""))
            else:
                bad = ", ".join(f"{k}: {v}" for k, v in ch.problems.items() if v)
                out.append(f"PROBLEM  {ch.name}: {bad}" + (f"  ({ch.message})" if ch.message else ""))
        left = {k: v for k, v in self.pending.items() if v}
        if DAMAGED not in self.errors:  # (a damaged database is not asked what is pending)
            out.append("pending  " + ", ".join(f"{k}: {v}" for k, v in left.items()) if left else "ok       nothing pending")
        if self.busy:
            out.append(f"note     {self.busy} is writing to this data folder now: what it has not finished yet is "
                       f"pending, as expected; run `kith doctor` again when it is done")
        if self.repaired:
            out.append("repaired " + ", ".join(f"{k}: {v}" for k, v in self.repaired.items() if v))
        out += [f"error    {e}" for e in self.errors]
        return out


def _has_column(conn, table: str, column: str) -> bool:
    if conn.dialect.name != "sqlite":
        from sqlalchemy import inspect

        return any(c["name"] == column for c in inspect(conn).get_columns(table))
    return any(r[1] == column for r in conn.exec_driver_sql(f"PRAGMA table_info('{table}')"))


def _live(conn, table: str, alias: str = "") -> str:
    """A WHERE clause selecting the table's live (not tombstoned) rows (columns prefixed ``alias.``)."""
    return f"{alias + '.' if alias else ''}tombstoned_at IS NULL" if _has_column(conn, table, "tombstoned_at") else "1 = 1"


def _ids(conn, q: str) -> set[int]:
    return {int(r[0]) for r in conn.exec_driver_sql(q)}


# ------------------------------------------------------------------------------------------ checks

def _check_sqlite(conn) -> Check:
    if conn.dialect.name != "sqlite":  # a server checks its own pages; Kith checks that it answers
        ch = Check("database")
        ver = conn.exec_driver_sql("SHOW server_version").scalar()
        ch.message = f"PostgreSQL {ver}; signatures and every table on the server"
        return ch
    ch = Check("sqlite")
    res = integrity_problems(conn)
    ch.flag("integrity_check", len(res))
    if res:
        ch.message = "; ".join(res[:3])
    try:
        ch.flag("foreign_key_violations", len(conn.exec_driver_sql("PRAGMA foreign_key_check").all()))
    except DBAPIError as exc:  # a damaged page under a table: integrity_check has said where
        ch.flag("unreadable", 1)
        ch.message = ch.message or _short(exc)
    return ch


def integrity_problems(conn) -> list[str]:
    """SQLite's ``PRAGMA integrity_check`` as a list of problems, one line each (empty when the file is whole).
    A file too damaged for the check to finish is one problem naming SQLite's error."""
    try:
        res = [r[0] for r in conn.exec_driver_sql("PRAGMA integrity_check")]
    except DBAPIError as exc:
        return [_short(exc)]
    lines = [x.strip() for r in res for x in str(r).splitlines() if x.strip() and x.strip() != "ok"]
    return [x for x in lines if not x.startswith("*** in database")]


def _only_indexes(problems: list[str]) -> bool:
    """Whether every problem is an index out of step with its table (``REINDEX`` rebuilds them from the rows)."""
    return bool(problems) and all(("index" in p and not p.startswith("On tree page")) or
                                  p.startswith("wrong # of entries in index") for p in problems)


def _short(exc: BaseException) -> str:
    return str(getattr(exc, "orig", None) or exc).splitlines()[0]


def _check_fts(conn) -> Check:
    ch = Check("fts")
    live = _ids(conn, f"SELECT id FROM record WHERE {_live(conn, 'record')}")
    fts = _ids(conn, "SELECT rowid FROM record_fts")
    ch.flag("records_missing_from_fts", live - fts)
    ch.flag("fts_rows_without_record", fts - live)
    return ch


def _check_vectors(c: Container, conn) -> tuple[Check, Check]:
    rec, fac = Check("record vectors"), Check("fact vectors")
    meta = conn.exec_driver_sql(f"SELECT value FROM storemeta WHERE key = '{pipeline.CHROMA_ID}'").scalar()
    actual = c.vectors.store_id()
    if meta is not None and actual != meta:
        msg = ("the Chroma folder is missing" if actual is None else "the Chroma folder is not the one Kith wrote")
        rec.message = fac.message = msg
    live = f"{_live(conn, 'record')} AND pending & {int(pipeline.Stage.VECTORS)} = 0"
    done = _ids(conn, f"SELECT id FROM record WHERE {live}")
    alive = _ids(conn, f"SELECT id FROM record WHERE {_live(conn, 'record')}")
    have = {id_of(v) for v in c.vectors.ids(RECORDS)}
    rec.flag("vectors_missing", done - have)
    rec.flag("vectors_without_record", have - alive)
    if meta is not None and actual != meta:
        rec.flag("store_replaced", 1)
    fact_live = _live(conn, "fact")
    fdone = _ids(conn, f"SELECT id FROM fact WHERE indexed_at IS NOT NULL AND {fact_live}")
    falive = _ids(conn, f"SELECT id FROM fact WHERE {fact_live}")
    fhave = {id_of(v) for v in c.vectors.ids(FACTS)}
    fac.flag("vectors_missing", fdone - fhave)
    fac.flag("vectors_without_fact", fhave - falive)
    return rec, fac


def _check_signatures(c: Container, conn) -> Check:
    from app.memory import service

    ch = Check("signatures")
    mem = service(c).mem
    if hasattr(mem.structured, "cache_ok"):  # a server: the database holds the rows, the files are this device's cache
        stale = int(not (mem.structured.cache_ok() and mem.gists.cache_ok()))
        ch.info["cache_updated_from_database"] = stale
        ch.message = "signatures in the database; this data folder keeps a cache" + (" (brought up to date)" if stale else "")
    n_s, n_g = mem.structured.refresh(), mem.gists.refresh()
    ch.flag("torn_bytes", mem.structured.torn + mem.gists.torn)
    ch.flag("length_mismatch", abs(n_s - n_g))
    n = min(n_s, n_g)
    rows = conn.exec_driver_sql("SELECT id, signature_row, gist_row, tombstoned_at IS NULL FROM episode "
                                "WHERE signature_row IS NOT NULL").all()
    ch.info["rows"] = n
    ch.info["episodes_with_signatures"] = len(rows)
    if not rows:
        return ch
    arr = np.array([(r[0], r[1], r[2] if r[2] is not None else -1, int(r[3])) for r in rows], dtype=np.int64)
    ids, srow, grow, alive = arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3].astype(bool)
    ch.flag("rows_outside_files", ids[(srow >= n) | (srow < 0)].tolist())
    ch.flag("gist_row_differs", ids[grow != srow].tolist())
    uniq, counts = np.unique(srow, return_counts=True)
    shared = set(uniq[counts > 1].tolist())
    ch.flag("rows_shared_by_episodes", ids[np.isin(srow, list(shared))].tolist() if shared else [])
    inside = alive & (srow < n) & (srow >= 0)
    zero: list[int] = []
    if inside.any():
        data = mem.structured.rows()
        for i in range(0, int(inside.sum()), 65536):
            sel = np.flatnonzero(inside)[i:i + 65536]
            z = ~np.asarray(data[srow[sel]]).any(axis=1)
            zero += ids[sel][z].tolist()
    ch.flag("live_episodes_with_zeroed_rows", zero)
    referenced = np.zeros(n, dtype=bool)
    ok = (srow >= 0) & (srow < n)
    referenced[srow[ok]] = True
    invalid = mem.structured.invalid()
    referenced[invalid[invalid < n]] = True
    ch.info["unreferenced_rows"] = int((~referenced).sum())  # reclaimed by the next compaction; harmless
    return ch


def _check_lexicon(conn) -> Check:
    """The episode lexicon (``core/retrieval/lexicon.py``): every live episode indexed, no row for a gone or
    tombstoned one, and every indexed episode's full-text row present (no full-text row without its document)."""
    from core.retrieval import lexicon

    ch = Check("lexicon")
    ch.flag("episodes_missing_from_lexicon", lexicon.missing(conn))
    stale = lexicon.stale(conn)
    ch.flag("lexicon_rows_without_live_episode", stale)
    no_row, no_doc = lexicon.fts_gaps(conn)
    no_row = sorted(set(no_row) - set(stale))  # a stale document goes whole: counted once, above
    for what, items in (("lexicon_fts_rows_missing", no_row), ("lexicon_fts_rows_without_document", no_doc)):
        if items:  # named only when found (the usual report keeps its two lexicon counts)
            ch.flag(what, items)
    if lexicon.tokens_version(conn) < lexicon.TOKENS_VERSION:  # e.g. Chinese words indexed whole, asked in pairs
        ch.flag("lexicon_words_split_the_old_way", conn.exec_driver_sql("SELECT count(*) FROM lexdoc").scalar())
    return ch


def _check_episodes(conn) -> Check:
    ch = Check("episodes")
    ch.flag("records_without_episode", _ids(conn, f"SELECT r.id FROM record r LEFT JOIN episode e ON e.record_id = r.id "
                                                  f"WHERE e.id IS NULL AND {_live(conn, 'record', 'r')}"))
    return ch


LEDGER_PERSON_COLUMNS = (("person_profile", "person_id"), ("message", "person_id"), ("signal", "owner"),
                         ("session_signal", "owner"), ("signal_agg", "owner"), ("signal_wm", "owner"),
                         ("person_pattern", "person_id"), ("observation", "person_id"),
                         ("conversation_session", "person_id"), ("preference_vector", "person_id"))


def _check_ledger(conn) -> Check:
    ch = Check("ledger")
    people: set[int] = set()
    for table, col in LEDGER_PERSON_COLUMNS:
        if table in SQLModel.metadata.tables:
            people |= _ids(conn, f"SELECT DISTINCT {col} FROM {table} WHERE {col} > 0 "
                                 f"AND {col} NOT IN (SELECT id FROM entity)")
    ch.flag("rows_about_missing_people", people)
    return ch


def diagnose(c: Container) -> DoctorReport:
    """Run every check (read-only).  Returns the :class:`DoctorReport` (``repaired`` empty)."""
    c.refresh()
    with c.db.engine.connect() as conn:
        checks = [_check_sqlite(conn)]
        for name, run in (("fts", lambda: [_check_fts(conn)]), ("vectors", lambda: list(_check_vectors(c, conn))),
                          ("signatures", lambda: [_check_signatures(c, conn)]),
                          ("episodes", lambda: [_check_episodes(conn)]), ("lexicon", lambda: [_check_lexicon(conn)]),
                          ("ledger", lambda: [_check_ledger(conn)])):
            try:
                checks += run()
            except DBAPIError as exc:  # a damaged database page: say which check could not read, never a traceback
                ch = Check(name, message=f"could not be checked: the database could not be read ({_short(exc)})")
                ch.flag("unreadable", 1)
                checks.append(ch)
    if not checks[0].ok and checks[0].problems.get("integrity_check"):
        return DoctorReport(checks, errors=[DAMAGED])
    pending = pipeline.pending(c)
    if "forget_op" in SQLModel.metadata.tables:  # a forget whose later steps (or the purge it asked for) a crash cut short
        from app.operations.forget import unfinished

        pending["forgets"] = len(unfinished(c))
    return DoctorReport(checks, pending=pending, busy=_other_writer(c))


def _other_writer(c: Container) -> str:
    """Who else is writing to the data folder now — its lock's holder (``"pid 123: kith ingest …"``) when that process
    of this machine is alive (a holder a crash left named is no one) — or ``""``."""
    import os
    import re

    lock = getattr(c, "lock", None)
    who = lock.holder() if lock is not None and hasattr(lock, "holder") else ""
    m = re.match(r"pid (\d+):", who or "")  # a server's lock names a host too ("pid 1 on laptop: …"): not checked
    if m is None or int(m.group(1)) == os.getpid():
        return ""
    try:
        os.kill(int(m.group(1)), 0)
    except ProcessLookupError:
        return ""
    except OSError:  # alive, another user's
        pass
    return who


# ------------------------------------------------------------------------------------------ repair

def _repair_on_writer(c: Container, found: DoctorReport) -> dict[str, int]:
    from app.memory import service

    did: dict[str, int] = {}
    checks = {ch.name: ch for ch in found.checks}
    mem = service(c).mem
    # signature files: cut torn and orphan tails, then give episodes whose rows are bad new signatures
    with c.db.session() as s:
        conn = s.connection()
        n = min(mem.structured.refresh(), mem.gists.refresh())
        torn = mem.structured.torn + mem.gists.torn
        bad: set[int] = set()
        sig = checks["signatures"].problems
        if any(sig.get(k) for k in ("rows_outside_files", "rows_shared_by_episodes", "live_episodes_with_zeroed_rows",
                                    "gist_row_differs")):
            rows = conn.exec_driver_sql("SELECT id, signature_row, gist_row, tombstoned_at IS NULL FROM episode "
                                        "WHERE signature_row IS NOT NULL").all()
            by_row: dict[int, list[int]] = {}
            for eid, r, g, _ in rows:
                by_row.setdefault(int(r), []).append(int(eid))
            data = mem.structured.rows()
            for eid, r, g, alive in rows:
                if r >= n or r < 0 or g != r or len(by_row[int(r)]) > 1 or (alive and not np.asarray(data[r]).any()):
                    bad.add(int(eid))
            shared_rows = sorted({int(r) for eid, r, _, _ in rows if int(eid) in bad and 0 <= r < n})
            for i in range(0, len(bad), 500):
                part = ",".join(str(e) for e in sorted(bad)[i:i + 500])
                conn.exec_driver_sql(f"UPDATE episode SET signature_row = NULL, gist_row = NULL WHERE id IN ({part})")
            if shared_rows:
                mem.structured.invalidate(shared_rows)
                mem.gists.invalidate(shared_rows)
        did["episodes_re_encoded"] = len(bad)
    if torn or checks["signatures"].problems.get("length_mismatch"):
        before = (mem.structured.refresh(), mem.gists.refresh())
        mem.align_files()
        did["signature_rows_cut"] = sum(before) - len(mem.structured) - len(mem.gists)
        did["torn_bytes_cut"] = torn
    mem.reload()
    # episodes for records that have none (the memory stage then signs them)
    with c.db.session() as s:
        conn = s.connection()
        live = _live(conn, "record")
        missing = conn.exec_driver_sql(
            "SELECT r.id, r.subject, r.text, r.sent_at FROM record r LEFT JOIN episode e ON e.record_id = r.id "
            f"WHERE e.id IS NULL AND {_live(conn, 'record', 'r')}").all()
        for rid, subject, text, sent in missing:
            conn.exec_driver_sql("INSERT INTO episode(record_id, text, t_valid, t_recorded, provenance, confidence) "
                                 "VALUES (?, ?, ?, CURRENT_TIMESTAMP, ?, 1.0)",
                                 (rid, pipeline.embed_text(subject, text), sent, f"record:{rid}"))
        did["episodes_created"] = len(missing)
        # FTS: index what is missing, drop orphans
        alive = _ids(conn, f"SELECT id FROM record WHERE {live}")
        fts = _ids(conn, "SELECT rowid FROM record_fts")
        did["fts_rows_dropped"] = search.delete_records(conn, sorted(fts - alive))
        todo = sorted(alive - fts)
        for i in range(0, len(todo), 500):
            part = ",".join(str(x) for x in todo[i:i + 500])
            for rid, subject, text, name, alias in conn.exec_driver_sql(
                    "SELECT r.id, r.subject, r.text, e.canonical_name, (SELECT a.value FROM alias a WHERE "
                    "a.entity_id = e.id AND a.kind IN ('email', 'phone', 'handle') ORDER BY a.id LIMIT 1) "
                    f"FROM record r LEFT JOIN entity e ON e.id = r.sender_entity_id WHERE r.id IN ({part})").all():
                search.index_record(conn, rid, subject or "", text or "", " ".join(x for x in (name, alias) if x))
        did["fts_rows_indexed"] = len(todo)
        # the episode lexicon: stale rows out, missing episodes in (their neighbours' windows follow)
        from core.retrieval import lexicon

        did["lexicon_rows_dropped"] = lexicon.remove(conn, lexicon.stale(conn))
        if lexicon.tokens_version(conn) < lexicon.TOKENS_VERSION:  # every document split again as words are now
            did["lexicon_rows_resplit"] = lexicon.rebuild(conn)
        did["lexicon_rows_indexed"] = lexicon.rebuild(conn, lexicon.missing(conn))
        no_row, no_doc = lexicon.fts_gaps(conn)
        # a full-text row whose document is gone: nothing to rebuild it from
        did["lexicon_fts_rows_dropped"] = lexicon.drop_rows(conn, no_doc)
        did["lexicon_fts_rows_rewritten"] = lexicon.rewrite(conn, no_row) if no_row else 0  # (and their neighbours')
    # vectors: a lost store is rebuilt; missing vectors are redone; orphans go
    msg = pipeline.check_vector_store(c)
    did["vector_store_rebuilt"] = int(msg is not None)
    with c.db.session() as s:
        conn = s.connection()
        alive = _ids(conn, f"SELECT id FROM record WHERE {_live(conn, 'record')}")
        have = {id_of(v) for v in c.vectors.ids(RECORDS)}
        done = _ids(conn, f"SELECT id FROM record WHERE pending & {int(pipeline.Stage.VECTORS)} = 0 "
                          f"AND {_live(conn, 'record')}")
        redo = sorted(done - have)
        for i in range(0, len(redo), 500):
            part = ",".join(str(x) for x in redo[i:i + 500])
            conn.exec_driver_sql(f"UPDATE record SET pending = pending | {int(pipeline.Stage.VECTORS)} "
                                 f"WHERE id IN ({part})")
        did["record_vectors_redone"] = len(redo) if not msg else 0
        did["record_vectors_dropped"] = c.vectors.delete(RECORDS, [record_vid(i) for i in sorted(have - alive)])
        falive = _ids(conn, f"SELECT id FROM fact WHERE {_live(conn, 'fact')}")
        fhave = {id_of(v) for v in c.vectors.ids(FACTS)}
        fdone = _ids(conn, f"SELECT id FROM fact WHERE indexed_at IS NOT NULL AND {_live(conn, 'fact')}")
        fredo = sorted(fdone - fhave)
        for i in range(0, len(fredo), 500):
            part = ",".join(str(x) for x in fredo[i:i + 500])
            conn.exec_driver_sql(f"UPDATE fact SET indexed_at = NULL WHERE id IN ({part})")
        did["fact_vectors_redone"] = len(fredo) if not msg else 0
        did["fact_vectors_dropped"] = c.vectors.delete(FACTS, [fact_vid(i) for i in sorted(fhave - falive)])
    # the ledger: rows about people who no longer exist
    orphans = _orphan_people(c)
    if orphans:
        from app.personal import personal_service

        svc = personal_service(c)
        did["ledger_rows_dropped"] = sum(sum(svc.forget_person(p).values()) for p in sorted(orphans))
    return did


def _orphan_people(c: Container) -> set[int]:
    """Ids that personalization rows point at but no entity has (a forget that stopped half-way)."""
    out: set[int] = set()
    with c.db.engine.connect() as conn:
        for table, col in LEDGER_PERSON_COLUMNS:
            if table in SQLModel.metadata.tables:
                out |= _ids(conn, f"SELECT DISTINCT {col} FROM {table} WHERE {col} > 0 "
                                  f"AND {col} NOT IN (SELECT id FROM entity)")
    return out


DAMAGED = ("the database file (kith.sqlite3) is damaged: `kith doctor --repair` rebuilds damaged indexes; with damaged "
           "table pages it changes nothing (the other stores are repaired from the database, which would lose what "
           "they hold); keep a copy of the data folder as it is, then restore an earlier `kith export` with "
           "`kith import-archive`, or import your files again, into a new data folder")


def _reindex(c: Container) -> int:
    """``REINDEX`` when SQLite's integrity check finds only indexes out of step with their tables (rebuilt from
    the rows, nothing lost).  Returns 1 when it ran and the file is whole again, else 0."""
    if c.db.server:
        return 0
    with c.db.engine.connect() as conn:
        problems = integrity_problems(conn)
        if not _only_indexes(problems):
            return 0
        conn.exec_driver_sql("REINDEX")
        conn.commit()
        return int(not integrity_problems(conn))


def repair(c: Container, progress: Callable[[str, int, int], None] | None = None, cancel=None) -> DoctorReport:
    """Check, repair what the checks found (under the writer lock), complete every pending stage, and check
    again.

    Args:
        c: the container.
        progress: ``progress(stage, done, total)`` while pending stages are completed.
        cancel: a ``threading.Event``; completing stops after the current batch when set.

    Returns:
        The report of the check made after the repair, with ``repaired`` counting what was done.
    """
    with c.lock.hold():
        from app.operations.forget import resume_pending

        reindexed = c.writer.run(_reindex, c)
        found = diagnose(c)
        if DAMAGED in found.errors:  # every other repair reads the database: none runs on a damaged one
            found.repaired = {"sqlite_indexes_rebuilt": reindexed} if reindexed else {}
            return found
        resumed_forgets = resume_pending(c)  # a forget a crash cut short is finished before anything is checked
        found = diagnose(c)
        did = c.writer.run(_repair_on_writer, c, found)
        did["forgets_finished"] = len(resumed_forgets)
        did["sqlite_indexes_rebuilt"] = reindexed
        done = pipeline.complete_pending(c, progress=progress, cancel=cancel)
        for stage, n in done.done.items():
            did[f"completed {stage}"] = n
        from app.memory import service

        mem = service(c).mem
        if hasattr(mem.structured, "rebuild"):  # a server: this device's signature cache is rebuilt from the database
            did["signature cache rows rebuilt"] = c.writer.run(lambda: mem.structured.rebuild() + mem.gists.rebuild())
        c.writer.run(mem.reload)
        c.writer.run(c.db.ensure_indexes)  # e.g. the one-row-per-episode index, once duplicates are gone
    after = diagnose(c)
    after.repaired = {k: v for k, v in did.items() if v}
    after.errors += done.errors
    return after

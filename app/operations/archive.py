"""Export and import the whole memory as one archive (``core/store/archive.py``, ``docs/archive-format.md``).

* :func:`export_archive` reads every store — the database's tables (entities, aliases, facts with their
  history, records, episodes, memory, the personalization ledger, summaries, …), the full-text rows, the
  HDC signature rows of every exported episode and the record and fact vectors — and writes them as one
  file, streamed (one row in memory at a time).  It is a read: it takes no lock and writes nothing into
  the data folder; the database is read inside one read transaction (one snapshot).  Whatever a forget
  hides (until its purge) is left out, as are the forget stash and the forget operations not yet purged:
  a forgotten person is not in an export made after the forget.
* :func:`import_archive` checks the whole archive against its manifest's checksums first, then writes it
  into an empty data folder (or an empty server database): the same ids, so entities, facts and ``ask``
  results are the same as in the data folder it came from.

Both go through the container's stores, whatever the database URL and vector store location are, so
``kith migrate`` (an embedded folder into a server setup) uses the same two functions.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Callable

import numpy as np
from sqlalchemy import Integer, select
from sqlmodel import SQLModel

from app.container import Container
from core import clock
from core.errors import KithError
from core.hdc import NBYTES
from core.store.archive import (FORMAT_VERSION, ArchiveReader, ArchiveWriter, decode_value, decode_vector,
                                encode_value, encode_vector)
from core.store.collections import FACTS, RECORDS, id_of

Progress = Callable[[str, int, int], None]

SKIP_TABLES = {
    "forget_stash": "the originals a forget keeps for its restore: never leave the data folder",
    "storemeta": "this data folder's own bookkeeping (the vector store's random id)",
    "signaturecompaction": "a compaction in progress in this data folder's signature files",
}
"""Tables an archive never holds, with the reason."""

LATE_TABLES = ("signal_wm", "signal_agg")
"""Imported after ``signal``: the ledger's trigger folds a late ``signal`` row into ``signal_agg`` when its
pair's watermark exists, so the watermark and the aggregate go in last, exactly as exported."""

NAME_REFS = {"lexdoc": {"episode_id": "episode"}}
"""References the schema does not declare as foreign keys (table → column → referenced table)."""

FTS_TABLES = {"record_fts": ("record", ("subject", "body", "people")),
              "observation_fts": ("observation", ("text",))}
"""Full-text tables exported row by row (rowid = the id of the row in the table named beside it)."""

SIGNATURE_FILES = (("signatures", "signature_row"), ("gists", "gist_row"))


@dataclass
class ArchiveReport:
    """What an export or an import did: the archive's path and manifest, rows per member, seconds."""

    path: str
    manifest: dict = field(default_factory=dict)
    counts: dict = field(default_factory=dict)
    seconds: float = 0.0
    verified_bytes: int = 0

    def to_json(self) -> dict:
        return asdict(self)


def _tables() -> list:
    import core.store.db  # noqa: F401  (registers every table)

    order = [t for t in SQLModel.metadata.sorted_tables if t.name not in SKIP_TABLES]
    late = [t for t in order if t.name in LATE_TABLES]
    return [t for t in order if t.name not in LATE_TABLES] + late


def _refs(table) -> dict[str, str]:
    """Column → referenced table for every foreign key of ``table`` (and :data:`NAME_REFS`)."""
    out = {fk.parent.name: fk.column.table.name for fk in table.foreign_keys}
    out.update(NAME_REFS.get(table.name, {}))
    return out


def _int_pk(table) -> str | None:
    pk = list(table.primary_key.columns)
    return pk[0].name if len(pk) == 1 and isinstance(pk[0].type, Integer) else None


def forgotten(conn) -> dict[str, set[int]]:
    """Ids hidden by forgets not yet purged nor restored, per table (``core.store.forgetting.Scope`` and the
    memory store's selection, as each forget's row keeps them)."""
    out: dict[str, set[int]] = {}

    def add(tbl, ids):
        out.setdefault(tbl, set()).update(int(i) for i in ids or ())
    rows = conn.exec_driver_sql("SELECT plan FROM forget_op WHERE state NOT IN ('restored', 'purged')").fetchall()
    for (plan,) in rows:
        plan = json.loads(plan) if isinstance(plan, str) else (plan or {})
        sc = plan.get("scope", {})
        add("entity", sc.get("entities"))
        add("entity", sc.get("orphans"))
        add("record", sc.get("records"))
        add("fact", sc.get("facts"))
        add("episode", sc.get("episodes"))
        add("source", sc.get("sources"))
        mem = plan.get("memory", {})
        add("semanticatom", mem.get("atoms_withdrawn"))
        add("belief", mem.get("beliefs_withdrawn"))
        add("concept", mem.get("concepts"))
        add("procedure", mem.get("procedures"))
    eps = sorted(out.get("episode", ()))
    if eps:  # concepts (terms, names) that only forgotten episodes were posted under go too
        cand: set[int] = set()
        for i in range(0, len(eps), 500):
            part = eps[i:i + 500]
            cand |= {r[0] for r in conn.exec_driver_sql(
                f"SELECT DISTINCT concept_id FROM conceptposting WHERE episode_id IN ({','.join(map(str, part))})")}
        live: set[int] = set()
        cl = sorted(cand)
        gone = set(eps)
        for i in range(0, len(cl), 500):
            part = cl[i:i + 500]
            for cid, eid in conn.exec_driver_sql(
                    f"SELECT concept_id, episode_id FROM conceptposting WHERE concept_id IN ({','.join(map(str, part))})"):
                if eid not in gone:
                    live.add(cid)
        add("concept", cand - live)
    return out


def _settings_json(c: Container) -> dict:
    from app.settings import Settings

    data = {f.name: getattr(c.settings, f.name) for f in fields(Settings)
            if f.name not in ("home", "database_url", "chroma_url")}  # locations (and a URL may hold a password)
    return json.loads(json.dumps(data, default=str))


# ------------------------------------------------------------------------------------------------ export

def export_archive(c: Container, path: str | Path, progress: Progress | None = None) -> ArchiveReport:
    """Write the whole memory of ``c`` to the archive ``path`` (replaced if it exists).

    Reads only: no lock, nothing written into the data folder.  Streams: one row (or one batch of vectors)
    in memory at a time.

    Args:
        c: the container of the data folder (or server setup) to export.
        path: the archive to write (``.kith.zip`` by convention); written as ``path.partial`` first.
        progress: ``progress(stage, done, total)``.

    Returns:
        :class:`ArchiveReport` with the manifest (counts and checksums per member).

    Raises:
        KithError: the path is inside the data folder (an export must not write there).
    """
    from app.about import version
    from core.store.db import SCHEMA_VERSION

    t0 = time.perf_counter()
    path = Path(path).expanduser().resolve()
    home = Path(c.settings.home).resolve()
    if home == path or home in path.parents:
        raise KithError(f"{path}: write the archive outside the data folder ({home}); exporting never writes there")
    c.refresh()
    tables = _tables()
    w = ArchiveWriter(path)
    counts: dict[str, int] = {}
    try:
        with c.db.engine.connect() as conn:
            if conn.dialect.name == "sqlite":
                conn.exec_driver_sql("BEGIN")  # one read snapshot for every table (WAL)
            else:
                conn = conn.execution_options(isolation_level="REPEATABLE READ")
            drop = forgotten(conn)
            kept: dict[str, set[int]] = {"record": set(), "fact": set(), "observation": set()}
            sig_rows: dict[str, list[int]] = {name: [] for name, _ in SIGNATURE_FILES}
            for i, table in enumerate(tables):
                if progress is not None:
                    progress("tables", i, len(tables))
                counts[table.name] = _export_table(conn, w, table, drop, kept, sig_rows)
            for fts, (base, cols) in FTS_TABLES.items():
                counts[fts] = _export_fts(conn, w, fts, cols, kept.get(base, set()))
            conn.rollback()
        counts.update(_export_signatures(c, w, sig_rows))
        for name in (RECORDS, FACTS):
            counts[f"vectors.{name}"] = _export_vectors(c, w, name, kept["record" if name == RECORDS else "fact"], progress)
        with w.member("settings.json") as m:
            m.write(json.dumps(_settings_json(c), indent=2, ensure_ascii=False).encode("utf-8"), rows=1)
        header = {"kith_version": version(), "schema_version": SCHEMA_VERSION, "created_at": clock.now().isoformat(),
                  "source": {"database": c.db.engine.dialect.name, "vectors": "server" if _is_server(c) else "embedded"},
                  "counts": _summary(counts)}
        manifest = w.finish(header)
    except BaseException:
        w.abort()
        raise
    return ArchiveReport(str(path), manifest, counts, round(time.perf_counter() - t0, 3))


def _is_server(c: Container) -> bool:
    return bool(c.vectors_url)


def _summary(counts: dict[str, int]) -> dict:
    """The counts a person (and ``kith migrate``) compares: the main tables, signatures and vectors."""
    keys = {"entities": "entity", "aliases": "alias", "facts": "fact", "records": "record", "episodes": "episode",
            "sources": "source", "summaries": "summary", "ledger_signals": "signal", "observations": "observation",
            "messages": "message", "signatures": "signatures", "gists": "gists",
            "record_vectors": f"vectors.{RECORDS}", "fact_vectors": f"vectors.{FACTS}"}
    return {k: counts.get(v, 0) for k, v in keys.items()}


def _export_table(conn, w: ArchiveWriter, table, drop: dict[str, set[int]], kept: dict[str, set[int]],
                  sig_rows: dict[str, list[int]]) -> int:
    pk = _int_pk(table)
    refs = _refs(table)
    cols = list(table.columns)
    pk_cols = {c.name for c in table.primary_key.columns}
    own_drop = drop.setdefault(table.name, set())
    n = 0
    stmt = select(table)
    if pk is not None:
        stmt = stmt.order_by(table.c[pk])
    elif table.primary_key.columns:
        stmt = stmt.order_by(*table.primary_key.columns)
    with w.member(f"tables/{table.name}.jsonl") as m:
        for row in conn.execute(stmt).yield_per(2000):
            d = dict(zip((c.name for c in cols), row))
            if pk is not None and d[pk] in own_drop:
                continue
            if table.name == "forget_op" and d.get("state") != "purged":
                continue  # a forget still restorable names its target; purged ones keep counts and a hash only
            gone = False
            for col, tgt in refs.items():
                v = d.get(col)
                if v is not None and v in drop.get(tgt, ()):
                    if table.c[col].nullable and col not in pk_cols:
                        d[col] = None
                    else:
                        gone = True
                        break
            if gone:
                if pk is not None:
                    own_drop.add(d[pk])
                continue
            if table.name == "episode":
                for name, col in SIGNATURE_FILES:
                    if d.get(col) is not None:
                        sig_rows[name].append(int(d[col]))
                        d[col] = len(sig_rows[name]) - 1
            if table.name in kept and pk is not None:
                kept[table.name].add(d[pk])
            m.line({k: encode_value(v) for k, v in d.items()})
            n += 1
    return n


def _export_fts(conn, w: ArchiveWriter, fts: str, cols: tuple[str, ...], keep: set[int]) -> int:
    from core.store import dialect

    n = 0
    with w.member(f"fts/{fts}.jsonl") as m:
        for row in dialect.fts_rows(conn, fts, cols):
            if row[0] in keep:
                m.line({"rowid": row[0], **dict(zip(cols, row[1:]))})
                n += 1
    return n


def _export_signatures(c: Container, w: ArchiveWriter, sig_rows: dict[str, list[int]]) -> dict[str, int]:
    from app.memory import signature_source

    out = {}
    for name, _col in SIGNATURE_FILES:
        rows = np.asarray(sig_rows[name], dtype=np.int64)
        src = signature_source(c, name)
        with w.member(f"signatures/{name}.bin", compress=False) as m:
            for i in range(0, len(rows), 4096):
                part = src.read(rows[i:i + 4096])
                m.write(np.ascontiguousarray(part, dtype=np.uint8).tobytes(), rows=len(part))
        out[name] = len(rows)
    return out


def _export_vectors(c: Container, w: ArchiveWriter, name: str, keep: set[int], progress: Progress | None) -> int:
    n = 0
    with w.member(f"vectors/{name}.jsonl") as m:
        for vid, vec, meta in c.vectors.iterate(name):
            try:
                if id_of(vid) not in keep:
                    continue
            except (ValueError, IndexError):
                continue
            m.line({"id": vid, "embedding": encode_vector(vec),
                    "metadata": {k: meta[k] for k in sorted(meta)} if meta else None})
            n += 1
            if progress is not None and n % 5000 == 0:
                progress(f"vectors {name}", n, 0)
    return n


# ------------------------------------------------------------------------------------------------ import

def _target_rows(c: Container) -> dict[str, int]:
    with c.db.engine.connect() as conn:
        return {t: int(conn.exec_driver_sql(f"SELECT count(*) FROM {t}").scalar() or 0)
                for t in ("entity", "record", "fact", "episode")}


def import_archive(c: Container, path: str | Path, progress: Progress | None = None,
                   settings: bool = True) -> ArchiveReport:
    """Put the archive ``path`` into ``c``'s stores, which must hold no memory yet.

    Every member's checksum is verified before anything is written; the tables, full-text rows and the
    episode lexicon go in one database transaction; signatures are appended to the (empty) signature
    files; vectors are written to the (empty) collections.  Ids are kept.

    Args:
        c: the container of the target (an empty data folder, or an empty server setup).
        path: the archive.
        progress: ``progress(stage, done, total)``.
        settings: also write the archive's settings into the target's ``settings.json``.

    Returns:
        :class:`ArchiveReport` (rows imported per member).

    Raises:
        core.store.archive.ArchiveError: not a Kith archive, corrupt, or from a newer Kith.
        KithError: the target already holds a memory.
    """
    t0 = time.perf_counter()
    with ArchiveReader(Path(path)) as r:
        verified = r.verify(progress)
        have = _target_rows(c)
        if any(have.values()):
            raise KithError(f"{c.settings.home}: the target already holds a memory "
                            f"({', '.join(f'{v} {k}' for k, v in have.items() if v)}); import into an empty data folder")
        counts = c.writer.run(_import_on_writer, c, r, progress)
        if settings and r.has("settings.json"):
            _apply_settings(c, r.read_json("settings.json"))
    return ArchiveReport(str(path), r.manifest, counts, round(time.perf_counter() - t0, 3), verified)


def _apply_settings(c: Container, data: dict) -> None:
    from app.settings import Settings

    known = {f.name for f in fields(Settings)} - {"home", "database_url", "chroma_url"}
    for k, v in data.items():
        if k in known:
            setattr(c.settings, k, v)
    c.settings.save()


def _import_on_writer(c: Container, r: ArchiveReader, progress: Progress | None) -> dict[str, int]:
    from app.memory import service

    counts: dict[str, int] = {}
    mem = service(c).mem
    if mem.structured.refresh() or mem.gists.refresh():
        raise KithError(f"{c.settings.home}: the signature files are not empty; import into an empty data folder")
    # 1. signatures first: a crash after them leaves files no episode cites (doctor's business), never an
    #    episode citing a missing row.
    for name, _col in SIGNATURE_FILES:
        member = f"signatures/{name}.bin"
        target = mem.structured if name == "signatures" else mem.gists
        n = 0
        if r.has(member):
            with r.open(member) as fh:
                while True:
                    b = fh.read(NBYTES * 4096)
                    if not b:
                        break
                    if len(b) % NBYTES:
                        raise KithError(f"{r.path}: {member} is not whole 1024-byte rows")
                    target.append(np.frombuffer(b, dtype=np.uint8).reshape(-1, NBYTES))
                    n += len(b) // NBYTES
        counts[name] = n
    # 2. the database, in one transaction; if it fails, the signature rows just written are taken back
    tables = _tables()
    try:
        with c.db.engine.begin() as conn:
            for table in reversed(tables):  # a new database holds defaults (e.g. the ledger's cohorts)
                conn.execute(table.delete())
            for i, table in enumerate(tables):
                if progress is not None:
                    progress("tables", i, len(tables))
                member = f"tables/{table.name}.jsonl"
                counts[table.name] = _import_table(conn, r, member, table) if r.has(member) else 0
            for fts, (_base, cols) in FTS_TABLES.items():
                member = f"fts/{fts}.jsonl"
                counts[fts] = _import_fts(conn, r, member, fts, cols) if r.has(member) else 0
            from core.store import dialect

            dialect.after_bulk_insert(conn, tables)
            from core.retrieval import lexicon

            counts["episode_lex"] = lexicon.reindex(conn)
    except BaseException:
        _take_back_signatures(c, mem)
        raise
    # 3. vectors, then the store's identity (so the next import does not think the vector store was replaced)
    for name in (RECORDS, FACTS):
        member = f"vectors/{name}.jsonl"
        counts[f"vectors.{name}"] = _import_vectors(c, r, member, name) if r.has(member) else 0
    from app.pipeline import claim_vector_store

    claim_vector_store(c)
    mem.refresh()
    c.names.invalidate()
    return counts


def _take_back_signatures(c: Container, mem) -> None:
    """Empty the signature stores again after a failed import (the target was empty before it)."""
    try:
        if c.db.server:
            with c.db.engine.begin() as conn:
                conn.exec_driver_sql("DELETE FROM hdc_row")
            mem.structured.rebuild()
            mem.gists.rebuild()
        else:
            mem.structured.repair(0)
            mem.gists.repair(0)
    except Exception:  # the import's own error is the one to report
        pass


def _import_table(conn, r: ArchiveReader, member: str, table) -> int:
    """Insert the rows of ``member`` into ``table``; returns how many.  A row referring to a row of the same table
    not yet inserted (a fact's ``superseded_by``: the later fact that replaced it, a higher id) waits until that
    row is in, so every row's references hold when it is inserted (foreign keys are checked per row; the row is
    inserted whole, so a superseded fact is never briefly an active one beside its successor)."""
    types = {col.name: col.type for col in table.columns}
    pk = _int_pk(table)
    own = [fk.parent.name for fk in table.foreign_keys if fk.column.table.name == table.name] if pk else []
    seen: set = set()
    waiting: dict = {}  # referenced id → rows waiting for it
    n = 0
    batch: list[dict] = []

    def add(row: dict) -> None:
        ready = [row]
        while ready:
            row = ready.pop()
            missing = next((row[c] for c in own if row.get(c) is not None and row[c] not in seen
                            and row[c] != row[pk]), None)
            if missing is not None:
                waiting.setdefault(missing, []).append(row)
                continue
            batch.append(row)
            if own:
                seen.add(row[pk])
                ready.extend(waiting.pop(row[pk], ()))

    for obj in r.lines(member):
        add({k: decode_value(v, types[k]) for k, v in obj.items() if k in types})
        if len(batch) >= 2000:
            conn.execute(table.insert(), batch)
            n += len(batch)
            batch = []
    for rows in list(waiting.values()):  # referring to a row the archive does not hold: kept, the link cut
        for row in rows:
            batch.append({**row, **{c: None for c in own if row.get(c) is not None and row[c] not in seen}})
    if batch:
        conn.execute(table.insert(), batch)
        n += len(batch)
    return n


def _import_fts(conn, r: ArchiveReader, member: str, fts: str, cols: tuple[str, ...]) -> int:
    from core.store import dialect

    n = 0
    batch = []
    for obj in r.lines(member):
        batch.append((obj["rowid"], *(obj.get(col) or "" for col in cols)))
        if len(batch) >= 2000:
            n += dialect.fts_insert(conn, fts, cols, batch)
            batch = []
    return n + dialect.fts_insert(conn, fts, cols, batch)


def _import_vectors(c: Container, r: ArchiveReader, member: str, name: str) -> int:
    n = 0
    ids, vecs, metas = [], [], []

    def flush():
        nonlocal ids, vecs, metas
        if ids:
            c.vectors.upsert(name, ids, np.stack(vecs), metas if any(metas) else None)
        ids, vecs, metas = [], [], []
    for obj in r.lines(member):
        ids.append(obj["id"])
        vecs.append(decode_vector(obj["embedding"]))
        metas.append(obj.get("metadata") or None)
        n += 1
        if len(ids) >= 1000:
            flush()
    flush()
    return n


def archive_format_version() -> int:
    """The archive format version this Kith writes (and the newest it reads)."""
    return FORMAT_VERSION


# ----------------------------------------------------------------------------------------------- migrate

VERIFIED = ("tables/entity.jsonl", "tables/alias.jsonl", "tables/record.jsonl", "tables/fact.jsonl",
            "tables/episode.jsonl", "tables/signal.jsonl", "fts/record_fts.jsonl", "signatures/signatures.bin",
            "signatures/gists.bin", f"vectors/{RECORDS}.jsonl", f"vectors/{FACTS}.jsonl")
"""The members :func:`migrate` compares between the source and the target (records, facts, vectors,
signatures, and what ties them together)."""


@dataclass
class MigrateReport:
    """What ``kith migrate`` copied and checked: per member, rows and an order-free checksum on each side."""

    source: str
    target_database: str
    target_vectors: str
    archive_bytes: int = 0
    seconds: float = 0.0
    members: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return bool(self.members) and all(m["equal"] for m in self.members.values())

    def to_json(self) -> dict:
        return {**asdict(self), "ok": self.ok}

    def lines(self) -> list[str]:
        out = [f"migrated {self.source} → {self.target_database} + {self.target_vectors} "
               f"({self.archive_bytes / 1e6:.1f} MB through the archive format, {self.seconds:.1f} s)"]
        for name, m in self.members.items():
            extra = (f"  (ids + metadata; vectors within {m['max_abs_difference']:.1e})"
                     if "max_abs_difference" in m else "")
            out.append(f"  {name:<28} {m['source_rows']:>8} → {m['target_rows']:<8} sha256 {m['source_sha256'][:12]}… "
                       f"{'=' if m['equal'] else '≠'} {m['target_sha256'][:12]}…  {'ok' if m['equal'] else 'DIFFERS'}{extra}")
        out.append("ok: counts and checksums equal; the source is unchanged" if self.ok else
                   "PROBLEM: the target differs from the source (the source is unchanged)")
        return out


def _set_checksum(r: ArchiveReader, name: str) -> tuple[int, str]:
    """(rows, SHA-256 of the sorted SHA-256s of the member's rows): equal whatever order the rows came in."""
    import hashlib

    hs = []
    if name.endswith(".bin"):
        with r.open(name) as fh:
            while True:
                b = fh.read(NBYTES)
                if not b:
                    break
                hs.append(hashlib.sha256(b).digest())
        # signature rows follow the episodes (by id): their order is part of what must match
        return len(hs), hashlib.sha256(b"".join(hs)).hexdigest()
    with r.open(name) as fh:
        for line in fh:
            if line.strip():
                hs.append(hashlib.sha256(line.rstrip(b"\n")).digest())
    hs.sort()
    return len(hs), hashlib.sha256(b"".join(hs)).hexdigest()


def migrate(c: Container, to: str, chroma: str, progress: Progress | None = None,
            work: Path | None = None) -> MigrateReport:
    """Copy the memory of ``c`` (an embedded data folder) into a server setup through the archive format, then
    export the target again and compare, member by member, row counts and checksums (records, facts, entities,
    aliases, episodes, ledger signals, full-text rows, vectors, signatures).  The source is only read.

    Args:
        c: the source container.
        to: the target database URL (``postgresql+psycopg://…``), empty.
        chroma: the target Chroma server (``http://host:port``), empty.
        work: a folder for the two archives (default: a temporary folder, removed after).

    Returns:
        :class:`MigrateReport` (``ok`` when every compared member is equal).

    Raises:
        KithError: the target is not a server database or not empty.
    """
    import shutil
    import tempfile

    if not to or to.startswith("sqlite"):
        raise KithError(f"{to!r}: migrate copies into a server database (postgresql+psycopg://user@host:port/db)")
    if not chroma or not chroma.startswith(("http://", "https://")):
        raise KithError("give the Chroma server too (--chroma http://host:port): devices sharing a database must "
                        "share its vectors")
    t0 = time.perf_counter()
    tmp = Path(work) if work is not None else Path(tempfile.mkdtemp(prefix="kith-migrate-"))
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        src_arch = tmp / "source.kith.zip"
        export_archive(c, src_arch, progress)
        import dataclasses

        # the target's own data folder is a scratch one: migrate writes nothing into the source's folder (a
        # device keeps its signature cache in its own folder, filled from the database on first use)
        scratch = dataclasses.replace(c.settings, home=tmp / "target-home")
        scratch.home.mkdir(parents=True, exist_ok=True)
        target = Container(scratch, describe="kith migrate", database=to, vectors=chroma)
        try:
            import_archive(target, src_arch, progress, settings=False)
            check_arch = tmp / "target.kith.zip"
            export_archive(target, check_arch, progress)
            from core.store.db import _safe_url

            rep = MigrateReport(str(c.settings.home), _safe_url(to), chroma, src_arch.stat().st_size)
            with ArchiveReader(src_arch) as a, ArchiveReader(check_arch) as b:
                for name in VERIFIED:
                    if not a.has(name) and not b.has(name):
                        continue
                    if name.startswith("vectors/"):
                        rep.members[name] = _compare_vectors(a, b, name)
                        continue
                    na, ha = _set_checksum(a, name) if a.has(name) else (0, "")
                    nb, hb = _set_checksum(b, name) if b.has(name) else (0, "")
                    rep.members[name] = {"source_rows": na, "target_rows": nb, "source_sha256": ha,
                                         "target_sha256": hb, "equal": na == nb and ha == hb}
                counts_a, counts_b = a.manifest["counts"], b.manifest["counts"]
                rep.members["manifest counts"] = {"source_rows": sum(counts_a.values()),
                                                  "target_rows": sum(counts_b.values()),
                                                  "source_sha256": _hash_json(counts_a),
                                                  "target_sha256": _hash_json(counts_b),
                                                  "equal": counts_a == counts_b}
        finally:
            target.close()
        rep.seconds = round(time.perf_counter() - t0, 3)
        return rep
    finally:
        if work is None:
            shutil.rmtree(tmp, ignore_errors=True)


VECTOR_TOLERANCE = 1e-6
"""Largest difference allowed between a vector and its copy: a Chroma server keeps cosine-space vectors
re-normalised, which moves unit vectors by about one float32 ulp (≤ 1.5e-8 measured); ids and metadata must
be equal exactly."""


def _compare_vectors(a: ArchiveReader, b: ArchiveReader, name: str) -> dict:
    """Vectors of two archives: the checksum covers ids and metadata (order-free); the embeddings are compared
    within :data:`VECTOR_TOLERANCE` (the largest difference is reported)."""
    import hashlib

    src = {}
    hs = []
    for obj in a.lines(name) if a.has(name) else ():
        src[obj["id"]] = decode_vector(obj["embedding"])
        hs.append(hashlib.sha256(json.dumps([obj["id"], obj.get("metadata")], sort_keys=True).encode()).digest())
    ht, worst, missing, n_b = [], 0.0, 0, 0
    for obj in b.lines(name) if b.has(name) else ():
        n_b += 1
        ht.append(hashlib.sha256(json.dumps([obj["id"], obj.get("metadata")], sort_keys=True).encode()).digest())
        v = src.get(obj["id"])
        if v is None:
            missing += 1
            continue
        worst = max(worst, float(np.abs(v - decode_vector(obj["embedding"])).max()))
    ha = hashlib.sha256(b"".join(sorted(hs))).hexdigest()
    hb = hashlib.sha256(b"".join(sorted(ht))).hexdigest()
    return {"source_rows": len(src), "target_rows": n_b, "source_sha256": ha, "target_sha256": hb,
            "max_abs_difference": worst,
            "equal": len(src) == n_b and ha == hb and not missing and worst <= VECTOR_TOLERANCE}


def _hash_json(d: dict) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()

"""The SQLite engine: WAL journal, foreign keys on, schema creation, unit of work.

One :class:`Database` per data folder.  Writes go through the app's single
writer thread (``app/taskman.py``); reads may come from any thread (WAL lets
readers run beside the writer).
"""
from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Iterator

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel, create_engine

from core.errors import StoreError
from core.store import conversations, forgetting, memory_schema, personal_schema  # noqa: F401  (register the chat, forget, memory and personalization tables)
from core.store import schema

SCHEMA_VERSION = 6
"""v2: ``record.pending`` (the ingest stages a record still needs), ``fact.indexed_at``, the ``storemeta``
table, and one signature row per episode (a unique index).  v3 (issue 13): ``record.utc_offset``,
``alias.origin_id``, ``recordentity.alias_id``, ``mergecandidate.signal/threshold/decided_by/confirmed_at``.
v4 (contact cards): ``alias.card``.  v5: on PostgreSQL, the episode lexicon's postings
(``schema.pg_lex_postings``; nothing changes in SQLite).  v6: on PostgreSQL, the lexicon's
document frequencies (``lex_term``, kept by the same triggers; nothing changes in SQLite).  Columns a newer Kith adds to an existing
table are added by :meth:`Database._add_missing_columns` (nullable, or with their default)."""


def _on_connect(dbapi_conn: sqlite3.Connection, _record) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.close()


def _add_missing_columns(conn) -> None:
    """Add nullable columns that a table gained since the file was made (``create_all`` only creates
    missing tables): e.g. ``record.tombstoned_at`` and ``fact.tombstoned_at`` (issue 11)."""
    for table in SQLModel.metadata.sorted_tables:
        have = {r[1] for r in conn.exec_driver_sql(f'PRAGMA table_info("{table.name}")')}
        if not have:
            continue
        for col in table.columns:
            if col.name not in have and col.nullable and not col.primary_key:
                conn.exec_driver_sql(f'ALTER TABLE "{table.name}" ADD COLUMN "{col.name}" '
                                     f'{col.type.compile(dialect=conn.dialect)}')


def _safe_url(url: str) -> str:
    """``url`` without a password (``postgresql+psycopg://kith:***@host/db``)."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.split("@")[-1]


PING_AFTER_IDLE_S = 30.0
"""A pooled server connection idle longer than this (seconds) is pinged before use."""


def _ping_when_idle(engine) -> None:
    """Check a pooled server connection before use only when it sat idle over :data:`PING_AFTER_IDLE_S`.

    ``pool_pre_ping`` pings on *every* checkout, a round trip each; an ``ask`` checks out several
    connections, and the pings were ~10 % of a server setup's ask.  A connection used seconds ago is alive;
    one that slept may have been dropped by a server restart, and a failed ping makes the pool replace it
    (SQLAlchemy's "pessimistic disconnect handling" through the ``checkout`` event: ``DisconnectionError``).
    """
    import time as _time

    from sqlalchemy import exc as _exc

    @event.listens_for(engine, "checkin")
    def _checkin(_dbapi_conn, record):
        record.info["kith_idle_since"] = _time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_conn, record, _proxy):
        since = record.info.get("kith_idle_since")
        if since is None or _time.monotonic() - since < PING_AFTER_IDLE_S:
            return
        try:
            cur = dbapi_conn.cursor()
            try:
                cur.execute("SELECT 1")
            finally:
                cur.close()
            dbapi_conn.rollback()
        except Exception as err:
            raise _exc.DisconnectionError(f"server connection idle {int(_time.monotonic() - since)} s was dropped") \
                from err


class Database:
    """A Kith database: a SQLite file (the default) or a PostgreSQL server.

    Args:
        path: the ``.sqlite3`` file (created with the schema if missing), or a database URL
            (``sqlite:///…``, ``postgresql+psycopg://user@host:port/db``: the schema is created if missing).
        lock: the data folder's :class:`core.store.lock.FolderLock`; creating or migrating the schema
            happens under it, so two processes starting together do not both create tables.

    Raises:
        StoreError: the file exists but is not a SQLite database, or is from a newer Kith.
    """

    def __init__(self, path, lock=None):
        url = str(path)
        self.url = url if "://" in url else f"sqlite:///{Path(path)}"
        self.server = not self.url.startswith("sqlite")
        self.lock = lock
        if self.server:
            self.path = None
            from core.store import dialect

            self.engine = create_engine(self.url, pool_size=5, max_overflow=10)
            dialect.install(self.engine)
            _ping_when_idle(self.engine)
        else:
            self.path = Path(self.url[len("sqlite:///"):])
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.engine = create_engine(
                f"sqlite:///{self.path}", connect_args={"check_same_thread": False, "timeout": 30})
            event.listen(self.engine, "connect", _on_connect)
        where = self.path if not self.server else _safe_url(self.url)
        # a new file: its first connection (which turns WAL on) is made under the lock too — two processes
        # starting together on a new data folder raced there ("database is locked", no busy wait, while the
        # file was still in rollback-journal mode)
        new = not self.server and (not self.path.exists() or self.path.stat().st_size == 0)
        try:
            with (lock.hold() if lock is not None and new else contextlib.nullcontext()):
                if self._version() != SCHEMA_VERSION or self._missing_tables() or not self._ledger_current():
                    with (lock.hold() if lock is not None else contextlib.nullcontext()):
                        self._migrate()
        except Exception as exc:  # sqlite3.DatabaseError: file is not a database, ...
            self.engine.dispose()
            if isinstance(exc, StoreError):
                raise
            raise StoreError(f"{where}: cannot open the Kith database: {exc}") from exc

    @property
    def where(self) -> str:
        """The file, or the server URL without its password (for messages)."""
        return str(self.path) if not self.server else _safe_url(self.url)

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self.engine.dialect.name

    def _version(self) -> int:
        with self.engine.connect() as conn:
            if self.server:
                from sqlalchemy import inspect

                if not inspect(conn).has_table("storemeta"):
                    return 0
                v = conn.exec_driver_sql("SELECT value FROM storemeta WHERE key = 'schema_version'").scalar()
                return int(v or 0)
            return conn.exec_driver_sql("PRAGMA user_version").scalar() or 0

    def _ledger_current(self) -> bool:
        """Whether the personalization ledger's raw parts (FTS, triggers, default cohorts) exist as they should."""
        import sqlite3

        if self.server:
            from core.personal.cohorts import COHORTS, _describe
            from core.store import personal_schema

            with self.engine.connect() as conn:
                if not personal_schema.pg_up_to_date(conn):
                    return False
                import json

                have = {n: (v if isinstance(v, str) else json.dumps(v))
                        for n, v in conn.exec_driver_sql("SELECT name, predicate FROM cohort").fetchall()}
            return all(have.get(n) in (json.dumps(_describe(p)), json.dumps(_describe(p), separators=(",", ":")))
                       or json.loads(have.get(n) or "null") == _describe(p) for n, p in COHORTS.items())

        from core.personal.cohorts import COHORTS, _describe
        from core.store import personal_schema

        conn = sqlite3.connect(str(self.path), timeout=30)
        try:
            exists = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table','index')")}
            if not personal_schema._up_to_date(conn, exists):
                return False
            import json

            have = dict(conn.execute("SELECT name, predicate FROM cohort"))
            return all(have.get(n) == json.dumps(_describe(p)) for n, p in COHORTS.items())
        except sqlite3.Error:
            return False
        finally:
            conn.close()

    def _missing_tables(self) -> set[str]:
        with self.engine.connect() as conn:
            if self.server:
                from sqlalchemy import inspect

                have = set(inspect(conn).get_table_names())
            else:
                have = {r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type='table'")}
        return set(SQLModel.metadata.tables) - have

    def _migrate(self) -> None:
        version = self._version()
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.where}: database schema v{version} is newer than this Kith (v{SCHEMA_VERSION})")
        if self.server:
            self._migrate_server()
            return
        SQLModel.metadata.create_all(self.engine)
        self._add_missing_columns()
        with self.engine.begin() as conn:
            _add_missing_columns(conn)
            for ddl in schema.EXTRA_DDL:
                try:
                    with conn.begin_nested():
                        conn.execute(ddl)
                except Exception as exc:  # e.g. duplicate signature rows from an older Kith: doctor repairs them
                    import logging

                    logging.getLogger(__name__).warning("%s: %s (run `kith doctor --repair`)", self.path, exc)
            conn.exec_driver_sql(f"PRAGMA user_version={SCHEMA_VERSION}")
        # The ledger's raw parts (FTS5, triggers) and its default cohorts: created here, under the writer lock,
        # so that opening the ledger later — for a read — finds them and writes nothing.
        from core.personal import open_ledger

        ledger = open_ledger(self.path)
        ledger.close()
        with self.engine.begin() as conn:  # a data folder from before the episode lexicon: index it once
            from core.retrieval import lexicon

            lexicon.backfill(conn)

    def _migrate_server(self) -> None:
        """PostgreSQL: the tables, the raw parts (full-text tables with their GIN indexes, partial indexes,
        the ledger's trigger) and the default cohorts, in one transaction under the writer lock."""
        with self.engine.begin() as conn:
            conn.exec_driver_sql("SELECT pg_advisory_xact_lock(7710001)")  # two first starts: one creates
            SQLModel.metadata.create_all(conn)
            for ddl in schema.pg_extra_ddl():
                conn.exec_driver_sql(ddl)
            from core.store import personal_schema

            for ddl in personal_schema.pg_extra_ddl():
                conn.exec_driver_sql(ddl)
            conn.exec_driver_sql("INSERT INTO storemeta(key, value) VALUES ('schema_version', ?) "
                                 "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", (str(SCHEMA_VERSION),))
        from core.personal import open_ledger

        ledger = open_ledger(self)
        ledger.close()

    def ensure_indexes(self) -> int:
        """Create the indexes of ``schema.EXTRA_DDL`` that are missing (after a repair); returns how many
        statements ran without error.  Call under the writer lock."""
        ok = 0
        if self.server:
            return 0
        with self.engine.begin() as conn:
            for ddl in schema.EXTRA_DDL:
                try:
                    with conn.begin_nested():
                        conn.execute(ddl)
                    ok += 1
                except Exception:
                    pass
        return ok

    def _add_missing_columns(self) -> None:
        """``ALTER TABLE … ADD COLUMN`` for every model column an existing table lacks (nullable or defaulted)."""
        from sqlalchemy.schema import CreateColumn

        with self.engine.begin() as conn:
            for name, table in SQLModel.metadata.tables.items():
                have = {r[1] for r in conn.exec_driver_sql(f"PRAGMA table_info('{name}')")}
                if not have:
                    continue
                for col in table.columns:
                    if col.name in have:
                        continue
                    ddl = str(CreateColumn(col).compile(dialect=self.engine.dialect))
                    if not col.nullable and col.server_default is None:
                        default = col.default.arg if col.default is not None and not callable(col.default.arg) else None
                        if default is None:
                            ddl = ddl.replace(" NOT NULL", "")
                        else:
                            ddl += f" DEFAULT {default!r}" if not isinstance(default, bool) else f" DEFAULT {int(default)}"
                    conn.exec_driver_sql(f"ALTER TABLE {name} ADD COLUMN {ddl}")

    @contextlib.contextmanager
    def session(self) -> Iterator[Session]:
        """A unit of work: commits on success, rolls back on any exception."""
        with Session(self.engine, expire_on_commit=False) as s:
            try:
                yield s
                s.commit()
            except BaseException:
                s.rollback()
                raise

    def close(self) -> None:
        """Release every connection; a process that wrote also checkpoints the WAL (a reader writes nothing)."""
        if self.server:
            self.engine.dispose()
            return
        try:
            if self.lock is None or self.lock.wrote:
                with (self.lock.hold(timeout=5) if self.lock is not None else contextlib.nullcontext()):
                    with self.engine.begin() as conn:
                        conn.exec_driver_sql("PRAGMA optimize")  # fresh planner statistics (SQLite ≥ 3.18)
                        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        except Exception:  # another process holds the lock or the file is busy: its close checkpoints
            pass
        finally:
            self.engine.dispose()

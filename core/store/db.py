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
from core.store import memory_schema, personal_schema  # noqa: F401  (register the memory and personalization tables)
from core.store import schema

SCHEMA_VERSION = 1


def _on_connect(dbapi_conn: sqlite3.Connection, _record) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.close()


class Database:
    """A Kith SQLite file.

    Args:
        path: the ``.sqlite3`` file (created with the schema if missing).

    Raises:
        StoreError: the file exists but is not a SQLite database, or is from a newer Kith.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.engine: Engine = create_engine(
            f"sqlite:///{self.path}", connect_args={"check_same_thread": False, "timeout": 30})
        event.listen(self.engine, "connect", _on_connect)
        try:
            self._migrate()
        except Exception as exc:  # sqlite3.DatabaseError: file is not a database, ...
            self.engine.dispose()
            raise StoreError(f"{self.path}: cannot open the Kith database: {exc}") from exc

    def _migrate(self) -> None:
        with self.engine.begin() as conn:
            version = conn.exec_driver_sql("PRAGMA user_version").scalar() or 0
            if version > SCHEMA_VERSION:
                raise StoreError(f"database schema v{version} is newer than this Kith (v{SCHEMA_VERSION})")
        SQLModel.metadata.create_all(self.engine)
        with self.engine.begin() as conn:
            for ddl in schema.EXTRA_DDL:
                conn.execute(ddl)
            conn.exec_driver_sql(f"PRAGMA user_version={SCHEMA_VERSION}")

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
        """Checkpoint the WAL and release every connection."""
        try:
            with self.engine.begin() as conn:
                conn.exec_driver_sql("PRAGMA optimize")  # keeps the planner's statistics fresh (SQLite ≥ 3.18)
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self.engine.dispose()

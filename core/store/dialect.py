"""The few statements that differ between the database dialects Kith runs on (SQLite, PostgreSQL).

Everything else goes through SQLAlchemy Core / SQLModel and is dialect-neutral.  SQLite keeps its
fast paths (FTS5, raw ``sqlite3`` for the ledger); PostgreSQL gets the equivalent here.
"""
from __future__ import annotations

from typing import Iterator, Sequence


def name(conn) -> str:
    """``"sqlite"`` or ``"postgresql"`` for an SQLAlchemy connection (``"sqlite"`` for a raw ``sqlite3`` one)."""
    d = getattr(conn, "dialect", None)
    return d.name if d is not None else "sqlite"


def fts_rows(conn, fts: str, cols: Sequence[str]) -> Iterator[tuple]:
    """Every row of full-text table ``fts`` as ``(rowid, *cols)``, by rowid."""
    if name(conn) == "postgresql":
        sql = f"SELECT id, {', '.join(cols)} FROM {fts} ORDER BY id"
    else:
        sql = f"SELECT rowid, {', '.join(cols)} FROM {fts} ORDER BY rowid"
    yield from (tuple(r) for r in conn.exec_driver_sql(sql))


def fts_insert(conn, fts: str, cols: Sequence[str], rows: Sequence[tuple]) -> int:
    """Insert ``(rowid, *cols)`` rows into full-text table ``fts``; returns how many."""
    if not rows:
        return 0
    key = "id" if name(conn) == "postgresql" else "rowid"
    marks = ", ".join(["%s" if name(conn) == "postgresql" else "?"] * (len(cols) + 1))
    conn.exec_driver_sql(f"INSERT INTO {fts}({key}, {', '.join(cols)}) VALUES ({marks})", list(rows))
    return len(rows)


def after_bulk_insert(conn, tables) -> None:
    """After rows were inserted with their ids given: PostgreSQL's sequences are moved past the largest id
    (SQLite's rowids need nothing)."""
    if name(conn) != "postgresql":
        return
    for t in tables:
        pk = list(t.primary_key.columns)
        if len(pk) == 1 and pk[0].autoincrement in (True, "auto") and str(pk[0].type).upper().startswith(("INT", "BIGINT")):
            conn.exec_driver_sql(
                f"SELECT setval(pg_get_serial_sequence('{t.name}', '{pk[0].name}'), "
                f"COALESCE((SELECT max({pk[0].name}) FROM {t.name}), 0) + 1, false)")

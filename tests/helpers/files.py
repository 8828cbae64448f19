"""Looking through a data folder's bytes: what a purge must have left in no file."""
from __future__ import annotations

import os
from pathlib import Path


def scan(home: Path, words) -> dict[str, list[str]]:
    """word → files under the data folder holding it (UTF-8, UTF-16 LE/BE; ASCII case ignored)."""
    out: dict[str, list[str]] = {}
    for root, _dirs, files in os.walk(home):
        for f in files:
            data = (Path(root) / f).read_bytes().lower()
            for w in words:
                if any(w.lower().encode(enc) in data for enc in ("utf-8", "utf-16-le", "utf-16-be")):
                    out.setdefault(w, []).append(str((Path(root) / f).relative_to(home)))
    return out


def rows(db_path, sql: str, params=()) -> list[tuple]:
    """The rows a read-only SQL query gives on a data folder's SQLite file (the connection closed after)."""
    import sqlite3

    db = sqlite3.connect(str(db_path))
    try:
        return db.execute(sql, params).fetchall()
    finally:
        db.close()

"""Every table and text column is covered by some store's forget plan, or listed as holding no personal text
(issue 11).  Adding a table without telling forget about it fails here."""
from __future__ import annotations

import sqlite3

import pytest

TEXT_TYPES = ("", "TEXT", "JSON", "BLOB", "CLOB")


def coverage() -> dict[str, object]:
    from core.graph import forget as graph, summaries
    from core.memory import forget as memory
    from core.personal import forget as personal
    from core.store import conversations, forgetting, search

    out: dict[str, object] = {}
    for mod in (graph, summaries, search, memory, personal, forgetting, conversations):
        for table, cols in mod.COVERS.items():
            out[table] = "*" if cols == "*" or out.get(table) == "*" else sorted(set(out.get(table, [])) | set(cols))
    return out


def text_columns(conn, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')
            if r[2].upper() in TEXT_TYPES or "CHAR" in r[2].upper()]


def uncovered(conn) -> list[str]:
    """``table`` or ``table.column`` entries no store covers and the no-personal-text list does not excuse."""
    from core.store.forgetting import NO_PERSONAL_TEXT

    cov = coverage()
    out = []
    for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
        if t in NO_PERSONAL_TEXT:
            continue
        if t not in cov:
            out.append(t)
            continue
        if cov[t] != "*":
            out += [f"{t}.{c}" for c in text_columns(conn, t) if c not in cov[t]]
    return out


@pytest.fixture
def conn(tmp_path):
    """A fresh Kith database with every table (graph, memory, personalization, FTS5, forget)."""
    from core.personal import open_ledger
    from core.store.db import Database

    db = Database(tmp_path / "kith.sqlite3")
    ledger = open_ledger(db)
    ledger.conn  # creates the personalization tables and triggers
    ledger.close()
    db.close()  # PRAGMA optimize may add sqlite_stat1
    c = sqlite3.connect(str(tmp_path / "kith.sqlite3"))
    yield c
    c.close()


def test_every_table_and_text_column_is_covered_or_excused(conn):
    from core.store.forgetting import NO_PERSONAL_TEXT

    assert uncovered(conn) == []
    names = {t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"summary", "semanticatom", "learningevent", "concept", "attentiontrace"} <= names & set(coverage())
    assert all(reason.strip() for reason in NO_PERSONAL_TEXT.values())
    stale = set(coverage()) - names
    assert stale == set(), f"coverage names tables that do not exist: {stale}"


def test_a_new_table_that_forget_does_not_know_fails_the_walk(conn):
    conn.execute("CREATE TABLE diary (id INTEGER PRIMARY KEY, entry TEXT, mood VARCHAR)")
    conn.execute("ALTER TABLE summary ADD COLUMN notes TEXT")
    assert uncovered(conn) == ["diary"]  # summary is covered whole ("*"), so its new column is too
    conn.execute("ALTER TABLE forget_op ADD COLUMN comment TEXT")
    from core.store import forgetting

    forgetting.COVERS["forget_op"] = ["label", "plan", "counts", "fingerprint", "target_kind", "state", "mentions"]
    try:
        assert uncovered(conn) == ["diary", "forget_op.comment"]
    finally:
        forgetting.COVERS["forget_op"] = "*"

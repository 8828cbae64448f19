"""Fixtures shared by the core tests."""
from __future__ import annotations

import pytest

from core.store.db import Database


@pytest.fixture
def s(tmp_path):
    """An open session on a fresh SQLite store of the test's own (closed afterwards)."""
    db = Database(tmp_path / "k.sqlite3")
    with db.session() as session:
        yield session
    db.close()

"""Fixtures: a real SQLite file holding a Kith database plus the personal ledger (cohorts installed)."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

import core.store.personal_schema  # noqa: F401  (registers the tables before Database creates the schema)

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)  # a Monday, 00:00 UTC
DAY = 86400.0


@pytest.fixture
def db(tmp_path):
    from core.store.db import Database

    d = Database(tmp_path / "kith.sqlite3")
    yield d
    d.close()


@pytest.fixture
def ledger(db):
    from core.personal import open_ledger

    L = open_ledger(db)
    yield L
    L.close()

"""Fixtures: a real SQLite file holding a Kith database plus the personal ledger (cohorts installed)."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

import core.store.personal_schema  # noqa: F401  (registers the tables before Database creates the schema)

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)  # a Monday, 00:00 UTC
DAY = 86400.0


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.servers)])
def db(request, tmp_path):
    """The Kith database each ledger test runs on: a SQLite file, and a fresh database on the session's
    PostgreSQL (issue 16: the ledger goes through the same statements on both)."""
    from core.store.db import Database

    if request.param == "sqlite":
        d = Database(tmp_path / "kith.sqlite3")
        yield d
        d.close()
        return
    pg = request.getfixturevalue("pg_server")
    url = pg.create_db("ledger")
    d = Database(url)
    yield d
    d.close()
    pg.drop_db(url)


@pytest.fixture
def ledger(db):
    from core.personal import open_ledger

    L = open_ledger(db)
    yield L
    L.close()

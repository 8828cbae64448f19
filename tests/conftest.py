"""Shared fixtures: a temporary KITH_HOME for every test, the shared corpus (skipped where absent)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


@pytest.fixture(autouse=True)
def kith_home(tmp_path, monkeypatch, request) -> Path:
    """Every test gets its own empty data folder.  With ``KITH_TEST_SERVERS=1`` (a local check, not CI's run:
    tests that look inside SQLite files or the Chroma folder fail there by design), every Container a test
    opens from the environment uses a fresh PostgreSQL database and the Chroma server instead."""
    home = tmp_path / "kith-home"
    monkeypatch.setenv("KITH_HOME", str(home))
    if os.environ.get("KITH_TEST_SERVERS") == "1" and "servers" not in request.keywords:
        request.getfixturevalue("server_env")
    return home


@pytest.fixture
def corpus() -> Path:
    """``../shared/corpus`` (real files from public repositories); skips with a reason where absent."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus not present (it exists only in the dev workspace and CI)")
    return CORPUS


@pytest.fixture
def container(kith_home):
    """A Container on the test's own data folder, closed afterwards."""
    from app.container import Container

    c = Container()
    yield c
    c.close()


# ---- real PostgreSQL and Chroma servers (issue 16): one of each per session, started only when needed ----

@pytest.fixture(scope="session")
def pg_server():
    """A PostgreSQL cluster from the distribution's packages on 127.0.0.1 (skips, saying why, without one)."""
    from helpers.stores import PostgresServer, missing_postgres

    why = missing_postgres()
    if why:
        pytest.skip(why)
    server = PostgresServer()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def chroma_server():
    """Chroma's own server (``chroma run``) on 127.0.0.1 (skips, saying why, without the program)."""
    from helpers.stores import ChromaServer, chroma_bin

    if chroma_bin() is None:
        pytest.skip("Chroma's server program (chroma, from the chromadb package) is not installed")
    server = ChromaServer()
    yield server
    server.stop()


@pytest.fixture
def server_env(pg_server, chroma_server, monkeypatch):
    """A fresh database on the session's PostgreSQL and the session's Chroma server, set as this test's
    ``KITH_DATABASE_URL`` / ``KITH_CHROMA_URL`` (the Chroma database is named after the PostgreSQL one);
    yields ``{"KITH_DATABASE_URL": …, "KITH_CHROMA_URL": …}``."""
    url = pg_server.create_db()
    env = {"KITH_DATABASE_URL": url, "KITH_CHROMA_URL": chroma_server.url}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    yield env
    pg_server.drop_db(url)

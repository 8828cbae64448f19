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
def kith_home(tmp_path, monkeypatch) -> Path:
    """Every test gets its own empty data folder."""
    home = tmp_path / "kith-home"
    monkeypatch.setenv("KITH_HOME", str(home))
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

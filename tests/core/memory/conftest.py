"""A real SQLite file + real signature files for memory tests; deterministic unit embeddings."""
from __future__ import annotations

import numpy as np
import pytest

from core.store import memory_schema  # noqa: F401  (registers the memory tables before the DB is created)
from core.store.db import Database


def unit(seed: int, dim: int = 384) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(dim)
    return (v / np.linalg.norm(v)).astype(np.float32)


def near(v: np.ndarray, cos: float, seed: int) -> np.ndarray:
    """A unit vector at exactly cosine ``cos`` from unit vector ``v``."""
    r = unit(seed, v.shape[0]).astype(np.float64)
    r -= r.dot(v) * v
    r /= np.linalg.norm(r)
    return (cos * v + np.sqrt(1 - cos ** 2) * r).astype(np.float32)


@pytest.fixture
def mem(tmp_path):
    from core.memory.episodes import EpisodicMemory

    db = Database(tmp_path / "kith.sqlite3")
    m = EpisodicMemory(db, tmp_path / "memory", durable=False)
    yield m
    m.close()
    db.close()

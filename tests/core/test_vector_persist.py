"""Reads never write: a reader's first query must not rewrite Chroma's HNSW files (core/store/vectors.py HNSW).

Chroma's embedded client saves its index only after ``sync_threshold`` additions in one process; below that, each
new client replays the log into a fresh index and writes the index files.  Each read here runs in its own process,
as ``kith ask`` does beside the window."""
from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _sums(path: Path) -> dict[str, str]:
    return {str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(path.glob("*/*")) if p.is_file()}


def _read_in_other_process(path: Path, probe: np.ndarray) -> list[str]:
    """A read-only VectorStore in a new process: the ids nearest ``probe``, best first."""
    code = textwrap.dedent(f"""
        import sys, json, numpy as np
        sys.path.insert(0, {str(ROOT)!r})
        from pathlib import Path
        from core.store.vectors import VectorStore
        vs = VectorStore(Path({str(path)!r}), writable=False)
        got = vs.query("records", np.array({probe.tolist()!r}, dtype=np.float32), 3)
        vs.close()
        print(json.dumps([i for i, _ in got]))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    import json

    return json.loads(out.stdout.strip().splitlines()[-1])


def _threshold_in_other_process(path: Path) -> int:
    """The ``records`` collection's HNSW sync threshold as a new client in a new process reads it."""
    code = textwrap.dedent(f"""
        import chromadb
        from chromadb.config import Settings
        c = chromadb.PersistentClient(path={str(path)!r}, settings=Settings(anonymized_telemetry=False))
        print(c.get_collection("records").configuration_json["hnsw"]["sync_threshold"])
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return int(out.stdout.strip().splitlines()[-1])


def _vectors(n: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, 384)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_a_small_store_is_saved_by_its_writer_and_a_read_writes_nothing(tmp_path):
    from core.store.vectors import HNSW, VectorStore

    path = tmp_path / "chroma"
    vs = VectorStore(path, writable=True)
    v = _vectors(5, 1)
    vs.upsert("records", [f"record:{i}" for i in range(5)], v)
    assert vs.collection("records").configuration_json["hnsw"]["sync_threshold"] == HNSW["sync_threshold"]
    vs.close()
    before = _sums(path)
    assert any(name.endswith("index_metadata.pickle") for name in before)  # the writer saved the index
    assert _read_in_other_process(path, v[3])[0] == "record:3"  # the vector itself is its own nearest
    assert _sums(path) == before


def test_a_collection_made_with_chromas_default_threshold_is_given_kiths_on_the_next_write(tmp_path):
    import chromadb
    from chromadb.config import Settings

    from core.store.vectors import HNSW, VectorStore, embedding_function

    path = tmp_path / "chroma"
    client = chromadb.PersistentClient(path=str(path), settings=Settings(anonymized_telemetry=False))
    col = client.get_or_create_collection("records", embedding_function=embedding_function(None),
                                          configuration={"hnsw": {"space": "cosine"}})  # as Kith made them before
    v = _vectors(8, 2)
    col.add(ids=[f"record:{i}" for i in range(5)], embeddings=v[:5])
    assert col.configuration_json["hnsw"]["sync_threshold"] == 1000
    client.close()
    del client, col
    import gc

    gc.collect()  # the raw client's Rust side let go before Kith's opens the folder (one client per folder)

    vs = VectorStore(path, writable=True)  # the writer opens it: the next write saves the index
    vs.upsert("records", [f"record:{i}" for i in range(5, 8)], v[5:])
    vs.close()
    assert _threshold_in_other_process(path) == HNSW["sync_threshold"]
    before = _sums(path)
    assert _read_in_other_process(path, v[1])[0] == "record:1"
    assert _read_in_other_process(path, v[6])[0] == "record:6"
    assert _sums(path) == before

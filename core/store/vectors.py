"""Chroma collections with Kith's own registered embedding function, telemetry off.

Chroma's default embedder downloads an ONNX model; Kith never lets it run:
every collection is opened with :class:`KithEmbeddingFunction` (registered
under the name ``"kith"``), and Kith passes its own vectors on add and query
anyway.  Vectors are 384-d float32 from all-MiniLM-L6-v2, compared by cosine.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from core.errors import StoreError

EncodeFn = Callable[[Sequence[str]], np.ndarray]


def _register():
    from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
    from chromadb.utils.embedding_functions import register_embedding_function

    @register_embedding_function
    class KithEmbeddingFunction(EmbeddingFunction[Documents]):
        """Chroma's view of Kith's text encoder: documents in, (n, 384) float32 unit vectors out."""

        def __init__(self, encode: EncodeFn | None = None, model: str = "all-MiniLM-L6-v2"):
            self._encode = encode
            self.model = model

        def __call__(self, input: Documents) -> Embeddings:
            if self._encode is None:
                raise StoreError("Kith's embedding function was rebuilt without an encoder; "
                                 "open collections through core.store.vectors.VectorStore")
            return [row for row in np.asarray(self._encode(list(input)), dtype=np.float32)]

        @staticmethod
        def name() -> str:
            return "kith"

        def get_config(self) -> dict[str, Any]:
            return {"model": self.model}

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> "KithEmbeddingFunction":
            return KithEmbeddingFunction(None, config.get("model", "all-MiniLM-L6-v2"))

        def default_space(self):
            return "cosine"

        def supported_spaces(self):
            return ["cosine"]

    return KithEmbeddingFunction


_EF_CLASS = None


def embedding_function(encode: EncodeFn | None):
    """Return Kith's registered Chroma embedding function wrapping ``encode``."""
    global _EF_CLASS
    if _EF_CLASS is None:
        _EF_CLASS = _register()
    return _EF_CLASS(encode)


STORE_MARKER = "kith-store.json"
"""A file Kith writes into the Chroma folder with the store's random id.  When it is missing or its id
differs from the one the SQLite database remembers, the folder was deleted, replaced or restored from
another time, and every vector must be rebuilt from SQLite (``app/pipeline.py``)."""


class VectorStore:
    """A Chroma PersistentClient in ``path`` with one collection per content class.

    Opening is lazy.  Reads (:meth:`query`, :meth:`count`, :meth:`get_vectors`, :meth:`ids`) never
    create anything: on a missing folder or collection they answer empty.  Writes create what they need.

    Args:
        path: folder for Chroma's files.
        encode: the text encoder (``texts -> float32 (n, 384)``); called lazily, only for text without vectors.

    Raises:
        StoreError: Chroma cannot open the folder.
    """

    def __init__(self, path: Path, encode: EncodeFn | None = None, writable: bool = True):
        import threading

        self.path = Path(path)
        self._ef = embedding_function(encode)
        self.client = None
        self._collections: dict[str, Any] = {}
        self._lock = threading.RLock()  # a reopen never closes the client under another thread's query
        if writable or self.path.exists():
            self._open(create=writable)

    def _open(self, create: bool):
        if self.client is not None:
            return self.client
        if not create and not self.path.exists():
            return None
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        self.path.mkdir(parents=True, exist_ok=True)
        try:
            self.client = chromadb.PersistentClient(
                path=str(self.path),
                settings=ChromaSettings(anonymized_telemetry=False, allow_reset=False))
        except Exception as exc:
            raise StoreError(f"{self.path}: cannot open the vector store: {exc}") from exc
        return self.client

    def close(self) -> None:
        """Release Chroma's files and in-memory indexes (the folder stays)."""
        with self._lock:
            self._collections.clear()
            client, self.client = self.client, None
            if client is not None:
                try:
                    client.close()
                except Exception:  # a client whose folder vanished cannot close cleanly; it is dropped anyway
                    pass

    def reopen(self) -> None:
        """Drop the in-memory HNSW graphs and reopen from disk (after another process wrote, or a failure)."""
        self.close()

    # -- the store's identity -------------------------------------------------------------
    def store_id(self) -> str | None:
        """The id in the folder's :data:`STORE_MARKER`, or None when the folder or the marker is missing."""
        import json

        try:
            return json.loads((self.path / STORE_MARKER).read_text(encoding="utf-8")).get("id")
        except (OSError, ValueError, AttributeError):
            return None

    def write_store_id(self, store_id: str) -> None:
        """Write :data:`STORE_MARKER` (creating the folder).  Call under the writer lock."""
        import json

        self._open(create=True)
        tmp = self.path / (STORE_MARKER + ".tmp")
        tmp.write_text(json.dumps({"id": store_id}), encoding="utf-8")
        import os

        os.replace(tmp, self.path / STORE_MARKER)

    # -- collections ----------------------------------------------------------------------
    def collection(self, name: str, create: bool = True):
        """The named collection (cosine space), created on first use when ``create``; else None if absent."""
        with self._lock:
            col = self._collections.get(name)
            if col is not None:
                return col
            client = self._open(create)
            if client is None:
                return None
            if create:
                col = client.get_or_create_collection(
                    name=name, embedding_function=self._ef, configuration={"hnsw": {"space": "cosine"}})
            else:
                try:
                    col = client.get_collection(name=name, embedding_function=self._ef)
                except Exception:  # chromadb.errors.NotFoundError: nothing written yet
                    return None
            self._collections[name] = col
            return col

    def upsert(self, name: str, ids: Sequence[str], vectors: np.ndarray, metadatas: Sequence[dict] | None = None) -> None:
        """Write ``vectors`` (float32, shape (len(ids), 384)) under ``ids``."""
        with self._lock:
            if not len(ids):
                return
            self.collection(name).upsert(ids=list(ids), embeddings=np.asarray(vectors, dtype=np.float32),
                                         metadatas=list(metadatas) if metadatas else None)

    def query(self, name: str, vector: np.ndarray, k: int, where: dict | None = None) -> list[tuple[str, float]]:
        """Nearest ``k`` ids to ``vector`` (float32 (384,)), as (id, cosine distance) best first."""
        with self._lock:
            col = self.collection(name, create=False)
            if col is None:
                return []
            n = col.count()
            if n == 0:
                return []
            res = col.query(query_embeddings=[np.asarray(vector, dtype=np.float32)], n_results=min(k, n), where=where,
                            include=["distances"])
            return list(zip(res["ids"][0], res["distances"][0]))

    def get_vectors(self, name: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of those ``ids`` that exist: id → float32 (384,)."""
        with self._lock:
            col = self.collection(name, create=False)
            if col is None or not len(ids):
                return {}
            out: dict[str, np.ndarray] = {}
            for i in range(0, len(ids), 1000):
                res = col.get(ids=list(ids[i:i + 1000]), include=["embeddings"])
                for vid, emb in zip(res["ids"], res["embeddings"]):
                    out[vid] = np.asarray(emb, dtype=np.float32)
            return out

    def ids(self, name: str, page: int = 5000) -> set[str]:
        """Every id in the collection (paged; empty when it does not exist)."""
        with self._lock:
            col = self.collection(name, create=False)
            if col is None:
                return set()
            out: set[str] = set()
            offset = 0
            while True:
                got = col.get(include=[], limit=page, offset=offset)["ids"]
                out.update(got)
                if len(got) < page:
                    return out
                offset += page

    def delete(self, name: str, ids: Sequence[str]) -> int:
        """Delete ``ids`` from the collection; returns how many of them were there."""
        with self._lock:
            if not len(ids):
                return 0
            col = self.collection(name, create=False)
            if col is None:
                return 0
            present: list[str] = []
            for i in range(0, len(ids), 1000):
                present += col.get(ids=list(ids[i:i + 1000]), include=[])["ids"]
            for i in range(0, len(present), 1000):
                col.delete(ids=present[i:i + 1000])
            return len(present)

    def count(self, name: str) -> int:
        """How many vectors the collection holds (0 when it does not exist)."""
        with self._lock:
            col = self.collection(name, create=False)
            return 0 if col is None else col.count()


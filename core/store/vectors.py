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


class VectorStore:
    """A Chroma PersistentClient in ``path`` with one collection per content class.

    Args:
        path: folder for Chroma's files.
        encode: the text encoder (``texts -> float32 (n, 384)``); called lazily, only for text without vectors.

    Raises:
        StoreError: Chroma cannot open the folder.
    """

    def __init__(self, path: Path, encode: EncodeFn | None = None):
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self._ef = embedding_function(encode)
        try:
            self.client = chromadb.PersistentClient(
                path=str(self.path),
                settings=ChromaSettings(anonymized_telemetry=False, allow_reset=False))
        except Exception as exc:
            raise StoreError(f"{self.path}: cannot open the vector store: {exc}") from exc
        self._collections: dict[str, Any] = {}

    def collection(self, name: str):
        """The named collection (cosine space), created on first use."""
        if name not in self._collections:
            self._collections[name] = self.client.get_or_create_collection(
                name=name, embedding_function=self._ef, configuration={"hnsw": {"space": "cosine"}})
        return self._collections[name]

    def upsert(self, name: str, ids: Sequence[str], vectors: np.ndarray, metadatas: Sequence[dict] | None = None) -> None:
        """Write ``vectors`` (float32, shape (len(ids), 384)) under ``ids``."""
        if not len(ids):
            return
        self.collection(name).upsert(ids=list(ids), embeddings=np.asarray(vectors, dtype=np.float32),
                                     metadatas=list(metadatas) if metadatas else None)

    def query(self, name: str, vector: np.ndarray, k: int, where: dict | None = None) -> list[tuple[str, float]]:
        """Nearest ``k`` ids to ``vector`` (float32 (384,)), as (id, cosine distance) best first."""
        col = self.collection(name)
        n = col.count()
        if n == 0:
            return []
        res = col.query(query_embeddings=[np.asarray(vector, dtype=np.float32)], n_results=min(k, n), where=where,
                        include=["distances"])
        return list(zip(res["ids"][0], res["distances"][0]))

    def delete(self, name: str, ids: Sequence[str]) -> int:
        """Delete ``ids`` from the collection; returns how many of them were there."""
        if not len(ids):
            return 0
        col = self.collection(name)
        present = col.get(ids=list(ids), include=[])["ids"]
        if present:
            col.delete(ids=present)
        return len(present)

    def count(self, name: str) -> int:
        return self.collection(name).count()

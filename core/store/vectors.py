"""Chroma collections with Kith's own registered embedding function, telemetry off.

Chroma's default embedder downloads an ONNX model; Kith never lets it run:
every collection is opened with :class:`KithEmbeddingFunction` (registered
under the name ``"kith"``), and Kith passes its own vectors on add and query
anyway.  Vectors are 384-d float32 from all-MiniLM-L6-v2, compared by cosine.
"""
from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
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


HNSW = MappingProxyType({"space": "cosine", "batch_size": 100, "sync_threshold": 2})
"""Chroma's HNSW settings for Kith's collections.  ``sync_threshold`` 2 (Chroma's default is 1000): the embedded
client saves its HNSW index to disk only once that many vectors were added since it last did, in the same process
(chroma-core/chroma issue #7463); until then every client that opens the folder replays the unsaved vectors from
its log into a new index and writes the index files — a read that writes, and a cold start that grows with the
replay (up to 999 vectors).  With 2, each write of two vectors or more saves the index (the files are written
where the vectors are: the writer).  ``batch_size`` is Chroma's default (vectors kept in a brute-force buffer
before they enter the graph).  Measured on 20,000 random vectors in upserts of 64: no change in the files' sizes;
insert time 34 s at the defaults against 38–44 s (noisy: two cores shared)."""


def _persist_often(col) -> None:
    """Give a collection made before :data:`HNSW` (Chroma's default ``sync_threshold`` 1000) Kith's settings, so its
    next write saves the index (writer only).  A Chroma that cannot change them leaves the collection as it was."""
    try:
        cfg = (col.configuration_json or {}).get("hnsw") or {}
    except Exception:
        return
    if cfg and cfg.get("sync_threshold") not in (None, HNSW["sync_threshold"]):
        try:
            col.modify(configuration={"hnsw": {"sync_threshold": HNSW["sync_threshold"]}})
        except Exception as exc:  # an older or newer Chroma: the default threshold only costs a replay on open
            import logging

            logging.getLogger(__name__).warning("the vector store keeps Chroma's sync_threshold %s: %s",
                                                cfg.get("sync_threshold"), exc)


def embedding_function(encode: EncodeFn | None):
    """Return Kith's registered Chroma embedding function wrapping ``encode``."""
    global _EF_CLASS
    if _EF_CLASS is None:
        _EF_CLASS = _register()
    return _EF_CLASS(encode)


class _Guard:
    """This process's RLock, then the cross-process gate: one context manager."""

    def __init__(self, rlock, gate):
        self.rlock, self.gate = rlock, gate
        self._held = None

    def __enter__(self):
        self.rlock.acquire()
        try:
            cm = self.gate.hold()
            cm.__enter__()
        except BaseException:
            self.rlock.release()
            raise
        stack = getattr(self, "_stack", None)
        if stack is None:
            stack = self._stack = []
        stack.append(cm)
        return self

    def __exit__(self, *exc):
        cm = self._stack.pop()
        try:
            cm.__exit__(*exc)
        finally:
            self.rlock.release()
        return False


class _NoGate:
    """The cross-process gate of a Chroma server: none is needed (the server serialises its own files)."""

    def hold(self):
        import contextlib

        return contextlib.nullcontext(self)


STORE_MARKER = "kith-store.json"
"""A file Kith writes into the Chroma folder with the store's random id.  When it is missing or its id
differs from the one the SQLite database remembers, the folder was deleted, replaced or restored from
another time, and every vector must be rebuilt from SQLite (``app/pipeline.py``)."""


_MMAP_FIXED = False


def zeroed_large_allocations(threshold: int = 128 * 1024) -> bool:
    """Fix glibc's mmap threshold at ``threshold`` bytes (``mallopt(M_MMAP_THRESHOLD)``), so every allocation at
    least that large comes from fresh, zero-filled pages.

    Chroma's local HNSW index allocates its element buffer (100 slots of ~1.7 KB at the least) with ``malloc`` and
    writes all of it to ``data_level0.bin`` on the first query of each client, used or not.  glibc raises its mmap
    threshold as a long-running process frees large blocks (up to 32 MiB), after which such a buffer is carved from
    the heap, holding what the process freed before — in the process that just purged a forgotten person, their
    words ("kayak" in a CI run, after the purge's scrub).  A fixed threshold keeps it mmapped, hence zeroed.  It
    costs: every large temporary is mapped afresh (the text encoder ran 1.8× slower: 18.5 ms against 10.1 ms a
    question, measured), so only a process that purged calls it — the one whose heap held the purged words
    (``app.operations.forget``).  Linux with glibc only (macOS's large allocations are zero-filled already);
    returns whether it was set (once)."""
    global _MMAP_FIXED
    if _MMAP_FIXED:
        return True
    import ctypes
    import ctypes.util
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        _MMAP_FIXED = bool(libc.mallopt(-3, threshold))  # M_MMAP_THRESHOLD = -3 (malloc.h)
    except (OSError, AttributeError):
        return False
    return _MMAP_FIXED


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

    def __init__(self, path: Path, encode: EncodeFn | None = None, writable: bool = True, url: str | None = None,
                 namespace: str | None = None):
        import threading

        self.path = Path(path)
        self.url = url or None
        self.namespace = namespace or "kith"
        self._ef = embedding_function(encode)
        self.client = None
        self._collections: dict[str, Any] = {}
        if self.url:  # a Chroma server: no files of ours to guard, one client per process
            import contextlib

            self._lock = _Guard(threading.RLock(), _NoGate())
            return
        from core.store.lock import FileGate

        # Threads of this process and other processes take turns at Chroma's files: its embedded client
        # writes to them even to read (core.store.lock.FileGate), and a reopen must never close the client
        # under another thread's query.
        self._lock = _Guard(threading.RLock(), FileGate(self.path.parent / (self.path.name + ".lock")))
        if writable or self.path.exists():
            with self._lock:
                self._open(create=writable)

    def _open(self, create: bool):
        if self.client is not None:
            return self.client
        if self.url:
            return self._open_server()
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

    def _open_server(self):
        """``chromadb.HttpClient`` on :attr:`url` (``http://host:port``), telemetry off, in the Chroma database
        :attr:`namespace` (created if missing: one per Kith database, so setups sharing a server stay apart)."""
        from urllib.parse import urlsplit

        import chromadb
        from chromadb.config import Settings as ChromaSettings

        u = urlsplit(self.url)
        host, port, ssl = u.hostname or "127.0.0.1", u.port or (443 if u.scheme == "https" else 8000), u.scheme == "https"
        cs = ChromaSettings(anonymized_telemetry=False)
        try:
            admin = chromadb.AdminClient(settings=ChromaSettings(anonymized_telemetry=False, chroma_api_impl=
                                                                 "chromadb.api.fastapi.FastAPI", chroma_server_host=host,
                                                                 chroma_server_http_port=port, chroma_server_ssl_enabled=ssl))
            try:
                admin.get_database(self.namespace)
            except Exception:
                admin.create_database(self.namespace)
            self.client = chromadb.HttpClient(host=host, port=port, ssl=ssl, settings=cs, database=self.namespace)
        except Exception as exc:
            raise StoreError(f"{self.url}: cannot reach the Chroma server: {exc}") from exc
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
    META = "kith-store"
    """On a Chroma server: the collection whose metadata holds the store's id (there is no folder for a marker)."""

    def store_id(self) -> str | None:
        """The id in the folder's :data:`STORE_MARKER`, or None when the folder or the marker is missing."""
        import json

        if self.url:
            with self._lock:
                try:
                    return (self._open(False).get_collection(self.META).metadata or {}).get("store_id")
                except StoreError:
                    raise
                except Exception:
                    return None

        try:
            return json.loads((self.path / STORE_MARKER).read_text(encoding="utf-8")).get("id")
        except (OSError, ValueError, AttributeError):
            return None

    def write_store_id(self, store_id: str) -> None:
        """Write :data:`STORE_MARKER` (creating the folder).  Call under the writer lock."""
        with self._lock:
            import json

            if self.url:
                self._open(True).get_or_create_collection(self.META, embedding_function=self._ef)
                col = self.client.get_collection(self.META, embedding_function=self._ef)
                col.modify(metadata={"store_id": store_id})
                return
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
                col = client.get_or_create_collection(name=name, embedding_function=self._ef,
                                                      configuration={"hnsw": dict(HNSW)})
                if not self.url:
                    _persist_often(col)
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
            if col is None or k <= 0:
                return []
            # No count() first: it costs ~6 ms at 10^5 vectors, five times the query; Chroma (≥ 1.0) returns
            # fewer than k neighbours, or none, when the collection holds fewer.
            res = col.query(query_embeddings=[np.asarray(vector, dtype=np.float32)], n_results=k, where=where,
                            include=["distances"])
            return list(zip(res["ids"][0], res["distances"][0])) if res["ids"] else []

    def warm(self, name: str, dim: int = 384) -> bool:
        """Load the collection's nearest-neighbour index into memory now (Chroma loads it on the first query:
        ~0.25 s at 10⁵ vectors), so that it can happen while something else loads.  Reads only.  Returns
        False when the collection does not exist."""
        v = np.zeros(dim, dtype=np.float32)
        v[0] = 1.0
        with self._lock:
            col = self.collection(name, create=False)
            if col is None:
                return False
            col.query(query_embeddings=[v], n_results=1, include=[])
            return True

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

    def iterate(self, name: str, page: int = 1000):
        """Every ``(id, float32 (384,) vector, metadata)`` of the collection, a page at a time (for an export:
        one page in memory at a time).  Nothing when the collection does not exist."""
        offset = 0
        while True:
            with self._lock:
                col = self.collection(name, create=False)
                if col is None:
                    return
                got = col.get(include=["embeddings", "metadatas"], limit=page, offset=offset)
            metas = got["metadatas"] or [None] * len(got["ids"])
            for vid, emb, meta in zip(got["ids"], got["embeddings"], metas):
                yield vid, np.asarray(emb, dtype=np.float32), dict(meta or {})
            if len(got["ids"]) < page:
                return
            offset += len(got["ids"])

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

    def get(self, name: str, ids: Sequence[str]) -> list[tuple[str, np.ndarray, dict]]:
        """The stored ``(id, float32 (384,) vector, metadata)`` of those of ``ids`` present, in Chroma's order."""
        with self._lock:
            if not len(ids):
                return []
            col = self.collection(name, create=False)
            if col is None:
                return []
            out = []
            for i in range(0, len(ids), 500):
                got = col.get(ids=list(ids[i:i + 500]), include=["embeddings", "metadatas"])
                for vid, emb, meta in zip(got["ids"], got["embeddings"], got["metadatas"] or [None] * len(got["ids"])):
                    out.append((vid, np.asarray(emb, dtype=np.float32), dict(meta or {})))
            return out

        # ---- purge: rewrite a collection so deleted vectors leave Chroma's files ------------------------

    def _names(self) -> set[str]:
        with self._lock:
            client = self._open(create=False)
            return {getattr(c, "name", c) for c in client.list_collections()} if client is not None else set()

    def rebuild(self, name: str, batch: int = 1000) -> int:
        """Rewrite collection ``name`` with only its live vectors, so deleted ones leave Chroma's files
        (its HNSW segment and its SQLite log; Chroma's own delete only marks them).

        Crash-safe: the live vectors are copied into ``NAME-rebuild``, the old collection is deleted and
        the copy renamed; run again after a crash, it finishes whichever step was left.  Returns the
        vectors kept.  Afterwards call :meth:`drop_orphan_segments` and :meth:`vacuum`."""
        with self._lock:
            tmp = f"{name}-rebuild"
            names = self._names()
            if name not in names and tmp in names:  # crashed after the delete: finish the rename
                col = self.client.get_collection(tmp, embedding_function=self._ef)
                col.modify(name=name)
                self._collections[name] = col
                return col.count()
            if tmp in names:
                self.client.delete_collection(tmp)
            if name not in names:
                return 0
            src = self.collection(name)
            dst = self.client.create_collection(tmp, embedding_function=self._ef, configuration={"hnsw": dict(HNSW)})
            kept, offset = 0, 0
            while True:
                got = src.get(include=["embeddings", "metadatas"], limit=batch, offset=offset)
                if not got["ids"]:
                    break
                metas = got["metadatas"] or [None] * len(got["ids"])
                dst.add(ids=got["ids"], embeddings=np.asarray(got["embeddings"], dtype=np.float32),
                        metadatas=[m if m else None for m in metas] if any(metas) else None)
                kept += len(got["ids"])
                offset += len(got["ids"])
            self.client.delete_collection(name)
            self._collections.pop(name, None)
            dst.modify(name=name)
            self._collections[name] = dst
            return kept

    def drop_orphan_segments(self) -> int:
        """Delete segment folders of collections that no longer exist (Chroma leaves them on disk
        after ``delete_collection``, with their vectors).  Returns folders removed."""
        if self.url:
            return 0  # a server keeps its own files
        with self._lock:
            import shutil
            import sqlite3

            db = self.path / "chroma.sqlite3"
            if not db.exists():
                return 0
            conn = sqlite3.connect(str(db), timeout=30)
            try:
                live = {r[0] for r in conn.execute("SELECT id FROM segments")}
            finally:
                conn.close()
            n = 0
            for p in self.path.iterdir():
                if p.is_dir() and len(p.name) == 36 and p.name.count("-") == 4 and p.name not in live:
                    shutil.rmtree(p, ignore_errors=True)
                    n += 1
            return n

    def scrub_index_files(self) -> int:
        """Zero the bytes of each local HNSW segment that the index never reads (call with the client closed).

        Chroma saves hnswlib's buffers as they are: ``data_level0.bin`` holds a slot per element of the index's
        capacity (``header.bin``: capacity, elements in use, slot size), each starting with the element's
        neighbour list — a 4-byte header whose low 2 bytes are the count, then room for ``maxM0`` 4-byte ids —
        and ``length.bin`` a float32 per slot.  Slots past the elements in use, and in a used slot the header's
        high 2 bytes and the entries past the count, are never written after allocation and never read: they
        hold links pruned away and, in a small index, whatever the process's heap held before — a purged
        person's name and words, found once in a CI run.  This rewrites both files with those bytes zeroed
        (each to a temporary file, then replaced); the index reads exactly as before.  A segment whose header
        is not in this layout is left alone.  Returns the files rewritten; a server keeps its own files: 0."""
        if self.url or not self.path.exists():
            return 0
        import os
        import struct

        n = 0
        for seg in self.path.iterdir():
            head = seg / "header.bin"
            if not (seg.is_dir() and head.exists() and (seg / "data_level0.bin").exists()):
                continue
            h = head.read_bytes()
            if len(h) < 100 or struct.unpack_from("<I", h, 0)[0] != 1:
                continue
            _off0, capacity, used, per, _label, links0 = struct.unpack_from("<6Q", h, 4)
            _max_m, max_m0 = struct.unpack_from("<2Q", h, 60)
            if links0 != 4 + 4 * max_m0 or per <= links0 or used > capacity:
                continue
            data = np.fromfile(seg / "data_level0.bin", dtype=np.uint8)
            if data.size % per:
                continue
            slots = data.reshape(-1, per)
            slots[used:] = 0
            links = slots[:used, :links0]  # each used slot's neighbour list: zero the header's high 2 bytes
            links[:, 2:4] = 0  # and the entries past the count (its low 2 bytes)
            count = np.minimum(links[:, 0].astype(np.int64) | (links[:, 1].astype(np.int64) << 8), max_m0)
            links[np.arange(links0)[None, :] >= 4 + 4 * count[:, None]] = 0
            files = {"data_level0.bin": data.tobytes()}
            lengths = seg / "length.bin"
            if lengths.exists():
                norms = bytearray(lengths.read_bytes())
                norms[4 * used:] = bytes(max(0, len(norms) - 4 * used))
                files["length.bin"] = norms
            for name, buf in files.items():
                tmp = seg / (name + ".scrub")
                with open(tmp, "wb") as f:
                    f.write(buf)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, seg / name)
                n += 1
        return n

    def vacuum(self) -> None:
        """``VACUUM`` Chroma's SQLite file so no free page keeps a deleted vector or its metadata.

        Raises:
            StoreError: the file is locked (another process is writing).
        """
        if self.url:
            return  # a server compacts its own files (the collections were rebuilt without the deleted vectors)
        with self._lock:
            import sqlite3

            db = self.path / "chroma.sqlite3"
            if not db.exists():
                return
            conn = sqlite3.connect(str(db), timeout=30, isolation_level=None)
            try:
                conn.execute("VACUUM")
                if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal":
                    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error as exc:
                raise StoreError(f"{db}: cannot vacuum the vector store: {exc}") from exc
            finally:
                conn.close()


# ---- forget (issue 11): the vectors of forgotten records and facts ---------------------------------

STORE = "vectors"


def forget_plan(vs: VectorStore, sc) -> dict[str, int]:
    """Vectors a forget removes (its records' and facts') and replaces (the redacted records')."""
    from core.store.collections import FACTS, RECORDS, fact_vid, record_vid

    def present(name, vids):
        return len(vs.get(name, vids)) if vids else 0
    return {"records": present(RECORDS, [record_vid(r) for r in sc.records]),
            "facts": present(FACTS, [fact_vid(f) for f in sc.facts]),
            "records_reembedded": present(RECORDS, [record_vid(r) for r in sc.redact_records])}


def forget_stash(vs: VectorStore, conn, op_id: int, sc) -> dict[str, int]:
    """Copy the vectors :func:`forget_hide` will delete or replace into the stash (inside the hide's
    SQLite transaction, before Chroma is touched).  Returns counts like :func:`forget_plan`."""
    from core.store.collections import FACTS, RECORDS, fact_vid, record_vid
    from core.store.forgetting import stash_vector

    n = {}
    for key, name, vids in (("records", RECORDS, [record_vid(r) for r in sc.records]),
                            ("facts", FACTS, [fact_vid(f) for f in sc.facts]),
                            ("records_reembedded", RECORDS, [record_vid(r) for r in sc.redact_records])):
        got = vs.get(name, vids)
        for vid, vec, meta in got:
            stash_vector(conn, op_id, STORE, name, vid, vec.astype("<f4").tobytes(), meta)
        n[key] = len(got)
    return n


def forget_hide(vs: VectorStore, sc, reembedded: dict[int, np.ndarray]) -> dict[str, int]:
    """Delete the forgotten records' and facts' vectors and write the redacted records' new ones
    (``record id → float32 (384,)``).  Idempotent (a resumed forget runs it again)."""
    from core.store.collections import FACTS, RECORDS, fact_vid, record_vid

    n = {"records": vs.delete(RECORDS, [record_vid(r) for r in sc.records]),
         "facts": vs.delete(FACTS, [fact_vid(f) for f in sc.facts])}
    if reembedded:
        ids = sorted(reembedded)
        vs.upsert(RECORDS, [record_vid(r) for r in ids], np.stack([reembedded[r] for r in ids]),
                  [{"record_id": r} for r in ids])
    n["records_reembedded"] = len(reembedded)
    return n


def forget_restore(vs: VectorStore, conn, op_id: int) -> int:
    """Write the stashed vectors back exactly (same ids, bytes and metadata).  Returns how many."""
    from core.store.forgetting import stashed

    by: dict[str, list] = {}
    for _k, name, data, blob in stashed(conn, op_id, STORE, kind="vector"):
        by.setdefault(name, []).append((data["id"], np.frombuffer(blob, dtype="<f4").astype(np.float32),
                                        data.get("metadata") or None))
    n = 0
    for name, rows in by.items():
        rows = list({vid: (vid, v, m) for vid, v, m in rows}.values())  # one per id (the first stashed wins below)
        vs.upsert(name, [r[0] for r in rows], np.stack([r[1] for r in rows]),
                  [r[2] or {} for r in rows] if any(r[2] for r in rows) else None)
        n += len(rows)
    return n

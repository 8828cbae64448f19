"""Builds every service once, from settings; no globals elsewhere (DESIGN.md §1)."""
from __future__ import annotations

import os
import threading

from app.settings import Settings
from app.taskman import Writer
from core.graph.resolution import NameIndex
from core.store.db import Database
from core.store.lock import FolderLock
from core.store.vectors import VectorStore

# Chroma and Hugging Face libraries must never phone home (Kith is offline and private).
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


class Container:
    """The services of one data folder: database, vector store, encoder (lazy), writer.

    Args:
        settings: loaded settings; ``Settings.load()`` when None.
        database / vectors: the database URL and Chroma server URL (``""``: embedded) to use instead of the
            settings' (``kith migrate`` opens its target so).
        describe: what this process is doing, shown to another process waiting for the writer lock.
        lock_timeout: seconds a write waits for another process's writer lock (None = forever).
        on_lock_wait: called with a message when a write has to wait for another process.

    Every write runs on :attr:`writer` under :attr:`lock`, the data folder's cross-process writer
    lock (``core.store.lock``).  When another process is found to have written, the in-memory
    views of the stores (name index, HDC episode index, Chroma's HNSW graph) are reloaded.
    """

    def __init__(self, settings: Settings | None = None, describe: str = "kith",
                 lock_timeout: float | None = None, on_lock_wait=None, database: str | None = None,
                 vectors: str | None = None):
        self.settings = settings or Settings.load()
        self.database_url = database or self.settings.database
        self.vectors_url = self.settings.vectors_location if vectors is None else vectors
        if not self.database_url.startswith("sqlite"):  # one writer per server database, across devices
            from core.store.lock import ServerLock

            self.lock = ServerLock(self.database_url, describe=describe, timeout=lock_timeout, on_wait=on_lock_wait)
        else:
            self.lock = FolderLock(self.settings.home, describe=describe, timeout=lock_timeout, on_wait=on_lock_wait)
        self.db = Database(self.database_url, lock=self.lock)
        self.writer = Writer(self.lock)
        self.names = NameIndex()  # entity names for fuzzy resolution; used on the writer thread only
        self._encoder = None
        self._encoder_lock = threading.Lock()
        self._vectors_lock = threading.Lock()  # apart from the encoder's: both may be opened at once
        self._vectors: VectorStore | None = None
        self._transcriber = None
        self._fact_extractor = None
        self.lock.on_change(self._stores_changed)

    def _stores_changed(self) -> None:
        """Another process wrote the data folder: drop what this process keeps in memory about it."""
        self.names.invalidate()
        svc = getattr(self, "_memory_service", None)
        if svc is not None:
            svc.refresh()
        if self._vectors is not None:
            self._vectors.reopen()

    def refresh(self) -> bool:
        """For reads: pick up what another process wrote since this one last looked (cheap; writes nothing).

        Returns:
            True when something was reloaded."""
        return self.lock.changed_since()

    @property
    def encoder(self):
        """The text encoder (all-MiniLM-L6-v2), loaded on first use (about a second)."""
        if self._encoder is None:
            with self._encoder_lock:
                if self._encoder is None:
                    from app.models.encoders import load_encoder

                    self._encoder = load_encoder(self.settings.encoder_backend)
        return self._encoder

    @property
    def fact_extractor(self):
        """The LLM fact extractor when ``settings.fact_extractor == "llm"`` and a model is configured, else None
        (the deterministic extractor runs).  Tests set ``_fact_extractor`` directly."""
        if self._fact_extractor is None and self.settings.fact_extractor == "llm":
            from app.extract_llm import LLMFactExtractor
            from app.models.registry import build_chat_model

            model = build_chat_model(self.settings)
            if getattr(model, "available", False):
                self._fact_extractor = LLMFactExtractor(model)
        return self._fact_extractor

    def transcribe(self, path):
        """Speech to text with the configured Whisper model (converted once, loaded on first use), primed
        with the names Kith knows (``app/speech.py``).  Returns an ``app.models.transcribe.Transcript``."""
        from app.speech import known_names, prompt_for

        with self._encoder_lock:
            if self._transcriber is None:
                from app.models.transcribe import Transcriber

                self._transcriber = Transcriber.from_settings(self.settings)
        return self._transcriber.transcribe(path, initial_prompt=prompt_for(known_names(self)))

    def ingestors(self) -> list:
        """Every ingestor, with the voice and video ingestors wired to this container's speech-to-text, and every
        built-in ingestor that reads zone-less times (photos, videos, voice memos, WhatsApp and Telegram exports)
        reading them in the settings' ``local_timezone`` (UTC when it is not a zone)."""
        from ingestors.registry import all_ingestors
        from ingestors.video import VideoIngestor
        from ingestors.voice import VoiceIngestor

        zone = self.settings.local_timezone or "UTC"
        try:
            found = all_ingestors(zone)
        except ValueError:
            zone, found = "UTC", all_ingestors()
        found = [VideoIngestor(self.transcribe, local_timezone=zone) if type(i) is VideoIngestor else i
                 for i in found]
        return found + [VoiceIngestor(self.transcribe, local_timezone=zone)]

    @property
    def vectors(self) -> VectorStore:
        """The Chroma store, opened on first use (importing Chroma takes a few seconds)."""
        if self._vectors is None:
            with self._vectors_lock:
                if self._vectors is None:
                    self._vectors = VectorStore(self.settings.chroma_path,
                                                encode=lambda texts: self.encoder.encode(texts),
                                                writable=self.lock.held, url=self.vectors_url,
                                                namespace=self.vector_namespace)
        return self._vectors

    @property
    def vector_namespace(self) -> str:
        """The Chroma server database that holds this setup's collections: the PostgreSQL database's name
        (setups sharing a Chroma server stay apart; devices sharing one database share it), else ``kith``."""
        if self.db.server:
            from sqlalchemy.engine import make_url

            return make_url(self.db.url).database or "kith"
        return "kith"

    def close(self) -> None:
        """Finish pending writes and close the stores: the personalization ledger's connections, the memory's
        signature files, Chroma's client (its SQLite file and HNSW segment files: Chroma keeps them open until
        its last client closes) and the database.  Every open file is released: a process that opens one data
        folder after another (the tests, a window switching folders) would otherwise run out of file
        descriptors."""
        svc = getattr(self, "_personal_service", None)
        if svc is not None:
            self.writer.run(svc.close)  # the writer thread's ledger connection
            svc.close()                 # this thread's
        self.writer.close()
        mem = getattr(self, "_memory_service", None)
        if mem is not None:
            mem.mem.close()
        vectors, self._vectors = self._vectors, None
        if vectors is not None:
            vectors.close()
        self.db.close()
        if hasattr(self.lock, "close"):
            self.lock.close()

    def __enter__(self) -> "Container":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

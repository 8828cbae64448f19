"""Embedding router: which text encoder embeds which class of content.

Content classes: ``facts``, ``chunks`` (record text), ``observations`` and ``messages``.
Today every class uses all-MiniLM-L6-v2 (384-d, ``app/models/encoders.py``); the setting
``embedding_routes`` (content class → encoder name) lets a second encoder take over one class,
e.g. ``{"chunks": "bge-small-en"}`` once that encoder is registered with :meth:`EmbeddingRouter.register`.
Vectors of different encoders are never comparable, so each class's collection must be
re-embedded when its route changes (the router reports the name per class; stores should
record it alongside their vectors).
"""
from __future__ import annotations

import threading
from typing import Callable, Mapping, Sequence

import numpy as np

from core.errors import ModelError

CONTENT_CLASSES = ("facts", "chunks", "observations", "messages")
DEFAULT_ENCODER = "all-MiniLM-L6-v2"


class EmbeddingRouter:
    """Picks (and lazily loads, once per encoder) the encoder for each content class.

    Args:
        routes: content class → encoder name; classes not named use ``default``.
        backend: ``encoder_backend`` setting for MiniLM (``"auto"``, ``"numpy"``, ``"mlx"``).
        default: the encoder name for unrouted classes.
        preloaded: encoder name → an already-loaded encoder (e.g. the Container's), reused as is.

    Raises:
        ModelError: a route names an unknown content class (at construction) or an unregistered
            encoder (at first use).
    """

    def __init__(self, routes: Mapping[str, str] | None = None, backend: str = "auto",
                 default: str = DEFAULT_ENCODER, preloaded: Mapping[str, object] | None = None):
        routes = dict(routes or {})
        unknown = sorted(set(routes) - set(CONTENT_CLASSES))
        if unknown:
            raise ModelError(f"embedding_routes names unknown content classes {unknown} "
                             f"(use {', '.join(CONTENT_CLASSES)})")
        self.routes = {c: routes.get(c, default) for c in CONTENT_CLASSES}
        self._loaders: dict[str, Callable[[], object]] = {DEFAULT_ENCODER: lambda: _minilm(backend)}
        self._loaded: dict[str, object] = dict(preloaded or {})
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings, preloaded: Mapping[str, object] | None = None) -> "EmbeddingRouter":
        """A router from ``settings.embedding_routes`` and ``settings.encoder_backend``."""
        from app.models.registry import setting

        return cls(setting(settings, "embedding_routes"), getattr(settings, "encoder_backend", "auto"),
                   preloaded=preloaded)

    def register(self, name: str, loader: Callable[[], object]) -> None:
        """Make encoder ``name`` available; ``loader()`` returns an object with ``encode(texts)`` and ``dim``."""
        with self._lock:
            self._loaders[name] = loader

    def name_for(self, content_class: str) -> str:
        """The encoder name routed for ``content_class``. Raises ModelError for an unknown class."""
        try:
            return self.routes[content_class]
        except KeyError:
            raise ModelError(f"unknown content class {content_class!r} (use {', '.join(CONTENT_CLASSES)})") from None

    def encoder_for(self, content_class: str):
        """The loaded encoder for ``content_class`` (loaded on first use)."""
        name = self.name_for(content_class)
        with self._lock:
            if name not in self._loaded:
                if name not in self._loaders:
                    raise ModelError(f"embedding_routes sends {content_class} to {name!r}, which is not an "
                                     f"available encoder (available: {', '.join(sorted(self._loaders))})")
                self._loaded[name] = self._loaders[name]()
            return self._loaded[name]

    def encode(self, content_class: str, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` as ``content_class``: float32 (len(texts), dim), rows L2-normalised."""
        return self.encoder_for(content_class).encode(list(texts))

    def dim(self, content_class: str) -> int:
        """The vector size for ``content_class`` (384 for MiniLM)."""
        return int(self.encoder_for(content_class).dim)


def _minilm(backend: str):
    from app.models.encoders import load_encoder

    return load_encoder(backend)

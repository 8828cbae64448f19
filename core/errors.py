"""Kith's own exception hierarchy.

Every error that crosses a layer boundary is one of these, so the CLI and the
window can show a message a person can act on.  Third-party exceptions are
mapped into these at the boundary where they arise (the httpx habit, DESIGN.md §5).
"""
from __future__ import annotations


class KithError(Exception):
    """Base of every error Kith raises on purpose."""


class InputError(KithError):
    """A file (or one item inside it) the user gave could not be read.

    Attributes:
        path: the file, as given (str).
        reason: what is wrong, in words a person can act on.
        locator: where inside the file (e.g. ``"message 3"``), or None for the whole file.
    """

    def __init__(self, path: str, reason: str, locator: str | None = None):
        self.path = str(path)
        self.reason = reason
        self.locator = locator
        where = f" ({locator})" if locator else ""
        super().__init__(f"{self.path}{where}: {reason}")


class StoreError(KithError):
    """A store (SQLite, Chroma, the signature file) failed or is inconsistent."""


class NotFound(KithError):
    """A named thing (entity, record, setting) does not exist."""


class Ambiguous(KithError):
    """A name matched more than one thing; ``candidates`` lists them."""

    def __init__(self, message: str, candidates: list):
        self.candidates = candidates
        super().__init__(message)


class Cancelled(KithError):
    """Long work stopped because the user cancelled it."""


class ModelError(KithError):
    """A model (encoder, chat model, transcriber) is missing or failed."""


# --- chat / speech model errors (app/models/llm.py maps every backend's failures into these) ---


class ModelUnreachable(ModelError):
    """The model server could not be reached (connection refused, DNS, timeout)."""


class ModelAuthError(ModelError):
    """The model server rejected the API key (HTTP 401/403)."""


class ModelNotFound(ModelError):
    """The configured model does not exist (no such local directory, or the server does not serve it)."""


class ContextTooLong(ModelError):
    """The prompt plus the reply would not fit in the model's context window."""


class ModelOutputError(ModelError):
    """The model's output was unusable, e.g. malformed JSON in JSON mode; ``text`` holds what it wrote."""

    def __init__(self, message: str, text: str = ""):
        self.text = text
        super().__init__(message)


class NoModelConfigured(ModelError):
    """No chat model is configured, so nothing can be generated (answers come from memory alone)."""

"""API keys in the OS keyring — never in a file, never in a log.

Kith keeps one secret per model endpoint (the OpenAI-compatible backend's API
key) in the OS keyring through the ``keyring`` package (macOS Keychain, Windows
Credential Locker, Secret Service / KWallet on Linux).  A headless Linux box
usually has no keyring backend at all (``keyring`` then selects
``keyring.backends.fail.Keyring``, whose calls raise ``NoKeyringError``; measured
here, DESIGN.md §2).  In that case Kith says so and keeps the key in memory for
this session only: it is never written to settings.json or any other file, and
``keyrings.alt``'s plain-text backends are refused as well.

Usage::

    store = SecretStore()
    where = store.set_api_key("https://api.openai.com/v1", "sk-...")   # "keyring" or "session"
    store.get_api_key("https://api.openai.com/v1")
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Iterable

SERVICE = "Kith"

# Backends that are no keyring at all, or that store secrets in a plain (or trivially encoded) file.
_NO_BACKEND = {"keyring.backends.fail.Keyring", "keyring.backends.null.Keyring"}
_PLAINTEXT = {"keyrings.alt.file.PlaintextKeyring", "keyrings.alt.file.EncryptedKeyring",
              "keyrings.alt.Gnome.Keyring", "keyrings.alt.pyfs.PlaintextKeyring"}


@dataclass(frozen=True)
class BackendStatus:
    """Whether the OS keyring can hold secrets here.

    Attributes:
        available: True when keys persist in a real OS keyring.
        backend: the keyring backend's class path (e.g. ``keyring.backends.SecretService.Keyring``).
        message: one sentence for the person (what happens to a key they enter).
    """

    available: bool
    backend: str
    message: str


MASK = "••••"
_PATTERNS = (
    re.compile(r"\b(?:sk|pk|rk|sess|key|api[_-]?key)[-_][A-Za-z0-9_\-]{8,}", re.IGNORECASE),  # sk-…, sk-proj-…
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/\-]{8,}=*"),                                   # Authorization header
    re.compile(r"\b[A-Za-z0-9_\-]{40,}\b"),                                                 # long opaque tokens
)


def mask_secrets(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every secret masked: the given values (wherever they occur, also in part of a word) and
    anything shaped like an API key (``sk-…``, ``Bearer …``, 40+ character tokens) become ``••••`` — the
    last 4 characters of a known secret are kept, so a person can tell which key was meant.

    Servers echo keys in their error text (an OpenAI-compatible server's 401 "Incorrect API key provided:
    sk-…"); everything shown in Settings or the chat passes through here.
    """
    out = str(text or "")
    for secret in sorted({x for x in secrets if x and len(x) >= 4}, key=len, reverse=True):
        out = out.replace(secret, MASK + secret[-4:] if len(secret) >= 12 else MASK)
    out = _PATTERNS[0].sub(lambda m: MASK + m.group(0)[-4:] if MASK not in m.group(0) else m.group(0), out)
    out = _PATTERNS[1].sub(lambda m: m.group(1) + MASK, out)
    out = _PATTERNS[2].sub(lambda m: MASK + m.group(0)[-4:], out)
    return out


def account_for(endpoint: str) -> str:
    """The keyring account name for an endpoint's API key: ``api-key:<base URL without trailing slash>``."""
    return "api-key:" + (endpoint or "default").rstrip("/")


class SecretStore:
    """API keys in the OS keyring, or (when there is none) in this process's memory only.

    Thread-safe.  Nothing here logs or prints a secret; ``repr`` shows only which accounts are held.
    """

    def __init__(self, service: str = SERVICE):
        self.service = service
        self._session: dict[str, str] = {}
        self._seen: set[str] = set()  # every key handled in this process, for masking (never written anywhere)
        self._lock = threading.Lock()

    def mask(self, text: str, extra: Iterable[str | None] = ()) -> str:
        """``text`` with every key this store handled in this process (and ``extra``) masked
        (:func:`mask_secrets`)."""
        with self._lock:
            known = set(self._seen) | set(self._session.values())
        return mask_secrets(text, known | {x for x in extra if x})

    def __repr__(self) -> str:  # never show values
        return f"SecretStore(service={self.service!r}, session_accounts={sorted(self._session)})"

    def status(self) -> BackendStatus:
        """Which keyring backend is in use and whether keys will persist.

        Returns:
            :class:`BackendStatus`; ``available`` is False for the fail/null backends, plain-text
            file backends, or when ``keyring`` is not installed.
        """
        try:
            import keyring
        except ImportError:
            return BackendStatus(False, "none", "The keyring package is not installed, so your API key is kept "
                                                "in memory for this session only; enter it again next time.")
        kr = keyring.get_keyring()
        names = {f"{type(kr).__module__}.{type(kr).__qualname__}"}
        for inner in getattr(kr, "backends", []) or []:  # ChainerBackend: judge what it chains
            names.add(f"{type(inner).__module__}.{type(inner).__qualname__}")
        name = f"{type(kr).__module__}.{type(kr).__qualname__}"
        chained = getattr(kr, "backends", None)
        if name in _NO_BACKEND or (chained is not None and not chained):
            return BackendStatus(False, name, "No OS keyring is available on this machine, so your API key is kept "
                                              "in memory for this session only; enter it again next time "
                                              "(install and unlock a Secret Service keyring, e.g. GNOME Keyring, "
                                              "to keep it).")
        if names & _PLAINTEXT:
            return BackendStatus(False, name, f"The keyring backend {name} would store the key in a file, which "
                                              "Kith refuses; the key is kept in memory for this session only.")
        return BackendStatus(True, name, f"Your API key is stored in the OS keyring ({name}).")

    def set_api_key(self, endpoint: str, key: str) -> str:
        """Store ``key`` for ``endpoint``.

        Args:
            endpoint: the base URL the key belongs to.
            key: the secret; an empty string deletes it.

        Returns:
            ``"keyring"`` when the OS keyring holds it, ``"session"`` when it is kept in memory only
            (no usable keyring, or the keyring refused it), ``"deleted"`` for an empty key.
        """
        account = account_for(endpoint)
        if not key:
            self.delete_api_key(endpoint)
            return "deleted"
        with self._lock:
            self._seen.add(key)
        if self.status().available:
            try:
                import keyring

                keyring.set_password(self.service, account, key)
                with self._lock:
                    self._session.pop(account, None)
                return "keyring"
            except Exception:  # KeyringError, a locked keyring, D-Bus failures: fall back to memory
                pass
        with self._lock:
            self._session[account] = key
        return "session"

    def get_api_key(self, endpoint: str) -> str | None:
        """The key for ``endpoint`` (session memory first, then the OS keyring), or None."""
        account = account_for(endpoint)
        with self._lock:
            if account in self._session:
                return self._session[account]
        if not self.status().available:
            return None
        try:
            import keyring

            key = keyring.get_password(self.service, account)
        except Exception:
            return None
        if key:
            with self._lock:
                self._seen.add(key)
        return key

    def delete_api_key(self, endpoint: str) -> None:
        """Forget the key for ``endpoint`` in memory and in the OS keyring (missing keys are fine)."""
        account = account_for(endpoint)
        with self._lock:
            self._session.pop(account, None)
        if self.status().available:
            try:
                import keyring

                keyring.delete_password(self.service, account)
            except Exception:
                pass


_default: SecretStore | None = None
_default_lock = threading.Lock()


def default_store() -> SecretStore:
    """The process's SecretStore (session-only keys must outlive any one settings page or model)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = SecretStore()
        return _default

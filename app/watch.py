"""The watched inbox folder: files copied into ``<data folder>/Inbox`` are imported once they stop changing.

Wraps :class:`ingestors.inbox.Inbox` (watchdog) so the window talks only to ``app/``.
``on_ready`` is called from the watcher's thread; the window marshals it to the UI thread.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from app.container import Container


def inbox_folder(c: Container) -> Path:
    """``<data folder>/Inbox`` (created)."""
    folder = c.settings.home / "Inbox"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def start_inbox_watcher(c: Container, on_ready: Callable[[Path], None], settle_seconds: float = 2.0):
    """Start watching the inbox folder; returns the watcher (call ``.stop()`` when done).

    Files already there are offered once at start (a repeated import adds nothing).
    """
    from ingestors.inbox import Inbox

    watcher = Inbox(inbox_folder(c), on_ready, settle_seconds=settle_seconds)
    watcher.start()
    return watcher

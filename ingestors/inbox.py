"""The inbox: a watched folder whose new files are handed on once they have finished arriving.

:class:`Inbox` watches a folder (recursively) with watchdog.  A file seen there —
created, modified, moved in, inside a folder dropped in, or already present at
:meth:`Inbox.start` — becomes a *candidate*; a checker thread looks at every
candidate each ``poll_interval`` seconds and calls ``on_ready(path)`` once the
file's size and mtime have stayed the same for ``settle_seconds`` (measured by
this watcher's own clock, so a copy that keeps the original mtime still has to
stop growing first).  A half-copied file is therefore never handed on.

Rules:

* each file is dispatched once per ``(path, mtime, size)``: a file written again
  later (new mtime or size) is dispatched again; an unchanged one never is;
* empty files wait (a copy that has not written its first byte looks like one);
* ignored: hidden files and folders (name starting with ``.``, which covers
  ``.DS_Store`` and ``._`` resource forks), Office lock files (``~$…``), partial
  downloads and temporary files (``.part``, ``.crdownload``, ``.download``,
  ``.partial``, ``.tmp``, ``.temp``, ``.swp``, names ending ``~``), ``Thumbs.db``
  and ``desktop.ini``;
* an exception raised by ``on_ready`` is logged and does not stop the watcher.

No store is touched here: ``on_ready`` (given by app/) decides what to do.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import Callable

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from core.errors import InputError

log = logging.getLogger(__name__)

IGNORED_SUFFIXES = frozenset({".part", ".crdownload", ".download", ".partial", ".tmp", ".temp", ".swp"})
IGNORED_NAMES = frozenset({"thumbs.db", "desktop.ini", ".ds_store"})


def is_ignored(path: Path, root: Path | None = None) -> bool:
    """True for files the inbox never dispatches (hidden, temporary, partial, lock files).

    Args:
        path: the file.
        root: the watched folder; path parts below it that start with ``.`` also hide the file.
    """
    name = path.name
    if (not name or name.startswith(".") or name.startswith("~$") or name.endswith("~")
            or name.lower() in IGNORED_NAMES or path.suffix.lower() in IGNORED_SUFFIXES):
        return True
    if root is not None:
        try:
            parts = path.relative_to(root).parts[:-1]
        except ValueError:
            return True  # outside the inbox
        if any(p.startswith(".") for p in parts):
            return True
    return False


class _Handler(FileSystemEventHandler):
    def __init__(self, inbox: "Inbox"):
        self.inbox = inbox

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("deleted", "closed_no_write", "opened"):
            return
        for attr in ("src_path", "dest_path"):
            raw = getattr(event, attr, "")
            if raw:
                raw = os.fsdecode(raw)
                if event.event_type == "moved" and attr == "src_path":
                    continue  # gone from there
                self.inbox.notice(Path(raw))


class Inbox:
    """Watch ``folder``; call ``on_ready(path)`` for each file once it has stopped changing.

    Args:
        folder: the folder to watch (recursively); created at :meth:`start` if missing.
        on_ready: called from the checker thread with the file's absolute Path.
        settle_seconds: how long (seconds) size and mtime must stay unchanged (default 2.0).
        poll_interval: seconds between checks of the candidates (default: a quarter of
            ``settle_seconds``, at most 0.5 and at least 0.01).
        scan_existing: at :meth:`start`, treat files already in the folder as new (default True:
            files dropped while Kith was closed are picked up; the import itself skips known records).
        clock: monotonic seconds (injectable for tests).
        observer_factory: makes the watchdog observer (default ``watchdog.observers.Observer``;
            tests may pass ``PollingObserver``).
    """

    def __init__(self, folder: str | os.PathLike, on_ready: Callable[[Path], None], *,
                 settle_seconds: float = 2.0, poll_interval: float | None = None,
                 scan_existing: bool = True, clock: Callable[[], float] = time.monotonic,
                 observer_factory: Callable[[], object] = Observer):
        self.folder = Path(folder).absolute()
        self.on_ready = on_ready
        self.settle_seconds = float(settle_seconds)
        self.poll_interval = poll_interval if poll_interval is not None else \
            min(0.5, max(0.01, self.settle_seconds / 4))
        self.scan_existing = scan_existing
        self.clock = clock
        self._observer_factory = observer_factory
        self._observer = None
        self._lock = threading.Lock()
        self._candidates: dict[Path, tuple[int, int, float]] = {}  # path -> (size, mtime_ns, stable since)
        self._dispatched: set[tuple[str, int, int]] = set()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Start watching (idempotent).

        Raises:
            InputError: ``folder`` exists but is not a folder, or cannot be created/watched.
        """
        if self._thread is not None:
            return
        if self.folder.exists() and not self.folder.is_dir():
            raise InputError(str(self.folder), "the inbox is not a folder")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            observer = self._observer_factory()
            observer.schedule(_Handler(self), str(self.folder), recursive=True)
            observer.start()
        except OSError as exc:
            raise InputError(str(self.folder), f"cannot watch the inbox: {exc.strerror or exc}") from exc
        self._observer = observer
        self._stop.clear()
        if self.scan_existing:
            self.notice(self.folder)
        self._thread = threading.Thread(target=self._run, name="kith-inbox", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop watching and wait (at most ``timeout`` seconds each) for the threads to end.  Idempotent."""
        self._stop.set()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout)
            self._observer = None
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def __enter__(self) -> "Inbox":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # ------------------------------------------------------------------ work

    def notice(self, path: Path) -> None:
        """Make ``path`` a candidate (a folder: every file under it, hidden ones skipped)."""
        path = Path(path)
        if path.is_dir():
            if path != self.folder and is_ignored(path / "x", self.folder):
                return
            for root, dirs, files in os.walk(path):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                for f in files:
                    self._add(Path(root, f))
        else:
            self._add(path)

    def _add(self, path: Path) -> None:
        if is_ignored(path, self.folder):
            return
        with self._lock:
            self._candidates.setdefault(path, (-1, -1, self.clock()))

    def check(self) -> list[Path]:
        """Look at every candidate once; dispatch the settled ones.

        Returns:
            The paths dispatched by this call (``on_ready`` has been called for each).
        """
        now = self.clock()
        ready: list[Path] = []
        with self._lock:
            for path, (size, mtime, since) in list(self._candidates.items()):
                try:
                    st = path.stat()
                except OSError:
                    del self._candidates[path]  # gone (or renamed: the move event brings the new name)
                    continue
                if not path.is_file():
                    del self._candidates[path]
                    continue
                current = (st.st_size, st.st_mtime_ns)
                if current != (size, mtime):
                    self._candidates[path] = (*current, now)
                    continue
                if st.st_size == 0 or now - since < self.settle_seconds:
                    continue
                del self._candidates[path]
                key = (str(path), st.st_mtime_ns, st.st_size)
                if key not in self._dispatched:
                    self._dispatched.add(key)
                    ready.append(path)
        for path in ready:
            try:
                self.on_ready(path)
            except Exception:  # the callback's failure must not stop the inbox
                log.exception("inbox: on_ready failed for %s", path)
        return ready

    @property
    def pending(self) -> list[Path]:
        """Files seen but not yet settled (a snapshot)."""
        with self._lock:
            return sorted(self._candidates)

    def _run(self) -> None:
        while not self._stop.wait(self.poll_interval):
            try:
                self.check()
            except Exception:  # never let the checker thread die
                log.exception("inbox: check failed")

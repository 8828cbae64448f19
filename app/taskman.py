"""One writer thread for every store write (the Anki habit, DESIGN.md §5), under the data folder's lock.

Reads and model work run wherever the caller is (a worker thread in the
window, the main thread in the CLI); anything that writes SQLite, Chroma or
the signature files is handed to :class:`Writer`, which runs it on its single
thread in submission order, so there is exactly one writer per store in a
process.  Each job runs while the process holds the data folder's
:class:`core.store.lock.FolderLock`, so there is one writer across processes too.
"""
from __future__ import annotations

import contextlib
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, TypeVar

T = TypeVar("T")


class Writer:
    """A single-thread executor for store writes.

    Args:
        lock: the data folder's writer lock (a :class:`core.store.lock.FolderLock`); each job runs
            inside ``lock.hold()``.  None runs jobs without a cross-process lock (tests of one store).
    """

    def __init__(self, lock=None) -> None:
        self.lock = lock
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kith-writer")
        self._thread_id: int | None = None
        self._pool.submit(self._remember_thread).result()

    def _remember_thread(self) -> None:
        self._thread_id = threading.get_ident()

    def _held(self, fn: Callable[..., T], *args, **kwargs) -> T:
        with (self.lock.hold() if self.lock is not None else contextlib.nullcontext()):
            return fn(*args, **kwargs)

    @property
    def on_writer_thread(self) -> bool:
        """Whether the calling thread is the writer thread."""
        return threading.get_ident() == self._thread_id

    def submit(self, fn: Callable[..., T], *args, **kwargs) -> Future:
        """Queue ``fn(*args, **kwargs)`` on the writer thread (under the folder lock); returns its Future."""
        return self._pool.submit(self._held, fn, *args, **kwargs)

    def run(self, fn: Callable[..., T], *args, **kwargs) -> T:
        """Run ``fn`` on the writer thread under the folder lock and wait for its result (inline if already on it).

        Raises:
            whatever ``fn`` raises; :class:`core.store.lock.LockTimeout` when another process kept the lock.
        """
        if self.on_writer_thread:
            return self._held(fn, *args, **kwargs)
        return self._pool.submit(self._held, fn, *args, **kwargs).result()

    def close(self) -> None:
        """Finish queued writes and stop the thread."""
        self._pool.shutdown(wait=True)

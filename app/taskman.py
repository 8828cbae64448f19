"""One writer thread for every store write (the Anki habit, DESIGN.md §5).

Reads and model work run wherever the caller is (a worker thread in the
window, the main thread in the CLI); anything that writes SQLite, Chroma or
the signature file is handed to :class:`Writer`, which runs it on its single
thread in submission order, so there is exactly one writer per store.
"""
from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, TypeVar

T = TypeVar("T")


class Writer:
    """A single-thread executor for store writes."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kith-writer")
        self._thread_id: int | None = None
        self._pool.submit(self._remember_thread).result()

    def _remember_thread(self) -> None:
        self._thread_id = threading.get_ident()

    def submit(self, fn: Callable[..., T], *args, **kwargs) -> Future:
        """Queue ``fn(*args, **kwargs)`` on the writer thread; returns its Future."""
        return self._pool.submit(fn, *args, **kwargs)

    def run(self, fn: Callable[..., T], *args, **kwargs) -> T:
        """Run ``fn`` on the writer thread and wait for its result (inline if already on it).

        Raises:
            whatever ``fn`` raises.
        """
        if threading.get_ident() == self._thread_id:
            return fn(*args, **kwargs)
        return self._pool.submit(fn, *args, **kwargs).result()

    def close(self) -> None:
        """Finish queued writes and stop the thread."""
        self._pool.shutdown(wait=True)

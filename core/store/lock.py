"""One writer per data folder, across processes: an OS file lock plus a write generation.

Every process that writes a data folder (the window, the watched Inbox, each ``kith`` command)
holds :class:`FolderLock` while it writes.  The lock is the operating system's advisory lock on
``<data folder>/kith.lock`` (``filelock``: ``fcntl.flock`` on POSIX, ``LockFileEx`` on Windows), so
it is released by the kernel when a process dies, even by SIGKILL.

Within a process the hold is *re-entrant and shared by all threads*: an operation can take it on
one thread (an import) while its writes run on the app's writer thread.  Threads of one process
are kept apart by that writer thread, not by this lock.

The **generation** (``<data folder>/kith.generation``) counts completed writing holds.  A process
that sees a generation other than the last one it knew — when it takes the lock, or when a read
calls :meth:`FolderLock.changed_since` — knows another process wrote, and drops what it keeps in
memory about the stores (name index, the HDC episode index, Chroma's in-memory HNSW graph).
Readers never take the lock and never write the generation.
"""
from __future__ import annotations

import os
import struct
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, ContextManager, Iterator

from filelock import FileLock, Timeout

from core.errors import KithError

LOCK_NAME = "kith.lock"
GENERATION_NAME = "kith.generation"
OWNER_NAME = "kith.lock.owner"


class LockTimeout(KithError):
    """Another process held the data folder's writer lock for longer than the caller would wait."""


class _Reentrant:
    """The re-entrant ``hold`` shared by the writer locks: the outermost hold of the process acquires
    (``_acquire``), the outermost release bumps the write generation (``_bump``) and releases (``_release``);
    ``holds`` and ``overhead_s`` (seconds spent taking and giving back, waiting for others excluded) count."""

    @contextmanager
    def _hold(self, timeout: float | None = -1.0):
        with self._mutex:
            if self._depth == 0:
                t0, w0 = time.perf_counter(), self.waited_s
                self._acquire(self.timeout if timeout == -1.0 else timeout)
                self.holds += 1
                self.overhead_s += time.perf_counter() - t0 - (self.waited_s - w0)
            self._depth += 1
        try:
            yield self
        finally:
            with self._mutex:
                self._depth -= 1
                if self._depth == 0:
                    t0 = time.perf_counter()
                    try:
                        self._bump()
                        self.wrote = True
                    finally:
                        self._release()
                        self.overhead_s += time.perf_counter() - t0

    def on_change(self, fn: Callable[[], None]) -> None:
        """Call ``fn()`` whenever another process is found to have written since we last looked."""
        self._listeners.append(fn)

    def changed_since(self) -> bool:
        """True (and the listeners run) when another process (or, on a server, another device) wrote
        since this one last looked.

        For readers: cheap (one small read of the generation), takes no lock, writes nothing."""
        with self._gen_lock:
            gen = self.generation()
            if gen == self._known:
                return False
            self._known = gen
            for fn in self._listeners:
                fn()
            return True

    @property
    def held(self) -> bool:
        """Whether this process holds the lock now."""
        return self._depth > 0


class FolderLock(_Reentrant):
    """The writer lock of one data folder.

    Args:
        home: the data folder.
        describe: a short text naming this process's work (``"kith ingest"``), written beside the
            lock while it is held so a waiting process can say who it waits for.
        timeout: default seconds :meth:`hold` waits (None = forever).
        on_wait: called once per acquisition with a message when the lock is busy (before waiting).

    The lock file holds no data; ``kith.lock.owner`` holds the holder's pid and ``describe``.
    """

    def __init__(self, home: Path, describe: str = "kith", timeout: float | None = None,
                 on_wait: Callable[[str], None] | None = None):
        self.home = Path(home)
        self.home.mkdir(parents=True, exist_ok=True)
        self.path = self.home / LOCK_NAME
        self.describe = describe
        self.timeout = timeout
        self.on_wait = on_wait
        self._file = FileLock(str(self.path), thread_local=False, is_singleton=False)
        self._mutex = threading.Lock()
        self._gen_lock = threading.RLock()
        self._depth = 0
        self._known = self.generation()
        self._listeners: list[Callable[[], None]] = []
        self.wrote = False
        self.waits = 0
        self.waited_s = 0.0
        self.holds = 0          # OS-level acquisitions by this process
        self._announced = -1e9  # when a wait was last announced (at most every 30 s)
        self.overhead_s = 0.0   # seconds spent taking and releasing the lock itself (not waiting for others)

    # -- generation --------------------------------------------------------------------------
    def generation(self) -> int:
        """The folder's write generation (0 when nothing was ever written under the lock)."""
        try:
            data = (self.home / GENERATION_NAME).read_bytes()
        except OSError:
            return 0
        return struct.unpack("<Q", data[:8])[0] if len(data) >= 8 else 0

    def _bump(self) -> None:
        with self._gen_lock:
            gen = self.generation() + 1
            tmp = self.home / (GENERATION_NAME + ".tmp")
            tmp.write_bytes(struct.pack("<Q", gen))
            os.replace(tmp, self.home / GENERATION_NAME)
            self._known = gen

    def touch(self) -> None:
        """While holding the lock: tell readers in other processes that there is something new to see
        (a long import calls it after each committed batch)."""
        if self._depth > 0:
            self._bump()

    # -- holding -----------------------------------------------------------------------------
    def holder(self) -> str:
        """Who holds the lock, as written by the holder (``"pid 123: kith ingest"``), or ``""``."""
        try:
            return (self.home / OWNER_NAME).read_text(encoding="utf-8").strip()
        except OSError:
            return ""

    ANNOUNCE_AFTER_S = 1.0
    """A wait shorter than this (another process finishing one batch) is not announced."""

    def _release(self) -> None:
        try:
            (self.home / OWNER_NAME).unlink()
        except OSError:
            pass
        finally:
            self._file.release(force=True)

    def _acquire(self, timeout: float | None) -> None:
        try:
            self._file.acquire(timeout=0)
        except Timeout:
            who = self.holder() or "another Kith process"
            t0 = time.monotonic()
            self.waits += 1
            try:
                quiet = self.ANNOUNCE_AFTER_S if timeout is None else min(self.ANNOUNCE_AFTER_S, timeout)
                try:
                    self._file.acquire(timeout=quiet, poll_interval=0.02)
                except Timeout:
                    who = self.holder() or who
                    now = time.monotonic()
                    if self.on_wait is not None and now - self._announced > 30:
                        self._announced = now
                        self.on_wait(f"another Kith is writing to this data folder ({who}); waiting…")
                    left = None if timeout is None else max(0.0, timeout - (now - t0))
                    try:
                        self._file.acquire(timeout=-1 if left is None else left, poll_interval=0.05)
                    except Timeout:
                        raise LockTimeout(f"{self.home}: {who} is writing to this data folder; gave up after "
                                          f"{timeout:g} s") from None
            finally:
                self.waited_s += time.monotonic() - t0
        try:
            (self.home / OWNER_NAME).write_text(f"pid {os.getpid()}: {self.describe}", encoding="utf-8")
        except OSError:
            pass
        self.changed_since()

    def hold(self, timeout: float | None = -1.0) -> ContextManager["FolderLock"]:
        """Hold the writer lock for the block (re-entrant across this process's threads).

        Args:
            timeout: seconds to wait for another process; ``-1`` (default) = this lock's ``timeout``;
                None = forever.

        Raises:
            LockTimeout: another process kept it longer than ``timeout``.
        """
        return self._hold(timeout)


class FileGate:
    """A cross-process lock for short critical sections (re-entrant within a process, shared by its threads).

    Used around every use of Chroma's files: Chroma's embedded client writes to its folder even to read
    (its SQLite file when a client opens, the HNSW segment's files when a collection is loaded), so a
    reader and a writer in two processes must not touch them at the same moment.  Unlike
    :class:`FolderLock` this is held only for one vector-store call, by readers too.

    Args:
        path: the lock file (kept outside the guarded folder, so deleting that folder keeps the lock).
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = FileLock(str(self.path), thread_local=False, is_singleton=False)
        self._mutex = threading.RLock()
        self._depth = 0

    @contextmanager
    def hold(self) -> Iterator["FileGate"]:
        """Hold the gate for the block (waits as long as another process's call takes)."""
        with self._mutex:
            if self._depth == 0:
                self._file.acquire(timeout=-1, poll_interval=0.01)
            self._depth += 1
            try:
                yield self
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._file.release(force=True)


class ServerLock(_Reentrant):
    """One writer per server database, across processes and devices: PostgreSQL's advisory lock.

    The same interface as :class:`FolderLock` (``hold``, ``touch``, ``changed_since``, ``on_change``,
    ``held``, ``holder``, ``wrote`` and the counters), chosen by the database URL (``app.container``):

    * the lock is ``pg_advisory_lock(KEY)`` taken on a connection of its own, held for the block and
      re-entrant across this process's threads; the server releases it when the connection ends (a process
      killed, a device gone), as the kernel releases a file lock;
    * the **generation** is the ``generation`` row of ``storemeta``, bumped by each writing hold: a process
      that sees another value knows another process — on this device or another — wrote, and drops what
      it keeps in memory (``changed_since``, one small query, writes nothing).

    Args:
        url: the SQLAlchemy URL of the database (``postgresql+psycopg://…``).
        describe / timeout / on_wait: as :class:`FolderLock`.
    """

    KEY = 0x4B495448  # "KITH"

    def __init__(self, url: str, describe: str = "kith", timeout: float | None = None,
                 on_wait: Callable[[str], None] | None = None):
        self.url = url
        self.describe = describe
        self.timeout = timeout
        self.on_wait = on_wait
        self._conn = None
        self._conn_lock = threading.RLock()
        self._mutex = threading.Lock()
        self._gen_lock = threading.RLock()
        self._depth = 0
        self._listeners: list[Callable[[], None]] = []
        self.wrote = False
        self.waits = 0
        self.waited_s = 0.0
        self.holds = 0
        self.overhead_s = 0.0
        self._announced = -1e9
        self._known = self.generation()

    def _c(self):
        with self._conn_lock:
            if self._conn is None or self._conn.closed:
                import psycopg

                from core.store.dialect import libpq_url

                self._conn = psycopg.connect(libpq_url(self.url), autocommit=True)
            return self._conn

    def _one(self, sql: str, params: tuple = ()):
        with self._conn_lock:
            try:
                row = self._c().execute(sql, params).fetchone()
            except Exception:
                if self._conn is not None and self._depth == 0:  # a dropped connection holds no lock: reconnect
                    try:
                        self._conn.close()
                    except Exception:
                        pass
                    self._conn = None
                raise
            return row

    # -- generation --------------------------------------------------------------------------
    def generation(self) -> int:
        """The database's write generation (0 before anything was written under the lock)."""
        try:
            row = self._one("SELECT value FROM storemeta WHERE key = 'generation'")
        except Exception:  # no storemeta yet (a new database)
            return 0
        return int(row[0]) if row else 0

    def _bump(self) -> None:
        with self._gen_lock:
            row = self._one("INSERT INTO storemeta(key, value) VALUES ('generation', '1') ON CONFLICT (key) "
                            "DO UPDATE SET value = CAST(CAST(storemeta.value AS BIGINT) + 1 AS TEXT) RETURNING value")
            self._known = int(row[0])

    def touch(self) -> None:
        """While holding the lock: tell readers elsewhere that there is something new to see."""
        if self._depth > 0:
            self._bump()

    # -- holding -----------------------------------------------------------------------------
    def holder(self) -> str:
        """Who holds the lock, as written by the holder (``"pid 123 on laptop: kith ingest"``), or ``""``."""
        try:
            row = self._one("SELECT value FROM storemeta WHERE key = 'writer'")
        except Exception:
            return ""
        return row[0] if row else ""

    ANNOUNCE_AFTER_S = FolderLock.ANNOUNCE_AFTER_S

    def _try(self) -> bool:
        return bool(self._one("SELECT pg_try_advisory_lock(%s)", (self.KEY,))[0])

    def _release(self) -> None:
        try:
            self._one("SELECT pg_advisory_unlock(%s)", (self.KEY,))
        except Exception:  # the connection is gone: the server released the lock with it
            pass

    def _acquire(self, timeout: float | None) -> None:
        if not self._try():
            t0 = time.monotonic()
            self.waits += 1
            try:
                while not self._try():
                    now = time.monotonic()
                    if timeout is not None and now - t0 >= timeout:
                        who = self.holder() or "another Kith process"
                        raise LockTimeout(f"the database is being written by {who}; gave up after {timeout:g} s")
                    if self.on_wait is not None and now - t0 >= self.ANNOUNCE_AFTER_S and now - self._announced > 30:
                        self._announced = now
                        self.on_wait(f"another Kith is writing to this database ({self.holder() or 'unknown'}); "
                                     "waiting…")
                    time.sleep(0.05)
            finally:
                self.waited_s += time.monotonic() - t0
        try:
            self._one("INSERT INTO storemeta(key, value) VALUES ('writer', %s) ON CONFLICT (key) DO UPDATE SET "
                      "value = EXCLUDED.value RETURNING key",
                      (f"pid {os.getpid()} on {os.uname().nodename}: {self.describe}",))
        except Exception:
            pass
        self.changed_since()

    def hold(self, timeout: float | None = -1.0) -> ContextManager["ServerLock"]:
        """Hold the writer lock for the block (re-entrant across this process's threads).

        Raises:
            LockTimeout: another process kept it longer than ``timeout``.
        """
        return self._hold(timeout)

    def close(self) -> None:
        with self._conn_lock:
            if self._conn is not None:
                try:
                    self._conn.close()
                except Exception:
                    pass
                self._conn = None

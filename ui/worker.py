"""Run app operations off the UI thread and hear about them on it.

A :class:`Worker` owns a private :class:`QThreadPool` (not the global one: no
singletons).  ``worker.submit(task)`` runs ``task(job)`` on a pool thread and
returns a :class:`Job` at once.  The task may call ``job.report(obj)`` to send
progress and should poll ``job.cancel_event`` (a :class:`threading.Event`)
to stop early; app operations take both directly, e.g.::

    job = worker.submit(lambda j: ingest(c, paths, progress=j.report, cancel=j.cancel_event))
    job.progress.connect(show_progress)
    job.finished.connect(show_report)
    job.failed.connect(show_error)

How results reach the UI thread: the pool thread only *emits* private signals
of the Job; the Job lives on the UI thread and those signals are connected to
its own slots with ``Qt.QueuedConnection``, so its slots -- and the public
``progress`` / ``finished`` / ``failed`` / ``done`` signals they re-emit --
always run on the UI thread, whatever the listener is (a slot, a lambda, a
test's ``waitSignal``).  Progress is coalesced: while one progress update is
still queued, newer ones only replace the pending value, so a fast operation
cannot flood the event loop.
"""
from __future__ import annotations

import logging
import threading
import traceback
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Qt, Signal, Slot

log = logging.getLogger(__name__)

_NO_PROGRESS = object()


class Job(QObject):
    """One piece of background work: its cancel flag and its signals (all delivered on the UI thread).

    Signals:
        progress(object): whatever the task passed to :meth:`report` (latest value wins).
        finished(object): the task's return value.
        failed(str): a one-line message when the task raised.
        done(): after ``finished`` or ``failed``, exactly once.
    """

    progress = Signal(object)
    finished = Signal(object)
    failed = Signal(str)
    done = Signal()

    # Emitted from the pool thread; connected to this object's slots with queued connections.
    _progress_from_worker = Signal()
    _finished_from_worker = Signal(object)
    _failed_from_worker = Signal(str)

    def __init__(self, name: str = "", parent: QObject | None = None):
        super().__init__(parent)
        self.name = name
        self.cancel_event = threading.Event()
        self.result: Any = None
        self.error: str | None = None
        self.is_done = False
        self._lock = threading.Lock()
        self._pending = _NO_PROGRESS
        self._progress_from_worker.connect(self._deliver_progress, Qt.ConnectionType.QueuedConnection)
        self._finished_from_worker.connect(self._deliver_finished, Qt.ConnectionType.QueuedConnection)
        self._failed_from_worker.connect(self._deliver_failed, Qt.ConnectionType.QueuedConnection)

    # -- called from the task (any thread) ---------------------------------------------
    def report(self, value: object) -> None:
        """Send progress to the UI thread (thread-safe; coalesces while one update is queued)."""
        with self._lock:
            queued = self._pending is not _NO_PROGRESS
            self._pending = value
        if not queued:
            self._progress_from_worker.emit()

    def cancel(self) -> None:
        """Ask the task to stop (cooperative: the task polls ``cancel_event``)."""
        self.cancel_event.set()

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called."""
        return self.cancel_event.is_set()

    # -- UI thread -----------------------------------------------------------------------
    @Slot()
    def _deliver_progress(self) -> None:
        with self._lock:
            value, self._pending = self._pending, _NO_PROGRESS
        if value is not _NO_PROGRESS and not self.is_done:
            self.progress.emit(value)

    @Slot(object)
    def _deliver_finished(self, result: object) -> None:
        self._deliver_progress()
        self.result, self.is_done = result, True
        self.finished.emit(result)
        self.done.emit()

    @Slot(str)
    def _deliver_failed(self, message: str) -> None:
        self._deliver_progress()
        self.error, self.is_done = message, True
        self.failed.emit(message)
        self.done.emit()


class _Runnable(QRunnable):
    """Runs ``task(job)`` on a pool thread and emits the job's worker-side signals."""

    def __init__(self, job: Job, task: Callable[[Job], Any]):
        super().__init__()
        self.setAutoDelete(True)
        self._job = job
        self._task = task

    def run(self) -> None:  # pool thread
        job = self._job
        try:
            result = self._task(job)
        except BaseException as exc:  # noqa: BLE001 - everything must reach the UI as a message
            log.debug("job %s failed:\n%s", job.name, traceback.format_exc())
            job._failed_from_worker.emit(describe_error(exc))
        else:
            job._finished_from_worker.emit(result)


def describe_error(exc: BaseException) -> str:
    """A one-line message a person can read for ``exc`` (Kith errors already read well), with any secret
    masked (``app.secrets``: servers echo API keys in their error text)."""
    from app.secrets import default_store

    text = default_store().mask(str(exc).strip())
    kind = type(exc).__name__
    if not text:
        return kind
    if kind in ("ValueError", "NotFound", "Ambiguous", "InputError", "StoreError", "ModelError", "KithError"):
        return text
    return f"{kind}: {text}"


class Worker(QObject):
    """Runs tasks on a private thread pool; keeps each :class:`Job` alive until it is done.

    Args:
        max_threads: pool size (ingest, ask and the entity list can run side by side).
        parent: the owning QObject (the main window).
    """

    jobStarted = Signal(object)
    jobDone = Signal(object)

    def __init__(self, max_threads: int = 3, parent: QObject | None = None):
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(max_threads)
        self._jobs: set[Job] = set()

    def submit(self, task: Callable[[Job], Any], name: str = "") -> Job:
        """Start ``task(job)`` on the pool; returns the :class:`Job`.

        Call it on the UI thread (the Job lives where it is made).  Connect to the job's signals
        right away: nothing is delivered before control returns to the event loop.
        """
        job = Job(name)
        self._jobs.add(job)
        job.done.connect(self._on_job_done)  # a bound slot, not a lambda holding the job (no cycle)
        self._pool.start(_Runnable(job, task))
        self.jobStarted.emit(job)
        return job

    def call(self, fn: Callable[..., Any], *args, name: str = "", **kwargs) -> Job:
        """Start ``fn(*args, **kwargs)`` on the pool (for operations that take no progress or cancel)."""
        return self.submit(lambda _job: fn(*args, **kwargs), name=name or getattr(fn, "__name__", ""))

    @Slot()
    def _on_job_done(self) -> None:
        job = self.sender()
        if isinstance(job, Job):
            self._jobs.discard(job)
            self.jobDone.emit(job)

    @property
    def active(self) -> int:
        """How many submitted jobs have not finished yet."""
        return len(self._jobs)

    def shutdown(self, timeout_ms: int = 30_000) -> bool:
        """Cancel every job and wait for the pool threads; True when all stopped within ``timeout_ms``."""
        for job in list(self._jobs):
            job.cancel()
        self._pool.clear()
        return self._pool.waitForDone(timeout_ms)

"""Python's cyclic garbage collector runs on the UI thread only, while a window is open.

Why: the collector runs in whichever thread happens to allocate when a generation's threshold is crossed.
On a worker thread (an ingest, a list being read) it may destroy a Qt object left in a reference cycle;
PySide's destructor then disconnects its signals — taking Qt's connection mutex — and calls back into
Python for the GIL, while the UI thread holds the GIL and waits for that same mutex to connect a signal:
the window froze for good (seen under ``pytest -q tests/ui``: the worker in ``gc_collect_main`` →
``QObject::disconnect`` → ``Shiboken::GilState::acquire``, the UI thread in ``QObject::connectImpl`` →
``QBasicMutex::lockInternal``).  The usual cure for PySide/PyQt programs with threads (pyqtgraph's
``GarbageCollector`` does the same): turn automatic collection off and collect from a timer on the UI thread,
generation by generation, when the allocation counts cross the collector's own thresholds — so memory is
reclaimed as before, only always on the thread that owns the Qt objects.

:func:`acquire` / :func:`release` count the windows that asked (automatic collection is restored, as it was,
when the last one goes).
"""
from __future__ import annotations

import gc
import time

from PySide6.QtCore import QTimer

CHECK_EVERY_MS = 500
"""How often the UI thread looks at the collector's counts (ms); a check with nothing due costs ~1 µs."""

_users = 0
_was_enabled = True
_timer: QTimer | None = None


FULL_EVERY_S = 60.0
"""The least time between two full (generation 2) collections, s.  CPython holds its own full collections back
until the long-lived objects grew by a quarter (a rule Python code cannot read); in a large process one takes
a second or more, so they are spaced in time instead."""

_last_full = 0.0


def _collect_due() -> None:
    """Collect the generations whose allocation counts crossed their thresholds (``gc.get_threshold()``), oldest
    due first (collecting an older generation collects the younger ones too); a full collection at most every
    :data:`FULL_EVERY_S`."""
    global _last_full
    counts, limits = gc.get_count(), gc.get_threshold()
    if limits[2] and counts[2] > limits[2] and time.monotonic() - _last_full >= FULL_EVERY_S:
        gc.collect(2)
        _last_full = time.monotonic()
        return
    for gen in (1, 0):
        if limits[gen] and counts[gen] > limits[gen]:
            gc.collect(gen)
            return


def acquire() -> None:
    """Move cyclic collection onto the UI thread (call on the UI thread, from a window's constructor)."""
    global _users, _was_enabled, _timer, _last_full
    if _users == 0:
        _last_full = time.monotonic()
        _was_enabled = gc.isenabled()
        gc.disable()
        _timer = QTimer()
        _timer.setInterval(CHECK_EVERY_MS)
        _timer.timeout.connect(_collect_due)
        _timer.start()
    _users += 1


def release() -> None:
    """Undo one :func:`acquire` (a window's shutdown); the last one stops the timer and gives automatic collection
    back as it was (no full collection here: in a large process one takes seconds)."""
    global _users, _timer
    if _users == 0:
        return
    _users -= 1
    if _users:
        return
    if _timer is not None:
        _timer.stop()
        _timer.deleteLater()
        _timer = None
    if _was_enabled:
        gc.enable()


def active() -> bool:
    """True while automatic collection is held off for a window."""
    return _users > 0

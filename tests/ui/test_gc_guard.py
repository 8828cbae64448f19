"""While a window is open, Python's cyclic garbage collector runs on the UI thread only (``ui/gc_guard.py``):
a worker thread collecting a cycle that holds a Qt object deadlocked the window (GIL against Qt's connection
mutex)."""
from __future__ import annotations

import gc
import threading

import pytest

pytestmark = pytest.mark.gui


class _Cycle:
    """A reference cycle that records the thread that collected it."""

    collected_on: list[str] = []

    def __init__(self):
        self.me = self

    def __del__(self):
        _Cycle.collected_on.append(threading.current_thread().name)


def test_cycles_made_on_a_worker_are_collected_on_the_ui_thread(qtbot, container):
    from app.models.llm import NoModel
    from ui import gc_guard
    from ui.main_window import MainWindow

    assert gc.isenabled()
    w = MainWindow(container, model_factory=NoModel, warm_up=False)
    qtbot.addWidget(w, before_close_func=lambda win: win.shutdown())
    assert gc_guard.active() and not gc.isenabled()
    _Cycle.collected_on.clear()

    def make_garbage():  # far past generation 0's threshold: an automatic collection would run here
        for _ in range(5 * gc.get_threshold()[0]):
            _Cycle()

    t = threading.Thread(target=make_garbage, name="a-worker")
    t.start()
    t.join()
    assert _Cycle.collected_on == []  # nothing collected on the worker
    qtbot.waitUntil(lambda: len(_Cycle.collected_on) > 0, timeout=5_000)  # the UI thread's timer
    assert set(_Cycle.collected_on) == {threading.main_thread().name}
    w.shutdown()
    assert not gc_guard.active() and gc.isenabled()
    gc.collect()
    assert len(_Cycle.collected_on) == 5 * gc.get_threshold()[0]  # every cycle reclaimed

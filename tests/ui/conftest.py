"""Fixtures for the window tests: offscreen Qt, a temporary data folder, a Container and a MainWindow."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before anything imports Qt

import pytest  # noqa: E402


@pytest.fixture
def kith_container(container):
    """A Container on the test's data folder (tests/conftest.py's ``container``), closed after the window."""
    return container


@pytest.fixture
def window(qtbot, qapp, kith_container):
    """A shown MainWindow (offscreen) whose first entity list has loaded; background jobs stopped afterwards."""
    from ui.main_window import MainWindow

    qapp.setApplicationName("Kith")
    w = MainWindow(kith_container)
    qtbot.addWidget(w, before_close_func=lambda win: win.shutdown())
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.people.loaded, timeout=30_000)
    yield w
    assert w.shutdown(60_000), "background jobs did not stop"

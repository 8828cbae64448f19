"""Fixtures for the window tests: offscreen Qt, a temporary data folder, a Container and a MainWindow."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before anything imports Qt

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def kith_home(tmp_path, monkeypatch) -> Path:
    """Every window test gets its own empty data folder."""
    home = tmp_path / "kith-home"
    monkeypatch.setenv("KITH_HOME", str(home))
    return home


@pytest.fixture
def kith_container(kith_home):
    """A Container on the test's data folder, closed after the window."""
    from app.container import Container

    c = Container()
    yield c
    c.close()


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

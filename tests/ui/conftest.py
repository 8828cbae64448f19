"""Fixtures for the window tests: offscreen Qt, a temporary data folder, a Container and a MainWindow."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before anything imports Qt

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _imports_in_the_window_process(kith_home):
    """The window tests import on a worker thread of their own process (``settings.import_process`` off), so
    they can look inside an import; ``tests/ui/test_import_process.py`` drives the separate import process."""
    import json

    kith_home.mkdir(parents=True, exist_ok=True)
    path = kith_home / "settings.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data.setdefault("import_process", False)
    path.write_text(json.dumps(data))


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

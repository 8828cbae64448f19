"""The window's entry point (`kith gui`): QApplication, one Container, the MainWindow.

``run(screenshot=PATH)`` renders the window without anyone looking at it (use
``QT_QPA_PLATFORM=offscreen`` where there is no display), saves a PNG and
exits; ``tab`` and ``ask`` pick what the picture shows.
"""
from __future__ import annotations

import os
import sys

SCREENSHOT_TIMEOUT_MS = 120_000


def run(screenshot: str | None = None, tab: str | None = None, ask: str | None = None,
        theme: str | None = None) -> int:
    """Open the Kith window and run the event loop until it closes.

    Args:
        screenshot: when set, wait until the window has painted (and its People list has loaded),
            save ``window.grab()`` as a PNG at this path and quit.
        tab: start on the tab whose title starts with this (``"chat"``, ``"inbox"``, ``"people"``).
        ask: ask this question in Chat first (the screenshot waits for the answer).
        theme: "light" or "dark" instead of following the system (sets ``KITH_THEME``).

    Returns:
        the process exit status: 0, or 1 when the data folder cannot be opened or the
        screenshot cannot be written.
    """
    headless = (sys.platform.startswith("linux") and not os.environ.get("QT_QPA_PLATFORM")
                and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"))
    if headless:
        if screenshot is None:
            print("kith: no display found (set DISPLAY, or use --screenshot PATH to render offscreen)",
                  file=sys.stderr)
            return 1
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # a screenshot needs no screen

    if theme:
        os.environ["KITH_THEME"] = theme
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    from app.container import Container
    from core.errors import KithError

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Kith")
    app.setApplicationDisplayName("Kith")
    app.setOrganizationName("Kith")
    app.setStyle("Fusion")
    app.setDesktopFileName("kith")  # matches packaging/linux/kith.desktop (window icon and grouping)

    try:
        container = Container(describe="the Kith window")
    except KithError as exc:
        print(f"kith: {exc}", file=sys.stderr)
        if screenshot is None:
            QMessageBox.critical(None, "Kith cannot start", str(exc))
        return 1

    from ui.main_window import MainWindow

    status = {"code": 0}
    window = MainWindow(container, watch_inbox=screenshot is None)
    try:
        if tab and not window.show_tab(tab):
            print(f"kith: no tab named {tab!r} (one of {', '.join(window.tab_names())})", file=sys.stderr)
        if ask:
            if not tab:
                window.show_tab("chat")
            window.chat.ask(ask)
        window.show()
        if screenshot is None:
            window.health.check()  # `kith doctor`'s checks in the background; a banner offers the repair
        if screenshot is not None:
            # A local event loop, not app.exec()/app.quit(): quitting the application would also make every
            # later event loop in the same process (tests, an embedding host) return at once.
            from PySide6.QtCore import QEventLoop

            loop = QEventLoop()
            _schedule_screenshot(app, window, screenshot, waiting_for_answer=bool(ask), status=status,
                                 timer_cls=QTimer, quit=loop.quit)
            loop.exec()
            return status["code"]
        return app.exec()
    finally:
        window.shutdown()
        window.deleteLater()
        container.close()


def _schedule_screenshot(app, window, path: str, waiting_for_answer: bool, status: dict, timer_cls, quit) -> None:
    """Grab the window once it has painted, its entity list is in and (if asked) the answer is shown."""
    pending = {"people": not window.people.loaded, "answer": waiting_for_answer}

    def grab() -> None:
        if not pending.get("grabbed"):
            pending["grabbed"] = True
            window.repaint()
            app.processEvents()
            if not window.grab().save(path):
                print(f"kith: could not write the screenshot to {path}", file=sys.stderr)
                status["code"] = 1
            window.close()
            quit()

    def maybe_grab(*_args) -> None:
        if not pending["people"] and not pending["answer"]:
            timer_cls.singleShot(300, grab)  # let the last layouts and paints settle

    def people_loaded(*_args) -> None:
        pending["people"] = False
        maybe_grab()

    def answered(*_args) -> None:
        pending["answer"] = False
        maybe_grab()

    window.people.entitiesLoaded.connect(people_loaded)
    window.chat.askFinished.connect(answered)
    window.chat.askFailed.connect(answered)
    timer_cls.singleShot(0, maybe_grab)
    timer_cls.singleShot(SCREENSHOT_TIMEOUT_MS, grab)  # never hang a headless run

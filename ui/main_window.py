"""Kith's main window: Chat, Inbox, People & Places, Timeline, Memory and Settings tabs over one Container
and one Worker; Ctrl+K searches from anywhere; the window's size, place and tab are remembered (in
``window.ini`` in the data folder); light and dark palettes follow the system (``ui/theme.py``)."""
from __future__ import annotations

import sys

from PySide6.QtCore import QEvent, QSettings, QSize, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QDialog, QLabel, QMainWindow, QProgressBar, QTabWidget, QVBoxLayout, QWidget

from app.operations.types import IngestReport
from ui import STYLE, gc_guard
from ui.chat import ChatWidget
from ui.health import HealthBanner
from ui.inbox import InboxWidget
from ui.memory_tab import MemoryWidget
from ui.people import PeopleWidget
from ui import theme
from ui.icons import icon
from ui.search import SearchPalette
from ui.settings_page import ModelsPage
from ui.source_view import SourcePanel
from ui.timeline import TimelineWidget
from ui.worker import Worker

DEFAULT_SIZE = QSize(1100, 720)
UI_SWITCH_INTERVAL_S = 0.001
"""The window process's GIL switch interval in seconds (Python's default is 0.005): how long the UI thread can
wait for the GIL after each Qt call while a worker thread runs Python code."""


def _warm_up(container):
    from app.operations.warmup import warm_up

    return warm_up(container)


class MainWindow(QMainWindow):
    """The window.  It does not own the :class:`app.container.Container` (its creator closes it), but
    it owns the :class:`Worker` and stops it on close so no job outlives the window.

    Args:
        container: the services of the data folder shown.
        parent: normally None.
        model_factory: ``() -> ChatModel`` for Chat (tests pass ``NoModel`` or a scripted fake);
            default: the model the settings describe, built and loaded on the worker at the first turn.
        warm_up: load the encoder and open the vector store in the background at once (so the first
            import or question does not stall the window doing it).

    Signals:
        ingestFinished(object): relayed from the Inbox (an :class:`IngestReport`).
        forgetFinished(object): relayed from People & Places (a :class:`ForgetReport`).
    """

    ingestFinished = Signal(object)
    forgetFinished = Signal(object)
    inboxFileReady = Signal(str)  # emitted from the watcher thread; delivered queued on the UI thread
    lockWaiting = Signal(str)  # another Kith process holds the writer lock (emitted from a worker thread)

    def __init__(self, container, parent: QWidget | None = None, model_factory=None, watch_inbox: bool = False,
                 warm_up: bool = True):
        super().__init__(parent)
        # The event loop hands the GIL back and forth with the worker threads on every Qt call; at Python's
        # default 5 ms switch interval, building a few rows while a worker loads a large query waited ~5 ms
        # per call (stalls near 190 ms after a 10,000-message import, benchmarks/ui_responsiveness.py).
        sys.setswitchinterval(min(sys.getswitchinterval(), UI_SWITCH_INTERVAL_S))
        gc_guard.acquire()  # Python's cyclic GC on this thread only (a worker collecting Qt objects froze it)
        self.container = container
        self.worker = Worker(parent=self)
        self._closed = False
        self.setWindowTitle("Kith")
        self.setObjectName("kithMainWindow")
        self.setStyleSheet(STYLE)
        self.resize(DEFAULT_SIZE)
        self.setMinimumSize(760, 480)

        self.chat = ChatWidget(container, self.worker, model_factory=model_factory)
        self.inbox = InboxWidget(container, self.worker)
        self.people = PeopleWidget(container, self.worker)
        self.memory = MemoryWidget(container, self.worker)
        self.timeline = TimelineWidget(container, self.worker)
        self._timeline_stale = True
        self.settings_page = ModelsPage(container, self.worker)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(False)
        self.tabs.addTab(self.chat, "Chat")
        self.tabs.addTab(self.inbox, "Inbox")
        self.tabs.addTab(self.people, "People && Places")
        self.tabs.addTab(self.timeline, "Timeline")
        self.tabs.addTab(self.memory, "Memory")
        self.tabs.addTab(self.settings_page, "Settings")
        self.health = HealthBanner(container, self.worker)
        central = QWidget()
        lay = QVBoxLayout(central)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.health)
        lay.addWidget(self.tabs, 1)
        self.setCentralWidget(central)
        self.tabs.currentChanged.connect(self._on_tab)
        self.health.repaired.connect(lambda _r: (self.people.refresh(), self.memory.mark_stale()))
        # A write waiting for another Kith process (a CLI import, another window) says so here.
        container.lock.on_wait = self.lockWaiting.emit
        self.lockWaiting.connect(lambda msg: self.statusBar().showMessage(msg[:1].upper() + msg[1:], 20000))

        self.chat.openSettings.connect(lambda: self.show_tab("settings"))
        self.settings_page.saved.connect(self.chat.model_settings_changed)
        self.people.writeTo.connect(self._write_to)
        self.people.showTimeline.connect(self.show_timeline_of)
        self.setWindowIcon(icon("kith"))

        self.inbox.ingestFinished.connect(self._on_ingest_finished)
        self.inbox.ingestStarted.connect(lambda _p: self._show_activity())
        self.people.forgetFinished.connect(self.forgetFinished)
        self.people.forgetFinished.connect(lambda _r: setattr(self, "_timeline_stale", True))
        self.people.entitiesLoaded.connect(self._on_entities)

        sb = self.statusBar()
        sb.setSizeGripEnabled(True)
        self.folder_label = QLabel(f"Data folder: {container.settings.home}")
        self.folder_label.setToolTip(str(container.settings.home))
        self.memory_label = QLabel("")
        self.activity = QProgressBar()
        self.activity.setRange(0, 0)
        self.activity.setFixedWidth(90)
        self.activity.setMaximumHeight(12)
        self.activity.setTextVisible(False)
        self.activity.hide()
        sb.addWidget(self.folder_label, 1)
        sb.addPermanentWidget(self.memory_label)
        sb.addPermanentWidget(self.activity)
        self.worker.jobStarted.connect(lambda _j: self._show_activity())
        self.worker.jobDone.connect(lambda _j: self._show_activity())

        self.search = SearchPalette(container, self.worker, self)
        self.search.openEntity.connect(self.open_entity)
        self.search.openMemory.connect(self.open_record)
        self._source_dialog: QDialog | None = None
        self._build_menu()
        self.settings_store = QSettings(str(container.settings.home / "window.ini"), QSettings.Format.IniFormat)
        self.restore_window()
        self.scheme = theme.system_scheme()
        self.apply_scheme(self.scheme)
        try:  # follow the system when it switches between light and dark (Qt ≥ 6.5)
            from PySide6.QtGui import QGuiApplication

            QGuiApplication.styleHints().colorSchemeChanged.connect(lambda _s: self.apply_scheme(theme.system_scheme()))
        except AttributeError:
            pass

        self.people.refresh()
        self.start_forget_upkeep()
        self.inbox.refresh_history().finished.connect(self._on_first_history)
        if warm_up:
            self.worker.call(_warm_up, container, name="warm up")
        self._watcher = None
        self.inboxFileReady.connect(lambda path: self.inbox.add_paths([path]))
        if watch_inbox:
            self.start_watching()

    def start_watching(self) -> None:
        """Import files copied into the data folder's Inbox (watched with watchdog; stable files only)."""
        from app.watch import start_inbox_watcher

        try:
            self._watcher = start_inbox_watcher(self.container, lambda p: self.inboxFileReady.emit(str(p)))
        except Exception as exc:  # a watcher failure must not stop the window
            self.statusBar().showMessage(f"Inbox folder is not watched: {exc}", 10000)
            return
        self.folder_label.setText(f"Data folder: {self.container.settings.home}  ·  watching "
                                  f"{self._watcher.folder}")

    def start_forget_upkeep(self):
        """At start-up, in the background: finish any forget a crash interrupted, then erase every forget
        whose recovery window has passed (``app.operations.forget.resume_pending`` and ``purge_expired``)."""
        c = self.container

        def upkeep(_job):
            from app.operations.forget import purge_expired, resume_pending

            resumed = resume_pending(c)
            return {"resumed": resumed, "purged": purge_expired(c)}
        job = self.worker.submit(upkeep, name="forget upkeep")
        job.finished.connect(self._on_upkeep)
        self.upkeep_job = job
        return job

    def _on_upkeep(self, result: dict) -> None:
        n = len((result.get("purged") or {}).get("forgets") or {})
        if n:
            self.statusBar().showMessage(f"Erased {n} forgotten item(s) whose restore window had passed.", 10000)
            self.people.refresh()

    def start_summary_job(self):
        """After an import, in the background (app/jobs.py ``after_import``): regenerate stale summaries
        (stale first) and the knowledge map, then consolidate the memory; the Memory tab reloads after."""
        from app.jobs import after_import

        c = self.container
        job = self.worker.submit(lambda job: after_import(c, cancel=job.cancel_event), name="after import")
        job.finished.connect(lambda _r: self.memory.mark_stale())
        return job

    # -- menus, search, sources ------------------------------------------------------------------
    def _build_menu(self) -> None:
        menu = self.menuBar().addMenu("&Kith")
        # Ctrl+K itself is caught by the event filter below (text fields would take it otherwise).
        self.search_action = QAction("Search people, places and memories\u2026\tCtrl+K", self)
        self.search_action.triggered.connect(self.open_search)
        menu.addAction(self.search_action)
        demo = QAction("Try the demo archive", self)
        demo.triggered.connect(lambda: (self.show_tab("inbox"), self.inbox.import_demo()))
        menu.addAction(demo)
        menu.addSeparator()
        about = QAction("About Kith", self)
        about.setShortcut(QKeySequence("F1"))
        about.triggered.connect(self.show_about)
        menu.addAction(about)
        quit_ = QAction("Quit", self)
        quit_.setShortcut(QKeySequence.StandardKey.Quit)
        quit_.triggered.connect(self.close)
        menu.addAction(quit_)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt API
        """Ctrl+K opens the search from anywhere in this window, even from a text field (which would
        otherwise take Ctrl+K as "delete to the end of the line")."""
        t = event.type()
        if t in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) and not self._closed:
            if event.key() == Qt.Key.Key_K and event.modifiers() == Qt.KeyboardModifier.ControlModifier:
                w = obj if isinstance(obj, QWidget) else None
                if w is not None and (w.window() is self or w.window() is self.search):
                    if t == QEvent.Type.ShortcutOverride:
                        event.accept()
                    else:
                        self.open_search()
                    return True
        return super().eventFilter(obj, event)

    def open_search(self) -> SearchPalette:
        """Ctrl+K: the search palette (people, places, memories), from any tab."""
        self.search.popup()
        return self.search

    def open_entity(self, entity_id: int) -> None:
        """Open a person's or place's profile in People & Places."""
        self.show_tab("people")
        self.people.open_profile(entity_id)

    def open_record(self, record_id: int) -> SourcePanel:
        """Show one record (a message, a photo, a memo) in a small window beside the main one."""
        if self._source_dialog is None:
            dlg = QDialog(self)
            dlg.setWindowTitle("Source")
            dlg.resize(520, 460)
            lay = QVBoxLayout(dlg)
            dlg.panel = SourcePanel(self.container, self.worker)
            lay.addWidget(dlg.panel)
            theme.apply(dlg, self.scheme)
            self._source_dialog = dlg
        self._source_dialog.show()
        self._source_dialog.raise_()
        self._source_dialog.panel.show_record(record_id)
        return self._source_dialog.panel

    def show_about(self):
        """The About dialog (version, data folder, licences of the bundled models)."""
        from app.about import about
        from ui.about import AboutDialog

        dlg = AboutDialog(about(self.container.settings), self)
        theme.apply(dlg, self.scheme)
        dlg.show()
        return dlg

    def show_timeline_of(self, entity_id: int | None) -> None:
        """Switch to the Timeline showing ``entity_id``'s life (None: everyone's)."""
        self.show_tab("timeline")
        i = self.timeline.whose.findData(entity_id)
        if i < 0 and entity_id is not None:
            self.timeline.whose.addItem(f"#{entity_id}", entity_id)
            i = self.timeline.whose.count() - 1
        self._timeline_stale = False
        if self.timeline.whose.currentIndex() != i:
            self.timeline.whose.setCurrentIndex(i)  # loads
        else:
            self.timeline.load(entity_id)

    def apply_scheme(self, scheme: str) -> None:
        """Colour the whole window for ``"light"`` or ``"dark"``."""
        self.scheme = scheme
        theme.apply(self, scheme)

    # -- geometry ----------------------------------------------------------------------------------
    def restore_window(self) -> bool:
        """Put back the size, position and tab of the last session (window.ini in the data folder)."""
        geo = self.settings_store.value("window/geometry")
        ok = bool(geo) and self.restoreGeometry(geo)
        tab = self.settings_store.value("window/tab")
        if tab:
            self.show_tab(str(tab))
        return ok

    def save_window(self) -> None:
        """Remember the size, position and tab for the next start."""
        self.settings_store.setValue("window/geometry", self.saveGeometry())
        self.settings_store.setValue("window/tab", self.tab_names()[self.tabs.currentIndex()])
        self.settings_store.sync()

    def _on_first_history(self, res) -> None:
        _sessions, empty = res
        if empty:
            self.show_tab("inbox")  # first run: start where the welcome is

    def tab_names(self) -> list[str]:
        """The tab titles as shown (``'People & Places'``, not the mnemonic-escaped text)."""
        return [self.tabs.tabText(i).replace("&&", "&") for i in range(self.tabs.count())]

    def show_tab(self, name: str) -> bool:
        """Switch to the tab whose title starts with ``name`` (case-insensitive); False when none does."""
        for i, title in enumerate(self.tab_names()):
            if title.casefold().startswith(name.strip().casefold()):
                self.tabs.setCurrentIndex(i)
                return True
        return False

    def _on_ingest_finished(self, report: IngestReport) -> None:
        if report.records_added and report.after_import is None:  # a separate import process did it already
            self.start_summary_job()
        self._timeline_stale = True
        if self.tabs.currentWidget() is self.timeline:
            self._on_tab(self.tabs.currentIndex())
        self.people.refresh()
        self.memory.mark_stale()
        self.ingestFinished.emit(report)

    def _on_tab(self, index: int) -> None:
        if self.tabs.widget(index) is self.memory:
            self.memory.refresh_if_stale()
        if self.tabs.widget(index) is self.timeline and (self._timeline_stale or self.timeline.data is None):
            self._timeline_stale = False
            self.timeline.load(self.timeline.whose.currentData())

    def _write_to(self, entity_id: int) -> None:
        """People & Places asked to write to someone: pick them in Chat and start a draft."""
        self.show_tab("chat")
        if self.chat.set_partner(entity_id):
            self.chat.write_to()

    def _on_entities(self, rows) -> None:
        self.chat.set_known([r for r in rows if r.kind != "group"])
        self.timeline.set_people(rows)
        counts: dict[str, int] = {}
        for r in rows:
            counts[r.kind] = counts.get(r.kind, 0) + 1
        order = ["person", "group", "place", "event", "topic", "thing"]
        parts = []
        for kind in sorted(counts, key=lambda k: (order.index(k) if k in order else len(order), k)):
            n = counts[kind]
            plural = {"person": "people", "group": "lists"}.get(kind, kind + "s")
            kind = "list" if kind == "group" else kind
            parts.append(f"{n} {kind if n == 1 else plural}")
        self.memory_label.setText(", ".join(parts) if parts else "memory is empty")

    def _show_activity(self) -> None:
        self.activity.setVisible(self.worker.active > 0)

    def shutdown(self, timeout_ms: int = 30_000) -> bool:
        """Cancel running jobs and wait for them (idempotent); True when all stopped in time."""
        if self._closed:
            return True
        self._closed = True
        try:
            self.save_window()
        except RuntimeError:  # the settings object is gone at interpreter exit
            pass
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)
        if getattr(self, "_watcher", None) is not None:
            self._watcher.stop()
            self._watcher = None
        stopped = self.worker.shutdown(timeout_ms)
        if stopped:
            self.chat.shutdown()
        gc_guard.release()
        return stopped

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt API
        """Stop background work before the window goes (the Container is closed by its owner)."""
        self.shutdown()
        super().closeEvent(event)

    def running_jobs(self) -> int:
        """How many background jobs are still running."""
        return self.worker.active


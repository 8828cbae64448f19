"""Kith's main window: Chat, Inbox, People & Places, Memory and Settings tabs over one Container and one Worker."""
from __future__ import annotations

from PySide6.QtCore import QSize, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QLabel, QMainWindow, QProgressBar, QTabWidget, QVBoxLayout, QWidget

from app.operations.types import IngestReport
from ui import STYLE
from ui.chat import ChatWidget
from ui.health import HealthBanner
from ui.inbox import InboxWidget
from ui.memory_tab import MemoryWidget
from ui.people import PeopleWidget
from ui.settings_page import ModelsPage
from ui.worker import Worker

DEFAULT_SIZE = QSize(1100, 720)


class MainWindow(QMainWindow):
    """The window.  It does not own the :class:`app.container.Container` (its creator closes it), but
    it owns the :class:`Worker` and stops it on close so no job outlives the window.

    Args:
        container: the services of the data folder shown.
        parent: normally None.
        model_factory: ``() -> ChatModel`` for Chat (tests pass ``NoModel`` or a scripted fake);
            default: the model the settings describe, built and loaded on the worker at the first turn.

    Signals:
        ingestFinished(object): relayed from the Inbox (an :class:`IngestReport`).
        forgetFinished(object): relayed from People & Places (a :class:`ForgetReport`).
    """

    ingestFinished = Signal(object)
    forgetFinished = Signal(object)
    inboxFileReady = Signal(str)  # emitted from the watcher thread; delivered queued on the UI thread
    lockWaiting = Signal(str)  # another Kith process holds the writer lock (emitted from a worker thread)

    def __init__(self, container, parent: QWidget | None = None, model_factory=None, watch_inbox: bool = False):
        super().__init__(parent)
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
        self.settings_page = ModelsPage(container, self.worker)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(False)
        self.tabs.addTab(self.chat, "Chat")
        self.tabs.addTab(self.inbox, "Inbox")
        self.tabs.addTab(self.people, "People && Places")
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

        self.inbox.ingestFinished.connect(self._on_ingest_finished)
        self.inbox.ingestStarted.connect(lambda _p: self._show_activity())
        self.people.forgetFinished.connect(self.forgetFinished)
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

        self.people.refresh()
        self.start_forget_upkeep()
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
        if report.records_added:
            self.start_summary_job()
        self.people.refresh()
        self.memory.mark_stale()
        self.ingestFinished.emit(report)

    def _on_tab(self, index: int) -> None:
        if self.tabs.widget(index) is self.memory:
            self.memory.refresh_if_stale()

    def _write_to(self, entity_id: int) -> None:
        """People & Places asked to write to someone: pick them in Chat and start a draft."""
        self.show_tab("chat")
        if self.chat.set_partner(entity_id):
            self.chat.write_to()

    def _on_entities(self, rows) -> None:
        self.chat.set_known(rows)
        counts: dict[str, int] = {}
        for r in rows:
            counts[r.kind] = counts.get(r.kind, 0) + 1
        order = ["person", "place", "event", "topic", "thing"]
        parts = []
        for kind in sorted(counts, key=lambda k: (order.index(k) if k in order else len(order), k)):
            n = counts[kind]
            plural = {"person": "people"}.get(kind, kind + "s")
            parts.append(f"{n} {kind if n == 1 else plural}")
        self.memory_label.setText(", ".join(parts) if parts else "memory is empty")

    def _show_activity(self) -> None:
        self.activity.setVisible(self.worker.active > 0)

    def shutdown(self, timeout_ms: int = 30_000) -> bool:
        """Cancel running jobs and wait for them (idempotent); True when all stopped in time."""
        if self._closed:
            return True
        self._closed = True
        if getattr(self, "_watcher", None) is not None:
            self._watcher.stop()
            self._watcher = None
        stopped = self.worker.shutdown(timeout_ms)
        if stopped:
            self.chat.shutdown()
        return stopped

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt API
        """Stop background work before the window goes (the Container is closed by its owner)."""
        self.shutdown()
        super().closeEvent(event)

    def running_jobs(self) -> int:
        """How many background jobs are still running."""
        return self.worker.active


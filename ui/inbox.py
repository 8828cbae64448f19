"""The Inbox tab: drop (or pick) files and folders, watch them being read, see what went wrong and why."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, Qt, QUrl, Signal
from PySide6.QtGui import QColor, QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import (QFileDialog, QFrame, QHBoxLayout, QHeaderView, QLabel, QProgressBar, QPushButton,
                               QStyle, QStyledItemDelegate, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from app.operations.types import IngestProgress, IngestReport
from ui import format_when, header, scroll_page
from ui.welcome import WelcomePanel
from ui.worker import Job, Worker


def _ingest(container, paths: list[str], job: Job) -> IngestReport:
    """Worker side: the import runs in a process of its own (``app/import_process.py``) so its work never
    holds the window's interpreter lock, unless ``settings.import_process`` is off (then in this process).
    Imported here so a broken ingestor module shows as an error, not a dead window."""
    if getattr(container.settings, "import_process", True):
        from app.import_process import import_in_subprocess

        return import_in_subprocess(container, paths, progress=job.report, cancel=job.cancel_event)
    from app.operations.ingest import ingest

    return ingest(container, paths, progress=job.report, cancel=job.cancel_event)


def _import_demo(container, job: Job) -> IngestReport:
    from app.operations.imports import import_demo

    return import_demo(container, progress=job.report, cancel=job.cancel_event)


def _history(container):
    from app.operations.imports import import_history, is_empty

    return import_history(container), is_empty(container)


def paths_from_mime(mime: QMimeData | None) -> list[str]:
    """The local files and folders named by dropped URLs (anything not a local file is ignored)."""
    if mime is None or not mime.hasUrls():
        return []
    return [u.toLocalFile() for u in mime.urls() if u.isLocalFile() and u.toLocalFile()]


def summarize(report: IngestReport) -> str:
    """``'3 file(s) read: 12 added, 4 already known, 1 error'`` (+ ``' — cancelled'``)."""
    errs = len(report.errors)
    text = (f"{report.files} file{'s' if report.files != 1 else ''} read: {report.records_added} added, "
            f"{report.records_skipped} already known, {errs} error{'s' if errs != 1 else ''}")
    return text + (" \u2014 cancelled; what was read so far is kept" if report.cancelled else "")


def added_text(a: dict[str, int]) -> str:
    """What an import added, in words: ``"64 new people, 3 new places, 4 lists, 1 trip, 4 things, 82 facts"``
    (from ``ImportSession.added()``; a mailing list is not a trip or a thing), "" when nothing."""
    things = a.get("things", a.get("other", 0) - a.get("lists", 0) - a.get("trips", 0))
    parts = ((a.get("people", 0), "new person", "new people"), (a.get("places", 0), "new place", "new places"),
             (a.get("lists", 0), "list", "lists"), (a.get("trips", 0), "trip", "trips"), (things, "thing", "things"),
             (a.get("facts", 0), "fact", "facts"))
    return ", ".join(f"{n} {one if n == 1 else many}" for n, one, many in parts if n)


class ElideRightDelegate(QStyledItemDelegate):
    """Draws its column's text cut at the end ("…" after the last name that fits) whatever the view's elide mode."""

    def initStyleOption(self, option, index) -> None:  # noqa: N802 - Qt API
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideRight


class DropZone(QFrame):
    """The big dashed target.  Drops are handled by :class:`InboxWidget`; this only draws and highlights."""

    clicked = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("dropZone")
        self.setProperty("active", False)
        self.setMinimumHeight(150)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(24, 24, 24, 24)
        lay.addStretch(1)
        icon = QLabel()
        icon.setPixmap(self.style().standardIcon(QStyle.StandardPixmap.SP_DirOpenIcon).pixmap(48, 48))
        icon.setAlignment(Qt.AlignmentFlag.AlignCenter)
        title = QLabel("Drop mail, chats, photos, videos, voice memos or whole folders here")
        title.setObjectName("dropTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint = QLabel("mbox / eml mail, WhatsApp, Telegram, Instagram, Messenger and Signal exports, Messages' "
                      "chat.db, JPEG, HEIC, PNG and WebP photos, videos (mp4, mov), voice memos (m4a, mp3, wav…), "
                      "Google Takeout and zip archives of any "
                      "of them \u2014 folders are searched recursively. Nothing leaves this computer.")
        hint.setObjectName("muted")
        hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint.setWordWrap(True)
        for w in (icon, title, hint):
            lay.addWidget(w)
        lay.addStretch(1)

    def set_active(self, active: bool) -> None:
        """Highlight while something droppable hovers over the Inbox."""
        self.setProperty("active", active)
        self.style().unpolish(self)
        self.style().polish(self)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt API
        """A click on the zone opens the file picker."""
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
        super().mouseReleaseEvent(event)


class InboxWidget(QWidget):
    """Reads dropped or picked files through :func:`app.operations.ingest.ingest` on the worker.

    Paths added while an import runs are queued and read next.

    Signals:
        ingestStarted(object): the list of paths being read.
        ingestFinished(object): the :class:`IngestReport`.
        ingestFailed(str): the operation itself raised (not a bad file: those are in the report).
    """

    ingestStarted = Signal(object)
    ingestFinished = Signal(object)
    ingestFailed = Signal(str)

    def __init__(self, container, worker: Worker, parent: QWidget | None = None):
        super().__init__(parent)
        self._container = container
        self._worker = worker
        self._job: Job | None = None
        self._queue: list[str] = []
        self.last_report: IngestReport | None = None
        self.setAcceptDrops(True)

        # Everything sits on a scrolling page: on a first run the welcome panel, the drop zone and the controls
        # need more height than an 800 × 600 window has, and a squeezed layout drew the welcome rows over each
        # other.  The page is never narrower than the viewport and never shorter than its wrapped text needs;
        # the import history gives up its height before the page scrolls.
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.scroll, self.page = scroll_page()
        outer.addWidget(self.scroll)

        lay = QVBoxLayout(self.page)
        lay.setContentsMargins(18, 14, 18, 12)
        lay.setSpacing(10)
        lay.addWidget(header("Inbox", "Give Kith your archives: drop files or folders below, or pick them. "
                                      "Files already read are recognised and skipped; problems are listed "
                                      "with their reasons."))

        self.welcome = WelcomePanel()
        self.welcome.demoRequested.connect(self.import_demo)
        self.welcome.hide()
        lay.addWidget(self.welcome)

        self.drop_zone = DropZone()
        self.drop_zone.clicked.connect(self.choose_files)
        lay.addWidget(self.drop_zone, 2)

        buttons = QHBoxLayout()
        self.add_files_button = QPushButton("Add files\u2026")
        self.add_files_button.setObjectName("primary")
        self.add_files_button.clicked.connect(self.choose_files)
        self.add_folder_button = QPushButton("Add folder\u2026")
        self.add_folder_button.clicked.connect(self.choose_folder)
        buttons.addWidget(self.add_files_button)
        buttons.addWidget(self.add_folder_button)
        buttons.addStretch(1)
        lay.addLayout(buttons)

        prog = QHBoxLayout()
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1)
        self.progress_bar.setValue(0)
        self.progress_bar.setFormat("No import running")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("danger")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        prog.addWidget(self.progress_bar, 1)
        prog.addWidget(self.cancel_button)
        lay.addLayout(prog)

        self.current_label = QLabel("Idle \u2014 nothing is being read.")
        self.current_label.setObjectName("muted")
        self.current_label.setTextFormat(Qt.TextFormat.PlainText)
        lay.addWidget(self.current_label)

        self.summary_label = QLabel("")
        self.summary_label.setTextFormat(Qt.TextFormat.PlainText)
        self.summary_label.setWordWrap(True)
        self.summary_label.hide()
        lay.addWidget(self.summary_label)

        self.errors = QTreeWidget()
        self.errors.setColumnCount(2)
        self.errors.setHeaderLabels(["File", "Why it could not be read"])
        self.errors.setRootIsDecorated(False)
        self.errors.setAlternatingRowColors(True)
        self.errors.setUniformRowHeights(True)
        self.errors.header().setStretchLastSection(True)
        self.errors.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.errors.setColumnWidth(0, 520)
        self.errors.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.errors.hide()
        lay.addWidget(self.errors, 2)

        self.fda_label = QLabel("")
        self.fda_label.setObjectName("error")
        self.fda_label.setWordWrap(True)
        self.fda_label.hide()
        lay.addWidget(self.fda_label)

        self.history_title = QLabel("Imports")
        self.history_title.setObjectName("sectionTitle")
        lay.addWidget(self.history_title)
        self.history = QTreeWidget()
        self.history.setColumnCount(3)
        self.history.setHeaderLabels(["Import", "Records", "What it added / why it could not be read"])
        self.history.setAlternatingRowColors(True)
        self.history.setUniformRowHeights(True)
        self.history.header().setStretchLastSection(True)
        self.history.setColumnWidth(0, 380)
        self.history.setColumnWidth(1, 70)
        self.history.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # file names: keep the extension
        # What a file added is a list of names: cut at its end, never inside it ("Lincoln, D....las.tx.us" spliced
        # two names into one); the whole list is the cell's tooltip.
        self._added_delegate = ElideRightDelegate(self.history)
        self.history.setItemDelegateForColumn(2, self._added_delegate)
        lay.addWidget(self.history, 3)
        self.sessions: list = []
        self.first_run = False

    # -- state --------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        """True while an import runs."""
        return self._job is not None

    @property
    def job(self) -> Job | None:
        """The running import's job (for its cancel flag), or None when idle."""
        return self._job

    # -- drag and drop ------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt API
        """Accept drags that carry local files or folders."""
        if paths_from_mime(event.mimeData()):
            event.acceptProposedAction()
            self.drop_zone.set_active(True)
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:  # noqa: N802 - Qt API
        """Keep accepting while the drag moves over the widget."""
        if paths_from_mime(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragLeaveEvent(self, event) -> None:  # noqa: N802 - Qt API
        """Drop the highlight."""
        self.drop_zone.set_active(False)
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt API
        """Read what was dropped (see :meth:`handle_drop`)."""
        self.drop_zone.set_active(False)
        if self.handle_drop(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def handle_drop(self, mime: QMimeData) -> bool:
        """Start reading the local files/folders in ``mime``; False when it names none."""
        paths = paths_from_mime(mime)
        if not paths:
            return False
        self.add_paths(paths)
        return True

    # -- pickers ------------------------------------------------------------------------
    def choose_files(self) -> None:
        """Pick files with a dialog and read them."""
        paths, _ = QFileDialog.getOpenFileNames(
            self, "Add files to Kith", str(Path.home()),
            "All files (*);;Mail (*.mbox *.mbx *.eml);;Photos (*.jpg *.jpeg *.heic *.heif);;"
            "Chats (*.json *.txt *.plist)")
        if paths:
            self.add_paths(paths)

    def choose_folder(self) -> None:
        """Pick a folder with a dialog and read everything in it."""
        folder = QFileDialog.getExistingDirectory(self, "Add a folder to Kith", str(Path.home()))
        if folder:
            self.add_paths([folder])

    # -- ingest -------------------------------------------------------------------------
    def add_paths(self, paths: list[str | Path]) -> Job | None:
        """Read ``paths`` now, or after the running import when one runs; returns the started job, if any."""
        self._queue.extend(str(p) for p in paths)
        if self._job is None:
            return self._start_next()
        self.current_label.setText(self.current_label.text().split("  (+")[0]
                                   + f"  (+{len(self._queue)} queued)")
        return None

    def _start_next(self) -> Job | None:
        if not self._queue:
            return None
        paths, self._queue = self._queue, []
        self.summary_label.hide()
        self.errors.clear()
        self.errors.hide()
        self.progress_bar.setRange(0, 0)  # busy until the first progress tells how many files
        self.progress_bar.setFormat("finding files\u2026")
        self.cancel_button.setEnabled(True)
        self.cancel_button.setText("Cancel")
        names = ", ".join(Path(p).name or p for p in paths[:3]) + (" \u2026" if len(paths) > 3 else "")
        self.current_label.setText(f"Starting: {names}")
        job = self._worker.submit(lambda j, c=self._container, ps=list(paths): _ingest(c, ps, j), name="ingest")
        job.progress.connect(self._on_progress)
        job.finished.connect(self._on_finished)
        job.failed.connect(self._on_failed)
        self._job = job
        self.ingestStarted.emit(paths)
        return job

    def import_demo(self) -> Job | None:
        """Import the demo archive (made-up people) on the worker; only into an empty data folder."""
        if self._job is not None:
            return None
        self.summary_label.hide()
        self.errors.clear()
        self.errors.hide()
        self.welcome.demo_button.setEnabled(False)
        self.progress_bar.setRange(0, 0)
        self.progress_bar.setFormat("reading the demo archive\u2026")
        self.cancel_button.setEnabled(True)
        self.current_label.setText("Importing the demo archive: Sam Rivera and friends (made up)")
        job = self._worker.submit(lambda j, c=self._container: _import_demo(c, j), name="demo")
        job.progress.connect(self._on_progress)
        job.finished.connect(self._on_finished)
        job.failed.connect(self._on_failed)
        job.done.connect(lambda: self.welcome.demo_button.setEnabled(True))
        self._job = job
        self.ingestStarted.emit(["demo"])
        return job

    def refresh_history(self) -> Job:
        """Reload the import history and quarantine (every import's, the CLI's too) on the worker."""
        job = self._worker.call(_history, self._container, name="import history")
        job.finished.connect(lambda res: self._show_history(*res))
        return job

    def _show_history(self, sessions, empty: bool) -> None:
        from app.operations.imports import FULL_DISK_ACCESS_HELP, needs_full_disk_access

        self.sessions = sessions
        self.first_run = empty
        self.welcome.setVisible(empty)
        self.history.clear()
        fda = False
        for sess in sessions:
            a = sess.added()
            added = added_text(a)
            errs = f"; {sess.errors} could not be read" if sess.errors else ""
            top = QTreeWidgetItem([f"{format_when(sess.at)} \u2014 {len(sess.files)} file"
                                   f"{'s' if len(sess.files) != 1 else ''}", str(sess.records),
                                   (added or "nothing new") + errs])
            top.setToolTip(2, (added or "nothing new") + errs)
            if sess.errors:
                top.setForeground(2, QColor("#b42318"))
            self.history.addTopLevelItem(top)
            for f in sess.files:
                bits = []
                if f.new_people:
                    bits.append("people: " + ", ".join(f.new_people[:6]) + (" \u2026" if len(f.new_people) > 6 else ""))
                if f.new_places:
                    bits.append("places: " + ", ".join(f.new_places[:4]) + (" \u2026" if len(f.new_places) > 4 else ""))
                if f.new_other:
                    bits.append(", ".join(f.new_other[:3]))
                if f.new_facts:
                    bits.append(f"{f.new_facts} fact{'s' if f.new_facts != 1 else ''}")
                child = QTreeWidgetItem([Path(f.path).name, str(f.records), "; ".join(bits) or "nothing new"])
                child.setToolTip(0, f.path)
                child.setToolTip(2, "; ".join(bits))
                top.addChild(child)
                for q in f.quarantined:
                    self._quarantine_item(child, q)
                    fda = fda or needs_full_disk_access(q.path, q.reason)
            for q in sess.quarantined:
                self._quarantine_item(top, q)
                fda = fda or needs_full_disk_access(q.path, q.reason)
        if sessions:
            self.history.topLevelItem(0).setExpanded(True)
        self.history_title.setText(f"Imports ({len(sessions)})")
        self.history_title.setVisible(bool(sessions))
        self.history.setVisible(bool(sessions))
        self.fda_label.setText(FULL_DISK_ACCESS_HELP if fda else "")
        self.fda_label.setVisible(fda)

    @staticmethod
    def _quarantine_item(parent: QTreeWidgetItem, q) -> None:
        where = f"  ({q.locator})" if q.locator else ""
        it = QTreeWidgetItem([f"\u26a0 {Path(q.path).name}{where}", "", q.reason])
        it.setToolTip(0, q.path + where)
        it.setToolTip(2, q.reason)
        it.setForeground(2, QColor("#b42318"))
        parent.addChild(it)

    def quarantine_rows(self) -> list[tuple[str, str]]:
        """(file name and locator, reason) of every quarantined item in the history (for tests)."""
        out = []
        for i in range(self.history.topLevelItemCount()):
            stack = [self.history.topLevelItem(i)]
            while stack:
                it = stack.pop()
                if it.text(0).startswith("\u26a0 "):
                    out.append((it.text(0)[2:], it.text(2)))
                stack.extend(it.child(k) for k in range(it.childCount()))
        return out

    def cancel(self) -> None:
        """Stop the running import after its current batch (what was written stays) and drop the queue."""
        self._queue.clear()
        if self._job is not None:
            self._job.cancel()
            self.cancel_button.setEnabled(False)
            self.cancel_button.setText("Cancelling\u2026")
            self.current_label.setText("Cancelling after the current batch\u2026")

    def _on_progress(self, p: IngestProgress) -> None:
        if self._job is None or self._job.cancelled:
            return
        total = max(p.files_total, 1)
        self.progress_bar.setRange(0, total)
        self.progress_bar.setValue(min(p.files_done, total))
        self.progress_bar.setFormat("%v / %m files")
        if p.current:
            queued = f"  (+{len(self._queue)} queued)" if self._queue else ""
            self.current_label.setText(
                f"Reading {Path(p.current).name}  \u2014  {p.records_added} added, "
                f"{p.records_skipped} already known, {p.errors} error{'s' if p.errors != 1 else ''}{queued}")
            self.current_label.setToolTip(p.current)

    def _on_finished(self, report: IngestReport) -> None:
        self._job = None
        self.last_report = report
        self._idle()
        total = max(report.files, 1)
        self.progress_bar.setRange(0, total)
        self.progress_bar.setValue(report.files)
        self.summary_label.setText(summarize(report))
        self.summary_label.setStyleSheet("color: #b42318;" if report.errors else "color: #1c6b3a;")
        self.summary_label.show()
        if report.errors:
            for e in report.errors:
                where = f"  ({e.locator})" if e.locator else ""
                item = QTreeWidgetItem([e.path + where, e.reason])
                item.setToolTip(0, e.path + where)
                item.setToolTip(1, e.reason)
                self.errors.addTopLevelItem(item)
            self.errors.show()
        self.refresh_history()
        self.ingestFinished.emit(report)
        self._start_next()

    def _on_failed(self, message: str) -> None:
        self._job = None
        self._idle()
        self.progress_bar.setRange(0, 1)
        self.progress_bar.setValue(0)
        self.progress_bar.setFormat("Stopped")
        self.summary_label.setText(f"The import stopped with an error: {message}")
        self.summary_label.setStyleSheet("color: #b42318;")
        self.summary_label.show()
        self.ingestFailed.emit(message)
        self._start_next()

    def _idle(self) -> None:
        self.cancel_button.setEnabled(False)
        self.cancel_button.setText("Cancel")
        self.progress_bar.setFormat("%v / %m files")
        self.current_label.setText("Idle \u2014 nothing is being read.")
        self.current_label.setToolTip("")


def mime_for_paths(paths: list[str | Path]) -> QMimeData:
    """A :class:`QMimeData` carrying ``paths`` as file URLs, as a file manager's drag would."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(Path(p).resolve())) for p in paths])
    return mime

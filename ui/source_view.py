"""A panel that shows one source: the message's text, the photo itself (HEIC too), the memo's transcript.

Loaded on the worker from :func:`app.operations.pictures.record_detail` and
:func:`app.operations.pictures.thumbnail`; *Open file* hands the file to the
system's viewer.  Pictures (timeline points, map photos) open their sources here.
"""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QUrl, Qt, Signal
from PySide6.QtGui import QDesktopServices, QPixmap
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from ui.worker import Worker


def _detail(container, record_id: int):
    from app.operations.pictures import record_detail, thumbnail

    d = record_detail(container, record_id)
    thumb = thumbnail(d.path, 360) if d.kind == "photo" else None
    return d, thumb


def open_file(path: str) -> bool:
    """Open a local file with the system's viewer; False when it is not there."""
    if not path or not Path(path).exists():
        return False
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(Path(path).resolve())))


def when_text(at: float | None) -> str:
    """Epoch seconds → ``'12 Mar 2021, 14:05'`` in local time (``'time unknown'`` for None)."""
    if at is None:
        return "time unknown"
    dt = datetime.fromtimestamp(at).astimezone()
    return f"{dt.day} {dt:%b %Y, %H:%M}"


class SourcePanel(QFrame):
    """Shows a record, or a plain note (a fact, an event) when a picture's point is not a record.

    Signals:
        shown(object): the :class:`RecordDetail` after it is displayed.
    """

    shown = Signal(object)

    def __init__(self, container, worker: Worker, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("card")
        self._c, self._w = container, worker
        self._gen = 0
        self.detail = None
        self.setMinimumWidth(260)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 10, 12, 10)
        lay.setSpacing(6)
        self.title = QLabel("Click a point to see its source")
        self.title.setObjectName("cardTitle")
        self.title.setWordWrap(True)
        self.meta = QLabel("")
        self.meta.setObjectName("cardMeta")
        self.meta.setWordWrap(True)
        self.image = QLabel()
        self.image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.image.hide()
        self.text = QTextBrowser()
        self.text.setOpenExternalLinks(False)
        self.text.setFrameShape(QFrame.Shape.NoFrame)
        row = QHBoxLayout()
        row.addStretch(1)
        self.open_button = QPushButton("Open file")
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(lambda: self.detail is not None and open_file(self.detail.path))
        row.addWidget(self.open_button)
        for w in (self.title, self.meta, self.image):
            lay.addWidget(w)
        lay.addWidget(self.text, 1)
        lay.addLayout(row)

    def show_record(self, record_id: int):
        """Load record ``record_id`` on the worker and show it (the newest request wins)."""
        self._gen += 1
        gen = self._gen
        self.title.setText("Loading\u2026")
        job = self._w.call(_detail, self._c, record_id, name="source")
        job.finished.connect(lambda res, g=gen: self._on_loaded(g, *res))
        job.failed.connect(lambda msg, g=gen: g == self._gen and self.show_note("Not available", msg))
        return job

    def _on_loaded(self, gen: int, d, thumb: bytes | None) -> None:
        if gen != self._gen:
            return
        self.detail = d
        title = d.subject or {"photo": "Photo", "video": "Video", "voice": "Voice memo",
                              "chat": "Chat message"}.get(d.kind, d.kind)
        self.title.setText(title)
        bits = [when_text(d.when)]
        if d.sender:
            bits.append(f"from {d.sender}")
        if d.place:
            bits.append(f"at {d.place}")
        bits.append(Path(d.path).name)
        self.meta.setText(" \u00b7 ".join(bits))
        self.meta.setToolTip(d.path)
        if thumb:
            pm = QPixmap()
            pm.loadFromData(thumb)
            self.image.setPixmap(pm)
            self.image.show()
        else:
            self.image.clear()
            self.image.hide()
        self.text.setPlainText(d.text if d.kind != "photo" else (d.text or ""))
        self.open_button.setEnabled(bool(d.path) and Path(d.path).exists())
        self.shown.emit(d)

    def show_note(self, title: str, text: str) -> None:
        """Show a fact's or an event's text (no file to open)."""
        self._gen += 1
        self.detail = None
        self.title.setText(title)
        self.meta.setText("")
        self.image.clear()
        self.image.hide()
        self.text.setPlainText(text)
        self.open_button.setEnabled(False)

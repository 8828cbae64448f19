"""The Ctrl+K palette: type a few letters, get people, places and memories; Enter opens the chosen one.

Searches run on the worker (:func:`app.operations.quick_search.quick_search`) 120 ms after the
last keystroke; only the newest search's results are shown.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QDialog, QLabel, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from ui.icons import KIND_LABELS, icon, kind_icon
from ui.worker import Worker

DEBOUNCE_MS = 120
HIT_ROLE = Qt.ItemDataRole.UserRole + 1


def _search(container, text: str):
    from app.operations.quick_search import quick_search

    return quick_search(container, text)


class SearchPalette(QDialog):
    """A small floating search box.

    Signals:
        openEntity(int): an entity was chosen (person, place, …).
        openMemory(int): a memory (record) was chosen.
        results(object): the hits shown after each search (for tests).
    """

    openEntity = Signal(int)
    openMemory = Signal(int)
    results = Signal(object)

    def __init__(self, container, worker: Worker, parent: QWidget | None = None):
        super().__init__(parent)
        self._c, self._w = container, worker
        self._gen = 0
        self.setWindowTitle("Search Kith")
        self.setModal(False)
        self.resize(560, 380)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 12, 12, 12)
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("Search people, places and memories\u2026")
        self.edit.setClearButtonEnabled(True)
        self.list = QListWidget()
        self.list.setUniformItemSizes(True)
        self.hint = QLabel("\u2191\u2193 to choose, Enter to open, Esc to close")
        self.hint.setObjectName("muted")
        lay.addWidget(self.edit)
        lay.addWidget(self.list, 1)
        lay.addWidget(self.hint)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.search_now)
        self.edit.textChanged.connect(lambda _t: self._timer.start())
        self.edit.returnPressed.connect(self.choose)
        self.list.itemActivated.connect(lambda _it: self.choose())

    def keyPressEvent(self, ev) -> None:  # noqa: N802 - Qt API
        """Up/Down move through the results while typing."""
        if ev.key() in (Qt.Key.Key_Down, Qt.Key.Key_Up) and self.list.count():
            row = self.list.currentRow() + (1 if ev.key() == Qt.Key.Key_Down else -1)
            self.list.setCurrentRow(max(0, min(self.list.count() - 1, row)))
            return
        super().keyPressEvent(ev)

    def popup(self) -> None:
        """Show, focused, with the previous text selected."""
        self.show()
        self.raise_()
        self.activateWindow()
        self.edit.setFocus()
        self.edit.selectAll()

    def search_now(self):
        """Search for the current text on the worker."""
        self._gen += 1
        gen = self._gen
        job = self._w.call(_search, self._c, self.edit.text(), name="quick search")
        job.finished.connect(lambda hits, g=gen: self._show(g, hits))
        return job

    def _show(self, gen: int, hits) -> None:
        if gen != self._gen:
            return
        self.list.clear()
        for h in hits:
            label = f"{h.title}    \u2014 {KIND_LABELS.get(h.kind, h.kind)}" + (f" \u00b7 {h.detail}" if h.detail else "")
            it = QListWidgetItem(icon("topic") if h.kind == "memory" else kind_icon(h.kind), label)
            it.setData(HIT_ROLE, h)
            self.list.addItem(it)
        if hits:
            self.list.setCurrentRow(0)
        self.results.emit(hits)

    def choose(self) -> None:
        """Open the current result and close."""
        it = self.list.currentItem()
        if it is None:
            return
        h = it.data(HIT_ROLE)
        self.hide()
        if h.kind == "memory":
            self.openMemory.emit(h.id)
        else:
            self.openEntity.emit(h.id)

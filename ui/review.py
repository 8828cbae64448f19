"""The merge-review panel: near-matches Kith was unsure about, to merge or keep apart, and merges to undo.

Pending candidates come from :func:`app.operations.review.list_reviews` (names, score, reason),
each with *Merge* and *Not the same*; the *Merged* list has *Unmerge*.  Every decision runs on the
worker (:func:`decide` / :func:`undo_merge`); ``changed`` tells People & Places to refresh.
"""
from __future__ import annotations

from PySide6.QtCore import QTimer, Qt, Signal
from PySide6.QtWidgets import (QHBoxLayout, QHeaderView, QLabel, QPushButton, QTreeWidget, QTreeWidgetItem,
                               QVBoxLayout, QWidget)

from ui.worker import Job, Worker

ID_ROLE = Qt.ItemDataRole.UserRole + 1


def _reviews(container) -> tuple[list, list]:
    """Worker side: (pending, merged) review items."""
    from app.operations.review import list_reviews

    return list_reviews(container, "pending"), list_reviews(container, "merged")


def _decide(container, review_id: int, accept: bool):
    from app.operations.review import decide

    return decide(container, review_id, accept)


def _undo(container, review_id: int):
    from app.operations.review import undo_merge

    return undo_merge(container, review_id)


class ReviewPanel(QWidget):
    """Pending merge candidates (Merge / Not the same) and merged pairs (Unmerge).

    Signals:
        loaded(object): ``(pending, merged)`` lists of ``ReviewItem`` after each refresh.
        changed(object): the ``ReviewItem`` after a decision (merge, reject or unmerge).
        failed(str): a message (also shown in the panel).
        pendingCount(int): how many candidates wait (for the tab title).
    """

    loaded = Signal(object)
    changed = Signal(object)
    failed = Signal(str)
    pendingCount = Signal(int)

    def __init__(self, container, worker: Worker, parent: QWidget | None = None):
        super().__init__(parent)
        self._container = container
        self._worker = worker
        self._gen = 0
        self._busy: Job | None = None
        self.pending: list = []
        self.merged: list = []
        self.setStyleSheet("QLabel#sectionTitle { font-weight: bold; font-size: 14px; color: #111827; }"
                           "QTreeWidget::item { min-height: 32px; } QTreeWidget QPushButton { padding: 3px 10px; }")

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 8, 0, 0)
        lay.setSpacing(6)
        hint = QLabel("Kith keeps apart names it is not sure about. Merge the ones that are the same "
                      "person (or place); a merge can be undone below.")
        hint.setObjectName("muted")
        hint.setWordWrap(True)
        lay.addWidget(hint)

        t1 = QLabel("Waiting for you")
        t1.setObjectName("sectionTitle")
        lay.addWidget(t1)
        self.pending_tree = self._tree(["Names", "Score", "Why", ""])
        lay.addWidget(self.pending_tree, 3)

        t2 = QLabel("Merged")
        t2.setObjectName("sectionTitle")
        lay.addWidget(t2)
        self.merged_tree = self._tree(["Names", "Score", "Why", ""])
        lay.addWidget(self.merged_tree, 2)

        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)

    @staticmethod
    def _tree(labels: list[str]) -> QTreeWidget:
        t = QTreeWidget()
        t.setHeaderLabels(labels)
        t.setRootIsDecorated(False)
        t.setAlternatingRowColors(True)
        t.setUniformRowHeights(False)
        h = t.header()
        h.setStretchLastSection(False)
        h.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        h.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        h.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        h.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        t.setColumnWidth(0, 320)
        return t

    # -- loading ------------------------------------------------------------------------
    def refresh(self) -> Job:
        """Reload both lists on the worker."""
        self._gen += 1
        gen = self._gen
        job = self._worker.call(_reviews, self._container, name="reviews")
        job.finished.connect(lambda res, g=gen: self._on_loaded(g, res))
        job.failed.connect(lambda m, g=gen: self._on_failed(m) if g == self._gen else None)
        return job

    ROWS_PER_STEP = 10  # rows with buttons built per event-loop turn: hundreds at once would stall the window

    def _on_loaded(self, gen: int, res) -> None:
        if gen != self._gen:
            return
        self.pending, self.merged = list(res[0]), list(res[1])
        self.pending_tree.clear()
        self.merged_tree.clear()
        rows = [("pending", item) for item in self.pending] + [("merged", item) for item in self.merged]
        self._fill(gen, rows, 0)

    def _fill(self, gen: int, rows: list, start: int) -> None:
        """Build the rows ``start`` … ``start + ROWS_PER_STEP`` and schedule the rest (a newer load stops this)."""
        if gen != self._gen:
            return
        for kind, item in rows[start:start + self.ROWS_PER_STEP]:
            if kind == "pending":
                row = QTreeWidgetItem([f"{item.a_name}  \u2194  {item.b_name}", f"{item.score:.2f}", item.reason, ""])
                row.setData(0, ID_ROLE, item.id)
                row.setToolTip(0, f"#{item.a_id} {item.a_name}  and  #{item.b_id} {item.b_name}")
                row.setToolTip(2, item.reason)
                self.pending_tree.addTopLevelItem(row)
                self._set_buttons(self.pending_tree, row,
                                  [("Merge", "primary", lambda _=False, i=item.id: self.merge(i)),
                                   ("Not the same", "", lambda _=False, i=item.id: self.reject(i))])
            else:
                row = QTreeWidgetItem([f"{item.a_name}  \u2190  {item.b_name}", f"{item.score:.2f}",
                                       item.reason, ""])
                row.setData(0, ID_ROLE, item.id)
                row.setToolTip(0, f"{item.b_name} was merged into {item.a_name}")
                self.merged_tree.addTopLevelItem(row)
                self._set_buttons(self.merged_tree, row, [("Unmerge", "", lambda _=False, i=item.id: self.unmerge(i))])
        if start + self.ROWS_PER_STEP < len(rows):
            QTimer.singleShot(0, lambda: self._fill(gen, rows, start + self.ROWS_PER_STEP))
            return
        if not self.pending:
            self._empty(self.pending_tree, "Nothing to review \u2014 Kith is sure about everyone it knows.")
        if not self.merged:
            self._empty(self.merged_tree, "No merges yet.")
        self.pendingCount.emit(len(self.pending))
        self.loaded.emit((self.pending, self.merged))

    @staticmethod
    def _empty(tree: QTreeWidget, text: str) -> None:
        row = QTreeWidgetItem([text, "", "", ""])
        row.setForeground(0, Qt.GlobalColor.gray)
        tree.addTopLevelItem(row)
        row.setFirstColumnSpanned(True)

    def _set_buttons(self, tree: QTreeWidget, row: QTreeWidgetItem, specs) -> None:
        box = self._buttons(specs)
        row.setSizeHint(3, box.sizeHint())
        tree.setItemWidget(row, 3, box)

    def _buttons(self, specs) -> QWidget:
        box = QWidget()
        h = QHBoxLayout(box)
        h.setContentsMargins(4, 2, 4, 2)
        h.setSpacing(6)
        for text, obj, slot in specs:
            b = QPushButton(text)
            if obj:
                b.setObjectName(obj)
            b.clicked.connect(slot)
            b.setEnabled(self._busy is None)
            h.addWidget(b)
        return box

    def buttons(self, review_id: int) -> dict[str, QPushButton]:
        """The action buttons of review item ``review_id`` by text (for tests)."""
        for tree in (self.pending_tree, self.merged_tree):
            for i in range(tree.topLevelItemCount()):
                it = tree.topLevelItem(i)
                if it.data(0, ID_ROLE) == review_id:
                    w = tree.itemWidget(it, 3)
                    return {b.text(): b for b in w.findChildren(QPushButton)} if w else {}
        return {}

    # -- decisions ----------------------------------------------------------------------
    def merge(self, review_id: int) -> Job | None:
        """Merge the pair (the second name into the first)."""
        return self._run(_decide, review_id, True, verb="Merging")

    def reject(self, review_id: int) -> Job | None:
        """Keep the pair apart."""
        return self._run(_decide, review_id, False, verb="Keeping apart")

    def unmerge(self, review_id: int) -> Job | None:
        """Undo a merge: both get back their own names, facts and records."""
        return self._run(_undo, review_id, verb="Unmerging")

    def _run(self, fn, *args, verb: str) -> Job | None:
        if self._busy is not None:
            return None
        self._set_enabled(False)
        self.status.setStyleSheet("")
        self.status.setText(f"{verb}\u2026")
        job = self._worker.call(fn, self._container, *args, name="review")
        job.finished.connect(self._on_decided)
        job.failed.connect(self._on_failed)
        self._busy = job
        return job

    def _on_decided(self, item) -> None:
        self._busy = None
        done = {"merged": f"Merged {item.b_name} into {item.a_name}.",
                "rejected": f"Kept {item.a_name} and {item.b_name} apart.",
                "unmerged": f"Unmerged {item.b_name} from {item.a_name}."}.get(item.status, item.status)
        self.status.setText(done)
        self.refresh().done.connect(lambda i=item: self.changed.emit(i))

    def _on_failed(self, message: str) -> None:
        self._busy = None
        self._set_enabled(True)
        self.status.setStyleSheet("color: #b42318;")
        self.status.setText(f"Could not do that: {message}")
        self.failed.emit(message)

    def _set_enabled(self, on: bool) -> None:
        for tree in (self.pending_tree, self.merged_tree):
            for b in tree.findChildren(QPushButton):
                b.setEnabled(on)

"""Forget in the window: the confirmation that shows the plan's counts per store, and the Restore list.

:class:`ForgetDialog` shows what :func:`app.operations.forget.plan_forget` found — per store (graph,
summaries, search, vectors, memory, personal) and per kind of row — with two choices: remove other
people's messages that mention the person too (instead of redacting the mention), and erase now
(purge; cannot be undone) instead of keeping it restorable for the recovery window.

:class:`ForgottenPanel` lists the forgets still restorable (``list_forgotten``) with *Restore* and
*Erase now*; every action runs on the worker.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QDialog, QDialogButtonBox, QHeaderView, QLabel, QPushButton,
                               QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from ui import format_when
from ui.worker import Job, Worker

ID_ROLE = Qt.ItemDataRole.UserRole + 1


def plan_rows(plan) -> list[tuple[str, str, int]]:
    """(store, what in words, count) of a plan's non-zero counts, in the order shown."""
    from app.operations.forget import LABELS, STORES

    out = []
    for store in STORES:
        for key, n in plan.counts.get(store, {}).items():
            if n:
                out.append((store, LABELS.get(store, {}).get(key, key.replace("_", " ")), int(n)))
    return out


class ForgetDialog(QDialog):
    """Confirm a forget: the plan's counts per store, and the person's two choices.

    Attributes (after ``exec()``): ``remove_mentions`` and ``purge_now`` (bools).
    """

    def __init__(self, plan, parent: QWidget | None = None):
        super().__init__(parent)
        self.plan = plan
        self.setWindowTitle(f"Forget {plan.name}?")
        self.setMinimumWidth(560)
        lay = QVBoxLayout(self)
        title = QLabel(f"Forget <b>{_esc(plan.label)}</b> everywhere?")
        title.setTextFormat(Qt.TextFormat.RichText)
        lay.addWidget(title)
        hint = QLabel(f"It disappears at once from chat, search, profiles, summaries and briefs, and can be "
                      f"restored for {plan.recovery_days} days (People & Places → Forgotten). After that it is "
                      f"erased from every file on this computer.")
        hint.setWordWrap(True)
        hint.setObjectName("muted")
        lay.addWidget(hint)
        self.table = QTreeWidget()
        self.table.setHeaderLabels(["Store", "What", "Count"])
        self.table.setRootIsDecorated(False)
        self.table.setAlternatingRowColors(True)
        for store, what, n in plan_rows(plan):
            it = QTreeWidgetItem([store, what, str(n)])
            it.setTextAlignment(2, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.addTopLevelItem(it)
        h = self.table.header()
        h.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        h.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        h.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        lay.addWidget(self.table, 1)
        kept = len(plan.scope.redact_records)
        self.mentions_box = QCheckBox(f"Also remove the {kept} other message(s) that mention {plan.name} "
                                      f"(otherwise they stay, with the mention replaced by [forgotten])")
        self.mentions_box.setVisible(bool(kept))
        self.purge_box = QCheckBox("Erase now — skip the restore window (cannot be undone)")
        lay.addWidget(self.mentions_box)
        lay.addWidget(self.purge_box)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Yes | QDialogButtonBox.StandardButton.No)
        buttons.button(QDialogButtonBox.StandardButton.Yes).setText("Forget")
        buttons.button(QDialogButtonBox.StandardButton.No).setText("Keep")
        buttons.button(QDialogButtonBox.StandardButton.No).setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)

    @property
    def remove_mentions(self) -> bool:
        return self.mentions_box.isChecked()

    @property
    def purge_now(self) -> bool:
        return self.purge_box.isChecked()

    def rows(self) -> list[tuple[str, str, int]]:
        """The table as shown (store, what, count)."""
        return [(self.table.topLevelItem(i).text(0), self.table.topLevelItem(i).text(1),
                 int(self.table.topLevelItem(i).text(2))) for i in range(self.table.topLevelItemCount())]


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _list(container) -> list:
    from app.operations.forget import list_forgotten

    return list_forgotten(container)


def _restore(container, forget_id: int):
    from app.operations.forget import restore

    return restore(container, forget_id)


def _purge(container, forget_id: int):
    from app.operations.forget import purge

    return purge(container, forget_id)


class ForgottenPanel(QWidget):
    """What was forgotten and can still be restored: label, when, until when, with Restore and Erase now.

    Signals:
        loaded(object): the list of ``ForgottenItem`` after each refresh.
        changed(object): the ``ForgetReport`` after a restore or an erase.
        failed(str): a message (also shown in the panel).
        count(int): how many can be restored (for the tab title).
    """

    loaded = Signal(object)
    changed = Signal(object)
    failed = Signal(str)
    count = Signal(int)

    def __init__(self, container, worker: Worker, parent: QWidget | None = None):
        super().__init__(parent)
        self._container = container
        self._worker = worker
        self._gen = 0
        self._busy: Job | None = None
        self.items: list = []
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 8, 0, 0)
        hint = QLabel("Forgotten people, places, files and messages stay restorable for a while; after that "
                      "they are erased from every file. Restore brings back exactly what was there.")
        hint.setWordWrap(True)
        hint.setObjectName("muted")
        lay.addWidget(hint)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["What", "Forgotten", "Restorable until", "", ""])
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        h = self.tree.header()
        h.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2, 3, 4):
            h.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        lay.addWidget(self.tree, 1)
        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)

    def refresh(self) -> Job:
        """Reload the list on the worker (only the newest load is shown)."""
        self._gen += 1
        gen = self._gen
        job = self._worker.call(_list, self._container, name="forgotten")
        job.finished.connect(lambda items, g=gen: self._on_loaded(g, items))
        job.failed.connect(lambda msg: self._set_status(f"Could not load the list: {msg}", error=True))
        return job

    def _on_loaded(self, gen: int, items: list) -> None:
        if gen != self._gen:
            return
        self.items = list(items)
        self.tree.clear()
        for it in self.items:
            row = QTreeWidgetItem([it.label, format_when(it.created_at.isoformat(), ""),
                                   format_when(it.expires_at.isoformat(), ""), "", ""])
            row.setData(0, ID_ROLE, it.forget_id)
            self.tree.addTopLevelItem(row)
            restore = QPushButton("Restore")
            restore.setObjectName("primary")
            restore.setEnabled(it.restorable and self._busy is None)
            restore.clicked.connect(lambda _=False, i=it.forget_id: self.restore(i))
            erase = QPushButton("Erase now")
            erase.setObjectName("danger")
            erase.setEnabled(self._busy is None)
            erase.clicked.connect(lambda _=False, i=it.forget_id: self.erase(i))
            self.tree.setItemWidget(row, 3, restore)
            self.tree.setItemWidget(row, 4, erase)
        if not self.items and not self.status.text():
            self._set_status("Nothing is waiting to be restored.")
        self.count.emit(sum(1 for it in self.items if it.restorable))
        self.loaded.emit(self.items)

    def labels(self) -> list[str]:
        """The labels shown (for tests)."""
        return [self.tree.topLevelItem(i).text(0) for i in range(self.tree.topLevelItemCount())]

    def button(self, forget_id: int, which: str = "Restore") -> QPushButton | None:
        """The Restore / Erase now button of forget ``forget_id``."""
        for i in range(self.tree.topLevelItemCount()):
            row = self.tree.topLevelItem(i)
            if row.data(0, ID_ROLE) == forget_id:
                return self.tree.itemWidget(row, 3 if which == "Restore" else 4)
        return None

    def restore(self, forget_id: int) -> Job | None:
        """Restore forget ``forget_id`` on the worker."""
        return self._run(_restore, forget_id, "Restoring\u2026", "Restored {label}.")

    def erase(self, forget_id: int) -> Job | None:
        """Erase forget ``forget_id`` now (purge) on the worker."""
        return self._run(_purge, forget_id, "Erasing from every file\u2026", "Erased {label} from every file.")

    def _run(self, fn, forget_id: int, busy: str, done: str) -> Job | None:
        if self._busy is not None:
            return None
        self._set_status(busy)
        job = self._worker.call(fn, self._container, forget_id, name=fn.__name__.strip("_"))
        self._busy = job

        def ok(report):
            self._busy = None
            self._set_status(done.format(label=report.label))
            self.changed.emit(report)
            self.refresh()

        def bad(msg):
            self._busy = None
            self._set_status(f"Could not do it: {msg}", error=True)
            self.failed.emit(msg)
            self.refresh()
        job.finished.connect(ok)
        job.failed.connect(bad)
        for i in range(self.tree.topLevelItemCount()):
            for col in (3, 4):
                w = self.tree.itemWidget(self.tree.topLevelItem(i), col)
                if w is not None:
                    w.setEnabled(False)
        return job

    def _set_status(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet("color: #b42318;" if error else "")
        self.status.setText(text)

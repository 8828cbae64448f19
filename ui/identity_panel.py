"""The profile's "Why is this one person?" panel: every merge and non-merge decision behind an entity.

Fed by :func:`app.operations.review.why_one` (read on the worker) and acting through
:func:`app.operations.review.act`: it lists the entity's names and addresses with how each came to it,
how many records each rule linked (rule, threshold, via which address), and the decisions — merges Kith
made (with the facts still held until the person confirms), suggestions waiting, and pairs Kith kept
apart — each with its reason, score and threshold and the buttons to confirm, undo, merge or reject.
``changed`` tells the profile to reload after an action.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QHBoxLayout, QHeaderView, QLabel, QPushButton, QTreeWidget, QTreeWidgetItem,
                               QVBoxLayout, QWidget)

from ui.worker import Job, Worker

ID_ROLE = Qt.ItemDataRole.UserRole + 1
DASH = "\u2014"

RULES = {  # the cascade's signals in words
    "email": "same email address", "phone": "same phone number", "handle": "same handle",
    "contact": "same contact card", "thread": "same name in the same conversation", "exact_name": "same full name",
    "alias": "a known alias", "first_name_domain": "same first name and company mail domain",
    "bare_name": "same name, neither has an address", "fuzzy_high": "nearly the same name",
    "fuzzy_review": "similar names", "first_name": "same first name only", "decoration": "same name apart from emoji",
    "same_surname": "same surname only", "same_chat": "two people in one conversation", "owner": "you",
    "new": "first seen here", "person": "merged by you",
}
STATUS = {"pending": "Suggested \u2014 waiting for you", "separate": "Kept apart by Kith",
          "rejected": "You said: not the same", "unmerged": "Unmerged"}
ACTION_TEXT = {"confirm": "Confirm", "unmerge": "Undo merge", "merge": "Merge", "reject": "Not the same"}


def _why(container, entity_id: int):
    from app.operations.review import why_one

    return why_one(container, entity_id)


def _act(container, review_id: int, action: str):
    from app.operations.review import act

    return act(container, review_id, action)


def _status(d) -> str:
    if d.status == "merged":
        if d.decided_by == "kith":
            return "Merged by Kith \u2014 confirmed" if d.confirmed else "Merged by Kith \u2014 not confirmed"
        return "Merged by you"
    return STATUS.get(d.status, d.status)


class WhyOnePanel(QWidget):
    """Why Kith thinks this entity is one person (or place, or thing), and the decisions to undo.

    Signals:
        loaded(object): the :class:`app.operations.review.IdentityWhy` after each load.
        changed(object): the ``ReviewItem`` after an action (the profile reloads).
        failed(str): a message (also shown in the panel).
    """

    loaded = Signal(object)
    changed = Signal(object)
    failed = Signal(str)

    def __init__(self, container, worker: Worker, parent: QWidget | None = None):
        super().__init__(parent)
        self._container = container
        self._worker = worker
        self._gen = 0
        self._busy: Job | None = None
        self.entity_id: int | None = None
        self.data = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 6, 0, 0)
        lay.setSpacing(4)
        self.title = QLabel("Why is this one person?")
        self.title.setObjectName("sectionTitle")
        self.title.setStyleSheet("font-weight: bold;")
        lay.addWidget(self.title)
        self.summary = QLabel("")
        self.summary.setObjectName("muted")
        self.summary.setWordWrap(True)
        lay.addWidget(self.summary)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["What", "Rule", "Score / threshold", ""])
        self.tree.setAlternatingRowColors(True)
        h = self.tree.header()
        h.setStretchLastSection(False)
        h.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        h.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        h.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        h.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        lay.addWidget(self.tree, 1)
        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)

    # -- loading ------------------------------------------------------------------------
    def load(self, entity_id: int) -> Job:
        """Load the decisions behind entity ``entity_id`` on the worker; only the newest load is shown."""
        self._gen += 1
        gen = self._gen
        self.entity_id = entity_id
        job = self._worker.call(_why, self._container, entity_id, name="why-one")
        job.finished.connect(lambda d, g=gen: self._on_loaded(g, d))
        job.failed.connect(lambda m, g=gen: self._on_failed(m) if g == self._gen else None)
        return job

    def _on_loaded(self, gen: int, data) -> None:
        if gen != self._gen:
            return
        self.data = data
        self.title.setText(f"Why is this one {'person' if data.kind == 'person' else data.kind}?")
        n = sum(x.count for x in data.links)
        waiting = sum(1 for d in data.decisions if d.status == "pending" or "confirm" in d.actions)
        self.summary.setText(f"{n} record link(s) by {len(data.links)} rule(s); {len(data.decisions)} decision(s)"
                             + (f", {waiting} waiting for you" if waiting else "")
                             + (f". {data.kind_reason}" if data.kind_reason else "."))
        self.tree.clear()
        names = QTreeWidgetItem(["Names and addresses", "", "", ""])
        self.tree.addTopLevelItem(names)
        for a in data.aliases:
            names.addChild(QTreeWidgetItem([f"{a.value} ({a.kind})", a.how, "", ""]))
        links = QTreeWidgetItem(["How records were linked", "", "", ""])
        self.tree.addTopLevelItem(links)
        for x in data.links:
            links.addChild(QTreeWidgetItem([f"{x.count} record(s) via {x.via}", RULES.get(x.signal, x.signal),
                                            x.threshold, ""]))
        decisions = QTreeWidgetItem(["Decisions", "", "", ""])
        self.tree.addTopLevelItem(decisions)
        for d in data.decisions:
            row = QTreeWidgetItem([f"{_status(d)}: {d.other_name} (#{d.other_id})",
                                   RULES.get(d.signal, d.signal or DASH), f"{d.score:.2f} / {d.threshold or DASH}",
                                   ""])
            row.setData(0, ID_ROLE, d.id)
            row.setToolTip(0, d.reason)
            decisions.addChild(row)
            row.addChild(QTreeWidgetItem([f"Why: {d.reason}", "", "", ""]))
            for statement in d.held_facts:
                row.addChild(QTreeWidgetItem([f"Waits for your confirmation: {statement}", "", "", ""]))
            if d.actions:
                self.tree.setItemWidget(row, 3, self._buttons(d))
            row.setExpanded(True)
        if not data.decisions:
            decisions.addChild(QTreeWidgetItem(["No merges or near-matches: every link above is by its own rule.",
                                                "", "", ""]))
        for top in (names, links, decisions):
            top.setExpanded(True)
            top.setFirstColumnSpanned(True)
        self.loaded.emit(data)

    def _buttons(self, d) -> QWidget:
        box = QWidget()
        h = QHBoxLayout(box)
        h.setContentsMargins(2, 1, 2, 1)
        h.setSpacing(4)
        for action in d.actions:
            b = QPushButton(ACTION_TEXT.get(action, action))
            b.setProperty("action", action)
            b.clicked.connect(lambda _=False, i=d.id, a=action: self.run(i, a))
            b.setEnabled(self._busy is None)
            h.addWidget(b)
        return box

    def buttons(self, review_id: int) -> dict[str, QPushButton]:
        """The action buttons of decision ``review_id`` by action name (for tests)."""
        decisions = self.tree.topLevelItem(2) if self.tree.topLevelItemCount() > 2 else None
        if decisions is None:
            return {}
        for i in range(decisions.childCount()):
            it = decisions.child(i)
            if it.data(0, ID_ROLE) == review_id:
                w = self.tree.itemWidget(it, 3)
                return {b.property("action"): b for b in w.findChildren(QPushButton)} if w else {}
        return {}

    def rows(self) -> list[str]:
        """Every row's first column, depth-first (for tests)."""
        out: list[str] = []

        def walk(item: QTreeWidgetItem) -> None:
            out.append(item.text(0))
            for i in range(item.childCount()):
                walk(item.child(i))
        for i in range(self.tree.topLevelItemCount()):
            walk(self.tree.topLevelItem(i))
        return out

    # -- actions ------------------------------------------------------------------------
    def run(self, review_id: int, action: str) -> Job | None:
        """Run ``action`` (confirm | unmerge | merge | reject) on decision ``review_id`` on the worker."""
        if self._busy is not None:
            return None
        for b in self.tree.findChildren(QPushButton):
            b.setEnabled(False)
        self.status.setStyleSheet("")
        self.status.setText(f"{ACTION_TEXT.get(action, action)}\u2026")
        job = self._worker.call(_act, self._container, review_id, action, name="why-one-action")
        job.finished.connect(self._on_done)
        job.failed.connect(self._on_failed)
        self._busy = job
        return job

    def _on_done(self, item) -> None:
        self._busy = None
        self.status.setText({"merged": f"{item.b_name} and {item.a_name} are one now.",
                             "rejected": f"Kept {item.a_name} and {item.b_name} apart.",
                             "unmerged": f"Undid the merge of {item.b_name} into {item.a_name}."}
                            .get(item.status, f"Decision {item.id}: {item.status}."))
        self.changed.emit(item)

    def _on_failed(self, message: str) -> None:
        self._busy = None
        for b in self.tree.findChildren(QPushButton):
            b.setEnabled(True)
        self.status.setStyleSheet("color: #b42318;")
        self.status.setText(f"Could not do that: {message}")
        self.failed.emit(message)

"""The People & Places tab: a sortable, filterable table of what Kith knows, profiles, the merge review,
Forget with a preview of every store it touches, and the Forgotten list (Restore within the window).

Double-click a row (or select it and click Open) for its profile page (``ui/profile.py``); the
Review sub-tab (``ui/review.py``) lists near-matches to merge or keep apart.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import (QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt,
                            Signal)
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDialog, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QPushButton, QStackedWidget, QTableView, QTabWidget, QVBoxLayout, QWidget)

from app.operations.forget import ForgetPlan, ForgetReport
from app.operations.types import EntityRow
from ui import format_when, header
from ui.forget import ForgetDialog, ForgottenPanel
from ui.icons import KIND_LABELS, kind_icon
from ui.people_graph import PeopleGraphWidget
from ui.places import PlacesWidget
from ui.profile import ProfilePage
from ui.review import ReviewPanel
from ui.worker import Job, Worker

KINDS = ("person", "group", "place", "topic", "event", "thing")
# (label, column, order) for the Sort combo
SORTS = (("Most records", 3, Qt.SortOrder.DescendingOrder), ("Name", 0, Qt.SortOrder.AscendingOrder),
         ("Most facts", 4, Qt.SortOrder.DescendingOrder), ("Last seen", 5, Qt.SortOrder.DescendingOrder))
ALL = "All"
ROW_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_ROLE = Qt.ItemDataRole.UserRole + 2


def _list_entities(container) -> list[EntityRow]:
    from app.operations.browse import browse_entities

    return browse_entities(container)


def _preview(container, entity_id: int, mentions: str = "redact") -> ForgetPlan:
    from app.operations.forget import plan_forget

    return plan_forget(container, entity_id, mentions)


def _forget(container, entity_id: int, purge: bool = False, mentions: str = "redact") -> ForgetReport:
    from app.operations.forget import forget

    return forget(container, entity_id, purge=purge, mentions=mentions)


def _plans(container, entity_ids: list[int]) -> list[ForgetPlan]:
    from app.operations.forget import plan_forget

    return [plan_forget(container, i) for i in entity_ids]


def _forget_many(container, entity_ids: list[int], purge: bool, mentions: str, job: Job) -> list[ForgetReport]:
    """Forget each entity in turn (each a full forget, restorable on its own); stops between them when cancelled."""
    from app.operations.forget import forget

    out = []
    for n, i in enumerate(entity_ids):
        if job.cancelled:
            break
        out.append(forget(container, i, purge=purge, mentions=mentions))
        job.report((n + 1, len(entity_ids)))
    return out


@dataclass
class _Scope:
    redact_records: list


@dataclass
class BulkPlan:
    """Several :class:`ForgetPlan` shown as one (for :class:`ui.forget.ForgetDialog`): the counts added up per
    store — an upper bound where two entries share a row — and the union of the messages that only mention them."""

    plans: list
    label: str = ""
    counts: dict = field(default_factory=dict)
    scope: _Scope = field(default_factory=lambda: _Scope([]))
    recovery_days: int = 30
    entity_id: int | None = None

    @classmethod
    def of(cls, plans: list) -> "BulkPlan":
        counts: dict = {}
        for p in plans:
            for store, what in p.counts.items():
                for k, n in what.items():
                    counts.setdefault(store, {})[k] = counts.get(store, {}).get(k, 0) + int(n)
        names = ", ".join(p.label for p in plans[:6]) + (f" and {len(plans) - 6} more" if len(plans) > 6 else "")
        redact = sorted({r for p in plans for r in p.scope.redact_records})
        return cls(list(plans), f"{len(plans)} entries: {names}", counts, _Scope(redact),
                   min(p.recovery_days for p in plans))

    @property
    def name(self) -> str:
        return f"these {len(self.plans)}"

    @property
    def records(self) -> int:
        return self.counts.get("graph", {}).get("records", 0)


class EntityTableModel(QAbstractTableModel):
    """The entities as rows: Name, Kind, Aliases, Records, Facts, Last seen.

    ``SORT_ROLE`` gives sortable keys (numbers for counts, ISO text for times);
    ``ROW_ROLE`` gives the :class:`EntityRow` itself.
    """

    COLUMNS = ("Name", "Kind", "Aliases", "Records", "Facts", "Last seen")

    def __init__(self, parent=None):
        super().__init__(parent)
        self._rows: list[EntityRow] = []

    def set_rows(self, rows: list[EntityRow]) -> None:
        """Replace every row."""
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    @property
    def rows(self) -> list[EntityRow]:
        """The rows, in load order."""
        return list(self._rows)

    def names(self) -> list[str]:
        """Every entity's name (handy for tests)."""
        return [r.name for r in self._rows]

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802,B008
        """Number of entities (0 under a valid parent: this is a flat table)."""
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802,B008
        """Six columns."""
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: N802
        """Column titles."""
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        """Display text, sort keys, alignment and tooltips per cell."""
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        r = self._rows[index.row()]
        col = index.column()
        if role == ROW_ROLE:
            return r
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            return kind_icon(r.kind)
        if role == Qt.ItemDataRole.DisplayRole:
            return (r.name, KIND_LABELS.get(r.kind, r.kind), ", ".join(r.aliases), str(r.records), str(r.facts),
                    format_when(r.last_seen, "\u2014"))[col]
        if role == SORT_ROLE:
            return (r.name.casefold(), r.kind, ", ".join(r.aliases).casefold(), r.records, r.facts,
                    r.last_seen or "")[col]
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (3, 4):
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == 2 and r.aliases:
                return "\n".join(r.aliases)
            if col == 5 and r.last_seen:
                return r.last_seen
        return None


class EntityFilterProxy(QSortFilterProxyModel):
    """Filters by kind (``None`` = all) and by text found in the name or any alias (case-insensitive)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._kind: str | None = None
        self._text = ""
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)

    def set_kind(self, kind: str | None) -> None:
        """Show only this kind (None: every kind)."""
        self._kind = kind
        self.invalidate()

    def set_text(self, text: str) -> None:
        """Show only entities whose name or an alias contains ``text``."""
        self._text = text.strip().casefold()
        self.invalidate()

    def filterAcceptsRow(self, source_row: int, source_parent) -> bool:  # noqa: N802 - Qt API
        """Kind and text filter."""
        row: EntityRow | None = self.sourceModel().index(source_row, 0, source_parent).data(ROW_ROLE)
        if row is None:
            return False
        if self._kind and row.kind != self._kind:
            return False
        if self._text:
            hay = " ".join([row.name, *row.aliases]).casefold()
            return self._text in hay
        return True


class PeopleWidget(QWidget):
    """Browse entities; Forget one after confirming a preview of what goes.

    Signals:
        entitiesLoaded(object): the list of :class:`EntityRow` after each refresh.
        forgetFinished(object): the :class:`ForgetReport`.
        forgetFailed(str): a message (also shown inline).
        writeTo(int): a profile's "Write to…" was clicked (the person's entity id).
    """

    entitiesLoaded = Signal(object)
    forgetFinished = Signal(object)
    forgetFailed = Signal(str)
    writeTo = Signal(int)
    showTimeline = Signal(int)

    def __init__(self, container, worker: Worker, parent: QWidget | None = None):
        super().__init__(parent)
        self._container = container
        self._worker = worker
        self._load_gen = 0
        self._notice = ""
        self._forget_job: Job | None = None
        self.loaded = False

        lay = QVBoxLayout(self)
        lay.setContentsMargins(18, 14, 18, 12)
        lay.setSpacing(10)
        lay.addWidget(header("People & Places", "Everyone and everywhere found in your archives, with how often "
                                                "they appear. Double-click one for its profile; select one to "
                                                "forget it everywhere (Shift/Ctrl-click selects several)."))

        self.stack = QStackedWidget()
        lay.addWidget(self.stack, 1)
        self.subtabs = QTabWidget()
        self.stack.addWidget(self.subtabs)
        list_page = QWidget()
        lay = QVBoxLayout(list_page)  # the rest of the list page goes here
        lay.setContentsMargins(8, 10, 8, 4)
        lay.setSpacing(8)
        self.subtabs.addTab(list_page, "Everyone")
        self.map = PlacesWidget(container, worker)
        self.subtabs.addTab(self.map, kind_icon("place"), "Map")
        self.graph = PeopleGraphWidget(container, worker)
        self.subtabs.addTab(self.graph, kind_icon("group"), "Graph")
        self.graph.openPerson.connect(lambda eid: self.open_profile(eid))
        self.subtabs.currentChanged.connect(self._on_subtab)
        self._pictures_stale = True
        self.review = ReviewPanel(container, worker)
        self.subtabs.addTab(self.review, "Review")
        self.review.pendingCount.connect(self._on_pending)
        self.review.changed.connect(lambda _item: self.refresh(reviews=False))
        self.forgotten = ForgottenPanel(container, worker)
        self.subtabs.addTab(self.forgotten, "Forgotten")
        self.forgotten.count.connect(self._on_forgotten_count)
        self.forgotten.changed.connect(lambda _report: self.refresh(reviews=True))
        self.profile = ProfilePage(container, worker)
        self.stack.addWidget(self.profile)
        self.profile.back.connect(self.close_profile)
        self.profile.writeTo.connect(self.writeTo)
        self.profile.showTimeline.connect(self.showTimeline)

        bar = QHBoxLayout()
        self.kind_combo = QComboBox()
        self.kind_combo.addItem(ALL, None)
        for k in KINDS:
            self.kind_combo.addItem(kind_icon(k), KIND_LABELS.get(k, k), k)
        self.kind_combo.currentIndexChanged.connect(self._on_kind)
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter by name or alias\u2026")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self._on_text)
        self.sort_combo = QComboBox()
        for label, _col, _order in SORTS:
            self.sort_combo.addItem(label)
        self.sort_combo.currentIndexChanged.connect(self.sort_by)
        self.open_button = QPushButton("Open")
        self.open_button.setObjectName("primary")
        self.open_button.setToolTip("Open the selected entry's profile (or double-click it)")
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(lambda: self.open_profile())
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(lambda: self.refresh())
        self.forget_button = QPushButton("Forget\u2026")
        self.forget_button.setObjectName("danger")
        self.forget_button.setToolTip("Remove the selected person or place, and what only they are evidence for")
        self.forget_button.setEnabled(False)
        self.forget_button.clicked.connect(self.forget_selected)
        kind_label = QLabel("Kind:")
        bar.addWidget(kind_label)
        bar.addWidget(self.kind_combo)
        bar.addWidget(self.filter_edit, 1)
        bar.addWidget(QLabel("Sort:"))
        bar.addWidget(self.sort_combo)
        bar.addWidget(self.open_button)
        bar.addWidget(self.refresh_button)
        bar.addWidget(self.forget_button)
        lay.addLayout(bar)

        self.model = EntityTableModel(self)
        self.proxy = EntityFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(3, Qt.SortOrder.DescendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)  # Shift/Ctrl: bulk forget
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(28)
        h = self.table.horizontalHeader()
        h.setHighlightSections(False)
        h.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        h.setStretchLastSection(False)
        h.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        # Aliases takes what the others leave: at 800 px wide the old widths (250 + 125 + 90 + 70 + 160) left it
        # about 40 px and its header read "liase".  These leave it a readable ~120 px at 800 px.
        for col, width in ((0, 220), (1, 100), (3, 90), (4, 64), (5, 140)):
            self.table.setColumnWidth(col, width)
        self.table.selectionModel().selectionChanged.connect(self._on_selection)
        self.table.doubleClicked.connect(lambda idx: self.open_profile(idx.data(ROW_ROLE).id))
        lay.addWidget(self.table, 1)

        self.details = QLabel("")
        self.details.setObjectName("muted")
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        lay.addWidget(self.details)

        self.status = QLabel("Loading\u2026")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)

    # -- loading ------------------------------------------------------------------------
    def refresh(self, reviews: bool = True) -> Job:
        """Reload the entity list (and the review queue and the Forgotten list) on the worker; only the
        newest load's result is shown."""
        if reviews:
            self.review.refresh()
            self.forgotten.refresh()
        self._load_gen += 1
        gen = self._load_gen
        job = self._worker.call(_list_entities, self._container, name="entities")
        job.finished.connect(lambda rows, g=gen: self._on_loaded(g, rows))
        job.failed.connect(lambda msg, g=gen: self._on_load_failed(g, msg))
        return job

    def _on_loaded(self, gen: int, rows: list[EntityRow]) -> None:
        if gen != self._load_gen:
            return  # a newer load is on its way
        if self.stack.currentWidget() is self.profile and self.profile.entity_id is not None:
            if any(r.id == self.profile.entity_id for r in rows):
                self.profile.reload()
            else:
                self.close_profile()  # forgotten or merged away
        selected = self.selected_row()
        self._pictures_stale = True
        self._on_subtab(self.subtabs.currentIndex())
        self.model.set_rows(rows)
        self.loaded = True
        self._update_status()
        if selected is not None:
            self.select_id(selected.id)
        self._on_selection()
        self.entitiesLoaded.emit(rows)

    def _on_load_failed(self, gen: int, message: str) -> None:
        if gen == self._load_gen:
            self._set_error(f"Could not load the list: {message}")

    def _update_status(self) -> None:
        rows = self.model.rows
        if not rows:
            self._set_muted("Nobody yet \u2014 add files in the Inbox tab and the people and places "
                            "in them appear here.")
            return
        counts: dict[str, int] = {}
        for r in rows:
            counts[r.kind] = counts.get(r.kind, 0) + 1
        plural = {"person": "people", "group": "lists / organisations"}
        parts = [f"{n} {plural.get(k, k + 's') if n != 1 else KIND_LABELS.get(k, k)}"
                 for k, n in sorted(counts.items())]
        shown = self.proxy.rowCount()
        text = ", ".join(parts) + (f" \u2014 {shown} shown" if shown != len(rows) else "")
        self._set_muted(f"{self._notice}   \u00b7   {text}" if self._notice else text)

    # -- profile, review, sorting -------------------------------------------------------
    def open_profile(self, entity_id: int | None = None) -> Job | None:
        """Show the profile page of ``entity_id`` (default: the selected row)."""
        if entity_id is None:
            row = self.selected_row()
            if row is None:
                return None
            entity_id = row.id
        self.stack.setCurrentWidget(self.profile)
        return self.profile.load(entity_id)

    def close_profile(self) -> None:
        """Back to the list."""
        self.stack.setCurrentIndex(0)

    @property
    def profile_open(self) -> bool:
        """True while the profile page is shown."""
        return self.stack.currentWidget() is self.profile

    def show_review(self) -> None:
        """Switch to the Review sub-tab."""
        self.close_profile()
        self.subtabs.setCurrentWidget(self.review)

    def _on_forgotten_count(self, n: int) -> None:
        self.subtabs.setTabText(self.subtabs.indexOf(self.forgotten), f"Forgotten ({n})" if n else "Forgotten")

    def show_forgotten(self) -> None:
        """Switch to the Forgotten sub-tab (Restore)."""
        self.close_profile()
        self.subtabs.setCurrentWidget(self.forgotten)

    def _on_subtab(self, _index: int) -> None:
        """Load the map or the graph when shown (again after each refresh of the list)."""
        w = self.subtabs.currentWidget()
        if w in (self.map, self.graph) and (self._pictures_stale or w.data is None):
            self._pictures_stale = False
            self.map.load()
            self.graph.load()

    def _on_pending(self, n: int) -> None:
        self.subtabs.setTabText(self.subtabs.indexOf(self.review), f"Review ({n})" if n else "Review")

    def sort_by(self, index: int) -> None:
        """Sort by the Sort combo's choice ``index`` (see :data:`SORTS`)."""
        _label, col, order = SORTS[index]
        self.table.sortByColumn(col, order)

    # -- filtering ----------------------------------------------------------------------
    def _on_kind(self, _index: int) -> None:
        self.proxy.set_kind(self.kind_combo.currentData())
        self._update_status()
        self._on_selection()

    def _on_text(self, text: str) -> None:
        self.proxy.set_text(text)
        self._update_status()
        self._on_selection()

    # -- selection ----------------------------------------------------------------------
    def selected_row(self) -> EntityRow | None:
        """The selected entity (the first, when several are), or None."""
        sel = self.selected_rows()
        return sel[0] if sel else None

    def selected_rows(self) -> list[EntityRow]:
        """Every selected entity, in the table's order."""
        rows = sorted(self.table.selectionModel().selectedRows(), key=lambda i: i.row())
        return [i.data(ROW_ROLE) for i in rows if i.data(ROW_ROLE) is not None]

    def select_ids(self, entity_ids) -> int:
        """Select exactly the visible rows of these entities; returns how many were found."""
        from PySide6.QtCore import QItemSelection, QItemSelectionModel

        wanted = set(entity_ids)
        sel = QItemSelection()
        found = 0
        for r in range(self.proxy.rowCount()):
            row = self.proxy.index(r, 0).data(ROW_ROLE)
            if row is not None and row.id in wanted:
                sel.select(self.proxy.index(r, 0), self.proxy.index(r, self.proxy.columnCount() - 1))
                found += 1
        self.table.selectionModel().select(sel, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        return found

    def select_id(self, entity_id: int) -> bool:
        """Select the visible row of entity ``entity_id``; False when it is not shown."""
        for r in range(self.proxy.rowCount()):
            idx = self.proxy.index(r, 0)
            row = idx.data(ROW_ROLE)
            if row is not None and row.id == entity_id:
                self.table.selectRow(r)
                self.table.scrollTo(idx)
                return True
        return False

    def select_name(self, name: str) -> bool:
        """Select the visible row named ``name``; False when there is none."""
        for r in range(self.proxy.rowCount()):
            row = self.proxy.index(r, 0).data(ROW_ROLE)
            if row is not None and row.name == name:
                return self.select_id(row.id)
        return False

    def _on_selection(self, *_args) -> None:
        rows = self.selected_rows()
        row = rows[0] if rows else None
        self.forget_button.setEnabled(row is not None and self._forget_job is None)
        self.forget_button.setText(f"Forget {len(rows)}\u2026" if len(rows) > 1 else "Forget\u2026")
        self.open_button.setEnabled(len(rows) == 1)
        if row is None:
            self.details.setText("")
            self.details.hide()
            return
        if len(rows) > 1:
            self.details.setText(f"{len(rows)} selected: " + ", ".join(r.name for r in rows[:10])
                                 + (" \u2026" if len(rows) > 10 else ""))
            self.details.show()
            return
        aliases = "; ".join(row.aliases) if row.aliases else "none"
        self.details.setText(f"{row.name} ({KIND_LABELS.get(row.kind, row.kind)}) \u2014 {row.records} record(s), "
                             f"{row.facts} fact(s), last seen {format_when(row.last_seen, 'never')}. "
                             f"Also known as: {aliases}")
        self.details.show()

    # -- forgetting ---------------------------------------------------------------------
    def confirm(self, plan: ForgetPlan) -> dict | None:
        """Show the plan's counts per store (:class:`ui.forget.ForgetDialog`) and ask; tests replace this.

        Returns None (keep) or ``{"purge": bool, "mentions": "redact" | "remove"}``."""
        box = ForgetDialog(plan, self)
        if box.exec() != QDialog.DialogCode.Accepted:
            return None
        return {"purge": box.purge_now, "mentions": "remove" if box.remove_mentions else "redact"}

    def forget_selected(self) -> Job | None:
        """Plan what forgetting the selected entities touches, confirm once, then forget them on the worker."""
        rows = self.selected_rows()
        if not rows or self._forget_job is not None:
            return None
        self.forget_button.setEnabled(False)
        self._notice = ""
        who = rows[0].name if len(rows) == 1 else f"{len(rows)} entries"
        self._set_muted(f"Working out what forgetting {who} would touch\u2026")
        if len(rows) == 1:
            job = self._worker.call(_preview, self._container, rows[0].id, name="plan_forget")
        else:
            job = self._worker.call(_plans, self._container, [r.id for r in rows], name="plan_forget")
        job.finished.connect(self._on_preview)
        job.failed.connect(self._on_forget_failed)
        self._forget_job = job
        return job

    def _on_preview(self, plans) -> None:
        self._forget_job = None
        plans = plans if isinstance(plans, list) else [plans]
        shown = plans[0] if len(plans) == 1 else BulkPlan.of(plans)
        choice = self.confirm(shown)
        if not choice:
            self._set_muted("Nothing was forgotten.")
            self._on_selection()
            return
        purge = bool(choice.get("purge"))
        who = plans[0].name if len(plans) == 1 else f"{len(plans)} entries"
        self._set_muted(f"{'Erasing' if purge else 'Forgetting'} {who}\u2026")
        ids = [p.entity_id for p in plans]
        mentions = choice.get("mentions", "redact")
        job = self._worker.submit(lambda j, c=self._container: _forget_many(c, ids, purge, mentions, j), name="forget")
        job.progress.connect(lambda p: self._set_muted(f"Forgetting\u2026 {p[0]} of {p[1]} done"))
        job.finished.connect(self._on_forgotten)
        job.failed.connect(self._on_forget_failed)
        self._forget_job = job
        self._on_selection()

    def _on_forgotten(self, reports) -> None:
        self._forget_job = None
        reports = reports if isinstance(reports, list) else [reports]
        self.table.clearSelection()
        if len(reports) == 1:
            r = reports[0]
            self._notice = r.summary().replace("`kith restore " + str(r.forget_id) + "`", "Forgotten \u2192 Restore")
        else:
            g = [r.counts.get("graph", {}) for r in reports]
            self._notice = (f"Forgot {len(reports)} entries: {sum(x.get('records', 0) for x in g)} record(s), "
                            f"{sum(x.get('facts', 0) for x in g)} fact(s); each can be restored from Forgotten")
        self._set_muted(self._notice)

        # Announce once the table no longer shows them, so listeners see a consistent list.
        def announce(reps=tuple(reports)):
            for rep in reps:
                self.forgetFinished.emit(rep)
        self.refresh().done.connect(announce)

    def _on_forget_failed(self, message: str) -> None:
        self._forget_job = None
        self._set_error(f"Could not forget: {message}")
        self._on_selection()
        self.forgetFailed.emit(message)

    # -- status line --------------------------------------------------------------------
    def _set_muted(self, text: str) -> None:
        self.status.setStyleSheet("")
        self.status.setText(text)

    def _set_error(self, text: str) -> None:
        self.status.setStyleSheet("color: #b42318;")
        self.status.setText(text)

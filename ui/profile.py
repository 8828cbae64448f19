"""A profile page: everything Kith knows about one person, place or thing.

Name, kind and aliases; the summary (marked when stale, with Regenerate); the current facts
(statement, confidence, how many sources back each); a timeline of facts over time in which
superseded facts stay visible, greyed and struck through; the source records, which open in
the system's viewer; and for people, the brief's hot and cold topics and a 24 h × 7 day heatmap
of when they write.  Loaded from :func:`app.operations.graph.profile` and
:meth:`app.personal.PersonalService.profile_view` on the worker.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (QAbstractItemView, QFrame, QGridLayout, QHBoxLayout, QHeaderView, QLabel,
                               QPushButton, QScrollArea, QSplitter, QTableWidget, QTableWidgetItem, QTreeWidget, QTreeWidgetItem,
                               QVBoxLayout, QWidget)

from ui import format_local, format_when
from ui.charts import ActivityHeatmap, ConfidenceChart, ReplyTimeChart, TopicsChart
from ui.identity_panel import WhyOnePanel
from ui.chat import open_path
from ui.worker import Job, Worker

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
GREY = QColor("#9aa1ab")
PATH_ROLE = Qt.ItemDataRole.UserRole + 1

PROFILE_STYLE = """
QLabel#profileName { font-size: 20px; font-weight: bold; color: #111827; }
QLabel#kindBadge { color: #1f5fbf; background: #e8f0fc; border-radius: 4px; padding: 2px 8px; }
QLabel#staleBadge { color: #8a5a00; background: #fff1d6; border-radius: 4px; padding: 1px 6px; }
QLabel#freshBadge { color: #1f6b2a; background: #dcefd9; border-radius: 4px; padding: 1px 6px; }
QLabel#sectionTitle { font-weight: bold; font-size: 14px; color: #111827; }
QLabel#hotTopic { color: #9a3412; background: #ffedd5; border-radius: 10px; padding: 2px 9px; }
QLabel#coldTopic { color: #1e40af; background: #dbeafe; border-radius: 10px; padding: 2px 9px; }
QFrame#summaryCard { background: #ffffff; border: 1px solid #dde1e6; border-radius: 8px; }
QTableWidget { background: #ffffff; alternate-background-color: #f4f6f9; border: 1px solid #d6d9de;
               border-radius: 6px; gridline-color: #eceff3; }
"""


@dataclass
class ProfileData:
    """What the page shows: the graph profile, and for people the personalization view (or why not)."""

    profile: object               # app.operations.graph.Profile
    view: dict | None = None      # PersonalService.profile_view(...)
    view_error: str = ""
    pictures: object = None       # app.operations.pictures.PersonPictures (people only)


def load_profile(container, entity_id: int) -> ProfileData:
    """Worker side: the entity's profile and, for a person, their timing heatmap and topics."""
    from app.operations.graph import profile

    prof = profile(container, entity_id)
    data = ProfileData(prof)
    if prof.kind == "person":
        try:
            from app.personal import PersonalService

            from app.operations.pictures import person_pictures

            svc = PersonalService(container)
            try:
                data.view = svc.profile_view(entity_id)
            finally:
                svc.close()
            data.pictures = person_pictures(container, entity_id)
        except Exception as exc:  # noqa: BLE001 - the graph part is still worth showing
            from ui.worker import describe_error

            data.view_error = describe_error(exc)
    return data


def regenerate(container) -> dict:
    """Worker side: regenerate due summaries (deterministic text; stale first)."""
    from app.jobs import regenerate_summaries

    return regenerate_summaries(container)


Heatmap = ActivityHeatmap  # the 7 × 24 "when they write" picture (ui/charts.py)


def _title(text: str) -> QLabel:
    t = QLabel(text)
    t.setObjectName("sectionTitle")
    return t


def _bare(statement: str) -> str:
    """A fact's statement without its "As of 2023-01-09, " lead: the table's and the timeline's own columns say
    when (the whole statement is the row's tooltip)."""
    from app.operations.graph import statement_sentence

    return statement_sentence(statement)


def _short_date(iso: str | None) -> str:
    return iso[:10] if iso else "\u2014"


class ProfilePage(QWidget):
    """One entity's profile (a page of People & Places).

    Signals:
        back(): the Back button was clicked.
        loaded(object): the :class:`ProfileData` after each load.
        failed(str): a load or regenerate error (also shown on the page).
        writeTo(int): "Write to…" was clicked for this person.
        showTimeline(int): "On the timeline" was clicked (the entity id).
        summaryRegenerated(object): the regenerate report.
    """

    back = Signal()
    loaded = Signal(object)
    failed = Signal(str)
    writeTo = Signal(int)
    showTimeline = Signal(int)
    summaryRegenerated = Signal(object)

    def __init__(self, container, worker: Worker, parent: QWidget | None = None):
        super().__init__(parent)
        self._container = container
        self._worker = worker
        self._gen = 0
        self.entity_id: int | None = None
        self.data: ProfileData | None = None
        self._regen_job: Job | None = None
        self.setStyleSheet(PROFILE_STYLE)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(8)

        top = QHBoxLayout()
        self.back_button = QPushButton("\u2190 Back")
        self.back_button.clicked.connect(self.back)
        self.name_label = QLabel("")
        self.name_label.setObjectName("profileName")
        self.name_label.setTextFormat(Qt.TextFormat.PlainText)
        self.kind_label = QLabel("")
        self.kind_label.setObjectName("kindBadge")
        self.write_button = QPushButton("Write to\u2026")
        self.write_button.setToolTip("Draft a message to this person in Chat, the way they like to be written to")
        self.write_button.clicked.connect(lambda: self.entity_id is not None and self.writeTo.emit(self.entity_id))
        self.regen_button = QPushButton("Regenerate summary")
        self.regen_button.setToolTip("Rewrite the summaries that are out of date (stale first)")
        self.regen_button.clicked.connect(self.regenerate)
        top.addWidget(self.back_button)
        top.addSpacing(8)
        top.addWidget(self.name_label)
        top.addWidget(self.kind_label, 0, Qt.AlignmentFlag.AlignVCenter)
        top.addStretch(1)
        top.addWidget(self.write_button)
        self.timeline_button = QPushButton("On the timeline")
        self.timeline_button.setToolTip("Show this one's records, facts and trips on the Timeline tab")
        self.timeline_button.clicked.connect(
            lambda: self.entity_id is not None and self.showTimeline.emit(self.entity_id))
        top.addWidget(self.timeline_button)
        top.addWidget(self.regen_button)
        lay.addLayout(top)

        self.aliases_label = QLabel("")
        self.aliases_label.setObjectName("muted")
        self.aliases_label.setWordWrap(True)
        self.aliases_label.setTextFormat(Qt.TextFormat.PlainText)
        lay.addWidget(self.aliases_label)

        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)

        # Summary card.
        card = QFrame()
        card.setObjectName("summaryCard")
        clay = QVBoxLayout(card)
        clay.setContentsMargins(12, 8, 12, 8)
        clay.setSpacing(4)
        srow = QHBoxLayout()
        srow.addWidget(_title("Summary"))
        self.stale_label = QLabel("")
        srow.addWidget(self.stale_label)
        srow.addStretch(1)
        clay.addLayout(srow)
        self.summary_label = QLabel("")
        self.summary_label.setWordWrap(True)
        self.summary_label.setTextFormat(Qt.TextFormat.PlainText)
        self.summary_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary_label.setMaximumHeight(110)
        clay.addWidget(self.summary_label)
        lay.addWidget(card)

        # Facts (left) | sources, topics, timing (right).
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        left = QSplitter(Qt.Orientation.Vertical)
        left.setChildrenCollapsible(False)

        facts_box = QWidget()
        fl = QVBoxLayout(facts_box)
        fl.setContentsMargins(0, 0, 0, 0)
        fl.setSpacing(4)
        fl.addWidget(_title("What is true now"))
        self.facts = QTableWidget(0, 3)
        self.facts.setHorizontalHeaderLabels(["Fact", "Confidence", "Sources"])
        self._setup_table(self.facts)
        h = self.facts.horizontalHeader()
        h.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        h.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        h.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        fl.addWidget(self.facts, 1)
        left.addWidget(facts_box)

        tl_box = QWidget()
        tl = QVBoxLayout(tl_box)
        tl.setContentsMargins(0, 4, 0, 0)
        tl.setSpacing(4)
        tl.addWidget(_title("Timeline"))
        self.timeline = QTreeWidget()
        self.timeline.setHeaderLabels(["From", "Fact", "Status"])
        self.timeline.setRootIsDecorated(False)
        self.timeline.setAlternatingRowColors(True)
        self.timeline.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        th = self.timeline.header()
        th.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        th.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        th.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        th.setStretchLastSection(False)
        tl.addWidget(self.timeline, 1)
        left.addWidget(tl_box)
        split.addWidget(left)

        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.setSpacing(4)
        srow2 = QHBoxLayout()
        self.sources_title = _title("Sources")
        srow2.addWidget(self.sources_title)
        srow2.addStretch(1)
        self.open_button = QPushButton("Open")
        self.open_button.setToolTip("Open the selected source file")
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(self.open_selected_source)
        srow2.addWidget(self.open_button)
        rl.addLayout(srow2)
        self.sources = QTreeWidget()
        self.sources.setHeaderLabels(["When", "Subject", "File"])
        self.sources.setRootIsDecorated(False)
        self.sources.setAlternatingRowColors(True)
        sh = self.sources.header()
        sh.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        sh.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        sh.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        sh.setStretchLastSection(False)
        self.sources.setColumnWidth(2, 130)
        self.sources.itemDoubleClicked.connect(lambda item, _c: open_path(item.data(0, PATH_ROLE)))
        self.sources.itemSelectionChanged.connect(
            lambda: self.open_button.setEnabled(bool(self.sources.selectedItems())))
        self.sources.setMinimumHeight(110)
        rl.addWidget(self.sources, 1)

        self.person_box = QWidget()
        pl = QGridLayout(self.person_box)
        pl.setContentsMargins(0, 6, 0, 0)
        pl.setSpacing(6)
        self.reply_chart = ReplyTimeChart()
        self.heatmap = ActivityHeatmap()
        self.confidence_chart = ConfidenceChart()
        self.topics_chart = TopicsChart()
        pl.addWidget(self.heatmap, 0, 0)
        pl.addWidget(self.reply_chart, 0, 1)
        pl.addWidget(self.topics_chart, 1, 0)
        pl.addWidget(self.confidence_chart, 1, 1)
        self.heat_note = QLabel("")
        self.heat_note.setObjectName("muted")
        self.heat_note.setWordWrap(True)
        pl.addWidget(self.heat_note, 2, 0, 1, 2)
        rl.addWidget(self.person_box)
        self.why = WhyOnePanel(container, worker)  # "why is this one person" (issue 13); actions reload the page
        self.why.changed.connect(lambda _item: self.reload())
        self.why.setMinimumHeight(160)
        rl.addWidget(self.why, 1)
        # the column scrolls when the window is shorter than its parts need (the charts were squeezed
        # until their captions overlapped the plots)
        right_scroll = QScrollArea()
        right_scroll.setWidgetResizable(True)
        right_scroll.setFrameShape(QFrame.Shape.NoFrame)
        right_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        right_scroll.setWidget(right)
        split.addWidget(right_scroll)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([520, 560])
        lay.addWidget(split, 1)

    @staticmethod
    def _setup_table(t: QTableWidget) -> None:
        t.verticalHeader().hide()
        t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        t.setAlternatingRowColors(True)
        t.setShowGrid(False)
        t.setWordWrap(True)

    # -- loading ------------------------------------------------------------------------
    def load(self, entity_id: int) -> Job:
        """Load entity ``entity_id`` on the worker; only the newest load is shown."""
        self._gen += 1
        gen = self._gen
        self.entity_id = entity_id
        self.status.show()
        self.status.setStyleSheet("")
        self.status.setText("Loading\u2026")
        job = self._worker.call(load_profile, self._container, entity_id, name="profile")
        self.why.load(entity_id)
        job.finished.connect(lambda d, g=gen: self._on_loaded(g, d))
        job.failed.connect(lambda m, g=gen: self._on_failed(g, m))
        return job

    def reload(self) -> Job | None:
        """Load the shown entity again."""
        return self.load(self.entity_id) if self.entity_id is not None else None

    def _on_failed(self, gen: int, message: str) -> None:
        if gen != self._gen:
            return
        self.status.setText(f"Could not load the profile: {message}")
        self.status.setStyleSheet("color: #b42318;")
        self.failed.emit(message)

    def _on_loaded(self, gen: int, data: ProfileData) -> None:
        if gen != self._gen:
            return
        self.data = data
        p = data.profile
        self.status.setStyleSheet("")
        self.status.setText("")
        self.status.hide()
        self.name_label.setText(p.name)
        self.kind_label.setText(("you \u00b7 " if p.is_owner else "") + p.kind)
        aliases = [a["value"] for a in p.aliases if a.get("value") and a["value"] != p.name]
        self.aliases_label.setText(f"Also known as: {', '.join(aliases)}" if aliases else "No other names known.")
        self.aliases_label.setText(self.aliases_label.text() + f"   \u00b7   {p.records} record(s), "
                                   f"{len(p.current)} current fact(s), {len(p.history)} superseded")
        self._show_summary(p.summary, p.summary_stale)
        self._show_facts(p.current)
        self._show_timeline(p.current, p.history)
        self._show_sources(p.sources, p.records)
        is_person = p.kind == "person"
        self.write_button.setVisible(is_person and not p.is_owner)
        self.write_button.setText(f"Write to {p.name}\u2026")
        self.person_box.setVisible(is_person)
        if is_person:
            self._show_person(data.view, data.view_error, data.pictures)
        self.loaded.emit(data)

    def _show_summary(self, text: str | None, stale: bool) -> None:
        if text:
            self.summary_label.setText(text.strip())
        else:
            self.summary_label.setText("No summary yet \u2014 click \u201cRegenerate summary\u201d to write one.")
        self.stale_label.setObjectName("staleBadge" if stale else "freshBadge")
        self.stale_label.setText("stale \u2014 newer facts arrived" if stale and text else
                                 ("missing" if not text else "up to date"))
        self.stale_label.style().unpolish(self.stale_label)
        self.stale_label.style().polish(self.stale_label)

    def _show_facts(self, facts) -> None:
        self.facts.setRowCount(0)
        for f in facts:
            r = self.facts.rowCount()
            self.facts.insertRow(r)
            item = QTableWidgetItem(_bare(f.statement))
            item.setToolTip(f"{f.statement}\n{f.domain} / {f.category} / {f.key}\nvalid from "
                            f"{_short_date(f.valid_from)}; recorded {_short_date(f.recorded_at)}")
            self.facts.setItem(r, 0, item)
            conf = QTableWidgetItem(f"{f.confidence:.0%}")
            conf.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            self.facts.setItem(r, 1, conf)
            n, ev = max(len(f.sources), 0), f.evidence_count
            # "11 records" (the messages, photos and memos it rests on), not "2 files · 11 ev."; the files are the tip
            src = QTableWidgetItem(f"{ev} record{'s' if ev != 1 else ''}" if ev else "derived")
            src.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            src.setToolTip((f"In {n} file{'s' if n != 1 else ''}:\n" + "\n".join(f.sources)) if f.sources
                           else "no source file (derived)")
            self.facts.setItem(r, 2, src)
        if not facts:
            self.facts.insertRow(0)
            empty = QTableWidgetItem("No facts known yet.")
            empty.setForeground(GREY)
            self.facts.setItem(0, 0, empty)
        self.facts.resizeRowsToContents()

    def _show_timeline(self, current, history) -> None:
        self.timeline.clear()
        by_id = {f.id: f for f in [*current, *history]}
        facts = sorted(by_id.values(), key=lambda f: (f.valid_from or f.recorded_at or "", f.id))
        for f in facts:
            superseded = f.superseded_by is not None
            if superseded:
                newer = by_id.get(f.superseded_by)
                until = f.valid_to or (newer.valid_from if newer else None)
                status = f"superseded {('on ' + _short_date(until)) if until else ''}".strip()
            else:
                status = "current" + (f" until {_short_date(f.valid_to)}" if f.valid_to else "")
            item = QTreeWidgetItem([_short_date(f.valid_from or f.recorded_at), _bare(f.statement), status])
            item.setToolTip(1, f.statement)
            if superseded:
                font = QFont(self.timeline.font())
                font.setStrikeOut(True)
                for col in range(3):
                    item.setForeground(col, GREY)
                item.setFont(1, font)
            self.timeline.addTopLevelItem(item)
        if not facts:
            item = QTreeWidgetItem(["", "Nothing over time yet.", ""])
            item.setForeground(1, GREY)
            self.timeline.addTopLevelItem(item)

    def _show_sources(self, sources: list[dict], total: int) -> None:
        self.sources.clear()
        self.sources_title.setText(f"Sources ({total})" if total else "Sources")
        for s in sources:
            path = s.get("path") or ""
            subject = s.get("subject") or f"({s.get('kind') or 'record'})"
            item = QTreeWidgetItem([format_local(s.get("local")) if s.get("local") else format_when(s.get("when"), "\u2014"),
                                    subject, Path(path).name or path])
            item.setData(0, PATH_ROLE, path)
            item.setToolTip(1, subject)
            item.setToolTip(2, path)
            self.sources.addTopLevelItem(item)
        if not sources:
            item = QTreeWidgetItem(["", "No source records.", ""])
            item.setForeground(1, GREY)
            self.sources.addTopLevelItem(item)

    def _show_person(self, view: dict | None, error: str, pictures=None) -> None:
        if view is None or pictures is None:
            self.heatmap.set_data(None)
            self.reply_chart.set_data([], [])
            self.topics_chart.set_data([], [])
            self.confidence_chart.set_data([], 0.1)
            self.heat_note.setText(f"Not available: {error}" if error else "Not available.")
            return
        from app.operations.pictures import REPLY_BIN_LABELS

        self.heatmap.set_data(pictures.heatmap)
        self.reply_chart.set_data(pictures.reply_counts, list(REPLY_BIN_LABELS))
        self.topics_chart.set_data(pictures.hot, pictures.cold)
        self.confidence_chart.set_data(pictures.curves, pictures.forget_below)
        tz = pictures.timezone or "UTC"
        n = self.heatmap.total()
        replies = len(pictures.reply_seconds)
        parts = [f"{n} message{'s' if n != 1 else ''} by weekday and hour ({tz})" if n else
                 f"no messages with times yet ({tz})",
                 f"{replies} repl{'ies' if replies != 1 else 'y'} timed",
                 f"{len(pictures.curves)} observation{'s' if len(pictures.curves) != 1 else ''} "
                 f"(confidence halves every 30 days unless seen again)"]
        self.heat_note.setText("; ".join(parts).capitalize() + ".")

    # -- actions ------------------------------------------------------------------------
    def open_selected_source(self) -> bool:
        """Open the selected source file; False when none is selected or it is gone."""
        items = self.sources.selectedItems()
        if not items:
            return False
        ok = open_path(items[0].data(0, PATH_ROLE))
        if not ok:
            self.status.show()
            self.status.setText(f"Cannot open {items[0].data(0, PATH_ROLE)}: the file is not there any more.")
        return ok

    def regenerate(self) -> Job | None:
        """Regenerate the stale summaries on the worker, then reload this page."""
        if self._regen_job is not None:
            return None
        self.regen_button.setEnabled(False)
        self.status.show()
        self.status.setStyleSheet("")
        self.status.setText("Regenerating summaries\u2026")
        job = self._worker.call(regenerate, self._container, name="summaries")
        job.finished.connect(self._on_regenerated)
        job.failed.connect(self._on_regen_failed)
        self._regen_job = job
        return job

    def _on_regenerated(self, report: dict) -> None:
        self._regen_job = None
        self.regen_button.setEnabled(True)
        self.status.setText(f"Wrote {report.get('written', 0)} summar{'y' if report.get('written') == 1 else 'ies'}.")
        self.summaryRegenerated.emit(report)
        self.reload()

    def _on_regen_failed(self, message: str) -> None:
        self._regen_job = None
        self.regen_button.setEnabled(True)
        self.status.setStyleSheet("color: #b42318;")
        self.status.setText(f"Could not regenerate: {message}")
        self.failed.emit(message)

    def facts_shown(self) -> list[str]:
        """The current facts' statements (for tests)."""
        return [self.facts.item(r, 0).text() for r in range(self.facts.rowCount())
                if self.facts.item(r, 0) is not None and self.facts.item(r, 0).foreground().color() != GREY]

    def timeline_rows(self) -> list[tuple[str, str, bool]]:
        """``(statement, status, struck)`` per timeline row (for tests)."""
        out = []
        for i in range(self.timeline.topLevelItemCount()):
            it = self.timeline.topLevelItem(i)
            out.append((it.text(1), it.text(2), it.font(1).strikeOut()))
        return out

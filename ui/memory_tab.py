"""The Memory tab: what Kith learned (learning events since a date), what it believes, and your goals.

It reads the cognitive memory through ``app/memory.py``, which is still growing, so each section
looks its function up when it loads and says "not available yet" when the function is missing.
The interface this tab expects (any of the names listed; items may be objects or dicts):

* events:  ``learned(c, since=None, limit=500)`` or ``what_did_i_learn(c, since=None)`` → items with
  ``at`` (datetime or ISO), ``kind`` (e.g. ``episode_stored``, ``belief_revised``), ``target`` (str)
  and ``detail`` (dict).
* beliefs: ``beliefs(c)`` / ``list_beliefs(c)`` → items with ``statement`` (or ``subject``,
  ``predicate``, ``object``), ``confidence`` (0–1), ``evidence_count``, optional ``superseded_by`` /
  ``withdrawn_at``.
* goals:   ``goals(c)`` / ``list_goals(c)`` / ``active_goals(c)`` → items with ``title``, ``state``,
  ``priority``, optional ``deadline``, ``success_criteria``, ``parent_id``.
* perceived: ``perceived(c)`` → the sensory buffer's frames, newest first, with ``at``, ``text``,
  ``surprise`` (0–1) and ``promoted``.
"""
from __future__ import annotations

import textwrap
from datetime import datetime, time, timezone
from typing import Any

from PySide6.QtCore import QDate, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QDateEdit, QHBoxLayout, QHeaderView, QLabel, QPushButton,
                               QSplitter, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from ui import format_when, header, section
from ui.worker import Job, Worker

NOT_YET = "not available yet"
EVENT_NAMES = ("learned", "what_did_i_learn", "learning_events")
BELIEF_NAMES = ("beliefs", "list_beliefs")
GOAL_NAMES = ("goals", "list_goals", "active_goals")
PERCEIVED_NAMES = ("perceived",)
KIND_LABELS = {
    "episode_stored": "Remembered", "consolidation": "Consolidated", "atom_created": "Generalised",
    "atom_decayed": "Let fade", "atom_archived": "Archived", "belief_asserted": "Came to believe",
    "belief_revised": "Revised a belief", "belief_superseded": "Replaced a belief", "goal_set": "Noted a goal",
    "goal_revised": "Updated a goal", "procedure_stored": "Learned how to", "procedure_executed": "Did",
    "self_vector_updated": "Updated its self-model", "signatures_compacted": "Tidied its index",
    "episode_superseded": "Corrected a memory", "unlearned": "Forgot", "restored": "Restored", "recall": "Recalled",
}


def _get(item: Any, *names: str, default=None):
    for n in names:
        if isinstance(item, dict):
            if n in item and item[n] is not None:
                return item[n]
        elif getattr(item, n, None) is not None:
            return getattr(item, n)
    return default


def _iso(v) -> str | None:
    if v is None:
        return None
    if isinstance(v, datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=timezone.utc)
        return v.isoformat()
    return str(v)


def _lookup(names: tuple[str, ...]):
    """The first function of ``names`` that ``app.memory`` has, or None (also when app.memory does not import)."""
    try:
        import app.memory as mem
    except Exception:  # noqa: BLE001 - a half-finished module must not break the window
        return None
    for n in names:
        fn = getattr(mem, n, None)
        if callable(fn):
            return fn
    return None


def load_memory(container, since: datetime | None) -> dict:
    """Worker side: ``{"events": [...] | None, "beliefs": [...] | None, "goals": [...] | None, "errors": {}}``;
    None marks a section whose function ``app/memory.py`` does not have yet.  Items are plain dicts."""
    out: dict[str, Any] = {"events": None, "beliefs": None, "goals": None, "perceived": None, "errors": {}}
    fn = _lookup(EVENT_NAMES)
    if fn is not None:
        try:
            rows = fn(container, since)
            out["events"] = [{"at": _iso(_get(r, "at", "when")), "kind": str(_get(r, "kind", default="")),
                              "target": str(_get(r, "target", default="")),
                              "detail": dict(_get(r, "detail", default={}) or {})} for r in rows]
        except Exception as exc:  # noqa: BLE001
            out["errors"]["events"] = f"{type(exc).__name__}: {exc}"
    fn = _lookup(BELIEF_NAMES)
    if fn is not None:
        try:
            rows = fn(container)
            beliefs = []
            for b in rows:
                stmt = _get(b, "statement") or " ".join(str(_get(b, k, default="")) for k in
                                                         ("subject", "predicate", "object")).strip()
                beliefs.append({"statement": stmt, "confidence": float(_get(b, "confidence", default=0.0)),
                                "evidence": int(_get(b, "evidence_count", default=0)),
                                "current": _get(b, "superseded_by") is None and _get(b, "withdrawn_at") is None,
                                "since": _iso(_get(b, "valid_from", "created_at"))})
            out["beliefs"] = beliefs
        except Exception as exc:  # noqa: BLE001
            out["errors"]["beliefs"] = f"{type(exc).__name__}: {exc}"
    fn = _lookup(GOAL_NAMES)
    if fn is not None:
        try:
            out["goals"] = [{"title": str(_get(g, "title", default="")), "state": str(_get(g, "state", default="")),
                             "priority": float(_get(g, "priority", default=1.0)),
                             "deadline": _iso(_get(g, "deadline")),
                             "criteria": str(_get(g, "success_criteria", default=""))} for g in fn(container)]
        except Exception as exc:  # noqa: BLE001
            out["errors"]["goals"] = f"{type(exc).__name__}: {exc}"
    fn = _lookup(PERCEIVED_NAMES)
    if fn is not None:
        try:
            out["perceived"] = [{"at": _iso(_get(f, "at")), "text": str(_get(f, "text", default="")),
                                 "surprise": float(_get(f, "surprise", default=1.0)),
                                 "promoted": bool(_get(f, "promoted", default=False))} for f in fn(container)]
        except Exception as exc:  # noqa: BLE001
            out["errors"]["perceived"] = f"{type(exc).__name__}: {exc}"
    return out


TARGET_NOUNS = {"episode": "a memory", "atom": "a pattern", "belief": "a belief", "goal": "a goal",
                "snapshot": "its self-model", "forget": "a forget", "procedure": "a procedure", "trace": "a recall",
                "episodes": "memories"}
"""What a learning event's ``target`` ("episode:12", "atom:3") is about, in words (the id is not shown)."""


def _n(v) -> int:
    """A count from a detail value: a list's length, a number as it is."""
    if isinstance(v, (list, tuple, set, dict)):
        return len(v)
    try:
        return int(v)
    except (TypeError, ValueError):
        return 0


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _triple(v) -> str:
    """``['ann', 'lives in', 'rome']`` as "ann lives in rome" ('' when it has no words)."""
    if isinstance(v, (list, tuple)):
        return " ".join(str(x) for x in v if str(x).strip()).strip()
    return ""


def _about_text(kind: str, target: str, d: dict) -> str:
    """The "About" column: the target in words — a goal's title, a concept's name, "a memory" — never its id."""
    if not target:
        return ""
    prefix, _, rest = target.partition(":")
    if prefix == "goal" and d.get("title"):
        return str(d["title"])
    if prefix == "procedure" and d.get("name"):
        return str(d["name"])
    if prefix == "concept":
        return rest
    return TARGET_NOUNS.get(prefix, prefix.replace("_", " "))


def _detail_text(d: dict, kind: str = "") -> str:
    """A learning event's detail in words: "61 memories looked over: 1 new pattern", "seen in 3 memories" —
    counts for lists, no ids, no brackets (the raw detail is the row's tooltip)."""
    d = dict(d or {})
    if kind == "episode_stored":
        n = _n(d.get("triples"))
        return _plural(n, "statement") + " noticed" if n else ""
    if kind == "consolidation":
        bits = [_plural(_n(d.get(k)), one, many) for k, one, many in (
            ("atoms", "new pattern", "new patterns"), ("reinforced", "pattern reinforced", "patterns reinforced"),
            ("beliefs", "belief", "beliefs"), ("superseded", "memory corrected", "memories corrected"),
            ("decayed", "pattern faded", "patterns faded"), ("archived", "pattern archived", "patterns archived"))
            if _n(d.get(k))]
        head = _plural(_n(d.get("scanned")), "memory", "memories") + " looked over"
        return head + (": " + ", ".join(bits) if bits else ", nothing new to generalise")
    if kind == "atom_created":
        if d.get("reinforced"):
            return "seen again" + (f" in {_plural(_n(d.get('added')), 'more memory', 'more memories')}"
                                   if _n(d.get("added")) else "")
        what = _triple(d.get("triple"))
        seen = f"seen in {_plural(_n(d.get('evidence')), 'memory', 'memories')}"
        return f"\u201c{what}\u201d, {seen}" if what else seen
    if kind == "belief_asserted":
        what = _triple(d.get("triple"))
        conf = d.get("confidence")
        return (f"\u201c{what}\u201d" if what else "") + (f" ({float(conf):.0%} sure)" if conf is not None else "")
    if kind == "belief_revised":
        if d.get("withdrawn"):
            return "withdrawn" + (f": {d['reason']}" if d.get("reason") else "")
        try:
            return f"{float(d.get('old')):.0%} \u2192 {float(d.get('new')):.0%}" + (
                f" ({d['reason']})" if d.get("reason") else "")
        except (TypeError, ValueError):
            pass
    if kind == "self_vector_updated":
        return (f"after {d.get('reason')}" if d.get("reason") else "updated") + (
            f", from {_plural(_n(d.get('inputs')), 'new pattern')}" if _n(d.get("inputs")) else "")
    if kind in ("unlearned", "restored"):
        bits = []
        for k, one, many in (("episodes", "memory", "memories"), ("signatures", "index entry", "index entries"),
                             ("episodes_redacted", "memory redacted", "memories redacted"),
                             ("redacted", "memory redacted", "memories redacted"),
                             ("concepts", "concept", "concepts")):
            if _n(d.get(k)):
                bits.append(_plural(_n(d.get(k)), one, many))
        return ", ".join(bits)
    if kind == "recall":
        return _plural(_n(d.get("matches")), "match", "matches")
    if kind == "signatures_compacted":
        return _plural(_n(d.get("dropped")), "unused index entry", "unused index entries") + " dropped"
    # Anything else: its keys in words, lists as counts, no nested structures.
    parts = []
    for k, v in list(d.items())[:4]:
        if isinstance(v, dict) or k in ("row", "by", "parent"):
            continue
        val = str(_n(v)) if isinstance(v, (list, tuple, set)) else str(v)
        if len(val) > 60:
            val = val[:60] + "\u2026"
        parts.append(f"{k.replace('_', ' ')}: {val}")
    return "; ".join(parts)


class MemoryWidget(QWidget):
    """What Kith learned since a date, what it believes, and the goals it keeps in mind.

    Signals:
        loaded(object): the dict from :func:`load_memory`.
        failed(str): a message.
    """

    loaded = Signal(object)
    failed = Signal(str)

    def __init__(self, container, worker: Worker, parent: QWidget | None = None):
        super().__init__(parent)
        self._container = container
        self._worker = worker
        self._gen = 0
        self._stale = True
        self.data: dict | None = None
        self.setStyleSheet("QLabel#sectionTitle { font-weight: bold; font-size: 14px; color: #111827; }")

        lay = QVBoxLayout(self)
        lay.setContentsMargins(18, 14, 18, 12)
        lay.setSpacing(8)
        lay.addWidget(header("Memory", "What Kith has learned from your archives and chats, what it has come to "
                                       "believe, and the goals it keeps in mind when it recalls."))
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Learned since:"))
        self.since_edit = QDateEdit()
        self.since_edit.setCalendarPopup(True)
        self.since_edit.setDisplayFormat("d MMM yyyy")
        self.since_edit.setDate(QDate.currentDate().addDays(-30))
        self.since_edit.dateChanged.connect(lambda _d: self.refresh())
        self.all_button = QPushButton("All time")
        self.all_button.clicked.connect(lambda: self.since_edit.setDate(QDate(2000, 1, 1)))
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        bar.addWidget(self.since_edit)
        bar.addWidget(self.all_button)
        bar.addStretch(1)
        bar.addWidget(self.refresh_button)
        lay.addLayout(bar)

        split = QSplitter(Qt.Orientation.Vertical)
        split.setChildrenCollapsible(False)
        self.events = QTreeWidget()
        self.events.setHeaderLabels(["When", "What", "About", "Details"])
        self.events.setAlternatingRowColors(True)
        self.events.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        h = self.events.header()
        h.setStretchLastSection(True)
        self.events.setColumnWidth(0, 190)
        self.events.setColumnWidth(1, 220)
        self.events.setColumnWidth(2, 200)
        ev, self.events_title = section("What Kith learned", self.events, top_margin=0)
        split.addWidget(ev)

        lower = QSplitter(Qt.Orientation.Horizontal)
        lower.setChildrenCollapsible(False)
        self.beliefs = self._table(["Belief", "Confidence", "Evidence"])
        lower.addWidget(section("Beliefs", self.beliefs)[0])
        self.goals = self._table(["Goal", "State", "Deadline"])
        lower.addWidget(section("Goals", self.goals)[0])
        # "(last minute)" is in the section title: the column header "Just perceived (last minute)" was cut to
        # "Just perceived (" at 800 px (and "Just perceived" still is at the 760 px minimum).
        self.perceived = self._table(["Perceived", "Surprise", "Kept"])
        self.perceived.setToolTip("Kith's sensory memory: what it took in during the last minute, how surprising "
                                  "it was against what it believes, and whether it became a memory.")
        lower.addWidget(section("Sensory buffer (last minute)", self.perceived)[0])
        split.addWidget(lower)
        split.setSizes([330, 220])
        lay.addWidget(split, 1)

        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)

    @staticmethod
    def _table(labels: list[str]) -> QTreeWidget:
        t = QTreeWidget()
        t.setHeaderLabels(labels)
        t.setRootIsDecorated(False)
        t.setAlternatingRowColors(True)
        h = t.header()
        h.setStretchLastSection(False)
        h.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for c in range(1, len(labels)):
            h.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        return t

    # -- loading ------------------------------------------------------------------------
    def since(self) -> datetime:
        """The chosen start date (local midnight, as UTC)."""
        d = self.since_edit.date()
        return datetime.combine(datetime(d.year(), d.month(), d.day()).date(), time()).astimezone(timezone.utc)

    def mark_stale(self) -> None:
        """Something new was ingested: reload when the tab is shown next (or now, if it is visible)."""
        self._stale = True
        if self.isVisible():
            self.refresh()

    def refresh_if_stale(self) -> None:
        if self._stale:
            self.refresh()

    def refresh(self) -> Job:
        """Reload all three sections on the worker."""
        self._stale = False
        self._gen += 1
        gen = self._gen
        self.status.setText("Loading\u2026")
        job = self._worker.call(load_memory, self._container, self.since(), name="memory")
        job.finished.connect(lambda d, g=gen: self._on_loaded(g, d))
        job.failed.connect(lambda m, g=gen: self._on_failed(g, m))
        return job

    def _on_failed(self, gen: int, message: str) -> None:
        if gen == self._gen:
            self.status.setText(f"Could not read memory: {message}")
            self.failed.emit(message)

    def _on_loaded(self, gen: int, data: dict) -> None:
        if gen != self._gen:
            return
        self.data = data
        errors = data.get("errors") or {}
        self._show_events(data.get("events"), errors.get("events"))
        self._show_beliefs(data.get("beliefs"), errors.get("beliefs"))
        self._show_goals(data.get("goals"), errors.get("goals"))
        self._show_perceived(data.get("perceived"), errors.get("perceived"))
        missing = [k for k in ("events", "beliefs", "goals", "perceived") if data.get(k) is None and k not in errors]
        self.status.setText(("Some parts of memory are not available yet in this version: " + ", ".join(missing) + ".")
                            if missing else "")
        self.loaded.emit(data)

    @staticmethod
    def _note(tree: QTreeWidget, text: str) -> None:
        """A grey line across ``tree`` saying why it is empty (or what went wrong), broken into lines that fit
        the tree's width (42 characters before it is shown: a third of the window), never cut off with "…"
        mid-sentence; its whole text is the tooltip."""
        short = text.strip().splitlines()[0] if text.strip() else text
        short = short if len(short) <= 160 else short[:159] + "\u2026"
        per_char = max(1, tree.fontMetrics().averageCharWidth())
        width = max(30, (tree.viewport().width() - 12) // per_char) if tree.isVisible() else 42
        item = QTreeWidgetItem(["\n".join(textwrap.wrap(short, width)) or short]
                               + [""] * (tree.columnCount() - 1))
        item.setToolTip(0, text)
        item.setForeground(0, Qt.GlobalColor.gray)
        tree.addTopLevelItem(item)
        item.setFirstColumnSpanned(True)

    def _show_events(self, events: list[dict] | None, error: str | None) -> None:
        self.events.clear()
        if error:
            self._note(self.events, f"Could not read learning events: {error}")
            return
        if events is None:
            self.events_title.setText("What Kith learned")
            self._note(self.events, f"The learning log is {NOT_YET}.")
            return
        self.events_title.setText(f"What Kith learned ({len(events)} event{'s' if len(events) != 1 else ''})")
        if not events:
            self._note(self.events, "Nothing learned since then. Pick an earlier date, or add files in the Inbox.")
            return
        # Group runs of the same kind on the same day (ingest stores hundreds of episodes at once).
        groups: list[tuple[str, str, list[dict]]] = []
        for e in events:
            day = (e.get("at") or "")[:10]
            if groups and groups[-1][0] == day and groups[-1][1] == e["kind"]:
                groups[-1][2].append(e)
            else:
                groups.append((day, e["kind"], [e]))
        for day, kind, items in reversed(groups):  # newest first
            label = KIND_LABELS.get(kind, kind.replace("_", " "))
            first = items[-1]
            if len(items) == 1:
                parent = self._event_item(first, kind, label)
            else:
                noun = "memories" if kind == "episode_stored" else "events"
                parent = QTreeWidgetItem([format_when(first.get("at"), "\u2014"), f"{label} {len(items)} {noun}",
                                          "", ""])
                for e in reversed(items[-200:]):
                    parent.addChild(self._event_item(e, kind, label))
            parent.setToolTip(1, kind)
            self.events.addTopLevelItem(parent)

    @staticmethod
    def _event_item(e: dict, kind: str, label: str) -> QTreeWidgetItem:
        """One learning event's row: when, what, about (in words) and its detail in words; the raw target and
        detail are the row's tooltip, for the curious."""
        detail = e.get("detail") or {}
        item = QTreeWidgetItem([format_when(e.get("at"), "\u2014"), label,
                                _about_text(kind, e.get("target", ""), detail), _detail_text(detail, kind)])
        raw = "; ".join(f"{k}: {v}" for k, v in detail.items())
        item.setToolTip(3, (e.get("target", "") + (" \u2014 " if raw and e.get("target") else "") + raw)[:500])
        return item

    def _show_beliefs(self, beliefs: list[dict] | None, error: str | None) -> None:
        self.beliefs.clear()
        if error:
            self._note(self.beliefs, f"Could not read beliefs: {error}")
        elif beliefs is None:
            self._note(self.beliefs, f"Beliefs are {NOT_YET}.")
        elif not beliefs:
            self._note(self.beliefs, "No beliefs yet: they form as Kith consolidates what it remembers.")
        else:
            for b in sorted(beliefs, key=lambda b: (not b["current"], -b["confidence"])):
                item = QTreeWidgetItem([b["statement"], f"{b['confidence']:.0%}", str(b["evidence"])])
                item.setToolTip(0, b["statement"])
                if not b["current"]:
                    f = item.font(0)
                    f.setStrikeOut(True)
                    item.setFont(0, f)
                    for c in range(3):
                        item.setForeground(c, Qt.GlobalColor.gray)
                self.beliefs.addTopLevelItem(item)

    def _show_goals(self, goals: list[dict] | None, error: str | None) -> None:
        self.goals.clear()
        if error:
            self._note(self.goals, f"Could not read goals: {error}")
        elif goals is None:
            self._note(self.goals, f"Goals are {NOT_YET}.")
        elif not goals:
            self._note(self.goals, "No goals yet.")
        else:
            for g in goals:
                item = QTreeWidgetItem([g["title"], g["state"], format_when(g["deadline"], "\u2014")[:11]])
                if g["criteria"]:
                    item.setToolTip(0, f"Done when: {g['criteria']}")
                self.goals.addTopLevelItem(item)

    def _show_perceived(self, frames: list[dict] | None, error: str | None) -> None:
        self.perceived.clear()
        if error:
            self._note(self.perceived, f"Could not read the sensory buffer: {error}")
        elif frames is None:
            self._note(self.perceived, f"The sensory buffer is {NOT_YET}.")
        elif not frames:
            self._note(self.perceived, "Nothing in the last minute: imports and chat turns pass through here.")
        else:
            for f in frames[:200]:
                text = " ".join(f["text"].split())
                item = QTreeWidgetItem([text if len(text) <= 120 else text[:119] + "\u2026", f"{f['surprise']:.2f}",
                                        "yes" if f["promoted"] else "no"])
                item.setToolTip(0, f"{format_when(f.get('at'), '')}\n{f['text']}")
                self.perceived.addTopLevelItem(item)

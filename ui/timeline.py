"""The Timeline tab: a life — or one person's — over time, zoomable from decades to a day.

Lanes, top to bottom: messages (mail and chats), photos, memos and other records,
trips and outings (photo clusters, start to end), and facts as spans from when they
became true to when they ended (superseded ones greyed, ending where the newer fact
begins; current ones run to today).  The wheel or a drag zooms and pans time; the
buttons jump to a decade, a year, a month or a day.  Clicking a point opens its
source beside the picture.  Data: :func:`app.operations.pictures.timeline` on the worker.
"""
from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QSplitter, QVBoxLayout, QWidget

from ui import header
from ui.source_view import SourcePanel
from ui.theme import plot_colours
from ui.worker import Job, Worker

DAY = 86_400.0
LANES = {"message": 5.0, "photo": 4.0, "other": 3.0, "event": 2.0, "fact": 1.0}
LANE_NAMES = {5.0: "Messages", 4.0: "Photos", 3.0: "Memos & other", 2.0: "Trips", 1.0: "Facts"}
ZOOMS = (("All", None), ("10 years", 3652 * DAY), ("Year", 365 * DAY), ("Month", 31 * DAY), ("Day", DAY))
FACT_ROW = 0.16  # vertical spacing of stacked fact spans


def _load(container, entity_id):
    from app.operations.pictures import timeline

    return timeline(container, entity_id)


def lane_of(kind: str) -> str:
    """Which lane a record kind goes in: message (email, chat, sms…), photo (photos and videos), or other (voice
    memos…)."""
    if kind in ("photo", "video"):
        return "photo"
    if kind in ("voice", "memo", "transcript"):
        return "other"
    return "message"


def pack_rows(spans: list[tuple[float, float]]) -> list[int]:
    """Greedy interval packing: a row index per (start, end) so spans in one row do not overlap."""
    ends: list[float] = []
    rows = []
    for start, end in spans:
        for i, e in enumerate(ends):
            if start > e:
                ends[i] = end
                rows.append(i)
                break
        else:
            ends.append(end)
            rows.append(len(ends) - 1)
    return rows


class TimelinePlot(pg.PlotWidget):
    """The picture itself.  ``pointClicked(str, int)``: ("record" | "fact" | "event", id)."""

    pointClicked = Signal(str, int)

    def __init__(self, parent=None):
        super().__init__(parent=parent, axisItems={"bottom": pg.DateAxisItem()})
        self._scheme = "light"
        self.data = None
        self.record_scatters: dict[str, pg.ScatterPlotItem] = {}
        self.fact_items: dict[str, pg.PlotDataItem] = {}
        self.fact_starts: pg.ScatterPlotItem | None = None
        self.event_items: list = []
        self.now = time.time()
        self.setMenuEnabled(False)
        self.getPlotItem().hideButtons()
        self.setMouseEnabled(x=True, y=False)
        self.showGrid(x=True, y=False, alpha=0.25)
        self._style()

    def _style(self) -> None:
        c = plot_colours(self._scheme)
        self.setBackground(c["bg"])
        for name in ("left", "bottom"):
            ax = self.getPlotItem().getAxis(name)
            ax.setPen(pg.mkPen(c["muted"]))
            ax.setTextPen(pg.mkPen(c["fg"]))

    def set_scheme(self, scheme: str) -> None:
        self._scheme = scheme
        self._style()
        if self.data is not None:
            self.set_data(self.data, keep_range=True)

    def set_data(self, data, keep_range: bool = False) -> None:
        """Draw a :class:`app.operations.pictures.TimelineData`."""
        rng = self.getViewBox().viewRange()[0] if keep_range else None
        self.data = data
        self.clear()
        self.record_scatters, self.fact_items, self.event_items = {}, {}, []
        c = plot_colours(self._scheme)
        colours = {"message": c["accent"], "photo": c["accent3"], "other": c["accent4"]}
        by_lane: dict[str, list] = {"message": [], "photo": [], "other": []}
        for r in data.records:
            by_lane[lane_of(r.kind)].append(r)
        rng_jitter = np.random.default_rng(3)
        for lane, recs in by_lane.items():
            if not recs:
                continue
            xs = np.asarray([r.at for r in recs])
            ys = LANES[lane] + rng_jitter.uniform(-0.28, 0.28, len(recs))
            sc = pg.ScatterPlotItem(x=xs, y=ys, data=[r.id for r in recs], size=8, hoverable=True,
                                    brush=pg.mkBrush(colours[lane]), pen=pg.mkPen(c["bg"], width=0.5),
                                    tip=lambda x, y, data, _recs={r.id: r for r in recs}:
                                    f"{_recs[data].title}\n{time.strftime('%d %b %Y %H:%M', time.localtime(x))}")
            sc.sigClicked.connect(lambda _item, pts, _ev: pts and self.pointClicked.emit("record", int(pts[0].data())))
            self.addItem(sc)
            self.record_scatters[lane] = sc
        # Trips and outings: spans on their lane, a clickable dot at the start.
        if data.events:
            segs = np.asarray([[e.start, e.end] for e in data.events]).ravel()
            ys = np.full(len(segs), LANES["event"])
            item = pg.PlotDataItem(segs, ys, connect="pairs", pen=pg.mkPen(c["accent2"], width=7))
            self.addItem(item)
            starts = pg.ScatterPlotItem(x=[e.start for e in data.events], y=[LANES["event"]] * len(data.events),
                                        data=[e.id for e in data.events], size=11, symbol="t1",
                                        brush=pg.mkBrush(c["accent2"]), pen=pg.mkPen(c["bg"]), hoverable=True,
                                        tip=lambda x, y, data, _n={e.id: e.name for e in data.events}: _n[data])
            starts.sigClicked.connect(lambda _i, pts, _ev: pts and self.pointClicked.emit("event", int(pts[0].data())))
            self.addItem(starts)
            self.event_items = [item, starts]
        # Facts: spans packed in rows under the Facts lane.
        end_default = max(self.now, data.span()[1] if data.span() else self.now)
        facts = [f for f in data.facts if not f.bookkeeping]  # addresses and who-wrote-to-whom: on the profiles
        spans = [(f.start, f.end if f.end is not None else end_default) for f in facts]
        rows = pack_rows(spans)
        for group, col in (("current", c["accent"]), ("superseded", c["muted"])):
            xs, ys = [], []
            for f, (a, b), row in zip(facts, spans, rows):
                if (group == "superseded") != f.superseded:
                    continue
                xs += [a, max(b, a + DAY / 4)]
                y = LANES["fact"] - row * FACT_ROW
                ys += [y, y]
            if xs:
                item = pg.PlotDataItem(np.asarray(xs), np.asarray(ys), connect="pairs",
                                       pen=pg.mkPen(col, width=4, style=Qt.PenStyle.SolidLine))
                self.addItem(item)
                self.fact_items[group] = item
        if facts:
            self.fact_starts = pg.ScatterPlotItem(
                x=[a for a, _b in spans], y=[LANES["fact"] - r * FACT_ROW for r in rows], data=[f.id for f in facts],
                size=7, brush=[pg.mkBrush(c["muted"] if f.superseded else c["accent"]) for f in facts],
                pen=pg.mkPen(c["bg"]), hoverable=True,
                tip=lambda x, y, data, _s={f.id: f.statement for f in facts}: _s[data])
            self.fact_starts.sigClicked.connect(
                lambda _i, pts, _ev: pts and self.pointClicked.emit("fact", int(pts[0].data())))
            self.addItem(self.fact_starts)
        lowest = LANES["fact"] - (max(rows) if rows else 0) * FACT_ROW
        self.getPlotItem().getAxis("left").setTicks([[(y, n) for y, n in LANE_NAMES.items()]])
        self.setYRange(lowest - 0.4, LANES["message"] + 0.5, padding=0)
        span = data.span()
        if span:
            lo, hi = span[0], max(span[1], span[0] + DAY)
            pad = max((hi - lo) * 0.03, DAY)
            self.getViewBox().setLimits(xMin=lo - 20 * pad, xMax=hi + 20 * pad, minXRange=6 * 3600.0,
                                        maxXRange=max(hi - lo + 40 * pad, 3652 * DAY))
            if rng is not None:
                self.setXRange(*rng, padding=0)
            else:
                self.setXRange(lo - pad, hi + pad, padding=0)
        else:  # nothing dated yet: the past year, so the date axis reads dates (not seconds after 1970)
            self.setXRange(self.now - 365 * DAY, self.now, padding=0)

    def zoom_to(self, width_s: float | None) -> None:
        """Show ``width_s`` seconds around the centre of the current view (None: everything)."""
        if self.data is None or self.data.span() is None:
            return
        lo, hi = self.data.span()
        if width_s is None:
            pad = max((hi - lo) * 0.03, DAY)
            self.setXRange(lo - pad, hi + pad, padding=0)
            return
        a, b = self.getViewBox().viewRange()[0]
        mid = (a + b) / 2
        self.setXRange(mid - width_s / 2, mid + width_s / 2, padding=0)

    def record_points(self) -> int:
        """How many record points are drawn (for tests)."""
        return sum(len(s.data) for s in self.record_scatters.values())

    def fact_spans(self) -> dict[str, int]:
        """How many fact spans are drawn per group, current and superseded (for tests)."""
        return {k: len(v.xData) // 2 for k, v in self.fact_items.items()}


class TimelineWidget(QWidget):
    """The Timeline tab: whose life (everyone, or one person), zoom buttons, the picture and a source panel.

    Signals:
        loaded(object): the :class:`TimelineData` after each load.
    """

    loaded = Signal(object)

    def __init__(self, container, worker: Worker, parent: QWidget | None = None):
        super().__init__(parent)
        self._c, self._w = container, worker
        self._gen = 0
        self.entity_id: int | None = None
        self.data = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(18, 14, 18, 12)
        lay.setSpacing(8)
        lay.addWidget(header("Timeline", "Your life in your archives: messages, photos, trips and what was true "
                                         "when. Scroll to zoom from decades to a day; click a point for its source."))
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Whose:"))
        self.whose = QComboBox()
        self.whose.addItem("Everyone", None)
        self.whose.currentIndexChanged.connect(lambda _i: self.load(self.whose.currentData()))
        bar.addWidget(self.whose)
        bar.addStretch(1)
        self.zoom_buttons = []
        for label, width in ZOOMS:
            b = QPushButton(label)
            b.clicked.connect(lambda _=False, w=width: self.plot.zoom_to(w))
            bar.addWidget(b)
            self.zoom_buttons.append(b)
        lay.addLayout(bar)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.plot = TimelinePlot()
        self.plot.pointClicked.connect(self.open_point)
        self.source = SourcePanel(container, worker)
        split.addWidget(self.plot)
        split.addWidget(self.source)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        split.setSizes([800, 280])
        lay.addWidget(split, 1)
        self.status = QLabel("")
        self.status.setObjectName("muted")
        lay.addWidget(self.status)

    def set_people(self, rows) -> None:
        """Fill the Whose combo from the entity list (people only, most records first)."""
        current = self.whose.currentData()
        self.whose.blockSignals(True)
        self.whose.clear()
        self.whose.addItem("Everyone", None)
        for r in rows:
            if r.kind == "person" and r.records:
                self.whose.addItem(r.name, r.id)
        i = self.whose.findData(current)
        self.whose.setCurrentIndex(max(i, 0))
        self.whose.blockSignals(False)

    def load(self, entity_id: int | None = None) -> Job:
        """Load the timeline of ``entity_id`` (None: everyone) on the worker; the newest load wins."""
        self._gen += 1
        gen = self._gen
        self.entity_id = entity_id
        self.status.setText("Loading\u2026")
        job = self._w.call(_load, self._c, entity_id, name="timeline")
        job.finished.connect(lambda d, g=gen: self._on_loaded(g, d))
        job.failed.connect(lambda m, g=gen: g == self._gen and self.status.setText(f"Could not load: {m}"))
        return job

    def _on_loaded(self, gen: int, data) -> None:
        if gen != self._gen:
            return
        self.data = data
        self.plot.set_data(data)
        n = len(data.records)
        drawn = [f for f in data.facts if not f.bookkeeping]
        ended = sum(f.superseded for f in drawn)
        text = (f"{n} dated record{'s' if n != 1 else ''}, {len(drawn)} fact{'s' if len(drawn) != 1 else ''}"
                f" ({ended} superseded), {len(data.events)} trip{'s' if len(data.events) != 1 else ''} or outing"
                f"{'s' if len(data.events) != 1 else ''}")
        if len(drawn) < len(data.facts):
            left = len(data.facts) - len(drawn)
            text += f" ({left} address and correspondence fact{'s' if left != 1 else ''} are on the profiles)"
        if data.undated_records:
            text += f"; {data.undated_records} without a date are not shown"
        self.status.setText(text if n or data.facts else "Nothing dated yet \u2014 import something in the Inbox.")
        self.loaded.emit(data)

    def open_point(self, what: str, ident: int) -> None:
        """Show the source of a clicked point: a record's text or photo, a fact's statement, an event."""
        if what == "record":
            self.source.show_record(ident)
        elif what == "fact" and self.data is not None:
            f = next((f for f in self.data.facts if f.id == ident), None)
            if f is not None:
                state = "superseded" if f.superseded else "current"
                self.source.show_note(f"Fact ({state})", f.statement)
        elif what == "event" and self.data is not None:
            e = next((e for e in self.data.events if e.id == ident), None)
            if e is not None:
                days = max(1, round((e.end - e.start) / DAY))
                self.source.show_note(e.name, f"{e.photos} photos over {days} day{'s' if days != 1 else ''}.")

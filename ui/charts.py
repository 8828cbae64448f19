"""The per-person pictures on a profile page, drawn with pyqtgraph (offline, no hand painting).

- :class:`ReplyTimeChart` — how fast they answer: replies per latency band (seed 000's
  replied_fast is < 120 s; a reply later than 24 h is a silence);
- :class:`ActivityHeatmap` — when they write: 7 days × 24 hours from the personalization ledger;
- :class:`ConfidenceChart` — each observation's confidence over time (seed 000: 1.0 at creation,
  30-day half-life, reinforced back towards 1.0), with the line below which it is forgotten;
- :class:`TopicsChart` — hot topics (decayed topic_engaged score) to the right, cold ones
  (times dropped) to the left.

Each takes the matching part of :class:`app.operations.pictures.PersonPictures`; ``set_scheme``
recolours for light or dark.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont

from ui.theme import plot_colours

pg.setConfigOptions(antialias=True)

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


class Chart(pg.PlotWidget):
    """A PlotWidget with Kith's look: no menu, a light or dark background, thin axes, optional title."""

    def __init__(self, title: str = "", parent=None, height: int = 150):
        super().__init__(parent=parent)
        self._scheme = "light"
        self._title = title
        self.setMinimumHeight(height)
        self.setMenuEnabled(False)
        self.getPlotItem().hideButtons()
        self.setMouseEnabled(x=False, y=False)
        self._style()

    def colours(self) -> dict[str, str]:
        return plot_colours(self._scheme)

    def _style(self) -> None:
        c = self.colours()
        self.setBackground(c["bg"])
        for name in ("left", "bottom"):
            ax = self.getPlotItem().getAxis(name)
            ax.setPen(pg.mkPen(c["muted"]))
            ax.setTextPen(pg.mkPen(c["fg"]))
        if self._title:
            self.getPlotItem().setTitle(self._title, color=c["fg"], size="10pt")

    def set_scheme(self, scheme: str) -> None:
        """Recolour for ``"light"`` or ``"dark"`` and redraw."""
        self._scheme = scheme
        self._style()
        self.redraw()

    def redraw(self) -> None:  # overridden
        pass


class ReplyTimeChart(Chart):
    """Replies per latency band (bars)."""

    def __init__(self, parent=None):
        super().__init__("How fast they reply", parent)
        self.counts: list[int] = []
        self.labels: list[str] = []
        self.bars: pg.BarGraphItem | None = None

    def set_data(self, counts: list[int], labels: list[str]) -> None:
        """``counts[i]`` replies in band ``labels[i]``."""
        self.counts, self.labels = list(counts), list(labels)
        self.redraw()

    def redraw(self) -> None:
        self.clear()
        c = self.colours()
        x = np.arange(len(self.counts))
        self.bars = pg.BarGraphItem(x=x, height=np.asarray(self.counts, dtype=float), width=0.7,
                                    brush=c["accent"], pen=pg.mkPen(None))
        self.addItem(self.bars)
        self.getPlotItem().getAxis("bottom").setTicks([list(zip(x.tolist(), self.labels))])
        self.setXRange(-0.6, max(len(self.counts), 1) - 0.4, padding=0)
        self.setYRange(0, max(self.counts + [1]) * 1.15, padding=0)

    def bar_heights(self) -> list[float]:
        """The drawn bars' heights (for tests)."""
        return [] if self.bars is None else [float(h) for h in self.bars.opts["height"]]


class ActivityHeatmap(Chart):
    """A 7 × 24 image (Monday at the top, hour 0 at the left), white → blue by message count."""

    def __init__(self, parent=None):
        super().__init__("When they write", parent, height=150)
        self.grid = np.zeros((7, 24), dtype=float)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.getPlotItem().invertY(True)
        self.getPlotItem().setAspectLocked(False)

    def set_data(self, heatmap: list[list[int]] | None) -> None:
        """``heatmap[day][hour]`` counts (7 × 24, Monday first); None clears."""
        g = np.zeros((7, 24), dtype=float)
        for d, row in enumerate((heatmap or [])[:7]):
            vals = np.asarray(list(row)[:24], dtype=float)
            g[d, :len(vals)] = vals
        self.grid = g
        self.redraw()

    def total(self) -> int:
        return int(self.grid.sum())

    def redraw(self) -> None:
        self.clear()
        c = self.colours()
        cmap = pg.ColorMap([0.0, 1.0], [QColor(c["grid"]), QColor(c["accent"])])
        peak = float(self.grid.max()) or 1.0
        self.image = pg.ImageItem(np.power(self.grid / peak, 0.6), axisOrder="row-major")
        self.image.setLookupTable(cmap.getLookupTable(nPts=256))
        self.image.setLevels((0.0, 1.0))
        self.image.setRect(QRectF(0, 0, 24, 7))
        self.addItem(self.image)
        self.getPlotItem().getAxis("left").setTicks([[(d + 0.5, DAYS[d]) for d in range(7)]])
        self.getPlotItem().getAxis("bottom").setTicks([[(h + 0.5, f"{h:02d}") for h in range(0, 24, 3)]])
        self.setXRange(0, 24, padding=0.01)
        self.setYRange(0, 7, padding=0.02)

    def image_grid(self) -> np.ndarray:
        """The counts as drawn, (7, 24) (for tests)."""
        return self.grid.copy()


class ConfidenceChart(Chart):
    """Each observation's confidence over time, and the retrieval threshold (a dashed line)."""

    def __init__(self, parent=None):
        super().__init__("How sure Kith is of what it noticed", parent, height=150)
        self.setAxisItems({"bottom": pg.DateAxisItem()})
        self._style()
        self.curves_data: list = []
        self.threshold = 0.1
        self.curve_items: list[pg.PlotDataItem] = []

    def set_data(self, curves: list, threshold: float) -> None:
        """``curves``: :class:`app.operations.pictures.ObservationCurve` list; ``threshold`` 0–1."""
        self.curves_data, self.threshold = list(curves), threshold
        self.redraw()

    def redraw(self) -> None:
        self.clear()
        c = self.colours()
        palette = [c["accent"], c["accent2"], c["accent3"], c["accent4"], c["hot"], c["cold"]]
        self.curve_items = []
        for i, cv in enumerate(self.curves_data):
            col = palette[i % len(palette)]
            item = pg.PlotDataItem(np.asarray(cv.times), np.asarray(cv.confidence), pen=pg.mkPen(col, width=2))
            item.setToolTip(cv.text)
            self.addItem(item)
            self.curve_items.append(item)
            marks = pg.ScatterPlotItem(x=np.asarray(cv.reinforced_at),
                                       y=np.interp(cv.reinforced_at, cv.times, cv.confidence), size=7,
                                       brush=pg.mkBrush(col), pen=pg.mkPen(c["bg"]))
            self.addItem(marks)
        line = pg.InfiniteLine(pos=self.threshold, angle=0,
                               pen=pg.mkPen(c["muted"], width=1, style=Qt.PenStyle.DashLine),
                               label="forgotten below", labelOpts={"color": c["muted"], "position": 0.15})
        self.addItem(line)
        self.setYRange(0, 1.05, padding=0)
        if not self.curves_data:
            t = pg.TextItem("Nothing noticed yet: observations come from chats with Kith", color=c["muted"],
                            anchor=(0.5, 0.5))
            self.addItem(t)
            import time

            now = time.time()
            t.setPos(now - 15 * 86400, 0.55)
            self.setXRange(now - 30 * 86400, now, padding=0)
        if self.curves_data:
            t0 = min(cv.times[0] for cv in self.curves_data)
            t1 = max(cv.times[-1] for cv in self.curves_data)
            self.setXRange(t0, t1, padding=0.02)


class TopicsChart(Chart):
    """Hot topics as bars to the right (score), cold ones to the left (times dropped), one row each."""

    def __init__(self, parent=None):
        super().__init__("Hot and cold topics", parent, height=150)
        self.hot: list[dict] = []
        self.cold: list[dict] = []
        self.rows: list[tuple[str, float]] = []

    def set_data(self, hot: list[dict], cold: list[dict], limit: int = 6) -> None:
        """``hot``: [{"topic", "score"}], ``cold``: [{"topic", "dropped"}] (as PersonPictures gives them)."""
        self.hot, self.cold = list(hot)[:limit], list(cold)[:limit]
        self.redraw()

    def redraw(self) -> None:
        self.clear()
        c = self.colours()
        top = max([h["score"] for h in self.hot] + [1e-9])
        worst = max([x["dropped"] for x in self.cold] + [1])
        self.rows = [(h["topic"], h["score"] / top) for h in self.hot] + \
                    [(x["topic"], -max(x["dropped"], 1) / worst) for x in self.cold]
        if not self.rows:
            t = pg.TextItem("No hot or cold topics yet", color=c["muted"], anchor=(0.5, 0.5))
            self.addItem(t)
            t.setPos(0, 0)
            self.setXRange(-1, 1)
            self.setYRange(-1, 1)
            return
        y = np.arange(len(self.rows), dtype=float)
        w = np.asarray([v for _t, v in self.rows])
        brushes = [pg.mkBrush(c["hot"] if v > 0 else c["cold"]) for v in w]
        bars = pg.BarGraphItem(x0=np.minimum(w, 0), y=y, height=0.6, width=np.abs(w), brushes=brushes,
                               pen=pg.mkPen(None))
        self.addItem(bars)
        font = QFont()
        font.setPointSizeF(8.5)
        for yi, (topic, v) in zip(y, self.rows):
            label = pg.TextItem(("\u25b2 " if v > 0 else "\u25bd ") + topic, color=c["fg"],
                                anchor=(0, 0.5) if v > 0 else (1, 0.5))
            label.setFont(font)
            label.setPos(v + (0.03 if v > 0 else -0.03), yi)
            self.addItem(label)
        self.getPlotItem().getAxis("left").setTicks([[]])
        self.getPlotItem().getAxis("bottom").setTicks([[(-1, "dropped"), (0, ""), (1, "engaged")]])
        self.getPlotItem().invertY(True)
        self.setXRange(-1.8, 1.8, padding=0)
        self.setYRange(-0.6, max(len(self.rows), 4) - 0.4, padding=0)

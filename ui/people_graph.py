"""The People graph: who writes to whom, the owner at the centre.

Nodes are people, sized by how many records they are in; an edge joins two
people who exchanged messages, its width the weight
``log(1 + count) × (0.25 + 0.75·2^(−age/1 year))`` (more messages, and more recent
ones, draw thicker).  Clicking a person opens their profile.  Data and layout:
:func:`app.operations.pictures.people_graph` on the worker.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from ui import header
from ui.theme import plot_colours
from ui.worker import Job, Worker


def _load(container):
    from app.operations.pictures import people_graph

    return people_graph(container)


def node_size(messages: int) -> float:
    """Node diameter in px: 12 + 4·√records."""
    return 12.0 + 4.0 * math.sqrt(max(messages, 0))


def edge_width(weight: float, top: float) -> float:
    """Edge width in px, 1–8, by weight relative to the heaviest edge."""
    return 1.0 + 7.0 * (weight / top if top > 0 else 0.0)


class GraphPlot(pg.PlotWidget):
    """The drawing.  ``personClicked(int)``: an entity id."""

    personClicked = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent=parent)
        self._scheme = "light"
        self.data = None
        self.graph = pg.GraphItem()
        self.labels: list[pg.TextItem] = []
        self.setMenuEnabled(False)
        self.getPlotItem().hideButtons()
        self.setAspectLocked(True)
        for ax in ("left", "bottom"):
            self.getPlotItem().hideAxis(ax)
        self._style()
        # After the labels have followed the new range (their own handlers run on the same signal).
        self._declutter_timer = QTimer(self)
        self._declutter_timer.setSingleShot(True)
        self._declutter_timer.setInterval(0)
        self._declutter_timer.timeout.connect(self.declutter)
        self.getPlotItem().getViewBox().sigRangeChanged.connect(lambda *_a: self._declutter_timer.start())
        self.getPlotItem().getViewBox().sigResized.connect(lambda *_a: self._declutter_timer.start())

    def _style(self) -> None:
        self.setBackground(plot_colours(self._scheme)["bg"])

    def set_scheme(self, scheme: str) -> None:
        self._scheme = scheme
        self._style()
        if self.data is not None:
            self.set_data(self.data)

    def set_data(self, data) -> None:
        """Draw :class:`app.operations.pictures.GraphData`."""
        self.data = data
        self.clear()
        self.labels = []
        c = plot_colours(self._scheme)
        self.graph = pg.GraphItem()
        self.addItem(self.graph)
        if not data.nodes:
            return
        index = {n.id: i for i, n in enumerate(data.nodes)}
        pos = np.asarray([[n.x, n.y] for n in data.nodes], dtype=float)
        adj = np.asarray([[index[e.source], index[e.target]] for e in data.edges], dtype=int).reshape(-1, 2)
        top = max([e.weight for e in data.edges] + [0.0])
        edge_col = pg.mkColor(c["muted"])
        pens = np.array([(edge_col.red(), edge_col.green(), edge_col.blue(), 200, edge_width(e.weight, top))
                         for e in data.edges],
                        dtype=[("red", np.ubyte), ("green", np.ubyte), ("blue", np.ubyte), ("alpha", np.ubyte),
                               ("width", float)])
        sizes = np.asarray([node_size(n.messages) for n in data.nodes])
        brushes = [pg.mkBrush(c["accent2"] if n.is_owner else c["accent"]) for n in data.nodes]
        self.graph.setData(pos=pos, adj=adj if len(adj) else None, pen=pens if len(adj) else None, size=sizes,
                           symbolBrush=brushes, symbolPen=pg.mkPen(c["bg"], width=1.5), pxMode=True,
                           data=np.asarray([n.id for n in data.nodes]))
        self.graph.scatter.sigClicked.connect(lambda _i, pts, _ev: pts and self.personClicked.emit(int(pts[0].data())))
        self.graph.scatter.opts["hoverable"] = True
        font = QFont()
        font.setPointSizeF(9)
        # Labels in priority order (you, then the people in most records): where two would overlap, the less
        # important one is hidden until you zoom in (hovering a dot names it all the same).
        order = sorted(range(len(data.nodes)), key=lambda i: (not data.nodes[i].is_owner, -data.nodes[i].messages,
                                                              data.nodes[i].name))
        for i in order:
            n = data.nodes[i]
            t = pg.TextItem(("You: " if n.is_owner else "") + n.name, color=c["text"], anchor=(0.5, -0.6))
            t.setFont(font)
            t.setPos(n.x, n.y)
            self.addItem(t)
            self.labels.append(t)
        names = {n.id: n.name for n in data.nodes}
        self.graph.scatter.opts["tip"] = lambda x, y, data: names.get(int(data), "")  # hovering names a dot
        xs, ys = pos[:, 0], pos[:, 1]
        self.setRange(xRange=(xs.min() - 0.3, xs.max() + 0.3), yRange=(ys.min() - 0.3, ys.max() + 0.35), padding=0)
        self.declutter()

    def declutter(self) -> int:
        """Show each label unless it would overlap one shown before it (labels are in priority order); returns
        how many are shown.  Runs again whenever the view is zoomed, panned or resized."""
        shown: list = []
        view = self.getPlotItem().getViewBox().sceneBoundingRect()
        for t in self.labels:
            r = t.sceneBoundingRect().adjusted(-2, -1, 2, 1)
            ok = not any(r.intersects(o) for o in shown)
            if ok and not r.intersects(view):  # out of sight: drawn (clipped), but it hides nothing
                t.setVisible(True)
                continue
            t.setVisible(ok)
            if ok:
                shown.append(r)
        return len(shown)

    def visible_labels(self) -> list[str]:
        """The names whose labels are drawn, in priority order (for tests)."""
        return [t.toPlainText() for t in self.labels if t.isVisible()]

    def edge_widths(self) -> list[float]:
        """Drawn edge widths, in edge order (for tests)."""
        pen = self.graph.pen
        return [] if pen is None or isinstance(pen, str) or not hasattr(pen, "dtype") else [float(w) for w in pen["width"]]


class PeopleGraphWidget(QWidget):
    """The People graph tab.  Signals: ``loaded(object)`` (GraphData), ``openPerson(int)`` (entity id)."""

    loaded = Signal(object)
    openPerson = Signal(int)

    def __init__(self, container, worker: Worker, parent: QWidget | None = None):
        super().__init__(parent)
        self._c, self._w = container, worker
        self._gen = 0
        self.data = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(18, 14, 18, 12)
        lay.setSpacing(8)
        lay.addWidget(header("People graph", "Who writes to whom, you at the centre. Thicker lines: more messages, "
                                             "and more recent ones. Click someone to open their profile."))
        self.plot = GraphPlot()
        self.plot.personClicked.connect(self.openPerson)
        lay.addWidget(self.plot, 1)
        row = QHBoxLayout()
        self.status = QLabel("")
        self.status.setObjectName("muted")
        row.addWidget(self.status, 1)
        lay.addLayout(row)

    def load(self) -> Job:
        """Load the graph on the worker (the newest load wins)."""
        self._gen += 1
        gen = self._gen
        self.status.setText("Loading\u2026")
        job = self._w.call(_load, self._c, name="people graph")
        job.finished.connect(lambda d, g=gen: self._on_loaded(g, d))
        job.failed.connect(lambda m, g=gen: g == self._gen and self.status.setText(f"Could not load: {m}"))
        return job

    def _on_loaded(self, gen: int, data) -> None:
        if gen != self._gen:
            return
        self.data = data
        self.plot.set_data(data)
        shown = sum(1 for n in data.nodes if not n.is_owner)
        more = data.people_total - len(data.nodes)
        text = f"{shown} {'person' if shown == 1 else 'people'}, {len(data.edges)} connection" \
               f"{'s' if len(data.edges) != 1 else ''}" + (f" ({more} more with fewer messages not shown)"
                                                          if more > 0 else "")
        self.status.setText(text if data.nodes else "Nobody yet \u2014 import mail or chats in the Inbox.")
        self.loaded.emit(data)

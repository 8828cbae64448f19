"""Each picture rendered offscreen with known data; the checks read the scene or the rendered image."""
from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor

from app.operations.pictures import (GraphData, GraphEdge, GraphNode, ObservationCurve, PlaceCluster, PlacesData,
                                     TimelineData, TimelineEvent, TimelineFact, TimelineRecord, Trip)
from ui.theme import plot_colours

pytestmark = pytest.mark.gui
DAY = 86400.0
T = 1_600_000_000.0  # 2020-09-13


def _near(a: QColor, hex_colour: str, tol: int = 40) -> bool:
    b = QColor(hex_colour)
    return abs(a.red() - b.red()) + abs(a.green() - b.green()) + abs(a.blue() - b.blue()) <= tol


def _pixel_at(widget, plot_item, x: float, y: float) -> QColor:
    """The rendered colour at data point (x, y) of ``plot_item``'s view."""
    img = widget.grab().toImage()
    scene_pt = plot_item.getViewBox().mapViewToScene(QPointF(x, y))
    p = widget.mapFromScene(scene_pt)
    ratio = img.devicePixelRatio()
    return img.pixelColor(int(p.x() * ratio), int(p.y() * ratio))


def _click(qtbot, widget, plot_item, x: float, y: float) -> None:
    scene_pt = plot_item.getViewBox().mapViewToScene(QPointF(x, y))
    pos = widget.mapFromScene(scene_pt)
    qtbot.mouseClick(widget.viewport(), Qt.MouseButton.LeftButton, pos=pos)


@pytest.fixture
def timeline_data():
    recs = [TimelineRecord(i + 1, kind, T + i * 40 * DAY, f"record {i}") for i, kind in
            enumerate(["email", "chat", "photo", "email", "voice", "photo", "chat"])]
    facts = [TimelineFact(1, "As of 2020, Ann lives in Oslo.", T, T + 100 * DAY, True),
             TimelineFact(2, "As of 2021, Ann lives in Lisbon.", T + 100 * DAY, None, False),
             TimelineFact(3, "As of 2020, Ann works at Initech.", T + 10 * DAY, None, False)]
    events = [TimelineEvent(50, "Trip to Lisbon", T + 120 * DAY, T + 123 * DAY, 6)]
    return TimelineData(None, recs, facts, events)


def test_timeline_draws_one_point_per_dated_record_and_fact_spans(qtbot, timeline_data):
    from ui.timeline import LANES, TimelinePlot

    plot = TimelinePlot()
    qtbot.addWidget(plot)
    plot.resize(900, 420)
    plot.show()
    qtbot.waitExposed(plot)
    plot.set_data(timeline_data)
    assert plot.record_points() == len(timeline_data.records) == 7
    assert {k: len(s.data) for k, s in plot.record_scatters.items()} == {"message": 4, "photo": 2, "other": 1}
    # Superseded facts are drawn as ended spans, in grey; current ones run on.
    assert plot.fact_spans() == {"current": 2, "superseded": 1}
    # addresses and who-wrote-to-whom (one per correspondent, true from the first mail: a solid wall of spans on a
    # real archive) are left out of the picture
    more = [TimelineFact(10 + i, f"As of 2020, Ann writes from ann{i}@example.org.", T, None, False, "identity",
                         "contact") for i in range(3)]
    more.append(TimelineFact(20, "As of 2020, Ann wrote to Bob by email.", T, None, False, "relationships",
                             "correspondence"))
    plot.set_data(TimelineData(None, timeline_data.records, timeline_data.facts + more, timeline_data.events))
    assert plot.fact_spans() == {"current": 2, "superseded": 1}
    plot.set_data(timeline_data)
    grey = plot.fact_items["superseded"]
    assert list(grey.xData) == [T, T + 100 * DAY]
    # The image: a photo point is drawn in the photo colour where it lies.
    sc = plot.record_scatters["photo"]
    x, y = float(sc.data["x"][0]), float(sc.data["y"][0])
    assert _near(_pixel_at(plot, plot.getPlotItem(), x, y), plot_colours("light")["accent3"])
    assert abs(y - LANES["photo"]) < 0.3
    # Zoom: "Day" shows one day around the centre; "All" shows everything again.
    plot.zoom_to(DAY)
    a, b = plot.getViewBox().viewRange()[0]
    assert b - a == pytest.approx(DAY, rel=0.05)
    plot.zoom_to(None)
    a, b = plot.getViewBox().viewRange()[0]
    assert a <= T and b >= T + 240 * DAY


def test_clicking_a_timeline_point_opens_its_source(qtbot, window, tmp_path):
    """The window's Timeline: a real record clicked shows its text in the source panel."""
    from helpers.mboxes import write_mbox

    from ui.timeline import TimelineWidget

    mbox = write_mbox(tmp_path / "t.mbox", [("Ann Lee <ann@example.com>", "Kayak trip", "We kayak at dawn.")])
    with qtbot.waitSignal(window.ingestFinished, timeout=120_000):
        window.inbox.add_paths([mbox])
    window.show_tab("timeline")
    tw: TimelineWidget = window.timeline
    qtbot.waitUntil(lambda: tw.data is not None and bool(tw.data.records), timeout=30_000)
    assert tw.plot.record_points() == len(tw.data.records) == 1
    sc = tw.plot.record_scatters["message"]
    with qtbot.waitSignal(tw.source.shown, timeout=30_000) as shown:
        _click(qtbot, tw.plot, tw.plot.getPlotItem(), float(sc.data["x"][0]), float(sc.data["y"][0]))
    assert shown.args[0].subject == "Kayak trip"
    assert "We kayak at dawn." in tw.source.text.toPlainText() and tw.source.open_button.isEnabled()


def test_map_sizes_clusters_by_photo_count_and_draws_trips(qtbot):
    from ui.places import MapPlot, cluster_size

    outline = [np.array([[-10, 35], [5, 35], [5, 45], [-10, 45], [-10, 35]], dtype=np.float32)]
    data = PlacesData(clusters=[PlaceCluster(1, "Lisbon", 38.72, -9.14, 9), PlaceCluster(2, "Porto", 41.15, -8.61, 1),
                                PlaceCluster(3, "Lyon", 45.76, 4.84, 0, 2, "name")],
                      trips=[Trip(7, "Trip", [(39.6, -7.0), (40.6, -6.5), (40.2, -6.0)])])
    plot = MapPlot()
    qtbot.addWidget(plot)
    plot.resize(700, 500)
    plot.show()
    qtbot.waitExposed(plot)
    plot.set_data(data, outline)
    assert plot.cluster_count() == 3
    assert plot.cluster_sizes() == {1: cluster_size(9), 2: cluster_size(1), 3: cluster_size(0)}
    assert cluster_size(9) == 9 + 7 * 3 and cluster_size(9) > cluster_size(1) > cluster_size(0)
    # The outline is one item, polygons NaN-separated; the trip is its path in time order.
    assert len(plot.coast_item.xData) == 6
    assert len(plot.trip_items) == 1 and list(plot.trip_items[0].yData) == [39.6, 40.6, 40.2]
    # The image: the biggest cluster is filled with the accent colour (alpha 170) over the sea at its centre.
    c = plot_colours("light")
    accent, sea = QColor(c["accent"]), QColor(c["sea"])
    a = 170 / 255
    blend = QColor(*(round(a * x + (1 - a) * y) for x, y in ((accent.red(), sea.red()), (accent.green(), sea.green()),
                                                            (accent.blue(), sea.blue()))))
    assert _near(_pixel_at(plot, plot.getPlotItem(), -9.14, 38.72), blend.name(), 30)
    assert _near(_pixel_at(plot, plot.getPlotItem(), 0.0, 40.0), c["sea"], 10)  # no marker there


def test_map_click_lists_the_places_photos_with_thumbnails(qtbot, window, tmp_path):
    from datetime import datetime, timezone

    from helpers.photos import write_photo

    folder = tmp_path / "pics"
    for i in range(3):
        write_photo(folder / f"p{i}.jpg", datetime(2023, 6, 3, 10 + i, tzinfo=timezone.utc), 38.7118, -9.13)
    write_photo(folder / "p3.heic", datetime(2023, 6, 3, 14, tzinfo=timezone.utc), 38.7118, -9.13)
    with qtbot.waitSignal(window.ingestFinished, timeout=120_000):
        window.inbox.add_paths([folder])
    window.show_tab("people")
    people = window.people
    people.subtabs.setCurrentWidget(people.map)
    qtbot.waitUntil(lambda: people.map.data is not None and bool(people.map.data.clusters), timeout=30_000)
    k = max(people.map.data.clusters, key=lambda k: k.photos)
    assert k.photos == 4  # the HEIC too: libheif's EXIF item, which exifread misses, is read through Pillow
    with qtbot.waitSignal(people.map.photosShown, timeout=30_000) as shown:
        _click(qtbot, people.map.map, people.map.map.getPlotItem(), k.lon, k.lat)
    assert shown.args[0] == 4 and people.map.photos.count() == 4
    icon = people.map.photos.item(0).icon()
    assert not icon.isNull() and icon.pixmap(96, 96).width() == 96


def test_people_graph_sizes_edges_by_weight_and_opens_a_profile(qtbot):
    from ui.people_graph import GraphPlot, edge_width, node_size

    data = GraphData(nodes=[GraphNode(1, "Me", 30, True, 0.0, 0.0), GraphNode(2, "Ann", 20, False, 1.0, 0.0),
                            GraphNode(3, "Bo", 4, False, -0.8, 0.6)],
                     edges=[GraphEdge(1, 2, 20, T, 3.0), GraphEdge(1, 3, 4, T, 1.5)], owner_id=1)
    plot = GraphPlot()
    qtbot.addWidget(plot)
    plot.resize(600, 500)
    plot.show()
    qtbot.waitExposed(plot)
    plot.set_data(data)
    assert len(plot.graph.scatter.data) == 3 and len(plot.labels) == 3
    assert plot.edge_widths() == [8.0, pytest.approx(edge_width(1.5, 3.0))] and edge_width(1.5, 3.0) == 4.5
    assert [float(s) for s in plot.graph.scatter.data["size"]] == [node_size(30), node_size(20), node_size(4)]
    with qtbot.waitSignal(plot.personClicked, timeout=5000) as clicked:
        _click(qtbot, plot, plot.getPlotItem(), 1.0, 0.0)
    assert clicked.args == [2]


def test_profile_charts_show_the_numbers_they_are_given(qtbot):
    from ui.charts import ActivityHeatmap, ConfidenceChart, ReplyTimeChart, TopicsChart

    reply = ReplyTimeChart()
    reply.set_data([4, 1, 0, 2, 1], ["a", "b", "c", "d", "e"])
    assert reply.bar_heights() == [4.0, 1.0, 0.0, 2.0, 1.0]

    heat = ActivityHeatmap()
    qtbot.addWidget(heat)
    heat.resize(500, 220)
    heat.show()
    qtbot.waitExposed(heat)
    grid = [[0] * 24 for _ in range(7)]
    grid[0][9] = 5   # Monday 09:00, the peak
    grid[4][21] = 1  # Friday 21:00
    heat.set_data(grid)
    assert heat.total() == 6 and heat.image_grid()[0, 9] == 5
    c = plot_colours("light")
    peak = _pixel_at(heat, heat.getPlotItem(), 9.5, 0.5)
    empty = _pixel_at(heat, heat.getPlotItem(), 3.5, 3.5)
    assert _near(peak, c["accent"], 30) and _near(empty, c["grid"], 30)

    conf = ConfidenceChart()
    curves = [ObservationCurve(1, "x", "style", [0.0, 30 * DAY, 60 * DAY], [1.0, 0.5, 0.25], [0.0], 60 * DAY),
              ObservationCurve(2, "y", "timing", [0.0, 30 * DAY], [1.0, 0.5], [0.0], 30 * DAY)]
    conf.set_data(curves, 0.1)
    assert len(conf.curve_items) == 2 and list(conf.curve_items[0].yData) == [1.0, 0.5, 0.25]

    topics = TopicsChart()
    topics.set_data([{"topic": "climbing", "score": 2.0}, {"topic": "books", "score": 1.0}],
                    [{"topic": "weather", "dropped": 3}])
    assert topics.rows == [("climbing", 1.0), ("books", 0.5), ("weather", -1.0)]


def test_pictures_recolour_for_dark(qtbot):
    from ui.charts import ReplyTimeChart
    from ui.theme import dark_hex, themed

    chart = ReplyTimeChart()
    qtbot.addWidget(chart)
    chart.set_data([1, 2], ["a", "b"])
    chart.set_scheme("dark")
    assert chart.backgroundBrush().color().name() == plot_colours("dark")["bg"]
    # The light sheet's white becomes a dark background and its near-black text a light one.
    assert QColor(dark_hex("#ffffff")).lightness() < 40 and QColor(dark_hex("#111827")).lightness() > 200
    assert themed("QLabel { color: #111827; }", "dark") == f"QLabel {{ color: {dark_hex('#111827')}; }}"
    assert themed("QLabel { color: #111827; }", "light") == "QLabel { color: #111827; }"
    assert math.isclose(QColor(dark_hex("#2f6fde")).hueF(), QColor("#2f6fde").hueF(), abs_tol=0.02)


def test_an_empty_timeline_shows_the_past_year(qtbot):
    """Nothing dated yet: the date axis spans the year before now (it read 00.250, 00.500 … — seconds after 1970)."""
    from ui.timeline import DAY, TimelinePlot

    plot = TimelinePlot()
    qtbot.addWidget(plot)
    plot.set_data(TimelineData(None))
    lo, hi = plot.getViewBox().viewRange()[0]
    assert hi == pytest.approx(plot.now, abs=DAY) and hi - lo == pytest.approx(365 * DAY, rel=0.01)

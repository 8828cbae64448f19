"""People & Places: the profile page (superseded facts, sources, summary, heatmap), sorting, the merge review
(merge and unmerge), and the Memory tab -- all on data made through app operations (an ingested mbox)."""
from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from ui.profile import Heatmap
from helpers.mboxes import write_mbox as _write_mbox

pytestmark = pytest.mark.gui

OWNER = "Owner Person"
OWNER_ADDR = "owner@example.net"


def write_mbox(path: Path) -> Path:
    """The owner changes jobs (Initech, then Globex a month later); two near-identical Thompsons write in."""
    return _write_mbox(path, [
        (f"{OWNER} <{OWNER_ADDR}>", "Dana <dana@example.com>", "news", "I work at Initech."),
        (f"{OWNER} <{OWNER_ADDR}>", "Dana <dana@example.com>", "more news", "I joined Globex yesterday!"),
        ("Alexander Thompson <a@x.org>", f"{OWNER} <{OWNER_ADDR}>", "hello", "Hi there, lunch?"),
        ("Alex Thompson <b@y.org>", f"{OWNER} <{OWNER_ADDR}>", "hello again", "Lunch on Friday?")],
        step=timedelta(days=30))


@pytest.fixture
def life(kith_container, tmp_path):
    from app.operations.ingest import ingest

    c = kith_container
    c.settings.owner_name = OWNER
    c.settings.owner_emails = [OWNER_ADDR]
    report = ingest(c, [write_mbox(tmp_path / "life.mbox")])
    assert report.records_added == 4 and not report.errors, report
    return c


@pytest.fixture
def win(qtbot, qapp, life):
    from app.models.llm import NoModel
    from ui.main_window import MainWindow

    w = MainWindow(life, model_factory=NoModel)
    qtbot.addWidget(w, before_close_func=lambda x: x.shutdown())
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.people.loaded, timeout=30_000)
    yield w
    assert w.shutdown(60_000)


def not_blank(img: QImage) -> bool:
    colours = {img.pixel(x, y) for x in range(0, img.width(), 4) for y in range(0, img.height(), 4)}
    return not img.isNull() and len(colours) > 20


def test_profile_shows_superseded_fact_sources_and_summary(qtbot, win, tmp_path):
    people = win.people
    win.show_tab("people")
    assert people.select_name(OWNER)
    assert people.open_button.isEnabled()
    with qtbot.waitSignal(people.profile.loaded, timeout=30_000) as blocker:
        qtbot.mouseClick(people.open_button, Qt.MouseButton.LeftButton)
    page = people.profile
    assert people.profile_open and page.isVisibleTo(win)
    prof = blocker.args[0].profile
    assert page.name_label.text() == OWNER and "person" in page.kind_label.text()
    assert OWNER_ADDR in page.aliases_label.text()
    # Current facts: Globex, not Initech.
    shown = page.facts_shown()
    assert any("Globex" in f for f in shown) and not any("Initech" in f for f in shown)
    # The timeline keeps the superseded job, struck through.
    rows = page.timeline_rows()
    initech = [r for r in rows if "Initech" in r[0]]
    globex = [r for r in rows if "Globex" in r[0]]
    assert initech and initech[0][2] and initech[0][1].startswith("superseded")
    assert globex and not globex[0][2] and globex[0][1] == "current"
    assert [r[0] for r in rows].index(initech[0][0]) < [r[0] for r in rows].index(globex[0][0])
    # Sources: the mails, with time and file.
    assert page.sources.topLevelItemCount() == len(prof.sources) >= 2
    first = page.sources.topLevelItem(0)
    assert first.text(2) == "life.mbox" and first.text(0) != "\u2014"
    assert Path(first.data(0, Qt.ItemDataRole.UserRole + 1)).name == "life.mbox"
    # People get the timing heatmap and topics.
    assert page.person_box.isVisibleTo(page)
    assert isinstance(page.heatmap, Heatmap) and page.heatmap.image_grid().shape == (7, 24)
    # Summary: missing or stale, then regenerated.
    assert page.stale_label.text() in ("missing",) or page.stale_label.text().startswith("stale")
    with qtbot.waitSignal(page.summaryRegenerated, timeout=60_000) as regen:
        qtbot.mouseClick(page.regen_button, Qt.MouseButton.LeftButton)
    assert regen.args[0]["written"] >= 1
    qtbot.waitUntil(lambda: page.stale_label.text() == "up to date", timeout=30_000)
    assert "Globex" in page.summary_label.text() or page.summary_label.text().strip()
    path = tmp_path / "profile.png"
    assert win.grab().save(str(path)) and not_blank(QImage(str(path)))
    # Back to the list.
    qtbot.mouseClick(page.back_button, Qt.MouseButton.LeftButton)
    assert not people.profile_open


def test_double_click_opens_a_place_or_thing_without_person_parts(qtbot, win):
    people = win.people
    win.show_tab("people")
    row = next(r for r in range(people.proxy.rowCount()) if people.proxy.index(r, 0).data() == "Globex")
    idx = people.proxy.index(row, 0)
    with qtbot.waitSignal(people.profile.loaded, timeout=30_000):
        people.table.doubleClicked.emit(idx)
    assert people.profile.name_label.text() == "Globex"
    assert not people.profile.person_box.isVisibleTo(people.profile)
    assert not people.profile.write_button.isVisibleTo(people.profile)


def test_sorting_by_name_facts_and_last_seen(qtbot, win):
    people = win.people

    def order(col=0):
        return [people.proxy.index(r, col).data(Qt.ItemDataRole.UserRole + 1) for r in range(people.proxy.rowCount())]

    people.sort_combo.setCurrentText("Name")
    names = [r.name.casefold() for r in order()]
    assert names == sorted(names)
    people.sort_combo.setCurrentText("Most facts")
    facts = [r.facts for r in order()]
    assert facts == sorted(facts, reverse=True)
    people.sort_combo.setCurrentText("Last seen")
    seen = [r.last_seen or "" for r in order()]
    assert seen == sorted(seen, reverse=True)
    people.kind_combo.setCurrentIndex(people.kind_combo.findData("person"))
    assert {r.kind for r in order()} == {"person"}


def test_review_merges_and_unmerges(qtbot, win):
    people = win.people
    review = people.review
    qtbot.waitUntil(lambda: len(review.pending) == 1, timeout=30_000)
    assert people.subtabs.tabText(people.subtabs.indexOf(review)) == "Review (1)"
    item = review.pending[0]
    assert {item.a_name, item.b_name} == {"Alexander Thompson", "Alex Thompson"}
    row = review.pending_tree.topLevelItem(0)
    assert "Alexander Thompson" in row.text(0) and row.text(1) == f"{item.score:.2f}" and "fuzzy" in row.text(2)
    people.show_review()
    buttons = review.buttons(item.id)
    assert set(buttons) == {"Merge", "Not the same"}
    with qtbot.waitSignal(review.changed, timeout=60_000) as blocker:
        qtbot.mouseClick(buttons["Merge"], Qt.MouseButton.LeftButton)
    assert blocker.args[0].status == "merged"
    assert review.pending == [] and [m.id for m in review.merged] == [item.id]
    loser = item.b_name
    qtbot.waitUntil(lambda: loser not in people.model.names(), timeout=30_000)
    assert item.a_name in people.model.names()
    assert people.subtabs.tabText(people.subtabs.indexOf(review)) == "Review"
    with qtbot.waitSignal(review.changed, timeout=60_000) as blocker:
        qtbot.mouseClick(review.buttons(item.id)["Unmerge"], Qt.MouseButton.LeftButton)
    assert blocker.args[0].status == "unmerged"
    assert review.merged == []
    qtbot.waitUntil(lambda: {"Alexander Thompson", "Alex Thompson"} <= set(people.model.names()), timeout=30_000)


def test_memory_tab_loads_or_says_not_available(qtbot, win):
    win.show_tab("memory")
    mem = win.memory
    qtbot.waitUntil(lambda: mem.data is not None, timeout=30_000)
    data = mem.data
    for key, tree in (("events", mem.events), ("beliefs", mem.beliefs), ("goals", mem.goals)):
        assert tree.topLevelItemCount() >= 1, key  # rows, or a line saying why there are none
        if data[key] is None and key not in data["errors"]:
            assert "not available yet" in tree.topLevelItem(0).text(0).replace("\n", " ")
    mem.all_button.click()
    qtbot.waitUntil(lambda: mem.since().year == 2000, timeout=5_000)


def test_memory_tab_shows_the_sensory_buffer(qtbot, win):
    import numpy as np

    from app.memory import service
    from core import hdc

    win.show_tab("memory")
    mem = win.memory
    sig = hdc.hv("lunch on friday")  # an unseen signature: nothing believed yet → surprise 1.0
    service(win.container).perceive(["Lunch on Friday at noon?"], np.stack([sig]))
    mem.refresh()
    qtbot.waitUntil(lambda: mem.data is not None and any(f["text"] == "Lunch on Friday at noon?"
                                                         for f in mem.data["perceived"] or []), timeout=30_000)
    top = mem.perceived.topLevelItem(0)  # newest first
    assert (top.text(0), top.text(1), top.text(2)) == ("Lunch on Friday at noon?", "1.00", "yes")

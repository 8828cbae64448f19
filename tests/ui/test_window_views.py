"""The window as a new user meets it: first run, the demo archive in every view, Ctrl+K, the Inbox's history
of every import (the CLI's too), geometry kept between starts, dark mode, About."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication

pytestmark = pytest.mark.gui


def _window(qtbot, container):
    from app.models.llm import NoModel
    from ui.main_window import MainWindow

    w = MainWindow(container, model_factory=NoModel)
    qtbot.addWidget(w, before_close_func=lambda win: win.shutdown())
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.people.loaded, timeout=30_000)
    return w


def _ctrl_k(widget) -> None:
    for kind in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
        QApplication.sendEvent(widget, QKeyEvent(kind, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier, "k"))


def test_first_run_then_the_demo_fills_every_view(qtbot, container):
    from app.operations.pictures import timeline

    w = _window(qtbot, container)
    # First run: the Inbox with the welcome panel, each export's origin named, the demo one click away.
    qtbot.waitUntil(lambda: w.inbox.first_run, timeout=30_000)
    assert w.tabs.currentWidget() is w.inbox and w.inbox.welcome.isVisible()
    assert [l.text() for l in w.inbox.welcome.source_labels] == [
        "iPhone", "Android", "Gmail (Google Takeout)", "Telegram Desktop", "Photos"]
    assert not w.inbox.history.isVisible()
    reports = []
    w.ingestFinished.connect(reports.append)
    qtbot.mouseClick(w.inbox.welcome.demo_button, Qt.MouseButton.LeftButton)
    # the report, or the import's own error said (a failed import emits no report)
    qtbot.waitUntil(lambda: bool(reports) or "stopped" in w.inbox.summary_label.text(), timeout=180_000)
    assert reports, (w.inbox.summary_label.text(), w.inbox.current_label.text(), getattr(w.inbox._job, "name", None))
    report = reports[0]
    assert report.records_added == 48 and not report.errors
    qtbot.waitUntil(lambda: not w.inbox.first_run and not w.inbox.welcome.isVisible(), timeout=30_000)
    # The Inbox's history: one import of 11 files with what each added.
    [sess] = w.inbox.sessions
    assert len(sess.files) == 11 and sess.added()["people"] == 5
    top = w.inbox.history.topLevelItem(0)
    assert top.text(1) == "48" and "5 new people" in top.text(2)
    # People & Places: the mailing list is listed as a list, not a person; kinds have icons.
    qtbot.waitUntil(lambda: "Maya Lindqvist" in w.people.model.names(), timeout=30_000)
    kinds = {r.name: r.kind for r in w.people.model.rows}
    assert kinds["walkers@lists.example.org"] == "group" and kinds["Maya Lindqvist"] == "person"
    assert kinds["Ruth Okafor"] == "person"  # who wrote through the list (X-Original-From)
    idx = w.people.model.index(0, 0)
    assert not w.people.model.data(idx, Qt.ItemDataRole.DecorationRole).isNull()
    w.people.kind_combo.setCurrentIndex(w.people.kind_combo.findData("person"))
    shown = {w.people.proxy.index(r, 0).data() for r in range(w.people.proxy.rowCount())}
    assert "walkers@lists.example.org" not in shown and "Maya Lindqvist" in shown
    # Timeline: one point per dated record.
    w.show_tab("timeline")
    qtbot.waitUntil(lambda: w.timeline.data is not None and bool(w.timeline.data.records), timeout=30_000)
    expected = timeline(container)
    assert w.timeline.plot.record_points() == len(expected.records) == 48  # the demo's HEIC photo is dated
    assert w.timeline.plot.fact_spans()["superseded"] == sum(f.superseded for f in expected.facts) >= 1
    # Map and graph.
    w.show_tab("people")
    w.people.subtabs.setCurrentWidget(w.people.map)
    qtbot.waitUntil(lambda: w.people.map.data is not None and w.people.graph.data is not None, timeout=30_000)
    assert w.people.map.map.cluster_count() == len(w.people.map.data.clusters) >= 6
    assert len(w.people.map.data.trips) == 2
    names = {n.name for n in w.people.graph.data.nodes}
    assert names == {"Sam Rivera", "Maya Lindqvist", "Priya Raman", "Tomás Ferreira", "Jonas Weber", "Ruth Okafor"}
    # A profile's pictures: Maya's replies and observations.
    with qtbot.waitSignal(w.people.graph.openPerson, timeout=5000):
        maya = next(n for n in w.people.graph.data.nodes if n.name == "Maya Lindqvist")
        w.people.graph.plot.personClicked.emit(maya.id)
    qtbot.waitUntil(lambda: w.people.profile.data is not None and w.people.profile.entity_id == maya.id,
                    timeout=30_000)
    page = w.people.profile
    pics = page.data.pictures
    assert page.reply_chart.bar_heights() == [float(x) for x in pics.reply_counts] and sum(pics.reply_counts) == 7
    assert len(page.confidence_chart.curve_items) == len(pics.curves) >= 3
    # "On the timeline" shows her life only.
    qtbot.mouseClick(page.timeline_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: w.timeline.entity_id == maya.id and w.timeline.data.entity_id == maya.id, timeout=30_000)
    assert w.timeline.plot.record_points() == 16


def test_ctrl_k_searches_from_anywhere_and_opens_the_choice(qtbot, container, tmp_path):
    from helpers.mboxes import write_mbox

    w = _window(qtbot, container)
    mbox = write_mbox(tmp_path / "m.mbox", [("Rosa Diaz <rosa@example.com>", "Kayak plans", "Kayaking at dawn."),
                                            ("Ben Ode <ben@example.com>", "Books", "A novel about rivers.")])
    with qtbot.waitSignal(w.ingestFinished, timeout=120_000):
        w.inbox.add_paths([mbox])
    w.show_tab("chat")
    field = w.chat.findChild(type(w.search.edit))  # the chat's message field: Ctrl+K must not stay there
    field.setFocus()
    _ctrl_k(field)
    assert w.search.isVisible()
    with qtbot.waitSignal(w.search.results, timeout=30_000) as res:
        qtbot.keyClicks(w.search.edit, "ros")
    assert res.args[0][0].title == "Rosa Diaz"
    with qtbot.waitSignal(w.people.profile.loaded, timeout=30_000) as loaded:
        qtbot.keyClick(w.search.edit, Qt.Key.Key_Return)
    assert loaded.args[0].profile.name == "Rosa Diaz" and w.people.profile_open and not w.search.isVisible()
    # A memory opens its source.
    _ctrl_k(w.people)
    w.search.edit.clear()
    with qtbot.waitSignal(w.search.results, timeout=30_000) as res:
        qtbot.keyClicks(w.search.edit, "novel")
    mem = [h for h in res.args[0] if h.kind == "memory"]
    assert [h.title for h in mem] == ["Books"]
    w.search.list.setCurrentRow(res.args[0].index(mem[0]))
    w.search.choose()
    panel = w._source_dialog.panel
    qtbot.waitUntil(lambda: panel.detail is not None, timeout=30_000)
    assert panel.detail.subject == "Books" and "A novel about rivers." in panel.text.toPlainText()


def test_inbox_lists_the_cli_imports_quarantine_and_full_disk_access(qtbot, container, tmp_path, monkeypatch):
    import app.operations.ingest as ingest_mod

    bad = tmp_path / "notes.xyz"
    bad.write_text("what is this")
    chat_db = tmp_path / "Library" / "Messages" / "chat.db"
    chat_db.parent.mkdir(parents=True)
    chat_db.write_bytes(b"SQLite format 3\x00")
    real_hash = ingest_mod._file_hash

    def refused(path):  # what macOS answers an app without Full Disk Access (EPERM on open)
        if path.name == "chat.db":
            raise PermissionError(1, "Operation not permitted")
        return real_hash(path)

    monkeypatch.setattr(ingest_mod, "_file_hash", refused)
    ingest_mod.ingest(container, [str(bad), str(chat_db)])  # what `kith ingest` runs, before the window opens
    w = _window(qtbot, container)
    qtbot.waitUntil(lambda: bool(w.inbox.sessions), timeout=30_000)
    rows = dict(w.inbox.quarantine_rows())
    assert "notes.xyz" in rows and "unsupported" in rows["notes.xyz"]
    assert rows["chat.db"] == "cannot read: Operation not permitted"
    w.show_tab("inbox")
    assert w.inbox.fda_label.isVisible() and "Full Disk Access" in w.inbox.fda_label.text()


def test_geometry_and_tab_are_remembered(qtbot, container, tmp_path):
    from app.operations.ingest import ingest
    from helpers.mboxes import write_mbox

    # Not a first run (that one opens on the Inbox's welcome).
    ingest(container, [str(write_mbox(tmp_path / "m.mbox", [("A B <a@example.com>", "Hi", "Hello.")]))])
    w = _window(qtbot, container)
    w.resize(771, 533)  # within the offscreen screen (800 × 600), above the minimum size
    w.move(40, 30)
    w.show_tab("timeline")
    w.shutdown()
    assert Path(container.settings.home / "window.ini").exists()
    w2 = _window(qtbot, container)
    assert (w2.width(), w2.height()) == (771, 533) != (w2.minimumWidth(), w2.minimumHeight())
    assert w2.tabs.currentWidget() is w2.timeline


def test_dark_palette_and_about(qtbot, container, monkeypatch):
    from app.about import version
    from ui.theme import dark_hex

    monkeypatch.setenv("KITH_THEME", "dark")
    w = _window(qtbot, container)
    assert w.scheme == "dark"
    assert "#f6f7f9" not in w.styleSheet() and dark_hex("#f6f7f9") in w.styleSheet()
    assert QApplication.instance().palette().window().color().lightness() < 60
    w.apply_scheme("light")
    assert "#f6f7f9" in w.styleSheet()
    dlg = w.show_about()
    qtbot.addWidget(dlg)
    text = dlg.text()
    assert f"Kith {version()}" in text and str(container.settings.home) in text
    for needle in ("all-MiniLM-L6-v2", "Apache-2.0", "SmolLM2", "Whisper", "MIT", "GSHHG", "LGPL-3.0"):
        assert needle in text


def test_bulk_select_and_forget_with_one_preview(qtbot, container, tmp_path, monkeypatch):
    from helpers.mboxes import write_mbox

    w = _window(qtbot, container)
    mbox = write_mbox(tmp_path / "m.mbox", [("Rosa Diaz <rosa@example.com>", "Kayak plans", "Kayaking at dawn."),
                                            ("Ben Ode <ben@example.com>", "Books", "A novel about rivers."),
                                            ("Ben Ode <ben@example.com>", "More books", "Another novel."),
                                            ("Cy Park <cy@example.com>", "Lunch", "Noodles on Friday.")])
    with qtbot.waitSignal(w.ingestFinished, timeout=120_000):
        w.inbox.add_paths([mbox])
    people = w.people
    w.show_tab("people")
    qtbot.waitUntil(lambda: "Cy Park" in people.model.names(), timeout=30_000)
    ids = {r.name: r.id for r in people.model.rows}
    assert people.select_ids([ids["Rosa Diaz"], ids["Ben Ode"]]) == 2
    assert {r.name for r in people.selected_rows()} == {"Rosa Diaz", "Ben Ode"}
    assert people.forget_button.text() == "Forget 2\u2026" and not people.open_button.isEnabled()
    asked: list = []
    monkeypatch.setattr(people, "confirm", lambda plan: asked.append(plan) or {"purge": False, "mentions": "redact"})
    gone = []
    people.forgetFinished.connect(lambda r: gone.append(r.name))
    people.forget_selected()
    qtbot.waitUntil(lambda: len(gone) == 2, timeout=60_000)
    # One confirmation for both (the dialog's rows), with what they remove together: 1 + 2 records they sent.
    [plan] = asked
    assert len(plan.plans) == 2 and "2 entries" in plan.label
    assert "Rosa Diaz" in plan.label and "Ben Ode" in plan.label
    assert plan.records == 3 == sum(p.records for p in plan.plans)
    from app.operations.forget import LABELS
    from ui.forget import ForgetDialog

    dlg = ForgetDialog(plan)  # the single-entity dialog shows the summed plan
    qtbot.addWidget(dlg)
    assert ("graph", LABELS.get("graph", {}).get("records", "records"), 3) in dlg.rows()
    assert sorted(gone) == ["Ben Ode", "Rosa Diaz"]
    names = people.model.names()
    assert "Rosa Diaz" not in names and "Ben Ode" not in names and "Cy Park" in names
    assert "Forgot 2 entries: 3 record(s)" in people.status.text()
    # Each is its own forget, restorable on its own.
    qtbot.waitUntil(lambda: len(people.forgotten.labels()) == 2, timeout=30_000)

"""The Kith window driven end to end (offscreen): ingest by drop, browse, ask, forget, screenshot, cancel."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage
from PySide6.QtWidgets import QApplication, QLabel

from ui.chat import ResultCard
from ui.inbox import mime_for_paths
from ui.worker import Worker
from helpers.mboxes import write_mbox as _write_mbox

pytestmark = pytest.mark.gui


@pytest.fixture
def window(qtbot, qapp, kith_container):
    """The conftest window, but Chat gets ``NoModel`` (tests never load a real chat model)."""
    from app.models.llm import NoModel
    from ui.main_window import MainWindow

    qapp.setApplicationName("Kith")
    w = MainWindow(kith_container, model_factory=NoModel)
    qtbot.addWidget(w, before_close_func=lambda win: win.shutdown())
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.people.loaded, timeout=30_000)
    yield w
    assert w.shutdown(60_000), "background jobs did not stop"

ALICE = "Alice Example"
ALICE_SUBJECTS = ("Sourdough starter feeding schedule", "Re: sourdough starter smells like vinegar")


def write_mbox(path: Path, messages: list[tuple[str, str, str]], start: datetime | None = None) -> Path:
    """An mbox of (from, subject, body) messages to the owner, one day apart."""
    return _write_mbox(path, messages, start)


@pytest.fixture
def small_mbox(tmp_path) -> Path:
    """Two messages from Alice about a sourdough starter, one from Bob about something else."""
    return write_mbox(tmp_path / "kitchen.mbox", [
        (f"{ALICE} <alice@example.com>", ALICE_SUBJECTS[0],
         "Feed the sourdough starter twice a day with equal weights of flour and water.\nKeep it warm."),
        ("Bob Stone <bob@example.org>", "Climbing on Saturday",
         "Shall we go to the climbing gym on Saturday morning? I booked the wall for ten."),
        (f"{ALICE} <alice@example.com>", ALICE_SUBJECTS[1],
         "My sourdough starter smells like vinegar; I think it is hungry. Discard half and feed it."),
    ])


def drop(widget, paths) -> None:
    """Drag ``paths`` onto ``widget`` and drop them, through its real event handlers."""
    mime = mime_for_paths(paths)
    enter = QDragEnterEvent(QPointF(20, 20), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, enter)
    assert enter.isAccepted(), "the Inbox refused a drag of local files"
    ev = QDropEvent(QPointF(20, 20), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                    Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, ev)
    assert ev.isAccepted()


def ask(qtbot, chat, question: str):
    """Type ``question`` into Chat, press Enter, wait for the answer; returns the results."""
    chat.input.clear()
    qtbot.keyClicks(chat.input, question)
    with qtbot.waitSignal(chat.askFinished, timeout=60_000) as blocker:
        qtbot.keyClick(chat.input, Qt.Key.Key_Return)
        assert not chat.ask_button.isEnabled(), "Ask stays enabled while a question runs"
        assert chat.busy.isVisibleTo(chat)
    assert chat.ask_button.isEnabled() and not chat.busy.isVisibleTo(chat)
    return blocker.args[0]


def test_drop_browse_ask_forget(qtbot, window, small_mbox, monkeypatch):
    inbox, people, chat = window.inbox, window.people, window.chat
    assert window.tab_names() == ["Chat", "Inbox", "People & Places", "Timeline", "Memory", "Settings"]
    assert str(window.container.settings.home) in window.folder_label.text()

    # Empty memory: Chat says to ingest first.
    results = ask(qtbot, chat, "sourdough starter")
    assert results == []
    assert any("Inbox" in lbl.text() for lbl in chat.findChildren(QLabel) if lbl.isVisibleTo(chat))

    # Ingest by drag and drop.
    window.show_tab("inbox")
    with qtbot.waitSignal(window.ingestFinished, timeout=120_000) as blocker:
        drop(inbox, [small_mbox])
        assert inbox.busy and inbox.cancel_button.isEnabled()
    report = blocker.args[0]
    assert report.records_added == 3, report
    assert report.files == 1 and not report.errors and not report.cancelled
    assert "3 added" in inbox.summary_label.text()
    assert not inbox.busy and not inbox.cancel_button.isEnabled()

    # People & Places refreshes by itself.
    qtbot.waitUntil(lambda: ALICE in people.model.names(), timeout=30_000)
    assert "Bob Stone" in people.model.names()
    alice = next(r for r in people.model.rows if r.name == ALICE)
    assert alice.kind == "person" and alice.records == 2

    # Filters: kind and text.
    people.filter_edit.setText("bob")
    assert [people.proxy.index(r, 0).data() for r in range(people.proxy.rowCount())] == ["Bob Stone"]
    people.filter_edit.clear()
    people.kind_combo.setCurrentIndex(people.kind_combo.findData("place"))
    assert people.proxy.rowCount() == 0
    people.kind_combo.setCurrentIndex(people.kind_combo.findData(None))
    assert people.proxy.rowCount() == len(people.model.rows)

    # Ask in Chat: the mbox answers, with its source and time (the memories used, in the inspector).
    window.show_tab("chat")
    results = ask(qtbot, chat, "sourdough starter")
    assert results, "no answer about the sourdough starter"
    assert Path(results[0].source).resolve() == small_mbox.resolve()
    assert results[0].subject in ALICE_SUBJECTS
    assert all(r.when for r in results)
    qtbot.wait(10)  # let the replaced widgets' deleteLater run
    assert len(chat.findChildren(ResultCard)) == len(results)
    role, reply = chat.transcript()[-1]
    assert role == "assistant" and "sourdough" in reply.lower()

    # Forget Alice, confirming through the automatable hook.
    window.show_tab("people")
    assert not people.forget_button.isEnabled()
    assert people.select_name(ALICE)
    assert people.forget_button.isEnabled()
    asked: list = []
    monkeypatch.setattr(people, "confirm", lambda plan: asked.append(plan) or {"purge": False})
    with qtbot.waitSignal(window.forgetFinished, timeout=60_000) as blocker:
        qtbot.mouseClick(people.forget_button, Qt.MouseButton.LeftButton)
    forgotten = blocker.args[0]
    assert forgotten.name == ALICE and forgotten.counts["graph"]["records"] == 2
    assert len(asked) == 1 and asked[0].name == ALICE and asked[0].counts == forgotten.counts
    assert ALICE not in people.model.names()
    assert "Bob Stone" in people.model.names()

    # The confirmation the person sees lists the plan's counts per store.
    from ui.forget import ForgetDialog

    dialog = ForgetDialog(asked[0], window)
    rows = dialog.rows()
    assert ("graph", "messages, photos or memos", 2) in rows and ("memory", "episodes", 2) in rows
    assert {"graph", "search", "vectors", "memory", "summaries"} <= {r[0] for r in rows}
    dialog.deleteLater()

    # Asking again finds nothing of Alice's.
    window.show_tab("chat")
    results = ask(qtbot, chat, "sourdough starter")
    assert not [r for r in results if r.subject in ALICE_SUBJECTS or r.sender == ALICE]

    # People & Places → Forgotten → Restore brings her back, and Chat finds her messages again.
    window.show_tab("people")
    panel = people.forgotten
    qtbot.waitUntil(lambda: f"{ALICE} (person)" in panel.labels(), timeout=30_000)
    people.show_forgotten()
    button = panel.button(forgotten.forget_id)
    assert button is not None and button.isEnabled()
    with qtbot.waitSignal(panel.changed, timeout=60_000):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: ALICE in people.model.names(), timeout=30_000)
    qtbot.waitUntil(lambda: not panel.labels(), timeout=30_000)
    window.show_tab("chat")
    results = ask(qtbot, chat, "sourdough starter")
    assert {r.subject for r in results} >= set(ALICE_SUBJECTS)


def test_forget_declined_keeps_everything(qtbot, window, small_mbox, monkeypatch):
    with qtbot.waitSignal(window.ingestFinished, timeout=120_000):
        window.inbox.add_paths([small_mbox])
    people = window.people
    qtbot.waitUntil(lambda: ALICE in people.model.names(), timeout=30_000)
    assert people.select_name(ALICE)
    asked: list = []
    monkeypatch.setattr(people, "confirm", lambda plan: asked.append(plan) or None)
    people.forget_selected()
    qtbot.waitUntil(lambda: bool(asked), timeout=30_000)
    qtbot.waitUntil(lambda: "Nothing was forgotten" in people.status.text(), timeout=5_000)
    assert ALICE in people.model.names()


def assert_not_blank(path: Path) -> None:
    img = QImage(str(path))
    assert not img.isNull() and img.width() >= 1000
    colours = {img.pixel(x, y) for x in range(0, img.width(), 3) for y in range(0, img.height(), 3)}
    assert len(colours) > 20, f"only {len(colours)} distinct colours: the window looks blank"
    # Not one flat colour dominating everything either.
    counts: dict[int, int] = {}
    for x in range(0, img.width(), 7):
        for y in range(0, img.height(), 7):
            p = img.pixel(x, y)
            counts[p] = counts.get(p, 0) + 1
    assert max(counts.values()) < 0.97 * sum(counts.values())


@pytest.mark.parametrize("tab", ["chat", "inbox", "people", "memory", "settings"])
def test_screenshot_is_not_blank(qtbot, window, tmp_path, tab):
    path = tmp_path / f"{tab}.png"
    assert window.size().width() >= 1000 and window.size().height() >= 700
    assert window.show_tab(tab)
    if tab == "memory":
        qtbot.waitUntil(lambda: window.memory.data is not None, timeout=30_000)
    qtbot.wait(50)
    assert window.grab().save(str(path))
    assert_not_blank(path)


def test_cancel_returns_to_idle(qtbot, window, tmp_path):
    inbox = window.inbox
    files = [write_mbox(tmp_path / f"batch{i}.mbox",
                        [(f"Person {i}{j} <p{i}{j}@example.com>", f"Note {i}.{j} about gardening",
                          f"Tomatoes and basil, note {i}.{j}.") for j in range(3)],
                        start=datetime(2022, 1, 1 + i, tzinfo=timezone.utc))
             for i in range(6)]
    with qtbot.waitSignal(inbox.ingestFinished, timeout=120_000) as blocker:
        job = inbox.add_paths(files)
        assert job is not None and inbox.busy
        qtbot.mouseClick(inbox.cancel_button, Qt.MouseButton.LeftButton)
        assert job.cancelled
    report = blocker.args[0]
    assert report.cancelled or report.files == len(files)
    assert report.files <= len(files)
    assert not inbox.busy
    assert not inbox.cancel_button.isEnabled()
    assert inbox.add_files_button.isEnabled() and inbox.add_folder_button.isEnabled()
    if report.cancelled:
        assert "cancelled" in inbox.summary_label.text()
    # A second, uncancelled run picks up the rest and adds nothing twice.
    with qtbot.waitSignal(inbox.ingestFinished, timeout=120_000) as blocker:
        inbox.add_paths(files)
    again = blocker.args[0]
    assert not again.cancelled and again.files == len(files)
    assert report.records_added + again.records_added == 18


def test_bad_files_are_listed_with_reasons(qtbot, window, tmp_path):
    bad = tmp_path / "notes.xyz"
    bad.write_text("not an archive")
    missing = tmp_path / "gone.mbox"
    with qtbot.waitSignal(window.ingestFinished, timeout=120_000) as blocker:
        window.inbox.add_paths([bad, missing])
    report = blocker.args[0]
    assert len(report.errors) == 2
    tree = window.inbox.errors
    assert not tree.isHidden() and tree.topLevelItemCount() == 2
    shown = {tree.topLevelItem(i).text(0): tree.topLevelItem(i).text(1) for i in range(2)}
    assert any("notes.xyz" in k for k in shown) and any("gone.mbox" in k for k in shown)
    assert all(reason for reason in shown.values())
    assert "2 errors" in window.inbox.summary_label.text()


def test_chat_shows_errors_inline(qtbot, window, monkeypatch):
    import ui.chat

    def broken(_container, _question):
        raise RuntimeError("the encoder weights are missing")

    monkeypatch.setattr(ui.chat, "_ask", broken)
    chat = window.chat
    with qtbot.waitSignal(chat.askFailed, timeout=10_000) as blocker:
        chat.ask("anything")
    assert "encoder weights are missing" in blocker.args[0]
    assert "encoder weights are missing" in chat.status.text()
    assert chat.ask_button.isEnabled() and not chat.busy.isVisibleTo(chat)
    # A text drag that names no file is refused by the Inbox.
    from PySide6.QtCore import QMimeData

    mime = QMimeData()
    mime.setText("just words")
    enter = QDragEnterEvent(QPointF(5, 5), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window.inbox, enter)
    assert not enter.isAccepted()


def test_worker_delivers_on_ui_thread_and_reports_failures(qtbot, qapp):
    import threading

    worker = Worker()
    ui_thread = threading.get_ident()
    seen: list[tuple[str, int]] = []

    def task(job):
        for i in range(200):
            job.report(i)
        return "ok"

    job = worker.submit(task)
    job.progress.connect(lambda v: seen.append(("progress", threading.get_ident())))
    with qtbot.waitSignal(job.finished, timeout=10_000) as blocker:
        pass
    assert blocker.args == ["ok"]
    assert seen and all(t == ui_thread for _, t in seen)
    assert len(seen) <= 200  # coalesced, never more than sent

    def boom(_job):
        raise ValueError("ask needs a question")

    failing = worker.submit(boom)
    with qtbot.waitSignal(failing.failed, timeout=10_000) as blocker:
        pass
    assert blocker.args == ["ask needs a question"]
    assert worker.shutdown(5_000)
    assert worker.active == 0


def test_gui_run_screenshot(qapp, tmp_path):
    """`kith gui --screenshot PATH` renders the window, writes the PNG, exits 0 and closes the Container."""
    from app.gui import run

    path = tmp_path / "shot.png"
    assert run(screenshot=str(path), tab="people") == 0
    img = QImage(str(path))
    assert not img.isNull() and (img.width(), img.height()) == (1100, 720)
    assert qapp.applicationName() == "Kith"


def test_files_copied_into_the_watched_inbox_folder_are_imported(qtbot, kith_container, tmp_path):
    """The data folder's Inbox is watched: a file copied there is imported once it stops changing."""
    from ui.main_window import MainWindow

    window = MainWindow(kith_container, watch_inbox=True)
    qtbot.addWidget(window)
    try:
        inbox_dir = kith_container.settings.home / "Inbox"
        assert inbox_dir.is_dir()
        with qtbot.waitSignal(window.ingestFinished, timeout=120_000) as blocker:
            (inbox_dir / "dropped.eml").write_text(
                "From: Dana Watcher <dana@example.com>\nSubject: watched folder test\n"
                "Date: Mon, 05 Jan 2026 10:00:00 +0000\nMessage-ID: <w1@example.com>\n\nhello from the inbox folder\n",
                encoding="utf-8")
        assert blocker.args[0].records_added == 1
    finally:
        window.shutdown()

"""Chat as a conversation (offscreen): streamed replies, memories used, Stop, the no-model banner, Write to…

A scripted fake chat model stands in for a real one (no weights are ever loaded here)."""
from __future__ import annotations

import threading
import time
from datetime import datetime
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from ui.chat import Bubble, ResultCard
from helpers.mboxes import write_mbox as _write_mbox

pytestmark = pytest.mark.gui

ALICE = "Alice Example"


class ScriptedModel:
    """A ChatModel that streams fixed pieces, ``delay`` seconds apart; ``gate`` (an Event) holds it after
    the first piece until set or cancelled.  It keeps the messages it was sent."""

    name = "scripted-fake"
    available = True
    context_window = 4096

    def __init__(self, pieces, delay: float = 0.0, gate: threading.Event | None = None):
        self.pieces = list(pieces)
        self.delay = delay
        self.gate = gate
        self.calls: list[list[dict]] = []

    def count_tokens(self, messages) -> int:
        return sum(len(m.get("content", "")) // 3 + 4 for m in messages) + 3

    def stream(self, messages, *, max_tokens=512, temperature=0.0, json_mode=False, cancel=None):
        self.calls.append([dict(m) for m in messages])
        for i, piece in enumerate(self.pieces):
            if cancel is not None and cancel.is_set():
                return
            if i == 1 and self.gate is not None:
                while not self.gate.is_set() and not (cancel is not None and cancel.is_set()):
                    time.sleep(0.01)
                if cancel is not None and cancel.is_set():
                    return
            time.sleep(self.delay)
            yield piece

    def complete(self, messages, **kwargs) -> str:
        return "".join(self.stream(messages, **kwargs))


def write_mbox(path: Path) -> Path:
    return _write_mbox(path, [
        (f"{ALICE} <alice@example.com>", "Sourdough starter feeding schedule",
         "Feed the sourdough starter twice a day with equal weights of flour and water."),
        ("Bob Stone <bob@example.org>", "Climbing on Saturday",
         "Shall we go to the climbing gym on Saturday morning? I booked the wall for ten.")])


@pytest.fixture
def filled(kith_container, tmp_path):
    """The container with a small mbox ingested."""
    from app.operations.ingest import ingest

    report = ingest(kith_container, [write_mbox(tmp_path / "kitchen.mbox")])
    assert report.records_added == 2, report
    return kith_container


def make_window(qtbot, qapp, container, factory):
    from ui.main_window import MainWindow

    w = MainWindow(container, model_factory=factory)
    qtbot.addWidget(w, before_close_func=lambda win: win.shutdown())
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.people.loaded, timeout=30_000)
    return w


@pytest.fixture
def closer():
    windows = []
    yield windows.append
    for w in windows:
        assert w.shutdown(60_000), "background jobs did not stop"


def test_turn_streams_reply_and_shows_memories(qtbot, qapp, filled, closer):
    pieces = ["Feed ", "it ", "twice ", "a ", "day ", "[1]."]
    model = ScriptedModel(pieces, delay=0.08)
    w = make_window(qtbot, qapp, filled, lambda: model)
    closer(w)
    chat = w.chat
    seen: list[str] = []
    with qtbot.waitSignal(chat.turnFinished, timeout=60_000) as blocker:
        job = chat.ask("how often do I feed the sourdough starter?")
        assert job is not None
        job.progress.connect(lambda v: isinstance(v, dict) and v.get("kind") == "text" and seen.append(v["text"]))
        assert not chat.ask_button.isEnabled() and chat.stop_button.isEnabled()
        # The window keeps painting while the turn runs (it is on the worker).
        qtbot.waitUntil(lambda: len(seen) >= 2, timeout=30_000)
        assert chat.transcript()[-1][1] == seen[-1]  # the bubble shows the partial reply
    outcome = blocker.args[0]
    assert "".join(pieces) == outcome.result.reply
    assert len(set(seen)) >= 2 and seen[0] != "".join(pieces), "the reply did not stream"
    assert chat.transcript()[-2:] == [("user", "how often do I feed the sourdough starter?"),
                                      ("assistant", "Feed it twice a day [1].")]
    assert chat.ask_button.isEnabled() and not chat.stop_button.isEnabled()
    assert not chat.banner.isVisibleTo(chat)
    # Memories used: the sourdough mail first, marked as cited, with its source.
    qtbot.wait(10)
    cards = [c for c in chat.findChildren(ResultCard) if c.isVisibleTo(chat)]
    assert len(cards) == len(outcome.memories) >= 1
    assert "sourdough" in cards[0].result.text.lower() and cards[0].cited
    assert Path(cards[0].result.source).name == "kitchen.mbox"
    assert [c.cited for c in cards[1:]] == [False] * (len(cards) - 1)
    assert "1 cited" in chat.memories_hint.text()
    assert chat.results == outcome.memories
    # The model saw the memory in its prompt; the brief panel shows the owner's brief.
    system = model.calls[0][0]["content"]
    assert "sourdough starter" in system.lower()
    assert chat.last_brief is not None and "person" in chat.last_brief
    # A second turn continues the same conversation (history goes to the model).
    with qtbot.waitSignal(chat.turnFinished, timeout=60_000):
        chat.ask("and on Saturday?")
    assert any(m["content"] == "Feed it twice a day [1]." for m in model.calls[1])
    assert sum(1 for b in chat.bubbles if b.role == "assistant") == 2


def test_no_model_banner_and_memory_answer(qtbot, qapp, filled, closer):
    from app.models.llm import NoModel

    w = make_window(qtbot, qapp, filled, NoModel)
    closer(w)
    chat = w.chat
    assert not chat.banner.isVisibleTo(chat)
    with qtbot.waitSignal(chat.turnFinished, timeout=60_000) as blocker:
        chat.ask("sourdough starter")
    res = blocker.args[0].result
    answer, sources = res.reply.split("\n\nSources:\n")
    # a short direct answer (the best evidence's sentence — of its text, not its subject line —, cited), then the
    # sources
    assert res.no_model and answer == \
        "Feed the sourdough starter twice a day with equal weights of flour and water. [1]"
    assert "kitchen.mbox" in sources and "twice a day" in sources
    assert chat.banner.isVisibleTo(chat)
    assert "Answers come from your memories" in chat.banner_text.text() and "Settings" in chat.banner_text.text()
    # The bubble: the answer, then only the cited memory by file name and day (not every memory with its folder
    # path: those are the "Memories used" cards beside it, each with Open).
    shown = chat.transcript()[-1]
    assert shown[0] == "assistant" and shown[1].startswith(answer + "\n\nSources: [1] kitchen.mbox, ")
    assert "\nSources:\n" not in shown[1] and "/" not in shown[1].split("Sources: ", 1)[1]
    assert "[2]" not in shown[1]
    # a citation opens its source: the whole message, with its sender and time
    card = [c for c in chat.findChildren(ResultCard) if c.isVisibleTo(chat)][0]
    qtbot.mouseClick(card.open_button, Qt.MouseButton.LeftButton)
    assert chat.last_opened["kind"] == "email" and "twice a day" in chat.last_opened["text"]
    assert chat.source_window.isVisible()
    chat.source_window.close()
    qtbot.mouseClick(chat.banner_button, Qt.MouseButton.LeftButton)
    assert w.tab_names()[w.tabs.currentIndex()] == "Settings"


def test_an_answer_from_the_graph_says_where_it_comes_from_beside_the_chat(qtbot, qapp, filled, closer):
    from PySide6.QtWidgets import QLabel

    from app.models.llm import NoModel
    from ui.chat import FROM_GRAPH

    w = make_window(qtbot, qapp, filled, NoModel)
    closer(w)
    chat = w.chat
    with qtbot.waitSignal(chat.turnFinished, timeout=60_000) as blocker:
        chat.ask("who do I talk to most?")
    assert blocker.args[0].result.reply.startswith("You're most in touch with ")
    # no single memory: the panel says the answer comes from what Kith knows across the records, not "nothing"
    shown = [x.text() for x in chat.findChildren(QLabel) if x.objectName() == "placeholder" and x.isVisibleTo(chat)]
    assert shown == [FROM_GRAPH]
    assert chat.status.text() == "Answered from what Kith knows across your records."


def test_model_that_fails_to_load_falls_back_to_memory(qtbot, qapp, filled, closer):
    from app.models.llm import ModelError

    def broken():
        raise ModelError("the weights in /nowhere could not be loaded")

    w = make_window(qtbot, qapp, filled, broken)
    closer(w)
    chat = w.chat
    with qtbot.waitSignal(chat.turnFinished, timeout=60_000) as blocker:
        chat.ask("sourdough starter")
    outcome = blocker.args[0]
    assert outcome.result.no_model and "could not be loaded" in outcome.model_error
    assert chat.banner.isVisibleTo(chat) and "could not be used" in chat.banner_text.text()


def test_loading_model_does_not_freeze_and_stop_keeps_partial(qtbot, qapp, filled, closer):
    loading = threading.Event()
    gate = threading.Event()
    model = ScriptedModel(["Partial ", "never ", "shown"], gate=gate)

    def slow_factory():
        loading.wait(30)  # a model that takes its time to load
        return model

    w = make_window(qtbot, qapp, filled, slow_factory)
    closer(w)
    chat = w.chat
    with qtbot.waitSignal(chat.turnFinished, timeout=60_000) as blocker:
        chat.ask("sourdough starter")
        qtbot.waitUntil(lambda: "Loading" in chat.status.text(), timeout=10_000)
        assert chat.busy.isVisibleTo(chat)
        loading.set()
        qtbot.waitUntil(lambda: chat.transcript()[-1][1] == "Partial ", timeout=30_000)
        qtbot.keyClick(chat.input, Qt.Key.Key_Escape)  # Esc stops, like the Stop button
    res = blocker.args[0].result
    assert res.cancelled and res.reply == "Partial"
    assert chat.transcript()[-1] == ("assistant", "Partial")
    assert "stopped" in chat.bubbles[-1].meta.text()
    assert chat.ask_button.isEnabled() and not chat.stop_button.isEnabled()


def test_write_to_drafts_with_writing_help(qtbot, qapp, filled, closer):
    model = ScriptedModel(["Hi Alice! ", "How is the starter doing?"])
    w = make_window(qtbot, qapp, filled, lambda: model)
    closer(w)
    chat = w.chat
    assert not chat.write_button.isEnabled()  # "you" are chosen: nobody to write to
    qtbot.waitUntil(lambda: chat.set_partner(ALICE), timeout=10_000)
    assert chat.write_button.isEnabled() and ALICE in chat.write_button.text()
    with qtbot.waitSignal(chat.briefLoaded, timeout=30_000):
        pass
    assert ALICE in chat.brief_title.text()
    chat.input.setText("ask how the sourdough starter is doing")
    with qtbot.waitSignal(chat.draftFinished, timeout=60_000) as blocker:
        qtbot.mouseClick(chat.write_button, Qt.MouseButton.LeftButton)
    draft = blocker.args[0]
    assert draft.person == ALICE and draft.text == "Hi Alice! How is the starter doing?"
    last = chat.bubbles[-1]
    assert isinstance(last, Bubble) and last.role == "draft" and last.text() == draft.text
    assert ALICE in last.title.text()
    sent = model.calls[-1]
    assert sent[0]["role"] == "system" and "Draft a message" in sent[0]["content"] and ALICE in sent[0]["content"]
    assert sent[-1] == {"role": "user", "content": "ask how the sourdough starter is doing"}


@pytest.mark.corpus
@pytest.mark.slow
def test_the_windows_chat_answers_when_i_was_in_italy_from_memory_by_default(kith_container, corpus):
    """The chat session the window runs (default settings: the memory answerer, no model loaded)."""
    from app.operations.ingest import ingest
    from ui.chat import ChatSession

    ingest(kith_container, [corpus / "photos"])
    session = ChatSession(kith_container)

    class _Job:
        cancel_event = threading.Event()
        shown: list = []

        def report(self, value):
            if isinstance(value, dict) and value.get("kind") == "text":
                self.shown.append(value["text"])
    job = _Job()
    out = session.turn("when was I in Italy?", None, job)
    session.close()
    answer = out.result.reply.split("\n\n")[0]
    assert answer.startswith("You were in Arezzo, Tuscany, Italy on 22 October 2008 — 2 photos")
    assert out.result.no_model and job.shown[0] == out.result.reply  # shown at once, whole
    assert {Path(m.source).name for m in out.memories} >= {"gps_DSCN0010.jpg", "gps_DSCN0040.jpg"}


def test_conversations_are_listed_kept_across_a_restart_reopened_continued_renamed_and_deleted(
        qtbot, qapp, filled, closer, monkeypatch):
    """The conversations list: newest first; a new window on the same data folder (a new Container: a restart)
    lists them, reopens one with its transcript and memories, continues it; Rename… and Delete."""
    from PySide6.QtWidgets import QInputDialog, QMessageBox

    from app.container import Container
    from app.models.llm import NoModel
    from app.operations.conversations import list_conversations
    from ui.main_window import MainWindow

    w = make_window(qtbot, qapp, filled, NoModel)
    chat = w.chat
    for q in ("sourdough starter", "and the feeding schedule?"):
        with qtbot.waitSignal(chat.turnFinished, timeout=60_000):
            chat.ask(q)
    first = chat.conversation_id
    first_transcript = chat.transcript()
    first_memories = [r.text for r in chat.results]
    chat.new_conversation()
    with qtbot.waitSignal(chat.turnFinished, timeout=60_000):
        chat.ask("climbing on Saturday")
    second = chat.conversation_id
    assert second and first and second != first
    qtbot.waitUntil(lambda: chat.conversation_titles() == ["climbing on Saturday", "sourdough starter"],
                    timeout=30_000)
    assert chat.conversation_list.count() == 2 and "2 turns" in chat.conversation_list.item(1).text()
    assert w.shutdown(60_000)
    w.close()

    again = Container()  # the window is started again on the same data folder
    try:
        w2 = MainWindow(again, model_factory=NoModel)
        qtbot.addWidget(w2, before_close_func=lambda win: win.shutdown())
        w2.show()
        qtbot.waitExposed(w2)
        closer(w2)
        chat2 = w2.chat
        qtbot.waitUntil(lambda: chat2.conversation_list.count() == 2, timeout=30_000)
        assert chat2.conversation_titles() == ["climbing on Saturday", "sourdough starter"]
        assert chat2.transcript() == []
        item = chat2.conversation_list.item(1)
        with qtbot.waitSignal(chat2.conversationOpened, timeout=30_000):
            rect = chat2.conversation_list.visualItemRect(item)
            qtbot.mouseClick(chat2.conversation_list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        assert chat2.conversation_id == first
        assert chat2.transcript() == first_transcript  # the same words, the sources listed again
        assert [r.text for r in chat2.results] == first_memories
        assert "from memory alone" in chat2.bubbles[-1].meta.text()
        with qtbot.waitSignal(chat2.turnFinished, timeout=60_000) as blocker:
            chat2.ask("how much flour?")
        assert blocker.args[0].conversation == first  # continued, not a new one
        qtbot.waitUntil(lambda: chat2.conversation_titles()[0] == "sourdough starter", timeout=30_000)
        assert list_conversations(again)[0].turns == 6

        monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *a, **k: ("Bread", True)))
        with qtbot.waitSignal(chat2.conversationsLoaded, timeout=30_000):
            chat2.rename_conversation()
        assert chat2.conversation_titles() == ["Bread", "climbing on Saturday"]

        monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Yes))
        chat2.conversation_list.item(1).setSelected(True)
        chat2.conversation_list.item(0).setSelected(False)
        with qtbot.waitSignal(chat2.conversationsLoaded, timeout=30_000):
            chat2.delete_conversation()
        assert chat2.conversation_titles() == ["Bread"]
        assert [c.id for c in list_conversations(again)] == [first]
        assert chat2.conversation_id == first and chat2.transcript()  # the one shown stays
        with qtbot.waitSignal(chat2.conversationsLoaded, timeout=30_000):
            chat2.delete_conversation(first)
        assert chat2.conversation_titles() == [] and chat2.conversation_id is None and chat2.transcript() == []
        assert not chat2.delete_button.isEnabled()
        assert w2.shutdown(60_000)
    finally:
        again.close()


def test_bubble_text_lists_only_cited_sources_by_name():
    from app.operations.types import AskResult
    from ui.chat import bubble_text

    mems = [AskResult(text="a", source="/home/me/Pictures/a.jpg", when="2008-10-22T14:28:00+00:00", score=1.0),
            AskResult(text="b", source="/home/me/Pictures/b.jpg", when="2008-10-22T14:55:00+00:00", score=0.5),
            AskResult(text="c", source="/home/me/mail/all.mbox", when=None, score=0.2)]
    reply = ("You were in Arezzo on 22 October 2008 [2][3]\n\nSources:\n[1] (2008-10-22; source: "
             "/home/me/Pictures/a.jpg) a\n[2] (…) b\n[3] (…) c")
    assert bubble_text(reply, mems, {2, 3}) == ("You were in Arezzo on 22 October 2008 [2][3]\n\n"
                                                "Sources: [2] b.jpg, 22 Oct 2008 \u00b7 [3] all.mbox")
    # a kept turn's numbers (a forgotten [1] is gone) and a fallback's note after the sources
    note = "\n\n(Kith's own answer from memory: the model cited nothing.)"
    assert bubble_text("Yes [3]\n\nSources:\n[2] x\n[3] y" + note, mems[1:], {3}, [2, 3]) == \
        "Yes [3]\n\nSources: [3] all.mbox" + note
    # nothing cited: just the answer; a model's reply (no sources block) as it is
    assert bubble_text("Hello!\n\nSources:\n[1] x", mems[:1], set()) == "Hello!"
    assert bubble_text("A model's words [1].", mems, {1}) == "A model's words [1]."

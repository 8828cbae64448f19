"""The Chat tab: a conversation with Kith over your own memories.

Left, the transcript (your messages and Kith's replies as bubbles; replies stream in as the
model writes them, and Stop cancels).  Right, the inspector: *Memories used* (what was recalled
for the last turn, with sources; the ones the reply cites are marked) and *Brief* (what Kith has
learned about how the current conversation partner -- you, by default -- likes to be written to).

Every turn runs :class:`app.loop.ConversationLoop` on the worker, so loading a local model the
first time never freezes the window.  With no model configured (or one that fails to load) the
reply is the memory answer and a banner says how to choose a model (the Settings tab).
"Write to…" drafts a message to the chosen person with :meth:`app.personal.PersonalService.writing_help`.
"""
from __future__ import annotations

import html
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QKeySequence, QShortcut
from PySide6.QtWidgets import (QComboBox, QFrame, QHBoxLayout, QInputDialog, QLabel, QLineEdit, QListWidget,
                               QListWidgetItem, QMessageBox, QProgressBar, QPushButton, QScrollArea, QSizePolicy,
                               QSplitter, QTextBrowser, QVBoxLayout, QWidget)

from app.loop import NOTE_MARK, SOURCES_MARK
from app.operations.types import AskResult
from ui import format_when, header, section
from ui.worker import Job, Worker

PREVIEW_LINES = 4
PREVIEW_CHARS = 420

EMPTY_MEMORY = "Your memory is empty. Add mail, photos or folders in the Inbox tab first, then ask here."
NO_MATCH = ("Nothing in memory matches that. If you have not added anything yet, "
            "drop some files into the Inbox tab first.")
FROM_GRAPH = ("This answer comes from what Kith knows across your records — who is in them, when and where "
              "— not from single memories.")
WELCOME = "Ask about the people, places and things in your archives, e.g. \u201cwhere did we go in June?\u201d"
NO_MODEL_BANNER = ("<b>Answers come from your memories</b> \u2014 short answers Kith checks against what it "
                   "found, with the sources. For written answers, choose a model in the <b>Settings</b> tab "
                   "(Detect finds Ollama or LM Studio on this computer).")
MODEL_FAILED_BANNER = ("<b>The chat model could not be used</b> ({error}) \u2014 this answer comes from your "
                       "memories alone. Check the model in the <b>Settings</b> tab.")
DEFAULT_DRAFT_REQUEST = "Write a short, friendly message to catch up."
OWNER = None  # the partner combo's data for "you" (the owner)

CHAT_STYLE = """
QFrame#banner { background: #fff7e6; border: 1px solid #f0c36d; border-radius: 8px; }
QFrame#banner QLabel { color: #5c3d00; }
QScrollArea#transcript { background: #ffffff; border: 1px solid #d6d9de; border-radius: 8px; }
QWidget#transcriptBody { background: #ffffff; }
QFrame#userBubble { background: #2f6fde; border-radius: 10px; }
QFrame#userBubble QLabel { color: #ffffff; }
QFrame#assistantBubble { background: #f1f3f6; border: 1px solid #e1e5ea; border-radius: 10px; }
QFrame#draftBubble { background: #f3f0ff; border: 1px solid #cfc4f5; border-radius: 10px; }
QLabel#bubbleTitle { font-weight: bold; color: #4b3b9a; }
QLabel#bubbleMeta { color: #6b7280; font-size: 11px; }
QFrame#inspector { background: #ffffff; border: 1px solid #d6d9de; border-radius: 8px; }
QLabel#sectionTitle { font-weight: bold; font-size: 14px; color: #111827; }
QFrame#citedCard { background: #f2f8f1; border: 1px solid #8cc084; border-radius: 8px; }
QLabel#citedMark { color: #1f6b2a; background: #dcefd9; border-radius: 4px; padding: 1px 6px; }
QTextBrowser#briefView { border: 1px solid #e5e7eb; border-radius: 6px; background: #fbfbfc; }
"""

ModelFactory = Callable[[], Any]


def _clip_words(line: str, longest: int = 48) -> str:
    """Cut words longer than ``longest`` characters (rules of ``*****``, long URLs) so labels can wrap."""
    return " ".join(w if len(w) <= longest else w[:longest] + "\u2026" for w in line.split())


def preview_text(text: str, lines: int = PREVIEW_LINES, limit: int = PREVIEW_CHARS) -> str:
    """The first few non-empty lines of ``text`` (bare ``>`` quote lines skipped), cut at ``limit`` characters;
    very long words are shortened so the text can wrap."""
    kept = [_clip_words(line) for line in text.splitlines() if line.strip(" \t>")]
    out = "\n".join(kept[:lines])
    more = len(kept) > lines
    if len(out) > limit:
        out, more = out[:limit].rstrip(), True
    return out + (" \u2026" if more else "")




def source_label(result: AskResult) -> str:
    """A memory's source in a few words: the file's name (not its folder) and the day, "22 Oct 2008"."""
    src = result.source or ""
    name = Path(src).name or src or ("what you told Kith" if result.kind == "episode" else "a memory")
    when = format_when(result.when, "") if result.when else ""
    when = when.split(",")[0] if when else ""  # the day is enough here
    return f"{name}, {when}" if when else name


def bubble_text(reply: str, memories: list[AskResult], cited: set[int], numbers: list[int] | None = None) -> str:
    """What a reply's bubble shows: the answer, then only the memories it cites as "[3] photo.jpg, 22 Oct 2008"
    (the full list, with an *Open* button each, is the "Memories used" panel beside the chat), then a
    fallback's note.  The memory answer's text lists every memory recalled with its full path; repeated in the
    bubble, that buried a one-line answer under a screen of paths.

    Args:
        reply: the reply as the loop made it (``answer`` + ``"\\n\\nSources:\\n"`` + numbered lines [+ note]).
        memories: the memories recalled for the turn, in [n] order.
        cited: the [n] numbers the reply rests on.
        numbers: each memory's [n] (a kept turn's; default 1, 2, 3…).
    """
    head, sep, rest = (reply or "").partition(SOURCES_MARK)
    if not sep:
        return reply or ""
    i = rest.find(NOTE_MARK)
    note = rest[i:] if i >= 0 else ""
    numbers = list(numbers) if numbers else list(range(1, len(memories) + 1))
    cites = [f"[{n}] {source_label(m)}" for m, n in zip(memories, numbers) if n in cited]
    out = head
    if cites:
        out += "\n\nSources: " + " \u00b7 ".join(cites)
    return out + note


def _ask(container, question: str) -> list[AskResult]:
    """Worker side: imported here so a broken ingestor module shows as an error, not a dead window."""
    from app.operations.ask import ask

    return ask(container, question)


def _add(layout, widget: QWidget) -> QWidget:
    """Add ``widget`` to ``layout`` and show it now (a layout only shows new children on the next event loop pass)."""
    layout.addWidget(widget)
    widget.show()
    return widget


def open_path(path: str) -> bool:
    """Open a local file with the system's viewer; False when it does not exist."""
    if not path or not Path(path).exists():
        return False
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(Path(path).resolve())))


# ------------------------------------------------------------------------------------------- worker side


@dataclass
class TurnOutcome:
    """What a chat turn hands back to the window (built on the worker)."""

    result: Any                        # app.loop.TurnResult
    memories: list[AskResult]          # the memories used, in prompt order, as AskResults
    cited: set[int] = field(default_factory=set)   # their numbers (1-based) that the reply cites
    brief: dict | None = None          # the partner's brief (Brief.to_json()) or None
    brief_error: str = ""
    model_error: str = ""              # why the model was not used (load/stream failure), "" if it was
    conversation: str = ""             # the conversation's id (kept in the data folder)


@dataclass
class DraftOutcome:
    """A "Write to…" draft."""

    person: str
    text: str
    no_model: bool
    model_error: str = ""
    cancelled: bool = False


class ChatSession:
    """The conversation's worker-side state: the loop, the model and the personalization service.

    Only touched from the job running a turn (one at a time), never from the UI thread
    except :meth:`reset_model` / :meth:`close`, which only set flags or close after the worker stopped.
    """

    def __init__(self, container, model_factory: ModelFactory | None = None):
        self.c = container
        self.model_factory = model_factory
        self.loop = None
        self.model = None
        self.model_error = ""
        self._personal = None
        self._model_stale = False
        self._last_reply_at: datetime | None = None
        self._resume: tuple | None = None
        self._fresh = False
        self._lock = threading.Lock()

    # -- model ---------------------------------------------------------------------------
    def reset_model(self) -> None:
        """The model settings changed: build the model again before the next turn."""
        self._model_stale = True

    def get_model(self, report: Callable[[dict], None] | None = None):
        """The chat model (built and loaded on first use; NoModel when it cannot be loaded)."""
        from app.models.llm import NoModel

        if self.model is not None and not self._model_stale:
            return self.model
        self._model_stale = False
        self.model_error = ""
        try:
            if self.model_factory is not None:
                if report:
                    report({"kind": "loading", "text": "Loading the chat model\u2026"})
                model = self.model_factory()
            else:
                from app.models.registry import answerer, build_answer_model

                if report and answerer(self.c.settings) == "model":
                    report({"kind": "loading", "text": "Preparing the chat model (the first time takes a while)\u2026"})

                def progress(stage: str, fraction: float) -> None:
                    if report:
                        report({"kind": "loading", "text": f"Preparing the chat model: {stage} ({fraction:.0%})"})
                model = build_answer_model(self.c.settings, progress=progress)
            if getattr(model, "available", False) and hasattr(model, "load"):
                if report:
                    report({"kind": "loading", "text": f"Loading {Path(str(model.name)).name}\u2026"})
                model.load()
        except Exception as exc:  # noqa: BLE001 - a model that does not load must not stop the chat
            from ui.worker import describe_error

            self.model_error = describe_error(exc)
            model = NoModel()
        self.model = model
        if self.loop is not None:
            self.loop.model = model
        return model

    def get_draft_model(self, report: Callable[[dict], None] | None = None):
        """The model that writes drafts ("Write to…"): the configured chat model, the built-in one included
        (drafting is writing, not answering from memory); NoModel when it cannot be loaded."""
        from app.models.llm import NoModel
        from app.models.registry import answerer

        if self.model_factory is not None or answerer(self.c.settings) == "model":
            return self.get_model(report)
        if getattr(self, "_draft_model", None) is None or self._model_stale:
            try:
                from app.models.registry import build_chat_model

                if report:
                    report({"kind": "loading", "text": "Preparing the writing model (the first time takes a while)\u2026"})
                model = build_chat_model(self.c.settings)
                if getattr(model, "available", False) and hasattr(model, "load"):
                    model.load()
            except Exception as exc:  # noqa: BLE001
                from ui.worker import describe_error

                self.model_error = describe_error(exc)
                model = NoModel()
            self._draft_model = model
        return self._draft_model

    # -- personalization -------------------------------------------------------------------
    def personal(self):
        """The :class:`app.personal.PersonalService` (made on first use)."""
        with self._lock:
            if self._personal is None:
                from app.personal import PersonalService

                self._personal = PersonalService(self.c)
            return self._personal

    def partner_id(self, partner) -> int:
        """The entity id of the conversation partner (``None`` = the owner)."""
        svc = self.personal()
        return svc.owner_id() if partner is None else svc.resolve_person(partner)

    # -- the loop ----------------------------------------------------------------------------
    def get_loop(self, report=None):
        """The conversation loop (made on first use, with the model)."""
        from app.loop import ConversationLoop

        model = self.get_model(report)
        if self._fresh:  # "New conversation" was pressed since the last turn
            self._fresh = False
            self.new_conversation()
        if self.loop is None:
            self.loop = ConversationLoop.for_container(self.c, model=model)
            if self._resume is not None:
                self.loop.resume(*self._resume)
                self._resume = None
        return self.loop

    def resume(self, conversation) -> None:
        """Continue a kept conversation (``app.operations.conversations.Conversation``) with the next turn
        (worker thread): the current one's personalization session is closed first."""
        from app.operations.conversations import history

        self._fresh = False
        if self.loop is not None and self.loop.conversation == conversation.info.id:
            return
        self.new_conversation()
        self._resume = (conversation.info.id, history(conversation), conversation.info.partner_id)

    def turn(self, text: str, partner, job: Job) -> TurnOutcome:
        """Run one turn (worker thread): stream the reply through ``job.report``."""
        from app.models.llm import ModelError, NoModel

        loop = self.get_loop(job.report)
        recalled: dict[str, list] = {}

        def recall(q: str):
            res = _ask(self.c, q)  # looked up at call time (tests replace it)
            recalled["results"] = list(res)
            return res

        loop.recall = recall
        loop.partner_id = partner  # kept with the conversation: the person it is with
        svc = None
        try:
            svc = self.personal()
            pid = self.partner_id(partner)
            loop.brief = lambda q, pid=pid: svc.system_prompt(pid, q)
        except Exception:  # noqa: BLE001 - no brief is no reason to fail the turn
            loop.brief = None
        # Observing and learning each owner turn is wired by ConversationLoop.for_container (app/loop.py).
        job.report({"kind": "recall", "text": ""})
        pieces: list[str] = []

        def on_token(piece: str) -> None:
            pieces.append(piece)
            job.report({"kind": "text", "text": "".join(pieces)})

        model_error = self.model_error if not getattr(loop.model, "available", False) else ""
        try:
            result = loop.turn(text, on_token=on_token, cancel=job.cancel_event)
        except ModelError as exc:
            if pieces:
                raise
            # the model failed before it said anything: answer from memory this time
            from ui.worker import describe_error

            model_error = describe_error(exc)
            model, loop.model = loop.model, NoModel()
            try:
                result = loop.turn(text, on_token=on_token, cancel=job.cancel_event)
            finally:
                loop.model = model
        self._last_reply_at = datetime.now(timezone.utc)

        memories = []
        for m in result.memories:
            memories.append(m.item if isinstance(m.item, AskResult) else
                            AskResult(text=m.text, source=m.source, when=m.when, score=m.score,
                                      record_id=m.ref if isinstance(m.ref, int) else 0))
        cited = {m.number for m in result.cited}
        brief, brief_error = None, ""
        if svc is not None:
            try:
                brief = svc.brief(self.partner_id(partner), context=text).to_json()
            except Exception as exc:  # noqa: BLE001
                from ui.worker import describe_error

                brief_error = describe_error(exc)
        return TurnOutcome(result, memories, cited, brief, brief_error, model_error, loop.conversation)

    def brief(self, partner) -> dict:
        """The partner's brief as JSON (worker thread)."""
        svc = self.personal()
        return svc.brief(self.partner_id(partner)).to_json()

    def draft(self, partner, name: str, request: str, job: Job) -> DraftOutcome:
        """Draft a message to ``partner`` with the model (worker thread), streaming through ``job.report``."""
        svc = self.personal()
        pid = self.partner_id(partner)
        messages = [dict(m) for m in svc.writing_help(pid, request)]
        # The ledger may not know the person's name yet (only people met in imported chats have one):
        # name them as the window does rather than "person 12".
        messages[0]["content"] = (messages[0]["content"].replace(f"person {pid}", name)
                                  .replace(f"from the owner to {pid} ", f"from the owner to {name} "))
        model = self.get_draft_model(job.report)
        if not getattr(model, "available", False):
            guide = [line for line in messages[0]["content"].split("\n\nDraft a message")[0].splitlines()
                     if line.startswith("- ")]
            text = "No chat model is configured, so Kith cannot write the draft itself. "
            text += (f"What it has learned about writing to {name}:\n\n" + "\n".join(guide) if guide else
                     f"It has not learned yet how {name} likes to be written to (that comes from imported chats).")
            job.report({"kind": "text", "text": text})
            return DraftOutcome(name, text, True, self.model_error)
        pieces: list[str] = []
        for piece in model.stream(messages, max_tokens=400, cancel=job.cancel_event):
            pieces.append(piece)
            job.report({"kind": "text", "text": "".join(pieces)})
        return DraftOutcome(name, "".join(pieces).strip(), False, "", job.cancelled)

    def request_new(self) -> None:
        """From the UI thread: the next turn starts a new conversation (the current one is closed then, on the
        worker, before that turn — never after it, as a job of its own could be)."""
        self._resume = None
        self._fresh = True

    def new_conversation(self) -> None:
        """Forget the conversation so far (worker thread): close the personalization session."""
        if self._personal is not None and self.loop is not None:
            try:
                self._personal.close_session(conversation=self.loop.conversation)
            except Exception:  # noqa: BLE001
                pass
        self.loop = None
        self._resume = None
        self._last_reply_at = None

    def close(self) -> None:
        """Close the personalization ledger (after the worker stopped)."""
        if self._personal is not None:
            try:
                self._personal.close()
            except Exception:  # noqa: BLE001
                pass
            self._personal = None


# ------------------------------------------------------------------------------------------- widgets


class ResultCard(QFrame):
    """One memory: title line (subject / sender), the first lines of text, then source, time and score.

    ``cited`` marks the memories the reply cites; the source is a link that opens the file.
    """

    def __init__(self, index: int, result: AskResult, parent: QWidget | None = None, cited: bool = False,
                 compact: bool = False, on_open: Callable[[AskResult], Any] | None = None):
        super().__init__(parent)
        self.result = result
        self.on_open = on_open
        self.cited = cited
        self.setObjectName("citedCard" if cited else "card")
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 8, 12, 8) if compact else lay.setContentsMargins(14, 10, 14, 10)
        lay.setSpacing(4)

        body_text = result.text.strip()
        if result.subject and body_text.startswith(result.subject):
            body_text = body_text[len(result.subject):].strip()
        title_text = result.subject
        if result.kind in ("fact", "history"):  # its subject is "domain: key" ("places: photographed:2008-10")
            title_text = ("What used to be true" if result.kind == "history" else "What Kith knows") + (
                f" about {result.sender}" if result.sender else "")
        elif not title_text:  # a photo or an untitled note: its first line is the title
            first, _, rest = body_text.partition("\n")
            title_text, body_text = " ".join(first.split())[:120] or "(untitled)", rest.strip()
        if result.sender and result.kind not in ("fact", "history"):
            title_text += f" \u2014 from {result.sender}"
        when_text = format_when(result.when)
        if result.date_only and result.when:  # the day alone is known: its stored noon is no time to show
            day = datetime.fromisoformat(result.local_when()[:10])
            when_text = f"{day.day} {day:%b %Y}"
        if result.kind in ("fact", "history"):  # "As of 2021-06-30, Alex lives in Glasgow." → "Alex lives in
            body_text, day = result.statement()  # Glasgow.", When 30 Jun 2021 (the date under *When*)
            if day is not None:
                when_text = f"{day.day} {day:%b %Y}"

        top = QHBoxLayout()
        title = QLabel(_clip_words(f"[{index}] {title_text}" if compact else f"{index}. {title_text}", 40))
        title.setMinimumWidth(1)
        title.setObjectName("cardTitle")
        title.setTextFormat(Qt.TextFormat.PlainText)
        title.setWordWrap(True)
        top.addWidget(title, 1)
        if cited:
            mark = QLabel("cited")
            mark.setObjectName("citedMark")
            mark.setToolTip("The reply cites this memory")
            top.addWidget(mark, 0, Qt.AlignmentFlag.AlignTop)
        score = QLabel(f"{result.relevance:.2f}" if compact else f"relevance {result.relevance:.2f}")
        score.setObjectName("score")
        score.setToolTip("Calibrated relevance: how likely this memory answers the question (0-1)")
        top.addWidget(score, 0, Qt.AlignmentFlag.AlignTop)
        if on_open is not None and (result.record_id or result.source):
            self.open_button = QPushButton("Open")
            self.open_button.setToolTip("Open the source: the message, the photo, the memo's transcript")
            self.open_button.clicked.connect(lambda: self.on_open(self.result))
            top.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignTop)
        lay.addLayout(top)

        if body_text:
            body = QLabel(preview_text(body_text, lines=3 if compact else PREVIEW_LINES))
            body.setTextFormat(Qt.TextFormat.PlainText)
            body.setWordWrap(True)
            body.setMinimumWidth(1)
            body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            lay.addWidget(body)

        src = result.source or "unknown source"
        name = html.escape(Path(src).name or src)
        link = f"<a href=\"{html.escape(src)}\">{name}</a>" if result.source else name
        meta = QLabel(f"<b>Source</b> {link}&nbsp;&nbsp;&nbsp;<b>When</b> {html.escape(when_text)}")
        meta.setObjectName("cardMeta")
        meta.setTextFormat(Qt.TextFormat.RichText)
        meta.setWordWrap(True)
        meta.setMinimumWidth(1)
        meta.setToolTip(src)
        meta.linkActivated.connect(open_path)
        lay.addWidget(meta)


class Bubble(QFrame):
    """One message in the transcript: ``role`` is ``user``, ``assistant`` or ``draft``."""

    def __init__(self, role: str, text: str = "", title: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self.role = role
        self.setObjectName({"user": "userBubble", "draft": "draftBubble"}.get(role, "assistantBubble"))
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 8, 12, 8)
        lay.setSpacing(3)
        self.title = QLabel(title)
        self.title.setObjectName("bubbleTitle")
        self.title.setVisible(bool(title))
        lay.addWidget(self.title)
        self.label = QLabel(text)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        lay.addWidget(self.label)
        self.meta = QLabel("")
        self.meta.setObjectName("bubbleMeta")
        self.meta.hide()
        lay.addWidget(self.meta)

    def text(self) -> str:
        """The message text as shown."""
        return self.label.text()

    def set_text(self, text: str) -> None:
        self.label.setText(text)

    def set_meta(self, text: str) -> None:
        self.meta.setText(text)
        self.meta.setVisible(bool(text))


class ChatWidget(QWidget):
    """A conversation with Kith; each turn runs :class:`app.loop.ConversationLoop` on the worker.

    Args:
        container: the services.
        worker: the window's worker.
        model_factory: ``() -> ChatModel``; default: the model the settings describe
            (``app.models.registry.build_chat_model``), built and loaded on the worker at the first turn.

    Signals:
        askFinished(object): after each turn, the memories used (a list of :class:`AskResult`, maybe empty).
        askFailed(str): a message; also shown inline.
        turnFinished(object): the :class:`TurnOutcome`.
        draftFinished(object): the :class:`DraftOutcome` of "Write to…".
        openSettings(): the banner's "Open Settings" was clicked.
        conversationsLoaded(object): the kept conversations were listed (``ConversationInfo`` list).
        conversationOpened(object): a kept conversation was shown (``app.operations.conversations.Conversation``).

    The conversations list (left) holds every kept conversation, the most recent first; clicking one shows
    it and the next message continues it; Rename… and Delete act on the selected one.
    """

    askFinished = Signal(object)
    askFailed = Signal(str)
    turnFinished = Signal(object)
    draftFinished = Signal(object)
    briefLoaded = Signal(object)
    openSettings = Signal()
    conversationsLoaded = Signal(object)
    conversationOpened = Signal(object)

    def __init__(self, container, worker: Worker, parent: QWidget | None = None,
                 model_factory: ModelFactory | None = None):
        super().__init__(parent)
        self._container = container
        self._worker = worker
        self.session = ChatSession(container, model_factory)
        self._job: Job | None = None
        self._brief_gen = 0
        self._memory_empty: bool | None = None
        self._suggestions: list[str] = []
        self._live: Bubble | None = None
        self.results: list[AskResult] = []
        self.bubbles: list[Bubble] = []
        self.last_outcome: TurnOutcome | None = None
        self.last_brief: dict | None = None
        self.conversation_id: str | None = None  # the conversation shown (None: a new one, not kept yet)
        self.conversation_rows: list = []
        self._list_gen = 0
        self.setStyleSheet(CHAT_STYLE)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(18, 14, 18, 12)
        lay.setSpacing(8)
        lay.addWidget(header("Chat", "Talk with Kith about your life; it answers from your own archives only, "
                                     "and the panel on the right shows which memories it used and where they "
                                     "came from."))

        # The no-model banner.
        self.banner = QFrame()
        self.banner.setObjectName("banner")
        brow = QHBoxLayout(self.banner)
        brow.setContentsMargins(12, 8, 12, 8)
        self.banner_text = QLabel(NO_MODEL_BANNER)
        self.banner_text.setTextFormat(Qt.TextFormat.RichText)
        self.banner_text.setWordWrap(True)
        self.banner_button = QPushButton("Open Settings")
        self.banner_button.clicked.connect(self.openSettings)
        brow.addWidget(self.banner_text, 1)
        brow.addWidget(self.banner_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.banner.hide()
        lay.addWidget(self.banner)

        # Partner and "Write to…".
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Person:"))
        self.partner_combo = QComboBox()
        self.partner_combo.setMinimumWidth(220)
        self.partner_combo.setToolTip("Whose brief guides the conversation; \u201cWrite to\u2026\u201d drafts to them")
        self.partner_combo.addItem("You (the owner)", OWNER)
        self.partner_combo.currentIndexChanged.connect(self._on_partner)
        self.write_button = QPushButton("Write to\u2026")
        self.write_button.setToolTip("Draft a message to the chosen person (what to say: the text in the box, "
                                     "or a friendly catch-up), in the way they like to be written to")
        self.write_button.setEnabled(False)
        self.write_button.clicked.connect(lambda: self.write_to())
        self.new_button = QPushButton("New conversation")
        self.new_button.clicked.connect(self.new_conversation)
        bar.addWidget(self.partner_combo)
        bar.addWidget(self.write_button)
        bar.addStretch(1)
        bar.addWidget(self.new_button)
        lay.addLayout(bar)

        # Transcript | inspector.
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self._build_conversations())
        left = QWidget()
        left_lay = QVBoxLayout(left)
        left_lay.setContentsMargins(0, 0, 0, 0)
        left_lay.setSpacing(8)
        self.scroll = QScrollArea()
        self.scroll.setObjectName("transcript")
        self.scroll.setWidgetResizable(True)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._body = QWidget()
        self._body.setObjectName("transcriptBody")
        self._msgs = QVBoxLayout(self._body)
        self._msgs.setContentsMargins(10, 10, 10, 10)
        self._msgs.setSpacing(10)
        self.scroll.setWidget(self._body)
        self.scroll.verticalScrollBar().rangeChanged.connect(self._stick_to_bottom)
        self._follow = True
        self.scroll.verticalScrollBar().valueChanged.connect(self._on_scrolled)
        left_lay.addWidget(self.scroll, 1)

        row = QHBoxLayout()
        self.input = QLineEdit()
        self.input.setPlaceholderText("Message Kith\u2026  (Enter to send)")
        self.input.setClearButtonEnabled(True)
        self.input.returnPressed.connect(self.submit)
        self.ask_button = QPushButton("Send")
        self.ask_button.setObjectName("primary")
        self.ask_button.setDefault(True)
        self.ask_button.clicked.connect(self.submit)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop the reply here (what was written so far is kept)")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop)
        esc = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)  # Esc stops the reply, like the Stop button
        esc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        esc.activated.connect(self.stop)
        self.input.installEventFilter(self)  # and in the message box itself, where the focus usually is
        row.addWidget(self.input, 1)
        row.addWidget(self.ask_button)
        row.addWidget(self.stop_button)
        left_lay.addLayout(row)

        status_row = QHBoxLayout()
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)  # indeterminate
        self.busy.setTextVisible(False)
        self.busy.setFixedWidth(120)
        self.busy.setMaximumHeight(10)
        self.busy.hide()
        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        status_row.addWidget(self.busy)
        status_row.addWidget(self.status, 1)
        left_lay.addLayout(status_row)
        self.splitter.addWidget(left)

        self.splitter.addWidget(self._build_inspector())
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setStretchFactor(2, 2)
        self.splitter.setSizes([200, 600, 380])
        lay.addWidget(self.splitter, 1)

        self._show_placeholder(WELCOME)
        self._show_memories_placeholder("The memories Kith recalls for each message appear here, "
                                        "with where they came from.")
        self.load_conversations()

    def _build_conversations(self) -> QWidget:
        box = QWidget()
        lay = QVBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        t = QLabel("Conversations")
        t.setObjectName("sectionTitle")
        lay.addWidget(t)
        self.conversation_list = QListWidget()
        self.conversation_list.setObjectName("conversationList")
        self.conversation_list.setWordWrap(True)
        self.conversation_list.setToolTip("Your conversations with Kith, the most recent first; click one to "
                                          "see it and continue it")
        self.conversation_list.itemClicked.connect(lambda item: self.open_conversation(item.data(Qt.ItemDataRole.UserRole)))
        lay.addWidget(self.conversation_list, 1)
        row = QHBoxLayout()
        self.rename_button = QPushButton("Rename\u2026")
        self.rename_button.clicked.connect(lambda: self.rename_conversation())
        self.delete_button = QPushButton("Delete")
        self.delete_button.setToolTip("Delete the conversation's transcript (what you told Kith stays in memory "
                                      "until you forget it)")
        self.delete_button.clicked.connect(lambda: self.delete_conversation())
        row.addWidget(self.rename_button)
        row.addWidget(self.delete_button)
        lay.addLayout(row)
        self._update_conversation_buttons()
        return box

    def _build_inspector(self) -> QWidget:
        box = QFrame()
        box.setObjectName("inspector")
        lay = QVBoxLayout(box)
        lay.setContentsMargins(10, 8, 10, 8)
        lay.setSpacing(6)
        split = QSplitter(Qt.Orientation.Vertical)
        split.setChildrenCollapsible(False)

        mem = QWidget()
        mlay = QVBoxLayout(mem)
        mlay.setContentsMargins(0, 0, 0, 0)
        mlay.setSpacing(4)
        t = QLabel("Memories used")
        t.setObjectName("sectionTitle")
        self.memories_hint = QLabel("")
        self.memories_hint.setObjectName("muted")
        self.memories_hint.setWordWrap(True)
        mlay.addWidget(t)
        mlay.addWidget(self.memories_hint)
        self.mem_scroll = QScrollArea()
        self.mem_scroll.setObjectName("results")
        self.mem_scroll.setWidgetResizable(True)
        self.mem_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.mem_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._mem_body = QWidget()
        self._mem_body.setObjectName("resultsBody")
        self._cards = QVBoxLayout(self._mem_body)
        self._cards.setContentsMargins(0, 0, 4, 0)
        self._cards.setSpacing(6)
        self.mem_scroll.setWidget(self._mem_body)
        mlay.addWidget(self.mem_scroll, 1)
        split.addWidget(mem)

        self.brief_view = QTextBrowser()
        self.brief_view.setObjectName("briefView")
        self.brief_view.setOpenLinks(False)
        self.brief_view.setHtml(_muted_html("How you (or the person chosen above) like to be written to: "
                                            "it fills in as Kith learns from your chats."))
        br, self.brief_title = section("Brief \u2014 you", self.brief_view, top_margin=6)
        split.addWidget(br)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([3000, 1400])  # the memories first: the brief's text left room for only one card
        self.inspector_split = split
        lay.addWidget(split, 1)
        return box

    # -- state --------------------------------------------------------------------------
    @property
    def busy_running(self) -> bool:
        """True while a turn or a draft is running."""
        return self._job is not None

    def set_known(self, rows: list) -> None:
        """Told by the window what memory holds (the entity rows): fills the person list, and lets an
        idle Chat say what to do first, or suggest a few names to ask about."""
        self._memory_empty = not rows
        people = [r for r in rows if r.kind == "person" and "@" not in r.name]
        places = [r.name for r in rows if r.kind == "place"][:2]
        self._suggestions = [r.name for r in people[:3]] + places
        current = self.partner_combo.currentData()
        self.partner_combo.blockSignals(True)
        self.partner_combo.clear()
        self.partner_combo.addItem("You (the owner)", OWNER)
        for r in sorted(people, key=lambda r: r.name.casefold()):
            self.partner_combo.addItem(r.name, r.id)
        idx = self.partner_combo.findData(current)
        self.partner_combo.setCurrentIndex(max(0, idx))
        self.partner_combo.blockSignals(False)
        self._update_buttons()
        if not self.bubbles and self._job is None:
            self._show_placeholder(EMPTY_MEMORY if self._memory_empty else WELCOME, self._suggestions)

    def partner(self):
        """The chosen person's entity id (None: the owner)."""
        return self.partner_combo.currentData()

    def set_partner(self, name_or_id) -> bool:
        """Choose the conversation partner by name or id; False when not in the list."""
        for i in range(self.partner_combo.count()):
            if self.partner_combo.itemData(i) == name_or_id or self.partner_combo.itemText(i) == name_or_id:
                self.partner_combo.setCurrentIndex(i)
                return True
        return False

    def model_settings_changed(self) -> None:
        """The model settings were saved: the next turn builds the model again."""
        self.session.reset_model()
        self.banner.hide()

    # -- a turn -------------------------------------------------------------------------
    def ask(self, question: str) -> Job | None:
        """Put ``question`` in the box and send it (for code and tests)."""
        self.input.setText(question)
        return self.submit()

    def submit(self) -> Job | None:
        """Send the message in the box as a chat turn on the worker; ignored while one runs or when blank."""
        text = self.input.text().strip()
        if self._job is not None:
            return None
        if not text:
            self._set_status("Type a message first.")
            return None
        if not self.bubbles:
            self._clear_transcript()
        self.input.clear()
        self._add_bubble("user", text)
        self._live = self._add_bubble("assistant", "\u2026")
        partner = self.partner()
        job = self._worker.submit(lambda j: self.session.turn(text, partner, j), name="chat-turn")
        job.progress.connect(self._on_progress)
        job.finished.connect(self._on_turn)
        job.failed.connect(self._on_failed)
        self._job = job
        self._set_busy(True, "Recalling memories\u2026")
        return job

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
        """Esc in the message box stops the running reply."""
        from PySide6.QtCore import QEvent

        if obj is self.input and event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Escape \
                and self._job is not None:
            self.stop()
            return True
        return super().eventFilter(obj, event)

    def open_source(self, result: AskResult):
        """Open what a citation rests on: a photo or a video in the system's viewer; a message or a memo's transcript
        in a window of its own (with its sender, time and file).  Returns the window (None for a photo or video)."""
        from PySide6.QtWidgets import QDialog

        from app.operations.ask import record_source

        if result.record_id:
            try:
                src = record_source(self._container, result.record_id)
            except Exception as exc:  # noqa: BLE001 - forgotten meanwhile: say so
                from ui.worker import describe_error

                self._set_status(f"Cannot open it: {describe_error(exc)}", error=True)
                return None
        else:
            src = {"kind": result.kind, "path": result.source, "subject": result.subject, "sender": result.sender,
                   "when": result.when, "text": result.text}
        if src["kind"] in ("photo", "video") and open_path(src["path"]):  # shown by the system's own viewer
            self.last_opened = src
            return None
        dlg = QDialog(self)
        dlg.setWindowTitle(src.get("subject") or f"{src['kind']} from {src.get('sender') or 'unknown'}")
        lay = QVBoxLayout(dlg)
        head = QLabel(" \u00b7 ".join(x for x in (src.get("sender") or "", format_when(src.get("when")),
                                                    src.get("path") or "") if x))
        head.setWordWrap(True)
        lay.addWidget(head)
        body = QTextBrowser()
        body.setPlainText(src.get("text") or "")
        lay.addWidget(body, 1)
        dlg.resize(560, 420)
        dlg.show()
        self.last_opened = src
        self.source_window = dlg
        return dlg

    def stop(self) -> None:
        """Stop the running reply (what was written so far is kept)."""
        if self._job is not None:
            self._job.cancel()
            self.stop_button.setEnabled(False)
            self._set_status("Stopping\u2026")

    def _on_progress(self, value) -> None:
        if not isinstance(value, dict):
            return
        kind, text = value.get("kind"), value.get("text", "")
        if kind == "loading":
            self._set_status(text)
        elif kind == "recall":
            self._set_status("Recalling memories and writing\u2026")
        elif kind == "text" and self._live is not None:
            self._live.set_text(text)
            self._set_status("Writing\u2026 (Stop keeps what is written)")

    def _on_turn(self, outcome: TurnOutcome) -> None:
        self._job = None
        res = outcome.result
        self.last_outcome = outcome
        live, self._live = self._live, None
        if live is not None:
            live.set_text(bubble_text(self.reply_text(res), list(outcome.memories), set(outcome.cited)))
            bits = []
            if res.no_model:
                bits.append("from memory alone")
            else:
                bits.append(f"model: {Path(str(res.model)).name}")
            if outcome.cited:
                bits.append("cites " + " ".join(f"[{n}]" for n in sorted(outcome.cited)))
            if res.cancelled:
                bits.append("stopped")
            live.set_meta("  \u00b7  ".join(bits))
        self._show_banner(res.no_model, outcome.model_error)
        self.results = list(outcome.memories)
        from app.answer import NOTHING

        reply = str(getattr(res, "reply", "") or "").strip()
        from_graph = not outcome.memories and bool(reply) and not reply.startswith(NOTHING)
        self._show_memories(outcome.memories, outcome.cited, from_graph)
        if outcome.brief is not None:
            self._show_brief(outcome.brief)
        n = len(outcome.memories)
        msg = f"Answered from {n} memor{'y' if n == 1 else 'ies'}." if n else \
            "Answered from what Kith knows across your records." if from_graph else "No memories matched."
        if res.cancelled:
            msg = "Stopped. " + msg
        if res.warnings:
            msg += "  (" + "; ".join(res.warnings[:2]) + ")"
        self._set_busy(False, msg)
        if outcome.conversation:
            self.conversation_id = outcome.conversation
        self.load_conversations()
        self.turnFinished.emit(outcome)
        self.askFinished.emit(self.results)

    @staticmethod
    def reply_text(res) -> str:
        """What the transcript shows for a turn: the reply (the memory answer is one line, then its sources)."""
        return res.reply or "(no reply)"

    def _on_failed(self, message: str) -> None:
        self._job = None
        live, self._live = self._live, None
        if live is not None:
            if live.text() in ("", "\u2026"):
                live.set_text("(no reply)")
            live.set_meta("failed")
        self._set_busy(False, "")
        self._set_status(f"Could not answer: {message}", error=True)
        self.askFailed.emit(message)

    # -- "Write to…" --------------------------------------------------------------------
    def write_to(self, request: str | None = None) -> Job | None:
        """Draft a message to the chosen person (the box's text says what about; a catch-up by default)."""
        partner = self.partner()
        if self._job is not None or partner is OWNER:
            return None
        name = self.partner_combo.currentText()
        request = (request if request is not None else self.input.text()).strip() or DEFAULT_DRAFT_REQUEST
        if not self.bubbles:
            self._clear_transcript()
        self.input.clear()
        self._add_bubble("user", f"Help me write to {name}: {request}")
        self._live = self._add_bubble("draft", "\u2026", title=f"Draft to {name}")
        job = self._worker.submit(lambda j: self.session.draft(partner, name, request, j), name="draft")
        job.progress.connect(self._on_progress)
        job.finished.connect(self._on_draft)
        job.failed.connect(self._on_draft_failed)
        self._job = job
        self._set_busy(True, f"Drafting a message to {name}\u2026")
        return job

    def _on_draft(self, outcome: DraftOutcome) -> None:
        self._job = None
        live, self._live = self._live, None
        if live is not None:
            live.set_text(outcome.text or "(empty draft)")
            live.set_meta("no model: Kith's notes instead of a draft" if outcome.no_model
                          else ("stopped" if outcome.cancelled else "a draft \u2014 copy it and edit it"))
        self._show_banner(outcome.no_model, outcome.model_error)
        self._set_busy(False, f"Draft to {outcome.person} ready." if not outcome.no_model else "")
        self.draftFinished.emit(outcome)

    def _on_draft_failed(self, message: str) -> None:
        self._job = None
        live, self._live = self._live, None
        if live is not None:
            live.set_text("(no draft)")
        self._set_busy(False, "")
        self._set_status(f"Could not draft: {message}", error=True)

    # -- the brief ----------------------------------------------------------------------
    def _on_partner(self, _index: int) -> None:
        self._update_buttons()
        self.load_brief()

    def load_brief(self) -> Job:
        """Load the chosen person's brief into the inspector (on the worker)."""
        self._brief_gen += 1
        gen = self._brief_gen
        partner = self.partner()
        self.brief_title.setText(f"Brief \u2014 {'you' if partner is OWNER else self.partner_combo.currentText()}")
        job = self._worker.call(self.session.brief, partner, name="brief")
        job.finished.connect(lambda b, g=gen: self._show_brief(b) if g == self._brief_gen else None)
        job.failed.connect(lambda m, g=gen: self.brief_view.setHtml(_muted_html(f"No brief: {html.escape(m)}"))
                           if g == self._brief_gen else None)
        return job

    def _show_brief(self, brief: dict) -> None:
        self.last_brief = brief
        name = "You" if self.partner() is OWNER else self.partner_combo.currentText()
        self.brief_view.setHtml(brief_html(brief, name))
        self.briefLoaded.emit(brief)

    # -- kept conversations ----------------------------------------------------------------
    def load_conversations(self) -> Job:
        """List the kept conversations (on the worker) into the conversations list."""
        from app.operations.conversations import list_conversations

        self._list_gen += 1
        gen = self._list_gen
        job = self._worker.call(list_conversations, self._container, name="conversations")
        job.finished.connect(lambda rows, g=gen: self._show_conversations(rows) if g == self._list_gen else None)
        job.failed.connect(lambda m: self._set_status(f"Could not list the conversations: {m}", error=True))
        return job

    def _show_conversations(self, rows: list) -> None:
        self.conversation_rows = list(rows)
        lst = self.conversation_list
        lst.blockSignals(True)
        lst.clear()
        for r in rows:
            when = format_when(r.updated_at.isoformat())
            who = f" \u00b7 with {r.partner}" if r.partner else ""
            item = QListWidgetItem(f"{r.title}\n{when} \u00b7 {r.turns // 2} turn{'s' if r.turns // 2 != 1 else ''}{who}")
            item.setData(Qt.ItemDataRole.UserRole, r.id)
            item.setToolTip(r.title)
            lst.addItem(item)
            if r.id == self.conversation_id:
                item.setSelected(True)
                lst.setCurrentItem(item)
        lst.blockSignals(False)
        self._update_conversation_buttons()
        self.conversationsLoaded.emit(self.conversation_rows)

    def conversation_titles(self) -> list[str]:
        """The titles in the conversations list, top first (for code and tests)."""
        return [r.title for r in self.conversation_rows]

    def open_conversation(self, conversation_id: str) -> Job | None:
        """Show a kept conversation (loaded on the worker); the next message continues it.  Ignored while a
        reply is running."""
        from app.operations.conversations import open_conversation

        if self._job is not None or not conversation_id:
            return None

        def work(j: Job):
            conv = open_conversation(self._container, conversation_id)
            self.session.resume(conv)
            return conv
        job = self._worker.submit(work, name="open-conversation")
        job.finished.connect(self._show_conversation)
        job.failed.connect(self._on_open_failed)
        self._job = job
        self._set_busy(True, "Opening the conversation\u2026")
        return job

    def _show_conversation(self, conv) -> None:
        self._job = None
        self.conversation_id = conv.info.id
        self.bubbles.clear()
        self._clear_transcript()
        last = None
        for t in conv.turns:
            text = bubble_text(t.text, t.memories, set(t.cited), t.numbers) if t.role == "assistant" else t.text
            b = self._add_bubble(t.role, text)
            if t.role == "assistant":
                last = t
                bits = [format_when(t.at.isoformat())]
                bits.append("from memory alone" if t.meta.get("no_model") else
                            f"model: {Path(str(t.meta.get('model', ''))).name}")
                if t.cited:
                    bits.append("cites " + " ".join(f"[{n}]" for n in sorted(t.cited)))
                if t.meta.get("cancelled"):
                    bits.append("stopped")
                b.set_meta("  \u00b7  ".join(bits))
        if last is not None and last.memories:
            self.results = list(last.memories)
            self._show_memories(last.memories, {i for i, n in enumerate(last.numbers, 1) if n in last.cited})
        else:
            self.results = []
            self._show_memories_placeholder("The memories Kith recalls for each message appear here.")
        partner = conv.info.partner_id
        idx = self.partner_combo.findData(partner)
        if idx >= 0 and idx != self.partner_combo.currentIndex():
            self.partner_combo.setCurrentIndex(idx)
        for i in range(self.conversation_list.count()):
            item = self.conversation_list.item(i)
            item.setSelected(item.data(Qt.ItemDataRole.UserRole) == conv.info.id)
        n = len(conv.turns)
        self._set_busy(False, f"\u201c{conv.info.title}\u201d \u2014 {n} message{'s' if n != 1 else ''}; "
                              "write to continue it.")
        self.conversationOpened.emit(conv)

    def _on_open_failed(self, message: str) -> None:
        self._job = None
        self._set_busy(False, "")
        self._set_status(f"Could not open the conversation: {message}", error=True)
        self.load_conversations()

    def selected_conversation(self) -> str | None:
        """The id of the conversation selected in the list (else the one shown), or None."""
        items = self.conversation_list.selectedItems()
        if items:
            return items[0].data(Qt.ItemDataRole.UserRole)
        return self.conversation_id

    def rename_conversation(self, conversation_id: str | None = None, title: str | None = None) -> Job | None:
        """Rename a kept conversation (default: the selected one); asks for the title when none is given."""
        from app.operations.conversations import rename

        cid = conversation_id or self.selected_conversation()
        if not cid:
            return None
        if title is None:
            current = next((r.title for r in self.conversation_rows if r.id == cid), "")
            title, ok = QInputDialog.getText(self, "Rename conversation", "Title:", text=current)
            if not ok:
                return None
        if not title.strip():
            self._set_status("A conversation needs a title.", error=True)
            return None
        job = self._worker.call(rename, self._container, cid, title, name="rename-conversation")
        job.finished.connect(lambda _info: self.load_conversations())
        job.failed.connect(lambda m: self._set_status(f"Could not rename it: {m}", error=True))
        return job

    def delete_conversation(self, conversation_id: str | None = None, confirm: bool = True) -> Job | None:
        """Delete a kept conversation's transcript (default: the selected one), after a confirmation."""
        from app.operations.conversations import delete

        cid = conversation_id or self.selected_conversation()
        if not cid or (self._job is not None and cid == self.conversation_id):
            return None
        title = next((r.title for r in self.conversation_rows if r.id == cid), cid)
        if confirm and QMessageBox.question(
                self, "Delete conversation",
                f"Delete \u201c{title}\u201d? Its messages and the memories they cited are removed from this "
                "list; what you told Kith in it stays in memory until you forget it.") != QMessageBox.StandardButton.Yes:
            return None
        job = self._worker.call(delete, self._container, cid, name="delete-conversation")

        def done(_n, cid=cid):
            if cid == self.conversation_id:
                self.new_conversation()
            self.load_conversations()
        job.finished.connect(done)
        job.failed.connect(lambda m: self._set_status(f"Could not delete it: {m}", error=True))
        return job

    def _update_conversation_buttons(self) -> None:
        has = bool(self.conversation_rows)
        self.rename_button.setEnabled(has)
        self.delete_button.setEnabled(has)

    # -- new conversation ---------------------------------------------------------------
    def new_conversation(self) -> None:
        """Start over: an empty transcript and a fresh conversation history."""
        if self._job is not None:
            return
        self.session.request_new()
        self.conversation_id = None
        self.conversation_list.clearSelection()
        self.bubbles.clear()
        self.results = []
        self._clear_transcript()
        self._show_placeholder(EMPTY_MEMORY if self._memory_empty else WELCOME, self._suggestions)
        self._show_memories_placeholder("The memories Kith recalls for each message appear here.")
        self._set_status("")

    def shutdown(self) -> None:
        """Called by the window once the worker has stopped."""
        self.session.close()

    # -- presentation -------------------------------------------------------------------
    def _show_banner(self, no_model: bool, error: str) -> None:
        if error:
            self.banner_text.setText(MODEL_FAILED_BANNER.format(error=html.escape(error)))
        else:
            self.banner_text.setText(NO_MODEL_BANNER)
        self.banner.setVisible(no_model or bool(error))

    def _update_buttons(self) -> None:
        busy = self._job is not None
        self.ask_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)
        self.new_button.setEnabled(not busy)
        self.write_button.setEnabled(not busy and self.partner() is not OWNER)
        name = self.partner_combo.currentText() if self.partner() is not OWNER else ""
        self.write_button.setText(f"Write to {name}\u2026" if name else "Write to\u2026")

    def _set_busy(self, busy: bool, text: str) -> None:
        self._update_buttons()
        self.busy.setVisible(busy)
        self._set_status(text)

    def _set_status(self, text: str, error: bool = False) -> None:
        self.status.setObjectName("error" if error else "muted")
        self.status.setText(text)
        self.status.style().unpolish(self.status)
        self.status.style().polish(self.status)

    def _stick_to_bottom(self, _lo: int, hi: int) -> None:
        if self._follow:
            self.scroll.verticalScrollBar().setValue(hi)

    def _on_scrolled(self, value: int) -> None:
        bar = self.scroll.verticalScrollBar()
        self._follow = value >= bar.maximum() - 4

    def _clear_layout(self, layout) -> None:
        while layout.count():
            item = layout.takeAt(0)
            if item.widget() is not None:
                item.widget().hide()  # gone at once, even before the deferred delete runs
                item.widget().deleteLater()

    def _clear_transcript(self) -> None:
        self._clear_layout(self._msgs)
        self._msgs.addStretch(1)

    def _add_bubble(self, role: str, text: str, title: str = "") -> Bubble:
        bubble = Bubble(role, text, title)
        row = QWidget()
        h = QHBoxLayout(row)
        h.setContentsMargins(0, 0, 0, 0)
        if role == "user":
            h.addSpacing(80)
            h.addWidget(bubble, 1)
        else:
            h.addWidget(bubble, 1)
            h.addSpacing(80)
        _add(self._msgs, row)
        self.bubbles.append(bubble)
        self._follow = True
        return bubble

    def transcript(self) -> list[tuple[str, str]]:
        """The transcript as ``(role, text)`` pairs (for code and tests)."""
        return [(b.role, b.text()) for b in self.bubbles]

    def _show_placeholder(self, text: str, suggestions: list[str] | None = None) -> None:
        self._clear_layout(self._msgs)
        self._msgs.addStretch(1)
        label = QLabel(text)
        label.setObjectName("placeholder")
        label.setWordWrap(True)
        label.setMinimumWidth(1)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        _add(self._msgs, label)
        for n in range(0, len(suggestions or []), 3):  # rows of three, so the transcript never scrolls sideways
            box = QWidget()
            row = QHBoxLayout(box)
            row.setContentsMargins(0, 8 if n == 0 else 2, 0, 0)
            row.addStretch(1)
            if n == 0:
                hint = QLabel("Try:")
                hint.setObjectName("muted")
                row.addWidget(hint)
            for text in suggestions[n:n + 3]:
                b = QPushButton(text if len(text) <= 32 else text[:31] + "\u2026")
                b.setToolTip(text)
                b.setObjectName("suggestion")
                b.setCursor(Qt.CursorShape.PointingHandCursor)
                b.clicked.connect(lambda _=False, q=text: self.ask(q))
                row.addWidget(b)
            row.addStretch(1)
            _add(self._msgs, box)
        self._msgs.addStretch(2)

    def _show_memories_placeholder(self, text: str) -> None:
        self._clear_layout(self._cards)
        self.memories_hint.setText("")
        label = QLabel(text)
        label.setObjectName("placeholder")
        label.setWordWrap(True)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._cards.addStretch(1)
        _add(self._cards, label)
        self._cards.addStretch(2)

    def _show_memories(self, memories: list[AskResult], cited: set[int], from_graph: bool = False) -> None:
        if not memories:
            self._show_memories_placeholder(EMPTY_MEMORY if self._memory_empty else FROM_GRAPH if from_graph
                                            else NO_MATCH)
            return
        self._clear_layout(self._cards)
        n_cited = len(cited)
        self.memories_hint.setText(f"{len(memories)} recalled for the last message"
                                   + (f", {n_cited} cited by the reply" if n_cited else "") + ", best first.")
        for i, r in enumerate(memories, 1):
            _add(self._cards, ResultCard(i, r, cited=i in cited, compact=True, on_open=self.open_source))
        self._cards.addStretch(1)
        self.mem_scroll.verticalScrollBar().setValue(0)


# ------------------------------------------------------------------------------------------- brief text


def _muted_html(text: str) -> str:
    return f"<p style='color:#6b7280'>{html.escape(text)}</p>"


def formality_words(current: float, trend: str) -> str:
    """A brief's formality (0 casual … 1 formal, ``core.personal.briefing.Formality``) in words, not a figure:
    0.41 and "stable" → ``"fairly casual"``; 0.8 and "falling" → ``"formal, growing more casual"``."""
    level = ("casual" if current < 0.3 else "fairly casual" if current < 0.45 else
             "neither formal nor casual" if current <= 0.55 else "fairly formal" if current < 0.7 else "formal")
    drift = {"rising": ", growing more formal", "falling": ", growing more casual"}.get(trend, "")
    return level + drift


def brief_html(b: dict, fallback_name: str = "") -> str:
    """A readable rendering of a brief's JSON (``Brief.to_json()``) for the inspector."""
    p = b.get("person") or {}
    style, timing, topics = b.get("style") or {}, b.get("timing") or {}, b.get("topics") or {}
    name = html.escape(p.get("name") or fallback_name or f"person {p.get('id', '?')}")
    n = p.get("interaction_count", 0) or 0
    out = [f"<p><b>{name}</b> <span style='color:#6b7280'>\u2014 from {n} interaction{'s' if n != 1 else ''}"
           f"</span></p><ul style='margin-left:-20px'>"]
    if style.get("samples"):
        form = style.get("formality") or {}
        out.append(f"<li>Style: {html.escape(str(style.get('preferred_length')))} messages, "
                   f"{html.escape(str(style.get('preferred_structure')))}; "
                   f"{formality_words(float(form.get('current', 0.5)), str(form.get('trend', '')))}; "
                   f"emoji: {html.escape(str(style.get('emoji_usage')))}</li>")
    hot = topics.get("hot") or []
    if hot:
        out.append("<li>Hot topics: " + ", ".join(f"<b>{html.escape(h['topic'])}</b> ({html.escape(h['velocity'])})"
                                                  for h in hot) + "</li>")
    cold = topics.get("cold") or []
    if cold:
        out.append("<li>Handle lightly: " + ", ".join(html.escape(c["topic"]) for c in cold) + "</li>")
    hours = timing.get("most_active_hours") or []
    if hours:
        out.append(f"<li>Most responsive ({html.escape(str(timing.get('timezone', 'UTC')))}): "
                   + ", ".join(f"{h:02d}h" for h in hours) + "</li>")
    for pat in (b.get("what_works") or {}).get("high_engagement_patterns", []):
        out.append(f"<li>Works: {html.escape(pat)}</li>")
    for pat in (b.get("what_doesnt_work") or {}).get("low_engagement_patterns", []):
        out.append(f"<li>Doesn't work: {html.escape(pat)}</li>")
    for o in b.get("observations") or []:
        out.append(f"<li>Observed: {html.escape(o)}</li>")
    out.append("</ul>")
    if len(out) == 2:
        out = out[:1] + [_muted_html("Nothing learned yet \u2014 the brief fills in as you chat and as "
                                     "conversations are imported.")]
    return "".join(out)

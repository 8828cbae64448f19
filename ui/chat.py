"""The Chat tab: ask a question, see the best matching memories as cards (text, source, time, score)."""
from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QFrame, QHBoxLayout, QLabel, QLineEdit, QProgressBar, QPushButton, QScrollArea,
                               QSizePolicy, QVBoxLayout, QWidget)

from app.operations.types import AskResult
from ui import format_when, header
from ui.worker import Job, Worker

PREVIEW_LINES = 4
PREVIEW_CHARS = 420

EMPTY_MEMORY = "Your memory is empty. Add mail, photos or folders in the Inbox tab first, then ask here."
NO_MATCH = ("Nothing in memory matches that. If you have not added anything yet, "
            "drop some files into the Inbox tab first.")
WELCOME = "Ask about the people, places and things in your archives, e.g. \u201cwhere did we go in June?\u201d"


def preview_text(text: str, lines: int = PREVIEW_LINES, limit: int = PREVIEW_CHARS) -> str:
    """The first few non-empty lines of ``text`` (bare ``>`` quote lines skipped), cut at ``limit`` characters."""
    kept = [" ".join(line.split()) for line in text.splitlines() if line.strip(" \t>")]
    out = "\n".join(kept[:lines])
    more = len(kept) > lines
    if len(out) > limit:
        out, more = out[:limit].rstrip(), True
    return out + (" \u2026" if more else "")


def _ask(container, question: str) -> list[AskResult]:
    """Worker side: imported here so a broken ingestor module shows as an error, not a dead window."""
    from app.operations.ask import ask

    return ask(container, question)


class ResultCard(QFrame):
    """One answer: title line (subject / sender), the first lines of text, then source, time and score."""

    def __init__(self, index: int, result: AskResult, parent: QWidget | None = None):
        super().__init__(parent)
        self.result = result
        self.setObjectName("card")
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(14, 10, 14, 10)
        lay.setSpacing(5)

        body_text = result.text.strip()
        if result.subject and body_text.startswith(result.subject):
            body_text = body_text[len(result.subject):].strip()
        title_text = result.subject
        if not title_text:  # a photo or an untitled note: its first line is the title
            first, _, rest = body_text.partition("\n")
            title_text, body_text = " ".join(first.split())[:120] or "(untitled)", rest.strip()
        if result.sender:
            title_text += f" \u2014 from {result.sender}"

        top = QHBoxLayout()
        title = QLabel(f"{index}. {title_text}")
        title.setObjectName("cardTitle")
        title.setTextFormat(Qt.TextFormat.PlainText)
        title.setWordWrap(True)
        score = QLabel(f"score {result.score:.4f}")
        score.setObjectName("score")
        score.setToolTip("Reciprocal-rank-fusion score of full-text and meaning search (higher is better)")
        top.addWidget(title, 1)
        top.addWidget(score, 0, Qt.AlignmentFlag.AlignTop)
        lay.addLayout(top)

        if body_text:
            body = QLabel(preview_text(body_text))
            body.setTextFormat(Qt.TextFormat.PlainText)
            body.setWordWrap(True)
            body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            lay.addWidget(body)

        src = result.source or "unknown source"
        meta = QLabel(f"<b>Source</b> {html.escape(Path(src).name or src)}&nbsp;&nbsp;&nbsp;"
                      f"<b>When</b> {html.escape(format_when(result.when))}")
        meta.setObjectName("cardMeta")
        meta.setTextFormat(Qt.TextFormat.RichText)
        meta.setToolTip(src)
        lay.addWidget(meta)


class ChatWidget(QWidget):
    """Ask a question of memory; runs :func:`app.operations.ask.ask` on the worker.

    Signals:
        askFinished(object): the list of :class:`AskResult` (possibly empty).
        askFailed(str): a message; also shown inline.
    """

    askFinished = Signal(object)
    askFailed = Signal(str)

    def __init__(self, container, worker: Worker, parent: QWidget | None = None):
        super().__init__(parent)
        self._container = container
        self._worker = worker
        self._job: Job | None = None
        self._memory_empty: bool | None = None
        self._suggestions: list[str] = []
        self.results: list[AskResult] = []

        lay = QVBoxLayout(self)
        lay.setContentsMargins(18, 14, 18, 12)
        lay.setSpacing(10)
        lay.addWidget(header("Chat", "Ask anything; Kith answers from your own archives only \u2014 "
                                     "each answer shows where it came from, when, and how well it matched."))

        row = QHBoxLayout()
        self.input = QLineEdit()
        self.input.setPlaceholderText("Ask your memory\u2026  (Enter to ask)")
        self.input.setClearButtonEnabled(True)
        self.input.returnPressed.connect(self.submit)
        self.ask_button = QPushButton("Ask")
        self.ask_button.setObjectName("primary")
        self.ask_button.setDefault(True)
        self.ask_button.clicked.connect(self.submit)
        row.addWidget(self.input, 1)
        row.addWidget(self.ask_button)
        lay.addLayout(row)

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
        lay.addLayout(status_row)

        self.scroll = QScrollArea()
        self.scroll.setObjectName("results")
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._body = QWidget()
        self._body.setObjectName("resultsBody")
        self._cards = QVBoxLayout(self._body)
        self._cards.setContentsMargins(0, 0, 6, 0)
        self._cards.setSpacing(8)
        self.scroll.setWidget(self._body)
        lay.addWidget(self.scroll, 1)
        self._show_placeholder(WELCOME)

    # -- state --------------------------------------------------------------------------
    @property
    def busy_running(self) -> bool:
        """True while a question is being answered."""
        return self._job is not None

    def set_known(self, rows: list) -> None:
        """Told by the window what memory holds (the entity rows), so an idle Chat can say what to do
        first, or suggest a few names to ask about."""
        self._memory_empty = not rows
        people = [r.name for r in rows if r.kind == "person" and "@" not in r.name][:3]
        places = [r.name for r in rows if r.kind == "place"][:2]
        self._suggestions = people + places
        if not self.results and self._job is None:
            self._show_placeholder(EMPTY_MEMORY if self._memory_empty else WELCOME, self._suggestions)

    # -- asking -------------------------------------------------------------------------
    def ask(self, question: str) -> Job | None:
        """Put ``question`` in the box and ask it (for code and tests)."""
        self.input.setText(question)
        return self.submit()

    def submit(self) -> Job | None:
        """Ask the question in the box on the worker; ignored while one is running or when blank."""
        question = self.input.text().strip()
        if self._job is not None:
            return None
        if not question:
            self.status.setObjectName("muted")
            self.status.setText("Type a question first.")
            self._restyle(self.status)
            return None
        self._set_busy(True, f"Searching memory for \u201c{question}\u201d\u2026")
        job = self._worker.call(_ask, self._container, question, name="ask")
        job.finished.connect(lambda res, q=question: self._on_results(q, res))
        job.failed.connect(self._on_failed)
        self._job = job
        return job

    def _on_results(self, question: str, results: list[AskResult]) -> None:
        self._job = None
        self.results = list(results)
        self._clear_cards()
        if not results:
            self._set_busy(False, "")
            self._show_placeholder(EMPTY_MEMORY if self._memory_empty else NO_MATCH)
        else:
            self._set_busy(False, f"{len(results)} memor{'y' if len(results) == 1 else 'ies'} "
                                  f"for \u201c{question}\u201d, best first.")
            for i, r in enumerate(results, 1):
                self._cards.addWidget(ResultCard(i, r))
            self._cards.addStretch(1)
            self.scroll.verticalScrollBar().setValue(0)
        self.askFinished.emit(self.results)

    def _on_failed(self, message: str) -> None:
        self._job = None
        self._set_busy(False, "")
        self.status.setObjectName("error")
        self.status.setText(f"Could not answer: {message}")
        self._restyle(self.status)
        self.askFailed.emit(message)

    # -- presentation -------------------------------------------------------------------
    def _set_busy(self, busy: bool, text: str) -> None:
        self.ask_button.setEnabled(not busy)
        self.busy.setVisible(busy)
        self.status.setObjectName("muted")
        self.status.setText(text)
        self._restyle(self.status)

    @staticmethod
    def _restyle(w: QWidget) -> None:
        w.style().unpolish(w)
        w.style().polish(w)

    def _clear_cards(self) -> None:
        while self._cards.count():
            item = self._cards.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()

    def _show_placeholder(self, text: str, suggestions: list[str] | None = None) -> None:
        self._clear_cards()
        self._cards.addStretch(1)
        label = QLabel(text)
        label.setObjectName("placeholder")
        label.setWordWrap(True)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._cards.addWidget(label)
        if suggestions:
            box = QWidget()
            row = QHBoxLayout(box)
            row.setContentsMargins(0, 8, 0, 0)
            row.addStretch(1)
            hint = QLabel("Try:")
            hint.setObjectName("muted")
            row.addWidget(hint)
            for text in suggestions:
                b = QPushButton(text)
                b.setObjectName("suggestion")
                b.setCursor(Qt.CursorShape.PointingHandCursor)
                b.clicked.connect(lambda _=False, q=text: self.ask(q))
                row.addWidget(b)
            row.addStretch(1)
            self._cards.addWidget(box)
        self._cards.addStretch(2)

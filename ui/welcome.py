"""The first-run panel: what to drop in, where each export comes from, and a one-click demo archive."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QGridLayout, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ui.icons import icon

# (title, icon, how to get the export) — plain steps; nothing is uploaded anywhere.
SOURCES = (
    ("iPhone", "person",
     "WhatsApp: open a chat \u2192 contact name \u2192 Export Chat \u2192 Without Media, save the .txt. "
     "iMessage: on a Mac, drop ~/Library/Messages/chat.db (Kith needs Full Disk Access for it)."),
    ("Android", "person",
     "WhatsApp: open a chat \u2192 \u22ee \u2192 More \u2192 Export chat \u2192 Without media. "
     "Voice recorder: share the .m4a files to your computer."),
    ("Gmail (Google Takeout)", "topic",
     "takeout.google.com \u2192 Deselect all \u2192 Mail \u2192 Next step \u2192 Create export; unzip and drop "
     "the \u201cAll mail Including Spam and Trash.mbox\u201d file (spam and trash are left out)."),
    ("Telegram Desktop", "group",
     "Settings \u2192 Advanced \u2192 Export Telegram data (or a chat\u2019s \u22ee \u2192 Export chat history), "
     "format HTML (the default) or \u201cMachine-readable JSON\u201d; drop the export folder."),
    ("Photos", "place",
     "Photos on a Mac: File \u2192 Export \u2192 Export Unmodified Original (keeps location and time). "
     "Google Photos: Takeout \u2192 Google Photos. JPEG, HEIC, PNG and WebP are read; nothing leaves this computer."),
)


class WrapLabel(QLabel):
    """A word-wrapped label whose height follows its width (heightForWidth), so the layouts around it give each
    line its room.  In an 800 × 600 window the welcome rows were squeezed below their wrapped height and drew
    over each other (iPhone over Android): a label's minimum height was patched after each resize, which the
    layout, already short of room, could not honour.  The Inbox now scrolls instead of squeezing."""

    def __init__(self, text: str, parent: QWidget | None = None):
        super().__init__(text, parent)
        self.setWordWrap(True)  # QLabel then reports heightForWidth in its size policy


class WelcomePanel(QFrame):
    """Shown in the Inbox while the data folder is empty.  ``demoRequested()``: the demo button was clicked."""

    demoRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("card")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(18, 14, 18, 14)
        lay.setSpacing(8)
        title = QLabel("Welcome to Kith \u2014 start by giving it some of your life")
        title.setObjectName("dropTitle")
        title.setWordWrap(True)
        lay.addWidget(title)
        intro = QLabel("Kith reads exports you make yourself and keeps everything on this computer. "
                       "Here is where each one comes from:")
        intro.setObjectName("muted")
        intro.setWordWrap(True)
        lay.addWidget(intro)
        grid = QGridLayout()
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(6)
        self.source_labels = []
        for row, (name, ic, how) in enumerate(SOURCES):
            pic = QLabel()
            pic.setPixmap(icon(ic).pixmap(20, 20))
            head = QLabel(name)
            head.setObjectName("cardTitle")
            text = WrapLabel(how)
            text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            grid.addWidget(pic, row, 0, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(head, row, 1, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(text, row, 2)
            self.source_labels.append(head)
        grid.setColumnStretch(2, 1)
        lay.addLayout(grid)
        row = QHBoxLayout()
        note = WrapLabel("No archive at hand? Look around with made-up people first:")
        note.setObjectName("muted")
        self.demo_button = QPushButton("Try the demo archive")
        self.demo_button.setObjectName("primary")
        self.demo_button.setToolTip("Import mail, chats and photos of invented people (Sam Rivera and friends) "
                                    "so every view has something to show")
        self.demo_button.clicked.connect(self.demoRequested)
        row.addWidget(note, 1)
        row.addWidget(self.demo_button, 0, Qt.AlignmentFlag.AlignVCenter)
        lay.addLayout(row)

    def clipped_labels(self) -> list[str]:
        """The sources whose steps are drawn shorter than their wrapped text needs (for tests: none)."""
        out = []
        grid = self.layout().itemAt(2).layout()
        for row in range(grid.rowCount()):
            item = grid.itemAtPosition(row, 2)
            lbl = item.widget() if item is not None else None
            if lbl is not None and lbl.isVisible() and lbl.height() < lbl.heightForWidth(lbl.width()):
                out.append(self.source_labels[row].text())
        return out

"""The About dialog: Kith's version, the data folder, and what ships inside with its licence."""
from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from ui.icons import icon


class AboutDialog(QDialog):
    """Built from :func:`app.about.about` (``info``); ``text()`` is what it shows, for tests."""

    def __init__(self, info: dict, parent: QWidget | None = None):
        super().__init__(parent)
        self.info = info
        self.setWindowTitle("About Kith")
        self.setMinimumWidth(680)
        lay = QVBoxLayout(self)
        top = QHBoxLayout()
        pic = QLabel()
        pic.setPixmap(icon("kith").pixmap(64, 64))
        self.head = head = QLabel(f"<b style='font-size:18px'>Kith {html.escape(info['version'])}</b><br>"
                      "A private memory of your life, built from your own archives. Everything stays on "
                      "this computer.")
        head.setWordWrap(True)
        top.addWidget(pic, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(head, 1)
        lay.addLayout(top)
        rows = "".join(
            f"<tr><td>{html.escape(b['name'])}</td><td>{html.escape(b['by'])}</td>"
            f"<td><b>{html.escape(b['licence'])}</b></td>"
            f"<td>{html.escape(b['package'])} {html.escape(b['installed'] or '(not installed)')}</td></tr>"
            for b in info["bundled"])
        self.body = QLabel(
            f"<p><b>Data folder:</b> {html.escape(info['data_folder'])}</p>"
            f"<p><b>Bundled models and data</b> (run offline; models converted once into the data folder):</p>"
            f"<table cellspacing='6'><tr><th align='left'>What</th><th align='left'>By</th>"
            f"<th align='left'>Licence</th><th align='left'>Package</th></tr>{rows}</table>"
            "<p>Kith itself is MIT-licensed.</p>")
        self.body.setTextFormat(Qt.TextFormat.RichText)
        self.body.setWordWrap(True)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.body)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        lay.addWidget(buttons)
        self.adjustSize()
        self.resize(max(self.width(), 680), self.sizeHint().height() + 20)

    def text(self) -> str:
        """The dialog's text without markup."""
        from PySide6.QtGui import QTextDocument

        doc = QTextDocument()
        doc.setHtml(self.head.text() + "<br>" + self.body.text())
        return doc.toPlainText()

"""The first-run welcome panel in the Inbox at a small window size: no row draws over another.

At 800 × 600 the Inbox's layout had less height than the welcome panel, the drop zone and the controls need, so
it squeezed the panel's rows below their wrapped height and the iPhone and Android steps drew over each other.
The Inbox now scrolls instead; every step label is as tall as its wrapped text at its width.
"""
from __future__ import annotations

import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication


def _settle(qtbot) -> None:
    for _ in range(5):
        QApplication.processEvents()
    qtbot.wait(50)
    QApplication.processEvents()


def _rows(welcome) -> list[tuple[str, QRect, list]]:
    """(source name, the row's rectangle in the panel, the row's widgets) for each source row."""
    grid = welcome.layout().itemAt(2).layout()
    rows = []
    for r in range(grid.rowCount()):
        widgets = [grid.itemAtPosition(r, c).widget() for c in range(grid.columnCount())
                   if grid.itemAtPosition(r, c) is not None]
        rect = QRect()
        for w in widgets:
            rect = rect.united(w.geometry())
        rows.append((welcome.source_labels[r].text(), rect, widgets))
    return rows


@pytest.mark.parametrize("size", [(800, 600), (760, 480), (1100, 720), (1600, 1000)])
def test_welcome_rows_do_not_overlap(qtbot, window, size):
    window.show_tab("inbox")
    qtbot.waitUntil(lambda: window.inbox.welcome.isVisible(), timeout=30_000)
    window.resize(*size)
    _settle(qtbot)
    assert window.width() == size[0]
    welcome = window.inbox.welcome
    rows = _rows(welcome)
    assert [name for name, _, _ in rows] == ["iPhone", "Android", "Gmail (Google Takeout)", "Telegram Desktop",
                                             "Photos"]

    # No row's widgets reach into another row.
    for i, (name_a, a, _) in enumerate(rows):
        for name_b, b, _ in rows[i + 1:]:
            assert not a.intersects(b), f"{name_a} {a} overlaps {name_b} {b} at {size}"
    # Rows run top to bottom, in order.
    tops = [rect.top() for _, rect, _ in rows]
    assert tops == sorted(tops)

    # Every label is at least as tall as its text needs at its width, and inside the panel.
    panel = welcome.rect()
    for name, rect, widgets in rows:
        assert panel.contains(rect), f"{name} {rect} outside the panel {panel} at {size}"
        for w in widgets:
            if w.hasHeightForWidth():
                assert w.height() >= w.heightForWidth(w.width()), (name, w.text()[:30], size)
            else:
                assert w.height() >= w.sizeHint().height() or w.pixmap() is not None, (name, size)
    assert welcome.clipped_labels() == []

    # The whole panel's other labels (title, intro, demo note) are not squeezed either.
    from PySide6.QtWidgets import QLabel

    for label in welcome.findChildren(QLabel):
        if label.isVisible() and label.wordWrap():
            assert label.height() >= label.heightForWidth(label.width()), (label.text()[:30], size)

    # The Inbox scrolls when it does not fit rather than squeezing, and never sideways.
    inbox = window.inbox
    page = inbox.scroll.widget()
    assert page.height() >= page.heightForWidth(page.width())
    assert not inbox.scroll.horizontalScrollBar().isVisible()
    # The drop zone and the buttons stay below the panel, not on it.
    below = welcome.geometry().bottom()
    assert inbox.drop_zone.geometry().top() > below
    assert inbox.add_files_button.mapTo(page, inbox.add_files_button.rect().topLeft()).y() > \
        inbox.drop_zone.geometry().bottom()


def test_welcome_panel_alone_at_800_wide(qtbot):
    """The panel by itself, given the height it asks for at 800 px: its rows stack without overlapping."""
    from ui.welcome import WelcomePanel

    panel = WelcomePanel()
    qtbot.addWidget(panel)
    panel.resize(800, panel.heightForWidth(800))
    panel.show()
    qtbot.waitExposed(panel)
    _settle(qtbot)
    rows = _rows(panel)
    for i, (name_a, a, _) in enumerate(rows):
        for name_b, b, _ in rows[i + 1:]:
            assert not a.intersects(b), f"{name_a} {a} overlaps {name_b} {b}"
    for name, _, widgets in rows:
        text = widgets[-1]
        assert text.height() >= text.heightForWidth(text.width()), name


def test_other_tabs_fit_their_words_at_800_wide(qtbot, window):
    """At 800 × 600 in the empty state: People's Aliases header read 'liase', Memory's sensory header was cut to
    'Just perceived (', and Settings drew its two-line keyring note in a four-line gap; at the 760 × 480 minimum
    Settings squeezed the note's last line away."""
    from PySide6.QtGui import QFont, QFontMetrics

    window.resize(800, 600)
    window.show_tab("people")
    _settle(qtbot)
    table = window.people.table
    head = table.horizontalHeader()
    bold = QFont(head.font())
    bold.setBold(True)
    fm = QFontMetrics(bold)
    for col in range(table.model().columnCount()):
        text = table.model().headerData(col, head.orientation())
        assert head.sectionSize(col) >= fm.horizontalAdvance(text) + 16, (text, head.sectionSize(col))

    window.show_tab("memory")
    _settle(qtbot)
    for tree in (window.memory.beliefs, window.memory.goals, window.memory.perceived):
        header = tree.header()
        for col in range(tree.columnCount()):
            text = tree.headerItem().text(col)
            assert header.sectionSize(col) >= fm.horizontalAdvance(text) + 16, (text, header.sectionSize(col))

    for size in ((800, 600), (760, 480)):
        window.resize(*size)
        window.show_tab("settings")
        _settle(qtbot)
        note = window.settings_page.key_status
        if not note.text():
            note.setText("No OS keyring is available on this machine, so your API key is kept in memory for this "
                         "session only; enter it again next time (install and unlock a Secret Service keyring, "
                         "e.g. GNOME Keyring, to keep it).")
            _settle(qtbot)
        need = note.heightForWidth(note.width())
        assert need <= note.height() <= need + note.fontMetrics().lineSpacing(), (size, note.height(), need)

"""Kith's window (PySide6 widgets only; talks to app/, never to core/ stores).

This package's own namespace holds the few pieces every tab shares: the tab
header, time formatting and the style sheet.
"""
from __future__ import annotations

import sys
from datetime import datetime

from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget


def _guard_singleton_refcounts() -> bool:
    """Work around PySide6 6.12 handing out ``None``, ``True`` and ``False`` without a new reference.

    PySide6 6.12 returns these singletons from void methods (``setText``, ``processEvents`` …) and from
    ``SignalInstance.emit`` without taking a reference, as if they were immortal — which they are only on
    Python ≥ 3.12.  On Python 3.11 each call then takes a reference nobody gave, and after enough calls
    (a pyqtgraph repaint makes several) the interpreter aborts with "Fatal Python error: none_dealloc" (or
    "bool_dealloc").  When that happens here (measured on a throwaway object), ``None``, ``True`` and
    ``False`` get 2**40 extra references, which makes them as good as immortal, as on Python ≥ 3.12.
    Returns True when the guard was applied.
    """
    if sys.version_info >= (3, 12):
        return False
    import ctypes

    from PySide6.QtCore import QObject, Signal

    class _Probe(QObject):
        ping = Signal()

    probe = _Probe()
    before = (sys.getrefcount(None), sys.getrefcount(True))
    for _ in range(8):
        probe.setObjectName("probe")
        probe.ping.emit()
    after = (sys.getrefcount(None), sys.getrefcount(True))
    if after[0] >= before[0] and after[1] >= before[1]:
        return False
    for obj in (None, True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += 1 << 40
    return True


BOOL_GUARD = _guard_singleton_refcounts()

STYLE = """
QMainWindow, QTabWidget::pane { background: #f6f7f9; }
QTabWidget::pane { border: 1px solid #d6d9de; border-radius: 6px; top: -1px; }
QTabBar::tab { padding: 7px 18px; margin-right: 2px; border: 1px solid #d6d9de; border-bottom: none;
               border-top-left-radius: 6px; border-top-right-radius: 6px; background: #e9ecf0; color: #3b4250; }
QTabBar::tab:selected { background: #f6f7f9; color: #111827; font-weight: bold; }
QLabel#tabTitle { font-size: 17px; font-weight: bold; color: #111827; }
QLabel#tabHint { color: #5b6472; }
QLabel#sectionTitle { font-weight: bold; font-size: 14px; color: #111827; }
QMenuBar { background: #f6f7f9; color: #111827; }
QMenuBar::item:selected { background: #e9ecf0; }
QLabel#muted { color: #6b7280; }
QLabel#error { color: #b42318; }
QLabel#placeholder { color: #6b7280; font-size: 14px; }
QFrame#card { background: #ffffff; border: 1px solid #dde1e6; border-radius: 8px; }
QFrame#card:hover { border-color: #9aa7b8; }
QLabel#cardTitle { font-weight: bold; color: #111827; }
QLabel#cardMeta { color: #5b6472; }
QPushButton#suggestion { background: #ffffff; border: 1px solid #c9d3e0; border-radius: 14px; padding: 5px 14px;
                         color: #1f4f9c; }
QPushButton#suggestion:hover { background: #eaf2fe; border-color: #2f6fde; }
QLabel#score { color: #1f5fbf; background: #e8f0fc; border-radius: 4px; padding: 1px 6px; }
QFrame#dropZone { background: #ffffff; border: 2px dashed #a8b3c2; border-radius: 12px; }
QFrame#dropZone[active="true"] { background: #eaf2fe; border-color: #2f6fde; }
QLabel#dropTitle { font-size: 16px; font-weight: bold; color: #243042; }
QScrollArea#results { background: transparent; border: none; }
QWidget#resultsBody { background: transparent; }
QTableView { background: #ffffff; alternate-background-color: #f4f6f9; border: 1px solid #d6d9de;
             border-radius: 6px; gridline-color: #eceff3; selection-background-color: #2f6fde; }
QHeaderView::section { background: #eef1f5; padding: 5px 8px; border: none;
                       border-bottom: 1px solid #d6d9de; font-weight: bold; color: #3b4250; }
QTreeWidget { background: #ffffff; alternate-background-color: #f4f6f9; border: 1px solid #d6d9de;
              border-radius: 6px; }
QTreeWidget::item { padding: 3px 2px; }
QPushButton { padding: 6px 14px; border-radius: 5px; border: 1px solid #b9c1cc; background: #ffffff; }
QPushButton:hover { border-color: #7f8da1; }
QPushButton:disabled { color: #a0a7b2; background: #f1f3f5; border-color: #dde1e6; }
QPushButton#primary { background: #2f6fde; color: white; border-color: #2f6fde; font-weight: bold; }
QPushButton#primary:disabled { background: #9dbbef; border-color: #9dbbef; color: #f3f6fb; }
QPushButton#danger { color: #b42318; border-color: #e4a39c; }
QPushButton#danger:disabled { color: #d3a9a4; border-color: #eddcda; }
QLineEdit, QComboBox { padding: 5px 8px; border: 1px solid #b9c1cc; border-radius: 5px; background: #ffffff; }
QLineEdit:focus { border-color: #2f6fde; }
QComboBox { min-width: 90px; }
QProgressBar { border: 1px solid #c4ccd6; border-radius: 5px; background: #ffffff; text-align: center;
               min-height: 18px; }
QProgressBar::chunk { background: #4a86e8; border-radius: 4px; }
QStatusBar { color: #4b5563; }
"""


def header(title: str, hint: str) -> QWidget:
    """The title and one explanatory line shown at the top of every tab."""
    box = QWidget()
    lay = QVBoxLayout(box)
    lay.setContentsMargins(0, 0, 0, 4)
    lay.setSpacing(2)
    t = QLabel(title)
    t.setObjectName("tabTitle")
    h = QLabel(hint)
    h.setObjectName("tabHint")
    h.setWordWrap(True)
    lay.addWidget(t)
    lay.addWidget(h)
    return box


class ScrollPage(QWidget):
    """The body of a tab that scrolls rather than squeezes (see :func:`scroll_page`).

    Its scroll area makes it as tall as the viewport, or as tall as :meth:`heightForWidth` says when that is
    more.  That height is the page's *minimum* at the given width: every wrapped label as tall as its lines need,
    but lists and drop areas at their minimum.  A list then gives up its height before the page starts to scroll
    (the preferred height would scroll a page whose list could simply be shorter), and no label is ever drawn
    over the next one, as the welcome panel's rows were in an 800 × 600 window.
    """

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt API
        lay = self.layout()
        if lay is None or not lay.hasHeightForWidth():
            return super().heightForWidth(width)
        return lay.totalMinimumHeightForWidth(width)


def scroll_page(object_name: str = "resultsBody") -> tuple[QScrollArea, ScrollPage]:
    """A frameless, transparent scroll area holding a :class:`ScrollPage` (give the page its layout): for a tab
    whose content can need more height than a small window has.  Returns (scroll area, page)."""
    area = QScrollArea()
    area.setObjectName("results")
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    page = ScrollPage()
    page.setObjectName(object_name)
    area.setWidget(page)
    return area, page


def section(title: str, body: QWidget, top_margin: int = 4) -> tuple[QWidget, QLabel]:
    """A panel with a section title above ``body`` (which takes the spare height); returns (panel, title label)."""
    panel = QWidget()
    lay = QVBoxLayout(panel)
    lay.setContentsMargins(0, top_margin, 0, 0)
    lay.setSpacing(4)
    label = QLabel(title)
    label.setObjectName("sectionTitle")
    lay.addWidget(label)
    lay.addWidget(body, 1)
    return panel, label


def format_local(iso: str | None, unknown: str = "time unknown") -> str:
    """``'2023-06-10T08:30:00+10:00'`` → ``'10 Jun 2023, 08:30 (UTC+10:00)'``: the time where it happened,
    at the offset the ISO string carries (never converted to this computer's zone)."""
    if not iso:
        return unknown
    try:
        dt = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    off = dt.strftime("%z")
    zone = f" (UTC{off[:3]}:{off[3:]})" if off else ""
    return f"{dt.day} {dt:%b %Y, %H:%M}{zone}"


def format_when(iso: str | None, unknown: str = "time unknown") -> str:
    """``'2021-03-12T14:05:00+00:00'`` → ``'12 Mar 2021, 14:05'`` in local time; ``unknown`` for None."""
    if not iso:
        return unknown
    try:
        dt = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    if dt.tzinfo is not None:
        dt = dt.astimezone()
    return f"{dt.day} {dt:%b %Y, %H:%M}"

"""Light and dark palettes that follow the system (Qt ≥ 6.5 ``QStyleHints.colorScheme``).

The window's style sheets are written once, in light colours.  For dark, every
``#rrggbb`` in them is mapped by :func:`dark_hex` — lightness mirrored into a
dark range, hue kept, saturation eased — so backgrounds turn dark, text turns
light and accents keep their hue, with no second copy of each sheet to keep in
step.  ``KITH_THEME=light|dark`` (or ``kith gui --theme``) overrides the system.
"""
from __future__ import annotations

import colorsys
import os
import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

SCHEMES = ("light", "dark")
_HEX = re.compile(r"#([0-9a-fA-F]{6})\b")
_LIGHT_SHEET = "_kithLightSheet"
_THEMED_SHEET = "_kithThemedSheet"


def system_scheme() -> str:
    """``"dark"`` or ``"light"``: the override in ``KITH_THEME``, else the system's colour scheme
    (QStyleHints.colorScheme), else the lightness of the default window colour."""
    forced = os.environ.get("KITH_THEME", "").strip().lower()
    if forced in SCHEMES:
        return forced
    app = QGuiApplication.instance()
    if app is not None:
        try:
            scheme = app.styleHints().colorScheme()
            if scheme == Qt.ColorScheme.Dark:
                return "dark"
            if scheme == Qt.ColorScheme.Light:
                return "light"
        except AttributeError:  # Qt < 6.5
            pass
        return "dark" if app.palette().color(QPalette.ColorRole.Window).lightness() < 128 else "light"
    return "light"


def dark_hex(hex_colour: str) -> str:
    """The dark-scheme twin of a light-scheme colour: HLS lightness L → 0.11 + 0.80·(1 − L), saturation × 0.85.

    White becomes #1c1c1c-ish (a window background), near-black text becomes near-white, a mid-tone
    accent such as #2f6fde stays a mid-tone of the same hue.
    """
    c = QColor(hex_colour)
    h, l, s = colorsys.rgb_to_hls(c.redF(), c.greenF(), c.blueF())
    r, g, b = colorsys.hls_to_rgb(h, 0.11 + 0.80 * (1.0 - l), s * 0.85)
    return "#{:02x}{:02x}{:02x}".format(round(r * 255), round(g * 255), round(b * 255))


def themed(sheet: str, scheme: str) -> str:
    """``sheet`` with every ``#rrggbb`` mapped to ``scheme`` (unchanged for light)."""
    if scheme != "dark" or not sheet:
        return sheet
    return _HEX.sub(lambda m: dark_hex(m.group(0)), sheet)


def colour(hex_colour: str, scheme: str) -> str:
    """One colour for ``scheme`` (for painting and plots)."""
    return dark_hex(hex_colour) if scheme == "dark" else hex_colour


def palette(scheme: str) -> QPalette:
    """The Fusion palette for ``scheme`` (dialogs and widgets without a style sheet follow it)."""
    p = QPalette()
    base = {"window": "#f6f7f9", "base": "#ffffff", "alt": "#f4f6f9", "text": "#111827", "button": "#ffffff",
            "mid": "#d6d9de", "highlight": "#2f6fde", "hl_text": "#ffffff", "tip": "#ffffff", "link": "#1f5fbf",
            "disabled": "#a0a7b2"}
    c = {k: (colour(v, scheme) if k not in ("highlight", "hl_text") else v) for k, v in base.items()}
    R = QPalette.ColorRole
    for role, key in ((R.Window, "window"), (R.Base, "base"), (R.AlternateBase, "alt"), (R.Text, "text"),
                      (R.WindowText, "text"), (R.Button, "button"), (R.ButtonText, "text"), (R.Mid, "mid"),
                      (R.Highlight, "highlight"), (R.HighlightedText, "hl_text"), (R.ToolTipBase, "tip"),
                      (R.ToolTipText, "text"), (R.Link, "link"), (R.PlaceholderText, "disabled")):
        p.setColor(role, QColor(c[key]))
    for role in (R.Text, R.WindowText, R.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor(c["disabled"]))
    return p


def plot_colours(scheme: str) -> dict[str, str]:
    """Colours for the pictures (pyqtgraph): background, foreground (axes, labels), grid, muted, accents."""
    light = {"bg": "#ffffff", "fg": "#374151", "grid": "#e5e7eb", "muted": "#9aa1ab", "accent": "#2f6fde",
             "accent2": "#d97706", "accent3": "#059669", "accent4": "#db2777", "land": "#e8ede4",
             "coast": "#9aa9a0", "sea": "#f4f8fc", "hot": "#ea580c", "cold": "#2563eb", "text": "#111827"}
    if scheme != "dark":
        return light
    dark = {k: dark_hex(v) for k, v in light.items()}
    dark.update({"accent": "#5b8def", "accent2": "#f59e0b", "accent3": "#34d399", "accent4": "#f472b6",
                 "hot": "#fb923c", "cold": "#60a5fa"})
    return dark


def apply(root: QWidget, scheme: str) -> None:
    """Put ``scheme`` on the application palette and on every style sheet under ``root`` (idempotent: the light
    sheet is kept on each widget and mapped again), then tell widgets with ``set_scheme`` to redraw."""
    app = QApplication.instance()
    if app is not None:
        app.setPalette(palette(scheme))
    for w in [root, *root.findChildren(QWidget)]:
        current = w.styleSheet()
        light = w.property(_LIGHT_SHEET)
        if light is None or current != w.property(_THEMED_SHEET):
            light = current  # never themed, or the widget set a new (light) sheet since
        if not light:
            continue
        out = themed(light, scheme)
        w.setProperty(_LIGHT_SHEET, light)
        w.setProperty(_THEMED_SHEET, out)
        if out != current:
            w.setStyleSheet(out)
    for w in [root, *root.findChildren(QWidget)]:
        fn = getattr(w, "set_scheme", None)
        if callable(fn) and w is not root:
            fn(scheme)

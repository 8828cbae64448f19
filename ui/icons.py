"""Kith's icons (SVG files in ``resources/icons``): the app icon and one per entity kind."""
from __future__ import annotations

from functools import lru_cache
from importlib import resources

from PySide6.QtGui import QIcon

KIND_ICONS = {"person": "person", "group": "group", "place": "place", "event": "event", "topic": "topic",
              "thing": "thing"}
KIND_LABELS = {"person": "person", "group": "list / organisation", "place": "place", "event": "trip / event",
               "topic": "topic", "thing": "thing"}


def icon_path(name: str) -> str:
    """The file path of ``resources/icons/<name>.svg``."""
    return str(resources.files("resources").joinpath("icons", f"{name}.svg"))


@lru_cache(maxsize=None)
def icon(name: str) -> QIcon:
    """``resources/icons/<name>.svg`` as a QIcon (cached; call on the UI thread)."""
    return QIcon(icon_path(name))


def kind_icon(kind: str) -> QIcon:
    """The icon for an entity kind (person, group, place, event, topic, thing)."""
    return icon(KIND_ICONS.get(kind, "thing"))

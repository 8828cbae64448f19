"""Geotagged photos the tests draw themselves (JPEG with EXIF GPS and time), via scripts/make_demo.py's writer."""
from __future__ import annotations

import importlib.util
from datetime import datetime
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location(
    "kith_make_demo", Path(__file__).resolve().parents[2] / "scripts" / "make_demo.py")
make_demo = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(make_demo)


def write_photo(path: Path, when: datetime, lat: float, lon: float,
                colours=((120, 150, 190), (70, 90, 110))) -> Path:
    """A 320 × 240 JPEG (or HEIC for a .heic path) taken at ``when`` (UTC) at ``lat``/``lon``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    make_demo._photo(path, when, lat, lon, colours)
    return path

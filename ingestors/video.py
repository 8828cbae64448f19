"""Video ingestor: a phone's or camera's MP4, QuickTime (``.mov``), ``.m4v`` and 3GPP videos, one record each.

The file's header is read with a small box walker (:func:`read_header`; ISO/IEC 14496-12, the ISO base media
file format, and Apple's QuickTime file format it came from): no third-party library is a dependency for this,
``mutagen`` reads neither QuickTime's ``meta``/``keys`` metadata nor ``udta``'s own ``©xyz``, and ``ffprobe`` is
an optional system program.  Only box headers are read on the way to ``moov`` (the picture and sound in
``mdat`` are skipped, however large); ``moov`` itself is read whole.

Each video becomes one :class:`~ingestors.base.Record` of kind ``"video"``:

* **When** (``attrs["time_basis"]``): Apple's ``com.apple.quicktime.creationdate`` (the phone's local time with
  its offset: ``"creationdate"``), else the ``mvhd`` creation time (seconds since 1904-01-01 UTC:
  ``"creation-time"``), else a ``©day`` tag with a time of day (``"day-tag"``), else a date and time in the file
  name (``VID_20230504_101233.mp4``: ``"file-name"``, ``"file-name-utc"`` for Pixel's ``PXL_…``), else a day alone
  in it (WhatsApp's ``VID-20230504-WA0001.mp4``: ``"file-name-date"``, noon, ``attrs["date_only"]``); with none
  the time stays unknown (``sent_at`` None, a note): the file's modification time is when it was copied, not when
  it was filmed, so it is kept (``attrs["file_modified"]``) but never used, as for photos and voice memos.  A clock
  that was never set (1904, 1970, 2000-01-01) or lies after the import is not used
  (:func:`ingestors.photos.clock_problem`, ``attrs["clock_suspect"]``).  A UTC time is given at the offset of
  the position's time zone (``timezonefinder``, offline), else at the offset the local time in the file name gives
  (:func:`ingestors.voice.offset_from_name`), else in UTC; a time with no offset (a ``©day`` without one, a file
  name's) is read in the position's zone, else ``local_timezone``.
* **Where**: the ISO 6709 position (``+41.8986+012.4769+021.000/``) in Apple's
  ``com.apple.quicktime.location.ISO6709`` or ``udta``'s ``©xyz`` (Android, most cameras), named offline as
  photos are (:func:`ingestors.photos.named_place`).
* **What**: duration (``mvhd``'s duration ÷ timescale, ``attrs["duration_s"]``), the picture's size (the video
  track's ``tkhd``: ``attrs["width"]``, ``["height"]``, ``["rotation"]`` in degrees), the camera
  (``com.apple.quicktime.make``/``model``, ``©mak``/``©mod``, Android's ``com.android.manufacturer``/``model``),
  a title (``©nam``, Apple's ``title``/``displayname``) as the record's subject.
* **Said**: with a ``transcribe`` function (the app passes the voice ingestor's Whisper; ffmpeg reads the
  video's sound track) and a sound track in the file, the transcript follows the description in the text.  A
  transcription that fails (no model set up, no ffmpeg, sound that does not decode) is a note, never a lost
  video.  The text always says what the video is: ``"Video taken 2023-05-04 11:00 at Rome, Latium, Italy with
  Apple iPhone 12 Pro, 0:42"``.

A file that is empty, is no MP4/QuickTime file, is cut short (a box runs past the end of the file) or has no
``moov`` box is an :class:`~core.errors.InputError` naming the file, so the import quarantines it and goes on.
Identity: the SHA-256 of the ``moov`` box (``attrs["moov_sha256"]``), so the same video under two names, or
transcribed again by another model, is one record.
"""
from __future__ import annotations

import contextlib
import hashlib
import math
import re
import struct
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from core.errors import Cancelled, InputError, ModelError
from ingestors.base import GeoPoint, Item, Record, time_zone
from ingestors.file_names import date_from_name, time_from_name
from ingestors.photos import _camera, clock_problem, image_kind, named_place, zone_at
from ingestors.voice import _fmt, _parse_when, offset_from_name

VIDEO_SUFFIXES = frozenset({".mp4", ".mov", ".m4v", ".3gp", ".3g2", ".qt"})
EPOCH_1904 = datetime(1904, 1, 1, tzinfo=timezone.utc)  # mvhd/tkhd times count seconds from here (UTC)
MAX_MOOV_BYTES = 512 << 20  # a header larger than this is not a phone's video: refused, not read into memory
_VIDEO_BRANDS = {b"isom", b"iso2", b"iso4", b"iso5", b"iso6", b"mp41", b"mp42", b"avc1", b"qt  ", b"M4V ", b"M4VH",
                 b"M4VP", b"3gp4", b"3gp5", b"3gp6", b"3gp7", b"3gg6", b"3g2a", b"3g2b", b"3g2c", b"MSNV", b"mmp4",
                 b"XAVC", b"dash", b"hvc1"}
_AUDIO_BRANDS = {b"M4A ", b"M4B ", b"M4P ", b"F4A ", b"F4B "}
_FIRST_BOXES = {b"ftyp", b"moov", b"mdat", b"free", b"skip", b"wide", b"pnot", b"uuid", b"styp", b"pdin"}
_QT_FIRST = {b"moov", b"mdat", b"wide", b"pnot"}  # a QuickTime file from before ftyp starts with one of these
# a QuickTime "international text" language code below this is a Macintosh language code (Mac Roman text)
_MAC_LANGUAGE_LIMIT = 0x400
_FIRST_VIDEO_YEAR = 1990  # a capture time before this is a wrong clock (a Unix time written where 1904's belongs)
_ISO6709 = re.compile(r"^\s*([+-])(\d{2}(?:\d{2}(?:\d{2})?)?)(\.\d+)?([+-])(\d{3}(?:\d{2}(?:\d{2})?)?)(\.\d+)?"
                      r"([+-]\d+(?:\.\d+)?)?")


@dataclass
class Header:
    """What a video's header (its ``moov`` box) says.

    Attributes:
        brand: the ``ftyp`` major brand (``"qt"``, ``"isom"``, ``"mp42"``), or None (an old QuickTime file).
        created: ``mvhd``'s creation time, UTC, or None when it is 0 (not set).
        duration_s: ``mvhd``'s duration ÷ timescale, seconds, or None when not stated.
        width, height: the first video track's picture size in pixels (``tkhd``), or None.
        rotation: degrees the player turns the picture clockwise (``tkhd``'s matrix: 90 for an upright phone), 0
            for none.
        tracks: handler types of the tracks in order (``"vide"``, ``"soun"``, ``"meta"``…).
        tags: metadata by name: Apple's ``meta``/``keys`` names (``"com.apple.quicktime.creationdate"``) and
            ``udta``/``ilst`` four-character codes (``"©xyz"``, ``"©day"``); values as written (str, int or float).
        moov_sha256: SHA-256 hex of the ``moov`` box's bytes.
        problems: metadata boxes that could not be read (their damage does not make the video unreadable).
    """

    brand: str | None = None
    created: datetime | None = None
    duration_s: float | None = None
    width: int | None = None
    height: int | None = None
    rotation: int = 0
    tracks: list[str] = field(default_factory=list)
    tags: dict[str, Any] = field(default_factory=dict)
    moov_sha256: str = ""
    problems: list[str] = field(default_factory=list)


def _box_name(kind: bytes) -> str:
    return kind.decode("latin-1")


def _printable(kind: bytes) -> bool:
    return len(kind) == 4 and all(0x20 <= b < 0x7F or b == 0xA9 for b in kind)


def _boxes(buf: bytes, start: int, end: int, path: Path, where: str) -> Iterator[tuple[bytes, int, int]]:
    """``(type, payload start, payload end)`` of each box in ``buf[start:end]`` (a box's size 1: a 64-bit size
    follows its type; size 0: it runs to ``end``).  Fewer than 8 bytes left over (QuickTime's 4-byte ``udta``
    terminator) end the walk.

    Raises:
        InputError: a box runs past its parent, or its size is smaller than its own header.
    """
    pos = start
    while end - pos >= 8:
        size, kind = struct.unpack_from(">I4s", buf, pos)
        header = 8
        if size == 1:
            if end - pos < 16:
                raise InputError(str(path), f"damaged video header: a box in {where} is cut off inside its size")
            size = struct.unpack_from(">Q", buf, pos + 8)[0]
            header = 16
        elif size == 0:
            size = end - pos
        if size < header or pos + size > end:
            raise InputError(str(path), f"damaged video header: box {_box_name(kind)!r} in {where} "
                             f"({size} bytes, at byte {pos} of the header) runs past the {end - pos} bytes left in it")
        yield kind, pos + header, pos + size
        pos += size


def _meta_start(buf: bytes, start: int, end: int) -> int:
    """Where a ``meta`` box's children begin: QuickTime's (``moov/meta``) is a plain box, ISO's and iTunes'
    (``udta/meta``) a full box, 4 bytes of version and flags first."""
    if end - start >= 8 and buf[start + 4:start + 8] in (b"hdlr", b"keys", b"ilst", b"free"):
        return start
    return start + 4


def _text(raw: bytes, language: int | None = None) -> str:
    """A metadata string: UTF-8 (Mac Roman for a QuickTime text with a Macintosh language code, or bytes
    that are not UTF-8), NULs and surrounding blanks dropped."""
    if language is not None and language < _MAC_LANGUAGE_LIMIT and not raw.isascii():
        return raw.decode("mac_roman").replace("\x00", "").strip()
    try:
        return raw.decode("utf-8").replace("\x00", "").strip()
    except UnicodeDecodeError:
        return raw.decode("mac_roman").replace("\x00", "").strip()


def _data_value(buf: bytes, start: int, end: int) -> Any:
    """The value of an ``ilst`` item's ``data`` box payload: text, a number, or None (a picture, an unknown
    type)."""
    if end - start < 8:
        return None
    kind = int.from_bytes(buf[start + 1:start + 4], "big")
    raw = buf[start + 8:end]
    if kind == 1:
        return _text(raw)
    if kind == 2:
        return raw.decode("utf-16-be", "replace").replace("\x00", "").strip()
    if kind == 23 and len(raw) == 4:
        return struct.unpack(">f", raw)[0]
    if kind == 24 and len(raw) == 8:
        return struct.unpack(">d", raw)[0]
    if kind in (21, 22, 65, 66, 67, 74, 75, 76, 77, 78) and 1 <= len(raw) <= 8:
        return int.from_bytes(raw, "big", signed=kind in (21, 65, 66, 67, 74))
    return None


def _user_data_value(buf: bytes, start: int, end: int) -> Any:
    """A ``udta`` text box's value: QuickTime's international text (2 bytes of length, 2 of language, the
    text), or an iTunes-style ``data`` box inside it."""
    if end - start >= 16 and buf[start + 4:start + 8] == b"data":
        size = int.from_bytes(buf[start:start + 4], "big")
        return _data_value(buf, start + 8, min(end, start + size))
    if end - start < 4:
        return None
    length, language = struct.unpack_from(">HH", buf, start)
    if length and start + 4 + length <= end:
        return _text(buf[start + 4:start + 4 + length], language)
    return _text(buf[start:end]) or None


def _ilst(buf: bytes, start: int, end: int, keys: list[str] | None, tags: dict, path: Path, where: str) -> None:
    """Read an ``ilst`` box into ``tags``: each item's first ``data`` value, named by its four-character code
    (iTunes style), or by ``keys`` when the item's type is a 1-based index into them (QuickTime's ``mdta``)."""
    for kind, s, e in _boxes(buf, start, end, path, where):
        index = int.from_bytes(kind, "big")
        if keys is not None and 1 <= index <= len(keys):
            name = keys[index - 1]
        elif _printable(kind):
            name = _box_name(kind)
        else:
            continue
        for child, cs, ce in _boxes(buf, s, e, path, f"{where}/{name}"):
            if child == b"data":
                value = _data_value(buf, cs, ce)
                if value not in (None, ""):
                    tags.setdefault(name, value)
                break


def _keys(buf: bytes, start: int, end: int) -> list[str]:
    """The names in a ``keys`` box (``mdta`` namespace: ``"com.apple.quicktime.creationdate"``), in order."""
    names: list[str] = []
    pos = start + 8  # version and flags, entry count
    while end - pos >= 8:
        size = int.from_bytes(buf[pos:pos + 4], "big")
        if size < 8 or pos + size > end:
            break
        names.append(_text(buf[pos + 8:pos + size]))
        pos += size
    return names


def _meta(buf: bytes, start: int, end: int, tags: dict, path: Path, where: str) -> None:
    begin = _meta_start(buf, start, end)
    keys = None
    children = list(_boxes(buf, begin, end, path, where))
    for kind, s, e in children:
        if kind == b"keys":
            keys = _keys(buf, s, e)
    for kind, s, e in children:
        if kind == b"ilst":
            _ilst(buf, s, e, keys, tags, path, f"{where}/ilst")


def _udta(buf: bytes, start: int, end: int, tags: dict, path: Path, where: str) -> None:
    for kind, s, e in _boxes(buf, start, end, path, where):
        if kind == b"meta":
            _meta(buf, s, e, tags, path, f"{where}/meta")
        elif kind[:1] == b"\xa9":  # ©xyz, ©day, ©mak, ©mod, ©nam, ©swr…: QuickTime's user data texts
            value = _user_data_value(buf, s, e)
            if value not in (None, ""):
                tags.setdefault(_box_name(kind), value)
        elif kind == b"loci":  # 3GPP's location box (ffmpeg's -metadata location= in an .mp4)
            value = _loci(buf, s, e)
            if value:
                tags.setdefault("loci", value)


def _loci(buf: bytes, start: int, end: int) -> str | None:
    """The position of a 3GPP ``loci`` box (3GPP TS 26.244 8.10: version and flags, language, a NUL-ended name, a
    role byte, then longitude, latitude and altitude as signed 16.16 fixed-point degrees and metres) as an ISO 6709
    string (``"+48.5734+007.7521/"``), or None when the box is cut short."""
    i = start + 6  # version (1), flags (3), pad and language (2)
    if buf[i:i + 2] in (b"\xfe\xff", b"\xff\xfe"):  # a UTF-16 name: up to its two NUL bytes
        j = i + 2
        while j + 1 < end and buf[j:j + 2] != b"\x00\x00":
            j += 2
        i = j + 2
    else:
        j = buf.find(b"\x00", i, end)
        if j < 0:
            return None
        i = j + 1
    i += 1  # role
    if i + 8 > end:
        return None
    lon, lat = (v / 65536.0 for v in struct.unpack_from(">ii", buf, i))
    if not (-90 <= lat <= 90 and -180 <= lon <= 180) or (lat == 0 and lon == 0):
        return None
    return f"{lat:+08.4f}{lon:+09.4f}/"


def _mvhd(buf: bytes, start: int, end: int, header: Header) -> None:
    version = buf[start] if end > start else 0
    need = 32 if version == 1 else 20
    if end - start < need:
        return
    if version == 1:
        created, _modified, scale, duration = struct.unpack_from(">QQIQ", buf, start + 4)
        unknown = 0xFFFFFFFFFFFFFFFF
    else:
        created, _modified, scale, duration = struct.unpack_from(">IIII", buf, start + 4)
        unknown = 0xFFFFFFFF
    if created:
        with contextlib.suppress(OverflowError):
            header.created = EPOCH_1904 + timedelta(seconds=created)
    if scale and duration and duration != unknown:
        header.duration_s = duration / scale


def _tkhd(buf: bytes, start: int, end: int) -> tuple[int, int, int] | None:
    """``(width, height, rotation in degrees)`` from a ``tkhd`` box, or None when it is too short."""
    version = buf[start] if end > start else 0
    matrix_at = start + (4 + 32 + 16 if version == 1 else 4 + 20 + 16)  # after times, track id, duration, layer…
    if end - matrix_at < 44:
        return None
    a, b = struct.unpack_from(">ii", buf, matrix_at)
    width, height = struct.unpack_from(">II", buf, matrix_at + 36)
    rotation = round(math.degrees(math.atan2(b, a))) % 360 if a or b else 0
    return width >> 16, height >> 16, rotation


def _trak(buf: bytes, start: int, end: int, header: Header, path: Path, where: str) -> None:
    size = None
    handler = ""
    for kind, s, e in _boxes(buf, start, end, path, where):
        if kind == b"tkhd":
            size = _tkhd(buf, s, e)
        elif kind == b"mdia":
            for child, cs, ce in _boxes(buf, s, e, path, f"{where}/mdia"):
                if child == b"hdlr" and ce - cs >= 12:
                    handler = buf[cs + 8:cs + 12].decode("latin-1")
    header.tracks.append(handler)
    if handler == "vide" and size is not None and header.width is None and size[0] and size[1]:
        header.width, header.height, header.rotation = size


def not_video(head: bytes) -> str:
    """Why a file's first bytes are no MP4/QuickTime video, in words (what it looks like instead)."""
    if not head:
        return "empty file (0 bytes): no video"
    if head[:4] == b"RIFF":
        return "not an MP4 or QuickTime video: an AVI or other RIFF file"
    if head[:4] == b"\x1aE\xdf\xa3":
        return "not an MP4 or QuickTime video: a Matroska or WebM file"
    if head.lstrip()[:1] in (b"<", b"{"):
        return "not an MP4 or QuickTime video: text (a web page or an error message saved under a video's name?)"
    return "not an MP4 or QuickTime video (no 'ftyp' or 'moov' box at its start)"


def read_header(path: Path) -> Header:
    """Read a video's header: the top-level boxes' headers, then the ``moov`` box.

    Args:
        path: an MP4, QuickTime, M4V or 3GPP file.
    Returns:
        A :class:`Header`.
    Raises:
        InputError: the file cannot be opened, is empty, is no MP4/QuickTime file, is cut short (a box runs past
            the end of the file), has no ``moov`` box, or a box inside ``moov`` runs past its parent.
    """
    header = Header()
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            total = fh.tell()
            fh.seek(0)
            head = fh.read(16)
            if len(head) < 8 or head[4:8] not in _FIRST_BOXES:
                raise InputError(str(path), not_video(head))
            pos, moov = 0, None
            while total - pos >= 8:
                fh.seek(pos)
                raw = fh.read(16)
                size, kind = struct.unpack_from(">I4s", raw)
                box_header = 8
                if size == 1:
                    if len(raw) < 16:
                        raise InputError(str(path), f"cut short inside the size of its {_box_name(kind)!r} box "
                                         f"at byte {pos}")
                    size, box_header = struct.unpack_from(">Q", raw, 8)[0], 16
                elif size == 0:
                    size = total - pos
                if not _printable(kind) or size < box_header:
                    raise InputError(str(path), f"damaged: no readable box at byte {pos} of {total} "
                                     f"(type {kind!r}, size {size})")
                if pos + size > total:
                    raise InputError(str(path), f"cut short: its {_box_name(kind)!r} box at byte {pos} needs "
                                     f"{size} bytes, only {total - pos} are there (a copy or download that stopped)")
                if kind == b"ftyp" and header.brand is None:
                    header.brand = raw[8:12].decode("latin-1").strip() or None
                elif kind == b"moov" and moov is None:
                    moov = (pos + box_header, pos + size)
                pos += size
            if moov is None:
                raise InputError(str(path), "no 'moov' box (the video's header): a recording that was never "
                                 "finished, or a file cut short")
            if moov[1] - moov[0] > MAX_MOOV_BYTES:
                raise InputError(str(path), f"video header too large ({(moov[1] - moov[0]) >> 20} MiB): not read")
            fh.seek(moov[0])
            buf = fh.read(moov[1] - moov[0])
    except OSError as exc:
        raise InputError(str(path), f"cannot open: {exc.strerror or exc}") from exc
    header.moov_sha256 = hashlib.sha256(buf).hexdigest()
    for kind, s, e in _boxes(buf, 0, len(buf), path, "moov"):
        if kind == b"mvhd":
            _mvhd(buf, s, e, header)
        elif kind == b"trak":
            _trak(buf, s, e, header, path, "moov/trak")
        elif kind in (b"udta", b"meta"):
            where = f"moov/{_box_name(kind)}"
            try:  # a vendor's odd metadata box does not make the video unreadable
                (_udta if kind == b"udta" else _meta)(buf, s, e, header.tags, path, where)
            except InputError as exc:
                header.problems.append(f"metadata partly unreadable ({exc.reason})")
    return header


def parse_iso6709(text: str | None) -> tuple[float, float, float | None] | None:
    """``(lat, lon, altitude in metres or None)`` in decimal degrees from an ISO 6709 string as phones write it
    (``"+41.8986+012.4769+021.000/"``; degrees and minutes ``"+4153.9-07358.0/"`` and with seconds too are read),
    or None (unreadable, or out of range)."""
    match = _ISO6709.match(text or "")
    if not match:
        return None
    lat_sign, lat_digits, lat_frac, lon_sign, lon_digits, lon_frac, alt = match.groups()

    def degrees(digits: str, fraction: str | None, width: int) -> float:
        parts = [digits[:width], digits[width:width + 2], digits[width + 2:]]
        units = [float(p) for p in parts if p]
        units[-1] += float(fraction or 0)
        return sum(u / 60 ** i for i, u in enumerate(units))

    lat = degrees(lat_digits, lat_frac, 2) * (-1 if lat_sign == "-" else 1)
    lon = degrees(lon_digits, lon_frac, 3) * (-1 if lon_sign == "-" else 1)
    if not (-90 <= lat <= 90 and -180 <= lon <= 180):
        return None
    return lat, lon, float(alt) if alt else None


def _duration_text(seconds: float) -> str:
    """``"0:42"``, ``"12:05"``, ``"1:02:03"`` (a video under a second is ``"0:01"``)."""
    whole = max(1, round(seconds))
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _first(tags: dict, *names: str) -> str | None:
    for name in names:
        value = tags.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


class VideoIngestor:
    """Videos (MP4, QuickTime, M4V, 3GPP) → one ``video`` record each: when and where it was filmed, how long it
    is, the camera, and with ``transcribe`` what was said in it.

    Args:
        transcribe: ``path -> str`` or ``path -> Transcript`` (as the voice ingestor's: the app passes its
            Whisper), or None: the text then describes the video alone.
        local_timezone: IANA zone a time with no offset and no position is read in (default ``"UTC"``).
    Raises:
        ValueError: ``local_timezone`` is not a known zone.
    """

    name = "video"
    suffixes = VIDEO_SUFFIXES

    def __init__(self, transcribe: Callable[[Path], Any] | None = None, local_timezone: str = "UTC"):
        self.transcribe = transcribe
        self.local_timezone = time_zone(local_timezone)

    def sniff(self, path: Path, head: bytes) -> float:
        """0.9 for an ``ftyp`` box with a video brand, 0.6 for another brand or a QuickTime file's first box,
        0 for audio (``M4A``) and HEIF picture brands and anything else."""
        if head[4:8] == b"ftyp":
            brand = head[8:12]
            if brand in _AUDIO_BRANDS or image_kind(head) == "heif":
                return 0.0
            return 0.9 if brand in _VIDEO_BRANDS else 0.6
        if head[4:8] in _QT_FIRST and int.from_bytes(head[:4], "big") >= 8:
            return 0.6
        return 0.0

    def read(self, path: Path) -> Iterator[Item]:
        """Yield the video's one Record.

        ``text`` is a description (``"Video taken 2023-05-04 11:00 at Rome, Latium, Italy with Apple iPhone 12
        Pro, 0:42"``: the local time where it was filmed) followed, after a blank line, by what was said in it
        when it was transcribed; ``sent_at`` tz-aware at the offset where it was filmed (UTC when only the UTC
        time is known) or None; ``place`` a GeoPoint or None; ``attrs`` the time's basis and zone, the duration
        (``duration_s``, seconds), picture size, camera, raw tags and ``moov_sha256`` (the record's identity).

        Raises:
            InputError: the file is empty, no MP4/QuickTime video, cut short or damaged (:func:`read_header`).
        """
        path = Path(path)
        header = read_header(path)
        notes: list[str] = list(header.problems)
        attrs: dict = {"video": path.suffix.lower().lstrip(".") or "mp4", "moov_sha256": header.moov_sha256}
        if header.brand:
            attrs["brand"] = header.brand
        tags = header.tags
        modified = None
        with contextlib.suppress(OSError):
            modified = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc)
        for key, value in (("camera_make", _first(tags, "com.apple.quicktime.make", "©mak",
                                                  "com.android.manufacturer")),
                           ("camera_model", _first(tags, "com.apple.quicktime.model", "©mod", "com.android.model")),
                           ("software", _first(tags, "com.apple.quicktime.software", "©swr")),
                           ("creationdate", _first(tags, "com.apple.quicktime.creationdate")),
                           ("day_tag", _first(tags, "©day")),
                           ("location_iso6709", _first(tags, "com.apple.quicktime.location.ISO6709", "©xyz", "loci"))):
            if value:
                attrs[key] = value
        if header.created is not None:
            attrs["creation_time"] = header.created.isoformat()
        if header.duration_s is not None:
            attrs["duration_s"] = round(header.duration_s, 3)
        if header.width:
            attrs["width"], attrs["height"] = header.width, header.height
            if header.rotation:
                attrs["rotation"] = header.rotation
        attrs["tracks"] = [t for t in header.tracks if t]
        if header.tracks and "vide" not in header.tracks:
            notes.append("no picture track: sound only")

        place = self._place(attrs, notes)
        local, sent_at = self._time(path.name, header, tags, place, attrs, notes, modified)

        text = "Video"
        if local is not None:
            utc_only = attrs.get("time_zone") == "UTC" and attrs.get("time_basis") != "file-name"
            text += f" taken {local:%Y-%m-%d %H:%M}" + (" UTC" if utc_only else "")
        elif attrs.get("date_only"):
            text += f" from {attrs['local_date']} (time of day unknown)"
        if place is not None:
            text += f" at {place.name}"
        camera = _camera(attrs.get("camera_make"), attrs.get("camera_model"))
        if camera:
            text += f" with {camera}"
        if header.duration_s:
            text += f", {_duration_text(header.duration_s)}"
        said = self._speech(path, header, attrs, notes)
        if said:
            text += f"\n\n{said}"
        title = _first(tags, "©nam", "com.apple.quicktime.title", "com.apple.quicktime.displayname")
        if title:
            attrs["title"] = title
        yield Record(source_path=str(path.absolute()), external_id=path.name, kind="video", text=text,
                     sent_at=sent_at, subject=title, place=place, attrs=attrs, notes=notes,
                     identity=f"moov-sha256:{header.moov_sha256}")

    @staticmethod
    def _place(attrs: dict, notes: list[str]) -> GeoPoint | None:
        raw = attrs.get("location_iso6709")
        if not raw:
            return None
        position = parse_iso6709(raw)
        if position is None:
            notes.append(f"location unreadable ({raw!r}): no place")
            return None
        lat, lon, altitude = position
        if lat == 0 and lon == 0:
            notes.append("location 0, 0 (a receiver without a fix): not used")
            return None
        if altitude is not None:
            attrs["altitude_m"] = altitude
        return named_place(lat, lon, attrs, notes)

    def _zone_of(self, place: GeoPoint | None):
        """The position's time zone (not a sea's ``Etc/`` one), else None."""
        zone = zone_at(place.lat, place.lon) if place is not None else None
        return zone if zone is not None and not zone.key.startswith("Etc/") else None

    def _time(self, name: str, header: Header, tags: dict, place: GeoPoint | None, attrs: dict, notes: list[str],
              modified: datetime | None) -> tuple[datetime | None, datetime | None]:
        """(local wall time, the instant at the offset where it was filmed); either may be None."""
        now = datetime.now(timezone.utc)
        position_zone = self._zone_of(place)
        wall_zone = position_zone or self.local_timezone
        candidates: list[tuple[str, str, datetime]] = []  # (basis, label, instant)
        apple = attrs.get("creationdate")
        if apple:
            when = _parse_when(apple, wall_zone)
            if when is not None:
                candidates.append(("creationdate", "com.apple.quicktime.creationdate", when))
            else:
                notes.append(f"com.apple.quicktime.creationdate unreadable ({apple!r})")
        if header.created is not None:
            candidates.append(("creation-time", "the header's creation time", header.created))
        day = attrs.get("day_tag")
        if day:
            when = _parse_when(day, wall_zone)
            if when is not None:
                candidates.append(("day-tag", "the ©day tag", when))
        suspect = None
        for basis, label, when in candidates:
            problem = clock_problem(when.astimezone(timezone.utc).replace(tzinfo=None), now, modified)
            if problem is None and when.year < _FIRST_VIDEO_YEAR:  # a clock counted from 1970, read from 1904
                problem = f"camera clock looks wrong ({when:%Y-%m-%d %H:%M:%S}, before phones filmed video)"
            if problem:
                suspect = suspect or problem.replace("camera clock", "the camera's clock")
                continue
            if basis == "creationdate" and header.created is not None \
                    and abs(header.created - when) > timedelta(minutes=1):
                notes.append(f"the header's creation time ({header.created:%Y-%m-%d %H:%M:%S} UTC) differs from "
                             f"com.apple.quicktime.creationdate ({apple}): a copy or edit saved later; the "
                             "creationdate (when it was filmed) used")
            attrs["time_basis"] = basis
            return self._at_offset(when, basis, label, day if basis == "day-tag" else apple, name,
                                   position_zone, attrs, notes)
        if suspect:
            attrs["clock_suspect"] = suspect
            notes.append(f"{suspect}: not used to place the video in time")
        missing = "no plausible creation time in the video's header" if suspect else \
            "no creation time in the video's header"
        named = time_from_name(name)
        if named is not None and not clock_problem(named[0], now, modified):
            local, is_utc = named
            zone = timezone.utc if is_utc else wall_zone
            instant = local.replace(tzinfo=zone)
            attrs.update(time_basis="file-name-utc" if is_utc else "file-name", time_zone=getattr(zone, "key", "UTC"),
                         local_time=local.isoformat())
            notes.append(f"time taken from the file name ({local:%Y-%m-%d %H:%M:%S}), read as {attrs['time_zone']}: "
                         f"{missing}")
            if is_utc and position_zone is not None:  # a Pixel's UTC name: the local time where it was filmed
                at_place = instant.astimezone(position_zone)
                attrs.update(time_zone=position_zone.key, local_time=at_place.replace(tzinfo=None).isoformat())
                return at_place.replace(tzinfo=None), at_place.astimezone(timezone(at_place.utcoffset()))
            return local, instant.astimezone(timezone(instant.utcoffset()))
        day_alone = date_from_name(name)
        if day_alone is not None and not clock_problem(datetime(day_alone.year, day_alone.month, day_alone.day, 12),
                                                       now, modified):
            noon = datetime(day_alone.year, day_alone.month, day_alone.day, 12, tzinfo=wall_zone)
            attrs.update(time_basis="file-name-date", time_zone=getattr(wall_zone, "key", "UTC"), date_only=True,
                         local_date=day_alone.isoformat())
            notes.append(f"day taken from the file name ({day_alone:%Y-%m-%d}): the time of day is unknown (placed "
                         f"at noon {attrs['time_zone']}): {missing}")
            return None, noon.astimezone(timezone(noon.utcoffset()))
        if modified is not None:
            attrs["file_modified"] = modified.isoformat()
        notes.append(f"time filmed unknown ({missing}, nor a date in the file name; the file's modification time "
                     "is when it was copied: not used)")
        return None, None

    def _at_offset(self, when: datetime, basis: str, label: str, raw: str | None, name: str, position_zone,
                   attrs: dict, notes: list[str]) -> tuple[datetime, datetime]:
        """``when`` at the offset where the video was filmed: its own (Apple's creationdate, a ``©day`` written
        with one), else the position's zone's, else the one the local time in the file name gives against it,
        else UTC."""
        own_offset = basis == "creationdate" or (basis == "day-tag" and raw is not None
                                                 and re.search(r"(?:Z|[+-]\d\d:?\d\d)\s*$", raw.strip()) is not None)
        if basis == "day-tag" and raw is not None and not own_offset:  # a wall time, read in that zone already
            zone = position_zone or self.local_timezone
            attrs.update(time_zone=getattr(zone, "key", "UTC"), local_time=when.replace(tzinfo=None).isoformat())
            notes.append(f"time taken from the ©day tag ({raw}), which has no offset: read as {attrs['time_zone']}")
            return when.replace(tzinfo=None), when
        if own_offset and when.utcoffset():
            zone_name = f"UTC{_fmt(when.utcoffset())}"
            if position_zone is not None and when.astimezone(position_zone).utcoffset() == when.utcoffset():
                zone_name = position_zone.key
            attrs.update(time_zone=zone_name, local_time=when.replace(tzinfo=None).isoformat())
            return when.replace(tzinfo=None), when
        if position_zone is not None:  # a UTC time, filmed where the position is
            at_place = when.astimezone(position_zone)
            attrs.update(time_zone=position_zone.key, local_time=at_place.replace(tzinfo=None).isoformat())
            fixed = at_place.astimezone(timezone(at_place.utcoffset()))
            return fixed.replace(tzinfo=None), fixed
        named = time_from_name(name)
        offset = offset_from_name(when, named[0]) if named is not None and not named[1] else None
        if offset is not None:
            at = when.astimezone(timezone(offset))
            notes.append(f"offset UTC{_fmt(offset)} from the local time in the file name ({named[0]:%Y-%m-%d %H:%M:%S}) "
                         f"against {label} (UTC)")
            attrs.update(time_zone=f"UTC{_fmt(offset)}", local_time=at.replace(tzinfo=None).isoformat())
            return at.replace(tzinfo=None), at
        utc = when.astimezone(timezone.utc)
        attrs.update(time_zone="UTC", local_time=utc.replace(tzinfo=None).isoformat())
        return utc.replace(tzinfo=None), utc

    def _speech(self, path: Path, header: Header, attrs: dict, notes: list[str]) -> str:
        """What was said in the video's sound track (``transcribe``), or ``""``: none configured, no sound track,
        no speech, or a transcription that failed (noted)."""
        if self.transcribe is None or "soun" not in header.tracks:
            return ""
        try:
            result = self.transcribe(path)
        except Cancelled:
            raise
        except InputError as exc:
            notes.append(f"sound not transcribed: {exc.reason}")
            return ""
        except ModelError as exc:
            notes.append(f"sound not transcribed: speech-to-text unavailable ({exc})")
            return ""
        except Exception as exc:  # a decoder or model failure must not cost the video
            notes.append(f"sound not transcribed ({type(exc).__name__}: {exc})")
            return ""
        text = (result if isinstance(result, str) else getattr(result, "text", "") or "").strip()
        attrs["transcribed"] = True
        unclear = getattr(result, "unclear", 0) or 0
        if unclear:
            attrs["unclear_s"] = unclear
            notes.append(f"{unclear:.1f} s of sound could not be transcribed (the model was unsure at every "
                         "temperature): left out")
        sounds = [str(x) for x in getattr(result, "sounds", None) or []]
        if sounds:
            attrs["sounds"] = sounds
            notes.append(f"sounds, not words: {', '.join(sounds)} (left out of the text)")
        if bool(getattr(result, "no_speech", False)) or not text:
            if not unclear:
                notes.append("no speech found")
            return ""
        languages = list(getattr(result, "languages", None) or [])
        if languages:
            attrs["languages"], attrs["language"] = languages, languages[0]
        speakers = list(getattr(result, "speakers", None) or [])
        if speakers:
            attrs["speakers"] = speakers
        return text

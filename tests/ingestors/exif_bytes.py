"""A small EXIF writer for tests: any tag with any TIFF type (signed rationals, zero denominators, odd strings),
which Pillow's own writer refuses or normalises.  ``exif_block(...)`` gives the bytes Pillow's ``save(exif=...)``
takes."""
from __future__ import annotations

import struct

ASCII, SHORT, LONG, RATIONAL, UNDEFINED, SRATIONAL = 2, 3, 4, 5, 7, 10
_SIZE = {1: 1, ASCII: 1, SHORT: 2, LONG: 4, RATIONAL: 8, UNDEFINED: 1, SRATIONAL: 8}
EXIF_IFD, GPS_IFD = 0x8769, 0x8825


def _pack(typ: int, values) -> tuple[bytes, int]:
    if typ == ASCII:
        raw = values.encode("latin-1") if isinstance(values, str) else bytes(values)
        raw = raw if raw.endswith(b"\x00") else raw + b"\x00"
        return raw, len(raw)
    if typ in (1, UNDEFINED):
        raw = bytes(values)
        return raw, len(raw)
    if typ == SHORT:
        return struct.pack(f"<{len(values)}H", *values), len(values)
    if typ == LONG:
        return struct.pack(f"<{len(values)}L", *values), len(values)
    fmt = "<2l" if typ == SRATIONAL else "<2L"
    return b"".join(struct.pack(fmt, n, d) for n, d in values), len(values)


def _ifd(entries: dict[int, tuple[int, object]], start: int) -> bytes:
    """One IFD at offset ``start`` (its data right after it), entries ``{tag: (type, values)}``."""
    tags = sorted(entries)
    data_at = start + 2 + 12 * len(tags) + 4
    head, data = struct.pack("<H", len(tags)), b""
    for tag in tags:
        typ, values = entries[tag]
        raw, count = _pack(typ, values)
        if len(raw) <= 4:
            head += struct.pack("<HHL", tag, typ, count) + raw.ljust(4, b"\x00")
        else:
            head += struct.pack("<HHLL", tag, typ, count, data_at + len(data))
            data += raw + (b"\x00" if len(raw) % 2 else b"")
    return head + b"\x00\x00\x00\x00" + data


def exif_block(ifd0: dict | None = None, exif: dict | None = None, gps: dict | None = None) -> bytes:
    """``b"Exif\\0\\0"`` + a little-endian TIFF with IFD0, and an EXIF and a GPS sub-IFD when given.

    Each dict maps a tag number to ``(type, values)``: ASCII a str, rationals a list of ``(num, den)``.
    """
    ifd0 = dict(ifd0 or {})
    # the sub-IFDs' offsets are known only once IFD0's size is: lay IFD0 out with placeholders first
    if exif is not None:
        ifd0[EXIF_IFD] = (LONG, [0])
    if gps is not None:
        ifd0[GPS_IFD] = (LONG, [0])
    at = 8 + len(_ifd(ifd0, 8))
    blocks = b""
    for tag, sub in ((EXIF_IFD, exif), (GPS_IFD, gps)):
        if sub is not None:
            ifd0[tag] = (LONG, [at + len(blocks)])
            blocks += _ifd(sub, at + len(blocks))
    return b"Exif\x00\x00" + b"II*\x00" + struct.pack("<L", 8) + _ifd(ifd0, 8) + blocks


def jpeg(path, block: bytes):
    """An 8×8 JPEG at ``path`` carrying the EXIF ``block``."""
    from PIL import Image

    Image.new("RGB", (8, 8), (90, 120, 30)).save(path, format="JPEG", exif=block)
    return path

"""When a file was made, as its name says: phones, cameras and screenshot tools name files by their clock.

A last resort for photos and voice memos whose metadata holds no time (a PNG screenshot, a memo
without a ``creation_time`` tag).  The names read are a date **and** a time of day written together::

    Screenshot 2023-05-04 at 10.12.33.png         (macOS; "Screen Shot … at 3.04.05 PM" before 2020; in other
                                                   languages "Bildschirmfoto … um …", "Capture d’écran … à …",
                                                   "Captura de pantalla … a las …", "Istantanea … alle …")
    Screenshot_20230504-101233.png                 (Android)
    Screenshot 2023-05-04 101233.png               (Windows Snipping Tool)
    IMG_20230504_101233.jpg, 20230504_101233.jpg   (Android cameras, Samsung)
    20230504 101233.m4a                            (iPhone Voice Memos)
    PXL_20230504_101233123.jpg                     (Google Pixel: the name is in UTC)
    00000012-AUDIO-2021-02-03-09-15-00.opus        (WhatsApp on iPhone)
    photo_3@04-05-2023_10-12-33.jpg                (Telegram Desktop exports: day first)
    Call recording Ann_230504_101233.m4a           (Samsung: a two-digit year, 20yy)
    REC20230504101233.wav                          (voice recorders: date and time run together)
    FB_IMG_1683195153123.jpg                       (saved from Facebook: Unix milliseconds, UTC)

:func:`date_from_name` reads a **date alone** (WhatsApp on Android names media by the day it was sent or
received: ``IMG-20230504-WA0001.jpg``, ``PTT-20210203-WA0001.opus``, ``AUD-…``, ``VID-…``): the day is known,
the time of day is not.  A counter (``New Recording 12.m4a``, ``IMG_1234.JPG``) gives nothing.  Years before
1990 or after 2100, impossible dates and hours give nothing.
"""
from __future__ import annotations

import re
from datetime import date, datetime, timedelta

_NAME_TIME = re.compile(
    r"(?<!\d)(?P<y>(?:19|20)\d\d)(?P<s1>[-_.]?)(?P<mo>\d\d)(?P=s1)(?P<d>\d\d)"
    r"(?:[ _T-]+|\s+(?:at|um|à|a las|às|alle|om|kl\.?|klo\.?|в|o)\s+|_at_)"  # macOS's word, in its language
    r"(?P<h>\d{1,2})(?P<s2>[-_.:h]?)(?P<mi>\d\d)(?P=s2)(?P<sec>\d\d)(?P<frac>\d{1,3})?"
    r"(?:\s*(?P<ampm>[AaPp])\.?[Mm]\.?)?(?!\d)")
# Telegram Desktop's media names: "photo_3@04-05-2023_10-12-33" (day first); Samsung's call and voice recordings:
# "…_230504_101233" (a two-digit year)
_TELEGRAM_TIME = re.compile(r"@(?P<d>\d\d)-(?P<mo>\d\d)-(?P<y>\d{4})_(?P<h>\d\d)-(?P<mi>\d\d)-(?P<sec>\d\d)(?!\d)")
_SHORT_YEAR_TIME = re.compile(r"(?<![\d-])(?P<y>\d\d)(?P<mo>\d\d)(?P<d>\d\d)_"
                              r"(?P<h>\d\d)(?P<mi>\d\d)(?P<sec>\d\d)(?![\d-])")
# a date and time run together, 14 digits ("REC20230504101233", "20230504101233.mp3": voice recorders)
_COMPACT_TIME = re.compile(r"(?<!\d)(?P<y>(?:19|20)\d\d)(?P<mo>\d\d)(?P<d>\d\d)"
                           r"(?P<h>\d\d)(?P<mi>\d\d)(?P<sec>\d\d)(?!\d)")
# a date alone: 20230504 or 2023-05-04 (2023_05_04, 2023.05.04), not inside a longer run of digits
_NAME_DATE = re.compile(r"(?<!\d)(?P<y>(?:19|20)\d\d)(?P<s1>[-_.]?)(?P<mo>\d\d)(?P=s1)(?P<d>\d\d)(?!\d)")
UTC_NAMES = re.compile(r"^PXL_", re.IGNORECASE)  # Google Pixel cameras name files by UTC
# Facebook's app saves a picture as FB_IMG_<Unix time in milliseconds> (UTC: when it was saved on the phone)
_EPOCH_MS = re.compile(r"^FB_IMG_(\d{13})(?!\d)", re.IGNORECASE)


def time_from_name(name: str) -> tuple[datetime, bool] | None:
    """The date and time written in a file name.

    Args:
        name: a file name (a path's last part; its suffix is ignored).
    Returns:
        ``(naive wall time, is_utc)``: ``is_utc`` is True for names known to be written in UTC
        (``PXL_…``, ``FB_IMG_…``), else the time is the device's local clock.  None when the name holds no
        date with a time of day (see the module docstring).
    """
    stem = _stem(name)
    epoch = _EPOCH_MS.match(stem)
    if epoch:
        when = datetime(1970, 1, 1) + timedelta(milliseconds=int(epoch.group(1)))
        if 1990 <= when.year <= 2100:
            return when.replace(microsecond=0), True
    for m in _NAME_TIME.finditer(stem):
        if not m.group("s2") and len(m.group("h")) != 2:
            continue  # "101233" needs two-digit hours; "3.04.05 PM" may have one
        hour = int(m.group("h"))
        ampm = (m.group("ampm") or "").lower()
        if ampm:
            if not 1 <= hour <= 12:
                continue
            hour = hour % 12 + (12 if ampm == "p" else 0)
        try:  # to the second, as camera times are kept (a Pixel's trailing milliseconds are dropped)
            when = datetime(int(m.group("y")), int(m.group("mo")), int(m.group("d")), hour,
                            int(m.group("mi")), int(m.group("sec")))
        except ValueError:
            continue
        if 1990 <= when.year <= 2100:
            return when, bool(UTC_NAMES.match(stem))
    for pattern, century in ((_TELEGRAM_TIME, 0), (_SHORT_YEAR_TIME, 2000), (_COMPACT_TIME, 0)):
        for m in pattern.finditer(stem):
            try:
                when = datetime(century + int(m.group("y")), int(m.group("mo")), int(m.group("d")),
                                int(m.group("h")), int(m.group("mi")), int(m.group("sec")))
            except ValueError:
                continue
            if 1990 <= when.year <= 2100:
                return when, False
    return None


def date_from_name(name: str) -> date | None:
    """The day written alone in a file name (``IMG-20230504-WA0001.jpg``, ``PTT-20210203-WA0001.opus``,
    ``Memo 2023-05-04.m4a``): the device's local calendar day, with no time of day.

    Args:
        name: a file name (a path's last part; its suffix is ignored).
    Returns:
        The date, or None when the name holds none (1990–2100, a real day), or holds a date with a time of day
        (:func:`time_from_name` reads those).
    """
    if time_from_name(name) is not None:
        return None
    for m in _NAME_DATE.finditer(_stem(name)):
        try:
            day = date(int(m.group("y")), int(m.group("mo")), int(m.group("d")))
        except ValueError:
            continue
        if 1990 <= day.year <= 2100:
            return day
    return None


def _stem(name: str) -> str:
    stem = name.replace("\\", "/").rsplit("/", 1)[-1]
    return stem[: stem.rfind(".")] if "." in stem else stem

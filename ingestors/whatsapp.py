"""WhatsApp "Export chat" text files: one :class:`~ingestors.base.Record` (kind ``"chat"``) per message.

Formats read (the phone's locale decides which one an export uses):

* Android: ``DD/MM/YY, HH:MM - Name: text`` (also ``/``, ``.`` or ``-`` between
  date fields, 2- or 4-digit years, ``YYYY-MM-DD`` year-first);
* iOS: ``[DD/MM/YY, HH:MM:SS] Name: text`` (often behind a U+200E mark);
* 12-hour clocks: ``AM``/``PM``, ``am``/``pm`` and the Spanish-locale
  ``a. m.``/``p. m.``, with a plain, no-break or narrow no-break space.

Decisions on the ambiguous cases:

* **Day/month order** is decided once per *file* from all its header dates: a
  first field above 12 means day-first, a second field above 12 means
  month-first; when both happen, the order with more such lines wins; when
  neither happens the ``dayfirst`` setting decides (default day-first) and every
  record gets a note saying so.  ``attrs["date_order"]`` is ``"DMY"``, ``"MDY"``
  or ``"YMD"``.  A line whose date is impossible in the chosen order is not a
  header: it becomes part of the previous message, like any unparseable line.
* **Times** are the phone's wall-clock time with no zone: they are read in the
  ``local_timezone`` the ingestor was made with (default ``"UTC"``), converted
  to UTC, and ``attrs["time_basis"]`` is ``"assumed-local"``.  With an AM/PM
  marker, 12 is noon/midnight as usual and the impossible hour ``00`` (seen in
  real exports: ``00:08 a. m.``) is read as midnight (00:08); an hour of 13–23
  with a marker is read as a 24-hour time, with a note.
* **Multi-line messages**: a line that does not start with a date header (and any
  header-like line that cannot be read) belongs to the previous message — never dropped.
  A line that cannot be read before the first message becomes a RecordError.
* **System lines** (a header with no ``Name:``, e.g. ``You were added``) are not
  records (nobody wrote them); each is kept in ``attrs["system_events"]`` of the
  next message (``{"line", "at", "text"}``); those after the last message go on
  the last message.  A file with system lines only yields nothing.
* **Media**: ``<Media omitted>``, ``image omitted`` (iOS) and similar leave the text
  empty, with ``attrs["media"] = "omitted"`` and a note; ``<attached: NAME>`` and
  ``NAME (file attached)`` keep the file name in ``attrs["media"]``.
  ``This message was deleted`` gives an empty text and a note ``"deleted"``;
  a trailing ``<This message was edited>`` is cut and noted ``"edited"``.
* **Who**: the sender is ``Party(name, None, "phone", "from")``; a sender shown as
  a phone number (an unsaved contact) is ``Party(None, number, "phone", "from")``.
  The recipients are every other sender seen in the file (role ``"member"``).
* **Thread**: ``"whatsapp:"`` + the file name without suffix (for an iOS
  ``_chat.txt`` the folder name), lower-cased: the same chat exported again keeps it.
* ``external_id`` is ``"line N"``: the 1-based line where the message starts.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from core.errors import InputError
from ingestors.base import Item, Party, Record, RecordError, other_members

_SPACE = "[ \u00a0\u202f]"
_HEADER = re.compile(
    r"^[\u200e\u200f\ufeff]*"
    r"(?P<bracket>\[)?"
    r"(?P<f1>\d{1,4})(?P<sep>[/.\-])(?P<f2>\d{1,2})(?P=sep)(?P<f3>\d{2,4})\.?,?" + _SPACE + r"*"
    r"(?P<h>\d{1,2})[:.](?P<m>\d{2})(?:[:.](?P<s>\d{2}))?"
    r"(?:" + _SPACE + r"*(?P<ampm>[aApP])\.?" + _SPACE + r"?[mM]\.?)?"
    r"(?(bracket)\]" + _SPACE + r"|" + _SPACE + r"*[-\u2013]" + _SPACE + r")"
    r"(?P<rest>.*)$"
)
# "Name: text": the name is what comes before the first colon, and holds no quote
# (a system line such as 'X changed the subject to "a: b"' is not a message).
_AUTHOR = re.compile(r'^(?P<name>[^:"\u201c\u201d\n]{1,100}?):(?: |$)?(?P<text>.*)$', re.S)
_PHONE = re.compile(r"^\+?[\d\s\-().\u00a0\u202f]{6,}$")
_INVISIBLE = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\ufeff"
_OMITTED = re.compile(r"^(?:<media omitted>|(?:image|video|audio|sticker|gif|document|contact card) omitted)$",
                      re.I)
_ATTACHED = re.compile(r"^(?:<attached: (?P<a>[^>]+)>|(?P<b>.+?) \(file attached\))(?:\n(?P<caption>.*))?$",
                       re.S | re.I)
_DELETED = {"this message was deleted", "you deleted this message"}
_EDITED = "<This message was edited>"


@dataclass
class _Header:
    """A parsed header line before the date order is known."""

    line: int
    f1: int
    f2: int
    f3: int
    year_first: bool
    hour: int
    minute: int
    second: int
    ampm: str | None
    rest: str
    extra: list[str] = field(default_factory=list)  # continuation lines


def _parse_header(line: str, lineno: int) -> _Header | None:
    m = _HEADER.match(line)
    if not m:
        return None
    f1, f2, f3 = int(m["f1"]), int(m["f2"]), int(m["f3"])
    year_first = len(m["f1"]) == 4
    if not year_first and len(m["f1"]) > 2:
        return None
    return _Header(lineno, f1, f2, f3, year_first, int(m["h"]), int(m["m"]), int(m["s"] or 0),
                   m["ampm"].lower() if m["ampm"] else None, m["rest"])


def _year(y: int) -> int:
    return y + 2000 if y < 100 else y  # WhatsApp began in 2009: "19" is 2019


def _ymd(h: _Header, order: str) -> tuple[int, int, int]:
    if h.year_first:
        return _year(h.f1), h.f2, h.f3
    if order == "DMY":
        return _year(h.f3), h.f2, h.f1
    return _year(h.f3), h.f1, h.f2


def decide_order(headers: list[_Header], dayfirst: bool) -> tuple[str, bool]:
    """The file's date order from all its header dates.

    Args:
        headers: every header line's date fields.
        dayfirst: the fallback when no date settles it.
    Returns:
        ``(order, guessed)``: order is ``"YMD"`` (year-first dates), ``"DMY"`` or ``"MDY"``;
        guessed is True when no date settled it and ``dayfirst`` decided.
    """
    if headers and all(h.year_first for h in headers):
        return "YMD", False
    day_first = sum(1 for h in headers if not h.year_first and h.f1 > 12)
    month_first = sum(1 for h in headers if not h.year_first and h.f2 > 12)
    if day_first or month_first:
        return ("DMY" if day_first >= month_first else "MDY"), False
    return ("DMY" if dayfirst else "MDY"), True


def _hour(h: _Header, notes: list[str]) -> int:
    if h.ampm is None:
        return h.hour
    if h.hour == 0:  # impossible on a 12-hour clock, written by real exports ("00:08 a. m."): midnight
        if h.ampm == "p":
            notes.append("hour 00 with PM marker read as 12 (noon)")
            return 12
        return 0
    if h.hour > 12:
        notes.append(f"hour {h.hour} with AM/PM marker read as a 24-hour time")
        return h.hour
    if h.ampm == "a":
        return 0 if h.hour == 12 else h.hour
    return 12 if h.hour == 12 else h.hour + 12


def _clean(text: str) -> str:
    return text.translate({ord(c): None for c in _INVISIBLE})


def _sender(name: str) -> Party:
    name = " ".join(_clean(name).split())
    if _PHONE.match(name) and sum(ch.isdigit() for ch in name) >= 6:
        return Party(None, name, "phone", "from")
    return Party(name, None, "phone", "from")


def thread_key(path: Path) -> str:
    """``"whatsapp:<chat name>"`` from the export's file name (the folder's for ``_chat.txt``), lower-cased."""
    stem = path.stem
    if stem.lower() in {"_chat", "chat"} and path.parent.name:
        stem = path.parent.name
    return "whatsapp:" + " ".join(stem.split()).casefold()


def _body(text: str, notes: list[str], attrs: dict) -> str:
    """Text of a message after media/deleted/edited markers are read off."""
    if text.endswith(_EDITED):
        text = text[: -len(_EDITED)].rstrip()
        notes.append("edited")
        attrs["edited"] = True
    bare = _clean(text).strip()
    if _OMITTED.match(bare):
        attrs["media"] = "omitted"
        notes.append("media omitted from the export")
        return ""
    if bare.lower() in _DELETED:
        attrs["deleted"] = True
        notes.append("deleted")
        return ""
    m = _ATTACHED.match(bare)
    if m:
        attrs["media"] = m["a"] or m["b"]
        notes.append(f"attachment: {attrs['media']}")
        return m["caption"] or ""
    return text


class WhatsAppIngestor:
    """Reads a WhatsApp "Export chat" ``.txt`` file: one Record per message, in file order.

    Claims no suffix (``.txt`` is everyone's); the registry picks it by :meth:`sniff`.
    """

    name = "whatsapp"
    suffixes = frozenset()

    def __init__(self, local_timezone: str = "UTC", dayfirst: bool = True):
        """
        Args:
            local_timezone: IANA zone the phone's clock was in (export times carry no zone).
            dayfirst: date order to use when no date in a file settles it.
        Raises:
            ValueError: ``local_timezone`` is not a known zone.
        """
        try:
            self.local_timezone = ZoneInfo(local_timezone)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone: {local_timezone!r}") from exc
        self.dayfirst = dayfirst

    def sniff(self, path: Path, head: bytes) -> float:
        """0.9 when the first non-empty line of ``head`` (UTF-8) is a WhatsApp message header, else 0."""
        text = head.decode("utf-8", "replace")
        for line in text.splitlines():
            if line.strip():
                return 0.9 if _parse_header(line, 1) else 0.0
        return 0.0

    def read(self, path: Path) -> Iterator[Item]:
        """Yield one Record per message (kind ``"chat"``, ``sent_at`` UTC), in file order.

        Args:
            path: the exported ``.txt`` (UTF-8, a BOM allowed; bad bytes become U+FFFD).
        Raises:
            InputError: the file cannot be read, or its first non-empty line is not a message header.
        """
        path = Path(path)
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from exc
        text = raw.decode("utf-8-sig", "replace")
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        if lines and lines[-1] == "":
            lines.pop()

        headers: list[_Header] = []
        for n, line in enumerate(lines, 1):
            h = _parse_header(line, n)
            if h is not None:
                headers.append(h)
        first = next((n for n, line in enumerate(lines, 1) if line.strip()), None)
        if first is None:
            return
        if not headers or headers[0].line != first:
            raise InputError(str(path), "not a WhatsApp chat export: the first line is not a "
                             "'date, time - name: text' header")
        order, guessed = decide_order(headers, self.dayfirst)

        # Second pass: headers valid in the chosen order start messages; everything else continues one.
        blocks: list[_Header] = []
        errors: list[RecordError] = []
        by_line = {h.line: h for h in headers}
        for n, line in enumerate(lines, 1):
            h = by_line.get(n)
            if h is not None and self._when(h, order, []) is not None:
                blocks.append(h)
            elif blocks:
                blocks[-1].extra.append(line)
            elif line.strip():
                errors.append(RecordError(str(path), f"line {n}", "text before the first message"))
        yield from errors

        members: list[Party] = []
        seen: set[tuple] = set()
        for h in blocks:
            m = _AUTHOR.match(h.rest)
            if m:
                p = _sender(m["name"])
                if (p.name, p.address) not in seen:
                    seen.add((p.name, p.address))
                    members.append(p)

        thread = thread_key(path)
        pending_events: list[dict] = []
        last: Record | None = None
        for h in blocks:
            notes: list[str] = []
            sent_at = self._when(h, order, notes)
            body = "\n".join([h.rest] + h.extra)
            m = _AUTHOR.match(body)
            if not m:
                pending_events.append({"line": h.line, "at": sent_at.isoformat(), "text": _clean(body).strip()})
                continue
            if last is not None:
                yield last
            sender = _sender(m["name"])
            attrs: dict = {"time_basis": "assumed-local", "timezone": self.local_timezone.key,
                           "date_order": order, "line": h.line}
            if guessed:
                notes.append("day/month order not settled by any date in the file; read as "
                             + ("day-first" if order == "DMY" else "month-first") + " (setting)")
            if pending_events:
                attrs["system_events"], pending_events = pending_events, []
            msg = _body(m["text"], notes, attrs)
            last = Record(
                source_path=str(path.absolute()),
                external_id=f"line {h.line}",
                kind="chat",
                text=msg,
                sent_at=sent_at,
                sender=sender,
                recipients=other_members(members, sender),
                thread=thread,
                attrs=attrs,
                notes=notes,
            )
        if last is not None:
            if pending_events:
                last.attrs.setdefault("system_events", []).extend(pending_events)
            yield last

    def _when(self, h: _Header, order: str, notes: list[str]) -> datetime | None:
        """The header's time as UTC, or None when the date/time is impossible."""
        year, month, day = _ymd(h, order)
        hour = _hour(h, notes)
        try:
            local = datetime(year, month, day, hour, h.minute, h.second, tzinfo=self.local_timezone)
        except ValueError:
            return None
        return local.astimezone(timezone.utc)

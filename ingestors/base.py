"""What every ingestor produces: :class:`Record` items, or :class:`RecordError` for the bad ones.

An ingestor reads one file the user gave and yields what it found, one item at
a time.  It never touches a store (DESIGN.md §1, ingestors/): the ingest
operation in ``app/operations/ingest.py`` resolves people and places, writes
rows, vectors and full-text entries.  A bad item inside a good file becomes a
:class:`RecordError` and the ingestor carries on with the next item; a file
that cannot be read at all raises :class:`core.errors.InputError`.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Iterator, Protocol, Union
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from core.clock import ensure_utc


@dataclass(frozen=True)
class Party:
    """Someone named in a record: a display name and/or an address.

    Attributes:
        name: display name as written (``"Alice Example"``), or None.
        address: an email address, phone number or handle as written, or None.
        address_kind: ``"email"``, ``"phone"`` or ``"handle"`` (what ``address`` is), or for SMS senders
            that are services, not people: ``"short_code"`` (``22000``) or ``"alphanumeric"`` (``GOOGLE``).
        role: ``"from"``, ``"to"``, ``"cc"`` or ``"member"`` (a chat participant).
    """

    name: str | None
    address: str | None = None
    address_kind: str = "email"
    role: str = "from"


def other_members(members, sender: "Party | None") -> list["Party"]:
    """The chat's members other than ``sender``, as recipients (role ``"member"``) of one message."""
    return [Party(p.name, p.address, p.address_kind, "member") for p in members
            if sender is None or (p.name, p.address) != (sender.name, sender.address)]


@dataclass(frozen=True)
class GeoPoint:
    """A place from GPS: WGS84 decimal degrees plus an offline reverse-geocoded name.

    Attributes:
        lat, lon: decimal degrees (south and west negative).
        locality: the nearest populated place (GeoNames cities ≥ 1000 people).
        region: first-level administrative region (e.g. ``"Tuscany"``).
        country: country name (e.g. ``"Italy"``); country_code: ISO 3166-1 alpha-2.
    """

    lat: float
    lon: float
    locality: str | None = None
    region: str | None = None
    country: str | None = None
    country_code: str | None = None

    @property
    def name(self) -> str:
        """``"Locality, Region, Country"`` with missing parts left out."""
        parts = [p for p in (self.locality, self.region, self.country) if p]
        return ", ".join(parts) if parts else f"{self.lat:.5f}, {self.lon:.5f}"


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_unicode(value):
    """``value`` with every lone UTF-16 surrogate (U+D800–U+DFFF, which a JSON ``\\udXXX`` escape can leave in a
    Python str) replaced by U+FFFD; anything that is not a str is returned as it is."""
    if isinstance(value, str) and _LONE_SURROGATE.search(value):
        return _LONE_SURROGATE.sub("\ufffd", value)
    return value


def _valid_party(p: "Party | None") -> "Party | None":
    if p is None or not (_LONE_SURROGATE.search(p.name or "") or _LONE_SURROGATE.search(p.address or "")):
        return p
    return Party(valid_unicode(p.name), valid_unicode(p.address), p.address_kind, p.role)


@dataclass
class Record:
    """One item of evidence: a message, a photo, a transcript, a chat line.

    Attributes:
        source_path: the file it came from (absolute path, str).
        external_id: a stable id inside that file (Message-ID, ``"#3"``, the photo's name).
        kind: ``"email"``, ``"photo"``, ``"chat"``, ``"voice"``.
        text: the searchable text (for mail: the decoded body; for a photo: a description).
        sent_at: when it happened, tz-aware, **at the offset where it happened** when the source says
            (mail ``Date:``, a photo's offset, a chat export's local time), else UTC; None when unknown
            (never "now" or 1970).  Relative dates in the text are read in that local calendar.
        sender: who wrote it (None for photos).
        recipients: who received it (To, Cc, chat members).
        subject: a decoded title (mail Subject), or None.
        thread: a conversation/thread key, or None.
        place: where (photo GPS), or None.
        attrs: anything else worth keeping (JSON-serialisable): camera, raw header values, notes.
        notes: per-record warnings a person should see (e.g. "Date header unparseable").
        identity: what names this message whatever export format of its service it came through (a Telegram
            chat's ``result.json`` and its ``messages.html``: :func:`message_identity`), or None.  With one, the
            record's :attr:`content_hash` is that identity's, so the second format's copy is already known.
        former_identity: the identity an earlier version of its ingestor gave this record, or None: a record
            stored under it is this one (:attr:`known_hashes`), so a repeated import adds nothing.
        former_sent_at: the time an earlier version of its ingestor gave this record when it was read wrongly
            (the first of two instants of a wall time the zone had twice), or None: a record stored with it is
            this one (:attr:`known_hashes`).
        former_text: the text an earlier version of its ingestor stored for this record (with marks since
            dropped), or None: a record stored with it is this one (:attr:`known_hashes`).
    """

    source_path: str
    external_id: str
    kind: str
    text: str
    sent_at: datetime | None = None
    sender: Party | None = None
    recipients: list[Party] = field(default_factory=list)
    subject: str | None = None
    thread: str | None = None
    place: GeoPoint | None = None
    attrs: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    identity: str | None = None
    former_identity: str | None = None
    former_sent_at: datetime | None = None
    former_text: str | None = None
    scope: str | None = None
    """The conversation that is part of what makes it itself, as :func:`thread_scope` names it: a WhatsApp line is
    "line 12" of its chat, and the same first line ("Happy New Year!" at 00:01) in two chats is two records (hashed
    as one, the second chat's was dropped); the same chat exported as ``WhatsApp Chat with Ann.txt`` and ``WhatsApp
    Chat - Ann/_chat.txt`` is one scope (``whatsapp:ann``).  A hash an earlier version gave it (without the scope)
    names it only where the stored record's thread has the same scope (:attr:`known_hashes`,
    ``app.pipeline.stored_already``).  Not stored."""
    read_hash: str | None = None
    """The :attr:`content_hash` the record had as its own file gave it, kept when an import completes it from
    another file (a WhatsApp photo timed and attributed by the chat line that sent it): the same file imported
    alone later is then known.  None for a record as read."""

    def __post_init__(self) -> None:
        # A lone UTF-16 surrogate (a JSON export's "\ud83d" of an emoji cut in half) is no character: the text
        # encoder and SQLite refuse it, which cost the whole file.  It becomes U+FFFD, as a bad byte does.
        self.text = valid_unicode(self.text)
        self.subject = valid_unicode(self.subject)
        self.sender = _valid_party(self.sender)
        if any(_LONE_SURROGATE.search(f"{p.name or ''}{p.address or ''}") for p in self.recipients):
            self.recipients = [_valid_party(p) for p in self.recipients]

    @property
    def content_hash(self) -> str:
        """SHA-256 hex of what makes this record itself: its :attr:`identity` when it has one, else (kind, id,
        time, sender, subject, text).

        The same message imported twice (even from a copy of the file elsewhere, or from the other export
        format of its service) hashes the same, so a repeated import adds nothing.
        """
        if self.read_hash:
            return self.read_hash
        if self.identity:
            return self._identity_hash(self.identity)
        if self.scope:
            return self._file_hash(self.sent_at, scope=self.scope)
        return self.file_hash

    def _identity_hash(self, identity: str) -> str:
        return hashlib.sha256(f"identity\x00{self.kind}\x00{identity}".encode("utf-8", "surrogatepass")).hexdigest()

    @property
    def known_hashes(self) -> list[str]:
        """Every hash this record may already be stored under: :attr:`content_hash`, and for a record with an
        :attr:`identity` the hash an import made before identities were kept (:attr:`file_hash`) and, with a
        :attr:`former_identity`, that identity's."""
        before = [self._file_hash(self.former_sent_at)] if self.former_sent_at is not None else []
        if self.former_text is not None:
            before.append(self._file_hash(self.sent_at, self.former_text))
        if self.scope and not self.identity:  # the hash before the scope was part of it (same scope only)
            return list(dict.fromkeys([self.content_hash, self.file_hash, *before]))
        if not self.identity:
            return list(dict.fromkeys([self.content_hash, *before]))
        former = [self._identity_hash(self.former_identity)] if self.former_identity else []
        return list(dict.fromkeys([self.content_hash, *former, self.file_hash, *before]))

    @property
    def file_hash(self) -> str:
        """SHA-256 hex of (kind, id in its file, time, sender, subject, text): the same message of the same
        export format hashes the same."""
        return self._file_hash(self.sent_at)

    def _file_hash(self, sent_at: datetime | None, text: str | None = None, scope: str | None = None) -> str:
        h = hashlib.sha256()
        sender = (self.sender.address or self.sender.name or "") if self.sender else ""
        when = ensure_utc(sent_at).isoformat() if sent_at else ""  # the instant, whatever its offset
        for part in (self.kind, self.external_id, when,
                     sender.lower(), self.subject or "", self.text if text is None else text):
            h.update(part.encode("utf-8", "surrogatepass"))
            h.update(b"\x00")
        if scope:
            h.update(b"scope\x00" + scope.encode("utf-8", "surrogatepass"))
        return h.hexdigest()


def thread_scope(thread: str | None) -> str | None:
    """The conversation a stored record's ``thread`` is, as :attr:`Record.scope` names it: a WhatsApp chat by its
    title whatever the export's file name said around it (``whatsapp:whatsapp chat with ann`` and
    ``whatsapp:whatsapp chat - ann`` are ``whatsapp:ann``); any other thread as it is."""
    if thread and thread.startswith("whatsapp:"):
        from ingestors.whatsapp import scope_of_thread

        return scope_of_thread(thread)
    return thread


@dataclass(frozen=True)
class RecordError:
    """A bad item inside a file whose other items are still good.

    Attributes:
        path: the file; locator: where inside it (``"message 7"``); reason: what is wrong.
    """

    path: str
    locator: str
    reason: str


Item = Union[Record, RecordError]


class Ingestor(Protocol):
    """One source format.

    Attributes:
        name: short id (``"mbox"``, ``"eml"``, ``"photo"``).
        suffixes: lower-case file suffixes it claims (``{".mbox", ".mbx"}``).
    """

    name: str
    suffixes: frozenset[str]

    def sniff(self, path: Path, head: bytes) -> float:
        """How sure (0.0–1.0) this ingestor is that it can read ``path``, from its first bytes."""
        ...

    def read(self, path: Path) -> Iterator[Item]:
        """Yield the file's records (and errors for bad items), in file order.

        Raises:
            core.errors.InputError: the file as a whole cannot be read.
        """
        ...


class FileOrder:
    """Wall-clock times of a file read in its order: one the zone had twice (the hour the clocks go back) is the
    second one when only that keeps the file's order ('01:50', then '01:10' after the change: 01:10 GMT, not BST).

    Use :meth:`place` on each time in file order (a time read at a fixed offset, or None, only moves it on).
    """

    def __init__(self) -> None:
        self.latest: datetime | None = None  # the latest instant placed so far

    def place(self, when: datetime | None, notes: list[str] | None = None) -> datetime | None:
        """``when`` (tz-aware), as its second instant when it is ambiguous and only that keeps the order (with a
        note in ``notes``)."""
        if when is None or when.tzinfo is None:
            return when
        later = when.replace(fold=1)
        if self.latest is not None and later.utcoffset() != when.utcoffset() \
                and ensure_utc(when) < self.latest <= ensure_utc(later):
            if notes is not None:
                notes.append(f"{when:%H:%M} happened twice (the clocks went back): read as the second time, "
                             "after the message above it")
            when = later
        at = ensure_utc(when)
        if self.latest is None or at > self.latest:
            self.latest = at
        return when


def time_zone(name: str) -> ZoneInfo:
    """The IANA time zone ``name`` (``"Europe/Berlin"``), for an ingestor's ``local_timezone``.

    Raises:
        ValueError: ``name`` is not a known zone.
    """
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError) as exc:
        raise ValueError(f"unknown time zone: {name!r}") from exc


_UNDEFINED_IN_1252 = frozenset({0x81, 0x8D, 0x8F, 0x90, 0x9D})


def decode_utf8_or_1252(data: bytes, final: bool = True) -> tuple[str, int, bytes]:
    """Text that should be UTF-8 but may hold bytes of an 8-bit encoding (a line re-saved as Windows-1252
    or Latin-1: ``b"caf\\xe9"``), decoded without losing a byte.

    Args:
        data: the bytes; final: False when more bytes follow (a character cut at the end then waits).
    Returns:
        ``(text, bad, tail)``: valid UTF-8 decoded as such, each other byte as its Windows-1252 character
        (Latin-1 for the five bytes Windows-1252 leaves undefined); ``bad`` how many bytes were not UTF-8;
        ``tail`` the bytes of a character cut at the end (``b""`` when ``final``).
    """
    out: list[str] = []
    bad, i = 0, 0
    view = memoryview(data)  # each try decodes on from the last bad byte, without copying: O(len(data))
    while True:
        try:
            out.append(str(view[i:], "utf-8"))
            return "".join(out), bad, b""
        except UnicodeDecodeError as exc:
            start, end = i + exc.start, i + exc.end
            out.append(str(view[i:start], "utf-8"))
            if not final and exc.reason == "unexpected end of data" and len(data) - start < 4:
                return "".join(out), bad, data[start:]
            for b in data[start:end]:
                out.append(chr(b) if b in _UNDEFINED_IN_1252 else bytes([b]).decode("cp1252"))
            bad += end - start
            i = end

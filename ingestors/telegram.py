"""Telegram Desktop JSON exports (``result.json``): one :class:`~ingestors.base.Record` (kind ``"chat"``) per message.

Two layouts are read:

* a single chat: ``{"name", "type", "id", "messages": [...]}``;
* the full account export: ``{"about", ..., "chats": {"list": [chat, ...]},
  "left_chats": {"list": [...]}}`` — every chat in both lists.

Each message is ``{id, type, date, date_unixtime, from, from_id, text, ...}``.

Decisions:

* **Time** comes from ``date_unixtime`` (a *string* of Unix seconds, UTC:
  ``attrs["time_basis"] = "utc"``), kept at the offset of the export's own ``date``
  (the exporting computer's wall clock; the difference rounded to 15 minutes,
  ``"export-local"``) so relative dates are read in that calendar.  Old exports without it have only ``date``,
  the exporting computer's wall time with no zone: it is read in the
  ``local_timezone`` the ingestor was made with (``"assumed-local"``, with a note; one the zone had twice, in
  the hour the clocks go back, is the one that keeps the chat's order: :class:`~ingestors.base.FileOrder`).
  Neither readable: ``sent_at`` is None, with a note.
* **Text** is a string or a list of parts (strings and ``{"type", "text"}``
  dicts: bold, link, mention, ...); the parts are joined exactly as they are, with
  nothing added between them (Telegram splits one text into its formatted runs).
  ``text_link`` targets are kept in ``attrs["links"]``.
* **Service messages** (``type: "service"``: joined, created group, calls...) are not
  records; each is kept in ``attrs["system_events"]`` (``{"id", "at", "actor",
  "action", "text"}``, and what it says beyond that: a call's ``duration_seconds`` and
  ``discard_reason``, the ``members`` invited, the ``message_id`` pinned, a new ``title``, ...)
  of the chat's next message, or of its last message when none follows.
* **Media** (``photo``, ``file``, ``media_type``, ``sticker_emoji``, ``poll``,
  ``location_information``, ``contact_information``) is kept in ``attrs["media"]`` and
  noted (``"media: photo"``, ``"media: sticker 😂"``, ``"media: voice message"``); the
  record's text is the caption (possibly empty).  A poll's question and answers are the record's
  ``subject`` (:func:`poll_subject`), so it is found by its words.  An ``edited`` time gives the
  note ``"edited"``.
* **Forwarded** (``forwarded_from``: the original author's name): the words are the
  author's, so the sender is ``Party(forwarded_from, id, "handle", "from")`` (the id from
  ``forwarded_from_id``, else that of a chat member of that name, else None); the one who
  forwarded it is in ``attrs["forwarded_by"]`` (``{"name", "id"}``) and a note, and the
  recipients are that person's chat members.  The author never wrote to them: such a record gives no
  "wrote to" correspondence fact (``app.pipeline.record_facts``), unless its author forwarded their own words.
* **Channels**: a channel's post (chat ``type`` ``public_channel``/``private_channel``), a post of another
  channel (``from_id`` ``"channel<N>"``) and a group posting as itself carry ``attrs["sender_group"]``
  (``"telegram_channel"`` / ``"telegram_group"``: identity makes the sender a group, not a person,
  :mod:`core.graph.parties`); such a sender is never a chat member; a post's signature is ``attrs["signature"]``.
* **Who**: sender ``Party(from, from_id, "handle", "from")`` (``from`` is null for a
  deleted account; an old export's numeric ``from_id`` N becomes ``"userN"``, as newer ones write it); recipients are every other sender in the same chat (``"member"``).
  In a full export, the account holder's own messages (``from_id`` is ``personal_information.user_id``; in
  a one-to-one chat exported alone, the sender the chat is not named after: :func:`personal_chat_owner`)
  carry ``attrs["is_from_me"]`` (the owner), and so do the account holder's own words forwarded (not another's
  words the account holder forwarded); among the
  recipients the account holder is named without the handle, with ``attrs["owner_name"]`` (the owner, not a
  second person with the same handle when someone else's message comes first).
* **Thread**: ``"telegram:<chat id>"``; an export without an id uses the chat name,
  else the file name.  ``external_id``: ``"message <id>"`` (full export:
  ``"chat <chat id> message <id>"``), or ``"#<n>"`` when a message has no id.
* **Identity** (:func:`message_identity`): the chat's name, the message's id, its sender's name and where in its
  quarter hour it was sent (:func:`quarter_seconds`: the same whatever zone an export was written in), as the HTML
  reader gives them too, so the same chat imported from ``result.json`` and from ``messages.html`` is one set of
  records (the second import finds every message already known), and two chats of one name exported each
  alone (two supergroups called "Family", each with a message 5 by Mum) are not (``former_identity``: the
  identity without the time, as imports before it stored it).  In a full export holding two chats of one
  name (two supergroups called "Family" each have a message 1), those chats' identities add the chat id, so
  neither hides the other's messages as "already known".
* Another program's JSON holding a ``messages`` list (DiscordChatExporter, Slack…) whose messages have none of
  the keys Telegram writes on every message (``date``, ``date_unixtime``, ``from_id``, ``actor_id``) raises
  :class:`~core.errors.InputError` (it was read as messages of no one, at no time).
* A message that is not a JSON object, or whose ``date_unixtime`` is not a number,
  is a :class:`~ingestors.base.RecordError`; its neighbours still come.
* **Broken JSON is repaired, not refused** (:class:`RepairingReader`, which reads Instagram's and Messenger's
  broken files too): an invalid escape (``\\x41``: the character it names; ``\\x0C``, a control character, and
  ``\\q``, a letter no escape names: dropped, a space where they stood between two letters; before punctuation:
  the backslash dropped), half a surrogate pair alone
  (``\\ud83d``: U+FFFD), a byte that is not UTF-8 (read as its Windows-1252 character), a NUL byte
  anywhere (dropped: zero bytes padding a file after a crash) and a raw control character inside a string are
  fixed as the file is read, and every record of a repaired file gets the note ``"file repaired: … fixed in
  result.json"`` (:func:`repair_note`).  A file that ends early keeps the messages before the
  break, then a :class:`~ingestors.base.RecordError` says where it broke.

Memory: the file is streamed with ``ijson`` twice (the chats' members, then the
messages); one message is held at a time.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, BinaryIO, Iterator

import ijson

from core.errors import InputError
from ingestors.base import (FileOrder, Item, Party, Record, RecordError, decode_utf8_or_1252, other_members,
                            time_zone)

_MEDIA_KEYS = ("media_type", "photo", "file", "sticker_emoji", "poll", "location_information",
               "contact_information")
_JSON_START = re.compile(rb"^(?:\xef\xbb\xbf)?\s*\{")
CHUNK = 1 << 16
# a backslash that does not start a valid JSON escape (pairs of backslashes skipped)
_BAD_ESCAPE = re.compile(rb'(?<!\\)(?:\\\\)*\\(?!["\\/bfnrt]|u[0-9a-fA-F]{4})')
_ESCAPE = re.compile(rb'\\(["\\/bfnrt]|u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|'
                     rb'u[0-9a-fA-F]{4}|U000[0-9a-fA-F]{5}|U0010[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|u|x|.|$)', re.S)
_SURROGATE = re.compile(rb'\\u[dD][89a-fA-F]')  # \ud83d: half of a pair, or alone (invalid)
_HIGH = re.compile(rb'\\u[dD][89abAB][0-9a-fA-F]{2}')
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_INTERESTING = re.compile(rb'["\\\x00-\x1f]')
_TELEGRAM_KEYS = ("date_unixtime", "date", "from_id", "actor_id")  # one of them is on every message Telegram writes
_MESSAGE_PREFIXES = ("messages.item", "chats.list.item.messages.item", "left_chats.list.item.messages.item")
_CHAT_PREFIXES = {"": False, "chats.list.item": True, "left_chats.list.item": True}


_PLURALS = {"line break or tab inside a string": "line breaks or tabs inside strings",
            "NUL byte": "NUL bytes",
            "byte that is not UTF-8 (read as Windows-1252)": "bytes that are not UTF-8 (read as Windows-1252)"}


def _json_escape(ch: str) -> bytes:
    """One character as a JSON escape (a surrogate pair beyond U+FFFF; U+FFFD for a surrogate itself)."""
    if 0xD800 <= ord(ch) <= 0xDFFF:
        return b"\\ufffd"
    return "".join(f"\\u{unit:04x}" for unit in _utf16_units(ord(ch))).encode("ascii")


def repair_note(path: Path | str, repairs: dict[str, int]) -> str | None:
    """The note every record of a repaired JSON file carries (Telegram's, Instagram's and Messenger's: one wording),
    naming the file: ``"file repaired: 1 invalid escape fixed in message_1.json"``; None when nothing was fixed."""
    if not repairs:
        return None
    what = ", ".join(f"{n} {kind if n == 1 else _PLURALS.get(kind, kind + 's')}" for kind, n in repairs.items())
    return f"file repaired: {what} fixed in {Path(path).name}"


def loads_repairing(raw: bytes) -> tuple[Any, dict[str, int]]:
    """A whole JSON document from ``raw`` (a small file: a profile, a side file), read as :func:`json.loads` reads
    it, or — when it refuses — through :class:`RepairingReader` (what Telegram's, Instagram's and Messenger's
    conversation files are read through), with what was fixed, by kind.

    Raises:
        ValueError: not JSON even so.
    """
    import io
    import json

    raw = raw[3:] if raw[:3] == b"\xef\xbb\xbf" else raw
    try:
        return json.loads(raw.decode("utf-8"), strict=False), {}
    except ValueError:
        reader = RepairingReader(io.BytesIO(raw), inside_strings=True)
        parts = []
        while chunk := reader.read():
            parts.append(chunk)
        return json.loads(b"".join(parts).decode("utf-8"), strict=False), dict(reader.repairs)


def _is_control(code: int) -> bool:
    """A control character that is no text (C0 and C1, DEL), a tab and line breaks apart."""
    return (code < 0x20 and code not in (0x09, 0x0A, 0x0D)) or 0x7F <= code < 0xA0


def _wordish(byte: bytes) -> bool:
    """One byte of a letter or digit (any byte of a UTF-8 character beyond ASCII counts)."""
    return bool(byte) and (byte[0] >= 0x80 or byte.isalnum())


def _utf16_units(code: int) -> list[int]:
    if code < 0x10000:
        return [code]
    code -= 0x10000
    return [0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)]


class RepairingReader:
    """A binary file wrapper whose ``read()`` returns the bytes with JSON string faults fixed.

    Fixed: an invalid escape (:meth:`_fix_escape`: ``\\xHH`` and ``\\U0001F600`` become the character they name
    unless it is a control character; ``\\q``, ``\\a`` and any other letter or digit are dropped with their
    backslash; a backslash before punctuation is dropped; a ``\\u`` or ``\\x`` without its hex digits loses its
    backslash), a NUL byte (removed, inside or outside strings: a file padded or holed with zero bytes)
    and any other raw control character (``\\u00XX``).  Backslashes and control characters
    are never valid outside a JSON string, so these need no parsing.  With ``inside_strings``
    the reader also tracks where strings are (slower) and escapes raw tabs and line breaks
    inside them.  ``repairs`` counts what was fixed, by kind.

    Args:
        fh: the file, opened binary; inside_strings: also fix raw tabs/line breaks in strings.
    """

    def __init__(self, fh: BinaryIO, inside_strings: bool = False):
        self.fh = fh
        self.inside_strings = inside_strings
        self.repairs: dict[str, int] = {}
        self._carry = b""
        self._tail = b""  # a UTF-8 character cut at the end of the last chunk
        self._in_string = False
        self._escaped = False
        self.offset = 0  # bytes read from the file so far

    def _count(self, kind: str, n: int = 1) -> None:
        self.repairs[kind] = self.repairs.get(kind, 0) + n

    def _fix_escape(self, m: re.Match) -> bytes:
        """One escape as valid JSON.  An invalid one is counted, and:

        * ``\\xHH`` and ``\\U0001F600`` (Python's and C's escapes) are the character they name — unless that is a
          control character other than a tab or line break (``\\x0C``, a form feed: no text);
        * a letter or digit after the backslash (``\\q``, ``\\a``, ``\\v``, ``\\0``) is dropped with it: C's
          ``\\a \\v \\e \\0`` name control characters, and any other names nothing, so the letter is no part of
          the text (``"Lea Vogt\\q"`` is ``Lea Vogt``, not ``Lea Vogtq``);
        * either dropped escape between two letters or digits leaves a space, so the words it stood between stay
          two (``"Bring\\x0Ctowels"`` is ``Bring towels``); elsewhere nothing (``"rope\\a and"`` is ``rope and``);
        * a backslash before punctuation or a space is dropped and the character kept (``\\'`` is ``'``), and so is
          the backslash of a ``\\u`` or ``\\x`` without its hex digits (``\\u12`` is ``u12``).
        """
        body = m.group(1)
        if body[:1] == b"u" and len(body) == 5 and _SURROGATE.match(b"\\" + body):
            self._count("lone surrogate")  # half an emoji (\ud83d alone): the replacement character
            return b"\\ufffd"
        if body[:1] in b'"\\/bfnrt' and body != b"" or (body[:1] == b"u" and len(body) in (5, 11)):
            return m.group(0)
        self._count("invalid escape")
        named = None
        if body[:1] == b"x" and len(body) == 3:
            named = int(body[1:], 16)
        elif body[:1] == b"U" and len(body) == 9:  # \U0001F600 (Python's and C's escape of any character)
            named = int(body[1:], 16)
        if named is not None and not _is_control(named):
            return _json_escape(chr(named))
        if named is None and (len(body) != 1 or not (body.isalnum() and body.isascii()) or body in b"ux"):
            return body  # the backslash dropped: punctuation kept, a \u or \x without hex digits
        # an escape naming no text: dropped; between two letters or digits, a space keeps the words apart
        before = m.string[m.start() - 1:m.start()]
        after = m.string[m.end():m.end() + 1]
        return b" " if _wordish(before) and _wordish(after) else b""

    def _valid_utf8(self, chunk: bytes) -> bytes:
        """``chunk`` as valid UTF-8: a byte that is not UTF-8 (a name re-saved as Latin-1: ``J\\xf6rg``) is
        read as its Windows-1252 character (:func:`~ingestors.base.decode_utf8_or_1252`, counted); a
        character cut at the chunk's end waits for the next one.  (yajl stops at the first bad byte.)"""
        data, self._tail = self._tail + chunk, b""
        if data.isascii():
            return data
        try:
            data.decode("utf-8")
            return data  # the common case: valid, and no character cut at the end
        except UnicodeDecodeError:
            pass
        text, bad, self._tail = decode_utf8_or_1252(data, final=not chunk)  # b"": the end of the file
        if bad:
            self._count("byte that is not UTF-8 (read as Windows-1252)", bad)
        return text.encode("utf-8")

    def _fix_controls(self, data: bytes) -> bytes:
        nuls = data.count(0)
        if nuls:  # NUL is never text: a file padded or holed with zero bytes (a crash, a bad copy) loses them
            self._count("NUL byte", nuls)
            data = data.replace(b"\x00", b"")
        found = len(_CONTROL.findall(data))
        if found:
            self._count("control character", found)
            data = _CONTROL.sub(lambda m: b"\\u%04x" % m.group(0)[0], data)
        return data

    def _fix_in_strings(self, data: bytes) -> bytes:
        """Escape raw tabs and line breaks that stand inside strings (string state kept across reads)."""
        out, pos = [], 0
        skip = 0 if self._escaped else -1  # the byte a backslash escapes (the last read's last byte: this one's first)
        self._escaped = False
        for m in _INTERESTING.finditer(data):
            i, ch = m.start(), data[m.start()]
            if i == skip:  # escaped (\" or \\): no string's end, no escape's start.  (Only the byte right after
                continue  # the backslash: "a\nb" escapes the n, and the next quote still ends the string.)
            if ch == 0x5C:  # backslash
                if self._in_string:
                    skip = i + 1
                    self._escaped = skip == len(data)
            elif ch == 0x22:  # quote
                self._in_string = not self._in_string
            elif self._in_string:
                out.append(data[pos:i])
                out.append(b"\\u%04x" % ch)
                pos = i + 1
                self._count("line break or tab inside a string")
        out.append(data[pos:])
        return b"".join(out)

    def read(self, size: int = -1) -> bytes:
        """Up to about :data:`CHUNK` repaired bytes (``b""`` at the end of the file; ``read(0)`` reads nothing)."""
        if size == 0:
            return b""
        while True:
            raw = self.fh.read(CHUNK)
            self.offset += len(raw)
            data, self._carry = self._carry + self._valid_utf8(raw), b""
            if raw:  # not the end: a trailing run of backslashes (or a \ud83d) waits for what follows it
                cut = data.find(b"\\", max(0, len(data) - 10))  # \U0001F600 is ten bytes
                if cut >= 0:
                    if cut >= 6 and _HIGH.fullmatch(data, cut - 6, cut):
                        cut -= 6  # the first half of a pair whose second half may be cut off
                    while cut > 0 and data[cut - 1] == 0x5C:
                        cut -= 1
                    if len(data) - cut < (1 << 20):
                        data, self._carry = data[:cut], data[cut:]
                if not data:
                    continue
            if _BAD_ESCAPE.search(data) or data.endswith(b"\\") or _SURROGATE.search(data):
                data = _ESCAPE.sub(self._fix_escape, data)
            data = self._fix_controls(data)
            if self.inside_strings:
                data = self._fix_in_strings(data)
            if data or not raw:  # a read whose bytes were all dropped (a "\\q" alone) is not the end of the file
                return data


@dataclass
class _Chat:
    """One chat as the first pass saw it: name, id, senders (in order of first message), from a full export."""

    full: bool
    name: str | None = None
    id: Any = None
    type: str | None = None  # "personal_chat", "private_group", "public_channel", …
    members: list = field(default_factory=list)
    has_messages: bool = False


@dataclass
class _ChatState:
    """The second pass inside one chat: service messages waiting for the next message, the last Record."""

    chat: _Chat
    n: int = 0
    events: list = field(default_factory=list)
    last: Record | None = None
    times: FileOrder = field(default_factory=FileOrder)


# what a service message says beyond its action: a call's length and end, who joined, which message was pinned
_EVENT_KEYS = ("duration_seconds", "discard_reason", "members", "message_id", "title", "inviter", "amount", "currency")


def owner_handle(user_id) -> str | None:
    """The handle a full export's ``personal_information.user_id`` has as a sender (``111`` → ``"user111"``,
    as ``from_id`` writes it), or None when it is not an id."""
    if isinstance(user_id, bool) or user_id is None:
        return None
    text = str(user_id).strip()
    if text.isdigit():
        return "user" + text
    return text if text.startswith("user") and text[4:].isdigit() else None


SAVED_MESSAGES = "Saved Messages"
"""The name of the account holder's own chat ("Saved Messages"), which result.json leaves out and messages.html
writes as the page's title (in either case: identities compare names case-folded)."""


def personal_chat_owner(chat: "_Chat") -> str | None:
    """Who exported a one-to-one chat (``type: personal_chat``, named after the other person) written by two
    senders: the handle of the sender the chat is not named after (in the account holder's "Saved Messages",
    its one poster); None otherwise (a single-chat export has no
    ``personal_information``)."""
    if chat.type == "saved_messages" and len(chat.members) == 1:  # the account holder's own chat: their words
        return chat.members[0].address
    if chat.type != "personal_chat" or len(chat.members) != 2 or not chat.name:
        return None
    a, b = chat.members
    other = b if a.name == chat.name else a if b.name == chat.name else None
    return other.address if other is not None and other.name != chat.name else None


_MEDIA_LABELS = {"photo": "photo", "sticker": "sticker", "voice_message": "voice message", "video_message": "video message",
                 "video_file": "video", "audio_file": "audio", "animation": "GIF"}


def _media_note(media: dict) -> str:
    """A note naming a message's media: ``"media: photo"``, ``"media: sticker 😂"``, ``"media: poll"``."""
    kind = media.get("media_type")
    label = _MEDIA_LABELS.get(kind, kind) if isinstance(kind, str) else None
    if label is None:
        label = next((k.split("_")[0] for k in ("photo", "poll", "location_information", "contact_information",
                                                 "file") if k in media), "media")
    emoji = media.get("sticker_emoji")
    return f"media: {label}" + (f" {emoji}" if isinstance(emoji, str) and emoji else "")


_CONTROL_TEXT = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def join_text(text: Any, links: list[str] | None = None) -> str:
    """The plain text of a Telegram ``text`` field.

    Args:
        text: a string, or a list of parts (strings and ``{"type", "text", "href"?}`` dicts).
        links: when given, ``href`` targets of ``text_link`` parts are appended to it.
    Returns:
        The parts' texts joined with nothing between them; ``""`` for anything else.
    """
    if isinstance(text, str):
        return text
    if not isinstance(text, list):
        return ""
    out = []
    for part in text:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, dict):
            value = part.get("text")
            out.append(value if isinstance(value, str) else "")
            if links is not None and isinstance(part.get("href"), str):
                links.append(part["href"])
    return "".join(out)


def poll_subject(media: dict | None) -> str | None:
    """A poll's words as a record's subject, so the poll is found by them: ``"Dinner on Friday? (Pizza /
    Sushi)"`` from ``media["poll"]`` (``question`` and ``answers``: strings, or ``{"text"}`` objects as
    result.json writes them); None when there is no poll or no question."""
    poll = media.get("poll") if isinstance(media, dict) else None
    question = poll.get("question") if isinstance(poll, dict) else None
    if not isinstance(question, str) or not question.strip():
        return None
    answers = [a.get("text") if isinstance(a, dict) else a for a in poll.get("answers") or []]
    answers = [a.strip() for a in answers if isinstance(a, str) and a.strip()]
    return question.strip() + (f" ({' / '.join(answers)})" if answers else "")


def shared_text(media: dict | None) -> str:
    """What a message that only shares a contact or a place says, as its text, so it is found by the words
    (a shared card was an empty message with the note "media: contact"): ``"[shared a contact: Marco Rossi,
    +44 7700 900555]"``, ``"[shared a location: Trattoria Da Enzo, Via dei Vascellari 29 (41.88862, 12.47540)]"``.
    Reads result.json's ``contact_information`` (``first_name``, ``last_name``, ``phone_number``) and
    ``location_information`` (``latitude``, ``longitude``) with a venue's ``place_name``/``address``, and the HTML
    export's (``name``, ``phone_number``; ``name``, ``coordinates``).  ``""`` for other media."""
    if not isinstance(media, dict):
        return ""

    def words(*values) -> list[str]:
        return [" ".join(str(v).split()) for v in values if isinstance(v, (str, int, float)) and str(v).strip()]
    card = media.get("contact_information")
    if isinstance(card, dict):
        name = " ".join(words(card.get("first_name"), card.get("last_name"))) or " ".join(words(card.get("name")))
        parts = [x for x in (name, *words(card.get("phone_number"))) if x]
        return f"[shared a contact: {', '.join(parts)}]" if parts else ""
    place = media.get("location_information")
    if isinstance(place, dict):
        lat, lon = place.get("latitude"), place.get("longitude")
        at = f"({float(lat):.5f}, {float(lon):.5f})" if isinstance(lat, (int, float)) and isinstance(lon, (int, float)) \
            else " ".join(words(place.get("coordinates")))
        named = ", ".join(words(media.get("place_name"), media.get("address"), place.get("name")))
        if not named and isinstance(lat, (int, float)) and isinstance(lon, (int, float)):
            named = _near(float(lat), float(lon))
        text = " ".join(x for x in (named, at) if x)
        return f"[shared a location: {text}]" if text else ""
    return ""


def _near(lat: float, lon: float) -> str:
    """"near Rome, Latium, Italy": the nearest GeoNames town to a shared position, in its own country
    (:func:`ingestors.photos.reverse_geocode`, offline), or ``""`` — also when it is further than a photo's place may
    be (``FAR_KM``)."""
    try:
        from core.extraction.gazetteer import countries
        from ingestors.photos import FAR_KM, _km, reverse_geocode  # in the position's own country, as a photo's

        hit = reverse_geocode(lat, lon)
    except Exception:  # noqa: BLE001 — a name is a nicety; the coordinates are kept
        return ""
    if hit is None or _km(lat, lon, float(hit["lat"]), float(hit["lon"])) > FAR_KM:
        return ""  # the nearest town is too far to be where it was (at sea: 0, 0 is no Ghanaian town)
    country = countries().get(hit.get("cc") or "", {}).get("name", hit.get("cc"))
    return "near " + ", ".join(x for x in (hit.get("name"), hit.get("admin1"), country) if x)


def quarter_seconds(value) -> int | None:
    """Where in its quarter hour a message was sent, in seconds (0–899): the same in both export formats
    whatever zone either was written in — every zone's offset is whole quarter hours — from result.json's
    ``date`` (``"2023-03-12T14:05:33"``: 5 × 60 + 33 = 333) or a datetime (messages.html's ``title`` as
    :func:`ingestors.telegram_html.parse_when` reads it); None when missing or unreadable."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None
    return (value.minute * 60 + value.second) % 900 if isinstance(value, datetime) else None


def message_identity(chat_name: str | None, message_id, sender: Party | None, chat_id: Any = None,
                     quarter: int | None = None) -> str | None:
    """What names one Telegram message in both export formats (``result.json`` and ``messages.html``):
    the chat's name, the message's id and the name of whom the words are (the HTML has neither chat nor
    user ids).  None without a chat name or a message id (then the record is known by its content).

    Args:
        chat_name: the chat's name as the export shows it.  message_id: the message's id in the chat.
        sender: the record's sender (the author of a forwarded message), or None.
        chat_id: the chat's id, given only when the name alone does not tell the chat (a full export holding
            two chats of that name: supergroups and channels number their messages from 1 each, so both
            have a message 1, often by the same person).
        quarter: where in its quarter hour the message was sent (:func:`quarter_seconds`), so two chats of one
            name exported each on its own (no export names the other) are not taken for each other: their
            message 5 by the same person was not written at the same second (of 900).

    Returns:
        ``"telegram\x1f<chat>\x1f<id>\x1f<sender>"`` (chat and sender case-folded, spaces collapsed; with
        ``chat_id``, ``"\x1fchat <chat id>"`` after it; with ``quarter``, ``"\x1fq <quarter>"`` last), or None.
    """
    chat = " ".join((chat_name or "").split()).casefold()
    if not chat or message_id is None or isinstance(message_id, bool):
        return None
    who = " ".join(((sender.name or "") if sender else "").split()).casefold()
    return f"telegram\x1f{chat}\x1f{message_id}\x1f{who}" + (f"\x1fchat {chat_id}" if chat_id is not None else "") \
        + (f"\x1fq {quarter}" if quarter is not None else "")


def _name_key(name: str | None) -> str:
    return " ".join((name or "").split()).casefold()


def local_offset(local_text, at: datetime) -> timezone | None:
    """The offset between an export's zone-less local ``date`` and the UTC instant ``at`` of the same
    message, rounded to 15 minutes (all zones in use are whole quarter hours), or None when ``local_text``
    is missing, unreadable or more than 14 hours away (not the same instant)."""
    if not isinstance(local_text, str):
        return None
    try:
        local = datetime.fromisoformat(local_text)
    except ValueError:
        return None
    if local.tzinfo is not None:
        return local.tzinfo if isinstance(local.tzinfo, timezone) else None
    minutes = round((local - at.replace(tzinfo=None)).total_seconds() / 900) * 15
    if abs(minutes) > 14 * 60:
        return None
    return timezone(timedelta(minutes=minutes))


CHANNEL_TYPES = frozenset({"public_channel", "private_channel"})


def is_channel_id(address: str | None) -> bool:
    """True for a Telegram peer id of a channel or supergroup (``"channel1006503122"``): not a person."""
    return isinstance(address, str) and re.fullmatch(r"channel\d+", address) is not None


def sender_group(chat_type: str | None, chat_id: Any, chat_name: str | None, sender: Party | None) -> str | None:
    """``"telegram_channel"`` or ``"telegram_group"`` when a message's sender is not a person but a channel
    (a channel's post, a linked channel's post in its discussion group) or a group posting as itself (an
    anonymous admin); else None.

    Args:
        chat_type: the export's chat ``type``; chat_id, chat_name: the chat's; sender: the message's sender.
    """
    if sender is None:
        return None
    own = (sender.address is not None and str(chat_id or "") != "" and sender.address == f"channel{chat_id}") or \
        (sender.address is None and chat_name is not None and sender.name == chat_name)
    if chat_type in CHANNEL_TYPES and (own or is_channel_id(sender.address)):
        return "telegram_channel"
    if is_channel_id(sender.address):
        return "telegram_group" if own else "telegram_channel"
    return None


class TelegramIngestor:
    """Reads a Telegram Desktop ``result.json``: one Record per message, chat by chat, in file order.

    Claims no suffix (``.json`` is everyone's); the registry picks it by :meth:`sniff`.
    """

    name = "telegram"
    suffixes = frozenset()
    _shared_names: set = set()  # chat names (as message_identity compares them) held by two chats of the file

    def __init__(self, local_timezone: str = "UTC"):
        """
        Args:
            local_timezone: IANA zone for old exports that have only the zone-less ``date``.
        Raises:
            ValueError: ``local_timezone`` is not a known zone.
        """
        self.local_timezone = time_zone(local_timezone)

    def sniff(self, path: Path, head: bytes) -> float:
        """0.9 for a JSON object whose first 4 KiB name ``"messages"`` or ``"chats"`` (0.95 with
        ``"date_unixtime"`` too), 0.6 for one that looks like Telegram's full export opening, else 0."""
        if not _JSON_START.match(head):
            return 0.0
        if b'"sender_name"' in head and b'"timestamp_ms"' in head and b'"date_unixtime"' not in head:
            return 0.0  # Instagram / Facebook Messenger (ingestors/messenger.py)
        if b'"messages"' in head or b'"chats"' in head:
            return 0.95 if b'"date_unixtime"' in head else 0.9
        if b'"personal_information"' in head and b"Telegram" in head:
            return 0.6
        return 0.0

    def _events(self, path: Path, inside_strings: bool) -> Iterator[tuple[str, str, Any]]:
        """ijson's ``(prefix, event, value)`` for the repaired file; the reader's repair counts go to
        ``self._repairs`` and the bytes read to ``self._offset``.

        Raises:
            InputError: the file cannot be opened.  ijson.JSONError: the JSON breaks.
        """
        try:
            fh = open(path, "rb")
        except OSError as exc:
            raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from exc
        with fh:
            if fh.read(3) != b"\xef\xbb\xbf":
                fh.seek(0)
            reader = RepairingReader(fh, inside_strings)
            self._repairs = reader.repairs
            try:
                yield from ijson.parse(reader, use_float=True)
            finally:
                self._offset = reader.offset

    def _walk(self, path: Path, inside_strings: bool) -> Iterator[tuple[str, _Chat, Any]]:
        """``("start" | "message" | "stop" | "end", chat, message)`` as the file streams by.

        ``start``/``stop`` bracket a chat's ``messages`` array; ``message`` carries one item of it
        (whatever JSON it is); ``end`` closes the chat object (its name and id complete).
        """
        stack: list[_Chat] = []
        builder: ijson.ObjectBuilder | None = None
        for prefix, event, value in self._events(path, inside_strings):
            if builder is not None:
                builder.event(event, value)
                if not builder.containers:
                    yield "message", stack[-1], builder.value
                    builder = None
                continue
            if prefix in _MESSAGE_PREFIXES and stack:
                builder = ijson.ObjectBuilder()
                builder.event(event, value)
                if not builder.containers:  # a bare number or string in the list
                    yield "message", stack[-1], builder.value
                    builder = None
                continue
            if prefix == "" and event == "map_key":
                self._top_keys.add(value)
            elif prefix == "personal_information.user_id" and event in ("number", "string"):
                self._owner = owner_handle(value)
            if prefix in _CHAT_PREFIXES:
                if event == "start_map":
                    stack.append(_Chat(_CHAT_PREFIXES[prefix]))
                elif event == "end_map" and stack:
                    yield "end", stack.pop(), None
                continue
            base, _, key = prefix.rpartition(".")
            if base in _CHAT_PREFIXES and stack:
                chat = stack[-1]
                if key == "name" and event == "string":
                    chat.name = value
                elif key == "id" and event in ("number", "string"):
                    chat.id = value
                elif key == "type" and event == "string":
                    chat.type = value
                elif key == "messages" and event == "start_array":
                    chat.has_messages = True
                    yield "start", chat, None
                elif key == "messages" and event == "end_array":
                    yield "stop", chat, None

    def _survey(self, path: Path) -> tuple[list[_Chat], bool, str | None]:
        """First pass: every chat's name, id and senders.

        Returns:
            ``(chats, inside_strings, broken)``: the chats in file order; whether raw tabs or line
            breaks inside strings had to be repaired; where and why the JSON breaks (None if it does not).
        Raises:
            InputError: the file cannot be read, is not JSON at all, or holds no Telegram chat.
        """
        broken = None
        for inside_strings in (False, True):
            self._top_keys: set[str] = set()
            self._owner: str | None = None
            chats: list[_Chat] = []
            current: _Chat | None = None
            broken = None
            seen = telegram = 0  # messages; messages with a key Telegram writes on every one
            try:
                for what, chat, msg in self._walk(path, inside_strings):
                    if what == "message" and isinstance(msg, dict):
                        seen += 1
                        telegram += any(k in msg for k in _TELEGRAM_KEYS)
                    if what == "start":
                        if chat.type == "saved_messages" and not chat.name:
                            chat.name = SAVED_MESSAGES  # result.json writes no name for it; the HTML this one
                        current = chat
                        chats.append(chat)
                    elif what == "message" and chat is current and isinstance(msg, dict) and \
                            msg.get("type", "message") == "message":
                        p = self._sender(msg)
                        if p is not None and p not in chat.members and not is_channel_id(p.address):
                            chat.members.append(p)
            except ijson.JSONError as exc:
                broken = f"at byte {self._offset}: " + (str(exc).splitlines() or ["invalid JSON"])[0]
                if not inside_strings and "inside string" in str(exc):
                    continue  # raw line breaks or tabs inside strings: read again, repairing those too
            if seen and not telegram:  # another program's JSON with a "messages" list (Discord, Slack, Google Chat…)
                raise InputError(str(path), "not a Telegram export: its messages have no 'date', 'date_unixtime' or "
                                 "'from_id' (another program's JSON holding a 'messages' list)")
            if not chats:
                if broken:
                    raise InputError(str(path), f"not valid JSON ({broken})")
                if not self._top_keys & {"messages", "chats"}:
                    raise InputError(str(path), "not a Telegram export: no 'messages' or 'chats' in it")
                raise InputError(str(path), "not a Telegram export: no chat with a 'messages' list in it")
            return chats, inside_strings, broken
        raise InputError(str(path), f"not valid JSON ({broken})")

    def read(self, path: Path) -> Iterator[Item]:
        """Yield one Record per message (kind ``"chat"``, ``sent_at`` UTC), chat by chat, streaming.

        Args:
            path: the export's ``result.json``.
        Raises:
            InputError: the file cannot be read, is not JSON, or holds no Telegram chat.
        """
        path = Path(path)
        chats, inside_strings, broken = self._survey(path)
        note = repair_note(path, self._repairs)
        names = [_name_key(c.name) for c in chats]
        self._shared_names = {n for n in names if n and names.count(n) > 1}  # two chats of one name: ids tell them
        queue = iter(chats)
        state: _ChatState | None = None
        try:
            for what, _, msg in self._walk(path, inside_strings):
                if what == "start":
                    chat = next(queue, None)
                    state = _ChatState(chat) if chat is not None else None
                elif what == "message" and state is not None:
                    yield from self._message(path, state, msg, note)
                elif what == "stop" and state is not None:
                    yield from self._flush(state)
                    state = None
        except ijson.JSONError:
            if state is not None:
                yield from self._flush(state)
            yield RecordError(str(path), f"byte {self._offset}",
                              f"the JSON breaks here ({broken}): the messages before it were read, "
                              "the rest of the file could not be")

    @staticmethod
    def _flush(state: _ChatState) -> Iterator[Record]:
        if state.last is not None:
            if state.events:
                state.last.attrs.setdefault("system_events", []).extend(state.events)
            yield state.last
        state.last, state.events = None, []

    def _message(self, path: Path, state: _ChatState, msg: Any, note: str | None) -> Iterator[Item]:
        """The Record (or RecordError) for one item of a chat's ``messages``; a Record is yielded one
        message late, so service messages after it can still join it."""
        chat = state.chat
        state.n += 1
        msg_id = msg.get("id") if isinstance(msg, dict) else None
        locator = (f"chat {chat.id} " if chat.full else "") + \
            (f"message {msg_id}" if msg_id is not None else f"#{state.n}")
        if not isinstance(msg, dict):
            yield RecordError(str(path), locator, "message is not a JSON object")
            return
        notes: list[str] = [note] if note else []
        attrs: dict = {}
        try:
            sent_at = self._when(msg, notes, attrs)
            if attrs.get("time_basis") == "assumed-local":  # a wall time the zone had twice: the one in order
                sent_at = state.times.place(sent_at, notes)
            elif sent_at is not None:
                state.times.place(sent_at)
        except (TypeError, ValueError, OverflowError, OSError):
            yield RecordError(str(path), locator, f"date_unixtime is not a number: {msg.get('date_unixtime')!r}")
            return
        links: list[str] = []
        text = _CONTROL_TEXT.sub("", join_text(msg.get("text"), links))
        if msg.get("type", "message") != "message":
            event = {"id": msg_id, "at": sent_at.isoformat() if sent_at else None,
                     "actor": msg.get("actor"), "action": msg.get("action"), "text": text}
            event.update((k, msg[k]) for k in _EVENT_KEYS if msg.get(k) not in (None, "", []))
            state.events.append(event)
            return
        if state.last is not None:
            yield state.last
        sender = self._sender(msg)
        members_of = sender  # whose chat members received it: the one who posted it here
        origin = msg.get("forwarded_from")
        if isinstance(origin, str) and origin.strip():
            # a forwarded message's words are its author's, not the forwarder's (as for mail)
            raw = msg.get("forwarded_from_id")
            known = next((p for p in chat.members if p.name == origin.strip()), None)  # a member: their id
            sender = Party(origin.strip(), raw if isinstance(raw, str) and raw else known.address if known else None,
                           "handle", "from")
            if members_of is not None:
                attrs["forwarded_by"] = {"name": members_of.name, "id": members_of.address}
            notes.append(f"forwarded by {(members_of.name or members_of.address) if members_of else 'someone'}"
                         f": written by {sender.name}")
        owner = self._owner or personal_chat_owner(chat)
        if sender is None:
            notes.append("sender unknown")
        elif owner and sender.address == owner:
            attrs["is_from_me"] = True  # the account holder (personal_information.user_id) wrote it (or forwarded
            # their own words)
        group = sender_group(chat.type, chat.id, chat.name, sender)
        if group:
            attrs["sender_group"] = group
        if isinstance(msg.get("author"), str) and msg["author"].strip():
            attrs["signature"] = msg["author"].strip()  # a channel post's signature (the admin who wrote it)
        if links:
            attrs["links"] = links
        media = {k: msg[k] for k in _MEDIA_KEYS if msg.get(k) not in (None, "")}
        if media:
            attrs["media"] = media
            notes.append(_media_note(media))
            shared = shared_text({**media, **{k: msg[k] for k in ("place_name", "address") if msg.get(k)}})
            text = "\n".join(x for x in (text, shared) if x)  # "here's Ola" with the card: both
        if msg.get("edited") or msg.get("edited_unixtime"):
            notes.append("edited")
            attrs["edited"] = msg.get("edited_unixtime") or msg.get("edited")
        for key in ("reply_to_message_id", "forwarded_from"):
            if msg.get(key) is not None:
                attrs[key] = msg[key]
        if msg_id is not None:
            attrs["message_id"] = msg_id
        if chat.name:
            attrs["chat_name"] = chat.name
        if state.events:
            attrs["system_events"], state.events = state.events, []
        thread = "telegram:" + str(chat.id if chat.id is not None else chat.name or path.stem)
        chat_id = chat.id if _name_key(chat.name) in self._shared_names else None
        recipients = other_members(chat.members, members_of)
        if owner:  # the account holder among the members: by name (attrs["owner_name"]), as the owner
            for i, p in enumerate(recipients):
                if p.address == owner and p.name:
                    recipients[i] = Party(p.name, None, p.address_kind, p.role)
                    attrs["owner_name"] = p.name
        state.last = Record(source_path=str(path.absolute()), external_id=locator, kind="chat", text=text,
                            subject=poll_subject(media), sent_at=sent_at, sender=sender, recipients=recipients,
                            thread=thread, attrs=attrs, notes=notes,
                            identity=message_identity(chat.name, msg_id, sender, chat_id,  # the HTML export's too
                                                      self._quarter(msg)),
                            former_identity=message_identity(chat.name, msg_id, sender, chat_id))

    # ---------------------------------------------------------------------------------------

    def _when(self, msg: dict, notes: list[str], attrs: dict) -> datetime | None:
        unix = msg.get("date_unixtime")
        if unix is not None:
            value = int(str(unix).strip())  # ValueError: caller makes a RecordError
            attrs["time_basis"] = "utc"
            at = datetime.fromtimestamp(value, tz=timezone.utc)
            zone = local_offset(msg.get("date"), at)
            if zone is not None:  # "date" is the exporting machine's wall clock: keep its offset
                attrs["time_basis"] = "export-local"
                return at.astimezone(zone)
            return at
        date = msg.get("date")
        if isinstance(date, str):
            try:
                local = datetime.fromisoformat(date)
            except ValueError:
                local = None
            if local is not None:
                attrs["time_basis"] = "assumed-local"
                notes.append(f"no date_unixtime: time read in {self.local_timezone.key}")
                if local.tzinfo is None:
                    local = local.replace(tzinfo=self.local_timezone)
                return local  # at the zone's offset: the calendar it was written in
        notes.append("no readable date: time unknown")
        return None

    @staticmethod
    def _quarter(msg: dict) -> int | None:
        """:func:`quarter_seconds` of a message: from ``date_unixtime`` (mod 900), else its ``date``."""
        try:
            return int(str(msg.get("date_unixtime")).strip()) % 900
        except ValueError:
            return quarter_seconds(msg.get("date"))

    @staticmethod
    def _sender(msg: dict) -> Party | None:
        name = msg.get("from") if isinstance(msg.get("from"), str) else None
        raw = msg.get("from_id")
        # old exports wrote a bare number for a user; newer ones "user<number>" for the same person
        address = raw if isinstance(raw, str) else f"user{raw}" if isinstance(raw, int) and \
            not isinstance(raw, bool) else None
        if not (name or address):
            return None
        return Party(name or None, address or None, "handle", "from")

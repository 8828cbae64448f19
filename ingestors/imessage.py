"""macOS Messages ``chat.db``: one :class:`~ingestors.base.Record` (kind ``"chat"``) per message.

The database is opened **read-only** (SQLite URI ``mode=ro``, and ``immutable=1`` when no
``-wal``/``-journal`` file lies beside it); the user's file is never written, and no file is
created beside it.  Tables read: ``message``, ``handle``, ``chat``,
``chat_message_join``, ``chat_handle_join`` (members, when present), ``attachment``
and ``message_attachment_join`` (when present).

Decisions:

* **Time**: ``message.date`` counts from 2001-01-01 00:00 UTC (Apple's epoch), in
  nanoseconds since macOS 10.13 and in seconds before; a value above 10**11 is read
  as nanoseconds (10**11 seconds would be the year 5170).  0 or NULL: ``sent_at``
  None, with a note.  ``attrs["time_basis"] = "utc"``.
* **Text**: ``message.text``, else the body decoded from ``attributedBody``
  (:func:`decode_attributed_body`).  U+FFFC marks where an attachment sits and
  is kept among words; a message that is only attachments (only U+FFFC) has an
  empty text.  Attachments' names/types are in ``attrs["attachments"]``, and each
  is noted by its kind (``"photo"``, ``"video"``, ``"voice message"``, ``"sticker"``,
  ``"file"``; ``"attachment"`` when the database has no row for it).  A body that
  cannot be decoded gives an empty text and a note (the record is kept).
* **From**: ``is_from_me = 1`` → ``Party("me", None, "handle", "from")`` and
  ``attrs["is_from_me"] = True`` (the app maps "me" to the owner); else the
  message's ``handle.id``: a phone number (``address_kind="phone"``), an email
  address (``"email"``), an SMS short code (``"short_code"``, e.g. ``22000``) or an SMS
  alphanumeric sender ID (``"alphanumeric"``, e.g. ``GOOGLE``) — the last two are services.  A phone
  number written without its country code (an SMS handle such as ``07700 900123``) is made E.164
  (``+447700900123``) with the handle's own ``country`` (:func:`canonical_phone`), so it is the same
  person as the ``+44 7700 900123`` of their iMessage handle whatever Kith's default region.
  Recipients: the chat's other members (``chat_handle_join``,
  else the handles seen in the chat), role ``"member"``; in a chat with someone,
  a message of mine is to them.
* **Thread**: ``"imessage:" + chat.guid`` (``chat.chat_identifier`` when no guid);
  a message in no chat: ``"imessage:handle:<handle id>"``.  A named group chat's
  ``display_name`` is ``attrs["chat_name"]``.  ``external_id`` is
  ``message.guid`` (``"ROWID <n>"`` when empty).
* **Edited** (``message_summary_info`` binary plist, key ``ec``: edit history per
  part): the text is the latest one (the row's own, or the last entry of the history
  when the row has none), with the note ``"edited"`` and the history in
  ``attrs["edits"]`` (``[{"part", "at", "text"}]``, ``at`` UTC ISO).
* **Unsent** (the plist's ``rp``: retracted parts, or ``date_retracted`` set): the
  record is kept — someone did write at that time — with an empty text (or what
  is left of a multi-part message) and the note ``"unsent"``.
* **Not records**: tapbacks/reactions (``associated_message_type`` 2000–3999: they
  only quote another message); the same reactions that arrive as plain SMS text from
  phones that are not Apple's (``Loved “see you at 6”``, ``Laughed at "…"``, with no
  ``associated_message_type``) when the quoted words are one of the last
  :data:`_RECENT_TEXTS` messages of that chat (or begin one, when the quote ends in
  "…"); and empty system rows (group renames, members joining/leaving: ``item_type`` ≠ 0
  with no text).
* **Bad files**: a database another program holds locked, a damaged one, or a file that
  is not SQLite raises :class:`~core.errors.InputError` naming the file and what is wrong;
  a database damaged part-way keeps the messages read before the damage.
"""
from __future__ import annotations

import plistlib
import re
import sqlite3
from collections import deque
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

import phonenumbers

from core.errors import InputError
from ingestors.base import Item, Party, Record, RecordError

APPLE_EPOCH = datetime(2001, 1, 1, tzinfo=timezone.utc)
_NANOSECOND_THRESHOLD = 10**11  # above: nanoseconds; below: seconds since 2001 (pre-10.13 DBs)
_SQLITE_MAGIC = b"SQLite format 3\x00"
_STREAM_HEADER = b"\x04\x0bstreamtyped"
_END_OF_OBJECT = 0x86
BUSY_TIMEOUT_S = 5.0  # how long to wait for another program's lock on the database before saying so
_RECENT_TEXTS = 500  # a text reaction is checked against this many of its chat's latest messages
# a reaction sent as plain text by a phone that is not Apple's: the verb, then the quoted message
_TEXT_TAPBACK = re.compile(
    r'^(?:Loved|Liked|Disliked|Laughed at|Emphasi[sz]ed|Questioned|Reacted \S{1,8} to|'
    r'Removed (?:a|an) (?:heart|like|dislike|laugh|exclamation point|exclamation|question mark|\S{1,8}) from) '
    r'[\u201c"](?P<quote>.+)[\u201d"]$', re.S)


class AttributedBodyError(ValueError):
    """An ``attributedBody`` blob holds no readable text; ``reason`` says why."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


def _read_length(blob: bytes, pos: int) -> tuple[int, int]:
    """A typedstream integer at ``pos``: ``(value, position after it)``.

    One byte below 0x80; 0x81 then a 2-byte little-endian value; 0x82 then a 4-byte one.
    """
    if pos >= len(blob):
        raise AttributedBodyError("blob ends before the string's length")
    tag = blob[pos]
    if tag < 0x80:
        return tag, pos + 1
    if tag == 0x81:
        if pos + 3 > len(blob):
            raise AttributedBodyError("blob ends inside the string's length")
        return int.from_bytes(blob[pos + 1:pos + 3], "little"), pos + 3
    if tag == 0x82:
        if pos + 5 > len(blob):
            raise AttributedBodyError("blob ends inside the string's length")
        return int.from_bytes(blob[pos + 1:pos + 5], "little"), pos + 5
    raise AttributedBodyError(f"unexpected byte 0x{tag:02x} where the string's length should be")


def _utf8_until_end_marker(blob: bytes, start: int) -> bytes:
    """The UTF-8 bytes from ``start`` up to the end-of-object byte (0x86) at a character boundary.

    0x86 is a UTF-8 continuation byte, so at a character boundary it cannot be text.
    """
    pos = start
    while pos < len(blob):
        lead = blob[pos]
        if lead == _END_OF_OBJECT:
            break
        width = 1 if lead < 0x80 else 2 if lead >> 5 == 0b110 else 3 if lead >> 4 == 0b1110 \
            else 4 if lead >> 3 == 0b11110 else 1
        pos += width
    return blob[start:min(pos, len(blob))]


def decode_attributed_body(blob: bytes) -> str:
    """The message text inside a Messages ``attributedBody`` blob (a NeXT/Apple typedstream).

    The blob archives an ``NSAttributedString``: after the ``streamtyped`` header
    come the class chain (``NSMutableAttributedString`` … ``NSObject``), then the
    ``NSString`` (or ``NSMutableString``) object, whose content is the type ``+``
    followed by a length (one byte below 0x80; 0x81 + 2-byte little-endian; 0x82 +
    4-byte little-endian) and that many UTF-8 bytes, then 0x86 (end of object).
    When the length runs past the end of the blob or is not followed by 0x86 (blobs
    with stray data), the text is read up to the end-of-object byte instead.

    Args:
        blob: the raw ``message.attributedBody`` bytes.
    Returns:
        The text, exactly (U+FFFC marks attachments; characters outside the BMP kept).
    Raises:
        AttributedBodyError (a ValueError): not a typedstream, no NSString in it,
            or the string is empty (e.g. ``streamtyped_Blank.bin``).
    """
    blob = bytes(blob or b"")
    if not blob.startswith(_STREAM_HEADER):
        raise AttributedBodyError("not a typedstream: no 'streamtyped' header")
    cls = blob.find(b"NSString", len(_STREAM_HEADER))
    if cls < 0:
        raise AttributedBodyError("no NSString in the attributedBody")
    marker = blob.find(b"\x01+", cls + len(b"NSString"))  # type string "+" (length 1), new or shared
    if marker < 0:
        raise AttributedBodyError("no string content after the NSString class")
    length, start = _read_length(blob, marker + 2)
    end = start + length
    if end <= len(blob) and (end == len(blob) or blob[end] == _END_OF_OBJECT):
        data = blob[start:end]
    else:
        data = _utf8_until_end_marker(blob, start)
    text = data.decode("utf-8", "replace")
    if not text:
        raise AttributedBodyError("the attributedBody's NSString is empty (no text)")
    return text


def apple_time(value: int | float | None) -> datetime | None:
    """A ``message.date``-style value as tz-aware UTC.

    Args:
        value: nanoseconds (or, for values ≤ 10**11, seconds) since 2001-01-01 UTC.
    Returns:
        The instant, or None for 0/NULL or a value out of range.
    """
    if not value:
        return None
    try:
        if abs(value) > _NANOSECOND_THRESHOLD:
            return APPLE_EPOCH + timedelta(microseconds=value // 1000)
        return APPLE_EPOCH + timedelta(seconds=value)
    except (OverflowError, TypeError, ValueError):
        return None


def _apple_seconds(value) -> str | None:
    try:
        return (APPLE_EPOCH + timedelta(seconds=float(value))).isoformat()
    except (OverflowError, TypeError, ValueError):
        return None


def read_summary_info(blob: bytes | None) -> dict:
    """What ``message_summary_info`` says about edits and unsends.

    Args:
        blob: the binary plist, or None.
    Returns:
        ``{"edits": [{"part", "at", "text"}], "latest": str | None, "unsent_parts": [int]}``
        (``at``: UTC ISO; ``text``: decoded, None when undecodable; ``latest``: the
        newest text of the last edited part).  An unreadable plist gives empty values.
    """
    out: dict = {"edits": [], "latest": None, "unsent_parts": []}
    if not blob:
        return out
    try:
        info = plistlib.loads(bytes(blob))
    except Exception:  # plistlib raises several types on bad input
        return out
    if not isinstance(info, dict):
        return out
    history = info.get("ec") if isinstance(info.get("ec"), dict) else {}
    for part, entries in sorted(history.items(), key=lambda kv: str(kv[0])):
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict):
                continue
            try:
                text = decode_attributed_body(entry.get("t") or b"")
            except AttributedBodyError:
                text = None
            out["edits"].append({"part": str(part), "at": _apple_seconds(entry.get("d")), "text": text})
            if text is not None:
                out["latest"] = text
    rp = info.get("rp")
    if isinstance(rp, list):
        out["unsent_parts"] = [p for p in rp if isinstance(p, int)]
    return out


def _address_kind(handle_id: str) -> str:
    """email | phone | short_code (3–6 digits, no country code: an SMS short code) | alphanumeric (an SMS
    sender ID such as "GOOGLE": Messages' handles are otherwise only phone numbers and email addresses)."""
    if "@" in handle_id:
        return "email"
    if any(c.isdigit() for c in handle_id) and all(c.isdigit() or c in "+-() ." for c in handle_id):
        digits = "".join(c for c in handle_id if c.isdigit())
        return "short_code" if len(digits) <= 6 and not handle_id.strip().startswith("+") else "phone"
    return "alphanumeric"


def canonical_phone(handle_id: str, country: str | None) -> str:
    """A phone handle written without its country code, in E.164 form by the handle's own country.

    Args:
        handle_id: ``handle.id`` as Messages stored it (``"07700 900123"``, ``"+15551234567"``).
        country: ``handle.country`` (ISO 3166 alpha-2, any case: ``"gb"``), or None.
    Returns:
        ``"+447700900123"`` for ``("07700 900123", "gb")``; ``handle_id`` unchanged when it already has
        a ``+`` country code, when there is no country, or when it is not a possible number there.
    """
    if not country or handle_id.strip().startswith("+"):
        return handle_id
    try:
        num = phonenumbers.parse(handle_id, country.strip().upper())
    except phonenumbers.NumberParseException:
        return handle_id
    if not phonenumbers.is_possible_number(num):
        return handle_id
    return phonenumbers.format_number(num, phonenumbers.PhoneNumberFormat.E164)


def is_text_reaction(text: str, earlier: Iterator[str] | list[str] | deque) -> bool:
    """Whether ``text`` is a reaction sent as plain text (``Loved “see you at 6”``) to one of ``earlier``.

    Args:
        text: a message's text.
        earlier: the texts of the chat's messages before it.
    Returns:
        True when ``text`` is a reaction verb and a quoted message (:data:`_TEXT_TAPBACK`) and the quote is
        one of ``earlier`` (ignoring surrounding spaces), or, when it ends in "…" or "...", the start of one.
    """
    m = _TEXT_TAPBACK.match(text.strip())
    if not m:
        return False
    quote = m.group("quote").strip()
    cut = quote[:-1] if quote.endswith("\u2026") else quote[:-3] if quote.endswith("...") else None
    for t in earlier:
        t = t.strip()
        if t == quote or (cut and len(cut) >= 3 and t.startswith(cut.rstrip())):
            return True
    return False


def _attachment_note(a: dict) -> str:
    """What one attachment is, for the record's notes: photo, video, voice message, sticker or file."""
    if a.get("is_sticker"):
        return "sticker"
    mime = str(a.get("mime_type") or "").casefold()
    uti = str(a.get("uti") or "").casefold()
    if mime.startswith("image/") or uti in ("public.jpeg", "public.png", "public.heic", "com.compuserve.gif"):
        return "photo"
    if mime.startswith("video/") or uti in ("public.mpeg-4", "com.apple.quicktime-movie"):
        return "video"
    if mime.startswith("audio/") or uti in ("com.apple.coreaudio-format", "public.mpeg-4-audio"):
        return "voice message"
    return "file"


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _sqlite_problem(exc: sqlite3.Error) -> str:
    """What a person should read for SQLite's error (SQLite's own words kept at the end)."""
    text = str(exc)
    low = text.casefold()
    if "locked" in low or "busy" in low:
        return ("the database is locked by another program (Messages?): quit it and try again, or import a "
                f"copy of chat.db made together with its chat.db-wal ({text})")
    if "malformed" in low or "corrupt" in low:
        return f"the database is damaged ({text}); SQLite's '.recover' can save what is left of it"
    if "not a database" in low or "encrypted" in low:
        return f"not a readable SQLite database ({text})"
    return f"not a readable SQLite database: {text}"


def _open_readonly(path: Path) -> sqlite3.Connection:
    """``path`` opened read-only; also ``immutable`` when no ``-wal`` or ``-journal`` lies beside it, because a
    WAL-mode copy of chat.db (Messages keeps it in WAL mode) would otherwise get ``-wal``/``-shm`` files created
    next to it.  With a ``-wal`` beside it (a live or fully copied database) SQLite reads it too."""
    quiet = not any(Path(str(path) + tail).exists() for tail in ("-wal", "-journal"))
    uri = "file:" + quote(str(path.absolute())) + "?mode=ro" + ("&immutable=1" if quiet else "")
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as exc:
        raise InputError(str(path), _sqlite_problem(exc)) from exc
    return conn


class IMessageIngestor:
    """Reads a macOS Messages ``chat.db`` (read-only): one Record per message, by date then ROWID."""

    name = "imessage"
    suffixes = frozenset({".db"})

    def sniff(self, path: Path, head: bytes) -> float:
        """0.95 for an SQLite file whose first page names Messages' tables, or whose tables (read-only) include
        ``message``, ``handle``, ``chat`` and ``chat_message_join`` (an iPhone backup's ``sms.db``, stored under a
        hash with no suffix, names them past the first page); 0.3 for another SQLite file; else 0."""
        if not head.startswith(_SQLITE_MAGIC):
            return 0.0
        if b"chat_message_join" in head or (b"attributedBody" in head and b"handle" in head):
            return 0.95
        try:
            conn = _open_readonly(Path(path))
        except InputError:
            return 0.3
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.Error:
            return 0.3
        finally:
            conn.close()
        return 0.95 if {"message", "handle", "chat", "chat_message_join"} <= tables else 0.3

    def read(self, path: Path) -> Iterator[Item]:
        """Yield one Record per message (kind ``"chat"``, ``sent_at`` UTC), oldest first.

        Args:
            path: a ``chat.db`` (opened with ``mode=ro``; never modified).
        Raises:
            InputError: not an SQLite database, not a Messages one (tables missing), locked by another
                program, or damaged (the reason says which; messages yielded before the damage stay good).
        """
        path = Path(path)
        if not path.is_file():
            raise InputError(str(path), "no such file")
        conn = _open_readonly(path)
        done = [0]
        try:
            for item in self._read(conn, path):
                done[0] += isinstance(item, Record)
                yield item
        except sqlite3.Error as exc:
            kept = f"; the {done[0]} messages before it were read" if done[0] else ""
            raise InputError(str(path), f"cannot read the Messages database: {_sqlite_problem(exc)}{kept}") from exc
        finally:
            conn.close()

    def _read(self, conn: sqlite3.Connection, path: Path) -> Iterator[Item]:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        missing = {"message", "handle", "chat", "chat_message_join"} - tables
        if missing:
            raise InputError(str(path), "not a Messages database: missing table(s) " + ", ".join(sorted(missing)))
        mcols = _columns(conn, "message")

        def col(name: str, default: str = "NULL") -> str:
            return f"m.{name}" if name in mcols else default

        hcols = _columns(conn, "handle")
        handles = {}
        for rowid, hid, country in conn.execute(
                "SELECT ROWID, id, " + ("country" if "country" in hcols else "NULL") + " FROM handle"):
            if isinstance(hid, str) and _address_kind(hid) == "phone":
                hid = canonical_phone(hid, country if isinstance(country, str) else None)
            handles[rowid] = hid
        chats: dict[int, str] = {}
        chat_names: dict[int, str] = {}
        chat_cols = _columns(conn, "chat")

        def ccol(name: str) -> str:
            return name if name in chat_cols else "NULL"

        for row in conn.execute(f"SELECT ROWID, {ccol('guid')}, {ccol('chat_identifier')}, {ccol('display_name')} "
                                "FROM chat"):
            chats[row[0]] = row[1] or row[2] or f"chat {row[0]}"
            if isinstance(row[3], str) and row[3].strip():
                chat_names[row[0]] = row[3].strip()
        members: dict[int, list[int]] = {}
        if "chat_handle_join" in tables:
            for chat_id, handle_id in conn.execute("SELECT chat_id, handle_id FROM chat_handle_join ORDER BY rowid"):
                members.setdefault(chat_id, []).append(handle_id)
        else:
            for chat_id, handle_id in conn.execute(
                    "SELECT DISTINCT cmj.chat_id, m.handle_id FROM chat_message_join cmj "
                    "JOIN message m ON m.ROWID = cmj.message_id WHERE m.handle_id != 0 ORDER BY m.ROWID"):
                members.setdefault(chat_id, []).append(handle_id)
        attachments: dict[int, list[dict]] = {}
        if {"attachment", "message_attachment_join"} <= tables:
            acols = _columns(conn, "attachment")
            names = [c for c in ("filename", "transfer_name", "mime_type", "uti", "total_bytes", "is_sticker")
                     if c in acols]
            if names:
                sql = ("SELECT maj.message_id, " + ", ".join(f"a.{c}" for c in names) +
                       " FROM message_attachment_join maj JOIN attachment a ON a.ROWID = maj.attachment_id"
                       " ORDER BY maj.message_id, a.ROWID")
                for row in conn.execute(sql):
                    attachments.setdefault(row[0], []).append(
                        {k: v for k, v in zip(names, row[1:]) if v is not None})

        sql = f"""
            SELECT m.ROWID, {col('guid')}, {col('text')}, {col('attributedBody')}, {col('handle_id', '0')},
                   {col('date')}, {col('is_from_me', '0')}, {col('service')}, {col('item_type', '0')},
                   {col('associated_message_type', '0')}, {col('message_summary_info')},
                   {col('date_retracted', '0')}, {col('date_edited', '0')}, {col('subject')},
                   {col('thread_originator_guid')}, {col('reply_to_guid')},
                   (SELECT cmj.chat_id FROM chat_message_join cmj WHERE cmj.message_id = m.ROWID
                    ORDER BY cmj.chat_id LIMIT 1)
            FROM message m
            ORDER BY {col('date', 'm.ROWID')}, m.ROWID
        """
        recent: dict[str | None, deque] = {}  # each chat's latest texts, for reactions sent as text
        for row in conn.execute(sql):
            rowid = row[0]
            try:
                record = self._record(path, row, handles, chats, members, attachments)
            except Exception as exc:  # one bad row must not cost its neighbours
                yield RecordError(str(path), f"message ROWID {rowid}", f"{type(exc).__name__}: {exc}")
                continue
            if record is None:
                continue
            earlier = recent.setdefault(record.thread, deque(maxlen=_RECENT_TEXTS))
            if record.text and is_text_reaction(record.text, earlier):
                continue  # "Loved “…”" from a phone that is not Apple's: a reaction, not a message
            if record.text:
                earlier.append(record.text)
            chat_id = row[-1]
            if chat_id in chat_names:
                record.attrs["chat_name"] = chat_names[chat_id]
            yield record

    def _party(self, handle_rowid: int, handles: dict[int, str], role: str) -> Party | None:
        hid = handles.get(handle_rowid)
        if not hid:
            return None
        return Party(None, hid, _address_kind(hid), role)

    def _record(self, path: Path, row: tuple, handles: dict, chats: dict, members: dict,
                attachments: dict) -> Record | None:
        (rowid, guid, text, body, handle_id, date, is_from_me, service, item_type, assoc_type,
         summary, date_retracted, date_edited, subject, thread_origin, reply_to, chat_id) = row
        if 2000 <= (assoc_type or 0) < 4000:
            return None  # a tapback: it quotes another message
        notes: list[str] = []
        attrs: dict = {"rowid": rowid, "time_basis": "utc"}
        if service:
            attrs["service"] = service

        if isinstance(text, bytes):  # a TEXT column can hold a blob
            text = text.decode("utf-8", "replace")
        if text is None and body:
            try:
                text = decode_attributed_body(body)
            except AttributedBodyError as exc:
                notes.append(f"attributedBody unreadable: {exc.reason}")
        text = text or ""
        info = read_summary_info(summary)
        if info["edits"] or date_edited:
            notes.append("edited")
            attrs["edits"] = info["edits"]
            if not text and info["latest"]:
                text = info["latest"]
        if info["unsent_parts"] or date_retracted:
            notes.append("unsent")
            attrs["unsent"] = True
            if info["unsent_parts"]:
                attrs["unsent_parts"] = info["unsent_parts"]
        if not text and (item_type or 0) != 0 and not attrs.get("unsent"):
            return None  # a system row: rename, member added/removed...

        if attachments.get(rowid):
            attrs["attachments"] = attachments[rowid]
            notes.extend(dict.fromkeys(_attachment_note(a) for a in attachments[rowid]))
        elif "\ufffc" in text:
            notes.append("attachment")
        if text and not text.replace("\ufffc", "").strip():
            text = ""  # only attachments: no words
        if thread_origin:
            attrs["thread_originator_guid"] = thread_origin
        if reply_to:
            attrs["reply_to_guid"] = reply_to

        sent_at = apple_time(date)
        if sent_at is None:
            notes.append("no date: time unknown")

        chat_members = [h for h in members.get(chat_id, [])] if chat_id is not None else []
        if is_from_me:
            sender = Party("me", None, "handle", "from")
            attrs["is_from_me"] = True
            if not chat_members and handle_id:
                chat_members = [handle_id]
        else:
            sender = self._party(handle_id, handles, "from")
            if sender is None:
                notes.append("sender unknown")
        recipients = []
        seen = set()
        for h in chat_members:
            p = self._party(h, handles, "member")
            if p is None or p.address in seen or (sender is not None and p.address == sender.address):
                continue
            seen.add(p.address)
            recipients.append(p)
        if not is_from_me:
            recipients.append(Party("me", None, "handle", "member"))

        if chat_id is not None:
            thread = "imessage:" + chats.get(chat_id, f"chat {chat_id}")
        elif handles.get(handle_id):
            thread = "imessage:handle:" + handles[handle_id]
        else:
            thread = None
        return Record(
            source_path=str(path.absolute()),
            external_id=guid or f"ROWID {rowid}",
            kind="chat",
            text=text,
            sent_at=sent_at,
            sender=sender,
            recipients=recipients,
            subject=subject or None,
            thread=thread,
            attrs=attrs,
            notes=notes,
        )

"""Telegram Desktop JSON exports (``result.json``): one :class:`~ingestors.base.Record` (kind ``"chat"``) per message.

Two layouts are read:

* a single chat: ``{"name", "type", "id", "messages": [...]}``;
* the full account export: ``{"about", ..., "chats": {"list": [chat, ...]},
  "left_chats": {"list": [...]}}`` — every chat in both lists.

Each message is ``{id, type, date, date_unixtime, from, from_id, text, ...}``.

Decisions:

* **Time** comes from ``date_unixtime`` (a *string* of Unix seconds, UTC:
  ``attrs["time_basis"] = "utc"``).  Old exports without it have only ``date``,
  the exporting computer's wall time with no zone: it is read in the
  ``local_timezone`` the ingestor was made with (``"assumed-local"``, with a note).
  Neither readable: ``sent_at`` is None, with a note.
* **Text** is a string or a list of parts (strings and ``{"type", "text"}``
  dicts: bold, link, mention, ...); the parts are joined exactly as they are, with
  nothing added between them (Telegram splits one text into its formatted runs).
  ``text_link`` targets are kept in ``attrs["links"]``.
* **Service messages** (``type: "service"``: joined, created group, calls...) are not
  records; each is kept in ``attrs["system_events"]`` (``{"id", "at", "actor",
  "action", "text"}``) of the chat's next message, or of its last message when
  none follows.
* **Media** (``photo``, ``file``, ``media_type``, ``sticker_emoji``, ``poll``,
  ``location_information``, ``contact_information``) is noted in ``attrs["media"]``;
  the record's text is the caption (possibly empty).  An ``edited`` time gives the
  note ``"edited"``.
* **Who**: sender ``Party(from, from_id, "handle", "from")`` (``from`` is null for a
  deleted account; an old export's numeric ``from_id`` N becomes ``"userN"``, as newer ones write it); recipients are every other sender in the same chat (``"member"``).
* **Thread**: ``"telegram:<chat id>"``; an export without an id uses the chat name,
  else the file name.  ``external_id``: ``"message <id>"`` (full export:
  ``"chat <chat id> message <id>"``), or ``"#<n>"`` when a message has no id.
* A message that is not a JSON object, or whose ``date_unixtime`` is not a number,
  is a :class:`~ingestors.base.RecordError`; its neighbours still come.
"""
from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from core.errors import InputError
from ingestors.base import Item, Party, Record, RecordError, other_members

_MEDIA_KEYS = ("media_type", "photo", "file", "sticker_emoji", "poll", "location_information",
               "contact_information")
_JSON_START = re.compile(rb"^(?:\xef\xbb\xbf)?\s*\{")


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


def _chats(data: dict) -> list[tuple[dict, bool]]:
    """``(chat, from_full_export)`` for every chat in the export."""
    if isinstance(data.get("messages"), list):
        return [(data, False)]
    found = []
    for key in ("chats", "left_chats"):
        section = data.get(key)
        items = section.get("list") if isinstance(section, dict) else section
        if isinstance(items, list):
            found += [(c, True) for c in items if isinstance(c, dict) and isinstance(c.get("messages"), list)]
    return found


class TelegramIngestor:
    """Reads a Telegram Desktop ``result.json``: one Record per message, chat by chat, in file order.

    Claims no suffix (``.json`` is everyone's); the registry picks it by :meth:`sniff`.
    """

    name = "telegram"
    suffixes = frozenset()

    def __init__(self, local_timezone: str = "UTC"):
        """
        Args:
            local_timezone: IANA zone for old exports that have only the zone-less ``date``.
        Raises:
            ValueError: ``local_timezone`` is not a known zone.
        """
        try:
            self.local_timezone = ZoneInfo(local_timezone)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone: {local_timezone!r}") from exc

    def sniff(self, path: Path, head: bytes) -> float:
        """0.9 for a JSON object whose first 4 KiB name ``"messages"`` or ``"chats"`` (0.95 with
        ``"date_unixtime"`` too), 0.6 for one that looks like Telegram's full export opening, else 0."""
        if not _JSON_START.match(head):
            return 0.0
        if b'"messages"' in head or b'"chats"' in head:
            return 0.95 if b'"date_unixtime"' in head else 0.9
        if b'"personal_information"' in head and b"Telegram" in head:
            return 0.6
        return 0.0

    def read(self, path: Path) -> Iterator[Item]:
        """Yield one Record per message (kind ``"chat"``, ``sent_at`` UTC), chat by chat.

        Args:
            path: the export's ``result.json``.
        Raises:
            InputError: the file cannot be read, is not JSON, or holds no Telegram chat.
        """
        path = Path(path)
        try:
            with open(path, "rb") as fh:
                data = json.loads(fh.read().decode("utf-8-sig"))
        except OSError as exc:
            raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from exc
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(str(path), f"not valid JSON: {exc}") from exc
        if not isinstance(data, dict) or ("messages" not in data and "chats" not in data):
            raise InputError(str(path), "not a Telegram export: no 'messages' or 'chats' in it")
        for chat, full in _chats(data):
            yield from self._chat(path, chat, full)

    # ---------------------------------------------------------------------------------------

    def _when(self, msg: dict, notes: list[str], attrs: dict) -> datetime | None:
        unix = msg.get("date_unixtime")
        if unix is not None:
            value = int(str(unix).strip())  # ValueError: caller makes a RecordError
            attrs["time_basis"] = "utc"
            return datetime.fromtimestamp(value, tz=timezone.utc)
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
                return local.astimezone(timezone.utc)
        notes.append("no readable date: time unknown")
        return None

    def _chat(self, path: Path, chat: dict, full: bool) -> Iterator[Item]:
        chat_id = chat.get("id")
        chat_name = chat.get("name") if isinstance(chat.get("name"), str) else None
        thread = "telegram:" + str(chat_id if chat_id is not None else chat_name or path.stem)
        members: list[Party] = []
        seen: set[tuple] = set()
        for msg in chat["messages"]:
            if isinstance(msg, dict) and msg.get("type", "message") == "message":
                p = self._sender(msg)
                if p is not None and (p.name, p.address) not in seen:
                    seen.add((p.name, p.address))
                    members.append(p)

        events: list[dict] = []
        last: Record | None = None
        for n, msg in enumerate(chat["messages"], 1):
            msg_id = msg.get("id") if isinstance(msg, dict) else None
            locator = (f"chat {chat_id} " if full else "") + (f"message {msg_id}" if msg_id is not None else f"#{n}")
            if not isinstance(msg, dict):
                yield RecordError(str(path), locator, "message is not a JSON object")
                continue
            notes: list[str] = []
            attrs: dict = {}
            try:
                sent_at = self._when(msg, notes, attrs)
            except (TypeError, ValueError, OverflowError, OSError):
                yield RecordError(str(path), locator, f"date_unixtime is not a number: {msg.get('date_unixtime')!r}")
                continue
            links: list[str] = []
            text = join_text(msg.get("text"), links)
            if msg.get("type", "message") != "message":
                events.append({"id": msg_id, "at": sent_at.isoformat() if sent_at else None,
                               "actor": msg.get("actor"), "action": msg.get("action"), "text": text})
                continue
            if last is not None:
                yield last
            sender = self._sender(msg)
            if sender is None:
                notes.append("sender unknown")
            if links:
                attrs["links"] = links
            media = {k: msg[k] for k in _MEDIA_KEYS if msg.get(k) not in (None, "")}
            if media:
                attrs["media"] = media
            if msg.get("edited") or msg.get("edited_unixtime"):
                notes.append("edited")
                attrs["edited"] = msg.get("edited_unixtime") or msg.get("edited")
            for key in ("reply_to_message_id", "forwarded_from"):
                if msg.get(key) is not None:
                    attrs[key] = msg[key]
            if msg_id is not None:
                attrs["message_id"] = msg_id
            if chat_name:
                attrs["chat_name"] = chat_name
            if events:
                attrs["system_events"], events = events, []
            last = Record(
                source_path=str(path.absolute()),
                external_id=locator,
                kind="chat",
                text=text,
                sent_at=sent_at,
                sender=sender,
                recipients=other_members(members, sender),
                thread=thread,
                attrs=attrs,
                notes=notes,
            )
        if last is not None:
            if events:
                last.attrs.setdefault("system_events", []).extend(events)
            yield last

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

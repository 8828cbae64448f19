"""Google Chat (formerly Hangouts Chat) in a Google Takeout: one :class:`~ingestors.base.Record` (kind ``"chat"``)
per message.

Takeout writes each conversation as a folder ``Google Chat/Groups/<DM or Space id>/`` holding
``messages.json`` and ``group_info.json``, and the account holder under ``Google Chat/Users/User <id>/
user_info.json``::

    messages.json   {"messages": [{"creator": {"name", "email", "user_type"}, "created_date", "text",
                                   "topic_id", "message_id", "attached_files"?, "updated_date"?, ...}]}
    group_info.json {"name"? (a space's), "members": [{"name", "email", "user_type"}]}
    user_info.json  {"user": {"name", "email", "user_type"}, "membership_info": [...]}

(Telegram's reader took a ``messages.json`` for its own — a JSON object with ``"messages"`` — and kept every
message with no sender and no time.)

Decisions:

* **Time**: ``created_date`` is written in words in the account's language (``"Monday, March 4, 2024 at
  10:00:00 AM UTC"``, ``"lundi 4 mars 2024 à 10:00:00 UTC"``), read as mail's lenient dates are
  (:func:`ingestors.mbox._lenient_date`), at the zone it names (``attrs["time_basis"] = "utc"`` for UTC); with
  no zone it is read as UTC, with a note.  Unreadable: ``sent_at`` None, with a note.
* **Who**: the sender is ``Party(creator.name, creator.email, "email", "from")``; a creator with neither is
  no one (sender None, noted).  A bot (``user_type`` ``"Bot"``) is ``attrs["sender_group"] = "bot"``.  The
  recipients are ``group_info.json``'s other members (role ``"member"``), else the file's other senders.
  The account holder (``user_info.json`` in the same Takeout) is the owner: ``attrs["owner_name"]`` and, on
  their own messages, ``attrs["is_from_me"]``.
* **Text**: ``text``; ``attached_files`` (``original_name``/``export_name``) are kept in ``attrs["media"]``
  and noted (``"attachment: trip.pdf"``); a message deleted by its writer (``message_state`` ``DELETED`` or
  ``deletion_metadata``) is kept with an empty text and the note ``"deleted"``; an ``updated_date`` later than
  ``created_date`` gives the note ``"edited"``.
* **Thread**: ``"googlechat:"`` + the conversation's folder name (``"DM 8i2fRMAAAAE"``,
  ``"Space AAAA1bC2dE"``), lower-cased; a space's name is ``attrs["chat_name"]``.  ``external_id``: the
  ``message_id``, else ``"#<n>"``.
* ``group_info.json`` and ``user_info.json`` give no records (they are read for the members and the owner: beside
  ``messages.json`` on disk, or read before it from the same archive, :func:`is_side_file`).
* A file that is not JSON, too big (:data:`MAX_FILE_BYTES`) or holds no ``messages`` list raises
  :class:`~core.errors.InputError`; a message that is not an object is a :class:`~ingestors.base.RecordError`.
"""
from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from core.errors import InputError
from ingestors.base import Item, Party, Record, RecordError, other_members
from ingestors.telegram import repair_note

MAX_FILE_BYTES = 512 << 20
_JSON_START = re.compile(rb"^(?:\xef\xbb\xbf)?\s*\{")
_SIDE_FILES = ("group_info.json", "user_info.json")


def _load(path: Path, repairs: dict | None = None) -> dict:
    """The JSON object of ``path``; a file :func:`json.loads` refuses (an invalid escape, a raw control character)
    is read through Telegram's repairing reader (``ingestors.telegram.loads_repairing``), and what was fixed is
    added to ``repairs`` (kind → count).

    Raises:
        InputError: unreadable, over :data:`MAX_FILE_BYTES`, not JSON even repaired, or not an object.
    """
    from ingestors.telegram import loads_repairing

    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputError(str(path), f"over {MAX_FILE_BYTES >> 20} MiB: not a Google Chat export part")
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from exc
    try:
        data, fixed = loads_repairing(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(str(path), f"not valid JSON: {exc}") from exc
    if repairs is not None:
        for kind, n in fixed.items():
            repairs[kind] = repairs.get(kind, 0) + n
    if not isinstance(data, dict):
        raise InputError(str(path), "not a Google Chat export: not a JSON object")
    return data


def _party(person, role: str = "from") -> Party | None:
    """A Takeout ``{"name", "email", "user_type"}`` as a Party, or None when it names no one."""
    if not isinstance(person, dict):
        return None
    name = person.get("name") if isinstance(person.get("name"), str) and person["name"].strip() else None
    email = person.get("email") if isinstance(person.get("email"), str) and "@" in person["email"] else None
    if not (name or email):
        return None
    return Party(name.strip() if name else None, email.strip() if email else None, "email", role)


def _when(value, notes: list[str], attrs: dict) -> datetime | None:
    from ingestors.mbox import _lenient_date

    if not isinstance(value, str) or not value.strip():
        notes.append("no readable date: time unknown")
        return None
    when, has_time = _lenient_date(value.replace("\u202f", " ").replace("\u00a0", " "))
    if when is None or not has_time:
        notes.append(f"date {value!r} could not be read: time unknown")
        return None
    if when.tzinfo is None:
        notes.append(f"date {value!r} names no zone: read as UTC")
        when = when.replace(tzinfo=timezone.utc)
    attrs["time_basis"] = "utc" if when.utcoffset().total_seconds() == 0 else "written-offset"
    return when


def is_side_file(name: str) -> bool:
    """Whether an archive member (``Takeout/Google Chat/Groups/DM …/group_info.json``, ``…/Users/User …/
    user_info.json``) is a side file of Google Chat's export: read before the conversations of its archive, as in
    a folder, so their members and owner are known (``app.operations.ingest``)."""
    low = name.replace("\\", "/").lower()
    return "google chat/" in low and low.rsplit("/", 1)[-1] in _SIDE_FILES


class GoogleChatIngestor:
    """Reads a Google Takeout's Google Chat ``messages.json`` (and takes its ``group_info.json`` and
    ``user_info.json``, which give no records).  Claims no suffix; the registry picks it by :meth:`sniff`."""

    name = "googlechat"
    suffixes = frozenset()

    def __init__(self) -> None:
        # side files read from an archive, whose members are not on disk together: by the folder they lie in
        self._groups: dict[str, dict] = {}  # conversation folder → group_info.json
        self._users: dict[str, Party | None] = {}  # "Google Chat" folder → the account holder (user_info.json)

    def sniff(self, path: Path, head: bytes) -> float:
        """0.98 for a JSON object whose first 4 KiB hold ``"messages"`` with a ``"creator"`` and a
        ``"created_date"`` (above Telegram's and Meta's readers: all are JSON with ``"messages"``), or that is a
        conversation's ``group_info.json`` / the account's ``user_info.json`` (``"members"`` / ``"user"`` with
        ``"user_type"``); else 0."""
        if not _JSON_START.match(head):
            return 0.0
        if b'"messages"' in head and b'"creator"' in head and b'"created_date"' in head:
            return 0.98
        if Path(path).name.lower() in _SIDE_FILES and b'"user_type"' in head and (
                b'"members"' in head or b'"user"' in head):
            return 0.98
        return 0.0

    def read(self, path: Path) -> Iterator[Item]:
        """Yield one Record per message of ``messages.json``, in file order (nothing for the side files).

        Raises:
            InputError: the file cannot be read, is not JSON, or holds no ``messages`` list.
        """
        path = Path(path)
        if path.name.lower() in _SIDE_FILES:
            data = _load(path)
            if path.name.lower() == "group_info.json":
                self._groups[str(path.parent)] = data
            else:
                self._users[str(path.parent.parent.parent)] = _party(data.get("user"))
            return
        repairs: dict[str, int] = {}
        data = _load(path, repairs)
        repaired = repair_note(path, repairs)
        messages = data.get("messages")
        if not isinstance(messages, list):
            raise InputError(str(path), "not a Google Chat export: no 'messages' list in it")
        info = self._side(path.parent / "group_info.json") or self._groups.get(str(path.parent), {})
        members = [p for p in (_party(m, "member") for m in info.get("members") or []) if p is not None] \
            if isinstance(info.get("members"), list) else []
        if not members:  # no group_info.json: the file's senders
            for m in messages:
                p = _party(m.get("creator"), "member") if isinstance(m, dict) else None
                if p is not None and p not in members:
                    members.append(p)
        chat_name = info.get("name") if isinstance(info.get("name"), str) and info["name"].strip() else None
        owner = self._owner(path)
        thread = "googlechat:" + path.parent.name.lower()
        for n, m in enumerate(messages, 1):
            locator = f"#{n}"
            if not isinstance(m, dict):
                yield RecordError(str(path), locator, "message is not a JSON object")
                continue
            notes: list[str] = [repaired] if repaired else []
            attrs: dict = {}
            sent_at = _when(m.get("created_date"), notes, attrs)
            sender = _party(m.get("creator"))
            creator = m.get("creator") if isinstance(m.get("creator"), dict) else {}
            if sender is None:
                notes.append("sender unknown")
            elif str(creator.get("user_type", "")).lower() == "bot":
                attrs["sender_group"] = "bot"
            text = m.get("text") if isinstance(m.get("text"), str) else ""
            if m.get("message_state") == "DELETED" or m.get("deletion_metadata"):
                text = ""
                notes.append("deleted")
            files = [f for f in m.get("attached_files") or [] if isinstance(f, dict)] \
                if isinstance(m.get("attached_files"), list) else []
            if files:
                attrs["media"] = files
                for f in files:
                    notes.append(f"attachment: {f.get('original_name') or f.get('export_name') or 'file'}")
            updated = m.get("updated_date")
            if isinstance(updated, str) and updated.strip() and updated != m.get("created_date"):
                notes.append("edited")
                attrs["edited"] = updated
            for key in ("topic_id", "message_id"):
                if isinstance(m.get(key), str):
                    attrs[key] = m[key]
            if chat_name:
                attrs["chat_name"] = chat_name
            if owner is not None:
                if owner.name:
                    attrs["owner_name"] = owner.name
                if sender is not None and (
                        (sender.address and owner.address and sender.address.lower() == owner.address.lower())
                        or (not sender.address and sender.name == owner.name)):
                    attrs["is_from_me"] = True
            mid = m.get("message_id")
            yield Record(source_path=str(path.absolute()),
                         external_id=mid if isinstance(mid, str) and mid else locator, kind="chat", text=text,
                         sent_at=sent_at, sender=sender, recipients=other_members(members, sender),
                         thread=thread, attrs=attrs, notes=notes)

    @staticmethod
    def _side(path: Path) -> dict:
        """A side file's JSON object, or ``{}`` when it is not there or not readable."""
        try:
            return _load(path) if path.is_file() else {}
        except InputError:
            return {}

    def _owner(self, path: Path) -> Party | None:
        """The account holder from ``Google Chat/Users/*/user_info.json`` beside the conversation's
        ``Groups`` folder, else the one member of every conversation of that folder (:meth:`_common_member`), or
        None."""
        chat_root = path.parent.parent.parent  # Google Chat/Groups/<conversation>/messages.json
        try:
            infos = sorted((chat_root / "Users").glob("*/user_info.json"))
        except OSError:
            infos = []
        for info in infos[:1]:
            return _party(self._side(info).get("user"))
        if str(chat_root) in self._users:  # read before, from the same archive
            return self._users[str(chat_root)]
        return self._common_member(path.parent.parent)

    def _common_member(self, groups: Path) -> Party | None:
        """The account holder when no ``user_info.json`` came with the export (only its ``Groups`` folder was
        given): the one person, by address, who is a member of every conversation there — of two or more — as only
        the account holder is.  None when no single person is."""
        infos: dict[str, dict] = {k: v for k, v in self._groups.items() if str(Path(k).parent) == str(groups)}
        try:
            for f in groups.glob("*/group_info.json"):
                infos.setdefault(str(f.parent), self._side(f))
        except OSError:
            pass
        if len(infos) < 2:
            return None
        common: dict[str, Party] | None = None
        for info in infos.values():
            people = {p.address.lower(): p for p in (_party(m) for m in info.get("members") or [])
                      if p is not None and p.address} if isinstance(info.get("members"), list) else {}
            common = people if common is None else {k: v for k, v in common.items() if k in people}
        return next(iter(common.values())) if common and len(common) == 1 else None

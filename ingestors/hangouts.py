"""Google Hangouts in a Google Takeout (``Takeout/Hangouts/Hangouts.json``): one :class:`~ingestors.base.Record`
(kind ``"chat"``) per chat message.

Two layouts are read, streamed conversation by conversation (the file can be gigabytes):

* 2018 on: ``{"conversations": [{"conversation": {"conversation_id", "conversation": {"type", "name"?,
  "self_conversation_state", "participant_data"}}, "events": [...]}]}``;
* before: ``{"conversation_state": [{"conversation_id", "conversation_state": {"conversation": {...},
  "event": [...]}}]}``.

Each event: ``{"sender_id": {"gaia_id", "chat_id"}, "timestamp"`` (microseconds since 1970, UTC, a string)
``, "event_id", "event_type", "chat_message": {"message_content": {"segment": [{"type", "text"}], "attachment"}}}``.

Decisions:

* A ``REGULAR_CHAT_MESSAGE`` is a record: its segments' texts joined as written (``LINE_BREAK`` a line break);
  attachments (photos) are kept in ``attrs["media"]`` and noted (``"attachment"``); one with neither is left out.
  Other events (calls, members added, renames) go to ``attrs["system_events"]`` (``{"at", "type"}``) of the
  conversation's next record.
* **Time**: ``timestamp`` (µs, UTC; ``attrs["time_basis"] = "utc"``); unreadable: ``sent_at`` None, noted.
* **Who**: ``Party(fallback_name, "gaia:<gaia_id>", "handle", "from")`` from the conversation's
  ``participant_data`` (a participant with no name: the id alone; an SMS participant with a
  ``phone_number.e164``: ``Party(fallback_name, "+15551234567", "phone", "from")``, so the number is the same
  person's as in other chats and messages); the recipients are the other participants
  (``"member"``).  The account holder (``self_read_state``'s participant) is the owner: ``attrs["owner_name"]``,
  and on their own messages ``attrs["is_from_me"]``.
* **Thread**: ``"hangouts:<conversation id>"``; a group's ``name`` is ``attrs["chat_name"]``; ``external_id``
  the ``event_id`` (else ``"<conversation id> #<n>"``); records come in time order within a conversation.
* A file that is not JSON, or holds neither layout, raises :class:`~core.errors.InputError`; JSON that breaks
  part-way keeps the conversations before the break, then a :class:`~ingestors.base.RecordError` says where.
"""
from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

import ijson

from core.errors import InputError
from ingestors.base import Item, Party, Record, RecordError, other_members

_JSON_START = re.compile(rb"^(?:\xef\xbb\xbf)?\s*\{")
_LAYOUTS = ("conversations.item", "conversation_state.item")


def _get(d: Any, *keys: str) -> Any:
    """``d[k1][k2]…`` through dicts, or None."""
    for k in keys:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


def _text(content: Any) -> str:
    """The words of a ``message_content``: its segments' texts joined, a ``LINE_BREAK`` as a line break."""
    out = []
    for seg in (content or {}).get("segment") or [] if isinstance(content, dict) else []:
        if not isinstance(seg, dict):
            continue
        if seg.get("type") == "LINE_BREAK":
            out.append(seg.get("text") if isinstance(seg.get("text"), str) else "\n")
        elif isinstance(seg.get("text"), str):
            out.append(seg["text"])
    return "".join(out)


class HangoutsIngestor:
    """Reads a Google Takeout's ``Hangouts.json``.  Claims no suffix; the registry picks it by :meth:`sniff`."""

    name = "hangouts"
    suffixes = frozenset()

    def sniff(self, path: Path, head: bytes) -> float:
        """0.98 for a JSON object whose first 4 KiB hold ``"conversations"`` or ``"conversation_state"`` with a
        ``"conversation_id"``; else 0."""
        if not _JSON_START.match(head):
            return 0.0
        if (b'"conversations"' in head or b'"conversation_state"' in head) and b'"conversation_id"' in head:
            return 0.98
        return 0.0

    def read(self, path: Path) -> Iterator[Item]:
        """Yield one Record per chat message, conversation by conversation, streaming.

        Raises:
            InputError: the file cannot be read, is not JSON, or holds no Hangouts conversation.
        """
        path = Path(path)
        try:
            fh = open(path, "rb")
        except OSError as exc:
            raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from exc
        from ingestors.telegram import RepairingReader, repair_note

        seen = 0
        with fh:
            if fh.read(3) != b"\xef\xbb\xbf":
                fh.seek(0)
            builder = None
            reader = RepairingReader(fh)  # an invalid escape or a raw control character: fixed, noted (as Telegram's)
            try:
                for prefix, event, value in ijson.parse(reader, use_float=True):
                    if builder is not None:
                        builder.event(event, value)
                        if not builder.containers:  # the conversation is whole
                            seen += 1
                            note = repair_note(path, reader.repairs)
                            for item in self._conversation(path, builder.value, seen):
                                if note and isinstance(item, Record):
                                    item.notes.append(note)
                                yield item
                            builder = None
                    elif event == "start_map" and prefix in _LAYOUTS:
                        builder = ijson.ObjectBuilder()
                        builder.event(event, value)
            except ijson.JSONError as exc:
                if not seen:
                    raise InputError(str(path), f"not valid JSON: {exc}") from exc
                yield RecordError(str(path), f"after conversation {seen}",
                                  f"the JSON breaks here ({exc}): the conversations before it were read")
                return
        if not seen:
            raise InputError(str(path), "not a Hangouts export: no 'conversations' in it")

    def _conversation(self, path: Path, item: Any, n: int) -> Iterator[Item]:
        """The records of one conversation (either layout)."""
        if not isinstance(item, dict):
            yield RecordError(str(path), f"conversation {n}", "not a JSON object")
            return
        state = item.get("conversation_state") if isinstance(item.get("conversation_state"), dict) else None
        conv = _get(item, "conversation", "conversation") or _get(state, "conversation") or {}
        events = item.get("events") if "events" in item else (state or {}).get("event")
        conv_id = _get(item, "conversation", "conversation_id", "id") or _get(item, "conversation_id", "id") \
            or _get(conv, "id", "id") or f"conversation {n}"
        people: dict[str, Party] = {}
        for p in conv.get("participant_data") or [] if isinstance(conv, dict) else []:
            gaia = _get(p, "id", "gaia_id")
            if isinstance(gaia, str) and gaia:
                name = p.get("fallback_name") if isinstance(p.get("fallback_name"), str) else None
                name = name.strip() or None if name else None
                phone = _get(p, "phone_number", "e164")  # an SMS participant (Hangouts' SMS, Google Voice)
                people[gaia] = Party(name if name != phone else None, phone, "phone", "member") \
                    if isinstance(phone, str) and phone.strip() else Party(name, f"gaia:{gaia}", "handle", "member")
        owner_id = _get(conv, "self_conversation_state", "self_read_state", "participant_id", "gaia_id")
        owner = people.get(owner_id) if isinstance(owner_id, str) else None
        chat_name = conv.get("name") if isinstance(conv, dict) and isinstance(conv.get("name"), str) else None
        members = list(people.values())
        thread = f"hangouts:{conv_id}"

        def when(e: dict) -> int:
            try:
                return int(str(e.get("timestamp")))
            except ValueError:
                return 0

        pending: list[dict] = []
        good = sorted((e for e in events or [] if isinstance(e, dict)), key=when)
        for i, e in enumerate(good, 1):
            notes: list[str] = []
            attrs: dict = {}
            try:
                sent_at = datetime.fromtimestamp(int(str(e.get("timestamp"))) / 1_000_000, tz=timezone.utc)
                attrs["time_basis"] = "utc"
            except (ValueError, OverflowError, OSError):
                sent_at = None
                notes.append("no readable timestamp: time unknown")
            if e.get("event_type") != "REGULAR_CHAT_MESSAGE" or not isinstance(e.get("chat_message"), dict):
                pending.append({"at": sent_at.isoformat() if sent_at else None, "type": e.get("event_type")})
                continue
            content = _get(e, "chat_message", "message_content")
            text = _text(content)
            media = [a for a in (content or {}).get("attachment") or [] if isinstance(a, dict)] \
                if isinstance(content, dict) else []
            if not text.strip() and not media:
                continue
            if media:
                attrs["media"] = media
                notes.append("attachment")
            gaia = _get(e, "sender_id", "gaia_id")
            sender = people.get(gaia) if isinstance(gaia, str) else None
            if sender is None and isinstance(gaia, str) and gaia:
                sender = Party(None, f"gaia:{gaia}", "handle", "member")
            sender = Party(sender.name, sender.address, sender.address_kind, "from") if sender else None
            if sender is None:
                notes.append("sender unknown")
            if owner is not None:
                if owner.name:
                    attrs["owner_name"] = owner.name
                if sender is not None and sender.address == owner.address:
                    attrs["is_from_me"] = True
            if chat_name:
                attrs["chat_name"] = chat_name
            if pending:
                attrs["system_events"], pending = pending, []
            eid = e.get("event_id")
            yield Record(source_path=str(path.absolute()),
                         external_id=eid if isinstance(eid, str) and eid else f"{conv_id} #{i}", kind="chat",
                         text=text, sent_at=sent_at, sender=sender, recipients=other_members(members, sender),
                         thread=thread, attrs=attrs, notes=notes)

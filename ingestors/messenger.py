"""Instagram and Facebook Messenger JSON exports (``message_1.json``): one :class:`~ingestors.base.Record` per message.

Meta's "Download your information" writes each conversation as ``message_1.json``
(``message_2.json``, ... for long ones; under ``messages/inbox/<name>_<id>/``, in newer exports below
``your_activity_across_facebook/`` or ``your_instagram_activity/``)::

    {"participants": [{"name"}], "title", "thread_path",
     "messages": [{"sender_name", "timestamp_ms", "content"?, "photos"?, "share"?, ...}]}

Older exports (2018) wrote ``"timestamp"`` in **seconds** and ``participants`` as plain names;
Messenger's end-to-end encrypted chats (messenger.com's secure-storage download, 2024-) write
camelCase keys: ``{"participants": ["Ana"], "threadName", "messages": [{"senderName", "timestamp"
(milliseconds), "text", "isUnsent", "media": [{"uri"}], "reactions", "type"}]}``.  All three are read.

Decisions:

* **Mojibake undone**: Meta writes each UTF-8 byte of a string as its own ``\\u00XX``
  escape (``"\\u00f0\\u009f\\u0098\\u0080"`` for 😀).  Every string whose characters are all
  below U+0100 and whose bytes read as UTF-8 is decoded so (:func:`fix_mojibake`);
  anything else is kept as written.
* **Order**: the file lists the newest message first; records come oldest first.  Two
  messages with the same ``timestamp_ms`` are both kept, in their true order (the file's, reversed; a file
  whose times run forwards, as the encrypted chats' can, in its own order: :func:`file_runs_forward`).
* **Time**: ``timestamp_ms`` is Unix milliseconds, UTC (``attrs["time_basis"] = "utc"``); a bare
  ``timestamp`` is read as seconds below 10**11 (the year 5138) and as milliseconds above
  (:func:`timestamp_ms`); ``attrs["timestamp_ms"]`` is always milliseconds.
* **Media and the like**: ``photos``, ``videos``, ``audio_files``, ``files``, ``gifs``,
  ``sticker`` and ``share`` (and the encrypted chats' ``media``, noted by each file's extension) are
  kept in ``attrs`` and noted (``"photo"``, ``"shared link"``);
  a message with only a photo is a record with empty text and the note ``"photo"``.
  ``is_unsent`` gives the note ``"unsent"``; reactions are kept in ``attrs["reactions"]``.
* **Words Meta wrote, not the sender**: a text that starts with the sender's own name and a
  lower-case word (``"Ana sent a link."``, ``"Ana named the group Trip."``, ``"Ana reacted ❤
  to your message"``), or a fixed English phrase (``"You unsent a message"``, ``"Liked a
  message"``, ``"Replied to your story"``, Instagram's call notes ``"Video chat ended"``, ``"You missed an audio
  call"``, ``"You sent a reel."``, and the owner's own notices: ``"You named the group
  Trip."``, ``"You left the group."``, ``"You are now connected on Messenger"``;
  :func:`is_generated`).  On a message with media or a share it is left out (the text is empty,
  the media noted); on an unsent message the text is empty; otherwise the message is not a record.
  Neither is a message of ``type`` ``Subscribe``/``Unsubscribe``/``Call`` (any case) or one with
  ``call_duration``.  These are kept in
  ``attrs["system_events"]`` (``{"at", "actor", "text"}``) of the next record (the last
  record for those after it).
* **Who**: ``Party(sender_name, None, "handle", "from")``; the recipients are the other
  ``participants`` (role ``"member"``), and someone who wrote in the chat but is no longer among
  its participants (they left the group) for the messages up to their last one.  An account that
  no longer exists (``"Facebook user"``, ``"Instagram User"``) is nobody in particular: sender
  None, with a note.
* **The owner** (the account holder, whose export it is; :meth:`MessengerIngestor.account_holder`):
  the name Meta's own profile files give (``personal_information/profile_information/
  profile_information.json``, Messenger's ``autofill_information.json``, Instagram's
  ``personal_information.json``, found in the export's folders above the conversation) when it
  is one of the chat's names; else the sender of the export's "You sent an attachment." / "You
  named the group …" notices; else, in a chat of two whose ``title`` is one of them, the other;
  else the one name every conversation of the export's ``messages`` folder has among its
  participants; else the owner found so for another conversation of the same export (its
  ``messages`` folder, or the folder of the encrypted chats' files).  Each record
  carries it as ``attrs["owner_name"]``, and the owner's own messages ``attrs["is_from_me"]``, so
  the account holder is the owner, not a contact (``core.graph.parties``).  A profile file given to
  Kith (a folder or zip of the whole export) is read for that name only: it gives no records, and a
  zip's profile file is read before its conversations (``app.operations.ingest``).
* **Shared links**: a ``share``'s ``share_text`` (or its ``link``) is the record's ``subject``,
  so the link can be found by its words; the share is kept in ``attrs["share"]``.
* **Which service**: ``attrs["service"]`` is ``"instagram"`` or ``"facebook"`` when a folder (or the
  zip) the file lies in says so (``your_instagram_activity``, ``instagram-<user>-<date>``;
  ``your_activity_across_facebook``, ``facebook-<user>-<date>``, ``messenger``); otherwise
  ``"facebook"`` when the export has Facebook's marks (``magic_words``, a message ``type``, the
  encrypted chats' camelCase keys), else ``"instagram"``.  Thread: ``"<service>:<thread_path>"``;
  without one, the conversation's folder (``"<service>:inbox/<name>_<id>"``, so every
  ``message_N.json`` of it is one chat), else the title.  ``external_id``:
  ``"<timestamp_ms> #<n>"``, n counting messages of the same millisecond.

**Broken JSON**: a file :func:`json.loads` refuses is read again through the reader Telegram's files are read with
(:class:`~ingestors.telegram.RepairingReader`: an invalid escape, a NUL byte, a byte that is not UTF-8, a raw line
break inside a string; each record notes ``"file repaired: 1 invalid escape fixed in message_1.json"``,
:func:`~ingestors.telegram.repair_note`); a file
cut short keeps every whole message before the cut (Meta writes the newest first: the oldest are lost), then
a :class:`~ingestors.base.RecordError` says where it broke.

A file over :data:`MAX_FILE_BYTES` is refused (Meta splits a conversation into files of
10,000 messages, a few MB each).
"""
from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from core.errors import InputError
from ingestors.base import Item, Party, Record, RecordError, other_members
from ingestors.telegram import loads_repairing, repair_note

MAX_FILE_BYTES = 256 << 20
_JSON_START = re.compile(rb"^(?:\xef\xbb\xbf)?\s*\{")
# Words Meta writes for the owner or with no name, not anyone's message (the English export)
_GENERATED_PHRASES = re.compile(
    r"^(?:you (?:unsent a message|sent an? (?:attachment|photo|video|link|gif|sticker|voice message|file))|"
    r"(?:\S+ )?unsent a message|liked a message|reacted .{1,12} to (?:your|a|their) message|"
    r"replied to (?:your|their) story|mentioned you in (?:their|a) story|sent an attachment|"
    # the owner's own notices, which Meta writes as "You ...", not with the owner's name
    r"you (?:named the group [^\n]{1,200}|removed the group name|changed the group (?:photo|name)[^\n]{0,200}|"
    r"created the group|left the group|added [^\n]{1,200} to the group|removed [^\n]{1,200} from the group|"
    r"set (?:the|your) nickname[^\n]{0,200}|set the (?:quick reaction|emoji) to [^\n]{1,40}|"
    r"changed the (?:chat )?theme[^\n]{0,80}|(?:started|joined|ended) (?:a|the) (?:video |audio )?(?:call|chat)|"
    r"missed a (?:video |audio )?call from [^\n]{1,100}|"
    r"(?:pinned|unpinned) a message|reacted .{1,12} to [^\n]{1,100}(?:'s|your) message|"
    r"are now connected on messenger|"
    r"can now message and call each other[^\n]{0,200}|"
    # Instagram's and Messenger's call notes and the owner's shares, as Meta writes them (no name before them)
    r"missed an? (?:video |audio )?(?:call|chat)(?: from [^\n]{1,100})?|started an? (?:video chat|audio call|call)|"
    r"sent an? (?:post|reel|story|audio|voice message|location)|took a screenshot|"
    r"shared an? (?:link|location|live location|contact|post|reel|story))|"
    r"(?:the )?(?:video chat|audio call|video call|call) ended|missed (?:video chat|audio call|video call)|"
    r"started an? (?:video chat|audio call|video call)|reacted to (?:a|your) message)\.?\s*$", re.I | re.S)
_META_VERBS = {"sent", "unsent", "reacted", "liked", "named", "added", "removed", "left", "joined", "set", "changed",
               "created", "started", "missed", "called", "pinned", "unpinned", "shared", "replied", "mentioned",
               "turned", "updated", "voted", "invited", "blocked", "cleared", "waved"}
_SYSTEM_TYPES = {"Subscribe", "Unsubscribe", "Call"}
# what Meta shows for an account that no longer exists: not one person
_NO_ACCOUNT = {"facebook user", "facebook-nutzer", "instagram user", "instagramuser", "other user", "messenger user"}
_MEDIA = {"photos": "photo", "videos": "video", "audio_files": "voice message", "files": "file",
          "gifs": "GIF", "sticker": "sticker", "share": "shared link"}
# the encrypted chats' "media": [{"uri"}]: what each file is, by its extension
_MEDIA_BY_SUFFIX = {**dict.fromkeys((".jpg", ".jpeg", ".png", ".webp", ".heic", ".bmp"), "photo"),
                    **dict.fromkeys((".mp4", ".mov", ".m4v", ".webm", ".3gp"), "video"),
                    **dict.fromkeys((".m4a", ".aac", ".mp3", ".ogg", ".opus", ".wav", ".amr"), "voice message"),
                    ".gif": "GIF"}
_SECONDS_BELOW = 10**11  # a "timestamp" below this is seconds (10**11 s is the year 5138), above milliseconds
# folders Meta keeps conversations in (thread_path's first part)
_THREAD_FOLDERS = {"inbox", "archived_threads", "message_requests", "filtered_threads", "e2ee_cutover"}
_META_OPENING = re.compile(rb'^(?:\xef\xbb\xbf)?\s*\{\s*"participants"\s*:\s*\[')
# notices Meta writes, under the account holder's own sender_name, about what the account holder did
_PROFILE_OPENING = re.compile(rb'^(?:\xef\xbb\xbf)?\s*\{\s*"(?:profile_v2|profile_user|autofill_information_v2)"\s*:')
_OWNER_NOTICE = re.compile(r"^you (?:sent|unsent|named|removed|changed|created|left|added|set|pinned|unpinned|"
                           r"reacted|started)\b", re.I)
# where an export keeps its account holder's name, relative to the export's top folder
_PROFILE_FILES = (
    "personal_information/profile_information/profile_information.json",  # Facebook, 2022-
    "profile_information/profile_information.json",  # Facebook, 2019-2021
    "your_activity_across_facebook/messages/autofill_information.json",
    "your_facebook_activity/messages/autofill_information.json",
    "messages/autofill_information.json",
    "personal_information/personal_information/personal_information.json",  # Instagram, 2023-
    "personal_information/personal_information.json",
    "account_information/personal_information.json",  # Instagram, older
)
_PROFILE_LEVELS = 7  # folders above a conversation's file searched for the profile files
_SIBLINGS_READ = 400  # conversations of an export read for the name every one of them has
_PARTICIPANTS_HEAD = 256 << 10  # bytes of a sibling conversation read for its participants


def fix_mojibake(value: Any) -> Any:
    """Undo Meta's UTF-8-as-Latin-1 escaping in a string, or in every string of a list/dict.

    Args:
        value: a str, list, dict or anything else (returned as is).
    Returns:
        The same shape with each str that is only characters below U+0100 and reads as UTF-8
        when taken as bytes replaced by that reading (``"Ã©"`` → ``"é"``; a text cut inside its last
        character, after at least one whole one, ends in U+FFFD); others unchanged.
    """
    if isinstance(value, str):
        try:
            raw = value.encode("latin-1")
            return raw.decode("utf-8")
        except UnicodeEncodeError:
            return value
        except UnicodeDecodeError as exc:
            # a text cut inside its last character ("Lisbon \u00f0\u009f\u0098", an emoji cut short) is still
            # Meta's mojibake when a whole UTF-8 sequence came before the cut: the cut character becomes U+FFFD
            if exc.reason == "unexpected end of data" and any(b >= 0x80 for b in raw[:exc.start]):
                return raw[:exc.start].decode("utf-8", "replace") + "\ufffd"
            return value
    if isinstance(value, list):
        return [fix_mojibake(v) for v in value]
    if isinstance(value, dict):
        return {fix_mojibake(k): fix_mojibake(v) for k, v in value.items()}
    return value


def is_generated(text: str, sender: str | None) -> bool:
    """Whether ``text`` is words Meta wrote about a message (a placeholder or a notice), not its sender's.

    True for a text starting with ``sender`` (the display name, mojibake undone), a space and a
    lower-case word: for a name of two words or more (``"Ana Lima sent an attachment."``, in any
    language Meta writes) any such word, for a one-word name (``"Ana and I ..."`` is someone's
    text) one of Meta's English verbs (``"ana.k sent a link."``); and for the fixed English
    phrases of :data:`_GENERATED_PHRASES`.
    """
    if _GENERATED_PHRASES.match(text):
        return True
    if sender and text.startswith(sender + " "):
        rest = text[len(sender) + 1:]
        if not rest[:1].islower():
            return False
        return " " in sender.strip() or rest.split(None, 1)[0] in _META_VERBS
    return False


def _sender_of(name: str | None, notes: list[str]) -> Party | None:
    if not name:
        notes.append("sender unknown")
        return None
    if name.casefold() in _NO_ACCOUNT:
        notes.append(f"sender's account no longer exists (shown as {name!r})")
        return None
    return Party(name, None, "handle", "from")


def _first(d: dict, *keys: str, kind: type | tuple = str) -> Any:
    """The first of ``keys`` whose value in ``d`` is a ``kind`` (not a bool), else None."""
    for k in keys:
        v = d.get(k)
        if isinstance(v, kind) and not isinstance(v, bool):
            return v
    return None


def file_runs_forward(messages: list) -> bool:
    """Whether a conversation file lists its messages oldest first: more of its neighbouring messages' times go
    up than down.  Meta's ``message_N.json`` lists the newest first (False); a file whose times run forwards
    (as Messenger's end-to-end encrypted chats' download can) is read in its own order, so messages of the
    same millisecond keep the order they were written in either way.

    Args:
        messages: the file's ``messages`` list (items that are not objects or have no time are skipped).
    """
    times = [t for t in (timestamp_ms(m) if isinstance(m, dict) else None for m in messages) if t is not None]
    up = sum(b > a for a, b in zip(times, times[1:]))
    down = sum(b < a for a, b in zip(times, times[1:]))
    return up > down


def timestamp_ms(msg: dict) -> int | None:
    """A message's time as Unix milliseconds (UTC).

    Args:
        msg: one message object: ``timestamp_ms`` (milliseconds), else ``timestampMs``, else
            ``timestamp`` — seconds (2018 exports) when below 10**11, milliseconds (the encrypted
            chats' export) above.
    Returns:
        Milliseconds since 1970-01-01 UTC, or None when no such key holds a number.
    """
    ms = _first(msg, "timestamp_ms", "timestampMs", kind=(int, float))
    if ms is not None:
        return int(ms)
    ts = _first(msg, "timestamp", kind=(int, float))
    if ts is None:
        return None
    return int(ts) if abs(ts) >= _SECONDS_BELOW else int(round(ts * 1000))


def _media_kind(item: Any) -> str:
    """What one entry of an encrypted chat's ``media`` list is, by its ``uri``'s extension."""
    uri = item.get("uri") if isinstance(item, dict) else item if isinstance(item, str) else ""
    return _MEDIA_BY_SUFFIX.get(Path(str(uri or "")).suffix.lower(), "file")


def service_from_path(path: Path) -> str | None:
    """``"instagram"`` or ``"facebook"`` when a folder ``path`` lies in (or the file's name) says which
    export it came from (``your_instagram_activity``, ``instagram-<user>-<date>``;
    ``your_activity_across_facebook``, ``facebook-<user>-<date>``, ``messenger``), else None."""
    for part in reversed(Path(path).parts):
        low = part.casefold()
        if low.startswith("instagram") or low == "your_instagram_activity":
            return "instagram"
        if low.startswith(("facebook", "messenger")) or low in ("your_activity_across_facebook",
                                                                  "your_facebook_activity"):
            return "facebook"
    return None


def _thread_key(data: dict, title: str | None, path: Path) -> str:
    """``thread_path``; else ``"<folder>/<conversation folder>"`` when the file lies in Meta's layout
    (``inbox/<name>_<id>/message_1.json``); else the title; else the file's folder's name."""
    if isinstance(data.get("thread_path"), str) and data["thread_path"].strip():
        return data["thread_path"]
    parent = Path(path).absolute().parent
    if parent.parent.name.casefold() in _THREAD_FOLDERS:
        return f"{parent.parent.name}/{parent.name}"
    return title or parent.name


def profile_name(data: Any) -> str | None:
    """The account holder's name in one of Meta's profile files (:data:`_PROFILE_FILES`), mojibake undone.

    Args:
        data: the parsed JSON: Facebook's ``{"profile_v2": {"name": {"full_name"}}}`` (``"profile"`` before
            2021), Messenger's ``{"autofill_information_v2": {"FULL_NAME": [name]}}`` or Instagram's
            ``{"profile_user": [{"string_map_data": {"Name": {"value"}}}]}``.
    Returns:
        The name, or None when the file holds none of these.
    """
    if not isinstance(data, dict):
        return None
    found: Any = None
    for key in ("profile_v2", "profile"):
        name = data.get(key, {}).get("name") if isinstance(data.get(key), dict) else None
        if isinstance(name, dict):
            found = found or name.get("full_name")
    auto = data.get("autofill_information_v2")
    if not found and isinstance(auto, dict) and isinstance(auto.get("FULL_NAME"), list) and auto["FULL_NAME"]:
        found = auto["FULL_NAME"][0]
    users = data.get("profile_user")
    if not found and isinstance(users, list) and users and isinstance(users[0], dict):
        smd = users[0].get("string_map_data")
        value = smd.get("Name") if isinstance(smd, dict) else None
        found = value.get("value") if isinstance(value, dict) else None
    found = fix_mojibake(found) if isinstance(found, str) else None
    return found.strip() if found and found.strip() else None


def _is_owner_notice(text: str) -> bool:
    """Whether ``text`` is one of Meta's notices of what the account holder did ("You sent an attachment.",
    "You named the group Trip."): the whole text is Meta's phrase (:data:`_GENERATED_PHRASES`), not someone's
    words that begin so ("You sent the wrong file!")."""
    return bool(_OWNER_NOTICE.match(text) and _GENERATED_PHRASES.match(text))


def _repaired(path: Path) -> tuple[dict, str | None, dict[str, int]]:
    """A conversation file that :func:`json.loads` refused, read again through Telegram's
    :class:`~ingestors.telegram.RepairingReader` (invalid escapes, raw control characters, NUL bytes and bytes
    that are not UTF-8 fixed) and streamed with ijson, so a file cut short keeps what came before the cut.

    Returns:
        ``(data, broken, repairs)``: the top-level values read whole (``messages``: each whole message read
        before the break), where the JSON breaks (None when it did not), and what the reader fixed, by kind.
    """
    import ijson

    from ingestors.telegram import RepairingReader

    data: dict = {}
    broken = None
    with open(path, "rb") as fh:
        if fh.read(3) != b"\xef\xbb\xbf":
            fh.seek(0)
        reader = RepairingReader(fh, inside_strings=True)
        builder = None
        key = ""
        try:
            for prefix, event, value in ijson.parse(reader, use_float=True):
                if builder is None and prefix == "messages" and event == "start_array":
                    data["messages"] = []
                    continue
                if builder is None:
                    if prefix == "messages.item":
                        key = "messages.item"
                    elif prefix and "." not in prefix and prefix != "messages":
                        key = prefix  # a top-level value: participants, title, thread_path ...
                    else:
                        continue
                    builder = ijson.ObjectBuilder()
                builder.event(event, value)
                if not builder.containers:
                    if key == "messages.item":
                        data.setdefault("messages", []).append(builder.value)
                    else:
                        data[key] = builder.value
                    builder = None
        except ijson.JSONError as exc:
            broken = f"at byte {reader.offset}: " + (str(exc).splitlines() or ["invalid JSON"])[0]
    return data, broken, dict(reader.repairs)


def is_profile_file(name: str) -> bool:
    """True when the path ``name`` (``/``-separated, as in a zip) ends with one of Meta's profile files
    (:data:`_PROFILE_FILES`), the file that names an export's account holder."""
    low = "/" + str(name).replace("\\", "/").casefold()
    return any(low.endswith("/" + rel) for rel in _PROFILE_FILES)


def _participant_names(value: Any) -> list[str]:
    """The names of a ``participants`` list (``[{"name"}]`` or plain names), mojibake undone, in order."""
    out = []
    for p in value if isinstance(value, list) else []:
        name = fix_mojibake(p.get("name") if isinstance(p, dict) else p)
        if isinstance(name, str) and name.strip():
            out.append(name)
    return out


def _head_participants(path: Path) -> list[str] | None:
    """The participants of a conversation file, read from its first bytes only (Meta writes them first);
    None when they cannot be read there."""
    try:
        with open(path, "rb") as f:
            head = f.read(_PARTICIPANTS_HEAD).decode("utf-8-sig", "replace")
    except OSError:
        return None
    m = re.search(r'"participants"\s*:\s*\[', head)
    if not m:
        return None
    try:
        value, _ = json.JSONDecoder(strict=False).raw_decode(head, m.end() - 1)
    except json.JSONDecodeError:
        return None
    return _participant_names(value)


def _messages_root(path: Path) -> Path | None:
    """The export's ``messages`` folder when ``path`` lies in Meta's layout (``<messages>/inbox/<chat>/file``)."""
    parent = Path(path).absolute().parent
    return parent.parent.parent if parent.parent.name.casefold() in _THREAD_FOLDERS else None


class MessengerIngestor:
    """Reads an Instagram or Facebook Messenger ``message_N.json``: one Record per message, oldest first.

    Claims no suffix (``.json`` is everyone's); the registry picks it by :meth:`sniff`.
    """

    name = "messenger"
    suffixes = frozenset()

    def sniff(self, path: Path, head: bytes) -> float:
        """0.97 for a JSON object that opens with ``"participants": [`` (Meta writes it first, and a big
        group's list can fill the first 4 KiB), or whose first 4 KiB hold ``"participants"`` or
        ``"messages"`` together with a sender (``"sender_name"``/``"senderName"``) and a time
        (``"timestamp_ms"``/``"timestamp"``); else 0.  (Above Telegram's 0.95: both are JSON with
        ``"messages"``.)  0.97 too for the export's profile file that names its account holder (a JSON
        object opening with ``"profile_v2"``, ``"profile_user"`` or ``"autofill_information_v2"``): read
        for the owner's name, it gives no records."""
        if not _JSON_START.match(head):
            return 0.0
        if _META_OPENING.match(head) or _PROFILE_OPENING.match(head):
            return 0.97
        if (b'"sender_name"' in head or b'"senderName"' in head) and (
                b'"timestamp_ms"' in head or b'"timestamp"' in head or b'"timestampMs"' in head) and (
                b'"participants"' in head or b'"messages"' in head):
            return 0.97
        return 0.0

    def __init__(self) -> None:
        self._profiles: dict[str, str | None] = {}  # folder → the profile name found in it (or None)
        self._common: dict[str, str | None] = {}  # messages folder → the name all its conversations have
        self._owners: dict[str, str] = {}  # messages folder → the owner found for one of its conversations

    def _remember_profile(self, path: Path, name: str) -> None:
        """Keep ``name``, read from the profile file ``path``, for the export's top folder (the folder
        ``path``'s :data:`_PROFILE_FILES` entry is relative to; else the file's own folder), so the
        conversations read after it (a zip's members are read one by one) know their owner."""
        parts = Path(path).absolute().parts
        root = Path(path).absolute().parent
        for rel in _PROFILE_FILES:
            tail = tuple(rel.split("/"))
            if parts[-len(tail):] == tail:
                root = Path(*parts[:-len(tail)])
                break
        self._profiles[str(root)] = name

    def _profile_near(self, path: Path) -> str | None:
        """The name in the first profile file (:data:`_PROFILE_FILES`) of a folder above ``path``, or None."""
        folder = Path(path).absolute().parent
        for _ in range(_PROFILE_LEVELS):
            folder = folder.parent
            key = str(folder)
            if key not in self._profiles:
                self._profiles[key] = None
                for rel in _PROFILE_FILES:
                    f = folder / rel
                    try:
                        if f.is_file() and f.stat().st_size < (4 << 20):  # a bad escape in it is repaired
                            self._profiles[key] = profile_name(loads_repairing(f.read_bytes())[0])
                    except (OSError, ValueError):
                        continue
                    if self._profiles[key]:
                        break
            if self._profiles[key]:
                return self._profiles[key]
            if folder.parent == folder:
                break
        return None

    def _common_name(self, root: Path) -> str | None:
        """The one name every conversation under ``root`` (an export's ``messages`` folder) has among its
        participants, when at least two conversations can be read; else None."""
        key = str(root)
        if key not in self._common:
            common: set[str] | None = None
            seen = 0
            for folder in sorted(root.iterdir()) if root.is_dir() else []:
                if folder.name.casefold() not in _THREAD_FOLDERS or not folder.is_dir():
                    continue
                for chat in sorted(folder.iterdir()):
                    if seen >= _SIBLINGS_READ:
                        break
                    files = sorted(chat.glob("message_*.json")) if chat.is_dir() else []
                    names = _head_participants(files[0]) if files else None
                    if not names:
                        continue
                    seen += 1
                    common = set(names) if common is None else common & set(names)
            self._common[key] = next(iter(common)) if seen >= 2 and common and len(common) == 1 else None
        return self._common[key]

    def account_holder(self, path: Path, data: dict, messages: list) -> str | None:
        """Who the export's account holder is, by the rules of the module doc ("The owner"), or None.

        Args:
            path: the conversation's file.
            data: its parsed JSON (``participants``, ``title``).
            messages: its messages (raw, mojibake not yet undone).
        Returns:
            The owner's display name as this file writes it (mojibake undone), or None when nothing says.
        """
        participants = _participant_names(data.get("participants"))
        senders = {fix_mojibake(_first(m, "sender_name", "senderName")) for m in messages if isinstance(m, dict)}
        names = {n for n in [*participants, *senders] if isinstance(n, str) and n.strip()
                 and n.casefold() not in _NO_ACCOUNT}
        root = _messages_root(path)
        owner = self._profile_near(path)
        if owner not in names:
            noticed = {fix_mojibake(_first(m, "sender_name", "senderName")) for m in messages
                       if isinstance(m, dict) and _is_owner_notice(fix_mojibake(_first(m, "content", "text") or ""))}
            owner = next(iter(noticed)) if len(noticed) == 1 else None
        if owner not in names:
            title = fix_mojibake(_first(data, "title", "threadName"))
            two = list(dict.fromkeys(participants))
            owner = None
            if isinstance(title, str) and len(two) == 2 and title.casefold() in {n.casefold() for n in two}:
                owner = next(n for n in two if n.casefold() != title.casefold())
        if owner not in names and root is not None:
            owner = self._common_name(root)
        export = str(root or Path(path).absolute().parent)  # the encrypted chats' export: one folder of files
        if owner not in names:
            owner = self._owners.get(export)
        if owner not in names:
            return None
        self._owners.setdefault(export, owner)
        return owner

    def read(self, path: Path) -> Iterator[Item]:
        """Yield one Record per message (kind ``"chat"``, ``sent_at`` UTC), oldest first.

        Raises:
            InputError: the file cannot be read, is over :data:`MAX_FILE_BYTES`, is not JSON, or has no
                ``messages`` list.
        """
        path = Path(path)
        try:
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                raise InputError(str(path), f"over {MAX_FILE_BYTES >> 20} MiB: not a Messenger export part")
            broken, repairs = None, {}
            try:
                data = json.loads(path.read_bytes().decode("utf-8-sig"), strict=False)
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                data, broken, repairs = _repaired(path)  # fixed as Telegram's reader fixes, or cut short
                if not data.get("messages") and not (broken is None and profile_name(data)):
                    raise InputError(str(path), f"not valid JSON: {exc}") from exc
        except OSError as exc:
            raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from exc
        if isinstance(data, dict) and not isinstance(data.get("messages"), list) and profile_name(data):
            self._remember_profile(path, profile_name(data))
            return  # the account holder's name, for the conversations of this export: no records
        if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
            raise InputError(str(path), "not an Instagram or Messenger export: no 'messages' list in it")
        messages = data["messages"]
        camel = any(isinstance(m, dict) and ("senderName" in m or "isUnsent" in m) for m in messages[:50])
        service = service_from_path(path) or ("facebook" if "magic_words" in data or camel or any(
            isinstance(m, dict) and "type" in m for m in messages[:50]) else "instagram")
        title = _first(data, "title", "threadName")
        title = fix_mojibake(title) if title else None
        thread = f"{service}:{_thread_key(data, title, path)}"
        # participants: [{"name": ...}], or plain names (2018, encrypted chats)
        members = [Party(name, None, "handle", "from") for name in _participant_names(data.get("participants"))
                   if name.casefold() not in _NO_ACCOUNT]
        owner = self.account_holder(path, data, messages)
        # someone who wrote here but is no longer a participant (left the group): a member until their last message
        former: dict[str, int] = {}
        for m in messages:
            who = fix_mojibake(_first(m, "sender_name", "senderName")) if isinstance(m, dict) else None
            ts = timestamp_ms(m) if isinstance(m, dict) else None
            if isinstance(who, str) and who.strip() and ts is not None and who.casefold() not in _NO_ACCOUNT \
                    and members and all(p.name != who for p in members):
                former[who] = max(former.get(who, ts), ts)

        rows: list[tuple[int, int, dict]] = []  # (timestamp_ms, position oldest-first, message)
        oldest_first = file_runs_forward(messages)
        for n, msg in enumerate(messages if oldest_first else reversed(messages)):
            where = f"message {n + 1 if oldest_first else len(messages) - n} of the file"
            if not isinstance(msg, dict):
                yield RecordError(str(path), where, "message is not a JSON object")
                continue
            ts = timestamp_ms(msg)
            if ts is None:
                shown = {k: msg.get(k) for k in ("timestamp_ms", "timestamp") if k in msg}
                yield RecordError(str(path), where, f"no time: neither timestamp_ms nor timestamp is a number "
                                                    f"({shown or 'both missing'})")
                continue
            rows.append((ts, n, msg))
        rows.sort(key=lambda r: r[:2])

        repaired = repair_note(path, repairs) or ""
        same_ms: dict[int, int] = {}
        events: list[dict] = []
        last: Record | None = None
        for ts, _, raw in rows:
            msg = fix_mojibake(raw)
            k = same_ms.get(ts, 0)
            same_ms[ts] = k + 1
            sent_at = datetime.fromtimestamp(ts / 1000, tz=timezone.utc)
            notes: list[str] = [repaired] if repaired else []
            attrs: dict = {"service": service, "time_basis": "utc", "timestamp_ms": ts}
            name = _first(msg, "sender_name", "senderName")
            text = _first(msg, "content", "text") or ""
            unsent = bool(msg.get("is_unsent") or msg.get("isUnsent"))
            media = [f for f in _MEDIA if msg.get(f)]
            extra = msg.get("media") if isinstance(msg.get("media"), list) else []  # the encrypted chats'
            generated = bool(text) and is_generated(text, name)
            if str(msg.get("type") or "").capitalize() in _SYSTEM_TYPES or "call_duration" in msg or (
                    generated and not media and not extra and not unsent):
                events.append({"at": sent_at.isoformat(), "actor": name, "text": text})
                continue
            sender = _sender_of(name, notes)
            if generated:
                notes.append(f"text written by {service.capitalize()} left out: {text!r}")
                text = ""
            for f in media:
                attrs[f] = msg[f]
                notes.append(_MEDIA[f])
            if extra:
                attrs["media"] = extra
                notes.extend(dict.fromkeys(_media_kind(m) for m in extra))
            if unsent:
                notes.append("unsent")
                attrs["unsent"] = True
            if msg.get("reactions"):
                attrs["reactions"] = msg["reactions"]
            share = msg.get("share") if isinstance(msg.get("share"), dict) else {}
            about = _first(share, "share_text", "link")
            subject = None
            if about and about.strip() and about.strip() != text.strip():
                subject = " ".join(about.split())[:300]
            if owner:
                attrs["owner_name"] = owner
                if sender is not None and sender.name == owner:
                    attrs["is_from_me"] = True
            if title:
                attrs["chat_name"] = title
            if events:
                attrs["system_events"], events = events, []
            if last is not None:
                yield last
            last = Record(
                source_path=str(path.absolute()),
                external_id=f"{ts} #{k}",
                kind="chat",
                text=text,
                sent_at=sent_at,
                sender=sender,
                recipients=other_members(members + [Party(n, None, "handle", "from") for n, last_ts in former.items()
                                                     if ts <= last_ts], sender) if members else [],
                subject=subject,
                thread=thread,
                attrs=attrs,
                notes=notes,
            )
        if last is not None:
            if events:
                last.attrs.setdefault("system_events", []).extend(events)
            yield last
        if broken:
            yield RecordError(str(path), broken.split(":", 1)[0],
                              f"the JSON breaks {broken}: the {len(rows)} messages before it were read, the rest "
                              "of the file could not be")

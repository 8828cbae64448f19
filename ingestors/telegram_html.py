"""Telegram Desktop HTML exports (the app's default format): one :class:`~ingestors.base.Record` (kind
``"chat"``) per message, the same Records :mod:`ingestors.telegram` makes from ``result.json`` where the
HTML says as much.

What Telegram Desktop writes (``export/output/export_output_html.cpp``):

* one chat: ``messages.html``, ``messages2.html``, … (1000 messages a file, oldest first) beside
  ``photos/``, ``files/``, ``css/``, ``js/``, ``images/``; the whole account: ``export_results.html``,
  ``lists/chats.html`` and ``chats/chat_NNN/messages*.html``;
* the chat's name in ``div.page_header .text``; the messages in ``div.history``;
* ``div.message.default`` (``id="message<N>"``): ``div.body`` with ``div.date`` (``title`` the local time,
  ``"14.03.2023 18:02:11 UTC+01:00"``, older exports without the offset), ``div.from_name``, then
  ``div.forwarded.body`` (a forwarded message: its own ``from_name``, and the text, media and reply inside
  it), ``div.reply_to`` (a link to ``#go_to_message<N>``), ``div.media_wrap`` and ``div.text``;
* ``div.message.default.joined``: a message by the same sender as the one before (within 15 minutes, the
  same day), with no ``from_name``; the first message of every file is never joined;
* ``div.message.service``: a date heading (negative id) or a service message (joined, invited, pinned, …).

Decisions (as in :mod:`ingestors.telegram` unless said):

* **Time**: the ``title`` is the exporting computer's wall clock.  With an offset (``UTC+01:00``) it is read
  at that offset (``attrs["time_basis"] = "export-local"``).  Telegram writes the zone's *standard* offset
  even in summer time, so when the ingestor's ``local_timezone`` has that standard offset on that day the
  time is read in that zone (summer time applied); otherwise at the offset as written
  (``"export-standard-offset"``: in a zone that keeps summer time, summer messages read an hour late).
  Without an offset the time is read in ``local_timezone`` (``"assumed-local"``, noted ``"no UTC offset in
  the export: time read in <zone>"``), as the JSON reader reads its zone-less dates.  A wall time read in the
  zone that the zone had twice (the hour the clocks go back) is the one that keeps the file's order
  (:class:`~ingestors.base.FileOrder`).  No readable time:
  ``sent_at`` None, noted.
* **Sender**: ``from_name`` (``Party(name, None, "handle", "from")``: the HTML has no user ids); a joined
  message's is the previous message's; ``"Deleted Account"`` is no one (sender None, noted); a ``via
  @bot`` tail is kept in ``attrs["via_bot"]``.  Recipients: every other sender of the chat (all its
  ``messages*.html`` beside the file when they are there; inside a zip, where the others are not on disk,
  those of the file).  A one-to-one chat (not listed as a group, channel or bot) written by two senders and
  named after one of them was exported by the other: every record carries ``attrs["owner_name"]``, the
  owner's own ``attrs["is_from_me"]`` (the owner, as in ``result.json``).
* **Forwarded**: the words are the author's (the forwarded block's ``from_name``, or the previous
  message's author for a joined one): sender the author, ``attrs["forwarded_by"]`` and a note name the one
  who posted it, recipients are that person's chat members.
* **Text**: the ``div.text`` as plain text (``<br>`` a line break; links, bold, mentions, spoilers as
  their text), link targets that are not the text itself in ``attrs["links"]``.
* **Media** (photo, sticker, GIF, video, video message, voice message, audio, file, poll, contact,
  location) is kept in ``attrs["media"]`` with the JSON reader's keys (``photo``, ``file``,
  ``media_type``, ``sticker_emoji``, …, paths relative to the export's folder) and noted as it notes them
  (``"media: photo"``, ``"media: voice message"``); a poll's words are the record's ``subject``, as in the JSON.  A call is a system event, as in the JSON.
* **Service messages** go to ``attrs["system_events"]`` (``{"id", "at", "actor", "action", "text"}``; the
  HTML gives no time, so ``at`` is None; ``actor``/``action`` when the sentence is one Telegram writes) of the
  file's next message, or of its last one when none follows.  Date headings are left out.
* **Channels**: a chat is a channel when a whole-account export's ``lists/chats.html`` says so, or when a
  page shows it (a post's ``div.signature``, "Channel «…» created", "Channel title changed …"); its posts
  (from_name the chat's name) carry ``attrs["sender_group"] = "telegram_channel"`` (a group posting as
  itself, where the list says "group": ``"telegram_group"``) and the channel is not a chat member, as in
  the JSON reader.  A one-chat export of a channel that shows none of these is read as a chat.
* **Thread** ``"telegram:<chat name>"`` (the HTML has no chat id); ``external_id`` ``"message <id>"``
  (a whole-account export's ``chats/chat_NNN``: ``"chat <chat name> message <id>"``).  ``identity``: the JSON
  reader's (:func:`ingestors.telegram.message_identity`: chat name, message id, sender name, the second of its
  quarter hour), so a chat
  imported from both formats is one set of records.  When ``lists/chats.html`` names two chats alike (two
  supergroups called "Family", each with its own message 1), the chat folder joins thread
  (``"telegram:Family (chat_002)"``) and identity, so neither chat's messages are taken for the other's.
* **Other files of the export**: ``export_results.html`` and ``lists/*.html`` (no messages), and the
  export's own ``css/style.css``, ``js/script.js`` and ``images/*.png`` are taken and give nothing, so a
  dragged export folder reads without "unsupported file" complaints.  Photos, voice messages and other
  media files are read by their own ingestors.
* **Damage**: a message that cannot be read is a :class:`~ingestors.base.RecordError` and the next ones
  still come; a file that ends early keeps every message before the break (the last one noted as perhaps
  cut off), then a RecordError says so; bytes that are not UTF-8 are replaced (noted on every record).  A
  file that is not a Telegram page raises :class:`~core.errors.InputError`.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path, PurePosixPath
from typing import Iterator

from bs4 import BeautifulSoup, NavigableString, Tag

from core.errors import InputError
from ingestors.base import FileOrder, Item, Party, Record, RecordError, other_members, time_zone
from ingestors.telegram import (SAVED_MESSAGES, _CONTROL_TEXT, _media_note, message_identity, poll_subject,
                                quarter_seconds, shared_text)

MAX_BYTES = 64 << 20  # a Telegram page holds 1000 messages (a few MB); a bigger .html is something else
_TITLE_TAG = re.compile(rb"<title>\s*Exported Data\s*</title>", re.I)
_CHAT_PAGE = re.compile(rb'class="(?:page_body chat_page|history|message (?:default|service))', re.I)
_MESSAGES_FILE = re.compile(r"^messages(\d*)\.html?$", re.I)
_CHAT_FOLDER = re.compile(r"^chat_\d+$")
_MESSAGE_ID = re.compile(r"^message(-?\d+)$")
_GO_TO = re.compile(r"go_to_message(\d+)")
_VIA = re.compile(r"^(?P<name>.*?)\s+via\s+@(?P<bot>\w+)$")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
# "14.03.2023 18:02:11 UTC+01:00" (newer), "14.03.2023 18:02:11" (older); Qt writes a zero offset as "UTC"
_WHEN = re.compile(r"^\s*(\d{1,2})\.(\d{1,2})\.(\d{4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?"
                   r"(?:\s*(?:UTC|GMT)(?:\s*([+-])(\d{1,2})(?::?(\d{2}))?)?)?\s*$", re.I)
DELETED = "Deleted Account"
# the export's own furniture (HtmlWriter::start copies these): taken, nothing read from them
_FURNITURE = {("css", "style.css"), ("js", "script.js")} | {
    ("images", f"{stem}{x2}.png") for x2 in ("", "@2x") for stem in (
        "back", "media_call", "media_contact", "media_file", "media_game", "media_location", "media_music",
        "media_photo", "media_shop", "media_video", "media_voice", "section_calls", "section_chats",
        "section_contacts", "section_frequent", "section_other", "section_photos", "section_sessions",
        "section_stories", "section_web")}
# service sentences Telegram writes ("<actor> <phrase> …"), checked in order: the JSON's action names
_ACTIONS = [(re.compile(p), a) for p, a in (
    (r"^(?P<actor>.+?) created group «", "create_group"),
    (r"^Channel «.*» created$", "create_channel"),
    (r"^(?P<actor>.+?) changed group title to «", "edit_group_title"),
    (r"^Channel title changed to «", "edit_group_title"),
    (r"^Channel photo changed$", "edit_group_photo"),
    (r"^(?P<actor>.+?) changed group photo$", "edit_group_photo"),
    (r"^(?P<actor>.+?) removed group photo$", "delete_group_photo"),
    (r"^(?P<actor>.+?) joined group by link from ", "join_group_by_link"),
    (r"^(?P<actor>.+?) joined group by request$", "join_group_by_request"),
    (r"^(?P<actor>.+?) converted this group to a supergroup$", "migrate_to_supergroup"),
    (r"^(?P<actor>.+?) converted a basic group to this supergroup", "migrate_from_group"),
    (r"^(?P<actor>.+?) pinned ", "pin_message"),
    (r"^(?P<actor>.+?) joined Telegram$", "joined_telegram"),
    (r"^(?P<actor>.+?) took a screenshot$", "take_screenshot"),
    (r"^(?P<actor>.+?) started voice chat", "group_call"),
    (r"^(?P<actor>.+?) invited .+ to the voice chat$", "invite_to_group_call"),
    (r"^(?P<actor>.+?) invited ", "invite_members"),
    (r"^(?P<actor>.+?) removed ", "remove_members"),
    (r"^History cleared$", "clear_history"),
)]


def _classes(tag: Tag) -> set[str]:
    value = tag.get("class") or []
    return set(value.split() if isinstance(value, str) else value)


def _child(tag: Tag | None, *classes: str) -> Tag | None:
    """The first child element of ``tag`` (not deeper) carrying every one of ``classes``."""
    if tag is None:
        return None
    want = set(classes)
    return next((c for c in tag.children if isinstance(c, Tag) and want <= _classes(c)), None)


def _words(tag: Tag | None, skip: str | None = None) -> str:
    """The text of ``tag`` with its whitespace runs made single spaces (children with class ``skip`` left out)."""
    if tag is None:
        return ""
    parts = []
    for el in tag.children:
        if isinstance(el, Tag):
            if skip is None or skip not in _classes(el):
                parts.append(el.get_text(" "))
        elif type(el) is NavigableString:
            parts.append(str(el))
    return " ".join("".join(parts).split())


def plain_text(tag: Tag | None, links: list[str] | None = None) -> str:
    """The plain text of a message's ``div.text``.

    Args:
        tag: the ``div.text`` element (None gives ``""``).
        links: when given, the targets of links whose text is not the target itself (Telegram's ``text_link``)
            are appended to it.
    Returns:
        The text: ``<br>`` a line break, every other element its text; the line break and indentation
        Telegram puts around the text are removed, nothing else.
    """
    if tag is None:
        return ""
    out: list[str] = []
    for el in tag.descendants:
        if isinstance(el, Tag):
            if el.name == "br":
                out.append("\n")
            elif el.name == "a" and links is not None:
                href, label = (el.get("href") or "").strip(), el.get_text()
                if href and _SCHEME.match(href) and href not in (label, "mailto:" + label, "tel:" + label) and \
                        not (label.startswith("@") and href.rstrip("/").endswith("/" + label[1:])):
                    links.append(href)
        elif type(el) is NavigableString:
            out.append(str(el))
    text = "".join(out)
    text = re.sub(r"\A\r?\n", "", text)
    text = re.sub(r"\r?\n[ \t]*\Z", "", text)
    return _CONTROL_TEXT.sub("", text)


def parse_when(title: str | None) -> tuple[datetime, timedelta | None] | None:
    """``(wall time, UTC offset or None)`` from a ``div.date`` ``title`` (``"14.03.2023 18:02:11 UTC+01:00"``,
    ``"14.03.2023 18:02:11"``), or None when it is missing or not a real time."""
    m = _WHEN.match(title or "")
    if not m:
        return None
    day, month, year, hour, minute, second, sign, oh, om = m.groups()
    try:
        wall = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second or 0))
    except ValueError:
        return None
    if sign is None:
        has_zone = re.search(r"(?:UTC|GMT)\s*$", title.strip(), re.I) is not None
        return wall, (timedelta(0) if has_zone else None)
    offset = timedelta(hours=int(oh), minutes=int(om or 0)) * (-1 if sign == "-" else 1)
    if offset > timedelta(hours=14):
        return None
    return wall, offset


def _media_path(href: str | None) -> str | None:
    """A media link relative to the export's folder: ``"../../chats/chat_001/photos/p.jpg"`` → ``"chats/…"``."""
    if not href or _SCHEME.match(href) and not href.lower().startswith("file:"):
        return href or None
    parts = [p for p in PurePosixPath(href).parts if p not in ("..", ".")]
    return "/".join(parts) or None


@dataclass
class _Msg:
    """One ``div.message`` as read: what a Record (or a system event) is made of."""

    id: int | None
    n: int  # its place among the file's messages, from 1
    service: bool = False
    text: str = ""
    title: str | None = None
    poster: str | None = None  # who posted it here (from_name, or the previous one's for a joined message)
    forwarded: bool = False
    author: str | None = None  # a forwarded message's author (None: a deleted account, or not shown)
    via: str | None = None
    links: list = field(default_factory=list)
    media: dict = field(default_factory=dict)
    call: str | None = None  # a call's status ("Outgoing (35 seconds)"): a system event, not a message
    reply_to: int | None = None
    signature: str | None = None
    problem: str | None = None  # why it cannot be read


@dataclass
class _Page:
    """One parsed file: the chat's name, its messages in order, and what was wrong with the file."""

    chat_name: str | None
    messages: list[_Msg]
    chat_page: bool
    truncated: bool = False
    replaced: int = 0  # bytes that were not UTF-8


class TelegramHtmlIngestor:
    """Reads one page of a Telegram Desktop HTML export (``messages.html``, ``messages2.html``, …): one Record
    per message, in file order (module doc).

    Claims ``.png`` beside the photo reader (the export's icons sniff higher here, every other picture
    there); ``.html`` is everyone's: the registry picks it by :meth:`sniff`.
    """

    name = "telegram-html"
    suffixes = frozenset({".png"})

    def __init__(self, local_timezone: str = "UTC"):
        """
        Args:
            local_timezone: IANA zone the exporting computer's clock is taken to be in (times without an
                offset; times whose offset is that zone's standard offset get its summer time).
        Raises:
            ValueError: ``local_timezone`` is not a known zone.
        """
        self.local_timezone = time_zone(local_timezone)
        self._senders: dict[tuple, tuple[list[str], bool]] = {}  # (path, size, mtime) → (posters, a channel's?)
        self._lists: dict[tuple, dict[str, str]] = {}  # lists/chats.html → {chat folder: "channel", "group", …}
        self._shared: dict[tuple, set[str]] = {}  # lists/chats.html → the chat folders whose name another one has

    def sniff(self, path: Path, head: bytes) -> float:
        """0.95 for a page titled "Exported Data" (Telegram's) that holds a chat; 0.7 for another page of the
        export (its index, its lists); 0.95 for the export's own style sheet, script and icons (above the
        photo reader's 0.9 for a PNG); else 0."""
        if _is_furniture(path):
            return 0.95
        if _TITLE_TAG.search(head):
            return 0.95 if _CHAT_PAGE.search(head) else 0.7
        return 0.0

    # --------------------------------------------------------------------------------------- reading

    def read(self, path: Path) -> Iterator[Item]:
        """Yield one Record per message of the page (kind ``"chat"``), service messages kept on the next one.

        Args:
            path: a ``messages*.html`` (other pages of the export, and its furniture, give nothing).
        Raises:
            InputError: the file cannot be read, is over :data:`MAX_BYTES`, or is not a Telegram export page.
        """
        path = Path(path)
        if _is_furniture(path):
            return
        page = self._parse(path)
        if not page.chat_page:
            return
        self._remember(path, page)
        chat = page.chat_name
        posters, channel_hint = self._chat_senders(path)
        chat_type = self._listed_type(path) or ("channel" if channel_hint else None)
        itself = {"channel": "telegram_channel", "group": "telegram_group"}.get(chat_type or "")
        # a channel (or a group posting as itself, an anonymous admin) is not one of the chat's members
        members = [Party(n, None, "handle", "from") for n in posters if not (itself and n == chat)]
        # a one-to-one chat named after the other person: whoever else wrote in it exported it (the owner)
        owner = next((n for n in posters if n != chat), None) if chat_type in (None, "private") and \
            len(posters) == 2 and chat in posters else None
        if owner is None and (chat or "").casefold() == SAVED_MESSAGES.casefold() and len(posters) == 1:
            owner = posters[0]  # the account holder's own chat: its one poster is the account holder
        full = path.parent.parent.name == "chats" and bool(_CHAT_FOLDER.match(path.parent.name))
        thread = "telegram:" + (chat or path.parent.name or path.stem)
        shared = full and self._name_shared(path)  # another chat of the export has this name: its folder tells
        if shared:
            thread += f" ({path.parent.name})"
        common: list[str] = []
        if page.replaced:
            common.append(f"file repaired: {page.replaced} byte{'s' if page.replaced > 1 else ''} that are not "
                          "UTF-8 replaced")
        events: list[dict] = []
        last: Record | None = None
        times = FileOrder()  # a wall time the zone had twice (the hour the clocks go back): the one in order
        count = 0  # Records made
        for m in page.messages:
            locator = (f"chat {chat} " if full else "") + (f"message {m.id}" if m.id is not None else f"#{m.n}")
            if m.problem:
                yield RecordError(str(path), locator, m.problem)
                continue
            notes, attrs = list(common), {}
            sent_at = times.place(self._when(m.title, notes, attrs), notes)
            # the time as written: where in its quarter hour it was sent (only with its seconds, as JSON has them)
            wall = (parse_when(m.title) or (None,))[0] if re.match(r"^\s*\S+\s+\d{1,2}:\d{2}:\d{2}", m.title or "") \
                else None
            if m.service or m.call is not None:
                events.append(self._event(m, sent_at))
                continue
            if last is not None:
                yield last
            count += 1
            poster = Party(m.poster, None, "handle", "from") if m.poster else None
            sender = poster
            if m.forwarded:  # the words are the author's, not the one who forwarded them
                sender = Party(m.author, None, "handle", "from") if m.author else None
                if poster is not None:
                    attrs["forwarded_by"] = {"name": poster.name, "id": None}
                notes.append(f"forwarded by {poster.name if poster else 'someone'}: written by "
                             f"{m.author or 'someone unknown'}")
                attrs["forwarded_from"] = m.author
            if sender is None:
                notes.append("sender unknown")
            elif itself and not m.forwarded and sender.name == chat:
                attrs["sender_group"] = itself  # identity makes it a group, not a person (core.graph.parties)
            if m.links:
                attrs["links"] = m.links
            if m.media:
                attrs["media"] = m.media
                notes.append(_media_note(m.media))
            if m.reply_to is not None:
                attrs["reply_to_message_id"] = m.reply_to
            if m.via:
                attrs["via_bot"] = m.via
            if m.signature:
                attrs["signature"] = m.signature
            if m.id is not None:
                attrs["message_id"] = m.id
            if chat:
                attrs["chat_name"] = chat
            if owner:
                attrs["owner_name"] = owner
                if sender is not None and sender.name == owner:
                    attrs["is_from_me"] = True
            if events:
                attrs["system_events"], events = events, []
            last = Record(source_path=str(path.absolute()), external_id=locator, kind="chat",
                          text="\n".join(x for x in (m.text, shared_text(m.media)) if x),
                          subject=poll_subject(m.media), sent_at=sent_at, sender=sender,
                          recipients=other_members(members, poster),
                          thread=thread, attrs=attrs, notes=notes,
                          identity=message_identity(chat, m.id, sender,  # as result.json's record of it
                                                    path.parent.name if shared else None, quarter_seconds(wall)),
                          former_identity=message_identity(chat, m.id, sender, path.parent.name if shared else None))
        if last is not None:
            if events:
                last.attrs.setdefault("system_events", []).extend(events)
            if page.truncated:
                last.notes.append("file ends early: this message may be cut off")
            yield last
        if page.truncated:
            yield RecordError(str(path), "end of file",
                              f"the file ends early (no closing </html>): the {count} message"
                              f"{'s' if count != 1 else ''} before the break were read, the rest is missing")

    def _parse(self, path: Path) -> _Page:
        """Read and parse one file.

        Raises:
            InputError: cannot be read, too big, or not a Telegram export page.
        """
        try:
            size = path.stat().st_size
            if size > MAX_BYTES:
                raise InputError(str(path), f"too big for a Telegram export page ({size >> 20} MiB; a page holds "
                                            "1000 messages, a few MB)")
            raw = path.read_bytes()
        except OSError as exc:
            raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from exc
        if raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            text, replaced = raw.decode("utf-8"), 0
        except UnicodeDecodeError:
            text = raw.decode("utf-8", "replace")
            replaced = text.count("\ufffd") - raw.decode("utf-8", "ignore").count("\ufffd")
        soup = BeautifulSoup(text, "html.parser")
        history = soup.find("div", class_="history")
        title = soup.find("title")
        telegram = title is not None and " ".join(title.get_text().split()) == "Exported Data"
        if history is None:
            if telegram and soup.find("div", class_="page_wrap") is not None:
                return _Page(None, [], chat_page=False)  # export_results.html, lists/chats.html, …
            raise InputError(str(path), "not a Telegram Desktop export page (no chat history in it)")
        header = _child(_child(soup.find("div", class_="page_header"), "content"), "text") or \
            soup.select_one("div.page_header .text")
        chat = _words(header) or None
        messages = self._messages(history)
        # Telegram closes every element it opens: a page that does not end in </html> was cut short
        truncated = not re.search(r"</html>\s*\Z", text, re.I)
        return _Page(chat, messages, chat_page=True, truncated=truncated, replaced=replaced)

    def _messages(self, history: Tag) -> list[_Msg]:
        out: list[_Msg] = []
        poster: str | None = None  # the last default message's poster, for joined ones
        author: str | None = None  # and its forwarded author
        for n, div in enumerate(history.find_all("div", class_="message"), 1):
            classes = _classes(div)
            m = _MESSAGE_ID.match(div.get("id") or "")
            msg = _Msg(int(m.group(1)) if m else None, n)
            if "service" in classes:
                if msg.id is None or msg.id < 0:  # a date heading ("14 March 2023"), "No exported messages"
                    continue
                msg.service = True
                msg.text = _words(_child(div, "body"))
                poster = author = None
                out.append(msg)
                continue
            body = _child(div, "body")
            if body is None:
                msg.problem = "message has no body (the page is damaged here)"
                out.append(msg)
                poster = author = None
                continue
            date = _child(body, "date")
            msg.title = date.get("title") if date is not None else None
            if "joined" not in classes:  # a new run: nothing carries over from the message before
                poster = author = None
            named = _child(body, "from_name")
            if named is not None:
                name, msg.via = self._name(named)
                poster = None if name in (DELETED, "") else name
            msg.poster = poster
            fwd = _child(body, "forwarded", "body")
            content = fwd or body
            if fwd is not None:
                msg.forwarded = True
                named = _child(fwd, "from_name")
                if named is not None:
                    name = self._name(named, skip="date")[0]
                    author = None if name in (DELETED, "") else name
                msg.author = author
            else:
                author = None
            msg.text = plain_text(_child(content, "text"), msg.links)
            reply = _child(content, "reply_to")
            if reply is not None:
                link = reply.find("a", href=True)
                hit = _GO_TO.search(link["href"]) if link is not None else None
                msg.reply_to = int(hit.group(1)) if hit else None
            signature = _child(content, "signature")
            msg.signature = _words(signature) or None
            wrap = _child(content, "media_wrap")
            if wrap is not None:
                self._media(wrap, msg)
            out.append(msg)
        return out

    @staticmethod
    def _name(tag: Tag, skip: str | None = None) -> tuple[str, str | None]:
        """``(name, via bot)`` from a ``from_name`` (a forwarded one's ``span.date`` left out)."""
        name = _words(tag, skip)
        m = _VIA.match(name)
        return (m.group("name"), m.group("bot")) if m else (name, None)

    @staticmethod
    def _media(wrap: Tag, msg: _Msg) -> None:
        """Fill ``msg.media`` (the JSON reader's keys) or ``msg.call`` from a ``div.media_wrap``."""
        inner = next((c for c in wrap.children if isinstance(c, Tag)), None)
        if inner is None:
            return
        cls = _classes(inner)
        href = _media_path(inner.get("href"))
        body = _child(inner, "body")
        title = _words(_child(body, "title")) or None
        status = _words(_child(body, "status")) or None
        missing = _words(_child(body, "description")) or None
        where = href or (f"({missing})" if missing else None)
        media: dict = {}
        if "photo_wrap" in cls:
            media = {"photo": href or "photo"}
        elif "sticker_wrap" in cls:
            media = {"file": href, "media_type": "sticker"}
        elif "animated_wrap" in cls:
            media = {"file": href, "media_type": "animation"}
        elif "video_file_wrap" in cls:
            media = {"file": href, "media_type": "video_file"}
        elif "media_poll" in cls:
            question = _words(_child(inner, "question"))
            answers = [_words(a).removeprefix("- ").strip() for a in inner.find_all("div", class_="answer")]
            media = {"poll": {"question": question, "answers": answers}}
        elif "media_call" in cls:
            msg.call = status or ""
            return
        elif "media_photo" in cls and title == "Sticker":
            emoji = (status or "").split(",")[0].strip()
            media = {"file": where, "media_type": "sticker"}
            if emoji and not any(ch.isdigit() for ch in emoji):
                media["sticker_emoji"] = emoji
        elif "media_photo" in cls:
            media = {"photo": where or title}
        elif "media_video" in cls:
            kind = {"Video message": "video_message", "Animation": "animation"}.get(title or "", "video_file")
            media = {"file": where, "media_type": kind}
        elif "media_voice_message" in cls:
            media = {"file": where, "media_type": "voice_message"}
        elif "media_audio_file" in cls:
            media = {"file": where, "media_type": "audio_file"}
            if title and title != "Audio file":
                media["title"] = title
        elif "media_file" in cls:
            media = {"file": where or title, "file_name": title}
        elif "media_contact" in cls:
            media = {"contact_information": {"name": title, "phone_number": status}}
        elif cls & {"media_location", "media_live_location", "media_venue"}:
            media = {"location_information": {"name": title, "coordinates": status, "link": href}}
        msg.media = {k: v for k, v in media.items() if v not in (None, "")}

    def _when(self, title: str | None, notes: list[str], attrs: dict) -> datetime | None:
        """The message's time at the offset it was written at (module doc), or None (noted)."""
        parsed = parse_when(title)
        if parsed is None:
            notes.append("no readable date: time unknown")
            return None
        wall, offset = parsed
        zone = self.local_timezone
        if offset is None:
            attrs["time_basis"] = "assumed-local"
            notes.append(f"no UTC offset in the export: time read in {zone.key}")
            return wall.replace(tzinfo=zone)
        local = wall.replace(tzinfo=zone)
        standard = (local.utcoffset() or timedelta(0)) - (local.dst() or timedelta(0))
        if standard == offset:  # the zone Telegram meant: its summer time applies
            attrs["time_basis"] = "export-local"
            return local
        if offset == timedelta(0) and title and re.search(r"UTC\s*$", title.strip()):
            attrs["time_basis"] = "export-local"
        else:
            attrs["time_basis"] = "export-standard-offset"
        attrs["utc_offset"] = _offset_text(offset)
        return wall.replace(tzinfo=timezone(offset))

    @staticmethod
    def _event(m: _Msg, at: datetime | None) -> dict:
        """A service message (or a call) as the JSON reader keeps it: ``{"id", "at", "actor", "action", "text"}``."""
        if m.call is not None:
            return {"id": m.id, "at": at.isoformat() if at else None, "actor": m.poster, "action": "phone_call",
                    "text": m.call}
        actor = action = None
        for pattern, name in _ACTIONS:
            hit = pattern.match(m.text)
            if hit:
                action = name
                actor = hit.groupdict().get("actor")
                break
        return {"id": m.id, "at": None, "actor": actor, "action": action, "text": m.text}

    # ------------------------------------------------------------------------------ the chat's members

    def _remember(self, path: Path, page: _Page) -> None:
        key = _file_key(path)
        if key is not None:
            self._senders[key] = (_posters(page.messages), _channel_hint(page.messages))

    def _listed_type(self, path: Path) -> str | None:
        """A whole-account export's word for the chat (``"channel"``, ``"group"``, ``"private"``, ``"bot"``) from
        ``lists/chats.html`` beside ``chats/``, or None (a one-chat export, or the list is not there)."""
        key = self._listing(path)
        return self._lists[key].get(path.parent.name) if key is not None else None

    def _name_shared(self, path: Path) -> bool:
        """Whether a whole-account export's ``lists/chats.html`` names another chat folder as this one is named
        (two supergroups called "Family": each numbers its messages from 1, so name and id do not tell them)."""
        key = self._listing(path)
        return key is not None and path.parent.name in self._shared[key]

    def _listing(self, path: Path) -> tuple | None:
        """The cache key of the ``lists/chats.html`` beside a whole-account export's ``chats/chat_NNN/``, read
        once into :attr:`_lists` and :attr:`_shared`; None for a one-chat export or when the list is not there."""
        if path.parent.parent.name != "chats" or not _CHAT_FOLDER.match(path.parent.name):
            return None
        listing = path.parent.parent.parent / "lists" / "chats.html"
        key = _file_key(listing)
        if key is None:
            return None
        if key not in self._lists:
            types: dict[str, str] = {}
            names: dict[str, str] = {}
            try:
                soup = BeautifulSoup(listing.read_bytes().decode("utf-8", "replace"), "html.parser")
            except OSError:
                soup = None
            for entry in soup.find_all("a", class_="entry") if soup is not None else []:
                folder = PurePosixPath((entry.get("href") or "").split("#")[0]).parent.name
                if not _CHAT_FOLDER.match(folder):
                    continue
                info = _words(entry.find("div", class_="info"))
                if info:
                    types[folder] = info.casefold()
                name = " ".join(_words(entry.find("div", class_="name")).split()).casefold()
                if name:
                    names[folder] = name
            counts: dict[str, int] = {}
            for name in names.values():
                counts[name] = counts.get(name, 0) + 1
            self._lists[key] = types
            self._shared[key] = {f for f, n in names.items() if counts[n] > 1}
        return key

    def _chat_senders(self, path: Path) -> tuple[list[str], bool]:
        """``(posters, channel)``: every poster of the chat in order of first message, this file's and those of
        its sibling ``messages*.html`` (read once, remembered), in page order; whether any page shows a
        channel (a post's signature, "Channel … created", "Channel title changed …")."""
        pages = [path]
        if _MESSAGES_FILE.match(path.name):
            try:
                names = [n for n in os.listdir(path.parent) if _MESSAGES_FILE.match(n)]
            except OSError:
                names = []
            pages = sorted((path.parent / n for n in names),
                           key=lambda p: int(_MESSAGES_FILE.match(p.name).group(1) or 1))
            if path not in pages:
                pages.append(path)
        out: list[str] = []
        channel = False
        for page in pages:
            key = _file_key(page)
            found = self._senders.get(key) if key is not None else None
            if found is None:
                try:
                    parsed = self._parse(page)
                except InputError:  # its own read reports it
                    continue
                found = (_posters(parsed.messages), _channel_hint(parsed.messages))
                if key is not None:
                    self._senders[key] = found
            out += [n for n in found[0] if n not in out]
            channel = channel or found[1]
        if len(self._senders) > 4096:
            self._senders.clear()
        return out, channel


def _posters(messages: list[_Msg]) -> list[str]:
    out: list[str] = []
    for m in messages:
        if not m.service and m.call is None and not m.problem and m.poster and m.poster not in out:
            out.append(m.poster)
    return out


_CHANNEL_SERVICE = re.compile(r"^Channel (?:«.*» created|title changed to «|photo (?:changed|removed)$)")


def _channel_hint(messages: list[_Msg]) -> bool:
    """True when the page shows a channel: a post with a signature, or a service sentence Telegram writes
    only for channels."""
    return any(m.signature for m in messages if not m.service) or \
        any(_CHANNEL_SERVICE.match(m.text) for m in messages if m.service)


def _file_key(path: Path) -> tuple | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return str(path.absolute()), st.st_size, st.st_mtime_ns


def _offset_text(offset: timedelta) -> str:
    minutes = int(offset.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _is_furniture(path: Path) -> bool:
    """True for Telegram's own ``css/style.css``, ``js/script.js`` and ``images/<icon>.png`` in an export."""
    return (path.parent.name, path.name) in _FURNITURE

"""Mail ingestors: mbox folders (``.mbox``, ``.mbx``) and single messages (``.eml``).

Both parse with the standard library :mod:`email` (``policy.default``) and
turn each message into a :class:`~ingestors.base.Record` of kind ``"email"``.
What the standard library does not do for us, done here:

* **Headers** are decoded from the raw bytes: raw 8-bit header bytes with no
  RFC 2047 (common from old clients) are read as UTF-8, else Windows-1252;
  encoded words are joined per charset *before* decoding, so a character split
  across two encoded-words decodes; ``gb2312`` is read as its superset GB18030
  (as browsers do), and a byte no charset can read becomes U+FFFD, never an
  exception.
* **Bodies**: the text/plain parts, else the text/html parts turned into text;
  each part in its own charset, with a safe fallback (:func:`decode_bytes`).
* **mboxrd un-quoting**: in an mbox, a body line matching ``^>+From `` loses
  exactly one ``>`` (Python's :mod:`mailbox` leaves them as they are).  This is
  right for mboxrd files and for the usual case in mboxo files (where the
  writer quoted ``From `` as ``>From ``); ``> From`` and ``>F`` are untouched.
* **Dates** become tz-aware UTC; a missing or unparseable ``Date`` gives
  ``sent_at=None`` and a note, never "now" or 1970.  The mbox ``From_`` line's
  date is kept in ``attrs["mbox_from"]`` but not used (its zone is unknown).
"""
from __future__ import annotations

import codecs
import re
from datetime import datetime, timezone
from email import policy
from email.header import decode_header
from email.message import Message
from email.parser import BytesParser
from email.utils import getaddresses, parsedate_to_datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import BinaryIO, Iterator

from core.errors import InputError
from ingestors.base import Item, Party, Record, RecordError

MAX_TEXT = 100_000  # characters of body text kept per message

_HEADER_LINE = re.compile(rb"^([\x21-\x39\x3b-\x7e]+):")  # RFC 5322 field name, then ':'
_MBOXRD_QUOTED = re.compile(rb"^>(>*From )", re.MULTILINE)
_KNOWN_HEADERS = {
    b"from", b"to", b"cc", b"subject", b"date", b"message-id", b"received", b"return-path",
    b"mime-version", b"content-type", b"delivered-to", b"reply-to", b"in-reply-to", b"references",
    b"x-mailer", b"sender", b"content-transfer-encoding", b"list-id",
}
# Labels mail software writes that Python's codecs read too narrowly (WHATWG's choices).
_CHARSET_ALIASES = {
    "gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030", "gb_2312-80": "gb18030",
    "iso-8859-1": "cp1252", "iso8859-1": "cp1252", "latin1": "cp1252", "latin-1": "cp1252",
    "us-ascii": "", "ascii": "", "ks_c_5601-1987": "cp949", "euc-kr": "cp949",
    "shift_jis": "cp932", "x-sjis": "cp932", "iso-8859-8-i": "iso-8859-8", "tis-620": "cp874",
    "x-unknown": "", "unknown-8bit": "", "x-user-defined": "",
}  # "" = no usable label: try UTF-8, then Windows-1252 (8-bit bytes under "us-ascii" are a lie)
_REPLY_PREFIX = re.compile(r"^\s*(?:(?:re|fwd?|aw|sv|wg|antw|vs|tr)\s*(?:\[\d+\])?\s*:\s*)+", re.I)
_MSGID = re.compile(r"<[^<>\s]+>")


# --------------------------------------------------------------------------- decoding helpers

def _codec(charset: str | None) -> str | None:
    """The Python codec for a MIME charset label, or None when unknown or empty."""
    if not charset:
        return None
    label = charset.strip().strip('"').lower().split("*", 1)[0]  # RFC 2231 "utf-8*en"
    label = _CHARSET_ALIASES.get(label, label)
    try:
        return codecs.lookup(label).name if label else None
    except LookupError:
        return None


def decode_bytes(data: bytes, charset: str | None) -> str:
    """Decode mail bytes to text, never raising.

    Args:
        data: the raw bytes of a header or body part.
        charset: the declared MIME charset (``"iso-8859-1"``, ``"gb2312"``...), or None.

    Returns:
        The text: decoded with the declared charset when it reads cleanly, else as
        UTF-8 when that reads cleanly, else with the declared charset (or
        Windows-1252 when none is known) replacing unreadable bytes with U+FFFD.
    """
    codec = _codec(charset)
    for name in filter(None, (codec, "utf-8")):
        try:
            return data.decode(name)
        except (UnicodeDecodeError, LookupError):
            pass
    try:
        return data.decode(codec or "cp1252", "replace")
    except LookupError:  # a label Python knows only as a non-text codec
        return data.decode("cp1252", "replace")


def _unescape(chunk: bytes) -> str:
    """Undo ``decode_header``'s raw-unicode-escape of unencoded text (a stray backslash: keep bytes)."""
    try:
        return chunk.decode("raw-unicode-escape")
    except UnicodeDecodeError:
        return chunk.decode("latin-1")


def decode_header_value(raw: str) -> str:
    """Decode one raw header value to plain text.

    Args:
        raw: the value as stored by the parser: maybe folded, maybe with raw
            8-bit bytes (carried as surrogate escapes), maybe RFC 2047 words.

    Returns:
        A str with control characters and whitespace runs made single spaces.  Never raises.
    """
    text = raw
    if any("\udc80" <= ch <= "\udcff" for ch in text):  # raw 8-bit bytes: UTF-8, else Windows-1252
        text = decode_bytes(text.encode("utf-8", "surrogateescape"), None)
    if "=?" in text:
        try:
            chunks = decode_header(" ".join(text.splitlines()))  # joins same-charset runs first
        except Exception:  # malformed encoded word: keep the text as written
            chunks = [(text, None)]
        text = "".join(
            c if isinstance(c, str)
            else _unescape(c) if cs is None else decode_bytes(c, cs)
            for c, cs in chunks
        )
    return " ".join("".join(ch if ch >= " " and ch != "\x7f" else " " for ch in text).split())


class _HTMLText(HTMLParser):
    """Collect the visible text of an HTML document, one line per block."""

    _BLOCKS = {"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table",
               "blockquote", "pre", "hr", "ul", "ol", "dd", "dt", "section", "article"}
    _HIDDEN = {"script", "style", "head", "title"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in self._HIDDEN:
            self.hidden += 1
        elif tag in self._BLOCKS:
            self.out.append("\n")

    def handle_endtag(self, tag):
        if tag in self._HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in self._BLOCKS:
            self.out.append("\n")

    def handle_data(self, data):
        if not self.hidden:
            self.out.append(data)


def html_to_text(html: str) -> str:
    """Visible text of an HTML body: tags dropped, entities decoded, one line per block.

    Args:
        html: an HTML document or fragment.
    Returns:
        Plain text with blank runs collapsed; never raises on bad markup.
    """
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.out).splitlines())
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _text_parts(part: Message) -> Iterator[Message]:
    """Leaf parts of a message, in order, not descending into attachments."""
    if part.get_content_disposition() == "attachment":
        return
    if part.is_multipart():
        for sub in part.get_payload():
            yield from _text_parts(sub)
    elif part.get_content_maintype() == "text":
        yield part


def _body(msg: Message) -> str:
    """The message's text: its text/plain parts, else its text/html parts as text."""
    plain: list[str] = []
    html: list[str] = []
    for part in _text_parts(msg):
        payload = part.get_payload(decode=True)
        if not payload:
            continue
        text = decode_bytes(payload, part.get_content_charset())
        if part.get_content_subtype() == "html":
            html.append(text)
        elif part.get_content_subtype() == "plain":
            plain.append(text)
    if plain:
        return "\n".join(plain)
    return "\n\n".join(html_to_text(h) for h in html)


# --------------------------------------------------------------------------- one message

def _parse_date(value: str) -> datetime | None:
    """An RFC 5322 date as tz-aware UTC, or None when it cannot be read."""
    try:
        dt = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if dt is None:
        return None
    if dt.tzinfo is None:  # "-0000": the time is UTC, the sender's zone unknown (RFC 5322 §3.3)
        dt = dt.replace(tzinfo=timezone.utc)
    try:
        dt = dt.astimezone(timezone.utc)
    except (OverflowError, ValueError):
        return None
    return None if dt.timestamp() == 0 else dt  # the 1970 epoch is an unset clock, not a date


def _parties(values: list[str], role: str) -> list[Party]:
    """Parties from address headers (not yet RFC 2047-decoded, so encoded commas stay inside names)."""
    parties = []
    for name, address in getaddresses(values):
        name, address = decode_header_value(name), address.strip()
        if address and "@" not in address and not name:  # "From: Whomever": a name, no address
            name, address = address, ""
        if name or address:
            parties.append(Party(name or None, address or None, "email", role))
    return parties


def normalise_subject(subject: str | None) -> str | None:
    """A thread key from a subject: reply/forward prefixes dropped, spaces collapsed, case folded.

    Returns None for an empty subject.
    """
    if not subject:
        return None
    key = " ".join(_REPLY_PREFIX.sub("", subject).split()).casefold()
    return key or None


def _msg_ids(value: str | None) -> list[str]:
    if not value:
        return []
    return _MSGID.findall(value) or value.split()[:1]


def message_to_record(raw: bytes, path: Path, index: int, mbox_from: str | None = None) -> Record:
    """Turn one message's bytes into a Record.

    Args:
        raw: the message (headers and body), without any mbox ``From_`` line.
        path: the file it came from; index: its 1-based position in that file.
        mbox_from: the mbox ``From_`` line (decoded), kept in ``attrs``.

    Returns:
        A Record of kind ``"email"``: ``external_id`` the Message-ID (or ``"#<index>"``),
        ``text`` the decoded body (line endings ``\\n``, at most :data:`MAX_TEXT` chars),
        ``sent_at`` tz-aware UTC or None, ``thread`` the References root, else the
        In-Reply-To, else the Message-ID itself (so a first message and its replies
        share a key), else the normalised subject.

    Raises:
        Exception: whatever the parser raises on a message it cannot handle (the
        callers turn it into a :class:`RecordError`).
    """
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    headers: dict[str, list[str]] = {}
    for name, value in msg.raw_items():
        headers.setdefault(name.lower(), []).append(value)

    def first(name: str) -> str | None:
        values = headers.get(name)
        return decode_header_value(values[0]) if values else None

    def undecoded(name: str) -> list[str]:  # 8-bit made text, RFC 2047 words left for later
        return [decode_bytes(v.encode("utf-8", "surrogateescape"), None) for v in headers.get(name, [])]

    notes: list[str] = []
    subject = first("subject")
    message_id = first("message-id")
    date_value = first("date")
    sent_at = _parse_date(date_value) if date_value else None
    if date_value is None:
        notes.append("no Date header: time unknown")
    elif sent_at is None:
        notes.append(f"Date header unparseable: {date_value!r}")

    senders = _parties(undecoded("from") or undecoded("sender"), "from")
    recipients = _parties(undecoded("to"), "to") + _parties(undecoded("cc"), "cc")

    text = _body(msg).replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        notes.append("no readable text body")
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT]
        notes.append(f"body trimmed to {MAX_TEXT} characters")

    references, in_reply_to = _msg_ids(first("references")), _msg_ids(first("in-reply-to"))
    thread_subject = normalise_subject(subject)
    thread = (references or in_reply_to or _msg_ids(message_id) or [thread_subject])[0]

    attrs: dict = {"index": index, "content_type": msg.get_content_type()}
    for key, value in (("message_id", message_id), ("list_id", first("list-id")),
                       ("in_reply_to", first("in-reply-to")), ("mbox_from", mbox_from),
                       ("thread_subject", thread_subject), ("gmail_labels", first("x-gmail-labels"))):
        if value:
            attrs[key] = value
    if references:
        attrs["references"] = references

    return Record(
        source_path=str(path.absolute()),
        external_id=message_id or f"#{index}",
        kind="email",
        text=text,
        sent_at=sent_at,
        sender=senders[0] if senders else None,
        recipients=recipients,
        subject=subject,
        thread=thread,
        attrs=attrs,
        notes=notes,
    )


def _safe_record(raw: bytes, path: Path, index: int, mbox_from: str | None = None) -> Item:
    """The message's Record, or a RecordError when this one message cannot be read."""
    try:
        return message_to_record(raw, path, index, mbox_from)
    except Exception as exc:  # one bad message must not cost its neighbours
        return RecordError(str(path), f"message {index}", f"{type(exc).__name__}: {exc}")


def _open(path: Path) -> BinaryIO:
    try:
        return open(path, "rb")
    except OSError as exc:
        raise InputError(str(path), f"cannot open: {exc.strerror or exc}") from exc


def _looks_like_headers(head: bytes) -> float:
    """0.0–0.8: how much the start of ``head`` looks like RFC 822 header lines."""
    lines = head.lstrip(b"\r\n").splitlines()
    if not lines or not _HEADER_LINE.match(lines[0]):
        return 0.0
    known = 0
    for line in lines[:40]:
        if not line.strip():
            break
        match = _HEADER_LINE.match(line)
        if match:
            known += match.group(1).lower() in _KNOWN_HEADERS
        elif line[:1] not in (b" ", b"\t"):
            return 0.1  # a line that is neither a header nor a continuation
    return 0.8 if known >= 2 else 0.4 if known == 1 else 0.1


# --------------------------------------------------------------------------- the ingestors

def _split_mbox(fh: BinaryIO) -> Iterator[tuple[bytes, bytes]]:
    """Yield ``(from_line, message_bytes)`` for each message of an open mbox file.

    A message starts at a line beginning ``From `` at the top of the file or after a
    blank line.  The blank line before the next ``From_`` line is dropped, and
    ``^>+From `` lines lose one ``>`` (mboxrd un-quoting).
    """
    from_line: bytes | None = None
    lines: list[bytes] = []
    previous_blank = True

    def finish() -> tuple[bytes, bytes]:
        if lines and not lines[-1].strip():
            lines.pop()  # the separator before the next From_ line
        return from_line, _MBOXRD_QUOTED.sub(rb"\1", b"".join(lines))

    for line in fh:
        if previous_blank and line.startswith(b"From "):
            if from_line is not None:
                yield finish()
            from_line, lines = line, []
        else:
            lines.append(line)
        previous_blank = not line.strip()
    if from_line is not None:
        yield finish()


class MboxIngestor:
    """Reads an mbox file (mboxo or mboxrd): one Record per message, in file order."""

    name = "mbox"
    suffixes = frozenset({".mbox", ".mbx"})

    def sniff(self, path: Path, head: bytes) -> float:
        """0.9 when ``head`` starts with an mbox ``From_`` line with a time in it, 0.6 without one, else 0."""
        head = head.lstrip(b"\r\n")
        if not head.startswith(b"From "):
            return 0.0
        first = head.split(b"\n", 1)[0]
        return 0.9 if re.search(rb"\d\d:\d\d", first) else 0.6

    def read(self, path: Path) -> Iterator[Item]:
        """Yield one Record per message, or a RecordError for a message that cannot be parsed.

        Args:
            path: the mbox file.  An empty file is an empty mailbox (yields nothing).
        Raises:
            InputError: the file cannot be opened, or does not start with a ``From `` line.
        """
        path = Path(path)
        with _open(path) as fh:
            head = fh.read(4096)
            start = len(head) - len(head.lstrip(b"\r\n"))
            if not head[start:]:
                return
            if not head[start:].startswith(b"From "):
                raise InputError(str(path), "not an mbox file: it does not start with a 'From ' line")
            fh.seek(start)
            for index, (from_line, raw) in enumerate(_split_mbox(fh), 1):
                envelope = decode_bytes(from_line, None).strip()
                yield _safe_record(raw, path, index, envelope)


class EmlIngestor:
    """Reads one RFC 822 message (``.eml``): one Record."""

    name = "eml"
    suffixes = frozenset({".eml"})

    def sniff(self, path: Path, head: bytes) -> float:
        """Up to 0.8 when ``head`` starts with RFC 822 header lines (two or more well-known names)."""
        return _looks_like_headers(head)

    def read(self, path: Path) -> Iterator[Item]:
        """Yield the message's Record (or a RecordError when the parser fails on it).

        A leading mbox-style ``From `` line is skipped.

        Raises:
            InputError: the file cannot be opened, or does not start with mail headers.
        """
        path = Path(path)
        with _open(path) as fh:
            raw = fh.read()
        raw = raw.lstrip(b"\r\n")
        if raw.startswith(b"From "):
            raw = raw.split(b"\n", 1)[1] if b"\n" in raw else b""
        if not _HEADER_LINE.match(raw):
            raise InputError(str(path), "not an email message: it does not start with mail headers")
        yield _safe_record(raw, path, 1)

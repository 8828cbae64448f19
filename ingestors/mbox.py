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
* **Splitting an mbox** (:func:`split_mbox`): a ``From `` line separates messages
  only when it has the envelope shape (an address, then a date) and header lines
  follow it, so the unquoted ``From what I remember…`` lines that mboxo writers leave
  in bodies stay in their message (Python's :mod:`mailbox` splits on every one); inside a
  multipart whose closing boundary has not come, not even then (an attached patch or mbox).  A
  file whose first message has no envelope line is read from its headers.  One
  message is held in memory at a time; one over :data:`MAX_MESSAGE_BYTES` is left out
  with a :class:`RecordError` and the rest of the file is read.  A ``Content-Length`` header (mboxcl/mboxcl2,
  which never quote ``From ``) ends the body when an envelope line or the file's end comes right after it;
  MMDF mailboxes (``\x01\x01\x01\x01`` lines, :func:`split_mmdf`) and bare-CR line ends (classic Mac OS)
  are read too.
* **mboxrd un-quoting**: in an mbox, a body line matching ``^>+From `` loses
  exactly one ``>`` (Python's :mod:`mailbox` leaves them as they are).  This is
  right for mboxrd files and for the usual case in mboxo files (where the
  writer quoted ``From `` as ``>From ``); ``> From`` and ``>F`` are untouched.
* **Lotus Notes forwards** (``----- Forwarded by Ann Lee/Acme on … -----``, the sender and time on lines of
  their own, the To/cc/Subject labels alone on a line) are read as a forward under Gmail's separator
  (:func:`notes_forward`).
* **Google Talk chats** Gmail kept as mail ("Chat with Ann Lee": a ``text/xml`` conversation part) are each
  person's chat messages (:func:`gtalk_records`), not one mail of the other person's.
* **Whose words**: a forwarded ``message/rfc822`` part, or a message forwarded inline in the
  text under a forward separator, is its own Record, attributed to its own sender, never the
  forwarding person's text; so is the message a reply quotes below the replier's own lines (under ``On …
  Ann <ann@…> wrote:`` or Outlook's header block: ``attrs["quoted_in"]``); an empty text/plain next to
  HTML, or a multipart whose declared boundary is not in its body, falls back to the
  parts that do have text (:func:`body_of`).
* **Who**: an unquoted ``Lee, Ann <ann@…>`` is one sender; ``Ann via Hiking Club <club@googlegroups.com>`` came
  through that group (``attrs["via_list"]``); ``Jane Doe via DocuSign <dse@docusign.net>`` (or ``(via Google
  Docs)``) is Jane, by name, the service's address kept in ``attrs["sent_via"]``, not as hers; a web form's
  ``Website <noreply@…>`` with ``Reply-To: Ann Lee <ann@…>`` is from Ann (:func:`_form_author`).
* **Dates** become tz-aware at the sender's own offset (``Date: … +1000`` stays +10:00, so
  "yesterday" is read in the sender's calendar; ``-0000`` is UTC); a ``Date`` that is not RFC 5322 (``1999/01/31``)
  is read leniently, and a missing or unreadable one falls back to the earliest ``Received:`` date
  (``attrs["date_source"] = "received"``), else the mbox ``From_`` line's time (``"envelope"``), with a note; with
  neither, ``sent_at=None`` and a note, never "now" or 1970.  12-hour times (``9:05 PM``) and
  ``+01:00`` offsets are read; an offset no zone has (``+2500``) is UTC, noted; a Date in the future
  is a wrong clock (``attrs["date_suspect"]``: the envelope line's time when there is one).
* **Before the headers**: a UTF-8 byte-order mark, blank lines and Outlook's ``Microsoft Mail Internet
  Headers`` line are skipped; an Outlook ``.msg`` file is refused saying what it is.
"""
from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from email import policy
from email.header import decode_header
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import getaddresses, parsedate_to_datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import BinaryIO, Iterator

import ingestors.charsets  # noqa: F401  (registers the kith-iso2022jp, kith-eucjp, kith-big5 codecs)
from core.errors import InputError
from core.extraction.quoted import (HEADER_NAMES, InlineForward, bare_subject, split_header_block_forward,
                                   split_inline_forward, split_reply_quote)
from ingestors.base import Item, Party, Record, RecordError

MAX_TEXT = 100_000  # characters of body text kept per message
MIB = 1 << 20
MAX_MESSAGE_BYTES = 64 * MIB  # one message over this is left out (Gmail's limit is 25 MB of attachments)
PARSE_BODY_BYTES = MIB  # each MIME part is parsed up to this many bytes (MAX_TEXT chars fit in it)
LINE_CHUNK = 1 << 16  # a line is read in pieces of at most this many bytes
SNIFF_BYTES = 4096

_HEADER_LINE = re.compile(rb"^([\x21-\x39\x3b-\x7e]+):")  # RFC 5322 field name, then ':'
_MBOXRD_QUOTED = re.compile(rb"^>(>*From )", re.MULTILINE)
_CONTENT_LENGTH = re.compile(rb"^Content-Length:[ \t]*(\d{1,12})[ \t]*\r?$", re.MULTILINE | re.IGNORECASE)
_HEADER_END = re.compile(rb"\r?\n\r?\n|^\r?\n")  # the blank line between a message's headers and its body
_KNOWN_HEADERS = {
    b"from", b"to", b"cc", b"subject", b"date", b"message-id", b"received", b"return-path",
    b"mime-version", b"content-type", b"delivered-to", b"reply-to", b"in-reply-to", b"references",
    b"x-mailer", b"sender", b"content-transfer-encoding", b"list-id",
    # what a relay or a mail program puts first, above From and Date (Gmail's "Show original", Thunderbird)
    b"arc-seal", b"arc-message-signature", b"arc-authentication-results", b"dkim-signature",
    b"authentication-results", b"received-spf", b"x-received", b"x-google-smtp-source", b"x-gm-message-state",
    b"x-gmail-labels", b"x-gm-thrid", b"x-mozilla-status", b"x-mozilla-status2", b"x-mozilla-keys",
    b"x-account-key", b"x-uidl", b"thread-topic", b"thread-index", b"x-ms-exchange-organization-authas",
}
_ONE_WORD_HEADERS = {  # one-word names mail and news programs may write first after an envelope line
    b"status", b"path", b"xref", b"newsgroups", b"organization", b"precedence", b"importance", b"keywords",
    b"comments", b"priority", b"sensitivity", b"lines", b"bcc", b"encrypted", b"envelope",
}
# Labels mail software writes that Python's codecs read too narrowly (WHATWG's choices).
_CHARSET_ALIASES = {
    "gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030", "gb_2312-80": "gb18030",
    "iso-8859-1": "cp1252", "iso8859-1": "cp1252", "latin1": "cp1252", "latin-1": "cp1252",
    "us-ascii": "", "ascii": "", "ks_c_5601-1987": "cp949", "euc-kr": "cp949",
    "shift_jis": "cp932", "x-sjis": "cp932", "iso-8859-8-i": "iso-8859-8", "tis-620": "cp874",
    "x-unknown": "", "unknown-8bit": "", "x-user-defined": "", "ansi_x3.4-1968": "", "iso-ir-6": "", "us": "",
    "windows-31j": "cp932", "windows-949": "cp949", "unicode-1-1-utf-7": "utf-7",
    # Microsoft's CP50221 and Big5's two supersets, sent under the plain labels (ingestors.charsets)
    "iso-2022-jp": "kith-iso2022jp", "csiso2022jp": "kith-iso2022jp", "big5": "kith-big5", "big5-hkscs": "kith-big5",
    "cn-big5": "kith-big5", "x-x-big5": "kith-big5", "csbig5": "kith-big5", "cp950": "kith-big5",
    "windows-950": "kith-big5", "euc-jp": "kith-eucjp", "x-euc-jp": "kith-eucjp", "cseucpkdfmtjapanese": "kith-eucjp",
}  # "" = no usable label: try UTF-8, then Windows-1252 (8-bit bytes under "us-ascii" are a lie)
_MSGID = re.compile(r"<[^<>\s]+>")


# --------------------------------------------------------------------------- decoding helpers

def _codec(charset: str | None) -> str | None:
    """The Python codec for a MIME charset label, or None when unknown or empty (or a label that says nothing, such
    as ``us-ascii`` on 8-bit text).  Vendor spellings are read too: ``x-mac-roman``, ``x-cp1251``, ``cp-1253``,
    ``windows-874``, ``windows-31j``."""
    if not charset:
        return None
    label = charset.strip().strip('"').lower().split("*", 1)[0]  # RFC 2231 "utf-8*en"
    bare = re.sub(r"^x-", "", label)
    # vendor spellings: "x-mac-roman", "x-cp1251", "cp-1253", "windows-874", "x-windows-949"
    for name in dict.fromkeys((label, bare, re.sub(r"^(?:cp|windows)-?(\d{3,4})$", r"cp\1", bare))):
        name = _CHARSET_ALIASES.get(name, name)
        if not name:
            return None
        try:
            return codecs.lookup(name).name
        except LookupError:
            continue
    return None


_ONE_BYTE_CODECS = ("cp125", "iso8859-", "latin", "koi8", "mac-", "cp437", "cp850", "cp852", "cp866", "cp874")
"""Python codec names (as ``codecs.lookup`` gives them) of charsets with one byte per character: text in them
is almost never valid UTF-8 with non-ASCII characters, so bytes that are were mislabelled."""


def decode_bytes(data: bytes, charset: str | None) -> str:
    """Decode mail bytes to text, never raising.

    Args:
        data: the raw bytes of a header or body part.
        charset: the declared MIME charset (``"iso-8859-1"``, ``"gb2312"``...), or None.

    Returns:
        The text: as UTF-8 when the declared charset is a one-byte-per-character one
        (``iso-8859-1``, ``windows-1252``, ``koi8-r``…) but the bytes are valid UTF-8 with
        characters beyond ASCII (a client that labelled UTF-8 text with its default: ``GrÃ¼ÃŸe``
        would be wrong); else decoded with the declared charset when it reads cleanly, else as
        UTF-8 when that reads cleanly; else, when the label is UTF-8 or none, as UTF-8
        with the bytes that are not UTF-8 read as Windows-1252 when they are letters
        or punctuation within words (Latin-1 text sent as "utf-8": ``Gr\\xfc\\xdfe`` →
        ``Grüße``); else with the declared charset (or Windows-1252 when none is
        known) replacing unreadable bytes with U+FFFD.
    """
    codec = _codec(charset)
    if codec and codec.startswith(_ONE_BYTE_CODECS) and not data.isascii():
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    for name in filter(None, (codec, "utf-8")):
        try:
            return data.decode(name)
        except (UnicodeDecodeError, LookupError):
            pass
    if codec in (None, "utf-8"):  # a "utf-8" label on Latin-1/Windows-1252 text (or 8-bit bytes in UTF-8 text)
        try:
            return data.decode("utf-8", _CP1252_IN_WORDS)
        except UnicodeDecodeError:
            pass
    try:
        return data.decode(codec or "cp1252", "replace")
    except LookupError:  # a label Python knows only as a non-text codec
        return data.decode("cp1252", "replace")


def _cp1252_in_words(err: UnicodeError) -> tuple[str, int]:
    """Codec error handler: bytes that are not UTF-8 read as Windows-1252, when they are text within words.

    Each byte must be a printable Windows-1252 character (not a C1 control, not one of the five undefined
    bytes) next to a letter or another 8-bit byte (``Gr\\xfc\\xdfe``, ``caf\\xe9``); otherwise ``err`` is
    raised again, so the caller falls back to replacing (a lone ``\\xff`` is noise, not a letter).
    """
    if not isinstance(err, UnicodeDecodeError):
        raise err
    data = err.object
    out = []
    for i in range(err.start, err.end):
        try:
            ch = data[i:i + 1].decode("cp1252")
        except UnicodeDecodeError:
            raise err from None
        near = [data[j] for j in (i - 1, i + 1) if 0 <= j < len(data)]
        if not ch.isprintable() or not any(b >= 0x80 or chr(b).isalpha() for b in near):
            raise err
        out.append(ch)
    return "".join(out), err.end


_CP1252_IN_WORDS = "kith-cp1252-in-words"
codecs.register_error(_CP1252_IN_WORDS, _cp1252_in_words)


def _unescape(chunk: bytes) -> str:
    """Undo ``decode_header``'s raw-unicode-escape of unencoded text (a stray backslash: keep bytes)."""
    try:
        return chunk.decode("raw-unicode-escape")
    except UnicodeDecodeError:
        return chunk.decode("latin-1")


_LOOSE_WORD = re.compile(r"=\?([A-Za-z0-9._:-]+)(?:\*[A-Za-z-]+)?\?([BbQq])\?([^?\s]+)(?:\?=|\?(?=\s|$)|(?=\s|$))")


def _loose_word(m: re.Match) -> str:
    """An encoded-word the standard library left as it was (its ``?=`` missing or cut, a space inside it
    written as ``_``…), decoded when its payload decodes; else the text as written."""
    import base64
    import binascii
    import quopri

    charset, kind, payload = m.groups()
    try:
        if kind in "Bb":
            data = base64.b64decode(payload + "=" * (-len(payload) % 4), validate=True)
        else:
            data = quopri.decodestring(payload.replace("_", " ").encode("ascii"), header=True)
    except (binascii.Error, ValueError, UnicodeEncodeError):
        return m.group(0)
    if _codec(charset) is None and charset.strip().lower() not in _CHARSET_ALIASES:
        return m.group(0)
    return decode_bytes(data, charset)


_ISO2022 = re.compile(r"\x1b[$(][@A-Z]")  # an ISO-2022 escape sequence (ISO-2022-JP headers written raw)


def raw_header_text(raw: str, hint: str | None = None) -> str:
    """A header value's raw bytes as text, RFC 2047 words left as they are: ISO-2022-JP escape sequences (old
    Japanese mailers wrote them unencoded) decoded; raw 8-bit bytes as UTF-8 when they are, else in ``hint`` (the
    message's body charset: a Shift_JIS or KOI8-R mailer writes its headers in it too), else Windows-1252.

    Args:
        raw: the value as the parser keeps it (8-bit bytes as surrogate escapes).
        hint: a MIME charset label, or None.
    """
    if _ISO2022.search(raw):
        for codec in ("kith-iso2022jp", "iso2022_jp_2"):
            try:
                return raw.encode("ascii").decode(codec)
            except (UnicodeError, LookupError):
                pass
    if not any("\udc80" <= ch <= "\udcff" for ch in raw):
        return raw
    data = raw.encode("utf-8", "surrogateescape")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return decode_bytes(data, hint if _codec(hint) else None)


def decode_header_value(raw: str, hint: str | None = None) -> str:
    """Decode one raw header value to plain text.

    Args:
        raw: the value as stored by the parser: maybe folded, maybe with raw
            8-bit bytes (carried as surrogate escapes) or ISO-2022-JP, maybe RFC 2047 words.
        hint: the message's body charset, for raw 8-bit bytes that are not UTF-8 (:func:`raw_header_text`).

    Returns:
        A str with control characters and whitespace runs made single spaces; an encoded-word whose
        ``?=`` is missing (cut by a client) is decoded too.  Never raises.
    """
    text = raw_header_text(raw, hint)
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
        if "=?" in text:
            text = _LOOSE_WORD.sub(_loose_word, text)
    return " ".join("".join(ch if ch >= " " and ch != "\x7f" else " " for ch in text).split())


class _HTMLText(HTMLParser):
    """Collect the visible text of an HTML document, one line per block; table cells apart; quotes marked."""

    _BLOCKS = {"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table",
               "pre", "hr", "ul", "ol", "dd", "dt", "section", "article"}
    _HIDDEN = {"script", "style", "head", "title"}
    QUOTE_IN, QUOTE_OUT = "\x01", "\x02"  # a blockquote opens / closes (on a line of its own)

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in self._HIDDEN:
            self.hidden += 1
        elif tag == "blockquote":
            self.out.append(f"\n{self.QUOTE_IN}\n")
        elif tag in ("td", "th"):
            self.out.append(" ")
        elif tag in self._BLOCKS:
            self.out.append("\n")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)  # <br/>: a line break, never an open element

    def handle_endtag(self, tag):
        if tag in self._HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag == "blockquote":
            self.out.append(f"\n{self.QUOTE_OUT}\n")
        elif tag in ("td", "th"):
            self.out.append(" ")
        elif tag in self._BLOCKS:
            self.out.append("\n")

    def handle_data(self, data):
        if not self.hidden:
            self.out.append(data.replace(self.QUOTE_IN, "").replace(self.QUOTE_OUT, ""))


def html_to_text(html: str) -> str:
    """Visible text of an HTML body: tags dropped, entities decoded, one line per block.

    Args:
        html: an HTML document or fragment.
    Returns:
        Plain text with blank runs collapsed; table cells of a row on one line, apart; the lines of a
        ``<blockquote>`` (a quoted reply) start ``"> "`` (``"> > "`` nested), as a plain-text reply
        quotes.  Never raises on bad markup.
    """
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    lines, depth = [], 0
    for line in "".join(parser.out).splitlines():
        if line == _HTMLText.QUOTE_IN:
            depth += 1
        elif line == _HTMLText.QUOTE_OUT:
            depth = max(0, depth - 1)
        else:
            line = " ".join(line.split())
            lines.append("> " * depth + line if line and depth else line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


# --------------------------------------------------------------------------- parsing


class _ParsedMessage(EmailMessage):
    """An :class:`~email.message.EmailMessage` that parses each header once.

    ``policy.default`` turns a header's raw value into a structured header object on *every* ``get``; reading
    one message asks for ``Content-Type`` about nine times (type, main type, subtype, charset, the payload's
    decoding, the multipart walk), which was a third of ``kith ingest --defer``'s time on mail.  Fetched
    values are kept per header name and dropped whenever a header changes.
    """

    _MISSING = object()

    def get(self, name, failobj=None):
        cache = self.__dict__.setdefault("_kith_got", {})
        key = name.lower()
        if key not in cache:
            cache[key] = super().get(name, self._MISSING)
        got = cache[key]
        return failobj if got is self._MISSING else got

    def _changed(self):
        self.__dict__.pop("_kith_got", None)

    def set_raw(self, name, value):
        self._changed()
        super().set_raw(name, value)

    def __setitem__(self, name, val):
        self._changed()
        super().__setitem__(name, val)

    def __delitem__(self, name):
        self._changed()
        super().__delitem__(name)

    def replace_header(self, _name, _value):
        self._changed()
        super().replace_header(_name, _value)

    def set_boundary(self, boundary):
        self._changed()
        super().set_boundary(boundary)

    def set_param(self, *args, **kwargs):
        self._changed()
        super().set_param(*args, **kwargs)

    def del_param(self, *args, **kwargs):
        self._changed()
        super().del_param(*args, **kwargs)


POLICY = policy.default.clone(message_factory=_ParsedMessage)
"""``policy.default`` with messages that parse each header once (:class:`_ParsedMessage`)."""


# --------------------------------------------------------------------------- bodies

_BOUNDARY_LINE = re.compile(rb"^--([^\s]{1,70}?)(--)?[ \t]*\r?$", re.MULTILINE)


_META_CHARSET = re.compile(rb"""<meta\b[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]{2,40})""", re.I)


_BASE64_BODY = re.compile(r"[A-Za-z0-9+/=\s]*")


def _text_payload(part: Message) -> bytes:
    """A text part's bytes, its transfer encoding undone: as the standard library does, except that a
    ``Content-Transfer-Encoding`` written with spaces or another case (``Base64 ``) is still honoured, and a body
    labelled base64 that is not (plain words: spaces, punctuation) is taken as it is written instead of being
    decoded into noise, and one cut short inside a group of four characters gives the bytes of its whole groups."""
    cte = str(part.get("content-transfer-encoding") or "").strip().lower()
    raw = part.get_payload(decode=False)
    if cte in ("base64", "quoted-printable") and isinstance(raw, str):
        import base64
        import binascii
        import quopri

        data = raw.encode("utf-8", "surrogateescape")
        if cte == "quoted-printable":
            return quopri.decodestring(data)
        if not _BASE64_BODY.fullmatch(raw):
            return data  # labelled base64, written as text
        try:
            return binascii.a2b_base64(data)
        except binascii.Error:
            compact = re.sub(rb"\s+", b"", data)
            try:
                return base64.b64decode(compact + b"=" * (-len(compact) % 4))
            except binascii.Error:
                pass
            try:  # a body cut short inside a 4-character group (a mailbox cut short): its whole groups
                return base64.b64decode(compact[:len(compact) - len(compact) % 4])
            except binascii.Error:
                return part.get_payload(decode=True) or b""
    return part.get_payload(decode=True) or b""


_HTML_DOCUMENT = re.compile(r"\A\s*(?:<!doctype\s+html\b|<html\b|<head\b[^>]*>.*?</head>\s*<body\b)", re.I | re.S)


def _leaf_text(part: Message) -> str:
    """A text/plain part decoded, or a text/html part as visible text ('' for empty or other types); an HTML
    part without a usable charset label is decoded with its ``<meta charset>`` (or ``http-equiv``) one; a text/plain
    part that is a whole HTML document (``<!DOCTYPE html>``, ``<html>``: mislabelled by its mailer) is read as
    HTML."""
    if part.get_content_type() not in ("text/plain", "text/html"):
        return ""
    payload = _text_payload(part)
    if not payload:
        return ""
    charset = part.get_content_charset()
    html = part.get_content_subtype() == "html"
    if html and not _codec(charset):  # no usable label on the part: the page's own <meta charset>
        meta = _META_CHARSET.search(payload[:4096])
        charset = meta.group(1).decode("ascii") if meta else charset
    text = decode_bytes(payload, charset)
    if html or _HTML_DOCUMENT.match(text):  # an HTML page sent as text/plain (or with no Content-Type) is HTML
        return html_to_text(text)
    if str(part.get_param("format") or "").strip().lower() == "flowed":
        return unflow(text, str(part.get_param("delsp") or "").strip().lower() == "yes")
    return text


def unflow(text: str, delsp: bool = False) -> str:
    """A ``format=flowed`` text/plain body (RFC 3676) with its soft line breaks undone.

    Args:
        text: the decoded body; delsp: the part's ``delsp=yes`` (the space before each soft break was added by
            the writer and goes, so a word split across lines is whole again).
    Returns:
        One line per paragraph: a line ending in a space (a soft break) runs on into the next line of the same
        quote depth; space-stuffing is undone; quoted paragraphs start ``"> "`` per depth; the signature
        separator ``"-- "`` stays a line of its own.
    """
    out: list[str] = []
    para: list[str] = []
    depth_of_para = -1

    def flush() -> None:
        nonlocal para, depth_of_para
        if depth_of_para >= 0:
            out.append("> " * depth_of_para + "".join(para) if depth_of_para else "".join(para))
        para, depth_of_para = [], -1

    for line in text.replace("\r\n", "\n").split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        content = content[1:] if content.startswith(" ") else content  # space-stuffing (or "> " after quotes)
        if depth != depth_of_para:
            flush()
        if content == "-- ":
            flush()
            out.append("> " * depth + content if depth else content)
            continue
        soft = content.endswith(" ")
        para.append(content[:-1] if soft and delsp else content)
        depth_of_para = depth
        if not soft:
            flush()
    flush()
    return "\n".join(out)


def _repair_multipart(part: Message) -> Message | None:
    """Re-read a multipart whose declared boundary is not in its body with the boundary that is.

    The boundary used is the ``--token`` line that occurs most often (at least twice, or once
    closed as ``--token--``).  Returns the re-parsed multipart, or None when the body has none.
    """
    body = part.get_payload(decode=False)
    data = body.encode("utf-8", "surrogateescape") if isinstance(body, str) else bytes(body or b"")
    counts: dict[bytes, int] = {}
    closed: set[bytes] = set()
    for m in _BOUNDARY_LINE.finditer(data):
        counts[m.group(1)] = counts.get(m.group(1), 0) + 1
        if m.group(2):
            closed.add(m.group(1))
    usable = [t for t, n in counts.items() if n >= 2 or t in closed]
    if not usable:
        return None
    token = max(usable, key=lambda t: (counts[t], t in closed))
    header = (f"Content-Type: {part.get_content_type()}; boundary=\"{token.decode('latin-1')}\"\n"
              f"MIME-Version: 1.0\n\n").encode("latin-1")
    fixed = BytesParser(policy=POLICY).parsebytes(header + data)
    return fixed if isinstance(fixed.get_payload(), list) else None


def attached_message(part: Message) -> Message | None:
    """The message a part carries, or None: a ``message/rfc822`` part (its body decoded first when a client
    base64- or quoted-printable-encoded it, which RFC 2046 forbids but Outlook does), or an attached ``.eml`` file
    sent as ``application/octet-stream`` whose content starts with mail headers."""
    import binascii

    ctype = part.get_content_type()
    cte = str(part.get("content-transfer-encoding") or "").strip().lower()
    if ctype == "message/rfc822":
        inner = part.get_payload()
        inner = inner[0] if isinstance(inner, list) and inner else inner
        if not isinstance(inner, Message):
            return None
        if cte not in ("base64", "quoted-printable"):
            return inner
        import base64
        import quopri

        raw = inner.as_bytes().lstrip(b"\r\n") if inner.keys() else str(inner.get_payload()).encode("latin-1",
                                                                                                     "replace")
        try:
            data = base64.b64decode(raw) if cte == "base64" else quopri.decodestring(raw)
        except (binascii.Error, ValueError):
            return inner
        return BytesParser(policy=POLICY).parsebytes(_skip_preamble(data))
    if ctype in ("application/octet-stream", "application/x-eml", "message/x-eml") and \
            (part.get_filename() or "").lower().endswith(".eml"):
        data = part.get_payload(decode=True) or b""
        if _looks_like_headers(data[:SNIFF_BYTES]) >= 0.4:
            return BytesParser(policy=POLICY).parsebytes(_skip_preamble(data))
    return None


def _walk(part: Message, forwarded: list[Message], notes: list[str]) -> str:
    """The sender's own text in ``part``; forwarded messages (:func:`attached_message`) go to ``forwarded``."""
    ctype = part.get_content_type()
    inner = attached_message(part) if ctype == "message/rfc822" or part.get_filename() else None
    if inner is not None or ctype == "message/rfc822":
        if inner is not None:
            forwarded.append(inner)
        return ""
    if part.get_content_maintype() == "multipart":
        subs = part.get_payload()
        if not isinstance(subs, list):  # the declared boundary is not in the body
            fixed = _repair_multipart(part)
            if fixed is None:
                notes.append("multipart without its boundary: body read as plain text")
                raw = part.get_payload(decode=True) or b""
                return decode_bytes(raw, part.get_content_charset())
            notes.append("multipart boundary did not match its parts: read with the boundary found in the body")
            subs = fixed.get_payload()
        if part.get_content_subtype() == "alternative":
            texts = [(sub, _walk(sub, forwarded, notes)) for sub in subs]
            plain = [t for sub, t in texts if sub.get_content_type() == "text/plain" and t.strip()]
            rich = [t for _, t in texts if t.strip()]  # an empty text/plain next to HTML: the HTML
            if plain and rich and rich[-1] is not plain[0] and _is_stub(plain[0], rich[-1]):
                notes.append("the text/plain part is not the message (a placeholder such as 'view this mail in "
                             "HTML'): the HTML part read instead")
                return rich[-1]
            return plain[0] if plain else rich[-1] if rich else ""
        texts = [_walk(sub, forwarded, notes) for sub in subs
                 if sub.get_content_disposition() != "attachment" or sub.get_content_type() == "message/rfc822"
                 or (sub.get_filename() or "").lower().endswith(".eml")]
        return "\n".join(t for t in texts if t.strip())
    if part.get_content_disposition() == "attachment":
        return ""
    return _leaf_text(part)


def _is_stub(plain: str, rich: str) -> bool:
    """True when ``plain``, a multipart/alternative's text/plain part, does not render ``rich`` (its HTML as
    text): fewer than half of the plain part's words are among the HTML's, and the HTML has more words or the plain
    part speaks of HTML, a browser or a mail program (:data:`_PLACEHOLDER`: "This email requires an HTML viewer",
    "This is an HTML message. Please use an HTML capable mail program…" above a one-line HTML reply)."""
    words = re.findall(r"\w+", plain.casefold())
    rich_words = re.findall(r"\w+", rich.casefold())
    if not rich_words or (len(rich_words) <= len(words) and not _PLACEHOLDER.search(plain)):
        return False  # a short HTML part loses to its plain part unless that says it is a stand-in for it
    known = set(rich_words)
    return sum(w in known for w in words) * 2 < len(words)


_PLACEHOLDER = re.compile(r"\b(?:html|browser|viewer|mail (?:program|client|reader)|plain[- ]text version)\b", re.I)
"""Words a text/plain stand-in for an HTML part uses ("This is an HTML message. Please use an HTML capable mail
program…"), which then wins even when the HTML says less than it."""


def _any_text(part: Message) -> str:
    """Every text/plain or text/html leaf with text, attachments included: the last resort for a body."""
    texts = []
    for leaf in part.walk():
        if leaf.get_content_type() == "message/rfc822":
            break
        if not leaf.is_multipart():
            t = _leaf_text(leaf)
            if t.strip():
                texts.append(t)
    return "\n".join(texts)


_NAME_PARAM = re.compile(r"""\b(?:file)?name\s*=\s*(?:"([^"]*)"|([^;\s]+))""", re.I)


def _raw_filename(part: Message) -> str | None:
    """A part's file name written with raw 8-bit bytes (``filename="R\xe9sum\xe9.pdf"``), which the parser
    replaced with U+FFFD: read again from the raw header, as UTF-8 when it is, else Windows-1252."""
    for name, value in part.raw_items():
        if name.lower() in ("content-disposition", "content-type"):
            m = _NAME_PARAM.search(value)
            if m and any("\udc80" <= ch <= "\udcff" for ch in (m.group(1) or m.group(2))):
                return decode_header_value(m.group(1) or m.group(2))
    return None


def attachment_names(msg: Message) -> list[str]:
    """The files a message carries: each non-multipart part with a file name, or marked as an attachment, that
    is not a text part read as the body nor a forwarded message (``message/rfc822``); its file name, else its
    content type in brackets ("(application/pdf)").  In order, each once."""
    names: list[str] = []
    for leaf in msg.walk():
        if leaf.is_multipart() or (leaf is msg and not leaf.get_filename()):
            continue
        if leaf.get_content_type() == "message/rfc822":
            continue
        filename = leaf.get_filename()
        if filename and "\ufffd" in filename:
            filename = _raw_filename(leaf) or filename
        attached = leaf.get_content_disposition() == "attachment"
        if not filename and not attached:
            continue
        if leaf.get_content_type() in ("text/plain", "text/html") and not attached:
            continue  # an inline text part with a name is read as the body
        names.append(" ".join(filename.split()) if filename else f"({leaf.get_content_type()})")
    return list(dict.fromkeys(names))


TEXT_ATTACHMENT_CHARS = 20_000
"""Characters of an attached text file (``notes.txt``, a CSV, a calendar ``.ics``) kept as its record's text."""
MAX_TEXT_ATTACHMENTS = 20  # text files read per message (the others are still named in attrs["attachments"])
_TEXT_FILE_SUFFIXES = (".txt", ".text", ".csv", ".tsv", ".md", ".markdown", ".ics", ".ical", ".vcs", ".vcf",
                       ".rst", ".org", ".htm", ".html")
_TEXT_FILE_TYPES = {"text/plain", "text/csv", "text/tab-separated-values", "text/markdown", "text/x-markdown",
                    "text/calendar", "text/x-vcalendar", "text/html", "text/enriched", "text/richtext", "text/vcard",
                    "text/x-vcard", "text/directory", "application/ics", "application/x-ics", "application/csv",
                    "application/x-csv", "application/markdown", "application/x-markdown"}
"""The types of attached files whose text is kept: documents, tables, calendars, cards — not code, patches or logs
(``text/x-patch``, ``text/x-python``), which are named only."""


def _file_parts(part: Message) -> Iterator[Message]:
    """The leaves of ``part``'s MIME tree, not looking inside forwarded messages (``message/rfc822``)."""
    if part.get_content_maintype() == "multipart":
        subs = part.get_payload()
        for sub in subs if isinstance(subs, list) else ():
            yield from _file_parts(sub)
    else:
        yield part


def attachment_texts(msg: Message) -> list[tuple[str, str, str]]:
    """The text of each text file the message carries: a part marked as an attachment or with a file name (as
    :func:`attachment_names` lists them; not an inline text part read as the body, nor a forwarded message) whose
    type is one of :data:`_TEXT_FILE_TYPES` (plain text, CSV, Markdown, calendar, vCard, HTML made visible text), or
    ``application/octet-stream`` with such a file's name (``notes.txt``).

    Args:
        msg: a parsed message (``policy.default``).
    Returns:
        ``(file name or "(content/type)", content type, text)`` per file with text, in order, at most
        :data:`MAX_TEXT_ATTACHMENTS`: the text decoded with the part's charset (UTF-16 by its byte-order mark),
        line ends ``\\n``, cut to :data:`TEXT_ATTACHMENT_CHARS` characters.  A part holding NUL bytes (a binary file
        under a text name) is left out.
    """
    out: list[tuple[str, str, str]] = []
    for leaf in _file_parts(msg):
        if leaf is msg or len(out) >= MAX_TEXT_ATTACHMENTS:
            continue
        ctype = leaf.get_content_type()
        filename = leaf.get_filename()
        if filename and "\ufffd" in filename:
            filename = _raw_filename(leaf) or filename
        attached = leaf.get_content_disposition() == "attachment"
        if not (filename or attached) or (ctype in ("text/plain", "text/html") and not attached):
            continue  # not a file; or an inline text part with a name, read as the body
        named = " ".join(filename.split()) if filename else f"({ctype})"
        texty = ctype in _TEXT_FILE_TYPES or (
            ctype == "application/octet-stream" and named.lower().endswith(_TEXT_FILE_SUFFIXES))
        if not texty or attached_message(leaf) is not None:
            continue
        try:
            payload = _text_payload(leaf)
        except Exception:  # noqa: BLE001 — a part that cannot be decoded has no text to keep
            continue
        payload = payload[:TEXT_ATTACHMENT_CHARS * 4]
        if payload.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            text = payload.decode("utf-16", "replace")
        elif b"\x00" in payload:
            continue  # binary bytes under a text name
        else:
            text = decode_bytes(payload.removeprefix(_BOM), leaf.get_content_charset())
        if ctype == "text/html" or named.lower().endswith((".htm", ".html")) or _HTML_DOCUMENT.match(text):
            text = html_to_text(text)
        text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_INVISIBLE_IN_WORDS).strip()
        if text:
            out.append((named, ctype, text[:TEXT_ATTACHMENT_CHARS]))
    return out


def body_of(msg: Message) -> tuple[str, list[Message], list[str]]:
    """The message's own text, the messages forwarded inside it, and notes.

    Args:
        msg: a parsed message (``policy.default``).
    Returns:
        ``(text, forwarded, notes)``: ``text`` is the sender's own words — of each
        ``multipart/alternative`` the text/plain part when it has text, else the richest
        alternative with text (HTML as visible text); inline parts of other multiparts
        joined in order.  ``message/rfc822`` parts are never the sender's words: they are
        returned in ``forwarded``.  A multipart whose declared boundary is not in its body
        is re-read with the boundary found there.  When all that is empty, any text part
        (attachments included) is used, with a note.
    """
    notes: list[str] = []
    forwarded: list[Message] = []
    text = _walk(msg, forwarded, notes)
    if not text.strip():
        fallback = _any_text(msg)
        if fallback.strip():
            notes.append("text taken from a part marked as an attachment")
            text = fallback
    return text, forwarded, notes


# --------------------------------------------------------------------------- dates

# the sender: '"ann lee"@x', readpst's '"Ann Lee"', any word ("-": Thunderbird; "MAILER-DAEMON"), or none at all
# ("From  Mon May  3 15:00:00 2021": an empty return path, two spaces)
_ENVELOPE = re.compile(rb'^From (?:("[^"\r\n]*"(?:@\S+)?|\S+)[ \t]+|[ \t]+)(.{6,80}?)[ \t]*\r?\n?$')
_ENV_MONTH = re.compile(rb"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b", re.I)
_ENV_TIME = re.compile(rb"\b\d{1,2}:\d\d(?::\d\d)?\b")
_ENV_YEAR = re.compile(rb"\b(?:19|20)\d\d\b")


_ENV_TOKEN = re.compile(
    rb"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*"
    rb"|\d{1,4}|\d{1,2}:\d\d(?::\d\d)?|[+-]\d{4}|[A-Z]{1,5}|\([^()]*\)),?", re.I)
_ENV_REMOTE = re.compile(rb"\s+remote from \S+$")  # UUCP: "From user Mon Jan  1 09:00:00 2001 remote from host"


def is_envelope(line: bytes) -> bool:
    """True for an mbox ``From_`` line: ``From``, an address, then a date with a month name, a time and a year.

    The date is the ctime-like stamp mail programs write (``Mon Mar  4 10:00:00 2024``, ``Mon Mar 04 10:00:00
    +0000 2024``, ``Wed Feb  9 22:02 MET DST 2000``, maybe ``remote from host``): every word of it is a weekday, a
    month, a number, a time, a zone or a comment in parentheses.  A sentence that merely holds a date (``From 10:00
    to 12:00 on Mon 4 March 2024 we meet``, ``From Jane Doe Sent: Monday, March 4, 2024 10:00 AM``) is body text.
    """
    m = _ENVELOPE.match(line)
    if not m:
        return False
    date = _ENV_REMOTE.sub(b"", m.group(2).strip())
    if not (_ENV_MONTH.search(date) and _ENV_TIME.search(date) and _ENV_YEAR.search(date)):
        return False
    return all(_ENV_TOKEN.fullmatch(word) for word in re.findall(rb"\([^()]*\)|[^\s(]+", date))


def _zone_seconds(name: str | None, offset: int | None):
    """dateutil's ``tzinfos`` hook: a zone name's offset east of UTC in seconds (``Z``/``UT``/``GMT``, the US
    zones, :data:`ZONE_NAMES`), the tz database zone of a :data:`REGION_ZONES` name, else ``offset`` as dateutil
    read it (None: no zone, or a name unknown or ambiguous, such as ``IST``)."""
    key = (name or "").upper()
    if key in REGION_ZONES:
        from ingestors.base import time_zone

        try:
            return time_zone(REGION_ZONES[key])  # its offset on the date read
        except ValueError:
            return offset
    daylight = {"EDT": -240, "CDT": -300, "MDT": -360, "PDT": -420}.get(key)
    minutes = daylight if daylight is not None else _STANDARD_OFFSETS.get(key, ZONE_NAMES.get(key))
    return offset if minutes is None else minutes * 60


def envelope_time(from_line: str | None) -> datetime | None:
    """The date of an mbox ``From_`` line as UTC, or None (its sender may be empty: ``From  Mon May  3 15:00:00
    2021``).  A zone name in it (``Wed Feb  9 22:02 MET 2000``) is
    read at its offset (:data:`ZONE_NAMES`, the US zones); a time written without a zone, or with an unknown or
    ambiguous name, is read as UTC."""
    if not from_line:
        return None
    raw = from_line.encode("utf-8", "replace")
    env = _ENVELOPE.match(raw)
    if env is not None and env.group(1) is None and is_envelope(raw):  # no sender: "From  Mon May  3 15:00:00 2021"
        m = re.match(r"From\s+(.+?)\s*$", from_line)
    else:
        m = re.match(r'From\s+(?:"[^"]*"(?:@\S+)?|\S+)\s+(.+?)\s*$', from_line)
    if not m:
        return None
    date = re.sub(r"\s+remote from \S+$", "", m.group(1))  # UUCP's "… 2001 remote from host"
    import warnings

    from dateutil import parser as dateparser

    try:
        with warnings.catch_warnings():  # a zone name dateutil does not know: read as UTC (no zone)
            warnings.simplefilter("ignore")
            dt = dateparser.parse(_numeric_gmt(date), tzinfos=_zone_seconds)
    except (ValueError, OverflowError):
        return None
    return (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)


@dataclass(frozen=True)
class MailboxOrder:
    """The order one mailbox writes its numeric dates in: ``order`` ``"DMY"`` (``13/05/2021``) or ``"MDY"``
    (``05/13/2021``); ``example``: a date of it that reads in that order only, as written."""

    order: str
    example: str


_ORDER_EVIDENCE = re.compile(rb"(?<![\d/.\-])(\d{1,2})([/-])(\d{1,2})\2((?:19|20)\d\d)(?![\d/\-])")
ORDER_SCAN_BYTES = 256 * MIB
"""How much of a mailbox :func:`mailbox_date_order` reads (its start) for the order of its numeric dates."""


def mailbox_date_order(path: Path, limit: int = ORDER_SCAN_BYTES) -> MailboxOrder | None:
    """The order a mailbox's numeric dates are written in, from the dates in it that read one way only — in its
    headers and bodies (Date headers, forwarded messages' Date/Sent lines, "On 13/05/2021 … wrote:", a date in the
    text): ``13/05/2021`` is day-first, ``05/13/2021`` month-first.  One order must be all there is, or at least
    three times as common as the other; else None (the mailbox does not say).  Slashed and dashed dates with a
    four-digit year count (a dotted date is day-first anyway); the first ``limit`` bytes are read, line by line."""
    counts = {"DMY": 0, "MDY": 0}
    example: dict[str, str] = {}

    def tally(buf: bytes) -> None:
        for m in _ORDER_EVIDENCE.finditer(buf):
            a, b = int(m.group(1)), int(m.group(3))
            order = "DMY" if 12 < a <= 31 and 1 <= b <= 12 else "MDY" if 12 < b <= 31 and 1 <= a <= 12 else None
            if order:
                counts[order] += 1
                example.setdefault(order, m.group(0).decode("ascii"))

    try:
        with open(path, "rb") as fh:
            carry, read = b"", 0
            while read < limit:
                chunk = fh.read(min(4 * MIB, limit - read))
                if not chunk:
                    break
                read += len(chunk)
                buf = carry + chunk
                cut = buf.rfind(b"\n") + 1 or max(0, len(buf) - 64)  # the last line waits for the rest of it
                carry = buf[cut:]
                tally(buf[:cut])
            tally(carry)
    except OSError:
        return None
    dmy, mdy = counts["DMY"], counts["MDY"]
    if dmy and dmy >= 3 * mdy:
        return MailboxOrder("DMY", example["DMY"])
    if mdy and mdy >= 3 * dmy:
        return MailboxOrder("MDY", example["MDY"])
    return None


_NUMERIC_DATE = re.compile(r"^\s*(?:[^\W\d_]{2,12}\.?,?\s*)?(\d{1,2})([/.\-])(\d{1,2})\2(\d{2,4})\b")


def _day_month_order(value: str, day: datetime, envelope: datetime | None, notes: list[str],
                     relayed: datetime | None = None, order: "MailboxOrder | None" = None) -> datetime:
    """``day`` as dateutil read a numeric Date header (month first), or with day and month swapped when the
    header could be read either way (``01/02/2024``): the reading nearer the earliest ``Received:`` header's date
    (``relayed``) or else the mbox envelope line's date when there is one, else the order the mailbox writes its
    numeric dates in (``order``, :func:`mailbox_date_order`: ``13/05/2021`` elsewhere in it says day-first), else
    day-first for dotted dates (``01.02.2024``, the European form) and month-first otherwise — with a note saying
    which."""
    m = _NUMERIC_DATE.match(value)
    if not m:
        return day
    a, sep, b = int(m.group(1)), m.group(2), int(m.group(3))
    if a > 12 or b > 12 or a == b or (day.month, day.day) != (a, b):
        return day  # only one order is a date, both read the same, or not the month-first reading
    swapped = day.replace(month=b, day=a)
    if relayed is not None or envelope is not None:
        near = relayed if relayed is not None else envelope
        pick = min((day, swapped), key=lambda d: abs((d.date() - near.date()).days))
        why = ("the one nearer the earliest Received header's date" if relayed is not None else
               "the one nearer the mbox envelope line's date")
    elif order is not None and sep != ".":
        pick = swapped if order.order == "DMY" else day
        why = f"this mailbox writes its dates {'day' if order.order == 'DMY' else 'month'}-first: {order.example!r}"
    else:
        pick = swapped if sep == "." else day
        why = "dotted dates are day-first" if sep == "." else "the common order of slashed dates"
    notes.append(f"the Date header's day and month ({value.strip()!r}) could be either way: read "
                 f"{'day' if pick is swapped else 'month'}-first ({why})")
    return pick


_CJK_DATE = re.compile(r"(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日일]?")
_CJK_WEEKDAY = re.compile(r"[(（]\s*[月火水木金土日一二三四五六天]\s*[)）]|(?:星期|周|週)[一二三四五六日天]|"
                          r"[월화수목금토일]요일")
_CJK_HALF_DAY = re.compile(r"(上午|午前|오전|下午|午後|오후)\s*(\d{1,2}[:：]\d\d(?:[:：]\d\d)?)")


def _cjk_date(value: str) -> str:
    """A date written the Chinese, Japanese or Korean way (``2024年3月4日(月) 10:00``, ``2024년 3월 4일 월요일 오전
    10:00``, ``2024年3月4日 下午3:05``) as ``2024-03-04 10:00`` (``PM`` after the time for 下午/午後/오후); other values
    unchanged."""
    out = _CJK_DATE.sub(lambda m: f"{m.group(1)}-{int(m.group(2)):02d}-{int(m.group(3)):02d}", value)
    if out == value:
        return value
    out = _CJK_WEEKDAY.sub(" ", out)
    return _CJK_HALF_DAY.sub(lambda m: f"{m.group(2).replace('：', ':')} "
                                       f"{'AM' if m.group(1) in ('上午', '午前', '오전') else 'PM'}", out)


def _lenient_date(value: str) -> tuple[datetime | None, bool]:
    """A non-RFC 5322 date (``1999/01/31``, ``2024-03-01 10:00``, ``lun. 4 mars 2024 à 17:00``, ``2024年3月4日(月)
    10:00``: :func:`_cjk_date`) by dateutil:
    (datetime, has_time); words between the date's parts are skipped.

    The datetime is None unless year, month and day are all written and the year is plausible.  A zone name
    is read at its offset (``4 March 2024 at 10:00:00 CET``: +01:00, Apple Mail's forwarded headers;
    :func:`_zone_seconds`); with none, or an unknown one, the datetime is naive.
    """
    from dateutil import parser as dateparser

    import warnings

    a, b = datetime(2000, 1, 1, 0, 0, 0), datetime(2001, 2, 2, 1, 1, 1)
    value = _numeric_gmt(_cjk_date(value))
    with warnings.catch_warnings():  # a zone name neither dateutil nor ZONE_NAMES knows: no zone
        warnings.simplefilter("ignore")
        try:
            da, db = (dateparser.parse(value, default=a, tzinfos=_zone_seconds),
                      dateparser.parse(value, default=b, tzinfos=_zone_seconds))
        except (ValueError, OverflowError, TypeError):
            try:  # words between the parts ("4 mars 2024 à 17:00", "4. März 2024 um 17:00 Uhr": Gmail's forwards)
                words = re.sub(r"\s(?:a las|a la)\s", " ", value, flags=re.I)  # Spanish "a las": not "a" for a.m.
                da, db = (dateparser.parse(words, default=a, fuzzy=True, tzinfos=_zone_seconds),
                          dateparser.parse(words, default=b, fuzzy=True, tzinfos=_zone_seconds))
            except (ValueError, OverflowError, TypeError):
                return None, False
    if (da.year, da.month, da.day) != (db.year, db.month, db.day) or not 1971 <= da.year <= 2200:
        return None, False
    if da.tzinfo is not None and not isinstance(da.tzinfo, timezone):  # a region's zone: its offset that day
        try:
            da = da.replace(tzinfo=timezone(da.utcoffset()))
        except (TypeError, ValueError):
            da = da.replace(tzinfo=None)
    try:
        da.astimezone(timezone.utc)  # an offset of a day or more ("+2500") cannot be placed in time
    except (OverflowError, ValueError):
        return None, False
    return da, (da.hour, da.minute) == (db.hour, db.minute)


def received_time(values: list[str]) -> datetime | None:
    """The earliest time among a message's ``Received:`` headers (the first relay's, closest to when it was
    sent), tz-aware at the offset written there, or None when none has a readable date.

    Args:
        values: the raw ``Received:`` header values (each ends ``; <RFC 5322 date>``).
    """
    times = []
    for value in values:
        if ";" not in value:
            continue
        dt = _parse_date(" ".join(value.rsplit(";", 1)[1].split()))
        if dt is not None:
            times.append(dt)
    return min(times, default=None)


ZONE_SLACK = timedelta(minutes=3)
"""How far a Date written without a zone may be from the first relay's time at a real zone's offset."""
_REAL_OFFSETS = {60 * h for h in range(-12, 15)} | {-570, -210, -150, 210, 270, 330, 345, 390, 525, 570, 630, 765,
                                                     825}  # minutes east of UTC that some time zone uses (tz database)


def _zone_from_received(dt: datetime, relayed: datetime | None, notes: list[str], attrs: dict,
                        stamped: datetime | None = None) -> datetime:
    """``dt``, a Date header's wall-clock time read as UTC because it names no zone (or an ambiguous one, such
    as ``IST``), at the sender's offset when the earliest ``Received:`` header settles it: the wall clock minus
    the first relay's time, within :data:`ZONE_SLACK` of an offset some time zone uses, is the offset (the first
    relay stamps the message seconds after it was written).  The wall clock, and so the
    sender's calendar, is kept; the instant moves.  ``attrs["date_source"]`` becomes ``"date-header-zone-from-
    received"`` and a note says so.  With no Received header, an mbox envelope line that writes its zone
    (``stamped``: Gmail Takeout's ``Mon Mar 04 09:00:00 +0000 2024``) settles it the same way
    (``"date-header-zone-from-envelope"``).  Else ``dt`` unchanged."""
    source, what = "received", "the earliest Received header's time"
    if relayed is None and stamped is not None:
        relayed, source, what = stamped, "envelope", "the mbox envelope line's time"
    if relayed is None:
        return dt
    delta = dt.replace(tzinfo=timezone.utc) - relayed.astimezone(timezone.utc)
    quarter = timedelta(minutes=15)
    offset = quarter * round(delta / quarter)
    if abs(delta - offset) > ZONE_SLACK or offset // timedelta(minutes=1) not in _REAL_OFFSETS or not offset:
        return dt
    zone = timezone(offset)
    notes[:] = [n.replace(", in UTC", "") for n in notes if "read as UTC" not in n]
    notes.append(f"Date header names no usable time zone: its offset (UTC{dt.replace(tzinfo=zone):%z}) is taken "
                 f"from {what}")
    attrs["date_source"] = f"date-header-zone-from-{source}"
    return dt.replace(tzinfo=zone)


def _sent_at(date_value: str | None, mbox_from: str | None, notes: list[str], attrs: dict,
             received: list[str] | None = None, order: "MailboxOrder | None" = None) -> datetime | None:
    """When a message was sent, tz-aware (at the Date header's offset), from its Date header, else the earliest
    ``Received:`` header's date, else its mbox envelope line (UTC).

    * an RFC 5322 ``Date`` is used as it is (a zone name such as ``CEST`` at its offset; no zone, or an
      unknown one: the offset the earliest ``Received:`` header settles (:func:`_zone_from_received`), else UTC,
      ``attrs["date_source"] = "date-header-no-zone"``, see :func:`_parse_date`);
    * a numeric date that reads either way (``04/05/2021``): :func:`_day_month_order` (``order``: the mailbox's);
    * another date with a time (``2024-03-01 10:00``) is used, read the same way when it has no zone;
    * a date with no time (``1999/01/31``) takes the envelope line's time when the envelope has
      the same day, else noon UTC of that day (``attrs["date_source"]`` says which);
    * no readable Date: the earliest ``Received:`` date (:func:`received_time`, ``attrs["date_source"] =
      "received"``), else the envelope line's time (``attrs["date_source"] = "envelope"``);
    * nothing: None, with a note.
    """
    dt = _parse_date(date_value, notes, attrs) if date_value else None
    envelope = envelope_time(mbox_from)
    relayed = received_time(received or [])
    stamped = envelope if mbox_from and re.search(r"\s(?:[+-]\d{4}|UTC|GMT)\s", mbox_from) else None  # its zone
    if dt is not None:
        if attrs.get("date_source") == "date-header-no-zone":
            dt = _zone_from_received(dt, relayed, notes, attrs, stamped)
        return _unless_future(dt, date_value, envelope, notes, attrs, relayed)
    fallback = (": time taken from the earliest Received header" if relayed else
                ": time taken from the mbox envelope line" if envelope else "")
    if date_value is None:
        notes.append("no Date header" + (fallback or ": time unknown"))
    elif (lenient := _lenient_date(date_value))[0] is not None:
        day, has_time = lenient
        day = _day_month_order(date_value, day, envelope, notes, relayed, order)
        if has_time:
            notes.append(f"Date header not in the standard form ({date_value!r}): read as written"
                         + ("" if day.tzinfo else ", in UTC"))
            attrs["date_source"] = "date-header-lenient"
            if day.tzinfo is None:
                day = _zone_from_received(day.replace(tzinfo=timezone.utc), relayed, notes, attrs, stamped)
            return _unless_future(day, date_value, envelope, notes, attrs, relayed)
        if envelope is not None and envelope.date() == day.date():
            notes.append(f"Date header has a day but no time ({date_value!r}): time taken from the mbox envelope line")
            attrs["date_source"] = "envelope"
            return envelope
        if relayed is not None and relayed.date() == day.date():
            notes.append(f"Date header has a day but no time ({date_value!r}): time taken from the earliest "
                         f"Received header")
            attrs["date_source"] = "received"
            return relayed
        notes.append(f"Date header has a day but no time ({date_value!r}): placed at noon UTC")
        attrs["date_source"] = "date-header-day"
        return day.replace(hour=12, tzinfo=timezone.utc)
    elif _is_epoch(date_value):
        notes.append(f"Date header is the 1970 epoch ({date_value!r}), the date of a clock never set"
                     + (fallback or ": time unknown"))
    else:
        notes.append(f"Date header unparseable: {date_value!r}" + fallback)
    if relayed is not None:
        attrs["date_source"] = "received"
        return _unless_future(relayed, date_value or "", envelope, notes, attrs)
    if envelope is not None:
        attrs["date_source"] = "envelope"
    return envelope


FUTURE_SLACK_DAYS = 2
"""A Date more than this many days after the import (and after the envelope line's date) is a wrong clock."""
BEFORE_RELAY_DAYS = 30
"""A Date more than this many days before the first relay's Received stamp is suspect (a clock reset to 2000)."""


def _is_epoch(value: str) -> bool:
    """True when a Date header reads as the Unix epoch (1970-01-01T00:00:00Z): an unset clock."""
    try:
        dt = parsedate_to_datetime(_numeric_gmt(value))
    except (TypeError, ValueError, IndexError, OverflowError):
        return False
    return dt is not None and dt.replace(tzinfo=dt.tzinfo or timezone.utc).timestamp() == 0


def _unless_future(dt: datetime, date_value: str, envelope: datetime | None, notes: list[str],
                   attrs: dict, relayed: datetime | None = None) -> datetime:
    """``dt`` read from the Date header, unless the sender's clock was plainly wrong.

    A Date more than :data:`FUTURE_SLACK_DAYS` after now is kept only when nothing better is known: the
    earliest ``Received:`` header's time (``relayed``), else the mbox envelope line's time, is used when it is
    not in the future too.  A Date more than :data:`BEFORE_RELAY_DAYS` before the first relay received the
    message (a clock reset to 2000, or an old message fetched again later) is kept but labelled.  Each time a
    note says so,
    ``attrs["date_header"]`` keeps the value as written and ``attrs["date_suspect"]`` is ``"future"`` or
    ``"before-relay"``.
    """
    from core import clock

    limit = clock.now().astimezone(timezone.utc) + timedelta(days=FUTURE_SLACK_DAYS)
    if relayed is not None and relayed - dt > timedelta(days=BEFORE_RELAY_DAYS):
        # a wrong clock, or an old message fetched again later (POP, a migration): kept, but said
        attrs["date_suspect"], attrs["date_header"] = "before-relay", date_value
        notes.append(f"Date header ({date_value!r}) is long before the first Received header "
                     f"({relayed.isoformat()}): kept, but the sender's clock may have been wrong")
    if dt <= limit:
        return dt
    attrs["date_suspect"], attrs["date_header"] = "future", date_value
    if relayed is not None and relayed <= limit:
        notes.append(f"Date header is in the future ({date_value!r}; a wrong clock): time taken from the earliest "
                     f"Received header")
        attrs["date_source"] = "received"
        return relayed
    if envelope is not None and envelope <= limit:
        notes.append(f"Date header is in the future ({date_value!r}; a wrong clock): time taken from the mbox "
                     f"envelope line")
        attrs["date_source"] = "envelope"
        return envelope
    notes.append(f"Date header is in the future ({date_value!r}): kept, but the sender's clock was probably wrong")
    return dt


# --------------------------------------------------------------------------- one message

# Zone names RFC 5322 does not define (it names only UT, GMT and the four US zones, which the standard library
# reads) but clients still write.  Only names with one common meaning in mail: IST, AST, CST-as-China are left out.
ZONE_NAMES = {
    "UTC": 0, "WET": 0, "WEST": 60, "BST": 60, "IST": None, "CET": 60, "CEST": 120, "MET": 60, "MEST": 120,
    "MEZ": 60, "MESZ": 120, "EET": 120, "EEST": 180, "MSK": 180, "SAST": 120, "WIB": 420, "HKT": 480,
    "SGT": 480, "AWST": 480, "JST": 540, "KST": 540, "ACST": 570, "ACDT": 630, "AEST": 600, "AEDT": 660,
    "NZST": 720, "NZDT": 780, "HST": -600, "AKST": -540, "AKDT": -480, "NST": -210, "NDT": -150, "ADT": -180,
    # more with one common meaning (the tz database's abbreviations): Africa, South America, Asia
    "WAT": 60, "CAT": 120, "EAT": 180, "BRT": -180, "BRST": -120, "ART": -180, "CLT": -240, "CLST": -180,
    "PET": -300, "COT": -300, "VET": -240, "UYT": -180, "PKT": 300, "NPT": 345, "ICT": 420, "PHT": 480,
    "MYT": 480, "WITA": 480, "WIT": 540, "TRT": 180, "IDT": 180, "IRST": 210, "AFT": 270,
    "AST": None, "GST": None, "SST": None,
}
"""Time-zone abbreviation → minutes east of UTC (None: ambiguous, read as unknown)."""
REGION_ZONES = {"ET": "America/New_York", "CT": "America/Chicago", "MT": "America/Denver",
                "PT": "America/Los_Angeles", "AKT": "America/Anchorage"}
"""North American zone names written without standard or daylight time (``10:00 ET``) → the tz database zone
whose offset on that date they mean (−05:00 or −04:00 for ``ET``)."""


def _region_offset(name: str | None, wall: datetime) -> int | None:
    """Minutes east of UTC of :data:`REGION_ZONES` ``name`` at the wall-clock time ``wall`` (naive), or None."""
    region = REGION_ZONES.get((name or "").upper())
    if region is None:
        return None
    from ingestors.base import time_zone

    try:
        return int(time_zone(region).utcoffset(wall.replace(tzinfo=None)).total_seconds() // 60)
    except ValueError:  # no tz database on this system: the name stays unknown
        return None


def _windows_zones() -> tuple[re.Pattern, dict[str, str]]:
    """Windows time-zone names (``Central European Standard Time``, ``W. Europe Daylight Time``: what Exchange,
    Outlook and .NET mailers write where a zone name goes) → tz database zones, from CLDR's windowsZones table
    as Babel ships it; each "… Standard Time" also read as "… Daylight Time" and "… Summer Time"."""
    from babel.core import get_global

    names: dict[str, str] = {}
    for win, tz in get_global("windows_zone_mapping").items():
        names[win.casefold()] = tz
        if win.endswith(" Standard Time"):
            for other in (" Daylight Time", " Summer Time"):
                names[(win[: -len(" Standard Time")] + other).casefold()] = tz
    words = sorted(names, key=len, reverse=True)
    pattern = re.compile(r"(?<=\d)(\s*)\(?(" + "|".join(re.escape(w) for w in words) + r")\)?(?=\s*$)", re.I)
    return pattern, names


_WINDOWS_ZONES: tuple[re.Pattern, dict[str, str]] | None = None


def _windows_zone(value: str) -> str:
    """A Date ending in a Windows zone name and no offset (``Mon, 4 Mar 2024 10:00:00 Central European Standard
    Time``) with the name replaced by that zone's offset at that wall-clock time (``+0100``; ``+0200`` in its
    summer); a value with a numeric offset, or with no such name, is returned as it is."""
    global _WINDOWS_ZONES
    if "time" not in value.casefold():
        return value
    if _WINDOWS_ZONES is None:
        _WINDOWS_ZONES = _windows_zones()
    pattern, names = _WINDOWS_ZONES
    m = pattern.search(value)
    if m is None or re.search(r"\d\d:\d\d(?::\d\d)?\s+[+-]\d{4}", value):
        return value
    bare = value[:m.start()]
    try:
        wall = parsedate_to_datetime(bare.strip() + " -0000")
        from ingestors.base import time_zone

        minutes = int(time_zone(names[m.group(2).casefold()]).utcoffset(wall.replace(tzinfo=None))
                      .total_seconds() // 60)
    except (TypeError, ValueError, IndexError, OverflowError, KeyError):
        return value
    sign = "-" if minutes < 0 else "+"
    return f"{bare} {sign}{abs(minutes) // 60:02d}{abs(minutes) % 60:02d}"


_END_OF_DAY = re.compile(r"(?<=\s)24:00(?::00)?(?=\s|$)")
_STD_ZONES = {"UT", "GMT", "Z", "EST", "EDT", "CST", "CDT", "MST", "MDT", "PST", "PDT"}
_TIME_TOKEN = re.compile(r"^\d{1,2}:\d\d(?::\d\d(?:\.\d+)?)?$")


_GMT_OFFSET = re.compile(r"\b(?:GMT|UTC)([+-])(\d{1,2}):?(\d\d)?\b", re.I)
_HOURS_OFFSET = re.compile(r"(?<=\d\d:\d\d)((?::\d\d)?\s+[+-]\d\d)(?![\d:])")  # "09:00:00 +01": hours only
_COLON_OFFSET = re.compile(r"(?<=\d)(\s+[+-]\d\d):(\d\d)\b")  # "09:05:00 +01:00" (ISO style, after a time)
_TWELVE_HOUR = re.compile(r"\b(\d{1,2})(:\d\d(?::\d\d)?)\s*(?:([AaPp])\.?\s?[Mm]\.?|(π|μ)\.?\s?μ\.?)(?![\w])")


def _to_24h(m: re.Match) -> str:
    pm = m.group(3) in ("P", "p") if m.group(3) else m.group(4) == "μ"  # Greek π.μ. / μ.μ.: a.m. / p.m.
    hour = int(m.group(1)) % 12 + (12 if pm else 0)
    return f"{hour:02d}{m.group(2)}"


_DST_ZONE = re.compile(r"(?<=[\d\s])([A-Za-z]{2,4})[ \t]?DST\b(?![^()]*\))")  # "MET DST", "METDST" (not in a comment)
_STANDARD_OFFSETS = {"UT": 0, "GMT": 0, "Z": 0, "EST": -300, "CST": -360, "MST": -420, "PST": -480}


_MONTH_WORDS = {
    "Jan": "janv janvier jän jänner januar enero ene gennaio gen janeiro januari stycznia sty",
    "Feb": "févr fevr février februar febrero febbraio fev fevereiro februari lutego lut",
    "Mar": "mars mär märz marz marzo março maart mrt marca",
    "Apr": "avr avril abril abr aprile april kwietnia kwi",
    "May": "mai mayo maggio mag maio mei maja",
    "Jun": "juin juni junio giugno giu junho czerwca cze",
    "Jul": "juil juillet juli julio luglio lug julho lipca lip",
    "Aug": "août aout august agosto ago augustus sierpnia sie",
    "Sep": "sept septembre september septiembre settembre set setembro września wrz",
    "Oct": "okt oktober octobre octubre ottobre ott outubro out października paź",
    "Nov": "novembre noviembre novembro november listopada lis",
    "Dec": "déc dez dezember décembre diciembre dic dicembre dezembro december grudnia gru",
}
for _en, _ru in zip(_MONTH_WORDS, ("янв января январь", "фев февраля февраль", "мар марта март",
                                   "апр апреля апрель", "мая май", "июн июня июнь", "июл июля июль",
                                   "авг августа август", "сен сент сентября сентябрь", "окт октября октябрь",
                                   "ноя нояб ноября ноябрь", "дек декабря декабрь")):
    _MONTH_WORDS[_en] += " " + _ru
for _en, _more in zip(_MONTH_WORDS, (
        "ocak oca ledna leden január januar Ιανουαρίου Ιαν",  # Turkish, Czech, Hungarian, Scandinavian, Greek
        "şubat şub února únor február februar Φεβρουαρίου Φεβ",
        "mart března březen március márc marts maret Μαρτίου Μαρ",
        "nisan nis dubna duben április ápr Απριλίου Απρ",
        "mayıs maj května květen május máj Μαΐου Μαΐ Μαΐ",
        "haziran haz června červen június jún Ιουνίου Ιουν",
        "temmuz tem července červenec július júl Ιουλίου Ιουλ",
        "ağustos ağu srpna srpen augusztus augusti Αυγούστου Αυγ",
        "eylül eyl září szeptember szept Σεπτεμβρίου Σεπ",
        "ekim eki října říjen október Οκτωβρίου Οκτ",
        "kasım kas listopadu listopad Νοεμβρίου Νοε",
        "aralık ara prosince prosinec desember Δεκεμβρίου Δεκ")):
    _MONTH_WORDS[_en] += " " + _more
_FOREIGN_MONTH = {w.casefold(): en for en, words in _MONTH_WORDS.items() for w in words.split()}
_DOTTED_TIME = re.compile(r"\b(kl|klo|kello|pukul|kell|um|às|at)(\.?\s+)(\d{1,2})\.(\d\d)\b", re.I)
_MONTH_TOKEN = re.compile(r"(?<![^\W\d_])([^\W\d_]{3,11})\.?(?=[\s,-]|$)")
_LEADING_DAY = re.compile(r"^\s*[^\W\d_]{1,12}\.?,?\s+(?=\d)")


def _english_months(value: str) -> str:
    """A Date written with the month in French, German, Spanish, Italian, Portuguese, Dutch, Polish, Russian,
    Turkish, Czech, Hungarian, Greek or a Scandinavian language (``lun., 01 janv. 2001``, ``Di, 02 Mai 2001``,
    ``4 Mayıs 2024``: mailers, and forwarded messages' Date lines, that format dates in their locale) with the
    month's English abbreviation and without the weekday, and a time written with a dot after ``kl.``/``klo``
    (``kl. 10.00``) with a colon; a value with an English month is left as it is (but ``Jan.`` loses its dot)."""
    value = _DOTTED_TIME.sub(r"\1\2\3:\4", value)  # "kl. 10.00", "klo 10.00": the time with a dot
    out = _MONTH_TOKEN.sub(lambda m: _FOREIGN_MONTH.get(m.group(1).casefold(), m.group(1)), value)
    return _LEADING_DAY.sub("", out) if out != value else value


_SHORT_YEAR = re.compile(r"^(\s*(?:[A-Za-z]+\.?,?\s*)?\d{1,2}[\s-]+[A-Za-z]{3,9}\.?[\s-]+)(\d{2,3})(?=\s)")


def _full_year(m: re.Match) -> str:
    """A two- or three-digit year of a Date as RFC 5322 §4.3 reads it: 00–49 → 20xx, 50–99 → 19xx (the standard
    library takes 50–68 as 2050–2068), three digits → 1900 + it (``101``: a Y2K bug's 2001)."""
    year = int(m.group(2))
    year += 1900 if len(m.group(2)) == 3 or year >= 50 else 2000
    return f"{m.group(1)}{year}"


def _dst_offset(m: re.Match) -> str:
    """A zone written as its standard-time name plus ``DST`` (``MET DST``, ``METDST``: old Unix mailers) as the
    numeric offset of its summer time (the standard offset plus an hour); unknown names are left as written."""
    base = m.group(1).upper()
    minutes = _STANDARD_OFFSETS.get(base, ZONE_NAMES.get(base))
    if minutes is None:
        return m.group(0)
    minutes += 60
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}{abs(minutes) % 60:02d}"


def _numeric_gmt(value: str) -> str:
    """A Date value with its time and zone in the forms the standard library reads: ``GMT+1``/``UTC-05:30``
    (Apple Mail, forwarded headers) written ``+0100``/``-0530`` (dateutil would read ``GMT+1`` the POSIX way,
    as one hour *west*), an offset written ``+01:00`` (or ``+01``, hours only) as ``+0100``, a 12-hour time
    (``9:05 PM``, Outlook's forwarded headers, some web mailers) as ``21:05``, a standard zone name followed by
    ``DST`` (``MET DST``) as its summer offset (``+0200``), a two- or three-digit year in full
    (:func:`_full_year`), a month written in another language in English (:func:`_english_months`), and a
    Windows zone name as its offset on that date (:func:`_windows_zone`)."""
    value = _GMT_OFFSET.sub(lambda m: f"{m.group(1)}{int(m.group(2)):02d}{m.group(3) or '00'}", value)
    value = _english_months(value)
    value = _SHORT_YEAR.sub(_full_year, value, count=1)
    value = _DST_ZONE.sub(_dst_offset, value)
    value = _TWELVE_HOUR.sub(_to_24h, value)
    value = _HOURS_OFFSET.sub(r"\g<1>00", value)
    return _windows_zone(_COLON_OFFSET.sub(r"\1\2", value))


def _zone_of(value: str) -> str | None:
    """The zone token written after the time of a Date value (``"+0200"``, ``"CEST"``), or None when none is."""
    words = re.sub(r"\([^()]*\)", " ", value).replace(",", " ").split()
    for i, w in enumerate(words):
        if _TIME_TOKEN.match(w):
            nxt = words[i + 1] if i + 1 < len(words) else ""
            return nxt if re.fullmatch(r"[+-]\d{4}|[A-Za-z]{1,5}", nxt) else None
    return None


def _has_zone(value: str) -> bool:
    """True when a date as written names its zone (an offset, ``GMT+1``, or a zone name Kith knows)."""
    value = _numeric_gmt(value)
    zone = _zone_of(value)
    if zone and (zone[0] in "+-" or zone.upper() in _STD_ZONES or ZONE_NAMES.get(zone.upper()) is not None
                 or zone.upper() in REGION_ZONES):
        return True
    return bool((lenient := _lenient_date(value)[0]) and lenient.tzinfo)


def _parse_date(value: str, notes: list[str] | None = None, attrs: dict | None = None) -> datetime | None:
    """An RFC 5322 date, tz-aware at the sender's own offset (``+1000`` stays +10:00; ``-0000``, "zone
    unknown", is UTC), or None when it cannot be read.

    A zone written as a name the standard library does not know (``CEST``, ``BST``, ``JST``: see
    :data:`ZONE_NAMES`), or as ``GMT+1``/``UTC-05:30``, is read at that offset.  A time with no zone, or with a zone name that is
    unknown or ambiguous (``IST``), is read as UTC and labelled: a note in ``notes`` and
    ``attrs["date_source"] = "date-header-no-zone"``.
    """
    value = _numeric_gmt(value)
    end_of_day = _END_OF_DAY.search(value)  # "24:00" (ISO 8601's end of the day): 00:00 of the next day
    if end_of_day is not None:
        value = f"{value[:end_of_day.start()]}00:00:00{value[end_of_day.end():]}"
    zone = _zone_of(value)
    if zone and zone[0] in "+-" and (int(zone[1:3]) > 14 or int(zone[3:5]) > 59):  # no zone is that far off
        if notes is not None:
            notes.append(f"Date header's offset {zone!r} is not a real time zone: read as UTC")
        if attrs is not None:
            attrs["date_source"] = "date-header-no-zone"
        value = re.sub(rf"(?<=\s){re.escape(zone)}\b", "-0000", value, count=1)
        zone = "-0000"
    named = zone.upper() if zone and zone[0].isalpha() else None
    offset = ZONE_NAMES.get(named) if named and named not in _STD_ZONES else None
    if named in REGION_ZONES:
        try:
            wall = parsedate_to_datetime(re.sub(rf"(?<=\s){re.escape(zone)}\b", "-0000", value, count=1))
        except (TypeError, ValueError, IndexError, OverflowError):
            wall = None
        offset = _region_offset(named, wall) if wall is not None else None
    if offset is not None:
        sign = "-" if offset < 0 else "+"
        value = re.sub(rf"(?<=\s){re.escape(zone)}\b", f"{sign}{abs(offset) // 60:02d}{abs(offset) % 60:02d}",
                       value, count=1)
    try:
        dt = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if dt is None:
        return None
    if dt.tzinfo is None:  # "-0000": the time is UTC, the sender's zone unknown (RFC 5322 §3.3)
        dt = dt.replace(tzinfo=timezone.utc)
        if zone is None or (named and named not in _STD_ZONES and offset is None):
            if notes is not None:
                notes.append("Date header has no time zone: read as UTC" if zone is None else
                             f"Date header's time zone {zone!r} is unknown or ambiguous: read as UTC")
            if attrs is not None:
                attrs["date_source"] = "date-header-no-zone"
    try:
        if end_of_day is not None:
            dt += timedelta(days=1)
        dt.astimezone(timezone.utc)  # out of range at UTC: unusable
    except (OverflowError, ValueError):
        return None
    return None if dt.timestamp() == 0 else dt  # the 1970 epoch is an unset clock, not a date


_BARE_SURNAME = re.compile(r"^[^\W\d_][\w'\-]*(?: [^\W\d_][\w'\-]*)?$")  # one or two words, no address
_BARE_GIVEN = re.compile(r"^[^\W\d_][\w'.\-]*(?: [^\W\d_][\w'.\-]*){0,2}$")


def _rejoin_last_first(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``getaddresses`` pairs with an unquoted "Last, First <a@b>" (Outlook and some exporters write the
    directory name without quotes, so the comma splits it into a bare ``Last`` and ``First <a@b>``) made one
    mailbox again, named ``"Last, First"``: a bare word or two with no ``@`` and no display name, followed by a
    mailbox whose display name is one to three plain words."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(pairs):
        name, address = pairs[i]
        if i + 1 < len(pairs) and not name and "@" not in address and _BARE_SURNAME.match(address.strip()):
            given, addr = pairs[i + 1]
            plain = decode_header_value(given)
            if "@" in addr and _BARE_GIVEN.match(plain):
                out.append((f"{address.strip()}, {plain}", addr))
                i += 2
                continue
        out.append((name, address))
        i += 1
    return out


_ON_BEHALF = re.compile(r"^.*?\]\s*On Behalf Of\s+(\S.*)$", re.I)
_MAILTO_BRACKET = re.compile(r"[\[(]\s*(?:mailto:\s*)?([^\s\[\]()<>@,;:\"]+@[^\s\[\]()<>@,;:\"]+)\s*[\])]",
                             re.I)
"""An address in square brackets or parentheses after a name, as Outlook writes it in the header block of a
forward or a quoted message (``Ann Lee [mailto:ann@…]``, ``Ann Lee [ann@…]``, ``Ann Lee (ann@…)``)."""


def _parties(values: list[str], role: str) -> list[Party]:
    """Parties from address headers (not yet RFC 2047-decoded, so encoded commas stay inside names); an
    unquoted ``Lee, Ann <ann@…>`` is one party named ``"Lee, Ann"`` (see :func:`_rejoin_last_first`)."""
    parties = []
    values = [re.sub(r"<\s*mailto:", "<", v, flags=re.I) for v in values]  # "Ann <mailto:ann@…>" (web forms)
    values = [_ON_BEHALF.sub(r"\1", v) for v in values]  # "list@… [mailto:list@…] On Behalf Of Ann Lee": Ann's
    values = [_MAILTO_BRACKET.sub(r"<\1>", v) for v in values]  # Outlook's "Ann Lee [mailto:ann@…]"
    # (not a group: "undisclosed-recipients:;")
    named = [v for v in values if "@" not in v and "<" not in v and ":" not in v]
    for value in named:  # names alone (Outlook's header block of a forward: "From: John Smith", "To: Doe, Jane;
        for name in value.split(";"):  # Bob Lee"; Notes' "John Smith/Acme"): each whole, split at semicolons only
            name = " ".join(decode_header_value(name).strip().strip('"').split())
            if name:
                parties.append(Party(name, None, "email", role))
    values = [v for v in values if v not in named]
    for name, address in _rejoin_last_first(getaddresses(values)):
        name, address = decode_header_value(name), address.strip()
        if address and "@" not in address and not name:  # "From: Whomever": a name, no address
            name, address = address, ""
        if name or address:
            parties.append(Party(name or None, address or None, "email", role))
    return parties


_GMAIL_SYSTEM_LABELS = {
    "Sent": ("Gesendet", "Envoyé", "Envoyés", "Messages envoyés", "Enviados", "Enviadas", "Enviado", "Inviati",
             "Posta inviata", "Verzonden", "Skickat", "Sendt", "Sendte", "Wysłane", "Lähetetyt", "Odeslané",
             "Gönderilmiş", "Gönderilenler", "Отправленные", "Надіслані", "已发送", "已傳送", "寄件備份", "送信済み",
             "보낸편지함", "Sent Mail"),
    "Trash": ("Bin", "Papierkorb", "Corbeille", "Papelera", "Lixeira", "Lixo", "Cestino", "Prullenbak",
              "Papperskorgen", "Papirkurv", "Kosz", "Roskakori", "Koš", "Çöp Kutusu", "Корзина", "Кошик",
              "已删除邮件", "垃圾桶", "ゴミ箱", "휴지통"),
    "Spam": ("Спам", "垃圾邮件", "垃圾郵件", "迷惑メール", "스팸", "Posta indesiderata"),
    "Category Promotions": ("Kategorie Werbung", "Catégorie Promotions", "Categoría Promociones",
                            "Categoria Promozioni", "Categoria Promoções", "Categorie Reclame", "Kategori Kampanjer"),
}
"""Gmail's system labels as a Takeout mbox of an account in another language writes them in ``X-Gmail-Labels``
(``Archivés,Envoyé``), each under its English name, which the import reads (the Sent label marks the owner's own
mail; Spam, Trash and Promotions are left out)."""
_GMAIL_LABEL_NAMES = {w.casefold(): en for en, words in _GMAIL_SYSTEM_LABELS.items() for w in words}


def gmail_system_labels(labels: str) -> str:
    """An ``X-Gmail-Labels`` value (decoded) with Gmail's system labels written in another language given their
    English names (:data:`_GMAIL_SYSTEM_LABELS`: ``"Archivés,Envoyé"`` → ``"Archivés,Sent"``); other labels as
    written, in order, comma-separated."""
    parts = [x.strip() for x in labels.split(",")]
    return ",".join(_GMAIL_LABEL_NAMES.get(x.casefold(), x) for x in parts if x)


_VIA_SERVICE = re.compile(r"^\s*['\"]?(\S.*?)['\"]?\s+\(?via\s+([^()]{1,60}?)\)?\s*$", re.I)
"""A sender written "<Person> via <Service>" or "<Person> (via <Service>)" (DocuSign, LinkedIn, Google Docs)."""
_VIA_NAME = re.compile(r"^\S.*?\s+via\s+\S.*$", re.I)  # "Ann Lee via Hiking Club", "'Ann Lee' via Hiking Club"
_GROUP_HOSTS = ("googlegroups.com", "groups.google.com", "yahoogroups.com", "groups.io")


def _via_list(sender: Party | None, recipients: list[Party]) -> str | None:
    """The address of the group a mail came through when its From is the group writing for someone — a display
    name ``"<Person> via <Group>"`` on an address at a group host (Google Groups, groups.io) or the one the mail
    was sent to — even when the list headers were stripped (a forwarded or re-exported copy); else None."""
    if sender is None or not sender.address or not sender.name or not _VIA_NAME.match(sender.name):
        return None
    address = sender.address.strip().lower()
    domain = address.rpartition("@")[2]
    sent_to = {(p.address or "").strip().lower() for p in recipients}
    if address in sent_to or any(domain == h or domain.endswith("." + h) for h in _GROUP_HOSTS):
        return sender.address.strip()
    return None


_PERSON_NAME = re.compile(r"^[^\W\d_][\w'.\-]*(?: [^\W\d_][\w'.\-]*){1,3}$")  # two to four plain words


def _form_author(sender: Party, reply_to: list[Party], attrs: dict) -> Party | None:
    """The person who wrote a mail a robot sent for them — a web form's or a shop's notification: the From is a role
    address (``noreply@``, ``notifications@``), not list or bulk mail, and ``Reply-To`` is one mailbox with a
    person's name (two to four plain words) at another domain's own address.  None otherwise (GitHub's
    ``Reply-To: owner/repo <reply+…@reply.github.com>`` is not a person)."""
    from core.graph.entities import is_role_address

    if len(reply_to) != 1 or not sender.address or not is_role_address(sender.address) or \
            attrs.get("list_id") or attrs.get("list_post") or attrs.get("list_unsubscribe"):
        return None
    author = reply_to[0]
    if not author.address or not author.name or is_role_address(author.address) or \
            not _PERSON_NAME.match(author.name):
        return None
    base = [".".join(a.lower().rpartition("@")[2].split(".")[-2:]) for a in (sender.address, author.address)]
    return Party(author.name, author.address, "email", "from") if base[0] != base[1] else None


_SERVICE_SUFFIX = re.compile(r"\s*\((?:[^()]{1,40})\)\s*$")


def calendar_author(msg: Message, sender: Party) -> Party | None:
    """The organizer a calendar service's invitation is sent for: From is a role address (``"Ann Lee (Google
    Calendar)" <calendar-notification@google.com>``, Outlook's and Zoom's likewise) and the mail's
    ``text/calendar`` part (RFC 5545, read with ``vobject``) names an ``ORGANIZER;CN=Ann Lee:mailto:ann@…`` whose
    name is the From's (its "(Google Calendar)" left off) at an address of another domain.  None otherwise
    (a reminder from "Google Calendar" itself names no one; a calendar part that cannot be read is no author)."""
    from core.graph.entities import is_role_address

    if not sender.address or not sender.name or not is_role_address(sender.address):
        return None
    who = " ".join(_SERVICE_SUFFIX.sub("", sender.name).split()).casefold()
    for part in msg.walk():
        if part.get_content_type() not in ("text/calendar", "application/ics"):
            continue
        try:
            import vobject

            payload = part.get_payload(decode=True) or b""
            cal = vobject.readOne(payload.decode(part.get_content_charset() or "utf-8", "replace"))
            org = cal.vevent.organizer
        except Exception:  # noqa: BLE001 — a calendar part that cannot be read names no author
            continue
        address = str(org.value or "").split(":", 1)[-1].strip()
        name = " ".join(str((org.params.get("CN") or [""])[0]).strip('"').split())
        if "@" in address and name and name.casefold() == who and \
                address.rpartition("@")[2].casefold() != sender.address.rpartition("@")[2].casefold():
            return Party(name, address, "email", "from")
    return None


def normalise_subject(subject: str | None) -> str | None:
    """A thread key from a subject: reply/forward prefixes (in many languages) and list tags dropped, spaces
    collapsed, case folded (:func:`core.extraction.quoted.bare_subject`).

    Returns None for an empty subject.
    """
    return bare_subject(subject).casefold() or None


def _msg_ids(value: str | None) -> list[str]:
    if not value:
        return []
    return _MSGID.findall(value) or value.split()[:1]


def _body_charset(msg: Message) -> str | None:
    """The charset the message's first text part declares (a hint for raw 8-bit headers), or None."""
    for part in msg.walk():
        if part.get_content_maintype() == "text":
            charset = part.get_content_charset()
            if charset:
                return charset
        if part.get_content_type() == "message/rfc822":
            break
    return None


def header_record(msg: Message, path: Path, index: int, text: str, notes: list[str],
                  mbox_from: str | None = None, order: "MailboxOrder | None" = None) -> Record:
    """The header → Record mapping of one parsed message (the one place that reads mail headers).

    Args:
        msg: the parsed message; path: its file; index: its 1-based position in the file;
        text: its body text (already chosen by :func:`body_of`); notes: notes so far (appended to);
        mbox_from: the mbox ``From_`` line, if any (kept in ``attrs``; its date is the fallback time).
        order: the order its mailbox writes numeric dates in (:func:`mailbox_date_order`), or None.
    Returns:
        A Record of kind ``"email"`` (see :func:`message_records`).
    """
    headers: dict[str, list[str]] = {}
    for name, value in msg.raw_items():
        headers.setdefault(name.lower(), []).append(value)

    hint = _body_charset(msg)

    def first(name: str) -> str | None:
        values = headers.get(name)
        return decode_header_value(values[0], hint) if values else None

    def undecoded(name: str) -> list[str]:  # 8-bit made text, RFC 2047 words left for later
        return [raw_header_text(v, hint) for v in headers.get(name, [])]

    attrs: dict = {"index": index, "content_type": msg.get_content_type()}
    subject = first("subject")
    message_id = first("message-id")
    sent_at = _sent_at(first("date"), mbox_from, notes, attrs, headers.get("received"), order)
    senders = _parties(undecoded("from") or undecoded("sender"), "from")
    recipients = _parties(undecoded("to"), "to") + _parties(undecoded("cc"), "cc")
    if len(senders) > 1:  # several authors (RFC 5322 3.6.2): the one Sender names sent it; the others are kept
        agent = {p.address.lower() for p in _parties(undecoded("sender"), "from") if p.address}
        senders.sort(key=lambda p: not (p.address and p.address.lower() in agent))
        attrs["other_authors"] = [{"name": p.name, "address": p.address} for p in senders[1:]]
        notes.append("written by several: " + ", ".join(p.name or p.address or "" for p in senders))

    references, in_reply_to = _msg_ids(first("references")), _msg_ids(first("in-reply-to"))
    thread_subject = normalise_subject(subject)
    gmail_thread = (first("x-gm-thrid") or "").strip()
    thread = f"gmail-thread:{gmail_thread}" if gmail_thread.isdigit() else \
        (references or in_reply_to or _msg_ids(message_id) or [thread_subject])[0]

    for key, value in (("message_id", message_id), ("list_id", first("list-id")),
                       ("in_reply_to", first("in-reply-to")), ("mbox_from", mbox_from),
                       ("thread_subject", thread_subject), ("gmail_labels", first("x-gmail-labels")),
                       # who is behind a mailing list's copy (core/graph/parties.py): the list, and the author
                       ("list_post", first("list-post")), ("reply_to", first("reply-to")),
                       ("x_original_from", first("x-original-from")), ("sender", first("sender")),
                       ("x_original_sender", first("x-original-sender")),  # Google Groups: the author's address
                       ("precedence", first("precedence")), ("list_unsubscribe", first("list-unsubscribe"))):
        if value:
            attrs[key] = value
    if references:
        attrs["references"] = references
    auto = (first("auto-submitted") or "").split(";")[0].strip().lower()
    if auto and auto != "no":
        attrs["auto_submitted"] = auto  # RFC 3834: auto-generated / auto-replied
    elif msg.get_content_type() == "multipart/report":
        attrs["auto_submitted"] = "report"  # a delivery or read report (RFC 6522)
    if attrs.get("gmail_labels"):
        labels = gmail_system_labels(attrs["gmail_labels"])
        if labels != attrs["gmail_labels"]:
            attrs["gmail_labels"], attrs["gmail_labels_written"] = labels, attrs["gmail_labels"]
    via = _via_list(senders[0] if senders else None, recipients)
    if via:
        attrs["via_list"] = via
    elif senders and senders[0].address and not (attrs.get("list_id") or attrs.get("list_post")) and \
            (service := _VIA_SERVICE.match(senders[0].name or "")):
        # "Jane Doe via DocuSign <dse@docusign.net>": Jane, through a service whose address is not hers
        attrs["sent_via"] = f"{service.group(2).strip()} <{senders[0].address}>"
        senders[0] = Party(service.group(1).strip(), None, "email", "from")
    elif senders and (author := _form_author(senders[0], _parties(undecoded("reply-to"), "from"), attrs)):
        # "Website <noreply@site.example>" with "Reply-To: Ann Lee <ann@…>": a web form's mail, written by Ann
        attrs["sent_via"] = f"{senders[0].name or ''} <{senders[0].address}>".strip()
        senders[0] = author
    elif senders and (author := calendar_author(msg, senders[0])):
        # "Ann Lee (Google Calendar)" <calendar-notification@google.com> inviting for Ann <ann.lee@acme.example>,
        # the organizer its calendar part names: two Ann Lees' invitations were one person's
        attrs["sent_via"] = f"{senders[0].name or ''} <{senders[0].address}>".strip()
        senders[0] = author

    labels = {x.strip().casefold() for x in (attrs.get("gmail_labels") or "").split(",")}
    return Record(
        source_path=str(path.absolute()),
        external_id=message_id or f"#{index}",
        kind="chat" if labels & {"chat", "chats"} else "email",  # Gmail kept Hangouts' chat messages as mail
        text=text,
        sent_at=sent_at,
        sender=senders[0] if senders else None,
        recipients=recipients,
        subject=subject,
        thread=thread,
        attrs=attrs,
        notes=notes,
    )


_INVISIBLE_IN_WORDS = dict.fromkeys(map(ord, "\u00ad\u200b\u2060\ufeff"))
"""Soft hyphens, zero-width spaces, word joiners and stray byte-order marks: invisible, but they cut a word in two
for search ("Thistle&shy;wood" in HTML mail, newsletters' zero-width spaces), so the text drops them."""


def _clean_body(text: str, notes: list[str]) -> str:
    """A body's text with ``\n`` line ends, without :data:`_INVISIBLE_IN_WORDS`, cut to :data:`MAX_TEXT`
    characters; notes say when it is empty or was cut."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_INVISIBLE_IN_WORDS)
    if not text.strip():
        notes.append("no readable text body")
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT]
        notes.append(f"body trimmed to {MAX_TEXT} characters")
    return text


_PART_EDGE = re.compile(rb"^--[^\s]{1,200}[ \t]*\r?$", re.M)  # a line that may be a MIME boundary


def _trim_parts(raw: bytes) -> tuple[bytes, bool]:
    """The message with each stretch between boundary-like lines cut to :data:`PARSE_BODY_BYTES` (True when cut).

    Only :data:`MAX_TEXT` characters of body are kept and attachments are never decoded, while
    the parser holds 8-bit bytes as 4-byte characters (a 60 MB binary part took ~800 MB to
    parse).  Cutting at boundary-like lines keeps every part's headers and the MIME structure.
    """
    if len(raw) <= PARSE_BODY_BYTES:
        return raw, False
    out: list[bytes] = []
    pos, trimmed = 0, False
    for m in [*_PART_EDGE.finditer(raw), None]:
        end = m.start() if m is not None else len(raw)
        if end - pos > PARSE_BODY_BYTES:
            out += [raw[pos:pos + PARSE_BODY_BYTES], b"\n"]
            trimmed = True
        else:
            out.append(raw[pos:end])
        pos = end
    return b"".join(out), trimmed


def message_records(raw: bytes, path: Path, index: int, mbox_from: str | None = None,
                    order: "MailboxOrder | None" = None) -> list[Record]:
    """Turn one message's bytes into Records: the message itself, then each message forwarded inside it.

    Args:
        raw: the message (headers and body), without any mbox ``From_`` line.
        path: the file it came from; index: its 1-based position in that file.
        mbox_from: the mbox ``From_`` line (decoded), kept in ``attrs``; its date is used when the
            ``Date`` header is missing or unreadable (``attrs["date_source"] = "envelope"``).
        order: the order the message's mailbox writes numeric dates in (:func:`mailbox_date_order`), or None: a
            date that reads either way (``04/05/2021``: a forwarded message's Date line, a Date header not in the
            standard form) is read in it when nothing nearer settles it.

    Returns:
        First a Record of kind ``"email"``: ``external_id`` the Message-ID (or ``"#<index>"``),
        ``text`` the sender's own words (:func:`body_of`; line endings ``\\n``, at most
        :data:`MAX_TEXT` chars), ``sent_at`` tz-aware at the sender's offset or None, ``thread`` Gmail's own
        thread (``X-GM-THRID`` in a Takeout mbox, as ``"gmail-thread:<id>"``: it also joins replies that carry no
        References), else the References root, else the In-Reply-To, else the Message-ID itself (so a first
        message and its replies share a key), else the normalised subject.  Then one Record per forwarded
        ``message/rfc822`` part, attributed to *its* sender, in the same thread, with
        ``attrs["forwarded_in"]`` = the ``external_id`` of the message it was forwarded in (the
        outer record lists them in ``attrs["forwarded"]``, and names them as its text when it has none of its own:
        ``[forwarded: venue options from Venue Desk]``); a message forwarded inside a forwarded
        message follows it, forwarded in it (up to :data:`MAX_FORWARD_DEPTH` levels).  A message
        forwarded *in the text* (under Gmail's
        ``---------- Forwarded message ---------``, Thunderbird's or Apple Mail's separator, with its
        ``From:``/``Date:``/``Subject:`` lines) is cut from the outer text and is such a Record too; its Date
        line, written without a zone, is read at the outer message's offset (``date_source`` ``"forward-header"``).
        So is the message a reply quotes at the end of its text (:func:`core.extraction.quoted.split_reply_quote`),
        with ``attrs["quoted_in"]`` (the reply lists them in ``attrs["quoted"]`` and keeps its whole former text in
        ``former_text``, so an import made before knows it again); a quote named without an address (``On Monday,
        Ann Lee wrote:``) takes the address of the reply's participant of that name (:func:`quote_sender`; its
        identity by name alone kept as ``former_identity``).

    Raises:
        Exception: whatever the parser raises on a message it cannot handle (the
        callers turn it into a :class:`RecordError`).
    """
    raw, trimmed = _trim_parts(raw)
    raw, refolded = refold_headers(raw)
    msg = BytesParser(policy=POLICY).parsebytes(raw)
    chat = gtalk_records(msg, path, index, mbox_from)
    if chat is not None:
        return chat
    text, forwarded, notes = body_of(msg)
    if trimmed:
        notes.append(f"a part over {PARSE_BODY_BYTES // MIB} MiB: only its start was read")
    if refolded:
        notes.append("a header line wrapped without the space that marks a continuation: read as one")
    text = unarmor(text.replace("\r\n", "\n"), notes)
    if _is_encrypted(msg):
        notes.append("the message is encrypted (PGP/MIME or S/MIME): its text cannot be read")
    inline = split_inline_forward(notes_forward(text, _date_of(msg), order))
    quoted = False
    if inline is None:  # Outlook's forward: its header block, no separator (a "FW:" subject says it is one)
        try:
            subject = str(msg.get("subject") or "")
        except Exception:  # a subject the parser cannot read: no forward to find by it
            subject = ""
        inline = split_header_block_forward(text, subject)
        if inline is None:  # a reply: the message it quotes below the writer's lines is that message's sender's
            inline = split_reply_quote(text, subject, sent=_date_of(msg))
            quoted = inline is not None
    whole = text
    if inline is not None:
        text = inline.before
        notes.append("the message quoted in the reply: kept as its own record, its sender's words" if quoted
                     else "a message forwarded in the text: kept as its own record")
    main = header_record(msg, path, index, _clean_body(text, notes), notes, mbox_from, order)
    if quoted and (former := _clean_body(whole, [])) != main.text:
        main.former_text = former  # as imports before the quote was its own record stored it: known again
    files = attachment_names(msg)
    if files:
        main.attrs["attachments"] = files
        if not (main.text or "").strip():  # only files: the record says which (findable, never blank)
            main.text = f"[attached: {', '.join(files)}]"
            main.notes.append("no text of its own: its attached files are named instead")
    out = [main]
    _add_attached(main, msg, out)
    _add_forwarded(main, forwarded, path, index, out, 1, order)
    if inline is not None:
        rec = _inline_record(main, inline, path, index, order)
        out.append(_quoted_record(main, rec, len(out)) if quoted else _forwarded_record(main, rec, len(out)))
        for _ in range(MAX_FORWARD_DEPTH - 1 if quoted else 0):  # the message the quoted one quotes in turn
            deeper = split_reply_quote(rec.text, rec.subject, sent=rec.sent_at)
            if deeper is None:
                break
            rec.text = _clean_body(deeper.before, [])
            inner = _inline_record(rec, deeper, path, index, order)
            out.append(_quoted_record(rec, inner, len(out)))
            rec = inner
        people = [p for p in (main.sender, *main.recipients) if p is not None]
        for q in out:
            if "quoted_in" in q.attrs:  # the same message quoted in several replies is one record
                named = _quote_identity(q)  # as imports before names were resolved to addresses stored it
                found = quote_sender(q.sender, people)
                if found is not None:  # "On Monday, Ann Lee wrote:": the Ann Lee the reply is from, to or cc
                    q.sender = found
                    q.former_identity = named
                q.identity = _quote_identity(q)
    if not (main.text or "").strip() and main.attrs.get("forwarded"):  # only forwarded mail: say whose (never blank)
        main.text = "[forwarded: " + "; ".join(
            " from ".join(x for x in (f.get("subject") or "a message", f.get("from")) if x)
            for f in main.attrs["forwarded"]) + "]"
        main.notes.append("no text of its own: the messages it forwards are named instead")
    return out


# Lotus Notes' forward separator, in the languages Notes writes it: "----- Forwarded by Jane Doe/Acme on 04/03/2024
# 09:58 -----", "----- Weitergeleitet von … am … -----", "----- Réacheminé par … le … -----", …
_NOTES_FORWARD = re.compile(
    r"^[ \t]*-{3,}[ \t]*(?:Forwarded by|Weitergeleitet von|R[ée]achemin[ée] par|Transf[ée]r[ée] par|Reenviado por|"
    r"Inoltrato da|Doorgestuurd door|Encaminhado por|Vidarebefordrat av|Videresendt af|Przesłane dalej przez)"
    r"[ \t]+.+?[ \t]+-{3,}[ \t]*$", re.I | re.M)
# its header zone's labels, alone on a line (the value on the next) or followed by a colon and the value
_NOTES_LABEL = re.compile(r"^[ \t]*(?P<label>to|cc|bcc|subject|an|kopie|blindkopie|betreff|à|objet|para|asunto|"
                          r"a|oggetto|aan|onderwerp|assunto|till|ämne|temat|do)[ \t]*(?::[ \t]*(?P<value>.*))?$", re.I)
_NOTES_SUBJECT = {"subject", "betreff", "objet", "asunto", "oggetto", "onderwerp", "assunto", "ämne", "temat"}
_NOTES_TO = {"to", "an", "à", "para", "a", "aan", "till", "do"}
_NOTES_DATE = re.compile(r"\d{1,4}[./-]\d{1,2}[./-]\d{1,4}")


def _notes_name(value: str) -> str:
    """A Notes hierarchical name as a display name: ``CN=John Smith/OU=Sales/O=Acme`` and ``John Smith/Acme@Acme``
    are ``John Smith``; an Internet address (``"John Smith" <john@acme.example>``) is kept as it is."""
    if "@" in value and "<" in value or re.fullmatch(r"[^\s/]+@[^\s/]+", value.strip()):
        return value.strip()
    return re.sub(r"^CN=", "", value.split("/", 1)[0].strip(), flags=re.I)


def _date_of(msg: Message) -> datetime | None:
    """The message's Date header read (None when missing or unreadable)."""
    try:
        value = msg.get("date")
        return _parse_date(str(value), [], {}) if value else None
    except Exception:
        return None


_SLASHED = re.compile(r"(?<!\d)(\d{1,2})([./-])(\d{1,2})\2(\d{4})(?!\d)")


def _notes_order(separator: str, sent: datetime | None) -> str | None:
    """``"DMY"`` or ``"MDY"`` when the date in a Notes forward separator (the day it was forwarded: ``on
    04/03/2024 09:58``) is the mail's own day (``sent``) in that order only; else None."""
    m = _SLASHED.search(separator)
    if m is None or sent is None:
        return None
    a, b, year = int(m.group(1)), int(m.group(3)), int(m.group(4))
    fits = [order for order, (day, month) in (("DMY", (a, b)), ("MDY", (b, a)))
            if (year, month) == (sent.year, sent.month) and abs(day - sent.day) <= 1]
    return fits[0] if len(fits) == 1 else None


def notes_forward(text: str, sent: datetime | None = None, mailbox: "MailboxOrder | None" = None) -> str:
    """``text`` with a Lotus Notes forward (:data:`_NOTES_FORWARD`, then the forwarded mail's sender and time
    each on a line, then its To/cc/Subject labels, each with its value after a colon or on the next line) written
    as Gmail's separator and header lines, which :func:`split_inline_forward` reads; ``text`` as it is when it
    holds none.  (Notes writes no ``From:`` label, so the forwarded words stayed the forwarder's.)  A forwarded
    date written ``01/03/2024`` is written year-first when the separator's own date (the day of forwarding) is
    the mail's ``sent`` day in one order only (``on 04/03/2024`` in mail of 4 March: day-first), else when its
    ``mailbox`` writes its numeric dates in one order (:func:`mailbox_date_order`)."""
    m = _NOTES_FORWARD.search(text)
    if m is None:
        return text
    order = _notes_order(m.group(0), sent) or (mailbox.order if mailbox is not None else None)
    lines = text[m.end():].split("\n")
    i = 0

    def next_filled(k: int) -> int:
        while k < len(lines) and not lines[k].strip():
            k += 1
        return k

    i = next_filled(i)
    if i >= len(lines) or ":" in lines[i] and not _NOTES_DATE.search(lines[i]):
        return text  # a header block with labels of its own ("From: …"): the separator is all Notes added
    sender = _notes_name(lines[i])
    i = next_filled(i + 1)
    date = None
    if i < len(lines) and _NOTES_DATE.search(lines[i]) and not _NOTES_LABEL.match(lines[i]):
        date = " ".join(lines[i].split())
        if order:  # settled by the separator: written year-first, which no reader takes the other way
            date = _SLASHED.sub(lambda d: (f"{d.group(4)}-{int(d.group(3 if order == 'DMY' else 1)):02d}-"
                                           f"{int(d.group(1 if order == 'DMY' else 3)):02d}"), date, count=1)
        i = next_filled(i + 1)
    headers: dict[str, str] = {}
    while i < len(lines):
        label = _NOTES_LABEL.match(lines[i])
        if not label:
            break
        name = label["label"].casefold()
        value = label["value"]
        if value is None:  # the value on the line after the label (unless that is the next label)
            k = next_filled(i + 1)
            value = lines[k].strip() if k < len(lines) and not _NOTES_LABEL.match(lines[k]) else ""
            i = k if value else i
        key = "Subject" if name in _NOTES_SUBJECT else "To" if name in _NOTES_TO else "Cc"
        if key != "Subject":  # Notes names ("Jane Doe/Acme@Acme, Bob Lee/Acme") as names, one per semicolon
            value = "; ".join(filter(None, (_notes_name(x) for x in value.split(","))))
        headers.setdefault(key, " ".join(value.split()))
        i += 1
        if key == "Subject":
            break
        i = next_filled(i)
    if "Subject" not in headers:
        return text
    block = [f"From: {sender}"] + ([f"Date: {date}"] if date else []) + [
        f"{k}: {v}" for k, v in headers.items() if v]
    return (text[:m.start()] + "---------- Forwarded message ---------\n" + "\n".join(block) + "\n\n"
            + "\n".join(lines[next_filled(i):]))


GTALK_NAMESPACE = "google:archive:conversation"
_GTALK_KEPT = ("index", "gmail_labels")  # the attrs of the mail a chat keeps
_GTALK_NS = {"con": GTALK_NAMESPACE, "cli": "jabber:client", "int": "google:internal", "t": "google:timestamp",
             "x": "jabber:x:delay"}


def gtalk_records(msg: Message, path: Path, index: int, mbox_from: str | None = None) -> list[Record] | None:
    """The Google Talk conversation a Gmail "Chat with Ann Lee" message holds (Gmail kept its chats as mail: a
    ``text/xml`` part ``<con:conversation xmlns:con="google:archive:conversation">`` of ``<cli:message from to>``
    with a ``<cli:body>`` each), one Record (kind ``"chat"``) per message that says something; None when the
    message holds no such part (or it cannot be read: then it is read as mail).

    Each record: sender the message's ``from`` address (its ``/resource`` left out), named as the mail's headers
    name that address; recipient its ``to``; ``sent_at`` from ``<time ms>`` (else ``int:time-stamp``, else the
    ``jabber:x:delay`` stamp, UTC; else the mail's time); ``external_id`` the mail's, then ``#n``; the mail's
    subject, thread and Gmail attributes; ``attrs["gtalk"]``.  (Read as mail, the chat was a blank record
    "no readable text body", or with its HTML part, both people's words as the mail sender's.)
    """
    import xml.etree.ElementTree as ET

    # the message's own part (Gmail writes it top-level or under the top multipart/alternative), never one of a
    # message forwarded inside it
    own = [msg] if not msg.is_multipart() else [p for p in msg.get_payload() if isinstance(p, Message)]
    part = next((p for p in own if p.get_content_type() == "text/xml"), None)
    if part is None:
        return None
    try:
        data = part.get_payload(decode=True) or b""
    except Exception:
        return None
    if GTALK_NAMESPACE.encode() not in data[:4096]:
        return None
    try:
        root = ET.fromstring(data)
    except ET.ParseError:
        return None
    notes: list[str] = []
    main = header_record(msg, path, index, "", notes, mbox_from)
    names = {p.address.lower(): p.name for p in ([main.sender] if main.sender else []) + main.recipients
             if p.address and p.name}

    def party(jid: str | None, role: str) -> Party | None:
        address = (jid or "").split("/", 1)[0].strip()
        if not address:
            return None
        return Party(names.get(address.lower()), address, "email" if "@" in address else "handle", role)

    out: list[Record] = []
    for n, m in enumerate(root.iter(f"{{{_GTALK_NS['cli']}}}message"), 1):
        body = m.find("cli:body", _GTALK_NS)
        text = "".join(body.itertext()).strip() if body is not None else ""
        if not text:
            continue  # a typing or presence notice: no words
        when = None
        stamp = m.find("t:time", _GTALK_NS)
        ms = stamp.get("ms") if stamp is not None else m.get(f"{{{_GTALK_NS['int']}}}time-stamp")
        try:
            when = datetime.fromtimestamp(int(ms) / 1000, tz=timezone.utc) if ms else None
        except (ValueError, OverflowError, OSError):
            when = None
        delay = m.find("x:x", _GTALK_NS)
        if when is None and delay is not None:
            try:
                when = datetime.strptime(delay.get("stamp", ""), "%Y%m%dT%H:%M:%S").replace(tzinfo=timezone.utc)
            except ValueError:
                when = None
        rec_notes = [] if when is not None else ["no time of its own in the chat: the mail's time"]
        to = party(m.get("to"), "to")
        attrs = {k: v for k, v in main.attrs.items() if k in _GTALK_KEPT}
        attrs.update(gtalk=True, time_basis="utc" if when is not None else "mail")
        out.append(Record(source_path=main.source_path, external_id=f"{main.external_id} #{n}", kind="chat",
                          text=text[:MAX_TEXT], sent_at=when or main.sent_at, sender=party(m.get("from"), "from"),
                          recipients=[to] if to else [], subject=main.subject, thread=main.thread, attrs=attrs,
                          notes=rec_notes))
    return out or None


_PGP_SIGNED = re.compile(r"^-----BEGIN PGP SIGNED MESSAGE-----[ \t]*\n(?:[\w-]+:[^\n]*\n)*[ \t]*\n(.*?)\n?"
                         r"^-----BEGIN PGP SIGNATURE-----[ \t]*\n.*?^-----END PGP SIGNATURE-----[ \t]*$\n?",
                         re.S | re.M)
_PGP_MESSAGE = re.compile(r"^-----BEGIN PGP MESSAGE-----[ \t]*\n.*?^-----END PGP MESSAGE-----[ \t]*$",
                          re.S | re.M)


def unarmor(text: str, notes: list[str]) -> str:
    """``text`` with OpenPGP armour taken off (RFC 4880 §7): a clear-signed block (``-----BEGIN PGP SIGNED
    MESSAGE-----``, its ``Hash:`` line, the signature block) becomes the signed text with its dash-escaping
    (``- -- `` → ``-- ``) undone; an encrypted block becomes ``[encrypted message]``.  Each is noted."""
    def signed(m: re.Match) -> str:
        return re.sub(r"^- ", "", m.group(1), flags=re.M) + "\n"

    out, n = _PGP_SIGNED.subn(signed, text)
    if n:
        notes.append("an OpenPGP clear-signed text: its signature block left out")
    out, n = _PGP_MESSAGE.subn("[encrypted message]", out)
    if n:
        notes.append("an OpenPGP encrypted block: it cannot be read")
    return out


def _is_encrypted(msg: Message) -> bool:
    """True for a PGP/MIME (``multipart/encrypted``) or S/MIME enveloped (``application/pkcs7-mime`` with
    ``smime-type=enveloped-data`` or without a type) message."""
    ctype = msg.get_content_type()
    if ctype == "multipart/encrypted":
        return True
    if ctype in ("application/pkcs7-mime", "application/x-pkcs7-mime"):
        return str(msg.get_param("smime-type") or "enveloped-data").lower() in ("enveloped-data", "authenveloped-data")
    return False


_FORWARD_HEADER_NAMES = HEADER_NAMES
"""The header names of a message forwarded in the text (as the clients write them in their languages)."""


def _inline_message(inline: InlineForward) -> Message:
    """The message forwarded in a mail's text, as a parsed message (its header lines and its body)."""
    lines = []
    for name, value in inline.headers.items():
        std = _FORWARD_HEADER_NAMES.get(name.casefold())
        if std and value:
            lines.append(f"{std}: {' '.join(value.split())}")
    raw = "\n".join(lines) + "\nContent-Type: text/plain; charset=utf-8\n\n" + inline.body
    return BytesParser(policy=POLICY).parsebytes(raw.encode("utf-8"))


MAX_FORWARD_DEPTH = 8
"""Messages forwarded inside forwarded messages are read this many levels deep."""


def _add_forwarded(parent: Record, inners: list[Message], path: Path, index: int, out: list[Record],
                   depth: int, order: "MailboxOrder | None" = None) -> None:
    """Append to ``out`` a Record per ``message/rfc822`` message in ``inners`` (forwarded inside ``parent``), each
    followed by those forwarded inside it in turn, up to :data:`MAX_FORWARD_DEPTH` levels."""
    for inner in inners:
        inner_text, deeper, inner_notes = body_of(inner)
        rec = _forwarded_record(parent, header_record(inner, path, index, _clean_body(inner_text, inner_notes),
                                                      inner_notes, order=order), len(out))
        out.append(rec)
        if deeper and depth < MAX_FORWARD_DEPTH:
            _add_forwarded(rec, deeper, path, index, out, depth + 1, order)
        elif deeper:
            rec.notes.append(f"{len(deeper)} message(s) forwarded more than {MAX_FORWARD_DEPTH} levels deep: not read")


def _add_attached(main: Record, msg: Message, out: list[Record]) -> None:
    """Append to ``out`` a Record per text file ``msg`` carries (:func:`attachment_texts`), tied to ``main`` (its
    thread, ``attrs["attached_in"]``; ``main.attrs["attached"]`` names them): the file's text is searchable, and it is
    not its sender's own words — a file may be anyone's (a packing list, a report, an invitation) — so the record has
    no sender (no fact is read as theirs); its time is the message's, its subject the file's name and who attached it
    (``notes.txt (attached by Xia Wen)``).  A file whose text
    is the message's own text already (a body a mail program marked as an attachment) is not kept twice."""
    own = " ".join((main.text or "").split())
    for named, ctype, text in attachment_texts(msg):
        if own and " ".join(text.split()) in own:
            continue
        notes = [] if len(text) < TEXT_ATTACHMENT_CHARS else [
            f"attached file trimmed to its first {TEXT_ATTACHMENT_CHARS} characters"]
        attrs = {"index": main.attrs.get("index"), "content_type": ctype, "attachment": named}
        for key in ("gmail_labels", "folder"):  # filtered (Spam, Trash) as the message is
            if main.attrs.get(key):
                attrs[key] = main.attrs[key]
        if main.sender is not None:
            attrs["attached_by"] = " ".join(x for x in (main.sender.name, f"<{main.sender.address}>"
                                                         if main.sender.address else None) if x)
        who = (main.sender.name or main.sender.address) if main.sender is not None else None
        rec = Record(source_path=main.source_path, external_id="#", kind="email", text=text, sent_at=main.sent_at,
                     subject=f"{named} (attached by {who})" if who else named, attrs=attrs, notes=notes)
        out.append(_tied_record(main, rec, len(out), "attached", "a file attached to message"))


def _forwarded_record(main: Record, rec: Record, n: int) -> Record:
    """``rec``, a message forwarded inside ``main`` (the ``n``-th), tied to it: its thread, ids and notes."""
    return _tied_record(main, rec, n, "forwarded", "forwarded inside message")


def _tied_record(main: Record, rec: Record, n: int, how: str, note: str) -> Record:
    """``rec``, a message ``main`` carries (``how``: ``forwarded`` or ``quoted``; the ``n``-th record of it), tied
    to it: its thread, its id under ``main``'s, ``attrs[how + "_in"]``, a note (``note`` and ``main``'s id), and
    ``main.attrs[how]`` naming it."""
    if rec.external_id.startswith("#"):
        rec.external_id = f"{main.external_id} {how} {n}"
    rec.thread = main.thread
    rec.attrs[f"{how}_in"] = main.external_id
    rec.notes.append(f"{note} {main.external_id}"
                     + (f" by {main.sender.name or main.sender.address}" if main.sender else ""))
    main.attrs.setdefault(how, []).append(
        {"external_id": rec.external_id, "subject": rec.subject,
         "from": (rec.sender.name or rec.sender.address) if rec.sender else None})
    return rec


def _inline_record(main: Record, inline: InlineForward, path: Path, index: int,
                   order: "MailboxOrder | None") -> Record:
    """The Record of the message forwarded or quoted in ``main``'s text; its Date line, written without a zone,
    read at ``main``'s offset."""
    inner_notes: list[str] = []
    rec = header_record(_inline_message(inline), path, index, _clean_body(inline.body, inner_notes),
                        inner_notes, order=order)
    written = next((v for k, v in inline.headers.items() if _FORWARD_HEADER_NAMES.get(k.casefold()) == "Date"),
                   None)
    if rec.sent_at is not None and main.sent_at is not None and written and not _has_zone(written):
        # a forward's Date line is written in the forwarder's zone, without one: read it there
        rec.sent_at = rec.sent_at.replace(tzinfo=main.sent_at.tzinfo)
        rec.attrs["date_source"] = "forward-header"
        rec.notes[:] = [n for n in rec.notes if "UTC" not in n]
        rec.notes.append(f"the forwarded Date line ({written!r}) has no zone: read at the forwarding "
                         f"message's offset")
    return rec


def _quote_identity(q: Record) -> str:
    """What names a quoted message whatever reply it is quoted in: its writer (address, else name), time and words."""
    who = (q.sender.address or q.sender.name or "").casefold() if q.sender else ""
    when = q.sent_at.astimezone(timezone.utc).isoformat() if q.sent_at else ""
    return "mail-quote\x00" + "\x00".join((who, when, " ".join(q.text.split())))


def _name_words(name: str | None) -> tuple[str, ...]:
    """A display name's words, casefolded and sorted (``"Lee, Ann"`` and ``"ann lee"`` → ``("ann", "lee")``)."""
    return tuple(sorted(re.findall(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", (name or "").casefold())))


def _given_name(name: str | None) -> str:
    """A display name's first given name, casefolded (``"Ann Lee"``, ``"Lee, Ann"`` → ``"ann"``), or ``""``."""
    name = (name or "").strip().strip('"\'')
    if name.count(",") == 1:
        name = name.split(",")[1]
    words = re.findall(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", name.casefold())
    return words[0] if words else ""


def quote_sender(sender: Party | None, people: list[Party]) -> Party | None:
    """The writer of a quoted message named without an address (``On Monday, Ann Lee wrote:``), as the reply's
    participants name them: the one person among ``people`` (the reply's From, To and Cc) whose display name has
    the same words (``"Ann Lee"`` ↔ ``"Lee, Ann"``), or, for a one-word name (``Ann wrote:``), the one whose first
    given name it is.

    Args:
        sender: the quote's sender as its attribution line names it.
        people: the reply's parties with their addresses.
    Returns:
        ``sender`` with that person's address (its name as the attribution wrote it, or the participant's for a
        one-word name; role ``"from"``), or None when ``sender`` has an address already or no name, or no address or
        more than one matches.
    """
    if sender is None or sender.address or not (sender.name or "").strip():
        return None
    want = _name_words(sender.name)
    if not want:
        return None
    known = [p for p in people if p.address and p.address_kind == "email" and p.name]
    found: dict[str, Party] = {}
    for p in known:
        if _name_words(p.name) == want:
            found.setdefault(p.address.casefold(), p)
    if not found and len(want) == 1:
        for p in known:
            if _given_name(p.name) == want[0]:
                found.setdefault(p.address.casefold(), p)
    if len(found) != 1:
        return None
    match = next(iter(found.values()))  # a first name alone takes the participant's whole name
    return Party(sender.name if len(want) > 1 else match.name, match.address, "email", "from")


def _quoted_record(main: Record, rec: Record, n: int) -> Record:
    """``rec``, the message ``main`` quotes in reply (the ``n``-th record of it), tied to it: its thread, ids and
    notes (``attrs["quoted_in"]``; ``main.attrs["quoted"]`` names it)."""
    return _tied_record(main, rec, n, "quoted", "quoted in reply")


def message_to_record(raw: bytes, path: Path, index: int, mbox_from: str | None = None) -> Record:
    """The message's own Record (the first of :func:`message_records`)."""
    return message_records(raw, path, index, mbox_from)[0]


def _safe_records(raw: bytes, path: Path, index: int, mbox_from: str | None = None,
                  order: "MailboxOrder | None" = None) -> list[Item]:
    """The message's Records, or one RecordError when this one message cannot be read."""
    try:
        extra = {"order": order} if order is not None else {}  # (a mailbox that shows no order: called as before)
        return list(message_records(raw, path, index, mbox_from, **extra))
    except Exception as exc:  # one bad message must not cost its neighbours
        return [RecordError(str(path), f"message {index}", f"{type(exc).__name__}: {exc}")]


def _open(path: Path) -> BinaryIO:
    try:
        return open(path, "rb")
    except OSError as exc:
        raise InputError(str(path), f"cannot open: {exc.strerror or exc}") from exc


_BOM = b"\xef\xbb\xbf"
_OUTLOOK_PREAMBLE = re.compile(rb"^Microsoft Mail Internet Headers Version [\d.]+[ \t]*\r?\n")
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # an OLE compound file: Outlook's .msg
OUTLOOK_MSG = ("an Outlook .msg file (Outlook's own format), which Kith does not read: save the message as "
               ".eml, or export the mailbox as mbox (Thunderbird or Apple Mail can), and import that")
"""The reason given for an Outlook ``.msg`` file (an OLE compound document, not an RFC 822 message)."""


def _skip_preamble(data: bytes) -> bytes:
    """``data`` without what some writers put before a message's first header: a UTF-8 byte-order mark,
    blank (or whitespace-only) lines, and the ``Microsoft Mail Internet Headers Version 2.0`` line Outlook
    writes above the headers it saves."""
    data = data[len(_BOM):] if data.startswith(_BOM) else data
    while True:
        stripped = data.lstrip(b" \t")
        if stripped[:1] in (b"\r", b"\n"):
            data = stripped[1:]
        else:
            break
    m = _OUTLOOK_PREAMBLE.match(data)
    return data[m.end():] if m else data


def _looks_like_headers(head: bytes) -> float:
    """0.0–0.8: how much the start of ``head`` looks like RFC 822 header lines (its first 40 header lines, however
    many folded lines a long signature header such as ``ARC-Seal`` or ``DKIM-Signature`` takes)."""
    lines = _skip_preamble(head).splitlines()
    if not lines or not _HEADER_LINE.match(lines[0]):
        return 0.0
    known = 0
    headers = 0
    for i, line in enumerate(lines):
        if not line.strip() or headers >= 40:
            break
        match = _HEADER_LINE.match(line)
        if match:
            known += match.group(1).lower() in _KNOWN_HEADERS
            headers += 1
        elif line[:1] not in (b" ", b"\t") and i < len(lines) - 1:
            return 0.1  # a line that is neither a header nor a continuation (the last may be cut short)
    return 0.8 if known >= 2 else 0.4 if known == 1 else 0.1


# --------------------------------------------------------------------------- splitting an mbox

@dataclass
class RawMessage:
    """One message cut from an mbox: its ``From_`` line (None for a first message without one),
    its bytes (None when it is over the size limit), its size in bytes, and whether it is whole (False: the file
    stops in the middle of a line of this message, or inside its multipart body before the closing boundary —
    it was cut short)."""

    from_line: bytes | None
    data: bytes | None
    size: int
    complete: bool = True


class _CRLines:
    """A binary file whose lines end with a bare CR (classic Mac OS: Eudora's and old Mac mailboxes), read with
    ``readline`` as if they ended with LF; only what :func:`split_mbox` and :func:`split_mmdf` call."""

    def __init__(self, fh: BinaryIO):
        self.fh, self.buf = fh, b""

    def readline(self, limit: int = -1) -> bytes:
        limit = limit if limit and limit > 0 else 1 << 62
        while b"\r" not in self.buf and len(self.buf) < limit:
            more = self.fh.read(LINE_CHUNK)
            if not more:
                break
            self.buf += more
        cut = self.buf.find(b"\r")
        end = min(limit, cut + 1 if cut >= 0 else len(self.buf))
        line, self.buf = self.buf[:end], self.buf[end:]
        return line[:-1] + b"\n" if line.endswith(b"\r") else line


def _chunks(fh: BinaryIO) -> Iterator[tuple[bytes, bool]]:
    """``(piece, starts_a_line)``: the file's lines, a line longer than :data:`LINE_CHUNK` in pieces."""
    at_start = True
    while True:
        piece = fh.readline(LINE_CHUNK)
        if not piece:
            return
        yield piece, at_start
        at_start = piece.endswith(b"\n")


MAX_HEADER_BYTES = 256 * 1024  # a message's header block is looked at (for its MIME boundary) up to this size


def _top_boundary(head: bytes) -> bytes | None:
    """The boundary of a message whose header block is ``head``, when it is a multipart, else None."""
    from email.parser import BytesHeaderParser

    try:
        msg = BytesHeaderParser(policy=policy.compat32).parsebytes(head)
        if msg.get_content_maintype() != "multipart":
            return None
        boundary = msg.get_boundary()
    except Exception:  # a header the parser cannot read: no MIME structure to respect
        return None
    return boundary.encode("utf-8", "surrogateescape") if boundary else None


def refold_headers(raw: bytes) -> tuple[bytes, bool]:
    """``raw`` with header lines a broken mailer wrapped without the space or tab that marks a continuation
    (``Subject: Budget for`` / ``Q2 plans`` / ``Date: …``) made continuations, and whether any was: up to three
    such lines count when a well-known header (:func:`_message_header`) follows them in the header block.  (The
    parser took the first of them for the start of the body: the Date and Message-ID under it became text and
    the message had no time.)"""
    end = _HEADER_END.search(raw)
    if end is None or end.start() == 0:
        return raw, False
    lines = raw[:end.start()].split(b"\n")
    changed = False
    i = 1
    while i < len(lines):
        line = lines[i]
        if line[:1] in (b" ", b"	") or _HEADER_LINE.match(line):
            i += 1
            continue
        j = i
        while j < len(lines) and not (lines[j][:1] in (b" ", b"	") or _HEADER_LINE.match(lines[j])):
            j += 1
        if j >= len(lines) or j - i > 3 or not _message_header(lines[j]) or not lines[i].strip():
            break
        for k in range(i, j):
            lines[k] = b" " + lines[k]
        changed = True
        i = j
    if not changed:
        return raw, False
    return b"\n".join(lines) + raw[end.start():], True


def _message_header(line: bytes) -> bool:
    """True when ``line`` can open a message's header block after an envelope line: a header whose name is a
    well-known one (:data:`_KNOWN_HEADERS`, :data:`_ONE_WORD_HEADERS`) or has a hyphen (``X-Apple-Mail-…``, ``Thread-Topic``) — not a label
    of body text such as ``Note:`` or ``PS:``."""
    m = _HEADER_LINE.match(line)
    return bool(m and (m.group(1).lower() in _KNOWN_HEADERS or m.group(1).lower() in _ONE_WORD_HEADERS
                       or b"-" in m.group(1)))


_TRANSPORT_HEADERS = {b"return-path", b"received", b"mime-version", b"content-type", b"content-transfer-encoding",
                      b"delivered-to", b"dkim-signature", b"arc-seal", b"authentication-results", b"received-spf",
                      b"x-received", b"envelope-to", b"x-gm-thrid", b"x-gmail-labels", b"in-reply-to", b"references",
                      b"x-mailer", b"user-agent", b"x-original-to", b"list-id"}
"""Headers a message's own header block carries and an Outlook-style block pasted into a body (``From:``,
``Sent:``, ``To:``, ``Subject:``) does not."""
_MESSAGE_ID = re.compile(rb"^\s*<[^<>\s@]+@[^<>\s@]+>\s*$")
_NOT_A_MAIL_OF_ITS_OWN = re.compile(
    rb"^(?:from:[^\n]*\b(?:mailer-daemon|postmaster)\b|subject:[^\n]*(?:undeliver|returned mail|delivery (?:status|"
    rb"failure|notification)|failure notice|digest|unzustellbar|non remis|mail delivery)|content-type:[ \t]*"
    rb"(?:multipart/(?:report|digest)|message/))", re.I | re.M)
"""A header block whose message quotes other messages' whole header blocks in its body (a bounce, a digest)."""


def _unenveloped_head(fields: list[tuple[bytes, bytes]]) -> bool:
    """True when the header lines ``fields`` (name lower-cased, value) are a message's own header block, not one
    pasted into a body: a ``From:`` with an address, a ``Date:``, a ``To:``/``Subject:``/``Cc:``, and two of a
    well-formed ``Message-ID`` or two of the headers of :data:`_TRANSPORT_HEADERS`."""
    names = {n for n, _ in fields}
    value = dict(reversed(fields))
    if not ({b"from", b"date"} <= names and names & {b"to", b"subject", b"cc"} and b"@" in value[b"from"]):
        return False
    return bool(_MESSAGE_ID.match(value.get(b"message-id", b""))) or len(names & _TRANSPORT_HEADERS) >= 2


def split_mbox(fh: BinaryIO, max_message_bytes: int = MAX_MESSAGE_BYTES,
               first_has_envelope: bool = True) -> Iterator[RawMessage]:
    """Cut an open mbox file into messages, holding at most one message (≤ ``max_message_bytes``) in memory.

    A line separates two messages only when it follows a blank line, has the envelope
    shape (:func:`is_envelope`: ``From``, an address, a date) **and** a header line follows
    it — or, with no blank line before it (some writers leave none), when a whole header block
    follows it.  (In an mbox whose first message has no headers at all, the envelope shape alone
    is enough.)  Any other line starting ``From `` is body text, quoted or not.  Inside a
    multipart message whose closing boundary (``--boundary--``) has not come yet, even such a
    line is body text (a ``git format-patch`` file or a saved mbox attached unencoded starts
    with one); should the closing boundary never come (a message cut short), the message is
    cut at the first of those lines after all, so no message after it is lost.  The blank
    line before each ``From_`` line is dropped, and ``^>+From `` lines lose one ``>``
    (mboxrd un-quoting).  A message over ``max_message_bytes`` is not kept: it comes back
    with ``data=None`` and its size, and the file goes on being read after it.  A message whose
    envelope line is missing (a mailbox stitched together by hand or by a broken tool) starts where,
    after a blank line in a message's plain body, a whole header block comes that is a message's own
    (:func:`_unenveloped_head`: ``From:`` with an address, ``Date:``, ``To:``/``Subject:``, and a
    ``Message-ID`` or two of ``Return-Path``/``Received``/``MIME-Version``/… — never an Outlook block pasted
    in a body), unless the text above it ends with ``:`` or a rule, or the message is a bounce or digest.

    Args:
        fh: the file, positioned at the first message (its ``From_`` line, or its headers
            when ``first_has_envelope`` is False).
        max_message_bytes: the most bytes of one message held in memory.
        first_has_envelope: whether the first message starts with a ``From_`` line.
    Yields:
        :class:`RawMessage` per message, in file order.
    """
    source = _chunks(fh)
    replay: list[tuple[bytes, bool]] = []  # pieces to read again before the file's next ones
    from_line: bytes | None = None
    parts: list[bytes] = []
    size = 0
    over = False
    started = not first_has_envelope
    require_headers = not first_has_envelope
    deciding = False  # the line after the first envelope decides require_headers
    pending: bytes | None = None  # an envelope-shaped line waiting to see whether headers follow
    previous_blank = True
    last_piece = b"\n"
    in_headers = not first_has_envelope  # reading the current message's header block
    head: list[bytes] = []
    head_size = 0
    closing: bytes | None = None  # the current message's closing boundary line while it has not come
    deferred: list[int] = []  # positions in ``parts`` of envelope lines kept as body inside an open multipart
    own_head = b""  # the current message's header block (for a bounce or digest, whose body quotes whole headers)
    last_text = b""  # the current message's last non-blank body line
    closed_by = b""  # the line that closed the current message's multipart (its closing boundary), once it came

    def add(piece: bytes) -> None:
        nonlocal size, over
        size += len(piece)
        if over:
            return
        if size > max_message_bytes:
            over = True
            parts.clear()
            deferred.clear()
        else:
            parts.append(piece)

    def finish() -> RawMessage:
        if parts and not parts[-1].strip():
            parts.pop()  # the separator before the next From_ line
        data = None if over else _MBOXRD_QUOTED.sub(rb"\1", b"".join(parts))
        return RawMessage(from_line, data, size)

    def begin(line: bytes | None) -> None:
        nonlocal from_line, size, over, in_headers, head_size, closing, last_text, closed_by
        from_line, size, over, last_text, closed_by = line, 0, False, b"", b""
        parts.clear()
        deferred.clear()
        head.clear()
        declared.clear()
        in_headers, head_size, closing = True, 0, None

    def cut_at_deferred(extra: list[tuple[bytes, bool]]) -> None:
        """The open multipart never closed: read again from its first deferred envelope line, as a separator."""
        nonlocal size, closing, previous_blank
        at = deferred[0]
        tail = parts[at:]
        del parts[at:]
        size -= sum(map(len, tail))
        deferred.clear()
        closing = None
        again, starts = [], True
        for t in tail:
            again.append((t, starts))
            starts = t.endswith(b"\n")
        replay[:0] = again + extra
        previous_blank = True

    declared: list[int] = []  # the Content-Length of the message whose header block just ended

    def unenveloped_message_follows(first: bytes) -> bool:
        """True when ``first`` and the lines after it are a whole header block of a message of its own
        (:func:`_unenveloped_head`), in a plain body where such a block may start a message whose envelope
        line is missing; what was read ahead is read again either way."""
        if _NOT_A_MAIL_OF_ITS_OWN.search(own_head) or last_text.lstrip().startswith(b">") or (
                last_text.rstrip().endswith((b":", b"-", b"_", b"=", b"*")) and last_text != closed_by):
            return False
        fields, whole = read_head(first)
        return whole and _unenveloped_head(fields)

    def pull() -> tuple[bytes, bool] | None:
        return replay.pop(0) if replay else next(source, None)

    def read_head(first: bytes | None = None) -> tuple[list[tuple[bytes, bytes]], bool]:
        """The header lines from ``first`` (a line already read) or the next line, each with its continuations, up
        to a blank line (at most 100 fields, :data:`MAX_HEADER_BYTES`): ``(fields as (lower-case name, value),
        whether a blank line ended them)``; what was read ahead is read again."""
        ahead: list[tuple[bytes, bool]] = []
        fields: list[tuple[bytes, bytes]] = []
        whole, read, line = False, len(first or b""), first
        while True:
            if line is None:
                nxt = pull()
                if nxt is None:
                    break
                ahead.append(nxt)
                line, starts = nxt
                read += len(line)
                if not starts or not line.endswith(b"\n"):
                    break
                if not line.strip():
                    whole = True
                    break
            m = _HEADER_LINE.match(line)
            if m:
                fields.append((m.group(1).lower(), line[m.end():].strip()))
            elif line[:1] in (b" ", b"\t") and fields:
                fields[-1] = (fields[-1][0], fields[-1][1] + b" " + line.strip())
            else:
                break
            if len(fields) > 100 or read > MAX_HEADER_BYTES:
                break
            line = None
        replay[:0] = ahead
        return fields, whole

    def header_block_follows() -> bool:
        """True when the next lines are a whole header block (header or continuation lines up to a blank line,
        two or more of them well-known names); what was read ahead is read again either way."""
        fields, whole = read_head()
        return whole and sum(name in _KNOWN_HEADERS for name, _v in fields) >= 2

    def take_declared(length: int) -> bool:
        """mboxcl/mboxcl2: when the message's ``Content-Length`` ends its body exactly where a line ends and is
        followed by the end of the file or an envelope line (maybe after a blank line), the body is those bytes,
        ``From `` lines in it included; else everything read ahead is read again as usual (False)."""
        nonlocal previous_blank, closing
        ahead: list[tuple[bytes, bool]] = []
        got = 0
        while got < length and got <= max_message_bytes:
            nxt = pull()
            if nxt is None:
                break
            ahead.append(nxt)
            got += len(nxt[0])
        after: list[tuple[bytes, bool]] = []
        ok = got == length and (not ahead or ahead[-1][0].endswith(b"\n"))
        while ok:
            nxt = pull()
            if nxt is None:
                break
            after.append(nxt)
            if not nxt[0].strip() and len(after) == 1:
                continue  # the blank line before the next envelope line
            ok = is_envelope(nxt[0])
            break
        if not ok:
            replay[:0] = ahead + after
            return False
        for piece, _ in ahead:
            add(piece)
        closing = None  # the length says where the body ends, whatever its MIME structure
        replay[:0] = after
        previous_blank = True
        return True

    def track(piece: bytes, at_start: bool) -> None:
        """Follow the current message's header block (for its boundary), then whether its multipart closed."""
        nonlocal in_headers, head_size, closing, own_head, closed_by
        if in_headers:
            if at_start and not piece.strip():
                in_headers = False
                own_head = b"".join(head)
                boundary = _top_boundary(b"".join(head))
                closing = b"--" + boundary + b"--" if boundary else None
                length = _CONTENT_LENGTH.search(b"".join(head))
                declared[:] = [int(length.group(1))] if length else []
                head.clear()
            elif head_size < MAX_HEADER_BYTES:
                head.append(piece)
                head_size += len(piece)
        elif closing is not None and at_start and piece.rstrip() == closing:
            closing, closed_by = None, piece
            deferred.clear()

    while True:
        if replay:
            piece, at_start = replay.pop(0)
        else:
            nxt = next(source, None)
            if nxt is None:
                if deferred and not over:
                    if pending is not None:  # the file's last line: body text of the open message
                        add(pending)
                        pending = None
                    cut_at_deferred([])
                    continue
                break
            piece, at_start = nxt
        last_piece = piece
        if deciding:
            require_headers = bool(at_start and _HEADER_LINE.match(piece))
            deciding = False
        if pending is not None:
            if not require_headers or (at_start and _message_header(piece)):
                if closing is not None and not over:  # inside an open multipart: body, unless it never closes
                    deferred.append(len(parts))
                    add(pending)
                else:
                    yield finish()
                    begin(pending)
            else:
                add(pending)
            pending = None
        if deferred and not over and size + len(piece) > max_message_bytes:
            cut_at_deferred([(piece, at_start)])  # too big to be one message: the multipart never closed
            continue
        if at_start and previous_blank and piece.startswith(b"From "):
            if not started:
                started, deciding = True, True
                begin(piece)
                previous_blank = False
                continue
            if is_envelope(piece):
                pending = piece
                previous_blank = False
                continue
        if at_start and started and not previous_blank and not in_headers and closing is None and \
                piece.startswith(b"From ") and is_envelope(piece) and header_block_follows():
            pending = piece  # a writer that leaves no blank line before the envelope line
            continue
        if at_start and started and previous_blank and not in_headers and closing is None and not deferred and \
                _HEADER_LINE.match(piece) and unenveloped_message_follows(piece):
            yield finish()  # a message whose envelope line is missing
            begin(None)
        if not started:  # cannot happen when positioned as documented; be safe
            started = True
        add(piece)
        track(piece, at_start)
        if at_start and not in_headers and piece.strip():
            last_text = piece
        previous_blank = at_start and piece.endswith(b"\n") and not piece.strip()
        if declared and not over:
            take_declared(declared.pop())
    if pending is not None:
        if require_headers:
            add(pending)
        else:
            yield finish()
            begin(pending)
    if started:
        last = finish()
        # cut short: the file stops inside a line, or inside a multipart body whose closing boundary never came
        last.complete = last_piece.endswith(b"\n") and (closing is None or over)
        yield last


MMDF_MARK = b"\x01\x01\x01\x01"
"""The line (four Ctrl-A bytes) that opens and closes each message of an MMDF mailbox (SCO, old MMDF and
some Unix mail tools)."""


def split_mmdf(fh: BinaryIO, max_message_bytes: int = MAX_MESSAGE_BYTES) -> Iterator[RawMessage]:
    """Cut an open MMDF mailbox into messages: each lies between a :data:`MMDF_MARK` line and the next one
    (``From `` lines inside are body text; an mbox envelope line right after the opening mark is taken as the
    message's ``From_`` line).  Text outside the marks (blank lines) is skipped; a message the file ends inside
    of (its closing mark missing) is kept with ``complete=False``.

    Args:
        fh: the file, positioned at the first mark; max_message_bytes: as for :func:`split_mbox`.
    Yields:
        :class:`RawMessage` per message, in file order (``data=None`` for one over the size limit).
    """
    parts: list[bytes] = []
    inside, over, size = False, False, 0
    from_line: bytes | None = None
    first = False
    for piece, at_start in _chunks(fh):
        if at_start and piece.rstrip(b"\r\n") == MMDF_MARK:
            if inside:
                yield RawMessage(from_line, None if over else b"".join(parts), size)
            inside, over, size, from_line, first = not inside, False, 0, None, True
            parts.clear()
            continue
        if not inside:
            continue
        if first and at_start and piece.startswith(b"From ") and is_envelope(piece):
            from_line, first = piece, False
            continue
        first = False
        size += len(piece)
        if size > max_message_bytes:
            over = True
            parts.clear()
        elif not over:
            parts.append(piece)
    if inside and size:
        yield RawMessage(from_line, None if over else b"".join(parts), size, complete=False)


# --------------------------------------------------------------------------- the ingestors

class MboxIngestor:
    """Reads an mbox file (mboxo, mboxrd, mboxcl/mboxcl2 with ``Content-Length``, or MMDF): one Record per
    message, in file order.

    Args:
        max_message_bytes: a message bigger than this is left out (a RecordError saying so) and
            the rest of the file is read; memory stays bounded by it (default :data:`MAX_MESSAGE_BYTES`).
    """

    name = "mbox"
    suffixes = frozenset({".mbox", ".mbx", ".mmdf"})

    def __init__(self, max_message_bytes: int = MAX_MESSAGE_BYTES):
        self.max_message_bytes = max_message_bytes

    def sniff(self, path: Path, head: bytes) -> float:
        """0.9 when ``head`` starts with an mbox ``From_`` line with a time in it, 0.6 without one, else 0."""
        head = _skip_preamble(head)
        if head.startswith(MMDF_MARK + b"\n") or head.startswith(MMDF_MARK + b"\r\n"):
            return 0.9  # an MMDF mailbox
        if not head.startswith(b"From "):
            return 0.0
        first = head.split(b"\n", 1)[0]
        return 0.9 if re.search(rb"\d\d:\d\d", first) else 0.6

    def read(self, path: Path) -> Iterator[Item]:
        """Yield the Records of each message (see :func:`message_records`), or a RecordError for a
        message that cannot be parsed or is over the size limit.

        Args:
            path: the mbox file.  Its first message may lack the ``From_`` line (it starts with headers).
        A UTF-8 byte-order mark and blank lines before the first message are skipped, and so is the
        "FOLDER INTERNAL DATA" pseudo-message UW-IMAP and Pine keep first (:func:`is_folder_internal_data`); lines
        may end with LF,
        CRLF or (classic Mac OS) a bare CR.  The messages of a Sent, Trash or Junk folder (:func:`mailbox_folder`)
        carry ``attrs["folder"]``; when the mailbox writes its numeric dates in one order (:func:`mailbox_date_order`),
        every record carries it (``attrs["date_order"]`` ``"DMY"``/``"MDY"``, ``["date_order_basis"]`` a date of it
        that reads that way only), as a WhatsApp chat's lines do; a Sent folder's are ``attrs["is_from_me"]`` too (the owner wrote them; messages
        forwarded inside them are not marked).  A last message the
        file ends inside of (inside a line, or inside its multipart before the closing boundary) is kept with a note
        and ``attrs["cut_short"]``, what to tell the user (:func:`cut_short_reason`: the import reports it as an
        error naming the file and the message), or, when the file ends inside its headers, left out with a
        RecordError.

        Raises:
            InputError: the file cannot be opened, holds no message ("no messages in this file"), is an
                Outlook ``.msg`` file, or starts with neither a ``From `` line nor mail headers.
        """
        path = Path(path)
        with _open(path) as fh:
            head = fh.read(SNIFF_BYTES)
            body = _skip_preamble(head)
            start = len(head) - len(body)
            if not body.strip():
                raise InputError(str(path), "no messages in this file")
            if body.startswith(_OLE_MAGIC):
                raise InputError(str(path), OUTLOOK_MSG)
            has_envelope = body.startswith(b"From ")
            mmdf = body.startswith(MMDF_MARK)
            if not has_envelope and not mmdf and _looks_like_headers(body) < 0.4:
                raise InputError(str(path), "not an mbox file: it starts with neither a 'From ' line nor mail headers")
            fh.seek(start)
            lines = _CRLines(fh) if b"\r" in body and b"\n" not in body else fh  # bare-CR line ends (old Macs)
            messages = (split_mmdf(lines, self.max_message_bytes) if mmdf else
                        split_mbox(lines, self.max_message_bytes, has_envelope))
            folder = mailbox_folder(path)
            order = mailbox_date_order(path)  # the order its numeric dates are written in, if it shows one
            for index, message in enumerate(messages, 1):
                envelope = decode_bytes(message.from_line, None).strip() if message.from_line else None
                if message.data is None:
                    yield RecordError(str(path), f"message {index}",
                                      f"message is over {self.max_message_bytes // MIB} MiB "
                                      f"({message.size // MIB} MiB): left out, the rest of the file is read")
                    continue
                if not message.complete and not _HEADER_END.search(message.data):
                    yield RecordError(str(path), f"message {index}",
                                      "the file ends inside this message's headers (it was cut short): "
                                      "left out, the messages before it are read")
                    continue
                if index == 1 and is_folder_internal_data(message.data):
                    continue  # UW-IMAP/Pine's "DON'T DELETE THIS MESSAGE" record of the folder's own state
                items = _safe_records(message.data, path, index, envelope, order)
                if folder and items and isinstance(items[0], Record):
                    for item in items[:1] if folder == "Sent" else items:
                        item.attrs["folder"] = folder  # the import leaves Trash and Junk out, as Gmail's labels
                    if folder == "Sent":
                        items[0].attrs["is_from_me"] = True  # the mail program's Sent folder: the owner wrote it
                        items[0].attrs["is_from_me_basis"] = "folder"  # a file name's word (core.graph.parties)
                if order is not None:  # as a WhatsApp chat's lines say theirs: for whoever reads dates in the text
                    for item in items:
                        if isinstance(item, Record):
                            item.attrs.setdefault("date_order", order.order)
                            item.attrs.setdefault("date_order_basis", f"the mailbox writes {order.example}")
                if not message.complete and items and isinstance(items[0], Record):
                    items[0].notes.append("the file ends in the middle of this message: its text may be cut short")
                    # the user is told (app.operations.ingest makes it an error of the import: `kith ingest` exits
                    # 2), the message kept as far as it goes
                    items[0].attrs["cut_short"] = cut_short_reason(items[0])
                yield from items


def cut_short_reason(rec: Record) -> str:
    """What to tell the user about ``rec``, the last message of a file that ends in the middle of it (a copy or
    download that stopped): it is named by its sender, time and subject, and said to be kept as far as it goes."""
    who = (rec.sender.name or rec.sender.address) if rec.sender is not None else None
    named = ", ".join(x for x in (f"from {who}" if who else None,
                                  rec.sent_at.isoformat() if rec.sent_at else None,
                                  repr(rec.subject) if rec.subject else None) if x)
    return ("the file ends in the middle of this message" + (f" ({named})" if named else "")
            + ": it was cut short; what there is of it is kept, its text may be incomplete")


_FOLDER_NAMES = {
    "Sent": {"sent", "sent mail", "sent-mail", "sent items", "sent messages", "sent email",
             *(w.casefold() for w in _GMAIL_SYSTEM_LABELS["Sent"])},
    "Trash": {"trash", "deleted items", "deleted messages", "deleted", "bin",
              *(w.casefold() for w in _GMAIL_SYSTEM_LABELS["Trash"])},
    "Junk": {"junk", "junk e-mail", "junk email", "junk mail", "spam", "bulk mail",
             *(w.casefold() for w in _GMAIL_SYSTEM_LABELS["Spam"])},
}


def mailbox_folder(path: Path) -> str | None:
    """``"Sent"``, ``"Trash"`` or ``"Junk"`` when a mailbox file is a mail program's folder of that kind, by its
    name: Thunderbird's ``Sent``/``Trash``/``Junk``, Apple Mail's ``Sent Messages.mbox`` (its file ``mbox``),
    Pine's ``sent-mail``, Outlook's ``Sent Items``/``Deleted Items``/``Junk E-mail``, and the names in other
    languages (``Gesendet``, ``Papierkorb``, ``Envoyés``…); else None."""
    path = Path(path)
    name = path.parent.name if path.name.lower() == "mbox" else path.name
    stem = " ".join(re.sub(r"\.(?:mbox|mbx|mmdf)$", "", name, flags=re.I).replace("_", " ").split()).casefold()
    return next((kind for kind, names in _FOLDER_NAMES.items() if stem in names), None)


_INTERNAL_DATA = re.compile(rb"^Subject:[ \t]*DON'T DELETE THIS MESSAGE -- FOLDER INTERNAL DATA", re.M | re.I)


def is_folder_internal_data(raw: bytes) -> bool:
    """True for the pseudo-message UW-IMAP, Pine and Alpine keep first in an mbox (``Subject: DON'T DELETE THIS
    MESSAGE -- FOLDER INTERNAL DATA``, an ``X-IMAP:`` header, from "Mail System Internal Data"): the folder's
    bookkeeping, not mail anyone wrote."""
    end = _HEADER_END.search(raw)
    head = raw[:end.start() if end else len(raw)]
    return bool(_INTERNAL_DATA.search(head) and re.search(rb"^X-IMAP(?:base)?:", head, re.M | re.I))


_EMLX_LENGTH = re.compile(rb"^[ \t]*(\d{1,12})[ \t]*\r?\n")


class EmlIngestor:
    """Reads one RFC 822 message (``.eml``; Apple Mail's ``.emlx``, the message after a line with its
    length and before a property list): its Record, then those of the messages forwarded in it.

    Args:
        max_message_bytes: a bigger file is refused (InputError), default :data:`MAX_MESSAGE_BYTES`.
    """

    name = "eml"
    suffixes = frozenset({".eml", ".emlx"})

    def __init__(self, max_message_bytes: int = MAX_MESSAGE_BYTES):
        self.max_message_bytes = max_message_bytes

    def sniff(self, path: Path, head: bytes) -> float:
        """Up to 0.8 when ``head`` starts with RFC 822 header lines (two or more well-known names)."""
        return _looks_like_headers(head)

    def read(self, path: Path) -> Iterator[Item]:
        """Yield the message's Records (see :func:`message_records`), or a RecordError when the parser fails.

        What some writers put before the headers is skipped: a UTF-8 byte-order mark, blank lines,
        an mbox-style ``From `` line, Outlook's ``Microsoft Mail Internet Headers Version 2.0`` line.  A file
        that starts with an mbox envelope line is read as an mbox (:func:`split_mbox`): an mbox saved or
        renamed as ``.eml`` gives each of its messages, not the first with the others as its text.

        Raises:
            InputError: the file cannot be opened, is over the size limit, is an Outlook ``.msg`` file
                (:data:`OUTLOOK_MSG`), or does not start with mail headers.
        """
        path = Path(path)
        with _open(path) as fh:
            raw = fh.read(self.max_message_bytes + 1)
        if len(raw) > self.max_message_bytes:
            raise InputError(str(path), f"message is over {self.max_message_bytes // MIB} MiB: not read")
        if raw.startswith(_OLE_MAGIC):
            raise InputError(str(path), OUTLOOK_MSG)
        emlx = _EMLX_LENGTH.match(raw)
        if emlx:  # Apple Mail's .emlx: the message's length, the message, then Apple's property list
            raw = raw[emlx.end():emlx.end() + int(emlx.group(1))]
        raw = _skip_preamble(raw)
        if not emlx and is_envelope(raw.split(b"\n", 1)[0] + b"\n"):
            # written by an mbox writer (an mbox saved or renamed as .eml): each message it holds is its own
            import io

            for index, message in enumerate(split_mbox(io.BytesIO(raw), self.max_message_bytes), 1):
                envelope = decode_bytes(message.from_line, None).strip() if message.from_line else None
                yield from _safe_records(message.data or b"", path, index, envelope)
            return
        if raw.startswith(b"From "):
            raw = _skip_preamble(raw.split(b"\n", 1)[1] if b"\n" in raw else b"")
        if not _HEADER_LINE.match(raw):
            raise InputError(str(path), "not an email message: it does not start with mail headers")
        yield from _safe_records(raw, path, 1)

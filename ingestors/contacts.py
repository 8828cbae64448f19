"""Address books as vCard files (``.vcf``): one :class:`~ingestors.base.Record` (kind ``"contact"``) per card.

What people export: Google Contacts / Takeout (``contacts.vcf``, vCard 3.0), iPhone and macOS Contacts
(vCard 3.0, Apple's ``item1.`` groups, ``X-ABLabel``, ``X-SOCIALPROFILE``, ``IMPP``,
``BDAY;X-APPLE-OMIT-YEAR=1604``), Android's Contacts app (vCard 2.1 with ``CHARSET=UTF-8;
ENCODING=QUOTED-PRINTABLE`` and soft line breaks) and vCard 4.0 (RFC 6350: ``tel:`` URIs, ``KIND``,
``--MMDD`` birthdays).  Each card is parsed by ``vobject``; what it cannot do is done here first:

* **Cards are split by hand** (``BEGIN:VCARD`` … ``END:VCARD``, nesting counted), so one malformed card
  is one :class:`~ingestors.base.RecordError` — its locator names the card (number, name, first line)
  and the reason says what is wrong — and the cards around it are still read.  Text outside any card
  is ignored; a file with no card at all raises :class:`core.errors.InputError`.
* **Folded lines** (RFC 6350 §3.2: CRLF + space/tab) are unfolded, and **quoted-printable soft line
  breaks** (vCard 2.1: a QP value ending in ``=`` continues on the next line, which need not start with
  a space) are joined before ``vobject`` sees the card (it decodes the QP value itself).
* ``NICKNAME`` is a comma-separated list (RFC 6350 §6.2.3); ``vobject`` keeps only its first value,
  so every value is read from the raw line.

The record (the person's own statement of who is who, seed 002's "contact id" row):

* ``kind``: ``"contact"``; ``external_id``: ``"card <contact id>"``.  The contact id is the card's
  ``UID``; a card without one (Android, Google) gets ``"vcard:"`` + the first 16 hex digits of the
  SHA-1 of its names and identifiers, stable across re-exports.  A ``UID`` repeated in one file is read
  as the same contact when the two cards share a name or an identifier (an edited copy); otherwise the
  second card gets ``"<UID>#<card number>"`` and a note (a broken exporter, not one person).
* ``attrs["card"]``: the card as JSON — ``contact_id``, ``uid``, ``kind`` (``"person"`` or
  ``"organisation"``: ``KIND:org``, Apple's ``X-ABShowAs:COMPANY``, or an ``ORG`` with no personal
  name), ``name`` (``FN``, else built from ``N``), ``names`` (``FN`` and ``"Given Family"`` from ``N``),
  ``nicknames``, ``phones`` / ``emails`` (``{"value", "types"}`` as written; phones are normalised to
  E.164 by resolution, with the data folder's default region), ``handles`` (``{"service", "value"}``
  from ``IMPP``, ``X-SOCIALPROFILE`` and the ``X-JABBER``/``X-SKYPE``/… properties), ``org``,
  ``department``, ``title``, ``birthday`` (``"1990-04-02"``, or ``"--04-02"`` without a year) and
  ``as_of`` (the card's ``REV``, else the file's modification time, ISO 8601 UTC: the date the card's
  facts are "as of").
* ``text``: the card in plain sentences (name, nicknames, work, birthday, phones, emails, handles,
  postal address, note) — what full-text search, vectors and the memory's episode are made from.
* ``subject``: None (the text's first line, ``"Contact card: <name>."``, says what it is).
* ``sent_at``: the card's ``REV``; None when it has none (a card is not a message, and a date invented at
  import would make a re-import look new).  No sender, recipients or thread: no conversation is learnt
  from a card (``core.graph.parties`` makes the card's entity the record's sender).
* ``notes``: what was read leniently (a birthday or an email that is not one, a duplicate UID, a file that
  is not UTF-8).  A contact group (``KIND:group``) is not a person: a :class:`~ingestors.base.RecordError`.
"""
from __future__ import annotations

import hashlib
import re
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Iterator

from core.errors import InputError
from ingestors.base import Item, Record, RecordError

_BEGIN = re.compile(r"^\s*BEGIN\s*:\s*VCARD\s*$", re.I)
_END = re.compile(r"^\s*END\s*:\s*VCARD\s*$", re.I)
_QP = re.compile(r"ENCODING=QUOTED-PRINTABLE|;QUOTED-PRINTABLE[;:]", re.I)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
# messenger properties (vCard 3.0 extensions written by Apple, Android, Evolution, Thunderbird)
_HANDLE_PROPS = {"x-jabber": "xmpp", "x-skype": "skype", "x-skype-username": "skype", "x-aim": "aim", "x-icq": "icq",
                 "x-msn": "msn", "x-yahoo": "yahoo", "x-twitter": "twitter", "x-gadugadu": "gadugadu",
                 "x-google-talk": "gtalk", "x-gtalk": "gtalk", "x-telegram": "telegram", "x-signal": "signal",
                 "x-whatsapp": "whatsapp", "x-matrix": "matrix"}
_PHONE_LABELS = {"cell": "mobile", "mobile": "mobile", "iphone": "mobile", "home": "home", "work": "work",
                 "fax": "fax", "pager": "pager", "main": "main"}


def _lines(text: str) -> list[tuple[int, str]]:
    """Logical lines with the number of their first physical line: folded lines unfolded, QP soft breaks joined."""
    out: list[tuple[int, str]] = []
    physical = re.split(r"\r\n|\r|\n", text)
    i = 0
    while i < len(physical):
        n, line = i + 1, physical[i]
        i += 1
        # quoted-printable soft line breaks (vCard 2.1): "…=" continues on the next line as it is
        head = line.split(":", 1)[0]
        if ":" in line and _QP.search(head + ":"):
            while line.endswith("=") and i < len(physical):
                line = line[:-1] + physical[i].lstrip(" \t")  # QP data has no bare leading blanks (=20)
                i += 1
        if line[:1] in (" ", "\t") and out and not _BEGIN.match(line) and not _END.match(line):
            pn, prev = out[-1]
            out[-1] = (pn, prev + line[1:])
            continue
        out.append((n, line))
    return out


def split_cards(text: str) -> Iterator[tuple[int, int, list[tuple[int, str]], str]]:
    """The cards of a vCard file: ``(card number from 1, first line, (line number, logical line) pairs, problem)``.

    A card is ``BEGIN:VCARD`` … its matching ``END:VCARD`` (nested cards, vCard 2.1's ``AGENT``, stay
    inside).  A card that is never closed (the file ends, or a new top-level ``BEGIN`` follows a line
    that cannot be a nested card) is yielded with the lines it had and the problem ("" for a good card).
    """
    card: list[tuple[int, str]] | None = None
    start = 0
    depth = 0
    number = 0
    for n, line in _lines(text):
        if _BEGIN.match(line):
            if card is None:
                number += 1
                card, start, depth = [(n, line.strip())], n, 1
                continue
            if depth == 1 and card and not re.match(r"^\s*AGENT", card[-1][1], re.I):
                yield number, start, card, f"no END:VCARD before the next card (line {n})"
                number += 1
                card, start, depth = [(n, line.strip())], n, 1
                continue
            depth += 1
        elif _END.match(line) and card is not None:
            depth -= 1
            if depth == 0:
                card.append((n, line.strip()))
                yield number, start, card, ""
                card = None
                continue
        if card is not None:
            card.append((n, line))
    if card is not None:
        yield number, start, card, "no END:VCARD (the file ends inside this card)"


def _first(c, name: str):
    items = c.contents.get(name)
    return items[0] if items else None


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return " ".join(_text(v) for v in value if _text(v))
    if isinstance(value, bytes):
        return ""
    return " ".join(str(value).split())


def _types(line) -> list[str]:
    """The TYPE values of a property, lower-case (``TEL;TYPE=CELL,VOICE`` and 2.1's ``TEL;CELL`` alike)."""
    out = []
    for k, vs in (line.params or {}).items():
        if k.upper() == "TYPE":
            for v in vs:
                out += [t.strip().strip('"').lower() for t in str(v).split(",") if t.strip().strip('"')]
    out += [str(p).lower() for p in getattr(line, "singletonparams", []) or []]
    return [t for t in dict.fromkeys(out) if t not in ("pref", "internet", "voice", "x400")]


def _raw_values(lines: list[str]) -> dict[str, list[str]]:
    """Property name (lower case, group dropped) → its text values, unescaped (RFC 6350 §3.4), quoted-printable
    decoded.  ``vobject`` reads a text property as a one-value list and keeps the part before the first
    unescaped comma, which cuts vCard 2.1 notes ("Met in Lisbon, 2019") and loses all nicknames but one."""
    from vobject.base import textLineToContentLine
    from vobject.icalendar import stringToTextValues

    out: dict[str, list[str]] = {}
    for line in lines:
        m = re.match(r"^(?:[\w-]+\.)?(FN|NOTE|TITLE|ROLE|NICKNAME|X-ABLABEL)\b", line, re.I)
        if not m:
            continue
        try:
            cl = textLineToContentLine(line)
        except Exception:
            continue
        value = cl.value if isinstance(cl.value, str) else ""
        name = m.group(1).lower()
        key = f"{cl.group.lower()}.{name}" if cl.group else name
        sep = "," if name == "nickname" else "\x00"
        for v in stringToTextValues(value, listSeparator=sep):
            v = " ".join(v.split())
            if v and v not in out.setdefault(key, []):
                out[key].append(v)
    return out


def _label(raw: dict[str, list[str]], line) -> list[str]:
    """Apple's ``itemN.X-ABLabel`` for a grouped property (``_$!<Work>!$_`` → ``work``), as a type."""
    group = getattr(line, "group", None)
    if not group:
        return []
    labels = raw.get(f"{group.lower()}.x-ablabel", [])
    return [re.sub(r"^_\$!<(.*)>!\$_$", r"\1", labels[0]).lower()] if labels else []


def parse_birthday(value: str, params: dict | None = None) -> str | None:
    """A vCard ``BDAY`` as ``"YYYY-MM-DD"``, or ``"--MM-DD"`` without a year; None when it is not a date.

    Read: ``1990-04-02``, ``19900402``, ``1990-04-02T00:00:00Z`` (3.0 and 4.0), ``--04-02`` / ``--0402``
    (no year: vCard 3.0 / RFC 6350 §4.3.1), and Apple's ``1604-04-02`` with ``X-APPLE-OMIT-YEAR=1604``.
    """
    v = (value or "").strip()
    omit = None
    for k, vs in (params or {}).items():
        if k.upper() == "X-APPLE-OMIT-YEAR" and vs:
            omit = str(vs[0]).strip()
    m = re.match(r"^--(\d{2})-?(\d{2})$", v)
    if m:
        month, day, year = int(m.group(1)), int(m.group(2)), None
    else:
        m = re.match(r"^(\d{4})-?(\d{2})-?(\d{2})(?:T.*)?$", v)
        if not m:
            return None
        year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if omit is not None and m.group(1) == omit:
            year = None
    try:
        date(year or 2000, month, day)  # 2000 is a leap year: 29 February without a year is a date
    except ValueError:
        return None
    return f"{year:04d}-{month:02d}-{day:02d}" if year else f"--{month:02d}-{day:02d}"


def birthday_words(value: str) -> str:
    """``"1990-04-02"`` → ``"2 April 1990"``; ``"--04-02"`` → ``"2 April"``."""
    if value.startswith("--"):
        return f"{int(value[5:7])} {_MONTHS[int(value[2:4]) - 1]}"
    return f"{int(value[8:10])} {_MONTHS[int(value[5:7]) - 1]} {value[:4]}"


def _revision(value: str) -> datetime | None:
    from dateutil import parser

    v = (value or "").strip()
    if not v:
        return None
    try:
        dt = parser.isoparse(v)
    except (ValueError, OverflowError):
        try:
            dt = parser.parse(v)
        except (ValueError, OverflowError):
            return None
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=timezone.utc)


def _handle(line, name: str) -> dict | None:
    """``{"service", "value"}`` of an IMPP / X-SOCIALPROFILE / X-<messenger> property, or None."""
    value = _text(line.value).strip()
    if not value:
        return None
    params = {k.upper(): [str(x) for x in v] for k, v in (line.params or {}).items()}
    if name == "impp":
        service = (params.get("X-SERVICE-TYPE") or params.get("TYPE") or [""])[0].lower()
        scheme, _, rest = value.partition(":")
        if not rest:
            scheme, rest = "", value
        service = service or {"xmpp": "xmpp", "skype": "skype", "sip": "sip", "aim": "aim", "ymsgr": "yahoo",
                              "msnim": "msn", "icq": "icq", "gg": "gadugadu", "tg": "telegram"}.get(scheme.lower(),
                                                                                                   scheme.lower())
        return {"service": service or "im", "value": rest.lstrip("/")}
    if name == "x-socialprofile":
        service = (params.get("TYPE") or [""])[0].lower() or "social"
        user = (params.get("X-USER") or [""])[0]
        if not user:
            user = value.rstrip("/").rsplit("/", 1)[-1]
        return {"service": service, "value": user.lstrip("@")}
    return {"service": _HANDLE_PROPS[name], "value": value}


def _card_name(lines: list[str]) -> str:
    for line in lines:
        m = re.match(r"^(?:[\w-]+\.)?FN(?:;[^:]*)?:(.*)$", line, re.I)
        if m and m.group(1).strip():
            return " ".join(m.group(1).split())[:60]
    return ""


def read_card(lines: list[str]) -> dict:
    """One card's logical lines → the card dict of the module doc (without ``contact_id``/``as_of``).

    Raises:
        ValueError: ``vobject`` cannot parse the card (the message says where).
    """
    import vobject

    try:
        c = vobject.readOne("\r\n".join(lines) + "\r\n", validate=False, ignoreUnreadable=False)
    except Exception as exc:  # vobject.base.ParseError and friends
        raise ValueError(str(exc).strip() or type(exc).__name__) from exc
    notes: list[str] = []
    raw = _raw_values(lines)
    fn = (raw.get("fn") or [""])[0]
    n = getattr(_first(c, "n"), "value", None)
    given = _text(getattr(n, "given", "")) if n is not None else ""
    family = _text(getattr(n, "family", "")) if n is not None else ""
    structured = " ".join(x for x in (given, family) if x)
    org_line = _first(c, "org")
    org_parts = [p for p in (org_line.value if org_line is not None and isinstance(org_line.value, list)
                             else [_text(getattr(org_line, "value", ""))]) if _text(p)]
    org = _text(org_parts[0]) if org_parts else ""
    department = ", ".join(_text(p) for p in org_parts[1:] if _text(p))
    kind_line = _first(c, "kind")
    show_as = _first(c, "x-abshowas")
    kind_value = _text(getattr(kind_line, "value", "")).lower()
    if kind_value == "group" or _first(c, "x-addressbookserver-kind") is not None and \
            _text(_first(c, "x-addressbookserver-kind").value).lower() == "group":
        raise ValueError("a contact group (KIND:group), not a person or an organisation")
    organisation = kind_value == "org" or _text(getattr(show_as, "value", "")).upper() == "COMPANY" or \
        (bool(org) and not structured and (not fn or fn.casefold() == org.casefold()))
    name = fn or structured or (org if organisation else "")
    names = [x for x in dict.fromkeys([fn, structured]) if x]
    nicknames = raw.get("nickname", [])
    phones, emails, handles = [], [], []
    for line in c.contents.get("tel", []):
        value = _text(line.value)
        if value.lower().startswith("tel:"):
            value = value[4:].split(";", 1)[0]
        if value and value not in [p["value"] for p in phones]:
            phones.append({"value": value, "types": _types(line) or _label(raw, line)})
    for line in c.contents.get("email", []):
        value = _text(line.value)
        if value.lower().startswith("mailto:"):
            value = value[7:]
        if value and "@" in value and value.lower() not in [e["value"].lower() for e in emails]:
            emails.append({"value": value, "types": _types(line) or _label(raw, line)})
        elif value and "@" not in value:
            notes.append(f"EMAIL {value!r} is not an email address: not read")
    for prop in ("impp", "x-socialprofile", *_HANDLE_PROPS):
        for line in c.contents.get(prop, []):
            h = _handle(line, prop)
            if h and h not in handles:
                handles.append(h)
    birthday = None
    bday = _first(c, "bday")
    if bday is not None and _text(bday.value):
        birthday = parse_birthday(_text(bday.value), bday.params)
        if birthday is None:
            notes.append(f"BDAY {_text(bday.value)!r} is not a date: not read")
    title = " ".join(raw.get("title") or raw.get("role") or [])
    addresses = []
    for line in c.contents.get("adr", []):
        a = line.value
        parts = [_text(getattr(a, k, "")) for k in ("street", "city", "region", "code", "country")]
        text = ", ".join(p for p in parts if p)
        if text:
            addresses.append({"value": text, "types": _types(line)})
    note = " ".join(raw.get("note", []))
    rev = _revision(_text(getattr(_first(c, "rev"), "value", "")))
    if not (name or phones or emails or handles):
        raise ValueError("no name, phone number, email address or messenger handle")
    return {"uid": _text(getattr(_first(c, "uid"), "value", "")) or None,
            "version": _text(getattr(_first(c, "version"), "value", "")),
            "kind": "organisation" if organisation else "person", "name": name, "names": names,
            "nicknames": nicknames, "phones": phones, "emails": emails, "handles": handles, "org": org,
            "department": department, "title": title, "birthday": birthday, "addresses": addresses, "note": note,
            "rev": rev.astimezone(timezone.utc).isoformat() if rev else None, "_notes": notes}


def derived_contact_id(card: dict) -> str:
    """``"vcard:"`` + 16 hex digits of the SHA-1 of a UID-less card's names and identifiers (sorted, case-folded)."""
    parts = sorted({x.casefold() for x in card["names"]}) + sorted(re.sub(r"[^\d+]", "", p["value"])
                                                                  for p in card["phones"]) + \
        sorted(e["value"].casefold() for e in card["emails"]) + \
        sorted(f"{h['service']}:{h['value']}".casefold() for h in card["handles"])
    return "vcard:" + hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]


def card_text(card: dict) -> str:
    """The card in plain sentences (the record's text)."""
    lines = []
    head = card["name"] or (card["phones"] or card["emails"] or [{"value": "?"}])[0]["value"]
    nick = f" ({', '.join(card['nicknames'])})" if card["nicknames"] else ""
    lines.append(f"Contact card: {head}{nick}" + (" (an organisation)." if card["kind"] == "organisation" else "."))
    if card["org"] and card["kind"] == "person":
        where = card["org"] + (f" ({card['department']})" if card["department"] else "")
        lines.append(f"Works at {where}" + (f" as {card['title']}." if card["title"] else "."))
    elif card["title"]:
        lines.append(f"Title: {card['title']}.")
    if card["birthday"]:
        lines.append(f"Birthday: {birthday_words(card['birthday'])}.")
    for p in card["phones"]:
        label = next((_PHONE_LABELS[t] for t in p["types"] if t in _PHONE_LABELS), "phone")
        lines.append(f"{label.capitalize()}: {p['value']}.")
    if card["emails"]:
        lines.append("Email: " + ", ".join(e["value"] + (f" ({e['types'][0]})" if e["types"] else "")
                                           for e in card["emails"]) + ".")
    for h in card["handles"]:
        lines.append(f"{h['service'].capitalize()}: {h['value']}.")
    for a in card["addresses"]:
        lines.append(f"Address{' (' + a['types'][0] + ')' if a['types'] else ''}: {a['value']}.")
    if card["note"]:
        lines.append(f"Note: {card['note']}")
    return "\n".join(lines)


def _why(exc: Exception, lines: list[tuple[int, str]]) -> str:
    """``vobject``'s message with the file's own line number (it counts lines inside the card)."""
    msg = re.sub(r"^At line \d+:\s*", "", str(exc))
    m = re.match(r"Failed to parse line: (.*)$", msg, re.S)
    if m:
        bad = m.group(1).strip()
        n = next((k for k, x in lines if x.strip() == bad), None)
        return f"line {n}: {bad[:80]!r} is not a vCard property (NAME:value)" if n else msg
    return msg


def _decode(data: bytes, path: Path) -> tuple[str, str | None]:
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace"), None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace"), None
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace"), "the file is not UTF-8: read as Windows-1252"


class VCardIngestor:
    """Reads vCard 2.1 / 3.0 / 4.0 address books (``.vcf``, ``.vcard``): one Record per card, in file order."""

    name = "vcard"
    suffixes = frozenset({".vcf", ".vcard"})

    def sniff(self, path: Path, head: bytes) -> float:
        """0.95 when the first 4 KiB hold ``BEGIN:VCARD`` (any case, UTF-8 or UTF-16), else 0."""
        probe = head.replace(b"\x00", b"").upper()
        return 0.95 if b"BEGIN:VCARD" in probe else 0.0

    def read(self, path: Path) -> Iterator[Item]:
        """Yield one Record per card and one RecordError per card that cannot be read (module doc).

        Raises:
            InputError: the file cannot be read, or holds no card.
        """
        path = Path(path)
        try:
            data = path.read_bytes()
            mtime = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc)
        except OSError as exc:
            raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from exc
        text, file_note = _decode(data, path)
        seen: dict[str, tuple[int, set[str]]] = {}  # uid → (card number, its names and identifiers)
        found = 0
        for number, start, lines, problem in split_cards(text):
            found += 1
            label = _card_name([x for _, x in lines])
            where = f"card {number}" + (f" {label!r}" if label else "") + f" (line {start})"
            if problem:
                yield RecordError(str(path), where, f"{path.name}, {where}: {problem}; the card was not read")
                continue
            try:
                card = read_card([x for _, x in lines])
            except ValueError as exc:
                yield RecordError(str(path), where, f"{path.name}, {where}: cannot be read: {_why(exc, lines)}")
                continue
            notes = list(card.pop("_notes"))
            if file_note:
                notes.append(file_note)
            keys = {x.casefold() for x in card["names"]} | {re.sub(r"[^\d]", "", p["value"])[-9:]
                                                            for p in card["phones"]} | \
                {e["value"].casefold() for e in card["emails"]}
            uid = card["uid"]
            if uid and uid.casefold() in seen:
                first, their = seen[uid.casefold()]
                if keys & their:
                    notes.append(f"UID {uid} also names card {first} of this file: read as the same contact")
                    contact_id = uid
                else:
                    contact_id = f"{uid}#{number}"
                    notes.append(f"UID {uid} also names card {first} of this file, which shares no name, phone or "
                                 f"email with this one: read as another contact ({contact_id})")
            else:
                contact_id = uid or derived_contact_id(card)
                if uid:
                    seen[uid.casefold()] = (number, keys)
            card["contact_id"] = contact_id
            card["as_of"] = card["rev"] or mtime.isoformat()
            card["card_number"] = number
            rev = datetime.fromisoformat(card["rev"]) if card["rev"] else None
            yield Record(source_path=str(path), external_id=f"card {contact_id}", kind="contact",
                         text=card_text(card), sent_at=rev, subject=None,
                         attrs={"card": card}, notes=notes)
        if not found:
            raise InputError(str(path), "no contact cards in this file (no BEGIN:VCARD)")

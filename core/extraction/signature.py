"""A sender's own mobile number and other mail addresses from the signature of their mail (identifiers that link
their phone and their other mailbox), and the job title and employer it gives (:func:`signature_job`).

People sign mail with their number ("--\\nAna Lima\\nMobile: +44 7700 900123"); the same number is their
SMS/iMessage handle and, unsaved, their WhatsApp name.  Only the sender's own block is read: the lines
after the signature delimiter ``-- `` (RFC 3676 §4.3), or after a line that is the sender's name, in the
last lines of the message above any quoted reply or forwarded message; and only numbers labelled as a
mobile (Mobile, Cell, Mob, M:, Handy, Portable) — an office line or a fax is shared by colleagues and
would join strangers.  Numbers are parsed by ``phonenumbers`` (libphonenumber).
"""
from __future__ import annotations

import re

import phonenumbers

from datetime import datetime

from core.extraction.personal_facts import FactCandidate, Subject, _value
from core.graph.entities import is_role_address, name_tokens, normalize_email

_QUOTE_START = re.compile(r"^(>|On .+ wrote:|-{2,}\s*(Original|Forwarded) Message|Begin forwarded message|From: )",
                          re.I)
_MOBILE = re.compile(r"^\W*(mobile|mob|cell|cellphone|cell phone|m|handy|portable|móvil|movil)\b\.?\s*[:.]?\s*(.+)$",
                     re.I)
TAIL_LINES = 15  # the signature block is looked for in this many last lines (above quoted text)


def _block(text: str, sender_name: str | None) -> list[str]:
    """The lines of the sender's own signature block, as the module's docstring says where it starts, or ``[]``."""
    if not text:
        return []
    lines: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if _QUOTE_START.match(line.strip()):
            break
        lines.append(line.rstrip())
    tail = lines[-TAIL_LINES:]
    start = None
    for i, line in enumerate(tail):
        if line in ("-- ", "--"):
            start = i + 1
    if start is None and sender_name:
        names = _names(sender_name)
        for i, line in enumerate(tail):
            if line.strip() and (" ".join(name_tokens(line)) in names or
                                 " ".join(name_tokens(_SEP.split(line.strip())[0])) in names):
                start = i  # "Jane Doe", "Jane", or "Jane Doe | Senior Engineer | Acme"
    return [] if start is None else tail[start:]


def _names(sender_name: str | None) -> set[str]:
    """The forms of the sender's name a signature line may be (the whole name, the first name), as
    :func:`~core.graph.entities.name_tokens` writes them; a display name's company in brackets left out ("Jane Doe
    (Acme)"), and one written surname first ("Doe, Jane") read both ways."""
    name = re.sub(r"\s*[(\[].*?[)\]]", "", sender_name or "").strip()
    forms = [name]
    if name.count(",") == 1:
        last, first = (p.strip() for p in name.split(","))
        forms.append(f"{first} {last}")
    out: set[str] = set()
    for form in forms:
        words = name_tokens(form)
        if words:
            out |= {" ".join(words), words[0]}
    return out


_SEP = re.compile(r"\s*[|•·]\s*|\s+[-–—]\s+|\s*[–—]\s*")
"""What separates the parts of a signature line ("Jane Doe | Senior Engineer | Acme", "Jane Doe – CTO – Acme")."""


def signature_phones(text: str, sender_name: str | None = None, region: str = "US") -> list[str]:
    """Mobile numbers in the sender's signature, in E.164 (``["+447700900123"]``), or ``[]``.

    Args:
        text: the mail's own text (quoted replies and forwarded messages are cut off first).
        sender_name: the From: display name; a line equal to it (or to its first name) starts the block
            when there is no ``-- `` delimiter.
        region: ISO 3166 region for numbers written without a country code.
    """
    out: list[str] = []
    for line in _block(text, sender_name):
        m = _MOBILE.match(line.strip())
        if not m:
            continue
        for match in phonenumbers.PhoneNumberMatcher(m.group(2), region, leniency=phonenumbers.Leniency.POSSIBLE):
            e164 = phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164)
            if phonenumbers.is_possible_number(match.number) and e164 not in out:
                out.append(e164)
    return out[:2]


_EMAIL_LINE = re.compile(r"^\W*(?:(?:e-?mail|mail|email me|personal|private|home|work|e)\b\.?\s*[:.]?\s*)?"
                         r"<?(?:mailto:)?(?P<addr>[\w.+'-]+@[\w-]+(?:\.[\w-]+)+)>?\s*$", re.I)


def signature_emails(text: str, sender_name: str | None = None, own: str | None = None) -> list[str]:
    """The sender's other mail addresses, from their signature (``["priya.nair@gmail.com"]``), or ``[]``.

    Read from the same block as :func:`signature_phones`, and only from a line that is an address alone or an
    address after a label of the writer's own (``Email:``, ``E:``, ``Personal:``) — not a line naming someone else
    ("Assistant: bob@…", "Press: press@…").  The sender's own address (``own``) and role addresses (``info@``,
    ``no-reply@``: shared by many) are left out; at most two, case-folded.
    """
    mine = normalize_email(own) if own else None
    out: list[str] = []
    for line in _block(text, sender_name):
        m = _EMAIL_LINE.match(line.strip())
        if not m:
            continue
        addr = normalize_email(m.group("addr")).rstrip(".")
        if addr != mine and not is_role_address(addr) and addr not in out:
            out.append(addr)
    return out[:2]


# Words that make a signature line's part a job title ("Head of Finance", "Senior Engineer", "CEO & Co-founder")
_ROLE = re.compile(
    r"\b(?:head|director|manager|engineer|developer|designer|analyst|consultant|officer|president|vice[- ]president|"
    r"founder|co-?founder|owner|partner|associate|lead|specialist|co-?ordinator|administrator|assistant|executive|"
    r"accountant|architect|scientist|researcher|professor|lecturer|teacher|nurse|physician|surgeon|attorney|lawyer|"
    r"solicitor|barrister|counsel|paralegal|editor|writer|journalist|reporter|producer|recruiter|representative|"
    r"advis[oe]r|strategist|principal|intern|technician|supervisor|chair(?:man|woman|person)?|secretary|treasurer|"
    r"programmer|agent|broker|planner|buyer|controller|auditor|economist|therapist|pharmacist|dentist|clerk|"
    r"receptionist|librarian|curator|photographer|translator|trainee|apprentice|superintendent|inspector|"
    r"commissioner|coach|instructor|tutor|fellow|postdoc|operator|marketer|copywriter)s?\b|"
    r"\b(?-i:C[EFTOIMP]O|CISO|CDO|CRO|VP|SVP|EVP|MD|GM|PM|HR|QA|UX|UI|SRE|PA)\b", re.I)
_NOT_TITLE = re.compile(r"\d|@|://|www\.|:|[.!?]$|\b(?:I|we|you|my|our|your|me|us|please|thanks|thank|regards|"
                        r"sent from|best|cheers|wishes)\b", re.I)
# A word that makes a name an organisation's ("Acme Ltd", "Globex Inc.", "University of Leeds")
_ORG_WORD = re.compile(r"\b(?:Ltd|Limited|Inc|Incorporated|LLC|LLP|LP|PLC|plc|GmbH|AG|SA|SAS|SARL|S\.?A|BV|B\.V|NV|"
                       r"Pty|Corp|Corporation|Co|Company|Group|Holdings|Partners|Associates|Labs?|Technologies|"
                       r"Solutions|Consulting|Systems|Software|Bank|University|College|School|Hospital|Trust|Council|"
                       r"Foundation|Institute|Agency|Studios?|Media|Capital|Ventures|Industries|Insurance|Clinic)\b\.?")
_ORG_LOWER = frozenset("of and & the for de du des la le von van der den di da y und et".split())
_REGION = frozenset("emea apac amer americas latam na eu uk us usa europe asia global worldwide international "
                    "north south east west central".split())
_FUNCTION = frozenset("""engineering finance sales marketing product products operations ops hr human resources legal it
technology tech design research development communications comms strategy business customer success support
partnerships procurement people talent recruitment recruiting data analytics security infrastructure platform growth
brand content editorial compliance risk policy public affairs pr relations administration accounts accounting tax
audit treasury investments investor management program programme project innovation digital creative quality
logistics supply chain manufacturing facilities services professional education training learning software r&d
& and of""".split())
"""Words of a line's part that names a function or department ("Engineering", "Product Management", "Sales &
Marketing"): part of the title before it ("VP, Engineering"), never the employer."""


def _function(part: str) -> bool:
    """Whether ``part`` names a function or a region (:data:`_FUNCTION`, :data:`_REGION`): "Engineering", "EMEA"."""
    words = part.strip(" ,;").casefold().split()
    return bool(words) and (" ".join(words) in _REGION or all(w in _FUNCTION | _REGION for w in words))


_TITLE_ORG = re.compile(r"^(?P<title>.+?)\s+(?:at|@)\s+(?P<org>.+)$")
_JOB_LINES = 4  # the title is looked for in this many non-empty lines of the block, the name's included


def _title(part: str) -> str | None:
    """``part`` of a signature line as a job title ("Head of Finance", "Senior Software Engineer"), or None: a title
    has a role word (:data:`_ROLE`), one to seven words, no digit, address, label or sentence, and starts with a
    capital."""
    part = part.strip(" ,;")
    words = part.split()
    if not 1 <= len(words) <= 7 or not part[:1].isupper() or _NOT_TITLE.search(part) or not _ROLE.search(part):
        return None
    return part


def _org(part: str, sender_name: str | None) -> str | None:
    """``part`` of a signature line as an employer's name ("Acme Ltd", "Bank of America"), or None: one to six words,
    each capitalised but for joining words ("of", "&"), no digit, address or label, not a job title, a region
    ("EMEA"), the sender's name or a department ("Finance Team"); a name without a company word (:data:`_ORG_WORD`)
    that is a town or a country (:func:`~core.extraction.gazetteer.is_place_name`: "London") is where, not who."""
    part = part.strip(" ,;")
    words = part.split()
    if not 1 <= len(words) <= 6 or re.search(r"\d|@|://|www\.|:|[!?]$|\.(?:com|org|net|io|co)\b", part, re.I):
        return None
    if part.endswith(".") and not _ORG_WORD.search(words[-1]):
        return None  # a sentence
    if any(not (w[:1].isupper() or w[:1] in "&(" or w.casefold() in _ORG_LOWER) for w in words):
        return None
    if _ROLE.search(part) and not _ORG_WORD.search(part) or _function(part) or \
            " ".join(name_tokens(part)) in _names(sender_name) or \
            re.search(r"\b(?:team|department|dept|division|unit|office)\b", part, re.I):
        return None
    if not _ORG_WORD.search(part):
        from core.extraction.gazetteer import is_place_name

        if is_place_name(part):
            return None
    return part


def signature_job(text: str, sender_name: str | None = None,
                  sent_at: datetime | None = None) -> list[FactCandidate]:
    """The sender's job title and employer, from their own signature, as facts of the speaker (the sender).

    Read only from the block :func:`signature_phones` reads (after ``-- `` or a line that is the sender's name, in
    the last lines above any quoted reply), in its first lines: a title — a part of a line with a role word ("Head
    of Finance", "Senior Engineer", "CTO") — and the employer after it on its line ("Head of Finance, Acme Ltd",
    "Jane Doe | Senior Engineer | Acme", "Senior Engineer at Acme") or, alone, on the next line ("Head of
    Finance\nAcme Ltd").  Nothing from the body, nothing where the block has no title, and nothing from a block
    signed with another person's name.

    Args:
        text: the mail's own text (quoted replies and forwarded messages are cut off first).
        sender_name: the From: display name (a line that is it, or starts with it before "|", starts the block).
        sent_at: when the mail was sent, at the sender's offset; the facts hold from its day (the sender's calendar),
            None when it is None.

    Returns:
        :class:`~core.extraction.personal_facts.FactCandidate` items of ``Subject("speaker")``: the title
        (domain ``work``, category ``employment``, key ``title``, as a contact card's ``TITLE``) and the employer
        (key ``employer``, ``obj`` the organisation, as "I work at Acme" gives), each with confidence 0.6 and the
        signature's lines as evidence; ``[]`` when the signature names no title.
    """
    lines = [line.strip() for line in _block(text, sender_name) if line.strip()][:_JOB_LINES]
    names = _names(sender_name)
    head = _SEP.split(lines[0])[0] if lines else ""
    if names and re.fullmatch(r"[A-Z][\w'’-]+(?: [A-Z][\w'’.-]*){1,2}", head) and not _title(head) and \
            " ".join(name_tokens(head)) not in names:
        return []  # "-- \nTom Lee\nHead of Finance" in Jane Doe's mail: someone else's signature
    day = sent_at.date() if sent_at is not None else None
    for i, line in enumerate(lines):
        parts = [p for p in _SEP.split(line) if p.strip()]
        if parts and " ".join(name_tokens(parts[0])) in names:
            parts = parts[1:]  # "Jane Doe | Senior Engineer | Acme"
        parts = [q.strip() for p in parts for q in p.split(",") if q.strip()]  # "Head of Finance, Acme Ltd"
        for j, part in enumerate(parts):
            at = _TITLE_ORG.match(part.strip())
            title = _title(at.group("title")) if at else None
            org = _org(at.group("org"), sender_name) if title else None
            if title is None:
                title = _title(part)
                if title is None:
                    continue
                k = j + 1
                while k < len(parts) and _function(parts[k]):
                    title, k = f"{title}, {parts[k]}", k + 1  # "VP, Engineering", "Head of Sales, EMEA"
                org = _org(parts[k], sender_name) if k < len(parts) else None  # "Head of Sales, EMEA, Acme": Acme
                if k == len(parts) and i + 1 < len(lines) and not any(_title(p) for p in _SEP.split(lines[i + 1])):
                    org = _org(_SEP.split(lines[i + 1])[0], sender_name)  # "Head of Finance" then "Acme Ltd"
            cited = " / ".join(lines[i:i + 2] if org and lines[i + 1:i + 2] and org in lines[i + 1] else lines[i:i + 1])
            org = _value(org) if org else None  # "Initech Inc." → "Initech Inc", as "I work at Initech Inc." reads
            out = [FactCandidate(Subject("speaker"), "work", "employment", "title", title, cited, 0.6, day)]
            if org:
                out.append(FactCandidate(Subject("speaker"), "work", "employment", "employer", org, cited, 0.6, day,
                                         obj=org, obj_kind="thing"))
            return out
    return []

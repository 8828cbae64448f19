"""Entity kinds and alias normalisation (seed 002: aliases for phone/email, names case-insensitive)."""
from __future__ import annotations

import re
import unicodedata

import phonenumbers

KINDS = ("person", "place", "topic", "event", "thing")


def normalize_email(value: str) -> str:
    """Case-folded, trimmed email address (``"Alice@Example.COM "`` → ``"alice@example.com"``)."""
    return value.strip().strip("<>").casefold()


def normalize_name(value: str) -> str:
    """Name matching key: NFKC, case-folded, punctuation at the ends and repeated spaces removed."""
    v = unicodedata.normalize("NFKC", value).casefold()
    v = re.sub(r"\s+", " ", v).strip(" .,'\"")
    return v


def normalize_phone(value: str, region: str = "US") -> str | None:
    """E.164 form of a phone number (``"+1 (617) 555-1234"`` → ``"+16175551234"``), or None if it is not one.

    Args:
        value: the number as written.
        region: ISO 3166 region assumed when the number has no country code.
    """
    try:
        num = phonenumbers.parse(value, region)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_possible_number(num):
        return None
    return phonenumbers.format_number(num, phonenumbers.PhoneNumberFormat.E164)


def normalize_alias(kind: str, value: str, region: str = "US") -> str | None:
    """The matching key for an alias of ``kind`` (email, phone, name, nickname, handle, contact)."""
    if kind == "email":
        return normalize_email(value) or None
    if kind == "phone":
        return normalize_phone(value, region)
    return normalize_name(value) or None


_ROLE_LOCAL = re.compile(
    r"^((?:[\w.+-]+[-_.])?(?:no-?reply|do-?not-?reply|donotreply|notifications?)(?:[-_.+][\w.+-]+)?|"
    r"mailer-daemon|postmaster|majordomo|listserv|list|lists|"
    r"notifications?|bounces?|owner-.+|.+-(bugs|request|owner|bounces|announce|users|devel|help)|newsletter|"
    r"news|info|support|admin|root|daemon|nobody|"
    # shared mailboxes of a team or a department (RFC 2142's role names, and what organisations add)
    r"hr|team|hello|contact|sales|office|careers|jobs|billing|help|helpdesk|enquiries|inquiries|service|"
    r"webmaster|hostmaster|abuse|security|marketing|press|feedback|accounts|reception)$")


def is_role_address(address: str | None) -> bool:
    """True for mailbox addresses that name a role or a robot, not a person (``no-reply@``, ``comments-noreply@``,
    ``calendar-notification@``, ``majordomo@``, ``owner-list@``, ``list-request@`` …).  Such addresses are shared
    by many senders, so entity resolution never treats them as identifying one person (a definitive alias would
    merge strangers).  A sub-address's tag is not part of the role (``team+testing@`` is ``team@``; RFC 5233)."""
    if not address or "@" not in address:
        return False
    local = address.strip().strip("<>").split("@", 1)[0].casefold()
    return bool(_ROLE_LOCAL.match(local) or ("+" in local and _ROLE_LOCAL.match(local.split("+", 1)[0])))


# ------------------------------------------------------------------------------------- names

_HONORIFICS = frozenset({"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "dame", "rev", "fr"})


def strip_decorations(name: str) -> str:
    """``name`` without emoji, pictographs and other symbols, spaces collapsed (``"John Doe 🤓"`` → ``"John Doe"``).

    Removed: Unicode categories So/Sk/Sm/Cs/Co/Cf (symbols, surrogates, private use, format marks such as
    U+200D ZWJ and U+200E LRM) and variation selectors.  Letters, digits and the punctuation of names
    (hyphen, apostrophe, period) stay.  May return ``""`` for a name made only of emoji (``"🤓"``).
    """
    out = []
    for ch in unicodedata.normalize("NFC", name):
        cat = unicodedata.category(ch)
        if cat in ("So", "Sk", "Sm", "Cs", "Co", "Cf") or 0xFE00 <= ord(ch) <= 0xFE0F or 0xE0100 <= ord(ch) <= 0xE01EF:
            out.append(" ")
        else:
            out.append(ch)
    return " ".join("".join(out).split())


_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv", "phd", "md", "esq", "mba", "dds"})
_LAST_FIRST = re.compile(r"^\s*([^\W\d_][\w'\-]*(?: [^\W\d_][\w'\-]*)?)\s*,\s*([^\W\d_][\w'.\-]*(?: [^\W\d_][\w'.\-]*){0,2})\s*$")


_QUALIFIER = re.compile(r"\s*(?:\([^()]*\)|\[[^\[\]]*\]|\s[|@–—]\s.*|\s-\s.*)\s*$")
_TITLE = re.compile(r"^(?:(?:" + "|".join(sorted(_HONORIFICS, key=len, reverse=True)) + r")\.?\s+)+(?=[^\W\d_])", re.I)
_POSTNOMINAL = re.compile(r",?\s+(?:ph\.?\s?d|m\.?d|esq|mba|dds|cpa|msc|bsc|frcs|mrcp|rn)\.?$", re.I)


def person_display_name(name: str, mail: bool = False) -> str:
    """A person's name in "First Last" order: ``"Greene, Anna"`` → ``"Anna Greene"`` (the directory order many
    mail clients write); ``"Smith, Jr."``, ``"Mr & Mrs Smith"`` and anything that is not a plain "Last, First" stay
    as given.  ``mail``: the display name of a mail address, where a company directory's qualifier, a title and
    letters after the name are dropped too (``"Smith, Jane (ACME-IT)"``, ``"Jane Smith | Acme"``, ``"Dr. Jane
    Smith"``, ``"Jane Smith, PhD"`` → ``"Jane Smith"``) while two name words remain — not in a chat, where the name
    is the phone's address book's, exactly as its contact card gives it."""
    if looks_like_household(name) or not mail:
        return _last_first(name)
    for rx in (_QUALIFIER, _POSTNOMINAL, _TITLE):
        shorter = rx.sub("", name).strip()
        if shorter != name and len(name_tokens(shorter)) >= 2 and not shorter[:1].islower():
            name = shorter
    return _last_first(name)


def _last_first(name: str) -> str:
    m = _LAST_FIRST.match(name)
    if not m or m.group(2).casefold().strip(".") in _SUFFIXES:
        return name
    return f"{m.group(2)} {m.group(1)}"


def name_tokens(name: str) -> list[str]:
    """The words of a person's name for matching: decorations and honorifics dropped, case-folded.

    ``"Dr. Ana María López 🌻"`` → ``["ana", "maría", "lópez"]``; punctuation inside a word stays
    (``"john-john"``); a trailing period marks an initial (``"d."`` → ``"d."``).
    """
    words = re.split(r"[\s,()\"“”]+", strip_decorations(name).casefold())
    return [w.strip("'`") for w in words if w.strip("'`.") and w.strip(".") not in _HONORIFICS]


def is_full_name(name: str | None) -> bool:
    """True when ``name`` has at least two words of two or more letters (a given name and a family name).

    A bare first name (``"Alex"``), a nickname (``"Mom"``), initials (``"A. R."``) or a single word with an
    initial (``"Alex R."``) is not a full name: seed 002's exact-name row is definitive only for full names
    (issue 13: two people called just "Alex" were merged).
    """
    if not name:
        return False
    return sum(1 for w in name_tokens(name) if len(w.strip(".")) >= 2 and not w.endswith(".")) >= 2


# ------------------------------------------------------------------------------------- addresses

_SHORT_CODE = re.compile(r"^\d{3,6}$")
_ALPHANUMERIC_SENDER = re.compile(r"^(?=.*[A-Za-z])[A-Za-z0-9 .&'_-]{2,11}$")


def sender_type(address: str | None, address_kind: str = "phone") -> str | None:
    """``"short_code"`` or ``"alphanumeric"`` for an SMS sender that is a service, not a person; else None.

    Short codes are 3–6 digits with no country code (``"22000"``, ``"72404"``): carriers lease them to
    organisations (ITU-T E.164 numbers have a country code and are longer).  Alphanumeric sender IDs are at
    most 11 characters with a letter (``"GOOGLE"``, ``"DHL-Info"``; GSM 03.38 TP-Originating-Address).
    Only phone-like addresses are judged: an email address or a chat app's user handle is never a sender ID,
    and a handle is judged only when the ingestor said it is an SMS sender (``address_kind`` of
    ``"short_code"``/``"alphanumeric"``).
    """
    if not address:
        return None
    if address_kind in ("short_code", "alphanumeric"):
        return address_kind
    if address_kind != "phone":
        return None
    raw = address.strip()
    digits = re.sub(r"[\s-]", "", raw)
    if _SHORT_CODE.match(digits):
        return "short_code"
    if not any(c.isdigit() for c in raw) or (_ALPHANUMERIC_SENDER.match(raw) and normalize_phone(raw) is None
                                              and any(c.isalpha() for c in raw)):
        return "alphanumeric"
    return None


# Webmail providers: a shared domain there says nothing about who someone is (unlike a company's domain).
PUBLIC_MAIL_DOMAINS = frozenset({
    "gmail.com", "googlemail.com", "yahoo.com", "yahoo.co.uk", "ymail.com", "hotmail.com", "hotmail.co.uk",
    "outlook.com", "live.com", "msn.com", "icloud.com", "me.com", "mac.com", "aol.com", "gmx.com", "gmx.net",
    "gmx.de", "web.de", "mail.com", "protonmail.com", "proton.me", "pm.me", "zoho.com", "yandex.ru", "yandex.com",
    "mail.ru", "qq.com", "163.com", "126.com", "fastmail.com", "hey.com", "tutanota.com", "comcast.net",
    "verizon.net", "att.net", "btinternet.com", "orange.fr", "free.fr", "libero.it", "t-online.de",
})
_TLD = None


def email_domain(address: str | None) -> str | None:
    """The registrable domain of an email address (``"cristy@mystic.es.dupont.com"`` → ``"dupont.com"``).

    Uses the Public Suffix List snapshot bundled with ``tldextract`` (no network); a domain under no known
    suffix (``north.example``) gives its last two labels.  None when ``address`` has no domain.
    """
    global _TLD
    if not address or "@" not in address:
        return None
    host = normalize_email(address).rsplit("@", 1)[1].strip(".")
    if not host:
        return None
    if _TLD is None:
        import tldextract

        _TLD = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)
    parts = _TLD(host)
    registered = parts.top_domain_under_public_suffix if hasattr(parts, "top_domain_under_public_suffix") \
        else parts.registered_domain
    return registered or ".".join(host.split(".")[-2:])


def is_org_domain(domain: str | None) -> bool:
    """True for a domain that belongs to one organisation (not a webmail provider in :data:`PUBLIC_MAIL_DOMAINS`)."""
    return bool(domain) and domain not in PUBLIC_MAIL_DOMAINS


_SERVICE_WORDS = frozenset("""team receipts receipt notifications notification alerts alert digest newsletter updates
update support service services customer customers subsystem delivery deliveries daemon bot billing security accounts
account helpdesk help info news orders order shipping store shop mail mailer admin system postmaster feedback marketing
sales rewards deals offers payments banking app community reminders reminder statements noreply""".split())
"""Words of a display name that say it is a service, not a person ("Mail Delivery Subsystem", "Medium Daily Digest")."""


def is_service_sender(name: str | None, address: str | None) -> bool:
    """True when a mail sender is an organisation's service, not a person: its display name is the name of
    its address's domain (``"GitHub" <noreply@github.com>``, ``"Amazon.co.uk" <shipment-tracking@amazon.co.uk>``,
    ``"IBM" <info@ibm.com>``) or its robot mailbox (``"Mailer-Daemon" <MAILER-DAEMON@mx.example.com>``).

    A person's own domain is not a service: the name must be one word (``"Jane Smith" <jane@janesmith.com>``
    is a person) and, unless the address is a role address (:func:`is_role_address`), differ from the
    mailbox's local part (``"Bob" <bob@bob.com>`` is a person).  Also a service: a robot mailbox whose display
    name holds the domain's name or a word of :data:`_SERVICE_WORDS` (``"Uber Receipts" <noreply@uber.com>``,
    ``"The GitHub Team"``, ``"Mail Delivery Subsystem" <mailer-daemon@…>`` — but ``"Jane Doe"
    <calendar-notification@google.com>`` is Jane, sending through it), and the domain's name followed only by
    such words or a country code (``"HSBC UK" <hsbc@email.hsbc.co.uk>``, ``"Acme Support" <help@acme.com>``).

    Args:
        name: the display name (None when there is none); address: the email address.
    """
    if not name or not address or "@" not in address:
        return False
    key = re.sub(r"[^0-9a-z]", "", unicodedata.normalize("NFKC", name).casefold())
    if not key:
        return False
    local = re.sub(r"[^0-9a-z]", "", normalize_email(address).split("@", 1)[0])
    role = is_role_address(address)
    if role and key == local:
        return True  # "Mailer-Daemon" <MAILER-DAEMON@…>
    domain = email_domain(address) or ""
    label = re.sub(r"[^0-9a-z]", "", domain.split(".", 1)[0])
    parts = {p for p in re.split(r"[^0-9a-z]+", domain.split(".", 1)[0].casefold()) if len(p) >= 3} | {label}
    words = [re.sub(r"[^0-9a-z]", "", w) for w in unicodedata.normalize("NFKC", name).casefold().split()]
    words = [w for w in words if w]
    one_word = len(name.split()) == 1
    if bool(label) and key in (label, re.sub(r"[^0-9a-z]", "", domain)) and one_word and \
            (role or key != local) and is_org_domain(domain):
        return True
    if not words:
        return False
    if role:  # a robot mailbox under a name that names the service, not a person ("Uber Receipts" <noreply@uber.com>,
        # "Mail Delivery Subsystem" <mailer-daemon@googlemail.com>, "Google Calendar"); "Jane Smith" <info@smith.example>
        # is Jane (her surname is the domain's name, not its first word)
        return bool(set(words) & _SERVICE_WORDS) or (is_org_domain(domain) and words[0] in parts)
    if not is_org_domain(domain):
        return False
    # the organisation's name and what it sends: "HSBC UK" <hsbc@email.hsbc.co.uk>, "Acme Support" <help@acme.com>
    return len(words) <= 3 and words[0] in parts and len(words) > 1 and all(
        w in _SERVICE_WORDS or (len(w) <= 3 and raw.isupper())
        for w, raw in zip(words[1:], name.split()[1:]))


_HOUSEHOLD = re.compile(  # "The Smiths", "The Joneses" | "The Smith Family", "Smith household" | "Familie Müller" |
    # "Jane & Bob Smith", "Mr and Mrs Smith"
    r"^(?:(?i:the)\s+[A-Z][\w'’-]*[^\Ws]s|(?i:the)\s+[A-Z][\w'’-]+es"
    r"|(?:(?i:the)\s+)?[A-Z][\w'’-]+\s+(?i:family|household|clan)"
    r"|(?i:famil(?:y|ie|le|ia)|fam\.?)\s+[A-Z][\w'’-]+"
    r"|(?:(?i:mr|mrs|ms|dr)\.?\s+)?[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?(?:\s*[&+]\s*|\s+(?:and|und|et|y|e)\s+)"
    r"(?:(?i:mr|mrs|ms|dr)\.?\s+)?[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?"
    r")$")


def looks_like_household(name: str | None) -> bool:
    """True for a display name that names a household or a couple, not one person (``"The Smiths"``, ``"The Smith
    Family"``, ``"Familie Müller"``, ``"Jane & Bob Smith"``, ``"Mr and Mrs Smith"``): a shared family address.
    Case matters for the names (``"the boss"`` is not a household); the connecting words are lower case."""
    if not name:
        return False
    name = " ".join(name.split())
    return bool(_HOUSEHOLD.match(name)) and not name.casefold().startswith(("the team", "the staff"))


_GROUP_NAME = re.compile(r"\b(mailing[ -]?list|listserv|newsletter|announce(ments)? list|digest)\b", re.I)


def looks_like_group_name(name: str | None) -> bool:
    """True for display names that say they are a list (``"ImageMagick Mailing List"``, ``"Perl Newsletter"``)."""
    return bool(name) and bool(_GROUP_NAME.search(name))

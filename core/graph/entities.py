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
    r"^(no-?reply|do-?not-?reply|donotreply|mailer-daemon|postmaster|majordomo|listserv|list|lists|"
    r"notifications?|bounces?|owner-.+|.+-(bugs|request|owner|bounces|announce|users|devel|help)|newsletter|"
    r"news|info|support|admin|root|daemon|nobody)$")


def is_role_address(address: str | None) -> bool:
    """True for mailbox addresses that name a role or a robot, not a person (``no-reply@``, ``majordomo@``,
    ``owner-list@``, ``list-request@`` …).  Such addresses are shared by many senders, so entity
    resolution never treats them as identifying one person (a definitive alias would merge strangers)."""
    if not address or "@" not in address:
        return False
    return bool(_ROLE_LOCAL.match(address.strip().strip("<>").split("@", 1)[0].casefold()))

"""A sender's own mobile number from the signature of their mail (an identifier that links their phone).

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

from core.graph.entities import name_tokens

_QUOTE_START = re.compile(r"^(>|On .+ wrote:|-{2,}\s*(Original|Forwarded) Message|Begin forwarded message|From: )",
                          re.I)
_MOBILE = re.compile(r"^\W*(mobile|mob|cell|cellphone|cell phone|m|handy|portable|móvil|movil)\b\.?\s*[:.]?\s*(.+)$",
                     re.I)
TAIL_LINES = 15  # the signature block is looked for in this many last lines (above quoted text)


def signature_phones(text: str, sender_name: str | None = None, region: str = "US") -> list[str]:
    """Mobile numbers in the sender's signature, in E.164 (``["+447700900123"]``), or ``[]``.

    Args:
        text: the mail's own text (quoted replies and forwarded messages are cut off first).
        sender_name: the From: display name; a line equal to it (or to its first name) starts the block
            when there is no ``-- `` delimiter.
        region: ISO 3166 region for numbers written without a country code.
    """
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
        words = name_tokens(sender_name)
        names = {" ".join(words), words[0]} if words else set()
        for i, line in enumerate(tail):
            if line.strip() and " ".join(name_tokens(line)) in names:
                start = i
    if start is None:
        return []
    out: list[str] = []
    for line in tail[start:]:
        m = _MOBILE.match(line.strip())
        if not m:
            continue
        for match in phonenumbers.PhoneNumberMatcher(m.group(2), region, leniency=phonenumbers.Leniency.POSSIBLE):
            e164 = phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164)
            if phonenumbers.is_possible_number(match.number) and e164 not in out:
                out.append(e164)
    return out[:2]

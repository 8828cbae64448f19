"""A sender's own mobile number and other mail addresses from the signature of their mail (identifiers that link
their phone and their other mailbox).

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
        words = name_tokens(sender_name)
        names = {" ".join(words), words[0]} if words else set()
        for i, line in enumerate(tail):
            if line.strip() and " ".join(name_tokens(line)) in names:
                start = i
    return [] if start is None else tail[start:]


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

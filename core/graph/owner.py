"""The owner: the one entity whose archives these are (``Entity.is_owner``).

Set from settings (name and email addresses), from ``is_from_me`` in message
exports, or by hand (``kith owner REF``).  First-person facts in the owner's
messages are about the owner; "my mom" is the owner's mother.
"""
from __future__ import annotations

from sqlmodel import Session, select

from core.graph.entities import normalize_email
from core.graph.resolution import NameIndex, resolve
from core.store.schema import Entity


def owner(s: Session) -> Entity | None:
    """The live owner entity, or None when not known yet."""
    return s.exec(select(Entity).where(Entity.is_owner.is_(True), Entity.tombstoned_at.is_(None))).first()


def ensure_owner(s: Session, name: str | None, emails: list[str] = (), index: NameIndex | None = None) -> Entity:
    """The owner entity, created (or found by name/email and marked) from settings when missing."""
    found = owner(s)
    if found is not None:
        return found
    e = None
    for addr in emails:
        e = resolve(s, "person", name, addr, "email", index=index).entity
    if e is None:
        e = resolve(s, "person", name or "Me", index=index).entity
    set_owner(s, e)
    return e


def set_owner(s: Session, entity: Entity) -> None:
    """Make ``entity`` the only owner."""
    for other in s.exec(select(Entity).where(Entity.is_owner.is_(True))).all():
        other.is_owner = False
        s.add(other)
    entity.is_owner = True
    s.add(entity)
    s.flush()


def is_owner_address(address: str | None, owner_emails: list[str]) -> bool:
    """True when ``address`` is one of the owner's email addresses (case-insensitive)."""
    return bool(address) and normalize_email(address) in {normalize_email(e) for e in owner_emails}

"""Entity resolution: is this name/address someone Kith already knows? (seed 002's cascade).

The walking skeleton runs the definitive rows of the seed's table — phone,
email/handle alias, exact name (case-insensitive) — and otherwise creates a
new entity.  Fuzzy rows and the merge-review queue come with the knowledge-graph issue.
Every decision is returned with the signal that made it.
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, select

from core.graph.entities import normalize_alias, normalize_name
from core.store.schema import Alias, Entity


@dataclass(frozen=True)
class Resolution:
    """The outcome: the entity, whether it was created, and the signal (``phone``, ``email``, ``exact_name``, ``new``)."""

    entity: Entity
    created: bool
    signal: str
    score: float


def clean_name(name: str | None) -> str | None:
    """A display name without surrounding quotes and extra spaces (``"'Bob Stone' "`` → ``"Bob Stone"``), or None."""
    if not name:
        return None
    name = " ".join(name.split()).strip("'\"` ")
    return name or None


def _by_alias(s: Session, kind: str, normalized: str, entity_kind: str) -> Entity | None:
    return s.exec(select(Entity).join(Alias, Alias.entity_id == Entity.id).where(
        Alias.kind == kind, Alias.normalized == normalized, Entity.kind == entity_kind,
        Entity.tombstoned_at.is_(None))).first()


def add_alias(s: Session, entity: Entity, kind: str, value: str, region: str = "US") -> Alias | None:
    """Attach an alias to ``entity`` unless it already has it; returns the new row or None."""
    norm = normalize_alias(kind, value, region)
    if not norm:
        return None
    exists = s.exec(select(Alias).where(Alias.entity_id == entity.id, Alias.kind == kind,
                                        Alias.normalized == norm)).first()
    if exists:
        return None
    alias = Alias(entity_id=entity.id, kind=kind, value=value.strip(), normalized=norm)
    s.add(alias)
    return alias


def resolve(s: Session, kind: str, name: str | None, address: str | None = None,
            address_kind: str = "email", region: str = "US", attrs: dict | None = None) -> Resolution:
    """Find or create the entity named ``name`` and/or reachable at ``address``.

    Cascade (seed 002, definitive rows): address alias (phone in E.164, email
    case-folded, handle) → exact name, case-insensitive → new entity.  A match
    found by address whose canonical name is only that address is upgraded to
    a real name when one arrives.

    Args:
        s: an open session (the caller commits).
        kind: entity kind (person, place, ...).
        name: display name, or None.
        address: email / phone / handle, or None.
        address_kind: which alias kind ``address`` is.
        region: default phone region.
        attrs: metadata for a newly created entity (e.g. GPS for a place).

    Raises:
        ValueError: neither a name nor an address was given.
    """
    name = clean_name(name)
    address = (address or "").strip() or None
    if name and address and name.casefold() == address.casefold().strip("<>"):
        name = None  # "alice@example.com <alice@example.com>": the address is not a name
    if not name and not address:
        raise ValueError("resolve() needs a name or an address")
    found, signal = None, "new"
    addr_norm = normalize_alias(address_kind, address, region) if address else None
    if addr_norm:
        found = _by_alias(s, address_kind, addr_norm, kind)
        signal = address_kind
    if found is None and name:
        found = _by_alias(s, "name", normalize_name(name), kind)
        signal = "exact_name"
    if found is not None:
        if name and address and found.canonical_name.strip().casefold() == address.casefold():
            found.canonical_name = name  # upgrade an address-only entity to a real name
            s.add(found)
        if name:
            add_alias(s, found, "name", name, region)
        if address:
            add_alias(s, found, address_kind, address, region)
        return Resolution(found, False, signal, 1.0)
    entity = Entity(kind=kind, canonical_name=name or address, attrs=attrs or {})
    s.add(entity)
    s.flush()
    if name:
        add_alias(s, entity, "name", name, region)
    if address:
        add_alias(s, entity, address_kind, address, region)
    return Resolution(entity, True, "new", 0.0)

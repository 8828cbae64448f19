"""Browse what Kith knows: entities with their aliases and counts of records and facts."""
from __future__ import annotations

import re

from sqlalchemy import func
from sqlmodel import select

from app.container import Container
from app.operations.types import EntityRow
from core.clock import ensure_utc
from core.errors import Ambiguous, NotFound
from core.graph.entities import KINDS, normalize_alias, normalize_name
from core.store.schema import Alias, Entity, Fact, FactEntity, Record, RecordEntity


def list_entities(c: Container, kind: str | None = None) -> list[EntityRow]:
    """Every live entity (optionally of one ``kind``), sorted by record count then name.

    Raises:
        ValueError: ``kind`` is not one of person, place, topic, event, thing.
    """
    if kind is not None and kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; one of {', '.join(KINDS)}")
    with c.db.session() as s:
        q = select(Entity).where(Entity.tombstoned_at.is_(None))
        if kind:
            q = q.where(Entity.kind == kind)
        entities = s.exec(q).all()
        rec_counts = dict(s.exec(select(RecordEntity.entity_id, func.count(func.distinct(RecordEntity.record_id)))
                                 .group_by(RecordEntity.entity_id)).all())
        fact_counts = dict(s.exec(select(FactEntity.entity_id, func.count(func.distinct(FactEntity.fact_id)))
                                  .join(Fact, Fact.id == FactEntity.fact_id).where(Fact.superseded_by.is_(None))
                                  .group_by(FactEntity.entity_id)).all())
        last_seen = dict(s.exec(select(RecordEntity.entity_id, func.max(Record.sent_at))
                                .join(Record, Record.id == RecordEntity.record_id)
                                .group_by(RecordEntity.entity_id)).all())
        aliases: dict[int, list[str]] = {}
        for a in s.exec(select(Alias).order_by(Alias.id)).all():
            known = aliases.setdefault(a.entity_id, [])
            if a.value.casefold() not in {v.casefold() for v in known}:
                known.append(a.value)
        rows = []
        for e in entities:
            seen = ensure_utc(last_seen.get(e.id))
            rows.append(EntityRow(id=e.id, kind=e.kind, name=e.canonical_name,
                                  aliases=[v for v in aliases.get(e.id, []) if v.casefold() != e.canonical_name.casefold()],
                                  records=int(rec_counts.get(e.id, 0)), facts=int(fact_counts.get(e.id, 0)),
                                  last_seen=seen.isoformat() if seen else None))
    rows.sort(key=lambda r: (-r.records, r.name.casefold()))
    return rows


_PHONE_REF = re.compile(r"^\+?[\d\s().\-]{7,20}$")  # a reference written as a phone number


def find_entity(c: Container, ref: str | int) -> Entity:
    """The live entity with id ``ref``, or whose name or alias (case-insensitive) is ``ref`` — else the place
    whose name begins with ``ref`` before its region ("Arezzo" for "Arezzo, Tuscany, Italy").

    A phone number is matched however it is written (``"4155550100"``, ``"+1 (415) 555-0100"``; the settings'
    ``default_region`` for a number without its country code).

    Raises:
        NotFound: nothing matches.
        Ambiguous: several entities match (``.candidates`` lists them).
    """
    with c.db.session() as s:
        text = str(ref).strip()
        if text.isdigit():
            e = s.get(Entity, int(text))
            if e is not None and e.tombstoned_at is None:
                return e
        norm = normalize_name(text)
        keys = [norm, text.casefold()]
        if _PHONE_REF.match(text):  # a phone number however it is written: "+1 (415) 555-0100", "4155550100"
            keys += [k for k in [normalize_alias("phone", text, c.settings.default_region)] if k]
        matches = {e.id: e for e in s.exec(select(Entity).join(Alias, Alias.entity_id == Entity.id).where(
            Alias.normalized.in_(keys), Entity.tombstoned_at.is_(None))).all()}
        live = s.exec(select(Entity).where(Entity.tombstoned_at.is_(None))).all()
        for e in live:
            if normalize_name(e.canonical_name) == norm:
                matches[e.id] = e
        if not matches and "," not in text:  # a place by its own name: "Arezzo" is "Arezzo, Tuscany, Italy"
            for e in live:
                if e.kind == "place" and "," in e.canonical_name and \
                        normalize_name(e.canonical_name.split(",", 1)[0]) == norm:
                    matches[e.id] = e
        if not matches:
            raise NotFound(f"no entity named {text!r} (try `kith entities`)")
        if len(matches) > 1:
            listed = ", ".join(f"{e.id}: {e.canonical_name} ({e.kind})" for e in matches.values())
            for e in matches.values():  # the candidates outlive the session's rollback (their fields stay readable)
                s.expunge(e)
            raise Ambiguous(f"{text!r} matches several entities — use an id: {listed}", list(matches.values()))
        return next(iter(matches.values()))


def find_to_read(c: Container, ref: str | int) -> Entity:
    """:func:`find_entity`, and else — for reading only (a profile, a brief), never for forgetting — the one person
    whose full name begins with the single word ``ref`` ("Sam" → Sam Patel, "priya" → Priya Shah), as the chat's
    answers read a first name.

    Raises:
        NotFound: nothing matches.
        Ambiguous: several entities match, or several people have that first name (``.candidates``).
    """
    try:
        return find_entity(c, ref)
    except NotFound:
        word = normalize_name(str(ref).strip())
        if not word or " " in word or "@" in word or word.isdigit():
            raise
        with c.db.session() as s:
            found = [e for e in s.exec(select(Entity).where(Entity.tombstoned_at.is_(None), Entity.kind == "person",
                                                            Entity.canonical_name.ilike(f"{str(ref).strip()} %")))
                     if normalize_name(e.canonical_name).split(" ")[0] == word]
            for e in found:
                s.expunge(e)
        if not found:
            raise
        if len(found) > 1:
            listed = ", ".join(f"{e.id}: {e.canonical_name}" for e in found)
            raise Ambiguous(f"{str(ref).strip()!r} is the first name of several people — use the full name or an id: "
                            f"{listed}", found) from None
        return found[0]


def set_owner_entity(c: Container, entity_id: int) -> Entity:
    """Make entity ``entity_id`` the owner (the only one), and return it.  The stand-in Kith made for an owner it
    did not know yet — a person called "Me" in no record and no fact — goes (tombstoned): it stood for the
    owner, who is now named, and was listed as a fifth person with nothing ("Me — 0 records") and counted among
    the people you know."""
    from core.clock import now
    from core.graph.owner import owner as current_owner
    from core.graph.owner import set_owner

    def work():
        with c.db.session() as s:
            e = s.get(Entity, entity_id)
            before = current_owner(s)
            set_owner(s, e)
            if before is not None and before.id != e.id and before.kind == "person" \
                    and normalize_name(before.canonical_name) == "me" \
                    and s.exec(select(RecordEntity.record_id).where(RecordEntity.entity_id == before.id)).first() is None \
                    and s.exec(select(FactEntity.fact_id).where(FactEntity.entity_id == before.id)).first() is None:
                before.tombstoned_at = now()
                s.add(before)
            return e
    return c.writer.run(work)

"""Merge two entities, and undo it exactly (seed 002's merge-review queue).

A merge moves everything of the *loser* to the *survivor* — aliases, record
links, records it sent or was the place of, facts it is the subject of, fact
links — and tombstones the loser with ``attrs["merged_into"]``.  What moved is
returned as a JSON-able log; :func:`unmerge` replays the log backwards, so both
entities get back exactly their own aliases, facts and links.
When both had an active fact for the same (domain, category, key), the older
one (by valid_from, then id) is superseded by the newer, and unmerge revives it.
"""
from __future__ import annotations

from sqlalchemy import update
from sqlmodel import Session, select

from core import clock
from core.errors import NotFound
from core.store.schema import Alias, Entity, Fact, FactEntity, Record, RecordEntity


def _live(s: Session, entity_id: int) -> Entity:
    e = s.get(Entity, entity_id)
    if e is None or e.tombstoned_at is not None:
        raise NotFound(f"entity {entity_id} does not exist (or was merged or forgotten)")
    return e


def merge(s: Session, survivor_id: int, loser_id: int) -> dict:
    """Fold ``loser_id`` into ``survivor_id``; returns the move log for :func:`unmerge`.

    Raises:
        NotFound: either entity is missing or not live.
        ValueError: the two are the same entity or of different kinds.
    """
    if survivor_id == loser_id:
        raise ValueError("cannot merge an entity with itself")
    w, l = _live(s, survivor_id), _live(s, loser_id)
    if w.kind != l.kind:
        raise ValueError(f"cannot merge a {l.kind} into a {w.kind}")
    log: dict = {"survivor": w.id, "loser": l.id, "aliases_moved": [], "aliases_dropped": [],
                 "links_moved": [], "links_dropped": [], "sent": [], "placed": [], "facts_moved": [],
                 "fact_links_moved": [], "fact_links_dropped": [], "superseded": []}
    have = {(a.kind, a.normalized) for a in s.exec(select(Alias).where(Alias.entity_id == w.id)).all()}
    for a in s.exec(select(Alias).where(Alias.entity_id == l.id)).all():
        if (a.kind, a.normalized) in have:
            log["aliases_dropped"].append({"kind": a.kind, "value": a.value, "normalized": a.normalized})
            s.delete(a)
        else:
            a.entity_id = w.id
            s.add(a)
            log["aliases_moved"].append(a.id)
    for link in s.exec(select(RecordEntity).where(RecordEntity.entity_id == l.id)).all():
        entry = [link.record_id, link.role]
        if s.get(RecordEntity, (link.record_id, w.id, link.role)) is not None:
            log["links_dropped"].append(entry)
        else:
            s.add(RecordEntity(record_id=link.record_id, entity_id=w.id, role=link.role))
            log["links_moved"].append(entry)
        s.delete(link)
    log["sent"] = list(s.exec(select(Record.id).where(Record.sender_entity_id == l.id)).all())
    log["placed"] = list(s.exec(select(Record.id).where(Record.place_entity_id == l.id)).all())
    if log["sent"]:
        s.exec(update(Record).where(Record.id.in_(log["sent"])).values(sender_entity_id=w.id))
    if log["placed"]:
        s.exec(update(Record).where(Record.id.in_(log["placed"])).values(place_entity_id=w.id))
    active_w = {(f.domain, f.category, f.key): f for f in s.exec(select(Fact).where(
        Fact.subject_entity_id == w.id, Fact.superseded_by.is_(None))).all()}
    for f in s.exec(select(Fact).where(Fact.subject_entity_id == l.id)).all():
        other = active_w.get((f.domain, f.category, f.key)) if f.superseded_by is None else None
        if other is not None and other.value != f.value:
            older, newer = sorted((f, other), key=lambda x: (clock.ensure_utc(x.valid_from) or clock.ensure_utc(x.recorded_at), x.id))
            older.superseded_by = older.id  # leave the partial unique index before the move
            s.add(older)
            s.flush()
            log["superseded"].append(older.id)
            older.superseded_by = newer.id
        elif other is not None:  # the same value: keep both rows, the survivor's stays active
            f.superseded_by = f.id
            s.add(f)
            s.flush()
            f.superseded_by = other.id
            log["superseded"].append(f.id)
        f.subject_entity_id = w.id
        s.add(f)
        s.flush()
        log["facts_moved"].append(f.id)
    for fl in s.exec(select(FactEntity).where(FactEntity.entity_id == l.id)).all():
        entry = [fl.fact_id, fl.role]
        if s.get(FactEntity, (fl.fact_id, w.id, fl.role)) is not None:
            log["fact_links_dropped"].append(entry)
        else:
            s.add(FactEntity(fact_id=fl.fact_id, entity_id=w.id, role=fl.role))
            log["fact_links_moved"].append(entry)
        s.delete(fl)
    l.tombstoned_at = clock.now()
    l.attrs = {**(l.attrs or {}), "merged_into": w.id}
    s.add(l)
    s.flush()
    return log


def unmerge(s: Session, log: dict) -> None:
    """Undo :func:`merge` from its log: the loser comes back with its own aliases, links and facts.

    Raises:
        NotFound: the loser entity no longer exists (it was forgotten since).
    """
    w_id, l_id = log["survivor"], log["loser"]
    l = s.get(Entity, l_id)
    if l is None:
        raise NotFound(f"entity {l_id} no longer exists; the merge cannot be undone")
    l.tombstoned_at = None
    l.attrs = {k: v for k, v in (l.attrs or {}).items() if k != "merged_into"}
    s.add(l)
    for aid in log["aliases_moved"]:
        a = s.get(Alias, aid)
        if a is not None:
            a.entity_id = l_id
            s.add(a)
    for a in log["aliases_dropped"]:
        s.add(Alias(entity_id=l_id, kind=a["kind"], value=a["value"], normalized=a["normalized"]))
    for rid, role in log["links_moved"]:
        moved = s.get(RecordEntity, (rid, w_id, role))
        if moved is not None:
            s.delete(moved)
        s.add(RecordEntity(record_id=rid, entity_id=l_id, role=role))
    for rid, role in log["links_dropped"]:
        s.add(RecordEntity(record_id=rid, entity_id=l_id, role=role))
    if log["sent"]:
        s.exec(update(Record).where(Record.id.in_(log["sent"])).values(sender_entity_id=l_id))
    if log["placed"]:
        s.exec(update(Record).where(Record.id.in_(log["placed"])).values(place_entity_id=l_id))
    s.flush()
    # Revive facts the merge superseded (leave the index first, then restore subjects).
    revive = [s.get(Fact, fid) for fid in log["superseded"]]
    for f in revive:
        if f is not None:
            f.superseded_by = f.id
            s.add(f)
    s.flush()
    for fid in log["facts_moved"]:
        f = s.get(Fact, fid)
        if f is not None:
            f.subject_entity_id = l_id
            s.add(f)
    s.flush()
    for f in revive:
        if f is not None:
            f.superseded_by = None
            s.add(f)
    for fid, role in log["fact_links_moved"]:
        moved = s.get(FactEntity, (fid, w_id, role))
        if moved is not None:
            s.delete(moved)
        s.add(FactEntity(fact_id=fid, entity_id=l_id, role=role))
    for fid, role in log["fact_links_dropped"]:
        s.add(FactEntity(fact_id=fid, entity_id=l_id, role=role))
    s.flush()

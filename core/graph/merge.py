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
from core.store.schema import Alias, Entity, Fact, FactEntity, MergeCandidate, Record, RecordEntity


def _live(s: Session, entity_id: int) -> Entity:
    e = s.get(Entity, entity_id)
    if e is None or e.tombstoned_at is not None:
        raise NotFound(f"entity {entity_id} does not exist (or was merged or forgotten)")
    return e


def _move_facts(s: Session, from_id: int, to_id: int, log: dict) -> None:
    """Move every fact about ``from_id`` to ``to_id``; where both have an active fact for one key with
    different values, the older (valid_from, then id) is superseded by the newer (logged for undo)."""
    active_w = {(f.domain, f.category, f.key): f for f in s.exec(select(Fact).where(
        Fact.subject_entity_id == to_id, Fact.superseded_by.is_(None))).all()}
    for f in s.exec(select(Fact).where(Fact.subject_entity_id == from_id)).all():
        other = active_w.get((f.domain, f.category, f.key)) if f.superseded_by is None else None
        if other is not None and other.value != f.value:
            older, newer = sorted((f, other), key=lambda x: (clock.ensure_utc(x.valid_from) or clock.ensure_utc(x.recorded_at), x.id))
            older.superseded_by = older.id  # leave the partial unique index before the move
            s.add(older)
            s.flush()
            log["superseded"].append(older.id)
            older.superseded_by = newer.id
            if older.valid_to is None:
                older.valid_to = newer.valid_from
                log.setdefault("valid_to_set", []).append(older.id)
        elif other is not None:  # the same value: keep both rows, the survivor's stays active
            f.superseded_by = f.id
            s.add(f)
            s.flush()
            f.superseded_by = other.id
            log["superseded"].append(f.id)
        f.subject_entity_id = to_id
        s.add(f)
        s.flush()
        log["facts_moved"].append(f.id)


def merged_into(s: Session, entity_id: int) -> list[int]:
    """Ids of the tombstoned entities merged (transitively) into ``entity_id`` — its earlier identities,
    which still hold the names they were created with and any facts a held merge keeps on them."""
    from sqlalchemy import text

    out: list[int] = []
    frontier = [entity_id]
    while frontier:
        rows = s.connection().execute(text(
            "SELECT id FROM entity WHERE tombstoned_at IS NOT NULL AND "
            "CAST(json_extract(attrs, '$.merged_into') AS INTEGER) IN (%s)" % ",".join(str(int(x)) for x in frontier)
        )).all()
        frontier = [r[0] for r in rows if r[0] not in out and r[0] != entity_id]
        out += frontier
    return out


def live_survivor(s: Session, entity_id: int) -> Entity | None:
    """The live entity ``entity_id`` was (transitively) merged into, itself when live, or None (forgotten)."""
    seen: set[int] = set()
    e = s.get(Entity, entity_id)
    while e is not None and e.tombstoned_at is not None and e.id not in seen:
        seen.add(e.id)
        nxt = (e.attrs or {}).get("merged_into")
        e = s.get(Entity, nxt) if nxt else None
    return e if e is not None and e.tombstoned_at is None else None


def confirm(s: Session, mc: MergeCandidate) -> None:
    """The person confirms a merge Kith made: facts held on its second identity join the survivor now,
    with supersession between them (the older of two values for one key is superseded by the newer).

    Raises:
        ValueError: the candidate is not merged.
    """
    if mc.status != "merged":
        raise ValueError(f"merge candidate {mc.id} is {mc.status}, not merged")
    log = dict(mc.detail or {})
    if log.get("hold"):
        target = live_survivor(s, mc.a_id)
        if target is not None:
            log.setdefault("superseded", [])
            log.setdefault("facts_moved", [])
            before = set(log["facts_moved"])
            _move_facts(s, mc.b_id, target.id, log)
            moved = [fid for fid in log["facts_moved"] if fid not in before]
            for fl in s.exec(select(FactEntity).where(FactEntity.entity_id == mc.b_id, FactEntity.role == "subject",
                                                      FactEntity.fact_id.in_(moved))).all() if moved else []:
                if s.get(FactEntity, (fl.fact_id, target.id, "subject")) is None:
                    s.add(FactEntity(fact_id=fl.fact_id, entity_id=target.id, role="subject"))
                    log.setdefault("fact_links_moved", []).append([fl.fact_id, "subject"])
                else:
                    log.setdefault("fact_links_dropped", []).append([fl.fact_id, "subject"])
                s.delete(fl)
        log["hold"] = False
    mc.detail = log
    mc.confirmed_at = clock.now()
    s.add(mc)
    s.flush()


def merge(s: Session, survivor_id: int, loser_id: int, hold: bool = False) -> dict:
    """Fold ``loser_id`` into ``survivor_id``; returns the move log for :func:`unmerge`.

    ``hold``: a merge Kith made between two identities that each had identifiers of their own (see
    :mod:`core.graph.resolution`): the facts about the loser stay on it — no supersession across the two — until
    the person confirms (:func:`confirm` moves them then).

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
        entry = [link.record_id, link.role, link.signal, link.score, link.alias_id]
        if s.get(RecordEntity, (link.record_id, w.id, link.role)) is not None:
            log["links_dropped"].append(entry)
        else:
            s.add(RecordEntity(record_id=link.record_id, entity_id=w.id, role=link.role, signal=link.signal,
                               score=link.score, alias_id=link.alias_id))
            log["links_moved"].append(entry)
        s.delete(link)
    log["sent"] = list(s.exec(select(Record.id).where(Record.sender_entity_id == l.id)).all())
    log["placed"] = list(s.exec(select(Record.id).where(Record.place_entity_id == l.id)).all())
    if log["sent"]:
        s.exec(update(Record).where(Record.id.in_(log["sent"])).values(sender_entity_id=w.id))
    if log["placed"]:
        s.exec(update(Record).where(Record.id.in_(log["placed"])).values(place_entity_id=w.id))
    kept: set[int] = set()
    if hold:  # facts about the loser wait for the person's word, with their subject links
        kept = set(s.exec(select(Fact.id).where(Fact.subject_entity_id == l.id)).all())
    else:
        _move_facts(s, l.id, w.id, log)
    for fl in s.exec(select(FactEntity).where(FactEntity.entity_id == l.id)).all():
        if fl.fact_id in kept and fl.role == "subject":
            continue
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
    _carry_suggestions(s, w, l, log)
    return log


def _carry_suggestions(s: Session, w: Entity, l: Entity, log: dict) -> None:
    """The loser's pending merge suggestions with a third entity follow it to the survivor (``log["suggestions"]``
    says how, for :func:`unmerge`): one with an entity now also the survivor (merged into it before) is answered —
    the two are one — and leaves the queue; one with anyone else becomes the survivor's.  Without this, a card
    joining two addresses left "Jordan Blake (id 6) ~ Jordan Blake (id 8)" waiting in the queue between two merged
    entities, and merging it failed ("entity 6 does not exist").  The pair being merged is the caller's."""
    rows = s.exec(select(MergeCandidate).where(MergeCandidate.status == "pending",
                                               (MergeCandidate.a_id == l.id) | (MergeCandidate.b_id == l.id))).all()
    out = log.setdefault("suggestions", [])
    for mc in rows:
        other_id = mc.b_id if mc.a_id == l.id else mc.a_id
        if other_id in (w.id, l.id):
            continue
        other = live_survivor(s, other_id)
        was = {"id": mc.id, "a_id": mc.a_id, "b_id": mc.b_id}
        if other is None or other.id == w.id:  # answered by this merge (or the other one is forgotten)
            out.append({**was, "closed": {"score": mc.score, "reason": mc.reason, "signal": mc.signal,
                                          "threshold": mc.threshold, "decided_by": mc.decided_by,
                                          "created_at": mc.created_at.isoformat() if mc.created_at else None}})
            s.delete(mc)
            continue
        if mc.a_id == l.id:
            mc.a_id = w.id
        else:
            mc.b_id = w.id
        s.add(mc)
        out.append(was)
    s.flush()


def _restore_suggestions(s: Session, log: dict) -> None:
    """Undo :func:`_carry_suggestions`: each suggestion between its own two entities again, pending."""
    from datetime import datetime

    for was in log.get("suggestions", []):
        closed = was.get("closed")
        if closed is not None:
            if s.get(MergeCandidate, was["id"]) is None:
                made = closed.get("created_at")
                s.add(MergeCandidate(id=was["id"], a_id=was["a_id"], b_id=was["b_id"], score=closed["score"],
                                     reason=closed["reason"], signal=closed["signal"] or "",
                                     threshold=closed["threshold"] or "", decided_by=closed["decided_by"] or "kith",
                                     **({"created_at": datetime.fromisoformat(made)} if made else {})))
            continue
        mc = s.get(MergeCandidate, was["id"])
        if mc is not None and mc.status == "pending":
            mc.a_id, mc.b_id = was["a_id"], was["b_id"]
            s.add(mc)


def _how(how: list) -> dict:
    """The (signal, score, alias id) a link was made with, from a merge log entry (older logs lack them)."""
    keys = ("signal", "score", "alias_id")
    return {k: v for k, v in zip(keys, how) if v is not None}


def _take_back_later(s: Session, w_id: int, l_id: int, log: dict) -> list[int]:
    """Records linked to the survivor *after* the merge through one of the loser's aliases go back to the
    loser, with the facts only they are evidence for; returns those facts' ids (moved by the caller)."""
    from core.store.schema import Evidence

    moved_aliases = set(log.get("aliases_moved", []))
    if not moved_aliases:
        return []
    links = s.exec(select(RecordEntity).where(RecordEntity.entity_id == w_id,
                                              RecordEntity.alias_id.in_(moved_aliases))).all()
    records: set[int] = set()
    for link in links:
        if s.get(RecordEntity, (link.record_id, l_id, link.role)) is None:
            s.add(RecordEntity(record_id=link.record_id, entity_id=l_id, role=link.role, signal=link.signal,
                               score=link.score, alias_id=link.alias_id))
        s.delete(link)
        if link.role == "from":
            records.add(link.record_id)
    if records:
        s.exec(update(Record).where(Record.id.in_(records), Record.sender_entity_id == w_id)
               .values(sender_entity_id=l_id))
    s.flush()
    facts: list[int] = []
    if records:
        for f in s.exec(select(Fact).where(Fact.subject_entity_id == w_id)).all():
            ev = set(s.exec(select(Evidence.record_id).where(Evidence.fact_id == f.id)).all())
            if ev and ev <= records and f.id not in log["facts_moved"]:
                facts.append(f.id)
    return facts


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
    for rid, role, *how in log["links_moved"]:
        moved = s.get(RecordEntity, (rid, w_id, role))
        if moved is not None:
            s.delete(moved)
        s.add(RecordEntity(record_id=rid, entity_id=l_id, role=role, **_how(how)))
    for rid, role, *how in log["links_dropped"]:
        s.add(RecordEntity(record_id=rid, entity_id=l_id, role=role, **_how(how)))
    if log["sent"]:
        s.exec(update(Record).where(Record.id.in_(log["sent"])).values(sender_entity_id=l_id))
    if log["placed"]:
        s.exec(update(Record).where(Record.id.in_(log["placed"])).values(place_entity_id=l_id))
    s.flush()
    later_facts = _take_back_later(s, w_id, l_id, log)
    # Revive facts the merge superseded (leave the index first, then restore subjects).
    revive = [s.get(Fact, fid) for fid in log["superseded"]]
    for f in revive:
        if f is not None:
            f.superseded_by = f.id
            s.add(f)
    s.flush()
    for fid in list(log["facts_moved"]) + later_facts:
        f = s.get(Fact, fid)
        if f is not None:
            f.subject_entity_id = l_id
            s.add(f)
    s.flush()
    for f in revive:
        if f is not None:
            f.superseded_by = None
            if f.id in log.get("valid_to_set", []):
                f.valid_to = None
            s.add(f)
    for fid, role in log["fact_links_moved"]:
        moved = s.get(FactEntity, (fid, w_id, role))
        if moved is not None:
            s.delete(moved)
        s.add(FactEntity(fact_id=fid, entity_id=l_id, role=role))
    for fid, role in log["fact_links_dropped"]:
        s.add(FactEntity(fact_id=fid, entity_id=l_id, role=role))
    _restore_suggestions(s, log)
    s.flush()

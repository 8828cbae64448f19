"""Forget an entity and everything only it is evidence for, from every store.

What goes (this issue's scope — restore windows and byte-level purge come with the memory issue):
- the entity, its aliases and its links;
- records it is the *primary* party of (the sender of a message, the place of a photo),
  and records that involve no other entity; records it merely received keep their other
  parties and lose the link to it;
- facts whose subject it is (with their history), and facts left with no evidence;
- those records' episodes, full-text rows and Chroma vectors.
An audit event keeps the counts and the entity id, not its name or text.
"""
from __future__ import annotations

from sqlalchemy import delete, func, update
from sqlmodel import select

from app.container import Container
from app.operations.entities import find_entity
from core.store.collections import FACTS, RECORDS
from app.operations.types import ForgetPreview, ForgetReport
from core.store import search
from core.store.schema import (Alias, AuditEvent, Entity, Episode, Evidence, Fact, FactEntity, Record,
                               RecordEntity)


def _plan(s, entity_id: int) -> tuple[list[int], list[int]]:
    """(record ids, fact ids) that forgetting ``entity_id`` removes."""
    primary = set(s.exec(select(Record.id).where(
        (Record.sender_entity_id == entity_id) | (Record.place_entity_id == entity_id))).all())
    linked = set(s.exec(select(RecordEntity.record_id).where(RecordEntity.entity_id == entity_id)).all())
    for rid in linked - primary:
        others = s.exec(select(func.count()).select_from(RecordEntity).where(
            RecordEntity.record_id == rid, RecordEntity.entity_id != entity_id)).one()
        if others == 0:
            primary.add(rid)
    records = sorted(primary)
    facts = set(s.exec(select(Fact.id).where(Fact.subject_entity_id == entity_id)).all())
    if records:
        touched = set(s.exec(select(Evidence.fact_id).where(Evidence.record_id.in_(records))).all())
        for fid in touched - facts:
            remaining = s.exec(select(func.count()).select_from(Evidence).where(
                Evidence.fact_id == fid, Evidence.record_id.not_in(records))).one()
            if remaining == 0:
                facts.add(fid)
    return records, sorted(facts)


def preview_forget(c: Container, ref: str | int) -> ForgetPreview:
    """What :func:`forget` would remove, without removing anything.

    Raises:
        NotFound / Ambiguous: from :func:`app.operations.entities.find_entity`.
    """
    e = find_entity(c, ref)
    with c.db.session() as s:
        records, facts = _plan(s, e.id)
        aliases = s.exec(select(func.count()).select_from(Alias).where(Alias.entity_id == e.id)).one()
        episodes = s.exec(select(func.count()).select_from(Episode).where(Episode.record_id.in_(records))).one() \
            if records else 0
        subjects = [x for x in s.exec(select(Record.subject).where(Record.id.in_(records[:5]))).all() if x] \
            if records else []
        linked = set(s.exec(select(RecordEntity.record_id).where(RecordEntity.entity_id == e.id)).all())
    return ForgetPreview(entity_id=e.id, name=e.canonical_name, kind=e.kind, records=len(records), facts=len(facts),
                         aliases=int(aliases), episodes=int(episodes), sample_subjects=subjects,
                         kept_records=len(linked - set(records)))


def _unlearn_episodes(c: Container, episode_ids: list[int], entity_id: int) -> dict:
    """Seed 001's unlearn cascade for the forgotten records' episodes, then their signatures zeroed at once.

    Atoms losing evidence below 3 are withdrawn with their beliefs, the self-vector has the forgotten
    signatures subtracted, an ``unlearned`` learning event is written; the episodes' rows in
    signatures.dat (structured and gist) are overwritten with zeros (compaction later drops them).
    """
    from app.memory import service
    from core.memory.unlearn import unlearn

    mem = service(c).mem
    rep = unlearn(mem, episode_ids=episode_ids, reason=f"forget entity:{entity_id}")
    with c.db.session() as s:
        rows = [r for r in s.exec(select(Episode.signature_row).where(
            Episode.id.in_(episode_ids), Episode.signature_row.is_not(None))).all()] if episode_ids else []
    zeroed = 0
    if rows:
        zeroed = mem.structured.invalidate(rows)
        mem.gists.invalidate(rows)
    return {"episodes_unlearned": len(rep.episodes_removed), "atoms_affected": len(rep.atoms_affected),
            "beliefs_withdrawn": len(rep.beliefs_removed), "signatures_zeroed": zeroed,
            "self_vector_drift_bits": rep.self_vector_drift_bits}


def _forget_on_writer(c: Container, entity_id: int) -> ForgetReport:
    with c.db.session() as s:
        records, _ = _plan(s, entity_id)
        episode_ids = list(s.exec(select(Episode.id).where(Episode.record_id.in_(records))).all()) if records else []
    memory = _unlearn_episodes(c, episode_ids, entity_id) if episode_ids else {}
    with c.db.session() as s:
        e = s.get(Entity, entity_id)
        records, facts = _plan(s, entity_id)
        counts: dict[str, int] = {}

        def rm(name: str, stmt) -> None:
            counts[name] = counts.get(name, 0) + (s.exec(stmt).rowcount or 0)

        derived = set(s.exec(select(RecordEntity.entity_id).join(Entity, Entity.id == RecordEntity.entity_id).where(
            RecordEntity.record_id.in_(records), Entity.kind == "event", Entity.id != entity_id)).all()) if records else set()
        derived_facts: list[int] = []
        fts = search.delete_records(s.connection(), records)
        if facts:
            # Facts that an about-to-go fact superseded become current again.
            s.exec(update(Fact).where(Fact.superseded_by.in_(facts), Fact.id.not_in(facts)).values(superseded_by=None))
            rm("evidence", delete(Evidence).where(Evidence.fact_id.in_(facts)))
            rm("fact_links", delete(FactEntity).where(FactEntity.fact_id.in_(facts)))
            s.exec(update(Fact).where(Fact.id.in_(facts)).values(superseded_by=None))
            rm("facts", delete(Fact).where(Fact.id.in_(facts)))
        if records:
            rm("episodes", delete(Episode).where(Episode.record_id.in_(records)))
            rm("evidence", delete(Evidence).where(Evidence.record_id.in_(records)))
            rm("record_links", delete(RecordEntity).where(RecordEntity.record_id.in_(records)))
            rm("records", delete(Record).where(Record.id.in_(records)))
        rm("record_links", delete(RecordEntity).where(RecordEntity.entity_id == entity_id))
        rm("fact_links", delete(FactEntity).where(FactEntity.entity_id == entity_id))
        rm("aliases", delete(Alias).where(Alias.entity_id == entity_id))
        rm("entities", delete(Entity).where(Entity.id == entity_id))
        # Events that existed only because of the forgotten records (photo clusters) go with them.
        for eid in derived:
            if s.exec(select(func.count()).select_from(RecordEntity).where(RecordEntity.entity_id == eid)).one() == 0:
                gone = list(s.exec(select(Fact.id).where(Fact.subject_entity_id == eid)).all())
                derived_facts += gone
                if gone:
                    rm("evidence", delete(Evidence).where(Evidence.fact_id.in_(gone)))
                    rm("fact_links", delete(FactEntity).where(FactEntity.fact_id.in_(gone)))
                    s.exec(update(Fact).where(Fact.id.in_(gone)).values(superseded_by=None))
                    rm("facts", delete(Fact).where(Fact.id.in_(gone)))
                rm("fact_links", delete(FactEntity).where(FactEntity.entity_id == eid))
                rm("aliases", delete(Alias).where(Alias.entity_id == eid))
                rm("entities", delete(Entity).where(Entity.id == eid))
        s.add(AuditEvent(action="forget", target=f"entity:{entity_id}",
                         detail={"kind": e.kind, "counts": counts, "fts": fts}))
        name, kind = e.canonical_name, e.kind
        fact_ids = facts + derived_facts
    vectors = {"records": c.vectors.delete(RECORDS, [f"record:{r}" for r in records]),
               "facts": c.vectors.delete(FACTS, [f"fact:{f}" for f in fact_ids])}
    c.names.invalidate()
    personal: dict = {}
    if kind == "person":  # signals, messages, observations, preference vector, sessions (seed 000)
        from app.personal import personal_service

        personal = {k: v for k, v in personal_service(c).forget_person(entity_id).items() if v}
    return ForgetReport(entity_id=entity_id, name=name, sqlite=counts, fts=fts, vectors=vectors, memory=memory,
                        personal=personal)


def forget(c: Container, ref: str | int) -> ForgetReport:
    """Remove the entity named or numbered ``ref`` and what only it is evidence for, from every store.

    Returns:
        :class:`ForgetReport` with counts per store (SQLite tables, FTS rows, Chroma vectors).

    Raises:
        NotFound / Ambiguous: ``ref`` names no entity, or several.
    """
    e = find_entity(c, ref)
    return c.writer.run(_forget_on_writer, c, e.id)

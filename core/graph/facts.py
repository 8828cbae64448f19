"""The fact pipeline (seed 002): dedupe, supersede, link, never delete on update.

One active fact per (subject, domain, category, key), enforced by the partial
unique index ``ux_fact_active`` (``WHERE superseded_by IS NULL``).

Confidence when the same fact is seen again (dedupe) is raised by noisy-OR:
c' = 1 − (1 − c)(1 − c_new) — each independent piece of evidence removes a
share of the remaining doubt, so confidence rises toward 1 but never past it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session, select

from core import clock
from core.graph.summaries import mark_stale
from core.store.schema import Evidence, Fact, FactEntity

# The eight domains facts are filed under (seed 002 names eight without listing them here).
DOMAINS = ("identity", "relationships", "work", "health", "preferences", "places", "activities", "events")


@dataclass
class FactDraft:
    """A fact to write: the subject entity id, (domain, category, key) → value, its statement and evidence.

    ``statement`` must start "As of " (seed 002: facts without temporal context go stale silently).
    ``links`` are extra (entity id, role) pairs besides the subject.
    """

    subject_id: int
    domain: str
    category: str
    key: str
    value: str
    statement: str
    confidence: float = 0.6
    valid_from: datetime | None = None
    record_id: int | None = None
    excerpt: str = ""
    links: list[tuple[int, str]] = field(default_factory=list)


@dataclass(frozen=True)
class FactOutcome:
    """What the pipeline did: ``added``, ``reinforced`` (dedupe) or ``superseded`` (new value); the active fact."""

    action: str
    fact: Fact


def as_of_statement(when: datetime | None, sentence: str) -> str:
    """``"As of 2008-10-22, " + sentence`` (``"As of an unknown date, …"`` when ``when`` is None).

    The date is ``when``'s own calendar date: pass the record's time at the sender's offset (as the
    ingestor gave it) so the statement names the day where it was written."""
    date = when.date().isoformat() if when else "an unknown date"
    return f"As of {date}, {sentence}"


def _link(s: Session, fact_id: int, entity_id: int, role: str) -> None:
    if s.get(FactEntity, (fact_id, entity_id, role)) is None:
        s.add(FactEntity(fact_id=fact_id, entity_id=entity_id, role=role))


def _evidence(s: Session, fact_id: int, record_id: int | None, excerpt: str) -> bool:
    if record_id is None:
        return True  # no record to cite (e.g. the owner said it in chat): each statement is new evidence
    if s.get(Evidence, (fact_id, record_id)) is not None:
        return False
    s.add(Evidence(fact_id=fact_id, record_id=record_id, excerpt=excerpt[:500]))
    return True


def write_fact(s: Session, draft: FactDraft) -> FactOutcome:
    """Run one fact through dedupe → supersede → link (the caller commits).

    Raises:
        ValueError: the statement does not start "As of", or the domain is not one of :data:`DOMAINS`.
    """
    if not draft.statement.startswith("As of "):
        raise ValueError(f"fact statement must start 'As of DATE, …': {draft.statement!r}")
    if draft.domain not in DOMAINS:
        raise ValueError(f"unknown fact domain {draft.domain!r}; one of {DOMAINS}")
    active = s.exec(select(Fact).where(
        Fact.subject_entity_id == draft.subject_id, Fact.domain == draft.domain,
        Fact.category == draft.category, Fact.key == draft.key, Fact.superseded_by.is_(None))).first()
    mark_stale(s, [draft.subject_id, *(eid for eid, _ in draft.links)], draft.domain)
    if active is not None and active.value == draft.value:
        if _evidence(s, active.id, draft.record_id, draft.excerpt):
            active.evidence_count += 1
            active.confidence = 1.0 - (1.0 - active.confidence) * (1.0 - draft.confidence)
            if draft.valid_from and (active.valid_from is None or clock.ensure_utc(draft.valid_from) < clock.ensure_utc(active.valid_from)):
                active.valid_from = clock.ensure_utc(draft.valid_from)
            s.add(active)
        for eid, role in draft.links:
            _link(s, active.id, eid, role)
        s.flush()
        return FactOutcome("reinforced", active)
    if active is not None:
        # Step the old row out of the partial unique index first (self-reference), then point it at the new one.
        active.superseded_by = active.id
        s.add(active)
        s.flush()
    fact = Fact(subject_entity_id=draft.subject_id, domain=draft.domain, category=draft.category, key=draft.key,
                value=draft.value, statement=draft.statement, confidence=draft.confidence,
                valid_from=clock.ensure_utc(draft.valid_from), recorded_at=clock.now(),
                evidence_count=1 if draft.record_id else 0)
    s.add(fact)
    s.flush()
    _link(s, fact.id, draft.subject_id, "subject")
    for eid, role in draft.links:
        _link(s, fact.id, eid, role)
    _evidence(s, fact.id, draft.record_id, draft.excerpt)
    if active is not None:
        active.superseded_by = fact.id
        active.valid_to = clock.ensure_utc(draft.valid_from) or fact.recorded_at
        s.add(active)
        s.flush()
        return FactOutcome("superseded", fact)
    return FactOutcome("added", fact)


def write_facts(s: Session, drafts: list[FactDraft]) -> list[FactOutcome]:
    """Write many facts at once (an import batch) with the outcome of :func:`write_fact` on each in turn
    when a key keeps one value within the batch (who wrote to whom, a sender's address).

    Drafts with the same subject, domain, category, key and value are one fact seen several times.  When
    that fact is already the active one — the common case, a pair that keeps writing — it is reinforced
    in bulk: each new evidence row added, confidence raised by noisy-OR, c' = 1 − (1 − c)·Π(1 − c_i),
    ``evidence_count`` and ``valid_from`` updated, summaries marked stale; no per-draft round trips.  A
    new fact or a new value goes through :func:`write_fact` (dedupe → supersede → link), then the rest of
    its group is added as evidence the same way.

    Returns:
        One outcome per group of identical drafts, in order of first appearance.
    """
    for d in drafts:
        if not d.statement.startswith("As of "):
            raise ValueError(f"fact statement must start 'As of DATE, …': {d.statement!r}")
        if d.domain not in DOMAINS:
            raise ValueError(f"unknown fact domain {d.domain!r}; one of {DOMAINS}")
    groups: dict[tuple, list[FactDraft]] = {}
    for d in drafts:
        groups.setdefault((d.subject_id, d.domain, d.category, d.key, d.value), []).append(d)
    active: dict[tuple, Fact] = {}
    keys = list({k[:4] for k in groups})
    for i in range(0, len(keys), 200):
        part = keys[i:i + 200]
        subjects = {k[0] for k in part}
        for f in s.exec(select(Fact).where(Fact.subject_entity_id.in_(subjects), Fact.superseded_by.is_(None),
                                           Fact.key.in_({k[3] for k in part}))).all():
            active[(f.subject_entity_id, f.domain, f.category, f.key)] = f
    cited = [d.record_id for d in drafts if d.record_id is not None]
    have: set[tuple[int, int]] = set()
    for i in range(0, len(cited), 500):
        have.update(tuple(r) for r in s.exec(select(Evidence.fact_id, Evidence.record_id).where(
            Evidence.record_id.in_(cited[i:i + 500]))).all())
    out: list[FactOutcome] = []
    links_todo: set[tuple[int, int, str]] = set()
    for key, group in groups.items():
        fact = active.get(key[:4])
        if fact is not None and fact.value == key[4]:
            res, rest = FactOutcome("reinforced", fact), group
            mark_stale(s, [key[0], *{eid for d in group for eid, _ in d.links}], key[1])
        else:
            res, rest = write_fact(s, group[0]), group[1:]
            fact = res.fact
            active[key[:4]] = fact
        rest = [d for d in rest if d.record_id is not None]
        if rest:
            if res.action != "reinforced":  # write_fact just cited group[0]'s record
                have.add((fact.id, group[0].record_id))
            new = []
            for d in rest:
                if (fact.id, d.record_id) not in have:
                    have.add((fact.id, d.record_id))
                    new.append(d)
            if new:
                s.add_all([Evidence(fact_id=fact.id, record_id=d.record_id, excerpt=d.excerpt[:500]) for d in new])
                doubt = 1.0 - fact.confidence
                for d in new:
                    doubt *= 1.0 - d.confidence
                fact.confidence = 1.0 - doubt
                fact.evidence_count += len(new)
                starts = [clock.ensure_utc(d.valid_from) for d in new if d.valid_from is not None]
                if starts and (fact.valid_from is None or min(starts) < clock.ensure_utc(fact.valid_from)):
                    fact.valid_from = min(starts)
                s.add(fact)
        if res.action == "reinforced" or len(group) > 1:
            links_todo |= {(fact.id, eid, role) for d in group for eid, role in d.links}
        out.append(res)
    s.flush()
    if links_todo:  # one statement for every link (write_fact's _link is one round trip each)
        s.connection().exec_driver_sql("INSERT OR IGNORE INTO factentity(fact_id, entity_id, role) VALUES (?, ?, ?)",
                                       sorted(links_todo))
    return out

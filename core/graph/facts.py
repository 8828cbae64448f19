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
    """``"As of 2008-10-22, " + sentence`` (``"As of an unknown date, …"`` when ``when`` is None)."""
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
                active.valid_from = draft.valid_from
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
                valid_from=draft.valid_from, recorded_at=clock.now(), evidence_count=1 if draft.record_id else 0)
    s.add(fact)
    s.flush()
    _link(s, fact.id, draft.subject_id, "subject")
    for eid, role in draft.links:
        _link(s, fact.id, eid, role)
    _evidence(s, fact.id, draft.record_id, draft.excerpt)
    if active is not None:
        active.superseded_by = fact.id
        active.valid_to = draft.valid_from or fact.recorded_at
        s.add(active)
        s.flush()
        return FactOutcome("superseded", fact)
    return FactOutcome("added", fact)


def write_facts(s: Session, drafts: list[FactDraft]) -> list[FactOutcome]:
    """Write many facts at once (an import batch): drafts with the same subject, domain, category, key and
    value are one fact seen several times, so the first goes through :func:`write_fact` and the rest
    only add their evidence, raising confidence by the same noisy-OR, c' = 1 − (1 − c)·Π(1 − c_i), in one
    step.  The outcome is what calling :func:`write_fact` on each draft in order would give when a key
    keeps one value within the batch (who wrote to whom, a sender's address).

    Returns:
        One outcome per group of identical drafts, in order of first appearance.
    """
    groups: dict[tuple, list[FactDraft]] = {}
    for d in drafts:
        groups.setdefault((d.subject_id, d.domain, d.category, d.key, d.value), []).append(d)
    out: list[FactOutcome] = []
    for group in groups.values():
        res = write_fact(s, group[0])
        fact = res.fact
        rest = [d for d in group[1:] if d.record_id is not None]
        if rest:
            have = set(s.exec(select(Evidence.record_id).where(
                Evidence.fact_id == fact.id, Evidence.record_id.in_([d.record_id for d in rest]))).all())
            new = []
            for d in rest:
                if d.record_id in have:
                    continue
                have.add(d.record_id)
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
        extra_links = {(eid, role) for d in group[1:] for eid, role in d.links} - set(group[0].links)
        for eid, role in extra_links:
            _link(s, fact.id, eid, role)
        s.flush()
        out.append(res)
    return out

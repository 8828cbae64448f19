"""The fact pipeline (seed 002): dedupe, supersede, link, never delete on update.

One active fact per (subject, domain, category, key), enforced by the partial
unique index ``ux_fact_active`` (``WHERE superseded_by IS NULL``).

Confidence when the same fact is seen again (dedupe) is raised by noisy-OR:
c' = 1 − (1 − c)(1 − c_new) — each independent piece of evidence removes a
share of the remaining doubt, so confidence rises toward 1 but never past it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, time, timedelta, timezone

from sqlmodel import Session, select

from core import clock
from core.graph.summaries import mark_stale
from core.store.schema import Evidence, Fact, FactEntity, statement_sentence  # noqa: F401  (re-exported)

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
    by_arrival: bool = False
    """True when ``valid_from`` is only when the value was known to hold (a contact card: a snapshot dated by
    its ``REV`` or its file's time), not when it began: the draft then supersedes the active fact as it
    arrives (an edited card's new employer replaces the old one) instead of being placed by ``valid_from``."""


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
    """Run one fact through dedupe → supersede → link (the caller commits), placed by **valid time**.

    The facts of one (subject, domain, category, key) form a timeline ordered by ``valid_from`` (UTC; on the
    same day, by when their records were sent).  A draft is placed where its ``valid_from`` falls, whatever
    the import order: an older statement imported after a newer one goes into the history (superseded by
    the newer fact, ``valid_to`` = the newer one's ``valid_from``) instead of superseding it; a value equal to
    the fact in effect at that time reinforces it; a value equal to the next fact moves that fact's
    ``valid_from`` back.  A fact whose later evidence (records sent after the draft's record) restates it is
    split there, so "Berlin (Jan) … Berlin (Sep)" imported before "Madrid (Jun)" gives Berlin → Madrid →
    Berlin.  Without a ``valid_from`` (unknown time: a forwarded message without its date) a draft cannot be
    placed among dated facts: it reinforces the fact with its value when there is one, else it is kept as
    history, superseding nothing; among undated facts only, it supersedes the active fact, as recorded.

    Returns:
        :class:`FactOutcome`: ``reinforced``, ``superseded`` (it became the active fact in place of another)
        or ``added`` (new, active or — placed in the past — already superseded).

    Raises:
        ValueError: the statement does not start "As of", or the domain is not one of :data:`DOMAINS`.
    """
    if not draft.statement.startswith("As of "):
        raise ValueError(f"fact statement must start 'As of DATE, …': {draft.statement!r}")
    if draft.domain not in DOMAINS:
        raise ValueError(f"unknown fact domain {draft.domain!r}; one of {DOMAINS}")
    mark_stale(s, [draft.subject_id, *(eid for eid, _ in draft.links)], draft.domain)
    t = clock.ensure_utc(draft.valid_from)
    line = _timeline(s, draft.subject_id, draft.domain, draft.category, draft.key)
    active = next((f for f in line if f.superseded_by is None), None)
    if t is None and not draft.by_arrival and any(f.valid_from is not None for f in line):
        return _write_undated(s, draft, line, active)
    if t is None or draft.by_arrival or not line or any(f.valid_from is None and f.superseded_by is None
                                                         for f in line):
        return _write_as_recorded(s, draft, active)
    line = [f for f in line if f.valid_from is not None]  # undated history has no place in the order
    # on one day, by when each was said — not by row id: Berlin said at 09:00 and Madrid at 18:00 the same day,
    # imported Madrid first, made January's Berlin a second Berlin spell after Madrid's row instead of Berlin's
    orders = {f.id: _order(s, f) for f in line}
    line.sort(key=lambda f: (orders[f.id], f.id))
    said = _said_at(s, draft.record_id)
    before = [f for f in line if orders[f.id] <= (t, said or _FAR)]
    prev = before[-1] if before else None
    later = [f for f in line if f not in before]
    nxt = later[0] if later else None
    in_effect = prev is not None and (prev.valid_to is None or clock.ensure_utc(prev.valid_to) > t)
    if in_effect and prev.value == draft.value:
        return FactOutcome("reinforced", _reinforce(s, prev, draft))
    if in_effect and draft.domain == "places" and _refines(prev.value, draft.value):
        # the same place said more precisely ("Berlin" → "Berlin, Kreuzberg"): no move, the fact in effect is
        # refined (its start kept); the less precise said again is that fact restated
        if _refines(prev.value, draft.value) == "finer":
            _refine(prev, draft.value)
        return FactOutcome("reinforced", _reinforce(s, prev, draft))
    if in_effect:  # a new value from t on: the in-effect fact's later restatements are a spell of their own
        split = _split_after(s, prev, said, t)
        if split is not None:
            nxt = split
    if nxt is not None and nxt.value == draft.value:  # it held already at t: the next spell starts earlier
        if in_effect:
            prev.valid_to = t
            s.add(prev)
        _start_at(nxt, t)
        _clip_undated(s, draft, t)
        return FactOutcome("reinforced", _reinforce(s, nxt, draft))
    # the new fact is the latest: whatever was active leaves the partial unique index first
    stepped = [f for f in line if f.superseded_by is None] if nxt is None else []
    for f in stepped:
        _point(s, f, f.id)
    s.flush()
    fact = _new_fact(s, draft, superseded_by=nxt.id if nxt is not None else None,
                     valid_to=clock.ensure_utc(nxt.valid_from) if nxt is not None else None)
    if in_effect:
        _point(s, prev, fact.id)
        prev.valid_to = t
        s.add(prev)
    for f in stepped:
        f.superseded_by = fact.id
        f.valid_to = f.valid_to or t
        s.add(f)
    replaced = bool(stepped)
    _clip_undated(s, draft, t)
    s.flush()
    return FactOutcome("superseded" if replaced else "added", fact)


def _refines(held: str, said: str) -> str | None:
    """"finer" when ``said`` names the place ``held`` names more precisely ("Berlin" → "Berlin, Kreuzberg"),
    "coarser" when the other way round, else None (another place, or the same words)."""
    a, b = held.strip().casefold(), said.strip().casefold()
    if a == b or not a or not b:
        return None
    if b.startswith(a + ",") or a.startswith(b + ","):
        return "finer" if len(b) > len(a) else "coarser"
    return None


def _refine(fact: Fact, value: str) -> None:
    """``fact`` now says ``value`` (the same place, more precisely): its value and statement, its vector made
    again."""
    old = fact.value
    fact.value = value
    if old in fact.statement:
        head, sep, rest = fact.statement.partition(", ")
        fact.statement = head + sep + rest.replace(old, value, 1) if sep else fact.statement.replace(old, value, 1)
    fact.indexed_at = None


def _clip_undated(s: Session, draft: FactDraft, t: datetime) -> None:
    """An ended spell of the draft's key with no known start ("I lived in Paris for five years before moving to
    Lyon": Paris until the day it was said) ends no later than another value's dated start ``t`` (UTC): "In the
    spring of 2019 I moved to Lyon" ends Paris by March 2019, not in 2023 (the two overlapped)."""
    for f in _timeline(s, draft.subject_id, draft.domain, draft.category, draft.key):
        if f.valid_from is None and f.valid_to is not None and f.superseded_by is not None \
                and f.value != draft.value and clock.ensure_utc(f.valid_to) > t:
            f.valid_to = t
            s.add(f)


def _write_undated(s: Session, draft: FactDraft, line: list[Fact], active: Fact | None) -> FactOutcome:
    """An undated draft beside dated facts of its key (:func:`write_fact`): evidence for the fact with its value
    (the active one first, else the latest), or a fact of its own kept as history — never the current one."""
    same = [f for f in line if f.value == draft.value]
    if same:
        hit = next((f for f in same if f.superseded_by is None), same[-1])
        return FactOutcome("reinforced", _reinforce(s, hit, draft))
    fact = _new_fact(s, draft, superseded_by=active.id if active is not None else None)
    if active is None:
        _point(s, fact, fact.id)  # nothing holds now: ended, as an undated spell (history)
        s.flush()
    return FactOutcome("added", fact)


_FAR = datetime.max.replace(tzinfo=timezone.utc)


def _timeline(s: Session, subject_id: int, domain: str, category: str, key: str) -> list[Fact]:
    """The live facts of one key, ordered by valid_from (then id)."""
    rows = s.exec(select(Fact).where(Fact.subject_entity_id == subject_id, Fact.domain == domain,
                                     Fact.category == category, Fact.key == key,
                                     Fact.tombstoned_at.is_(None))).all()
    return sorted(rows, key=lambda f: (clock.ensure_utc(f.valid_from) or _FAR, f.id))


def _said_at(s: Session, record_id: int | None) -> datetime | None:
    from core.store.schema import Record

    row = s.get(Record, record_id) if record_id is not None else None
    return clock.ensure_utc(row.sent_at) if row is not None else None


def _order(s: Session, f: Fact) -> tuple[datetime, datetime]:
    """A fact's place in its timeline: (valid_from, when its earliest evidence was sent; recorded_at without)."""
    from core.store.schema import Record

    sent = s.exec(select(Record.sent_at).join(Evidence, Evidence.record_id == Record.id)
                  .where(Evidence.fact_id == f.id, Record.sent_at.is_not(None))).all()
    said = min((clock.ensure_utc(x) for x in sent), default=None) or clock.ensure_utc(f.recorded_at)
    return clock.ensure_utc(f.valid_from), said


def _point(s: Session, f: Fact, successor_id: int) -> None:
    """``f.superseded_by = successor_id``, stepping out of the partial unique index first when it was active."""
    if f.superseded_by is None:
        f.superseded_by = f.id
        s.add(f)
        s.flush()
    f.superseded_by = successor_id
    s.add(f)


def _reinforce(s: Session, fact: Fact, draft: FactDraft) -> Fact:
    """Another statement of ``fact``: a new evidence row raises confidence by noisy-OR; links are added."""
    if _evidence(s, fact.id, draft.record_id, draft.excerpt):
        fact.evidence_count += 1
        fact.confidence = 1.0 - (1.0 - fact.confidence) * (1.0 - draft.confidence)
    s.add(fact)
    for eid, role in draft.links:
        _link(s, fact.id, eid, role)
    s.flush()
    return fact


def _new_fact(s: Session, draft: FactDraft, superseded_by: int | None = None,
              valid_to: datetime | None = None) -> Fact:
    fact = Fact(subject_entity_id=draft.subject_id, domain=draft.domain, category=draft.category, key=draft.key,
                value=draft.value, statement=draft.statement, confidence=draft.confidence,
                valid_from=clock.ensure_utc(draft.valid_from), valid_to=valid_to, recorded_at=clock.now(),
                evidence_count=1 if draft.record_id else 0, superseded_by=superseded_by)
    s.add(fact)
    s.flush()
    _link(s, fact.id, draft.subject_id, "subject")
    for eid, role in draft.links:
        _link(s, fact.id, eid, role)
    _evidence(s, fact.id, draft.record_id, draft.excerpt)
    s.flush()
    return fact


def _split_after(s: Session, fact: Fact, said: datetime | None, t: datetime) -> Fact | None:
    """Move ``fact``'s evidence from records sent after ``said`` (the new statement's own time) to a new fact
    of the same value — its own spell, from the earliest such record's local date — and return it (None when
    there is none, or ``said`` is unknown).  The new spell takes ``fact``'s place in the chain."""
    from core.store.schema import Record

    if said is None or fact.superseded_by == fact.id:  # unknown time, or a fact already ended
        return None
    rows = s.exec(select(Evidence, Record).join(Record, Record.id == Evidence.record_id)
                  .where(Evidence.fact_id == fact.id, Record.sent_at.is_not(None))).all()
    moved = [(ev, r) for ev, r in rows if clock.ensure_utc(r.sent_at) > said]
    if not moved or len(moved) == len(rows):
        return None
    first = min(moved, key=lambda x: clock.ensure_utc(x[1].sent_at))[1]
    local = clock.ensure_utc(first.sent_at) + timedelta(minutes=first.utc_offset or 0)
    start = max(datetime.combine(local.date(), time(0, 0), tzinfo=timezone.utc), t)
    was_active = fact.superseded_by is None
    if was_active:
        _point(s, fact, fact.id)  # leave the partial unique index: the later spell is the active one now
        s.flush()
    spell = Fact(subject_entity_id=fact.subject_entity_id, domain=fact.domain, category=fact.category, key=fact.key,
                 value=fact.value, statement=restate(fact.statement, start), confidence=fact.confidence,
                 valid_from=start, valid_to=fact.valid_to, recorded_at=clock.now(), evidence_count=len(moved),
                 superseded_by=None if was_active else fact.superseded_by)
    s.add(spell)
    s.flush()
    for fe in s.exec(select(FactEntity).where(FactEntity.fact_id == fact.id)).all():
        _link(s, spell.id, fe.entity_id, fe.role)
    for ev, _ in moved:
        s.add(Evidence(fact_id=spell.id, record_id=ev.record_id, excerpt=ev.excerpt))
        s.delete(ev)
    fact.evidence_count = max(0, fact.evidence_count - len(moved))
    fact.superseded_by = spell.id
    s.add(fact)
    s.flush()
    return spell


def _start_at(fact: Fact, when: datetime) -> None:
    """``fact`` held from ``when`` (UTC, earlier than it was known to): its ``valid_from`` and the date its
    statement says ("As of …": it kept the later day, so a profile read "As of 2023-06-05, … lives in Berlin" for
    a spell from January), and its vector is made again (``indexed_at`` cleared)."""
    fact.valid_from = when
    fact.statement = restate(fact.statement, when)
    fact.indexed_at = None


def restate(statement: str, when: datetime) -> str:
    """The statement with its "As of DATE" date replaced by ``when``'s own calendar date (a statement without
    that lead is returned as it is)."""
    head, sep, rest = statement.partition(", ")
    return as_of_statement(when, rest) if sep and head.startswith("As of ") else statement


def _write_as_recorded(s: Session, draft: FactDraft, active: Fact | None) -> FactOutcome:
    """Dedupe → supersede by arrival, for facts without a valid time: the draft replaces the active fact."""
    if active is not None and active.value == draft.value:
        fact = _reinforce(s, active, draft)
        if draft.valid_from and (fact.valid_from is None or
                                 clock.ensure_utc(draft.valid_from) < clock.ensure_utc(fact.valid_from)):
            _start_at(fact, clock.ensure_utc(draft.valid_from))
            s.add(fact)
        return FactOutcome("reinforced", fact)
    if active is not None:
        _point(s, active, active.id)  # step out of the partial unique index first (self-reference)
        s.flush()
    fact = _new_fact(s, draft)
    if active is not None:
        active.superseded_by = fact.id
        active.valid_to = clock.ensure_utc(draft.valid_from) or fact.recorded_at
        s.add(active)
        s.flush()
        return FactOutcome("superseded", fact)
    return FactOutcome("added", fact)


def close_fact(s: Session, fact: Fact, at: datetime) -> Fact:
    """End a fact just written as a spell that is over ("I lived in Paris from 2010 to 2015"): ``valid_to`` =
    ``at`` (UTC) unless it already ends earlier, and an active fact is marked superseded by itself (ended, nothing
    replaced it), as :func:`end_fact` marks one.  Returns the fact."""
    at = clock.ensure_utc(at)
    if fact.valid_to is None or clock.ensure_utc(fact.valid_to) > at:
        fact.valid_to = at
    if fact.superseded_by is None:
        _point(s, fact, fact.id)
    s.add(fact)
    mark_stale(s, [fact.subject_entity_id], fact.domain)
    s.flush()
    return fact


def end_fact(s: Session, subject_id: int, keys: tuple[tuple[str, str, str], ...], value: str, at: datetime,
             record_id: int | None = None) -> Fact | None:
    """A statement that a fact stopped holding ("I don't live in Berlin anymore", "I left Initech").

    Args:
        keys: the (domain, category, key) triples it may be ("left X" is a home or an employer).
        value: the value that stopped holding (compared case-insensitively).
        at: when it stopped (UTC; the sender's day at midnight UTC, as ``valid_from``).
        record_id: the record that says so (its later restatements of the value stay a spell of their own).

    Returns:
        The fact in effect at ``at`` with that value, now ended (``valid_to`` = ``at``; an active one marked
        superseded by itself — ended, nothing replaced it — so it is history, not current), or None when no
        such fact is in effect at ``at``.
    """
    at = clock.ensure_utc(at)
    said = _said_at(s, record_id)
    for domain, category, key in keys:
        for f in _timeline(s, subject_id, domain, category, key):
            start, end = clock.ensure_utc(f.valid_from), clock.ensure_utc(f.valid_to)
            if f.value.casefold() != value.casefold() or start is None or start > at or (end is not None and end <= at):
                continue
            _split_after(s, f, said, at)
            f.valid_to = at
            if f.superseded_by is None:
                _point(s, f, f.id)
            s.add(f)
            mark_stale(s, [subject_id], domain)
            s.flush()
            return f
    return None


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
                    _start_at(fact, min(starts))
                s.add(fact)
        if res.action == "reinforced" or len(group) > 1:
            links_todo |= {(fact.id, eid, role) for d in group for eid, role in d.links}
        out.append(res)
    s.flush()
    if links_todo:  # one statement for every link (write_fact's _link is one round trip each)
        s.connection().exec_driver_sql("INSERT OR IGNORE INTO factentity(fact_id, entity_id, role) VALUES (?, ?, ?)",
                                       sorted(links_todo))
    return out

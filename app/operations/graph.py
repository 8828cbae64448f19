"""Queries over the knowledge graph: facts as of a date, entity profiles, the knowledge map, fact search."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Sequence

from sqlalchemy import and_, func, or_
from sqlmodel import select

from app.container import Container
from app.operations.entities import find_entity
from core import clock
from core.clock import ensure_utc
from core.extraction.quoted import bare_subject
from core.graph.facts import statement_sentence  # noqa: F401  (re-exported for ui/)
from core.graph.merge import merged_into
from core.store.collections import FACTS, RECORDS
from core.store.schema import Alias, Entity, Evidence, Fact, FactEntity, Record, RecordEntity, Source, Summary


@dataclass
class FactView:
    """A fact as shown to a person (times ISO 8601 UTC)."""

    id: int
    domain: str
    category: str
    key: str
    value: str
    statement: str
    confidence: float
    valid_from: str | None
    valid_to: str | None
    recorded_at: str
    superseded_by: int | None
    evidence_count: int
    sources: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)


def _iso(d: datetime | None) -> str | None:
    d = ensure_utc(d)
    return d.isoformat() if d else None


def _local(r: Record) -> str | None:
    """The record's time where it was sent (ISO 8601 at its own UTC offset), or None when the offset is unknown."""
    local = clock.local_time(r.sent_at, r.utc_offset) if r.utc_offset is not None else None
    return local.isoformat() if local else None


def _view(s, f: Fact) -> FactView:
    sources = sorted({src for src in s.exec(select(Source.path).join(Record, Record.source_id == Source.id)
                                               .join(Evidence, Evidence.record_id == Record.id)
                                               .where(Evidence.fact_id == f.id)).all()}) if f.id else []
    return FactView(f.id, f.domain, f.category, f.key, f.value, f.statement, round(f.confidence, 4),
                    _iso(f.valid_from), _iso(f.valid_to), _iso(f.recorded_at), f.superseded_by, f.evidence_count,
                    sources)


def _entity_facts(s, entity_id: int) -> list[Fact]:
    ids = set(s.exec(select(FactEntity.fact_id).where(FactEntity.entity_id == entity_id)).all())
    ids |= set(s.exec(select(Fact.id).where(Fact.subject_entity_id == entity_id)).all())
    return list(s.exec(select(Fact).where(Fact.id.in_(ids), Fact.tombstoned_at.is_(None))  # forgotten: issue 11
                       .order_by(Fact.valid_from, Fact.id)).all()) if ids else []


def facts_as_of(c: Container, ref: str | int, at: datetime, known_at: datetime | None = None) -> list[FactView]:
    """What was true about entity ``ref`` at ``at`` (valid time), as Kith knew it at ``known_at`` (default: now).

    Bi-temporal (seed 001/002): a fact counts when valid_from ≤ at < valid_to (open ends allowed) and it was
    recorded by ``known_at``.  Superseded facts count for the times they were valid.

    Raises:
        NotFound / Ambiguous: ``ref`` names no entity, or several.
    """
    e = find_entity(c, ref)
    at = ensure_utc(at)
    known_at = ensure_utc(known_at)
    with c.db.session() as s:
        out = []
        for f in _entity_facts(s, e.id):
            start, end = ensure_utc(f.valid_from), ensure_utc(f.valid_to)
            if start is not None and start > at:
                continue
            if end is not None and end <= at:
                continue
            if known_at is not None and ensure_utc(f.recorded_at) > known_at:
                continue
            out.append(_view(s, f))
        return out


@dataclass
class Profile:
    """Everything Kith knows about one entity."""

    id: int
    kind: str
    name: str
    is_owner: bool
    aliases: list[dict]
    current: list[FactView]
    history: list[FactView]
    sources: list[dict]
    records: int
    summary: str | None
    summary_stale: bool
    attrs: dict
    held: list[FactView] = field(default_factory=list)
    """Facts of a second identity Kith merged in by name: they wait for the person to confirm the merge
    before they supersede anything (issue 13; ``kith review confirm ID``)."""

    def to_json(self) -> dict:
        d = asdict(self)
        return d


def profile(c: Container, ref: str | int, max_sources: int = 50) -> Profile:
    """The entity's aliases, current facts, superseded history, source records and summary.

    Raises:
        NotFound / Ambiguous: ``ref`` names no entity, or several.
    """
    from app.operations.entities import find_to_read

    e = find_to_read(c, ref)  # "kith profile Sam": a first name alone, as the chat reads it
    with c.db.session() as s:
        facts = _entity_facts(s, e.id)
        aliases = [{"kind": a.kind, "value": a.value} for a in
                   s.exec(select(Alias).where(Alias.entity_id == e.id).order_by(Alias.kind, Alias.id)).all()]
        rec_ids = s.exec(select(RecordEntity.record_id).where(RecordEntity.entity_id == e.id)).all()
        rows = s.exec(select(Record, Source).join(Source, Source.id == Record.source_id)
                      .where(Record.id.in_(rec_ids), Record.tombstoned_at.is_(None))
                      .order_by(Record.sent_at.desc()).limit(max_sources)).all() \
            if rec_ids else []
        sources = [{"record_id": r.id, "kind": r.kind, "when": _iso(r.sent_at), "local": _local(r),
                    "subject": r.subject, "path": src.path, "external_id": r.external_id} for r, src in rows]
        summary = s.exec(select(Summary).where(Summary.kind == "entity", Summary.subject == str(e.id))).first()
        from core.graph.resolution import held_merge

        held = [_view(s, f) for loser in merged_into(s, e.id) if held_merge(s, loser) is not None
                for f in s.exec(select(Fact).where(Fact.subject_entity_id == loser, Fact.superseded_by.is_(None),
                                                   Fact.tombstoned_at.is_(None)))]
        return Profile(e.id, e.kind, e.canonical_name, e.is_owner, aliases,
                       [_view(s, f) for f in facts if f.superseded_by is None],
                       [_view(s, f) for f in facts if f.superseded_by is not None],
                       sources, len(set(rec_ids)), summary.text if summary else None,
                       bool(summary.stale) if summary else True, dict(e.attrs or {}), held)


@dataclass
class About:
    """What Kith knows about one entity, for a "who is …?" answer (``app.answer.about_answer``).

    Attributes:
        id, kind, name, is_owner: the entity (kind ∈ person | group | place | event | thing).
        addresses: its email addresses and phone numbers (aliases), in the order they were learned.
        records: how many live records involve it (any role).
        first, last: the earliest and latest of those records' send times (UTC), or None.
        together: the people most often in the same records, ``[(name, records)]``, most first (at most 3;
            the owner left out).
        facts: the current facts it is in, other than addresses and who-wrote-to-whom, ``[(statement,
            evidence record ids)]``, most confident first (at most 3).
        result: see below.
    """

    id: int
    kind: str
    name: str
    is_owner: bool
    addresses: list[str]
    records: int
    first: datetime | None
    last: datetime | None
    together: list[tuple[str, int]]
    facts: list[tuple[str, list[int]]]
    result: object = None
    """A record it sent in its own words, as an ``AskResult`` (``app.answer.about_question`` fills it): the answer
    cites it when recall found none."""
    photos: int = 0
    """For a place: how many live photos were taken there."""


def about(c: Container, ref: str | int) -> About:
    """:class:`About` the live entity ``ref`` names (id, name or alias, as :func:`find_entity`).  Reads only.

    Raises:
        NotFound / Ambiguous: ``ref`` names no entity, or several.
    """
    e = find_entity(c, ref)
    with c.db.session() as s:
        addresses = [a.value for a in s.exec(select(Alias).where(Alias.entity_id == e.id, Alias.kind.in_(("email", "phone")))
                                             .order_by(Alias.id)).all()]
        live = (select(RecordEntity.record_id).join(Record, Record.id == RecordEntity.record_id)
                .where(RecordEntity.entity_id == e.id, Record.tombstoned_at.is_(None)))
        n, first, last = s.exec(select(func.count(func.distinct(Record.id)), func.min(Record.sent_at),
                                       func.max(Record.sent_at)).where(Record.id.in_(live))).one()
        other = select(Entity.canonical_name, func.count(func.distinct(RecordEntity.record_id))) \
            .join(Entity, Entity.id == RecordEntity.entity_id) \
            .where(RecordEntity.record_id.in_(live), RecordEntity.entity_id != e.id, Entity.kind == "person",
                   Entity.is_owner.is_(False), Entity.tombstoned_at.is_(None)) \
            .group_by(Entity.id, Entity.canonical_name) \
            .order_by(func.count(func.distinct(RecordEntity.record_id)).desc(), Entity.canonical_name).limit(3)
        together = [(name, int(k)) for name, k in s.exec(other).all()]
        kept = sorted((f for f in _entity_facts(s, e.id) if f.superseded_by is None and f.domain != "identity"
                       and not f.key.startswith("writes_to:")), key=lambda f: -f.confidence)[:3]
        facts = [(f.statement, sorted(s.exec(select(Evidence.record_id).where(Evidence.fact_id == f.id)).all()))
                 for f in kept]
        photos = s.exec(select(func.count(Record.id)).where(Record.place_entity_id == e.id, Record.kind == "photo",
                                                            Record.tombstoned_at.is_(None))).one() \
            if e.kind == "place" else 0
        return About(e.id, e.kind, e.canonical_name, bool(e.is_owner), addresses, int(n or 0), ensure_utc(first),
                     ensure_utc(last), together, facts, photos=int(photos or 0))


PARTY_ROLES = ("from", "to", "cc", "member")
"""The roles that make someone a party to a record (not someone it mentions, nor a place or an event)."""


def _offsets(c: Container) -> list[int | None]:
    """The distinct ``record.utc_offset`` values (minutes; None: unknown) — a few dozen at most."""
    with c.db.session() as s:
        return list(s.exec(select(Record.utc_offset).distinct()).all()) or [None]


def _live(*, since: datetime | None = None, until: datetime | None = None, channels: tuple[str, ...] = (),
          kinds: tuple[str, ...] = (), sender_id: int | None = None, offsets: list[int | None] | None = None,
          recipient_id: int | None = None):
    """``SELECT record.id`` of the live records sent in ``[since, until)``, from sources of ``channels``
    (source kinds), of record ``kinds``, sent by ``sender_id``, to ``recipient_id`` (a recipient or a member of
    the chat) (each: any when not given).

    ``since``/``until`` are a calendar's bounds (midnight of a day, a month, a year, written as UTC).  With
    ``offsets`` (:func:`_offsets`) a record is in them when its time **where it was sent or taken** (``sent_at`` at
    its own ``utc_offset``; UTC when that is unknown) is: a photo taken at 00:30 on 5 May in Tokyo is on 5 May,
    though it is still 4 May in UTC.  Without ``offsets``, ``sent_at`` itself (UTC) is compared."""
    q = select(Record.id).where(Record.tombstoned_at.is_(None))
    if channels:
        q = q.join(Source, Source.id == Record.source_id).where(Source.kind.in_(channels))
    if kinds:
        q = q.where(Record.kind.in_(kinds))
    if sender_id is not None:
        q = q.where(Record.sender_entity_id == sender_id)
    if recipient_id is not None:
        q = q.where(Record.id.in_(select(RecordEntity.record_id).where(
            RecordEntity.entity_id == recipient_id, RecordEntity.role.in_(("to", "cc", "member")))))
    if since is None and until is None:
        return q
    parts = []
    for offset in offsets if offsets is not None else [None]:
        shift = timedelta(minutes=offset or 0)
        conds = [] if offsets is None else [Record.utc_offset.is_(None) if offset is None else Record.utc_offset == offset]
        if since is not None:
            conds.append(Record.sent_at >= since - shift)
        if until is not None:
            conds.append(Record.sent_at < until - shift)
        parts.append(and_(*conds))
    return q.where(or_(*parts))


def _places(s, live, limit: int | None = None) -> list[tuple[str, int, datetime | None]]:
    """The places the records of ``live`` were taken at: ``[(name, records, first send time)]``, most records
    first, ties by name.  The first time is at that record's own offset (its day is the day where it was taken),
    UTC when that is unknown."""
    n = func.count(func.distinct(Record.id))
    q = (select(Entity.id, Entity.canonical_name, n, func.min(Record.sent_at))
         .join(Record, Record.place_entity_id == Entity.id)
         .where(Record.id.in_(live), Entity.tombstoned_at.is_(None))
         .group_by(Entity.id, Entity.canonical_name).order_by(n.desc(), Entity.canonical_name))
    rows = s.exec(q.limit(limit) if limit else q).all()
    firsts = (select(Record.place_entity_id.label("pid"), func.min(Record.sent_at).label("t"))
              .where(Record.id.in_(live)).group_by(Record.place_entity_id).subquery())
    offsets = dict(s.exec(select(Record.place_entity_id, func.max(Record.utc_offset))
                          .join(firsts, and_(Record.place_entity_id == firsts.c.pid, Record.sent_at == firsts.c.t))
                          .where(Record.id.in_(live)).group_by(Record.place_entity_id)).all())
    out = []
    for pid, name, k, first in rows:
        first, offset = ensure_utc(first), offsets.get(pid)
        if first is not None and offset is not None:
            first = first.astimezone(timezone(timedelta(minutes=offset)))
        out.append((name, int(k), first))
    return out


@dataclass
class Contact:
    """Someone the owner is in touch with (:func:`most_in_touch`): ``records`` live records they are a party to,
    sent between ``first`` and ``last`` (UTC, or None when no time is known)."""

    id: int
    name: str
    records: int
    first: datetime | None
    last: datetime | None


def most_in_touch(c: Container, *, channels: tuple[str, ...] = (), since: datetime | None = None,
                  until: datetime | None = None, roles: tuple[str, ...] | None = None,
                  limit: int = 3) -> list[Contact]:
    """The people (not the owner, not forgotten) who are parties to the most live records (:data:`PARTY_ROLES`),
    most first, ties by name — "who do I talk to most?".  Reads only.

    Args:
        channels: source kinds to count (``("whatsapp",)``, ``("mbox", "eml")``); empty: every kind.
        since / until: only records sent in ``[since, until)`` (calendar bounds, each record read at its own
            offset: :func:`_live`).
        roles: the roles that count (``("from",)``: who wrote); default :data:`PARTY_ROLES`.
        limit: people returned.
    """
    n = func.count(func.distinct(Record.id))
    q = (select(Entity.id, Entity.canonical_name, n, func.min(Record.sent_at), func.max(Record.sent_at))
         .join(RecordEntity, RecordEntity.entity_id == Entity.id).join(Record, Record.id == RecordEntity.record_id)
         .where(Record.id.in_(_live(since=since, until=until, channels=channels,
                                    offsets=_offsets(c) if since or until else None)),
                RecordEntity.role.in_(roles or PARTY_ROLES), Entity.kind == "person",
                Entity.is_owner.is_(False), Entity.tombstoned_at.is_(None))
         .group_by(Entity.id, Entity.canonical_name).order_by(n.desc(), Entity.canonical_name).limit(limit))
    with c.db.session() as s:
        return [Contact(int(i), name, int(k), ensure_utc(first), ensure_utc(last))
                for i, name, k, first, last in s.exec(q).all()]


@dataclass
class Contacted:
    """One record that puts someone in touch with the owner (:func:`last_contact`): its id, send time (UTC, or
    None), kind (``email``, ``chat``, …), the source kind (``mbox``, ``whatsapp``, …), subject and text."""

    record_id: int
    when: datetime | None
    kind: str
    channel: str
    subject: str | None
    text: str


def last_contact(c: Container, entity_id: int, *, roles: tuple[str, ...] | None = None,
                 first: bool = False) -> Contacted | None:
    """The latest (``first``: the earliest) live record with a known send time in which entity ``entity_id`` has
    one of ``roles`` (default :data:`PARTY_ROLES`; ``("from",)``: the records it sent), or None.  Reads only."""
    order = Record.sent_at.asc() if first else Record.sent_at.desc()
    q = (select(Record.id, Record.sent_at, Record.kind, Source.kind, Record.subject, Record.text)
         .join(RecordEntity, RecordEntity.record_id == Record.id).join(Source, Source.id == Record.source_id)
         .where(RecordEntity.entity_id == entity_id, RecordEntity.role.in_(roles or PARTY_ROLES),
                Record.tombstoned_at.is_(None), Record.sent_at.is_not(None))
         .order_by(order, Record.id.desc()).limit(1))
    with c.db.session() as s:
        row = s.exec(q).first()
    if row is None:
        return None
    rid, when, kind, channel, subject, text = row
    return Contacted(int(rid), ensure_utc(when), kind, channel, subject, text or "")


@dataclass
class Period:
    """What the live records sent in ``[since, until)`` (UTC) hold (:func:`period`): how many, how many of each
    kind (``{"email": 12, "photo": 2}``), the people most often a party to them (:func:`most_in_touch`) and the
    places the photos were taken at (``[(name, records)]``, most first, at most 3), and up to 3 distinct subjects
    of the mails, most recent first."""

    since: datetime
    until: datetime
    records: int
    kinds: dict[str, int]
    people: list[tuple[str, int]]
    places: list[tuple[str, int]]
    subjects: list[str]
    began: list[str] = field(default_factory=list)
    """The statements of up to 3 facts that began in the period ("As of 2021-06-30, Alex Morgan lives in
    Glasgow."), earliest first — not addresses, who wrote to whom or photo visits, which the counts say."""


def period(c: Container, since: datetime, until: datetime) -> Period:
    """:class:`Period` for the live records sent in ``[since, until)`` (each at its own offset: :func:`_live`) —
    "what happened in June 2000?".  Reads only."""
    live = _live(since=since, until=until, offsets=_offsets(c))
    with c.db.session() as s:
        kinds = {k: int(v) for k, v in s.exec(select(Record.kind, func.count(Record.id)).where(Record.id.in_(live))
                                               .group_by(Record.kind)).all()}
        places = [(name, k) for name, k, _first in _places(s, live, 3)]
        subjects: list[str] = []
        for subject in s.exec(select(Record.subject).where(Record.id.in_(live), Record.subject.is_not(None))
                              .order_by(Record.sent_at.desc(), Record.id.desc()).limit(50)).all():
            bare = bare_subject(subject)
            if bare and bare.casefold() not in {x.casefold() for x in subjects}:
                subjects.append(bare)
            if len(subjects) == 3:
                break
        lo, hi = ensure_utc(since), ensure_utc(until)
        began = [f.statement for f in s.exec(select(Fact).where(
            Fact.tombstoned_at.is_(None), Fact.valid_from >= lo, Fact.valid_from < hi, Fact.domain != "identity")
            .order_by(Fact.valid_from, Fact.id)).all()
            if not f.key.startswith(("photographed:", "writes_to:", "photos:", "correspondence"))][:3]
    people = [(p.name, p.records) for p in most_in_touch(c, since=since, until=until)]
    return Period(since, until, sum(kinds.values()), kinds, people, places, subjects, began)


@dataclass
class Tally:
    """How many live records match (:func:`tally`), sent between ``first`` and ``last`` (UTC, or None), and the
    places among them (``[(name, records, first send time)]``, most records first)."""

    records: int
    first: datetime | None
    last: datetime | None
    places: list[tuple[str, int, datetime | None]]


def tally(c: Container, *, kinds: tuple[str, ...] = (), sender_id: int | None = None, place: str | None = None,
          since: datetime | None = None, until: datetime | None = None, recipient_id: int | None = None) -> Tally:
    """Count the live records of ``kinds`` (record kinds: ``email``, ``chat``, ``photo``, ``voice``; empty: all)
    sent by entity ``sender_id`` (None: anyone) to ``recipient_id`` (None: anyone), taken at a place whose name holds ``place`` (case-insensitive:
    "Italy" matches "Arezzo, Tuscany, Italy"), sent in ``[since, until)`` (each at its own offset: :func:`_live`) —
    "how many emails did Cristy send me?", "how many photos did I take in Italy?", "where have I been?".  ``first``
    and ``last`` are at their records' own offsets.  Reads only."""
    live = _live(since=since, until=until, kinds=kinds, sender_id=sender_id, recipient_id=recipient_id,
                 offsets=_offsets(c) if since or until else None)
    with c.db.session() as s:
        return tally_of(s, live, place)


def tally_of(s, live, place: str | None = None) -> Tally:
    """:func:`tally` of the records the ``live`` query selects (``Record.id``), in session ``s``: taken at a place
    whose name holds ``place`` (None: anywhere)."""
    places = _places(s, live)
    if place:
        want = place.casefold()
        places = [p for p in places if want in p[0].casefold()]
        live = live.where(Record.place_entity_id.in_(
            select(Entity.id).where(Entity.canonical_name.in_([name for name, _n, _f in places]))))
    n, first, last = s.exec(select(func.count(Record.id), func.min(Record.sent_at), func.max(Record.sent_at))
                            .where(Record.id.in_(live))).one()
    first, last = (_at_own_offset(s, live, t) for t in (first, last))
    return Tally(int(n or 0), first, last, places)


def _at_own_offset(s, live, when: datetime | None) -> datetime | None:
    """``when`` (a ``sent_at`` of one of the records of ``live``) at that record's own offset, else UTC."""
    when = ensure_utc(when)
    if when is None:
        return None
    offset = s.exec(select(func.max(Record.utc_offset)).where(Record.id.in_(live), Record.sent_at == when)).one()
    return when.astimezone(timezone(timedelta(minutes=offset))) if offset is not None else when


@dataclass
class Overview:
    """What Kith holds, in a few figures (:func:`overview`): live records, people (the owner left out), places,
    the people most in touch (:func:`most_in_touch`) and the places with the most records (names)."""

    records: int
    people: int
    places: int
    top_people: list[str]
    top_places: list[str]


def overview(c: Container) -> Overview:
    """:class:`Overview` of the data folder.  Reads only."""
    with c.db.session() as s:
        records = s.exec(select(func.count(Record.id)).where(Record.tombstoned_at.is_(None))).one()
        counts = dict(s.exec(select(Entity.kind, func.count(Entity.id)).where(
            Entity.tombstoned_at.is_(None), Entity.is_owner.is_(False)).group_by(Entity.kind)).all())
        places = [name for name, _k, _first in _places(s, _live(), 2)]
    return Overview(int(records or 0), int(counts.get("person", 0)), int(counts.get("place", 0)),
                    [p.name for p in most_in_touch(c, limit=2)], places)


def knowledge_map(c: Container, limit: int = 50) -> list[dict]:
    """Entity names ranked by current fact count (seed 002's knowledge map): ``[{"id","name","kind","facts"}]``."""
    with c.db.session() as s:
        rows = s.exec(select(Entity.id, Entity.canonical_name, Entity.kind, func.count(func.distinct(Fact.id)))
                      .join(FactEntity, FactEntity.entity_id == Entity.id)
                      .join(Fact, Fact.id == FactEntity.fact_id)
                      .where(Fact.superseded_by.is_(None), Entity.tombstoned_at.is_(None))
                      .group_by(Entity.id).order_by(func.count(func.distinct(Fact.id)).desc(), Entity.canonical_name)
                      .limit(limit)).all()
    return [{"id": i, "name": n, "kind": k, "facts": int(cnt)} for i, n, k, cnt in rows]




def index_facts(c: Container, fact_ids: list[int]) -> int:
    """Embed fact statements into the Chroma ``facts`` collection and mark them done (``fact.indexed_at``,
    the pipeline's fact-vectors stage); returns how many.  Writer thread only."""
    if not fact_ids:
        return 0
    with c.db.session() as s:
        facts = s.exec(select(Fact).where(Fact.id.in_(fact_ids))).all()
        meta = []
        for f in facts:
            subj = s.get(Entity, f.subject_entity_id)
            meta.append({"fact_id": f.id, "domain": f.domain, "subject_kind": subj.kind if subj else "",
                         "subject_id": f.subject_entity_id})
    if not facts:
        return 0
    vecs = c.encoder.encode([f.statement for f in facts])
    c.vectors.upsert(FACTS, [f"fact:{f.id}" for f in facts], vecs, meta)
    with c.db.session() as s:  # the fact-vectors stage's mark (app/pipeline.py)
        s.connection().exec_driver_sql(
            f"UPDATE fact SET indexed_at = CURRENT_TIMESTAMP WHERE id IN ({','.join(str(f.id) for f in facts)})")
    return len(facts)


@dataclass
class SearchHit:
    """A search result: a fact or a conversation chunk (record), with its cosine similarity."""

    type: str
    id: int
    text: str
    score: float
    domain: str | None = None
    entity: str | None = None
    entity_kind: str | None = None
    when: str | None = None
    source: str | None = None

    def to_json(self) -> dict:
        return asdict(self)


def search(c: Container, query: str, kind: str | None = None, domain: str | None = None, k: int = 10,
           include_history: bool = False) -> list[SearchHit]:
    """Semantic search over facts and conversation chunks (seed 002's search tool), ranked by cosine similarity.

    Args:
        kind: only facts about entities of this kind (and chunks involving one).
        domain: only facts of this domain (chunks are then left out).
        include_history: include superseded facts.

    Raises:
        ValueError: an empty query.
    """

    query = (query or "").strip()
    if not query:
        raise ValueError("search needs a query")
    c.refresh()  # pick up what another Kith process wrote (reloads in-memory indexes; writes nothing)
    qv = c.encoder.encode([query])[0]
    where = {"domain": domain} if domain else None
    hits: list[SearchHit] = []
    with c.db.session() as s:
        for vid, dist in c.vectors.query(FACTS, qv, max(50, k * 5), where=where):
            f = s.get(Fact, int(vid.split(":", 1)[1]))
            if f is None or f.tombstoned_at is not None or (f.superseded_by is not None and not include_history):
                continue
            subj = s.get(Entity, f.subject_entity_id)
            if kind and (subj is None or subj.kind != kind):
                continue
            hits.append(SearchHit("fact", f.id, f.statement, round(1 - dist, 4), f.domain,
                                  subj.canonical_name if subj else None, subj.kind if subj else None,
                                  _iso(f.valid_from)))
        if not domain:
            for vid, dist in c.vectors.query(RECORDS, qv, max(50, k * 5)):
                r = s.get(Record, int(vid.split(":", 1)[1]))
                if r is None or r.tombstoned_at is not None:
                    continue
                if kind:
                    kinds = set(s.exec(select(Entity.kind).join(RecordEntity, RecordEntity.entity_id == Entity.id)
                                       .where(RecordEntity.record_id == r.id)).all())
                    if kind not in kinds:
                        continue
                src = s.get(Source, r.source_id)
                text = f"{r.subject}\n{r.text}" if r.subject and r.kind not in ("photo", "voice") else r.text
                hits.append(SearchHit("chunk", r.id, text[:600], round(1 - dist, 4), when=_iso(r.sent_at),
                                      source=src.path if src else None))
    hits.sort(key=lambda h: -h.score)
    return hits[:k]


@dataclass
class Held:
    """One value an entity held for one attribute over time (:func:`held`): its value ("Madrid"), statement, the
    valid time ``[valid_from, valid_to)`` (UTC; None: open), whether it is current, its evidence record ids, and the
    fact's key (``employer``, ``title``, …)."""

    fact_id: int
    value: str
    statement: str
    valid_from: datetime | None
    valid_to: datetime | None
    current: bool
    evidence: list[int]
    key: str = ""

    def holds_during(self, since: datetime, until: datetime) -> bool:
        """True when the valid time meets ``[since, until)`` (UTC)."""
        return (self.valid_from is None or self.valid_from < until) and (self.valid_to is None or self.valid_to > since)


def held(c: Container, entity_id: int, domain: str, category: str, keys: Sequence[str] | None = None) -> list[Held]:
    """Every live fact of entity ``entity_id`` in ``domain``/``category`` (``places``/``residence``: where it lives;
    ``work``/``employment``: where it works — key ``employer`` —, its job title and department), with one of
    ``keys`` when given, current and superseded, earliest valid time first — seed 002's temporal validity, for
    "where did Rosa live in March 2023?" and "… before Madrid?".  Reads only."""
    with c.db.session() as s:
        q = select(Fact).where(Fact.subject_entity_id == entity_id, Fact.domain == domain,
                               Fact.category == category, Fact.tombstoned_at.is_(None))
        rows = s.exec(q.where(Fact.key.in_(list(keys))) if keys is not None else q).all()
        ev: dict[int, list[int]] = {}
        if rows:
            for fid, rid in s.exec(select(Evidence.fact_id, Evidence.record_id)
                                   .join(Record, Record.id == Evidence.record_id)
                                   .where(Evidence.fact_id.in_([f.id for f in rows]), Record.tombstoned_at.is_(None))
                                   .order_by(Evidence.record_id)).all():
                ev.setdefault(int(fid), []).append(int(rid))
        out = [Held(int(f.id), f.value, f.statement, ensure_utc(f.valid_from), ensure_utc(f.valid_to),
                    f.superseded_by is None and f.valid_to is None, ev.get(int(f.id), []), f.key or "") for f in rows]
    floor = datetime.min.replace(tzinfo=timezone.utc)
    return sorted(out, key=lambda h: (h.valid_from or floor, h.fact_id))

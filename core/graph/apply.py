"""Turn extracted :class:`FactCandidate` items into graph facts: resolve whom each is about, then run the pipeline.

Identity-aware (seed 002): "I …" is about the speaker; "my mom …" is about the
speaker's mother — an entity of her own, linked to the speaker by a
``relationships`` fact — never about the speaker.
"""
from __future__ import annotations

import hashlib
import re
from datetime import datetime, time, timezone

from sqlmodel import Session, select

from core.extraction.personal_facts import FAMILY as _FAMILY, KIN_NAMES, FactCandidate, Subject
from core.graph.facts import FactDraft, FactOutcome, as_of_statement, close_fact, end_fact, write_fact
from core.graph.entities import is_full_name, normalize_name, strip_decorations
from core.graph.resolution import (NameIndex, add_alias, first_name_of_someone, identity_of, resolve,
                                   resolve_mention)
from core.store.schema import Alias, Entity, Fact, FactEntity, Record, RecordEntity


def _utc(day) -> datetime | None:
    return datetime.combine(day, time(0, 0), tzinfo=timezone.utc) if day else None


def relative_of(s: Session, speaker: Entity, relation: str, name: str | None, index: NameIndex | None,
                when: datetime | None, record_id: int | None, sentence: str, told: bool = True) -> Entity:
    """The speaker's ``relation`` (e.g. mother): found through an existing relationship fact, by name, or created.
    ``speaker`` may be someone another writer names ("Nina's sister": Nina, ``told`` False — the statement then
    says Nina has a sister, not that she mentioned one)."""
    key_prefix = f"relation:{relation}"
    if name:
        rel = named_relative(s, speaker.id, name, relation)
        if rel is None:
            res = resolve_mention(s, name, _thread(s, record_id), index, exclude={speaker.id})
            rel = res.entity
            if not res.created and not is_full_name(name) and _someone_elses_relative(s, rel.id, speaker.id):
                # "my sister Jane" from Tom, when the Jane known so far is Rosa's sister: a first name says no
                # more than that — another Jane, of Tom's, until something joins them (never one's job superseding
                # the other's)
                rel = Entity(kind="person", canonical_name=name, attrs={"relation_of": speaker.id, "relation": relation})
                s.add(rel)
                s.flush()
                add_alias(s, rel, "name", name)
                if index is not None:
                    index.add(s, rel, name)
    else:
        known = s.exec(select(Fact).where(Fact.subject_entity_id == speaker.id, Fact.domain == "relationships",
                                          Fact.key.startswith(key_prefix), Fact.superseded_by.is_(None))).all()
        linked = [fe.entity_id for f in known for fe in s.exec(select(FactEntity).where(
            FactEntity.fact_id == f.id, FactEntity.role == "object")).all()]
        rel = s.get(Entity, linked[0]) if len(set(linked)) == 1 else None
        if rel is None and speaker.is_owner:
            rel = kin_contact(s, relation)  # the owner's "my mum": the contact the owner saved as "Mum"
        if rel is None:
            rel = Entity(kind="person", canonical_name=f"{speaker.canonical_name}'s {relation}",
                         attrs={"relation_of": speaker.id, "relation": relation})
            s.add(rel)
            s.flush()
    if name and rel.id != speaker.id:
        _adopt_stand_in(s, speaker, relation, rel, index)
    key = key_prefix + (f":{name.lower()}" if name else "")
    write_fact(s, FactDraft(
        subject_id=speaker.id, domain="relationships", category="family" if relation in _FAMILY else "social",
        key=key, value=rel.canonical_name, confidence=0.6, valid_from=when, record_id=record_id, excerpt=sentence,
        statement=as_of_statement(when, f"{speaker.canonical_name}'s {relation} is {rel.canonical_name}." if name
                                  else f"{speaker.canonical_name} mentioned their {relation}." if told
                                  else f"{speaker.canonical_name} has a {relation}."),
        links=[(rel.id, "object")]))
    return rel



_ONE_ONLY = frozenset({"mother", "father", "wife", "husband", "partner", "girlfriend", "boyfriend", "boss"})
"""Relations one has one of at a time (a boss, as the writer speaks of "my boss"): the relative spoken of by no name
before is the one a name is learnt for (not so for a sister, a child, a friend: there may be several)."""


def _adopt_stand_in(s: Session, speaker: Entity, relation: str, named: Entity, index: NameIndex | None) -> None:
    """``named`` is ``speaker``'s ``relation`` by name ("My boss is Gavin Belson"): the stand-in made when the
    relative was spoken of by no name ("My boss moved to Palo Alto": a person "Rosa Vidal's boss") is merged into
    it (signal ``alias``, never held), for a relation of :data:`_ONE_ONLY` and when no other named relative of that
    relation is current — in either order one boss, not two."""
    from core.graph.resolution import merge_by_rule

    if relation not in _ONE_ONLY or named.kind != "person":
        return
    others = {fe.entity_id for f in s.exec(select(Fact).where(
        Fact.subject_entity_id == speaker.id, Fact.domain == "relationships",
        Fact.key.startswith(f"relation:{relation}:"), Fact.superseded_by.is_(None))).all()
        for fe in s.exec(select(FactEntity).where(FactEntity.fact_id == f.id, FactEntity.role == "object")).all()}
    if others - {named.id}:
        return  # a boss named before: whom the unnamed one was is not known
    for e in s.exec(select(Entity).where(Entity.kind == "person", Entity.tombstoned_at.is_(None),
                                         Entity.canonical_name == f"{speaker.canonical_name}'s {relation}")).all():
        attrs = e.attrs or {}
        if e.id != named.id and attrs.get("relation_of") == speaker.id and attrs.get("relation") == relation:
            merge_by_rule(s, named, e, "alias", 1.0, f"{named.canonical_name!r} is {speaker.canonical_name}'s "
                          f"{relation}, spoken of before by no name", index, hold=False)


def kin_name(name: str | None) -> str | None:
    """The relation a name made of a kinship word alone names ("Mum", "Dad ❤️", "Nan", "mom" → mother, father,
    grandmother, mother; :data:`~core.extraction.personal_facts.KIN_NAMES`), else None ("Mum Smith", "Dad's
    phone", "Tom")."""
    word = strip_decorations(name or "").strip(" .!").casefold()
    return KIN_NAMES.get(word)


def kin_contact(s: Session, relation: str) -> Entity | None:
    """The one live person whose name is a kinship word for ``relation`` ("Mum" for mother) — how the owner's phone
    shows that relative in a chat export — or None when there is none or several.  The source of the rule: a
    contact's name in WhatsApp, iMessage or Telegram exports is the one the owner saved, so "Mum" is the owner's
    mother (was: "Alex Morgan's mother", made from the owner's "my mum works at Initech", and the chat's "Mum" were
    two people)."""
    from sqlalchemy import or_

    words = [w for w, r in KIN_NAMES.items() if r == relation]
    if not words:
        return None
    hits = set()
    for e in s.exec(select(Entity).join(Alias, Alias.entity_id == Entity.id).where(
            Alias.kind == "name", Entity.kind == "person", Entity.tombstoned_at.is_(None),
            Entity.is_owner.is_(False), or_(Alias.normalized.in_(words),
                                            *[Alias.normalized.startswith(w + " ") for w in words]))).all():
        if kin_name(e.canonical_name) == relation:
            hits.add(e.id)
    return s.get(Entity, hits.pop()) if len(hits) == 1 else None


def adopt_kin_contact(s: Session, contact: Entity, index: NameIndex | None = None) -> None:
    """``contact``, a person just named by a kinship word ("Mum": :func:`kin_name`), is the owner's relative the
    owner spoke of before it appeared: the stand-in made then ("Alex Morgan's mother", no name of its own) is merged
    into it (signal ``alias``, never held) — in either order one mother, not two."""
    from core.graph.resolution import merge_by_rule

    relation = kin_name(contact.canonical_name)
    me = s.exec(select(Entity).where(Entity.is_owner.is_(True), Entity.tombstoned_at.is_(None))).first()
    if relation is None or me is None or contact.is_owner or contact.kind != "person":
        return
    for e in s.exec(select(Entity).where(Entity.kind == "person", Entity.tombstoned_at.is_(None),
                                         Entity.canonical_name == f"{me.canonical_name}'s {relation}")).all():
        attrs = e.attrs or {}
        if e.id != contact.id and attrs.get("relation_of") == me.id and attrs.get("relation") == relation:
            merge_by_rule(s, contact, e, "alias", 1.0, f"{contact.canonical_name!r} is how the owner's phone names "
                          f"their {relation}", index, hold=False)


def named_relative(s: Session, speaker_id: int, name: str, relation: str | None = None) -> Entity | None:
    """The live relative of ``speaker_id`` that a relationship fact of theirs names ``name`` ("my sister Jane":
    key ``relation:sister:jane``), of ``relation`` when given; None when there is none or several."""
    key = f"relation:{relation}:{name.lower()}" if relation else None
    facts = s.exec(select(Fact).where(Fact.subject_entity_id == speaker_id, Fact.domain == "relationships",
                                      Fact.key == key if key else Fact.key.endswith(f":{name.lower()}"))).all()
    ids = {fe.entity_id for f in facts if f.key.startswith("relation:")
           for fe in s.exec(select(FactEntity).where(FactEntity.fact_id == f.id, FactEntity.role == "object")).all()}
    live = [e for e in (s.get(Entity, i) for i in sorted(ids)) if e is not None and e.tombstoned_at is None]
    return live[0] if len(live) == 1 else None


def _someone_elses_relative(s: Session, entity_id: int, speaker_id: int) -> bool:
    """True when ``entity_id`` is known as the relative of someone other than ``speaker_id`` (and not of them)."""
    subjects = set(s.exec(select(Fact.subject_entity_id).join(FactEntity, FactEntity.fact_id == Fact.id).where(
        FactEntity.entity_id == entity_id, FactEntity.role == "object", Fact.domain == "relationships",
        Fact.key.startswith("relation:"))).all())
    e = s.get(Entity, entity_id)
    if e is not None and (e.attrs or {}).get("relation_of"):
        subjects.add((e.attrs or {})["relation_of"])
    return bool(subjects) and speaker_id not in subjects


def _thread(s: Session, record_id: int | None) -> str | None:
    row = s.get(Record, record_id) if record_id else None
    return row.thread if row is not None else None


def speaker_identity(s: Session, speaker: Entity, record_id: int | None) -> Entity:
    """Whom "I" in record ``record_id`` is: the sender entity, or — while a merge Kith made across two
    identifiers is unconfirmed — the identity the record came from (its facts wait there; issue 13)."""
    if record_id is None:
        return speaker
    link = s.exec(select(RecordEntity).where(RecordEntity.record_id == record_id, RecordEntity.role == "from",
                                             RecordEntity.entity_id == speaker.id)).first()
    if link is None or link.alias_id is None:
        return speaker
    ident = identity_of(s, speaker, s.get(Alias, link.alias_id))
    return speaker if ident == speaker.id else (s.get(Entity, ident) or speaker)


def _statement(c: FactCandidate, who: str, when: datetime | None) -> str:
    if c.category == "employment" and c.key == "title":  # a signature's title (core.extraction.signature)
        return as_of_statement(when, f"{who}'s job title is {c.value}.")
    if c.category == "employment":
        return as_of_statement(when, f"{who} works at {c.value}.")
    if c.category == "residence":
        return as_of_statement(when, f"{who} lives in {c.value}.")
    if c.category == "birthday":
        return as_of_statement(when, f"{who}'s birthday is {c.value.lstrip('-')}.")
    if c.domain == "health":
        return as_of_statement(when, f"{who} had {c.value}.")
    if c.domain == "relationships":
        return as_of_statement(when, f"{who}'s {c.key.split(':')[1]} is {c.value}.")
    return as_of_statement(when, f"{who}: {c.category} {c.key} = {c.value}.")


def apply_candidates(s: Session, candidates: list[FactCandidate], speaker: Entity | None, record_id: int | None,
                     sent_at: datetime | None, index: NameIndex | None = None) -> list[FactOutcome]:
    """Resolve each candidate's subject (and object) to entities and write it through the fact pipeline.

    Args:
        speaker: the record's sender (None: first-person facts are skipped — we don't know who "I" is; so are
            they when the sender is not a person — an SMS short code, a service address, a list — but for a
            household's address, whose "we" is its people).
        sent_at: the record's time (fallback valid time and the "As of" date).
    """
    outcomes: list[FactOutcome] = []
    if speaker is not None and speaker.kind != "person" and (speaker.attrs or {}).get("group") != "household":
        speaker = None  # a service, a short code, a list: its "I", "we" and "my mum" are copy, not someone's life
        # ("GitHub" <noreply@github.com> writing "My sister works at Initech" made a person "GitHub's sister");
        # a household's "we moved to Bath" is its home
    if speaker is not None and candidates:
        speaker = speaker_identity(s, speaker, record_id)
    thread = _thread(s, record_id) if candidates else None
    for c in candidates:
        when = _utc(c.valid_from) or sent_at
        subject: Entity | None
        if c.domain == "relationships":
            if c.subject.kind == "name":  # "Nina's sister lives in Oslo": Nina's relative, told by someone else
                anchor = _named(s, speaker, c.subject.name, thread, index)
                if anchor is not None and (speaker is None or anchor.id != speaker.id):
                    relative_of(s, anchor, c.key.split(":")[1], c.obj, index, when, record_id, c.sentence,
                                told=False)
            elif speaker is not None:
                relative_of(s, speaker, c.key.split(":")[1], c.obj, index, when, record_id, c.sentence)
            continue
        if c.subject.kind == "speaker":
            subject = speaker
        elif c.subject.kind == "relation" and c.subject.of:
            anchor = _named(s, speaker, c.subject.of, thread, index)
            subject = relative_of(s, anchor, c.subject.relation, c.subject.name, index, when, record_id, c.sentence,
                                  told=speaker is not None and anchor is not None and anchor.id == speaker.id) \
                if anchor is not None else None
        elif c.subject.kind == "relation":
            subject = _kin_in_thread(s, c.subject.word, thread, index, speaker)
            if subject is None:
                subject = relative_of(s, speaker, c.subject.relation, c.subject.name, index, when, record_id,
                                      c.sentence) if speaker is not None else None
        else:  # a statement about whoever it names: the speaker's relative of that name ("Jane" after "my sister
            # Jane"), a participant of this thread, the one person of that name — never the last speaker
            subject = _named(s, speaker, c.subject.name, thread, index)
        if subject is None:
            continue
        if _works_for_person(s, c, thread, index):  # "I work for Tom": Tom is a boss, no employer
            if not c.ends:  # "I used to work for Tom": no job that was, nor a boss now
                relative_of(s, subject, "boss", c.value, index, when, record_id, c.sentence,
                            told=speaker is not None and subject.id == speaker.id)
            continue
        if c.ends:  # "I don't live in Berlin anymore": the fact in effect then ends (nothing new is stated)
            ended = end_fact(s, subject.id, c.ends, c.value, when, record_id)
            if ended is not None:
                outcomes.append(FactOutcome("ended", ended))
            elif when is not None:  # the fact it ends may come later, from an older message imported after it
                _keep_ending(s, subject, c.ends, c.value, when, record_id)
            triple = (ended.domain, ended.category, ended.key) if ended is not None else _kind_of(s, c.ends, c.value,
                                                                                                    c.then)
            if ended is None and c.held and triple is not None and when is not None and \
                    _fits(s, c.value, triple, c.then):
                outcomes.append(_past_spell(s, subject, c, triple, when, record_id, index))
            if c.then and triple is not None:  # "I left Berlin for Madrid": Madrid is the home from then
                c = FactCandidate(c.subject, *triple, c.then, c.sentence, c.confidence, c.valid_from, obj=c.then,
                                  obj_kind="place" if triple[1] == "residence" else "thing", time_note=c.time_note)
            else:
                continue
        links: list[tuple[int, str]] = []
        if c.obj and c.obj_kind in ("thing", "place"):
            obj = resolve(s, c.obj_kind, c.obj, index=index).entity
            links.append((obj.id, "location" if c.obj_kind == "place" else "object"))
        draft = FactDraft(subject_id=subject.id, domain=c.domain, category=c.category, key=c.key, value=c.value,
                          statement=_statement(c, subject.canonical_name, when), confidence=c.confidence,
                          valid_from=when, record_id=record_id, links=links,
                          excerpt=c.sentence + (f" [{c.time_note}]" if c.time_note else ""))
        outcome = write_fact(s, draft)
        if c.valid_to and outcome.action != "reinforced" and outcome.fact.valid_to is None:
            outcome.fact.valid_to = _utc(c.valid_to)
            s.add(outcome.fact)
        _apply_endings(s, subject, outcome.fact)
        outcomes.append(outcome)
    return outcomes


def _fits(s: Session, value: str, triple: tuple[str, str, str], then: str | None) -> bool:
    """Whether a spell that was can be written as ``triple``'s kind (a home, a job) by its own value, when what
    follows it decided the kind ("I left Hooli for Italy": Italy is a home, Hooli is no home that was): a known
    entity of that kind, or — a leaving with both names new — a town or country for a home and no place for a job
    (:mod:`core.extraction.gazetteer`).  Always when nothing follows ("I used to live in Rome")."""
    if then is None:
        return True
    kinds = _kinds(s, value)
    want = "place" if triple[1] == "residence" else "thing"
    if kinds:
        return want in kinds
    from core.extraction.gazetteer import is_place_name

    return is_place_name(value) == (want == "place")


def _past_spell(s: Session, subject: Entity, c: FactCandidate, triple: tuple[str, str, str], until: datetime,
                record_id: int | None, index: NameIndex | None) -> FactOutcome:
    """Write a spell that is over and ended nothing in effect ("I used to live in Rome", "I lived in Paris from 2010
    to 2015") as history of ``subject``: from ``c.held_from`` (UTC midnight; None — an unknown day — when the text
    gives no start) to ``until``, ended (:func:`close_fact`).  A statement "As of <start>, … lives in Paris."
    (an unknown date without a start), as every fact of its key says it; being ended, it is read in the past."""
    start = _utc(c.held_from)
    spell = FactCandidate(c.subject, *triple, c.value, c.sentence, c.confidence, c.held_from, obj=c.value,
                          obj_kind="place" if triple[1] == "residence" else "thing", time_note=c.time_note)
    links: list[tuple[int, str]] = []
    obj = resolve(s, spell.obj_kind, c.value, index=index).entity
    links.append((obj.id, "location" if spell.obj_kind == "place" else "object"))
    outcome = write_fact(s, FactDraft(subject_id=subject.id, domain=triple[0], category=triple[1], key=triple[2],
                                      value=c.value, statement=_statement(spell, subject.canonical_name, start),
                                      confidence=c.confidence, valid_from=start, record_id=record_id, links=links,
                                      excerpt=c.sentence + (f" [{c.time_note}]" if c.time_note else "")))
    if outcome.action != "reinforced":
        close_fact(s, outcome.fact, until)
    return outcome


def _kin_in_thread(s: Session, word: str | None, thread: str | None, index: NameIndex | None,
                   speaker: Entity | None) -> Entity | None:
    """The one other participant of ``thread`` whose name is the kinship word ``word`` a writer used as a name, or
    None.  In a family's group chat the phone shows the parents as "Mum" and "Dad": Mum's "Dad and I moved to Spain"
    is about the member called Dad, not Mum's own father (it made a person "Mum's father" living in Spain)."""
    if not word or not thread:
        return None
    from core.graph.entities import normalize_name as _norm

    index = index or NameIndex()
    ids = {i for n, ids in index.thread_members(s, thread).items() if kin_name(n) and _norm(strip_decorations(n))
           == _norm(word) for i in ids} - ({speaker.id} if speaker is not None else set())
    e = s.get(Entity, ids.pop()) if len(ids) == 1 else None
    return e if e is not None and e.tombstoned_at is None and e.kind == "person" else None


def _named(s: Session, speaker: Entity | None, name: str | None, thread: str | None,
           index: NameIndex | None) -> Entity | None:
    """The person a text names as a subject: the speaker's relative of that name ("Jane" after "my sister Jane"), a
    participant of the thread, the one person of that name, else a new one (:func:`resolve_mention`); None for a
    name known only as an organisation (:func:`_not_a_person`) or no name."""
    if not name:
        return None
    found = named_relative(s, speaker.id, name) if speaker is not None and not is_full_name(name) else None
    if found is None and _not_a_person(s, name):
        return None  # "Initech moved to Leeds" with Initech known as an employer: a company's move, no one's home
    return found or resolve_mention(s, name, thread, index).entity


def _not_a_person(s: Session, name: str | None) -> bool:
    """True when ``name`` is known only as an organisation (a live thing has it as a name alias, no live person
    does): a sentence naming it as its subject ("Initech moved to Leeds") states no person's home or job (it made a
    person named Initech beside the employer Initech).  A place's name is not enough: many are first names too
    ("Sydney moved to Leeds", "Florence works at Globex")."""
    if not name:
        return False
    kinds = set(s.exec(select(Entity.kind).join(Alias, Alias.entity_id == Entity.id).where(
        Alias.kind.in_(("name", "nickname")), Alias.normalized == normalize_name(name),
        Entity.tombstoned_at.is_(None))).all())
    return "thing" in kinds and "person" not in kinds


def _kinds(s: Session, name: str) -> set[str]:
    """The kinds of the live entities that have ``name`` as a name or nickname alias (normalised)."""
    return set(s.exec(select(Entity.kind).join(Alias, Alias.entity_id == Entity.id).where(
        Alias.kind.in_(("name", "nickname")), Alias.normalized == normalize_name(name),
        Entity.tombstoned_at.is_(None))).all())


def _kind_of(s: Session, keys, value: str, then: str | None = None) -> tuple[str, str, str] | None:
    """Which of ``keys`` (an ending's home-or-job triples) ``value`` is under when no fact of it was in effect to
    end: a home when a place of that name is known and nothing else is, a job when an organisation (thing) is.
    When the graph knows neither ``value`` nor ``then`` (the value that follows: "I left Initech for Globex",
    both new), the offline gazetteer decides: a home when either is a town, city or country (GeoNames
    cities1000, :mod:`core.extraction.gazetteer`), else a job.  None when the graph's entities disagree."""
    if len(keys) == 1:
        return tuple(keys[0])
    want = {"place": "residence", "thing": "employment"}
    for name in (value, then):
        if not name:
            continue
        hits = [k for k in keys if any(want.get(kind) == k[1] for kind in _kinds(s, name))]
        if hits:
            return tuple(hits[0]) if len(hits) == 1 else None
    from core.extraction.gazetteer import is_place_name

    wanted = "residence" if any(is_place_name(n) for n in (value, then) if n) else "employment"
    hits = [k for k in keys if k[1] == wanted]
    return tuple(hits[0]) if len(hits) == 1 else None


_TITLED = re.compile(r"^(?:Dr|Mr|Mrs|Ms|Miss|Mx|Prof|Professor|Sir|Dame|Lady|Lord)\.?\s+[A-Z]")


def _works_for_person(s: Session, c: FactCandidate, thread: str | None, index: NameIndex | None) -> bool:
    """True when an employer candidate names a person worked for, not an organisation: "I work for Tom" in a chat
    with Tom, "Ana works for Dr. Patel" (it made an employer "Tom").  The sentence must say "for <value>" (not
    "at"), and the value is a titled name, or a person's name and no organisation's in the graph, or the first name
    of one of the thread's participants.  "I work for Morgan Stanley" with no person of that name stays a job."""
    if c.key != "employer" or (c.ends and not c.held) or \
            not re.search(rf"\bfor {re.escape(c.value)}\b", c.sentence):
        return False
    if _TITLED.match(c.value):
        return True
    kinds = _kinds(s, c.value)
    if kinds:
        return "person" in kinds and "thing" not in kinds
    if len(c.value.split()) != 1:
        return False
    first = normalize_name(c.value)
    members = (index or NameIndex()).thread_members(s, thread) if thread is not None else {}
    if any(n.split()[0] == first for n in members if n and " " in n):
        return True
    # the first name of a person known from elsewhere ("I work for Tom", Tom Baker's own chat imported before)
    # and of no organisation
    return first_name_of_someone(s, c.value)


PENDING_ENDINGS = "pending_endings"
"""``Entity.attrs[PENDING_ENDINGS]``: endings ("I don't live in Berlin anymore") that found no fact in effect to
end when they were read — the fact may come later, from an older message imported after them.  Each is
``{"keys": [[domain, category, key], …], "value": digest of the value, "at": ISO time, "record": record id}``: the
value is kept as a digest only (no text of a message outside the record rows, so forgetting the record leaves
nothing readable; an entry whose record is gone is dropped when next looked at)."""


def _digest(value: str) -> str:
    return hashlib.sha256(value.strip().casefold().encode("utf-8")).hexdigest()[:20]


def _keep_ending(s: Session, subject: Entity, keys, value: str, at: datetime, record_id: int | None) -> None:
    """Remember an ending that ended nothing yet (:data:`PENDING_ENDINGS`), at most the 50 latest per entity."""
    attrs = dict(subject.attrs or {})
    entry = {"keys": [list(k) for k in keys], "value": _digest(value), "at": at.isoformat(), "record": record_id}
    kept = [e for e in attrs.get(PENDING_ENDINGS, []) if e != entry]
    attrs[PENDING_ENDINGS] = (kept + [entry])[-50:]
    subject.attrs = attrs
    s.add(subject)


def _apply_endings(s: Session, subject: Entity, fact: Fact) -> None:
    """End ``fact`` (just written) where a remembered ending says its value stopped holding after it began
    ("I live in Berlin" from January, imported after June's "I don't live in Berlin anymore")."""
    pending = (subject.attrs or {}).get(PENDING_ENDINGS) or []
    start = fact.valid_from if fact.valid_from is None or fact.valid_from.tzinfo else \
        fact.valid_from.replace(tzinfo=timezone.utc)
    if not pending or start is None:
        return
    triple, value, keep, changed = [fact.domain, fact.category, fact.key], _digest(fact.value), [], False
    for e in pending:
        if e.get("record") is not None:
            rec = s.get(Record, e["record"])
            if rec is None or getattr(rec, "tombstoned_at", None) is not None:
                changed = True  # its message was forgotten: so is the ending
                continue
        at = datetime.fromisoformat(e["at"])
        if triple in e["keys"] and e["value"] == value and start < at and \
                end_fact(s, subject.id, tuple(tuple(k) for k in e["keys"]), fact.value, at, e.get("record")) is not None:
            changed = True
            continue
        keep.append(e)
    if changed:
        subject.attrs = {**(subject.attrs or {}), PENDING_ENDINGS: keep}
        s.add(subject)


__all__ = ["apply_candidates", "relative_of", "Subject"]

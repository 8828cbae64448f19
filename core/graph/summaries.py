"""Summaries that go stale (seed 002): what to (re)generate, and the deterministic texts used without a model.

Four kinds: ``entity`` profiles (subject = entity id), ``domain`` overviews once a
domain has ≥ 10 current facts (subject = domain), ``relationship`` summaries for
the top people by fact count (subject = "owner_id:person_id"), and life ``chapter``
summaries (subject = "domain:category:key" for a fact that changed value over time,
e.g. a career).  A new fact marks every summary it touches stale; the summary job
regenerates stale ones first, then missing ones.  The knowledge map (entity names
ranked by fact count) is stored as ``kind="map"`` after each cycle.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import Session, select

from core import clock
from core.store import dialect
from core.store.schema import Entity, Fact, FactEntity, Summary

DOMAIN_MIN_FACTS = 10      # seed 002: domain overviews once a domain has 10+ facts
TOP_RELATIONSHIPS = 10     # relationship summaries for the top people by fact count
DETERMINISTIC_LABEL = "(Written by Kith from its facts — no language model is configured.)"


def mark_stale(s: Session, entity_ids: list[int], domain: str | None) -> None:
    """Mark the summaries a new or changed fact touches as stale (once per subject set and domain per
    session: an import batch touches the same people again and again)."""
    done = s.info.setdefault("kith_marked_stale", set())
    key = (tuple(sorted(set(entity_ids))), domain)
    if key in done:
        return
    done.add(key)
    ids = sorted({int(i) for i in entity_ids})
    conds, params = [], {}
    if ids:
        conds.append(f"(kind = 'entity' AND subject IN ({','.join(repr(str(i)) for i in ids)}))")
        rel = " OR ".join(f"subject LIKE '{i}:%' OR subject LIKE '%:{i}'" for i in ids)
        conds.append(f"(kind = 'relationship' AND ({rel}))")
    if domain:
        params = {"d": domain, "dp": domain.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + ":%"}
        conds.append("(kind = 'domain' AND subject = :d)")
        conds.append("(kind = 'chapter' AND subject LIKE :dp ESCAPE '\\')")
    if conds:  # one raw statement: compiling the ORM expression cost more than running it (issue #10)
        s.connection().exec_driver_sql(f"UPDATE summary SET stale = 1 WHERE {' OR '.join(conds)}", params)


@dataclass(frozen=True)
class Due:
    """A summary to write: kind and subject (see module doc)."""

    kind: str
    subject: str


def due(s: Session, owner_id: int | None) -> list[Due]:
    """Summaries to (re)generate: stale ones first, then missing ones, in a stable order."""
    existing = {(x.kind, x.subject): x for x in s.exec(select(Summary)).all()}
    stale = [Due(k, sub) for (k, sub), x in existing.items() if x.stale and k != "map" and _subject_live(s, k, sub)]
    missing: list[Due] = []
    per_entity = s.exec(select(FactEntity.entity_id, func.count(func.distinct(Fact.id)))
                        .join(Fact, Fact.id == FactEntity.fact_id).join(Entity, Entity.id == FactEntity.entity_id)
                        .where(Fact.superseded_by.is_(None), Entity.tombstoned_at.is_(None))
                        .group_by(FactEntity.entity_id).order_by(func.count(func.distinct(Fact.id)).desc(),
                                                                 FactEntity.entity_id)).all()
    for eid, _ in per_entity:
        missing.append(Due("entity", str(eid)))
    for dom, n in s.exec(select(Fact.domain, func.count()).where(Fact.superseded_by.is_(None))
                         .group_by(Fact.domain)).all():
        if n >= DOMAIN_MIN_FACTS:
            missing.append(Due("domain", dom))
    if owner_id is not None:
        people = [eid for eid, _ in per_entity if eid != owner_id
                  and (e := s.get(Entity, eid)) is not None and e.kind == "person"][:TOP_RELATIONSHIPS]
        missing += [Due("relationship", f"{owner_id}:{p}") for p in people]
    for dom, cat, key, subj in s.exec(select(Fact.domain, Fact.category, Fact.key, Fact.subject_entity_id)
                                      .where(Fact.superseded_by.is_not(None), Fact.tombstoned_at.is_(None))
                                      .distinct()).all():
        missing.append(Due("chapter", f"{dom}:{cat}:{key}:{subj}"))
    out, seen = [], set()
    for d in stale + [m for m in missing if (m.kind, m.subject) not in existing]:
        if (d.kind, d.subject) not in seen:
            seen.add((d.kind, d.subject))
            out.append(d)
    return out


def _live_entity(s: Session, entity_id) -> Entity | None:
    try:
        e = s.get(Entity, int(entity_id))
    except (TypeError, ValueError):
        return None
    return e if e is not None and e.tombstoned_at is None else None


def _subject_live(s: Session, kind: str, subject: str) -> bool:
    """Whether the entities a summary is about still exist (a forgotten or merged-away one's summary is not due)."""
    if kind == "entity":
        return _live_entity(s, subject) is not None
    if kind == "relationship":
        return all(_live_entity(s, x) is not None for x in subject.split(":"))
    if kind == "chapter":
        return _live_entity(s, subject.split(":", 3)[-1]) is not None
    return True


def _fact_lines(facts: list[Fact]) -> list[str]:
    by_domain: dict[str, list[Fact]] = {}
    for f in facts:
        by_domain.setdefault(f.domain, []).append(f)
    lines = []
    for dom in sorted(by_domain):
        items = sorted(by_domain[dom], key=lambda f: -f.confidence)
        lines.append(f"{dom.capitalize()}: " + " ".join(
            f"{f.statement} (confidence {f.confidence:.2f}, {f.evidence_count} source{'s' if f.evidence_count != 1 else ''})"
            for f in items))
    return lines


_DOMAIN_ORDER = ("places", "work", "family", "relationships", "events", "preferences", "identity")


def _list(items: list[str], more: int = 0) -> str:
    items = items + ([f"{more} other{'s' if more != 1 else ''}"] if more else [])
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def entity_prose(e: Entity, facts: list[Fact], history: list[Fact], superseded: int) -> str:
    """An entity's summary in a few sentences from its facts alone: what is true now (its own facts: where it
    lives and works first, each with the month it began), whom it wrote to and who wrote to it (one sentence each,
    the first three named), its addresses (one sentence), then what its facts were before ("Before: Rosa Vidal
    lived in Berlin until June 2023.").  ``facts``: the current facts it is in (its own and others' naming it);
    ``history``: its own superseded facts, latest first; ``superseded``: how many superseded facts it is in."""
    from core.graph.facts import statement_sentence
    from core.retrieval.answer import history_statement, month_year

    head = f"{e.canonical_name} ({e.kind}{', the owner' if e.is_owner else ''})."
    own = [f for f in facts if f.subject_entity_id == e.id]
    rank = {d: i for i, d in enumerate(_DOMAIN_ORDER)}
    said: list[str] = []
    wrote_to: list[str] = []
    written_by: list[str] = []
    addresses: list[str] = []
    for f in sorted(own, key=lambda f: (rank.get(f.domain, len(rank) - 1), -f.confidence, f.id)):
        if f.category == "correspondence":
            wrote_to.append(f.value)
        elif f.domain == "identity":
            addresses.append(f.value)
        else:
            body = statement_sentence(f.statement).rstrip(".")
            when = ""
            if f.valid_from and f.category in ("residence", "employment"):
                when = f" (since {month_year(f.valid_from)})"
            elif f.valid_from and f.category == "visit":
                when = f" on {f.valid_from.day} {f.valid_from:%B %Y}"
            said.append(f"{body}{when}.")
    for f in facts:
        if f.subject_entity_id != e.id and f.category == "correspondence":
            who = f.statement.split(" wrote to ")[0]
            written_by.append(statement_sentence(who))
    parts = [head, *said[:6]]
    if wrote_to:
        parts.append(f"Wrote to {_list(wrote_to[:3], len(wrote_to) - 3 if len(wrote_to) > 3 else 0)}.")
    if written_by:
        parts.append(f"Written to by {_list(written_by[:3], len(written_by) - 3 if len(written_by) > 3 else 0)}.")
    if addresses:
        parts.append(f"Writes from {_list(addresses[:3], len(addresses) - 3 if len(addresses) > 3 else 0)}.")
    before = [history_statement(f.statement, f.valid_to) for f in history if f.category != "correspondence"][:2]
    if before:
        parts.append("Before: " + "; ".join(before) + ".")
    elif superseded:
        parts.append(f"{superseded} earlier fact{'s were' if superseded != 1 else ' was'} superseded and "
                     f"{'are' if superseded != 1 else 'is'} kept in the history.")
    return " ".join(parts)


def deterministic_text(s: Session, item: Due) -> str | None:
    """A plain summary built only from facts (used when no model is configured), labelled as such;
    None when the summary's subject no longer exists (a forgotten entity: the summary goes)."""
    if not _subject_live(s, item.kind, item.subject):
        return None
    if item.kind == "entity":
        e = s.get(Entity, int(item.subject))
        ids = s.exec(select(FactEntity.fact_id).where(FactEntity.entity_id == e.id)).all()
        facts = s.exec(select(Fact).where(Fact.id.in_(ids), Fact.superseded_by.is_(None),
                                          Fact.tombstoned_at.is_(None))).all() if ids else []
        old = s.exec(select(func.count()).select_from(Fact).where(Fact.id.in_(ids), Fact.superseded_by.is_not(None),
                                                                  Fact.tombstoned_at.is_(None))
                     ).one() if ids else 0
        history = s.exec(select(Fact).where(Fact.id.in_(ids), Fact.superseded_by.is_not(None),
                                            Fact.tombstoned_at.is_(None), Fact.subject_entity_id == e.id)
                         .order_by(Fact.valid_to.desc(), Fact.id.desc())).all() if old else []
        return entity_prose(e, list(facts), list(history), old) + " " + DETERMINISTIC_LABEL
    if item.kind == "domain":
        facts = s.exec(select(Fact).where(Fact.domain == item.subject, Fact.superseded_by.is_(None),
                                          Fact.tombstoned_at.is_(None))
                       .order_by(Fact.confidence.desc()).limit(30)).all()
        return (f"{item.subject.capitalize()}: {len(facts)} current fact(s). "
                + " ".join(f.statement for f in facts) + " " + DETERMINISTIC_LABEL)
    if item.kind == "relationship":
        a, b = (s.get(Entity, int(x)) for x in item.subject.split(":"))
        ids = s.exec(select(FactEntity.fact_id).where(FactEntity.entity_id == b.id)).all()
        facts = s.exec(select(Fact).where(Fact.id.in_(ids), Fact.superseded_by.is_(None),
                                          Fact.tombstoned_at.is_(None))).all() if ids else []
        return (f"{a.canonical_name} and {b.canonical_name}: " + " ".join(_fact_lines(list(facts)))
                + " " + DETERMINISTIC_LABEL)
    if item.kind == "chapter":
        dom, cat, key, subj = item.subject.split(":", 3)
        chain = s.exec(select(Fact).where(Fact.domain == dom, Fact.category == cat, Fact.key == key,
                                          Fact.subject_entity_id == int(subj), Fact.tombstoned_at.is_(None))
                       .order_by(Fact.valid_from, Fact.id)).all()
        if not chain:
            return None
        who = s.get(Entity, int(subj))
        steps = " → ".join(f"{f.value} ({f.valid_from.date() if f.valid_from else '?'}"
                           f"{'–' + str(f.valid_to.date()) if f.valid_to else '–'})" for f in chain)
        return f"{who.canonical_name if who else '?'}, {cat} ({key}): {steps}. {DETERMINISTIC_LABEL}"
    raise ValueError(f"unknown summary kind {item.kind!r}")


def save(s: Session, item: Due, text: str, generator: str) -> Summary:
    """Store a (re)generated summary as fresh."""
    row = s.exec(select(Summary).where(Summary.kind == item.kind, Summary.subject == item.subject)).first()
    row = row or Summary(kind=item.kind, subject=item.subject)
    row.text, row.stale, row.generator, row.generated_at = text, False, generator, clock.now()
    s.add(row)
    return row


def remove(s: Session, item: Due) -> None:
    """Delete a summary (its subject no longer exists)."""
    row = s.exec(select(Summary).where(Summary.kind == item.kind, Summary.subject == item.subject)).first()
    if row is not None:
        s.delete(row)


def refresh_map(s: Session, limit: int = 200) -> list[dict]:
    """Recompute the knowledge map and store it (``kind="map"``); returns it."""
    rows = s.exec(select(Entity.id, Entity.canonical_name, Entity.kind, func.count(func.distinct(Fact.id)))
                  .join(FactEntity, FactEntity.entity_id == Entity.id).join(Fact, Fact.id == FactEntity.fact_id)
                  .where(Fact.superseded_by.is_(None), Entity.tombstoned_at.is_(None)).group_by(Entity.id)
                  .order_by(func.count(func.distinct(Fact.id)).desc(), Entity.canonical_name).limit(limit)).all()
    data = [{"id": i, "name": n, "kind": k, "facts": int(c)} for i, n, k, c in rows]
    save(s, Due("map", "all"), json.dumps(data), "deterministic")
    return data


# ---- forget (issue 11): summaries that name a forgotten entity or rest on removed facts --------------

STORE = "summaries"
COVERS = {"summary": "*"}  # removed, or regenerated from the remaining facts


def _about(red, kind: str, subject: str, text: str | None):
    """The redactor for summary (``kind``, ``subject``): a summary of another live person (or of a relationship
    with one) keeps the first name they share with the forgotten one (``Redactor.within``)."""
    if red is None or not getattr(red, "shared", None):
        return red
    ids = [int(p) for p in (subject or "").split(":") if p.isdigit()] if kind in ("entity", "relationship") else []
    return red.within(ids, text)


def forget_selection(conn, sc, red) -> tuple[list[int], list[int]]:
    """(summary ids to remove, summary ids to regenerate) for a forget's scope.

    Run it before the graph's apply (it reads the fact links that apply removes).
    Removed: the summaries of forgotten entities, relationships with one, and life chapters with no
    superseded fact left.  Regenerated (from the remaining facts): every other summary that names a
    forgotten entity or rests on a removed fact (its subject's, its domain's or its chapter's), and
    the knowledge map.  ``conn`` is a ``sqlite3`` connection; ``red`` a ``core.graph.redact.Redactor`` or None.
    """
    from core.store.forgetting import chunks, marks

    ents = {str(e) for e in sc.all_entities}
    facts = set(sc.facts)
    linked: set[str] = set()
    domains: set[str] = set()
    chapters: set[str] = set()
    for p in chunks(sorted(facts)):
        for fid, dom, cat, key, subj in conn.execute(
                f"SELECT id, domain, category, key, subject_entity_id FROM fact WHERE id IN ({marks(len(p))})", p):
            linked.add(str(subj))
            domains.add(dom)
            chapters.add(f"{dom}:{cat}:{key}:{subj}")
        for (eid,) in conn.execute(f"SELECT entity_id FROM factentity WHERE fact_id IN ({marks(len(p))})", p):
            linked.add(str(eid))
    remove, regen = [], []
    for sid, kind, subject, text in conn.execute("SELECT id, kind, subject, text FROM summary").fetchall():
        if kind == "map":
            if ents or facts:
                regen.append(sid)
            continue
        parts = subject.split(":")
        if kind == "entity" and subject in ents:
            remove.append(sid)
            continue
        if kind == "relationship" and set(parts) & ents:
            remove.append(sid)
            continue
        if kind == "chapter":
            dom, cat, key, subj = subject.split(":", 3)
            if subj in ents:
                remove.append(sid)
                continue
            if subject in chapters:
                left = [f for f, sup in conn.execute(
                    "SELECT id, superseded_by FROM fact WHERE domain = ? AND category = ? AND key = ? AND "
                    "subject_entity_id = ? AND tombstoned_at IS NULL", (dom, cat, key, int(subj))) if f not in facts]
                superseded = [f for f, sup in conn.execute(
                    "SELECT id, superseded_by FROM fact WHERE domain = ? AND category = ? AND key = ? AND "
                    "subject_entity_id = ? AND tombstoned_at IS NULL AND superseded_by IS NOT NULL "
                    "AND superseded_by != id", (dom, cat, key, int(subj)))
                    if f not in facts and sup not in facts]
                if not left or not superseded:
                    remove.append(sid)
                    continue
                regen.append(sid)
                continue
        if (kind == "entity" and subject in linked) or (kind == "domain" and subject in domains) \
                or (kind == "relationship" and parts[-1] in linked) \
                or (red is not None and _about(red, kind, subject, text).mentions(text, loose=True)):
            regen.append(sid)
    return remove, regen


def forget_apply(s: Session, op_id: int, sc, red, remove: list[int], regen: list[int]) -> dict[str, int]:
    """Remove and regenerate the summaries :func:`forget_selection` chose, stashing the originals.

    A regenerated summary gets the deterministic text from the remaining facts (a model-written one is
    also marked stale, so the summary job rewrites it with the model).  Returns counts."""
    from core.store.forgetting import stash_rows_by_ids, stash_values

    conn = dialect.session_raw(s)
    n = {"removed": stash_rows_by_ids(conn, op_id, STORE, "summary", "id", remove), "regenerated": 0}
    for sid in regen:
        row = s.get(Summary, sid)
        if row is None:
            continue
        stash_values(conn, op_id, STORE, "summary", {"id": sid}, ["text", "stale", "generator", "generated_at"])
        if row.kind == "map":
            s.flush()
            refresh_map(s)
            s.flush()
            n["regenerated"] += 1
            continue
        text = deterministic_text(s, Due(row.kind, row.subject))
        if text is None:
            text = f"(Nothing is left to summarise.) {DETERMINISTIC_LABEL}"
        if red is not None:
            text = _about(red, row.kind, row.subject, text).redact(text, loose=True)
        row.stale = row.generator != "deterministic"
        row.text, row.generator, row.generated_at = text, "deterministic", clock.now()
        s.add(row)
        s.flush()
        n["regenerated"] += 1
    return n

"""The merge-review queue and "why is this one person": every merge and non-merge decision with its reason.

Suggestions (near-matches, bare first names across identifiers) wait for the person; merges Kith made
by name can be confirmed or undone; decisions to keep two apart (same surname, two parties of one chat)
are shown too.  Merge, reject, confirm and unmerge are audited.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field

from sqlmodel import select

from app.container import Container
from core import clock
from core.errors import NotFound
from core.graph.merge import confirm, live_survivor, merge, unmerge
from core.store.schema import Alias, AuditEvent, Entity, Fact, MergeCandidate, RecordEntity


@dataclass
class ReviewItem:
    """One merge candidate: the two entities (id, name), the score and the reason, and its status."""

    id: int
    a_id: int
    a_name: str
    b_id: int
    b_name: str
    score: float
    reason: str
    status: str
    signal: str = ""
    threshold: str = ""
    decided_by: str = "person"
    confirmed: bool = False

    def to_json(self) -> dict:
        return asdict(self)


def _item(s, mc: MergeCandidate) -> ReviewItem | None:
    a, b = s.get(Entity, mc.a_id), s.get(Entity, mc.b_id)
    if a is None or b is None:
        return None
    return ReviewItem(mc.id, a.id, a.canonical_name, b.id, b.canonical_name, mc.score, mc.reason, mc.status,
                      mc.signal or "", mc.threshold or "", mc.decided_by or "person",
                      mc.confirmed_at is not None or (mc.status == "merged" and (mc.decided_by or "person") == "person"))


def list_reviews(c: Container, status: str | None = "pending") -> list[ReviewItem]:
    """Merge candidates with ``status`` (all when None), highest score first."""
    with c.db.session() as s:
        q = select(MergeCandidate)
        if status:
            q = q.where(MergeCandidate.status == status)
        items = []
        for mc in s.exec(q.order_by(MergeCandidate.score.desc(), MergeCandidate.id)).all():
            item = _item(s, mc)
            if item is not None:
                items.append(item)
    return items


def _candidate(s, review_id: int) -> MergeCandidate:
    mc = s.get(MergeCandidate, review_id)
    if mc is None:
        raise NotFound(f"no merge candidate {review_id} (see `kith review`)")
    return mc


def decide(c: Container, review_id: int, accept: bool) -> ReviewItem:
    """Merge the candidate's second entity into the first (``accept``), or reject the pair.

    Raises:
        NotFound: no such candidate.
        ValueError: it is not pending.
    """
    def work():
        with c.db.session() as s:
            mc = _candidate(s, review_id)
            if mc.status not in ("pending", "separate"):  # "separate": Kith kept them apart; the person may merge
                raise ValueError(f"merge candidate {review_id} is already {mc.status}")
            if accept:
                mc.detail = merge(s, mc.a_id, mc.b_id)
                mc.status = "merged"
                mc.decided_by = "person"
                mc.confirmed_at = clock.now()
            else:
                mc.status = "rejected"
            mc.decided_at = clock.now()
            s.add(mc)
            s.add(AuditEvent(action="merge" if accept else "reject-merge", target=f"review:{mc.id}",
                             detail={"a": mc.a_id, "b": mc.b_id, "score": mc.score}))
        c.names.invalidate()
    c.writer.run(work)
    return next(i for i in list_reviews(c, None) if i.id == review_id)


def merge_entities(c: Container, survivor_id: int, loser_id: int) -> ReviewItem:
    """Merge two entities the person chose by hand (recorded as a decided review item, so it can be undone)."""
    def work():
        with c.db.session() as s:
            # a suggestion waiting for this pair is answered by it (it stayed in the queue, naming a merged entity)
            mc = s.exec(select(MergeCandidate).where(MergeCandidate.status == "pending", (
                (MergeCandidate.a_id == survivor_id) & (MergeCandidate.b_id == loser_id)) | (
                (MergeCandidate.a_id == loser_id) & (MergeCandidate.b_id == survivor_id)))).first() or \
                MergeCandidate(a_id=survivor_id, b_id=loser_id, score=1.0, reason="merged by hand")
            mc.a_id, mc.b_id, mc.status, mc.decided_at, mc.decided_by = survivor_id, loser_id, "merged", clock.now(), \
                "person"
            mc.signal, mc.threshold, mc.confirmed_at = "person", "the person's decision", clock.now()
            if mc.reason != "merged by hand":
                mc.reason = f"merged by hand (first suggested: {mc.reason})"
            mc.detail = merge(s, survivor_id, loser_id)
            s.add(mc)
            s.flush()
            s.add(AuditEvent(action="merge", target=f"review:{mc.id}", detail={"a": survivor_id, "b": loser_id}))
            rid = mc.id
        c.names.invalidate()
        return rid
    rid = c.writer.run(work)
    return next(i for i in list_reviews(c, None) if i.id == rid)


def undo_merge(c: Container, review_id: int) -> ReviewItem:
    """Unmerge a merged candidate: both entities get back their own aliases, facts and links.

    Raises:
        NotFound: no such candidate.  ValueError: it was not merged.
    """
    def work():
        with c.db.session() as s:
            mc = _candidate(s, review_id)
            if mc.status != "merged":
                raise ValueError(f"merge candidate {review_id} is {mc.status}, not merged")
            unmerge(s, mc.detail)
            mc.status = "unmerged"
            mc.decided_at = clock.now()
            s.add(mc)
            s.add(AuditEvent(action="unmerge", target=f"review:{mc.id}", detail={"a": mc.a_id, "b": mc.b_id}))
        c.names.invalidate()
    c.writer.run(work)
    return next(i for i in list_reviews(c, None) if i.id == review_id)


def confirm_merge(c: Container, review_id: int) -> ReviewItem:
    """The person confirms a merge Kith made: it stays, and facts held on its second identity join the
    entity now (the older of two values for one key is superseded by the newer).

    Raises:
        NotFound: no such candidate.  ValueError: it is not merged.
    """
    def work():
        with c.db.session() as s:
            mc = _candidate(s, review_id)
            confirm(s, mc)
            s.add(AuditEvent(action="confirm-merge", target=f"review:{mc.id}", detail={"a": mc.a_id, "b": mc.b_id}))
        c.names.invalidate()
    c.writer.run(work)
    return next(i for i in list_reviews(c, None) if i.id == review_id)


@dataclass
class AliasWhy:
    """One alias and how it came to this entity: ``how`` is "its own" or "merged: <reason>" (decision id), with
    "; on contact card <contact id>" when an address-book card lists it."""

    kind: str
    value: str
    how: str
    decision_id: int | None = None


@dataclass
class LinkWhy:
    """Records linked to the entity by one rule: ``count`` records via ``via`` (an alias, or "—")."""

    signal: str
    threshold: str
    via: str
    count: int


@dataclass
class Decision:
    """A merge or non-merge decision involving the entity (see :class:`ReviewItem`), from its side."""

    id: int
    other_id: int
    other_name: str
    status: str
    signal: str
    score: float
    threshold: str
    reason: str
    decided_by: str
    confirmed: bool
    held_facts: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)  # of: confirm, unmerge, merge, reject


@dataclass
class IdentityWhy:
    """Why Kith thinks an entity is one person (or one thing): the "why is this one person" panel."""

    entity_id: int
    name: str
    kind: str
    kind_reason: str
    aliases: list[AliasWhy]
    links: list[LinkWhy]
    decisions: list[Decision]

    def to_json(self) -> dict:
        return asdict(self)


def why_one(c: Container, entity_id: int) -> IdentityWhy:
    """Every decision behind entity ``entity_id``: its aliases and how each came, the records linked to it
    by each rule (signal, threshold, via which alias), the merges Kith or the person made into it (with
    facts still held until a merge is confirmed), suggestions waiting, and the decisions to keep others
    apart — each with the actions the person can take.  Read-only.

    Raises:
        NotFound: no live entity ``entity_id``.
    """
    from core.graph.resolution import THRESHOLDS

    with c.db.session() as s:
        e = s.get(Entity, entity_id)
        if e is None or e.tombstoned_at is not None:
            raise NotFound(f"entity {entity_id} does not exist (or was merged or forgotten)")
        mcs = list(s.exec(select(MergeCandidate).where(
            (MergeCandidate.a_id == e.id) | (MergeCandidate.b_id == e.id)).order_by(MergeCandidate.id)).all())
        # merges into this entity, followed through merged losers (a loser's own merges came with it)
        losers: dict[int, MergeCandidate] = {}
        frontier = [e.id]
        while frontier:
            nxt = []
            for mc in s.exec(select(MergeCandidate).where(MergeCandidate.a_id.in_(frontier),
                                                          MergeCandidate.status == "merged")).all():
                if mc.b_id not in losers and mc.b_id != e.id:
                    losers[mc.b_id] = mc
                    nxt.append(mc.b_id)
                    if all(x.id != mc.id for x in mcs):
                        mcs.append(mc)
            frontier = nxt
        aliases = []
        for a in s.exec(select(Alias).where(Alias.entity_id == e.id).order_by(Alias.kind, Alias.id)).all():
            mc = losers.get(a.origin_id) if a.origin_id not in (None, e.id) else None
            how = f"merged: {mc.reason}" if mc else "its own"
            if a.card:
                how += f"; on contact card {a.card}"
            aliases.append(AliasWhy(a.kind, a.value, how, mc.id if mc else None))
        counts: Counter = Counter()
        alias_value = {a.id: a.value for a in s.exec(select(Alias).where(Alias.entity_id == e.id)).all()}
        for link in s.exec(select(RecordEntity).where(RecordEntity.entity_id == e.id)).all():
            counts[(link.signal or "—", alias_value.get(link.alias_id, "—"))] += 1
        links = [LinkWhy(sig, THRESHOLDS.get(sig, "definitive" if sig == "owner" else ""), via, n)
                 for (sig, via), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
        decisions = []
        seen: set[int] = set()
        for mc in mcs:
            if mc.id in seen:
                continue
            seen.add(mc.id)
            other_id = mc.b_id if mc.a_id == e.id or mc.b_id in losers else mc.a_id
            other = s.get(Entity, other_id)
            held = [f.statement for f in s.exec(select(Fact).where(Fact.subject_entity_id == mc.b_id,
                                                                   Fact.superseded_by.is_(None),
                                                                   Fact.tombstoned_at.is_(None))).all()] \
                if mc.status == "merged" and (mc.detail or {}).get("hold") else []
            confirmed = mc.confirmed_at is not None or (mc.status == "merged" and mc.decided_by == "person")
            actions = {"pending": ["merge", "reject"], "separate": ["merge"], "rejected": ["merge"],
                       "merged": ([] if confirmed else ["confirm"]) + ["unmerge"]}.get(mc.status, [])
            if mc.status in ("separate", "rejected") and (other is None or other.tombstoned_at is not None):
                actions = []
            decisions.append(Decision(mc.id, other_id, other.canonical_name if other else f"entity {other_id}",
                                      mc.status, mc.signal or "", round(mc.score, 4), mc.threshold or "",
                                      mc.reason, mc.decided_by or "person", confirmed, held, actions))
        return IdentityWhy(e.id, e.canonical_name, e.kind, (e.attrs or {}).get("kind_reason", ""), aliases, links,
                           decisions)


def act(c: Container, review_id: int, action: str) -> ReviewItem:
    """Run one of a decision's actions: ``merge`` | ``reject`` | ``confirm`` | ``unmerge``.

    A ``merge`` of a pair Kith kept apart (or the person rejected) merges the two by hand.

    Raises:
        NotFound: no such decision.  ValueError: the action does not apply to it.
    """
    if action == "confirm":
        return confirm_merge(c, review_id)
    if action == "unmerge":
        return undo_merge(c, review_id)
    with c.db.session() as s:
        mc = _candidate(s, review_id)
        status, a_id, b_id = mc.status, mc.a_id, mc.b_id
    if action in ("merge", "reject") and status == "pending" or (action == "merge" and status == "separate"):
        return decide(c, review_id, accept=(action == "merge"))
    if action == "merge" and status == "rejected":
        with c.db.session() as s:
            a, b = live_survivor(s, a_id), live_survivor(s, b_id)
            if a is None or b is None or a.id == b.id:
                raise ValueError(f"decision {review_id}: one of the two no longer exists or they are one already")
            a_id, b_id = a.id, b.id
        return merge_entities(c, a_id, b_id)
    raise ValueError(f"decision {review_id} is {status}: cannot {action} it")

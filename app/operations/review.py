"""The merge-review queue: near-matches (0.55–0.85) the person decides on; merge and unmerge, both audited."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from sqlmodel import select

from app.container import Container
from core import clock
from core.errors import NotFound
from core.graph.merge import merge, unmerge
from core.store.schema import AuditEvent, Entity, MergeCandidate


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

    def to_json(self) -> dict:
        return asdict(self)


def list_reviews(c: Container, status: str | None = "pending") -> list[ReviewItem]:
    """Merge candidates with ``status`` (all when None), highest score first."""
    with c.db.session() as s:
        q = select(MergeCandidate)
        if status:
            q = q.where(MergeCandidate.status == status)
        items = []
        for mc in s.exec(q.order_by(MergeCandidate.score.desc(), MergeCandidate.id)).all():
            a, b = s.get(Entity, mc.a_id), s.get(Entity, mc.b_id)
            if a is None or b is None:
                continue
            items.append(ReviewItem(mc.id, a.id, a.canonical_name, b.id, b.canonical_name, mc.score, mc.reason,
                                    mc.status))
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
            if mc.status != "pending":
                raise ValueError(f"merge candidate {review_id} is already {mc.status}")
            if accept:
                mc.detail = merge(s, mc.a_id, mc.b_id)
                mc.status = "merged"
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
            mc = MergeCandidate(a_id=survivor_id, b_id=loser_id, score=1.0, reason="merged by hand", status="merged",
                                decided_at=clock.now())
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

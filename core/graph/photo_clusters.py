"""Photo clusters by time and place → trips and events (seed 002: "clusters photos by date and GPS proximity (~50km)").

Photos are sorted by time; a photo joins the current cluster when it was taken
within ``max_gap`` of the cluster's last photo and within ``max_km`` of the
cluster's first photo (great-circle distance, haversine, R = 6371.0088 km —
the IUGG mean Earth radius).  Otherwise it starts a new cluster.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta

EARTH_RADIUS_KM = 6371.0088
MAX_KM = 50.0                      # seed 002
MAX_GAP = timedelta(hours=36)      # a night between two days of the same trip still joins them


def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance in km between two WGS84 points given in decimal degrees."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(a)))


@dataclass(frozen=True)
class PhotoPoint:
    """One geotagged photo: record id, UTC time, latitude/longitude (degrees), place entity id."""

    record_id: int
    at: datetime
    lat: float
    lon: float
    place_id: int | None = None


@dataclass
class PhotoCluster:
    """Consecutive photos within ``MAX_KM`` and ``MAX_GAP`` of each other: a trip or an event."""

    points: list[PhotoPoint] = field(default_factory=list)

    @property
    def start(self) -> datetime:
        return self.points[0].at

    @property
    def end(self) -> datetime:
        return self.points[-1].at

    @property
    def days(self) -> int:
        """Calendar days covered (1 for a single-day outing)."""
        return (self.end.date() - self.start.date()).days + 1

    @property
    def place_id(self) -> int | None:
        """The place most of its photos were taken at."""
        ids = [p.place_id for p in self.points if p.place_id is not None]
        return max(set(ids), key=ids.count) if ids else None


def cluster_photos(points: list[PhotoPoint], max_km: float = MAX_KM, max_gap: timedelta = MAX_GAP) -> list[PhotoCluster]:
    """Group ``points`` into clusters (see module doc); returns clusters in time order, singletons included."""
    clusters: list[PhotoCluster] = []
    for p in sorted(points, key=lambda q: (q.at, q.record_id)):
        cur = clusters[-1] if clusters else None
        if (cur is not None and p.at - cur.end <= max_gap
                and haversine_km(cur.points[0].lat, cur.points[0].lon, p.lat, p.lon) <= max_km):
            cur.points.append(p)
        else:
            clusters.append(PhotoCluster([p]))
    return clusters

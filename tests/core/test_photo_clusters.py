from datetime import datetime, timedelta, timezone

import pytest

from core.graph.photo_clusters import PhotoPoint, cluster_photos, haversine_km

T0 = datetime(2008, 10, 22, 14, 28, 39, tzinfo=timezone.utc)


def test_haversine_one_degree_of_latitude_is_111_km():
    assert haversine_km(0, 0, 1, 0) == pytest.approx(111.195, abs=0.01)  # 2πR/360 with R = 6371.0088


def test_the_two_dscn_photos_form_one_cluster_and_kenya_another():
    pts = [PhotoPoint(1, T0, 43.46745, 11.88513, 7), PhotoPoint(2, T0 + timedelta(minutes=27), 43.46601, 11.87911, 7),
           PhotoPoint(3, datetime(2005, 8, 13, 6, 47, tzinfo=timezone.utc), -0.37130, 36.05642, 9)]
    clusters = cluster_photos(pts)
    assert [[p.record_id for p in c.points] for c in clusters] == [[3], [1, 2]]
    assert clusters[1].days == 1 and clusters[1].place_id == 7


def test_far_or_late_photos_start_new_clusters():
    a = PhotoPoint(1, T0, 43.0, 11.0)
    near_late = PhotoPoint(2, T0 + timedelta(hours=37), 43.0, 11.0)
    far_soon = PhotoPoint(3, T0 + timedelta(hours=38), 44.0, 11.0)  # ~111 km north
    assert len(cluster_photos([a, near_late, far_soon])) == 3
    trip = [PhotoPoint(i, T0 + timedelta(hours=20 * i), 43.0 + 0.1 * i, 11.0) for i in range(4)]  # 22nd–25th, ≤ 33 km
    clusters = cluster_photos(trip)
    assert len(clusters) == 1 and clusters[0].days == 4

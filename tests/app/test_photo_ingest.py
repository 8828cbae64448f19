"""A folder of photos imported end to end: the settings' own time zone reaches camera times that carry none, the
same picture under two names is stored once, and a bad file is quarantined while the rest of the folder goes in."""
from __future__ import annotations

import json
from datetime import datetime, timezone

from sqlmodel import select

from app.operations.ingest import ingest
from core.clock import ensure_utc
from core.store.schema import QuarantineItem, Record as RecordRow
from tests.ingestors.test_photo_variants import make


def test_a_folder_of_photos_with_a_copy_a_fake_and_no_zone(kith_home, tmp_path):
    from app.container import Container

    kith_home.mkdir(parents=True, exist_ok=True)
    (kith_home / "settings.json").write_text(json.dumps({"local_timezone": "America/Los_Angeles"}))
    folder = tmp_path / "Camera Roll"
    folder.mkdir()
    first = make(folder / "IMG_0001.jpg", "2023:06:01 12:00:00")  # no offset, no GPS: the settings' zone (PDT)
    (folder / "IMG_0001 copy.jpg").write_bytes(first.read_bytes())
    make(folder / "Screenshot 2023-01-10 at 09.30.00.png", fmt="PNG")  # PST, from the name
    (folder / "IMG_0002.jpg").write_text("<html>404 Not Found</html>")
    c = Container()
    try:
        report = ingest(c, [folder], defer=True)
        assert (report.files, report.records_added, report.records_skipped) == (4, 2, 1)
        assert [(e.path, e.reason) for e in report.errors] == [
            (str(folder / "IMG_0002.jpg"), "not a JPEG, TIFF, HEIC, PNG or WebP image")]
        with c.db.session() as s:
            rows = {r.external_id: r for r in s.exec(select(RecordRow)).all()}
            quarantined = [(q.path, q.reason) for q in s.exec(select(QuarantineItem)).all()]
        assert quarantined == [(str(folder / "IMG_0002.jpg"), "not a JPEG, TIFF, HEIC, PNG or WebP image")]
        assert sorted(rows) == ["IMG_0001 copy.jpg", "Screenshot 2023-01-10 at 09.30.00.png"]  # one of the two copies
        photo = rows["IMG_0001 copy.jpg"]
        assert ensure_utc(photo.sent_at) == datetime(2023, 6, 1, 19, 0, tzinfo=timezone.utc)
        assert photo.attrs["time_basis"] == "zone-unknown" and photo.attrs["time_zone"] == "America/Los_Angeles"
        shot = rows["Screenshot 2023-01-10 at 09.30.00.png"]
        assert ensure_utc(shot.sent_at) == datetime(2023, 1, 10, 17, 30, tzinfo=timezone.utc)
        assert shot.attrs["time_basis"] == "file-name" and shot.attrs["time_zone"] == "America/Los_Angeles"
    finally:
        c.close()


def test_photo_events_are_named_by_the_local_date_where_they_were_taken(container, tmp_path):
    from core.store.schema import Entity

    folder = tmp_path / "Samoa"
    folder.mkdir()
    # Apia, UTC+13: 1 June 09:00 and 11:30 local are 31 May 20:00 and 22:30 UTC
    make(folder / "IMG_0101.jpg", "2023:06:01 09:00:00", gps=(-13.8333, -171.7667), gps_time=(20, 0, 0))
    make(folder / "IMG_0102.jpg", "2023:06:01 11:30:00", gps=(-13.8333, -171.7667), gps_time=(22, 30, 0))
    report = ingest(container, [folder])
    assert (report.records_added, report.errors) == (2, [])
    with container.db.session() as s:
        events = [e.canonical_name for e in s.exec(select(Entity).where(Entity.kind == "event")).all()]
        times = sorted(ensure_utc(r.sent_at) for r in s.exec(select(RecordRow)).all())
    assert times == [datetime(2023, 5, 31, 20, 0, tzinfo=timezone.utc), datetime(2023, 5, 31, 22, 30, tzinfo=timezone.utc)]
    assert events == ["Photos at Apia, 2023-06-01"]


def test_a_photo_an_earlier_version_imported_under_another_hash_is_not_added_again(kith_home, tmp_path):
    """An earlier Kith hashed a photo by its name, time and caption; now by its bytes. Re-importing the same
    folder after the upgrade adds nothing: the file's bytes are already held by a live photo."""
    from app.container import Container

    folder = tmp_path / "Trip"
    folder.mkdir()
    make(folder / "IMG_0100.jpg", "2023:06:01 12:00:00")
    make(folder / "IMG_0101.jpg", "2023:06:02 12:00:00")
    c = Container()
    try:
        assert ingest(c, [folder], defer=True).records_added == 2
        with c.db.session() as s:  # what the earlier version stored: another identity for the same pictures
            s.connection().exec_driver_sql("UPDATE record SET content_hash = 'legacy-' || id")
        again = ingest(c, [folder], defer=True)
        assert (again.records_added, again.records_skipped) == (0, 2)
        make(folder / "IMG_0102.jpg", "2023:06:03 12:00:00")  # a new picture still goes in
        assert ingest(c, [folder], defer=True).records_added == 1
    finally:
        c.close()


def test_photo_exif_faults_through_the_import(container, tmp_path):
    """The second pass's photo kinds through ``ingest``: what is stored (UTC time, offset in minutes, place, the
    visit fact's local date), and a cut-short JPEG quarantined while the rest of the folder goes in."""
    from core.store.schema import Fact
    from tests.ingestors.exif_bytes import ASCII, SRATIONAL, exif_block, jpeg
    from tests.ingestors.test_photo_exif_faults import gps, whole_jpeg

    folder = tmp_path / "Card"
    folder.mkdir()
    # New York, OffsetTimeOriginal +04:00 against GPS 18:00: 18:00Z at -04:00 (it was stored 10:00Z at +04:00)
    jpeg(folder / "DSC_0001.jpg", exif_block({0x010F: (ASCII, "Test")}, {0x9003: (ASCII, "2023:07:01 14:00:00"),
                                                                         0x9011: (ASCII, "+04:00")},
                                             gps(40.7128, -74.0060, (18, 0, 0))))
    # Sydney written as -33°52' with reference S: stays Sydney; 23:30 local on 1 Jan (AEDT +11:00) = 12:30Z: the
    # visit is on the local date, 2023-01-01
    jpeg(folder / "DSC_0002.jpg", exif_block({0x010F: (ASCII, "Test")}, {0x9003: (ASCII, "2023:01:01 23:30:00")}, {
        1: (ASCII, "S"), 2: (SRATIONAL, [(-33, 1), (52, 1), (1070, 100)]),
        3: (ASCII, "E"), 4: (SRATIONAL, [(151, 1), (12, 1), (3350, 100)]), 7: (5, [(12, 1), (30, 1), (0, 1)])}))
    data = whole_jpeg(folder / "DSC_0003.jpg").read_bytes()
    (folder / "DSC_0003.jpg").write_bytes(data[: len(data) // 2])  # the copy stopped half-way
    report = ingest(container, [folder])
    assert report.records_added == 2
    assert [(e.path, e.reason.split(" (")[0]) for e in report.errors] == [(str(folder / "DSC_0003.jpg"), "truncated JPEG")]
    with container.db.session() as s:
        rows = {r.external_id: r for r in s.exec(select(RecordRow)).all()}
        quarantined = [q.path for q in s.exec(select(QuarantineItem)).all()]
        facts = sorted((f.key, f.statement) for f in s.exec(select(Fact)).all() if f.key.startswith("photographed:"))
    assert quarantined == [str(folder / "DSC_0003.jpg")]
    ny, syd = rows["DSC_0001.jpg"], rows["DSC_0002.jpg"]
    assert (ensure_utc(ny.sent_at), ny.utc_offset) == (datetime(2023, 7, 1, 18, 0, tzinfo=timezone.utc), -240)
    assert ny.attrs["time_basis"] == "gps-time" and any("disagrees with the GPS time" in n for n in ny.attrs["notes"])
    assert (ensure_utc(syd.sent_at), syd.utc_offset) == (datetime(2023, 1, 1, 12, 30, tzinfo=timezone.utc), 660)
    assert syd.attrs["lat"] < 0 and "Sydney" in syd.text
    assert [k for k, _ in facts] == ["photographed:2023-01-01", "photographed:2023-07-01"]
    assert facts[0][1].startswith("As of 2023-01-01") and "Sydney" in facts[0][1]  # the local date, not 12:30Z's

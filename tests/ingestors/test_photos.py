"""Photo ingestor against the real corpus photos (right values from ../shared/corpus/README.md)."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest
from exifread.utils import Ratio

from core.errors import InputError
from ingestors.base import Record
from ingestors.photos import PhotoIngestor, clock_problem, gps_position, offset_from_gps, parse_offset, zone_at

UTC = timezone.utc


def one(name, corpus, **kwargs) -> Record:
    items = list(PhotoIngestor(**kwargs).read(corpus / "photos" / name))
    assert len(items) == 1 and isinstance(items[0], Record)
    assert items[0].kind == "photo" and items[0].external_id == name
    return items[0]


@pytest.mark.corpus
@pytest.mark.parametrize("name, lat, lon", [
    ("gps_DSCN0010.jpg", 43.46745, 11.88513),
    ("gps_DSCN0040.jpg", 43.46601, 11.87911),
    ("Kodak_CX7530_gps_deg0_S.jpg", -0.37130, 36.05642),
    ("IMG_5195_iphone11_gps.HEIC", 39.05134, -94.28877),
])
def test_gps_position_matches_readme(corpus, name, lat, lon):
    r = one(name, corpus)
    assert r.place is not None
    assert r.place.lat == pytest.approx(lat, abs=5e-5)
    assert r.place.lon == pytest.approx(lon, abs=5e-5)
    assert (r.attrs["lat"], r.attrs["lon"]) == (r.place.lat, r.place.lon)


@pytest.mark.corpus
def test_nikon_pair_is_one_place_in_tuscany(corpus):
    a, b = one("gps_DSCN0010.jpg", corpus), one("gps_DSCN0040.jpg", corpus)
    assert a.place.locality == b.place.locality == "Arezzo"
    assert a.place.region == b.place.region == "Tuscany"
    assert a.place.country == b.place.country == "Italy" and a.place.country_code == "IT"
    # no offset tag: GPS time of day 14:27:07 against the camera's 16:28:39 gives +02:00 (rounded to 15 min),
    # which is Italy's summer time on that date: the regression's right value 2008-10-22T14:28:39Z (the GPS
    # *date*, 2008-10-23, is a day off and not used)
    assert a.sent_at == datetime(2008, 10, 22, 14, 28, 39, tzinfo=UTC)
    assert b.sent_at == datetime(2008, 10, 22, 14, 55, 37, tzinfo=UTC)
    assert a.attrs["time_basis"] == "gps-time" and a.attrs["time_zone"] == "Europe/Rome"
    assert a.attrs["gps_date"] == "2008:10:23" and not a.notes
    assert a.text == "Photo taken 2008-10-22 16:28 at Arezzo, Tuscany, Italy with NIKON COOLPIX P6000"
    assert a.attrs["camera_make"] == "NIKON" and a.attrs["camera_model"] == "COOLPIX P6000"
    assert a.attrs["datetime_original"] == "2008:10:22 16:28:39"


@pytest.mark.corpus
def test_kodak_zero_degrees_south_is_kenya(corpus):
    r = one("Kodak_CX7530_gps_deg0_S.jpg", corpus)
    assert r.place.lat < 0
    assert r.place.country == "Kenya"
    assert r.sent_at == datetime(2005, 8, 13, 6, 47, 23, tzinfo=UTC)  # Africa/Nairobi, +03:00


@pytest.mark.corpus
def test_heic_with_offset(corpus):
    r = one("IMG_5195_iphone11_gps.HEIC", corpus)
    assert r.place.region == "Missouri"
    assert r.place.country == "United States" and r.place.country_code == "US"
    assert r.sent_at == datetime(2021, 4, 11, 20, 47, 53, tzinfo=UTC)  # 15:47:53 at -05:00
    assert r.attrs["time_basis"] == "offset" and r.attrs["offset_time_original"] == "-05:00"
    assert r.attrs["camera_model"] == "iPhone 11 Pro Max"


@pytest.mark.corpus
def test_canon_without_gps_uses_the_local_timezone(corpus):
    r = one("Canon_40D_nogps.jpg", corpus)
    assert r.place is None
    assert r.attrs["local_time"] == "2008-05-30T15:56:01"  # DateTimeOriginal, not the later IFD0 DateTime
    assert r.sent_at == datetime(2008, 5, 30, 15, 56, 1, tzinfo=UTC)  # default local zone: UTC
    assert r.attrs["time_basis"] == "zone-unknown"
    assert any("time zone unknown" in n for n in r.notes)
    berlin = one("Canon_40D_nogps.jpg", corpus, local_timezone="Europe/Berlin")
    assert berlin.sent_at == datetime(2008, 5, 30, 13, 56, 1, tzinfo=UTC)  # CEST


@pytest.mark.corpus
def test_empty_gps_ifd_gives_no_place(corpus):
    r = one("exifpy45_empty_gps_ifd.jpg", corpus)
    assert r.place is None
    assert r.sent_at == datetime(2012, 6, 23, 6, 55, 49, tzinfo=UTC)
    assert r.attrs["camera_model"] == "Gran Turismo 5"


@pytest.mark.corpus
def test_unset_camera_clock(corpus):
    r = one("sanyo_vpcg250_clock_default.jpg", corpus)
    assert r.sent_at is None  # kept, flagged, not placed in time
    assert any("camera clock looks unset" in n for n in r.notes)
    assert r.attrs["clock_suspect"] == "camera clock looks unset (1998-01-01 00:00:00)"
    assert r.attrs["datetime_original"] == "1998:01:01 00:00:00"
    assert "time_basis" not in r.attrs and "taken" not in r.text


@pytest.mark.corpus
def test_no_exif_is_still_a_record(corpus):
    r = one("invalid_image01088.jpg", corpus)
    assert r.sent_at is None and r.place is None
    assert "no EXIF metadata" in r.notes


@pytest.mark.corpus
def test_orientation_without_dates(corpus):
    r = one("orientation_landscape_6.jpg", corpus)
    assert r.attrs["orientation_code"] == 6
    assert r.sent_at is None


def test_text_file_named_jpg_is_input_error(tmp_path):
    fake = tmp_path / "x.jpg"
    fake.write_text("this is not a picture\n")
    with pytest.raises(InputError, match="x.jpg") as err:
        list(PhotoIngestor().read(fake))
    assert err.value.path == str(fake)


def test_unknown_timezone_rejected():
    with pytest.raises(ValueError):
        PhotoIngestor(local_timezone="Mars/Olympus_Mons")


def _tag(values):
    return SimpleNamespace(values=values, printable=str(values))


def test_gps_position_rules():
    deg0 = {"GPS GPSLatitude": _tag([Ratio(0, 1), Ratio(11139, 500), Ratio(0, 1)]),
            "GPS GPSLatitudeRef": _tag("S"),
            "GPS GPSLongitude": _tag([Ratio(94, 1), Ratio(17, 1), Ratio(979, 50)]),
            "GPS GPSLongitudeRef": _tag("W")}
    lat, lon = gps_position(deg0)
    assert lat == pytest.approx(-11139 / 500 / 60)
    assert lon == pytest.approx(-(94 + 17 / 60 + 979 / 50 / 3600))
    assert gps_position({}) is None
    zero = {"GPS GPSLatitude": _tag([Ratio(0, 1)] * 3), "GPS GPSLongitude": _tag([Ratio(0, 1)] * 3)}
    assert gps_position(zero) is None  # (0, 0): a receiver without a fix
    notes: list = []
    bad = dict(deg0, **{"GPS GPSLatitude": _tag([Ratio(1, 0), Ratio(0, 1), Ratio(0, 1)])})
    assert gps_position(bad, notes) is None
    assert notes == ["GPS latitude degrees unreadable (1/0): no position"]
    # degenerate minutes and seconds are read as what they can be, with a note, never dropping the position
    notes = []
    odd = dict(deg0, **{"GPS GPSLatitude": _tag([Ratio(43, 1), Ratio(28, 1), Ratio(0, 0)]),
                        "GPS GPSLatitudeRef": _tag("N"),
                        "GPS GPSLongitude": _tag([Ratio(11, 1), Ratio(5, 0), Ratio(0, 0)])})
    lat, lon = gps_position(odd, notes)
    assert (lat, lon) == (pytest.approx(43 + 28 / 60), pytest.approx(-11.0))
    assert notes == ["GPS latitude seconds written as 0/0: read as 0",
                     "GPS longitude minutes unreadable (5/0): read as 0",
                     "GPS longitude seconds written as 0/0: read as 0"]


def test_offsets_zones_and_clocks():
    assert parse_offset("-05:00").utcoffset(None).total_seconds() == -5 * 3600
    assert parse_offset("+0530").utcoffset(None).total_seconds() == 5.5 * 3600
    assert parse_offset("   :  ") is None
    assert zone_at(39.05134, -94.28877).key == "America/Chicago"  # one zone of a many-zone country
    assert zone_at(27.7, 85.3).key == "Asia/Kathmandu"
    from datetime import timedelta
    assert offset_from_gps(datetime(2008, 10, 22, 16, 28, 39), 14 * 3600 + 27 * 60 + 7.24) == \
        (timedelta(hours=2), pytest.approx(1.53, abs=0.01))
    assert offset_from_gps(datetime(2021, 1, 1, 0, 10), 23 * 3600 + 40 * 60)[0] == timedelta(minutes=30)
    assert offset_from_gps(datetime(2021, 1, 1, 23, 50), 5 * 3600 + 5 * 60)[0] == timedelta(hours=18, minutes=45) - \
        timedelta(hours=24)  # wraps round midnight: -05:15
    now = datetime(2024, 6, 1, tzinfo=UTC)
    assert clock_problem(datetime(2000, 1, 1), now, None) == "camera clock looks unset (2000-01-01 00:00:00)"
    assert "after the import" in clock_problem(datetime(2031, 5, 5, 10), now, None)
    assert "after the file was last modified" in clock_problem(datetime(2024, 3, 5), now,
                                                               datetime(2024, 3, 1, tzinfo=UTC))
    assert clock_problem(datetime(2024, 3, 1, 20), now, datetime(2024, 3, 1, 9, tzinfo=UTC)) is None


# ----------------------------------------------------------------------------- photos the tests make (issue 12)

def _photo(path, when=None, gps=None, gps_time=None, datetime_tag=None, mtime=None):
    """A small JPEG with the given EXIF (written by Pillow): DateTimeOriginal ``when``, GPS ``(lat, lon)``
    as rationals (each may be a ready tuple of IFDRationals), GPS time of day ``(h, m, s)``."""
    from PIL import Image
    from PIL.TiffImagePlugin import IFDRational

    def dms(x):
        if isinstance(x, tuple):
            return x
        x = abs(x)
        d, m = int(x), int((x - int(x)) * 60)
        return (IFDRational(d, 1), IFDRational(m, 1), IFDRational(round(((x - d) * 60 - m) * 60 * 1000), 1000))

    exif = Image.Exif()
    if datetime_tag:
        exif[0x0132] = datetime_tag
    if when:
        exif.get_ifd(0x8769)[0x9003] = when
    if gps:
        lat, lon = gps
        g = {1: "S" if not isinstance(lat, tuple) and lat < 0 else "N", 2: dms(lat),
             3: "W" if not isinstance(lon, tuple) and lon < 0 else "E", 4: dms(lon)}
        if gps_time:
            g[7] = tuple(IFDRational(v, 1) for v in gps_time)
        exif[0x8825] = g
    Image.new("RGB", (8, 8)).save(path, exif=exif)
    if mtime:
        import os
        os.utime(path, (mtime.timestamp(), mtime.timestamp()))
    return path


def _read(path):
    (r,) = PhotoIngestor().read(path)
    return r


def test_camera_left_on_home_time_abroad_is_placed_by_the_gps_clock(tmp_path):
    # New York in July is UTC-04:00; the camera says 20:00 while the satellites say 18:00 UTC: it was on +02:00
    r = _read(_photo(tmp_path / "ny.jpg", "2023:07:01 20:00:00", (40.7128, -74.0060), (18, 0, 0)))
    assert r.sent_at == datetime(2023, 7, 1, 18, 0, tzinfo=UTC)
    # shown at New York's time (14:00 −04:00, the photo's local time there); the camera's own reading kept beside it
    assert r.attrs["time_basis"] == "gps-time" and r.attrs["time_zone"] == "America/New_York"
    assert r.sent_at.utcoffset() == timedelta(hours=-4) and r.attrs["local_time"] == "2023-07-01T14:00:00"
    assert r.attrs["camera_time"] == "2023-07-01T20:00:00" and r.attrs["camera_offset"] == "+02:00"
    assert any("America/New_York, UTC-04:00" in n for n in r.notes)


def test_position_zone_without_gps_time_and_a_stale_gps_fix(tmp_path):
    denver = _read(_photo(tmp_path / "denver.jpg", "2023:01:10 12:00:00", (39.7392, -104.9903)))
    assert denver.sent_at == datetime(2023, 1, 10, 19, 0, tzinfo=UTC)  # MST, -07:00
    assert denver.attrs["time_basis"] == "gps-zone" and denver.attrs["time_zone"] == "America/Denver"
    # GPS time 18:07 against camera 13:00: 7 minutes off any quarter hour, an old fix: the zone decides
    stale = _read(_photo(tmp_path / "stale.jpg", "2023:01:10 13:00:00", (39.7392, -104.9903), (18, 7, 0)))
    assert stale.sent_at == datetime(2023, 1, 10, 20, 0, tzinfo=UTC)
    assert stale.attrs["time_basis"] == "gps-zone" and any("old fix" in n for n in stale.notes)


def test_untrustworthy_clocks_are_flagged_and_another_tag_used(tmp_path):
    future = _read(_photo(tmp_path / "future.jpg", "2099:05:01 10:00:00", datetime_tag="2023:05:01 10:00:00"))
    assert future.attrs["clock_suspect"].startswith("camera clock looks wrong (2099-05-01 10:00:00")
    assert future.attrs["local_time"] == "2023-05-01T10:00:00" and future.sent_at.year == 2023
    assert future.attrs["datetime_original"] == "2099:05:01 10:00:00"  # kept
    late = _read(_photo(tmp_path / "late.jpg", "2023:05:01 10:00:00", mtime=datetime(2020, 1, 1, tzinfo=UTC)))
    assert late.sent_at is None and "after the file was last modified" in late.attrs["clock_suspect"]
    assert "taken" not in late.text


def test_degenerate_gps_rationals_keep_the_position(tmp_path):
    from PIL.TiffImagePlugin import IFDRational

    lat = (IFDRational(43, 1), IFDRational(28, 1), IFDRational(0, 0))
    lon = (IFDRational(11, 1), IFDRational(53, 1), IFDRational(0, 0))
    r = _read(_photo(tmp_path / "zero.jpg", "2008:10:22 16:28:39", (lat, lon)))
    assert r.place is not None and r.place.country == "Italy"
    assert r.attrs["lat"] == pytest.approx(43 + 28 / 60) and r.attrs["lon"] == pytest.approx(11 + 53 / 60)
    assert "GPS latitude seconds written as 0/0: read as 0" in r.notes


@pytest.mark.corpus
def test_exifread_warnings_go_to_the_log_not_the_terminal(corpus, caplog):
    import logging
    import os
    import subprocess
    import sys
    from pathlib import Path

    path = corpus / "photos/exifpy45_empty_gps_ifd.jpg"
    code = f"from ingestors.photos import PhotoIngestor\nr, = PhotoIngestor().read({str(path)!r})\nprint(r.notes)"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stderr == "" and "EXIF: No values found for GPS SubIFD" in out.stdout
    with caplog.at_level(logging.DEBUG, logger="ingestors.photos"):
        one("exifpy45_empty_gps_ifd.jpg", corpus)
    assert any("No values found for GPS SubIFD" in m for m in caplog.messages)

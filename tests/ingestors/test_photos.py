"""Photo ingestor against the real corpus photos (right values from ../shared/corpus/README.md)."""
from __future__ import annotations

from datetime import datetime, timezone
from types import SimpleNamespace

import pytest
from exifread.utils import Ratio

from core.errors import InputError
from ingestors.base import Record
from ingestors.photos import PhotoIngestor, country_zone, gps_position, parse_offset

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
    # no offset in EXIF: the camera's wall time read in Italy's zone (CEST, +02:00)
    assert a.sent_at == datetime(2008, 10, 22, 14, 28, 39, tzinfo=UTC)
    assert b.sent_at == datetime(2008, 10, 22, 14, 55, 37, tzinfo=UTC)
    assert a.attrs["time_basis"] == "gps-zone" and a.attrs["time_zone"] == "Europe/Rome"
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
    assert r.attrs["time_basis"] == "assumed-local"
    assert any("time zone" in n for n in r.notes)
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
    assert r.sent_at is None
    assert any("camera clock looks unset" in n for n in r.notes)
    assert "time_basis" not in r.attrs


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
    bad = dict(deg0, **{"GPS GPSLatitude": _tag([Ratio(1, 0), Ratio(0, 1), Ratio(0, 1)])})
    assert gps_position(bad) is None


def test_offsets_and_country_zones():
    assert parse_offset("-05:00").utcoffset(None).total_seconds() == -5 * 3600
    assert parse_offset("+0530").utcoffset(None).total_seconds() == 5.5 * 3600
    assert parse_offset("   :  ") is None
    summer = datetime(2021, 7, 1, 12, 0)
    assert country_zone("DE", summer).key == "Europe/Berlin"  # Berlin and Busingen agree
    assert country_zone("US", summer) is None  # many offsets: no guess
    assert country_zone(None, summer) is None

"""Photo shapes beyond the corpus, each made by the test itself (Pillow writes the EXIF): the date line, the open
sea, clocks reset to an epoch that have run since, sub-second tags, PNG/WebP/HEIF from other writers, screenshots
timed by their file names, empty files, the same picture under two names.  Right values worked out by hand."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from PIL import Image
from PIL.TiffImagePlugin import IFDRational

from core.errors import InputError
from ingestors.file_names import time_from_name
from ingestors.photos import PhotoIngestor, clock_problem, offset_from_gps

UTC = timezone.utc


def _dms(x: float):
    x = abs(x)
    d, m = int(x), int((abs(x) - int(x)) * 60)
    return (IFDRational(d, 1), IFDRational(m, 1), IFDRational(round(((x - d) * 60 - m) * 60 * 1000), 1000))


def make(path, when=None, offset=None, gps=None, gps_time=None, subsec=None, fmt=None):
    """An 8×8 picture with DateTimeOriginal ``when``, OffsetTimeOriginal, SubSecTimeOriginal, GPS ``(lat, lon)``
    (S and W through the Ref tags) and GPS time of day ``(h, m, s)``; no EXIF at all when none is given."""
    exif = Image.Exif()
    exif[0x010F], exif[0x0110] = "Test", "Cam 1"
    ifd = exif.get_ifd(0x8769)
    if when:
        ifd[0x9003] = when
    if offset:
        ifd[0x9011] = offset
    if subsec:
        ifd[0x9291] = subsec
    if gps:
        lat, lon = gps
        g = {1: "S" if lat < 0 else "N", 2: _dms(lat), 3: "W" if lon < 0 else "E", 4: _dms(lon)}
        if gps_time:
            g[7] = tuple(IFDRational(v, 1) for v in gps_time)
        exif[0x8825] = g
    image = Image.new("RGB", (8, 8), (200, 40, 90))
    if when or gps:
        image.save(path, format=fmt, exif=exif)
    else:
        image.save(path, format=fmt)
    return path


def read(path, **kwargs):
    (r,) = PhotoIngestor(**kwargs).read(path)
    return r


# ----------------------------------------------------------------------------- the date line

def test_gps_time_of_day_is_placed_on_the_right_side_of_the_date_line(tmp_path):
    # Samoa (Pacific/Apia) is UTC+13: camera 09:00 against GPS 20:00 is +13:00, not American Samoa's -11:00
    samoa = read(make(tmp_path / "apia.jpg", "2023:06:01 09:00:00", gps=(-13.8333, -171.7667), gps_time=(20, 0, 0)))
    assert samoa.sent_at == datetime(2023, 5, 31, 20, 0, tzinfo=UTC)
    assert samoa.attrs["time_basis"] == "gps-time" and samoa.attrs["time_zone"] == "Pacific/Apia"
    assert samoa.notes == [] and samoa.place.country == "Samoa"
    # Kiritimati (Line Islands) is UTC+14: camera 09:00 against GPS 19:00
    line = read(make(tmp_path / "line.jpg", "2023:06:01 09:00:00", gps=(1.8721, -157.4278), gps_time=(19, 0, 0)))
    assert line.sent_at == datetime(2023, 5, 31, 19, 0, tzinfo=UTC) and line.attrs["time_zone"] == "Pacific/Kiritimati"
    # American Samoa (Pacific/Pago_Pago) is UTC-11: camera 21:00 against GPS 08:00 is -11:00, not +13:00
    pago = read(make(tmp_path / "pago.jpg", "2023:06:01 21:00:00", gps=(-14.2756, -170.7020), gps_time=(8, 0, 0)))
    assert pago.sent_at == datetime(2023, 6, 2, 8, 0, tzinfo=UTC) and pago.attrs["time_zone"] == "Pacific/Pago_Pago"
    # the time of day alone cannot tell a day east from a day west: the expected offset decides
    assert offset_from_gps(datetime(2023, 6, 1, 9), 20 * 3600) == (timedelta(hours=-11), 0)
    assert offset_from_gps(datetime(2023, 6, 1, 9), 20 * 3600, timedelta(hours=13)) == (timedelta(hours=13), 0)
    assert offset_from_gps(datetime(2023, 6, 1, 21), 8 * 3600, timedelta(hours=-11)) == (timedelta(hours=-11), 0)
    # a camera left on another zone still gets the offset nearest to the position's, within -12 h … +14 h
    assert offset_from_gps(datetime(2023, 6, 1, 20), 18 * 3600, timedelta(hours=-4))[0] == timedelta(hours=2)


def test_southern_summer_time_and_a_half_hour_zone_from_the_gps_clock(tmp_path):
    sydney = read(make(tmp_path / "syd.jpg", "2023:01:15 14:00:00", gps=(-33.8688, 151.2093), gps_time=(3, 0, 0)))
    assert sydney.sent_at == datetime(2023, 1, 15, 3, 0, tzinfo=UTC)  # AEDT, +11:00
    assert sydney.sent_at.utcoffset() == timedelta(hours=11) and sydney.attrs["time_zone"] == "Australia/Sydney"
    winter = read(make(tmp_path / "syd7.jpg", "2023:07:15 14:00:05", gps=(-33.8688, 151.2093), gps_time=(4, 0, 0)))
    assert winter.sent_at == datetime(2023, 7, 15, 4, 0, 5, tzinfo=UTC) and winter.sent_at.utcoffset() == timedelta(hours=10)
    stjohns = read(make(tmp_path / "nl.jpg", "2023:07:01 08:15:00", gps=(47.5615, -52.7126), gps_time=(10, 45, 0)))
    assert stjohns.sent_at == datetime(2023, 7, 1, 10, 45, tzinfo=UTC)  # NDT, -02:30
    assert stjohns.attrs["time_zone"] == "America/St_Johns" and stjohns.notes == []


# ----------------------------------------------------------------------------- where: the open sea

def test_a_position_at_sea_is_not_named_after_the_nearest_land(tmp_path):
    # mid-Atlantic, over 1000 km from the Azores: no locality, region or country; the sea's zone (UTC-3) places it
    sea = read(make(tmp_path / "sea.jpg", "2023:08:01 12:00:00", gps=(35.0, -40.0)))
    assert (sea.place.locality, sea.place.region, sea.place.country, sea.place.country_code) == (None,) * 4
    assert sea.place.name == "35.00000, -40.00000" and sea.attrs["at_sea"] is True
    assert "Azores" not in sea.text and "Portugal" not in sea.text
    assert sea.sent_at == datetime(2023, 8, 1, 15, 0, tzinfo=UTC) and sea.attrs["time_zone"] == "Etc/GMT+3"
    # a remote island far from any town of 1000 people is still in its country: Lord Howe Island, NSW (+10:30)
    island = read(make(tmp_path / "lhi.jpg", "2023:07:01 08:15:00", gps=(-31.5553, 159.0821), gps_time=(21, 45, 0)))
    assert (island.place.locality, island.place.region, island.place.country) == (None, "New South Wales", "Australia")
    assert island.sent_at == datetime(2023, 6, 30, 21, 45, tzinfo=UTC) and "at_sea" not in island.attrs


# ----------------------------------------------------------------------------- clocks

def test_a_clock_reset_to_an_epoch_is_unset_even_after_it_has_run(tmp_path):
    now = datetime(2024, 6, 1, tzinfo=UTC)
    assert clock_problem(datetime(1970, 1, 1, 0, 2, 13), now, None) == \
        "camera clock looks unset (1970-01-01 00:02:13, just after a clock's starting date)"
    assert clock_problem(datetime(1980, 1, 2, 18, 0), now, None).startswith("camera clock looks unset")
    assert clock_problem(datetime(2000, 1, 1, 0, 5, 40), now, None).startswith("camera clock looks unset")
    assert clock_problem(datetime(2000, 1, 3, 10, 0), now, None) is None  # two days on: a real date
    r = read(make(tmp_path / "reset.jpg", "2000:01:01 00:05:40"))
    assert r.sent_at is None and "taken" not in r.text and "time_basis" not in r.attrs
    assert r.attrs["clock_suspect"] == "camera clock looks unset (2000-01-01 00:05:40, just after a clock's starting date)"


def test_sub_seconds_are_kept_beside_the_time(tmp_path):
    r = read(make(tmp_path / "burst.jpg", "2023:05:04 10:12:33", "+02:00", subsec="045"))
    assert r.sent_at == datetime(2023, 5, 4, 8, 12, 33, tzinfo=UTC) and r.attrs["subsec_us"] == 45000
    assert read(make(tmp_path / "b2.jpg", "2023:05:04 10:12:33", "-03:30", subsec="7")).attrs["subsec_us"] == 700000
    odd = read(make(tmp_path / "b3.jpg", "2023:05:04 10:12:33", "-03:30", subsec="  "))
    assert "subsec_us" not in odd.attrs and odd.sent_at == datetime(2023, 5, 4, 13, 42, 33, tzinfo=UTC)


# ----------------------------------------------------------------------------- formats

def test_png_and_webp_with_exif_and_heif_written_by_libheif(tmp_path):
    png = read(make(tmp_path / "shot.png", "2023:05:04 10:12:33", "+02:00", fmt="PNG"))
    assert png.sent_at == datetime(2023, 5, 4, 8, 12, 33, tzinfo=UTC) and png.attrs["time_basis"] == "offset"
    webp = read(make(tmp_path / "pic.webp", "2023:05:04 10:12:33", "+09:00", fmt="WEBP"))
    assert webp.sent_at == datetime(2023, 5, 4, 1, 12, 33, tzinfo=UTC)
    pillow_heif = pytest.importorskip("pillow_heif")
    pillow_heif.register_heif_opener()
    heic = read(make(tmp_path / "sf.heic", "2023:09:09 19:00:00", "-07:00", gps=(37.7749, -122.4194), fmt="HEIF"))
    assert heic.sent_at == datetime(2023, 9, 10, 2, 0, tzinfo=UTC) and heic.place.locality == "San Francisco"
    assert not any("unreadable" in n for n in heic.notes)


def test_a_screenshot_is_timed_by_its_file_name_in_the_local_zone_and_says_so(tmp_path):
    shot = read(make(tmp_path / "Screenshot 2023-05-04 at 10.12.33.png", fmt="PNG"), local_timezone="America/Los_Angeles")
    assert shot.sent_at == datetime(2023, 5, 4, 17, 12, 33, tzinfo=UTC)  # PDT, -07:00
    assert shot.attrs["time_basis"] == "file-name" and shot.attrs["time_zone"] == "America/Los_Angeles"
    assert any(n.startswith("time taken from the file name (2023-05-04 10:12:33)") for n in shot.notes)
    pixel = read(make(tmp_path / "PXL_20230504_101233123.jpg"), local_timezone="America/Los_Angeles")
    assert pixel.sent_at == datetime(2023, 5, 4, 10, 12, 33, tzinfo=UTC) and pixel.attrs["time_basis"] == "file-name-utc"
    # EXIF wins over the name; a name with a counter gives nothing (a date alone: test_media_names_and_dates)
    exif = read(make(tmp_path / "IMG_20230504_101233.jpg", "2023:05:04 10:12:34", "+01:00"))
    assert exif.sent_at == datetime(2023, 5, 4, 9, 12, 34, tzinfo=UTC) and exif.attrs["time_basis"] == "offset"
    assert read(make(tmp_path / "IMG_1234.jpg")).sent_at is None
    assert read(make(tmp_path / "Screenshot 2099-05-04 at 10.12.33.png", fmt="PNG")).sent_at is None  # the future


@pytest.mark.parametrize("name, expected", [
    ("Screenshot 2023-05-04 at 10.12.33.png", (datetime(2023, 5, 4, 10, 12, 33), False)),
    ("Screen Shot 2020-01-02 at 3.04.05 PM.png", (datetime(2020, 1, 2, 15, 4, 5), False)),
    ("Screen Shot 2020-01-02 at 12.04.05 AM.png", (datetime(2020, 1, 2, 0, 4, 5), False)),
    ("Screenshot_20230504-101233.png", (datetime(2023, 5, 4, 10, 12, 33), False)),
    ("Screenshot_2023-05-04-10-12-33-123_com.whatsapp.jpg", (datetime(2023, 5, 4, 10, 12, 33), False)),
    ("20230504 101233.m4a", (datetime(2023, 5, 4, 10, 12, 33), False)),
    ("Recording_20230504_101233.m4a", (datetime(2023, 5, 4, 10, 12, 33), False)),
    ("PXL_20230504_101233123.jpg", (datetime(2023, 5, 4, 10, 12, 33), True)),
    ("IMG-20230504-WA0001.jpg", None), ("New Recording 12.m4a", None), ("IMG_1234.JPG", None),
    ("VID_20231301_101233.mp4", None), ("Screenshot 2023-05-04 at 25.12.33.png", None),
])
def test_times_in_file_names(name, expected):
    assert time_from_name(name) == expected


def test_empty_and_fake_pictures_are_clear_errors_naming_the_file(tmp_path):
    empty = tmp_path / "IMG_0001.jpg"
    empty.write_bytes(b"")
    with pytest.raises(InputError, match="empty file") as err:
        list(PhotoIngestor().read(empty))
    assert err.value.path == str(empty)
    page = tmp_path / "IMG_0002.jpg"
    page.write_text("<html>404 Not Found</html>")
    with pytest.raises(InputError, match="not a JPEG, TIFF, HEIC, PNG or WebP image"):
        list(PhotoIngestor().read(page))


def test_the_same_picture_under_two_names_is_one_record(tmp_path):
    a = make(tmp_path / "IMG_0005.jpg", "2023:05:05 10:00:00", "+01:00")
    b = tmp_path / "IMG_0005 copy.jpg"
    b.write_bytes(a.read_bytes())
    ra, rb = read(a), read(b)
    assert (ra.external_id, rb.external_id) == ("IMG_0005.jpg", "IMG_0005 copy.jpg")
    assert ra.content_hash == rb.content_hash and ra.attrs["sha256"] == rb.attrs["sha256"]
    other = read(make(tmp_path / "IMG_0006.jpg", "2023:05:05 10:00:00", "+01:00", subsec="5"))
    assert other.content_hash != ra.content_hash

"""Photo times and places, pass 23: camera times without an offset placed by the GPS time of day in zones the earlier
tests did not reach (just after midnight local while UTC is still the day before, the western hemisphere across a
summer-time change, half-hour and 45-minute zones), a camera clock on another zone's time, GPS blocks with less in
them, placeholder times, and what `kith ask "when was I in …?"` says of them (the day where the photo was taken).

Every right value is worked out by hand in the comments (zone rules from the IANA database as of 2023).
"""
from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone

import pytest
from click.testing import CliRunner
from PIL import Image

from app.cli import main
from ingestors.photos import PhotoIngestor
from tests.ingestors.exif_bytes import ASCII, RATIONAL, SHORT, exif_block, jpeg
from tests.ingestors.test_photo_variants import make

UTC = timezone.utc


def read(path):
    (r,) = PhotoIngestor().read(path)
    return r


# (file, camera time, position, GPS time of day, the right UTC instant, the right offset, the zone named)
GPS_TIME_CASES = [
    # Tokyo is +09:00: 00:30 on 5 May is 15:30 UTC on 4 May; the offset is +09:00, not −15:00
    ("tokyo.jpg", "2023:05:05 00:30:00", (35.6762, 139.6503), (15, 30, 0),
     datetime(2023, 5, 4, 15, 30, tzinfo=UTC), timedelta(hours=9), "Asia/Tokyo"),
    # New York in July (EDT, −04:00): 21:15 on 4 July is 01:15 UTC on 5 July
    ("ny_july.jpg", "2023:07:04 21:15:00", (40.7128, -74.0060), (1, 15, 0),
     datetime(2023, 7, 5, 1, 15, tzinfo=UTC), timedelta(hours=-4), "America/New_York"),
    # New York in January (EST, −05:00)
    ("ny_jan.jpg", "2023:01:10 08:00:00", (40.7128, -74.0060), (13, 0, 0),
     datetime(2023, 1, 10, 13, 0, tzinfo=UTC), timedelta(hours=-5), "America/New_York"),
    # the morning the clocks went forward (12 March 2023, 02:00 EST → 03:00 EDT): 03:30 is EDT
    ("ny_dst.jpg", "2023:03:12 03:30:00", (40.7128, -74.0060), (7, 30, 0),
     datetime(2023, 3, 12, 7, 30, tzinfo=UTC), timedelta(hours=-4), "America/New_York"),
    # the evening of the day the clocks went back (5 November 2023): 23:30 EST is 04:30 UTC the next day
    ("ny_nov.jpg", "2023:11:05 23:30:00", (40.7128, -74.0060), (4, 30, 0),
     datetime(2023, 11, 6, 4, 30, tzinfo=UTC), timedelta(hours=-5), "America/New_York"),
    # New Delhi, +05:30: 23:50 on New Year's Eve is 18:20 UTC
    ("delhi.jpg", "2022:12:31 23:50:00", (28.6139, 77.2090), (18, 20, 0),
     datetime(2022, 12, 31, 18, 20, tzinfo=UTC), timedelta(hours=5, minutes=30), "Asia/Kolkata"),
    # Kathmandu, +05:45: 00:10 on 1 October is 18:25 UTC on 30 September
    ("kathmandu.jpg", "2022:10:01 00:10:00", (27.7172, 85.3240), (18, 25, 0),
     datetime(2022, 9, 30, 18, 25, tzinfo=UTC), timedelta(hours=5, minutes=45), "Asia/Kathmandu"),
    # the Chatham Islands: +13:45 in their summer (January), +12:45 in winter (July)
    ("chatham_jan.jpg", "2023:01:15 12:00:00", (-43.95, -176.56), (22, 15, 0),
     datetime(2023, 1, 14, 22, 15, tzinfo=UTC), timedelta(hours=13, minutes=45), "Pacific/Chatham"),
    ("chatham_jul.jpg", "2023:07:15 12:00:00", (-43.95, -176.56), (23, 15, 0),
     datetime(2023, 7, 14, 23, 15, tzinfo=UTC), timedelta(hours=12, minutes=45), "Pacific/Chatham"),
    # Kiritimati, +14:00: 01:00 on 1 June is 11:00 UTC on 31 May
    ("kiritimati.jpg", "2023:06:01 01:00:00", (1.87, -157.43), (11, 0, 0),
     datetime(2023, 5, 31, 11, 0, tzinfo=UTC), timedelta(hours=14), "Pacific/Kiritimati"),
]


@pytest.mark.parametrize("name, when, gps, gps_time, instant, offset, zone", GPS_TIME_CASES,
                         ids=[c[0] for c in GPS_TIME_CASES])
def test_gps_time_of_day_gives_the_offset_and_the_camera_date_is_kept(tmp_path, name, when, gps, gps_time, instant,
                                                                      offset, zone):
    r = read(make(tmp_path / name, when, gps=gps, gps_time=gps_time))
    assert r.sent_at == instant and r.sent_at.utcoffset() == offset
    assert r.attrs["time_basis"] == "gps-time" and r.attrs["time_zone"] == zone
    # the local time is the camera's, date included (the UTC date may be the day before or after)
    assert r.attrs["local_time"] == datetime.strptime(when, "%Y:%m:%d %H:%M:%S").isoformat()
    assert r.notes == []


def test_a_camera_on_another_zones_time_is_shown_at_the_positions_local_time(tmp_path):
    # a camera left on New York summer time (−04:00) in Paris (+02:00): it reads 23:00 on 10 June while the
    # satellites say 03:00 UTC on 11 June.  The instant is the GPS's; in Paris it was 05:00 on 11 June.
    r = read(make(tmp_path / "paris.jpg", "2023:06:10 23:00:00", gps=(48.8566, 2.3522), gps_time=(3, 0, 0)))
    assert r.sent_at == datetime(2023, 6, 11, 3, 0, tzinfo=UTC)
    assert r.sent_at.utcoffset() == timedelta(hours=2) and r.attrs["time_zone"] == "Europe/Paris"
    assert r.attrs["local_time"] == "2023-06-11T05:00:00" and r.text.startswith("Photo taken 2023-06-11 05:00 at Paris")
    assert r.attrs["camera_time"] == "2023-06-10T23:00:00" and r.attrs["camera_offset"] == "-04:00"
    assert any("camera clock was on UTC-04:00" in n for n in r.notes)
    assert any("camera clock read 2023-06-10 23:00" in n and "Europe/Paris" in n for n in r.notes)


def test_a_gps_time_written_in_local_time_is_read_as_the_positions_zone(tmp_path):
    # the GPS time of day reads the camera's own 00:30 in Tokyo (+09:00): a phone that wrote local time, not UTC;
    # the position's zone places it (15:30 UTC on 4 May), not a camera on UTC (00:30 UTC)
    r = read(make(tmp_path / "tokyo.jpg", "2023:05:05 00:30:00", gps=(35.6762, 139.6503), gps_time=(0, 30, 0)))
    assert r.sent_at == datetime(2023, 5, 4, 15, 30, tzinfo=UTC) and r.sent_at.utcoffset() == timedelta(hours=9)
    assert r.attrs["time_basis"] == "gps-zone" and r.attrs["time_zone"] == "Asia/Tokyo"
    assert any(n.startswith("GPS time reads the camera's time (a GPS time written in local time") for n in r.notes)
    # where the zone is UTC itself (London in January), the same reading is simply right
    london = read(make(tmp_path / "london.jpg", "2023:01:10 15:00:00", gps=(51.5074, -0.1278), gps_time=(15, 0, 0)))
    assert london.sent_at == datetime(2023, 1, 10, 15, 0, tzinfo=UTC) and london.attrs["time_basis"] == "gps-time"
    assert london.notes == []


_PARIS = {1: (ASCII, "N"), 2: (RATIONAL, [(48, 1), (51, 1), (2376, 100)]),
          3: (ASCII, "E"), 4: (RATIONAL, [(2, 1), (21, 1), (744, 100)])}


@pytest.mark.parametrize("stamp, note", [
    ([(0, 0), (0, 0), (0, 0)], None),  # 0/0 is "unknown": no GPS time at all
    ([(0, 1), (0, 1), (0, 1)], "GPS time 00:00:00 (a receiver's placeholder, unlike the time zone at the position): "
                               "not used"),
])
def test_a_placeholder_gps_time_is_not_midnight_utc(tmp_path, stamp, note):
    # camera 15:00 in Paris in June: +02:00 from the position's zone, not −09:00 from a GPS "00:00:00"
    r = read(_exif_photo(tmp_path / "p.jpg", "2023:06:10 15:00:00", {**_PARIS, 7: (RATIONAL, stamp)}))
    assert r.sent_at == datetime(2023, 6, 10, 13, 0, tzinfo=UTC) and r.attrs["time_basis"] == "gps-zone"
    assert r.notes == ([note] if note else [])
    # a real 00:00:00 UTC that is the position's zone (02:00 in Paris) still places it
    ok = read(_exif_photo(tmp_path / "ok.jpg", "2023:06:11 02:00:00", {**_PARIS, 7: (RATIONAL, [(0, 1)] * 3)}))
    assert ok.sent_at == datetime(2023, 6, 11, 0, 0, tzinfo=UTC) and ok.attrs["time_basis"] == "gps-time"


def test_no_gps_time_the_positions_zone_and_an_offset_tag(tmp_path):
    # no GPSTimeStamp: Paris in June is +02:00
    zone = read(make(tmp_path / "zone.jpg", "2023:06:10 15:00:00", gps=(48.8566, 2.3522)))
    assert zone.sent_at == datetime(2023, 6, 10, 13, 0, tzinfo=UTC) and zone.attrs["time_basis"] == "gps-zone"
    assert zone.place.name.startswith("Paris")
    # OffsetTimeOriginal, a sub-second tag: the offset as written, the fraction kept beside the time
    tagged = read(make(tmp_path / "tag.jpg", "2023:06:10 15:00:00", offset="-07:00", subsec="123"))
    assert tagged.sent_at == datetime(2023, 6, 10, 22, 0, tzinfo=UTC) and tagged.sent_at.utcoffset() == timedelta(hours=-7)
    assert tagged.attrs["time_basis"] == "offset" and tagged.attrs["subsec_us"] == 123000


def _exif_photo(path, dto=None, gps=None, orientation=None):
    ifd0 = {0x010F: (ASCII, "Canon"), 0x0110: (ASCII, "Canon EOS 5D")}
    if orientation:
        ifd0[0x0112] = (SHORT, [orientation])
    return jpeg(path, exif_block(ifd0, {0x9003: (ASCII, dto)} if dto is not None else None, gps))


def test_null_island_and_altitude_only_give_no_place(tmp_path):
    null = read(_exif_photo(tmp_path / "null.jpg", "2023:06:10 15:00:00",
                            {1: (ASCII, "N"), 2: (RATIONAL, [(0, 1)] * 3), 3: (ASCII, "E"), 4: (RATIONAL, [(0, 1)] * 3),
                             7: (RATIONAL, [(15, 1), (0, 1), (0, 1)])}))
    assert null.place is None and "lat" not in null.attrs
    assert "GPS position 0, 0 (a receiver without a fix): not used" in null.notes
    assert null.attrs["time_basis"] == "zone-unknown"
    alt = read(_exif_photo(tmp_path / "alt.jpg", "2023:06:10 15:00:00", {5: (1, [0]), 6: (RATIONAL, [(120, 1)])}))
    assert alt.place is None and alt.attrs["time_basis"] == "zone-unknown"
    assert alt.sent_at == datetime(2023, 6, 10, 15, 0, tzinfo=UTC)


@pytest.mark.parametrize("written, local", [
    ("2023:05:05 00:30", "2023-05-05T00:30:00"),        # no seconds
    ("2023.05.05 00:30:00", "2023-05-05T00:30:00"),     # dots in the date
    ("2023:5:5 0:30:00", "2023-05-05T00:30:00"),        # fields not padded
    ("2023-05-05T00:30:00", "2023-05-05T00:30:00"),     # ISO 8601
    ("2023:05:04 24:00:00", "2023-05-05T00:00:00"),     # the end of 4 May: midnight starting 5 May
])
def test_capture_times_as_writers_write_them(tmp_path, written, local):
    r = read(make(tmp_path / "t.jpg", written, gps=(35.6762, 139.6503)))  # Tokyo, no GPS time: +09:00
    assert r.attrs["local_time"] == local and r.attrs["time_tag"] == "DateTimeOriginal"
    assert r.sent_at == datetime.fromisoformat(local + "+09:00") and not any("unreadable" in n for n in r.notes)


@pytest.mark.parametrize("written", ["2019:02:30 25:61:00", "2023:05:05 00:30:00:00"])
def test_times_that_cannot_be_read_for_sure_are_noted(tmp_path, written):
    # an impossible time and one with a field too many (a year-last date: test_media_names_and_dates)
    r = read(make(tmp_path / "t.jpg", written))
    assert r.sent_at is None and f"DateTimeOriginal unreadable ({written!r}): not a date and time" in r.notes


@pytest.mark.parametrize("placeholder", ["0000:00:00 00:00:00", "    :  :     :  :  ", ""])
def test_placeholder_times_are_unknown_without_a_complaint(tmp_path, placeholder):
    r = read(_exif_photo(tmp_path / "p.jpg", placeholder))
    assert r.sent_at is None and "time_tag" not in r.attrs
    assert not any("unreadable" in n for n in r.notes) and r.text == "Photo with Canon EOS 5D"


def test_a_rotated_photo_and_one_with_no_exif(tmp_path):
    rotated = read(_exif_photo(tmp_path / "rot.jpg", "2023:06:10 15:00:00",
                               {1: (ASCII, "N"), 2: (RATIONAL, [(51, 1), (30, 1), (2664, 100)]),
                                3: (ASCII, "W"), 4: (RATIONAL, [(0, 1), (7, 1), (4008, 100)]),
                                7: (RATIONAL, [(14, 1), (0, 1), (0, 1)])}, orientation=6))
    assert rotated.attrs["orientation_code"] == 6 and rotated.place.name.startswith("London")
    assert rotated.sent_at == datetime(2023, 6, 10, 14, 0, tzinfo=UTC) and rotated.sent_at.utcoffset() == timedelta(hours=1)
    bare = tmp_path / "bare.jpg"
    Image.new("RGB", (8, 8)).save(bare)
    r = read(bare)
    assert (r.sent_at, r.place, r.text) == (None, None, "Photo") and r.notes == ["no EXIF metadata"]


def _cli(*args):
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_ask_when_says_the_local_day_and_every_day_shown(tmp_path):
    folder = tmp_path / "Trips"
    folder.mkdir()
    for name, when, gps, gps_time, *_ in GPS_TIME_CASES:
        make(folder / name, when, gps=gps, gps_time=gps_time)
    make(folder / "paris.jpg", "2023:06:10 23:00:00", gps=(48.8566, 2.3522), gps_time=(3, 0, 0))  # camera on NY time
    report = json.loads(_cli("ingest", str(folder), "--json"))
    assert (report["records_added"], report["errors"]) == (len(GPS_TIME_CASES) + 1, [])

    def answer(question):
        return _cli("ask", question).splitlines()[0]

    # 00:30 in Tokyo on 5 May (15:30 UTC on 4 May) was 5 May there
    assert answer("when was I in Tokyo?").startswith("You were in Tokyo, Tokyo, Japan on 5 May 2023 — 1 photo")
    # the sources are listed at the time where they were taken (the JSON keeps UTC)
    listing = _cli("ask", "when was I in Tokyo?")
    assert "photo · 2023-05-05T00:30:00+09:00 — " in listing and "fact · 2023-05-05T00:30:00+09:00 — " in listing
    shown = json.loads(_cli("ask", "when was I in Tokyo?", "--json"))["results"]
    assert {r["when"] for r in shown} == {"2023-05-04T15:30:00+00:00"}
    assert " on 1 October 2022 — 1 photo" in answer("when was I in Kathmandu?")
    assert " on 1 June 2023 — 1 photo" in answer("when was I in Kiritimati?") \
        or " on 1 June 2023 — 1 photo" in answer("when was I in London Village?")
    # a camera on New York time in Paris: 05:00 on 11 June in Paris (the camera read 23:00 on 10 June)
    assert " on 11 June 2023 — 1 photo" in answer("when was I in Paris?")
    # four days in New York: each said, each photo counted (not only the best one's day)
    assert "on 10 January, 12 March, 4 July and 5 November 2023 — 4 photos" in answer("when was I in New York?")
    assert "on 15 January and 15 July 2023 — 2 photos" in answer("when was I in the Chatham Islands?")
    # a day, a month, a year are the calendar where the photos were taken, not UTC's
    assert answer("what happened on 5 May 2023?") == "On 5 May 2023: 1 photo; photos at Tokyo, Tokyo, Japan (1)."
    assert answer("what happened on 4 May 2023?") == "I have nothing from 4 May 2023."
    assert answer("what happened in September 2022?") == "I have nothing from September 2022."
    assert answer("how many photos did I take in 2022?") == "You took 2 photos in 2022, from October 2022 to December 2022."
    assert answer("where was I on 1 October 2022?") == "On 1 October 2022, you were in Kathmandu, Central Region, Nepal (1 photo)."
    assert answer("where was I on 30 September 2022?") == "I have no photo with a known place from 30 September 2022."
    assert answer("where was I on 5 May 2023?") == "On 5 May 2023, you were in Tokyo, Tokyo, Japan (1 photo)."
    assert answer("where was I in November 2023?") == ("In November 2023, you were in New York City, New York, "
                                                       "United States (1 photo, on 5 November 2023).")
    been = answer("where have I been?")
    assert "Kathmandu, Central Region, Nepal (1 photo, on 1 October 2022)" in been
    assert "Waitangi, Chatham Islands, New Zealand (2 photos, first on 15 January 2023)" in been


def test_ask_when_about_a_place_photographed_with_no_time(tmp_path):
    folder = tmp_path / "Scans"
    folder.mkdir()
    make(folder / "porto.jpg", None, gps=(41.1579, -8.6291))  # a position, no time at all
    report = json.loads(_cli("ingest", str(folder), "--json"))
    assert (report["records_added"], report["errors"]) == (1, [])
    out = _cli("ask", "when was I in Porto?")
    assert out.splitlines()[0].startswith("You were in Porto, Porto, Portugal — 1 photo, date unknown [")
    assert "photo · time unknown — " in out


@pytest.mark.parametrize("mtime", [0, 315532800, 946684800])  # 1970-01-01, 1980-01-01 (FAT, zip), 2000-01-01
def test_a_reset_file_modification_time_does_not_discard_the_capture_time(tmp_path, mtime):
    path = make(tmp_path / "IMG_0001.jpg", "2023:05:05 00:30:00", gps=(35.6762, 139.6503), gps_time=(15, 30, 0))
    os.utime(path, (mtime, mtime))
    r = read(path)
    assert r.sent_at == datetime(2023, 5, 4, 15, 30, tzinfo=UTC) and "clock_suspect" not in r.attrs and r.notes == []


def test_a_gps_date_that_agrees_with_the_camera_outweighs_an_earlier_modification_time(tmp_path):
    # modified a year before the camera's time: without the satellites' word the camera is not trusted; the GPS date
    # (4 May UTC, the camera's 5 May at +09:00) confirms it
    gps = {**_PARIS, 7: (RATIONAL, [(15, 1), (30, 1), (0, 1)]), 0x1D: (ASCII, "2023:05:04")}
    gps.update({1: (ASCII, "N"), 2: (RATIONAL, [(35, 1), (40, 1), (3432, 100)]),
                3: (ASCII, "E"), 4: (RATIONAL, [(139, 1), (39, 1), (81, 100)])})  # Tokyo
    confirmed = _exif_photo(tmp_path / "gps.jpg", "2023:05:05 00:30:00", gps)
    bare = make(tmp_path / "bare.jpg", "2023:05:05 00:30:00")
    a_year_before = datetime(2022, 5, 4, tzinfo=UTC).timestamp()
    for path in (confirmed, bare):
        os.utime(path, (a_year_before, a_year_before))
    r = read(confirmed)
    assert r.sent_at == datetime(2023, 5, 4, 15, 30, tzinfo=UTC) and "clock_suspect" not in r.attrs
    unconfirmed = read(bare)
    assert unconfirmed.sent_at is None and unconfirmed.attrs["clock_suspect"].startswith("camera clock looks wrong")

"""Photo time and place from EXIF that cameras and writers get wrong, second pass: each picture is made here with the
exact tags (``tests.ingestors.exif_bytes`` writes any TIFF type: signed rationals, zero denominators, odd strings)
and read through :class:`ingestors.photos.PhotoIngestor`.  The right values are worked out by hand in the comments."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from ingestors.photos import PhotoIngestor
from tests.ingestors.exif_bytes import ASCII, RATIONAL, SRATIONAL, exif_block, jpeg

UTC = timezone.utc
SYDNEY = (-33.8696, 151.2093)


def text(value: str):
    return (ASCII, value)


def read(path, **kwargs):
    (r,) = PhotoIngestor(**kwargs).read(path)
    return r


def photo(path, ifd0=None, exif=None, gps=None):
    """A JPEG carrying exactly these tags (``{tag: (type, values)}``), with Make ``Test`` unless IFD0 is given."""
    return jpeg(path, exif_block({0x010F: text("Test")} if ifd0 is None else ifd0, exif, gps))


# ----------------------------------------------------------------------------- where: signs of GPS positions

def test_a_position_written_as_negative_numbers_and_a_reference_is_not_negated_twice(tmp_path):
    when = {0x9003: text("2023:01:10 10:00:00")}
    # Sydney, 33°52'10.7"S 151°12'33.5"E: -(33 + 52/60 + 10.7/3600) = -33.86964, 151 + 12/60 + 33.5/3600 = 151.20931
    lat_abs, lon = 33 + 52 / 60 + 10.7 / 3600, 151 + 12 / 60 + 33.5 / 3600
    # degrees negative (a signed rational) and the reference S: still south (it was +32.13, at sea off Japan)
    dbl = read(photo(tmp_path / "dbl.jpg", exif=when, gps={
        1: text("S"), 2: (SRATIONAL, [(-33, 1), (52, 1), (1070, 100)]),
        3: text("E"), 4: (SRATIONAL, [(151, 1), (12, 1), (3350, 100)])}))
    assert (dbl.attrs["lat"], dbl.attrs["lon"]) == (pytest.approx(-lat_abs), pytest.approx(lon))
    assert dbl.place.locality == "Sydney" and "at_sea" not in dbl.attrs
    # all three parts negative with S and W (Nueva Palmira, Uruguay, 33°52'10.7"S 58°22'30"W): it was Iran
    uy = read(photo(tmp_path / "uy.jpg", exif=when, gps={
        1: text("S"), 2: (SRATIONAL, [(-33, 1), (-52, 1), (-1070, 100)]),
        3: text("W"), 4: (SRATIONAL, [(-58, 1), (-22, 1), (-3000, 100)])}))
    assert (uy.attrs["lat"], uy.attrs["lon"]) == (pytest.approx(-lat_abs), pytest.approx(-(58 + 22 / 60 + 30 / 3600)))
    assert uy.place.country == "Uruguay"
    # no references at all: the numbers' own sign (it was -32.13, the minutes added to -33)
    bare = read(photo(tmp_path / "bare.jpg", exif=when, gps={
        2: (SRATIONAL, [(-33, 1), (52, 1), (1070, 100)]), 4: (SRATIONAL, [(151, 1), (12, 1), (3350, 100)])}))
    assert bare.attrs["lat"] == pytest.approx(-lat_abs) and bare.place.locality == "Sydney"
    # lower-case references and a single decimal-degrees value
    lower = read(photo(tmp_path / "lower.jpg", exif=when, gps={
        1: text("s"), 2: (RATIONAL, [(33869, 1000)]), 3: text("e"), 4: (RATIONAL, [(151209, 1000)])}))
    assert (lower.attrs["lat"], lower.attrs["lon"]) == (pytest.approx(-33.869), pytest.approx(151.209))
    # a negative number under reference N: the reference is the standard's sign, and the clash is noted
    north = read(photo(tmp_path / "north.jpg", exif=when, gps={
        1: text("N"), 2: (SRATIONAL, [(-43, 1), (28, 1), (0, 1)]), 3: text("E"), 4: (RATIONAL, [(11, 1), (53, 1), (0, 1)])}))
    assert north.attrs["lat"] == pytest.approx(43 + 28 / 60) and north.place.country == "Italy"
    assert "GPS latitude written as a negative number with reference N: read as N" in north.notes


def test_no_fix_at_null_island_is_one_note_and_no_place(tmp_path):
    when = {0x9003: text("2023:01:10 10:00:00")}
    zeros = read(photo(tmp_path / "zero.jpg", exif=when, gps={
        1: text("N"), 2: (RATIONAL, [(0, 0)] * 3), 3: text("E"), 4: (RATIONAL, [(0, 0)] * 3),
        7: (RATIONAL, [(9, 1), (0, 1), (0, 1)])}))
    assert zeros.place is None and "lat" not in zeros.attrs
    assert [n for n in zeros.notes if "GPS" in n] == ["GPS position 0, 0 (a receiver without a fix): not used"]
    # no position, no zone to check a GPS clock against: the camera time in the local zone, labelled
    assert zeros.sent_at == datetime(2023, 1, 10, 10, 0, tzinfo=UTC) and zeros.attrs["time_basis"] == "zone-unknown"


# ----------------------------------------------------------------------------- when: offsets, GPS clocks, midnight

def gps(lat, lon, hms=None, date=None):
    """A GPS IFD: (lat, lon) in decimal degrees through S/W references, GPS time of day ``(h, m, s)`` (each an int
    or a ``(num, den)`` rational) and GPSDateStamp."""
    def dms(x):
        x = abs(x)
        d, m = int(x), int((x - int(x)) * 60)
        return (RATIONAL, [(d, 1), (m, 1), (round(((x - d) * 60 - m) * 60 * 1000), 1000)])

    ifd = {1: text("S" if lat < 0 else "N"), 2: dms(lat), 3: text("W" if lon < 0 else "E"), 4: dms(lon)}
    if hms:
        ifd[7] = (RATIONAL, [v if isinstance(v, tuple) else (v, 1) for v in hms])
    if date:
        ifd[29] = text(date)
    return ifd


NEW_YORK, AREZZO = (40.7128, -74.0060), (43.4637, 11.8807)


def test_an_offset_tag_the_gps_clock_and_the_position_contradict_is_overruled(tmp_path):
    # 14:00 with OffsetTimeOriginal "+04:00" (the sign written backwards) in New York in July (EDT, -04:00); the
    # satellites say 18:00 UTC: 14:00 - 18:00 = -04:00, as the zone at the position says: 18:00Z (it was 10:00Z)
    ny = read(photo(tmp_path / "ny.jpg", exif={0x9003: text("2023:07:01 14:00:00"), 0x9011: text("+04:00")},
                    gps=gps(*NEW_YORK, (18, 0, 0))))
    assert ny.sent_at == datetime(2023, 7, 1, 18, 0, tzinfo=UTC) and ny.sent_at.utcoffset() == timedelta(hours=-4)
    assert ny.attrs["time_basis"] == "gps-time" and ny.attrs["time_zone"] == "America/New_York"
    assert ny.notes == ["offset tag UTC+04:00 disagrees with the GPS time (UTC-04:00), which the time zone at the "
                        "position (America/New_York, UTC-04:00) confirms: the GPS time places it"]
    # a GPS time written in local time (10:12:33, as the camera's): the tag (+02:00) and Italy's CEST agree, the
    # GPS clock alone says UTC: the tag stands, 10:12:33 - 2 h = 08:12:33Z
    it = read(photo(tmp_path / "it.jpg", exif={0x9003: text("2023:05:04 10:12:33"), 0x9011: text("+02:00")},
                    gps=gps(*AREZZO, (10, 12, 33), "2023:05:04")))
    assert it.sent_at == datetime(2023, 5, 4, 8, 12, 33, tzinfo=UTC) and it.attrs["time_basis"] == "offset"
    assert any(n.startswith("GPS time gives UTC+00:00, unlike the offset tag (UTC+02:00)") for n in it.notes)
    # no GPS time: the tag stands (a camera on another zone's time is real), but the clash with the place is said
    alone = read(photo(tmp_path / "alone.jpg", exif={0x9003: text("2023:07:01 14:00:00"), 0x9011: text("+04:00")},
                       gps=gps(*NEW_YORK)))
    assert alone.sent_at == datetime(2023, 7, 1, 10, 0, tzinfo=UTC) and alone.attrs["time_basis"] == "offset"
    assert any("an offset written with the wrong sign" in n for n in alone.notes)


@pytest.mark.parametrize("exif, utc, note", [
    # +02 (hours only): 10:12:33 - 2 h
    ({0x9011: text("+02")}, datetime(2023, 5, 4, 8, 12, 33, tzinfo=UTC), None),
    ({0x9011: text("+0200")}, datetime(2023, 5, 4, 8, 12, 33, tzinfo=UTC), None),
    ({0x9011: text("Z")}, datetime(2023, 5, 4, 10, 12, 33, tzinfo=UTC), None),
    # Nepal, +05:45: 10:12:33 - 5:45 = 04:27:33
    ({0x9011: text("+05:45")}, datetime(2023, 5, 4, 4, 27, 33, tzinfo=UTC), None),
    # only OffsetTime (DateTime's offset), no DateTime that could differ: -04:00, 14:12:33Z
    ({0x9010: text("-04:00")}, datetime(2023, 5, 4, 14, 12, 33, tzinfo=UTC), "offset taken from OffsetTime"),
    # the standard's blank "unknown": the settings' zone (UTC here), no complaint about the tag
    ({0x9011: text("   :  ")}, datetime(2023, 5, 4, 10, 12, 33, tzinfo=UTC), None),
    ({0x9011: text("+25:00")}, datetime(2023, 5, 4, 10, 12, 33, tzinfo=UTC), "offset tag OffsetTimeOriginal unreadable"),
])
def test_offset_tags_as_writers_write_them(tmp_path, exif, utc, note):
    r = read(photo(tmp_path / "o.jpg", exif={0x9003: text("2023:05:04 10:12:33"), **exif}))
    assert r.sent_at == utc
    assert any(n.startswith(note) for n in r.notes) if note else all("offset" not in n for n in r.notes)


def test_an_offset_and_a_fraction_written_into_the_time_itself(tmp_path):
    # "2023:05:04 10:12:33.450+02:00": 08:12:33Z, 0.45 s kept beside it (it was read as zone-unknown, UTC 10:12:33)
    r = read(photo(tmp_path / "t.jpg", exif={0x9003: text("2023:05:04 10:12:33.450+02:00")}))
    assert r.sent_at == datetime(2023, 5, 4, 8, 12, 33, tzinfo=UTC) and r.attrs["time_basis"] == "offset"
    assert r.attrs["subsec_us"] == 450000
    # with a DateTime that differs (saved later, elsewhere), OffsetTime is DateTime's and is not borrowed
    r = read(photo(tmp_path / "t2.jpg", ifd0={0x010F: text("Test"), 0x0132: text("2024:01:01 09:00:00")},
                   exif={0x9003: text("2023:05:04 10:12:33"), 0x9010: text("-08:00")}))
    assert r.attrs["time_basis"] == "zone-unknown" and r.sent_at == datetime(2023, 5, 4, 10, 12, 33, tzinfo=UTC)


@pytest.mark.parametrize("when, position, hms, gps_date, utc, offset, zone", [
    # New Delhi (+05:30) 10 min after local midnight: 00:10 - 5:30 = 18:40 the day before; the GPS date says the
    # local date (a day ahead of UTC's): not used
    ("2023:03:02 00:10:00", (28.6139, 77.2090), (18, 40, 0), "2023:03:02",
     datetime(2023, 3, 1, 18, 40, tzinfo=UTC), timedelta(hours=5, minutes=30), "Asia/Kolkata"),
    # Kathmandu (+05:45): 00:05 - 5:45 = 18:20 the day before
    ("2023:03:02 00:05:00", (27.7172, 85.3240), (18, 20, 0), None,
     datetime(2023, 3, 1, 18, 20, tzinfo=UTC), timedelta(hours=5, minutes=45), "Asia/Kathmandu"),
    # Adelaide in summer (ACDT, +10:30): 09:00 - 10:30 = 22:30 the day before
    ("2023:01:10 09:00:00", (-34.9285, 138.6007), (22, 30, 0), "2023:01:10",
     datetime(2023, 1, 9, 22, 30, tzinfo=UTC), timedelta(hours=10, minutes=30), "Australia/Adelaide"),
    # Adelaide in winter (ACST, +09:30): 23:50 - 9:30 = 14:20 the same day
    ("2023:07:10 23:50:00", (-34.9285, 138.6007), (14, 20, 0), "2023:07:11",
     datetime(2023, 7, 10, 14, 20, tzinfo=UTC), timedelta(hours=9, minutes=30), "Australia/Adelaide"),
    # Chatham Islands in summer (+13:45): 00:30 - 13:45 = 10:45 the day before
    ("2023:01:10 00:30:00", (-43.95, -176.55), (10, 45, 0), "2023:01:08",
     datetime(2023, 1, 9, 10, 45, tzinfo=UTC), timedelta(hours=13, minutes=45), "Pacific/Chatham"),
    # Honolulu (-10:00) at 20:00 is 06:00 the next day in UTC; the GPS date is a day behind: not used
    ("2023:06:01 20:00:00", (21.3069, -157.8583), (6, 0, 0), "2023:06:01",
     datetime(2023, 6, 2, 6, 0, tzinfo=UTC), timedelta(hours=-10), "Pacific/Honolulu"),
    # a GPS second with a fraction (39.25 s) against the camera's 16:28:39: +02:00 (the regression's kind)
    ("2008:10:22 16:28:39", AREZZO, (14, 27, (3925, 100)), "2008:10:21",
     datetime(2008, 10, 22, 14, 28, 39, tzinfo=UTC), timedelta(hours=2), "Europe/Rome"),
])
def test_gps_clock_near_midnight_in_half_and_three_quarter_hour_zones(tmp_path, when, position, hms, gps_date, utc,
                                                                      offset, zone):
    r = read(photo(tmp_path / "m.jpg", exif={0x9003: text(when)}, gps=gps(*position, hms, gps_date)))
    assert r.sent_at == utc and r.sent_at.utcoffset() == offset
    assert (r.attrs["time_basis"], r.attrs["time_zone"]) == ("gps-time", zone)
    assert r.text.startswith(f"Photo taken {when[:10].replace(':', '-')} {when[11:16]}")  # the local date
    assert [n for n in r.notes if "GPS" in n or "offset" in n] == []


def test_the_hour_the_clocks_go_back_is_told_apart_by_the_gps_clock(tmp_path):
    # New York, 5 Nov 2023: 01:30 happened at -04:00 (05:30Z) and again at -05:00 (06:30Z)
    first = read(photo(tmp_path / "a.jpg", exif={0x9003: text("2023:11:05 01:30:00")}, gps=gps(*NEW_YORK, (5, 30, 0))))
    second = read(photo(tmp_path / "b.jpg", exif={0x9003: text("2023:11:05 01:30:00")}, gps=gps(*NEW_YORK, (6, 30, 0))))
    assert first.sent_at == datetime(2023, 11, 5, 5, 30, tzinfo=UTC) and first.sent_at.utcoffset() == timedelta(hours=-4)
    assert second.sent_at == datetime(2023, 11, 5, 6, 30, tzinfo=UTC)
    assert second.sent_at.utcoffset() == timedelta(hours=-5)  # it was "camera on UTC-05:00, not the local time"
    assert second.attrs["time_zone"] == "America/New_York" and second.notes == [] and first.notes == []
    # Sydney, 2 Apr 2023 (southern autumn): 02:30 was at +11:00 (15:30Z on 1 Apr) and at +10:00 (16:30Z)
    syd = read(photo(tmp_path / "s.jpg", exif={0x9003: text("2023:04:02 02:30:00")}, gps=gps(*SYDNEY, (16, 30, 0))))
    assert syd.sent_at == datetime(2023, 4, 1, 16, 30, tzinfo=UTC) and syd.sent_at.utcoffset() == timedelta(hours=10)
    assert syd.attrs["time_zone"] == "Australia/Sydney" and syd.notes == []
    # no GPS clock: the first 01:30 (EDT), said; and 02:30 on 12 Mar 2023 never happened in New York: the camera's
    # clock was still on EST, 02:30 + 5 h = 07:30Z
    twice = read(photo(tmp_path / "c.jpg", exif={0x9003: text("2023:11:05 01:30:00")}, gps=gps(*NEW_YORK)))
    assert twice.sent_at == datetime(2023, 11, 5, 5, 30, tzinfo=UTC) and "happened twice" in twice.notes[0]
    gap = read(photo(tmp_path / "d.jpg", exif={0x9003: text("2023:03:12 02:30:00")}, gps=gps(*NEW_YORK)))
    assert gap.sent_at == datetime(2023, 3, 12, 7, 30, tzinfo=UTC) and "did not happen" in gap.notes[0]


# ----------------------------------------------------------------------------- which time tag

def test_impossible_and_blank_capture_times_fall_back_and_say_so(tmp_path):
    # 30 February at 25:61: noted, DateTimeDigitized used (with its +01:00: 09:00Z)
    bad = read(photo(tmp_path / "bad.jpg", exif={0x9003: text("2019:02:30 25:61:00"), 0x9004: text("2019:02:28 10:00:00"),
                                                 0x9012: text("+01:00")}))
    assert bad.sent_at == datetime(2019, 2, 28, 9, 0, tzinfo=UTC) and bad.attrs["time_tag"] == "DateTimeDigitized"
    assert "DateTimeOriginal unreadable ('2019:02:30 25:61:00'): not a date and time" in bad.notes
    assert bad.attrs["datetime_original"] == "2019:02:30 25:61:00"  # kept as written
    # the standard's "unknown" (zeros, blanks) is no fault to report
    for i, unknown in enumerate(("0000:00:00 00:00:00", "    :  :     :  :  ")):
        r = read(photo(tmp_path / f"u{i}.jpg", exif={0x9003: text(unknown), 0x9004: text("2019:02:28 10:00:00")}))
        assert r.attrs["time_tag"] == "DateTimeDigitized" and not any("unreadable" in n for n in r.notes)


def test_a_files_save_time_is_not_when_the_picture_was_taken(tmp_path):
    # only DateTime, from a camera (make and model, no editor): its own save time, so "taken", but labelled
    cam = read(photo(tmp_path / "cam.jpg", ifd0={0x010F: text("OLYMPUS"), 0x0110: text("C-2000Z"),
                                                 0x0132: text("2001:07:14 11:20:05")}))
    assert cam.sent_at == datetime(2001, 7, 14, 11, 20, 5, tzinfo=UTC) and cam.attrs["time_tag"] == "DateTime"
    assert cam.text.startswith("Photo taken 2001-07-14 11:20") and "save_time" not in cam.attrs
    # scanned: no camera named, DateTime is the scan: kept (it is a date of the file) but "saved", not "taken"
    scan = read(photo(tmp_path / "scan.jpg", ifd0={0x0132: text("2019:02:28 10:00:00")}))
    assert scan.text == "Photo saved 2019-02-28 10:00" and scan.attrs["save_time"] is True
    assert any(n.startswith("time from DateTime, when the file was last saved with no camera named (a scan")
               for n in scan.notes)
    # an editor stripped DateTimeOriginal: its save time, named
    ed = read(photo(tmp_path / "ed.jpg", ifd0={0x010F: text("Canon"), 0x0110: text("Canon EOS 40D"),
                                               0x0131: text("Adobe Photoshop CS6 (Windows)"),
                                               0x0132: text("2019:02:28 10:00:00")}))
    assert ed.attrs["save_time"] is True and ed.text.startswith("Photo saved 2019-02-28 10:00")
    assert any("by Adobe Photoshop CS6 (Windows)" in n for n in ed.notes)
    # edited years later with DateTimeOriginal kept: taken when the camera says, the save time only kept
    later = read(photo(tmp_path / "later.jpg", ifd0={0x010F: text("Canon"), 0x0131: text("GIMP 2.10"),
                                                     0x0132: text("2019:02:28 10:00:00")},
                       exif={0x9003: text("2012:05:01 10:00:00"), 0x9011: text("+02:00")}))
    assert later.sent_at == datetime(2012, 5, 1, 8, 0, tzinfo=UTC) and later.attrs["time_tag"] == "DateTimeOriginal"
    assert later.attrs["datetime"] == "2019:02:28 10:00:00" and "save_time" not in later.attrs


def test_a_burst_in_one_second_is_two_photos_in_order(tmp_path):
    base = {0x9003: text("2023:05:04 10:12:33"), 0x9011: text("+02:00")}
    a = read(photo(tmp_path / "IMG_0001.jpg", exif={**base, 0x9291: text("10")}))
    b = read(photo(tmp_path / "IMG_0002.jpg", exif={**base, 0x9291: text("55")}))
    assert a.sent_at == b.sent_at == datetime(2023, 5, 4, 8, 12, 33, tzinfo=UTC)
    assert (a.attrs["subsec_us"], b.attrs["subsec_us"]) == (100000, 550000) and a.content_hash != b.content_hash


# ----------------------------------------------------------------------------- times outside EXIF; damaged files

XMP = ('<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF '
       'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" '
       'xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/">'
       '<xmp:CreateDate>2011-01-01T00:00:00Z</xmp:CreateDate>'
       '<photoshop:DateCreated>2023-05-04T10:12:33+02:00</photoshop:DateCreated>'
       '<exif:UserComment>Screenshot</exif:UserComment></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="r"?>')


def test_screenshots_timed_by_xmp_or_the_png_creation_time(tmp_path):
    from PIL import Image, PngImagePlugin

    # an iPhone/macOS screenshot: no EXIF, XMP photoshop:DateCreated 10:12:33+02:00 = 08:12:33Z (xmp:CreateDate,
    # which design tools write for their documents, is not a capture time)
    info = PngImagePlugin.PngInfo()
    info.add_itxt("XML:com.adobe.xmp", XMP)
    Image.new("RGB", (8, 8)).save(tmp_path / "IMG_0007.PNG", pnginfo=info)
    shot = read(tmp_path / "IMG_0007.PNG")
    assert shot.sent_at == datetime(2023, 5, 4, 8, 12, 33, tzinfo=UTC) and shot.attrs["time_basis"] == "offset"
    assert shot.attrs["time_tag"] == "XMP photoshop:DateCreated"
    assert any(n.startswith("time taken from XMP photoshop:DateCreated") for n in shot.notes)
    Image.new("RGB", (8, 8)).save(tmp_path / "export.jpg", xmp=XMP.encode())  # the same in a JPEG's XMP
    assert read(tmp_path / "export.jpg").sent_at == datetime(2023, 5, 4, 8, 12, 33, tzinfo=UTC)
    # PNG "Creation Time" in RFC 1123 (the PNG specification's form): Thu, 04 May 2023 10:12:33 -0700 = 17:12:33Z
    info = PngImagePlugin.PngInfo()
    info.add_text("Creation Time", "Thu, 04 May 2023 10:12:33 -0700")
    Image.new("RGB", (8, 8)).save(tmp_path / "chart.png", pnginfo=info)
    png = read(tmp_path / "chart.png")
    assert png.sent_at == datetime(2023, 5, 4, 17, 12, 33, tzinfo=UTC) and png.attrs["time_tag"] == "PNG Creation Time"
    # in EXIF's own form, with no zone: the settings' zone (Europe/Berlin, CEST +02:00): 08:12:33Z
    info = PngImagePlugin.PngInfo()
    info.add_text("Creation Time", "2023:05:04 10:12:33")
    Image.new("RGB", (8, 8)).save(tmp_path / "chart2.png", pnginfo=info)
    berlin = read(tmp_path / "chart2.png", local_timezone="Europe/Berlin")
    assert berlin.sent_at == datetime(2023, 5, 4, 8, 12, 33, tzinfo=UTC) and berlin.attrs["time_basis"] == "zone-unknown"


def whole_jpeg(path):
    """A 160×120 noisy JPEG (some kilobytes of picture data) with a capture time and an offset."""
    import random

    from PIL import Image

    rng = random.Random(7)
    image = Image.frombytes("RGB", (160, 120), bytes(rng.randrange(256) for _ in range(160 * 120 * 3)))
    image.save(path, format="JPEG", exif=exif_block({0x010F: text("Test")},
                                                    {0x9003: text("2023:05:04 10:12:33"), 0x9011: text("+02:00")}))
    return path


def test_a_jpeg_cut_short_is_a_clear_error_naming_the_file(tmp_path):
    from core.errors import InputError

    data = whole_jpeg(tmp_path / "whole.jpg").read_bytes()
    assert read(tmp_path / "whole.jpg").sent_at == datetime(2023, 5, 4, 8, 12, 33, tzinfo=UTC)
    for size in (len(data) // 2, len(data) - 100, 300):  # half the picture; all but its last bytes; inside the EXIF
        cut = tmp_path / f"cut{size}.jpg"
        cut.write_bytes(data[:size])
        with pytest.raises(InputError) as err:
            read(cut)
        assert err.value.path == str(cut)
        assert err.value.reason.startswith(("truncated JPEG", "damaged JPEG")), err.value.reason
    half = tmp_path / "half.jpg"
    half.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=rf"truncated JPEG \({len(data) // 2} bytes; the picture stops before its end"):
        read(half)
    # data after the end marker (a phone's motion-photo video, a maker's trailer) is no damage
    (tmp_path / "motion.jpg").write_bytes(data + b"\x00\x00\x00\x18ftypmp42" + bytes(500))
    assert read(tmp_path / "motion.jpg").sent_at == datetime(2023, 5, 4, 8, 12, 33, tzinfo=UTC)


def test_a_png_named_jpg_is_read_as_what_it_is(tmp_path):
    from PIL import Image

    block = exif_block({0x010F: text("Test")}, {0x9003: text("2023:05:04 10:12:33"), 0x9011: text("+09:00")})
    Image.new("RGB", (8, 8)).save(tmp_path / "IMG_0042.jpg", format="PNG", exif=block)  # 10:12:33 - 9 h
    r = read(tmp_path / "IMG_0042.jpg")
    assert r.sent_at == datetime(2023, 5, 4, 1, 12, 33, tzinfo=UTC) and r.attrs["time_basis"] == "offset"


def test_orientation_has_nothing_to_do_with_time(tmp_path):
    r = read(photo(tmp_path / "rot.jpg", ifd0={0x010F: text("Test"), 0x0112: (3, [6])},
                   exif={0x9003: text("2023:05:04 10:12:33"), 0x9011: text("+02:00")}))
    assert r.attrs["orientation_code"] == 6 and r.sent_at == datetime(2023, 5, 4, 8, 12, 33, tzinfo=UTC)

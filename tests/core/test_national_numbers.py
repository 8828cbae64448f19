"""A phone number written without its country code for another country than the default region (pass 24 on
``imessage_shortcode_sender``'s kind: one number in many formats is one entity).  A UK phone's contact card says
"07700 900123"; with the default region US that is no number, so the card lost it and its person stayed apart from
the +44 7700 900123 of their iMessage and WhatsApp handles."""
from __future__ import annotations

from core.graph.contacts import resolve_card
from core.graph.resolution import national_match, resolve


def card(cid, name, phones, emails=()):
    return {"contact_id": cid, "kind": "person", "name": name, "names": [name], "nicknames": [],
            "phones": [{"value": p, "types": []} for p in phones], "emails": [{"value": e, "types": []} for e in emails],
            "handles": []}


def test_a_national_number_on_a_card_is_the_known_international_one(s):
    handle = resolve(s, "person", None, "+447700900123", "phone", "US").entity
    out = resolve_card(s, card("c1", "Sam Hale", ["07700 900123"], ["sam@hale.example"]), "US")
    s.flush()
    assert out.entity.id == handle.id or handle.tombstoned_at is not None  # one person: the card joined the handle
    assert resolve(s, "person", None, "+44 7700 900123", "phone", "US").entity.id == out.entity.id


def test_the_international_number_arriving_after_the_card_finds_it(s):
    out = resolve_card(s, card("c1", "Sam Hale", ["07700 900123"]), "US")
    s.flush()
    later = resolve(s, "person", None, "+447700900123", "phone", "US").entity
    assert later.id == out.entity.id


def test_a_national_number_matches_only_one_known_number_of_its_digits(s):
    resolve(s, "person", None, "+447700900123", "phone", "US")
    assert national_match(s, "07700 900123") == "+447700900123"
    assert national_match(s, "07700 900124") is None
    assert national_match(s, "900123") is None  # too short to be sure
    resolve(s, "person", None, "+917700900123", "phone", "US")  # the same digits in India: which one?
    assert national_match(s, "07700 900123") is None

"""Contact cards as identities (``core/graph/contacts.py``) on a small store the tests build: which identifiers a
card gives, what it joins, and what it never does."""
from __future__ import annotations

from sqlmodel import select

from core.graph.contacts import card_identifiers, resolve_card
from core.graph.owner import ensure_owner
from core.graph.resolution import resolve
from core.store.schema import Alias, Entity, MergeCandidate


def card(cid: str, name: str = "", phones=(), emails=(), handles=(), kind: str = "person", **more) -> dict:
    return {"contact_id": cid, "kind": kind, "name": name, "names": [name] if name else [], "nicknames": [],
            "phones": [{"value": p, "types": []} for p in phones], "emails": [{"value": e, "types": []} for e in emails],
            "handles": [{"service": sv, "value": v} for sv, v in handles], **more}


def test_the_identifiers_of_a_card():
    got, notes = card_identifiers(card("c", "Ann Lee", phones=["(617) 555-0101", "22000", "not a number"],
                                       emails=["Ann@Example.COM", "info@shop.example"],
                                       handles=[("telegram", "annlee")]), region="US")
    assert got == [("phone", "(617) 555-0101", "+16175550101"), ("email", "Ann@Example.COM", "ann@example.com"),
                   ("handle", "telegram:annlee", "telegram:annlee")]
    assert notes == ["22000 is an SMS short code or sender ID, not a person's number: not an alias",
                     "'not a number' is not a phone number: not an alias",
                     "info@shop.example is a role address (shared by many): not an alias of a person"]
    org, _ = card_identifiers(card("o", "Shop", emails=["info@shop.example"], kind="organisation"))
    assert org == [("email", "info@shop.example", "info@shop.example")]  # an organisation's own role address


def test_a_card_merges_everyone_it_lists_into_one_new_entity(s):
    sms = resolve(s, "person", None, "+1 617 555 0101", "phone").entity
    mail = resolve(s, "person", "Ann", "ann@example.com").entity
    out = resolve_card(s, card("c1", "Ann Lee", phones=["617-555-0101"], emails=["ann@example.com"]))
    assert out.created and out.entity.id not in (sms.id, mail.id)
    mcs = s.exec(select(MergeCandidate).where(MergeCandidate.status == "merged").order_by(MergeCandidate.id)).all()
    assert [(m.a_id, m.b_id, m.signal, m.detail["hold"]) for m in mcs] == [
        (out.entity.id, sms.id, "contact", False), (out.entity.id, mail.id, "contact", False)]
    assert [m.reason for m in mcs] == ["617-555-0101 is on the contact card of Ann Lee",
                                       "ann@example.com is on the contact card of Ann Lee"]
    assert s.get(Entity, sms.id).tombstoned_at is not None and s.get(Entity, mail.id).tombstoned_at is not None
    kinds = {(a.kind, a.normalized, a.card) for a in s.exec(select(Alias).where(Alias.entity_id == out.entity.id))}
    assert kinds == {("phone", "+16175550101", "c1"), ("email", "ann@example.com", "c1"), ("name", "ann lee", "c1"),
                     ("name", "ann", None), ("contact", "c1", "c1")}
    again = resolve_card(s, card("c1", "Ann Lee", phones=["617-555-0101"], emails=["ann@example.com"]))
    assert (again.entity.id, again.created, again.merges) == (out.entity.id, False, [])


def test_the_owners_own_card_joins_the_owner(s):
    me = ensure_owner(s, "Nic Owner", ["nic@owner.example"])
    out = resolve_card(s, card("me", "Nicola Owner", phones=["+44 7700 900123"], emails=["nic@owner.example"]),
                       owner_name="Nic Owner", owner_emails=["nic@owner.example"])
    assert out.entity.id == me.id and out.entity.is_owner and out.entity.canonical_name == "Nic Owner"
    assert ("phone", "+447700900123") in {(a.kind, a.normalized) for a in
                                         s.exec(select(Alias).where(Alias.entity_id == me.id)).all()}


def test_an_organisation_card_is_a_thing_and_never_takes_a_person(s):
    person = resolve(s, "person", "Dr Ruiz", "+1 212 555 0100", "phone").entity
    out = resolve_card(s, card("o1", "City Dental Clinic", phones=["+1 212 555 0100"], kind="organisation"))
    assert out.entity.kind == "thing" and out.entity.id != person.id
    assert s.get(Entity, person.id).tombstoned_at is None

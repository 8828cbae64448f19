"""Variants of ``mbox_two_people_named_alex.mbox`` (issue 13's kind), written by the tests and read through the
real import: two people with one full name are never silently merged; the same name without accents is the
same name; a first name alone is not the one full-name person with that first name."""
from __future__ import annotations

from sqlmodel import select

from app.operations.graph import profile
from app.operations.ingest import ingest
from app.operations.review import list_reviews
from core.store.schema import Entity, MergeCandidate
from helpers.mboxes import write_raw_mbox




def people(s, name):
    return s.exec(select(Entity).where(Entity.canonical_name == name, Entity.tombstoned_at.is_(None),
                                       Entity.kind == "person").order_by(Entity.id)).all()


def test_two_sam_lees_at_two_companies_and_one_on_whatsapp_stay_three_with_suggestions(container, tmp_path):
    ingest(container, [write_raw_mbox(tmp_path / "sam.mbox", [
        ("Sam Lee <sam@acme.example>", "Mon, 06 Mar 2023 09:00:00 +0000", "hi", "I work at Acme now."),
        ('"Lee, Sam" <sam.lee@globex.example>', "Tue, 07 Mar 2023 09:00:00 +0000", "hey",
         "I work at Globex these days. I live in Leeds.")])])
    wa = tmp_path / "WhatsApp Chat with Sam Lee.txt"
    wa.write_text("08/03/2023, 10:00 - +44 7700 900123: I live in York.\n", encoding="utf-8")
    ingest(container, [wa])
    with container.db.session() as s:
        sams = people(s, "Sam Lee")
        assert len(sams) == 2  # the two mail senders (the chat shows only a number)
        assert s.exec(select(MergeCandidate).where(MergeCandidate.status == "merged")).all() == []
    acme, globex = (profile(container, e.id) for e in sams)
    assert [f.value for f in acme.current if f.key == "employer"] == ["Acme"] and acme.history == []
    assert [f.value for f in globex.current if f.key in ("employer", "home")] == ["Globex", "Leeds"]
    (item,) = list_reviews(container)  # waits for the person: not "Nothing to review"
    assert ({item.a_id, item.b_id}, item.signal, item.status) == ({e.id for e in sams}, "full_name", "pending")


def test_accents_and_case_are_one_name_where_one_side_has_no_address(container, tmp_path):
    wa = tmp_path / "WhatsApp Chat with José García.txt"
    wa.write_text("08/03/2023, 10:00 - José García: Hola!\n08/03/2023, 10:01 - Owner: Hi\n", encoding="utf-8")
    ingest(container, [wa])
    ingest(container, [write_raw_mbox(tmp_path / "jose.mbox", [
        ("JOSE GARCIA <jose@garcia.example>", "Thu, 09 Mar 2023 09:00:00 +0000", "hi", "I live in Seville.")])])
    with container.db.session() as s:
        (jose,) = people(s, "José García")
        assert people(s, "JOSE GARCIA") == []
    p = profile(container, jose.id)
    assert [f.value for f in p.current if f.key == "home"] == ["Seville"]
    assert {a["value"] for a in p.aliases if a["kind"] == "email"} == {"jose@garcia.example"}


def test_a_first_name_alone_at_another_address_is_not_the_full_name_person(container, tmp_path):
    ingest(container, [write_raw_mbox(tmp_path / "alex.mbox", [
        ("Alex Morgan <alex.morgan@north.example>", "Mon, 06 Mar 2023 09:00:00 +0000", "a", "I work at Northwind."),
        ("Alex <alex77@gmail.com>", "Tue, 07 Mar 2023 09:00:00 +0000", "b", "I work at Southbank.")])])
    with container.db.session() as s:
        (morgan,), (alex,) = people(s, "Alex Morgan"), people(s, "Alex")
    assert [f.value for f in profile(container, morgan.id).current if f.key == "employer"] == ["Northwind"]
    assert [f.value for f in profile(container, alex.id).current if f.key == "employer"] == ["Southbank"]
    (item,) = list_reviews(container)
    assert {item.a_id, item.b_id} == {morgan.id, alex.id}

"""Who is who, stop 27 (red team rt4 F3, F4): a name alone never picks one of several people, and one company's mail
domain never merges two people with the same full name at different addresses.

F3: "Mia Chen" from a WhatsApp export (no address) went to the first of two mail "Mia Chen"s, "exact_name
(definitive)", with no review item; "Sam Lee via Climbing Club" (the list's address stripped) went to one of two
"Sam Lee"s still pending review.  F4: "John Smith" <john.smith@bigcorp.com> and "John Smith" <jsmith2@bigcorp.com>
("I'm the other John Smith") were merged by the company-domain rule.
"""
from __future__ import annotations

import pytest
from sqlmodel import select

from core.graph.parties import claim_phone, claim_signed_email
from core.graph.resolution import Context, NameIndex, resolve
from core.store.db import Database
from core.store.schema import Entity, MergeCandidate


@pytest.fixture
def s(tmp_path):
    """An open session on a fresh SQLite store of the test's own."""
    db = Database(tmp_path / "k.sqlite3")
    with db.session() as session:
        yield session
    db.close()


def _rows(s, status: str | None = None) -> set[tuple[int, int, str, str]]:
    q = select(MergeCandidate)
    if status:
        q = q.where(MergeCandidate.status == status)
    return {(m.a_id, m.b_id, m.signal, m.status) for m in s.exec(q).all()}


# ------------------------------------------------------------------------------------------------ F3

def test_a_name_only_sender_is_not_attached_to_either_of_two_people_with_that_name(s):
    index = NameIndex()
    a = resolve(s, "person", "Mia Chen", "mia.chen@yahoo.co.uk", index=index)
    b = resolve(s, "person", "Mia Chen", "mia.chen@hotmail.fr", index=index)
    assert b.entity.id != a.entity.id and _rows(s) == {(a.entity.id, b.entity.id, "full_name", "pending")}
    wa = resolve(s, "person", "Mia Chen", None, address_kind="phone", index=index,
                 context=Context(thread="whatsapp:mia"))
    assert wa.created and wa.entity.id not in (a.entity.id, b.entity.id)
    assert (wa.signal, wa.score) == ("full_name", 0.8) and wa.review_id is not None
    assert _rows(s, "pending") == {(a.entity.id, b.entity.id, "full_name", "pending"),
                                   (a.entity.id, wa.entity.id, "full_name", "pending"),
                                   (b.entity.id, wa.entity.id, "full_name", "pending")}
    assert _rows(s, "merged") == set()
    mc = s.get(MergeCandidate, wa.review_id)
    assert mc.reason == (f"'Mia Chen' is known only by name, and 2 people go by it (Mia Chen (#{a.entity.id}), "
                         f"Mia Chen (#{b.entity.id})): which one, if any, is for you to say")
    assert s.get(Entity, a.entity.id).tombstoned_at is None and s.get(Entity, b.entity.id).tombstoned_at is None
    # the chat's next message is the same (held) person, by the thread
    again = resolve(s, "person", "Mia Chen", None, address_kind="phone", index=index,
                    context=Context(thread="whatsapp:mia"))
    assert (again.entity.id, again.signal) == (wa.entity.id, "thread")


def test_a_name_only_sender_with_one_person_of_that_name_still_joins_them(s):
    index = NameIndex()
    ana = resolve(s, "person", "Ana Ruiz", "ana.ruiz@globex.com", index=index)
    wa = resolve(s, "person", "Ana Ruiz", None, address_kind="phone", index=index,
                 context=Context(thread="whatsapp:ana"))
    assert (wa.entity.id, wa.created, wa.signal) == (ana.entity.id, False, "exact_name")
    assert _rows(s, "pending") == set()


def test_a_name_only_sender_and_one_person_with_a_pending_review_about_that_name_is_held(s):
    """"José García" and "Jose Garcia" (two addresses, a pending suggestion): "Jose Garcia" known only by name may be
    either — the exact lookup finds one of them, the pending review says the other goes by the same name."""
    index = NameIndex()
    a = resolve(s, "person", "José García", "jose@garcia-family.net", index=index)
    b = resolve(s, "person", "Jose Garcia", "jgarcia@hooli.com", index=index)
    assert _rows(s, "pending") == {(a.entity.id, b.entity.id, "fuzzy_review", "pending")}
    wa = resolve(s, "person", "Jose Garcia", None, address_kind="phone", index=index,
                 context=Context(thread="whatsapp:jose"))
    assert wa.created and wa.entity.id not in (a.entity.id, b.entity.id)
    assert {(m.a_id, m.b_id, m.signal) for m in s.exec(select(MergeCandidate).where(
        MergeCandidate.b_id == wa.entity.id)).all()} == {(a.entity.id, wa.entity.id, "full_name"),
                                                          (b.entity.id, wa.entity.id, "full_name")}
    assert _rows(s, "merged") == set()


def test_a_bare_name_known_only_by_name_is_not_joined_to_one_of_two_people_called_so(s):
    index = NameIndex()
    mom = resolve(s, "person", "Mom", None, address_kind="phone", index=index, context=Context(thread="wa:1"))
    again = resolve(s, "person", "Mom", None, address_kind="phone", index=index, context=Context(thread="wa:2"))
    assert (again.entity.id, again.signal) == (mom.entity.id, "bare_name")  # one "Mom": as before
    other = resolve(s, "person", "Mom", "+44 7700 900123", "phone", index=index)
    assert other.entity.id != mom.entity.id and other.review_id is not None
    third = resolve(s, "person", "Mom", None, address_kind="phone", index=index, context=Context(thread="wa:3"))
    assert third.created and third.entity.id not in (mom.entity.id, other.entity.id)
    assert (third.signal, third.score) == ("first_name", 0.6)
    assert {(m.a_id, m.signal) for m in s.exec(select(MergeCandidate).where(
        MergeCandidate.b_id == third.entity.id)).all()} == {(mom.entity.id, "first_name"),
                                                             (other.entity.id, "first_name")}


def test_ingest_whatsapp_and_list_posts_by_name_go_to_no_one_of_several(container, tmp_path):
    """The red team's inputs in small: two mail "Mia Chen"s, then a WhatsApp export with "Mia Chen"; two "Sam Lee"s,
    then "Sam Lee via Climbing Club" from the list's address (no Reply-To)."""
    from app.operations.ingest import ingest
    from app.operations.review import list_reviews
    from helpers.mboxes import write_raw_mbox

    mbox = write_raw_mbox(tmp_path / "m.mbox", [
        ("Mia Chen <mia.chen@yahoo.co.uk>", "Mon, 06 Mar 2023 09:00:00 +0000", "a", "Hello from London."),
        ("Mia Chen <mia.chen@hotmail.fr>", "Tue, 07 Mar 2023 09:00:00 +0000", "b", "Bonjour."),
        ("Sam Lee <sam.lee@gmail.com>", "Wed, 08 Mar 2023 09:00:00 +0000", "c", "Hi there."),
        ("Sam Lee <sam.lee@initech.com>", "Thu, 09 Mar 2023 09:00:00 +0000", "d", "Quarterly report attached."),
        ("Sam Lee via Climbing Club <climb@googlegroups.com>", "Fri, 10 Mar 2023 09:00:00 +0000", "e",
         "Selling my harness at Bouldervault."),
    ])
    chat = tmp_path / "WhatsApp Chat with Mia Chen.txt"
    chat.write_text("03/05/2024, 09:00 - Mia Chen: Hello from Paris\n03/05/2024, 09:01 - Me Owner: hi\n",
                    encoding="utf-8")
    container.settings.owner_name, container.settings.owner_emails = "Me Owner", ["owner@example.net"]
    ingest(container, [mbox, chat])
    with container.db.session() as s:
        people = {}
        for e in s.exec(select(Entity).where(Entity.kind == "person", Entity.tombstoned_at.is_(None))).all():
            people.setdefault(e.canonical_name, []).append(e.id)
    assert len(people["Mia Chen"]) == 3 and len(people["Sam Lee"]) == 3
    pending = [(r.a_name, r.b_name, r.signal) for r in list_reviews(container)]
    assert pending.count(("Mia Chen", "Mia Chen", "full_name")) == 3   # the two by mail, and each with the chat's
    assert pending.count(("Sam Lee", "Sam Lee", "full_name")) == 3     # the two by mail, and each with the list's
    assert [r for r in list_reviews(container, "merged") if r.a_name in ("Mia Chen", "Sam Lee")] == []


# ------------------------------------------------------------------------------------------------ F4

def test_same_full_name_at_one_company_domain_is_a_suggestion_not_a_merge(s):
    index = NameIndex()
    a = resolve(s, "person", "John Smith", "john.smith@bigcorp.com", index=index)
    b = resolve(s, "person", "John Smith", "jsmith2@bigcorp.com", index=index)
    assert b.created and b.entity.id != a.entity.id and (b.signal, b.score) == ("full_name", 0.8)
    assert _rows(s) == {(a.entity.id, b.entity.id, "full_name", "pending")}
    mc = s.get(MergeCandidate, b.review_id)
    assert mc.reason == ("same full name 'John Smith' only at one company's mail domain (bigcorp.com), different "
                         "identifiers (jsmith2@bigcorp.com vs john.smith@bigcorp.com)")
    # each address finds its own John Smith again
    assert resolve(s, "person", "John Smith", "john.smith@bigcorp.com", index=index).entity.id == a.entity.id
    assert resolve(s, "person", "John Smith", "jsmith2@bigcorp.com", index=index).entity.id == b.entity.id


def test_a_full_name_learnt_late_at_one_company_domain_is_a_suggestion(s):
    index = NameIndex()
    u = resolve(s, "person", None, "kim.ro@eu.dupont.com", index=index)
    v = resolve(s, "person", "Kim Ro", "kro@dupont.com", index=index)
    w = resolve(s, "person", "Kim Ro", "kim.ro@eu.dupont.com", index=index)
    assert w.entity.id == u.entity.id and s.get(Entity, v.entity.id).tombstoned_at is None
    assert _rows(s) == {(u.entity.id, v.entity.id, "full_name", "pending")}


def test_other_evidence_still_joins_the_two_john_smiths(s):
    """The same full name at one company is a suggestion until something says they are one: the address given in
    the other's signature, or the same phone in both signatures, turns it into a merge."""
    index = NameIndex()
    a = resolve(s, "person", "John Smith", "john.smith@bigcorp.com", index=index)
    b = resolve(s, "person", "John Smith", "jsmith2@bigcorp.com", index=index)
    claim_signed_email(s, b.entity, "john.smith@bigcorp.com", "John Smith", index)
    mc = s.exec(select(MergeCandidate)).one()
    assert (mc.status, mc.signal) == ("merged", "signature_email")
    assert {a.entity.id, b.entity.id} == {mc.a_id, mc.b_id}
    c = resolve(s, "person", "Jane Roe", "jane.roe@bigcorp.com", index=index)
    d = resolve(s, "person", "Jane Roe", "jroe@bigcorp.com", index=index)
    assert s.get(MergeCandidate, d.review_id).status == "pending"
    claim_phone(s, c.entity, "+1 415 555 0100", index=index)
    claim_phone(s, d.entity, "+1 415 555 0100", index=index)
    assert (s.get(MergeCandidate, d.review_id).status, s.get(MergeCandidate, d.review_id).signal) == \
        ("merged", "signature_phone")


def test_a_name_only_sender_with_a_name_like_two_peoples_is_held_too(s):
    """"Jon Smith" known only by name, and two "John Smith"s (mail, two addresses): names 0.86 alike join one person
    with no address of their own — never the first of two."""
    index = NameIndex()
    a = resolve(s, "person", "John Smith", "john@a.example", index=index)
    b = resolve(s, "person", "John Smith", "john.smith@b.example", index=index)
    jon = resolve(s, "person", "Jon Smith", None, address_kind="phone", index=index, context=Context(thread="wa:j"))
    assert jon.created and jon.entity.id not in (a.entity.id, b.entity.id) and jon.signal == "fuzzy_review"
    assert {(m.a_id, m.signal, m.status) for m in s.exec(select(MergeCandidate).where(
        MergeCandidate.b_id == jon.entity.id)).all()} == {(a.entity.id, "fuzzy_review", "pending"),
                                                           (b.entity.id, "fuzzy_review", "pending")}
    assert _rows(s, "merged") == set()

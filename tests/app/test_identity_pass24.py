"""Pass 24 on issue 13's identity kinds (``mbox_two_people_named_alex``): the review queue after an address-book
card joins two addresses that were only a suggestion, and after the person merges a suggested pair by hand —
no suggestion may stay behind naming an entity that was merged away.  Inputs written by the tests themselves."""
from __future__ import annotations

import pytest

from app.operations.graph import profile
from app.operations.ingest import ingest
from app.operations.review import list_reviews, merge_entities
from app.operations.entities import find_entity
from helpers.mboxes import write_mbox

JORDAN = [("Jordan Blake <jordan@acme.example>", "Hello", "I live in Bristol."),
          ("Jordan Blake <jblake@globex.example>", "News", "I live in Glasgow.")]
CARD = """BEGIN:VCARD
VERSION:3.0
FN:Jordan Blake
N:Blake;Jordan;;;
EMAIL;TYPE=WORK:jordan@acme.example
EMAIL;TYPE=HOME:jblake@globex.example
END:VCARD
"""


def _names(items):
    return [(i.a_name, i.b_name, i.status) for i in items]


def test_a_card_joining_two_addresses_answers_their_suggestion(container, tmp_path):
    ingest(container, [write_mbox(tmp_path / "m.mbox", JORDAN)])
    assert _names(list_reviews(container)) == [("Jordan Blake", "Jordan Blake", "pending")]  # one name, two addresses
    card = tmp_path / "jordan.vcf"
    card.write_text(CARD, encoding="utf-8")
    ingest(container, [card])
    assert list_reviews(container) == []  # it stayed, between two merged entities ("entity 6 does not exist")
    p = profile(container, "Jordan Blake")
    assert {a["value"] for a in p.aliases if a["kind"] == "email"} == {"jordan@acme.example", "jblake@globex.example"}
    assert [f.value for f in p.current if f.key == "home"] == ["Glasgow"]


def test_merging_a_suggested_pair_by_hand_takes_it_off_the_queue(container, tmp_path):
    ingest(container, [write_mbox(tmp_path / "m.mbox", JORDAN)])
    [item] = list_reviews(container)
    merge_entities(container, item.a_id, item.b_id)
    assert list_reviews(container) == []
    done = [i for i in list_reviews(container, None) if i.status == "merged"]
    assert [(i.a_id, i.b_id, i.decided_by) for i in done] == [(item.a_id, item.b_id, "person")]
    assert find_entity(container, "Jordan Blake").id == item.a_id


def test_a_service_sender_has_no_home_no_job_and_no_relatives(container, tmp_path):
    from sqlmodel import select

    from core.store.schema import Entity, Fact

    ingest(container, [write_mbox(tmp_path / "svc.mbox", [
        ("GitHub <noreply@github.com>", "News", "We've moved to a new office in Leeds. My sister works at Initech."),
        ('"Mailer-Daemon" <MAILER-DAEMON@mx.example.com>', "Undeliverable", "I live in Berlin. Delivery failed."),
        ("Nina Keller <nina@keller.example>", "Hi", "My sister works at Initech."),
    ])])
    with container.db.session() as s:
        people = sorted(e.canonical_name for e in s.exec(select(Entity).where(Entity.kind == "person",
                                                                                 Entity.tombstoned_at.is_(None))))
        homes_jobs = sorted((s.get(Entity, f.subject_entity_id).canonical_name, f.value) for f in s.exec(
            select(Fact).where(Fact.key.in_(("home", "employer")))))
    # was: "GitHub's sister" (a person, working at Initech), GitHub living in Leeds, Mailer-Daemon in Berlin
    assert "GitHub's sister" not in people and "Nina Keller's sister" in people
    assert homes_jobs == [("Nina Keller's sister", "Initech")]


def test_a_home_said_twice_imported_after_the_move_of_the_same_day_is_one_spell(container, tmp_path):
    from helpers.mboxes import write_raw_mbox

    rosa = "Rosa Vidal <rosa@vidal.example>"
    ingest(container, [write_raw_mbox(tmp_path / "later.mbox", [
        (rosa, "Mon, 05 Jun 2023 18:00:00 +0200", "update", "Update: I moved to Madrid today.")])])
    ingest(container, [write_raw_mbox(tmp_path / "earlier.mbox", [
        (rosa, "Mon, 05 Jun 2023 09:00:00 +0200", "morning", "I live in Berlin."),
        (rosa, "Mon, 09 Jan 2023 09:00:00 +0100", "hello", "I live in Berlin.")])])
    p = profile(container, "Rosa Vidal")
    homes = [(f.value, f.valid_from[:10], f.statement) for f in p.current if f.key == "home"]
    history = [(f.value, f.valid_from[:10], (f.valid_to or "")[:10], f.statement) for f in p.history if f.key == "home"]
    assert homes == [("Madrid", "2023-06-05", "As of 2023-06-05, Rosa Vidal lives in Madrid.")]
    # was two Berlin spells (Jan 9 → Jun 5, and Jun 5 → Jun 5), the first one's statement "As of 2023-06-05"
    assert history == [("Berlin", "2023-01-09", "2023-06-05", "As of 2023-01-09, Rosa Vidal lives in Berlin.")]


PRIYA_WORK = ("Priya Nair <priya@nairdesign.example>", "Mon, 13 Mar 2023 10:00:00 +0000", "news",
              "I moved to Mumbai.\n\nPriya Nair\npriya.nair@gmail.com")
PRIYA_HOME = ("Priya Nair <priya.nair@gmail.com>", "Mon, 06 Mar 2023 10:00:00 +0000", "hi", "I live in Pune.")


def _people(container):
    from sqlmodel import select

    from core.store.schema import Entity

    with container.db.session() as s:
        return sorted(e.canonical_name for e in s.exec(select(Entity).where(
            Entity.kind == "person", Entity.tombstoned_at.is_(None))) if e.canonical_name != "Owner")


@pytest.mark.parametrize("signed_first", [False, True])
def test_a_signature_giving_the_other_address_under_the_same_full_name_is_one_person(container, tmp_path, signed_first):
    from helpers.mboxes import write_raw_mbox

    order = [PRIYA_WORK, PRIYA_HOME] if signed_first else [PRIYA_HOME, PRIYA_WORK]
    ingest(container, [write_raw_mbox(tmp_path / "m.mbox", order)])
    # was two people "Priya Nair" and a suggestion, whichever mail came first
    assert _people(container) == ["Priya Nair"]
    p = profile(container, "Priya Nair")
    assert {a["value"] for a in p.aliases if a["kind"] == "email"} == {"priya@nairdesign.example",
                                                                       "priya.nair@gmail.com"}
    assert [(f.value, f.valid_from[:10]) for f in p.current if f.key == "home"] == [("Mumbai", "2023-03-13")]
    assert list_reviews(container) == []


def test_a_signature_address_under_another_name_or_a_label_of_someone_else_joins_no_one(container, tmp_path):
    from helpers.mboxes import write_raw_mbox

    ingest(container, [write_raw_mbox(tmp_path / "m.mbox", [
        ("Raj Patel <raj@nairdesign.example>", "Mon, 20 Mar 2023 11:00:00 +0000", "a",
         "See below.\n\nRaj Patel\nEmail: raj@nairdesign.example\nAssistant: priya.nair@gmail.com"),
        PRIYA_HOME,
        ("Sam Hill <sam@hill.example>", "Mon, 20 Mar 2023 12:00:00 +0000", "b", "hello\n\nSam Hill\nsam.hill@gmail.com"),
        ("Samantha Hill <sam.hill@gmail.com>", "Tue, 21 Mar 2023 12:00:00 +0000", "c", "hello from me"),
    ])])
    assert _people(container) == ["Priya Nair", "Raj Patel", "Sam Hill", "Samantha Hill"]
    assert [(i.a_name, i.b_name) for i in list_reviews(container)] == [("Sam Hill", "Samantha Hill")]


def test_service_senders_under_names_of_their_own_are_not_people(container, tmp_path):
    from sqlmodel import select

    from core.store.schema import Entity

    ingest(container, [write_mbox(tmp_path / "svc.mbox", [
        ("Uber Receipts <noreply@uber.com>", "Trip", "Thanks for riding."),
        ("The GitHub Team <noreply@github.com>", "Welcome", "Welcome."),
        ("Mail Delivery Subsystem <mailer-daemon@googlemail.com>", "Failure", "Delivery failed."),
        ("Medium Daily Digest <noreply@medium.com>", "Stories", "Stories for you."),
        ("HSBC UK <hsbc@email.hsbc.co.uk>", "Statement", "Your statement."),
        ("Acme Support <help@acme.example>", "Ticket", "Your ticket."),
        # people: sending through a robot mailbox, or from a domain that is their surname
        ("Jane Doe <calendar-notification@google.com>", "Invitation", "Lunch on Friday?"),
        ("Tom Ford <tom@tomford.example>", "Hi", "Hello there."),
        ("Ann Smith <info@smith.example>", "Shop", "We open at nine."),
    ])])
    with container.db.session() as s:
        kinds = {e.canonical_name: e.kind for e in s.exec(select(Entity).where(Entity.tombstoned_at.is_(None)))}
    # each of the first six was a person
    assert {n: kinds[n] for n in ("Uber Receipts", "The GitHub Team", "Mail Delivery Subsystem",
                                  "Medium Daily Digest", "HSBC UK", "Acme Support")} == dict.fromkeys(
        ("Uber Receipts", "The GitHub Team", "Mail Delivery Subsystem", "Medium Daily Digest", "HSBC UK",
         "Acme Support"), "thing")
    assert [kinds[n] for n in ("Jane Doe", "Tom Ford", "Ann Smith")] == ["person"] * 3


def test_an_unrelated_full_name_at_someones_address_is_someone_else_with_a_suggestion(container, tmp_path):
    from helpers.mboxes import write_raw_mbox

    ingest(container, [write_raw_mbox(tmp_path / "m.mbox", [
        ("Kim Lee <kim@lee.example>", "Wed, 11 Jan 2023 10:00:00 +0000", "a", "I live in Leeds."),
        ("Jordan Park <kim@lee.example>", "Thu, 12 Jan 2023 10:00:00 +0000", "b", "I live in York."),
        ("Kim Park <kim@lee.example>", "Fri, 13 Jan 2023 10:00:00 +0000", "c", "Hello."),  # a word kept: Kim renamed
    ])])
    # was one person "Kim Lee" (alias "Jordan Park") whose home York superseded Leeds
    assert _people(container) == ["Jordan Park", "Kim Lee"]
    assert [(f.value) for f in profile(container, "Kim Lee").current if f.key == "home"] == ["Leeds"]
    assert [(f.value) for f in profile(container, "Jordan Park").current if f.key == "home"] == ["York"]
    assert [(i.a_name, i.b_name, i.signal) for i in list_reviews(container)] == [("Kim Lee", "Jordan Park", "other_name")]
    assert find_entity(container, "Kim Park").canonical_name == "Kim Lee"


def test_two_people_with_one_first_name_at_one_company_are_not_merged_by_the_domain(container, tmp_path):
    ingest(container, [write_mbox(tmp_path / "m.mbox", [
        ("Alex <alex.k@northwind.example>", "a", "I live in Leeds."),
        ("Alex <alex.m@northwind.example>", "b", "I live in York."),   # another surname initial: another Alex
        ("Alex <alex@northwind.example>", "c", "Hello."),              # says no more: the company's Alex, joined
    ])])
    from sqlmodel import select

    from core.store.schema import Alias, Entity

    with container.db.session() as s:
        alexes = sorted(sorted(a.normalized for a in s.exec(select(Alias).where(Alias.entity_id == e.id,
                                                                                  Alias.kind == "email")))
                        for e in s.exec(select(Entity).where(Entity.canonical_name == "Alex",
                                                             Entity.tombstoned_at.is_(None))))
    # was one Alex holding both addresses (first_name_domain, definitive); Leeds superseded by York once confirmed
    assert alexes == [["alex.k@northwind.example", "alex@northwind.example"], ["alex.m@northwind.example"]]
    assert ("Alex", "Alex", "first_name") in [(i.a_name, i.b_name, i.signal) for i in list_reviews(container)]

"""A one-word name and an unrelated full name writing from one mail address are two people, with a merge
suggestion — the kind "Kim Lee" / "Jordan Park" at one address already was (pass 24).  Was: "Kim"
<kim.p@example.org>, then "Jordan Park" from the same address, silently became one person (called "Kim"), and so
did the other order.  A one-word name that is a word of the full name, a nickname form or the start of its first
name, an initial, or the address's own local part still joins.  Inputs written by the tests themselves."""
from __future__ import annotations

import pytest
from sqlmodel import select

from core.graph.resolution import NameIndex, resolve
from core.store.schema import Entity, MergeCandidate

ADDRESS = "kim.p@example.org"


def _run(s, names, address=ADDRESS, address_kind="email"):
    index = NameIndex()
    return [resolve(s, "person", n, address, address_kind, index=index) for n in names]


def _people(s) -> list[str]:
    return sorted(e.canonical_name for e in s.exec(select(Entity).where(
        Entity.kind == "person", Entity.tombstoned_at.is_(None))).all())


def _decisions(s) -> list[tuple[str, str, str, str]]:
    """(a's name, b's name, signal, status) of every MergeCandidate."""
    out = []
    for mc in s.exec(select(MergeCandidate).order_by(MergeCandidate.id)).all():
        out.append((s.get(Entity, mc.a_id).canonical_name, s.get(Entity, mc.b_id).canonical_name, mc.signal,
                    mc.status))
    return out


@pytest.mark.parametrize("first, second", [
    ("Kim", "Jordan Park"),
    ("Jordan Park", "Kim"),
    ("kim", "JORDAN PARK"),
    ("KIM", "jordan park"),
    ("JORDAN PARK", "kim"),
])
def test_a_one_word_name_unrelated_to_the_full_name_at_one_address_is_another_person(s, first, second):
    a, b = _run(s, [first, second])
    assert b.entity.id != a.entity.id and b.created
    assert _people(s) == sorted([first, second])
    assert _decisions(s) == [(first, second, "other_name", "pending")]
    mc = s.get(MergeCandidate, s.exec(select(MergeCandidate.id)).one())
    assert ADDRESS in mc.reason and mc.decided_by == "kith"
    # the address stays with whoever wrote from it first
    assert resolve(s, "person", None, ADDRESS).entity.id == a.entity.id


def test_each_writer_keeps_their_own_name_on_later_mail_and_one_suggestion(s):
    kim, jordan, kim2, jordan2 = _run(s, ["Kim", "Jordan Park", "Kim", "Jordan Park"])
    assert kim2.entity.id == kim.entity.id and jordan2.entity.id == jordan.entity.id != kim.entity.id
    assert _people(s) == ["Jordan Park", "Kim"]
    assert _decisions(s) == [("Kim", "Jordan Park", "other_name", "pending")]
    assert s.get(Entity, kim.entity.id).attrs.get("other_writers") == [jordan.entity.id]


def test_a_full_name_then_an_unrelated_one_word_name_after_a_legitimate_short_form(s):
    """"Jordan", then "Jordan Park" (the same person, named in full), then "Kim": Kim is someone else."""
    jordan, full, kim = _run(s, ["Jordan", "Jordan Park", "Kim"])
    assert full.entity.id == jordan.entity.id and kim.entity.id != jordan.entity.id
    assert _people(s) == ["Jordan Park", "Kim"]
    assert _decisions(s) == [("Jordan Park", "Kim", "other_name", "pending")]


@pytest.mark.parametrize("short", ["Jordan", "jordan", "Park", "PARK", "Jo", "Jordy", "J", "J.", "JP", "kim.p",
                                   "KIM.P"])
@pytest.mark.parametrize("short_first", [True, False])
def test_a_short_form_of_the_full_name_or_the_local_part_joins(s, short, short_first):
    names = [short, "Jordan Park"] if short_first else ["Jordan Park", short]
    a, b = _run(s, names)
    assert b.entity.id == a.entity.id
    assert len(_people(s)) == 1
    assert [d for d in _decisions(s) if d[3] == "pending"] == []


def test_an_initial_and_surname_joins(s):
    a, b = _run(s, ["Jordan Park", "J. Park"])
    c, d = _run(s, ["D. Lee", "Dana Lee"], address="dl@lee.example")
    assert b.entity.id == a.entity.id and d.entity.id == c.entity.id
    assert len(_people(s)) == 2 and _decisions(s) == []


def test_a_nickname_form_of_the_first_name_joins(s):
    """The nicknames dataset: "Bob" is a form of "Robert", "Kim" of "Kimberly"."""
    a, b = _run(s, ["Bob", "Robert Smith"], address="bob@smith.example")
    c, d = _run(s, ["Kimberly Park", "Kim"])
    assert b.entity.id == a.entity.id and d.entity.id == c.entity.id
    assert len(_people(s)) == 2 and _decisions(s) == []


def test_a_kinship_word_is_a_label_not_another_person(s):
    a, b = _run(s, ["Mom", "Mary Smith"], address="mary@smith.example")
    assert b.entity.id == a.entity.id and _decisions(s) == []


def test_a_chat_name_by_phone_number_is_left_as_it_was(s):
    """A chat's one-word push name is often no name at all: at a phone number the two still join."""
    a, b = _run(s, ["Kim", "Jordan Park"], address="+44 7700 900123", address_kind="phone")
    assert b.entity.id == a.entity.id and _decisions(s) == []


def test_the_mail_from_the_fault_report_end_to_end(container, tmp_path):
    from app.operations.ingest import ingest
    from app.operations.review import list_reviews
    from helpers.mboxes import write_raw_mbox

    ingest(container, [write_raw_mbox(tmp_path / "m.mbox", [
        ("Kim <kim.p@example.org>", "Wed, 11 Jan 2023 10:00:00 +0000", "a", "Hello."),
        ("Jordan Park <kim.p@example.org>", "Thu, 12 Jan 2023 10:00:00 +0000", "b", "Hi there."),
    ])])
    with container.db.session() as s:
        assert [n for n in _people(s) if n != "Owner"] == ["Jordan Park", "Kim"]
    assert [(i.a_name, i.b_name, i.signal) for i in list_reviews(container)] == [("Kim", "Jordan Park", "other_name")]


def test_a_short_form_and_an_unrelated_one_word_name_make_no_shared_mailbox(s):
    """"Jordan Park", "Jo" (Jordan) and "Kim" at one address are two writers, not the three unrelated names of a
    shared mailbox: the address stays Jordan's, Kim is someone else with a suggestion."""
    from core.graph.parties import resolve_parties
    from tests.core.test_identity import P, R

    index = NameIndex()
    out = [resolve_parties(s, R(P(n, ADDRESS)), index=index) for n in ("Jordan Park", "Jo", "Kim")]
    assert out[1].sender_id == out[0].sender_id != out[2].sender_id
    assert not [x for p in out for x in p.links if x.role == "list"]
    assert _people(s) == ["Jordan Park", "Kim"]
    assert _decisions(s) == [("Jordan Park", "Kim", "other_name", "pending")]

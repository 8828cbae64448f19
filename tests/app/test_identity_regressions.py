"""Issue 13's regressions, through the real ingest path, with their right values
(``../shared/corpus/regressions/README.md``): who is who, and when."""
from __future__ import annotations

from datetime import date

import pytest
from sqlmodel import select

from app.operations.ingest import ingest
from core import clock
from core.store.schema import Entity, Evidence, Fact, MergeCandidate, Record, RecordEntity

pytestmark = pytest.mark.corpus


def _person(s, name):
    return s.exec(select(Entity).where(Entity.canonical_name == name, Entity.tombstoned_at.is_(None))).all()


def _facts(s, entity_id, key, active=True):
    q = select(Fact).where(Fact.subject_entity_id == entity_id, Fact.key == key)
    if active:
        q = q.where(Fact.superseded_by.is_(None))
    return s.exec(q).all()


def test_two_people_named_alex_stay_two_and_wait_in_the_review_queue(container, corpus):
    from app.operations.review import list_reviews

    r = ingest(container, [corpus / "regressions" / "mbox_two_people_named_alex.mbox"])
    assert r.records_added == 2 and not r.errors
    with container.db.session() as s:
        alexes = _person(s, "Alex")
        assert len(alexes) == 2
        by_addr = {}
        for e in alexes:
            (employer,) = _facts(s, e.id, "employer")
            by_addr[employer.value] = e.id
        assert set(by_addr) == {"Northwind", "Southbank"}  # Northwind is not superseded by Southbank
        assert all(f.superseded_by is None for f in _facts(s, by_addr["Northwind"], "employer", active=False))
    (item,) = list_reviews(container)  # not "Nothing to review"
    assert {item.a_id, item.b_id} == set(by_addr.values())
    assert (item.signal, item.score, item.decided_by) == ("first_name", 0.6, "kith")
    assert "alex@north.example" in item.reason and "alex.r@south.example" in item.reason


def test_short_code_and_sender_id_are_one_thing_each(container, corpus):
    from app.operations.entities import find_entity

    r = ingest(container, [corpus / "regressions" / "imessage_shortcode_sender.db"])
    assert r.records_added == 5 and not r.errors
    with container.db.session() as s:
        things = {e.canonical_name: e for e in s.exec(select(Entity).where(Entity.kind == "thing")).all()}
        assert set(things) == {"22000", "GOOGLE"}
        assert things["22000"].attrs["sender_type"] == "short_code"
        assert things["GOOGLE"].attrs["sender_type"] == "alphanumeric"
        sent = lambda e: s.exec(select(Record).where(Record.sender_entity_id == e.id)).all()  # noqa: E731
        assert len(sent(things["22000"])) == 2 and len(sent(things["GOOGLE"])) == 1
        (ana,) = s.exec(select(Entity).where(Entity.canonical_name == "ana@example.com")).all()
        assert ana.kind == "person" and len(sent(ana)) == 2
        assert s.exec(select(Entity).where(Entity.canonical_name.in_(["22000", "GOOGLE"]),
                                           Entity.kind == "person")).all() == []
    assert find_entity(container, "22000").id == things["22000"].id  # not "matches several entities"


def test_relative_dates_resolve_in_the_senders_calendar_and_records_keep_their_offset(container, corpus):
    from app.operations.graph import profile

    r = ingest(container, [corpus / "regressions" / "mbox_yesterday_timezones.mbox"])
    assert r.records_added == 3
    want = {"Mia Clarke": ("home", "Hobart", date(2023, 6, 9), 600),
            "Leo Park": ("employer", "Brightwave", date(2023, 6, 8), -420),
            "Nia Owusu": ("home", "Leeds", date(2023, 6, 11), 0)}
    with container.db.session() as s:
        for name, (key, value, day, offset) in want.items():
            (e,) = _person(s, name)
            (f,) = _facts(s, e.id, key)
            assert f.value == value and clock.ensure_utc(f.valid_from).date() == day
            assert f.statement.startswith(f"As of {day.isoformat()},")
            (ev,) = s.exec(select(Evidence).where(Evidence.fact_id == f.id)).all()
            assert f'"yesterday" = {day.isoformat()}, the sender\'s date' in ev.excerpt  # said in the evidence
            (row,) = s.exec(select(Record).where(Record.sender_entity_id == e.id)).all()
            assert row.utc_offset == offset
    mia = profile(container, "Mia Clarke")
    assert [src["local"] for src in mia.sources] == ["2023-06-10T08:30:00+10:00"]
    assert [src["when"] for src in mia.sources] == ["2023-06-09T22:30:00+00:00"]


def test_superseded_home_in_the_profile(container, corpus):
    from app.operations.graph import profile

    ingest(container, [corpus / "regressions" / "mbox_superseded_home.mbox"])
    p = profile(container, "Rosa Vidal")
    assert [f.value for f in p.current if f.key == "home"] == ["Madrid"]
    assert [f.value for f in p.history if f.key == "home"] == ["Berlin"]
    (berlin,) = [f for f in p.history if f.key == "home"]
    assert berlin.valid_to.startswith("2023-06-05")  # "last week" from Tue 13 Jun: the week of Mon 5 Jun


def test_reimport_after_the_offset_change_adds_nothing(container, corpus):
    path = corpus / "regressions" / "mbox_yesterday_timezones.mbox"
    assert ingest(container, [path]).records_added == 3
    again = ingest(container, [path])
    assert (again.records_added, again.records_skipped) == (0, 3)
    with container.db.session() as s:
        assert len(s.exec(select(RecordEntity).where(RecordEntity.role == "from")).all()) == 3


def test_forgetting_a_person_takes_their_earlier_identities_and_their_facts(container, tmp_path):
    """Two "Alex Reed"s at one company's mail domain are a suggestion; once the person merges them, the second
    identity is kept as a tombstoned entity (its name, for undo): forget removes it too, and the facts from both
    addresses, so the name is gone from every row."""
    from datetime import datetime, timedelta, timezone

    from app.operations.forget import forget
    from app.operations.review import act, list_reviews
    from helpers.mboxes import write_mbox

    path = write_mbox(tmp_path / "alex.mbox", [
        ("Alex Reed <alex@north.dupont.com>", "new job", "I work at Northwind now."),
        ("Alex Reed <alex.r@south.dupont.com>", "hello", "I work at Southbank these days.")],
        start=datetime(2023, 3, 6, 9, tzinfo=timezone.utc), step=timedelta(days=2))
    ingest(container, [path])
    (review,) = list_reviews(container)
    assert (review.a_name, review.b_name, review.signal, review.status) == ("Alex Reed", "Alex Reed", "full_name",
                                                                            "pending")
    with container.db.session() as s:
        assert len(_person(s, "Alex Reed")) == 2  # not merged before the person's word
        assert [f.value for f in _facts(s, review.b_id, "employer")] == ["Southbank"]
    act(container, review.id, "merge")
    with container.db.session() as s:
        (alex,) = _person(s, "Alex Reed")
        assert alex.id == review.a_id
        assert s.get(Entity, review.b_id).tombstoned_at is not None  # the earlier identity, kept for undo
        assert s.get(Entity, review.b_id).canonical_name == "Alex Reed"
        assert [f.value for f in _facts(s, alex.id, "employer")] == ["Southbank"]  # superseding Northwind
        assert sorted(f.value for f in _facts(s, alex.id, "employer", active=False)) == ["Northwind", "Southbank"]
    forget(container, alex.id, purge=True)
    with container.db.session() as s:
        assert s.exec(select(Entity).where(Entity.canonical_name == "Alex Reed")).all() == []
        assert s.exec(select(Fact).where(Fact.value.in_(["Northwind", "Southbank"]))).all() == []
        assert s.exec(select(MergeCandidate)).all() == []

"""The fact pipeline: dedupe (noisy-OR confidence), supersession with one active row, 'As of' statements."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from core.graph.facts import FactDraft, as_of_statement, write_fact
from core.graph.resolution import resolve
from core.store.db import Database
from core.store.schema import Fact


@pytest.fixture
def db(tmp_path):
    d = Database(tmp_path / "k.sqlite3")
    yield d
    d.close()


def draft(subject, value, conf=0.6, record=None, when=None):
    when = when or datetime(2026, 5, 12, tzinfo=timezone.utc)
    return FactDraft(subject_id=subject, domain="work", category="employment", key="employer", value=value,
                     statement=as_of_statement(when, f"works at {value}."), confidence=conf, valid_from=when)


def test_dedupe_raises_confidence_by_noisy_or_and_keeps_one_row(db):
    with db.session() as s:
        alice = resolve(s, "person", "Alice", "alice@example.com").entity
        first = write_fact(s, draft(alice.id, "Acme", 0.6))
        again = write_fact(s, draft(alice.id, "Acme", 0.5))
        assert (first.action, again.action) == ("added", "reinforced")
        rows = s.exec(select(Fact)).all()
        assert len(rows) == 1
        assert rows[0].confidence == pytest.approx(1 - 0.4 * 0.5)  # 0.8


def test_supersession_keeps_history_and_one_active_fact(db):
    with db.session() as s:
        alice = resolve(s, "person", "Alice", None).entity
        old = write_fact(s, draft(alice.id, "Acme")).fact
        new = write_fact(s, draft(alice.id, "Globex", when=datetime(2026, 9, 1, tzinfo=timezone.utc)))
        assert new.action == "superseded"
        s.refresh(old)
        assert old.superseded_by == new.fact.id
        active = s.exec(select(Fact).where(Fact.superseded_by.is_(None))).all()
        assert [f.value for f in active] == ["Globex"]
        assert new.fact.statement == "As of 2026-09-01, works at Globex."


def test_partial_unique_index_refuses_a_second_active_fact(db):
    with pytest.raises(IntegrityError):
        with db.session() as s:
            alice = resolve(s, "person", "Alice", None).entity
            for v in ("Acme", "Globex"):
                s.add(Fact(subject_entity_id=alice.id, domain="work", category="employment", key="employer",
                           value=v, statement=f"As of 2026-01-01, {v}"))
            s.flush()


def test_statement_must_start_as_of(db):
    with db.session() as s:
        alice = resolve(s, "person", "Alice", None).entity
        bad = draft(alice.id, "Acme")
        bad.statement = "Alice works at Acme."
        with pytest.raises(ValueError, match="As of"):
            write_fact(s, bad)


def test_resolution_merges_by_email_and_exact_name(db):
    with db.session() as s:
        a = resolve(s, "person", None, "Alice@Example.com")
        assert a.created and a.entity.canonical_name == "Alice@Example.com"
        b = resolve(s, "person", "Alice Example", "alice@example.COM")
        assert not b.created and b.signal == "email" and b.entity.id == a.entity.id
        assert b.entity.canonical_name == "Alice Example"  # address-only name upgraded
        c = resolve(s, "person", "alice example", None)
        assert c.entity.id == a.entity.id and c.signal == "exact_name"
        d = resolve(s, "person", "Bob", "bob@example.org")
        assert d.created and d.entity.id != a.entity.id


def test_organisation_names_stop_before_lowercase_connectors():
    from core.extraction.personal_facts import extract_facts

    when = datetime(2026, 1, 1, tzinfo=timezone.utc)
    values = lambda t: [(f.key, f.value) for f in extract_facts(t, when) if f.key == "employer"]  # noqa: E731
    assert values("I work at Initech and my sister Jane lives in Portland.") == [("employer", "Initech")]
    assert values("Sarah works at Bank of America now.") == [("employer", "Bank of America")]
    assert values("I joined Procter & Gamble.") == [("employer", "Procter & Gamble")]


def test_a_second_verb_phrase_shares_the_clauses_subject():
    from datetime import date, datetime, timezone

    from core.extraction.personal_facts import extract_facts

    sent = datetime(2023, 6, 13, 9, 0, tzinfo=timezone.utc)  # a Tuesday: "last month" is May, "last week" Mon 5 Jun

    def facts(text):
        return [(f.subject.kind, f.subject.name, f.key, f.value, f.valid_from, bool(f.ends))
                for f in extract_facts(text, sent)]

    assert facts("I left Berlin and moved to Rome last week.") == [
        ("speaker", None, "employer", "Berlin", date(2023, 6, 5), True),   # the ending: a job or a home in Berlin
        ("speaker", None, "home", "Rome", date(2023, 6, 5), False)]
    assert facts("Ana quit Initech and joined Globex.") == [
        ("name", "Ana", "employer", "Initech", date(2023, 6, 13), True),
        ("name", "Ana", "employer", "Globex", date(2023, 6, 13), False)]
    assert facts("We sold the flat in Berlin and moved to Madrid.") == [
        ("speaker", None, "home", "Madrid", date(2023, 6, 13), False)]
    # a hedge or a negation in the second phrase states nothing
    assert facts("I left Berlin and never moved to Rome.") == [
        ("speaker", None, "employer", "Berlin", date(2023, 6, 13), True)]

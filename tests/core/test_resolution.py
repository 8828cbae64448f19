"""Every row of seed 002's resolution table, with the seed's own examples, plus merge/unmerge."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from sqlmodel import select

from core.graph.entities import normalize_phone
from core.graph.facts import FactDraft, write_fact
from core.graph.merge import merge, unmerge
from core.graph.resolution import NameIndex, bigram_similarity, name_score, resolve
from core.store.schema import Alias, Entity, Fact, MergeCandidate, Record, RecordEntity, Source


def test_phone_numbers_normalise_to_e164():
    assert normalize_phone("+1 (617) 555-1234") == "+16175551234"
    assert normalize_phone("6175551234", "US") == "+16175551234"
    assert normalize_phone("not a phone") is None


def test_phone_is_definitive_and_upgrades_a_phone_only_name(s):
    first = resolve(s, "person", None, "6175551234", "phone")
    assert first.created and first.entity.canonical_name == "6175551234"
    again = resolve(s, "person", "Alex Thompson", "+1 (617) 555-1234", "phone")
    assert (again.created, again.signal, again.score) == (False, "phone", 1.0)
    assert again.entity.id == first.entity.id and again.entity.canonical_name == "Alex Thompson"


def test_contact_id_is_definitive(s):
    a = resolve(s, "person", "Alex Thompson", contact_id="ABCD-1234")
    b = resolve(s, "person", "Alexander T.", contact_id="ABCD-1234")
    assert b.signal == "contact" and b.entity.id == a.entity.id


def test_exact_name_is_case_insensitive(s):
    a = resolve(s, "person", "Alex Thompson", None)
    b = resolve(s, "person", "alex thompson", None)
    assert (b.created, b.signal, b.entity.id) == (False, "exact_name", a.entity.id)


def test_alias_match_nickname_and_email(s):
    a = resolve(s, "person", "Alex Thompson", "alex@example.com")
    s.add(Alias(entity_id=a.entity.id, kind="nickname", value="AT", normalized="at"))
    s.flush()
    b = resolve(s, "person", "AT", None)
    assert (b.signal, b.entity.id) == ("alias", a.entity.id)
    c = resolve(s, "person", "Alex", "ALEX@example.com")  # (an unrelated one-word name there is someone else)
    assert (c.signal, c.entity.id) == ("email", a.entity.id)


def test_fuzzy_high_merges_jon_and_john(s):
    assert bigram_similarity("Jon Smith", "John Smith") == pytest.approx(18 / 21)  # 0.857 ≥ 0.85
    a = resolve(s, "person", "John Smith", None)
    b = resolve(s, "person", "Jon Smith", None)
    assert (b.created, b.signal, b.entity.id) == (False, "fuzzy_high", a.entity.id)
    assert b.score == pytest.approx(18 / 21)


def test_fuzzy_low_creates_new_entity_and_a_review_item(s):
    index = NameIndex()
    a = resolve(s, "person", "Alexander Thompson", None, index=index)
    score, signal = name_score("Alexandra Thompson", "Alexander Thompson")  # siblings, perhaps
    assert signal == "fuzzy_review" and 0.55 <= score < 0.85
    b = resolve(s, "person", "Alexandra Thompson", None, index=index)
    assert b.created and b.signal == "fuzzy_review" and b.entity.id != a.entity.id
    mc = s.get(MergeCandidate, b.review_id)
    assert (mc.a_id, mc.b_id, mc.status) == (a.entity.id, b.entity.id, "pending")
    assert mc.score == pytest.approx(round(score, 4))


def test_same_surname_different_first_name_stays_apart(s):
    assert name_score("Mary Smith", "John Smith") == (0.45, "same_surname")
    a = resolve(s, "person", "John Smith", None)
    b = resolve(s, "person", "Mary Smith", None)
    assert b.created and b.signal == "same_surname" and b.score == 0.45 and b.review_id is None
    assert b.entity.id != a.entity.id
    kept = s.exec(select(MergeCandidate)).all()  # the non-merge decision is kept with its reason, not queued
    assert [(m.a_id, m.b_id, m.status, m.signal, m.score, m.decided_by) for m in kept] == \
        [(a.entity.id, b.entity.id, "separate", "same_surname", 0.45, "kith")]


def test_no_match_creates_new(s):
    a = resolve(s, "person", "Zoë Quinn", None)
    assert (a.created, a.signal) == (True, "new")


def _record(s, src_id, sender_id, n):
    r = Record(source_id=src_id, external_id=f"#{n}", kind="email", sender_entity_id=sender_id, text=f"t{n}",
               content_hash=f"h{n}")
    s.add(r)
    s.flush()
    s.add(RecordEntity(record_id=r.id, entity_id=sender_id, role="from"))
    return r


def test_merge_then_unmerge_restores_both_entities_exactly(s):
    src = Source(kind="mbox", path="/x.mbox", content_hash="x")
    s.add(src)
    s.flush()
    a = resolve(s, "person", "Alexander Thompson", "alexander@work.example").entity
    b = resolve(s, "person", "Alex Thompson", "alex@home.example").entity
    ra, rb = _record(s, src.id, a.id, 1), _record(s, src.id, b.id, 2)
    when = lambda y: datetime(y, 1, 1, tzinfo=timezone.utc)  # noqa: E731
    fa = write_fact(s, FactDraft(a.id, "work", "employment", "employer", "Acme", "As of 2020-01-01, works at Acme.",
                                 valid_from=when(2020))).fact
    fb = write_fact(s, FactDraft(b.id, "work", "employment", "employer", "Globex",
                                 "As of 2024-01-01, works at Globex.", valid_from=when(2024))).fact
    before = {e: sorted(x.value for x in s.exec(select(Alias).where(Alias.entity_id == e)).all()) for e in (a.id, b.id)}
    log = merge(s, a.id, b.id)
    assert s.get(Entity, b.id).tombstoned_at is not None
    assert s.get(Record, rb.id).sender_entity_id == a.id
    active = s.exec(select(Fact).where(Fact.subject_entity_id == a.id, Fact.superseded_by.is_(None))).all()
    assert [f.value for f in active] == ["Globex"]  # the newer employer wins; Acme superseded, not deleted
    assert s.get(Fact, fa.id).superseded_by == fb.id
    unmerge(s, log)
    after = {e: sorted(x.value for x in s.exec(select(Alias).where(Alias.entity_id == e)).all()) for e in (a.id, b.id)}
    assert after == before
    assert s.get(Entity, b.id).tombstoned_at is None
    assert (s.get(Record, ra.id).sender_entity_id, s.get(Record, rb.id).sender_entity_id) == (a.id, b.id)
    assert (s.get(Fact, fa.id).superseded_by, s.get(Fact, fa.id).subject_entity_id) == (None, a.id)
    assert (s.get(Fact, fb.id).superseded_by, s.get(Fact, fb.id).subject_entity_id) == (None, b.id)
    assert s.get(RecordEntity, (rb.id, b.id, "from")) is not None and s.get(RecordEntity, (rb.id, a.id, "from")) is None


def test_role_addresses_never_identify_a_person(s):
    a = resolve(s, "person", "Bjarni Einarsson", "no-reply@example.com")
    b = resolve(s, "person", "Someone Else", "no-reply@example.com")
    assert a.entity.id != b.entity.id  # a shared robot address would have merged strangers
    robot = resolve(s, "person", None, "majordomo@imagemagick.org")
    assert robot.entity.kind == "thing"
    assert resolve(s, "person", None, "owner-magick@wizards.dupont.com").entity.kind == "thing"
    assert resolve(s, "person", None, "alice@example.com").entity.kind == "person"

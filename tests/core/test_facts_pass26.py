"""Pass 26 on personal facts (stop 25): past homes and jobs, seasons and parts of a year, a person worked for, and
what follows a leaving when neither name is known.  Inputs written by the tests themselves.

Right values worked out by hand: each message is Rosa Vidal's, the first sent Tue 10 Jan 2023 09:00 UTC and each
next one 30 days later; a year alone is its first day ("in 2015", "until 2015": 2015-01-01), a season its first
day (northern meteorological seasons: 1 March, 1 June, 1 September, 1 December)."""
from __future__ import annotations

import tempfile
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlmodel import select

from core.extraction.personal_facts import extract_facts
from core.extraction.time_anchors import find_time_anchors
from core.graph.resolution import NameIndex
from core.store.db import Database
from core.store.schema import Entity, Fact
from test_identity_pass25 import P, R, _say

T0 = datetime(2023, 1, 10, 9, 0, tzinfo=timezone.utc)


def _day(t):
    return t.date() if t else None


def timeline(texts, others=()):
    """(key, value, first day, last day, ended) of Rosa's homes and jobs after she writes ``texts`` 30 days apart;
    ``others``: (name, address, text) messages sent to her first, in the same thread."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Database(Path(tmp) / "k.sqlite3")
        with db.session() as s:
            index = NameIndex()
            for name, addr, text in others:
                _say(s, index, R(P(name, addr), [P("Rosa Vidal", "rosa@vidal.example", role="to")], thread="t1"),
                     text, T0 - timedelta(days=1))
            for i, text in enumerate(texts):
                _say(s, index, R(P("Rosa Vidal", "rosa@vidal.example"), thread="t1"), text, T0 + timedelta(days=30 * i))
            [rosa] = s.exec(select(Entity).where(Entity.canonical_name == "Rosa Vidal")).all()
            out = sorted(((f.key, f.value, _day(f.valid_from), _day(f.valid_to), f.superseded_by is not None)
                          for f in s.exec(select(Fact).where(Fact.subject_entity_id == rosa.id,
                                                             Fact.key.in_(("home", "employer")))).all()),
                         key=lambda x: (x[0], x[2] or date.min, x[1]))
            bosses = sorted(f.value for f in s.exec(select(Fact).where(Fact.subject_entity_id == rosa.id,
                                                                       Fact.key.startswith("relation:boss"))).all())
        db.close()
    return out, bosses


# ----------------------------------------------------------------------------- past homes and jobs

@pytest.mark.parametrize("texts, want", [
    # was: nothing at all — a home that was states no history
    (["I used to live in Rome."], [("home", "Rome", None, date(2023, 1, 10), True)]),
    (["I lived in Paris from 2010 to 2015."], [("home", "Paris", date(2010, 1, 1), date(2015, 1, 1), True)]),
    (["Ana and I are fine. I worked at Initech from March 2015 to June 2019."],
     [("employer", "Initech", date(2015, 3, 1), date(2019, 6, 1), True)]),
    # what came next is the home (the job) from then on
    (["I lived in Paris for five years before moving to Lyon."],
     [("home", "Paris", None, date(2023, 1, 10), True), ("home", "Lyon", date(2023, 1, 10), None, False)]),
    (["I worked at Initech for six years before joining Globex."],
     [("employer", "Initech", None, date(2023, 1, 10), True), ("employer", "Globex", date(2023, 1, 10), None, False)]),
    # a home in effect is ended by the spell's end, not written twice
    (["I live in Leeds.", "I lived in Leeds until 2024."],
     [("home", "Leeds", date(2023, 1, 10), date(2024, 1, 1), True)]),
    # a past spell told after the current home is history beside it; the current home stays current
    (["I live in Lyon.", "I lived in Paris from 2010 to 2015."],
     [("home", "Paris", date(2010, 1, 1), date(2015, 1, 1), True), ("home", "Lyon", date(2023, 1, 10), None, False)]),
    # still so: the present perfect is a home that is; a bare past is no spell; a negation states nothing
    (["I've lived in Paris for five years."], [("home", "Paris", date(2018, 1, 10), None, False)]),
    (["I lived in Paris."], []),
    (["I never used to live in Rome."], []),
])
def test_a_spell_that_was_is_history(texts, want):
    assert timeline(texts)[0] == want


# ----------------------------------------------------------------------------- seasons and parts of a year

@pytest.mark.parametrize("text, day", [
    ("We moved to Leeds in early 2021.", date(2021, 1, 1)),   # was: the message's day, 2023-01-10
    ("I moved to Leeds in late 2019.", date(2019, 9, 1)),
    ("I moved to Leeds in mid-2018.", date(2018, 7, 1)),
    ("I moved to Leeds at the end of 2020.", date(2020, 12, 1)),
    ("I started at Initech last summer.", date(2022, 6, 1)),  # written in January: the summer of 2022
    ("I moved to Leeds in the spring of 2019.", date(2019, 3, 1)),
    ("I moved to Leeds in winter 2021.", date(2021, 1, 1)),
    ("I moved to Leeds last winter.", date(2021, 12, 1)),     # January is in the winter from 1 Dec 2022: the one before
    ("I moved to Leeds this winter.", date(2022, 12, 1)),     # the winter the message is in
    ("I moved to Oslo this summer, love it here.", date(2022, 6, 1)),  # past tense in January: the last one
    ("I'm moving to Oslo this summer.", date(2023, 6, 1)),
    ("I'm moving to Leeds next spring.", date(2023, 3, 1)),
    ("I moved to Leeds in the autumn.", date(2022, 9, 1)),    # past tense: the latest autumn up to the message
])
def test_seasons_and_parts_of_a_year_date_a_fact(text, day):
    [f] = extract_facts(text, T0)
    assert f.valid_from == day


@pytest.mark.parametrize("text", ["I bought a summer dress.", "Summer is great.", "The Winter Olympics were fun."])
def test_a_season_word_alone_is_no_date(text):
    assert find_time_anchors(text, T0) == []


# ----------------------------------------------------------------------------- a person worked for

def test_working_for_someone_in_the_thread_is_a_boss_not_an_employer():
    # was: an employer "Tom" (a thing named Tom beside the person Tom Baker)
    facts, bosses = timeline(["I work for Tom now."], others=[("Tom Baker", "tom@baker.example", "Morning!")])
    assert facts == [] and bosses == ["Tom Baker"]  # the one in the thread


def test_working_for_a_titled_name_is_a_boss():
    facts, bosses = timeline(["I work for Dr. Patel."])
    assert facts == [] and bosses == ["Dr. Patel"]


@pytest.mark.parametrize("text, employer", [("I work for Morgan Stanley.", "Morgan Stanley"),
                                            ("I work for Tom Ford.", "Tom Ford"),
                                            ("I work at Tom's Diner.", "Tom's Diner")])
def test_a_company_named_like_a_person_stays_an_employer_when_no_such_person_is_known(text, employer):
    facts, bosses = timeline([text])
    assert [(k, v) for k, v, *_ in facts] == [("employer", employer)] and bosses == []


# ----------------------------------------------------------------------------- leaving for somewhere new

@pytest.mark.parametrize("text, want", [
    # was: nothing — neither name known, what followed could not be told
    ("I left Initech for Globex.", [("employer", "Initech", None, date(2023, 1, 10), True),
                                    ("employer", "Globex", date(2023, 1, 10), None, False)]),
    ("I left Lyon for Madrid.", [("home", "Lyon", None, date(2023, 1, 10), True),
                                 ("home", "Madrid", date(2023, 1, 10), None, False)]),
    ("I left Hooli for Italy.", [("home", "Italy", date(2023, 1, 10), None, False)]),  # Hooli was no home
])
def test_a_leaving_with_two_new_names_is_told_by_the_gazetteer(text, want):
    assert timeline([text])[0] == want


# ----------------------------------------------------------------------------- the job a move is for

@pytest.mark.parametrize("text, subject, employer, day", [
    # was: a home in Hamburg only ("for a new job at" had no verb of getting before it)
    ("I'm moving to Hamburg next month for a new job at Airbus!", None, "Airbus", date(2023, 2, 1)),
    ("Ana relocated to Leeds for a job with Arup.", "Ana", "Arup", date(2023, 1, 10)),
    ("Tom is moving to Rome for his new role at FAO.", "Tom", "FAO", date(2023, 1, 10)),
])
def test_the_job_a_move_is_for_is_an_employer(text, subject, employer, day):
    jobs = [(f.subject.name, f.value, f.valid_from) for f in extract_facts(text, T0) if f.key == "employer"]
    assert jobs == [(subject, employer, day)]


def test_a_trip_for_an_interview_is_no_job():
    assert extract_facts("I'm going to Paris for a job interview at Airbus.", T0) == []


def test_working_for_a_person_known_from_another_chat_is_a_boss():
    # Tom Baker wrote in another thread; "I work for Tom" was an employer "Tom" (a thing)
    with tempfile.TemporaryDirectory() as tmp:
        db = Database(Path(tmp) / "k.sqlite3")
        with db.session() as s:
            index = NameIndex()
            _say(s, index, R(P("Tom Baker", "tom@baker.example"), thread="other"), "Morning!", T0)
            _say(s, index, R(P("Rosa Vidal", "rosa@vidal.example"), thread="t1"), "I work for Tom now.", T0)
            _say(s, index, R(P("Rosa Vidal", "rosa@vidal.example"), thread="t1"), "I used to work for Tom.", T0)
            keys = sorted((f.key, f.value) for f in s.exec(select(Fact)).all() if f.domain != "identity")
            things = [e.canonical_name for e in s.exec(select(Entity).where(Entity.kind == "thing")).all()]
        db.close()
    assert ("employer", "Tom") not in keys and [k[0] for k in keys if k[0].startswith("relation:boss")] == [
        "relation:boss:tom"]
    assert "Tom" not in things  # a person worked for, not an organisation


@pytest.mark.parametrize("text, value, day", [
    ("Hey Rosa! I used to live in Rome, did you know?", "Rome", date(2023, 1, 10)),  # a tag question: still said
    ("I lived in Paris until last summer.", "Paris", date(2022, 6, 1)),              # "until" a time anchor
])
def test_a_spell_told_with_a_tag_question_or_until_an_anchor(text, value, day):
    [f] = extract_facts(text, T0)
    assert (f.value, f.valid_from, f.held) == (value, day, True)


def test_until_an_event_is_no_day():
    assert extract_facts("I lived in Paris until I met Tom.", T0) == []


@pytest.mark.parametrize("text", ["He said I used to live in Rome lol.", "Tom thinks I moved to Oslo.",
                                  "She told everyone that I work at Initech."])
def test_what_someone_else_says_of_the_writer_is_no_fact_of_the_writer(text):
    assert extract_facts(text, T0) == []


def test_a_dated_move_ends_an_undated_spell_before_it():
    # "I lived in Paris for five years before moving to Lyon" (said 10 Jan 2023: Paris until then), then "In the
    # spring of 2019 I moved to Lyon": Paris ended by March 2019 — it overlapped Lyon until 2023
    assert timeline(["I lived in Paris for five years before moving to Lyon.",
                     "In the spring of 2019 I moved to Lyon."])[0] == [
        ("home", "Paris", None, date(2019, 3, 1), True), ("home", "Lyon", date(2019, 3, 1), None, False)]


def test_and_now_starts_a_clause_of_its_own_and_a_relative_is_one_as_of_the_message():
    at = datetime(2023, 5, 12, 9, 0, tzinfo=timezone.utc)
    got = [(f.key, f.value, f.valid_from) for f in
           extract_facts("I worked at Initech from 2015 to 2019 and now I work for Dr. Patel.", at)]
    assert ("employer", "Dr. Patel", date(2023, 5, 12)) in got  # was 2015-01-01, the other clause's year
    [boss] = extract_facts("My boss Carla Mendes wants the report by Friday.", at)
    assert (boss.key, boss.valid_from) == ("relation:boss:carla mendes", date(2023, 5, 12))  # was Friday the 19th

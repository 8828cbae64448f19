"""Pass 25 on personal facts: phrasings of homes, jobs and relatives as people write them in mail and chats, and
the days they are dated to.  Inputs written by the tests themselves.

Right values worked out by hand: the message is sent Sat 1 Jul 2023 10:00 UTC unless a test says otherwise
(so "last March" is March 2023 — the latest March before July — and "next March" is March 2024)."""
from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from core.extraction.personal_facts import extract_facts
from core.extraction.time_anchors import find_time_anchors

JUL = datetime(2023, 7, 1, 10, 0, tzinfo=timezone.utc)


def facts(text: str, at: datetime = JUL):
    """(subject kind, relation, name, key, value, first day, ended) of each fact in ``text``."""
    return [(f.subject.kind, f.subject.relation, f.subject.name, f.key, f.value, f.valid_from, bool(f.ends))
            for f in extract_facts(text, at)]


@pytest.mark.parametrize("text, day", [
    # was: no anchor ("last March" is no "in March"), so the move took the message's day, 2023-07-01
    ("Last March I moved to Leeds.", date(2023, 3, 1)),
    ("I moved to Leeds last March.", date(2023, 3, 1)),
    ("I moved to Leeds last July.", date(2022, 7, 1)),  # July is the message's month: the one a year before
    ("I moved to Leeds this March.", date(2023, 3, 1)),
    ("I'm moving to Leeds next March.", date(2024, 3, 1)),
    # was 2023-03-01: "In March" read alone, "last year" a second anchor after it
    ("In March last year I moved to Leeds.", date(2022, 3, 1)),
    ("I moved to Leeds in March last year.", date(2022, 3, 1)),
    ("I'm moving to Leeds in February next year.", date(2024, 2, 1)),
])
def test_a_month_named_by_last_this_next_or_with_its_year_word(text, day):
    assert facts(text) == [("speaker", None, None, "home", "Leeds", day, False)]


def test_last_march_written_in_march_is_a_year_back():
    at = datetime(2023, 3, 20, 9, 0, tzinfo=timezone.utc)
    assert [(a.phrase, a.day) for a in find_time_anchors("We met last March.", at)] == [
        ("last March", date(2022, 3, 1))]


@pytest.mark.parametrize("text, key, value, day", [
    # was: nothing — the month May read as the hedge "may" ("I may move to Leeds")
    ("In May I moved to Leeds.", "home", "Leeds", date(2023, 5, 1)),
    ("Since May I've been living in Leeds.", "home", "Leeds", date(2023, 5, 1)),
    ("Since last May I've been living in Leeds.", "home", "Leeds", date(2023, 5, 1)),
    ("On 3 May I started at Globex.", "employer", "Globex", date(2023, 5, 3)),
])
def test_the_month_may_is_no_hedge(text, key, value, day):
    assert facts(text) == [("speaker", None, None, key, value, day, False)]


@pytest.mark.parametrize("text", ["I may move to Leeds.", "May I move to Leeds.", "We may move to Leeds in May."])
def test_the_word_may_still_hedges(text):
    assert facts(text) == []


@pytest.mark.parametrize("text, relation, name, key, value", [
    # was: "My brother-in-law Mark …" made Mark the writer's brother ('relation:brother:mark'), and "My sister-in-law
    # lives in Leeds" mentioned a sister, with no home
    ("My brother-in-law Mark works at Google.", "brother-in-law", "Mark", "employer", "Google"),
    ("My sister-in-law lives in Leeds.", "sister-in-law", None, "home", "Leeds"),
    ("My mother-in-law moved to Leeds.", "mother-in-law", None, "home", "Leeds"),
    ("My stepdad lives in Ohio.", "stepfather", None, "home", "Ohio"),
    ("My step-mom lives in Ohio.", "stepmother", None, "home", "Ohio"),
    ("My half-brother moved to Leeds.", "half-brother", None, "home", "Leeds"),
])
def test_relatives_by_marriage_and_step_relatives_are_relations_of_their_own(text, relation, name, key, value):
    rel_key = f"relation:{relation}" + (f":{name.lower()}" if name else "")
    assert facts(text) == [("relation", relation, name, key, value, date(2023, 7, 1), False),
                           ("speaker", None, None, rel_key, name or relation, date(2023, 7, 1), False)]


def test_an_ex_is_no_relative():
    assert facts("My ex-wife lives in Ohio.") == []  # was nothing too; "wife" must not be read out of it


@pytest.mark.parametrize("text, want", [
    # was: a sister named "Jane's" (key relation:sister:jane's)
    ("My sister Jane's moved to Leeds.", [("relation", "sister", "Jane", "home", "Leeds", date(2023, 7, 1), False),
                                          ("speaker", None, None, "relation:sister:jane", "Jane", date(2023, 7, 1),
                                           False)]),
    # and Jane's boyfriend lives in Leeds (a relative of the sister, told by the writer)
    ("My sister Jane's boyfriend lives in Leeds.", [("relation", "boyfriend", None, "home", "Leeds", date(2023, 7, 1),
                                                     False),
                                                    ("name", None, "Jane", "relation:boyfriend", "boyfriend",
                                                     date(2023, 7, 1), False),
                                                    ("speaker", None, None, "relation:sister:jane", "Jane",
                                                     date(2023, 7, 1), False)]),
])
def test_a_relatives_name_in_the_possessive_is_the_name(text, want):
    assert facts(text) == want


@pytest.mark.parametrize("text", [
    "I left Berlin for the weekend.", "We left Paris for a week in Spain.", "I left London for Christmas.",
    "I left Leeds on Friday for a few days.", "I left Berlin at 6am.", "Left London early this morning.",
])
def test_leaving_for_a_trip_or_for_the_day_ends_nothing(text):
    # was: each ended the writer's home (or job) of that name — a weekend away made Berlin history
    assert facts(text) == []


@pytest.mark.parametrize("text, value, then, day", [
    ("I left Berlin for Madrid last month.", "Berlin", "Madrid", date(2023, 6, 1)),
    ("I left Initech for Globex in May.", "Initech", "Globex", date(2023, 5, 1)),
    ("I left Initech last month for Globex.", "Initech", "Globex", date(2023, 6, 1)),
    ("We left London for good.", "London", None, date(2023, 7, 1)),
    ("I left Initech after five years.", "Initech", None, date(2023, 7, 1)),
])
def test_leaving_for_somewhere_names_what_follows(text, value, then, day):
    [c] = extract_facts(text, JUL)
    assert (c.value, c.then, c.valid_from, bool(c.ends)) == (value, then, day, True)


def test_leaving_to_join_is_a_job_that_follows():
    [c] = extract_facts("I left Initech to join Globex.", JUL)
    assert (c.key, c.value, c.then, c.ends) == ("employer", "Initech", "Globex",
                                                (("work", "employment", "employer"),))


def _timeline(texts, start=datetime(2023, 1, 10, 9, 0, tzinfo=timezone.utc)):
    """(key, value, first day, last day) of Rosa's homes and jobs after she writes ``texts``, 30 days apart."""
    from datetime import timedelta

    from sqlmodel import select

    from core.graph.resolution import NameIndex
    from core.store.db import Database
    from core.store.schema import Fact
    from test_identity_pass25 import P, R, _say

    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        db = Database(Path(tmp) / "k.sqlite3")
        with db.session() as s:
            index = NameIndex()
            for i, text in enumerate(texts):
                _say(s, index, R(P("Rosa Vidal", "rosa@vidal.example")), text, start + timedelta(days=30 * i))
            out = sorted(((f.key, f.value, f.valid_from and f.valid_from.date(), f.valid_to and f.valid_to.date())
                          for f in s.exec(select(Fact).where(Fact.key.in_(("home", "employer")))).all()),
                         key=lambda x: (x[0], x[1], x[2] or date.min))
        db.close()
    return out


@pytest.mark.parametrize("texts, want", [
    # was: Berlin ended, no home after it (Madrid was never read)
    (["I live in Berlin.", "I left Berlin for Madrid last week."],
     [("home", "Berlin", date(2023, 1, 10), date(2023, 1, 30)), ("home", "Madrid", date(2023, 1, 30), None)]),
    (["I work at Initech.", "I left Initech to join Globex."],
     [("employer", "Globex", date(2023, 2, 9), None), ("employer", "Initech", date(2023, 1, 10), date(2023, 2, 9))]),
    # was: Berlin ended on 9 February by a weekend away
    (["I live in Berlin.", "I left Berlin for the weekend."], [("home", "Berlin", date(2023, 1, 10), None)]),
    # Berlin known only as a place (her sister's home): the writer's home follows
    (["My sister lives in Berlin.", "I left Berlin for Madrid."],  # and Rosa's own Berlin, history (stop 25)
     [("home", "Berlin", None, date(2023, 2, 9)), ("home", "Berlin", date(2023, 1, 10), None),
      ("home", "Madrid", date(2023, 2, 9), None)]),
    # neither name known: the gazetteer tells a town from an organisation, and what was left is history (stop 25;
    # was: nothing stated)
    (["I left Initech for Globex."], [("employer", "Globex", date(2023, 1, 10), None),
                                      ("employer", "Initech", None, date(2023, 1, 10))]),
    (["I left Lyon for Madrid."], [("home", "Lyon", None, date(2023, 1, 10)), ("home", "Madrid", date(2023, 1, 10), None)]),
])
def test_what_follows_a_leaving_takes_the_kind_of_what_ended(texts, want):
    assert _timeline(texts) == want


@pytest.mark.parametrize("text, want", [
    # was: a person named Initech living in Leeds, a person named Leeds working at Initech, a person named Initech
    ("My friend who works at Initech moved to Leeds.", [("speaker", None, None, "relation:friend", "friend",
                                                         date(2023, 7, 1), False)]),
    ("The guy who lives in Leeds works at Initech.", []),
    ("Everyone at Initech moved to Leeds.", []),
    # a date after the preposition is no object: the name after it is the subject
    ("In March Tom moved to Leeds.", [("name", None, "Tom", "home", "Leeds", date(2023, 3, 1), False)]),
    ("Jane, Tom moved to Leeds.", [("name", None, "Tom", "home", "Leeds", date(2023, 7, 1), False)]),
])
def test_a_name_after_a_preposition_is_no_subject(text, want):
    assert facts(text) == want


@pytest.mark.parametrize("texts, want", [
    # was: a person "Initech" (home Leeds) beside the employer Initech
    (["I work at Initech.", "Initech moved to Leeds."], [("employer", "Initech", date(2023, 1, 10), None)]),
    # a place's name may be a person's: Sydney is someone
    (["My sister lives in Sydney.", "Sydney moved to Leeds."],
     [("home", "Leeds", date(2023, 2, 9), None), ("home", "Sydney", date(2023, 1, 10), None)]),
])
def test_an_organisation_named_as_a_subject_is_no_person(texts, want):
    assert _timeline(texts) == want


@pytest.mark.parametrize("text, want", [
    # was: the sentence cut after "D." — home "Washington, D", dated the message's day, not last year
    ("I moved to Washington, D.C. last year.", [("home", "Washington, D.C.", date(2022, 1, 1))]),
    ("I moved to the U.S. in May.", [("home", "U.S.", date(2023, 5, 1))]),
    ("I moved to the U.S. Then I got a job at Globex.", [("home", "U.S.", date(2023, 7, 1)),
                                                         ("employer", "Globex", date(2023, 7, 1))]),
    ("I work at J.P. Morgan now.", [("employer", "J.P. Morgan", date(2023, 7, 1))]),  # was "J.P."
    ("I live in the U.K. Tom lives in Leeds.", [("home", "U.K.", date(2023, 7, 1)), ("home", "Leeds", date(2023, 7, 1))]),
])
def test_an_initialisms_dots_end_no_sentence(text, want):
    assert [(f.key, f.value, f.valid_from) for f in extract_facts(text, JUL)] == want


@pytest.mark.parametrize("text, want", [
    # was: employer "Leeds", "Initech's London", "Starbucks", "Tesco's"
    ("I'm working at the Leeds office today.", []),
    ("I work at the Berlin office.", []),
    ("I'm working at Starbucks today because the wifi is down.", []),
    ("I work at Initech's London office.", ["Initech"]),
    ("I work at Tesco's head office.", ["Tesco"]),
    ("I work at Initech's office in Leeds.", ["Initech"]),
    # still employers
    ("I work at McDonald's.", ["McDonald's"]),
    ("I'm working at Initech now.", ["Initech"]),
    ("I started working at Globex today.", ["Globex"]),
])
def test_where_someone_works_for_the_day_or_a_branch_is_no_employer(text, want):
    assert [f.value for f in extract_facts(text, JUL) if f.key == "employer"] == want


@pytest.mark.parametrize("text, want", [
    # was: only the second of the two (Ana; the writer; the writer; Dad; Tom)
    ("Tom and Ana moved to Leeds.", [("name", None, "Ana", "home", "Leeds"), ("name", None, "Tom", "home", "Leeds")]),
    ("Sarah and I work at Initech.", [("speaker", None, None, "employer", "Initech"),
                                      ("name", None, "Sarah", "employer", "Initech")]),
    ("My sister and I live in York.", [("speaker", None, None, "home", "York"),
                                       ("relation", "sister", None, "home", "York"),
                                       ("speaker", None, None, "relation:sister", "sister")]),
    ("Mum and Dad moved to Spain.", [("relation", "father", None, "home", "Spain"),
                                     ("relation", "mother", None, "home", "Spain")]),
    ("Me and Tom moved to Leeds.", [("name", None, "Tom", "home", "Leeds"), ("speaker", None, None, "home", "Leeds")]),
    # not a subject: after a preposition, or no name
    ("I went with Tom and Ana moved to Leeds.", [("name", None, "Ana", "home", "Leeds")]),
    ("Congrats and Ana moved to Leeds.", [("name", None, "Ana", "home", "Leeds")]),
])
def test_two_named_together_both_move_or_work_there(text, want):
    assert [row[:5] for row in facts(text)] == want


def test_a_name_ending_a_verb_phrase_before_and_is_no_subject():
    assert [row[:5] for row in facts("I've left Initech and I'm now working for Globex.")] == [
        ("speaker", None, None, "employer", "Globex"), ("speaker", None, None, "employer", "Initech")]


@pytest.mark.parametrize("text, want", [
    # was: nothing
    ("I've been at Initech for three years.", [("speaker", None, None, "employer", "Initech", date(2020, 7, 1), False)]),
    ("I've been with Globex since 2019.", [("speaker", None, None, "employer", "Globex", date(2019, 1, 1), False)]),
    ("Ana has been at Initech for 18 months now.", [("name", None, "Ana", "employer", "Initech", date(2022, 1, 1),
                                                     False)]),
    ("Tom's been at Hooli for a year.", [("name", None, "Tom", "employer", "Hooli", date(2022, 7, 1), False)]),
    # a job that was, a stay, a visit
    ("I had been at Initech for three years.", []),
    ("I've been at the airport for two hours.", []),
    ("I've been at St Mary's for two weeks.", []),
    ("I'm still at Globex.", []),
])
def test_time_spent_at_an_organisation_is_a_job_since_then(text, want):
    assert facts(text) == want


@pytest.mark.parametrize("text", [
    # was: people named "Did Tom" (home Leeds) and "Has Ana" (employer Globex)
    "Did Tom move to Leeds.", "Has Ana started at Globex yet", "Is your sister living in Leeds now",
    "Have you moved to Leeds yet lol",
])
def test_a_question_without_its_mark_states_nothing(text):
    assert facts(text) == []


@pytest.mark.parametrize("text, who", [("Will moved to Leeds.", "Will"), ("Will Smith moved to Leeds.", "Will Smith")])
def test_a_name_like_an_auxiliary_is_still_a_name(text, who):
    assert [(f.subject.name, f.value) for f in extract_facts(text, JUL)] == [(who, "Leeds")]


@pytest.mark.parametrize("text", [
    # was: each a move or a job as of the message's day
    "Once I move to Leeds I'll call you.", "Unless I move to Leeds.", "When Tom starts at Globex we'll celebrate.",
    "As soon as I start at Globex I'll tell you.", "Not sure whether Tom works at Initech.",
])
def test_a_time_to_come_or_a_condition_states_no_move(text):
    assert facts(text) == []


@pytest.mark.parametrize("text, want", [
    ("Once I moved to Leeds, everything changed.", [("home", "Leeds")]),
    ("When I moved to Leeds last year I joined Globex.", [("employer", "Globex"), ("home", "Leeds")]),
])
def test_the_same_clauses_in_the_past_still_state_it(text, want):
    assert [(f.key, f.value) for f in extract_facts(text, JUL)] == want


def test_my_parents_are_the_mother_and_the_father():
    # was: nothing ("parents" was no relation word)
    assert facts("My parents moved to Spain last year.") == [
        ("relation", "mother", None, "home", "Spain", date(2022, 1, 1), False),
        ("relation", "father", None, "home", "Spain", date(2022, 1, 1), False),
        # the relatives as of the message (stop 25), not from the day of the move the sentence tells
        ("speaker", None, None, "relation:mother", "mother", date(2023, 7, 1), False),
        ("speaker", None, None, "relation:father", "father", date(2023, 7, 1), False)]
    assert [(f.subject.of, f.subject.relation, f.value) for f in extract_facts("Nina's parents live in Cork.", JUL)
            if f.key == "home"] == [("Nina", "mother", "Cork"), ("Nina", "father", "Cork")]

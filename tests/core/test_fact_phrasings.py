"""Pass 24 on the home/job phrasings of issue 13's kinds (``mbox_superseded_home``, ``mbox_yesterday_timezones``):
more ways people write that they moved or changed job — "based in", "currently live", "moved from X to Y", "moved
into a flat in", "started my new job at", "I'm no longer at" — chat spellings of the pronoun ("im", "ive", "i") and
diary-style sentences without a subject ("Just moved to Paris!"), and the simple past, which states a home or job
that was, not the current one ("I worked at Initech for five years").

Right values worked out by hand: the message is sent Sat 10 Jun 2023 08:30 +10:00 (weeks start on Monday, so "last
week" is Mon 29 May 2023 and "on Monday" is Mon 12 Jun 2023)."""
from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from core.extraction.personal_facts import extract_facts

SAT = datetime(2023, 6, 10, 8, 30, tzinfo=timezone(timedelta(hours=10)))


def facts(text: str):
    """(subject kind, key, value, first day, ended) of each home/job fact in ``text``."""
    return [(f.subject.kind, f.key, f.value, f.valid_from, bool(f.ends)) for f in extract_facts(text, SAT)
            if f.key in ("home", "employer")]


@pytest.mark.parametrize("text, want", [
    ("I'm now based in Dublin.", ("speaker", "home", "Dublin", date(2023, 6, 10), False)),
    ("We're based out of Lyon these days.", ("speaker", "home", "Lyon", date(2023, 6, 10), False)),
    ("I currently live in Leeds.", ("speaker", "home", "Leeds", date(2023, 6, 10), False)),
    ("I moved from Berlin to Rome last week.", ("speaker", "home", "Rome", date(2023, 5, 29), False)),
    ("We just moved into a flat in Leeds.", ("speaker", "home", "Leeds", date(2023, 6, 10), False)),
    ("I moved house to Cardiff.", ("speaker", "home", "Cardiff", date(2023, 6, 10), False)),
    ("I just started my new job at Initech.", ("speaker", "employer", "Initech", date(2023, 6, 10), False)),
    ("I'm starting a new job at Hooli on Monday.", ("speaker", "employer", "Hooli", date(2023, 6, 12), False)),
    ("I've worked at Initech since 2019.", ("speaker", "employer", "Initech", date(2019, 1, 1), False)),
    ("I'm no longer at Initech.", ("speaker", "employer", "Initech", date(2023, 6, 10), True)),
    ("I'm no longer living in Berlin.", ("speaker", "home", "Berlin", date(2023, 6, 10), True)),
    # chat spellings of "I"
    ("Im living in Cardiff now", ("speaker", "home", "Cardiff", date(2023, 6, 10), False)),
    ("ive moved to Cardiff", ("speaker", "home", "Cardiff", date(2023, 6, 10), False)),
    ("i moved to Cardiff last week", ("speaker", "home", "Cardiff", date(2023, 5, 29), False)),
    # diary style: the writer's own
    ("Just moved to Paris!", ("speaker", "home", "Paris", date(2023, 6, 10), False)),
    ("Moved to Paris last week.", ("speaker", "home", "Paris", date(2023, 5, 29), False)),
    ("Got a new job at Hooli!", ("speaker", "employer", "Hooli", date(2023, 6, 10), False)),
    ("Left Initech today.", ("speaker", "employer", "Initech", date(2023, 6, 10), True)),
    # the relative, not the writer
    ("My sister is based in Oslo.", ("relation", "home", "Oslo", date(2023, 6, 10), False)),
])
def test_more_ways_of_saying_a_home_or_a_job(text, want):
    assert facts(text) == [want]


@pytest.mark.parametrize("text", [
    "I worked at Initech for five years.",      # a job that was
    "I lived in Berlin for years.",             # a home that was
    "Acme is based in Leeds.",                  # a company's seat, not anyone's home
    '"Just moved to Paris," she said.',         # someone else's words
    "Started the car and drove off.",
    "Joined the call late.",
])
def test_what_states_no_current_home_or_job(text):
    assert [f for f in facts(text) if not f[-1]] == []  # a job that was is an ending (a past spell), nothing current


def test_a_job_that_was_is_a_past_spell():
    assert facts("I worked at Initech for five years.") == [("speaker", "employer", "Initech", date(2023, 6, 10),
                                                             True)]


def test_chat_pronouns_never_become_a_person_and_names_stay_names():
    # "Im" was read as a person named "Im" who lives in Cardiff
    assert [(f.subject.kind, f.subject.name) for f in extract_facts("Im living in Cardiff.", SAT)] == [("speaker", None)]
    assert [(f.subject.kind, f.subject.name, f.value) for f in extract_facts("Jony Ive moved to Cardiff.", SAT)] == [
        ("name", "Jony Ive", "Cardiff")]


def test_the_evidence_is_the_sentence_as_written():
    [f] = extract_facts("im living in Cardiff now", SAT)
    assert f.sentence == "im living in Cardiff now"


@pytest.mark.parametrize("text", ["Everyone moved to Leeds.", "Nobody lives in Leeds anymore.",
                                  "Everybody works at Initech.", "People live in Leeds.", "Someone joined Initech."])
def test_a_pronoun_for_people_at_large_is_no_ones_name(text):
    # each made a person named "Everyone", "Nobody", … with a home or a job
    assert facts(text) == []


@pytest.mark.parametrize("text, want", [
    ('Tom wrote: "I moved to Nice." Can you believe it?', []),
    ("Tom wrote: “I moved to Nice.” Wow.", []),
    ("My friend said: I moved to Oslo.", []),
    ('Tom wrote: "I love it. I joined Globex." I live in Leeds.', [("speaker", "home", "Leeds", date(2023, 6, 10),
                                                                   False)]),
    ("She said “my sister moved to Rome” and I moved to Bath.", [("speaker", "home", "Bath", date(2023, 6, 10),
                                                                 False)]),
    ("I said: I moved to Bath.", [("speaker", "home", "Bath", date(2023, 6, 10), False)]),  # the writer, quoting self
])
def test_quoted_first_person_words_are_the_quoted_persons(text, want):
    # each quoted "I moved to …" was the writer's own new home
    assert facts(text) == want


def test_a_quoted_my_sister_is_not_the_writers_sister():
    found = extract_facts('Tom wrote: "My sister moved to Rome."', SAT)
    assert [(f.subject.kind, f.key) for f in found] == []


@pytest.mark.parametrize("text, day", [
    ("I moved to Leeds at the end of May.", date(2023, 5, 31)),        # was the message's day
    ("I moved to Leeds in mid-March.", date(2023, 3, 15)),
    ("I moved to Leeds in late May.", date(2023, 5, 21)),              # was 1 May
    ("I joined Globex at the beginning of September.", date(2022, 9, 1)),  # past tense: the September before
    ("I moved to Leeds at the end of February 2024.", date(2024, 2, 29)),
    ("I moved to Leeds the week before last.", date(2023, 5, 22)),     # Monday two weeks back; was the message's day
])
def test_parts_of_months_and_the_week_before_last_in_the_senders_calendar(text, day):
    [(_kind, _key, _value, first, _ended)] = facts(text)
    assert first == day


@pytest.mark.parametrize("text, want", [
    # was a person named "March I've" living in Porto
    ("Since March I've been living in Porto.", [("speaker", "home", "Porto", date(2023, 3, 1), False)]),
    # was nothing: "used to" before "but now" hedged the new job too
    ("I used to work at Initech but now I work at Globex.", [("speaker", "employer", "Globex", date(2023, 6, 10),
                                                              False),
                                                             ("speaker", "employer", "Initech", date(2023, 6, 10),
                                                              True)]),  # stop 25: the job that was, ended
    # the ended employer was "Initech and I'm"
    ("I've left Initech and I'm now working for Globex.", [("speaker", "employer", "Globex", date(2023, 6, 10), False),
                                                          ("speaker", "employer", "Initech", date(2023, 6, 10), True)]),
    ("I moved to Leeds, I love it.", [("speaker", "home", "Leeds", date(2023, 6, 10), False)]),  # was "Leeds, I"
    ("I moved to Leeds, West Yorkshire.", [("speaker", "home", "Leeds, West Yorkshire", date(2023, 6, 10), False)]),
    ("I never moved to Leeds but I live in York.", [("speaker", "home", "York", date(2023, 6, 10), False)]),
])
def test_the_pronoun_is_no_part_of_a_name_and_a_hedge_ends_at_its_clause(text, want):
    assert facts(text) == want


@pytest.mark.parametrize("text, who", [
    ("On Monday Tom moved to Leeds.", "Tom"),           # was a person "On Monday Tom"
    ("In March Tom moved to Leeds.", "Tom"),            # was "In March Tom"
    ("Since May Ana has lived in Rome.", "Ana"),        # was "May Ana"
    ("In early March Tom moved to Leeds.", "Tom"),      # was "March Tom"
    ("PS Ana moved to Rome.", "Ana"),                   # was "PS Ana"
    ("June Smith moved to Leeds.", "June Smith"),       # a month that starts a name with no time word is a name
    ("April Jones works at Initech.", "April Jones"),
])
def test_a_date_before_a_name_is_no_part_of_it(text, who):
    assert [f.subject.name for f in extract_facts(text, SAT) if f.key in ("home", "employer")] == [who]


def test_a_date_alone_names_no_one():
    assert facts("In June moved to Leeds.") == []  # was a person "June"


def test_a_name_with_has_contracted_is_the_name():
    # was a person named "Tom's"
    assert [(f.subject.name, f.value) for f in extract_facts("Tom's moved to Leeds.", SAT)] == [("Tom", "Leeds")]
    assert [(f.subject.name, f.value) for f in extract_facts("Ana's started at Globex.", SAT)] == [("Ana", "Globex")]
    assert [f.subject.name for f in extract_facts("O'Brien moved to Leeds.", SAT)] == ["O'Brien"]


@pytest.mark.parametrize("text", ["We're now living in Lyon.", "We’re living in Lyon."])
def test_we_are_is_the_writers_household(text):
    # was a person named "We're" living in Lyon
    assert facts(text) == [("speaker", "home", "Lyon", date(2023, 6, 10), False)]


@pytest.mark.parametrize("text", ["They're living in Lyon.", "You're living in Lyon."])
def test_a_contracted_pronoun_is_no_name(text):
    assert facts(text) == []


@pytest.mark.parametrize("text", ["Remember Tom moved to Leeds.", "Heard Tom moved to Leeds.",
                                  "Imagine Tom moved to Leeds."])
def test_a_verb_opening_the_sentence_is_no_part_of_the_name(text):
    # was a person "Remember Tom", "Heard Tom", "Imagine Tom"
    assert [(f.subject.name, f.value) for f in extract_facts(text, SAT)] == [("Tom", "Leeds")]


def test_a_quotation_over_several_sentences_ends_where_its_mark_does():
    text = "Tom wrote: „Ich bin hier. I moved to Nice.“ I moved to Bath."
    assert facts(text) == [("speaker", "home", "Bath", date(2023, 6, 10), False)]


def test_a_long_message_is_read_in_one_pass():
    import time

    text = ('Hello there. I moved to Leeds last week and "it was fun". ' * 400)[:20000]
    start = time.perf_counter()
    extract_facts(text, SAT)
    assert time.perf_counter() - start < 2.0  # the quotation state was read from the start for every sentence

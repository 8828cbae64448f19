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

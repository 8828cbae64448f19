"""Relative dates in the sender's calendar (issue 13): the message's own offset decides what "yesterday" is.

Right values worked out by hand: Sat 10 Jun 2023 08:30 +10:00 is Fri 9 Jun 22:30 UTC; its sender's
yesterday is Fri 9 Jun (UTC's would be Thu 8 Jun).  Fri 9 Jun 20:00 −07:00 is Sat 10 Jun 03:00 UTC;
its sender's yesterday is Thu 8 Jun.
"""
from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from core import clock
from core.extraction.personal_facts import extract_facts
from core.extraction.time_anchors import find_time_anchors

HOBART = datetime(2023, 6, 10, 8, 30, tzinfo=timezone(timedelta(hours=10)))   # Saturday
LA = datetime(2023, 6, 9, 20, 0, tzinfo=timezone(timedelta(hours=-7)))         # Friday
LEEDS = datetime(2023, 6, 12, 12, 0, tzinfo=timezone.utc)                       # Monday


@pytest.mark.parametrize("text, sent, day", [
    ("I moved to Hobart yesterday.", HOBART, date(2023, 6, 9)),
    ("I started at Brightwave yesterday.", LA, date(2023, 6, 8)),
    ("I moved to Leeds yesterday.", LEEDS, date(2023, 6, 11)),
])
def test_yesterday_is_the_senders_yesterday(text, sent, day):
    facts = extract_facts(text, sent)
    assert [f.valid_from for f in facts] == [day]
    assert facts[0].time_note == f'"yesterday" = {day.isoformat()}, the sender\'s date (sent ' \
        f'{sent:%Y-%m-%d %H:%M} {sent.strftime("%z")[:3]}:{sent.strftime("%z")[3:]})'
    # the same instant in UTC would have given another day for the two far-off zones
    utc_day = find_time_anchors(text, sent.astimezone(timezone.utc))[0].day
    assert (utc_day == day) == (sent.utcoffset() == timedelta(0))


def test_weekday_tonight_and_last_week_are_read_in_the_senders_calendar():
    day = lambda text, sent=HOBART: [a.day for a in find_time_anchors(text, sent)]  # noqa: E731
    assert day("We met on Monday") == [date(2023, 6, 5)]          # past tense: the Monday before
    assert day("I fly out on Monday") == [date(2023, 6, 12)]       # otherwise the next one
    assert day("dinner tonight") == [date(2023, 6, 10)]            # Saturday where she is (Friday in UTC)
    assert day("I saw it last night") == [date(2023, 6, 9)]
    assert day("I moved last week") == [date(2023, 5, 29)]         # Monday of the week before (ISO weeks)
    assert day("dinner tonight", HOBART.astimezone(timezone.utc)) == [date(2023, 6, 9)]


def test_offsets_are_kept_and_shown_back():
    assert clock.offset_minutes(HOBART) == 600 and clock.offset_minutes(LA) == -420
    assert clock.offset_minutes(datetime(2023, 1, 1)) is None  # naive: unknown, not zero
    stored = HOBART.astimezone(timezone.utc).replace(tzinfo=None)  # what SQLite hands back
    assert clock.local_time(stored, 600).isoformat() == "2023-06-10T08:30:00+10:00"
    assert clock.local_time(stored, None).isoformat() == "2023-06-09T22:30:00+00:00"


def test_a_month_named_alone_is_its_first_day_in_the_right_year():
    day = lambda text, sent=date(2023, 10, 10): [a.day for a in find_time_anchors(text, sent)]  # noqa: E731
    assert day("I moved to Lisbon in March.") == [date(2023, 3, 1)]      # past tense: the March before
    assert day("I moved in December.") == [date(2022, 12, 1)]
    assert day("I'm moving to Oslo in March.") == [date(2024, 3, 1)]     # otherwise the next March
    assert day("We met in October 2019.") == [date(2019, 10, 1)]
    assert day("since January I live here") == [date(2023, 1, 1)]        # "since": always before
    assert day("it may rain in may") == []                               # the modal verb is not May


@pytest.mark.parametrize("text, value", [
    ("I moved back to Porto last month.", "Porto"), ("I've just moved to New York City.", "New York City"),
    ("I'm living in Oslo now.", "Oslo"), ("I have finally moved to Lyon.", "Lyon"),
    ("I just moved to Kyoto!", "Kyoto"), ("I'm moving back home to Cork next month.", "Cork"),
    ("I used to live in Malmo, now I live in Uppsala.", "Uppsala"),
])
def test_home_phrasings(text, value):
    homes = [(f.subject.kind, f.value) for f in extract_facts(text, LEEDS) if f.key == "home" and not f.ends]
    assert homes == [("speaker", value)]


@pytest.mark.parametrize("text, phrase, day", [
    # written Sat 1 May 2021: a plan's day is ahead whatever the tense of the verb that set it (it was read as
    # the last 14 August, in 2020, because "confirmed" is a past form)
    ("The wedding is confirmed for 14 August!", "14 August", date(2021, 8, 14)),
    ("We booked the venue for 14 August.", "14 August", date(2021, 8, 14)),
    ("The talk was moved to 3 June.", "3 June", date(2021, 6, 3)),
    # another sentence's tense says nothing of this one's day
    ("Had a great time yesterday! See you on 14 August.", "14 August", date(2021, 8, 14)),
    ("See you on 14 August. Had fun on 3 June.", "3 June", date(2020, 6, 3)),
    # a past day stays past
    ("I moved to Leeds on 3 June.", "3 June", date(2020, 6, 3)),
    ("I moved to Leeds on 3 June and loved it", "3 June", date(2020, 6, 3)),
])
def test_a_yearless_day_follows_its_own_sentence_and_a_plan_is_ahead(text, phrase, day):
    got = {a.phrase: a.day for a in find_time_anchors(text, date(2021, 5, 1))}
    assert got[phrase] == day


@pytest.mark.parametrize("text, phrase, day", [
    # written Sat 1 July 2023; 12 June 2023 is a Monday, 12 June 2022 a Sunday, 14 March 2024 a Thursday
    ("I moved on Mon 12 June.", "Mon 12 June", date(2023, 6, 12)),
    ("We went on Sunday, June 12.", "Sunday, June 12", date(2022, 6, 12)),  # the weekday names the year
    ("See you Thursday 14 March", "Thursday 14 March", date(2024, 3, 14)),
    ("I moved on Mon 12 June 2023.", "Mon 12 June 2023", date(2023, 6, 12)),  # one anchor, not "on Mon" too
    ("It happened on Fri 12 June.", "Fri 12 June", date(2023, 6, 12)),  # no year near fits: the tense's
])
def test_a_weekday_written_before_a_yearless_day_settles_its_year(text, phrase, day):
    assert [(a.phrase, a.day) for a in find_time_anchors(text, date(2023, 7, 1))] == [(phrase, day)]

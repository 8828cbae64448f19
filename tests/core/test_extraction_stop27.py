"""Red-team faults of stop 27 in core/extraction: a date without its year, spans of days, a signature's job.

Right values worked out by hand.  The message is sent Wed 15 May 2024 10:00 +01:00 (the sender's day: 15 May 2024).
A date without a year is the last one up to the message in the past tense, the next one in words of time to come,
else (no tense, or a booking told in the past) the one nearest the message — within six months either side (Wed 15
May 2024's Friday before is 10 May):
9 June 2024 is 25 days ahead, 9 June 2023 is 341 days back; 3 May 2024 is 12 days back; 20 December 2023 is 147 days
back and 20 December 2024 219 ahead.
"""
from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from core.extraction.personal_facts import extract_facts
from core.extraction.time_anchors import anchor_period, find_time_anchors

SENT = datetime(2024, 5, 15, 10, 0, tzinfo=timezone(timedelta(hours=1)))


def days(text: str, sent=SENT) -> list[tuple[str, date]]:
    return [(a.phrase, a.day) for a in find_time_anchors(text, sent)]


@pytest.mark.parametrize("text, phrase, day", [
    # the fault: a booking told in the past named last year's June (2023-06-09)
    ("Booked the flight to Lisbon on 9 June", "9 June", date(2024, 6, 9)),
    ("Booked the flight to Lisbon on June 9th.", "June 9th", date(2024, 6, 9)),
    ("We've reserved a table at Nando's on 20 May.", "20 May", date(2024, 5, 20)),
    ("I booked the hotel on 2 May.", "2 May", date(2024, 5, 2)),           # the nearest: 13 days back
    # words of time to come: the next one, however far
    ("I'll fly to Lisbon on 9 April.", "9 April", date(2025, 4, 9)),
    ("I'm flying to Lisbon on 9 June.", "9 June", date(2024, 6, 9)),
    ("The conference is on 20 December.", "20 December", date(2024, 12, 20)),  # a timetable's present
    ("I'm so excited for 9 April!", "9 April", date(2025, 4, 9)),            # a state now ("excited") is no past
    ("The shop is closed on 20 December.", "20 December", date(2024, 12, 20)),
    # the past tense: the last one up to the message, however far
    ("I moved to Leeds on 3 June.", "3 June", date(2023, 6, 3)),
    ("We flew home on 20 December.", "20 December", date(2023, 12, 20)),
    # no tense: the nearest
    ("Thanks for coming on 3 May!", "3 May", date(2024, 5, 3)),
    ("Photos from 20 December attached", "20 December", date(2023, 12, 20)),
    ("Lisbon trip: 9 June", "9 June", date(2024, 6, 9)),
    ("Dinner on 14 May?", "14 May", date(2024, 5, 14)),                     # yesterday, not next year's
])
def test_a_date_without_a_year_takes_the_year_its_words_point_to(text, phrase, day):
    assert days(text) == [(phrase, day)]


def test_the_year_is_read_near_the_message_at_either_end_of_a_year():
    # written 10 January 2024: "on 28 December" with no tense is 13 days back, not 353 ahead; booked for a day in
    # February, 22 days ahead
    jan = datetime(2024, 1, 10, 9, 0, tzinfo=timezone.utc)
    assert days("Happy memories of the party on 28 December", jan) == [("28 December", date(2023, 12, 28))]
    assert days("Booked the train to Leeds on 1 February.", jan) == [("1 February", date(2024, 2, 1))]
    assert days("I'll see them on 28 December.", jan) == [("28 December", date(2024, 12, 28))]
    # a booking's month, too, is the nearest one: it was June 2023 (a month ahead: June 2024; two back: March 2024;
    # six ahead: November 2024), where the past tense alone keeps the last one
    assert days("Booked a trip to Lisbon in June.") == [("in June", date(2024, 6, 1))]
    assert days("I booked the hotel in March.") == [("in March", date(2024, 3, 1))]
    assert days("Booked a cabin in November.") == [("in November", date(2024, 11, 1))]
    assert days("We went to Lisbon in June.") == [("in June", date(2023, 6, 1))]
    assert days("I booked the flights on Friday.") == [("on Friday", date(2024, 5, 10))]  # the day of booking
    # 29 February without a year: the leap day nearest (2024's, 76 days back)
    assert days("Thanks for the party on 29 February") == [("29 February", date(2024, 2, 29))]
    assert days("It was on 31 June.") == []  # no such day


@pytest.mark.parametrize("text, phrase, first, last", [
    ("We're staying in Porto from 10 to 12 June.", "from 10 to 12 June", date(2024, 6, 10), date(2024, 6, 12)),
    ("Porto 10-12 June", "10-12 June", date(2024, 6, 10), date(2024, 6, 12)),
    ("Porto, 10th–12th of June 2025", "10th–12th of June 2025", date(2025, 6, 10), date(2025, 6, 12)),
    ("We'll be away June 10–12.", "June 10–12", date(2024, 6, 10), date(2024, 6, 12)),
    ("We were away between 3 and 5 March.", "between 3 and 5 March", date(2024, 3, 3), date(2024, 3, 5)),
    ("Between March 3 and 5 we were away.", "Between March 3 and 5", date(2024, 3, 3), date(2024, 3, 5)),
    ("I'm off from 28 June to 3 July.", "from 28 June to 3 July", date(2024, 6, 28), date(2024, 7, 3)),
    ("from June 28 to July 3, 2023", "from June 28 to July 3, 2023", date(2023, 6, 28), date(2023, 7, 3)),
    # over the new year: the year given at the end is the last day's ("28 Dec - 2 Jan 2025": from 28 Dec 2024)
    ("Closed 28 Dec - 2 Jan 2025", "28 Dec - 2 Jan 2025", date(2024, 12, 28), date(2025, 1, 2)),
    ("We went skiing from 28 December to 2 January.", "from 28 December to 2 January", date(2023, 12, 28),
     date(2024, 1, 2)),
])
def test_a_span_of_days_is_one_anchor_with_its_first_and_last_day(text, phrase, first, last):
    anchors = find_time_anchors(text, SENT)
    assert [(a.phrase, a.day, a.last) for a in anchors] == [(phrase, first, last)]
    assert anchor_period(anchors[0]) == (first, last + timedelta(days=1))  # the day after its last, as for a month
    assert f"= {first.isoformat()} to {last.isoformat()}," in anchors[0].note(SENT)


@pytest.mark.parametrize("text, want", [
    ("See you on 3 and 5 June.", [("5 June", date(2024, 6, 5))]),            # two days, no span ("and" alone)
    ("Call me June 10 - 3pm is fine", [("June 10", date(2024, 6, 10))]),   # a time of day is no end
    ("from 12 to 10 June", [("10 June", date(2024, 6, 10))]),              # an end before the start: no span
    ("on 3 June", [("3 June", date(2024, 6, 3))]),
])
def test_what_is_no_span_of_days(text, want):
    assert days(text) == want and all(a.last is None for a in find_time_anchors(text, SENT))


def test_a_fact_dated_by_a_span_of_days_gets_its_first_and_last_day():
    facts = [f for f in extract_facts("I had surgery between 3 and 5 March.", SENT) if f.domain == "health"]
    assert [(f.value, f.valid_from, f.valid_to) for f in facts] == [("surgery", date(2024, 3, 3), date(2024, 3, 5))]
    assert '"between 3 and 5 March" = 2024-03-03 to 2024-03-05' in facts[0].time_note


# --- a mail signature's job title and employer (core.extraction.signature.signature_job)

from core.extraction.signature import signature_emails, signature_job, signature_phones  # noqa: E402


def job(text: str, name: str = "Jane Doe") -> list[tuple[str, str, str, str | None]]:
    return [(c.subject.kind, c.key, c.value, c.obj) for c in signature_job(text, name, SENT)]


@pytest.mark.parametrize("text, title, employer", [
    ("Numbers attached.\n\nBest,\nJane Doe\nHead of Finance, Acme Ltd\nMobile: +44 7700 900123\n",
     "Head of Finance", "Acme Ltd"),
    ("Thanks!\n\nJane Doe | Senior Engineer | Acme\n", "Senior Engineer", "Acme"),
    ("Thanks!\n\nJane Doe – CTO – Hooli\n", "CTO", "Hooli"),
    ("See below.\n-- \nJane Doe\nSenior Software Engineer\nGlobex Corporation | www.globex.example\nLondon\n",
     "Senior Software Engineer", "Globex Corporation"),
    ("Ok.\n-- \nJane Doe\nVP, Product Management\nInitech Inc.\n", "VP, Product Management", "Initech Inc"),
    ("Ok.\n-- \nJane Doe\nHead of Sales, EMEA, Initech\n", "Head of Sales, EMEA", "Initech"),
    ("Ok.\n\nJane\nAccount Manager at Bank of America\n", "Account Manager", "Bank of America"),
    ("Ok.\n\nJane Doe\nCEO & Co-founder @ Brightwave\n", "CEO & Co-founder", "Brightwave"),
])
def test_a_signatures_title_and_employer_are_the_senders_job(text, title, employer):
    assert job(text) == [("speaker", "title", title, None), ("speaker", "employer", employer, employer)]
    facts = signature_job(text, "Jane Doe", SENT)
    # the shapes a contact card's TITLE and "I work at Acme" give: work / employment, from the sender's day
    assert {(c.domain, c.category, c.valid_from, c.confidence) for c in facts} == \
        {("work", "employment", date(2024, 5, 15), 0.6)}
    assert facts[1].obj_kind == "thing" and facts[0].sentence == facts[1].sentence


@pytest.mark.parametrize("text", [
    "Ok.\n-- \nJane Doe\nSales Manager\nLondon\n",          # a town is where, not who
    "Ok.\n-- \nJane Doe\nSales Manager\nSales & Marketing\n",  # a department
])
def test_a_title_without_an_employer_is_the_title_alone(text):
    assert job(text) == [("speaker", "title", "Sales Manager", None)]


@pytest.mark.parametrize("text", [
    # body text, not the signature: no title is read from it
    "Our Head of Finance, Acme Ltd's Tom, is away.\nThe Senior Engineer at Acme called.\n\nJane",
    "Hi, I am the Director of Finance at Acme Ltd.\n\nJane Doe\n",
    "Hi\n\nJane Doe\nSent from my iPhone\n",
    "Head of Finance, Acme Ltd\n",                                  # no signature block: no name line, no "-- "
    "Thanks\n-- \nTom Lee\nHead of Finance, Acme Ltd\n",           # signed by someone else: not Jane's job
    # a quoted reply's signature is the quoted person's
    "Sure.\n\nJane\n\nOn Mon, Tom wrote:\n> Tom Lee\n> Head of Finance, Acme Ltd\n",
])
def test_no_job_outside_the_senders_own_signature(text):
    assert job(text) == []


def test_a_block_signed_with_the_senders_name_is_theirs():
    text = "Thanks\n-- \nTom Lee\nHead of Finance, Acme Ltd\n"
    assert job(text, "Tom Lee") == [("speaker", "title", "Head of Finance", None),
                                    ("speaker", "employer", "Acme Ltd", "Acme Ltd")]
    assert job(text, None) == job(text, "Tom Lee")  # no From: name: the delimiter alone starts the block


def test_a_name_line_with_parts_starts_the_block_for_the_mobile_and_address_too():
    text = "Thanks!\n\nJane Doe | Senior Engineer | Acme\nMobile: +44 7700 900123\njane.doe@gmail.com\n"
    assert signature_phones(text, "Jane Doe", "GB") == ["+447700900123"]
    assert signature_emails(text, "Jane Doe", "jane@acme.example") == ["jane.doe@gmail.com"]


@pytest.mark.parametrize("sender", ["Jane Doe", "Doe, Jane", "Jane Doe (Acme)"])
def test_the_block_starts_at_the_senders_name_however_the_from_line_writes_it(sender):
    text = "Figures attached.\n\nKind regards,\nJane Doe\nHead of Finance\nAcme Ltd\n"
    assert [(c.key, c.value) for c in signature_job(text, sender, SENT)] == [("title", "Head of Finance"),
                                                                            ("employer", "Acme Ltd")]

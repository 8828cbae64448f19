"""Variants of ``mbox_superseded_home.mbox`` and ``mbox_yesterday_timezones.mbox`` (issue 13's kinds), written
by the tests themselves and read through the real import: a person's homes and jobs over time, imported in
any order; endings ("I don't live in Berlin anymore", "I left Initech"); "we moved"; "I'm back in";
someone else's statement about a third person; relative dates in the sender's own calendar.

Right values worked out by hand from each message's Date header (weeks start on Monday)."""
from __future__ import annotations

import pytest

from app.operations.ask import ask
from app.operations.graph import profile
from app.operations.ingest import ingest
from helpers.mboxes import write_raw_mbox

ROSA = "Rosa Vidal <rosa@vidal.example>"




def homes(c, who: str, key: str = "home"):
    p = profile(c, who)
    cur = [(f.value, f.valid_from[:10]) for f in p.current if f.key == key]
    hist = sorted((f.valid_from[:10], f.value, (f.valid_to or "")[:10]) for f in p.history if f.key == key)
    return cur, hist


JAN = (ROSA, "Mon, 09 Jan 2023 09:00:00 +0100", "hello", "I live in Berlin.")
JUN = (ROSA, "Tue, 13 Jun 2023 09:00:00 +0200", "news", "We moved to Madrid last week.")  # week of Mon 5 Jun
SEP = (ROSA, "Fri, 15 Sep 2023 09:00:00 +0200", "back", "I'm back in Berlin now.")


@pytest.mark.parametrize("order", [(0, 1, 2), (2, 1, 0), (2, 0, 1), (1, 2, 0)])
def test_homes_over_time_whatever_order_the_files_come_in(container, tmp_path, order):
    msgs = [JAN, JUN, SEP]
    for i in order:  # one file per message, imported in this order
        assert not ingest(container, [write_raw_mbox(tmp_path / f"m{i}.mbox", [msgs[i]])]).errors
    cur, hist = homes(container, "Rosa Vidal")
    assert cur == [("Berlin", "2023-09-15")]
    assert hist == [("2023-01-09", "Berlin", "2023-06-05"), ("2023-06-05", "Madrid", "2023-09-15")]


def test_the_newer_file_first_still_leaves_the_newest_fact_current_and_ask_says_so(container, tmp_path):
    ingest(container, [write_raw_mbox(tmp_path / "new.mbox", [(ROSA, "Tue, 13 Jun 2023 09:00:00 +0200", "news",
                                                      "I moved to Madrid last week.")])])
    ingest(container, [write_raw_mbox(tmp_path / "old.mbox", [(ROSA, "Mon, 09 Jan 2023 09:00:00 +0100", "hello",
                                                      "I live in Berlin now.")])])
    cur, hist = homes(container, "Rosa Vidal")
    assert cur == [("Madrid", "2023-06-05")] and hist == [("2023-01-09", "Berlin", "2023-06-05")]
    results = ask(container, "Where does Rosa live?", k=5)
    facts = [r for r in results if r.kind == "fact"]
    assert facts and "lives in Madrid" in facts[0].text
    assert not any(r.kind == "fact" and "Berlin" in r.text for r in results)


def test_an_ending_ends_the_fact_and_a_later_home_starts_a_new_one(container, tmp_path):
    ingest(container, [write_raw_mbox(tmp_path / "a.mbox", [
        JAN, (ROSA, "Tue, 13 Jun 2023 09:00:00 +0200", "update", "I don't live in Berlin anymore.")])])
    cur, hist = homes(container, "Rosa Vidal")
    assert cur == [] and hist == [("2023-01-09", "Berlin", "2023-06-13")]
    ingest(container, [write_raw_mbox(tmp_path / "b.mbox", [SEP])])
    cur, hist = homes(container, "Rosa Vidal")
    assert cur == [("Berlin", "2023-09-15")] and hist == [("2023-01-09", "Berlin", "2023-06-13")]


def test_leaving_one_home_and_moving_to_another_in_one_sentence(container, tmp_path):
    # "I left Berlin and moved to Rome last week", sent Tue 13 Jun 2023: last week begins Mon 5 Jun
    ingest(container, [write_raw_mbox(tmp_path / "a.mbox", [
        JAN, (ROSA, "Tue, 13 Jun 2023 09:00:00 +0200", "news", "I left Berlin and moved to Rome last week.")])])
    cur, hist = homes(container, "Rosa Vidal")
    assert cur == [("Rome", "2023-06-05")]
    assert hist == [("2023-01-09", "Berlin", "2023-06-05")]


def test_jobs_start_end_and_change(container, tmp_path):
    ingest(container, [write_raw_mbox(tmp_path / "jobs.mbox", [
        (ROSA, "Mon, 09 Jan 2023 09:00:00 +0100", "job", "I started at Initech on Monday."),  # sent on a Monday
        (ROSA, "Tue, 13 Jun 2023 09:00:00 +0200", "job", "I left Initech last month."),       # 1 May 2023
        (ROSA, "Tue, 20 Jun 2023 09:00:00 +0200", "job", "I work at Globex now.")])])
    cur, hist = homes(container, "Rosa Vidal", "employer")
    assert cur == [("Globex", "2023-06-20")] and hist == [("2023-01-09", "Initech", "2023-05-01")]


def test_a_statement_about_a_third_person_and_two_peoples_homes(container, tmp_path):
    tom = "Tom Weller <tom@weller.example>"
    ingest(container, [write_raw_mbox(tmp_path / "t.mbox", [
        (ROSA, "Mon, 09 Jan 2023 09:00:00 +0100", "hi", "I live in Berlin."),
        (tom, "Tue, 10 Jan 2023 09:00:00 +0100", "hi", "I live in Lisbon."),
        (tom, "Wed, 11 Jan 2023 09:00:00 +0100", "news", "Rosa Vidal moved to Madrid.")])])
    assert homes(container, "Tom Weller") == ([("Lisbon", "2023-01-10")], [])  # Tom's home is his own
    cur, hist = homes(container, "Rosa Vidal")
    assert cur == [("Madrid", "2023-01-11")] and hist == [("2023-01-09", "Berlin", "2023-01-11")]


def test_a_quoted_older_message_does_not_reassert_the_old_home(container, tmp_path):
    ingest(container, [write_raw_mbox(tmp_path / "q.mbox", [
        (ROSA, "Mon, 09 Jan 2023 09:00:00 +0100", "move", "I live in Berlin."),
        (ROSA, "Tue, 13 Jun 2023 09:00:00 +0200", "move", "I moved to Madrid last week."),
        (ROSA, "Wed, 14 Jun 2023 09:00:00 +0200", "Re: move",
         "Yes, it was a big step!\n\nOn Mon, 9 Jan 2023, Rosa Vidal <rosa@vidal.example> wrote:\n> I live in Berlin.\n")])])
    cur, hist = homes(container, "Rosa Vidal")
    assert cur == [("Madrid", "2023-06-05")] and hist == [("2023-01-09", "Berlin", "2023-06-05")]


@pytest.mark.parametrize("date, text, day", [
    ("Sat, 10 Jun 2023 08:30:00 +1200", "I moved to Hobart yesterday.", "2023-06-09"),  # Fri 9 Jun 20:30 UTC
    ("Sat, 10 Jun 2023 08:30:00 +1300", "I moved to Apia two days ago.", "2023-06-08"),
    ("Fri, 9 Jun 2023 20:00:00 -1000", "I moved to Hilo on Monday.", "2023-06-05"),     # Sat 06:00 UTC
    ("Fri, 9 Jun 2023 20:00:00 -1000", "I moved to Kona last week.", "2023-05-29"),
    ("Mon, 12 Jun 2023 00:30:00 +1400", "I moved to Kiritimati last month.", "2023-05-01"),  # Sun 11 Jun UTC
    ("Wed, 31 May 2023 23:30:00 -0700", "I'm moving to Denver tomorrow.", "2023-06-01"),
    ("10 Jun 2023 08:30 +1000", "I moved to Cairns yesterday.", "2023-06-09"),          # no weekday, no seconds
    ("Sat, 10 Jun 23 08:30:00 +1000", "I moved to Darwin yesterday.", "2023-06-09"),    # two-digit year
    ("Fri, 09 Jun 2023 20:00:00 PDT", "I moved to Fresno yesterday.", "2023-06-08"),    # obsolete zone name
])
def test_relative_dates_in_the_senders_calendar(container, tmp_path, date, text, day):
    r = ingest(container, [write_raw_mbox(tmp_path / "d.mbox", [("Mia Clarke <mia@clarke.example>", date, "move", text)])])
    assert r.records_added == 1 and not r.errors
    place = text.split(" to ")[1].split()[0]
    assert homes(container, "Mia Clarke") == ([(place, day)], [])

"""A numeric date that reads either way is read in the order its source writes dates in (a mailbox's, a chat's)."""
from __future__ import annotations

from datetime import date, datetime, timezone

from core.extraction.time_anchors import find_time_anchors

SENT = datetime(2021, 3, 1, 9, 0, tzinfo=timezone.utc)


def days(text: str, order: str | None = None) -> list[date]:
    return [a.day for a in find_time_anchors(text, SENT, order)]


def test_an_ambiguous_date_follows_the_sources_order():
    text = "I start at Initech on 04/05/2021"
    assert days(text) == [date(2021, 4, 5)]  # no order: the reading nearer the message (both are after it)
    assert days(text, "DMY") == [date(2021, 5, 4)]
    assert days(text, "MDY") == [date(2021, 4, 5)]


def test_a_date_that_reads_one_way_only_ignores_the_order():
    assert days("see you on 25/12/2021", "MDY") == [date(2021, 12, 25)]
    assert days("see you on 12/25/2021", "DMY") == [date(2021, 12, 25)]
    assert days("see you on 3.6.2021", "MDY") == [date(2021, 6, 3)]  # dotted: day first


def test_a_mailboxs_day_first_dates_date_the_facts_in_its_bodies(tmp_path, container):
    """One mail writes 13/05/2021 (day first: a date only that way); another, sent 1 March 2021, says "I start at
    Initech on 04/05/2021": the job is from 4 May 2021 — by the tense alone it would be 5 April."""
    import sqlite3

    from app.operations.ingest import ingest
    from helpers.mboxes import write_raw_mbox

    path = write_raw_mbox(tmp_path / "box.mbox", [
        ("Rosa Vidal <rosa@example.com>", "Mon, 01 Mar 2021 09:00:00 +0000", "News",
         "Big news: I start at Initech on 04/05/2021."),
        ("Rosa Vidal <rosa@example.com>", "Tue, 02 Mar 2021 09:00:00 +0000", "Dinner",
         "Dinner on 13/05/2021 then?"),
    ])
    rep = ingest(container, [path])
    assert rep.records_added == 2 and not rep.errors
    raw = sqlite3.connect(str(container.settings.db_path))
    try:
        got = raw.execute("SELECT value, valid_from FROM fact WHERE key = 'employer' AND tombstoned_at IS NULL").fetchall()
    finally:
        raw.close()
    assert [(v, str(t)[:10]) for v, t in got] == [("Initech", "2021-05-04")]

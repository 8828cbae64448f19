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

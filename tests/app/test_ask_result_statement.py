"""A fact result's statement read once, in app/ (the window's memory cards had their own copy of the "As of"
parsing, stop 25): the sentence without its lead, and the day the lead names."""
from __future__ import annotations

from datetime import date

import pytest

from app.operations.types import AskResult


@pytest.mark.parametrize("kind, text, want", [
    ("fact", "As of 2021-06-30, alex lives in Glasgow.", ("Alex lives in Glasgow.", date(2021, 6, 30))),
    ("history", "As of an unknown date, Alex lives in Rome.", ("Alex lives in Rome.", None)),
    ("fact", "Alex lives in Rome.", ("Alex lives in Rome.", None)),
    ("record", "As of 2021-06-30, said in a mail.", ("As of 2021-06-30, said in a mail.", None)),
])
def test_a_facts_statement_and_its_day(kind, text, want):
    assert AskResult(text=text, source="", when=None, score=0.0, kind=kind).statement() == want

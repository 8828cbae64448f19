"""Answers, pass 25: a new user's own small archive (a mailbox, two WhatsApp chats) and the questions a person asks
of it.  Each test writes its own records; the right answers were worked out by hand from them.

Faults these tests pinned (each a kind):

* a thanks or congratulations *for* something lost its opening word as filler ("Thanks for the lovely dinner, the
  risotto was perfect" → "For the lovely dinner, …"), and a greeting with a name kept the name ("Hey Nina, the
  boat …" → "Nina, the boat …").
"""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from app.answer import memory_answer
from app.container import Container
from app.loop import ConversationLoop
from app.models.llm import NoModel
from app.operations.ingest import ingest
from app.operations.types import AskResult
from app.settings import Settings
from helpers.mboxes import write_mbox

NINA = "Nina Brooks <nina@brooks.test>"
OLIVER = "Oliver Grant <oliver@grantco.test>"


def _rec(n, text, sender, when, subject=None):
    return AskResult(text=f"{subject}\n\n{text}" if subject else text, source="/a", when=when, score=0.1,
                     record_id=n, sender=sender, kind="record", subject=subject)


def test_thanks_for_something_is_what_was_said_not_filler():
    dinner = _rec(1, "Thanks for the lovely dinner, the risotto was perfect", "Oliver Grant",
                  "2023-07-15T20:00:00+00:00")
    assert memory_answer("what did oliver say about the risotto", [dinner]).text == \
        "Thanks for the lovely dinner, the risotto was perfect [1]"
    job = _rec(2, "Congrats on the new job! The bakery is lucky to have you", "Oliver Grant",
               "2023-07-16T20:00:00+00:00")
    assert memory_answer("what did oliver say about my job", [job]).text == "Congrats on the new job! [1]"
    hey = _rec(3, "Hey Nina, the ferry leaves from Mallaig", "Oliver Grant", "2023-07-02T11:00:00+00:00")
    assert memory_answer("what did oliver say about the ferry", [hey]).text == "The ferry leaves from Mallaig [1]"

"""'who is Ana's boss?', 'who is my sister?', 'whats toms wifes name': answered from the graph's relationship
facts (stop 25; they were left to recall, whose relevance put the fact under the threshold: "I found nothing about
that").  Mail written here; the right answers are the relatives the mails name."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from app.loop import ConversationLoop
from app.models.llm import NoModel
from app.operations.ingest import ingest
from helpers.built import built_once, loop_on
from helpers.mboxes import write_mbox


def _as_owner(c):
    c.settings.owner_name, c.settings.owner_emails = "Alex Morgan", ["alex@morgan.example"]


def _build(c, tmp_path):
    _as_owner(c)
    box = write_mbox(tmp_path / "m.mbox", [
        ("Ana Lima <ana@lima.example>", "alex@morgan.example", "news", "I now work for Dr. Patel at the clinic."),
        ("Ben Carter <ben@carter.example>", "alex@morgan.example", "Lisbon", "My sister Clara moved to Lisbon."),
        ("Alex Morgan <alex@morgan.example>", "ben@carter.example", "re: Lisbon",
         "Lovely! My sister Jane visited Lisbon last year, and my sister Beth lives in Porto."),
        ("Tom Hill <tom@hill.example>", "alex@morgan.example", "us", "My wife Nora says hi."),
    ], start=datetime(2023, 6, 1, 9, tzinfo=timezone.utc))
    assert ingest(c, [box]).records_added == 4


# ---- the data folder built once per module, each test on its own copy (a test's turns write the conversation,
# its trace and observations: nothing one test does reaches another) ----


@pytest.fixture(scope="module")
def _home(tmp_path_factory):
    return built_once(tmp_path_factory, "mail", _build)


@pytest.fixture
def loop(request):
    yield from loop_on(request, "_home", _build, _as_owner)


@pytest.mark.parametrize("question, answer", [
    ("who is Ana's boss?", "Dr. Patel is Ana Lima's boss. [1]"),
    ("who is anas boss", "Dr. Patel is Ana Lima's boss. [1]"),
    ("who is Ben's sister?", "Clara is Ben Carter's sister. [1]"),
    ("whats toms wifes name", "Nora is Tom Hill's wife. [1]"),
    ("who are my sisters?", "Beth and Jane are your sisters. [1]"),  # in the order of their names
])
def test_a_relative_is_answered_from_the_graph(loop, question, answer):
    reply = loop.turn(question).reply
    assert reply.split("\n\nSources:")[0] == answer, reply
    assert "Sources:\n[1]" in reply  # the message that said so


def test_no_such_relative_is_no_one_elses(loop):
    # was: "Ben Carter's sister is Clara", recall's best fact about Ben
    assert loop.turn("who is Ben's wife?").reply == "Nothing in your records says who Ben Carter's wife is."


def test_an_unnamed_relative_does_not_share_the_persons_first_name(container, tmp_path):
    # "Rosa Blanco's brother" (from "My brother lives in Madrid") made "Rosa" ambiguous: "2 people go by that name"
    box = write_mbox(tmp_path / "r.mbox", [
        ("Rosa Blanco <rosa@blanco.example>", "me@example.net", "news", "I work at Globex now."),
        ("Rosa Blanco <rosa@blanco.example>", "me@example.net", "family", "My brother lives in Madrid.")])
    assert ingest(container, [box]).records_added == 2
    reply = ConversationLoop.for_container(container, model=NoModel()).turn("where does Rosa work?").reply
    assert reply.startswith("Rosa Blanco works at Globex"), reply


def test_another_persons_wife_is_not_mine(loop):
    # was: "Tom Hill's wife Nora says hi" — Tom's message, found by the word "wife"
    assert loop.turn("who is my wife?").reply == "Nothing in your records says who your wife is."

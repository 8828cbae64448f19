"""Stop 26: the chat's memory answerer on questions it got wrong or could not answer — each fixed as a kind:
relationship questions asked the other way round ("who is Tom's wife?" when Emma wrote "my husband is Tom"),
"who are my siblings?" (every brother and sister), photos a WhatsApp chat sent whose files were not exported, a
month asked without its year, and the owner's own "your place" retold.  Inputs written here; the right answers are
worked out by hand from them."""
from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from app.loop import ConversationLoop
from app.models.llm import NoModel
from app.operations.ingest import ingest
from helpers.mboxes import write_mbox


def _said(reply: str) -> str:
    """The answer without its sources and citation marks."""
    return re.sub(r"\s*(?:\[\d+\])+$", "", reply.split("\n\nSources:")[0]).strip()


@pytest.fixture
def family(container, tmp_path):
    c = container
    c.settings.owner_name, c.settings.owner_emails = "Alex Morgan", ["alex@morgan.example"]
    box = write_mbox(tmp_path / "m.mbox", [
        ("Emma Stone <emma@stone.example>", "alex@morgan.example", "hi", "My husband is Tom."),
        ("Alex Morgan <alex@morgan.example>", "ben@carter.example", "re", "Nina's husband is Paul Grey."),
        ("Ben Carter <ben@carter.example>", "alex@morgan.example", "kids", "My son Max started school."),
        ("Alex Morgan <alex@morgan.example>", "ben@carter.example", "fam",
         "My brother Sam is visiting, and my sister Jane too."),
        ("Alex Morgan <alex@morgan.example>", "ben@carter.example", "fam2", "My sister Beth lives in Porto."),
        ("Ana Lima <ana@lima.example>", "alex@morgan.example", "news", "I now work for Dr. Patel at the clinic."),
    ], start=datetime(2023, 6, 1, 9, tzinfo=timezone.utc))
    assert ingest(c, [box]).records_added == 6
    return ConversationLoop.for_container(c, model=NoModel())


@pytest.mark.parametrize("question, answer", [
    # the direction the message says it
    ("who is Emma's husband?", "Tom is Emma Stone's husband."),
    ("who is Nina's husband?", "Paul Grey is Nina's husband."),
    ("who is Ben's son?", "Max is Ben Carter's son."),
    # the other way round: an inverse relation
    ("who is Tom's wife?", "Emma Stone is Tom's wife."),
    ("what is Tom's wife's name?", "Emma Stone is Tom's wife."),
    ("who is Paul's wife?", "Nina is Paul Grey's wife."),
    ("who is Max's father?", "Ben Carter is Max's father."),
    ("who are Max's parents?", "Ben Carter is Max's parent."),
    ("who is Sam's sister?", "You are Sam's sister."),
    ("who is Dr. Patel's employee?", "Ana Lima is Dr. Patel's employee."),
    # a kind asked as a whole: every one of it
    ("who are my siblings?", "Beth, Jane and Sam are your siblings."),
    ("who are my sisters?", "Beth and Jane are your sisters."),
    ("who are Ben's children?", "Max is Ben Carter's child."),
])
def test_relationships_either_way(family, question, answer):
    reply = family.turn(question).reply
    assert _said(reply) == answer, reply
    assert "\n\nSources:\n[" in reply, reply  # the message that said so, cited


@pytest.mark.parametrize("question", ["who is Zed's wife?", "who is Quentin's father?"])
def test_someone_unknown_has_no_relative(family, question):
    assert family.turn(question).reply == "I found nothing about that."


def test_no_such_relative_is_said_so(family):
    assert family.turn("who is Ben's wife?").reply == "Nothing in your records says who Ben Carter's wife is."
    assert family.turn("who is my husband?").reply == "Nothing in your records says who your husband is."

"""What a question is about (issue 14): "who told me about the quillfeather starter?" asks about the
starter. The verb that frames it ("told") is held by no turn that answers it, so it is left out of the relevance
features' coverage (``core.retrieval.cues.topic_tokens``); the owner's name put for "me" counts as held by every
turn (the owner is a party to every message); a word the memory does not hold at all still counts ("nothing
found")."""
from __future__ import annotations

from app.container import Container
from app.operations.ask import ask
from app.operations.ingest import ingest
from app.settings import Settings
from core.retrieval.cues import topic_tokens
from helpers.mboxes import write_mbox


def test_topic_tokens_leave_out_the_verbs_that_frame_the_question():
    assert topic_tokens(["told", "owner", "person", "quillfeather", "starter"]) == \
        ["owner", "person", "quillfeather", "starter"]
    assert topic_tokens(["mention", "kid"]) == ["kid"]
    assert topic_tokens(["told"]) == ["told"]  # nothing else left: the question as it is


def test_who_told_me_about_it_is_answered_and_an_unknown_topic_is_not(tmp_path):
    c = Container(Settings.load(tmp_path / "home"))
    try:
        c.settings.owner_emails, c.settings.owner_name = ["owner@example.net"], "Owner Person"
        mail = write_mbox(tmp_path / "kitchen.mbox", [
            ("Alice Example <alice@example.com>", "Sourdough", "Feed the quillfeather starter twice a day."),
            ("Bob Stone <bob@example.org>", "Climbing", "Shall we go climbing at Fontainebleau on Saturday?"),
            ("Alice Example <alice@example.com>", "Rye", "Rye flour makes the quillfeather starter bubble."),
        ])
        assert ingest(c, [mail]).records_added == 3
        shown = ask(c, "who told me about the quillfeather starter?")
        turns = [r for r in shown if r.kind == "record"]
        assert {r.subject for r in turns} == {"Sourdough", "Rye"} and turns[0].subject == "Sourdough"
        assert {r.sender for r in shown} == {"Alice Example"}
        assert ask(c, "who told me about the zeppelin?") == []
    finally:
        c.close()

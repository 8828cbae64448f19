"""A possessive typed without its apostrophe on a short first name ("toms dog", "evas flat") finds the person's
messages (stop 25): the stemmer leaves words under five letters whole, so "toms" never met "Tom".  Messages written
here; the right answer is the one that names the dog."""
from __future__ import annotations

from datetime import datetime, timezone

from app.answer import with_possessives
from app.loop import ConversationLoop
from app.models.llm import NoModel
from app.operations.ingest import ingest
from helpers.mboxes import write_mbox


def test_with_possessives_puts_the_apostrophe_back_only_for_a_known_first_name():
    names = {"tom", "eva", "james"}
    known = names.__contains__
    assert with_possessives("whats toms dogs name", lambda w: known(w.casefold())) == "whats tom's dogs name"
    assert with_possessives("where is evas flat", lambda w: known(w.casefold())) == "where is eva's flat"
    assert with_possessives("who is james boss", lambda w: known(w.casefold())) == "who is james boss"  # James
    assert with_possessives("what are the plans", lambda w: known(w.casefold())) == "what are the plans"


def test_toms_dog_is_found(container, tmp_path):
    box = write_mbox(tmp_path / "m.mbox", [
        ("Tom Hill <tom@hill.example>", "me@example.net", "news", "Rex ate my shoes again, silly dog."),
        ("Ann Lee <ann@lee.example>", "me@example.net", "hi", "See you on Friday at the gallery."),
    ], start=datetime(2023, 6, 1, 9, tzinfo=timezone.utc))
    assert ingest(container, [box]).records_added == 2
    reply = ConversationLoop.for_container(container, model=NoModel()).turn("whats toms dogs name").reply
    assert "Rex" in reply.split("\n\nSources:")[0], reply

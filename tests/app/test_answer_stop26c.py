"""Stop 26, the corpus tester's answers: each wrong answer fixed as a kind.  Inputs written here; the right answers
are worked out by hand from them.

- "how many photos did I take?": the owner's camera photos only — a sticker a chat sent (an iMessage
  attachment, sticker_comic.heic) is no photo the owner took."""
from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from app.loop import ConversationLoop
from app.models.llm import NoModel
from app.operations.ingest import ingest


def _said(reply: str) -> str:
    """The answer without its sources and citation marks."""
    return re.sub(r"\s*(?:\[\d+\])+$", "", reply.split("\n\nSources:")[0]).strip()


@pytest.fixture
def camera_and_sticker(container, tmp_path):
    from helpers.photos import write_photo

    u = timezone.utc
    write_photo(tmp_path / "photos" / "a.jpg", datetime(2008, 5, 30, 15, tzinfo=u), 38.72, -9.14)
    write_photo(tmp_path / "photos" / "b.jpg", datetime(2021, 4, 11, 15, tzinfo=u), 38.72, -9.14)
    write_photo(tmp_path / "messages" / "imessage" / "sticker_comic.jpg", datetime(2015, 1, 2, 9, tzinfo=u),
                38.72, -9.14)
    assert ingest(container, [tmp_path / "photos", tmp_path / "messages"]).records_added == 3
    return ConversationLoop.for_container(container, model=NoModel())


@pytest.mark.parametrize("question, answer", [
    ("how many photos did I take?", "You took 2 photos, from May 2008 to April 2021."),
    ("How many pictures have I taken?", "You took 2 photos, from May 2008 to April 2021."),
    # held: every photo record, the sticker too
    ("how many photos do I have?", "You have 3 photos, from May 2008 to April 2021."),
])
def test_a_sticker_a_chat_sent_is_no_photo_taken(camera_and_sticker, question, answer):
    assert _said(camera_and_sticker.turn(question).reply) == answer

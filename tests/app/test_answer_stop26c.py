"""Stop 26, the corpus tester's answers: each wrong answer fixed as a kind.  Inputs written here; the right answers
are worked out by hand from them.

- "how many photos did I take?": the owner's camera photos only — a sticker a chat sent (an iMessage
  attachment, sticker_comic.heic) is no photo the owner took.
- "who sent me the most mail?": who wrote to the owner most, as "who emails me the most?" answers.
- "when did I take the Canon photo?" of a photo with no place: "You took it on 30 May 2008", not the broken
  "You were on 30 May 2008 — 1 photo".
- "what did Author 1 write?" when all Author 1 wrote is a short line ("Minimal Message", a Telegram export):
  that line, not "I have no message from Author 1 in their own words"."""
from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from app.operations.ingest import ingest
from helpers.built import built_once, loop_on
from helpers.mboxes import write_mbox


def _said(reply: str) -> str:
    """The answer without its sources and citation marks."""
    return re.sub(r"\s*(?:\[\d+\])+$", "", reply.split("\n\nSources:")[0]).strip()


def _as_owner(c):
    c.settings.owner_name, c.settings.owner_emails = "Alex Morgan", ["alex@morgan.example"]


# ---- the data folder built once per module, each test on its own copy (a test's turns write the conversation,
# its trace and observations: nothing one test does reaches another) ----


def _build_camera_and_sticker(container, tmp_path):
    from helpers.photos import write_photo

    u = timezone.utc
    write_photo(tmp_path / "photos" / "a.jpg", datetime(2008, 5, 30, 15, tzinfo=u), 38.72, -9.14)
    write_photo(tmp_path / "photos" / "b.jpg", datetime(2021, 4, 11, 15, tzinfo=u), 38.72, -9.14)
    write_photo(tmp_path / "messages" / "imessage" / "sticker_comic.jpg", datetime(2015, 1, 2, 9, tzinfo=u),
                38.72, -9.14)
    assert ingest(container, [tmp_path / "photos", tmp_path / "messages"]).records_added == 3


@pytest.fixture(scope="module")
def _camera_and_sticker_home(tmp_path_factory):
    return built_once(tmp_path_factory, "camera_and_sticker", _build_camera_and_sticker)


@pytest.fixture
def camera_and_sticker(request):
    yield from loop_on(request, "_camera_and_sticker_home", _build_camera_and_sticker, lambda c: None)


@pytest.mark.parametrize("question, answer", [
    ("how many photos did I take?", "You took 2 photos, from May 2008 to April 2021."),
    ("How many pictures have I taken?", "You took 2 photos, from May 2008 to April 2021."),
    # held: every photo record, the sticker too
    ("how many photos do I have?", "You have 3 photos, from May 2008 to April 2021."),
])
def test_a_sticker_a_chat_sent_is_no_photo_taken(camera_and_sticker, question, answer):
    assert _said(camera_and_sticker.turn(question).reply) == answer


def _build_mailers(container, tmp_path):
    c = container
    _as_owner(c)
    ann, bob, me = "Ann Lee <ann@lee.example>", "Bob Ray <bob@ray.example>", "alex@morgan.example"
    box = write_mbox(tmp_path / "m.mbox", [
        (ann, me, "one", "Hello."), ("Majordomo <majordomo@list.example>", me, "Welcome", "Welcome to the list!"),
        (ann, me, "two", "Again."), (bob, me, "hey", "Hi there."), (ann, me, "three", "Once more."),
        (bob, me, "re", "Later."),
    ], start=datetime(2023, 6, 1, 9, tzinfo=timezone.utc))
    assert ingest(c, [box]).records_added == 6


@pytest.fixture(scope="module")
def _mailers_home(tmp_path_factory):
    return built_once(tmp_path_factory, "mailers", _build_mailers)


@pytest.fixture
def mailers(request):
    yield from loop_on(request, "_mailers_home", _build_mailers, _as_owner)


@pytest.mark.parametrize("question, answer", [  # the list's robot is no person
    ("who sent me the most mail?", "By email, Ann Lee wrote to you most (3 messages in June 2023), then Bob Ray (2)."),
    ("who emails me the most?", "By email, Ann Lee wrote to you most (3 messages in June 2023), then Bob Ray (2)."),
    ("who has sent me the most messages?", "Ann Lee wrote to you most (3 messages in June 2023), then Bob Ray (2)."),
])
def test_who_sent_me_the_most_is_who_wrote_most(mailers, question, answer):
    assert _said(mailers.turn(question).reply) == answer


def _build_canon(container, tmp_path):
    from PIL import Image

    path = tmp_path / "photos" / "Canon_40D.jpg"
    path.parent.mkdir(parents=True)
    exif = Image.Exif()
    exif[0x010F], exif[0x0110] = "Canon", "Canon EOS 40D"  # Make, Model; no GPS
    exif.get_ifd(0x8769)[0x9003] = "2008:05:30 15:56:01"  # DateTimeOriginal, zone unknown: read as UTC
    Image.new("RGB", (64, 48), (120, 150, 190)).save(path, format="JPEG", exif=exif.tobytes())
    assert ingest(container, [path]).records_added == 1


@pytest.fixture(scope="module")
def _canon_home(tmp_path_factory):
    return built_once(tmp_path_factory, "canon", _build_canon)


@pytest.fixture
def canon(request):
    yield from loop_on(request, "_canon_home", _build_canon, lambda c: None)


@pytest.mark.parametrize("question, answer", [
    ("when did I take the Canon photo?", "You took it on 30 May 2008"),
    ("when was the Canon photo taken?", "It was taken on 30 May 2008"),
    ("where did I take the Canon photo?", "I don't know where it was taken; you took it on 30 May 2008"),
])
def test_a_photo_with_no_place_says_when_it_was_taken(canon, question, answer):
    assert _said(canon.turn(question).reply) == answer


def _build_telegram(container, tmp_path):
    import json

    path = tmp_path / "result.json"
    path.write_text(json.dumps({"messages": [
        {"type": "message", "date_unixtime": "1544006350", "from": "Author 1", "text": "Minimal Message"},
        {"type": "message", "date_unixtime": "1544006964", "from": "Author 2", "text": "Hello there, how are you?"},
    ]}), encoding="utf-8")
    assert ingest(container, [path]).records_added == 2


@pytest.fixture(scope="module")
def _telegram_home(tmp_path_factory):
    return built_once(tmp_path_factory, "telegram", _build_telegram)


@pytest.fixture
def telegram(request):
    yield from loop_on(request, "_telegram_home", _build_telegram, lambda c: None)


@pytest.mark.parametrize("question, answer", [
    # 1544006350: 2018-12-05 10:39:10 UTC
    ("what did Author 1 write?", "On 5 December 2018, Author 1 wrote: “Minimal Message”"),
    ("what did Author 2 write?", "On 5 December 2018, Author 2 wrote: “Hello there, how are you?”"),
])
def test_a_senders_short_line_is_what_they_wrote(telegram, question, answer):
    assert _said(telegram.turn(question).reply) == answer

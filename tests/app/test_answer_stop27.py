"""Stop 27: the chat's memory answerer on five kinds a red team found it answering badly — "did Maya ever live in
Paris?" (yes or no from the facts over time, never an unrelated line), "what is Tom's job?" after the owner asked
Kith about it (a question asked in chat is never evidence nor the answer), "who was at / where was Mum's birthday?"
(from the messages about it), "who is coming to my place?" and the owner's own "your place" (the place of the one
it was written to, by name), and "who sent me the most photos?" (photo records and chat lines that sent one,
counted per sender).  Inputs written here, the archive built once for the module; the right answers are worked
out by hand from them."""
from __future__ import annotations

import re

import pytest

from app.loop import ConversationLoop
from app.models.llm import NoModel
from app.operations.ingest import ingest

CHATS = {
    "WhatsApp Chat with Maya Cole": (
        "03/02/2018, 10:00 - Maya Cole: I just moved to Paris! Loving the croissants\n"
        "03/02/2018, 10:05 - Sam Lee: So jealous\n"
        "10/09/2020, 19:00 - Maya Cole: We moved to Berlin last week, new flat in Kreuzberg\n"
        "11/09/2020, 09:00 - Maya Cole: The weather is grey today\n"
        "12/09/2020, 09:00 - Sam Lee: Did you ever see the Louvre in Paris?\n"),
    "WhatsApp Chat with Tom Hill": (
        "05/03/2021, 08:00 - Tom Hill: I work as a carpenter now, mostly kitchens\n"
        "05/03/2021, 08:02 - Sam Lee: Nice! Can you fix my table?\n"
        "07/03/2021, 18:00 - Tom Hill: IMG-20210307-WA0001.jpg (file attached)\n"  # its file is not in the export
        "07/03/2021, 18:01 - Tom Hill: <Media omitted>\n"),
    "WhatsApp Chat with Nora Vale": (
        "12/03/2020, 18:02 - Nora Vale: Hey Sam! I just started my new job at Acme in Cork\n"
        "02/02/2022, 20:47 - Nora Vale: No, I left Acme. I work at Globex now.\n"
        "03/02/2022, 20:47 - Nora Vale: <Media omitted>\n"),
    "WhatsApp Chat with Ben Carter": (
        "01/07/2023, 10:00 - Ben Carter: I'm coming to your place on Friday with the wine\n"
        "01/07/2023, 10:05 - Sam Lee: Great, come to my place at 8\n"
        "02/07/2023, 11:00 - Sam Lee: Can I come to your place on Sunday to borrow the drill?\n"
        "02/07/2023, 11:01 - Ben Carter: <Media omitted>\n"
        "02/07/2023, 11:02 - Ben Carter: <Media omitted>\n"
        "02/07/2023, 11:03 - Ben Carter: <Media omitted>\n"
        "02/07/2023, 11:04 - Ben Carter: IMG-20230702-WA0009.jpg (file attached)\n"
        "02/07/2023, 11:05 - Ben Carter: VID-20230702-WA0010.mp4 (file attached)\n"),  # a video, no photo
    "WhatsApp Chat with Family": (
        "01/06/2024, 10:00 - Sam Lee: Mum's birthday dinner is at Luigi's in Hove on Saturday\n"
        "01/06/2024, 10:02 - Nora Vale: I'll be there for Mum's birthday!\n"
        "02/06/2024, 18:30 - Ben Carter: Can't wait for Mum's birthday, I'm bringing the cake\n"
        "03/06/2024, 12:00 - Sam Lee: Happy birthday Mum!\n"
        "03/06/2024, 12:05 - Linda Lee: Thank you darling, I'm so happy you're all here\n"),
}


def _said(reply: str) -> str:
    """The answer without its sources and citation marks."""
    return re.sub(r"\s*(?:\[\d+\])+\s*$", "", reply.split("\n\nSources:")[0]).strip()


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    """One container with the chats above, imported once for the module."""
    from app.container import Container

    root = tmp_path_factory.mktemp("stop27")
    mp = pytest.MonkeyPatch()
    mp.setenv("KITH_HOME", str(root / "kith-home"))
    c = Container()
    try:
        c.settings.owner_name = "Sam Lee"
        folders = []
        for name, text in CHATS.items():
            folder = root / "in" / name
            folder.mkdir(parents=True)
            (folder / f"{name}.txt").write_text(text, encoding="utf-8")
            folders.append(folder)
        rep = ingest(c, folders)
        assert rep.errors == []
        yield c
    finally:
        c.close()
        mp.undo()


@pytest.fixture
def chat(archive):
    return ConversationLoop.for_container(archive, model=NoModel())


# ---- 1. "did X ever live in Y?": yes or no from the facts over time, or nothing found; no unrelated line ----

@pytest.mark.parametrize("question, answer", [
    ("did Maya ever live in Paris?", "Yes — Maya Cole lived in Paris from February 2018 to August 2020."),
    ("has Maya ever lived in Paris?", "Yes — Maya Cole lived in Paris from February 2018 to August 2020."),
    ("does Maya live in Berlin?", "Yes — Maya Cole lives in Berlin (since August 2020)."),
    ("does Maya still live in Paris?", "No — Maya Cole lived in Paris from February 2018 to August 2020; now Maya "
                                       "lives in Berlin."),
    ("did Maya ever live in Rome?", "Nothing in your records says Maya Cole ever lived in Rome; I know of Paris (from "
                                    "February 2018 to August 2020) and Berlin (since August 2020)."),
    ("did Nora ever work at Acme?", "Yes — Nora Vale worked at Acme from March 2020 to February 2022."),
    ("does Nora still work at Acme?",
     "No — Nora Vale worked at Acme from March 2020 to February 2022; now Nora works at Globex."),
])
def test_ever_lived_is_yes_or_no(chat, question, answer):
    reply = chat.turn(question).reply
    assert _said(reply) == answer, reply
    # only what the answer rests on is listed: never "The weather is grey today" or the owner's Louvre question
    assert "weather" not in reply and "Louvre" not in reply, reply
    if "ever live in Paris" in question:  # the message that says so, cited
        assert reply.endswith("I just moved to Paris! Loving the croissants"), reply


def test_ever_lived_of_someone_unknown_is_nothing(chat):
    assert chat.turn("did Zed ever live in Paris?").reply == "I found nothing about that."


# ---- 2. a question asked in chat is never evidence nor the answer ----

def test_a_chat_question_is_not_the_answer(chat):
    chat.turn("tell me Tom's job title")  # kept as an episode: it is a request to Kith, not something said
    reply = chat.turn("what is Tom's job?").reply
    assert _said(reply) == "Tom Hill works as a carpenter now, mostly kitchens", reply
    assert "job title" not in reply, reply
    assert _said(chat.turn("what does Tom do for a living?").reply) == \
        "Tom Hill works as a carpenter now, mostly kitchens"


@pytest.mark.parametrize("question, answer", [
    ("what is Nora's job?", "Nora Vale works at Globex (since February 2022)."),
    ("what is Maya's job?", "Nothing in your records says what Maya Cole's job is."),
    ("what is Zed's job?", "I found nothing about that."),
])
def test_job_from_facts_or_their_own_words(chat, question, answer):
    assert _said(chat.turn(question).reply) == answer


def test_a_chat_question_among_results_is_skipped():
    from app.answer import memory_answer
    from app.operations.types import AskResult

    asked = AskResult(text="what is Tom's job?", source="chat (Kith)", when=None, score=1.0, kind="episode")
    told = AskResult(text="tell me Tom's job title", source="chat (Kith)", when=None, score=1.0, kind="episode")
    said = AskResult(text="I work as a carpenter now", source="t.txt", when="2021-03-05T08:00:00+00:00", score=0.5,
                     record_id=7, sender="Tom Hill", record_kind="chat")
    assert memory_answer("what does Tom do?", [asked, told, said], "Sam Lee").text == \
        "Tom Hill works as a carpenter now [3]"
    assert memory_answer("what is Tom's job?", [asked, told], "Sam Lee").nothing


@pytest.mark.parametrize("text, asks", [
    ("tell me Tom's job title", True), ("Please show me the photos from Rome", True),
    ("ok, find the mail about the boiler", True), ("look up Nora's address", True),
    ("I booked a kayak trip for Sunday", False), ("My sister Jane lives in Portland", False),
    ("Names are hard to remember at parties", False)])
def test_a_request_to_kith_asks_and_is_not_kept_as_something_said(text, asks):
    from app.loop import _is_question

    assert _is_question(text) is asks


def test_a_request_is_not_stored_as_a_statement(archive, chat):
    from helpers.files import rows

    chat.turn("show me what Tom said about the shelves")
    assert rows(archive.settings.db_path, "SELECT provenance FROM episode WHERE text = ? AND "
                "provenance NOT LIKE '%#question'", ("show me what Tom said about the shelves",)) == []


def test_nothing_found_lists_no_sources(chat):
    reply = chat.turn("what is Zed's favourite submarine?").reply
    assert reply == "I found nothing about that.", reply


# ---- 3. an event: who was there and where, from the messages about it ----

def test_who_was_at_an_event(chat):
    reply = chat.turn("who was at Mum's birthday?").reply
    assert _said(reply) == "From the messages about Mum's birthday in June 2024: Ben Carter, Nora Vale and you.", \
        reply


def test_where_an_event_was(chat):
    assert _said(chat.turn("where was Mum's birthday?").reply) == \
        "Mum's birthday dinner is at Luigi's in Hove on Saturday"


# ---- 4. "my place", "your place" ----

def test_who_is_coming_to_my_place(chat):
    assert _said(chat.turn("who is coming to my place?").reply) == \
        "Ben Carter is coming to your place on Friday with the wine"


@pytest.mark.parametrize("question", ["whose place will I go to on Sunday?", "where will I go on Sunday?"])
def test_the_owners_your_place_is_named(chat, question):
    # the owner to Ben: "Can I come to your place on Sunday" — Ben's place, by name
    assert _said(chat.turn(question).reply) == "Can you come to Ben Carter's place on Sunday to borrow the drill?"


def test_your_place_named_only_for_one_addressee():
    from app.answer import best_sentence

    said = "come to your place on Saturday?"
    assert best_sentence("place", said, "Sam Lee", owner="Sam Lee", to="Tom Hill") == \
        "Come to Tom Hill's place on Saturday?"
    assert best_sentence("place", said, "Sam Lee", owner="Sam Lee") == "Come to their place on Saturday?"
    assert best_sentence("place", "Thank you for having me at your place", "Sam Lee", owner="Sam Lee",
                         to="Tom Hill") == "Thank them for having you at Tom Hill's place"


# ---- 5. who sent the most photos ----

@pytest.mark.parametrize("question", ["who sent me the most photos?", "who did I get the most pictures from?"])
def test_who_sent_the_most_photos(chat, question):
    # Ben: 3 "<Media omitted>" and a photo whose file was left out (the video is no photo); Tom: 2; Nora: 1
    assert chat.turn(question).reply == "Ben Carter sent you the most photos: 4; then Tom Hill (2) and Nora Vale (1)."


def test_what_a_thing_does_is_no_job(archive):
    from app.answer import JobQuestion, about_question, job_question

    assert job_question(archive, "what does the kettle do?") is None  # no one: recall answers it
    assert isinstance(about_question(archive, "what is Tom's occupation?"), JobQuestion)
    assert job_question(archive, "what is the weather in Paris?") is None

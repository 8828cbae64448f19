"""Answers a new user gets from a small archive of their own (a group chat and a few mails): each test writes
its own records and asserts the answer a careful person would give."""
from __future__ import annotations

import pytest

from app.answer import best_sentence, memory_answer
from app.container import Container
from app.loop import ConversationLoop
from app.models.llm import NoModel
from app.operations.ingest import ingest
from app.operations.types import AskResult
from app.settings import Settings
from helpers.mboxes import write_mbox


def _rec(n, text, sender, subject=None):
    return AskResult(text=text, source="/a", when=None, score=0.1, record_id=n, sender=sender, kind="record",
                     subject=subject)


def test_a_thanks_to_the_reader_is_not_what_someone_said():
    mail = _rec(1, "Re: Wedding RSVP Thanks Alex! Could you give a reading at the ceremony? Jess loves the idea. Sam",
                "Sam Patel", subject="Re: Wedding RSVP")
    chat = _rec(2, "So the wedding is confirmed for 14 August in Oban. Jess and I can't wait", "Sam Patel")
    # the mail is found by its subject; the chat line is the one that speaks of the wedding
    assert memory_answer("what did Sam say about the wedding?", [mail, chat]).text == \
        "The wedding is confirmed for 14 August in Oban. [2]"
    # with the mail alone: a sentence that says something, never the bare "Alex!" left of "Thanks Alex!"
    assert memory_answer("what did Sam say about the wedding?", [mail]).text == \
        "Could you give a reading at the ceremony? [1]"
    assert best_sentence("what about it?", "Thanks Alex! See you at the station tomorrow.") == \
        "See you at the station tomorrow."


def test_a_plan_that_works_is_not_where_someone_works():
    friday = _rec(1, "Friday at 7 works", "Alex Morgan")
    contract = _rec(2, "Signed contract\n\nPlease find attached my signed contract. I'm looking forward to starting "
                       "at Brightwave as a product designer on 2 August.", "Alex Morgan", subject="Signed contract")
    assert memory_answer("where do i work now?", [friday], owner="Alex Morgan").text == \
        "Nothing in your records says where you work."
    assert memory_answer("where do I work?", [friday, contract], owner="Alex Morgan").text == \
        "You're looking forward to starting at Brightwave as a product designer on 2 August. [2]"  # the owner's own


@pytest.fixture
def loop(tmp_path):
    c = Container(Settings.load(tmp_path / "home"))
    c.settings.owner_emails, c.settings.owner_name = ["alex@example.com"], "Alex Morgan"
    mbox = write_mbox(tmp_path / "m.mbox", [("Priya Shah <priya.shah@gmail.com>", "Drinks", "Come on the 24th!"),
                                             ("James Lee <james@example.org>", "Hi", "Hello there.")])
    assert ingest(c, [mbox]).records_added == 2
    yield ConversationLoop.for_container(c, model=NoModel())
    c.close()


def test_an_address_question_typed_without_apostrophes_is_answered(loop):
    def answer(q):
        return loop.turn(q).reply.split("\n\nSources:\n")[0]

    assert answer("whats priyas email") == "Priya Shah: priya.shah@gmail.com."
    assert answer("what is priya email address") == "Priya Shah: priya.shah@gmail.com."
    assert answer("whats James email") == "James Lee: james@example.org."  # a name that ends in s keeps it
    assert answer("What's Priya's email?") == "Priya Shah: priya.shah@gmail.com."
    # and as people misspell it
    assert answer("whats priyas email adress") == "Priya Shah: priya.shah@gmail.com."
    assert answer("whats priyas emial") == "Priya Shah: priya.shah@gmail.com."
    assert answer("what is james lee's phone number") == \
        "I don't have a phone number for James Lee (I know james@example.org)."


def test_where_someone_works_now_and_before_reads_as_a_sentence():
    now = AskResult(text="As of 2021-09-03, Priya Shah works at Monzo.", source="/a", when="2021-09-03T08:00:00+00:00",
                    score=0.1, record_id=1, subject="work: employer", sender="Priya Shah", kind="fact")
    before = AskResult(text="Priya Shah worked at Skyscanner until September 2021", source="/a", when=None,
                       score=0.1, record_id=2, subject="work: employer", sender="Priya Shah", kind="history")
    assert memory_answer("where does Priya work now", [now, before]).text == \
        "Priya Shah works at Monzo (since September 2021); before that, Priya worked at Skyscanner until " \
        "September 2021 [1][2]"


def test_who_is_someone_only_mentioned_says_who_mentioned_them_not_the_sender():
    chat = _rec(1, "So the wedding is confirmed for 14 August in Oban. Jess and I can't wait", "Sam Patel")
    other = _rec(2, "Congrats both!", "Priya Shah")
    assert memory_answer("who is Jess", [chat, other]).text == "Sam Patel mentioned Jess: “Jess and I can't wait” [1]"
    assert memory_answer("who is jess?", [other, chat]).text == "Sam Patel mentioned Jess: “Jess and I can't wait” [2]"
    # nothing shown mentions the name: not the sender of an unrelated message
    assert memory_answer("who is Morag?", [other]).nothing
    # "who is coming …" asks for a person, not about a name: the sender answers as before
    assert memory_answer("who is coming to the wedding?", [other]).text == "Priya Shah [1]"


def test_a_month_named_alone_is_answered_as_that_month_not_its_first_day():
    from datetime import datetime, timezone

    from app.answer import when_phrase

    sent = datetime(2021, 9, 3, 8, 0, tzinfo=timezone.utc)
    assert when_phrase("Starting at Monzo in October", sent) == "October 2021"
    assert when_phrase("See you in May 2022", sent) == "May 2022"
    assert when_phrase("The party is on 24 September", sent) == "24 September 2021"


def test_people_of_one_first_name_are_told_apart_by_address_not_by_id():
    from app.answer import about_answer

    ans = about_answer([(2, "Mark Sappol", "person", "Mark_Sappol@ipicorp.com"),
                        (11, "Mark Overmeer", "person", "markov@ATComputing.nl")], [])
    assert ans.text == ("2 people go by that name: Mark Sappol (Mark_Sappol@ipicorp.com) and Mark Overmeer "
                        "(markov@ATComputing.nl). Which one do you mean?")
    assert about_answer([(5, "Ann Lee", "person", ""), (6, "Ann Leeds", "person", "")], []).text == \
        "2 people go by that name: Ann Lee and Ann Leeds. Which one do you mean?"


def test_how_many_of_a_kind_do_i_have_counts_what_is_held(loop):
    def answer(q):
        return loop.turn(q).reply.split("\n\nSources:\n")[0]

    # write_mbox dates its mails a day apart from 2 April 2023
    assert answer("how many emails do I have") == "You have 2 emails, in April 2023."
    assert answer("how many emails are there in 2022?") == "You have 0 emails in 2022."
    assert answer("how many photos do i have") == "You have 0 photos."


def test_a_graph_answer_lists_only_the_sources_it_rests_on(loop):
    """'who do I email most?' is counted from the graph: the records recall found for its words were listed
    under it as sources; now none are, and 'what did Priya say?' lists her mail alone, not the fact beside it."""
    from app.loop import SOURCES_MARK

    reply = loop.turn("who do I email most?").reply
    assert SOURCES_MARK not in reply and reply.startswith("By email, you're most in touch with ")
    reply = loop.turn("what did Priya say?").reply
    answer, _sep, sources = reply.partition(SOURCES_MARK)
    assert answer.startswith("On 2 April 2023, Priya Shah wrote: “Come on the 24th!”")
    n = answer.rsplit("[", 1)[1].rstrip("]")
    assert sources.splitlines() == [line for line in sources.splitlines() if line.startswith(f"[{n}] ")]
    assert len(sources.splitlines()) == 1 and "Come on the 24th!" in sources


def test_a_profile_and_a_brief_find_someone_by_first_name(tmp_path, monkeypatch):
    """`kith profile Sam` / `kith brief priya` said "no entity named 'Sam'" though the chat reads a first name."""
    from click.testing import CliRunner

    from app.cli import main

    monkeypatch.setenv("KITH_HOME", str(tmp_path / "home"))
    mbox = write_mbox(tmp_path / "m.mbox", [("Sam Patel <sam@example.org>", "Hi", "See you soon."),
                                             ("Mark Sappol <ms@example.org>", "Hi", "Hello."),
                                             ("Mark Overmeer <mo@example.org>", "Hi", "Hello.")])
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", str(mbox)], catch_exceptions=False).exit_code == 0
    out = runner.invoke(main, ["profile", "sam"], catch_exceptions=False)
    assert out.exit_code == 0 and out.stdout.startswith("Sam Patel — person")
    out = runner.invoke(main, ["brief", "Sam"], catch_exceptions=False)
    assert out.exit_code == 0 and "Sam Patel" in out.stdout
    out = runner.invoke(main, ["profile", "Mark"])
    assert out.exit_code == 1 and "Mark Sappol" in out.stderr and "Mark Overmeer" in out.stderr
    assert runner.invoke(main, ["profile", "Samantha"]).exit_code == 1


def test_a_thing_only_named_in_messages_is_not_in_none_of_your_records():
    """'what is skyscanner?' answered 'Skyscanner — in none of your records' while Priya's message names it."""
    from app.answer import about_answer
    from app.operations.graph import About

    sky = About(id=5, kind="thing", name="Skyscanner", is_owner=False, addresses=[], records=0, first=None,
                last=None, together=[], facts=[])
    other = _rec(1, "Friday at 7 works", "Alex Morgan")
    news = _rec(2, "Big news: I got the job at Skyscanner! Starting in May", "Priya Shah")
    assert about_answer(sky, [other, news]).text == \
        "Skyscanner — Priya Shah mentioned it: “Big news: I got the job at Skyscanner!” [2]"
    assert about_answer(sky, [other]).text == "Skyscanner — in none of your records"


def test_naming_the_owner_drops_the_empty_me_it_stood_in_for(tmp_path, monkeypatch):
    """After `kith owner "Alex Morgan"` the stand-in 'Me' (no record, no fact) stayed a person: listed with
    '0 record(s)' and counted in 'how many people do I know?'."""
    from click.testing import CliRunner

    from app.cli import main

    monkeypatch.setenv("KITH_HOME", str(tmp_path / "home"))
    chat = tmp_path / "WhatsApp Chat with Weekend Crew.txt"
    chat.write_text("12/03/2021, 09:15 - Alex Morgan: Morning! Walk on Saturday?\n"
                    "12/03/2021, 09:20 - Sam Patel: Yes! Meet at Holyrood at 10?\n"
                    "12/03/2021, 09:22 - Priya Shah: Count me in.\n", encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", str(chat)], catch_exceptions=False).exit_code == 0
    assert "Owner: Me " in runner.invoke(main, ["owner"], catch_exceptions=False).stdout
    assert runner.invoke(main, ["owner", "Alex Morgan"], catch_exceptions=False).exit_code == 0
    listed = runner.invoke(main, ["entities"], catch_exceptions=False).stdout
    assert "Alex Morgan" in listed and "Sam Patel" in listed and " Me " not in listed
    assert runner.invoke(main, ["ask", "how many people do I know?"], catch_exceptions=False).stdout.startswith(
        "I hold 3 records about 2 people")


def test_what_happened_in_a_month_says_what_began_then():
    """'what did I do in June 2021?' counted the chat messages only: the move to Glasgow that month went unsaid."""
    from datetime import datetime, timezone

    from app.answer import PeriodQuestion, period_answer
    from app.operations.graph import Period

    june = Period(datetime(2021, 6, 1, tzinfo=timezone.utc), datetime(2021, 7, 1, tzinfo=timezone.utc), 6,
                  {"chat": 6}, [("Priya Shah", 6), ("Sam Patel", 6)], [], [],
                  ["As of 2021-06-30, Alex Morgan lives in Glasgow."])
    assert period_answer(PeriodQuestion("In June 2021", june)).text == \
        "In June 2021: 6 chat messages, mostly with Priya Shah (6) and Sam Patel (6). New then: Alex Morgan lives " \
        "in Glasgow."

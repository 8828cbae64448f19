""""Who is X?" answered from the knowledge graph (issue 14, a chat that helps by default): the memory answerer
had put the best-matching line of X's mail for it (on the corpus, "who is Mark Overmeer?" gave his signature
line, "Mark Overmeer %-]"). Now it says who X is from what Kith knows: addresses, how many records and when,
who is most often with X — citing a record X sent. The other questions the graph answers (who I talk to most, when
I last heard from X, X's address, what happened in a month, how many, where I have been, small talk) and pronouns
in follow-ups are here too. Right values worked out from the mail the test writes."""
from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from app.answer import NOTHING, about_answer, about_subject, memory_answer
from app.container import Container
from app.loop import ConversationLoop
from app.models.llm import NoModel
from app.operations.ingest import ingest
from app.settings import Settings
from helpers.mboxes import write_mbox


def test_about_subject_reads_the_name_a_who_is_question_asks_about():
    assert about_subject("who is Bob Stone?") == "Bob Stone"
    assert about_subject("Who's bob@example.org") == "bob@example.org"
    assert about_subject("who was Lincoln, D. E. (Daniel)?") == "Lincoln, D. E. (Daniel)"
    assert about_subject("tell me about the Climbing Club") == "Climbing Club"
    assert about_subject("what do you know about Arezzo?") == "Arezzo"
    assert about_subject("what is Caroline's identity?") == "Caroline's identity"  # no such entity: no answer of this kind
    for other in ("who told me about the starter?", "when was I in Italy?", "who is it?", "what's up?"):
        assert about_subject(other) is None, other


def test_several_entities_with_the_name_are_asked_about_not_guessed():
    ans = about_answer([(73, "John Doe", "person", "jd@example.org"), (75, "John Doe", "person", "")], [])
    assert ans.text == ("2 people share that name: John Doe (jd@example.org) and John Doe (id 75). "
                        "Which one do you mean?")
    assert ans.cited == [] and not ans.nothing


def test_two_people_with_one_name_are_told_apart_by_address_and_work(tmp_path):
    """Two senders called just "Alex" at unrelated addresses (regression ``mbox_two_people_named_alex``'s kind):
    "who is Alex?" had crashed (the candidates were read after their session closed); now it asks which one,
    with each one's address and current work fact. "Where does X work?" is answered by a work fact, never by
    where X lives, and "where do I work?" never by someone else's."""
    c = Container(Settings.load(tmp_path / "home"))
    try:
        c.settings.owner_emails, c.settings.owner_name = ["owner@example.net"], "Owner Person"
        mail = write_mbox(tmp_path / "alex.mbox", [
            ("Alex <alex@north.example>", "new job", "I work at Northwind now."),
            ("Alex <alex.r@south.example>", "hello", "I work at Southbank these days."),
            ("Rosa Vidal <rosa@example.org>", "news", "I live in Madrid now."),
        ], start=datetime(2023, 3, 6, 9, 0, tzinfo=timezone.utc))
        assert ingest(c, [mail]).records_added == 3
        loop = ConversationLoop.for_container(c, model=NoModel())
        reply = loop.turn("who is Alex?").reply.split("\n\nSources:\n")[0]
        assert reply.startswith("2 people share that name: Alex ("), reply
        assert "Alex (alex@north.example; Alex works at Northwind)" in reply
        assert "Alex (alex.r@south.example; Alex works at Southbank)" in reply and "(id " not in reply
        assert reply.endswith("Which one do you mean?")
        loop.subject = None
        lives = loop.turn("where does Rosa live?").reply.split("\n\nSources:\n")[0]
        assert lives.startswith("Rosa Vidal lives in Madrid (since March 2023)"), lives
        # a first name alone is the one person it starts the name of
        rosa = loop.turn("who is Rosa?").reply.split("\n\nSources:\n")[0]
        assert rosa.startswith("Rosa Vidal lives in Madrid. Rosa Vidal (rosa@example.org) — in 1 of your records"), rosa
        for question, said in (("where does Rosa work?", "Nothing in your records says where Rosa works."),
                               ("where do I work?", "Nothing in your records says where you work.")):
            assert loop.turn(question).reply.split("\n\nSources:\n")[0] == said
    finally:
        c.close()


def test_kith_ask_and_brief_with_a_shared_name_list_the_candidates(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from app.cli import main

    monkeypatch.setenv("KITH_HOME", str(tmp_path / "home"))
    mail = write_mbox(tmp_path / "alex.mbox", [("Alex <alex@north.example>", "new job", "I work at Northwind now."),
                                               ("Alex <alex.r@south.example>", "hello", "Southbank is fine.")])
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", str(mail)], catch_exceptions=False).exit_code == 0
    out = runner.invoke(main, ["ask", "who is Alex?"], catch_exceptions=False).stdout
    assert out.startswith("2 people share that name: Alex (") and "Alex (alex.r@south.example)" in out, out
    r = runner.invoke(main, ["brief", "Alex"])
    assert r.exit_code == 1 and "(person)" in r.stderr and "canonical_name=" not in r.stderr, r.stderr


def test_a_message_in_the_first_person_is_told_with_the_verb_agreeing():
    from app.answer import best_sentence

    assert best_sentence("where does Alex work?", "I work at Northwind now.", "Alex") == "Alex works at Northwind now."
    assert best_sentence("which hotel?", "From what I remember, we stayed at the Hotel Azul.", "Alice Wren") == \
        "From what Alice Wren remembers, Alice Wren and others stayed at the Hotel Azul."
    assert best_sentence("what does Sam watch?", "I really watch a lot of films", "Sam") == \
        "Sam really watches a lot of films"
    # the name once, then "they" (stop 25; was "Sam went home and Sam can swim.")
    assert best_sentence("where did Sam go?", "I went home and I can swim.", "Sam") == "Sam went home and they can swim."
    assert best_sentence("where is the umbrella?", "I think I left my umbrella at the Crown.", "Tom Weller") == \
        "Tom Weller thinks they left their umbrella at the Crown."
    assert best_sentence("where is the umbrella?", "I think I left my umbrella at the Crown.", "Alex", owner="Alex") == \
        "You think you left your umbrella at the Crown."  # the owner's own message, told back to them
    # quoted words are someone else's, as written; a title does not end a sentence
    assert best_sentence("call?", 'She said "I\'ll call you tomorrow" but I doubt it', "Tom Weller") == \
        'She said "I\'ll call you tomorrow" but Tom Weller doubts it'
    assert best_sentence("dentist?", "My dentist Dr. Green says I need a crown.", "Tom Weller") == \
        "Tom Weller's dentist Dr. Green says they need a crown."
    # a chat line pasted into the message is another person's "I" (regression whatsapp_pasted_lines' kind)
    pasted = ("Look what Jonas wrote: [11/03/2023, 21:15:03] Jonas Berg: I'm selling my bike "
              "[11/03/2023, 21:16:40] Priya Nair: I'll take it!")
    assert best_sentence("what did Maya say?", pasted, "Maya Ortiz") == pasted
    assert best_sentence("what did Maya say?", "I said: 3/11/23, 9:15 PM - Jonas: I sold it", "Maya Ortiz") == \
        "Maya Ortiz said: 3/11/23, 9:15 PM - Jonas: I sold it"


def test_who_is_cites_a_record_in_the_persons_own_words_before_an_attachment_note():
    from app.operations.graph import About

    cristy = About(5, "person", "Cristy", False, ["cristy@example.com"], 2, None, None, [], [])
    results = [{"kind": "record", "sender": "Cristy", "text": "[attached: gravity.pl]", "record_id": 1},
               {"kind": "record", "sender": "Mark", "text": "Cristy sent a script.", "record_id": 2},
               {"kind": "record", "sender": "Cristy", "text": "> Is it a feature?\nIt is a designed thing.",
                "record_id": 3}]
    assert about_answer(cristy, results).cited == [3]
    assert about_answer(cristy, results[:2]).cited == [1]  # her record all the same, when it is the only one


def test_other_questions_keep_the_memory_answer():
    assert memory_answer("who is Carol?", [], None, None).text == NOTHING


def test_the_chat_says_who_someone_is_from_the_graph(tmp_path):
    c = Container(Settings.load(tmp_path / "home"))
    try:
        c.settings.owner_emails, c.settings.owner_name = ["owner@example.net"], "Owner Person"
        start = datetime(2023, 4, 2, 9, 30, tzinfo=timezone.utc)
        mail = write_mbox(tmp_path / "club.mbox", [
            ("Bob Stone <bob@example.org>", "Climbing", "Shall we go climbing at Fontainebleau on Saturday? Bob %-]"),
            ("Bob Stone <bob@example.org>", "Alice Example <alice@example.com>, Owner Person <owner@example.net>",
             "Ropes", "Alice, can you bring the ropes? Bob %-]"),
            ("Alice Example <alice@example.com>", "Sourdough", "Feed the starter twice a day."),
            ("Bob Stone <bob@example.org>", "Saturday", "Meet at the car park at eight. Bob %-]"),
        ], start=start)
        assert ingest(c, [mail]).records_added == 4
        loop = ConversationLoop.for_container(c, model=NoModel())
        r = loop.turn("who is Bob Stone?")
        answer, sources = r.reply.split("\n\nSources:\n")
        # Bob's three mails (2, 3 and 5 April 2023); Alice is in one of them with him; the owner is left out
        assert answer.startswith("Bob Stone (bob@example.org) — in 3 of your records in April 2023, "
                                 "most often with Alice Example ["), answer
        assert r.cited and all(m.item.sender == "Bob Stone" for m in r.cited)
        assert "%-]" not in answer
        # a name Kith does not know: the answer from memory, here nothing
        assert loop.turn("who is Carol Nobody?").reply == NOTHING
        # the owner is in all four mails, with Bob in three and Alice in two
        me = loop.turn("who am I?").reply.split("\n\nSources:\n")[0]
        assert me.startswith("That's you (Owner Person) — in 4 of your records in April 2023, most often with "
                             "Bob Stone and Alice Example"), me
    finally:
        c.close()


def test_who_did_it_is_the_first_sender_the_question_does_not_name():
    from app.operations.types import AskResult

    bob = AskResult(text="Climbing\n\nShall we go climbing on Saturday?", source="/m.mbox", when=None, score=0.1,
                    record_id=1, sender="Bob Stone", kind="record")
    alice = AskResult(text="Re: Climbing\n\nYes, climbing on Saturday suits me.", source="/m.mbox", when=None,
                      score=0.1, record_id=2, sender="Alice Example", kind="record")
    lst = AskResult(text="Welcome to magick-developer", source="/m.mbox", when=None, score=0.1, record_id=3,
                    sender="majordomo@imagemagick.org", kind="record")
    assert memory_answer("who answered Bob about climbing?", [bob, alice]).text == "Alice Example [2]"
    # an address is named by its mailbox ("majordomo"), not by its domain, which the question may well name
    assert memory_answer("who emailed me about ImageMagick?", [lst]).text == "majordomo@imagemagick.org [1]"


def test_the_best_sentence_is_the_senders_own_and_whole():
    from app.answer import best_sentence, own_sentences

    mail = ("Re: your mail\n\n* Mark (markov@example.nl) [000614 17:46]:\n> It was not clear from the docs.\n\n"
            "There is a lot that is not clear in the docs.  We're writing a book due\nout next year to fix these "
            "sorts of problems.\n\nCristy\n")
    assert own_sentences(mail) == ["Re: your mail",  # mutt's attribution line above the quote is not hers
                                   "There is a lot that is not clear in the docs.",
                                   "We're writing a book due out next year to fix these sorts of problems.", "Cristy"]
    assert best_sentence("what book is Cristy writing?", mail, "Cristy") == \
        "Cristy and others are writing a book due out next year to fix these sorts of problems."


def test_a_turn_with_no_word_of_its_own_is_not_shown():
    from core.retrieval.retriever import Hit, is_shown

    def hit(text):
        return Hit(1, 1, text, None, None, None, None, "record", 0.5, 1, sources=("lex",), relevance=0.9)

    assert is_shown(hit("Lorem ipsum."), 0.31) and not is_shown(hit(""), 0.31) and not is_shown(hit(" . "), 0.31)
    assert is_shown(hit(""), 0.0)  # "show everything" shows it


def test_kith_ask_says_the_memory_answer_first_and_cites_the_listed_results(tmp_path, monkeypatch):
    import json
    import re

    from click.testing import CliRunner

    from app.cli import main

    home = tmp_path / "home"
    monkeypatch.setenv("KITH_HOME", str(home))
    mail = write_mbox(tmp_path / "club.mbox", [
        ("Bob Stone <bob@example.org>", "Climbing", "Hi!\n\nI found a new crag at Fontainebleau for climbing."),
        ("Alice Example <alice@example.com>", "Sourdough", "Feed the starter twice a day."),
    ])
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", str(mail)], catch_exceptions=False).exit_code == 0
    q = "what did Bob say about the crag?"
    out = runner.invoke(main, ["ask", q], catch_exceptions=False).stdout
    first, listing = out.split("\n\n", 1)
    # the sentence of Bob's own text (not his subject line), in the third person, citing the result listed as [n]
    m = re.fullmatch(r"Bob Stone found a new crag at Fontainebleau for climbing\. \[(\d+)\]", first)
    assert m, out
    n = int(m.group(1))
    assert re.search(rf"^{n}\. \[[0-9.]+\] email .*\n   Climbing Hi! I found a new crag", listing, re.M), listing
    data = json.loads(runner.invoke(main, ["ask", q, "--json"], catch_exceptions=False).stdout)
    assert data["answer"] == first and "crag" in data["results"][n - 1]["text"]
    everything = runner.invoke(main, ["ask", q, "--all"], catch_exceptions=False).stdout
    first_all, listing_all = everything.split("\n\n", 1)
    n_all = int(re.search(r"\[(\d+)\]$", first_all).group(1))
    assert first_all.startswith("Bob Stone found a new crag")
    assert re.search(rf"^{n_all}\. \[[0-9.]+\] email .*\n   Climbing Hi! I found a new crag", listing_all, re.M)
    assert runner.invoke(main, ["ask", "what about the zeppelin?"], catch_exceptions=False).stdout.startswith(
        "I found nothing about that.")


def test_in_touch_questions_are_read_with_their_channel_year_and_direction():
    from app.answer import in_touch_question

    q = in_touch_question("Who do I talk to the most on WhatsApp?")
    assert (q.channels, q.year, q.label, q.senders) == (("whatsapp",), None, "On WhatsApp", False)
    q = in_touch_question("who emails me the most in 2000?")
    assert (q.channels, q.year, q.label, q.senders) == (("mbox", "eml"), 2000, "By email in 2000", True)
    q = in_touch_question("who are my top contacts?")
    assert (q.channels, q.year, q.label, q.senders) == ((), None, "", False)
    for other in ("who told me about the starter?", "who is Bob?", "what do I talk about most?"):
        assert in_touch_question(other) is None, other


class Chat:
    """A data folder with an owner, the chat loop on it (the memory answerer), and the answer part of a reply
    (before its sources and citation marks)."""

    def __init__(self, home):
        self.c = Container(Settings.load(home))
        self.c.settings.owner_emails, self.c.settings.owner_name = ["owner@example.net"], "Owner Person"
        self.loop = ConversationLoop.for_container(self.c, model=NoModel())

    def add(self, *paths) -> int:
        return ingest(self.c, list(paths)).records_added

    def answer(self, question: str) -> str:
        return self.loop.turn(question).reply.split("\n\nSources:\n")[0].split(" [")[0]


@pytest.fixture
def chat(tmp_path):
    ch = Chat(tmp_path / "home")
    yield ch
    ch.c.close()


BOB, ALICE, ME = "Bob Stone <bob@example.org>", "Alice Example <alice@example.com>", "Owner Person <owner@example.net>"


def test_who_do_i_talk_to_most_counts_the_records_each_person_is_a_party_to(chat, tmp_path):
    assert chat.add(write_mbox(tmp_path / "club.mbox", [
        (BOB, "Climbing", "Shall we go climbing on Saturday?"),          # 2 Apr 2023: Bob wrote
        (ME, BOB, "Re: Climbing", "Yes, gladly."),                       # 3 Apr: to Bob
        (BOB, "Ropes", "Bring the ropes."),                              # 4 Apr: Bob wrote
        (ALICE, "Sourdough", "Feed the starter twice a day."),           # 5 Apr: Alice wrote
        (ME, ALICE, "Re: Sourdough", "Thanks!"),                         # 6 Apr: to Alice
        (ME, ALICE, "Bread", "It rose!"),                                # 7 Apr: to Alice
        (ME, ALICE, "More bread", "Again."),                             # 8 Apr: to Alice
    ])) == 7
    # parties to: Alice 4 records (1 from her, 3 to her), Bob 3 (2 from him, 1 to him)
    assert chat.answer("who do I talk to most?") == \
        "You're most in touch with Alice Example (4 records in April 2023), then Bob Stone (3)."
    # who wrote to me: Bob's 2 messages before Alice's 1
    assert chat.answer("Who emails me the most?") == \
        "By email, Bob Stone wrote to you most (2 messages in April 2023), then Alice Example (1)."
    assert chat.answer("who did I email most in 1999?") == "I found nobody you're in touch with by email in 1999."


def test_when_did_i_last_hear_from_and_what_is_their_address_come_from_the_graph(chat, tmp_path):
    assert chat.add(write_mbox(tmp_path / "club.mbox", [
        (BOB, "Climbing", "Shall we go climbing on Saturday?"),   # 2 Apr 2023
        (BOB, "Ropes", "Bring the ropes."),                      # 3 Apr
        (ME, BOB, "Re: Ropes", "Will do."),                      # 4 Apr: to Bob
    ])) == 3
    r = chat.loop.turn("When did I last hear from Bob Stone?")
    answer = r.reply.split("\n\nSources:\n")[0]
    assert answer.startswith("You last heard from Bob Stone on 3 April 2023 (by email, “Ropes”). [")
    # the mail itself is cited (the window's card opens it), whether or not recall had found it
    assert [m.item.text for m in r.cited] == ["Ropes\n\nBring the ropes."]
    assert answer.endswith(f"[{r.cited[0].number}]")
    assert chat.answer("when did I first hear from Bob Stone?") == \
        "You first heard from Bob Stone on 2 April 2023 (by email, “Climbing”)."
    assert chat.answer("when did I last talk to Bob Stone?") == \
        "You were last in touch with Bob Stone on 4 April 2023 (by email, “Re: Ropes”)."
    assert chat.answer("when did I last email Bob Stone?") == \
        "The last message to Bob Stone was sent on 4 April 2023 (by email, “Re: Ropes”)."
    assert chat.answer("What's Bob Stone's email address?") == "Bob Stone: bob@example.org."
    assert chat.answer("what is Bob Stone's phone number?") == \
        "I don't have a phone number for Bob Stone (I know bob@example.org)."
    assert chat.answer("how do I reach Bob Stone?") == "Bob Stone: bob@example.org."


def test_period_of_reads_months_years_days_and_relative_periods():
    from app.answer import period_of

    utc = timezone.utc
    now = datetime(2026, 12, 1, 10, 0, tzinfo=utc)  # a Tuesday
    assert period_of("in June 2000", now) == (datetime(2000, 6, 1, tzinfo=utc), datetime(2000, 7, 1, tzinfo=utc),
                                              "In June 2000")
    assert period_of("Dec 1999", now)[:2] == (datetime(1999, 12, 1, tzinfo=utc), datetime(2000, 1, 1, tzinfo=utc))
    assert period_of("during 2008", now) == (datetime(2008, 1, 1, tzinfo=utc), datetime(2009, 1, 1, tzinfo=utc),
                                             "In 2008")
    assert period_of("on 22 October 2008", now) == (datetime(2008, 10, 22, tzinfo=utc),
                                                    datetime(2008, 10, 23, tzinfo=utc), "On 22 October 2008")
    assert period_of("last week", now)[:2] == (datetime(2026, 11, 23, tzinfo=utc), datetime(2026, 11, 30, tzinfo=utc))
    assert period_of("last month", now)[:2] == (datetime(2026, 11, 1, tzinfo=utc), datetime(2026, 12, 1, tzinfo=utc))
    assert period_of("yesterday", now)[:2] == (datetime(2026, 11, 30, tzinfo=utc), datetime(2026, 12, 1, tzinfo=utc))
    for other in ("to the car", "on the beach", "on Tuesday", "with Bob"):
        assert period_of(other, now) is None, other


def test_what_happened_in_a_month_and_small_talk_answer_from_what_kith_holds(chat, tmp_path):
    assert chat.answer("hello") == ("Hello! I don't hold anything yet: drop chat exports, mail, photos or voice memos "
                                    "on the window (or run `kith ingest PATH`), then ask me about the people, places "
                                    "and events in them.")
    assert chat.add(write_mbox(tmp_path / "club.mbox", [
        (BOB, "Climbing", "Shall we go climbing on Saturday?"),   # 30 Mar 2023
        (BOB, "Ropes", "Bring the ropes."),                      # 31 Mar
        (ALICE, "Sourdough", "Feed the starter twice a day."),   # 1 Apr
        (BOB, "Re: Sourdough", "Me too!"),                       # 2 Apr
    ], start=datetime(2023, 3, 30, 9, 0, tzinfo=timezone.utc))) == 4
    # April 2023: Alice's and Bob's mails about the starter; each is a party to one (the owner left out)
    assert chat.answer("What happened in April 2023?") == \
        "In April 2023: 2 emails, mostly with Alice Example (1) and Bob Stone (1); about “Sourdough”."
    assert chat.answer("what did I do in 1999?") == "I have nothing from 1999."
    assert chat.answer("Hi!") == ("Hello! I hold 4 records about 2 people, all on this computer. Ask me, for example, "
                                  "“who is Bob Stone?” and “who do I talk to most?”; I answer from your own records "
                                  "and cite them.")
    assert chat.answer("thanks!") == "You're welcome."
    # the owner is left out of the people; Bob has three mails, Alice one
    assert chat.answer("how many people do I know?") == \
        "I hold 4 records about 2 people. You're most in touch with Bob Stone and Alice Example."


def test_pronouns_in_a_follow_up_are_the_person_the_last_answer_was_about(chat, tmp_path):
    from app.loop import resolve_pronouns

    assert resolve_pronouns("when did I last hear from her?", "Cristy") == "when did I last hear from Cristy?"
    assert resolve_pronouns("what is her email address?", "Cristy") == "what is Cristy's email address?"
    assert resolve_pronouns("did I talk to her yesterday?", "Cristy") == "did I talk to Cristy yesterday?"
    assert resolve_pronouns("where does he live? his home?", "Bob") == "where does Bob live? Bob's home?"
    assert resolve_pronouns("where is the shed?", "Bob") == "where is the shed?"

    assert chat.add(write_mbox(tmp_path / "club.mbox", [(BOB, "Climbing", "Shall we go climbing on Saturday?"),
                                                        (BOB, "Ropes", "Bring the ropes.")])) == 2
    assert chat.answer("when did I last hear from him?").startswith("I found nothing")  # nobody named yet
    assert chat.answer("who is Bob Stone?").startswith("Bob Stone (bob@example.org) — in 2 of your records")
    assert chat.answer("when did I last hear from him?") == \
        "You last heard from Bob Stone on 3 April 2023 (by email, “Ropes”)."
    assert chat.answer("what is his email address?") == "Bob Stone: bob@example.org."
    assert [m["content"] for m in chat.loop.history if m["role"] == "user"][-1] == "what is his email address?"


def test_how_many_counts_the_records_of_a_kind_a_person_sent(chat, tmp_path):
    assert chat.add(write_mbox(tmp_path / "club.mbox", [(BOB, "Climbing", "Shall we go climbing?"),   # 2 Apr 2023
                                                        (ALICE, "Bread", "Feed the starter."),       # 3 Apr
                                                        (BOB, "Ropes", "Bring the ropes.")])) == 3    # 4 Apr
    assert chat.answer("How many emails did Bob Stone send me?") == "Bob Stone sent you 2 emails, in April 2023."
    assert chat.answer("how many messages did I get from Alice Example?") == \
        "Alice Example sent you 1 message, on 3 April 2023."
    assert chat.answer("how many emails did Bob Stone send me in 2022?") == "Bob Stone sent you 0 emails in 2022."
    assert chat.answer("how many photos did I take?") == "You took 0 photos."


def test_where_have_i_been_and_how_many_photos_come_from_the_photos_places(chat):
    photos = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "photos"
    if not photos.is_dir():
        pytest.skip("../shared/corpus not present (it exists only in the dev workspace and CI)")
    assert chat.add(photos / "gps_DSCN0010.jpg", photos / "gps_DSCN0040.jpg") == 2
    # both taken at Arezzo on 22 October 2008 (GPS position and time; see the regressions' README)
    assert chat.answer("where have I been?") == \
        "From your photos, you've been to Arezzo, Tuscany, Italy (2 photos, first on 22 October 2008)."
    assert chat.answer("how many photos did I take in Italy?") == \
        "You took 2 photos in Italy, on 22 October 2008 (Arezzo, Tuscany, Italy)."
    assert chat.answer("which places have I visited in 2009?") == "None of your photos in 2009 has a place I know."
    # the visit (the place's fact) is shown once: the trip's event fact on the same photos says it again
    from app.jobs import after_import
    from app.operations.ask import ask

    after_import(chat.c)  # the trip (an event) from the photos, as the window and `kith ingest` make it
    shown = ask(chat.c, "when was I in Italy?")
    assert [r.text for r in shown if r.kind == "fact"] == ["As of 2008-10-22, Arezzo, Tuscany, Italy was photographed."]
    assert [r.record_kind for r in shown if r.kind != "fact"] == ["photo", "photo"]


def test_a_sentence_that_announces_what_follows_comes_with_it():
    from app.answer import best_sentence

    text = "Hi all,\n\nI am trying to do the following:\n\n1) Take a JPEG image and size it down.\n\nThanks, Steve"
    assert best_sentence("what is Steve trying to do?", text, speaker="Steve Sapovits") == \
        "Steve Sapovits is trying to do the following: 1) Take a JPEG image and size it down."


def test_who_is_brings_a_record_in_their_own_words_to_cite(chat, tmp_path):
    from app.answer import about_question

    assert chat.add(write_mbox(tmp_path / "club.mbox", [(BOB, "Climbing", "Shall we go climbing on Saturday?"),
                                                        (BOB, "Route", "[attached: route.pdf]")])) == 2
    about = about_question(chat.c, "who is Bob Stone?")
    # his latest mail is only an attachment's note: the one before it is in his own words
    assert (about.name, about.result.text) == ("Bob Stone", "Climbing\n\nShall we go climbing on Saturday?")
    r = chat.loop.turn("who is Bob Stone?")
    assert r.cited and all(m.item.sender == "Bob Stone" for m in r.cited)
    assert r.cited[0].item.text != "Route\n\n[attached: route.pdf]"


def test_a_record_with_no_words_is_never_the_answer():
    """A voice memo of silence (regression ``silence_30s.wav``'s kind) is found by its title ("Voice memo …") but has
    no text: the answer is the next record's sentence, or nothing — not an empty line."""
    silent = {"kind": "record", "text": "", "subject": "Voice memo silence", "record_id": 1, "record_kind": "voice"}
    jfk = {"kind": "record", "text": "Ask not what your country can do for you.", "subject": "Voice memo jfk",
           "record_id": 2, "record_kind": "voice"}
    assert memory_answer("what's in my voice memos?", [silent, jfk]).text == \
        "Ask not what your country can do for you. [2]"
    assert memory_answer("what's in my voice memos?", [silent]).text == NOTHING


def test_where_someone_lived_or_worked_is_read_from_the_facts_valid_times(tmp_path):
    """"Where did Rosa live in March 2023 / before Madrid?" (regression ``mbox_superseded_home``'s kind): the answer
    is the fact whose valid time holds then, or the one superseded by it — seed 002's temporal validity — not the
    current one. Right values: Berlin from the January mail's day (9 January) until the day Madrid starts (the
    June mail says "last week": the week before 13 June, so 5 June), Madrid since then."""
    c = Container(Settings.load(tmp_path / "home"))
    try:
        c.settings.owner_emails, c.settings.owner_name = ["owner@example.net"], "Owner Person"
        rosa = "Rosa Vidal <rosa@example.org>"
        mails = write_raw_mbox_like(tmp_path / "rosa.mbox", [
            (rosa, "hi", "I live in Berlin now.", datetime(2023, 1, 9, 10, 0, tzinfo=timezone.utc)),
            (rosa, "news", "Big change: I moved to Madrid last week.", datetime(2023, 6, 13, 10, 0, tzinfo=timezone.utc)),
            ("Owner Person <owner@example.net>", "me", "I work at Acme Labs now.",
             datetime(2022, 2, 1, 10, 0, tzinfo=timezone.utc)),
        ])
        assert ingest(c, [mails]).records_added == 3
        loop = ConversationLoop.for_container(c, model=NoModel())

        def say(q):
            loop.subject = None
            return re.sub(r" \[\d+\]$", "", loop.turn(q).reply.split("\n\nSources:\n")[0])

        assert say("where does Rosa live?") == \
            "Rosa Vidal lives in Madrid (since June 2023); before that, Rosa lived in Berlin until June 2023"
        assert say("where did Rosa live in March 2023?") == \
            "In March 2023, Rosa Vidal lived in Berlin (from January 2023 to June 2023)"
        assert say("where did Rosa Vidal live before Madrid?") == \
            "Before Madrid, Rosa Vidal lived in Berlin (from January 2023 to June 2023)"
        assert say("where did Rosa live in 2020?") == ("Nothing in your records says where Rosa Vidal lived in 2020; "
                                                       "I know of Berlin (from January 2023 to June 2023) and Madrid "
                                                       "(since June 2023).")
        assert say("where did Rosa live before Berlin?") == "I don't know where Rosa Vidal lived before Berlin."
        assert say("where do I work?") == "You work at Acme Labs (since February 2022)"
        # an ended job with none after it: what ended, and when (not "before …")
        quit_mail = write_raw_mbox_like(tmp_path / "quit.mbox", [
            ("Tom Weller <tom@example.org>", "job", "I work at Northwind now.",
             datetime(2023, 1, 9, 10, 0, tzinfo=timezone.utc)),
            ("Tom Weller <tom@example.org>", "news", "I quit Northwind last week.",
             datetime(2023, 3, 13, 10, 0, tzinfo=timezone.utc))])
        assert ingest(c, [quit_mail]).records_added == 2
        assert say("where does Tom work?") == \
            "Tom Weller worked at Northwind until March 2023; nothing in your records says where since."
        # the answer cites the mail the fact rests on
        r = loop.turn("where did Rosa live in March 2023?")
        assert [m.item.text for m in r.cited] == ["hi\n\nI live in Berlin now."]
    finally:
        c.close()


def write_raw_mbox_like(path: Path, messages) -> Path:
    """An mbox of ``(from, subject, body, sent)`` messages, each sent at its own time."""
    from email.utils import format_datetime

    parts = []
    for sender, subject, body, sent in messages:
        parts.append(f"From x@y {sent:%a %b %d %H:%M:%S %Y}\nFrom: {sender}\nTo: Owner Person <owner@example.net>\n"
                     f"Subject: {subject}\nDate: {format_datetime(sent)}\n\n{body}\n\n")
    path.write_text("".join(parts), encoding="utf-8")
    return path


def test_what_someone_said_with_no_topic_is_their_latest_message_in_their_own_words(tmp_path):
    """"What did Noor say?" had answered "I found nothing about that." (no word of the question is in her
    messages). Now it quotes the latest message she sent in her own words, with its day, and cites it."""
    c = Container(Settings.load(tmp_path / "home"))
    try:
        c.settings.owner_emails, c.settings.owner_name = ["owner@example.net"], "Owner Person"
        mails = write_raw_mbox_like(tmp_path / "noor.mbox", [
            ("Noor Sample <noor@example.org>", "hi", "Hello from Lisbon!", datetime(2021, 1, 1, 0, 1, tzinfo=timezone.utc)),
            ("Noor Sample <noor@example.org>", "Re: trip", "The tram was full. We walked up to the castle instead.\n\n"
             "> how was it?", datetime(2021, 1, 3, 18, 0, tzinfo=timezone.utc)),
            ("Bob Stone <bob@example.org>", "bike", "Selling my bike.", datetime(2021, 1, 4, 9, 0, tzinfo=timezone.utc)),
        ])
        assert ingest(c, [mails]).records_added == 3
        loop = ConversationLoop.for_container(c, model=NoModel())
        for q in ("what did Noor say?", "What was Noor Sample's last message?"):
            loop.subject = None
            r = loop.turn(q)
            assert re.fullmatch(r"On 3 January 2021, Noor Sample wrote: “The tram was full\. We walked up to the castle "
                                r"instead\.” \[\d\]", r.reply.split("\n\nSources:\n")[0]), r.reply
            assert r.cited[0].item.record_id is not None and "castle" in r.cited[0].item.text
    finally:
        c.close()


def test_who_wrote_to_me_is_not_answered_by_my_own_messages(tmp_path):
    """"Who emailed me about PGP?" had put the owner's name for "me", which ranked the owner's own messages first
    (their name is in each one's sender column, and the sender the question names is boosted): the answer was a
    chat line of the owner's about a boat. "Me" is only the one written to: the question is asked as it is."""
    c = Container(Settings.load(tmp_path / "home"))
    try:
        c.settings.owner_emails, c.settings.owner_name = ["owner@example.net"], "Owner Person"
        mails = write_raw_mbox_like(tmp_path / "m.mbox", [
            ("Owner Person <owner@example.net>", "boat", "Perfect, I'll bring the boat.",
             datetime(2023, 1, 1, 12, 0, tzinfo=timezone.utc)),
            ("Owner Person <owner@example.net>", "lunch", "I'll be there at noon, Owner Person",
             datetime(2023, 1, 2, 12, 0, tzinfo=timezone.utc)),
            ("Bob Stone <bob@example.org>", "PGP testing", "Here is the PGP testing email, encrypted.",
             datetime(2023, 1, 3, 12, 0, tzinfo=timezone.utc)),
            ("Alice Example <alice@example.com>", "sourdough", "Feed the starter twice a day.",
             datetime(2023, 1, 4, 12, 0, tzinfo=timezone.utc)),
        ])
        assert ingest(c, [mails]).records_added == 4
        loop = ConversationLoop.for_container(c, model=NoModel())
        assert re.fullmatch(r"Bob Stone \[\d\]", loop.turn("who emailed me about PGP?").reply.split("\n\nSources:")[0])
        said = loop.turn("what did I say about the boat?").reply.split("\n\nSources:")[0]
        assert said.startswith("Perfect, you'll bring the boat."), said  # the owner's own words, told back to them
    finally:
        c.close()


def test_about_a_place_says_the_photos_taken_there_and_greetings(tmp_path):
    from helpers.photos import write_photo

    c = Container(Settings.load(tmp_path / "home"))
    try:
        shots = [write_photo(tmp_path / "p" / f"{i}.jpg", datetime(2008, 10, 22, 14, 28 + i, tzinfo=timezone.utc),
                             43.4633, 11.8797) for i in range(2)]
        assert ingest(c, shots).records_added == 2
        loop = ConversationLoop.for_container(c, model=NoModel())
        text = loop.turn("tell me about Arezzo").reply.split("\n\nSources:")[0]
        # the place's name from the offline gazetteer, then what its photos say (not its visit facts again)
        assert re.fullmatch(r"Arezzo, [^—]+ — you took 2 photos there on 22 October 2008 \[\d\]", text), text
        for hello in ("what's up?", "How are you?", "hey there!"):
            assert loop.turn(hello).reply.startswith("Hello! I hold 2 records"), hello
    finally:
        c.close()

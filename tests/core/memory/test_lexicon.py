"""The episode BM25 of app.memory (issue #4): tokens, context windows, scoring."""
from __future__ import annotations

from collections import Counter

from app.memory import Lexicon, _date_words, lex_tokens


def test_tokens_stem_and_drop_stopwords():
    assert lex_tokens("What paintings did she paint?") == ["paint", "paint"]
    assert "when" not in lex_tokens("When did Caroline go hiking")


def test_date_words_resolve_against_message_time():
    from datetime import datetime, timezone

    assert _date_words("I went there last month", datetime(2023, 5, 8, tzinfo=timezone.utc)) == ["april", "2023"]


def test_bm25_ranks_the_matching_document_first_and_skips_non_matches():
    docs = [Counter(lex_tokens(t)) for t in ("I adopted a puppy", "the weather is nice", "puppy puppy training")]
    lex = Lexicon("k", [10, 11, 12], docs)
    hits = lex.search("Who trained the puppy?", 5)
    assert [e for e, _ in hits] == [12, 10]
    assert hits[0][1] > hits[1][1] > 0
    assert lex.search("nothing matches here", 5) == []


def test_speaker_boost_lifts_the_first_named_senders_messages_only():
    from app import memory

    docs = [Counter(lex_tokens(t)) for t in ("pottery class", "camping trip", "a new job")]
    lex = Lexicon("k", [1, 2, 3], docs, speakers=["Melanie", "Caroline", "Caroline"])
    fused = [(2, 0.10), (1, 0.08), (3, 0.05)]
    f = 1.0 + memory.SPEAKER_BOOST  # 2.0
    assert lex.speaker_boost("What does Melanie do?", fused) == [(1, 0.08 * f), (2, 0.10), (3, 0.05)]
    assert lex.speaker_boost("What do people do?", fused) == fused  # nobody named
    # both named: the question's subject is the first one ("Caroline … Melanie" → Caroline's messages)
    assert lex.speaker_boost("What did Caroline tell Melanie?", fused) == [(2, 0.10 * f), (3, 0.05 * f), (1, 0.08)]
    assert lex.speaker_boost("Did Melanie and Caroline meet?", fused)[0] == (1, 0.08 * f)
    solo = Lexicon("k", [1, 2], docs[:2], speakers=["Melanie", "Melanie"])
    assert solo.speaker_boost("What does Melanie do?", fused[:2]) == fused[:2]  # one sender: nothing to tell apart


def test_context_text_puts_the_date_and_thread_neighbours_around_the_message():
    from datetime import datetime, timezone

    from app import memory
    from app.memory import MemoryService
    from core.store.schema import Record

    t = datetime(2023, 5, 8, 13, tzinfo=timezone.utc)
    rec = Record(kind="chat", text="Yes, yesterday!", sent_at=t)
    prev = Record(kind="chat", text="Did you go to the parade?", sent_at=t)
    nxt = Record(kind="chat", text="How was it?", sent_at=t)
    old = dict(memory.GIST)
    memory.GIST["date"] = True
    try:
        out = MemoryService.context_text(None, rec, "Caroline", [(prev, "Melanie")], [(nxt, "Melanie")])
    finally:
        memory.GIST.update(old)
    assert out.splitlines() == ["08 May 2023", "Melanie: Did you go to the parade?", "Caroline: Yes, yesterday!",
                                "Melanie: How was it?"]
    mine = Record(kind="chat", text="I took my kids camping; we loved it", sent_at=t)
    out = MemoryService.context_text(None, mine, "Melanie", [], [])
    assert out == "Melanie: Melanie took Melanie's kids camping; Melanie and others loved it"


def test_third_person_rewrites_the_speakers_first_person_only():
    from core.extraction.text import speaker_view, third_person

    assert third_person("I'm sure my dog likes me, and I’ve told us so", "Jon") == \
        "Jon is sure Jon's dog likes Jon, and Jon has told Jon and others so"
    assert third_person("i'll be there. Mine is red; ours too", "Gina") == "Gina will be there. Gina's is red; Gina's too"
    # words that only contain the pronouns, and the country, are left alone
    assert third_person("Items in the US: Iowa, menu, myth", "Jon") == "Items in the US: Iowa, menu, myth"
    assert third_person("I went", "") == "I went"
    assert speaker_view("A\\1", "I went") == "A\\1: A\\1 went"  # the name is inserted literally
    assert speaker_view(None, "I went") == "I went"

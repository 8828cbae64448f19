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


def test_speaker_boost_lifts_the_named_senders_messages_only():
    docs = [Counter(lex_tokens(t)) for t in ("pottery class", "camping trip", "a new job")]
    lex = Lexicon("k", [1, 2, 3], docs, speakers=["Melanie", "Caroline", "Caroline"])
    fused = [(2, 0.10), (1, 0.08), (3, 0.05)]
    assert [e for e, _ in lex.speaker_boost("What does Melanie do?", fused)] == [1, 2, 3]
    assert lex.speaker_boost("What do people do?", fused) == fused  # nobody named
    assert lex.speaker_boost("Did Melanie and Caroline meet?", fused) == fused  # everyone named


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

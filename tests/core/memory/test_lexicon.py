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

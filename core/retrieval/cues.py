"""What a question asks for and what a turn says, read from their words alone (no model): the cue the
retriever's time boost uses (``core/retrieval/retriever.py``), and what a question is about (the relevance
features' coverage, ``core/retrieval/relevance.py``).

* **Expected answer type** (Harabagiu et al., "FALCON: Boosting knowledge for answer engines", TREC-9 2000;
  Prager et al., "Question-answering by predictive annotation", SIGIR 2000): a question asking *when* is
  answered by a turn that says when — "we went camping two weeks ago" — far more often than by one that
  does not.  On the LoCoMo dev split, 74 % of the evidence turns of "when" questions hold a time expression
  against 17 % of the other turns ranked in the top 20 (``benchmarks/locomo.py``).

* **Topic**: a question about what someone communicated — "who *told* me about the starter?" — is about the
  rest of its words; the framing verb is held by no turn that answers it (:func:`topic_tokens`).

English only, like ``core.extraction.text.third_person`` (the owner's "I" in a question).
"""
from __future__ import annotations

import functools
import re
from datetime import datetime

from core.extraction.time_anchors import has_time_anchor

_ASKS_WHEN = re.compile(r"\bwhen\b|\bwhat (?:day|date|month|year|time|week|weekend)\b|\bwhich (?:day|date|month|year|"
                        r"week|weekend)\b|\bhow long ago\b", re.IGNORECASE)


def asks_when(question: str) -> bool:
    """True when ``question`` asks for a time: "when …", "what day/date/month/year/time …", "which week …",
    "how long ago …"."""
    return bool(_ASKS_WHEN.search(question or ""))


_FRAME_WORDS = ("tell", "told", "telling", "tells", "say", "said", "says", "saying", "mention", "mentioned",
                "mentions", "mentioning", "talk", "talked", "talking", "talks", "speak", "spoke", "spoken", "write",
                "wrote", "writes", "written", "writing", "send", "sent", "sends", "ask", "asked", "asks", "share",
                "shared", "shares", "discuss", "discussed", "discusses")


@functools.lru_cache(maxsize=1)
def frame_tokens() -> frozenset[str]:
    """The lexicon tokens of the verbs that frame a question about what someone communicated — "who *told* me
    about the starter?", "what did Mel *mention*?" — whose topic is the rest of the question: a turn that holds
    the rest answers it without holding the verb."""
    from core.retrieval.lexicon import tokens

    return frozenset(t for w in _FRAME_WORDS for t in tokens(w))


def topic_tokens(query_tokens: list[str]) -> list[str]:
    """``query_tokens`` less :func:`frame_tokens` (all of them when nothing else is left)."""
    frame = frame_tokens()
    rest = [t for t in query_tokens if t not in frame]
    return rest or list(query_tokens)


def tells_time(text: str, when: datetime | None) -> bool:
    """True when ``text`` holds a time expression that resolves against the turn's own time ``when`` (UTC):
    "yesterday", "last Friday", "two weeks ago", "8 May 2023" (``core.extraction.time_anchors``).  False
    without ``when``.

    Remembered per (hash of the text, ``when``) for the process — the same turns are candidates of many "when"
    questions, and the regex pass is ~30 µs a turn — keyed by the hash so that no text (a forgotten one
    included) is kept in memory by the cache."""
    if when is None or not text:
        return False
    return _tells_time(hash(text), when, text)


_TOLD: dict[tuple[int, datetime], bool] = {}
_TOLD_MAX = 50_000


def _tells_time(key: int, when: datetime, text: str) -> bool:
    got = _TOLD.get((key, when))
    if got is None:
        got = has_time_anchor(text, when)
        if len(_TOLD) >= _TOLD_MAX:
            _TOLD.clear()  # a bound, not an LRU: refilled by the next questions' few dozen turns
        _TOLD[(key, when)] = got
    return got


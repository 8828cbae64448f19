"""Deterministic keyword topics for personalization signals.

A small lexicon maps word stems to a topic and its domain (e.g. ``"football"`` →
topic ``football``, domain ``sport``); ``#hashtags`` become topics of domain
``tag``.  Same text in, same topics out — no model.  ``core/extraction`` may
later own a richer extractor; this one is kept tiny on purpose.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# topic -> (domain, keywords).  A keyword matches a word that starts with it (so "travel"
# matches "travelling"); keywords of 3 letters or fewer must match a whole word.
LEXICON: dict[str, tuple[str, tuple[str, ...]]] = {
    "work": ("work", ("work", "job", "office", "boss", "meeting", "deadline", "project", "colleague", "client")),
    "football": ("sport", ("football", "soccer", "match", "goal", "league", "striker", "arsenal", "liverpool")),
    "running": ("sport", ("running", "marathon", "jog", "5k", "10k", "pace")),
    "gym": ("sport", ("gym", "workout", "lifting", "squat")),
    "family": ("family", ("mum", "mom", "dad", "parent", "brother", "sister", "grandma", "grandpa", "aunt",
                          "uncle", "cousin", "family")),
    "kids": ("family", ("kid", "kids", "baby", "son", "daughter", "school run", "nursery")),
    "travel": ("travel", ("travel", "trip", "flight", "airport", "holiday", "vacation", "hotel", "passport")),
    "food": ("food", ("dinner", "lunch", "breakfast", "recipe", "restaurant", "cook", "pizza", "coffee", "food")),
    "music": ("culture", ("music", "song", "album", "concert", "gig", "band", "playlist", "guitar")),
    "movies": ("culture", ("movie", "film", "cinema", "netflix", "series", "episode")),
    "books": ("culture", ("book", "novel", "reading", "author", "chapter")),
    "health": ("health", ("doctor", "sick", "ill", "hospital", "dentist", "flu", "covid", "health", "headache")),
    "money": ("money", ("money", "rent", "bill", "salary", "bank", "mortgage", "budget", "invoice", "tax")),
    "weather": ("smalltalk", ("weather", "rain", "sunny", "snow", "cold", "hot")),
    "politics": ("news", ("politic", "election", "vote", "government", "parliament", "minister")),
    "tech": ("tech", ("code", "coding", "bug", "deploy", "server", "database", "python", "rust", "laptop",
                      "phone", "app", "software", "compaction", "profiling", "latency")),
    "pets": ("home", ("dog", "cat", "puppy", "kitten", "vet", "pet")),
    "home": ("home", ("house", "flat", "apartment", "garden", "move", "moving", "furniture", "kitchen")),
    "plans": ("social", ("weekend", "tonight", "tomorrow", "party", "drinks", "plan", "meet up", "catch up")),
    "studies": ("education", ("exam", "study", "studies", "university", "class", "lecture", "thesis", "homework")),
    "relationships": ("social", ("date", "dating", "boyfriend", "girlfriend", "wedding", "partner", "breakup")),
}

_WORD = re.compile(r"[#\w][\w'-]*", re.UNICODE)
_INDEX: list[tuple[str, str, str]] = sorted(
    ((kw, topic, dom) for topic, (dom, kws) in LEXICON.items() for kw in kws), key=lambda t: -len(t[0]))


@dataclass(frozen=True)
class Topic:
    """A keyword topic: ``name`` (e.g. ``"football"``) and its ``domain`` (e.g. ``"sport"``)."""

    name: str
    domain: str


def topics(text: str, limit: int = 3) -> list[Topic]:
    """The keyword topics of ``text``, most mentioned first (ties: first mention), at most ``limit``.

    Returns:
        list of :class:`Topic`; empty when nothing in the lexicon (or no hashtag) occurs.
    """
    low = text.lower()
    words = _WORD.findall(low)
    counts: dict[str, list] = {}
    for pos, w in enumerate(words):
        if w.startswith("#") and len(w) > 2:
            counts.setdefault(w[1:], [0, pos, "tag"])[0] += 1
            continue
        for kw, topic, dom in _INDEX:
            if " " in kw:
                continue
            if (w == kw) if len(kw) <= 3 else w.startswith(kw):
                counts.setdefault(topic, [0, pos, dom])[0] += 1
                break
    for kw, topic, dom in _INDEX:  # multi-word keywords
        if " " in kw and kw in low:
            counts.setdefault(topic, [0, len(words), dom])[0] += 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1][0], kv[1][1]))
    return [Topic(name, v[2]) for name, v in ranked[:limit]]


def topic_names(text: str, limit: int = 3) -> list[str]:
    """Just the names of :func:`topics`."""
    return [t.name for t in topics(text, limit)]

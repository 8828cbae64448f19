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
_PREFIX: dict[str, tuple[str, str]] = {}   # keyword (> 3 letters) -> (topic, domain): matches a word it starts
_WHOLE: dict[str, tuple[str, str]] = {}    # keyword (≤ 3 letters) -> (topic, domain): matches the whole word
for _kw, _topic, _dom in _INDEX:
    if " " not in _kw:
        (_WHOLE if len(_kw) <= 3 else _PREFIX).setdefault(_kw, (_topic, _dom))
_PREFIX_LENGTHS = sorted({len(k) for k in _PREFIX}, reverse=True)
_PHRASES = [(kw, topic, dom) for kw, topic, dom in _INDEX if " " in kw]


def _match(word: str) -> tuple[str, str] | None:
    """The (topic, domain) of the longest keyword matching ``word`` (as the rules above; dict lookups,
    not a scan of the lexicon: about 10 probes per word)."""
    n = len(word)
    for L in _PREFIX_LENGTHS:
        if L <= n:
            hit = _PREFIX.get(word[:L])
            if hit is not None:
                return hit
    return _WHOLE.get(word)


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
        hit = _match(w)
        if hit is not None:
            counts.setdefault(hit[0], [0, pos, hit[1]])[0] += 1
    for kw, topic, dom in _PHRASES:  # multi-word keywords
        if kw in low:
            counts.setdefault(topic, [0, len(words), dom])[0] += 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1][0], kv[1][1]))
    return [Topic(name, v[2]) for name, v in ranked[:limit]]


def topic_names(text: str, limit: int = 3) -> list[str]:
    """Just the names of :func:`topics`."""
    return [t.name for t in topics(text, limit)]

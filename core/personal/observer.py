"""ObserverOutput (seed 000 "Phase 1: Observe") and the deterministic observer.

:class:`ObserverOutput` is the seed's JSON — engagement, style, topic, dynamics —
as a validated pydantic model (unknown keys and out-of-range values are
rejected with a message naming the field), so an LLM observer's JSON can be
checked against the same schema (``app/observer_llm.py``).  A few fields beyond
the seed's example are optional and default sensibly (``style.asks_question``).

:func:`observe` is the deterministic observer: latency, word count, lowercase,
emoji, jargon, question form, sentiment (VADER lexicon: vaderSentiment, no
download), topic continuity and redirect.  It is always available.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.errors import KithError
from core.personal.signals import REPLIED_FAST_S
from core.personal.topics import topics as keyword_topics

SILENCE_TIMEOUT_S = 24 * 3600.0  # issue #6: "went silent (no reply within a timeout, default 24 h)"
SUBSTANTIVE_WORDS = 25           # words for replied_substantively = 1.0 (seed example: 22 words -> 0.85)
SUBSTANTIVE_MIN_WORDS = 8        # "substantive": at least this many words
VADER_THRESHOLD = 0.05           # VADER's documented neutral band: compound in (-0.05, 0.05)

_STRICT = ConfigDict(extra="forbid", frozen=True)


class Engagement(BaseModel):
    """Did they reply, how fast (seconds), how much (words), with what sentiment (0–1 magnitude + direction)."""

    model_config = _STRICT
    replied: bool
    latency_seconds: Optional[float] = Field(default=None, ge=0)
    substantive: bool = False
    word_count: int = Field(default=0, ge=0)
    sentiment_score: float = Field(default=0.0, ge=0.0, le=1.0)
    sentiment_direction: Literal["positive", "negative", "neutral"] = "neutral"


class Style(BaseModel):
    """How they wrote: formality 0 (casual) – 1 (formal), lowercase, jargon, structure, emoji."""

    model_config = _STRICT
    formality: float = Field(default=0.5, ge=0.0, le=1.0)
    uses_lowercase: bool = False
    uses_jargon: bool = False
    structure: Literal["terse", "conversational", "stream_of_thought", "structured"] = "conversational"
    emoji: bool = False
    asks_question: bool = False


class TopicInfo(BaseModel):
    """What it was about: primary topic, its domain, specificity, continuity with the previous message."""

    model_config = _STRICT
    primary: Optional[str] = None
    domain: Optional[str] = None
    specificity: Literal["low", "medium", "high"] = "low"
    continued_from_previous: bool = False
    deepened: bool = False


class Dynamics(BaseModel):
    """Who steers: redirect and its direction, who leads, building on / correcting the previous message."""

    model_config = _STRICT
    redirected: bool = False
    redirect_direction: Literal["none", "more_specific", "more_general", "new_topic"] = "none"
    who_is_leading: Literal["person", "system", "balanced"] = "balanced"
    built_on_previous: bool = False
    corrected_system: bool = False


class ObserverOutput(BaseModel):
    """Seed 000's observer JSON: ``{"engagement", "style", "topic", "dynamics"}``."""

    model_config = _STRICT
    engagement: Engagement
    style: Style = Style()
    topic: TopicInfo = TopicInfo()
    dynamics: Dynamics = Dynamics()

    @classmethod
    def from_json(cls, data: str | bytes | dict) -> "ObserverOutput":
        """Parse and validate.

        Raises:
            ObserverSchemaError: not JSON, or not the schema (the message names each bad field).
        """
        try:
            if isinstance(data, dict):
                return cls.model_validate(data)
            return cls.model_validate_json(data)
        except ValidationError as exc:
            raise ObserverSchemaError(_short_errors(exc)) from exc
        except ValueError as exc:
            raise ObserverSchemaError(f"not JSON: {exc}") from exc

    def to_json(self) -> dict:
        """The seed's JSON shape, as a dict."""
        return self.model_dump(mode="json")

    @classmethod
    def json_schema(cls) -> dict:
        """The JSON Schema an LLM observer must satisfy."""
        return cls.model_json_schema()


class ObserverSchemaError(KithError):
    """Observer JSON that does not match :class:`ObserverOutput`."""


def _short_errors(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()[:8])


# --------------------------------------------------------------------------- features
_EMOJI = re.compile("[\U0001F300-\U0001FAFF\U00002600-\U000027BF\U0001F1E6-\U0001F1FF\u2764\u263a]")
_WORDS = re.compile(r"[\w'’-]+", re.UNICODE)
_CASUAL = frozenset("yeah yep yup nah lol lmao haha hahaha ok okay k gonna wanna gotta cool omg btw tbh idk "
                    "u ur thx ya cya xx xoxo hey heya hiya sup dunno kinda".split())
_FORMAL = frozenset("dear regards sincerely kindly furthermore however therefore please appreciate "
                    "accordingly respectfully thank".split())
_JARGON = frozenset("api sql latency throughput deploy database compaction profiling kubernetes docker cpu gpu "
                    "ram async thread cache index query schema regression benchmark pipeline backend frontend "
                    "repo commit merge kpi roi okr ebitda invoice compliance".split())
_CORRECTION = re.compile(r"^(actually|no[,. ]|not quite|well,? actually|rather|i meant|that's not)", re.I)
_LIST_LINE = re.compile(r"^\s*([-*•]|\d+[.)])\s+", re.M)


def words(text: str) -> list[str]:
    """Word tokens of ``text``."""
    return _WORDS.findall(text)


def is_question(text: str) -> bool:
    """True when ``text`` asks something: a '?' or a leading interrogative word."""
    t = text.strip().lower()
    return "?" in t or bool(re.match(r"^(who|what|when|where|why|how|which|do|does|did|can|could|would|will|"
                                     r"are|is|shall|should)\b", t))


def has_emoji(text: str) -> bool:
    return bool(_EMOJI.search(text))


def uses_lowercase(text: str) -> bool:
    """Letters present and none upper-case (the seed's "uses_lowercase")."""
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and not any(c.isupper() for c in letters)


def jargon_count(ws: list[str]) -> int:
    """Technical tokens: lexicon words, ALLCAPS acronyms (≥ 2 letters), snake_case, camelCase, digits+letters."""
    n = 0
    for w in ws:
        lw = w.lower()
        if (lw in _JARGON or (len(w) >= 2 and w.isupper() and w.isalpha()) or "_" in w
                or re.search(r"[a-z][A-Z]", w) or (re.search(r"\d", w) and re.search(r"[a-zA-Z]", w))):
            n += 1
    return n


def formality(text: str) -> float:
    """0 (casual) – 1 (formal) from cues: casual words, lowercase, emoji, missing end punctuation lower it;
    formal words, capitalised sentences and long words raise it.  Deterministic heuristic."""
    ws = words(text)
    if not ws:
        return 0.5
    lw = [w.lower() for w in ws]
    score = 0.5
    score -= min(0.3, 0.15 * sum(w in _CASUAL for w in lw))
    score += min(0.3, 0.15 * sum(w in _FORMAL for w in lw))
    if uses_lowercase(text):
        score -= 0.15
    elif text.strip()[:1].isupper():
        score += 0.05
    if has_emoji(text):
        score -= 0.1
    if text.strip()[-1:] in ".!?":
        score += 0.05
    if "!!" in text or "??" in text:
        score -= 0.05
    avg = sum(len(w) for w in ws) / len(ws)
    score += max(-0.1, min(0.1, (avg - 4.5) * 0.05))
    return round(max(0.0, min(1.0, score)), 3)


def structure(text: str, ws: list[str]) -> str:
    """terse (≤ 5 words) | structured (list lines / several paragraphs) | stream_of_thought | conversational."""
    if len(ws) <= 5:
        return "terse"
    if len(_LIST_LINE.findall(text)) >= 2 or text.count("\n\n") >= 2:
        return "structured"
    terminators = len(re.findall(r"[.!?]", text))
    if len(ws) > 15 and terminators <= 1:
        return "stream_of_thought"
    return "conversational"


_vader = None


def sentiment(text: str) -> tuple[float, str]:
    """(magnitude 0–1, direction) from VADER's compound score; neutral inside ±0.05.

    Falls back to (0.0, "neutral") when vaderSentiment is not installed.
    """
    global _vader
    if not text.strip():
        return 0.0, "neutral"
    if _vader is None:
        try:
            from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer
            _vader = SentimentIntensityAnalyzer()
        except ImportError:  # pragma: no cover - optional dependency missing
            _vader = False
    if _vader is False:  # pragma: no cover
        return 0.0, "neutral"
    c = float(_vader.polarity_scores(text)["compound"])
    if c >= VADER_THRESHOLD:
        return round(c, 4), "positive"
    if c <= -VADER_THRESHOLD:
        return round(-c, 4), "negative"
    return round(abs(c), 4), "neutral"


def substantive_weight(word_count: int) -> float:
    """replied_substantively weight 0–1: word_count / 25, capped at 1 (seed: 22 words ≈ 0.85)."""
    return min(1.0, word_count / SUBSTANTIVE_WORDS)


# --------------------------------------------------------------------------- observer
@dataclass(frozen=True)
class Turn:
    """One side's message: ``text``, ``at`` UTC epoch seconds."""

    text: str
    at: float


def observe(prompt: Turn | None, reply: Turn | None, timeout_s: float = SILENCE_TIMEOUT_S) -> ObserverOutput:
    """The deterministic observer: what the person's ``reply`` to ``prompt`` shows.

    Args:
        prompt: the message they were responding to (the owner's or Kith's), or None
            when they wrote first (nothing was asked; they lead).
        reply: their message, or None when they did not reply within ``timeout_s``.
        timeout_s: silence timeout in seconds (default 24 h, issue #6).

    Returns:
        A validated :class:`ObserverOutput`.
    """
    if reply is None or (prompt is not None and reply.at - prompt.at > timeout_s):
        return ObserverOutput(engagement=Engagement(replied=False))
    ws = words(reply.text)
    latency = max(0.0, reply.at - prompt.at) if prompt is not None else None
    mag, direction = sentiment(reply.text)
    eng = Engagement(replied=prompt is not None, latency_seconds=latency,
                     substantive=len(ws) >= SUBSTANTIVE_MIN_WORDS, word_count=len(ws),
                     sentiment_score=mag, sentiment_direction=direction)
    jn = jargon_count(ws)
    style = Style(formality=formality(reply.text), uses_lowercase=uses_lowercase(reply.text),
                  uses_jargon=jn >= 2 or (bool(ws) and jn / len(ws) >= 0.1),
                  structure=structure(reply.text, ws), emoji=has_emoji(reply.text),
                  asks_question=is_question(reply.text))
    rt = keyword_topics(reply.text)
    pt = keyword_topics(prompt.text) if prompt is not None else []
    pnames, rnames = {t.name for t in pt}, [t.name for t in rt]
    continued = bool(pnames & set(rnames))
    new = [n for n in rnames if n not in pnames]
    specificity = "high" if jn >= 2 else ("medium" if len(ws) >= SUBSTANTIVE_MIN_WORDS and rt else "low")
    prompt_len = len(words(prompt.text)) if prompt is not None else 0
    topic = TopicInfo(primary=rt[0].name if rt else None, domain=rt[0].domain if rt else None,
                      specificity=specificity, continued_from_previous=continued,
                      deepened=continued and (len(ws) > prompt_len or specificity == "high"))
    redirected = bool(prompt is not None and new and not continued)
    if redirected:
        direction_r = "new_topic"
    elif continued and new:
        direction_r = "more_specific"
    elif prompt is not None and pnames and not rnames and len(ws) <= 5:
        direction_r = "more_general"
    else:
        direction_r = "none"
    corrected = bool(prompt is not None and _CORRECTION.match(reply.text.strip()))
    leading = "person" if (prompt is None or redirected or corrected or style.asks_question) else (
        "system" if (prompt is not None and is_question(prompt.text) and not new) else "balanced")
    dyn = Dynamics(redirected=redirected or direction_r == "more_specific", redirect_direction=direction_r,
                   who_is_leading=leading, built_on_previous=continued, corrected_system=corrected)
    return ObserverOutput(engagement=eng, style=style, topic=topic, dynamics=dyn)


def dumps(out: ObserverOutput) -> str:
    """Compact JSON of an ObserverOutput."""
    return json.dumps(out.to_json(), separators=(",", ":"))

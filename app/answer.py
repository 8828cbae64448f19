"""Answers: the memory answerer (Kith's default), the grounded model path, and the QA probe.

**The memory answerer** writes a short, direct answer from what ``ask`` shows (current facts and the best
evidence, relevance above the threshold), then cites it — no model, nothing unchecked:

* *when* — a photo's place and day, grouped ("You were in Arezzo, Tuscany, Italy on 22 October 2008 —
  2 photos"); else the day the best message's own time expression resolves to ("yesterday" → the day
  before it was sent; "last week" → "the week before 9 June 2023"), else the day it was sent;
* *where* — a current fact about a place (with what it superseded: "Rosa Vidal lives in Madrid (since
  June 2023); before that, Rosa lived in Berlin until June 2023"), a photo's place, else the best sentence;
* *who* — a fact about a relation, the sender of the best message, or a person it names;
* anything else — the sentence of the best evidence that shares the most words with the question, told
  in the third person ("Caroline researched adoption agencies").

"I found nothing about that." when nothing clears the threshold.

**The grounded path** (a model the person chose): the prompt numbers the evidence, the model must cite it
as [n]; generation is bounded (max tokens, repetition penalty, stop sequences, a time limit, cancel); an
answer that cites nothing, cites what was not given, or repeats itself is replaced by the memory answer,
with a note saying so.
"""
from __future__ import annotations

import calendar
import re
import threading
import time
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any, Callable, Sequence

from core import clock
from core.extraction.quoted import own_words
from core.extraction.text import reported, second_person
from core.graph.facts import statement_sentence
from core.extraction.time_anchors import find_time_anchors
from core.retrieval import lexicon
from core.retrieval.answer import month_year

NOTHING = "I found nothing about that."
_FIRST_PERSON = re.compile(r"\b(?:I|me|my|mine|myself)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_FILLER = re.compile(r"^(?:(?:hi|hey|hello|hiya|dear)\s+[^\W\d_]+\s*[,!]+\s*|"
                     r"(?:(?:oh|ah|aw)\s+(?:no|dear|well|man|god|gosh)|oops|whoops|"
                     r"yeah|yes|yep|wow|oh|ah|hey|hi|well(?!\s+done\b)|so|haha|lol|omg|"
                     r"(?:thanks|thank you|congrats|congratulations)(?!\s+(?:for|on|to|so|a lot|again)\b)|"
                     r"that's (?:great|awesome|cool|amazing))[,!.\s]+)+", re.IGNORECASE)
"""Words that open a sentence and say nothing of what it says ("So the wedding is …", "Hey Nina, the boat …",
"Wow!"); a thanks or congratulations *for* something ("Thanks for the lovely dinner", "Congrats on the job") and
"well done" are what is said, not filler."""
_HEADER_LINE = re.compile(r"^(?:to|from|cc|bcc|subject|date|sent|reply-to)\s*:", re.IGNORECASE)
_PHOTO_AT = re.compile(r"\bat (?P<place>[^\n]+?)(?: with [^\n]*)?$")


_TYPOS = ((re.compile(r"\b(?:wher|whre|wehre|whree|wheer)\b", re.I), "where"),
          (re.compile(r"\b(?:wheres|wher's)\b", re.I), "where is"),
          (re.compile(r"\b(?:whn|wehn|whne)\b", re.I), "when"),
          (re.compile(r"\bwhens\b", re.I), "when is"),
          (re.compile(r"\b(?:waht|whta|wht)\b", re.I), "what"),
          (re.compile(r"^(\s*)(?:woh|whp)\b", re.I), r"\1who"),
          (re.compile(r"^(\s*)whos\b", re.I), r"\1who is"),
          (re.compile(r"\bteh\b", re.I), "the"))
"""Question words as people mistype them ("wher does oliver live", "whn did i last see sam", "whos harriet")."""


def as_typed(question: str) -> str:
    """``question`` with its mistyped question words put right (:data:`_TYPOS`); the rest as written."""
    for rx, rep in _TYPOS:
        question = rx.sub(rep, question or "")
    return question


_WHATS = re.compile(r"\bwhats\b(?!\s?app\b)", re.I)
_NAME_OF = re.compile(r"\b(?:the\s+)?(?:(?:first|last|full|real|middle)\s+)?name\s+of\s+", re.I)
_NAME_AFTER = re.compile(r"\b(?P<word>[^\W\d_]+?)(?:['’]s|(?<=[^\W\d_])s)?\s+name\b", re.I)
_CALLED = re.compile(r"\s+called(?=\s*[?!.]*\s*$)", re.I)
_NOT_POSSESSED = frozenset({"hi", "it", "thi", "wa", "i", "doe", "ha", "the", "a", "an", "my", "your", "her",
                            "their", "our", "what", "whi", "first", "last", "full", "real", "middle", "user"})
"""Words before "name" that are no possessor put in its place: "his name", "your name", "what name", "the first
name", "its name" ("hi", "thi", "doe", … are those words less a final s)."""


def _without_name_slot(question: str) -> str:
    """``question`` without the words that ask for a name: the answer is a name, which no message calls one —
    "what is the name of the restaurant in Rome" → "what is the restaurant in Rome"; "what is harriets dogs name" →
    "what is harriets dog"; "what is her dog called" → "what is her dog".  Unchanged when it asks no name."""
    q = _NAME_OF.sub("", question)

    def put(m: re.Match) -> str:
        word = m.group("word")
        return m.group(0) if word.casefold() in _NOT_POSSESSED else word
    q = _NAME_AFTER.sub(put, q)
    q = _CALLED.sub("", q) if re.match(r"^\s*(?:what|how)\b", q, re.I) else q
    return q if lexicon.tokens(q) else question


_ASKS_WHERE_WORK = re.compile(r"^\s*(?:where|who|what\s+(?:company|firm)|which\s+(?:company|firm))\b", re.I)
_REWORDINGS: tuple[tuple[re.Pattern | None, re.Pattern, tuple[str, ...]], ...] = (
    (_ASKS_WHERE_WORK, re.compile(r"\b(?:work|works|worked|working)\b", re.I), ("job",)),
    (_ASKS_WHERE_WORK, re.compile(r"\b(?:jobs?|employer)\b", re.I), ("work",)),
    (None, re.compile(r"\b(?:restaurants?|bistros?|trattorias?)\b", re.I), ("dinner", "lunch")),
)
"""``(question form or None for any, word asked, the words messages say it with)``: where someone works is "a new job
at Airbus" as often as "I work at Airbus"; a restaurant is where one had dinner or lunch ("dinner at Da Enzo")."""
MAX_REWORDINGS = 2
"""Rewordings recalled beside the question itself (each is one more recall)."""


_BARE_POSSESSIVE = re.compile(r"\b([^\W\d_]{2,})s\b(?!['’])")


def with_possessives(question: str, first_name: Callable[[str], bool]) -> str:
    """``question`` with a possessive typed without its apostrophe put back where the word less its "s" is a known
    person's first name and the word itself is not: "whats toms dogs name" → "whats tom's dogs name" (the stemmer
    leaves words under five letters whole, so "toms" never met "Tom").  ``first_name(word)``: whether a live person's
    name starts with ``word`` (case-insensitive)."""
    def put(m: re.Match) -> str:
        word = m.group(1)
        if first_name(word + "s") or not first_name(word):
            return m.group(0)
        return f"{word}'s"
    return _BARE_POSSESSIVE.sub(put, question or "")


def recall_questions(question: str) -> list[str]:
    """What recall is asked for ``question`` (as typed by a person): first the question read as meant, then any
    rewording that says the same in the words messages use; the caller recalls each and keeps every turn at its best
    relevance (``app.operations.ask``).

    * mistyped question words put right (:func:`as_typed`) and "whats" read as "what is";
    * a name asked for is the answer, not a word to find (:func:`_without_name_slot`): "whats the name of the
      restaurant in rome" → "what is the restaurant in rome";
    * a word asked that messages say otherwise (:data:`_REWORDINGS`), at most :data:`MAX_REWORDINGS` rewordings:
      "where does Lena work" is also asked as "where does Lena job", "what is the restaurant in rome" as "what is
      the dinner in rome" and "what is the lunch in rome".

    Args:
        question: the person's text.

    Returns:
        One or more distinct non-empty questions, the first the question itself read as meant (an empty list for an
        empty question).
    """
    q = as_typed((question or "").strip())
    if not q:
        return []
    q = _without_name_slot(_WHATS.sub("what is", q))
    out = [q]
    for form, word, said in _REWORDINGS:
        if (form is None or form.match(q)) and word.search(q):
            out += [word.sub(w, q) for w in said]
    return list(dict.fromkeys(out))[:1 + MAX_REWORDINGS]


_SPELLED = {
    "wher": "where", "whre": "where", "wehre": "where", "wheer": "where", "were's": "where's",
    "wat": "what", "wht": "what", "whta": "what", "waht": "what",
    "wen": "when", "whn": "when", "wehn": "when",
    "hw": "how", "hwo": "how", "hiw": "how",
    "whos": "who's", "wheres": "where's", "whats": "what's", "hows": "how's",
    "dos": "does", "liv": "live", "livs": "lives", "wrk": "work", "wrks": "works",
    "msg": "message", "msgs": "messages", "txt": "text", "txts": "texts", "pic": "photo", "pics": "photos",
    "u": "you", "ur": "your", "abt": "about", "ppl": "people", "bday": "birthday", "b-day": "birthday",
    "tmrw": "tomorrow", "yday": "yesterday", "2day": "today", "w/": "with", "bc": "because",
}
"""Chat spellings and slips of the words a question is read by (its wh-word, its verb, what it counts), each as a
whole lower-case word: "wher does maya liv?" is "where does maya live?", "hw many msgs did maya send" is "how many
messages did maya send".  A word written with a capital (a name) is never changed."""
_SPELLED_WORD = re.compile(r"(?<![\w'’-])(" + "|".join(sorted(map(re.escape, _SPELLED), key=len, reverse=True))
                           + r")(?![\w'’-])")


_WH_SLIP = re.compile(r"^\s*(wher|whre|wehre|wheer|wat|wht|whta|waht|wen|whn|wehn|hw|hwo|hiw|whos|wheres|whats|hows)"
                      r"(?![\w'’-])", re.IGNORECASE)


def spelled(question: str) -> str:
    """``question`` with :data:`_SPELLED`'s chat spellings and slips written out; what the chat and ``kith ask``
    read a question as (the person's own words are kept in the conversation).  The first word may have its
    sentence capital ("Wher does Maya live?")."""
    q = _WH_SLIP.sub(lambda m: m.group(0)[:m.start(1) - m.start(0)] + _SPELLED[m.group(1).lower()], question or "")
    return _SPELLED_WORD.sub(lambda m: _SPELLED[m.group(1)], q)


def question_kind(question: str) -> str:
    """``when`` | ``where`` | ``who`` | ``what`` (everything else) from the question's first wh-word."""
    q = question.strip().lower()
    m = re.search(r"\b(when|what time|what year|what date|which year|which month|how long ago|where|who|whom|whose)\b", q)
    if not m:
        return "what"
    w = m.group(1)
    if w in ("where",):
        return "where"
    if w in ("who", "whom", "whose"):
        return "who"
    return "when"


def day_text(d: date | datetime) -> str:
    """``"7 May 2023"``."""
    return f"{d.day} {d:%B %Y}"


def when_phrase(text: str, sent: datetime | None) -> str:
    """When a message says something happened: its first time expression resolved against the time it was
    sent (coarse ones kept coarse: "last week" → "the week before 9 June 2023", "last year" → "2022", "in
    October" → "October 2021"),
    else the day it was sent; "" when it has no time."""
    if sent is None:
        return ""
    if sent.tzinfo is None:  # aware: read at its own offset (the sender's day, not UTC's)
        sent = clock.ensure_utc(sent)
    for a in find_time_anchors(text or "", sent):
        p = a.phrase.lower()
        if re.search(r"\b(?:last|past) (?:week|weekend)\b", p):
            return f"the {'weekend' if 'weekend' in p else 'week'} before {day_text(sent)}"
        if re.search(r"\b(?:next) (?:week|weekend)\b", p):
            return f"the {'weekend' if 'weekend' in p else 'week'} after {day_text(sent)}"
        if re.search(r"\b(?:last|this|next) year\b|\byears? ago\b", p):
            return str(a.day.year)
        if re.search(r"\b(?:last|this|next) month\b|\bmonths? ago\b", p):
            return f"{a.day:%B %Y}"
        if not re.search(r"\d", p.replace(str(a.day.year), "")) and \
                any(re.search(rf"\b{m}\b", p) for m in _MONTH_NAMES):  # "in October": the month, not its 1st
            return f"{a.day:%B %Y}"
        return day_text(a.day)
    return day_text(sent)


@dataclass
class MemoryAnswer:
    """The memory answerer's reply: ``text`` (one short line, with [n] citations), ``cited`` (1-based numbers
    of the results it rests on), ``kind`` (question kind), ``nothing`` (nothing relevant was found)."""

    text: str
    cited: list[int] = field(default_factory=list)
    kind: str = "what"
    nothing: bool = False

    def plain(self) -> str:
        """The answer without its [n] markers (what the QA benchmark scores)."""
        return re.sub(r"\s*\[\d+(?:\s*,\s*\d+)*\]", "", self.text).strip()


def _get(item: Any, name: str, default=None):
    if isinstance(item, dict):
        return item.get(name, default)
    return getattr(item, name, default)


def _when(item) -> datetime | None:
    w = _get(item, "when")
    if isinstance(w, str):
        try:
            return clock.ensure_utc(datetime.fromisoformat(w))
        except ValueError:
            return None
    return clock.ensure_utc(w) if isinstance(w, datetime) else None


_DAY_KEY = re.compile(r"^(?:places: photographed|events: photos):(\d{4}-\d\d-\d\d)")


def _local_day(item) -> date | None:
    """The day ``item`` happened where it happened, or None: a place's photo fact names that day in its key
    (``"places: photographed:2023-05-05"``, a trip's ``"events: photos:DAY"``), a record's ``when`` is read at its
    ``utc_offset`` (a photo taken at 00:30 in Tokyo is on the day after its UTC day); else the UTC day."""
    m = _DAY_KEY.match(str(_get(item, "subject") or ""))
    if m:
        try:
            return date.fromisoformat(m.group(1))
        except ValueError:
            pass
    w = _local_when(item)
    return w.date() if w is not None else None


def _local_when(item) -> datetime | None:
    """``item``'s time at its own ``utc_offset`` (where it was sent or taken), else in UTC; None without a time."""
    w = _when(item)
    offset = _get(item, "utc_offset")
    if w is None or not isinstance(offset, int):
        return w
    return w.astimezone(timezone(timedelta(minutes=offset)))


def days_text(days: Sequence[date]) -> str:
    """``"7 May 2023"``; several days in order, the year said once per year (``"10 January, 12 March and 4 July
    2023"``); more than six as their span (``"8 days between 2 May 2021 and 5 November 2023"``)."""
    days = sorted(set(days))
    if len(days) > 6:
        return f"{len(days)} days between {day_text(days[0])} and {day_text(days[-1])}"
    parts = [day_text(d) if i == len(days) - 1 or days[i + 1].year != d.year else f"{d.day} {d:%B}"
             for i, d in enumerate(days)]
    return _and(parts)


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text or "") if s.strip()]


def own_sentences(text: str) -> list[str]:
    """The sentences of a message in its sender's own words: what a mail quotes or forwards left out
    (``core.extraction.quoted.own_words``), and header lines ("To: …"), unless nothing else is left; lines a mail client wrapped joined again (a line continues
    the one before when that one ends no sentence and this one starts in lowercase, or the one before is as long
    as a wrapped line, 60+ characters); then split after . ! ?."""
    lines = [ln.strip() for ln in (own_words((text or "").replace("\r\n", "\n")) or text or "").splitlines()]
    own = [ln for ln in lines if not _HEADER_LINE.match(ln)]
    if any(own):
        lines = own
    paragraphs: list[str] = []
    cur = ""
    for ln in lines + [""]:
        if not ln:
            if cur:
                paragraphs.append(cur)
            cur = ""
        elif cur and not cur.endswith((".", "!", "?", ":", ";")) and (ln[0].islower() or len(cur) >= 60):
            cur += " " + ln
        else:
            if cur:
                paragraphs.append(cur)
            cur = ln
    return [s.strip() for p in paragraphs for s in _SENTENCE_END.split(p) if s.strip()]


_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\bDr\.)(?<!\bMr\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bSt\.)(?<!\bProf\.)"
                           r"(?<!\bJr\.)(?<!\bSr\.)(?<!\bvs\.)(?<!\be\.g\.)(?<!\bi\.e\.)\s+")
"""Where a sentence ends: after . ! ? and space — not after a title or an abbreviation ("My dentist Dr. Green says
…" was cut into "My dentist Dr." and "Green says …")."""


_WE_CONTRACTED = ((re.compile(r"\b([Ww]e)[’']re\b"), r"\1 are"), (re.compile(r"\b([Ww]e)[’']ve\b"), r"\1 have"),
                  (re.compile(r"\b([Ww]e)[’']d\b"), r"\1 would"), (re.compile(r"\b([Ww]e)[’']ll\b"), r"\1 will"))


_AGREE = {"am": "is", "have": "has", "do": "does", "don't": "doesn't", "don’t": "doesn’t", "go": "goes"}
_BASE_VERBS = frozenset("""
agree appreciate ask believe bet buy call care cook dance doubt draw dream drink drive eat enjoy expect feel find
get give guess hate hear help hope imagine keep know learn like listen live look love make mean meet mind miss
need own paint plan play practice prefer read recall recommend remember run say see seem sing sleep speak spend
start study suggest suppose swim take talk teach tend think train travel try understand use visit volunteer wait
walk want watch wish wonder work worry write
""".split())
"""Present-tense verbs that follow "I" in messages ("I work at …", "I remember …"): after :func:`third_person`
puts the speaker's name for "I", they take the third person singular ("Alex works at …").  A closed list, not a
guess from the word's shape: "I also", "I really", "I went" stay as they are."""
_ADVERB = r"(?:(?:really|just|also|still|never|always|often|usually|actually|sometimes|now|only|even|definitely|" \
          r"totally|honestly|truly|kind of|sort of|mostly|mainly|rarely|seldom)\s+)?"


def _third_singular(verb: str) -> str:
    """"work" → "works", "watch" → "watches", "study" → "studies", "go" → "goes"."""
    if verb in _AGREE:
        return _AGREE[verb]
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _agree(text: str, name: str) -> str:
    """The verb after ``name`` put in the third person singular, where :func:`third_person` put the name for
    "I" ("Steve am trying" → "Steve is trying", "Steve have" → "Steve has", "Steve don't" → "Steve doesn't",
    "Alex work at" → "Alex works at", "Alice Wren really remember" → "Alice Wren really remembers")."""
    def conj(m: re.Match) -> str:
        verb = m.group(2)
        if verb in _AGREE or verb in _BASE_VERBS:
            return m.group(1) + _third_singular(verb)
        return m.group(0)

    return re.sub(rf"(\b{re.escape(name)}\s+{_ADVERB})([a-z]+(?:[’']t)?)\b", conj, text)


_PASTED_LINE = re.compile(r"\[?\d{1,4}[./-]\d{1,2}[./-]\d{1,4},?\s+\d{1,2}[:.]\d{2}(?:[:.]\d{2})?(?:\s*[AaPp]\.?\s?[Mm]\.?)?"
                          r"\]?\s*(?:-\s*)?[^:\n\]]{1,60}:\s")
"""A chat line pasted inside a message — WhatsApp's "[11/03/2023, 21:15:03] Jonas Berg: " or "11/03/2023, 21:15 -
Jonas Berg: " — where another person's words begin."""


_ADDRESSED = (  # the owner's own message told back to the owner: its "you" is the one it was written to
    (re.compile(r"\b([Yy])ou[’']re\b"), "they're"), (re.compile(r"\b([Yy])ou[’']ve\b"), "they've"),
    (re.compile(r"\b([Yy])ou[’']ll\b"), "they'll"), (re.compile(r"\b([Yy])ou[’']d\b"), "they'd"),
    (re.compile(r"\b([Yy])ou\s+are\b"), "they are"), (re.compile(r"\b([Yy])ou\s+were\b"), "they were"),
    (re.compile(r"\b([Yy])ourselves\b"), "themselves"), (re.compile(r"\b([Yy])ourself\b"), "themselves"),
    (re.compile(r"\b([Yy])ours\b"), "theirs"), (re.compile(r"\b([Yy])our\b"), "their"),
    (re.compile(r"\b([Uu])r\b"), "their"),  # chat spelling: "can u come to ur place"
    # "you" as a subject: at the start of a clause, or after a word that asks ("can you", "will you") …
    (re.compile(r"(?:^|[.!?,;:]\s+|\b(?:[Cc]an|[Ww]ill|[Dd]o|[Ii]f|[Ss]o|[Aa]s|[Oo]r|[Cc]ould|[Ww]ould|[Dd]id|"
                r"[Hh]ave|[Hh]ad|[Ss]hould|[Ss]hall|[Mm]ay|[Mm]ight|[Mm]ust|[Aa]nd|[Bb]ut|[Ww]hen|[Tt]hat|[Aa]re|"
                r"[Ww]ere|[Tt]hen)\s+)(?:([Yy])ou|(u))\b(?!['’.])"), "they"),
    (re.compile(r"\b([Yy])ou\b|(?<=\s)(u)\b(?!['’.])"), "them"),  # … else an object ("I'll see you", "come with you")
)


def _first_group(m: re.Match, index: bool = False) -> int:
    """The start (``index``: the number) of the first group of ``m`` that matched."""
    g = next(i for i in range(1, (m.re.groups or 0) + 1) if m.group(i) is not None)
    return g if index else m.start(g)


_YOUR = re.compile(r"\b(?:[Yy]ours|[Yy]our|ur)\b")


def _to_addressed(text: str, to: str | None = None) -> str:
    """The owner's own message's "you/your/yours" as the one it was written to: "they/them/their/theirs" — "Come to
    your place on Saturday?" (the owner to Tom) is told back to the owner as "Come to their place on Saturday?",
    never as the owner's own place; with ``to`` (the one person it was written to) the first "your"/"yours" is
    theirs by name: "Come to Tom Hill's place on Saturday?".  Quoted words stay as written."""
    from core.extraction.text import _outside_quotes

    named = [False]

    def change(part: str) -> str:
        if to and not named[0]:
            part, n = _YOUR.subn(f"{to}'s", part, count=1)
            named[0] = bool(n)
        for pat, rep in _ADDRESSED:
            part = pat.sub(lambda m, r=rep: m.group(0)[:_first_group(m) - m.start(0)] +
                           (r[:1].upper() + r[1:] if m.group(_first_group(m, True)) == "Y" else r), part)
        return part
    return _outside_quotes(text, change)


def best_sentence(question: str, text: str, speaker: str | None = None, limit: int = 30,
                  subject: str | None = None, owner: str | None = None, written: bool = True,
                  to: str | None = None) -> str:
    """The sentence of ``text`` (:func:`own_sentences`) sharing the most question words (ties: the earliest),
    filler words cut, told in the third person when the speaker is known, at most ``limit`` words.  The speaker's
    own name does not count as a shared word (it matches their signature); a mail's ``subject``, written before
    its text, is what the message is about, not what it says: a sentence of the text is chosen while it has one.
    A sentence that ends with ":" ("I am trying to do the following:") comes with the one after it.  The owner's
    own message (``speaker`` is ``owner``) is told back in the second person ("You left your umbrella …"), its
    "your place" as the place of ``to``, the one person it was written to, when given ("Come to Ben Carter's
    place?"; else "their place")."""
    q = set(lexicon.tokens(question)) - set(lexicon.tokens(speaker or ""))  # the sender's name is a signature
    body = text or ""
    if subject and body.startswith(subject) and own_sentences(body[len(subject):]):
        body = body[len(subject):]
    sents = own_sentences(body) or [text or ""]
    scored = [(len(q & set(lexicon.tokens(s))), -i, s) for i, s in enumerate(sents)]
    if max(scored)[0] == 0:  # nothing shared: a greeting or thanks ("Thanks Alex!" → "Alex!") says nothing
        said = [x for x in scored if len((_FILLER.sub("", x[2]).strip() or x[2]).split()) >= 3]
        scored = said or scored
    _score, neg_i, best = max(scored)
    if best.rstrip().endswith(":") and -neg_i + 1 < len(sents):  # "… trying to do the following:" says it next
        best = f"{best} {sents[-neg_i + 1]}"
    best = _FILLER.sub("", best).strip() or best
    if speaker:
        # only the sender's own words are theirs: a chat line pasted in ("[11/03/2023, 21:15] Jonas: I'm selling my
        # bike") is someone else's "I"
        cut = _PASTED_LINE.search(best)
        own, pasted = (best[:cut.start()], best[cut.start():]) if cut else (best, "")
        for pat, rep in _WE_CONTRACTED:  # "we're" → "we are" first: third_person makes it "… and others are"
            own = pat.sub(rep, own)
        if owner and speaker == owner:  # told back to its writer: "you" is whom it was written to, "I" is "you"
            best = second_person(_to_addressed(own, to) if written else own) + pasted
        else:
            best = _agree(reported(own, speaker), speaker) + pasted
    words = best.split()
    if len(words) > limit:
        best = " ".join(words[:limit]) + " …"
    return best[:1].upper() + best[1:]


_WHAT_TIME = re.compile(r"\bwhat\s+time\b|\bat\s+what\s+time\b", re.IGNORECASE)
_CLOCK = re.compile(r"\b\d{1,2}(?:[:.]\d{2})?\s?(?:am|pm|a\.m\.|p\.m\.)(?!\w)|\b(?:[01]?\d|2[0-3]):[0-5]\d\b|"
                    r"\b(?:noon|midday|midnight)\b|\b\d{1,2}\s+o['’]clock\b", re.IGNORECASE)
"""A time of day as written ("8am", "10.30 pm", "19:30", "noon", "7 o'clock")."""


def _when_sentence(question: str, text: str, subject: str | None, sent: datetime | None) -> str:
    """The sentence of ``text`` that says when what ``question`` asks about happens: of those sharing the most asked
    words, the first that names a time ("The boat trip to Skye is booked for 9 July."), never the mail's subject
    written before its text ("Boat trip", which names no time and would make the answer the day it was sent);
    :func:`best_sentence` when no sentence sharing an asked word names a time."""
    q = set(lexicon.tokens(question))
    body = text or ""
    if subject and body.startswith(subject) and own_sentences(body[len(subject):]):
        body = body[len(subject):]
    if sent is not None:
        ref = sent if sent.tzinfo else clock.ensure_utc(sent)
        scored = [(len(q & set(lexicon.tokens(s))), -i, s) for i, s in enumerate(own_sentences(body))]
        hour = bool(_WHAT_TIME.search(question))  # "what time …?": a sentence naming an hour says it
        timed = [x for x in scored if x[0] and ((hour and _CLOCK.search(x[2])) or find_time_anchors(x[2], ref))]
        if timed:
            return max(timed)[2]
    return best_sentence(question, text, subject=subject)


def _fact_body(statement: str) -> str:
    return statement_sentence(statement).rstrip(".")


_ABOUT = re.compile(r"^\s*(?:who(?:\s+(?:is|was)|'s|’s)|what(?:\s+is|'s|’s)|tell me(?:\s+more)?\s+about|"
                    r"what do (?:you|we|i) know about)\s+(?P<name>.+?)\s*[?!.]*\s*$", re.IGNORECASE)
_NOT_A_NAME = {"i", "me", "my", "you", "it", "that", "this", "he", "she", "they", "we", "him", "her", "them", "there",
               "here", "up", "new", "next", "going on", "happening"}


_WHO_AM_I = re.compile(r"^\s*(?:who am i|what do you know about (?:me|myself)|tell me about (?:me|myself))\s*[?!.]*\s*$",
                       re.IGNORECASE)


_TOUCH_VERB = (r"(?:talk(?:ed)?|spoke|speak|chat(?:ted)?|write|wrote|written|text(?:ed)?|message[ds]?|messaged|"
               r"e-?mail(?:ed)?|mail(?:ed)?|correspond(?:ed)?|hear(?:d)?|contact(?:ed)?|call(?:ed)?)")
_IN_TOUCH = re.compile(
    r"^\s*who(?:'s|’s|\s+is|\s+are|'re)?\s+(?:"
    rf"(?:do|did|have)\s+(?:i|we)\s+{_TOUCH_VERB}(?:\s+(?:to|with|from))?\s+(?:the\s+)?most(?:\s+often)?"
    rf"|(?P<to_me>{_TOUCH_VERB}s?\s+(?:to\s+|with\s+)?(?:me|us))\s+(?:the\s+)?most(?:\s+often)?"
    # "who sent me the most mail?", "who has sent me the most messages?": the same, a noun for the verb
    r"|(?P<sent_me>(?:has\s+|have\s+)?(?:sent|sends?|wr(?:ote|ites?)|g[ai]ves?)\s+(?:to\s+)?(?:me|us))\s+(?:the\s+)?"
    r"most(?:\s+(?:e-?mails?|mails?|messages?|texts?|letters?|notes?))?(?=\s*[?!.]|\s*$|\s+(?:in|during|on|by|via|over)\b)"
    r"|am\s+i\s+(?:the\s+)?most\s+in\s+touch\s+with"
    r"|my\s+(?:top|closest|main|usual|most\s+frequent)\s+(?:contacts?|correspondents?|friends?|people)"
    r")(?P<rest>\b.*)$", re.IGNORECASE)
_CHANNELS = ((re.compile(r"\bwhats\s?app\b", re.I), ("whatsapp",), "On WhatsApp"),
             (re.compile(r"\btelegram\b", re.I), ("telegram", "telegram-html"), "On Telegram"),
             (re.compile(r"\b(?:imessages?|sms)\b", re.I), ("imessage",), "In Messages"),
             (re.compile(r"\b(?:messenger|facebook|instagram)\b", re.I), ("messenger",), "On Messenger"),
             (re.compile(r"\be-?mail(?:s|ed)?\b|\bmail(?:s|ed)?\b", re.I), ("mbox", "eml"), "By email"))
_YEAR = re.compile(r"\b(?:in|during)\s+((?:19|20)\d\d)\b", re.I)


@dataclass
class InTouch:
    """A "who do I talk to most?" question read (:func:`in_touch_question`): the source kinds it asks about
    (empty: all), the year it names (or None), how the answer says that (``"On WhatsApp"``, ``"In 2000"``), and the
    people found (``app.operations.graph.Contact``, most first)."""

    channels: tuple[str, ...]
    year: int | None
    label: str
    senders: bool = False
    people: list = field(default_factory=list)
    span: tuple | None = None  # "who did I talk to in June 2023?": (since, until) of the period, when not a year


_WHO_THEN = re.compile(rf"^\s*who\s+(?:did|do|have)\s+(?:i|we)\s+{_TOUCH_VERB}(?:\s+(?:to|with|from))?\s+"
                       r"(?P<when>.+?)\s*[?!.]*\s*$", re.IGNORECASE)
""""who did I talk to in June 2023?", "who did I email last week?": who the owner was in touch with then."""


def in_touch_question(question: str) -> InTouch | None:
    """:class:`InTouch` (no people yet) when ``question`` asks who the owner is most in touch with — "who do I talk
    to most?", "who emails me the most?", "who are my top contacts on WhatsApp?", "… in 2021?", "who did I talk to
    in June 2023?" — else None.  English only.  A verb of mail ("email", "mailed") asks about mail."""
    m = _IN_TOUCH.match(question or "")
    if not m:
        w = _WHO_THEN.match(question or "")
        span = period_of(re.sub(r"^(?:on\s+)?(?:whats\s?app|telegram|e-?mail|messenger)\s+", "", w.group("when"),
                                flags=re.I)) if w else None
        if span is None:
            return None
        channels = next((kinds for pattern, kinds, _label in _CHANNELS if pattern.search(question)), ())
        return InTouch(channels, None, span[2], span=(span[0], span[1]))
    channels: tuple[str, ...] = ()
    labels = []
    for pattern, kinds, label in _CHANNELS:
        if pattern.search(question):
            channels, labels = kinds, [label]
            break
    y = _YEAR.search(m.group("rest") or "")
    year = int(y.group(1)) if y else None
    if year is not None:
        labels.append(f"in {year}" if labels else f"In {year}")
    return InTouch(channels, year, " ".join(labels), senders=bool(m.group("to_me") or m.group("sent_me")))


def in_touch_answer(q: InTouch) -> MemoryAnswer:
    """The answer to :func:`in_touch_question` from its ``people``: "You're most in touch with Mark (23 records,
    from March 2000 to August 2000), then Cristy (11) and Carl (9)." — or that nobody was found."""
    if not q.people:
        scope = f" {q.label[0].lower()}{q.label[1:]}" if q.label else ""
        verb = "were" if q.span is not None else "'re"  # "who did I talk to in July 2023?": then, not now
        return MemoryAnswer(f"I found nobody you{' ' if verb == 'were' else ''}{verb} in touch with{scope}.", [], "who")
    top, rest = q.people[0], q.people[1:]
    if q.senders:
        head = f"{top.name} wrote to you most ({_count(top.records, 'message')}{_span(top.first, top.last)})"
    elif q.span is not None:  # "who did I talk to in June 2023?": who, then
        head = f"you were in touch with {top.name} ({_count(top.records, 'record')})"
    else:
        head = f"you're most in touch with {top.name} ({_count(top.records, 'record')}{_span(top.first, top.last)})"
    if rest:
        head += ", then " + _and([f"{p.name} ({p.records})" for p in rest])
    text = f"{q.label}, {head}" if q.label else head
    return MemoryAnswer(f"{text[:1].upper()}{text[1:]}.", [], "who")


_CONTACT_VERB = (r"(?P<verb>hear(?:d)?\s+from|talk(?:ed)?\s+(?:to|with)|spoke\s+(?:to|with)|speak\s+(?:to|with)|"
                 r"chat(?:ted)?\s+with|wr(?:ite|ote)\s+to|e-?mail(?:ed)?|messaged?|text(?:ed)?|contact(?:ed)?|"
                 r"see|saw)")
_WHEN_CONTACT = (
    re.compile(rf"^\s*when\s+(?:did|have)\s+(?:i|we)\s+(?P<which>last|first)\s+{_CONTACT_VERB}\s+(?P<name>.+?)"
               r"\s*[?!.]*\s*$", re.IGNORECASE),
    re.compile(r"^\s*when\s+did\s+(?P<name>.+?)\s+(?P<which>last|first)\s+(?P<verb>write|wrote|e-?mail|message|"
               r"text|contact)(?:ed)?(?:\s+(?:to\s+)?(?:me|us))?\s*[?!.]*\s*$", re.IGNORECASE))
_ADDRESS_Q = re.compile(
    r"^\s*(?:what(?:'s|’s|s|\s+is|\s+are|\s+was)\s+(?P<name>.+?)(?:'s|’s|')?\s+(?P<what>e-?(?:mail|mial)(?:\s+ad+res+(?:es)?)?|"
    r"(?:phone|mobile|cell)(?:\s+numbers?)?|numbers?|contact\s+details|ad+res+(?:es)?)"
    r"|how\s+(?:do|can)\s+i\s+(?:reach|contact)\s+(?P<name2>.+?))\s*[?!.]*\s*$", re.IGNORECASE)


_SAID_Q = (
    re.compile(r"^\s*what\s+(?:did|does|has)\s+(?P<name>.+?)\s+(?:last\s+|just\s+)?(?:say|said|write|wrote|written|send|sent|"
               r"tell\s+me|told\s+me|text(?:ed)?|message[d]?)(?:\s+(?:to\s+)?(?:me|us))?(?:\s+(?:last|recently|lately))?"
               r"\s*[?!.]*\s*$", re.IGNORECASE),
    re.compile(r"^\s*what\s+(?:was|is)\s+(?P<name>.+?)(?:'s|’s|')\s+(?:last|latest|most\s+recent)\s+(?:message|mail|"
               r"e-?mail|text|note)\s*[?!.]*\s*$", re.IGNORECASE),
    # "what was the last thing Oliver said?", "any news from Harriet?", "what's the latest from Harriet?"
    re.compile(r"^\s*what(?:'s|’s|s|\s+is|\s+was)\s+the\s+(?:last|latest|most\s+recent)\s+(?:thing\s+|message\s+|"
               r"news\s+)?(?:from\s+(?P<name2>.+?)|(?P<name>.+?)\s+(?:said|wrote|sent|texted|messaged|told\s+me))"
               r"(?:\s+(?:to\s+)?(?:me|us))?\s*[?!.]*\s*$", re.IGNORECASE),
    re.compile(r"^\s*(?:any\s+(?:news|word)|anything\s+new)\s+from\s+(?P<name>.+?)\s*[?!.]*\s*$", re.IGNORECASE))


_SAID_TO_Q = re.compile(
    r"^\s*what\s+(?:did|have)\s+(?:i|we)\s+(?:last\s+|just\s+)?(?:say|said|write|wrote|written|send|sent|tell|told|"
    r"text(?:ed)?|message[d]?|e-?mail(?:ed)?)\s+(?:to\s+)?(?P<name>.+?)(?:\s+(?:last|recently|lately))?\s*[?!.]*\s*$",
    re.IGNORECASE)
""""what did I say to Marco?" / "what did I tell Marco?" / "what did I last write to Marco?" (no topic)."""


@dataclass
class Said:
    """A "what did Noor say?" / "what was Noor's last message?" question — no topic named — answered with the
    latest record the person sent in their own words (:func:`_own_record`): their ``name`` and that record
    (``result``, an ``AskResult``, or None).  ``to``: asked what the owner said *to* them ("what did I tell
    Marco?"), answered with the owner's latest message to them in their own words."""

    name: str
    result: object = None
    to: bool = False


def said_question(c, question: str):
    """A :class:`Said` when ``question`` asks what a known person said, with no topic ("what did Noor say?"; "what
    did Noor say about Lisbon?" is recall's); the list of ``(id, name, kind, hint)`` when the name fits several;
    else None.  Reads only."""
    m = _SAID_TO_Q.match(question or "")
    if m:
        e = _entity_or_choices(c, m.group("name").strip())
        if e is None or isinstance(e, list):
            return e
        return Said(e.canonical_name, _own_record_to(c, e.id), to=True)
    m = next((m for rx in _SAID_Q if (m := rx.match(question or ""))), None)
    if not m:
        return None
    e = _entity_or_choices(c, (m.group("name") or m.groupdict().get("name2") or "").strip())
    if e is None or isinstance(e, list):
        return e
    return Said(e.canonical_name, _own_record(c, e.id))


def said_answer(q: Said, results: Sequence[Any]) -> MemoryAnswer:
    """"On 1 January 2021, Noor Sample wrote: “Hello from Lisbon 😀”" — their latest message in their own words,
    cited — or that they sent nothing."""
    r = q.result
    if r is None:
        return MemoryAnswer(f"I have no message of yours to {q.name}." if q.to else
                            f"I have no message from {q.name} in their own words.", [], "what")
    cited = _citing(results, r.record_id)
    body = r.text[len(r.subject):] if r.subject and r.record_kind not in ("photo", "voice") and \
        r.text.startswith(r.subject) else r.text
    said = " ".join(own_sentences(body)[:2]).split()
    words = " ".join(said[:30]) + (" …" if len(said) > 30 else "")
    when = datetime.fromisoformat(r.when) if r.when else None
    on = f"On {day_text(when)}, " if when else ""
    if q.to:
        return MemoryAnswer(f"{on}{'you' if on else 'You'} wrote to {q.name}: “{words}” {_cite(cited)}".strip(), cited,
                            "what")
    return MemoryAnswer(f"{on}{q.name} wrote: “{words}” {_cite(cited)}".strip(), cited, "what")


@dataclass
class LastContact:
    """A "when did I last hear from X?" question read and answered from the graph: ``which`` (``"last"`` or
    ``"first"``), the ``direction`` asked (``"from"``: what X sent — "hear from X", "X wrote to me"; ``"to"``: what
    was sent to X — "email X"; ``"any"``: X a party), X's name, and the record found
    (``app.operations.graph.Contacted``) or None."""

    which: str
    direction: str
    name: str
    found: object = None
    result: object = None  # the found record as an ``AskResult``: the answer cites it, the window opens it


@dataclass
class Reach:
    """A "what is X's email address?" question answered from the graph: X's name, what was asked (``email``,
    ``phone`` or ``any``) and X's addresses (``app.operations.graph.About.addresses``)."""

    name: str
    what: str
    addresses: list[str]


def _entity_or_choices(c, name: str):
    """The live entity ``name`` names, the list of ``(id, name, kind, hint)`` when several do (``hint``: what
    tells them apart — an address and the most confident current fact, from :func:`app.operations.graph.about`),
    or None."""
    from app.operations.entities import find_entity
    from core.errors import Ambiguous, NotFound

    try:
        return find_entity(c, name)
    except Ambiguous as exc:
        return [(e.id, e.canonical_name, e.kind, _hint(c, e.id)) for e in exc.candidates[:5]]
    except NotFound:
        return _by_first_name(c, name)


def _hint(c, entity_id: int) -> str:
    """What tells an entity apart from another of the same name: its first address and its most confident
    current fact (:func:`app.operations.graph.about`), "; "-joined."""
    from app.operations.graph import about

    a = about(c, entity_id)
    return "; ".join([*a.addresses[:1], *(_fact_body(st) for st, _ev in a.facts[:1])])


def _by_first_name(c, name: str):
    """The live person whose full name starts with the one word ``name`` ("Rosa" → Rosa Vidal), as
    :func:`_entity_or_choices` gives it — the list when several do — or None.  Only for answers: forgetting
    needs the whole name or the id."""
    from sqlmodel import select

    from core.graph.entities import normalize_name
    from core.store.schema import Entity

    word = normalize_name(name or "")
    if not word or " " in word or "@" in word or word.isdigit():
        return None
    with c.db.session() as s:
        found = [e for e in s.exec(select(Entity).where(Entity.tombstoned_at.is_(None), Entity.kind == "person",
                                                        Entity.canonical_name.ilike(f"{name.strip()} %"))).all()
                 if normalize_name(e.canonical_name).split(" ")[0] == word and not _unnamed_relative(e)]
        if len(found) > 1:
            for e in found:
                s.expunge(e)
    if not found:
        found = _near_first_name(c, word)
    if not found:
        return None
    if len(found) == 1:
        return found[0]
    return _entity_or_choices(c, found[0].canonical_name) if len({e.canonical_name for e in found}) == 1 \
        else [(e.id, e.canonical_name, e.kind, _hint(c, e.id)) for e in found[:5]]


def _unnamed_relative(e) -> bool:
    """True for a relative known by no name of their own ("Rosa Blanco's brother", made from "my brother lives in
    Madrid"): "Rosa" is not their first name — "where does Rosa work?" asked which of the two was meant."""
    attrs = e.attrs or {}
    return bool(attrs.get("relation_of")) and e.canonical_name.endswith(f"'s {attrs.get('relation', '')}")


def _one_typo(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` differ by one typo: a letter left out, added, changed, or two swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def _near_first_name(c, word: str) -> list:
    """The live people whose first name ``word`` is one typo away from ("olivr", "olliver" → Oliver Grant;
    "harriett" → Harriet Cole), when ``word`` has 5 letters or more (a short name is too near others: Beth,
    Seth), is no known first name itself, and is not one cut short (Olive, Oliver)."""
    from sqlmodel import select

    from core.graph.entities import normalize_name
    from core.store.schema import Entity

    if len(word) < 5 or not word.isalpha():
        return []
    with c.db.session() as s:
        people = s.exec(select(Entity.id, Entity.canonical_name).where(Entity.tombstoned_at.is_(None),
                                                                        Entity.kind == "person")).all()
        firsts = [(i, normalize_name(name).split(" ")) for i, name in people]
        # a name cut short is another name, not a typo (Olive is no Oliver, Chris no Christa)
        ids = [i for i, words in firsts if len(words) > 1 and _one_typo(word, words[0])
               and not words[0].startswith(word)]
        found = [s.get(Entity, i) for i in ids[:6]]
        for e in found:
            s.expunge(e)
    return found


def contact_question(c, question: str):
    """A :class:`LastContact` or :class:`Reach` for "when did I last hear from X?" / "when did X first write to
    me?" / "what is X's email address?" / "how do I reach X?" when X names a known entity; the list of ``(id,
    name, kind)`` when it names several; None otherwise.  Reads only."""
    for pattern in _WHEN_CONTACT:
        m = pattern.match(question or "")
        if m:
            e = _entity_or_choices(c, m.group("name"))
            if e is None or isinstance(e, list):
                return e
            from app.operations.graph import last_contact

            verb = re.sub(r"\s+", " ", m.group("verb").casefold())
            sent_by = verb.startswith("hear") or pattern is _WHEN_CONTACT[1]
            sent_to = verb.startswith(("wr", "e", "mess", "text")) and pattern is _WHEN_CONTACT[0]
            direction = "from" if sent_by else "to" if sent_to else "any"
            roles = {"from": ("from",), "to": ("to", "cc", "member")}.get(direction)
            which = m.group("which").casefold()
            found = last_contact(c, e.id, roles=roles, first=which == "first") if roles else \
                _own_contact(c, e.id, first=which == "first")
            return LastContact(which, direction, e.canonical_name, found,
                               _as_result(c, found.record_id) if found else None)
    m = _ADDRESS_Q.match(question or "")
    if m:
        name = (m.group("name") or m.group("name2")).strip()
        e = _entity_or_choices(c, name)
        if e is None and name.lower().endswith("s") and len(name) > 2:  # typed without its apostrophe: "priyas"
            e = _entity_or_choices(c, name[:-1])
        if e is None or isinstance(e, list):
            return e
        from app.operations.graph import about

        what = (m.group("what") or "").casefold()
        kind = "email" if re.search(r"mail|mial", what) else "phone" if what and not re.search(r"ad+res|contact", what) \
            else "any"
        return Reach(e.canonical_name, kind, about(c, e.id).addresses)
    return None


def _own_contact(c, entity_id: int, first: bool = False):
    """The latest (``first``: the earliest) live dated record between the owner and entity ``entity_id`` itself
    (``app.operations.graph.Contacted``), or None: one it sent, one addressed to it, or a line to it in a chat of
    two — in a group, only its own lines (another's line to the group is no talk with it)."""
    from sqlalchemy import func
    from sqlmodel import select

    from app.operations.graph import PARTY_ROLES, Contacted
    from core.store.schema import Record, RecordEntity, Source

    parties = (select(func.count(func.distinct(RecordEntity.entity_id)))
               .where(RecordEntity.record_id == Record.id, RecordEntity.role.in_(PARTY_ROLES))
               .correlate(Record).scalar_subquery())
    q = (select(Record.id, Record.sent_at, Record.kind, Source.kind, Record.subject, Record.text, RecordEntity.role,
                parties)
         .join(RecordEntity, RecordEntity.record_id == Record.id).join(Source, Source.id == Record.source_id)
         .where(RecordEntity.entity_id == entity_id, RecordEntity.role.in_(PARTY_ROLES),
                Record.tombstoned_at.is_(None), Record.sent_at.is_not(None))
         .order_by(Record.sent_at.asc() if first else Record.sent_at.desc(), Record.id.desc()))
    with c.db.session() as s:
        for rid, when, kind, channel, subject, text, role, n in s.exec(q):
            if role != "member" or n <= 2:
                return Contacted(int(rid), clock.ensure_utc(when), kind, channel, subject, text or "")
    return None


def _as_result(c, record_id: int):
    """Record ``record_id`` as an ``AskResult`` (its shown text, source file and sender, relevance 1: it is the
    record asked for)."""
    from app.operations.ask import record_source, shown_text
    from app.operations.types import AskResult

    src = record_source(c, record_id)
    return AskResult(text=shown_text(src["subject"], src["text"], src["kind"]), source=src["path"], when=src["when"],
                     score=0.0, record_id=record_id, subject=src["subject"], sender=src["sender"], relevance=1.0,
                     record_kind=src["kind"])


def contact_answer(q, results: Sequence[Any]) -> MemoryAnswer:
    """The answer to :func:`contact_question`, citing the found record when it is among ``results``."""
    if isinstance(q, Reach):
        want = [a for a in q.addresses if q.what == "any" or ("@" in a) == (q.what == "email")]
        label = {"email": "email address", "phone": "phone number"}.get(q.what, "address")
        if want:
            return MemoryAnswer(f"{q.name}: {', '.join(want)}.", [], "who")
        known = f" (I know {', '.join(q.addresses)})" if q.addresses else ""
        return MemoryAnswer(f"I don't have {'an' if label[0] in 'ae' else 'a'} {label} for {q.name}{known}.", [], "who")
    r = q.found
    if r is None:
        return MemoryAnswer(f"I have no dated record of you and {q.name}.", [], "when")
    cited = _citing(results, r.record_id)
    what = f"“{r.subject}”" if r.subject else ""
    if not what:
        first = next((x for x in own_sentences(r.text) if not _ATTACHED_NOTE.match(x)), "")
        what = f"“{first[:80]}{'…' if len(first) > 80 else ''}”" if first else ""
    how = next((label[:1].lower() + label[1:] for _rx, kinds, label in _CHANNELS if r.channel in kinds), "")
    detail = ", ".join(x for x in (how, what) if x)
    did = {"from": f"You {q.which} heard from {q.name}", "to": f"The {q.which} message to {q.name} was sent"}.get(
        q.direction, f"You were {q.which} in touch with {q.name}")
    text = f"{did} on {day_text(r.when)}" + (f" ({detail})" if detail else "")
    return MemoryAnswer(f"{text}. {_cite(cited)}".strip(), cited, "when")


_HELD_Q = re.compile(r"^\s*where\s+(?:does|did|do|is|was|has|had)\s+(?P<name>.+?)\s+(?:been\s+)?(?P<verb>live|lives|lived|"
                     r"living|work|works|worked|working)\b(?P<rest>.*?)\s*[?!.]*\s*$", re.IGNORECASE)
_NOW = re.compile(r"^(?:now|nowadays|currently|today|these\s+days|at\s+the\s+moment|right\s+now)?$", re.IGNORECASE)
_BEFORE = re.compile(r"^before(?:\s+(?:moving\s+to\s+|joining\s+|going\s+to\s+|(?:s?he|they|i)\s+(?:moved|went)\s+to\s+)?"
                     r"(?P<value>.+?))?$", re.IGNORECASE)


@dataclass
class HeldQuestion:
    """A "where does Rosa live?" / "where did Rosa live in March 2023?" / "where did Alex work before Southbank?"
    question read and answered from the facts' valid times (seed 002's temporal validity): whom it asks about
    (``name``; ``you``: the owner), ``work`` (else where they live), the ``span`` asked about (``(since, until,
    label)`` from :func:`period_of`, or None), the value asked to go before (``before``: "" for the current one,
    None when not asked), and the facts (``app.operations.graph.held``)."""

    name: str
    work: bool
    span: tuple | None
    before: str | None
    held: list = field(default_factory=list)
    result: object = None  # the answer's evidence record as an ``AskResult``: the answer cites it


def held_question(c, question: str, as_of: datetime | None = None):
    """A :class:`HeldQuestion` when ``question`` asks where someone lives or works — now, at a time, or before a
    place — and that person is known (a name, a first name, or "I"); the list of ``(id, name, kind, hint)`` when
    the name fits several; None otherwise (or when nothing is known of that: recall answers).  ``as_of`` (UTC):
    the question is asked as of then (``kith ask --as-of``).  Reads only."""
    m = _HELD_Q.match(question or "")
    if not m:
        return None
    from app.operations.graph import held

    rest = m.group("rest").strip(" ,")
    span = before = None
    b = _BEFORE.match(rest)
    if b:
        before = (b.group("value") or "").strip()
    elif not _NOW.match(rest):
        span = period_of(rest)
        if span is None:
            return None
    if as_of is not None and span is None and before is None:  # `kith ask --as-of`: where then
        day = clock.ensure_utc(as_of)
        span = (day, day + timedelta(seconds=1), f"On {day_text(day)}")
    who = m.group("name").strip()
    if who.casefold() in ("i", "we"):
        from app.memory import owner_entity

        me = owner_entity(c)
        if not me:
            return None
        eid, name = me[0], "you"
    else:
        e = _entity_or_choices(c, re.sub(r"^(?:the|a|an)\s+", "", who, flags=re.IGNORECASE))
        if e is None or isinstance(e, list):
            return e
        eid, name = e.id, e.canonical_name
    work = m.group("verb").casefold().startswith("work")
    found = held(c, eid, *(("work", "employment", ("employer",)) if work else ("places", "residence")))
    if not found:
        return None  # nothing of the kind: the messages may still say it
    q = HeldQuestion(name, work, span, before, found)
    target = _held_target(q)
    if target is not None and target.evidence:
        q.result = _as_result(c, target.evidence[-1])
    return q


@dataclass
class RelativeQuestion:
    """"who is Ana's boss?" / "who is my sister?" / "what is Tom's wife's name?": whose relative (``name``; ``you``:
    the owner), the relation (``core.extraction.personal_facts.RELATIONS``' word: mother, boss …), and the people the
    graph's current ``relationships`` facts name (``people``: ``(name, evidence record id or None)``)."""

    name: str
    relation: str
    people: list = field(default_factory=list)
    result: object = None  # the first fact's evidence record as an ``AskResult``: the answer cites it
    subject: str = ""  # the person's own name (the owner's for "my sister"): whose messages may say it
    count: bool = False  # "how many siblings do I have?": the answer counts them
    whose: str = ""  # "whose son is Max?": the relation asked the other way round ("son"), said so in the answer


_RELATIVE_Q = re.compile(r"^\s*(?:who(?:['’]s|\s+is|\s+was|\s+are|\s+were)|what(?:['’]s|\s+is)(?:\s+the\s+name\s+of)?)\s+"
                         r"(?:(?P<my>my)|(?P<name>[^?]+?)(?:['’]s?|(?<=[^\W\d_])s))\s+(?P<rel>[a-z][a-z -]*?)"
                         r"(?:['’]s\s+name)?\s*[?!.]*\s*$", re.IGNORECASE)

# A relation's kind and the sex it names (None: either) — "who is Tom's wife?" is answered by the one whose husband
# Tom is, "who is Max's father?" by the one whose son Max is, "who are my siblings?" by brothers and sisters both
_KIN = {"husband": ("spouse", "m"), "wife": ("spouse", "f"), "spouse": ("spouse", None),
        "father": ("parent", "m"), "mother": ("parent", "f"), "parent": ("parent", None), "parents": ("parent", None),
        "son": ("child", "m"), "daughter": ("child", "f"), "child": ("child", None),
        "brother": ("sibling", "m"), "sister": ("sibling", "f"), "sibling": ("sibling", None),
        "half-brother": ("sibling", "m"), "half-sister": ("sibling", "f"),
        "boss": ("boss", None), "manager": ("boss", None), "employee": ("employee", None),
        "partner": ("partner", None), "girlfriend": ("partner", "f"), "boyfriend": ("partner", "m"),
        "grandmother": ("grandparent", "f"), "grandfather": ("grandparent", "m"), "grandparent": ("grandparent", None),
        "grandson": ("grandchild", "m"), "granddaughter": ("grandchild", "f"), "grandchild": ("grandchild", None),
        "cousin": ("cousin", None), "roommate": ("roommate", None), "friend": ("friend", None),
        "best friend": ("best friend", None)}
_KIN_INVERSE = {"spouse": "spouse", "parent": "child", "child": "parent", "sibling": "sibling", "boss": "employee",
                "employee": "boss", "partner": "partner", "grandparent": "grandchild", "grandchild": "grandparent",
                "cousin": "cousin", "roommate": "roommate", "friend": "friend", "best friend": "best friend"}
# words asked for a kind as a whole (either sex): every relation of the kind answers them
_KIN_WORDS = {"sibling": "sibling", "siblings": "sibling", "spouse": "spouse", "parent": "parent",
              "parents": "parent", "child": "child", "children": "child", "kid": "child", "kids": "child",
              "employee": "employee", "employees": "employee", "grandparent": "grandparent",
              "grandparents": "grandparent", "grandchild": "grandchild", "grandchildren": "grandchild"}
_KIN_MORE = {"grandson": "grandson", "grandsons": "grandson", "granddaughter": "granddaughter",
             "granddaughters": "granddaughter"}  # words of one sex RELATIONS does not hold
_KIN_ALIASES = {"hubby": "husband", "hubbie": "husband", "wifey": "wife", "missus": "wife", "mommy": "mom",
                "mummy": "mum", "daddy": "dad", "bro": "brother", "sis": "sister", "brothers and sisters": "siblings",
                "sisters and brothers": "siblings", "brother or sister": "siblings", "brothers or sisters": "siblings",
                "sons and daughters": "children", "kiddos": "kids", "mom and dad": "parents", "mum and dad": "parents",
                "husband or wife": "spouse", "wife or husband": "spouse", "wives": "wife", "employer": "boss", "staff": "employees"}
_OF_FORM = re.compile(r"^\s*(?P<ask>who(?:['’]s|\s+is|\s+was|\s+are|\s+were))\s+(?:the\s+|a\s+)?"
                      r"(?P<rel>[a-z][a-z -]*?)\s+of\s+(?P<name>[^?]+?)\s*[?!.]*\s*$", re.IGNORECASE)
_MARRIED = re.compile(r"^\s*who(?:['’]s|\s+is|\s+was|\s+am|\s+are)\s+(?P<name>[^?]+?)\s+(?:married|wed)\s+(?:to|with)\s*[?!.]*\s*$",
                      re.IGNORECASE)


_WHOSE = re.compile(r"^\s*whose\s+(?P<rel>[a-z][a-z -]*?)\s+(?:is|was|are|were)\s+(?P<name>[^?]+?)\s*[?!.]*\s*$",
                    re.IGNORECASE)
_HOW_MANY_KIN = re.compile(r"^\s*how\s+many\s+(?P<rel>[a-z][a-z -]*?)\s+(?:do|does|did|has|have)\s+(?P<name>[^?]+?)"
                           r"\s+(?:have|got|has)\s*[?!.]*\s*$|^\s*how\s+many\s+(?P<rel2>[a-z][a-z -]*?)\s+"
                           r"(?:have|has)\s+(?P<name2>[^?]+?)\s+got\s*[?!.]*\s*$", re.IGNORECASE)
_KIND_WORD = {"spouse": "spouse", "parent": "parent", "child": "child", "sibling": "sibling", "employee": "employee",
              "boss": "boss", "partner": "partner", "grandparent": "grandparent", "grandchild": "grandchild",
              "cousin": "cousin", "roommate": "roommate", "friend": "friend", "best friend": "best friend"}


def _kin_word(word: str) -> str | None:
    """The relation a word asked names ("sisters" → "sister", "hubby" → "husband", "kids" → "child"), or None."""
    from core.extraction.personal_facts import RELATIONS

    w = _KIN_ALIASES.get(" ".join(word.casefold().split()), " ".join(word.casefold().split()))
    return _KIN_WORDS.get(w) or _KIN_MORE.get(w) or RELATIONS.get(w) or RELATIONS.get(w.rstrip("s"))


def _relative_reworded(q: str) -> str:
    """"who is the father of Max?" → "who is Max's father?"; "who is Emma married to?" → "who is Emma's
    spouse?"; "whose husband is Tom?" → "who is Tom's spouse?" (the one whose husband Tom is, a relation read the
    other way round) — the form :data:`_RELATIVE_Q` reads."""
    m = _WHOSE.match(q)
    if m:
        rel = _kin_word(m.group("rel"))
        kind = _KIN.get(rel or "", (None,))[0]
        back = _KIN_WORDS.get(_KIND_WORD.get(_KIN_INVERSE.get(kind, ""), ""), None) if kind else None
        if back is None and kind in _KIN_INVERSE:
            back = _KIN_INVERSE[kind]
        if back:
            name = m.group("name").strip()
            return f"who is my {back}?" if name.casefold() in ("i", "me") else f"who is {name}'s {back}?"
        return q
    m = _MARRIED.match(q)
    if m:
        name = m.group("name").strip()
        return "who is my spouse?" if name.casefold() in ("i", "we") else f"who is {name}'s spouse?"
    m = _OF_FORM.match(q)
    if m and not re.match(r"(?i)(?:name|one|kind|type|head|owner|author|ceo|founder|president)\b", m.group("rel")):
        name = m.group("name").strip()
        if name.casefold() in ("me", "mine"):
            return f"{m.group('ask')} my {m.group('rel')}?"
        return f"{m.group('ask')} {name}'s {m.group('rel')}?"
    return q


_KIN_PLURAL = {"child": "children", "parent": "parents", "best friend": "best friends", "wife": "wives"}
_REL_NAME = r"(?!I\b)[A-Z][a-zA-Z'\-]+(?:\s+(?!I\b|Is\b|Was\b)[A-Z][a-zA-Z'\-]+)?"


def _relative_named(text: str, relation: str, whose: list[str], own: bool) -> str | None:
    """The name a message gives an unnamed relative: "My husband is Tom" (``own``: its writer's relative),
    "Nina's husband is Paul Grey", "Tom is Emma's husband" (``whose``: the names the person goes by); None."""
    rel = re.escape(relation)
    owners = [re.escape(w) + r"['’]s" for w in whose if w]
    if own:
        owners.append(r"[Mm]y")
    if not owners or not text:
        return None
    of = "(?:" + "|".join(owners) + ")"
    for rx in (rf"\b{of}\s+{rel}(?:['’]s\s+name)?\s*(?:,\s*)?(?:is|was|['’]s|is\s+called|is\s+named)\s+"
               rf"(?P<n>{_REL_NAME})",
               rf"(?P<n>{_REL_NAME})\s+(?:is|was)\s+{of}\s+{rel}\b",
               rf"\b{of}\s+{rel}\s*[,(–—-]\s*(?P<n>{_REL_NAME})\s*[,)–—-]"):  # "Nina's husband, Paul Grey, called"
        m = re.search(rx, text)
        if m:
            name = m.group("n").strip()
            words = name.split()
            if words and words[-1].casefold() in ("and", "but", "so", "who", "the"):
                name = " ".join(words[:-1])
            if name and name.split()[0].casefold() not in ("my", "his", "her", "their", "our", "the", "a", "an"):
                return name
    return None


def _relation_facts(s, where):
    """``[(subject id, subject name, relation, relative's name, relative's entity id or None, evidence record id or
    None)]`` of the current ``relation:`` facts ``where`` selects: a relative known only as "Emma Stone's husband"
    takes the name its message gives ("My husband is Tom"), else is left out."""
    from sqlmodel import select

    from core.store.schema import Entity, Evidence, Fact, FactEntity, Record

    out = []
    for f in s.exec(select(Fact).where(Fact.domain == "relationships", Fact.key.startswith("relation:"),
                                       Fact.superseded_by.is_(None), Fact.tombstoned_at.is_(None), *where)
                    .order_by(Fact.id)).all():
        rel = f.key.split(":")[1]
        subj = s.get(Entity, f.subject_entity_id)
        if subj is None or subj.tombstoned_at is not None:
            continue
        obj = s.exec(select(Entity.id, Entity.canonical_name).join(FactEntity, FactEntity.entity_id == Entity.id)
                     .where(FactEntity.fact_id == f.id, FactEntity.role == "object",
                            Entity.tombstoned_at.is_(None))).first()
        oid, who = (obj[0], obj[1]) if obj else (None, f.value)
        rid = s.exec(select(Evidence.record_id).where(Evidence.fact_id == f.id).order_by(Evidence.record_id)).first()
        if not who or who.casefold() == rel or who.endswith(f"'s {rel}"):  # "Emma Stone's husband": by no name
            named = None
            for ev_rid, excerpt in s.exec(select(Evidence.record_id, Evidence.excerpt)
                                          .where(Evidence.fact_id == f.id).order_by(Evidence.record_id)).all():
                rec = s.get(Record, ev_rid)
                if rec is None or rec.tombstoned_at is not None:
                    continue
                own = rec.sender_entity_id == subj.id
                whose = [subj.canonical_name, subj.canonical_name.split()[0]]
                named = _relative_named(excerpt or "", rel, whose, own) or \
                    _relative_named(rec.text or "", rel, whose, own)
                if named:
                    rid = ev_rid
                    break
            if not named:
                continue
            who = named
        out.append((subj.id, subj.canonical_name, rel, who, oid if obj and who == obj[1] else None, rid))
    return out


def _goes_by(name: str, asked: str, canonical: str | None) -> bool:
    """Whether a relative's ``name`` as a message gives it ("Tom", "Paul Grey") is the person asked about."""
    n = " ".join(name.casefold().split())
    names = {" ".join(x.casefold().split()) for x in (asked, canonical) if x}
    if n in names:
        return True
    return len(n.split()) == 1 and any(n == x.split()[0] for x in names) or \
        any(len(x.split()) == 1 and n.split()[0] == x for x in names)  # "Paul" asked, "Paul Grey" named


def relative_question(c, question: str):
    """A :class:`RelativeQuestion` when ``question`` asks who a known person's relative is ("who is Ana's boss?",
    "who is my sister?", "whats toms wifes name": the name asked for) — with the relatives the graph holds, none
    when it holds none (the answer then says so, never another relative's fact); the list of ``(id, name, kind,
    hint)`` when the name fits several; None otherwise (recall answers).  Either direction: "who is Tom's wife?" is
    answered by "Tom is Emma's husband" (Emma wrote "my husband is Tom"), "who is Max's father?" by Ben's "my son
    Max", "who are my siblings?" by every brother and sister.  Reads only."""
    from core.extraction.personal_facts import RELATIONS

    whose_m = _WHOSE.match(_WHATS.sub("what is", question or ""))
    whose_rel = _kin_word(whose_m.group("rel")) if whose_m else None  # "whose son is Max?": "son", as asked
    typed = _relative_reworded(_WHATS.sub("what is", question or ""))
    many = _HOW_MANY_KIN.match(typed)
    if many:  # "how many siblings do I have?": who they are, counted
        who_, rel_ = (many.group("name") or many.group("name2")).strip(), many.group("rel") or many.group("rel2")
        if _kin_word(rel_) is None:
            return None
        typed = f"who are my {rel_}?" if who_.casefold() in ("i", "we") else f"who are {who_}'s {rel_}?"
    m = _RELATIVE_Q.match(_without_name_slot(typed)) or _RELATIVE_Q.match(typed)
    if not m:
        return None
    word = " ".join(m.group("rel").casefold().split())
    word = _KIN_ALIASES.get(word, word)
    generic = word in _KIN_WORDS  # "siblings": brothers and sisters, "parents": the mother and the father
    rel = _KIN_WORDS.get(word) or _KIN_MORE.get(word) or RELATIONS.get(word) or RELATIONS.get(word.rstrip("s"))
    if rel is None:
        return None
    kind, sex = _KIN.get(rel, (None, None))
    asked = None
    if m.group("my"):
        from app.memory import owner_entity

        me = owner_entity(c)
        if not me:
            return None
        eid, name, subject = me[0], "you", me[1]
    else:
        asked = m.group("name").strip()
        typed_s = typed[m.end("name"):m.end("name") + 1] == "s"  # "anas boss": Ana's, or a name ending in s
        e = _entity_or_choices(c, asked)
        if e is None and typed_s:
            e = _entity_or_choices(c, asked + "s")  # "James boss" (no apostrophe): James
        if isinstance(e, list):
            return e
        if e is None:  # no one of that name: a relative known only by it ("Tom", Emma's husband) may still be
            if kind is None or kind not in _KIN_INVERSE:
                return None
            eid, name, subject = None, asked[:1].upper() + asked[1:], ""
        else:
            eid, name, subject = e.id, e.canonical_name, e.canonical_name
    from app.memory import owner_entity
    from core.store.schema import Fact

    me_id, me_name = owner_entity(c) or (None, "")
    people: list[tuple[str, int | None]] = []

    def add(who: str, rid):
        if all(who != p for p, _r in people):
            people.append((who, rid))

    direct = unsure = False
    with c.db.session() as s:
        whose_only = whose_rel in _KIN and whose_rel not in _KIN_WORDS  # "whose son is Max?": the "my son Max"s
        if eid is not None and not whose_only:  # their own: "my sister Clara" (Ben's), "Nina's husband is Paul" (of Nina)
            for _sid, _sname, r, who, oid, rid in _relation_facts(s, [Fact.subject_entity_id == eid]):
                if r == rel or (generic and _KIN.get(r, (None,))[0] == kind):
                    mine = me_id is not None and eid != me_id and (
                        oid == me_id or _to_owner_by_first_name(s, who, me_name, me_id, rid))
                    add("you" if mine else who, rid)  # Lucy's "my brother Alex", to Alex: the owner
        direct = bool(people)
        if kind in _KIN_INVERSE:  # the other way: they are the relative of someone ("my son Max": Max's parent)
            back = _KIN_INVERSE[kind]
            rels = [r for r, (k, _x) in _KIN.items() if k == back]
            facts = _relation_facts(s, [_relation_keys(rels), _naming(eid, {
                x for x in (asked, subject, subject.split()[0] if subject else "") if x})])
            sexes = _sexes(s, {f[0] for f in facts}) if sex is not None else {}
            for sid, sname, r, who, oid, rid in facts:
                if _KIN.get(r, (None,))[0] != back or sid == eid:
                    continue
                if whose_only and r != whose_rel:
                    continue  # "whose son is Mia?": not Dan's "my daughter Mia"
                if not (oid is not None and oid == eid or oid is None and
                        name != "you" and _goes_by(who, asked or "", name) or
                        name == "you" and _to_owner_by_first_name(s, who, subject, eid, rid)):
                    continue
                if sex is not None and sexes.get(sid, None if direct else sex) != sex:
                    continue  # "who is Max's father?": not one known to be someone's mother; "who are my brothers?"
                    # beside a brother the owner named: only one known to be someone's brother
                if sex is not None and sexes.get(sid) is None and kind in _KIN_INVERSE:
                    unsure = True  # Ben's "my son Max" makes Ben Max's parent, not his father: said so
                add("you" if sid == me_id else sname, rid)
    people = _one_per_person(people)
    people.sort(key=lambda p: (p[0] == "you", p[0].casefold()))
    if eid is None and not people:
        return None  # no one of that name, and no relative by it: recall answers
    if not direct and unsure and people:  # the sex asked is not known: the relation without it ("parent")
        rel = kind
    q = RelativeQuestion(name, rel, people, subject=subject, count=bool(many),
                         whose=whose_rel if whose_rel in _KIN and whose_rel not in _KIN_WORDS else "")
    if people and people[0][1] is not None:
        q.result = _as_result(c, people[0][1])
    return q


def _to_owner_by_first_name(s, who: str, owner: str, owner_id: int, rid) -> bool:
    """Whether a relative named ``who`` is the owner: their whole name, or their first name in a message written to
    them ("My brother Alex is turning 40", from Sam to Alex Morgan)."""
    from sqlmodel import select

    from core.store.schema import RecordEntity

    n = " ".join((who or "").casefold().split())
    if not n or not owner:
        return False
    if n == " ".join(owner.casefold().split()):
        return True
    if n != owner.casefold().split()[0] or rid is None:
        return False
    return s.exec(select(RecordEntity.record_id).where(RecordEntity.record_id == rid,
                                                       RecordEntity.entity_id == owner_id,
                                                       RecordEntity.role.in_(("to", "cc", "member")))).first() is not None


def _one_per_person(people: list) -> list:
    """``people`` (``(name, record id)``) with a first name alone left out where one whole name starts with it
    ("Sam", the owner's brother, and "Sam Morgan", who calls the owner his brother: one person)."""
    full = [p for p, _r in people if len(p.split()) > 1]
    out = []
    for p, r in people:
        longer = [f for f in full if f.split()[0].casefold() == p.casefold()]
        if len(p.split()) == 1 and len(longer) == 1:
            continue
        out.append((p, r))
    return out


def _naming(eid, names: set):
    """A where-clause: a fact whose relative is entity ``eid`` or may go by one of ``names`` (its value, or an
    unnamed relative's message that says one) — the facts read the other way round, found in the database, not
    read one by one."""
    from sqlalchemy import and_, false, func, or_
    from sqlmodel import select

    from core.store.schema import Evidence, Fact, FactEntity, Record

    low = sorted({" ".join(n.casefold().split()) for n in names if n and n.strip()})
    parts = [Fact.id.in_(select(FactEntity.fact_id).where(FactEntity.entity_id == eid, FactEntity.role == "object"))] \
        if eid is not None else []
    if low:
        parts.append(func.lower(Fact.value).in_(low))
        parts.append(and_(Fact.value.like("%'s %"), Fact.id.in_(
            select(Evidence.fact_id).join(Record, Record.id == Evidence.record_id).where(
                or_(*[func.lower(Record.text).like(f"%{n}%") for n in low])))))
    return or_(*parts) if parts else false()


def _relation_keys(rels: list[str]):
    """A where-clause: a ``relation:`` fact key of one of ``rels`` ("relation:son" or "relation:son:max")."""
    from sqlalchemy import or_

    from core.store.schema import Fact

    return or_(*[Fact.key == f"relation:{r}" for r in rels], *[Fact.key.startswith(f"relation:{r}:") for r in rels])


def _sexes(s, ids: set) -> dict:
    """The sex the graph's facts give the people ``ids`` by naming them someone's husband, mother, sister …:
    ``{entity id: "m" or "f"}`` (those it gives none, or both, left out)."""
    from sqlmodel import select

    from core.store.schema import Fact, FactEntity

    seen: dict = {}
    if not ids:
        return seen
    for ent, key in s.exec(select(FactEntity.entity_id, Fact.key).join(Fact, Fact.id == FactEntity.fact_id).where(
            FactEntity.entity_id.in_(ids), FactEntity.role == "object", Fact.domain == "relationships",
            Fact.key.startswith("relation:"), Fact.superseded_by.is_(None), Fact.tombstoned_at.is_(None))).all():
        x = _KIN.get(key.split(":")[1], (None, None))[1]
        if x:
            seen.setdefault(ent, set()).add(x)
    return {e: next(iter(v)) for e, v in seen.items() if len(v) == 1}


def relative_answer(q: RelativeQuestion, results: Sequence[Any]) -> MemoryAnswer:
    """"Dr. Patel is Ana Lima's boss." / "Beth and Clara are your sisters." / "Beth, Jane and Sam are your
    siblings." — citing the first fact's evidence."""
    whose = "your" if q.name == "you" else f"{q.name}'s"
    if not q.people and q.whose:
        return MemoryAnswer(f"Nothing in your records says whose {q.whose} {q.name} is.", [], "who", True)
    if not q.people and q.count:
        return MemoryAnswer(f"Nothing in your records says {'you have' if q.name == 'you' else q.name + ' has'} any "
                            f"{_KIN_PLURAL.get(q.relation, q.relation + 's')}.", [], "who", True)
    if not q.people:  # no such fact: their own message that says "my <relation>" may still tell — never another
        # person's ("Tom Weller's wife Emma says hi" is no answer to "who is my wife?")
        word = re.compile(rf"\b[Mm]y\s+{re.escape(q.relation)}s?\b")
        for n, r in enumerate(results, 1):
            if _get(r, "kind") == "record" and q.subject and _get(r, "sender") == q.subject and \
                    word.search(_get(r, "text") or ""):
                said = best_sentence(q.relation, _get(r, 'text') or '', _get(r, 'sender'),
                                     owner=q.subject if q.name == "you" else None)  # the owner's own: "Your wife …"
                return MemoryAnswer(f"{said} {_cite([n])}", [n], "who")
        return MemoryAnswer(f"Nothing in your records says who {whose} {q.relation} is.", [], "who", True)
    rid = q.result.record_id if q.result is not None else None
    cited = [n for n, r in enumerate(results, 1) if rid is not None and _get(r, "record_id") == rid][:1]
    names = [p for p, _r in q.people]
    plural = _KIN_PLURAL.get(q.relation, q.relation + "s")
    if q.count:  # "You have 3 siblings: Beth, Jane and Sam." — those Kith knows of
        has = "You have" if q.name == "you" else f"{q.name} has"
        text = f"{has} {len(names)} {q.relation if len(names) == 1 else plural} I know of: {_and(names)}."
        return MemoryAnswer(f"{text} {_cite(cited)}".strip(), cited, "who")
    if q.whose and len(names) == 1:  # "whose son is Max?" → "Max is Ben Carter's son."
        text = f"{'You are' if q.name == 'you' else q.name + ' is'} " \
               f"{'your' if names[0] == 'you' else names[0] + chr(39) + 's'} {q.whose}."
    elif q.relation == "spouse" and len(names) == 1:  # "who is Emma married to?"
        text = ("You are" if q.name == "you" else f"{q.name} is") + \
            f" married to {'you' if names[0] == 'you' else names[0]}."
    elif names == ["you"]:
        text = f"You are {whose} {q.relation}."
    elif len(names) == 1:
        text = f"{names[0]} is {whose} {q.relation}."
    else:  # "Beth, Jane and Sam are your siblings"
        text = f"{_and(names)} are {whose} {plural}."
    return MemoryAnswer(f"{text} {_cite(cited)}".strip(), cited, "who")


def _held_target(q: HeldQuestion):
    """The fact that answers ``q`` (``app.operations.graph.Held``), or None."""
    h = q.held
    if q.span is not None:
        during = [x for x in h if x.holds_during(q.span[0], q.span[1])]
        return during[-1] if during else None
    if q.before is not None:
        if q.before:
            at = [i for i, x in enumerate(h) if q.before.casefold() in x.value.casefold()]
            i = at[0] if at else None
        else:
            i = next((i for i, x in enumerate(h) if x.current), len(h) - 1)
        return h[i - 1] if i else None
    return next((x for x in reversed(h) if x.current), None)


def _held_span(x) -> str:
    if x.valid_from and x.valid_to:
        return f"from {month_year(x.valid_from)} to {month_year(x.valid_to)}"
    if x.valid_from:
        return f"since {month_year(x.valid_from)}"
    return f"until {month_year(x.valid_to)}" if x.valid_to else ""


def held_answer(q: HeldQuestion, results: Sequence[Any]) -> MemoryAnswer:
    """"Rosa Vidal lives in Madrid (since June 2023); before that, Rosa lived in Berlin until June 2023" /
    "In March 2023, Rosa Vidal lived in Berlin (from January 2023 to June 2023)." / "Before Madrid, Rosa Vidal lived
    in Berlin (…)." — citing the answering fact's evidence."""
    x = _held_target(q)
    rid = q.result.record_id if q.result is not None else None
    cited = [n for n, r in enumerate(results, 1) if rid is not None and _get(r, "record_id") == rid][:1]
    you = q.name == "you"
    verb_now, verb_then = ("work at", "worked at") if q.work else ("live in", "lived in")
    who = "you" if you else q.name
    now = verb_now if you else {"work at": "works at", "live in": "lives in"}[verb_now]
    ongoing = q.span is not None and q.span[1] > clock.now()  # "this year": still going on
    if x is None:
        if q.span is not None:
            text = f"Nothing in your records says where {who} {verb_then.split()[0]} " \
                   f"{q.span[2][:1].lower() + q.span[2][1:]}"
            known = _and([f"{h.value} ({_held_span(h)})" for h in q.held if _held_span(h)] or [""])
            return MemoryAnswer(text + (f"; I know of {known}." if known else "."), [], "where")
        if q.before is None:  # nothing holds now: what ended, and when
            last = q.held[-1]
            until = f" until {month_year(last.valid_to)}" if last.valid_to else ""
            return MemoryAnswer(f"{who[:1].upper() + who[1:]} {verb_then} {last.value}{until}; nothing in your "
                                f"records says where since.", [], "where")
        return MemoryAnswer(f"I don't know where {who} {verb_then.split()[0]} before "
                            f"{q.before or q.held[0].value}.", [], "where")
    span = _held_span(x)
    if q.span is not None:
        verb = now if x.current and ongoing else verb_then
        text = f"{q.span[2]}, {who} {verb} {x.value}" + (f" ({span})" if span else "")
        during = [h for h in q.held if h.holds_during(q.span[0], q.span[1])]
        if len(during) > 1 and during[-1] is x:  # a move within the period: each place, in order
            prep = verb_then.split()[-1]
            first, *rest = during
            text = f"{q.span[2]}, {who} {verb_then} {first.value}" + \
                (f" until {month_year(first.valid_to)}" if first.valid_to else "")
            for h in rest:
                hs = _held_span(h)
                text += f", then {prep} {h.value}" + (f" ({hs})" if hs else "")
    elif q.before is not None:
        text = f"Before {q.before or next((h.value for h in q.held if h.current), 'that')}, {who} {verb_then} " \
               f"{x.value}" + (f" ({span})" if span else "")
    else:
        text = f"{who[:1].upper() + who[1:]} {now} {x.value}" + \
            (f" (since {month_year(x.valid_from)})" if x.valid_from else "")
        prev = [h for h in q.held if h is not x and h.valid_to is not None]
        if prev:  # "; before that, Rosa lived in Berlin until June 2023": the full name said once
            p = prev[-1]
            text += f"; before that, {who if you else who.split()[0]} {verb_then} {p.value}" + \
                (f" until {month_year(p.valid_to)}" if p.valid_to else "")
    return MemoryAnswer(f"{text} {_cite(cited)}".strip(), cited, "where")


_PERIOD_Q = re.compile(r"^\s*(?:what|anything)\s+(?:happened|(?:did|do)\s+(?:i|we)\s+do|was\s+(?:going\s+on|"
                       r"happening)|went\s+on)\s+(?P<when>.+?)\s*[?!.]*\s*$", re.IGNORECASE)
_MONTH_NAMES = {name.casefold(): i for i in range(1, 13)
                for name in (calendar.month_name[i], calendar.month_abbr[i], calendar.month_abbr[i] + ".")}
_MONTH_YEAR = re.compile(r"^(?:in|during)?\s*(?P<month>[a-z]+\.?)\s*,?\s+(?P<year>\d{4})$", re.IGNORECASE)
_SEASON_YEAR = re.compile(r"^(?:in|during)?\s*(?:the\s+)?(?P<season>spring|summer|autumn|fall|winter)\s*(?:of\s+)?"
                          r"(?P<year>(?:19|20)\d\d)$", re.IGNORECASE)
_YEAR_ONLY = re.compile(r"^(?:in|during)?\s*(?P<year>(?:19|20)\d\d)$", re.IGNORECASE)
_RELATIVE = re.compile(r"^(?P<rel>yesterday|today|(?:last|this)\s+(?:week|month|year))$", re.IGNORECASE)
_ON_DAY = re.compile(r"^on\s+(?P<day>.+)$", re.IGNORECASE)


def _month_span(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=timezone.utc)
    return start, datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=timezone.utc)


def period_of(when: str, now: datetime | None = None) -> tuple[datetime, datetime, str] | None:
    """The UTC period ``[since, until)`` a phrase names and how an answer says it: "June 2000" / "in June 2000"
    → (2000-06-01, 2000-07-01, "In June 2000"); "2000"; "on 22 October 2008" / "on Oct 22, 2008" (one day);
    "yesterday", "today", "last week" (the 7 days before this week's Monday), "this week", "last month",
    "this month", "last year", "this year" (against ``now``, default ``core.clock.now()``).  None when it names
    no period."""
    from dateutil import parser as dateparser

    text = " ".join((when or "").split())
    now = clock.ensure_utc(now or clock.now())
    today = datetime(now.year, now.month, now.day, tzinfo=timezone.utc)
    m = _MONTH_YEAR.match(text)
    if m and m.group("month").casefold() in _MONTH_NAMES:
        month, year = _MONTH_NAMES[m.group("month").casefold()], int(m.group("year"))
        since, until = _month_span(year, month)
        return since, until, f"In {calendar.month_name[month]} {year}"
    m = _YEAR_ONLY.match(text)
    if m:
        year = int(m.group("year"))
        return (*_year_span(year), f"In {year}")
    m = _SEASON_YEAR.match(text)
    if m:  # the northern hemisphere's meteorological seasons; winter 2023 runs from December 2023 to February 2024
        season, year = m.group("season").casefold().replace("fall", "autumn"), int(m.group("year"))
        first = {"spring": 3, "summer": 6, "autumn": 9, "winter": 12}[season]
        since = _month_span(year, first)[0]
        until = _month_span(year + (first + 3 > 12), (first + 2) % 12 + 1)[0]
        return since, until, f"In {season} {year}"
    m = _RELATIVE.match(text)
    if m:
        rel = " ".join(m.group("rel").casefold().split())
        monday = today - timedelta(days=today.weekday())
        since, until = {"yesterday": (today - timedelta(days=1), today), "today": (today, today + timedelta(days=1)),
                        "this week": (monday, monday + timedelta(days=7)),
                        "last week": (monday - timedelta(days=7), monday),
                        "this month": _month_span(today.year, today.month),
                        "last month": _month_span(today.year - (today.month == 1), (today.month - 2) % 12 + 1),
                        "this year": _year_span(today.year), "last year": _year_span(today.year - 1)}[rel]
        return since, until, rel[:1].upper() + rel[1:]
    m = _ON_DAY.match(text)
    if m:
        try:  # a day given in full: two different defaults give the same date only when the text names all three
            a = dateparser.parse(m.group("day"), default=datetime(2001, 1, 1))
            b = dateparser.parse(m.group("day"), default=datetime(2002, 2, 2))
        except (ValueError, OverflowError):
            return None
        if a.date() != b.date():
            return None
        since = datetime(a.year, a.month, a.day, tzinfo=timezone.utc)
        return since, since + timedelta(days=1), f"On {day_text(since)}"
    return None


@dataclass
class PeriodQuestion:
    """A "what happened in June 2000?" question read (:func:`period_question`): how the answer names the period,
    and what the records of it hold (``app.operations.graph.Period``)."""

    label: str
    found: object = None


_KIND_WORDS = {"message": ("message", "messages"), "email": ("email", "emails"), "chat": ("chat message", "chat messages"), "photo": ("photo", "photos"),
               "voice": ("voice memo", "voice memos"), "contact": ("contact card", "contact cards")}


def _count(n: int, kind: str) -> str:
    one, many = _KIND_WORDS.get(kind, (kind, kind + "s"))
    return f"{n} {one if n == 1 else many}"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def period_answer(q: PeriodQuestion) -> MemoryAnswer:
    """"In June 2000: 14 records — 12 emails and 2 photos, mostly with Cristy (6) and Mark (5); photos at Arezzo
    (2); about “Font metrics” and “your mail”." — or that nothing is from then."""
    p = q.found
    if p is None or not p.records:
        then = q.label[3:] if q.label.startswith(("In ", "On ")) else q.label[:1].lower() + q.label[1:]
        return MemoryAnswer(f"I have nothing from {then}.", [], "when")
    kinds = sorted(p.kinds.items(), key=lambda kv: (-kv[1], kv[0]))
    what = _and([_count(n, k) for k, n in kinds])
    # one kind says the count itself ("6 chat messages", not "6 records — 6 chat messages")
    text = f"{q.label}: {what}" if len(kinds) == 1 else f"{q.label}: {_count(p.records, 'record')} — {what}"
    if p.people:
        text += ", mostly with " + _and([f"{name} ({n})" for name, n in p.people[:2]])
    if p.places:
        text += "; photos at " + _and([f"{name} ({n})" for name, n in p.places[:2]])
    if p.subjects:
        text += "; about " + _and([f"“{x}”" for x in p.subjects])
    began = [_fact_body(st) for st in getattr(p, "began", None) or []]
    if began:  # what changed then: "New then: Alex Morgan lives in Glasgow."
        text += ". New then: " + "; ".join(began)
    return MemoryAnswer(text + ".", [], "when")


def period_question(c, question: str) -> PeriodQuestion | None:
    """A :class:`PeriodQuestion` with what the records hold, when ``question`` asks what happened in a period
    (:func:`period_of`): "what happened in June 2000?", "what did I do last week?", "what was going on on 22
    October 2008?"; else None.  Reads only."""
    m = _PERIOD_Q.match(question or "")
    span = period_of(m.group("when")) if m else None
    if span is None and m:  # "what happened in June?": the latest June with records (:func:`_month_year_of`)
        span = _bare_month_span(c, m.group("when"), ())
    if span is None:
        return None
    from app.operations.graph import period

    since, until, label = span
    return PeriodQuestion(label, period(c, since, until))


_PLACES_Q = re.compile(r"^\s*(?:where\s+have\s+(?:i|we)\s+(?:been|travell?ed|gone)|(?:which|what)\s+places\s+(?:have|did)\s+"
                       r"(?:i|we)\s+(?:been\s+to|visit(?:ed)?|see|seen|go\s+to)|where\s+did\s+(?:i|we)\s+(?:travel|go)"
                       r"(?:\s+to)?|(?:list\s+)?(?:my|the)\s+places)(?P<rest>.*?)\s*[?!.]*\s*$", re.IGNORECASE)
_KIND_OF = (("email", re.compile(r"e-?mails?|mails?", re.I)), ("photo", re.compile(r"photos?|pictures?|pics?|images?|photographs?|snaps?|selfies?", re.I)),
            ("voice", re.compile(r"(?:voice\s+)?memos?|recordings?", re.I)),
            ("video", re.compile(r"videos?|vids?|clips?|movies?", re.I)),
            ("chat", re.compile(r"chat\s+messages?|texts?", re.I)), ("message", re.compile(r"messages?|notes?", re.I)))
_KINDS_OF = {"message": ("email", "chat")}  # a "message" is a mail or a chat message
_HOW_MANY = (
    re.compile(r"^\s*how\s+many\s+(?P<what>[\w\s-]+?)\s+(?:did|has|have)\s+(?P<name>.+?)\s+(?:send|sent|write|written|share|shared|post|posted|"
               r"forward|forwarded)(?:\s+(?:(?:to|with)\s+)?(?:me|us))?(?P<rest>.*?)\s*[?!.]*\s*$", re.IGNORECASE),
    re.compile(r"^\s*how\s+many\s+(?P<what>[\w\s-]+?)\s+(?:did|have)\s+(?:i|we)\s+(?:get|got|gotten|receive[d]?)\s+"
               r"from\s+(?P<name>.+?)(?P<rest>\s+(?:in|during|at|on)\s+.+?)?\s*[?!.]*\s*$", re.IGNORECASE),
    re.compile(r"^\s*how\s+many\s+(?P<what>photos?|pictures?|pics?|images?|photographs?|snaps?|selfies?|videos?|vids?|"
               r"clips?)\s+(?:did|have)\s+(?:i|we)\s+"
               r"(?:take|taken|took|shoot|shot|film|filmed|record|recorded|make|made)(?P<rest>.*?)\s*[?!.]*\s*$",
               re.IGNORECASE),
    # "how many photos do I have?", "how many emails are there from 2000?": every record of the kind
    re.compile(r"^\s*how\s+many\s+(?P<what>[\w\s-]+?)\s+(?:(?:do|did)\s+(?:i|we|you)\s+have|(?:are|were)\s+there|"
               r"(?:have|did)\s+(?:i|we)\s+(?:got|import(?:ed)?|kept|saved))\b(?P<rest>.*?)\s*[?!.]*\s*$",
               re.IGNORECASE))
_HOW_MANY_TO = re.compile(
    r"^\s*how\s+(?:many\s+(?P<what>[\w\s-]+?)|often)\s+(?:did|have|do)\s+(?:i|we)\s+(?P<verb>e-?mail(?:ed)?|"
    r"wr(?:ite|ote|itten)(?:\s+to)?|message[d]?|text(?:ed)?|sen[dt](?:\s+to)?)\s+(?P<name>.+?)"
    r"(?P<rest>\s+(?:in|during)\s+.+?)?\s*[?!.]*\s*$", re.IGNORECASE)
""""how many times did I email Marco?", "how often do I text Lena?", "how many emails did I send to Marco in 2024?"."""
_PLACE_IN = re.compile(r"\b(?:in|at)\s+(?P<place>(?!(?:19|20)\d\d\b)[A-Z][\w' -]*?)(?=\s+(?:in|during|on)\b|$)")


@dataclass
class Count:
    """A "how many emails did X send me?" / "how many photos did I take in Italy?" question read and counted:
    the record kind asked (``email``, ``photo``, …; None: any), the sender's name (None: the owner's photos),
    the place and year asked about, and the ``app.operations.graph.Tally``."""

    kind: str | None
    sender: str | None
    place: str | None
    year: int | None
    found: object = None
    have: bool = False  # "how many photos do I have?": what is held, not what the owner took
    to: str | None = None  # "how many times did I email Marco?": the owner's records to them
    period: str | None = None  # a span asked about other than a year ("in April 2023", "last year"), as said


@dataclass
class Places:
    """A "where have I been?" question: the year asked about (or None) and the places of the photos
    (``app.operations.graph.Tally.places``: name, photos, first day), most photos first."""

    year: int | None
    places: list = field(default_factory=list)
    label: str | None = None  # the period asked about, as an answer starts ("On 1 October 2022"), when not a year


@dataclass
class PhotoWhen:
    """A "when was my last photo?" / "when did I first take a photo?" question: ``which`` (``last`` or ``first``)
    and the ``app.operations.graph.Tally`` of the owner's photos."""

    which: str
    found: object = None
    kind: str = "photo"  # or "video"


_PHOTO_WHEN = re.compile(
    r"^\s*when\s+(?:(?:was|is)\s+my\s+(?P<which>last|latest|most\s+recent|first|earliest)\s+"
    r"(?P<what>photo|picture|pic|video|clip)"
    r"|did\s+(?:i|we)\s+(?P<which2>last|first)\s+(?:take|film|record|shoot)\s+(?:a\s+)?"
    r"(?P<what2>photo|picture|pic|video|clip)s?"
    r"|did\s+(?:i|we)\s+(?:take|film|record|shoot)\s+(?:my|our|the)\s+(?P<which3>last|latest|first|earliest)\s+"
    r"(?P<what3>photo|picture|pic|video|clip))\s*[?!.]*\s*$",
    re.IGNORECASE)
_PHOTOS_WHEN = re.compile(r"^\s*when\s+(?:did|do)\s+(?:i|we)\s+take\s+(?:(?:my|the|any|all)\s+)?(?:photos|pictures|pics)"
                          r"\s*[?!.]*\s*$", re.IGNORECASE)
_WHERE_WAS = re.compile(r"^\s*where\s+(?:was|were)\s+(?:i|we)\s+(?P<when>.+?)\s*[?!.]*\s*$", re.IGNORECASE)
"""'where was I on 1 October 2022?', '… in May 2023?', '… last week?': the places of the photos of that period."""


def _kind_of(what: str) -> str | None:
    return next((k for k, rx in _KIND_OF if rx.fullmatch((what or "").strip())), None)


def count_question(c, question: str):
    """A :class:`Count` or :class:`Places` when ``question`` asks how many records of a kind someone sent (or the
    owner took, somewhere), or where the owner has been (from the photos' places); the list of ``(id, name,
    kind)`` when the name fits several entities; else None.  Reads only."""
    from app.operations.graph import tally

    if _PHOTOS_WHEN.match(question or ""):  # "when did I take photos?": when the photos held were taken
        return Count("photo", None, None, None, tally(c, kinds=("photo",)))
    m = _PHOTO_WHEN.match(question or "")
    if m:  # "when was my last photo?": the day of the latest (earliest) photo held, not a message naming photos
        which = (m.group("which") or m.group("which2") or m.group("which3")).casefold()
        kind = "video" if (m.group("what") or m.group("what2") or m.group("what3")).casefold() in ("video", "clip") \
            else "photo"
        return PhotoWhen("first" if which in ("first", "earliest") else "last", tally(c, kinds=(kind,)), kind)
    m = _WHERE_WAS.match(question or "")
    span = period_of(m.group("when")) if m else None
    if span is None and m:  # "where was I in June?": the latest June with photos
        span = _bare_month_span(c, m.group("when"), ("photo",))
    if span is not None:  # each photo on its own calendar (where it was taken): app.operations.graph._live
        since, until, label = span
        return Places(None, tally(c, kinds=("photo",), since=since, until=until).places[:5], label)
    m = _PLACES_Q.match(question or "")
    if m:
        y = _YEAR.search(m.group("rest") or "")
        year = int(y.group(1)) if y else None
        since, until = _year_span(year)
        return Places(year, tally(c, kinds=("photo",), since=since, until=until).places[:5])
    m = _HOW_MANY_TO.match(question or "")
    if m:
        what = (m.group("what") or "").strip()
        kind = _kind_of(what) if what and not re.fullmatch(r"times?", what, re.I) else None
        if kind is None and re.match(r"e-?mail|text", m.group("verb"), re.I):
            kind = "chat" if m.group("verb").lower().startswith("text") else "email"
        if what and kind is None and not re.fullmatch(r"times?", what, re.I):
            return None
        from app.memory import owner_entity

        me = owner_entity(c)
        e = _entity_or_choices(c, m.group("name"))
        if not me or e is None or isinstance(e, list):
            return e if isinstance(e, list) else None
        y = _YEAR.search(m.group("rest") or "")
        year = int(y.group(1)) if y else None
        since, until = _year_span(year)
        kinds = _KINDS_OF.get(kind, (kind,)) if kind else ()
        found = tally(c, kinds=kinds, sender_id=me[0], recipient_id=e.id, since=since, until=until)
        if kind == "photo":  # "how many photos did I send Tom?": the chat lines whose file was not kept too
            found = _with_chat_photos(c, found, sender_id=me[0], recipient_id=e.id, since=since, until=until)
        return Count(kind or "message", None, None, year, found, to=e.canonical_name)
    for i, pattern in enumerate(_HOW_MANY):
        m = pattern.match(question or "")
        if not m:
            continue
        kind = _kind_of(m.group("what"))
        if kind is None and not re.fullmatch(r"\s*(?:records?|things?)\s*", m.group("what") or ""):
            return None
        rest = m.group("rest") or ""
        y = _YEAR.search(rest)
        year = int(y.group(1)) if y else None
        asked_by = None
        if i < 2:
            e = _entity_or_choices(c, m.group("name"))
            if e is None or isinstance(e, list):
                return e
            asked_by = e
        period = _counted_period(rest, lambda month: _month_year_of(
            c, month, _KINDS_OF.get(kind, (kind,)) if kind else (), asked_by.id if asked_by is not None else None))
        if period is not None:  # "in April 2023", "last year": that span, not a place named "April"
            rest = rest[:period[3]]
        pm = _PLACE_IN.search(rest.strip())
        if pm is None and kind in ("photo", "video"):  # "how many videos do I have from Montreal?": taken there
            pm = re.search(r"\bfrom\s+(?P<place>(?!(?:19|20)\d\d\b)[A-Z][\w' -]*?)(?=\s+(?:in|during|on)\b|$)",
                           rest.strip())
        place = pm.group("place").strip() if pm else None
        since, until = _year_span(year)
        sender = None
        sender_id = None
        if asked_by is not None:
            sender, sender_id = asked_by.canonical_name, asked_by.id
        if period is not None:
            since, until, label, _at = period
            year = None
        kinds = _KINDS_OF.get(kind, (kind,)) if kind else ()
        found = tally(c, kinds=kinds, sender_id=sender_id, place=place, since=since, until=until)
        if i == 2 and kind == "photo":  # "how many photos did I take?": not a sticker or photo a chat sent
            found = _taken(c, found, place=place, since=since, until=until)
        if kind == "photo" and sender_id is not None and place is None:  # a chat line that sent one, file not kept
            found = _with_chat_photos(c, found, sender_id=sender_id, since=since, until=until)
        return Count(kind, sender, place, year, found, i == 3, period=label if period is not None else None)
    return None


_COUNTED_SPAN = re.compile(r"\b(?:in|during|from)\s+(?:January|February|March|April|May|June|July|August|September|"
                           r"October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\b\.?"
                           r"(?:\s+(?:19|20)\d\d)?|\b(?:last|this)\s+(?:year|month|week)\b|\b(?:last|this)\s+(?:January|"
                           r"February|March|April|May|June|July|August|September|October|November|December)\b",
                           re.IGNORECASE)
_LAST_MONTH_NAMED = re.compile(r"^(?P<which>last|this)\s+(?P<month>[a-z]+)$", re.IGNORECASE)


_BARE_MONTH = re.compile(r"^(?:in|during|from)\s+(?P<month>[a-z]+)\.?$", re.IGNORECASE)


def _counted_period(rest: str, year_of=None) -> tuple | None:
    """``(since, until, label, where it starts in rest)`` of a span a count asks about that is not a bare year ("in
    April 2023", "last year": :func:`period_of`), or None.  A month without its year ("in June") is that month of
    the year ``year_of(month)`` gives (:func:`_month_year_of`), said in the label ("In June 2024")."""
    m = _COUNTED_SPAN.search(rest or "")
    if m is None:
        return None
    bare = _BARE_MONTH.match(m.group(0).strip())
    named = _LAST_MONTH_NAMED.match(m.group(0).strip())
    if named and named.group("month").casefold() in _MONTH_NAMES:  # "last June": the latest June gone by
        month, now = _MONTH_NAMES[named.group("month").casefold()], clock.now()
        if named.group("which").casefold() == "this":
            year = now.year
        else:
            year = now.year if _month_span(now.year, month)[1] <= now else now.year - 1
        since, until = _month_span(year, month)
        return since, until, f"In {calendar.month_name[month]} {year}", m.start()
    word = bare.group("month").casefold().replace("sept", "sep") if bare else ""
    if bare and year_of is not None and word in _MONTH_NAMES:
        month = _MONTH_NAMES[word]
        year = year_of(month)
        since, until = _month_span(year, month)
        return since, until, f"In {calendar.month_name[month]} {year}", m.start()
    span = period_of(m.group(0))
    return (span[0], span[1], span[2], m.start()) if span is not None else None


_PHOTO_FILE = re.compile(r"(?i)\.(?:jpe?g|png|heic|heif|webp|gif|bmp|tiff?)$")
_NOT_A_PHOTO_FILE = re.compile(r"(?i)\bSTK-|STICKER|\bVID-|VIDEO|AUDIO|PTT-|\.(?:mp4|mov|3gp|opus|ogg|m4a|pdf)$")


def _chat_photos(c, *, sender_id: int | None, recipient_id: int | None = None, since=None, until=None):
    """``(count, first, last)`` of the chat lines that sent a photo whose file is not among the records: a
    WhatsApp line whose media the export left out ("<Media omitted>", "image omitted": ``attrs["media"]`` is
    "omitted", no document name) or whose photo file was not imported ("IMG-20190101-WA0001.jpg (file attached)",
    "<attached: 00000012-PHOTO-….jpg>" with no such file: stored as "[attached: …]").  A line whose file was
    imported is its photo record already (counted there).  Reads only."""
    from sqlmodel import select

    from app.operations.graph import _live, _offsets
    from core.store.schema import Record

    live = _live(since=since, until=until, kinds=("chat",), sender_id=sender_id, recipient_id=recipient_id,
                 offsets=_offsets(c) if since or until else None)
    n, first, last, names = 0, None, None, []
    with c.db.session() as s:
        for rid, attrs, sent in s.exec(select(Record.id, Record.attrs, Record.sent_at).where(Record.id.in_(live))):
            media = (attrs or {}).get("media")
            if media == "omitted":
                if (attrs or {}).get("media_name"):
                    continue  # "Trip plan.pdf • 3 pages document omitted": a document
            elif isinstance(media, str) and _PHOTO_FILE.search(media) and not _NOT_A_PHOTO_FILE.search(media):
                names.append((media.replace("\\", "/").rsplit("/", 1)[-1], sent))
                continue
            else:
                continue
            n, first, last = n + 1, min(first or sent, sent), max(last or sent, sent)
        if names:
            from sqlalchemy import or_

            held = {x.replace("\\", "/").rsplit("/", 1)[-1] for x in s.exec(select(Record.external_id).where(
                Record.kind == "photo", Record.tombstoned_at.is_(None),
                or_(Record.external_id.in_([x for x, _ in names]), Record.external_id.like("%/%")))).all()}
            # (a file in a folder of the export, "Media/IMG-….jpg", is the line's too)
            for name, sent in names:
                if name not in held:
                    n, first, last = n + 1, min(first or sent, sent), max(last or sent, sent)
    return n, clock.ensure_utc(first), clock.ensure_utc(last)


_CHAT_ATTACHED = re.compile(r"(?i)(?:^|[/\\])(?:i?messages?|attachments|stickers?)[/\\]|(?:^|[/\\])(?:STK-|[^/\\]*sticker)[^/\\]*$")
"""A photo file a chat sent: one in an iMessage/Messages or attachments folder, or a sticker by its name."""


def _taken(c, t, *, place=None, since=None, until=None):
    """The ``Tally`` ``t`` of photo records less those the owner did not take: one another person sent (its
    sender not the owner) or a chat's file (:data:`_CHAT_ATTACHED`: a sticker, an iMessage attachment)."""
    from sqlmodel import select

    from app.memory import owner_entity
    from app.operations.graph import _live, _offsets, tally_of
    from core.store.schema import Record, Source

    me = owner_entity(c)
    live = _live(since=since, until=until, kinds=("photo",), offsets=_offsets(c) if since or until else None)
    with c.db.session() as s:
        drop = [rid for rid, sender, path, ext in s.exec(
            select(Record.id, Record.sender_entity_id, Source.path, Record.external_id)
            .join(Source, Source.id == Record.source_id).where(Record.id.in_(live)))
            if (sender is not None and (not me or sender != me[0])) or _CHAT_ATTACHED.search(path or "")
            or _CHAT_ATTACHED.search(ext or "")]
        if not drop:
            return t
        return tally_of(s, live.where(Record.id.not_in(drop)), place)


def _with_chat_photos(c, t, **kw):
    """The ``Tally`` ``t`` of photo records with the chat lines that sent a photo not among them
    (:func:`_chat_photos`) added; their number as ``t.unexported``."""
    import dataclasses

    n, first, last = _chat_photos(c, **kw)
    if not n:
        return t
    firsts = [x for x in (clock.ensure_utc(t.first) if t.records else None, first) if x is not None]
    lasts = [x for x in (clock.ensure_utc(t.last) if t.records else None, last) if x is not None]
    out = dataclasses.replace(t, records=t.records + n, first=min(firsts) if firsts else None,
                              last=max(lasts) if lasts else None)
    out.unexported = n
    return out


def _bare_month_span(c, when: str, kinds: tuple) -> tuple | None:
    """``(since, until, "In June 2024")`` when ``when`` names a month without its year ("in June", "during
    Sept."): that month of the year :func:`_month_year_of` gives for records of ``kinds``; else None."""
    got = _counted_period(" ".join((when or "").split()), lambda month: _month_year_of(c, month, kinds))
    if got is None or got[3] != 0 or not _BARE_MONTH.match(" ".join(when.split())):
        return None
    return got[0], got[1], got[2]


def _month_year_of(c, month: int, kinds: tuple = (), sender_id: int | None = None) -> int:
    """The year "in June" means in a count: the latest June that has begun by now and holds records of ``kinds``
    (sent by ``sender_id``; this June while it is going on, when it holds some), else the latest June that has
    begun (this year's once it has started, last year's before)."""
    from app.operations.graph import tally

    now = clock.now()
    latest = now.year if month <= now.month else now.year - 1
    lines = kinds == ("photo",) and sender_id is not None  # a chat line that sent a photo is one too
    t = tally(c, kinds=kinds, sender_id=sender_id)
    if lines:
        t = _with_chat_photos(c, t, sender_id=sender_id)
    if t.records and t.first and t.last:
        for year in range(min(latest, t.last.year), t.first.year - 1, -1):
            since, until = _month_span(year, month)
            if tally(c, kinds=kinds, sender_id=sender_id, since=since, until=until).records or \
                    lines and _chat_photos(c, sender_id=sender_id, since=since, until=until)[0]:
                return year
    return latest


def _year_span(year: int | None) -> tuple[datetime | None, datetime | None]:
    if year is None:
        return None, None
    return datetime(year, 1, 1, tzinfo=timezone.utc), datetime(year + 1, 1, 1, tzinfo=timezone.utc)


def count_answer(q) -> MemoryAnswer:
    """"Cristy sent you 7 emails, from June 2000 to October 2000." / "You took 2 photos in Italy, on 22 October
    2008 (Arezzo, Tuscany, Italy)." / "From your photos, you've been to Arezzo, Tuscany, Italy (2 photos, first on
    22 October 2008) and …"."""
    if isinstance(q, PhotoWhen):
        t = q.found
        when = t.last if q.which == "last" else t.first
        if not t.records or when is None:
            return MemoryAnswer(f"I have no {q.kind} with a known time." if t.records else f"You have no {q.kind}s.",
                                [], "when")
        return MemoryAnswer(f"Your {q.which} {q.kind} was taken on {day_text(when)} ({_count(t.records, q.kind)} in "
                            f"all).", [], "when")
    if isinstance(q, Places) and q.label:
        if not q.places:
            then = q.label[3:] if q.label.startswith(("In ", "On ")) else q.label[:1].lower() + q.label[1:]
            return MemoryAnswer(f"I have no photo with a known place from {then}.", [], "where")
        one_day = q.label.startswith("On ")
        parts = [f"{name} ({_count(n, 'photo')}" + ("" if one_day or not first else
                                                   f", {'on' if n == 1 else 'first on'} {day_text(first)}") + ")"
                 for name, n, first in q.places]
        return MemoryAnswer(f"{q.label}, you were in {_and(parts)}.", [], "where")
    if isinstance(q, Places):
        scope = f" in {q.year}" if q.year else ""
        if not q.places:
            return MemoryAnswer(f"None of your photos{scope} has a place I know.", [], "where")
        parts = [f"{name} ({_count(n, 'photo')}, {'on' if n == 1 else 'first on'} {day_text(first)})"
                 if first else f"{name} ({n})" for name, n, first in q.places]
        return MemoryAnswer(f"From your photos{scope}, you've been to {_and(parts)}.", [], "where")
    t = q.found
    what = _count(t.records, q.kind or "record")
    where = f" in {q.place}" if q.place else ""
    when = f" {q.period[:1].lower()}{q.period[1:]}" if q.period else f" in {q.year}" if q.year else ""
    span = "," + _span(t.first, t.last) if t.records and t.first and t.last else ""
    if span and when and span[1:].strip() == when.strip():  # "in June 2024, in June 2024": the days, not the month
        span = f", from {day_text(t.first)} to {day_text(t.last)}"
    places = ""
    if q.place and t.places:
        places = " (" + _and([name for name, _n, _first in t.places[:3]]) + ")"
    gone = getattr(t, "unexported", 0)
    if gone:  # "<Media omitted>": a photo sent, its file not in the export
        span += (" (the export left its file out)" if t.records == 1 else " (the export left their files out)") \
            if gone == t.records else f" ({gone} of them without {'its' if gone == 1 else 'their'} file: the export " \
                                      f"left {'it' if gone == 1 else 'them'} out)"
    if q.sender:
        return MemoryAnswer(f"{q.sender} sent you {what}{where}{when}{span}.", [], "other")
    if q.to:
        return MemoryAnswer(f"You sent {q.to} {what}{when}{span}.", [], "other")
    verb = "have" if q.have or q.kind not in ("photo", "video") else "took"
    return MemoryAnswer(f"You {verb} {what}{where}{when}{span}{places}.", [], "other")


_GREETING = re.compile(r"^\s*(?:hi|hello|hey|hiya|howdy|yo|good\s+(?:morning|afternoon|evening)|what(?:'s|’s|\s+is)\s+up|"
                       r"how\s+are\s+you(?:\s+doing)?|how's\s+it\s+going)\b[\s,!.?]*(?:kith|there)?[\s!.?]*$",
                       re.IGNORECASE)
_THANKS = re.compile(r"^\s*(?:thanks|thank\s+you|thx|cheers|ty)\b(?:\s+\w+){0,3}[\s!.]*$", re.IGNORECASE)
_HELP = re.compile(r"^\s*(?:help|what\s+can\s+(?:you\s+do|i\s+ask(?:\s+you)?)|how\s+does\s+(?:this|it|kith)\s+work|"
                   r"how\s+do\s+i\s+use\s+(?:this|you|kith))\s*[?!.]*\s*$", re.IGNORECASE)


_CENSUS = re.compile(r"^\s*how\s+many\s+(?:people|persons|contacts|friends|places|records|messages|things)\s+(?:do|did|have)\s+"
                     r"(?:i|you|we)\s+(?:know|have|hold|got|met|stored?|kept)(?:\s+(?:about|of|in\s+(?:here|memory|"
                     r"my\s+records)))?\s*[?!.]*\s*$|^\s*how\s+many\s+(?:people|persons|contacts|places)\s+are\s+(?:there|in\s+"
                     r"(?:my\s+records|memory|here))\s*[?!.]*\s*$", re.IGNORECASE)
""""How many people do I know?", "how many places are in my records?", "how many records do you have?": what
Kith holds, in figures (:func:`app.operations.graph.overview`)."""


@dataclass
class SmallTalk:
    """A greeting, a thanks, a request for help or "how many people do I know?" (:func:`small_talk`), with what Kith holds
    (``app.operations.graph.Overview``) for the greeting's and the help's examples."""

    kind: str
    overview: object = None


def small_talk(c, question: str) -> SmallTalk | None:
    """:class:`SmallTalk` for "hello", "thanks!", "what can you do?", "help"; else None.  Reads only."""
    q = question or ""
    kind = "hello" if _GREETING.match(q) else "thanks" if _THANKS.match(q) else "help" if _HELP.match(q) else \
        "census" if _CENSUS.match(q) else None
    if kind is None:
        return None
    if kind == "thanks":
        return SmallTalk(kind)
    from app.operations.graph import overview

    return SmallTalk(kind, overview(c))


def small_talk_answer(t: SmallTalk) -> MemoryAnswer:
    """The reply to :func:`small_talk`: "You're welcome."; or what Kith holds and three questions to ask of it."""
    if t.kind == "thanks":
        return MemoryAnswer("You're welcome.", [], "other")
    o = t.overview
    hello = "Hello! " if t.kind == "hello" else ""
    if o is None or not o.records:
        return MemoryAnswer(f"{hello}I don't hold anything yet: drop chat exports, mail, photos or voice memos on the "
                            "window (or run `kith ingest PATH`), then ask me about the people, places and events in "
                            "them.", [], "other")
    held = f"{_count(o.records, 'record')} about {o.people} {'person' if o.people == 1 else 'people'}" + \
        (f" and {_count(o.places, 'place')}" if o.places else "")
    if t.kind == "census":
        most = f" You're most in touch with {_and(o.top_people)}." if o.top_people else ""
        return MemoryAnswer(f"I hold {held}.{most}", [], "other")
    examples = [f"“who is {o.top_people[0]}?”"] if o.top_people else []
    if o.top_places:
        examples.append(f"“when was I in {o.top_places[0].split(',')[0]}?”")
    examples.append("“who do I talk to most?”")
    return MemoryAnswer(f"{hello}I hold {held}, all on this computer. Ask me, for example, {_and(examples)}; "
                        "I answer from your own records and cite them.", [], "other")


# ------------------------------------------------------------------------------------------ stop 27 readers

_EVER_Q = re.compile(r"^\s*(?:did|does|do|has|have|had|is|was)\s+(?P<name>.+?)\s+(?P<adv>(?:ever|once|still|really|"
                     r"always|previously|at\s+some\s+point|at\s+one\s+point)\s+)?(?:been\s+)?(?P<verb>live|lives|lived|"
                     r"living|work|works|worked|working)\s+(?:in|at|for)\s+(?P<place>.+?)\s*[?!.]*\s*$", re.IGNORECASE)
"""A yes/no question whether someone lives or works somewhere, now or ever ("did Maya ever live in Paris?", "does
Nora still work at Acme?", "have I ever lived in Lisbon?")."""
_MOVED = re.compile(r"\b(?:live[sd]?|living|moved|moving|move|relocat\w*|settled|home|flat|apartment|house|"
                    r"(?:work|works|worked|working)\s+(?:at|for|in)|job|joined|started)\b", re.IGNORECASE)


@dataclass
class EverHeld:
    """A "did Maya ever live in Paris?" / "does Nora still work at Acme?" question: whom it asks about (``name``;
    "you": the owner; None when no one known is called that), ``work`` (else where they live), the ``place`` asked
    about, ``still`` (asked of now), the facts of the kind (``app.operations.graph.held``, earliest first), the
    ones whose place is the one asked (``matching``) and the answer's evidence record (``result``)."""

    name: str | None
    work: bool
    place: str
    still: bool
    held: list = field(default_factory=list)
    matching: list = field(default_factory=list)
    result: object = None
    sender: str | None = None  # the name on their records (the owner's own name for "you")


def _names_place(value: str, place: str) -> bool:
    """True when the held place ``value`` ("Paris, Montmartre", "Acme Corp") is the ``place`` asked ("Paris",
    "acme"): every word asked is one of its words."""
    want = set(lexicon.tokens(place))
    return bool(want) and want <= set(lexicon.tokens(value))


def ever_held_question(c, question: str):
    """An :class:`EverHeld` when ``question`` asks yes or no whether someone lives (lived) or works (worked) at a
    place; the list of ``(id, name, kind, hint)`` when the name fits several; None for any other question.
    Reads only."""
    m = _EVER_Q.match(question or "")
    if not m:
        return None
    from app.operations.graph import held

    who = re.sub(r"^(?:the|a|an)\s+", "", m.group("name").strip(), flags=re.IGNORECASE)
    place = re.sub(r"^(?:the)\s+", "", m.group("place").strip(), flags=re.IGNORECASE)
    work = m.group("verb").casefold().startswith("work")
    still = (m.group("adv") or "").strip().casefold() == "still" or \
        m.group(0).split()[0].casefold() in ("does", "do", "is")  # asked of now
    if who.casefold() in ("i", "we"):
        from app.memory import owner_entity

        me = owner_entity(c)
        if not me:
            return EverHeld(None, work, place, still)
        eid, name, sender = me[0], "you", me[1]
    else:
        e = _entity_or_choices(c, who)
        if isinstance(e, list):
            return e
        if e is None:
            return EverHeld(None, work, place, still)
        eid, name = e.id, e.canonical_name
        sender = name
    found = held(c, eid, *(("work", "employment", ("employer",)) if work else ("places", "residence")))
    q = EverHeld(name, work, place, still, found, [h for h in found if _names_place(h.value, place)], sender=sender)
    if q.matching and q.matching[-1].evidence:
        q.result = _as_result(c, q.matching[-1].evidence[-1])
    return q


def ever_held_answer(q: EverHeld, results: Sequence[Any]) -> MemoryAnswer:
    """"Yes — Maya Cole lived in Paris from February 2018 to August 2020." / "No — Nora Vale worked at Acme from
    March 2020 to February 2022; now Nora works at Globex." / "Nothing in your records says Maya Cole ever lived in
    Rome; I know of …"
    — from the facts' valid times, or from a message of theirs among ``results`` that says it; citing the evidence
    only, never a line that does not say it."""
    if q.name is None:
        return MemoryAnswer(NOTHING, [], "other", True)
    you = q.name == "you"
    who = "you" if you else q.name
    verb_now, verb_then = ("work at", "worked at") if q.work else ("live in", "lived in")
    now = verb_now if you else {"work at": "works at", "live in": "lives in"}[verb_now]
    if q.matching:
        x = q.matching[-1]
        rid = q.result.record_id if q.result is not None else None
        cited = [n for n, r in enumerate(results, 1) if rid is not None and _get(r, "record_id") == rid][:1]
        if x.current:
            since = f" (since {month_year(x.valid_from)})" if x.valid_from else ""
            return MemoryAnswer(f"Yes — {who} {now} {x.value}{since}. {_cite(cited)}".strip(), cited, "other")
        span = _held_span(x)
        text = f"{who} {verb_then} {x.value}" + (f" {span}" if span else "")
        cur = next((h for h in reversed(q.held) if h.current), None)
        if q.still:
            later = f"; now {'you' if you else who.split()[0]} {now} {cur.value}" if cur is not None else ""
            return MemoryAnswer(f"No — {text}{later}. {_cite(cited)}".strip(), cited, "other")
        return MemoryAnswer(f"Yes — {text}. {_cite(cited)}".strip(), cited, "other")
    # no fact of it: their own message that says they live (moved, work) there
    want = set(lexicon.tokens(q.place))
    for n, r in enumerate(results, 1):
        if _get(r, "kind") not in ("record",) or not want:
            continue
        if not q.sender or (_get(r, "sender") or "") != q.sender:
            continue
        text, subject = _get(r, "text") or "", _get(r, "subject")
        body = text[len(subject):] if subject and text.startswith(subject) else text
        said = next((s for s in own_sentences(body) if want <= set(lexicon.tokens(s)) and _MOVED.search(s)), None)
        if said:
            day = _local_when(r)
            on = f" on {day_text(day)}" if day else ""
            by = "You" if you else q.name
            return MemoryAnswer(f"{by} wrote{on}: “{said.strip()}” {_cite([n])}", [n], "other")
    verb = verb_then.split()[0]
    text = f"Nothing in your records says {who} ever {verb} {verb_then.split()[1]} {q.place}"
    known = [f"{h.value} ({_held_span(h)})" if _held_span(h) else h.value for h in q.held[-4:]]
    return MemoryAnswer(text + (f"; I know of {_and(known)}." if known else "."), [], "other")


_JOB_Q = re.compile(
    r"^\s*(?:what(?:['’]s|\s+is|\s+was)\s+(?P<n1>.+?)['’]s?\s+(?:current\s+|main\s+|day\s+)?"
    r"(?:job(?:\s+title)?|"
    r"occupation|profession|line\s+of\s+work|work|trade|role|position|career)"
    r"|what\s+(?:does|did)\s+(?P<n2>.+?)\s+do\s+(?:for\s+(?:a\s+living|work|a\s+job|money)|professionally)"
    r"|what\s+(?:does|do)\s+(?P<n4>.+?)\s+do"
    r"|what\s+(?:job|work|kind\s+of\s+(?:work|job))\s+(?:does|did|do)\s+(?P<n3>.+?)\s+(?:do|have)"
    r"|what(?:['’]s|\s+is|\s+was)\s+(?P<n5>my)\s+(?:current\s+|main\s+|day\s+)?(?:job(?:\s+title)?|occupation|"
    r"profession|line\s+of\s+work|trade))\s*[?!.]*\s*$",
    re.IGNORECASE)
""""what is Tom's job?", "what's Nora's occupation?", "what does Tom do (for a living)?", "what job does Tom have?"."""


@dataclass
class JobQuestion:
    """A "what is Tom's job?" question: whom it asks about (``name``; "you": the owner; None: no one known is
    called that), their employers (``app.operations.graph.held``, earliest first), their job titles (a signature's or
    a contact card's) and the record that says it (``result``: the current fact's evidence, else their latest own
    message that talks of their work)."""

    name: str | None
    held: list = field(default_factory=list)
    titles: list = field(default_factory=list)
    result: object = None


def job_question(c, question: str):
    """A :class:`JobQuestion` when ``question`` asks what someone's job is; the list of ``(id, name, kind,
    hint)`` when the name fits several; None for any other question.  Reads only."""
    m = _JOB_Q.match(question or "")
    if not m:
        return None
    who = next(g for g in (m.group("n1"), m.group("n2"), m.group("n3"), m.group("n4"), m.group("n5"))
               if g is not None).strip()
    who = re.sub(r"['’]s?$", "", re.sub(r"^(?:the|a|an)\s+", "", who, flags=re.IGNORECASE)).strip()
    if who.casefold() in ("you", "your", "it", "this", "that", "he", "she", "they", "his", "her", "their"):
        return None
    from app.operations.graph import held

    if who.casefold() in ("i", "my", "me", "we", "our"):
        from app.memory import owner_entity

        me = owner_entity(c)
        if not me:
            return JobQuestion(None)
        eid, name = me[0], "you"
    else:
        e = _entity_or_choices(c, who)
        if isinstance(e, list):
            return e
        if e is None:  # "what does the button do?" is no one's job: recall answers it
            return None if m.group("n4") is not None else JobQuestion(None)
        eid, name = e.id, e.canonical_name
    work = held(c, eid, "work", "employment", ("employer", "title"))
    q = JobQuestion(name, [h for h in work if h.key == "employer"], [h for h in work if h.key == "title"])
    x = next((h for h in reversed(q.held) if h.current), q.held[-1] if q.held else None)
    x = x or next((h for h in reversed(q.titles) if h.current), None)
    if x is not None and x.evidence:
        q.result = _as_result(c, x.evidence[-1])
    elif not q.held:
        q.result = _work_record(c, eid)
    return q


def _work_record(c, entity_id: int):
    """The latest of the last 200 live records ``entity_id`` sent that talks of its own work in its own words
    ("I work as a carpenter now"), as an ``AskResult``, or None."""
    from sqlmodel import select

    from core.store.schema import Record

    with c.db.session() as s:
        rows = s.exec(select(Record.id, Record.subject, Record.text)
                      .where(Record.sender_entity_id == entity_id, Record.tombstoned_at.is_(None))
                      .order_by(Record.sent_at.desc(), Record.id.desc()).limit(200)).all()
    for rid, subject, text in rows:
        body = text or ""
        if subject and body.startswith(subject):
            body = body[len(subject):]
        if any(_TALKS_OF_WORK.search(s) and _FIRST_PERSON.search(s) for s in own_sentences(body)):
            return _as_result(c, rid)
    return None


def job_answer(q: JobQuestion, results: Sequence[Any], owner: str | None = None) -> MemoryAnswer:
    """"Nora Vale works at Globex (since February 2022)." / "Tom Hill works as a carpenter now, mostly kitchens"
    (their own words, when no fact says it) / "Nothing in your records says what Tom Hill's job is." — citing the
    record it rests on when it is among ``results``."""
    if q.name is None:
        return MemoryAnswer(NOTHING, [], "other", True)
    rid = q.result.record_id if q.result is not None else None
    cited = [n for n, r in enumerate(results, 1) if rid is not None and _get(r, "record_id") == rid][:1]
    you = q.name == "you"
    x = next((h for h in reversed(q.held) if h.current), None)
    title = next((h for h in reversed(q.titles) if h.current), None)
    if x is not None:
        verb = "work at" if you else "works at"
        since = f" (since {month_year(x.valid_from)})" if x.valid_from else ""
        who = "You" if you else q.name
        if title is not None:  # "Jane Doe is Head of Finance at Acme Ltd (since March 2024)."
            verb = f"{'are' if you else 'is'} {title.value} at"
        return MemoryAnswer(f"{who} {verb} {x.value}{since}. {_cite(cited)}".strip(), cited, "other")
    if title is not None and not q.held:
        whose = "Your" if you else f"{q.name}'s"
        return MemoryAnswer(f"{whose} job title is {title.value}. {_cite(cited)}".strip(), cited, "other")
    if q.held:
        last = q.held[-1]
        who = "You" if you else q.name
        until = f" until {month_year(last.valid_to)}" if last.valid_to else ""
        return MemoryAnswer(f"{who} worked at {last.value}{until}; nothing in your records says where since. "
                            f"{_cite(cited)}".strip(), cited, "other")
    if q.result is not None:
        r = q.result
        text, subject = _get(r, "text") or "", _get(r, "subject")
        body = text[len(subject):] if subject and text.startswith(subject) else text
        said = next((s for s in own_sentences(body) if _TALKS_OF_WORK.search(s) and _FIRST_PERSON.search(s)), body)
        speaker = _get(r, "sender")
        return MemoryAnswer(f"{best_sentence('work job', said, speaker, owner=owner)} {_cite(cited)}".strip(),
                            cited, "other")
    whose = "your" if you else f"{q.name}'s"
    return MemoryAnswer(f"Nothing in your records says what {whose} job is.", [], "other")


_MOST_SENT = re.compile(r"^\s*(?:who\s+(?:has\s+|had\s+)?(?:sent|sends|send|shared|shares|share|forwarded|forwards)"
                        r"(?:\s+(?:me|us))?\s+(?:the\s+)?most\s+(?P<what>[\w\s-]+?)"
                        r"|(?:from\s+)?who(?:m)?\s+(?:did|do|have)\s+(?:i|we)\s+(?:get|got|gotten|receive[d]?)\s+"
                        r"(?:the\s+)?most\s+(?P<what2>[\w\s-]+?)(?:\s+from)?)"
                        r"(?:\s+(?:to\s+me|with\s+me|on\s+\w+))?\s*[?!.]*\s*$", re.IGNORECASE)
""""who sent me the most photos?", "who shares the most pictures?", "who did I get the most videos from?"."""


@dataclass
class MostSent:
    """A "who sent me the most photos?" question: the record ``kind`` asked (photo, video, voice)
    and ``ranking``: ``(name, count)`` of each sender but the owner, most first (a photo: its record, or a chat
    line that sent one whose file the export left out)."""

    kind: str
    ranking: list = field(default_factory=list)


def most_sent_question(c, question: str) -> MostSent | None:
    """A :class:`MostSent` when ``question`` asks who sent the owner the most photos (media), videos or voice memos;
    else None (mail and messages: who wrote most, :func:`in_touch_question`).  Reads only."""
    m = _MOST_SENT.match(question or "")
    if not m:
        return None
    what = (m.group("what") or m.group("what2") or "").strip().casefold()
    kind = "photo" if what in ("media", "attachments") else _kind_of(what)
    if kind not in ("photo", "video", "voice"):  # mail and messages: who wrote to the owner most (InTouch)
        return None
    from sqlmodel import select

    from app.memory import owner_entity
    from app.operations.graph import tally
    from core.store.schema import Entity, Record

    me = owner_entity(c)
    mine = me[0] if me else None
    kinds = _KINDS_OF.get(kind, (kind,))
    with c.db.session() as s:
        rows = s.exec(select(Record.sender_entity_id, Entity.canonical_name)
                      .join(Entity, Entity.id == Record.sender_entity_id)
                      .where(Record.tombstoned_at.is_(None), Record.sender_entity_id.is_not(None),
                             Record.kind.in_(kinds + (("chat",) if kind == "photo" else ())),
                             Entity.kind == "person", Entity.tombstoned_at.is_(None)).distinct()).all()
    ranking = []
    for eid, name in rows:
        if eid == mine:
            continue
        n = tally(c, kinds=kinds, sender_id=eid).records
        if kind == "photo":
            n += _chat_photos(c, sender_id=eid)[0]
        if n:
            ranking.append((name, n))
    ranking.sort(key=lambda x: (-x[1], x[0]))
    return MostSent(kind, ranking)


def most_sent_answer(q: MostSent) -> MemoryAnswer:
    """"Ben Carter sent you the most photos: 4; then Tom Hill (2)." — or that no one sent any."""
    plural = _KIND_WORDS.get(q.kind, (q.kind, q.kind + "s"))[1]
    if not q.ranking:
        return MemoryAnswer(f"No one has sent you {plural} that I know of.", [], "who")
    top = q.ranking[0][1]
    first = [name for name, n in q.ranking if n == top]
    rest = [f"{name} ({n})" for name, n in q.ranking if n != top][:2]
    each = " each" if len(first) > 1 else ""
    text = f"{_and(first)} sent you the most {plural}: {top}{each}"
    return MemoryAnswer(text + (f"; then {_and(rest)}." if rest else "."), [], "who")


@dataclass
class Recalled:
    """No graph answer: the answer comes from what recall found.  ``addressees(record_id)`` names whom a record
    was written to (its recipients or the chat's other members, the owner left out), so that the owner's own
    "come to your place" is told back as "come to Ben Carter's place"."""

    addressees: Callable[[int], list]


def _addressees(c, record_id: int) -> list:
    """The names of whom record ``record_id`` was written to (``to``, ``cc`` and a chat's ``member`` roles), the
    owner left out; [] when unknown."""
    from sqlmodel import select

    from app.memory import owner_entity
    from core.store.schema import Entity, RecordEntity

    if not record_id:
        return []
    me = owner_entity(c)
    with c.db.session() as s:
        rows = s.exec(select(Entity.id, Entity.canonical_name).join(RecordEntity, RecordEntity.entity_id == Entity.id)
                      .where(RecordEntity.record_id == record_id, RecordEntity.role.in_(("to", "cc", "member")),
                             Entity.tombstoned_at.is_(None))).all()
    return sorted({name for eid, name in rows if not me or eid != me[0]})


def about_subject(question: str) -> str | None:
    """The name a "who is X?" question asks about ("who is / who's / who was X", "what is X", "tell me about X",
    "what do you know about X"), without a leading article; None for any other question."""
    m = _ABOUT.match(question or "")
    if not m:
        return None
    name = re.sub(r"^(?:the|a|an)\s+", "", m.group("name").strip(), flags=re.IGNORECASE).strip()
    return None if not name or name.casefold() in _NOT_A_NAME else name


def about_question(c, question: str, as_of: datetime | None = None):
    """What the knowledge graph answers of ``question``, for the memory answerer (:func:`memory_answer`), or a
    :class:`Recalled` when it is not a question the graph answers (the answer then comes from recalled turns; the
    :class:`Recalled` names whom the owner's own messages were written to).  Reads only.

    * small talk ("hello", "thanks", "what can you do?"): a :class:`SmallTalk`;
    * "when did I last hear from X?", "what is X's email address?": a :class:`LastContact` / :class:`Reach`
      (:func:`contact_question`);
    * "what did X say?" (no topic): a :class:`Said`;
    * "where does X live / work (in 2022, before Madrid)?": a :class:`HeldQuestion` (``as_of``: asked as of then);
    * "who is X's boss?", "who is my sister?": a :class:`RelativeQuestion`;
    * "what happened in June 2000?": a :class:`PeriodQuestion`;
    * "how many emails did X send me?", "where have I been?": a :class:`Count` / :class:`Places`;
    * "who do I talk to most?": an :class:`InTouch` with the people found (``graph.most_in_touch``);
    * "who is X?" ("who am I?": the owner): an ``app.operations.graph.About``;
    * "did Maya ever live in Paris?": an :class:`EverHeld`; "what is Tom's job?": a :class:`JobQuestion`;
    * "who sent me the most photos?": a :class:`MostSent`;
    * the list of ``(id, name, kind)`` when a name asked about fits several entities.
    """
    got = _about_question(c, question, as_of)
    return Recalled(lambda record_id: _addressees(c, record_id)) if got is None else got


def _about_question(c, question: str, as_of: datetime | None = None):
    """:func:`about_question`, None where it is not a question the graph answers."""
    from app.operations.graph import about

    question = as_typed(question)
    for read in (small_talk, contact_question, said_question, held_question, ever_held_question, job_question,
                 relative_question, period_question, count_question, most_sent_question):
        got = read(c, question) if read is not held_question else read(c, question, as_of)
        if got is not None:
            return got
    touch = in_touch_question(question)
    if touch is not None:
        from app.operations.graph import most_in_touch

        since, until = touch.span or _year_span(touch.year)
        touch.people = most_in_touch(c, channels=touch.channels, since=since, until=until,
                                     roles=("from",) if touch.senders else None)
        return touch
    name = about_subject(question)
    ref: str | int | None = name
    if name is None and _WHO_AM_I.match(question or ""):
        from app.memory import owner_entity

        me = owner_entity(c)
        ref = me[0] if me else None
    if ref is None:
        return None
    e = _entity_or_choices(c, ref)
    if e is None or isinstance(e, list):
        return e
    found = about(c, e.id)
    found.result = _own_record(c, e.id)
    return found


def _own_record(c, entity_id: int):
    """The latest of the last 20 live records ``entity_id`` sent that says something in its own words
    (:func:`_says_something`), as an ``AskResult``, or None."""
    from sqlmodel import select

    from core.store.schema import Record

    with c.db.session() as s:
        rows = s.exec(select(Record.id, Record.text).where(Record.sender_entity_id == entity_id,
                                                            Record.tombstoned_at.is_(None))
                      .order_by(Record.sent_at.desc(), Record.id.desc()).limit(20)).all()
    rid = next((i for i, text in rows if _says_something(text)), None)
    if rid is None:  # only short lines ("Minimal Message"): the latest that has words of its own at all
        rid = next((i for i, text in rows if any(not _ATTACHED_NOTE.match(x) and re.search(r"\w", x)
                                                 for x in own_sentences(text or ""))), None)
    return _as_result(c, rid) if rid is not None else None


def _own_record_to(c, entity_id: int):
    """The latest of the last 20 live records the owner sent to ``entity_id`` (a recipient or a member of the chat)
    that says something in the owner's own words, as an ``AskResult``, or None (no owner known, or none)."""
    from sqlmodel import select

    from app.memory import owner_entity
    from core.store.schema import Record, RecordEntity

    me = owner_entity(c)
    if not me or me[0] == entity_id:
        return None
    with c.db.session() as s:
        rows = s.exec(select(Record.id, Record.text).join(RecordEntity, RecordEntity.record_id == Record.id)
                      .where(Record.sender_entity_id == me[0], RecordEntity.entity_id == entity_id,
                             RecordEntity.role.in_(("to", "cc", "member")), Record.tombstoned_at.is_(None))
                      .order_by(Record.sent_at.desc(), Record.id.desc()).limit(20)).all()
    rid = next((i for i, text in rows if _says_something(text)), None)
    return _as_result(c, rid) if rid is not None else None


def _span(first: datetime | None, last: datetime | None) -> str:
    if first is None or last is None:
        return ""
    if first.date() == last.date():
        return f" on {day_text(first)}"
    if (first.year, first.month) == (last.year, last.month):
        return f" in {first:%B %Y}"
    return f" from {first:%B %Y} to {last:%B %Y}"


_ATTACHED_NOTE = re.compile(r"^\[attached: [^\]]*\]$")


def _says_something(text: str | None) -> bool:
    """True when a record's text has a sentence of the sender's own: not only what it quotes, nor only the
    note of its attachments (``ingestors.mbox``: ``[attached: gravity.pl]``)."""
    return any(not _ATTACHED_NOTE.match(s) and len(s.split()) >= 3 for s in own_sentences(text or ""))


_PHOTO_FACT = re.compile(r" was photographed\.?$|\bphotos? (?:was|were) taken at\b")


def about_answer(about, results: Sequence[Any]) -> MemoryAnswer:
    """The answer to "who is X?" from what the graph holds about X (``app.operations.graph.About``): its facts,
    addresses, how many records it is in and when, and who is most often with it — citing the shown results
    that rest on it (a fact about it, a record it sent, one naming it).  ``about`` may be the list of
    ``(id, name, kind)`` of several entities with that name: the answer asks which."""
    if isinstance(about, InTouch):
        return in_touch_answer(about)
    if isinstance(about, (LastContact, Reach)):
        return contact_answer(about, results)
    if isinstance(about, HeldQuestion):
        return held_answer(about, results)
    if isinstance(about, RelativeQuestion):
        return relative_answer(about, results)
    if isinstance(about, Said):
        return said_answer(about, results)
    if isinstance(about, PeriodQuestion):
        return period_answer(about)
    if isinstance(about, (Count, Places, PhotoWhen)):
        return count_answer(about)
    if isinstance(about, SmallTalk):
        return small_talk_answer(about)
    if isinstance(about, EverHeld):
        return ever_held_answer(about, results)
    if isinstance(about, JobQuestion):
        return job_answer(about, results)
    if isinstance(about, MostSent):
        return most_sent_answer(about)
    if isinstance(about, list):
        # each told apart by what a person knows them by (an address, a job); a bare id only where nothing else
        # tells two of one name apart (it can be asked by: "who is 75?")
        shared = {n for n in (x[1] for x in about) if sum(1 for y in about if y[1] == n) > 1}
        names = _and([f"{name} ({hint})" if hint else f"{name} (id {i})" if name in shared else name
                      for i, name, _k, hint in about[:5]])
        who = "people" if all(k == "person" for _i, _n, k, _h in about) else "entries"
        verb = "share that name" if len({n for _i, n, _k, _h in about}) == 1 else "go by that name"
        return MemoryAnswer(f"{len(about)} {who} {verb}: {names}. Which one do you mean?", [], "who")
    name = about.name
    items = list(enumerate(results, 1))
    evidence = {r for _st, ev in about.facts for r in ev}
    cited: list[int] = []
    for test in (lambda r: _get(r, "kind") in ("fact", "history") and _get(r, "sender") == name,
                 lambda r: _get(r, "record_id") in evidence,
                 lambda r: _get(r, "sender") == name and _says_something(_get(r, "text")),
                 lambda r: _get(r, "sender") == name,
                 lambda r: name.casefold() in (_get(r, "text") or "").casefold()):
        cited = [n for n, r in items if test(r)][:1]
        if cited:
            break
    head = f"That's you ({name})" if about.is_owner else name
    if about.addresses and not about.is_owner:
        head += f" ({', '.join(about.addresses[:2])})"
    seen = f"in {about.records} of your records{_span(about.first, about.last)}" if about.records \
        else "in none of your records"
    if not about.records:  # named in a message, not a party to it: who named it, and how
        word = re.compile(rf"\b{re.escape(name)}\b", re.IGNORECASE)
        for n, r in items:
            sender = _get(r, "sender") or ""
            if _get(r, "kind") != "record" or not sender or sender == name:
                continue
            text_r, subject_r = _get(r, "text") or "", _get(r, "subject")
            body = text_r[len(subject_r):] if subject_r and text_r.startswith(subject_r) else text_r
            said = next((x for x in own_sentences(body) if word.search(x)), None)
            if said:
                it = "them" if about.kind == "person" else "it"
                seen = f"{sender} mentioned {it}: “{_FILLER.sub('', said).strip() or said}”"
                cited = [n]
                break
    shown = about.facts
    if about.photos:  # a place: the photos taken there say it (its visit facts only repeat them)
        seen = f"you took {_count(about.photos, 'photo')} there{_span(about.first, about.last)}"
        if about.records > about.photos:
            seen += f"; it is in {_count(about.records - about.photos, 'record')} more"
        shown = [(st, ev) for st, ev in about.facts if not _PHOTO_FACT.search(st)]
    if about.together:
        seen += ", most often with " + " and ".join(n for n, _k in about.together[:2])
    facts = "".join(f"{body[:1].upper()}{body[1:]}. " for body in (_fact_body(st) for st, _ev in shown[:2]))
    text = f"{facts}{head} — {seen}"
    if facts and not about.records and not about.photos and not about.is_owner:
        # only named in messages, and a fact says who they are ("Oliver Grant's sister is Beth."): that is the
        # answer — "Beth — Oliver Grant mentioned them: “My sister Beth is …”" after it only said it again
        text = facts.strip()
    return MemoryAnswer(f"{text} {_cite(cited)}".strip(), cited, "who")


_ASKS_WORK = re.compile(r"\b(?:work|works|worked|working|job|employed|employer|office|company)\b", re.I)
"""A "where" question about someone's work ("where does Rosa work?", "where is her job?"): answered by a
``work`` fact, not by a place."""
_TALKS_OF_WORK = re.compile(
    r"\b(?:(?:work|works|worked|working)\s+(?:at|for|as|in|with|from)\b|jobs?|employed|employer|employment|office|"
    r"company|colleagues?|(?:start|starts|started|starting)\s+(?:at|with|as)\b|joined|hired|new\s+role|"
    r"promoted|promotion|resign(?:ed)?|quit)\b", re.I)
"""A message that talks of someone's work ("I work at …", "starting at Brightwave as …", "my new job"): "works"
alone is not work ("Friday at 7 works" is a plan that suits)."""
_WHERE_WORKS = re.compile(r"\bwhere\s+(?:does|did|do|is|was)\s+(?P<name>.+?)\s+(?:work|job|employ)", re.I)


def _fact_of_asked(question: str, fact, owner: str | None, first_person: bool) -> bool:
    """True when ``fact`` is about whom ``question`` asks: the owner's own for "where do I work?", else one whose
    subject the question names ("where does Rosa live?" → Rosa Vidal's), so that no one else's fact answers."""
    who = _get(fact, "sender") or ""
    if first_person:
        return owner is not None and who == owner
    return bool(set(lexicon.tokens(who)) & set(lexicon.tokens(question)))


def memory_answer(question: str, results: Sequence[Any], owner: str | None = None, about=None) -> MemoryAnswer:
    """Kith's default answer to ``question`` from ``results`` (``AskResult``-like, best first, already above
    the relevance threshold), citing them by their 1-based position.

    Args:
        question: the person's question, as they wrote it.
        results: what ``ask`` showed (records, chat episodes, current facts, history).
        owner: the owner's name ("I" in the question), or None.
        about: :func:`about_question` of the question, when it asks who or what a known entity is: the
            answer is then :func:`about_answer` (even with no results above the threshold).

    Returns:
        :class:`MemoryAnswer`; ``nothing`` with :data:`NOTHING` when ``results`` is empty.
    """
    question = as_typed(question)
    kind = question_kind(question)
    addressees = about.addressees if isinstance(about, Recalled) else None
    if isinstance(about, Recalled):
        about = None
    if about is not None:
        return about_answer(about, results)
    # what the owner asked Kith in chat earlier ("tell me Tom's job title") is a question, never evidence
    items = [(n, r) for n, r in enumerate(results, 1) if not _chat_question(r)]
    if not items:
        return MemoryAnswer(NOTHING, [], kind, True)
    first_person = bool(_FIRST_PERSON.search(question))
    # a record with no words (a voice memo of silence, a photo-only message) cannot be the answer's sentence
    turns = [(n, r) for n, r in items if _get(r, "kind") in ("record", "episode") and (_get(r, "text") or "").strip()]
    facts = [(n, r) for n, r in items if _get(r, "kind") == "fact"]
    history = [(n, r) for n, r in items if _get(r, "kind") == "history"]

    # photos: a place and a day (their facts are "places: photographed:DAY" about the place)
    photo_facts = [(n, r) for n, r in facts if str(_get(r, "subject") or "").startswith("places: photographed:")]
    top_turn = turns[0][1] if turns else None
    if kind in ("when", "where") and (photo_facts or (top_turn is not None and _get(top_turn, "record_kind") == "photo")):
        # days are local to the place (a photo at 00:30 in Tokyo is on its Tokyo day, not the UTC one before it)
        if photo_facts:
            n0, f0 = photo_facts[0]
            place, day = _get(f0, "sender") or "", _local_day(f0)
        else:
            n0, f0 = turns[0]
            m = _PHOTO_AT.search(_get(f0, "text") or "")
            place, day = (m.group("place").strip() if m else ""), _local_day(f0)
        key = place.split(",")[0]
        days = {day} if day else set()
        if kind == "when" and key:  # every day the place was photographed among what was shown, not the best one's
            days |= {_local_day(f) for _n, f in photo_facts if (_get(f, "sender") or "") == place}
            days |= {_local_day(r) for _n, r in turns if _get(r, "record_kind") == "photo"
                     and key in (_get(r, "text") or "")}
            days.discard(None)

        def on_days(item) -> bool:  # with no day known (photos without a time), the place's undated photos
            return _local_day(item) in days if days else _local_day(item) is None

        same = [n for n, r in turns if _get(r, "record_kind") == "photo" and on_days(r)
                and key in (_get(r, "text") or "")]
        # the photos of that place those days: the shown ones and those the place's facts for the days rest on
        photos = {_get(r, "record_id") for n, r in turns if n in same}
        day_facts = photo_facts + [(n, r) for n, r in facts if str(_get(r, "subject") or "").startswith("events: photos:")]
        for _n, f in day_facts:
            if place and key in (_get(f, "text") or "") and on_days(f):
                photos |= set(_get(f, "evidence") or [])
        photos.discard(None)
        photos.discard(0)
        cited = same or [n0]
        count = f" — {len(photos)} photo{'s' if len(photos) != 1 else ''}" if photos else ""
        who = "You were" if first_person else "Photos taken"
        where = f" in {place}" if place else ""
        on = f" on {days_text(days)}" if days else ""
        undated = ", date unknown" if photos and not days else ""
        if not place:  # no place known: "You took it on 30 May 2008", not "You were on 30 May 2008 — 1 photo"
            many = len(photos) > 1
            did = (f"You took {len(photos)} photos" if many else "You took it") if first_person else \
                (f"{len(photos)} photos were taken" if many else "It was taken")
            said = f"{did}{on}" if days else f"I don't know when {'they were' if many else 'it was'} taken"
            if kind == "where":
                said = f"I don't know where {'they were' if many else 'it was'} taken" + (
                    (f"; you took {'them' if many else 'it'}{on}" if first_person else f", only when:{on}")
                    if days else "")
            return MemoryAnswer(f"{said} {_cite(cited)}", cited, kind)
        return MemoryAnswer(f"{who}{where}{on}{count}{undated} {_cite(cited)}", cited, kind)

    if kind == "where":
        # "where does Rosa work?" is answered by where she works, never by where she lives (nor the reverse)
        work = bool(_ASKS_WORK.search(question))
        places = [(n, r) for n, r in facts if str(_get(r, "subject") or "").startswith("work:" if work else "places:")
                  and _fact_of_asked(question, r, owner, first_person)]
        if places:
            n0, f0 = places[0]
            since = _when(f0)
            body = _fact_body(_get(f0, "text"))
            before = [(n, h) for n, h in history if _get(h, "sender") == _get(f0, "sender")
                      and str(_get(h, "subject")).split(":")[0] == str(_get(f0, "subject")).split(":")[0]]
            extra = f" (since {since:%B %Y})" if since else ""
            if before:  # "…; before that, Rosa lived in Berlin until June 2023": the name once in full
                who = str(_get(f0, "sender") or "")
                olds = [_fact_body(_get(h, "text")) for _, h in before]
                olds = [re.sub(rf"^{re.escape(who)}\b", who.split()[0], o) if who.strip() else o for o in olds]
                olds = [o[:4].lower() + o[4:] if o.startswith("You ") else o for o in olds]
                extra += "; before that, " + "; ".join(olds)
            cited = [n0] + [n for n, _ in before]
            return MemoryAnswer(f"{body}{extra} {_cite(cited)}", cited, kind)
        # none holds now (or at as_of), but one did: what ended is the answer ("Rosa Vidal worked at Northwind until
        # March 2023"), not an old message that still says it in the present tense
        ended = [(n, h) for n, h in history if str(_get(h, "subject") or "").startswith("work:" if work else "places:")
                 and _fact_of_asked(question, h, owner, first_person)]
        if ended:
            n0, h0 = ended[0]
            return MemoryAnswer(f"{_fact_body(_get(h0, 'text'))} {_cite([n0])}", [n0], kind)
        if work:  # no work fact about them: their own message that talks of work, or an honest "nothing says"
            turns = [(n, t) for n, t in turns if _TALKS_OF_WORK.search(_get(t, "text") or "")
                     and _fact_of_asked(question, t, owner, first_person)]
            if not turns:
                m = _WHERE_WORKS.search(question)
                who = "you" if first_person else (m.group("name").strip() if m else "they")
                verb = "work" if who in ("you", "they") else "works"
                return MemoryAnswer(f"Nothing in your records says where {who} {verb}.", [], kind)
            n0, t0 = turns[0]  # the sentence that talks of work, not the mail's first one ("Please find attached …")
            text, subject = _get(t0, "text") or "", _get(t0, "subject")
            body = text[len(subject):] if subject and text.startswith(subject) else text
            said = next((x for x in own_sentences(body) if _TALKS_OF_WORK.search(x)), None)
            if said:
                return MemoryAnswer(f"{best_sentence(question, said, _get(t0, 'sender'), owner=owner)} "
                                    f"{_cite([n0])}", [n0], kind)

    if kind == "who" and facts:
        rel = [(n, r) for n, r in facts if str(_get(r, "subject") or "").startswith(("relationships:", "family:"))
               and not re.search(r"correspondence|\bwrites_to:", str(_get(r, "subject")))]
        if rel:
            n0, f0 = rel[0]
            return MemoryAnswer(f"{_fact_body(_get(f0, 'text'))} {_cite([n0])}", [n0], kind)

    if not turns:  # only facts: the best current one (or history) is the answer
        if not (facts or history):  # only records with no words
            return MemoryAnswer(NOTHING, [], kind, True)
        n0, f0 = (facts or history)[0]
        return MemoryAnswer(f"{_fact_body(_get(f0, 'text'))} {_cite([n0])}", [n0], kind)

    n0, t0 = turns[0]
    about_work = bool(_SAID_ABOUT.match(question)) and bool(_ASKS_WORK.search(question))

    def says_it(t) -> bool:  # "what did Maya say about her job?": "I work at Spotify now" says it
        return _shares_words(question, t) or (about_work and bool(_TALKS_OF_WORK.search(_get(t, "text") or "")))

    if not says_it(t0) and kind != "who":
        # the best turn says none of the asked words in its own text (a mail whose subject alone names the
        # wedding): a turn just below it that says them is the answer
        n0, t0 = next(((n, t) for n, t in turns[1:3] if says_it(t)), (n0, t0))
    if kind == "where":
        # "where was Mum's birthday?": the message that names where ("… is at Luigi's in Hove"), not one that only
        # speaks of it ("Can't wait for Mum's birthday")
        got0, at0 = _located(question, t0)
        if not at0:
            n0, t0 = next(((n, t) for n, t in turns[:5] if _located(question, t)[1]
                           and _located(question, t)[0] >= max(1, got0)), (n0, t0))
    if _SAID_ABOUT.match(question):
        # "what did Maya say about her job?": what she said last comes first (her job then may be long gone),
        # then what she said before it, newest first
        who0 = str(_get(t0, "sender") or "")
        asked_who = set(lexicon.tokens(_SAID_ABOUT.match(question).group("name")))
        saying = [(n, t) for n, t in turns[:4] if says_it(t) and _get(t, "sender") == who0
                  and _local_when(t) is not None]
        if len(saying) > 1 and (n0, t0) in saying and asked_who and asked_who <= set(lexicon.tokens(who0)):
            saying.sort(key=lambda x: _local_when(x[1]), reverse=True)
            parts = []
            for n, t in saying[:3]:  # each in their own words, as they wrote it
                text_t, subject_t = _get(t, "text") or "", _get(t, "subject")
                body = text_t[len(subject_t):] if subject_t and text_t.startswith(subject_t) else text_t
                words = " ".join(own_sentences(body)[:2]).split()
                quote = " ".join(words[:30]) + (" …" if len(words) > 30 else "")
                parts.append(f"on {day_text(_local_when(t))}: “{quote}” {_cite([n])}")
            return MemoryAnswer(f"{who0} wrote " + "; before that, ".join(parts), [n for n, _ in saying[:3]], kind)
    speaker = _get(t0, "sender") or (owner if _get(t0, "kind") == "episode" else None)
    text = _get(t0, "text") or ""
    if kind == "when":
        said = _when_sentence(question, text, _get(t0, "subject"), _local_when(t0))
        when = when_phrase(said, _local_when(t0)) or when_phrase(text, _local_when(t0))
        at, sent = _CLOCK.search(said), _local_when(t0)
        named = at is not None and sent is not None and \
            bool(find_time_anchors(said, sent if sent.tzinfo else clock.ensure_utc(sent)))
        if at and when and (named is False or _WHAT_TIME.search(question)):
            # "what time does the ferry leave?" / "when does the ferry leave?" over "The ferry leaves at 8am": the
            # hour said, and the day it is on ("10am on 3 August 2023") or, naming none, the day it was said
            hour = re.sub(r"\s+", " ", at.group(0)).lower()
            said_when = f"on {when}" if named else f"(said on {when})"
            return MemoryAnswer(f"{hour[:1].upper() + hour[1:]} {said_when} {_cite([n0])}", [n0], kind)
        if when:
            return MemoryAnswer(f"{when[:1].upper() + when[1:]} {_cite([n0])}", [n0], kind)
    if kind == "who":
        # "who was at Mum's birthday?": the people of the messages about it, not a name "at Mum's birthday"
        at = _event_people(question, turns, owner)
        if at is not None:
            return at
        # "who is coming to my place?": the line that says someone is, told back ("Ben Carter is coming to your
        # place on Friday"), not only the name of the best line's sender
        doing = _doing(question, turns[:5], owner, first_person)
        if doing is not None:
            return doing
    asked = about_subject(question) if kind == "who" else None
    if asked and _A_NAME.match(asked):
        # "who is Jess?" and no one Kith knows is called that: who mentioned her and how, never the sender
        # of the message as if that were Jess
        want = set(lexicon.tokens(asked))
        for n, t in turns[:3]:
            text_t, subject_t = _get(t, "text") or "", _get(t, "subject")
            body = text_t[len(subject_t):] if subject_t and text_t.startswith(subject_t) else text_t
            said = next((x for x in own_sentences(body) if want and want <= set(lexicon.tokens(x))), None)
            who = _get(t, "sender") or (owner if _get(t, "kind") == "episode" else None)
            if said and who:
                m = re.search(rf"\b{re.escape(asked)}\b", said, re.IGNORECASE)
                name = m.group(0) if m and not m.group(0).islower() else asked.title()
                return MemoryAnswer(f"{who} mentioned {name}: “{_FILLER.sub('', said).strip() or said}” {_cite([n])}",
                                    [n], kind)
        return MemoryAnswer(NOTHING, [], kind, True)
    if kind == "who":
        # "who proposed?" over Harriet's "Tom proposed in Paris": the one the text says did it, not its sender
        doer = _doer(question, turns[:3])
        if doer is not None:
            return MemoryAnswer(f"{doer[1]} {_cite([doer[0]])}", [doer[0]], kind)
    if kind == "who":  # the sender of the best turn the question does not name (its subject is not the answer)
        named = set(lexicon.tokens(question))
        forgotten: list[int] = []
        for n, t in turns[:3]:
            who = _get(t, "sender") or (owner if _get(t, "kind") == "episode" else None)
            if first_person and owner and who == owner:  # "who did I go for a walk with?" is never "you"
                continue
            if _about_the_forgotten(question, t):  # "[forgotten] lives in Graz now": not its sender either
                forgotten.append(n)
                continue
            if who and not set(lexicon.tokens(who.split("@")[0])) & named:  # an address: its mailbox name
                return MemoryAnswer(f"{who} {_cite([n])}", [n], kind)
        if forgotten:
            return MemoryAnswer(f"The message that says so speaks of someone you asked me to forget. "
                                f"{_cite(forgotten[:1])}", forgotten[:1], kind)
    to = None
    if addressees is not None and owner and speaker == owner and _get(t0, "kind") == "record":
        names = addressees(_get(t0, "record_id"))
        to = names[0] if len(names) == 1 else None  # a group: "their place"
    said = best_sentence(question, text, speaker, subject=_get(t0, 'subject'), owner=owner,
                         written=_get(t0, 'kind') != 'episode', to=to)
    return MemoryAnswer(f"{said} {_cite([n0])}", [n0], kind)


_LOCATIVE = re.compile(r"\b(?:at|in)\s+(?:the\s+)?(?!(?:January|February|March|April|May|June|July|August|September|"
                       r"October|November|December|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|"
                       r"Christmas|Easter)\b)[A-Z][\w'’-]+|\b(?:at|in)\s+(?:my|your|his|her|their|our|[A-Z][\w-]+['’]s)"
                       r"\s+(?:place|house|home|flat|apartment|garden)\b|\bat\s+home\b")
"""A sentence that says where: "at Luigi's", "in Hove", "at the Grand Hotel", "at my place", "at home" (a month or a
day after "in"/"at" is a when)."""


def _own_body(t) -> str:
    """``t``'s text without its mail subject written before it."""
    text, subject = _get(t, "text") or "", _get(t, "subject")
    return text[len(subject):] if subject and text.startswith(subject) else text


def _located(question: str, t) -> tuple[int, bool]:
    """``(shared, where)`` of the sentence of turn ``t`` that :func:`best_sentence` would tell for ``question``: how
    many question words it holds, and whether it says where (:data:`_LOCATIVE`) outside the question's own words."""
    q = set(lexicon.tokens(question)) - set(lexicon.tokens(_get(t, "sender") or ""))
    sents = own_sentences(_own_body(t))
    if not sents:
        return 0, False
    got, _i, best = max((len(q & set(lexicon.tokens(s))), -i, s) for i, s in enumerate(sents))
    return got, bool(_LOCATIVE.search(best))


_WHO_AT = re.compile(r"^\s*who\s+(?:(?:was|were|is|are|will\s+be)\s+at|(?:came|comes|turned\s+up|showed\s+up|"
                     r"(?:got|was|were)\s+invited)\s+(?:at|to|for)|attended|joined)\s+(?P<what>.+?)\s*[?!.]*\s*$",
                     re.IGNORECASE)
""""who was at Mum's birthday?", "who came to the wedding?", "who attended the barbecue?"."""


def _event_people(question: str, turns, owner: str | None) -> MemoryAnswer | None:
    """The answer to "who was at Mum's birthday?" from the messages among ``turns`` (``(n, result)``, best first)
    with a sentence that names the event ("Mum's birthday": every word of it): their senders, and the people they
    name by first name who wrote among them ("Nora is coming home for Mum's birthday!") — the owner last, as
    "you"; None when the question is not of that form or no message names the event."""
    m = _WHO_AT.match(question or "")
    if not m:
        return None
    what = re.sub(r"^(?:the|a|an)\s+", "", m.group("what").strip(), flags=re.IGNORECASE)
    want = set(lexicon.tokens(what))
    if not want:
        return None
    senders = [_get(t, "sender") or (owner if _get(t, "kind") == "episode" else None) for _n, t in turns]
    first_names: dict[str, str] = {}
    for s in senders:
        if s and "@" not in s and len(s.split()) > 1:
            first_names.setdefault(s.split()[0], s)
    people: list[str] = []
    cited: list[int] = []
    when: list[datetime] = []
    for (n, t), who in zip(turns, senders):
        said = [s for s in own_sentences(_own_body(t)) if want <= set(lexicon.tokens(s))]
        if not said:
            continue
        cited.append(n)
        if _local_when(t) is not None:
            when.append(_local_when(t))
        for name in [who] + [first_names.get(w) for s in said for w in re.findall(r"\b[A-Z][\w'’-]+", s)]:
            if name and name not in people:
                people.append(name)
    if not people:
        return None
    names = [p for p in people if p != owner] + (["you"] if owner in people else [])
    span = _span(min(when), max(when)) if when else ""
    return MemoryAnswer(f"From the messages about {what}{span}: {_and(names)}. {_cite(cited)}".strip(), cited, "who")


_WHO_DOING = re.compile(r"^\s*who(?:['’]s|\s+is|\s+are|\s+was|\s+were|\s+will\s+be)\s+(?P<verb>[a-z]{2,}ing)\b"
                        r"(?P<rest>.*?)\s*[?!.]*\s*$", re.IGNORECASE)
""""who is coming to my place?", "who was bringing the cake?": a deed going on, asked who does it."""


def _doing(question: str, turns, owner: str | None, first_person: bool) -> MemoryAnswer | None:
    """The answer to "who is coming to my place?" from ``turns`` (``(n, result)``, best first): the first line (not
    a question) that says the deed with the rest of the question's words ("I'm coming to your place on Friday"),
    told back in the third person ("Ben Carter is coming to your place on Friday …"); the owner's own lines are
    not the answer to a question about the owner.  None when the question is not of that form or no line says
    it."""
    m = _WHO_DOING.match(question or "")
    if not m:
        return None
    stem = m.group("verb")[:-3].lower()
    stems = {stem} | ({stem[:-1]} if len(stem) > 2 and stem[-1] == stem[-2] else set())
    verb = re.compile(r"\b(?:" + "|".join(re.escape(s) for s in stems) + r")(?:e|es|s|ed|ing|" +
                      re.escape(stem[-1:]) + r"ing)?\b", re.IGNORECASE)
    rest = set(lexicon.tokens(m.group("rest")))
    # "my place" asked is the owner's: another's line says it as "your place" (their own "my place" is theirs)
    mine = re.search(r"\bmy\s+([^\W\d_]+)", m.group("rest"), re.IGNORECASE)
    yours = re.compile(rf"\b(?:your|ur)\s+{re.escape(mine.group(1))}\b", re.IGNORECASE) if mine else None
    for n, t in turns:
        who = _get(t, "sender") or (owner if _get(t, "kind") == "episode" else None)
        if not who or (first_person and owner and who == owner):
            continue
        for s in own_sentences(_own_body(t)):
            if s.rstrip().endswith("?") or not verb.search(s) or not rest <= set(lexicon.tokens(s)):
                continue
            if yours is not None and who != owner and not yours.search(s):
                continue
            said = best_sentence(question, s, who, owner=owner, written=_get(t, "kind") != "episode")
            return MemoryAnswer(f"{said} {_cite([n])}", [n], "who")
    return None


def _about_the_forgotten(question: str, turn) -> bool:
    """True when the sentence of ``turn`` that holds most of ``question``'s words speaks of someone forgotten (a
    forget's redaction, ``core.store.forgetting.REPLACEMENT``: "Did you hear? [forgotten] lives in Graz now"): who
    it was is what the forget removed, and the turn's sender is not the answer to "who lives in Graz?"."""
    from core.store.forgetting import REPLACEMENT

    text = _get(turn, "text") or ""
    if REPLACEMENT not in text:
        return False
    want = set(lexicon.tokens(question))
    best, hold = None, 0
    for sent in own_sentences(text) or [text]:
        got = len(want & set(lexicon.tokens(sent)))
        if got > hold:
            best, hold = sent, got
    return best is not None and REPLACEMENT in best


_WHO_DID = re.compile(r"^\s*who\s+(?P<verb>[a-z]+ed|got\s+[a-z]+|made|took|gave|sent|won|lost|found|broke|paid|"
                      r"bought|sold|said|told|wrote|left|came|went|met|told|brought|won|organi[sz]ed|invited)\b",
                      re.IGNORECASE)
"""A "who did it?" question naming the deed in the past tense ("who proposed?", "who got engaged?", "who won?")."""
_DOER = r"(?P<name>[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?)"


def _doer(question: str, turns) -> tuple[int, str] | None:
    """``(n, name)`` when a turn of ``turns`` (``(n, result)``, best first) says in its own words that a named
    person did what ``question`` asks who did ("Tom proposed in Paris" for "who proposed?"), else None — a
    pronoun ("I got engaged", "We won") names no one: the sender answers, as before."""
    m = _WHO_DID.match(question or "")
    if not m:
        return None
    verb = r"\s+".join(re.sub(r"i[sz]ed$", "i[sz]ed", re.escape(w)) for w in m.group("verb").split())  # -ised/-ized
    for n, t in turns:
        text, subject = _get(t, "text") or "", _get(t, "subject")
        body = text[len(subject):] if subject and text.startswith(subject) else text
        for sent in own_sentences(body):
            for d in re.finditer(rf"(?:^|(?<=[\s,;(“\"])){_DOER}\s+{verb}\b", sent):
                words = d.group("name").split()
                if len(words) > 1 and (_pronoun(words[0]) or _LEAD_WORD.match(words[0])):
                    words = words[1:]  # "Yesterday Tom proposed", "And Tom proposed": Tom
                if not _pronoun(words[0]) and not _LEAD_WORD.match(words[0]):
                    return n, " ".join(words)
            by = re.search(rf"\b(?:was|were|is|are|been)\s+{verb}\s+by\s+{_DOER}", sent)  # "… was organised by Sam"
            if by and not _pronoun(by.group("name").split()[0]):
                return n, by.group("name")
    return None


def _pronoun(word: str) -> bool:
    """"I", "We", "I've", "They’d" … (a pronoun, contracted or not), not a name."""
    return re.split(r"['’]", word)[0].casefold() in _NOT_A_NAME


_LEAD_WORD = re.compile(r"^(?:yesterday|today|tonight|then|and|but|so|finally|also|when|after|before|last|this|"
                        r"remember|apparently|guess|well|oh|omg|wow|lol|haha|ps|"
                        r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|may|june|july|"
                        r"august|september|october|november|december)$", re.IGNORECASE)


_A_NAME = re.compile(r"^(?!\w+ing\b)[^\W\d_][\w'’.-]*(?:\s+[^\W\d_][\w'’.-]*){0,2}$")
"""What "who is …?" asks about when it is a name (one to three words, "Jess", "Jess Patel"), not a deed ("who is
coming to the party?")."""


_SAID_ABOUT = re.compile(r"^\s*what\s+(?:did|does|has|had)\s+(?P<name>.+?)\s+(?:say|said|tell|told|write|written|wrote|"
                         r"mention|mentioned)\b.*?\babout\b", re.IGNORECASE)


def _shares_words(question: str, turn) -> bool:
    """True when a sentence of ``turn``'s own text (its mail subject and its sender's name left out) shares a
    word with ``question``."""
    q = set(lexicon.tokens(question)) - set(lexicon.tokens(_get(turn, "sender") or ""))
    text, subject = _get(turn, "text") or "", _get(turn, "subject")
    if subject and text.startswith(subject):
        text = text[len(subject):]
    return any(q & set(lexicon.tokens(s)) for s in own_sentences(text))


def _citing(results: Sequence[Any], record_id) -> list[int]:
    """``[n]`` of the result that is record ``record_id`` itself (a fact shown beside it, which carries its
    evidence's id, only when the record is not shown), or []."""
    same = [(n, x) for n, x in enumerate(results, 1) if _get(x, "record_id") == record_id]
    return [n for n, x in same if _get(x, "kind") not in ("fact", "history")][:1] or [n for n, _x in same][:1]


_REQUEST = re.compile(r"^\s*(?:(?:please|pls|kith|ok|okay|so|and|now)[\s,]+)*(?:(?:can|could|would|will)\s+you\s+)?"
                      r"(?:tell|show|give|find|list|remind|get|fetch|search|look\s+up|let)\b", re.IGNORECASE)
"""A request the owner makes of Kith ("tell me Tom's job title", "show me the photos from Rome", "find …")."""


def _chat_question(item) -> bool:
    """True when ``item`` is something the owner asked Kith in chat — an episode (said in chat) that is a question
    ("what is Tom's job?") or a request ("tell me Tom's job title"): what was asked is never evidence, nor the
    answer to a later question."""
    if _get(item, "kind") != "episode":
        return False
    from core.personal.observer import is_question

    text = (_get(item, "text") or "").strip()
    return bool(text) and (is_question(text) or bool(_REQUEST.match(text)))


def cited_only(about) -> bool:
    """True when the answer to a question read as ``about`` (:func:`about_question`) comes from the knowledge graph
    — who you are most in touch with, what happened in a month, how many, when you last heard from someone,
    their address, their last message — so the sources listed under it are only those it cites: what recall
    found for the words of "who do I email most?" ("Friday at 7 works", "As of …, Alex wrote to Sam") is not
    where the answer came from."""
    return isinstance(about, (InTouch, PeriodQuestion, Count, Places, PhotoWhen, LastContact, Reach, Said,
                              RelativeQuestion, EverHeld, JobQuestion, MostSent))


def _cite(numbers: Sequence[int]) -> str:
    return "".join(f"[{n}]" for n in numbers)


def memory_answer_text(c, question: str, res, k: int | None = None) -> str:
    """The memory answer (without citation marks) for a ``Retrieval`` of ``question`` — what the chat would
    say first; used by the QA benchmark."""
    from app.memory import owner_name
    from app.operations.ask import results_from

    results = results_from(c, res, k or c.settings.ask_k)
    return memory_answer(question, results, owner_name(c), about_question(c, question)).plain()


# ------------------------------------------------------------------------------------------ repeats


def repeats(text: str, run: int = 6) -> bool:
    """True when ``text`` repeats itself: a sentence of ≥ 4 words twice, or any ``run``-word sequence twice."""
    sents = [" ".join(s.lower().split()) for s in _sentences(text)]
    long = [s for s in sents if len(s.split()) >= 4]
    if len(long) != len(set(long)):
        return True
    words = re.findall(r"\w+", text.lower())
    seen = set()
    for i in range(len(words) - run + 1):
        g = tuple(words[i:i + run])
        if g in seen:
            return True
        seen.add(g)
    return False


# ------------------------------------------------------------------------------------------ grounded model

GROUNDED_STOP = ("\n\nQuestion:", "\nQuestion:", "<|im_end|>", "<|endoftext|>", "\n\n\n")
GROUNDED_MAX_TOKENS = 96
GROUNDED_TIME_LIMIT_S = 30.0
REPETITION_PENALTY = 1.3
"""Bounds of a grounded answer: at most 96 tokens (a direct answer is one or two sentences), stop
sequences, 30 s wall clock, and a repetition penalty of 1.3 (Keskar et al. 2019's CTRL penalty; 1.2-1.3
is the usual range) — SmolLM2-135M otherwise loops ("I'm not here to tell you…" twelve times, issue 14)."""


@dataclass
class GroundedAnswer:
    """A model's answer after checking: ``text`` (what is shown), ``cited`` (evidence numbers it cites),
    ``fell_back`` (True when the memory answer replaced it), ``note`` (why), ``raw`` (the model's text),
    ``cancelled``, ``timed_out``."""

    text: str
    cited: list[int]
    fell_back: bool
    note: str = ""
    raw: str = ""
    cancelled: bool = False
    timed_out: bool = False


def grounded_messages(question: str, results: Sequence[Any], owner: str | None = None, today: date | None = None,
                      brief: str = "") -> list[dict]:
    """The prompt: numbered evidence (date; who; text), the rule to answer only from it and cite [n]."""
    from app.models.llm import prompt_template

    lines = []
    for n, r in enumerate(results, 1):
        w = _when(r)
        who = _get(r, "sender") or ""
        text = " ".join(str(_get(r, "text") or "").split())[:500]
        meta = "; ".join(x for x in (day_text(w) if w else "", who) if x)
        lines.append(f"[{n}] ({meta}) {text}" if meta else f"[{n}] {text}")
    system = prompt_template("grounded").format(owner=owner or "the person",
                                                today=(today or clock.now().date()).isoformat(),
                                                evidence="\n".join(lines) or "(none)",
                                                brief=(f"\nHow {owner or 'the person'} likes to be answered:\n{brief}\n"
                                                       if brief.strip() else ""))
    return [{"role": "system", "content": system.strip()}, {"role": "user", "content": question.strip()}]


def check_grounded(reply: str, n_evidence: int) -> tuple[list[int], str]:
    """The evidence numbers a reply cites, and why it must be replaced ('' when it may stand)."""
    from app.loop import cited_numbers

    cited = cited_numbers(reply)
    if not reply.strip():
        return [], "the model wrote nothing"
    if repeats(reply):
        return cited, "the model repeated itself"
    if not cited:
        return [], "the model's answer cited no evidence"
    if any(n < 1 or n > n_evidence for n in cited):
        return cited, "the model cited evidence it was not given"
    return cited, ""


def stream_bounded(model, messages, *, max_tokens: int = GROUNDED_MAX_TOKENS, time_limit: float = GROUNDED_TIME_LIMIT_S,
                   cancel: threading.Event | None = None, on_token=None) -> tuple[str, bool, bool]:
    """Stream a bounded reply: returns (text, cancelled, timed_out).  Stops at a stop sequence, at the time
    limit, at ``cancel``, or when the text starts repeating itself."""
    pieces: list[str] = []
    t0 = time.monotonic()
    timed_out = False
    kwargs = dict(max_tokens=max_tokens, cancel=cancel)
    if _accepts(model.stream, "stop"):
        kwargs.update(stop=list(GROUNDED_STOP), repetition_penalty=REPETITION_PENALTY)
    gen = model.stream(messages, **kwargs)
    try:
        for piece in gen:
            pieces.append(piece)
            text = "".join(pieces)
            cut = min((text.find(s) for s in GROUNDED_STOP if s in text), default=-1)
            if cut >= 0:
                pieces = [text[:cut]]
                break
            if on_token:
                on_token(piece)
            if cancel is not None and cancel.is_set():
                break
            if time.monotonic() - t0 > time_limit:
                timed_out = True
                break
            if len(text) > 80 and repeats(text):
                break
    finally:
        close = getattr(gen, "close", None)
        if close is not None:
            close()  # stops the model's generation loop too
    return "".join(pieces).strip(), bool(cancel is not None and cancel.is_set()), timed_out


def _accepts(fn, name: str) -> bool:
    import inspect

    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


def grounded_answer(model, question: str, results, c=None, *, owner: str | None = None, cancel=None,
                    on_token=None, brief: str = "") -> GroundedAnswer:
    """Answer ``question`` with ``model`` from the evidence ``results`` (``AskResult`` list, or a ``Retrieval``
    with ``c`` given), checked: an answer that cites nothing, cites evidence it was not given, or repeats
    itself is replaced by the memory answer, with a note."""
    if not isinstance(results, (list, tuple)):
        from app.memory import owner_name
        from app.operations.ask import results_from

        owner = owner if owner is not None else owner_name(c)
        results = results_from(c, results, c.settings.ask_k)
    fallback = memory_answer(question, results, owner)
    if not results:
        return GroundedAnswer(fallback.text, [], True, "nothing relevant was found")
    msgs = grounded_messages(question, results, owner, brief=brief)
    raw, cancelled, timed_out = stream_bounded(model, msgs, cancel=cancel, on_token=on_token)
    cited, problem = check_grounded(raw, len(results))
    if cancelled and raw:
        return GroundedAnswer(raw, cited, False, "stopped", raw, cancelled=True)
    if problem or timed_out:
        note = problem or "the model ran out of time"
        return GroundedAnswer(fallback.text, fallback.cited, True, note, raw, cancelled, timed_out)
    return GroundedAnswer(raw, cited, False, "", raw)


# ------------------------------------------------------------------------------------------ QA probe

PROBE = (
    {"question": "When did Ana adopt her kitten?", "answer": "7 May 2023", "evidence": [
        {"text": "I adopted a tabby kitten yesterday! Her name is Miso.", "sender": "Ana", "when": "2023-05-08T13:00:00+00:00"},
        {"text": "Lovely. I am training for the Boston marathon.", "sender": "Ben", "when": "2023-05-08T13:01:00+00:00"}]},
    {"question": "Which marathon is Ben training for?", "answer": "the Boston marathon", "evidence": [
        {"text": "Lovely. I am training for the Boston marathon.", "sender": "Ben", "when": "2023-05-08T13:01:00+00:00"},
        {"text": "Good luck with the running.", "sender": "Ana", "when": "2023-05-08T13:02:00+00:00"}]},
    {"question": "Where did Ben's sister move?", "answer": "Lisbon", "evidence": [
        {"text": "My sister Clara moved to Lisbon last month.", "sender": "Ben", "when": "2023-06-20T10:00:00+00:00"},
        {"text": "I started pottery classes on Tuesdays.", "sender": "Ana", "when": "2023-06-20T10:01:00+00:00"}]},
    {"question": "What class did Ana start?", "answer": "pottery classes", "evidence": [
        {"text": "I started pottery classes on Tuesdays.", "sender": "Ana", "when": "2023-06-20T10:01:00+00:00"},
        {"text": "My sister Clara moved to Lisbon last month.", "sender": "Ben", "when": "2023-06-20T10:00:00+00:00"}]},
)
"""A small QA probe (made up here, LoCoMo-style): each question with its evidence and gold answer."""


@dataclass
class ProbeScore:
    """Token F1 of the memory answerer and of a model on :data:`PROBE` (0..1), and the model's fallbacks."""

    memory: float
    model: float | None
    fallbacks: int
    n: int
    detail: list[dict] = field(default_factory=list)

    def describe(self) -> str:
        if self.model is None:
            return f"QA probe: memory answers F1 {self.memory:.2f} ({self.n} questions)."
        return (f"QA probe: this model F1 {self.model:.2f} against {self.memory:.2f} for Kith's memory answers "
                f"({self.n} questions; {self.fallbacks} of its answers failed the checks).")


def token_f1(prediction: str, truth: str) -> float:
    """SQuAD/LoCoMo-style token F1 (lower case, punctuation and articles dropped; Kith's light stemmer)."""
    from collections import Counter

    from core.extraction.text import stem

    def toks(s):
        s = re.sub(r"[^\w\s]", " ", s.lower())
        return [stem(w) for w in s.split() if w not in ("a", "an", "the", "and")]
    p, g = toks(prediction), toks(truth)
    same = sum((Counter(p) & Counter(g)).values())
    if not same:
        return 0.0
    prec, rec = same / len(p), same / len(g)
    return 2 * prec * rec / (prec + rec)


def run_probe(model=None, cancel: threading.Event | None = None) -> ProbeScore:
    """Score the memory answerer (and ``model`` through the grounded path, when given) on :data:`PROBE`."""
    mem_f1, mod_f1, fallbacks, detail = [], [], 0, []
    for item in PROBE:
        ev = [dict(e, kind="record") for e in item["evidence"]]
        m = memory_answer(item["question"], ev)
        mem_f1.append(token_f1(m.plain(), item["answer"]))
        row = {"question": item["question"], "memory": m.plain()}
        if model is not None:
            g = grounded_answer(model, item["question"], ev, cancel=cancel)
            fallbacks += int(g.fell_back)
            text = re.sub(r"\s*\[\d+(?:\s*,\s*\d+)*\]", "", g.text)
            mod_f1.append(token_f1(text, item["answer"]))
            row.update(model=g.raw, fell_back=g.fell_back)
        detail.append(row)
    avg = lambda xs: sum(xs) / len(xs) if xs else 0.0  # noqa: E731
    return ProbeScore(avg(mem_f1), avg(mod_f1) if model is not None else None, fallbacks, len(PROBE), detail)

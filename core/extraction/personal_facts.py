"""Deterministic, identity-aware fact patterns: birthdays, homes, employers, relations, health events.

Seed 002: "LLM extraction prompts distinguish whose fact it is. 'Mom had surgery'
→ fact about Nic's mother, not about Nic."  The same rule here, without a model:
first-person phrases ("I", "my") are about the *speaker* (the record's sender);
"my mom", "my sister Jane" are about an entity *related to* the speaker; a
capitalised name followed by a pattern ("Sarah works at Acme") is about that name.
Every fact's time comes from a time anchor in the sentence resolved against the
message's own timestamp (never "now"), else the message's time.

An LLM extractor in ``app/`` may replace this; its output has the same shape.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from core.extraction.time_anchors import anchor_period, find_time_anchors

RELATIONS = {
    "mom": "mother", "mum": "mother", "mother": "mother", "mama": "mother", "dad": "father", "father": "father",
    "papa": "father", "sister": "sister", "brother": "brother", "wife": "wife", "husband": "husband",
    "partner": "partner", "girlfriend": "girlfriend", "boyfriend": "boyfriend", "son": "son", "daughter": "daughter",
    "boss": "boss", "manager": "boss", "supervisor": "boss", "line manager": "boss", "team lead": "boss",
    "team leader": "boss", "colleague": "colleague", "coworker": "colleague", "co-worker": "colleague",
    "grandma": "grandmother", "grandmother": "grandmother",
    "grandpa": "grandfather", "grandfather": "grandfather", "aunt": "aunt", "uncle": "uncle", "cousin": "cousin",
    "roommate": "roommate", "best friend": "best friend", "friend": "friend", "parents": "parents",
    "kid": "child", "child": "child", "sibling": "sibling", "grandson": "grandson", "granddaughter": "granddaughter",
}
# A manager, a supervisor is one's boss ("who is my boss?" finds "my manager is Gavin Belson"); a kid, a child: a
# child (of either sex; "my son", "my daughter" say which)
# "my parents": the mother and the father, each (a fact of "my parents live in Cork" is one of each)
_BOTH = {"parents": ("mother", "father")}
KIN_NAMES = {"mum": "mother", "mom": "mother", "mummy": "mother", "mommy": "mother", "mama": "mother",
             "mam": "mother", "mother": "mother", "dad": "father", "daddy": "father", "papa": "father",
             "father": "father", "grandma": "grandmother", "granny": "grandmother",
             "nan": "grandmother", "nana": "grandmother", "nanna": "grandmother", "gran": "grandmother",
             "grandpa": "grandfather", "grandad": "grandfather", "granddad": "grandfather", "grampa": "grandfather",
             "hubby": "husband", "wifey": "wife"}
"""A name that is a kinship word alone, as people save their family in a phone ("Mum", "Dad ❤️", "Nan", "Hubby"):
the relation of the owner it names (British and American forms; the pet forms of husband and wife; not "Ma", "Pa",
"Da", which are also surnames)."""


# Relatives by marriage and step- and half-relatives are relations of their own ("my brother-in-law" is not "my
# brother": the two were one person): "-in-law" after a parent, sibling or child word; "step" (joined, or with a
# hyphen) before one; "half-" before a sibling
_IN_LAW = {"mother": "mother", "mom": "mother", "mum": "mother", "father": "father", "dad": "father",
           "sister": "sister", "brother": "brother", "son": "son", "daughter": "daughter"}
_STEP = {"mother": "mother", "mom": "mother", "mum": "mother", "father": "father", "dad": "father",
         "sister": "sister", "brother": "brother", "son": "son", "daughter": "daughter"}
RELATIONS.update({f"{k}-in-law": f"{v}-in-law" for k, v in _IN_LAW.items()})
RELATIONS.update({f"step{sep}{k}": f"step{v}" for k, v in _STEP.items() for sep in ("", "-")})
RELATIONS.update({f"half-{k}": f"half-{k}" for k in ("sister", "brother")})
FAMILY = {"mother", "father", "sister", "brother", "wife", "husband", "son", "daughter", "grandmother",
          "grandfather", "child", "sibling", "grandson", "granddaughter", "grandchild", "aunt", "uncle", "cousin",
          "partner"} | {v for k, v in RELATIONS.items() if "-" in k or k.startswith("step")}

# a relation word is whole: not the start of a longer one ("brother" in "brother-in-law", "ex" forms are not listed
# and so are no relation: "my ex-wife" is no wife)
_REL = "(?:" + "|".join(sorted((re.escape(k) for k in RELATIONS), key=len, reverse=True)) + r")(?![\w-])" + \
    r"(?!(?<=\bkid) (?:brother|sister)\b)"  # "my kid brother" is a brother
PLURALS = {"kids": "child", "children": "child", "sons": "son", "daughters": "daughter", "sisters": "sister",
           "brothers": "brother", "cousins": "cousin", "friends": "friend", "best friends": "best friend",
           "siblings": "sibling", "grandkids": "grandchild", "grandchildren": "grandchild", "grandsons": "grandson",
           "granddaughters": "granddaughter", "aunts": "aunt", "uncles": "uncle", "roommates": "roommate",
           "bosses": "boss", "managers": "boss", "colleagues": "colleague", "coworkers": "colleague",
           "co-workers": "colleague", "twins": "child"}
"""A relation word in the plural and the relation each one named is ("my kids Mia and Noah": each a child).  Not
in :data:`_REL`: a plural with no names ("my kids are at camp") is no one in particular."""
_PLURAL = "(?:" + "|".join(sorted((re.escape(k) for k in PLURALS), key=len, reverse=True)) + r")(?![\w'’-])"
RELATIONS.update({k: v for k, v in PLURALS.items() if k not in RELATIONS})  # "who are my kids?" (app.answer)
_NOT_I = r"(?!I\b|I['’])"  # the pronoun is no word of a name, an employer or a place ("Since March I've been…",
# "Initech and I'm", "Leeds, I love it")
_NAME = rf"{_NOT_I}[A-Z][a-zA-Z'\-]+(?: {_NOT_I}[A-Z][a-zA-Z'\-]+){{0,2}}"
_ORG = rf"[A-Z][\w&.'\-]*(?: (?:of|and|&) {_NOT_I}[A-Z][\w&.'\-]*| {_NOT_I}[A-Z][\w&.'\-]*)*"  # "Bank of America"
_PLACE = rf"[A-Z][\w.'\-]*(?:,? (?:{_NOT_I}[A-Z][\w.'\-]*))*"
_MONTHS = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
_BDAY = rf"(?:{_MONTHS} \d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{_MONTHS})"
_BARE = r"Mom|Mum|Mommy|Dad|Daddy|Mama|Papa|Grandma|Grandpa"  # kinship words used as names mean the speaker's relative
_AUX = r"(?:['’](?:ve|m|s|re)| have| has| am| is| are| now have)?"  # "I've moved", "I'm living", "Ana has moved"
_ADV = r"(?:just|recently|finally|now|also|actually|officially|permanently|currently|still)"
# "Nina's sister", "Tom Hill's wife Ana": a relative of the person named (the name in the possessive, a relation word)
_OF = rf"(?P<of>{_NOT_I}[A-Z][a-zA-Z\-]+(?: {_NOT_I}[A-Z][a-zA-Z\-]+){{0,2}})['’]s (?P<orel>{_REL})(?: (?P<orelname>{_NAME}))?"
_SUBJ = (rf"(?P<subj>I|[Mm]y (?P<rel>{_REL})(?: (?P<relname>{_NAME}))?|(?P<bare>{_BARE})\b|{_OF}|"
         rf"(?P<name>{_NAME}))")
_WE = r"(?P<we>[Ww]e)"  # "we moved to Madrid": the speaker's household — a home of the speaker (homes only)
_HOME_SUBJ = rf"(?:{_WE}|{_SUBJ})"
# The speaker, their household or a relative — never a bare name: "Acme is based in Leeds" is a company's seat
_SELF_SUBJ = rf"(?:{_WE}|(?P<subj>I|[Mm]y (?P<rel>{_REL})(?: (?P<relname>{_NAME}))?|(?P<bare>{_BARE})\b))"
_KIND_OF_HOME = r"(?:flat|house|apartment|place|home|condo|studio|cottage)"
_NEG = r"(?:don['’]t|do not|doesn['’]t|does not|no longer|not)"
_HOME = ("places", "residence", "home")
_JOB = ("work", "employment", "employer")


@dataclass(frozen=True)
class Subject:
    """Whom a fact is about: ``kind`` ∈ speaker | relation | name; ``relation`` (e.g. "mother"); ``name``; ``of``."""

    kind: str
    relation: str | None = None
    name: str | None = None
    of: str | None = None
    """For a ``relation``: the name of the person whose relative it is ("Nina's sister": Nina); None: the
    speaker's."""
    word: str | None = None
    """For a ``relation`` named by a kinship word used as a name ("Dad moved to Spain"): the word as written."""


@dataclass(frozen=True)
class FactCandidate:
    """A fact found in text, before entity resolution.

    ``valid_from``/``valid_to`` are days of the sender's calendar (``valid_to``: the last day it covers);
    ``sentence`` is the evidence excerpt; ``obj`` names an object entity (employer, place, relative).
    """

    subject: Subject
    domain: str
    category: str
    key: str
    value: str
    sentence: str
    confidence: float
    valid_from: date | None
    valid_to: date | None = None
    obj: str | None = None
    obj_kind: str | None = None
    time_note: str = ""  # how a relative date was read ('"yesterday" = 2023-06-09, the sender's date (sent …)')
    ends: tuple[tuple[str, str, str], ...] = ()
    """Non-empty for a statement that a fact stopped holding ("I don't live in Berlin anymore", "I left
    Initech"): the (domain, category, key) triples the ended ``value`` may be under; ``valid_from`` is the
    day it stopped.  Empty for a fact that holds."""
    then: str | None = None
    """With ``ends``: the value that holds from that day, under the key of the fact that ended ("I left Berlin for
    Madrid": Madrid, a home if Berlin was one, a job if Berlin was the employer)."""
    held: bool = False
    """With ``ends``: the text says the ended value held before — a spell in the past ("I used to live in Rome",
    "I lived in Paris from 2010 to 2015", "… for five years before moving to Lyon"): when no fact of it is in
    effect to end, it is written as history (from ``held_from``, else an unknown day, to ``valid_from``)."""
    held_from: date | None = None
    """With ``held``: the spell's first day when the text gives it ("from 2010": 2010-01-01)."""


# Capitalised words that start sentences but are not names ("Today Ana moved…", "Congrats Tom…", "You moved…").
_NOT_NAMES = frozenset("""i my me we us our you your he him his she her they them their it its the a an this that
these those there here today yesterday tomorrow tonight then so and but also now well oh btw lol haha guess
apparently maybe finally last next congrats congratulations thanks thank yes no yeah yep hey hi hello wow cool
great nice actually anyway sadly luckily ok okay sure dear hope glad sorry if when after before since while
because although though just still even only already soon
everyone everybody someone somebody nobody noone anyone anybody people folks everything nothing all both many most
some none each others we're we've we'd we'll they're they've you're you've it's that's there's here's let's
i'm i've i'd i'll remember heard hear imagine note tell ask see look listen wait bet know think say honestly
basically seriously obviously literally clearly frankly surprisingly fortunately unfortunately funnily weirdly
who what where which why how meet welcome introducing""".split())  # "Everyone moved to Leeds", "We're now living in Lyon" name no one


_TEMPORAL = frozenset("""on in at since by from during until till before after last next this early late mid
back""".split())
_CALENDAR = frozenset(m.casefold() for m in _MONTHS.strip("(?:)").split("|")) | frozenset(
    "monday tuesday wednesday thursday friday saturday sunday".split())


def clean_subject_name(name: str | None, before: str = "") -> str | None:
    """A name captured at a sentence start without its leading non-name words (``"Today Ana"`` → ``"Ana"``), and
    without a month or weekday a time word puts before it (``"On Monday Tom"``, ``"Since May Ana"`` → ``"Tom"``,
    ``"Ana"``; ``before``: the words before the capture, "In early" for "March Tom"); None when nothing name-like is
    left (``"You"``, ``"Congrats"``).  A month or weekday that starts the name without a time word stays: "June
    Smith"."""
    if not name:
        return None
    words = name.split()
    prev = before.split()[-1].casefold().strip(",") if before.split() else ""
    while words:
        w = words[0].casefold().replace("’", "'")
        if w in _NOT_NAMES or w in _TEMPORAL or w in ("ps", "pps", "fyi", "update", "news", "edit"):
            prev = w
            words.pop(0)
        elif w in _CALENDAR and prev in _TEMPORAL and len(words) > 1:
            prev = w
            words.pop(0)
        else:
            break
    if len(words) == 1 and words[0].casefold() in _CALENDAR and prev in _TEMPORAL:
        return None  # "In June moved to Leeds": a date, no one named
    if words and re.search(r"[a-z]['’]s$", words[-1]):
        words[-1] = words[-1][:-2]  # "Tom's moved to Leeds": Tom has moved
    return " ".join(words) or None


def _relname(name: str | None) -> str | None:
    """A relative's name without a possessive ending: "my sister Jane's boyfriend", "my sister Jane's moved" name
    Jane (they made a sister named "Jane's")."""
    if name and re.search(r"[a-z]['’]s$", name):
        name = name[:-2]
    return name or None


def _owner_name(name: str, before: str) -> str | None:
    """The person a possessive names ("Nina's sister": Nina), as :func:`clean_subject_name` reads a name; None for a
    kinship word ("Mum's friend": not a person called Mum) or nothing name-like ("Today's")."""
    out = clean_subject_name(name, before)
    return None if out is None or out.casefold() in KIN_NAMES else out


def _subject(m: re.Match) -> Subject:
    if m.groupdict().get("we"):
        return Subject("speaker")
    if m.group("subj") == "I":
        return Subject("speaker")
    if m.group("rel"):
        return Subject("relation", RELATIONS[m.group("rel").lower()], _relname(m.group("relname")))
    if m.groupdict().get("orel"):
        of = _owner_name(m.group("of"), m.string[max(0, m.start("of") - 20):m.start("of")])
        name = _relname(m.group("orelname"))
        if of is None and name:
            return Subject("name", name=name)  # "Mum's friend Sue lives in Bath": about Sue
        return Subject("relation", RELATIONS[m.group("orel").lower()], name, of=of)
    if m.groupdict().get("bare"):
        return Subject("relation", RELATIONS[m.group("bare").lower().rstrip("y").replace("mumm", "mum")
                                            .replace("momm", "mom").replace("dadd", "dad")], word=m.group("bare"))
    return Subject("name", name=clean_subject_name(m.group("name"), m.string[max(0, m.start("name") - 20):
                                                                           m.start("name")]))


_PATTERNS: list[tuple[re.Pattern, str]] = [
    # "I work at", "I now work at", "I've been working for" — not the simple past: "I worked at Initech for five
    # years" is a job that was, as "I lived in Berlin for years" is a home that was
    (re.compile(rf"\b{_SUBJ}{_AUX}(?: {_ADV})?(?: been)? (?:work|works|working|started|start|starts|starting) "
                rf"(?:at|for) (?:the )?(?P<org>{_ORG})"), "employer"),
    # "Ana has worked at … since 2019", "I've worked for Initech since March": the perfect holds up to now
    (re.compile(rf"\b{_SUBJ}(?:['’]ve| have| has)(?: {_ADV})? worked (?:at|for) (?:the )?(?P<org>{_ORG})"), "employer"),
    (re.compile(rf"\b{_SUBJ}{_AUX}(?: {_ADV})? (?:joined|join|joins|joining) (?:the )?(?P<org>{_ORG})"), "employer"),
    (re.compile(rf"\b{_SUBJ}{_AUX}(?: {_ADV})? (?:started|start|starts|starting|began|begin) (?:working|to work) "
                rf"(?:at|for) (?:the )?(?P<org>{_ORG})"), "employer"),  # "I started working at Globex today"
    # "I got a job at", "I've accepted an offer from", "I started a new job at", "I was hired by"
    (re.compile(rf"\b{_SUBJ}{_AUX}(?: {_ADV})? (?:got|accepted|landed|took|started|starting|starts|start|began|found) "
                rf"(?:a |an |the |my )?(?:new |first |full-time |part-time |permanent )?(?:job|position|role|offer|contract) "
                rf"(?:at|with|from) (?:the )?(?P<org>{_ORG})"), "employer"),
    (re.compile(rf"\b{_SUBJ}(?: {_ADV})? (?:was|were|got|have been|has been|['’]ve been|['’]s been) (?:{_ADV} )?"
                rf"(?:hired|taken on|recruited) (?:by|at) (?:the )?(?P<org>{_ORG})"), "employer"),
    # "I'm moving to Hamburg next month for a new job at Airbus", "Ana relocated to Leeds for a job with Arup": the
    # job a move is for (the move's own home is read by the home pattern)
    (re.compile(rf"\b{_HOME_SUBJ}{_AUX}(?: {_ADV})? (?:moving|moved|move|moves|relocating|relocated|relocate|"
                rf"heading|going) (?:back )?(?:to|out to|over to) [^,;.!?]{{1,60}}? for (?:a |an |the |my |our |"
                rf"(?P<det>her|his|their) )?(?:new |first |full-time |permanent )?(?:job|position|role|post) "
                rf"(?:at|with) (?:the )?(?P<org>{_ORG})"), "move_job"),
    # "I've been at Initech for three years", "Ana has been with Globex since 2019": a job held up to now (not "had
    # been": a job that was; not "I'm at Initech", nor weeks: where one is may be a visit, a hospital stay)
    (re.compile(rf"\b{_SUBJ}(?:['’]ve| have| has|['’]s)(?: {_ADV})? been (?:at|with) (?:the )?(?P<org>{_ORG}),? "
                rf"(?:for (?:(?:about|almost|nearly|over|around) )?(?P<n>\d+|an?|one|two|three|four|five|six|seven|"
                rf"eight|nine|ten|eleven|twelve|a few|a couple of|several) (?P<unit>year|month)s?\b|since\b)"),
     "tenure"),
    # "I moved to Leeds", "we moved back home to Cork", "I moved from Berlin to Rome", "we moved into a flat in Leeds"
    (re.compile(rf"\b{_HOME_SUBJ}{_AUX}(?: {_ADV})?(?: been)? (?:live|lives|living|moved|move|moves|moving|relocated|"
                rf"relocating)"
                rf"(?: back)?(?: home| house)?(?: from (?:the )?{_PLACE})?"
                rf"(?: in(?:to)? (?:a |an |our |my |the )?(?:new |little |small |big )?{_KIND_OF_HOME})?"
                rf" (?:in|to) (?:the )?(?P<place>{_PLACE})"), "home"),
    # "I'm now based in Dublin", "we're based out of Lyon", "my sister is based in Oslo"
    (re.compile(rf"\b{_SELF_SUBJ}(?:['’](?:m|re|s)| am| are| is)?(?: {_ADV})? based (?:in|out of) (?:the )?"
                rf"(?P<place>{_PLACE})"), "home"),
    (re.compile(rf"\b{_HOME_SUBJ}(?:['’]ve| have| has)(?: {_ADV})? lived (?:in|at) (?:the )?(?P<place>{_PLACE})"), "home"),
    (re.compile(rf"\b{_HOME_SUBJ}(?:['’](?:m|re|s)| am| are| is)(?: {_ADV})? back (?:home )?(?:in|to) "
                rf"(?:the )?(?P<place>{_PLACE})"), "home"),  # "I'm back in Berlin", "we're back in Berlin now"
    (re.compile(rf"\b(?:(?P<subj>[Mm]y)|(?P<name>{_NAME})'s) birthday is (?:on )?(?P<bday>{_BDAY})"), "birthday"),
    (re.compile(rf"\b{_SUBJ} (?:was|were) born on (?P<bday>{_BDAY}(?:,? \d{{4}})?)"), "birthday"),
    (re.compile(rf"\b{_SUBJ} (?:had|has|is having|got) (?P<event>(?:a |an )?(?:surgery|operation|baby|"
                rf"heart attack|stroke|accident|fall|broken \w+|covid|the flu|knee surgery|hip surgery))"), "health"),
    (re.compile(rf"\b{_SUBJ} (?:was|is|got) diagnosed with (?P<event>[a-z][a-z \-]{{2,40}}?)(?=[.,;!?]|$)"), "health"),
]
# Statements that a home or a job stopped: "I don't live in Berlin anymore", "we moved out of Berlin",
# "I left Initech", "I no longer work at Initech", "I quit my job at Initech".
_ENDINGS: list[tuple[re.Pattern, tuple[tuple[str, str, str], ...]]] = [
    (re.compile(rf"\b{_HOME_SUBJ}{_AUX} {_NEG} (?:live|lives|living|based) (?:in|at) (?:the )?(?P<val>{_PLACE})"),
     (_HOME,)),
    # "I'm no longer at Initech", "Ana is no longer with Globex"
    (re.compile(rf"\b{_SUBJ}(?:['’](?:m|s)| am| is| are) no longer (?:at|with) (?:the )?(?P<val>{_ORG})"), (_JOB,)),
    (re.compile(rf"\b{_HOME_SUBJ}{_AUX}(?: {_ADV})? (?:moved|move|moving) (?:out of|away from) (?:the )?(?P<val>{_PLACE})"),
     (_HOME,)),
    (re.compile(rf"\b{_SUBJ} {_NEG} (?:work|works|working) (?:at|for) (?:the )?(?P<val>{_ORG})"), (_JOB,)),
    (re.compile(rf"\b{_SUBJ}{_AUX}(?: {_ADV})? (?:stopped|stop) working (?:at|for) (?:the )?(?P<val>{_ORG})"), (_JOB,)),
    (re.compile(rf"\b{_SUBJ}{_AUX}(?: {_ADV})? (?:quit|resigned from|left) my (?:job|position|role) "
                rf"(?:at|with) (?:the )?(?P<val>{_ORG})"), (_JOB,)),
    (_LEFT := re.compile(rf"\b{_HOME_SUBJ}{_AUX}(?: {_ADV})? (?:left|quit) (?:the )?(?P<val>{_ORG})"), (_JOB, _HOME)),
    (re.compile(rf"\b{_SUBJ}{_AUX}(?: {_ADV})? (?:resigned from|retired from|(?:was |were |got |been )?(?:laid off|"
                rf"let go|fired|made redundant) (?:from|by|at)) (?:the )?(?P<val>{_ORG})"), (_JOB,)),
]
# A spell that was: "I used to live in Rome", "I lived in Paris for five years", "Ana worked at Initech from 2015 to
# 2019", "I lived in Leeds until 2020", "… before moving to Lyon" — the simple past with how long, until when or what
# came next (a bare "I lived in Paris" may be a holiday's tale; "I've lived in …" is a home that still is).
_SPAN = (r"(?:for (?:about |almost |nearly |over |around |more than |just over |just under )?(?:\d+|an?|one|two|three|"
         r"four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|a few|a couple of|several|many) "
         r"(?:year|month|decade)s?)")
_RANGE = (rf"(?:from|between) (?:(?P<m1>{_MONTHS}) )?(?P<y1>(?:19|20)\d\d) (?:to|and|until|till|through|-|–) "
          rf"(?:(?P<m2>{_MONTHS}) )?(?P<y2>(?:19|20)\d\d)\b")
_UNTIL = rf"(?:until|till) (?:(?P<mu>{_MONTHS}) )?(?P<yu>(?:19|20)\d\d)\b"
_SPELL_TAIL = (rf"(?=,? (?:{_SPAN}|(?:from|between) (?:{_MONTHS} )?(?:19|20)\d\d|(?:until|till) |before (?:moving|I moved|we moved|relocating|joining|I joined|starting)\b|(?:and )?then (?:moved|"
               rf"relocated|joined|started)\b))")
_SPELLS: list[tuple[re.Pattern, tuple[tuple[str, str, str], ...]]] = [
    (re.compile(rf"\b{_HOME_SUBJ}(?: {_ADV})? used to live (?:in|at) (?:the )?(?P<val>{_PLACE})"), (_HOME,)),
    (re.compile(rf"\b{_SUBJ}(?: {_ADV})? used to work (?:at|for) (?:the )?(?P<val>{_ORG})"), (_JOB,)),
    (re.compile(rf"\b{_HOME_SUBJ} lived (?:in|at) (?:the )?(?P<val>{_PLACE}){_SPELL_TAIL}"), (_HOME,)),
    (re.compile(rf"\b{_SUBJ} worked (?:at|for) (?:the )?(?P<val>{_ORG}){_SPELL_TAIL}"), (_JOB,)),
]
# A spell dated by a span of time and no end ("I lived in Rome in early 2021", "In 2019 we lived in Oslo", "I worked
# at Initech last year"): it held in that span and ended at its end (no later than the message's day)
_DATED_SPELLS: list[tuple[re.Pattern, tuple[tuple[str, str, str], ...]]] = [
    (re.compile(rf"\b{_HOME_SUBJ}(?: {_ADV})? (?:lived|used to live|was living|were living) (?:in|at) (?:the )?"
                rf"(?P<val>{_PLACE})"), (_HOME,)),
    (re.compile(rf"\b{_SUBJ}(?: {_ADV})? (?:worked|used to work|was working|were working) (?:at|for) (?:the )?"
                rf"(?P<val>{_ORG})"), (_JOB,)),
]
_SPELL_RANGE = re.compile(rf"^,? (?:{_SPAN},? )?{_RANGE}")
_SPELL_UNTIL = re.compile(rf"^,? (?:{_SPAN},? )?{_UNTIL}")
_SPELL_THEN = re.compile(rf"\b(?:before (?:moving|I moved|we moved|relocating|I relocated)|(?:and )?then (?:moved|"
                         rf"relocated)|until (?:I|we) moved) (?:back )?(?:to|in) (?:the )?(?P<then>{_PLACE})|"
                         rf"\b(?:before (?:joining|I joined|starting at|moving to)|(?:and )?then (?:joined|started at)) "
                         rf"(?:the )?(?P<join>{_ORG})")
# "I left Berlin for the weekend", "We left Paris for a week in Spain", "I left Initech at 6", "Left London early
# this morning": a trip or a day's leaving, not a home or a job ending — words of its clause after "left X"
_AWHILE = re.compile(r"\bfor (?:the |a |an |my |our |one |two |three |four |a few |a couple of |several )?"
                     r"(?:(?:long |short |quick |bank )?(?:weekend|day|night|week|fortnight|month|while|bit|"
                     r"holiday|vacation|trip|break|getaway|visit|lunch|dinner|work|school|conference|summer|"
                     r"winter)s?|Christmas|Easter|Thanksgiving|New Year|Diwali|Eid|Hanukkah)\b|"
                     r"\bat (?:\d|noon|midnight|dawn|lunch)|\b(?:this|last|yesterday|tomorrow) "
                     r"(?:morning|afternoon|evening|night)\b|\btonight\b|\bafter (?:lunch|dinner|work|school)\b")
# "I left Berlin for Madrid", "I left Initech for Globex": the value that follows the ended one, of its kind; "I
# left Initech to join Globex": an employer
_THEN = re.compile(rf"^(?: (?:last|this|in|on) \w+| \w+ ago)?,? (?:for (?!good\b|Christmas|Easter|Thanksgiving|New "
                   rf"Year)(?:the )?(?P<then>{_PLACE})|to join (?:the )?(?P<join>{_ORG}))")
_OF_MENTION = re.compile(rf"\b{_OF}\b")
_MENTION = re.compile(rf"\b[Mm]y (?P<rel>{_REL})(?:,? (?P<relname>{_NAME}))?\b")
# Relatives named in a statement of who they are: "My boss is Gavin Belson", "Gavin Belson is my manager", "My kids
# are Mia and Noah", "Lily and Max are my kids", "my sisters Ana and Julia" (a plural with its names), and another
# person's: "Ben's daughter is Lily", "Ben Carter's kids are Lily and Max", "Lily is Ben's daughter".
_OWNER = rf"(?P<of>{_NOT_I}[A-Z][a-zA-Z\-]+(?: {_NOT_I}[A-Z][a-zA-Z\-]+){{0,2}})['’]s"
_WHOSE = rf"(?:(?P<my>[Mm]y)|{_OWNER})"
_AGE = r"(?: \(\d{1,2}\)|, \d{1,2}\b)?"  # "Lily (7) and Max (5)", "Mia, 8, and Noah, 5"
_AGES = re.compile(r" \(\d{1,2}\)|, \d{1,2}\b")
_LIST = rf"{_NAME}{_AGE}(?:, {_NAME}{_AGE})*,? (?:and|&) {_NAME}{_AGE}"
_STARTS = r"(?:^|(?<=[\s,;:(\"“]))"
_ADJ = (r"(?:(?:new|current|little|big|baby|older|younger|elder|eldest|oldest|youngest|twin|only|lovely|dear|"
        r"wonderful|amazing|awesome|great|darling|beautiful|gorgeous|precious|favourite|favorite) ){0,2}")
"""Words before a relation word that leave it the relation ("my new boss", "my little sister", "my two kids"; not
"old" or "ex": "my old boss" is no boss now)."""
_HOW_MANY = r"(?:(?:two|three|four|five|six|seven|2|3|4|5|6|7) )?"
_TITLE = r"(?:(?:Dr|Mr|Mrs|Ms|Miss|Mx|Prof)\.? )?"  # "My boss is Mr. Belson", "Dr. Patel is my boss"
_NAMED_AS = [
    re.compile(rf"\b{_WHOSE} {_ADJ}(?P<rel>{_REL})(?:['’]s? (?:full |first )?name)? is(?: {_ADV})? (?:called |named )?"
               rf"(?P<names>{_TITLE}{_NAME})"),
    re.compile(rf"\b{_WHOSE} {_HOW_MANY}{_ADJ}(?P<prel>{_PLURAL})(?:['’] names)? are(?: {_ADV})? (?:called |named )?"
               rf"(?P<names>{_LIST})"),
    re.compile(rf"\b{_WHOSE} {_HOW_MANY}{_ADJ}(?P<prel>{_PLURAL})(?:,? |: | \(| [-–—] )(?P<names>{_LIST})"),
    re.compile(rf"{_STARTS}(?P<names>{_TITLE}{_NAME})(?: is|['’]s) {_WHOSE} {_ADJ}(?P<rel>{_REL})"),
    re.compile(rf"{_STARTS}(?P<names>{_LIST}) are {_WHOSE} {_HOW_MANY}{_ADJ}(?P<prel>{_PLURAL})"),
    # "Gavin Belson, my boss, called": a name opening the sentence, then who they are between commas
    (_APPOSED := re.compile(rf"{_STARTS}(?P<names>{_TITLE}{_NAME}), {_WHOSE} {_ADJ}(?P<rel>{_REL})(?=[,.!;]|$)")),
    # "I have a sister, Ana", "Ben has two kids, Lily and Max", "I've got a new boss called Gavin Belson"
    re.compile(rf"\b(?:(?P<my>I)(?:['’]ve got| have got| have)|(?P<of>{_NAME}) (?:has got|has|['’]s got)) "
               rf"(?:a|an|one) {_ADJ}(?P<rel>{_REL})(?:,|:| called| named) (?P<names>{_TITLE}{_NAME})"),
    re.compile(rf"\b(?:(?P<my>I)(?:['’]ve got| have got| have)|(?P<of>{_NAME}) (?:has got|has|['’]s got)) "
               rf"(?:two|three|four|five|six|seven|2|3|4|5|6|7) {_ADJ}(?P<prel>{_PLURAL})(?:,|:| called| named) "
               rf"(?P<names>{_LIST})"),
]
_RELATIVES_BEFORE = re.compile(rf"\b(?:[Mm]y|{_NOT_I}[A-Z][a-zA-Z\-]+(?: [A-Z][a-zA-Z\-]+){{0,2}}['’]s) "
                               rf"{_HOW_MANY}{_ADJ}{_PLURAL}(?:,| \(| [-–—])?$")
_INTRODUCED = re.compile(r"[\s\"“(]*(?:(?i:meet|welcome|introducing|say hi to|say hello to|this is|here is|"
                         r"here['’]s)\s+)?")
"""What may stand before "Gavin Belson, my boss": nothing, or an introduction ("Meet Gavin Belson, my boss.")."""
_AND_OWNER = re.compile(rf"(?:^|(?<=[\s,;:(\"“]))(?P<first>{_NAME}) (?:and|&) $")
_NOT_A_NAME = frozenset("""american british english scottish welsh irish french german
italian spanish portuguese dutch belgian swiss austrian polish czech russian ukrainian greek turkish swedish norwegian
danish finnish icelandic chinese japanese korean indian pakistani thai vietnamese filipino indonesian australian
canadian mexican brazilian argentinian chilean colombian peruvian cuban african nigerian kenyan egyptian moroccan
israeli iranian arab arabic european asian latino latina catholic christian protestant jewish muslim hindu buddhist
sikh atheist vegan vegetarian gay lesbian straight trans christmas easter thanksgiving halloween""".split())
"""Capitalised words after "is" that name no one: a nationality, a faith, a diet, a holiday ("My boss is Italian",
"My sister is Vegan", "with my kids Christmas and Easter")."""


def _names(text: str) -> list[str] | None:
    """The names a list of names holds ("Mia, Noah and Eli": three), or None when any of them is no name: a word that
    is no name ("My boss is Italian"), a possessive ("My boss is Tom's brother"), a date, a word in capitals."""
    out = []
    for name in re.split(r",? (?:and|&) |, ", _AGES.sub("", text)):
        words = name.split()
        if words and re.fullmatch(r"(?:Dr|Mr|Mrs|Ms|Miss|Mx|Prof)\.?", words[0]):
            words = words[1:]  # a title: the name is the words after it
        if not words or words[0].casefold().replace("’", "'") in _NOT_NAMES | _NOT_A_NAME | _CALENDAR | _TEMPORAL | \
                frozenset(KIN_NAMES) or any(re.search(r"['’]s?$", w) for w in words) or \
                any(len(w) > 1 and w.isupper() for w in words):
            return None
        out.append(name)
    return out


def _named_relatives(sentence: str, cited: str, sent_at: datetime | None, opened) -> tuple[list[FactCandidate],
                                                                                           list[tuple[int, int]]]:
    """Relatives :data:`_NAMED_AS` names in ``sentence``: a ``relationships`` fact each (of the writer for "my", of
    the person named in the possessive otherwise), as of the message (as a mention is); and the spans it read, where
    a mention ("my boss", "Ben's daughter") is no relative of its own.  Nothing from a statement someone else made
    ("He said my boss is Tom"), a negated or hedged one ("If my boss is Tom"), or a possessive of no one named."""
    out: list[FactCandidate] = []
    spans: list[tuple[int, int]] = []
    start = sent_at.date() if sent_at is not None else None
    for rx in _NAMED_AS:
        for m in rx.finditer(sentence):
            if any(a < m.end() and m.start() < b for a, b in spans):
                continue
            rest = sentence[m.end():]
            if re.match(r"['’]", rest) or (m.group("of") and _after_preposition(sentence, m, "of")):
                continue  # "Tom is my boss's son", "Tom is my sister's": a relative of a relative
            if _reported(opened, sentence[:m.start()]) or _negated(sentence, m.start()):
                continue
            raw = m.group("names")
            if rx.pattern.startswith(_STARTS):
                raw = clean_subject_name(raw, sentence[max(0, m.start() - 20):m.start()]) or ""
                lead = sentence[:m.start("names") + max(0, m.group("names").find(raw))]
                if rx is _APPOSED and (not _INTRODUCED.fullmatch(lead) or (
                        not rest.startswith(",") and not lead.strip(" \"“("))):
                    continue  # "Thanks Tom, my sister is here": the name opens no sentence of its own; "Call Tom, my
                    # boss.": nor one an introduction does not open ("Meet Gavin Belson, my boss.")
            names = _names(raw)
            if not names:
                continue
            rel = RELATIONS[m.group("rel").lower()] if m.groupdict().get("rel") else PLURALS[m.group("prel").lower()]
            if rel in _BOTH:
                continue  # "my parents are Ana and Tom": which is which is not said
            if m.group("my"):
                subj = Subject("speaker")
            else:
                of = _owner_name(m.group("of"), sentence[max(0, m.start("of") - 20):m.start("of")])
                if of is None:
                    continue
                subj = Subject("name", name=of)
            subjects = [subj]
            both = _AND_OWNER.search(sentence[:m.start("of")]) if m.group("of") and rx in _NAMED_AS[:2] else None
            if both is not None and not sentence[:both.start()].strip(" \"“(") and \
                    sentence[:m.start("of")].endswith(("and ", "& ")):
                # "Ben and Sara's kids are Lily and Max", opening the sentence: the kids of each ("I met Tom and
                # Ben's kids Lily and Max" may be Tom and the kids)
                first = clean_subject_name(both.group("first"), sentence[max(0, both.start() - 20):both.start()])
                if first and first.casefold() not in KIN_NAMES and first.split()[0].casefold() not in _PREPOSITIONS:
                    subjects.insert(0, Subject("name", name=first))
            spans.append(m.span())
            for who in subjects:
                for name in names:
                    out.append(FactCandidate(who, "relationships", "family" if rel in FAMILY else "social",
                                             f"relation:{rel}:{name.lower()}", name, cited, 0.6, start, obj=name,
                                             obj_kind="person"))
    return out, spans
# A second verb phrase sharing the clause's subject: "I left Berlin and moved to Rome", "Ana quit Initech and
# joined Globex" — read again as "I moved to Rome", "Ana joined Globex".
_COORD = re.compile(rf"\b(?P<head>I|[Ww]e|[Mm]y (?:{_REL})(?: {_NAME})?|{_NAME}){_AUX}(?: {_ADV})? (?:left|quit|"
                    rf"sold|finished|ended|moved out of|moved away from|stopped working at|graduated from) [^,;.!?]*? "
                    rf"and (?:then |now |have |has |'ve )?(?P<rest>(?:moved|relocated|started|joined|now live|live|now work|work|"
                    rf"got a (?:new )?job)\b"
                    rf"[^,;.!?]*)")
# A question written without its question mark, as chats do: an auxiliary opening the sentence, then its subject,
# then the verb ("Did Tom move to Leeds", "Has Ana started at Globex yet", "Is your sister living in Leeds now") —
# it made people named "Did Tom", "Has Ana".  "Will moved to Leeds" (a name, then a verb) is no question.
_ASK_SUBJ = r"(?:I|you|he|she|we|they|it|[Mm]y \w+|[Yy]our \w+|[Tt]he \w+|[A-Z][\w'’-]+(?: [A-Z][\w'’-]+)?)\s+(?:\w+\s+)?"
_ASKED = re.compile(
    r"^\s*(?:(?:Did|Does|Do|Will|Would|Can|Could|Should|Shall|Didn['’]t|Doesn['’]t|Won['’]t)\s+" + _ASK_SUBJ +
    r"(?:move|live|work|start|join|get|leave|quit|go|find|land)|"
    r"(?:Has|Have|Had|Hasn['’]t|Haven['’]t)\s+" + _ASK_SUBJ + r"(?:moved|lived|worked|started|joined|got|left|quit|"
    r"been|gone|found|landed)|"
    r"(?:Is|Are|Was|Were|Isn['’]t|Aren['’]t)\s+" + _ASK_SUBJ + r"(?:moving|living|working|starting|joining|"
    r"leaving|based))\b")
_TAG_QUESTION = re.compile(r",\s*(?:did you know|you know|remember|can you believe it|would you believe it)\s*\?+$",
                           re.IGNORECASE)
"""A tag question that tells rather than asks ("…, did you know?", "…, remember?"): the sentence still states it.
("Omar works at Voestalpine, right?" asks to be told.)"""
_DIGIT_DOT = re.compile(r"(?<=\d)\.(?=\d)")
_SENTENCES = re.compile(r"[^.!?\n]+[.!?]?")
# The pronoun as chats write it: "i moved", "im living", "ive moved", "i'm", "Im" / "Ive" opening a sentence ("Jony
# Ive moved" is a surname: a capitalised "Ive" or "Im" is the pronoun only where a sentence starts).
_LOWER_I = re.compile(r"(?:(?<=^)|(?<=[\s\"“(]))(?:(?P<i>i)(?=\s|['’][a-z])|(?P<im>[Ii]m|im)(?=\s)|(?P<ive>[Ii]ve)(?=\s))")
# A diary-style sentence without its subject is the writer's own: "Just moved to Paris!", "Started at Initech today".
_NO_SUBJECT = re.compile(r"^(?:(?:Just|Finally|Recently|Officially|Also|Now)\s+)?(?:moved|relocated|started|joined|"
                         r"left|quit|got a|accepted|landed)\b", re.I)


def _as_spoken(sentence: str) -> str:
    """``sentence`` with the first-person pronoun written out as the patterns read it ("im living in Leeds" → "I'm
    living in Leeds", "Just moved to Paris!" → "I just moved to Paris!"); other words unchanged."""
    def fix(m: re.Match) -> str:
        at_start = not sentence[:m.start()].strip(" \"“(")
        if m.group("i"):
            return "I"
        word = m.group(0)
        if word[0] == "I" and not at_start:
            return word  # "Jony Ive", "Kim Im": a name
        return "I'm" if m.group("im") else "I've"
    out = _LOWER_I.sub(fix, sentence).lstrip()
    if _NO_SUBJECT.match(out):  # not inside quotation marks: '"Just moved to Paris," she said' is hers
        out = f"I {out[0].lower()}{out[1:]}"
    return out
# A title or a place word's abbreviation ends no sentence ("I live in St. Louis now", "Mt. Vernon"): its dot is read
# as a one-dot leader (U+2024, the same length) while sentences are split, and given back in each sentence.
_ABBREV = re.compile(r"\b(St|Mt|Ft|Pt|Dr|Mr|Mrs|Ms|Prof)\.(?= [A-Z])")
# An initialism's dots ("Washington, D.C. last year", "the U.S. in May") end no sentence: the inner ones never, the
# last one not before a lower-case word or a comma (it cut "I moved to Washington, D.C. last year." after "D.", the
# home read "Washington, D" and dated the message's day)
_INITIALISM = re.compile(r"(?<![\w.])(?:[A-Z]\.){2,}")


_PLACE_INITIALS = frozenset("U.S. U.K. D.C. U.A.E. E.U. N.Y. L.A. N.Z. U.S.A.".split())


def _mark_initialisms(text: str) -> str:
    """``text`` with the dots of initialisms that end no sentence written as U+2024 (given back in each sentence):
    the inner dots, and the last one before a lower-case word, a comma, or — for initials that are not a
    country's or a city's ("J.P. Morgan", not "the U.S. Then …") — a capitalised word that is no sentence opener."""
    def dots(m: re.Match) -> str:
        inner = m.group(0)[:-1].replace(".", "\u2024")
        after = text[m.end():m.end() + 40]
        nxt = re.match(r"\s+([A-Z][\w'’]*)", after)
        on = re.match(r"\s+[a-z]|[,;:]", after) or (nxt and m.group(0) not in _PLACE_INITIALS and
                                                      nxt.group(1).casefold() not in _NOT_NAMES)
        return inner + ("\u2024" if on else ".")
    return _INITIALISM.sub(dots, text)


def _value(raw: str) -> str:
    """A place's or an employer's name as captured, without a trailing comma or full stop — but an initialism keeps
    its last dot ("Washington, D.C.", "the U.S.")."""
    out = raw.strip().rstrip(",")
    return out if re.search(r"(?<![\w.])(?:[A-Z]\.){2,}$", out) else out.rstrip(".,")


# Where a clause ends, for reading which time expression belongs to which statement ("I'm moving to Lisbon next
# month, I live in Porto now": Porto is not next month's): punctuation, the words that join clauses, and "and" or
# "then" before a subject of its own ("…, and I live in Porto") — not before a verb sharing the subject ("I left
# Berlin and moved to Rome last week": one move, one time).
_BOUNDARY = re.compile(r"[,;:–—]|\b(?:but|after|before|while|that|because|so|although|whereas)\b|"
                       r"\b(?:and|then)\b(?=\s+(?:(?:now|then|later|since then|today|recently)\s+)?(?:I|[Ww]e|[Hh]e|[Ss]he|"
                       r"[Tt]hey|[Yy]ou|[Mm]y|[A-Z][a-z]+\s+"
                       r"(?:is|was|has|had|moved|lives|works|started|joined|left|quit)\b))")


def _when(text: str, span: tuple[int, int], anchors, sent_at: datetime | None) -> tuple[date | None, date | None, str]:
    """(first day, last day or None, how it was read) for the statement at ``span`` of ``text``, in the sender's
    calendar (``sent_at``'s own offset): the first time expression (``anchors``, found in ``text``) in the
    statement's own clause; else the nearest one before it that stands alone in its clause ("Last Monday, I moved
    to Lisbon"); else the message's day.  The last day is a weekend's Sunday, or the end of a span of days ("from
    10 to 12 June": 12 June); None for one day."""
    if sent_at is None:
        return None, None, ""
    if not anchors:
        return sent_at.date(), None, ""
    inside = lambda i: any(a.span[0] <= i < a.span[1] for a in anchors)  # noqa: E731  ("the day before yesterday")
    cuts = [(b.start(), b.end()) for b in _BOUNDARY.finditer(text)
            if not inside(b.start()) and not (span[0] <= b.start() < span[1])]

    def clause(lo: int, hi: int) -> tuple[int, int]:
        return (max([e for st, e in cuts if e <= lo], default=0), min([st for st, e in cuts if st >= hi],
                                                                       default=len(text)))

    start, end = clause(*span)
    own = [a for a in anchors if start <= a.span[0] and a.span[1] <= end]
    if not own:
        alone = []
        for a in anchors:
            if a.span[1] > span[0]:
                continue
            cs, ce = clause(*a.span)
            rest = (text[cs:a.span[0]] + " " + text[a.span[1]:ce]).split()
            if len(rest) <= 1:
                alone.append(a)
        own = alone[-1:]
    if not own:
        return sent_at.date(), None, ""
    a = own[0]
    last = a.last if a.last is not None else a.day + timedelta(days=1) if "weekend" in a.phrase.lower() else None
    return a.day, last, a.note(sent_at)


def _birthday_value(text: str) -> str:
    months = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
              "november", "december"]
    low = text.lower()
    month = next(i + 1 for i, m in enumerate(months) if m in low)
    day = int(re.search(r"\d{1,2}", text).group(0))
    year = re.search(r"\d{4}", text)
    return f"{year.group(0)}-{month:02d}-{day:02d}" if year else f"--{month:02d}-{day:02d}"


_NEGATION = re.compile(r"\b(?:not|never|n['’]t|no longer|used to|would|might|maybe|perhaps|(?-i:may|^\s*May(?=\s+$))|could|should|if|unless|whether|in case)\b[^,;]*$",
                       re.I)
"""Words that hedge or negate what follows them in their clause; "may" in lower case only, or opening the sentence
right before its subject ("May I move to Leeds") — "In May I moved to Leeds", "Since May I've lived in Rome" name
the month."""


_CLAUSE_START = re.compile(r".*\b(?:but|and now|now|whereas|while|although|though|these days|nowadays)\b", re.I | re.S)


def _negated(sentence: str, start: int) -> bool:
    """True when the words right before a match (same clause) negate or hedge it ("If I move to Oslo") — from where
    its clause starts: "I used to work at Initech but now I work at Globex" states Globex."""
    before = sentence[max(0, start - 40):start]
    cut = _CLAUSE_START.match(before)
    return bool(_NEGATION.search(before[cut.end():] if cut else before))


# "He said I used to live in Rome", "Tom thinks I moved to Oslo": what someone else says of the writer, not the
# writer's own word
_HEARSAY = re.compile(r"(?<!\bI )\b(?:[Hh]e|[Ss]he|[Tt]hey|[A-Z][a-z]+)\s+(?:said|says|thinks|thought|claims|claimed|"
                      r"reckons|believes|told (?:me|us|everyone|them|him|her))(?:\s+that)?\s*$")
_SPEECH = re.compile(r"(?<!\bI )\b(?:said|says|say|wrote|writes|told (?:me|us|him|her|them)|texted|messaged|posted|replied|"
                     r"asked|added|goes|went)\s*:\s*$", re.I)


_ACCORDING = re.compile(r"\b[Aa]ccording to (?:him|her|them|[A-Z][a-z]+(?: [A-Z][a-z]+)?),?\s*$")
"""'According to Ana, my boss is Tom': Ana's word, not the writer's."""


def _reported(opened: bool | tuple[bool, str], before: str) -> bool:
    """True when words at the end of ``before`` (the sentence up to a match) are someone else's, quoted: inside
    quotation marks (``opened``: the sentence starts inside them — True, or the state :func:`_quote_state` gives,
    with the mark that opened them) or right after "X said:" — 'Tom wrote: "I moved to
    Nice."', 'My friend said: I moved to Oslo.'  Their "I" and "my" are the quoted person's, not the writer's."""
    state = opened if isinstance(opened, tuple) else (opened, '"')
    return _quote_state(before, state)[0] or bool(_SPEECH.search(before)) or bool(_HEARSAY.search(before)) or \
        bool(_ACCORDING.search(before))


def _in_quotes(text: str, opened: bool = False) -> bool:
    """True when the end of ``text`` is inside double quotation marks (“…”, «…», „…“, "…")."""
    return _quote_state(text, (opened, '"'))[0]


def _quote_state(text: str, state: tuple[bool, str]) -> tuple[bool, str]:
    """(inside quotation marks, the mark that opened them) after reading ``text`` from ``state``."""
    inside, opener = state
    for ch in text:
        if inside and (ch in "”»" or (ch == "“" and opener == "„") or (ch == '"' and opener == '"')):
            inside = False
        elif ch in "“«„" or ch == '"':
            inside, opener = True, ch
    return inside, opener


def _first_person(m: re.Match) -> bool:
    """True when a match's subject is the writer's own: "I", "we", "my …" or a bare "Mom"."""
    g = m.groupdict()
    return bool(g.get("we") or g.get("rel") or g.get("bare") or (g.get("subj") or "").lower() in ("i", "my"))


_SITE = re.compile(r"^['’]s\b|^ (?:office|offices|branch|site|store|shop|depot|warehouse|campus|hub|plant|factory|"
                   r"lab|HQ|headquarters|location|outlet)\b")
_FOR_THE_DAY = re.compile(r"^[^,;.!?]*?\b(?:today|tonight|this (?:morning|afternoon|evening)|all day)\b")


def _workplace(clause: str, m: re.Match) -> str | None:
    """The employer an employer match names, or None when it names where someone works rather than for whom:
    a branch of an unnamed employer ("at the Leeds office", "at the Berlin branch") or a place worked at for the day
    in the present progressive ("I'm working at Starbucks today", "… at the library this morning").  A company's
    site in the possessive is the company: "Initech's London office" → Initech (it was "Initech's London")."""
    org = _value(m.group("org"))
    after = clause[m.end("org"):]
    if _SITE.match(after):
        if after[0] in "'’":
            return org
        if clause[:m.start("org")].endswith("the "):
            return None
    poss = re.match(r"^(.+?)['’]s\b", org)
    if poss and re.match(r"^(?: [A-Z][\w.'’-]*| head| main| regional| local| new| old)?(?=\s)", org[poss.end():] + after):
        site = re.sub(r"^(?: [A-Z][\w.'’-]*| head| main| regional| local| new| old)?", "", org[poss.end():] + after)
        if _SITE.match(site):
            return poss.group(1)  # "Initech's London office", "Tesco's head office": the company
    if re.search(r"(?:['’]m|\bam|['’]re|\bare|['’]s|\bis) (?:\w+ )?working (?:at|for)", m.group(0)) and \
            _FOR_THE_DAY.match(after):
        return None
    return org


_PREPOSITIONS = frozenset("""at in from for with to of near by into onto around outside inside across via about
like than behind under over within without beside between among toward towards""".split())


def _after_preposition(clause: str, m: re.Match, group: str = "name") -> bool:
    """True when the name a match takes for its subject follows a preposition — it is the object of the words
    before it, not the one who lives or works somewhere: "My friend who works at Initech moved to Bath", "The guy
    who lives in York works at Globex", "Everyone at Hooli moved to Leeds" (each made a person named Initech, York,
    Hooli).  A month or weekday after the preposition is a date, as :func:`clean_subject_name` reads it: "In March
    Tom moved to Leeds" is about Tom."""
    if m.groupdict().get(group) is None:
        return False
    words = clause[:m.start(group)].split()
    first = m.group(group).split()[0].casefold()
    return bool(words) and words[-1].casefold().strip(",") in _PREPOSITIONS and first not in _CALENDAR


_TRAILING_WEEKDAY = re.compile(r"\s+(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)$")
"""A weekday after a place or an employer ("I moved to Leeds Monday"): when it happened, not part of the name."""


_COUNT = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a few": 3, "a couple of": 2, "several": 3}


def _since(day: date, n: str, unit: str) -> date:
    """The day ``n`` ``unit``s (year, month) before ``day``: "for three years" written on 2023-07-01 →
    2020-07-01 (the 28th at most in a month that is shorter)."""
    k = int(n) if n.isdigit() else _COUNT[n.lower()]
    months = day.year * 12 + day.month - 1 - (k * 12 if unit == "year" else k)
    return date(months // 12, months % 12 + 1, min(day.day, 28))


# "… for five years", "… for about 18 months" right after a home's place: how long it has held (with a perfect:
# "I've lived", "we have been living")
_HELD_FOR = re.compile(r"^,? for (?:(?:about|almost|nearly|over|around|more than|just over) )?(?P<n>\d+|an?|one|two|"
                       r"three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|a couple of|several) "
                       r"(?P<unit>year|month)s?\b")
_PERFECT = re.compile(r"(?:['’]ve|\bhave|\bhas) (?:\w+ )?(?:lived|been living)\b")
# A clause of time to come: "once", "when", "as soon as", "after", "before", "until" before a verb in the present
# ("Once I move to Leeds I'll call you", "When Tom starts at Globex …") — it stated the move as made; in the past
# ("Once I moved to Leeds, …") it is one
_WHEN_BEFORE = re.compile(r"\b(?:once|when|whenever|as soon as|after|before|until|till)\s+$", re.I)
_PRESENT = re.compile(r"\b(?:move|moves|start|starts|join|joins|live|lives|work|works|relocate|relocates)\b")


_AND_BEFORE = re.compile(rf"(?:^|(?<=[\s,(\"“]))(?:[Mm]y (?P<rel>{_REL})(?: (?P<relname>{_NAME}))?|(?P<name>{_NAME}))"
                         rf"(?:,? and| &) $")


def _with_partner(clause: str, m: re.Match, fact: FactCandidate) -> list[FactCandidate]:
    """``fact`` again for the one named with its subject before "and": "Tom and Ana moved to Leeds" (Tom too),
    "Sarah and I work at Initech" (Sarah too), "My sister and I live in York" (the sister too) — the first of the
    two was left out.  Empty when nothing name-like opens the clause there ("Congrats and …", "with Tom and Ana":
    after a preposition; "I've left Initech and I'm …": the end of a verb phrase)."""
    hit = _AND_BEFORE.search(clause[:m.start()] if clause[m.start():m.start() + 1] != " " else clause[:m.start() + 1])
    if hit is None:
        return []
    lead = clause[:hit.start()].strip()
    if _RELATIVES_BEFORE.search(lead):
        lead = ""  # "My sisters Ana and Julia moved to Leeds", "Ben's kids Lily and Max …": Ana too, Lily too
    if lead and not lead.endswith((",", ";", ":", "(", '"', "“")) and any(
            w.casefold().strip(",.") not in _NOT_NAMES | _TEMPORAL | _CALENDAR and not w.strip(",.").isdigit()
            for w in lead.split()):
        return []  # "I've left Initech and I'm now working for Globex": Initech ends a verb phrase, it is no subject
    bare = re.fullmatch(rf"(?:{_BARE})", hit.group("name") or "")
    if hit.group("rel"):
        subj = Subject("relation", RELATIONS[hit.group("rel").lower()], _relname(hit.group("relname")))
    elif hit.group("name") in ("Me", "me"):
        subj = Subject("speaker")  # "Me and Tom moved to Leeds"
    elif bare:  # "Mum and Dad moved to Spain"
        word = bare.group(0).lower()
        subj = Subject("relation", RELATIONS.get(word) or RELATIONS[{"mommy": "mom", "mummy": "mum",
                                                                     "daddy": "dad"}[word]], word=bare.group(0))
    else:
        before = clause[:hit.start("name")]
        name = clean_subject_name(hit.group("name"), before[-20:])
        words = before.split()
        if not name or (words and words[-1].casefold() in _PREPOSITIONS) or name.casefold() in KIN_NAMES:
            return []
        subj = Subject("name", name=name)
    if subj == fact.subject:
        return []
    return [replace(fact, subject=subj)]


def _stated(clause: str, sentence: str, sent_at: datetime | None, anchors,
            opened: bool | tuple[bool, str] = False) -> list[FactCandidate]:
    """The facts :data:`_PATTERNS` find in ``clause`` (a sentence, or a clause of it read with its subject), each
    citing ``sentence`` and dated as :func:`_when` reads its own part of ``clause`` (``anchors``: its time
    expressions).  ``opened``: ``clause`` starts inside quotation marks (:func:`_reported`).  "My parents …" is a
    fact of the mother and one of the father."""
    found: list[FactCandidate] = []
    for c in _stated_as_written(clause, sentence, sent_at, anchors, opened):
        if c.subject.kind == "relation" and c.subject.relation in _BOTH:  # "My parents live in Cork"
            found += [replace(c, subject=replace(c.subject, relation=r, name=None)) for r in _BOTH[c.subject.relation]]
        else:
            found.append(c)
    return found


def _stated_as_written(clause: str, sentence: str, sent_at: datetime | None, anchors,
                       opened: bool | tuple[bool, str] = False) -> list[FactCandidate]:
    """:func:`_stated`'s facts, a relation word standing for two relatives ("my parents") kept as written."""
    found: list[FactCandidate] = []
    for rx, what in _PATTERNS:
        for m in rx.finditer(clause):
            if _first_person(m) and _reported(opened, clause[:m.start()]):
                continue  # 'Tom wrote: "I moved to Nice."': Tom's move, not the writer's
            start, end, note = _when(clause, m.span(), anchors, sent_at)
            if what == "birthday" and (m.group("subj") or "").lower() == "my":
                subj = Subject("speaker")
            elif what == "birthday" and m.groupdict().get("rel") is None and m.group("subj") is None:
                subj = Subject("name", name=clean_subject_name(m.group("name"), m.string[:m.start("name")]))
            else:
                subj = _subject(m)
            if subj.kind == "name" and not subj.name:
                continue  # "You moved…", "Congrats…": no one is named
            if subj.kind == "relation" and subj.of is None and m.groupdict().get("orel"):
                continue  # "Today's friend …": nothing named owns the relative
            if (subj.kind == "name" and _after_preposition(clause, m)) or (subj.of and _after_preposition(clause, m,
                                                                                                          "of")):
                continue  # "My friend who works at Initech moved to Bath": Initech is where, not who
            if what == "move_job":  # "We're moving to Hamburg for a new job at Airbus": the writer's job too (a
                # household moves for one of its own; "for her new job": someone else's)
                if m.group("det") and _first_person(m) and not m.group("rel") and not m.group("bare"):
                    continue
                what = "employer"
            elif m.groupdict().get("we") and what != "home":
                continue
            if _negated(clause, m.start()):
                continue  # "I never lived in Berlin", "I didn't move to Madrid", "Unless I move to Leeds"
            if (_WHEN_BEFORE.search(clause[:m.start()]) or _WHEN_BEFORE.search(m.group(0)[:7].split()[0] + " ")) \
                    and _PRESENT.search(m.group(0)):
                continue  # "Once I move to Leeds I'll call you": a time to come, not a move made
            if what == "tenure":  # "for three years": since that long before the message ("since …": its anchor)
                if m.group("n") and sent_at is not None:
                    start, note = _since(sent_at.date(), m.group("n"), m.group("unit")), (
                        f'"{m.group("n")} {m.group("unit")}(s)" before the message ({sent_at.date().isoformat()})')
                what = "employer"
            if what == "employer":
                org = _workplace(clause, m)
                if org is None:
                    continue  # "I'm working at the Leeds office today", "… at Starbucks today": where, not for whom
                org = _TRAILING_WEEKDAY.sub("", org)
                found.append(FactCandidate(subj, "work", "employment", "employer", org, sentence, 0.7, start,
                                           obj=org, obj_kind="thing", time_note=note))
                found += _with_partner(clause, m, found[-1])
            elif what == "home":
                place = _TRAILING_WEEKDAY.sub("", _value(m.group("place")))
                held = _HELD_FOR.match(clause[m.end():])
                if held and sent_at is not None and _PERFECT.search(m.group(0)):
                    # "I've lived in Paris for five years": since five years before the message, as a job's tenure
                    start, note = _since(sent_at.date(), held.group("n"), held.group("unit")), (
                        f'"{held.group("n")} {held.group("unit")}(s)" before the message ({sent_at.date().isoformat()})')
                found.append(FactCandidate(subj, "places", "residence", "home", place, sentence, 0.7, start,
                                           obj=place, obj_kind="place", time_note=note))
                found += _with_partner(clause, m, found[-1])
            elif what == "birthday":
                found.append(FactCandidate(subj, "identity", "birthday", "birthday",
                                           _birthday_value(m.group("bday")), sentence, 0.8, None))
            elif what == "health":
                event = re.sub(r"^(a|an) ", "", m.group("event").strip().lower())
                day = start.isoformat() if start else "unknown"
                found.append(FactCandidate(subj, "health", "event", f"{event}:{day}", event, sentence, 0.7,
                                           start, end, time_note=note))
    return found


def _month_no(name: str | None, default: int) -> int:
    return _MONTH_NAMES.index(name.casefold()) + 1 if name else default


_MONTH_NAMES = [m.casefold() for m in _MONTHS.strip("(?:)").split("|")]


def _spells(sentence: str, cited: str, sent_at: datetime | None, anchors, opened) -> list[FactCandidate]:
    """The past spells of :data:`_SPELLS` in ``sentence``: endings of a home or a job that held (``held``), dated
    by their range ("from 2010 to 2015": held from 2010-01-01, ended 2015-01-01 — a year is its first day, as
    "in 2015" is), their "until" ("until 2020": ended 2020-01-01), else by the sentence's time anchor or the
    message's day; what came next ("before moving to Lyon") is ``then``."""
    out: list[FactCandidate] = []
    ended: list[bool] = []  # whether each spell of ``out`` says when it ended (a range, "until …")
    for rx, keys in _SPELLS:
        for m in rx.finditer(sentence):
            if (_first_person(m) and _reported(opened, sentence[:m.start()])) or _negated(sentence, m.start()):
                continue
            subj = _subject(m)
            value = _TRAILING_WEEKDAY.sub("", _value(m.group("val")))
            if (subj.kind == "name" and (not subj.name or _after_preposition(sentence, m))) or \
                    value.split()[0].casefold() in _NOT_NAMES:
                continue
            rest = sentence[m.end():]
            held_from = None
            start, _end, note = _when(sentence, m.span(), anchors, sent_at)
            if (r := _SPELL_RANGE.match(rest)) is not None:
                held_from = date(int(r.group("y1")), _month_no(r.group("m1"), 1), 1)
                start = date(int(r.group("y2")), _month_no(r.group("m2"), 1), 1)
                note = f'"{r.group(0).strip(", ")}" as written'
            elif (u := _SPELL_UNTIL.match(rest)) is not None:
                start = date(int(u.group("yu")), _month_no(u.group("mu"), 1), 1)
                note = f'"{u.group(0).strip(", ")}" as written'
            elif (u := re.match(r"^,? (?:until|till) ", rest)) is not None:  # "until last summer": its anchor
                at = m.end() + u.end()
                anchor = next((a for a in anchors if a.span[0] == at), None)
                if anchor is None:
                    continue  # "until I met Tom": no day to end it on
                start, note = anchor.day, anchor.note(sent_at) if sent_at is not None else ""
            explicit = held_from is not None or _SPELL_UNTIL.match(rest) is not None or \
                re.match(r"^,? (?:until|till) ", rest) is not None
            if held_from is not None and start is not None and held_from > start:
                continue  # "from 2015 to 2010": no spell
            nxt = _SPELL_THEN.search(rest)
            then = None
            if nxt is not None and nxt.group("then") and keys == (_HOME,):
                then = _TRAILING_WEEKDAY.sub("", _value(nxt.group("then")))
            elif nxt is not None and nxt.group("join") and keys == (_JOB,):
                then = _value(nxt.group("join"))
            if m.groupdict().get("we"):
                keys = (_HOME,)
            out.append(FactCandidate(subj, keys[0][0], keys[0][1], keys[0][2], value, cited, 0.7, start,
                                     time_note=note, ends=keys, then=then, held=True, held_from=held_from))
            ended.append(explicit)
    dated = _dated_spells(sentence, cited, sent_at, anchors, opened, list(zip(out, ended)))
    # a spell the span dates replaces the one read with no dates of its own ("I used to live in Rome in 2019": from
    # 2019 to 2020, not ended on 1 Jan 2019)
    redated = {(d.value, d.key) for d in dated}
    return [c for c, e in zip(out, ended) if e or (c.value, c.key) not in redated] + dated


def _dated_spells(sentence: str, cited: str, sent_at: datetime | None, anchors, opened,
                  found: list[tuple[FactCandidate, bool]]) -> list[FactCandidate]:
    """Past spells of :data:`_DATED_SPELLS` in ``sentence`` that :data:`_SPELLS` did not read: the simple past with
    a span of time right after it or opening its clause ("I lived in Rome in early 2021", "Back in 2019, we lived in
    Oslo") — held from the span's first day (:func:`~core.extraction.time_anchors.anchor_period`) and ended the day
    after its last, or on the message's day when that is sooner ("I lived in Rome this year").  A day ("I lived in
    Rome on Monday"), a bare past ("I lived in Paris") or a span still to come dates no spell."""
    if sent_at is None:
        return []
    out: list[FactCandidate] = []
    told = {(c.value, c.key): (explicit, c.then) for c, explicit in found}
    for rx, keys in _DATED_SPELLS:
        for m in rx.finditer(sentence):
            if (_first_person(m) and _reported(opened, sentence[:m.start()])) or _negated(sentence, m.start()):
                continue
            subj = _subject(m)
            value = _TRAILING_WEEKDAY.sub("", _value(m.group("val")))
            if (subj.kind == "name" and (not subj.name or _after_preposition(sentence, m))) or \
                    value.split()[0].casefold() in _NOT_NAMES or told.get((value, keys[0][2]), (False,))[0]:
                continue  # a spell with its own end ("from 2010 to 2015", "until 2020") is read as written
            after = [a for a in anchors if m.end() <= a.span[0] and _BETWEEN.fullmatch(sentence[m.end():a.span[0]])]
            before = [a for a in anchors if a.span[1] <= m.start() and not sentence[a.span[1]:m.start()].strip(" ,")]
            anchor = (after or before or [None])[0]
            if anchor is None or re.match(r"(?i)(?:since|until|till|by|from)\b", anchor.phrase):
                continue
            span = anchor_period(anchor)
            if span is None or span[0] > sent_at.date():
                continue
            end = min(span[1], sent_at.date())
            then = told.get((value, keys[0][2]), (False, None))[1]
            nxt = _SPELL_THEN.search(sentence[m.end():]) if then is None else None
            if nxt is not None and nxt.group("then") and keys == (_HOME,):  # "… in 2019 before moving to Lyon"
                then = _TRAILING_WEEKDAY.sub("", _value(nxt.group("then")))
            elif nxt is not None and nxt.group("join") and keys == (_JOB,):
                then = _value(nxt.group("join"))
            out.append(FactCandidate(subj, keys[0][0], keys[0][1], keys[0][2], value, cited, 0.7, end,
                                     time_note=f'"{anchor.phrase}" = {span[0].isoformat()} to {end.isoformat()}',
                                     ends=keys, held=True, held_from=span[0], then=then))
    return out


_BETWEEN = re.compile(rf"(?:,? (?:{_SPAN}|briefly|temporarily|for a (?:while|bit|time|spell)))?,? ?")
"""What may stand between a spell's value and the span that dates it: "I lived in Rome for a few months in 2019"."""


def extract_facts(text: str, sent_at: datetime | None, date_order: str | None = None) -> list[FactCandidate]:
    """Facts in ``text`` written at ``sent_at`` (tz-aware at the sender's offset, or None when unknown).

    Relative dates ("yesterday", "on Monday") are read in the sender's calendar — ``sent_at``'s own
    offset, so pass the record's time as the ingestor gave it, not converted to UTC — and each
    candidate says how in ``time_note``.

    Returns candidates in text order; relation mentions ("my sister Jane") become
    ``relationships`` facts about the speaker with the relative as object.  Questions state no facts;
    a sentence's subject is its speaker ("I …"), a relative ("my sister …") or the person it names —
    never whoever spoke before (in a group chat a reply is not about the previous speaker).

    ``date_order``: "DMY" or "MDY" when the text's source writes numeric dates one way (the record's
    ``attrs["date_order"]``: a mailbox, a WhatsApp chat), so "04/05/2021" is read that way
    (``core.extraction.time_anchors.find_time_anchors``); None: by the tense.
    """
    out: list[FactCandidate] = []
    sentences = []  # (text read, the sentence cited, whether the text is the whole sentence, opens in a quote)
    marked = _DIGIT_DOT.sub("\u2024", _mark_initialisms(_ABBREV.sub("\\1\u2024", text)))  # "3.6.2023", "2.5 km": no sentence ends
    quote, read = (False, '"'), 0  # the quotation marks the text read so far ends in (read once, in order)
    for sm in _SENTENCES.finditer(marked):
        cited = sm.group(0).strip().replace("\u2024", ".")
        sentence = _as_spoken(cited)
        quote, read = _quote_state(marked[read:sm.start()], quote), sm.start()
        opened = quote if quote[0] else False
        sentences.append((sentence, cited, True, opened))
        for cm in _COORD.finditer(sentence):  # "I left Berlin and moved to Rome": also "I moved to Rome"
            if not _negated(sentence, cm.start()) and not (cm.group("head")[:1] in "IWwMm" and
                                                           _reported(opened, sentence[:cm.start()])):
                sentences.append((f"{cm.group('head')} {cm.group('rest')}.", cited, False, False))
    for clause, cited, whole, opened in sentences:
        asked = _TAG_QUESTION.sub("", cited)  # "I used to live in Rome, did you know?" states it all the same
        if len(cited) < 6 or asked.endswith("?") or _ASKED.match(cited):
            continue  # a question states nothing ("Tom works at Initech?", "Did Tom move to Leeds")
        anchors = find_time_anchors(clause, sent_at, date_order) if sent_at is not None else []
        if not whole:  # a clause read again with its subject: only what it states (no endings, mentions)
            out += _stated(clause, cited, sent_at, anchors)
            continue
        sentence = clause
        out += _stated(sentence, cited, sent_at, anchors, opened)
        for rx, keys in _ENDINGS:
            for m in rx.finditer(sentence):
                if _first_person(m) and _reported(opened, sentence[:m.start()]):
                    continue
                start, _end, note = _when(sentence, m.span(), anchors, sent_at)
                subj = _subject(m)
                value = _value(m.group("val"))
                if (subj.kind == "name" and not subj.name) or value.split()[0].casefold() in _NOT_NAMES:
                    continue
                then = None
                if rx is _LEFT:
                    rest = re.split(r"[,;.!?]|\band\b|\bbut\b", sentence[m.end():], maxsplit=1)[0]
                    if _AWHILE.search(rest):
                        continue  # "I left Berlin for the weekend": a trip, no home ended
                    nxt = _THEN.match(sentence[m.end():])
                    if nxt and nxt.group("join"):
                        keys, then = (_JOB,), nxt.group("join").strip().rstrip(".,")
                    elif nxt:
                        then = _TRAILING_WEEKDAY.sub("", _value(nxt.group("then")))
                if m.groupdict().get("we"):
                    keys = (_HOME,)  # "we left Berlin": a household's home; a team leaving says nothing of a job
                # "I left Initech for Globex": Initech held until then (history, when no fact of it is known); a
                # bare "I left Paris" may be a trip's end, so it only ends what is known
                out.append(FactCandidate(subj, keys[0][0], keys[0][1], keys[0][2], value, cited, 0.7, start,
                                         time_note=note, ends=keys, then=then, held=then is not None))
        out += _spells(sentence, cited, sent_at, anchors, opened)
        named, read = _named_relatives(sentence, cited, sent_at, opened)
        out += named
        within = lambda i: any(a <= i < b for a, b in read)  # noqa: E731  ("My boss is Tom": no boss apart from Tom)
        for m in _OF_MENTION.finditer(sentence):  # "Nina's sister lives in Oslo": Nina has a sister
            of = _owner_name(m.group("of"), sentence[max(0, m.start() - 20):m.start()])
            if within(m.start()) or not of or _after_preposition(sentence, m, "of") or \
                    _reported(opened, sentence[:m.start()]):
                continue
            rel = RELATIONS[m.group("orel").lower()]
            name = _relname(m.group("orelname"))
            if name and name.split()[0] in ("had", "has", "is", "was"):
                name = None
            if rel in _BOTH:  # "Nina's parents": a mention of each
                out += [FactCandidate(Subject("name", name=of), "relationships", "family", f"relation:{r}", r, cited,
                                      0.6, _when(sentence, m.span(), anchors, sent_at)[0], obj_kind="person")
                        for r in _BOTH[rel]]
                continue
            out.append(FactCandidate(Subject("name", name=of), "relationships", "family" if rel in FAMILY else
                                     "social", f"relation:{rel}" + (f":{name.lower()}" if name else ""), name or rel,
                                     cited, 0.6, _when(sentence, m.span(), anchors, sent_at)[0], obj=name,
                                     obj_kind="person"))
        for m in _MENTION.finditer(sentence):
            if within(m.start()):
                continue
            if _reported(opened, sentence[:m.start()]):
                continue  # 'Tom wrote: "my sister …"': Tom's sister
            # a relative is one as of the message, whatever day its sentence is about ("My boss Carla wants the
            # report by Friday": Carla was the boss when it was written, not from Friday)
            start = sent_at.date() if sent_at is not None else None
            rel = RELATIONS[m.group("rel").lower()]
            name = _relname(m.group("relname"))
            if name and name.split()[0] in ("had", "has", "is", "was"):
                name = None
            if rel in _BOTH:  # "my parents": a mention of each
                out += [FactCandidate(Subject("speaker"), "relationships", "family", f"relation:{r}", r, cited, 0.6,
                                      start, obj_kind="person") for r in _BOTH[rel]]
                continue
            out.append(FactCandidate(Subject("speaker"), "relationships", "family" if rel in FAMILY else "social",
                                     f"relation:{rel}" + (f":{name.lower()}" if name else ""), name or rel, cited,
                                     0.6, start, obj=name, obj_kind="person"))
    return out

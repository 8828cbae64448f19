"""Relative and absolute time expressions resolved against the message's own time (seed 001 layer 2).

"last weekend" in a message sent on Wed 2026-05-13 means Sat 2026-05-09 — the anchor
is the message's timestamp, never "now", read in the **sender's calendar**: a message sent
Sat 10 Jun 2023 08:30 +10:00 (Fri 22:30 UTC) says "yesterday" about Fri 9 Jun, so a tz-aware
reference is taken at its own offset (ingestors keep the offset the source gave: mail ``Date:``,
a photo's offset, a chat export's local time).  Only a small, deterministic grammar:

* ``today``, ``yesterday``, ``tomorrow``, ``tonight``, ``last night``, ``this morning/evening``,
  ``the day before yesterday``, ``the day after tomorrow``
* ``N days|weeks|months|years ago`` (N as digits or a word up to twelve), ``a fortnight ago``; ``in N
  days|weeks|months`` ahead in a sentence not in the past tense ("I move to Lisbon in two weeks")
* ``last|next week|weekend|month|year``, ``last|next|this <weekday>``; ``over the weekend``: the last one in a
  sentence in the past tense, else the next one
* ``on|starting|from|as of <weekday>``, or a capitalised weekday alone (``I moved to Leeds Monday``): the most
  recent one in a sentence in the past tense, else the next one; a weekday may be abbreviated as calendars write
  it, capitalised (``on Sat.``, ``last Thurs``)
* numeric ``D.M.YYYY`` (day first), ``D/M/YYYY`` or ``M/D/YYYY`` (the order that is a date, or the one that
  fits the tense: :func:`_numeric_day`)
* ``<day> <Month> [<year>]``, ``<Month> <day>[,] [<year>]``, ISO ``YYYY-MM-DD``; without a year, the last
  such day up to the message in a sentence in the past tense, the next one where words of time to come or a plan
  set for it come before it ("I'll fly on 9 June", "I'm flying…", "booked for 9 June"), else — no tense, or a
  booking told in the past ("Booked the flight to Lisbon on 9 June") — the one nearest the message, within six
  months either side (:func:`_lean`, :func:`_yearless`)
* spans of days: ``from 10 to 12 June``, ``10-12 June``, ``June 10–12``, ``between 3 and 5 March``, ``28 June to 3
  July [2024]``: an anchor on the first day with the last in :attr:`TimeAnchor.last` (:func:`anchor_period`: its
  days); without a year, the first day's is read as above
* ``on the <Nth>``: that day of this month, or of the month before when the sentence is in the past tense
  and the day is still to come (the month after when it is not, and the day has passed)
* ``in|since|during|back in <year>``: the year's first day; ``early|mid|late <year>``, ``the start|middle|end of
  <year>``: 1 January, 1 July, 1 September, 1 December
* seasons: ``last|this|next summer``, ``in (the) spring [of] [<year>]``, ``winter 2021``: the first day of that
  season (northern meteorological: 1 March, 1 June, 1 September, 1 December; ``winter <year>`` from 1 January)
* ``at the end|beginning|start|middle of <Month> [<year>]``, ``mid-|late <Month>``: its last day, 1st, 15th, 21st
* ``the week|weekend before last``: the Monday (Saturday) two weeks back
* ``last|this|next <Month>``: the 1st of the latest such month before the message's month, of this year's, of
  the first one after it; ``in <Month> last|this|next year``: that year's
* ``in|since|during [early|late] <Month> [<year>]`` (month names capitalised, so "in may" is not May; the
  word before may start a sentence: "Since March I work at…"): its
  first day; without a year, the last such month up to the message after "since" or in a sentence in the
  past tense, else the next one

Each hit resolves to a calendar day (a date) of the sender; weeks start on Monday (ISO 8601).
"""
from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from datetime import date, datetime, timedelta

_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
        "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple of": 2, "few": 3}
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december"]
_MON = {m[:3]: i + 1 for i, m in enumerate(_MONTHS)}
_WD_INDEX = {d[:3]: i for i, d in enumerate(_WEEKDAYS)}
# a weekday, in full (any case) or abbreviated as calendars and mail write it, capitalised ("Sat", "Thurs."): "sat",
# "sun" and "wed" in lower case are words
_WEEKDAY_RE = (r"((?i:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
               r"(?-i:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)\.?(?![\w']))")
_MONTH_RE = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|" \
            r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"

# A span of days: "from 10 to 12 June", "10-12 June", "10th–12th of June 2024", "between 3 and 5 March", "28 June to
# 3 July", "from 28 Dec 2023 to 2 Jan 2024" (day first), and "June 10–12", "from June 28 to July 3, 2024", "between
# March 3 and 5" (month first).  "and" joins the two ends only after "between" ("on 3 and 5 June" is two days); a
# time of day after the second number ("June 10 - 3pm") is no end.
_RANGE_SEP = r"\s*(?P<sep>-|–|—|(?i:to|till|until|through|thru|and))\s*(?:(?i:the) )?"
_RANGE_DMY = re.compile(
    r"(?<![\w:./-])(?:(?P<lead>(?i:from|between)) (?:(?i:the) )?)?(?P<d1>\d{1,2})(?:st|nd|rd|th)?"
    r"(?: (?:of )?(?P<m1>" + _MONTH_RE[1:-1] + r")\b\.?(?:,? (?P<y1>(?:19|20)\d\d)\b)?)?" + _RANGE_SEP +
    r"(?P<d2>\d{1,2})(?:st|nd|rd|th)? (?:of )?(?P<m2>" + _MONTH_RE[1:-1] + r")\b(?:,? (?P<y2>(?:19|20)\d\d)\b)?",
    re.I)
_RANGE_MDY = re.compile(
    r"\b(?:(?P<lead>(?i:from|between)) )?(?P<m1>" + _MONTH_RE[1:-1] + r")\.? (?P<d1>\d{1,2})(?:st|nd|rd|th)?"
    r"(?:,? (?P<y1>(?:19|20)\d\d))?" + _RANGE_SEP + r"(?:(?P<m2>" + _MONTH_RE[1:-1] + r")\.? )?(?P<d2>\d{1,2})"
    r"(?:st|nd|rd|th)?(?![\w:]|\.\d|\s*(?:[ap]\.?m\b|h\b|hrs?\b|o['’]clock))(?:,? (?P<y2>(?:19|20)\d\d)\b)?", re.I)

# "the end of", "the very beginning of", "early", "mid-", "late ": a part of a month or a year (two groups: the
# part written with "the … of", or the adjective)
_PART_OF = r"(?i:the (?:very )?(end|beginning|start|middle) of|(early|late|mid)[- ]?)"
_PATTERNS = [
    ("iso", re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")),
    ("num", re.compile(r"(?<![\d.:/])(\d{1,2})([./-])(\d{1,2})\2((?:19|20)\d\d)(?![\d]|[./-]\d)")),
    ("range_dmy", _RANGE_DMY),
    ("range_mdy", _RANGE_MDY),
    ("dmy", re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?" + _MONTH_RE + r"\b(?:,? (\d{4})\b)?", re.I)),
    ("mdy", re.compile(r"\b" + _MONTH_RE + r" (\d{1,2})(?:st|nd|rd|th)?(?:,? (\d{4}))?\b", re.I)),
    ("part", re.compile(r"\b(?:(?i:in|at|by|towards?|from|since|until|around|back in) )?" + _PART_OF + r" ?"
                        r"(January|February|March|April|May|June|July|August|September|October|November|December)"
                        r"(?:,? (\d{4}))?\b")),
    # "last March", "this March", "next March", "since last May": a month named by its place from the message
    ("month_rel", re.compile(r"\b(?i:(last|this|next|past) )"
                             r"(January|February|March|April|May|June|July|August|September|October|November|"
                             r"December)\b(?!,? \d)")),
    ("month", re.compile(r"\b(?:[Ii]n|[Ss]ince|[Dd]uring|[Ee]arly|[Ll]ate|mid-|[Uu]ntil) (?:early |late |mid-)?"
                         r"(January|February|March|April|May|June|July|August|September|October|November|December)"
                         r"(?:,? (\d{4})|,? (?i:(last|this|next) year))?\b")),
    # "early 2021", "in late 2019", "mid-2018", "the end of 2020": a part of a year (early/start → its 1st of
    # January, mid/middle → 1 July, late → 1 September — its last third —, end → 1 December)
    ("year_part", re.compile(r"\b(?:(?i:in|since|during|by|until|from|back in|around) )?" + _PART_OF +
                             r" ?((?:19|20)\d\d)\b(?![-/.:]\d)")),
    # "last summer", "in the spring of 2019", "winter 2021", "during the summer", "this autumn": a season (the
    # northern hemisphere's meteorological seasons: spring from 1 March, summer 1 June, autumn/fall 1 September,
    # winter 1 December; "winter 2021" is its part in 2021, from 1 January).  A season word alone ("summer
    # dress") is no date: a preposition, last/this/next or a year must come with it.
    ("season", re.compile(r"\b(?:(?i:(last|this|next|past) )|(?i:(?:in|during|since|over|by|until) (?:the )?)"
                          r"(?:(?i:(early|late|mid)[- ]?))?)?(?i:(spring|summer|autumn|fall|winter))"
                          r"(?:(?i: of)? ((?:19|20)\d\d))?\b(?![-/.:]\d)")),
    ("year", re.compile(r"\b(?:in|since|during|back in|from) ((?:19|20)\d{2})\b(?![-/.:]\d)", re.I)),
    ("nth", re.compile(r"\bon the (\d{1,2})(?:st|nd|rd|th)\b", re.I)),
    ("two", re.compile(r"\b(?:the )?day (before yesterday|after tomorrow)\b", re.I)),
    ("fortnight", re.compile(r"\ba fortnight ago\b", re.I)),
    ("before_last", re.compile(r"\bthe (week|weekend) before last\b", re.I)),
    ("in", re.compile(r"\bin (\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|couple of|few)"
                      r" (day|week|month)s?(?! ago)\b", re.I)),
    ("ago", re.compile(r"\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|couple of|few)"
                       r" (day|week|month|year)s? ago\b", re.I)),
    ("rel", re.compile(r"\b(?i:(last|next|this|past) )(?:(?i:(week|weekend|month|year))\b|" + _WEEKDAY_RE + ")")),
    ("weekend", re.compile(r"\b(?:over|during|at|on) the weekend\b", re.I)),
    ("on", re.compile(r"\b(?i:on|since|last|starting|from|as of|beginning) " + _WEEKDAY_RE)),
    # a weekday named alone, as US English writes it ("I moved to Leeds Monday"): read as "on Monday"; not in a
    # name ("Friday Labs", "the Sunday Times") or a feast ("Good Friday", "Easter Sunday")
    ("on", re.compile(r"(?<!\bGood )(?<!\bBlack )(?<!\bEaster )(?<!\bCyber )(?<!\bAsh )(?<!\bPalm )(?<!\bHoly )"
                      r"(?<!\bSuper Bowl )(?<!\bWhit )(?<!\bthe )(?<!\bThe )"
                      r"\b(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b(?!'|\s+(?!I\b)[A-Z])")),
    ("word", re.compile(r"\b(today|yesterday|tomorrow|tonight|last night|this morning|this evening|"
                        r"this afternoon)\b", re.I)),
]
# Past tense in the sentence ("moved", "was", "had", "went"): "on Monday" is the Monday before, else the next one.
_PAST = re.compile(r"\b(\w+ed|was|were|had|did|went|came|got|left|saw|met|made|took|began|started|said|told|"
                   r"bought|found|flew|drove|ran|gave|ate|spent|became|felt|heard|sent|wrote|won|lost|paid)\b", re.I)

# A day a plan is set for is ahead, whatever the tense of the verb that set it: "the wedding is confirmed for
# 14 August", "we booked the venue for Friday", "the talk was moved to 3 June", "postponed until the 9th".
_SCHEDULED = re.compile(r"\b(?:confirmed|booked|scheduled|rescheduled|planned|set|arranged|fixed|moved|postponed|"
                        r"pushed|put off|delayed|reserved|slated|pencil?led in|invited|registered|signed up)"
                        r"(?:\s+[\w'’-]+){0,4}?\s+(?:for|until|till|to)\s+(?:(?:the|this|next|on)\s+)?$", re.I)
_SENTENCE_END = re.compile(r"[.!?…]+[\"”’)]*(?:\s+|$)(?=[\"“‘(]?[A-Z0-9]|$)|\n+")


def _sentence(text: str, start: int, end: int, ends: list[tuple[int, int]]) -> tuple[int, int]:
    """The bounds of the sentence of ``text`` holding ``text[start:end]``, given ``ends``, the spans of
    :data:`_SENTENCE_END` in ``text`` (a full stop, ! or ? before a capital or a digit, or a line break, ends
    one; the dots of "3.6.2023" or "on Sat. we" do not)."""
    i = bisect_right(ends, (start, len(text) + 1))
    head = ends[i - 1][1] if i and ends[i - 1][1] <= start else 0
    while i < len(ends) and ends[i][0] < end:
        i += 1
    return head, ends[i][0] if i < len(ends) else len(text)


def _in_past(text: str, start: int, end: int, ends: list[tuple[int, int]]) -> bool:
    """Whether the time expression at ``text[start:end]`` is read back in time: its own sentence is in the past
    tense (:data:`_PAST`; another sentence's tense says nothing of it: "Had a great time! See you on 14 August."),
    and it is not the day a plan was set for (:data:`_SCHEDULED`).  ``ends``: as for :func:`_sentence`."""
    head, tail = _sentence(text, start, end, ends)
    if not _PAST.search(text, head, tail):
        return False
    return not _SCHEDULED.search(text[max(head, start - 80):start])


# Words of time to come: "will", "I'll", "going to", "can't wait", "see you", "looking forward", and the present
# progressive ("I'm flying to Lisbon on 9 June", "we're moving in March")
_FUTURE = re.compile(r"\b(?:will|shall|won['’]t|gonna|going to|about to|plan(?:ning)? to|intend(?:ing)? to|hope to|"
                     r"hoping to|looking forward|(?:can['’]?t|cannot) wait|see you|upcoming|"
                     r"(?:excited|nervous) (?:for|about)|"
                     r"counting down)\b|['’]ll\b|"
                     r"(?:['’](?:m|re|s)|\b(?:am|are|is)) (?:\w+ly |also |now |still |then )?"
                     r"(?!(?:some|no|any|every)thing\b|"
                     r"(?:amaz|interest|excit|bor|annoy|charm|surpris|worry|shock|"
                     r"confus|disappoint|embarrass|frustrat|tir|threaten|promis|th|k|r|s|br|morn|even|spr|str|dur|"
                     r"feel|be)ing\b)(?:\w+ing)\b", re.I)
# A booking told in the past tense ("Booked the flight to Lisbon on 9 June", "I've reserved a table on 3 May"): the
# day is the one booked (ahead) or the day it was booked (behind) — not read back in time for the verb's tense alone
_BOOKING = re.compile(r"\b(?:booked|rebooked|reserved|pre-?booked|ordered|bought|got|paid for) (?:\w+ ){0,3}?"
                      r"(?:tickets?|flights?|seats?|trains?|hotel|room|table|tour|trip|ferry|cruise|holiday|"
                      r"vacation|cabin|villa|apartment|airbnb|b&b|stay)\b|\b(?:booked|rebooked|reserved|pre-?booked)"
                      r"\b", re.I)


# The present of a timetable right before a date: "the conference is on 20 December", "term starts 3 September", "my
# birthday falls on 2 March", "the shop is closed on 20 December" — a day ahead (a day gone by is told in the past:
# "was on 3 May")
_TIMETABLE = re.compile(r"\b(?:(?:is|are|['’]s|['’]re)(?: \w+ed)?|starts?|begins?|opens?|closes?|ends?|finishes|"
                        r"leaves?|departs?|arrives?|lands?|flies|fly|runs?|takes? place|happens?|falls?|expires?|due)"
                        r"(?: (?:on|from|until|till|by|at))?(?: the)? ?$", re.I)


# A form in -ed right after a verb of the present ("I'm so excited for 9 June", "we're all set", "it is closed on 3
# May"): a state now, no past tense
_STATE = re.compile(r"(?:['’](?:m|re|s)|\b(?:am|is|are|feel|feels|get|gets))(?: (?:so|very|really|all|quite|too|"
                    r"pretty|super|fully|now|still|already|also))?\s+$", re.I)


def _lean(text: str, start: int, end: int, ends: list[tuple[int, int]]) -> str:
    """Which way in time a date written without its year points, from the words of its own sentence: "future" (a
    plan's day, :data:`_SCHEDULED`; a word of time to come before it with no past form after that word,
    :data:`_FUTURE`; and in a sentence not in the past tense, a timetable's present right before it,
    :data:`_TIMETABLE`, or a word of time to come anywhere), "past" (the past tense, :data:`_PAST`), "booked" (the
    past tense of a booking, :data:`_BOOKING`: the day booked, ahead, or the day of booking, behind — the date
    nearest the message), else "near" (no tense: the date nearest the message).  ``ends``: as for
    :func:`_sentence`."""
    head, tail = _sentence(text, start, end, ends)
    if _SCHEDULED.search(text[max(head, start - 80):start]):
        return "future"
    before = text[head:start]
    fut = [m.end() for m in _FUTURE.finditer(before)]
    past = [m.end() for m in _PAST.finditer(before) if not _STATE.search(before, 0, m.start())]
    if fut and (not past or fut[-1] > past[-1]):
        return "future"
    if any(not _STATE.search(text, head, m.start()) for m in _PAST.finditer(text, head, tail)):
        return "booked" if _BOOKING.search(text, head, tail) else "past"
    if _TIMETABLE.search(text[max(head, start - 60):start]) or _FUTURE.search(text, head, tail):
        return "future"
    return "near"


def _yearless(month: int, day: int, ref: date, lean: str) -> date | None:
    """Day ``day`` of month ``month`` in the year ``lean`` picks around ``ref`` (the message's day): "past", the last
    one on or before it; "future", the next one on or after it; "near" or "booked", the one nearest it (within six
    months either side; at an equal distance the one ahead).  None when no year near has that day (29 February
    three years in four: the nearest leap year's)."""
    days = []
    for y in range(ref.year - 4, ref.year + 5):
        try:
            days.append(date(y, month, day))
        except ValueError:
            pass
    if not days:
        return None
    if lean == "past":
        return max((d for d in days if d <= ref), default=None)
    if lean == "future":
        return min((d for d in days if d >= ref), default=None)
    return min(days, key=lambda d: (abs((d - ref).days), d < ref))


@dataclass(frozen=True)
class TimeAnchor:
    """A time expression found in text: ``phrase`` as written, ``day`` it resolves to, ``span`` (start, end)."""

    phrase: str
    day: date
    span: tuple[int, int]
    last: date | None = None
    """For a span of days ("from 10 to 12 June"): its last day (``day`` is its first); None for one day."""

    def note(self, reference: datetime | date) -> str:
        """How the phrase was read, for a fact's evidence (``'"yesterday" = 2023-06-09, the sender's date
        (sent 2023-06-10 08:30 +10:00)'``; a span of days: ``'"from 10 to 12 June" = 2024-06-10 to 2024-06-12,
        …'``)."""
        days = self.day.isoformat() + (f" to {self.last.isoformat()}" if self.last is not None else "")
        if not isinstance(reference, datetime):
            return f'"{self.phrase}" = {days} (written {reference.isoformat()})'
        off = reference.strftime("%z")
        zone = f"{off[:3]}:{off[3:]}" if off else "UTC"
        return (f'"{self.phrase}" = {days}, the sender\'s date (sent '
                f'{reference:%Y-%m-%d %H:%M} {zone})')


def _add_months(d: date, n: int) -> date:
    m = d.month - 1 + n
    y = d.year + m // 12
    m = m % 12 + 1
    return date(y, m, min(d.day, 28))


def _month_day(name: str, year_s: str | None, day: int, ref: date, back: bool, near: bool = False) -> date:
    """Day ``day`` (31: the last day) of month ``name`` of year ``year_s``; without a year, the last such month up
    to ``ref`` when ``back`` (a past tense, "since"), the nearest one when ``near`` (six months ahead at most: "Booked
    a trip to Lisbon in June" written in May is this June; "booked the hotel in March", this March), else the next
    one."""
    month = _MONTHS.index(name.lower()) + 1
    if near and not back and not year_s:
        ahead = (month - ref.month) % 12
        return _month_day(name, str(ref.year + (month < ref.month and ahead <= 6) - (month > ref.month and ahead > 6)),
                          day, ref, back)
    year = int(year_s) if year_s else ref.year - (back and month > ref.month) + (not back and month < ref.month)
    first = date(year, month, 1)
    last = (_add_months(first, 1) - timedelta(days=1)).day if month != 12 else 31
    return first.replace(day=min(day, last))


def _numeric_day(a: int, sep: str, b: int, year: int, ref: date, past: bool, order: str | None = None) -> date | None:
    """A numeric date ``a<sep>b<sep>year``: day first when dotted (``3.6.2023``, the European form) or when only
    that order is a date (``25/12/2023``), month first when only that order is (``12/25/2023``); a slashed or
    dashed date that reads either way (``06/03/2023``) is read in ``order`` ("DMY" or "MDY": the order its source
    writes dates in, e.g. a mailbox's, ``ingestors.mbox.mailbox_date_order``) when given, else it is the reading
    on the right side of the message in a sentence in the past tense (on or before it; else on or after it), and
    the one nearer the message when both or neither are."""
    readings = []
    for day, month in ((a, b), (b, a)) if sep != "." else ((a, b),):
        try:
            readings.append(date(year, month, day))
        except ValueError:
            pass
    if not readings:
        return None
    if len(readings) == 2 and order in ("DMY", "MDY"):
        return readings[0] if order == "DMY" else readings[1]
    side = [d for d in readings if (d <= ref if past else d >= ref)]
    return min(side or readings, key=lambda d: abs((d - ref).days))


def _range(m: re.Match, ref: date, lean: str) -> tuple[date | None, date | None]:
    """(first day, last day) of a span of days that :data:`_RANGE_DMY` or :data:`_RANGE_MDY` matched, or (None,
    None) when it is none: "and" without "between", a day that is not in its month, an end before the start, or a
    span of a year or more.  The first month is the second's when it is left out ("10-12 June"); a year given at
    one end only is the other's too (one less for a start in a later month: "28 Dec - 2 Jan 2024" starts in 2023);
    with no year, the first day's year is read as a date without a year is (``lean``: :func:`_yearless`) and the
    end follows it."""
    if m.group("sep").lower() == "and" and not m.group("lead"):
        return None, None
    m2 = _MON[m.group("m2")[:3].lower()] if m.group("m2") else None
    m1 = _MON[m.group("m1")[:3].lower()] if m.group("m1") else m2
    m2 = m2 or m1
    d1, d2, y1, y2 = int(m.group("d1")), int(m.group("d2")), m.group("y1"), m.group("y2")
    turn = m1 > m2  # the span runs into the next year ("28 December to 2 January")
    try:
        if y1 or y2:
            first = date(int(y1) if y1 else int(y2) - turn, m1, d1)
            last = date(int(y2) if y2 else int(y1) + turn, m2, d2)
        else:
            date(2000, m1, d1), date(2000, m2, d2)  # days that are in their months (2000: a leap year)
            first = _yearless(m1, d1, ref, lean)
            if first is None:
                return None, None
            last = date(first.year + turn, m2, d2)
    except ValueError:
        return None, None
    if last < first or (last - first).days >= 365:
        return None, None
    return first, last


def _resolve(kind: str, m: re.Match, ref: date, past: bool = True, order: str | None = None,
             lean: str | None = None) -> date | None:
    """The day the match ``m`` of pattern ``kind`` names, read from ``ref`` (the message's day); ``past``: its
    sentence is read back in time (:func:`_in_past`); ``lean``: :func:`_lean`'s reading for a date without its year
    (None: "past" when ``past``, else "future").  None when it names no day."""
    lean = lean or ("past" if past else "future")
    g = m.groups()
    if kind in ("range_dmy", "range_mdy"):
        return _range(m, ref, lean)[0]
    try:
        if kind == "iso":
            return date(int(g[0]), int(g[1]), int(g[2]))
        if kind == "num":  # 3.6.2023 (dotted: day first), 06/03/2023 (either way: see _numeric_day)
            return _numeric_day(int(g[0]), g[1], int(g[2]), int(g[3]), ref, past, order)
        if kind in ("dmy", "mdy"):
            day_s, month_s, year_s = (g[0], g[1], g[2]) if kind == "dmy" else (g[1], g[0], g[2])
            month, day = _MON[month_s[:3].lower()], int(day_s)
            if year_s:
                return date(int(year_s), month, day)
            # no year: the last such day up to the message in the past tense ("I moved on 3 December", written in
            # June), the next one in words of time to come ("I'll start on 3 January", written in December), else
            # the one nearest the message ("Booked the flight to Lisbon on 9 June", written in May: this June's)
            date(2000, month, day)  # a day of its month (2000: a leap year), else no date
            return _yearless(month, day, ref, lean)
        if kind == "year":
            return date(int(g[0]), 1, 1)
        if kind == "nth":
            day = int(g[0])
            if not 1 <= day <= 31:
                return None
            step = -1 if past else 1
            first = ref.replace(day=1)
            if (past and day > ref.day) or (not past and day < ref.day):
                first = _add_months(first, step)
            for _ in range(3):  # "on the 31st" in a month of 30 days: the month before (or after) that has one
                try:
                    return first.replace(day=day)
                except ValueError:
                    first = _add_months(first, step)
            return None
    except ValueError:
        return None
    if kind == "two":
        return ref + timedelta(days=-2 if g[0].lower().startswith("before") else 2)
    if kind == "fortnight":
        return ref - timedelta(days=14)
    if kind == "in":
        if past:
            return None  # "I lived there in two months" is a duration, not a date ahead
        n = int(g[0]) if g[0].isdigit() else _NUM[g[0].lower()]
        unit = g[1].lower()
        return _add_months(ref, n) if unit == "month" else ref + timedelta(days=n * (7 if unit == "week" else 1))
    if kind == "month":  # "in March": the 1st; a past tense means the last March up to now, else the next;
        # "in March last year" (or this / next year): that year's March
        if g[2]:
            return date(ref.year + {"last": -1, "this": 0, "next": 1}[g[2].lower()], _MONTHS.index(g[0].lower()) + 1, 1)
        return _month_day(g[0], g[1], 1, ref, past or m.group(0).lower().startswith("since"), lean == "booked")
    if kind == "month_rel":  # "last March": the latest March before the message's month (written in July 2023:
        # March 2023; in March 2023: March 2022); "next March": the first one after it; "this March": this year's
        month, which = _MONTHS.index(g[1].lower()) + 1, g[0].lower()
        if which in ("last", "past"):
            return date(ref.year - (month >= ref.month), month, 1)
        if which == "next":
            return date(ref.year + (month <= ref.month), month, 1)
        return date(ref.year, month, 1)
    if kind == "part":  # "at the end of May": its last day; "mid-May", "the middle of May": the 15th; "late May":
        # the 21st (its last third); "early May", "the beginning of May": the 1st
        part = (g[0] or g[1]).lower()
        day = {"end": 31, "middle": 15, "mid": 15, "late": 21}.get(part, 1)
        return _month_day(g[2], g[3], day, ref, past or "since" in m.group(0).lower(), lean == "booked")
    if kind == "year_part":
        part = (g[0] or g[1]).lower()
        return date(int(g[2]), {"mid": 7, "middle": 7, "late": 9, "end": 12}.get(part, 1), 1)
    if kind == "season":
        return _season(m, g, ref, past)
    if kind == "before_last":  # "the week before last": the Monday two weeks back; the weekend: its Saturday
        monday = ref - timedelta(days=ref.weekday())
        return monday - timedelta(weeks=2) + timedelta(days=5 if g[0].lower() == "weekend" else 0)
    if kind == "ago":
        n = int(g[0]) if g[0].isdigit() else _NUM[g[0].lower()]
        unit = g[1].lower()
        if unit == "day":
            return ref - timedelta(days=n)
        if unit == "week":
            return ref - timedelta(weeks=n)
        if unit == "month":
            return _add_months(ref, -n)
        return date(ref.year - n, ref.month, min(ref.day, 28))
    if kind == "rel":
        which, unit = g[0].lower(), (g[1] or g[2]).lower()
        step = {"last": -1, "past": -1, "next": 1, "this": 0}[which]
        if unit == "week":
            monday = ref - timedelta(days=ref.weekday())
            return monday + timedelta(weeks=step)
        if unit == "weekend":
            saturday = ref + timedelta(days=5 - ref.weekday())  # this week's Saturday
            return saturday + timedelta(weeks=step)
        if unit == "month":
            return _add_months(ref.replace(day=1), step)
        if unit == "year":
            return date(ref.year + step, 1, 1)
        wd = _WD_INDEX[unit[:3]]
        if step < 0:
            back = (ref.weekday() - wd) % 7 or 7
            return ref - timedelta(days=back)
        if step > 0:
            fwd = (wd - ref.weekday()) % 7 or 7
            return ref + timedelta(days=fwd)
        return ref + timedelta(days=wd - ref.weekday())
    if kind == "weekend":  # "over the weekend": the last one in the past tense (this one from Saturday), else the next
        saturday = ref + timedelta(days=5 - ref.weekday())
        return saturday - timedelta(weeks=1) if past and ref.weekday() < 5 else saturday
    if kind == "on":
        wd = _WD_INDEX[g[0][:3].lower()]
        if past or m.group(0).lower().startswith(("last", "since")):
            return ref - timedelta(days=(ref.weekday() - wd) % 7 or 7) if ref.weekday() != wd or \
                m.group(0).lower().startswith("last") else ref
        return ref + timedelta(days=(wd - ref.weekday()) % 7 or 7)
    word = g[0].lower()
    return {"yesterday": ref - timedelta(days=1), "last night": ref - timedelta(days=1),
            "tomorrow": ref + timedelta(days=1)}.get(word, ref)


_SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}


def _season(m: re.Match, g: tuple, ref: date, past: bool) -> date | None:
    """The first day of the season a "season" match names (see :data:`_PATTERNS`), or None for a season word
    with nothing that makes it a date.  Relative to the message's day: "last summer" is the latest summer that
    has started and is not the one the message is in; "this summer" the one it is in, else (the past tense) the
    latest one or (otherwise) the coming one; "next summer" the first that starts after it; "in the summer" the latest up to the message in a
    sentence in the past tense, else the next one."""
    which, part, name, year = (g[0] or "").lower(), (g[1] or "").lower(), g[2].lower(), g[3]
    month = _SEASON_START[name]
    if year:
        start = date(int(year), 1 if name == "winter" else month, 1)
    else:
        if not which and not m.group(0)[:1].isalpha():
            return None
        if not which and m.group(0).split()[0].lower() not in ("in", "during", "since", "over", "by", "until"):
            return None
        starts = [date(y, month, 1) for y in range(ref.year - 2, ref.year + 2)]
        current = next((d for d in reversed(starts) if d <= ref and ref < _add_months(d, 3)), None)
        if which in ("last", "past"):
            start = max(d for d in starts if d <= ref and d != current)
        elif which == "next":
            start = min(d for d in starts if d > ref)
        elif which == "this":  # the one the message is in; else, told in the past tense, the latest one
            start = current or (max(d for d in starts if d <= ref) if past else min(d for d in starts if d > ref))
        elif past or m.group(0).lower().startswith("since"):
            start = current or max(d for d in starts if d <= ref)
        else:
            start = current or min(d for d in starts if d > ref)
    return _add_months(start, {"mid": 1, "late": 2}.get(part, 0))


def find_time_anchors(text: str, reference: datetime | date, order: str | None = None) -> list[TimeAnchor]:
    """Every time expression in ``text``, resolved against ``reference`` (the message's own time).

    Args:
        text: any text.
        reference: when the text was written: a tz-aware datetime is read at its own offset (the
            sender's local date: keep the source's offset, do not convert to UTC first); a naive one
            as it stands; or a date.
        order: "DMY" or "MDY" — the order the text's source writes numeric dates in (a WhatsApp chat's, a
            mailbox's: the record's ``attrs["date_order"]``), used for a slashed date that reads either way
            (``04/05/2021``); None: decided by the tense (:func:`_numeric_day`).

    Returns:
        Non-overlapping anchors in text order (earlier patterns win overlaps: explicit dates first).
    """
    ref = reference.date() if isinstance(reference, datetime) else reference
    ends: list[tuple[int, int]] | None = None
    taken: list[tuple[int, int]] = []
    out: list[TimeAnchor] = []
    for kind, rx in _PATTERNS:
        for m in rx.finditer(text):
            s, e = m.span()
            if any(s < te and ts < e for ts, te in taken):
                continue
            if ends is None:
                ends = [x.span() for x in _SENTENCE_END.finditer(text)]
            past = _in_past(text, s, e, ends)
            dated = kind in ("dmy", "mdy", "range_dmy", "range_mdy", "month", "part")
            lean = _lean(text, s, e, ends) if dated else None
            last = _range(m, ref, lean)[1] if kind in ("range_dmy", "range_mdy") else None
            if lean == "booked" and kind in ("month", "part"):
                past = False  # "Booked a trip to Lisbon in June": the nearest June (_month_day)
            day = _resolve(kind, m, ref, past, order, lean)
            if day is not None and kind in ("dmy", "mdy"):
                weekday = _WEEKDAY_BEFORE.search(text, max(0, s - 14), s)
                if weekday is not None:  # "Mon 12 June": one anchor; no year: the year in which it is a Monday
                    if not m.group(3):
                        day = _weekday_year(day, _WD_INDEX[weekday.group(1)[:3].lower()])
                    s = weekday.start()
            if day is not None:
                taken.append((s, e))
                out.append(TimeAnchor(text[s:e], day, (s, e), last))
    return sorted(out, key=lambda a: a.span)


_SEASON_WORD = re.compile(r"\b(spring|summer|autumn|fall|winter)\b", re.I)
_YEAR_WORD = re.compile(r"\b(?:19|20)\d\d\b")
_MONTH_WORD = re.compile(r"\b(January|February|March|April|May|June|July|August|September|October|November|"
                         r"December)\b")


def anchor_period(anchor: TimeAnchor) -> tuple[date, date] | None:
    """The span of time ``anchor`` names when it names more than a day: (first day, the day after its last) —
    "in 2021": 2021-01-01 to 2022-01-01; "early 2021" (a year's first third, as "late" is its last): 2021-01-01 to
    2021-05-01, "mid-2021" 2021-05-01 to 2021-09-01, "late 2021" 2021-09-01 to 2022-01-01, "the end of 2021"
    2021-12-01 to 2022-01-01; a season, its three months ("winter 2021": January and February); a month ("in March
    2020", "last March"), its days (early, mid, late: its thirds, from the 1st, 11th, 21st); "last year", "this
    month"; a span of days, its days ("from 10 to 12 June": 10 June to 13 June).  None for a day or a week
    ("yesterday", "on Monday", "3 days ago")."""
    if anchor.last is not None:
        return anchor.day, anchor.last + timedelta(days=1)
    phrase, day = anchor.phrase, anchor.day
    low = phrase.casefold()
    part = re.search(r"\b(early|mid|middle|late|end|beginning|start)\b", low)
    part = part.group(1) if part else None
    if _SEASON_WORD.search(phrase):
        shift = {"mid": 1, "late": 2}.get(part or "", 0)
        first = _add_months(day, -shift).replace(day=1)
        if first.month == 1:  # "winter 2021": its part in that year
            return day, date(first.year, 3, 1)
        return day, _add_months(first, 3)
    if _MONTH_WORD.search(phrase) and day.day in (1, 11, 15, 21, 31) and \
            not re.search(r"\d{1,2}(?:st|nd|rd|th)?\b(?! ?\d)", re.sub(r"(?:19|20)\d\d", "", phrase)):
        first, nxt = day.replace(day=1), _add_months(day.replace(day=1), 1)
        if part in ("early", "beginning", "start"):
            return first, first.replace(day=11)
        if part in ("mid", "middle"):
            return first.replace(day=11), first.replace(day=21)
        if part == "late":
            return first.replace(day=21), nxt
        if part == "end":
            return None  # "at the end of May": its last day
        return first, nxt
    if _YEAR_WORD.search(phrase) and day.month in (1, 7, 9, 12) and day.day == 1 and \
            re.fullmatch(r"(?:(?:in|since|during|by|until|from|back in|around) )?(?:the (?:very )?(?:end|beginning|"
                         r"start|middle) of |(?:early|late|mid)[- ]?)?(?:19|20)\d\d", low):
        y = day.year
        return {"early": (date(y, 1, 1), date(y, 5, 1)), "beginning": (date(y, 1, 1), date(y, 5, 1)),
                "start": (date(y, 1, 1), date(y, 5, 1)), "mid": (date(y, 5, 1), date(y, 9, 1)),
                "middle": (date(y, 5, 1), date(y, 9, 1)), "late": (date(y, 9, 1), date(y + 1, 1, 1)),
                "end": (date(y, 12, 1), date(y + 1, 1, 1))}.get(part or "", (date(y, 1, 1), date(y + 1, 1, 1)))
    rel = re.fullmatch(r"(?:last|this|past) (year|month)", low)
    if rel:
        return (day, date(day.year + 1, 1, 1)) if rel.group(1) == "year" else (day, _add_months(day, 1))
    return None


_WEEKDAY_BEFORE = re.compile(r"\b" + _WEEKDAY_RE + r",?\s+(?:the\s+)?$")


def _weekday_year(day: date, weekday: int) -> date:
    """``day`` moved to the nearest year (one either side at most) in which it falls on ``weekday`` (Monday 0):
    a yearless "Mon 12 June" names the year by its weekday; ``day`` unchanged when neither neighbour fits."""
    for shift in (0, -1, 1):
        try:
            moved = day.replace(year=day.year + shift)
        except ValueError:  # 29 February
            continue
        if moved.weekday() == weekday:
            return moved
    return day


_ANY = re.compile("|".join(f"(?:{re.sub(r'[(][?]P<[a-z0-9]+>', '(', rx.pattern)})" for _, rx in _PATTERNS), re.I)
"""Every pattern in one pass: most texts hold no time expression and are dismissed by a single scan."""


def has_time_anchor(text: str, reference: datetime | date) -> bool:
    """True when :func:`find_time_anchors` would find at least one anchor in ``text`` (one regex scan first,
    so a text without any time word costs a single pass)."""
    return bool(text) and bool(_ANY.search(text)) and bool(find_time_anchors(text, reference))

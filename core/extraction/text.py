"""Deterministic entity, term and triple extraction (seed 001 layer 2, without GLiNER).

* Entities: runs of capitalised words ("Sarah Lee", "LGBTQ"), minus sentence-initial
  function words, plus any known alias found case-insensitively.  Labels are
  normalised (case-folded, whitespace collapsed) so "Sarah" and "sarah" are one concept.
* Terms: content words, lower-cased, stopwords dropped, lightly stemmed (plural -s,
  -ing, -ed) so "painting"/"paint"/"painted" meet.
* Triples: "<Subject> <verb phrase> <object>" for a small verb lexicon, the verb mapped
  by :func:`canonical_predicate` ("recommended", "suggested" → ``recommends``).  "I"
  resolves to the speaker.  Confidence 0.6 (a pattern match, not a parse).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below between
both but by can could did do does doing done down during each either else even ever every few for from further
get gets getting got gonna had has have having he her here hers herself him himself his how i if in into is it its
itself just let like lot me might more most much must my myself no nor not now of off oh ok okay on once one only or
other our ours ourselves out over own really same she should so some such than thank thanks that the their theirs
them themselves then there these they thing things this those though through to too under until up us very was
way we well were what when where which while who whom why will with would yeah yes yet you your yours yourself
yourselves hey hi hello wow cool great awesome glad sure tell know think say said going go went make made
""".split())

_PRED = {
    "recommends": ("recommended", "recommend", "recommends", "suggested", "suggest", "suggests"),
    "likes": ("love", "loves", "loved", "like", "likes", "liked", "enjoy", "enjoys", "enjoyed", "adore", "adores"),
    "dislikes": ("hate", "hates", "hated", "dislike", "dislikes", "disliked"),
    "lives_in": ("live in", "lives in", "lived in", "moved to", "moves to", "relocated to"),
    "works_at": ("work at", "works at", "worked at", "work for", "works for", "worked for", "joined"),
    "visited": ("visited", "visit", "visits", "went to", "go to", "goes to", "traveled to", "travelled to"),
    "has": ("have", "has", "had", "own", "owns", "owned", "got"),
    "is": ("is", "am", "was", "are", "became", "become"),
    "bought": ("bought", "buy", "buys", "purchased"),
    "started": ("started", "start", "starts", "began", "begin"),
    "met": ("met", "meet", "meets"),
}
_VERB_TO_PRED = {v: p for p, vs in _PRED.items() for v in vs}
_VERB_RE = "|".join(sorted((re.escape(v) for v in _VERB_TO_PRED), key=len, reverse=True))
_TRIPLE = re.compile(
    r"\b(?P<subj>I|[A-Z][\w'-]*(?: [A-Z][\w'-]*){0,2})(?: (?:really|just|also|recently|finally|now|still))?"
    r" (?P<verb>" + _VERB_RE + r") (?P<obj>[^.,!?;:]{1,60}?)(?=[.,!?;:]| and | but | because | so | in | at | on | with | for | from | last | yesterday| today| this | next |$)")
_CAPS = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:[A-Z][\w'’-]*|of|de|van|von|da))*\b")
_WORD = re.compile(r"[a-z0-9][a-z0-9'’-]*")
_ARTICLE = re.compile(r"^(?:the|a|an|my|our|his|her|their|some|this|that)\s+", re.I)


_FIRST_PERSON = (  # (pattern, replacement with {n} = the speaker's name), contractions first
    (re.compile(r"\b[Ii][’']m\b"), "{n} is"), (re.compile(r"\b[Ii][’']ve\b"), "{n} has"),
    (re.compile(r"\b[Ii][’']d\b"), "{n} would"), (re.compile(r"\b[Ii][’']ll\b"), "{n} will"),
    (re.compile(r"\b[Ii]\b"), "{n}"), (re.compile(r"\b(?:[Mm]y|[Mm]ine)\b"), "{n}'s"),
    (re.compile(r"\b(?:[Mm]e|[Mm]yself)\b"), "{n}"),
    (re.compile(r"\b(?:[Ww]e|us)\b"), "{n} and others"), (re.compile(r"\b[Oo]urs?\b"), "{n}'s"),
)


def third_person(text: str, name: str) -> str:
    """``text`` as written about its speaker: "I/me/myself" → ``name``, "my/mine/our(s)" → "``name``'s",
    "I'm/I've/I'd/I'll" → "``name`` is/has/would/will", "we/us" → "``name`` and others".

    Questions about people are asked in the third person ("what does Melanie do to destress?") while
    their messages say "I"; embedding the message from this perspective lifted MiniLM's dense recall
    on LoCoMo from R@10 0.484 to 0.593 (issue #4, ``benchmarks/locomo.py``).  Plain regex, English only;
    a lone "i" counts as "I" (chat spelling); "I" as a Roman numeral is rewritten too (harmless for an
    embedding).

    Args:
        text: a message body.  name: its speaker's display name (non-empty).

    Returns:
        The rewritten text (unchanged when ``name`` is empty).
    """
    if not name:
        return text
    for pat, rep in _FIRST_PERSON:
        text = pat.sub(lambda _m, r=rep.format(n=name): r, text)
    return text


_THEY = (  # after the first "I" has become the speaker's name: the rest of the sentence says "they"
    (re.compile(r"\b[Ii][’']m\b"), "they're"), (re.compile(r"\b[Ii][’']ve\b"), "they've"),
    (re.compile(r"\b[Ii][’']d\b"), "they'd"), (re.compile(r"\b[Ii][’']ll\b"), "they'll"),
    (re.compile(r"\b[Ii] am\b"), "they are"), (re.compile(r"\b[Ii] was\b"), "they were"),
    (re.compile(r"\b[Ii]\b"), "they"), (re.compile(r"\b[Mm]y\b"), "their"), (re.compile(r"\b[Mm]ine\b"), "theirs"),
    (re.compile(r"\b[Mm]yself\b"), "themselves"), (re.compile(r"\b[Mm]e\b"), "them"),
)
_FIRST_I = re.compile(r"\b(?:[Ii](?:[’'](?:m|ve|d|ll))?|[Mm]y|[Mm]ine|[Mm]e|[Mm]yself)\b")


_QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"|«[^»]*»|„[^“”]*[“”]")


def _outside_quotes(text: str, change) -> str:
    """``change`` applied to the parts of ``text`` outside quotation marks: quoted words are someone else's, as
    written (“I'll call you tomorrow” stays so)."""
    out, at = [], 0
    for m in _QUOTED.finditer(text):
        out += [change(text[at:m.start()]), m.group(0)]
        at = m.end()
    return "".join(out + [change(text[at:])])


def reported(text: str, name: str) -> str:
    """``text`` retold about its speaker for a reader: the first "I" (or "my", "me" …) becomes ``name``
    (:func:`third_person`), the later ones "they/their/them" — "Tom Weller thinks they left their umbrella at the
    Crown", not "Tom Weller thinks Tom Weller left Tom Weller's umbrella …".  (Record vectors keep
    :func:`third_person`'s every-mention form: it is what the encoder was measured with.)  Quoted words stay as
    written: 'She said "I'll call you tomorrow"' is her "I"."""
    if not name:
        return text
    first = [True]

    def change(part: str) -> str:
        m = _FIRST_I.search(part) if first[0] else None
        if m is None and first[0]:
            return third_person(part, name)
        head, rest = (part[:m.end()], part[m.end():]) if m is not None else ("", part)
        first[0] = False
        for pat, rep in _THEY:
            rest = pat.sub(rep, rest)
        return (third_person(head, name) if head else "") + third_person(rest, name)  # "we/us/our": "… and others"
    return _outside_quotes(text, change)


_SECOND_PERSON = (  # the person asking reads their own message: "I" → "you" (verbs need no change but am/was)
    (re.compile(r"\b[Ii][’']m\b"), "you're"), (re.compile(r"\b[Ii][’']ve\b"), "you've"),
    (re.compile(r"\b[Ii][’']d\b"), "you'd"), (re.compile(r"\b[Ii][’']ll\b"), "you'll"),
    (re.compile(r"\b[Ii] am\b"), "you are"), (re.compile(r"\b[Ii] was\b"), "you were"),
    (re.compile(r"\b[Ii]\b"), "you"), (re.compile(r"\b[Mm]y\b"), "your"), (re.compile(r"\b[Mm]ine\b"), "yours"),
    (re.compile(r"\b[Mm]yself\b"), "yourself"), (re.compile(r"\b[Mm]e\b"), "you"),
    (re.compile(r"\b[Ww]e\b"), "you"), (re.compile(r"\b[Oo]ur\b"), "your"), (re.compile(r"\b[Oo]urs\b"), "yours"),
    (re.compile(r"\bus\b"), "you"),
)


def second_person(text: str) -> str:
    """``text`` told back to its own writer: "I/me" → "you", "my/mine" → "your/yours", "I'm/I've/I'd/I'll" →
    "you're/you've/you'd/you'll", "I am/was" → "you are/were", "we/us/our" → "you/your" — the owner's own message
    quoted in an answer to the owner ("You think you left your umbrella at the Crown", not "Alex Morgan thinks
    Alex Morgan left Alex Morgan's umbrella …").  Quoted words stay as written.  Plain regex, English only."""
    def change(part: str) -> str:
        for pat, rep in _SECOND_PERSON:
            part = pat.sub(rep, part)
        return part
    return _outside_quotes(text, change)


def speaker_view(name: str | None, text: str) -> str:
    """``"name: <text in the third person>"`` (:func:`third_person`), or ``text`` when there is no name:
    the form a message is embedded in (record vectors, episode gists)."""
    return f"{name}: {third_person(text, name)}" if name else text


def normalize_label(label: str) -> str:
    """Case-fold and collapse whitespace: the matching key of an entity label."""
    return " ".join(label.replace("’", "'").split()).casefold().strip(" '-")


def stem(word: str) -> str:
    """A light suffix stemmer: ``paintings``/``painting``/``painted`` → ``paint`` (words ≥ 5 letters only)."""
    w = word.casefold().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) >= 5:
        for suf in ("ings", "ing", "ies", "ed", "es", "s"):
            if w.endswith(suf) and len(w) - len(suf) >= 3:
                base = w[: -len(suf)]
                if suf == "ies":
                    return base + "y"
                if suf in ("ing", "ings", "ed") and len(base) > 3 and base[-1] == base[-2]:
                    base = base[:-1]  # "running" -> "run"
                if suf == "es" and not base.endswith(("s", "x", "z", "ch", "sh")):
                    return w[:-1]
                if suf == "s" and w.endswith("ss"):
                    return w
                return base
    return w


def canonical_predicate(verb: str) -> str:
    """Map a verb phrase to its canonical predicate ("suggested" → ``recommends``); unknown verbs are
    returned stemmed and snake-cased."""
    v = " ".join(verb.lower().split())
    return _VERB_TO_PRED.get(v) or "_".join(stem(w) for w in v.split())


def terms(text: str) -> list[str]:
    """Content-word stems of ``text``, in order, without repeats."""
    seen: dict[str, None] = {}
    for w in _WORD.findall(text.lower().replace("’", "'")):
        w = w.strip("'-")
        if len(w) < 2 or w in STOPWORDS:
            continue
        s = stem(w)
        if s and s not in STOPWORDS:
            seen.setdefault(s, None)
    return list(seen)


@dataclass
class Extraction:
    """What :func:`extract` found: entity labels (normalised), term stems, (s, p, o) triples."""

    entities: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    triples: list[tuple[str, str, str]] = field(default_factory=list)


def entities(text: str, known: Iterable[str] = ()) -> list[str]:
    """Normalised entity labels in ``text``: capitalised runs (sentence-initial stopwords dropped)
    and any ``known`` alias appearing as whole words."""
    found: dict[str, None] = {}
    for m in _CAPS.finditer(text):
        words = m.group(0).split()
        while words and words[0].lower() in STOPWORDS:
            words = words[1:]
        while words and words[-1].lower() in ("of", "de", "van", "von", "da"):
            words = words[:-1]
        if words:
            label = normalize_label(" ".join(words))
            if len(label) >= 2 and label not in STOPWORDS:
                found.setdefault(label, None)
    low = text.casefold()
    for alias in known:
        a = normalize_label(alias)
        if a and a not in found and re.search(r"\b" + re.escape(a) + r"\b", low):
            found.setdefault(a, None)
    return list(found)


def extract(text: str, speaker: str | None = None, known: Iterable[str] = ()) -> Extraction:
    """Entities, terms and triples of one message.

    Args:
        text: the message.
        speaker: who wrote it ("I" resolves to them); added as an entity.
        known: known entity aliases to spot even when not capitalised.
    """
    ents = entities(text, known)
    if speaker:
        sp = normalize_label(speaker)
        if sp and sp not in ents:
            ents.insert(0, sp)
    triples: list[tuple[str, str, str]] = []
    for m in _TRIPLE.finditer(text):
        subj = m.group("subj")
        if subj == "I":
            if not speaker:
                continue
            subj = speaker
        elif subj.lower() in STOPWORDS:
            continue
        obj = _ARTICLE.sub("", m.group("obj").strip())
        obj_terms = terms(obj)
        if not obj_terms:
            continue
        triples.append((normalize_label(subj), canonical_predicate(m.group("verb")), " ".join(obj_terms[:3])))
    return Extraction(ents, terms(text), triples)

"""Find and redact the mentions of forgotten entities in text that stays (issue 11).

A forgotten person's own messages go; other people's messages, the owner's own lines, summaries
and logs that *mention* them keep their place with each mention replaced by ``"[forgotten]"``
(:data:`core.store.forgetting.REPLACEMENT`).  A mention is any of the entity's aliases (seed 002:
names, nicknames, e-mail addresses, phone numbers, handles):

* names of two or more words match case-insensitively with any whitespace between the words
  ("Steve  Sapovits", "steve sapovits" in a normalised concept label), and written as one token
  with ``_``, ``.``, ``-`` or nothing between the words, as in a file name or a handle
  ("Steve_Sapovits_cv.pdf", "SteveSapovits-2019.pdf", "steve.sapovits");
* one-word names match with their capitalisation in free text ("Ivo", not "ivo" inside a sentence
  about something else), and case-insensitively in machine-written fields (``loose=True``:
  concept labels, learning-log entities);
* e-mail addresses match case-insensitively; phone numbers match in any format
  ``phonenumbers.PhoneNumberMatcher`` recognises (compared in E.164), read in the settings' region and in
  the number's own country's ("07700 900123" is +44 7700 900123 in a US setting too);
* in machine-written fields the local part of an e-mail address (≥ 5 letters) counts too: concept
  extraction turns ``sapovitss@…`` into the label ``sapovitss``;
* a person's surname alone after a title or as a family ("Mrs Sapovits", "the Sapovitses", "the Sapovits
  family"), and a mail domain that is theirs alone (not webmail, no other live entity's address):
  ``sapovits-design.example`` in a link or a host name.

A one-word name another live entity bears too (the forgotten Ben Carter's "Ben" and a live Ben Okafor) is
*shared*: it is redacted only where it can be the forgotten person (:meth:`Redactor.within`) — in a row whose
parties (the record's, its thread's, the conversation's) include a forgotten entity, or include no other
entity bearing the name, unless the text itself names such an entity by full name and names the forgotten
one by no full name or address.  The full names of other live entities that contain one of the forgotten
entity's one-word names (``others``: "Ben Okafor") are never a mention, in any row.

Quoted mail is handled as a unit: a quoted block whose attribution line names a forgotten
entity ("> From: Steve Sapovits …" in Outlook style, "Steve Sapovits wrote:" in the
Internet style, or any line naming them that ends with ":" right above the quoted lines — "Am … schrieb
Steve Sapovits <…>:", "… ha scritto:") is the forgotten person's own text, so the whole block is replaced by one
``"[forgotten message]"`` line at its quote depth.  So is a run of quoted lines that repeats the words of one of the
forgotten person's removed messages (``Redactor.quoted``), with no attribution naming them ("> I started at Globex …"
under the owner's "Congrats!"): :func:`drop_quoted_words`.

A full name another live entity bears too (two people called "Sam Lee") is shared as a one-word name is; another
person's e-mail address is never a mention, in part or whole; a one-word name of someone known by no fuller name
takes a capitalised surname after it with it ("Quornelia Hartwig").
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable

import phonenumbers

from core.store.forgetting import REPLACEMENT

QUOTE_REPLACEMENT = "[forgotten message]"
_QUOTE = re.compile(r"^((?:\s*>)+)")
_HEADER = re.compile(r"^\s*(?:\*?\s*)?(from|de|von|van|da|fra|från|od|от|lähettäjä|kimden|發件人|发件人|差出人)\s*:",
                     re.IGNORECASE)
_WROTE = re.compile(r"(wrote|writes|schrieb|a écrit|escribió|scrisse|schreef)\s*:?\s*$", re.IGNORECASE)
_ORIGINAL = re.compile(r"^\s*-{2,}\s*(original message|forwarded message|ursprüngliche nachricht)", re.IGNORECASE)
_EMAIL_LOCAL = re.compile(r"^[a-z][a-z._-]{4,}$")
_ADDRESS = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_QUOTE_MIN = 12
"""A quoted run shorter than this (normalised characters) is never taken for a forgotten message's words ("> ok")."""


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _full(name: str) -> str:
    """A name of two or more words as a key of :attr:`Redactor.shared`: its words, casefolded, one space apart."""
    return " ".join(name.split()).casefold()


def own_words(text: str | None) -> str:
    """The lines of ``text`` its writer wrote (quote depth 0), normalised (words one space apart, casefolded):
    what :attr:`Redactor.quoted` holds of a forgotten message, without what it quoted of others."""
    return _norm("\n".join(line for line in (text or "").split("\n") if _depth(line)[0] == 0))


def _forgotten_run(run: list[str], forgotten: list[str]) -> bool:
    """Whether the quoted lines ``run`` (their ``>`` marks taken off) are a forgotten message's words: the whole
    run, or lines holding at least 60 % of its characters, are found in one of ``forgotten`` (:func:`own_words`)."""
    whole = _norm(" ".join(run))
    if len(whole) < _QUOTE_MIN:
        return False
    if any(whole in f for f in forgotten):
        return True
    total = hit = 0
    for line in run:
        n = _norm(line)
        total += len(n)
        if len(n) >= _QUOTE_MIN and any(n in f for f in forgotten):
            hit += len(n)
    return total > 0 and hit >= 0.6 * total


def drop_quoted_words(text: str, forgotten: list[str]) -> str:
    """``text`` with each run of quoted lines (one quote depth, ``>`` marks) that repeats a forgotten message's
    words (``forgotten``: :func:`own_words` of each) replaced by one ``"[forgotten message]"`` line at that depth —
    a reply that quotes the forgotten person without naming them ("> I started at Globex …").  Deeper runs (what
    the forgotten message quoted of someone else) are judged on their own."""
    if not forgotten or ">" not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        d = _depth(lines[i])[0]
        if d == 0:
            out.append(lines[i])
            i += 1
            continue
        j = i
        while j < len(lines) and _depth(lines[j])[0] == d:
            j += 1
        if _forgotten_run([_depth(x)[1] for x in lines[i:j]], forgotten):
            out.append(">" * d + " " + QUOTE_REPLACEMENT)
        else:
            out.extend(lines[i:j])
        i = j
    return "\n".join(out)


def quotes_forgotten(text: str | None, forgotten: list[str]) -> bool:
    """Whether :func:`drop_quoted_words` changes ``text``."""
    return bool(text) and bool(forgotten) and ">" in text and drop_quoted_words(text, forgotten) != text


def _depth(line: str) -> tuple[int, str]:
    m = _QUOTE.match(line)
    if not m:
        return 0, line
    return m.group(1).count(">"), line[m.end():]


@dataclass
class Redactor:
    """The mention patterns of a set of forgotten entities.

    Args:
        names: canonical names, name and nickname aliases.
        emails: e-mail addresses.  phones: E.164 numbers.  handles: other handles (literal).
        region: ISO 3166 region for phone numbers written without a country code.
        others: full names (two words or more) of other live entities that hold one of ``names``' one-word
            names as a word ("Ben Okafor" beside the forgotten "Ben"): never a mention, whatever the row.
        shared: one-word name (case-folded) → ids of the other live entities that bear it (as a one-word
            name or nickname, or as the first word of a name); see :meth:`within`.
        own: the forgotten entities' ids.
        record_parties: record id → the ids among ``own`` and ``shared``'s entities that are parties to it
            or to its thread (sender, from/to/cc/member links), worked out before a forget changes anything.
        thread_parties: conversation (a record's thread, else ``"source:<id>"``) → those ids, likewise.
        surnames: last names of the forgotten people, a mention only after a title or as a family ("Mrs
            Sapovits", "the Sapovitses"); shared with live bearers as one-word names are (``shared``).
        domains: mail domains of the forgotten entities' own (no webmail, no other live entity's address at
            them): a mention anywhere, case-insensitive ("www.sapovits-design.example").
        related: shared name → the live entities a fact that stays (one naming no forgotten entity) ties to one of its
            other bearers ("Lena Park wrote to Chris Park", the other Chris Park): in a row about them that
            :meth:`within` is given directly (a summary written from the facts that stay, a ledger line), the name
            is that bearer's; :meth:`for_record` and :meth:`for_conversation` go by the row's parties alone.
        kept: statements of facts that stay although they hold a shared name (another bearer's: "Chris Park writes
            from chris@fastmail.com"): never a mention, written out where a summary repeats them.
        quoted: :func:`own_words` of the forgotten entities' removed messages: a quoted run in a kept message that
            repeats them is replaced by ``"[forgotten message]"`` (:func:`drop_quoted_words`).

    ``shared`` may also hold a full name (two words or more, :func:`_full`) another live entity bears too (two
    people called "Sam Lee"): like a shared one-word name, it is left out where that entity is a party and no
    forgotten one is (:meth:`within`).  An e-mail address that is not a forgotten entity's own (nor at a domain of
    theirs alone) is never redacted, in part or whole ("sam.lee@initech.com" of the other Sam Lee).  A one-word
    name of entities known by no fuller name ("Quornelia") followed by a capitalised word is the same mention,
    surname and all ("Quornelia Hartwig"), unless that full name is another live entity's (``others``).
    """

    names: list[str] = field(default_factory=list)
    emails: list[str] = field(default_factory=list)
    phones: list[str] = field(default_factory=list)
    handles: list[str] = field(default_factory=list)
    region: str = "US"
    others: list[str] = field(default_factory=list)
    shared: dict[str, set[int]] = field(default_factory=dict)
    own: set[int] = field(default_factory=set)
    record_parties: dict[int, frozenset[int]] = field(default_factory=dict)
    thread_parties: dict[str, frozenset[int]] = field(default_factory=dict)
    surnames: list[str] = field(default_factory=list)
    domains: list[str] = field(default_factory=list)
    quoted: list[str] = field(default_factory=list)
    skip_locals: set[str] = field(default_factory=set)
    related: dict[str, set[int]] = field(default_factory=dict)
    kept: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._given = (list(self.names), list(self.emails), list(self.phones), list(self.handles),
                       list(self.surnames), list(self.domains))
        # a surname alone is a mention where it is written as one: after a title ("Mrs Sapovits", "Dr. Sapovits")
        # or as a family ("the Sapovitses", "the Sapovits family") — a bare capitalised word may be a word ("Young
        # people …", "Green Park"); a domain of the person's own (their company's or family's, no other live
        # entity's address is at it) in any case, in a URL or a host name too ("www.sapovits-design.example")
        self.surnames = list(dict.fromkeys(w.strip() for w in self.surnames if w and len(w.strip()) >= 3))
        self.domains = list(dict.fromkeys(d.strip().casefold() for d in self.domains if d and "." in d))
        sur = "|".join(re.escape(w) for w in sorted(self.surnames, key=len, reverse=True))
        self._surname = re.compile(
            rf"(?<![\w@.+-])(?:(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Professor|Sir|Dame|Frau|Herr|Mme|Mlle|Madame|Monsieur|"
            rf"Sra|Sr|Señora|Señor|Signora|Signor|Sig|Dott|Dña)\.?\s+(?i:{sur})(?:['’]s?)?|"
            rf"(?:[Tt]he)\s+(?:{sur})(?:e?s\b['’]?|['’]s?|\s+(?:family|household|kids|twins)\b)|"
            rf"(?:{sur})['’]s?(?=\s))(?![\w@-])") if sur else None
        dom = "|".join(re.escape(d) for d in sorted(self.domains, key=len, reverse=True))
        self._domain = re.compile(rf"(?<![\w-])(?:{dom})(?![\w-])", re.IGNORECASE) if dom else None
        self._narrowed: dict[frozenset[str], "Redactor"] = {}
        self._by_record: dict[int, "Redactor"] = {}
        multi, single = [], []
        for n in dict.fromkeys(x.strip() for x in self.names if x and len(x.strip()) >= 2):
            if "@" in n and " " not in n:
                self.emails.append(n)
                continue
            words = n.split()
            (multi if len(words) > 1 else single).append(words)
        self.emails = list(dict.fromkeys(e.strip().strip("<>").casefold() for e in self.emails if e and "@" in e))
        self.phones = list(dict.fromkeys(p for p in self.phones if p))
        self.handles = list(dict.fromkeys(h.strip() for h in self.handles if h and len(h.strip()) >= 2))
        alts_ci = [r"\s+".join(re.escape(w) for w in ws) for ws in multi]
        # the way a mail client's attribution or an address book writes it: "Ruiz, Ana"
        alts_ci += [re.escape(ws[-1]) + r",\s*" + r"\s+".join(re.escape(w) for w in ws[:-1]) for ws in multi]
        alts_ci += [re.escape(e) for e in self.emails]
        alts_cs = [re.escape(ws[0]) for ws in single] + [re.escape(h) for h in self.handles]
        skip = {re.sub(r"[^a-z]", "", x.casefold()) for x in self.skip_locals}
        locals_ = [e.split("@", 1)[0] for e in self.emails if _EMAIL_LOCAL.match(e.split("@", 1)[0])
                   and re.sub(r"[^a-z]", "", e.split("@", 1)[0]) not in skip]

        def rx(alts, flags=0):
            if not alts:
                return None
            alts = sorted(set(alts), key=len, reverse=True)  # longest first: the full name before a part
            return re.compile(r"(?<![\w@.+-])(?:" + "|".join(alts) + r")(?![\w@-])", flags)
        self._ci = rx(alts_ci, re.IGNORECASE)
        # in free text a one-word name followed by another capitalised word that is none of theirs is someone
        # else's full name ("Greta Thunberg", "Greta Garbo" after forgetting Greta Sapovits)
        theirs = sorted({w for ws in multi for w in ws[1:]} | set(self.surnames), key=len, reverse=True)
        not_theirs = (r"(?!\s+" + (rf"(?!(?:{'|'.join(re.escape(w) for w in theirs)})\b)" if theirs else "")
                      + r"[A-Z][a-z][\w'’-]*)")
        # known by one word only ("Quornelia"): "Quornelia Hartwig" is her too, surname and all (another live
        # Quornelia Hartwig is masked first, ``others``)
        surname_too = r"(?:\s+[A-Z][a-z][\w'’-]*)?"
        self._cs = rx([a + (not_theirs if multi else surname_too) for a in (re.escape(ws[0]) for ws in single)]
                      + [re.escape(h) for h in self.handles])
        self._loose = rx(alts_ci + alts_cs + [re.escape(x) for x in locals_], re.IGNORECASE)
        # a name of two or more words written as one token: a file name ("Xavier_Quint_cv.pdf",
        # "XavierQuint-portfolio.pdf"), a handle ("xavier.quint"); any letter or digit ends it
        joined = sorted({r"[\s_.\-]*".join(re.escape(w) for w in ws) for ws in multi}, key=len, reverse=True)
        self._joined = (re.compile(r"(?<![^\W_])(?:" + "|".join(joined) + r")(?![^\W_])", re.IGNORECASE)
                        if joined else None)
        self._like = sorted({max(ws, key=len) for ws in multi + single} | set(self.emails) | set(self.handles)
                            | set(locals_) | {p[-4:] for p in self.phones if len(p) >= 4} | set(self.surnames)
                            | set(self.domains), key=str.casefold)
        # other people's full names that hold one of these one-word names: masked before matching
        own_multi = {" ".join(ws).casefold() for ws in multi}
        words = {ws[0].casefold() for ws in single}
        protect = {tuple(o.split()) for o in self.others if o and len(o.split()) > 1}
        protect = {ws for ws in protect if " ".join(ws).casefold() not in own_multi
                   and any(w.casefold() in words for w in ws)}
        self._protect = (re.compile(r"(?<![\w@.+-])(?:" + "|".join(sorted(
            (r"\s+".join(re.escape(w) for w in ws) for ws in protect), key=len, reverse=True)) + r")(?![\w@-])",
            re.IGNORECASE) if protect else None)
        self._surname_words = {w.casefold() for w in self.surnames}
        self._single = words | self._surname_words
        self._full_names = own_multi
        self.shared = {_full(k): set(v) for k, v in self.shared.items()
                       if (_full(k) in self._single or _full(k) in own_multi) and v}
        self._own_emails = set(self.emails)

    @classmethod
    def from_aliases(cls, aliases: Iterable[tuple[str, str, str]], region: str = "US", **context) -> "Redactor":
        """From ``(kind, value, normalized)`` alias rows (and canonical names given as kind ``"name"``);
        ``context``: ``others``, ``shared``, ``own``, ``related``, ``record_parties``, ``thread_parties`` (see the
        class)."""
        names, emails, phones, handles, surnames, domains = [], [], [], [], [], []
        for kind, value, norm in aliases:
            if kind == "surname":
                surnames.append(value)
            elif kind == "domain":
                domains.append(value)
            elif kind in ("name", "nickname"):
                names.append(value)
            elif kind == "email":
                emails.append(norm or value)
            elif kind == "phone":
                phones.append(norm or value)
            elif kind in ("handle", "contact"):
                handles.append(value)
        return cls(names, emails, phones, handles, region, surnames=surnames, domains=domains, **context)

    @property
    def empty(self) -> bool:
        return not (self._ci or self._cs or self.phones or self._surname or self._domain)

    # ---- where a shared one-word name is the forgotten person ------------------------------------------
    def without(self, words: Iterable[str]) -> "Redactor":
        """This redactor without the one-word names ``words`` (case-insensitive); names of two or more words,
        addresses, phones, handles and ``others`` stay.  ``self`` when nothing is left out."""
        drop = frozenset(_full(w) for w in words) & (frozenset(self._single) | frozenset(self._full_names))
        if not drop:
            return self
        if drop not in self._narrowed:
            names, emails, phones, handles, surnames, domains = self._given
            # a full name another bears goes with its one-token spellings ("sam.lee" in a thread key)
            fulls = {w for w in drop if " " in w}
            self._narrowed[drop] = Redactor([n for n in names if _full(n) not in drop], list(emails),
                                            list(phones), list(handles), self.region, others=list(self.others),
                                            own=set(self.own), domains=list(domains),
                                            surnames=[w for w in surnames if w.strip().casefold() not in drop],
                                            quoted=self.quoted, skip_locals=set(self.skip_locals) | fulls,
                                            kept=self.kept)
        return self._narrowed[drop]

    def within(self, parties: Iterable[int] = (), text: str | None = None) -> "Redactor":
        """The redactor for a row whose parties are ``parties`` (entity ids) and whose words are ``text``.

        A shared name (``shared``: one word, or a full name another live entity bears) is left out — it is
        another person there — when no forgotten entity is among ``parties`` and either another entity that bears
        it is, or one a fact that stays ties to such a bearer (``related``), or (a one-word name) ``text`` names
        such an entity by full name (``others``) and names the forgotten one by no full name, address, phone or
        handle.  Everything else is as in ``self``.

        Returns:
            ``self``, or a narrower :class:`Redactor` (:meth:`without`).
        """
        return self._within(parties, text, related=True)

    def _within(self, parties: Iterable[int], text: str | None, related: bool) -> "Redactor":
        if not self.shared:
            return self
        ps = set(parties)
        if ps & self.own:
            return self
        named: set[str] = set()
        if text and self._protect is not None:
            for m in self._protect.finditer(text):
                named |= {w.casefold() for w in m.group(0).split()}
            if named and self.without(self.shared).mentions(text):
                named = set()  # it names him plainly too: a bare first name may be either
        # a surname another live person bears stays wherever the forgotten one is no party: "Mrs Sapovits" may be
        # Karl Sapovits's wife as well as the forgotten Greta
        drop = [w for w, bearers in self.shared.items()
                if ps & bearers or (related and ps & self.related.get(w, set()))
                or (" " not in w and (w in named or w in self._surname_words))]
        return self.without(drop)

    def for_record(self, record_id: int | None, text: str | None = None) -> "Redactor":
        """:meth:`within` for record ``record_id`` (its parties and its thread's, from ``record_parties``) and its
        words ``text``.  The first answer for a record is kept: every store of one forget redacts the record
        alike, though the graph has redacted its text by the time the others ask."""
        if record_id is None:
            return self._within((), text, related=False)
        if record_id not in self._by_record:
            self._by_record[record_id] = self._within(self.record_parties.get(record_id, frozenset()), text,
                                                      related=False)
        return self._by_record[record_id]

    def for_conversation(self, conversation: str | None, people: Iterable[int] = (),
                         text: str | None = None) -> "Redactor":
        """:meth:`within` for a row of conversation ``conversation`` (a thread, ``thread_parties``) about
        ``people`` (entity ids, e.g. a ledger message's counterpart)."""
        return self._within(set(self.thread_parties.get(conversation or "", frozenset())) | set(people), text,
                            related=False)

    def _mask(self, text: str) -> tuple[str, list[str]]:
        """``text`` with each of ``others``' names, and each e-mail address that is not a forgotten entity's own
        (nor at a domain of theirs alone), replaced by one private-use character (never a match)."""
        kept: list[str] = []

        def hold(m):
            kept.append(m.group(0))
            return chr(0xF0000 + len(kept) - 1)

        def hold_address(m):
            a = m.group(0).casefold()
            dom = a.rsplit("@", 1)[1]
            if a in self._own_emails or any(dom == d or dom.endswith("." + d) for d in self.domains):
                return m.group(0)
            return hold(m)
        for k in self.kept:  # another bearer's fact, as a summary repeats it
            if k and k in text:
                text = text.replace(k, chr(0xF0000 + len(kept)))
                kept.append(k)
        if "@" in text:
            text = _ADDRESS.sub(hold_address, text)
        if self._protect is None:
            return text, kept
        return self._protect.sub(hold, text), kept

    @staticmethod
    def _unmask(text: str, kept: list[str]) -> str:
        for i in range(len(kept) - 1, -1, -1):  # an address may hold a name masked after it
            text = text.replace(chr(0xF0000 + i), kept[i])
        return text

    def like_terms(self) -> list[str]:
        """Substrings a row must contain (SQL ``LIKE '%term%'``, case-insensitive for ASCII) to be worth
        checking: one distinctive word of each name, each address and handle, the last 4 digits of each phone."""
        return list(self._like)

    # ---- matching ---------------------------------------------------------------------------------
    def _phone_spans(self, text: str) -> list[tuple[int, int]]:
        if not self.phones or not any(ch.isdigit() for ch in text):
            return []
        want = set(self.phones)
        found: set[tuple[int, int]] = set()
        for region in self._phone_regions():
            for m in phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.POSSIBLE):
                if phonenumbers.format_number(m.number, phonenumbers.PhoneNumberFormat.E164) in want:
                    found.add((m.start, m.end))
        out: list[tuple[int, int]] = []
        for start, end in sorted(found):  # one span per place, however many regions read it
            if out and start < out[-1][1]:
                out[-1] = (out[-1][0], max(out[-1][1], end))
            else:
                out.append((start, end))
        return out

    def _phone_regions(self) -> list[str]:
        """The settings' region, then each forgotten number's own: a friend in that country writes it the way
        numbers are written there ("07700 900123", "0044 7700 900123" for +44 7700 900123 in a US setting)."""
        regions = [self.region]
        for e164 in self.phones:
            try:
                r = phonenumbers.region_code_for_country_code(phonenumbers.parse(e164, None).country_code)
            except phonenumbers.NumberParseException:
                continue
            if r and r not in regions and r != "ZZ":
                regions.append(r)
        return regions

    def mentions(self, text: str | None, loose: bool = False) -> bool:
        """True when ``text`` names a forgotten entity (``loose``: machine-written field, see the module doc)."""
        if not text or self.empty:
            return False
        if not loose and quotes_forgotten(text, self.quoted):
            return True
        text, _kept = self._mask(text)
        if self._joined is not None and self._joined.search(text):
            return True
        if (self._surname and self._surname.search(text)) or (self._domain and self._domain.search(text)):
            return True
        if loose:
            return bool(self._loose and self._loose.search(text)) or bool(self._phone_spans(text))
        return bool((self._ci and self._ci.search(text)) or (self._cs and self._cs.search(text))
                    or self._phone_spans(text))

    def redact(self, text: str | None, loose: bool = False, quotes: bool = True) -> str | None:
        """``text`` with every mention replaced by ``"[forgotten]"`` and (``quotes``) every quoted block
        attributed to a forgotten entity replaced by one ``"[forgotten message]"`` line.  None stays None."""
        if not text or self.empty:
            return text
        if quotes and self.quoted and ">" in text:  # before names are replaced: the words as they were written
            text = drop_quoted_words(text, self.quoted)
        text, kept = self._mask(text)
        spans = self._phone_spans(text)
        for s, e in sorted(spans, reverse=True):
            text = text[:s] + REPLACEMENT + text[e:]
        for rx in ((self._loose, self._joined, self._surname, self._domain) if loose else
                   (self._ci, self._cs, self._joined, self._surname, self._domain)):
            if rx is not None:
                text = rx.sub(REPLACEMENT, text)
        if quotes and REPLACEMENT in text and ("\n" in text):
            text = drop_attributed_quotes(text)
        return self._unmask(text, kept)

    def redact_json(self, value: Any, loose: bool = True, acts: bool = False) -> Any:
        """A JSON value with :meth:`redact` applied to every string in it (keys included).

        Args:
            value: what ``json.loads`` gives.
            loose: match as in machine-written fields (the default for JSON).
            acts: also leave out each object in a list that is a forgotten entity's own act (:func:`is_act`:
                a chat's system event, a reaction, a call, a forwarded message's entry), rather than keep it
                with its actor replaced — a record's ``attrs`` that stays.

        Returns:
            A new value; ``value`` is not changed.
        """
        if isinstance(value, str):
            return self.redact(value, loose=loose, quotes=False)
        if isinstance(value, list):
            out = [self.redact_json(v, loose, acts) for v in value]
            return [v for v in out if not (acts and is_act(v))]
        if isinstance(value, dict):
            return {self.redact(str(k), loose=loose, quotes=False): self.redact_json(v, loose, acts)
                    for k, v in value.items()}
        return value


ACTOR_KEYS = ("actor", "shown_as", "from", "sender", "author", "name")
"""Keys of a JSON object in a record's ``attrs`` that say who did it (the chat readers' system events,
Messenger's reactions, Telegram's reactions, the mail reader's list of forwarded messages)."""
_ACT_TEXT = re.compile(r"^(?:[^:\n]{1,80}:\s*)?" + re.escape(REPLACEMENT) + r"(?:\s|$)")


def is_act(value: Any) -> bool:
    """Whether ``value`` — an object of a list in redacted ``attrs`` — is a forgotten entity's own act.

    True for an object whose actor field (:data:`ACTOR_KEYS`) is nothing but ``"[forgotten]"``, and for
    a system event (an object with ``"text"`` and ``"at"``) whose sentence starts with the forgotten
    actor, after the sender a chat shows for it (WhatsApp's ``"Garden Club: [forgotten] left"``).
    The sentence such an event keeps — a group subject the person chose — is their words."""
    if not isinstance(value, dict):
        return False
    if any(isinstance(value.get(k), str) and value[k].strip() == REPLACEMENT for k in ACTOR_KEYS):
        return True
    text = value.get("text")
    return "at" in value and isinstance(text, str) and bool(_ACT_TEXT.match(text.strip()))


def _introduces_quote(lines: list[str], i: int, d: int) -> bool:
    """Whether line ``i`` (at quote depth ``d``) ends with ":", carries a date or an address, and the next
    non-blank line is quoted deeper — an attribution in any language or word order ("Am 01.05.2023 um 10:00 schrieb X <x@…>:", "Il giorno … X ha
    scritto:", "Op … schreef X:")."""
    body = _depth(lines[i])[1].rstrip()
    # a client's attribution carries a date or an address; "Here is what I sent [forgotten]:" above the
    # writer's own earlier words does not
    if not body.endswith(":") or not (any(ch.isdigit() for ch in body) or "<" in body):
        return False
    for nxt in lines[i + 1:i + 3]:
        if nxt.strip():
            return _depth(nxt)[0] > d
    return False


def drop_attributed_quotes(text: str) -> str:
    """Replace each quoted block whose attribution line carries ``"[forgotten]"`` by one
    ``"[forgotten message]"`` line at the block's quote depth (see the module doc).

    Outlook style — ``"From: …"`` (optionally after ``"-----Original Message-----"``) at depth d, the
    message below at depth d: the block is every following line of depth ≥ d (to the end of the text
    when d = 0).  Internet style — ``"… wrote:"`` at depth d, the message at depth d + 1.  Mail clients
    re-wrap quotes, leaving short lines of lower depth inside a block ("> the" between "> > > >"
    lines): a line of ≤ 40 characters followed within two lines by the block's depth stays in it."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        d, body = _depth(lines[i])
        if REPLACEMENT in body and (_HEADER.match(body) or _WROTE.search(body) or _introduces_quote(lines, i, d)):
            outlook = bool(_HEADER.match(body))
            floor = d if outlook else d + 1
            if outlook and out and _ORIGINAL.match(_depth(out[-1])[1]) and _depth(out[-1])[0] == d:
                out.pop()
            j = i + 1
            while j < len(lines):
                dj, bj = _depth(lines[j])
                if floor == 0 or dj >= floor:
                    j += 1
                    continue
                # a re-wrapped quote breaks lines: a short line of lower depth with the block resuming
                # within the next two lines still belongs to it
                ahead = [_depth(x)[0] for x in lines[j + 1:j + 3]]
                if len(bj.strip()) <= 40 and any(a >= floor for a in ahead):
                    j += 1
                    continue
                break
            out.append((">" * d + " " if d else "") + QUOTE_REPLACEMENT)
            i = j
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)

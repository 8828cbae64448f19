"""Entity resolution: is this name/address someone Kith already knows? (seed 002's cascade, made safe).

| Signal            | Threshold   | Action                                                            |
|-------------------|-------------|-------------------------------------------------------------------|
| Phone number      | definitive  | merge, upgrade a phone-only name                                  |
| Contact id        | definitive  | merge                                                             |
| Email / handle    | definitive  | merge (an address names one entity, whatever its kind)            |
| On a contact card | definitive  | an identifier a card lists → the card's entity (signal contact)   |
| Address-book name | definitive  | a chat name shown from the phone's address book (WhatsApp) equal  |
|                   |             | to the name of exactly one contact card → that card's entity      |
| Thread            | definitive  | the same name already wrote in this chat/thread → that participant|
| Exact name        | definitive  | merge (case-insensitive) — **full names only** (issue 13); a name |
|                   |             | two or more contact cards share is a suggestion (card_name)       |
| Exact name across identifiers | 0.80 | both sides have addresses of their own, share none and no   |
|                   |             | company mail domain: new entity + a suggestion (full_name)        |
| Alias match       | definitive  | merge (nicknames, emails, handles) — full names only              |
| First name + org domain | definitive | a bare name corroborated by a shared company mail domain    |
| Address spells the name | definitive | "Anna" <elliott.anna@…>, or no name at <anna.elliott@…>: the  |
|                   |             | one person called "Anna Elliott" (held when both have addresses)  |
| Bare name, no identifiers | definitive | "Mom" in two chats exported from one phone             |
| Bare first name / nickname across identifiers | 0.60 | new entity + a merge suggestion      |
| Fuzzy name (high) | ≥ 0.85      | merge (character-bigram similarity) — full names, ≤ 1 identified  |
| Nickname forms    | 0.90        | as fuzzy high: "Bob Smith" / "Robert Smith" (nicknames dataset)   |
| Fuzzy name (low)  | 0.55 – 0.85 | new entity + a merge suggestion                                   |
| Emoji/symbols only differ | —   | new entity + a merge suggestion ("John Doe 🤓" ≠ "John Doe")      |
| Same surname, different first name | 0.45 | kept apart (family members), decision recorded       |
| … at one address  | never       | "Bob Smith" from the address "Jane Smith" wrote from: a family's  |
|                   |             | shared address; he is resolved by name, the pair kept apart       |
| Unrelated names at one address | suggestion | "Jordan Park" from the address "Kim Lee" — or just "Kim" — wrote|
|                   |             | from (mail): resolved by name + a suggestion (other_name); a word, |
|                   |             | initial, nickname form or start of the full name ("Park", "J.",    |
|                   |             | "Bob", "Jo"), a kinship word or the address's local part joins     |
| Household name    | —           | "The Smiths", "Mr & Mrs Jones" <addr>: the address is a household |
|                   |             | (a group thing); its writers are resolved by their own names      |
| Other party of the same record/chat | — | never merged by name (two senders of one chat are two) |
| No match          | —           | new entity                                                        |

Why the departures from the seed's table: two people called just "Alex" at different addresses were
merged and the second one's employer superseded the first one's (issue 13).  A bare first name or a
nickname is shared by many people, so a match on it alone is at most a suggestion unless something
else corroborates it (a shared identifier, a company mail domain, the same thread); a fuzzy match
between two people who each have their own address is a suggestion too.  A wrong merge is worse than a
missed one: a missed one waits in the review queue.  The same holds for a full name: "Sam Lee" at
sam@acme.example and "Sam Lee" at sam.lee@globex.example (or one by phone on WhatsApp, one by mail) were
merged (held) and shown as one person with both addresses; a common full name says no more than a first
name does when each side has its own addresses, so that is a suggestion (``full_name``) unless a shared
company mail domain corroborates it, or the name is the owner's (an archive's owner writing from another
of their own accounts).

Every merge Kith makes by name while the incoming mention brings a new alias (an address or a name
variant) is done as *create, then merge* with a :class:`~core.store.schema.MergeCandidate` row
(``decided_by="kith"``, status ``merged``) holding signal, score, threshold, reason and the exact move
log, so the person can see it in the profile and undo it.  When both sides had their own identifiers,
the merge is *held*: facts from the second identity stay on it (supersession across the two identities
waits) until the person confirms the merge (:func:`core.graph.merge.confirm`).

Contact cards (``core/graph/contacts.py``) are the person's own statement of who is who: every name and
identifier on a card is an alias of the card's entity with ``Alias.card`` set, so a party whose
identifier a card lists resolves to it with signal ``contact``; two cards are never merged by name.

Bigram similarity is the Dice coefficient over each word's character bigrams
with a space padded on both sides of the word (so ``"jon"`` → ``" j", "jo",
"on", "n "``): "Jon Smith" vs "John Smith" = 2·9 / (10 + 11) = 0.857.
Candidates for the fuzzy rows are pre-selected by rapidfuzz (C speed) and
then scored exactly by :func:`bigram_similarity`.
Every decision is returned with the signal that made it and its score.
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter, OrderedDict
from dataclasses import dataclass, field

from sqlmodel import Session, select

from core import clock
from core.graph.entities import (email_domain, is_full_name, is_org_domain, is_role_address, is_service_sender,
                                 looks_like_household,
                                 name_tokens, normalize_email,
                                 normalize_alias, normalize_name, person_display_name, sender_type,
                                 strip_decorations)
from core.store.schema import Alias, Entity, Fact, FactEntity, MergeCandidate, Record, RecordEntity

FUZZY_MERGE = 0.85      # seed 002: fuzzy name (high) → auto-merge
FUZZY_REVIEW = 0.55     # seed 002: 0.55–0.85 → new entity + review item
SAME_SURNAME = 0.45     # seed 002: same last name, different first name
NICKNAME = 0.90         # same last name, first names one name's forms (Bob/Robert): the fuzzy-high band
BARE_NAME = 0.60        # issue 13: a bare first name/nickname across identifiers is at most a suggestion
FULL_NAME = 0.80        # issue 13's kind: a same full name across identifiers is a suggestion, above bare names
FIRST_NAME_DIFFERENT = 0.5  # first names with bigram similarity below this are "different" (Mary vs John, not Jon vs John)
DEFINITIVE = ("phone", "contact", "email", "handle")  # address kinds looked up as definitive aliases
ADDRESS_KINDS = ("phone", "email", "handle")
THRESHOLDS = {  # how each signal's threshold is written in decisions shown to the person
    "phone": "definitive", "contact": "definitive", "email": "definitive", "handle": "definitive",
    "thread": "definitive", "exact_name": "definitive", "alias": "definitive", "first_name_domain": "definitive",
    "bare_name": "definitive", "first_name": f"suggestion < {FUZZY_MERGE}", "fuzzy_high": f"≥ {FUZZY_MERGE}",
    "fuzzy_review": f"{FUZZY_REVIEW}–{FUZZY_MERGE}", "decoration": "suggestion", "same_surname": f"{SAME_SURNAME}: never",
    "same_chat": "never (two parties of one chat)", "new": "—",
    "signature_phone": "definitive (their own signature)",
    "signature_email": "definitive (their own signature, under their full name)", "nickname": f"≥ {FUZZY_MERGE} (nickname forms)",
    "card_name": "suggestion (several contact cards have this name)",
    "address_name": "definitive (the address spells the full name)",
    "full_name": "suggestion (same full name: each with addresses of their own, or one known only by name)",
    "shared_address": "never (family members writing from one shared address)",
    "other_name": "suggestion (unrelated names writing from one address)",
    "self_introduction": "suggestion (a number not in the phone said who it is)",
}
CARD_NAMES = "card_names"
"""``Entity.attrs[CARD_NAMES]``: the normalised display names (``FN``) of the contact cards joined to an entity —
the name an address book shows them by (a card's ``N`` is also a name alias, but not what a phone displays)."""
ADDRESS_BOOK = "address book"
"""``Entity.attrs["named_by"]`` of a person created from a chat name the phone's address book gave (a WhatsApp
export shows a saved contact by the name on their card): a contact card with that name joins it later."""


@dataclass(frozen=True)
class Resolution:
    """The outcome: the entity, whether it was created, the signal and its score (1.0 for definitive rows).

    ``signal`` ∈ phone | contact | email | handle | thread | exact_name | alias | first_name_domain |
    bare_name | fuzzy_high | fuzzy_review | first_name | decoration | same_surname | same_chat | new.
    ``review_id`` is the pending MergeCandidate (a suggestion) created beside a new entity;
    ``merge_id`` the MergeCandidate of a merge Kith made just now; ``matched_id`` the entity compared
    with; ``alias_id`` the alias that matched (identifier rows) or was added; ``identity_id`` the entity
    whose facts this mention's statements are (differs from ``entity`` while a held merge is unconfirmed).
    """

    entity: Entity
    created: bool
    signal: str
    score: float
    review_id: int | None = None
    matched_id: int | None = None
    merge_id: int | None = None
    alias_id: int | None = None
    identity_id: int | None = None
    reason: str = ""


@dataclass
class Context:
    """Where a mention was seen.

    Attributes:
        thread: the record's conversation key (chat, mail thread), or None.
        apart: entity ids of the *other* parties of the same record — never merged with this one by
            name (two senders of one chat, sender and recipient of one mail, are two parties).
    """

    thread: str | None = None
    apart: set[int] = field(default_factory=set)


def _fold(name: str) -> str:
    """``normalize_name`` without diacritics ("José García" → "jose garcia"): a name typed on a keyboard
    without accents is the same name, for the fuzzy rows (exact lookups keep the accents)."""
    decomposed = unicodedata.normalize("NFKD", normalize_name(name))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _bigrams(name: str) -> Counter:
    grams: Counter = Counter()
    for word in _fold(name).split():
        padded = f" {word} "
        grams.update(padded[i:i + 2] for i in range(len(padded) - 1))
    return grams


def bigram_similarity(a: str, b: str) -> float:
    """Dice coefficient of padded character bigrams, 0.0–1.0 (1.0 for equal names after normalisation)."""
    ga, gb = _bigrams(a), _bigrams(b)
    total = sum(ga.values()) + sum(gb.values())
    if total == 0:
        return 0.0
    return 2.0 * sum((ga & gb).values()) / total


_NICKNAMES = None


def _nicknamer():
    """The ``nicknames`` dataset's NickNamer (carltonnorthern/nicknames), loaded once."""
    global _NICKNAMES
    if _NICKNAMES is None:
        from nicknames import NickNamer

        _NICKNAMES = NickNamer()
    return _NICKNAMES


def nickname_forms(a: str, b: str) -> bool:
    """True when first names ``a`` and ``b`` are forms of one name: one is a nickname of the other
    ("bob"/"robert", "liz"/"elizabeth"), by the hand-curated ``nicknames`` dataset (carltonnorthern/nicknames)."""
    a, b = a.casefold().strip("."), b.casefold().strip(".")
    return a != b and (b in _nicknamer().nicknames_of(a) or a in _nicknamer().nicknames_of(b))


def name_forms(name: str) -> set[str]:
    """The other forms the ``nicknames`` dataset knows of a given name ("jane" → {"jenny", "janet", …}); empty for a
    word it does not know as a name (case-insensitive)."""
    key = name.casefold().strip(".")
    return set(_nicknamer().nicknames_of(key)) | set(_nicknamer().canonicals_of(key))


def first_name_of_someone(s: Session, word: str) -> bool:
    """Whether a live person's name is or starts with the one word ``word`` ("Tom" for Tom Baker, or a person named
    Tom alone; case-insensitive, the word taken literally)."""
    w = (word or "").strip()
    if len(w) < 2 or " " in w:
        return False
    w = w.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    named = Entity.canonical_name.ilike(w, escape="\\") | Entity.canonical_name.ilike(f"{w} %", escape="\\")
    return s.exec(select(Entity.id).where(Entity.kind == "person", Entity.tombstoned_at.is_(None), named)
                  .limit(1)).first() is not None


def name_score(a: str, b: str) -> tuple[float, str]:
    """Score two person names by the seed's rules: (score, signal).

    Same surname with first names that are forms of one name ("Bob Smith" / "Robert Smith") →
    (0.90, "nickname"); same surname with a clearly different first name → (0.45, "same_surname");
    otherwise the bigram similarity with signal fuzzy_high / fuzzy_review / none.
    """
    ta, tb = _fold(a).split(), _fold(b).split()
    if len(ta) >= 2 and len(tb) >= 2 and ta[-1] == tb[-1] and ta[0] != tb[0]:
        fa, fb = ta[0], tb[0]
        if bigram_similarity(a, b) < FUZZY_MERGE and nickname_forms(fa, fb):
            return NICKNAME, "nickname"
        initial = (len(fa) == 1 and fb.startswith(fa)) or (len(fb) == 1 and fa.startswith(fb))
        if not initial and bigram_similarity(fa, fb) < FIRST_NAME_DIFFERENT:
            return SAME_SURNAME, "same_surname"
    score = bigram_similarity(a, b)
    if score >= FUZZY_MERGE:
        return score, "fuzzy_high"
    if score >= FUZZY_REVIEW:
        return score, "fuzzy_review"
    return score, "none"


def decoration_equal(a: str, b: str) -> bool:
    """True when two different names are equal once emoji and symbols are removed ("John Doe 🤓", "John Doe")."""
    return normalize_name(a) != normalize_name(b) and \
        normalize_name(strip_decorations(a)) == normalize_name(strip_decorations(b))


class NameIndex:
    """In-memory names of live entities per kind, for the fuzzy rows, and who took part in each thread.

    Hold one per data folder; call :meth:`invalidate` after merges, unmerges and forgets (and after a
    rolled-back write).  Per kind it keeps two parallel lists (entity ids, names) so rapidfuzz scans a
    ready list; per thread (the 512 most recent) the participants' normalised names.
    """

    THREADS = 512

    def __init__(self) -> None:
        self._names: dict[str, tuple[list[int], list[str]]] | None = None
        self._threads: OrderedDict[str, dict[str, set[int]]] = OrderedDict()

    def invalidate(self) -> None:
        self._names = None
        self._threads.clear()

    def _load(self, s: Session) -> dict[str, tuple[list[int], list[str]]]:
        if self._names is None:
            names: dict[str, tuple[list[int], list[str]]] = {}
            rows = s.exec(select(Entity.id, Entity.kind, Alias.value).join(Alias, Alias.entity_id == Entity.id)
                          .where(Alias.kind.in_(("name", "nickname")), Entity.tombstoned_at.is_(None))).all()
            for eid, kind, value in rows:
                ids, values = names.setdefault(kind, ([], []))
                ids.append(eid)
                values.append(value)
            self._names = names
        return self._names

    def add(self, s: Session, entity: Entity, name: str) -> None:
        ids, values = self._load(s).setdefault(entity.kind, ([], []))
        ids.append(entity.id)
        values.append(name)

    def candidates(self, s: Session, kind: str, name: str, limit: int = 25) -> list[tuple[int, float, str, str]]:
        """Entities whose names score ≥ 0.45 against ``name``: (entity id, score, signal, their name), best first."""
        from rapidfuzz import fuzz, process, utils

        ids, values = self._load(s).get(kind, ([], []))
        if not ids:
            return []
        hits = process.extract(name, values, scorer=fuzz.ratio, processor=utils.default_process,
                               limit=limit, score_cutoff=40)
        best: dict[int, tuple[int, float, str, str]] = {}
        for _, ratio, idx in hits:
            score, signal = name_score(name, values[idx])
            if ratio == 100 and decoration_equal(name, values[idx]):  # equal once symbols are gone: ratio 100
                signal = "decoration"
            if signal != "none" and (ids[idx] not in best or score > best[ids[idx]][1]):
                best[ids[idx]] = (ids[idx], score, signal, values[idx])
        return sorted(best.values(), key=lambda x: (-x[1], x[0]))

    def best(self, s: Session, kind: str, name: str, limit: int = 25) -> tuple[int, float, str] | None:
        """The best-scoring entity for ``name``: (entity id, score, signal), or None below 0.45."""
        found = self.candidates(s, kind, name, limit)
        return found[0][:3] if found else None

    # -- threads -----------------------------------------------------------------------------
    def thread_members(self, s: Session, thread: str) -> dict[str, set[int]]:
        """Normalised name → entity ids of everyone who took part in ``thread`` (sender or recipient)."""
        members = self._threads.get(thread)
        if members is None:
            members = {}
            # The thread's records first, then their parties: joined in one query, SQLite's planner started
            # from the alias table and walked every record of every participant (O(archive) per thread).
            rids = list(s.exec(select(Record.id).where(Record.thread == thread,
                                                       Record.tombstoned_at.is_(None))).all())
            for i in range(0, len(rids), 500):
                rows = s.exec(select(RecordEntity.entity_id, Alias.normalized)
                              .join(Alias, Alias.entity_id == RecordEntity.entity_id)
                              .join(Entity, Entity.id == RecordEntity.entity_id)
                              .where(RecordEntity.record_id.in_(rids[i:i + 500]),
                                     Alias.kind.in_(("name", "nickname")), Entity.tombstoned_at.is_(None))).all()
                for eid, norm in rows:
                    members.setdefault(norm, set()).add(eid)
            self._threads[thread] = members
            while len(self._threads) > self.THREADS:
                self._threads.popitem(last=False)
        else:
            self._threads.move_to_end(thread)
        return members

    def merged(self, loser_id: int, survivor_id: int) -> None:
        """A merge folded ``loser_id`` into ``survivor_id``: its names and thread memberships are the survivor's now."""
        if self._names is not None:
            for ids, _ in self._names.values():
                for i, eid in enumerate(ids):
                    if eid == loser_id:
                        ids[i] = survivor_id
        for members in self._threads.values():
            for ids in members.values():
                if loser_id in ids:
                    ids.discard(loser_id)
                    ids.add(survivor_id)

    def note_member(self, s: Session, thread: str | None, entity_id: int, name: str | None) -> None:
        """Remember that ``entity_id`` took part in ``thread`` under ``name``."""
        if thread and name:
            self.thread_members(s, thread).setdefault(normalize_name(name), set()).add(entity_id)


def _by_alias(s: Session, kinds: tuple[str, ...], normalized: str, entity_kind: str) -> Entity | None:
    # Two indexed lookups: joined in one query, SQLite's planner scanned every entity of the kind instead.
    ids = s.exec(select(Alias.entity_id).where(Alias.kind.in_(kinds), Alias.normalized == normalized)).all()
    if not ids:
        return None
    return s.exec(select(Entity).where(Entity.id.in_(ids), Entity.kind == entity_kind,
                                       Entity.tombstoned_at.is_(None)).order_by(Entity.id)).first()


def _by_address(s: Session, kind: str, normalized: str, entity_kind: str) -> tuple[Entity, Alias] | None:
    """The live entity holding address alias (kind, normalized).  People and things share one address
    space (an address names one entity: a list address found as a "person" is the list)."""
    kinds = ("person", "thing") if entity_kind in ("person", "thing") else (entity_kind,)
    rows = s.exec(select(Alias).where(Alias.kind == kind, Alias.normalized == normalized)).all()
    for alias in sorted(rows, key=lambda a: a.entity_id):
        e = s.get(Entity, alias.entity_id)
        if e is not None and e.tombstoned_at is None and e.kind in kinds:
            return e, alias
    return None


def _by_names(s: Session, kinds: tuple[str, ...], normalized: str, entity_kind: str) -> list[Entity]:
    ids = s.exec(select(Alias.entity_id).where(Alias.kind.in_(kinds), Alias.normalized == normalized)).all()
    if not ids:
        return []
    return list(s.exec(select(Entity).where(Entity.id.in_(set(ids)), Entity.kind == entity_kind,
                                            Entity.tombstoned_at.is_(None)).order_by(Entity.id)).all())


def clean_name(name: str | None) -> str | None:
    """A display name without surrounding quotes and extra spaces (``"'Bob Stone' "`` → ``"Bob Stone"``), or None."""
    if not name:
        return None
    name = " ".join(name.split()).strip("'\"` ")
    return name or None


def add_alias(s: Session, entity: Entity, kind: str, value: str, region: str = "US",
              card: str | None = None) -> Alias | None:
    """Attach an alias to ``entity`` unless it already has it; returns the new row or None.

    ``card``: the normalised contact id of the address-book card that lists it (``Alias.card``); an
    alias the entity already has is marked with it (when it had no card yet) and None is returned."""
    norm = normalize_alias(kind, value, region)
    if not norm:
        return None
    exists = s.exec(select(Alias).where(Alias.entity_id == entity.id, Alias.kind == kind,
                                        Alias.normalized == norm)).first()
    if exists:
        if card and not exists.card:
            exists.card = card
            s.add(exists)
        return None
    alias = Alias(entity_id=entity.id, kind=kind, value=value.strip(), normalized=norm, origin_id=entity.id,
                  card=card)
    s.add(alias)
    return alias


def card_entities(s: Session, kind: str, normalized: str, entity_kind: str = "person") -> list[Entity]:
    """Live entities of ``entity_kind`` whose contact card lists alias (``kind``, ``normalized``), by id."""
    ids = s.exec(select(Alias.entity_id).where(Alias.kind == kind, Alias.normalized == normalized,
                                               Alias.card.is_not(None))).all()
    if not ids:
        return []
    return list(s.exec(select(Entity).where(Entity.id.in_(set(ids)), Entity.kind == entity_kind,
                                            Entity.tombstoned_at.is_(None)).order_by(Entity.id)).all())


def _addresses(s: Session, entity_id: int) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for kind, norm in s.exec(select(Alias.kind, Alias.normalized).where(
            Alias.entity_id == entity_id, Alias.kind.in_(ADDRESS_KINDS + ("contact",)))).all():
        out.setdefault(kind, set()).add(norm)
    return out


def _is_address_only(entity: Entity, address: str | None) -> bool:
    if not address:
        return False
    name = entity.canonical_name.strip()
    return name.casefold() == address.strip().casefold() or (
        normalize_alias("phone", name) is not None and normalize_alias("phone", name) == normalize_alias("phone", address))


def _pair_decided(s: Session, a: int, b: int) -> MergeCandidate | None:
    return s.exec(select(MergeCandidate).where(
        ((MergeCandidate.a_id == a) & (MergeCandidate.b_id == b)) |
        ((MergeCandidate.a_id == b) & (MergeCandidate.b_id == a)))).first()


def record_decision(s: Session, a_id: int, b_id: int, status: str, signal: str, score: float, reason: str,
                    decided_by: str = "kith") -> MergeCandidate | None:
    """Keep a merge/non-merge decision about entities ``a_id`` and ``b_id`` (once per pair; None if one exists)."""
    if a_id == b_id or _pair_decided(s, a_id, b_id) is not None:
        return None
    mc = MergeCandidate(a_id=a_id, b_id=b_id, score=round(float(score), 4), reason=reason, status=status,
                        signal=signal, threshold=THRESHOLDS.get(signal, ""), decided_by=decided_by,
                        decided_at=None if status == "pending" else clock.now())
    s.add(mc)
    s.flush()
    return mc


def held_merge(s: Session, origin_id: int) -> MergeCandidate | None:
    """The unconfirmed, held merge Kith made of entity ``origin_id`` into another, or None."""
    for mc in s.exec(select(MergeCandidate).where(MergeCandidate.b_id == origin_id, MergeCandidate.status == "merged",
                                                  MergeCandidate.confirmed_at.is_(None))).all():
        if (mc.detail or {}).get("hold"):
            return mc
    return None


def identity_of(s: Session, entity: Entity, alias: Alias | None) -> int:
    """Whose facts a mention that matched ``alias`` of ``entity`` states: the alias's first owner while a held
    merge of it into ``entity`` is unconfirmed, else ``entity`` itself."""
    if alias is None or alias.origin_id in (None, entity.id):
        return entity.id
    return alias.origin_id if held_merge(s, alias.origin_id) is not None else entity.id


def resolve(s: Session, kind: str, name: str | None, address: str | None = None,
            address_kind: str = "email", region: str = "US", attrs: dict | None = None,
            contact_id: str | None = None, index: NameIndex | None = None,
            context: Context | None = None) -> Resolution:
    """Find or create the entity named ``name`` and/or reachable at ``address`` (the cascade in the module doc).

    Args:
        s: an open session (the caller commits).
        kind: entity kind (person, place, topic, event, thing).
        name: display name, or None.
        address: phone / email / handle, or None; ``address_kind`` says which (``"short_code"`` and
            ``"alphanumeric"`` mark SMS senders that are services: they become things, never people).
        region: default phone region (ISO 3166) for numbers without a country code.
        attrs: metadata for a newly created entity (e.g. GPS for a place).
        contact_id: an address-book id (definitive when known).
        index: a :class:`NameIndex` to use for the fuzzy and thread rows (built from the store when None).
        context: where the mention was seen (:class:`Context`): its thread and the record's other parties.

    Returns:
        :class:`Resolution`.  A suggestion creates a new entity and a pending MergeCandidate
        (``review_id``); a merge Kith makes by name creates a merged MergeCandidate (``merge_id``).

    Raises:
        ValueError: neither a name, an address nor a contact id was given.
    """
    name = clean_name(name)
    if name and kind == "person":
        name = person_display_name(name, mail=address_kind == "email")  # "Greene, Anna" → "Anna Greene"
    address = (address or "").strip() or None
    attrs = dict(attrs or {})
    if name and address and name.casefold() == address.casefold().strip("<>"):
        name = None  # "alice@example.com <alice@example.com>": the address is not a name
    if not name and not address and not contact_id:
        raise ValueError("resolve() needs a name, an address or a contact id")
    stype = sender_type(address, address_kind) if kind in ("person", "thing") else None
    if stype is not None:  # an SMS short code or sender ID: an organisation's service, one entity per sender
        kind, address_kind = "thing", "handle"
        attrs.setdefault("sender_type", stype)
        if name and normalize_name(name) == normalize_name(address):
            name = None
    household = False
    if address_kind == "email" and kind == "person" and is_service_sender(name, address):
        kind = "thing"  # "GitHub" <noreply@github.com>: an organisation's service, one entity per address
        attrs.setdefault("kind_reason", f"{name!r} is the name of {address}'s domain or robot mailbox")
    elif address_kind == "email" and kind == "person" and address and looks_like_household(name):
        kind, household = "thing", True  # "The Smiths" <smiths@…>: a household's shared address, not one person
        attrs.setdefault("group", "household")
        attrs.setdefault("kind_reason", f"{name!r} names a household, not one person: {address} is shared")
    elif address_kind == "email" and is_role_address(address) and kind == "person":
        if name:
            address = None  # "Jane via no-reply@…": the name identifies her; the shared address does not
        else:
            kind = "thing"  # a list robot or a shared mailbox: not a person
    index = index or NameIndex()
    ctx = context or Context()
    addr_norm = normalize_alias(address_kind, address, region) if address else None
    if address and addr_norm is None and address_kind == "phone":
        # a number written for another country than the default region ("07700 900123" on a UK phone's card, the
        # region US): the one known number it is the national form of; else not dialable here: kept as a handle
        addr_norm = national_match(s, address)
        if addr_norm is None:
            address_kind, addr_norm = "handle", normalize_alias("handle", address, region)
    elif addr_norm and address_kind == "phone" and _by_address(s, "phone", addr_norm, kind) is None:
        held = _national_handle(s, addr_norm, kind)
        if held is not None:  # the same number kept before as a handle, written nationally: it is theirs
            add_alias(s, held, "phone", address, region)

    # 1. identifiers: definitive
    if contact_id:
        found = _by_alias(s, ("contact",), contact_id.strip().casefold(), kind)
        if found is not None:
            return _attach(s, found, "contact", 1.0, name, address, address_kind, contact_id, region, index, ctx)
    if addr_norm:
        hit = _by_address(s, address_kind, addr_norm, kind)
        if hit is not None:
            found, alias = hit
            if alias.card:  # the person's own address book lists it (seed 002: contact id, definitive)
                return _attach(s, found, "contact", 1.0, name, address, address_kind, contact_id, region, index,
                               ctx, matched_alias=alias, reason=f"{address} is on the contact card of "
                               f"{found.canonical_name}")
            if (household and found.kind == "person") or (kind == "person" and found.kind == "thing"
                                                          and (found.attrs or {}).get("group")):
                # the address is someone's: "The Smiths" is not their name; a person writing from a group's address
                # (a household's, a shared mailbox): their name is not the group's (the caller resolves the writer)
                return _attach(s, found, address_kind, 1.0, None, address, address_kind, contact_id, region, index,
                               ctx, matched_alias=alias)
            kin = _family_member(s, found, name) if kind == "person" else None
            if kin is not None:
                # "Bob Smith" writing from the address "Jane Smith" wrote from: a family's shared address, not one
                # person — he is resolved by his name, and the pair is kept apart
                res = resolve(s, kind, name, None, address_kind, region, attrs, None, index, ctx)
                if res.entity.id != found.id:
                    record_decision(s, found.id, res.entity.id, "separate", "shared_address", SAME_SURNAME,
                                    f"{name!r} and {kin!r} both write from {address}: same surname, different "
                                    "first names (a family's shared address)")
                return res
            known = _other_name(s, found, name, address if address_kind == "email" else None) \
                if kind == "person" else None
            if known is not None:
                # "Jordan Park" writing from the address "Kim Lee" writes from: no word of their names in common —
                # someone else using it (an assistant, a shared mailbox) or one person renamed; not merged silently:
                # resolved by the name, with a suggestion to merge (several such names: a shared mailbox, parties.py)
                res = resolve(s, kind, name, None, address_kind, region, attrs, None, index, ctx)
                if res.entity.id != found.id:
                    record_decision(s, found.id, res.entity.id, "pending", "other_name", BARE_NAME,
                                    f"{name!r} and {known!r} both write from {address}, and their names have no "
                                    "word in common: one person under two names, or two people sharing it?")
                    writers = set((found.attrs or {}).get(OTHER_WRITERS) or ()) | {res.entity.id}
                    found.attrs = {**(found.attrs or {}), OTHER_WRITERS: sorted(writers)}
                    s.add(found)
                return res
            return _attach(s, found, address_kind, 1.0, name, address, address_kind, contact_id, region, index, ctx,
                           matched_alias=alias)
    if not name:
        if kind == "person" and address_kind == "email" and addr_norm:
            found = _address_name(s, None, address, addr_norm, contact_id, region, attrs, index, ctx)
            if found is not None:
                return found
        return _create(s, kind, name, address, address_kind, contact_id, region, attrs, index, ctx)
    norm = normalize_name(name)
    mine = _addresses_of_mention(address_kind, addr_norm, contact_id)

    # 1b. a chat name the phone's address book gave (WhatsApp shows a saved contact by their card's name):
    #     the one contact card with exactly that name
    #     (a card that shows another name is not them: the chat would have shown that one)
    shown_otherwise: set[int] = set()
    if kind == "person" and not addr_norm and not contact_id and attrs.get("named_by") == ADDRESS_BOOK:
        cards = [e for e in card_entities(s, "name", norm) if e.id not in ctx.apart]
        shown = [e for e in cards if norm in (e.attrs or {}).get(CARD_NAMES, ())]
        shown_otherwise = {e.id for e in cards} - {e.id for e in shown}
        if len(shown) == 1:
            return _attach(s, shown[0], "contact", 1.0, name, None, address_kind, None, region, index, ctx,
                           reason=f"{name!r} is the name of {shown[0].canonical_name}'s contact card, and this "
                           "chat shows names from the address book", name_known=True)

    # 2. the same name already took part in this thread
    if ctx.thread and kind == "person":
        ids = index.thread_members(s, ctx.thread).get(norm, set()) - ctx.apart
        live = [e for e in (s.get(Entity, i) for i in sorted(ids)) if e is not None and e.tombstoned_at is None
                and e.kind == kind and _conflicts(s, e.id, mine) == 0]  # two addresses in one mail thread: two people
        if live:
            return _join(s, live[0], "thread", 1.0, f"{name!r} already wrote in this thread", name, address,
                         address_kind, contact_id, region, attrs, index, ctx, mine)

    # 2b. a bare first name whose address spells a full name ("Anna" <elliott.anna@…>)
    if kind == "person" and address_kind == "email" and addr_norm and not is_full_name(name):
        found = _address_name(s, name, address, addr_norm, contact_id, region, attrs, index, ctx)
        if found is not None:
            return found

    # 3. exact name, then nickname/email/handle alias
    for alias_kinds, signal in ((("name",), "exact_name"), (("nickname", "email", "handle"), "alias")):
        cands = [e for e in _by_names(s, alias_kinds, norm, kind) if e.id not in ctx.apart | shown_otherwise]
        if not cands:
            continue
        if kind != "person":
            return _attach(s, cands[0], signal, 1.0, name, address, address_kind, contact_id, region, index, ctx)
        if is_full_name(name):
            if signal == "exact_name":
                cards = [e for e in card_entities(s, "name", norm) if e.id not in ctx.apart]
                if len(cards) >= 2 and not any(_shares(mine, _addresses(s, e.id)) for e in cards):
                    return _create(s, kind, name, address, address_kind, contact_id, region, attrs, index, ctx,
                                   suggest=(cards[0].id, "card_name", BARE_NAME,
                                            f"{len(cards)} contact cards are called {name!r} "
                                            f"({', '.join(e.canonical_name for e in cards)}); "
                                            f"{_identifier_note(s, cards[0].id, mine)}"))
            if not mine:  # a sender known only by this name: not one of several people who go by it
                doubt = name_only_candidates(s, cands, name, ctx)
                if len(doubt) >= 2:
                    return _create_doubted(s, kind, name, address, address_kind, contact_id, region, attrs, index,
                                           ctx, doubt)
            best = min(cands, key=lambda e: (_conflicts(s, e.id, mine), e.id))
            if signal == "exact_name" and (best.attrs or {}).get("named_by") == "self-introduction":
                # a number that said "this is Jane Doe" is not known to be the Jane Doe of the address book: the
                # person says (core.graph.introductions), whichever of the two was read first
                return _create(s, kind, name, address, address_kind, contact_id, region, attrs, index, ctx,
                               suggest=(best.id, "self_introduction", 0.7,
                                        f"{best.canonical_name} is what a number not in the phone called itself"))
            if signal == "exact_name" and not best.is_owner and _strangers(s, best.id, mine):
                return _create(s, kind, name, address, address_kind, contact_id, region, attrs, index, ctx,
                               suggest=(best.id, "full_name", FULL_NAME, f"same full name {name!r} only"
                                        f"{_domain_note(s, best.id, mine)}, {_identifier_note(s, best.id, mine)}"))
            return _join(s, best, signal, 1.0, f"same full name {name!r}", name, address, address_kind,
                         contact_id, region, attrs, index, ctx, mine)
        # a bare first name or nickname: definitive only when corroborated
        if not mine:  # known only by this name: not one of several people who go by it
            doubt = name_only_candidates(s, cands, name, ctx)
            if len(doubt) >= 2:
                return _create_doubted(s, kind, name, address, address_kind, contact_id, region, attrs, index,
                                       ctx, doubt)
        domain = email_domain(address) if address_kind == "email" else None
        for e in cands:
            theirs = _addresses(s, e.id)
            same = [x for x in theirs.get("email", ()) if email_domain(x) == domain] if domain else []
            if domain and is_org_domain(domain) and same and not all(_other_surname(name, address, x) for x in same):
                return _join(s, e, "first_name_domain", 1.0, f"same name {name!r} and the same mail domain "
                             f"{domain}", name, address, address_kind, contact_id, region, attrs, index, ctx, mine)
        for e in cands:
            if not mine and not _addresses(s, e.id):
                return _join(s, e, "bare_name", 1.0, f"same name {name!r}; neither has an address", name, address,
                             address_kind, contact_id, region, attrs, index, ctx, mine)
        if signal == "alias" and not mine:  # a nickname the person gave (or an address written as the name)
            return _join(s, cands[0], "alias", 1.0, f"{name!r} is a known alias", name, address, address_kind,
                         contact_id, region, attrs, index, ctx, mine)
        target = cands[0]
        why = (f"same name {name!r} only ({'bare first name' if signal == 'exact_name' else 'nickname'}), "
               f"{_identifier_note(s, target.id, mine)}")
        return _create(s, kind, name, address, address_kind, contact_id, region, attrs, index, ctx,
                       suggest=(target.id, "first_name", BARE_NAME, why))

    # 4. fuzzy names (people only)
    if kind == "person":
        suggestion = None
        separate: list[tuple[int, str, float, str]] = []
        if not mine and is_full_name(name):  # known only by a name like two people's ("Jon Smith", two John Smiths)
            strong = {eid: score for eid, score, signal, other in index.candidates(s, kind, name)
                      if signal in ("fuzzy_high", "nickname") and eid not in ctx.apart and is_full_name(other)}
            doubt = [e for e in (s.get(Entity, i) for i in sorted(strong))
                     if e is not None and e.tombstoned_at is None and e.kind == kind]
            if len(doubt) >= 2 and not any(e.is_owner for e in doubt):
                return _create_doubted(s, kind, name, address, address_kind, contact_id, region, attrs, index, ctx,
                                       doubt, alike=round(max(strong[e.id] for e in doubt), 4))
        for eid, score, signal, other in index.candidates(s, kind, name):
            e = s.get(Entity, eid)
            if e is None or e.tombstoned_at is not None or e.kind != kind:
                continue
            if eid in ctx.apart:
                if signal in ("fuzzy_high", "fuzzy_review", "decoration", "nickname"):
                    separate.append((eid, "same_chat", score, f"{name!r} and {other!r} are two parties of one "
                                     f"{'chat' if ctx.thread else 'message'} (names {score:.2f} alike)"))
                continue
            if signal == "same_surname":
                if not separate:
                    separate.append((eid, "same_surname", score, f"same surname, different first names: "
                                     f"{name!r} and {other!r}"))
                continue
            if signal == "decoration":
                theirs = _addresses(s, eid)
                if not mine and is_full_name(strip_decorations(name)) and not e.is_owner:
                    alike = [x for x in index.candidates(s, kind, name)
                             if x[2] == "decoration" and x[0] not in ctx.apart]
                    doubt = name_only_candidates(s, [x for x in (s.get(Entity, i) for i, *_ in alike)
                                                     if x is not None and x.tombstoned_at is None
                                                     and x.kind == kind], name, ctx)
                    if len(doubt) >= 2:
                        return _create_doubted(s, kind, name, address, address_kind, contact_id, region, attrs,
                                               index, ctx, doubt)
                if mine and theirs and not _shares(mine, theirs):
                    suggestion = suggestion or (eid, "decoration", score, f"{name!r} and {other!r} differ only by "
                                                f"emoji or symbols, {_identifier_note(s, eid, mine)}")
                    continue
                if is_full_name(strip_decorations(name)) and not e.is_owner:
                    return _join(s, e, "exact_name", 1.0, f"same full name apart from emoji or symbols "
                                 f"({name!r} / {other!r})", name, address, address_kind, contact_id, region, attrs,
                                 index, ctx, mine)
                suggestion = suggestion or (eid, "decoration", score, f"{name!r} and {other!r} differ only by "
                                            "emoji or symbols")
                continue
            if signal in ("fuzzy_high", "nickname"):
                theirs = _addresses(s, eid)
                alike = (f"fuzzy name {score:.2f}, nickname forms of one first name: {name!r} / {other!r}"
                         if signal == "nickname" else f"names {score:.2f} alike ({name!r} / {other!r})")
                if not (is_full_name(name) and is_full_name(other)):
                    suggestion = suggestion or (eid, "fuzzy_review", score, f"{alike}, but not full names")
                    continue
                if mine and theirs and not (mine.keys() & theirs.keys() and _shares(mine, theirs)):
                    suggestion = suggestion or (eid, "fuzzy_review", score,
                                                f"{alike}, {_identifier_note(s, eid, mine)}")
                    continue
                res = _join(s, e, signal, score, alike, name, address, address_kind, contact_id, region, attrs,
                            index, ctx, mine)
                for sid, ssig, sscore, sreason in separate:
                    record_decision(s, sid, res.entity.id, "separate", ssig, sscore, sreason)
                return res
            if signal == "fuzzy_review":
                suggestion = suggestion or (eid, "fuzzy_review", score, f"fuzzy name {score:.2f}: {name!r} / "
                                            f"{other!r}")
        res = _create(s, kind, name, address, address_kind, contact_id, region, attrs, index, ctx, suggest=suggestion)
        for sid, ssig, sscore, sreason in separate:
            record_decision(s, sid, res.entity.id, "separate", ssig, sscore, sreason)
        if res.signal == "new" and separate:
            sid, ssig, sscore, _ = separate[0]
            return Resolution(res.entity, True, ssig, sscore, matched_id=sid, alias_id=res.alias_id,
                              identity_id=res.entity.id, reason=separate[0][3])
        return res
    return _create(s, kind, name, address, address_kind, contact_id, region, attrs, index, ctx)


def address_full_names(address: str, name: str | None = None) -> list[str]:
    """Full names an email address spells, for a sender shown by a bare first name or by no name at all.

    The local part (before ``+``, trailing digits dropped) is split at ``.``, ``_`` and ``-``.  With a bare
    first name F: ``f.last``/``last.f`` → "F Last"; one word ``flast…`` that starts with F → "F Last", or
    starts with F's initial → "F Last" (``aelliott`` for "Anna": "Anna Elliott").  With no name: two words
    → "W1 W2" and "W2 W1".  Only letters; every word at least two letters.  ``[]`` when it spells none.
    """
    local = normalize_email(address).split("@", 1)[0].split("+", 1)[0]
    local = re.sub(r"\d+$", "", local)
    words = [w for w in re.split(r"[._-]+", local) if w]
    if not words or not all(w.isalpha() and len(w) >= 2 for w in words):
        return []
    if name:
        given = name_tokens(name)
        if len(given) != 1 or not given[0].isalpha():
            return []
        first = given[0]
        if len(words) == 2 and first in words:
            return [f"{first} {words[1] if words[0] == first else words[0]}"]
        if len(words) == 1:
            w = words[0]
            if w.startswith(first) and len(w) - len(first) >= 2:
                return [f"{first} {w[len(first):]}"]
            if w[0] == first[0] and len(w) >= 4 and not w.startswith(first):
                return [f"{first} {w[1:]}"]
        return []
    if len(words) == 2:
        return [f"{words[0]} {words[1]}", f"{words[1]} {words[0]}"]
    return []


def _address_name(s: Session, name: str | None, address: str, addr_norm: str, contact_id: str | None, region: str,
                  attrs: dict, index: NameIndex, ctx: Context) -> Resolution | None:
    """The address-spells-the-name row (module doc): the one live person (not the owner, not another party of
    this record) whose exact full name the address spells, joined like an exact full-name match; several
    (or several contact cards) → a suggestion; none → None (the cascade goes on)."""
    found: dict[int, tuple[Entity, str]] = {}
    for full in address_full_names(address, name):
        for e in _by_names(s, ("name",), normalize_name(full), "person"):
            if e.id not in ctx.apart and not e.is_owner:
                found.setdefault(e.id, (e, full))
    if not found:
        return None
    mine = _addresses_of_mention("email", addr_norm, contact_id)
    shown = name or address
    if len(found) > 1:
        (e, full), *_ = found.values()
        return _create(s, "person", name, address, "email", contact_id, region, attrs, index, ctx,
                       suggest=(e.id, "first_name", BARE_NAME, f"{shown!r}: the address spells a name "
                                f"{len(found)} people have ({full!r}); {_identifier_note(s, e.id, mine)}"))
    (e, full), = found.values()
    return _join(s, e, "address_name", 1.0, f"{shown!r}: the address {address} spells the full name {full!r}",
                 name or full.title(), address, "email", contact_id, region, attrs, index, ctx, mine)


def _national_digits(written: str) -> str | None:
    """The digits of a phone number written without a country code, without the trunk prefix ("07700 900123" →
    "7700900123"); None when it has a country code ("+…", "00…") or fewer than 9 digits (too short to be sure)."""
    text = written.strip()
    digits = re.sub(r"\D", "", text)
    if text.startswith("+") or digits.startswith("00"):
        return None
    digits = digits.lstrip("0")
    return digits if len(digits) >= 9 else None


def national_match(s: Session, written: str) -> str | None:
    """The E.164 phone alias already known whose national number is ``written`` (a number without its country
    code that is no number in the default region): ``"+447700900123"`` for ``"07700 900123"`` when that is the only
    known number ending so; None when there is none or several (numbers of two countries)."""
    import phonenumbers

    nsn = _national_digits(written)
    if nsn is None:
        return None
    rows = set(s.exec(select(Alias.normalized).where(Alias.kind == "phone", Alias.normalized.like(f"%{nsn}"))).all())
    hits = set()
    for e164 in rows:
        try:
            if str(phonenumbers.parse(e164, None).national_number) == nsn:
                hits.add(e164)
        except phonenumbers.NumberParseException:
            continue
    return hits.pop() if len(hits) == 1 else None


def _national_handle(s: Session, e164: str, kind: str) -> Entity | None:
    """The live entity keeping ``e164``'s national form as a handle (written without a country code before the
    number was known: :func:`national_match`'s other order), when exactly one does."""
    import phonenumbers

    try:
        nsn = str(phonenumbers.parse(e164, None).national_number)
    except phonenumbers.NumberParseException:
        return None
    if len(nsn) < 9:
        return None
    found = {hit[0].id: hit[0] for form in ("0" + nsn, nsn)
             if (hit := _by_address(s, "handle", normalize_alias("handle", form), kind)) is not None}
    return next(iter(found.values())) if len(found) == 1 else None


def _other_surname(first: str, a: str, b: str) -> bool:
    """True when mailboxes ``a`` and ``b`` both spell ``first`` (a first name) followed by different rest — another
    surname or initial: alex.k@ and alex.m@northwind (two people called Alex at one company, merged as one by the
    shared domain), not alex@ and alex.reed@ (one says no more) nor alex.k@ and alex.kim@ (an initial of it)."""
    key = re.sub(r"[^a-z]", "", normalize_name(first))

    def rest(address: str) -> str | None:
        local = re.sub(r"[^a-z]", "", normalize_email(address).split("@", 1)[0])
        return local[len(key):] if key and local.startswith(key) else None

    ra, rb = rest(a), rest(b)
    return bool(ra) and bool(rb) and not ra.startswith(rb) and not rb.startswith(ra)


OTHER_WRITERS = "other_writers"
"""``Entity.attrs[OTHER_WRITERS]``: ids of the people who wrote from this person's address under names unrelated to
theirs (:func:`_other_name`), each resolved by their own name with a merge suggestion."""


def _other_name(s: Session, found: Entity, name: str | None, email: str | None = None) -> str | None:
    """A name of person ``found`` that ``name``, written from one of ``found``'s addresses, is unrelated to — the
    mention is someone else using the address (or one person renamed): resolved by its own name, with a suggestion.

    Args:
        s: an open session.
        found: the entity holding the address the mention came from.
        name: the mention's display name, or None.
        email: the mail address the mention came from; None for a phone number or a handle (a chat's one-word
            push name is often no name at all: there only two full names are compared).

    Returns:
        A full name of ``found`` when ``name`` is a full name sharing no word with any full name ``found`` goes by
        and not like any of them (bigram similarity below :data:`FUZZY_REVIEW`): "Jordan Park" for "Kim Lee".  At a
        mail address, also a one-word name against the full names (and the other way round, when ``found`` goes by
        one-word names only) that :func:`short_name_fits` none of: "Jordan Park" for "Kim", "Kim" for "Jordan Park"
        (both were merged silently).  None otherwise — the same name, a relative's (:func:`_family_member`), a name
        change keeping a word ("Kim Lee" → "Kim Park"), a word, initial, nickname form or start of the full name
        ("Park", "J.", "Bob" for "Robert Smith", "Jo" for "Jordan Park"), the address's local part ("kim.p"), a
        kinship word ("Mom"), two one-word names, the owner, or no names known.
    """
    if not name or found.kind != "person" or found.is_owner or looks_like_household(name):
        return None
    values = [v for v in s.exec(select(Alias.value).where(Alias.entity_id == found.id, Alias.kind == "name")).all()
              if not looks_like_household(v)]
    names = [v for v in values if is_full_name(v)]
    if is_full_name(name) and names:
        mine = set(name_tokens(name))
        if all(not (mine & set(name_tokens(v))) and bigram_similarity(name, v) < FUZZY_REVIEW for v in names):
            return names[0]
        return None
    if email is None:
        return None
    locals_ = {_plain(address.split("@", 1)[0].split("+", 1)[0]) for address in
               [email, *_addresses(s, found.id).get("email", ())]}
    if is_full_name(name):  # found goes by no full name: its one-word names, when it has any that say who
        words = [v for v in values if _name_word(v, locals_)]
        if not words or any(len(name_tokens(v)) > 1 for v in values):
            return None  # none, or "J. Park"-like names besides: left as before
        return words[0] if not any(short_name_fits(w, name) for w in words) else None
    if not names or not _name_word(name, locals_):
        return None
    norm = normalize_name(name)
    if s.exec(select(Alias.id).where(Alias.entity_id == found.id, Alias.kind.in_(("name", "nickname")),
                                     Alias.normalized == norm)).first() is not None:
        return None
    if any(short_name_fits(name, v) for v in values if len(name_tokens(v)) > 1 or _name_word(v, locals_)):
        return None
    return names[0]


def _plain(text: str) -> str:
    """``text`` case-folded, letters and digits only ("Kim.P" → "kimp")."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _name_word(name: str, locals_: set[str]) -> bool:
    """True when ``name`` is one word that says who someone is: not a kinship word ("Mom"), not the local part of
    one of the addresses ``locals_`` (:func:`_plain` forms; "kim.p" for kim.p@…, what some mail clients show for
    a sender without a name), and with a letter."""
    from core.extraction.personal_facts import KIN_NAMES

    words = name_tokens(name)
    if len(words) != 1 or not any(ch.isalpha() for ch in words[0]):
        return False
    return words[0].strip(".") not in KIN_NAMES and _plain(name) not in locals_


def _fold_word(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.casefold().strip("."))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _word_fits(w: str, t: str) -> bool:
    """True when name words ``w`` and ``t`` (folded, no trailing period) may name one person: equal, an initial of
    the other, a nickname form of the other (nicknames dataset), the start of the other ("jo" / "jordan"), or alike
    (bigram similarity ≥ :data:`FIRST_NAME_DIFFERENT`: "jordy" / "jordan", "jon" / "john")."""
    if not w or not t:
        return False
    if w == t or t.startswith(w) or w.startswith(t):  # "j" / "jordan", "jo" / "jordan"
        return True
    return nickname_forms(w, t) or bigram_similarity(w, t) >= FIRST_NAME_DIFFERENT


def short_name_fits(word: str, name: str) -> bool:
    """True when the one-word name ``word`` may be what the person called ``name`` goes by; case and accents aside.

    It fits when it is a word of ``name`` ("Jordan", "Park" for "Jordan Park"), an initial of one ("J", "J."),
    the initials of all ("JP"), a nickname form of one (the ``nicknames`` dataset: "Bob" for "Robert Smith",
    "Kim" for "Kimberly Park"), the start of one ("Jo") or like one (bigram similarity ≥
    :data:`FIRST_NAME_DIFFERENT`: "Jordy").  ``name`` may be one word too ("Jo" fits "Jordan").  False when it is
    none of these ("Kim" for "Jordan Park"), or when either has no word.
    """
    mine = [_fold_word(w) for w in name_tokens(word)]
    theirs = [w for w in (_fold_word(t) for t in name_tokens(name)) if w]
    if len(mine) != 1 or not mine[0] or not theirs:
        return False
    w = mine[0].replace(".", "")
    if len(theirs) >= 2 and w == "".join(t[0] for t in theirs):  # "jp" / "j.p." for "Jordan Park"
        return True
    return any(_word_fits(w, t) for t in theirs)


def _family_member(s: Session, found: Entity, name: str | None) -> str | None:
    """A full name of person ``found`` that ``name`` shares only the surname with ("Jane Smith" for "Bob Smith"),
    when every full name ``found`` goes by is such a name — a relative writing from the same (shared) address;
    None otherwise (the same name, a nickname form "Bob"/"Robert", an initial, a name change, no full names)."""
    if not name or found.kind != "person" or found.is_owner or not is_full_name(name):
        return None
    names = [v for v in s.exec(select(Alias.value).where(Alias.entity_id == found.id, Alias.kind == "name")).all()
             if is_full_name(v) and not looks_like_household(v)]
    if not names or any(normalize_name(v) == normalize_name(name) for v in names):
        return None
    return names[0] if all(name_score(name, v)[1] == "same_surname" for v in names) else None


def _addresses_of_mention(address_kind: str, addr_norm: str | None, contact_id: str | None) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    if addr_norm:
        out[address_kind] = {addr_norm}
    if contact_id:
        out["contact"] = {contact_id.strip().casefold()}
    return out


def _shares(a: dict[str, set[str]], b: dict[str, set[str]]) -> bool:
    return any(a[k] & b.get(k, set()) for k in a)


def _strangers(s: Session, entity_id: int, mine: dict[str, set[str]]) -> bool:
    """True when a mention with identifiers ``mine`` and entity ``entity_id`` each have identifiers of their
    own and share none (issue 13's kind: two people called "Sam Lee" at two companies, or one on WhatsApp and
    one by mail) — a same full name between them is only a suggestion.  One company's mail domain does not make
    them one (red team rt4 F4: two "John Smith"s at bigcorp.com, the second "the other John Smith"); other evidence
    does (a shared identifier here; a signature naming both addresses or the same phone: ``core.graph.parties``)."""
    theirs = _addresses(s, entity_id)
    return bool(mine) and bool(theirs) and not _shares(mine, theirs)


def _domain_note(s: Session, entity_id: int, mine: dict[str, set[str]]) -> str:
    """``" at one company's mail domain (bigcorp.com)"`` when the mention's and ``entity_id``'s mail addresses share
    an organisation's domain (not webmail), else ``""`` — said in a suggestion's reason."""
    theirs = _addresses(s, entity_id)
    domains = {email_domain(a) for a in mine.get("email", ())} & {email_domain(a) for a in theirs.get("email", ())}
    shared = sorted(d for d in domains if d and is_org_domain(d))
    return f" at one company's mail domain ({', '.join(shared)})" if shared else ""


def name_only_candidates(s: Session, cands: list[Entity], name: str, ctx: Context) -> list[Entity]:
    """Who a sender known only by ``name`` (no address, phone or contact id) may be, when that is in doubt.

    In: the live people ``cands`` who go by ``name`` (already without the record's other parties), the name and the
    mention's :class:`Context`.  Out: ``cands`` (by id) when two or more are live people and none is the owner;
    else, for the one candidate, it and every live person a pending review pairs it with who goes by the same name
    apart from accents and emoji ("José García" / "Jose Garcia" not yet told apart); else ``[]`` — the one person
    with the name, no doubt.
    A list of two or more means the sender must not be attached to any of them (red team rt4 F3)."""
    live = [e for e in cands if e.tombstoned_at is None and e.kind == "person" and e.id not in ctx.apart]
    if any(e.is_owner for e in live):
        return []
    if len(live) >= 2:
        return sorted(live, key=lambda e: e.id)
    if len(live) != 1:
        return []
    one = live[0]
    out = [one]
    key = _fold(strip_decorations(name))
    for mc in s.exec(select(MergeCandidate).where(
            MergeCandidate.status == "pending",
            (MergeCandidate.a_id == one.id) | (MergeCandidate.b_id == one.id))).all():
        other = s.get(Entity, mc.b_id if mc.a_id == one.id else mc.a_id)
        if other is None or other.tombstoned_at is not None or other.kind != "person" or other.is_owner \
                or other.id in ctx.apart or other in out:
            continue
        names = s.exec(select(Alias.value).where(Alias.entity_id == other.id,
                                                 Alias.kind.in_(("name", "nickname")))).all()
        if any(_fold(strip_decorations(v)) == key for v in names):
            out.append(other)
    return sorted(out, key=lambda e: e.id) if len(out) >= 2 else []


def _create_doubted(s: Session, kind: str, name: str, address: str | None, address_kind: str,
                    contact_id: str | None, region: str, attrs: dict, index: NameIndex, ctx: Context,
                    doubt: list[Entity], alike: float | None = None) -> Resolution:
    """A new person for a name-only sender who may be any of ``doubt`` (two or more people who go by the name, or
    whose names are ``alike`` — the fuzzy score — to it), with a pending suggestion to each (``full_name``, or
    ``first_name`` for a bare name, ``fuzzy_review`` for names alike): none of them is chosen."""
    full = is_full_name(strip_decorations(name))
    signal, score = ("full_name", FULL_NAME) if full else ("first_name", BARE_NAME)
    if alike is not None:
        signal, score = "fuzzy_review", alike
    who = ", ".join(f"{e.canonical_name} (#{e.id})" for e in doubt)
    says = "go by it" if alike is None else "have names like it"
    reason = lambda e: (f"{name!r} is known only by name, and {len(doubt)} people {says} ({who}): "  # noqa: E731
                        f"which one, if any, is for you to say")
    res = _create(s, kind, name, address, address_kind, contact_id, region, attrs, index, ctx,
                  suggest=(doubt[0].id, signal, score, reason(doubt[0])))
    for e in doubt[1:]:
        record_decision(s, e.id, res.entity.id, "pending", signal, score, reason(e))
    return res


def _conflicts(s: Session, entity_id: int, mine: dict[str, set[str]]) -> int:
    if not mine:
        return 0
    theirs = _addresses(s, entity_id)
    return sum(1 for k in mine if theirs.get(k) and not (mine[k] & theirs[k]))


def _identifier_note(s: Session, entity_id: int, mine: dict[str, set[str]]) -> str:
    theirs = _addresses(s, entity_id)
    a = ", ".join(sorted(v for vs in mine.values() for v in vs)) or "no address"
    b = ", ".join(sorted(v for vs in theirs.values() for v in vs)) or "no address"
    return f"different identifiers ({a} vs {b})"


def _named_in(short: list[str], full: list[str]) -> bool:
    """True when every word of the name ``short`` is a word of ``full`` — its first word may be a nickname form of
    ``full``'s first (``["jon"]`` in ``["jonathan", "miller"]``, ``["bob"]`` in ``["robert", "smith"]``) — and
    ``full`` has more words."""
    if not short or len(short) >= len(full):
        return False
    rest = set(full)
    if short[0] not in rest and full and nickname_forms(short[0], full[0]):
        rest.discard(full[0])
        short = short[1:]
    return set(short) <= rest


def _attach(s: Session, found: Entity, signal: str, score: float, name: str | None, address: str | None,
            address_kind: str, contact_id: str | None, region: str, index: NameIndex, ctx: Context,
            matched_alias: Alias | None = None, reason: str = "", name_known: bool = False) -> Resolution:
    """Link the mention to ``found`` (an identifier or thread match, or nothing new): add its aliases."""
    if name and _is_address_only(found, address):
        found.canonical_name = name  # upgrade a phone-/address-only entity to a real name
        s.add(found)
    elif name and signal in DEFINITIVE and found.kind == "person" and not found.is_owner and is_full_name(name) \
            and not is_full_name(found.canonical_name) \
            and _named_in(name_tokens(found.canonical_name), name_tokens(name)):
        found.canonical_name = name  # "Ben" (first seen in a To: line) → "Ben Carter", by the same address; "Jon"
        # → "Jonathan Miller" (a nickname form of the first name: it stayed "Jon", the full name a mere alias)
        s.add(found)
    added = None
    if name and not name_known and add_alias(s, found, "name", name, region):
        index.add(s, found, name)
        if found.kind == "person" and is_full_name(name):
            _late_join(s, found, name, index, ctx)
    if address:
        added = add_alias(s, found, address_kind, address, region)
    if contact_id:
        add_alias(s, found, "contact", contact_id, region)
    if s.new:
        s.flush()
    index.note_member(s, ctx.thread, found.id, name)
    alias = matched_alias or added
    return Resolution(found, False, signal, score, matched_id=found.id, alias_id=alias.id if alias else None,
                      identity_id=identity_of(s, found, matched_alias), reason=reason or THRESHOLDS.get(signal, ""))


def _late_join(s: Session, found: Entity, name: str, index: NameIndex, ctx: Context) -> None:
    """A full name just learnt for ``found`` (an address it already had now comes with a name) that other
    people already go by: the exact-name row applies now — each is merged into ``found`` with a decision
    row (held when both have their own identifiers), as it would have been had the name come first."""
    from core.graph.merge import merge

    for other in _by_names(s, ("name",), normalize_name(name), "person"):
        if other.id == found.id or other.id in ctx.apart or other.is_owner or found.is_owner:
            continue
        if _strangers(s, other.id, _addresses(s, found.id)):
            record_decision(s, found.id, other.id, "pending", "full_name", FULL_NAME,
                            f"same full name {name!r} only (learnt when {found.canonical_name!r} wrote with it), "
                            f"{_identifier_note(s, other.id, _addresses(s, found.id))}")
            continue
        merge_by_rule(s, found, other, "exact_name", 1.0,
                      f"same full name {name!r} (learnt when {found.canonical_name!r} wrote with it)", index)


def merge_by_rule(s: Session, survivor: Entity, other: Entity, signal: str, score: float, reason: str,
                  index: NameIndex | None = None, hold: bool | None = None) -> MergeCandidate | None:
    """Kith merges two existing entities because a definitive rule now applies (new evidence arrived).

    A pending suggestion for the pair becomes this merge; a decision to keep them apart (rejected by the
    person, kept separate, or unmerged) wins and nothing happens (returns None).  The merge is held (facts
    of ``other`` wait on it) when both have identifiers of their own and share none, unless ``hold`` says
    otherwise (a contact card joining what it lists is the person's own word: never held).
    """
    from core.graph.merge import merge

    mc = _pair_decided(s, survivor.id, other.id)
    if mc is not None and mc.status != "pending":
        return None
    if hold is None:
        mine, theirs = _addresses(s, survivor.id), _addresses(s, other.id)
        hold = bool(mine) and bool(theirs) and not _shares(mine, theirs)
    if mc is None:
        mc = MergeCandidate(a_id=survivor.id, b_id=other.id, score=score)
    else:
        mc.reason = f"{reason} (first suggested: {mc.reason})"
    mc.a_id, mc.b_id, mc.score, mc.status, mc.signal = survivor.id, other.id, round(float(score), 4), "merged", signal
    mc.threshold, mc.decided_by, mc.decided_at = THRESHOLDS.get(signal, ""), "kith", clock.now()
    if not mc.reason:
        mc.reason = reason
    mc.detail = {**merge(s, survivor.id, other.id, hold=hold), "hold": hold}
    s.add(mc)
    s.flush()
    if index is not None:
        index.merged(other.id, survivor.id)
    return mc


def _join(s: Session, found: Entity, signal: str, score: float, reason: str, name: str, address: str | None,
          address_kind: str, contact_id: str | None, region: str, attrs: dict, index: NameIndex, ctx: Context,
          mine: dict[str, set[str]]) -> Resolution:
    """A match by name: link when the mention brings nothing new, else create-and-merge with a decision row."""
    theirs = _addresses(s, found.id) if mine else {}
    new_address = bool(mine) and not _shares(mine, theirs)
    if not new_address and s.exec(select(Alias.id).where(
            Alias.entity_id == found.id, Alias.kind.in_(("name", "nickname")),
            Alias.normalized == normalize_name(name))).first() is not None:
        return _attach(s, found, signal, score, name, address, address_kind, contact_id, region, index, ctx,
                       reason=reason, name_known=True)
    new = _create(s, found.kind, name, address, address_kind, contact_id, region, attrs, index, ctx, note=False)
    hold = new_address and bool(theirs)  # both have their own identifiers: facts wait for the person's word
    mc = MergeCandidate(a_id=found.id, b_id=new.entity.id, score=round(float(score), 4), reason=reason,
                        status="merged", signal=signal, threshold=THRESHOLDS.get(signal, ""), decided_by="kith",
                        decided_at=clock.now())
    log = _fold_fresh(s, found, new.entity)
    mc.detail = {**log, "hold": hold}
    s.add(mc)
    s.flush()
    index.merged(new.entity.id, found.id)
    index.note_member(s, ctx.thread, found.id, name)
    return Resolution(found, False, signal, score, matched_id=found.id, merge_id=mc.id, alias_id=new.alias_id,
                      identity_id=new.entity.id if hold else found.id, reason=reason)


def _fold_fresh(s: Session, survivor: Entity, fresh: Entity) -> dict:
    """:func:`core.graph.merge.merge` for an entity created a moment ago (aliases only, nothing linked yet):
    its aliases move to ``survivor`` (duplicates dropped) and it is tombstoned; the same log, so
    :func:`core.graph.merge.unmerge` undoes it exactly."""
    log: dict = {"survivor": survivor.id, "loser": fresh.id, "aliases_moved": [], "aliases_dropped": [],
                 "links_moved": [], "links_dropped": [], "sent": [], "placed": [], "facts_moved": [],
                 "fact_links_moved": [], "fact_links_dropped": [], "superseded": []}
    mine = s.exec(select(Alias).where(Alias.entity_id == fresh.id)).all()
    have = {(k, n) for k, n in s.exec(select(Alias.kind, Alias.normalized).where(
        Alias.entity_id == survivor.id, Alias.normalized.in_([a.normalized for a in mine]))).all()}
    for a in mine:
        if (a.kind, a.normalized) in have:
            log["aliases_dropped"].append({"kind": a.kind, "value": a.value, "normalized": a.normalized})
            s.delete(a)
        else:
            a.entity_id = survivor.id
            s.add(a)
            log["aliases_moved"].append(a.id)
    fresh.tombstoned_at = clock.now()
    fresh.attrs = {**(fresh.attrs or {}), "merged_into": survivor.id}
    s.add(fresh)
    return log


def _create(s: Session, kind: str, name: str | None, address: str | None, address_kind: str,
            contact_id: str | None, region: str, attrs: dict, index: NameIndex, ctx: Context,
            suggest: tuple[int, str, float, str] | None = None, note: bool = True) -> Resolution:
    entity = Entity(kind=kind, canonical_name=name or address or f"contact {contact_id}", attrs=attrs or {})
    s.add(entity)
    s.flush()
    alias = None
    if name:
        add_alias(s, entity, "name", name, region)
        index.add(s, entity, name)
    if address:
        alias = add_alias(s, entity, address_kind, address, region)
    if contact_id:
        add_alias(s, entity, "contact", contact_id, region)
    s.flush()
    if note:
        index.note_member(s, ctx.thread, entity.id, name)
    if suggest is not None:
        target, signal, score, reason = suggest
        mc = record_decision(s, target, entity.id, "pending", signal, score, reason)
        return Resolution(entity, True, signal, score, mc.id if mc else None, target,
                          alias_id=alias.id if alias else None, identity_id=entity.id, reason=reason)
    return Resolution(entity, True, "new", 0.0, alias_id=alias.id if alias else None, identity_id=entity.id)


def resolve_mention(s: Session, name: str, thread: str | None = None, index: NameIndex | None = None,
                    exclude: set[int] = frozenset()) -> Resolution:
    """The person a text names ("Sarah works at Acme"): whoever it names, not whoever spoke before.

    Order: someone who took part in ``thread`` under that exact name, or — for a bare first name —
    the one participant whose first name it is; then the one live person with that name or alias
    anywhere; else a new person known only by that name.  Never merges two entities and never files
    suggestions (a name in text is a reference, not an identity claim).
    """
    index = index or NameIndex()
    name = clean_name(name) or name
    norm = normalize_name(name)
    if thread:
        members = index.thread_members(s, thread)
        exact = members.get(norm, set()) - set(exclude)
        if len(exact) == 1:
            e = s.get(Entity, next(iter(exact)))
            if e is not None and e.tombstoned_at is None:
                return Resolution(e, False, "thread", 1.0, matched_id=e.id, identity_id=e.id)
        words = name_tokens(name)
        if len(words) == 1:
            by_first = {eid for n, ids in members.items() for eid in ids
                        if name_tokens(n)[:1] == words} - set(exclude)
            if len(by_first) == 1:
                e = s.get(Entity, next(iter(by_first)))
                if e is not None and e.tombstoned_at is None and e.kind == "person":
                    return Resolution(e, False, "thread", 1.0, matched_id=e.id, identity_id=e.id,
                                      reason=f"{name!r} is the first name of one participant of this thread")
    cands = [e for e in _by_names(s, ("name", "nickname"), norm, "person") if e.id not in exclude]
    if len(cands) == 1 or (cands and is_full_name(name)):
        return Resolution(cands[0], False, "exact_name", 1.0, matched_id=cands[0].id, identity_id=cands[0].id)
    # several people have this name: the one known only from being named so in text before (no address, no
    # message of their own) is whom such a name means — not a new person at every mention ("Alex moved to
    # Leeds", then "Alex moved to York": one Alex, who moved twice)
    named = [e for e in cands if not _addresses(s, e.id) and not (e.attrs or {}).get("relation_of")
             and s.exec(select(Record.id).where(Record.sender_entity_id == e.id).limit(1)).first() is None
             and s.exec(select(RecordEntity.record_id).where(RecordEntity.entity_id == e.id).limit(1)).first() is None
             and s.exec(select(FactEntity.fact_id).join(Fact, Fact.id == FactEntity.fact_id).where(
                 FactEntity.entity_id == e.id, FactEntity.role == "object", Fact.domain == "relationships")
                 .limit(1)).first() is None]  # someone's relative ("my sister Jane") is not just anyone's Jane
    if len(named) == 1:
        return Resolution(named[0], False, "bare_name", 1.0, matched_id=named[0].id, identity_id=named[0].id,
                          reason=f"several people are called {name!r}; this one is known only from being named")
    entity = Entity(kind="person", canonical_name=name, attrs={})
    s.add(entity)
    s.flush()
    add_alias(s, entity, "name", name)
    index.add(s, entity, name)
    return Resolution(entity, True, "new", 0.0, identity_id=entity.id,
                      reason="several people have this name" if cands else "")

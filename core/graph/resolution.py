"""Entity resolution: is this name/address someone Kith already knows? (seed 002's cascade).

| Signal            | Threshold   | Action                                  |
|-------------------|-------------|-----------------------------------------|
| Phone number      | definitive  | merge, upgrade a phone-only name        |
| Contact id        | definitive  | merge                                   |
| Exact name        | definitive  | merge (case-insensitive)                |
| Alias match       | definitive  | merge (nicknames, emails, handles)      |
| Fuzzy name (high) | ≥ 0.85      | merge (character-bigram similarity)     |
| Fuzzy name (low)  | 0.55 – 0.85 | new entity + a merge-review item        |
| Same surname, different first name | 0.45 | never merged (family members) |
| No match          | —           | new entity                              |

Bigram similarity is the Dice coefficient over each word's character bigrams
with a space padded on both sides of the word (so ``"jon"`` → ``" j", "jo",
"on", "n "``): "Jon Smith" vs "John Smith" = 2·9 / (10 + 11) = 0.857.
Candidates for the fuzzy rows are pre-selected by rapidfuzz (C speed) and
then scored exactly by :func:`bigram_similarity`.
Every decision is returned with the signal that made it and its score.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sqlmodel import Session, select

from core.graph.entities import is_role_address, normalize_alias, normalize_name
from core.store.schema import Alias, Entity, MergeCandidate

FUZZY_MERGE = 0.85      # seed 002: fuzzy name (high) → auto-merge
FUZZY_REVIEW = 0.55     # seed 002: 0.55–0.85 → new entity + review item
SAME_SURNAME = 0.45     # seed 002: same last name, different first name
FIRST_NAME_DIFFERENT = 0.5  # first names with bigram similarity below this are "different" (Mary vs John, not Jon vs John)
DEFINITIVE = ("phone", "contact", "email", "handle")  # address kinds looked up as definitive aliases


@dataclass(frozen=True)
class Resolution:
    """The outcome: the entity, whether it was created, the signal and its score (1.0 for definitive rows).

    ``signal`` ∈ phone | contact | email | handle | exact_name | alias | fuzzy_high | fuzzy_review |
    same_surname | new.  ``review_id`` is the MergeCandidate created for a 0.55–0.85 near-match.
    """

    entity: Entity
    created: bool
    signal: str
    score: float
    review_id: int | None = None
    matched_id: int | None = None


def _bigrams(name: str) -> Counter:
    grams: Counter = Counter()
    for word in normalize_name(name).split():
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


def name_score(a: str, b: str) -> tuple[float, str]:
    """Score two person names by the seed's rules: (score, signal).

    Same surname with a clearly different first name → (0.45, "same_surname");
    otherwise the bigram similarity with signal fuzzy_high / fuzzy_review / none.
    """
    ta, tb = normalize_name(a).split(), normalize_name(b).split()
    if len(ta) >= 2 and len(tb) >= 2 and ta[-1] == tb[-1] and ta[0] != tb[0]:
        fa, fb = ta[0], tb[0]
        initial = (len(fa) == 1 and fb.startswith(fa)) or (len(fb) == 1 and fa.startswith(fb))
        if not initial and bigram_similarity(fa, fb) < FIRST_NAME_DIFFERENT:
            return SAME_SURNAME, "same_surname"
    score = bigram_similarity(a, b)
    if score >= FUZZY_MERGE:
        return score, "fuzzy_high"
    if score >= FUZZY_REVIEW:
        return score, "fuzzy_review"
    return score, "none"


class NameIndex:
    """In-memory names of live entities per kind, for the fuzzy rows (built lazily from the store).

    Hold one per data folder; call :meth:`invalidate` after merges, unmerges and forgets.
    Per kind it keeps two parallel lists (entity ids, names) so rapidfuzz scans a ready list.
    """

    def __init__(self) -> None:
        self._names: dict[str, tuple[list[int], list[str]]] | None = None

    def invalidate(self) -> None:
        self._names = None

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

    def best(self, s: Session, kind: str, name: str, limit: int = 25) -> tuple[int, float, str] | None:
        """The best-scoring entity for ``name``: (entity id, score, signal), or None below 0.45."""
        from rapidfuzz import fuzz, process, utils

        ids, values = self._load(s).get(kind, ([], []))
        if not ids:
            return None
        hits = process.extract(name, values, scorer=fuzz.ratio, processor=utils.default_process,
                               limit=limit, score_cutoff=40)
        best: tuple[int, float, str] | None = None
        for _, _, idx in hits:
            score, signal = name_score(name, values[idx])
            if signal != "none" and (best is None or score > best[1]):
                best = (ids[idx], score, signal)
        return best


def _by_alias(s: Session, kinds: tuple[str, ...], normalized: str, entity_kind: str) -> Entity | None:
    # Two indexed lookups: joined in one query, SQLite's planner scanned every entity of the kind instead.
    ids = s.exec(select(Alias.entity_id).where(Alias.kind.in_(kinds), Alias.normalized == normalized)).all()
    if not ids:
        return None
    return s.exec(select(Entity).where(Entity.id.in_(ids), Entity.kind == entity_kind,
                                       Entity.tombstoned_at.is_(None)).order_by(Entity.id)).first()


def clean_name(name: str | None) -> str | None:
    """A display name without surrounding quotes and extra spaces (``"'Bob Stone' "`` → ``"Bob Stone"``), or None."""
    if not name:
        return None
    name = " ".join(name.split()).strip("'\"` ")
    return name or None


def add_alias(s: Session, entity: Entity, kind: str, value: str, region: str = "US") -> Alias | None:
    """Attach an alias to ``entity`` unless it already has it; returns the new row or None."""
    norm = normalize_alias(kind, value, region)
    if not norm:
        return None
    exists = s.exec(select(Alias).where(Alias.entity_id == entity.id, Alias.kind == kind,
                                        Alias.normalized == norm)).first()
    if exists:
        return None
    alias = Alias(entity_id=entity.id, kind=kind, value=value.strip(), normalized=norm)
    s.add(alias)
    return alias


def _is_address_only(entity: Entity, address: str | None) -> bool:
    if not address:
        return False
    name = entity.canonical_name.strip()
    return name.casefold() == address.strip().casefold() or (
        normalize_alias("phone", name) is not None and normalize_alias("phone", name) == normalize_alias("phone", address))


def resolve(s: Session, kind: str, name: str | None, address: str | None = None,
            address_kind: str = "email", region: str = "US", attrs: dict | None = None,
            contact_id: str | None = None, index: NameIndex | None = None) -> Resolution:
    """Find or create the entity named ``name`` and/or reachable at ``address`` (the seed's cascade).

    Args:
        s: an open session (the caller commits).
        kind: entity kind (person, place, topic, event, thing).
        name: display name, or None.
        address: phone / email / handle, or None; ``address_kind`` says which.
        region: default phone region (ISO 3166) for numbers without a country code.
        attrs: metadata for a newly created entity (e.g. GPS for a place).
        contact_id: an address-book id (definitive when known).
        index: a :class:`NameIndex` to use for the fuzzy rows (built from the store when None).

    Returns:
        :class:`Resolution`.  A 0.55–0.85 near-match creates a new entity and a pending
        MergeCandidate (``review_id``); the same-surname rule (0.45) never merges.

    Raises:
        ValueError: neither a name, an address nor a contact id was given.
    """
    name = clean_name(name)
    address = (address or "").strip() or None
    if name and address and name.casefold() == address.casefold().strip("<>"):
        name = None  # "alice@example.com <alice@example.com>": the address is not a name
    if not name and not address and not contact_id:
        raise ValueError("resolve() needs a name, an address or a contact id")
    if address_kind == "email" and is_role_address(address) and kind == "person":
        if name:
            address = None  # "Jane via no-reply@…": the name identifies her; the shared address does not
        else:
            kind = "thing"  # a list robot or a shared mailbox: not a person
    index = index or NameIndex()
    found: Entity | None = None
    signal, score, matched = "new", 0.0, None
    addr_norm = normalize_alias(address_kind, address, region) if address else None
    lookups: list[tuple[tuple[str, ...], str, str]] = []  # (alias kinds, normalized value, signal)
    if contact_id:
        lookups.append((("contact",), contact_id.strip().casefold(), "contact"))
    if addr_norm:
        lookups.append(((address_kind,), addr_norm, address_kind))
    if name:
        lookups.append((("name",), normalize_name(name), "exact_name"))
        lookups.append((("nickname", "email", "handle"), normalize_name(name), "alias"))
    for kinds, value, sig in lookups:
        found = _by_alias(s, kinds, value, kind)
        if found is not None:
            signal = sig
            break
    review_target = None
    if found is None and name and kind == "person":
        best = index.best(s, kind, name)
        if best is not None:
            eid, score, sig = best
            if sig == "fuzzy_high":
                found, signal, matched = s.get(Entity, eid), "fuzzy_high", eid
            elif sig == "fuzzy_review":
                review_target, signal, matched = eid, "fuzzy_review", eid
            else:
                signal, matched = sig, eid
    if found is not None:
        if name and _is_address_only(found, address):
            found.canonical_name = name  # upgrade a phone-/address-only entity to a real name
            s.add(found)
        if name and add_alias(s, found, "name", name, region):
            index.add(s, found, name)
        if address:
            add_alias(s, found, address_kind, address, region)
        if contact_id:
            add_alias(s, found, "contact", contact_id, region)
        definitive = signal not in ("fuzzy_high",)
        return Resolution(found, False, signal, 1.0 if definitive else score, matched_id=found.id)
    entity = Entity(kind=kind, canonical_name=name or address or f"contact {contact_id}", attrs=attrs or {})
    s.add(entity)
    s.flush()
    if name:
        add_alias(s, entity, "name", name, region)
        index.add(s, entity, name)
    if address:
        add_alias(s, entity, address_kind, address, region)
    if contact_id:
        add_alias(s, entity, "contact", contact_id, region)
    review_id = None
    if review_target is not None:
        mc = MergeCandidate(a_id=review_target, b_id=entity.id, score=round(score, 4),
                            reason=f"fuzzy name {score:.2f}: {name!r}")
        s.add(mc)
        s.flush()
        review_id = mc.id
    return Resolution(entity, True, signal if signal != "fuzzy_review" else "fuzzy_review", score, review_id, matched)

"""Contact cards as identities: seed 002's "contact id" row, from the person's own address book.

A card (``ingestors/contacts.py`` reads vCard files into ``Record.attrs["card"]``) says that its names,
nicknames, phone numbers, email addresses and messenger handles are **one** person (or one organisation).
:func:`resolve_card` makes them aliases of one entity, each marked with the card's contact id
(``Alias.card``), the contact id itself an alias of kind ``contact`` (definitive):

1. **The card seen before** (its contact id is an alias) → that entity: the card's new names and
   identifiers are added, nothing is taken away (an edited card adds, it never loses).
2. **Entities already holding one of the card's identifiers** are merged into the card's entity (a new
   one for a new card; signal ``contact``, a kept, undoable decision row, never held: the address book is
   the person's own word).  A person first seen only by a number (an SMS handle, an unsaved WhatsApp
   contact) becomes the named contact, and "undo" gives the number back its own entity.  The owner's own
   card joins the owner.
3. **Two cards are never merged by name.**  Another card that lists the same identifier is the same
   contact only when the two cards also share a name (a re-export of an edited card without a UID, a
   duplicate); otherwise the identifier is shared (a family landline, a household mailbox) and the pair is
   a suggestion in the review queue.
4. **Late joins by name**, as if the card had come first: a person known only by a name that the phone's
   address book gave (a WhatsApp chat shows saved contacts by their card's name; ``attrs["named_by"]``)
   joins the one card with exactly that name; a person with one of the card's full names joins by the
   exact-name rule (held when both have identifiers of their own), unless two or more cards share that name.

Identifiers that cannot identify a person are not aliases of a person's card: role addresses
(``info@``, ``no-reply@``) and SMS short codes or sender IDs; a phone number that does not parse is
skipped with a note.  Organisation cards (``KIND:org``) resolve to things and join things only.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from sqlmodel import Session, select

from core.graph.entities import (is_full_name, is_role_address, normalize_alias, normalize_email, normalize_name,
                                 sender_type)
from core.graph.owner import ensure_owner, owner as current_owner
from core.graph.resolution import (ADDRESS_BOOK, CARD_NAMES, NameIndex, _addresses, _pair_decided, add_alias, card_entities,
                                   clean_name, merge_by_rule, national_match, record_decision)
from core.store.schema import Alias, Entity

CARD_SHARED = 0.9
"""Score of the suggestion made when two cards that share no name list one identifier (kept apart)."""


@dataclass
class CardOutcome:
    """What :func:`resolve_card` did.

    Attributes:
        entity: the card's entity; created: whether it is new; alias_id: the contact-id alias (for the
            record link); merges: MergeCandidate ids of entities joined to the card now; suggestions: ids
            of pending decisions made (shared identifiers, ambiguous names); notes: identifiers skipped.
    """

    entity: Entity
    created: bool
    alias_id: int | None = None
    merges: list[int] = field(default_factory=list)
    suggestions: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def card_identifiers(card: dict, region: str = "US", national=None) -> tuple[list[tuple[str, str, str]], list[str]]:
    """The identifiers of a card as ``(alias kind, value as written, normalised)``, and notes on those skipped.

    Phones become E.164 with ``region`` for numbers written without a country code; one that is no number there
    (``"07700 900123"`` on a UK phone's card, the region US) is the known number ``national(value)`` names
    (:func:`core.graph.resolution.national_match`), else kept as written, as a handle — the same number arriving
    later with its country code finds it.  Handles are ``"<service>:<handle>"`` (``"telegram:annagreene"``).
    """
    person = card.get("kind") != "organisation"
    out: list[tuple[str, str, str]] = []
    notes: list[str] = []
    for p in card.get("phones", []):
        value = p["value"]
        if not any(ch.isdigit() for ch in value):
            notes.append(f"{value!r} is not a phone number: not an alias")
            continue
        if person and sender_type(value, "phone") is not None:
            notes.append(f"{value} is an SMS short code or sender ID, not a person's number: not an alias")
            continue
        norm = normalize_alias("phone", value, region) or (national(value) if national else None)
        if norm is None:
            if sum(ch.isdigit() for ch in value) >= 9 and not value.strip().startswith("+"):
                digits = "".join(ch for ch in value if ch.isdigit())
                out.append(("handle", digits, digits))
                notes.append(f"{value!r} is no number in region {region}: kept as written")
                continue
            notes.append(f"{value!r} is not a phone number: not an alias")
            continue
        out.append(("phone", value, norm))
    for e in card.get("emails", []):
        value = e["value"]
        if person and is_role_address(value):
            notes.append(f"{value} is a role address (shared by many): not an alias of a person")
            continue
        out.append(("email", value, normalize_email(value)))
    for h in card.get("handles", []):
        value = f"{h['service']}:{h['value']}"
        norm = normalize_alias("handle", value, region)
        if norm:
            out.append(("handle", value, norm))
    return list({(k, n): (k, v, n) for k, v, n in out}.values()), notes


def _has_card(s: Session, entity_id: int, other_than: str | None = None) -> bool:
    q = select(Alias.normalized).where(Alias.entity_id == entity_id, Alias.kind == "contact")
    return any(n != other_than for n in s.exec(q).all())


def _card_names(s: Session, entity_id: int) -> set[str]:
    return set(s.exec(select(Alias.normalized).where(Alias.entity_id == entity_id, Alias.kind == "name",
                                                     Alias.card.is_not(None))).all())


def resolve_card(s: Session, card: dict, region: str = "US", index: NameIndex | None = None,
                 owner_name: str | None = None, owner_emails: list[str] | tuple[str, ...] = ()) -> CardOutcome:
    """Resolve one contact card to its entity (the module doc's rules); the caller commits.

    Args:
        s: an open session.
        card: ``Record.attrs["card"]`` as ``ingestors.contacts`` writes it (``contact_id``, ``kind``, ``name``,
            ``names``, ``nicknames``, ``phones``, ``emails``, ``handles``).
        region: default phone region (ISO 3166) for numbers without a country code.
        index: the data folder's :class:`NameIndex` (kept in step with the names and merges made here).
        owner_name, owner_emails: who the owner is (a card listing an owner address is the owner's own card).

    Returns:
        :class:`CardOutcome`.

    Raises:
        ValueError: the card has no contact id.
    """
    index = index or NameIndex()
    cid_raw = str(card.get("contact_id") or "").strip()
    if not cid_raw:
        raise ValueError("a contact card needs a contact id")
    cid = normalize_alias("contact", cid_raw)
    kind = "thing" if card.get("kind") == "organisation" else "person"
    display = clean_name(card.get("name")) or None
    names = [n for n in dict.fromkeys(clean_name(x) for x in card.get("names", []) if clean_name(x)) if n]
    nicknames = [n for n in dict.fromkeys(clean_name(x) for x in card.get("nicknames", []) if clean_name(x)) if n]
    idents, notes = card_identifiers(card, region, national=lambda value: national_match(s, value))
    out_merges: list[int] = []
    out_suggestions: list[int] = []

    def live(eid: int) -> Entity | None:
        e = s.get(Entity, eid)
        return e if e is not None and e.tombstoned_at is None and e.kind == kind else None

    # 1. the card seen before
    by_id = None
    for (eid,) in [(x,) for x in s.exec(select(Alias.entity_id).where(Alias.kind == "contact",
                                                                       Alias.normalized == cid)).all()]:
        by_id = by_id or live(eid)
    # 2. whoever already holds one of its identifiers
    hits: dict[int, list[str]] = {}
    for k, value, norm in idents:
        for eid in s.exec(select(Alias.entity_id).where(Alias.kind == k, Alias.normalized == norm)).all():
            if live(eid) is not None:
                hits.setdefault(eid, [])
                if value not in hits[eid]:
                    hits[eid].append(value)
    me = current_owner(s)
    mine = {normalize_email(e) for e in owner_emails}
    if kind == "person" and any(k == "email" and n in mine for k, _, n in idents):
        me = me or ensure_owner(s, owner_name, list(owner_emails), index)
        hits.setdefault(me.id, [])
    my_names = {normalize_name(n) for n in names}
    join: list[int] = []
    apart: list[tuple[int, str]] = []
    for eid in sorted(hits):
        if by_id is not None and eid == by_id.id:
            continue
        if _has_card(s, eid, other_than=cid) and not (me is not None and eid == me.id):
            if _card_names(s, eid) & my_names:
                join.append(eid)  # the same contact twice (an edited copy without a UID, a duplicate card)
            else:
                apart.append((eid, ", ".join(hits[eid])))
            continue
        join.append(eid)
    same_card = [e for e in join if _has_card(s, e, other_than=cid) and not (me is not None and e == me.id)]
    if by_id is not None:
        survivor, created = by_id, False
    elif me is not None and me.id in join:
        survivor, created = me, False
    elif same_card:
        survivor, created = live(same_card[0]), False
    else:  # a new card: its own entity, and whoever held its identifiers is merged into it (a kept decision)
        survivor = Entity(kind=kind, canonical_name=display or (idents[0][1] if idents else f"contact {cid_raw}"),
                          attrs={})
        s.add(survivor)
        s.flush()
        created = True
    join = [e for e in join if e != survivor.id]

    # joins by identifier first (definitive, never held), so the aliases the records were linked by move with
    # them and are then marked as the card's; then every name and identifier of the card
    who = display or cid_raw
    for eid in join:
        other = live(eid)
        if other is None or other.id == survivor.id or other.is_owner:
            continue  # the owner is never folded into a card; the card joined the owner above, or not at all
        mc = merge_by_rule(s, survivor, other, "contact", 1.0, f"{', '.join(hits[eid])} is on the contact card of "
                           f"{who}", index, hold=False)
        if mc is not None:
            out_merges.append(mc.id)
    if display and not survivor.is_owner:
        survivor.canonical_name = display  # the person's own name for them (an edit renames; the old name stays)
    if display:
        shown = set((survivor.attrs or {}).get(CARD_NAMES, [])) | {normalize_name(display)}
        survivor.attrs = {**(survivor.attrs or {}), CARD_NAMES: sorted(shown)}
    s.add(survivor)
    for n in names:
        if add_alias(s, survivor, "name", n, region, card=cid) is not None:
            index.add(s, survivor, n)
    for n in nicknames:
        add_alias(s, survivor, "nickname", n, region, card=cid)
    for k, value, _ in idents:
        add_alias(s, survivor, k, value, region, card=cid)
    add_alias(s, survivor, "contact", cid_raw, region, card=cid)
    s.flush()
    contact_alias = s.exec(select(Alias).where(Alias.entity_id == survivor.id, Alias.kind == "contact",
                                               Alias.normalized == cid)).first()
    for eid, values in apart:
        mc = record_decision(s, survivor.id, eid, "pending", "contact", CARD_SHARED,
                             f"two contact cards list {values} ({who} and {s.get(Entity, eid).canonical_name}) "
                             "but share no name: a shared number or mailbox, or one person twice?")
        if mc is not None:
            out_suggestions.append(mc.id)

    # late joins by name (people only; never another card, never the owner)
    if kind == "person" and not survivor.is_owner:
        shown_as = normalize_name(display) if display else None
        for n in names:
            norm = normalize_name(n)
            cards = card_entities(s, "name", norm)
            rows = s.exec(select(Alias.entity_id).where(Alias.kind == "name", Alias.normalized == norm)).all()
            for eid in sorted(set(rows)):
                other = live(eid)
                if other is None or other.id == survivor.id or other.is_owner or _has_card(s, eid):
                    continue
                if _pair_decided(s, survivor.id, eid) is not None and \
                        _pair_decided(s, survivor.id, eid).status != "pending":
                    continue
                theirs = _addresses(s, eid)
                from_book = (other.attrs or {}).get("named_by") == ADDRESS_BOOK and not theirs
                if from_book and norm != shown_as:
                    continue  # the chat showed this name, so it is not this card (it would show the card's own)
                if len(cards) >= 2:
                    mc = record_decision(s, cards[0].id, eid, "pending", "card_name", 0.6,
                                         f"{len(cards)} contact cards are called {n!r}")
                    if mc is not None:
                        out_suggestions.append(mc.id)
                    continue
                if from_book:
                    mc = merge_by_rule(s, survivor, other, "contact", 1.0, f"{n!r} is the name of {who}'s contact "
                                       "card, and the chat showed names from the address book", index)
                elif is_full_name(n):
                    mc = merge_by_rule(s, survivor, other, "exact_name", 1.0,
                                       f"same full name {n!r} as the contact card of {who}", index)
                else:
                    continue
                if mc is not None:
                    out_merges.append(mc.id)
    s.flush()
    return CardOutcome(survivor, created, contact_alias.id if contact_alias else None, out_merges,
                       out_suggestions, notes)

"""Who a record involves — its sender, recipients, mailing list and place — resolved to entities.

This is the identity step of ingest (``app/operations/ingest.py`` calls :func:`resolve_parties` once per
new record) and of the resolution benchmark, so both run the same path.  It takes the record as the
ingestor made it (duck-typed: ``sender``/``recipients`` parties with ``name``, ``address``,
``address_kind``, ``role``; ``attrs``; ``thread``; ``kind``; ``place``) and decides:

* **The owner**: ``attrs["is_from_me"]`` or one of the owner's addresses → the owner entity; a recipient
  written ``"me"`` with no address (Messages' convention for the phone's owner) is the owner too, and so is a
  party with no address named ``attrs["owner_name"]`` (the account holder of an export that shows everyone by
  name: Messenger, Instagram).  The owner's own display name from such an export becomes the owner's name
  alias, and the owner's name when it was still the placeholder "Me" (:func:`named_owner`).
* **Mailing lists are groups, not people** (issue 13).  A mail with ``List-Id``/``List-Post`` headers,
  or ``Precedence: bulk|list`` with a list ``Sender:`` (``owner-X@``, ``X-request@``, ``X-bounces@``),
  names its list address; that address (in To/Cc, or in From when the list rewrote it) is a *thing*
  with ``attrs["group"] = "mailing_list"``, linked with role ``"list"`` — and an entity first taken for
  a person is reclassified, with the reason kept in ``attrs["kind_reason"]``.  When the list rewrote
  ``From:``, the author is ``X-Original-From``, else ``Reply-To`` (when it is not the list), else the
  display name without its "via List" tail and quotes (with ``X-Original-Sender``'s address): the record is then
  theirs (``rec.sender``), so no "'Ann Lee' via Hikers writes from hikers@…" fact is made.  A From address that :data:`SHARED_ADDRESS_NAMES` mutually
  unrelated names write from is a shared mailbox: a group too; each writer is then resolved by name.
* **Channels are groups**: a chat record whose ``attrs["sender_group"]`` is one of :data:`CHAT_GROUPS` (a
  Telegram channel's post, a group posting as itself) is from a *thing* with ``attrs["group"]`` set to it
  (an entity first taken for a person is reclassified, the reason kept in ``attrs["kind_reason"]``).
* **Publications are things**: a mail sent in bulk (list headers, ``List-Unsubscribe``, ``Precedence: bulk``)
  from a role address (``news@``, ``no-reply@``) or under a list's name ("Weekly Digest", "Acme Newsletter")
  is from a thing, one per address, whatever display name each issue carries (:func:`is_bulk_mail`).
* **Contact cards** (``rec.kind == "contact"``, ``attrs["card"]``) resolve through
  :func:`core.graph.contacts.resolve_card`: the card's entity is the record's sender (role ``from``, signal
  ``contact``), so it is what the card speaks for, and what a forget of that person takes with it.
* **Names the phone's address book gave**: a chat sender shown by name with no address whose address kind
  is ``phone`` (WhatsApp and Signal show saved contacts by their card's name) is resolved with
  ``attrs["named_by"] = "address book"``: the one contact card with that name is them.
* **Other parties of one record are never merged by name** with each other (resolution's
  :class:`~core.graph.resolution.Context` ``apart``), and names are looked up first among those who
  took part in the same thread.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from email.utils import getaddresses

from sqlmodel import Session, select

from core import clock
from core.extraction.signature import signature_emails, signature_phones
from core.graph.apply import adopt_kin_contact, kin_name
from core.graph.entities import (is_role_address, looks_like_group_name, looks_like_household, name_tokens,
                                 normalize_alias, normalize_email)
from core.graph.owner import ensure_owner, is_owner_address, owner as current_owner, set_owner
from core.graph.resolution import (ADDRESS_BOOK, FUZZY_REVIEW, Context, NameIndex, Resolution, add_alias,
                                   bigram_similarity, resolve, short_name_fits)
from core.store.schema import Alias, Entity, MergeCandidate, Record, RecordEntity

# a chat sender that is a group, not a person: the record's ``attrs["sender_group"]`` (set by the chat readers)
CHAT_GROUPS = {"telegram_channel": "a Telegram channel", "telegram_group": "a Telegram group"}
SHARED_ADDRESS_NAMES = 3  # this many mutually unrelated display names on one From address: a shared mailbox
_LIST_SENDER = re.compile(r"^(?:owner-(?P<a>.+)|(?P<b>.+?)-(?:request|bounces?|owner|admin))@(?P<domain>.+)$", re.I)
_VIA = re.compile(r"\s+(?:via|on behalf of|through)\s+.+$", re.I)


@dataclass(frozen=True)
class Link:
    """One party of a record: entity, role (from|to|cc|member|list|place), and how it was resolved."""

    entity_id: int
    role: str
    signal: str
    score: float
    alias_id: int | None = None


@dataclass
class Parties:
    """What :func:`resolve_parties` decided for one record."""

    sender_id: int | None = None
    place_id: int | None = None
    links: list[Link] = field(default_factory=list)
    sender_identity_id: int | None = None

    @property
    def recipients(self) -> list[tuple[int, str]]:
        """(entity id, role) of the people it was sent to (roles to, cc, member)."""
        return [(x.entity_id, x.role) for x in self.links if x.role in ("to", "cc", "member")]

    def write_links(self, s: Session, record_id: int, conn=None) -> None:
        """Add one RecordEntity row per (entity, role), keeping the decision's signal, score and alias.

        With ``conn`` (the session's connection) the rows go in by one plain INSERT each (the import path's
        fast way); without it, as ORM objects."""
        seen: set[tuple[int, str]] = set()
        for x in self.links:
            if (x.entity_id, x.role) in seen:
                continue
            seen.add((x.entity_id, x.role))
            if conn is None:
                s.add(RecordEntity(record_id=record_id, entity_id=x.entity_id, role=x.role, signal=x.signal,
                                   score=round(float(x.score), 4), alias_id=x.alias_id))
            else:
                conn.exec_driver_sql(
                    "INSERT INTO recordentity(record_id, entity_id, role, signal, score, alias_id) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (record_id, x.entity_id, x.role, x.signal, round(float(x.score), 4), x.alias_id))


def _mailbox(value: str | None) -> tuple[str | None, str | None]:
    """(display name, address) of the first mailbox in a header value."""
    if not value:
        return None, None
    for name, addr in getaddresses([value]):
        if addr and "@" in addr:
            return (name or None), addr.strip()
    return None, None


def list_addresses(attrs: dict) -> set[str]:
    """The mailing-list addresses a mail's headers name (normalised): List-Post's mailto, the list behind
    a list ``Sender:`` (``owner-magick@d`` → ``magick@d``), List-Id's ``<name.domain>`` read as
    ``name@domain``, and ``attrs["via_list"]`` (a From written "<Person> via <Group>" by the group).  Empty for a
    mail with none of these."""
    out: set[str] = set()
    post = attrs.get("list_post") or ""
    m = re.search(r"mailto:([^>\s?]+)", post, re.I)
    if m:
        out.add(normalize_email(m.group(1)))
    sender = _mailbox(attrs.get("sender"))[1]
    precedence = str(attrs.get("precedence") or "").strip().casefold()
    if sender:
        m = _LIST_SENDER.match(sender)
        if m and (precedence in ("bulk", "list", "junk") or attrs.get("list_id") or out):
            out.add(normalize_email(f"{m.group('a') or m.group('b')}@{m.group('domain')}"))
    list_id = attrs.get("list_id") or ""
    m = re.search(r"<([^.>\s]+)\.([^>\s]+)>", list_id)
    if m:
        out.add(normalize_email(f"{m.group(1)}@{m.group(2)}"))
    if isinstance(attrs.get("via_list"), str):  # "Ann via Hiking Club <club@googlegroups.com>" (ingestors.mbox)
        out.add(normalize_email(attrs["via_list"]))
    return out


def from_the_list(sender, attrs: dict) -> bool:
    """True when a mail's ``sender`` (a Party: ``name``, ``address``, ``address_kind``) is the mailing list's own
    address (:func:`list_addresses` of its ``attrs``): the list rewrote ``From:`` (Google Groups' ``"'Ann Lee' via
    Hikers" <hikers@googlegroups.com>``, DMARC rewrites), so the author is someone else (:func:`list_author`)."""
    return bool(sender is not None and sender.address and sender.address_kind == "email"
                and normalize_email(sender.address) in list_addresses(attrs))


_QUOTES = "'\"‘’“”"


def list_author(sender, attrs: dict):
    """The author of a mail whose ``From:`` a mailing list rewrote to its own address (:func:`from_the_list`).

    Args:
        sender: the mail's From party (its class is used for the answer); attrs: the record's attrs as
            ``ingestors.mbox`` sets them (``x_original_from``, ``reply_to``, ``x_original_sender``).
    Returns:
        A party (role ``"from"``): ``X-Original-From``, else ``Reply-To`` when it is not the list, else the
        display name without its "via List" tail and quotes (``'Ann Lee' via Hikers`` → ``Ann Lee``) with
        ``X-Original-Sender``'s address when that is not the list's; None when nothing names anyone.  ``sender``
        itself when it is not the list's address.
    """
    if not from_the_list(sender, attrs):
        return sender
    lists = list_addresses(attrs)
    shown = sender.name or ""
    via = bool(_VIA.search(shown))  # "'Ann Lee' via Hikers": the display name is the author's, the tail the list's
    bare = _VIA.sub("", shown).strip().strip(_QUOTES).strip() or None
    name, address = None, None
    for header in ("x_original_from", "reply_to"):
        name, address = _mailbox(attrs.get(header))
        if address and normalize_email(address) not in lists:
            break
        name, address = None, None
    if address:
        name = (name or "").strip().strip(_QUOTES).strip() or (bare if via else None)
    else:
        address = _mailbox(attrs.get("x_original_sender"))[1]
        address = address if address and normalize_email(address) not in lists else None
        name = bare if via or not address else None
    return type(sender)(name, address, "email", "from") if (name or address) else None


def _list_alias(name: str | None, address: str, lists: set[str]) -> bool:
    """True when a recipient of a mail that came through a list is another address of that list's: no display
    name, at a list's domain, its mailbox the list's own name or starting with it (``magick-developer@d`` in a mail
    through ``magick@d``, whose Sender was ``owner-magick@d``) — the list's posting address, not a person."""
    if name or "@" not in address:
        return False
    local, _, domain = normalize_email(address).partition("@")
    for lst in lists:
        l_local, _, l_domain = lst.partition("@")
        if domain == l_domain and (local == l_local or local.startswith(l_local + "-")):
            return True
    return False


def is_list_mail(attrs: dict) -> bool:
    """True when a mail came through a mailing list (List-Id/List-Post, or bulk precedence with a list Sender)."""
    return bool(attrs.get("list_id") or attrs.get("list_post") or list_addresses(attrs))


def is_bulk_mail(attrs: dict) -> bool:
    """True when a mail says it was sent in bulk or by a machine: list headers (:func:`is_list_mail`),
    ``List-Unsubscribe`` (newsletters, notifications), ``Precedence: bulk|list|junk``, or ``attrs["auto_submitted"]``
    (an ``Auto-Submitted: auto-generated`` header, a delivery report).  Such a mail from a role address
    (``news@``, ``no-reply@``, ``mailer-daemon@``) or under a list's name ("Weekly Digest", "Acme Newsletter") is
    from a publication or a robot — a thing, one per address — not from a person."""
    return bool(is_list_mail(attrs) or attrs.get("list_unsubscribe") or attrs.get("auto_submitted")
                or str(attrs.get("precedence") or "").strip().casefold() in ("bulk", "list", "junk"))


def _unrelated(a: str, b: str) -> bool:
    """True when display names ``a`` and ``b`` cannot be one person's: no word in common and not alike — and, when
    one is a single word, not a word, initial, nickname form or start of the other (``short_name_fits``: "Jo" and
    "Jordan Park" are one writer, "Kim" and "Jordan Park" two)."""
    if len(name_tokens(a)) == 1 or len(name_tokens(b)) == 1:
        short, other = (a, b) if len(name_tokens(a)) == 1 else (b, a)
        return not short_name_fits(short, other)
    return not (set(name_tokens(a)) & set(name_tokens(b))) and bigram_similarity(a, b) < FUZZY_REVIEW


def _make_group(s: Session, e: Entity, reason: str, index: NameIndex | None, group: str = "mailing_list") -> None:
    if e.kind == "thing" and (e.attrs or {}).get("group"):
        return
    e.attrs = {**(e.attrs or {}), "group": group, "kind_reason": reason, "was_kind": e.kind}
    e.kind = "thing"
    s.add(e)
    s.flush()
    if index is not None:
        index.invalidate()


def _mailbox_group(s: Session, holder: Entity, address: str, reason: str, index: NameIndex | None) -> Entity:
    """The group for ``address``, found to be a shared mailbox (:func:`_shared_mailbox`) while it is an alias of
    ``holder``, the person who first wrote from it.

    A holder who wrote under a name of their own is that person: a new group entity (a thing named by the address,
    ``attrs["group"] = "mailing_list"``, ``kind_reason``) takes the address alias, the holder keeps their records,
    facts and name, and the suggestions that each later writer might be the holder under another name (signal
    ``other_name``) are answered — they are people sharing a mailbox (status ``separate``).  A family's
    'Maria Garcia', 'Tom Baker', 'Dev Patel' at home@… made the entity of Maria, with her job, the group, and her
    next mail a second Maria.  A holder known by the address alone (no name alias) becomes the group, as before.
    Returns the group."""
    from core.graph.resolution import OTHER_WRITERS

    norm = normalize_email(address)
    names = s.exec(select(Alias).where(Alias.entity_id == holder.id, Alias.kind == "name")).all()
    if not any(a.normalized != norm for a in names):
        _make_group(s, holder, reason, index)
        return holder
    box = Entity(kind="thing", canonical_name=address.strip().lower(), attrs={"group": "mailing_list",
                                                                             "kind_reason": reason})
    s.add(box)
    s.flush()
    for a in s.exec(select(Alias).where(Alias.entity_id == holder.id, Alias.kind == "email",
                                        Alias.normalized == norm)).all():
        a.entity_id, a.origin_id = box.id, box.id
        s.add(a)
    writers = set((holder.attrs or {}).get(OTHER_WRITERS) or ())
    for mc in s.exec(select(MergeCandidate).where(MergeCandidate.status == "pending",
                                                  MergeCandidate.signal == "other_name")).all():
        if {mc.a_id, mc.b_id} & {holder.id} and {mc.a_id, mc.b_id} - {holder.id} <= writers:
            mc.status, mc.decided_at = "separate", clock.now()
            mc.reason = f"{mc.reason} — no: {address} is a mailbox several people share"
            s.add(mc)
    holder.attrs = {k: v for k, v in (holder.attrs or {}).items() if k != OTHER_WRITERS}
    s.add(holder)
    s.flush()
    if index is not None:
        index.invalidate()
    return box


def named_owner(s: Session, me: Entity, name: str | None, region: str = "US",
                index: NameIndex | None = None) -> Entity:
    """The owner ``me``, told its display name ``name`` by an export of the owner's own (a Messenger sender the
    export marks as its account holder): ``name`` becomes a name alias of the owner, and the owner's name when it
    was still the placeholder "Me" (made before any record named them).

    Args:
        s: an open session (the caller commits).
        me: the owner entity.
        name: the display name, or None / "me" (nothing to learn).
        region, index: as for :func:`resolve_parties`; ``index`` learns the new alias.
    Returns:
        ``me``.
    """
    name = (name or "").strip()
    if not name or name in ("me", "Me"):
        return me
    if me.canonical_name in ("me", "Me"):
        me.canonical_name = name
        s.add(me)
    if add_alias(s, me, "name", name, region) is not None and index is not None:
        index.add(s, me, name)
    return me


def _owner_writes_from(s: Session, me: Entity, name: str | None, address: str, address_kind: str, region: str,
                       index: NameIndex | None) -> None:
    """The owner ``me`` wrote a message marked as theirs (``is_from_me``: Gmail's Sent label, a Sent folder) from
    ``address`` under the display name ``name``: the address becomes the owner's, and a person already known by it
    (a recipient of earlier mail: "Alex Morgan" <alex@…> in the To line) is the owner — merged into them (signal
    ``email``, definitive, never held: the owner's own mail says so).  An owner still called by the placeholder "Me"
    (made by an iMessage or chat export before any record named them) takes ``name``, else the name that person
    went by.  Was: the chat's "Me" and the mailbox's "Alex Morgan" stayed two people, the second not the owner."""
    from core.graph.resolution import merge_by_rule

    add_alias(s, me, address_kind, address, region)
    norm = normalize_alias(address_kind, address, region)
    ids = sorted(set(s.exec(select(Alias.entity_id).where(Alias.kind == address_kind, Alias.normalized == norm,
                                                          Alias.entity_id != me.id)).all())) if norm else []
    for other in (s.get(Entity, i) for i in ids):
        if other is None or other.tombstoned_at is not None or other.kind != "person" or other.is_owner:
            continue
        if me.canonical_name in ("me", "Me") and not (name and name not in ("me", "Me")):
            name = other.canonical_name
        merge_by_rule(s, me, other, address_kind if address_kind in ("email", "phone", "handle") else "alias", 1.0,
                      f"{address} is the owner's own: a message from it is marked as sent by them", index,
                      hold=False)
    if name and name not in ("me", "Me") and me.canonical_name in ("me", "Me"):
        named_owner(s, me, name, region, index)


def _sends_as_someone_else(s: Session, address: str, address_kind: str, region: str) -> bool:
    """Whether ``address`` is already a person's other than the owner's who sent records of their own — so a message
    from it that only its file's name calls the owner's (a mailbox named like a Sent folder, ``is_from_me_basis``
    ``"folder"``) is that person's: a guess from a file name never merges a known correspondent into the owner.  (A
    person known only as a recipient — the owner's own address in an inbox's To lines — is still merged.)"""
    norm = normalize_alias(address_kind, address, region)
    if not norm:
        return False
    ids = set(s.exec(select(Alias.entity_id).where(Alias.kind == address_kind, Alias.normalized == norm)).all())
    for e in (s.get(Entity, i) for i in sorted(ids)):
        if e is None or e.is_owner or e.tombstoned_at is not None or e.kind != "person":
            continue
        if s.exec(select(Record.id).where(Record.sender_entity_id == e.id).limit(1)).first() is not None:
            return True
    return False


def _is_group(e: Entity) -> bool:
    return e.kind == "thing" and bool((e.attrs or {}).get("group"))


def resolve_parties(s: Session, rec, region: str = "US", owner_name: str | None = None,
                    owner_emails: list[str] | tuple[str, ...] = (), index: NameIndex | None = None,
                    cache: dict | None = None) -> Parties:
    """Resolve everyone a record involves (module doc); the caller writes the row, then :meth:`Parties.write_links`.

    A mail whose ``From:`` its mailing list rewrote (:func:`from_the_list`) is made its author's: ``rec.sender``
    becomes :func:`list_author`'s party, the list's From kept as ``rec.attrs["list_from"]`` (the record's facts are
    read after this: its "writes from" fact names the author's address, never the list's).

    Args:
        s: an open session (the caller commits).
        rec: an ``ingestors.base.Record`` (or anything with the same attributes).
        region: default phone region for numbers without a country code.
        owner_name, owner_emails: who the owner is, from settings.
        index: the data folder's :class:`NameIndex`.
        cache: a dict kept across one batch of records (one transaction): a person with an address who was
            resolved already is linked again without running the cascade (by that address, definitive).
    """
    index = index or NameIndex()
    out = Parties()
    if rec.kind == "contact" and isinstance((rec.attrs or {}).get("card"), dict):
        from core.graph.contacts import resolve_card

        card = resolve_card(s, rec.attrs["card"], region, index, owner_name, owner_emails)
        out.sender_id = out.sender_identity_id = card.entity.id
        out.links.append(Link(card.entity.id, "from", "contact", 1.0, card.alias_id))
        return out
    ctx = Context(thread=getattr(rec, "thread", None))
    attrs = rec.attrs or {}
    lists = list_addresses(attrs) if rec.kind == "email" else set()
    sender = rec.sender

    def add(res: Resolution | Entity, role: str, signal: str | None = None, score: float = 1.0) -> int:
        eid = res.id if isinstance(res, Entity) else res.entity.id
        if any(x.entity_id == eid and x.role == role for x in out.links):
            return eid
        if isinstance(res, Entity):
            out.links.append(Link(res.id, role, signal or "owner", score))
        else:
            out.links.append(Link(res.entity.id, role, signal or res.signal, res.score, res.alias_id))
        ctx.apart.add(eid)
        return eid

    def person(name, address, address_kind) -> Resolution:
        """The cascade for one party; a person with an address already resolved in this batch is linked
        again by that address (definitive) without running it."""
        key = (name, address, address_kind)
        hit = cache.get(key) if cache is not None and address else None
        if hit is not None:
            # the rows themselves are kept (the session holds its identity map by weak reference: a get by id
            # would read them again); a merge or forget in the batch changes the row, which is checked here
            e, alias = hit[3], hit[4]
            if e.id == hit[0] and e.tombstoned_at is None and e.kind == "person" and e.id not in ctx.apart \
                    and (alias is None or alias.entity_id == e.id):
                index.note_member(s, ctx.thread, e.id, name)
                signal = ("contact" if alias.card else alias.kind) if alias is not None else "handle"
                return Resolution(e, False, signal, 1.0, matched_id=e.id, alias_id=hit[1], identity_id=hit[2])
        named = {"named_by": ADDRESS_BOOK} if name and not address and address_kind == "phone" else None
        res = resolve(s, "person", name, address, address_kind, region, attrs=named, index=index, context=ctx)
        if res.created and res.entity.kind == "person" and kin_name(name):
            adopt_kin_contact(s, res.entity, index)  # "Mum" in a chat: the owner's mother they spoke of before
        if cache is not None and address and res.entity.kind == "person":
            cache[key] = (res.entity.id, res.alias_id, res.identity_id or res.entity.id, res.entity,
                          s.get(Alias, res.alias_id) if res.alias_id else None)
        return res

    def the_list(name: str | None, address: str) -> None:
        why = (f"{address} is a mailing list: its mail carries list headers (List-Id/List-Post or a list Sender:)"
               if normalize_email(address) in lists else
               f"{address} is called {name!r}, a list's name" if name and looks_like_group_name(name) else
               f"{address} is another address of the mailing list this mail came through")
        res = resolve(s, "thing", None if name and not looks_like_group_name(name) and name_tokens(name) else name,
                      address, "email", region, attrs={"group": "mailing_list", "kind_reason": why}, index=index,
                      context=ctx)
        _make_group(s, res.entity, why, index)
        add(res, "list")

    def sender_thing(thing_attrs: dict) -> Resolution:
        """The sender resolved as a thing (a channel, a publication), linked as the record's sender."""
        res = resolve(s, "thing", sender.name, sender.address, sender.address_kind, region, attrs=thing_attrs,
                      index=index, context=ctx)
        out.sender_id = add(res, "from")
        out.sender_identity_id = res.identity_id or res.entity.id
        return res

    # the sender
    if rec.kind == "email" and from_the_list(sender, attrs):
        the_list(sender.name, sender.address)
        listed = f"{sender.name or ''} <{sender.address}>".strip()
        sender = list_author(sender, attrs)
        if getattr(rec, "sender", None) is not sender:
            # the record is the author's from here on: its "writes from" fact and people text name them, never the
            # list ("'Ann Lee' via Hikers writes from hikers@googlegroups.com" was a fact of Ann's); the rewritten
            # From is kept in attrs (the content hash was taken before, so an import made earlier still knows it)
            try:
                rec.sender = sender
                rec.attrs = {**attrs, "list_from": listed}
                attrs = rec.attrs
            except AttributeError:  # a read-only look-alike (a benchmark's): resolved all the same
                pass
    own_name = attrs.get("owner_name") if isinstance(attrs.get("owner_name"), str) else None
    from_me = bool(attrs.get("is_from_me"))
    if from_me and attrs.get("is_from_me_basis") == "folder" and sender is not None and sender.address and \
            _sends_as_someone_else(s, sender.address, sender.address_kind, region):
        from_me = False  # a file named like a Sent folder holding another person's mail: theirs, never merged
    if sender is not None and (from_me or is_owner_address(sender.address, list(owner_emails))
                               or (own_name and not sender.address and sender.name == own_name)):
        me = current_owner(s)
        real = sender.name not in (None, "me", "Me") or sender.address
        if me is None and real and not owner_name and not owner_emails:
            # No owner configured: the first "sent by me" message names them (Gmail's Sent label).
            me = resolve(s, "person", sender.name, sender.address, sender.address_kind, region, index=index,
                         context=ctx).entity
            set_owner(s, me)
        me = me or ensure_owner(s, owner_name, list(owner_emails), index)
        if sender.address:
            _owner_writes_from(s, me, sender.name, sender.address, sender.address_kind, region, index)
        else:
            me = named_owner(s, me, sender.name, region, index)
        out.sender_id = add(me, "from")
        out.sender_identity_id = me.id
    elif sender is not None and (sender.name or sender.address) and attrs.get("sender_group") in CHAT_GROUPS:
        # a Telegram channel posting, or a group posting as itself: a group, not a person
        group = attrs["sender_group"]
        why = f"{sender.name or sender.address} is {CHAT_GROUPS[group]} posting as itself"
        res = sender_thing({"group": group, "kind_reason": why})
        _make_group(s, res.entity, why, index, group)
    elif sender is not None and sender.address and sender.address_kind == "email" and rec.kind == "email" \
            and is_bulk_mail(attrs) and (is_role_address(sender.address) or looks_like_group_name(sender.name)):
        sender_thing({"sender_type": "bulk", "kind_reason": f"{sender.address} sends bulk mail (list or "
                      "unsubscribe headers) from a role address or under a list's name"})
    elif sender is not None and (sender.name or sender.address):
        res = person(sender.name, sender.address, sender.address_kind)
        if _is_group(res.entity) and sender.name and normalize_email(sender.address or "") not in lists \
                and not looks_like_household(sender.name):
            # a shared mailbox: the group is linked, the writer is the display name ("The Smiths" is the group)
            add(res, "list")
            res = resolve(s, "person", _VIA.sub("", sender.name), None, "email", region, index=index, context=ctx)
        elif res.entity.kind == "person" and sender.address and sender.address_kind == "email":
            holder = _address_holder(s, sender.address)
            if holder is not None and holder.id != res.entity.id and holder.kind == "person" \
                    and not holder.is_owner and _shared_mailbox(s, holder):
                # a third unrelated name from one address (each resolved by their name): the address is a shared
                # mailbox — a group, linked as the list; the writer stays themself, and so does its first writer
                box = _mailbox_group(s, holder, sender.address, f"{SHARED_ADDRESS_NAMES} or more unrelated people "
                                     f"write from {sender.address}", index)
                add(box, "list", "email")
            elif not res.created and _shared_mailbox(s, res.entity):
                box = _mailbox_group(s, res.entity, sender.address, f"{SHARED_ADDRESS_NAMES} or more unrelated "
                                     f"people write from {sender.address}", index)
                add(box, "list", "email")
                res = resolve(s, "person", _VIA.sub("", sender.name or ""), None, "email", region, index=index,
                              context=ctx) if sender.name else None
        if res is not None:
            out.sender_id = add(res, "from")
            out.sender_identity_id = res.identity_id or res.entity.id

    # the sender's own mobile number, from their signature (links their SMS/WhatsApp number)
    if rec.kind == "email" and out.sender_id is not None and sender is not None and sender.address_kind == "email":
        e = s.get(Entity, out.sender_id)
        if e is not None and e.kind == "person" and not e.is_owner:  # one owner at a time (owner.set_owner)
            for phone in signature_phones(getattr(rec, "text", "") or "", sender.name, region):
                claim_phone(s, e, phone, region, index)
            for address in signature_emails(getattr(rec, "text", "") or "", sender.name, sender.address):
                claim_signed_email(s, e, address, sender.name, index)
        if e is not None and e.kind == "person" and not e.is_owner and sender.address:
            signed_elsewhere(s, e, sender.address, sender.name, index)

    # recipients
    for p in rec.recipients:
        role = p.role if p.role in ("to", "cc", "member") else "to"
        if is_owner_address(p.address, list(owner_emails)) or (p.address is None and p.name in ("me", "Me")):
            add(ensure_owner(s, owner_name, list(owner_emails), index), role)
        elif own_name and p.address is None and p.name == own_name:  # the export's account holder, by name
            me = current_owner(s)
            if me is None and not owner_name and not owner_emails:
                me = resolve(s, "person", p.name, None, p.address_kind, region, index=index, context=ctx).entity
                set_owner(s, me)
            add(named_owner(s, me or ensure_owner(s, owner_name, list(owner_emails), index), p.name, region, index),
                role)
        elif p.address and p.address_kind == "email" and (normalize_email(p.address) in lists or
                                                          looks_like_group_name(p.name) or
                                                          _list_alias(p.name, p.address, lists)):
            the_list(p.name, p.address)
        elif p.name or p.address:
            add(person(p.name, p.address, p.address_kind), role)

    # the list(s) a list mail came through, when no header above named them
    linked = {x.entity_id for x in out.links}
    for address in sorted(lists):
        hit = s.exec(select(Alias.entity_id).where(Alias.kind == "email", Alias.normalized == address)).all()
        if not (set(hit) & linked):
            the_list(None, address)

    # the place
    if getattr(rec, "place", None) is not None:
        g = rec.place
        res = resolve(s, "place", g.name, attrs={"lat": g.lat, "lon": g.lon, "locality": g.locality,
                                                "region": g.region, "country": g.country,
                                                "country_code": g.country_code})
        out.place_id = res.entity.id
        out.links.append(Link(res.entity.id, "place", res.signal, res.score, res.alias_id))
    return out


def claim_phone(s: Session, person: Entity, phone: str, region: str = "US", index: NameIndex | None = None) -> None:
    """``person`` wrote ``phone`` in their signature: it becomes their alias; the entity already holding that
    number (their SMS handle, an unsaved WhatsApp contact, their other mail address signed with the same mobile)
    is merged into them with a decision row — not held: the number is an identifier both have, so their facts
    join at once (the older of two values superseded by the newer).  With the owner on either side it is a
    suggestion."""
    from core.graph.entities import normalize_phone
    from core.graph.resolution import _by_address, merge_by_rule, record_decision

    norm = normalize_phone(phone, region)
    if norm is None:
        return
    hit = _by_address(s, "phone", norm, "person")
    if hit is None:
        add_alias(s, person, "phone", phone, region)
        return
    other = hit[0]
    if other.id == person.id or other.kind != "person":
        return
    reason = f"{phone} is in {person.canonical_name}'s mail signature"
    if other.is_owner or person.is_owner:
        record_decision(s, person.id, other.id, "pending", "signature_phone", 0.8, reason)
        return
    merge_by_rule(s, person, other, "signature_phone", 1.0, reason, index, hold=False)


SIGNED_EMAIL = "signature_email"
"""Alias kind of an address a person gave as their own in their mail signature, before mail came from it: not an
address they write from (no mail is resolved by it), but a claim that joins them to whoever writes from it under
their full name (:func:`signed_elsewhere`)."""


def _same_full_name(s: Session, e: Entity, name: str | None) -> bool:
    """True when ``name`` is a full name (:func:`~core.graph.entities.is_full_name`) that ``e`` goes by."""
    from core.graph.entities import is_full_name, normalize_name, person_display_name

    if not is_full_name(name):
        return False
    keys = {normalize_name(name), normalize_name(person_display_name(name, mail=True))}
    return s.exec(select(Alias.id).where(Alias.entity_id == e.id, Alias.kind == "name",
                                         Alias.normalized.in_(keys))).first() is not None


def claim_signed_email(s: Session, person: Entity, address: str, name: str | None,
                       index: NameIndex | None = None) -> None:
    """``person`` (writing as ``name``) gave ``address`` in their mail signature as theirs.

    The person already writing from ``address`` under the same full name is them: merged (a decision row, not held —
    their own signature and their own name agree).  Under another name, or with the owner on either side, it is a
    suggestion.  Nobody yet: ``address`` is kept as a :data:`SIGNED_EMAIL` alias, for :func:`signed_elsewhere` when
    mail from it arrives.  Two mails from "Priya Nair" at priya@nairdesign.example and priya.nair@gmail.com, one
    signed with the other address, were two people."""
    from core.graph.resolution import _by_address, merge_by_rule, record_decision

    hit = _by_address(s, "email", normalize_email(address), "person")
    if hit is None:
        add_alias(s, person, SIGNED_EMAIL, address)
        return
    other = hit[0]
    if other.id == person.id or other.kind != "person":
        return
    reason = f"{address} is in {person.canonical_name}'s mail signature"
    if other.is_owner or person.is_owner or not _same_full_name(s, other, name):
        record_decision(s, person.id, other.id, "pending", SIGNED_EMAIL, 0.8, reason)
        return
    merge_by_rule(s, person, other, SIGNED_EMAIL, 1.0, reason, index, hold=False)


def signed_elsewhere(s: Session, person: Entity, address: str, name: str | None,
                     index: NameIndex | None = None) -> None:
    """Mail from ``address`` by ``person`` (as ``name``): whoever gave ``address`` in their signature under that full
    name is them (merged into ``person``, as :func:`claim_signed_email` would have done in the other order)."""
    from core.graph.resolution import merge_by_rule

    norm = normalize_email(address)
    ids = s.exec(select(Alias.entity_id).where(Alias.kind == SIGNED_EMAIL, Alias.normalized == norm)).all()
    for eid in sorted(set(ids)):
        other = s.get(Entity, eid)
        if other is None or other.tombstoned_at is not None or other.id == person.id or other.kind != "person" \
                or other.is_owner or not _same_full_name(s, other, name) or not _same_full_name(s, person, name):
            continue
        merge_by_rule(s, person, other, SIGNED_EMAIL, 1.0, f"{address} is in {other.canonical_name}'s mail signature",
                      index, hold=False)


def _address_holder(s: Session, address: str) -> Entity | None:
    """The live entity holding the email address ``address`` as an alias, or None."""
    ids = s.exec(select(Alias.entity_id).where(Alias.kind == "email", Alias.normalized == normalize_email(address))).all()
    for eid in sorted(set(ids)):
        e = s.get(Entity, eid)
        if e is not None and e.tombstoned_at is None:
            return e
    return None


def _shared_mailbox(s: Session, e: Entity) -> bool:
    """True when :data:`SHARED_ADDRESS_NAMES` mutually unrelated names are aliases of ``e`` or of the people who wrote
    from its address under other names (``attrs[OTHER_WRITERS]``, resolution's ``_other_name``)."""
    from core.graph.resolution import OTHER_WRITERS

    names = [a.value for a in s.exec(select(Alias).where(Alias.entity_id == e.id, Alias.kind == "name")).all()]
    for wid in (e.attrs or {}).get(OTHER_WRITERS) or ():
        w = s.get(Entity, wid)
        if w is not None and w.tombstoned_at is None and w.id != e.id:
            names.append(w.canonical_name)
    if len(names) < SHARED_ADDRESS_NAMES:
        return False
    groups: list[str] = []
    for n in names:
        if all(_unrelated(n, g) for g in groups):
            groups.append(n)
    return len(groups) >= SHARED_ADDRESS_NAMES

"""A sender known only by a number or handle who says who they are ("Hi, it's Jane, new number!", "Jane here"):
the writer is named so, and each person of that name already known is put to the person as a merge suggestion
(seed 002's merge-review queue; signal ``self_introduction``) — never merged silently: a new number may be another
Jane, and a message may be a scam.

Before this, "+44 7700 900123" stayed a person named by their number beside "Jane Morgan", with nothing to say they
might be one.
"""
from __future__ import annotations

import re
from datetime import datetime

from sqlmodel import Session, select

from core.graph.entities import normalize_name
from core.graph.resolution import NameIndex, add_alias, first_name_of_someone, name_forms, record_decision
from core.store.schema import Alias, Entity

_NAME = r"[A-Z][a-z'’\-]{1,30}(?:\s+[A-Z][a-z'’\-]{1,30})?"
_INTRO = re.compile(
    r"^\W*(?:(?i:hi|hey|hello|hiya|heya|morning|evening|yo|ciao|hola)\b[\s,!.:\-—–]*(?:(?i:there|all|again)\b[\s,!.]*)?)?"
    rf"(?:(?i:it['’]?s|it is|this is)\s+(?P<a>{_NAME})|(?P<b>{_NAME})\s+(?i:here)\b)(?=[\s,!.?;:)\-—–]|$)")
_NOT_A_NAME = frozenset("""me us him her them you we everyone everybody someone nobody mum mom dad mama papa monday
tuesday wednesday thursday friday saturday sunday january february march april may june july august september october
november december today tomorrow tonight yesterday time okay ok fine great amazing done late happening happened true
real official over here there home work the a an my your our their this that what who""".split())


def introduced_name(text: str | None) -> str | None:
    """The name a message's opening words give its writer ("Hi, it's Jane Morgan — new number", "Jane here!",
    "this is Tom"), or None.  Only the message's start counts: "… it's Tom's birthday" further on is no
    introduction; a word that is no name there ("it's me", "it's Monday", "this is great") is none, nor a question
    ("Jane here?") or a sender's label ("This is Amazon: your parcel is delayed")."""
    m = _INTRO.match(text or "")
    if m is None:
        return None
    after = (text or "")[m.end():].lstrip()
    if after.startswith(("?", ":")):
        return None
    name = (m.group("a") or m.group("b")).strip()
    words = name.split()
    if words[0].casefold() in _NOT_A_NAME:
        return None
    if len(words) > 1 and words[1].casefold() in _NOT_A_NAME:
        name = words[0]
    if re.search(r"['’]s$", name.split()[0]) or re.search(r"['’]s$", name):
        return None  # "it's Tom's birthday"
    return name


def _address_only(entity: Entity, s: Session) -> bool:
    """True when the entity has no name but its number or handle (a chat from a number not in the phone)."""
    names = [v for v in s.exec(select(Alias.value).where(Alias.entity_id == entity.id,
                                                             Alias.kind.in_(("name", "nickname")))).all()]
    own = {normalize_name(v) for v in names}
    shown = normalize_name(entity.canonical_name or "")
    return not own - {shown} and (not shown or not any(ch.isalpha() for ch in shown) or
                                  entity.canonical_name.strip().startswith(("+", "@")))


_NEW_NUMBER = re.compile(r"\bnew\s+(?:number|phone|mobile|cell|no\.?)\b|\bchanged\s+(?:my\s+)?(?:number|phone)\b",
                         re.IGNORECASE)


def _a_persons_name(s: Session, name: str, text: str) -> bool:
    """Whether an introduced name is a person's: a given name the ``nicknames`` dataset knows (Jane, Tom), the first
    name of a person already known, or any name when the message says the number is new ("new number!").  "This is
    Amazon, your parcel …" names no person."""
    first = name.split()[0]
    return bool(_NEW_NUMBER.search(text) or name_forms(first) or first_name_of_someone(s, first))


def introduce(s: Session, writer: Entity | None, text: str | None, sent_at: datetime | None,
              record_id: int | None, index: NameIndex | None = None) -> list[int]:
    """Name a writer known only by a number or handle from the introduction their message opens with
    (:func:`introduced_name`), and suggest merging them with each live person of that name.

    Args:
        writer: the record's sender entity (a person), or None.
        text: the message.  sent_at: when it was sent (for the suggestion's reason).  record_id: its record.
        index: the import's name index, told of the new name.
    Returns:
        The ids of the people suggested (pending :class:`~core.store.schema.MergeCandidate` rows, signal
        ``self_introduction``); ``[]`` when the message introduces no one, the writer already has a name or is
        not a person.
    """
    if writer is None or writer.kind != "person" or writer.is_owner:
        return []
    name = introduced_name(text)  # a regex on the message's start: the database only for the few it matches
    if name is None or not _address_only(writer, s) or not _a_persons_name(s, name, text or ""):
        return []
    number = writer.canonical_name
    add_alias(s, writer, "name", name)
    writer.canonical_name = name
    writer.attrs = {**(writer.attrs or {}), "named_by": "self-introduction"}
    s.add(writer)
    s.flush()
    if index is not None:
        index.add(s, writer, name)
    norm, first = normalize_name(name), normalize_name(name).split()[0]
    single = len(name.split()) == 1
    found: dict[int, Entity] = {}
    for e, alias in s.exec(select(Entity, Alias.normalized).join(Alias, Alias.entity_id == Entity.id).where(
            Entity.kind == "person", Entity.tombstoned_at.is_(None), Entity.id != writer.id,
            Alias.kind.in_(("name", "nickname")))).all():
        if alias == norm or (single and alias.split()[:1] == [first]):
            found[e.id] = e
    if not found or len(found) > 3:
        return []  # no one of that name, or too common a first name to suggest any one of them
    day = f" on {sent_at:%Y-%m-%d}" if sent_at is not None else ""
    said = " ".join((text or "").split())[:60]
    out = []
    for e in found.values():
        if record_decision(s, e.id, writer.id, "pending", "self_introduction", 0.7,
                           f'{number} wrote "{said}"{day}: is this {e.canonical_name} with a new number?'):
            out.append(e.id)
    return out

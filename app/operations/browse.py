"""The People & Places list as the window shows it: people apart from mailing lists and organisations.

:func:`app.operations.entities.list_entities` lists entities as the graph holds them.  A
mailing list whose posts reach Kith with the list's own address in ``From:`` (or a role
address) is stored as a person until the identity work reclassifies it; the window must
not list it among people.  :func:`group_ids` finds them; :func:`browse_entities` gives
them the kind ``"group"``.
"""
from __future__ import annotations

import re

from sqlmodel import select

from app.container import Container
from app.operations.entities import list_entities
from app.operations.types import EntityRow
from core.graph.entities import is_role_address
from core.store.schema import Alias, Entity, Record

_LIST_ID = re.compile(r"<([^>]+)>")


def list_id_address(list_id: str | None) -> str | None:
    """The list's id from a ``List-Id`` header (RFC 2919): ``"Walkers <walkers.lists.example.org>"`` →
    ``"walkers.lists.example.org"`` (lower case), or None."""
    if not list_id:
        return None
    m = _LIST_ID.search(list_id)
    return (m.group(1) if m else list_id).strip().lower() or None


def group_ids(c: Container) -> set[int]:
    """Entities stored as people that are mailing lists or organisations, not persons.

    The identity work (issue 13, ``core.graph.parties``) stores mailing lists as things with
    ``attrs["group"]``; those are groups.  For data read before it, a person-kind entity is a group
    when one of its email addresses is a role address (no-reply@, majordomo@, …-request@, …), or when
    it sent a message whose ``List-Id`` (RFC 2919) is its own address with ``@`` written as ``.`` —
    the list posting as itself.
    """
    out: set[int] = set()
    with c.db.session() as s:
        for e in s.exec(select(Entity).where(Entity.kind == "thing", Entity.tombstoned_at.is_(None))).all():
            if (e.attrs or {}).get("group"):
                out.add(e.id)
        emails: dict[int, set[str]] = {}
        for eid, value in s.exec(select(Alias.entity_id, Alias.normalized).join(Entity, Entity.id == Alias.entity_id)
                                 .where(Alias.kind == "email", Entity.kind == "person")).all():
            emails.setdefault(eid, set()).add(value.lower())
            if is_role_address(value):
                out.add(eid)
        # only the mail that carries a List-Id, one row per (sender, list): reading every record's attrs made
        # the People list O(archive) and held the window's GIL for ~150 ms after a 10,000-message import
        list_id = Record.__table__.c.attrs["list_id"].as_string()
        listed = s.exec(select(Record.sender_entity_id, list_id).distinct().where(
            Record.kind == "email", Record.sender_entity_id.is_not(None), list_id.is_not(None))).all()
        for eid, raw_list_id in listed:
            lid = list_id_address(raw_list_id)
            if lid and eid in emails and any(a.replace("@", ".") == lid for a in emails[eid]):
                out.add(eid)
    return out


def browse_entities(c: Container) -> list[EntityRow]:
    """Every live entity as :func:`list_entities` gives it, with mailing lists and organisations (stored as
    things with ``attrs["group"]``, or as people by older imports) given the kind ``"group"``."""
    rows = list_entities(c)
    groups = group_ids(c)
    for r in rows:
        if r.id in groups:
            r.kind = "group"
    return rows

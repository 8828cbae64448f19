"""A Telegram channel posting (or a group posting as itself) is a group, not a person (core.graph.parties)."""
from __future__ import annotations

from dataclasses import dataclass, field


from core.graph.parties import resolve_parties
from core.graph.resolution import NameIndex, resolve
from core.store.schema import Entity


@dataclass(frozen=True)
class P:  # an ingestors.base.Party look-alike (core never imports ingestors)
    name: str | None
    address: str | None = None
    address_kind: str = "handle"
    role: str = "from"


@dataclass
class R:  # an ingestors.base.Record look-alike
    sender: P | None
    recipients: list = field(default_factory=list)
    kind: str = "chat"
    thread: str | None = "telegram:777"
    attrs: dict = field(default_factory=dict)
    place: object = None


def test_a_channel_is_a_group_and_one_first_taken_for_a_person_is_reclassified(s):
    index = NameIndex()
    # an earlier import (before channels were told apart) made the channel a person
    old = resolve(s, "person", "Daily News", "channel777", "handle", index=index).entity
    assert old.kind == "person"
    post = resolve_parties(s, R(P("Daily News", "channel777"), attrs={"sender_group": "telegram_channel"}),
                           index=index)
    assert post.sender_id == old.id
    s.refresh(old)
    assert old.kind == "thing" and old.attrs["group"] == "telegram_channel" and old.attrs["was_kind"] == "person"
    assert old.attrs["kind_reason"] == "Daily News is a Telegram channel posting as itself"
    # an HTML export names the channel only: a new group of that name, then the same one again
    first = resolve_parties(s, R(P("Weekend Hikes"), thread="telegram:Weekend Hikes",
                                 attrs={"sender_group": "telegram_channel"}), index=index)
    again = resolve_parties(s, R(P("Weekend Hikes"), thread="telegram:Weekend Hikes",
                                 attrs={"sender_group": "telegram_channel"}), index=index)
    hikes = s.get(Entity, first.sender_id)
    assert again.sender_id == first.sender_id and hikes.kind == "thing"
    assert hikes.attrs["group"] == "telegram_channel"
    # a group's anonymous admin: the group; a member of the same chat stays a person
    group = resolve_parties(s, R(P("Paddle club", "channel42"), attrs={"sender_group": "telegram_group"}), index=index)
    assert s.get(Entity, group.sender_id).attrs["group"] == "telegram_group"
    ana = resolve_parties(s, R(P("Ana Lima", "user7")), index=index)
    assert s.get(Entity, ana.sender_id).kind == "person"

"""Google Chat's account holder without the Takeout's ``Users`` folder (stop 25): only ``Groups`` given, the one
person who is a member of every conversation there is the owner — their messages are the owner's — as
``user_info.json`` would say.  Conversations written here; the right owner is Bob, in both."""
from __future__ import annotations

import json

from ingestors.google_chat import GoogleChatIngestor

ANN = {"name": "Ann Lee", "email": "ann@example.com", "user_type": "Human"}
BOB = {"name": "Bob Roy", "email": "bob@example.com", "user_type": "Human"}
CY = {"name": "Cy Dunn", "email": "cy@example.com", "user_type": "Human"}


def _groups(root, conversations):
    for name, members, sender in conversations:
        d = root / "Groups" / name
        d.mkdir(parents=True)
        (d / "group_info.json").write_text(json.dumps({"members": members}), encoding="utf-8")
        (d / "messages.json").write_text(json.dumps({"messages": [
            {"creator": sender, "created_date": "Monday, March 4, 2024 at 10:00:00 AM UTC", "text": "hi"}]}),
            encoding="utf-8")
    return root / "Groups"


def test_the_member_of_every_conversation_is_the_owner(tmp_path):
    groups = _groups(tmp_path, [("DM a", [ANN, BOB], BOB), ("DM b", [BOB, CY], CY), ("Space c", [ANN, BOB, CY], ANN)])
    ing = GoogleChatIngestor()
    got = [r for conv in ("DM a", "DM b", "Space c") for r in ing.read(groups / conv / "messages.json")]
    assert [(r.sender.name, r.attrs.get("is_from_me"), r.attrs.get("owner_name")) for r in got] == [
        ("Bob Roy", True, "Bob Roy"), ("Cy Dunn", None, "Bob Roy"), ("Ann Lee", None, "Bob Roy")]


def test_one_conversation_or_two_common_members_name_no_owner(tmp_path):
    one = _groups(tmp_path / "one", [("DM a", [ANN, BOB], BOB)])
    assert [r.attrs.get("owner_name") for r in GoogleChatIngestor().read(one / "DM a" / "messages.json")] == [None]
    two = _groups(tmp_path / "two", [("DM a", [ANN, BOB], BOB), ("DM b", [ANN, BOB], ANN)])
    assert [r.attrs.get("owner_name") for r in GoogleChatIngestor().read(two / "DM b" / "messages.json")] == [None]

"""A purged forget sticks: importing the same file again does not bring the forgotten messages back
(core.store.forgetting.ForgottenRecord, app.pipeline.stored_already)."""
from __future__ import annotations

import sqlite3
from datetime import datetime, timezone

from app.operations.ask import ask
from app.operations.entities import list_entities
from app.operations.forget import forget, purge, restore
from app.operations.ingest import ingest
from helpers.mboxes import KITCHEN, write_mbox

T0 = datetime(2023, 4, 2, 9, 30, tzinfo=timezone.utc)


def _kitchen(container, tmp_path):
    container.settings.owner_emails = ["owner@example.net"]
    container.settings.owner_name = "Owner Person"
    path = write_mbox(tmp_path / "kitchen.mbox", KITCHEN, start=T0)
    rep = ingest(container, [path])
    assert rep.records_added == 4 and not rep.errors
    return path


def _senders(container) -> list[str]:
    raw = sqlite3.connect(str(container.settings.db_path))
    try:
        return sorted(n or "?" for (n,) in raw.execute(
            "SELECT e.canonical_name FROM record r LEFT JOIN entity e ON e.id = r.sender_entity_id "
            "WHERE r.tombstoned_at IS NULL"))
    finally:
        raw.close()


def test_a_purged_persons_messages_do_not_come_back_with_the_same_file(container, tmp_path):
    path = _kitchen(container, tmp_path)
    rep = forget(container, "Alice Example")
    purge(container, rep.forget_id)
    assert _senders(container) == ["Bob Stone", "Owner Person"]
    again = ingest(container, [path])
    # Alice's two messages are known as forgotten; Bob's and the owner's (redacted) are known as stored
    assert (again.records_added, again.records_skipped) == (0, 4)
    assert _senders(container) == ["Bob Stone", "Owner Person"]
    assert "Alice Example" not in {e.name for e in list_entities(container)}
    assert not [h for h in ask(container, "sourdough starter", k=5) if "sourdough" in h.text.lower()]
    raw = sqlite3.connect(str(container.settings.db_path))
    try:
        assert raw.execute("SELECT count(*) FROM forgotten_record").fetchone() == (2,)
    finally:
        raw.close()


def test_a_hidden_forget_needs_no_hash_and_a_restore_brings_everything_back(container, tmp_path):
    path = _kitchen(container, tmp_path)
    rep = forget(container, "Alice Example")
    again = ingest(container, [path])  # the tombstoned records still hold their hashes
    assert (again.records_added, again.records_skipped) == (0, 4)
    assert _senders(container) == ["Bob Stone", "Owner Person"]
    restore(container, rep.forget_id)
    assert _senders(container) == ["Alice Example", "Alice Example", "Bob Stone", "Owner Person"]
    raw = sqlite3.connect(str(container.settings.db_path))
    try:
        assert raw.execute("SELECT count(*) FROM forgotten_record").fetchone() == (0,)
    finally:
        raw.close()


def test_a_message_about_someone_forgotten_does_not_make_its_sender_the_answer(container, tmp_path):
    """Ben's "Lou Marsh lives in Graz now" after Lou is forgotten reads "[forgotten] lives in Graz now": "who lives
    in Graz?" is not Ben (its sender), and says why there is no name."""
    from app.loop import ConversationLoop
    from app.models.llm import NoModel

    container.settings.owner_emails = ["owner@example.net"]
    container.settings.owner_name = "Owner Person"
    path = write_mbox(tmp_path / "graz.mbox", [
        ("Lou Marsh <lou@example.org>", "hello", "I live in Graz now."),
        ("Ben Ward <ben@example.net>", "gossip", "Did you hear? Lou Marsh lives in Graz now, and the flat is tiny."),
        ("Ben Ward <ben@example.net>", "boat", "I bought a boat in Linz."),
    ], start=T0)
    assert ingest(container, [path]).records_added == 3
    loop = ConversationLoop.for_container(container, model=NoModel())
    assert loop.turn("who lives in Graz?").reply.startswith("Lou Marsh")
    purge(container, forget(container, "Lou Marsh").forget_id)
    said = loop.turn("who lives in Graz?").reply
    assert said.startswith("The message that says so speaks of someone you asked me to forget. [1]")
    assert "Ben Ward" not in said.split("Sources:")[0]
    assert loop.turn("who bought a boat?").reply.startswith("Ben Ward")  # his own news still answers

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

"""A forget made while an import runs reaches what that import brings after it (forget_late_arrivals)."""
from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from app.container import Container
from app.operations.forget import forget
from app.operations.ingest import ingest
from app.settings import Settings
from core.store.schema import Entity, Record
from helpers.mboxes import write_mbox


def test_a_person_forgotten_between_an_imports_batches_does_not_come_back(tmp_path):
    c = Container(Settings.load(tmp_path / "home"))
    try:
        c.settings.owner_emails, c.settings.owner_name = ["owner@example.net"], "Owner Person"
        c.settings.ingest_batch_size = 2
        kemal, ann = "Kemal Abbott <kemal@example.org>", "Ann Lee <ann@example.com>"
        first = write_mbox(tmp_path / "a.mbox", [(kemal, "One", "First note from Kemal."),
                                                  (ann, "Hi", "Ann says hello.")])
        second = write_mbox(tmp_path / "b.mbox", [(kemal, "Two", "Second note from Kemal."),
                                                   (kemal, "Three", "Third note from Kemal."),
                                                   (ann, "Again", "Ann writes again.")],
                            step=timedelta(days=2))
        forgotten = []

        def progress(p):  # another process's `kith forget` between the batches: after the first file
            if p.current.endswith("b.mbox") and not forgotten:
                forgotten.append(forget(c, "Kemal Abbott"))

        rep = ingest(c, [first, second], progress=progress)
        assert forgotten and rep.records_added == 5
        assert rep.forgotten_again == ["Kemal Abbott (person)"]
        with c.db.session() as s:
            live = s.exec(select(Entity.canonical_name).where(Entity.tombstoned_at.is_(None),
                                                              Entity.is_owner.is_(False))).all()
            texts = s.exec(select(Record.text).where(Record.tombstoned_at.is_(None))).all()
        assert sorted(live) == ["Ann Lee"]
        assert sorted(t.strip() for t in texts) == ["Ann says hello.", "Ann writes again."]
    finally:
        c.close()

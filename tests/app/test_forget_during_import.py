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


def test_ctrl_c_during_kith_ingest_stops_after_the_batch_and_says_how_to_go_on(tmp_path, monkeypatch):
    import os
    import signal

    from click.testing import CliRunner

    import app.operations.ingest as ingest_ops
    from app.cli import main
    from app.operations.types import IngestReport

    seen = {}

    def fake_ingest(c, paths, progress=None, defer=False, cancel=None):
        os.kill(os.getpid(), signal.SIGINT)  # the person presses Ctrl+C during the import
        seen["cancel_set"] = cancel.is_set()
        return IngestReport(files=1, records_added=3, cancelled=True, files_ok=1)

    monkeypatch.setenv("KITH_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(ingest_ops, "ingest", fake_ingest)
    before = signal.getsignal(signal.SIGINT)
    result = CliRunner().invoke(main, ["ingest", str(tmp_path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert seen == {"cancel_set": True}  # the import was asked to stop after its batch, not killed
    assert "1 file(s): 3 record(s) added" in result.output
    assert "stopped before the end: what was read is kept; the same command again continues" in result.output
    assert signal.getsignal(signal.SIGINT) is before  # the handler is put back

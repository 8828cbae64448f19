"""Bad input never takes good data down: per-file and per-message reasons, quarantine, nothing lost."""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

from sqlmodel import select

from app.operations.ask import ask
from app.operations.entities import list_entities
from app.operations.ingest import ingest
from core.store.schema import QuarantineItem, Record

GOOD = """From alice@example.com Mon Jan  5 10:00:00 2026
From: Alice Example <alice@example.com>
To: Bob Stone <bob@example.org>
Subject: Sourdough starter schedule
Date: Mon, 05 Jan 2026 10:00:00 +0000
Message-ID: <a1@example.com>

Feed the sourdough starter twice a day with rye flour.

From bob@example.org Mon Jan  5 12:00:00 2026
From: Bob Stone <bob@example.org>
To: Alice Example <alice@example.com>
Subject: Re: Sourdough starter schedule
Date: Mon, 05 Jan 2026 12:00:00 +0000
Message-ID: <b1@example.org>

Thanks, mine smells like acetone.

From carol@example.net Tue Jan  6 09:00:00 2026
From: Carol <carol@example.net>
Subject: no date on this one
Message-ID: <c1@example.net>

Undated note about kayaks.
"""


def make_inbox(tmp: Path) -> Path:
    inbox = tmp / "inbox"
    inbox.mkdir()
    (inbox / "mail.mbox").write_text(GOOD, encoding="utf-8")
    (inbox / "broken.jpg").write_bytes(b"this is not a jpeg at all")
    (inbox / "notes.xyz").write_text("unsupported", encoding="utf-8")
    return inbox


def test_good_messages_survive_bad_files_and_errors_name_the_file(container, tmp_path):
    inbox = make_inbox(tmp_path)
    report = ingest(container, [inbox, tmp_path / "missing-folder"])
    assert report.records_added == 3
    by_name = {Path(e.path).name: e.reason for e in report.errors}
    assert set(by_name) == {"broken.jpg", "notes.xyz", "missing-folder"}
    assert "unsupported" in by_name["notes.xyz"]
    assert by_name["missing-folder"] == "no such file or folder"
    with container.db.session() as s:
        quarantined = {Path(q.path).name for q in s.exec(select(QuarantineItem)).all()}
        undated = s.exec(select(Record).where(Record.subject == "no date on this one")).one()
    assert {"broken.jpg", "notes.xyz"} <= quarantined
    # no Date header: the envelope line's time, labelled as such (issue 12) — never "now" or 1970
    assert undated.sent_at.replace(tzinfo=None) == datetime(2026, 1, 6, 9, 0)
    assert undated.attrs["date_source"] == "envelope"
    people = {e.name: e for e in list_entities(container, "person")}
    assert set(people) == {"Alice Example", "Bob Stone", "Carol"}
    assert people["Alice Example"].records == 2  # sender of one, recipient of the other


def test_reimport_is_idempotent_and_cancel_keeps_written_batches(container, tmp_path):
    import threading

    inbox = make_inbox(tmp_path)
    first = ingest(container, [inbox / "mail.mbox"])
    again = ingest(container, [inbox / "mail.mbox"])
    assert (first.records_added, again.records_added, again.records_skipped) == (3, 0, 3)
    stop = threading.Event()
    stop.set()
    cancelled = ingest(container, [inbox], cancel=stop)
    assert cancelled.cancelled and cancelled.records_added == 0


def test_ask_and_forget_on_self_made_mail(container, tmp_path):
    from app.operations.forget import forget, preview_forget

    ingest(container, [make_inbox(tmp_path) / "mail.mbox"])
    top = ask(container, "sourdough starter", k=3)
    assert top[0].subject == "Sourdough starter schedule" and top[0].when == "2026-01-05T10:00:00+00:00"
    assert top[0].source.endswith("mail.mbox")
    preview = preview_forget(container, "alice example")
    assert (preview.name, preview.records) == ("Alice Example", 1)  # she sent one; she only received the other
    report = forget(container, preview.entity_id)
    g, v = report.counts["graph"], report.counts["vectors"]
    assert g["records"] == 1 and v["records"] == 1 and report.counts["search"]["record_fts"] == 1
    assert v["facts"] == g["facts"] == 3  # her address; "Alice wrote to Bob"; "Bob wrote to Alice" (object: her)
    assert report.counts == preview.counts
    subjects = [r.subject for r in ask(container, "sourdough starter", k=5)]
    assert "Sourdough starter schedule" not in subjects
    assert "Re: Sourdough starter schedule" in subjects  # Bob's reply is Bob's, kept
    assert "Alice Example" not in {e.name for e in list_entities(container)}


def test_ask_about_something_absent_returns_nothing(container, tmp_path):
    ingest(container, [make_inbox(tmp_path) / "mail.mbox"])
    assert ask(container, "quantum chromodynamics lattice gauge theory") == []
    assert [r.subject for r in ask(container, "kayaks")] == ["no date on this one"]


def test_forget_runs_the_memory_unlearn_cascade_and_purge_drops_the_signatures(container, tmp_path):
    from app.memory import service
    from app.operations.forget import forget, purge
    from core.store.memory_schema import LearningEvent
    from core.store.schema import Episode

    ingest(container, [make_inbox(tmp_path) / "mail.mbox"])
    with container.db.session() as s:
        ep = s.exec(select(Episode).join(Record, Record.id == Episode.record_id)
                    .where(Record.subject == "Sourdough starter schedule")).one()
    mem = service(container).mem
    sig, gist = mem.structured.get(ep.signature_row).tobytes(), mem.gists.get(ep.gist_row).tobytes()
    assert any(sig)  # a real 8192-bit signature before
    report = forget(container, "Alice Example")
    assert report.counts["memory"]["episodes"] == 1 and report.counts["memory"]["signatures"] == 1
    with container.db.session() as s:
        assert s.get(Episode, ep.id).tombstoned_at is not None  # hidden, restorable
        assert s.exec(select(LearningEvent).where(LearningEvent.kind == "unlearned")).first() is not None
    assert not mem.index.alive[mem.index.row_of[ep.id]]
    purge(container, report.forget_id)
    with container.db.session() as s:
        assert s.get(Episode, ep.id) is None
    home = container.settings.home / "memory"
    assert sig not in (home / "signatures.dat").read_bytes() and gist not in (home / "gists.dat").read_bytes()
    assert len(mem.structured) == 2  # Bob's and Carol's rows, renumbered

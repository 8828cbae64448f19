"""Forget targets and life cycle on small mail the tests write (issue 11): a source file, a time range, a
record, a fact; the owner's own line that names the person; the restore window; crash resumption."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from sqlmodel import select

from app.operations.ask import ask
from app.operations.entities import list_entities
from app.operations.forget import (forget, list_forgotten, plan_forget, purge, purge_expired, restore,
                                   resume_pending)
from app.operations.ingest import ingest
from core import clock
from core.store.forgetting import ForgetOp, Target
from core.store.schema import Entity, Fact, Record, Source
from helpers.mboxes import KITCHEN, write_mbox

T0 = datetime(2023, 4, 2, 9, 30, tzinfo=timezone.utc)
ME = "Owner Person <owner@example.net>"


@pytest.fixture
def mail(tmp_path, container):
    """Two files: kitchen.mbox (Alice ×2, Bob, and the owner's own line naming Alice) and trips.mbox (Dana)."""
    container.settings.owner_emails = ["owner@example.net"]
    container.settings.owner_name = "Owner Person"
    a = write_mbox(tmp_path / "kitchen.mbox", KITCHEN)
    b = write_mbox(tmp_path / "trips.mbox", [
        ("Dana Reyes <dana@example.com>", "Lisbon", "The Lisbon trip is booked for May."),
    ], start=T0 + timedelta(days=30))
    rep = ingest(container, [a, b])
    assert rep.records_added == 5 and not rep.errors
    return a, b


def names(c) -> set[str]:
    return {e.name for e in list_entities(c)}


def test_the_owners_line_that_names_her_stays_redacted_or_goes_on_request(container, mail):
    hits = ask(container, "who fixed the printing", k=3)
    assert hits[0].text.endswith("Remember that Alice Example fixed the printing last week.")
    plan = plan_forget(container, "Alice Example")
    assert plan.records == 2 and plan.redacted == 1
    rep = forget(container, "Alice Example")
    assert rep.counts == plan.counts and rep.counts["graph"]["record_redacted"] == 1
    hits = ask(container, "who fixed the printing", k=3)
    assert hits[0].text.endswith("Remember that [forgotten] fixed the printing last week.")
    assert not [h for h in ask(container, "Alice Example", k=10) if "Alice" in h.text or h.sender == "Alice Example"]
    restore(container, rep.forget_id)
    assert ask(container, "who fixed the printing", k=1)[0].text.endswith("Alice Example fixed the printing last week.")
    # the person's choice: remove the messages that mention her too
    plan = plan_forget(container, "Alice Example", mentions="remove")
    assert plan.records == 3 and plan.redacted == 0
    rep = forget(container, "Alice Example", mentions="remove")
    assert rep.counts == plan.counts
    assert not [h for h in ask(container, "who fixed the printing", k=5) if "printing" in h.text]
    assert {"Bob Stone", "Dana Reyes"} <= names(container)


def test_forget_a_source_file_takes_what_only_it_knew(container, mail):
    kitchen, trips = mail
    plan = plan_forget(container, Target.source(str(kitchen)))
    assert plan.records == 4 and plan.label == "kitchen.mbox (file)"
    rep = forget(container, Target.source(str(kitchen)), purge=True)
    assert rep.state == "purged" and rep.counts == plan.counts
    assert names(container) == {"Dana Reyes", "Owner Person"}  # Alice and Bob were only in that file
    with container.db.session() as s:
        assert [src.path for src in s.exec(select(Source)).all()] == [str(trips)]
        assert s.exec(select(Record)).all()[0].subject == "Lisbon"
    assert ingest(container, [kitchen]).records_added == 4  # given again, it is imported again


def test_forget_a_time_range(container, mail):
    rep = forget(container, Target.range(T0 + timedelta(days=1), T0 + timedelta(days=3)))  # Bob's and Alice's 2nd
    assert rep.counts["graph"]["records"] == 2 and rep.label.endswith("(time range)")
    subjects = {r.subject for r in ask(container, "sourdough climbing rye flour Lisbon printer", k=10, min_relevance=0)}
    assert "Sourdough starter" in subjects and "Lisbon" in subjects
    assert not {"Climbing", "Rye flour"} & subjects
    with pytest.raises(ValueError):
        Target.range(T0, T0 - timedelta(days=1))


def test_forget_one_record_then_one_fact_with_its_history(container, mail):
    with container.db.session() as s:
        rid = s.exec(select(Record.id).where(Record.subject == "Climbing")).one()
    rep = forget(container, Target.record(rid))
    assert rep.counts["graph"]["records"] == 1 and rep.counts["memory"]["episodes"] == 1
    assert "Climbing" not in {r.subject for r in ask(container, "climbing Saturday", k=5)}

    from core.graph.facts import FactDraft, as_of_statement, write_fact

    def work():
        with container.db.session() as s:
            dana = s.exec(select(Entity).where(Entity.canonical_name == "Dana Reyes")).one()
            ids = []
            for year, firm in ((2020, "Acme"), (2021, "Globex")):
                when = datetime(year, 1, 1, tzinfo=timezone.utc)
                ids.append(write_fact(s, FactDraft(dana.id, "work", "employment", "employer", firm,
                                                   as_of_statement(when, f"Dana Reyes works at {firm}."),
                                                   valid_from=when)).fact.id)
            return ids
    acme, globex = container.writer.run(work)
    rep = forget(container, Target.fact(globex))
    assert rep.counts["graph"]["facts"] == 1 and rep.counts["graph"]["facts_reactivated"] == 1
    with container.db.session() as s:
        assert s.get(Fact, acme).superseded_by is None and s.get(Fact, acme).valid_to is None  # current again
    restore(container, rep.forget_id)
    with container.db.session() as s:
        assert s.get(Fact, acme).superseded_by == globex and s.get(Fact, globex).superseded_by is None


def test_the_owner_cannot_be_forgotten_and_unknown_targets_say_so(container, mail):
    from core.errors import NotFound

    with pytest.raises(ValueError, match="owner"):
        plan_forget(container, "Owner Person")
    with pytest.raises(NotFound):
        plan_forget(container, Target.record(9999))
    with pytest.raises(NotFound):
        plan_forget(container, Target.source("/nowhere.mbox"))


def test_the_restore_window_then_the_purge_at_expiry(container, mail):
    rep = forget(container, "Bob Stone")
    assert [i.label for i in list_forgotten(container) if i.restorable] == ["Bob Stone (person)"]
    assert purge_expired(container)["forgets"] == {}  # still inside the window
    with clock.frozen(clock.now() + timedelta(days=31)):
        with pytest.raises(ValueError, match="expired"):
            restore(container, rep.forget_id)
        done = purge_expired(container)
    assert list(done["forgets"]) == [rep.forget_id] and done["files"]["signature_rows_dropped"] >= 1
    with container.db.session() as s:
        op = s.get(ForgetOp, rep.forget_id)
        assert op.state == "purged" and op.label == f"entity #{rep.forget_id}" and op.plan == {}
        assert op.counts["graph"]["records"] == 1  # counts and a fingerprint stay, never the name
        assert s.exec(select(Entity).where(Entity.canonical_name == "Bob Stone")).first() is None
    with pytest.raises(ValueError):
        restore(container, rep.forget_id)


def test_a_forget_interrupted_after_its_commit_is_finished_by_resume_pending(container, mail, monkeypatch):
    import app.operations.forget as ops
    from core.store.collections import RECORDS

    real = ops._finish_hide
    monkeypatch.setattr(ops, "_finish_hide", lambda c, op_id: (_ for _ in ()).throw(RuntimeError("power cut")))
    with pytest.raises(RuntimeError):
        forget(container, "Alice Example")
    with container.db.session() as s:
        op = s.exec(select(ForgetOp)).one()
    assert op.state == "hiding"
    assert "Alice Example" not in names(container)  # the SQLite part is committed: already hidden
    assert container.vectors.count(RECORDS) == 5     # Chroma not yet
    monkeypatch.setattr(ops, "_finish_hide", real)
    assert resume_pending(container) == [op.id]
    assert container.vectors.count(RECORDS) == 3
    # a purge cut short before its files were compacted and vacuumed
    monkeypatch.setattr(ops, "_vacuum", lambda c: (_ for _ in ()).throw(RuntimeError("power cut")))
    with pytest.raises(RuntimeError):
        purge(container, op.id)
    monkeypatch.undo()
    with container.db.session() as s:
        assert s.get(ForgetOp, op.id).state == "purging"
    assert resume_pending(container) == [op.id]
    with container.db.session() as s:
        assert s.get(ForgetOp, op.id).state == "purged"


def test_a_compaction_cut_short_is_completed_on_open(container, mail):
    """The renumbering is committed with a marker before the compacted files are swapped in; after a crash
    between the two, the next writer (``align_files``, run before any write) finishes the swap."""
    from app.memory import service
    from core.memory.episodes import EpisodicMemory
    from core.memory.forget import compact
    from core.store.schema import Episode

    mem = service(container).mem
    forget(container, "Bob Stone")
    with container.db.session() as s:
        sigs = {e.id: mem.structured.get(e.signature_row).tobytes() for e in s.exec(select(Episode)).all()
                if e.tombstoned_at is None}
        bob_row = s.exec(select(Episode.signature_row).where(Episode.tombstoned_at.is_not(None))).one()
    with container.db.session() as s:  # as a purge would: the row is no episode's any more
        ep = s.exec(select(Episode).where(Episode.tombstoned_at.is_not(None))).one()
        ep.signature_row = ep.gist_row = None
        s.add(ep)
    real = mem.structured.commit_compact
    mem.structured.commit_compact = lambda tmp: (_ for _ in ()).throw(RuntimeError("power cut"))
    with pytest.raises(RuntimeError):
        compact(mem)
    mem.structured.commit_compact = real
    assert mem.structured.compact_path.exists()
    reopened = EpisodicMemory(container.db, container.settings.home / "memory")
    reopened.align_files()  # finishes the swap
    assert not reopened.structured.compact_path.exists() and len(reopened.structured) == len(sigs)
    with container.db.session() as s:
        for e in s.exec(select(Episode)).all():
            if e.id in sigs:
                assert reopened.structured.get(e.signature_row).tobytes() == sigs[e.id]
    assert bob_row is not None


def test_what_only_she_was_evidence_for_goes_with_her_and_comes_back_with_her(container, tmp_path):
    box = write_mbox(tmp_path / "lena.mbox", [
        ("Lena Fischer <lena@example.com>", "Moving",
         "I moved to Tromsø last month. I work at Quillfeather Press now. My sister Anna Fischer says hi."),
        ("Omar Haddad <omar@example.com>", "Lunch", "Lunch on Friday with the team?")])
    ingest(container, [box])
    before = names(container)
    assert {"Tromsø", "Quillfeather Press", "Anna Fischer", "Omar Haddad"} <= before
    plan = plan_forget(container, "Lena Fischer")
    assert plan.counts["graph"]["entities"] == 4  # Lena, and the place, employer and sister only she named
    rep = forget(container, "Lena Fischer")
    assert names(container) == before - {"Lena Fischer", "Tromsø", "Quillfeather Press", "Anna Fischer"}
    restore(container, rep.forget_id)
    assert names(container) == before


def test_forgetting_a_chat_message_takes_its_words_from_the_learned_conversation_turns(tmp_path, container):
    """The personalization ledger keeps each conversation turn's text (a sender's consecutive messages joined):
    forgetting one message (or its file, or a time range) takes the turns that hold its words; restore puts them
    back; the other turns stay."""
    import sqlite3

    container.settings.owner_name = "Owner Person"
    chat = tmp_path / "WhatsApp Chat with Bruno.txt"
    chat.write_text("01/03/2024, 10:00 - Bruno Vale: I ordered more fleece for the shop\n"
                    "01/03/2024, 10:01 - Bruno Vale: it ships on Friday\n"
                    "01/03/2024, 10:20 - Owner Person: Great, thanks\n"
                    "02/03/2024, 09:00 - Bruno Vale: The quilting class moved to Tuesday\n")
    assert ingest(container, [chat]).records_added == 4

    def turns():
        con = sqlite3.connect(container.settings.db_path)
        try:
            return sorted(t for (t,) in con.execute("SELECT text FROM message"))
        finally:
            con.close()

    assert turns() == ["Great, thanks", "I ordered more fleece for the shop\nit ships on Friday",
                       "The quilting class moved to Tuesday"]
    with container.db.session() as s:
        rid = s.exec(select(Record.id).where(Record.text == "it ships on Friday")).one()
    op = forget(container, Target.record(rid))
    assert turns() == ["Great, thanks", "The quilting class moved to Tuesday"]
    restore(container, op.forget_id)
    assert turns() == ["Great, thanks", "I ordered more fleece for the shop\nit ships on Friday",
                       "The quilting class moved to Tuesday"]
    op = forget(container, Target.record(rid))
    purge(container, op.forget_id)
    assert "fleece" not in " ".join(turns()) and "Friday" not in " ".join(turns())

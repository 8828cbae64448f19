"""The knowledge graph built by ingest: identity-aware facts, time anchors against the message's time,
supersession across messages, "as of" queries, idempotence."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from sqlmodel import select

from app.operations.ingest import ingest
from app.settings import Settings
from core.store.schema import Entity, Fact, FactEntity

MBOX = """From me@example.com Tue May 12 09:00:00 2026
From: Nic Owner <me@example.com>
To: Ryan Friend <ryan@example.org>
Subject: news
Date: Tue, 12 May 2026 09:00:00 +0000
Message-ID: <m1@example.com>

Mom had surgery last weekend, she is recovering well. I work at Initech now.

From me@example.com Tue Sep  1 09:00:00 2026
From: Nic Owner <me@example.com>
To: Ryan Friend <ryan@example.org>
Subject: big news
Date: Tue, 01 Sep 2026 09:00:00 +0000
Message-ID: <m2@example.com>

I joined Globex yesterday! My sister Jane lives in Portland.

From ryan@example.org Wed Sep  2 09:00:00 2026
From: Ryan Friend <ryan@example.org>
To: Nic Owner <me@example.com>
Subject: Re: big news
Date: Wed, 02 Sep 2026 09:00:00 +0000
Message-ID: <r1@example.org>

Congrats! My birthday is March 3rd, come to the party.
"""


def make_container(home):
    from app.container import Container

    st = Settings.load(home)
    st.owner_name, st.owner_emails = "Nic Owner", ["me@example.com"]
    return Container(st)


def facts_about(s, name):
    e = s.exec(select(Entity).where(Entity.canonical_name == name)).one()
    return e, s.exec(select(Fact).where(Fact.subject_entity_id == e.id)).all()


def test_identity_aware_facts_supersession_and_as_of(kith_home, tmp_path):
    path = tmp_path / "owner.mbox"
    path.write_text(MBOX, encoding="utf-8")
    c = make_container(kith_home)
    try:
        report = ingest(c, [path])
        assert report.records_added == 3 and not report.errors
        with c.db.session() as s:
            me, mine = facts_about(s, "Nic Owner")
            assert me.is_owner
            # "Mom had surgery" is about the owner's mother, not the owner.
            assert not [f for f in mine if f.domain == "health"]
            mother, hers = facts_about(s, "Nic Owner's mother")
            surgery = [f for f in hers if f.domain == "health"][0]
            assert surgery.value == "surgery"
            assert surgery.valid_from.date().isoformat() == "2026-05-09"  # Sat before Tue 12 May 2026
            assert surgery.valid_to.date().isoformat() == "2026-05-10"
            assert surgery.statement.startswith("As of 2026-05-09, ")
            rel = [f for f in mine if f.key == "relation:mother"][0]
            assert s.get(FactEntity, (rel.id, mother.id, "object")) is not None
            # Employer: Initech (May) superseded by Globex (joined "yesterday" = 31 Aug), history kept.
            jobs = sorted((f for f in mine if f.key == "employer"), key=lambda f: f.id)
            assert [(f.value, f.superseded_by) for f in jobs] == [("Initech", jobs[1].id), ("Globex", None)]
            assert jobs[1].valid_from.date().isoformat() == "2026-08-31"
            # Ryan's birthday is Ryan's.
            _, ryans = facts_about(s, "Ryan Friend")
            assert [f.value for f in ryans if f.key == "birthday"] == ["--03-03"]
            # Jane is the owner's sister and lives in Portland.
            _, janes = facts_about(s, "Jane")
            assert [f.value for f in janes if f.key == "home"] == ["Portland"]
        from app.operations.graph import facts_as_of

        june = facts_as_of(c, "Nic Owner", datetime(2026, 6, 1, tzinfo=timezone.utc))
        assert [f.value for f in june if f.key == "employer"] == ["Initech"]
        october = facts_as_of(c, "Nic Owner", datetime(2026, 10, 1, tzinfo=timezone.utc))
        assert [f.value for f in october if f.key == "employer"] == ["Globex"]
        from app.operations.ask import ask

        answers = ask(c, "where do I work?", k=5)  # "I" is the owner; only the current employer is a fact
        facts = [a.text for a in answers if a.kind == "fact"]
        assert "As of 2026-08-31, Nic Owner works at Globex." in facts
        assert not any("Initech" in f for f in facts)
        with c.db.session() as s:
            before = [(f.id, f.value, f.evidence_count, f.superseded_by) for f in s.exec(select(Fact)).all()]
            entities_before = len(s.exec(select(Entity)).all())
        again = ingest(c, [path])
        assert again.records_added == 0
        with c.db.session() as s:  # the same graph the second time
            assert [(f.id, f.value, f.evidence_count, f.superseded_by) for f in s.exec(select(Fact)).all()] == before
            assert len(s.exec(select(Entity)).all()) == entities_before
    finally:
        c.close()


TAKEOUT = """From 1234@xxx Mon Jan 05 10:00:00 +0000 2026
X-GM-THRID: 1
X-Gmail-Labels: Sent,Important
From: Pat Person <pat@gmail.example>
To: Sam Friend <sam@example.org>
Subject: lunch
Date: Mon, 05 Jan 2026 10:00:00 +0000
Message-ID: <t1@gmail.example>

My brother Tom lives in Denver.

From 1235@xxx Mon Jan 05 11:00:00 +0000 2026
X-Gmail-Labels: Spam
From: Prince <prince@scam.example>
To: Pat Person <pat@gmail.example>
Subject: you won
Date: Mon, 05 Jan 2026 11:00:00 +0000
Message-ID: <t2@scam.example>

Send money.
"""


def test_gmail_takeout_sent_label_marks_the_owner_and_spam_is_left_out(container, tmp_path):
    path = tmp_path / "All mail Including Spam and Trash.mbox"
    path.write_text(TAKEOUT, encoding="utf-8")
    report = ingest(container, [path])
    assert (report.records_added, report.records_filtered) == (1, 1)
    assert report.to_json()["records_filtered"] == 1
    with container.db.session() as s:
        me = s.exec(select(Entity).where(Entity.is_owner.is_(True))).one()
        assert me.canonical_name == "Pat Person"
        _, toms = facts_about(s, "Tom")
        assert [f.value for f in toms if f.key == "home"] == ["Denver"]
        assert s.exec(select(Entity).where(Entity.canonical_name == "Prince")).first() is None


def test_every_resolution_decision_is_recorded_and_who_wrote_to_whom_is_a_fact(kith_home, tmp_path):
    from core.store.schema import RecordEntity

    path = tmp_path / "owner.mbox"
    path.write_text(MBOX, encoding="utf-8")
    c = make_container(kith_home)
    try:
        ingest(c, [path])
        with c.db.session() as s:
            links = s.exec(select(RecordEntity)).all()
            assert links and all(link.signal for link in links)
            ryan = s.exec(select(Entity).where(Entity.canonical_name == "Ryan Friend")).one()
            signals = sorted({(link.role, link.signal) for link in links if link.entity_id == ryan.id})
            assert signals == [("from", "email"), ("to", "email"), ("to", "new")]  # created once, then matched
            _, mine = facts_about(s, "Nic Owner")
            wrote = [f for f in mine if f.category == "correspondence"]
            assert [(f.value, f.evidence_count) for f in wrote] == [("Ryan Friend", 2)]  # two messages to Ryan
            assert wrote[0].confidence == pytest.approx(1 - 0.7 * 0.7)  # noisy-OR of two 0.3 pieces
    finally:
        c.close()


def test_imported_records_are_perceived_by_the_sensory_buffer_and_embedded_as_their_sender_tells_them(
        kith_home, tmp_path):
    """Seed 001 floor 1: each imported record passes the sensory buffer as an explicit observation (promoted
    whatever its surprise; no beliefs yet → surprise 1.0); its vector is "Sender: <third person>"."""
    from app.memory import service
    from core.store.collections import RECORDS

    (tmp_path / "m.mbox").write_text(MBOX)
    c = make_container(kith_home)
    try:
        assert ingest(c, [tmp_path / "m.mbox"]).records_added == 3
        frames = service(c).sensory.frames()
        assert len(frames) == 3 and all(f.promoted and f.surprise == 1.0 for f in frames)
        assert frames[2].text == "Re: big news\nCongrats! My birthday is March 3rd, come to the party.\n"
        want = c.encoder.encode(["Ryan Friend: Re: big news\nCongrats! Ryan Friend's birthday is March 3rd, "
                                 "come to the party.\n"])[0]
        got = c.vectors.query(RECORDS, want, 1)[0]
        assert got[1] < 1e-4  # cosine distance: the stored vector is that text's embedding
    finally:
        c.close()


def test_the_after_import_job_regenerates_summaries_then_consolidates(kith_home, tmp_path):
    """The window's background job after an import (app.jobs.after_import): summaries, then a consolidation
    pass over the new episodes (seed 001), logged as a learning event; a cancelled job skips consolidation."""
    import threading

    from app.jobs import after_import
    from app.memory import learned

    (tmp_path / "m.mbox").write_text(MBOX)
    c = make_container(kith_home)
    try:
        assert ingest(c, [tmp_path / "m.mbox"]).records_added == 3
        stop = threading.Event()
        stop.set()
        assert after_import(c, cancel=stop)["consolidation"] is None
        out = after_import(c)
        # three unlike messages: scanned, but no cluster of ≥ 3 alike, so no atom
        assert out["consolidation"] == {"scanned": 3, "atoms_created": 0, "beliefs_asserted": 0}
        assert out["summaries"]["remaining"] == 0
        assert [e.kind for e in learned(c) if e.kind == "consolidation"] == ["consolidation"]
    finally:
        c.close()


def test_kith_ingest_leaves_each_profile_a_summary_in_a_few_sentences(tmp_path, monkeypatch):
    """`kith ingest` runs the after-import jobs too (it had left every profile's summary "missing" until the window
    or `kith summarize` ran them), and the summary written without a model is a few sentences, not a list of "As
    of …" statements with confidences. Right values from the three mails above: Nic wrote to Ryan twice and joined
    Globex on 31 August 2026 ("yesterday" on 1 September), which superseded Initech (12 May)."""
    import json

    from click.testing import CliRunner

    from app.cli import main

    monkeypatch.setenv("KITH_HOME", str(tmp_path / "home"))
    (tmp_path / "m.mbox").write_text(MBOX)
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", str(tmp_path / "m.mbox")], catch_exceptions=False).exit_code == 0
    got = json.loads(runner.invoke(main, ["profile", "Ryan Friend", "--json"], catch_exceptions=False).stdout)
    assert got["summary"].startswith("Ryan Friend (person). ") and not got["summary_stale"]
    assert "Written to by Nic Owner." in got["summary"] and "As of" not in got["summary"]
    nic = json.loads(runner.invoke(main, ["profile", "Nic Owner", "--json"], catch_exceptions=False).stdout)
    text = nic["summary"]
    assert "Nic Owner works at Globex (since August 2026)." in text, text
    assert "Wrote to Ryan Friend." in text and "Writes from me@example.com." in text, text
    assert "Before: Nic Owner worked at Initech until August 2026." in text, text

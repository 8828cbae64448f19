"""The ingest pipeline (issue #10): one writer across processes, stages that finish, doctor, a lost Chroma folder."""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from synth import write_mbox, write_whatsapp  # noqa: E402


def _env(home: Path) -> dict:
    return dict(os.environ, KITH_HOME=str(home), PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _kith(home: Path, *args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.cli", *args], env=_env(home), capture_output=True, text=True,
                          timeout=600, **kw)


def _container(home: Path):
    from app.container import Container
    from app.settings import Settings

    return Container(Settings.load(home))


def test_two_processes_importing_into_one_new_folder_keep_every_episode_apart(tmp_path):
    """Two `kith ingest` started together on a brand-new data folder: both succeed (no schema race), every
    episode has its own signature row, doctor is clean, and recall finds chat B's phrase in chat B."""
    home = tmp_path / "home"
    a = write_whatsapp(tmp_path / "a.txt", 120, ["Ann Hiker", "Bo Trail"], phrase_every=30,
                       phrase="the ridge hike starts at the old quarry", seed=1)
    b = write_whatsapp(tmp_path / "b.txt", 120, ["Cara Strings", "Dev Bow"], phrase_every=40,
                       phrase="my harp lesson moved to thursday evening", seed=2)
    procs = [subprocess.Popen([sys.executable, "-m", "app.cli", "ingest", str(p), "--json"], env=_env(home),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for p in (a, b)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    with sqlite3.connect(home / "kith.sqlite3") as con:
        records = con.execute("SELECT count(*) FROM record").fetchone()[0]
        eps, rows = con.execute("SELECT count(*), count(DISTINCT signature_row) FROM episode").fetchone()
    assert records == 240 and eps == 240 and rows == 240
    assert (home / "memory" / "signatures.dat").stat().st_size == 240 * 1024
    c = _container(home)
    try:
        from app.memory import recall
        from app.operations.doctor import diagnose

        report = diagnose(c)
        assert report.ok, report.to_json()
        hits = recall(c, "harp lesson moved to thursday", k=3).hits
        assert "harp lesson moved to thursday" in hits[0].text
    finally:
        c.close()


def test_a_second_writer_waits_with_a_message_or_gives_up_after_wait(tmp_path):
    """Another process holding the writer lock: `kith ingest --wait 1` says why and exits 75; reads do not wait."""
    home = tmp_path / "home"
    mbox = write_mbox(tmp_path / "m.mbox", 5, seed=3)
    assert _kith(home, "ingest", str(mbox)).returncode == 0
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from core.store.lock import FolderLock; "
        f"l = FolderLock(r'{home}', describe='kith ingest big.mbox'); "
        "h = l.hold(); h.__enter__(); print('held', flush=True); time.sleep(60)")],
        env=_env(home), stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        t0 = time.monotonic()
        out = _kith(home, "--wait", "1", "ingest", str(mbox))
        assert out.returncode == 75, out.stderr
        assert "another Kith is writing to this data folder" in out.stderr and "kith ingest big.mbox" in out.stderr
        assert "gave up after 1 s" in out.stderr
        assert time.monotonic() - t0 < 60
        ask = _kith(home, "ask", "ticket", "--json")  # a read: never takes the lock, never waits
        assert ask.returncode == 0 and "waiting" not in ask.stderr
    finally:
        holder.kill()
        holder.wait()
    assert _kith(home, "--wait", "5", "ingest", str(mbox)).returncode == 0  # the kernel freed the dead holder's lock


STAGES = ["vectors_stage", "memory_stage", "ledger_stage", "fact_vectors_stage"]


@pytest.mark.parametrize("stage", STAGES)
def test_a_failed_post_commit_stage_is_completed_by_the_next_import(container, tmp_path, monkeypatch, stage):
    from app import pipeline
    from app.operations.doctor import diagnose
    from app.operations.ingest import ingest

    chat = write_whatsapp(tmp_path / "chat.txt", 40, ["Nora Owner", "Pia Friend"], seed=4)
    container.settings.owner_name = "Nora Owner"
    real = getattr(pipeline, stage)
    calls = {"n": 0}

    def once(*a, **k):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("injected failure")
        return real(*a, **k)

    monkeypatch.setattr(pipeline, stage, once)
    first = ingest(container, [chat])
    assert first.records_added == 40
    assert any("injected failure" in e.reason for e in first.errors)
    left = pipeline.pending(container)
    name = {"vectors_stage": "vectors", "memory_stage": "memory", "ledger_stage": "ledger",
            "fact_vectors_stage": "fact vectors"}[stage]
    assert left[name] > 0  # the stage's mark stayed on the records it did not finish
    monkeypatch.setattr(pipeline, stage, real)
    again = ingest(container, [chat])
    assert again.records_added == 0 and again.records_skipped == 40 and again.resumed >= left[name]
    assert pipeline.pending(container) == {k: 0 for k in left}
    report = diagnose(container)
    assert report.ok, report.to_json()
    from core.store.collections import RECORDS

    assert container.vectors.count(RECORDS) == 40
    with container.db.session() as s:
        conn = s.connection()
        assert conn.exec_driver_sql("SELECT count(*) FROM episode WHERE signature_row IS NOT NULL").scalar() == 40
        learned = conn.exec_driver_sql("SELECT count(*), count(DISTINCT record_ref) FROM message").one()
    clean = _container(tmp_path / "clean")
    try:
        clean.settings.owner_name = "Nora Owner"
        ingest(clean, [chat])
        with clean.db.session() as s:
            want = s.connection().exec_driver_sql("SELECT count(*), count(DISTINCT record_ref) FROM message").one()
    finally:
        clean.close()
    assert tuple(learned) == tuple(want)  # every turn learned exactly once: no double count after the retry


@pytest.mark.corpus
def test_the_events_stage_is_completed_after_a_failure(container, corpus, monkeypatch):
    from app import pipeline
    from app.operations.entities import list_entities
    from app.operations.ingest import ingest

    real = pipeline.events_stage
    monkeypatch.setattr(pipeline, "events_stage", lambda c: (_ for _ in ()).throw(RuntimeError("injected")))
    first = ingest(container, [corpus / "photos"])
    assert any("injected" in e.reason for e in first.errors)
    assert [e for e in list_entities(container, "event")] == []
    assert pipeline.pending(container)["events"] == 2 + 1 + 1 + 0  # every geotagged, dated photo
    monkeypatch.setattr(pipeline, "events_stage", real)
    ingest(container, [corpus / "photos"])
    events = list_entities(container, "event")
    assert len(events) == 1 and "Arezzo" in events[0].name  # the two Tuscany photos, 27 minutes apart
    assert pipeline.pending(container)["events"] == 0


def test_a_deleted_chroma_folder_is_rebuilt_and_found_by_meaning_again(tmp_path):
    home = tmp_path / "home"
    mbox = write_mbox(tmp_path / "m.mbox", 30, seed=5)
    assert _kith(home, "ingest", str(mbox)).returncode == 0
    before = _kith(home, "search", "booking a kayak by the lighthouse", "--json", "--k", "3")
    shutil.rmtree(home / "chroma")
    lost = _kith(home, "search", "booking a kayak by the lighthouse", "--json", "--k", "3")
    assert "vector store" in lost.stderr and "missing" in lost.stderr  # a read says so, and writes nothing
    assert not (home / "chroma").exists()
    doc = _kith(home, "doctor", "--json")
    assert doc.returncode == 1 and '"store_replaced": 1' in doc.stdout
    fixed = _kith(home, "doctor", "--repair", "--json")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert '"vector_store_rebuilt": 1' in fixed.stdout and '"completed vectors": 30' in fixed.stdout
    after = _kith(home, "search", "booking a kayak by the lighthouse", "--json", "--k", "3")
    import json

    def chunk_ids(out):
        return [h["id"] for h in json.loads(out.stdout)["results"] if h["type"] == "chunk"]
    assert chunk_ids(after) and chunk_ids(after) == chunk_ids(before)


def test_the_next_import_rebuilds_a_lost_chroma_folder(container, tmp_path):
    from app.operations.ingest import ingest
    from core.store.collections import FACTS, RECORDS

    mbox = write_mbox(tmp_path / "m.mbox", 20, seed=6)
    ingest(container, [mbox])
    facts = container.vectors.count(FACTS)
    container.vectors.close()
    shutil.rmtree(container.settings.chroma_path)
    report = ingest(container, [mbox])
    assert report.records_added == 0 and report.resumed >= 20 + facts
    assert container.vectors.count(RECORDS) == 20 and container.vectors.count(FACTS) == facts


def test_doctor_finds_and_repairs_torn_shared_and_missing_rows(container, tmp_path):
    """Break each store the way crashes and old bugs did, then `doctor --repair` puts every row back."""
    from app.operations.doctor import diagnose, repair
    from app.operations.ingest import ingest
    from core.store.collections import RECORDS

    chat = write_whatsapp(tmp_path / "chat.txt", 30, ["Ann A", "Bo B"], seed=8)
    ingest(container, [chat])
    assert diagnose(container).ok
    con = sqlite3.connect(container.settings.db_path)
    con.execute("DROP INDEX ux_episode_signature_row")  # what an older Kith had: nothing stopped a shared row
    ids = [r[0] for r in con.execute("SELECT id FROM episode ORDER BY id LIMIT 3")]
    con.execute("UPDATE episode SET signature_row = 0, gist_row = 0 WHERE id IN (?, ?)", ids[1:])
    con.execute("DELETE FROM record_fts WHERE rowid IN (SELECT id FROM record ORDER BY id LIMIT 2)")
    con.execute("INSERT INTO record_fts(rowid, subject, body, people) VALUES (9999, '', 'orphan', '')")
    con.commit()
    con.close()
    with open(container.settings.home / "memory" / "signatures.dat", "ab") as f:
        f.write(b"\x01" * 100)  # a crash in the middle of a row
    container.vectors.delete(RECORDS, ["record:5"])
    found = diagnose(container)
    probs = {ch.name: ch.problems for ch in found.checks}
    assert probs["signatures"]["rows_shared_by_episodes"] == 3 and probs["signatures"]["torn_bytes"] == 100
    assert probs["fts"] == {"records_missing_from_fts": 2, "fts_rows_without_record": 1}
    assert probs["record vectors"]["vectors_missing"] == 1
    fixed = repair(container)
    assert fixed.ok, fixed.to_json()
    assert fixed.repaired["episodes_re_encoded"] == 3 and fixed.repaired["fts_rows_indexed"] == 2
    assert fixed.repaired["fts_rows_dropped"] == 1 and fixed.repaired["torn_bytes_cut"] == 100
    assert fixed.repaired["record_vectors_redone"] == 1
    with container.db.session() as s:
        conn = s.connection()
        n, distinct = conn.exec_driver_sql("SELECT count(*), count(DISTINCT signature_row) FROM episode").one()
        assert n == distinct == 30
        assert conn.exec_driver_sql("SELECT count(*) FROM sqlite_master WHERE name='ux_episode_signature_row'").scalar() == 1
    from app.memory import service

    mem = service(container).mem
    sig, _ = mem.signatures(ids)
    assert np.asarray(sig).any(axis=1).all()  # each of the three has its own, non-zero signature again


def test_doctor_finds_and_repairs_the_episode_lexicon(container, tmp_path):
    """Episodes missing from the lexicon and rows of gone episodes are found and repaired row by row."""
    from app.operations.doctor import diagnose, repair
    from app.operations.ingest import ingest
    from core.retrieval import lexicon

    ingest(container, [write_whatsapp(tmp_path / "chat.txt", 12, ["Ann A", "Bo B"], seed=3)])
    con = sqlite3.connect(container.settings.db_path)
    ids = [r[0] for r in con.execute("SELECT id FROM episode ORDER BY id")]
    assert lexicon.missing(con) == [] and len(ids) == 12
    con.execute("DELETE FROM lexdoc WHERE episode_id IN (?, ?)", ids[:2])
    con.execute("DELETE FROM episode_lex WHERE rowid IN (?, ?)", ids[:2])
    con.execute("INSERT INTO lexdoc(episode_id, session, t, speaker, own) VALUES (9999, 's', 0, 'X', 'orphan')")
    con.commit()
    probs = {ch.name: ch.problems for ch in diagnose(container).checks}
    assert probs["lexicon"] == {"episodes_missing_from_lexicon": 2, "lexicon_rows_without_live_episode": 1}
    fixed = repair(container)
    assert fixed.ok, fixed.to_json()
    assert fixed.repaired["lexicon_rows_indexed"] == 2 and fixed.repaired["lexicon_rows_dropped"] == 1
    assert sorted(r[0] for r in con.execute("SELECT episode_id FROM lexdoc")) == ids
    con.close()

"""Kith's stores on a real PostgreSQL and a real Chroma server (issue 16), started by the session's fixtures
(``tests/conftest.py``: ``pg_server``, ``chroma_server``, ``server_env``).

* The corpus ingested into PostgreSQL + a Chroma server gives the same entities, facts and ``ask`` top 5 as
  the embedded setup.
* Two devices (two data folders, two processes) importing different archives at once into one server setup
  keep every record once, see each other's imports, and ``doctor`` is clean on both.
* ``kith migrate`` from a corpus data folder: counts and checksums equal, the source unchanged.
* A forget on a server setup cascades across all of it (PostgreSQL rows, the Chroma server's collections,
  the signatures in the database and every device's cache).
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

from app.container import Container
from app.operations.archive import export_archive, migrate
from app.operations.ask import ask
from app.operations.doctor import diagnose
from app.operations.entities import list_entities
from app.operations.forget import forget
from app.operations.ingest import ingest
from app.settings import Settings
from core.store.schema import Entity, Fact
from helpers.mboxes import write_mbox

pytestmark = pytest.mark.servers

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from synth import write_mbox as synth_mbox  # noqa: E402

QUESTIONS = ["when was I in Italy?", "PGP signed message", "the mailing list about mail boxes",
             "who sent the watermark question?", "lunch tomorrow", "photos in Kenya", "telegram test"]


def _corpus_paths(corpus: Path) -> list[Path]:
    return [corpus / "mbox", corpus / "messages" / "chats", corpus / "photos"]


@pytest.fixture(scope="module")
def embedded_corpus(tmp_path_factory):
    """An embedded data folder (SQLite + Chroma folder) with the corpus's mail, chats and photos."""
    corpus = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
    if not corpus.is_dir():
        pytest.skip("../shared/corpus not present (it exists only in the dev workspace and CI)")
    home = tmp_path_factory.mktemp("embedded")
    c = Container(Settings.load(home), database=f"sqlite:///{home / 'kith.sqlite3'}", vectors="")
    rep = ingest(c, _corpus_paths(corpus))
    assert rep.records_added > 60
    yield corpus, c
    c.close()


def _entities(c) -> list[tuple]:
    return sorted((e.kind, e.name, tuple(sorted(e.aliases)), e.records, e.facts, e.last_seen) for e in list_entities(c))


def _facts(c) -> list[tuple]:
    with c.db.session() as s:
        rows = s.exec(select(Fact, Entity).join(Entity, Entity.id == Fact.subject_entity_id)).all()
        return sorted((e.canonical_name, f.domain, f.category, f.key, f.value, f.statement, round(f.confidence, 9),
                       f.superseded_by is not None, f.evidence_count) for f, e in rows)


def _top5(c) -> dict[str, list]:
    return {q: [(h.kind, h.text, h.sender, h.when, round(h.relevance, 6)) for h in ask(c, q, k=5, min_relevance=0)]
            for q in QUESTIONS}


def test_the_corpus_on_servers_gives_the_same_memory_as_embedded(embedded_corpus, server_env, tmp_path):
    corpus, emb = embedded_corpus
    c = Container(Settings.load(tmp_path / "device"))
    try:
        assert c.db.server and c.vectors.url == server_env["KITH_CHROMA_URL"]
        rep = ingest(c, _corpus_paths(corpus))
        assert not [e for e in rep.errors if "stage" in e.reason], rep.errors
        assert _entities(c) == _entities(emb)
        assert _facts(c) == _facts(emb) and len(_facts(c)) > 20
        want = _top5(emb)
        assert sum(len(v) for v in want.values()) >= 25  # the questions find things (not vacuous)
        assert _top5(c) == want
        report = diagnose(c)
        assert report.ok, report.to_json()
        # nothing of it went into the data folder's own database or Chroma folder
        assert not (tmp_path / "device" / "kith.sqlite3").exists() and not (tmp_path / "device" / "chroma").exists()
    finally:
        c.close()


def test_migrate_a_corpus_folder_to_servers(embedded_corpus, pg_server, chroma_server, tmp_path):
    corpus, emb = embedded_corpus
    home = emb.settings.home

    def snapshot():
        return {str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(home.rglob("*"))
                if p.is_file() and not p.name.endswith("-shm") and "chroma" not in p.relative_to(home).parts
                and not p.name.startswith("kith.lock")}
    before = snapshot()
    url = pg_server.create_db("migrate")
    try:
        rep = migrate(emb, url, chroma_server.url)
        assert rep.ok, rep.lines()
        m = rep.members
        for name in ("tables/record.jsonl", "tables/fact.jsonl", "signatures/signatures.bin", "signatures/gists.bin",
                     "vectors/records.jsonl", "vectors/facts.jsonl"):
            assert m[name]["equal"] and m[name]["source_rows"] == m[name]["target_rows"] > 0, name
        with emb.db.engine.connect() as conn:
            assert m["tables/record.jsonl"]["source_rows"] == conn.exec_driver_sql("SELECT count(*) FROM record").scalar()
        assert snapshot() == before  # the source is only read
        served = Container(Settings.load(tmp_path / "other-device"), database=url, vectors=chroma_server.url)
        try:
            assert _top5(served) == _top5(emb) and _entities(served) == _entities(emb)
        finally:
            served.close()
    finally:
        pg_server.drop_db(url)


DEVICE = r"""
import sys
from app.container import Container
from app.operations.ingest import ingest
c = Container(describe="device")
rep = ingest(c, [sys.argv[1]])
c.close()
print(rep.records_added, len(rep.errors))
for e in rep.errors: print("ERR", e.reason, file=sys.stderr)
"""


def test_two_devices_import_at_once_into_one_server_setup(server_env, tmp_path):
    a = synth_mbox(tmp_path / "a.mbox", 60, seed=21)
    b = synth_mbox(tmp_path / "b.mbox", 60, seed=22)
    procs = []
    for name, mbox in (("laptop", a), ("desktop", b)):
        env = dict(os.environ, **server_env, KITH_HOME=str(tmp_path / name), PYTHONPATH=str(ROOT))
        procs.append(subprocess.Popen([sys.executable, "-c", DEVICE, str(mbox)], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err[-3000:]
        assert out.split() == ["60", "0"], (out, err[-2000:])
    laptop = Container(Settings.load(tmp_path / "laptop"))
    desktop = Container(Settings.load(tmp_path / "desktop"))
    try:
        with laptop.db.engine.connect() as conn:
            one = lambda q: conn.exec_driver_sql(q).scalar()  # noqa: E731
            assert one("SELECT count(*) FROM record") == 120
            assert one("SELECT count(DISTINCT content_hash) FROM record") == 120
            assert one("SELECT count(*) FROM episode") == 120
            assert one("SELECT count(DISTINCT signature_row) FROM episode") == 120
            assert one("SELECT max(signature_row) FROM episode") == 119
            assert one("SELECT count(*) FROM hdc_row") == 240
        assert laptop.vectors.count("records") == 120
        for c in (laptop, desktop):
            report = diagnose(c)
            assert report.ok, report.to_json()
        # each device finds what the other imported (by words and by meaning)
        with desktop.db.engine.connect() as conn:
            subject = conn.exec_driver_sql("SELECT r.subject FROM record r JOIN source s ON s.id = r.source_id "
                                           "WHERE s.path LIKE '%a.mbox' ORDER BY r.id LIMIT 1").scalar()
        hits = ask(desktop, subject, k=5, min_relevance=0)
        assert any(h.source.endswith("a.mbox") and h.subject == subject for h in hits), (subject, hits)
    finally:
        laptop.close()
        desktop.close()


def test_forget_cascades_across_the_servers(server_env, tmp_path):
    c = Container(Settings.load(tmp_path / "device"))
    other = None
    try:
        c.settings.owner_emails = ["owner@example.net"]
        c.settings.owner_name = "Owner Person"
        mail = write_mbox(tmp_path / "kitchen.mbox", [
            ("Alice Example <alice@example.com>", "Sourdough starter", "Feed the quillfeather starter twice a day."),
            ("Bob Stone <bob@example.org>", "Climbing", "Shall we go climbing on Saturday morning?"),
            ("Alice Example <alice@example.com>", "Rye flour", "Rye flour makes the starter bubble."),
            ("Owner Person <owner@example.net>", "Bob Stone <bob@example.org>", "Printer",
             "Remember that Alice Example fixed the printing last week."),
        ])
        assert ingest(c, [mail]).records_added == 4
        other = Container(Settings.load(tmp_path / "other-device"))  # a second device, its own signature cache
        assert ask(other, "quillfeather starter", k=3)[0].sender == "Alice Example"
        n_vectors = c.vectors.count("records")
        rep = forget(c, "Alice Example", purge=True)
        assert rep.state == "purged"
        assert c.vectors.count("records") == n_vectors - 2
        for dev in (c, other):
            assert not [h for h in ask(dev, "quillfeather starter sourdough", k=5, min_relevance=0)
                        if "quillfeather" in h.text or h.sender == "Alice Example"]
            assert ask(dev, "who fixed the printing", k=1)[0].text.endswith("[forgotten] fixed the printing last week.")
            assert "Alice Example" not in {e.name for e in list_entities(dev)}
            assert diagnose(dev).ok, diagnose(dev).to_json()
        # no table of the server database holds her name, address or phrase any more (VACUUM FULL ran)
        with c.db.engine.connect() as conn:
            tables = [r[0] for r in conn.exec_driver_sql(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")]
            for t in tables:
                blob = json.dumps([list(map(str, r)) for r in conn.exec_driver_sql(f'SELECT * FROM "{t}"')])
                for needle in ("Alice Example", "alice@example.com", "quillfeather"):
                    assert needle not in blob, (t, needle)
            # her signature rows are gone from the database (compacted), and each device's cache follows it
            assert conn.exec_driver_sql("SELECT count(*) FROM hdc_row WHERE kind = 0").scalar() == 2
        archive = tmp_path / "after.zip"
        export_archive(other, archive)
        import zipfile

        with zipfile.ZipFile(archive) as zf:
            assert not any(b"quillfeather" in zf.read(n) or b"Alice Example" in zf.read(n) for n in zf.namelist())
    finally:
        c.close()
        if other is not None:
            other.close()


def test_a_pooled_connection_dropped_while_idle_is_replaced(pg_server, monkeypatch):
    """No ping per checkout (a round trip per ``ask`` connection); a connection idle past
    ``PING_AFTER_IDLE_S`` is pinged, and one the server dropped meanwhile is replaced, not handed out."""
    import core.store.db as dbmod
    from sqlalchemy import text

    url = pg_server.create_db("idle")
    db = dbmod.Database(url)
    try:
        with db.engine.connect() as conn:
            pid = conn.execute(text("SELECT pg_backend_pid()")).scalar()
        # used a moment ago: handed out as it is (same backend, no ping)
        monkeypatch.setattr(dbmod, "PING_AFTER_IDLE_S", 3600.0)
        with db.engine.connect() as conn:
            assert conn.execute(text("SELECT pg_backend_pid()")).scalar() == pid
        # the server drops it while it sits in the pool
        import psycopg

        with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        monkeypatch.setattr(dbmod, "PING_AFTER_IDLE_S", 0.0)
        with db.engine.connect() as conn:
            new = conn.execute(text("SELECT pg_backend_pid()")).scalar()
        assert new != pid and new is not None
    finally:
        db.engine.dispose()
        pg_server.drop_db(url)


def test_the_chat_on_servers_answers_keeps_and_learns_as_embedded(server_env, tmp_path):
    """``kith chat``'s loop on a server setup (the personalization ledger on PostgreSQL, issue 16): the same
    memory answers as on an embedded folder, the conversation kept, each owner turn learned into the ledger
    (its messages and signals), and the brief read back from it — on both setups alike."""
    from app.loop import ConversationLoop
    from app.models.llm import NoModel
    from app.operations.conversations import history, list_conversations, open_conversation
    from app.personal import personal_service

    mail = write_mbox(tmp_path / "garden.mbox", [
        ("Alice Example <alice@example.com>", "Sourdough", "Feed the quillfeather starter twice a day."),
        ("Bob Stone <bob@example.org>", "Climbing", "Shall we go climbing at Fontainebleau on Saturday?"),
        ("Alice Example <alice@example.com>", "Rye", "Rye flour makes the quillfeather starter bubble."),
    ])
    turns = ["the quillfeather starter", "where shall we go climbing?", "what makes the starter bubble?",
             "thanks, and who is Bob Stone?", "ok"]
    got = {}
    for name, env in (("embedded", None), ("server", server_env)):
        home = tmp_path / name
        c = (Container(Settings.load(home), database=f"sqlite:///{home / 'kith.sqlite3'}", vectors="")
             if env is None else Container(Settings.load(home)))
        try:
            assert c.db.server == (env is not None)
            c.settings.owner_emails, c.settings.owner_name = ["owner@example.net"], "Owner Person"
            assert ingest(c, [mail]).records_added == 3
            loop = ConversationLoop.for_container(c, model=NoModel(), observations_every=5)
            results = [loop.turn(t) for t in turns]
            assert not [w for r in results for w in r.warnings]
            replies = [r.reply for r in results]
            c.writer.run(lambda: None)  # what the turns queued to the writer is written
            svc = personal_service(c)
            owner = svc.owner_id()
            kept = list_conversations(c)
            conv = open_conversation(c, kept[0].id)
            n_messages = svc.ledger.conn.execute("SELECT count(*) FROM message WHERE person_id = ?",
                                                 (owner,)).fetchone()[0]
            n_signals = svc.ledger.conn.execute("SELECT count(*) FROM signal WHERE owner = ?", (owner,)).fetchone()[0]
            got[name] = (replies, len(kept), [m["role"] for m in history(conv)], n_messages, n_signals > 0,
                         svc.system_prompt(owner, "climbing"))
        finally:
            c.close()
    for a, b in zip(got["server"], got["embedded"]):
        assert a == b, (a, b)
    replies, n_conv, roles, n_messages, learned, _brief = got["server"]
    assert "quillfeather starter twice a day" in replies[0] and "Fontainebleau" in replies[1]
    assert "Rye flour" in replies[2]
    assert n_conv == 1 and roles == ["user", "assistant"] * len(turns)
    assert n_messages >= len(turns) and learned

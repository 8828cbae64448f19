"""Forget means gone (issue 11), on the real corpus: ../shared/corpus/messages/chats and ../shared/corpus/mbox,
imported, summarised and consolidated once per module; each test works on a copy of that data folder.

Who is forgotten: a chat participant (John-John Doe, WhatsApp; his line "Lorem ipsum : dolor sit amet." is
his alone) and a mail sender (Steve Sapovits <SapovitsS@globalsportsinc.com>, who wrote "I'm an engineer --
not an image expert" — a phrase Bill Radcliffe's replies quote back, three levels deep).
"""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from app.cli import main

pytestmark = [pytest.mark.corpus, pytest.mark.slow]

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
CHAT, CHAT_PHRASE = "John-John Doe", "Lorem ipsum : dolor sit amet"
MAIL, MAIL_PHRASE = "Steve Sapovits", "not an image expert"
PEOPLE = {CHAT: CHAT_PHRASE, MAIL: MAIL_PHRASE}


def run(*args: str, ok: bool = True):
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output
    return result


def run_json(*args: str) -> dict:
    return json.loads(run(*args, "--json").stdout)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> Path:
    """A data folder with the chats and the mail imported, summarised and consolidated."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus not present (it exists only in the dev workspace and CI)")
    home = tmp_path_factory.mktemp("forget-corpus") / "home"
    mp = pytest.MonkeyPatch()
    mp.setenv("KITH_HOME", str(home))
    try:
        rep = run_json("ingest", str(CORPUS / "messages" / "chats"), str(CORPUS / "mbox"))
        assert rep["records_added"] >= 60 and not rep["errors"]
        run("summarize")
        run("consolidate")
    finally:
        mp.undo()
    return home


@pytest.fixture
def home(prepared, tmp_path, monkeypatch) -> Path:
    h = tmp_path / "home"
    shutil.copytree(prepared, h)
    monkeypatch.setenv("KITH_HOME", str(h))
    return h


@pytest.fixture
def c(home):
    from app.container import Container

    c = Container()
    yield c
    c.close()


def needles(c, name: str) -> list[str]:
    """The person's name, every alias value (emails, phone numbers, names) and their distinctive phrase."""
    from core.store.schema import Alias, Entity
    from sqlmodel import select

    with c.db.session() as s:
        e = s.exec(select(Entity).where(Entity.canonical_name == name)).one()
        aliases = [a.value for a in s.exec(select(Alias).where(Alias.entity_id == e.id)).all()]
    return list(dict.fromkeys([name, *aliases, PEOPLE[name]]))


def scan(home: Path, words) -> dict[str, dict[str, int]]:
    """word → {file under the data folder: occurrences}, UTF-8 and UTF-16 (LE and BE), ignoring ASCII case."""
    out: dict[str, dict[str, int]] = {}
    for root, _dirs, files in os.walk(home):
        for f in files:
            p = Path(root) / f
            low = p.read_bytes().lower()
            for w in words:
                n = sum(low.count(w.lower().encode(enc)) for enc in ("utf-8", "utf-16-le", "utf-16-be"))
                if n:
                    out.setdefault(w, {})[str(p.relative_to(home))] = n
    return out


def scan_bytes(home: Path, blobs: dict[str, bytes]) -> dict[str, list[str]]:
    """label → files under the data folder that contain those exact bytes."""
    out: dict[str, list[str]] = {}
    for root, _dirs, files in os.walk(home):
        for f in files:
            data = (Path(root) / f).read_bytes()
            for label, b in blobs.items():
                if b in data:
                    out.setdefault(label, []).append(f)
    return out


def their_bytes(c, name: str) -> dict[str, bytes]:
    """The float32 bytes of the vectors of the person's own messages — as Chroma's log stored them, as
    Chroma returns them and unit-normalised as its HNSW index keeps them (the first 8 floats: 32 bytes)
    — and the HDC signatures (structured and gist) of their episodes."""
    from app.memory import service
    from core.store.collections import RECORDS, record_vid

    raw = sqlite3.connect(str(c.settings.db_path))
    rids = [r for (r,) in raw.execute("SELECT r.id FROM record r JOIN entity e ON e.id = r.sender_entity_id "
                                      "WHERE e.canonical_name = ?", (name,))]
    rows = [(e, g) for e, g in raw.execute(f"SELECT signature_row, gist_row FROM episode WHERE record_id IN "
                                           f"({','.join('?' * len(rids))})", rids)]
    raw.close()
    log = sqlite3.connect(str(c.settings.chroma_path / "chroma.sqlite3"))
    out = {}
    for vid, vec, _m in c.vectors.get(RECORDS, [record_vid(r) for r in rids]):
        stored = log.execute("SELECT vector FROM embeddings_queue WHERE id = ?", (vid,)).fetchone()
        if stored is not None:
            out[f"{vid} stored"] = bytes(stored[0][:32])
        out[f"{vid} returned"] = vec.astype("<f4")[:8].tobytes()
        out[f"{vid} unit"] = (vec / np.linalg.norm(vec)).astype("<f4")[:8].tobytes()
    log.close()
    mem = service(c).mem
    for i, (r, g) in enumerate(rows):
        out[f"{name} signature {i}"] = mem.structured.get(r).tobytes()
        out[f"{name} gist {i}"] = mem.gists.get(g).tobytes()
    assert rids and rows, f"{name} has no messages in the corpus import"
    return out


def in_hnsw_index(home: Path, head: bytes) -> list[str]:
    """The HNSW index files holding a vector whose first floats are ``head`` (float32 little-endian), to 1e-5: hnswlib
    stores a cosine space's vectors normalised by its own arithmetic, so the last bits may differ from numpy's.
    Layout as in ``VectorStore.scrub_index_files``: header.bin gives the slot size and the neighbour list's size;
    the vector follows the list."""
    import struct

    want = np.frombuffer(head, dtype="<f4")
    out = []
    for data in sorted((home / "chroma").glob("*/data_level0.bin")):
        h = (data.parent / "header.bin").read_bytes()
        _off0, _cap, used, per, _label, links0 = struct.unpack_from("<6Q", h, 4)
        slots = np.frombuffer(data.read_bytes(), dtype=np.uint8)[: used * per].reshape(used, per)
        vecs = slots[:, links0:links0 + 4 * len(want)].copy().view("<f4")
        if len(vecs) and np.abs(vecs - want).max(axis=1).min() < 1e-5:
            out.append(str(data))
    return out


# ---- purge: 0 bytes -----------------------------------------------------------------------------------

def test_purge_erases_the_people_from_every_file(home, c):
    words = needles(c, CHAT) + needles(c, MAIL)
    assert "SapovitsS@globalsportsinc.com" in words
    blobs = {**their_bytes(c, CHAT), **their_bytes(c, MAIL)}
    c.close()
    before = scan(home, words)
    assert set(before) == set(words), f"not found before the forget: {set(words) - set(before)}"
    before_bytes = scan_bytes(home, blobs)
    files = {f for hits in before.values() for f in hits} | {f for fs in before_bytes.values() for f in fs}
    assert {"kith.sqlite3", "signatures.dat", "gists.dat"} <= {Path(f).name for f in files}
    # each vector on disk: in Chroma's log (chroma.sqlite3) until the writer saves the HNSW index, then in the
    # index (data_level0.bin, unit length: cosine space) — Kith's writer saves it on each write (vectors.HNSW)
    missing = [k for k in blobs if not k.endswith((" returned", " unit", " stored")) and k not in before_bytes]
    vids = {k.rsplit(" ", 1)[0] for k in blobs if k.endswith(" unit")}
    missing += [v for v in vids if f"{v} stored" not in before_bytes and f"{v} unit" not in before_bytes
                and not in_hnsw_index(home, blobs[f"{v} unit"])]
    assert not missing, f"their vectors/signatures were not on disk: {missing}"
    assert vids and all(f"{v} stored" in before_bytes or in_hnsw_index(home, blobs[f"{v} unit"]) for v in vids)

    for name in (CHAT, MAIL):
        report = run_json("forget", name, "--purge", "--yes")
        assert report["state"] == "purged" and report["purged"]["files"]["signature_rows_dropped"] >= 1

    assert scan(home, words) == {}
    assert scan_bytes(home, blobs) == {}
    assert {v: in_hnsw_index(home, blobs[f"{v} unit"]) for v in vids} == {v: [] for v in vids}
    # nothing left waiting either: no stash, no -wal frames, no orphan Chroma segment
    raw = sqlite3.connect(str(home / "kith.sqlite3"))
    assert raw.execute("SELECT count(*) FROM forget_stash").fetchone() == (0,)
    assert raw.execute("SELECT count(*) FROM forget_op WHERE state = 'purged'").fetchone() == (2,)
    raw.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, 'record_fts', 'row')")
    terms = {t for (t,) in raw.execute("SELECT term FROM temp.vocab")}
    raw.close()
    assert "sapovits" not in terms and "sapovitss" not in terms
    assert "bill" in terms  # the rest of the index is there


# ---- hide: nothing in any output; restore: exactly what was there -------------------------------------

SKIP_DUMP = {"learningevent", "auditevent", "beliefrevision", "selfvectorsnapshot", "tombstone", "forget_op",
             "forget_stash", "attentiontrace", "signaturecompaction"}


def dump(c) -> dict:
    """Every table's rows (FTS5 tables by rowid), each episode's signature bytes and every Chroma vector."""
    from app.memory import service
    from core.store.collections import FACTS, RECORDS

    raw = sqlite3.connect(str(c.settings.db_path))
    out: dict = {}
    for (t,) in raw.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"):
        if t in SKIP_DUMP or t.startswith(("record_fts_", "observation_fts_", "episode_lex_")):
            continue
        cols = "rowid, *" if t in ("record_fts", "observation_fts", "episode_lex") else "*"
        out[t] = sorted(map(repr, raw.execute(f'SELECT {cols} FROM "{t}"').fetchall()))
    out["learningevent"] = raw.execute("SELECT * FROM learningevent ORDER BY id").fetchall()
    mem = service(c).mem
    out["signatures"] = {e: (mem.structured.get(r).tobytes(), mem.gists.get(g).tobytes()) for e, r, g in raw.execute(
        "SELECT id, signature_row, gist_row FROM episode WHERE signature_row IS NOT NULL")}
    raw.close()
    for name in (RECORDS, FACTS):
        got = c.vectors.collection(name).get(include=["embeddings", "metadatas"])
        out[name] = {i: (np.asarray(e, np.float32), m) for i, e, m in zip(got["ids"], got["embeddings"], got["metadatas"])}
    return out


def assert_same(before: dict, after: dict) -> None:
    from core.store.collections import FACTS, RECORDS

    for k in before:
        if k in (RECORDS, FACTS):
            assert set(before[k]) == set(after[k]), k
            for i, (v, m) in before[k].items():
                assert after[k][i][1] == m and np.allclose(after[k][i][0], v, atol=1e-6), (k, i)
        elif k == "learningevent":  # append-only: the forget and the restore add their own entries
            assert after[k][:len(before[k])] == before[k]
        else:
            assert after[k] == before[k], k


def outputs(others: list[str]) -> str:
    """What a person can see: the CLI's answers and listings, and the data of the window's views
    (People & Places profile page, Memory tab), read through a fresh Container."""
    from ui.memory_tab import load_memory
    from ui.profile import load_profile

    from app.container import Container
    from app.operations.ask import ask
    from app.operations.entities import find_entity
    from app.operations.graph import search
    from app.personal import personal_service

    texts = [run("ask", q, "--k", "20", "--all", "--json").stdout for q in (MAIL_PHRASE, CHAT_PHRASE)]
    texts.append(run("search", MAIL, "--k", "20", "--json").stdout)
    for cmd in (["entities"], ["map"], ["learned"], ["review", "all"], ["profile", others[0]]):
        texts.append(run(*cmd, "--json").stdout)
    c = Container()
    try:
        for q in (MAIL, CHAT, "Transparency question fringe pixels", "Lorem ipsum dolor"):
            texts.append(repr(ask(c, q, 20)))
            texts.append(repr(search(c, q, k=20)))
        for who in others:
            e = find_entity(c, who)
            texts.append(repr(load_profile(c, e.id)))
            texts.append(repr(personal_service(c).brief(e.id)))
        texts.append(repr(load_memory(c, None)))
    finally:
        c.close()
    return "\n".join(texts)


OTHERS = ["Bill Radcliffe", "ImageMagick Mailing List", "John Doe", "Jahn Doe"]


def test_forgotten_people_vanish_from_every_output_and_restore_brings_back_exactly_what_was_there(home, c):
    words = needles(c, CHAT) + needles(c, MAIL)
    shown_before = outputs(OTHERS)
    assert all(w.casefold() in shown_before.casefold() for w in (CHAT, MAIL, MAIL_PHRASE))
    before = dump(c)
    reports = [run_json("forget", name, "--yes") for name in (CHAT, MAIL)]
    assert {r["state"] for r in reports} == {"hidden"}

    shown = outputs(OTHERS).casefold()
    assert [w for w in words if w.casefold() in shown] == []
    for name in (CHAT, MAIL):
        r = run("profile", name, ok=False)
        assert r.exit_code == 1 and "no entity named" in r.output
    assert "[forgotten]" in shown  # Bill's replies to Steve keep their place, the mention redacted
    raw = sqlite3.connect(str(home / "kith.sqlite3"))
    summaries = " ".join(t for (t,) in raw.execute("SELECT text FROM summary")).casefold()
    raw.close()
    assert [w for w in words if w.casefold() in summaries] == []

    listed = run_json("restore")["forgotten"]
    assert {i["label"] for i in listed} == {f"{CHAT} (person)", f"{MAIL} (person)"}
    for r in reversed(reports):
        assert run_json("restore", str(r["forget_id"]))["state"] == "restored"
    from app.container import Container

    c2 = Container()  # a fresh view of every store
    try:
        assert_same(before, dump(c2))
    finally:
        c2.close()


def test_summaries_that_named_the_person_are_rewritten_without_the_name(home, c):
    raw = sqlite3.connect(str(home / "kith.sqlite3"))
    named = {(k, s) for k, s in raw.execute("SELECT kind, subject FROM summary WHERE text LIKE '%Steve Sapovits%'")}
    bill = str(raw.execute("SELECT id FROM entity WHERE canonical_name = 'Bill Radcliffe'").fetchone()[0])
    raw.close()
    assert ("domain", "relationships") in named and ("entity", bill) in named  # Bill "wrote to Steve Sapovits"
    plan = run_json("forget", MAIL, "--dry-run")
    assert plan["counts"]["summaries"]["removed"] >= 1 and plan["counts"]["summaries"]["regenerated"] >= 3
    run("forget", MAIL, "--yes")
    raw = sqlite3.connect(str(home / "kith.sqlite3"))
    rows = {(k, s): t for k, s, t in raw.execute("SELECT kind, subject, text FROM summary")}
    raw.close()
    for key in named:
        if key[0] == "entity" and key[1] == str(plan["entity_id"]):
            assert key not in rows  # his own profile summary is gone
        else:
            assert key in rows and "sapovits" not in rows[key].casefold(), key
    # what was not about him stays (the mailing list is a group since issue 13, so no "wrote to" it)
    bill_text = rows[("entity", bill)]  # the summary written without a model is prose (core/graph/summaries.entity_prose)
    assert bill_text.startswith("Bill Radcliffe (person).") and "Writes from billr@corbis.com." in bill_text
    run("summarize")  # regenerating every summary after a forget raises nothing and brings nobody back
    raw = sqlite3.connect(str(home / "kith.sqlite3"))
    text = " ".join(t for (t,) in raw.execute("SELECT text FROM summary")).casefold()
    raw.close()
    assert "sapovits" not in text and "bill radcliffe" in text


# ---- other people untouched ------------------------------------------------------------------------

def _state(c):
    from app.memory import service

    raw = sqlite3.connect(str(c.settings.db_path))
    mem = service(c).mem
    eps = {e: (t, mem.structured.get(r).tobytes(), mem.gists.get(g).tobytes())
           for e, t, r, g in raw.execute("SELECT id, text, signature_row, gist_row FROM episode")}
    facts = {f[0]: f for f in raw.execute("SELECT * FROM fact")}
    links = {}
    for f, e, role in raw.execute("SELECT fact_id, entity_id, role FROM factentity"):
        links.setdefault(f, set()).add((e, role))
    raw.close()
    return eps, facts, links


def test_forgetting_a_person_changes_nobody_elses_episodes_signatures_or_facts(home, c):
    eps0, facts0, links0 = _state(c)
    plan = run_json("forget", MAIL, "--dry-run")
    mail_id = plan["entity_id"]
    report = run_json("forget", MAIL, "--yes", "--purge")
    raw = sqlite3.connect(str(home / "kith.sqlite3"))
    stats = raw.execute("SELECT counts FROM forget_op").fetchone()
    raw.close()
    assert json.loads(stats[0])["graph"] == report["counts"]["graph"]
    from app.container import Container

    c2 = Container()
    try:
        eps1, facts1, _ = _state(c2)
    finally:
        c2.close()
    gone = set(eps0) - set(eps1)
    assert len(gone) == report["counts"]["memory"]["episodes"] == 2
    changed = [e for e in eps1 if eps1[e] != eps0[e]]
    assert len(changed) == report["counts"]["memory"]["episodes_redacted"] == 3  # Bill's replies: mention redacted
    for e in changed:
        assert "[forgotten" in eps1[e][0] and "sapovits" not in eps1[e][0].casefold()
    removed = set(facts0) - set(facts1)
    assert len(removed) == report["counts"]["graph"]["facts"]
    for f in removed:  # each was about him, or had him as its object
        assert facts0[f][1] == mail_id or any(e == mail_id for e, _ in links0.get(f, ())), facts0[f]
    assert any(facts0[f][1] != mail_id for f in removed)  # "Bill Radcliffe wrote to Steve Sapovits" went too
    assert all(facts1[f] == facts0[f] for f in facts1)  # every other fact exactly as it was


# ---- the dry run's counts are the forget's --------------------------------------------------------

def test_dry_run_counts_equal_what_the_forget_then_removes(home):
    for name, extra in ((MAIL, ()), (CHAT, ("--remove-mentions",))):
        plan = run_json("forget", name, "--dry-run", *extra)
        report = run_json("forget", name, "--yes", *extra)
        assert report["counts"] == plan["counts"], name
        assert plan["counts"]["graph"]["records"] >= 1 and plan["counts"]["vectors"]["records"] >= 1
    assert plan["counts"]["memory"]["episodes"] == report["counts"]["memory"]["episodes"] >= 1

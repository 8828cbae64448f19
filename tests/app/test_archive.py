"""`kith export` / `kith import-archive` (issue 16): the whole memory as one portable, versioned file.

Importing an export into an empty data folder gives the same entities, facts, ledger and `ask` results;
a forgotten person is in no byte of an export made after the forget; a corrupt archive, one from a newer
Kith, or a non-empty target is refused with a clear error and nothing is written."""
from __future__ import annotations

import json
import sys
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlmodel import SQLModel

from app.container import Container
from app.operations.archive import SKIP_TABLES, export_archive, import_archive
from app.operations.ask import ask
from app.operations.doctor import diagnose
from app.operations.entities import list_entities
from app.operations.forget import forget
from app.operations.ingest import ingest
from app.settings import Settings
from core.errors import KithError
from core.store.archive import ArchiveError
from helpers.mboxes import write_mbox

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from synth import write_mbox as synth_mbox  # noqa: E402

QUESTIONS = ["sourdough starter", "who fixed the printing", "climbing on Saturday", "the Lisbon trip",
             "a ferry ticket", "when is the dentist?", "budget spreadsheet"]


def _container(home: Path) -> Container:
    return Container(Settings.load(home))


@pytest.fixture
def source(tmp_path):
    """A data folder with mail the test writes (Alice, Bob, Dana, the owner) and a generated mbox."""
    home = tmp_path / "source"
    c = _container(home)
    c.settings.owner_emails = ["owner@example.net"]
    c.settings.owner_name = "Owner Person"
    c.settings.save()
    a = write_mbox(tmp_path / "kitchen.mbox", [
        ("Alice Example <alice@example.com>", "Sourdough starter", "Feed the sourdough starter twice a day."),
        ("Bob Stone <bob@example.org>", "Climbing", "Shall we go climbing on Saturday morning?"),
        ("Alice Example <alice@example.com>", "Rye flour", "Rye flour makes the quillfeather starter bubble."),
        ("Owner Person <owner@example.net>", "Bob Stone <bob@example.org>", "Printer",
         "Remember that Alice Example fixed the printing last week."),
    ])
    b = synth_mbox(tmp_path / "synth.mbox", 40, seed=5)
    rep = ingest(c, [a, b])
    assert rep.records_added == 44 and not rep.errors
    yield c
    c.close()


def _rows(c: Container) -> dict[str, list[tuple]]:
    """Every row of every table an archive carries, as Python values, ordered."""
    out = {}
    with c.db.engine.connect() as conn:
        for t in SQLModel.metadata.sorted_tables:
            if t.name in SKIP_TABLES:
                continue
            rows = conn.execute(select(t)).all()
            out[t.name] = sorted((tuple(repr(v) for v in r) for r in rows))
    return out


def _answers(c: Container) -> dict[str, list]:
    return {q: [(h.kind, h.record_id, h.fact_id, h.text, round(h.relevance, 9)) for h in ask(c, q, k=5, min_relevance=0)]
            for q in QUESTIONS}


def test_import_of_an_export_reproduces_the_memory(source, tmp_path):
    arch = tmp_path / "memory.kith.zip"
    rep = export_archive(source, arch)
    man = rep.manifest
    assert man["format"] == "kith-archive" and man["format_version"] == 1
    assert man["counts"]["records"] == 44 and man["counts"]["episodes"] == 44
    assert man["counts"]["signatures"] == 44 and man["counts"]["record_vectors"] == 44
    assert man["counts"]["facts"] == man["counts"]["fact_vectors"] > 0
    assert "settings.json" in man["members"] and all(len(m["sha256"]) == 64 for m in man["members"].values())
    with zipfile.ZipFile(arch) as zf:  # the settings carry no path of this machine
        settings = json.loads(zf.read("settings.json"))
    assert "home" not in settings and settings["owner_name"] == "Owner Person"

    target = _container(tmp_path / "target")
    try:
        got = import_archive(target, arch)
        assert got.counts["record"] == 44 and got.counts["vectors.records"] == 44 and got.counts["signatures"] == 44
        assert _rows(target) == _rows(source)
        assert [e.to_json() for e in list_entities(target)] == [e.to_json() for e in list_entities(source)]
        answers = _answers(source)
        assert sum(len(v) for v in answers.values()) >= 30  # every question finds its top 5 (not vacuous)
        assert _answers(target) == answers
        for f in ("signatures.dat", "gists.dat"):
            assert (tmp_path / "target" / "memory" / f).read_bytes() == (tmp_path / "source" / "memory" / f).read_bytes()
        assert diagnose(target).ok
        assert Settings.load(tmp_path / "target").owner_name == "Owner Person"
        # an import into a folder that holds a memory is refused
        with pytest.raises(KithError, match="already holds a memory"):
            import_archive(target, arch)
    finally:
        target.close()


def _archive_text(path: Path) -> bytes:
    """Every member's uncompressed bytes, concatenated (what a grep of the unpacked archive sees)."""
    with zipfile.ZipFile(path) as zf:
        return b"".join(zf.read(n) for n in zf.namelist())


def test_a_forgotten_person_is_not_in_an_export_made_after_the_forget(source, tmp_path):
    needles = [b"Alice Example", b"alice@example.com", b"quillfeather"]
    export_archive(source, tmp_path / "before.zip")
    before = _archive_text(tmp_path / "before.zip")
    assert all(n in before for n in needles)
    forget(source, "Alice Example")  # hidden, still restorable: the stash keeps her, the export must not
    after_path = tmp_path / "after.zip"
    man = export_archive(source, after_path).manifest
    blob = _archive_text(after_path)
    for n in needles:
        assert n not in blob and n.decode("utf-8").encode("utf-16-le") not in blob, n
    assert man["counts"]["records"] == 42  # her two messages are gone; the owner's line stays, redacted
    target = _container(tmp_path / "target")
    try:
        import_archive(target, after_path)
        assert "Alice Example" not in {e.name for e in list_entities(target)}
        hits = ask(target, "who fixed the printing", k=3)
        assert hits and hits[0].text.endswith("Remember that [forgotten] fixed the printing last week.")
        assert diagnose(target).ok
    finally:
        target.close()


def _rewrite(src: Path, dst: Path, change) -> None:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info, change(info.filename, zin.read(info.filename)))


def test_a_corrupt_or_newer_archive_is_refused_and_nothing_is_written(source, tmp_path):
    arch = tmp_path / "m.zip"
    export_archive(source, arch)
    target_home = tmp_path / "target"
    target = _container(target_home)
    try:
        # one record's text changed, the manifest left as it was: the checksum names the member
        bad = tmp_path / "tampered.zip"
        _rewrite(arch, bad, lambda n, b: b.replace(b"sourdough", b"sourdouGH") if n == "tables/record.jsonl" else b)
        with pytest.raises(ArchiveError, match=r"corrupt archive: tables/record.jsonl does not match its checksum"):
            import_archive(target, bad)
        # bytes flipped inside the file (a bad disk, a truncated download)
        raw = bytearray(arch.read_bytes())
        info = zipfile.ZipFile(arch).getinfo("tables/record.jsonl")
        mid = info.header_offset + 30 + len(info.filename) + info.compress_size // 2
        raw[mid:mid + 8] = bytes(8)
        flipped = tmp_path / "flipped.zip"
        flipped.write_bytes(bytes(raw))
        with pytest.raises(ArchiveError, match="corrupt archive"):
            import_archive(target, flipped)
        # a newer format
        newer = tmp_path / "newer.zip"
        _rewrite(arch, newer, lambda n, b: json.dumps({**json.loads(b), "format_version": 99}).encode()
                 if n == "manifest.json" else b)
        with pytest.raises(ArchiveError, match=r"archive format v99 is newer than this Kith reads \(v1\)"):
            import_archive(target, newer)
        # not an archive at all
        junk = tmp_path / "junk.zip"
        junk.write_text("hello")
        with pytest.raises(ArchiveError, match="not a Kith archive"):
            import_archive(target, junk)
        with target.db.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM record").scalar() == 0
            assert conn.exec_driver_sql("SELECT count(*) FROM entity").scalar() == 0
        assert not (target_home / "memory" / "signatures.dat").exists() or \
            (target_home / "memory" / "signatures.dat").stat().st_size == 0
    finally:
        target.close()


def test_export_refuses_to_write_into_the_data_folder(source):
    with pytest.raises(KithError, match="outside the data folder"):
        export_archive(source, source.settings.home / "x.zip")


def test_cli_export_and_import(source, tmp_path, monkeypatch):
    import subprocess

    arch = tmp_path / "cli.kith.zip"
    env = {**__import__("os").environ, "KITH_HOME": str(source.settings.home), "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "app.cli", "export", str(arch), "--json"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["counts"]["records"] == 44
    env["KITH_HOME"] = str(tmp_path / "cli-target")
    out = subprocess.run([sys.executable, "-m", "app.cli", "import-archive", str(arch)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "records         44" in out.stdout
    out = subprocess.run([sys.executable, "-m", "app.cli", "import-archive", str(arch)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 1 and "already holds a memory" in out.stderr


def test_an_import_that_fails_midway_leaves_the_target_empty(source, tmp_path):
    """A row the database refuses (a duplicate id, checksums recomputed so the archive looks whole): nothing
    is kept — no row, no signature — and the same folder then takes a good archive."""
    import hashlib

    good = tmp_path / "good.zip"
    export_archive(source, good)
    bad = tmp_path / "dup.zip"
    with zipfile.ZipFile(good) as zin:
        members = {n: zin.read(n) for n in zin.namelist()}
    first = members["tables/entity.jsonl"].splitlines(keepends=True)[0]
    members["tables/entity.jsonl"] += first  # the same id twice
    man = json.loads(members["manifest.json"])
    body = members["tables/entity.jsonl"]
    man["members"]["tables/entity.jsonl"] = {"sha256": hashlib.sha256(body).hexdigest(), "bytes": len(body),
                                             "rows": man["members"]["tables/entity.jsonl"]["rows"] + 1}
    members["manifest.json"] = json.dumps(man).encode()
    with zipfile.ZipFile(bad, "w") as zout:
        for n, b in members.items():
            zout.writestr(n, b)
    home = tmp_path / "target"
    target = _container(home)
    try:
        with pytest.raises(Exception, match="(?i)unique|constraint"):
            import_archive(target, bad)
        with target.db.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM entity").scalar() == 0
        assert (home / "memory" / "signatures.dat").stat().st_size == 0
        assert import_archive(target, good).counts["record"] == 44
        assert diagnose(target).ok
    finally:
        target.close()


def test_a_superseded_fact_comes_back_superseded_by_its_later_fact(tmp_path):
    """A fact points at the later fact that replaced it (``superseded_by``: a higher id).  Imported in id order
    the first row referred to one not yet there ('FOREIGN KEY constraint failed': no archive with a move, a job
    change or a merge could be imported); it waits for its successor."""
    from core.store.schema import Fact

    src = _container(tmp_path / "src")
    try:
        box = write_mbox(tmp_path / "rosa.mbox", [
            ("Rosa Vidal <rosa@example.org>", "Hello", "I live in Berlin these days."),
            ("Rosa Vidal <rosa@example.org>", "News", "I moved to Madrid last week!")], step=timedelta(days=60))
        assert not ingest(src, [box]).errors
        with src.db.session() as s:
            homes = [(f.value, f.superseded_by is not None) for f in s.exec(select(Fact).where(
                Fact.category == "residence")).scalars()]
        assert sorted(homes) == [("Berlin", True), ("Madrid", False)]
        export_archive(src, tmp_path / "m.zip")
    finally:
        src.close()
    target = _container(tmp_path / "target")
    try:
        import_archive(target, tmp_path / "m.zip")
        with target.db.session() as s:
            facts = {f.id: f for f in s.exec(select(Fact).where(Fact.category == "residence")).scalars()}
        berlin = next(f for f in facts.values() if f.value == "Berlin")
        assert facts[berlin.superseded_by].value == "Madrid"
    finally:
        target.close()

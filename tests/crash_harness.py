"""Crash harness (issue #10): SIGKILL `kith ingest` at a random moment, import again, check nothing is lost or torn.

Run alone::

    python tests/crash_harness.py --n 2000 --runs 20

Each run starts from an empty data folder, starts ``kith ingest ARCHIVE`` (the real command, in a
subprocess), kills it with SIGKILL at a random moment within the clean import's duration, imports
the same archive again to completion, and checks the data folder against a clean import of the same
archive: the same number of records and the same content hashes, no duplicates, SQLite's
``integrity_check`` ok, and ``kith doctor``'s checks clean (Chroma ⇄ SQLite ⇄ FTS ⇄ signature files ⇄
ledger, and nothing pending).  It prints one line per run and a summary:
``runs N, kills K, clean after resume M/N``.  Exit status 0 only when every run was clean.

``tests/app/test_crash_harness.py`` runs 3 short runs of it in CI (`python tests/crash_harness.py --n 2000 --runs 20` for more).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class RunResult:
    """One kill-and-resume run: when it was killed, whether the kill landed mid-import, what the checks said."""

    run: int
    kill_after_s: float
    killed: bool
    records_before_resume: int
    problems: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.problems


def _env(home: Path) -> dict:
    env = dict(os.environ, KITH_HOME=str(home), PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.setdefault("ANONYMIZED_TELEMETRY", "False")
    env.setdefault("HF_HUB_OFFLINE", "1")
    return env


def _ingest_cmd(archive: Path) -> list[str]:
    return [sys.executable, "-m", "app.cli", "ingest", str(archive), "--json"]


def _hashes(home: Path) -> list[str]:
    db = home / "kith.sqlite3"
    if not db.exists():
        return []
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [r[0] for r in con.execute("SELECT content_hash FROM record ORDER BY content_hash")]
    except sqlite3.OperationalError:  # killed before the schema existed
        return []
    finally:
        con.close()


def _integrity(home: Path) -> str:
    con = sqlite3.connect(f"file:{home / 'kith.sqlite3'}?mode=ro", uri=True)
    try:
        return ";".join(r[0] for r in con.execute("PRAGMA integrity_check"))
    finally:
        con.close()


def _doctor(home: Path) -> dict:
    out = subprocess.run([sys.executable, "-m", "app.cli", "doctor", "--json"], env=_env(home),
                         capture_output=True, text=True, timeout=600)
    try:
        return json.loads(out.stdout)
    except ValueError:
        return {"ok": False, "errors": [out.stderr.strip()[-500:]]}


def _count(home: Path) -> int:
    try:
        con = sqlite3.connect(f"file:{home / 'kith.sqlite3'}?mode=ro", uri=True, timeout=1)
        try:
            return con.execute("SELECT count(*) FROM record").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def clean_import(archive: Path, work: Path) -> tuple[list[str], float, float]:
    """Import ``archive`` into a fresh folder; returns (sorted content hashes, seconds in all, seconds until
    the first batch was committed — the start-up the kills should mostly skip)."""
    home = work / "clean"
    t0 = time.monotonic()
    proc = subprocess.Popen(_ingest_cmd(archive), env=_env(home), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    first = None
    while proc.poll() is None:
        if first is None and _count(home) > 0:
            first = time.monotonic() - t0
        time.sleep(0.05)
    took = time.monotonic() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"the clean import failed: {proc.stderr.read().decode()[-500:]}")
    return _hashes(home), took, first if first is not None else 0.5 * took


def _resume_in_process(archive: Path, home: Path) -> tuple[int, str, dict]:
    """The second import and the doctor's check in this process (the same ``ingest``/``diagnose`` the
    commands run, without two more interpreter start-ups): (exit status, errors, doctor JSON)."""
    from app.container import Container
    from app.operations.doctor import diagnose
    from app.operations.ingest import ingest
    from app.settings import Settings

    c = Container(Settings.load(home), describe="crash harness")
    try:
        report = ingest(c, [archive])
        errors = "; ".join(f"{e.path}: {e.reason}" for e in report.errors)
        doc = diagnose(c).to_json()
    finally:
        c.close()
    return (0 if report.records_added + report.records_skipped else 1), errors, doc


def kill_and_resume(archive: Path, home: Path, kill_after: float, expected: list[str], run: int,
                    in_process: bool = False) -> RunResult:
    """One run: start the import, SIGKILL it after ``kill_after`` seconds, import again, check.

    ``in_process``: run the second import and the check in this process instead of as commands."""
    proc = subprocess.Popen(_ingest_cmd(archive), env=_env(home), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        proc.wait(timeout=kill_after)
        killed = False
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        killed = True
    before = len(_hashes(home))
    res = RunResult(run, round(kill_after, 2), killed, before)
    if in_process:
        rc, err, doc = _resume_in_process(archive, home)
        if err:
            res.problems.append(f"resume reported: {err[:300]}")
    else:
        again = subprocess.run(_ingest_cmd(archive), env=_env(home), capture_output=True, text=True, timeout=3600)
        rc = again.returncode
        doc = None
    if rc != 0:
        res.problems.append(f"resume exited {rc}")
    got = _hashes(home)
    if len(got) != len(expected):
        res.problems.append(f"{len(got)} records, clean import has {len(expected)}")
    if len(set(got)) != len(got):
        res.problems.append(f"{len(got) - len(set(got))} duplicate records")
    if sorted(set(got)) != expected:
        res.problems.append("content hashes differ from the clean import")
    integrity = _integrity(home)
    if integrity != "ok":
        res.problems.append(f"integrity_check: {integrity[:200]}")
    doc = doc if doc is not None else _doctor(home)
    if not doc.get("ok"):
        bad = {k: v.get("problems") for k, v in doc.get("checks", {}).items() if not v.get("ok")}
        res.problems.append(f"doctor: {bad or ''} pending {doc.get('pending')} {doc.get('errors', '')}".strip())
    return res


def run_harness(n: int = 2000, runs: int = 20, seed: int = 0, work: Path | None = None,
                echo=print, in_process: bool = False) -> list[RunResult]:
    """Generate an ``n``-message mbox and do ``runs`` kill-and-resume runs against a clean import of it
    (``in_process``: the second import and the check run in this process; the killed one never does)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from synth import write_mbox

    work = Path(work or tempfile.mkdtemp(prefix="kith-crash-"))
    work.mkdir(parents=True, exist_ok=True)
    archive = write_mbox(work / "archive.mbox", n, seed=seed)
    expected, took, first = clean_import(archive, work)
    echo(f"clean import: {len(expected)} records in {took:.1f} s, first batch committed after {first:.1f} s "
         f"({archive.stat().st_size:,} bytes of mbox)")
    rnd = random.Random(seed)
    results = []
    for i in range(runs):
        # mostly while batches are being written (after start-up), sometimes before the first commit
        kill_after = rnd.uniform(0.8 * first, took)
        r = kill_and_resume(archive, work / f"run{i}", kill_after, expected, i, in_process)
        results.append(r)
        echo(f"run {i:>2}: killed after {r.kill_after_s:6.2f} s ({r.records_before_resume:>5} records committed) "
             f"-> {'clean' if r.clean else 'PROBLEMS: ' + '; '.join(r.problems)}"
             + ("" if r.killed else "  (finished before the kill)"))
    kills = sum(r.killed for r in results)
    clean = sum(r.clean for r in results)
    echo(f"runs {len(results)}, kills {kills}, clean after resume {clean}/{len(results)}")
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=2000, help="messages in the generated mbox")
    ap.add_argument("--runs", type=int, default=20, help="kill-and-resume runs")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", type=Path, default=None, help="keep the data folders here")
    a = ap.parse_args(argv)
    results = run_harness(a.n, a.runs, a.seed, a.work)
    return 0 if all(r.clean for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())

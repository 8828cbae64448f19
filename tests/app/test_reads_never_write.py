"""Reads never write (issue #10): the read commands leave every file of the data folder as it was and
never wait for the writer lock."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from synth import write_mbox  # noqa: E402


def _env(home: Path) -> dict:
    return dict(os.environ, KITH_HOME=str(home), PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _snapshot(home: Path) -> dict[str, str]:
    """Every file's SHA-256, except SQLite's shared-memory index (``-shm``), which readers update by design,
    and Chroma's folder: Chroma's embedded client writes its own bookkeeping there when it opens and loads
    a collection, even to read (Kith takes turns at those files across processes: core.store.lock.FileGate)."""
    out = {}
    for p in sorted(home.rglob("*")):
        rel = p.relative_to(home)
        if rel.parts and rel.parts[0] == "chroma":
            continue
        if p.is_file() and not p.name.endswith("-shm"):
            out[str(p.relative_to(home))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def test_read_commands_write_nothing_and_do_not_wait_for_the_writer(tmp_path):
    home = tmp_path / "home"
    mbox = write_mbox(tmp_path / "m.mbox", 12, seed=11)
    env = _env(home)
    assert subprocess.run([sys.executable, "-m", "app.cli", "ingest", str(mbox)], env=env,
                          capture_output=True, timeout=600).returncode == 0
    before = _snapshot(home)
    holder = subprocess.Popen([sys.executable, "-c", (
        "import time; from core.store.lock import FolderLock; "
        f"l = FolderLock(r'{home}', describe='a long import'); h = l.hold(); h.__enter__(); "
        "print('held', flush=True); time.sleep(120)")], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        before = {k: v for k, v in before.items() if not k.startswith("kith.lock")}
        people = subprocess.run([sys.executable, "-m", "app.cli", "entities", "--json"], env=env,
                                capture_output=True, text=True, timeout=120)
        name = next(e["name"] for e in __import__("json").loads(people.stdout)["entities"] if e["kind"] == "person")
        for args in (["ask", "a ferry ticket"], ["ask", "when was I on the ferry?", "--all"],
                     ["search", "a ferry ticket"], ["entities"],
                     ["profile", name], ["brief", name], ["map"], ["learned"], ["doctor"], ["review"],
                     ["conversations", "--json"], ["conversations", "show"],
                     ["export", str(tmp_path / "export.kith.zip")]):
            t0 = time.monotonic()
            out = subprocess.run([sys.executable, "-m", "app.cli", "--wait", "0", *args], env=env,
                                 capture_output=True, text=True, timeout=120)
            assert out.returncode in (0, 1), (args, out.stderr)  # doctor exits 1 only if something is wrong
            assert "waiting" not in out.stderr and "gave up" not in out.stderr, (args, out.stderr)
            assert time.monotonic() - t0 < 60
        after = {k: v for k, v in _snapshot(home).items() if not k.startswith("kith.lock")}
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        assert changed == [], changed
    finally:
        holder.kill()
        holder.wait()

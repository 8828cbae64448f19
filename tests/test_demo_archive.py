"""The demo archive in resources/demo is what scripts/make_demo.py writes (made-up people, deterministic)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_resources_demo_is_the_generators_output(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_demo.py"), str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    made = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    shipped = {p.relative_to(ROOT / "resources" / "demo"): p.read_bytes()
               for p in (ROOT / "resources" / "demo").rglob("*") if p.is_file()}
    assert set(made) == set(shipped) and len(made) == 11
    assert all(made[k] == shipped[k] for k in made), "resources/demo is stale: run scripts/make_demo.py"


def test_demo_people_are_made_up_and_not_the_test_corpus():
    from app.operations.imports import demo_folder

    text = "\n".join(p.read_text(encoding="utf-8", errors="ignore") for p in demo_folder().rglob("*")
                     if p.suffix in (".mbox", ".txt", ".json"))
    # Every address is on a reserved example domain (RFC 2606).
    import re

    for addr in re.findall(r"[\w.+-]+@([\w.-]+)", text):
        assert addr.endswith(("example.net", "example.com", "example.org")), addr

"""benchmarks/resolution_bench.py runs end to end on a tiny address book (archives and contacts.vcf, then the
archives alone) and prints its comparison lines."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_resolution_bench_prints_kith_beside_both_baselines(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "resolution_bench.py"), "--people", "10",
                          "--seed", "3", "--per-person", "1", "--keep", str(tmp_path / "run")],
                         capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    text = out.stdout
    rows = dict(re.findall(r"^(baseline: one entity per exact display name|baseline: one entity per identifier|"
                           r"kith: final entities|kith without the address book)\s+precision (\d\.\d{3})", text, re.M))
    assert set(rows) == {"baseline: one entity per exact display name", "baseline: one entity per identifier",
                         "kith: final entities", "kith without the address book"}
    assert float(rows["baseline: one entity per identifier"]) == 1.0  # an identifier never names two people
    assert re.search(r"^kith F1 vs one entity per exact display name\s+(\d+\.\d\d×|n/a)", text, re.M)
    assert re.search(r"^kith F1 vs kith without the address book\s+(\d+\.\d\d×|n/a)", text, re.M)
    assert re.search(r"^contacts\.vcf: \d+ cards", text, re.M)
    assert re.search(r"^wrong merges: \d+$", text, re.M) and re.search(r"^wrong merges without the address book: \d+$",
                                                                       text, re.M)
    assert re.search(r"^kith ingest \(archives \+ contacts\.vcf\): \d+ records in .* 0 error\(s\)$", text, re.M)
    assert re.search(r"^kith ingest \(archives only\): \d+ records in .* 0 error\(s\)$", text, re.M)

"""benchmarks/ui_responsiveness.py runs end to end at a small size and prints its comparison lines."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ui_responsiveness_prints_idle_and_importing_stalls(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "ui_responsiveness.py"), "--n", "30",
                          "--idle-s", "0.5"], capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    text = out.stdout
    assert re.search(r"^idle \(no import\)\s+largest stall\s+\d+\.\d ms\s+p99\s+\d+\.\d ms", text, re.M)
    m = re.search(r"^importing \(worker\)\s+largest stall\s+\d+\.\d ms.*ingest \d+\.\d s, (\d+) records added", text,
                  re.M)
    assert m and int(m.group(1)) == 30
    assert re.search(r"^largest stall, importing vs idle: \d+\.\d×$", text, re.M)
    assert re.search(r"^goal largest stall <= 100 ms while importing: (met|NOT met)$", text, re.M)

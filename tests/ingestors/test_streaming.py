"""Readers stream: memory is bounded per message, whatever the file's size (issue 12, from issue 10).

Each case runs the reader in a fresh Python process and reads its peak resident memory
(``ru_maxrss``), so what the test process already holds does not count.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

MIB = 1 << 20
ROOT = Path(__file__).resolve().parents[2]


def _peak_rss_mib(code: str) -> tuple[float, list]:
    """Run ``code`` (which sets ``items``) in a subprocess; return its peak RSS in MiB and a summary of items."""
    script = (code + "\nimport json, resource\n"
              "print(json.dumps({'peak': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,"
              " 'items': [[type(i).__name__, getattr(i, 'reason', None) or getattr(i, 'subject', None)"
              " or getattr(i, 'text', '')[:40]] for i in items]}))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120,
                         check=True).stdout
    data = json.loads(out.strip().splitlines()[-1])
    return data["peak"], data["items"]


def test_mbox_envelope_then_200_mb_of_random_bytes_stays_bounded(tmp_path):
    path = tmp_path / "big.mbox"
    with open(path, "wb") as f:
        f.write(b"From a@example.com Mon Jan  1 10:00:00 2024\nFrom: A <a@example.com>\nSubject: big\n\n")
        for _ in range(200):
            f.write(os.urandom(MIB))
        f.write(b"\n\nFrom b@example.com Tue Jan  2 10:00:00 2024\nFrom: B <b@example.com>\nSubject: after\n\n"
                b"still read\n")
    peak, items = _peak_rss_mib(f"from ingestors.mbox import MboxIngestor\n"
                                f"items = list(MboxIngestor().read({str(path)!r}))")
    assert items[0][0] == "RecordError" and "over 64 MiB" in items[0][1]
    assert items[1] == ["Record", "after"]
    assert peak < 300, f"peak {peak:.0f} MiB (was 2.5 GB before streaming)"


def test_mbox_message_under_the_cap_with_a_binary_part_stays_bounded(tmp_path):
    path = tmp_path / "attach.mbox"
    with open(path, "wb") as f:
        f.write(b"From a@example.com Mon Jan  1 10:00:00 2024\nFrom: A <a@example.com>\nSubject: photo\n"
                b"Content-Type: multipart/mixed; boundary=zz\n\n--zz\nContent-Type: text/plain\n\nhere it is\n"
                b"--zz\nContent-Type: application/octet-stream\nContent-Transfer-Encoding: 8bit\n\n")
        for _ in range(40):
            f.write(os.urandom(MIB))
        f.write(b"\n--zz--\n")
    peak, items = _peak_rss_mib(f"from ingestors.mbox import MboxIngestor\n"
                                f"items = list(MboxIngestor().read({str(path)!r}))")
    assert items == [["Record", "photo"]]
    assert peak < 250, f"peak {peak:.0f} MiB for a 40 MiB message"

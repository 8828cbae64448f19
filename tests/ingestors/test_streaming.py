"""Readers stream: memory is bounded per message, whatever the file's size (issue 12, from issue 10).

Each case runs the reader in a fresh Python process and reads its peak resident memory
(``VmHWM`` from ``/proc/self/status``: unlike ``ru_maxrss``, it starts afresh at exec, so what
the test process already holds does not count).
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
    script = (code + "\nimport json, re, resource\n"
              "try:\n    peak = int(re.search(r'VmHWM:\\s*(\\d+)', open('/proc/self/status').read()).group(1))\n"
              "except OSError:\n    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
              "print(json.dumps({'peak': peak / 1024,"
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


def test_telegram_export_is_streamed(tmp_path):
    path = tmp_path / "result.json"
    filler = "x" * 1500
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"name": "Big", "type": "private_group", "id": 1, "messages": [\n')
        for i in range(25000):
            f.write(json.dumps({"id": i, "type": "message", "date_unixtime": str(1700000000 + i),
                                "from": f"P{i % 7}", "from_id": f"user{i % 7}", "text": f"{i} {filler}"}) + ",\n")
        f.write('{"id": -1, "type": "message", "date_unixtime": "1800000000", "from": "P0", "from_id": "user0",'
                ' "text": "the last one"}]}\n')
    assert path.stat().st_size > 35 * MIB
    peak, items = _peak_rss_mib(f"import collections\nfrom ingestors.telegram import TelegramIngestor\n"
                                f"items = collections.deque(TelegramIngestor().read({str(path)!r}), maxlen=1)")
    assert items == [["Record", "the last one"]]
    assert peak < 110, f"peak {peak:.0f} MiB for a {path.stat().st_size // MIB} MiB export"


def test_whatsapp_export_is_streamed(tmp_path):
    path = tmp_path / "chat.txt"
    with open(path, "w", encoding="utf-8") as f:
        for i in range(50000):
            f.write(f"{1 + i % 28:02d}/02/2024, 10:{i % 60:02d} - P{i % 5}: {i} " + "y" * 750 + "\n")
        f.write("29/02/2024, 11:00 - P0: the last one\n")
    assert path.stat().st_size > 35 * MIB
    peak, items = _peak_rss_mib(f"import collections\nfrom ingestors.whatsapp import WhatsAppIngestor\n"
                                f"items = collections.deque(WhatsAppIngestor().read({str(path)!r}), maxlen=1)")
    assert items == [["Record", "the last one"]]
    assert peak < 110, f"peak {peak:.0f} MiB for a {path.stat().st_size // MIB} MiB export"

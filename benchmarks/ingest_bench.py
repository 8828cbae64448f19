"""Ingest speed and memory (issue #10), each figure beside its baseline from the same run.

    python benchmarks/ingest_bench.py            # 10,000 generated messages (20 senders, ~50 words each)
    python benchmarks/ingest_bench.py --n 2000

Every Kith figure is the product's own path: ``kith ingest`` in a subprocess on a fresh data folder
(``--defer`` for "parse + resolve + store without embeddings").  Printed, one comparison per line:

* the standard library parsing the file alone (``mailbox`` + ``email``, policy.default) vs Kith's parse +
  resolve + store without embeddings — goal ≥ 0.25×;
* the encoder alone embedding each message's text once (the same all-MiniLM-L6-v2 forward pass Kith uses,
  batches of 64, model load included as in Kith) vs Kith's whole ingest end to end — goal ≥ 0.75×;
* peak memory of the whole ingest (the process's high-water mark) and its resident size at each quarter
  of the run — goal ≤ 1 GB at 10,000 messages, and flat;
* the same ingest with another process running ``ask`` in a loop beside it, and the writer lock's own
  overhead (seconds spent taking and releasing it) as a share of the import — goal ≤ 5 %.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from synth import write_mbox  # noqa: E402

READER = r"""
import os, sys, time, random
from app.container import Container
from app.operations.ask import ask
qs = ["kayak by the lighthouse", "invoice for the vineyard", "dinner at the harbour", "who booked the ferry",
      "marathon training schedule", "photos of the glacier", "the pottery workshop", "a ticket for the train"]
stop = sys.argv[1]
while not os.path.exists(os.path.join(os.environ["KITH_HOME"], "kith.sqlite3")):
    time.sleep(0.1)
c = Container(describe="benchmark reader")
n, lat = 0, []
while not os.path.exists(stop):
    t = time.perf_counter()
    try:
        ask(c, random.choice(qs), 5)
    except Exception as exc:
        print("ask failed:", exc, file=sys.stderr)
    lat.append(time.perf_counter() - t)
    n += 1
lat.sort()
print(n, lat[int(0.5 * len(lat))] if lat else 0, lat[int(0.95 * len(lat))] if lat else 0)
"""


def env_for(home: Path) -> dict:
    return dict(os.environ, KITH_HOME=str(home), PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def run_kith(home: Path, archive: Path, *extra: str) -> dict:
    """`kith ingest ARCHIVE --json` in a subprocess: wall seconds, its report, peak RSS (MB) and RSS samples."""
    cmd = [sys.executable, "-m", "app.cli", "ingest", str(archive), "--json", *extra]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env_for(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    samples: list[tuple[float, float]] = []

    def sample():
        while proc.poll() is None:
            r = rss_mb(proc.pid)
            if r is not None:
                samples.append((time.perf_counter() - t0, r))
            time.sleep(0.25)
    th = threading.Thread(target=sample, daemon=True)
    th.start()
    out, err = proc.communicate()
    _, status, usage = os.wait4(proc.pid, os.WNOHANG) if False else (None, proc.returncode, None)
    took = time.perf_counter() - t0
    th.join()
    if status != 0:
        raise SystemExit(f"kith ingest failed ({status}): {err[-2000:]}")
    peak = max((r for _, r in samples), default=0.0)
    return {"seconds": took, "report": json.loads(out), "peak_mb": peak, "samples": samples}


def stdlib_parse(archive: Path) -> tuple[int, float]:
    """The standard library reading every message (headers and body) of the mbox: (messages, seconds)."""
    import email.policy
    import mailbox

    t0 = time.perf_counter()
    n = 0
    box = mailbox.mbox(str(archive), factory=lambda f: email.message_from_binary_file(f, policy=email.policy.default),
                       create=False)
    for msg in box:
        msg["From"], msg["Date"], msg["Subject"]
        body = msg.get_body(preferencelist=("plain",))
        if body is not None:
            body.get_content()
        n += 1
    return n, time.perf_counter() - t0


def encoder_only(archive: Path) -> tuple[int, float]:
    """Kith's text encoder embedding each message's text once, batches of 64, model load included."""
    import email.policy
    import mailbox

    box = mailbox.mbox(str(archive), factory=lambda f: email.message_from_binary_file(f, policy=email.policy.default),
                       create=False)
    texts = []
    for msg in box:
        body = msg.get_body(preferencelist=("plain",))
        texts.append("\n".join(x for x in (str(msg["Subject"] or ""), body.get_content() if body else "") if x))
    t0 = time.perf_counter()
    from app.models.encoders import load_encoder

    enc = load_encoder("auto")
    for i in range(0, len(texts), 64):
        enc.encode(texts[i:i + 64])
    return len(texts), time.perf_counter() - t0


def quarters(samples: list[tuple[float, float]]) -> str:
    if not samples:
        return "n/a"
    end = samples[-1][0]
    out = []
    for q in (0.25, 0.5, 0.75, 1.0):
        t = q * end
        out.append(f"{min(samples, key=lambda s: abs(s[0] - t))[1]:.0f}")
    return " / ".join(out) + " MB"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="messages in the generated mbox")
    ap.add_argument("--senders", type=int, default=20)
    ap.add_argument("--words", type=int, default=50)
    ap.add_argument("--work", type=Path, default=None, help="keep the generated file and data folders here")
    ap.add_argument("--no-reader", action="store_true", help="skip the run with a reader beside it")
    a = ap.parse_args(argv)
    work = Path(a.work or tempfile.mkdtemp(prefix="kith-ingest-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    archive = write_mbox(work / "bench.mbox", a.n, senders=a.senders, words=a.words)
    print(f"ingest_bench: {a.n:,} messages from {a.senders} senders, ~{a.words} words each "
          f"({archive.stat().st_size / 1e6:.1f} MB mbox), {os.cpu_count()} CPU(s)")

    n, t = stdlib_parse(archive)
    parse_rate = n / t
    rows = run_kith(work / "defer", archive, "--defer")
    rows_rate = rows["report"]["records_added"] / rows["seconds"]
    print(f"baseline: stdlib parse alone                 {parse_rate:10.0f} msg/s  ({n} in {t:.2f} s)")
    print(f"kith parse + resolve + store (--defer)       {rows_rate:10.1f} msg/s  ({rows['seconds']:.1f} s)   "
          f"{rows_rate / parse_rate:.3f}× stdlib parse (goal ≥ 0.25×)")

    n, t = encoder_only(archive)
    enc_rate = n / t
    full = run_kith(work / "full", archive)
    full_rate = full["report"]["records_added"] / full["seconds"]
    print(f"baseline: encoder only, each text once       {enc_rate:10.1f} msg/s  ({n} in {t:.1f} s)")
    print(f"kith end-to-end                              {full_rate:10.1f} msg/s  ({full['seconds']:.1f} s)   "
          f"{full_rate / enc_rate:.2f}× encoder-only (goal ≥ 0.75×)")
    print(f"peak memory of the whole ingest              {full['peak_mb']:10.0f} MB     "
          f"{full['peak_mb'] / 1024:.2f}× the 1 GB goal; resident at each quarter of the run: {quarters(full['samples'])}")

    if not a.no_reader:
        home = work / "with-reader"
        stop = work / "stop-reader"
        reader = subprocess.Popen([sys.executable, "-c", READER, str(stop)], env=env_for(home),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        both = run_kith(home, archive)
        stop.touch()
        rout, rerr = reader.communicate(timeout=300)
        asks, p50, p95 = (rout.split() + ["0", "0", "0"])[:3]
        both_rate = both["report"]["records_added"] / both["seconds"]
        lock = both["report"].get("lock", {})
        share = lock.get("overhead_s", 0.0) / both["seconds"]
        print(f"kith end-to-end, `ask` in a loop beside it   {both_rate:10.1f} msg/s  ({both['seconds']:.1f} s)   "
              f"{both_rate / full_rate:.2f}× alone ({asks} asks beside it, p50 {float(p50) * 1000:.0f} ms, "
              f"p95 {float(p95) * 1000:.0f} ms; the reader shares the CPU, never the lock)")
        print(f"writer lock overhead with the reader beside  {lock.get('overhead_s', 0.0) * 1000:10.1f} ms     "
              f"{share * 100:.3f}% of the import ({lock.get('holds', 0)} hold(s), waited "
              f"{lock.get('waited_s', 0.0):.1f} s for other writers) (goal ≤ 5%)")
        if rerr.strip():
            print("reader stderr:", rerr.strip()[-500:])
    return 0


if __name__ == "__main__":
    sys.exit(main())

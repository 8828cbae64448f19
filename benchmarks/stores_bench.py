"""The embedded stores against the server stores, in one run (issue 16).

    python benchmarks/stores_bench.py                 # 5,000 generated messages, 200 asks
    python benchmarks/stores_bench.py --n 500 --asks 50
    python benchmarks/stores_bench.py --database-url postgresql+psycopg://kith@host:5432/empty_db \\
        --chroma-url http://host:8000                 # servers of your own (else it starts both on 127.0.0.1)

Every figure is the product's own path: ``kith ingest`` in a subprocess on a fresh data folder — once with
the embedded stores (SQLite + a Chroma folder, the default), once with ``KITH_DATABASE_URL`` /
``KITH_CHROMA_URL`` set to a PostgreSQL database and a Chroma server — then ``ask`` (what ``kith ask``
runs) for the same questions on each.  Without URLs it starts PostgreSQL (``initdb`` + ``pg_ctl`` from the
distribution's packages) and ``chroma run`` on 127.0.0.1, as the tests do, and stops them after.

Printed, one comparison per line, each with its ratio:
* ingest time, server against embedded — goal ≤ 2×;
* ``ask`` p95 latency over the questions (warm, after one untimed question), server against embedded —
  goal ≤ 1.5×; p50 beside it.  The questions are asked in ``--rounds`` rounds per setup, in alternating
  order (embedded first, then server first, …), and the latencies pooled, so that load which comes and goes
  on a shared machine falls on both alike.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))

from synth import WORDS, write_mbox  # noqa: E402

ASKER = r"""
import json, sys, time
from app.container import Container
from app.operations.ask import ask
qs = json.loads(sys.argv[1])
c = Container(describe="stores bench")
ask(c, "warm up the encoder", 5)
lat, hits = [], 0
for q in qs:
    t = time.perf_counter()
    hits += len(ask(c, q, 5, min_relevance=0))
    lat.append(time.perf_counter() - t)
c.close()
print(json.dumps({"lat": lat, "hits": hits}))
"""


def env_for(home: Path, servers: dict | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("KITH_DATABASE_URL", "KITH_CHROMA_URL")}
    env.update(KITH_HOME=str(home), PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if servers:
        env.update(servers)
    return env


def ingest(home: Path, archive: Path, servers: dict | None) -> tuple[float, dict]:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "app.cli", "ingest", str(archive), "--json"],
                         env=env_for(home, servers), capture_output=True, text=True)
    took = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"kith ingest failed ({out.returncode}): {out.stderr[-2000:]}")
    return took, json.loads(out.stdout)


def asks(home: Path, questions: list[str], servers: dict | None) -> dict:
    out = subprocess.run([sys.executable, "-c", ASKER, json.dumps(questions)], env=env_for(home, servers),
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"ask failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def questions(n: int, seed: int = 7) -> list[str]:
    rnd = random.Random(seed)
    shapes = ("{a} and the {b}", "who mentioned the {a}?", "the {a} {b} {c}", "when did we talk about the {a}",
              "{a}", "did anyone book the {a} for the {b}?")
    return [rnd.choice(shapes).format(a=rnd.choice(WORDS), b=rnd.choice(WORDS), c=rnd.choice(WORDS)) for _ in range(n)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=5000, help="messages in the generated mbox")
    ap.add_argument("--asks", type=int, default=200, help="questions asked of each setup")
    ap.add_argument("--database-url", default=None, help="an empty PostgreSQL database (else one is started)")
    ap.add_argument("--chroma-url", default=None, help="a Chroma server (else one is started)")
    ap.add_argument("--rounds", type=int, default=3, help="ask rounds per setup, in alternating order")
    args = ap.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="kith-stores-bench-"))
    archive = write_mbox(work / "bench.mbox", args.n, seed=16)
    qs = questions(args.asks)
    pg = chroma = None
    try:
        if args.database_url and args.chroma_url:
            servers = {"KITH_DATABASE_URL": args.database_url, "KITH_CHROMA_URL": args.chroma_url}
        else:
            from helpers.stores import ChromaServer, PostgresServer, missing_postgres

            why = missing_postgres()
            if why:
                raise SystemExit(f"stores_bench: {why}")
            pg, chroma = PostgresServer(), ChromaServer()
            servers = {"KITH_DATABASE_URL": pg.create_db("bench"), "KITH_CHROMA_URL": chroma.url}
        print(f"stores_bench: {args.n:,} messages ({archive.stat().st_size / 1e6:.1f} MB mbox), {len(qs)} asks, "
              f"{os.cpu_count()} CPU(s); servers on this machine")
        t_emb, rep_emb = ingest(work / "embedded", archive, None)
        t_srv, rep_srv = ingest(work / "server", archive, servers)
        assert rep_emb["records_added"] == rep_srv["records_added"] == args.n, (rep_emb, rep_srv)
        print(f"embedded ingest (SQLite + Chroma folder)        {args.n / t_emb:7.1f} msg/s  ({t_emb:.1f} s)")
        print(f"server ingest (PostgreSQL + Chroma server)      {args.n / t_srv:7.1f} msg/s  ({t_srv:.1f} s)   "
              f"{t_srv / t_emb:.2f}× embedded time (goal ≤ 2×)")
        # rounds in alternating order (E S, S E, …), latencies pooled: load that comes and goes on a shared
        # machine falls on both setups alike
        a_emb, a_srv = {"lat": [], "hits": 0}, {"lat": [], "hits": 0}
        for r in range(args.rounds):
            order = [("e", work / "embedded", None), ("s", work / "server", servers)]
            for which, home, sv in (order if r % 2 == 0 else order[::-1]):
                got = asks(home, qs, sv)
                acc = a_emb if which == "e" else a_srv
                acc["lat"] += got["lat"]
                acc["hits"] = got["hits"]
        e50, e95 = pct(a_emb["lat"], 0.5) * 1000, pct(a_emb["lat"], 0.95) * 1000
        s50, s95 = pct(a_srv["lat"], 0.5) * 1000, pct(a_srv["lat"], 0.95) * 1000
        print(f"embedded ask, {len(qs)} questions × {args.rounds}              p50 {e50:6.1f} ms   p95 {e95:6.1f} ms  "
              f"({a_emb['hits']} hits)")
        print(f"server ask, {len(qs)} questions × {args.rounds}                p50 {s50:6.1f} ms   p95 {s95:6.1f} ms  "
              f"({a_srv['hits']} hits)   {s95 / e95:.2f}× embedded p95 (goal ≤ 1.5×), p50 {s50 / e50:.2f}×")
    finally:
        if pg is not None:
            pg.stop()
        if chroma is not None:
            chroma.stop()
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Knowledge-graph throughput: entity resolution against 10k people, and the fact pipeline.

Run:  python benchmarks/graph_bench.py [--people 10000] [--queries 2000]

Each figure is printed beside a baseline measured in the same run on the same database:
- resolution: one indexed alias lookup (a bare SELECT) — the floor any cascade pays;
- fact pipeline: a bare INSERT of one fact row — what writing without dedupe/supersede/link would cost.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import text  # noqa: E402

from core.graph.facts import FactDraft, write_fact  # noqa: E402
from core.graph.resolution import NameIndex, resolve  # noqa: E402
from core.store.db import Database  # noqa: E402
from core.store.schema import Alias, Entity  # noqa: E402

FIRST = ("James Mary John Patricia Robert Jennifer Michael Linda William Elizabeth David Barbara Richard Susan "
         "Joseph Jessica Thomas Sarah Charles Karen Christopher Nancy Daniel Lisa Matthew Betty Anthony Margaret "
         "Mark Sandra Donald Ashley Steven Kimberly Paul Emily Andrew Donna Joshua Michelle Kenneth Carol Kevin "
         "Amanda Brian Dorothy George Melissa Timothy Deborah Ronald Stephanie Edward Rebecca Jason Sharon").split()
LAST = ("Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez Wilson "
        "Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez Lewis "
        "Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall "
        "Rivera Campbell Mitchell Carter Roberts Gomez Phillips Evans Turner Diaz Parker Cruz Edwards Collins").split()


def stats(samples_s: list[float]) -> tuple[float, float]:
    us = sorted(x * 1e6 for x in samples_s)
    return statistics.median(us), us[int(0.95 * (len(us) - 1))]


def line(label: str, samples: list[float], base_median: float | None = None) -> None:
    med, p95 = stats(samples)
    ratio = f"   {med / base_median:6.1f}× baseline" if base_median else ""
    print(f"{label:<46} median {med:9.1f} µs   p95 {p95:9.1f} µs   {1e6 / med:9.0f}/s{ratio}")


def build(db: Database, n: int, rng: random.Random) -> list[tuple[str, str]]:
    people = []
    seen = set()
    while len(people) < n:
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        if len(seen) < n * 0.5 and name not in seen:
            pass
        name = f"{name} {rng.choice(LAST)}" if name in seen else name
        seen.add(name)
        people.append((name, f"p{len(people)}@example.com"))
    with db.session() as s:
        for i, (name, email) in enumerate(people):
            e = Entity(kind="person", canonical_name=name)
            s.add(e)
            s.flush()
            s.add(Alias(entity_id=e.id, kind="name", value=name, normalized=name.casefold()))
            s.add(Alias(entity_id=e.id, kind="email", value=email, normalized=email))
    return people


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--people", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=2_000)
    ap.add_argument("--facts", type=int, default=3_000)
    args = ap.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        db = Database(Path(tmp) / "bench.sqlite3")
        t0 = time.perf_counter()
        people = build(db, args.people, rng)
        print(f"store: {args.people} people with name + email aliases, built in {time.perf_counter() - t0:.1f} s")
        index = NameIndex()
        with db.session() as s:
            index.best(s, "person", "warm up")
            print(f"name index loaded ({sum(len(v[0]) for v in index._load(s).values())} names)")
            sample = [people[rng.randrange(len(people))] for _ in range(args.queries)]

            def timed(fn, items):
                out = []
                for it in items:
                    t = time.perf_counter()
                    fn(it)
                    out.append(time.perf_counter() - t)
                return out

            conn = s.connection()
            base = timed(lambda p: conn.execute(text(
                "SELECT entity_id FROM alias WHERE kind='email' AND normalized=:n"), {"n": p[1]}).first(), sample)
            base_med = stats(base)[0]
            print("== entity resolution (seed 002 cascade) ==")
            line("baseline: indexed alias SELECT", base)
            line("resolve by email (definitive)", timed(lambda p: resolve(s, "person", p[0], p[1], index=index),
                                                         sample), base_med)
            line("resolve by exact name (definitive)", timed(lambda p: resolve(s, "person", p[0], None, index=index),
                                                             sample[: args.queries // 2]), base_med)
            typos = [(p[0][:-1] if len(p[0]) > 6 else p[0], None) for p in sample[: args.queries // 4]]
            line("resolve a near-miss name (fuzzy rows)", timed(lambda p: resolve(s, "person", p[0], None, index=index),
                                                                typos), base_med)
            fresh = [(f"Zq{i} Xylophonist", None) for i in range(args.queries // 4)]
            line("resolve an unknown name (whole cascade → new)",
                 timed(lambda p: resolve(s, "person", p[0], None, index=index), fresh), base_med)
            s.rollback()

        print("== fact pipeline (dedupe → supersede → link) ==")
        with db.session() as s:
            ids = [i for (i,) in s.exec(text("SELECT id FROM entity LIMIT 1000")).all()]
            when = datetime(2026, 1, 1, tzinfo=timezone.utc)
            conn = s.connection()
            bare = []
            for i in range(args.facts):
                t = time.perf_counter()
                conn.execute(text("INSERT INTO fact(subject_entity_id, domain, category, key, value, statement, "
                                  "confidence, recorded_at, evidence_count) VALUES (:s,'work','bench',:k,'v',"
                                  "'As of 2026-01-01, v.',0.5,:t,1)"), {"s": ids[i % len(ids)], "k": f"b{i}",
                                                                         "t": when})
                bare.append(time.perf_counter() - t)
            base_med = stats(bare)[0]
            line("baseline: bare INSERT of one fact row", bare)

            def draft(i, value, day):
                return FactDraft(subject_id=ids[i % len(ids)], domain="work", category="employment",
                                 key=f"employer{i}", value=value, statement=f"As of {day}, works at {value}.",
                                 valid_from=when + timedelta(days=day if isinstance(day, int) else 0))

            new = timed(lambda i: write_fact(s, draft(i, "Acme", 0)), range(args.facts))
            line("new fact", new, base_med)
            line("same fact again (dedupe, noisy-OR)", timed(lambda i: write_fact(s, draft(i, "Acme", 0)),
                                                             range(args.facts)), base_med)
            line("new value (supersede)", timed(lambda i: write_fact(s, draft(i, "Globex", 30)),
                                                range(args.facts)), base_med)
            s.rollback()
        db.close()


if __name__ == "__main__":
    main()

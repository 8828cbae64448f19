"""Recall at archive scale: ``ask`` beside one dense Chroma query, at 10,000 and 100,000 records (1,000,000 with
``--big``), built straight into the stores.

    python benchmarks/recall_scale.py            # 10k and 100k
    python benchmarks/recall_scale.py --big      # also 1M (several GB on disk, long)
    python benchmarks/recall_scale.py --sizes 2000 10000

Each archive is generated (numpy, seeded) into a fresh data folder, written straight into the stores that
``kith ingest`` fills, because ingesting 10⁵ messages through the encoder would take hours on 2 cores:
Record rows (50 senders, conversations of 30 turns a minute apart, a day between conversations, texts of
6-16 words drawn Zipf-like from a 20,000-word vocabulary), their Chroma vectors (random unit vectors: the
index's cost does not depend on what they mean), Episode rows with random signature and gist rows, and the
episode lexicon written by its own incremental ``add`` in batches.  Then, per size:

* ``ask p95`` — ``app.operations.ask.ask`` in this process (the query embedding included), 60 questions
  made of vocabulary words, against ``dense p95`` — encode + one Chroma query of the same size;
* ``cold ask`` — a fresh ``kith ask`` process (the console script's ``app.cli:run_cli``), from start to its exit
  (imports, encoder, Chroma and SQLite opening included), against a fresh process doing encode + one Chroma
  query (timed to its answer: its exit is not counted);
* ``add+ask`` — storing one more episode (``EpisodicMemory.store_many``: signatures, postings, the lexicon
  rows of it and its neighbours) and asking again: its cost must not grow with the archive.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

VOCAB = 20_000
SPEAKERS = 50
T0 = datetime(2015, 1, 1, tzinfo=timezone.utc)


def words(rng, n: int) -> list[str]:
    """A vocabulary of pronounceable made-up words (never stopwords)."""
    cons, vows = "bcdfghklmnprstvz", "aeiou"
    out, seen = [], set()
    while len(out) < n:
        w = "".join(rng.choice(list(cons)) + rng.choice(list(vows)) for _ in range(rng.integers(2, 4)))
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


def build(home: Path, n: int, seed: int = 0) -> list[str]:
    """Write an archive of ``n`` records into ``home``; returns the vocabulary."""
    from app.container import Container
    from app.settings import Settings
    from core.retrieval import lexicon
    from core.store.collections import RECORDS

    rng = np.random.default_rng(seed)
    vocab = words(rng, VOCAB)
    c = Container(Settings.load(home))
    mem_dir = home / "memory"
    mem_dir.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    ranks = np.minimum(rng.zipf(1.2, size=n * 16), VOCAB) - 1
    lens = rng.integers(6, 17, size=n)
    with c.db.engine.begin() as conn:
        conn.exec_driver_sql("INSERT INTO source(kind, path, content_hash, size, ingested_at, status) VALUES "
                             "('synthetic', 'synthetic', 'synthetic', 0, '2024-01-01 00:00:00', 'ok')")
        conn.exec_driver_sql("INSERT INTO entity(kind, canonical_name, attrs, is_owner, created_at) VALUES " +
                             ",".join(f"('person', 'Person {i}', '{{}}', 0, '2024-01-01 00:00:00')"
                                      for i in range(SPEAKERS)))
    texts, pos = [], 0
    for i in range(n):
        texts.append(" ".join(vocab[r] for r in ranks[pos:pos + lens[i]]))
        pos += lens[i]
    when = [T0 + timedelta(days=i // 30, minutes=i % 30) for i in range(n)]
    sessions = [f"thread-{i // 30}" for i in range(n)]
    senders = rng.integers(1, SPEAKERS + 1, size=n)
    with c.db.engine.begin() as conn:
        conn.exec_driver_sql("SELECT 1")
        raw = conn.connection.driver_connection
        raw.executemany("INSERT INTO record(id, source_id, external_id, kind, sender_entity_id, sent_at, text, thread, "
                        "content_hash, attrs, pending) VALUES (?, 1, ?, 'chat', ?, ?, ?, ?, ?, '{}', 0)",
                        [(i + 1, f"m{i}", int(senders[i]), when[i].strftime("%Y-%m-%d %H:%M:%S.000000"), texts[i],
                          sessions[i], f"h{i}") for i in range(n)])
        raw.executemany("INSERT INTO episode(id, record_id, text, t_valid, t_recorded, signature_row, gist_row, "
                        "session, provenance, confidence) VALUES (?, ?, ?, ?, '2024-01-01 00:00:00.000000', ?, ?, ?, "
                        "'synthetic', 1.0)",
                        [(i + 1, i + 1, texts[i], when[i].strftime("%Y-%m-%d %H:%M:%S.000000"), i, i, sessions[i])
                         for i in range(n)])
    for name in ("signatures.dat", "gists.dat"):  # each with its sketch file, as SignatureFile.append writes them
        with open(mem_dir / name, "wb") as f, open(mem_dir / (name + ".sketch"), "wb") as sk:
            for s in range(0, n, 50_000):
                rows = rng.integers(0, 256, (min(n, s + 50_000) - s, 1024), dtype=np.uint8)
                f.write(rows.tobytes())
                sk.write(np.ascontiguousarray(rows[:, :32]).tobytes())
    t_rows = time.perf_counter() - t
    t = time.perf_counter()
    for s in range(0, n, 5000):
        with c.db.engine.begin() as conn:
            lexicon.ensure(conn)
            lexicon.add(conn, [lexicon.Turn(i + 1, sessions[i], when[i], f"Person {senders[i] - 1}", texts[i])
                               for i in range(s, min(n, s + 5000))])
    t_lex = time.perf_counter() - t
    t = time.perf_counter()
    for s in range(0, n, 5000):
        e = min(n, s + 5000)
        v = rng.standard_normal((e - s, 384)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        c.vectors.upsert(RECORDS, [f"record:{i + 1}" for i in range(s, e)], v)
    t_vec = time.perf_counter() - t
    c.close()
    print(f"  built {n:,} records: rows {t_rows:.0f} s, lexicon {t_lex:.0f} s, vectors {t_vec:.0f} s", file=sys.stderr)
    return vocab


def questions(vocab: list[str], k: int, seed: int = 1) -> list[str]:
    rng = np.random.default_rng(seed)
    return [f"what did {vocab[int(rng.integers(0, 400))]} say about {vocab[int(rng.integers(0, 5000))]} and "
            f"{vocab[int(rng.integers(0, VOCAB))]}?" for _ in range(k)]


COLD_DENSE = """
import sys, time
t0 = float(sys.argv[1])
from app.container import Container
from core.store.collections import RECORDS
c = Container()
v = c.encoder.encode([sys.argv[2]])[0]
c.vectors.query(RECORDS, v, 10)
print(time.time() - t0)
"""


def measure(home: Path, vocab: list[str], n: int) -> None:
    from app.container import Container
    from app.memory import service
    from app.operations.ask import ask
    from app.settings import Settings
    from core.memory.episodes import EpisodeDraft
    from core.store.collections import RECORDS

    env = dict(os.environ, KITH_HOME=str(home), PYTHONPATH=str(ROOT))
    qs = questions(vocab, 60)
    # cold: a fresh process each, three of each, alternating (the median is printed)
    colds_ask, colds_dense = [], []
    for j in range(3):
        t0 = time.time()
        subprocess.run([sys.executable, "-c", "import sys; sys.argv[0] = 'kith'; from app.cli import run_cli; run_cli()",
                        "ask", qs[j]], env=env, check=False, capture_output=True)  # what the `kith` script runs
        colds_ask.append(time.time() - t0)
        out = subprocess.run([sys.executable, "-c", COLD_DENSE, str(time.time()), qs[j + 3]], env=env, check=True,
                             capture_output=True, text=True)
        colds_dense.append(float(out.stdout.strip().splitlines()[-1]))
    cold_ask, cold_dense = float(np.median(colds_ask)), float(np.median(colds_dense))
    c = Container(Settings.load(home))
    ask(c, "warm up")
    lat_ask, lat_dense = [], []
    for q in qs:
        t = time.perf_counter()
        ask(c, q)
        lat_ask.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        v = c.encoder.encode([q])[0]
        c.vectors.query(RECORDS, v, 10)
        lat_dense.append((time.perf_counter() - t) * 1000)
    mem = service(c).mem
    adds = []
    for j in range(5):
        v = np.random.default_rng(j).standard_normal(384).astype(np.float32)
        t = time.perf_counter()
        c.writer.run(mem.store_many, [EpisodeDraft(f"one more {vocab[j]} {vocab[j + 7]}", v / np.linalg.norm(v),
                                                   T0 + timedelta(days=n // 30, minutes=40 + j),
                                                   speaker="Person 1", session=f"thread-{(n - 1) // 30}")])
        t_add = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        ask(c, qs[j])
        adds.append((t_add, (time.perf_counter() - t) * 1000))
    from core.retrieval import lexicon

    lex_ms = []
    for j in range(5):  # the lexicon's own share of an addition, in a transaction rolled back
        raw = c.db.engine.raw_connection()
        try:
            t = time.perf_counter()
            lexicon.add(raw.cursor(), [lexicon.Turn(10 ** 9 + j, f"thread-{(n - 1) // 30}",
                                                    T0 + timedelta(days=n // 30, minutes=50 + j), "Person 1",
                                                    f"yet another {vocab[j]} {vocab[j + 3]}")])
            lex_ms.append((time.perf_counter() - t) * 1000)
            raw.rollback()
        finally:
            raw.close()
    mem.close()
    c.close()
    pa, pd = np.percentile(lat_ask, 95), np.percentile(lat_dense, 95)
    print(f"{n:>9,} records: ask p95 {pa:.1f} ms vs dense query p95 {pd:.1f} ms: {pa / pd:.2f}×")
    print(f"{n:>9,} records: cold first ask {cold_ask:.2f} s vs cold dense query {cold_dense:.2f} s: "
          f"{cold_ask / cold_dense:.2f}× (median of 3 fresh processes each)")
    add = np.median([a for a, _ in adds[1:]])  # the first add loads the in-memory index once
    again = np.median([b for _, b in adds])
    print(f"{n:>9,} records: add one episode {add:.1f} ms (first, loading the memory index: {adds[0][0]:.0f} ms), "
          f"then ask {again:.1f} ms; the lexicon's share {np.median(lex_ms):.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--big", action="store_true", help="also 1,000,000 records")
    ap.add_argument("--sizes", type=int, nargs="*", default=None)
    ap.add_argument("--keep", metavar="DIR", help="build (or reuse) the archives under DIR")
    a = ap.parse_args()
    sizes = a.sizes or ([10_000, 100_000] + ([1_000_000] if a.big else []))
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix="kith-scale-") as tmp:
            home = Path(a.keep) / f"n{n}" if a.keep else Path(tmp)
            vocab_file = home / "vocab.txt"
            if not vocab_file.exists():
                home.mkdir(parents=True, exist_ok=True)
                vocab = build(home, n)
                vocab_file.write_text("\n".join(vocab))
            vocab = vocab_file.read_text().split("\n")
            measure(home, vocab, n)


if __name__ == "__main__":
    main()

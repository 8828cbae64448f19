"""Recall latency of the tiered cascade at 10k / 100k (/ 1M) synthetic episodes, per HDC backend,
beside a brute-force full scan of the gist file measured in the same run.

    python benchmarks/recall_latency.py                 # 10k and 100k
    python benchmarks/recall_latency.py --million       # also 1M (1 GiB per signature file, ~2-3 min)

Synthetic data (numpy, in a temp dir, nothing kept): 50 speakers, 5 000 entities and 50 000
terms drawn Zipf-like; each episode has a speaker, one entity and four terms (6 postings).
Structured signatures are a majority-of-3 tree over the episode's role-bound items (cheap;
latency does not depend on the exact bits); gist signatures are one of 1 000 random
centroids with each bit flipped with probability 1/4.  The SQLite file (episodes, concepts,
postings) is written with executemany and opened through ``EpisodicMemory`` (the real index load).

Queries (equal thirds): an exact cue (two of an episode's concepts → tier A), a cue with one
unknown term (→ tier B over index candidates), and a gist-only cue (→ tiers C/D: sketch scan of
every row, then re-rank).  Timed: ``recall(hydrate=True, trace=False)``, i.e. cascade +
SQLite hydration of the top 10; "full scan" = hamming of the cue's gist against every gist row +
top-10 selection, the cost every query would pay without pruning.
"""
from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import hdc  # noqa: E402
from core.memory import episodes as ep_mod  # noqa: E402
from core.memory.episodes import EpisodicMemory, entity_key, structured_signature, term_key  # noqa: E402
from core.memory.recall import Cue, recall  # noqa: E402
from core.store import memory_schema  # noqa: E402,F401
from core.store.db import Database  # noqa: E402

N_SPEAKERS, N_ENTITIES, N_TERMS, N_CENTROIDS = 50, 5000, 50000, 1000


def zipf_ids(rng, n, vocab, a=1.1):
    ranks = rng.zipf(a, size=n * 2)
    ranks = ranks[ranks <= vocab][:n]
    while ranks.size < n:
        more = rng.zipf(a, size=n)
        ranks = np.concatenate([ranks, more[more <= vocab]])[:n]
    return ranks - 1


def maj3(a, b, c):
    return (a & b) | (a & c) | (b & c)


def build(folder: Path, n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    t = time.perf_counter()
    db = Database(folder / "kith.sqlite3")
    db.close()
    spk = rng.integers(0, N_SPEAKERS, n)
    ent = zipf_ids(rng, n, N_ENTITIES)
    trm = np.stack([zipf_ids(rng, n, N_TERMS) for _ in range(4)], axis=1)
    keys = ([entity_key(f"speaker {i}") for i in range(N_SPEAKERS)] + [entity_key(f"entity {i}") for i in range(N_ENTITIES)]
            + [term_key(f"term{i}") for i in range(N_TERMS)])
    items = np.stack([hdc.bind(ep_mod.ROLE_ENTITY if k.startswith("entity:") else ep_mod.ROLE_TERM, hdc.hv(k))
                      for k in keys])
    off_e, off_t = N_SPEAKERS, N_SPEAKERS + N_ENTITIES
    cent = rng.integers(0, 256, (N_CENTROIDS, 1024), dtype=np.uint8)
    sig_path, gist_path = folder / "signatures.dat", folder / "gists.dat"
    with open(sig_path, "wb") as fs, open(gist_path, "wb") as fg:
        for s in range(0, n, 50_000):
            e = min(n, s + 50_000)
            i = items
            x = maj3(maj3(i[spk[s:e]], i[off_e + ent[s:e]], i[off_t + trm[s:e, 0]]),
                     maj3(i[off_t + trm[s:e, 1]], i[off_t + trm[s:e, 2]], i[off_t + trm[s:e, 3]]),
                     i[off_e + ent[s:e]])
            fs.write(x.tobytes())
            noise = rng.integers(0, 256, (e - s, 1024), dtype=np.uint8) & rng.integers(0, 256, (e - s, 1024),
                                                                                         dtype=np.uint8)
            fg.write((cent[rng.integers(0, N_CENTROIDS, e - s)] ^ noise).tobytes())
    for p in (sig_path, gist_path):  # sketches are rebuilt by SignatureFile on open
        Path(str(p) + ".sketch").unlink(missing_ok=True)
    con = sqlite3.connect(folder / "kith.sqlite3")
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=OFF")
    base = np.datetime64("2020-01-01T00:00:00")
    secs = rng.integers(0, 5 * 365 * 86400, n)
    stamps = np.datetime_as_string(base + secs.astype("timedelta64[s]"), unit="us")
    con.executemany("INSERT INTO episode(id, text, t_valid, t_recorded, signature_row, gist_row, provenance, confidence)"
                    " VALUES (?, ?, ?, ?, ?, ?, '', 1.0)",
                    ((i + 1, f"synthetic episode {i}", str(stamps[i]).replace("T", " "), "2026-01-01 00:00:00.000000",
                      i, i) for i in range(n)))
    df = np.zeros(len(keys), dtype=np.int64)
    cols = [spk, off_e + ent] + [off_t + trm[:, j] for j in range(4)]
    for c in cols:
        np.add.at(df, c, 1)
    con.executemany("INSERT INTO concept(id, key, kind, label, df) VALUES (?, ?, ?, ?, ?)",
                    ((j + 1, k, k.split(":")[0], k.split(":", 1)[1], int(df[j])) for j, k in enumerate(keys)))
    for j, c in enumerate(cols):
        role = "speaker" if j == 0 else ("entity" if j == 1 else "term")
        pairs = np.unique(np.stack([c + 1, np.arange(1, n + 1)], axis=1), axis=0)
        con.executemany(f"INSERT OR IGNORE INTO conceptposting(concept_id, episode_id, role) VALUES (?, ?, '{role}')",
                        pairs.tolist())
    con.commit()
    con.close()
    build_s = time.perf_counter() - t
    t = time.perf_counter()
    db = Database(folder / "kith.sqlite3")
    mem = EpisodicMemory(db, folder, durable=False)
    load_s = time.perf_counter() - t
    return db, mem, dict(spk=spk, ent=ent, trm=trm, cent=cent, keys=keys), build_s, load_s


def queries(mem, data, nq, seed=1):
    rng = np.random.default_rng(seed)
    n = mem.index.n
    cues = []
    for qi in range(nq):
        r = int(rng.integers(0, n))
        kind = qi % 3
        ent = [f"entity {data['ent'][r]}"]
        terms = [f"term{data['trm'][r, 0]}", f"term{data['trm'][r, 1]}"]
        if kind == 0:
            ents, ts, unknown = ent, terms[:1], []
        elif kind == 1:
            ents, ts, unknown = ent, terms + ["neverseen"], [term_key("neverseen")]
        else:
            ents, ts, unknown = [], ["neverseen"], [term_key("neverseen")]
        ids = [mem.index.concepts[k] for k in [entity_key(e) for e in ents] + [term_key(t) for t in ts]
               if k in mem.index.concepts]
        noise = rng.integers(0, 256, 1024, dtype=np.uint8) & rng.integers(0, 256, 1024, dtype=np.uint8)
        gist = mem.gists.rows()[r] ^ noise
        cues.append(Cue(f"q{qi}", ents, ts, [], structured_signature(ents, ts, []), gist, ids, unknown))
    return cues


def pct(xs, p):
    return float(np.percentile(np.asarray(xs), p))


def run(n: int, backends: list[str], nq: int) -> None:
    with tempfile.TemporaryDirectory(prefix="kith-bench-") as tmp:
        db, mem, data, build_s, load_s = build(Path(tmp), n)
        cues = queries(mem, data, nq)
        print(f"\n== {n:,} episodes  (generate+write {build_s:.1f} s, open+index load {load_s:.1f} s, "
              f"{nq} queries: 1/3 exact, 1/3 similarity, 1/3 gist-only)")
        for name in backends:
            os.environ["KITH_HDC_BACKEND"] = name
            hdc.get_backend.cache_clear()
            gists = mem.gists.rows()
            for c in cues[:6]:  # warm up (page cache, mlx compile)
                recall(mem, c, k=10, hydrate=True, trace=False)
                d = hdc.hamming(c.gist, gists)
            lat, base, tiers = [], [], {}
            for c in cues:
                t = time.perf_counter()
                r = recall(mem, c, k=10, hydrate=True, trace=False)
                lat.append((time.perf_counter() - t) * 1000)
                tiers[r.tier_used] = tiers.get(r.tier_used, 0) + 1
            for c in cues:
                t = time.perf_counter()
                d = hdc.hamming(c.gist, gists)
                np.argpartition(d, 10)[:10]
                base.append((time.perf_counter() - t) * 1000)
            p50, p95, b50, b95 = pct(lat, 50), pct(lat, 95), pct(base, 50), pct(base, 95)
            print(f"{name:5s} cascade   p50={p50:7.2f} ms  p95={p95:7.2f} ms   tiers {dict(sorted(tiers.items()))}")
            print(f"{name:5s} full scan p50={b50:7.2f} ms  p95={b95:7.2f} ms   "
                  f"speed-up p50 ×{b50 / p50:.1f}, p95 ×{b95 / p95:.1f}")
        mem.close()
        db.close()
        os.environ.pop("KITH_HDC_BACKEND", None)
        hdc.get_backend.cache_clear()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    ap.add_argument("--million", action="store_true", help="also run 1,000,000 episodes")
    ap.add_argument("--queries", type=int, default=150)
    ap.add_argument("--backends", nargs="*", default=["numpy"] + (["mlx"] if hdc.mlx_available() else []))
    a = ap.parse_args()
    sizes = a.sizes + ([1_000_000] if a.million else [])
    print(f"recall latency, backends {a.backends}, {os.cpu_count()} CPUs")
    for n in sizes:
        run(n, a.backends, a.queries)


if __name__ == "__main__":
    main()

"""LoCoMo retrieval: are the evidence turns of each question in the top k of Kith's recall?

    python benchmarks/locomo.py [PATH]      # PATH defaults to ../shared/corpus/locomo/locomo7.json

Each conversation is ingested into its own temporary data folder as chat records (sender = the
speaker, sent_at = the session's date and time plus one second per turn, thread = the session,
a shared photo's caption appended as "[shared a photo: …]"), through the same stores ``kith
ingest`` fills (Record rows, FTS5, Chroma) and ``app.memory.remember_records``.  For every
question of categories 1–4, recall@k = |evidence ∩ top-k| / |evidence| (averaged over
questions) for k = 1, 5, 10, 20, and the p95 latency of one query:

* ``kith``  — ``app.memory.recall``: episode BM25 over context windows fused by weighted RRF with
  the record vectors (each message embedded as "Sender: <text in the third person>") and the
  neighbour-smoothed HDC gist ranking (``app.memory.WEIGHTS``), the messages of the first sender
  named in the question boosted (``app.memory.SPEAKER_BOOST``); the cascade runs alongside;
* ``bm25``  — SQLite FTS5 BM25 over the records alone (what ``ask`` used before);
* ``dense`` — the baseline the issue measured (R@10 0.485): MiniLM cosine nearest neighbours over each
  turn embedded as ``"Speaker: text"``, exact (numpy);
* ``vectors`` — Kith's record vectors alone (Chroma), each turn embedded as its speaker tells it
  (``"Speaker: <text in the third person>"``).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

KS = (1, 5, 10, 20)
ABLATIONS = {
    "lex": {"lex": 1.0},
    "lex+dense.5": {"lex": 1.0, "dense": 0.5},
    "lex+gistw.3": {"lex": 1.0, "gistw": 0.3},
    "lex+gistw.5": {"lex": 1.0, "gistw": 0.5},
    "lex+dense.5+gistw.3+bm25.3": {"lex": 1.0, "dense": 0.5, "gistw": 0.3, "bm25": 0.3},
    "lex+dense.5+gistw.3+hdc.25": {"lex": 1.0, "dense": 0.5, "gistw": 0.3, "hdc": 0.25},
    "gist+bm25 (before #4)": {"gist": 1.0, "bm25": 1.0},
    "all-equal": {"hdc": 1.0, "gist": 1.0, "bm25": 1.0, "dense": 1.0, "lex": 1.0, "gistw": 1.0},
}


def parse_when(s: str) -> datetime:
    """LoCoMo session stamps look like "1:56 pm on 8 May, 2023" (taken as UTC)."""
    return datetime.strptime(s.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def turns_of(conv: dict):
    c = conv["conversation"]
    n = 1
    while f"session_{n}" in c:
        when = parse_when(c[f"session_{n}_date_time"])
        for i, t in enumerate(c[f"session_{n}"]):
            text = t["text"]
            if t.get("blip_caption"):
                text = f"{text} [shared a photo: {t['blip_caption']}]"
            yield t["dia_id"], t["speaker"], when + timedelta(seconds=i), text, f"session {n}"
        n += 1


def ingest(c, conv: dict, encoder) -> dict[int, str]:
    """Write one conversation's turns as Records (+FTS, +vectors) and episodes; returns record id → dia_id."""
    from app.memory import remember_records
    from core.store.collections import RECORDS
    from core.extraction.text import speaker_view
    from core.graph.resolution import resolve
    from core.store import search
    from core.store.schema import Record, Source

    turns = list(turns_of(conv))
    dia_of: dict[int, str] = {}
    rows = []
    with c.db.session() as s:
        src = Source(kind="locomo", path=f"locomo:{conv['sample_id']}", content_hash=conv["sample_id"])
        s.add(src)
        s.flush()
        conn = s.connection()
        for dia, speaker, when, text, thread in turns:
            who = resolve(s, "person", speaker, None, None, "US").entity
            r = Record(source_id=src.id, external_id=dia, kind="chat", sender_entity_id=who.id, sent_at=when,
                       text=text, thread=f"{conv['sample_id']}/{thread}", content_hash=f"{conv['sample_id']}/{dia}")
            s.add(r)
            s.flush()
            search.index_record(conn, r.id, "", text, speaker)
            dia_of[r.id] = dia
            rows.append(r)
    who = {dia: speaker for dia, speaker, *_ in turns}
    # what ingest embeds for a chat record (app.operations.ingest.vector_text): "Sender: <third person>"
    vecs = encoder.encode([speaker_view(who[dia_of[r.id]], r.text) for r in rows])
    c.vectors.upsert(RECORDS, [f"record:{r.id}" for r in rows], vecs, [{"record_id": r.id} for r in rows])
    for i in range(0, len(rows), 256):
        remember_records(c, rows[i:i + 256])
    return dia_of


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path", nargs="?", default=str(ROOT.parent / "shared" / "corpus" / "locomo" / "locomo7.json"))
    ap.add_argument("--limit", type=int, default=0, help="only the first N conversations")
    ap.add_argument("--ablations", action="store_true", help="also score each ranking alone and other fusions")
    ap.add_argument("--cache", metavar="DIR", help="keep each conversation's data folder under DIR and reuse it "
                    "on later runs (ingest only once while tuning recall; delete DIR after changing ingest)")
    a = ap.parse_args()
    data = json.loads(Path(a.path).read_text())
    if a.limit:
        data = data[: a.limit]

    from app.container import Container
    from app.memory import rankings, recall, service, weighted_rrf
    from core.store.collections import RECORDS
    from app.settings import Settings
    from core.store import search
    from core.store.schema import Episode
    from sqlmodel import select

    systems = ("kith", "bm25", "dense", "vectors")
    hits: dict[str, list[dict]] = {s: [] for s in systems}
    lat: dict[str, list[float]] = {s: [] for s in systems}
    encoder = None
    t_start = time.perf_counter()
    for conv in data:
        with tempfile.TemporaryDirectory(prefix="kith-locomo-") as tmp:
            home = Path(a.cache) / conv["sample_id"] if a.cache else Path(tmp)
            cached = a.cache and (home / "dia_of.json").exists()
            home.mkdir(parents=True, exist_ok=True)
            c = Container(Settings.load(home) if hasattr(Settings, "load") else Settings(home=home))
            if encoder is None:
                encoder = c.encoder
            else:
                c._encoder = encoder
            t = time.perf_counter()
            if cached:
                dia_of = {int(k): v for k, v in json.loads((home / "dia_of.json").read_text()).items()}
            else:
                dia_of = ingest(c, conv, encoder)
                if a.cache:
                    (home / "dia_of.json").write_text(json.dumps(dia_of))
            ep_dia: dict[int, str] = {}
            with c.db.session() as s:
                for eid, rid in s.exec(select(Episode.id, Episode.record_id)).all():
                    ep_dia[eid] = dia_of.get(rid)
            print(f"{conv['sample_id']}: {len(dia_of)} turns ingested in {time.perf_counter() - t:.1f} s",
                  file=sys.stderr)
            plain = list(turns_of(conv))  # the dense baseline: "Speaker: text", no rewriting
            base = encoder.encode([f"{speaker}: {text}" for _d, speaker, _w, text, _t in plain])
            base = base / np.linalg.norm(base, axis=1, keepdims=True)
            base_dia = [d for d, *_ in plain]
            for q in conv["qa"]:
                if q.get("category") not in (1, 2, 3, 4):
                    continue
                gold = set(q.get("evidence") or [])
                if not gold:
                    continue
                ranked: dict[str, list[str]] = {}
                t = time.perf_counter()
                qv = encoder.encode([q["question"]])[0]
                r = recall(c, q["question"], k=max(KS), goal_bias=True, query_vector=qv)
                lat["kith"].append((time.perf_counter() - t) * 1000)
                ranked["kith"] = [ep_dia.get(h.episode_id) for h in r.hits]
                t = time.perf_counter()
                with c.db.session() as s:
                    bm = [rid for rid, _ in search.bm25(s.connection(), q["question"], max(KS))]
                lat["bm25"].append((time.perf_counter() - t) * 1000)
                ranked["bm25"] = [dia_of.get(x) for x in bm]
                t = time.perf_counter()
                qv2 = encoder.encode([q["question"]])[0]
                cos = base @ (qv2 / np.linalg.norm(qv2))
                ranked["dense"] = [base_dia[i] for i in np.argsort(-cos, kind="stable")[:max(KS)]]
                lat["dense"].append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                qv3 = encoder.encode([q["question"]])[0]
                dn = [int(i.split(":", 1)[1]) for i, _ in c.vectors.query(RECORDS, qv3, max(KS))]
                lat["vectors"].append((time.perf_counter() - t) * 1000)
                ranked["vectors"] = [dia_of.get(x) for x in dn]
                if a.ablations:
                    comps, _ = rankings(c, q["question"], query_vector=qv)
                    for name, lst in comps.items():
                        ranked["only:" + name] = [ep_dia.get(e) for e in lst]
                    for label, w in ABLATIONS.items():
                        ranked[label] = [ep_dia.get(e) for e, _ in weighted_rrf(comps, w)[:max(KS)]]
                for sname in ranked:
                    row = {"cat": q["category"]}
                    for k in KS:
                        row[k] = len(gold & set(ranked[sname][:k])) / len(gold)
                    hits.setdefault(sname, []).append(row)
            service(c).mem.close()
            c.close()
    print(f"LoCoMo {Path(a.path).name}: {len(data)} conversations, {len(hits['kith'])} questions (categories 1-4), "
          f"{time.perf_counter() - t_start:.0f} s")
    for sname in systems:
        rows = hits[sname]
        figs = " ".join(f"R@{k}={np.mean([r[k] for r in rows]):.3f}" for k in KS)
        print(f"{sname} {figs} p95={np.percentile(lat[sname], 95):.1f} ms")
    for sname in [x for x in hits if x not in systems]:
        rows = hits[sname]
        print(f"  ablation {sname}: " + " ".join(f"R@{k}={np.mean([r[k] for r in rows]):.3f}" for k in KS))
    for sname in systems:
        by = defaultdict(list)
        for r in hits[sname]:
            by[r["cat"]].append(r)
        parts = [f"cat{cat}(n={len(v)}) R@10={np.mean([r[10] for r in v]):.3f}" for cat, v in sorted(by.items())]
        print(f"  {sname:7s} " + "  ".join(parts))


if __name__ == "__main__":
    main()

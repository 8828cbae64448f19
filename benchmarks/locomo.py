"""LoCoMo through the product's own path: each conversation is ingested as a chat export and scored on ``ask``.

    python benchmarks/locomo.py [PATH]                 # PATH defaults to ../shared/corpus/locomo/locomo7.json
    python benchmarks/locomo.py --cache /tmp/locomo    # keep each ingested conversation between runs (tuning)
    python benchmarks/locomo.py --ablations            # each ranking alone and other fusions (dev tuning)
    python benchmarks/locomo.py --fit                  # fit the calibrated relevance on dev; print it
    python benchmarks/locomo.py --qa [--model-qa N]    # also answer: token F1 of three answerers

**Splits.** Constants are tuned on the dev split only — conversations ``conv-26``, ``conv-30`` and ``conv-41``
(the first three of ``locomo7.json``) — and every figure is printed for dev and test separately; any other
conversation (the rest of the file, or another LoCoMo file) is test.

**Ingest.** Each conversation is written as a Telegram Desktop export (``result.json``: one chat, each turn a
message from its speaker, at its session's date and time plus 30 s per turn, a shared photo's caption
appended as "[shared a photo: …]") and read by ``app.operations.ingest.ingest`` into its own data folder:
records, FTS5, facts, Chroma vectors, episodes, the episode lexicon — what ``kith ingest`` does.

**Retrieval** (questions of categories 1-4 with evidence): recall@k = |evidence ∩ top-k turns| / |evidence|
for k = 1, 5, 10, 20, and the p95 latency of one query, embedding included, for

* ``kith``    — ``ask`` (``app.memory.recall`` + ``results_from``, every hit shown: relevance ≥ 0);
* ``dense``   — the dense-only query in the same store: encode the question, one Chroma query over the
  record vectors (the latency baseline of the goal "p95 ≤ 1.0 × dense");
* ``minilm``  — the issue's first baseline: exact MiniLM cosine over each turn as ``"Speaker: text"``;
* ``bm25``    — SQLite FTS5 BM25 over the records alone.

**Relevance**: each of ``kith``'s top-10 hits has a calibrated relevance; with the configured threshold,
precision (shown hits that are evidence) and recall (evidence shown) on each split, and, for questions taken
from another conversation of the same split (nothing in this one answers them), the share answered
"nothing found".  ``--fit`` fits the relevance model on the dev split's hits — those of its own questions
(evidence or not) and those of the other conversations' questions (all negatives: without them every
question has an answer and the first hit always looks relevant) — and prints the test split's precision.

**QA** (``--qa``): LoCoMo's token F1 (Maharana et al. 2024, ``task_eval/evaluation.py``: normalised,
Porter-stemmed tokens; category 1 split on commas, category 3 takes the gold answer before ";") of
(a) the top-1 retrieved turn's text, (b) Kith's default chat answer (the memory answerer), (c) the bundled
model through the grounded path (the first N questions of each split, ``--model-qa N``), and the share of
answers with repeated text.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import string
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

KS = (1, 5, 10, 20)
DEV = ("conv-26", "conv-30", "conv-41")
ABLATIONS = {
    "lex": {"lex": 1.0, "dense": 0.0, "gist": 0.0},
    "dense": {"lex": 0.0, "dense": 1.0, "gist": 0.0},
    "gist": {"lex": 0.0, "dense": 0.0, "gist": 1.0},
    "lex+dense.5": {"lex": 1.0, "dense": 0.5, "gist": 0.0},
    "lex+dense.7": {"lex": 1.0, "dense": 0.7, "gist": 0.0},
    "lex+dense.5+gist.3": {"lex": 1.0, "dense": 0.5, "gist": 0.3},
    "lex+dense.7+gist.3": {"lex": 1.0, "dense": 0.7, "gist": 0.3},
    "speaker_boost 0": {"speaker_boost": 0.0},
    "speaker_boost 2": {"speaker_boost": 2.0},
    "speaker_boost 4": {"speaker_boost": 4.0},
    "time_boost 0": {"time_boost": 0.0},
    "time_boost 2": {"time_boost": 2.0},
    "fusion_k 10": {"fusion_k": 10},
    "fusion_k 60": {"fusion_k": 60},
    "pool 100": {"pool": 100},
}
"""Dev ablations: RRF weights per ranking, or other RetrievalConfig fields (``--ablations``)."""


def variant(config, change: dict):
    """``config`` with the ablation's weights and fields changed."""
    from dataclasses import replace

    weights = {k: v for k, v in change.items() if k in ("lex", "dense", "gist")}
    other = {k: v for k, v in change.items() if k not in weights}
    return replace(config.with_weights(**weights) if weights else config, **other)


def split_of(sample_id: str) -> str:
    return "dev" if sample_id in DEV else "test"


def parse_when(s: str) -> datetime:
    """LoCoMo session stamps look like "1:56 pm on 8 May, 2023" (taken as UTC)."""
    return datetime.strptime(s.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def turns_of(conv: dict):
    """``(dia_id, speaker, when, text)`` per turn, in order."""
    c = conv["conversation"]
    n = 1
    while f"session_{n}" in c:
        when = parse_when(c[f"session_{n}_date_time"])
        for i, t in enumerate(c[f"session_{n}"]):
            text = t["text"]
            if t.get("blip_caption"):
                text = f"{text} [shared a photo: {t['blip_caption']}]"
            yield t["dia_id"], t["speaker"], when + timedelta(seconds=30 * i), text
        n += 1


def telegram_export(conv: dict) -> tuple[dict, dict[int, str]]:
    """The conversation as a Telegram Desktop single-chat export, and message id → dia_id."""
    speakers: dict[str, int] = {}
    msgs, dia_of = [], {}
    for n, (dia, speaker, when, text) in enumerate(turns_of(conv), 1):
        uid = speakers.setdefault(speaker, len(speakers) + 1)
        msgs.append({"id": n, "type": "message", "date": when.strftime("%Y-%m-%dT%H:%M:%S"),
                     "date_unixtime": str(int(when.timestamp())), "from": speaker, "from_id": f"user{uid}",
                     "text": text})
        dia_of[n] = dia
    return {"name": conv["sample_id"], "type": "personal_chat", "id": 1, "messages": msgs}, dia_of


def open_conversation(conv: dict, cache: str | None, tmp: str, encoder):
    """A container on the conversation's data folder (ingested through ``kith ingest``'s path unless cached),
    and record id → dia_id."""
    from app.container import Container
    from app.operations.ingest import ingest
    from app.settings import Settings
    from core.store.schema import Record

    home = Path(cache) / conv["sample_id"] if cache else Path(tmp)
    home.mkdir(parents=True, exist_ok=True)
    c = Container(Settings.load(home))
    if encoder is not None:
        c._encoder = encoder
    done = home / "ingested.json"
    if not done.exists():
        export, dia_of = telegram_export(conv)
        path = home / "result.json"
        path.write_text(json.dumps(export, ensure_ascii=False))
        t = time.perf_counter()
        rep = ingest(c, [path])
        if rep.errors:
            raise SystemExit(f"{conv['sample_id']}: ingest errors: {[e.to_json() for e in rep.errors][:3]}")
        print(f"{conv['sample_id']}: {rep.records_added} turns ingested in {time.perf_counter() - t:.1f} s",
              file=sys.stderr)
        done.write_text(json.dumps({str(k): v for k, v in dia_of.items()}))
    dia_of = {int(k): v for k, v in json.loads(done.read_text()).items()}
    with c.db.session() as s:
        rec_dia = {rid: dia_of.get(int(ext.split()[-1])) for rid, ext in
                   s.exec(Record.__table__.select().with_only_columns(Record.id, Record.external_id)).all()}
    return c, rec_dia


# ------------------------------------------------------------------------------------------- QA scoring


def _normalize(s: str) -> str:
    s = str(s).replace(",", "").lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the|and)\b", " ", s)
    return " ".join(s.split())


def _stem():
    from nltk.stem import PorterStemmer

    return PorterStemmer().stem


def f1_score(prediction: str, truth: str, stem=None) -> float:
    """LoCoMo's token F1: normalised (lower case, no punctuation, no articles), Porter-stemmed tokens."""
    stem = stem or _stem()
    p = [stem(w) for w in _normalize(prediction).split()]
    g = [stem(w) for w in _normalize(truth).split()]
    same = sum((Counter(p) & Counter(g)).values())
    if not same:
        return 0.0
    prec, rec = same / len(p), same / len(g)
    return 2 * prec * rec / (prec + rec)


def qa_f1(prediction: str, answer, category: int, stem=None) -> float:
    """LoCoMo's per-category F1: category 1 (multi-hop) averages, over the gold's comma-separated parts, the best
    F1 of any comma-separated part of the prediction; category 3 scores the gold answer before ";"."""
    answer = str(answer)
    if category == 3:
        answer = answer.split(";")[0].strip()
    if category == 1:
        preds = [p.strip() for p in prediction.split(",")]
        golds = [g.strip() for g in answer.split(",")]
        return float(np.mean([max(f1_score(p, g, stem) for p in preds) for g in golds]))
    return f1_score(prediction, answer, stem)


# ------------------------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path", nargs="?", default=str(ROOT.parent / "shared" / "corpus" / "locomo" / "locomo7.json"))
    ap.add_argument("--limit", type=int, default=0, help="only the first N conversations")
    ap.add_argument("--split", choices=("dev", "test", "all"), default="all")
    ap.add_argument("--ablations", action="store_true", help="each ranking alone and other fusions")
    ap.add_argument("--fit", action="store_true", help="fit the relevance model and threshold on dev; print them")
    ap.add_argument("--qa", action="store_true", help="also score answers (token F1)")
    ap.add_argument("--model-qa", type=int, default=0, metavar="N",
                    help="with --qa: the bundled model answers the first N questions of each split")
    ap.add_argument("--foreign", type=int, default=30, metavar="N",
                    help="questions per conversation taken from another one (answer: nothing found)")
    ap.add_argument("--cache", metavar="DIR", help="keep each conversation's data folder under DIR and reuse it "
                    "(ingest once while tuning; delete DIR after changing ingest)")
    a = ap.parse_args()
    data = json.loads(Path(a.path).read_text())
    if a.limit:
        data = data[: a.limit]
    if a.split != "all":
        data = [c for c in data if split_of(c["sample_id"]) == a.split]

    from app.memory import recall, service
    from app.operations.ask import results_from
    from core.retrieval import relevance as rel
    from core.retrieval.config import CONFIG, FEATURES
    from core.store import search
    from core.store.collections import RECORDS

    stem = _stem() if a.qa else None
    answerers = None
    if a.qa:
        from app.answer import memory_answer_text

        answerers = {"top1": None, "memory": memory_answer_text}
    systems = ("kith", "dense", "minilm", "bm25")
    hits: dict[tuple[str, str], list[dict]] = defaultdict(list)
    lat: dict[tuple[str, str], list[float]] = defaultdict(list)
    feats: dict[str, list] = defaultdict(list)  # split -> [(features, label)]
    shown_stats: dict[str, Counter] = defaultdict(Counter)
    foreign: dict[str, Counter] = defaultdict(Counter)
    qa: dict[tuple[str, str], list[tuple[int, float]]] = defaultdict(list)
    repeats: dict[tuple[str, str], list[bool]] = defaultdict(list)
    model_budget = defaultdict(lambda: a.model_qa)
    model = None
    encoder = None
    t_start = time.perf_counter()
    by_id = {c["sample_id"]: c for c in data}
    ids = list(by_id)
    for ci, conv in enumerate(data):
        sp = split_of(conv["sample_id"])
        with tempfile.TemporaryDirectory(prefix="kith-locomo-") as tmp:
            c, rec_dia = open_conversation(conv, a.cache, tmp, encoder)
            encoder = c.encoder
            plain = list(turns_of(conv))
            base = encoder.encode([f"{speaker}: {text}" for _d, speaker, _w, text in plain])
            base = base / np.linalg.norm(base, axis=1, keepdims=True)
            base_dia = [d for d, *_ in plain]
            recall(c, "warm up", k=10)  # opens Chroma's index and SQLite's pages once, outside the timing
            for q in conv["qa"]:
                if q.get("category") not in (1, 2, 3, 4):
                    continue
                gold = set(q.get("evidence") or [])
                if not gold:
                    continue
                question = q["question"]
                ranked: dict[str, list[str]] = {}
                t = time.perf_counter()
                res = recall(c, question, k=max(KS), exclude_text=question)
                results = results_from(c, res, max(KS), min_relevance=0.0)
                lat[(sp, "kith")].append((time.perf_counter() - t) * 1000)
                ranked["kith"] = list(dict.fromkeys(rec_dia.get(r.record_id) for r in results if r.record_id))
                t = time.perf_counter()
                qv = encoder.encode([question])[0]
                dn = [int(i.split(":", 1)[1]) for i, _ in c.vectors.query(RECORDS, qv, max(KS))]
                lat[(sp, "dense")].append((time.perf_counter() - t) * 1000)
                ranked["dense"] = [rec_dia.get(x) for x in dn]
                t = time.perf_counter()
                qv2 = encoder.encode([question])[0]
                cos = base @ (qv2 / np.linalg.norm(qv2))
                ranked["minilm"] = [base_dia[i] for i in np.argsort(-cos, kind="stable")[:max(KS)]]
                lat[(sp, "minilm")].append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                with c.db.session() as s:
                    bm = [rid for rid, _ in search.bm25(s.connection(), question, max(KS))]
                lat[(sp, "bm25")].append((time.perf_counter() - t) * 1000)
                ranked["bm25"] = [rec_dia.get(x) for x in bm]
                if a.ablations:
                    for label, w in ABLATIONS.items():
                        r2 = recall(c, question, k=max(KS), query_vector=qv, config=variant(CONFIG, w))
                        ranked["ablation " + label] = [rec_dia.get(h.record_id) for h in r2.hits]
                for sname, lst in ranked.items():
                    row = {"cat": q["category"]}
                    for k in KS:
                        row[k] = len(gold & set(lst[:k])) / len(gold)
                    hits[(sp, sname)].append(row)
                shown_ids = {h.episode_id for h in res.shown()}
                for h in res.hits[:10]:
                    label = rec_dia.get(h.record_id) in gold
                    feats[sp].append(([h.features[f] for f in FEATURES], label))
                    if h.episode_id in shown_ids:
                        shown_stats[sp]["shown"] += 1
                        shown_stats[sp]["shown_evidence"] += int(label)
                shown_stats[sp]["evidence"] += len(gold)
                shown_stats[sp]["questions"] += 1
                shown_stats[sp]["nothing"] += int(not shown_ids)
                if answerers:
                    top = next((r for r in results if r.kind in ("record", "episode")), None)
                    pred = {"top1": top.text if top else "", "memory": memory_answer_text(c, question, res)}
                    if a.model_qa and model_budget[sp] > 0:
                        model_budget[sp] -= 1
                        from app.answer import grounded_answer

                        if model is None:
                            from app.models.registry import build_chat_model

                            model = build_chat_model(c.settings)
                        g = grounded_answer(model, question, res, c)
                        pred["model"] = g.text
                        qa[(sp, "model_fallback")].append((q["category"], float(g.fell_back)))
                    for name, text in pred.items():
                        qa[(sp, name)].append((q["category"], qa_f1(text, q.get("answer", ""), q["category"], stem)))
                        repeats[(sp, name)].append(_repeats(text))
            # questions from another conversation of the same split: nothing here answers them
            others = [o for o in ids if o != conv["sample_id"] and split_of(o) == sp] or \
                     [o for o in ids if o != conv["sample_id"]]
            if others and a.foreign:
                other = by_id[others[ci % len(others)]]
                for q in [q for q in other["qa"] if q.get("category") in (1, 2, 3, 4)][: a.foreign]:
                    r = recall(c, q["question"], k=10, exclude_text=q["question"])
                    foreign[sp]["questions"] += 1
                    foreign[sp]["nothing"] += int(not r.shown())
                    # nothing here answers them: every hit is a negative for the relevance model
                    feats[sp] += [([h.features[f] for f in FEATURES], False) for h in r.hits[:10]]
            service(c).mem.close()
            c.close()
    splits = [s for s in ("dev", "test") if any(k[0] == s for k in hits)]
    n_conv = Counter(split_of(c["sample_id"]) for c in data)
    print(f"LoCoMo {Path(a.path).name}: {len(data)} conversations, "
          f"{sum(len(hits[(s, 'kith')]) for s in splits)} questions (categories 1-4), "
          f"{time.perf_counter() - t_start:.0f} s")
    for sp in splits:
        print(f"[{sp}] {n_conv[sp]} conversations, {len(hits[(sp, 'kith')])} questions")
        for sname in systems:
            rows = hits[(sp, sname)]
            figs = " ".join(f"R@{k}={np.mean([r[k] for r in rows]):.3f}" for k in KS)
            print(f"[{sp}] {sname} {figs} p95={np.percentile(lat[(sp, sname)], 95):.1f} ms")
        kp, dp = np.percentile(lat[(sp, "kith")], 95), np.percentile(lat[(sp, "dense")], 95)
        print(f"[{sp}] p95 kith {kp:.1f} ms vs dense {dp:.1f} ms: {kp / dp:.2f}×")
        for sname in systems:
            by = defaultdict(list)
            for r in hits[(sp, sname)]:
                by[r["cat"]].append(r)
            parts = [f"cat{cat}(n={len(v)}) R@10={np.mean([r[10] for r in v]):.3f}" for cat, v in sorted(by.items())]
            print(f"[{sp}]   {sname:7s} " + "  ".join(parts))
        for sname in [x for (s, x) in hits if s == sp and x.startswith("ablation")]:
            rows = hits[(sp, sname)]
            print(f"[{sp}] {sname}: " + " ".join(f"R@{k}={np.mean([r[k] for r in rows]):.3f}" for k in KS))
        st = shown_stats[sp]
        prec = st["shown_evidence"] / st["shown"] if st["shown"] else 0.0
        print(f"[{sp}] relevance ≥ {CONFIG.relevance.threshold:g}: precision {prec:.3f} "
              f"({st['shown_evidence']}/{st['shown']} shown hits are evidence), recall "
              f"{st['shown_evidence'] / max(1, st['evidence']):.3f}, {st['nothing']}/{st['questions']} questions "
              f"answered 'nothing found'")
        fo = foreign[sp]
        if fo["questions"]:
            print(f"[{sp}] questions from another conversation: {fo['nothing']}/{fo['questions']} "
                  f"({fo['nothing'] / fo['questions']:.3f}) answered 'nothing found'")
        if a.qa:
            for name in ("top1", "memory", "model"):
                rows = qa.get((sp, name))
                if not rows:
                    continue
                by = defaultdict(list)
                for cat, f in rows:
                    by[cat].append(f)
                rep = np.mean(repeats[(sp, name)]) if repeats[(sp, name)] else 0.0
                print(f"[{sp}] QA {name} F1={np.mean([f for _, f in rows]):.3f} (n={len(rows)}) " +
                      " ".join(f"cat{k}={np.mean(v):.3f}" for k, v in sorted(by.items())) +
                      f" repeated-text {rep:.1%}")
            if qa.get((sp, "memory")) and qa.get((sp, "top1")):
                m = np.mean([f for _, f in qa[(sp, "memory")]])
                t1 = np.mean([f for _, f in qa[(sp, "top1")]])
                print(f"[{sp}] QA memory answer vs top-1 turn: {m / max(t1, 1e-9):.2f}×")
            fb = qa.get((sp, "model_fallback"))
            if fb:
                print(f"[{sp}] QA model: {np.mean([f for _, f in fb]):.1%} of answers fell back to the memory answer")
    if a.fit:
        X = np.array([f for f, _ in feats["dev"]])
        y = np.array([lab for _, lab in feats["dev"]], dtype=float)
        coef = rel.fit(X, y)
        p = np.array([rel.probability(x, coef) for x in X])
        best = max(((t, _f1_at(p, y, t)) for t in np.arange(0.02, 0.9, 0.01)), key=lambda kv: kv[1])
        print("fit on dev: coef=(" + ", ".join(f"{v:.4f}" for v in coef) + f") threshold={best[0]:.2f} "
              f"F1={best[1]:.3f} (features {', '.join(FEATURES)})")
        if feats.get("test"):
            Xt = np.array([f for f, _ in feats["test"]])
            yt = np.array([lab for _, lab in feats["test"]], dtype=float)
            pt = np.array([rel.probability(x, coef) for x in Xt])
            shown = pt >= best[0]
            print(f"fitted model on test: precision {yt[shown].mean() if shown.any() else 0:.3f} "
                  f"recall {yt[shown].sum() / max(1, yt.sum()):.3f} (over top-10 hits)")


def _f1_at(p, y, t) -> float:
    shown = p >= t
    if not shown.any():
        return 0.0
    prec = y[shown].mean()
    rec = y[shown].sum() / max(1.0, y.sum())
    return 0.0 if prec + rec == 0 else 2 * prec * rec / (prec + rec)


def _repeats(text: str) -> bool:
    """True when the same sentence (or 6-word run) occurs twice in ``text``."""
    from app.answer import repeats

    return repeats(text)


if __name__ == "__main__":
    main()

"""Calibrated relevance: P(a retrieved turn is evidence for the question), from features that mean the
same thing for every question (a raw RRF or BM25 score does not: it depends on the question's words and
the archive's size).

The model is a logistic regression (Platt 1999's calibration by a sigmoid) over
:data:`core.retrieval.config.FEATURES`, fitted by iteratively reweighted least squares (Newton's method
on the log-likelihood, with a small L2 penalty) on the LoCoMo dev split: ``benchmarks/locomo.py --fit``
prints the coefficients that go into ``RelevanceConfig.coef``.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from core import hdc
from core.retrieval import lexicon
from core.retrieval.config import FEATURES, RelevanceConfig
from core.retrieval.cues import topic_tokens


def features(coverage: float, cosine: float, lexical: bool, agree: bool, rank: int) -> list[float]:
    """The feature vector in :data:`FEATURES` order."""
    return [float(coverage), float(cosine), float(bool(lexical)), float(bool(agree)), math.log(max(1, rank))]


def probability(x: Sequence[float], coef: Sequence[float]) -> float:
    """``σ(coef[0] + Σ coef[i+1]·x[i])`` in [0, 1]."""
    z = coef[0] + sum(c * v for c, v in zip(coef[1:], x))
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def coverage(query_tokens: Sequence[str], doc_tokens: set[str], idfs: dict[str, float]) -> float:
    """The idf-weighted share of the question's distinct tokens that occur in the turn (0..1; 0 when the
    question has no tokens)."""
    uniq = list(dict.fromkeys(query_tokens))
    total = sum(idfs.get(t, 0.0) for t in uniq)
    if total <= 0:
        return 0.0
    return sum(idfs.get(t, 0.0) for t in uniq if t in doc_tokens) / total


def question_idfs(cur, query_tokens: Sequence[str]) -> dict[str, float]:
    """BM25 idf of each of the question's tokens in the episode lexicon (``own`` column document frequencies)."""
    return idfs_of(lexicon.doc_count(cur), lexicon.doc_freqs(cur, query_tokens))


def idfs_of(docs: int, dfs: dict[str, int]) -> dict[str, float]:
    """:func:`question_idfs` of the lexicon's document count and the tokens' document frequencies."""
    n = max(1, docs)
    return {t: lexicon.idf(df, n) for t, df in dfs.items()}


def score_hits(cur, mem, hits, rows: dict, query_tokens: Sequence[str], gist_q: np.ndarray, cosine: dict[int, float],
               lexical: set[int], dense: set[int], cfg: RelevanceConfig, idfs: dict[str, float] | None = None,
               implied: Sequence[str] = ()) -> None:
    """Fill each hit's ``features`` and ``relevance`` (in place).

    Args:
        cur: a sqlite3 cursor on the Kith database.  mem: the episodic memory (gist rows).
        hits: ``core.retrieval.retriever.Hit`` list.  rows: their hydrated rows (``row`` = signature row;
            ``own`` = the lexicon's words of the turn, when read with them).
        query_tokens: the question's lexicon tokens.  gist_q: the question's gist signature ``uint8 (1024,)``.
        cosine: dense cosines by episode id (others are estimated from the gist signatures).
        lexical / dense: episode ids the lexical / dense rankings found.
        idfs: :func:`question_idfs` when the caller has them.
        implied: question tokens every turn implies — the owner's name put for "I" (the owner is a party to
            every message): counted as held by each turn in the coverage.  The verbs that frame the question
            ("who *told* me about …", ``core.retrieval.cues.topic_tokens``) are left out of it.
    """
    if not hits:
        return
    if all("own" in rows[h.episode_id] for h in hits):  # read with the rows (core.retrieval.retriever._hydrate)
        docs = {h.episode_id: (None, rows[h.episode_id]["own"]) for h in hits}
    else:
        docs = lexicon.docs(cur, [h.episode_id for h in hits])
    if idfs is None:
        idfs = question_idfs(cur, query_tokens)
    need = [h for h in hits if h.episode_id not in cosine and rows[h.episode_id]["row"] is not None]
    est: dict[int, float] = {}
    if need and len(mem.gists):
        sig_rows = [rows[h.episode_id]["row"] for h in need]
        ok = [r < len(mem.gists) for r in sig_rows]
        got = mem.gists.get([r for r, good in zip(sig_rows, ok) if good]) if any(ok) else np.zeros((0, hdc.NBYTES))
        dist = np.atleast_1d(hdc.hamming(gist_q, got)) if len(got) else []
        it = iter(dist)
        for h, good in zip(need, ok):
            if good:
                est[h.episode_id] = float(np.cos(np.pi * next(it) / hdc.DIM))
    topic = topic_tokens(list(query_tokens))  # "who told me about X": a turn about X covers it
    for h in hits:
        doc = set((docs.get(h.episode_id, (None, ""))[1] or "").split()).union(implied)
        cov = coverage(topic, doc, idfs)
        cos = cosine.get(h.episode_id, est.get(h.episode_id, 0.0))
        x = features(cov, cos, h.episode_id in lexical, h.episode_id in lexical and h.episode_id in dense, h.rank)
        h.features = dict(zip(FEATURES, x))
        h.features["question_words"] = len(set(topic))
        h.relevance = probability(x, cfg.coef)


def fit(X: np.ndarray, y: np.ndarray, l2: float = 1e-3, iters: int = 50) -> np.ndarray:
    """Logistic regression by IRLS (Newton–Raphson).

    Args:
        X: ``float (n, d)`` features.  y: ``{0, 1} (n,)`` labels.
        l2: ridge penalty on the weights (not the intercept).
        iters: the most Newton steps (stops when the step is below 1e-8).

    Returns:
        ``float (d + 1,)``: the intercept, then the weights.

    Raises:
        ValueError: shapes disagree, or the labels are all one class.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError(f"X must be (n, d) and y (n,), got {X.shape} and {y.shape}")
    if y.min() == y.max():
        raise ValueError("both classes are needed to fit a logistic model")
    A = np.hstack([np.ones((X.shape[0], 1)), X])
    beta = np.zeros(A.shape[1])
    reg = np.full(A.shape[1], l2)
    reg[0] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(A @ beta, -60, 60)))
        wgt = p * (1 - p)
        H = A.T @ (A * wgt[:, None]) + np.diag(reg)
        g = A.T @ (y - p) - reg * beta
        step = np.linalg.solve(H, g)
        beta += step
        if np.abs(step).max() < 1e-8:
            break
    return beta

"""Reciprocal rank fusion: the one implementation in Kith.

RRF (Cormack, Clarke & Büttcher, SIGIR 2009): ``score(d) = Σ_r w_r / (k + rank_r(d))``, ranks from 1.
It needs no calibration between the rankings' raw scores (BM25 and cosine are not comparable), which is
why Kith fuses with it; the paper's weights are all 1 and k = 60.
"""
from __future__ import annotations

from typing import Hashable, Iterable, Mapping, Sequence

PAPER_K = 60


def rrf(rankings: Mapping[str, Sequence[Hashable]] | Iterable[Sequence[Hashable]],
        weights: Mapping[str, float] | None = None, k: int = PAPER_K) -> list[tuple[Hashable, float]]:
    """Fuse best-first rankings.

    Args:
        rankings: named rankings (``{"lex": [id, ...], ...}``) or an iterable of unnamed ones; each a
            sequence of ids, best first (an id may be missing from some).
        weights: per-ranking weight for named rankings (a name missing here, or weighted 0, is left
            out); None weighs every ranking 1.
        k: the RRF constant (> 0).

    Returns:
        ``(id, fused score)`` pairs, highest first; ties keep first-seen order.

    Raises:
        ValueError: ``k`` is not positive, or weights are given for unnamed rankings.
    """
    if k <= 0:
        raise ValueError(f"the RRF constant must be positive, not {k}")
    if isinstance(rankings, Mapping):
        items = [(weights.get(name, 0.0) if weights is not None else 1.0, r) for name, r in rankings.items()]
    else:
        if weights is not None:
            raise ValueError("weights need named rankings")
        items = [(1.0, r) for r in rankings]
    scores: dict[Hashable, float] = {}
    for w, ranking in items:
        if not w:
            continue
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + w / (k + rank)
    return sorted(scores.items(), key=lambda kv: -kv[1])

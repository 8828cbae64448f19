"""The one RRF implementation."""
from __future__ import annotations

import pytest

from core.retrieval.fusion import rrf


def test_rrf_matches_hand_computed_scores():
    fused = dict(rrf([["a", "b", "c"], ["b", "d"]], k=60))
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["c"] == pytest.approx(1 / 63)
    assert [i for i, _ in rrf([["a", "b", "c"], ["b", "d"]])][:2] == ["b", "a"]


def test_weighted_rrf_leaves_out_unweighted_rankings():
    fused = dict(rrf({"lex": ["a", "b"], "dense": ["b"], "gist": ["z"]}, {"lex": 1.0, "dense": 0.5}, k=5))
    assert fused == pytest.approx({"a": 1 / 6, "b": 1 / 7 + 0.5 / 6})
    with pytest.raises(ValueError):
        rrf([["a"]], {"x": 1.0})
    with pytest.raises(ValueError):
        rrf([["a"]], k=0)

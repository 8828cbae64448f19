"""Kith's own MiniLM forward pass agrees with sentence-transformers (the reference implementation)."""
from __future__ import annotations

import numpy as np
import pytest

from app.models.encoders import DIM, MlxMiniLM, NumpyMiniLM, mlx_available, model_dir, pick_backend

SENTENCES = [
    "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.",
    "The capital of France is Paris.",
    "Re: [PATCH] perl5 sv.c leaks memory when upgrading a scalar",
    "Photo taken 2008-10-22 16:28 near Arezzo, Tuscany, Italy",
    "Mom had surgery last weekend, she's recovering well 🙏",
    "",
    "short",
    "Kith remembers the people, places and events in your archives. " * 30,  # > 256 tokens: truncated
]


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    st = pytest.importorskip("sentence_transformers")
    model = st.SentenceTransformer(str(model_dir()), device="cpu")
    return model.encode(SENTENCES, normalize_embeddings=True, convert_to_numpy=True)


@pytest.mark.slow
def test_numpy_forward_pass_matches_sentence_transformers(reference):
    ours = NumpyMiniLM().encode(SENTENCES, batch_size=3)
    assert ours.shape == (len(SENTENCES), DIM) and ours.dtype == np.float32
    cos = (ours * reference).sum(1)
    assert cos.min() >= 0.9999, cos
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


@pytest.mark.slow
@pytest.mark.skipif(not mlx_available(), reason="mlx does not import on this machine")
def test_mlx_forward_pass_matches_sentence_transformers(reference):
    ours = MlxMiniLM().encode(SENTENCES[:4])
    cos = (ours * reference[:4]).sum(1)
    assert cos.min() >= 0.9999, cos


def test_auto_backend_is_numpy_off_apple_silicon(monkeypatch):
    import app.models.encoders as enc

    monkeypatch.setattr(enc, "is_apple_silicon", lambda: False)
    assert pick_backend("auto") == "numpy"
    monkeypatch.setattr(enc, "is_apple_silicon", lambda: True)
    monkeypatch.setattr(enc, "mlx_available", lambda: True)
    assert pick_backend("auto") == "mlx"


def test_empty_input_gives_empty_matrix():
    assert NumpyMiniLM().encode([]).shape == (0, DIM)

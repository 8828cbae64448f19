"""The hyperdimensional-computing kernel (seed 001, layer 1): 8192-bit binary hypervectors.

A hypervector (HV) is 8192 bits packed big-endian into 1024 bytes: a numpy
``uint8`` array of shape ``(1024,)``, or ``(n, 1024)`` for a batch.  Bit ``i``
is bit ``7 - i % 8`` of byte ``i // 8`` (``np.packbits``/``np.unpackbits`` order).

Operations (Kanerva, "Hyperdimensional Computing", Cogn. Comput. 2009):

* :func:`bind` — XOR.  Self-inverse (``bind(bind(a, b), b) == a``), distributes
  over bundling, and its result is dissimilar (≈ 4096 bits away) from both inputs.
* :func:`bundle` — per-bit majority.  For an even count the tied bits are taken
  from a fixed tie-break HV (Kanerva 2009 adds a random vector for the same purpose),
  so the result is deterministic.  The bundle stays similar to every input.
* :func:`hamming` / :func:`similarity` — popcount of the XOR; similarity is
  ``1 - hamming / 8192`` (1.0 identical, ≈ 0.5 unrelated, σ ≈ 0.0055 for random pairs).
* :func:`hv` — a seeded random HV per concept name: SHAKE-256 of the name, so the same
  name gives the same bits on every machine, forever (no RNG-version dependence).
* :func:`project` — Charikar's sign random projection (STOC 2002): bit ``j`` of the
  signature is ``[R_j · x > 0]`` with ``R ∈ {-1,+1}^(8192×d)`` a fixed seeded matrix, so
  ``P[bit differs] = θ(x, y) / π`` and the expected hamming distance between two
  signatures is ``8192 · θ / π``.  Inputs are first quantised to multiples of
  ``2^-12``: every partial sum of ``R·x`` is then an integer of magnitude below
  ``384 · 4096 < 2^24``, so float32 arithmetic is exact in any summation order and
  both backends produce identical bits.

Two backends with identical results: ``numpy`` (``np.bitwise_count``) and ``mlx``
(SWAR popcount under ``mx.compile``; on Apple Silicon it runs on the GPU).
:func:`get_backend` ``("auto")`` picks mlx on Apple Silicon and numpy elsewhere —
on Linux mlx runs on a reference CPU BLAS and every call pays a copy from numpy
(DESIGN.md §2: choose by what is fast where it runs); ``KITH_HDC_BACKEND``
overrides the choice.  Every public function takes and returns numpy arrays.
"""
from __future__ import annotations

import functools
import hashlib
import os
import platform
import sys
from typing import Sequence

import numpy as np

DIM = 8192
"""Bits per hypervector (seed 001)."""
NBYTES = DIM // 8
"""Bytes per packed hypervector: 1024."""
PROJECTION_SEED = 0x4B17_4843
"""Seed of the projection matrix R; changing it invalidates every stored gist signature."""
QUANT = 4096.0
"""Projection inputs are rounded to multiples of 1/QUANT (2^-12) so float32 sums are exact."""

_SHIFTS = np.arange(7, -1, -1, dtype=np.uint8)
_CHUNK = 8192  # rows per scan chunk (8 MiB)


def hv(name: str) -> np.ndarray:
    """The random hypervector of a concept: ``uint8 (1024,)``, ~4096 bits set.

    Deterministic: SHAKE-256(b"kith-hv\\0" + UTF-8 name) truncated to 1024 bytes.
    Different names give (pseudo-)independent HVs, similarity ≈ 0.5.
    """
    return np.frombuffer(hashlib.shake_256(b"kith-hv\0" + name.encode("utf-8")).digest(NBYTES),
                         dtype=np.uint8).copy()


def hvs(names: Sequence[str]) -> np.ndarray:
    """:func:`hv` for each name: ``uint8 (len(names), 1024)``."""
    out = np.empty((len(names), NBYTES), dtype=np.uint8)
    for i, n in enumerate(names):
        out[i] = hv(n)
    return out


TIEBREAK = hv("kith:bundle-tiebreak")
"""The tie-break HV for bundles of an even number of vectors."""


def zeros(n: int | None = None) -> np.ndarray:
    """An all-zero HV ``uint8 (1024,)`` (or ``(n, 1024)``); the signature file's "invalid" row."""
    return np.zeros(NBYTES if n is None else (n, NBYTES), dtype=np.uint8)


def _as_rows(x: np.ndarray, name: str, any_width: bool = False) -> np.ndarray:
    x = np.asarray(x)
    ok = (x.shape[-1] % 8 == 0 and x.shape[-1] > 0) if any_width else x.shape[-1] == NBYTES
    if x.dtype != np.uint8 or not ok:
        want = "a multiple of 8" if any_width else str(NBYTES)
        raise ValueError(f"{name} must be uint8 with last axis {want}, got {x.dtype} {x.shape}")
    return x


def _quantise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        x = x[None, :]
    if x.ndim != 2:
        raise ValueError(f"project needs a vector or a matrix of vectors, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("project needs finite inputs")
    norm = np.linalg.norm(x, axis=1, keepdims=True)
    x = x / np.maximum(norm, 1e-12)  # unit length: components in [-1, 1], so |sum| <= d * QUANT
    return np.rint(x * QUANT).astype(np.float32)


@functools.lru_cache(maxsize=4)
def projection_matrix(d: int, seed: int = PROJECTION_SEED) -> np.ndarray:
    """R ∈ {-1,+1}^(8192×d) as ``float32 (8192, d)`` (Charikar 2002), fixed by ``seed`` (PCG64).

    Raises:
        ValueError: ``d * 4096 >= 2**24`` (float32 sums would no longer be exact; d ≤ 4095).
    """
    if d <= 0 or d * QUANT >= 2 ** 24:
        raise ValueError(f"projection input dimension {d} out of range (1..4095)")
    rng = np.random.Generator(np.random.PCG64(seed))
    r = rng.integers(0, 2, size=(DIM, d), dtype=np.int8).astype(np.float32)
    r = r * 2.0 - 1.0
    r.setflags(write=False)
    return r


class NumpyBackend:
    """The numpy kernel (``np.bitwise_count``, numpy ≥ 2.0)."""

    name = "numpy"

    def bind(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.bitwise_xor(_as_rows(a, "a"), _as_rows(b, "b"))

    def bundle(self, vs: np.ndarray) -> np.ndarray:
        vs = _as_rows(vs, "vectors")
        if vs.ndim != 2 or vs.shape[0] == 0:
            raise ValueError("bundle needs a non-empty (n, 1024) array")
        n = vs.shape[0]
        counts = np.unpackbits(vs, axis=1).sum(axis=0, dtype=np.int64)
        tie = np.unpackbits(TIEBREAK).astype(bool)
        bits = (2 * counts > n) | ((2 * counts == n) & tie)
        return np.packbits(bits)

    def hamming(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a = _as_rows(a, "a", any_width=True)
        b = _as_rows(b, "b", any_width=True)
        w = a.shape[-1] // 8
        if a.ndim == 1 and b.ndim == 1:
            x = np.bitwise_xor(a, b)
            return np.int64(np.bitwise_count(x.view(np.uint64)).sum(dtype=np.int64))
        a2 = np.ascontiguousarray(np.atleast_2d(a)).view(np.uint64)
        b2 = np.ascontiguousarray(np.atleast_2d(b)).view(np.uint64)
        if a2.shape[0] > 1 and b2.shape[0] == 1:
            a2, b2 = b2, a2
        n = b2.shape[0] if a2.shape[0] == 1 else a2.shape[0]
        out = np.empty(n, dtype=np.int32)
        if n == 0:
            return out
        ch = min(n, max(_CHUNK, (8 << 20) // (8 * w)))  # ~8 MiB of input per chunk
        buf = np.empty(ch * w, dtype=np.uint64)
        cnt = np.empty(ch * w, dtype=np.uint8)
        # one query against many rows: tile it once so the XOR runs flat (broadcasting over a
        # short inner axis is several times slower)
        qt = np.tile(a2.ravel(), ch) if a2.shape[0] == 1 else None
        for s in range(0, n, ch):  # cache-sized chunks: no 100 MB temporaries
            e = min(n, s + ch)
            k = e - s
            left = qt[:k * w] if qt is not None else a2[s:e].reshape(-1)
            np.bitwise_xor(left, b2[s:e].reshape(-1), out=buf[:k * w])
            np.bitwise_count(buf[:k * w], out=cnt[:k * w])
            c2 = cnt[:k * w].reshape(k, w)
            if w <= 8:  # narrow rows (sketches): column adds beat a reduction over a tiny axis
                o = out[s:e]
                o[:] = c2[:, 0]
                for j in range(1, w):
                    o += c2[:, j]
            else:
                c2.sum(axis=1, dtype=np.int32, out=out[s:e])
        return out

    def project(self, x: np.ndarray) -> np.ndarray:
        q = _quantise(x)
        y = q @ projection_matrix(q.shape[1]).T
        return np.packbits(y > 0, axis=1)


class MlxBackend:
    """The mlx kernel: SWAR popcount over uint32 words under ``mx.compile``; GPU on Apple Silicon.

    Raises:
        ImportError: mlx is not installed (construct through :func:`get_backend`).
    """

    name = "mlx"

    def __init__(self):
        import mlx.core as mx

        self.mx = mx
        self._shifts = mx.array(_SHIFTS)

        def popcount_rows(x):
            x = x - ((x >> 1) & 0x55555555)
            x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
            x = (x + (x >> 4)) & 0x0F0F0F0F
            x = (x * 0x01010101) >> 24
            return x.astype(mx.int32).sum(axis=-1)

        def ham(q, m):
            return popcount_rows(mx.bitwise_xor(q, m))

        self._ham = mx.compile(ham)
        self._r: dict[int, object] = {}

    def _words(self, a: np.ndarray):
        a = np.ascontiguousarray(a)
        return self.mx.array(a.view(np.uint32))

    def bind(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a = _as_rows(a, "a")
        b = _as_rows(b, "b")
        return np.array(self.mx.bitwise_xor(self.mx.array(a), self.mx.array(b)), dtype=np.uint8)

    def _unpack(self, v):
        mx = self.mx
        return (mx.right_shift(v[..., None], self._shifts) & 1).reshape(*v.shape[:-1], DIM)

    def bundle(self, vs: np.ndarray) -> np.ndarray:
        mx = self.mx
        vs = _as_rows(vs, "vectors")
        if vs.ndim != 2 or vs.shape[0] == 0:
            raise ValueError("bundle needs a non-empty (n, 1024) array")
        n = vs.shape[0]
        counts = self._unpack(mx.array(vs)).astype(mx.int32).sum(axis=0)
        tie = self._unpack(mx.array(TIEBREAK)).astype(mx.bool_)
        bits = (2 * counts > n) | ((2 * counts == n) & tie)
        return self._pack(bits.astype(mx.uint8))[0]

    def _pack(self, bits):
        mx = self.mx
        b = bits.reshape(-1, NBYTES, 8)
        return np.array((mx.left_shift(b, self._shifts)).sum(axis=-1).astype(mx.uint8), dtype=np.uint8)

    def hamming(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a = _as_rows(a, "a", any_width=True)
        b = _as_rows(b, "b", any_width=True)
        out = np.array(self._ham(self._words(a), self._words(b)))
        return np.int64(out) if out.ndim == 0 else out.astype(np.int32)

    def project(self, x: np.ndarray) -> np.ndarray:
        mx = self.mx
        q = _quantise(x)
        d = q.shape[1]
        if d not in self._r:
            self._r[d] = mx.array(projection_matrix(d))
        y = mx.matmul(mx.array(q), self._r[d].T)
        return self._pack((y > 0).astype(mx.uint8))


def mlx_available() -> bool:
    """True when ``mlx.core`` imports."""
    try:
        import mlx.core  # noqa: F401
    except Exception:
        return False
    return True


@functools.lru_cache(maxsize=None)
def get_backend(name: str = "auto") -> NumpyBackend | MlxBackend:
    """The kernel backend called ``name``: ``"numpy"``, ``"mlx"`` or ``"auto"``.

    ``"auto"`` reads ``KITH_HDC_BACKEND`` if set, else picks mlx on Apple Silicon (Metal GPU)
    when it imports and numpy everywhere else (see the module docstring for why).

    Raises:
        ValueError: an unknown name, or ``"mlx"`` where mlx does not import.
    """
    if name == "auto":
        name = os.environ.get("KITH_HDC_BACKEND", "")
        if not name:
            apple = sys.platform == "darwin" and platform.machine() == "arm64"
            name = "mlx" if (apple and mlx_available()) else "numpy"
    if name == "numpy":
        return NumpyBackend()
    if name == "mlx":
        if not mlx_available():
            raise ValueError("HDC backend 'mlx' requested but mlx does not import here")
        return MlxBackend()
    raise ValueError(f"unknown HDC backend {name!r} (use auto, numpy or mlx)")


# ---- module-level API on the default backend -------------------------------------------------

def bind(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """XOR of two HVs (or broadcastable batches): ``uint8 (..., 1024)``.

    Raises:
        ValueError: not uint8 with last axis 1024.
    """
    return get_backend().bind(a, b)


def bind_all(vs: Sequence[np.ndarray]) -> np.ndarray:
    """XOR of several HVs, left to right: ``uint8 (1024,)``."""
    out = zeros()
    for v in vs:
        out = np.bitwise_xor(out, _as_rows(v, "v"))
    return out


def bundle(vs: np.ndarray | Sequence[np.ndarray]) -> np.ndarray:
    """Per-bit majority of ``n ≥ 1`` HVs (``uint8 (n, 1024)`` or a list): ``uint8 (1024,)``.

    Ties (possible only for even ``n``) take :data:`TIEBREAK`'s bit.

    Raises:
        ValueError: empty input or wrong dtype/shape.
    """
    arr = np.asarray(vs, dtype=np.uint8) if not isinstance(vs, np.ndarray) else vs
    if arr.ndim == 1:
        arr = arr[None, :]
    return get_backend().bundle(arr)


def hamming(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamming distance in bits (0..8192): ``int64`` scalar for two HVs, ``int32 (n,)`` for one HV
    against ``(n, 1024)`` rows (or row-wise for two ``(n, 1024)`` arrays).  Any width that is a
    multiple of 8 bytes is accepted (signature-file sketches are 32-byte prefixes).

    Raises:
        ValueError: not uint8, or last axis not a multiple of 8.
    """
    return get_backend().hamming(a, b)


def similarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``1 - hamming / 8192`` as float64 (scalar or ``(n,)``); ≈ 0.5 for unrelated HVs."""
    return 1.0 - np.asarray(hamming(a, b), dtype=np.float64) / DIM


def project(x: np.ndarray) -> np.ndarray:
    """Charikar sign projection of dense vectors: ``float (d,)`` → ``uint8 (1024,)``,
    ``float (n, d)`` → ``uint8 (n, 1024)``.  Inputs are L2-normalised first (the sign
    pattern depends only on direction).

    Raises:
        ValueError: non-finite input, wrong rank, or d outside 1..4095.
    """
    x = np.asarray(x)
    out = get_backend().project(x)
    return out[0] if x.ndim == 1 else out


def expected_hamming(cosine: float) -> float:
    """Charikar 2002: the expected hamming distance (bits) between the projections of two
    vectors with this cosine, ``8192 · arccos(cosine) / π``."""
    return DIM * float(np.arccos(np.clip(cosine, -1.0, 1.0))) / np.pi

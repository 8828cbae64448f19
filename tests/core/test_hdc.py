"""The HDC kernel's algebra, hand-computed distances, and both backends bit for bit."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from core import hdc

BACKENDS = ["numpy"] + (["mlx"] if hdc.mlx_available() else [])


def rand(n=None, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, size=(hdc.NBYTES,) if n is None else (n, hdc.NBYTES), dtype=np.uint8)


@pytest.mark.parametrize("name", BACKENDS)
def test_hand_computed_hamming(name):
    be = hdc.get_backend(name)
    a = hdc.zeros()
    b = hdc.zeros()
    b[0] = 0xFF          # 8 bits
    b[1023] = 0x01       # 1 bit
    b[512] = 0b1010_0000  # 2 bits
    assert int(be.hamming(a, b)) == 11
    rows = np.stack([a, b, np.full(hdc.NBYTES, 0xFF, np.uint8)])
    assert be.hamming(a, rows).tolist() == [0, 11, 8192]
    assert hdc.similarity(a, b) == pytest.approx(1 - 11 / 8192)


@pytest.mark.parametrize("name", BACKENDS)
def test_bind_is_its_own_inverse(name):
    be = hdc.get_backend(name)
    a, b = rand(seed=1), rand(seed=2)
    ab = be.bind(a, b)
    assert np.array_equal(be.bind(ab, b), a)
    assert np.array_equal(be.bind(ab, a), b)
    # a XOR b differs from a exactly where b has ones
    assert int(be.hamming(ab, a)) == int(np.unpackbits(b).sum())


@pytest.mark.parametrize("name", BACKENDS)
def test_bundle_majority_and_tiebreak(name):
    be = hdc.get_backend(name)
    v = rand(seed=3)
    assert np.array_equal(be.bundle(np.stack([v, v, v])), v)
    assert np.array_equal(be.bundle(v[None, :]), v)
    # two noisy copies out of three cannot outvote two clean ones at a bit they disagree on
    noisy = v.copy()
    noisy[:100] ^= 0xFF
    assert np.array_equal(be.bundle(np.stack([v, noisy, v])), v)
    # a vector and its complement tie everywhere: the result is the tie-break vector
    assert np.array_equal(be.bundle(np.stack([v, ~v])), hdc.TIEBREAK)
    # hand-computed: first byte of three rows 0b1100_0000, 0b1010_0000, 0b1001_0000 -> 0b1000_0000
    m = np.zeros((3, hdc.NBYTES), np.uint8)
    m[:, 0] = [0b1100_0000, 0b1010_0000, 0b1001_0000]
    out = be.bundle(m)
    assert out[0] == 0b1000_0000 and not out[1:].any()


def test_bundle_stays_similar_to_each_input():
    vs = rand(5, seed=4)
    b = hdc.bundle(vs)
    sims = hdc.similarity(b, vs)
    # majority of 5: a bit agrees with a given input with probability 11/16 = 0.6875 (Kanerva 2009)
    assert np.all(np.abs(sims - 0.6875) < 0.02)
    assert abs(float(hdc.similarity(b, rand(seed=99))) - 0.5) < 0.02


def test_hv_is_seeded_by_name():
    assert np.array_equal(hdc.hv("sarah"), hdc.hv("sarah"))
    want = np.frombuffer(hashlib.shake_256(b"kith-hv\0sarah").digest(1024), np.uint8)
    assert np.array_equal(hdc.hv("sarah"), want)
    assert abs(float(hdc.similarity(hdc.hv("sarah"), hdc.hv("bob"))) - 0.5) < 5 * 0.0056


def test_projection_is_scale_invariant_and_rejects_bad_input():
    x = np.random.default_rng(5).standard_normal(384)
    assert np.array_equal(hdc.project(x), hdc.project(3.7 * x))
    assert hdc.project(np.stack([x, -x])).shape == (2, hdc.NBYTES)
    # the negation flips every bit whose projection is non-zero
    assert int(hdc.hamming(hdc.project(x), hdc.project(-x))) > 8100
    with pytest.raises(ValueError):
        hdc.project(np.array([np.nan] * 384))
    with pytest.raises(ValueError):
        hdc.hamming(np.zeros(1024, np.int32), np.zeros(1024, np.int32))


@pytest.mark.skipif(not hdc.mlx_available(), reason="mlx is not installed here; only numpy can run")
def test_backends_give_identical_bits():
    nb, mb = hdc.get_backend("numpy"), hdc.get_backend("mlx")
    m = rand(257, seed=6)
    q = rand(seed=7)
    assert np.array_equal(nb.hamming(q, m), mb.hamming(q, m))
    assert np.array_equal(nb.hamming(m[:100], m[100:200]), mb.hamming(m[:100], m[100:200]))
    assert np.array_equal(nb.hamming(q[:32], m[:, :32]), mb.hamming(q[:32], m[:, :32]))
    for n in (1, 2, 5, 64, 257):
        assert np.array_equal(nb.bundle(m[:n]), mb.bundle(m[:n])), n
    assert np.array_equal(nb.bind(q, m), mb.bind(q, m))
    x = np.random.default_rng(8).standard_normal((200, 384)).astype(np.float32)
    x[0] = 0.0  # all-zero input: every projection is exactly 0 -> all bits 0 in both
    assert np.array_equal(nb.project(x), mb.project(x))
    assert not nb.project(x)[0].any()


def test_projection_preserves_cosine_ordering_on_real_sentences():
    from app.models.encoders import NumpyMiniLM

    enc = NumpyMiniLM()
    pairs = [
        ("A man is playing a guitar.", "Someone plays an acoustic guitar."),
        ("The cat sat on the mat.", "A kitten is resting on a rug."),
        ("I adopted a puppy from the shelter last week.", "We went to the shelter and brought home a dog."),
        ("Quarterly revenue grew by ten percent.", "She painted a sunset over the lake."),
        ("The train to Paris was delayed.", "My favourite food is sushi."),
        ("How do I reset my password?", "Photosynthesis happens in chloroplasts."),
    ]
    a = enc.encode([p[0] for p in pairs])
    b = enc.encode([p[1] for p in pairs])
    cos = (a * b).sum(1)
    ham = hdc.hamming(hdc.project(a), hdc.project(b))
    for c, h in zip(cos, ham):
        theta_p = np.arccos(c) / np.pi
        sd = np.sqrt(hdc.DIM * theta_p * (1 - theta_p))
        assert abs(h - hdc.expected_hamming(c)) < 5 * sd, (c, h)  # Charikar 2002: E[h] = 8192·θ/π
    order_cos = np.argsort(-cos)
    # every pair whose cosines differ by > 0.1 keeps its order in hamming distance
    for i in range(len(pairs)):
        for j in range(len(pairs)):
            if cos[i] > cos[j] + 0.1:
                assert ham[i] < ham[j], (pairs[i], pairs[j])
    assert order_cos[0] in (0, 1, 2)

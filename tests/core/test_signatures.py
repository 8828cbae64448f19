"""The flat, mmap'd signature file on a real file."""
from __future__ import annotations

import numpy as np
import pytest

from core.errors import StoreError
from core.store.signatures import SignatureFile


def rows(n, seed=0):
    return np.random.default_rng(seed).integers(1, 256, size=(n, 1024), dtype=np.uint8)


def test_append_read_reopen(tmp_path):
    path = tmp_path / "signatures.dat"
    f = SignatureFile(path)
    a, b = rows(3, 1), rows(2, 2)
    assert f.append(a).tolist() == [0, 1, 2]
    assert f.append(b[0]).tolist() == [3]
    assert f.append(b[1:]).tolist() == [4]
    assert path.stat().st_size == 5 * 1024
    assert np.array_equal(f.rows()[3], b[0]) and isinstance(f.rows(), np.memmap)
    assert np.array_equal(f.get([4, 0]), np.stack([b[1], a[0]]))
    assert np.array_equal(f.sketch(), np.concatenate([a, b])[:, :32])
    f.close()
    g = SignatureFile(path)
    assert len(g) == 5 and np.array_equal(g.rows()[:3], a)
    with pytest.raises(IndexError):
        g.get(5)


def test_invalidate_lists_and_compaction_maps_rows(tmp_path):
    f = SignatureFile(tmp_path / "s.dat", durable=False)
    data = rows(6, 3)
    f.append(data)
    assert f.invalidate([1, 4, 4]) == 2
    assert not f.rows()[1].any() and not f.rows()[4].any() and not f.sketch()[4].any()
    assert f.invalid().tolist() == [1, 4]
    mapping = f.compact(drop=[5])
    assert mapping.tolist() == [0, -1, 1, 2, -1, -1]
    assert len(f) == 3 and (tmp_path / "s.dat").stat().st_size == 3 * 1024
    assert np.array_equal(f.rows(), data[[0, 2, 3]])
    assert np.array_equal(f.sketch(), data[[0, 2, 3], :32])
    assert f.invalid().size == 0
    assert f.append(rows(1, 9)).tolist() == [3]


def test_torn_file_is_refused(tmp_path):
    p = tmp_path / "s.dat"
    p.write_bytes(b"\0" * 1500)
    with pytest.raises(StoreError):
        SignatureFile(p)


def test_wrong_shape_is_refused(tmp_path):
    f = SignatureFile(tmp_path / "s.dat")
    with pytest.raises(ValueError):
        f.append(np.zeros((2, 512), np.uint8))

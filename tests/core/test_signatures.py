"""The flat, mmap'd signature file on a real file."""
from __future__ import annotations

import numpy as np
import pytest

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


def test_a_torn_tail_is_ignored_by_readers_and_cut_by_the_next_append(tmp_path):
    p = tmp_path / "s.dat"
    data = rows(2, 4)
    p.write_bytes(data.tobytes() + b"\x07" * 476)  # a crash 476 bytes into row 2
    f = SignatureFile(p)
    assert len(f) == 2 and f.torn == 476
    assert p.stat().st_size == 2 * 1024 + 476  # opening wrote nothing
    assert np.array_equal(f.sketch(), data[:, :32])  # the sketch file was never written: read from the rows
    new = rows(1, 5)
    assert f.append(new).tolist() == [2]  # the torn row is overwritten, not kept
    assert p.stat().st_size == 3 * 1024 and f.torn == 0
    assert np.array_equal(SignatureFile(p).rows(), np.concatenate([data, new]))
    assert (tmp_path / "s.dat.sketch").stat().st_size == 3 * 32


def test_append_takes_its_row_from_the_file_not_from_a_counter(tmp_path):
    """Two handles on one file (two processes, one after the other under the writer lock) never share a row."""
    p = tmp_path / "s.dat"
    a, b = SignatureFile(p), SignatureFile(p)
    assert a.append(rows(3, 1)).tolist() == [0, 1, 2]
    assert b.append(rows(2, 2)).tolist() == [3, 4]  # b opened when the file was empty
    assert a.append(rows(1, 3)).tolist() == [5]
    assert np.array_equal(a.get([3, 4]), rows(2, 2))
    assert len(SignatureFile(p)) == 6


def test_repair_cuts_orphan_rows_and_fixes_the_sketch(tmp_path):
    p = tmp_path / "s.dat"
    f = SignatureFile(p)
    f.append(rows(4, 6))
    (tmp_path / "s.dat.sketch").write_bytes(b"")  # a crash before the sketch append
    assert f.repair(rows=3) == {"torn_bytes": 0, "rows_cut": 1, "sketch_rows_fixed": 3}
    assert len(f) == 3 and np.array_equal(f.sketch(), rows(4, 6)[:3, :32])


def test_wrong_shape_is_refused(tmp_path):
    f = SignatureFile(tmp_path / "s.dat")
    with pytest.raises(ValueError):
        f.append(np.zeros((2, 512), np.uint8))

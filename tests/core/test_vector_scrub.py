"""``VectorStore.scrub_index_files`` (issue 11's purge): the bytes of Chroma's HNSW files that the index never
reads — capacity slots past the elements in use, neighbour-list entries past their count — are zeroed, and the
index answers exactly as before.  Those bytes held a purged person's words once (heap leftovers of the purging
process, saved by Chroma as they were); here they are planted, then looked for."""
from __future__ import annotations

import struct
import sys

import numpy as np
import pytest

from core.store.vectors import VectorStore

SECRET = b"Steve Sapovits"


def _segment(path):
    return next(p for p in path.iterdir() if p.is_dir() and (p / "header.bin").exists()
                and struct.unpack_from("<6Q", (p / "header.bin").read_bytes(), 4)[2] > 0)


def test_the_bytes_the_index_never_reads_are_zeroed_and_it_answers_the_same(tmp_path):
    rng = np.random.default_rng(11)
    vecs = rng.standard_normal((1500, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    vs = VectorStore(tmp_path / "chroma")
    vs.upsert("records", [f"record:{i}" for i in range(1500)], vecs)
    queries = rng.standard_normal((10, 384)).astype(np.float32)
    before = [vs.query("records", q, 15) for q in queries]
    vs.close()

    seg = _segment(tmp_path / "chroma")
    _o, capacity, used, per, _label, links0 = struct.unpack_from("<6Q", (seg / "header.bin").read_bytes(), 4)
    assert used == 1500 and capacity >= used
    data = bytearray((seg / "data_level0.bin").read_bytes())
    # a used slot with room past its neighbour list's count (the index is built on several threads: which one
    # varies from run to run)
    at = next(i * per for i in range(used) if 4 + 4 * int.from_bytes(data[i * per:i * per + 2], "little")
              + len(SECRET) <= links0)
    count = int.from_bytes(data[at:at + 2], "little")
    data[at + 4 + 4 * count: at + 4 + 4 * count + len(SECRET)] = SECRET  # as heap leftovers would lie
    data[at + 2:at + 4] = b"\xab\xcd"
    if len(data) > used * per:  # a capacity slot past the elements in use
        data[used * per: used * per + len(SECRET)] = SECRET
    (seg / "data_level0.bin").write_bytes(bytes(data))
    norms = bytearray((seg / "length.bin").read_bytes())
    norms += SECRET if len(norms) <= 4 * used else b""
    if len(norms) > 4 * used:
        norms[4 * used: 4 * used + min(len(SECRET), len(norms) - 4 * used)] = SECRET[: len(norms) - 4 * used]
    (seg / "length.bin").write_bytes(bytes(norms))

    assert VectorStore(tmp_path / "chroma").scrub_index_files() == 2
    for name in ("data_level0.bin", "length.bin"):
        assert SECRET[:4] not in (seg / name).read_bytes()
    data = (seg / "data_level0.bin").read_bytes()
    assert data[at + 2:at + 4] == b"\0\0" and not any(data[used * per:])
    assert not any((seg / "length.bin").read_bytes()[4 * used:])

    again = VectorStore(tmp_path / "chroma")
    assert [again.query("records", q, 15) for q in queries] == before
    again.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mmap threshold: Linux only")
def test_large_allocations_are_zero_filled_pages_in_a_process_that_purged(tmp_path):
    # Chroma writes its whole HNSW element buffer (used or not) on a client's first query; glibc's rising mmap
    # threshold let that buffer come from the heap with a purged person's words in it (CI, stop 25): a purge fixes
    # the threshold for the rest of its process, so such buffers are fresh zero pages
    import core.store.vectors as vectors

    assert vectors.zeroed_large_allocations() is True and vectors._MMAP_FIXED is True

"""The crash harness in CI (tests/crash_harness.py): SIGKILL `kith ingest` mid-import, import again, all clean."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crash_harness import run_harness  # noqa: E402


@pytest.mark.slow
def test_killed_imports_are_completed_by_the_next_import(tmp_path):
    lines: list[str] = []
    results = run_harness(n=100, runs=3, seed=7, work=tmp_path, echo=lines.append, in_process=True)
    print("\n".join(lines))
    assert len(results) == 3  # three kills at random points (tests/crash_harness.py --runs 20 runs more)
    assert sum(r.killed for r in results) >= 2, lines  # the kills must land mid-import to test anything
    assert [r.problems for r in results] == [[]] * 3, lines

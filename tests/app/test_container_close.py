"""Closing a Container releases every file it opened (Chroma's SQLite and HNSW segment files, the memory's
signature files): opening one data folder after another must not leak descriptors. Chroma keeps its files open
until its last client closes; unclosed, each folder left ~20 descriptors open and the test suite ran out of them."""
from __future__ import annotations

import os

import pytest

from app.container import Container
from app.operations.ask import ask
from app.operations.ingest import ingest
from app.settings import Settings
from helpers.mboxes import write_mbox

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts descriptors in /proc/self/fd (Linux)")


def _open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


def _use_a_folder(tmp_path, i: int) -> None:
    c = Container(Settings.load(tmp_path / f"home{i}"))
    try:
        mail = write_mbox(tmp_path / f"m{i}.mbox", [("Bob Stone <bob@example.org>", "Climbing", "Saturday at the crag?")])
        assert ingest(c, [mail]).records_added == 1
        assert ask(c, "when is the climbing?")  # Chroma's index and the signature files opened
    finally:
        c.close()


def test_closing_a_container_releases_its_files(tmp_path):
    _use_a_folder(tmp_path, 0)  # the first one also loads what stays loaded (the encoder, libraries)
    before = _open_files()
    for i in range(1, 4):
        _use_a_folder(tmp_path, i)
    after = _open_files()
    assert after <= before, f"{after} descriptors open after three more folders, {before} before"

"""A voice memo imported end to end with the real Whisper tiny.en (converted from the bundled weights)."""
from __future__ import annotations

import shutil

import pytest

from app.operations.ask import ask
from app.operations.ingest import ingest

pytestmark = pytest.mark.slow


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="whisper needs ffmpeg")
def test_jfk_memo_is_transcribed_and_searchable(container, corpus):
    report = ingest(container, [corpus / "audio" / "jfk.flac"])
    assert (report.records_added, report.errors) == (1, [])
    [top] = ask(container, "ask not what your country can do for you", k=1)
    assert top.source.endswith("jfk.flac")
    words = "".join(ch for ch in top.text.lower() if ch.isalnum() or ch == " ").split()
    assert words == "and so my fellow americans ask not what your country can do for you ask what you can do for your country".split()
    assert top.when is None  # the FLAC carries no creation_time tag

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


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="whisper needs ffmpeg")
def test_a_folder_of_memos_at_other_rates_channels_and_lengths(container, corpus, tmp_path):
    import subprocess
    from datetime import datetime, timezone

    from sqlmodel import select

    from core.clock import ensure_utc
    from core.store.schema import Record as RecordRow

    jfk = corpus / "audio" / "jfk.flac"
    folder = tmp_path / "memos"
    folder.mkdir()

    def ff(*args):
        subprocess.run(["ffmpeg", "-v", "quiet", "-y", *args], check=True)

    ff("-i", str(jfk), "-ar", "48000", "-ac", "2", str(folder / "stereo48k.wav"))
    ff("-i", str(jfk), "-ar", "8000", str(folder / "phone8k.wav"))
    ff("-i", str(jfk), "-c:a", "aac", "-map_metadata", "-1", str(folder / "20230504 101233.m4a"))
    ff("-f", "lavfi", "-i", "anullsrc=r=44100:cl=stereo", "-t", "30", str(folder / "silence.wav"))
    ff("-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.001:r=48000", "-t", "10", str(folder / "hiss.wav"))
    (folder / "broken.wav").write_bytes(b"")
    report = ingest(container, [folder])
    assert (report.files, report.records_added) == (6, 5)
    assert [(e.path, e.reason) for e in report.errors] == [(str(folder / "broken.wav"), "empty file (0 bytes): no audio")]
    with container.db.session() as s:
        rows = {r.external_id: r for r in s.exec(select(RecordRow)).all()}
    for name in ("stereo48k.wav", "phone8k.wav", "20230504 101233.m4a"):
        words = "".join(ch for ch in rows[name].text.lower() if ch.isalnum() or ch == " ").split()
        assert words[:4] == ["and", "so", "my", "fellow"] and words[-3:] == ["for", "your", "country"], name
    for name in ("silence.wav", "hiss.wav"):
        assert rows[name].text == "" and "no speech found" in rows[name].attrs["notes"]
    memo = rows["20230504 101233.m4a"]
    assert ensure_utc(memo.sent_at) == datetime(2023, 5, 4, 10, 12, 33, tzinfo=timezone.utc)  # settings' zone: UTC
    assert memo.attrs["time_basis"] == "file-name"

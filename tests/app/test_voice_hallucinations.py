"""Whisper's words on a noise that is not speech ("you", "Thank you.") are never a memo's text.

The first tests put a stand-in for the Whisper model in the Transcriber (no weights needed): it answers
what Whisper tiny.en answered on the same sound (measured: " You", no_speech_prob 0.833, avg_logprob
−0.936 on 0.6 s of noise between silences — over Whisper's own 0.6 no-speech threshold but above its −1
log-prob floor, so Whisper's own rule kept it).  The last one runs the real tiny.en (slow).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.models.transcribe import SAMPLE_RATE, Transcriber, is_hallucination, speech_regions
from ingestors.voice import VoiceIngestor


def _burst(seed: int = 7) -> np.ndarray:
    """6.6 s: 3 s of silence, 0.6 s of loud noise (a knock, a cough), 3 s of silence."""
    audio = np.zeros(int(6.6 * SAMPLE_RATE), np.float32)
    audio[3 * SAMPLE_RATE: int(3.6 * SAMPLE_RATE)] = np.random.default_rng(seed).normal(0, 0.1, int(0.6 * SAMPLE_RATE))
    return audio


class _Whisper:
    """What ``whisper.load_model`` returns, as far as the Transcriber uses it, answering ``segments``."""

    is_multilingual = False

    def __init__(self, segments):
        self.segments = segments

    def transcribe(self, samples, **kwargs):
        return {"segments": [dict(s, start=0.0, end=len(samples) / SAMPLE_RATE) for s in self.segments],
                "language": "en"}


def _transcriber(segments) -> Transcriber:
    t = Transcriber(Path("unused.pt"))
    t._model = _Whisper(segments)
    return t


def test_the_noise_is_a_spoken_stretch_for_the_energy_check():
    # the voice-activity check alone cannot tell: Whisper's answer has to be judged
    assert speech_regions(_burst()) == [(44000, 61600)]  # 2.75 s to 3.85 s, padded


@pytest.mark.parametrize("text", [" You", " Thank you.", " Thank you. Thank you.", " Thanks for watching!",
                                  " Subtitles by the Amara.org community"])
def test_whispers_words_on_noise_are_no_speech(text):
    result = _transcriber([{"text": text, "no_speech_prob": 0.833, "avg_logprob": -0.936}]).transcribe(_burst())
    assert (result.text, result.segments, result.no_speech) == ("", [], True)


@pytest.mark.parametrize("text, no_speech_prob", [
    (" Thank you.", 0.05),                    # said: Whisper is sure it is speech
    (" Thank you for the flowers.", 0.833),   # more than the stock phrase: kept
])
def test_real_words_are_kept(text, no_speech_prob):
    result = _transcriber([{"text": text, "no_speech_prob": no_speech_prob, "avg_logprob": -0.5}]).transcribe(_burst())
    assert (result.text, result.no_speech) == (text.strip(), False)


def test_the_memo_record_holds_no_text(tmp_path):
    memo = tmp_path / "knock.wav"
    memo.write_bytes(b"RIFF")  # not decoded: the stand-in transcriber is given the samples
    t = _transcriber([{"text": " You", "no_speech_prob": 0.833, "avg_logprob": -0.936}])
    [rec] = VoiceIngestor(lambda _path: t.transcribe(_burst())).read(memo)
    assert rec.text == "" and "no speech found" in rec.notes


def test_is_hallucination():
    assert is_hallucination("you") and is_hallucination("Bye.") and is_hallucination("...")
    assert not is_hallucination("You know what, call me.") and not is_hallucination("You. Call me.")


@pytest.mark.slow
def test_real_tiny_en_writes_nothing_for_a_noise_burst(tmp_path_factory):
    from app.models import convert_whisper

    checkpoint = convert_whisper.ensure_default_checkpoint(tmp_path_factory.mktemp("whisper-models"))
    result = Transcriber(checkpoint).transcribe(_burst())
    assert (result.text, result.no_speech) == ("", True)

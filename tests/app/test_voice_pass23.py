"""Voice memos, pass 23: sounds that are not speech (white and pink noise, a steady tone, mains hum, noise in an AAC
.m4a), a WAV that is only a header, one cut short, one whose header is garbage, an empty file, and a Voice Memos
.m4a whose own local time says where it was recorded.  Each is a record with a clear note or a quarantined file
named with its reason — never text Whisper made up — and a memo's day is the day where it was recorded.

Non-speech files go through the real Transcriber with ffmpeg decoding; the energy check finds no speech, so no
model is loaded.  The one that needs Whisper itself (a beep between silences) is marked slow.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import wave
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from app.cli import main
from app.models.transcribe import Transcriber, Transcript
from core.errors import InputError
from ingestors.voice import VoiceIngestor, recording_time

pytestmark = pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="decoding audio needs ffmpeg")
UTC = timezone.utc


def ff(*args):
    subprocess.run(["ffmpeg", "-v", "quiet", "-nostdin", "-y", *args], check=True)


def write_wav(path: Path, samples: np.ndarray, rate: int = 16000, channels: int = 1) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return path


def _ingestor() -> VoiceIngestor:
    t = Transcriber(Path("never-loaded.pt"))  # no speech found: the model is never loaded
    return VoiceIngestor(t.transcribe)


def _read(path: Path):
    (rec,) = _ingestor().read(path)
    return rec


@pytest.mark.parametrize("source", [
    "anoisesrc=d=5:c=white:a=0.3:r=16000",
    "anoisesrc=d=5:c=pink:a=0.4:r=48000",
    "sine=f=440:d=5:r=8000",
    "sine=f=50:d=4:r=16000,volume=0.1",
])
@pytest.mark.parametrize("suffix", [".wav", ".m4a"])
def test_sound_that_is_not_speech_is_a_record_with_no_text(tmp_path, source, suffix):
    path = tmp_path / f"memo{suffix}"
    ff("-f", "lavfi", "-i", source, *(["-c:a", "aac"] if suffix == ".m4a" else []), str(path))
    rec = _read(path)
    assert rec.text == "" and "no speech found" in rec.notes
    assert rec.attrs["duration_s"] >= 3.9


def test_stereo_48k_silence_is_no_speech(tmp_path):
    path = write_wav(tmp_path / "stereo.wav", np.zeros(48000 * 3 * 2), rate=48000, channels=2)
    rec = _read(path)
    assert (rec.text, rec.attrs["duration_s"]) == ("", 3.0) and "no speech found" in rec.notes


def test_a_wav_that_is_only_its_header_is_quarantined_naming_the_file(tmp_path):
    full = write_wav(tmp_path / "full.wav", np.zeros(16000 * 3))  # 3 s declared
    header_only = tmp_path / "header_only.wav"
    header_only.write_bytes(full.read_bytes()[:44])
    with pytest.raises(InputError) as err:
        _read(header_only)
    assert err.value.path == str(header_only)
    assert "no sound in the file: 0 s of audio decodes (its header says 3.0 s: the file was cut short)" in str(err.value)


def test_a_wav_cut_short_is_kept_with_a_note(tmp_path):
    full = write_wav(tmp_path / "full.wav", np.zeros(16000 * 4))  # 4 s declared: 128 000 bytes of samples
    cut = tmp_path / "cut.wav"
    cut.write_bytes(full.read_bytes()[:44 + 32000])  # 1 s of them is there
    rec = _read(cut)
    assert rec.text == "" and rec.attrs["duration_s"] == 1.0
    assert "file cut short: its header says 4.0 s of sound, 1.0 s is there (transcribed as far as it goes)" in rec.notes
    whole = _read(full)
    assert not any("cut short" in n for n in whole.notes)


@pytest.mark.parametrize("name, data, reason", [
    ("garbage.wav", b"RIFF\x24\x00\x00\x00WAVEfmt garbagegarbage", "not readable audio"),
    ("fake.mp3", b"ID3\x03\x00\x00\x00\x00\x00\x00not an mp3 at all", "not readable audio"),
    ("empty.wav", b"", "empty file (0 bytes): no audio"),
])
def test_broken_files_are_refused_naming_the_file(tmp_path, name, data, reason):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(InputError) as err:
        _read(path)
    assert err.value.path == str(path) and reason in str(err.value)


def _apple_memo(path: Path, creation_time: str, creationdate: str | None, title: str = "Harbour plan") -> Path:
    meta = ["-metadata", f"creation_time={creation_time}", "-metadata", f"title={title}"]
    if creationdate:
        meta += ["-metadata", f"com.apple.quicktime.creationdate={creationdate}"]
    ff("-f", "lavfi", "-i", "anoisesrc=d=1:a=0.01:r=16000", "-c:a", "aac", *meta, "-movflags", "use_metadata_tags",
       str(path))
    return path


def test_voice_memos_own_local_time_keeps_its_offset(tmp_path):
    # recorded at 07:30 on 5 May in Tokyo (+09:00) = 22:30 UTC on 4 May: both tags say the same instant
    memo = _apple_memo(tmp_path / "New Recording.m4a", "2023-05-04T22:30:00.000000Z", "2023-05-05T07:30:00+0900")
    when = recording_time(memo)
    assert when == datetime(2023, 5, 4, 22, 30, tzinfo=UTC) and when.utcoffset() == timedelta(hours=9)
    rec = _read(memo)
    assert rec.sent_at == when and rec.sent_at.utcoffset() == timedelta(hours=9)
    assert rec.attrs["time_zone"] == "UTC+09:00" and rec.attrs["local_time"] == "2023-05-05T07:30:00"
    # a local time that is not the same instant (a tag edited by hand) does not move it: UTC, as the tag says
    other = _apple_memo(tmp_path / "edited.m4a", "2023-05-04T22:30:00Z", "2023-05-05T09:30:00+0900")
    assert recording_time(other) == datetime(2023, 5, 4, 22, 30, tzinfo=UTC) and recording_time(other).utcoffset() == timedelta(0)


@pytest.mark.parametrize("name, creation_time, offset", [
    ("20230505 003000.m4a", "2023-05-04T15:30:00Z", timedelta(hours=9)),  # Tokyo: UTC is still 4 May
    ("20230505 003000 2.m4a", "2023-05-04T15:31:10Z", timedelta(hours=9)),  # the tag written as the file closed
    ("20231105 013000.m4a", "2023-11-05T06:30:00Z", timedelta(hours=-5)),  # New York's second 01:30 (EST)
    ("20221001 001000.m4a", "2022-09-30T18:25:00Z", timedelta(hours=5, minutes=45)),  # Kathmandu
])
def test_the_file_names_local_time_against_creation_time_gives_the_offset(tmp_path, name, creation_time, offset):
    memo = _apple_memo(tmp_path / name, creation_time, None)
    rec = _read(memo)
    utc = datetime.fromisoformat(creation_time.replace("Z", "+00:00"))
    assert rec.sent_at == utc and rec.sent_at.utcoffset() == offset
    assert rec.attrs["time_basis"] == "creation-time" and rec.attrs["local_time"] == (utc + offset).replace(tzinfo=None).isoformat()
    assert any(n.startswith("offset UTC") and "from the local time in the file name" in n for n in rec.notes)


def test_a_file_name_that_is_not_the_recording_time_changes_nothing(tmp_path):
    # a name from another day (a copy, an export): the creation_time stands, in UTC, with no offset note
    rec = _read(_apple_memo(tmp_path / "Recording_20230101_120000.m4a", "2023-03-01T09:07:00Z", None))
    assert rec.sent_at == datetime(2023, 3, 1, 9, 7, tzinfo=UTC) and rec.sent_at.utcoffset() == timedelta(0)
    assert "time_zone" not in rec.attrs and not any("offset" in n for n in rec.notes)


@pytest.mark.parametrize("creation_time, problem", [
    ("1970-01-01T00:00:05Z", "recorder's clock looks unset (1970-01-01 00:00:05, just after a clock's starting date)"),
    ("2000-01-01T00:03:00Z", "recorder's clock looks unset (2000-01-01 00:03:00, just after a clock's starting date)"),
    ("2099-01-01T10:00:00Z", "recorder's clock looks wrong"),  # (a 32-bit mvhd wraps it: whatever it reads, ahead)
])
def test_a_recorder_clock_never_set_is_not_the_recording_time(tmp_path, creation_time, problem):
    # the iPhone's name says 00:30 on 5 May 2023: that is used (read in the ingestor's zone, UTC here), noted
    rec = _read(_apple_memo(tmp_path / "20230505 003000.m4a", creation_time, None))
    assert rec.attrs["clock_suspect"].startswith(problem)
    assert rec.sent_at == datetime(2023, 5, 5, 0, 30, tzinfo=UTC) and rec.attrs["time_basis"] == "file-name"
    assert any(n.startswith("creation_time not used: recorder's clock looks") for n in rec.notes)
    assert any(n.endswith("no plausible creation_time tag") for n in rec.notes)
    # without a time in the name: unknown, not 1970
    bare = _read(_apple_memo(tmp_path / "memo.m4a", creation_time, None))
    assert bare.sent_at is None and "recording time unknown (no plausible creation_time tag)" in bare.notes


def test_ask_when_gives_the_memos_local_day(tmp_path, monkeypatch):
    # 00:30 on 5 May in Tokyo is 15:30 UTC on 4 May: the memo was recorded on 5 May where it was said
    from app.container import Container

    folder = tmp_path / "Voice Memos"
    folder.mkdir()
    _apple_memo(folder / "20230505 003000.m4a", "2023-05-04T15:30:00Z", "2023-05-05T00:30:00+0900",
                title="Ferry booking")
    # an iPhone memo named by its local time, with only a UTC creation_time: 00:20 on 2 October in Kathmandu
    _apple_memo(folder / "20221002 002000.m4a", "2022-10-01T18:35:00Z", None, title="Trek permit")
    said = {"20230505 003000.m4a": "Booked the ferry to Oshima for the whole family.",
            "20221002 002000.m4a": "Picked up the trekking permit for the Annapurna circuit."}
    monkeypatch.setattr(Container, "transcribe", lambda self, path: Transcript(
        text=said[Path(path).name], duration=1.0, languages=["en"]))
    result = CliRunner().invoke(main, ["ingest", str(folder), "--json"], catch_exceptions=False)
    report = json.loads(result.stdout)
    assert (report["records_added"], report["errors"]) == (2, [])
    answer = CliRunner().invoke(main, ["ask", "when did I book the ferry to Oshima?"], catch_exceptions=False)
    assert answer.stdout.splitlines()[0].startswith("5 May 2023"), answer.stdout
    assert "voice · 2023-05-05T00:30:00+09:00 — " in answer.stdout
    permit = CliRunner().invoke(main, ["ask", "when did I pick up the trekking permit?"], catch_exceptions=False)
    assert permit.stdout.splitlines()[0].startswith("2 October 2022"), permit.stdout


@pytest.mark.slow
def test_real_whisper_writes_nothing_for_a_beep_between_silences(tmp_path_factory, tmp_path):
    from app.models import convert_whisper

    checkpoint = convert_whisper.ensure_default_checkpoint(tmp_path_factory.mktemp("whisper-models"))
    beep = tmp_path / "beep.wav"
    ff("-f", "lavfi", "-i", "sine=f=1000:d=1:r=16000", "-af", "adelay=1000,apad=pad_dur=1", str(beep))
    (rec,) = VoiceIngestor(Transcriber(checkpoint).transcribe).read(beep)
    assert rec.text == "" and "no speech found" in rec.notes


def test_a_reset_file_modification_time_does_not_discard_the_recording_time(tmp_path):
    import os

    memo = _apple_memo(tmp_path / "memo.m4a", "2023-05-04T15:30:00Z", None)
    os.utime(memo, (0, 0))  # 1970-01-01: a copy tool that lost the time
    rec = _read(memo)
    assert rec.sent_at == datetime(2023, 5, 4, 15, 30, tzinfo=UTC) and "clock_suspect" not in rec.attrs
    # a real modification time a year before the tag: the tag is not trusted
    os.utime(memo, (datetime(2022, 5, 4, tzinfo=UTC).timestamp(),) * 2)
    assert _read(memo).attrs["clock_suspect"].startswith("recorder's clock looks wrong")


class _Whisper:
    """What ``whisper.load_model`` returns, as far as the Transcriber uses it: it answers ``segments``."""

    is_multilingual = False

    def __init__(self, segments):
        self.segments = segments

    def transcribe(self, samples, **kwargs):
        n = len(samples) / 16000
        return {"segments": [dict(s, start=0.0, end=n) for s in self.segments], "language": "en"}


def _tone_burst() -> np.ndarray:
    """8 s: 3 s of silence, 2 s of a 440 Hz tone, 3 s of silence."""
    audio = np.zeros(8 * 16000, np.float32)
    audio[3 * 16000:5 * 16000] = 0.3 * np.sin(2 * np.pi * 440 * np.arange(2 * 16000) / 16000)
    return audio


@pytest.mark.parametrize("segment, kept", [
    # what tiny.en wrote on a tone when primed with names: unsure at every temperature (measured: −5.2 at 1.0)
    ({"text": " Leards leaflets from Ois 13 are made, in the bush.", "no_speech_prob": 0.468, "avg_logprob": -5.214,
      "temperature": 1.0}, False),
    ({"text": " Whence crowd sounds.", "no_speech_prob": 0.384, "avg_logprob": -4.628, "temperature": 1.0}, False),
    # sure enough at some temperature: kept, even when hot
    ({"text": " Meet Anna in Lisbon.", "no_speech_prob": 0.278, "avg_logprob": -0.766, "temperature": 0.0}, True),
    ({"text": " Meet Anna in Lisbon.", "no_speech_prob": 0.3, "avg_logprob": -0.9, "temperature": 1.0}, True),
])
def test_words_whisper_was_unsure_of_at_every_temperature_are_not_stored(tmp_path, segment, kept):
    t = Transcriber(Path("unused.pt"))
    t._model = _Whisper([segment])
    memo = tmp_path / "tone.wav"
    memo.write_bytes(b"RIFF")  # the stand-in is given the samples
    (rec,) = VoiceIngestor(lambda _p: t.transcribe(_tone_burst())).read(memo)
    if kept:
        assert rec.text == segment["text"].strip() and "unclear_s" not in rec.attrs
    else:
        assert rec.text == "" and rec.attrs["unclear_s"] == 2.51  # the tone, padded, within its stretch
        assert rec.notes[-1] == ("2.5 s of sound could not be transcribed (the model was unsure at every "
                                 "temperature): left out")
        assert "no speech found" not in rec.notes


@pytest.mark.slow
def test_real_whisper_primed_with_names_writes_nothing_for_a_tone(tmp_path_factory):
    import torch

    from app.models import convert_whisper

    torch.manual_seed(0)
    checkpoint = convert_whisper.ensure_default_checkpoint(tmp_path_factory.mktemp("whisper-models"))
    result = Transcriber(checkpoint).transcribe(_tone_burst(), initial_prompt="Names: Anna Lima, ComfyUI, Lisbon.")
    assert result.text == "" and result.segments == []

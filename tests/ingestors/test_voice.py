"""Voice memos: transcribed by an injected function; time from the creation_time tag, else unknown."""
from __future__ import annotations

import shutil
import subprocess
import wave
from datetime import datetime, timezone
from pathlib import Path

import pytest

from core.errors import InputError
from ingestors.registry import ingestor_for
from ingestors.voice import VoiceIngestor, recording_time


def silent_wav(path: Path, seconds: float = 0.5) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"\x00\x00" * int(16000 * seconds))
    return path


def test_transcript_becomes_the_record_text_and_unknown_time_stays_unknown(tmp_path):
    wav = silent_wav(tmp_path / "memo.wav")
    ing = VoiceIngestor(lambda p: f"  hello from {Path(p).name}  ")
    [rec] = list(ing.read(wav))
    assert (rec.kind, rec.text, rec.sent_at) == ("voice", "hello from memo.wav", None)
    assert any("recording time unknown" in n for n in rec.notes)


def test_no_speech_to_text_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="speech-to-text is not set up"):
        list(VoiceIngestor(None).read(silent_wav(tmp_path / "a.wav")))


def test_a_failing_transcriber_names_the_file(tmp_path):
    def boom(p):
        raise RuntimeError("decoder exploded")
    with pytest.raises(InputError) as err:
        list(VoiceIngestor(boom).read(silent_wav(tmp_path / "b.wav")))
    assert err.value.path.endswith("b.wav") and "decoder exploded" in err.value.reason


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not installed")
def test_creation_time_tag_is_the_recording_time(tmp_path):
    src = silent_wav(tmp_path / "raw.wav")
    tagged = tmp_path / "tagged.m4a"
    subprocess.run(["ffmpeg", "-v", "quiet", "-y", "-i", str(src), "-metadata", "creation_time=2024-03-05T07:08:09Z",
                    str(tagged)], check=True)
    assert recording_time(tagged) == datetime(2024, 3, 5, 7, 8, 9, tzinfo=timezone.utc)


def test_registry_picks_the_voice_ingestor_by_suffix_and_by_sniffing(tmp_path, corpus):
    pool = [VoiceIngestor(lambda p: "x")]
    assert ingestor_for(corpus / "audio" / "jfk.flac", pool).name == "voice"
    bare = tmp_path / "noext"
    bare.write_bytes((corpus / "audio" / "jfk.flac").read_bytes()[:4096])
    assert ingestor_for(bare, pool).name == "voice"


# ----------------------------------------------------------------------------- issue 12

@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not installed")
def test_voice_memos_m4a_title_and_creation_time(tmp_path):
    src = silent_wav(tmp_path / "raw.wav")
    memo = tmp_path / "New Recording 12.m4a"  # as Apple Voice Memos exports: title in ©nam, time in mvhd
    subprocess.run(["ffmpeg", "-v", "quiet", "-y", "-i", str(src), "-c:a", "aac",
                    "-metadata", "title=Harbour Hall call", "-metadata", "creation_time=2023-09-06T07:15:00Z",
                    str(memo)], check=True)
    [rec] = VoiceIngestor(lambda p: "we booked the hall").read(memo)
    assert rec.subject == "Harbour Hall call" and rec.attrs["title"] == "Harbour Hall call"
    assert rec.sent_at == datetime(2023, 9, 6, 7, 15, tzinfo=timezone.utc)
    assert rec.text == "we booked the hall" and rec.notes == []


def test_a_transcript_that_found_no_speech_stores_no_text(tmp_path):
    from types import SimpleNamespace

    wav = silent_wav(tmp_path / "quiet.wav")
    said_you = SimpleNamespace(text="you", no_speech=True, languages=[], speakers=[], duration=0.5)
    [rec] = VoiceIngestor(lambda p: said_you).read(wav)
    assert rec.text == "" and "no speech found" in rec.notes
    two = SimpleNamespace(text="Speaker 1: hi\nSpeaker 2: hello", no_speech=False, languages=["en"],
                          speakers=["speaker 1", "speaker 2"], duration=5.0)
    [rec] = VoiceIngestor(lambda p: two).read(wav)
    assert rec.attrs["speakers"] == ["speaker 1", "speaker 2"] and rec.attrs["language"] == "en"
    assert rec.text.splitlines() == ["Speaker 1: hi", "Speaker 2: hello"]


# ----------------------------------------------------------------------------- memos the tests make: names, bad files

@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not installed")
def test_a_memo_without_a_time_tag_is_timed_by_its_file_name_in_the_local_zone(tmp_path):
    src = silent_wav(tmp_path / "raw.wav")
    named = tmp_path / "20230504 101233.m4a"  # iPhone Voice Memos' name: the phone's local time
    counter = tmp_path / "New Recording 12.m4a"  # a counter, not a time
    for out in (named, counter):
        subprocess.run(["ffmpeg", "-v", "quiet", "-y", "-i", str(src), "-c:a", "aac", "-map_metadata", "-1", str(out)],
                       check=True)
    ing = VoiceIngestor(lambda p: "see you at the harbour", local_timezone="Europe/Berlin")
    [rec] = ing.read(named)
    assert rec.sent_at == datetime(2023, 5, 4, 8, 12, 33, tzinfo=timezone.utc)  # CEST, +02:00
    assert rec.sent_at.utcoffset().total_seconds() == 7200
    assert (rec.attrs["time_basis"], rec.attrs["time_zone"]) == ("file-name", "Europe/Berlin")
    assert rec.notes == ["time taken from the file name (2023-05-04 10:12:33), read as Europe/Berlin: "
                         "no creation_time tag"]
    [rec] = ing.read(counter)
    assert rec.sent_at is None and "time_basis" not in rec.attrs
    assert rec.notes == ["recording time unknown (no creation_time tag)"]
    with pytest.raises(ValueError, match="unknown time zone"):
        VoiceIngestor(local_timezone="Nowhere/Atlantis")


def test_an_empty_wav_is_a_clear_error_before_any_transcription(tmp_path):
    empty = tmp_path / "memo.wav"
    empty.write_bytes(b"")
    called = []
    with pytest.raises(InputError, match=r"empty file \(0 bytes\)") as err:
        list(VoiceIngestor(lambda p: called.append(p) or "x").read(empty))
    assert err.value.path == str(empty) and called == []


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not installed")
@pytest.mark.parametrize("make", [
    "anullsrc=r=44100:cl=stereo",  # digital silence, stereo 44.1 kHz
    "anoisesrc=color=pink:amplitude=0.001:r=48000",  # near-silence: hiss at about -60 dBFS, 48 kHz
    "sine=frequency=50:sample_rate=8000",  # mains hum, 8 kHz
    "anoisesrc=color=white:amplitude=0.3:r=16000",  # a loud, steady noise (wind, a fan)
])
def test_silence_hiss_hum_and_noise_store_no_text_without_loading_a_model(tmp_path, make):
    from app.models.transcribe import Transcriber

    wav = tmp_path / "quiet.wav"
    subprocess.run(["ffmpeg", "-v", "quiet", "-y", "-f", "lavfi", "-i", make, "-t", "3", str(wav)], check=True)
    model = Transcriber(tmp_path / "no-such-checkpoint.pt")  # never loaded: nobody speaks
    [rec] = VoiceIngestor(model.transcribe).read(wav)
    assert rec.text == "" and "no speech found" in rec.notes and rec.attrs["duration_s"] == 3.0
    assert model._model is None


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not installed")
def test_a_wav_that_is_not_audio_names_the_file(tmp_path):
    from app.models.transcribe import Transcriber

    bad = tmp_path / "memo.wav"
    bad.write_bytes(b"RIFF\x24\x00\x00\x00WAVEjunkjunkjunkjunkjunkjunk")
    with pytest.raises(InputError, match="not readable audio") as err:
        list(VoiceIngestor(Transcriber(tmp_path / "none.pt").transcribe).read(bad))
    assert err.value.path == str(bad)

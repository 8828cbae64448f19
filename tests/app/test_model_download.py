"""Fetching an mlx-lm model by repo id from a local hub (HF_ENDPOINT): progress, checksums, a corrupt file."""
from __future__ import annotations

import json

import pytest

from app.models.llm import download_model, resolve_local_model
from core.errors import ModelError, ModelNotFound
from tests.helpers.fake_hub import fake_hub

REPO = "mlx-community/Tiny-Test-4bit"
FILES = {"config.json": json.dumps({"model_type": "llama", "max_position_embeddings": 256}).encode(),
         "model.safetensors": bytes(range(256)) * 40, "tokenizer.json": b'{"version": "1.0"}'}


def test_download_by_repo_id_reports_progress_and_checks_every_file(tmp_path, monkeypatch):
    with fake_hub(REPO, FILES, lfs={"model.safetensors"}) as endpoint:
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
        seen = []
        path = download_model(REPO, lambda stage, frac: seen.append((stage, frac)), cache_dir=tmp_path / "hub")
    assert {p.name: p.read_bytes() for p in path.iterdir()} == FILES
    assert seen[0] == (f"downloading {REPO}", 0.0) and seen[-1] == ("done", 1.0)
    assert (f"checking {REPO}", 1.0) in seen
    assert all(0.0 <= f <= 1.0 for _, f in seen)
    assert resolve_local_model(str(path)) == path  # a model folder Kith can load


def test_a_file_that_fails_its_checksum_is_deleted_and_the_download_fails(tmp_path, monkeypatch):
    with fake_hub(REPO, FILES, lfs={"model.safetensors"}, corrupt={"model.safetensors"}) as endpoint:
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
        with pytest.raises(ModelError, match="checksum"):
            download_model(REPO, cache_dir=tmp_path / "hub")
    assert not list((tmp_path / "hub").rglob("model.safetensors"))


def test_an_unknown_repo_is_model_not_found(tmp_path, monkeypatch):
    with fake_hub(REPO, FILES) as endpoint:
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
        with pytest.raises(ModelNotFound):
            download_model("mlx-community/Nope", cache_dir=tmp_path / "hub")

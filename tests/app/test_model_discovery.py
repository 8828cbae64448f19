"""Finding a better model: local servers on the loopback interface, the QA probe, masked secrets."""
from __future__ import annotations

import pytest

from app.models.registry import detect_local_servers
from tests.helpers.servers import model_server

KEY = "sk-kith-secret-0123456789abcdef"


@pytest.fixture
def server():
    with model_server() as port:
        yield port


def test_detects_ollama_style_servers_on_loopback_only(server):
    found = detect_local_servers([("Ollama", server, "/api/tags"), ("Nothing", 1, "/v1/models")])
    assert found == [{"name": "Ollama", "base_url": f"http://127.0.0.1:{server}/v1",
                      "models": ["llama3.2:3b", "qwen2.5:7b"]}]
    with pytest.raises(ValueError):
        detect_local_servers(host="192.168.1.10")


def test_a_server_that_echoes_the_key_never_shows_it(server):
    from app.models.registry import check_connection
    from app.secrets import SecretStore

    class Probe:
        chat_backend = "openai"
        chat_endpoint = f"http://127.0.0.1:{server}/v1"
        chat_endpoint_model = "local-model"
    report = check_connection(Probe(), api_key=KEY, secrets=SecretStore())
    assert not report.ok
    assert KEY not in report.message and KEY[-4:] in report.message and "••••" in report.message
    assert "rejected the API key" in report.message


def test_mask_secrets_masks_known_keys_and_key_shaped_text():
    from app.secrets import mask_secrets

    assert mask_secrets(f"bad key {KEY}!", [KEY]) == "bad key ••••cdef!"
    assert "sk-proj-abcdefgh12345678" not in mask_secrets("got sk-proj-abcdefgh12345678")
    assert mask_secrets("Authorization: Bearer abc.def-123456789") == "Authorization: Bearer ••••"
    assert mask_secrets("nothing secret here") == "nothing secret here"


def test_the_qa_probe_scores_the_memory_answerer_and_a_model():
    from app.answer import run_probe

    class Echo:  # answers with the first evidence line, cited: a grounded model
        available, name, context_window = True, "echo", 4096

        def count_tokens(self, messages):
            return sum(len(m["content"]) // 3 for m in messages)

        def stream(self, messages, **kw):
            yield "I don't know [1]."

    score = run_probe(Echo())
    assert score.n == 4 and 0.5 <= score.memory <= 1.0
    assert score.model is not None and score.model < score.memory and score.fallbacks == 0
    assert "against" in score.describe()


def test_the_built_in_model_does_not_answer_by_default(kith_home):
    from app.models.llm import NoModel
    from app.models.registry import answerer, build_answer_model
    from app.settings import Settings

    s = Settings.load()
    assert (s.chat_backend, s.chat_model, s.chat_answerer) == ("mlx", "", "auto")
    assert answerer(s) == "memory" and isinstance(build_answer_model(s), NoModel)  # nothing loaded
    s.chat_model = "/models/Qwen2.5-7B-Instruct-4bit"
    assert answerer(s) == "model"  # a model the person chose answers (grounded, checked)
    s.chat_answerer = "memory"
    assert answerer(s) == "memory"
    s.chat_backend, s.chat_answerer = "openai", "auto"
    assert answerer(s) == "model"

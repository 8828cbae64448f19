"""Settings → Models page (offscreen): keyring status, save, test connection, prepare with progress."""
from __future__ import annotations

import socket

import keyring
import pytest
from keyring.backends import fail

from app.secrets import SecretStore


@pytest.fixture
def page(qtbot, kith_container):
    from ui.settings_page import ModelsPage

    before = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    p = ModelsPage(kith_container, secrets=SecretStore())
    qtbot.addWidget(p)
    yield p
    p.worker.shutdown(30_000)
    keyring.set_keyring(before)


def test_page_says_when_there_is_no_keyring_and_keeps_key_for_session(page):
    assert "No OS keyring" in page.key_status.text()
    page.backend.setCurrentIndex(page.backend.findData("openai"))
    assert page.endpoint.isEnabled() and not page.local_model.isEnabled()
    page.endpoint.setText("http://127.0.0.1:9/v1")
    page.api_key.setText("sk-secret")
    page.save()
    assert "session only" in page.status.text() and page.api_key.text() == ""
    assert page.secrets.get_api_key("http://127.0.0.1:9/v1") == "sk-secret"
    assert page.settings.chat_backend == "openai"
    assert "sk-secret" not in (page.settings.home / "settings.json").read_text()


def test_test_connection_reports_an_unreachable_server(page, qtbot):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    page.backend.setCurrentIndex(page.backend.findData("openai"))
    page.endpoint.setText(f"http://127.0.0.1:{port}/v1")
    with qtbot.waitSignal(page.connectionTested, timeout=30_000) as sig:
        page.test_button.click()
    assert not sig.args[0].ok
    assert page.status.text().startswith("✗") and "cannot reach" in page.status.text()


def test_prepare_shows_progress(page, qtbot, monkeypatch):
    import ui.settings_page as sp

    def fake_prepare(settings, progress):
        progress("chat model: converting tensors", 0.25)
        return {"chat": settings.models_dir / "chat", "speech": settings.models_dir / "speech.pt"}

    monkeypatch.setattr(sp, "prepare_default_models", fake_prepare)
    with qtbot.waitSignal(page.prepared, timeout=30_000):
        page.prepare_button.click()
    assert "Built-in models ready" in page.status.text() and page.prepare_button.isEnabled()


def test_detect_lists_local_models_and_a_chosen_one_fills_the_form(page, qtbot):
    from tests.helpers.servers import model_server

    with model_server() as port:
        with qtbot.waitSignal(page.detected, timeout=20_000):
            page.detect([("Ollama", port, "/api/tags")])
        assert [page.found.itemText(i) for i in range(page.found.count())] == ["Ollama: llama3.2:3b",
                                                                             "Ollama: qwen2.5:7b"]
        assert page.found.placeholderText() == "2 model(s) found: pick one"
        page.found.activated.emit(1)
        assert page.backend.currentData() == "openai" and page.endpoint_model.text() == "qwen2.5:7b"
        assert page.endpoint.text() == f"http://127.0.0.1:{port}/v1"
        # a server that echoes the key in its 401: the page never shows it
        page.api_key.setText("sk-kith-secret-0123456789abcdef")
        with qtbot.waitSignal(page.connectionTested, timeout=30_000):
            page.test()
        assert "sk-kith-secret-0123456789abcdef" not in page.status.text() and "cdef" in page.status.text()


def test_detect_with_nothing_running_says_so_in_the_list_too(page, qtbot):
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with qtbot.waitSignal(page.detected, timeout=20_000):
        page.detect([("Ollama", port, "/api/tags")])
    assert page.found.count() == 0
    assert page.found.placeholderText() == "none running (start Ollama or LM Studio, then press Detect)"
    assert page.status.text() == "No Ollama or LM Studio server is running on this computer."


def test_download_a_model_by_repo_id_with_progress(page, qtbot, monkeypatch):
    from tests.app.test_model_download import FILES, REPO
    from tests.helpers.fake_hub import fake_hub

    with fake_hub(REPO, FILES, lfs={"model.safetensors"}) as endpoint:
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
        page.local_model.setText(REPO)
        page.download()
        qtbot.waitUntil(lambda: "Downloaded" in page.status.text() or "✗" in page.status.text(), timeout=30_000)
    assert "Downloaded and checked" in page.status.text()
    assert page.local_model.text().endswith("0123456789abcdef0123456789abcdef01234567")
    assert page.backend.currentData() == "mlx"

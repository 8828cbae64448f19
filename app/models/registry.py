"""Build the configured models from settings (read with defaults, so older settings files still work).

Settings read here (name → default):

=========================  =============================  ==========================================
``chat_backend``           ``"mlx"``                      ``"mlx"``, ``"openai"`` (any OpenAI-compatible
                                                          server) or ``"none"``
``chat_model``             ``""``                         mlx: a model folder or downloaded repo id;
                                                          ``""`` = built-in SmolLM2-135M-Instruct
``chat_endpoint``          ``"http://127.0.0.1:11434/v1"`` base URL of the OpenAI-compatible server
``chat_endpoint_model``    ``""``                         the server's model name
``chat_context_tokens``    ``0``                          window override in tokens (0 = the model's
                                                          own; 8192 for HTTP servers)
``chat_max_reply_tokens``  ``256``                        most tokens per reply
``chat_answerer``          ``"auto"``                     ``"auto"``: a model the person chose answers
                                                          (grounded, checked); the built-in SmolLM2 does
                                                          not (it scores below the memory answerer on
                                                          the QA benchmark); ``"memory"``: always the
                                                          memory answerer; ``"model"``: the configured
                                                          model, built-in included
``transcribe_model``       ``""``                         ``""`` = built-in Whisper base where fast enough,
                                                          else tiny.en; ``"base"``/``"tiny.en"``; else an
                                                          openai-whisper checkpoint path or model name
``embedding_routes``       ``{}``                         content class → encoder name (router.py)
``observations_every``     ``5``                          turns between observation runs (loop.py)
=========================  =============================  ==========================================

The API key is never a setting: it lives in the OS keyring (``app/secrets.py``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from core.errors import ModelError

DEFAULTS: dict[str, Any] = {
    "chat_backend": "mlx",
    "chat_model": "",
    "chat_endpoint": "http://127.0.0.1:11434/v1",
    "chat_endpoint_model": "",
    "chat_context_tokens": 0,
    "chat_max_reply_tokens": 256,
    "chat_answerer": "auto",
    "transcribe_model": "",
    "embedding_routes": {},
    "observations_every": 5,
}
BACKENDS = ("mlx", "openai", "none")


def setting(settings: Any, name: str) -> Any:
    """``settings.<name>``, or the default above when the Settings class does not have it yet."""
    return getattr(settings, name, DEFAULTS[name])


def build_chat_model(settings: Any, secrets: Any = None,
                     progress: Callable[[str, float], None] | None = None):
    """The ChatModel the settings describe.

    Args:
        settings: an ``app.settings.Settings`` (``models_dir`` is used for the built-in model).
        secrets: a ``SecretStore`` for the HTTP backend's key (default: ``app.secrets.default_store()``).
        progress: ``progress(stage, fraction)`` for the one-time conversion of the built-in model.

    Returns:
        MlxChatModel, OpenAIChatModel or NoModel (not yet loaded: loading happens on first use).

    Raises:
        ModelError: an unknown backend; the built-in model's package is missing or its conversion failed.
    """
    from app.models.llm import MlxChatModel, NoModel, OpenAIChatModel

    backend = setting(settings, "chat_backend") or "none"
    window = int(setting(settings, "chat_context_tokens") or 0) or None
    if backend == "none":
        return NoModel()
    if backend == "mlx":
        name = setting(settings, "chat_model")
        if not name:
            from app.models.convert_gguf import ensure_default_model

            name = str(ensure_default_model(Path(settings.models_dir), progress=progress))
        return MlxChatModel(name, context_window=window)
    if backend == "openai":
        from app.secrets import default_store

        endpoint = setting(settings, "chat_endpoint")
        key = (secrets or default_store()).get_api_key(endpoint)
        return OpenAIChatModel(endpoint, setting(settings, "chat_endpoint_model"), api_key=key,
                               context_window=window or 8192)
    raise ModelError(f"unknown chat backend {backend!r} in settings (use one of {', '.join(BACKENDS)})")


ANSWERERS = ("auto", "memory", "model")


def answerer(settings: Any) -> str:
    """Who answers in the chat: ``"memory"`` (Kith's memory answerer, ``app/answer.py``) or ``"model"``.

    ``"auto"`` (the default) lets a model answer only when the person chose one — an mlx-lm folder or repo
    id, or a server — because the built-in SmolLM2-135M scores below the memory answerer on the LoCoMo QA
    benchmark (``benchmarks/locomo.py --qa``) and, unchecked, loops ("I'm not here to tell you…")."""
    choice = setting(settings, "chat_answerer") or "auto"
    backend = setting(settings, "chat_backend") or "none"
    if choice == "memory" or backend == "none":
        return "memory"
    if choice == "model":
        return "model"
    return "memory" if backend == "mlx" and not setting(settings, "chat_model") else "model"


def build_answer_model(settings: Any, secrets: Any = None, progress: Callable[[str, float], None] | None = None):
    """The model that answers chat questions: ``NoModel`` when :func:`answerer` says the memory answerer
    (nothing is loaded), else :func:`build_chat_model`."""
    from app.models.llm import NoModel

    if answerer(settings) == "memory":
        return NoModel()
    return build_chat_model(settings, secrets=secrets, progress=progress)


def save_model_settings(settings: Any, values: dict[str, Any]) -> None:
    """Set the model settings in ``values`` (names from :data:`DEFAULTS`) and write settings.json.

    Raises:
        ModelError: an unknown name or backend.
    """
    unknown = sorted(set(values) - set(DEFAULTS))
    if unknown:
        raise ModelError(f"not model settings: {', '.join(unknown)}")
    if "chat_answerer" in values and values["chat_answerer"] not in ANSWERERS:
        raise ModelError(f"unknown answerer {values['chat_answerer']!r} (use one of {', '.join(ANSWERERS)})")
    if "chat_backend" in values and values["chat_backend"] not in BACKENDS:
        raise ModelError(f"unknown chat backend {values['chat_backend']!r} (use one of {', '.join(BACKENDS)})")
    for name, value in values.items():
        setattr(settings, name, value)
    settings.save()


def check_connection(settings: Any, api_key: str | None = None, secrets: Any = None):
    """Check the configured chat model: HTTP servers answer one token; local models load.

    Args:
        settings: settings (the model fields may be unsaved edits).
        api_key: a key typed but not yet stored (else the stored one is used).
        secrets: a SecretStore (default: the process's).

    Returns:
        ``app.models.llm.ConnectionReport`` (never raises).
    """
    from app.models.llm import ConnectionReport, MlxChatModel, OpenAIChatModel

    try:
        backend = setting(settings, "chat_backend")
        if backend == "openai":
            from app.secrets import default_store

            endpoint = setting(settings, "chat_endpoint")
            store = secrets or default_store()
            key = api_key or store.get_api_key(endpoint)
            report = OpenAIChatModel(endpoint, setting(settings, "chat_endpoint_model"), api_key=key,
                                     timeout=20, max_retries=0).test_connection()
            report.message = store.mask(report.message, [key])
            return report
        model = build_chat_model(settings, secrets=secrets)
        if isinstance(model, MlxChatModel):
            model.load()
            return ConnectionReport(True, f"Loaded {model.name} ({model.context_window}-token window).")
        return ConnectionReport(True, "No chat model: Kith answers from memory alone.")
    except ModelError as exc:
        from app.secrets import default_store

        return ConnectionReport(False, (secrets or default_store()).mask(str(exc), [api_key]))


def prepare_default_models(settings: Any, progress: Callable[[str, float], None] | None = None) -> dict[str, Path]:
    """Convert the built-in chat model (SmolLM2) and the configured speech model (by default Whisper base where
    it is fast enough, else tiny.en: ``app.models.transcribe.default_model``) if not done yet.

    Args:
        progress: ``progress(stage, fraction)``; the fraction covers both conversions (0..1).

    Returns:
        ``{"chat": model dir, "speech": checkpoint path}``.

    Raises:
        ModelError: a package is missing or a conversion failed.
    """
    from app.models.convert_gguf import ensure_default_model
    from app.models.transcribe import resolve_checkpoint

    report = progress or (lambda stage, frac: None)
    chat = ensure_default_model(Path(settings.models_dir), lambda s, f: report(f"chat model: {s}", 0.5 * f))
    speech = resolve_checkpoint(setting(settings, "transcribe_model"), Path(settings.models_dir),
                                lambda s, f: report(f"speech model: {s}", 0.5 + 0.5 * f))
    report("done", 1.0)
    return {"chat": chat, "speech": speech}


# ------------------------------------------------------------------------------------------ local servers

LOCAL_SERVERS = (("Ollama", 11434, "/api/tags"), ("LM Studio", 1234, "/v1/models"))
"""Servers Kith looks for on this computer, only when the person opens Settings → Models or presses
Detect: (name, default port, the path that lists its models)."""


def detect_local_servers(candidates=LOCAL_SERVERS, host: str = "127.0.0.1", timeout: float = 0.5) -> list[dict]:
    """Which OpenAI-compatible model servers answer on the loopback interface, and their models.

    Args:
        candidates: ``(name, port, models path)`` to try (default: Ollama 11434, LM Studio 1234).
        host: must be a loopback address (Kith never probes the network).
        timeout: seconds per server.

    Returns:
        ``[{"name", "base_url" (its OpenAI-compatible /v1 URL), "models": [model ids]}]`` for each that answered.

    Raises:
        ValueError: ``host`` is not a loopback address.
    """
    import ipaddress

    import httpx

    if not ipaddress.ip_address(host).is_loopback:
        raise ValueError(f"{host} is not a loopback address: Kith only looks for servers on this computer")
    found = []
    for name, port, path in candidates:
        url = f"http://{host}:{port}{path}"
        try:
            r = httpx.get(url, timeout=timeout)
            r.raise_for_status()
            data = r.json()
        except (httpx.HTTPError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("models"), list):  # Ollama's /api/tags
            models = [m.get("name") or m.get("model") for m in data["models"] if isinstance(m, dict)]
        elif isinstance(data, dict) and isinstance(data.get("data"), list):  # OpenAI's /v1/models
            models = [m.get("id") for m in data["data"] if isinstance(m, dict)]
        else:
            continue
        found.append({"name": name, "base_url": f"http://{host}:{port}/v1", "models": [m for m in models if m]})
    return found


def probe_answerers(settings: Any, secrets: Any = None):
    """The QA probe (``app.answer.run_probe``): the memory answerer's score and, when a model is configured,
    the model's through the grounded path.  Returns ``app.answer.ProbeScore``; raises the model's ModelError."""
    from app.answer import run_probe

    backend = setting(settings, "chat_backend") or "none"
    model = None if backend == "none" else build_chat_model(settings, secrets=secrets)
    if model is not None and hasattr(model, "load"):
        model.load()
    return run_probe(model)


def fetch_model(settings: Any, repo_id: str, progress: Callable[[str, float], None] | None = None) -> Path:
    """Download the mlx-lm model ``repo_id`` into ``<data folder>/models/hub`` (progress, checksums:
    ``app.models.llm.download_model``) and return its folder, to be saved as ``chat_model``.

    Raises:
        ModelError: not a repo id; ModelUnreachable / ModelNotFound / a failed checksum from the download.
    """
    from app.models.llm import download_model, looks_like_repo_id

    if not looks_like_repo_id(repo_id):
        raise ModelError(f"{repo_id!r} is not a Hugging Face repo id (owner/name)")
    return download_model(repo_id, progress, cache_dir=Path(settings.models_dir) / "hub")

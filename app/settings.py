"""Typed settings and the data folder.

The data folder comes from platformdirs (``~/.local/share/Kith`` on Linux,
``~/Library/Application Support/Kith`` on macOS); the environment variable
``KITH_HOME`` overrides it (tests and portable installs).  Defaults live in
``resources/default_settings.json``; the person's own choices in
``<data folder>/settings.json``.  No secret is ever written here: API keys
live in the OS keyring (see ``app/secrets.py``).
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from importlib import resources
from pathlib import Path

import platformdirs

from core.errors import InputError

APP_NAME = "Kith"


def data_dir() -> Path:
    """Return the data folder (created if missing): ``$KITH_HOME`` or the platform's user data dir."""
    home = os.environ.get("KITH_HOME")
    path = Path(home).expanduser() if home else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def _defaults() -> dict:
    text = resources.files("resources").joinpath("default_settings.json").read_text(encoding="utf-8")
    return json.loads(text)


@dataclass
class Settings:
    """Everything Kith can be told, with the defaults from ``resources/default_settings.json``.

    Attributes:
        home: the data folder (SQLite file, Chroma store, quarantine list, models).
        owner_name / owner_emails: who the owner is (facts are identity-aware).
        default_region: ISO 3166 region for phone numbers written without a country code.
        local_timezone: IANA zone assumed for times written without one: camera times with no offset and no GPS,
            voice memos, WhatsApp and Telegram exports (the phone's or computer's wall clock).
        encoder_backend: ``"auto"`` (fastest where it runs), ``"numpy"`` or ``"mlx"``.
        ask_k: how many results ``ask`` returns by default.
        ingest_batch_size: records per write transaction.
        forget_recovery_days: days a forgotten item can be restored (seed 001: 30).
        chat_backend: ``"mlx"`` (local mlx-lm model), ``"openai"`` (any OpenAI-compatible server) or ``"none"``.
        chat_model: mlx model folder or repo id; ``""`` = the built-in SmolLM2-135M-Instruct.
        chat_endpoint / chat_endpoint_model: the OpenAI-compatible server's base URL and model name
            (the API key is in the OS keyring, never here).
        chat_context_tokens: context window override in tokens (0 = the model's own).
        chat_max_reply_tokens: most tokens per reply.
        chat_answerer: ``"auto"`` (a model the person chose answers, grounded and checked; otherwise Kith's
            memory answerer), ``"memory"`` or ``"model"`` (``app.models.registry.answerer``).
        transcribe_model: ``""`` = automatic (built-in Whisper base where fast enough, else tiny.en);
            ``"base"`` / ``"tiny.en"`` = that built-in model; else an openai-whisper checkpoint path or name.
        embedding_routes: content class (facts, chunks, observations, messages) → encoder name.
        observations_every: chat turns between observation runs (seed 000: every 5 turns).
        import_process: the window imports in a process of its own (``app/import_process.py``), so a large
            import never stalls the window; off, it imports on a thread of the window's process.
        fact_extractor: ``"deterministic"`` (patterns, always available) or ``"llm"`` (the chat model, with a
            schema check, one retry and the deterministic result as fallback; for capable models).
        observer: ``"deterministic"`` or ``"llm"``: the chat model observes each exchange (schema-checked,
            one retry, deterministic fallback, counted) and writes the periodic observations (seed 000).
        database_url: where the database is: ``""`` = ``sqlite:///<data folder>/kith.sqlite3`` (the default),
            or ``postgresql+psycopg://user@host:port/db`` (a server several devices share).  The environment
            variable ``KITH_DATABASE_URL`` overrides it.  A password belongs in ``~/.pgpass`` or the
            environment, never here.
        chroma_url: where the vectors are: ``""`` = the embedded Chroma folder ``<data folder>/chroma``, or
            ``http://host:port`` (a Chroma server, ``chromadb.HttpClient``, telemetry off).  ``KITH_CHROMA_URL``
            overrides it.
    """

    home: Path = field(default_factory=data_dir)
    owner_name: str | None = None
    owner_emails: list[str] = field(default_factory=list)
    default_region: str = "US"
    local_timezone: str = "UTC"
    encoder_backend: str = "auto"
    ask_k: int = 5
    ingest_batch_size: int = 64
    forget_recovery_days: int = 30
    chat_backend: str = "mlx"
    chat_model: str = ""
    chat_endpoint: str = "http://127.0.0.1:11434/v1"
    chat_endpoint_model: str = ""
    chat_context_tokens: int = 0
    chat_max_reply_tokens: int = 256
    chat_answerer: str = "auto"
    transcribe_model: str = ""
    embedding_routes: dict = field(default_factory=dict)
    observations_every: int = 5
    import_process: bool = True
    fact_extractor: str = "deterministic"
    observer: str = "deterministic"
    database_url: str = ""
    chroma_url: str = ""

    @property
    def db_path(self) -> Path:
        return self.home / "kith.sqlite3"

    @property
    def database(self) -> str:
        """The database URL in force: ``$KITH_DATABASE_URL``, else the setting, else the data folder's SQLite file."""
        url = os.environ.get("KITH_DATABASE_URL") or self.database_url
        return url or f"sqlite:///{self.db_path}"

    @property
    def vectors_location(self) -> str:
        """The vector store in force: ``$KITH_CHROMA_URL``, else the setting (``http://host:port``), else ``""``
        (the embedded folder :attr:`chroma_path`)."""
        return os.environ.get("KITH_CHROMA_URL") or self.chroma_url

    @property
    def is_server(self) -> bool:
        """Whether the stores live on servers (a PostgreSQL database), shared with other devices."""
        return not self.database.startswith("sqlite")

    @property
    def chroma_path(self) -> Path:
        return self.home / "chroma"

    @property
    def models_dir(self) -> Path:
        return self.home / "models"

    @classmethod
    def load(cls, home: Path | None = None) -> "Settings":
        """Read defaults, then ``settings.json`` in the data folder if present.

        Raises:
            InputError: settings.json is not valid JSON or names an unknown setting.
        """
        home = Path(home) if home else data_dir()
        home.mkdir(parents=True, exist_ok=True)
        values = _defaults()
        user_file = home / "settings.json"
        if user_file.exists():
            try:
                user = json.loads(user_file.read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                raise InputError(str(user_file), f"not valid JSON: {exc}") from exc
            known = {f.name for f in fields(cls)} - {"home"}
            unknown = sorted(set(user) - known)
            if unknown:
                raise InputError(str(user_file), f"unknown settings: {', '.join(unknown)}")
            values.update(user)
        return cls(home=home, **values)

    def save(self) -> None:
        """Write the person's settings to ``settings.json`` in the data folder."""
        data = asdict(self)
        data.pop("home")
        (self.home / "settings.json").write_text(json.dumps(data, indent=2), encoding="utf-8")

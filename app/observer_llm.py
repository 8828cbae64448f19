"""The LLM observer: schema-checked JSON, one retry with the validation error, else the deterministic observer.

Used when a capable chat model is configured.  Every fallback is counted in
:class:`ObserverStats` (visible to the UI and ``kith doctor``) and logged at
WARNING — never silent.  The model is anything with ``complete_json(messages) -> str``
(:class:`ChatModel`), so ``app/models/llm.py`` backends plug in unchanged.
"""
from __future__ import annotations

import json
import logging
import threading
from dataclasses import asdict, dataclass
from typing import Protocol, Sequence

from core.personal.observer import (SILENCE_TIMEOUT_S, ObserverOutput, ObserverSchemaError, Turn,
                                    observe as deterministic_observe)

log = logging.getLogger(__name__)


class ChatModel(Protocol):
    """The least an observer model must do: answer chat ``messages`` with a JSON string."""

    def complete_json(self, messages: Sequence[dict]) -> str:
        """``messages``: [{"role": "system"|"user"|"assistant", "content": str}, …] → the reply text (JSON)."""
        ...


@dataclass
class ObserverStats:
    """Counters: calls, valid on the first try, valid after the retry, fallbacks to the deterministic observer."""

    calls: int = 0
    first_try: int = 0
    after_retry: int = 0
    fallbacks: int = 0
    model_errors: int = 0
    last_error: str = ""

    def to_json(self) -> dict:
        return asdict(self)


SYSTEM = ("You are an observer. Read the message that was sent and the person's reply, and return ONLY a "
          "JSON object matching this JSON Schema (no prose, no code fences):\n{schema}\n"
          "sentiment_score is a 0-1 magnitude; sentiment_direction is positive, negative or neutral.")


class LLMObserver:
    """Observe with a chat model, falling back to the deterministic observer.

    Args:
        model: a :class:`ChatModel`; None means always deterministic (not counted as a fallback).
    """

    def __init__(self, model: ChatModel | None):
        self.model = model
        self.stats = ObserverStats()
        self._lock = threading.Lock()

    def _messages(self, prompt: Turn | None, reply: Turn) -> list[dict]:
        schema = json.dumps(ObserverOutput.json_schema(), separators=(",", ":"))
        latency = f"{reply.at - prompt.at:.0f} seconds" if prompt is not None else "n/a (they wrote first)"
        user = (f"Message sent: {json.dumps(prompt.text if prompt else None)}\n"
                f"Person replied: {json.dumps(reply.text)}\nTime since message: {latency}")
        return [{"role": "system", "content": SYSTEM.format(schema=schema)}, {"role": "user", "content": user}]

    def observe(self, prompt: Turn | None, reply: Turn | None,
                timeout_s: float = SILENCE_TIMEOUT_S) -> tuple[ObserverOutput, str]:
        """Observe one exchange.

        Returns:
            (ObserverOutput, source) with source ∈ "deterministic" | "llm" | "llm_retry" | "fallback".
            Silence (``reply`` None or late) needs no model and is always deterministic.
        """
        if self.model is None or reply is None or (prompt is not None and reply.at - prompt.at > timeout_s):
            return deterministic_observe(prompt, reply, timeout_s), "deterministic"
        with self._lock:
            self.stats.calls += 1
        msgs = self._messages(prompt, reply)
        error = ""
        for attempt in (0, 1):
            try:
                raw = self.model.complete_json(msgs)
            except Exception as exc:  # a model backend failed: count it and fall back
                error = f"model error: {exc}"
                with self._lock:
                    self.stats.model_errors += 1
                break
            try:
                out = ObserverOutput.from_json(_strip_fences(raw))
            except ObserverSchemaError as exc:
                error = str(exc)
                msgs = msgs + [{"role": "assistant", "content": raw},
                               {"role": "user", "content": f"That JSON is invalid: {error}. Return only the "
                                                           "corrected JSON object."}]
                continue
            # the model cannot know the measured facts better than the clock and the text
            det = deterministic_observe(prompt, reply, timeout_s)
            out = out.model_copy(update={"engagement": out.engagement.model_copy(update={
                "replied": det.engagement.replied, "latency_seconds": det.engagement.latency_seconds,
                "word_count": det.engagement.word_count})})
            with self._lock:
                if attempt == 0:
                    self.stats.first_try += 1
                else:
                    self.stats.after_retry += 1
            return out, "llm" if attempt == 0 else "llm_retry"
        with self._lock:
            self.stats.fallbacks += 1
            self.stats.last_error = error
        log.warning("LLM observer fell back to the deterministic observer (%d so far): %s",
                    self.stats.fallbacks, error)
        return deterministic_observe(prompt, reply, timeout_s), "fallback"


def _strip_fences(raw: str) -> str:
    s = raw.strip()
    if s.startswith("```"):
        s = s.split("\n", 1)[1] if "\n" in s else s
        s = s.rsplit("```", 1)[0]
    return s.strip()

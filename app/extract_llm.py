"""The LLM fact extractor (seed 002: "Claude identifies entities, facts, relationships, and temporal context").

Used at ingest when ``settings.fact_extractor == "llm"`` and a chat model is configured; otherwise the
deterministic extractor in ``core/extraction/personal_facts.py`` runs.  The model gets the message,
its author and its own date, and must answer with JSON::

    {"facts": [{"subject": "speaker" | "relation:<mother|sister|…>" | "name:<Full Name>",
                "domain": one of core.graph.facts.DOMAINS, "category": str, "key": str, "value": str,
                "valid_from": "YYYY-MM-DD" | null, "confidence": 0..1}]}

The answer is checked against that schema; on a violation the model is asked once more with the
error; if that also fails, the deterministic result is used and the fallback is counted — never a
silent drop (the ingest report shows ``extraction_fallbacks``).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from core.errors import KithError
from core.extraction.personal_facts import FactCandidate, Subject, extract_facts
from core.graph.facts import DOMAINS

SYSTEM = ("You extract durable personal facts from one message for a private knowledge graph. Distinguish whose "
          "fact it is: facts stated in the first person are about the speaker (subject \"speaker\"); \"my mom had "
          "surgery\" is about the speaker's mother (subject \"relation:mother\"), not the speaker; facts about a "
          "named person use \"name:<Full Name>\". Resolve relative dates against the message's own date. "
          "Domains: " + ", ".join(DOMAINS) + ". Answer with JSON only: {\"facts\": [...]}; an empty list when "
          "there is nothing durable.")


class ExtractionSchemaError(ValueError):
    """The model's JSON did not match the fact schema; the message says what is wrong."""


@dataclass
class ExtractionStats:
    """Counts for the ingest report: messages sent to the model, retries, fallbacks to the deterministic result."""

    calls: int = 0
    retries: int = 0
    fallbacks: int = 0


def _subject(raw: Any) -> Subject:
    if raw == "speaker":
        return Subject("speaker")
    if isinstance(raw, str) and raw.startswith("relation:") and raw[9:].strip():
        return Subject("relation", raw[9:].strip().lower())
    if isinstance(raw, str) and raw.startswith("name:") and raw[5:].strip():
        return Subject("name", name=raw[5:].strip())
    raise ExtractionSchemaError(f"subject must be 'speaker', 'relation:<role>' or 'name:<Full Name>', got {raw!r}")


def validate(payload: Any, sentence: str) -> list[FactCandidate]:
    """Check the model's JSON against the schema and turn it into candidates.

    Raises:
        ExtractionSchemaError: naming the first problem (for the retry prompt).
    """
    if not isinstance(payload, dict) or not isinstance(payload.get("facts"), list):
        raise ExtractionSchemaError('the answer must be an object {"facts": [...]}')
    out = []
    for i, f in enumerate(payload["facts"]):
        if not isinstance(f, dict):
            raise ExtractionSchemaError(f"facts[{i}] must be an object")
        for field in ("domain", "category", "key", "value"):
            if not isinstance(f.get(field), str) or not f[field].strip():
                raise ExtractionSchemaError(f"facts[{i}].{field} must be a non-empty string")
        if f["domain"] not in DOMAINS:
            raise ExtractionSchemaError(f"facts[{i}].domain must be one of {', '.join(DOMAINS)}")
        conf = f.get("confidence", 0.6)
        if not isinstance(conf, (int, float)) or not 0 <= conf <= 1:
            raise ExtractionSchemaError(f"facts[{i}].confidence must be a number from 0 to 1")
        start = None
        if f.get("valid_from") not in (None, ""):
            try:
                start = date.fromisoformat(str(f["valid_from"]))
            except ValueError:
                raise ExtractionSchemaError(f"facts[{i}].valid_from must be YYYY-MM-DD or null") from None
        subj = _subject(f.get("subject"))
        obj = f["value"] if f["domain"] in ("work", "places") else None
        out.append(FactCandidate(subj, f["domain"], f["category"].strip(), f["key"].strip(), f["value"].strip(),
                                 sentence[:500], float(conf), start, obj=obj,
                                 obj_kind={"work": "thing", "places": "place"}.get(f["domain"])))
    return out


class LLMFactExtractor:
    """Facts from a chat model, checked, retried once, else the deterministic extractor's (counted).

    Args:
        model: a ChatModel with ``complete_json(messages)``.
    """

    def __init__(self, model):
        self.model = model
        self.stats = ExtractionStats()

    def __call__(self, text: str, sent_at: datetime | None, speaker: str | None = None) -> list[FactCandidate]:
        when = sent_at.date().isoformat() if sent_at else "unknown"
        messages = [{"role": "system", "content": SYSTEM},
                    {"role": "user", "content": f"Author: {speaker or 'unknown'}\nDate: {when}\n\n{text[:6000]}"}]
        self.stats.calls += 1
        for attempt in range(2):
            try:
                return validate(self.model.complete_json(messages), text)
            except (ExtractionSchemaError, KithError, ValueError) as exc:
                if attempt == 0:
                    self.stats.retries += 1
                    messages = messages + [{"role": "user", "content":
                                            f"That answer was not valid: {exc}. Answer again with JSON only."}]
        self.stats.fallbacks += 1
        return extract_facts(text, sent_at)

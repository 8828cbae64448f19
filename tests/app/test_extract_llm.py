"""The LLM fact extractor: schema check, one retry with the error, deterministic fallback counted."""
from __future__ import annotations

from datetime import datetime, timezone

from sqlmodel import select

from app.extract_llm import LLMFactExtractor
from app.operations.ingest import ingest
from core.errors import ModelOutputError
from core.store.schema import Entity, Fact

WHEN = datetime(2026, 5, 12, 9, tzinfo=timezone.utc)


class Scripted:
    """A stand-in ChatModel answering complete_json from a list (a dict, or an exception to raise)."""

    available = True
    name = "scripted"

    def __init__(self, answers):
        self.answers = list(answers)
        self.prompts = []

    def complete_json(self, messages, **kwargs):
        self.prompts.append(messages)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


GOOD = {"facts": [{"subject": "relation:mother", "domain": "health", "category": "event", "key": "surgery",
                   "value": "knee surgery", "valid_from": "2026-05-09", "confidence": 0.9}]}


def test_valid_answer_is_used_as_is():
    ex = LLMFactExtractor(Scripted([GOOD]))
    [f] = ex("Mom had her knee done on Saturday.", WHEN, "Nic")
    assert (f.subject.kind, f.subject.relation, f.value, f.valid_from.isoformat()) == ("relation", "mother",
                                                                                       "knee surgery", "2026-05-09")
    assert (ex.stats.calls, ex.stats.retries, ex.stats.fallbacks) == (1, 0, 0)


def test_one_retry_with_the_validation_error():
    model = Scripted([{"facts": [{"subject": "mom", "domain": "health", "category": "e", "key": "k", "value": "v"}]},
                      GOOD])
    ex = LLMFactExtractor(model)
    assert [f.value for f in ex("Mom had surgery.", WHEN)] == ["knee surgery"]
    assert "subject must be" in model.prompts[1][-1]["content"]
    assert (ex.stats.retries, ex.stats.fallbacks) == (1, 0)


def test_two_failures_fall_back_to_the_deterministic_extractor_and_are_counted():
    ex = LLMFactExtractor(Scripted([ModelOutputError("not JSON"), {"facts": [{"domain": "nope"}]}]))
    facts = ex("Mom had surgery last weekend.", WHEN)
    assert [(f.subject.relation, f.value) for f in facts] == [("mother", "surgery")]  # the pattern extractor's
    assert (ex.stats.retries, ex.stats.fallbacks) == (1, 1)


def test_ingest_counts_fallbacks_in_the_report(container, tmp_path):
    mbox = tmp_path / "m.mbox"
    mbox.write_text("From a@x Mon Jan  5 10:00:00 2026\nFrom: Ann Example <ann@example.com>\nSubject: hi\n"
                    "Date: Mon, 05 Jan 2026 10:00:00 +0000\nMessage-ID: <x1@example.com>\n\nI work at Initech.\n",
                    encoding="utf-8")
    container._fact_extractor = LLMFactExtractor(Scripted([ValueError("bad"), ValueError("bad again")]))
    report = ingest(container, [mbox])
    assert report.extraction_fallbacks == 1 and report.to_json()["extraction_fallbacks"] == 1
    with container.db.session() as s:
        ann = s.exec(select(Entity).where(Entity.canonical_name == "Ann Example")).one()
        assert [f.value for f in s.exec(select(Fact).where(Fact.subject_entity_id == ann.id,
                                                           Fact.key == "employer")).all()] == ["Initech"]

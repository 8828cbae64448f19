"""The retriever's expected-answer-type cue and the time boost it drives, on a real SQLite file."""
from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

from core.extraction.time_anchors import find_time_anchors, has_time_anchor
from core.memory.episodes import EpisodeDraft
from core.retrieval.config import CONFIG
from core.retrieval.cues import asks_when, tells_time
from core.retrieval.retriever import retrieve
from core.store.schema import Entity, Record, Source
from tests.core.memory.conftest import unit

T0 = datetime(2023, 7, 17, 14, tzinfo=timezone.utc)
LEXICAL = replace(CONFIG.with_weights(lex=1.0, dense=0.0, gist=0.0), parallel=False)
"""Only the episode lexicon ranks (no vectors needed): the boosts' effect on its order is all that moves."""


def test_a_question_asks_when_by_its_words():
    assert asks_when("When did Melanie go camping?")
    assert asks_when("What year did Nic move to Lisbon?") and asks_when("which weekend was the race?")
    assert asks_when("How long ago was the wedding?")
    assert not asks_when("What did Melanie paint?") and not asks_when("Where has Melanie camped?")
    assert not asks_when("")


def test_a_turn_tells_time_when_an_anchor_resolves_against_its_own_time():
    assert tells_time("We went camping two weeks ago", T0)
    assert tells_time("the race is on 8 May 2023", T0) and tells_time("I did it yesterday!", T0)
    assert not tells_time("We love camping", T0)
    assert not tells_time("two weeks ago", None)  # no time of its own: nothing to resolve against
    assert not tells_time("", T0)


def test_has_time_anchor_agrees_with_find_time_anchors():
    texts = ["last Friday I went to a council meeting", "May I come?", "see you on Monday", "in 2023-05-08 we met",
             "no time here at all", "this morning", "a few days ago", "march on", "March 3rd, 2022"]
    for t in texts:
        assert has_time_anchor(t, T0) == bool(find_time_anchors(t, T0)), t


def _chat(mem, turns):
    """Store ``(sender, session, minutes after T0, text)`` turns as chat records with their episodes; returns the
    episode ids in order."""
    from sqlmodel import Session

    with Session(mem.db.engine) as s:
        src = Source(kind="telegram", path="result.json", content_hash="h")
        s.add(src)
        s.flush()
        people = {}
        for who in dict.fromkeys(t[0] for t in turns):
            people[who] = Entity(kind="person", canonical_name=who)
            s.add(people[who])
        s.flush()
        recs = []
        for i, (who, session, minutes, text) in enumerate(turns):
            r = Record(source_id=src.id, external_id=f"m {i}", kind="chat", sender_entity_id=people[who].id,
                       sent_at=T0 + timedelta(minutes=minutes), text=text, thread=session, content_hash=f"c{i}")
            s.add(r)
            recs.append(r)
        s.commit()
        rids = [r.id for r in recs]
    return mem.store_many([EpisodeDraft(text, unit(i), T0 + timedelta(minutes=minutes), speaker=who, record_id=rid,
                                        session=session)
                           for i, ((who, session, minutes, text), rid) in enumerate(zip(turns, rids))])


def _order(mem, question, config):
    res = retrieve(mem.db, None, mem, question, unit(999), k=10, config=config)
    return [h.episode_id for h in res.hits]


def test_a_when_question_puts_the_turn_that_says_when_first(mem):
    said, when = _chat(mem, [
        ("Ana", "chat-1", 0, "The camping trip was the best camping ever, camping forever"),
        ("Ana", "chat-2", 3 * 24 * 60, "We went on a camping trip two weeks ago"),
        ("Ben", "chat-3", 6 * 24 * 60, "Lovely weather for a picnic"),
    ])[:2]
    plain = _order(mem, "When was the camping trip?", replace(LEXICAL, time_boost=0.0))
    assert plain[:2] == [said, when]  # BM25 alone: the turn that says "camping" three times
    assert _order(mem, "When was the camping trip?", LEXICAL)[:2] == [when, said]  # × 2 for saying when
    # a question that does not ask when is ranked as before
    assert _order(mem, "What was the camping trip like?", LEXICAL)[:2] == [said, when]


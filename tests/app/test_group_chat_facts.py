"""Facts in group chats are about their speaker or about whom they name — never the previous speaker (issue 13).

The corpus exports (../shared/corpus/messages/chats) hold lorem ipsum: the right number of facts about
each participant there is zero, and five different participants in the WhatsApp one ("John Doe" and
"John Doe 🤓" are two people).  The group chats below are written in the same export formats; the right
subject of each fact is worked out by reading them.
"""
from __future__ import annotations

import json
from datetime import date

import pytest
from sqlmodel import select

from app.operations.ingest import ingest
from core import clock
from core.store.schema import Entity, Fact, MergeCandidate

WHATSAPP_GROUP = """12/06/2023, 09:00 - Maya Ortiz: I moved to Lisbon last week!
12/06/2023, 09:05 - Tom Weller: Congrats! I started at Initech yesterday.
12/06/2023, 09:07 - Priya Nair: Tom works at Initech? Cool. My sister Jane lives in Oslo.
12/06/2023, 09:08 - Tom Weller: Yes! Priya moved to Berlin on Monday.
12/06/2023, 09:10 - Maya Ortiz: Nice. Priya works at Globex now.
"""

TELEGRAM_GROUP = {
    "name": "Climbing", "type": "private_group", "id": 4242,
    "messages": [
        {"id": 1, "type": "message", "date": "2023-06-12T20:00:00", "date_unixtime": "1686592800",
         "from": "Lena Park", "from_id": "user101", "text": "I live in Vienna now."},
        {"id": 2, "type": "message", "date": "2023-06-12T20:02:00", "date_unixtime": "1686592920",
         "from": "Omar Haddad", "from_id": "user102", "text": "Welcome! I moved to Graz yesterday.",
         "reply_to_message_id": 1},
        {"id": 3, "type": "message", "date": "2023-06-12T20:03:00", "date_unixtime": "1686592980",
         "from": "Lena Park", "from_id": "user101", "text": "Omar works at Voestalpine, right? Cool",
         "reply_to_message_id": 2},
    ],
}


def _facts(s, key: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in s.exec(select(Fact).where(Fact.key == key, Fact.superseded_by.is_(None))).all():
        out.setdefault(s.get(Entity, f.subject_entity_id).canonical_name, []).append(f.value)
    return out


def test_whatsapp_group_facts_are_about_their_speaker_or_whom_they_name(container, tmp_path):
    path = tmp_path / "WhatsApp Chat with Friends.txt"
    path.write_text(WHATSAPP_GROUP, encoding="utf-8")
    r = ingest(container, [path])
    assert r.records_added == 5 and not r.errors
    with container.db.session() as s:
        homes, jobs = _facts(s, "home"), _facts(s, "employer")
        assert homes == {"Maya Ortiz": ["Lisbon"], "Priya Nair": ["Berlin"], "Jane": ["Oslo"]}
        assert jobs == {"Tom Weller": ["Initech"], "Priya Nair": ["Globex"]}
        # "Tom works at Initech?" is a question: no second source for Tom's job
        (tom_job,) = s.exec(select(Fact).where(Fact.key == "employer", Fact.value == "Initech")).all()
        assert tom_job.evidence_count == 1 and clock.ensure_utc(tom_job.valid_from).date() == date(2023, 6, 11)
        # "my sister Jane" is Priya's sister, not Tom's (the previous speaker)
        (rel,) = s.exec(select(Fact).where(Fact.key.startswith("relation:sister"))).all()
        assert s.get(Entity, rel.subject_entity_id).canonical_name == "Priya Nair"
        assert s.exec(select(Entity).where(Entity.canonical_name.in_(["Tom", "Priya", "You", "Congrats"]))).all() == []


def test_telegram_group_replies_are_not_about_the_message_they_answer(container, tmp_path):
    path = tmp_path / "result.json"
    path.write_text(json.dumps(TELEGRAM_GROUP), encoding="utf-8")
    r = ingest(container, [path])
    assert r.records_added == 3 and not r.errors
    with container.db.session() as s:
        assert _facts(s, "home") == {"Lena Park": ["Vienna"], "Omar Haddad": ["Graz"]}
        assert _facts(s, "employer") == {}  # asked, not told
        (graz,) = s.exec(select(Fact).where(Fact.value == "Graz")).all()
        assert clock.ensure_utc(graz.valid_from).date() == date(2023, 6, 11)  # the export's local calendar


@pytest.mark.corpus
def test_corpus_exports_name_five_whatsapp_participants_and_state_no_personal_facts(container, corpus):
    chats = corpus / "messages" / "chats"
    r = ingest(container, [chats / "whatsapp_test_ddmmyy_24hrs.txt", chats / "telegram_test_single_export.json"])
    assert r.records_added == 7 + 2 and not r.errors
    with container.db.session() as s:
        people = {e.canonical_name for e in s.exec(select(Entity).where(Entity.kind == "person",
                                                                         Entity.tombstoned_at.is_(None))).all()}
        assert {"John Doe", "John Doe 🤓", "Jahn Doe", "John-John Doe", "🤓", "Author 1", "Author 2"} <= people
        personal = s.exec(select(Fact).where(Fact.domain.in_(["places", "work", "health"]))).all()
        assert personal == []  # lorem ipsum says nothing about anyone
        apart = s.exec(select(MergeCandidate).where(MergeCandidate.signal == "same_chat")).all()
        names = {frozenset((s.get(Entity, m.a_id).canonical_name, s.get(Entity, m.b_id).canonical_name)) for m in apart}
        assert frozenset(("John Doe", "John Doe 🤓")) in names and all(m.status == "separate" for m in apart)

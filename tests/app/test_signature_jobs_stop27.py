"""A sender's job from their own mail signature (``core.extraction.signature.signature_job``, wired in
``app.pipeline.record_facts``): facts of the sender, and "what is Jane's job?" answered with title and employer."""
from __future__ import annotations

import pytest

from app.operations.ingest import ingest
from helpers.files import rows

MAIL = """From {addr} Tue Mar 05 10:00:00 2024
From: {name} <{addr}>
To: Sam Lee <sam@example.org>
Subject: {subject}
Date: Tue, 5 Mar 2024 10:00:00 +0000
Message-ID: <{subject}@example.com>

Hi Sam, see the attached notes.

Best,
{signature}

"""


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    from app.container import Container

    root = tmp_path_factory.mktemp("sig")
    mp = pytest.MonkeyPatch()
    mp.setenv("KITH_HOME", str(root / "kith-home"))
    box = root / "inbox.mbox"
    box.write_text(MAIL.format(addr="jane@acme.example", name="Jane Doe", subject="budget",
                               signature="Jane Doe\nHead of Finance, Acme Ltd")
                   + MAIL.format(addr="raj@example.net", name="Raj Patel", subject="plans",
                                 signature="Raj Patel\nSenior Engineer")
                   + MAIL.format(addr="tom@example.net", name="Tom Lee", subject="walk",
                                 signature="Tom"), encoding="utf-8")
    c = Container()
    try:
        assert ingest(c, [box]).records_added == 3
        yield c
    finally:
        c.close()
        mp.undo()


def test_a_signature_states_the_senders_title_and_employer(home):
    got = rows(home.settings.db_path, "SELECT e.canonical_name, f.key, f.value, f.statement FROM fact f JOIN entity e "
               "ON e.id = f.subject_entity_id WHERE f.category = 'employment' ORDER BY e.canonical_name, f.key")
    assert got == [
        ("Jane Doe", "employer", "Acme Ltd", "As of 2024-03-05, Jane Doe works at Acme Ltd."),
        ("Jane Doe", "title", "Head of Finance", "As of 2024-03-05, Jane Doe's job title is Head of Finance."),
        ("Raj Patel", "title", "Senior Engineer", "As of 2024-03-05, Raj Patel's job title is Senior Engineer.")]


@pytest.mark.parametrize("question, answer", [
    ("what is Jane's job?", "Jane Doe is Head of Finance at Acme Ltd (since March 2024)."),
    ("what does Raj do?", "Raj Patel's job title is Senior Engineer."),
    ("what is Tom's job?", "Nothing in your records says what Tom Lee's job is."),
])
def test_what_is_their_job(home, question, answer):
    from app.answer import job_answer, job_question

    q = job_question(home, question)
    assert job_answer(q, []).text == answer


def test_a_job_title_is_not_where_they_work(home):
    """Where someone works, and whether they ever worked somewhere, read employers only: Raj's signature gives a title
    and no employer."""
    from app.answer import ever_held_question

    q = ever_held_question(home, "did Raj ever work at Senior Engineer?")
    assert q.held == [] and q.matching == []
    jane = ever_held_question(home, "does Jane still work at Acme?")
    assert [h.value for h in jane.held] == ["Acme Ltd"] and [h.value for h in jane.matching] == ["Acme Ltd"]

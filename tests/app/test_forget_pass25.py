"""Forget, pass 25: a new user's mail and WhatsApp chats, one chat file forgotten.  Every test writes its own
inputs; the right values come from them.

Faults these tests pinned (each a kind):

* a fact kept after forgetting some of its evidence kept the start the forgotten record gave it — Harriet's
  'wrote to Nina' read "since 2023-05-01" (the day of the forgotten WhatsApp chat's first message) in her profile
  and its statement; it now starts with the earliest record that stays, and a restore brings the old start back;
* a forgotten person's first name alone in others' messages stayed ("Oliver said the ferry was cancelled" after
  forgetting Oliver Grant, in Harriet's record, the lexicon and the memory's concepts); it is a mention, redacted
  like a one-word name — so where a live Oliver is a party it is his and stays; a first name that opens sentences
  as a word (Will, May, Mark, Hope …) is not taken alone;
* a kept chat reply that said a forgotten fact in its own words — "who is Oliver?" answered from the graph
  "Oliver Grant lives in Edinburgh. Oliver Grant's sister is Beth. …" — kept it after the message it came from was
  forgotten (by record, file or time range: no name is forgotten, so no redaction found it), in the conversation
  and the personalization ledger; such a turn now reads [forgotten], as one citing a forgotten record does.
"""
from __future__ import annotations

import sqlite3
from datetime import datetime, timezone

from app.operations.forget import forget, restore
from app.operations.ingest import ingest
from core.store.forgetting import Target
from helpers.files import scan
from helpers.mboxes import write_mbox

NINA = "Nina Brooks <nina@brooks.test>"
HARRIET = "Harriet Cole <harriet.cole@gmail.test>"


def _setup(c, tmp_path):
    c.settings.owner_name, c.settings.owner_emails = "Nina Brooks", ["nina@brooks.test"]
    box = write_mbox(tmp_path / "mail.mbox", [
        (HARRIET, NINA, "New job!", "I started at Fernleaf Bakery last week as head baker."),
        (HARRIET, NINA, "Birthday", "My birthday party is on 21 September at the Crown pub.")],
        start=datetime(2023, 6, 4, 9, 0, tzinfo=timezone.utc), step=datetime(2023, 6, 13) - datetime(2023, 6, 4))
    chat = tmp_path / "WhatsApp Chat with Harriet Cole.txt"
    chat.write_text("01/05/2023, 10:00 - Harriet Cole: Fancy a walk on Sunday?\n"
                    "01/05/2023, 10:02 - Nina Brooks: yes please, Ashton Court?\n"
                    "10/08/2023, 19:00 - Harriet Cole: I got engaged!!! Tom proposed in Paris\n", encoding="utf-8")
    assert ingest(c, [box, chat]).records_added == 5
    return chat


def _writes_to(c) -> tuple[str, str]:
    db = sqlite3.connect(str(c.settings.db_path))
    try:
        return db.execute("SELECT f.valid_from, f.statement FROM fact f JOIN entity e ON e.id = f.subject_entity_id "
                          "WHERE e.canonical_name = 'Harriet Cole' AND f.key LIKE 'writes_to:%' "
                          "AND f.tombstoned_at IS NULL AND f.superseded_by IS NULL").fetchone()
    finally:
        db.close()


def test_a_kept_fact_does_not_start_on_the_day_of_a_forgotten_record(container, tmp_path):
    c = container
    chat = _setup(c, tmp_path)
    since, statement = _writes_to(c)
    assert since.startswith("2023-05-01 10:00") and statement.startswith("As of 2023-05-01, ")

    rep = forget(c, Target.source(str(chat)))
    since, statement = _writes_to(c)
    assert since.startswith("2023-06-04 09:00")  # her first mail, the earliest record that stays
    assert statement == "As of 2023-06-04, Harriet Cole wrote to Nina Brooks by email."

    restore(c, rep.forget_id)
    since, statement = _writes_to(c)
    assert since.startswith("2023-05-01 10:00") and statement.startswith("As of 2023-05-01, ")

    forget(c, Target.source(str(chat)), purge=True)
    since, statement = _writes_to(c)
    assert since.startswith("2023-06-04 09:00") and statement.startswith("As of 2023-06-04, ")


def test_a_forgotten_persons_first_name_alone_goes_from_others_messages(container, tmp_path):
    c = container
    c.settings.owner_name, c.settings.owner_emails = "Nina Brooks", ["nina@brooks.test"]
    harriet = tmp_path / "WhatsApp Chat with Harriet Cole.txt"
    harriet.write_text("01/05/2023, 10:00 - Harriet Cole: Oliver said the ferry was cancelled\n"
                       "01/05/2023, 10:01 - Nina Brooks: typical, the ferry again\n", encoding="utf-8")
    oliver = tmp_path / "WhatsApp Chat with Oliver Grant.txt"
    oliver.write_text("02/05/2023, 10:00 - Oliver Grant: I booked the cabin in Glencoe\n"
                      "02/05/2023, 10:01 - Nina Brooks: amazing\n", encoding="utf-8")
    box = write_mbox(tmp_path / "stone.mbox", [("Oliver Stone <ostone@stone.test>", NINA, "Quiz",
                                                "Oliver here, the pub quiz is on Friday.")])
    assert ingest(c, [harriet, oliver, box]).records_added == 5

    forget(c, "Oliver Grant", purge=True)
    db = sqlite3.connect(str(c.settings.db_path))
    try:
        texts = sorted(t.strip() for (t,) in db.execute("SELECT text FROM record"))
    finally:
        db.close()
    assert texts == ["Oliver here, the pub quiz is on Friday.", "[forgotten] said the ferry was cancelled",
                     "amazing", "typical, the ferry again"]
    assert scan(c.settings.home, ["Glencoe", "Oliver Grant"]) == {}
    from app.operations.ask import ask

    assert [r.text for r in ask(c, "ferry cancelled", k=3) if "cancelled" in r.text] == \
        ["[forgotten] said the ferry was cancelled"]


def test_a_first_name_that_is_a_word_is_not_redacted_alone(container, tmp_path):
    c = container
    c.settings.owner_name, c.settings.owner_emails = "Nina Brooks", ["nina@brooks.test"]
    harriet = tmp_path / "WhatsApp Chat with Harriet Cole.txt"
    harriet.write_text("01/05/2023, 10:00 - Harriet Cole: Will you come to the quiz? Will Parker is hosting\n",
                       encoding="utf-8")
    will = tmp_path / "WhatsApp Chat with Will Parker.txt"
    will.write_text("02/05/2023, 10:00 - Will Parker: the quiz starts at 8\n"
                    "02/05/2023, 10:01 - Nina Brooks: great\n", encoding="utf-8")
    assert ingest(c, [harriet, will]).records_added == 3
    forget(c, "Will Parker", purge=True)
    db = sqlite3.connect(str(c.settings.db_path))
    try:
        texts = sorted(t.strip() for (t,) in db.execute("SELECT text FROM record"))
    finally:
        db.close()
    assert texts == ["Will you come to the quiz? [forgotten] is hosting", "great"]


def test_a_kept_reply_that_said_a_forgotten_fact_keeps_none_of_it(container, tmp_path):
    from app.loop import ConversationLoop
    from app.models.llm import NoModel

    c = container
    c.settings.owner_name, c.settings.owner_emails = "Nina Brooks", ["nina@brooks.test"]
    oliver = "Oliver Grant <oliver@grantco.test>"
    box = write_mbox(tmp_path / "mail.mbox", [
        (oliver, NINA, "Boat trip", "Hi Nina,\n\nThe boat trip to Skye is booked for 9 July. Bring your wetsuit."),
        (NINA, oliver, "Re: Boat trip", "Great, I'll bring the wetsuit and some sandwiches."),
        (oliver, NINA, "Dentist", "Your dentist appointment was moved to 3 August at 10am.")],
        start=datetime(2023, 6, 1, 9, 0, tzinfo=timezone.utc))
    chat = tmp_path / "WhatsApp Chat with Oliver Grant.txt"
    chat.write_text("12/06/2023, 14:05 - Oliver Grant: Did you see the lighthouse photos?\n"
                    "12/06/2023, 14:06 - Nina Brooks: Yes! The lighthouse was amazing\n"
                    "13/06/2023, 09:10 - Oliver Grant: My sister Beth is visiting next week\n"
                    "20/06/2023, 18:30 - Oliver Grant: I'm moving to Edinburgh in September\n"
                    "15/07/2023, 20:00 - Oliver Grant: Thanks for the lovely dinner, the risotto was perfect\n",
                    encoding="utf-8")
    assert ingest(c, [box, chat]).records_added == 8
    reply = ConversationLoop.for_container(c, model=NoModel()).turn("who is oliver").reply
    assert reply.startswith("Oliver Grant lives in Edinburgh. Oliver Grant's sister is Beth. ")

    # a time range holds her message: no name is forgotten, so no redaction finds the reply's words
    forget(c, Target.range(datetime(2023, 6, 12, tzinfo=timezone.utc), datetime(2023, 6, 14, tzinfo=timezone.utc)),
           purge=True)
    db = sqlite3.connect(str(c.settings.db_path))
    try:
        turns = [t for (t,) in db.execute("SELECT text FROM chat_turn")]
        ledger = [t for (t,) in db.execute("SELECT text FROM message WHERE record_ref IS NULL")]
    finally:
        db.close()
    assert turns == ["who is oliver", "[forgotten]"]
    assert "who is oliver" in ledger and not any("Beth" in t for t in ledger)
    assert scan(c.settings.home, ["sister is Beth", "sister Beth"]) == {}

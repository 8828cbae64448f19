"""A new export of a long WhatsApp chat starts later (WhatsApp exports its latest messages) or lost a deleted
message, so every line number moves: its old lines are still known by chat, time and text
(``app.pipeline.stored_already``), and the same words twice in one minute stay two messages.  Real ingest path."""
from __future__ import annotations

from app.operations.ingest import ingest
from helpers.files import rows

LINES = ["12/03/2024, 18:02 - Maya Ortiz: Are we still on for Friday?",
         "12/03/2024, 18:05 - Tom Weller: Yes!",
         "12/03/2024, 18:05 - Tom Weller: ok",
         "12/03/2024, 18:05 - Tom Weller: ok",
         "13/03/2024, 09:10 - Maya Ortiz: I booked the table at Lupa",
         "13/03/2024, 09:12 - Tom Weller: Perfect"]
NEW = "14/03/2024, 20:00 - Maya Ortiz: See you tomorrow"
NAME = "WhatsApp Chat with Maya Ortiz.txt"


def _texts(c) -> list[str]:
    return [t for (t,) in rows(c.settings.db_path, "SELECT text FROM record ORDER BY sent_at, id")]


def test_a_later_export_that_starts_later_adds_only_its_new_lines(container, tmp_path):
    first = tmp_path / "a" / NAME
    first.parent.mkdir()
    first.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    assert ingest(container, [first]).records_added == 6  # "ok" twice in one minute: two messages
    again = tmp_path / "b" / NAME  # the first line gone, a message deleted (line 2), one new at the end
    again.parent.mkdir()
    again.write_text("\n".join([LINES[2], LINES[3], LINES[4], LINES[5], NEW]) + "\n", encoding="utf-8")
    rep = ingest(container, [again])
    assert (rep.records_added, rep.records_skipped, rep.errors) == (1, 4, [])
    assert _texts(container) == ["Are we still on for Friday?", "Yes!", "ok", "ok", "I booked the table at Lupa",
                                 "Perfect", "See you tomorrow"]


def test_a_third_ok_in_the_same_minute_of_a_new_export_is_new(container, tmp_path):
    first = tmp_path / "a" / NAME
    first.parent.mkdir()
    first.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    ingest(container, [first])
    again = tmp_path / "b" / NAME
    again.parent.mkdir()
    again.write_text("\n".join(LINES[1:4] + ["12/03/2024, 18:05 - Tom Weller: ok"] + LINES[4:]) + "\n",
                     encoding="utf-8")
    rep = ingest(container, [again])
    assert (rep.records_added, rep.records_skipped) == (1, 5)
    assert _texts(container).count("ok") == 3

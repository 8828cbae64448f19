"""The same line in two WhatsApp chats is two records (stop 25): "01/01/2024, 00:01 - Nic Owner: Happy New Year!" as
the first line of the chats with Ann and with Bob hashed alike (kind, "line 1", time, sender, text) and Bob's was
dropped as "already known".  The chat is now part of a line's hash; a data folder an earlier version filled (hashes
without the chat) still knows its own lines, and only those."""
from __future__ import annotations

from app.operations.ingest import ingest
from helpers.files import rows
from ingestors.base import Record

LINE = "01/01/2024, 00:01 - Nic Owner: Happy New Year!\n"


def _chats(tmp_path):
    ann = tmp_path / "WhatsApp Chat with Ann Smith.txt"
    ann.write_text(LINE + "01/01/2024, 00:05 - Ann Smith: you too!\n", encoding="utf-8")
    bob = tmp_path / "WhatsApp Chat with Bob Jones.txt"
    bob.write_text(LINE + "01/01/2024, 00:07 - Bob Jones: cheers\n", encoding="utf-8")
    return ann, bob


def _lines(c) -> list[tuple]:
    return rows(c.settings.db_path, "SELECT thread, text FROM record ORDER BY thread, id")


def test_the_same_first_line_of_two_chats_is_two_records(container, tmp_path):
    ann, bob = _chats(tmp_path)
    rep = ingest(container, [ann, bob])
    assert (rep.records_added, rep.records_skipped) == (4, 0)  # was (3, 1): Bob's "Happy New Year!" lost
    assert [t for _th, t in _lines(container)].count("Happy New Year!") == 2
    again = ingest(container, [ann, bob])
    assert (again.records_added, again.records_skipped) == (0, 4)


def test_a_folder_an_earlier_version_filled_keeps_its_lines_and_takes_the_other_chats(container, tmp_path,
                                                                                       monkeypatch):
    ann, bob = _chats(tmp_path)
    unscoped = Record._file_hash

    def before_stop_25(self, sent_at, text=None, scope=None):  # the hash without the chat
        return unscoped(self, sent_at, text)

    monkeypatch.setattr(Record, "_file_hash", before_stop_25)
    assert ingest(container, [ann]).records_added == 2
    monkeypatch.setattr(Record, "_file_hash", unscoped)
    rep = ingest(container, [ann, bob])
    assert (rep.records_added, rep.records_skipped) == (2, 2)  # Ann's two known; Bob's two new
    assert [t for _th, t in _lines(container)].count("Happy New Year!") == 2


def test_one_chat_exported_by_android_and_by_ios_is_one_chat(container, tmp_path):
    android = tmp_path / "WhatsApp Chat with Ann.txt"
    android.write_text(LINE + "01/01/2024, 00:05 - Ann: you too!\n", encoding="utf-8")
    ios = tmp_path / "WhatsApp Chat - Ann"
    ios.mkdir()
    (ios / "_chat.txt").write_text(LINE + "01/01/2024, 00:05 - Ann: you too!\n", encoding="utf-8")
    rep = ingest(container, [android, ios / "_chat.txt"])
    assert (rep.records_added, rep.records_skipped) == (2, 2)  # the chat is Ann's, whichever export named it


def test_the_person_a_chat_is_named_after_keeps_their_lines_beside_two_other_senders(container, tmp_path):
    # an Android export (no "[date]" brackets): WhatsApp writes a group's notices with no sender there, so the chat's
    # name is a person — Tom's lines were taken for group notices (the owner wrote from two numbers) and lost
    chat = tmp_path / "WhatsApp Chat with Tom Weller.txt"
    chat.write_text("12/05/2023, 09:00 - Sam Reed: hello\n12/05/2023, 09:01 - +44 7700 900123: new number\n"
                    "12/05/2023, 09:02 - Tom Weller: see you at 5\n12/05/2023, 09:03 - Tom Weller: bring the tent\n",
                    encoding="utf-8")
    assert ingest(container, [chat]).records_added == 4
    assert rows(container.settings.db_path, "SELECT text FROM record WHERE text LIKE '%tent%'") == [("bring the tent",)]

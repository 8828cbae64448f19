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

    def before_stop_25(self, sent_at, text=None, scoped=False):  # the hash without the chat
        return unscoped(self, sent_at, text)

    monkeypatch.setattr(Record, "_file_hash", before_stop_25)
    assert ingest(container, [ann]).records_added == 2
    monkeypatch.setattr(Record, "_file_hash", unscoped)
    rep = ingest(container, [ann, bob])
    assert (rep.records_added, rep.records_skipped) == (2, 2)  # Ann's two known; Bob's two new
    assert [t for _th, t in _lines(container)].count("Happy New Year!") == 2

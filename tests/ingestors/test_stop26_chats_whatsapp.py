"""Stop 26: the same WhatsApp chat exported again under another file name adds only its new lines.

Stop 25 made the chat part of a line's hash, the chat named by the export's file name: ``wa_de.txt`` and then the
same chat as ``wa_more.txt`` (a line more), ``wa_crlf.txt`` (CRLF line ends) or a copy without the final line break
stored every old line again.  Now a file whose name does not find its chat is the stored chat whose lines its first
lines are (``app.operations.ingest._stored_chat``); two different chats with one identical line keep both lines.
Through the real ingest path."""
from __future__ import annotations

from app.operations.ingest import ingest
from helpers.files import rows

CHAT = ("03.02.23, 19:04 - Nachrichten und Anrufe sind Ende-zu-Ende-verschlüsselt.\n"
        "03.02.23, 19:05 - Jana Krüger: Treffen wir uns am Bahnhof?\n"
        "03.02.23, 19:07 - Lukas Brandt: Ja, um acht.\n"
        "Ich bringe den Schlüssel mit.\n"
        "13.02.23, 08:15 - Jana Krüger: Gut\n")
MORE = "14.02.23, 10:00 - Lukas Brandt: Neue Nachricht über den Hafen\n"


def _records(c) -> list[tuple]:
    return rows(c.settings.db_path, "SELECT thread, external_id, text FROM record ORDER BY id")


OLD = [("whatsapp:wa_de", "line 2", "Treffen wir uns am Bahnhof?"),
       ("whatsapp:wa_de", "line 3", "Ja, um acht.\nIch bringe den Schlüssel mit."),
       ("whatsapp:wa_de", "line 5", "Gut")]


def test_the_same_chat_under_other_names_line_ends_and_endings_adds_only_new_lines(container, tmp_path):
    first = tmp_path / "wa_de.txt"
    first.write_text(CHAT, encoding="utf-8")
    assert (ingest(container, [first]).records_added, _records(container)) == (3, OLD)
    more = tmp_path / "wa_more.txt"  # one line more at the end
    more.write_text(CHAT + MORE, encoding="utf-8")
    rep = ingest(container, [more])
    assert (rep.records_added, rep.records_skipped, rep.errors) == (1, 3, [])
    new = [("whatsapp:wa_de", "line 6", "Neue Nachricht über den Hafen")]  # one chat: the stored chat's thread
    assert _records(container) == OLD + new
    crlf = tmp_path / "wa_crlf.txt"
    crlf.write_bytes((CHAT + MORE).replace("\n", "\r\n").encode("utf-8"))
    nonl = tmp_path / "export" / "chat.txt"  # named for its folder ("whatsapp:export"), no final line break
    nonl.parent.mkdir()
    nonl.write_text((CHAT + MORE).rstrip("\n"), encoding="utf-8")
    named = tmp_path / "WhatsApp Chat mit Jana Krüger.txt"  # a name that names the chat: still the stored one
    named.write_text(CHAT, encoding="utf-8")
    for path in (crlf, nonl, named, first):
        rep = ingest(container, [path])
        assert (rep.records_added, rep.records_skipped, rep.errors) == (0, 4 if path in (crlf, nonl) else 3, []), path
    assert _records(container) == OLD + new


def test_two_chats_with_one_identical_line_keep_both(container, tmp_path):
    line = "01/01/2024, 00:01 - Nic Owner: Happy New Year!\n"
    group = tmp_path / "family.txt"
    group.write_text(line + "01/01/2024, 00:05 - Ann Smith: you too!\n01/01/2024, 00:06 - Bob Jones: cheers\n",
                     encoding="utf-8")
    direct = tmp_path / "ann.txt"  # another chat, same first line, then its own
    direct.write_text(line + "01/01/2024, 00:05 - Ann Smith: and to you!\n", encoding="utf-8")
    rep = ingest(container, [group, direct])
    assert (rep.records_added, rep.records_skipped) == (5, 0)
    assert _records(container) == [("whatsapp:family", "line 1", "Happy New Year!"),
                                   ("whatsapp:family", "line 2", "you too!"),
                                   ("whatsapp:family", "line 3", "cheers"),
                                   ("whatsapp:ann", "line 1", "Happy New Year!"),
                                   ("whatsapp:ann", "line 2", "and to you!")]


def test_two_chats_named_differently_are_two_chats_however_alike(container, tmp_path):
    body = "01/01/2024, 00:01 - Nic Owner: Happy New Year!\n01/01/2024, 00:05 - Nic Owner: all the best\n"
    ann = tmp_path / "WhatsApp Chat with Ann Smith.txt"
    ann.write_text(body, encoding="utf-8")
    bob = tmp_path / "WhatsApp Chat with Bob Jones.txt"  # the owner sent both the same two lines
    bob.write_text(body, encoding="utf-8")
    rep = ingest(container, [ann, bob])
    assert (rep.records_added, rep.records_skipped) == (4, 0)
    assert [t for t, _x, _y in _records(container)] == ["whatsapp:whatsapp chat with ann smith"] * 2 + [
        "whatsapp:whatsapp chat with bob jones"] * 2
    # the same chat under a name that does not name it: one of the two (its lines are both's: the first stored)
    again = tmp_path / "backup.txt"
    again.write_text(body, encoding="utf-8")
    rep = ingest(container, [again])
    assert (rep.records_added, rep.records_skipped) == (0, 2)


def test_lines_a_forget_purged_do_not_come_back_under_a_new_file_name(kith_home, tmp_path):
    from click.testing import CliRunner

    from app.cli import main

    def kith(*args):
        result = CliRunner().invoke(main, list(args), catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result

    first = tmp_path / "wa_de.txt"
    first.write_text(CHAT, encoding="utf-8")
    kith("ingest", str(first))
    kith("forget", "Jana Krüger", "--yes", "--purge")
    more = tmp_path / "wa_more.txt"
    more.write_text(CHAT + MORE, encoding="utf-8")
    kith("ingest", str(more))
    assert rows(kith_home / "kith.sqlite3", "SELECT thread, external_id, text FROM record ORDER BY id") == [
        OLD[1], ("whatsapp:wa_de", "line 6", "Neue Nachricht über den Hafen")]

"""WhatsApp export ingestor: the real corpus exports (values read off the files by hand) and small made-up files."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from core.errors import InputError
from ingestors.base import Party, Record, RecordError
from ingestors.registry import ingestor_for
from ingestors.whatsapp import WhatsAppIngestor

UTC = timezone.utc
NERD = "\U0001F913"  # bytes f0 9f a4 93 in both corpus files
TWO_LINES = "Lorem ipsum dolor sit amet,\nconsectetur adipiscing elit. Duis libero."

# Both corpus files hold the same chat: 10 lines, 7 messages (two of them two lines long),
# 2 system lines (6: 'created group', 7: 'You were added').
EXPECTED = [  # (line, UTC wall time when the phone was on UTC, sender name, text)
    (1, datetime(2019, 1, 1, 11, 25, tzinfo=UTC), "John Doe", "Lorem ipsum dolor sit amet."),
    (2, datetime(2019, 1, 20, 11, 23, tzinfo=UTC), "John Doe", "."),
    (3, datetime(2019, 1, 30, 20, 49, tzinfo=UTC), "Jahn Doe", TWO_LINES),
    (5, datetime(2020, 6, 10, 15, 55, tzinfo=UTC), "John-John Doe", "Lorem ipsum : dolor sit amet."),
    (8, datetime(2021, 12, 10, 10, 10, tzinfo=UTC), f"John Doe {NERD}", f"Lorem ipsum {NERD}"),
    (9, datetime(2021, 12, 20, 12, 10, tzinfo=UTC), NERD, f"Lorem ipsum {NERD}"),
    (10, datetime(2021, 12, 30, 22, 1, tzinfo=UTC), "John Doe", TWO_LINES),
]
MEMBERS = {"John Doe", "Jahn Doe", "John-John Doe", f"John Doe {NERD}", NERD}


def read(path: Path, **kwargs) -> list:
    return list(WhatsAppIngestor(**kwargs).read(path))


def write(tmp_path: Path, text: str, name: str = "WhatsApp Chat with Ana.txt") -> Path:
    p = tmp_path / name
    p.write_bytes(text.encode("utf-8"))
    return p


# ----------------------------------------------------------------------------- corpus

@pytest.mark.corpus
@pytest.mark.parametrize("name, order", [
    ("whatsapp_test_ddmmyy_24hrs.txt", "DMY"),     # first fields 20 and 30: day-first
    ("whatsapp_test_mmddyyyy_12hrs.txt", "MDY"),   # second fields 20 and 30: month-first
])
def test_corpus_exports_give_seven_messages(corpus, name, order):
    items = read(corpus / "messages/chats" / name)
    assert all(isinstance(i, Record) for i in items)
    assert [(int(r.external_id.split()[1]), r.sent_at, r.sender.name, r.text) for r in items] == EXPECTED
    for r in items:
        assert r.kind == "chat" and r.sender.role == "from" and r.sender.address is None
        assert r.attrs["time_basis"] == "assumed-local" and r.attrs["date_order"] == order
        assert r.notes == []  # the order was settled by the dates, nothing else odd
        assert r.thread == "whatsapp:" + name[:-4]
        assert {p.name for p in r.recipients} == MEMBERS - {r.sender.name}
        assert all(p.role == "member" for p in r.recipients)
        assert r.source_path.endswith(name)


@pytest.mark.corpus
def test_corpus_system_lines_are_kept_on_the_next_message(corpus):
    items = read(corpus / "messages/chats/whatsapp_test_mmddyyyy_12hrs.txt")
    events = items[4].attrs["system_events"]  # the message on line 8
    assert events == [
        # "06/20/2020, 00:08 a. m." - the impossible hour 00 read as midnight
        {"line": 6, "at": "2020-06-20T00:08:00+00:00", "text": '+12 345 578 created group "Groupname"'},
        {"line": 7, "at": "2020-06-30T09:10:00+00:00", "text": "You were added"},
    ]
    assert sum("system_events" in r.attrs for r in items) == 1


@pytest.mark.corpus
def test_corpus_times_in_an_assumed_zone(corpus):
    items = read(corpus / "messages/chats/whatsapp_test_ddmmyy_24hrs.txt", local_timezone="Europe/Madrid")
    # 01/01/19 11:25 in Madrid (CET, +1) and 10/06/20 15:55 (CEST, +2)
    assert items[0].sent_at == datetime(2019, 1, 1, 10, 25, tzinfo=UTC)
    assert items[3].sent_at == datetime(2020, 6, 10, 13, 55, tzinfo=UTC)
    assert items[0].attrs["timezone"] == "Europe/Madrid"


@pytest.mark.corpus
def test_corpus_files_are_sniffed_as_whatsapp(corpus):
    for name in ("whatsapp_test_ddmmyy_24hrs.txt", "whatsapp_test_mmddyyyy_12hrs.txt"):
        assert ingestor_for(corpus / "messages/chats" / name).name == "whatsapp"


# ----------------------------------------------------------------------------- made-up files

def test_ios_bracket_format_with_seconds_and_invisible_marks(tmp_path):
    p = write(tmp_path, "\ufeff\u200e[03/04/2023, 21:05:09] Ana Lima: Olá!\n"
                        "[03/04/2023, 21:06:10] +44 7700 900123: \u200eimage omitted\n"
                        "[13/04/2023, 07:00:00] Ana Lima: \u200e<attached: 00000012-PHOTO-2023-04-13.jpg>\n",
              name="_chat.txt")
    items = read(p)
    assert [r.sent_at for r in items] == [datetime(2023, 4, 3, 21, 5, 9, tzinfo=UTC),
                                          datetime(2023, 4, 3, 21, 6, 10, tzinfo=UTC),
                                          datetime(2023, 4, 13, 7, 0, 0, tzinfo=UTC)]
    assert items[0].sender == Party("Ana Lima", None, "phone", "from")
    assert items[0].text == "Olá!"
    assert items[1].sender == Party(None, "+44 7700 900123", "phone", "from")  # an unsaved contact
    assert items[1].text == "" and items[1].attrs["media"] == "omitted"
    assert items[2].attrs["media"] == "00000012-PHOTO-2023-04-13.jpg" and items[2].text == ""
    assert items[0].recipients == [Party(None, "+44 7700 900123", "phone", "member")]
    assert items[0].thread == "whatsapp:" + tmp_path.name.casefold()  # _chat.txt: named by its folder


def test_twelve_hour_clocks(tmp_path):
    p = write(tmp_path, "1/2/24, 12:05\u202fAM - Ana: midnight\n"
                        "1/2/24, 12:05 PM - Ana: noon\n"
                        "1/2/24, 00:07 a. m. - Ana: impossible hour\n"
                        "1/2/24, 11:59 p.\u00a0m. - Ana: late\n"
                        "1/13/24, 9:00 pm - Ana: month-first\n")
    items = read(p)
    assert [r.sent_at for r in items] == [
        datetime(2024, 1, 2, 0, 5, tzinfo=UTC), datetime(2024, 1, 2, 12, 5, tzinfo=UTC),
        datetime(2024, 1, 2, 0, 7, tzinfo=UTC), datetime(2024, 1, 2, 23, 59, tzinfo=UTC),
        datetime(2024, 1, 13, 21, 0, tzinfo=UTC)]
    assert items[0].attrs["date_order"] == "MDY"


@pytest.mark.parametrize("dayfirst, order, when", [
    (True, "DMY", datetime(2024, 2, 1, 9, 0, tzinfo=UTC)),
    (False, "MDY", datetime(2024, 1, 2, 9, 0, tzinfo=UTC)),
])
def test_ambiguous_dates_use_the_setting_and_say_so(tmp_path, dayfirst, order, when):
    p = write(tmp_path, "01/02/24, 09:00 - Ana: hi\n03/04/24, 10:00 - Bo: hello\n")
    items = read(p, dayfirst=dayfirst)
    assert items[0].sent_at == when
    assert all(r.attrs["date_order"] == order for r in items)
    assert all(any("day/month order" in n for n in r.notes) for r in items)


def test_continuations_and_unreadable_headers_join_the_previous_message(tmp_path):
    p = write(tmp_path, "20/01/24, 09:00 - Ana: first line\r\n"
                        "second line\r\n"
                        "\r\n"
                        "31/02/24, 10:00 - this date cannot exist\r\n"
                        "21/01/24, 10:00 - Bo: reply: with a colon\r\n")
    items = read(p)
    assert [r.external_id for r in items] == ["line 1", "line 5"]
    assert items[0].text == "first line\nsecond line\n\n31/02/24, 10:00 - this date cannot exist"
    assert items[1].text == "reply: with a colon"


def test_deleted_edited_and_trailing_system_lines(tmp_path):
    p = write(tmp_path, "2024-03-01, 08:00 - Ana: This message was deleted\n"
                        "2024-03-01, 08:01 - Ana: fixed it<This message was edited>\n"
                        '2024-03-01, 08:02 - Ana changed the subject to "Plans: May"\n')
    items = read(p)
    assert items[0].attrs["date_order"] == "YMD" and items[0].sent_at == datetime(2024, 3, 1, 8, 0, tzinfo=UTC)
    assert items[0].text == "" and "deleted" in items[0].notes
    assert items[1].text == "fixed it" and "edited" in items[1].notes
    assert items[1].attrs["system_events"] == [
        {"line": 3, "at": "2024-03-01T08:02:00+00:00", "text": 'Ana changed the subject to "Plans: May"'}]


def test_not_a_whatsapp_file(tmp_path):
    p = write(tmp_path, "Dear diary: nothing to see\n01/02/24, 09:00 - Ana: hi\n", name="notes.txt")
    with pytest.raises(InputError, match="not a WhatsApp chat export"):
        read(p)
    assert WhatsAppIngestor().sniff(p, p.read_bytes()) == 0.0
    assert ingestor_for(p) is None
    assert read(write(tmp_path, "\n\n", name="empty.txt")) == []


def test_sniff_and_bad_zone(tmp_path):
    p = write(tmp_path, "\n[1/2/24, 9:00:00 AM] Ana: hi\n")
    assert WhatsAppIngestor().sniff(p, p.read_bytes()) == 0.9
    assert ingestor_for(p).name == "whatsapp"
    with pytest.raises(ValueError, match="unknown time zone"):
        WhatsAppIngestor(local_timezone="Mars/Olympus")


def test_undecodable_bytes_do_not_stop_the_file(tmp_path):
    p = tmp_path / "chat.txt"
    p.write_bytes(b"20/01/24, 09:00 - Ana: caf\xe9\n21/01/24, 09:00 - Bo: ok\n")
    items = read(p)
    assert [r.text for r in items] == ["caf\ufffd", "ok"]
    assert not any(isinstance(i, RecordError) for i in items)

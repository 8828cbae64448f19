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
    assert items[2].attrs["media"] == "00000012-PHOTO-2023-04-13.jpg"
    assert items[2].text == "[attached: 00000012-PHOTO-2023-04-13.jpg]"  # was "" (stop 25: found by what it sent)
    assert items[2].former_text == ""  # the text an earlier import stored: that record is this one
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
    assert [r.text for r in items] == ["café", "ok"]
    assert not any(isinstance(i, RecordError) for i in items)


# ----------------------------------------------------------------------------- regressions (issue 12)
# Right values from ../shared/corpus/regressions/README.md, then other files of the same kinds.

def _summary(items):
    assert all(isinstance(i, Record) for i in items), items
    return [(r.sent_at.replace(tzinfo=None).isoformat(" ", "minutes"), r.sender.name) for r in items]


@pytest.mark.corpus
def test_arabic_locale_export(corpus):
    p = corpus / "regressions/whatsapp_arabic_locale.txt"
    assert ingestor_for(p).name == "whatsapp"
    items = read(p)
    assert _summary(items) == [("2022-11-25 21:45", "سارة"), ("2022-11-25 22:05", "Omar Haddad"),
                               ("2022-11-26 08:15", "سارة")]
    assert items[1].text == "نعم، وصلت قبل قليل"  # the Arabic comma inside a message is text
    assert {p.name for p in items[0].recipients} == {"Omar Haddad"}


@pytest.mark.corpus
def test_pasted_lines_of_another_format_are_message_text(corpus):
    items = read(corpus / "regressions/whatsapp_pasted_lines.txt")
    assert _summary(items) == [("2023-03-12 18:02", "Maya Ortiz"), ("2023-03-12 18:05", "Tom Weller")]
    assert items[0].text.splitlines() == ["Look what Jonas wrote in the other group:",
                                          "[11/03/2023, 21:15:03] Jonas Berg: I'm selling my bike, 150 euros",
                                          "[11/03/2023, 21:16:40] Priya Nair: I'll take it!"]
    names = {p.name for r in items for p in [r.sender, *r.recipients]}
    assert names == {"Maya Ortiz", "Tom Weller"}


@pytest.mark.corpus
def test_us_export_is_month_first_for_the_whole_file(corpus):
    items = read(corpus / "regressions/whatsapp_us_dates_nnbsp.txt")
    system = items[0].attrs["system_events"]
    dates = [system[0]["at"][:10]] + [r.sent_at.date().isoformat() for r in items]
    assert dates == ["2023-01-04", "2023-02-02", "2023-02-04", "2023-02-05", "2023-02-05"]
    assert all(r.attrs["date_order"] == "MDY" and r.attrs["date_order_basis"] == "chronology" for r in items)
    assert items[1].sent_at == datetime(2023, 2, 4, 22, 35, tzinfo=UTC)
    # the bracketed line: a known sender, in time order: a message of this chat
    assert items[2].sent_at == datetime(2023, 2, 5, 9, 1, 7, tzinfo=UTC) and items[2].attrs["media"] == "omitted"


@pytest.mark.parametrize("lines, expected", [
    # German Android, French with "à", Finnish with "klo" and dotted times, Hungarian year-first
    (["24.12.23, 18:30 - Jonas: Frohe Weihnachten", "25.12.23, 09:05 - Lea: Danke!"],
     [("2023-12-24 18:30", "Jonas"), ("2023-12-25 09:05", "Lea")]),
    (["03/04/2023 à 21:05 - Chloé: Salut", "13/04/2023 à 07:00 - Marc: Coucou"],
     [("2023-04-03 21:05", "Chloé"), ("2023-04-13 07:00", "Marc")]),
    (["3.4.2023 klo 21.05 - Aino: Moi", "13.4.2023 klo 7.00 - Eero: Hei"],
     [("2023-04-03 21:05", "Aino"), ("2023-04-13 07:00", "Eero")]),
    (["2023. 03. 04. 21:05 - Anna: Szia", "2023. 03. 05. 07:00 - Béla: Jó reggelt"],
     [("2023-03-04 21:05", "Anna"), ("2023-03-05 07:00", "Béla")]),
    # markers before the time (Korean, Chinese), Greek and Spanish markers after it
    (["2023. 3. 4. 오후 9:05 - 민지: 안녕", "2023. 3. 5. 오전 7:00 - 준호: 좋은 아침"],
     [("2023-03-04 21:05", "민지"), ("2023-03-05 07:00", "준호")]),
    (["2023/3/4 下午9:05 - 小明: 你好", "2023/3/5 上午7:00 - 小红: 早上好"],
     [("2023-03-04 21:05", "小明"), ("2023-03-05 07:00", "小红")]),
    (["4/3/23, 9:05 μ.μ. - Νίκος: Γεια", "5/3/23, 7:00 π.μ. - Ελένη: Καλημέρα"],
     [("2023-03-04 21:05", "Νίκος"), ("2023-03-05 07:00", "Ελένη")]),
    # Thai: Buddhist-era years and a "น." after a 24-hour time; Persian digits
    (["4/3/2566 21:05 น. - สมชาย: สวัสดี", "5/3/2566 07:00 น. - สมหญิง: อรุณสวัสดิ์"],
     [("2023-03-04 21:05", "สมชาย"), ("2023-03-05 07:00", "สมหญิง")]),
    (["۲۰۲۳/۳/۴، ۲۱:۰۵ - سارا: سلام", "۲۰۲۳/۳/۵، ۰۷:۰۰ - علی: صبح بخیر"],
     [("2023-03-04 21:05", "سارا"), ("2023-03-05 07:00", "علی")]),
    # Signal's text export (signal-export): iOS shape, year-first
    (["[2023-01-04 10:35] Ana: hi", "[2023-01-04 10:36] Bo: hello"],
     [("2023-01-04 10:35", "Ana"), ("2023-01-04 10:36", "Bo")]),
])
def test_other_locales(tmp_path, lines, expected):
    p = write(tmp_path, "\n".join(lines) + "\n")
    assert WhatsAppIngestor().sniff(p, p.read_bytes()) == 0.9
    assert _summary(read(p)) == expected


@pytest.mark.parametrize("lines, order, basis", [
    # no field above 12: the order in which the dates run forwards decides (5 Jan, 2 Feb, 1 Mar)
    (["5/1/23, 10:00 - A: a", "2/2/23, 10:00 - B: b", "1/3/23, 10:00 - A: c"], "DMY", "chronology"),
    (["1/2/23, 10:00 - A: a", "2/1/23, 10:00 - B: b"], "MDY", "chronology"),
    # one undecided pair, Arabic 12-hour markers: the CLDR short date of the locales that use them
    (["٢‏/٣‏/٢٠٢٣، ٩:٠٥ م - A: a", "٢‏/٣‏/٢٠٢٣، ٩:٠٦ م - B: b"], "DMY", "locale"),
    (["2/3/23, 9:05 PM - A: a", "2/3/23, 9:06 PM - B: b"], "MDY", "locale"),
])
def test_day_month_order_is_decided_once_per_file(tmp_path, lines, order, basis):
    items = read(write(tmp_path, "\n".join(lines) + "\n"))
    assert {(r.attrs["date_order"], r.attrs["date_order_basis"]) for r in items} == {(order, basis)}
    assert all(any("day/month order" in n for n in r.notes) == (basis == "locale") for r in items)


def test_other_format_lines_start_a_message_only_for_a_member_in_time(tmp_path):
    p = write(tmp_path, "20/01/2024, 09:00 - Ana: look at this\n"
                        "[19/01/2024, 08:00:00] Ana: an old message of mine\n"      # Ana, but earlier: pasted
                        "[20/01/2024, 09:30:00] Zed: someone from elsewhere\n"      # in time, but not a member
                        "20/01/2024, 10:00 - Bo: ok\n"
                        "[20/01/2024, 10:30:00] Bo: \u200eimage omitted\n"          # member, in time: a message
                        "20/01/2024, 11:00 - Ana: nice\n")
    items = read(p)
    assert [(r.external_id, r.sender.name) for r in items] == [("line 1", "Ana"), ("line 4", "Bo"),
                                                               ("line 5", "Bo"), ("line 6", "Ana")]
    assert len(items[0].text.splitlines()) == 3
    assert items[2].attrs["line_shape"] == "other"
    assert {p.name for p in items[0].recipients} == {"Bo"}


def test_long_chat_is_read_line_by_line(tmp_path):
    p = tmp_path / "big.txt"
    with open(p, "w", encoding="utf-8") as f:
        for i in range(20000):
            f.write(f"{1 + i % 28:02d}/02/2024, 10:{i % 60:02d} - {'Ana' if i % 2 else 'Bo'}: message {i}\n")
        f.write("29/02/2024, 11:00 - Ana: " + "x" * 50 + "\n" + ("y" * 999 + "\n") * 1200)
    items = read(p)
    assert len(items) == 20001
    assert items[-1].text.startswith("x" * 50) and len(items[-1].text) <= 1_000_000
    assert any("left out" in n for n in items[-1].notes)


# ----------------------------------------------------------------------------- other exports of the same kinds
# Placeholders, system lines and locale hints as other phones write them (values worked out by hand).

LRM = "\u200e"


@pytest.mark.parametrize("line, text, note, attr", [
    # Android's "<Media omitted>" in other locales
    ("12.03.23, 14:06 - Jörg: <Medien ausgeschlossen>", "", "media omitted from the export", ("media", "omitted")),
    ("12/3/23, 14:06 - Juan: <Multimedia omitido>", "", "media omitted from the export", ("media", "omitted")),
    ("12/03/2023 14:06 - Bruno: <Mídia oculta>", "", "media omitted from the export", ("media", "omitted")),
    ("12.03.2023, 14:06 - Борис: <Без медиафайлов>", "", "media omitted from the export", ("media", "omitted")),
    # iOS's "image omitted" in other locales, with its mark
    (f"[12.03.23, 14:06:00] Jörg: {LRM}Bild weggelassen", "", "media omitted from the export", ("media", "omitted")),
    (f"[5.05.2017 18:09:21] Bora: {LRM}görüntü dahil edilmedi", "", "media omitted from the export",
     ("media", "omitted")),
    (f"[12.03.23, 14:06:00] Jörg: {LRM}<Anhang: 00000031-PHOTO-2023-03-12-14-06-00.jpg>",
     "[attached: 00000031-PHOTO-2023-03-12-14-06-00.jpg]", "attachment: 00000031-PHOTO-2023-03-12-14-06-00.jpg",
     ("media", "00000031-PHOTO-2023-03-12-14-06-00.jpg")),
    # deleted, in other locales and with iOS's mark and full stop
    ("13.03.23, 09:10 - Anna: Diese Nachricht wurde gelöscht", "", "deleted", ("deleted", True)),
    ("13/3/23, 9:10 - Ana: Se eliminó este mensaje.", "", "deleted", ("deleted", True)),
    (f"[12/03/2023, 14:06:10] Ben: {LRM}This message was deleted.", "", "deleted", ("deleted", True)),
    # edited: iOS's mark before the marker, and German
    (f"[12/03/2023, 14:05:09] Ana: Hello there {LRM}<This message was edited>", "Hello there", "edited",
     ("edited", True)),
    ("13.03.23, 09:10 - Anna: Bis morgen <Diese Nachricht wurde bearbeitet>", "Bis morgen", "edited",
     ("edited", True)),
    # bidi marks around a Hebrew text are not text
    ("12.3.2023, 14:05 - \u200fדנה: שלום\u200f", "שלום", None, None),
])
def test_placeholders_in_other_locales(tmp_path, line, text, note, attr):
    items = read(write(tmp_path, line + "\n"))
    assert len(items) == 1 and isinstance(items[0], Record)
    assert items[0].text == text
    if note:
        assert note in items[0].notes
    if attr:
        assert items[0].attrs[attr[0]] == attr[1]


def test_ios_system_lines_under_a_sender_are_not_messages(tmp_path):
    folder = tmp_path / "WhatsApp Chat - Trip Group"
    folder.mkdir()
    p = write(folder, f"[14.08.2024, 21:00:10] Trip Group: {LRM}Messages and calls are end-to-end encrypted. "
                      "No one outside of this chat, not even WhatsApp, can read or listen to them.\n"
                      f"[14.08.2024, 21:00:10] Boris: {LRM}Boris created group \u201cTrip Group\u201d\n"
                      "[14.08.2024, 21:00:11] Trip Group: Boris added you\n"     # the group's name, no mark
                      "[14.08.2024, 21:02:00] Boris: Hi all\n"
                      f"[14.08.2024, 21:03:00] Carla: {LRM}Missed voice call\n"
                      "[14.08.2024, 21:04:00] Carla: Hey!\n"
                      f"{LRM}[14.08.2024, 21:05:00] Carla: {LRM}Location: https://maps.google.com/?q=38.7,-9.1\n"
                      f"[14.08.2024, 21:06:00] Boris: {LRM}POLL:\n{LRM}Dinner where?\n{LRM}OPTION: Tasca (1 vote)\n"
                      f"[14.08.2024, 21:07:00] Carla: {LRM}Carla changed this group's icon\n",
              name="_chat.txt")
    items = read(p)
    assert [(r.sent_at.strftime("%H:%M"), r.sender.name, r.text) for r in items] == [
        ("21:02", "Boris", "Hi all"),
        ("21:04", "Carla", "Hey!"),
        ("21:05", "Carla", "Location: https://maps.google.com/?q=38.7,-9.1"),
        ("21:06", "Boris", "POLL:\nDinner where?\nOPTION: Tasca (1 vote)"),
    ]
    assert {p.name for p in items[0].recipients} == {"Carla"}  # the group's name is nobody
    assert [e["text"] for e in items[0].attrs["system_events"]] == [
        "Trip Group: Messages and calls are end-to-end encrypted. No one outside of this chat, not even "
        "WhatsApp, can read or listen to them.",
        "Boris created group \u201cTrip Group\u201d",
        "Trip Group: Boris added you"]
    assert items[0].attrs["system_events"][1]["shown_as"] == "Boris"
    assert items[1].attrs["system_events"] == [
        {"line": 5, "at": "2024-08-14T21:03:00+00:00", "text": "Missed voice call", "shown_as": "Carla"}]
    assert items[-1].attrs["system_events"][0]["text"] == "Carla changed this group's icon"


def test_ios_one_to_one_notice_under_the_partner(tmp_path):
    p = write(tmp_path, f"[16.09.25, 10:00:00] Sebastian Fellner: {LRM}Nachrichten und Anrufe sind "
                        "Ende-zu-Ende-verschlüsselt. Niemand außerhalb dieses Chats kann sie lesen.\n"
                        "[16.09.25, 10:01:00] Sebastian Fellner: Hallo!\n"
                        "[16.09.25, 10:02:00] Ich: Hi Sebastian\n",
              name="WhatsApp Chat - Sebastian Fellner.txt")
    items = read(p)
    assert [(r.sent_at, r.sender.name, r.text) for r in items] == [
        (datetime(2025, 9, 16, 10, 1, tzinfo=UTC), "Sebastian Fellner", "Hallo!"),
        (datetime(2025, 9, 16, 10, 2, tzinfo=UTC), "Ich", "Hi Sebastian")]
    assert items[0].attrs["system_events"][0]["text"].startswith("Nachrichten und Anrufe")


def test_android_system_lines_with_a_colon_and_unsaved_contacts(tmp_path):
    p = write(tmp_path, "12/12/2023, 10:46 - ~\u202f+1 555 010 0003 created group \"Group1\"\n"
                        "04/03/2024, 22:29 - +1 555 010 0004 added you to a group in the community: Community 1\n"
                        "16/03/2024, 09:10 - +1 (555) 010\u20110007: Hey everyone! We need volunteers\n"
                        "16/03/2024, 09:12 - ~\u202fNev: count me in\n"
                        "16/03/2024, 09:14 - Kim Park: I can help: Saturday works\n"
                        "16/03/2024, 09:20 - Kim Park added Nev to the community: Volunteers\n"
                        "16/03/2024, 09:25 - Nev: thanks\n")
    items = read(p)
    assert [(r.sent_at, r.sender, r.text) for r in items] == [
        (datetime(2024, 3, 16, 9, 10, tzinfo=UTC), Party(None, "+1 (555) 010\u20110007", "phone", "from"),
         "Hey everyone! We need volunteers"),
        (datetime(2024, 3, 16, 9, 12, tzinfo=UTC), Party("Nev", None, "phone", "from"), "count me in"),
        (datetime(2024, 3, 16, 9, 14, tzinfo=UTC), Party("Kim Park", None, "phone", "from"),
         "I can help: Saturday works"),
        (datetime(2024, 3, 16, 9, 25, tzinfo=UTC), Party("Nev", None, "phone", "from"), "thanks")]
    assert {(p.name, p.address) for p in items[0].recipients} == {("Nev", None), ("Kim Park", None)}
    assert [e["text"] for e in items[0].attrs["system_events"]] == [
        '~\u202f+1 555 010 0003 created group "Group1"',
        "+1 555 010 0004 added you to a group in the community: Community 1"]
    assert items[3].attrs["system_events"][0]["text"] == "Kim Park added Nev to the community: Volunteers"


@pytest.mark.parametrize("lines, dayfirst, order, basis, first", [
    # Spanish "p. m." and British lower-case "pm": day-first locales (CLDR), US "PM": month-first
    (["5/3/23, 2:05\u202fp.\u202fm. - Ana: Hola", "5/3/23, 2:07\u202fp.\u202fm. - Juan: Qué tal"], True,
     "DMY", "locale", datetime(2023, 3, 5, 14, 5, tzinfo=UTC)),
    (["5/3/2023, 2:05 pm - Olivia: Hiya", "5/3/2023, 2:07 pm - Jack: Hello"], False,
     "DMY", "locale", datetime(2023, 3, 5, 14, 5, tzinfo=UTC)),
    (["5/3/23, 2:05 PM - Amy: Hi", "5/3/23, 2:07 PM - Joe: Hey"], True,
     "MDY", "locale", datetime(2023, 5, 3, 14, 5, tzinfo=UTC)),
    # dots or hyphens between the fields: day-first whatever the setting
    (["04.03.21, 10:18 - Adrian: Hallo", "04.03.21, 10:20 - Bea: Hi"], False,
     "DMY", "separator", datetime(2021, 3, 4, 10, 18, tzinfo=UTC)),
    (["04-03-2021 10:18 - Anke: Hoi", "04-03-2021 10:20 - Bram: Hoi"], False,
     "DMY", "separator", datetime(2021, 3, 4, 10, 18, tzinfo=UTC)),
])
def test_locale_hints_when_no_date_settles_the_order(tmp_path, lines, dayfirst, order, basis, first):
    items = read(write(tmp_path, "\n".join(lines) + "\n"), dayfirst=dayfirst)
    assert items[0].sent_at == first
    assert {(r.attrs["date_order"], r.attrs["date_order_basis"]) for r in items} == {(order, basis)}
    assert all(any("day/month order not settled" in n for n in r.notes) for r in items)

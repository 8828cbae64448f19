"""A WhatsApp photo imported before the chat that sent it (stop 26).  ``IMG-20190614-WA0003.jpg`` has no EXIF time,
only its day in its name: imported alone it is placed at noon of that day, "time of day unknown".  The chat, read
later (another import), says "14/06/2019, 09:41 - Ann Lee: IMG-20190614-WA0003.jpg (file attached)": the photo
then takes that line's time, as it does when both are read together (tests/app/test_chat_media_times.py).

Worked out by hand: the data folder's ``local_timezone`` is Europe/Berlin, summer time in June (+02:00), so the
line's 09:41 is 07:41 UTC, and the photo's noon of 14 June alone was 10:00 UTC.  A photo with a real EXIF time
(18:30 local, 16:30 UTC) keeps it."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PIL import Image

from app.operations.ingest import ingest
from helpers.files import rows

CHAT = ("14/06/2019, 09:40 - Ann Lee: look at the harbour\n"
        "14/06/2019, 09:41 - Ann Lee: IMG-20190614-WA0003.jpg (file attached)\n"
        "14/06/2019, 20:05 - Ann Lee: IMG-20190614-WA0007.jpg (file attached)\n"
        "14/06/2019, 20:06 - Ann Lee: the boats at night\n")
CHAT_NAME = "WhatsApp Chat with Ann Lee.txt"


def _berlin(kith_home: Path) -> None:
    kith_home.mkdir(parents=True, exist_ok=True)
    (kith_home / "settings.json").write_text(json.dumps({"local_timezone": "Europe/Berlin"}))


def _export(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (8, 8), (200, 10, 10)).save(folder / "IMG-20190614-WA0003.jpg")  # no EXIF: the day alone
    exif = Image.Exif()
    exif[0x0110] = "Pixel 3"
    exif.get_ifd(0x8769)[0x9003] = "2019:06:14 18:30:00"  # a real capture time: kept
    Image.new("RGB", (8, 8), (10, 10, 200)).save(folder / "IMG-20190614-WA0007.jpg", exif=exif)
    (folder / CHAT_NAME).write_text(CHAT, encoding="utf-8")
    return folder


def _photo(c, name: str = "IMG-20190614-WA0003.jpg") -> tuple:
    [row] = rows(c.settings.db_path, "SELECT substr(r.sent_at, 1, 19), r.utc_offset, r.text, json_extract(r.attrs, "
                 "'$.time_basis'), json_extract(r.attrs, '$.date_only'), e.canonical_name FROM record r "
                 "LEFT JOIN entity e ON e.id = r.sender_entity_id WHERE r.kind = 'photo' AND r.external_id = ?",
                 (name,))
    return row


def _episode_time(c) -> str:
    [(t,)] = rows(c.settings.db_path, "SELECT substr(p.t_valid, 1, 19) FROM episode p JOIN record r ON r.id = "
                  "p.record_id WHERE r.external_id = 'IMG-20190614-WA0003.jpg'")
    return t


def _lexicon_row(c) -> tuple:
    [row] = rows(c.settings.db_path, "SELECT l.t, l.session IS NOT NULL, l.speaker FROM lexdoc l JOIN episode p ON "
                 "p.id = l.episode_id JOIN record r ON r.id = p.record_id "
                 "WHERE r.external_id = 'IMG-20190614-WA0003.jpg'")
    return row


LEXICON = (1560498060.0, 1, "Ann Lee")  # 2019-06-14 07:41:00 UTC as Unix seconds; in the chat's thread


def _retimes(c) -> int:
    return rows(c.settings.db_path, "SELECT count(*) FROM auditevent WHERE action = 'retime'")[0][0]


TIMED = ("2019-06-14 07:41:00", 120, "Photo sent 2019-06-14 09:41 by Ann Lee", "chat-line", 0, "Ann Lee")
EXIF_KEPT = ("2019-06-14 16:30:00", 120)


@pytest.mark.parametrize("later", ["the chat alone", "the whole folder"])
def test_a_photo_imported_before_its_chat_takes_the_line_time(kith_home, tmp_path, later):
    _berlin(kith_home)
    from app.container import Container

    folder = _export(tmp_path / "WhatsApp Chat with Ann Lee")
    c = Container()
    try:
        first = ingest(c, [folder / "IMG-20190614-WA0003.jpg", folder / "IMG-20190614-WA0007.jpg"])
        assert (first.records_added, first.errors) == (2, [])
        assert _photo(c)[:5] == ("2019-06-14 10:00:00", 120, "Photo from 2019-06-14 (time of day unknown)",
                                 "file-name-date", 1)
        chat = ingest(c, [folder / CHAT_NAME] if later == "the chat alone" else [folder])
        assert (chat.records_added, chat.errors) == (4, [])
        assert _photo(c) == TIMED
        assert _episode_time(c) == "2019-06-14 07:41:00"
        assert _lexicon_row(c) == LEXICON
        assert _photo(c, "IMG-20190614-WA0007.jpg")[:2] == EXIF_KEPT  # its EXIF time stays
        assert _retimes(c) == 1  # the update is recorded
        # the chat again, the whole folder again, the photo alone again: nothing changes
        for again in ([folder / CHAT_NAME], [folder], [folder / "IMG-20190614-WA0003.jpg"]):
            rep = ingest(c, again)
            assert (rep.records_added, rep.errors) == (0, [])
            assert _photo(c) == TIMED and _retimes(c) == 1
        assert rows(c.settings.db_path, "SELECT count(*) FROM record WHERE kind = 'photo'") == [(2,)]
    finally:
        c.close()


def test_the_chat_first_then_the_photo_alone_gives_the_same(kith_home, tmp_path):
    _berlin(kith_home)
    from app.container import Container

    folder = _export(tmp_path / "WhatsApp Chat with Ann Lee")
    c = Container()
    try:
        assert ingest(c, [folder / CHAT_NAME]).records_added == 4
        rep = ingest(c, [folder / "IMG-20190614-WA0003.jpg", folder / "IMG-20190614-WA0007.jpg"])
        assert (rep.records_added, rep.errors) == (2, [])
        assert _photo(c) == TIMED
        assert _episode_time(c) == "2019-06-14 07:41:00"
        assert _lexicon_row(c) == LEXICON
        assert _photo(c, "IMG-20190614-WA0007.jpg")[:2] == EXIF_KEPT
        again = ingest(c, [folder / CHAT_NAME])
        assert (again.records_added, again.records_skipped) == (0, 4)
        assert _photo(c) == TIMED and _retimes(c) == 1
    finally:
        c.close()


def test_a_copy_of_the_photo_from_another_folder_is_timed_by_its_file_name(kith_home, tmp_path):
    """The photo was saved to the phone's gallery and imported from there: the one line that sent a file of that
    name, on that day, times it."""
    _berlin(kith_home)
    from app.container import Container

    folder = _export(tmp_path / "export")
    gallery = tmp_path / "Gallery"
    gallery.mkdir()
    shutil.copy(folder / "IMG-20190614-WA0003.jpg", gallery / "IMG-20190614-WA0003.jpg")
    c = Container()
    try:
        assert ingest(c, [gallery]).records_added == 1
        assert ingest(c, [folder / CHAT_NAME]).records_added == 4
        assert _photo(c) == TIMED
    finally:
        c.close()


def test_a_file_of_that_name_from_another_day_is_not_timed_by_the_line(kith_home, tmp_path):
    """A line sent "IMG-20190614-WA0003.jpg" on 14 June; a gallery photo of the same name that its name dates
    16 June (another phone's numbering) is not that file: it keeps its day."""
    _berlin(kith_home)
    from app.container import Container

    gallery = tmp_path / "Gallery"
    gallery.mkdir()
    Image.new("RGB", (8, 8), (1, 2, 3)).save(gallery / "IMG-20190616-WA0003.jpg")
    chat = tmp_path / "chat"
    chat.mkdir()
    (chat / CHAT_NAME).write_text(CHAT.replace("IMG-20190614-WA0003", "IMG-20190616-WA0003"), encoding="utf-8")
    c = Container()
    try:
        assert ingest(c, [gallery]).records_added == 1
        assert ingest(c, [chat / CHAT_NAME]).records_added == 4
        assert _photo(c, "IMG-20190616-WA0003.jpg")[:4] == (
            "2019-06-16 10:00:00", 120, "Photo from 2019-06-16 (time of day unknown)", "file-name-date")
        assert _retimes(c) == 0
    finally:
        c.close()


def test_a_video_imported_before_its_chat_zip_takes_the_line_time(kith_home, tmp_path):
    """The same for a video (``VID-…-WA0001.mp4``, no creation time: the day of its name alone), and a chat read
    later from the export's zip (its lines name the file beside them inside the zip)."""
    import subprocess
    import zipfile

    if shutil.which("ffmpeg") is None:
        pytest.skip("ffmpeg is not installed: no real clip can be made")
    _berlin(kith_home)
    from app.container import Container

    folder = tmp_path / "Camera"
    folder.mkdir()
    clip = folder / "VID-20190614-WA0001.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=1:size=64x64:rate=10",
                    "-fflags", "+bitexact", "-map_metadata", "-1", str(clip)], check=True, timeout=60)
    z = tmp_path / "WhatsApp Chat with Ann Lee.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr(CHAT_NAME, "14/06/2019, 09:41 - Ann Lee: VID-20190614-WA0001.mp4 (file attached)\n")
    c = Container()
    c.transcribe = lambda p: ""
    try:
        assert ingest(c, [clip]).records_added == 1
        sql = "SELECT substr(sent_at, 1, 19), utc_offset, text FROM record WHERE kind = 'video'"
        assert rows(c.settings.db_path, sql) == [("2019-06-14 10:00:00", 120, "Video from 2019-06-14 (time of day "
                                                                              "unknown), 0:01")]
        assert ingest(c, [z]).records_added == 1
        assert rows(c.settings.db_path, sql) == [("2019-06-14 07:41:00", 120, "Video sent 2019-06-14 09:41 by Ann Lee, "
                                                                              "0:01")]
        assert ingest(c, [z]).records_added == 0 and _retimes(c) == 1
    finally:
        c.close()


def test_an_import_run_twice_lists_each_failing_file_once(container, tmp_path):
    """Importing the same folder twice within a session: the Inbox's history lists each file that could not be read
    once (its latest failure), not once per run (stop 27: '24 could not be read' for the corpus's 12)."""
    from app.operations.imports import import_history

    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.bin").write_bytes(b"\x00\x01")
    (folder / "b.plist").write_bytes(b"\x00\x02")
    (folder / "chat.txt").write_text("01/02/2023, 10:00 - Ana Lima: Hello there\n", encoding="utf-8")
    assert len(ingest(container, [folder]).errors) == 2
    assert len(ingest(container, [folder]).errors) == 2
    (session,) = import_history(container)
    assert session.errors == 2 and sorted(q.path.rsplit("/", 1)[-1] for q in session.quarantined) == \
        ["a.bin", "b.plist"]

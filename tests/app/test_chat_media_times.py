"""A photo a WhatsApp chat sent is timed and attributed by the chat line that sent it (stop 25).  WhatsApp strips
EXIF and names the file by its day alone (``IMG-20230512-WA0003.jpg``): it was placed at noon, "time of day
unknown", by no one.  The export's chat says "12/05/2023, 09:01 - Teddy Q: IMG-20230512-WA0003.jpg (file
attached)": 09:01 that day (the export's local time, read as the chat's lines are), sent by Teddy Q.  Inputs made
here; the right values are the chat's lines."""
from __future__ import annotations

import zipfile
from pathlib import Path

from PIL import Image

from app.operations.ingest import ingest
from helpers.files import rows

CHAT = ("12/05/2023, 09:00 - Teddy Q: look at the kiln\n"
        "12/05/2023, 09:01 - Teddy Q: IMG-20230512-WA0003.jpg (file attached)\n"
        "12/05/2023, 21:15 - Owner Person: IMG-20230512-WA0004.jpg (file attached)\n"
        "12/05/2023, 21:16 - Owner Person: the glaze came out well\n")


def _export(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (8, 8), (200, 10, 10)).save(folder / "IMG-20230512-WA0003.jpg")
    Image.new("RGB", (8, 8), (10, 10, 200)).save(folder / "IMG-20230512-WA0004.jpg")
    Image.new("RGB", (8, 8), (10, 200, 10)).save(folder / "IMG-20230513-WA0001.jpg")  # no line sent it
    (folder / "WhatsApp Chat with Teddy Q.txt").write_text(CHAT, encoding="utf-8")
    return folder


def _photos(c) -> list[tuple]:
    return rows(c.settings.db_path, "SELECT r.external_id, substr(r.sent_at, 1, 16), r.text, json_extract(r.attrs, "
                "'$.time_basis'), e.canonical_name FROM record r LEFT JOIN entity e ON e.id = r.sender_entity_id "
                "WHERE r.kind = 'photo' ORDER BY r.external_id")


WANT = [("IMG-20230512-WA0003.jpg", "2023-05-12 09:01", "Photo sent 2023-05-12 09:01 by Teddy Q", "chat-line", "Teddy Q"),
        ("IMG-20230512-WA0004.jpg", "2023-05-12 21:15", "Photo sent 2023-05-12 21:15 by Owner Person", "chat-line",
         "Owner Person"),
        ("IMG-20230513-WA0001.jpg", "2023-05-13 12:00", "Photo from 2023-05-13 (time of day unknown)",
         "file-name-date", None)]


def test_photos_of_a_whatsapp_folder_take_the_time_and_sender_of_their_chat_line(container, tmp_path):
    c = container
    folder = _export(tmp_path / "WhatsApp Chat with Teddy Q")
    rep = ingest(c, [folder])
    assert rep.records_added == 7 and not rep.errors
    assert _photos(c) == WANT
    # the photo imported alone again is the same record (its hash as read is kept)
    again = ingest(c, [folder / "IMG-20230512-WA0003.jpg"])
    assert (again.records_added, again.records_skipped) == (0, 1)


def test_the_same_in_a_zip_export(container, tmp_path):
    c = container
    folder = _export(tmp_path / "x")
    z = tmp_path / "WhatsApp Chat with Teddy Q.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for name in sorted(p.name for p in folder.iterdir()):  # the photos first in the zip, as phones write them
            zf.write(folder / name, name)
    rep = ingest(c, [z])
    assert rep.records_added == 7 and not rep.errors
    assert _photos(c) == WANT


def test_german_markers_and_a_media_folder_beside_the_chat(container, tmp_path):
    folder = tmp_path / "export"
    (folder / "Media").mkdir(parents=True)
    Image.new("RGB", (8, 8), (200, 10, 10)).save(folder / "Media" / "IMG-20230512-WA0003.jpg")
    (folder / "WhatsApp Chat mit Teddy Q.txt").write_text(
        "12.05.23, 09:00 - Teddy Q: schau mal\n12.05.23, 09:01 - Teddy Q: IMG-20230512-WA0003.jpg (Datei angehängt)\n",
        encoding="utf-8")
    assert ingest(container, [folder]).records_added == 3
    [(name, when, text, basis, sender)] = _photos(container)
    assert (when, text, basis, sender) == ("2023-05-12 09:01", "Photo sent 2023-05-12 09:01 by Teddy Q", "chat-line",
                                           "Teddy Q")


def test_a_whatsapp_video_named_by_its_day_is_timed_by_its_line_too(container, tmp_path):
    import shutil
    import subprocess

    import pytest

    if shutil.which("ffmpeg") is None:
        pytest.skip("ffmpeg is not installed: no real clip can be made")
    folder = tmp_path / "export"
    folder.mkdir()
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=1:size=64x64:rate=10",
                    "-fflags", "+bitexact", "-map_metadata", "-1", str(folder / "VID-20230504-WA0001.mp4")],
                   check=True, timeout=60)  # no creation time: the day of its name alone
    (folder / "WhatsApp Chat with Teddy Q.txt").write_text(
        "04/05/2023, 09:01 - Teddy Q: VID-20230504-WA0001.mp4 (file attached)\n", encoding="utf-8")
    container.transcribe = lambda p: ""
    assert ingest(container, [folder]).records_added == 2
    assert rows(container.settings.db_path, "SELECT substr(sent_at, 1, 16), text FROM record WHERE kind = 'video'") == [
        ("2023-05-04 09:01", "Video sent 2023-05-04 09:01 by Teddy Q, 0:01")]

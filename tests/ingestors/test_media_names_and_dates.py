"""Photos and voice memos whose time is only in their file name, or written in an EXIF shape other than the
standard's: WhatsApp's date-only names (the day is known, the time of day is not), Telegram Desktop's day-first
names, Samsung's two-digit years, and capture times written year last ("31/12/2019 14:05:00").  Each input is
made by the test; the right values are worked out by hand in the comments."""
from __future__ import annotations

import wave
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from PIL import Image

from ingestors.file_names import date_from_name, time_from_name
from ingestors.photos import PhotoIngestor, parse_exif_time
from ingestors.voice import VoiceIngestor
from tests.ingestors.exif_bytes import ASCII, RATIONAL, exif_block, jpeg

UTC = timezone.utc


def text(value: str):
    return (ASCII, value)


def read(path, **kwargs):
    (r,) = PhotoIngestor(**kwargs).read(path)
    return r


def plain(path: Path, colour=(10, 120, 200), fmt=None) -> Path:
    """A picture with no EXIF at all (what WhatsApp sends on, and a screenshot)."""
    Image.new("RGB", (8, 8), colour).save(path, format=fmt)
    return path


def silent_wav(path: Path, seconds: float = 0.5) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"\x00\x00" * int(16000 * seconds))
    return path


# ----------------------------------------------------------------------------- names

@pytest.mark.parametrize("name, when, day", [
    ("IMG-20230504-WA0001.jpg", None, date(2023, 5, 4)),          # WhatsApp (Android): the day only
    ("PTT-20210203-WA0001.opus", None, date(2021, 2, 3)),         # a WhatsApp voice note
    ("AUD-20190817-WA0003.m4a", None, date(2019, 8, 17)),         # a WhatsApp audio file
    ("VID-20230504-WA0007.mp4", None, date(2023, 5, 4)),
    ("Memo 2023-05-04.m4a", None, date(2023, 5, 4)),
    ("00000012-AUDIO-2021-02-03-09-15-00.opus", datetime(2021, 2, 3, 9, 15), None),  # WhatsApp on iPhone
    ("photo_3@04-05-2023_10-12-33.jpg", datetime(2023, 5, 4, 10, 12, 33), None),     # Telegram Desktop: day first
    ("audio_1@31-12-2022_23-59-01.ogg", datetime(2022, 12, 31, 23, 59, 1), None),
    ("Call recording Ann Lee_230504_101233.m4a", datetime(2023, 5, 4, 10, 12, 33), None),  # Samsung: 20yy
    ("REC20230504101233.wav", datetime(2023, 5, 4, 10, 12, 33), None),               # a recorder's 14 digits
    ("20230504101299.wav", None, None),                           # no 99th second
    ("IMG-20231304-WA0001.jpg", None, None),                      # no 13th month
    ("IMG_1234.JPG", None, None), ("New Recording 12.m4a", None, None), ("12345678.jpg", None, None),
])
def test_times_and_days_in_file_names(name, when, day):
    assert time_from_name(name) == ((when, False) if when else None)
    assert date_from_name(name) == day


@pytest.mark.parametrize("name", [
    "Bildschirmfoto 2023-05-04 um 15.04.05.png", "Capture d’écran 2023-05-04 à 15.04.05.png",
    "Captura de pantalla 2023-05-04 a las 15.04.05.png", "Istantanea 2023-05-04 alle 15.04.05.png",
    "Schermafbeelding 2023-05-04 om 15.04.05.png", "Captura de Tela 2023-05-04 às 15.04.05.png",
    "Skjermbilde 2023-05-04 kl. 15.04.05.png", "Снимок экрана 2023-05-04 в 15.04.05.png",
    "Screenshot 2023-05-04 at 3.04.05\u202fPM.png",  # macOS 13 and later: a narrow no-break space before PM
    "WIN_20230504_15_04_05_Pro.jpg",  # the Windows Camera app
])
def test_screenshot_names_in_other_languages_give_the_time_not_only_the_day(name):
    assert time_from_name(name) == (datetime(2023, 5, 4, 15, 4, 5), False)


def test_a_picture_saved_from_facebook_is_timed_by_the_unix_milliseconds_in_its_name():
    # 1683195153123 ms = 2023-05-04 10:12:33.123 UTC
    assert time_from_name("FB_IMG_1683195153123.jpg") == (datetime(2023, 5, 4, 10, 12, 33), True)
    assert time_from_name("FB_IMG_9999999999999.jpg") is None  # the year 2286


def test_a_whatsapp_photo_with_no_exif_is_placed_on_the_day_its_name_gives(tmp_path):
    r = read(plain(tmp_path / "IMG-20230504-WA0001.jpg"), local_timezone="America/Sao_Paulo")
    # the day is 4 May 2023 in São Paulo (-03:00); no time of day is known: noon there, 15:00 UTC, said so
    assert r.sent_at == datetime(2023, 5, 4, 15, 0, tzinfo=UTC) and r.sent_at.utcoffset() == timedelta(hours=-3)
    assert r.attrs["time_basis"] == "file-name-date" and r.attrs["date_only"] is True
    assert r.attrs["local_date"] == "2023-05-04" and "local_time" not in r.attrs
    assert r.text == "Photo from 2023-05-04 (time of day unknown)"  # not "Photo taken 2023-05-04 12:00"
    assert ("day taken from the file name (2023-05-04): the time of day is unknown (placed at noon "
            "America/Sao_Paulo); no capture time in the picture's metadata") in r.notes
    # a camera time in the EXIF wins over the name's day
    tagged = read(jpeg(tmp_path / "IMG-20230504-WA0002.jpg",
                       exif_block({0x010F: text("Test")}, {0x9003: text("2023:05:01 09:30:00")})))
    assert tagged.sent_at == datetime(2023, 5, 1, 9, 30, tzinfo=UTC) and "date_only" not in tagged.attrs
    # a day in the future is no day it was taken
    assert read(plain(tmp_path / "IMG-20990504-WA0001.jpg", (1, 2, 3))).sent_at is None


def test_a_telegram_desktop_photo_is_timed_by_its_day_first_name(tmp_path):
    r = read(plain(tmp_path / "photo_3@04-05-2023_10-12-33.jpg"), local_timezone="Europe/Berlin")
    assert r.sent_at == datetime(2023, 5, 4, 8, 12, 33, tzinfo=UTC)  # CEST, +02:00
    assert r.attrs["time_basis"] == "file-name" and r.text == "Photo taken 2023-05-04 10:12"


def test_a_whatsapp_voice_note_with_no_time_tag_is_placed_on_its_names_day(tmp_path):
    ing = VoiceIngestor(lambda p: "see you at the harbour", local_timezone="Asia/Tokyo")
    [rec] = ing.read(silent_wav(tmp_path / "PTT-20210203-WA0001.wav"))
    assert rec.sent_at == datetime(2021, 2, 3, 3, 0, tzinfo=UTC)  # noon in Tokyo (+09:00)
    assert rec.sent_at.utcoffset() == timedelta(hours=9)
    assert rec.attrs["time_basis"] == "file-name-date" and rec.attrs["local_date"] == "2021-02-03"
    assert rec.attrs["date_only"] is True and "local_time" not in rec.attrs
    assert rec.notes == ["day taken from the file name (2021-02-03): the time of day is unknown (placed at noon "
                         "Asia/Tokyo): no creation_time tag"]
    [rec] = ing.read(silent_wav(tmp_path / "AUD-20990101-WA0001.wav"))  # a day after the import: not used
    assert rec.sent_at is None and rec.notes == ["recording time unknown (no creation_time tag)"]


# ----------------------------------------------------------------------------- EXIF times written year last

@pytest.mark.parametrize("written, local", [
    ("31/12/2019 14:05:00", datetime(2019, 12, 31, 14, 5)),     # day first: 31 can only be the day
    ("12/31/2019 2:05:00 PM", datetime(2019, 12, 31, 14, 5)),   # month first, a 12-hour clock
    ("31.12.2019 14:05", datetime(2019, 12, 31, 14, 5)),        # dots, no seconds
    ("05/05/2023 00:30:00", datetime(2023, 5, 5, 0, 30)),       # the same either way round
    ("04/05/2019 14:05:00", None),                              # 4 May or 5 April: nothing in the string tells
    ("31/12/2019 25:05:00", None), ("12/31/2019 13:05:00 PM", None),
    # the standard's order with a 12-hour clock's mark: it was read as 02:05, twelve hours early
    ("2019:12:31 02:05:00 PM", datetime(2019, 12, 31, 14, 5)),
    ("2019-12-31 12:05:00 AM", datetime(2019, 12, 31, 0, 5)),
    ("2019:12:31 14:05:00 PM", None),
])
def test_capture_times_written_year_last(written, local):
    assert parse_exif_time(written) == local


def _dms(x: float):
    x = abs(x)
    d = int(x)
    m = int((x - d) * 60)
    return (RATIONAL, [(d, 1), (m, 1), (round(((x - d) * 60 - m) * 60 * 100), 100)])


def test_a_year_last_capture_time_is_used_and_an_ambiguous_one_is_settled_by_the_files_other_dates(tmp_path):
    camera = {0x010F: text("Apple"), 0x0110: text("iPhone 8")}
    sure = read(jpeg(tmp_path / "a.jpg", exif_block(camera, {0x9003: text("31/12/2019 14:05:00"),
                                                             0x9011: text("+01:00")})))
    assert sure.sent_at == datetime(2019, 12, 31, 13, 5, tzinfo=UTC) and sure.attrs["time_tag"] == "DateTimeOriginal"
    assert sure.text == "Photo taken 2019-12-31 14:05 with Apple iPhone 8"
    # London, GPS date 2019-05-04 and time 13:05 UTC: "04/05/2019 14:05:00" is 4 May (BST, +01:00), not 5 April
    london = {1: text("N"), 2: _dms(51.5074), 3: text("W"), 4: _dms(0.1278),
              7: (RATIONAL, [(13, 1), (5, 1), (0, 1)]), 29: text("2019:05:04")}
    by_gps = read(jpeg(tmp_path / "b.jpg", exif_block(camera, {0x9003: text("04/05/2019 14:05:00")}, london)))
    assert by_gps.sent_at == datetime(2019, 5, 4, 13, 5, tzinfo=UTC) and by_gps.attrs["time_basis"] == "gps-time"
    assert any(n.startswith("DateTimeOriginal written with the day and month in an order it does not show") and
               "read as 2019-05-04" in n for n in by_gps.notes)
    # IFD0's DateTime (standard form) says 5 April: the same string is 5 April
    by_tag = read(jpeg(tmp_path / "c.jpg", exif_block({**camera, 0x0132: text("2019:04:05 18:00:00")},
                                                      {0x9003: text("04/05/2019 14:05:00")})))
    assert by_tag.attrs["local_time"] == "2019-04-05T14:05:00" and by_tag.attrs["time_tag"] == "DateTimeOriginal"
    # nothing else to go by: unknown, and the note says why
    alone = read(jpeg(tmp_path / "d.jpg", exif_block(camera, {0x9003: text("04/05/2019 14:05:00")})))
    assert alone.sent_at is None
    assert ("DateTimeOriginal unreadable ('04/05/2019 14:05:00'): its day and month could be either way, and no "
            "other date in the file tells which") in alone.notes


def test_a_png_screenshot_without_exif_says_no_exif_not_an_exifread_warning(tmp_path):
    r = read(plain(tmp_path / "Screenshot_20230504-101233.png", fmt="PNG"))
    assert r.notes[0] == "no EXIF metadata" and not any(n.startswith("EXIF:") for n in r.notes)
    assert r.sent_at == datetime(2023, 5, 4, 10, 12, 33, tzinfo=UTC)
    bare = read(plain(tmp_path / "plain.png", (9, 9, 9), fmt="PNG"))
    assert bare.notes == ["no EXIF metadata"] and bare.sent_at is None and bare.text == "Photo"


# ----------------------------------------------------------------------------- sounds Whisper describes, not words

class _Whisper:
    """What ``whisper.load_model`` returns, as far as the Transcriber uses it: it answers ``segments``."""

    is_multilingual = False

    def __init__(self, segments):
        self.segments = segments

    def transcribe(self, samples, **kwargs):
        n = len(samples) / 16000
        return {"segments": [dict(s, start=0.0, end=n) for s in self.segments], "language": "en"}


def _loud_burst():
    """6 s: 2 s of silence, 2 s of a loud chord (music to the energy check), 2 s of silence."""
    import numpy as np

    t = np.arange(2 * 16000) / 16000
    audio = np.zeros(6 * 16000, np.float32)
    audio[2 * 16000:4 * 16000] = sum(0.2 * np.sin(2 * np.pi * f * t) for f in (261.6, 329.6, 392.0))
    return audio


@pytest.mark.parametrize("said, text, sounds", [
    # Whisper sure of itself (no_speech_prob low, log-prob high), yet writing a sound, not words
    (" ♪ ♪", "", ["music"]),
    (" [Music]", "", ["music"]),
    (" (speaking in foreign language)", "", ["speaking in foreign language"]),
    (" [BLANK_AUDIO]", "", []),
    (" [Music] Meet Anna at the harbour.", "Meet Anna at the harbour.", ["music"]),
    (" ♪ Happy birthday to you ♪", "Happy birthday to you", ["music"]),
])
def test_sounds_whisper_describes_are_not_stored_as_speech(tmp_path, said, text, sounds):
    from app.models.transcribe import Transcriber

    t = Transcriber(Path("unused.pt"))
    t._model = _Whisper([{"text": said, "no_speech_prob": 0.1, "avg_logprob": -0.3, "temperature": 0.0}])
    (rec,) = VoiceIngestor(lambda _p: t.transcribe(_loud_burst())).read(silent_wav(tmp_path / "memo.wav"))
    assert rec.text == text and rec.attrs.get("sounds", []) == sounds
    if sounds:
        assert f"sounds, not words: {', '.join(sounds)} (left out of the text)" in rec.notes
    assert ("no speech found" in rec.notes) == (not text)


# ----------------------------------------------------------------------------- voice memos' own date tags

def _encode(tmp_path: Path, name: str, *metadata: str) -> Path:
    import subprocess

    out = tmp_path / name
    args = [a for m in metadata for a in ("-metadata", m)]
    subprocess.run(["ffmpeg", "-v", "quiet", "-y", "-i", str(silent_wav(tmp_path / "raw.wav")), *args, str(out)],
                   check=True)
    return out


@pytest.mark.skipif(__import__("shutil").which("ffmpeg") is None, reason="ffmpeg is not installed")
def test_ogg_and_opus_comments_and_date_tags_as_recorders_write_them(tmp_path):
    ing = VoiceIngestor(lambda p: "buy bread", local_timezone="Europe/Paris")
    # Opus keeps its comments on the audio stream, not the container: the title and the time were not read
    [opus] = ing.read(_encode(tmp_path, "memo.opus", "title=Shopping list", "date=2021-02-03T09:15:00Z"))
    assert opus.subject == "Shopping list" and opus.sent_at == datetime(2021, 2, 3, 9, 15, tzinfo=UTC)
    # a DATE comment with a day alone: that day, at noon in Paris (+01:00), the time of day said to be unknown
    [ogg] = ing.read(_encode(tmp_path, "memo.ogg", "date=2021-02-03"))
    assert ogg.sent_at == datetime(2021, 2, 3, 11, 0, tzinfo=UTC) and ogg.attrs["date_only"] is True
    assert ogg.attrs["time_basis"] == "date-tag-day" and ogg.attrs["local_date"] == "2021-02-03"
    assert ogg.notes == ["day taken from the date tag (2021-02-03): the time of day is unknown (placed at noon "
                         "Europe/Paris): no creation_time tag"]
    # an ID3 date written EXIF-style, with no zone: the recorder's wall clock, read in the local zone (09:15 CET)
    [colon] = ing.read(_encode(tmp_path, "memo.mp3", "date=2021:02:03 09:15:00"))
    assert colon.sent_at == datetime(2021, 2, 3, 8, 15, tzinfo=UTC) and colon.attrs["local_time"] == "2021-02-03T09:15:00"
    assert "time taken from the date tag (2021:02:03 09:15:00), read as Europe/Paris: no creation_time tag" in colon.notes
    # a date written with its own offset keeps it (the instant is 08:15 UTC, the recorder's day and hour are +01:00's)
    [offset] = ing.read(_encode(tmp_path, "memo2.mp3", "date=2021-02-03T09:15:00+0100"))
    assert offset.sent_at == datetime(2021, 2, 3, 8, 15, tzinfo=UTC)
    assert offset.sent_at.utcoffset() == timedelta(hours=1) and offset.attrs["time_zone"] == "UTC+01:00"


@pytest.mark.skipif(__import__("shutil").which("ffmpeg") is None, reason="ffmpeg is not installed")
@pytest.mark.parametrize("suffix", [".flac", ".m4a"])
def test_a_flac_or_m4a_cut_short_is_transcribed_as_far_as_it_goes_and_says_so(tmp_path, suffix):
    import subprocess

    import numpy as np

    from app.models.transcribe import SAMPLE_RATE, Transcriber, Transcript

    raw = tmp_path / "raw.wav"  # 8 s of noise (a FLAC of silence is too small to cut)
    with wave.open(str(raw), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes((np.random.default_rng(1).normal(0, 3000, 8 * 16000)).astype("<i2").tobytes())
    whole = tmp_path / f"whole{suffix}"
    subprocess.run(["ffmpeg", "-v", "quiet", "-y", "-i", str(raw), "-movflags", "+faststart", str(whole)], check=True)
    cut = tmp_path / f"cut{suffix}"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])  # a download that stopped half way

    def transcribe(path):
        return Transcript(text="hello", duration=round(len(Transcriber.load_audio(path)) / SAMPLE_RATE, 2))
    [full] = VoiceIngestor(transcribe).read(whole)
    assert not any(n.startswith("file cut short") for n in full.notes)
    [rec] = VoiceIngestor(transcribe).read(cut)
    decoded = rec.attrs["duration_s"]
    assert rec.text == "hello" and 2 < decoded < 6  # about half of the 8 s is there
    assert (f"file cut short: its header says 8.0 s of sound, {decoded:.1f} s is there (transcribed as far as it "
            "goes)") in rec.notes


@pytest.mark.skipif(__import__("shutil").which("ffmpeg") is None, reason="ffmpeg is not installed")
def test_a_flac_cut_inside_its_first_frame_is_an_error_that_says_it_was_cut_short(tmp_path):
    import subprocess

    from app.models.transcribe import Transcriber

    src = silent_wav(tmp_path / "raw.wav", seconds=3.0)
    whole = tmp_path / "whole.flac"
    subprocess.run(["ffmpeg", "-v", "quiet", "-y", "-i", str(src), "-af", "volume=0.5", str(whole)], check=True)
    cut = tmp_path / "memo.flac"
    cut.write_bytes(whole.read_bytes()[:100])  # the header (STREAMINFO: 3 s) and no sound
    from core.errors import InputError

    with pytest.raises(InputError) as err:
        list(VoiceIngestor(lambda p: Transcriber.load_audio(p)).read(cut))
    assert err.value.path == str(cut)
    assert err.value.reason.startswith("not readable audio") and err.value.reason.endswith(
        "its header says 3.0 s of sound and none of it decodes (the file was cut short)")


def test_a_name_with_no_exif_time_is_read_in_the_zone_of_the_gps_position(tmp_path):
    tokyo = {1: text("N"), 2: _dms(35.6762), 3: text("E"), 4: _dms(139.6503)}
    # a phone names the file by its own clock, where it was: 10:12:33 in Tokyo (+09:00) is 01:12:33 UTC, not Berlin's
    named = read(jpeg(tmp_path / "IMG_20230504_101233.jpg", exif_block({0x010F: text("Test")}, None, tokyo)),
                 local_timezone="Europe/Berlin")
    assert named.sent_at == datetime(2023, 5, 4, 1, 12, 33, tzinfo=UTC) and named.attrs["time_zone"] == "Asia/Tokyo"
    assert named.sent_at.utcoffset() == timedelta(hours=9) and named.attrs["time_basis"] == "file-name"
    day = read(jpeg(tmp_path / "IMG-20230504-WA0001.jpg", exif_block({0x010F: text("Test2")}, None, tokyo)),
               local_timezone="Europe/Berlin")
    assert day.sent_at == datetime(2023, 5, 4, 3, 0, tzinfo=UTC) and day.attrs["local_date"] == "2023-05-04"
    assert day.text == "Photo from 2023-05-04 (time of day unknown) at Tokyo, Tokyo, Japan with Test2"


@pytest.mark.parametrize("segments, text", [
    # what tiny.en wrote on 1 s of filtered noise (a breath) between silences: measured
    ([(" Oh", 0.499, -0.903, 0.6)], ""),
    ([(" Ugh.", 0.238, -0.84, 0.0)], ""),
    ([(" Oh", 0.3, -0.5, 0.0), (" Thank you.", 0.25, -0.6, 0.0)], ""),
    # said, and Whisper sure of it: kept
    ([(" Thank you.", 0.05, -0.5, 0.0)], "Thank you."),
    # stock words beside real ones: all kept
    ([(" Oh", 0.499, -0.903, 0.6), (" The ferry leaves at nine.", 0.3, -0.8, 0.0)], "Oh The ferry leaves at nine."),
])
def test_a_memo_of_nothing_but_stock_words_whisper_was_unsure_of_holds_no_speech(tmp_path, segments, text):
    from app.models.transcribe import Transcriber

    t = Transcriber(Path("unused.pt"))
    t._model = _Whisper([{"text": w, "no_speech_prob": p, "avg_logprob": lp, "temperature": temp}
                         for w, p, lp, temp in segments])
    (rec,) = VoiceIngestor(lambda _p: t.transcribe(_loud_burst())).read(silent_wav(tmp_path / "memo.wav"))
    assert rec.text == text and (("no speech found" in rec.notes) == (not text))


def test_offsets_written_after_a_12_hour_time_or_as_utc_and_a_capture_day_alone(tmp_path):
    camera = {0x010F: text("Test")}
    pm = read(jpeg(tmp_path / "a.jpg", exif_block(camera, {0x9003: text("2019:12:31 02:05:00 PM +01:00")})))
    assert pm.sent_at == datetime(2019, 12, 31, 13, 5, tzinfo=UTC) and pm.attrs["time_basis"] == "offset"
    utc = read(jpeg(tmp_path / "b.jpg", exif_block(camera, {0x9003: text("2019:12:31 14:05:00 UTC")})),
               local_timezone="Asia/Tokyo")
    assert utc.sent_at == datetime(2019, 12, 31, 14, 5, tzinfo=UTC) and utc.attrs["time_basis"] == "offset"
    # a DateTimeOriginal with a day and no time (a scanner's, an editor's): that day, said to have no time of day
    day = read(jpeg(tmp_path / "c.jpg", exif_block(camera, {0x9003: text("2019:12:31")})),
               local_timezone="America/New_York")
    assert day.sent_at == datetime(2019, 12, 31, 17, 0, tzinfo=UTC)  # noon EST (-05:00)
    assert day.attrs["time_basis"] == "exif-date" and day.attrs["local_date"] == "2019-12-31"
    assert day.text == "Photo from 2019-12-31 (time of day unknown) with Test"
    assert not any("unreadable" in n for n in day.notes)
    assert ("day taken from DateTimeOriginal (2019-12-31): the time of day is unknown (placed at noon "
            "America/New_York); no capture time in the picture's metadata") in day.notes
    # a full time in the file name is more than a day alone in a tag
    named = read(jpeg(tmp_path / "IMG_20191230_101500.jpg", exif_block(camera, {0x9003: text("2019:12:31")})))
    assert named.sent_at == datetime(2019, 12, 30, 10, 15, tzinfo=UTC) and named.attrs["time_basis"] == "file-name"


@pytest.mark.skipif(__import__("shutil").which("ffmpeg") is None, reason="ffmpeg is not installed")
def test_a_broadcast_wav_from_a_field_recorder_is_timed_by_its_origination_date_and_time(tmp_path):
    import subprocess

    out = tmp_path / "ZOOM0001.WAV"  # Zoom, Tascam and Sony recorders write the bext chunk: local date and time
    subprocess.run(["ffmpeg", "-v", "quiet", "-y", "-i", str(silent_wav(tmp_path / "raw.wav")), "-write_bext", "1",
                    "-metadata", "origination_date=2021-07-03", "-metadata", "origination_time=09:15:00", str(out)],
                   check=True)
    [rec] = VoiceIngestor(lambda p: "interview", local_timezone="Europe/London").read(out)
    # 09:15 in London in July (BST, +01:00) is 08:15 UTC; it was "2021-07-03, time of day unknown"
    assert rec.sent_at == datetime(2021, 7, 3, 8, 15, tzinfo=UTC) and rec.attrs["local_time"] == "2021-07-03T09:15:00"
    assert "date_only" not in rec.attrs


# ----------------------------------------------------------------------------- quiet speech is still speech

def test_a_quiet_voice_in_a_silent_file_is_a_spoken_stretch():
    import numpy as np

    from app.models.transcribe import speech_regions

    sr = 16000
    voice = (0.002 * np.sin(2 * np.pi * 180 * np.arange(sr) / sr)).astype(np.float32)  # about -57 dBFS RMS
    audio = np.concatenate([np.zeros(2 * sr, np.float32), voice, np.zeros(2 * sr, np.float32)])
    seconds = [x / sr for region in speech_regions(audio) for x in region]
    assert seconds == pytest.approx([1.75, 3.25], abs=0.03)  # the second, padded by 0.25 s (30 ms frames)
    hiss = np.random.default_rng(0).normal(0, 0.002, 5 * sr).astype(np.float32)  # steady hiss at that level
    assert speech_regions(hiss) == []


@pytest.mark.slow
def test_real_whisper_transcribes_a_memo_recorded_far_from_the_phone(tmp_path_factory, corpus):
    from app.models import convert_whisper
    from app.models.transcribe import Transcriber

    checkpoint = convert_whisper.ensure_default_checkpoint(tmp_path_factory.mktemp("whisper-models"))
    t = Transcriber(checkpoint)
    quiet = t.load_audio(corpus / "audio" / "jfk.flac") * 10 ** (-45 / 20)  # 45 dB down: peaks at -47 dBFS
    result = t.transcribe(quiet)
    assert not result.no_speech and "fellow americans" in result.text.lower().replace(",", "")


def test_a_photo_timed_only_by_its_gps_clock_is_on_the_positions_local_day(tmp_path):
    auckland = {1: text("S"), 2: _dms(36.8485), 3: text("E"), 4: _dms(174.7633),
                7: (RATIONAL, [(19, 1), (0, 1), (0, 1)]), 29: text("2020:01:14")}
    r = read(jpeg(tmp_path / "a.jpg", exif_block({0x010F: text("Test")}, None, auckland)))
    # 19:00 UTC on 14 January is 08:00 on 15 January in Auckland (NZDT, +13:00): the photo's day there
    assert r.sent_at == datetime(2020, 1, 14, 19, 0, tzinfo=UTC) and r.sent_at.utcoffset() == timedelta(hours=13)
    assert r.attrs["time_basis"] == "gps-datetime" and r.attrs["local_time"] == "2020-01-15T08:00:00"
    assert r.text == "Photo taken 2020-01-15 08:00 at Auckland, Auckland, New Zealand with Test"


def test_a_scan_whose_xmp_date_created_is_a_day_alone_is_placed_on_that_day(tmp_path):
    xmp = ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
           '<rdf:Description rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/">'
           '<photoshop:DateCreated>1994-08-21</photoshop:DateCreated></rdf:Description></rdf:RDF></x:xmpmeta>')
    Image.new("RGB", (8, 8), (5, 6, 7)).save(tmp_path / "scan_0042.jpg", xmp=xmp.encode())
    r = read(tmp_path / "scan_0042.jpg", local_timezone="Europe/Madrid")
    assert r.sent_at == datetime(1994, 8, 21, 10, 0, tzinfo=UTC)  # noon in Madrid (CEST, +02:00)
    assert r.attrs["time_basis"] == "xmp-date" and r.attrs["local_date"] == "1994-08-21"
    assert r.text == "Photo from 1994-08-21 (time of day unknown)"


def test_an_ambiguous_year_last_capture_time_is_settled_by_the_date_in_the_file_name(tmp_path):
    r = read(jpeg(tmp_path / "IMG_20190405_140500.jpg",
                  exif_block({0x010F: text("Test")}, {0x9003: text("04/05/2019 14:05:00")})))
    assert r.attrs["local_time"] == "2019-04-05T14:05:00" and r.attrs["time_tag"] == "DateTimeOriginal"

"""Videos (MP4, QuickTime, 3GPP): one record each, with when and where they were filmed, how long they are and
what was said.  The files are written here box by box (no picture or sound is needed to read the header)."""
from __future__ import annotations

import shutil
import struct
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from core.errors import InputError, ModelError
from ingestors.registry import ingestor_for
from ingestors.video import VideoIngestor, parse_iso6709, read_header

# mvhd times count seconds from 1904-01-01 00:00 UTC.  1904 → 1970 is 66 years with 17 leap days (1904, 1908, …,
# 1968): (66 × 365 + 17) × 86400 = 2,082,844,800 s.  2023-01-01 00:00 UTC is Unix 1,672,531,200; 4 May is 123 days
# later (31 + 28 + 31 + 30 + 3), 1,683,158,400; at 09:00 UTC, +32,400 = 1,683,190,800.
MAY_4_0900_UTC = 1_683_190_800 + 2_082_844_800  # 3,766,035,600: 2023-05-04 09:00:00 UTC
MAY_4_1800_UTC = MAY_4_0900_UTC + 9 * 3600  # 2023-05-04 18:00:00 UTC


def box(kind: bytes, *payload: bytes) -> bytes:
    body = b"".join(payload)
    return struct.pack(">I", 8 + len(body)) + kind + body


def mvhd(created: int, timescale: int, duration: int) -> bytes:
    matrix = struct.pack(">9i", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
    return box(b"mvhd", b"\0\0\0\0", struct.pack(">IIII", created, created, timescale, duration),
               struct.pack(">IH", 0x10000, 0x100), bytes(10), matrix, bytes(24), struct.pack(">I", 3))


def trak(handler: bytes, width: int = 0, height: int = 0, upright: bool = False) -> bytes:
    # an upright phone video: the picture is stored 1920 × 1080 and turned 90° by the player
    a, b, c, d = (0, 0x10000, -0x10000, 0) if upright else (0x10000, 0, 0, 0x10000)
    matrix = struct.pack(">9i", a, b, 0, c, d, 0, 0, 0, 0x40000000)
    tkhd = box(b"tkhd", b"\0\0\0\x03", struct.pack(">IIIII", 0, 0, 1, 0, 0), bytes(8), bytes(8), matrix,
               struct.pack(">II", width << 16, height << 16))
    hdlr = box(b"hdlr", bytes(4), b"mhlr", handler, bytes(12))
    return box(b"trak", tkhd, box(b"mdia", hdlr))


def apple_meta(**tags: str) -> bytes:
    """QuickTime's moov/meta: hdlr 'mdta', keys (the names), ilst (items typed by their 1-based key index)."""
    names = [f"com.apple.quicktime.{k.replace('_', '.')}" for k in tags]
    names = [n.replace("location.iso6709", "location.ISO6709") for n in names]
    keys = box(b"keys", bytes(4), struct.pack(">I", len(names)),
               *[struct.pack(">I", 8 + len(n)) + b"mdta" + n.encode() for n in names])
    items = [box(struct.pack(">I", i + 1), box(b"data", struct.pack(">I", 1), bytes(4), v.encode()))
             for i, v in enumerate(tags.values())]
    return box(b"meta", box(b"hdlr", bytes(8), b"mdta", bytes(12)), keys, box(b"ilst", *items))


def user_text(kind: bytes, text: str) -> bytes:
    """A QuickTime udta text: 2 bytes of length, 2 of language (0x15C7: 'eng' packed), the text."""
    raw = text.encode()
    return box(kind, struct.pack(">HH", len(raw), 0x15C7), raw)


def video(*moov: bytes, brand: bytes = b"isom") -> bytes:
    return box(b"ftyp", brand, bytes(4), brand) + box(b"wide") + box(b"mdat", bytes(64)) + box(b"moov", *moov)


def iphone_mov() -> bytes:
    """An iPhone's .MOV: the header's UTC time, and Apple's own keys: its local time, position and camera."""
    return video(mvhd(MAY_4_0900_UTC, 600, 42 * 600), trak(b"vide", 1920, 1080, upright=True), trak(b"soun"),
                 apple_meta(creationdate="2023-05-04T11:00:00+0200", location_iso6709="+41.8986+012.4769+021.000/",
                            make="Apple", model="iPhone 12 Pro", software="16.4.1"), brand=b"qt  ")


def android_mp4() -> bytes:
    """An Android phone's .mp4: the header's UTC time, the position in udta's ©xyz, no offset anywhere."""
    return video(mvhd(MAY_4_1800_UTC, 1000, 5000), trak(b"vide", 1280, 720), trak(b"soun"),
                 box(b"udta", user_text(b"\xa9xyz", "+37.4220-122.0841/")))


def read_one(path: Path, **kw):
    [record] = list(VideoIngestor(**kw).read(path))
    return record


def test_an_iphone_video_has_its_local_time_place_camera_and_length(tmp_path):
    path = tmp_path / "IMG_0042.MOV"
    path.write_bytes(iphone_mov())
    r = read_one(path)
    assert r.kind == "video"
    # creationdate 11:00 at +02:00 is 09:00 UTC, the header's own time: Rome's summer time, as filmed
    assert r.sent_at == datetime(2023, 5, 4, 11, 0, tzinfo=timezone(timedelta(hours=2)))
    assert r.sent_at.utcoffset() == timedelta(hours=2)
    assert r.attrs["time_basis"] == "creationdate" and r.attrs["time_zone"] == "Europe/Rome"
    assert r.place is not None and r.place.name == "Rome, Latium, Italy"
    assert (r.place.lat, r.place.lon, r.attrs["altitude_m"]) == (41.8986, 12.4769, 21.0)
    assert r.attrs["duration_s"] == 42.0  # 25200 / 600
    assert (r.attrs["width"], r.attrs["height"], r.attrs["rotation"]) == (1920, 1080, 90)
    assert (r.attrs["camera_make"], r.attrs["camera_model"], r.attrs["software"]) == ("Apple", "iPhone 12 Pro", "16.4.1")
    assert r.attrs["tracks"] == ["vide", "soun"]
    assert r.text == "Video taken 2023-05-04 11:00 at Rome, Latium, Italy with Apple iPhone 12 Pro, 0:42"
    assert r.notes == [] and r.subject is None


def test_an_android_video_is_placed_at_the_offset_of_where_it_was_filmed(tmp_path):
    path = tmp_path / "clip.mp4"
    path.write_bytes(android_mp4())
    r = read_one(path)
    # 18:00 UTC in Mountain View on 4 May is 11:00 Pacific Daylight Time (UTC−07:00)
    assert r.sent_at == datetime(2023, 5, 4, 11, 0, tzinfo=timezone(timedelta(hours=-7)))
    assert r.sent_at.utcoffset() == timedelta(hours=-7)
    assert (r.attrs["time_basis"], r.attrs["time_zone"]) == ("creation-time", "America/Los_Angeles")
    assert r.place.name == "Mountain View, California, United States"
    assert r.attrs["duration_s"] == 5.0  # 5000 / 1000
    assert (r.attrs["width"], r.attrs["height"]) == (1280, 720) and "rotation" not in r.attrs
    assert r.text == "Video taken 2023-05-04 11:00 at Mountain View, California, United States, 0:05"


def test_what_is_said_in_the_sound_track_follows_the_description(tmp_path):
    path = tmp_path / "clip.mp4"
    path.write_bytes(android_mp4())
    heard = []

    def transcribe(p):
        heard.append(p)
        return "Hello from the Googleplex."

    r = read_one(path, transcribe=transcribe)
    assert heard == [path]
    assert r.text == ("Video taken 2023-05-04 11:00 at Mountain View, California, United States, 0:05\n\n"
                      "Hello from the Googleplex.")
    assert r.attrs["transcribed"] is True


def test_a_video_is_still_a_record_when_its_sound_cannot_be_transcribed(tmp_path):
    path = tmp_path / "clip.mp4"
    path.write_bytes(android_mp4())

    def no_model(p):
        raise ModelError("the Whisper model 'small' has not been downloaded")

    r = read_one(path, transcribe=no_model)
    assert r.text == "Video taken 2023-05-04 11:00 at Mountain View, California, United States, 0:05"
    assert r.notes == ["sound not transcribed: speech-to-text unavailable (the Whisper model 'small' has not been "
                       "downloaded)"]
    silent = tmp_path / "silent.mp4"  # no sound track: nothing to transcribe, the transcriber is not called
    silent.write_bytes(video(mvhd(MAY_4_1800_UTC, 1000, 5000), trak(b"vide", 64, 64)))
    assert read_one(silent, transcribe=no_model).notes == []


def test_a_time_from_the_file_name_or_a_day_or_none(tmp_path):
    bare = video(mvhd(0, 600, 42 * 600), trak(b"vide", 64, 64))  # creation time 0: never set
    named = tmp_path / "VID_20230504_101233.mp4"
    named.write_bytes(bare)
    r = read_one(named, local_timezone="Europe/Berlin")
    assert r.sent_at == datetime(2023, 5, 4, 10, 12, 33, tzinfo=timezone(timedelta(hours=2)))  # CEST
    assert (r.attrs["time_basis"], r.attrs["time_zone"]) == ("file-name", "Europe/Berlin")
    assert r.text == "Video taken 2023-05-04 10:12, 0:42"
    day = tmp_path / "VID-20230504-WA0007.mp4"  # WhatsApp: the day alone
    day.write_bytes(bare)
    r = read_one(day)
    assert (r.sent_at, r.attrs["time_basis"], r.attrs["date_only"]) == \
        (datetime(2023, 5, 4, 12, tzinfo=timezone.utc), "file-name-date", True)
    assert r.text == "Video from 2023-05-04 (time of day unknown), 0:42"
    nothing = tmp_path / "clip.mp4"
    nothing.write_bytes(bare)
    r = read_one(nothing)
    assert r.sent_at is None and "time_basis" not in r.attrs and "file_modified" in r.attrs
    assert r.text == "Video, 0:42"
    assert any(n.startswith("time filmed unknown") for n in r.notes)


def test_the_offset_from_the_name_and_a_day_tag_in_itunes_metadata(tmp_path):
    # the header's 09:00 UTC against the name's 11:00 local: the phone's clock was on UTC+02:00
    named = tmp_path / "VID_20230504_110000.mp4"
    named.write_bytes(video(mvhd(MAY_4_0900_UTC, 600, 600), trak(b"vide", 64, 64)))
    r = read_one(named)
    assert r.sent_at == datetime(2023, 5, 4, 11, 0, tzinfo=timezone(timedelta(hours=2)))
    assert (r.attrs["time_basis"], r.attrs["time_zone"]) == ("creation-time", "UTC+02:00")
    assert r.text == "Video taken 2023-05-04 11:00, 0:01"
    # no header time; udta/meta (a full box, hdlr 'mdir') / ilst / ©day, written in UTC
    day = box(b"\xa9day", box(b"data", struct.pack(">I", 1), bytes(4), b"2023-05-04T09:00:00Z"))
    itunes = box(b"meta", bytes(4), box(b"hdlr", bytes(8), b"mdir", bytes(12)), box(b"ilst", day))
    tagged = tmp_path / "clip.m4v"
    tagged.write_bytes(video(mvhd(0, 600, 600), trak(b"vide", 64, 64), box(b"udta", itunes), brand=b"M4V "))
    r = read_one(tagged)
    assert (r.sent_at, r.attrs["time_basis"]) == (datetime(2023, 5, 4, 9, 0, tzinfo=timezone.utc), "day-tag")
    assert r.text == "Video taken 2023-05-04 09:00 UTC, 0:01"


def test_a_unix_time_written_where_1904s_belongs_is_not_used(tmp_path):
    path = tmp_path / "clip.mp4"
    path.write_bytes(video(mvhd(1_683_190_800, 600, 600), trak(b"vide", 64, 64)))  # read from 1904: 1957
    r = read_one(path)
    assert r.sent_at is None and r.attrs["clock_suspect"].startswith("the camera's clock looks wrong (1957-05-")


def test_the_same_video_under_two_names_is_one_record(tmp_path):
    a, b = tmp_path / "a.mov", tmp_path / "copy of a.mov"
    a.write_bytes(iphone_mov())
    b.write_bytes(iphone_mov())
    assert read_one(a).content_hash == read_one(b).content_hash
    transcribed = read_one(a, transcribe=lambda p: "Ciao.")
    assert transcribed.content_hash == read_one(a).content_hash  # another model's words: the same video


@pytest.mark.parametrize("content, reason", [
    (b"", r"empty file \(0 bytes\): no video"),
    (b"<html><body>404 Not Found</body></html>", "not an MP4 or QuickTime video: text"),
    (b"RIFF\x00\x00\x00\x00AVI LIST", "not an MP4 or QuickTime video: an AVI"),
    (box(b"ftyp", b"isom", bytes(4), b"isom") + box(b"mdat", bytes(64)), "no 'moov' box"),
])
def test_what_is_not_a_video_is_refused_naming_the_file(tmp_path, content, reason):
    path = tmp_path / "holiday.mp4"
    path.write_bytes(content)
    with pytest.raises(InputError, match=reason) as caught:
        read_one(path)
    assert caught.value.path == str(path) and "holiday.mp4" in str(caught.value)


def test_a_video_cut_short_is_refused_naming_the_file(tmp_path):
    whole = iphone_mov()
    path = tmp_path / "IMG_0042.MOV"
    path.write_bytes(whole[:len(whole) - 40])  # a copy that stopped inside the moov box
    with pytest.raises(InputError, match=r"cut short: its 'moov' box at byte \d+ needs \d+ bytes") as caught:
        read_one(path)
    assert caught.value.path == str(path)
    inner = video(mvhd(MAY_4_0900_UTC, 600, 600), box(b"trak", struct.pack(">I", 400) + b"tkhd" + bytes(8)))
    path.write_bytes(inner)  # a box inside moov that claims more than its parent holds
    with pytest.raises(InputError, match="damaged video header: box 'tkhd' in moov/trak"):
        read_one(path)


@pytest.mark.parametrize("text, expected", [
    ("+41.8986+012.4769+021.000/", (41.8986, 12.4769, 21.0)),
    ("+37.4220-122.0841/", (37.422, -122.0841, None)),
    ("-33.8688+151.2093CRSWGS_84/", (-33.8688, 151.2093, None)),
    ("+4054.5-07358.5/", (40.90833, -73.975, None)),  # degrees and minutes: 40°54.5′ N, 73°58.5′ W
    ("+405430-0735830/", (40.90833, -73.975, None)),  # and seconds
    ("nowhere", None), ("+91.0000+000.0000/", None),
])
def test_iso6709_positions(text, expected):
    got = parse_iso6709(text)
    if expected is None:
        assert got is None
    else:
        assert got[0] == pytest.approx(expected[0], abs=1e-5) and got[1] == pytest.approx(expected[1], abs=1e-5)
        assert got[2] == expected[2]


def test_videos_go_to_the_video_ingestor(tmp_path):
    for name in ("a.mp4", "b.MOV", "c.m4v", "d.3gp"):
        (tmp_path / name).write_bytes(b"")  # the suffix decides: the content is not looked at
        assert ingestor_for(tmp_path / name).name == "video", name
    bare = tmp_path / "VIDEO0001"  # no suffix: sniffed
    bare.write_bytes(android_mp4())
    assert ingestor_for(bare).name == "video"
    song = tmp_path / "song"  # an M4A's brand is sound, a HEIC's a picture: not a video's
    song.write_bytes(box(b"ftyp", b"M4A ", bytes(4), b"M4A "))
    assert VideoIngestor().sniff(song, song.read_bytes()) == 0.0
    assert VideoIngestor().sniff(song, box(b"ftyp", b"heic", bytes(4), b"mif1")) == 0.0


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not installed: no real clip can be made")
def test_a_real_clip_made_by_ffmpeg(tmp_path):
    path = tmp_path / "clip.mov"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=1:size=64x64:rate=10",
                    "-f", "lavfi", "-i", "sine=duration=1", "-c:v", "mpeg4", "-c:a", "aac", "-shortest",
                    "-metadata", "creation_time=2023-05-04T09:00:00Z", "-metadata", "location=+41.8986+012.4769/",
                    str(path)], check=True, timeout=60)
    header = read_header(path)
    assert header.tracks == ["vide", "soun"] and (header.width, header.height) == (64, 64)
    r = read_one(path, transcribe=lambda p: "")
    # ffmpeg writes creation_time into mvhd (09:00 UTC) and the location into udta's ©xyz: 11:00 in Rome
    assert r.sent_at == datetime(2023, 5, 4, 11, 0, tzinfo=timezone(timedelta(hours=2)))
    assert r.text == "Video taken 2023-05-04 11:00 at Rome, Latium, Italy, 0:01"
    assert r.notes == ["no speech found"]


def test_importing_a_folder_with_a_video_adds_one_record(container, tmp_path):
    from sqlmodel import select

    from core.store.schema import Record as RecordRow

    folder = tmp_path / "phone"
    folder.mkdir()
    (folder / "IMG_0042.MOV").write_bytes(iphone_mov())
    heard = []

    def transcribe(p):  # the container's Whisper, stood in for: no model is loaded or downloaded
        heard.append(Path(p).name)
        return "Here we are at the Pantheon."

    container.transcribe = transcribe
    from app.operations.ingest import ingest

    report = ingest(container, [folder])
    assert (report.files, report.records_added, report.errors) == (1, 1, [])
    assert heard == ["IMG_0042.MOV"]
    with container.db.session() as s:
        [row] = s.exec(select(RecordRow)).all()
    assert row.kind == "video" and row.place_entity_id is not None
    assert row.text == ("Video taken 2023-05-04 11:00 at Rome, Latium, Italy with Apple iPhone 12 Pro, 0:42\n\n"
                        "Here we are at the Pantheon.")
    again = ingest(container, [folder])
    assert (again.records_added, again.records_skipped) == (0, 1)
    # asked in the chat: counted as a video, and found by what was said in it
    from app.loop import ConversationLoop
    from app.models.llm import NoModel

    loop = ConversationLoop.for_container(container, model=NoModel())
    assert loop.turn("how many videos do I have?").reply.startswith("You have 1 video, on 4 May 2023.")
    assert "Pantheon" in loop.turn("where was I at the Pantheon?").reply


def test_video_counts_and_last_video_are_answered(container, tmp_path):
    from app.loop import ConversationLoop
    from app.models.llm import NoModel
    from app.operations.ingest import ingest

    folder = tmp_path / "phone"
    folder.mkdir()
    (folder / "IMG_0042.MOV").write_bytes(iphone_mov())
    container.transcribe = lambda p: ""
    assert ingest(container, [folder]).records_added == 1
    loop = ConversationLoop.for_container(container, model=NoModel())
    assert loop.turn("how many videos did I take?").reply == "You took 1 video, on 4 May 2023."
    assert loop.turn("how many vids did I film in 2023?").reply == "You took 1 video in 2023, on 4 May 2023."
    assert loop.turn("how many videos do I have?").reply == "You have 1 video, on 4 May 2023."
    assert loop.turn("how many videos do I have from Montreal?").reply == "You have 0 videos in Montreal."  # in Rome
    assert loop.turn("when was my last video?").reply == "Your last video was taken on 4 May 2023 (1 video in all)."
    assert loop.turn("when did I take my last video?").reply == \
        "Your last video was taken on 4 May 2023 (1 video in all)."


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not installed: no real clip can be made")
def test_an_mp4s_3gpp_location_box_is_its_place(tmp_path):
    # ffmpeg writes `-metadata location=` of an .mp4 into udta's 3GPP "loci" box (16.16 fixed-point degrees): it
    # was not read, and the video had no place
    path = tmp_path / "c.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=1:size=64x64:rate=10",
                    "-metadata", "creation_time=2023-05-04T09:00:00Z", "-metadata", "location=+48.5734+007.7521/",
                    str(path)], check=True, timeout=60)
    r = read_one(path, transcribe=lambda p: "")
    assert r.attrs["location_iso6709"] == "+48.5734+007.7521/"
    assert (r.place.locality, r.place.country) == ("Strasbourg", "France")
    assert r.sent_at == datetime(2023, 5, 4, 11, 0, tzinfo=timezone(timedelta(hours=2)))  # 09:00 UTC, in Alsace


def test_a_count_for_a_month_counts_that_month(container, tmp_path):
    from app.loop import ConversationLoop
    from app.models.llm import NoModel
    from app.operations.ingest import ingest

    folder = tmp_path / "phone"
    folder.mkdir()
    (folder / "IMG_0042.MOV").write_bytes(iphone_mov())  # 4 May 2023
    container.transcribe = lambda p: ""
    assert ingest(container, [folder]).records_added == 1
    loop = ConversationLoop.for_container(container, model=NoModel())
    # was: "in May 2023" read as a place named "May 2023" (0 videos)
    assert loop.turn("how many videos did I take in May 2023?").reply == "You took 1 video in May 2023, on 4 May 2023."
    assert loop.turn("how many videos did I take in June 2023?").reply == "You took 0 videos in June 2023."

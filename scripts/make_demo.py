"""Write Kith's demo archive: made-up people's mail, chats and photos (run at build time).

    python scripts/make_demo.py [FOLDER]      # default: resources/demo

Everything is invented (names, addresses on the reserved example.* domains,
texts, photos drawn here) and deterministic: the same script writes the same
bytes, so the copy in ``resources/demo`` can be checked against it
(tests/test_demo_archive.py).  It holds, for Sam Rivera (the owner):

- ``mail/Sam Rivera.mbox`` — Gmail-Takeout-style mail over five years (Sent label on
  Sam's own messages) with a colleague, an old friend and a hill-walking mailing list;
- ``chats/WhatsApp Chat with Maya Lindqvist.txt`` — an Android WhatsApp export in which
  Maya moves from Oslo to Lisbon (a fact that supersedes an older one);
- ``chats/telegram/result.json`` — a Telegram Desktop export with Priya Raman;
- ``photos/*.jpg`` and one ``.heic`` — geotagged photos: a trip to Lisbon and Sintra, a
  day in Edinburgh, and home in Bristol.
"""
from __future__ import annotations

import json
import sys
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path

OWNER = ("Sam Rivera", "sam.rivera@example.net")
TOMAS = ("Tomás Ferreira", "tomas.ferreira@example.com")
JONAS = ("Jonas Weber", "jonas@example.org")
LIST = ("Ruth Okafor via Hill Walkers", "walkers@lists.example.org")  # a list that rewrites From: (Google Groups)
LIST_HEADERS = {"List-Id": "Hill Walkers <walkers.lists.example.org>", "List-Post": "<mailto:walkers@lists.example.org>",
                "X-Original-From": "Ruth Okafor <ruth.okafor@example.org>",
                "Reply-To": "Ruth Okafor <ruth.okafor@example.org>"}
UTC = timezone.utc


def _d(y, mo, d, h=9, mi=0) -> datetime:
    return datetime(y, mo, d, h, mi, tzinfo=UTC)


MAIL = [  # (when, from, to, subject, body, extra headers)
    (_d(2019, 3, 4, 18, 20), JONAS, OWNER, "Climbing in the Peak District?",
     "Hi Sam,\n\nAre you up for climbing at Stanage in April? I work at Northwind Labs now, so weekends are free "
     "again.\n\nJonas", {}),
    (_d(2019, 3, 4, 21, 5), OWNER, JONAS, "Re: Climbing in the Peak District?",
     "Count me in. I will bring the rope and the guidebook.\n\nSam", {"X-Gmail-Labels": "Sent"}),
    (_d(2019, 11, 12, 8, 40), JONAS, OWNER, "Moving",
     "News: I moved to Hamburg last week. The flat has a balcony over the canal. Come and visit!\n\nJonas", {}),
    (_d(2020, 6, 1, 10, 0), LIST, OWNER, "[walkers] Summer walks programme",
     "Dear walkers,\n\nThe summer programme is attached: Brecon Beacons on 20 June, Exmoor on 4 July.\n\n"
     "Ruth, for the Hill Walkers committee", LIST_HEADERS),
    (_d(2021, 2, 14, 9, 15), JONAS, OWNER, "Birthday",
     "Happy birthday, Sam! My birthday is on 2 May, so you have time to plan something.\n\nJonas", {}),
    (_d(2021, 9, 6, 9, 30), TOMAS, OWNER, "Welcome to the mapping project",
     "Hi Sam,\n\nWelcome aboard. The kickoff is on Thursday; I will send the data plan before then.\n\nTomás", {}),
    (_d(2021, 9, 6, 11, 2), OWNER, TOMAS, "Re: Welcome to the mapping project",
     "Thanks Tomás, looking forward to it. Could you share last year's survey data?\n\nSam",
     {"X-Gmail-Labels": "Sent"}),
    (_d(2021, 9, 6, 13, 45), TOMAS, OWNER, "Re: Welcome to the mapping project",
     "Shared it in the project folder. The river survey is the interesting part.\n\nTomás", {}),
    (_d(2022, 4, 20, 16, 10), TOMAS, OWNER, "Field day in Edinburgh",
     "We have the field day in Edinburgh in September. Bring a waterproof; it will rain.\n\nTomás", {}),
    (_d(2022, 9, 16, 19, 30), OWNER, TOMAS, "Photos from Edinburgh",
     "Great day on Arthur's Seat. Photos are in the shared album.\n\nSam", {"X-Gmail-Labels": "Sent"}),
    (_d(2023, 1, 9, 8, 55), TOMAS, OWNER, "Report draft",
     "The report draft is ready for your comments. The maps chapter needs your eye.\n\nTomás", {}),
    (_d(2023, 1, 9, 9, 20), OWNER, TOMAS, "Re: Report draft",
     "On it this morning.\n\nSam", {"X-Gmail-Labels": "Sent"}),
    (_d(2023, 5, 2, 7, 0), OWNER, JONAS, "Happy birthday!",
     "Happy birthday, Jonas! Hamburg in the spring must be lovely.\n\nSam", {"X-Gmail-Labels": "Sent"}),
    (_d(2023, 5, 2, 12, 31), JONAS, OWNER, "Re: Happy birthday!",
     "Thank you! It is. I joined Harbour Robotics in March, busy but happy.\n\nJonas", {}),
    (_d(2024, 3, 18, 10, 5), LIST, OWNER, "[walkers] AGM and spring walks",
     "Dear walkers,\n\nThe AGM is on 12 April. Spring walks: Quantocks, Mendips, Cotswold Way.\n\n"
     "Ruth, for the Hill Walkers committee", LIST_HEADERS),
    (_d(2024, 10, 3, 14, 0), TOMAS, OWNER, "Next year's survey",
     "Shall we plan next year's river survey over lunch? Thursday works for me.\n\nTomás", {}),
]

WHATSAPP = [  # (when, sender, text) — Android export, day-first dates, local time = UTC here
    (_d(2022, 2, 10, 19, 2), "Maya Lindqvist", "Hi Sam! I live in Oslo these days, the winter is long."),
    (_d(2022, 2, 10, 19, 3), "Sam Rivera", "Oslo! Send pictures of the snow."),
    (_d(2022, 2, 10, 19, 4), "Maya Lindqvist", "Will do. How is Bristol?"),
    (_d(2022, 2, 10, 19, 30), "Sam Rivera", "Rainy, as always. Are you still painting?"),
    (_d(2022, 2, 10, 19, 31), "Maya Lindqvist", "Every weekend. I have a small studio now."),
    (_d(2022, 11, 5, 21, 15), "Sam Rivera", "Did the exhibition go well?"),
    (_d(2022, 11, 5, 21, 40), "Maya Lindqvist", "It did! Sold three paintings."),
    (_d(2023, 5, 20, 8, 10), "Maya Lindqvist", "Big news: I moved to Lisbon last week! The light here is amazing."),
    (_d(2023, 5, 20, 8, 11), "Sam Rivera", "Lisbon! I am coming in June, can we meet?"),
    (_d(2023, 5, 20, 8, 12), "Maya Lindqvist", "Yes please. Let us go to Sintra."),
    (_d(2023, 6, 3, 18, 0), "Sam Rivera", "Landed. Dinner in Alfama?"),
    (_d(2023, 6, 3, 18, 1), "Maya Lindqvist", "Perfect, 8pm at the miradouro."),
    (_d(2023, 6, 6, 22, 30), "Sam Rivera", "Thank you for a wonderful trip."),
    (_d(2023, 6, 7, 9, 5), "Maya Lindqvist", "Come back soon! Painting the Sintra hills now."),
    (_d(2024, 1, 14, 20, 0), "Sam Rivera", "Happy new year! How is the studio?"),
    (_d(2024, 1, 14, 20, 2), "Maya Lindqvist", "Busy! I have a show in March. Painting every day."),
]

TELEGRAM = [  # (when, from, from_id, text)
    (_d(2023, 9, 1, 17, 0), "Priya Raman", "user5550101", "Bouldering on Saturday? The new wall opened."),
    (_d(2023, 9, 1, 17, 1), "Sam Rivera", "user5550100", "Yes! 10am?"),
    (_d(2023, 9, 1, 17, 2), "Priya Raman", "user5550101", "10am. I work at Clifton Climbing now, I can get us in early."),
    (_d(2023, 12, 2, 12, 0), "Sam Rivera", "user5550100", "Christmas climb before the holidays?"),
    (_d(2023, 12, 2, 15, 40), "Priya Raman", "user5550101", "Sure, but after the 20th, work is mad."),
    (_d(2024, 6, 15, 9, 0), "Priya Raman", "user5550101", "Trip to the Alps in August, are you in?"),
    (_d(2024, 6, 15, 9, 2), "Sam Rivera", "user5550100", "I am in. Chamonix?"),
    (_d(2024, 6, 15, 9, 3), "Priya Raman", "user5550101", "Chamonix. I will book the hut."),
]

PHOTOS = [  # (file, when (local = UTC+offset), lat, lon, colours)
    ("bristol-harbour.jpg", _d(2022, 3, 12, 11, 0), 51.4483, -2.5986, ((120, 150, 190), (70, 90, 110))),
    ("bristol-suspension-bridge.jpg", _d(2023, 10, 8, 16, 30), 51.4549, -2.6276, ((200, 150, 110), (60, 80, 60))),
    ("edinburgh-arthurs-seat.jpg", _d(2022, 9, 16, 10, 15), 55.9441, -3.1618, ((150, 170, 200), (90, 120, 70))),
    ("edinburgh-royal-mile.jpg", _d(2022, 9, 16, 15, 40), 55.9500, -3.1880, ((160, 160, 170), (110, 100, 90))),
    ("lisbon-alfama.jpg", _d(2023, 6, 3, 20, 10), 38.7118, -9.1300, ((240, 170, 110), (200, 120, 90))),
    ("lisbon-belem.jpg", _d(2023, 6, 4, 11, 30), 38.6916, -9.2160, ((110, 180, 230), (220, 210, 190))),
    ("sintra-pena.heic", _d(2023, 6, 5, 13, 0), 38.7876, -9.3906, ((130, 190, 240), (90, 140, 80))),
    ("cascais-beach.jpg", _d(2023, 6, 6, 17, 45), 38.6969, -9.4215, ((90, 170, 220), (230, 210, 160))),
]


def _mbox(path: Path) -> None:
    out = []
    for i, (when, (fn, fa), (tn, ta), subject, body, extra) in enumerate(MAIL):
        headers = [f"From {fa} {when:%a %b %d %H:%M:%S %Y}", f"From: {fn} <{fa}>", f"To: {tn} <{ta}>",
                   f"Subject: {subject}", f"Date: {format_datetime(when)}",
                   f"Message-ID: <demo-{i:03d}@example.net>", "MIME-Version: 1.0",
                   "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit"]
        headers += [f"{k}: {v}" for k, v in extra.items()]
        text = "\n".join(">" + ln if ln.startswith("From ") else ln for ln in body.split("\n"))
        out.append("\n".join(headers) + "\n\n" + text + "\n\n")
    path.write_text("".join(out), encoding="utf-8")


def _whatsapp(path: Path) -> None:
    lines = [f"{w:%d/%m/%Y, %H:%M} - {who}: {text}" for w, who, text in WHATSAPP]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _telegram(path: Path) -> None:
    msgs = [{"id": i + 1, "type": "message", "date": f"{w:%Y-%m-%dT%H:%M:%S}", "date_unixtime": str(int(w.timestamp())),
             "from": who, "from_id": fid, "text": text, "text_entities": [{"type": "plain", "text": text}]}
            for i, (w, who, fid, text) in enumerate(TELEGRAM)]
    data = {"name": "Priya Raman", "type": "personal_chat", "id": 5550101, "messages": msgs}
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def _dms(v: float) -> tuple:
    v = abs(v)
    d = int(v)
    m = int((v - d) * 60)
    s = round(((v - d) * 60 - m) * 60, 2)
    return (float(d), float(m), float(s))


def _photo(path: Path, when: datetime, lat: float, lon: float, colours) -> None:
    from PIL import Image, ImageDraw

    sky, ground = colours
    w, h = 320, 240
    im = Image.new("RGB", (w, h), sky)
    d = ImageDraw.Draw(im)
    seed = int(abs(lat * 1000 + lon * 100)) % 97
    for i in range(h // 2):  # a soft sky gradient
        t = i / (h / 2)
        d.line([(0, i), (w, i)], fill=tuple(int(c * (1 - 0.25 * t) + 255 * 0.25 * t) for c in sky))
    d.polygon([(0, h), (0, int(h * 0.62)), (w * 0.3, h * 0.5 + seed % 20), (w * 0.6, h * 0.6),
               (w, h * 0.48 + seed % 30), (w, h)], fill=ground)
    d.ellipse([w * 0.72, h * 0.1, w * 0.72 + 36, h * 0.1 + 36], fill=(250, 235, 170))
    stamp = when.strftime("%Y:%m:%d %H:%M:%S")
    exif = Image.Exif()
    exif[0x0132] = stamp                       # DateTime
    exif[0x010F] = "Kith demo"                 # Make
    ex = exif.get_ifd(0x8769)
    ex[0x9003] = stamp                         # DateTimeOriginal
    ex[0x9011] = "+00:00"                      # OffsetTimeOriginal
    gps = exif.get_ifd(0x8825)
    gps[1], gps[2] = ("N" if lat >= 0 else "S"), _dms(lat)
    gps[3], gps[4] = ("E" if lon >= 0 else "W"), _dms(lon)
    if path.suffix == ".heic":
        from pillow_heif import register_heif_opener

        register_heif_opener()
        im.save(path, format="HEIF", exif=exif.tobytes(), quality=60)
    else:
        im.save(path, format="JPEG", exif=exif.tobytes(), quality=82, optimize=False)


def write_demo(folder: Path) -> list[Path]:
    """Write the demo archive under ``folder`` (created); returns the files written, sorted."""
    folder = Path(folder)
    for sub in ("mail", "chats/telegram", "photos"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    _mbox(folder / "mail" / "Sam Rivera.mbox")
    _whatsapp(folder / "chats" / "WhatsApp Chat with Maya Lindqvist.txt")
    _telegram(folder / "chats" / "telegram" / "result.json")
    for name, when, lat, lon, colours in PHOTOS:
        _photo(folder / "photos" / name, when, lat, lon, colours)
    return sorted(p for p in folder.rglob("*") if p.is_file())


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "resources" / "demo"
    files = write_demo(target)
    print(f"wrote {len(files)} files to {target}")

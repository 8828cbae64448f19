"""The walking skeleton end to end through the `kith` CLI, on the real files in ../shared/corpus.

Right values come from ../shared/corpus/README.md (worked out independently of Kith).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlmodel import select

from app.cli import main

pytestmark = [pytest.mark.corpus, pytest.mark.slow]


def run(*args: str) -> dict:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("kith-corpus-home")


@pytest.fixture(scope="module")
def first_report(home, request):
    corpus = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
    if not corpus.is_dir():
        pytest.skip("../shared/corpus not present (it exists only in the dev workspace and CI)")
    mp = pytest.MonkeyPatch()
    mp.setenv("KITH_HOME", str(home))
    try:
        report = run("ingest", str(corpus / "mbox"), str(corpus / "photos"), "--json")
    finally:
        mp.undo()
    return corpus, report


@pytest.fixture
def at_home(home, monkeypatch, first_report):
    monkeypatch.setenv("KITH_HOME", str(home))
    return first_report[0]


def db_rows(home: Path):
    from core.store.db import Database
    from core.store.schema import Record, Source

    db = Database(home / "kith.sqlite3")
    try:
        with db.session() as s:
            return [(Path(src.path).name, rec) for rec, src in
                    s.exec(select(Record, Source).join(Source, Source.id == Record.source_id)).all()]
    finally:
        db.close()


QUOTED = 24
"""Messages MailBox_mbox.src.mbox's replies quote under an attribution line ("On … X wrote:", mutt's, Outlook's
block; interleaved ones too: ``tests/ingestors/test_mbox.py``).  A quote whose original the mailbox holds is known
by it (or retired for it, ``attrs.duplicate_of``); the others are their writers' records."""


def quotes_stored(home: Path) -> tuple[list, list]:
    """(live quote records, all the mailbox's message texts) as stored: no live quote's lines are all in a message."""
    rows = db_rows(home)
    box = [r for name, r in rows if name == "MailBox_mbox.src.mbox"]
    live = [r for r in box if "quoted_in" in (r.attrs or {}) and "duplicate_of" not in (r.attrs or {})]
    return live, [r for r in box if "quoted_in" not in (r.attrs or {})]


def test_first_ingest_reads_every_file_and_keeps_going_past_bad_ones(first_report, home):
    _, report = first_report
    assert report["files"] == 15
    stored = [r for name, r in db_rows(home) if name == "MailBox_mbox.src.mbox" and "quoted_in" in (r.attrs or {})]
    assert 0 < len(stored) < QUOTED
    assert report["records_added"] == 45 + 9 + 4 + 1 + 1 + 1 + 9 + len(stored)
    assert report["records_skipped"] == QUOTED - len(stored)  # quotes of mails the mailbox holds: known
    assert report["errors"] == []
    live, messages = quotes_stored(home)
    flat = [" ".join(m.text.split()) for m in messages]
    for q in live:  # a quote stored is not one of the mailbox's own messages again
        lines = [" ".join(x.lstrip("> ").split()) for x in q.text.splitlines() if len(x.strip()) >= 20]
        assert not any(all(x in m for x in lines) for m in flat), q.text[:80]


def test_records_per_file_match_the_corpus_readme(at_home, home):
    counts: dict[str, int] = {}
    for name, _ in db_rows(home):
        counts[name] = counts.get(name, 0) + 1
    live, messages = quotes_stored(home)
    assert len(messages) == 45  # and the quotes of messages it does not hold
    assert counts["Mailpile_tests.mbx"] == 9
    assert counts["stalwart_sample_mboxrd.mbox"] == 4
    assert counts["invalid_image01088.jpg"] == 1  # no EXIF: still a photo record


def test_subjects_are_decoded_text_and_unknown_times_stay_unknown(at_home, home):
    rows = db_rows(home)
    mailpile = [r for name, r in rows if name == "Mailpile_tests.mbx"]
    assert all(isinstance(r.subject, str) and "=?" not in r.subject and "Ã" not in r.subject for r in mailpile)
    whenever = [r for name, r in rows if name == "eml_date_Whenever_rfc001.eml"]
    assert len(whenever) == 1 and whenever[0].sent_at is None
    invalid = [r for name, r in rows if name == "invalid_image01088.jpg"]
    assert invalid[0].sent_at is None
    canon = [r for name, r in rows if name == "Canon_40D_nogps.jpg"][0]
    assert canon.place_entity_id is None and canon.sent_at is not None
    assert canon.sent_at.strftime("%Y-%m-%d") == "2008-05-30"


def graph_snapshot(home: Path):
    from core.store.db import Database
    from core.store.schema import Alias, Entity, Fact, FactEntity

    db = Database(home / "kith.sqlite3")
    try:
        with db.session() as s:
            return (sorted((e.id, e.kind, e.canonical_name) for e in s.exec(select(Entity)).all()),
                    sorted((a.entity_id, a.kind, a.normalized) for a in s.exec(select(Alias)).all()),
                    sorted((f.id, f.key, f.value, f.evidence_count, f.superseded_by, round(f.confidence, 6))
                           for f in s.exec(select(Fact)).all()),
                    sorted((x.fact_id, x.entity_id, x.role) for x in s.exec(select(FactEntity)).all()))
    finally:
        db.close()


def test_second_ingest_adds_nothing_and_yields_the_same_graph(at_home, home):
    before = graph_snapshot(home)
    report = run("ingest", str(at_home / "mbox"), str(at_home / "photos"), "--json")
    assert report["records_added"] == 0
    assert report["records_skipped"] == 25 + 45 + QUOTED  # every record read again: the other files', the mailbox's
    assert graph_snapshot(home) == before


def test_places_from_photo_gps(at_home):
    places = run("entities", "--kind", "place", "--json")["entities"]
    tuscany = [p for p in places if "Tuscany" in p["name"] and p["name"].endswith("Italy")]
    assert len(tuscany) == 1 and tuscany[0]["records"] == 2  # DSCN0010 + DSCN0040, 27 minutes apart
    assert sum(p["name"].endswith("Kenya") for p in places) == 1
    assert sum("Missouri" in p["name"] and p["name"].endswith("United States") for p in places) == 1
    assert len(places) == 3


def test_one_person_per_email_address(at_home):
    people = run("entities", "--kind", "person", "--json")["entities"]
    mark = [p for p in people if p["name"] == "Mark Overmeer"]
    assert len(mark) == 1 and mark[0]["records"] >= 8  # he sent 8 messages to the list
    emails: dict[str, int] = {}
    for p in people:
        for a in p["aliases"] + [p["name"]]:
            if "@" in a:
                emails[a.casefold()] = emails.get(a.casefold(), 0) + 1
    assert max(emails.values()) == 1


def test_the_mailing_list_is_a_group_not_a_person(at_home, home):
    """Issue 13: "ImageMagick Mailing List" (magick@…) was listed as a person with 22 records."""
    from core.store.db import Database
    from core.store.schema import Entity, MergeCandidate

    people = {p["name"] for p in run("entities", "--kind", "person", "--json")["entities"]}
    things = {p["name"]: p for p in run("entities", "--kind", "thing", "--json")["entities"]}
    assert "ImageMagick Mailing List" not in people and things["ImageMagick Mailing List"]["records"] >= 22
    assert {"Bill Radcliffe", "Steve Sapovits", "Mark Overmeer"} <= people  # the authors are people
    db = Database(home / "kith.sqlite3")
    try:
        with db.session() as s:
            (lst,) = s.exec(select(Entity).where(Entity.canonical_name == "ImageMagick Mailing List")).all()
            assert lst.attrs["group"] == "mailing_list" and "list" in lst.attrs["kind_reason"]
            # a bare first name on two addresses of one company's domain: one person, by a decision kept
            (cristy,) = s.exec(select(Entity).where(Entity.canonical_name == "Cristy",
                                                    Entity.tombstoned_at.is_(None))).all()
            (mc,) = s.exec(select(MergeCandidate).where(MergeCandidate.a_id == cristy.id)).all()
            assert (mc.signal, mc.status, mc.decided_by) == ("first_name_domain", "merged", "kith")
    finally:
        db.close()


def test_ask_finds_the_message_by_subject_words_then_forget_removes_it(at_home):
    results = run("ask", "watermarks embossing", "--k", "5", "--json")["results"]
    top = results[0]
    assert top["source"].endswith("MailBox_mbox.src.mbox")
    assert "watermarks/embossing" in top["text"]
    sender = top["sender"]
    assert sender
    people = run("entities", "--kind", "person", "--json")["entities"]
    target = [p for p in people if p["name"] == sender][0]
    report = run("forget", str(target["id"]), "--yes", "--json")
    counts = report["counts"]
    assert 1 <= counts["graph"]["records"] <= target["records"]
    assert counts["vectors"]["records"] == counts["graph"]["records"]
    assert counts["vectors"]["facts"] == counts["graph"]["facts"]
    assert counts["search"]["record_fts"] == counts["graph"]["records"]
    after = run("ask", "watermarks embossing", "--k", "10", "--json")["results"]
    assert all(r["sender"] != sender for r in after)
    assert all(r["text"] != top["text"] for r in after)
    names = [p["name"] for p in run("entities", "--json")["entities"]]
    assert sender not in names

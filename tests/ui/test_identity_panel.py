"""The profile's "Why is this one person?" panel (issue 13): the decisions behind an entity, to judge and undo.

Data made through the real ingest: Alex Reed writes from two addresses at one company (the same full name at one
company's domain: a suggestion, stop 27 — two people until the person merges them, then Southbank supersedes
Northwind), and two senders called just "Sam" at two addresses (kept as two, with a suggestion).
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from helpers.mboxes import write_mbox

pytestmark = pytest.mark.gui


@pytest.fixture
def life(kith_container, tmp_path):
    from app.operations.ingest import ingest

    path = write_mbox(tmp_path / "alex.mbox", [
        ("Alex Reed <alex@north.dupont.com>", "new job", "I work at Northwind now."),
        ("Alex Reed <alex.r@south.dupont.com>", "hello", "I work at Southbank these days."),
        ("Sam <sam@one.example>", "hi", "Hello there."),
        ("Sam <sam@two.example>", "hi", "Hello again.")],
        start=datetime(2023, 3, 6, 9, tzinfo=timezone.utc), step=timedelta(days=2))
    report = ingest(kith_container, [path])
    assert report.records_added == 4 and not report.errors
    return kith_container


@pytest.fixture
def page(qtbot, qapp, life):
    from ui.profile import ProfilePage
    from ui.worker import Worker

    worker = Worker()
    p = ProfilePage(life, worker)
    qtbot.addWidget(p)
    p.show()
    yield p
    assert worker.shutdown(30_000)


def _entity(c, name: str) -> int:
    from app.operations.entities import find_entity

    return find_entity(c, name).id


def _alex_suggestion(c):
    """The review item for the two Alex Reeds (same full name at one company's domain: a suggestion, stop 27)."""
    from app.operations.review import list_reviews

    (item,) = [r for r in list_reviews(c) if r.signal == "full_name"]
    return item


def test_panel_shows_why_and_merging_the_suggestion_makes_one_person(qtbot, page, life):
    item = _alex_suggestion(life)
    with qtbot.waitSignal(page.why.loaded, timeout=30_000) as blocker:
        page.load(item.a_id)
    (d,) = blocker.args[0].decisions
    assert (d.status, d.signal, d.actions) == ("pending", "full_name", ["merge", "reject"])
    rows = page.why.rows()
    assert any(r.startswith("Suggested \u2014 waiting for you: Alex Reed") for r in rows)
    assert "Why: same full name 'Alex Reed' only at one company's mail domain (dupont.com), different identifiers " \
           "(alex.r@south.dupont.com vs alex@north.dupont.com)" in rows or \
           "Why: same full name 'Alex Reed' only at one company's mail domain (dupont.com), different identifiers " \
           "(alex@north.dupont.com vs alex.r@south.dupont.com)" in rows
    qtbot.waitUntil(lambda: page.data is not None and page.data.profile.id == item.a_id, timeout=30_000)
    facts = page.facts_shown()
    assert any("Northwind" in f for f in facts) and not any("Southbank" in f for f in facts)  # two people yet

    with qtbot.waitSignal(page.why.changed, timeout=30_000) as done:
        page.why.buttons(d.id)["merge"].click()
    assert done.args[0].status == "merged"
    qtbot.waitUntil(lambda: page.data is not None and any("Southbank" in f for f in page.facts_shown()),
                    timeout=30_000)
    assert not any("Northwind" in f for f in page.facts_shown())  # the later job holds now
    assert any("Northwind" in r[0] and r[2] for r in page.timeline_rows())  # superseded, in the timeline


def test_undo_a_merge_and_reject_a_suggestion_from_the_panel(qtbot, page, life):
    from app.operations.review import list_reviews

    item = _alex_suggestion(life)
    with qtbot.waitSignal(page.why.loaded, timeout=30_000) as blocker:
        page.load(item.a_id)
    (d,) = blocker.args[0].decisions
    with qtbot.waitSignal(page.why.changed, timeout=30_000):
        page.why.buttons(d.id)["merge"].click()
    with life.db.session() as s:
        from core.store.schema import Entity

        assert s.get(Entity, item.b_id).tombstoned_at is not None  # one person
    qtbot.waitUntil(lambda: page.why.data is not None and "unmerge" in page.why.buttons(d.id), timeout=30_000)
    with qtbot.waitSignal(page.why.changed, timeout=30_000) as done:
        page.why.buttons(d.id)["unmerge"].click()
    assert done.args[0].status == "unmerged"
    with life.db.session() as s:
        assert s.get(Entity, item.b_id).tombstoned_at is None  # two entities again

    (sam_item,) = list_reviews(life)  # the two Sams: a suggestion, not a merge
    assert sam_item.signal == "first_name"
    with qtbot.waitSignal(page.why.loaded, timeout=30_000) as blocker:
        page.load(sam_item.a_id)
    (sd,) = blocker.args[0].decisions
    assert (sd.status, sd.actions) == ("pending", ["merge", "reject"])
    assert any(r.startswith("Suggested \u2014 waiting for you: Sam") for r in page.why.rows())
    with qtbot.waitSignal(page.why.changed, timeout=30_000) as done:
        page.why.buttons(sd.id)["reject"].click()
    assert done.args[0].status == "rejected"

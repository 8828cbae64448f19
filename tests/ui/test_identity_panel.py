"""The profile's "Why is this one person?" panel (issue 13): the decisions behind an entity, to judge and undo.

Data made through the real ingest: Alex Reed writes from two addresses (one person by full name, a merge
Kith made and holds until confirmed: Southbank waits instead of superseding Northwind), and two senders
called just "Sam" at two addresses (kept as two, with a suggestion).
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


def test_panel_shows_why_and_confirming_releases_the_held_fact(qtbot, page, life):
    alex = _entity(life, "Alex Reed")
    with qtbot.waitSignal(page.why.loaded, timeout=30_000) as blocker:
        page.load(alex)
    why = blocker.args[0]
    (d,) = why.decisions
    assert (d.status, d.signal, d.threshold, d.decided_by, d.confirmed) == \
        ("merged", "exact_name", "definitive", "kith", False)
    assert any("Southbank" in h for h in d.held_facts) and d.actions == ["confirm", "unmerge"]
    rows = page.why.rows()
    assert "Merged by Kith \u2014 not confirmed: Alex Reed (#%d)" % d.other_id in rows
    assert any(r.startswith("Waits for your confirmation: ") and "Southbank" in r for r in rows)
    assert any(r.startswith("alex.r@south.dupont.com (email)") for r in rows) and \
        "Why: same full name 'Alex Reed'" in rows
    qtbot.waitUntil(lambda: page.data is not None and page.data.profile.id == alex, timeout=30_000)
    assert not any("Southbank" in f for f in page.facts_shown())  # held, not current yet

    buttons = page.why.buttons(d.id)
    assert set(buttons) == {"confirm", "unmerge"}
    with qtbot.waitSignal(page.loaded, timeout=30_000):
        buttons["confirm"].click()
    assert any("Southbank" in f for f in page.facts_shown()) and not any("Northwind" in f for f in page.facts_shown())
    assert any("Northwind" in r[0] and r[2] for r in page.timeline_rows())  # superseded, in the timeline
    qtbot.waitUntil(lambda: page.why.data is not None and page.why.data.decisions[0].confirmed, timeout=30_000)
    assert page.why.buttons(d.id).keys() == {"unmerge"}


def test_undo_a_merge_and_merge_a_suggestion_from_the_panel(qtbot, page, life):
    from app.operations.review import list_reviews

    alex = _entity(life, "Alex Reed")
    with qtbot.waitSignal(page.why.loaded, timeout=30_000) as blocker:
        page.load(alex)
    (d,) = blocker.args[0].decisions
    with qtbot.waitSignal(page.why.changed, timeout=30_000) as done:
        page.why.buttons(d.id)["unmerge"].click()
    assert done.args[0].status == "unmerged"
    with life.db.session() as s:
        from core.store.schema import Entity

        assert s.get(Entity, d.other_id).tombstoned_at is None  # two entities again

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

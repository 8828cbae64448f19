"""The window's pictures after a forget (issue: forget reaches every store and view): the Timeline had drawn a
forgotten person's records and facts — their name in each record's tooltip, "Rosa Vidal lives in Madrid" in the
facts lane — and the Map a forgotten place's photos, while the forget was still restorable (tombstoned, not yet
purged). Now every picture read leaves tombstoned records, facts and entities out."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from app.container import Container
from app.operations.forget import forget, restore
from app.operations.ingest import ingest
from app.operations.pictures import people_graph, places, record_detail, timeline
from app.settings import Settings
from core.errors import NotFound
from helpers.mboxes import write_mbox
from helpers.photos import write_photo


def test_a_restorable_forget_leaves_the_timeline_graph_map_and_source_view(tmp_path):
    c = Container(Settings.load(tmp_path / "home"))
    try:
        c.settings.owner_emails, c.settings.owner_name = ["owner@example.net"], "Owner Person"
        mail = write_mbox(tmp_path / "m.mbox", [
            ("Rosa Vidal <rosa@example.org>", "hi", "I live in Berlin now."),
            ("Rosa Vidal <rosa@example.org>", "news", "Big change: I moved to Madrid last week."),
            ("Bob Stone <bob@example.org>", "bike", "Selling my bike."),
        ], start=datetime(2023, 1, 9, 10, 0, tzinfo=timezone.utc))
        photo = write_photo(tmp_path / "p" / "arezzo.jpg", datetime(2008, 10, 22, 14, 28, tzinfo=timezone.utc),
                            43.4633, 11.8797)
        assert ingest(c, [mail, photo]).records_added == 4
        before = timeline(c)
        rosa_records = [r.id for r in before.records if r.sender == "Rosa Vidal"]
        assert len(rosa_records) == 2 and any("Rosa Vidal lives in" in f.statement for f in before.facts)
        assert len(places(c).points) == 1

        rep = forget(c, "Rosa Vidal")  # restorable: tombstoned until the recovery window ends
        after = timeline(c)
        assert [r.sender for r in after.records if r.kind == "email"] == ["Bob Stone"]
        assert not any("Rosa" in f.statement for f in after.facts), [f.statement for f in after.facts]
        assert "Rosa Vidal" not in [n.name for n in people_graph(c).nodes]
        for rid in rosa_records:
            with pytest.raises(NotFound):
                record_detail(c, rid)

        place = next(cl.place_id for cl in places(c).clusters if cl.photos)
        forget(c, place)
        assert places(c).points == [] and all(cl.photos == 0 for cl in places(c).clusters)
        assert [r.kind for r in timeline(c).records] == ["email"]

        restore(c, rep.forget_id)  # and back again when restored
        assert sorted(r.id for r in timeline(c).records if r.sender == "Rosa Vidal") == sorted(rosa_records)
    finally:
        c.close()

"""The settings' ``local_timezone`` reaches every importer that reads zone-less times: a WhatsApp export's times
are the phone's wall clock (Android writes no zone), so 12:00 on 1 June 2023 in Berlin is 10:00 UTC (CEST, +2)."""
from __future__ import annotations

import json
from datetime import datetime, timezone

from sqlmodel import select

from app.operations.ingest import ingest
from core.clock import ensure_utc
from core.store.schema import Record as RecordRow


def test_a_chat_export_is_read_in_the_settings_zone(kith_home, tmp_path):
    from app.container import Container

    kith_home.mkdir(parents=True, exist_ok=True)
    (kith_home / "settings.json").write_text(json.dumps({"local_timezone": "Europe/Berlin"}))
    chat = tmp_path / "WhatsApp Chat with Ana.txt"
    chat.write_text("13/01/2023, 09:15 - Ana Lopez: Happy new year!\n01/06/2023, 12:00 - Ana Lopez: Lunch today?\n")
    c = Container()
    try:
        assert ingest(c, [chat]).records_added == 2
        with c.db.session() as s:
            rows = s.exec(select(RecordRow).order_by(RecordRow.sent_at)).all()
        # winter CET (+1) and summer CEST (+2)
        assert [ensure_utc(r.sent_at) for r in rows] == [datetime(2023, 1, 13, 8, 15, tzinfo=timezone.utc),
                                                        datetime(2023, 6, 1, 10, 0, tzinfo=timezone.utc)]
        assert {r.attrs.get("timezone") for r in rows} == {"Europe/Berlin"}
    finally:
        c.close()

"""Ingestors hand over times at the offset where they happened (issue 13: time zones are kept, not flattened),
and say what an SMS sender that is a service is."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from ingestors.imessage import _address_kind
from ingestors.mbox import MboxIngestor
from ingestors.telegram import TelegramIngestor, local_offset
from ingestors.whatsapp import WhatsAppIngestor

TZ = lambda h, m=0: timezone(timedelta(hours=h, minutes=m))  # noqa: E731


def _records(ing, path: Path):
    return [r for r in ing.read(path) if hasattr(r, "sent_at")]


@pytest.mark.corpus
def test_mail_date_keeps_the_senders_offset(corpus):
    recs = _records(MboxIngestor(), corpus / "regressions" / "mbox_yesterday_timezones.mbox")
    assert [r.sent_at.isoformat() for r in recs] == [
        "2023-06-10T08:30:00+10:00", "2023-06-09T20:00:00-07:00", "2023-06-12T12:00:00+00:00"]
    assert recs[0].sent_at == datetime(2023, 6, 9, 22, 30, tzinfo=timezone.utc)  # the same instant


def test_the_content_hash_is_the_instant_whatever_the_offset(tmp_path):
    from ingestors.base import Record

    a = Record("x", "#1", "email", "hi", sent_at=datetime(2023, 6, 10, 8, 30, tzinfo=TZ(10)))
    b = Record("x", "#1", "email", "hi", sent_at=datetime(2023, 6, 9, 22, 30, tzinfo=timezone.utc))
    assert a.content_hash == b.content_hash  # imports made before offsets were kept stay deduplicated


def test_whatsapp_time_is_the_phones_local_time(tmp_path):
    p = tmp_path / "chat.txt"
    p.write_text("10/06/2023, 08:30 - Mia Clarke: I moved to Hobart yesterday.\n", encoding="utf-8")
    (r,) = _records(WhatsAppIngestor(local_timezone="Australia/Hobart"), p)
    assert r.sent_at.isoformat() == "2023-06-10T08:30:00+10:00" and r.attrs["time_basis"] == "assumed-local"


def test_telegram_keeps_the_exports_local_offset(tmp_path):
    msg = {"id": 1, "type": "message", "date": "2023-06-10T08:30:00", "date_unixtime": "1686349800",
           "from": "Mia Clarke", "from_id": "user1", "text": "I moved to Hobart yesterday."}
    p = tmp_path / "result.json"
    p.write_text(json.dumps({"name": "Mia", "type": "personal_chat", "id": 1, "messages": [msg]}), encoding="utf-8")
    (r,) = _records(TelegramIngestor(), p)
    assert r.sent_at.isoformat() == "2023-06-10T08:30:00+10:00" and r.attrs["time_basis"] == "export-local"
    at = datetime(2023, 6, 9, 22, 30, tzinfo=timezone.utc)
    assert local_offset("2023-06-10T04:15:00", at) == TZ(5, 45)  # Nepal: quarter hours survive
    assert local_offset("2023-06-12T08:30:00", at) is None and local_offset(None, at) is None


@pytest.mark.corpus
def test_photo_time_keeps_its_offset(corpus):
    from ingestors.photos import PhotoIngestor

    (r,) = _records(PhotoIngestor(), corpus / "photos" / "IMG_5195_iphone11_gps.HEIC")
    assert r.sent_at.isoformat() == "2021-04-11T15:47:53-05:00"  # OffsetTimeOriginal -05:00


def test_imessage_handles_that_are_sms_services():
    assert [_address_kind(h) for h in ("22000", "GOOGLE", "+16175551234", "ana@example.com", "(617) 555-1234")] == \
        ["short_code", "alphanumeric", "phone", "email", "phone"]

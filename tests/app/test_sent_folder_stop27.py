"""A mailbox named like a Sent folder ("sent.mbox"): its mail is the owner's — unless its sender is already a
correspondent with mail of their own, whom a file's name never merges into the owner."""
from __future__ import annotations

import pytest

from app.operations.ingest import ingest
from helpers.files import rows

NINA = """From nina@example.com Sat Oct 14 20:05:00 2023
From: Nina Holt <nina@example.com>
To: Kurt Lamb <kurt@example.org>
Subject: lanterns
Date: Sat, 14 Oct 2023 20:05:00 +0000
Message-ID: <n1@example.com>

Bring the paper lanterns for the quayside party please.

"""
NINA_AGAIN = """From nina@example.com Mon Oct 16 09:00:00 2023
From: Nina Holt <nina@example.com>
To: Kurt Lamb <kurt@example.org>
Subject: oars
Date: Mon, 16 Oct 2023 09:00:00 +0000
Message-ID: <n2@example.com>

The oars are in the red shed.

"""
TO_ALEX = """From kurt@example.org Sat Oct 14 08:00:00 2023
From: Kurt Lamb <kurt@example.org>
To: Alex Morgan <alex@example.net>
Subject: hello
Date: Sat, 14 Oct 2023 08:00:00 +0000
Message-ID: <k1@example.org>

Hello Alex, are you coming on Sunday?

"""
FROM_ALEX = """From alex@example.net Sat Oct 14 10:00:00 2023
From: Alex Morgan <alex@example.net>
To: Kurt Lamb <kurt@example.org>
Subject: Re: hello
Date: Sat, 14 Oct 2023 10:00:00 +0000
Message-ID: <a1@example.net>

Yes, I will bring the kayak.

"""


@pytest.fixture
def home(tmp_path, monkeypatch):
    from app.container import Container

    monkeypatch.setenv("KITH_HOME", str(tmp_path / "kith-home"))
    c = Container()
    yield c, tmp_path
    c.close()


def _sender_of(c, message_id: str) -> tuple:
    return rows(c.settings.db_path, "SELECT e.canonical_name, e.is_owner FROM record r JOIN entity e ON "
                "e.id = r.sender_entity_id WHERE r.external_id = ?", (message_id,))[0]


def test_a_known_correspondents_mail_in_a_sent_named_file_stays_theirs(home):
    c, tmp = home
    (tmp / "nina.mbox").write_text(NINA, encoding="utf-8")
    (tmp / "sent.mbox").write_text(NINA_AGAIN, encoding="utf-8")
    assert ingest(c, [tmp / "nina.mbox"]).records_added == 1
    assert ingest(c, [tmp / "sent.mbox"]).records_added == 1
    assert _sender_of(c, "<n2@example.com>") == ("Nina Holt", 0)
    assert _sender_of(c, "<n1@example.com>") == ("Nina Holt", 0)
    assert rows(c.settings.db_path, "SELECT count(*) FROM entity WHERE is_owner = 1 AND canonical_name = "
                "'Nina Holt'") == [(0,)]


def test_the_owners_address_known_only_as_a_recipient_is_the_owner(home):
    c, tmp = home
    (tmp / "inbox.mbox").write_text(TO_ALEX, encoding="utf-8")
    (tmp / "sent.mbox").write_text(FROM_ALEX, encoding="utf-8")
    ingest(c, [tmp / "inbox.mbox"])
    ingest(c, [tmp / "sent.mbox"])
    assert _sender_of(c, "<a1@example.net>") == ("Alex Morgan", 1)
    assert rows(c.settings.db_path, "SELECT count(*) FROM entity WHERE canonical_name = 'Alex Morgan' AND "
                "tombstoned_at IS NULL AND kind = 'person'") == [(1,)]

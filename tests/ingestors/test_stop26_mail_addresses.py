"""Stop 26: the sender of a message forwarded or quoted in a mail's text, as Outlook writes it in its header block
(``From: Wanda Kim [mailto:wanda@example.net]``), is the named person at that address — not a person "Wanda" with
none.  Each test writes its input and checks the records worked out by hand, through the real .eml ingest path."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from ingestors.mbox import EmlIngestor

HEAD = ("From: Victor Hale <victor@example.org>\nTo: Sam Ito <sam@example.net>\nSubject: FW: gate code\n"
        "Date: Fri, 13 Oct 2023 12:00:00 -0400\nMessage-ID: <fm1@example.org>\n"
        "Content-Type: text/plain; charset=utf-8\n\nFYI.\n\n-----Original Message-----\n")
TAIL = ("Sent: Thursday, October 12, 2023 6:00 PM\nTo: Victor Hale\nSubject: gate code\n\n"
        "The gate code for the Linden yard is 4471.\n")


def _read(tmp_path, text: str) -> list:
    path = tmp_path / "m.eml"
    path.write_bytes(text.encode("utf-8"))
    return list(EmlIngestor().read(path))


@pytest.mark.parametrize("written, name", [
    ("Wanda Kim [mailto:wanda@example.net]", "Wanda Kim"),
    ("Wanda Kim [wanda@example.net]", "Wanda Kim"),
    ("Wanda Kim <mailto:wanda@example.net>", "Wanda Kim"),
    ('"Kim, Wanda" <wanda@example.net>', "Kim, Wanda"),
    ("Kim, Wanda [mailto:wanda@example.net]", "Kim, Wanda"),
])
def test_outlook_forward_sender_with_its_address(tmp_path, written, name):
    outer, inner = _read(tmp_path, HEAD + f"From: {written}\n" + TAIL)
    assert (outer.sender.name, outer.sender.address, outer.text) == ("Victor Hale", "victor@example.org", "FYI.")
    assert (inner.sender.name, inner.sender.address) == (name, "wanda@example.net")
    assert inner.text == "The gate code for the Linden yard is 4471."
    # 6:00 PM written without a zone, read at the forwarder's -04:00: 22:00 UTC
    assert inner.sent_at.astimezone(timezone.utc) == datetime(2023, 10, 12, 22, 0, tzinfo=timezone.utc)
    assert inner.attrs["forwarded_in"] == "<fm1@example.org>"


def test_a_name_alone_stays_a_name(tmp_path):
    outer, inner = _read(tmp_path, HEAD + "From: Wanda Kim\n" + TAIL)
    assert (inner.sender.name, inner.sender.address) == ("Wanda Kim", None)

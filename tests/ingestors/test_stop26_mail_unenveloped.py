"""Stop 26: an mbox message whose envelope ("From ") line is missing — after a message's body, a blank line, then a
message's own whole header block — is a message of its own, not text of the message above it.  A header block pasted
into a body (an Outlook reply's ``From:/Sent:/To:/Subject:``, a forward under its separator, a bounce's copy of the
returned message, a digest's parts) carries no Message-ID and no transport headers, or sits under text that
introduces it, and stays text.  Each test writes its mailbox and checks the records worked out by hand."""
from __future__ import annotations

from datetime import datetime, timezone

from ingestors.mbox import MboxIngestor

UTC = timezone.utc
FIRST = ("From hugo@example.org Mon May  6 08:00:00 2024\nFrom: Hugo Lind <hugo@example.org>\n"
         "To: Ines Roth <ines@example.net>\nSubject: Boat\nDate: Mon, 06 May 2024 08:00:00 +0000\n"
         "Message-ID: <b1@example.org>\n\nThe boat is ready at pier seven.\n\n")
LAST = ("From hugo@example.org Wed May  8 08:00:00 2024\nFrom: Hugo Lind <hugo@example.org>\n"
        "To: Ines Roth <ines@example.net>\nSubject: Re: Boat\nDate: Wed, 08 May 2024 08:00:00 +0000\n"
        "Message-ID: <b3@example.org>\n\nAnd the compass from the attic.\n")


def _read(tmp_path, text: str) -> list:
    path = tmp_path / "m.mbox"
    path.write_bytes(text.encode("utf-8"))
    items = list(MboxIngestor().read(path))
    return [(r.sender.name, r.sender.address, r.text, r.sent_at.astimezone(UTC), r.subject) for r in items]


HUGO_1 = ("Hugo Lind", "hugo@example.org", "The boat is ready at pier seven.\n", datetime(2024, 5, 6, 8, tzinfo=UTC),
          "Boat")
HUGO_3 = ("Hugo Lind", "hugo@example.org", "And the compass from the attic.\n", datetime(2024, 5, 8, 8, tzinfo=UTC),
          "Re: Boat")


def test_a_middle_message_without_its_envelope_line_is_its_own_record(tmp_path):
    middle = ("Return-Path: <ines@example.net>\nFrom: Ines Roth <ines@example.net>\nTo: Hugo Lind <hugo@example.org>\n"
              "Subject: Re: Boat\nDate: Tue, 07 May 2024 10:00:00 +0200\nMessage-ID: <b2@example.net>\n\n"
              "Great, I will bring the sails.\n\n")
    assert _read(tmp_path, FIRST + middle + LAST) == [
        HUGO_1,
        ("Ines Roth", "ines@example.net", "Great, I will bring the sails.\n", datetime(2024, 5, 7, 8, tzinfo=UTC),
         "Re: Boat"),
        HUGO_3]


def test_message_id_alone_or_two_transport_headers_are_enough(tmp_path):
    for extra in ("Message-ID: <b2@example.net>\n", "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n",
                  "Received: from mx.example.net by mx.example.org; Tue, 7 May 2024 08:00:01 +0000\n"
                  "X-Mailer: Foo 1.0\n"):
        middle = ("From: Ines Roth <ines@example.net>\nTo: Hugo Lind <hugo@example.org>\nSubject: Re: Boat\n"
                  "Date: Tue, 07 May 2024 08:00:00 +0000\n" + extra + "\nGreat, I will bring the sails.\n\n")
        got = _read(tmp_path, FIRST + middle + LAST)
        assert len(got) == 3 and got[1][:4] == ("Ines Roth", "ines@example.net", "Great, I will bring the sails.\n",
                                                datetime(2024, 5, 7, 8, tzinfo=UTC)), extra


def test_the_last_message_without_its_envelope_line(tmp_path):
    tail = ("Return-Path: <ines@example.net>\nFrom: Ines Roth <ines@example.net>\nTo: Hugo Lind <hugo@example.org>\n"
            "Subject: Re: Boat\nDate: Tue, 07 May 2024 08:00:00 +0000\nMessage-ID: <b2@example.net>\n\n"
            "Great, I will bring the sails.\n")
    got = _read(tmp_path, FIRST + tail)
    assert got == [HUGO_1, ("Ines Roth", "ines@example.net", "Great, I will bring the sails.\n",
                            datetime(2024, 5, 7, 8, tzinfo=UTC), "Re: Boat")]


def test_a_header_block_pasted_in_a_body_stays_text(tmp_path):
    pasted = [
        # Outlook's reply block: no Date, no Message-ID
        "From: Wanda Kim <wanda@example.net>\nSent: Thursday, October 12, 2023 5:00 PM\nTo: Hugo Lind\n"
        "Subject: parking\n\nCan you book me a spot?\n\n",
        # a pasted block with a Date but nothing a message's own block carries
        "From: Wanda Kim <wanda@example.net>\nDate: Thu, 12 Oct 2023 17:00:00 +0000\nTo: Hugo Lind\n"
        "Subject: parking\n\nCan you book me a spot?\n\n",
        # a whole header block under a line that introduces it
        "Here is what the server sent back:\n\nReturn-Path: <w@example.net>\nFrom: Wanda Kim <wanda@example.net>\n"
        "Date: Thu, 12 Oct 2023 17:00:00 +0000\nTo: Hugo Lind\nSubject: parking\nMessage-ID: <p1@example.net>\n\n"
        "Can you book me a spot?\n\n",
        # under a forward separator
        "---------- Forwarded message ----------\n\nFrom: Wanda Kim <wanda@example.net>\n"
        "Date: Thu, 12 Oct 2023 17:00:00 +0000\nTo: Hugo Lind\nSubject: parking\nMessage-ID: <p1@example.net>\n\n"
        "Can you book me a spot?\n\n",
    ]
    for block in pasted:
        text = FIRST.replace("pier seven.\n\n", "pier seven.\n\n" + block)
        path = tmp_path / "p.mbox"
        path.write_bytes((text + LAST).encode("utf-8"))
        items = list(MboxIngestor().read(path))
        # the quote or forward in Hugo's text may be a record of its own, tied to his (quoted_in / forwarded_in)
        mails = [r for r in items if not ({"quoted_in", "forwarded_in"} & set(r.attrs))]
        assert [(r.external_id, r.sender.name) for r in mails] == [("<b1@example.org>", "Hugo Lind"),
                                                                   ("<b3@example.org>", "Hugo Lind")], block
        assert "Can you book me a spot?" in "\n".join(r.text for r in items[:-1]), block
        assert all(r.attrs.get("quoted_in", r.attrs.get("forwarded_in")) == "<b1@example.org>"
                   for r in items if r not in mails), block


def test_a_bounce_quoting_the_returned_message_stays_one_record(tmp_path):
    bounce = ("From MAILER-DAEMON Tue May  7 08:00:00 2024\nFrom: Mail Delivery System <MAILER-DAEMON@example.org>\n"
              "To: hugo@example.org\nSubject: Undelivered Mail Returned to Sender\n"
              "Date: Tue, 07 May 2024 08:00:00 +0000\nMessage-ID: <bounce1@example.org>\n\n"
              "This is the mail system. Your message could not be delivered\n\n"
              "Return-Path: <hugo@example.org>\nFrom: Hugo Lind <hugo@example.org>\nTo: nobody@example.net\n"
              "Subject: Boat\nDate: Tue, 07 May 2024 07:59:00 +0000\nMessage-ID: <b9@example.org>\n\n"
              "The boat is ready.\n\n")
    got = _read(tmp_path, FIRST + bounce + LAST)
    assert [g[0] for g in got] == ["Hugo Lind", "Mail Delivery System", "Hugo Lind"]
    assert "The boat is ready." in got[1][2]


MULTIPART_FIRST = ("From hugo@example.org Mon May  6 08:00:00 2024\nFrom: Hugo Lind <hugo@example.org>\n"
                   "To: Ines Roth <ines@example.net>\nSubject: Boat\nDate: Mon, 06 May 2024 08:00:00 +0000\n"
                   'Message-ID: <b1@example.org>\nMIME-Version: 1.0\nContent-Type: multipart/alternative; boundary="XX"\n'
                   "\n--XX\nContent-Type: text/plain\n\nThe boat is ready at pier seven.\n--XX\nContent-Type: text/html\n"
                   "\n<p>The boat is ready at pier seven.</p>\n--XX--\n\n")
GMAIL_MIDDLE = ("X-GM-THRID: 1234\nX-Gmail-Labels: Inbox\nDelivered-To: hugo@example.org\n"
                "Received: by 10.0.0.1; Tue, 7 May 2024 08:00:01 +0000\nFrom: Ines Roth <ines@example.net>\n"
                "To: Hugo Lind <hugo@example.org>\nSubject: Re: Boat\nDate: Tue, 07 May 2024 08:00:00 +0000\n\n"
                "Great, I will bring the {}.\n\n")


def test_after_a_multipart_message_and_with_crlf_line_ends(tmp_path):
    ines = ("Ines Roth", "ines@example.net", "Great, I will bring the {}.\n", datetime(2024, 5, 7, 8, tzinfo=UTC),
            "Re: Boat")
    hugo_1 = HUGO_1[:2] + ("The boat is ready at pier seven.",) + HUGO_1[3:]
    for crlf in (False, True):
        text = MULTIPART_FIRST + GMAIL_MIDDLE.format("sails") + GMAIL_MIDDLE.format("oars") + LAST
        got = _read(tmp_path, text.replace("\n", "\r\n") if crlf else text)
        assert got == [hugo_1, ines[:2] + (ines[2].format("sails"),) + ines[3:],
                       ines[:2] + (ines[2].format("oars"),) + ines[3:], HUGO_3], crlf

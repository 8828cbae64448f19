"""Mail of the regressions' kinds (../shared/corpus/regressions/README.md) through the real ingest path, in
shapes earlier passes did not try: who a Google Groups copy is from when its list headers are gone, an unquoted
"Last, First" sender, a service's notification address, an mboxcl2 body and an MMDF mailbox found by ``ask``."""
from __future__ import annotations

from sqlmodel import select

from app.operations.ask import ask
from app.operations.ingest import ingest
from core.store.schema import Alias, Entity, Fact


def _msg(n: int, sender: str, to: str, body: str, headers: str = "") -> str:
    return (f"From x@example.org Mon Jan  {n} 09:00:00 2001\nFrom: {sender}\nTo: {to}\nSubject: Re: hike\n"
            f"Date: Mon, 0{n} Jan 2001 09:00:00 +0000\nMessage-ID: <p{n}@example.org>\n{headers}\n{body}\n\n")


def _live(s, kind: str) -> dict[str, Entity]:
    return {e.canonical_name: e for e in s.exec(select(Entity).where(Entity.kind == kind,
                                                                     Entity.tombstoned_at.is_(None))).all()}


def test_person_via_group_is_the_person_even_without_list_headers(container, tmp_path):
    """``'Bob Ray' via Hiking Club <hiking-club@googlegroups.com>`` with no List-Id (a re-exported copy): Bob is a
    person and the group a list — not one "Ann Lee via Hiking Club" thing holding everyone who wrote through it.
    Reply-To names the author's own address when it is not the list; X-Original-From too."""
    club = "hiking-club@googlegroups.com"
    path = tmp_path / "club.mbox"
    path.write_text("".join([
        _msg(1, f"Ann Lee via Hiking Club <{club}>", club, "The marmot ridge trail is closed.",
             "Reply-To: Ann Lee <ann@example.org>\n"),
        _msg(2, f"'Bob Ray' via Hiking Club <{club}>", club, "Bring crampons for the glacier."),
        _msg(3, f"Cy Dee via Hiking Club <{club}>", club, "Parking at the north lot.",
             "X-Original-From: Cy Dee <cy@example.org>\nList-Id: <hiking-club.googlegroups.com>\n"),
        _msg(4, '"Dee Fox (via Google Docs)" <comments-noreply@docs.google.com>', "me@example.com",
             "Dee Fox commented on the budget doc."),
    ]))
    r = ingest(container, [path])
    assert (r.records_added, r.errors) == (4, [])
    with container.db.session() as s:
        people, things = _live(s, "person"), _live(s, "thing")
        assert {"Ann Lee", "Bob Ray", "Cy Dee", "Dee Fox"} <= set(people)
        assert not [n for n in list(people) + list(things) if " via " in n.casefold()]
        assert [(things[n].attrs or {}).get("group") for n in things] == ["mailing_list"]
        emails = {a.normalized: a.entity_id for a in s.exec(select(Alias).where(Alias.kind == "email")).all()}
        assert emails["ann@example.org"] == people["Ann Lee"].id and emails["cy@example.org"] == people["Cy Dee"].id
        assert emails[club] == next(iter(things.values())).id
        assert "comments-noreply@docs.google.com" not in emails  # a notification address is nobody's


def test_unquoted_last_first_sender_and_an_mboxcl2_body_are_found(container, tmp_path):
    """``From: Lee, Ann <ann@…>`` is the person Ann Lee (not "Lee"); the saved letter inside her mboxcl2 body,
    envelope line and all, stays her message, and ``ask`` finds it by its words."""
    saved = ("I kept grandpa's letter:\n\nFrom grandpa@example.org Mon Jan  1 08:00:00 1960\n"
             "From: Grandpa <grandpa@example.org>\nSubject: old\n\nThe orchard at Willowmere is yours.\n")
    path = tmp_path / "cl2.mbox"
    path.write_text(
        "From ann@example.org Mon Jan  1 09:00:00 2001\nFrom: Lee, Ann <ann@example.org>\nTo: me@example.com\n"
        f"Subject: Letter\nDate: Mon, 01 Jan 2001 09:00:00 +0000\nContent-Length: {len(saved.encode())}\n\n"
        + saved + "\n")
    mmdf = tmp_path / "old.mmdf"
    mmdf.write_text("\x01\x01\x01\x01\nFrom: Eve Hart <eve@example.org>\nSubject: Lanterns\n"
                    "Date: Thu, 04 Jan 2001 09:00:00 +0000\n\nThe lantern festival in Quillby starts at dusk.\n"
                    "\x01\x01\x01\x01\n")
    r = ingest(container, [path, mmdf])
    assert (r.records_added, r.errors) == (2, [])
    with container.db.session() as s:
        people = _live(s, "person")
        assert "Ann Lee" in people and "Lee" not in people and "Grandpa" not in people
        statements = [f.statement for f in s.exec(select(Fact).where(Fact.key == "email:ann@example.org")).all()]
        assert statements == ["As of 2001-01-01, Ann Lee writes from ann@example.org."]  # not "Lee, Ann writes"
    top = ask(container, "orchard at Willowmere", k=3)
    assert top and top[0].sender == "Ann Lee" and "Willowmere" in top[0].text
    top = ask(container, "lantern festival in Quillby", k=3)
    assert top and top[0].sender == "Eve Hart"


def test_person_via_a_service_is_the_person_and_the_service_address_is_not_theirs(container, tmp_path):
    """``Jane Doe via DocuSign <dse@docusign.net>`` (and ``Bob Ray via DocuSign`` from the same address): Jane and
    Bob, each by name — the service's address is nobody's alias (it would make everyone who signs through it one
    person); Jane is the Jane who writes from her own address too."""
    path = tmp_path / "services.mbox"
    path.write_text("".join([
        _msg(1, "Jane Doe via DocuSign <dse@docusign.net>", "me@example.com", "Please sign the lease for Alder St."),
        _msg(2, "Bob Ray via DocuSign <dse@docusign.net>", "me@example.com", "Please sign the Kestrel invoice."),
        _msg(3, "Jane Doe <jane@example.org>", "me@example.com", "Did you get my lease envelope?"),
    ]))
    r = ingest(container, [path])
    assert (r.records_added, r.errors) == (3, [])
    with container.db.session() as s:
        people = _live(s, "person")
        assert {"Jane Doe", "Bob Ray"} <= set(people) and not [n for n in people if "via" in n]
        emails = {a.normalized: a.entity_id for a in s.exec(select(Alias).where(Alias.kind == "email")).all()}
        assert "dse@docusign.net" not in emails and emails["jane@example.org"] == people["Jane Doe"].id


def test_a_takeout_of_an_account_in_another_language_keeps_its_sent_and_trash_labels(container, tmp_path):
    """``X-Gmail-Labels: =?UTF-8?Q?Archiv=C3=A9s,Envoy=C3=A9?=`` (a French account) is the owner's sent mail, and
    ``Papierkorb`` (German) is Trash, left out — as ``Sent`` and ``Trash`` are."""
    path = tmp_path / "Tous les messages.mbox"
    path.write_text(
        "From 1@xxx Mon Jan 01 09:00:00 +0000 2001\nX-Gmail-Labels: =?UTF-8?Q?Archiv=C3=A9s,Envoy=C3=A9?=\n"
        + _msg(1, "Nic Owner <nic@example.com>", "Ann Lee <ann@example.org>", "On se voit au Louvre.").split("\n", 1)[1]
        + "From 2@xxx Mon Jan 02 09:00:00 +0000 2001\nX-Gmail-Labels: Papierkorb\n"
        + _msg(2, "Spam King <king@spam.example>", "nic@example.com", "You won.").split("\n", 1)[1])
    r = ingest(container, [path])
    assert (r.records_added, r.records_filtered, r.errors) == (1, 1, [])
    with container.db.session() as s:
        (me,) = s.exec(select(Entity).where(Entity.is_owner.is_(True))).all()
        assert me.canonical_name == "Nic Owner"
        assert "Spam King" not in _live(s, "person")


def test_a_bounce_is_from_a_robot_and_the_bounced_message_is_the_owners(container, tmp_path):
    """A delivery report (``multipart/report`` from ``mailer-daemon@``): "Mail Delivery Subsystem" is a thing, not
    a person; the message it returns is its writer's own record; an auto-reply from a person's own address
    (``Auto-Submitted: auto-replied``) stays that person's."""
    bounce = ('From: Mail Delivery Subsystem <mailer-daemon@googlemail.com>\nTo: nic@example.com\n'
              'Subject: Delivery Status Notification (Failure)\nDate: Mon, 01 Jan 2001 09:05:00 +0000\n'
              'Message-ID: <b1@google>\nMIME-Version: 1.0\n'
              'Content-Type: multipart/report; report-type=delivery-status; boundary="r"\n\n--r\n'
              'Content-Type: text/plain\n\nAddress not found.\n\n--r\nContent-Type: message/delivery-status\n\n'
              'Final-Recipient: rfc822; old@nowhere.example\nAction: failed\n\n--r\nContent-Type: message/rfc822\n\n'
              'From: Nic Owner <nic@example.com>\nTo: old@nowhere.example\nSubject: Reunion in Tarbert\n'
              'Date: Mon, 01 Jan 2001 09:00:00 +0000\nMessage-ID: <o1@example.com>\n\nAre you coming to Tarbert?\n\n'
              '--r--\n')
    vacation = ("From: Ann Lee <ann@example.org>\nTo: nic@example.com\nSubject: Out of office\n"
                "Date: Mon, 01 Jan 2001 10:00:00 +0000\nAuto-Submitted: auto-replied\n\nI am away until Monday.\n")
    (tmp_path / "bounce.eml").write_text(bounce)
    (tmp_path / "vacation.eml").write_text(vacation)
    r = ingest(container, [tmp_path / "bounce.eml", tmp_path / "vacation.eml"])
    assert (r.records_added, r.errors) == (3, [])
    with container.db.session() as s:
        people, things = _live(s, "person"), _live(s, "thing")
        assert "Mail Delivery Subsystem" in things and "Mail Delivery Subsystem" not in people
        assert {"Nic Owner", "Ann Lee"} <= set(people)


def test_the_sent_folder_of_a_mail_program_is_the_owners_mail(container, tmp_path):
    """Thunderbird's ``Sent`` mailbox (or Apple Mail's ``Sent Messages.mbox``): its messages are the owner's, so
    the owner is known from them, as Gmail's Sent label does; the Inbox's senders stay other people; Junk and
    Deleted Items are left out as Gmail's Spam and Trash are."""
    folder = tmp_path / "Local Folders"
    folder.mkdir()
    (folder / "Sent").write_text(
        "From - Mon Jan  1 09:00:00 2001\n"
        + _msg(1, "Nic Owner <nic@example.com>", "Ann Lee <ann@example.org>", "See you in Tarbert.").split("\n", 1)[1])
    (folder / "Inbox").write_text(
        "From - Mon Jan  2 09:00:00 2001\n"
        + _msg(2, "Ann Lee <ann@example.org>", "Nic Owner <nic@example.com>", "Yes, Tarbert!").split("\n", 1)[1])
    (folder / "Junk").write_text(
        "From - Mon Jan  3 09:00:00 2001\n"
        + _msg(3, "Prize Desk <win@prize.example>", "nic@example.com", "You won a cruise.").split("\n", 1)[1])
    (folder / "Deleted Items.mbox").write_text(
        "From - Mon Jan  4 09:00:00 2001\n"
        + _msg(4, "Old Shop <shop@old.example>", "nic@example.com", "Your order shipped.").split("\n", 1)[1])
    r = ingest(container, [folder])
    assert (r.records_added, r.records_filtered, r.errors) == (2, 2, [])  # Junk and Trash are left out, counted
    with container.db.session() as s:
        (me,) = s.exec(select(Entity).where(Entity.is_owner.is_(True))).all()
        assert me.canonical_name == "Nic Owner"
        people = _live(s, "person")
        assert not people["Ann Lee"].is_owner and "Prize Desk" not in people and "Old Shop" not in people

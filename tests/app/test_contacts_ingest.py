"""Address books through the whole import (``app.operations.ingest``): contact cards as identities (seed 002's
contact-id row), the pipeline's stages, re-imports and edits, resolution against cards, and forget.

The right values come from the cards and chats the tests write: who is on which card, which number wrote.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import select

from app.operations.ingest import ingest
from core.store.schema import Alias, Entity, Episode, Fact, MergeCandidate, QuarantineItem, Record, RecordEntity

EDGE = Path(__file__).resolve().parents[1] / "fixtures" / "contacts" / "edge_cases.vcf"


def vcard(path: Path, *cards: str) -> Path:
    """Write cards (each a block of ``NAME:value`` lines without BEGIN/END) as a vCard 3.0 file with CRLF."""
    out = []
    for c in cards:
        out += ["BEGIN:VCARD", "VERSION:3.0", *[x.strip() for x in c.strip().splitlines()], "END:VCARD"]
    path.write_bytes(("\r\n".join(out) + "\r\n").encode("utf-8"))
    return path


def whatsapp(path: Path, *lines: str) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def live(s, name: str) -> list[Entity]:
    return list(s.exec(select(Entity).where(Entity.canonical_name == name, Entity.tombstoned_at.is_(None))).all())


def aliases(s, e: Entity, kind: str | None = None) -> set[str]:
    q = select(Alias.normalized).where(Alias.entity_id == e.id)
    return set(s.exec(q.where(Alias.kind == kind) if kind else q).all())


def card_entity(s, contact_id: str) -> Entity:
    (eid,) = s.exec(select(Alias.entity_id).join(Entity, Entity.id == Alias.entity_id).where(
        Alias.kind == "contact", Alias.normalized == contact_id, Entity.tombstoned_at.is_(None))).all()
    return s.get(Entity, eid)


def sender_of(s, external_id: str) -> Entity:
    rec = s.exec(select(Record).where(Record.external_id == external_id)).one()
    return s.get(Entity, rec.sender_entity_id)


ANNA = """UID:anna-1
N:Greene;Anna;;;
FN:Anna Greene
ORG:Northwind Traders
TEL;type=CELL:+1 617 555 0101
EMAIL:anna@northwind.example
BDAY:1990-04-02"""


def test_the_edge_case_file_gives_one_entity_per_person_and_quarantines_the_broken_cards(container):
    rep = ingest(container, [EDGE])
    assert rep.records_added == 6  # cards 1, 2, 3, 5, 6, 7; card 6 repeats card 1's UID
    assert sorted(e.locator for e in rep.errors) == ["card 4 'Broken Bob' (line 35)",
                                                     "card 8 'Truncated Tina' (line 68)"]
    with container.db.session() as s:
        q = s.exec(select(QuarantineItem)).all()
        assert sorted((Path(x.path).name, x.locator) for x in q) == [
            ("edge_cases.vcf", "card 4 'Broken Bob' (line 35)"), ("edge_cases.vcf", "card 8 'Truncated Tina' (line 68)")]
        (anna,) = live(s, "Anna Greene")
        # cards 1 and 6 (one UID) are one contact: every phone, email and nickname of both, E.164
        assert aliases(s, anna, "phone") == {"+16175550101", "+16175550199", "+16175550177"}
        assert aliases(s, anna, "email") == {"anna.greene@northwind.example", "anna.greene.private@example.org"}
        assert aliases(s, anna, "nickname") == {"annie", "nan"}
        assert aliases(s, anna, "handle") == {"telegram:annagreene"}
        assert aliases(s, anna, "contact") == {"2f1a6b3c-0d4e-4f5a-8b9c-anna00000001"}
        assert all(a.card == "2f1a6b3c-0d4e-4f5a-8b9c-anna00000001"
                   for a in s.exec(select(Alias).where(Alias.entity_id == anna.id)).all())
        (jurgen,) = live(s, "Jürgen Müller")
        assert aliases(s, jurgen, "phone") == {"+4915123456789", "+49301234567"}
        (only,) = live(s, "(415) 555-0142")
        assert aliases(s, only, "phone") == {"+14155550142"}
        (clinic,) = live(s, "City Dental Clinic")
        assert clinic.kind == "thing"
        assert {e.canonical_name for e in s.exec(select(Entity).where(Entity.tombstoned_at.is_(None))).all()} == {
            "Anna Greene", "Jürgen Müller", "(415) 555-0142", "Carlos Lima", "City Dental Clinic"}
        # work and birthday are facts, "as of" the card's REV; the card says them, not the text
        facts = {(f.key, f.value) for f in s.exec(select(Fact).where(Fact.subject_entity_id == anna.id,
                                                                     Fact.superseded_by.is_(None))).all()}
        assert facts == {("employer", "Northwind Traders"), ("title", "Account Manager"),
                         ("department", "Sales"), ("birthday", "--04-02")}
        emp = s.exec(select(Fact).where(Fact.subject_entity_id == anna.id, Fact.key == "employer")).one()
        assert emp.statement == "As of 2023-05-14, Anna Greene works at Northwind Traders."
        # every stage: vectors written, episodes signed, no conversation for the ledger
        recs = s.exec(select(Record).where(Record.kind == "contact")).all()
        assert len(recs) == 6 and all(r.pending == 0 for r in recs)
        eps = s.exec(select(Episode).where(Episode.record_id.in_([r.id for r in recs]))).all()
        assert len(eps) == 6 and all(e.signature_row is not None for e in eps)
        links = s.exec(select(RecordEntity).where(RecordEntity.record_id.in_([r.id for r in recs]))).all()
        assert {(x.role, x.signal) for x in links} == {("from", "contact")}
    with container.db.session() as s:  # the ledger learnt no conversation from a card
        assert s.connection().exec_driver_sql("SELECT count(*) FROM message").scalar() == 0
    from core.store.search import bm25

    with container.db.session() as s:  # full-text search finds the card by its note and by its nickname
        (walnuts,) = bm25(s.connection(), "walnuts")
        (annie,) = bm25(s.connection(), "Annie")
        card1 = s.exec(select(Record).where(Record.kind == "contact").order_by(Record.id)).first()
        assert walnuts[0] == annie[0] == card1.id


def test_reimport_adds_nothing_and_an_edited_card_adds_without_losing(container, tmp_path):
    first = vcard(tmp_path / "v1.vcf", ANNA)
    assert ingest(container, [first]).records_added == 1
    with container.db.session() as s:
        before = s.connection().exec_driver_sql("SELECT count(*) FROM alias").scalar()
    again = ingest(container, [first])
    assert (again.records_added, again.records_skipped) == (0, 1)
    with container.db.session() as s:
        assert s.connection().exec_driver_sql("SELECT count(*) FROM alias").scalar() == before
    edited = vcard(tmp_path / "v2.vcf", """UID:anna-1
        N:Greene;Anna;;;
        FN:Anna Greene-Lee
        ORG:Contoso
        TEL;type=CELL:+1 617 555 0177
        EMAIL:anna@contoso.example
        REV:2024-02-01T10:00:00Z""")
    assert ingest(container, [edited]).records_added == 1
    with container.db.session() as s:
        (anna,) = live(s, "Anna Greene-Lee")  # the card's new name; the old one stays an alias
        assert aliases(s, anna, "name") == {"anna greene", "anna greene-lee"}
        assert aliases(s, anna, "phone") == {"+16175550101", "+16175550177"}
        assert aliases(s, anna, "email") == {"anna@northwind.example", "anna@contoso.example"}
        emp = s.exec(select(Fact).where(Fact.subject_entity_id == anna.id, Fact.key == "employer")
                     .order_by(Fact.id)).all()
        assert [(f.value, f.superseded_by is None) for f in emp] == [("Northwind Traders", False), ("Contoso", True)]
        assert emp[1].statement == "As of 2024-02-01, Anna Greene-Lee works at Contoso."


@pytest.mark.parametrize("card_first", [False, True])
def test_a_number_only_chat_sender_becomes_the_named_contact(container, tmp_path, card_first):
    chat = whatsapp(tmp_path / "WhatsApp Chat with +1 617-555-0101.txt",
                    "12/05/2023, 10:01 - +1 617-555-0101: New phone, it's me",
                    "12/05/2023, 10:02 - +1 617-555-0101: Lunch on Friday?")
    book = vcard(tmp_path / "contacts.vcf", ANNA)
    for paths in ([book], [chat]) if card_first else ([chat], [book]):
        assert not ingest(container, paths).errors
    with container.db.session() as s:
        (anna,) = live(s, "Anna Greene")
        assert sender_of(s, "line 1").id == sender_of(s, "line 2").id == anna.id
        assert live(s, "+1 617-555-0101") == []
        link = s.exec(select(RecordEntity).join(Record, Record.id == RecordEntity.record_id)
                      .where(Record.external_id == "line 1", RecordEntity.role == "from")).one()
        if card_first:  # the number is on the card: the decision is kept on the link
            assert (link.signal, s.get(Alias, link.alias_id).normalized) == ("contact", "+16175550101")
        else:  # the number came first, the card joined it: a merge kept, undoable
            mc = s.exec(select(MergeCandidate).where(MergeCandidate.status == "merged")).one()
            assert (mc.signal, mc.threshold, mc.decided_by) == ("contact", "definitive", "kith")
            assert mc.reason == "+1 617 555 0101 is on the contact card of Anna Greene"
            assert not mc.detail["hold"]
    from app.operations.review import why_one

    why = why_one(container, anna.id)  # the "why is this one person" panel
    assert ("phone", "+16175550101") in {(a.kind, a.value.replace(" ", "").replace("-", "")) for a in why.aliases}
    assert all("on contact card anna-1" in a.how for a in why.aliases)
    assert {(x.signal, x.count) for x in why.links} >= {("contact", 1)}
    if not card_first:
        assert [(d.signal, d.status, d.actions) for d in why.decisions] == [("contact", "merged", ["confirm", "unmerge"])]
        from app.operations.review import undo_merge

        undo_merge(container, mc.id)
        with container.db.session() as s:
            assert sender_of(s, "line 1").canonical_name == "+1 617-555-0101"


def test_chat_names_from_the_address_book_join_the_card_that_shows_them(container, tmp_path):
    book = vcard(tmp_path / "contacts.vcf",
                 "UID:a\nN:;Alex;;;\nFN:Alex\nTEL:+1 206 555 0101",               # saved as just "Alex"
                 "UID:s\nN:Simpson;Sam;;;\nFN:Sam Simpson (home)\nTEL:+1 206 555 0102")
    chat = whatsapp(tmp_path / "WhatsApp Chat with Group.txt",
                    "12/05/2023, 10:01 - Alex: hi",                 # WhatsApp shows the card's FN
                    "12/05/2023, 10:02 - Sam Simpson (home): hello",
                    "12/05/2023, 10:03 - Sam Simpson: another Sam Simpson: the card shows 'Sam Simpson (home)'")
    mail = tmp_path / "alex.eml"
    mail.write_text("From: Alex <alex@elsewhere.example>\nTo: me@example.net\nSubject: hi\n"
                    "Date: Fri, 12 May 2023 09:00:00 +0000\nMessage-ID: <m1@x>\n\nhello\n")
    assert not ingest(container, [book, chat, mail]).errors
    with container.db.session() as s:
        alex = card_entity(s, "a")  # the card; the mail's Alex is someone else until the person says so
        assert sender_of(s, "line 1").id == alex.id
        link = s.exec(select(RecordEntity).join(Record, Record.id == RecordEntity.record_id)
                      .where(Record.external_id == "line 1", RecordEntity.role == "from")).one()
        assert link.signal == "contact"
        assert sender_of(s, "<m1@x>").id != alex.id
        sam = card_entity(s, "s")
        assert sender_of(s, "line 2").id == sam.id
        assert sender_of(s, "line 3").id != sam.id


def test_two_cards_are_never_merged_by_name_and_a_shared_number_is_a_suggestion(container, tmp_path):
    book = vcard(tmp_path / "contacts.vcf",
                 "UID:k1\nN:Kim;Alex;;;\nFN:Alex Kim\nTEL:+1 206 555 0111\nEMAIL:alex.kim@a.example",
                 "UID:k2\nN:Kim;Alex;;;\nFN:Alex Kim\nTEL:+1 206 555 0122",
                 "UID:h1\nN:Haddad;Omar;;;\nFN:Omar Haddad\nTEL:+1 206 555 0199",
                 "UID:h2\nN:Haddad;Lena;;;\nFN:Lena Haddad\nTEL:+1 206 555 0199")  # one home number
    mail = tmp_path / "kim.eml"
    mail.write_text("From: Alex Kim <alex@third.example>\nTo: me@example.net\nSubject: hi\n"
                    "Date: Fri, 12 May 2023 09:00:00 +0000\nMessage-ID: <k@x>\n\nhello\n")
    assert not ingest(container, [book, mail]).errors
    with container.db.session() as s:
        kims = live(s, "Alex Kim")
        assert len(kims) == 3  # two cards and the sender nobody can tell apart by name
        assert sender_of(s, "<k@x>").id not in {k.id for k in kims[:2]}
        (omar,), (lena,) = live(s, "Omar Haddad"), live(s, "Lena Haddad")
        pending = {(mc.signal, frozenset((mc.a_id, mc.b_id))) for mc in
                   s.exec(select(MergeCandidate).where(MergeCandidate.status == "pending")).all()}
        assert ("contact", frozenset((omar.id, lena.id))) in pending
        assert ("card_name", frozenset((kims[0].id, sender_of(s, "<k@x>").id))) in pending
        assert not s.exec(select(MergeCandidate).where(MergeCandidate.status == "merged")).all()


def test_forget_the_person_takes_the_card_forget_the_file_leaves_the_chat(container, tmp_path):
    from app.operations.forget import forget, restore

    chat = whatsapp(tmp_path / "WhatsApp Chat with +1 617-555-0101.txt",
                    "12/05/2023, 10:01 - +1 617-555-0101: New phone, it's me")
    book = vcard(tmp_path / "contacts.vcf", ANNA)
    assert not ingest(container, [chat]).errors and not ingest(container, [book]).errors
    rep = forget(container, _source(book))
    with container.db.session() as s:
        e = sender_of(s, "line 1")
        assert e.tombstoned_at is None and e.canonical_name == "+1 617-555-0101"  # the card's name went with it
        assert aliases(s, e) == {"+16175550101"}  # the chat used the number: it stays, unmarked
        assert s.exec(select(Alias).where(Alias.entity_id == e.id)).one().card is None
        assert not s.exec(select(Fact).where(Fact.subject_entity_id == e.id, Fact.key == "birthday",
                                             Fact.tombstoned_at.is_(None))).all()
        assert s.exec(select(Record).where(Record.kind == "contact")).one().tombstoned_at is not None
    restore(container, rep.forget_id)
    with container.db.session() as s:
        e = sender_of(s, "line 1")
        assert e.canonical_name == "Anna Greene"
        assert aliases(s, e) == {"+16175550101", "anna greene", "anna@northwind.example", "anna-1"}
    forget(container, "Anna Greene")
    with container.db.session() as s:
        assert s.exec(select(Record).where(Record.kind == "contact")).one().tombstoned_at is not None
        assert s.exec(select(Record).where(Record.external_id == "line 1")).one().tombstoned_at is not None
        assert not s.exec(select(Alias).join(Entity, Entity.id == Alias.entity_id)
                          .where(Entity.tombstoned_at.is_(None), Alias.card.is_not(None))).all()


def _source(path: Path):
    from core.store.forgetting import Target

    return Target.source(str(path.resolve()))

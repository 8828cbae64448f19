"""vCard address books (``ingestors/contacts.py``) on a hand-written file of edge cases
(``tests/fixtures/contacts/edge_cases.vcf``) and small files the tests write.  The right values are read off
the file by eye: what each card says, and where the two broken ones are."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from core.errors import InputError
from ingestors.base import Record, RecordError
from ingestors.contacts import VCardIngestor, parse_birthday, split_cards
from ingestors.registry import ingestor_for

EDGE = Path(__file__).resolve().parents[1] / "fixtures" / "contacts" / "edge_cases.vcf"
ANNA_UID = "2F1A6B3C-0D4E-4F5A-8B9C-ANNA00000001"


@pytest.fixture(scope="module")
def items():
    return list(VCardIngestor().read(EDGE))


def cards(items) -> list[dict]:
    return [x.attrs["card"] for x in items if isinstance(x, Record)]


def test_each_good_card_is_a_contact_record_and_each_broken_one_an_error_naming_file_and_card(items):
    assert [type(x).__name__ for x in items] == ["Record"] * 3 + ["RecordError"] + ["Record"] * 3 + ["RecordError"]
    broken, truncated = [x for x in items if isinstance(x, RecordError)]
    assert broken.path == str(EDGE) and broken.locator == "card 4 'Broken Bob' (line 35)"
    assert broken.reason.startswith("edge_cases.vcf, card 4 'Broken Bob' (line 35): cannot be read: line 39: ")
    assert "THIS LINE HAS NO COLON" in broken.reason
    assert truncated.locator == "card 8 'Truncated Tina' (line 68)"
    assert "no END:VCARD (the file ends inside this card)" in truncated.reason
    records = [x for x in items if isinstance(x, Record)]
    assert {r.kind for r in records} == {"contact"}
    assert all(r.sender is None and not r.recipients and r.thread is None for r in records)  # no conversation
    assert [c["card_number"] for c in cards(items)] == [1, 2, 3, 5, 6, 7]


def test_iphone_card_folded_lines_groups_several_tel_and_email_nicknames_and_birthday_without_year(items):
    anna = cards(items)[0]
    assert anna["contact_id"] == ANNA_UID and anna["kind"] == "person"
    assert anna["name"] == "Anna Greene" and anna["names"] == ["Anna Greene"]
    assert anna["nicknames"] == ["Annie", "Nan"]  # one NICKNAME line, two values
    assert [p["value"] for p in anna["phones"]] == ["+1 (617) 555-0101", "617-555-0199"]
    assert [p["types"] for p in anna["phones"]] == [["cell"], ["home"]]
    # the second address was folded over two lines; the first takes its type from item1.X-ABLabel
    assert [(e["value"], e["types"]) for e in anna["emails"]] == [
        ("anna.greene@northwind.example", ["work"]), ("anna.greene.private@example.org", ["home"])]
    assert (anna["org"], anna["department"], anna["title"]) == ("Northwind Traders", "Sales", "Account Manager")
    assert anna["birthday"] == "--04-02"  # BDAY;X-APPLE-OMIT-YEAR=1604:1604-04-02
    assert anna["handles"] == [{"service": "telegram", "value": "annagreene"}]
    assert anna["note"] == "Met at the Lisbon conference, 2019. Likes walnuts."
    assert anna["rev"] == anna["as_of"] == "2023-05-14T09:30:00+00:00"
    rec = next(x for x in items if isinstance(x, Record))
    assert rec.external_id == f"card {ANNA_UID}" and rec.subject is None
    assert rec.sent_at.isoformat() == "2023-05-14T09:30:00+00:00"
    assert rec.text.splitlines() == [
        "Contact card: Anna Greene (Annie, Nan).", "Works at Northwind Traders (Sales) as Account Manager.",
        "Birthday: 2 April.", "Mobile: +1 (617) 555-0101.", "Home: 617-555-0199.",
        "Email: anna.greene@northwind.example (work), anna.greene.private@example.org (home).",
        "Telegram: annagreene.", "Note: Met at the Lisbon conference, 2019. Likes walnuts."]


def test_android_quoted_printable_with_a_soft_line_break_and_no_uid(items):
    j = cards(items)[1]
    assert j["version"] == "2.1" and j["uid"] is None
    assert j["name"] == "Jürgen Müller" and j["names"] == ["Jürgen Müller"]
    assert j["note"] == "Kennt Anna aus München, Nachbar seit 2015"  # "=" at the line end joined the next line
    assert [(p["value"], p["types"]) for p in j["phones"]] == [("+49 151 23456789", ["cell"]),
                                                               ("+49 30 1234567", ["work"])]
    # no UID: a stable id from its names and identifiers (sorted, case-folded, "\x1f"-joined)
    parts = ["jürgen müller", "+4930" + "1234567", "+4915123456789", "juergen.mueller@example.de"]
    parts = sorted(parts[:1]) + sorted(parts[1:3]) + parts[3:]
    assert j["contact_id"] == "vcard:" + hashlib.sha1("\x1f".join(parts).encode()).hexdigest()[:16]
    assert j["rev"] is None and j["as_of"]  # no REV: facts are as of the file's time; the record has no time
    assert [x for x in items if isinstance(x, Record)][1].sent_at is None


def test_a_card_with_only_a_phone_number(items):
    only = cards(items)[2]
    assert (only["name"], only["names"], only["emails"]) == ("", [], [])
    assert only["phones"] == [{"value": "(415) 555-0142", "types": ["cell"]}]
    assert only["contact_id"].startswith("vcard:")


def test_vcard4_tel_uri_month_day_birthday_and_impp(items):
    carlos = cards(items)[3]
    assert carlos["contact_id"] == "urn:uuid:4fbe8971-0bc3-424c-9c26-36c3e1eff6b1"
    assert carlos["phones"] == [{"value": "+44-7700-900123", "types": ["cell"]}]  # "tel:" dropped
    assert carlos["birthday"] == "--11-05"  # BDAY:--1105
    assert carlos["handles"] == [{"service": "xmpp", "value": "carlos@jabber.example"}]


def test_a_repeated_uid_is_the_same_contact_when_the_cards_share_a_name_or_an_identifier(items, tmp_path):
    copy = cards(items)[4]
    assert copy["contact_id"] == ANNA_UID and copy["phones"][0]["value"] == "+1 617 555 0177"
    rec = [x for x in items if isinstance(x, Record)][4]
    assert rec.notes == [f"UID {ANNA_UID} also names card 1 of this file: read as the same contact"]
    # a broken exporter gives one UID to two strangers: the second is another contact
    f = tmp_path / "same_uid.vcf"
    f.write_text("BEGIN:VCARD\nVERSION:3.0\nUID:1\nFN:Ann Lee\nTEL:+1 206 555 0101\nEND:VCARD\n"
                 "BEGIN:VCARD\nVERSION:3.0\nUID:1\nFN:Omar Haddad\nTEL:+1 206 555 0102\nEND:VCARD\n")
    a, b = VCardIngestor().read(f)
    assert (a.attrs["card"]["contact_id"], b.attrs["card"]["contact_id"]) == ("1", "1#2")
    assert "shares no name, phone or email" in b.notes[0]


def test_an_organisation_card(items):
    clinic = cards(items)[5]
    assert clinic["kind"] == "organisation" and clinic["name"] == "City Dental Clinic"


def test_birthdays_in_every_form_and_not_a_date():
    assert parse_birthday("1990-04-02") == parse_birthday("19900402") == "1990-04-02"
    assert parse_birthday("1990-04-02T00:00:00Z") == "1990-04-02"
    assert parse_birthday("--0229") == "--02-29" and parse_birthday("--02-29") == "--02-29"
    assert parse_birthday("1604-12-24", {"X-APPLE-OMIT-YEAR": ["1604"]}) == "--12-24"
    assert parse_birthday("1991-02-29") is None and parse_birthday("soon") is None


def test_cards_are_split_by_hand_so_nested_and_unclosed_cards_are_counted():
    text = ("junk before\nBEGIN:VCARD\nFN:A\nEND:VCARD\nBEGIN:VCARD\nFN:B\nBEGIN:VCARD\nFN:C\nEND:VCARD\n")
    got = list(split_cards(text))
    assert [(n, start, problem) for n, start, _, problem in got] == [
        (1, 2, ""), (2, 5, "no END:VCARD before the next card (line 7)"),
        (3, 7, "")]


def test_sniffing_and_whole_file_errors(tmp_path):
    bare = tmp_path / "contacts-export"  # no suffix: sniffed
    bare.write_bytes("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ann Lee\r\nEND:VCARD\r\n".encode("utf-16"))
    assert ingestor_for(bare).name == "vcard"
    (rec,) = VCardIngestor().read(bare)  # UTF-16 with a byte-order mark
    assert rec.attrs["card"]["name"] == "Ann Lee"
    assert ingestor_for(EDGE).name == "vcard"
    empty = tmp_path / "empty.vcf"
    empty.write_text("just text\n")
    with pytest.raises(InputError, match="no contact cards in this file"):
        list(VCardIngestor().read(empty))
    group = tmp_path / "group.vcf"
    group.write_text("BEGIN:VCARD\nVERSION:4.0\nKIND:group\nFN:Family\nMEMBER:urn:uuid:1\nEND:VCARD\n")
    (err,) = VCardIngestor().read(group)
    assert isinstance(err, RecordError) and "a contact group" in err.reason


def test_reading_the_same_file_twice_gives_the_same_records(items):
    again = [x for x in VCardIngestor().read(EDGE) if isinstance(x, Record)]
    assert [r.content_hash for r in again] == [r.content_hash for r in items if isinstance(r, Record)]

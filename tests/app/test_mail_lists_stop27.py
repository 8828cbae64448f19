"""Mail through the real ingest path (rt3 red team, stop 27): a mailing list's rewritten From is its author's, never a
"writes from" fact of the list's address; an attached text file is found by ``ask`` and states nothing about its
sender; a mailbox cut short is reported."""
from __future__ import annotations

from sqlmodel import select

from app.operations.ask import ask
from app.operations.ingest import ingest
from core.store.schema import Alias, Entity, Fact

GROUP = "hikers@googlegroups.com"


def _msg(n: int, sender: str, body: str, headers: str = "", to: str = f"Hikers <{GROUP}>") -> str:
    return (f"From {GROUP} Mon May  {n} 08:00:00 2021\nFrom: {sender}\nTo: {to}\nSubject: [Hikers] route\n"
            f"Date: Mon, {n} May 2021 10:00:00 +0200\nMessage-ID: <g{n}@example.org>\n{headers}\n{body}\n\n")


def _facts(s) -> list[tuple[str, str, str]]:
    rows = s.exec(select(Fact, Entity).where(Fact.subject_entity_id == Entity.id, Fact.superseded_by.is_(None))).all()
    return sorted((e.canonical_name, f.key, f.statement) for f, e in rows)


def test_a_list_rewritten_from_is_the_authors_and_the_list_a_group(container, tmp_path):
    path = tmp_path / "hikers.mbox"
    path.write_text("".join([
        _msg(3, f"\"'Ann Lee' via Hikers\" <{GROUP}>", "I work at Pinecone Labs. Let's take the ridge route.",
             "Reply-To: Ann Lee <ann.lee@example.org>\nX-Original-Sender: ann.lee@example.org\n"
             "List-Id: <hikers.googlegroups.com>\n"),
        _msg(4, f"\"'Bob Stone' via Hikers\" <{GROUP}>", "Valley route is safer.",  # X-Original-Sender alone
             "X-Original-Sender: bob.stone@example.net\nList-Id: <hikers.googlegroups.com>\n"),
        _msg(5, f"\"'Cy Dee' via Hikers\" <{GROUP}>", "I will bring the map.",  # no address of the author's at all
             f"Reply-To: Hikers <{GROUP}>\nList-Id: <hikers.googlegroups.com>\n"),
        _msg(6, f"Dee Fox via Hikers <{GROUP}>", "Parking at the north lot.",  # no list headers (a re-exported copy)
             "X-Original-From: \"Dee Fox\" <dee@example.org>\n"),
    ]))
    r = ingest(container, [path])
    assert (r.records_added, r.errors) == (4, [])
    with container.db.session() as s:
        live = s.exec(select(Entity).where(Entity.tombstoned_at.is_(None))).all()
        people = {e.canonical_name: e for e in live if e.kind == "person"}
        groups = [e for e in live if e.kind == "thing" and (e.attrs or {}).get("group") == "mailing_list"]
        assert set(people) == {"Ann Lee", "Bob Stone", "Cy Dee", "Dee Fox"}
        emails = {a.normalized: a.entity_id for a in s.exec(select(Alias).where(Alias.kind == "email")).all()}
        assert [g.id for g in groups] == [emails[GROUP]]
        assert emails["ann.lee@example.org"] == people["Ann Lee"].id
        assert emails["bob.stone@example.net"] == people["Bob Stone"].id
        assert emails["dee@example.org"] == people["Dee Fox"].id
        writes = [(who, st) for who, key, st in _facts(s) if key.startswith("email:")]
        assert writes == [
            ("Ann Lee", "As of 2021-05-03, Ann Lee writes from ann.lee@example.org."),
            ("Bob Stone", "As of 2021-05-04, Bob Stone writes from bob.stone@example.net."),
            ("Dee Fox", "As of 2021-05-06, Dee Fox writes from dee@example.org.")]  # none for Cy: no address
        assert not [st for _w, _k, st in _facts(s) if "via" in st or GROUP in st]
        assert ("Ann Lee", "employer", "As of 2021-05-03, Ann Lee works at Pinecone Labs.") in _facts(s)


def test_an_attached_text_file_is_found_and_states_nothing_about_its_sender(container, tmp_path):
    path = tmp_path / "files.mbox"
    path.write_text(
        "From xia@example.com Wed May  5 12:00:00 2021\nFrom: Xia Wen <xia@example.com>\nTo: me@example.com\n"
        "Subject: attachment\nDate: Wed, 5 May 2021 14:00:00 +0000\nMessage-ID: <g7@example.com>\nMIME-Version: 1.0\n"
        "Content-Type: multipart/mixed; boundary=\"B1\"\n\n--B1\nContent-Type: text/plain; charset=utf-8\n\n"
        "Notes attached.\n\n--B1\nContent-Type: text/plain; charset=utf-8; name=\"notes.txt\"\n"
        "Content-Disposition: attachment; filename=\"notes.txt\"\n\n"
        "Packing list: tent, stove, the Juniper map. I work at Zephyr Corp.\n--B1--\n")
    r = ingest(container, [path])
    assert (r.records_added, r.errors) == (2, [])
    top = ask(container, "Juniper map packing list", k=3)
    assert top and "Juniper map" in top[0].text and top[0].sender in (None, "")
    with container.db.session() as s:
        assert not [f for f in _facts(s) if "Zephyr" in f[2]]  # the file's "I" is nobody's: no job for Xia


def test_a_mailbox_cut_short_is_an_error_of_the_import_and_keeps_its_messages(container, tmp_path):
    path = tmp_path / "cut.mbox"
    path.write_text(
        "From ann@example.org Mon May  3 08:00:00 2021\nFrom: Ann Body <ann@example.org>\nSubject: one\n"
        "Date: Mon, 3 May 2021 10:00:00 +0200\nMessage-ID: <f1@example.org>\n\nThe first one is whole.\n\n"
        "From cyd@example.org Mon May  3 09:00:00 2021\nFrom: Cyd Nora <cyd@example.org>\nSubject: two\n"
        "Date: Mon, 3 May 2021 11:00:00 +0200\nMessage-ID: <f2@example.org>\n\nWe meet at the Amber Kiln at no")
    r = ingest(container, [path])
    assert r.records_added == 2
    assert [(e.path, e.locator) for e in r.errors] == [(str(path), "message 2")]
    assert "ends in the middle of this message (from Cyd Nora" in r.errors[0].reason
    top = ask(container, "Amber Kiln", k=3)
    assert top and top[0].sender == "Cyd Nora" and "Amber Kiln at no" in top[0].text

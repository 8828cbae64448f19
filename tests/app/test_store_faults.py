"""Faults a hostile user can cause in a data folder, each with the values the stores must hold afterwards:
a ``forget --purge`` killed before its purge, episode-lexicon rows deleted by hand, a damaged SQLite page,
and a full disk while importing."""
from __future__ import annotations

import sqlite3

import pytest
from sqlmodel import select

import app.operations.forget as forget_ops
from app.operations.doctor import diagnose, repair
from app.operations.forget import forget, list_forgotten, resume_pending
from app.operations.ingest import ingest
from core.store.forgetting import ForgetOp
from core.store.schema import Entity, Record
from helpers.mboxes import KITCHEN, write_mbox

ME = "Owner Person <owner@example.net>"


@pytest.fixture
def mail(tmp_path, container):
    """kitchen.mbox: Alice ×2, Bob, and the owner's own line naming Alice (4 records, 3 senders)."""
    container.settings.owner_emails = ["owner@example.net"]
    container.settings.owner_name = "Owner Person"
    a = write_mbox(tmp_path / "kitchen.mbox", KITCHEN)
    rep = ingest(container, [a])
    assert rep.records_added == 4 and not rep.errors
    return a


def test_forget_purge_killed_before_its_purge_is_purged_by_resume(container, mail, monkeypatch):
    """`kith forget X --purge` killed after the hide committed but before the purge ran: the erasure the user
    asked for is still owed.  The doctor counts it as pending and resume_pending (doctor --repair, the window
    at start-up) purges it; it is never left as a restorable hide."""
    def killed(*_a, **_k):
        raise KeyboardInterrupt  # the process dies here: nothing after the hide runs
    monkeypatch.setattr(forget_ops, "purge_ops", killed)
    with pytest.raises(KeyboardInterrupt):
        forget(container, "Alice Example", purge=True)
    monkeypatch.undo()
    with container.db.session() as s:
        op = s.exec(select(ForgetOp)).one()
        assert op.state == "hidden"
        assert len(s.exec(select(Record)).all()) == 4  # hidden, not yet erased
    assert diagnose(container).pending["forgets"] == 1

    assert resume_pending(container) == [op.id]
    with container.db.session() as s:
        assert s.get(ForgetOp, op.id).state == "purged"
        assert len(s.exec(select(Record)).all()) == 2  # Alice's two mails erased; Bob's and the owner's stay
        assert not s.exec(select(Entity).where(Entity.canonical_name == "Alice Example")).all()
    assert list_forgotten(container) == []  # nothing restorable: the purge was asked for
    assert diagnose(container).pending["forgets"] == 0
    data = (container.settings.home / "kith.sqlite3").read_bytes()
    assert b"alice@example.com" not in data and b"Sourdough" not in data


def _lex_rows(container) -> dict[int, tuple]:
    con = sqlite3.connect(container.settings.home / "kith.sqlite3")
    try:
        return {r[0]: r[1:] for r in con.execute("SELECT rowid, own, sent, near1, near2, near3 FROM episode_lex")}
    finally:
        con.close()


def test_doctor_finds_and_rewrites_deleted_episode_lexicon_rows(container, mail):
    """Rows deleted from the lexicon's FTS5 table by hand (its ``lexdoc`` documents left whole) and a row planted
    without a document: the doctor names both, and the repair puts back exactly the rows the import wrote."""
    before = _lex_rows(container)
    assert len(before) == 4  # one row per record's episode
    gone = sorted(before)[1:3]
    con = sqlite3.connect(container.settings.home / "kith.sqlite3")
    con.execute(f"DELETE FROM episode_lex WHERE rowid IN ({gone[0]}, {gone[1]})")
    con.execute("INSERT INTO episode_lex(rowid, own) VALUES (9999, 'ghost words')")
    con.commit()
    con.close()
    lex = {ch.name: ch for ch in diagnose(container).checks}["lexicon"]
    assert lex.problems["lexicon_fts_rows_missing"] == 2 and lex.samples["lexicon_fts_rows_missing"] == gone
    assert lex.problems["lexicon_fts_rows_without_document"] == 1
    rep = repair(container)
    assert rep.ok, rep.describe()
    assert rep.repaired["lexicon_fts_rows_dropped"] == 1 and rep.repaired["lexicon_fts_rows_rewritten"] >= 2
    assert _lex_rows(container) == before


def _pages(db, table: str) -> tuple[list[int], int]:
    con = sqlite3.connect(db)
    try:
        return [r[0] for r in con.execute("SELECT pageno FROM dbstat WHERE name = ?", (table,))], \
            con.execute("PRAGMA page_size").fetchone()[0]
    finally:
        con.close()


def _settle(container) -> None:
    """The WAL checkpointed into the file and the container's connections let go: the bytes a test patches next
    are the database's, and a container opened afterwards reads them."""
    container.db.engine.dispose()
    con = sqlite3.connect(container.settings.home / "kith.sqlite3")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()


def _reopen(container):
    from app.container import Container

    _settle(container)
    return Container()


def test_doctor_rebuilds_an_index_out_of_step_with_its_table(container, mail):
    """A record's content hash changed in its table page only (a flipped byte): SQLite's integrity check finds
    the row missing from the unique index; the doctor says so and ``--repair`` rebuilds the index, keeping
    every row."""
    db = container.settings.home / "kith.sqlite3"
    with container.db.session() as s:
        rec = s.exec(select(Record).order_by(Record.id)).first()
    _settle(container)
    pages, size = _pages(db, "record")
    data = bytearray(db.read_bytes())
    at = next(i for p in pages if (i := data.find(rec.content_hash.encode(), (p - 1) * size, p * size)) >= 0)
    data[at] = ord("0") if data[at] != ord("0") else ord("1")
    db.write_bytes(bytes(data))
    c = _reopen(container)
    try:
        sq = {ch.name: ch for ch in diagnose(c).checks}["sqlite"]
        assert sq.problems["integrity_check"] == 1 and "missing from index" in sq.message
        rep = repair(c)
        assert rep.ok, rep.describe()
        assert rep.repaired["sqlite_indexes_rebuilt"] == 1
        with c.db.session() as s:
            assert len(s.exec(select(Record)).all()) == 4
    finally:
        c.close()


def test_doctor_reports_a_damaged_table_page_and_changes_nothing(container, mail):
    """Garbage over the record table's page: the doctor reports the damage (no traceback) and ``--repair``
    changes no other store (repairing them from an unreadable database would drop their vectors and rows)."""
    from app.operations.doctor import DAMAGED
    from core.store.collections import RECORDS

    home = container.settings.home
    _settle(container)
    db = home / "kith.sqlite3"
    pages, size = _pages(db, "record")
    data = bytearray(db.read_bytes())
    start = (pages[-1] - 1) * size + 8  # past the page header: the cell pointers and cells become garbage
    data[start:start + 512] = b"\xde\xad\xbe\xef" * 128
    db.write_bytes(bytes(data))
    sigs = (home / "memory" / "signatures.dat").read_bytes()
    c = _reopen(container)
    try:
        found = diagnose(c)
        assert DAMAGED in found.errors and not found.ok
        assert {ch.name: ch for ch in found.checks}["sqlite"].problems["integrity_check"] >= 1
        rep = repair(c)
        assert not rep.ok and DAMAGED in rep.errors and not rep.repaired
        assert len(c.vectors.ids(RECORDS)) == 4
        assert (home / "memory" / "signatures.dat").read_bytes() == sigs
    finally:
        c.close()


def test_a_full_disk_is_one_clear_line_not_a_traceback():
    """What SQLite and the files raise when the disk is full or the folder cannot be written (as SQLAlchemy wraps
    it) becomes one line saying so and that nothing stored is lost; any other error is not taken for it."""
    import errno

    from sqlalchemy.exc import OperationalError

    from app.cli import store_write_failure

    wrapped = OperationalError("COMMIT", {}, sqlite3.OperationalError("disk I/O error"))
    msg = store_write_failure(wrapped)
    assert msg.startswith("cannot write to the data folder (disk I/O error)") and "doctor --repair" in msg
    assert "database or disk is full" in store_write_failure(sqlite3.OperationalError("database or disk is full"))
    try:
        raise RuntimeError("a batch could not be stored") from OSError(errno.ENOSPC, "No space left on device")
    except RuntimeError as exc:
        assert "(No space left on device)" in store_write_failure(exc)
    assert store_write_failure(ValueError("bad input")) is None
    assert store_write_failure(sqlite3.OperationalError("no such table: record")) is None


def test_doctor_resplits_a_lexicon_written_before_unspaced_scripts_were_split_in_pairs(container, tmp_path):
    """Stop 23 indexes Chinese, Japanese, Thai … as overlapping character pairs (a word asked is found inside the
    sentence). A lexicon written before kept each run whole, so "外滩" asked today matched nothing there: the
    doctor names such a lexicon and the repair writes every document again, split as today."""
    chat = tmp_path / "WhatsApp Chat with Li Wei.txt"
    chat.write_text("24/12/2022, 18:05 - Li Wei: 我们去外滩的咖啡馆吧\n24/12/2022, 18:07 - Li Wei: 好的\n",
                    encoding="utf-8")
    assert ingest(container, [chat]).records_added == 2
    assert {ch.name: ch for ch in diagnose(container).checks}["lexicon"].ok
    con = sqlite3.connect(container.settings.home / "kith.sqlite3")
    own = dict(con.execute("SELECT episode_id, own FROM lexdoc").fetchall())
    assert any("外滩" in o.split() for o in own.values())  # 外滩 is one of the sentence's pairs
    # as an older Kith left it: the run whole, and no version stamp
    for eid, o in own.items():
        con.execute("UPDATE lexdoc SET own = ? WHERE episode_id = ?",
                    (" ".join(w for w in o.split() if not ("\u4e00" <= w[0] <= "\u9fff")) + " 我们去外滩的咖啡馆吧", eid))
    con.execute("DELETE FROM lex_stats WHERE name = 'tokens'")
    con.commit()
    con.close()
    lex = {ch.name: ch for ch in diagnose(container).checks}["lexicon"]
    assert lex.problems["lexicon_words_split_the_old_way"] == 2
    rep = repair(container)
    assert rep.ok and rep.repaired["lexicon_rows_resplit"] == 2, rep.describe()
    con = sqlite3.connect(container.settings.home / "kith.sqlite3")
    try:
        assert dict(con.execute("SELECT episode_id, own FROM lexdoc").fetchall()) == own
        assert con.execute("SELECT value FROM lex_stats WHERE name = 'tokens'").fetchone() == (2,)
    finally:
        con.close()

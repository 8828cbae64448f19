"""One compressed file (``mail.mbox.gz``, ``_chat.txt.bz2``, ``result.json.xz``) read as an archive holding that
file, through ``ingestors.archives.compressed_members`` and the real import.  Each test writes its own files; the
corpus test reads ``../shared/corpus`` and skips without it."""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import mailbox
import zipfile
from pathlib import Path

import pytest

from app.operations.ingest import ingest
from helpers.files import rows
from ingestors.archives import ZipLimits, compressed_members, is_compressed

MBOX = ("From 1@xxx Mon Jan 01 09:00:00 +0000 2001\nFrom: Ann Lee <ann@example.org>\n"
        "To: Nic <nic@example.com>\nSubject: Ferry\nDate: Mon, 01 Jan 2001 09:00:00 +0000\n\n"
        "The ferry to Kirkwall leaves at seven.\n")
CHAT = ("[03/02/2021, 09:15:00] Ann Lee: The orchard walk is on Saturday\n"
        "[03/02/2021, 09:16:00] Nic Obi: I'll bring the cider press\n")
CORPUS_MBOX = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "mbox" / "MailBox_mbox.src.mbox"


def test_the_one_file_inside_is_yielded_under_its_own_name(tmp_path):
    for suffix, pack in ((".gz", gzip.compress), (".bz2", bz2.compress), (".xz", lzma.compress)):
        path = tmp_path / f"mail.mbox{suffix}"
        path.write_bytes(pack(MBOX.encode()))
        errors: list = []
        got = [(m.cite, m.path.name, m.path.read_bytes()) for m in compressed_members(path, errors=errors)]
        assert got == [(f"{path}/mail.mbox", "mail.mbox", MBOX.encode())] and errors == []
        assert is_compressed(path)
    assert not is_compressed(tmp_path / "x.tar.gz") and not is_compressed(tmp_path / "x.tgz")


def test_a_damaged_or_expanding_file_is_an_error_naming_it(tmp_path):
    path = tmp_path / "mail.mbox.gz"
    data = gzip.compress(MBOX.encode() * 50)
    path.write_bytes(data[: len(data) // 2])  # cut short
    errors: list = []
    assert list(compressed_members(path, errors=errors)) == []
    assert errors[0][0] == str(path) and "damaged or cut short" in errors[0][1]
    bomb = tmp_path / "bomb.txt.gz"
    bomb.write_bytes(gzip.compress(b"\0" * (4 << 20)))  # 4 MiB of zeros in ~4 KiB: > 200x past the 1 MiB floor
    errors = []
    assert list(compressed_members(bomb, errors=errors, limits=ZipLimits())) == []
    assert errors[0][0] == f"{bomb}/bomb.txt" and "zip bomb guard" in errors[0][1]


def test_a_compressed_mbox_and_chat_are_imported_and_a_damaged_one_takes_nothing_down(container, tmp_path):
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "All mail.mbox.gz").write_bytes(gzip.compress(MBOX.encode()))
    (folder / "WhatsApp Chat with Nic Obi.txt.bz2").write_bytes(bz2.compress(CHAT.encode()))
    (folder / "broken.mbox.xz").write_bytes(b"\xfd7zXZ\0 not really")
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as zf:  # a zip holding a .gz: opened two levels down
        zf.writestr("Takeout/Mail/Old.mbox.gz", gzip.compress(MBOX.replace("seven", "eight").encode()))
    (folder / "takeout.zip").write_bytes(inner.getvalue())
    r = ingest(container, [folder])
    assert r.records_added == 1 + 2 + 1
    assert [(Path(e.path).name, "damaged or cut short" in e.reason) for e in r.errors] == [("broken.mbox.xz", True)]
    from app.operations.ask import ask

    top = ask(container, "ferry to Kirkwall", k=3)
    assert {h.source.rsplit("/", 1)[-1] for h in top[:2]} == {"All mail.mbox", "Old.mbox"}
    assert any(h.source.endswith("takeout.zip/Takeout/Mail/Old.mbox.gz/Old.mbox") for h in top[:2])
    chat = ask(container, "cider press", k=1)
    assert chat[0].sender == "Nic Obi" and chat[0].source.endswith(".txt.bz2/WhatsApp Chat with Nic Obi.txt")


@pytest.mark.skipif(not CORPUS_MBOX.exists(), reason="../shared/corpus is not here (it is in the project's CI only)")
def test_the_corpus_mbox_gzipped_gives_every_message(container, tmp_path):
    n = len(mailbox.mbox(str(CORPUS_MBOX)))  # Python's own mbox reader: 45 messages
    path = tmp_path / "perl.mbox.gz"
    path.write_bytes(gzip.compress(CORPUS_MBOX.read_bytes()))
    r = ingest(container, [path])
    # every message, and the messages its replies quote that it does not hold (a quote of one it holds is known by
    # it, or retired for it — a duplicate_of it — when the batch before held it: checked here on the texts, no live
    # quote's lines are all in a stored message)
    stored = rows(container.settings.db_path, "SELECT count(*) FROM record WHERE json_extract(attrs, '$.quoted_in') "
                  "IS NOT NULL")[0][0]
    quotes = rows(container.settings.db_path, "SELECT text FROM record WHERE json_extract(attrs, '$.quoted_in') "
                  "IS NOT NULL AND json_extract(attrs, '$.duplicate_of') IS NULL")
    messages = [t for (t,) in rows(container.settings.db_path, "SELECT text FROM record WHERE "
                                   "json_extract(attrs, '$.quoted_in') IS NULL")]
    assert (r.records_added, r.errors) == (n + stored, []) and n == 45 and len(messages) == 45
    flat = [" ".join(m.split()) for m in messages]
    for (q,) in quotes:
        lines = [" ".join(x.lstrip("> ").split()) for x in q.splitlines() if len(x.strip()) >= 20]
        assert not any(all(x in m for x in lines) for m in flat), q[:80]


def test_forgetting_an_archive_or_a_folder_forgets_every_file_imported_from_it(container, tmp_path):
    from app.operations.ask import ask
    from app.operations.forget import forget, plan_forget
    from core.store.forgetting import Target

    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "All mail.mbox.gz").write_bytes(gzip.compress(MBOX.encode()))
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as zf:
        zf.writestr("a/one.mbox", MBOX.replace("seven", "eight").replace("Ann Lee", "Bo Ek"))
        zf.writestr("b/two.mbox", MBOX.replace("seven", "nine").replace("Ann Lee", "Cy Oz"))
    (folder / "takeout.zip").write_bytes(inner.getvalue())
    kept = tmp_path / "kept.txt.bz2"
    kept.write_bytes(bz2.compress(CHAT.encode()))
    assert ingest(container, [folder, kept]).records_added == 3 + 2
    plan = plan_forget(container, Target.source(str(folder / "takeout.zip")))
    assert plan.label == "takeout.zip (archive or folder: 2 imported files)"
    forget(container, Target.source(str(folder / "takeout.zip")))
    assert {h.sender for h in ask(container, "ferry to Kirkwall", k=5)} == {"Ann Lee"}
    assert plan_forget(container, Target.source(str(folder / "All mail.mbox.gz"))).label.endswith("1 imported file)")
    forget(container, Target.source(str(folder) + "/"))  # the folder: what is left of it
    assert [h for h in ask(container, "ferry to Kirkwall", k=5) if "Kirkwall" in h.text] == []
    assert ask(container, "cider press", k=1)[0].sender == "Nic Obi"  # not from that folder: kept

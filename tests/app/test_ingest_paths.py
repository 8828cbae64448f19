"""`kith ingest` with the paths people really give it (issue 12): bad paths among good ones, symlink
loops, nothing readable at all, and zip archives (WhatsApp's export zip, Takeout zips) with zip-bomb limits."""
from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlmodel import select

from app.cli import main
from app.operations.ingest import ingest
from core.store.schema import QuarantineItem, Record, Source
from ingestors.archives import ZipLimits, zip_members

MBOX = """From alice@example.com Mon Jan  5 10:00:00 2026
From: Alice Example <alice@example.com>
To: Bob Stone <bob@example.org>
Subject: Sourdough starter schedule
Date: Mon, 05 Jan 2026 10:00:00 +0000
Message-ID: <a1@example.com>

Feed the sourdough starter twice a day with rye flour.
"""


def _cli(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_one_bad_path_does_not_stop_the_others(tmp_path, kith_home, monkeypatch):
    good = tmp_path / "good.mbox"
    good.write_text(MBOX)
    unreadable = tmp_path / "unreadable.mbox"
    unreadable.write_text(MBOX.replace("a1@", "a2@"))
    loop_a, loop_b = tmp_path / "loop_a", tmp_path / "loop_b"
    os.symlink(loop_b, loop_a)
    os.symlink(loop_a, loop_b)
    real_access = os.access  # tests run as root in CI, where chmod 000 still reads: say "no" for this file
    monkeypatch.setattr(os, "access", lambda p, mode, *a, **k: False if Path(p) == unreadable
                        else real_access(p, mode, *a, **k))
    result = _cli("ingest", str(good), str(unreadable), str(loop_a), str(tmp_path / "missing.mbox"), "--json")
    assert result.exit_code == 2, result.output  # some paths failed: not 0 (stop 26)
    report = json.loads(result.stdout)
    assert report["records_added"] == 1 and report["files"] == 1
    reasons = {Path(e["path"]).name: e["reason"] for e in report["errors"]}
    assert reasons == {"unreadable.mbox": "not readable (permission denied)", "loop_a": "a symbolic link loop",
                       "missing.mbox": "no such file or folder"}
    from core.store.db import Database

    db = Database(kith_home / "kith.sqlite3")
    try:
        with db.session() as s:
            assert {Path(q.path).name for q in s.exec(select(QuarantineItem)).all()} == set(reasons)
    finally:
        db.close()


def test_nothing_readable_exits_non_zero_and_says_so(tmp_path):
    junk = tmp_path / "notes.xyz"
    junk.write_text("nothing Kith reads")
    empty = tmp_path / "empty.mbox"
    empty.write_text("")
    result = _cli("ingest", str(junk), str(empty), str(tmp_path / "missing"))
    assert result.exit_code == 1
    assert "nothing could be read" in result.stderr
    assert "no messages in this file" in result.stdout and "unsupported file type: .xyz" in result.stdout


def _zip(path: Path, members: dict[str, bytes], compression=zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def test_zip_archives_are_read_like_folders(container, tmp_path, corpus):
    chat = ("[03/04/2023, 21:05:09] Ana Lima: Olá! Bring the kayak\n"
            "[03/04/2023, 21:06:10] Bo: \u200eimage omitted\n").encode()
    inner = _zip(tmp_path / "inner.zip", {"Mail/old.mbox": MBOX.replace("a1@", "a3@").encode()})
    archive = _zip(tmp_path / "WhatsApp Chat - Ana Lima.zip", {
        "_chat.txt": chat,
        "00000012-PHOTO-2008-10-22.jpg": (corpus / "photos/gps_DSCN0010.jpg").read_bytes(),
        "__MACOSX/._chat.txt": b"junk",
        "Takeout/Mail/All mail.mbox": MBOX.encode(),
        "nested/inner.zip": inner.read_bytes(),
        "../escape.txt": b"zip slip",
        "bomb.txt": b"\0" * (40 << 20),  # expands ~1000x: refused
    })
    report = ingest(container, [archive])
    assert report.records_added == 5, report.errors  # 2 chat messages, 1 photo, 2 mails
    reasons = {e.path: e.reason for e in report.errors}
    assert set(reasons) == {f"{archive}/../escape.txt", f"{archive}/bomb.txt"}
    assert "outside the archive" in reasons[f"{archive}/../escape.txt"]
    assert "zip bomb" in reasons[f"{archive}/bomb.txt"]
    with container.db.session() as s:
        rows = s.exec(select(Record, Source).join(Source, Source.id == Record.source_id)).all()
    sources = {src.path for _, src in rows}
    assert sources == {f"{archive}/_chat.txt", f"{archive}/00000012-PHOTO-2008-10-22.jpg",
                       f"{archive}/Takeout/Mail/All mail.mbox", f"{archive}/nested/inner.zip/Mail/old.mbox"}
    threads = {r.thread for r, _ in rows if r.kind == "chat"}
    assert threads == {"whatsapp:whatsapp chat - ana lima"}  # named by the archive, like its folder
    assert not list((container.settings.home / "tmp").iterdir())  # nothing extracted is left behind
    again = ingest(container, [archive])
    assert again.records_added == 0 and again.records_skipped == 5


def test_zip_member_limits(tmp_path):
    archive = _zip(tmp_path / "many.zip", {f"f{i}.txt": b"x" for i in range(10)})
    errors: list = []
    got = [m.cite for m in zip_members(archive, errors=errors, limits=ZipLimits(max_members=4))]
    assert got == [f"{archive}/f{i}.txt" for i in range(4)]
    assert errors == [(str(archive), "more than 4 files in the archive: the rest was not opened (a zip bomb guard)")]
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04 not really")
    errors = []
    assert list(zip_members(broken, errors=errors)) == []
    assert errors[0][0] == str(broken) and "not a readable zip archive" in errors[0][1]

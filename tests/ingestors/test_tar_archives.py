"""Tar archives (Google Takeout's ``.tgz`` choice) read like zips: member by member, with the zip limits, through
``ingestors.archives.tar_members`` and the real import.  Each test writes its own archive."""
from __future__ import annotations

import io
import tarfile
import zipfile

from app.operations.ingest import ingest
from ingestors.archives import ZipLimits, is_tar, tar_members

MBOX = ("From 1@xxx Mon Jan 01 09:00:00 +0000 2001\nX-Gmail-Labels: Inbox\nFrom: Ann Lee <ann@example.org>\n"
        "To: Nic <nic@example.com>\nSubject: Ferry\nDate: Mon, 01 Jan 2001 09:00:00 +0000\n\n"
        "The ferry to Kirkwall leaves at seven.\n")


def _tgz(path, files: dict[str, bytes], mode: str = "w:gz", links: dict[str, str] | None = None):
    with tarfile.open(path, mode) as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tf.addfile(info)
    return path


def test_tar_members_are_read_one_by_one_with_the_zip_guards(tmp_path):
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as zf:
        zf.writestr("chat/_chat.txt", "hello")
    path = _tgz(tmp_path / "takeout-001.tgz", {
        "Takeout/Mail/All mail.mbox": MBOX.encode(), "Takeout/.hidden": b"x", "../evil.txt": b"x",
        "Takeout/inner.zip": inner.getvalue()}, links={"Takeout/link": "/etc/passwd"})
    errors: list = []
    seen = {m.cite.split(".tgz/", 1)[1]: m.path.read_bytes() for m in tar_members(path, errors=errors)}
    assert seen == {"Takeout/Mail/All mail.mbox": MBOX.encode(), "Takeout/inner.zip/chat/_chat.txt": b"hello"}
    assert [(w.rsplit("/", 1)[-1], r) for w, r in errors] == [
        ("evil.txt", "member name points outside the archive: not opened")]
    assert is_tar(path) and is_tar(tmp_path / "x.tar.gz") and not is_tar(tmp_path / "x.gz")
    errors = []
    assert [m.cite for m in tar_members(path, errors=errors, limits=ZipLimits(max_members=1))] == [
        f"{path}/Takeout/Mail/All mail.mbox"]
    assert "more than 1 files" in errors[0][1]


def test_a_damaged_tgz_is_one_error_and_what_came_before_is_kept(tmp_path):
    path = _tgz(tmp_path / "t.tgz", {"a.mbox": MBOX.encode(), "b.txt": b"y" * 100_000})
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 40])  # cut short
    errors: list = []
    names = [m.cite.rsplit("/", 1)[1] for m in tar_members(path, errors=errors)]
    assert names[:1] == ["a.mbox"] and len(errors) == 1 and "damaged or cut short" in errors[0][1]
    (tmp_path / "not.tgz").write_bytes(b"not a tar at all")
    errors = []
    assert list(tar_members(tmp_path / "not.tgz", errors=errors)) == []
    assert "not a readable tar archive" in errors[0][1]


def test_a_takeout_tgz_is_imported(container, tmp_path):
    path = _tgz(tmp_path / "takeout-20240101T000000Z-001.tgz",
                {"Takeout/Mail/All mail Including Spam and Trash.mbox": MBOX.encode()})
    r = ingest(container, [path])
    assert (r.records_added, r.errors) == (1, [])
    from app.operations.ask import ask

    top = ask(container, "ferry to Kirkwall", k=2)
    assert top and top[0].sender == "Ann Lee"
    assert top[0].source.endswith(".tgz/Takeout/Mail/All mail Including Spam and Trash.mbox")

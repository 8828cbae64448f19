"""Picking an ingestor for a file: suffix first, then sniffing; expanding folders; reporting what nobody reads."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.errors import InputError
from ingestors import registry
from ingestors.registry import all_ingestors, expand_paths, ingestor_for, plan, unsupported_reason

JPEG_HEAD = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(32)
EML = b"Received: from a by b\nFrom: A <a@example.com>\nSubject: hi\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\nbody\n"
MBOX = b"From a@example.com Mon Jan  1 00:00:00 2024\nSubject: hi\n\nbody\n"


def name_of(path) -> str | None:
    ingestor = ingestor_for(path)
    return ingestor.name if ingestor else None


def test_all_ingestors_are_distinct_and_cached():
    names = [i.name for i in all_ingestors()]
    assert names[:3] == ["mbox", "eml", "photo"]
    assert all_ingestors()[0] is all_ingestors()[0]


def test_suffix_wins_case_insensitively(tmp_path):
    for name in ("a.mbox", "b.MBX", "c.eml", "d.JPG", "e.jpeg", "f.HEIC", "g.tiff"):
        (tmp_path / name).write_bytes(b"")  # content is not looked at when one ingestor claims the suffix
    assert [name_of(tmp_path / n) for n in ("a.mbox", "b.MBX", "c.eml", "d.JPG", "e.jpeg", "f.HEIC", "g.tiff")] == \
        ["mbox", "mbox", "eml", "photo", "photo", "photo", "photo"]


def test_sniffing_files_without_a_known_suffix(tmp_path):
    (tmp_path / "inbox").write_bytes(MBOX)
    (tmp_path / "message").write_bytes(EML)
    (tmp_path / "IMG_0001.dat").write_bytes(JPEG_HEAD)
    (tmp_path / "notes.txt").write_text("Dear diary: nothing to see\n")
    assert name_of(tmp_path / "inbox") == "mbox"
    assert name_of(tmp_path / "message") == "eml"
    assert name_of(tmp_path / "IMG_0001.dat") == "photo"
    assert name_of(tmp_path / "notes.txt") is None


@pytest.mark.corpus
def test_corpus_files_go_to_the_right_ingestor(corpus, tmp_path):
    for path in sorted((corpus / "mbox").iterdir()):
        assert name_of(path) == ("eml" if path.suffix == ".eml" else "mbox"), path.name
    for path in sorted((corpus / "photos").iterdir()):
        assert name_of(path) == "photo", path.name
    # the same mail with its suffix taken away is still recognised from its headers
    bare = tmp_path / "stalwart"
    shutil.copy(corpus / "mbox/stalwart_sample_mboxrd.mbox", bare)
    assert name_of(bare) == "mbox"
    bare_eml = tmp_path / "dovecot"
    shutil.copy(corpus / "mbox/eml_eucjp_utf16_dovecot005.eml", bare_eml)  # starts with Content-Type
    assert name_of(bare_eml) == "eml"


def test_expand_paths_walks_sorted_and_skips_hidden(tmp_path):
    root = tmp_path / "archive"
    (root / "b" / "deeper").mkdir(parents=True)
    (root / ".git").mkdir()
    for rel in ("z.eml", "a.mbox", "b/photo.jpg", "b/deeper/x.heic", ".hidden.eml", ".DS_Store",
                "b/.DS_Store", ".git/config", "b/Thumbs.db"):
        (root / rel).write_bytes(b"x")
    single = tmp_path / "single.eml"
    single.write_bytes(EML)
    got = expand_paths([single, root, single])
    assert got == [single, root / "a.mbox", root / "b/deeper/x.heic", root / "b/photo.jpg", root / "z.eml"]
    assert expand_paths(str(single)) == [single]
    with pytest.raises(InputError, match="no such file"):
        expand_paths([tmp_path / "nope"])


def test_plan_reports_unsupported_files(tmp_path):
    (tmp_path / "mail.mbox").write_bytes(MBOX)
    (tmp_path / "report.xyz").write_text("quarterly numbers\n")
    (tmp_path / "README").write_text("plain words\n")
    (tmp_path / "photo.dat").write_bytes(JPEG_HEAD)
    result = plan(tmp_path)
    assert [(p.name, i.name) for p, i in result.matched] == [("mail.mbox", "mbox"), ("photo.dat", "photo")]
    assert result.unsupported == [(tmp_path / "README", "unsupported file type: no suffix"),
                                  (tmp_path / "report.xyz", "unsupported file type: .xyz")]
    assert result.unreadable == []
    assert unsupported_reason("a/b/C.XYZ") == "unsupported file type: .xyz"


def test_plan_keeps_going_past_an_unreadable_file(tmp_path, monkeypatch):
    (tmp_path / "locked.bin").write_bytes(b"??")
    (tmp_path / "mail.mbox").write_bytes(MBOX)
    real = registry.read_head

    def read_head(path, size=registry.SNIFF_BYTES):
        if Path(path).name == "locked.bin":
            raise InputError(str(path), "cannot read: Permission denied")
        return real(path, size)

    monkeypatch.setattr(registry, "read_head", read_head)
    result = plan([tmp_path])
    assert [p.name for p, _ in result.matched] == ["mail.mbox"]
    assert result.unreadable == [(tmp_path / "locked.bin", "cannot read: Permission denied")]


class _XyzIngestor:
    name = "xyz"
    suffixes = frozenset({".xyz"})

    def sniff(self, path, head):
        return 0.0

    def read(self, path):
        return iter(())


def test_register_adds_a_format(tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "_ingestors", list(all_ingestors()))
    (tmp_path / "report.xyz").write_text("x")
    assert ingestor_for(tmp_path / "report.xyz") is None
    registry.register(_XyzIngestor())
    assert name_of(tmp_path / "report.xyz") == "xyz"
    assert plan(tmp_path).unsupported == []

"""The watchdog inbox: files are handed on once, and only after they stop changing."""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from core.errors import InputError
from ingestors.inbox import Inbox, is_ignored


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def wait_for(predicate, timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


# ----------------------------------------------------------------------------- deterministic (no threads)

def test_a_file_is_dispatched_once_after_it_settles(tmp_path):
    clock, got = FakeClock(), []
    inbox = Inbox(tmp_path, got.append, settle_seconds=2.0, clock=clock)
    f = tmp_path / "chat.txt"
    f.write_bytes(b"part one")
    inbox.notice(f)
    assert inbox.check() == [] and inbox.pending == [f]
    clock.now = 1.9
    assert inbox.check() == []
    with open(f, "ab") as fh:  # still being copied
        fh.write(b" and two")
    assert inbox.check() == []                 # changed at 1.9: the wait starts again
    clock.now = 3.8
    assert inbox.check() == []                 # only 1.9 s since the last change
    clock.now = 4.0
    assert inbox.check() == [f] and got == [f]
    assert inbox.pending == []
    inbox.notice(f)                            # an event for an unchanged file
    clock.now = 10.0
    inbox.check()
    clock.now = 20.0
    assert inbox.check() == [] and got == [f]  # same path, mtime and size: not again
    f.write_bytes(b"rewritten, longer than before")
    os.utime(f, ns=(1_000_000_000, 1_000_000_000))
    inbox.notice(f)
    inbox.check()
    clock.now = 30.0
    assert inbox.check() == [f] and got == [f, f]  # a new version is a new file


def test_folders_are_walked_and_junk_is_ignored(tmp_path):
    clock, got = FakeClock(), []
    inbox = Inbox(tmp_path, got.append, settle_seconds=1.0, clock=clock)
    drop = tmp_path / "export"
    (drop / "media").mkdir(parents=True)
    (drop / ".hidden").mkdir()
    wanted = [drop / "_chat.txt", drop / "media" / "photo.jpg"]
    junk = [drop / "movie.mp4.part", drop / "setup.crdownload", drop / "~$report.docx", drop / ".DS_Store",
            drop / ".hidden" / "secret.txt", drop / "notes.txt~", drop / "Thumbs.db", drop / "x.tmp"]
    for p in wanted + junk:
        p.write_bytes(b"data")
    (drop / "empty.txt").write_bytes(b"")     # may be a copy that has not started: waits
    inbox.notice(drop)
    inbox.check()
    clock.now = 5.0
    assert sorted(inbox.check()) == sorted(wanted)
    assert inbox.pending == [drop / "empty.txt"]


@pytest.mark.parametrize("name, ignored", [
    ("a.txt", False), ("a.PART", True), ("b.crdownload", True), ("~$doc.docx", True), (".DS_Store", True),
    (".env", True), ("desktop.ini", True), ("c.swp", True), ("report~", True), ("chat.db", False),
])
def test_is_ignored(tmp_path, name, ignored):
    assert is_ignored(tmp_path / name, tmp_path) is ignored


def test_a_vanished_file_and_a_failing_callback(tmp_path):
    clock = FakeClock()
    calls = []

    def on_ready(p: Path) -> None:
        calls.append(p)
        raise RuntimeError("the import failed")

    inbox = Inbox(tmp_path, on_ready, settle_seconds=1.0, clock=clock)
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"a")
    b.write_bytes(b"b")
    inbox.notice(a)
    inbox.notice(b)
    inbox.check()
    b.unlink()
    clock.now = 2.0
    assert inbox.check() == [a] and calls == [a]   # the error was logged, not raised
    assert inbox.pending == []


def test_start_on_a_file_is_an_input_error(tmp_path):
    f = tmp_path / "not-a-folder"
    f.write_bytes(b"x")
    with pytest.raises(InputError, match="not a folder"):
        Inbox(f, lambda p: None).start()


# ----------------------------------------------------------------------------- live, with watchdog

def test_live_inbox_waits_for_a_slow_copy_and_picks_up_dropped_folders(tmp_path):
    inbox_dir = tmp_path / "inbox"
    inbox_dir.mkdir()
    (inbox_dir / "already-there.txt").write_bytes(b"old")
    seen: list[tuple[Path, int]] = []
    lock = threading.Lock()

    def on_ready(p: Path) -> None:
        with lock:
            seen.append((p, p.stat().st_size))

    with Inbox(inbox_dir, on_ready, settle_seconds=0.4, poll_interval=0.05) as inbox:
        assert wait_for(lambda: len(seen) == 1)
        assert seen[0] == (inbox_dir / "already-there.txt", 3)

        slow = inbox_dir / "big.mbox"
        with open(slow, "wb") as fh:  # written in 8 pieces, 0.1 s apart (less than the settle time)
            for _ in range(8):
                fh.write(b"x" * 1000)
                fh.flush()
                time.sleep(0.1)
        assert wait_for(lambda: any(p == slow for p, _ in seen))
        assert (slow, 8000) in seen  # never handed on half-written

        outside = tmp_path / "export"
        (outside / "media").mkdir(parents=True)
        (outside / "_chat.txt").write_bytes(b"chat")
        (outside / "media" / "a.jpg").write_bytes(b"jpeg")
        (outside / "media" / "b.jpg.part").write_bytes(b"partial")
        os.rename(outside, inbox_dir / "export")  # a folder dropped in
        expected = {inbox_dir / "export" / "_chat.txt", inbox_dir / "export" / "media" / "a.jpg"}
        assert wait_for(lambda: expected <= {p for p, _ in seen})
        time.sleep(0.6)  # more than a settle period: nothing is dispatched twice
        paths = [p for p, _ in seen]
        assert len(paths) == len(set(paths)) == 4
        assert inbox.pending == []
    assert inbox._thread is None and inbox._observer is None  # stopped

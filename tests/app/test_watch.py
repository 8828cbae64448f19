"""The watched Inbox folder under load (issue 12): 2,000 small files copied in at once are each handed to the
import exactly once, through the app's own watcher (watchdog, real threads, real files)."""
from __future__ import annotations

import shutil
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from app.watch import inbox_folder, start_inbox_watcher

N = 2000


def test_two_thousand_files_copied_at_once_are_each_ingested_once(container, tmp_path):
    source = tmp_path / "export"
    source.mkdir()
    for i in range(N):
        (source / f"chat {i:04d}.txt").write_text(f"01/02/2024, 10:00 - Ana: message {i}\n")
    seen: Counter = Counter()
    lock = threading.Lock()

    def on_ready(path):
        with lock:
            seen[path.name] += 1

    dropped = tmp_path / "dropped folder"  # the second half arrives as one folder moved in
    dropped.mkdir()
    for f in sorted(source.iterdir())[N // 2:]:
        f.rename(dropped / f.name)
    watcher = start_inbox_watcher(container, on_ready, settle_seconds=0.3)
    try:
        inbox = inbox_folder(container)
        with ThreadPoolExecutor(8) as pool:  # the first half copied at once, by several copiers
            list(pool.map(lambda f: shutil.copy(f, inbox / f.name), sorted(source.iterdir())))
        shutil.move(str(dropped), str(inbox / dropped.name))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (len(seen) < N or watcher.pending):
            time.sleep(0.05)
        time.sleep(0.5)  # anything dispatched twice would arrive now
    finally:
        watcher.stop()
    assert len(seen) == N and set(seen.values()) == {1}

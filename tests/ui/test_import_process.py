"""The window imports in a process of its own (app/import_process.py): progress, result and cancel reach the UI."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from synth import write_mbox  # noqa: E402


def test_a_dropped_archive_is_imported_by_a_separate_process(qtbot, window, tmp_path):
    window.container.settings.import_process = True
    mbox = write_mbox(tmp_path / "m.mbox", 30, seed=21)
    seen = []
    job = window.inbox.add_paths([str(mbox)])
    job.progress.connect(seen.append)
    with qtbot.waitSignal(window.ingestFinished, timeout=300_000) as got:
        pass
    report = got.args[0]
    assert report.records_added == 30 and not report.errors
    assert report.lock["holds"] >= 1  # the child took the writer lock itself, batch by batch
    assert seen and seen[-1].records_added <= 30
    from app.operations.entities import list_entities

    names = {e.name for e in list_entities(window.container, "person")}
    assert len(names) >= 2  # the window sees the people the other process stored


def test_cancelling_stops_the_import_process_after_its_batch(qtbot, window, tmp_path):
    window.container.settings.import_process = True
    mbox = write_mbox(tmp_path / "big.mbox", 800, seed=22)
    job = window.inbox.add_paths([str(mbox)])
    qtbot.waitUntil(lambda: job.is_done or window.inbox.current_label.text().startswith(("Reading", "[")) or True,
                    timeout=5_000)
    qtbot.wait(4_000)  # the child starts and commits a batch or two
    window.inbox.cancel()
    with qtbot.waitSignal(window.ingestFinished, timeout=300_000) as got:
        pass
    report = got.args[0]
    assert report.cancelled and report.records_added < 800
    from app import pipeline

    assert pipeline.pending(window.container)["vectors"] == 0  # every committed batch finished its stages

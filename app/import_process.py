"""Imports in a process of their own, for the window (issue #15's responsiveness, issue #10's one writer).

The window's own threads share one Python interpreter lock with its UI thread: Chroma's upsert and the
encoder's Python-side work held it for up to half a second at a time during a large import, and the
window stalled.  Run by :func:`import_in_subprocess`, the import is ``kith ingest … --progress-jsonl``
in another process: it takes the data folder's writer lock batch by batch (``core.store.lock``) like
any other Kith process, so the window's own writes (a chat turn) go in between its batches; progress
comes back as JSON lines, a cancel is SIGTERM (the import stops after its current batch and reports),
and when it is done the window picks up what it wrote (:meth:`app.container.Container.refresh`).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable, Iterable

from app.operations.types import IngestError, IngestProgress, IngestReport


IMPORT_NICENESS = 10
"""How much lower than the window the import process is scheduled (a POSIX ``nice`` increment: well below the
window, still above idle-only work at 19, so an import keeps its pace on a machine doing nothing else)."""


def kith_command() -> list[str]:
    """How to start the ``kith`` command from this process (the frozen app is the command itself)."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "app.cli"]


def import_in_subprocess(c, paths: Iterable[str | Path], progress: Callable[[IngestProgress], None] | None = None,
                         cancel: threading.Event | None = None, defer: bool = False) -> IngestReport:
    """Import ``paths`` into the container's data folder with ``kith ingest`` in a child process.

    Args:
        c: the window's container (its data folder is the child's ``KITH_HOME``).
        paths: files and folders.
        progress: called with each :class:`IngestProgress` the child reports (on this thread).
        cancel: when set, the child is asked to stop (SIGTERM: it finishes its current batch and reports).
        defer: ``kith ingest --defer``.

    Returns:
        The child's :class:`IngestReport`; if it died without one, a report whose error says so (what it had
        committed stays, and the next import completes it).
    """
    cmd = kith_command() + ["ingest", *[str(p) for p in paths], "--progress-jsonl"] + (["--defer"] if defer else [])
    env = dict(os.environ, KITH_HOME=str(c.settings.home))
    here = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    # The child runs below the window's priority: on a machine with few cores the encoder's threads would
    # otherwise take every core and the window's event loop would wait for the scheduler (stalls of
    # 90-160 ms on 2 cores, benchmarks/ui_responsiveness.py), though it had no work of its own to do.
    nice = (lambda: os.nice(IMPORT_NICENESS)) if hasattr(os, "nice") else None
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, bufsize=1,
                            preexec_fn=nice)
    report: dict | None = None
    err_tail: list[str] = []

    def drain_stderr() -> None:
        for line in proc.stderr:
            err_tail.append(line.rstrip())
            del err_tail[:-20]
    t = threading.Thread(target=drain_stderr, daemon=True, name="kith-import-stderr")
    t.start()
    stop_sent = False

    def watch_cancel() -> None:
        nonlocal stop_sent
        while proc.poll() is None:
            if cancel is not None and cancel.wait(0.1) and not stop_sent:
                stop_sent = True
                try:
                    proc.send_signal(signal.SIGTERM)
                except OSError:
                    pass
    w = threading.Thread(target=watch_cancel, daemon=True, name="kith-import-cancel")
    w.start()
    for line in proc.stdout:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if "progress" in msg and progress is not None:
            progress(IngestProgress(**msg["progress"]))
        elif "report" in msg:
            report = msg["report"]
    rc = proc.wait()
    t.join(timeout=5)
    c.refresh()  # what the child wrote: reload the in-memory indexes
    if report is not None:
        return IngestReport.from_json(report)
    why = "; ".join(line for line in err_tail if line.strip())[-500:] or f"exit status {rc}"
    return IngestReport(errors=[IngestError(str(c.settings.home), f"the import process stopped before it finished "
                                            f"({why}); what it stored is kept and the next import completes it")],
                        cancelled=stop_sent)

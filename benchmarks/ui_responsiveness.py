"""Does the window stay responsive while it imports?  Event-loop stalls on the UI thread, idle vs. importing.

    QT_QPA_PLATFORM=offscreen python benchmarks/ui_responsiveness.py [--n 10000] [--idle-s 5]

A generated mbox of ``--n`` messages (made-up senders and texts, a fixed seed) is dropped on the
window's Inbox, so it is read by the window's own worker (``ui/worker.py``) exactly as a person's
drop would be, followed by the after-import jobs (summaries, consolidation).  Meanwhile a
``QTimer`` on the UI thread ticks every 10 ms; a stall is how much later than due a tick came
(interval − 10 ms).  The same timer runs first for ``--idle-s`` seconds with nothing running: the
baseline.  Goal (issue 15): the largest stall while importing ≤ 100 ms.
"""
from __future__ import annotations

import argparse
import mailbox
import os
import random
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TICK_MS = 10
FIRST = ["Ana", "Ben", "Chloe", "Dev", "Elif", "Femi", "Greta", "Hiro", "Ines", "Jonah", "Kira", "Luis", "Mina",
         "Nils", "Olga", "Pavel", "Quinn", "Rosa", "Sami", "Tara"]
LAST = ["Alder", "Birch", "Cedar", "Dahl", "Elm", "Fern", "Gale", "Hart", "Ivy", "Juniper"]
TOPICS = ["the sourdough starter", "Saturday's climb", "the river survey", "a birthday dinner", "the book club",
          "the train to Porto", "my new job at Northwind", "the garden", "a broken bike", "the kayak trip"]


def write_mbox(path: Path, n: int, seed: int = 15) -> Path:
    """``n`` messages from 200 made-up senders to the owner, one every ~3 hours from 2019 on."""
    rng = random.Random(seed)
    people = [(f"{f} {l}", f"{f.lower()}.{l.lower()}@example.com") for f in FIRST for l in LAST]
    box = mailbox.mbox(str(path), create=True)
    t = datetime(2019, 1, 1, 8, tzinfo=timezone.utc)
    try:
        for i in range(n):
            name, addr = rng.choice(people)
            topic = rng.choice(TOPICS)
            m = EmailMessage()
            m["From"], m["To"] = f"{name} <{addr}>", "Owner Person <owner@example.net>"
            m["Subject"] = f"About {topic}"
            m["Date"] = format_datetime(t)
            m["Message-ID"] = f"<bench-{i}@example.com>"
            m.set_content(f"Hi! A note about {topic}. " + " ".join(rng.choice(TOPICS) for _ in range(6)) +
                          f"\nSee you soon,\n{name.split()[0]}")
            box.add(mailbox.mboxMessage(m))
            t += timedelta(hours=rng.randint(1, 5))
    finally:
        box.close()
    return path


def stalls(intervals_ms: list[float]) -> tuple[float, float, int, int]:
    """(largest, p99, ticks, ticks over 100 ms late) of the ticks' lateness in ms (interval − TICK_MS, ≥ 0)."""
    late = sorted(max(0.0, d - TICK_MS) for d in intervals_ms)
    if not late:
        return 0.0, 0.0, 0, 0
    p99 = late[min(len(late) - 1, int(round(0.99 * (len(late) - 1))))]
    return late[-1], p99, len(late), sum(1 for v in late if v > 100.0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="messages in the generated mbox")
    ap.add_argument("--idle-s", type=float, default=5.0, help="seconds of the idle baseline")
    ap.add_argument("--trace", action="store_true",
                    help="while importing, sample the UI thread's stack whenever a tick is 80 ms late; print the "
                         "most frequent stacks (to find what stalls)")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="kith-ui-bench-"))
    os.environ["KITH_HOME"] = str(work / "home")
    mbox = write_mbox(work / "bench.mbox", args.n)

    from PySide6.QtCore import QElapsedTimer, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(["kith-bench"])
    from app.container import Container
    from app.models.llm import NoModel
    from ui.main_window import MainWindow

    c = Container()
    c.settings.owner_name, c.settings.owner_emails = "Owner Person", ["owner@example.net"]
    w = MainWindow(c, model_factory=NoModel)
    w.resize(1200, 800)
    w.show()
    clock = QElapsedTimer()
    intervals: list[float] = []
    last = [0]

    import collections
    import threading
    import traceback

    ui_thread = threading.get_ident()
    tracing = threading.Event()
    last_wall = [time.perf_counter()]
    stacks: collections.Counter = collections.Counter()

    def watchdog():
        while True:
            time.sleep(0.02)
            if tracing.is_set() and time.perf_counter() - last_wall[0] > 0.08:
                me = threading.get_ident()
                for ident, frame in sys._current_frames().items():  # the UI thread, and who held the GIL
                    if ident != me:
                        who = "UI thread" if ident == ui_thread else "worker"
                        stacks[who + ":\n" + "".join(traceback.format_stack(frame)[-int(os.environ.get("KITH_TRACE_DEPTH", "5")):])] += 1

    if args.trace:
        threading.Thread(target=watchdog, daemon=True).start()

    def tick():
        now = clock.nsecsElapsed()
        intervals.append((now - last[0]) / 1e6)
        last[0] = now
        last_wall[0] = time.perf_counter()

    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(tick)

    def run_until(done, limit_s: float) -> float:
        intervals.clear()
        clock.start()
        last[0] = clock.nsecsElapsed()
        timer.start()
        t0 = time.perf_counter()
        while not done() and time.perf_counter() - t0 < limit_s:
            app.processEvents()
            time.sleep(0.001)
        timer.stop()
        return time.perf_counter() - t0

    # Let the window settle (first entity list, history) before measuring.
    run_until(lambda: w.worker.active == 0 and w.people.loaded, 60)
    idle_s = run_until(lambda: False, args.idle_s)
    idle = stalls(intervals)
    w.show_tab("inbox")
    job = w.inbox.add_paths([mbox])
    t_ingest = [None]
    job.done.connect(lambda: t_ingest.__setitem__(0, time.perf_counter()))
    t0 = time.perf_counter()
    tracing.set()
    busy_s = run_until(lambda: job.is_done and w.worker.active == 0, 3600)
    tracing.clear()
    busy = stalls(intervals)
    report = job.result
    ingest_s = (t_ingest[0] or time.perf_counter()) - t0
    w.shutdown()
    w.close()
    c.close()
    import shutil

    shutil.rmtree(work, ignore_errors=True)  # the generated mbox and the data folder

    added = report.records_added if report is not None else 0
    print(f"ui_responsiveness: {args.n} messages in one mbox dropped on the Inbox; QTimer every {TICK_MS} ms "
          f"on the UI thread; stall = tick interval - {TICK_MS} ms")
    print(f"idle (no import)      largest stall {idle[0]:7.1f} ms  p99 {idle[1]:6.1f} ms  ({idle[2]} ticks, "
          f"{idle[3]} over 100 ms, {idle_s:.1f} s)")
    print(f"importing (worker)    largest stall {busy[0]:7.1f} ms  p99 {busy[1]:6.1f} ms  ({busy[2]} ticks, "
          f"{busy[3]} over 100 ms, {busy_s:.1f} s; ingest {ingest_s:.1f} s, {added} records added, "
          f"then after-import jobs)")
    print(f"largest stall, importing vs idle: {busy[0] / max(idle[0], 0.1):.1f}\u00d7")
    print(f"p99 stall, importing vs idle: {busy[1] / max(idle[1], 0.1):.1f}\u00d7")
    print(f"goal largest stall <= 100 ms while importing: {'met' if busy[0] <= 100 else 'NOT met'}")
    for st, n in stacks.most_common(6):
        print(f"--- seen {n}\u00d7 in a stall, {st}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Screenshots of every view, light and dark, with the demo archive (for looking at, and for the docs).

    QT_QPA_PLATFORM=offscreen python scripts/screenshots.py OUT_DIR [--home DIR] [--first-run]

Imports the demo archive into ``--home`` (a fresh temporary data folder by default) through
the window's own Inbox, then saves ``OUT_DIR/<view>-<scheme>.png`` for: first run (before the
import), inbox, people, profile, map, graph, timeline, memory, chat, settings, search, about.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--home", default=None)
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    home = Path(args.home or tempfile.mkdtemp(prefix="kith-shots-"))
    os.environ["KITH_HOME"] = str(home)

    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(["kith"])
    app.setStyle("Fusion")
    from app.container import Container
    from app.models.llm import NoModel
    from ui.main_window import MainWindow

    def pump(until=None, timeout=60.0):
        end = time.time() + timeout
        while time.time() < end:
            app.processEvents()
            if until is not None and until():
                break
            time.sleep(0.01)
        for _ in range(30):
            app.processEvents()

    c = Container()
    w = MainWindow(c, model_factory=NoModel)
    w.resize(1280, 820)
    w.show()
    pump(lambda: w.people.loaded and w.inbox.sessions is not None, 30)
    pump(timeout=0.5)
    shots = []

    def shot(name):
        for scheme in ("light", "dark"):
            w.apply_scheme(scheme)
            pump(timeout=0.3)
            p = out / f"{name}-{scheme}.png"
            w.grab().save(str(p))
            shots.append(p)
        w.apply_scheme("light")

    if w.inbox.first_run:
        w.show_tab("inbox")
        shot("first-run")
        job = w.inbox.import_demo()
        pump(lambda: job.is_done, 120)
        pump(lambda: w.worker.active == 0, 120)
    w.show_tab("inbox")
    pump(timeout=0.5)
    shot("inbox")
    w.show_tab("people")
    w.people.refresh()
    pump(lambda: w.worker.active == 0, 60)
    shot("people")
    person = next(r for r in w.people.model.rows if r.kind == "person" and r.name.startswith("Maya"))
    job = w.people.open_profile(person.id)
    pump(lambda: job.is_done, 60)
    shot("profile")
    w.people.close_profile()
    w.people.subtabs.setCurrentWidget(w.people.map)
    pump(lambda: w.people.map.data is not None and w.worker.active == 0, 60)
    k = max(w.people.map.data.clusters, key=lambda k: k.photos)
    job = w.people.map.show_place(k.place_id)
    pump(lambda: job.is_done, 60)
    shot("map")
    w.people.subtabs.setCurrentWidget(w.people.graph)
    pump(lambda: w.people.graph.data is not None, 60)
    shot("graph")
    w.people.subtabs.setCurrentIndex(0)
    w.show_tab("timeline")
    pump(lambda: w.timeline.data is not None and w.worker.active == 0, 60)
    rec = w.timeline.data.records[len(w.timeline.data.records) // 2]
    job = w.timeline.source.show_record(rec.id)
    pump(lambda: job.is_done, 30)
    shot("timeline")
    w.show_tab("memory")
    pump(lambda: w.worker.active == 0, 60)
    shot("memory")
    w.show_tab("chat")
    pump(timeout=0.5)
    shot("chat")
    w.show_tab("settings")
    pump(timeout=0.5)
    shot("settings")
    w.show_tab("people")
    pal = w.open_search()
    pal.edit.setText("lis")
    job = pal.search_now()
    pump(lambda: job.is_done, 30)
    for scheme in ("light", "dark"):
        w.apply_scheme(scheme)
        from ui import theme

        theme.apply(pal, scheme)
        pump(timeout=0.3)
        p = out / f"search-{scheme}.png"
        pal.grab().save(str(p))
        shots.append(p)
    pal.hide()
    for scheme in ("light", "dark"):
        w.apply_scheme(scheme)
        dlg = w.show_about()
        pump(timeout=0.3)
        p = out / f"about-{scheme}.png"
        dlg.grab().save(str(p))
        shots.append(p)
        dlg.close()
    w.shutdown()
    w.close()
    c.close()
    for p in shots:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())

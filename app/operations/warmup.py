"""Load what the first import or question needs before anyone asks, off the UI thread.

Importing Chroma, opening its collections and loading the text encoder each hold Python's GIL
for 80–190 ms at a time (measured with benchmarks/ui_responsiveness.py --trace); done while the
window opens, in the background, they no longer stall the window in the middle of the first import.
Reads only: opening a collection that does not exist yet creates it empty (Chroma's get-or-create).
"""
from __future__ import annotations

import time

from app.container import Container
from core.store.collections import FACTS, RECORDS


def warm_up(c: Container) -> dict[str, float]:
    """Load the encoder and open the Chroma collections; returns seconds spent on each."""
    out: dict[str, float] = {}
    t = time.perf_counter()
    c.encoder.encode(["warm up"])
    out["encoder"] = round(time.perf_counter() - t, 3)
    t = time.perf_counter()
    for name in (RECORDS, FACTS):
        c.vectors.collection(name)
    out["vectors"] = round(time.perf_counter() - t, 3)
    return out


def prepare_ask(c: Container):
    """A cold ``kith ask`` (or ``kith chat``): load the text encoder on a thread of its own while this one
    imports and opens Chroma and loads the record index — the two longest steps of a fresh process overlap.
    Reads only.  Returns the encoder's thread (``c.encoder`` waits for it anyway)."""
    import threading

    def load():
        try:
            c.encoder
        except Exception:  # the caller's own c.encoder raises it again, where it is reported
            pass
    th = threading.Thread(target=load, name="kith-encoder-load", daemon=True)
    th.start()
    try:
        c.vectors.warm(RECORDS)
    except Exception:  # a missing or broken store is reported by the ask itself
        pass
    return th

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


def prepare_ask(c: Container) -> list:
    """A cold ``kith ask`` (or ``kith chat``): start what the first question waits on, each on a thread of its
    own, while the caller's thread imports the retriever and answers from SQLite what needs no vector:

    * the text encoder (its weights read and converted: numpy, no GIL held for most of it), then the question
      projection's matrix (``core.hdc.projection_matrix``, ~20-40 ms when first made);
    * Chroma: imported, opened, and the record collection's nearest-neighbour index loaded (Chroma's own
      threads, ~0.25 s at 10⁵ vectors).

    Reads only.  A failure is left for the ask itself to report (``c.encoder`` and ``c.vectors`` raise it again).
    Returns the started threads (daemons)."""
    import threading

    def encoder():
        try:
            enc = c.encoder
            from core import hdc

            hdc.projection_matrix(enc.dim)
        except Exception:  # the caller's own c.encoder raises it again, where it is reported
            pass

    def vectors():
        try:
            c.vectors.warm(RECORDS)
        except Exception:  # a missing or broken store is reported by the ask itself
            pass
    threads = [threading.Thread(target=encoder, name="kith-encoder-load", daemon=True),
               threading.Thread(target=vectors, name="kith-vectors-open", daemon=True)]
    for th in threads:
        th.start()
    return threads

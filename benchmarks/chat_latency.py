"""The chat's time to the first shown answer, in the window's own process, for Kith's default (memory) answerer.

    python benchmarks/chat_latency.py [--turns N]

The corpus (``../shared/corpus``: photos, mail, chats) is ingested into a temporary data folder; then the
window's chat session (``ui.chat.ChatSession.turn``, what a chat turn runs on the worker thread: observe →
learn → recall → answer → store) answers questions, and the time from the turn's start to the first text it
reports (what the window shows) is recorded.  The first turn (loading the encoder, Chroma, the ledger) is
left out: "model already loaded".  Goal (issue 14): p95 ≤ 1 s.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

QUESTIONS = ["when was I in Italy?", "who wrote about watermarks?", "where was the photo in Kenya taken?",
             "what did Bob say about the Digimarc library?", "when did Author 2 send the telegram link?",
             "what camera took the photos in Tuscany?", "who asked about ImageMagick?", "what is the weather on Mars?",
             "where was I in April 2021?", "what did Mark write about perl?", "who is Mark Overmeer?"]


class _Job:
    """The part of ``ui.worker.Job`` a chat turn uses: ``report`` and ``cancel_event``."""

    def __init__(self):
        self.cancel_event = threading.Event()
        self.first_text: float | None = None

    def report(self, value) -> None:
        if isinstance(value, dict) and value.get("kind") == "text" and self.first_text is None:
            self.first_text = time.perf_counter()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=40)
    ap.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    a = ap.parse_args()
    corpus = Path(a.corpus)
    with tempfile.TemporaryDirectory(prefix="kith-chat-") as tmp:
        os.environ["KITH_HOME"] = tmp
        from app.container import Container
        from app.operations.ingest import ingest
        from ui.chat import ChatSession

        c = Container()
        ingest(c, [corpus / "photos", corpus / "mbox", corpus / "messages" / "chats"])
        session = ChatSession(c)
        times = []
        for i in range(a.turns + 1):
            job = _Job()
            t = time.perf_counter()
            out = session.turn(QUESTIONS[i % len(QUESTIONS)], None, job)
            assert out.result.no_model, "the default answerer is the memory answerer"
            if i:
                times.append((job.first_text - t) * 1000)
        session.close()
        c.close()
    p95 = float(np.percentile(times, 95))
    print(f"chat time to first answer (memory answerer, {len(times)} turns): median {np.median(times):.0f} ms, "
          f"p95 {p95:.0f} ms vs goal 1000 ms: {p95 / 1000:.2f}×")


if __name__ == "__main__":
    main()

"""The window's side of forgetting (issue 11): the start-up erases forgets whose restore window has passed."""
from __future__ import annotations

from datetime import timedelta

import pytest

from app.operations.forget import forget, list_forgotten
from app.operations.ingest import ingest
from core import clock
from core.store.forgetting import ForgetOp
from helpers.mboxes import write_mbox

pytestmark = pytest.mark.gui


def test_start_up_erases_expired_forgets_off_the_ui_thread(qtbot, qapp, container, tmp_path):
    from app.models.llm import NoModel
    from ui.main_window import MainWindow

    box = write_mbox(tmp_path / "a.mbox", [("Alice Example <alice@example.com>", "Starter", "Feed it rye."),
                                           ("Bob Stone <bob@example.org>", "Climbing", "Saturday?")])
    ingest(container, [box])
    old = forget(container, "Alice Example")
    fresh = forget(container, "Bob Stone")
    with container.db.session() as s:
        op = s.get(ForgetOp, old.forget_id)
        op.expires_at = clock.now() - timedelta(days=1)  # its 30 days are over
        s.add(op)
    w = MainWindow(container, model_factory=NoModel)
    qtbot.addWidget(w, before_close_func=lambda win: win.shutdown())
    with qtbot.waitSignal(w.upkeep_job.finished, timeout=60_000) as blocker:
        pass
    assert list(blocker.args[0]["purged"]["forgets"]) == [old.forget_id]
    assert [i.forget_id for i in list_forgotten(container)] == [fresh.forget_id]  # Bob is still restorable
    with container.db.session() as s:
        assert s.get(ForgetOp, old.forget_id).state == "purged"
    qtbot.waitUntil(lambda: w.people.forgotten.labels() == ["Bob Stone (person)"], timeout=30_000)
    assert w.shutdown(60_000)

"""`kith doctor` while another process imports: the work that import has not finished yet is pending, as expected —
said so, and not a fault; a holder a crash left named (its process gone) is no one, and the pending work is a fault
to repair."""
from __future__ import annotations

import subprocess
import sys

from app.operations.doctor import diagnose
from app.operations.ingest import ingest
from core.store.lock import OWNER_NAME
from helpers.mboxes import KITCHEN, write_mbox


def test_work_an_import_in_another_process_has_left_is_pending_not_a_fault(container, tmp_path):
    ingest(container, [write_mbox(tmp_path / "k.mbox", KITCHEN)], defer=True)  # vectors and memory left to do
    found = diagnose(container)
    assert not found.ok and found.busy == "" and any(found.pending.values())
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (container.settings.home / OWNER_NAME).write_text(f"pid {other.pid}: kith ingest big.mbox", encoding="utf-8")
        found = diagnose(container)
        assert found.busy == f"pid {other.pid}: kith ingest big.mbox" and found.ok
        assert any(line.startswith(f"note     pid {other.pid}: kith ingest big.mbox is writing") for line in
                   found.describe())
    finally:
        other.kill()
        other.wait()
    found = diagnose(container)  # the holder's process is gone: what it left is to repair
    assert found.busy == "" and not found.ok

"""The stores' health at start-up: a banner when ``kith doctor``'s checks find a problem, with a Repair button.

The check runs on the worker (read-only, ``app.operations.doctor.diagnose``); the repair runs on the
worker too, under the data folder's writer lock, with its progress shown in the banner.
"""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from ui.worker import Worker


class HealthBanner(QWidget):
    """Hidden while the stores agree; otherwise says what is wrong and offers the repair.

    Signals:
        checked(object): the :class:`app.operations.doctor.DoctorReport` of a check.
        repaired(object): the report after a repair.
    """

    checked = Signal(object)
    repaired = Signal(object)

    def __init__(self, container, worker: Worker, parent: QWidget | None = None):
        super().__init__(parent)
        self.container = container
        self.worker = worker
        self.setObjectName("healthBanner")
        self.setStyleSheet("#healthBanner { background: #fff4d6; border-bottom: 1px solid #e0c060; }")
        self.label = QLabel("")
        self.label.setWordWrap(True)
        self.button = QPushButton("Repair")
        self.button.clicked.connect(self.repair)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(10, 6, 10, 6)
        lay.addWidget(self.label, 1)
        lay.addWidget(self.button)
        self.report = None
        self.hide()

    def check(self):
        """Run the checks in the background; the banner shows when something is wrong."""
        from app.operations.doctor import diagnose

        job = self.worker.call(diagnose, self.container, name="check stores")
        job.finished.connect(self._on_checked)
        return job

    def _on_checked(self, report) -> None:
        self.report = report
        if report.ok:
            self.hide()
        else:
            n = report.problems()
            self.label.setText(f"Kith found {n} thing(s) its stores disagree on or an import left unfinished "
                               "(e.g. after a crash, or a deleted vector folder). Repair rebuilds them from what "
                               "is kept; nothing you imported is lost.")
            self.button.setEnabled(True)
            self.show()
        self.checked.emit(report)

    def repair(self):
        """Repair in the background (``kith doctor --repair``), showing progress here."""
        from app.operations.doctor import repair

        self.button.setEnabled(False)
        self.label.setText("Repairing…")
        job = self.worker.submit(lambda j: repair(self.container, progress=lambda st, d, t: j.report((st, d, t)),
                                                  cancel=j.cancel_event), name="repair stores")
        job.progress.connect(lambda p: self.label.setText(f"Repairing: {p[0]} {p[1]}/{p[2]}…"))
        job.finished.connect(self._on_repaired)
        job.failed.connect(lambda msg: (self.label.setText(f"The repair failed: {msg}"), self.button.setEnabled(True)))
        return job

    def _on_repaired(self, report) -> None:
        self.report = report
        done = ", ".join(f"{k} {v}" for k, v in report.repaired.items()) or "nothing to do"
        if report.ok:
            self.label.setText(f"Repaired ({done}).")
            self.button.hide()
        else:
            self.label.setText(f"Repaired what could be repaired ({done}); {report.problems()} problem(s) remain: "
                               "run `kith doctor` for details.")
            self.button.setEnabled(True)
        self.repaired.emit(report)

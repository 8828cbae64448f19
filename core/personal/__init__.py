"""Communication personalization (seed 000, iknowyou): signals, observer, learning, sessions,
preference vectors, observations, cohorts and the brief.

Typical use::

    from core.personal import open_ledger
    ledger = open_ledger(db)            # a Database or a .sqlite3 path; cohorts installed
    ...learn.learn(ledger, exchange)... briefing.assemble(ledger, person_id, now)
"""
from __future__ import annotations


def open_ledger(path):
    """A :class:`core.personal.signals.Ledger` on ``path`` (a Database or file) with the cohort registry installed."""
    from core.personal.cohorts import CohortRegistry
    from core.personal.signals import Ledger

    ledger = Ledger(path)
    CohortRegistry(ledger)
    return ledger

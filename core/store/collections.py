"""Names shared by every store that keeps something about a record or a fact.

One place for the Chroma collection names and the id formats of their members, so that
ingest, ask, search, forget and ``kith doctor`` agree (they used to import each other for them).
"""
from __future__ import annotations

RECORDS = "records"
"""Chroma collection of record vectors (one per record, id ``record:<id>``)."""
FACTS = "facts"
"""Chroma collection of fact-statement vectors (id ``fact:<id>``)."""


def record_vid(record_id: int) -> str:
    """The Chroma id of record ``record_id``'s vector."""
    return f"record:{int(record_id)}"


def fact_vid(fact_id: int) -> str:
    """The Chroma id of fact ``fact_id``'s vector."""
    return f"fact:{int(fact_id)}"


def id_of(vid: str) -> int:
    """The row id in a Chroma id (``"record:12"`` → 12).  Raises ValueError for another shape."""
    return int(vid.split(":", 1)[1])

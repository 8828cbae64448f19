"""The memory answerer: short, direct answers built from current facts and the best evidence, never free text
that nothing checked.  (Filled in below; :func:`history_statement` renders superseded facts.)"""
from __future__ import annotations

from datetime import datetime

from core import clock

_PAST = ((" lives in ", " lived in "), (" works at ", " worked at "), (" works for ", " worked for "),
         (" writes from ", " wrote from "), ("'s birthday is ", "'s birthday was "), (" is ", " was "),
         (" are ", " were "), (" has ", " had "))


def month_year(when: datetime | None) -> str:
    """``"June 2023"`` (UTC), or "" for None."""
    return f"{clock.ensure_utc(when):%B %Y}" if when is not None else ""


def history_statement(statement: str, valid_to: datetime | None) -> str:
    """A superseded fact as history: "As of 2023-01-09, Rosa Vidal lives in Berlin." with ``valid_to``
    2023-06-05 → "Rosa Vidal lived in Berlin until June 2023"."""
    from core.graph.facts import statement_sentence

    body = statement_sentence(statement).rstrip(".")
    for now, then in _PAST:
        if now in body:
            body = body.replace(now, then, 1)
            break
    until = month_year(valid_to)
    return f"{body} until {until}" if until else f"{body} (no longer true)"

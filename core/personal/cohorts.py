"""Cohorts: predicate-defined groups with their own signal ledgers (seed 000 "Cohort Architecture").

Every cohort is defined here, in :data:`COHORTS`, by a predicate over a person's
metadata (``relationship``, ``role``, ``timezone`` …, plus ``interaction_count``).
Every global signal of a member is also written to the cohort's ledger
(owner ``-cohort.id``) at write time (``signals.Ledger.write_many``), so cohort
priors improve as Kith learns anyone.  A person's brief weights cohort priors by
``1 / (1 + n/10)`` of their own interaction count n (seed 000, "Cohort priors fade
with interaction count: Weight = 1 / (1 + individual_count / 10)"): 1.0 at n = 0,
0.5 at 10, 0.25 at 30.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any, Union

from core.personal.signals import Ledger, cohort_owner


@dataclass(frozen=True)
class Eq:
    """``meta[field] == value`` (strings compared case-insensitively)."""

    field: str
    value: Any

    def __call__(self, person: dict) -> bool:
        v = person.get(self.field)
        if isinstance(v, str) and isinstance(self.value, str):
            return v.casefold() == self.value.casefold()
        return v == self.value


@dataclass(frozen=True)
class Range:
    """``min ≤ float(meta[field]) ≤ max`` (either bound may be None = open)."""

    field: str
    min: float | None = None
    max: float | None = None

    def __call__(self, person: dict) -> bool:
        try:
            v = float(person.get(self.field))
        except (TypeError, ValueError):
            return False
        return (self.min is None or v >= self.min) and (self.max is None or v <= self.max)


@dataclass(frozen=True)
class In:
    """``meta[field]`` is one of ``values`` (case-insensitive for strings)."""

    field: str
    values: tuple

    def __call__(self, person: dict) -> bool:
        v = person.get(self.field)
        if isinstance(v, str):
            return v.casefold() in {str(x).casefold() for x in self.values}
        return v in self.values


Predicate = Union[Eq, Range, In]

# The one place cohorts are defined.  The first three are seed 000's examples verbatim.
COHORTS: dict[str, Predicate] = {
    "developers": Eq("role", "engineer"),
    "us_pacific": Eq("timezone", "America/Los_Angeles"),
    "high_engagement": Range("interaction_count", min=20),
    "family": In("relationship", ("family", "parent", "mother", "father", "sibling", "brother", "sister",
                                  "child", "partner", "spouse")),
    "friends": Eq("relationship", "friend"),
    "colleagues": In("relationship", ("colleague", "coworker", "manager", "report", "client")),
    "everyone": Range("interaction_count", min=0),
}

PRIOR_DECAY_N = 10.0  # seed 000: weight = 1 / (1 + individual_count / 10)


def prior_weight(interaction_count: int) -> float:
    """Cohort prior weight for a person with ``interaction_count`` interactions: 1 / (1 + n/10)."""
    return 1.0 / (1.0 + max(0, interaction_count) / PRIOR_DECAY_N)


def _describe(p: Predicate) -> dict:
    return {"type": type(p).__name__, **{k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(p).items()}}


class CohortRegistry:
    """Cohort rows, membership and priors over a ledger; installs itself as the ledger's cohort resolver.

    Args:
        ledger: the signal ledger; cohorts: name → predicate (default :data:`COHORTS`).
    """

    def __init__(self, ledger: Ledger, cohorts: dict[str, Predicate] | None = None):
        self.ledger = ledger
        self.cohorts = dict(COHORTS if cohorts is None else cohorts)
        self._members: dict[int, list[int]] = {}
        want = {name: json.dumps(_describe(pred)) for name, pred in self.cohorts.items()}
        have = dict(ledger.conn.execute("SELECT name, predicate FROM cohort"))
        if any(have.get(name) != pred for name, pred in want.items()):  # a read that finds them current writes nothing
            with ledger.transaction() as c:
                for name, pred in want.items():
                    c.execute("INSERT INTO cohort(name, predicate) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET "
                              "predicate=excluded.predicate", (name, pred))
        self.ids = {n: i for n, i in ledger.conn.execute("SELECT name, id FROM cohort")}
        ledger.cohort_resolver = self.owners_for
        ledger.cohorts = self

    def person_fields(self, person_id: int) -> dict:
        """A person's predicate fields: their metadata plus ``interaction_count`` and ``name``."""
        row = self.ledger.conn.execute("SELECT name, meta, interaction_count FROM person_profile WHERE person_id=?",
                                       (person_id,)).fetchone()
        if row is None:
            return {"interaction_count": 0}
        fields = json.loads(row[1] or "{}")
        fields.update(name=row[0], interaction_count=int(row[2] or 0))
        return fields

    def matching(self, person_id: int) -> list[str]:
        """Names of the cohorts whose predicate the person satisfies now."""
        fields = self.person_fields(person_id)
        return [n for n, p in self.cohorts.items() if p(fields)]

    def owners_for(self, person_id: int) -> list[int]:
        """Ledger owners (negative ids) of the person's cohorts; cached until :meth:`invalidate`."""
        m = self._members.get(person_id)
        if m is None:
            m = self._members[person_id] = [cohort_owner(self.ids[n]) for n in self.matching(person_id)]
        return m

    def invalidate(self, person_id: int | None = None) -> None:
        """Forget cached membership (after a person's metadata or interaction count changed)."""
        if person_id is None:
            self._members.clear()
        else:
            self._members.pop(person_id, None)

    def priors(self, person_id: int, now: float) -> dict[str, dict]:
        """Cohort priors for a person's brief: per matching cohort, aggregate patterns and their weight.

        Each entry: ``weight`` (1 / (1 + n/10)), ``members_signals`` (replies + silences seen),
        ``reply_rate``, ``fast_reply_rate``, ``positive_share``, ``avg_engagement_length``
        (short | medium | long from the mean replied_substantively weight), ``hot_topics``.
        """
        n = self.person_fields(person_id).get("interaction_count", 0)
        w = prior_weight(int(n))
        out: dict[str, dict] = {}
        L = self.ledger
        for name in self.matching(person_id):
            owner = cohort_owner(self.ids[name])
            tot = L.totals(owner, now)
            replied = tot.get("replied", (0, 0.0))[0]
            silent = tot.get("went_silent", (0, 0.0))[0]
            if replied + silent == 0:
                continue
            fast = tot.get("replied_fast", (0, 0.0))[0]
            sub_sum = tot.get("replied_substantively", (0, 0.0))[1]
            pos = tot.get("positive_sentiment", (0, 0.0))[0]
            neg = tot.get("negative_sentiment", (0, 0.0))[0]
            depth = sub_sum / replied if replied else 0.0
            topics = L.targets("topic_engaged", owner, now)
            hot = [t[2:] for t, _v in sorted(topics.items(), key=lambda kv: -kv[1][2])[:3]]
            out[name] = {
                "weight": round(w, 4),
                "members_signals": replied + silent,
                "reply_rate": round(replied / (replied + silent), 3),
                "fast_reply_rate": round(fast / replied, 3) if replied else 0.0,
                "positive_share": round(pos / (pos + neg), 3) if pos + neg else None,
                "avg_engagement_length": "short" if depth < 0.3 else ("medium" if depth < 0.7 else "long"),
                "hot_topics": hot,
            }
        return out

"""One source of "now" for the whole engine.

All times in Kith are timezone-aware UTC ``datetime`` objects; naive datetimes
are bugs (DESIGN.md §2).  Tests move time with :func:`frozen`.
"""
from __future__ import annotations

import contextlib
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterator

_now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)


def now() -> datetime:
    """Return the current time as a tz-aware UTC datetime."""
    return _now()


def ensure_utc(value: datetime | None) -> datetime | None:
    """Return ``value`` converted to UTC; a naive datetime is taken to be UTC already.

    SQLite hands datetimes back naive (it stores no offset); Kith only ever
    writes UTC, so reattaching UTC here is exact.
    """
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


def offset_minutes(value: datetime | None) -> int | None:
    """The UTC offset of a tz-aware ``value`` in whole minutes east of UTC (``+10:00`` → 600), or None
    when ``value`` is None or naive (the offset is unknown, not zero)."""
    if value is None or value.tzinfo is None:
        return None
    off = value.utcoffset()
    return None if off is None else int(off.total_seconds() // 60)


def local_time(value: datetime | None, offset: int | None) -> datetime | None:
    """``value`` (UTC, or naive UTC as SQLite returns it) shown at the offset it was recorded with
    (``offset`` minutes east of UTC); in UTC when the offset is unknown (None)."""
    value = ensure_utc(value)
    if value is None or offset is None:
        return value
    return value.astimezone(timezone(timedelta(minutes=offset)))


@contextlib.contextmanager
def frozen(at: datetime) -> Iterator[None]:
    """Make :func:`now` return ``at`` (must be tz-aware) inside the block."""
    global _now
    if at.tzinfo is None:
        raise ValueError("frozen() needs a tz-aware datetime")
    previous = _now
    _now = lambda: at.astimezone(timezone.utc)
    try:
        yield
    finally:
        _now = previous

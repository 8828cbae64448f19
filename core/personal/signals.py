"""The signal ledger of seed 000 (iknowyou): ten signals, exponential decay, windows, velocity, buckets.

Every constant below is seed 000's "Signal Schema" tables, row by row:

==========================  =========  ======================  ========  ==============================
signal                      half-life  windows                 velocity  weight semantics
==========================  =========  ======================  ========  ==============================
replied                     7d         1h, 24h, 7d, AllTime    yes       1.0 = responded at all
replied_fast                3d         1h, 24h, 7d             yes       1.0 = latency < 120 s
replied_substantively       7d         24h, 7d, AllTime        yes       0.0–1.0 by word count / depth
positive_sentiment          14d        24h, 7d, 30d, AllTime   no        0.0–1.0 observer sentiment
negative_sentiment          3d         24h, 7d                 no        0.0–1.0 observer sentiment
went_silent                 1d         24h, 7d                 no        1.0 = no response after timeout
topic_engaged               14d        7d, 30d, AllTime        yes       1.0 = stayed on / deepened topic
topic_dropped               3d         7d                      no        1.0 = redirected or went brief
initiated                   30d        30d, AllTime            no        1.5 = raised it unprompted
confidence                  30d        AllTime                 no        1.0 at creation (observations)
==========================  =========  ======================  ========  ==============================

Storage (``core/store/personal_schema.py``): one lean ``signal`` row per global write
``(owner, name, at, id, target, weight, session_id)``, clustered on (owner, name, at)
(WITHOUT ROWID: one b-tree per write); ``at`` is UTC epoch
seconds (float).  ``owner`` names the ledger: a person's entity id (> 0), or
``-cohort_id`` for a cohort's ledger (:func:`cohort_owner`).  ``target`` is what
the signal is about: ``"m:<message id>"``, ``"t:<topic>"``, ``"o:<observation id>"``.

Aggregates (``signal_agg``) are kept off the write path: per (owner, name) and UTC
hour-of-week (0 = Monday 00:00–01:00 UTC) for message targets, and per (owner, name,
target) for topic and observation targets, each with count, weight sum and an
exponentially decayed score at a reference time.  They hold exactly the global rows at
or below a per-(owner, name) watermark (``signal_wm``): :meth:`Ledger.fold` sums the rows
above it in batch (at the end of every batch write, and every :data:`FOLD_EVERY` single
writes) and moves it up; a row written later *below* the watermark is merged by a
trigger whose WHEN clause is one primary-key probe, so an ordinary write is one INSERT.
Reads with ``now`` at or after the watermark add the aggregates (exact:
Σ wᵢ·2^(−(now−tᵢ)/h) = S·2^(−(now−t_ref)/h)) to a range scan of the rows above it;
reads in the past scan the raw rows.  Every read is exact for any ``now``.

Windows are half-open: a signal at ``at`` is in window W at ``now`` when
``now − W < at ≤ now``.  Session-scoped signals live in ``session_signal`` and are
invisible to global reads until :meth:`Ledger.promote_session` moves them (``sessions.py``).
"""
from __future__ import annotations

import math
import random
import sqlite3
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Iterable, Sequence

from core.errors import StoreError

HOUR = 3600.0
DAY = 86400.0


class Window(Enum):
    """Aggregation windows of seed 000 ("Windows: 1h, 24h, 7d, 30d, AllTime"); value = seconds (None = all time)."""

    H1 = 3600.0
    H24 = 86400.0
    D7 = 7 * 86400.0
    D30 = 30 * 86400.0
    ALL = None

    @property
    def label(self) -> str:
        return {"H1": "1h", "H24": "24h", "D7": "7d", "D30": "30d", "ALL": "AllTime"}[self.name]


@dataclass(frozen=True)
class SignalSpec:
    """One row of seed 000's signal tables.

    Attributes:
        name: signal name.
        half_life_s: decay half-life in seconds.
        windows: the windows the seed lists for it.
        velocity: whether the seed tracks velocity for it.
        default_weight: the weight the seed gives a plain occurrence (1.0; 1.5 for ``initiated``).
        group: ``"engagement"`` (on messages), ``"topic"`` or ``"meta"`` (on observations).
    """

    name: str
    half_life_s: float
    windows: tuple[Window, ...]
    velocity: bool
    default_weight: float
    group: str

    @property
    def velocity_windows(self) -> tuple[Window, Window]:
        """(recent, long) windows used for velocity: the longest finite window and the next shorter one."""
        finite = [w for w in self.windows if w is not Window.ALL]
        if len(finite) < 2:
            raise ValueError(f"{self.name}: velocity needs two finite windows")
        return finite[-2], finite[-1]


W = Window
SIGNALS: dict[str, SignalSpec] = {s.name: s for s in (
    # Engagement signals (seed 000, "Engagement Signals (on Message items)")
    SignalSpec("replied", 7 * DAY, (W.H1, W.H24, W.D7, W.ALL), True, 1.0, "engagement"),
    SignalSpec("replied_fast", 3 * DAY, (W.H1, W.H24, W.D7), True, 1.0, "engagement"),
    SignalSpec("replied_substantively", 7 * DAY, (W.H24, W.D7, W.ALL), True, 1.0, "engagement"),
    SignalSpec("positive_sentiment", 14 * DAY, (W.H24, W.D7, W.D30, W.ALL), False, 1.0, "engagement"),
    SignalSpec("negative_sentiment", 3 * DAY, (W.H24, W.D7), False, 1.0, "engagement"),
    SignalSpec("went_silent", 1 * DAY, (W.H24, W.D7), False, 1.0, "engagement"),
    # Topic signals (seed 000, "Topic Signals")
    SignalSpec("topic_engaged", 14 * DAY, (W.D7, W.D30, W.ALL), True, 1.0, "topic"),
    SignalSpec("topic_dropped", 3 * DAY, (W.D7,), False, 1.0, "topic"),
    SignalSpec("initiated", 30 * DAY, (W.D30, W.ALL), False, 1.5, "topic"),
    # Meta signals (seed 000, "Meta Signals (on Observation items)")
    SignalSpec("confidence", 30 * DAY, (W.ALL,), False, 1.0, "meta"),
)}

REPLIED_FAST_S = 120.0          # seed 000: replied_fast "1.0 = latency < 120s"
INITIATED_WEIGHT = 1.5          # seed 000: initiated "1.5 = they brought this up unprompted"
ALL_TARGETS = "*"
FOLD_EVERY = 256        # single writes between folds (Kith's choice: a fold of ≤ 256 rows costs well under 1 ms)
CACHE_KIB = 65536       # SQLite page cache per ledger connection, KiB (64 MiB: a person's brief stays in memory)


def spec(name: str) -> SignalSpec:
    """The spec of signal ``name``.  Raises ValueError for a name not in seed 000's tables."""
    try:
        return SIGNALS[name]
    except KeyError:
        raise ValueError(f"unknown signal {name!r} (known: {', '.join(SIGNALS)})") from None


def decay_factor(age_s: float, half_life_s: float) -> float:
    """2^(−age/half-life): 0.5 after one half-life, 0.25 after two (age in seconds, ≥ 0)."""
    return math.pow(0.5, age_s / half_life_s)


def cohort_owner(cohort_id: int) -> int:
    """The ledger owner id of a cohort (negative, so it never collides with a person's entity id)."""
    return -int(cohort_id)


def epoch(at: datetime | float) -> float:
    """UTC epoch seconds of a tz-aware datetime (a float passes through).  Raises ValueError on naive datetimes."""
    if isinstance(at, (int, float)):
        return float(at)
    if at.tzinfo is None:
        raise ValueError("naive datetime: Kith times must be tz-aware UTC")
    return at.timestamp()


def from_epoch(t: float) -> datetime:
    """tz-aware UTC datetime from epoch seconds."""
    return datetime.fromtimestamp(t, tz=timezone.utc)


def hour_of_week(t: float) -> int:
    """UTC hour of the week, 0 = Monday 00:00–00:59 UTC … 167 = Sunday 23:00 (epoch 0 was a Thursday)."""
    return (int(t // 3600) + 72) % 168


@dataclass(frozen=True)
class SignalWrite:
    """One signal to write.

    Attributes:
        name: a seed 000 signal name; owner: person entity id (or :func:`cohort_owner`);
        target: ``"m:<id>"``, ``"t:<topic>"``, ``"o:<id>"``; weight: float; at: UTC epoch seconds.
    """

    name: str
    owner: int
    target: str
    weight: float
    at: float


def _check_math(conn: sqlite3.Connection) -> None:
    try:
        conn.execute("SELECT pow(0.5, 1.0), exp(0.0)").fetchone()
    except sqlite3.OperationalError:  # SQLite built without SQLITE_ENABLE_MATH_FUNCTIONS
        conn.create_function("pow", 2, math.pow, deterministic=True)
        conn.create_function("exp", 1, math.exp, deterministic=True)


class Ledger:
    """The signal ledger over one Kith SQLite file (WAL), with all reads taking an explicit ``now``.

    Each thread gets its own sqlite3 connection (WAL lets readers run beside the
    one writer).  A durable single write is one autocommit INSERT statement (its own
    committed transaction); batches run in one transaction.  Aggregates are folded in
    batch (:meth:`fold`): at the end of every batch write, and with every
    :attr:`fold_every`-th single write.

    Args:
        path: the Kith ``.sqlite3`` file, or a :class:`core.store.db.Database` (its ``path`` is used).
        cohort_resolver: optional callable ``owner -> list[int]`` of cohort ledger owners a
            person's signals are copied to (``cohorts.py`` installs it).
        fold_every: single writes between folds of the pairs they touched (rows, ≥ 1).

    Raises:
        StoreError: the file cannot be opened as a SQLite database.
    """

    def __init__(self, path, cohort_resolver=None, fold_every: int = FOLD_EVERY):
        # a server Database: the ledger's statements run on PostgreSQL through core.store.dialect
        self.url = getattr(path, "url", None) if getattr(path, "server", False) else None
        self.path = Path(getattr(path, "path", path)) if self.url is None else None
        self._local = threading.local()
        self.cohort_resolver = cohort_resolver
        self.cohorts = None  # a cohorts.CohortRegistry installs itself here
        self.fold_every = max(1, int(fold_every))
        self._dirty: set[tuple[int, str]] = set()   # (owner, name) written singly since the last fold
        self._pending = 0
        from core.store import personal_schema

        if self.url is not None:
            return  # the server's schema (tables, full-text table, trigger) is made by Database
        try:
            personal_schema.ensure(self.conn)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot open the personal ledger: {exc}") from exc

    # -- connections ------------------------------------------------------------------
    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's connection (autocommit; use :meth:`transaction` for writes)."""
        c = getattr(self._local, "conn", None)
        if c is None and self.url is not None:
            from core.store.dialect import connect_pg

            c = self._local.conn = connect_pg(self.url)
        if c is None:
            c = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=30)
            c.execute("PRAGMA journal_mode=WAL")
            c.execute("PRAGMA synchronous=NORMAL")
            c.execute("PRAGMA foreign_keys=ON")
            c.execute("PRAGMA busy_timeout=10000")
            c.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
            _check_math(c)
            self._local.conn = c
        return c

    def transaction(self):
        """Context manager: BEGIN IMMEDIATE … COMMIT (ROLLBACK on error) on this thread's connection."""
        return _Tx(self.conn)

    def close(self) -> None:
        """Close this thread's connection (folding what single writes left unfolded, when it can)."""
        c = getattr(self._local, "conn", None)
        if c is not None:
            if self._dirty:
                try:
                    with self.transaction() as tx:
                        self._fold_dirty(tx)
                except Exception:  # another writer holds the lock: reads stay exact without the fold
                    pass
            c.close()
            self._local.conn = None

    # -- writes -----------------------------------------------------------------------
    def write(self, name: str, owner: int, target: str, weight: float | None, at: datetime | float,
              session_id: int | None = None) -> None:
        """Write one signal durably (one autocommit INSERT statement: its own committed transaction),
        copied to the owner's cohorts (same statement) when global.

        Args:
            name: seed 000 signal name; owner: ledger owner; target: what it is about;
            weight: None = the seed's default weight; at: tz-aware UTC datetime or epoch seconds;
            session_id: a session id keeps it session-scoped (invisible globally until promotion).

        Raises:
            ValueError: unknown signal name or naive datetime.
        """
        sp = SIGNALS.get(name)
        if sp is None:
            raise ValueError(f"unknown signal {name!r}")
        w = sp.default_weight if weight is None else float(weight)
        t = at if isinstance(at, float) else epoch(at)
        c = self.conn
        if session_id is not None:
            c.execute(_SESSION_SQL, (session_id, name, owner, target, w, t))
            return
        cohorts = self.cohort_resolver(owner) if (self.cohort_resolver is not None and owner > 0
                                                   and name != "confidence") else ()
        if cohorts:
            params: tuple = (owner, name, t, _rid(), target, w, None, None)
            for co in cohorts:
                params += (co, name, t, _rid(), target, w, None, owner)
            sql = _insert_sql(1 + len(cohorts))
        else:
            sql, params = _GLOBAL_SQL, (owner, name, t, _rid(), target, w, None, None)
        # no lock: a pair missed by a racing fold only waits for the next one (reads never depend on folds)
        dirty = self._dirty
        dirty.add((owner, name))
        for co in cohorts:
            dirty.add((co, name))
        self._pending += 1
        due = self._pending >= self.fold_every
        if not due or c.in_transaction:
            c.execute(sql, params)
            return
        with self.transaction() as tx:
            tx.execute(sql, params)
            self._fold_dirty(tx)

    def write_many(self, writes: Sequence[SignalWrite], session_id: int | None = None,
                   conn: sqlite3.Connection | None = None, to_cohorts: bool = True) -> int:
        """Write a batch of signals in one transaction (or inside the caller's, when ``conn`` is given).

        Global writes (``session_id`` None) are also written to each of the owner's cohort
        ledgers and the aggregates of the (owner, name) pairs they touch are folded in the
        same transaction; session writes are copied at promotion.  Returns rows written.

        Raises:
            ValueError: an unknown signal name.
        """
        for w in writes:
            if w.name not in SIGNALS:
                raise ValueError(f"unknown signal {w.name!r}")
        if session_id is not None:
            rows = [(session_id, w.name, w.owner, w.target, w.weight, w.at) for w in writes]
            if conn is not None:
                conn.executemany(_SESSION_SQL, rows)
            else:
                with self.transaction() as c:
                    c.executemany(_SESSION_SQL, rows)
            return len(rows)
        rows = self._with_cohorts([(w.owner, w.name, w.at, _rid(), w.target, w.weight, None, None) for w in writes],
                                  to_cohorts)

        def run(c: sqlite3.Connection) -> None:
            c.executemany(_GLOBAL_SQL, rows)
            self.fold(c, {(r[0], r[1]) for r in rows})
        if conn is not None:
            run(conn)
        else:
            with self.transaction() as c:
                run(c)
        return len(rows)

    def _with_cohorts(self, rows: list[tuple], to_cohorts: bool = True) -> list[tuple]:
        """``rows`` (global-row tuples) plus a copy per cohort of each person owner (``src`` = the person)."""
        if not to_cohorts or self.cohort_resolver is None:
            return rows
        out = list(rows)
        cache: dict[int, list[int]] = {}
        for r in rows:
            owner = r[0]
            if owner > 0 and r[1] != "confidence":
                cs = cache.get(owner)
                if cs is None:
                    cs = cache[owner] = list(self.cohort_resolver(owner))
                out.extend((co, r[1], r[2], _rid(), r[4], r[5], r[6], owner) for co in cs)
        return out

    def promote_session(self, session_id: int, conn: sqlite3.Connection | None = None) -> int:
        """Move a session's signals into the global ledger, copying them to the owners' cohorts and
        folding the aggregates they touch.  Returns the number of signals promoted.  Runs inside
        ``conn``'s transaction when given.
        """
        def run(c: sqlite3.Connection) -> int:
            rows = c.execute("SELECT owner, name, at, target, weight FROM session_signal WHERE session_id = ? "
                             "ORDER BY id", (session_id,)).fetchall()
            glob = self._with_cohorts([(o, n, a, _rid(), t, w, session_id, None) for o, n, a, t, w in rows])
            c.executemany(_GLOBAL_SQL, glob)
            self.fold(c, {(r[0], r[1]) for r in glob})
            c.execute("DELETE FROM session_signal WHERE session_id = ?", (session_id,))
            return len(rows)
        if conn is not None:
            return run(conn)
        with self.transaction() as c:
            return run(c)

    # -- aggregates -------------------------------------------------------------------
    def fold(self, conn: sqlite3.Connection, pairs: Iterable[tuple[int, str]] | None = None) -> int:
        """Fold the global rows above each (owner, name) watermark into ``signal_agg`` (caller's transaction).

        For each pair: rows with ``wm < at ≤ max(at)`` are summed per aggregate key (count, weight
        sum, decayed score at the new reference time, first/last at) and merged into the stored
        aggregates; the watermark moves to that max(at).  Rows written later with ``at ≤ wm`` are
        merged by the ``signal_agg_late`` trigger, so the aggregates always hold exactly the rows at
        or below the watermark and reads add the rows above it.

        Args:
            conn: a connection inside a write transaction.
            pairs: (owner, name) pairs; None = every pair that has global rows (slow: a maintenance pass).

        Returns:
            Rows folded.
        """
        if pairs is None:
            pairs = conn.execute("SELECT DISTINCT owner, name FROM signal").fetchall()
        folded = 0
        for owner, name in pairs:
            row = conn.execute("SELECT wm FROM signal_wm WHERE owner=? AND name=?", (owner, name)).fetchone()
            lo = row[0] if row else None
            hi = conn.execute("SELECT max(at) FROM signal WHERE owner=? AND name=?", (owner, name)).fetchone()[0]
            if hi is None or (lo is not None and hi <= lo):
                continue
            hl = SIGNALS[name].half_life_s if name in SIGNALS else DAY
            lo = -math.inf if lo is None else lo
            conn.execute(_FOLD_SQL, (hi, hl, owner, name, lo))
            n, total = conn.execute("SELECT count(*), coalesce(sum(weight), 0) FROM signal WHERE owner=? AND name=? "
                                    "AND at > ? AND at <= ?", (owner, name, lo, hi)).fetchone()
            conn.execute("INSERT INTO signal_wm(owner, name, wm, n, total) VALUES (?,?,?,?,?) ON CONFLICT(owner, name) "
                         "DO UPDATE SET wm = excluded.wm, n = signal_wm.n + excluded.n, total = signal_wm.total + excluded.total",
                         (owner, name, hi, n, total))
            folded += n
        return folded

    def _fold_dirty(self, conn: sqlite3.Connection) -> None:
        pairs, self._dirty, self._pending = self._dirty, set(), 0
        self.fold(conn, pairs)

    def _wms(self, owner: int) -> dict[str, float]:
        """name → watermark of one ledger (the aggregates hold exactly the rows with at ≤ wm)."""
        return dict(self.conn.execute("SELECT name, wm FROM signal_wm WHERE owner=?", (owner,)).fetchall())

    def _wm(self, owner: int, name: str, now: float) -> float | None:
        """The watermark to split reads at: the aggregates answer at ≤ wm, rows answer above it; None
        when the aggregates cannot help (nothing folded, or ``now`` before the watermark)."""
        row = self.conn.execute("SELECT wm FROM signal_wm WHERE owner=? AND name=?", (owner, name)).fetchone()
        return row[0] if row is not None and row[0] <= now else None

    # -- reads ------------------------------------------------------------------------
    @staticmethod
    def _scope(session_id: int | None) -> tuple[str, str, tuple]:
        if session_id is None:
            return "signal", "", ()
        return "session_signal", " AND session_id = ?", (session_id,)

    @staticmethod
    def _aggregated(target: str | None) -> bool:
        """Whether the aggregates can answer for ``target`` (all targets, or a topic/observation one)."""
        return target is None or target.startswith(("t:", "o:"))

    def decayed(self, name: str, owner: int, now: datetime | float, target: str | None = None,
                session_id: int | None = None) -> float:
        """Σ weight·2^(−(now − at)/half-life) over the signals at or before ``now``.

        Args:
            name: signal; owner: ledger; now: explicit time (tz-aware UTC or epoch seconds);
            target: one target, or None for all targets of the owner; session_id: read a session's rows.

        Returns:
            The decayed score (float, ≥ 0 for non-negative weights); 0.0 when there are none.
        """
        now = epoch(now)
        hl = spec(name).half_life_s
        tq, tp = (" AND target = ?", (target,)) if target is not None else ("", ())
        wm = self._wm(owner, name, now) if session_id is None and self._aggregated(target) else None
        if wm is not None:
            row = self.conn.execute(
                f"SELECT (SELECT sum(score * pow(0.5, (? - t_ref) / ?)) FROM signal_agg WHERE owner=? AND name=?{tq}),"
                f" (SELECT sum(weight * pow(0.5, (? - at) / ?)) FROM signal WHERE owner=? AND name=? AND at > ? "
                f"AND at <= ?{tq})", (now, hl, owner, name, *tp, now, hl, owner, name, wm, now, *tp)).fetchone()
            return float((row[0] or 0.0) + (row[1] or 0.0))
        table, scope, args = self._scope(session_id)
        q = (f"SELECT sum(weight * pow(0.5, (? - at) / ?)) FROM {table} WHERE owner=? AND name=? "
             f"AND at <= ?{scope}{tq}")
        return float(self.conn.execute(q, (now, hl, owner, name, now) + args + tp).fetchone()[0] or 0.0)

    def windowed(self, name: str, owner: int, window: Window, now: datetime | float,
                 target: str | None = None, session_id: int | None = None,
                 check_window: bool = True) -> tuple[int, float]:
        """(count, weight sum) of signals with ``now − window < at ≤ now`` (AllTime: ``at ≤ now``).

        Raises:
            ValueError: ``window`` is not one of the seed's windows for ``name`` (unless ``check_window=False``).
        """
        sp = spec(name)
        if check_window and window not in sp.windows:
            raise ValueError(f"{name} has windows {[w.label for w in sp.windows]}, not {window.label}")
        now = epoch(now)
        tq, tp = (" AND target = ?", (target,)) if target is not None else ("", ())
        wm = (self._wm(owner, name, now) if window is Window.ALL and session_id is None and self._aggregated(target)
              else None)
        if wm is not None:
            a = self.conn.execute(f"SELECT sum(n), sum(total) FROM signal_agg WHERE owner=? AND name=?{tq}",
                                  (owner, name, *tp)).fetchone() if target is not None else \
                self.conn.execute("SELECT n, total FROM signal_wm WHERE owner=? AND name=?", (owner, name)).fetchone()
            b = self.conn.execute(f"SELECT count(*), sum(weight) FROM signal WHERE owner=? AND name=? AND at > ? "
                                  f"AND at <= ?{tq}", (owner, name, wm, now, *tp)).fetchone()
            return int(a[0] or 0) + int(b[0]), float(a[1] or 0.0) + float(b[1] or 0.0)
        table, scope, args = self._scope(session_id)
        q = f"SELECT count(*), sum(weight) FROM {table} WHERE owner=? AND name=? AND at <= ?{scope}"
        params: tuple = (owner, name, now) + args
        if window.value is not None:
            q += " AND at > ?"
            params += (now - window.value,)
        n, s = self.conn.execute(q + tq, params + tp).fetchone()
        return int(n), float(s or 0.0)

    def velocity(self, name: str, owner: int, now: datetime | float, target: str | None = None,
                 windows: tuple[Window, Window] | None = None) -> float:
        """Rate in the recent window over rate in the long one: (n_recent/len_recent) / (n_long/len_long).

        The windows default to the signal's two longest finite windows (seed 000 table), e.g.
        24h against 7d for ``replied`` and 7d against 30d for ``topic_engaged``.  1.0 = steady;
        above 1 = rising; the maximum, len_long/len_recent, means everything happened recently.

        Returns:
            The ratio (float); 0.0 when the long window is empty.

        Raises:
            ValueError: the signal has no velocity in seed 000's table.
        """
        sp = spec(name)
        if not sp.velocity:
            raise ValueError(f"seed 000 tracks no velocity for {name}")
        recent, long = windows or sp.velocity_windows
        n_r, _ = self.windowed(name, owner, recent, now, target, check_window=False)
        n_l, _ = self.windowed(name, owner, long, now, target, check_window=False)
        if n_l == 0:
            return 0.0
        return (n_r / recent.value) / (n_l / long.value)

    def _how_rows(self, name: str, owner: int, now: float, lo: float | None, hi_window: float | None = None
                  ) -> list[tuple]:
        """(how, count, weight sum) of message-target rows with lo < at ≤ now (and at > now − window)."""
        q = (f"SELECT {_HOW_SQL} AS how, count(*), sum(weight) FROM signal WHERE owner=? AND name=? AND at <= ? "
             f"AND {_MSG_TARGET}")
        params: tuple = (owner, name, now)
        for bound in (lo, hi_window):
            if bound is not None:
                q += " AND at > ?"
                params += (bound,)
        return self.conn.execute(q + " GROUP BY how", params).fetchall()

    def hour_of_week(self, name: str, owner: int, now: datetime | float, utc_offset_hours: int = 0,
                     window: Window = Window.ALL) -> list[tuple[int, float]]:
        """168 (count, weight sum) buckets of message-target signals, index = local hour of the week
        (0 = Monday 00h local).

        Args:
            utc_offset_hours: the person's offset from UTC in whole hours (buckets are stored in UTC
                hours and rotated; half-hour zones are rounded by the caller).
            window: AllTime reads the aggregates (plus the rows above the watermark); a finite window scans rows.
        """
        now = epoch(now)
        out = [(0, 0.0)] * 168
        wm = self._wm(owner, name, now) if window is Window.ALL else None
        if wm is not None:
            rows = self.conn.execute("SELECT how, n, total FROM signal_agg WHERE owner=? AND name=? AND target=?",
                                     (owner, name, ALL_TARGETS)).fetchall() + self._how_rows(name, owner, now, wm)
        else:
            rows = self._how_rows(name, owner, now, None, None if window.value is None else now - window.value)
        for how, n, total in rows:
            if how is None or how < 0:
                continue
            i = (how + utc_offset_hours) % 168
            out[i] = (out[i][0] + int(n), out[i][1] + float(total or 0.0))
        return out

    def hour_of_week_many(self, names: Sequence[str], owner: int, now: datetime | float,
                          utc_offset_hours: int = 0) -> dict[str, list[int]]:
        """All-time counts of message-target signals by local hour of the week for several signals: name → 168 ints."""
        now = epoch(now)
        out = {n: [0] * 168 for n in names}
        wms = self._wms(owner)
        agg = [n for n in names if n in wms and wms[n] <= now]
        rows = self.conn.execute(  # one row per signal: "how:n,how:n,…" (few rows to fetch)
            f"SELECT name, group_concat(how || ':' || n) FROM signal_agg WHERE owner=? AND name IN "
            f"({','.join('?' * len(agg))}) AND target=? GROUP BY name", (owner, *agg, ALL_TARGETS)) if agg else ()
        for name, cells in rows:
            row = out[name]
            for cell in cells.split(","):
                how, n = cell.split(":")
                row[(int(how) + utc_offset_hours) % 168] += int(n)
        parts, params = [], []
        for n in names:
            lo = wms[n] if n in agg else -math.inf
            parts.append(f"SELECT name, {_HOW_SQL} AS how, count(*) FROM signal WHERE owner=? AND name=? "
                         f"AND at > ? AND at <= ? AND {_MSG_TARGET} GROUP BY name, how")
            params += [owner, n, lo, now]
        for name, how, n in self.conn.execute(" UNION ALL ".join(parts), params):
            if how is not None and how >= 0:
                out[name][(how + utc_offset_hours) % 168] += int(n)
        return out

    def hour_of_day(self, name: str, owner: int, now, utc_offset_hours: int = 0,
                    window: Window = Window.ALL) -> list[tuple[int, float]]:
        """24 (count, weight sum) buckets by local hour of day (0–23)."""
        how = self.hour_of_week(name, owner, now, utc_offset_hours, window)
        out = []
        for h in range(24):
            cells = [how[d * 24 + h] for d in range(7)]
            out.append((sum(c[0] for c in cells), sum(c[1] for c in cells)))
        return out

    def day_of_week(self, name: str, owner: int, now, utc_offset_hours: int = 0,
                    window: Window = Window.ALL) -> list[tuple[int, float]]:
        """7 (count, weight sum) buckets by local day of week (0 = Monday)."""
        how = self.hour_of_week(name, owner, now, utc_offset_hours, window)
        return [(sum(c[0] for c in how[d * 24:(d + 1) * 24]), sum(c[1] for c in how[d * 24:(d + 1) * 24]))
                for d in range(7)]

    def targets(self, name: str, owner: int, now: datetime | float, prefix: str = "t:",
                window: Window = Window.ALL) -> dict[str, tuple[int, float, float, float]]:
        """Per-target (count, weight sum, decayed score at now, last at) for targets starting ``prefix``.

        AllTime reads the per-target aggregates (topic and observation targets) plus the rows above
        the watermark; finite windows scan rows.
        """
        now = epoch(now)
        hl = spec(name).half_life_s
        hi = prefix + "\uffff"
        wm = self._wm(owner, name, now) if window is Window.ALL and prefix.startswith(("t:", "o:")) else None
        lo = wm if wm is not None else (None if window.value is None else now - window.value)
        q = ("SELECT target, count(*), sum(weight), sum(weight * pow(0.5, (? - at) / ?)), max(at) FROM signal "
             "WHERE owner=? AND name=? AND at <= ? AND target >= ? AND target < ?")
        params: tuple = (now, hl, owner, name, now, prefix, hi)
        if lo is not None:
            q += " AND at > ?"
            params += (lo,)
        rows = self.conn.execute(q + " GROUP BY target", params).fetchall()
        out = {r[0]: (int(r[1]), float(r[2] or 0), float(r[3] or 0), float(r[4])) for r in rows}
        if wm is None:
            return out
        for tg, n, s, score, last in self.conn.execute(
                "SELECT target, n, total, score * pow(0.5, (? - t_ref) / ?), last_at FROM signal_agg "
                "WHERE owner=? AND name=? AND target >= ? AND target < ?", (now, hl, owner, name, prefix, hi)):
            d = out.get(tg)
            out[tg] = ((int(n), float(s), float(score), float(last)) if d is None else
                       (d[0] + int(n), d[1] + float(s), d[2] + float(score), max(d[3], float(last))))
        return out

    def recent(self, name: str, owner: int, now: datetime | float, limit: int = 200
               ) -> list[tuple[str, float, float]]:
        """The newest ``limit`` global signals at or before ``now``: (target, weight, at), newest first."""
        return [(r[0], float(r[1]), float(r[2])) for r in self.conn.execute(
            "SELECT target, weight, at FROM signal WHERE owner=? AND name=? AND at <= ? "
            "ORDER BY at DESC LIMIT ?", (owner, name, epoch(now), limit))]

    def totals(self, owner: int, now: datetime | float) -> dict[str, tuple[int, float]]:
        """All-time (count, weight sum) per signal name of one ledger at ``now``: the watermark rows'
        running counts plus the rows above each watermark (one query each)."""
        now = epoch(now)
        out: dict[str, tuple[int, float]] = {}
        lo: dict[str, float] = {}
        for name, wm, n, s in self.conn.execute("SELECT name, wm, n, total FROM signal_wm WHERE owner=?", (owner,)):
            if wm <= now:
                lo[name] = wm
                if n:
                    out[name] = (int(n), float(s or 0.0))
        parts, params = [], []
        for name in SIGNALS:
            parts.append("SELECT name, count(*), sum(weight) FROM signal WHERE owner=? AND name=? AND at > ? "
                         "AND at <= ? GROUP BY name")  # (PostgreSQL names every selected column in GROUP BY)
            params += [owner, name, lo.get(name, -math.inf), now]
        for name, n, s in self.conn.execute(" UNION ALL ".join(parts), params):
            if n:
                a = out.get(name, (0, 0.0))
                out[name] = (a[0] + int(n), a[1] + float(s or 0.0))
        return out

    def forget_owner(self, owner: int, conn: sqlite3.Connection | None = None) -> dict[str, int]:
        """Remove one ledger owner's signals everywhere: their own global and session rows, their
        aggregates and watermarks, and their copies in cohort ledgers (whose aggregates are rebuilt).

        Runs inside ``conn``'s transaction when given, else in its own.

        Returns:
            Rows removed: {"signal", "session_signal", "cohort_signal", "signal_agg", "signal_wm"}.
        """
        def run(c: sqlite3.Connection) -> dict[str, int]:
            out = {"signal": c.execute("DELETE FROM signal WHERE owner=?", (owner,)).rowcount,
                   "session_signal": c.execute("DELETE FROM session_signal WHERE owner=?", (owner,)).rowcount,
                   "signal_agg": c.execute("DELETE FROM signal_agg WHERE owner=?", (owner,)).rowcount,
                   "signal_wm": c.execute("DELETE FROM signal_wm WHERE owner=?", (owner,)).rowcount}
            pairs = c.execute("SELECT DISTINCT owner, name FROM signal WHERE src=?", (owner,)).fetchall()
            out["cohort_signal"] = c.execute("DELETE FROM signal WHERE src=?", (owner,)).rowcount
            for co, name in pairs:  # rebuild the cohort's aggregates for that signal from its remaining rows
                c.execute("DELETE FROM signal_agg WHERE owner=? AND name=?", (co, name))
                c.execute("DELETE FROM signal_wm WHERE owner=? AND name=?", (co, name))
            self.fold(c, pairs)
            self._dirty = {p for p in self._dirty if p[0] != owner}
            return out
        if conn is not None:
            return run(conn)
        with self.transaction() as c:
            return run(c)

    def delete_owner(self, owner: int) -> int:
        """Remove every signal of one ledger (see :meth:`forget_owner`).  Returns the owner's global rows removed."""
        return self.forget_owner(owner)["signal"]


_COLS = "owner, name, at, id, target, weight, session_id, src"
_GLOBAL_SQL = f"INSERT INTO signal({_COLS}) VALUES (?,?,?,?,?,?,?,?)"
_SESSION_SQL = "INSERT INTO session_signal(session_id, name, owner, target, weight, at) VALUES (?,?,?,?,?,?)"
_HOW_SQL = "(CAST(at / 3600 AS INTEGER) + 72) % 168"
_MSG_TARGET = "substr(target, 1, 2) NOT IN ('t:', 'o:')"
_KEY_SQL = "CASE WHEN substr(target, 1, 2) IN ('t:', 'o:') THEN target ELSE '*' END"
_HOWKEY_SQL = f"CASE WHEN substr(target, 1, 2) IN ('t:', 'o:') THEN -1 ELSE {_HOW_SQL} END"
_MERGE_SQL = """ON CONFLICT(owner, name, target, how) DO UPDATE SET
        n = signal_agg.n + excluded.n, total = signal_agg.total + excluded.total,
        score = signal_agg.score * pow(0.5, (max(signal_agg.t_ref, excluded.t_ref) - signal_agg.t_ref) / signal_agg.hl)
              + excluded.score * pow(0.5, (max(signal_agg.t_ref, excluded.t_ref) - excluded.t_ref) / signal_agg.hl),
        t_ref = max(signal_agg.t_ref, excluded.t_ref),
        first_at = min(signal_agg.first_at, excluded.first_at), last_at = max(signal_agg.last_at, excluded.last_at)"""
# params: (hi, hl, owner, name, lo) — the rows lo < at ≤ hi of one (owner, name), summed per aggregate key
_FOLD_SQL = (f"INSERT INTO signal_agg(owner, name, target, how, n, total, score, t_ref, hl, first_at, last_at) "
             f"SELECT owner, name, {_KEY_SQL} AS k, {_HOWKEY_SQL} AS h, count(*), sum(weight), "
             f"sum(weight * pow(0.5, (?1 - at) / ?2)), ?1, ?2, min(at), max(at) FROM signal "
             f"WHERE owner=?3 AND name=?4 AND at > ?5 AND at <= ?1 GROUP BY owner, name, k, h {_MERGE_SQL}")
_INSERT_SQLS: dict[int, str] = {}


def _insert_sql(n: int) -> str:
    """One INSERT statement of ``n`` signal rows (a person's row plus its cohort copies)."""
    s = _INSERT_SQLS.get(n)
    if s is None:
        s = _INSERT_SQLS[n] = f"INSERT INTO signal({_COLS}) VALUES " + ",".join(["(?,?,?,?,?,?,?,?)"] * n)
    return s


def _rid() -> int:
    """A random 62-bit row id (signal rows are keyed (owner, name, at, id))."""
    return random.getrandbits(62)


class _Tx:
    """BEGIN IMMEDIATE … COMMIT; nested inside an open transaction it is a SAVEPOINT, so a caller can
    make several ledger writes and its own bookkeeping one atomic unit (the ingest's ledger stage)."""

    def __init__(self, conn: sqlite3.Connection):
        self.c = conn
        self.nested = False

    def __enter__(self) -> sqlite3.Connection:
        self.nested = self.c.in_transaction
        self.c.execute("SAVEPOINT ledger_tx" if self.nested else "BEGIN IMMEDIATE")
        return self.c

    def __exit__(self, et, ev, tb) -> None:
        if self.nested:
            if et:
                self.c.execute("ROLLBACK TO ledger_tx")
            self.c.execute("RELEASE ledger_tx")
        else:
            self.c.execute("ROLLBACK" if et else "COMMIT")


def agg_trigger_body() -> str:
    """The statements of the late-row trigger (:func:`agg_trigger_ddl`), for SQLite's trigger and PostgreSQL's
    trigger function alike."""
    hl = "CASE NEW.name " + " ".join(f"WHEN '{s.name}' THEN {s.half_life_s!r}" for s in SIGNALS.values()) + \
        " ELSE 86400.0 END"
    body = f"""
      INSERT INTO signal_agg(owner, name, target, how, n, total, score, t_ref, hl, first_at, last_at)
      VALUES (NEW.owner, NEW.name,
              CASE WHEN substr(NEW.target, 1, 2) IN ('t:', 'o:') THEN NEW.target ELSE '*' END,
              CASE WHEN substr(NEW.target, 1, 2) IN ('t:', 'o:') THEN -1
                   ELSE (CAST(NEW.at / 3600 AS INTEGER) + 72) % 168 END,
              1, NEW.weight, NEW.weight, NEW.at, {hl}, NEW.at, NEW.at)
      {_MERGE_SQL};
      UPDATE signal_wm SET n = n + 1, total = total + NEW.weight WHERE owner = NEW.owner AND name = NEW.name;"""
    return body


def agg_trigger_ddl() -> list[str]:
    """DDL of the trigger that merges *late* global rows (``at`` at or below their pair's watermark)
    into ``signal_agg``; rows above the watermark are folded in batch by :meth:`Ledger.fold`.

    The merge is symmetric in time: both the stored score (at ``t_ref``) and the new weight (at
    ``at``) are decayed to max(t_ref, at) and added, so out-of-order writes stay exact.  The
    half-lives come from :data:`SIGNALS`.
    """
    body = agg_trigger_body()
    return [
        "DROP TRIGGER IF EXISTS signal_agg_promote",
        "DROP TRIGGER IF EXISTS signal_agg_late",
        "CREATE TRIGGER signal_agg_late AFTER INSERT ON signal "
        "WHEN NEW.at <= (SELECT wm FROM signal_wm WHERE owner = NEW.owner AND name = NEW.name) "
        f"BEGIN {body} END",
    ]

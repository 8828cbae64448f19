"""Signal ledger: decay, windows, velocity, buckets — right values worked out by hand."""
from __future__ import annotations

import math
import random
from datetime import timedelta

import pytest

from core.personal.signals import SIGNALS, DAY, Window, decay_factor, epoch, hour_of_week
from tests.core.personal.conftest import T0

t0 = epoch(T0)


def test_schema_matches_seed_tables():
    expect = {  # seed 000: signal -> (half-life days, windows, velocity, default weight)
        "replied": (7, ["1h", "24h", "7d", "AllTime"], True, 1.0),
        "replied_fast": (3, ["1h", "24h", "7d"], True, 1.0),
        "replied_substantively": (7, ["24h", "7d", "AllTime"], True, 1.0),
        "positive_sentiment": (14, ["24h", "7d", "30d", "AllTime"], False, 1.0),
        "negative_sentiment": (3, ["24h", "7d"], False, 1.0),
        "went_silent": (1, ["24h", "7d"], False, 1.0),
        "topic_engaged": (14, ["7d", "30d", "AllTime"], True, 1.0),
        "topic_dropped": (3, ["7d"], False, 1.0),
        "initiated": (30, ["30d", "AllTime"], False, 1.5),
        "confidence": (30, ["AllTime"], False, 1.0),
    }
    got = {n: (s.half_life_s / DAY, [w.label for w in s.windows], s.velocity, s.default_weight)
           for n, s in SIGNALS.items()}
    assert got == expect


def test_decay_one_and_two_half_lives(ledger):
    ledger.write("replied", 7, "m:1", 1.0, T0)
    assert ledger.decayed("replied", 7, T0) == pytest.approx(1.0)
    assert ledger.decayed("replied", 7, T0 + timedelta(days=7)) == pytest.approx(0.5)
    assert ledger.decayed("replied", 7, T0 + timedelta(days=14)) == pytest.approx(0.25)
    ledger.write("negative_sentiment", 7, "m:1", 0.8, T0)
    assert ledger.decayed("negative_sentiment", 7, T0 + timedelta(days=3)) == pytest.approx(0.4)
    assert ledger.decayed("negative_sentiment", 7, T0 + timedelta(days=6)) == pytest.approx(0.2)
    ledger.write("went_silent", 7, "m:2", None, T0)
    assert ledger.decayed("went_silent", 7, T0 + timedelta(days=1)) == pytest.approx(0.5)
    # a topic target (per-target aggregate) and an observation's confidence
    ledger.write("initiated", 7, "t:rust", None, T0)  # default weight 1.5
    assert ledger.decayed("initiated", 7, T0 + timedelta(days=30), target="t:rust") == pytest.approx(0.75)
    assert ledger.decayed("initiated", 7, T0 + timedelta(days=60), target="t:rust") == pytest.approx(0.375)


def test_decay_sums_and_out_of_order_writes(ledger):
    # 1.0 at t0 and 0.5 at t0+7d, read at t0+14d: 1*0.25 + 0.5*0.5 = 0.5 — written in reverse order
    ledger.write("replied", 1, "m:2", 0.5, t0 + 7 * DAY)
    ledger.write("replied", 1, "m:1", 1.0, t0)
    assert ledger.decayed("replied", 1, t0 + 14 * DAY) == pytest.approx(0.5)
    # reading in the past (before the second signal) scans the rows: only the first, one half-life on
    assert ledger.decayed("replied", 1, t0 + 7 * DAY - 1) == pytest.approx(decay_factor(7 * DAY - 1, 7 * DAY))
    assert ledger.decayed("replied", 1, t0 - 1) == 0.0


def test_aggregates_agree_with_direct_sum(ledger):
    rng = random.Random(6)
    sigs = [(rng.choice(["t:a", "t:b", "m:1", "m:2"]), rng.random(), t0 + rng.uniform(0, 60 * DAY)) for _ in range(300)]
    for tg, w, at in sigs:
        ledger.write("topic_engaged", 3, tg, w, at)
    now = t0 + 61 * DAY
    hl = 14 * DAY
    assert ledger.decayed("topic_engaged", 3, now) == pytest.approx(
        sum(w * 0.5 ** ((now - at) / hl) for _t, w, at in sigs), rel=1e-9)
    for tg in ("t:a", "m:1"):
        assert ledger.decayed("topic_engaged", 3, now, target=tg) == pytest.approx(
            sum(w * 0.5 ** ((now - at) / hl) for t, w, at in sigs if t == tg), rel=1e-9)
    n, s = ledger.windowed("topic_engaged", 3, Window.ALL, now)
    assert n == 300 and s == pytest.approx(sum(w for _t, w, _a in sigs))


def test_windowed_counts_across_window_edges(ledger):
    now = t0 + 10 * DAY
    for at, w in ((now - DAY, 1.0),         # exactly 24h before: outside (now-24h, now]
                  (now - DAY + 1, 0.5),     # one second inside
                  (now - 3600, 0.25),       # exactly 1h before: outside the 1h window, inside 24h
                  (now, 2.0),               # at now: inside
                  (now + 1, 4.0)):          # after now: outside every window
        ledger.write("replied", 5, "m:1", w, at)
    assert ledger.windowed("replied", 5, Window.H1, now) == (1, 2.0)
    assert ledger.windowed("replied", 5, Window.H24, now) == (3, 2.75)
    assert ledger.windowed("replied", 5, Window.D7, now) == (4, 3.75)
    assert ledger.windowed("replied", 5, Window.ALL, now) == (4, 3.75)          # raw scan (a signal after now)
    assert ledger.windowed("replied", 5, Window.ALL, now + 1) == (5, 7.75)      # aggregate
    with pytest.raises(ValueError):
        ledger.windowed("went_silent", 5, Window.D30, now)  # seed: went_silent has 24h and 7d only


def test_velocity_of_a_burst(ledger):
    now = t0 + 30 * DAY
    ledger.write("replied", 9, "m:0", 1.0, now - 3 * DAY)
    for k in range(6):
        ledger.write("replied", 9, f"m:{k + 1}", 1.0, now - 3600 * (k + 1))
    # replied: recent 24h vs 7d.  n24 = 6, n7d = 7: (6/1 day) / (7/7 days) = 6.0
    assert ledger.velocity("replied", 9, now) == pytest.approx(6.0)
    # a steady topic: one per day for 30 days -> (7/7)/(30/30) = 1.0
    for d in range(30):
        ledger.write("topic_engaged", 9, "t:x", 1.0, now - d * DAY)
    assert ledger.velocity("topic_engaged", 9, now, target="t:x") == pytest.approx(1.0)
    assert ledger.velocity("topic_engaged", 9, now, target="t:none") == 0.0
    with pytest.raises(ValueError):
        ledger.velocity("went_silent", 9, now)


def test_hour_and_day_buckets(ledger):
    monday_0930 = t0 + 9.5 * 3600
    sunday_2310 = t0 + 6 * DAY + 23 * 3600 + 600
    assert hour_of_week(monday_0930) == 9 and hour_of_week(sunday_2310) == 167
    ledger.write("replied", 4, "m:1", 1.0, monday_0930)
    ledger.write("replied", 4, "m:2", 1.0, sunday_2310)
    ledger.write("replied", 4, "m:3", 0.5, monday_0930 + 7 * DAY)
    now = t0 + 20 * DAY
    hod = ledger.hour_of_day("replied", 4, now)
    assert hod[9] == (2, 1.5) and hod[23] == (1, 1.0) and sum(n for n, _ in hod) == 3
    dow = ledger.day_of_week("replied", 4, now)
    assert dow[0] == (2, 1.5) and dow[6] == (1, 1.0)
    # UTC+1: Sunday 23:10 UTC is Monday 00:10 local
    how = ledger.hour_of_week("replied", 4, now, utc_offset_hours=1)
    assert how[0] == (1, 1.0) and how[10] == (2, 1.5)
    # windowed buckets scan rows: last 7 days before Jan 9 holds only the 0.5 signal
    assert ledger.hour_of_day("replied", 4, t0 + 9 * DAY, window=Window.D7)[9] == (1, 0.5)


def test_unknown_signal_and_naive_time(ledger):
    from datetime import datetime

    with pytest.raises(ValueError):
        ledger.write("liked", 1, "m:1", 1.0, T0)
    with pytest.raises(ValueError):
        ledger.write("replied", 1, "m:1", 1.0, datetime(2024, 1, 1))
    assert math.isclose(decay_factor(0, 10), 1.0)


def test_folded_late_and_pending_rows_read_exactly(ledger):
    """Aggregates below the watermark + late rows (trigger) + rows above it (scan) = the direct sums."""
    rng = random.Random(11)
    ledger.fold_every = 60  # 400 single writes: 6 folds, 40 rows left above the watermark
    sigs = []
    for k in range(400):
        name = rng.choice(["replied", "topic_engaged"])
        tg = rng.choice(["t:a", "t:b", "m:1", "m:2"])
        w, at = rng.random(), t0 + k * 0.15 * DAY - rng.uniform(0, 3 * DAY)  # out of order: some land below it
        sigs.append((name, tg, w, at))
        ledger.write(name, 3, tg, w, at)
        if k == 200:  # a batch write folds the pairs it touches at once
            extra = [(name, "t:c", 0.5, t0 + 30 * DAY + j) for j in range(5)]
            from core.personal.signals import SignalWrite
            ledger.write_many([SignalWrite(n, 3, tg, w, at) for n, tg, w, at in extra])
            sigs += extra
    wm = dict(ledger.conn.execute("SELECT name, wm FROM signal_wm WHERE owner=3").fetchall())
    above = ledger.conn.execute("SELECT count(*) FROM signal s JOIN signal_wm w ON w.owner=s.owner AND "
                               "w.name=s.name WHERE s.owner=3 AND s.at > w.wm").fetchone()[0]
    below = ledger.conn.execute("SELECT sum(n) FROM signal_agg WHERE owner=3").fetchone()[0]
    assert wm and above > 0 and below > 0  # both paths are exercised: folded aggregates and rows above the watermark
    now = t0 + 61 * DAY
    for name, hl in (("replied", 7 * DAY), ("topic_engaged", 14 * DAY)):
        mine = [(tg, w, at) for n, tg, w, at in sigs if n == name]
        assert ledger.decayed(name, 3, now) == pytest.approx(sum(w * 0.5 ** ((now - at) / hl) for _t, w, at in mine),
                                                             rel=1e-9)
        n, s = ledger.windowed(name, 3, Window.ALL, now)
        assert n == len(mine) and s == pytest.approx(sum(w for _t, w, _a in mine))
        tg = ledger.targets(name, 3, now)
        for t in ("t:a", "t:b", "t:c"):
            ws = [(w, at) for x, w, at in mine if x == t]
            if ws:
                assert tg[t][0] == len(ws) and tg[t][3] == max(at for _w, at in ws)
                assert tg[t][2] == pytest.approx(sum(w * 0.5 ** ((now - at) / hl) for w, at in ws), rel=1e-9)
        how = ledger.hour_of_week(name, 3, now)
        assert sum(c for c, _s in how) == len([1 for t, _w, _a in mine if t.startswith("m:")])
        for h in (0, 9, 100):
            assert how[h][0] == len([1 for t, _w, at in mine if t.startswith("m:") and hour_of_week(at) == h])
    tot = ledger.totals(3, now)
    assert tot["replied"][0] == len([1 for s in sigs if s[0] == "replied"])
    # reading in the past (before the watermark) scans rows and stays exact
    past = t0 + 20 * DAY
    assert ledger.windowed("replied", 3, Window.ALL, past)[0] == len([1 for n, _t, _w, at in sigs
                                                                      if n == "replied" and at <= past])

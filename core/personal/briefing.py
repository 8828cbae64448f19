"""The brief (seed 000 "Phase 3: Brief"): a read-only profile of how a person likes to be written to.

:func:`assemble` reads the ledger (decay, windows, velocity, hour-of-week buckets),
the person's style metadata, the preference vector, observations and cohort
ledgers, and returns a :class:`Brief` with the seed's structure — person, topics
(hot / cold / initiated_by_person), style, timing (with 24 hour buckets and a
7 × 24 heatmap), what_works, what_doesnt_work, observations, cohort_priors.  It
writes nothing.  :func:`render` turns it into system-prompt text.

Source of each section (seed 000 "How the brief is assembled"):
topics.hot ← topic_engaged decay + velocity (7d vs 30d); topics.cold ← topic_dropped
against topic_engaged; initiated ← initiated decay; style ← person metadata;
timing ← replied / replied_fast / went_silent hour-of-week buckets; what_works ←
positively received messages ranked by the preference vector, and message features
that raise the reply rate; what_doesnt_work ← features of messages met with silence or
negative sentiment (both from the per-feature counts learn keeps in ``person_pattern``,
decayed with a 30-day half-life); observations ← hybrid search; cohort_priors ← cohort ledgers.
"""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Optional

import numpy as np
from pydantic import BaseModel, Field

from core.personal import observations as obs_mod
from core.personal import preference
from core.personal.learn import LONG_WORDS, SHORT_WORDS, load_patterns, load_profile
from core.personal.signals import Ledger, Window, epoch, from_epoch

RISING, FALLING = 1.5, 0.5  # velocity thresholds for the "rising" / "falling" labels (Kith's choice)
MIN_SUPPORT = 2             # buckets and features need at least this many messages to count
FEATURE_MARGIN = 0.15       # a feature "works" when its reply rate beats the base rate by this much
RECENT_POSITIVE = 100      # recent_positive_messages: the newest 100 positively received, ranked by preference
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


class PersonInfo(BaseModel):
    id: int
    name: str = ""
    metadata: dict = Field(default_factory=dict)
    interaction_count: int = 0
    first_interaction: Optional[str] = None


class HotTopic(BaseModel):
    topic: str
    velocity: str          # rising | stable | falling | dormant
    alltime: int
    score: float           # decayed topic_engaged at now


class ColdTopic(BaseModel):
    topic: str
    last_engaged: Optional[str] = None  # date (UTC) of the last topic_engaged, or None
    sentiment: str                      # negative (mostly dropped) | mixed
    dropped: int = 0


class Topics(BaseModel):
    hot: list[HotTopic] = Field(default_factory=list)
    cold: list[ColdTopic] = Field(default_factory=list)
    initiated_by_person: list[str] = Field(default_factory=list)


class Formality(BaseModel):
    current: float = 0.5
    trend: str = "stable"


class StyleBrief(BaseModel):
    formality: Formality = Field(default_factory=Formality)
    preferred_length: str = "medium"
    preferred_structure: str = "conversational"
    responds_to_questions: Optional[bool] = None
    prefers_to_lead: bool = False
    jargon_comfortable: bool = False
    emoji_usage: str = "none"
    lowercase_share: float = 0.0
    avg_words: float = 0.0
    samples: int = 0


class Timing(BaseModel):
    timezone: str = "UTC"
    most_active_hours: list[int] = Field(default_factory=list)
    fastest_reply_hours: list[int] = Field(default_factory=list)
    goes_silent_after: Optional[int] = None
    current_hour: int = 0
    day_of_week: str = "monday"
    in_active_window: bool = False
    hour_buckets: list[int] = Field(default_factory=lambda: [0] * 24)          # replies by local hour sent
    heatmap: list[list[int]] = Field(default_factory=lambda: [[0] * 24 for _ in range(7)])  # [day][hour]


class PositiveMessage(BaseModel):
    summary: str
    sentiment: float


class WhatWorks(BaseModel):
    high_engagement_patterns: list[str] = Field(default_factory=list)
    recent_positive_messages: list[PositiveMessage] = Field(default_factory=list)


class WhatDoesntWork(BaseModel):
    low_engagement_patterns: list[str] = Field(default_factory=list)


class Brief(BaseModel):
    """Seed 000's brief structure (JSON-serialisable via :meth:`to_json`)."""

    person: PersonInfo
    generated_at: str
    topics: Topics = Field(default_factory=Topics)
    style: StyleBrief = Field(default_factory=StyleBrief)
    timing: Timing = Field(default_factory=Timing)
    what_works: WhatWorks = Field(default_factory=WhatWorks)
    what_doesnt_work: WhatDoesntWork = Field(default_factory=WhatDoesntWork)
    observations: list[str] = Field(default_factory=list)
    cohort_priors: dict[str, dict] = Field(default_factory=dict)

    def to_json(self) -> dict:
        return self.model_dump(mode="json")

    def dumps(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, indent=indent)


def utc_offset_hours(tz_name: str | None, now: float) -> int:
    """Whole-hour UTC offset of ``tz_name`` at ``now`` (rounded; unknown or None → 0)."""
    if not tz_name:
        return 0
    try:
        from zoneinfo import ZoneInfo

        off = from_epoch(now).astimezone(ZoneInfo(tz_name)).utcoffset()
    except Exception:
        return 0
    return int(round(off.total_seconds() / 3600)) if off is not None else 0


def _velocity_label(n7: int, n30: int) -> str:
    if n30 == 0:
        return "dormant"
    v = (n7 / 7) / (n30 / 30)
    return "rising" if v >= RISING else ("falling" if v <= FALLING else "stable")


def assemble(ledger: Ledger, person_id: int, now, context: str = "",
             context_embedding: np.ndarray | None = None, observations_k: int = obs_mod.TOP_K) -> Brief:
    """Build a person's brief at ``now`` (read-only).

    Args:
        ledger: the signal ledger (with cohorts installed for cohort priors).
        person_id: the person's entity id.
        now: tz-aware UTC datetime or epoch seconds (core.clock.now() in the app).
        context: the current conversation's recent text (for observation retrieval).
        context_embedding: its float32 (384,) embedding, or None.

    Returns:
        A :class:`Brief` (empty sections where nothing is known yet).
    """
    t = epoch(now)
    c = ledger.conn
    prof = load_profile(c, person_id)
    off = utc_offset_hours(prof.meta.get("timezone"), t)
    brief = Brief(person=PersonInfo(id=person_id, name=prof.name, metadata=prof.meta,
                                    interaction_count=prof.interaction_count,
                                    first_interaction=from_epoch(prof.first_interaction).isoformat()
                                    if prof.first_interaction else None),
                  generated_at=from_epoch(t).isoformat())
    brief.topics = _topics(ledger, person_id, t)
    brief.style = _style(prof.style)
    brief.timing = _timing(ledger, person_id, t, off, prof.meta.get("timezone") or "UTC")
    works, doesnt = _patterns(ledger, person_id, t, off)
    brief.what_works = WhatWorks(high_engagement_patterns=works,
                                 recent_positive_messages=_positive_messages(ledger, person_id, t))
    brief.what_doesnt_work = WhatDoesntWork(low_engagement_patterns=doesnt)
    brief.observations = [o.text for o in obs_mod.retrieve(ledger, person_id, t, context, context_embedding,
                                                           k=observations_k)]
    if getattr(ledger, "cohorts", None) is not None:
        brief.cohort_priors = ledger.cohorts.priors(person_id, t)
    return brief


def _topics(L: Ledger, pid: int, t: float) -> Topics:
    engaged = L.targets("topic_engaged", pid, t)
    recent30 = L.targets("topic_engaged", pid, t, window=Window.D30)
    recent7 = L.targets("topic_engaged", pid, t, window=Window.D7)
    dropped = L.targets("topic_dropped", pid, t)
    initiated = L.targets("initiated", pid, t)
    hot = []
    for tgt, (n, _s, score, _last) in sorted(engaged.items(), key=lambda kv: (-kv[1][2], -kv[1][0])):
        d = dropped.get(tgt, (0,))[0]
        if n < d:
            continue
        hot.append(HotTopic(topic=tgt[2:], velocity=_velocity_label(recent7.get(tgt, (0,))[0],
                                                                    recent30.get(tgt, (0,))[0]),
                            alltime=n, score=round(score, 6)))
    cold = []
    for tgt, (d, _s, _score, _last) in dropped.items():
        e = engaged.get(tgt)
        ne = e[0] if e else 0
        if d >= MIN_SUPPORT and d > ne:
            cold.append((d / (d + ne), d, ColdTopic(
                topic=tgt[2:], last_engaged=from_epoch(e[3]).date().isoformat() if e else None,
                sentiment="negative" if d / (d + ne) >= 0.8 else "mixed", dropped=d)))
    cold.sort(key=lambda x: (-x[0], -x[1]))
    init = [tgt[2:] for tgt, _v in sorted(initiated.items(), key=lambda kv: (-kv[1][2], -kv[1][0]))][:5]
    return Topics(hot=hot[:5], cold=[x[2] for x in cold[:5]], initiated_by_person=init)


def _style(s: dict) -> StyleBrief:
    n = int(s.get("n", 0))
    if n == 0:
        return StyleBrief()
    fast, slow = float(s.get("formality_fast", 0.5)), float(s.get("formality_slow", 0.5))
    trend = "rising" if fast - slow > 0.1 else ("falling" if slow - fast > 0.1 else "stable")
    avg = s.get("words", 0) / n
    structs = s.get("structure", {})
    q_n, q_r = s.get("prompts_question", 0), s.get("prompts_question_replied", 0)
    o_n, o_r = s.get("prompts_other", 0), s.get("prompts_other_replied", 0)
    rtq = (q_r / q_n >= o_r / o_n) if (q_n >= MIN_SUPPORT and o_n >= MIN_SUPPORT) else None
    emoji = s.get("emoji", 0) / n
    return StyleBrief(
        formality=Formality(current=round(fast, 3), trend=trend),
        preferred_length="short" if avg < 8 else ("medium" if avg < 25 else "long"),
        preferred_structure=max(structs, key=structs.get) if structs else "conversational",
        responds_to_questions=rtq, prefers_to_lead=s.get("leads", 0) / n >= 0.4,
        jargon_comfortable=s.get("jargon", 0) / n >= 0.2,
        emoji_usage="none" if emoji < 0.05 else ("occasional" if emoji < 0.3 else "frequent"),
        lowercase_share=round(s.get("lowercase", 0) / n, 3), avg_words=round(avg, 1), samples=n)


def _timing(L: Ledger, pid: int, t: float, off: int, tz: str) -> Timing:
    b = L.hour_of_week_many(("replied", "replied_fast", "went_silent"), pid, t, off)
    replied, fast, silent = b["replied"], b["replied_fast"], b["went_silent"]
    heat = [replied[d * 24:(d + 1) * 24] for d in range(7)]
    by_hour = [sum(heat[d][h] for d in range(7)) for h in range(24)]
    fast_h = [sum(fast[d * 24 + h] for d in range(7)) for h in range(24)]
    silent_h = [sum(silent[d * 24 + h] for d in range(7)) for h in range(24)]
    active = [h for h in sorted(range(24), key=lambda h: (-by_hour[h], h)) if by_hour[h] > 0][:5]
    fast_rate = {h: fast_h[h] / by_hour[h] for h in range(24) if by_hour[h] >= MIN_SUPPORT and fast_h[h] > 0}
    top = max(fast_rate.values(), default=0.0)
    fastest = sorted(h for h, r in fast_rate.items() if r >= top - 1e-9)[:3] if top > 0 else []
    silent_rate = {h: silent_h[h] / (silent_h[h] + by_hour[h]) for h in range(24)
                   if silent_h[h] + by_hour[h] >= MIN_SUPPORT}
    worst = max(silent_rate.items(), key=lambda kv: (kv[1], silent_h[kv[0]]), default=(None, 0.0))
    local = from_epoch(t) + timedelta(hours=off)
    return Timing(timezone=tz, most_active_hours=sorted(active), fastest_reply_hours=fastest,
                  goes_silent_after=worst[0] if worst[1] >= 0.5 else None,
                  current_hour=local.hour, day_of_week=DAYS[local.weekday()],
                  in_active_window=local.hour in active, hour_buckets=by_hour, heatmap=heat)


def _positive_messages(L: Ledger, pid: int, t: float, k: int = 3) -> list[PositiveMessage]:
    """The newest RECENT_POSITIVE positively received messages ranked by the preference vector (newest
    first without one); texts are read for the top ``k`` only."""
    sigs = L.recent("positive_sentiment", pid, t, limit=RECENT_POSITIVE)
    weights = {int(tg[2:]): w for tg, w, _a in sigs if tg.startswith("m:") and tg[2:].isdigit()}
    if not weights:
        return []
    ids = list(weights)
    rows = L.conn.execute(f"SELECT id, at, embedding FROM message WHERE id IN ({','.join('?' * len(ids))})",
                          ids).fetchall()
    if not rows:
        return []
    pref, _n = preference.load(L.conn, pid)
    with_emb = [r for r in rows if r[2] is not None and len(r[2]) == 4 * preference.DIM]
    if pref is not None and with_emb:
        m = np.frombuffer(b"".join(r[2] for r in with_emb), dtype="<f4").reshape(len(with_emb), preference.DIM)
        sims = m @ pref
        order = [with_emb[j][0] for j in np.argsort(-sims, kind="stable")]
    else:
        order = [r[0] for r in sorted(rows, key=lambda r: (-r[1], -r[0]))]  # newest first; ties: the later id
    top = order[:k]
    texts = dict(L.conn.execute(f"SELECT id, text FROM message WHERE id IN ({','.join('?' * len(top))})", top))
    out = []
    for i in top:
        text = " ".join((texts.get(i) or "").split())
        out.append(PositiveMessage(summary=text[:100] + ("…" if len(text) > 100 else ""),
                                   sentiment=round(weights[i], 3)))
    return out


def _hour_label(local_hour: int) -> str:
    if local_hour >= 22 or local_hour < 6:
        return "messages sent late at night (22:00–06:00)"
    if local_hour < 12:
        return "messages sent in the morning"
    if local_hour < 18:
        return "messages sent in the afternoon"
    return "messages sent in the evening"


_LABELS = {"q": "questions", "nq": "statements without a question",
           "short": f"short messages ({SHORT_WORDS} words or fewer)", "long": f"long messages (over {LONG_WORDS} words)"}


def _patterns(L: Ledger, pid: int, t: float, off: int) -> tuple[list[str], list[str]]:
    """Message features whose reply rate beats (or trails) the base rate by FEATURE_MARGIN.

    Reads the person's ``person_pattern`` rows (maintained by ``learn.record_patterns``): per feature,
    replies / silences / negative replies, counted (support) and decayed with a 30-day half-life
    (rates).  Hour features are stored by UTC hour and grouped here by the person's local time.
    """
    rows = load_patterns(L.conn, pid, t)
    base_row = rows.pop("*", None)
    if base_row is None or base_row[0] + base_row[2] == 0:
        return [], []
    feats: dict[str, list] = {}
    for key, v in rows.items():
        if key.startswith("h:"):
            label = _hour_label((int(key[2:]) + off) % 24)
        elif key.startswith("t:"):
            label = f"messages about {key[2:]}"
        else:
            label = _LABELS.get(key)
            if label is None:
                continue
        a = feats.setdefault(label, [0, 0.0, 0, 0.0, 0, 0.0])
        for i in range(6):
            a[i] += v[i]
    _rn, r_all, _sn, s_all, neg_n, neg_all = base_row
    works, doesnt = [], []
    if s_all > 0 and r_all + s_all > 0:
        base = r_all / (r_all + s_all)
        for f in sorted(feats):
            rn, r, sn, sv, _nn, _nv = feats[f]
            if rn + sn < MIN_SUPPORT or r + sv <= 0:
                continue
            rate = r / (r + sv)
            if rate >= base + FEATURE_MARGIN:
                works.append((rate, rn + sn, f"{f} (reply rate {rate:.0%} vs {base:.0%})"))
            elif rate <= base - FEATURE_MARGIN:
                doesnt.append((-rate, rn + sn, f"{f} (reply rate {rate:.0%} vs {base:.0%})"))
    if neg_n and neg_all > 0:
        for f in sorted(feats):
            rn, r, sn, sv, nn, nv = feats[f]
            share, usual = nv / neg_all, (r + sv) / (r_all + s_all)  # its share of negatives vs of all messages
            if nn >= MIN_SUPPORT and share >= 0.5 and share >= usual + FEATURE_MARGIN:
                doesnt.append((1.0, nn, f"{f} (drew {share:.0%} of negative replies)"))
    works.sort(key=lambda x: (-x[0], -x[1]))
    doesnt.sort(key=lambda x: (x[0], -x[1]))
    return [w[2] for w in works[:5]], [d[2] for d in doesnt[:5]]


def render(brief: Brief) -> str:
    """System-prompt text for writing to (or about) the person, from the brief."""
    p, s, tm = brief.person, brief.style, brief.timing
    name = p.name or f"person {p.id}"
    lines = [f"You are helping write to {name}. What Kith has learned about how {name} communicates "
             f"(from {p.interaction_count} interactions):"]
    if s.samples:
        lines.append(f"- Style: {s.preferred_length} messages, {s.preferred_structure}; formality "
                     f"{s.formality.current:.2f} ({s.formality.trend}); emoji {s.emoji_usage}"
                     + ("; writes in lowercase" if s.lowercase_share >= 0.5 else "")
                     + ("; comfortable with jargon" if s.jargon_comfortable else "")
                     + ("; likes to lead" if s.prefers_to_lead else "") + ".")
        if s.responds_to_questions is not None:
            lines.append("- Replies more to direct questions." if s.responds_to_questions
                         else "- Questions do not raise their reply rate.")
    if brief.topics.hot:
        lines.append("- Hot topics: " + ", ".join(f"{h.topic} ({h.velocity})" for h in brief.topics.hot) + ".")
    if brief.topics.cold:
        lines.append("- Avoid or handle lightly: " + ", ".join(c.topic for c in brief.topics.cold) + ".")
    if brief.topics.initiated_by_person:
        lines.append("- They bring up on their own: " + ", ".join(brief.topics.initiated_by_person) + ".")
    if tm.most_active_hours:
        lines.append(f"- Most responsive hours ({tm.timezone}): " + ", ".join(f"{h:02d}h" for h in tm.most_active_hours)
                     + (f"; fastest at " + ", ".join(f"{h:02d}h" for h in tm.fastest_reply_hours)
                        if tm.fastest_reply_hours else "")
                     + (f"; often silent to messages sent at {tm.goes_silent_after:02d}h"
                        if tm.goes_silent_after is not None else "") + ".")
    for pat in brief.what_works.high_engagement_patterns:
        lines.append(f"- Works: {pat}.")
    for pat in brief.what_doesnt_work.low_engagement_patterns:
        lines.append(f"- Doesn't work: {pat}.")
    for o in brief.observations:
        lines.append(f"- Observed: {o}")
    for cname, prior in brief.cohort_priors.items():
        lines.append(f"- As one of '{cname}' (weight {prior['weight']}): reply rate {prior['reply_rate']:.0%}, "
                     f"typical reply length {prior['avg_engagement_length']}.")
    return "\n".join(lines)

"""Signals from an imported conversation: for each message the owner sent, what the other person did next.

Input: an ordered list of :class:`ChatMessage` (sender key, UTC time, text) and
which sender is the owner.  Consecutive messages of one sender less than 10
minutes apart form one *turn* (a burst is one message to react to).  For each
owner turn (issue #6, "Where signals come from"):

* the other person's next turn within the timeout (default 24 h) is the reply:
  replied; replied_fast when it came < 120 s after the owner's last message;
  replied_substantively (words / 25, capped at 1); sentiment (VADER);
  topic_engaged on the owner's topics they stayed on, topic_dropped on those
  they redirected from or answered briefly; initiated on topics of theirs that were
  neither in the owner's turn nor in the last 6 turns;
* no turn of theirs within the timeout (and the chat or ``until`` reaches past it), or
  went_silent and topic_dropped on the owner's topics;
* an owner turn they did not answer before the owner wrote again (a new turn, so more
  than 10 minutes later) counts as went_silent too: the answer belongs to the later turn.
  went_silent is the seed's gentlest signal (1-day half-life), so a double-text costs little.

A turn of theirs with no owner turn before it (they wrote first, or again) is an
exchange with no prompt: only its unprompted topics (initiated) and their style
are learned.  In group chats (more than one other sender) the first other sender
to answer within the timeout is the one who replied; silence is not attributed.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Hashable, Sequence

import numpy as np

from core.personal.learn import Exchange, LearnResult, add_messages, learn_many
from core.personal.observer import SILENCE_TIMEOUT_S, Turn, is_question, observe, sentiment, structure, words
from core.personal.signals import Ledger, epoch
from core.personal.topics import topic_names

MERGE_GAP_S = 600.0   # consecutive messages of one sender within 10 min are one turn (Kith's choice)
CONTEXT_TURNS = 6     # "unprompted": not in the prompt nor in the last 6 turns (Kith's choice)


@dataclass(frozen=True)
class ChatMessage:
    """One chat message: ``sender`` (any hashable key), ``at`` (tz-aware UTC datetime or epoch s), ``text``."""

    sender: Hashable
    at: datetime | float
    text: str
    ref: str | None = None


@dataclass
class ChatTurn:
    sender: Hashable
    first_at: float
    at: float
    text: str
    refs: list
    _topics: list | None = None

    @property
    def topics(self) -> list[str]:
        """The turn's keyword topics (computed once, after the turn is complete)."""
        if self._topics is None:
            self._topics = topic_names(self.text)
        return self._topics


@dataclass
class ConversationResult:
    """What :func:`learn_conversation` did."""

    turns: int = 0
    messages: int = 0
    exchanges: int = 0
    replies: int = 0
    silences: int = 0
    signals: int = 0
    preference_updates: int = 0


def turns_of(messages: Sequence[ChatMessage], merge_gap_s: float = MERGE_GAP_S) -> list[ChatTurn]:
    """Group time-ordered messages into turns (same sender, gaps < ``merge_gap_s`` seconds)."""
    out: list[ChatTurn] = []
    for m in sorted(messages, key=lambda m: epoch(m.at)):
        t = epoch(m.at)
        if out and out[-1].sender == m.sender and t - out[-1].at < merge_gap_s:
            out[-1].at = t
            out[-1].text += "\n" + m.text
            out[-1].refs.append(m.ref)
            out[-1]._topics = None
        else:
            out.append(ChatTurn(m.sender, t, t, m.text, [m.ref]))
    return out


@dataclass(frozen=True)
class PlannedExchange:
    """An exchange before message ids exist: indexes into the turn list."""

    person: Hashable
    prompt: int | None      # owner turn index
    reply: int | None       # their turn index (None = silence)
    initiated: tuple[str, ...]


def plan(turns: list[ChatTurn], owner: Hashable, timeout_s: float = SILENCE_TIMEOUT_S,
         until: float | None = None) -> list[PlannedExchange]:
    """Decide, turn by turn, who replied to what, who went silent and what was raised unprompted (pure)."""
    others = {t.sender for t in turns if t.sender != owner}
    group = len(others) > 1
    end = until if until is not None else (turns[-1].at if turns else 0.0)
    out: list[PlannedExchange] = []
    answered: set[int] = set()
    for i, turn in enumerate(turns):
        if turn.sender == owner:
            j = next((k for k in range(i + 1, len(turns)) if turns[k].sender != owner), None)
            k_own = next((k for k in range(i + 1, len(turns)) if turns[k].sender == owner), None)
            before_next = j is not None and (k_own is None or j < k_own)
            if before_next and turns[j].first_at - turn.at <= timeout_s:
                answered.add(j)
                out.append(PlannedExchange(turns[j].sender, i, j, _initiated(turns, j, i)))
            elif not group and others:
                # no answer before the owner wrote again, or none within the timeout
                if k_own is not None or j is not None or end - turn.at >= timeout_s:
                    out.append(PlannedExchange(next(iter(others)), i, None, ()))
        elif i not in answered:
            out.append(PlannedExchange(turn.sender, None, i, _initiated(turns, i, None)))
    return out


def _initiated(turns: list[ChatTurn], j: int, prompt: int | None) -> tuple[str, ...]:
    seen: set[str] = set()
    for k in range(max(0, j - CONTEXT_TURNS), j):
        if turns[j].first_at - turns[k].at <= SILENCE_TIMEOUT_S:
            seen.update(turns[k].topics)
    if prompt is not None:
        seen.update(turns[prompt].topics)
    return tuple(t for t in turns[j].topics if t not in seen)


def learn_conversation(ledger: Ledger, messages: Sequence[ChatMessage], owner: Hashable,
                       person_of: Callable[[Hashable], int], conversation: str = "",
                       embed: Callable[[list[str]], np.ndarray] | None = None,
                       timeout_s: float = SILENCE_TIMEOUT_S, until=None) -> ConversationResult:
    """Store a conversation's turns as Messages and learn every exchange in it (global ledger).

    Args:
        ledger: the signal ledger; messages: the chat, any order (sorted by time here);
        owner: the owner's sender key; person_of: sender key → person entity id;
        conversation: a key for the thread (stored on messages);
        embed: texts → float32 (n, 384) embeddings of the owner's turns (for the preference
            vector and the brief's what_works), or None to skip;
        timeout_s: silence timeout (s); until: tz-aware UTC or epoch s the export reaches (default:
            its last message) — an owner turn is silent only if the timeout ran out before it.

    Returns:
        A :class:`ConversationResult`.
    """
    turns = turns_of(messages)
    if not turns:
        return ConversationResult()
    end = turns[-1].at if until is None else epoch(until)
    planned = plan(turns, owner, timeout_s, end)
    counterpart: dict[int, Hashable] = {}
    for p in planned:
        if p.prompt is not None:
            counterpart[p.prompt] = p.person
    others = [t.sender for t in turns if t.sender != owner]
    default_other = others[0] if len(set(others)) == 1 else None
    rows, row_turn = [], []
    for i, t in enumerate(turns):
        if t.sender == owner:
            who = counterpart.get(i, default_other)
            if who is None:
                continue
            direction = "out"
        else:
            who, direction = t.sender, "in"
        ws = words(t.text)
        tops = t.topics
        mag, tone = sentiment(t.text)
        rows.append({"person_id": person_of(who), "direction": direction, "conversation": conversation,
                     "record_ref": next((r for r in t.refs if r), None), "text": t.text,
                     "topic": tops[0] if tops else None, "tone": tone, "length": len(ws),
                     "structure": structure(t.text, ws), "is_question": is_question(t.text), "at": t.at})
        row_turn.append(i)
    if embed is not None:
        out_idx = [k for k, r in enumerate(rows) if r["direction"] == "out"]
        if out_idx:
            vecs = np.asarray(embed([rows[k]["text"] for k in out_idx]), dtype=np.float32)
            for k, v in zip(out_idx, vecs):
                rows[k]["embedding"] = v
    with ledger.transaction() as c:
        ids = add_messages(c, rows)
    msg_id = dict(zip(row_turn, ids))
    exchanges = []
    res = ConversationResult(turns=len(turns), messages=len(ids))
    for p in planned:
        pt = turns[p.prompt] if p.prompt is not None else None
        rt = turns[p.reply] if p.reply is not None else None
        out = observe(Turn(pt.text, pt.at) if pt else None, Turn(rt.text, rt.first_at) if rt else None, timeout_s)
        if rt is not None:
            reply_at = rt.first_at
        else:  # silence is known when the owner wrote again, or when the timeout ran out (never after `end`)
            nxt = turns[p.prompt + 1].first_at if p.prompt + 1 < len(turns) else end
            reply_at = min(pt.at + timeout_s, max(pt.at, nxt))
        exchanges.append(Exchange(
            person_id=person_of(p.person), output=out, reply_at=reply_at,
            prompt_message_id=msg_id.get(p.prompt) if p.prompt is not None else None,
            prompt_at=pt.at if pt else None, prompt_topics=tuple(pt.topics) if pt else (),
            reply_topics=tuple(rt.topics) if rt else (), initiated=p.initiated,
            prompt_is_question=is_question(pt.text) if pt else False,
            reply_message_id=msg_id.get(p.reply) if p.reply is not None else None))
        res.replies += int(pt is not None and rt is not None)
        res.silences += int(rt is None)
    lr: LearnResult = learn_many(ledger, exchanges)
    res.exchanges, res.signals, res.preference_updates = len(exchanges), lr.signals, lr.preference_updates
    return res

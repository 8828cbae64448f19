"""Chat conversations kept across restarts: list, open, rename, delete, and keep each turn.

The window's Chat tab and ``kith chat`` keep every turn here (``core/store/conversations.py``: the
conversation, its turns, the memories each reply cited, the person it was with), through the writer
thread; listing and opening read only.  ``kith chat --resume [ID]`` and the window's conversation list
continue one: :func:`history` gives the conversation loop its turns back.

Deleting a conversation removes its transcript; what the person *told* Kith in it stays in memory (an
episode, and facts) until they forget it, as anything else they gave Kith.  A forget reaches the
transcripts too (``core.store.conversations``: mentions redacted, cited copies of forgotten sources
dropped).
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime

from sqlmodel import select

from app.container import Container
from app.operations.types import AskResult
from core import clock
from core.errors import NotFound
from core.store.conversations import ChatConversation, ChatTurn, title_of
from core.store.forgetting import REPLACEMENT

_ASK_FIELDS = {f.name for f in fields(AskResult)}


@dataclass
class ConversationInfo:
    """A conversation as listed: ``id``, ``title``, the person it was with (``partner_id``, ``partner``:
    their name; None for the owner alone), ``created_at`` / ``updated_at`` (UTC), ``turns`` (messages)."""

    id: str
    title: str
    partner_id: int | None
    partner: str | None
    created_at: datetime
    updated_at: datetime
    turns: int

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "partner_id": self.partner_id, "partner": self.partner,
                "created_at": self.created_at.isoformat(), "updated_at": self.updated_at.isoformat(),
                "turns": self.turns}


@dataclass
class KeptTurn:
    """One kept message: ``role`` (user | assistant), ``text`` as shown (a memory answer with its sources
    listed again from the citations that remain), ``at`` (UTC), ``memories`` (the memories recalled for it, as
    :class:`AskResult`, in [n] order), ``cited`` (their [n] the reply rests on), ``meta`` (model, no_model,
    fell_back, note, cancelled)."""

    role: str
    text: str
    at: datetime
    memories: list[AskResult] = field(default_factory=list)
    cited: set[int] = field(default_factory=set)
    meta: dict = field(default_factory=dict)
    numbers: list[int] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"role": self.role, "text": self.text, "at": self.at.isoformat(), "cited": sorted(self.cited),
                "memories": [m.to_json() | {"number": n} for m, n in zip(self.memories, self.numbers)],
                "meta": self.meta}


@dataclass
class Conversation:
    """A conversation opened: its :class:`ConversationInfo` and its turns, oldest first."""

    info: ConversationInfo
    turns: list[KeptTurn]

    def to_json(self) -> dict:
        return {**self.info.to_json(), "messages": [t.to_json() for t in self.turns]}


# ---- reading ----------------------------------------------------------------------------------------------

def _names(s, ids) -> dict[int, str]:
    from core.store.schema import Entity

    ids = [i for i in set(ids) if i is not None]
    if not ids:
        return {}
    return {e.id: e.canonical_name for e in s.exec(select(Entity).where(Entity.id.in_(ids))).all()
            if getattr(e, "tombstoned_at", None) is None}


def _info(row: ChatConversation, names: dict[int, str]) -> ConversationInfo:
    partner = names.get(row.partner_id) if row.partner_id is not None else None
    return ConversationInfo(row.id, row.title, row.partner_id if partner else None, partner,
                            clock.ensure_utc(row.created_at), clock.ensure_utc(row.updated_at), row.turns)


def list_conversations(c: Container, limit: int | None = None) -> list[ConversationInfo]:
    """The kept conversations, the most recently continued first (reads only).

    Args:
        limit: at most this many (None: all).
    """
    with c.db.session() as s:
        q = select(ChatConversation).order_by(ChatConversation.updated_at.desc(), ChatConversation.id.desc())
        if limit:
            q = q.limit(int(limit))
        rows = list(s.exec(q).all())
        names = _names(s, [r.partner_id for r in rows])
        return [_info(r, names) for r in rows]


def newest(c: Container) -> ConversationInfo | None:
    """The most recently continued conversation, or None when none was kept."""
    got = list_conversations(c, limit=1)
    return got[0] if got else None


def _memory_of(m: dict) -> AskResult:
    return AskResult(**{k: v for k, v in m.items() if k in _ASK_FIELDS})


def render(text: str, meta: dict, memories: list[AskResult], numbers: list[int]) -> str:
    """A kept assistant turn as the chat showed it: the answer, then (for a memory answer) its sources
    listed as ``[n] (date; source: …) text``, then a fallback's note — the same text the conversation
    loop produced (``app.loop.ConversationLoop.memory_reply``), less any source forgotten since."""
    from app.loop import SOURCES_MARK, Memory, fallback_note

    out = text
    if meta.get("sources_listed") and memories:
        lines = [Memory(n, m.text, m.source or "", m.when).line(limit=200) for m, n in zip(memories, numbers)]
        out += SOURCES_MARK + "\n".join(lines)
    if meta.get("fell_back") and meta.get("note"):
        out += fallback_note(meta["note"])
    return out


def open_conversation(c: Container, conversation_id: str) -> Conversation:
    """A kept conversation with its turns, oldest first (reads only).

    Raises:
        NotFound: no such conversation (deleted, or forgotten with everything in it).
    """
    with c.db.session() as s:
        row = s.get(ChatConversation, conversation_id)
        if row is None:
            raise NotFound(f"no conversation {conversation_id!r} (see `kith conversations`)")
        info = _info(row, _names(s, [row.partner_id]))
        turns = []
        for t in s.exec(select(ChatTurn).where(ChatTurn.conversation_id == conversation_id)
                        .order_by(ChatTurn.seq, ChatTurn.id)).all():
            cites = t.citations if isinstance(t.citations, list) else json.loads(t.citations or "[]")
            mems = [_memory_of(m) for m in cites]
            nums = [int(m.get("number", i)) for i, m in enumerate(cites, 1)]
            cited = {int(m.get("number", i)) for i, m in enumerate(cites, 1) if m.get("cited")}
            meta = dict(t.meta or {})
            text = render(t.text, meta, mems, nums) if t.role == "assistant" else t.text
            turns.append(KeptTurn(t.role, text, clock.ensure_utc(t.at), mems, cited, meta, nums))
    return Conversation(info, turns)


def resolve(c: Container, conversation_id: str | None) -> Conversation:
    """``open_conversation`` of ``conversation_id``, or of the newest conversation when it is None or "".

    Raises:
        NotFound: no such conversation, or none was kept yet.
    """
    if not conversation_id:
        got = newest(c)
        if got is None:
            raise NotFound("no conversation was kept yet; start one with `kith chat`")
        conversation_id = got.id
    return open_conversation(c, conversation_id)


def history(conv: Conversation) -> list[dict]:
    """The conversation loop's history of a kept conversation: ``[{"role", "content"}]`` pairs, oldest first."""
    return [{"role": t.role, "content": t.text} for t in conv.turns]


# ---- writing (the writer thread) ---------------------------------------------------------------------------

def _citations(result) -> list[dict]:
    cited = {m.number for m in result.cited}
    out = []
    for m in result.memories:
        item = m.item if isinstance(m.item, AskResult) else AskResult(
            text=m.text, source=m.source, when=m.when, score=m.score, record_id=m.ref if isinstance(m.ref, int) else 0)
        out.append({**asdict(item), "number": m.number, "cited": m.number in cited})
    return out


def answer_text(result) -> str:
    """The part of a turn's reply kept as its text: the memory answer without the sources it lists (kept as
    citations) and without a fallback's note (kept in ``meta``); a model's own reply as it is."""
    from app.loop import SOURCES_MARK, fallback_note

    reply = result.reply or ""
    if result.fell_back and result.note:
        reply = reply.removesuffix(fallback_note(result.note))
    if (result.no_model or result.fell_back) and SOURCES_MARK in reply:
        reply = reply.split(SOURCES_MARK, 1)[0]
    return reply


def records_gone(s, ids) -> set[int]:
    """The record ids among ``ids`` (ints > 0; others are ignored) that are no longer live — hidden or erased by a
    forget, perhaps by another Kith process since the turn recalled them.  ``s``: a session on the Kith
    database (under the writer lock, so that no forget runs until what is checked here is written)."""
    from core.store.schema import Record

    want = sorted({int(i) for i in ids if isinstance(i, int) and not isinstance(i, bool) and i > 0})
    live: set[int] = set()
    for k in range(0, len(want), 500):
        live |= set(s.exec(select(Record.id).where(Record.id.in_(want[k:k + 500]),
                                                   Record.tombstoned_at.is_(None))).all())
    return set(want) - live


def keep_turn(c: Container, conversation_id: str, user_text: str, result, *, partner_id: int | None = None,
              at: datetime | None = None) -> int:
    """Keep one turn — the person's message and Kith's reply with the memories it recalled — in conversation
    ``conversation_id`` (made on its first turn, titled by its first message).  Runs on the writer thread.

    Args:
        result: the ``app.loop.TurnResult`` of the turn.
        partner_id: the person the conversation is with (the window's "Person"; None: the owner).
        at: the time of the turn (UTC; default now).

    Returns:
        The conversation's number of messages.
    """
    at = clock.ensure_utc(at) or clock.now()

    def work() -> int:
        with c.db.session() as s:
            conv = s.get(ChatConversation, conversation_id)
            if conv is None:
                conv = ChatConversation(id=conversation_id, title=title_of(user_text), created_at=at, updated_at=at)
            seq = conv.turns
            meta = {"model": result.model, "no_model": bool(result.no_model),
                    "sources_listed": bool(result.no_model or result.fell_back), "fell_back": bool(result.fell_back),
                    "note": result.note or "", "cancelled": bool(result.cancelled)}
            cites, text = _citations(result), answer_text(result)
            # a memory forgotten (by another Kith) while the reply was made: its copy is not kept, and a reply
            # that rested on it reads [forgotten], as the forget does to the turns it finds
            gone = records_gone(s, [m.get("record_id") for m in cites])
            if gone:
                text = REPLACEMENT if any(m.get("cited") and m.get("record_id") in gone for m in cites) else text
                cites = [m for m in cites if m.get("record_id") not in gone]
            s.add(ChatTurn(conversation_id=conversation_id, seq=seq, role="user", text=user_text, at=at))
            s.add(ChatTurn(conversation_id=conversation_id, seq=seq + 1, role="assistant", text=text,
                           at=at, citations=cites, meta=meta))
            conv.turns = seq + 2
            conv.updated_at = at
            conv.partner_id = partner_id
            s.add(conv)
            return conv.turns
    return c.writer.run(work)


def rename(c: Container, conversation_id: str, title: str) -> ConversationInfo:
    """Give a conversation the person's own title.

    Raises:
        NotFound: no such conversation.  ValueError: an empty title.
    """
    title = " ".join((title or "").split())
    if not title:
        raise ValueError("a conversation needs a title")

    def work():
        with c.db.session() as s:
            row = s.get(ChatConversation, conversation_id)
            if row is None:
                raise NotFound(f"no conversation {conversation_id!r} (see `kith conversations`)")
            row.title, row.titled_by = title[:200], "person"
            s.add(row)
    c.writer.run(work)
    return open_conversation(c, conversation_id).info


def delete(c: Container, conversation_id: str) -> int:
    """Delete a conversation's transcript (its turns and citations).  What the person told Kith in it stays in
    memory until forgotten.  Returns the messages deleted.

    Raises:
        NotFound: no such conversation.
    """
    from sqlalchemy import delete as sql_delete

    def work() -> int:
        with c.db.session() as s:
            row = s.get(ChatConversation, conversation_id)
            if row is None:
                raise NotFound(f"no conversation {conversation_id!r} (see `kith conversations`)")
            n = s.exec(sql_delete(ChatTurn).where(ChatTurn.conversation_id == conversation_id)).rowcount or 0
            s.delete(row)
            return n
    return c.writer.run(work)

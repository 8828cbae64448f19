"""Chat conversations kept across restarts: their turns, the memories each reply cited, the person talked
with — and their part of a forget (issue 11's cascade; issue 14's chat).

Two tables:

* ``chat_conversation`` — one conversation (``id``: the conversation loop's id, e.g.
  ``chat-20240501T101500Z-3f2a``), its ``title`` (the first message, clipped, until the person renames it:
  ``titled_by = "person"``), the person the conversation was with (``partner_id``, an entity; None for
  the owner alone), when it started and when its last turn was kept (UTC), and its number of turns.
* ``chat_turn`` — one message: ``seq`` (0, 1, … within the conversation), ``role`` (``user`` or
  ``assistant``), ``text`` (an assistant reply *without* its sources listing: the sources are the
  ``citations``, so forgetting a source removes its copy), ``at`` (UTC), ``citations`` (JSON: the
  memories recalled for the turn, each the fields of ``app.operations.types.AskResult`` plus ``number``,
  its [n], and ``cited``, whether the reply rests on it), ``meta`` (JSON: ``model``, ``no_model``,
  ``sources_listed``, ``fell_back``, ``note``, ``cancelled``).

The app layer (``app/operations/conversations.py``) writes them on the writer thread and reads them
anywhere; this module holds the tables, the SQL both need, and the forget part:

* an **entity** forget redacts the forgotten names in titles, turns and citations (``[forgotten]``, as
  every store does), clears a conversation's ``partner_id`` when it was with them, drops the citations of
  the records, facts and episodes the forget removes, and replaces the text of a reply that *cited* one of
  them with ``[forgotten]`` (a reply's words came from its evidence); with ``mentions = "remove"`` the
  turns that mention them are removed instead of redacted;
* a **source / record / fact** forget drops those citations (and blanks the replies resting on them);
* a **time range** forget removes the turns said in the range, as the memory store removes what was said
  to Kith in chat then.

A conversation left without turns is removed with them.  Everything goes to the forget's stash and comes
back exactly on restore; a purge deletes the stash (the rows are already gone) and ``VACUUM`` erases the
pages.
"""
from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Optional, Sequence

from sqlalchemy import JSON, Column, Index
from sqlmodel import Field, SQLModel

from core import clock

STORE = "conversations"
TITLE_CHARS = 60


class ChatConversation(SQLModel, table=True):
    """A chat conversation with Kith (see the module docstring)."""

    __tablename__ = "chat_conversation"
    __table_args__ = (Index("ix_chat_conversation_updated", "updated_at"),)
    id: str = Field(primary_key=True)
    title: str = ""
    titled_by: str = "kith"  # kith | person
    partner_id: Optional[int] = None
    created_at: datetime = Field(default_factory=clock.now)
    updated_at: datetime = Field(default_factory=clock.now)
    turns: int = 0


class ChatTurn(SQLModel, table=True):
    """One message of a kept conversation (see the module docstring)."""

    __tablename__ = "chat_turn"
    __table_args__ = (Index("ix_chat_turn_conversation", "conversation_id", "seq"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    conversation_id: str
    seq: int = 0
    role: str = "user"
    text: str = ""
    at: datetime = Field(default_factory=clock.now)
    citations: list = Field(default_factory=list, sa_column=Column(JSON, nullable=False, default=list))
    meta: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, default=dict))


COVERS = {"chat_conversation": "*", "chat_turn": "*"}
"""Titles, turns and citations redacted, cited copies of forgotten sources dropped, turns in a forgotten
time range (or naming a forgotten entity, with ``mentions = "remove"``) removed."""


def title_of(text: str, limit: int = TITLE_CHARS) -> str:
    """A conversation's title from its first message: whitespace collapsed, cut to ``limit`` characters at a
    word boundary, with "…" when cut; ``"New conversation"`` for an empty text."""
    t = " ".join((text or "").split())
    if not t:
        return "New conversation"
    if len(t) <= limit:
        return t
    cut = t[:limit].rsplit(" ", 1)[0] if " " in t[:limit] else t[:limit]
    return cut.rstrip(" ,.;:") + "\u2026"


# ---- the forget part (raw sqlite3, the forget's transaction) -----------------------------------------

def _exists(conn) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='chat_turn'").fetchone() is not None


def _ts(dt: datetime | None) -> str | None:
    from core.store.forgetting import now_text

    return now_text(dt) if dt is not None else None


def _load(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, (list, dict)):
        return v
    try:
        return json.loads(v)
    except (TypeError, ValueError):
        return None


def _selection(conn, sc, red) -> dict:
    """What a forget of ``sc`` changes here: ``{"remove": [turn ids], "turns": {turn id: {column: new}},
    "conversations": {conversation id: {column: new}}, "drop": [conversation ids left without turns]}``."""
    from core.graph.forget import redacted_values
    from core.store.forgetting import REPLACEMENT, fact_quotes

    out: dict = {"remove": [], "turns": {}, "conversations": {}, "drop": []}
    if not _exists(conn):
        return out
    remove: set[int] = set()
    changes: dict[int, dict] = {}
    t = sc.target or {}
    if t.get("kind") == "range" and t.get("start") and t.get("end"):
        start, end = (clock.ensure_utc(datetime.fromisoformat(t[k])) for k in ("start", "end"))
        remove |= {r[0] for r in conn.execute("SELECT id FROM chat_turn WHERE at >= ? AND at < ?",
                                              (_ts(start), _ts(end)))}
    has_red = red is not None and not red.empty
    # every turn, scanned here (a person's chat history is small; LIKE cannot see into JSON's \u escapes)
    turns = [(int(i), text or "", _load(cites) or []) for i, text, cites in
             conn.execute("SELECT id, text, citations FROM chat_turn").fetchall()]
    if has_red:
        for tid, text, cites in turns:
            dumped = json.dumps(cites, ensure_ascii=False)
            here = red.within((), text)  # "Ben Okafor … ask Ben": a first name of another live person stays
            if here.mentions(text) or here.mentions(dumped, loose=True):
                if sc.mentions == "remove":
                    remove.add(tid)
                    continue
                new = redacted_values(here, ["text", "citations"], (text, json.dumps(cites)), json_cols=("citations",))
                if new:
                    changes[tid] = new
    gone_records, gone_facts, gone_eps = set(sc.records), set(sc.facts), set(sc.episodes)
    if gone_facts:  # a reply that said a forgotten fact in its own words (a "who is Oliver?" answer from the graph)
        said = fact_quotes(conn, sorted(gone_facts))
        for tid, text, _cites in turns:
            if tid not in remove and said and any(q in " ".join(text.split()).casefold() for q in said):
                changes.setdefault(tid, {})["text"] = REPLACEMENT
    if gone_records or gone_facts or gone_eps:
        for tid, _text, cites in turns:
            if tid in remove or not cites:
                continue
            cur = _load(changes.get(tid, {}).get("citations")) or cites
            kept, blank = [], False
            for m in cur:
                ev = set(m.get("evidence") or [])
                if (m.get("record_id") in gone_records or m.get("fact_id") in gone_facts
                        or m.get("episode_id") in gone_eps or (m.get("kind") in ("fact", "history") and ev
                                                               and ev <= gone_records)):
                    blank = blank or bool(m.get("cited"))
                    continue
                kept.append(m)
            if len(kept) != len(cur):
                ch = changes.setdefault(tid, {})
                ch["citations"] = json.dumps(kept, ensure_ascii=False)
                if blank:
                    ch["text"] = REPLACEMENT
    out["remove"] = sorted(remove)
    out["turns"] = changes
    # conversations: titles that name a forgotten entity, partners that are one, those left without turns
    convs: dict[str, dict] = {}
    ents = set(sc.all_entities)
    if has_red:
        for cid, title in conn.execute("SELECT id, title FROM chat_conversation").fetchall():
            new = redacted_values(red, ["title"], (title,))
            if new:
                convs[cid] = new
    if ents:
        marks = ",".join("?" * len(ents))
        for (cid,) in conn.execute(f"SELECT id FROM chat_conversation WHERE partner_id IN ({marks})", sorted(ents)):
            convs.setdefault(cid, {})["partner_id"] = None
    if remove:
        left: dict[str, int] = {}
        for cid, tid in conn.execute("SELECT conversation_id, id FROM chat_turn").fetchall():
            if tid not in remove:
                left[cid] = left.get(cid, 0) + 1
        touched = {r[0] for r in _chunked(conn, "SELECT DISTINCT conversation_id FROM chat_turn WHERE id IN ({})",
                                          sorted(remove))}
        out["drop"] = sorted(c for c in touched if not left.get(c))
        for cid in touched - set(out["drop"]):
            convs.setdefault(cid, {})["turns"] = left[cid]
    out["conversations"] = {k: v for k, v in convs.items() if k not in out["drop"]}
    return out


def _chunked(conn, sql: str, ids: Sequence[int]):
    from core.store.forgetting import chunks, marks

    for part in chunks(ids):
        yield from conn.execute(sql.format(marks(len(part))), part).fetchall()


def plan(conn, sc, red) -> dict[str, int]:
    """Rows a forget of ``sc`` removes or rewrites here (nothing is changed): ``turns`` removed,
    ``turns_redacted``, ``conversations`` removed (left without turns), ``conversations_redacted``."""
    sel = _selection(conn, sc, red)
    return {"turns": len(sel["remove"]), "turns_redacted": len(sel["turns"]), "conversations": len(sel["drop"]),
            "conversations_redacted": len(sel["conversations"])}


def apply(conn, op_id: int, sc, red) -> dict[str, int]:
    """Stash and apply :func:`plan`'s changes (``conn``: ``sqlite3``, the caller's transaction).
    Returns counts equal to :func:`plan`'s."""
    from core.store.forgetting import stash_rows, stash_rows_by_ids, stash_values

    sel = _selection(conn, sc, red)
    n = {"turns": 0, "turns_redacted": 0, "conversations": 0, "conversations_redacted": 0}
    if sel["remove"]:
        n["turns"] = stash_rows_by_ids(conn, op_id, STORE, "chat_turn", "id", sel["remove"])
    for tid, new in sorted(sel["turns"].items()):
        stash_values(conn, op_id, STORE, "chat_turn", {"id": tid}, list(new))
        n["turns_redacted"] += conn.execute(f"UPDATE chat_turn SET {', '.join(f'{c} = ?' for c in new)} WHERE id = ?",
                                            (*new.values(), tid)).rowcount or 0
    for cid in sel["drop"]:
        n["conversations"] += stash_rows(conn, op_id, STORE, "chat_conversation", "id = ?", (cid,))
    for cid, new in sorted(sel["conversations"].items()):
        stash_values(conn, op_id, STORE, "chat_conversation", {"id": cid}, list(new))
        n["conversations_redacted"] += conn.execute(
            f"UPDATE chat_conversation SET {', '.join(f'{c} = ?' for c in new)} WHERE id = ?",
            (*new.values(), cid)).rowcount or 0
    return n


def restore(conn, op_id: int) -> int:
    """Put back what :func:`apply` removed or rewrote, exactly.  Returns stash entries applied."""
    from core.store.forgetting import put_back

    return put_back(conn, op_id, STORE, on_conflict="OR REPLACE")

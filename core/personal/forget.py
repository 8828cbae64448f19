"""Communication personalization's part of a forget (seed 000's ledger, messages, observations).

For a forgotten person every row keyed by them goes to the stash and out of the live tables at
once: their signals (and their copies in cohort ledgers, whose aggregates are refolded from what
remains), session signals, aggregates and watermarks, the messages to and from them, their
observations (text, FTS5 row, embedding), preference vector, "what works" counts, profile and
conversation sessions.  For a forgotten record, file or time range, the conversation turns that hold
its records' words go the same way (:func:`_record_messages`); a turn of the owner's chat with Kith that
quotes a forgotten record (a reply's sources listing) reads ``[forgotten]`` (:func:`_chat_quotes`).  Other
people's messages and observations that *mention* them keep their place with the mention redacted; their
embeddings are recomputed from the redacted text by :func:`reembed` (after the commit).  :func:`restore` puts every row back, with its id when it
is still free (rows written since may have taken an id; those rows come back under a new id with
every reference to it rewritten).
"""
from __future__ import annotations

import json
from typing import Callable, Sequence

import numpy as np

from core.store.forgetting import (chunks, decode, encode, fact_quotes, marks, put_back, stash_rows,
                                   stash_rows_by_ids,
                                   stash_values, stashed,
                                   _insert_stash)

STORE = "personal"

COVERS = {t: "*" for t in ("message", "observation", "observation_fts", "observation_fts_content", "observation_fts_data",
                           "observation_fts_idx", "observation_fts_docsize", "conversation_session", "person_profile",
                           "preference_vector", "person_pattern", "signal", "session_signal", "signal_agg", "signal_wm")}
"""The person's rows removed; others' messages, observations, conversation names and profiles redacted."""

PERSON_TABLES = (("message", "person_id"), ("observation", "person_id"), ("preference_vector", "person_id"),
                 ("person_pattern", "person_id"), ("person_profile", "person_id"),
                 ("conversation_session", "person_id"))
"""Tables with one person's rows, by their person column (the ledger's tables are handled apart)."""


def _exists(conn, tbl: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (tbl,)).fetchone() is not None


def _rows(conn, pids: Sequence[int]) -> dict[str, tuple[str, list]]:
    """(WHERE clause, params) per table for the rows of people ``pids``."""
    out: dict[str, tuple[str, list]] = {}
    if not pids:
        return out
    q, p = marks(len(pids)), list(pids)
    out["signal"] = (f"owner IN ({q}) OR src IN ({q})", p + p)
    out["session_signal"] = (f"owner IN ({q}) OR session_id IN (SELECT id FROM conversation_session WHERE person_id "
                             f"IN ({q}))", p + p)
    out["signal_agg"] = (f"owner IN ({q})", p)
    out["signal_wm"] = (f"owner IN ({q})", p)
    out["observation_fts"] = (f"rowid IN (SELECT id FROM observation WHERE person_id IN ({q}))", p)
    for tbl, col in PERSON_TABLES:
        out[tbl] = (f"{col} IN ({q})", p)
    return out


def _record_messages(conn, sc, pids: Sequence[int]) -> list[int]:
    """Ids of the ledger's ``message`` rows (conversation turns, other than the rows of people ``pids``) that hold
    the words of a record the forget removes (``sc.records``: a forget of a record, a file or a time range): a
    turn is its sender's consecutive messages joined (``core.personal.conversation.turns_of``), kept under the
    record's conversation (its thread, else ``source:<id>``), ending at or after the record was sent.

    One pass over the message table, then a binary search per record (``O(M + R log M)``)."""
    from bisect import bisect_left
    from datetime import datetime, timezone

    records = list(getattr(sc, "records", None) or [])
    if not records or not _exists(conn, "message"):
        return []
    recs = []
    for part in chunks(records):
        recs += conn.execute("SELECT coalesce(thread, 'source:' || source_id), sent_at, text FROM record "
                             f"WHERE id IN ({marks(len(part))})", part).fetchall()
    skip = {int(p) for p in pids}
    by_conv: dict[str, list[tuple[float, int, str]]] = {}
    for i, conv, at, person, text in conn.execute("SELECT id, conversation, at, person_id, text FROM message"):
        if int(person) not in skip:
            by_conv.setdefault(conv or "", []).append((float(at), int(i), text or ""))
    for lst in by_conv.values():
        lst.sort()
    out: set[int] = set()
    for conv, sent, text in recs:
        words = (text or "").strip()
        turns = by_conv.get(conv or "")
        if not words or not turns:
            continue
        if isinstance(sent, str):
            sent = datetime.fromisoformat(sent.replace(" ", "T"))
        t = (sent if sent.tzinfo else sent.replace(tzinfo=timezone.utc)).timestamp() if sent else float("-inf")
        start = bisect_left(turns, (t - 1.0,))
        for _at, i, mtext in turns[start:start + 64]:
            if words in mtext:
                out.add(i)
                break
    return sorted(out)


QUOTE_MIN_CHARS = 12
"""A forgotten record's words shorter than this ("ok", "see you") are not looked for in Kith's chat turns."""
QUOTE_PREFIX_CHARS = 80
"""How much of a forgotten record's text (whitespace collapsed) is looked for: a reply's sources listing clips
each memory (``app.loop.Memory.line``: 200 characters with its date and file), so its start is what a copy holds."""


def _chat_quotes(conn, sc, pids: Sequence[int]) -> list[int]:
    """Ids of the ledger's chat-with-Kith ``message`` rows (no ``record_ref``: the owner's questions and Kith's
    replies, other than the rows of people ``pids``) that hold a copy of a forgotten record's words — a reply
    keeps its sources listing, which quotes each memory it rests on.  Their text becomes ``[forgotten]``, as
    the kept conversation's reply does (``core.store.conversations``)."""
    records = list(getattr(sc, "records", None) or [])
    facts = list(getattr(sc, "facts", None) or [])
    if not (records or facts) or not _exists(conn, "message"):
        return []
    quotes = set()
    for part in chunks(records):
        for (text,) in conn.execute(f"SELECT text FROM record WHERE id IN ({marks(len(part))})", part):
            words = " ".join((text or "").split())[:QUOTE_PREFIX_CHARS]
            if len(words) >= QUOTE_MIN_CHARS:
                quotes.add(words.casefold())
    quotes |= set(fact_quotes(conn, facts, QUOTE_MIN_CHARS, QUOTE_PREFIX_CHARS))  # a reply that said a forgotten fact ("Oliver Grant's sister is Beth.")
    if not quotes:
        return []
    heads: dict[str, list[str]] = {}  # a quote's first characters → the quotes: one look-up per position of a turn
    for q in quotes:
        heads.setdefault(q[:QUOTE_MIN_CHARS], []).append(q)
    skip = {int(p) for p in pids}
    out = []
    for i, person, text in conn.execute("SELECT id, person_id, text FROM message WHERE record_ref IS NULL"):
        if person is not None and int(person) in skip or not text:
            continue
        flat = " ".join(text.split()).casefold()
        if any(flat.startswith(q, k) for k in range(len(flat) - QUOTE_MIN_CHARS + 1)
               for q in heads.get(flat[k:k + QUOTE_MIN_CHARS], ())):
            out.append(int(i))
    return out


def _cohort_pairs(conn, pids: Sequence[int]) -> list[tuple[int, str]]:
    if not pids:
        return []
    return [tuple(r) for r in conn.execute(f"SELECT DISTINCT owner, name FROM signal WHERE src IN ({marks(len(pids))})",
                                           list(pids))]


def _about(conn, red, tbl: str, row: tuple):
    """The redactor for a row of ``tbl`` (key first): a first name the forgotten person shares with another
    live one is redacted only where it can be them — by the row's conversation and its person
    (``Redactor.for_conversation``)."""
    if not getattr(red, "shared", None):
        return red
    if tbl == "person_profile":
        return red.within([int(row[0])])
    conv_col = {"message": "conversation", "observation": "source_conversation",
                "conversation_session": "conversation"}[tbl]
    got = conn.execute(f"SELECT person_id, {conv_col} FROM {tbl} WHERE id = ?", (row[0],)).fetchone()
    if got is None:
        return red
    text = row[1] if tbl in ("message", "observation") and isinstance(row[1], str) else None
    return red.for_conversation(got[1], [int(got[0])] if got[0] is not None else [], text)


def _redactions(conn, sc, pids: Sequence[int], red) -> list[tuple[str, int, dict]]:
    """(table, id, {column: new value}) of other people's rows that mention a forgotten entity, and of the chat
    turns that quote a forgotten record (:func:`_chat_quotes`: their whole text becomes ``[forgotten]``)."""
    from core.graph.forget import mentioning, redacted_values
    from core.store.forgetting import REPLACEMENT

    quoting = set(_chat_quotes(conn, sc, pids))
    out = [("message", i, {"text": REPLACEMENT}) for i in sorted(quoting)]
    if red is None or red.empty:
        return out
    q = f"AND person_id NOT IN ({','.join(str(int(p)) for p in pids)})" if pids else ""
    for tbl, cols, jcols in (("message", ["text", "conversation"], ()),
                             ("observation", ["text", "key", "source_conversation"], ()),
                             ("conversation_session", ["conversation"], ()),
                             ("person_profile", ["meta", "style"], ("meta", "style"))):
        if not _exists(conn, tbl):
            continue
        key = "person_id" if tbl == "person_profile" else "id"
        for row in mentioning(conn, tbl, cols, red, key=key, extra=q, json_cols=jcols):
            new = redacted_values(_about(conn, red, tbl, row), cols, row[1:], json_cols=jcols)
            if tbl == "message" and row[0] in quoting:
                new = {**(new or {}), "text": REPLACEMENT}
                out = [x for x in out if not (x[0] == "message" and x[1] == row[0])]
            if new:
                out.append((tbl, row[0], new))
    return out


def plan(conn, sc, red) -> dict[str, int]:
    """Rows a forget of ``sc``'s people removes or redacts, per table (nothing is changed)."""
    pids = [e for e in sc.all_entities]
    n: dict[str, int] = {}
    for tbl, (where, params) in _rows(conn, pids).items():
        n[tbl] = conn.execute(f"SELECT count(*) FROM {tbl} WHERE {where}", params).fetchone()[0] if _exists(conn, tbl) else 0
    n["message_of_records"] = len(_record_messages(conn, sc, pids))
    for tbl, _i, _new in _redactions(conn, sc, pids, red):
        n[f"{tbl}_redacted"] = n.get(f"{tbl}_redacted", 0) + 1
    return n


def apply(conn, op_id: int, sc, red, ledger=None) -> dict[str, int]:
    """Stash and remove the forgotten people's rows, redact the rows that mention them (``conn``:
    ``sqlite3``, the caller's transaction).  Cohort aggregates that held copies of their signals are
    refolded from the remaining rows (``ledger``: a ``core.personal.signals.Ledger``, for its fold).

    Returns counts equal to :func:`plan`'s."""
    pids = list(sc.all_entities)
    n = {k: 0 for k in plan(conn, sc, red)}
    pairs = _cohort_pairs(conn, pids)
    for co, name in pairs:  # the cohorts' aggregates, exactly as they were (refolded below)
        stash_rows(conn, op_id, STORE, "signal_agg", "owner = ? AND name = ?", (co, name))
        stash_rows(conn, op_id, STORE, "signal_wm", "owner = ? AND name = ?", (co, name))
    order = ("observation_fts", "session_signal", "signal", "signal_agg", "signal_wm", "message", "observation",
             "preference_vector", "person_pattern", "person_profile", "conversation_session")
    where = _rows(conn, pids)
    for tbl in order:
        if tbl in where and _exists(conn, tbl):
            w, params = where[tbl]
            n[tbl] = stash_rows(conn, op_id, STORE, tbl, w, params,
                                select="rowid, text" if tbl == "observation_fts" else "*")
    # the turns holding a removed record's words (a forget of a record, a file or a time range)
    n["message_of_records"] = stash_rows_by_ids(conn, op_id, STORE, "message", "id", _record_messages(conn, sc, pids))
    if pairs and ledger is not None:
        ledger.fold(conn, pairs)
    if ledger is not None and pids:
        ledger._dirty = {p for p in getattr(ledger, "_dirty", set()) if p[0] not in set(pids)}
    for tbl, i, new in _redactions(conn, sc, pids, red):
        key = {"person_id": i} if tbl == "person_profile" else {"id": i}
        cols = list(new) + (["embedding"] if tbl in ("message", "observation") else [])
        stash_values(conn, op_id, STORE, tbl, key, cols)
        k, v = next(iter(key.items()))
        n[f"{tbl}_redacted"] = n.get(f"{tbl}_redacted", 0) + (conn.execute(
            f"UPDATE {tbl} SET {', '.join(f'{c} = ?' for c in new)} WHERE {k} = ?", (*new.values(), v)).rowcount or 0)
        if tbl == "observation" and "text" in new:
            stash_rows(conn, op_id, STORE, "observation_fts", "rowid = ?", (i,), select="rowid, text")
            conn.execute("INSERT INTO observation_fts(rowid, text) VALUES (?, ?)", (i, new["text"]))
    return n


def reembed(conn, op_id: int, encode: Callable[[list[str]], np.ndarray]) -> int:
    """Recompute the embeddings of the messages and observations :func:`apply` redacted (float32 (384,)
    of the current text; idempotent).  Returns rows updated."""
    todo: dict[str, list[int]] = {}
    for _k, tbl, data, _ in stashed(conn, op_id, STORE, kind="values"):
        if tbl in ("message", "observation") and "text" in data["vals"] and "embedding" in data["vals"]:
            if decode(data["vals"]["embedding"]) is not None:
                todo.setdefault(tbl, []).append(int(data["key"]["id"]))
    n = 0
    for tbl, ids in todo.items():
        rows = conn.execute(f"SELECT id, text FROM {tbl} WHERE id IN ({marks(len(ids))})", ids).fetchall()
        if not rows:
            continue
        vecs = np.asarray(encode([t or "" for _, t in rows]), dtype=np.float32)
        for (i, _), v in zip(rows, vecs):
            n += conn.execute(f"UPDATE {tbl} SET embedding = ? WHERE id = ?", (v.astype("<f4").tobytes(), i)).rowcount
    return n


_INT_KEYS = {"message": "id", "observation": "id", "conversation_session": "id"}


def restore(conn, op_id: int) -> int:
    """Put the forgotten people's rows back and undo the redactions (``conn``: ``sqlite3``, the
    caller's transaction).  Returns entries applied."""
    entries = stashed(conn, op_id, STORE)
    rows: dict[str, list[dict]] = {}
    for kind, tbl, data, _ in entries:
        if kind == "row":
            rows.setdefault(tbl, []).append(dict(zip(data["cols"], (decode(v) for v in data["vals"]))))
    # ids taken since the forget: give the stashed row a new id and rewrite every reference to it
    remap: dict[str, dict[int, int]] = {}
    for tbl, key in _INT_KEYS.items():
        for r in rows.get(tbl, []):
            if conn.execute(f"SELECT 1 FROM {tbl} WHERE {key} = ?", (r[key],)).fetchone():
                new = conn.execute(f"SELECT coalesce(max({key}), 0) + 1 FROM {tbl}").fetchone()[0]
                new = max(new, max((x[key] for x in rows[tbl]), default=0) + 1 + len(remap.get(tbl, {})))
                remap.setdefault(tbl, {})[r[key]] = new
                r[key] = new
    if remap:
        msg, obs, ses = remap.get("message", {}), remap.get("observation", {}), remap.get("conversation_session", {})
        for tbl in ("signal", "session_signal"):
            for r in rows.get(tbl, []):
                t = r.get("target") or ""
                if t.startswith("m:") and t[2:].isdigit() and int(t[2:]) in msg:
                    r["target"] = f"m:{msg[int(t[2:])]}"
                if t.startswith("o:") and t[2:].isdigit() and int(t[2:]) in obs:
                    r["target"] = f"o:{obs[int(t[2:])]}"
                if r.get("session_id") in ses:
                    r["session_id"] = ses[r["session_id"]]
        for r in rows.get("message", []):
            if r.get("session_id") in ses:
                r["session_id"] = ses[r["session_id"]]
        for r in rows.get("observation_fts", []):
            if r["rowid"] in obs:
                r["rowid"] = obs[r["rowid"]]
    n = 0
    # redactions first (newest first), the rows they stashed from observation_fts included
    for kind, tbl, data, _ in reversed(entries):
        if kind != "values":
            continue
        vals = {c: decode(v) for c, v in data["vals"].items()}
        k, v = next(iter(data["key"].items()))
        conn.execute(f"UPDATE {tbl} SET {', '.join(f'{c} = ?' for c in vals)} WHERE {k} = ?", (*vals.values(), v))
        if tbl == "observation":
            conn.execute("DELETE FROM observation_fts WHERE rowid = ?", (v,))
        n += 1
    # the ledger's aggregates: the cohorts' refolded rows and the person's go, the stashed ones return;
    # the signals come back while no watermark is set, so the late-row trigger does not count them twice
    for r in rows.get("signal_agg", []) + rows.get("signal_wm", []):
        conn.execute("DELETE FROM signal_agg WHERE owner = ? AND name = ?", (r["owner"], r["name"]))
        conn.execute("DELETE FROM signal_wm WHERE owner = ? AND name = ?", (r["owner"], r["name"]))
    for r in rows.get("signal", []):
        conn.execute("DELETE FROM signal_wm WHERE owner = ? AND name = ?", (r["owner"], r["name"]))
    for tbl in ("conversation_session", "message", "observation", "observation_fts", "preference_vector",
                "person_pattern", "person_profile", "signal", "session_signal", "signal_agg", "signal_wm"):
        for r in rows.get(tbl, []):
            cols = list(r)
            conn.execute(f"INSERT OR REPLACE INTO {tbl}({', '.join(cols)}) VALUES ({marks(len(cols))})",
                         [r[c] for c in cols])
            n += 1
    return n

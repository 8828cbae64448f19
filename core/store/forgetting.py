"""What a forget keeps while it can still be undone: the operation's row and the stash (DESIGN.md §6).

A forget runs in three steps, each recorded on its :class:`ForgetOp` row so a crash can resume
(``app.operations.forget.resume_pending``):

* **hide** — one SQLite transaction: every store tombstones or unlinks what the plan names and
  copies the original values into :class:`ForgetStash` (state ``hiding``); then the derived
  indexes (Chroma vectors, HDC signatures, embeddings of redacted text) are brought in line
  (state ``hidden``).  From the commit on, no read path returns the forgotten data.
* **restore** (within the recovery window, seed 001: 30 days) — the stash is written back exactly.
* **purge** (on request, or when the window expires) — tombstoned rows and the stash are deleted,
  the signature files compacted, the Chroma collections rebuilt, SQLite and FTS5 vacuumed, so the
  text is gone from the data folder's bytes.  The op row then keeps only counts and a fingerprint.

The stash stores raw SQLite values (int, float, str, bytes, None) as JSON (bytes base64-encoded),
so a restore writes back exactly what was there.  All helpers take a DB-API ``sqlite3``
connection inside the caller's transaction and never commit.
"""
from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterable, Optional, Sequence

from sqlalchemy import JSON, Column, LargeBinary
from sqlmodel import Field, SQLModel

from core import clock

STATES = ("hiding", "hidden", "restoring", "restored", "purging", "purged")
"""A forget's life: ``hiding`` (SQLite committed, derived indexes pending) → ``hidden`` →
``restoring`` → ``restored``, or → ``purging`` → ``purged``."""
REPLACEMENT = "[forgotten]"
"""What a redacted mention of a forgotten entity reads as (issue 11)."""


class ForgetOp(SQLModel, table=True):
    """One forget: what it targeted, where it stands, what it touched.

    ``label`` names the target for the Restore list (e.g. ``"Steve Sapovits (person)"``) and
    ``plan`` holds the ids each store touched; both are cleared at purge, when only ``counts``
    (rows per store) and ``fingerprint`` (SHA-256 of the sorted ids, never of text) remain.
    Times are UTC.
    """

    __tablename__ = "forget_op"
    id: Optional[int] = Field(default=None, primary_key=True)
    target_kind: str  # entity | source | range | record | fact
    label: str = ""
    state: str = Field(default="hiding", index=True)
    mentions: str = "redact"  # redact | remove: what happens to other rows that mention a forgotten entity
    created_at: datetime = Field(default_factory=clock.now)
    expires_at: datetime
    restored_at: Optional[datetime] = None
    purged_at: Optional[datetime] = None
    plan: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, default=dict))
    counts: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, default=dict))
    fingerprint: str = ""


class ForgetStash(SQLModel, table=True):
    """An original value a forget replaced or a row it removed, kept until restore or purge.

    ``kind`` is ``row`` (a whole row: ``data = {"cols": [...], "vals": [...]}``; written back with
    INSERT) or ``values`` (some columns of a row: ``data = {"key": {...}, "vals": {...}}``; written
    back with UPDATE) or ``vector`` (a Chroma vector: ``blob`` float32 little-endian, ``data`` its
    metadata).  ``store`` names the owning store (graph, search, vectors, memory, personal, summaries).
    """

    __tablename__ = "forget_stash"
    id: Optional[int] = Field(default=None, primary_key=True)
    op_id: int = Field(index=True)
    store: str
    kind: str
    tbl: str
    data: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, default=dict))
    blob: Optional[bytes] = Field(default=None, sa_column=Column(LargeBinary, nullable=True))


class ForgottenRecord(SQLModel, table=True):
    """The content hash of a record a forget purged, so that importing the same file again does not bring it back
    (``app.pipeline.stored_already`` counts it as known).  ``content_hash`` is the record's own (a SHA-256 of what
    the ingestor read: ``ingestors.base.Record.content_hash``), not text: it tells only whether a message read later
    is one that was forgotten.  Written at purge (``core.graph.forget.purge``); a forget that is only hidden needs
    none (its tombstoned record still holds the hash)."""

    __tablename__ = "forgotten_record"
    content_hash: str = Field(primary_key=True)
    op_id: Optional[int] = None


COVERS = {"forget_op": "*", "forget_stash": "*"}
"""The forget's own rows: the stash is deleted at purge; the op keeps only counts and a fingerprint."""

NO_PERSONAL_TEXT = {
    "record_fts_config": "FTS5's own settings (version, tokenizer options)",
    "observation_fts_config": "FTS5's own settings (version, tokenizer options)",
    "cohort": "predicate-defined groups (e.g. relationship = family): names a kind of person, never one",
    "signaturecompaction": "row counts of a compaction in progress",
    "storemeta": "Kith's own bookkeeping (e.g. the vector store's random id)",
    "sqlite_stat1": "SQLite's planner statistics (table and index names, row counts)",
    "sqlite_sequence": "SQLite's autoincrement counters",
    "forgotten_record": "SHA-256 content hashes of purged records (ForgottenRecord), never their text: a re-import "
                        "of the same messages is recognised and not stored again",
}
"""Tables that hold no personal text, with the reason (the schema-walking test accepts only these
uncovered; a new table must be covered by a store's forget plan or listed here with a reason)."""


# ---- the target and the scope every store plans from ------------------------------------------

TARGET_KINDS = ("entity", "source", "range", "record", "fact")


@dataclass
class Target:
    """What to forget.

    Attributes:
        kind: ``entity`` (``ref`` an id or a name), ``source`` (``ref`` a file path as given at import),
            ``range`` (``start`` ≤ sent_at < ``end``, UTC), ``record`` / ``fact`` (``ref`` an id).
    """

    kind: str
    ref: Any = None
    start: datetime | None = None
    end: datetime | None = None

    def __post_init__(self) -> None:
        if self.kind not in TARGET_KINDS:
            raise ValueError(f"unknown forget target {self.kind!r}; one of {', '.join(TARGET_KINDS)}")
        if self.kind == "range":
            if self.start is None or self.end is None:
                raise ValueError("a time range needs a start and an end")
            self.start, self.end = clock.ensure_utc(self.start), clock.ensure_utc(self.end)
            if self.end <= self.start:
                raise ValueError(f"the range ends ({self.end.isoformat()}) before it starts ({self.start.isoformat()})")

    @classmethod
    def entity(cls, ref) -> "Target":
        return cls("entity", ref)

    @classmethod
    def source(cls, path) -> "Target":
        return cls("source", str(path))

    @classmethod
    def range(cls, start: datetime, end: datetime) -> "Target":
        return cls("range", None, start, end)

    @classmethod
    def record(cls, record_id: int) -> "Target":
        return cls("record", int(record_id))

    @classmethod
    def fact(cls, fact_id: int) -> "Target":
        return cls("fact", int(fact_id))


@dataclass
class Scope:
    """The rows a forget removes or redacts, worked out once by the graph store
    (``core.graph.forget.scope``) and read by every other store's plan.  Ids only (JSON-able).

    Attributes:
        entities: entities forgotten by name (the target and what was merged into it): their mentions
            elsewhere are redacted.
        orphans: entities forgotten because nothing is left of them once the records go.
        records: records removed.  redact_records: records kept with the mentions redacted.
        facts: facts removed.  episodes: episodes removed (of removed records, or record-less
            statements that mention a forgotten entity when ``mentions == "remove"``).
        redact_episodes: episodes kept with the mentions redacted.
        sources: Source rows removed (a source target).
        quarantine: the target file's entries in the list of what could not be read (``quarantineitem`` ids;
            a source target — also a file that was never imported because nothing in it could be read).
        card_aliases: aliases that only removed contact cards gave an entity that stays (deleted).
        card_marks: alias id (str) → the contact id of a card that stays and lists it too, or None: the
            ``Alias.card`` mark of an alias a removed card gave but the entity still uses (or another card lists).
        card_names: entity id (str) → its canonical name and ``attrs["card_names"]`` once the removed cards'
            names are gone (``{"name": …, "card_names": [...]}``).
    """

    target: dict = field(default_factory=dict)
    label: str = ""
    mentions: str = "redact"
    entities: list[int] = field(default_factory=list)
    orphans: list[int] = field(default_factory=list)
    records: list[int] = field(default_factory=list)
    redact_records: list[int] = field(default_factory=list)
    facts: list[int] = field(default_factory=list)
    episodes: list[int] = field(default_factory=list)
    redact_episodes: list[int] = field(default_factory=list)
    sources: list[int] = field(default_factory=list)
    quarantine: list[int] = field(default_factory=list)
    card_aliases: list[int] = field(default_factory=list)
    card_marks: dict = field(default_factory=dict)
    card_names: dict = field(default_factory=dict)

    @property
    def all_entities(self) -> list[int]:
        return sorted(set(self.entities) | set(self.orphans))

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in ("target", "label", "mentions", "entities", "orphans", "records",
                                              "redact_records", "facts", "episodes", "redact_episodes", "sources",
                                              "quarantine", "card_aliases", "card_marks", "card_names")}

    @classmethod
    def from_json(cls, d: dict) -> "Scope":
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


# ---- stash helpers (raw sqlite3, caller's transaction) ----------------------------------------

CHUNK = 500


def chunks(ids: Sequence, n: int = CHUNK) -> Iterable[list]:
    """``ids`` in lists of at most ``n`` (SQLite's bound-parameter limit)."""
    ids = list(ids)
    for i in range(0, len(ids), n):
        yield ids[i:i + n]


def fact_quotes(conn, fact_ids: Sequence[int], min_chars: int = 12, prefix: int = 80) -> list[str]:
    """The sentences of facts ``fact_ids`` as a chat reply says them: the statement without its "As of …," lead
    and its full stop, whitespace collapsed, case-folded, cut to ``prefix`` characters; those shorter than
    ``min_chars`` are left out (what a kept chat turn copied of a fact a forget takes: "who is Oliver?" →
    "… Oliver Grant's sister is Beth. …")."""
    from core.store.schema import statement_sentence

    out = []
    for part in chunks(list(fact_ids)):
        for (statement,) in conn.execute(f"SELECT statement FROM fact WHERE id IN ({marks(len(part))})", part):
            said = statement_sentence(" ".join((statement or "").split())).rstrip(".")
            if len(said) >= min_chars:
                out.append(said[:prefix].casefold())
    return out


def marks(n: int) -> str:
    return ",".join("?" * n)


def encode(v):
    """A raw SQLite value as JSON (bytes → ``{"$b64": …}``)."""
    return {"$b64": base64.b64encode(v).decode("ascii")} if isinstance(v, (bytes, memoryview)) else v


def decode(v):
    if isinstance(v, dict) and "$b64" in v:
        return base64.b64decode(v["$b64"])
    return v


def _insert_stash(conn, op_id: int, store: str, kind: str, tbl: str, data: dict, blob: bytes | None = None) -> None:
    conn.execute("INSERT INTO forget_stash(op_id, store, kind, tbl, data, blob) VALUES (?,?,?,?,?,?)",
                 (op_id, store, kind, tbl, json.dumps(data, ensure_ascii=False), blob))


def stash_rows(conn, op_id: int, store: str, tbl: str, where: str, params: Sequence = (),
               select: str = "*", delete: bool = True) -> int:
    """Copy every row of ``tbl`` matching ``where`` into the stash, then delete them (unless ``delete``
    is False).  ``select`` names the columns (``"rowid, *"`` for an FTS5 table).  Returns rows stashed."""
    cur = conn.execute(f"SELECT {select} FROM {tbl} WHERE {where}", tuple(params))
    cols = [d[0] for d in cur.description]
    n = 0
    for row in cur.fetchall():
        _insert_stash(conn, op_id, store, "row", tbl, {"cols": cols, "vals": [encode(v) for v in row]})
        n += 1
    if delete and n:
        conn.execute(f"DELETE FROM {tbl} WHERE {where}", tuple(params))
    return n


def stash_rows_by_ids(conn, op_id: int, store: str, tbl: str, col: str, ids: Sequence[int],
                      select: str = "*", delete: bool = True) -> int:
    """:func:`stash_rows` for ``col IN ids`` (chunked)."""
    n = 0
    for part in chunks(sorted(set(ids))):
        n += stash_rows(conn, op_id, store, tbl, f"{col} IN ({marks(len(part))})", part, select, delete)
    return n


def stash_values(conn, op_id: int, store: str, tbl: str, key: dict, cols: Sequence[str]) -> dict | None:
    """Copy columns ``cols`` of the row of ``tbl`` whose columns equal ``key`` into the stash;
    returns their values (None when the row does not exist)."""
    where = " AND ".join(f"{k} = ?" for k in key)
    row = conn.execute(f"SELECT {', '.join(cols)} FROM {tbl} WHERE {where}", tuple(key.values())).fetchone()
    if row is None:
        return None
    vals = dict(zip(cols, row))
    _insert_stash(conn, op_id, store, "values", tbl, {"key": key, "vals": {c: encode(v) for c, v in vals.items()}})
    return vals


def stash_vector(conn, op_id: int, store: str, collection: str, vid: str, vector: bytes, metadata: dict | None) -> None:
    """Keep one Chroma vector (``float32`` bytes) and its metadata."""
    _insert_stash(conn, op_id, store, "vector", collection, {"id": vid, "metadata": metadata or {}}, vector)


def stashed(conn, op_id: int, store: str, kind: str | None = None, tbl: str | None = None) -> list[tuple[str, str, dict, bytes | None]]:
    """(kind, tbl, data, blob) of the op's stash entries for ``store``, in the order they were written."""
    q = "SELECT kind, tbl, data, blob FROM forget_stash WHERE op_id = ? AND store = ?"
    params: list = [op_id, store]
    if kind:
        q += " AND kind = ?"
        params.append(kind)
    if tbl:
        q += " AND tbl = ?"
        params.append(tbl)
    return [(k, t, json.loads(d), b) for k, t, d, b in conn.execute(q + " ORDER BY id", params).fetchall()]


def put_back(conn, op_id: int, store: str, tbls: Sequence[str] | None = None, on_conflict: str = "") -> int:
    """Write the op's stash for ``store`` back, newest change first (values: UPDATE; rows: INSERT —
    ``on_conflict`` e.g. ``"OR REPLACE"``).  ``tbls`` limits it to those tables.  Returns entries applied."""
    n = 0
    for kind, tbl, data, _blob in reversed(stashed(conn, op_id, store)):
        if tbls is not None and tbl not in tbls:
            continue
        if kind == "values":
            vals = {c: decode(v) for c, v in data["vals"].items()}
            sets = ", ".join(f"{c} = ?" for c in vals)
            where = " AND ".join(f"{k} = ?" for k in data["key"])
            conn.execute(f"UPDATE {tbl} SET {sets} WHERE {where}", (*vals.values(), *data["key"].values()))
        elif kind == "row":
            cols = data["cols"]
            conn.execute(f"INSERT {on_conflict} INTO {tbl}({', '.join(cols)}) VALUES ({marks(len(cols))})",
                         [decode(v) for v in data["vals"]])
        else:
            continue
        n += 1
    return n


def drop_stash(conn, op_id: int) -> int:
    """Delete every stash entry of the op; returns how many."""
    return conn.execute("DELETE FROM forget_stash WHERE op_id = ?", (op_id,)).rowcount or 0


def now_text(dt: datetime | None = None) -> str:
    """A UTC time as SQLAlchemy stores it in SQLite (``YYYY-MM-DD HH:MM:SS.ffffff``)."""
    d = clock.ensure_utc(dt) or clock.now()
    return d.replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")

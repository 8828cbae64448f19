"""SQLModel tables of communication personalization (seed 000; DESIGN.md §3).

Times in these tables are UTC epoch seconds (float): unambiguous, compact and
cheap to compare in the signal ledger's hot path.  Vectors are float32 (384,)
stored as raw little-endian bytes.  The tables are written with plain SQL by
``core/personal/*`` (one transaction per batch) for speed.

Call :func:`ensure` on a connection (the ledger does) to create the tables,
indexes and triggers idempotently; ``core/store/db.py`` may also run
``EXTRA_DDL`` at migration.
"""
from __future__ import annotations

from typing import Optional

from sqlalchemy import JSON, BigInteger, Column, Index, LargeBinary
from sqlmodel import Field, SQLModel


class PersonProfile(SQLModel, table=True):
    """A person's communication metadata: who they are to the owner, and their running style.

    ``person_id`` is the Entity id (the owner has one too).  ``meta`` holds cohort fields
    (relationship, role, timezone, …); ``style`` the running style statistics ``learn.py`` keeps.
    """

    __tablename__ = "person_profile"
    person_id: int = Field(primary_key=True)
    name: str = ""
    meta: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, default=dict))
    style: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, default=dict))
    interaction_count: int = 0
    first_interaction: Optional[float] = None
    last_interaction: Optional[float] = None


class Message(SQLModel, table=True):
    """A message sent or received in a conversation with a person (seed 000's Message item).

    direction: ``"out"`` (to the person: the owner's or Kith's message, the target of signals)
    or ``"in"`` (the person's).  ``topic`` is the primary keyword topic, ``tone`` positive |
    neutral | negative, ``length`` words, ``structure`` terse | conversational | stream_of_thought |
    structured, ``at`` UTC epoch seconds, ``embedding`` float32 (384,) bytes or None.
    """

    __tablename__ = "message"
    __table_args__ = (Index("ix_message_person_at", "person_id", "at"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    person_id: int
    direction: str
    conversation: str = ""
    session_id: Optional[int] = None
    record_ref: Optional[str] = None
    text: str = ""
    topic: Optional[str] = None
    tone: Optional[str] = None
    length: int = 0
    structure: Optional[str] = None
    is_question: bool = False
    at: float
    embedding: Optional[bytes] = Field(default=None, sa_column=Column(LargeBinary, nullable=True))


class Signal(SQLModel, table=True):
    """One global signal in a ledger (kept lean: the hot path).  See ``core/personal/signals.py``.

    Clustered (WITHOUT ROWID) on (owner, name, at, id) so a write touches one b-tree and
    windowed reads are range scans.  owner > 0: a person's entity id; owner < 0: ``-cohort.id``.
    ``at`` UTC epoch seconds; ``id`` a random 62-bit integer (unique within the key);
    ``session_id`` the session it was promoted from (provenance), or None; ``src`` on a cohort
    ledger's copy, the person it was copied from (so forgetting a person removes it), else None.
    """

    __tablename__ = "signal"
    __table_args__ = {"sqlite_with_rowid": False}
    owner: int = Field(primary_key=True, sa_type=BigInteger)
    name: str = Field(primary_key=True)
    at: float = Field(primary_key=True)
    id: int = Field(primary_key=True, sa_type=BigInteger)
    target: str
    weight: float
    session_id: Optional[int] = None
    src: Optional[int] = Field(default=None, sa_type=BigInteger)


class SessionSignal(SQLModel, table=True):
    """A session-scoped signal, invisible to global reads until its session closes (then moved to ``signal``)."""

    __tablename__ = "session_signal"
    id: Optional[int] = Field(default=None, primary_key=True)
    session_id: int
    name: str
    owner: int
    target: str
    weight: float
    at: float


class SignalAgg(SQLModel, table=True):
    """Aggregates of the global rows at or below their (owner, name) watermark (:class:`SignalWatermark`):
    per (owner, name, '*', UTC hour-of-week) for message targets and per (owner, name, target, -1)
    for topic/observation targets.  Folded in batch by ``Ledger.fold``; late rows (at ≤ watermark)
    are merged by the ``signal_agg_late`` trigger.

    ``score`` is the decayed weight sum at ``t_ref`` (UTC epoch seconds); ``hl`` the half-life (s);
    ``first_at`` / ``last_at`` UTC epoch seconds.
    """

    __tablename__ = "signal_agg"
    __table_args__ = {"sqlite_with_rowid": False}
    owner: int = Field(primary_key=True)
    name: str = Field(primary_key=True)
    target: str = Field(primary_key=True)
    how: int = Field(primary_key=True)
    n: int = 0
    total: float = 0.0
    score: float = 0.0
    t_ref: float = 0.0
    hl: float = 86400.0
    first_at: float = 0.0
    last_at: float = 0.0


class SignalWatermark(SQLModel, table=True):
    """Per (owner, name): ``wm`` (UTC epoch seconds) — ``signal_agg`` holds exactly the global rows with
    ``at ≤ wm``, and ``n`` / ``total`` their count and weight sum; reads add the rows above it (a range
    scan on the clustered key)."""

    __tablename__ = "signal_wm"
    __table_args__ = {"sqlite_with_rowid": False}
    owner: int = Field(primary_key=True)
    name: str = Field(primary_key=True)
    wm: float
    n: int = 0
    total: float = 0.0


class PersonPattern(SQLModel, table=True):
    """What works with a person, maintained by ``learn.record_patterns`` as signals become global.

    Per (person, message feature): outcomes of the messages sent to them that had the feature —
    ``replied`` / ``silent`` / ``negative`` (negative-sentiment replies) — as counts (``*_n``) and as
    counts decayed with a 30-day half-life to ``t_ref`` (UTC epoch seconds).  Features: ``"*"`` (every
    message), ``"q"`` / ``"nq"`` (question or not), ``"short"`` (≤ 12 words) / ``"long"`` (> 40),
    ``"h:<UTC hour 0–23>"`` of sending, ``"t:<topic>"``.
    """

    __tablename__ = "person_pattern"
    __table_args__ = {"sqlite_with_rowid": False}
    person_id: int = Field(primary_key=True)
    feature: str = Field(primary_key=True)
    replied_n: int = 0
    replied: float = 0.0
    silent_n: int = 0
    silent: float = 0.0
    negative_n: int = 0
    negative: float = 0.0
    t_ref: float = 0.0


class Observation(SQLModel, table=True):
    """A natural-language statement about a person's pattern (seed 000's Observation item).

    category ∈ style | topic | timing | dynamics.  ``key`` is a normalised form used to
    recognise the same observation again (reinforcement).  Confidence lives in the ledger
    as ``confidence`` signals on target ``"o:<id>"``.  ``embedding`` float32 (384,) bytes.
    """

    __tablename__ = "observation"
    __table_args__ = (Index("ix_observation_person_key", "person_id", "key"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    person_id: int
    text: str
    key: str
    category: str
    source_conversation: str = ""
    created_at: float
    reinforced_at: float
    times_seen: int = 1
    embedding: Optional[bytes] = Field(default=None, sa_column=Column(LargeBinary, nullable=True))


class Cohort(SQLModel, table=True):
    """A predicate-defined group of people with its own ledger (owner = -id)."""

    __tablename__ = "cohort"
    id: Optional[int] = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    predicate: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, default=dict))


class ConversationSession(SQLModel, table=True):
    """A conversation session: signals written in it are scoped until it closes (seed 000 "Sessions")."""

    __tablename__ = "conversation_session"
    id: Optional[int] = Field(default=None, primary_key=True)
    person_id: int = Field(index=True)
    conversation: str = ""
    started_at: float
    closed_at: Optional[float] = None
    turns: int = 0
    rotated_from: Optional[int] = None


class PreferenceVector(SQLModel, table=True):
    """A person's preference vector: EMA of the embeddings of positively received messages (float32 (384,))."""

    __tablename__ = "preference_vector"
    person_id: int = Field(primary_key=True)
    vector: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    n_updates: int = 0
    updated_at: float = 0.0


TABLES = [PersonProfile.__table__, Message.__table__, Signal.__table__, SessionSignal.__table__, SignalAgg.__table__,
          SignalWatermark.__table__, PersonPattern.__table__,
          Observation.__table__, Cohort.__table__, ConversationSession.__table__, PreferenceVector.__table__]


def extra_ddl() -> list[str]:
    """Raw DDL SQLModel cannot express: FTS5 over observations and the late-row aggregate trigger."""
    from core.personal.signals import agg_trigger_ddl

    return [
        "CREATE VIRTUAL TABLE IF NOT EXISTS observation_fts USING fts5(text, "
        "tokenize='unicode61 remove_diacritics 2')",
        *agg_trigger_ddl(),
    ]


def _up_to_date(conn, exists: set[str]) -> bool:
    """Whether every table, index, column and trigger :func:`ensure` would create is already there as it
    would create it."""
    for tb in TABLES:
        if tb.name not in exists or any(ix.name not in exists for ix in tb.indexes):
            return False
    if "observation_fts" not in exists:
        return False
    if "src" not in {r[1] for r in conn.execute("PRAGMA table_info(signal)")}:
        return False
    triggers = {name: sql for name, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE type='trigger'")}
    if "signal_agg_ins" in triggers or "signal_agg_promote" in triggers:
        return False
    want = [d for d in extra_ddl() if d.startswith("CREATE TRIGGER")]
    have = {" ".join((sql or "").split()) for sql in triggers.values()}
    return all(" ".join(d.split()) in have for d in want)


def ensure(conn) -> None:
    """Create the personal tables, indexes and triggers on a sqlite3 connection (idempotent).

    Raises:
        sqlite3.DatabaseError: the file is not a SQLite database.
    """
    from sqlalchemy import create_engine
    from sqlalchemy.schema import CreateIndex, CreateTable

    exists = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table','index')")}
    if _up_to_date(conn, exists):
        return  # opening for a read writes nothing (issue #10: reads never write, nor wait for the writer)
    engine = create_engine("sqlite://")
    conn.execute("BEGIN IMMEDIATE")
    try:
        for t in TABLES:
            if t.name not in exists:
                conn.execute(str(CreateTable(t).compile(engine)))
            for ix in t.indexes:
                if ix.name not in exists:
                    conn.execute(str(CreateIndex(ix).compile(engine)))
        if "signal" in exists:  # files from before the watermark: add provenance, rebuild the aggregates
            if "src" not in {r[1] for r in conn.execute("PRAGMA table_info(signal)")}:
                conn.execute("ALTER TABLE signal ADD COLUMN src BIGINT")
            if conn.execute("SELECT 1 FROM sqlite_master WHERE type='trigger' AND name='signal_agg_ins'").fetchone():
                conn.execute("DROP TRIGGER signal_agg_ins")
                conn.execute("DELETE FROM signal_agg")  # refolded from the rows (no watermark = fold everything)
        for ddl in extra_ddl():
            conn.execute(ddl)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def pg_extra_ddl() -> list[str]:
    """:func:`extra_ddl` for PostgreSQL: the observations' full-text table (GIN) and the late-row trigger as a
    PL/pgSQL function (the same statements as SQLite's trigger, its idioms translated)."""
    from core.personal.signals import agg_trigger_body
    from core.store.dialect import _idioms
    from core.store.schema import pg_fts_table

    body = _idioms(agg_trigger_body()).replace("%%", "%")
    return [
        *pg_fts_table("observation_fts", ("text",), diacritics=True),
        "CREATE OR REPLACE FUNCTION kith_signal_agg_late() RETURNS trigger LANGUAGE plpgsql AS $fn$ BEGIN "
        "IF NEW.at <= (SELECT wm FROM signal_wm WHERE owner = NEW.owner AND name = NEW.name) THEN "
        f"{body} END IF; RETURN NULL; END $fn$",
        "DROP TRIGGER IF EXISTS signal_agg_late ON signal",
        "CREATE TRIGGER signal_agg_late AFTER INSERT ON signal FOR EACH ROW EXECUTE FUNCTION kith_signal_agg_late()",
    ]


def pg_up_to_date(conn) -> bool:
    """PostgreSQL: whether every ledger table, the observations' full-text table and the trigger exist."""
    from sqlalchemy import inspect

    have = set(inspect(conn).get_table_names())
    if any(t.name not in have for t in TABLES) or "observation_fts" not in have:
        return False
    return bool(conn.exec_driver_sql("SELECT 1 FROM pg_trigger WHERE tgname = 'signal_agg_late'").fetchone())

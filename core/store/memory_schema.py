"""SQLModel tables of the cognitive memory (seed 001, floors 3–7), beside ``schema.Episode``.

Importing this module registers the tables on ``SQLModel.metadata``; ``Database``
creates them.  Signatures themselves live in the flat files (``core/store/signatures.py``);
small HVs of derived objects (atoms, beliefs, goals, self-vector) are kept inline as
1024-byte BLOBs.  Every datetime is UTC (``core.clock``).
"""
from __future__ import annotations

from datetime import datetime
from typing import Optional

from sqlalchemy import JSON, Column, Index, LargeBinary
from sqlmodel import Field, SQLModel

from core import clock

GOAL_STATES = ("active", "paused", "completed", "abandoned")


class Concept(SQLModel, table=True):
    """A concept the memory can bind: ``key`` is ``kind:normalised label`` (e.g. ``entity:sarah lee``).

    Its HV is ``core.hdc.hv(key)``; ``df`` counts the episodes indexed under it.
    """

    id: Optional[int] = Field(default=None, primary_key=True)
    key: str = Field(unique=True)
    kind: str  # entity | term | predicate | time
    label: str
    df: int = 0
    withdrawn_at: Optional[datetime] = None


class ConceptPosting(SQLModel, table=True):
    """The inverted index: episode ``episode_id`` mentions concept ``concept_id`` in ``role``."""

    __table_args__ = (Index("ix_posting_episode", "episode_id"),)
    concept_id: int = Field(foreign_key="concept.id", primary_key=True)
    episode_id: int = Field(foreign_key="episode.id", primary_key=True, ondelete="CASCADE")
    role: str = Field(default="mention", primary_key=True)  # speaker | subject | object | mention | term


class EpisodeTriple(SQLModel, table=True):
    """A (subject, predicate, object) extracted from an episode (canonical, lower-case labels)."""

    id: Optional[int] = Field(default=None, primary_key=True)
    episode_id: int = Field(foreign_key="episode.id", index=True, ondelete="CASCADE")
    subject: str
    predicate: str
    object: str
    confidence: float = 0.6


class SemanticAtom(SQLModel, table=True):
    """Consolidated knowledge: a cluster of ≥ 3 similar episodes bundled (seed 001 step 4)."""

    id: Optional[int] = Field(default=None, primary_key=True)
    subject: str = ""
    predicate: str = ""
    object: str = ""
    statement: str = ""
    signature: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    evidence_count: int = 0
    confidence: float = 0.5
    valid_from: Optional[datetime] = None
    valid_to: Optional[datetime] = None
    created_at: datetime = Field(default_factory=clock.now)
    last_referenced_at: datetime = Field(default_factory=clock.now)
    strength: float = 1.0
    archived_at: Optional[datetime] = None
    superseded_by: Optional[int] = Field(default=None, foreign_key="semanticatom.id")
    tombstoned_at: Optional[datetime] = None


class AtomEvidence(SQLModel, table=True):
    """Links an atom to a source episode."""

    atom_id: int = Field(foreign_key="semanticatom.id", primary_key=True, ondelete="CASCADE")
    episode_id: int = Field(foreign_key="episode.id", primary_key=True, index=True, ondelete="CASCADE")


class Belief(SQLModel, table=True):
    """What the agent holds true, with confidence and an append-only revision log (seed 001 floor 6)."""

    id: Optional[int] = Field(default=None, primary_key=True)
    subject: str = Field(index=True)
    predicate: str
    object: str
    statement: str = ""
    confidence: float = 0.8
    evidence_count: int = 0
    contradictions: int = 0
    atom_id: Optional[int] = Field(default=None, foreign_key="semanticatom.id")
    signature: Optional[bytes] = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    valid_from: Optional[datetime] = None
    valid_to: Optional[datetime] = None
    created_at: datetime = Field(default_factory=clock.now)
    superseded_by: Optional[int] = Field(default=None, foreign_key="belief.id")
    withdrawn_at: Optional[datetime] = None


class BeliefRevision(SQLModel, table=True):
    """One change to a belief: kind ∈ asserted | confidence | superseded | withdrawn | restored."""

    id: Optional[int] = Field(default=None, primary_key=True)
    belief_id: int = Field(foreign_key="belief.id", index=True)
    kind: str
    old_confidence: Optional[float] = None
    new_confidence: Optional[float] = None
    reason: str = ""
    detail: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, default=dict))
    at: datetime = Field(default_factory=clock.now)


class Goal(SQLModel, table=True):
    """Something the owner wants: a state machine (active/paused/completed/abandoned) in a tree."""

    id: Optional[int] = Field(default=None, primary_key=True)
    title: str
    state: str = "active"
    parent_id: Optional[int] = Field(default=None, foreign_key="goal.id", index=True)
    success_criteria: str = ""
    deadline: Optional[datetime] = None
    priority: float = 1.0
    signature: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created_at: datetime = Field(default_factory=clock.now)
    updated_at: datetime = Field(default_factory=clock.now)


class Procedure(SQLModel, table=True):
    """A skill or workflow (seed 001 floor 5): named steps, a trigger, an HV for recall."""

    id: Optional[int] = Field(default=None, primary_key=True)
    name: str = Field(index=True)
    description: str = ""
    trigger: str = ""
    steps: list = Field(default_factory=list, sa_column=Column(JSON, nullable=False, default=list))
    signature: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created_at: datetime = Field(default_factory=clock.now)
    degraded: bool = False
    tombstoned_at: Optional[datetime] = None


class ExecutionTrace(SQLModel, table=True):
    """One run of a procedure: when, how long (seconds), success, per-step notes."""

    id: Optional[int] = Field(default=None, primary_key=True)
    procedure_id: int = Field(foreign_key="procedure.id", index=True, ondelete="CASCADE")
    started_at: datetime = Field(default_factory=clock.now)
    duration_s: float = 0.0
    success: bool = True
    steps: list = Field(default_factory=list, sa_column=Column(JSON, nullable=False, default=list))
    notes: str = ""


class LearningEvent(SQLModel, table=True):
    """The self-model's append-only audit log: every store, recall, consolidation, revision, unlearn."""

    id: Optional[int] = Field(default=None, primary_key=True)
    kind: str = Field(index=True)
    target: str = ""
    detail: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, default=dict))
    at: datetime = Field(default_factory=clock.now, index=True)


class SelfVectorSnapshot(SQLModel, table=True):
    """The self-vector after an update: ``bits`` (1024 bytes) and the EMA accumulator
    ``accum`` (float32 (8192,) little-endian, per-bit probability in [0, 1])."""

    id: Optional[int] = Field(default=None, primary_key=True)
    at: datetime = Field(default_factory=clock.now, index=True)
    bits: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    accum: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    alpha: float = 0.05
    reason: str = "consolidation"
    n_inputs: int = 0
    drift_bits: int = 0


class Tombstone(SQLModel, table=True):
    """A non-destructive removal: ``target`` like ``episode:12``; restorable until ``expires_at``."""

    id: Optional[int] = Field(default=None, primary_key=True)
    target: str = Field(index=True)
    reason: str = ""
    at: datetime = Field(default_factory=clock.now)
    expires_at: datetime
    restored_at: Optional[datetime] = None


class AttentionTrace(SQLModel, table=True):
    """What one recall activated and why: cue concepts, tiers run, candidates, matches with reasons."""

    id: Optional[int] = Field(default=None, primary_key=True)
    at: datetime = Field(default_factory=clock.now, index=True)
    query: str = ""
    session: Optional[str] = None
    tier_used: str = ""
    elapsed_ms: float = 0.0
    detail: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, default=dict))


class SignatureCompaction(SQLModel, table=True):
    """Marks a signature-file compaction whose renumbering is committed but whose files may not be
    swapped in yet (``core.memory.forget.compact``); row counts before and after.  Deleted when done."""

    id: Optional[int] = Field(default=None, primary_key=True)
    rows_before: int
    rows_after: int
    at: datetime = Field(default_factory=clock.now)


class LexDoc(SQLModel, table=True):
    """The episode lexicon's side table (``core/retrieval/lexicon.py``): each indexed episode's conversation,
    UTC time (seconds), sender and ``own`` words, so a new turn's neighbours are found and rewritten without
    touching any other row.  Its FTS5 table ``episode_lex`` is in ``schema.EXTRA_DDL``."""

    __tablename__ = "lexdoc"
    __table_args__ = (Index("ix_lexdoc_session", "session", "t", "episode_id"),)
    episode_id: int = Field(primary_key=True)
    session: Optional[str] = None
    t: Optional[float] = None
    speaker: Optional[str] = None
    own: str = ""


class LexSpeaker(SQLModel, table=True):
    """A word of a sender's name → the sender (the lexicon's speaker boost)."""

    __tablename__ = "lex_speaker"
    token: str = Field(primary_key=True)
    speaker: str = Field(primary_key=True)


class LexStats(SQLModel, table=True):
    """Counters of the episode lexicon (``docs``: indexed episodes, for idf)."""

    __tablename__ = "lex_stats"
    name: str = Field(primary_key=True)
    value: int = 0

"""SQLModel tables (DESIGN.md §3).

All datetimes are stored as UTC (SQLite keeps no offset; :func:`core.clock.ensure_utc`
reattaches it on read).  JSON columns hold small per-row attributes.  The
walking skeleton holds Entity, Alias, Source, Record (+ links to entities),
Fact (+ entity links and evidence), Episode and the quarantine list; later
issues add memory and personalization tables beside these.
"""
from __future__ import annotations

import re

from datetime import date, datetime
from typing import Optional, Sequence

from sqlalchemy import JSON, Column, Index, UniqueConstraint, text
from sqlmodel import Field, SQLModel

from core import clock

ENTITY_KINDS = ("person", "place", "topic", "event", "thing")
ALIAS_KINDS = ("name", "nickname", "phone", "email", "handle", "contact")


class Entity(SQLModel, table=True):
    """A person, place, topic, event or thing Kith knows about (seed 002)."""

    id: Optional[int] = Field(default=None, primary_key=True)
    kind: str = Field(index=True)
    canonical_name: str = Field(index=True)
    contact_ref: Optional[str] = None
    attrs: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, default=dict))
    is_owner: bool = False
    created_at: datetime = Field(default_factory=clock.now)
    tombstoned_at: Optional[datetime] = None


class Alias(SQLModel, table=True):
    """Another way to name an entity: a name, nickname, phone (E.164), email, handle, contact (a card's id).

    ``normalized`` is the matching key (emails case-folded, phones in E.164,
    names case-folded with whitespace collapsed); one (kind, normalized) pair
    names at most one entity.
    """

    __table_args__ = (UniqueConstraint("kind", "normalized", "entity_id"),
                      Index("ix_alias_lookup", "kind", "normalized"))
    id: Optional[int] = Field(default=None, primary_key=True)
    entity_id: int = Field(foreign_key="entity.id", index=True, ondelete="CASCADE")
    kind: str
    value: str
    normalized: str
    origin_id: Optional[int] = None  # the entity it was first attached to; stays when a merge moves the alias
    card: Optional[str] = None
    """The contact id of the address-book card (vCard) that lists this name or identifier; None when no card
    does.  A party whose identifier is on a card resolves to the card's entity with signal ``contact``."""


class MergeCandidate(SQLModel, table=True):
    """A merge or non-merge decision about two entities, with its reason (seed 002's merge-review queue).

    status ∈ pending (a suggestion waiting for the person) | merged | rejected | unmerged | separate (Kith
    kept them apart, e.g. same surname or two senders of one chat).  ``signal`` is the cascade row that
    decided (``exact_name``, ``fuzzy_high``, ``first_name``, ``same_surname`` …), ``score`` its score and
    ``threshold`` the rule's threshold as written (``"definitive"``, ``"≥ 0.85"``).  ``decided_by`` is
    ``"kith"`` (the cascade, at import) or ``"person"``; a merge Kith made is *unconfirmed* until the
    person confirms it (``confirmed_at``) — facts from its second identity wait for that (issue 13).
    ``detail`` keeps what a merge moved, so an unmerge can put every alias, link and fact back.
    """

    id: Optional[int] = Field(default=None, primary_key=True)
    a_id: int = Field(foreign_key="entity.id", index=True, ondelete="CASCADE")
    b_id: int = Field(foreign_key="entity.id", index=True, ondelete="CASCADE")
    score: float
    reason: str = ""
    status: str = Field(default="pending", index=True)
    created_at: datetime = Field(default_factory=clock.now)
    decided_at: Optional[datetime] = None
    detail: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, default=dict))
    signal: str = ""
    threshold: str = ""
    decided_by: str = "person"
    confirmed_at: Optional[datetime] = None


class Source(SQLModel, table=True):
    """A file the user gave Kith; ``content_hash`` is the SHA-256 of its bytes."""

    id: Optional[int] = Field(default=None, primary_key=True)
    kind: str
    path: str = Field(index=True)
    content_hash: str = Field(index=True)
    size: int = 0
    ingested_at: datetime = Field(default_factory=clock.now)
    status: str = "ok"  # ok | partial | failed


class Record(SQLModel, table=True):
    """Raw evidence: one message, photo, transcript or chat line, kept so facts and episodes can cite it."""

    id: Optional[int] = Field(default=None, primary_key=True)
    source_id: int = Field(foreign_key="source.id", index=True)
    external_id: str
    kind: str
    sender_entity_id: Optional[int] = Field(default=None, foreign_key="entity.id", index=True)
    sent_at: Optional[datetime] = Field(default=None, index=True)
    utc_offset: Optional[int] = None  # minutes east of UTC where it was sent (+600 for +10:00); None: unknown
    subject: Optional[str] = None
    text: str = ""
    thread: Optional[str] = None
    place_entity_id: Optional[int] = Field(default=None, foreign_key="entity.id", index=True)
    content_hash: str = Field(unique=True)
    attrs: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, default=dict))
    pending: int = 0
    """Ingest stages this record still needs after its row was committed (bits of
    ``app.pipeline.Stage``: vectors, ledger, events); 0 when every stage is done.  The memory stage's
    mark is its episode's ``signature_row`` (NULL = not done)."""
    tombstoned_at: Optional[datetime] = None  # forgotten, restorable until its forget is purged (issue 11)


class RecordEntity(SQLModel, table=True):
    """Who or what a record involves: role ∈ from | to | cc | member | place | event | mentioned.

    ``signal`` and ``score`` record the resolution decision that linked them (every decision is kept)."""

    record_id: int = Field(foreign_key="record.id", primary_key=True, ondelete="CASCADE")
    entity_id: int = Field(foreign_key="entity.id", primary_key=True, index=True, ondelete="CASCADE")
    role: str = Field(primary_key=True)
    signal: str = ""      # how the party was resolved (seed 002's cascade row: email, phone, exact_name, fuzzy_high, new …)
    score: float = 1.0    # that row's score (1.0 for definitive rows)
    alias_id: Optional[int] = None  # the alias that matched or was added (which address/name), for undo and display


_AS_OF_LEAD = re.compile(r"^As of [^,]+, ")


def statement_sentence(statement: str | None) -> str:
    """A fact's statement without its ``"As of 2008-10-22, "`` lead (seed 002's temporal context: every
    :class:`Fact` statement has it), for a line that says the time in its own column: "As of 2000-02-09, Ann
    wrote to Bo by email." → "Ann wrote to Bo by email." (the trailing full stop kept; a statement without the
    lead, or None → "", is returned stripped)."""
    return _AS_OF_LEAD.sub("", (statement or "").strip(), count=1)


def statement_day(statement: str | None) -> date | None:
    """The day a fact's statement's ``"As of 2008-10-22, "`` lead names, or None (no lead, or "As of an unknown
    date, …")."""
    m = re.match(r"^As of (\d{4}-\d\d-\d\d), ", (statement or "").strip())
    try:
        return date.fromisoformat(m.group(1)) if m else None
    except ValueError:
        return None


class Fact(SQLModel, table=True):
    """A statement about the world with confidence, bi-temporal validity and supersession (seed 002).

    ``statement`` always starts "As of DATE, …".  One active fact per
    (subject, domain, category, key): a partial unique index where
    ``superseded_by IS NULL`` (created in ``db.py``).
    """

    id: Optional[int] = Field(default=None, primary_key=True)
    subject_entity_id: int = Field(foreign_key="entity.id", index=True)
    domain: str
    category: str
    key: str
    value: str
    statement: str
    confidence: float = 0.5
    valid_from: Optional[datetime] = None
    valid_to: Optional[datetime] = None
    recorded_at: datetime = Field(default_factory=clock.now)
    superseded_by: Optional[int] = Field(default=None, foreign_key="fact.id")
    evidence_count: int = 1
    indexed_at: Optional[datetime] = None
    """When the statement's vector was written to Chroma's ``facts`` collection; NULL = still to do."""
    tombstoned_at: Optional[datetime] = None  # forgotten, restorable until its forget is purged (issue 11)


class FactEntity(SQLModel, table=True):
    """A typed link from a fact to an entity: role ∈ subject | object | location | topic."""

    fact_id: int = Field(foreign_key="fact.id", primary_key=True, ondelete="CASCADE")
    entity_id: int = Field(foreign_key="entity.id", primary_key=True, index=True, ondelete="CASCADE")
    role: str = Field(primary_key=True)


class Evidence(SQLModel, table=True):
    """A record that supports a fact, with the excerpt that says so."""

    fact_id: int = Field(foreign_key="fact.id", primary_key=True, ondelete="CASCADE")
    record_id: int = Field(foreign_key="record.id", primary_key=True, index=True, ondelete="CASCADE")
    excerpt: str = ""


class Episode(SQLModel, table=True):
    """Something that happened, with bi-temporal stamps (seed 001): t_valid (in the world), t_recorded (learned)."""

    id: Optional[int] = Field(default=None, primary_key=True)
    record_id: Optional[int] = Field(default=None, foreign_key="record.id", index=True, ondelete="CASCADE")
    text: str
    t_valid: Optional[datetime] = Field(default=None, index=True)
    t_recorded: datetime = Field(default_factory=clock.now)
    signature_row: Optional[int] = None
    gist_row: Optional[int] = None
    session: Optional[str] = None
    provenance: str = ""
    confidence: float = 1.0
    superseded_by: Optional[int] = Field(default=None, foreign_key="episode.id")
    tombstoned_at: Optional[datetime] = None


class Summary(SQLModel, table=True):
    """A narrative summary (seed 002): kind ∈ entity | domain | relationship | chapter.

    ``subject`` is the entity id (entity, relationship: "a:b"), the domain name, or a chapter key.
    ``stale`` is set when a new fact touches the subject; the summary job regenerates stale ones first.
    ``generator`` says what wrote it: "deterministic" (no model configured) or the model's name.
    """

    __table_args__ = (UniqueConstraint("kind", "subject"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    kind: str
    subject: str
    text: str = ""
    stale: bool = True
    generator: str = "deterministic"
    generated_at: Optional[datetime] = None


class QuarantineItem(SQLModel, table=True):
    """Input Kith could not read: the file, where in it, and why.  The file itself is never changed."""

    id: Optional[int] = Field(default=None, primary_key=True)
    path: str = Field(index=True)
    locator: str = ""
    reason: str
    at: datetime = Field(default_factory=clock.now)


class StoreMeta(SQLModel, table=True):
    """Small facts about the data folder's stores (e.g. ``chroma_store_id``: which Chroma folder the
    vectors were written to, so a deleted or replaced folder is noticed and rebuilt)."""

    key: str = Field(primary_key=True)
    value: str


class AuditEvent(SQLModel, table=True):
    """Append-only log of destructive or identity-changing actions (forget, merge, restore)."""

    id: Optional[int] = Field(default=None, primary_key=True)
    action: str
    target: str
    detail: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, default=dict))
    at: datetime = Field(default_factory=clock.now)


# Raw DDL that SQLModel cannot express: the partial unique index for supersession
# and the FTS5 table for BM25 search over records.
EXTRA_DDL = [
    text("CREATE UNIQUE INDEX IF NOT EXISTS ux_fact_active ON fact(subject_entity_id, domain, category, key) "
         "WHERE superseded_by IS NULL"),
    text("CREATE VIRTUAL TABLE IF NOT EXISTS record_fts USING fts5(subject, body, people, "
         "tokenize='unicode61 remove_diacritics 2')"),
    # Work lists of the ingest stages (app/pipeline.py): cheap "what is left?" queries.
    text("CREATE INDEX IF NOT EXISTS ix_record_pending ON record(id) WHERE pending != 0"),
    text("CREATE INDEX IF NOT EXISTS ix_episode_unsigned ON episode(id) WHERE signature_row IS NULL"),
    text("CREATE INDEX IF NOT EXISTS ix_fact_unindexed ON fact(id) WHERE indexed_at IS NULL"),
    text("CREATE INDEX IF NOT EXISTS ix_record_thread ON record(thread, id)"),
    # One signature row per episode: two writers appending over each other can never share a row silently.
    text("CREATE UNIQUE INDEX IF NOT EXISTS ux_episode_signature_row ON episode(signature_row) "
         "WHERE signature_row IS NOT NULL"),
    # The episode lexicon (core/retrieval/lexicon.py): BM25 over context windows, and its vocabulary.
    text("CREATE VIRTUAL TABLE IF NOT EXISTS episode_lex USING fts5(own, sent, near1, near2, near3, "
         "tokenize='unicode61 remove_diacritics 0')"),
    text("CREATE VIRTUAL TABLE IF NOT EXISTS episode_lex_vocab USING fts5vocab(episode_lex, 'col')"),
]


def _diacritics_map() -> tuple[str, str]:
    """Latin letters with diacritics (U+00C0–U+024F, U+1E00–U+1EFF) and their bare lower-case letters, for
    PostgreSQL's ``translate()`` (immutable, no extension needed) — FTS5's ``remove_diacritics 2``."""
    import unicodedata

    src, dst = [], []
    for cp in list(range(0xC0, 0x250)) + list(range(0x1E00, 0x1F00)):
        ch = chr(cp)
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c)).lower()
        if len(base) == 1 and base != ch.lower() and base.isalpha():
            src.append(ch)
            dst.append(base)
    return "".join(src), "".join(dst)


def pg_fold(expr: str, diacritics: bool = False) -> str:
    """PostgreSQL: the words of ``expr`` as the full-text tables index them — lower-cased (diacritics removed
    when ``diacritics``), every run of characters that are not letters or digits one space (as FTS5's
    ``unicode61`` tokenizer splits)."""
    low = f"lower({expr})"
    if diacritics:
        a, b = _diacritics_map()
        low = f"translate({low}, '{a}', '{b}')"
    return f"regexp_replace({low}, '[^[:alnum:]]+', ' ', 'g')"


def pg_ntok(expr: str) -> str:
    """PostgreSQL: how many words :func:`pg_fold` finds in ``expr`` (FTS5's token count of a row)."""
    f = f"btrim({pg_fold(expr)})"
    return f"(CASE WHEN {f} = '' THEN 0 ELSE array_length(regexp_split_to_array({f}, ' '), 1) END)"


def pg_fts_table(name: str, cols: tuple[str, ...], own: str | None = None, diacritics: bool = False) -> list[str]:
    """DDL of a full-text table on PostgreSQL, standing in for an FTS5 table of the same name and columns:
    ``rowid`` (the key FTS5 statements use), the text columns, a ``tsv`` over all of them (GIN-indexed,
    the candidates of a query), ``ntok`` (the row's word count, for BM25's length normalisation) and, when
    ``own`` names a column, a ``<own>_tsv`` over that column alone (its document frequencies).
    ``diacritics``: fold them away (FTS5's ``remove_diacritics 2``; the search side folds alike)."""
    allcols = " || ' ' || ".join(f"coalesce({c}, '')" for c in cols)
    extra = (f", {own}_tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', {pg_fold(f'coalesce({own}, {chr(39)}{chr(39)})')})) STORED"
             if own else "")
    ddl = [f"CREATE TABLE IF NOT EXISTS {name} (rowid BIGINT PRIMARY KEY, "
           + ", ".join(f"{c} TEXT NOT NULL DEFAULT ''" for c in cols)
           + f", tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', {pg_fold(allcols, diacritics)})) STORED"
           + f", ntok INTEGER GENERATED ALWAYS AS ({pg_ntok(allcols)}) STORED{extra})",
           f"CREATE INDEX IF NOT EXISTS ix_{name}_tsv ON {name} USING GIN (tsv)"]
    if own:
        ddl.append(f"CREATE INDEX IF NOT EXISTS ix_{name}_{own}_tsv ON {name} USING GIN ({own}_tsv)")
    return ddl


PG_LEX_COLUMNS = ("own", "sent", "near1", "near2", "near3")
"""The episode lexicon's columns (``core.retrieval.lexicon.COLUMNS``), in ``lex_posting``'s ``f0…f4`` order."""


def lex_weights() -> tuple[float, ...]:
    """The episode lexicon's configured column weights, in :data:`PG_LEX_COLUMNS` order
    (``core.retrieval.config.LexiconConfig.column_weights``)."""
    from core.retrieval.config import CONFIG

    return CONFIG.lexicon.column_weights()


def lex_weight_key(weights: tuple[float, ...]) -> str:
    """The text ``lex_posting_stats.wkey`` holds for the weights ``lex_posting.w`` was computed with."""
    return ",".join(repr(float(w)) for w in weights)


def lex_weighted(weights: tuple[float, ...], counts: Sequence[str] | None = None) -> str:
    """SQL: a posting's column-weighted count ``Σ weight_c × f_c`` (FTS5's weighted term frequency), of the
    count expressions ``counts`` (default: the columns ``f0…f4``)."""
    counts = counts or [f"f{i}" for i in range(len(weights))]
    return " + ".join(f"{float(w)!r}::float8 * {c}" for w, c in zip(weights, counts))


def _pg_postings_of(src: str, weights: tuple[float, ...]) -> str:
    """SELECT of ``lex_posting`` rows (term, rowid, ntok, f0…f4, w) for the ``episode_lex`` rows of ``src``."""
    parts = " UNION ALL ".join(f"SELECT {i} AS c, x AS term FROM unnest(string_to_array(n.{c}, ' ')) x"
                               for i, c in enumerate(PG_LEX_COLUMNS))
    fs = [f"count(*) FILTER (WHERE t.c = {i})" for i in range(len(PG_LEX_COLUMNS))]
    return (f"SELECT t.term, n.rowid, sum(count(*)) OVER (PARTITION BY n.rowid), {', '.join(fs)}, "
            f"{lex_weighted(weights, fs)} "
            f"FROM {src} n CROSS JOIN LATERAL ({parts}) t WHERE t.term <> '' GROUP BY n.rowid, t.term")


def _pg_term_counts(src: str) -> str:
    """SELECT of (term, turns holding it, turns holding it in their own words) over the postings of the
    ``episode_lex`` rows of ``src`` (a trigger's transition table)."""
    return ("SELECT p.term, count(*) AS df, count(*) FILTER (WHERE p.f0 > 0) AS df_own FROM lex_posting p "
            f"JOIN {src} ON {src}.rowid = p.rowid GROUP BY p.term")


def pg_lex_postings(weights: tuple[float, ...] | None = None) -> list[str]:
    """PostgreSQL: an inverted index of the episode lexicon, kept by the database itself, so that
    ``core.retrieval.lexicon.search`` ranks every matching turn by FTS5's BM25 in one indexed query.

    ``lex_posting``: one row per (term, turn) — the term's count in each of the five columns (``f0…f4``,
    :data:`PG_LEX_COLUMNS`), their weighted sum ``w`` (:func:`lex_weighted` with ``weights``, default
    :func:`lex_weights`: computed once here instead of for every posting of every question) and the turn's
    token count ``ntok`` (BM25's length normalisation); ``lex_posting_stats``: the turns and their tokens in
    all (BM25's N and average length) and ``wkey``, the weights ``w`` holds (a search with other weights
    computes them from ``f0…f4``); ``lex_term``: each term's document frequencies — the turns holding it
    in any column (``df``, BM25's idf) and in their own words (``df_own``, the relevance features) — so that
    a search reads a term's df instead of counting its postings (half a server search's time, v6); a term
    no turn holds any more is deleted.  Statement-level triggers on ``episode_lex`` (every write there is an
    INSERT or a DELETE, forget's included) keep all three, in the writer's transaction; an existing lexicon
    is indexed once, when ``lex_posting_stats`` is empty (``lex_term`` when it is), and ``w`` is recomputed
    when the weights changed.
    A column holds space-separated tokens (``core.retrieval.lexicon``), counted as FTS5 counts them.

    Why: a GIN-indexed ``tsvector`` finds the matching turns but not their term frequencies; scoring the
    matches in Python made a server ``ask`` 3.4× the embedded one (issue 16), and PostgreSQL's own
    string and ``unnest(tsvector)`` functions took 35–340 ms per question on 1,500 turns."""
    weights = tuple(weights or lex_weights())
    key = lex_weight_key(weights)
    post = _pg_postings_of("nt", weights)
    return [
        "CREATE TABLE IF NOT EXISTS lex_posting (term TEXT NOT NULL, rowid BIGINT NOT NULL, ntok INTEGER NOT NULL, "
        "f0 INTEGER NOT NULL, f1 INTEGER NOT NULL, f2 INTEGER NOT NULL, f3 INTEGER NOT NULL, f4 INTEGER NOT NULL, "
        "w DOUBLE PRECISION NOT NULL DEFAULT 0, "
        "PRIMARY KEY (term, rowid) INCLUDE (ntok, w, f0))",  # a query reads the index alone
        "ALTER TABLE lex_posting ADD COLUMN IF NOT EXISTS w DOUBLE PRECISION NOT NULL DEFAULT 0",
        "CREATE INDEX IF NOT EXISTS ix_lex_posting_rowid ON lex_posting(rowid)",
        "CREATE TABLE IF NOT EXISTS lex_posting_stats (id SMALLINT PRIMARY KEY, docs BIGINT NOT NULL, "
        "tokens BIGINT NOT NULL, wkey TEXT NOT NULL DEFAULT '')",
        "ALTER TABLE lex_posting_stats ADD COLUMN IF NOT EXISTS wkey TEXT NOT NULL DEFAULT ''",
        "CREATE TABLE IF NOT EXISTS lex_term (term TEXT PRIMARY KEY, df BIGINT NOT NULL, df_own BIGINT NOT NULL)",
        "CREATE OR REPLACE FUNCTION kith_lex_posting_add() RETURNS trigger LANGUAGE plpgsql AS $body$ "
        "BEGIN "
        f"INSERT INTO lex_posting(term, rowid, ntok, f0, f1, f2, f3, f4, w) {post}; "
        f"INSERT INTO lex_term(term, df, df_own) {_pg_term_counts('nt')} ON CONFLICT (term) DO UPDATE "
        "SET df = lex_term.df + EXCLUDED.df, df_own = lex_term.df_own + EXCLUDED.df_own; "
        "UPDATE lex_posting_stats SET docs = docs + (SELECT count(*) FROM nt), "
        "tokens = tokens + coalesce((SELECT sum(ntok) FROM (SELECT DISTINCT p.rowid, p.ntok FROM lex_posting p "
        "JOIN nt ON nt.rowid = p.rowid) s), 0) WHERE id = 1; "
        "RETURN NULL; END $body$",
        "CREATE OR REPLACE FUNCTION kith_lex_posting_drop() RETURNS trigger LANGUAGE plpgsql AS $body$ "
        "BEGIN "
        "UPDATE lex_posting_stats SET docs = docs - (SELECT count(*) FROM ot), "
        "tokens = tokens - coalesce((SELECT sum(ntok) FROM (SELECT DISTINCT p.rowid, p.ntok FROM lex_posting p "
        "JOIN ot ON ot.rowid = p.rowid) s), 0) WHERE id = 1; "
        # a term no turn holds any more is gone (a forgotten name is not left in the vocabulary)
        f"WITH d AS ({_pg_term_counts('ot')}), gone AS (DELETE FROM lex_term t USING d "
        "WHERE t.term = d.term AND t.df <= d.df) UPDATE lex_term t SET df = t.df - d.df, df_own = t.df_own - d.df_own "
        "FROM d WHERE t.term = d.term AND t.df > d.df; "
        "DELETE FROM lex_posting p USING ot WHERE p.rowid = ot.rowid; "
        "RETURN NULL; END $body$",
        "CREATE OR REPLACE TRIGGER kith_lex_posting_ins AFTER INSERT ON episode_lex REFERENCING NEW TABLE AS nt "
        "FOR EACH STATEMENT EXECUTE FUNCTION kith_lex_posting_add()",
        "CREATE OR REPLACE TRIGGER kith_lex_posting_del AFTER DELETE ON episode_lex REFERENCING OLD TABLE AS ot "
        "FOR EACH STATEMENT EXECUTE FUNCTION kith_lex_posting_drop()",
        # an UPDATE (none today) would leave the postings stale: refuse it rather than rank on stale counts
        "CREATE OR REPLACE FUNCTION kith_lex_no_update() RETURNS trigger LANGUAGE plpgsql AS $body$ "
        "BEGIN RAISE EXCEPTION 'episode_lex rows are replaced (DELETE + INSERT), never updated'; END $body$",
        "CREATE OR REPLACE TRIGGER kith_lex_posting_upd BEFORE UPDATE ON episode_lex "
        "FOR EACH STATEMENT EXECUTE FUNCTION kith_lex_no_update()",
        # a lexicon from before the postings (or an empty one): index it once; other weights: recompute w
        "DO $body$ BEGIN IF NOT EXISTS (SELECT 1 FROM lex_posting_stats) THEN "
        "DELETE FROM lex_posting; DELETE FROM lex_term; "
        f"INSERT INTO lex_posting(term, rowid, ntok, f0, f1, f2, f3, f4, w) {_pg_postings_of('episode_lex', weights)}; "
        "INSERT INTO lex_posting_stats(id, docs, tokens, wkey) VALUES (1, (SELECT count(*) FROM episode_lex), "
        f"coalesce((SELECT sum(ntok) FROM (SELECT DISTINCT rowid, ntok FROM lex_posting) s), 0), '{key}'); "
        f"ELSIF EXISTS (SELECT 1 FROM lex_posting_stats WHERE wkey <> '{key}') THEN "
        f"UPDATE lex_posting SET w = {lex_weighted(weights)}; "
        f"UPDATE lex_posting_stats SET wkey = '{key}'; "
        "END IF; "
        "IF NOT EXISTS (SELECT 1 FROM lex_term) THEN "
        "INSERT INTO lex_term(term, df, df_own) SELECT term, count(*), count(*) FILTER (WHERE f0 > 0) "
        "FROM lex_posting GROUP BY term; END IF; END $body$",
    ]


def pg_extra_ddl() -> list[str]:
    """:data:`EXTRA_DDL` for PostgreSQL: the same partial indexes; full-text tables with GIN indexes in place
    of FTS5 (``core/store/search.py`` and ``core/retrieval/lexicon.py`` rank them with the same BM25)."""
    return [
        "CREATE UNIQUE INDEX IF NOT EXISTS ux_fact_active ON fact(subject_entity_id, domain, category, key) "
        "WHERE superseded_by IS NULL",
        *pg_fts_table("record_fts", ("subject", "body", "people"), diacritics=True),
        "CREATE INDEX IF NOT EXISTS ix_record_pending ON record(id) WHERE pending != 0",
        "CREATE INDEX IF NOT EXISTS ix_episode_unsigned ON episode(id) WHERE signature_row IS NULL",
        "CREATE INDEX IF NOT EXISTS ix_fact_unindexed ON fact(id) WHERE indexed_at IS NULL",
        "CREATE INDEX IF NOT EXISTS ix_record_thread ON record(thread, id)",
        "CREATE UNIQUE INDEX IF NOT EXISTS ux_episode_signature_row ON episode(signature_row) "
        "WHERE signature_row IS NOT NULL",
        # the episode lexicon: its own inverted index (pg_lex_postings) ranks it, not a tsvector
        "CREATE TABLE IF NOT EXISTS episode_lex (rowid BIGINT PRIMARY KEY, "
        + ", ".join(f"{c} TEXT NOT NULL DEFAULT ''" for c in PG_LEX_COLUMNS) + ")",
        *pg_lex_postings(),
        # HDC signatures (seed 001): the source of truth on a server; each device's flat files are its cache
        # (core.store.signatures.ServerSignatureFile).  kind 0 = structured, 1 = gist.
        "CREATE TABLE IF NOT EXISTS hdc_row (kind SMALLINT NOT NULL, rowno BIGINT NOT NULL, sig BYTEA NOT NULL, "
        "PRIMARY KEY (kind, rowno))",
        "INSERT INTO storemeta(key, value) VALUES ('db_id', md5(random()::text || clock_timestamp()::text)) "
        "ON CONFLICT (key) DO NOTHING",
    ]

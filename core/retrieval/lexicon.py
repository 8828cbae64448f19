"""The episode lexicon: a persistent, incremental BM25 index over context windows (SQLite FTS5).

Every live episode has one FTS5 row (rowid = episode id) with five columns:

* ``own``   — the turn's words (:func:`tokens`: lower-cased, stopwords dropped, light-stemmed), its
  sender's name, and the month and year its own time expressions resolve to ("last week" → "april 2023");
* ``sent``  — the month and year it was sent;
* ``near1``, ``near2``, ``near3`` — the ``own`` words of the turns 1, 2 and 3 positions away in the same
  conversation (``Episode.session``, ordered by time, at most ``near_gap_s`` apart): context chunking.

The query is an OR of the question's tokens, ranked by FTS5's ``bm25()`` (Robertson & Zaragoza 2009,
k1 = 1.2, b = 0.75) with column weights ``1, sent_weight, *near``: FTS5 adds a term's column
frequencies times their weights before saturation, so a neighbour's word counts as a fraction of an
occurrence (BM25F-like).

A side table ``lexdoc`` keeps each episode's conversation, time, sender and ``own`` words, so adding an
episode rewrites only its own row and the rows of its (at most 2 × 3) neighbours: the cost of an
addition does not grow with the archive.  ``lex_speaker`` maps name words to senders (the speaker
boost); ``lex_stats`` counts documents (idf for the relevance features).

Writers: :func:`add` (from ``EpisodicMemory.store_many``, inside its transaction), :func:`remove`
(tombstoning, forgetting), :func:`rebuild` / :func:`missing` (``kith doctor``).  Readers:
:func:`search`, :func:`docs`, :func:`speakers_named`, :func:`doc_freqs`.

Every function takes a connection: a ``sqlite3.Connection`` or an SQLAlchemy ``Connection``.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable, Iterable, Mapping, NamedTuple, Sequence

from core import clock
from core.extraction.text import STOPWORDS as TEXT_STOPWORDS, stem
from core.extraction.time_anchors import find_time_anchors
from core.retrieval.config import CONFIG, LexiconConfig
from core.store.search import STOPWORDS as SEARCH_STOPWORDS

STOPWORDS = TEXT_STOPWORDS | SEARCH_STOPWORDS


def _combining_marks() -> str:
    """Every combining mark of the Basic Multilingual Plane (Unicode categories Mn, Mc, Me) as a character class
    body: Python's ``\\w`` leaves them out, which cut Thai, Hindi or Hebrew words at their vowel signs."""
    import unicodedata

    out, start = [], None
    for cp in range(0x300, 0x10000):
        is_mark = unicodedata.category(chr(cp))[0] == "M"
        if is_mark and start is None:
            start = cp
        elif not is_mark and start is not None:
            out.append(f"\\u{start:04x}-\\u{cp - 1:04x}")
            start = None
    return "".join(out)


# a word: letters or digits of any script with their combining marks ("อัมพวา", "नमस्ते" whole)
_TOKEN = re.compile(rf"(?:[^\W_]|[{_combining_marks()}])+", re.UNICODE)
# scripts written without spaces between words (Han, kana, Thai, Lao, Khmer, Myanmar) and Hangul, whose words
# carry their particles ("해수욕장에서"): indexed and asked as overlapping character pairs (CJK bigrams)
_UNSPACED = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf"
                       r"\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]+")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")
COLUMNS = ("own", "sent", "near1", "near2", "near3")

DDL = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS episode_lex USING fts5(own, sent, near1, near2, near3, "
    "tokenize='unicode61 remove_diacritics 0')",
    "CREATE TABLE IF NOT EXISTS lexdoc (episode_id INTEGER PRIMARY KEY, session TEXT, t FLOAT, "
    "speaker TEXT, own TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS ix_lexdoc_session ON lexdoc(session, t, episode_id)",
    "CREATE TABLE IF NOT EXISTS lex_speaker (token TEXT NOT NULL, speaker TEXT NOT NULL, "
    "PRIMARY KEY (token, speaker)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS lex_stats (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS episode_lex_vocab USING fts5vocab(episode_lex, 'col')",
)


def tokens(text: str) -> list[str]:
    """BM25 tokens of ``text``: lower-cased words (any script, combining marks included), stopwords and
    1-letter words dropped, light-stemmed (``core.extraction.text.stem``), in order, repeats kept.  A run of
    a script written without spaces (Chinese, Japanese, Thai, ...) or of Hangul gives its overlapping
    character pairs instead ("外滩的咖啡馆" → 外滩 滩的 的咖 咖啡 啡馆; one character alone is kept), so a
    word asked finds the sentence holding it."""
    out = []
    for w in _TOKEN.findall((text or "").lower().replace("’", "'").replace("'s", "")):
        if _UNSPACED.search(w):
            out += _pairs(w)
            continue
        if w in STOPWORDS or (len(w) < 2 and not w.isdigit()):
            continue
        out.append(stem(w))
    return out


def _pairs(word: str) -> list[str]:
    """The tokens of a word holding unspaced-script runs: each run's character pairs (a lone character
    itself), the rest of the word as ordinary words."""
    out, at = [], 0
    for m in _UNSPACED.finditer(word):
        out += tokens(word[at:m.start()]) if m.start() > at else []
        run = m.group()
        out += [run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)]
        at = m.end()
    return out + (tokens(word[at:]) if at < len(word) else [])


def date_words(text: str, when: datetime | None) -> list[str]:
    """The month and year of every time expression in ``text``, resolved against ``when`` (the message's
    own time, UTC): "I went there last month" sent 8 May 2023 → ``["april", "2023"]``."""
    if when is None:
        return []
    out = []
    for a in find_time_anchors(text, when):
        out += [MONTHS[a.day.month - 1], str(a.day.year)]
    return out


def own_tokens(text: str, speaker: str | None, when: datetime | None, cfg: LexiconConfig = CONFIG.lexicon) -> list[str]:
    """The ``own`` column of a turn: its tokens, its sender's name tokens, its resolved dates."""
    out = tokens(text)
    if cfg.speaker and speaker:
        out += tokens(speaker)
    if cfg.dates and when is not None:
        out += date_words(text or "", when)
    return out


def _sent(when: float | None) -> str:
    if when is None:
        return ""
    d = datetime.fromtimestamp(when, tz=timezone.utc)
    return f"{MONTHS[d.month - 1]} {d.year}"


# ---------------------------------------------------------------------------------------- connections


def _rows(conn, sql: str, params: Sequence = ()) -> list[tuple]:
    if hasattr(conn, "exec_driver_sql"):
        return [tuple(r) for r in conn.exec_driver_sql(sql, tuple(params)).fetchall()]
    return conn.execute(sql, tuple(params)).fetchall()


def _exec(conn, sql: str, params: Sequence = ()) -> None:
    if hasattr(conn, "exec_driver_sql"):
        conn.exec_driver_sql(sql, tuple(params))
    else:
        conn.execute(sql, tuple(params))


def _many(conn, sql: str, rows: list[tuple]) -> None:
    if not rows:
        return
    if hasattr(conn, "exec_driver_sql"):
        conn.exec_driver_sql(sql, rows)
    else:
        conn.executemany(sql, rows)


def ensure(conn) -> bool:
    """Create the lexicon's tables if any is missing (``Database`` normally has: ``memory_schema.LexDoc`` …
    and ``schema.EXTRA_DDL``); writes nothing when they exist.  Returns True when some were created."""
    from core.store import dialect

    if dialect.name(conn) == "postgresql":
        return False  # core.store.db.Database made the tables (schema.pg_extra_ddl); there is no vocabulary table
    have = {r[0] for r in _rows(conn, "SELECT name FROM sqlite_master WHERE name IN "
                                      "('lexdoc', 'lex_speaker', 'lex_stats', 'episode_lex', 'episode_lex_vocab')")}
    if len(have) == 5:
        return False
    for ddl in DDL:
        _exec(conn, ddl)
    return True


def backfill(conn) -> int:
    """Index every live episode when the lexicon is empty but episodes exist (a data folder from before the
    lexicon: once, at migration).  Returns episodes indexed."""
    if _rows(conn, "SELECT 1 FROM lexdoc LIMIT 1") or not _rows(conn, "SELECT 1 FROM episode LIMIT 1"):
        return 0
    return rebuild(conn)


def _ts(when) -> float | None:
    if when is None:
        return None
    if isinstance(when, str):
        when = datetime.fromisoformat(when)
    return clock.ensure_utc(when).timestamp()


# ---------------------------------------------------------------------------------------- writing


@dataclass
class Turn:
    """What the lexicon needs of an episode: id, conversation, UTC time, sender name, text."""

    episode_id: int
    session: str | None
    when: datetime | None
    speaker: str | None
    text: str


def add(conn, turns: Sequence[Turn], cfg: LexiconConfig = CONFIG.lexicon) -> int:
    """Index new (or changed) episodes and refresh their neighbours' rows.

    Cost: O(len(turns) × (1 + 2·span)) row writes and indexed lookups, whatever the archive's size.

    Args:
        conn: a connection inside the caller's transaction (the episode rows' own).
        turns: the episodes (live ones; an id already indexed is replaced).

    Returns:
        FTS rows written (the turns' own and their neighbours').
    """
    if not turns:
        return 0
    rows = []
    spk = set()
    for t in turns:
        own = own_tokens(t.text, t.speaker, clock.ensure_utc(t.when) if t.when else None, cfg)
        rows.append((t.episode_id, t.session, _ts(t.when), t.speaker, " ".join(own)))
        if t.speaker:
            spk |= {(w, t.speaker) for w in tokens(t.speaker)}
    ids = [r[0] for r in rows]
    new = len(ids) - len(_rows(conn, f"SELECT episode_id FROM lexdoc WHERE episode_id IN ({_marks(ids)})", ids))
    _many(conn, "INSERT OR REPLACE INTO lexdoc(episode_id, session, t, speaker, own) VALUES (?, ?, ?, ?, ?)", rows)
    _many(conn, "INSERT OR IGNORE INTO lex_speaker(token, speaker) VALUES (?, ?)", sorted(spk))
    _bump(conn, new)
    affected = set(ids)
    for eid, session, t, _s, _o in rows:
        affected |= set(_neighbours(conn, session, t, eid, cfg, ids_only=True))
    return _write_rows(conn, sorted(affected), cfg)


def remove(conn, episode_ids: Iterable[int], cfg: LexiconConfig = CONFIG.lexicon) -> int:
    """Take episodes out of the lexicon (tombstoned or forgotten) and rewrite their neighbours' rows, so
    no document keeps a removed turn's words.  Returns the rows removed."""
    ids = sorted({int(e) for e in episode_ids})
    if not ids:
        return 0
    gone = _rows(conn, f"SELECT episode_id, session, t FROM lexdoc WHERE episode_id IN ({_marks(ids)})", ids)
    if not gone:
        return 0
    affected: set[int] = set()
    for eid, session, t in gone:
        affected |= set(_neighbours(conn, session, t, eid, cfg, ids_only=True))
    gids = [g[0] for g in gone]
    _many(conn, "DELETE FROM episode_lex WHERE rowid = ?", [(e,) for e in gids])
    _many(conn, "DELETE FROM lexdoc WHERE episode_id = ?", [(e,) for e in gids])
    _bump(conn, -len(gids))
    _write_rows(conn, sorted(affected - set(gids)), cfg)
    return len(gids)


def rebuild(conn, episode_ids: Iterable[int] | None = None, cfg: LexiconConfig = CONFIG.lexicon,
            batch: int = 2000) -> int:
    """(Re)index the given episodes from the Episode rows (``None``: every live episode — a repair or a
    migration, never part of an ordinary addition).  Tombstoned ids are removed instead.

    Returns:
        Episodes indexed.
    """
    ensure(conn)
    if episode_ids is None:
        wanted = [r[0] for r in _rows(conn, "SELECT id FROM episode WHERE tombstoned_at IS NULL ORDER BY id")]
    else:
        wanted = sorted({int(e) for e in episode_ids})
    done = 0
    for i in range(0, len(wanted), batch):
        chunk = wanted[i:i + batch]
        got = _rows(conn, (
            # a record's episode row may have no session (made before its memory stage): the lexicon's is the
            # record's thread, as the import gave it — else a rebuilt turn loses its neighbours and they keep
            # its old words (a forget's redaction)
            "SELECT e.id, coalesce(e.session, r.thread), e.t_valid, en.canonical_name, e.text, e.tombstoned_at "
            "FROM episode e "
            "LEFT JOIN record r ON r.id = e.record_id LEFT JOIN entity en ON en.id = r.sender_entity_id "
            f"WHERE e.id IN ({_marks(chunk)})"), chunk)
        dead = [g[0] for g in got if g[5] is not None] + sorted(set(chunk) - {g[0] for g in got})
        remove(conn, dead, cfg)
        live = [Turn(g[0], g[1], _dt(g[2]), g[3] or _chat_speaker(conn, g[0]), g[4] or "") for g in got if g[5] is None]
        add(conn, live, cfg)
        done += len(live)
    if episode_ids is None:
        stamp_tokens(conn)  # every live document written again: split as today
    return done


def reindex(conn, cfg: LexiconConfig = CONFIG.lexicon, batch: int = 2000) -> int:
    """Write every full-text row from ``lexdoc`` as it stands (after an archive import put ``lexdoc``,
    ``lex_speaker`` and ``lex_stats`` back exactly): the rows are the same as those the incremental
    :func:`add` wrote.  Returns FTS rows written."""
    ensure(conn)
    ids = [r[0] for r in _rows(conn, "SELECT episode_id FROM lexdoc ORDER BY episode_id")]
    done = 0
    for i in range(0, len(ids), batch):
        done += _write_rows(conn, ids[i:i + batch], cfg)
    return done


def orphan_speakers(conn) -> list[str]:
    """Senders whose name words are in the speaker table but who have no indexed turn any more."""
    return [r[0] for r in _rows(conn, "SELECT DISTINCT speaker FROM lex_speaker WHERE speaker NOT IN "
                                      "(SELECT DISTINCT speaker FROM lexdoc WHERE speaker IS NOT NULL)")]


def drop_orphan_speakers(conn) -> int:
    """Remove the name words of senders no indexed turn has any more (a forgotten person's name must not
    stay in the speaker table).  Returns senders removed."""
    got = orphan_speakers(conn)
    for who in got:
        _exec(conn, "DELETE FROM lex_speaker WHERE speaker = ?", (who,))
    return len(got)


def rewrite(conn, episode_ids: Iterable[int], cfg: LexiconConfig = CONFIG.lexicon) -> int:
    """Rewrite the FTS rows of these (indexed) episodes and of their neighbours from ``lexdoc`` as it stands
    (after its rows were put back by a restore).  Returns FTS rows written."""
    ids = sorted({int(e) for e in episode_ids})
    if not ids:
        return 0
    have = _rows(conn, f"SELECT episode_id, session, t FROM lexdoc WHERE episode_id IN ({_marks(ids)})", ids)
    affected = {h[0] for h in have}
    for eid, session, t in have:
        affected |= set(_neighbours(conn, session, t, eid, cfg, ids_only=True))
    return _write_rows(conn, sorted(affected), cfg)


def optimize(conn) -> None:
    """Merge the lexicon's FTS5 segments (a removed row's terms stay in older segments until a merge): the
    purge runs it before ``VACUUM``."""
    from core.store import dialect

    if dialect.name(conn) == "postgresql":
        return  # VACUUM FULL (the purge's) rewrites the table and its GIN index
    if _rows(conn, "SELECT 1 FROM sqlite_master WHERE name = 'episode_lex'"):
        _exec(conn, "INSERT INTO episode_lex(episode_lex) VALUES('optimize')")


def missing(conn, limit: int | None = None) -> list[int]:
    """Live episodes the memory stage has signed but the lexicon lacks (what ``kith doctor`` repairs with
    :func:`rebuild`), ascending.  Unsigned episodes are still pending: the memory stage indexes them."""
    ensure(conn)
    sql = ("SELECT e.id FROM episode e LEFT JOIN lexdoc d ON d.episode_id = e.id "
           "WHERE e.tombstoned_at IS NULL AND e.signature_row IS NOT NULL AND d.episode_id IS NULL ORDER BY e.id")
    if limit:
        sql += f" LIMIT {int(limit)}"
    return [r[0] for r in _rows(conn, sql)]


def stale(conn, limit: int | None = None) -> list[int]:
    """Lexicon rows whose episode is gone or tombstoned (doctor removes them with :func:`remove`)."""
    ensure(conn)
    sql = ("SELECT d.episode_id FROM lexdoc d LEFT JOIN episode e ON e.id = d.episode_id "
           "WHERE e.id IS NULL OR e.tombstoned_at IS NOT NULL ORDER BY d.episode_id")
    if limit:
        sql += f" LIMIT {int(limit)}"
    return [r[0] for r in _rows(conn, sql)]


def fts_gaps(conn) -> tuple[list[int], list[int]]:
    """The full-text rows against their documents: (episodes whose ``lexdoc`` document has no ``episode_lex``
    row, ``episode_lex`` rows without a document), ascending.  A row deleted from the FTS table alone (by hand, or
    a damaged page a salvage dropped) leaves ``lexdoc`` whole, so :func:`missing` cannot see it; ``kith doctor``
    rewrites the first with :func:`rewrite` and deletes the second with :func:`drop_rows`."""
    ensure(conn)
    docs = {int(r[0]) for r in _rows(conn, "SELECT episode_id FROM lexdoc")}
    rows = {int(r[0]) for r in _rows(conn, "SELECT rowid FROM episode_lex")}
    return sorted(docs - rows), sorted(rows - docs)


def drop_rows(conn, rowids: Iterable[int]) -> int:
    """Delete ``episode_lex`` rows by rowid (ones without a document: :func:`fts_gaps`); returns how many."""
    ids = [int(i) for i in rowids]
    for i in range(0, len(ids), 500):
        _exec(conn, f"DELETE FROM episode_lex WHERE rowid IN ({','.join(str(x) for x in ids[i:i + 500])})")
    return len(ids)


def _chat_speaker(conn, episode_id: int) -> str | None:
    """The speaker of an episode with no record (said in chat): the speaker concept posted on it."""
    got = _rows(conn, "SELECT c.label FROM conceptposting p JOIN concept c ON c.id = p.concept_id "
                      "WHERE p.episode_id = ? AND p.role = 'speaker' LIMIT 1", (episode_id,))
    return got[0][0] if got else None


def _dt(v) -> datetime | None:
    if v is None:
        return None
    return clock.ensure_utc(v if isinstance(v, datetime) else datetime.fromisoformat(str(v)))


def _marks(ids: Sequence) -> str:
    return ",".join("?" * len(ids))


def _bump(conn, n: int) -> None:
    if n:
        if not _rows(conn, "SELECT 1 FROM lex_stats WHERE name = 'docs'"):  # the lexicon's first words: today's
            stamp_tokens(conn)
        _exec(conn, "INSERT INTO lex_stats(name, value) VALUES ('docs', ?) "
                    "ON CONFLICT(name) DO UPDATE SET value = lex_stats.value + excluded.value", (n,))


TOKENS_VERSION = 2
"""How :func:`tokens` splits words, as stored documents were split: 1 — a run of an unspaced script (Chinese,
Japanese, Thai, …) was one word; 2 — its overlapping character pairs (stop 23).  A lexicon written by an older
version finds no such word asked today: ``kith doctor --repair`` re-indexes it (:func:`rebuild`)."""


def tokens_version(conn) -> int:
    """The :data:`TOKENS_VERSION` the lexicon's documents were written with (1 when it was never stamped but has
    documents: written before the stamp existed; the current one when it is empty)."""
    got = _rows(conn, "SELECT value FROM lex_stats WHERE name = 'tokens'")
    if got:
        return int(got[0][0])
    return 1 if _rows(conn, "SELECT 1 FROM lexdoc LIMIT 1") else TOKENS_VERSION


def stamp_tokens(conn) -> None:
    """Record that the lexicon's documents are split as :func:`tokens` splits words now."""
    _exec(conn, "INSERT INTO lex_stats(name, value) VALUES ('tokens', ?) "
                "ON CONFLICT(name) DO UPDATE SET value = excluded.value", (TOKENS_VERSION,))


def _neighbours(conn, session, t, eid, cfg: LexiconConfig, ids_only=False):
    """The live turns up to ``len(cfg.near)`` positions before and after (session, t, eid), nearest first:
    ``[(distance, episode id, own)]`` (or ids only)."""
    span = len(cfg.near)
    if session is None or t is None or not span:
        return []
    before = _rows(conn, "SELECT episode_id, t, own FROM lexdoc WHERE session = ? AND (t, episode_id) < (?, ?) "
                         "ORDER BY t DESC, episode_id DESC LIMIT ?", (session, t, eid, span))
    after = _rows(conn, "SELECT episode_id, t, own FROM lexdoc WHERE session = ? AND (t, episode_id) > (?, ?) "
                        "ORDER BY t, episode_id LIMIT ?", (session, t, eid, span))
    out = []
    for side in (before, after):
        for d, (nid, nt, own) in enumerate(side, 1):
            if abs(nt - t) > cfg.near_gap_s:
                break
            out.append(nid if ids_only else (d, nid, own))
    return out


def _write_rows(conn, ids: list[int], cfg: LexiconConfig) -> int:
    if not ids:
        return 0
    docs = {r[0]: r[1:] for r in _rows(conn, f"SELECT episode_id, session, t, own FROM lexdoc "
                                             f"WHERE episode_id IN ({_marks(ids)})", ids)}
    out = []
    for eid in ids:
        if eid not in docs:
            continue
        session, t, own = docs[eid]
        near = [[] for _ in cfg.near]
        for d, _nid, nown in _neighbours(conn, session, t, eid, cfg):
            near[d - 1].append(nown)
        cols = [own, _sent(t)] + [" ".join(x) for x in near] + [""] * (3 - len(near))
        out.append((eid, *cols[:5]))
    _many(conn, "DELETE FROM episode_lex WHERE rowid = ?", [(r[0],) for r in out])
    _many(conn, "INSERT INTO episode_lex(rowid, own, sent, near1, near2, near3) VALUES (?, ?, ?, ?, ?, ?)", out)
    return len(out)


# ---------------------------------------------------------------------------------------- reading


def match_expression(query_tokens: Sequence[str]) -> str | None:
    """An FTS5 MATCH expression OR-ing the (distinct) tokens, each quoted; None when there are none."""
    uniq = list(dict.fromkeys(query_tokens))
    if not uniq:
        return None
    return " OR ".join(_quoted(t) for t in uniq)


class Lookup(NamedTuple):
    """One read of the lexicon as a statement and what makes its answer of the rows: ``parse(rows)``.  The
    retriever runs several at once (``core.store.dialect.pipeline``); the functions below run one."""

    sql: str
    params: tuple
    parse: Callable[[list], object]


def _run(conn, look: Lookup | None, empty):
    return empty if look is None else look.parse(_rows(conn, look.sql, look.params))


FREQUENT_ROWS = 1000
"""A question word is *frequent* when at least this many documents hold it (in any column).  FTS5's ``bm25()``
counts, on its first call, every row holding each word of the MATCH (its idf), then reads each matched row's
column sizes and positions (~1-10 µs a row, ``benchmarks/recall_scale.py``): one frequent word would make the
lexicon's cost grow with the archive (a word held by 96,000 of 100,000 turns: ~100 ms).  So, as Lucene's
common-terms query and ``cutoff_frequency`` do, :func:`search_lookup` leaves the frequent words out of the MATCH
when the question has another word (a frequent word's idf is low and it tells little which turn answers; the
dense and gist rankings still read it), and when every word is frequent it returns the newest rows holding them
all, unscored.  LoCoMo's conversations (≤ 700 turns) and a test's small archives never reach it: their rankings
are BM25's over every word."""


def held_lookup(query_tokens: Sequence[str], cap: int | None = None) -> Lookup | None:
    """How many rows hold each token, counted up to ``cap`` (default :data:`FREQUENT_ROWS`), as a :class:`Lookup`
    on SQLite: one bounded count per token over its doclist (no ``bm25()``: well under 1 µs a row).  Parses to
    ``{token: rows, at most cap}``.  None when the question has no token."""
    uniq = list(dict.fromkeys(query_tokens))
    if not uniq:
        return None
    cap = FREQUENT_ROWS if cap is None else cap
    part = " UNION ALL ".join(f"SELECT ?, (SELECT count(*) FROM (SELECT 1 FROM episode_lex "
                              f"WHERE episode_lex MATCH ? LIMIT {int(cap)}))" for _ in uniq)
    params: list = []
    for t in uniq:
        params += [t, _quoted(t)]
    return Lookup(part, tuple(params), lambda rows: {r[0]: int(r[1]) for r in rows})


def _quoted(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def search_lookup(dialect_name: str, query_tokens: Sequence[str], n: int,
                  cfg: LexiconConfig = CONFIG.lexicon, held: Mapping[str, int] | None = None) -> Lookup | None:
    """:func:`search` as a :class:`Lookup` (None when the question has no token).

    ``held``: :func:`held_lookup`'s counts (SQLite; see :data:`FREQUENT_ROWS`).  With them, the frequent tokens
    (held by :data:`FREQUENT_ROWS` rows or more) are left out of the MATCH when a token held by fewer (but some)
    rows remains; when none does, the ``n`` newest rows (highest ids) holding every held token are returned,
    scored ``n`` down to 1 (no ``bm25()``, which would count every row holding them)."""
    uniq = list(dict.fromkeys(query_tokens))
    if not uniq:
        return None
    w = cfg.column_weights()
    if dialect_name == "postgresql":  # the same BM25, over the postings the database keeps
        return _pg_search(uniq, int(n), w)
    weights = ", ".join(f"{x:g}" for x in w)
    frequent = [t for t in uniq if held is not None and held.get(t, 0) >= FREQUENT_ROWS]
    rare = [t for t in uniq if t not in frequent and (held is None or held.get(t, 0) > 0)]
    if rare or not frequent:
        return Lookup(f"SELECT rowid, bm25(episode_lex, {weights}) AS s FROM episode_lex "
                      "WHERE episode_lex MATCH ? ORDER BY s LIMIT ?", (match_expression(rare or uniq), int(n)),
                      lambda rows: [(int(r[0]), -float(r[1])) for r in rows])
    return Lookup("SELECT rowid FROM episode_lex WHERE episode_lex MATCH ? ORDER BY rowid DESC LIMIT ?",
                  (" AND ".join(_quoted(t) for t in frequent), int(n)),
                  lambda rows: [(int(r[0]), float(len(rows) - i)) for i, r in enumerate(rows)])


def search(conn, query_tokens: Sequence[str], n: int, cfg: LexiconConfig = CONFIG.lexicon) -> list[tuple[int, float]]:
    """The best ``n`` episodes for the tokens by BM25 over the five columns: ``[(episode id, score > 0)]``,
    best first (FTS5's ``bm25()`` is negated so higher is better); frequent tokens as :data:`FREQUENT_ROWS` says."""
    from core.store import dialect

    name = dialect.name(conn)
    held = _run(conn, held_lookup(query_tokens), None) if name != "postgresql" else None
    return _run(conn, search_lookup(name, query_tokens, n, cfg, held), [])


def _pg_search(uniq: list[str], n: int, w: tuple[float, ...]) -> Lookup:
    """PostgreSQL: FTS5's ``bm25()`` of every turn holding a token, from ``lex_posting`` and ``lex_term`` (one
    indexed query, ``core.store.schema.pg_lex_postings``): ``idf = max(ln((N − df + 0.5) / (df + 0.5)), 10⁻⁶)``
    with ``df`` the turns holding the token in any column (``lex_term``: computed once per term, not counted
    from its postings), ``f`` the column-weighted count (the postings' ``w`` when it was computed with these
    weights, else from the counts), ``k1 = 1.2``, ``b = 0.75`` (FTS5's constants; Robertson & Zaragoza 2009).
    The postings are read from their primary key alone (an index-only scan); FTS5's time on the same turns.
    Best first, ties by lower id.  Frequent words as on SQLite (:data:`FREQUENT_ROWS`, from ``lex_term.df``)."""
    from core.store.schema import lex_weight_key, lex_weighted

    k1, b = 1.2, 0.75
    key = lex_weight_key(w)
    counted = lex_weighted(w, [f"p.f{i}" for i in range(len(w))])
    # the terms in one order (the sums' rounding does not follow where rows lie on disk); two branches, one of
    # which reads nothing: the postings' w (from the index alone) when it holds these weights, else the counts
    branch = ("SELECT p.rowid, p.ntok, {f} AS f, t.idf, t.avgdl FROM t JOIN lex_posting p ON p.term = t.term "
              "WHERE t.wkey {op} '{key}'")
    # the question's words held by fewer than FREQUENT_ROWS turns (r) are ranked; when there is none, the newest turns
    # holding every word held at all, unscored — as search_lookup does on SQLite
    sql = (f"WITH qt AS (SELECT term, df FROM lex_term WHERE term = ANY(?)), r AS (SELECT term FROM qt WHERE df < "
           f"{int(FREQUENT_ROWS)}), t AS (SELECT d.term, greatest(ln((s.n - d.df + 0.5::float8) / (d.df + 0.5::float8)), "
           "1e-6::float8) AS idf, s.avgdl, s.wkey FROM qt d, (SELECT docs::float8 AS n, CASE WHEN docs > 0 AND tokens > 0 "
           "THEN tokens::float8 / docs ELSE 1.0 END AS avgdl, wkey FROM lex_posting_stats WHERE id = 1) s "
           "WHERE d.term IN (SELECT term FROM r) ORDER BY d.term) "
           f"SELECT rowid, score FROM (SELECT rowid, sum(idf * f * {k1 + 1!r}::float8 / (f + {k1!r}::float8 * "
           f"(1 - {b!r}::float8 + {b!r}::float8 * ntok / avgdl))) AS score FROM ("
           f"{branch.format(f='p.w', op='=', key=key)} UNION ALL {branch.format(f=counted, op='<>', key=key)}) q "
           "GROUP BY rowid ORDER BY score DESC, rowid LIMIT ?) a UNION ALL SELECT rowid, NULL FROM (SELECT p.rowid "
           "FROM lex_posting p WHERE p.term IN (SELECT term FROM qt) AND NOT EXISTS (SELECT 1 FROM r) GROUP BY p.rowid "
           "HAVING count(*) = (SELECT count(*) FROM qt) ORDER BY p.rowid DESC LIMIT ?) b")

    def parse(rows):
        scored = sorted(((int(r[0]), float(r[1])) for r in rows if r[1] is not None), key=lambda x: (-x[1], x[0]))
        newest = sorted((int(r[0]) for r in rows if r[1] is None), reverse=True)
        return scored + [(e, float(len(newest) - i)) for i, e in enumerate(newest)]

    return Lookup(sql, (uniq, n, n), parse)


def docs(conn, episode_ids: Sequence[int]) -> dict[int, tuple[str | None, str]]:
    """``{episode id: (speaker, own words)}`` for the indexed ones among ``episode_ids``."""
    ids = list(episode_ids)
    if not ids:
        return {}
    return {r[0]: (r[1], r[2]) for r in _rows(conn, f"SELECT episode_id, speaker, own FROM lexdoc "
                                                    f"WHERE episode_id IN ({_marks(ids)})", ids)}


DOC_COUNT = Lookup("SELECT value FROM lex_stats WHERE name = 'docs'", (),
                   lambda rows: int(rows[0][0]) if rows else 0)
""":func:`doc_count` as a :class:`Lookup`."""


def doc_count(conn) -> int:
    """Documents in the lexicon."""
    return _run(conn, DOC_COUNT, 0)


def doc_freqs_lookup(dialect_name: str, query_tokens: Sequence[str]) -> Lookup | None:
    """:func:`doc_freqs` as a :class:`Lookup` (None when the question has no token)."""
    uniq = list(dict.fromkeys(query_tokens))
    if not uniq:
        return None

    def parse(rows):
        got = {r[0]: int(r[1]) for r in rows}
        return {t: got.get(t, 0) for t in uniq}

    if dialect_name == "postgresql":
        return Lookup("SELECT term, df_own FROM lex_term WHERE term = ANY(?)", (uniq,), parse)
    return Lookup(f"SELECT term, doc FROM episode_lex_vocab WHERE col = 'own' AND term IN ({_marks(uniq)})",
                  tuple(uniq), parse)


def doc_freqs(conn, query_tokens: Sequence[str]) -> dict[str, int]:
    """How many turns hold each token in their ``own`` column."""
    from core.store import dialect

    return _run(conn, doc_freqs_lookup(dialect.name(conn), query_tokens), {})


def idf(df: int, n: int) -> float:
    """BM25's idf, ``ln(1 + (n − df + 0.5) / (df + 0.5))`` (Robertson & Zaragoza 2009; always > 0)."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def speakers_named_lookup(query_tokens: Sequence[str]) -> Lookup | None:
    """:func:`speakers_named` as a :class:`Lookup` (None when the question has no token)."""
    uniq = list(dict.fromkeys(query_tokens))
    if not uniq:
        return None

    def parse(rows):
        first: dict[str, int] = {}
        for tok, who in rows:
            pos = uniq.index(tok)
            first[who] = min(first.get(who, pos), pos)
        return sorted(first, key=lambda w: (first[w], w))

    return Lookup(f"SELECT token, speaker FROM lex_speaker WHERE token IN ({_marks(uniq)})", tuple(uniq), parse)


def speakers_named(conn, query_tokens: Sequence[str]) -> list[str]:
    """Senders whose name words occur in the question, in the order the question first names them."""
    return _run(conn, speakers_named_lookup(query_tokens), [])


SEVERAL_SPEAKERS = Lookup("SELECT DISTINCT speaker FROM lex_speaker LIMIT 2", (), lambda rows: len(rows) >= 2)
""":func:`several_speakers` as a :class:`Lookup`."""


def several_speakers(conn) -> bool:
    """True when the lexicon holds turns from at least two senders."""
    return _run(conn, SEVERAL_SPEAKERS, False)

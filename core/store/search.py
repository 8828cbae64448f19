"""The records' full-text index (SQLite FTS5, BM25) and the stopwords of questions.

Fusion with other rankings is ``core.retrieval.fusion.rrf`` (the one RRF in Kith).
"""
from __future__ import annotations

import re
from typing import Sequence

from sqlalchemy import text
from sqlalchemy.engine import Connection

# Words too common to help a BM25 query written as a question.
STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on
once only or other our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves tell show find give anything something ever
did know remember said say says wrote write mail email message messages
""".split())

_WORD = re.compile(r"\w+", re.UNICODE)


def query_terms(question: str) -> list[str]:
    """The content words of ``question``: lower-cased, stopwords dropped, order kept, no repeats."""
    seen: dict[str, None] = {}
    for w in _WORD.findall(question.lower()):
        if w not in STOPWORDS and w not in seen:
            seen[w] = None
    return list(seen) or [w for w in _WORD.findall(question.lower())][:8]


def fts_match_expression(question: str) -> str | None:
    """An FTS5 MATCH expression OR-ing the question's content words (each quoted), or None if it has none."""
    terms = query_terms(question)
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def index_record(conn: Connection, record_id: int, subject: str, body: str, people: str) -> None:
    """Add (or replace) one record's full-text row; rowid = record id."""
    conn.execute(text("DELETE FROM record_fts WHERE rowid = :id"), {"id": record_id})
    conn.execute(text("INSERT INTO record_fts(rowid, subject, body, people) VALUES (:id, :s, :b, :p)"),
                 {"id": record_id, "s": subject, "b": body, "p": people})


def index_records(conn: Connection, rows: Sequence[dict]) -> None:
    """Add new records' full-text rows in one statement: ``rows`` of ``{"id", "s" (subject), "b" (body),
    "p" (people)}``; the ids must not be indexed yet (use :func:`index_record` to replace one)."""
    if rows:
        conn.execute(text("INSERT INTO record_fts(rowid, subject, body, people) VALUES (:id, :s, :b, :p)"), list(rows))


def delete_records(conn: Connection, record_ids: Sequence[int]) -> int:
    """Remove records' full-text rows; returns how many rows were removed."""
    removed = 0
    for rid in record_ids:
        removed += conn.execute(text("DELETE FROM record_fts WHERE rowid = :id"), {"id": rid}).rowcount or 0
    return removed


def bm25(conn: Connection, question: str, limit: int = 50) -> list[tuple[int, float]]:
    """Best ``limit`` record ids for ``question`` by BM25 (subject weighted 2×, body 1×, people 1×).

    Returns:
        (record id, bm25 score) pairs, best first; FTS5's bm25() is negative, lower is better.
    """
    expr = fts_match_expression(question)
    if expr is None:
        return []
    if conn.dialect.name == "postgresql":
        return [(i, -sc) for i, sc in pg_bm25(conn, "record_fts", ("subject", "body", "people"), (2.0, 1.0, 1.0),
                                              query_terms(question), limit, fold=True)]
    rows = conn.execute(text(
        "SELECT rowid, bm25(record_fts, 2.0, 1.0, 1.0) AS s FROM record_fts WHERE record_fts MATCH :q "
        "ORDER BY s LIMIT :n"), {"q": expr, "n": limit}).all()
    return [(int(r[0]), float(r[1])) for r in rows]


# ---- BM25 on PostgreSQL (issue 16) ------------------------------------------------------------------------
#
# PostgreSQL's full-text search has no BM25 (``ts_rank`` is another ranking).  Kith keeps FTS5's ranking on
# a server: a GIN index over a ``tsvector`` finds the candidate rows (those holding any query term), and
# :func:`bm25_rows` scores them exactly as FTS5's ``bm25()`` does (fts5_aux.c: idf = ln((N − n + 0.5) /
# (n + 0.5)), floored at 1e-6; per term Σ idf·f·(k1 + 1) / (f + k1·(1 − b + b·|D| / avgdl)), with f the
# column-weighted term frequency, |D| the row's token count and avgdl the table's mean; k1 = 1.2, b = 0.75).

import unicodedata

_TOK = re.compile(r"[^\W_]+", re.UNICODE)


def fold_diacritics(s: str) -> str:
    """Letters without their diacritics (FTS5 ``remove_diacritics 2``): "café" → "cafe"."""
    if s.isascii():
        return s
    return "".join(ch for ch in unicodedata.normalize("NFKD", s) if not unicodedata.combining(ch))


def fts_tokens(s: str, fold: bool = False) -> list[str]:
    """The tokens FTS5's ``unicode61`` tokenizer makes of ``s``: lower-cased runs of letters and digits
    (diacritics removed when ``fold``)."""
    s = (s or "").lower()
    return _TOK.findall(fold_diacritics(s) if fold else s)


def bm25_rows(rows, terms, weights, nrow: int, avgdl: float, k1: float = 1.2, b: float = 0.75,
              fold: bool = False) -> list[tuple[int, float]]:
    """FTS5's ``bm25()`` of each candidate row, negated (higher is better): ``rows`` of ``(id, ntok, col₁, …)``
    (``ntok`` the row's token count, or None to count here), ``terms`` the query's distinct tokens,
    ``weights`` per column.  Best first (ties: lower id)."""
    import math
    from collections import Counter

    terms = list(dict.fromkeys(terms))
    parsed = []
    hits = Counter()
    for r in rows:
        rid, ntok, cols = int(r[0]), r[1], r[2:]
        toks = [Counter(fts_tokens(t or "", fold)) for t in cols]
        counts = [[c.get(t, 0) for t in terms] for c in toks]
        length = ntok if ntok is not None else sum(sum(c.values()) for c in toks)
        freq = []
        for j, t in enumerate(terms):
            f = 0.0
            seen = False
            for w, cc in zip(weights, counts):
                if cc[j]:
                    seen = True
                    f += w * cc[j]
            if seen:
                hits[t] += 1
            freq.append(f)
        parsed.append((rid, length, freq))
    idf = []
    for t in terms:
        v = math.log((nrow - hits[t] + 0.5) / (hits[t] + 0.5))
        idf.append(v if v > 0 else 1e-6)
    out = []
    avgdl = avgdl or 1.0
    for rid, length, freq in parsed:
        norm = k1 * (1.0 - b + b * length / avgdl)
        sc = 0.0
        for j, f in enumerate(freq):
            sc += idf[j] * (f * (k1 + 1.0)) / (f + norm)
        out.append((rid, sc))
    out.sort(key=lambda x: (-x[1], x[0]))
    return out


PG_CANDIDATES_PER_HIT = 3
PG_CANDIDATES_MIN = 300
"""On PostgreSQL, the records' index (``kith search``) scores with BM25 (:func:`bm25_rows`, in Python) at most
``max(limit × 3, 300)`` candidates: the rows PostgreSQL's own ``ts_rank`` (in C, over the GIN index's matches)
puts first.  Two-stage ranking: a question of common words matched thousands of rows, and scoring them all in
Python was several times slower than FTS5.  Below the cap (every archive in the tests) the result is exactly
FTS5's; above it, a row that ``ts_rank`` puts past the cap is not scored.  The episode lexicon (``ask``) has
no cap: the database keeps its postings (``core.store.schema.pg_lex_postings``)."""


def pg_tsquery(terms, fold: bool = False) -> str | None:
    """A ``to_tsquery('simple', …)`` text OR-ing the terms (and their diacritic-free forms when ``fold``)."""
    words = []
    for t in terms:
        for piece in fts_tokens(t):
            words.append(piece)
            if fold and fold_diacritics(piece) != piece:
                words.append(fold_diacritics(piece))
    words = list(dict.fromkeys(words))
    return " | ".join("'" + w.replace("'", "''") + "'" for w in words) if words else None


def pg_bm25(conn, table: str, cols: tuple[str, ...], weights, terms, limit: int, fold: bool = False,
            restrict: Sequence[int] | None = None) -> list[tuple[int, float]]:
    """The best ``limit`` rows of PostgreSQL full-text table ``table`` (``schema.pg_fts_table``) for ``terms``
    by FTS5's BM25 (:func:`bm25_rows`), ``[(rowid, score > 0)]``; ``restrict``: only among these rowids."""
    q = pg_tsquery(terms, fold)
    if q is None:
        return []
    toks = list(dict.fromkeys(t for term in terms for t in fts_tokens(term, fold)))
    run = conn.exec_driver_sql if hasattr(conn, "exec_driver_sql") else conn.execute
    nrow, ntok = run(f"SELECT count(*), coalesce(sum(ntok), 0) FROM {table}").fetchone()
    if not nrow:
        return []
    where = ""
    params: tuple = (q,)
    if restrict is not None:
        ids = [int(i) for i in restrict]
        if not ids:
            return []
        where = f" AND rowid IN ({','.join(map(str, ids))})"
    cap = max(int(limit) * PG_CANDIDATES_PER_HIT, PG_CANDIDATES_MIN)
    rows = run(f"SELECT rowid, NULL, {', '.join(cols)} FROM {table} "
               f"WHERE tsv @@ to_tsquery('simple', ?){where} "
               f"ORDER BY ts_rank(tsv, to_tsquery('simple', ?)) DESC, rowid LIMIT {cap}", params + (q,)).fetchall()
    return bm25_rows(rows, toks, weights, int(nrow), float(ntok) / int(nrow), fold=fold)[:int(limit)]


# ---- forget (issue 11): the full-text rows of forgotten and redacted records --------------------------

STORE = "search"
COVERS = {t: "*" for t in ("record_fts", "record_fts_content", "record_fts_data", "record_fts_idx", "record_fts_docsize")}
"""FTS5 rows removed or re-indexed; the shadow tables keep deleted terms until :func:`optimize` (purge)."""


def forget_plan(conn, sc) -> dict[str, int]:
    """Full-text rows a forget removes (its records') and rewrites (the redacted records')."""
    from core.store.forgetting import chunks, marks

    def present(ids):
        return sum(conn.execute(f"SELECT count(*) FROM record_fts WHERE rowid IN ({marks(len(p))})", p).fetchone()[0]
                   for p in chunks(sorted(set(ids))))
    return {"record_fts": present(sc.records), "record_fts_redacted": present(sc.redact_records)}


def forget_apply(conn, op_id: int, sc, red) -> dict[str, int]:
    """Remove the forgotten records' FTS5 rows and re-index the redacted ones from their (already
    redacted) record rows, stashing the original rows.  ``conn``: ``sqlite3``, caller's transaction."""
    from core.store.forgetting import stash_rows

    n = {"record_fts": 0, "record_fts_redacted": 0}
    for rid in sc.records:
        n["record_fts"] += stash_rows(conn, op_id, STORE, "record_fts", "rowid = ?", (rid,),
                                      select="rowid, subject, body, people")
    for rid in sc.redact_records:
        old = conn.execute("SELECT people FROM record_fts WHERE rowid = ?", (rid,)).fetchone()
        if old is None:
            continue
        stash_rows(conn, op_id, STORE, "record_fts", "rowid = ?", (rid,), select="rowid, subject, body, people")
        subject, body = conn.execute("SELECT subject, text FROM record WHERE id = ?", (rid,)).fetchone()
        people = red.for_record(rid).redact(old[0]) if red is not None else old[0]  # as the graph redacted it
        conn.execute("INSERT INTO record_fts(rowid, subject, body, people) VALUES (?,?,?,?)",
                     (rid, subject or "", body or "", people or ""))
        n["record_fts_redacted"] += 1
    return n


def forget_restore(conn, op_id: int) -> int:
    """Put the stashed FTS5 rows back (replacing the redacted re-index)."""
    from core.store.forgetting import decode, stashed

    n = 0
    for _kind, _tbl, data, _ in stashed(conn, op_id, STORE, kind="row", tbl="record_fts"):
        vals = dict(zip(data["cols"], (decode(v) for v in data["vals"])))
        conn.execute("DELETE FROM record_fts WHERE rowid = ?", (vals["rowid"],))
        conn.execute("INSERT INTO record_fts(rowid, subject, body, people) VALUES (?,?,?,?)",
                     (vals["rowid"], vals["subject"], vals["body"], vals["people"]))
        n += 1
    return n


def optimize(conn) -> None:
    """Merge every FTS5 index into one b-tree (FTS5 ``'optimize'``): a deleted row's terms stay in the
    older segments until a merge drops them; purge runs this before ``VACUUM``."""
    if not hasattr(conn, "create_function"):  # PostgreSQL: VACUUM FULL does it (app.operations.forget._vacuum)
        return
    for tbl in ("record_fts", "observation_fts", "episode_lex"):
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (tbl,)).fetchone():
            conn.execute(f"INSERT INTO {tbl}({tbl}) VALUES('optimize')")

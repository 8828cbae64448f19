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
    rows = conn.execute(text(
        "SELECT rowid, bm25(record_fts, 2.0, 1.0, 1.0) AS s FROM record_fts WHERE record_fts MATCH :q "
        "ORDER BY s LIMIT :n"), {"q": expr, "n": limit}).all()
    return [(int(r[0]), float(r[1])) for r in rows]


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
        people = red.redact(old[0]) if red is not None else old[0]
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
    for tbl in ("record_fts", "observation_fts", "episode_lex"):
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (tbl,)).fetchone():
            conn.execute(f"INSERT INTO {tbl}({tbl}) VALUES('optimize')")

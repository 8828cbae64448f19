"""The records' FTS5 BM25, on a real SQLite file."""
from __future__ import annotations

from core.store import search
from core.store.db import Database


def test_query_terms_drop_stopwords_and_repeats():
    assert search.query_terms("What did Alice say about the sourdough? Sourdough!") == ["alice", "sourdough"]
    assert search.fts_match_expression('a "quoted" word') == '"quoted" OR "word"'


def test_bm25_ranks_subject_matches_and_deletes(tmp_path):
    db = Database(tmp_path / "k.sqlite3")
    with db.engine.begin() as conn:
        search.index_record(conn, 1, "sourdough starter", "feed it daily", "alice")
        search.index_record(conn, 2, "weekly meeting", "we talked about sourdough once", "bob")
        search.index_record(conn, 3, "taxes", "nothing related", "carol")
        hits = search.bm25(conn, "How is the sourdough starter?")
        assert [rid for rid, _ in hits] == [1, 2]
        assert search.delete_records(conn, [1]) == 1
        assert [rid for rid, _ in search.bm25(conn, "sourdough")] == [2]
    db.close()

"""Full-text search on PostgreSQL ranks as SQLite's FTS5 does (issue 16): the records' index and the episode
lexicon, each behind its own interface (``core.store.search.bm25``, ``core.retrieval.lexicon.search`` /
``doc_freqs``), checked against FTS5 on the same rows — same ids in the same order, same BM25 scores."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from core.retrieval import lexicon
from core.store import search
from core.store.db import Database

pytestmark = pytest.mark.servers

WORDS = ("harbour ferry ticket kayak lighthouse glacier pottery workshop invoice vineyard marathon training "
         "schedule dinner train booked photos café naïve rosé zürich müller dentist appointment budget").split() + \
    [f"{a}{b}" for a in ("sea", "sun", "rock", "moss", "fern", "tide") for b in ("bird", "fall", "stone", "light", "wood")]


def _texts(n: int, seed: int) -> list[tuple[str, str, str]]:
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        subject = " ".join(rnd.choices(WORDS, k=rnd.randint(1, 4)))
        body = " ".join(rnd.choices(WORDS, k=rnd.randint(3, 40))) + f" message {i}."
        people = rnd.choice(["Ana Müller", "Bob Stone", "Chloé Dupont", "Dana Reyes"])
        out.append((subject, body, people))
    return out


@pytest.fixture
def both(tmp_path, pg_server):
    lite = Database(tmp_path / "kith.sqlite3")
    url = pg_server.create_db("fts")
    pg = Database(url)
    yield lite, pg
    lite.close()
    pg.close()
    pg_server.drop_db(url)


def test_records_full_text_ranks_as_fts5(both):
    lite, pg = both
    rows = [{"id": i + 1, "s": s, "b": b, "p": p} for i, (s, b, p) in enumerate(_texts(300, seed=4))]
    for db in (lite, pg):
        with db.engine.begin() as conn:
            search.index_records(conn, rows)
            search.index_record(conn, 7, "Ferry to Zürich", "the ferry ticket is booked", "Ana Müller")
            search.delete_records(conn, [9, 10])
    for q in ("ferry ticket", "Who booked the kayak at the lighthouse?", "zurich", "rosé", "Müller", "message 42",
              "seabird mosslight", "tidefall rockwood fernstone",
              "nothing matches this xyzzy"):
        with lite.engine.connect() as a, pg.engine.connect() as b:
            want, got = search.bm25(a, q, 20), search.bm25(b, q, 20)
        assert [i for i, _ in got] == [i for i, _ in want], q
        assert [x for _, x in got] == pytest.approx([x for _, x in want], rel=1e-9, abs=1e-12), q
    with lite.engine.connect() as a:  # not vacuous: the questions find rows
        assert len(search.bm25(a, "ferry ticket", 20)) == 20 and not search.bm25(a, "xyzzy", 20)


def test_episode_lexicon_ranks_as_fts5(both):
    lite, pg = both
    rnd = random.Random(8)
    turns = []
    for i, (s, b, p) in enumerate(_texts(250, seed=9)):
        turns.append(lexicon.Turn(i + 1, f"chat-{i % 7}", None, p, f"{s}. {b}"))
    from datetime import datetime, timedelta, timezone

    t0 = datetime(2023, 4, 2, 9, 30, tzinfo=timezone.utc)
    turns = [lexicon.Turn(t.episode_id, t.session, t0 + timedelta(minutes=rnd.randint(0, 600)), t.speaker, t.text)
             for t in turns]
    for db in (lite, pg):
        with db.engine.begin() as conn:
            lexicon.add(conn, turns[:200])
            lexicon.add(conn, turns[200:])
            lexicon.remove(conn, [5, 6, 77])
    for q in ("ferry ticket", "kayak lighthouse dinner", "Ana Müller pottery", "zürich café", "budget april 2023",
              "seabird mosslight", "tidefall rockwood fernstone"):
        toks = lexicon.tokens(q)
        with lite.engine.connect() as a, pg.engine.connect() as b:
            want, got = lexicon.search(a, toks, 25), lexicon.search(b, toks, 25)
            assert [i for i, _ in got] == [i for i, _ in want], q
            assert [x for _, x in got] == pytest.approx([x for _, x in want], rel=1e-9, abs=1e-12), q
            assert lexicon.doc_freqs(b, toks) == lexicon.doc_freqs(a, toks), q
            assert lexicon.speakers_named(b, toks) == lexicon.speakers_named(a, toks)
            assert lexicon.doc_count(b) == lexicon.doc_count(a) == 247
    with lite.engine.connect() as a:
        assert len(lexicon.search(a, lexicon.tokens("ferry ticket"), 25)) == 25


def test_episode_postings_are_kept_by_the_database_and_rebuilt_for_an_older_lexicon(both):
    """``lex_posting`` and ``lex_term`` (``core.store.schema.pg_lex_postings``) follow every INSERT and DELETE of
    the lexicon in the writer's transaction (a term no turn holds any more is deleted); a lexicon from before the postings is indexed when the database is opened; an
    UPDATE is refused.  Every one of ~600 matching turns is ranked (no candidate cap), as FTS5 ranks them."""
    lite, pg = both
    rnd = random.Random(3)
    turns = [lexicon.Turn(i + 1, f"chat-{i % 5}", None, "Ana Müller",
                          " ".join(rnd.choices(WORDS[:6], k=rnd.randint(2, 12)))) for i in range(600)]
    lonely = lexicon.Turn(601, "lonely", None, "Ana Müller", "zanzibarite")  # its word is held by no other turn
    for db in (lite, pg):
        with db.engine.begin() as conn:
            lexicon.add(conn, turns + [lonely])
            lexicon.remove(conn, [10, 11, 601])

    def postings(conn) -> tuple[int, int, int]:
        docs, tokens = conn.exec_driver_sql("SELECT docs, tokens FROM lex_posting_stats").one()
        return docs, tokens, conn.exec_driver_sql("SELECT count(*) FROM lex_posting").scalar()

    with pg.engine.connect() as b:
        kept = postings(b)
        # counted independently: the turns and their space-separated tokens, the distinct (term, turn) pairs
        rows = b.exec_driver_sql("SELECT own, sent, near1, near2, near3 FROM episode_lex").fetchall()
        toks = [[t for col in r for t in col.split()] for r in rows]
        assert kept == (598, sum(map(len, toks)), sum(len(set(t)) for t in toks))
        assert _weighted_ok(b)
        # each term's document frequencies (lex_term), counted independently; a term no turn holds is gone
        df = Counter(t for ts in toks for t in set(ts))
        own = Counter(t for r in rows for t in set(r[0].split()))
        assert _term_counts(b) == (dict(df), dict(own)) and "zanzibarite" not in df
    q = lexicon.tokens("harbour ferry kayak")
    with lite.engine.connect() as a, pg.engine.connect() as b:
        want, got = lexicon.search(a, q, 1000), lexicon.search(b, q, 1000)
    # every turn matches (each holds one of six words or its neighbours do): all ranked, with FTS5's scores;
    # the order is FTS5's up to ties in the last bits of a float (the sums run in another order)
    assert len(want) == len(got) > 500 and dict(got).keys() == dict(want).keys()
    assert [dict(got)[i] for i, _ in want] == pytest.approx([x for _, x in want], rel=1e-9, abs=1e-15)
    assert all(x >= y for (_, x), (_, y) in zip(got, got[1:]))

    with pg.engine.begin() as b:  # postings weighted with other weights: searched from the counts, then recomputed
        b.exec_driver_sql("UPDATE lex_posting SET w = 0")
        b.exec_driver_sql("UPDATE lex_posting_stats SET wkey = 'older weights'")
    with pg.engine.connect() as b:  # the same scores, up to the last bits of a float (computed in another order)
        older = lexicon.search(b, q, 1000)
        assert [i for i, _ in older] == [i for i, _ in got]
        assert [x for _, x in older] == pytest.approx([x for _, x in got], rel=1e-12, abs=1e-18)
    with pg.engine.begin() as b:
        b.exec_driver_sql("UPDATE storemeta SET value = '4' WHERE key = 'schema_version'")
    again = Database(pg.url)
    with again.engine.connect() as b:
        assert _weighted_ok(b) and lexicon.search(b, q, 1000) == got
    again.close()

    with pg.engine.begin() as b:  # as a database from before schema v5 was: no postings yet
        b.exec_driver_sql("DROP TABLE lex_posting")
        b.exec_driver_sql("DROP TABLE lex_posting_stats")
        b.exec_driver_sql("DROP TABLE lex_term")
        b.exec_driver_sql("UPDATE storemeta SET value = '4' WHERE key = 'schema_version'")
    again = Database(pg.url)
    try:
        with again.engine.connect() as b:
            assert postings(b) == kept and _term_counts(b) == (dict(df), dict(own))
            assert lexicon.search(b, q, 1000) == got
        import sqlalchemy.exc

        with pytest.raises(sqlalchemy.exc.DBAPIError, match="never updated"):
            with again.engine.begin() as b:
                b.exec_driver_sql("UPDATE episode_lex SET own = 'x' WHERE rowid = 1")
    finally:
        again.close()


def _term_counts(conn) -> tuple[dict, dict]:
    """``lex_term`` as ({term: turns holding it}, {term: turns holding it in their own words, when > 0})."""
    rows = conn.exec_driver_sql("SELECT term, df, df_own FROM lex_term").fetchall()
    return {t: d for t, d, _ in rows}, {t: o for t, _, o in rows if o}


def _weighted_ok(conn) -> bool:
    """Every posting's ``w`` is its column counts weighted by the configured weights, and the stats say so."""
    from core.store.schema import lex_weight_key, lex_weights

    w = lex_weights()
    bad = conn.exec_driver_sql("SELECT count(*) FROM lex_posting WHERE abs(w - (" + " + ".join(
        f"{x!r} * f{i}" for i, x in enumerate(w)) + ")) > 1e-12").scalar()
    return bad == 0 and conn.exec_driver_sql("SELECT wkey FROM lex_posting_stats").scalar() == lex_weight_key(w)


def test_reads_sent_before_they_are_read_give_the_same_rows(both):
    """``dialect.send``: a server's reads are sent at once (the server holds the last of them before anything is
    read back: its ``pg_stat_activity``), computed while the caller works, and read later with the rows
    ``dialect.pipeline`` gives — timestamps as ``datetime`` with ``native``, as sqlite3's text without; an
    abandoned send gives its connection back usable.  On SQLite, ``rows()`` runs them."""
    from datetime import datetime

    from core.store import dialect

    lite, pg = both
    stmts = [("SELECT 1 + ?, 'a'", (41,)), ("SELECT CAST('2024-05-01 10:00:00' AS TIMESTAMP)", ()),
             ("SELECT x FROM (SELECT 3 AS x UNION ALL SELECT 1 UNION ALL SELECT 2) v WHERE x >= ? ORDER BY x "
              "/* the last read */", (2,))]
    raw = dialect.read_connection(pg.engine)
    try:
        pid = raw.execute("SELECT pg_backend_pid()").fetchone()[0]
        sent = dialect.send(raw, stmts, native=True)
        with pg.engine.connect() as other:
            seen = other.exec_driver_sql(f"SELECT query FROM pg_stat_activity WHERE pid = {pid}").scalar()
        assert "the last read" in seen
        got = sent.rows()
        assert got == [[(42, "a")], [(datetime(2024, 5, 1, 10, 0),)], [(2,), (3,)]]
        assert dialect.send(raw, stmts).rows() == dialect.pipeline(raw, stmts) == \
            [[(42, "a")], [("2024-05-01 10:00:00.000000",)], [(2,), (3,)]]
        dialect.send(raw, stmts).close()  # abandoned: the connection still reads
        assert raw.execute("SELECT 7").fetchone() == (7,)
    finally:
        raw.close()
    raw = dialect.read_connection(lite.engine)
    try:
        lite_stmts = [(s.replace(" /* the last read */", ""), p) for s, p in stmts[:1] + stmts[2:]]
        assert dialect.send(raw, lite_stmts).rows() == [[(42, "a")], [(2,), (3,)]]
    finally:
        raw.close()


def test_frequent_words_are_left_out_on_both(both, monkeypatch):
    """``lexicon.FREQUENT_ROWS`` on PostgreSQL (from ``lex_term.df``) as on SQLite (a bounded count): the words held by
    fewer turns are ranked; a question of frequent words gets the newest turns holding them all."""
    lite, pg = both
    rnd = random.Random(5)
    turns = [lexicon.Turn(i + 1, f"chat-{i % 4}", None, "Ana Müller",
                          " ".join(rnd.choices(WORDS[:8], k=rnd.randint(2, 6)) + (["zanzibar"] if i % 9 == 0 else [])))
             for i in range(120)]
    for db in (lite, pg):
        with db.engine.begin() as conn:
            lexicon.add(conn, turns)
    monkeypatch.setattr(lexicon, "FREQUENT_ROWS", 40)
    for q in ("harbour zanzibar", "harbour ferry", "ferry kelp", "kelp"):
        toks = lexicon.tokens(q)
        with lite.engine.connect() as a, pg.engine.connect() as b:
            want, got = lexicon.search(a, toks, 25), lexicon.search(b, toks, 25)
        assert [i for i, _ in got] == [i for i, _ in want], q
        assert [x for _, x in got] == pytest.approx([x for _, x in want], rel=1e-9, abs=1e-12), q
    with lite.engine.connect() as a:  # not vacuous: each branch is taken
        zanz = {r[0] for r in a.exec_driver_sql("SELECT rowid FROM episode_lex WHERE episode_lex MATCH 'zanzibar'")}
        assert {i for i, _ in lexicon.search(a, ["harbour", "zanzibar"], 200)} == zanz
        newest = lexicon.search(a, ["harbour", "ferry"], 25)
        assert len(newest) > 5 and [x for _, x in newest] == list(range(len(newest), 0, -1))

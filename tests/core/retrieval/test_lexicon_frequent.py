"""The lexicon's cost bound for frequent words (``core.retrieval.lexicon.FREQUENT_ROWS``): the rows holding a
rarer word of the question are ranked by BM25 over all its words, as FTS5 itself ranks them."""
from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

from core.retrieval import lexicon

T0 = datetime(2023, 5, 8, 13, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def conn():
    """60 turns (neighbours within each 3-turn burst): "ferry" in 40 of them, "harbour" in 12, "lighthouse"
    in 3, "kelp" in none."""
    c = sqlite3.connect(":memory:")
    lexicon.ensure(c)
    turns = []
    for i in range(60):
        words = ["ferry"] * (1 + i % 3) if i % 3 or i % 2 else []
        if i % 5 == 0:
            words.append("harbour")
        if i in (7, 31, 52):
            words.append("lighthouse")
        turns.append(lexicon.Turn(i + 1, "chat", T0 + timedelta(days=i // 3, minutes=i % 3), "Ana",
                                  " ".join(words + ["day", str(i)])))
    lexicon.add(c, turns)
    yield c
    c.close()


def full(conn, toks, rows_holding):
    """FTS5's own BM25 ranking of every row the OR of ``toks`` matches, restricted to ``rows_holding``."""
    weights = ", ".join(f"{x:g}" for x in lexicon.CONFIG.lexicon.column_weights())
    got = conn.execute(f"SELECT rowid, -bm25(episode_lex, {weights}) FROM episode_lex WHERE episode_lex MATCH ? "
                       "ORDER BY bm25(episode_lex, " + weights + "), rowid", (lexicon.match_expression(toks),)).fetchall()
    return [(r, s) for r, s in got if r in rows_holding]


def holding(conn, tok):
    return {r[0] for r in conn.execute("SELECT rowid FROM episode_lex WHERE episode_lex MATCH ?", (f'"{tok}"',))}


def test_rows_holding_each_word_are_counted_only_up_to_the_cap(conn):
    # rows holding each word in any column (own or a neighbour's): ferry 60, harbour 36, lighthouse 9, kelp 0
    assert [len(holding(conn, w)) for w in ("ferry", "harbour", "lighthouse", "kelp")] == [60, 36, 9, 0]
    for cap, want in ((20, [20, 20, 9, 0]), (40, [40, 36, 9, 0])):
        look = lexicon.held_lookup(["ferry", "harbour", "lighthouse", "kelp"], cap=cap)
        got = look.parse(conn.execute(look.sql, look.params).fetchall())
        assert got == dict(zip(["ferry", "harbour", "lighthouse", "kelp"], want))


@pytest.mark.parametrize("cap, rare", [(20, ["lighthouse"]), (40, ["harbour", "lighthouse"])])
def test_frequent_words_are_left_out_when_a_rarer_one_remains(conn, monkeypatch, cap, rare):
    toks = ["ferry", "harbour", "lighthouse", "kelp"]  # kelp: held by no row
    exact = lexicon.search(conn, toks, 100)  # below the cap: FTS5's ranking of every row, on every word
    assert {r for r, _ in exact} == holding(conn, "ferry")
    monkeypatch.setattr(lexicon, "FREQUENT_ROWS", cap)
    want = full(conn, rare, set(range(1, 61)))  # FTS5's BM25 of the rarer words alone
    assert {r for r, _ in want} == set().union(*(holding(conn, w) for w in rare))
    for n in (3, 100):
        got = lexicon.search(conn, toks, n)
        assert [r for r, _ in got] == [r for r, _ in want][:n]
        assert [s for _, s in got] == pytest.approx([s for _, s in want][:n])


def test_when_every_word_is_frequent_the_newest_rows_holding_all_are_returned(conn, monkeypatch):
    monkeypatch.setattr(lexicon, "FREQUENT_ROWS", 5)
    both = holding(conn, "ferry") & holding(conn, "harbour")
    assert len(both) > 10
    got = lexicon.search(conn, ["ferry", "harbour"], 10)
    assert [r for r, _ in got] == sorted(both, reverse=True)[:10]
    assert [s for _, s in got] == list(range(10, 0, -1))


def test_a_word_no_row_holds_does_not_count_as_rarer(conn, monkeypatch):
    monkeypatch.setattr(lexicon, "FREQUENT_ROWS", 5)
    got = lexicon.search(conn, ["ferry", "harbour", "kelp"], 10)
    assert [r for r, _ in got] == sorted(holding(conn, "ferry") & holding(conn, "harbour"), reverse=True)[:10]
    assert lexicon.search(conn, ["kelp"], 10) == []

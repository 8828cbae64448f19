"""The dialect helper (issue 16): Kith's SQLite-written statements as PostgreSQL runs them (no server needed:
the real-server tests run them; here each rewrite is checked against the statement it must produce)."""
from __future__ import annotations

from core.store.dialect import reorder, translate


def test_parameter_marks():
    assert translate("SELECT a FROM t WHERE b = ? AND c LIKE 'x%'") == \
        ("SELECT a FROM t WHERE b = %s AND c LIKE 'x%%'", None)
    q, order = translate("SELECT ?2, ?1, ?2 FROM t WHERE x = ?3")
    assert q == "SELECT %s, %s, %s FROM t WHERE x = %s" and reorder(("a", "b", "c"), order) == ("b", "a", "b", "c")
    assert translate("UPDATE t SET a = :a WHERE b = :b_2 AND c = '10:30'", named=True)[0] == \
        "UPDATE t SET a = %(a)s WHERE b = %(b_2)s AND c = '10:30'"
    assert translate("SELECT x::int FROM t WHERE y = :y", named=True)[0] == "SELECT x::int FROM t WHERE y = %(y)s"


def test_sqlite_idioms():
    assert translate("INSERT OR IGNORE INTO factentity(fact_id, entity_id, role) VALUES (?, ?, ?)")[0] == \
        "INSERT INTO factentity(fact_id, entity_id, role) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING"
    assert translate("INSERT OR REPLACE INTO lexdoc(episode_id, session, own) VALUES (?, ?, ?)")[0] == \
        ("INSERT INTO lexdoc(episode_id, session, own) VALUES (%s, %s, %s) ON CONFLICT (episode_id) "
         "DO UPDATE SET session = EXCLUDED.session, own = EXCLUDED.own")
    # scalar max/min (two arguments) vs the aggregates (one)
    assert translate("SELECT max(a), min(b), max(a, b), min(c, max(d, e)) FROM t")[0] == \
        "SELECT max(a), min(b), GREATEST(a, b), LEAST(c, GREATEST(d, e)) FROM t"
    # SQLite's CAST truncates, PostgreSQL's rounds
    assert translate("SELECT CAST(at / 3600 AS INTEGER) FROM signal")[0] == \
        "SELECT CAST(trunc((at / 3600)::numeric) AS BIGINT) FROM signal"
    assert translate("SELECT strftime('%s', t_valid) FROM episode")[0] == "SELECT extract(epoch from  t_valid) FROM episode"
    assert translate("SELECT id FROM entity WHERE CAST(json_extract(attrs, '$.merged_into') AS INTEGER) = ?")[0] == \
        "SELECT id FROM entity WHERE CAST(trunc(((CAST(attrs AS jsonb) ->> 'merged_into'))::numeric) AS BIGINT) = %s"
    assert translate("UPDATE summary SET stale = 1 WHERE is_owner = 0")[0] == \
        "UPDATE summary SET stale = true WHERE is_owner = false"
    # an IN list made from an empty sequence: SQLite's false / true, which PostgreSQL cannot parse
    assert translate("SELECT a FROM t WHERE b IN () AND c NOT IN ( ) AND d IN (?)")[0] == \
        "SELECT a FROM t WHERE b = ANY('{}') AND c <> ALL('{}') AND d IN (%s)"
    assert translate("PRAGMA foreign_keys=ON")[0] == "SELECT NULL WHERE false"
    assert translate("BEGIN IMMEDIATE")[0] == "BEGIN"
    assert "pg_tables" in translate("SELECT 1 FROM sqlite_master WHERE name = ?")[0]

"""The few statements that differ between the database dialects Kith runs on (SQLite, PostgreSQL).

Everything else goes through SQLAlchemy Core / SQLModel and is dialect-neutral.  SQLite keeps its
fast paths (FTS5, raw ``sqlite3`` for the ledger); PostgreSQL gets the equivalent here.
"""
from __future__ import annotations

from typing import Iterator, Sequence


def name(conn) -> str:
    """``"sqlite"`` or ``"postgresql"`` for an SQLAlchemy connection (``"sqlite"`` for a raw ``sqlite3`` one)."""
    if getattr(conn, "dialect_name", None):
        return conn.dialect_name
    d = getattr(conn, "dialect", None)
    return d.name if d is not None else "sqlite"


def fts_rows(conn, fts: str, cols: Sequence[str]) -> Iterator[tuple]:
    """Every row of full-text table ``fts`` as ``(rowid, *cols)``, by rowid."""
    if name(conn) == "postgresql":
        sql = f"SELECT rowid, {', '.join(cols)} FROM {fts} ORDER BY rowid"
    else:
        sql = f"SELECT rowid, {', '.join(cols)} FROM {fts} ORDER BY rowid"
    yield from (tuple(r) for r in conn.exec_driver_sql(sql))


def fts_insert(conn, fts: str, cols: Sequence[str], rows: Sequence[tuple]) -> int:
    """Insert ``(rowid, *cols)`` rows into full-text table ``fts``; returns how many."""
    if not rows:
        return 0
    key = "rowid"  # a column of that name on PostgreSQL (schema.pg_fts_table)
    marks = ", ".join(["?"] * (len(cols) + 1))  # translated on PostgreSQL (install)
    conn.exec_driver_sql(f"INSERT INTO {fts}({key}, {', '.join(cols)}) VALUES ({marks})", list(rows))
    return len(rows)


def after_bulk_insert(conn, tables) -> None:
    """After rows were inserted with their ids given: PostgreSQL's sequences are moved past the largest id
    (SQLite's rowids need nothing)."""
    if name(conn) != "postgresql":
        return
    for t in tables:
        pk = list(t.primary_key.columns)
        if len(pk) == 1 and pk[0].autoincrement in (True, "auto") and str(pk[0].type).upper().startswith(("INT", "BIGINT")):
            conn.exec_driver_sql(
                f"SELECT setval(pg_get_serial_sequence('{t.name}', '{pk[0].name}'), "
                f"COALESCE((SELECT max({pk[0].name}) FROM {t.name}), 0) + 1, false)")


# ---- SQLite statements on PostgreSQL ---------------------------------------------------------------------
#
# Much of Kith's SQL is written for SQLite (``exec_driver_sql``, the ledger's and the forget cascade's raw
# DB-API connections).  On PostgreSQL every such statement passes through :func:`translate`, which rewrites
# the few SQLite idioms Kith uses into PostgreSQL's: parameter marks (``?``, ``?NNN``, ``:name`` → psycopg's),
# ``INSERT OR IGNORE`` / ``INSERT OR REPLACE`` → ``ON CONFLICT``, two-argument ``max``/``min`` →
# ``GREATEST``/``LEAST``, ``CAST(x AS INTEGER)`` (SQLite truncates, PostgreSQL rounds) → ``trunc``,
# ``strftime('%s', x)`` → ``extract(epoch …)``, ``BEGIN IMMEDIATE`` → ``BEGIN``; ``PRAGMA`` statements
# become no-ops.  Full-text search is not translated: it has its own functions per dialect (``search.py``,
# ``core/retrieval/lexicon.py``).

import re as _re

_PRIMARY_KEYS: dict[str, list[str]] = {}


def _pk_of(table: str) -> list[str]:
    if not _PRIMARY_KEYS:
        from sqlmodel import SQLModel

        import core.store.db  # noqa: F401

        for t in SQLModel.metadata.tables.values():
            _PRIMARY_KEYS[t.name] = [c.name for c in t.primary_key.columns]
        _PRIMARY_KEYS.update({"lexdoc": ["episode_id"], "lex_speaker": ["token", "speaker"], "lex_stats": ["name"]})
    return _PRIMARY_KEYS.get(table, [])


_BOOLS: list = []


def _bool_pattern():
    if not _BOOLS:
        from sqlalchemy import Boolean
        from sqlmodel import SQLModel

        import core.store.db  # noqa: F401

        names = sorted({c.name for t in SQLModel.metadata.tables.values() for c in t.columns
                        if isinstance(c.type, Boolean)})
        _BOOLS.append(_re.compile(r"\b(" + "|".join(names) + r")\s*(=|!=|<>)\s*([01])\b") if names else None)
    return _BOOLS[0]


def _booleans(sql: str) -> str:
    """``is_owner = 1`` → ``is_owner = true``: SQLite keeps booleans as 0/1, PostgreSQL will not compare them."""
    pat = _bool_pattern()
    if pat is None:
        return sql
    return pat.sub(lambda m: f"{m.group(1)} {m.group(2)} {'true' if m.group(3) == '1' else 'false'}", sql)


def _split_args(s: str, start: int) -> tuple[list[str], int]:
    """The comma-separated arguments of the call whose ``(`` is at ``start - 1``; returns (args, index after ``)``)."""
    depth, i, args, cur, quote = 0, start, [], [], None
    while i < len(s):
        ch = s[i]
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            cur.append(ch)
        elif ch == "(":
            depth += 1
            cur.append(ch)
        elif ch == ")":
            if depth == 0:
                args.append("".join(cur))
                return args, i + 1
            depth -= 1
            cur.append(ch)
        elif ch == "," and depth == 0:
            args.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    return args + ["".join(cur)], i


def _rewrite_calls(sql: str, name: str, fn) -> str:
    pat = _re.compile(r"\b" + name + r"\s*\(", _re.IGNORECASE)
    out, pos = [], 0
    while True:
        m = pat.search(sql, pos)
        if m is None:
            out.append(sql[pos:])
            return "".join(out)
        args, end = _split_args(sql, m.end())
        out.append(sql[pos:m.start()])
        out.append(fn(m.group(0), [_rewrite_calls(a, name, fn) for a in args]))
        pos = end


def _scalar_minmax(head: str, args: list[str]) -> str:
    if len(args) > 1:
        return ("GREATEST(" if head.lower().startswith("max") else "LEAST(") + ",".join(args) + ")"
    return head + ",".join(args) + ")"


def _cast(head: str, args: list[str]) -> str:
    inner = ",".join(args)
    m = _re.match(r"(?is)\s*(.*?)\s+AS\s+(INTEGER|INT|BIGINT)\s*$", inner)
    if m:
        return f"CAST(trunc(({m.group(1)})::numeric) AS BIGINT)"
    return head + inner + ")"


def _json_extract(head: str, args: list[str]) -> str:
    m = _re.match(r"\s*'\$\.(\w+)'\s*$", args[1]) if len(args) == 2 else None
    if m:
        return f"(CAST({args[0]} AS jsonb) ->> '{m.group(1)}')"
    return head + ",".join(args) + ")"


def _strftime(head: str, args: list[str]) -> str:
    if len(args) == 2 and args[0].strip() in ("'%s'",):
        return f"extract(epoch from {args[1]})"
    return head + ",".join(args) + ")"


_INSERT_OR = _re.compile(r"^\s*INSERT\s+OR\s+(IGNORE|REPLACE)\s+INTO\s+(\w+)\s*\(([^)]*)\)", _re.IGNORECASE | _re.DOTALL)


def _conflict_clause(sql: str) -> str:
    m = _INSERT_OR.match(sql)
    if not m:
        return sql
    mode, table, cols = m.group(1).upper(), m.group(2), [c.strip() for c in m.group(3).split(",")]
    body = f"INSERT INTO {table}({m.group(3)})" + sql[m.end():]
    ret = ""
    rm = _re.search(r"\s+RETURNING\s+.*$", body, _re.IGNORECASE | _re.DOTALL)
    if rm:
        body, ret = body[:rm.start()], body[rm.start():]
    if mode == "IGNORE":
        return body + " ON CONFLICT DO NOTHING" + ret
    pk = _pk_of(table) or cols[:1]
    sets = ", ".join(f"{c} = EXCLUDED.{c}" for c in cols if c not in pk)
    return body + f" ON CONFLICT ({', '.join(pk)}) " + (f"DO UPDATE SET {sets}" if sets else "DO NOTHING") + ret


_CACHE: dict[tuple[str, bool], tuple[str, list | None]] = {}

_PG_MASTER = ("(SELECT tablename::text AS name, 'table' AS type, NULL::text AS sql FROM pg_tables "
              "WHERE schemaname = current_schema() UNION ALL SELECT indexname::text, 'index', NULL FROM pg_indexes "
              "WHERE schemaname = current_schema() UNION ALL SELECT tgname::text, 'trigger', NULL FROM pg_trigger "
              "WHERE NOT tgisinternal) AS sqlite_master")
"""SQLite's catalogue as PostgreSQL's: the names of tables, indexes and triggers (``sql`` is NULL)."""


def _marks(sql: str, named: bool) -> tuple[str, list | None]:
    """``?`` → ``%s``; ``?N`` → ``%s`` with the parameter order it needs; ``:name`` → ``%(name)s`` (when
    ``named``); a literal ``%`` → ``%%``.  Returns (sql, order of positional parameters or None)."""
    out, order, i, quote = [], [], 0, None
    numbered = False
    n = len(sql)
    while i < n:
        ch = sql[i]
        if quote:
            out.append("%%" if ch == "%" else ch)
            if ch == quote:
                quote = None
            i += 1
            continue
        if ch in "'\"":
            quote = ch
            out.append(ch)
        elif ch == "%":
            out.append("%%")
        elif ch == "?":
            j = i + 1
            while j < n and sql[j].isdigit():
                j += 1
            if j > i + 1:
                numbered = True
                order.append(int(sql[i + 1:j]) - 1)
            else:
                order.append(len(order) if not numbered else None)
            out.append("%s")
            i = j
            continue
        elif ch == ":" and named and i + 1 < n and (sql[i + 1].isalpha() or sql[i + 1] == "_") and \
                (i == 0 or sql[i - 1] != ":"):
            j = i + 1
            while j < n and (sql[j].isalnum() or sql[j] == "_"):
                j += 1
            out.append(f"%({sql[i + 1:j]})s")
            i = j
            continue
        else:
            out.append(ch)
        i += 1
    return "".join(out), (order if numbered else None)


_EMPTY_IN = _re.compile(r"\b(NOT\s+)?IN\s*\(\s*\)", _re.IGNORECASE)
"""``x IN ()`` / ``x NOT IN ()`` (a list built from an empty sequence): false / true in SQLite, a syntax error in
PostgreSQL, where ``x = ANY('{}')`` / ``x <> ALL('{}')`` say the same (the empty array takes ``x``'s type)."""


def translate(sql: str, named: bool = False) -> tuple[str, list | None]:
    """A statement written for SQLite as PostgreSQL runs it (see above).  Returns (sql, parameter order
    for ``?N`` marks, else None).  Cached per statement."""
    key = (sql, named)
    got = _CACHE.get(key)
    if got is not None:
        return got
    s = sql
    head = s.lstrip()[:16].upper()
    if head.startswith("PRAGMA"):
        got = ("SELECT NULL WHERE false", None)
        _CACHE[key] = got
        return got
    if head.startswith("BEGIN"):
        s = "BEGIN"
    s = _booleans(_conflict_clause(s))
    low = s.lower()
    if "json_extract(" in low:
        s = _rewrite_calls(s, "json_extract", _json_extract)
    if "max(" in low or "min(" in low:
        s = _rewrite_calls(s, "max", _scalar_minmax)
        s = _rewrite_calls(s, "min", _scalar_minmax)
    if "cast(" in low:
        s = _rewrite_calls(s, "CAST", _cast)
    if "strftime(" in low:
        s = _rewrite_calls(s, "strftime", _strftime)
    if "sqlite_master" in low:
        s = s.replace("sqlite_master", _PG_MASTER)
    if "ifnull(" in low:
        s = _re.sub(r"\bifnull\s*\(", "coalesce(", s, flags=_re.IGNORECASE)
    if "in (" in low or "in(" in low:  # SQLite takes an empty list; PostgreSQL's syntax has none
        s = _EMPTY_IN.sub(lambda m: "<> ALL('{}')" if m.group(1) else "= ANY('{}')", s)
    if "group_concat(" in low:
        s = _rewrite_calls(s, "group_concat", lambda h, a: f"string_agg(CAST({a[0]} AS TEXT), "
                           + (a[1] if len(a) > 1 else "','") + ")")
    got = _marks(s, named)
    if len(_CACHE) < 5000:
        _CACHE[key] = got
    return got


def reorder(params, order: list | None):
    """Parameters for a statement whose ``?N`` marks :func:`translate` rewrote."""
    if order is None or params is None:
        return params
    if params and isinstance(params, (list, tuple)) and params and isinstance(params[0], (list, tuple)):
        return [tuple(p[i] for i in order) for p in params]
    return tuple(params[i] for i in order)


def _sqlite_value(v):
    """A psycopg value as sqlite3 would return it: JSON as its text, a timestamp as SQLAlchemy's SQLite text."""
    if isinstance(v, (dict, list)):
        import json

        return json.dumps(v, ensure_ascii=False)
    if hasattr(v, "isoformat") and hasattr(v, "hour"):
        if v.tzinfo is not None:
            from datetime import timezone

            v = v.astimezone(timezone.utc).replace(tzinfo=None)
        return v.isoformat(sep=" ", timespec="microseconds")
    return v


_PLAIN_OIDS = frozenset({16, 17, 19, 20, 21, 23, 25, 26, 700, 701, 1042, 1043, 1082, 1700})
"""PostgreSQL types psycopg returns as sqlite3 would (bool, bytea, name, integers, text, floats, numeric, date):
columns of these need no conversion."""


_CONVERTED_OIDS = frozenset({114, 3802, 1114, 1184, 1083, 1266})
"""json, jsonb, timestamp, timestamptz, time, timetz: the columns :func:`_sqlite_value` converts."""


def _converted(description) -> list[int] | None:
    """The columns of a result that need :func:`_sqlite_value`, when every other column is plain; None when
    some column's type is neither (each value is then checked)."""
    out = []
    for i, c in enumerate(description or ()):
        code = getattr(c, "type_code", None)
        if code in _CONVERTED_OIDS:
            out.append(i)
        elif code not in _PLAIN_OIDS:
            return None
    return out


def _row(r):
    if r is None:
        return None
    if any(isinstance(v, (dict, list)) or (hasattr(v, "isoformat") and hasattr(v, "hour")) for v in r):
        return tuple(_sqlite_value(v) for v in r)
    return r


class PgCursor:
    """A psycopg cursor that runs SQLite-written statements (:func:`translate`); the sqlite3 cursor API Kith uses
    (rows as tuples, JSON as text, timestamps as text)."""

    dialect_name = "postgresql"

    def __init__(self, cur):
        self._cur = cur

    _INSERT = _re.compile(r"^\s*INSERT\s+(?:OR\s+\w+\s+)?INTO\s+(\w+)", _re.IGNORECASE)

    def execute(self, sql, params=()):
        named = isinstance(params, dict)
        q, order = translate(sql, named)
        self._lastrowid = None
        m = self._INSERT.match(sql)
        ret = m is not None and _pk_of(m.group(1)) == ["id"] and "returning" not in q.lower()
        self._cur.execute(q + " RETURNING id" if ret else q, reorder(params, order) if not named else params)
        if ret:  # sqlite3's cursor.lastrowid
            row = self._cur.fetchone()
            self._lastrowid = row[0] if row else None
        return self

    def executemany(self, sql, rows):
        rows = list(rows)
        if not rows:
            return self
        named = isinstance(rows[0], dict)
        q, order = translate(sql, named)
        self._cur.executemany(q, reorder(rows, order) if not named else rows)
        return self

    def _rows(self, rows):
        cols = _converted(self._cur.description)
        if cols is None:
            return [_row(r) for r in rows]
        if not cols:
            return rows
        out = []
        for r in rows:
            r = list(r)
            for i in cols:
                r[i] = _sqlite_value(r[i])
            out.append(tuple(r))
        return out

    def fetchone(self):
        try:
            return _row(self._cur.fetchone())
        except Exception as exc:  # psycopg.ProgrammingError: the last statement returned no rows
            if "no result" in str(exc) or "no results" in str(exc):
                return None
            raise

    def fetchall(self):
        try:
            return self._rows(self._cur.fetchall())
        except Exception as exc:
            if "no result" in str(exc) or "no results" in str(exc):
                return []
            raise

    def fetchmany(self, n):
        try:
            return self._rows(self._cur.fetchmany(n))
        except Exception as exc:
            if "no result" in str(exc) or "no results" in str(exc):
                return []
            raise

    def __iter__(self):
        while True:
            rows = self.fetchmany(1000)
            if not rows:
                return
            yield from rows

    @property
    def rowcount(self):
        return self._cur.rowcount

    @property
    def description(self):
        return self._cur.description

    @property
    def lastrowid(self):
        return getattr(self, "_lastrowid", None)

    def close(self):
        self._cur.close()


class PgConnection:
    """A psycopg connection with the ``sqlite3.Connection`` API Kith's raw SQL uses (``execute``,
    ``executemany``, ``cursor``, ``commit``, ``rollback``, ``in_transaction``), statements translated.

    Args:
        conn: a psycopg connection (``autocommit=True`` for the ledger, which issues its own BEGIN/COMMIT).
    """

    dialect_name = "postgresql"

    def __init__(self, conn, close_fn=None):
        self._conn = conn
        self._close = close_fn

    def cursor(self):
        return PgCursor(self._conn.cursor())

    def execute(self, sql, params=()):
        return self.cursor().execute(sql, params)

    def executemany(self, sql, rows):
        return self.cursor().executemany(sql, rows)

    @property
    def in_transaction(self) -> bool:
        import psycopg

        return self._conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE

    def commit(self):
        self._conn.commit()

    def rollback(self):
        self._conn.rollback()

    def close(self):
        if self._close is not None:
            self._close()
        else:
            self._conn.close()


def in_list(cur, column: str, values: Sequence) -> tuple[str, list]:
    """``column IN (…)`` for ``values`` on the cursor's dialect, as ``(sql, params)``: SQLite gets one ``?`` per
    value; PostgreSQL gets ``column = ANY(?)`` with one array parameter (one short statement that psycopg and
    :func:`translate` cache, instead of a new one hundreds of marks long on every call)."""
    if name(cur) == "postgresql":
        values = list(values)
        if values and all(type(v) is int for v in values):  # one text parameter: psycopg dumps a list of ints
            return f"{column} = ANY(?::bigint[])", ["{" + ",".join(map(str, values)) + "}"]  # in Python, ~2 µs each
        return f"{column} = ANY(?)", [values]
    return f"{column} IN ({','.join('?' * len(values))})", list(values)


def raw_connection(engine):
    """A DB-API connection of ``engine`` for hand-written SQLite SQL: the pool's sqlite3 connection as it is,
    or on PostgreSQL a :class:`PgConnection` over the pool's psycopg connection.  Close it when done."""
    raw = engine.raw_connection()
    if engine.dialect.name != "postgresql":
        return raw
    return PgConnection(raw.driver_connection, close_fn=raw.close)


def pipeline(conn, statements: Sequence[tuple[str, Sequence]], native: bool = False) -> list[list[tuple]]:
    """Run independent reads and return each one's rows, in order: ``[(sql, params)]`` → ``[[row]]``.
    SQLite runs them one after the other; PostgreSQL sends them all at once in psycopg's pipeline mode and
    reads the results after one synchronisation — one round trip instead of one per statement.

    Args:
        conn: a connection of :func:`raw_connection` / :func:`read_connection`.
        native: PostgreSQL's rows as psycopg gives them (timestamps as ``datetime``, JSON as Python values),
            not converted to what sqlite3 gives — for a caller that takes both (``core.clock.ensure_utc`` of
            either); the retriever's hydrated rows spent a third of their Python time turning timestamps into
            text and back.
    """
    if not isinstance(conn, PgConnection):
        out = []
        for sql, params in statements:
            cur = conn.cursor()
            out.append(cur.execute(sql, tuple(params)).fetchall())
        return out
    curs = [PgCursor(conn._conn.cursor()) for _ in statements]
    with conn._conn.pipeline():
        for cur, (sql, params) in zip(curs, statements):
            cur.execute(sql, params)
    return [cur._cur.fetchall() if native else cur.fetchall() for cur in curs]


class Sent:
    """Independent reads already sent to a PostgreSQL server, their results read later (:func:`send`): the server
    computes them while the caller does something else on this thread (encodes the question).  On SQLite
    nothing is sent: :meth:`rows` runs them.

    Use :meth:`rows` once (it ends the pipeline; always call it, or :meth:`close` on an error)."""

    def __init__(self, conn, statements: Sequence[tuple[str, Sequence]], native: bool = False):
        self._conn, self._statements, self._native = conn, list(statements), native
        self._pipe = self._curs = None
        if not isinstance(conn, PgConnection) or not self._statements:
            return
        self._curs = [PgCursor(conn._conn.cursor()) for _ in self._statements]
        self._pipe = conn._conn.pipeline()
        self._pipe.__enter__()
        try:
            for cur, (sql, params) in zip(self._curs, self._statements):
                cur.execute(sql, params)
            # psycopg sends a pipeline's statements when it is synced; its own generator sends them now without
            # waiting for their results (where a psycopg version lacks it, they are sent by rows())
            communicate = getattr(self._pipe, "_communicate_gen", None)
            if communicate is not None:
                conn._conn.wait(communicate())
        except BaseException:
            self.close()
            raise

    def rows(self) -> list[list[tuple]]:
        """Each statement's rows, in order (see :func:`pipeline`)."""
        if self._pipe is None:
            return pipeline(self._conn, self._statements, native=self._native) if self._curs is None else []
        pipe, self._pipe = self._pipe, None
        pipe.__exit__(None, None, None)  # the results (one synchronisation)
        return [cur._cur.fetchall() if self._native else cur.fetchall() for cur in self._curs]

    def close(self) -> None:
        """Abandon the reads (their results are read and dropped)."""
        if self._pipe is not None:
            pipe, self._pipe = self._pipe, None
            try:
                pipe.__exit__(None, None, None)
            except Exception:
                pass


def send(conn, statements: Sequence[tuple[str, Sequence]], native: bool = False) -> Sent:
    """Send independent reads now and read their rows later: ``send(conn, [(sql, params)]).rows()`` is
    :func:`pipeline`, with the server's time in between free for the caller."""
    return Sent(conn, statements, native)


def read_connection(engine):
    """Like :func:`raw_connection`, for reads only: on PostgreSQL the connection runs in autocommit while it is
    out of the pool, so that each statement reads its own snapshot — as sqlite3 reads outside a transaction —
    without the ``BEGIN`` before the first statement and the ``ROLLBACK`` when it goes back to the pool (two
    round trips each time; under load each costs a context switch to the server, and ``ask`` checks out four
    connections).  psycopg's prepared statements survive, since no rollback clears them.  Close it when done."""
    raw = engine.raw_connection()
    if engine.dialect.name != "postgresql":
        return raw
    conn = raw.driver_connection
    conn.autocommit = True

    def close():
        try:
            conn.autocommit = False
        finally:
            raw.close()

    return PgConnection(conn, close_fn=close)


def install(engine) -> None:
    """On a PostgreSQL engine: translate every hand-written statement (``exec_driver_sql``, ``text()``) with
    :func:`translate`, and run every session in UTC.  Nothing on SQLite."""
    if engine.dialect.name != "postgresql":
        return
    from sqlalchemy import event

    @event.listens_for(engine, "connect")
    def _utc(dbapi_conn, _rec):
        with dbapi_conn.cursor() as cur:
            cur.execute("SET TIME ZONE 'UTC'")
        dbapi_conn.commit()

    @event.listens_for(engine, "before_cursor_execute", retval=True)
    def _translate(conn, cursor, statement, parameters, context, executemany):
        compiled = context is not None and context.compiled is not None
        if compiled:
            from sqlalchemy.sql.elements import TextClause

            if not isinstance(getattr(context.compiled, "statement", None), TextClause):
                return statement, parameters
            # text(): SQLAlchemy already turned :name into %(name)s; rewrite the SQLite idioms only
            key = statement
            if "%%" in statement or "%(" in statement:
                fixed = _idioms(statement)
                return fixed, parameters
            return _idioms(key), parameters
        named = isinstance(parameters, dict) or (executemany and parameters and isinstance(parameters[0], dict))
        q, order = translate(statement, bool(named))
        return q, (reorder(parameters, order) if not named else parameters)


def _idioms(sql: str) -> str:
    """The SQLite idioms of :func:`translate` without touching parameter marks (for compiled ``text()``)."""
    s = sql
    head = s.lstrip()[:16].upper()
    if head.startswith("PRAGMA"):
        return "SELECT NULL WHERE false"
    s = _booleans(_conflict_clause(s))
    low = s.lower()
    if "max(" in low or "min(" in low:
        s = _rewrite_calls(s, "max", _scalar_minmax)
        s = _rewrite_calls(s, "min", _scalar_minmax)
    if "cast(" in low:
        s = _rewrite_calls(s, "CAST", _cast)
    return s


def libpq_url(url: str) -> str:
    """A SQLAlchemy PostgreSQL URL (``postgresql+psycopg://…``) as libpq takes it (``postgresql://…``)."""
    from sqlalchemy.engine import make_url

    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def connect_pg(url: str) -> PgConnection:
    """A new autocommit psycopg connection to ``url`` in UTC, as a :class:`PgConnection` (the ledger's own,
    one per thread, as it keeps one sqlite3 connection per thread on SQLite)."""
    import psycopg

    conn = psycopg.connect(libpq_url(url), autocommit=True)
    conn.execute("SET TIME ZONE 'UTC'")
    return PgConnection(conn)


def _bigint_on_postgresql() -> None:
    """Integer columns are 64-bit on PostgreSQL, as SQLite's are (the ledger's row ids are 62-bit)."""
    from sqlalchemy import Integer
    from sqlalchemy.ext.compiler import compiles

    @compiles(Integer, "postgresql")
    def _bigint(type_, compiler, **kw):  # noqa: ARG001
        return "BIGINT"


_bigint_on_postgresql()


def session_raw(s):
    """The DB-API connection under SQLModel session ``s`` (its transaction): sqlite3's, or on PostgreSQL
    psycopg's behind :class:`PgConnection` (the session keeps and closes it)."""
    conn = s.connection()
    driver = conn.connection.driver_connection
    if conn.dialect.name == "postgresql":
        return PgConnection(driver, close_fn=lambda: None)
    return driver

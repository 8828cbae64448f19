"""The knowledge graph's part of a forget (seed 002: facts are never deleted on update, but erased on forget).

:func:`scope` works out, from a :class:`~core.store.forgetting.Target`, the rows every store plans
from (:class:`~core.store.forgetting.Scope`):

* an **entity** (and every entity merged into it) — the records it is the primary party of (the
  sender of a message, the place of a photo) and the records that involve nobody else; other
  records that *mention* it by a name or alias are kept with the mention redacted (in their
  ``attrs``, its own acts — a system event, a reaction — left out), or removed
  when the person chose ``mentions="remove"``;
* a **source** file, a time **range** (records sent in ``[start, end)``), a single **record** — those records;
* a single **fact** — that fact.

Facts removed with them: facts whose subject is a forgotten entity, facts with a link to one (e.g.
"Omar wrote to Lena" when Lena is forgotten), facts whose statement names one, and facts left
with no evidence.  Entities left with nothing (no record, no fact) go too (*orphans*: a photo
trip whose photos were forgotten, a person known only as the recipient of forgotten mail).

:func:`plan` counts what :func:`apply` will do, from the same selection, so a dry run's counts
equal the forget's.  :func:`apply` hides (tombstones, unlinks, redacts) and stashes every original
value; :func:`restore` writes them back; :func:`purge` deletes the tombstoned rows for good.
All take a DB-API ``sqlite3`` connection inside the caller's transaction.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import NotFound
from core.graph.redact import Redactor
from core.store.forgetting import (Scope, Target, chunks, marks, now_text, put_back, stash_rows, stash_rows_by_ids,
                                   stash_values)

STORE = "graph"

COVERS = {
    "entity": "*", "alias": "*",              # the forgotten entities: tombstoned, deleted at purge
    "record": "*",                            # removed, or kept with subject/text/thread/attrs redacted
    "recordentity": "*", "evidence": "*",     # unlinked (evidence excerpts of what stays: redacted)
    "fact": "*", "factentity": "*",           # removed (subject, object, statement naming them, no evidence left)
    "mergecandidate": "*",                    # removed, or reason/detail redacted
    "source": "*", "quarantineitem": "*",     # a source target removes them; paths and reasons redacted
    "auditevent": "*",                        # target/detail redacted; the forget's own keeps counts and a hash
}
"""Tables (and their text columns, ``"*"`` = all) this store's plan covers (the schema-walking test)."""


def _ids(conn, sql: str, params=()) -> list[int]:
    return [int(r[0]) for r in conn.execute(sql, tuple(params)).fetchall()]


def _in(conn, sql_head: str, ids, extra: str = "", params=()) -> list[int]:
    """``sql_head`` + `` IN (…)`` over ``ids`` in chunks; the selected first column, deduplicated."""
    out: dict[int, None] = {}
    for part in chunks(sorted(set(ids))):
        for r in conn.execute(f"{sql_head} IN ({marks(len(part))}) {extra}", (*part, *params)).fetchall():
            out[int(r[0])] = None
    return list(out)


def owner_id(conn) -> int | None:
    r = conn.execute("SELECT id FROM entity WHERE is_owner = 1 AND tombstoned_at IS NULL LIMIT 1").fetchone()
    return int(r[0]) if r else None


def merged_into(conn, entity_id: int) -> list[int]:
    """``entity_id`` and every (tombstoned) entity merged into it, transitively."""
    out, todo = [entity_id], [entity_id]
    while todo:
        e = todo.pop()
        for (i,) in conn.execute("SELECT id FROM entity WHERE CAST(json_extract(attrs, '$.merged_into') AS INTEGER) = ?", (e,)):
            if i not in out:
                out.append(int(i))
                todo.append(int(i))
    return out


def _relatives(conn, entity_ids) -> list[int]:
    """Live entities created as a relative of one of ``entity_ids`` (``attrs.relation_of``), transitively."""
    out, todo = [], list(entity_ids)
    while todo:
        e = todo.pop()
        for (i,) in conn.execute("SELECT id FROM entity WHERE CAST(json_extract(attrs, '$.relation_of') AS INTEGER) = ? "
                                 "AND tombstoned_at IS NULL", (e,)):
            if i not in out and i not in entity_ids:
                out.append(int(i))
                todo.append(int(i))
    return out


_WORD_NAMES = frozenset("""will may june april august mark bill frank pat sue rich chase drew miles ray guy don dean
hope grace faith joy dawn art sky win rob jack max sandy summer autumn penny rose ruby holly ivy amber iris daisy lily
river bob carol sunny""".split())
"""First names that open sentences as words ("Will you come?", "May I …", "Mark the date", "Hope you're well"): a
forgotten Will Smith's first name alone is not redacted (his full name, addresses and numbers are)."""


def redactor_for(conn, entity_ids, region: str = "US", exclude=()) -> Redactor:
    """The :class:`Redactor` of the entities' canonical names and aliases, with what tells where a one-word
    name of theirs is someone else's (:meth:`Redactor.within`).

    Args:
        conn: a ``sqlite3`` connection, read before the forget changes anything.
        entity_ids: the forgotten entities.
        exclude: other entities this forget takes too (relatives): they bear no name for another person.

    Returns:
        A :class:`Redactor` whose ``others`` are the live entities' full names holding one of the one-word names,
        ``shared`` the one-word names live entities bear too (→ their ids), and ``record_parties`` /
        ``thread_parties`` where the forgotten entities and those bearers are parties.
    """
    ents = sorted(set(int(e) for e in entity_ids))
    rows = []
    for part in chunks(ents):
        for n, kind in conn.execute(f"SELECT canonical_name, kind FROM entity WHERE id IN ({marks(len(part))})", part):
            rows.append(("name", n, None))
            first = (n or "").split()
            # a person's first name alone ("Oliver said the ferry was cancelled" after forgetting Oliver Grant) is
            # a mention too — a one-word name, so shared with a live Oliver it counts only where it can be him
            if kind == "person" and len(first) > 1 and first[0].isalpha() and len(first[0]) >= 3 \
                    and first[0][0].isupper() and "@" not in n and first[0].casefold() not in _WORD_NAMES:
                rows.append(("name", first[0], None))
            # the surname alone after a title or as a family ("Mrs Sapovits", "the Sapovitses"): Redactor.surnames
            if kind == "person" and len(first) > 1 and first[-1].isalpha() and len(first[-1]) >= 3 \
                    and first[-1][0].isupper() and "@" not in n and first[-1] != first[0]:
                rows.append(("surname", first[-1], None))
        rows += list(conn.execute(f"SELECT kind, value, normalized FROM alias WHERE entity_id IN ({marks(len(part))})",
                                  part))
    singles = sorted({v.strip().casefold() for kind, v, _ in rows
                      if kind in ("name", "nickname") and v and len(v.split()) == 1 and "@" not in v})
    surnames = {v.casefold() for kind, v, _ in rows if kind == "surname"}
    singles = sorted(set(singles) | surnames)
    own = set(ents)
    skip = own | {int(e) for e in exclude}
    rows += [("domain", d, None) for d in _own_domains(conn, rows, skip)]
    others: set[str] = set()
    shared: dict[str, set[int]] = {}
    for word in singles:
        pat = "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        cand = conn.execute(
            "SELECT a.entity_id, a.kind, a.value FROM alias a JOIN entity e ON e.id = a.entity_id "
            "WHERE e.tombstoned_at IS NULL AND a.kind IN ('name', 'nickname') AND a.value LIKE ? ESCAPE '\\' "
            "UNION SELECT id, 'name', canonical_name FROM entity WHERE tombstoned_at IS NULL "
            "AND canonical_name LIKE ? ESCAPE '\\'", (pat, pat)).fetchall()
        for eid, _kind, value in cand:
            words = [w.casefold() for w in (value or "").split()]
            if int(eid) in skip or word not in words:
                continue
            if len(words) > 1:
                others.add(" ".join(value.split()))
            if words[0] == word or (word in surnames and words[-1] == word):
                shared.setdefault(word, set()).add(int(eid))  # a live Alex Morgan bears the forgotten Jane's "Morgan"
    # a full name another live entity bears too (two people called "Sam Lee", kept apart): theirs where they are a party
    fulls = sorted({" ".join(v.split()).casefold() for kind, v, _ in rows
                    if kind in ("name", "nickname") and v and len(v.split()) > 1 and "@" not in v})
    for full in fulls:
        pat = "%" + "%".join(w.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
                             for w in full.split()) + "%"
        for eid, value in conn.execute(
                "SELECT a.entity_id, a.value FROM alias a JOIN entity e ON e.id = a.entity_id "
                "WHERE e.tombstoned_at IS NULL AND a.kind IN ('name', 'nickname') AND a.value LIKE ? ESCAPE '\\' "
                "UNION SELECT id, canonical_name FROM entity WHERE tombstoned_at IS NULL "
                "AND canonical_name LIKE ? ESCAPE '\\'", (pat, pat)).fetchall():
            if int(eid) not in skip and " ".join((value or "").split()).casefold() == full:
                shared.setdefault(full, set()).add(int(eid))
    # who a fact that stays (naming no forgotten entity) ties to another bearer of a shared name
    related: dict[str, set[int]] = {}
    me = owner_id(conn)
    for name, bearers in shared.items():
        for p in chunks(sorted(bearers)):
            q = marks(len(p))
            facts = _ids(conn, f"SELECT id FROM fact WHERE tombstoned_at IS NULL AND subject_entity_id IN ({q}) UNION "
                               f"SELECT fact_id FROM factentity WHERE entity_id IN ({q})", (*p, *p))
            for fp in chunks(facts):
                fq = marks(len(fp))
                tied: dict[int, set[int]] = {}
                for fid, eid in conn.execute(
                        f"SELECT id, subject_entity_id FROM fact WHERE id IN ({fq}) AND tombstoned_at IS NULL "
                        f"UNION SELECT fact_id, entity_id FROM factentity WHERE fact_id IN ({fq})", (*fp, *fp)):
                    if eid is not None:
                        tied.setdefault(int(fid), set()).add(int(eid))
                for ents_ in tied.values():
                    if not ents_ & own:  # (the owner, tied to everyone, is no sign either way)
                        related.setdefault(name, set()).update(ents_ - set(bearers) - {me})
    record_parties: dict[int, frozenset[int]] = {}
    thread_parties: dict[str, frozenset[int]] = {}
    if shared:
        ids = sorted(own | set().union(*shared.values()))
        by_rec: dict[int, set[int]] = {}
        by_thread: dict[str, set[int]] = {}
        conv = "coalesce(r.thread, 'source:' || r.source_id)"
        for part in chunks(ids):
            q = marks(len(part))
            for rid, eid, th in conn.execute(
                    f"SELECT re.record_id, re.entity_id, {conv} FROM recordentity re JOIN record r ON r.id = re.record_id "
                    f"WHERE re.entity_id IN ({q}) UNION SELECT r.id, r.sender_entity_id, {conv} FROM record r "
                    f"WHERE r.sender_entity_id IN ({q})", (*part, *part)):
                by_rec.setdefault(int(rid), set()).add(int(eid))
                by_thread.setdefault(th, set()).add(int(eid))
        thread_parties = {k: frozenset(v) for k, v in by_thread.items()}
        for part in chunks(sorted(by_thread)):
            for rid, th in conn.execute(f"SELECT r.id, {conv} FROM record r WHERE {conv} IN ({marks(len(part))})", part):
                record_parties[int(rid)] = frozenset(by_thread[th] | by_rec.get(int(rid), set()))
        for rid, v in by_rec.items():
            record_parties.setdefault(rid, frozenset(v))
    return Redactor.from_aliases(rows, region, others=sorted(others), shared=shared, own=own, related=related,
                                 record_parties=record_parties, thread_parties=thread_parties)


def _own_domains(conn, rows, skip: set[int]) -> list[str]:
    """The registrable mail domains of the forgotten entities' addresses (``rows``: their alias rows) that are
    theirs alone: an organisation's or a family's (not webmail, :func:`core.graph.entities.is_org_domain`) at
    which no live entity outside ``skip`` has an address — their own company's domain names them; a colleague's
    stays."""
    from core.graph.entities import email_domain, is_org_domain

    out: list[str] = []
    for d in sorted({email_domain(norm or value) for kind, value, norm in rows
                     if kind == "email" and "@" in (norm or value or "")} - {None}):
        if not is_org_domain(d) or "." not in d:
            continue
        pat = "%" + d.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        holders = {int(e) for e, v in conn.execute(
            "SELECT a.entity_id, a.value FROM alias a JOIN entity e ON e.id = a.entity_id WHERE e.tombstoned_at IS "
            "NULL AND a.kind = 'email' AND lower(a.value) LIKE ? ESCAPE '\\'", (pat,)) if email_domain(v) == d}
        if not holders - skip:
            out.append(d)
    return out


def _record_words(row) -> str:
    """A record's subject and text, for :meth:`Redactor.for_record`'s reading of who it is about."""
    return "\n".join(str(v) for v in row if v)


def _like_rows(conn, tbl: str, cols: list[str], terms: list[str], key: str = "id", extra: str = "") -> list[tuple]:
    """Rows of ``tbl`` (``key`` + ``cols``) where some column contains some term (LIKE, case-insensitive ASCII)."""
    if not terms:
        return []
    conds = " OR ".join(f"CAST({c} AS TEXT) LIKE ? ESCAPE '\\'" for c in cols for _ in terms)
    pats = [f"%{t.replace(chr(92), chr(92) * 2).replace('%', chr(92) + '%').replace('_', chr(92) + '_')}%"
            for _ in cols for t in terms]
    return conn.execute(f"SELECT {key}, {', '.join(cols)} FROM {tbl} WHERE ({conds}) {extra}", pats).fetchall()


def mentioning(conn, tbl: str, cols: list[str], red: Redactor, key: str = "id", extra: str = "",
               loose: bool = False, json_cols: tuple[str, ...] = (), loose_cols: tuple[str, ...] = ()) -> list[tuple]:
    """Rows of ``tbl`` (``key`` first, then ``cols``) where some column mentions a forgotten entity.

    Args:
        key: the key column, or several separated by commas (``"fact_id, record_id"``): each row starts
            with all of them, then ``cols``.
        extra: SQL appended to the WHERE clause (``"AND tombstoned_at IS NULL"``).
        loose: match as in machine-written fields (:meth:`Redactor.mentions`); ``json_cols`` and ``loose_cols``
            (machine-written text: a thread key, a file path) are always loose.

    Returns:
        The matching rows, as tuples; ``[]`` without a redactor.
    """
    if red is None or red.empty:
        return []
    nkey = len([k for k in key.split(",") if k.strip()])
    out = []
    for row in _like_rows(conn, tbl, cols, red.like_terms(), key, extra):
        for c, v in zip(cols, row[nkey:]):
            if v is None:
                continue
            if c in json_cols:
                try:
                    v = json.dumps(json.loads(v), ensure_ascii=False)
                except (TypeError, ValueError):
                    pass
            if red.mentions(str(v), loose=loose or c in json_cols or c in loose_cols):
                out.append(row)
                break
    return out


def redacted_values(red: Redactor, cols: list[str], row: tuple, json_cols: tuple[str, ...] = (),
                    loose: bool = False, acts: tuple[str, ...] = (), loose_cols: tuple[str, ...] = ()) -> dict:
    """``{column: new value}`` for the columns of ``row`` (without its key) that redaction changes.

    Args:
        cols: the column names of ``row``'s values.  json_cols: those holding JSON (every string in it redacted).
        loose: match as in machine-written fields (``loose_cols``: those columns only).
        acts: JSON columns whose lists lose the forgotten entities' own acts (``Redactor.redact_json``).

    Returns:
        ``{column: new value}``, only the columns that change; non-string values are left alone.
    """
    out = {}
    for c, v in zip(cols, row):
        if v is None or not isinstance(v, str):
            continue
        if c in json_cols:
            try:
                new = json.dumps(red.redact_json(json.loads(v), acts=c in acts))
            except (TypeError, ValueError):
                new = red.redact(v, loose=True, quotes=False)
            changed = (json.loads(new) != json.loads(v)) if _is_json(v) else (new != v)
            if changed:
                out[c] = new
        else:
            new = red.redact(v, loose=loose or c in loose_cols)
            if new != v:
                out[c] = new
    return out


def _is_json(v: str) -> bool:
    try:
        json.loads(v)
        return True
    except (TypeError, ValueError):
        return False


# ---- scope -------------------------------------------------------------------------------------

def scope(conn, target: Target, mentions: str = "redact", region: str = "US") -> tuple[Scope, Redactor | None]:
    """The rows a forget of ``target`` touches, and the redactor of its entities' mentions.

    Args:
        conn: a ``sqlite3`` connection on the Kith database.
        target: what to forget; an entity target's ``ref`` must be an entity id here.
        mentions: ``"redact"`` (other rows that name a forgotten entity keep their place, the mention
            replaced) or ``"remove"`` (those records go too).

    Raises:
        NotFound: the target does not exist (or is already forgotten).
        ValueError: the target is the owner, or ``mentions`` is neither value.
    """
    if mentions not in ("redact", "remove"):
        raise ValueError(f"mentions must be 'redact' or 'remove', not {mentions!r}")
    sc = Scope(target={"kind": target.kind, "ref": target.ref if target.kind != "range" else None,
                       "start": target.start.isoformat() if target.start else None,
                       "end": target.end.isoformat() if target.end else None}, mentions=mentions)
    red: Redactor | None = None
    records: set[int] = set()
    facts: set[int] = set()
    relatives: list[int] = []
    me = owner_id(conn)
    if target.kind == "entity":
        row = conn.execute("SELECT id, kind, canonical_name, tombstoned_at FROM entity WHERE id = ?",
                           (int(target.ref),)).fetchone()
        if row is None or row[3] is not None:
            raise NotFound(f"entity {target.ref} does not exist (or is already forgotten)")
        if me is not None and int(row[0]) == me:
            raise ValueError("Kith cannot forget its owner (you); forget a source, a time range or a record instead")
        sc.label = f"{row[2]} ({row[1]})"
        ents = merged_into(conn, int(row[0]))
        sc.entities = ents
        relatives = _relatives(conn, ents)
        red = redactor_for(conn, ents, region, exclude=relatives)
        records |= set(_in(conn, "SELECT id FROM record WHERE tombstoned_at IS NULL AND sender_entity_id", ents))
        records |= set(_in(conn, "SELECT id FROM record WHERE tombstoned_at IS NULL AND place_entity_id", ents))
        linked = set(_in(conn, "SELECT record_id FROM recordentity WHERE entity_id", ents))
        for rid in sorted(linked - records):
            others = conn.execute(f"SELECT count(*) FROM recordentity WHERE record_id = ? AND entity_id NOT IN "
                                  f"({marks(len(ents))})", (rid, *ents)).fetchone()[0]
            live = conn.execute("SELECT tombstoned_at IS NULL FROM record WHERE id = ?", (rid,)).fetchone()
            if others == 0 and live and live[0]:
                records.add(rid)
        facts |= set(_in(conn, "SELECT id FROM fact WHERE tombstoned_at IS NULL AND subject_entity_id", ents))
        facts |= set(_in(conn, "SELECT f.id FROM fact f JOIN factentity fe ON fe.fact_id = f.id "
                               "WHERE f.tombstoned_at IS NULL AND fe.entity_id", ents))
        for fid, statement, value in mentioning(conn, "fact", ["statement", "value"], red,
                                                extra="AND tombstoned_at IS NULL"):
            # "As of …, Ben plays the violin" about another Ben is his fact, not a mention of the forgotten one
            about = {int(x) for (x,) in conn.execute("SELECT subject_entity_id FROM fact WHERE id = ? UNION "
                                                     "SELECT entity_id FROM factentity WHERE fact_id = ?", (fid, fid))
                     if x is not None}
            here = red.within(about, _record_words((statement, value)))
            if here is red or any(here.mentions(str(v)) for v in (statement, value) if v is not None):
                facts.add(int(fid))
    elif target.kind == "source":
        path = str(target.ref)
        want = {path.rstrip("/") or path, str(Path(path).expanduser().resolve())}
        # an archive or a folder: every file imported from inside it (cited "<archive>/<member>")
        inside = tuple(w.rstrip("/") + "/" for w in want)

        def wanted(p: str) -> bool:
            return p in want or p.startswith(inside)

        src = [int(i) for (i, p) in conn.execute("SELECT id, path FROM source").fetchall() if wanted(p)]
        sc.quarantine = sorted(int(i) for (i, p) in conn.execute("SELECT id, path FROM quarantineitem").fetchall()
                               if wanted(p))
        if not src and not sc.quarantine:
            raise NotFound(f"no imported file {path!r} (see the sources in `kith profile` or the Inbox)")
        sc.sources = sorted(src)
        whole = {int(i) for (i, p) in conn.execute("SELECT id, path FROM source").fetchall() if p in want}
        sc.label = (f"{Path(path).name} (file)" if whole == set(src) else
                    f"{Path(path).name} (archive or folder: {len(src)} imported file{'s' if len(src) != 1 else ''})")
        records |= set(_in(conn, "SELECT id FROM record WHERE tombstoned_at IS NULL AND source_id", src))
    elif target.kind == "range":
        sc.label = f"{target.start.date().isoformat()} – {target.end.date().isoformat()} (time range)"
        records |= set(_ids(conn, "SELECT id FROM record WHERE tombstoned_at IS NULL AND sent_at >= ? AND sent_at < ?",
                            (now_text(target.start), now_text(target.end))))
    elif target.kind == "record":
        row = conn.execute("SELECT id, kind, subject FROM record WHERE id = ? AND tombstoned_at IS NULL",
                           (int(target.ref),)).fetchone()
        if row is None:
            raise NotFound(f"record {target.ref} does not exist (or is already forgotten)")
        sc.label = f"record {row[0]} ({row[1]})"
        records.add(int(row[0]))
    else:  # fact
        row = conn.execute("SELECT id FROM fact WHERE id = ? AND tombstoned_at IS NULL", (int(target.ref),)).fetchone()
        if row is None:
            raise NotFound(f"fact {target.ref} does not exist (or is already forgotten)")
        sc.label = f"fact {row[0]}"
        facts.add(int(row[0]))

    # The forgotten person's own words, as replies that stay quote them ("> I started at Globex …"): those quoted
    # runs are redacted wherever a kept message repeats them (Redactor.quoted)
    own_records = set(records)
    if red is not None and target.kind == "entity" and own_records:
        red.quoted.extend(_own_texts(conn, own_records))
    # Records (and chat statements) that mention a forgotten entity: redacted, or removed on request.
    redact: set[int] = set()
    mention_removed: set[int] = set()
    if red is not None and not red.empty:
        for row in mentioning(conn, "record", _RECORD_COLS, red, extra="AND tombstoned_at IS NULL",
                              json_cols=("attrs",), loose_cols=_RECORD_LOOSE):
            if row[0] in records:
                continue
            # a first name he shares with another live person counts only where it can be him
            here = red.for_record(int(row[0]), _record_words(row[1:3]))
            if here is not red and not redacted_values(here, _RECORD_COLS, row[1:], json_cols=("attrs",),
                                                       acts=("attrs",), loose_cols=_RECORD_LOOSE):
                continue
            (mention_removed if mentions == "remove" else redact).add(int(row[0]))
        # a reply that quotes their words without naming them: those words go, the reply stays (any ``mentions``)
        for rid in _quoting(conn, red, own_records):
            if rid not in records and rid not in mention_removed:
                redact.add(rid)
    records |= mention_removed
    sc.records = sorted(records)
    sc.redact_records = sorted(redact)

    # Facts whose evidence is all in the removed records.
    if records:
        touched = set(_in(conn, "SELECT fact_id FROM evidence WHERE record_id", records))
        for fid in sorted(touched - facts):
            left = conn.execute(f"SELECT count(*) FROM evidence WHERE fact_id = ? AND record_id NOT IN "
                                f"(SELECT id FROM record WHERE id IN ({marks(len(records))}))" if len(records) < 900
                                else "SELECT -1", (fid, *sorted(records)) if len(records) < 900 else ()).fetchone()[0]
            if left == -1:
                left = sum(1 for (r,) in conn.execute("SELECT record_id FROM evidence WHERE fact_id = ?", (fid,))
                           if r not in records)
            live = conn.execute("SELECT tombstoned_at IS NULL FROM fact WHERE id = ?", (fid,)).fetchone()
            if left == 0 and live and live[0]:
                facts.add(fid)

    # Orphans: entities left with nothing — every record link to a removed record, every fact removed
    # (a person known only as the recipient of forgotten mail, the street a forgotten person lived on,
    # a photo trip whose photos went); and the relatives Kith named after a forgotten person.
    orphans: set[int] = set(relatives) if target.kind == "entity" else set()
    # (a record removed for mentioning them is its sender's too: its sender, another person, is no orphan of it)
    cand = (set(_in(conn, "SELECT entity_id FROM recordentity WHERE record_id", records - mention_removed))
            if records - mention_removed else set())
    if facts:
        cand |= set(_in(conn, "SELECT entity_id FROM factentity WHERE fact_id", facts))
        cand |= set(_in(conn, "SELECT subject_entity_id FROM fact WHERE id", facts))
    for eid in sorted(cand - set(sc.entities) - orphans):
        if eid == me:
            continue
        e = conn.execute("SELECT tombstoned_at IS NULL FROM entity WHERE id = ?", (eid,)).fetchone()
        if not e or not e[0]:
            continue
        if any(r not in records for (r,) in conn.execute("SELECT record_id FROM recordentity WHERE entity_id = ?",
                                                          (eid,))):
            continue
        if any(f not in facts for (f,) in conn.execute(
                "SELECT f.id FROM fact f WHERE f.tombstoned_at IS NULL AND (f.subject_entity_id = ? OR f.id IN "
                "(SELECT fact_id FROM factentity WHERE entity_id = ?))", (eid, eid))):
            continue  # a fact about it stays (its evidence is elsewhere, or the owner said it in chat)
        orphans.add(eid)
    sc.orphans = sorted(orphans)
    if orphans:
        facts |= set(_in(conn, "SELECT id FROM fact WHERE tombstoned_at IS NULL AND subject_entity_id", orphans))
        facts |= set(_in(conn, "SELECT f.id FROM fact f JOIN factentity fe ON fe.fact_id = f.id "
                               "WHERE f.tombstoned_at IS NULL AND fe.entity_id", orphans))
    sc.facts = sorted(facts)
    if red is not None and target.kind == "entity" and red.shared:
        # the facts that stay though they hold a shared name are another bearer's: a summary repeating them keeps them
        red.kept.extend(sorted({str(st) for _f, st in mentioning(conn, "fact", ["statement"], red,
                                                                extra="AND tombstoned_at IS NULL")
                                if _f not in facts and st}, key=len, reverse=True))

    # Episodes: of the removed records; record-less statements (chat) in the range or naming the entity.
    eps = set(_in(conn, "SELECT id FROM episode WHERE tombstoned_at IS NULL AND record_id", records)) if records else set()
    red_eps = set(_in(conn, "SELECT id FROM episode WHERE tombstoned_at IS NULL AND record_id", redact)) if redact else set()
    if target.kind == "range":
        eps |= set(_ids(conn, "SELECT id FROM episode WHERE tombstoned_at IS NULL AND record_id IS NULL "
                              "AND t_valid >= ? AND t_valid < ?", (now_text(target.start), now_text(target.end))))
    if red is not None and not red.empty:
        for row in mentioning(conn, "episode", ["text"], red, extra="AND tombstoned_at IS NULL AND record_id IS NULL"):
            (eps if mentions == "remove" else red_eps).add(int(row[0]))
        # a kept record's episode cites its file ("…/Teddy Q party/IMG_2000.jpg#IMG_2000.jpg"): redacted as the
        # file's name is in ``source``
        for row in mentioning(conn, "episode", ["provenance"], red, loose_cols=("provenance",),
                              extra="AND tombstoned_at IS NULL AND record_id IS NOT NULL"):
            red_eps.add(int(row[0]))
    sc.episodes = sorted(eps)
    sc.redact_episodes = sorted(red_eps - eps)
    sc.card_aliases, sc.card_marks, sc.card_names = card_leftovers(conn, sc, region)
    return sc, red


def _own_texts(conn, record_ids) -> list[str]:
    """:func:`core.graph.redact.own_words` of each of ``record_ids``' texts (long enough to be told apart)."""
    from core.graph.redact import _QUOTE_MIN, own_words

    out: list[str] = []
    for p in chunks(sorted(record_ids)):
        for (text,) in conn.execute(f"SELECT text FROM record WHERE id IN ({marks(len(p))})", p):
            words = own_words(text)
            if len(words) >= _QUOTE_MIN:
                out.append(words)
    return list(dict.fromkeys(out))


def _quoting(conn, red: Redactor, record_ids) -> list[int]:
    """Live records outside ``record_ids`` in their conversations (thread, or a reply to one of them) whose quoted
    lines repeat the words of ``record_ids`` (``red.quoted``)."""
    from core.graph.redact import quotes_forgotten

    if not red.quoted or not record_ids:
        return []
    threads: set[str] = set()
    msgids: set[str] = set()
    for p in chunks(sorted(record_ids)):
        for th, ext, mid in conn.execute(f"SELECT thread, external_id, json_extract(attrs, '$.message_id') FROM record "
                                         f"WHERE id IN ({marks(len(p))})", p):
            threads |= {str(x) for x in (th,) if x}
            msgids |= {str(x) for x in (ext, mid) if x and "@" in str(x)}  # a mail's Message-ID
    cand: set[int] = set()
    for p in chunks(sorted(threads)):
        cand |= set(_ids(conn, f"SELECT id FROM record WHERE tombstoned_at IS NULL AND thread IN ({marks(len(p))}) "
                               "AND text LIKE '%>%'", p))
    for p in chunks(sorted(msgids)):
        cand |= set(_ids(conn, f"SELECT id FROM record WHERE tombstoned_at IS NULL AND text LIKE '%>%' AND "
                               f"(json_extract(attrs, '$.in_reply_to') IN ({marks(len(p))}) OR "
                               f"json_extract(attrs, '$.quoted_in') IN ({marks(len(p))}))", (*p, *p)))
    out = []
    for p in chunks(sorted(cand - set(record_ids))):
        for rid, text in conn.execute(f"SELECT id, text FROM record WHERE id IN ({marks(len(p))})", p):
            if quotes_forgotten(text, red.quoted):
                out.append(int(rid))
    return out


def _card(attrs) -> dict:
    try:
        card = json.loads(attrs).get("card") if isinstance(attrs, str) else (attrs or {}).get("card")
    except (TypeError, ValueError):
        return {}
    return card if isinstance(card, dict) else {}


def card_leftovers(conn, sc: Scope, region: str = "US") -> tuple[list[int], dict, dict]:
    """What removed contact cards (records of kind ``contact``) leave on entities that stay.

    A card's names, nicknames, identifiers and contact id are aliases of its entity marked ``Alias.card``
    (``core.graph.contacts``).  When the card goes but its entity stays (a source, range or record target),
    an alias marked with a removed card is deleted unless the entity still uses it — a record that stays was
    linked through it — or a card that stays lists it too (then it keeps or takes that card's mark).  The
    entity's canonical name falls back from the removed card's name to a name (else an address) it keeps.

    Returns:
        (alias ids to delete, alias id → new ``card`` mark or None, entity id → ``{"name", "card_names"}``);
        ids as strings in the dicts (JSON).
    """
    from core.graph.contacts import card_identifiers
    from core.graph.entities import normalize_alias, normalize_name

    removed = set(sc.records)
    gone = set(sc.all_entities)
    cards: dict[int, dict[str, dict]] = {}  # entity → removed contact id → card
    for part in chunks(sorted(removed)):
        for eid, attrs in conn.execute(f"SELECT sender_entity_id, attrs FROM record WHERE kind = 'contact' AND id IN "
                                       f"({marks(len(part))})", part):
            card = _card(attrs)
            if eid is None or eid in gone or not card.get("contact_id"):
                continue
            cards.setdefault(int(eid), {})[str(card["contact_id"]).strip().casefold()] = card
    delete: list[int] = []
    remark: dict = {}
    names: dict = {}
    for eid, lost in sorted(cards.items()):
        keys: dict[tuple[str, str], str] = {}  # (kind, normalized) → contact id of a card that stays
        shown: set[str] = set()
        for rid, attrs in conn.execute("SELECT id, attrs FROM record WHERE kind = 'contact' AND tombstoned_at IS NULL "
                                       "AND sender_entity_id = ?", (eid,)):
            card = _card(attrs)
            if rid in removed or not card.get("contact_id"):
                continue
            cid = str(card["contact_id"]).strip().casefold()
            lost.pop(cid, None)
            for kind, _, norm in card_identifiers(card, region)[0]:
                keys.setdefault((kind, norm), cid)
            for kind, values in (("name", card.get("names", [])), ("nickname", card.get("nicknames", []))):
                for v in values:
                    keys.setdefault((kind, normalize_alias(kind, v) or ""), cid)
            keys.setdefault(("contact", cid), cid)
            if card.get("name"):
                shown.add(normalize_name(card["name"]))
        if not lost:
            continue
        used = {int(a) for r, a in conn.execute(
            "SELECT re.record_id, re.alias_id FROM recordentity re JOIN record r ON r.id = re.record_id "
            "WHERE re.entity_id = ? AND re.alias_id IS NOT NULL AND r.tombstoned_at IS NULL", (eid,)) if r not in removed}
        rows = conn.execute(f"SELECT id, kind, value, normalized, card FROM alias WHERE entity_id = ? AND card IN "
                            f"({marks(len(lost))})", (eid, *sorted(lost))).fetchall()
        dropped_names: set[str] = set()
        for aid, kind, value, norm, _card_id in rows:
            if (kind, norm) in keys:
                remark[str(aid)] = keys[(kind, norm)]
            elif aid in used and kind != "contact":
                remark[str(aid)] = None
            else:
                delete.append(int(aid))
                if kind == "name":
                    dropped_names.add(norm)
        row = conn.execute("SELECT canonical_name, attrs FROM entity WHERE id = ?", (eid,)).fetchone()
        canonical, attrs = row[0], json.loads(row[1]) if row[1] else {}
        lost_shown = {normalize_name(c["name"]) for c in lost.values() if c.get("name")}
        new_name = canonical
        if normalize_name(canonical) in (lost_shown | dropped_names) - shown:
            kept = conn.execute(f"SELECT value FROM alias WHERE entity_id = ? AND kind IN ('name', 'phone', 'email', "
                                f"'handle') AND id NOT IN ({marks(len(delete)) if delete else 'NULL'}) ORDER BY "
                                f"kind = 'name' DESC, id", (eid, *delete)).fetchone()
            new_name = kept[0] if kept else canonical
        kept_names = sorted(shown)
        if new_name != canonical or sorted(attrs.get("card_names", [])) != kept_names:
            names[str(eid)] = {"name": new_name, "card_names": kept_names}
    return sorted(set(delete)), remark, names


# ---- the selection both plan and apply use --------------------------------------------------------

_RECORD_COLS = ["subject", "text", "thread", "attrs", "external_id"]
"""A kept record's columns where a forgotten entity's mention is redacted (``external_id``: a photo's or a
memo's file name, "Theodora_Quillfeather_birthday.jpg"; a Message-ID that spells an address)."""
_RECORD_LOOSE = ("thread", "external_id")
"""Machine-written columns: names match there in any case and as one token ("theodora.quillfeather")."""

_REDACT_TABLES = (  # (table, key column, text columns, JSON columns, extra WHERE) of kept rows
    ("source", "id", ["path"], (), ""),
    ("quarantineitem", "id", ["path", "locator", "reason"], (), ""),
    ("auditevent", "id", ["target", "detail"], ("detail",), ""),
)


@dataclass
class Selection:
    """Exactly what :func:`apply` changes (ids per table, new values for redacted rows)."""

    entities: list[int] = field(default_factory=list)
    aliases: int = 0
    record_links: int = 0
    fact_links: int = 0
    evidence: int = 0
    merge_candidates: list[int] = field(default_factory=list)
    reactivate: dict[int, int | None] = field(default_factory=dict)   # fact id → its new superseded_by
    weaken: dict[int, int] = field(default_factory=dict)              # fact id → evidence rows lost
    refrom: dict[int, tuple] = field(default_factory=dict)            # fact id → (valid_from, offset) without them
    redact: list[tuple[str, str, object, dict]] = field(default_factory=list)  # (table, key col, key, {col: new})

    def counts(self, sc: Scope) -> dict[str, int]:
        red: dict[str, int] = {}
        for tbl, *_ in self.redact:
            red[tbl] = red.get(tbl, 0) + 1
        out = {"entities": len(self.entities), "aliases": self.aliases + len(sc.card_aliases),
               "records": len(sc.records),
               "record_links": self.record_links, "facts": len(sc.facts), "fact_links": self.fact_links,
               "evidence": self.evidence, "facts_reactivated": len(self.reactivate),
               "facts_weakened": len(self.weaken), "merge_candidates": len(self.merge_candidates),
               "sources": len(sc.sources), "quarantine": len(sc.quarantine)}
        for tbl, n in sorted(red.items()):
            out[f"{tbl}_redacted"] = n
        return out


def select_rows(conn, sc: Scope, red: Redactor | None) -> Selection:
    """What :func:`apply` will change, computed without changing anything."""
    sel = Selection(entities=list(sc.all_entities))
    ents, recs, facts = sc.all_entities, set(sc.records), set(sc.facts)
    if ents:
        sel.aliases = sum(conn.execute(f"SELECT count(*) FROM alias WHERE entity_id IN ({marks(len(p))})", p).fetchone()[0]
                          for p in chunks(ents))
    links = set()
    for p in chunks(sorted(recs)):
        links |= set(conn.execute(f"SELECT record_id, entity_id, role FROM recordentity WHERE record_id IN ({marks(len(p))})", p))
    for p in chunks(ents):
        links |= set(conn.execute(f"SELECT record_id, entity_id, role FROM recordentity WHERE entity_id IN ({marks(len(p))})", p))
    sel.record_links = len(links)
    flinks = set()
    for p in chunks(sorted(facts)):
        flinks |= set(conn.execute(f"SELECT fact_id, entity_id, role FROM factentity WHERE fact_id IN ({marks(len(p))})", p))
    for p in chunks(ents):
        flinks |= set(conn.execute(f"SELECT fact_id, entity_id, role FROM factentity WHERE entity_id IN ({marks(len(p))})", p))
    sel.fact_links = len(flinks)
    ev = set()
    for p in chunks(sorted(recs)):
        ev |= set(conn.execute(f"SELECT fact_id, record_id FROM evidence WHERE record_id IN ({marks(len(p))})", p))
    for p in chunks(sorted(facts)):
        ev |= set(conn.execute(f"SELECT fact_id, record_id FROM evidence WHERE fact_id IN ({marks(len(p))})", p))
    sel.evidence = len(ev)
    for f, _r in ev:
        if f not in facts:
            sel.weaken[f] = sel.weaken.get(f, 0) + 1
    sel.refrom = _refrom(conn, sel.weaken, ev, recs)
    mc = set()
    for p in chunks(ents):
        mc |= set(_ids(conn, f"SELECT id FROM mergecandidate WHERE a_id IN ({marks(len(p))}) OR b_id IN ({marks(len(p))})",
                       (*p, *p)))
    sel.merge_candidates = sorted(mc)
    # Facts an about-to-go fact superseded take the place of the first successor that stays (or become current).
    if facts:
        succ = {}
        for p in chunks(sorted(facts)):
            succ.update({int(i): s for i, s in conn.execute(
                f"SELECT id, superseded_by FROM fact WHERE id IN ({marks(len(p))})", p)})

        def next_live(fid):
            seen = set()
            while fid is not None and fid in facts and fid not in seen:
                seen.add(fid)
                nxt = succ.get(fid)
                fid = None if nxt == fid else nxt
            return fid
        for p in chunks(sorted(facts)):
            for gid, by in conn.execute(f"SELECT id, superseded_by FROM fact WHERE superseded_by IN ({marks(len(p))}) "
                                        "AND tombstoned_at IS NULL", p).fetchall():
                if gid not in facts:
                    sel.reactivate[int(gid)] = next_live(by)
    # Redaction of rows that stay.
    if red is not None and not red.empty:
        for rid in sc.redact_records:
            row = conn.execute(f"SELECT {', '.join(_RECORD_COLS)} FROM record WHERE id = ?", (rid,)).fetchone()
            new = redacted_values(red.for_record(rid, _record_words(row[:2])), _RECORD_COLS, row,
                                  json_cols=("attrs",), acts=("attrs",), loose_cols=_RECORD_LOOSE)
            if new:
                sel.redact.append(("record", "id", rid, new))
        ev_keep = [row for row in mentioning(conn, "evidence", ["excerpt"], red, key="fact_id, record_id")
                   if (row[0], row[1]) not in ev]
        for f, r, excerpt in ev_keep:
            new = redacted_values(red.for_record(r, excerpt), ["excerpt"], (excerpt,))
            if new:
                sel.redact.append(("evidence", "fact_id, record_id", (f, r), new))
        for tbl, key, cols, jcols, extra in _REDACT_TABLES:
            for row in mentioning(conn, tbl, cols, red, key=key, extra=extra, json_cols=jcols):
                new = redacted_values(red, cols, row[1:], json_cols=jcols)
                if new and not (tbl == "source" and row[0] in sc.sources):
                    sel.redact.append((tbl, key, row[0], new))
        for row in mentioning(conn, "mergecandidate", ["reason", "detail"], red, json_cols=("detail",)):
            if row[0] not in mc:
                new = redacted_values(red, ["reason", "detail"], row[1:], json_cols=("detail",))
                if new:
                    sel.redact.append(("mergecandidate", "id", row[0], new))
    return sel


def _refrom(conn, weakened, ev, recs) -> dict[int, tuple]:
    """The new ``valid_from`` (and the offset its record was written at) of each kept fact (of ``weakened``) whose start was the time a forgotten record of
    ``ev`` was sent: the earliest kept evidence's time — Harriet's 'writes to Nina' kept "since 2023-05-01 10:00",
    the time of the WhatsApp message forgotten with its file.  A start read from a kept record's words ("I moved
    to Bristol in March") is not a forgotten record's time and stays."""
    out: dict[int, object] = {}
    gone: dict[int, set] = {}
    for f, r in ev:
        if f in weakened and r in recs:
            gone.setdefault(f, set()).add(r)
    for f, rids in sorted(gone.items()):
        row = conn.execute("SELECT valid_from FROM fact WHERE id = ?", (f,)).fetchone()
        if row is None or row[0] is None:
            continue
        sent = {t for (t,) in conn.execute(f"SELECT sent_at FROM record WHERE id IN ({marks(len(rids))})",
                                           sorted(rids))}
        if row[0] not in sent:
            continue
        live = [(t, off) for (t, rid, off) in conn.execute(
            "SELECT r.sent_at, r.id, r.utc_offset FROM evidence e JOIN record r ON r.id = e.record_id "
            "WHERE e.fact_id = ? AND r.tombstoned_at IS NULL AND r.sent_at IS NOT NULL", (f,)) if rid not in recs]
        if live and min(live)[0] > row[0]:
            out[f] = min(live)
    return out


def _restated(statement: str | None, sent, offset) -> str | None:
    """``statement`` with its "As of DATE" day made the day ``sent`` (UTC, as stored) was where it was written
    (``offset``: minutes east of UTC, or None)."""
    from datetime import datetime, timedelta

    from core.graph.facts import restate

    if statement is None:
        return None
    when = sent if isinstance(sent, datetime) else datetime.fromisoformat(str(sent))
    return restate(statement, when + timedelta(minutes=offset or 0))


def plan(conn, sc: Scope, red: Redactor | None) -> dict[str, int]:
    """Counts of what :func:`apply` hides, unlinks and redacts (nothing is changed)."""
    return select_rows(conn, sc, red).counts(sc)


def _key(keycol: str, key) -> dict:
    cols = [c.strip() for c in keycol.split(",")]
    vals = key if isinstance(key, tuple) else (key,)
    return dict(zip(cols, vals))


def apply(conn, op_id: int, sc: Scope, red: Redactor | None, at=None) -> dict[str, int]:
    """Hide what the scope names, stashing every original value (the caller's transaction).

    Entities, records and facts get ``tombstoned_at``; a tombstoned fact also steps out of the
    one-active-fact index (``superseded_by`` = itself); the facts it had superseded take its place;
    record links, fact links, evidence and merge candidates of what goes are removed; mentions in
    what stays are redacted.  Returns counts from the rows changed (equal to :func:`plan`'s).
    """
    sel = select_rows(conn, sc, red)
    t = now_text(at)
    n: dict[str, int] = {}

    def add(k, v):
        n[k] = n.get(k, 0) + (v or 0)
    for eid in sel.entities:
        stash_values(conn, op_id, STORE, "entity", {"id": eid}, ["tombstoned_at"])
        add("entities", conn.execute("UPDATE entity SET tombstoned_at = ? WHERE id = ?", (t, eid)).rowcount)
    ents = sc.all_entities
    add("aliases", sum(conn.execute(f"SELECT count(*) FROM alias WHERE entity_id IN ({marks(len(p))})", p).fetchone()[0]
                       for p in chunks(ents)))
    for rid in sc.records:
        stash_values(conn, op_id, STORE, "record", {"id": rid}, ["tombstoned_at"])
        add("records", conn.execute("UPDATE record SET tombstoned_at = ? WHERE id = ?", (t, rid)).rowcount)
    add("record_links", stash_rows_by_ids(conn, op_id, STORE, "recordentity", "record_id", sc.records))
    add("record_links", stash_rows_by_ids(conn, op_id, STORE, "recordentity", "entity_id", ents))
    add("evidence", stash_rows_by_ids(conn, op_id, STORE, "evidence", "record_id", sc.records))
    add("evidence", stash_rows_by_ids(conn, op_id, STORE, "evidence", "fact_id", sc.facts))
    add("fact_links", stash_rows_by_ids(conn, op_id, STORE, "factentity", "fact_id", sc.facts))
    add("fact_links", stash_rows_by_ids(conn, op_id, STORE, "factentity", "entity_id", ents))
    for fid in sc.facts:  # out of the partial unique index first, so a predecessor can become current
        stash_values(conn, op_id, STORE, "fact", {"id": fid}, ["tombstoned_at", "superseded_by"])
        add("facts", conn.execute("UPDATE fact SET tombstoned_at = ?, superseded_by = id WHERE id = ?", (t, fid)).rowcount)
    for gid, by in sorted(sel.reactivate.items()):
        stash_values(conn, op_id, STORE, "fact", {"id": gid}, ["superseded_by", "valid_to"])
        if by is None:
            add("facts_reactivated", conn.execute("UPDATE fact SET superseded_by = NULL, valid_to = NULL WHERE id = ?",
                                                  (gid,)).rowcount)
        else:
            add("facts_reactivated", conn.execute("UPDATE fact SET superseded_by = ? WHERE id = ?", (by, gid)).rowcount)
    for fid, lost in sorted(sel.weaken.items()):
        stash_values(conn, op_id, STORE, "fact", {"id": fid}, ["evidence_count"])
        add("facts_weakened", conn.execute("UPDATE fact SET evidence_count = max(0, evidence_count - ?) WHERE id = ?",
                                           (lost, fid)).rowcount)
    for fid, (start, offset) in sorted(sel.refrom.items()):
        row = stash_values(conn, op_id, STORE, "fact", {"id": fid}, ["valid_from", "statement", "indexed_at"])
        if row is not None:
            conn.execute("UPDATE fact SET valid_from = ?, statement = ?, indexed_at = NULL WHERE id = ?",
                         (start, _restated(row["statement"], start, offset), fid))
    add("merge_candidates", stash_rows_by_ids(conn, op_id, STORE, "mergecandidate", "id", sel.merge_candidates))
    # what removed contact cards gave entities that stay (card_leftovers)
    add("aliases", stash_rows_by_ids(conn, op_id, STORE, "alias", "id", sc.card_aliases))
    for aid, mark in sorted(sc.card_marks.items()):
        stash_values(conn, op_id, STORE, "alias", {"id": int(aid)}, ["card"])
        conn.execute("UPDATE alias SET card = ? WHERE id = ?", (mark, int(aid)))
    for eid, new in sorted(sc.card_names.items()):
        row = stash_values(conn, op_id, STORE, "entity", {"id": int(eid)}, ["canonical_name", "attrs"])
        if row is None:
            continue
        attrs = json.loads(row["attrs"]) if row["attrs"] else {}
        attrs["card_names"] = new["card_names"]
        if not new["card_names"]:
            attrs.pop("card_names")
        conn.execute("UPDATE entity SET canonical_name = ?, attrs = ? WHERE id = ?",
                     (new["name"], json.dumps(attrs), int(eid)))
    add("sources", len(sc.sources))
    # what could not be read of the file goes from the Inbox's list at once (its reasons name what was in it)
    add("quarantine", stash_rows_by_ids(conn, op_id, STORE, "quarantineitem", "id", sc.quarantine))
    for tbl, keycol, key, new in sel.redact:
        k = _key(keycol, key)
        stash_values(conn, op_id, STORE, tbl, k, list(new))
        sets = ", ".join(f"{c} = ?" for c in new)
        where = " AND ".join(f"{c} = ?" for c in k)
        add(f"{tbl}_redacted", conn.execute(f"UPDATE {tbl} SET {sets} WHERE {where}",
                                            (*new.values(), *k.values())).rowcount)
    base = sel.counts(sc)
    return {k: n.get(k, 0) for k in base} | {k: v for k, v in n.items() if k not in base}


def restore(conn, op_id: int) -> int:
    """Write the graph's stash back, newest change first (so each fact re-enters the one-active-fact
    index only after the fact that replaced it has left); returns entries applied.

    A forgotten fact whose (subject, domain, category, key) got a new current fact meanwhile comes back
    as that fact's history (superseded by it) rather than as a second current fact."""
    from core.store.forgetting import decode

    for sid, data in conn.execute("SELECT id, data FROM forget_stash WHERE op_id = ? AND store = ? AND kind = 'values' "
                                  "AND tbl = 'fact'", (op_id, STORE)).fetchall():
        d = json.loads(data)
        vals = d["vals"]
        if "tombstoned_at" not in vals or decode(vals.get("superseded_by")) is not None:
            continue
        fid = d["key"]["id"]
        row = conn.execute("SELECT subject_entity_id, domain, category, key FROM fact WHERE id = ?", (fid,)).fetchone()
        if row is None:
            continue
        live = conn.execute("SELECT id FROM fact WHERE subject_entity_id = ? AND domain = ? AND category = ? AND key = ? "
                            "AND superseded_by IS NULL AND id != ?", (*row, fid)).fetchone()
        if live is not None and not _comes_back_superseded(conn, op_id, live[0]):
            vals["superseded_by"] = live[0]
            conn.execute("UPDATE forget_stash SET data = ? WHERE id = ?", (json.dumps(d), sid))
    return put_back(conn, op_id, STORE)


def _comes_back_superseded(conn, op_id: int, fact_id: int) -> bool:
    """Whether the restore itself sets ``fact_id`` aside again (it was a predecessor the forget reactivated)."""
    from core.store.forgetting import decode

    for (data,) in conn.execute("SELECT data FROM forget_stash WHERE op_id = ? AND store = ? AND kind = 'values' "
                                "AND tbl = 'fact'", (op_id, STORE)):
        d = json.loads(data)
        if d["key"]["id"] == fact_id and "superseded_by" in d["vals"] and decode(d["vals"]["superseded_by"]) is not None:
            return True
    return False


def purge(conn, sc: Scope, op_id: int | None = None, remember: bool = True) -> dict[str, int]:
    """Delete the hidden rows for good (records, facts, entities, aliases, sources); returns rows deleted.  With
    ``remember``, each deleted record's content hash is kept (``core.store.forgetting.ForgottenRecord``, with
    ``op_id``), so a later import of a file holding it does not store it again — a person, a time, a message or a
    fact forgotten stays forgotten; a file forgotten is imported again when it is given again (``remember`` False).

    Episodes of the records must be gone first (``core.memory.forget.purge``)."""
    n = {"records": 0, "facts": 0, "entities": 0, "aliases": 0, "sources": 0, "quarantine": 0}
    for p in chunks(sc.records if remember else []):
        conn.execute(f"INSERT INTO forgotten_record(content_hash, op_id) SELECT content_hash, ? FROM record "
                     f"WHERE id IN ({marks(len(p))}) AND tombstoned_at IS NOT NULL AND content_hash IS NOT NULL "
                     f"ON CONFLICT DO NOTHING", (op_id, *p))
    for p in chunks(sc.records):
        conn.execute(f"DELETE FROM episode WHERE record_id IN ({marks(len(p))})", p)
        n["records"] += conn.execute(f"DELETE FROM record WHERE id IN ({marks(len(p))}) AND tombstoned_at IS NOT NULL",
                                     p).rowcount
    # each hidden fact points at itself first (as the hide left it): no foreign key from one to another across
    # chunks, and no second NULL in the one-active-fact index when two of them share (subject, domain, category,
    # key) — an old fact and the one that superseded it, or two moved together by a merge
    for p in chunks(sc.facts):
        conn.execute(f"UPDATE fact SET superseded_by = id WHERE id IN ({marks(len(p))}) AND tombstoned_at IS NOT NULL", p)
    for p in chunks(sc.facts):
        n["facts"] += conn.execute(f"DELETE FROM fact WHERE id IN ({marks(len(p))}) AND tombstoned_at IS NOT NULL",
                                   p).rowcount
    for p in chunks(sc.all_entities):
        live = _ids(conn, f"SELECT id FROM entity WHERE id IN ({marks(len(p))}) AND tombstoned_at IS NOT NULL", p)
        if not live:
            continue
        q = marks(len(live))
        # anything still pointing at the entity (written after it was hidden) loses the pointer
        conn.execute(f"UPDATE record SET sender_entity_id = NULL WHERE sender_entity_id IN ({q})", live)
        conn.execute(f"UPDATE record SET place_entity_id = NULL WHERE place_entity_id IN ({q})", live)
        for f in _ids(conn, f"SELECT id FROM fact WHERE subject_entity_id IN ({q})", live):
            conn.execute("UPDATE fact SET superseded_by = id WHERE superseded_by = ?", (f,))
            conn.execute("DELETE FROM fact WHERE id = ?", (f,))
        conn.execute(f"DELETE FROM recordentity WHERE entity_id IN ({q})", live)
        conn.execute(f"DELETE FROM factentity WHERE entity_id IN ({q})", live)
        conn.execute(f"DELETE FROM mergecandidate WHERE a_id IN ({q}) OR b_id IN ({q})", (*live, *live))
        n["aliases"] += conn.execute(f"DELETE FROM alias WHERE entity_id IN ({q})", live).rowcount
        n["entities"] += conn.execute(f"DELETE FROM entity WHERE id IN ({q})", live).rowcount
    for sid in sc.sources:
        row = conn.execute("SELECT path FROM source WHERE id = ?", (sid,)).fetchone()
        left = conn.execute("SELECT count(*) FROM record WHERE source_id = ?", (sid,)).fetchone()[0]
        if row is not None and left == 0:
            n["quarantine"] += conn.execute("DELETE FROM quarantineitem WHERE path = ?", (row[0],)).rowcount
            n["sources"] += conn.execute("DELETE FROM source WHERE id = ?", (sid,)).rowcount
    return n

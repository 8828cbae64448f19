"""Forget: preview, hide, restore within the recovery window, purge to the last byte (issue 11).

Each store owns its part (DESIGN.md §6, "Forget as a cascade every store owns"); this module only
orders them:

=============  ====================================  ==========================================
store          hide (``forget``)                     purge
=============  ====================================  ==========================================
graph          ``core.graph.forget``: scope, tombstone entities/records/facts, unlink,
               redact mentions                        delete rows
summaries      ``core.graph.summaries``: remove or regenerate without the entity
search         ``core.store.search``: FTS5 rows out, redacted rows re-indexed      FTS5 optimize
vectors        ``core.store.vectors``: Chroma vectors out, redacted records re-embedded
                                                      rebuild collections, drop orphan segments, VACUUM
memory         ``core.memory.forget``: seed 001's unlearn loop (episodes, atoms, beliefs,
               concepts, learning log, traces, self-vector), redacted episodes re-signed
                                                      delete rows, compact the signature files
personal       ``core.personal.forget``: seed 000's ledger rows of the person, redacted messages
=============  ====================================  ==========================================

Then SQLite is ``VACUUM``-ed and its WAL truncated, so no free page keeps the text.

Public API (the CLI and the window call these; i15's bulk forget too):

* :func:`plan_forget` — the plan with counts per store (``to_json()``), changing nothing;
* :func:`forget` — hide at once (restorable for ``settings.forget_recovery_days``, seed 001: 30),
  or also purge (``purge=True``);
* :func:`restore`, :func:`purge`, :func:`purge_expired`, :func:`list_forgotten`;
* :func:`resume_pending` — finish whatever a crash interrupted (``kith doctor`` and start-up call it).

Targets: an entity (id or name), a source file, a time range, a single record or fact
(:class:`core.store.forgetting.Target`; a bare id or name means an entity).
"""
from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Iterable

import numpy as np
from sqlmodel import select

from app.container import Container
from core import clock
from core.errors import NotFound, StoreError
from core.store.forgetting import ForgetOp, Scope, Target, drop_stash

log = logging.getLogger(__name__)

STORES = ("graph", "summaries", "search", "vectors", "memory", "personal", "conversations")
"""The stores a forget runs through, in the order their counts are shown."""
LABELS = {
    "graph": {"entities": "entities", "aliases": "names and addresses", "records": "messages, photos or memos",
              "record_links": "record links", "facts": "facts", "fact_links": "fact links", "evidence": "evidence links",
              "facts_reactivated": "older facts current again", "facts_weakened": "facts with less evidence",
              "merge_candidates": "merge suggestions", "sources": "imported files",
              "quarantine": "entries of what could not be read",
              "inbox_files": "files in the Inbox folder (deleted when it is erased)",
              "record_redacted": "messages kept, mention redacted", "evidence_redacted": "evidence excerpts redacted",
              "source_redacted": "file names redacted", "quarantineitem_redacted": "quarantine entries redacted",
              "auditevent_redacted": "audit entries redacted", "mergecandidate_redacted": "merge notes redacted"},
    "summaries": {"removed": "removed", "regenerated": "rewritten without it"},
    "search": {"record_fts": "full-text entries", "record_fts_redacted": "full-text entries rewritten"},
    "vectors": {"records": "message vectors", "facts": "fact vectors", "records_reembedded": "vectors re-embedded"},
    "memory": {"episodes": "episodes", "signatures": "HDC signatures", "episodes_redacted": "episodes redacted",
               "atoms_withdrawn": "semantic atoms withdrawn", "atoms_recomputed": "semantic atoms recomputed",
               "beliefs_withdrawn": "beliefs withdrawn", "beliefs_recomputed": "beliefs recomputed",
               "concepts": "concepts", "learning_events_rewritten": "learning-log entries rewritten",
               "attention_traces_rewritten": "recall traces rewritten", "procedures": "procedures",
               "execution_traces_redacted": "procedure notes redacted", "goals_redacted": "goals redacted",
               "belief_revisions_redacted": "belief revisions redacted", "self_vector_snapshots": "self-vector correction"},
    "personal": {"signal": "ledger signals", "session_signal": "session signals", "signal_agg": "signal aggregates",
                 "signal_wm": "signal watermarks", "message": "conversation messages", "observation": "observations",
                 "observation_fts": "observation search entries", "preference_vector": "preference vector",
                 "person_pattern": "reply patterns", "person_profile": "communication profile",
                 "conversation_session": "conversation sessions", "message_redacted": "others' messages redacted",
                 "observation_redacted": "others' observations redacted",
                 "conversation_session_redacted": "conversation names redacted",
                 "person_profile_redacted": "others' profiles redacted"},
    "conversations": {"turns": "chat messages", "turns_redacted": "chat messages redacted",
                      "conversations": "chat conversations", "conversations_redacted": "chat conversations redacted"},
}


# ---- result types ---------------------------------------------------------------------------------

@dataclass
class ForgetPlan:
    """What a forget would do, per store, before anything changes.

    Attributes:
        target: the resolved target (an entity target carries its id).
        label: what is forgotten, as shown ("Steve Sapovits (person)").
        entity_id: the entity's id for an entity target, else None.
        counts: store → {what: rows}; equal to the :class:`ForgetReport`'s counts of the forget that follows.
        scope: the ids every store plans from.
        recovery_days: how long the forget can be undone.
    """

    target: Target
    label: str
    counts: dict[str, dict[str, int]]
    scope: Scope
    mentions: str = "redact"
    recovery_days: int = 30
    entity_id: int | None = None

    @property
    def name(self) -> str:
        return self.label.rsplit(" (", 1)[0]

    @property
    def kind(self) -> str:
        return self.label.rsplit(" (", 1)[-1].rstrip(")") if " (" in self.label else self.target.kind

    # the walking skeleton's preview fields, for callers that read them
    @property
    def records(self) -> int:
        return self.counts.get("graph", {}).get("records", 0)

    @property
    def facts(self) -> int:
        return self.counts.get("graph", {}).get("facts", 0)

    @property
    def episodes(self) -> int:
        return self.counts.get("memory", {}).get("episodes", 0)

    @property
    def aliases(self) -> int:
        return self.counts.get("graph", {}).get("aliases", 0)

    @property
    def redacted(self) -> int:
        return len(self.scope.redact_records)

    def lines(self) -> list[str]:
        """One line per store with its non-zero counts, in words."""
        out = []
        for store in STORES:
            parts = [f"{n} {LABELS.get(store, {}).get(k, k.replace('_', ' '))}"
                     for k, n in self.counts.get(store, {}).items() if n]
            if parts:
                out.append(f"{store}: " + ", ".join(parts))
        return out

    def describe(self) -> str:
        """The preview as text: what goes, per store, and how to undo it."""
        head = f"Forget {self.label}"
        if self.entity_id is not None:
            head += f" (id {self.entity_id})"
        body = "\n".join("  " + x for x in self.lines()) or "  nothing else is stored about it."
        if self.scope.redact_records and self.mentions == "redact":
            body += (f"\n  {len(self.scope.redact_records)} other message(s) that mention it stay, with the mention "
                     "replaced by [forgotten].")
        return (f"{head}:\n{body}\nIt disappears at once and can be restored for {self.recovery_days} days "
                "(kith restore); then, or with --purge, it is erased from every file.")

    def to_json(self) -> dict:
        t = self.target
        return {"target": {"kind": t.kind, "ref": t.ref, "start": t.start.isoformat() if t.start else None,
                           "end": t.end.isoformat() if t.end else None},
                "label": self.label, "entity_id": self.entity_id, "mentions": self.mentions,
                "recovery_days": self.recovery_days, "counts": self.counts,
                "kept_with_mention_redacted": len(self.scope.redact_records)}


@dataclass
class ForgetReport:
    """What a forget did: counts per store (as in the plan) and, after a purge, what the purge deleted."""

    forget_id: int
    label: str
    state: str
    counts: dict[str, dict[str, int]]
    expires_at: datetime | None = None
    purged: dict | None = None
    entity_id: int | None = None

    @property
    def name(self) -> str:
        return self.label.rsplit(" (", 1)[0]

    def summary(self) -> str:
        g = self.counts.get("graph", {})
        v = self.counts.get("vectors", {})
        m = self.counts.get("memory", {})
        what = (f"{g.get('records', 0)} record(s), {g.get('facts', 0)} fact(s), {m.get('episodes', 0)} memory(ies), "
                f"{v.get('records', 0) + v.get('facts', 0)} vector(s)")
        if self.state == "purged":
            return f"Forgot {self.label} for good: {what}; erased from every file."
        until = f" until {self.expires_at.date().isoformat()}" if self.expires_at else ""
        return f"Forgot {self.label}: {what} hidden; `kith restore {self.forget_id}` brings it back{until}."

    def to_json(self) -> dict:
        d = {"forget_id": self.forget_id, "label": self.label, "state": self.state, "counts": self.counts,
             "expires_at": self.expires_at.isoformat() if self.expires_at else None}
        if self.entity_id is not None:
            d["entity_id"] = self.entity_id
        if self.purged is not None:
            d["purged"] = self.purged
        return d


@dataclass
class ForgottenItem:
    """One forget as listed for Restore: id, label, state, when, until when, counts."""

    forget_id: int
    label: str
    target_kind: str
    state: str
    created_at: datetime
    expires_at: datetime
    counts: dict = field(default_factory=dict)

    @property
    def restorable(self) -> bool:
        return self.state == "hidden" and clock.ensure_utc(self.expires_at) > clock.now()

    def to_json(self) -> dict:
        return {"forget_id": self.forget_id, "label": self.label, "target_kind": self.target_kind,
                "state": self.state, "created_at": clock.ensure_utc(self.created_at).isoformat(),
                "expires_at": clock.ensure_utc(self.expires_at).isoformat(), "restorable": self.restorable,
                "counts": self.counts}


# ---- helpers ----------------------------------------------------------------------------------------

def _raw(s):
    """The DB-API connection under session ``s`` (same transaction): sqlite3's, or on PostgreSQL psycopg's
    behind ``core.store.dialect.PgConnection`` (the cascade's SQLite statements translated)."""
    conn = s.connection()
    driver = conn.connection.driver_connection
    if conn.dialect.name == "postgresql":
        from core.store.dialect import PgConnection

        return PgConnection(driver, close_fn=lambda: None)
    return driver


def resolve_target(c: Container, target) -> Target:
    """A :class:`Target` with an entity reference resolved to its id (a bare str/int is an entity).

    Raises:
        NotFound / Ambiguous: from ``app.operations.entities.find_entity``.
    """
    from app.operations.entities import find_entity

    if not isinstance(target, Target):
        target = Target.entity(target)
    if target.kind == "entity":
        return Target.entity(find_entity(c, target.ref).id)
    return target


def _memory(c):
    from app.memory import service

    return service(c)


def _ledger(c):
    """The personalization ledger (for refolding cohort aggregates); None when it cannot open."""
    try:
        from app.personal import personal_service

        return personal_service(c).ledger
    except Exception:  # the forget must not fail for want of the ledger's fold: reads rescan the rows
        log.exception("personalization ledger unavailable during forget")
        return None


def _recovery_days(c) -> int:
    return int(getattr(c.settings, "forget_recovery_days", 30) or 30)


def _select(c, s, t: Target, mentions: str):
    """Scope, redactor and each store's selection (before anything changes)."""
    from core.graph import forget as graph
    from core.graph import summaries
    from core.memory import forget as memory

    conn = _raw(s)
    sc, red = graph.scope(conn, t, mentions, c.settings.default_region)
    remove, regen = summaries.forget_selection(conn, sc, red)
    msel = memory.select_rows(conn, sc, red)
    return sc, red, remove, regen, msel


def plan_forget(c: Container, target, mentions: str = "redact") -> ForgetPlan:
    """What forgetting ``target`` would do, per store, without changing anything.

    Args:
        target: a :class:`Target`, or an entity id or name.
        mentions: ``"redact"`` (default: other records that name the entity keep their place with the
            mention replaced by "[forgotten]") or ``"remove"`` (those records are forgotten too).

    Returns:
        :class:`ForgetPlan` whose ``counts`` equal the :class:`ForgetReport`'s of a forget run now.

    Raises:
        NotFound / Ambiguous: no such target, or a name that matches several entities.
        ValueError: the target is the owner, or a bad range / ``mentions``.
    """
    from core.graph import forget as graph
    from core.personal import forget as personal
    from core.store import conversations, search, vectors

    t = resolve_target(c, target)
    with c.db.session() as s:
        try:
            sc, red, remove, regen, msel = _select(c, s, t, mentions)
            conn = _raw(s)
            counts = {"graph": {**graph.plan(conn, sc, red), "inbox_files": len(_inbox_files(c, conn, sc, red))},
                      "summaries": {"removed": len(remove), "regenerated": len(regen)},
                      "search": search.forget_plan(conn, sc),
                      "vectors": vectors.forget_plan(c.vectors, sc),
                      "memory": msel.counts(),
                      "personal": personal.plan(conn, sc, red),
                      "conversations": conversations.plan(conn, sc, red)}
        finally:
            s.rollback()
    return ForgetPlan(t, sc.label, counts, sc, mentions, _recovery_days(c),
                      int(t.ref) if t.kind == "entity" else None)


def preview_forget(c: Container, ref, mentions: str = "redact") -> ForgetPlan:
    """:func:`plan_forget` (the walking skeleton's name for it)."""
    return plan_forget(c, ref, mentions)


def _inbox_files(c: Container, conn, sc: Scope, red=None) -> list[str]:
    """The files in the data folder's watched ``Inbox`` (``app.watch``) that the forget's records, files or
    could-not-read entries came from (a zip member's archive, a chat folder's file): copies the person dropped
    there, which hold the forgotten text and which the window would import again at its next start once the
    rows are erased — and, with ``red`` (an entity's redactor), the files that could not be read whose entries
    name the entity (a broken card of theirs).  A purge deletes them (:func:`_delete_inbox_files`); what else they held stays in memory."""
    from pathlib import Path

    from core.store.forgetting import chunks, marks

    inbox = (c.settings.home / "Inbox").resolve()
    if not inbox.is_dir():
        return []
    paths: set[str] = set()
    for part in chunks(sorted(sc.records)):
        paths |= {p for (p,) in conn.execute(f"SELECT DISTINCT s.path FROM record r JOIN source s ON s.id = r.source_id "
                                             f"WHERE r.id IN ({marks(len(part))})", part) if p}
    for part in chunks(sorted(sc.sources)):
        paths |= {p for (p,) in conn.execute(f"SELECT path FROM source WHERE id IN ({marks(len(part))})", part) if p}
    for part in chunks(sorted(sc.quarantine)):
        paths |= {p for (p,) in conn.execute(f"SELECT path FROM quarantineitem WHERE id IN ({marks(len(part))})",
                                             part) if p}
    if red is not None and not red.empty:  # a file that could not be read and names them ("card 1 'X'")
        from core.graph.forget import mentioning

        paths |= {row[1] for row in mentioning(conn, "quarantineitem", ["path", "locator", "reason"], red) if row[1]}
    out = set()
    for p in paths:
        f = Path(p)
        try:
            f = f.resolve()
        except OSError:
            continue
        while f != inbox and inbox in f.parents and not f.is_file():  # "Inbox/export.zip/_chat.txt"
            f = f.parent
        if f.is_file() and inbox in f.parents:
            out.add(str(f))
    return sorted(out)


def _delete_inbox_files(c: Container, files: list[str]) -> int:
    """Delete the Inbox copies :func:`_inbox_files` listed (only files still inside ``<data folder>/Inbox``).
    Returns files deleted; one that cannot be deleted is logged, and the purge goes on."""
    from pathlib import Path

    inbox = (c.settings.home / "Inbox").resolve()
    n = 0
    for name in files:
        f = Path(name)
        if not (inbox in f.parents and f.is_file()):
            continue
        try:
            f.unlink()
            n += 1
        except OSError as e:
            log.warning("could not delete %s from the Inbox folder: %s", f, e)
    return n


def _fingerprint(sc: Scope) -> str:
    ids = {k: v for k, v in sc.to_json().items() if isinstance(v, list)}
    return hashlib.sha256(json.dumps(ids, sort_keys=True).encode()).hexdigest()


def _hide_on_writer(c: Container, t: Target, mentions: str, purge: bool = False) -> int:
    from core.graph import forget as graph
    from core.graph import summaries
    from core.memory import forget as memory
    from core.personal import forget as personal
    from core.store import conversations, search, vectors
    from core.store.schema import AuditEvent

    svc = _memory(c)
    ledger = _ledger(c)  # opened before the transaction (it has its own connection)
    now = clock.now()
    with c.db.session() as s:
        sc, red, remove, regen, msel = _select(c, s, t, mentions)
        conn = _raw(s)
        inbox = _inbox_files(c, conn, sc, red)  # before the graph redacts the file names
        op = ForgetOp(target_kind=t.kind, label=sc.label, state="hiding", mentions=mentions, created_at=now,
                      expires_at=now + timedelta(days=_recovery_days(c)),
                      # ``purge``: the caller asked for erasure; kept with the plan so that a crash before the
                      # purge is finished by resume_pending, never left as a restorable hide
                      plan={"scope": sc.to_json(), "memory": memory.selection_ids(msel), "purge": bool(purge),
                            "inbox": inbox},
                      fingerprint=_fingerprint(sc))
        s.add(op)
        s.flush()
        counts = {"vectors": vectors.forget_stash(c.vectors, conn, op.id, sc)}  # read Chroma before it changes
        counts["graph"] = {**graph.apply(conn, op.id, sc, red, now), "inbox_files": len(inbox)}
        counts["search"] = search.forget_apply(conn, op.id, sc, red)
        with svc._lock:
            counts["memory"] = memory.apply(s, svc.mem, op.id, sc, red, now, selection=msel)
        counts["personal"] = personal.apply(conn, op.id, sc, red, ledger)
        counts["summaries"] = summaries.forget_apply(s, op.id, sc, red, remove, regen)
        counts["conversations"] = conversations.apply(conn, op.id, sc, red)
        op.counts = {k: counts[k] for k in STORES}
        s.add(op)
        s.add(AuditEvent(action="forget", target=f"forget:{op.id}",
                         detail={"kind": t.kind, "fingerprint": op.fingerprint, "counts": op.counts}))
        op_id = op.id
    _finish_hide(c, op_id)
    return op_id


def _finish_hide(c: Container, op_id: int) -> None:
    """The derived indexes of a committed hide (idempotent, so a crash resumes here): Chroma vectors
    out and redacted records re-embedded, redacted episodes re-signed (their gist from the new vector,
    ``app.memory.gist_vectors``), redacted messages re-embedded."""
    from app.memory import gist_vectors
    from app.pipeline import vector_text
    from core.memory import forget as memory
    from core.personal import forget as personal
    from core.store import vectors
    from core.store.schema import Entity, Episode, Record

    svc = _memory(c)
    with c.db.session() as s:
        op = s.get(ForgetOp, op_id)
        sc = Scope.from_json(op.plan["scope"])
        recs = list(s.exec(select(Record).where(Record.id.in_(sc.redact_records))).all()) if sc.redact_records else []
        senders = {e.id: e.canonical_name for e in s.exec(select(Entity).where(
            Entity.id.in_([r.sender_entity_id for r in recs if r.sender_entity_id]))).all()} if recs else {}
        texts = {r.id: vector_text(senders.get(r.sender_entity_id), r.subject, r.text) for r in recs}
        eps = list(s.exec(select(Episode).where(Episode.id.in_(sc.redact_episodes))).all()) if sc.redact_episodes else []
    reembedded = {}
    if texts:
        ids = sorted(texts)
        reembedded = dict(zip(ids, np.asarray(c.encoder.encode([texts[i] for i in ids]), dtype=np.float32)))
    vectors.forget_hide(c.vectors, sc, reembedded)
    by_rec = {r.id: r for r in recs}
    _names, gists = gist_vectors(c, [by_rec[e.record_id] for e in eps if e.record_id in by_rec], reembedded)
    loose = [e for e in eps if e.record_id not in by_rec]  # things the owner told Kith in chat
    loose_vecs = dict(zip([e.id for e in loose], c.encoder.encode([e.text for e in loose]))) if loose else {}
    items = {}
    for e in eps:
        if e.record_id in by_rec:
            r = by_rec[e.record_id]
            items[e.id] = (senders.get(r.sender_entity_id), gists[r.id])
        else:
            items[e.id] = (None, loose_vecs[e.id])
    with c.db.session() as s:
        with svc._lock:
            memory.reindex(s, svc.mem, op_id, sc, items)
    with c.db.session() as s:
        personal.reembed(_raw(s), op_id, lambda xs: c.encoder.encode(xs))
        op = s.get(ForgetOp, op_id)
        op.state = "hidden"
        s.add(op)
    _refresh_caches(c, sc)


def _refresh_caches(c: Container, sc: Scope | None = None) -> None:
    """In-memory state that mirrors the stores: entity names, the memory index, the episode BM25,
    the sensory buffer, the cohort registry."""
    c.names.invalidate()
    svc = _memory(c)
    svc.mem.reload()
    svc._lexicon = None
    svc.sensory.clear()  # raw text of the last minute: it may name what was forgotten
    svc_p = getattr(c, "_personal_service", None)
    if svc_p is not None and getattr(svc_p.ledger, "cohorts", None) is not None:
        svc_p.ledger.cohorts.invalidate()


def forget(c: Container, target, purge: bool = False, mentions: str = "redact") -> ForgetReport:
    """Forget ``target`` in every store: hidden at once, restorable for ``settings.forget_recovery_days``
    (seed 001: 30 days), or erased from every file now (``purge=True``).

    Args:
        target: a :class:`Target`, or an entity id or name.
        purge: also :func:`purge` it at once (cannot be undone).
        mentions: ``"redact"`` or ``"remove"`` (see :func:`plan_forget`).

    Returns:
        :class:`ForgetReport`: its ``counts`` equal :func:`plan_forget`'s for the same target.

    Raises:
        NotFound / Ambiguous: no such target; ValueError: the owner, a bad range or ``mentions``.
    """
    t = resolve_target(c, target)
    op_id = c.writer.run(_hide_on_writer, c, t, mentions, purge)
    label = _report(c, op_id).label  # the purge clears it from the data folder; the caller may still show it
    purged = purge_ops(c, [op_id]) if purge else None
    rep = _report(c, op_id)
    rep.purged, rep.label = purged, label
    return rep


def _report(c: Container, op_id: int) -> ForgetReport:
    with c.db.session() as s:
        op = s.get(ForgetOp, op_id)
        if op is None:
            raise NotFound(f"no forget #{op_id} (see `kith forgotten`)")
        ent = op.plan.get("scope", {}).get("target", {}).get("ref") if op.target_kind == "entity" else None
        return ForgetReport(op.id, op.label, op.state, {k: v for k, v in op.counts.items() if k != "purged"},
                            clock.ensure_utc(op.expires_at), op.counts.get("purged"),
                            int(ent) if ent is not None else None)


# ---- restore ----------------------------------------------------------------------------------------

def _restore_on_writer(c: Container, op_id: int) -> None:
    import sqlite3

    from sqlalchemy.exc import IntegrityError

    svc = _memory(c)
    try:
        _restore_rows(c, svc, op_id)
    except (sqlite3.IntegrityError, IntegrityError) as exc:  # the session rolled the restore back: nothing changed
        raise ValueError(f"forget #{op_id} cannot be restored: what it hid points at something erased since "
                         f"(a purge of the same person, or of what it was linked to); it stays forgotten — "
                         f"`kith purge {op_id}` erases it for good") from exc
    _finish_restore(c, op_id)


def _restore_rows(c: Container, svc, op_id: int) -> None:
    """The row part of :func:`restore` (one transaction; raises as ``put_back`` does)."""
    from core.graph import forget as graph
    from core.memory import forget as memory
    from core.personal import forget as personal
    from core.store import conversations, search
    from core.store.forgetting import put_back
    from core.store.schema import AuditEvent

    with c.db.session() as s:
        op = s.get(ForgetOp, op_id)
        if op is None:
            raise NotFound(f"no forget #{op_id} (see `kith forgotten`)")
        if op.state == "hiding":
            _finish_hide(c, op_id)
            s.refresh(op)
        if op.state not in ("hidden", "restoring"):
            raise ValueError(f"forget #{op_id} is {op.state}; only a hidden forget can be restored")
        if op.state == "hidden" and clock.ensure_utc(op.expires_at) <= clock.now():
            raise ValueError(f"forget #{op_id} expired on {clock.ensure_utc(op.expires_at).date().isoformat()}; "
                             "it can no longer be restored")
        if op.state == "hidden":
            sc = Scope.from_json(op.plan["scope"])
            conn = _raw(s)
            put_back(conn, op_id, "summaries", on_conflict="OR REPLACE")
            conversations.restore(conn, op_id)
            personal.restore(conn, op_id)
            with svc._lock:
                new_rows = memory.restore(s, op_id, sc)
            search.forget_restore(conn, op_id)
            graph.restore(conn, op_id)
            op.plan = {**op.plan, "restore_rows": new_rows}
            op.state = "restoring"
            s.add(op)
            s.add(AuditEvent(action="restore", target=f"forget:{op_id}", detail={"fingerprint": op.fingerprint}))


def _finish_restore(c: Container, op_id: int) -> None:
    from core.memory import forget as memory
    from core.store import vectors

    svc = _memory(c)
    with c.db.session() as s:
        op = s.get(ForgetOp, op_id)
        vectors.forget_restore(c.vectors, _raw(s), op_id)
        sc = Scope.from_json(op.plan["scope"])
        rows = op.plan.get("restore_rows", [])
    with svc._lock:
        memory.invalidate_unused(svc.mem, rows)
    with c.db.session() as s:
        op = s.get(ForgetOp, op_id)
        drop_stash(_raw(s), op_id)
        op.state = "restored"
        op.restored_at = clock.now()
        s.add(op)
    _refresh_caches(c, None)
    del sc


def restore(c: Container, forget_id: int) -> ForgetReport:
    """Undo forget ``forget_id`` within its recovery window: every row, fact, vector, signature and summary
    comes back exactly as it was.

    Raises:
        NotFound: no such forget.  ValueError: it was purged, restored already, or its window has passed.
    """
    c.writer.run(_restore_on_writer, c, int(forget_id))
    return _report(c, int(forget_id))


# ---- purge --------------------------------------------------------------------------------------------

def _purge_rows_on_writer(c: Container, op_ids: list[int]) -> dict[int, dict]:
    from core.graph import forget as graph
    from core.memory import forget as memory
    from core.store.schema import AuditEvent

    out = {}
    for op_id in op_ids:
        with c.db.session() as s:
            op = s.get(ForgetOp, op_id)
            if op is None:
                raise NotFound(f"no forget #{op_id} (see `kith forgotten`)")
            state = op.state
        if state == "hiding":
            _finish_hide(c, op_id)
        elif state == "restoring":
            _finish_restore(c, op_id)
            continue
        with c.db.session() as s:
            op = s.get(ForgetOp, op_id)
            if op.state in ("restored", "purged", "purging"):
                continue
            sc = Scope.from_json(op.plan["scope"])
            conn = _raw(s)
            n = {"memory": memory.purge(conn, op_id, sc, op.plan.get("memory", {})),
                 "graph": graph.purge(conn, sc, op_id, remember=op.target_kind != "source"), "stash": drop_stash(conn, op_id),
                 "inbox_files": _delete_inbox_files(c, op.plan.get("inbox") or [])}
            op.counts = {**op.counts, "purged": n}
            op.label = f"{op.target_kind} #{op_id}"
            op.plan = {}
            op.state = "purging"
            s.add(op)
            _scrub_restored(s, sc)
            s.add(AuditEvent(action="purge", target=f"forget:{op_id}", detail={"fingerprint": op.fingerprint,
                                                                                 "counts": n}))
            out[op_id] = n
    return out


_SCOPE_IDS = ("entities", "orphans", "records", "facts", "sources", "quarantine")


def _scrub_restored(s, sc: Scope) -> int:
    """Earlier forgets of what a purge erases that were restored (forget, *Restore*, then forget for good) keep
    their label ("Mark Overmeer (person)") and plan (the file's path, the ids): they become ``KIND #ID`` with
    an empty plan, as the purged forget itself.  Returns forgets scrubbed."""
    gone = {k: set(getattr(sc, k) or []) for k in _SCOPE_IDS}
    target = (sc.target or {}).get("kind"), (sc.target or {}).get("ref")
    n = 0
    for old in s.exec(select(ForgetOp).where(ForgetOp.state == "restored")).all():
        prev = (old.plan or {}).get("scope") or {}
        same = ((prev.get("target") or {}).get("kind"), (prev.get("target") or {}).get("ref")) == target
        if same or any(gone[k] & set(prev.get(k) or []) for k in _SCOPE_IDS):
            old.label = f"{old.target_kind} #{old.id}"
            old.plan = {}
            s.add(old)
            n += 1
    return n


def _vacuum(c: Container) -> None:
    """FTS5 optimize, ``VACUUM`` and a truncating WAL checkpoint of the Kith database, so deleted text
    leaves no free page, no old FTS5 segment and no WAL frame behind."""
    import time

    from core.store import search

    if c.db.server:  # PostgreSQL: VACUUM FULL rewrites each table without its dead rows (and their text)
        from core.store.dialect import connect_pg

        pg = connect_pg(c.db.url)
        try:
            pg.execute("VACUUM FULL")
        finally:
            pg.close()
        return
    raw = c.db.engine.raw_connection()
    try:
        conn = raw.driver_connection
        old = conn.isolation_level
        conn.isolation_level = None  # autocommit: VACUUM cannot run inside a transaction
        try:
            search.optimize(conn)
            conn.execute("VACUUM")
            for _ in range(50):
                busy, _log, _done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                if not busy:
                    break
                time.sleep(0.1)
            else:
                raise StoreError(f"{c.db.path}: the write-ahead log is in use; close other Kith windows and "
                                 "run `kith purge --expired` again")
        finally:
            conn.isolation_level = old
    finally:
        raw.close()


def _finish_purge_on_writer(c: Container) -> dict:
    """The byte-level part of every purge in progress: signature compaction, Chroma rebuild, VACUUMs."""
    from core.memory import forget as memory
    from core.store.collections import FACTS, RECORDS

    svc = _memory(c)
    with c.db.session() as s:
        ops = list(s.exec(select(ForgetOp).where(ForgetOp.state == "purging")).all())
    if not ops:
        return {}
    with svc._lock:
        dropped = memory.compact(svc.mem)
    kept = {name: c.vectors.rebuild(name) for name in (RECORDS, FACTS)}
    # Close the client first: an index of a deleted collection still in its memory can be written back to
    # disk when the client lets it go (seen, rarely: a purged vector back in a recreated segment folder).
    c.vectors.close()
    # from now on, in this process (whose heap held the purged words), Chroma's index buffers are zero-filled pages:
    # the next client's first query writes its whole buffer to disk, after the scrub below
    from core.store.vectors import zeroed_large_allocations

    zeroed_large_allocations()
    segments = c.vectors.drop_orphan_segments()
    c.vectors.scrub_index_files()  # what the HNSW files hold but never read (heap leftovers of this process)
    c.vectors.vacuum()
    _vacuum(c)  # before the ops are marked done: a crash here leaves them "purging", so resume_pending vacuums again
    with c.db.session() as s:
        for op in s.exec(select(ForgetOp).where(ForgetOp.state == "purging")).all():
            op.state = "purged"
            op.purged_at = clock.now()
            s.add(op)
    with c.db.engine.connect() as conn:  # that last write (counts only) out of the WAL as well
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    _refresh_caches(c, None)
    return {"signature_rows_dropped": dropped, "vectors_kept": kept, "chroma_segments_removed": segments}


def purge_ops(c: Container, op_ids: Iterable[int]) -> dict:
    """Erase forgets ``op_ids`` from every file (hide them first if a crash left one half-hidden).

    Returns ``{"forgets": {id: rows deleted per store}, "files": {signature rows dropped, vectors kept,
    Chroma segments removed}}``.

    Raises:
        NotFound: an id is no forget.
    """
    ids = sorted({int(i) for i in op_ids} | set(same_person_forgets(c, op_ids)))
    rows = c.writer.run(_purge_rows_on_writer, c, ids)
    files = c.writer.run(_finish_purge_on_writer, c)
    return {"forgets": rows, "files": files}


def same_person_forgets(c: Container, op_ids: Iterable[int]) -> list[int]:
    """The other forgets still restorable (hidden, or half-hidden) of a person that one of entity forgets ``op_ids``
    forgot: those whose entities share an e-mail address, phone number, handle or contact card with theirs — the
    "forgotten again" forgets of what a later import brought of them (:func:`forget_late_arrivals`), and those
    forgets' own, transitively.  A purge of the person erases them too.

    Returns:
        Their ids, ascending (none of ``op_ids``).
    """
    from core.store.schema import Alias

    want = {int(i) for i in op_ids}
    with c.db.session() as s:
        ops = {op.id: op for op in s.exec(select(ForgetOp).where(ForgetOp.target_kind == "entity")).all()}

        def keys(op) -> set[tuple[str, str]]:
            ents = [int(e) for e in (Scope.from_json(op.plan["scope"]).entities if (op.plan or {}).get("scope") else [])]
            if not ents:
                return set()
            return {(k, n) for k, n in s.exec(select(Alias.kind, Alias.normalized).where(Alias.entity_id.in_(ents)))
                    if k in _IDENTIFIERS and n}
        open_ = {i: keys(op) for i, op in ops.items() if op.state in ("hidden", "hiding") and i not in want}
        seen: set[tuple[str, str]] = set()
        for i in want:
            if i in ops and ops[i].state in ("hidden", "hiding"):
                seen |= keys(ops[i])
        out: set[int] = set()
        grew = True
        while grew and seen:
            grew = False
            for i, k in open_.items():
                if i not in out and k & seen:
                    out.add(i)
                    seen |= k
                    grew = True
    return sorted(out)


def purge(c: Container, forget_id: int) -> ForgetReport:
    """Erase forget ``forget_id`` now (no more restore): rows, stash, signature rows, Chroma vectors,
    free pages.  Raises NotFound; ValueError when it was restored."""
    with c.db.session() as s:
        op = s.get(ForgetOp, int(forget_id))
        if op is None:
            raise NotFound(f"no forget #{forget_id} (see `kith forgotten`)")
        if op.state == "restored":
            raise ValueError(f"forget #{forget_id} was restored; forget it again to erase it")
    res = purge_ops(c, [int(forget_id)])
    rep = _report(c, int(forget_id))
    rep.purged = res
    return rep


def purge_expired(c: Container, now: datetime | None = None) -> dict:
    """Purge every hidden forget whose recovery window has passed (the window runs this at start-up,
    off the UI thread; ``kith purge --expired`` on demand).  Returns :func:`purge_ops`'s dict (empty
    ``forgets`` when nothing expired)."""
    now = clock.ensure_utc(now) or clock.now()
    with c.db.session() as s:
        due = [op.id for op in s.exec(select(ForgetOp).where(ForgetOp.state.in_(("hidden", "hiding")))).all()
               if clock.ensure_utc(op.expires_at) <= now]
    if not due:
        return {"forgets": {}, "files": {}}
    return purge_ops(c, due)


def list_forgotten(c: Container, include_done: bool = False) -> list[ForgottenItem]:
    """Forgets still restorable (and, with ``include_done``, restored and purged ones), newest first."""
    with c.db.session() as s:
        q = select(ForgetOp).order_by(ForgetOp.id.desc())
        if not include_done:
            q = q.where(ForgetOp.state.in_(("hiding", "hidden")))
        return [ForgottenItem(op.id, op.label, op.target_kind, op.state, clock.ensure_utc(op.created_at),
                              clock.ensure_utc(op.expires_at), {k: v for k, v in op.counts.items() if k != "purged"})
                for op in s.exec(q).all()]


def resume_pending(c: Container) -> list[int]:
    """Finish every forget a crash interrupted: a hide whose derived indexes were not done, a restore,
    a purge whose files were not compacted/rebuilt/vacuumed, a ``forget(..., purge=True)`` killed before its
    purge (it is purged now, as asked: :func:`unfinished`); and a half-done Chroma rebuild.
    ``kith doctor`` and start-up call it (cheap when nothing is pending: one query).  Returns the forget
    ids it completed."""
    from core.memory.forget import finish_compaction

    def compaction():
        svc = _memory(c)
        with svc._lock:
            return finish_compaction(svc.mem)
    folder = c.settings.home / "memory"
    if any((folder / f).exists() for f in ("signatures.dat.compact", "gists.dat.compact")):
        c.writer.run(compaction)  # a signature compaction a crash cut short
    ops = unfinished(c)
    done = []
    for op_id, state, purge in ops:
        if state == "hiding":
            c.writer.run(_finish_hide, c, op_id)
        elif state == "restoring":
            c.writer.run(_finish_restore, c, op_id)
        done.append(op_id)
    erase = [op_id for op_id, state, purge in ops if purge and state in ("hiding", "hidden")]
    if erase:  # `forget --purge` killed before its purge: erase as asked (this also finishes any purge in progress)
        purge_ops(c, erase)
    elif any(st == "purging" for _, st, _p in ops):  # (its Chroma rebuild finishes a half-done one: NAME-rebuild)
        c.writer.run(_finish_purge_on_writer, c)
    return done


def unfinished(c: Container) -> list[tuple[int, str, bool]]:
    """Forgets a crash left unfinished, oldest first: a hide, restore or purge in progress, and a hide made for
    ``forget(..., purge=True)`` whose purge never ran (the erasure the user asked for is still owed).

    Returns:
        ``(forget id, state, purge asked)`` triples; read-only.
    """
    with c.db.session() as s:
        return [(op.id, op.state, bool((op.plan or {}).get("purge"))) for op in s.exec(
            select(ForgetOp).where(ForgetOp.state.in_(("hiding", "restoring", "purging", "hidden")))
            .order_by(ForgetOp.id)).all()
            if op.state != "hidden" or (op.plan or {}).get("purge")]


# ---- forgets made while an import ran ----------------------------------------------------------------

_IDENTIFIERS = ("email", "phone", "handle", "contact")


def forget_late_arrivals(c: Container, since: datetime, first_new_entity: int) -> list[ForgetReport]:
    """Forget again whom a forget hid: a person forgotten (by another process, between the import's batches) at or
    after ``since`` (UTC, the import's start) comes back through the import's later batches as a new entity with
    the same address — and so does a person forgotten earlier, still hidden (restorable), whose address writes
    again in a file imported now (next month's mail export).  Each entity the import made (id ≥
    ``first_new_entity``) that shares an email address, phone number, handle or contact card with an entity such
    a forget hid — or, for a person known by name only (a chat sender) forgotten while the import ran, the same
    full name of two words or more — is forgotten too: a forget of its own, with the first forget's choices (``mentions``, ``purge``),
    labelled as arrived during the import.  A forget already purged keeps no address to match (the purge
    erased them): nothing is done for it, and the caller says so.

    Returns:
        The forgets made, in order.
    """
    from core.graph.entities import normalize_name
    from core.store.schema import Alias, Entity

    with c.db.session() as s:
        ops = s.exec(select(ForgetOp).where(
            (ForgetOp.created_at >= since) | (ForgetOp.state == "hidden"), ForgetOp.target_kind == "entity",
            ForgetOp.restored_at.is_(None), ForgetOp.purged_at.is_(None))).all()
        plans = [(op.mentions, bool((op.plan or {}).get("purge")), Scope.from_json(op.plan["scope"]).entities,
                  clock.ensure_utc(op.created_at) >= clock.ensure_utc(since))
                 for op in ops if (op.plan or {}).get("scope")]
        plans = [(mentions, purge, [int(e) for e in ents], during) for mentions, purge, ents, during in plans if ents]
        if not plans:
            return []
        made = s.exec(select(Alias.entity_id, Alias.kind, Alias.normalized).join(Entity, Entity.id == Alias.entity_id)
                      .where(Entity.tombstoned_at.is_(None), Entity.is_owner.is_(False),
                             Entity.id >= int(first_new_entity))).all()  # the import's new entities' aliases
        hidden = [s.exec(select(Alias.kind, Alias.normalized).where(Alias.entity_id.in_(ents))).all()
                  for _m, _p, ents, _d in plans]
    found: dict[int, tuple[str, bool]] = {}
    for (mentions, purge, _ents, during), keys in zip(plans, hidden):
        ids = {(k, n) for k, n in keys if k in _IDENTIFIERS and n}
        # a name alone joins only what this import brought back of a person forgotten while it ran: an earlier
        # forget's name is someone else's too (another John Smith at another address is not forgotten)
        names = {normalize_name(n) for k, n in keys if k == "name" and n and len(n.split()) >= 2} if during else set()
        for eid, kind, norm in made:
            if (kind, norm) in ids or (kind == "name" and norm and normalize_name(norm) in names):
                found.setdefault(int(eid), (mentions, purge))
    out = []
    for eid, (mentions, purge) in sorted(found.items()):
        try:
            out.append(forget(c, Target.entity(eid), purge=purge, mentions=mentions))
        except NotFound:  # merged or forgotten meanwhile
            continue
    return out


def purged_during(c: Container, since: datetime) -> int:
    """How many entity forgets made at or after ``since`` were already purged (their addresses erased, so
    :func:`forget_late_arrivals` cannot match what arrived after them)."""
    with c.db.session() as s:
        return len(s.exec(select(ForgetOp.id).where(ForgetOp.created_at >= since, ForgetOp.target_kind == "entity",
                                                    ForgetOp.purged_at.is_not(None))).all())

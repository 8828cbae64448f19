"""The cognitive memory's part of a forget: seed 001's unlearn loop, restorable, then purged to the byte.

Hide (:func:`apply`, one SQLite transaction with the other stores):

* the forgotten episodes are tombstoned (recall's index marks them dead on reload);
* episodes that only *mention* a forgotten entity keep their place with the mention redacted; their
  concept postings and triples go now and are rebuilt from the redacted text, with new HDC
  signatures, by :func:`reindex` (after the commit: it appends to the signature files);
* semantic atoms that lose evidence below seed 001's 3 episodes, or whose triple names a forgotten
  entity, are tombstoned and the beliefs built on them withdrawn; the other atoms they touched are
  recomputed (evidence count, confidence ``mean member confidence × (1 − 2^−(N−1))`` as in
  consolidation, statement from a remaining member, signature = bundle of the remaining members in
  :func:`reindex`), their beliefs with them;
* concepts named after a forgotten entity are withdrawn; learning-log entries and attention traces
  that name one (or list a forgotten episode) are rewritten to counts and a SHA-256 prefix;
  procedures that name one are tombstoned, goals, execution notes and belief revisions redacted;
* the self-vector has ``α·bundle(forgotten signatures)`` subtracted (seed 001, α = 0.05) and a
  snapshot appended; one ``unlearned`` learning event keeps the counts.

Every original value goes to the stash first, so :func:`restore` writes it all back.  :func:`purge`
deletes the tombstoned rows; :func:`compact` then drops every signature row no episode points to
(the forgotten episodes' and the redacted episodes' old rows), crash-safely.
"""
from __future__ import annotations

from core.store import dialect

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sqlmodel import select

from core import hdc
from core.extraction import extract, normalize_label
from core.memory.consolidation import MIN_CLUSTER
from core.memory.episodes import MAX_TERMS, EpisodicMemory, entity_key, structured_signature, term_key
from core.store.forgetting import (chunks, decode, marks, now_text, put_back, stash_rows, stash_rows_by_ids,
                                   stash_values, stashed, _insert_stash)

STORE = "memory"

COVERS = {
    "episode": "*", "episodetriple": "*", "conceptposting": "*", "atomevidence": "*",  # removed or redacted
    "concept": "*",                                      # named after a forgotten entity: withdrawn, deleted
    "semanticatom": "*", "belief": "*", "beliefrevision": "*",  # withdrawn/recomputed; revisions redacted
    "learningevent": "*", "attentiontrace": "*",         # rewritten to counts and a hash
    "procedure": "*", "executiontrace": "*", "goal": "*",  # tombstoned or redacted
    "selfvectorsnapshot": "*",                           # corrected by subtraction (bits only, no text)
    "tombstone": "*",                                    # unlearn's marks of purged episodes deleted
    # the episode lexicon (core/retrieval/lexicon.py): a forgotten turn's rows go at once and its words leave
    # its neighbours' context windows; a redacted turn is re-indexed from its redacted text; senders left
    # with no turn leave the speaker table; purge merges the FTS5 segments (optimize)
    "lexdoc": "*", "lex_speaker": "*", "lex_stats": "*", "episode_lex": "*", "episode_lex_data": "*",
    "episode_lex_idx": "*", "episode_lex_content": "*", "episode_lex_docsize": "*", "episode_lex_config": "*",
    "episode_lex_vocab": "*",  # a view of episode_lex's terms (fts5vocab): nothing of its own
}
"""Tables (``"*"`` = every text column) this store's plan covers (the schema-walking test)."""


def _sha(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()[:16]


def _shape(value):
    """Counts in place of content: a list → its length, a dict → its keys' shapes, anything else → 1."""
    if isinstance(value, list):
        return len(value)
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    return 1


def _loads(v):
    try:
        return json.loads(v) if isinstance(v, str) else (v or {})
    except ValueError:
        return {}


@dataclass
class Selection:
    """What :func:`apply` changes (ids and new values), computed without changing anything."""

    episodes: list[int] = field(default_factory=list)
    signature_rows: int = 0
    redact: dict[int, dict] = field(default_factory=dict)          # episode id → {col: new value}
    atoms_withdraw: dict[int, int] = field(default_factory=dict)   # atom id → evidence lost
    atoms_recompute: dict[int, dict] = field(default_factory=dict)  # atom id → new values
    beliefs_withdraw: list[int] = field(default_factory=list)
    beliefs_update: dict[int, dict] = field(default_factory=dict)
    concepts: list[int] = field(default_factory=list)
    events: dict[int, dict] = field(default_factory=dict)
    traces: dict[int, dict] = field(default_factory=dict)
    procedures: list[int] = field(default_factory=list)
    exec_traces: dict[int, dict] = field(default_factory=dict)
    goals: dict[int, dict] = field(default_factory=dict)
    revisions: dict[int, dict] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        return {"episodes": len(self.episodes), "signatures": self.signature_rows,
                "episodes_redacted": len(self.redact), "atoms_withdrawn": len(self.atoms_withdraw),
                "atoms_recomputed": len(self.atoms_recompute), "beliefs_withdrawn": len(self.beliefs_withdraw),
                "beliefs_recomputed": len(self.beliefs_update), "concepts": len(self.concepts),
                "learning_events_rewritten": len(self.events), "attention_traces_rewritten": len(self.traces),
                "procedures": len(self.procedures), "execution_traces_redacted": len(self.exec_traces),
                "goals_redacted": len(self.goals), "belief_revisions_redacted": len(self.revisions),
                "self_vector_snapshots": 1 if self.signature_rows else 0}


def _mention_rows(conn, red, tbl: str, cols: list[str], extra: str = "", json_cols=()) -> list[tuple]:
    from core.graph.forget import mentioning

    return mentioning(conn, tbl, cols, red, extra=extra, loose=True, json_cols=json_cols) if red is not None else []


def select_rows(conn, sc, red) -> Selection:
    """What a forget of scope ``sc`` changes in the memory's tables (``conn``: ``sqlite3``)."""
    from core.graph.forget import redacted_values

    sel = Selection(episodes=list(sc.episodes))
    eps = set(sc.episodes)
    for p in chunks(sc.episodes):
        sel.signature_rows += conn.execute(f"SELECT count(*) FROM episode WHERE id IN ({marks(len(p))}) "
                                           "AND signature_row IS NOT NULL", p).fetchone()[0]
    # episodes kept with the mention redacted
    texts: dict[int, str] = {}
    for eid in sc.redact_episodes:
        row = conn.execute("SELECT text, session, provenance, record_id FROM episode WHERE id = ?", (eid,)).fetchone()
        if row is None:
            continue
        # as its record is redacted (a first name shared with another live person only where it can be them)
        here = red.for_record(row[3], row[0]) if red is not None else None
        new = (redacted_values(here, ["text", "session", "provenance"], row[:3], loose_cols=("session", "provenance"))
               if here is not None else {})
        sel.redact[eid] = new
        texts[eid] = new.get("text", row[0])
    touched_eps = eps | set(sel.redact)
    # atoms and beliefs
    atom_ids: set[int] = set()
    for p in chunks(sorted(touched_eps)):
        atom_ids |= {a for (a,) in conn.execute(f"SELECT DISTINCT atom_id FROM atomevidence WHERE episode_id IN "
                                                 f"({marks(len(p))})", p)}
    atom_ids |= {r[0] for r in _mention_rows(conn, red, "semanticatom", ["subject", "object", "statement"])}
    for aid in sorted(atom_ids):
        a = conn.execute("SELECT subject, predicate, object, statement, evidence_count, tombstoned_at FROM semanticatom "
                         "WHERE id = ?", (aid,)).fetchone()
        if a is None or a[5] is not None:
            continue
        members = [(e, t, c, tomb) for e, t, c, tomb in conn.execute(
            "SELECT e.id, e.text, e.confidence, e.tombstoned_at FROM atomevidence ae JOIN episode e ON e.id = ae.episode_id "
            "WHERE ae.atom_id = ? ORDER BY e.id", (aid,))]
        lost = sum(1 for e, *_ in members if e in eps)
        left = [(e, texts.get(e, t), c) for e, t, c, tomb in members if e not in eps and tomb is None]
        n_new = int(a[4]) - lost
        names = red is not None and any(red.mentions(x, loose=True) for x in (a[0], a[2]) if x)
        if n_new < MIN_CLUSTER or not left or names:
            sel.atoms_withdraw[aid] = lost
            continue
        old_texts = {t for e, t, c, tomb in members if e in touched_eps}
        statement = a[3]
        if statement in old_texts or (red is not None and red.mentions(statement)):
            statement = left[0][1]
        conf = float(np.mean([c for _, _, c in left])) * (1 - 0.5 ** (n_new - 1))
        sel.atoms_recompute[aid] = {"evidence_count": n_new, "confidence": conf, "statement": statement}
    gone = set(sel.atoms_withdraw)
    for bid, atom_id, subj, obj, stmt in conn.execute(
            "SELECT id, atom_id, subject, object, statement FROM belief WHERE withdrawn_at IS NULL").fetchall():
        if atom_id in gone or (red is not None and any(red.mentions(x, loose=True) for x in (subj, obj, stmt) if x)):
            sel.beliefs_withdraw.append(bid)
        elif atom_id in sel.atoms_recompute:
            new = sel.atoms_recompute[atom_id]
            sel.beliefs_update[bid] = {"evidence_count": new["evidence_count"], "confidence": new["confidence"],
                                       "statement": new["statement"]}
    # concepts named after a forgotten entity
    sel.concepts = [r[0] for r in _mention_rows(conn, red, "concept", ["key", "label"], extra="AND withdrawn_at IS NULL")]
    # learning log and attention traces
    # the log entries of a removed episode, and of one whose text is redacted: what they noted of it (the
    # entities it named, split from an address: "theodora", "quillfeather") came from the words that go
    ep_targets = {f"episode:{e}" for e in eps} | {f"episode:{e}" for e, new in sel.redact.items() if new}
    ids = {r[0] for r in _mention_rows(conn, red, "learningevent", ["target", "detail"], json_cols=("detail",))}
    for part in chunks(sorted(ep_targets)):
        ids |= {i for (i,) in conn.execute(f"SELECT id FROM learningevent WHERE target IN ({marks(len(part))})", part)}
    for eid_ in sorted(ids):
        target, detail = conn.execute("SELECT target, detail FROM learningevent WHERE id = ?", (eid_,)).fetchone()
        d = _loads(detail)
        new_target = target if not (red is not None and red.mentions(target, loose=True)) else f"redacted:{_sha(target)}"
        sel.events[eid_] = {"target": new_target, "detail": json.dumps({"redacted": True, "sha256": _sha(d),
                                                                         "counts": _shape(d)})}
    trace_ids = {r[0] for r in _mention_rows(conn, red, "attentiontrace", ["query", "detail"], json_cols=("detail",))}
    if eps:
        for tid, detail in conn.execute("SELECT id, detail FROM attentiontrace").fetchall():
            found = _loads(detail).get("matches")
            if isinstance(found, list) and any(isinstance(m, dict) and m.get("episode") in eps for m in found):
                trace_ids.add(tid)
    for tid in sorted(trace_ids):
        query, detail = conn.execute("SELECT query, detail FROM attentiontrace WHERE id = ?", (tid,)).fetchone()
        d = _loads(detail)
        found = d.get("matches")
        sel.traces[tid] = {"query": f"[forgotten query {_sha(query)}]",
                           "detail": json.dumps({"redacted": True, "sha256": _sha(d),
                                                 "matches": len(found) if isinstance(found, list) else found})}
    # procedures, execution notes, goals, belief revisions
    sel.procedures = [r[0] for r in _mention_rows(conn, red, "procedure", ["name", "description", "trigger", "steps"],
                                                  extra="AND tombstoned_at IS NULL", json_cols=("steps",))]
    for row in _mention_rows(conn, red, "executiontrace", ["notes", "steps"], json_cols=("steps",)):
        sel.exec_traces[row[0]] = redacted_values(red, ["notes", "steps"], row[1:], json_cols=("steps",))
    for row in _mention_rows(conn, red, "goal", ["title", "success_criteria"]):
        sel.goals[row[0]] = redacted_values(red, ["title", "success_criteria"], row[1:])
    for row in _mention_rows(conn, red, "beliefrevision", ["reason", "detail"], json_cols=("detail",)):
        sel.revisions[row[0]] = redacted_values(red, ["reason", "detail"], row[1:], json_cols=("detail",))
    for d in (sel.exec_traces, sel.goals, sel.revisions):
        for k in [k for k, v in d.items() if not v]:
            del d[k]
    return sel


def plan(conn, sc, red) -> dict[str, int]:
    """Counts of what :func:`apply` changes (nothing is changed)."""
    return select_rows(conn, sc, red).counts()


def apply(s, mem: EpisodicMemory, op_id: int, sc, red, at=None, selection: Selection | None = None) -> dict[str, int]:
    """Hide the scope's episodes and cascade (see the module doc) in session ``s``'s transaction.

    Args:
        s: the SQLModel session of the forget's transaction.
        mem: the episodic memory (its signature files are read for the self-vector, not written).
        op_id: the forget's id (stash owner).  sc / red: the scope and redactor.
        at: the time of the forget (UTC; default now).
        selection: :func:`select_rows`' result when the caller has it (made before other stores changed).

    Returns:
        Counts equal to :func:`plan`'s.
    """
    from core.memory import self_model
    from core.memory.events import log_event
    from core.store.memory_schema import SelfVectorSnapshot

    conn = dialect.session_raw(s)
    sel = selection if selection is not None else select_rows(conn, sc, red)
    t = now_text(at)
    n = dict.fromkeys(sel.counts(), 0)

    def upd(tbl: str, key: int, new: dict, count: str | None) -> None:
        stash_values(conn, op_id, STORE, tbl, {"id": key}, list(new))
        r = conn.execute(f"UPDATE {tbl} SET {', '.join(f'{c} = ?' for c in new)} WHERE id = ?",
                         (*new.values(), key)).rowcount
        if count:
            n[count] += r
    # self-vector first (it reads the episodes' signatures before anything moves)
    rows = []
    for p in chunks(sel.episodes):
        rows += [r for (r,) in conn.execute(f"SELECT signature_row FROM episode WHERE id IN ({marks(len(p))}) "
                                            "AND signature_row IS NOT NULL", p)]
    n["signatures"] = len(rows)
    rows = [r for r in rows if 0 <= r < len(mem.structured)]
    if rows:
        prev = s.exec(select(SelfVectorSnapshot.id).order_by(SelfVectorSnapshot.id.desc()).limit(1)).first()
        _insert_stash(conn, op_id, STORE, "self_vector", "selfvectorsnapshot", {"before": prev})
        self_model.subtract(s, mem.structured.get(rows), reason=f"forget #{op_id}")
        n["self_vector_snapshots"] = 1
    for eid in sel.episodes:
        upd("episode", eid, {"tombstoned_at": t}, "episodes")
    for eid, new in sel.redact.items():
        stash_values(conn, op_id, STORE, "episode", {"id": eid}, ["signature_row", "gist_row"])
        if new:
            upd("episode", eid, new, None)
        n["episodes_redacted"] += 1
        # postings and triples are rebuilt from the redacted text by reindex(); concept df follows
        for cid, cnt in conn.execute("SELECT concept_id, count(*) FROM conceptposting WHERE episode_id = ? "
                                     "GROUP BY concept_id", (eid,)).fetchall():
            stash_values(conn, op_id, STORE, "concept", {"id": cid}, ["df"])
            conn.execute("UPDATE concept SET df = max(0, df - ?) WHERE id = ?", (cnt, cid))
        stash_rows_by_ids(conn, op_id, STORE, "conceptposting", "episode_id", [eid])
        stash_rows_by_ids(conn, op_id, STORE, "episodetriple", "episode_id", [eid])
    for aid, lost in sel.atoms_withdraw.items():
        upd("semanticatom", aid, {"tombstoned_at": t, "evidence_count": conn.execute(
            "SELECT evidence_count - ? FROM semanticatom WHERE id = ?", (lost, aid)).fetchone()[0]}, "atoms_withdrawn")
    for aid, new in sel.atoms_recompute.items():
        stash_values(conn, op_id, STORE, "semanticatom", {"id": aid}, ["signature"])
        upd("semanticatom", aid, new, "atoms_recomputed")
    for bid in sel.beliefs_withdraw:
        upd("belief", bid, {"withdrawn_at": t}, "beliefs_withdrawn")
        conn.execute("INSERT INTO beliefrevision(belief_id, kind, old_confidence, new_confidence, reason, detail, at) "
                     "VALUES (?, 'withdrawn', NULL, NULL, ?, '{}', ?)", (bid, f"forget #{op_id}", t))
    for bid, new in sel.beliefs_update.items():
        stash_values(conn, op_id, STORE, "belief", {"id": bid}, ["signature"])
        upd("belief", bid, new, "beliefs_recomputed")
    for cid in sel.concepts:
        upd("concept", cid, {"withdrawn_at": t}, "concepts")
    for i, new in sel.events.items():
        upd("learningevent", i, new, "learning_events_rewritten")
    for i, new in sel.traces.items():
        upd("attentiontrace", i, new, "attention_traces_rewritten")
    for i in sel.procedures:
        upd("procedure", i, {"tombstoned_at": t}, "procedures")
    for i, new in sel.exec_traces.items():
        upd("executiontrace", i, new, "execution_traces_redacted")
    for i, new in sel.goals.items():
        row = conn.execute("SELECT title, success_criteria FROM goal WHERE id = ?", (i,)).fetchone()
        from core.memory.goals import goal_signature

        title, crit = new.get("title", row[0]), new.get("success_criteria", row[1])
        upd("goal", i, {**new, "signature": goal_signature(title, crit or "").tobytes()}, "goals_redacted")
    for i, new in sel.revisions.items():
        upd("beliefrevision", i, new, "belief_revisions_redacted")
    log_event(s, "unlearned", f"forget:{op_id}", reason="forget", **{k: v for k, v in n.items() if v})
    # the episode lexicon: the rows stashed as they are (restore puts them back exactly), then the forgotten
    # turns' words leave every context window and the redacted turns are re-indexed from their new text
    from core.retrieval import lexicon

    touched = sorted(set(sel.episodes) | set(sel.redact))
    stash_rows_by_ids(conn, op_id, STORE, "lexdoc", "episode_id", touched, delete=False)
    stash_values(conn, op_id, STORE, "lex_stats", {"name": "docs"}, ["value"])
    lexicon.remove(conn, sel.episodes)
    lexicon.rebuild(conn, sorted(sel.redact))
    for who in lexicon.orphan_speakers(conn):  # a forgotten sender's name leaves the speaker table
        stash_rows(conn, op_id, STORE, "lex_speaker", "speaker = ?", (who,))
    return n


# ---- derived indexes: new signatures, postings and triples for redacted episodes ---------------------

def reindex(s, mem: EpisodicMemory, op_id: int, sc, items: dict[int, tuple[str | None, np.ndarray]]) -> int:
    """Give each redacted episode signatures, concept postings and triples from its redacted text, and
    recompute the touched atoms' and beliefs' signatures (bundle of the atom's live members).

    Idempotent: an episode already moved off its stashed rows is skipped (a resumed forget).

    Args:
        s: a session (this step commits in it).
        items: episode id → (speaker name or None, ``float32 (384,)`` embedding of its gist text).

    Returns:
        Episodes given new signatures.
    """
    conn = dialect.session_raw(s)
    old_rows = {}
    for _k, tbl, data, _ in stashed(conn, op_id, STORE, kind="values", tbl="episode"):
        if "signature_row" in data["vals"]:
            old_rows[data["key"]["id"]] = decode(data["vals"]["signature_row"])
    todo = []
    for eid in sc.redact_episodes:
        cur = conn.execute("SELECT text, signature_row FROM episode WHERE id = ?", (eid,)).fetchone()
        if cur is None or eid not in items or cur[1] is None or cur[1] != old_rows.get(eid):
            continue
        todo.append((eid, cur[0]))
    done = 0
    if todo:
        parsed = []
        for eid, text in todo:
            speaker, _emb = items[eid]
            ex = extract(text, speaker=speaker)
            ents = list(dict.fromkeys(ex.entities))
            parsed.append((eid, ents, ex.terms[:MAX_TERMS], ex.triples, speaker))
        sigs = np.stack([structured_signature(e, t, tr) for _, e, t, tr, _ in parsed])
        gists = hdc.project(np.stack([np.asarray(items[eid][1], dtype=np.float32) for eid, *_ in parsed]))
        if gists.ndim == 1:
            gists = gists[None, :]
        with mem._lock:
            rows = mem.structured.append(sigs)
            grows = mem.gists.append(gists)
            if not (rows == grows).all():
                from core.errors import StoreError
                raise StoreError(f"{mem.folder}: signature files disagree on length; run compaction")
            for (eid, ents, terms, triples, speaker), r in zip(parsed, rows.tolist()):
                conn.execute("UPDATE episode SET signature_row = ?, gist_row = ? WHERE id = ?", (r, r, eid))
                keys = [entity_key(e) for e in ents] + [term_key(t) for t in terms]
                for key in dict.fromkeys(keys):
                    row = conn.execute("SELECT id, df FROM concept WHERE key = ?", (key,)).fetchone()
                    if row is None:
                        kind, label = key.split(":", 1)
                        cid = conn.execute("INSERT INTO concept(key, kind, label, df) VALUES (?,?,?,0)",
                                           (key, kind, label)).lastrowid
                        _insert_stash(conn, op_id, STORE, "created", "concept", {"id": cid})
                    else:
                        cid = row[0]
                        stash_values(conn, op_id, STORE, "concept", {"id": cid}, ["df"])
                    role = "speaker" if speaker and key == entity_key(speaker) else \
                        ("entity" if key.startswith("entity:") else "term")
                    conn.execute("INSERT OR IGNORE INTO conceptposting(concept_id, episode_id, role) VALUES (?,?,?)",
                                 (cid, eid, role))
                    conn.execute("UPDATE concept SET df = df + 1 WHERE id = ?", (cid,))
                for sub, pred, obj in triples:
                    conn.execute("INSERT INTO episodetriple(episode_id, subject, predicate, object, confidence) "
                                 "VALUES (?,?,?,?,0.6)", (eid, sub, pred, obj))
                done += 1
    # atoms and beliefs recomputed by apply(): signature = bundle of the live members' signatures
    recompute = [data["key"]["id"] for _k, _t, data, _ in stashed(conn, op_id, STORE, kind="values",
                                                                   tbl="semanticatom") if "signature" in data["vals"]]
    for aid in dict.fromkeys(recompute):
        mrows = [r for (r,) in conn.execute(
            "SELECT e.signature_row FROM atomevidence ae JOIN episode e ON e.id = ae.episode_id WHERE ae.atom_id = ? "
            "AND e.tombstoned_at IS NULL AND e.signature_row IS NOT NULL", (aid,)) if 0 <= r < len(mem.structured)]
        if not mrows:
            continue
        sig = hdc.bundle(mem.structured.get(mrows)).tobytes()
        conn.execute("UPDATE semanticatom SET signature = ? WHERE id = ?", (sig, aid))
        conn.execute("UPDATE belief SET signature = ? WHERE atom_id = ? AND withdrawn_at IS NULL", (sig, aid))
    s.commit()
    mem.reload()
    return done


# ---- restore ------------------------------------------------------------------------------------------

def restore(s, op_id: int, sc) -> list[int]:
    """Write the memory's stash back (session ``s``'s transaction); returns the signature rows the
    redacted episodes had been given, which no episode uses any more (invalidate them after the commit)."""
    from core.memory.events import log_event
    from core.store.memory_schema import SelfVectorSnapshot

    conn = dialect.session_raw(s)
    new_rows = []
    for p in chunks(sc.redact_episodes):
        new_rows += [r for (r,) in conn.execute(f"SELECT signature_row FROM episode WHERE id IN ({marks(len(p))}) "
                                                "AND signature_row IS NOT NULL", p)]
        conn.execute(f"DELETE FROM conceptposting WHERE episode_id IN ({marks(len(p))})", p)
        conn.execute(f"DELETE FROM episodetriple WHERE episode_id IN ({marks(len(p))})", p)
    from core.retrieval import lexicon

    lex_ids = sorted(set(sc.episodes) | set(sc.redact_episodes))
    lexicon.remove(conn, [e for e in lex_ids if conn.execute("SELECT 1 FROM lexdoc WHERE episode_id = ?",
                                                            (e,)).fetchone()])  # the redacted rows
    for _k, _t, data, _ in stashed(conn, op_id, STORE, kind="row", tbl="lex_speaker"):
        vals = dict(zip(data["cols"], (decode(v) for v in data["vals"])))
        conn.execute("DELETE FROM lex_speaker WHERE token = ? AND speaker = ?", (vals["token"], vals["speaker"]))
    put_back(conn, op_id, STORE)
    lexicon.rewrite(conn, lex_ids)  # the lexicon rows as they were: FTS rows of these turns and their neighbours
    for _k, _t, data, _ in stashed(conn, op_id, STORE, kind="created", tbl="concept"):
        if not conn.execute("SELECT 1 FROM conceptposting WHERE concept_id = ? LIMIT 1", (data["id"],)).fetchone():
            conn.execute("DELETE FROM concept WHERE id = ?", (data["id"],))
    for _k, _t, data, _ in stashed(conn, op_id, STORE, kind="self_vector"):
        before = s.get(SelfVectorSnapshot, data["before"]) if data.get("before") else None
        accum = np.frombuffer(before.accum, "<f4") if before is not None else np.full(hdc.DIM, 0.5, np.float32)
        from core.memory import self_model

        old_bits, _ = self_model.current(s)
        self_model._write(s, accum.astype(np.float32), old_bits, f"restore #{op_id}", 0, 0.0)
    log_event(s, "restored", f"forget:{op_id}", episodes=len(sc.episodes), redacted=len(sc.redact_episodes))
    old = set()
    for p in chunks(sc.redact_episodes):
        old |= {r for (r,) in conn.execute(f"SELECT signature_row FROM episode WHERE id IN ({marks(len(p))})", p)}
    return sorted(set(new_rows) - old)


def invalidate_unused(mem: EpisodicMemory, rows) -> int:
    """Zero signature rows ``rows`` that no episode points to (compaction drops them later)."""
    rows = sorted({int(r) for r in rows if r is not None and 0 <= int(r) < len(mem.structured)})
    if not rows:
        return 0
    raw = dialect.raw_connection(mem.db.engine)
    try:
        used = {r for (r,) in raw.execute(f"SELECT signature_row FROM episode WHERE signature_row IN ({marks(len(rows))})",
                                          rows)} if len(rows) < 900 else \
            {r for (r,) in raw.execute("SELECT signature_row FROM episode WHERE signature_row IS NOT NULL")}
    finally:
        raw.close()
    free = [r for r in rows if r not in used]
    if free:
        mem.structured.invalidate(free)
        mem.gists.invalidate(free)
    return len(free)


# ---- purge --------------------------------------------------------------------------------------------

def purge(conn, op_id: int, sc, plan_ids: dict) -> dict[str, int]:
    """Delete the hidden memory rows for good (``conn``: ``sqlite3``, the caller's transaction):
    the forgotten episodes with their postings, triples and atom evidence; the atoms, beliefs (with
    their revisions), concepts and procedures this forget withdrew; concepts left with no posting.
    Signature rows are dropped afterwards by :func:`compact`."""
    n = {"episodes": 0, "atoms": 0, "beliefs": 0, "concepts": 0, "procedures": 0}
    eps = []
    for p in chunks(sc.episodes):
        eps += [e for (e,) in conn.execute(f"SELECT id FROM episode WHERE id IN ({marks(len(p))}) "
                                           "AND tombstoned_at IS NOT NULL", p)]
    touched: set[int] = set()
    for p in chunks(eps):
        q = marks(len(p))
        touched |= {c for (c,) in conn.execute(f"SELECT DISTINCT concept_id FROM conceptposting WHERE episode_id IN ({q})", p)}
        conn.execute(f"DELETE FROM conceptposting WHERE episode_id IN ({q})", p)
        conn.execute(f"DELETE FROM episodetriple WHERE episode_id IN ({q})", p)
        conn.execute(f"DELETE FROM atomevidence WHERE episode_id IN ({q})", p)
        conn.execute(f"UPDATE episode SET superseded_by = NULL WHERE superseded_by IN ({q})", p)
        conn.execute(f"DELETE FROM tombstone WHERE target IN ({marks(len(p))})", [f"episode:{e}" for e in p])
        n["episodes"] += conn.execute(f"DELETE FROM episode WHERE id IN ({q})", p).rowcount
    # concepts the redacted episodes had postings in: reindex() rebuilt those from the redacted text, so one
    # only the forgotten name gave them (a surname from "Xavier_Quint_cv.pdf") is left with none
    touched |= {int(d["key"]["id"]) for _k, _t, d, _b in stashed(conn, op_id, STORE, kind="values", tbl="concept")}
    atoms = [a for a in plan_ids.get("atoms_withdrawn", [])
             if conn.execute("SELECT tombstoned_at IS NOT NULL FROM semanticatom WHERE id = ?", (a,)).fetchone() == (1,)]
    beliefs = set(b for b in plan_ids.get("beliefs_withdrawn", [])
                  if conn.execute("SELECT withdrawn_at IS NOT NULL FROM belief WHERE id = ?", (b,)).fetchone() == (1,))
    for p in chunks(atoms):
        beliefs |= {b for (b,) in conn.execute(f"SELECT id FROM belief WHERE atom_id IN ({marks(len(p))})", p)}
    for p in chunks(sorted(beliefs)):
        q = marks(len(p))
        conn.execute(f"UPDATE belief SET superseded_by = NULL WHERE superseded_by IN ({q})", p)
        conn.execute(f"DELETE FROM beliefrevision WHERE belief_id IN ({q})", p)
        n["beliefs"] += conn.execute(f"DELETE FROM belief WHERE id IN ({q})", p).rowcount
    for p in chunks(atoms):
        q = marks(len(p))
        conn.execute(f"UPDATE semanticatom SET superseded_by = NULL WHERE superseded_by IN ({q})", p)
        conn.execute(f"DELETE FROM atomevidence WHERE atom_id IN ({q})", p)
        conn.execute(f"DELETE FROM tombstone WHERE target IN ({marks(len(p))})", [f"atom:{a}" for a in p])
        n["atoms"] += conn.execute(f"DELETE FROM semanticatom WHERE id IN ({q})", p).rowcount
    concepts = set(c for c in plan_ids.get("concepts", [])
                   if conn.execute("SELECT withdrawn_at IS NOT NULL FROM concept WHERE id = ?", (c,)).fetchone() == (1,))
    for cid in sorted(touched - concepts):
        left = conn.execute("SELECT count(*) FROM conceptposting WHERE concept_id = ?", (cid,)).fetchone()[0]
        if left == 0:
            concepts.add(cid)
        else:
            conn.execute("UPDATE concept SET df = ? WHERE id = ?", (left, cid))
    for p in chunks(sorted(concepts)):
        q = marks(len(p))
        conn.execute(f"DELETE FROM conceptposting WHERE concept_id IN ({q})", p)
        n["concepts"] += conn.execute(f"DELETE FROM concept WHERE id IN ({q})", p).rowcount
    procs = [i for i in plan_ids.get("procedures", [])
             if conn.execute("SELECT tombstoned_at IS NOT NULL FROM procedure WHERE id = ?", (i,)).fetchone() == (1,)]
    for p in chunks(procs):
        q = marks(len(p))
        conn.execute(f"DELETE FROM executiontrace WHERE procedure_id IN ({q})", p)
        n["procedures"] += conn.execute(f"DELETE FROM procedure WHERE id IN ({q})", p).rowcount
    return n


def selection_ids(sel: Selection) -> dict:
    """The ids :func:`purge` needs later (kept on the forget's row until it is purged)."""
    return {"atoms_withdrawn": sorted(sel.atoms_withdraw), "beliefs_withdrawn": sorted(sel.beliefs_withdraw),
            "concepts": sorted(sel.concepts), "procedures": sorted(sel.procedures)}


# ---- compaction ----------------------------------------------------------------------------------------

def compact(mem: EpisodicMemory) -> int:
    """Drop every signature row no episode points to, and every invalidated row (episodes pointing at
    one lose it), from both signature files; renumber the episodes' rows; reload the index.

    Crash-safe: the compacted files are written beside the old ones first; the renumbering is
    committed together with a :class:`~core.store.memory_schema.SignatureCompaction` marker; then
    the files are swapped in and the marker removed.  :func:`finish_compaction` completes or undoes
    an interrupted run (call it on open).  Returns rows dropped."""
    from sqlalchemy import text as sql

    from core.store.memory_schema import SignatureCompaction

    finish_compaction(mem)
    with mem._lock:
        n = len(mem.structured)
        if len(mem.gists) != n:
            from core.errors import StoreError
            raise StoreError(f"{mem.folder}: signature files disagree on length ({n} vs {len(mem.gists)})")
        used = np.zeros(n, dtype=bool)
        raw = dialect.raw_connection(mem.db.engine)
        try:
            for (r,) in raw.execute("SELECT signature_row FROM episode WHERE signature_row IS NOT NULL"):
                if 0 <= r < n:
                    used[r] = True
        finally:
            raw.close()
        invalid = np.union1d(mem.structured.invalid(), mem.gists.invalid())
        invalid = invalid[(invalid >= 0) & (invalid < n)]
        dead = np.union1d(np.flatnonzero(~used), invalid).astype(np.int64)
        if not dead.size:
            return 0
        tmp_s, mapping = mem.structured.prepare_compact(dead)
        tmp_g, _ = mem.gists.prepare_compact(dead)
        keep = int((mapping >= 0).sum())
        with mem.db.session() as s:
            conn = s.connection()
            conn.execute(sql("CREATE TEMP TABLE IF NOT EXISTS _rowmap(old INTEGER PRIMARY KEY, new INTEGER)"))
            conn.execute(sql("DELETE FROM _rowmap"))
            dialect.session_raw(s).executemany(
                "INSERT INTO _rowmap(old, new) VALUES (?, ?)", [(int(o), int(v)) for o, v in enumerate(mapping.tolist())])
            # rows are unique per episode: drop the dead ones, move the rest through negative numbers, flip back
            conn.execute(sql("UPDATE episode SET signature_row = NULL, gist_row = NULL WHERE signature_row IN "
                             "(SELECT old FROM _rowmap WHERE new < 0)"))
            conn.execute(sql("UPDATE episode SET signature_row = -1 - (SELECT new FROM _rowmap WHERE old = "
                             "episode.signature_row), gist_row = -1 - (SELECT new FROM _rowmap WHERE old = "
                             "episode.signature_row) WHERE signature_row IS NOT NULL"))
            conn.execute(sql("UPDATE episode SET signature_row = -1 - signature_row, gist_row = -1 - gist_row "
                             "WHERE signature_row < 0"))
            conn.execute(sql("DROP TABLE _rowmap"))
            s.add(SignatureCompaction(rows_before=n, rows_after=keep))
            from core.memory.events import log_event
            log_event(s, "signatures_compacted", "", dropped=int(dead.size))
        _swap(mem, tmp_s, tmp_g, keep)
        mem.reload()
        return int(dead.size)


def _swap(mem: EpisodicMemory, tmp_s: Path, tmp_g: Path, keep: int) -> None:
    from sqlalchemy import text as sql

    if tmp_s.exists():
        mem.structured.commit_compact(tmp_s)
    if tmp_g.exists():
        mem.gists.commit_compact(tmp_g)
    with mem.db.session() as s:
        s.connection().execute(sql("DELETE FROM signaturecompaction"))


def finish_compaction(mem: EpisodicMemory) -> str | None:
    """Complete a compaction a crash interrupted: with its marker committed, swap in the prepared
    files; without one, delete them (the renumbering never committed).  Returns ``"finished"``,
    ``"discarded"`` or None (nothing was pending)."""
    from sqlalchemy import text as sql

    tmp_s, tmp_g = mem.structured.compact_path, mem.gists.compact_path
    with mem.db.session() as s:
        marker = s.connection().execute(sql("SELECT rows_after FROM signaturecompaction LIMIT 1")).first()
    if marker is None:
        stale = [p for p in (tmp_s, tmp_g) if p.exists()]
        for p in stale:
            p.unlink()
        return "discarded" if stale else None
    with mem._lock:
        _swap(mem, tmp_s, tmp_g, int(marker[0]))
    mem.reload()
    return "finished"

"""Episodic memory (seed 001 floor 3): episodes with bi-temporal stamps, two signatures, an inverted index.

Every episode has

* a **structured signature** — the bundle of its role-filler items: each entity bound to
  ``ROLE_ENTITY``, each content term bound to ``ROLE_TERM``, and each (s, p, o) triple as
  ``ROLE_S⊕s ⊕ ROLE_P⊕p ⊕ ROLE_O⊕o`` (Kanerva 2009; Plate's role-filler binding), kept
  in ``signatures.dat``;
* a **gist signature** — Charikar's projection of its 384-d text embedding, kept in
  ``gists.dat`` at the same row;
* postings in the concept index (``ConceptPosting``) for each entity and term.

``signature_row == gist_row`` is the episode's row in both files.  :class:`EpisodeIndex`
mirrors, per row, what recall must filter on (episode id, t_valid, t_recorded,
supersession time, alive) and the postings, in numpy arrays, so a recall touches SQLite
only to hydrate its final matches.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
from sqlalchemy import text as sql
from sqlmodel import Session, select

from core import clock, hdc
from core.errors import NotFound, StoreError
from core.extraction import extract, normalize_label
from core.memory.events import log_event
from core.store import memory_schema as ms  # noqa: F401  (registers the memory tables)
from core.store.db import Database
from core.store.memory_schema import LearningEvent
from core.store.schema import Episode
from core.store.signatures import SignatureFile

ROLE_ENTITY = hdc.hv("role:entity")
ROLE_TERM = hdc.hv("role:term")
ROLE_S = hdc.hv("role:subject")
ROLE_P = hdc.hv("role:predicate")
ROLE_O = hdc.hv("role:object")
MAX_TERMS = 24
"""Terms per episode bound into the signature and the index (long e-mails keep their first 24)."""
NEVER = np.iinfo(np.int64).max


def entity_key(label: str) -> str:
    return "entity:" + normalize_label(label)


def term_key(term: str) -> str:
    return "term:" + term


def items_for(entities: Sequence[str], terms: Sequence[str],
              triples: Sequence[tuple[str, str, str]]) -> np.ndarray:
    """The role-filler items of a structured signature: ``uint8 (m, 1024)`` (m ≥ 1)."""
    items = [hdc.bind(ROLE_ENTITY, hdc.hv(entity_key(e))) for e in entities]
    items += [hdc.bind(ROLE_TERM, hdc.hv(term_key(t))) for t in terms]
    for s, p, o in triples:
        items.append(hdc.bind_all([ROLE_S, hdc.hv(entity_key(s)), ROLE_P, hdc.hv("predicate:" + p),
                                   ROLE_O, hdc.hv("object:" + o)]))
    if not items:
        items.append(hdc.hv("kith:empty-episode"))
    return np.stack(items)


def structured_signature(entities: Sequence[str], terms: Sequence[str],
                         triples: Sequence[tuple[str, str, str]] = ()) -> np.ndarray:
    """``bundle(items_for(...))``: ``uint8 (1024,)``."""
    return hdc.bundle(items_for(entities, terms, triples))


def _ts(dt: datetime | None) -> int:
    """UTC seconds since the epoch; None → the far past (an undated episode is always valid)."""
    return int(clock.ensure_utc(dt).timestamp()) if dt is not None else -(2 ** 62)


@dataclass
class EpisodeDraft:
    """An episode to store.

    Attributes:
        text: what happened (the message text).
        embedding: ``float32 (384,)`` unit vector of ``text`` (or of a context-enriched text).
        t_valid: when it happened in the world (UTC); None when unknown.
        t_recorded: when Kith learned it (default ``clock.now()``).
        speaker: who said/wrote it (an entity label); bound as an entity.
        entities / triples: extra entity labels / (s, p, o) triples beyond what extraction finds.
        record_id, session, provenance, confidence: stored on the Episode row.
        index_text: text to extract entities and terms from (default ``text``).
        episode_id: an existing Episode row without signatures to complete instead of inserting one
            (ingest may have written the row before memory ran).
    """

    text: str
    embedding: np.ndarray
    t_valid: datetime | None = None
    t_recorded: datetime | None = None
    speaker: str | None = None
    entities: Sequence[str] = ()
    triples: Sequence[tuple[str, str, str]] = ()
    record_id: int | None = None
    session: str | None = None
    provenance: str = ""
    confidence: float = 1.0
    index_text: str | None = None
    episode_id: int | None = None


class EpisodeIndex:
    """Per-row arrays and postings mirrored from SQLite (rebuilt on open, kept current on write).

    Attributes (all numpy, indexed by signature row):
        episode: int64 episode id (-1 for an orphan row).
        t_valid, t_recorded, superseded_at: int64 UTC seconds (``NEVER`` when not superseded).
        alive: bool, False once tombstoned or invalidated.
    """

    def __init__(self):
        self.n = 0
        cap = 1024
        self.episode = np.full(cap, -1, dtype=np.int64)
        self.t_valid = np.zeros(cap, dtype=np.int64)
        self.t_recorded = np.zeros(cap, dtype=np.int64)
        self.superseded_at = np.full(cap, NEVER, dtype=np.int64)
        self.alive = np.zeros(cap, dtype=bool)
        self.row_of: dict[int, int] = {}
        self.concepts: dict[str, int] = {}  # key -> concept id
        self.df: dict[int, int] = {}
        self._post: dict[int, list[int] | np.ndarray] = {}  # additions since load (np: merged with CSR)
        self._csr: dict[int, tuple[int, int]] = {}
        self._csr_rows = np.zeros(0, dtype=np.int64)

    def _grow(self, n: int) -> None:
        cap = self.episode.shape[0]
        if n <= cap:
            return
        new = max(n, cap * 2)
        for name, fill in (("episode", -1), ("t_valid", 0), ("t_recorded", 0), ("superseded_at", NEVER),
                           ("alive", False)):
            old = getattr(self, name)
            arr = np.full(new, fill, dtype=old.dtype)
            arr[:cap] = old
            setattr(self, name, arr)

    def set_rows(self, rows: np.ndarray, episode_ids, t_valid, t_recorded, superseded_at=None, alive=None) -> None:
        rows = np.asarray(rows, dtype=np.int64)
        if not rows.size:
            return
        self._grow(int(rows.max()) + 1)
        self.n = max(self.n, int(rows.max()) + 1)
        self.episode[rows] = episode_ids
        self.t_valid[rows] = t_valid
        self.t_recorded[rows] = t_recorded
        self.superseded_at[rows] = NEVER if superseded_at is None else superseded_at
        self.alive[rows] = True if alive is None else alive
        for r, e in zip(rows.tolist(), np.broadcast_to(np.asarray(episode_ids), rows.shape).tolist()):
            self.row_of[int(e)] = r

    def load_csr(self, concept_ids: np.ndarray, rows: np.ndarray) -> None:
        """Bulk-load postings (parallel ``int64`` arrays) as one sorted CSR block."""
        order = np.lexsort((rows, concept_ids))
        c, r = concept_ids[order], rows[order]
        first = np.ones(c.size, dtype=bool)
        first[1:] = (c[1:] != c[:-1]) | (r[1:] != r[:-1])
        c, r = c[first], r[first]
        bounds = np.flatnonzero(np.r_[True, c[1:] != c[:-1], True])
        self._csr_rows = r
        self._csr = {int(c[bounds[i]]): (int(bounds[i]), int(bounds[i + 1])) for i in range(bounds.size - 1)}

    def add_postings(self, concept_id: int, rows: Iterable[int]) -> None:
        cur = self._post.get(concept_id)
        rows = list(rows)
        if cur is None:
            self._post[concept_id] = rows
        elif isinstance(cur, list):
            cur.extend(rows)
        else:  # already merged with the CSR block: keep the merged rows as the new base list
            self._post[concept_id] = cur.tolist() + rows
            self._csr.pop(concept_id, None)

    def postings(self, concept_id: int) -> np.ndarray:
        """Sorted unique signature rows of the episodes indexed under ``concept_id``: ``int64 (k,)``."""
        cur = self._post.get(concept_id)
        span = self._csr.get(concept_id)
        if cur is None:
            return self._csr_rows[span[0]:span[1]] if span else np.zeros(0, dtype=np.int64)
        if isinstance(cur, list):
            base = self._csr_rows[span[0]:span[1]] if span else np.zeros(0, dtype=np.int64)
            cur = np.unique(np.concatenate([base, np.asarray(cur, dtype=np.int64)]))
            self._post[concept_id] = cur
        return cur

    def valid_mask(self, rows: np.ndarray | None = None, as_of: datetime | None = None,
                   include_superseded: bool = False) -> np.ndarray:
        """Which rows recall may return: alive; as of ``as_of`` (UTC): ``t_valid ≤ as_of``,
        ``t_recorded ≤ as_of`` and not yet superseded then; else not superseded at all."""
        sl = slice(0, self.n) if rows is None else rows
        m = self.alive[sl].copy()
        if as_of is not None:
            t = _ts(as_of)
            m &= (self.t_valid[sl] <= t) & (self.t_recorded[sl] <= t)
            if not include_superseded:
                m &= self.superseded_at[sl] > t
        elif not include_superseded:
            m &= self.superseded_at[sl] == NEVER
        return m


class EpisodicMemory:
    """Episodes on a :class:`Database` plus the two signature files in ``folder``.

    Args:
        db: the Kith database (its metadata must include ``core.store.memory_schema``; importing
            this module does that before the tables are created).
        folder: where ``signatures.dat`` and ``gists.dat`` live (created if missing).
        durable: fsync signature appends (turn off for bulk loads).
    """

    def __init__(self, db: Database, folder: Path, durable: bool = True, sketch_bytes: int = 32):
        self.db = db
        self.folder = Path(folder)
        if getattr(db, "server", False):  # the rows live in the database; these files are this device's cache
            from core.store.signatures import ServerSignatureFile

            cache = self.folder / "server-cache"  # apart from an embedded memory's own files (kith migrate)
            self.structured = ServerSignatureFile(cache / "signatures.dat", db.engine, 0,
                                                  sketch_bytes=sketch_bytes, durable=durable)
            self.gists = ServerSignatureFile(cache / "gists.dat", db.engine, 1,
                                             sketch_bytes=sketch_bytes, durable=durable)
        else:
            self.structured = SignatureFile(self.folder / "signatures.dat", sketch_bytes=sketch_bytes, durable=durable)
            self.gists = SignatureFile(self.folder / "gists.dat", sketch_bytes=sketch_bytes, durable=durable)
        self._index: EpisodeIndex | None = None
        self._lock = threading.RLock()

    def refresh(self) -> None:
        """Re-read both signature files' lengths; :attr:`index` is rebuilt on its next use (another process
        wrote)."""
        with self._lock:
            self.structured.refresh()
            self.gists.refresh()
            self._index = None

    def align_files(self) -> int:
        """Writer only, under the folder lock: make both signature files whole and the same length.

        A crash between the two appends of :meth:`store_many` (or mid-row) leaves one file longer,
        or a torn row; those tail rows belong to no committed episode (rows are appended and fsynced
        before the episodes that cite them commit), so both files are cut to the shorter length.

        Returns:
            The common row count.

        Raises:
            StoreError: an episode cites a row beyond the shorter file (the files lost committed rows).
        """
        with self._lock:
            from core.memory.forget import finish_compaction

            finish_compaction(self)  # a compaction a crash cut short is completed (or undone) first
            n = min(self.structured.refresh(), self.gists.refresh())
            with self.db.engine.connect() as conn:
                top = conn.exec_driver_sql("SELECT max(signature_row) FROM episode").scalar()
            if top is not None and top >= n:
                raise StoreError(f"{self.folder}: episode rows reach {top} but the signature files hold {n} rows; "
                                 "run `kith doctor --repair` to re-encode the missing signatures")
            if self.structured.torn or self.gists.torn or len(self.structured) != n or len(self.gists) != n:
                self.structured.repair(n)
                self.gists.repair(n)
            return n

    @property
    def index(self) -> EpisodeIndex:
        """The in-memory index (loaded from SQLite on first use: recall's cascade, consolidation and
        writers need it; the retriever does not, so a cold ``kith ask`` never pays for it)."""
        if self._index is None:
            with self._lock:
                if self._index is None:
                    self.reload()
        return self._index

    @index.setter
    def index(self, value: EpisodeIndex) -> None:
        self._index = value

    # ---- loading -----------------------------------------------------------------------------

    def reload(self) -> None:
        """Rebuild :attr:`index` from SQLite (on open, and after compaction).

        Reads through the raw sqlite3 connection (no ORM rows): ~1 s per million postings."""
        idx = EpisodeIndex()
        from core.store import dialect
        raw = dialect.raw_connection(self.db.engine)
        try:
            cur = raw.cursor()
            rows = cur.execute(
                "SELECT e.id, e.signature_row, COALESCE(CAST(strftime('%s', e.t_valid) AS INTEGER), :far), "
                "CAST(strftime('%s', e.t_recorded) AS INTEGER), e.tombstoned_at IS NULL, "
                "COALESCE(CAST(strftime('%s', s.t_recorded) AS INTEGER), :never) "
                "FROM episode e LEFT JOIN episode s ON s.id = e.superseded_by "
                "WHERE e.signature_row IS NOT NULL", {"far": -(2 ** 62), "never": int(NEVER)}).fetchall()
            row_of_episode = np.zeros(0, dtype=np.int64)
            if rows:
                arr = np.array(rows, dtype=np.int64)
                idx.set_rows(arr[:, 1], arr[:, 0], arr[:, 2], arr[:, 3], arr[:, 5], arr[:, 4].astype(bool))
                row_of_episode = np.full(int(arr[:, 0].max()) + 1, -1, dtype=np.int64)
                row_of_episode[arr[:, 0]] = arr[:, 1]
            for cid, key, df in cur.execute("SELECT id, key, df FROM concept WHERE withdrawn_at IS NULL"):
                idx.concepts[key] = cid
                idx.df[cid] = df
            cur.execute("SELECT concept_id, episode_id FROM conceptposting")
            parts = []
            while True:
                chunk = cur.fetchmany(500_000)
                if not chunk:
                    break
                parts.append(np.array(chunk, dtype=np.int64))
            if parts and row_of_episode.size:
                post = np.concatenate(parts)
                post = post[post[:, 1] < row_of_episode.size]
                prow = row_of_episode[post[:, 1]]
                keep = prow >= 0
                idx.load_csr(post[keep, 0], prow[keep])
        finally:
            raw.close()
        with self._lock:
            self._index = idx

    # ---- writing -----------------------------------------------------------------------------

    def _concept_ids(self, conn, keys: Iterable[str]) -> dict[str, int]:
        """Concept ids of ``keys`` (``kind:label``), creating missing concepts and un-withdrawing withdrawn
        ones, in bulk on the caller's connection (inside its transaction)."""
        out: dict[str, int] = {}
        missing = []
        for k in dict.fromkeys(keys):
            cid = self.index.concepts.get(k)
            if cid is None:
                missing.append(k)
            else:
                out[k] = cid
        for i in range(0, len(missing), 500):
            part = missing[i:i + 500]
            conn.execute(sql("INSERT OR IGNORE INTO concept(key, kind, label, df) VALUES (:k, :kind, :label, 0)"),
                         [{"k": k, "kind": k.split(":", 1)[0], "label": k.split(":", 1)[1]} for k in part])
            marks = ",".join(f":k{j}" for j in range(len(part)))
            params = {f"k{j}": k for j, k in enumerate(part)}
            conn.execute(sql(f"UPDATE concept SET withdrawn_at = NULL WHERE key IN ({marks}) "
                             "AND withdrawn_at IS NOT NULL"), params)
            for cid, key, df in conn.execute(sql(f"SELECT id, key, df FROM concept WHERE key IN ({marks})"), params):
                self.index.concepts[key] = cid
                self.index.df.setdefault(cid, df)
                out[key] = cid
        return out

    def store_many(self, drafts: Sequence[EpisodeDraft], known_entities: Iterable[str] = ()) -> list[int]:
        """Store episodes in one transaction; returns their ids in order.

        For each draft: extract entities/terms/triples, build both signatures, append them
        to the signature files, write the Episode, its triples and postings, and log an
        ``episode_stored`` learning event.

        Raises:
            ValueError: an embedding is not a finite 1-d vector.  StoreError: a write failed
            (rows appended to the signature files are then invalidated).
        """
        if not drafts:
            return []
        known = list(known_entities)
        now = clock.now()
        parsed = []
        for d in drafts:
            ex = extract(d.index_text or d.text, speaker=d.speaker, known=known)
            ents = list(dict.fromkeys([normalize_label(e) for e in d.entities] + ex.entities))
            trip = list(dict.fromkeys(list(d.triples) + ex.triples))
            parsed.append((ents, ex.terms[:MAX_TERMS], trip))
        sigs = np.stack([structured_signature(e, t, tr) for e, t, tr in parsed])
        gists = hdc.project(np.stack([np.asarray(d.embedding, dtype=np.float32) for d in drafts]))
        if gists.ndim == 1:
            gists = gists[None, :]
        from core.retrieval import lexicon

        with self._lock:
            self.align_files()
            rows = self.structured.append(sigs)
            grows = self.gists.append(gists)
            if not (rows == grows).all():  # align_files made them equal; only a foreign writer could differ
                raise StoreError(f"{self.folder}: signature files disagree on length after an append")
            try:
                ids: list[int] = []
                new_posts: list[tuple[int, int]] = []
                with self.db.session() as s:
                    conn = s.connection()
                    given = [d.episode_id for d in drafts if d.episode_id is not None]
                    if given:
                        have: dict[int, object] = {}
                        for i in range(0, len(given), 500):
                            part = ",".join(str(int(e)) for e in given[i:i + 500])
                            have.update(conn.exec_driver_sql(
                                f"SELECT id, signature_row FROM episode WHERE id IN ({part})").all())
                        bad = [e for e in given if have.get(e, -1) is not None]
                        if bad:
                            raise StoreError(f"episode {bad[0]} already has signatures or does not exist")
                    ep_table = Episode.__table__
                    updates = []
                    for d, r in zip(drafts, rows.tolist()):
                        if d.episode_id is not None:
                            ids.append(int(d.episode_id))
                            updates.append({"r": r, "id": int(d.episode_id)})
                            continue
                        res = conn.execute(ep_table.insert().values(
                            record_id=d.record_id, text=d.text, t_valid=clock.ensure_utc(d.t_valid),
                            t_recorded=clock.ensure_utc(d.t_recorded) or now, session=d.session,
                            provenance=d.provenance, confidence=d.confidence, signature_row=r, gist_row=r))
                        ids.append(int(res.inserted_primary_key[0]))
                    if updates:
                        conn.execute(sql("UPDATE episode SET signature_row = :r, gist_row = :r WHERE id = :id"), updates)
                    cmap = self._concept_ids(conn, [entity_key(e) for ents, _, _ in parsed for e in ents] +
                                             [term_key(x) for _, terms_, _ in parsed for x in terms_])
                    posts, trips, events = [], [], []
                    for d, (ents, terms_, trip), r, eid in zip(drafts, parsed, rows.tolist(), ids):
                        roles = {entity_key(e): ("speaker" if d.speaker and normalize_label(d.speaker) == e
                                                 else "entity") for e in ents}
                        for key in dict.fromkeys([entity_key(e) for e in ents] + [term_key(x) for x in terms_]):
                            cid = cmap[key]
                            posts.append({"c": cid, "e": eid, "role": roles.get(key, "term")})
                            new_posts.append((cid, r))
                        trips += [{"e": eid, "s": a, "p": b, "o": o} for a, b, o in trip]
                        events.append({"kind": "episode_stored", "target": f"episode:{eid}", "at": now,
                                       "detail": {"row": r, "entities": ents[:8], "triples": [list(x) for x in trip[:4]]}})
                    if posts:
                        conn.execute(sql("INSERT OR IGNORE INTO conceptposting(concept_id, episode_id, role) "
                                         "VALUES (:c, :e, :role)"), posts)
                    if trips:
                        conn.execute(sql("INSERT INTO episodetriple(episode_id, subject, predicate, object, confidence) "
                                         "VALUES (:e, :s, :p, :o, 0.6)"), trips)
                    conn.execute(LearningEvent.__table__.insert(), events)
                    touched: dict[int, int] = {}
                    for cid, _ in new_posts:
                        touched[cid] = touched.get(cid, 0) + 1
                    if touched:
                        conn.execute(sql("UPDATE concept SET df = df + :i WHERE id = :c"),
                                     [{"i": inc, "c": cid} for cid, inc in touched.items()])
                    # the episode lexicon (core/retrieval/lexicon.py): these rows and their neighbours' only
                    lexicon.add(conn, [lexicon.Turn(i, d.session, d.t_valid, d.speaker, d.text)
                                       for i, d in zip(ids, drafts)])
            except Exception as exc:
                self.structured.invalidate(rows)
                self.gists.invalidate(rows)
                self.reload()  # concept ids handed out inside the rolled-back transaction are void
                if isinstance(exc, StoreError):
                    raise
                raise StoreError(f"cannot store episodes: {exc}") from exc
            tr = _ts(now)
            self.index.set_rows(rows, np.array(ids), [_ts(d.t_valid) for d in drafts],
                                [_ts(d.t_recorded) if d.t_recorded else tr for d in drafts])
            byc: dict[int, list[int]] = {}
            for cid, r in new_posts:
                byc.setdefault(cid, []).append(r)
            for cid, rs in byc.items():
                self.index.add_postings(cid, rs)
                self.index.df[cid] = self.index.df.get(cid, 0) + len(rs)
        return ids

    def store(self, draft: EpisodeDraft, known_entities: Iterable[str] = ()) -> int:
        """Store one episode (see :meth:`store_many`); returns its id."""
        return self.store_many([draft], known_entities)[0]

    def supersede(self, old_id: int, new_id: int) -> None:
        """Mark ``old_id`` superseded by ``new_id`` (as of ``new_id``'s t_recorded).

        Raises:
            NotFound: either episode does not exist.  ValueError: old_id == new_id.
        """
        if old_id == new_id:
            raise ValueError("an episode cannot supersede itself")
        with self.db.session() as s:
            old, new = s.get(Episode, old_id), s.get(Episode, new_id)
            if old is None or new is None:
                raise NotFound(f"episode {old_id if old is None else new_id} not found")
            old.superseded_by = new_id
            log_event(s, "episode_superseded", f"episode:{old_id}", by=new_id)
            at = new.t_recorded
        self.superseded_in_index([old_id], at)  # (an index not loaded yet reads it from SQLite)

    def superseded_in_index(self, episode_ids: Iterable[int], at: datetime) -> None:
        """Mark ``episode_ids`` superseded as of ``at`` (UTC) in the in-memory index when it is loaded (their rows
        already say so in SQLite, read by the index's next load); a writer that set ``superseded_by`` itself calls
        this.  Nothing happens for an index not loaded or an episode not in it."""
        if self._index is None:
            return
        t = _ts(at)
        for e in episode_ids:
            r = self._index.row_of.get(int(e))
            if r is not None:
                self._index.superseded_at[r] = t

    def get(self, episode_id: int) -> Episode:
        """The Episode row (datetimes UTC).  Raises NotFound."""
        with self.db.session() as s:
            ep = s.get(Episode, episode_id)
            if ep is None:
                raise NotFound(f"episode {episode_id} not found")
            return _utc(ep)

    def between(self, t0: datetime, t1: datetime, include_superseded: bool = False) -> list[Episode]:
        """Live episodes with ``t0 ≤ t_valid < t1`` (UTC), oldest first."""
        with self.db.session() as s:
            q = select(Episode).where(Episode.t_valid >= clock.ensure_utc(t0), Episode.t_valid < clock.ensure_utc(t1),
                                      Episode.tombstoned_at.is_(None))
            if not include_superseded:
                q = q.where(Episode.superseded_by.is_(None))
            return [_utc(e) for e in s.exec(q.order_by(Episode.t_valid, Episode.id)).all()]

    def as_of(self, t: datetime, limit: int | None = None) -> list[Episode]:
        """What memory held as true at ``t`` (UTC): valid and recorded by ``t`` and not yet superseded then;
        newest first."""
        mask = self.index.valid_mask(as_of=t)
        rows = np.flatnonzero(mask)
        ids = self.index.episode[rows]
        order = np.argsort(-self.index.t_valid[rows], kind="stable")
        ids = ids[order][:limit] if limit else ids[order]
        return self.hydrate(ids.tolist())

    def hydrate(self, ids: Sequence[int]) -> list[Episode]:
        """Episode rows for ``ids`` in the same order (missing ids dropped)."""
        if not ids:
            return []
        with self.db.session() as s:
            got = {e.id: e for e in s.exec(select(Episode).where(Episode.id.in_(list(ids)))).all()}
        return [_utc(got[i]) for i in ids if i in got]

    def signatures(self, ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """(structured, gist) signatures of episodes ``ids``: two ``uint8 (k, 1024)``.

        Raises:
            NotFound: an id with no signature row.
        """
        rows = []
        for i in ids:
            r = self.index.row_of.get(int(i))
            if r is None:
                raise NotFound(f"episode {i} has no signature")
            rows.append(r)
        return self.structured.get(rows), self.gists.get(rows)

    def concept_rows(self, key: str) -> np.ndarray:
        """Signature rows of the episodes indexed under concept ``key`` (``entity:…``/``term:…``)."""
        cid = self.index.concepts.get(key)
        return self.index.postings(cid) if cid is not None else np.zeros(0, dtype=np.int64)

    def close(self) -> None:
        self.structured.close()
        self.gists.close()


def _utc(ep: Episode) -> Episode:
    ep.t_valid = clock.ensure_utc(ep.t_valid)
    ep.t_recorded = clock.ensure_utc(ep.t_recorded)
    ep.tombstoned_at = clock.ensure_utc(ep.tombstoned_at)
    return ep

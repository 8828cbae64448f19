"""The tiered recall cascade (seed 001 layer 1): exact → similarity → gist → nearest.

* **A exact** — episodes indexed under *every* concept of the cue (entities and terms),
  by intersecting posting lists, rarest first.  Confidence 1.0.
* **B similarity** — candidates from the inverted index (the union of the cue concepts'
  postings, rarest concept first, at most :data:`MAX_CANDIDATES` rows), ranked by
  structured-signature similarity; kept when similarity ≥ :data:`B_MIN_SIM`
  (0.5 + 6σ, σ = 0.5/√8192 ≈ 0.0055 for unrelated HVs).  Confidence mapped linearly
  from [B_MIN_SIM, 1] onto the seed's band [0.6, 0.95].
* **C gist** — every valid row's 32-byte gist sketch is scanned (a 256-bit Charikar
  signature: 1/32 of the bytes), the best :data:`SHORTLIST` are re-ranked on full gist
  signatures; the estimated cosine ``cos(π·h/8192)`` (Charikar 2002) ≥ :data:`C_MIN_COS`
  maps onto [0.3, 0.6].
* **D nearest** — the rest of the shortlist, best first, confidence ``0.3·max(cos, 0)``
  (≤ 0.3), flagged ``low_confidence``.  D guarantees a non-empty answer whenever a valid
  episode exists.

The cascade stops as soon as ``pool`` matches are found.  Then each match's score is
``confidence × (1 + goal_bias) × (1 + working-memory boost)`` where ``goal_bias =
weight × max(0, 2·(similarity(structured signature, bundle of active goals) − 0.5))``:
the seed multiplies by ``1 + similarity × weight``; we centre the similarity on 0.5
(chance for HVs), else every match would get the same ×(1 + 0.5w) offset.
Hydration re-checks ``as_of``/supersession/tombstones on the rows, attaches provenance,
related beliefs and semantic atoms, and (``trace=True``) writes an :class:`AttentionTrace`
and a ``recall`` learning event.
"""
from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Sequence

import numpy as np

from core import clock, hdc
from core.extraction import extract, normalize_label, terms as extract_terms
from core.memory.episodes import EpisodicMemory, entity_key, items_for, structured_signature, term_key
from core.memory.events import log_event
from core.memory.working import WorkingMemory
from core.store.memory_schema import AtomEvidence, AttentionTrace, Belief, Concept, ConceptPosting, SemanticAtom
from core.store.schema import Episode

SIGMA = 0.5 / math.sqrt(hdc.DIM)
B_MIN_SIM = 0.5 + 6 * SIGMA
B_BAND = (0.6, 0.95)
C_MIN_COS = 0.35
"""MiniLM cosine below which a gist match is only "nearest" (related sentence pairs score ≳ 0.4)."""
C_BAND = (0.3, 0.6)
D_MAX = 0.3
MAX_CANDIDATES = 4096
SHORTLIST = 512
GOAL_BIAS_WEIGHT = 0.5


@dataclass
class Cue:
    """A recall cue: its text, the concepts found in it, and its two signatures (``uint8 (1024,)``)."""

    text: str
    entities: list[str]
    terms: list[str]
    triples: list[tuple[str, str, str]]
    structured: np.ndarray
    gist: np.ndarray | None
    concept_ids: list[int] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


@dataclass
class Match:
    """One recalled episode.  ``confidence`` is the tier's; ``score`` adds goal bias and recency."""

    episode_id: int
    row: int
    tier: str
    confidence: float
    similarity: float
    score: float = 0.0
    goal_bias: float = 0.0
    recency_boost: float = 0.0
    low_confidence: bool = False
    why: str = ""
    episode: Episode | None = None
    beliefs: list[Belief] = field(default_factory=list)
    atoms: list[SemanticAtom] = field(default_factory=list)


@dataclass
class Recall:
    """The answer to a recall: matches best first, the tier of the best one, the tiers run, timing (ms)."""

    matches: list[Match]
    tier_used: str
    tiers_run: list[str]
    elapsed_ms: float
    cue: Cue
    trace_id: int | None = None
    beliefs: list[Belief] = field(default_factory=list)
    semantic_atoms: list[SemanticAtom] = field(default_factory=list)


def _ngrams(text: str, n: int = 3) -> list[str]:
    words = re.findall(r"[\w'’-]+", text)
    out = []
    for size in range(n, 0, -1):
        for i in range(len(words) - size + 1):
            out.append(normalize_label(" ".join(words[i:i + size])))
    return out


def make_cue(mem: EpisodicMemory, text: str, embedding: np.ndarray | None = None,
             entities: Sequence[str] = ()) -> Cue:
    """Build a cue: entities (capitalised runs, known entity names among the text's 1–3-grams, and
    ``entities``), content terms, triples, the structured signature and (given an embedding,
    ``float (384,)``) the gist signature."""
    ex = extract(text)
    concepts = mem.index.concepts
    ents: list[str] = []
    for e in [normalize_label(x) for x in entities] + ex.entities:
        parts = [g for g in _ngrams(e)] if entity_key(e) not in concepts and " " in e else []
        known = [g for g in parts if entity_key(g) in concepts]
        for g in (known or [e]):
            if g not in ents and not any(g in x.split() for x in known if x != g and len(x) > len(g)):
                ents.append(g)
    for g in _ngrams(text):
        if g not in ents and entity_key(g) in concepts and not any(g in e.split() for e in ents):
            ents.append(g)
    terms = ex.terms
    keys = [entity_key(e) for e in ents] + [term_key(t) for t in terms]
    ids, unknown = [], []
    for k in keys:
        cid = concepts.get(k)
        (ids.append(cid) if cid is not None else unknown.append(k))
    gist = hdc.project(np.asarray(embedding, dtype=np.float32)) if embedding is not None else None
    return Cue(text, ents, terms, ex.triples, structured_signature(ents, terms, ex.triples), gist,
               list(dict.fromkeys(ids)), unknown)


def gist_ranking(mem: EpisodicMemory, gist: np.ndarray, n: int, as_of: datetime | None = None,
                 shortlist: int = SHORTLIST) -> list[tuple[int, float]]:
    """The ``n`` valid episodes nearest to ``gist`` (``uint8 (1024,)``): sketch scan of every row,
    then full-signature re-rank of the best ``shortlist``.  Returns (episode id, estimated cosine)."""
    idx = mem.index
    rows_n = idx.n
    if not rows_n:
        return []
    valid = idx.valid_mask(None, as_of)
    nvalid = int(valid.sum())
    if not nvalid:
        return []
    sk = mem.gists.sketch()
    d = hdc.hamming(gist[: sk.shape[1]], sk[:rows_n])
    d = np.where(valid, d, np.iinfo(np.int32).max)
    m = min(max(shortlist, n), nvalid)
    short = np.argpartition(d, m - 1)[:m] if m < rows_n else np.arange(rows_n)
    short = np.sort(short[valid[short]])
    cos = np.cos(np.pi * hdc.hamming(gist, mem.gists.rows()[short]) / hdc.DIM)
    order = np.argsort(-cos, kind="stable")[:n]
    return [(int(idx.episode[short[j]]), float(cos[j])) for j in order]


def _band(x: float, lo_x: float, hi_x: float, band: tuple[float, float]) -> float:
    t = 0.0 if hi_x <= lo_x else min(1.0, max(0.0, (x - lo_x) / (hi_x - lo_x)))
    return band[0] + t * (band[1] - band[0])


def recall(mem: EpisodicMemory, cue: Cue, k: int = 10, *, pool: int | None = None,
           as_of: datetime | None = None, session: str | None = None, working: WorkingMemory | None = None,
           goal_signature: np.ndarray | None = None, goal_weight: float = GOAL_BIAS_WEIGHT,
           hydrate: bool = True, trace: bool = True) -> Recall:
    """Run the cascade for ``cue``.

    Args:
        mem: the episodic memory.
        cue: from :func:`make_cue`.
        k: matches returned.
        pool: matches gathered before re-ranking (default ``max(k, 20)``); the cascade stops
            once it has this many.
        as_of: recall what memory held at this UTC time (bi-temporal filter); None = now.
        session / working: working-memory recency boost for this session.
        goal_signature: ``uint8 (1024,)`` bundle of the active goals (see ``goals.goal_bundle``).
        hydrate: load Episode rows, beliefs and atoms (off only for kernel benchmarks).
        trace: write the attention trace and learning event.

    Returns:
        :class:`Recall`.  Empty only when no episode is valid under the filters.
    """
    t0 = time.perf_counter()
    pool = max(k, pool or 20)
    idx = mem.index
    n = idx.n
    matches: list[Match] = []
    seen: set[int] = set()
    tiers_run: list[str] = []
    detail: dict = {"cue_entities": cue.entities, "cue_terms": cue.terms, "unknown_concepts": cue.unknown}

    # ---- tier A: exact ----------------------------------------------------------------------
    by_rarity = sorted(cue.concept_ids, key=lambda c: idx.df.get(c, 0))
    tiers_run.append("A")
    a_rows = np.zeros(0, dtype=np.int64)
    if by_rarity and not cue.unknown:
        a_rows = idx.postings(by_rarity[0])
        for cid in by_rarity[1:]:
            if not a_rows.size:
                break
            a_rows = np.intersect1d(a_rows, idx.postings(cid), assume_unique=True)
        a_rows = a_rows[idx.valid_mask(a_rows, as_of)] if a_rows.size else a_rows
    if a_rows.size:
        if a_rows.size > MAX_CANDIDATES:  # a bare, common cue: keep the most recent
            a_rows = a_rows[np.argsort(-idx.t_valid[a_rows], kind="stable")[:MAX_CANDIDATES]]
        sims = hdc.similarity(cue.structured, mem.structured.rows()[np.sort(a_rows)])
        a_rows = np.sort(a_rows)
        for j in np.argsort(-sims, kind="stable")[:pool]:
            r = int(a_rows[j])
            matches.append(Match(int(idx.episode[r]), r, "A", 1.0, float(sims[j]),
                                 why=f"indexed under every cue concept ({len(by_rarity)})"))
            seen.add(r)
    detail["A"] = int(a_rows.size)

    # ---- tier B: structured similarity over inverted-index candidates ------------------------
    if len(matches) < pool and by_rarity:
        tiers_run.append("B")
        parts, total = [], 0
        used = []
        for cid in by_rarity:
            p = idx.postings(cid)
            if total and total + p.size > MAX_CANDIDATES:
                break
            parts.append(p[:MAX_CANDIDATES])
            used.append(cid)
            total += min(p.size, MAX_CANDIDATES)
        cand = np.unique(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)
        if cand.size:
            cand = cand[idx.valid_mask(cand, as_of)]
            if seen:
                cand = cand[~np.isin(cand, np.fromiter(seen, dtype=np.int64))]
        detail["B"] = {"candidates": int(cand.size), "concepts_used": len(used)}
        if cand.size:
            sims = hdc.similarity(cue.structured, mem.structured.rows()[cand])
            keep = np.flatnonzero(sims >= B_MIN_SIM)
            for j in keep[np.argsort(-sims[keep], kind="stable")][: pool - len(matches)]:
                r = int(cand[j])
                s = float(sims[j])
                matches.append(Match(int(idx.episode[r]), r, "B", _band(s, B_MIN_SIM, 1.0, B_BAND), s,
                                     why=f"structured similarity {s:.3f} over {cand.size} index candidates"))
                seen.add(r)

    # ---- tiers C and D: gist sketch scan, re-rank on full gist -------------------------------
    if len(matches) < pool and n:
        tiers_run.append("C")
        use_gist = cue.gist is not None
        sig_file = mem.gists if use_gist else mem.structured
        q = cue.gist if use_gist else cue.structured
        sk = sig_file.sketch()
        valid = idx.valid_mask(None, as_of)
        if seen:
            valid[np.fromiter(seen, dtype=np.int64)] = False
        nvalid = int(valid.sum())
        if nvalid:
            d = hdc.hamming(q[: sk.shape[1]], sk[:n])
            d = np.where(valid, d, np.iinfo(np.int64).max)
            m = min(SHORTLIST, nvalid)
            short = np.argpartition(d, m - 1)[:m] if m < n else np.arange(n)
            short = np.sort(short[valid[short]])
            full = hdc.hamming(q, sig_file.rows()[short])
            cos = np.cos(np.pi * full / hdc.DIM)
            order = np.argsort(-cos, kind="stable")
            detail["C"] = {"scanned": nvalid, "shortlist": int(short.size), "signature": "gist" if use_gist
                           else "structured"}
            for j in order:
                if len(matches) >= pool:
                    break
                r, c = int(short[j]), float(cos[j])
                if c >= C_MIN_COS and use_gist:
                    matches.append(Match(int(idx.episode[r]), r, "C", _band(c, C_MIN_COS, 1.0, C_BAND), c,
                                         why=f"gist cosine ≈ {c:.2f}"))
                else:
                    if "D" not in tiers_run:
                        tiers_run.append("D")
                    matches.append(Match(int(idx.episode[r]), r, "D", D_MAX * max(c, 0.0), c, low_confidence=True,
                                         why=f"nearest by {'gist' if use_gist else 'structure'}, cosine ≈ {c:.2f}"))
                seen.add(r)

    # ---- goal bias and working-memory recency, re-rank ---------------------------------------
    if matches:
        sig_rows = mem.structured.rows()[np.array([m.row for m in matches])]
        gb = np.zeros(len(matches))
        if goal_signature is not None:
            gs = hdc.similarity(goal_signature, sig_rows)
            gb = goal_weight * np.maximum(0.0, 2.0 * (gs - 0.5))
        for m, b in zip(matches, gb):
            m.goal_bias = float(b)
            m.recency_boost = working.boost(session, m.episode_id) if working is not None else 0.0
            m.score = m.confidence * (1.0 + m.goal_bias) * (1.0 + m.recency_boost)
        matches.sort(key=lambda m: -m.score)
    matches = matches[:k]

    result = Recall(matches, matches[0].tier if matches else "", tiers_run, 0.0, cue)
    if hydrate and matches:
        _hydrate(mem, result, as_of)
    if working is not None and session is not None:
        working.touch(session, [m.episode_id for m in reversed(result.matches[:3])])
    result.elapsed_ms = (time.perf_counter() - t0) * 1000.0
    if trace:
        detail["matches"] = [{"episode": m.episode_id, "tier": m.tier, "confidence": round(m.confidence, 4),
                              "score": round(m.score, 4), "goal_bias": round(m.goal_bias, 4),
                              "recency": round(m.recency_boost, 4), "why": m.why} for m in result.matches]
        detail["tiers_run"] = tiers_run
        with mem.db.session() as s:
            tr = AttentionTrace(query=cue.text[:500], session=session, tier_used=result.tier_used,
                                elapsed_ms=round(result.elapsed_ms, 3), detail=detail)
            s.add(tr)
            s.flush()
            result.trace_id = tr.id
            log_event(s, "recall", f"trace:{tr.id}", tier=result.tier_used, matches=len(result.matches),
                      as_of=as_of.isoformat() if as_of else None)
    return result


def _dt(v) -> datetime | None:
    if v is None:
        return None
    return clock.ensure_utc(v if isinstance(v, datetime) else datetime.fromisoformat(v))


_EP_COLS = ("id", "record_id", "text", "t_valid", "t_recorded", "signature_row", "gist_row", "session",
            "provenance", "confidence", "superseded_by", "tombstoned_at")


def _hydrate(mem: EpisodicMemory, result: Recall, as_of: datetime | None) -> None:
    """Attach Episode rows, related beliefs and atoms through the raw sqlite3 connection
    (four indexed queries; the ORM's per-query overhead would dominate a 5 ms budget)."""
    ids = [m.episode_id for m in result.matches]
    marks = ",".join("?" * len(ids))
    from core.store import dialect
    raw = dialect.raw_connection(mem.db.engine)
    try:
        cur = raw.cursor()
        eps = {}
        for row in cur.execute(f"SELECT {', '.join(_EP_COLS)} FROM episode WHERE id IN ({marks})", ids):
            d = dict(zip(_EP_COLS, row))
            for c in ("t_valid", "t_recorded", "tombstoned_at"):
                d[c] = _dt(d[c])
            eps[d["id"]] = d
        t = clock.ensure_utc(as_of) if as_of else None
        kept = []
        for m in result.matches:
            e = eps.get(m.episode_id)
            if e is None or e["tombstoned_at"] is not None:
                continue
            if t is not None and ((e["t_valid"] and e["t_valid"] > t) or e["t_recorded"] > t):
                continue
            m.episode = Episode.model_construct(**e)
            kept.append(m)
        result.matches = kept
        if not kept:
            result.tier_used = ""
            return
        kid = [m.episode_id for m in kept]
        km = ",".join("?" * len(kid))
        by_ep: dict[int, set[str]] = {}
        for eid, label in cur.execute(
                f"SELECT p.episode_id, c.label FROM conceptposting p JOIN concept c ON c.id = p.concept_id "
                f"WHERE p.episode_id IN ({km}) AND c.kind = 'entity'", kid):
            by_ep.setdefault(eid, set()).add(label)
        subjects = sorted(set().union(*by_ep.values())) if by_ep else []
        beliefs: list[Belief] = []
        if subjects and cur.execute("SELECT 1 FROM belief LIMIT 1").fetchone():
            cols = [c.name for c in Belief.__table__.columns]
            q = (f"SELECT {', '.join(cols)} FROM belief WHERE subject IN ({','.join('?' * len(subjects))}) "
                 "AND superseded_by IS NULL AND withdrawn_at IS NULL")
            beliefs = [Belief.model_construct(**dict(zip(cols, r))) for r in cur.execute(q, subjects)]
        atoms_by_ep: dict[int, list[SemanticAtom]] = {}
        if cur.execute("SELECT 1 FROM atomevidence LIMIT 1").fetchone():
            cols = [c.name for c in SemanticAtom.__table__.columns]
            q = (f"SELECT ae.episode_id, {', '.join('a.' + c for c in cols)} FROM atomevidence ae "
                 f"JOIN semanticatom a ON a.id = ae.atom_id WHERE ae.episode_id IN ({km}) "
                 "AND a.tombstoned_at IS NULL AND a.archived_at IS NULL")
            for r in cur.execute(q, kid):
                atoms_by_ep.setdefault(r[0], []).append(SemanticAtom.model_construct(**dict(zip(cols, r[1:]))))
    finally:
        raw.close()
    for m in kept:
        m.beliefs = [b for b in beliefs if b.subject in by_ep.get(m.episode_id, set())]
        m.atoms = atoms_by_ep.get(m.episode_id, [])
    result.beliefs = list({b.id: b for b in beliefs}.values())
    result.semantic_atoms = list({a.id: a for m in kept for a in m.atoms}.values())
    result.tier_used = kept[0].tier

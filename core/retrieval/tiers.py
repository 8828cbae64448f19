"""Seed 001's tiers for retrieved turns: what the tiered cascade (``core/memory/recall.py``) would say of
each hit — A exact, B structured similarity, C gist, D nearest — with its confidence band, computed for
the hits alone.

The cascade's own ranking did not earn a weight in the fusion (LoCoMo dev: adding it lowered R@10), so
it no longer runs on every question; it supplies what it is for: each hit's tier and confidence.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Sequence

import numpy as np

from core import hdc
from core.extraction import extract, normalize_label
from core.memory.episodes import entity_key, term_key
from core.memory.recall import B_BAND, B_MIN_SIM, C_BAND, C_MIN_COS, D_MAX, _band, _ngrams, make_cue


def _cue_keys(question: str) -> list[str]:
    ex = extract(question)
    keys = {entity_key(g) for g in _ngrams(question)} | {entity_key(normalize_label(e)) for e in ex.entities}
    keys |= {term_key(t) for t in ex.terms}
    return sorted(keys)


def _cue_of(question: str, known: dict):
    return make_cue(SimpleNamespace(index=SimpleNamespace(concepts=known)), question, None)


CUE_KEYS_PER_LOOKUP = 500
"""Concept keys looked up per statement (a pasted page names more; :func:`cue_for` then reads in parts)."""


def cue_lookup(question: str):
    """:func:`cue_for` as a ``core.retrieval.lexicon.Lookup`` (None when the question names more than
    :data:`CUE_KEYS_PER_LOOKUP` keys: :func:`cue_for` then reads them in parts)."""
    from core.retrieval.lexicon import Lookup

    keys = _cue_keys(question)
    if len(keys) > CUE_KEYS_PER_LOOKUP:
        return None
    return Lookup(_concepts_sql(keys), tuple(keys), lambda rows: _cue_of(question, dict(rows)))


def _concepts_sql(keys: Sequence[str]) -> str:
    """The live concepts among ``keys``: ``(key, id)`` rows."""
    if not keys:
        return "SELECT key, id FROM concept WHERE false"
    return f"SELECT key, id FROM concept WHERE withdrawn_at IS NULL AND key IN ({','.join('?' * len(keys))})"


def cue_for(cur, question: str):
    """Seed 001's cue for ``question`` (``core.memory.recall.make_cue``), looking up only the concepts
    the question could name (its 1–3-grams, entities and terms) instead of loading every concept."""
    keys = _cue_keys(question)
    known = {}
    for i in range(0, len(keys), CUE_KEYS_PER_LOOKUP):
        part = keys[i:i + CUE_KEYS_PER_LOOKUP]
        known.update(dict(cur.execute(_concepts_sql(part), part).fetchall()))
    return _cue_of(question, known)


def postings_sql(cur, cue, episode_ids: Sequence[int]) -> tuple[str, list] | None:
    """The statement reading which of the cue's concepts ``episode_ids`` are indexed under (tier A), or None
    when tier A cannot apply (the cue names no concept, or one the memory does not know)."""
    if not cue.concept_ids or cue.unknown or not episode_ids:
        return None
    from core.store.dialect import in_list

    ewhere, eparams = in_list(cur, "episode_id", [int(e) for e in episode_ids])
    cwhere, cparams = in_list(cur, "concept_id", [int(c) for c in cue.concept_ids])
    return f"SELECT episode_id, concept_id FROM conceptposting WHERE {ewhere} AND {cwhere}", eparams + cparams


def classify(cur, mem, question: str, gist_q: np.ndarray, hits, rows: dict, cue=None,
             posted: tuple[set[int], list] | None = None) -> None:
    """Set ``tier``, ``confidence``, ``low_confidence`` and ``why`` on each hit (in place), with the
    cascade's thresholds and bands (``core.memory.recall``).  ``cue``: :func:`cue_for` of the question when
    the caller has it; ``posted``: (episode ids, the rows of :func:`postings_sql` for them) when the caller
    read them (the other hits' are read here)."""
    if not hits:
        return
    if cue is None:
        cue = cue_for(cur, question)
    ids = [h.episode_id for h in hits]
    covered, posted_rows = posted if posted is not None else (set(), [])
    look = postings_sql(cur, cue, [e for e in ids if e not in covered])
    if look is not None:
        posted_rows = list(posted_rows) + cur.execute(*look).fetchall()
    under: dict[int, set[int]] = {}  # episode → the cue's concepts it is indexed under
    for eid, cid in posted_rows:
        under.setdefault(eid, set()).add(cid)
    want = set(cue.concept_ids)
    sig_rows = [rows[h.episode_id]["row"] for h in hits]
    ok = [r is not None and r < len(mem.structured) for r in sig_rows]
    sims, coss = {}, {}
    if any(ok):
        good = [r for r, g in zip(sig_rows, ok) if g]
        s = np.atleast_1d(hdc.similarity(cue.structured, mem.structured.get(good)))
        c = np.cos(np.pi * np.atleast_1d(hdc.hamming(gist_q, mem.gists.get(good))) / hdc.DIM)
        j = 0
        for h, g in zip(hits, ok):
            if g:
                sims[h.episode_id], coss[h.episode_id] = float(s[j]), float(c[j])
                j += 1
    for h in hits:
        sim, cos = sims.get(h.episode_id, 0.0), coss.get(h.episode_id, 0.0)
        if want and under.get(h.episode_id, set()) >= want:
            h.tier, h.confidence, h.low_confidence = "A", 1.0, False
            h.why = f"indexed under every cue concept ({len(want)})"
        elif sim >= B_MIN_SIM:
            h.tier, h.confidence, h.low_confidence = "B", _band(sim, B_MIN_SIM, 1.0, B_BAND), False
            h.why = f"structured similarity {sim:.3f}"
        elif cos >= C_MIN_COS:
            h.tier, h.confidence, h.low_confidence = "C", _band(cos, C_MIN_COS, 1.0, C_BAND), False
            h.why = f"gist cosine ≈ {cos:.2f}"
        else:
            h.tier, h.confidence, h.low_confidence = "D", D_MAX * max(cos, 0.0), True
            h.why = f"nearest by gist, cosine ≈ {cos:.2f}"
        h.why += " · found by " + (", ".join(h.sources) or "fusion")

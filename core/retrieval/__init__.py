"""Kith's one retriever (DESIGN.md §6): rankings, one fusion, one frozen configuration.

* :mod:`core.retrieval.config` — every constant, with its source (:data:`CONFIG`).
* :mod:`core.retrieval.lexicon` — the persistent, incremental episode lexicon (SQLite FTS5).
* :mod:`core.retrieval.fusion` — reciprocal rank fusion (the only implementation).
* :mod:`core.retrieval.retriever` — :func:`retrieve`: rankings → fusion → boosts → filters →
  current-before-superseded → calibrated relevance.
* :mod:`core.retrieval.relevance` — the calibrated relevance (logistic, fitted on a dev split).
* :mod:`core.retrieval.tiers` — seed 001's tier and confidence for each hit.
* :mod:`core.retrieval.answer` — the memory answerer: short answers from current facts and evidence.
"""

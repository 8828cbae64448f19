"""Deterministic text understanding: time anchors, entities/terms/triples, predicate canonicaliser."""
from core.extraction.text import Extraction, canonical_predicate, entities, extract, normalize_label, stem, terms
from core.extraction.time_anchors import TimeAnchor, find_time_anchors

__all__ = ["Extraction", "TimeAnchor", "canonical_predicate", "entities", "extract", "find_time_anchors",
           "normalize_label", "stem", "terms"]

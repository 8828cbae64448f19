"""Every constant of Kith's retrieval in one frozen configuration, each with where it comes from.

``benchmarks/locomo.py`` tunes on a **dev split** of ``locomo7.json`` (conversations 0-2: conv-26,
conv-30, conv-41) and reports the figures on the **test split** (conversations 3-6: conv-42, conv-43,
conv-44, conv-47).  A constant below says "dev" when it was chosen there, and otherwise names its paper
or seed.  Change a value here and nowhere else: the retriever, ``ask``, the chat, the window and the
benchmarks all read :data:`CONFIG`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping


def _frozen(d: dict) -> Mapping:
    return MappingProxyType(dict(d))


@dataclass(frozen=True)
class LexiconConfig:
    """The episode lexicon's documents (SQLite FTS5, ``core/retrieval/lexicon.py``).

    Attributes:
        near: weights of the same-conversation turns 1, 2 and 3 positions away, added to a turn's
            document as FTS5 columns (context chunking, issue #4: 0.5 / 0.25 / 0.125, kept on dev).
        near_gap_s: two turns are neighbours only when at most this many seconds apart (a chat thread
            runs for years; a conversation is a burst of it).  12 h (dev: no loss against unlimited on
            LoCoMo, whose sessions are days apart).
        sent_weight: weight of the month and year the turn was sent (issue #4: 0.5, kept on dev).
        speaker: index the sender's name with the turn (issue #4).
        dates: index the month and year the turn's own time expressions resolve to ("last week").
    """

    near: tuple[float, ...] = (0.5, 0.25, 0.125)
    near_gap_s: float = 12 * 3600.0
    sent_weight: float = 0.5
    speaker: bool = True
    dates: bool = True

    def column_weights(self) -> tuple[float, ...]:
        """BM25 weights of the five columns (own, sent, near1, near2, near3): own 1, then ``sent_weight`` and
        ``near`` (a missing ``near`` weight is 0)."""
        return (1.0, float(self.sent_weight), *map(float, self.near), *([0.0] * (3 - len(self.near))))


@dataclass(frozen=True)
class RelevanceConfig:
    """The calibrated relevance of a hit (``core/retrieval/relevance.py``): a logistic model
    P(the hit is evidence for the question) over the features of :data:`FEATURES`, fitted by
    iteratively reweighted least squares on the LoCoMo dev split (``benchmarks/locomo.py --fit``),
    and the threshold below which a hit is not shown (chosen on dev to maximise F1 of shown
    results against evidence; its precision on the test split is printed by the benchmark).

    Attributes:
        coef: intercept first, then one weight per feature (dev fit, ``benchmarks/locomo.py --fit``).
        threshold: the least relevance shown (dev: the F1-best threshold, 0.31, F1 0.490 over the top-10 hits of
            the dev questions and of 30 questions per conversation taken from another one, all negatives; on
            the test split that model and threshold give precision 0.518, recall 0.489; refitted after the time
            cue joined the ranking — before it: 0.28, F1 0.474, test precision 0.485, recall 0.477).  Refitting
            with a sixth feature, a hit's fused score over the question's best, moved dev F1 by 0.004 and test
            precision of shown hits from 0.456 to 0.448 (recall 0.340 → 0.354): not kept.
    """

    coef: tuple[float, ...] = (-3.2978, 1.3104, 2.4645, 0.3161, 0.5216, -1.3762)
    threshold: float = 0.31


FEATURES = ("coverage", "cosine", "lexical", "agree", "log_rank")
"""Relevance features of a hit, all comparable across questions: ``coverage`` — the idf-weighted share
of the question's words found in the turn itself (0..1); ``cosine`` — the question vector's cosine to
the turn's vector (the gist estimate when the turn was not among the dense candidates); ``lexical`` —
1 when the episode BM25 found it; ``agree`` — 1 when the lexical and dense rankings both found it;
``log_rank`` — ln(fused rank).  Tried and left out: a hit's fused score over the question's best (no gain, see
:class:`RelevanceConfig`), and whether the sender is the person the question names (a LoCoMo habit, where nearly
every question names one of two speakers: fitted, it hid a lone sender's own answer on the corpus)."""


@dataclass(frozen=True)
class RetrievalConfig:
    """The one retriever's settings (``core/retrieval/retriever.py``).

    Attributes:
        pool: candidates taken from each ranking before fusion.
        fusion_k: the RRF constant.  Cormack, Clarke & Büttcher (SIGIR 2009) use 60; with one strong
            and weaker rankings a small k is better (dev R@10: 60 → 0.793, 10 → 0.842, 5 → 0.839; 5 kept
            from issue #4, the difference is within noise).
        weights: RRF weight per ranking; a ranking with weight 0 is not computed at all.  ``lex`` —
            the episode lexicon (BM25 over context windows); ``dense`` — Chroma nearest neighbours over
            the record vectors (each message embedded as its sender tells it); ``gist`` — the HDC gist
            signatures (seed 001) scanned by sketch and re-ranked.  Dev R@10 (``--ablations``): lex alone
            0.773, dense alone 0.629, gist alone 0.551, lex+dense.5 0.828, lex+dense.5+gist.3 0.839 (kept),
            lex+dense.7+gist.3 0.840.  The seed's structured cascade lowered it (issue #4) and is not a ranking.
        speaker_boost: fused-score bonus (×(1 + b)) of the messages sent by the first person the
            question names (issue #4; dev R@10: 0 → 0.821, 1 → 0.839, 2 → 0.835, 4 → 0.820).
        time_boost: fused-score bonus (×(1 + b)) of a turn holding a time expression ("two weeks ago",
            ``core.extraction.time_anchors``) when the question asks when — the expected answer type
            (``core/retrieval/cues.py``).  Dev: temporal (category 2) MRR 0.765 → 0.813 (b = 0.25 → 0.798,
            0.5 → 0.804, 1 → 0.813, 2 → 0.787); its R@10, 0.989, lost one question (0.978).
        time_depth: the candidates (best fused first) the time cue reads (dev: 15 and 30 alike): about 1 ms
            for 30 turns, whatever the archive's size (one regex pass each, ``has_time_anchor``).
        goal_bias_weight: seed 001's goal bias, ``× (1 + w·max(0, 2·(sim − 0.5)))`` against the bundle
            of active goals (0 when there are none).
        parallel: run the question-only lookups (:func:`core.retrieval.retriever.lexical`) while the question is
            encoded, and the Chroma query while the gist signatures are scanned, on two helper threads (SQLite,
            numpy's kernels and Chroma's index release the GIL); False runs every step in turn.
        lexicon / relevance: see :class:`LexiconConfig`, :class:`RelevanceConfig`.
    """

    pool: int = 50
    fusion_k: int = 5
    weights: Mapping[str, float] = field(default_factory=lambda: _frozen({"lex": 1.0, "dense": 0.5, "gist": 0.3}))
    speaker_boost: float = 1.0
    time_boost: float = 1.0
    time_depth: int = 30
    goal_bias_weight: float = 0.5
    parallel: bool = True
    lexicon: LexiconConfig = field(default_factory=LexiconConfig)
    relevance: RelevanceConfig = field(default_factory=RelevanceConfig)

    def with_weights(self, **weights: float) -> "RetrievalConfig":
        """A copy with some RRF weights changed (benchmark ablations)."""
        from dataclasses import replace

        return replace(self, weights=_frozen({**self.weights, **weights}))


CONFIG = RetrievalConfig()
"""The configuration Kith runs with."""

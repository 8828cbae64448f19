"""The self-model (seed 001 floor 7): the self-vector, an EMA over consolidated atoms, with snapshots.

The self-vector is kept as a per-bit probability ``accum`` (``float32 (8192,)`` in [0, 1],
0.5 = undecided); its bits are ``accum > 0.5`` (exact 0.5 takes ``hdc.TIEBREAK``'s bit).
Each consolidation epoch: ``accum ← (1 − α)·accum + α·bits(bundle(atoms))`` with α = 0.05
(seed 001, after V-JEPA 2's EMA target network).  Unlearn subtracts:
``accum ← clip(accum − α·bits(bundle(forgotten)), 0, 1)`` (seed 001, "self-vector subtraction").
Every change appends a :class:`SelfVectorSnapshot`; :func:`self_vector_at` replays history.
"""
from __future__ import annotations

from datetime import datetime

import numpy as np
from sqlmodel import Session, select

from core import clock, hdc
from core.memory.events import log_event
from core.store.memory_schema import SelfVectorSnapshot

ALPHA = 0.05


def _bits(accum: np.ndarray) -> np.ndarray:
    tie = np.unpackbits(hdc.TIEBREAK).astype(bool)
    return np.packbits((accum > 0.5) | ((accum == 0.5) & tie))


def current(s: Session) -> tuple[np.ndarray, np.ndarray]:
    """(bits ``uint8 (1024,)``, accum ``float32 (8192,)``) of the latest snapshot; accum 0.5 if none."""
    snap = s.exec(select(SelfVectorSnapshot).order_by(SelfVectorSnapshot.id.desc()).limit(1)).first()
    if snap is None:
        accum = np.full(hdc.DIM, 0.5, dtype=np.float32)
        return _bits(accum), accum
    return np.frombuffer(snap.bits, np.uint8).copy(), np.frombuffer(snap.accum, "<f4").astype(np.float32)


def _write(s: Session, accum: np.ndarray, old_bits: np.ndarray, reason: str, n: int, alpha: float):
    bits = _bits(accum)
    drift = int(hdc.hamming(old_bits, bits))
    snap = SelfVectorSnapshot(bits=bits.tobytes(), accum=accum.astype("<f4").tobytes(), alpha=alpha,
                              reason=reason, n_inputs=n, drift_bits=drift, at=clock.now())
    s.add(snap)
    s.flush()
    log_event(s, "self_vector_updated", f"snapshot:{snap.id}", reason=reason, inputs=n, drift_bits=drift)
    return snap


def update(s: Session, sigs: np.ndarray, alpha: float = ALPHA, reason: str = "consolidation") -> SelfVectorSnapshot:
    """EMA step toward ``bundle(sigs)`` (``uint8 (k, 1024)``, k ≥ 1); appends and returns the snapshot."""
    old_bits, accum = current(s)
    target = np.unpackbits(hdc.bundle(np.asarray(sigs, np.uint8))).astype(np.float32)
    accum = ((1.0 - alpha) * accum + alpha * target).astype(np.float32)
    return _write(s, accum, old_bits, reason, len(sigs), alpha)


def subtract(s: Session, sigs: np.ndarray, alpha: float = ALPHA, reason: str = "unlearn") -> SelfVectorSnapshot:
    """Remove ``bundle(sigs)``'s contribution (unlearn); appends and returns the snapshot."""
    old_bits, accum = current(s)
    target = np.unpackbits(hdc.bundle(np.asarray(sigs, np.uint8))).astype(np.float32)
    accum = np.clip(accum - alpha * target, 0.0, 1.0).astype(np.float32)
    return _write(s, accum, old_bits, reason, len(sigs), alpha)


def self_vector(s: Session) -> np.ndarray:
    """The current self-vector bits, ``uint8 (1024,)``."""
    return current(s)[0]


def self_vector_at(s: Session, t: datetime) -> np.ndarray:
    """The self-vector as of UTC time ``t`` (the last snapshot at or before it; undecided before any)."""
    snap = s.exec(select(SelfVectorSnapshot).where(SelfVectorSnapshot.at <= clock.ensure_utc(t))
                  .order_by(SelfVectorSnapshot.at.desc(), SelfVectorSnapshot.id.desc()).limit(1)).first()
    if snap is None:
        return _bits(np.full(hdc.DIM, 0.5, dtype=np.float32))
    return np.frombuffer(snap.bits, np.uint8).copy()

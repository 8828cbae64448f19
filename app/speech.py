"""What the speech-to-text model is primed with: the names Kith knows (Whisper's ``initial_prompt``).

Whisper spells a proper noun it has rarely heard as ordinary words ("come for you I" for
ComfyUI); a prompt that names it first makes it spell it right.  The names are the owner's
most frequent contacts and places (by how many records involve them) — read from the graph
here, in the app layer, so the transcriber and the voice ingestor stay store-free.
"""
from __future__ import annotations

from sqlalchemy import func
from sqlmodel import select

from core.store.schema import Entity, RecordEntity

MAX_NAMES = 40  # Whisper keeps the last 223 prompt tokens; 40 names of 1–4 tokens fit with room to spare


def known_names(c, limit: int = MAX_NAMES) -> list[str]:
    """The names of the people, places and things most often involved in records, most frequent first.

    Args:
        c: the Container (its database is read, never written).
        limit: at most this many names.
    Returns:
        Canonical names (the owner and forgotten entities left out; names without a letter left out).
    """
    with c.db.session() as s:
        rows = s.exec(select(Entity.canonical_name, func.count(RecordEntity.record_id).label("n"))
                      .join(RecordEntity, RecordEntity.entity_id == Entity.id)
                      .where(Entity.tombstoned_at.is_(None), Entity.is_owner.is_(False),
                             Entity.kind.in_(("person", "place", "thing", "topic")))
                      .group_by(Entity.id).order_by(func.count(RecordEntity.record_id).desc(), Entity.id)
                      .limit(limit * 2)).all()
    names: list[str] = []
    for name, _ in rows:
        name = " ".join((name or "").split())
        if name and any(ch.isalpha() for ch in name) and "@" not in name and name not in names:
            names.append(name)
    return names[:limit]


def prompt_for(names: list[str]) -> str | None:
    """Whisper's initial prompt for these names (``"Names: Anna Lima, ComfyUI, Lisbon."``), or None for none."""
    return f"Names: {', '.join(names)}." if names else None

"""Background jobs: summary regeneration (stale first) and the knowledge-map refresh.

Text comes from the configured chat model when there is one (``generate``),
else from the deterministic builder in ``core/graph/summaries.py``, labelled as such.
"""
from __future__ import annotations

import threading
from typing import Callable

from app.container import Container
from core.graph import summaries
from core.graph.owner import owner

Generate = Callable[[str], str]

PROMPTS = {
    "entity": "Write a 100–300 word profile from these facts, grouped by topic, noting confidence. Facts:\n{facts}",
    "domain": "Write a 150–300 word overview of this area of the person's life from these facts:\n{facts}",
    "relationship": "Write a 200–400 word summary of this relationship from these facts:\n{facts}",
    "chapter": "Write a short narrative of this period of the person's life from these facts:\n{facts}",
}


def regenerate_summaries(c: Container, generate: Generate | None = None, limit: int | None = None,
                         cancel: threading.Event | None = None, model_name: str = "model") -> dict:
    """Regenerate due summaries (stale first), then refresh the knowledge map.

    Args:
        generate: prompt → text from a chat model; None for the deterministic summaries.
        limit: at most this many summaries this cycle.
        cancel: stops between summaries when set.

    Returns:
        ``{"written": n, "failed": n, "remaining": n, "map": [top entities]}``; a model failure for
        one summary falls back to the deterministic text for it and is counted in ``failed``.
    """
    with c.db.session() as s:
        me = owner(s)
        todo = summaries.due(s, me.id if me else None)
    if limit is not None:
        todo = todo[:limit]
    written = failed = 0
    for item in todo:
        if cancel is not None and cancel.is_set():
            break
        with c.db.session() as s:
            base = summaries.deterministic_text(s, item)
        if base is None:  # its subject was forgotten or merged away: the summary goes, never regenerated stale

            def drop(item=item):
                with c.db.session() as s:
                    summaries.remove(s, item)
            c.writer.run(drop)
            continue
        text, gen = base, "deterministic"
        if generate is not None:
            try:
                text, gen = generate(PROMPTS[item.kind].format(facts=base)).strip() or base, model_name
            except Exception:  # a model failure must not lose the cycle: fall back, count it
                failed += 1
                text, gen = base, "deterministic"

        def save(item=item, text=text, gen=gen, base=base):
            # under the writer lock: another process may have forgotten someone since ``base`` was read (the
            # text would bring their name back); what is saved is written from the facts as they are now
            with c.db.session() as s:
                fresh = summaries.deterministic_text(s, item)
                if fresh is None:
                    summaries.remove(s, item)
                    return False
                if fresh != base:
                    text, gen = fresh, "deterministic"
                summaries.save(s, item, text, gen)
                return True
        written += 1 if c.writer.run(save) else 0

    def refresh():
        with c.db.session() as s:
            return summaries.refresh_map(s)
    top = c.writer.run(refresh)
    with c.db.session() as s:
        me = owner(s)
        remaining = len(summaries.due(s, me.id if me else None))
    return {"written": written, "failed": failed, "remaining": remaining, "map": top[:20]}


def after_import(c: Container, generate: Generate | None = None, cancel: threading.Event | None = None) -> dict:
    """The background work after an import: stale summaries and the knowledge map
    (:func:`regenerate_summaries`), then a consolidation pass of the cognitive memory (seed 001 steps
    1–10: new episodes → atoms → beliefs, supersession, self-vector, decay, compaction) on the
    container's writer thread.  ``cancel`` set before consolidation starts skips it.

    Returns:
        ``{"summaries": <regenerate_summaries' dict>, "consolidation": {"scanned", "atoms_created",
        "beliefs_asserted"} or None when skipped}``.
    """
    from app.memory import consolidate

    out: dict = {"summaries": regenerate_summaries(c, generate, cancel=cancel), "consolidation": None}
    if cancel is not None and cancel.is_set():
        return out
    rep = c.writer.run(consolidate, c)
    out["consolidation"] = {"scanned": rep.scanned, "atoms_created": len(rep.atoms_created),
                            "beliefs_asserted": len(rep.beliefs_asserted)}
    return out

"""What a new user saw wrong in the window (raw ids and lists, spliced names, overlapping labels), fixed."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.gui


def test_memory_tab_says_what_was_learned_in_words(qapp):
    from ui.memory_tab import MemoryWidget, _about_text, _detail_text

    # The events an import and a consolidation log, as app.memory.learned returns them.
    consolidation = {"scanned": 61, "atoms": [1], "reinforced": [], "beliefs": [], "superseded": [], "decayed": [],
                     "archived": [], "signatures_dropped": 0, "mean_surprise": 1.0}
    assert _detail_text(consolidation, "consolidation") == "61 memories looked over: 1 new pattern"
    assert _detail_text({"scanned": 2, "atoms": [], "beliefs": []}, "consolidation") == \
        "2 memories looked over, nothing new to generalise"
    assert _detail_text({"evidence": [58, 59, 61], "triple": ["", "", ""]}, "atom_created") == "seen in 3 memories"
    assert _detail_text({"evidence": [1, 2], "triple": ["ann", "lives in", "rome"]}, "atom_created") == \
        "\u201cann lives in rome\u201d, seen in 2 memories"
    assert _detail_text({"reason": "consolidation", "inputs": 1, "drift_bits": 2031}, "self_vector_updated") == \
        "after consolidation, from 1 new pattern"
    assert _detail_text({"row": 0, "entities": ["william park"], "triples": [["a", "is", "b"], ["a", "has", "c"]]},
                        "episode_stored") == "2 statements noticed"
    assert _detail_text({"reason": "forget", "episodes": 7, "signatures": 7, "episodes_redacted": 5},
                        "unlearned") == "7 memories, 7 index entries, 5 memories redacted"
    assert _about_text("atom_created", "atom:1", {}) == "a pattern"
    assert _about_text("episode_stored", "episode:12", {}) == "a memory"
    assert _about_text("goal_set", "goal:3", {"title": "plan the Tuscany trip"}) == "plan the Tuscany trip"
    assert _about_text("consolidation", "", {}) == ""

    item = MemoryWidget._event_item({"at": "2026-12-01T07:00:00+00:00", "kind": "atom_created", "target": "atom:1",
                                     "detail": {"evidence": [58, 59, 61], "triple": ["", "", ""]}},
                                    "atom_created", "Generalised")
    shown = [item.text(i) for i in range(4)]
    assert shown[1:] == ["Generalised", "a pattern", "seen in 3 memories"]
    assert not any(ch in " ".join(shown) for ch in "[]'") and "atom:1" not in " ".join(shown)
    assert "atom:1" in item.toolTip(3)  # the raw event stays reachable

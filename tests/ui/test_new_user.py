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


def test_people_graph_hides_labels_that_would_overlap_and_shows_them_when_zoomed(qtbot):
    from app.operations.pictures import GraphData, GraphNode
    from ui.people_graph import GraphPlot

    # Three people drawn almost on one spot (the corpus' mailing-list regulars were), one far away.
    data = GraphData(nodes=[GraphNode(1, "Me", 30, True, 0.0, 0.0),
                            GraphNode(2, "Mark Overmeer", 23, False, 1.0, 1.0),
                            GraphNode(3, "Cristy", 11, False, 1.01, 1.005),
                            GraphNode(4, "Carl Knoos", 4, False, 1.005, 0.995),
                            GraphNode(5, "Bob Friesenhahn", 1, False, -1.0, -1.0)], edges=[], owner_id=1)
    plot = GraphPlot()
    qtbot.addWidget(plot)
    plot.resize(600, 500)
    plot.show()
    qtbot.waitExposed(plot)
    plot.set_data(data)
    qtbot.wait(50)
    plot.declutter()
    # You first, then by records: of the three on one spot only the one in most records is named.
    assert plot.visible_labels() == ["You: Me", "Mark Overmeer", "Bob Friesenhahn"]
    rects = [t.sceneBoundingRect() for t in plot.labels if t.isVisible()]
    assert not any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1:])
    assert plot.graph.scatter.opts["tip"](x=1.0, y=1.0, data=3) == "Cristy"  # hovering names a hidden one
    # Zoomed in on the crowded spot, each gets its label back.
    plot.setRange(xRange=(0.98, 1.03), yRange=(0.98, 1.03), padding=0)
    qtbot.waitUntil(lambda: "Cristy" in plot.visible_labels(), timeout=5000)
    assert {"Mark Overmeer", "Cristy", "Carl Knoos"} <= set(plot.visible_labels())


def test_welcome_panel_keeps_every_line_in_a_narrow_window(qtbot, window):
    """At 800 × 720 (the offscreen screen's width, a small laptop's half screen) the last line of the iPhone and
    Photos steps was cut off."""
    from PySide6.QtWidgets import QApplication

    qtbot.waitUntil(lambda: window.inbox.welcome.isVisible(), timeout=30_000)
    welcome = window.inbox.welcome
    for width in (800, 1100):
        window.resize(width, 720)
        for _ in range(5):
            QApplication.processEvents()
        qtbot.waitUntil(lambda: welcome.clipped_labels() == [], timeout=5000)
        grid = welcome.layout().itemAt(2).layout()
        photos = grid.itemAtPosition(4, 2).widget()
        assert photos.text().endswith("nothing leaves this computer.")
        assert photos.height() >= photos.heightForWidth(photos.width())


def test_inbox_history_cuts_a_list_of_names_at_its_end(qtbot, window):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QStyleOptionViewItem

    tree = window.inbox.history
    delegate = tree.itemDelegateForColumn(2)
    assert delegate is not None
    opt = QStyleOptionViewItem()
    from PySide6.QtWidgets import QTreeWidgetItem
    tree.addTopLevelItem(QTreeWidgetItem(["a.mbox", "45", "people: William Park, Mark Sappol, Lincoln, D. E."]))
    delegate.initStyleOption(opt, tree.model().index(0, 2))
    assert opt.textElideMode == Qt.TextElideMode.ElideRight  # names cut at the end, never spliced in the middle
    assert tree.textElideMode() == Qt.TextElideMode.ElideMiddle  # file names keep their extension


def test_people_details_name_the_kind_not_the_id_and_chat_shows_memories_first(qtbot, window, tmp_path):
    from app.operations.ingest import ingest
    from helpers.mboxes import write_mbox

    ingest(window.container, [write_mbox(tmp_path / "a.mbox", [("Ann Lee <ann@example.com>", "Hi", "Rye bread.")])])
    people = window.people
    people.refresh()
    qtbot.waitUntil(lambda: "Ann Lee" in people.model.names(), timeout=30_000)
    assert people.select_name("Ann Lee")
    text = people.details.text()
    assert text.startswith("Ann Lee (person) \u2014 1 record(s)") and " id " not in text, text
    # Chat's inspector gives the recalled memories more room than the brief below them.
    window.show_tab("chat")
    qtbot.waitUntil(lambda: window.chat.inspector_split.sizes()[0] > 0, timeout=5000)
    mem, brief = window.chat.inspector_split.sizes()
    assert mem > brief, (mem, brief)


def test_an_empty_memory_table_says_why_in_lines_that_fit(qapp):
    """The Beliefs and Sensory buffer panels are a third of the window: their 'why empty' line was cut off
    ('No beliefs yet: they form as Kith consolidates what it r…'); it is broken into lines that fit."""
    from ui.memory_tab import MemoryWidget

    text = "No beliefs yet: they form as Kith consolidates what it remembers."
    tree = MemoryWidget._table(["Belief", "Confidence", "Evidence"])
    tree.resize(350, 200)
    tree.show()
    qapp.processEvents()
    MemoryWidget._note(tree, text)
    shown = tree.topLevelItem(0).text(0)
    assert shown.replace("\n", " ") == text and "\u2026" not in shown
    fm = tree.fontMetrics()
    assert all(fm.horizontalAdvance(line) <= tree.viewport().width() for line in shown.splitlines())
    assert tree.topLevelItem(0).toolTip(0) == text
    tree.close()


def test_a_profile_fact_says_how_many_records_it_rests_on_in_words(qapp, container):
    """The Sources column read '2 files · 11 ev.' (cut off in the column); it says '11 records', the files in
    its tooltip."""
    from types import SimpleNamespace

    from ui.profile import ProfilePage
    from ui.worker import Worker

    page = ProfilePage(container, Worker())
    fact = SimpleNamespace(statement="As of 2021-03-12, Sam Patel wrote to Alex Morgan.", domain="relationships",
                           category="social", key="correspondence", valid_from="2021-03-12T09:20:00+00:00",
                           recorded_at="2021-12-01T18:24:00+00:00", confidence=0.94, evidence_count=11,
                           sources=["/a/WhatsApp Chat.txt", "/a/mail.mbox"])
    one = SimpleNamespace(**{**vars(fact), "evidence_count": 1, "sources": ["/a/mail.mbox"]})
    page._show_facts([fact, one])
    assert page.facts.item(0, 0).text() == "Sam Patel wrote to Alex Morgan."
    assert page.facts.item(0, 1).text() == "94%"
    assert page.facts.item(0, 2).text() == "11 records" and page.facts.item(1, 2).text() == "1 record"
    assert page.facts.item(0, 2).toolTip() == "In 2 files:\n/a/WhatsApp Chat.txt\n/a/mail.mbox"


def test_a_fact_card_says_the_fact_not_its_as_of_statement(qapp):
    """The 'Memories used' card of a fact read 'As of 2021-06-30, Alex Morgan lives in Glasgow.' above
    'When 30 Jun 2021, 00:00'; it reads 'Alex Morgan lives in Glasgow.' and 'When 30 Jun 2021'."""
    from PySide6.QtWidgets import QLabel

    from app.operations.types import AskResult
    from ui.chat import ResultCard

    fact = AskResult(text="As of 2021-06-30, Alex Morgan lives in Glasgow.", source="/a/WhatsApp Chat.txt",
                     when="2021-06-30T00:00:00+00:00", score=0.1, record_id=3, kind="fact",
                     subject="places: lives_in", sender="Alex Morgan", relevance=0.4)
    card = ResultCard(1, fact, compact=True)
    texts = [lab.text() for lab in card.findChildren(QLabel)]
    assert "Alex Morgan lives in Glasgow." in texts
    assert not any("As of" in t for t in texts)
    assert any(t.endswith("<b>When</b> 30 Jun 2021") for t in texts), texts


def test_a_photo_card_known_only_by_its_day_says_the_day_not_noon(qapp):
    """A WhatsApp photo named IMG-20230504-WA0001.jpg is stored at noon of its day in São Paulo (15:00 UTC); the
    card said 'When 4 May 2023, 12:00' (or this computer's time of that noon); it says 'When 4 May 2023'."""
    from PySide6.QtWidgets import QLabel

    from app.operations.types import AskResult
    from ui.chat import ResultCard

    photo = AskResult(text="Photo from 2023-05-04 (time of day unknown)", source="/a/IMG-20230504-WA0001.jpg",
                      when="2023-05-04T15:00:00+00:00", score=0.1, record_id=3, record_kind="photo",
                      relevance=0.5, utc_offset=-180, date_only=True)
    card = ResultCard(1, photo)
    texts = [lab.text() for lab in card.findChildren(QLabel)]
    assert any(t.endswith("<b>When</b> 4 May 2023") for t in texts), texts


def test_an_import_says_lists_trips_and_things_apart_in_words():
    """The Inbox read '64 new people, 3 new places, 9 trips / things' for 4 mailing lists, 1 trip and 4 things
    (and '1 new people' for one)."""
    from app.operations.imports import ImportedFile, ImportSession
    from ui.inbox import added_text

    mail = ImportedFile(1, "/a/mail.mbox", "mbox", None, 45, new_people=["Ann Lee"],
                        new_other=["ImageMagick Mailing List", "majordomo@imagemagick.org"],
                        other_kinds=["group", "thing"], new_facts=3)
    photo = ImportedFile(2, "/a/a.jpg", "photo", None, 1, new_places=["Arezzo, Tuscany, Italy"],
                         new_other=["Trip to Arezzo"], other_kinds=["event"], new_facts=1)
    sess = ImportSession(None, [mail, photo])
    assert added_text(sess.added()) == "1 new person, 1 new place, 1 list, 1 trip, 1 thing, 4 facts"
    assert added_text({"people": 64, "places": 3, "other": 9, "lists": 4, "trips": 1, "things": 4, "facts": 82}) == \
        "64 new people, 3 new places, 4 lists, 1 trip, 4 things, 82 facts"
    assert added_text(ImportSession(None, []).added()) == ""


def test_the_brief_beside_the_chat_says_formality_in_words():
    """The brief read 'formality 0.41 (stable); emoji none' — a figure no one can act on."""
    from ui.chat import brief_html, formality_words

    b = {"person": {"name": "Alex Morgan", "interaction_count": 34},
         "style": {"samples": 34, "preferred_length": "short", "preferred_structure": "terse",
                   "formality": {"current": 0.41, "trend": "stable"}, "emoji_usage": "none"}}
    text = brief_html(b)
    assert "<li>Style: short messages, terse; fairly casual; emoji: none</li>" in text and "0.41" not in text
    assert formality_words(0.8, "falling") == "formal, growing more casual"
    assert formality_words(0.5, "rising") == "neither formal nor casual, growing more formal"

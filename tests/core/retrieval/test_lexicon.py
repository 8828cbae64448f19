"""The persistent, incremental episode lexicon (SQLite FTS5) on a real SQLite file."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from core.memory.episodes import EpisodeDraft
from core.retrieval import lexicon
from tests.core.memory.conftest import unit

T0 = datetime(2023, 5, 8, 13, tzinfo=timezone.utc)


def rows(mem):
    with mem.db.engine.begin() as conn:
        return {r[0]: r[1:] for r in conn.exec_driver_sql(
            "SELECT rowid, own, sent, near1, near2, near3 FROM episode_lex").fetchall()}


def test_tokens_stem_and_drop_stopwords_in_any_script():
    assert lexicon.tokens("What paintings did she paint?") == ["paint", "paint"]
    assert "when" not in lexicon.tokens("When did Caroline go hiking")
    assert lexicon.tokens("Привет, Мария!") == ["привет", "мария"]  # not only ASCII words


def test_date_words_resolve_against_the_messages_own_time():
    assert lexicon.date_words("I went there last month", T0) == ["april", "2023"]
    assert lexicon.date_words("no time here", T0) == []


def test_documents_hold_the_turn_its_sender_and_its_neighbours(mem):
    ids = mem.store_many([EpisodeDraft(t, unit(i), T0 + timedelta(minutes=i), speaker=s, session="chat-1")
                          for i, (s, t) in enumerate([("Ana", "I adopted a kitten"), ("Ben", "Lovely news"),
                                                      ("Ana", "She sleeps all day"), ("Ben", "Cats do")])])
    r = rows(mem)
    assert r[ids[0]] == ("adopt kitten ana", "may 2023", "lovely news ben", "sleep day ana", "cats ben")
    assert r[ids[2]] == ("sleep day ana", "may 2023", "lovely news ben cats ben", "adopt kitten ana", "")
    # a question about the kitten finds the turn that says it first, its neighbours after it
    hits = lexicon.search(mem.db.engine.raw_connection(), lexicon.tokens("Who adopted a kitten?"), 10)
    assert [e for e, _ in hits][0] == ids[0]
    assert hits[0][1] > hits[1][1] > 0


def test_adding_a_turn_rewrites_only_its_neighbours_whatever_the_archive_size(mem):
    other = [EpisodeDraft(f"filler message {i}", unit(100 + i), T0 + timedelta(minutes=i), speaker="Zed",
                          session=f"thread-{i % 7}") for i in range(200)]
    mem.store_many(other)
    first = mem.store_many([EpisodeDraft(f"turn {i} about boats", unit(i), T0 + timedelta(minutes=i), speaker="Ana",
                                         session="chat-1") for i in range(5)])
    with mem.db.engine.begin() as conn:
        written = lexicon.add(conn, [lexicon.Turn(first[-1] + 1000, "chat-1", T0 + timedelta(minutes=5), "Ana",
                                                  "one more about sails")])
        # its own row and the three turns before it: 4 rows, not 205
        assert written == 4
        assert lexicon.doc_count(conn) == 206


def test_turns_far_apart_in_time_are_not_neighbours(mem):
    a, b = mem.store_many([EpisodeDraft("packing for the trip", unit(1), T0, speaker="Ana", session="chat-1"),
                           EpisodeDraft("new year plans", unit(2), T0 + timedelta(days=2), speaker="Ana",
                                        session="chat-1")])
    assert rows(mem)[a][2:] == ("", "", "")


def test_remove_takes_the_words_out_of_the_neighbours_too(mem):
    ids = mem.store_many([EpisodeDraft(t, unit(i), T0 + timedelta(minutes=i), speaker="Ana", session="s")
                          for i, t in enumerate(["hello there", "my secret password is swordfish", "bye now"])])
    with mem.db.engine.begin() as conn:
        assert lexicon.remove(conn, [ids[1]]) == 1
    r = rows(mem)
    assert ids[1] not in r
    assert not any("swordfish" in " ".join(v) for v in r.values())
    assert r[ids[0]][2] == "bye ana"  # the next live turn is now its neighbour
    assert lexicon.search(mem.db.engine.raw_connection(), ["swordfish"], 5) == []


def test_unlearn_and_restore_keep_the_lexicon_in_step(mem):
    from core.memory.unlearn import restore, unlearn

    ids = mem.store_many([EpisodeDraft(t, unit(i), T0 + timedelta(minutes=i), speaker="Ana", session="s")
                          for i, t in enumerate(["pottery class today", "the vase cracked"])])
    unlearn(mem, episode_ids=[ids[1]], reason="test")
    raw = mem.db.engine.raw_connection()
    assert [e for e, _ in lexicon.search(raw, ["vase"], 5)] == []
    restore(mem, [ids[1]])
    assert [e for e, _ in lexicon.search(raw, ["vase"], 5)] == [ids[1], ids[0]]
    raw.close()


def test_missing_and_rebuild_repair_the_lexicon(mem):
    ids = mem.store_many([EpisodeDraft(t, unit(i), T0 + timedelta(minutes=i), speaker="Ana", session="s")
                          for i, t in enumerate(["first kayak trip", "second kayak trip", "third"])])
    with mem.db.engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM episode_lex")
        conn.exec_driver_sql("DELETE FROM lexdoc WHERE episode_id != ?", (ids[0],))
        assert lexicon.missing(conn) == ids[1:]
        assert lexicon.rebuild(conn, lexicon.missing(conn)) == 2
        assert lexicon.missing(conn) == [] and lexicon.stale(conn) == []
    assert set(rows(mem)) == set(ids)


def test_speakers_named_in_question_order(mem):
    mem.store_many([EpisodeDraft("hi", unit(1), T0, speaker="Melanie Ross", session="s"),
                    EpisodeDraft("hey", unit(2), T0, speaker="Caroline", session="s")])
    raw = mem.db.engine.raw_connection()
    assert lexicon.speakers_named(raw, lexicon.tokens("What did Caroline tell Melanie?")) == ["Caroline", "Melanie Ross"]
    assert lexicon.speakers_named(raw, lexicon.tokens("What about the weather?")) == []
    assert lexicon.several_speakers(raw)
    raw.close()

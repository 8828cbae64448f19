"""Chat conversations kept across restarts (issue 14, from issue 15's chat bullet): each turn kept with the
memories it cited and the person it was with, listed newest first, reopened exactly as shown, continued,
renamed and deleted; forget reaches them (mentions redacted, cited copies of forgotten sources dropped,
restored exactly); ``kith chat --resume`` continues one; Ctrl-C in ``kith chat`` stops a reply, not the chat."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest

from helpers.mboxes import write_mbox

ROOT = Path(__file__).resolve().parents[2]
ALICE = "Alice Example"
SOURDOUGH = "how often does Alice Example feed the sourdough starter?"


@pytest.fixture
def filled(container, tmp_path):
    from app.operations.ingest import ingest

    box = write_mbox(tmp_path / "kitchen.mbox", [
        (f"{ALICE} <alice@example.com>", "Sourdough starter feeding schedule",
         "Feed the sourdough starter twice a day with equal weights of flour and water."),
        ("Bob Stone <bob@example.org>", "Climbing on Saturday",
         "Shall we go to the climbing gym on Saturday morning? I booked the wall for ten.")])
    assert ingest(container, [box]).records_added == 2
    return container


def _loop(c, **kw):
    from app.loop import ConversationLoop
    from app.models.llm import NoModel

    return ConversationLoop.for_container(c, model=NoModel(), **kw)


def _entity(c, name):
    from app.operations.entities import find_entity

    return find_entity(c, name).id


def test_turns_are_kept_listed_newest_first_reopened_continued_renamed_and_deleted(filled):
    from app.operations import conversations as conv
    from core.errors import NotFound

    c = filled
    first = _loop(c)
    r1 = first.turn(SOURDOUGH)
    second = _loop(c)
    second.partner_id = _entity(c, "Bob Stone")
    second.turn("when is the climbing on Saturday?")
    listed = conv.list_conversations(c)
    assert [x.id for x in listed] == [second.conversation, first.conversation]  # the most recent first
    assert first.conversation != second.conversation
    assert listed[1].title == SOURDOUGH and listed[1].turns == 2 and listed[1].partner is None
    assert listed[0].partner == "Bob Stone" and listed[0].title == "when is the climbing on Saturday?"

    kept = conv.open_conversation(c, first.conversation)
    # reopened exactly as the chat showed it: the memory answer with its sources listed
    assert [(t.role, t.text) for t in kept.turns] == [("user", SOURDOUGH), ("assistant", r1.reply)]
    assert "\n\nSources:\n[1] " in r1.reply
    mems = kept.turns[1].memories
    assert "sourdough" in mems[0].text.lower() and mems[0].sender == ALICE and mems[0].record_id
    assert kept.turns[1].cited == {m.number for m in r1.cited} and 1 in kept.turns[1].cited
    assert kept.turns[1].meta["no_model"] is True

    # continued after a restart: a new loop on the same conversation carries its history on
    again = _loop(c)
    again.resume(kept.info.id, conv.history(kept), kept.info.partner_id)
    assert again.history == [{"role": "user", "content": SOURDOUGH}, {"role": "assistant", "content": r1.reply}]
    again.turn("and what about the climbing gym?")
    assert conv.list_conversations(c)[0].id == first.conversation  # continued: now the most recent
    assert [t.role for t in conv.open_conversation(c, first.conversation).turns] == ["user", "assistant"] * 2

    assert conv.rename(c, first.conversation, "  Bread   notes ").title == "Bread notes"
    assert conv.list_conversations(c)[0].title == "Bread notes"
    with pytest.raises(ValueError):
        conv.rename(c, first.conversation, "   ")
    assert conv.delete(c, second.conversation) == 2
    assert [x.id for x in conv.list_conversations(c)] == [first.conversation]
    with pytest.raises(NotFound):
        conv.open_conversation(c, second.conversation)
    with pytest.raises(NotFound):
        conv.delete(c, second.conversation)


def test_title_is_the_first_message_clipped_at_a_word():
    from core.store.conversations import title_of

    assert title_of("  when   was I in Italy? ") == "when was I in Italy?"
    long = "tell me everything about the trip we took to the mountains with the whole family last summer"
    t = title_of(long)
    assert len(t) <= 61 and t.endswith("\u2026") and long.startswith(t[:-1]) and not t[:-1].endswith(" ")
    assert title_of("") == "New conversation"


def _dump(c, cid):
    from app.operations.conversations import open_conversation

    return json.dumps(open_conversation(c, cid).to_json(), sort_keys=True)


def test_forget_redacts_a_person_in_kept_conversations_and_restore_brings_them_back(filled):
    from app.operations.conversations import list_conversations, open_conversation
    from app.operations.forget import forget, plan_forget, restore

    c = filled
    alice = _entity(c, ALICE)
    loop = _loop(c)
    loop.partner_id = alice
    loop.turn(SOURDOUGH)
    other = _loop(c)
    other.turn("when is the climbing on Saturday?")
    before = _dump(c, loop.conversation)
    untouched = _dump(c, other.conversation)
    turn = open_conversation(c, loop.conversation).turns[1]
    alice_mail = next(m for m in turn.memories if m.sender == ALICE)
    assert turn.numbers[turn.memories.index(alice_mail)] in turn.cited  # the answer rests on her mail

    plan = plan_forget(c, alice)
    rep = forget(c, alice)
    assert rep.counts["conversations"] == plan.counts["conversations"]
    assert rep.counts["conversations"]["turns_redacted"] == 2 and rep.counts["conversations"]["conversations_redacted"] == 1
    kept = open_conversation(c, loop.conversation)
    text = _dump(c, loop.conversation)
    assert "Alice" not in text and "alice@example.com" not in text and "sourdough starter twice" not in text
    assert kept.info.partner_id is None and kept.info.title == "how often does [forgotten] feed the sourdough starter?"
    assert kept.turns[0].text == "how often does [forgotten] feed the sourdough starter?"
    assert kept.turns[1].text.startswith("[forgotten]")  # the reply rested on her mail: its words go with it
    assert all(m.record_id != alice_mail.record_id for m in kept.turns[1].memories)
    assert _dump(c, other.conversation) == untouched
    # nothing of her is left in the chat tables' bytes either (raw SQL, JSON included)
    raw = c.db.engine.raw_connection()
    try:
        rows = raw.execute("SELECT title FROM chat_conversation UNION ALL SELECT text || citations FROM chat_turn").fetchall()
    finally:
        raw.close()
    assert not any("Alice" in r[0] or "alice@" in r[0] for r in rows)

    restore(c, rep.forget_id)
    assert _dump(c, loop.conversation) == before
    assert [x.id for x in list_conversations(c)] == [other.conversation, loop.conversation]


def test_forgetting_a_time_range_removes_the_turns_said_then_and_a_record_forget_drops_its_citation(filled):
    from app.operations.conversations import list_conversations, open_conversation
    from app.operations.forget import forget, plan_forget, restore
    from core import clock
    from core.store.forgetting import Target

    c = filled
    loop = _loop(c)
    loop.turn("when is the climbing on Saturday?")
    turn = open_conversation(c, loop.conversation).turns[1]
    climbing = next(m for m in turn.memories if "climbing" in m.text.lower())
    rep = forget(c, Target.record(climbing.record_id))
    assert rep.counts["conversations"]["turns_redacted"] == 1
    after = open_conversation(c, loop.conversation).turns[1]
    assert all(m.record_id != climbing.record_id for m in after.memories)
    assert "booked the wall" not in after.text
    restore(c, rep.forget_id)
    assert any(m.record_id == climbing.record_id for m in open_conversation(c, loop.conversation).turns[1].memories)

    now = clock.now()
    span = Target.range(now - timedelta(hours=1), now + timedelta(hours=1))
    plan = plan_forget(c, span)
    assert plan.counts["conversations"] == {"turns": 2, "turns_redacted": 0, "conversations": 1,
                                            "conversations_redacted": 0}
    rep = forget(c, span)
    assert rep.counts["conversations"] == plan.counts["conversations"]
    assert list_conversations(c) == []
    restore(c, rep.forget_id)
    assert [x.id for x in list_conversations(c)] == [loop.conversation]


def _env(home: Path) -> dict:
    return dict(os.environ, KITH_HOME=str(home), PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                PYTHONUNBUFFERED="1")


def test_kith_chat_keeps_the_conversation_and_resume_continues_it(tmp_path):
    home = tmp_path / "home"
    env = _env(home)
    kith = [sys.executable, "-m", "app.cli"]
    out = subprocess.run([*kith, "chat", "--model", "none"], input="remember that my bike is blue\n\n", env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    listed = json.loads(subprocess.run([*kith, "conversations", "--json"], env=env, capture_output=True, text=True,
                                       timeout=300).stdout)["conversations"]
    assert len(listed) == 1 and listed[0]["title"] == "remember that my bike is blue" and listed[0]["turns"] == 2
    cid = listed[0]["id"]
    assert f"kith chat --resume {cid}" in out.stderr
    out = subprocess.run([*kith, "chat", "--model", "none", "--resume"], input="what colour is my bike?\n\n", env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert f"Continuing \u201cremember that my bike is blue\u201d ({cid}, 2 messages)" in out.stdout
    shown = json.loads(subprocess.run([*kith, "conversations", "show", cid, "--json"], env=env, capture_output=True,
                                      text=True, timeout=300).stdout)
    assert [m["text"] for m in shown["messages"] if m["role"] == "user"] == ["remember that my bike is blue",
                                                                              "what colour is my bike?"]
    bad = subprocess.run([*kith, "chat", "--resume", "chat-nope"], input="\n", env=env, capture_output=True,
                         text=True, timeout=300)
    assert bad.returncode == 1 and "no conversation 'chat-nope'" in bad.stderr


def test_ctrl_c_in_kith_chat_stops_the_reply_and_the_chat_goes_on(tmp_path):
    from helpers.servers import StreamingModelHandler, streaming_model_server

    home = tmp_path / "home"
    home.mkdir()
    with streaming_model_server() as port:
        (home / "settings.json").write_text(json.dumps({
            "chat_backend": "openai", "chat_endpoint": f"http://127.0.0.1:{port}/v1", "chat_endpoint_model": "streamer"}))
        proc = subprocess.Popen([sys.executable, "-m", "app.cli", "chat"], env=_env(home), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        got = bytearray()

        def read():
            while True:
                b = proc.stdout.read1(4096) if hasattr(proc.stdout, "read1") else proc.stdout.read(1)
                if not b:
                    return
                got.extend(b)
        reader = threading.Thread(target=read, daemon=True)
        reader.start()

        def wait_for(pred, timeout=180.0):
            end = time.monotonic() + timeout
            while time.monotonic() < end:
                if pred(got.decode(errors="replace")):
                    return
                time.sleep(0.05)
            proc.kill()
            raise AssertionError(f"timed out; output so far:\n{got.decode(errors='replace')}")
        try:
            proc.stdin.write(b"please answer slowly\n")
            proc.stdin.flush()
            wait_for(lambda s: "word3 " in s)  # the reply is streaming
            t0 = time.monotonic()
            proc.send_signal(signal.SIGINT)
            # a loaded machine may be slow to show the first Ctrl-C; a person would press it again
            for _ in range(3):
                end = time.monotonic() + 3
                while "[stopping]" not in got.decode(errors="replace") and time.monotonic() < end:
                    time.sleep(0.05)
                if "[stopping]" in got.decode(errors="replace"):
                    break
                proc.send_signal(signal.SIGINT)
            wait_for(lambda s: "(stopped)" in s, timeout=30)
            assert time.monotonic() - t0 < 15
            text = got.decode()
            assert "[stopping]" in text and f"word{StreamingModelHandler.SLOW_PIECES - 1} " not in text
            proc.stdin.write(b"thanks\n")  # the chat goes on
            proc.stdin.flush()
            wait_for(lambda s: StreamingModelHandler.QUICK_REPLY in s.split("(stopped)", 1)[1])
            proc.stdin.write(b"\n")
            proc.stdin.flush()
            assert proc.wait(timeout=60) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        reader.join(5)

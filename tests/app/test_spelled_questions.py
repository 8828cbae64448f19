"""A question typed in chat spelling or with a slip ("wher does maya liv?", "hw many msgs did maya send") is read as
the question it is (app.answer.spelled), in the chat and in `kith ask`: the same answer as the spelled-out one."""
from __future__ import annotations


import pytest
from click.testing import CliRunner

from app.answer import spelled
from app.cli import main
from app.operations.ingest import ingest
from helpers.built import built_once, loop_on

CHAT = """12/03/2024, 18:02 - Maya Ortiz: I moved to Porto last month, I live in Porto now
12/03/2024, 18:05 - Sam Lee: Nice!
13/03/2024, 09:10 - Maya Ortiz: I work at Spotify now
13/03/2024, 09:12 - Maya Ortiz: See you soon
"""


def _as_owner(c):
    c.settings.owner_name = "Sam Lee"


def _build(container, tmp_path):
    _as_owner(container)
    path = tmp_path / "WhatsApp Chat with Maya Ortiz.txt"
    path.write_text(CHAT, encoding="utf-8")
    assert ingest(container, [path]).records_added == 4


# ---- the data folder built once per module, each test on its own copy (a test's turns write the conversation,
# its trace and observations: nothing one test does reaches another) ----


@pytest.fixture(scope="module")
def _home(tmp_path_factory):
    return built_once(tmp_path_factory, "chat", _build)


@pytest.fixture
def loop(request):
    yield from loop_on(request, "_home", _build, _as_owner)


@pytest.mark.parametrize("typed, meant", [
    ("wher does maya liv?", "where does maya live?"),
    ("Wher does Maya live?", "where does Maya live?"),
    ("hw many msgs did maya send", "how many messages did maya send"),
    ("where dos maya wrk?", "where does maya work?"),
])
def test_a_slip_is_answered_as_the_question_it_is(loop, typed, meant):
    assert spelled(typed) == meant
    assert loop.turn(typed).reply == loop.turn(meant).reply


def test_the_answers_themselves(loop):
    assert loop.turn("wher does maya liv?").reply.startswith("Maya Ortiz lives in Porto")
    assert loop.turn("hw many msgs did maya send").reply.startswith("Maya Ortiz sent you 3 messages")


def test_names_and_other_words_are_kept():
    assert spelled("who is Ur?") == "who is Ur?"  # a name keeps its capital and its spelling
    assert spelled("Ur is old") == "Ur is old"
    assert spelled("was the Whatsapp chat long?") == "was the Whatsapp chat long?"


def test_kith_ask_reads_it_so_too(loop, kith_home):
    out = CliRunner().invoke(main, ["ask", "wher does maya liv?"], catch_exceptions=False)
    assert out.exit_code == 0 and out.output.startswith("Maya Ortiz lives in Porto")

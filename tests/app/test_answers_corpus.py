"""Answers a new user gets on the real corpus (issue 14): short, right, sourced, and nothing when nothing fits.

Right values from ../shared/corpus/README.md and regressions/README.md (worked out independently of Kith):
gps_DSCN0010.jpg and gps_DSCN0040.jpg were taken on 2008-10-22 in Tuscany, Italy; Rosa moved from Berlin
(January 2023) to Madrid (June 2023).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli import main

pytestmark = [pytest.mark.corpus, pytest.mark.slow]


def run(*args: str, input: str | None = None):
    result = CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    corpus = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
    if not corpus.is_dir():
        pytest.skip("../shared/corpus not present (it exists only in the dev workspace and CI)")
    home = tmp_path_factory.mktemp("kith-answers")
    mp = pytest.MonkeyPatch()
    mp.setenv("KITH_HOME", str(home))
    try:
        run("ingest", str(corpus / "photos"), str(corpus / "mbox"), str(corpus / "messages" / "chats"), "--json")
    finally:
        mp.undo()
    return home


@pytest.fixture
def at_home(home, monkeypatch):
    monkeypatch.setenv("KITH_HOME", str(home))
    return home


def test_kith_chat_answers_when_i_was_in_italy_briefly_by_default(at_home):
    out = run("chat", input="when was I in Italy?\n\n")
    answer = out.split("kith> ", 1)[1].splitlines()[0]
    assert re.fullmatch(r"You were in Arezzo, Tuscany, Italy on 22 October 2008 — 2 photos (\[\d\]){2}", answer), answer
    sources = out.split("Sources:\n", 1)[1]
    assert "gps_DSCN0010.jpg" in sources and "gps_DSCN0040.jpg" in sources


def test_ask_shows_only_what_is_relevant_and_says_when_nothing_is(at_home):
    results = json.loads(run("ask", "watermark", "--json"))["results"]
    assert results and all(r["source"].endswith("MailBox_mbox.src.mbox") for r in results)
    assert all("watermark" in r["text"].lower() for r in results)
    assert all(0.0 <= r["relevance"] <= 1.0 for r in results)
    assert json.loads(run("ask", "what is the weather on Mars?", "--json"))["results"] == []
    assert "I found nothing about that." in run("ask", "what is the weather on Mars?")


def test_ask_writes_nothing(at_home):
    import sqlite3

    def counts():
        con = sqlite3.connect(at_home / "kith.sqlite3")
        try:
            return [con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                    for t in ("attentiontrace", "learningevent", "episode", "lexdoc")]
        finally:
            con.close()
    before = counts()
    run("ask", "when was I in Italy?")
    assert counts() == before


def test_current_before_superseded_with_history_and_as_of(tmp_path, monkeypatch, corpus):
    monkeypatch.setenv("KITH_HOME", str(tmp_path / "rosa"))
    run("ingest", str(corpus / "regressions" / "mbox_superseded_home.mbox"))
    results = json.loads(run("ask", "Where does Rosa live?", "--json"))["results"]
    texts = [r["text"] for r in results]
    madrid = next(i for i, t in enumerate(texts) if "I moved to Madrid" in t)
    berlin = next(i for i, t in enumerate(texts) if "I live in Berlin" in t)
    fact = next(i for i, r in enumerate(results) if r["kind"] == "fact")
    assert fact < madrid < berlin and "lives in Madrid" in texts[fact]
    history = [r for r in results if r["kind"] == "history"]
    assert [r["text"] for r in history] == ["Rosa Vidal lived in Berlin until June 2023"]
    then = json.loads(run("ask", "Where does Rosa live?", "--as-of", "2023-03-01", "--json"))["results"]
    assert [r["kind"] for r in then][0] == "fact" and "lives in Berlin" in then[0]["text"]
    assert not any("Madrid" in r["text"] for r in then)
    out = run("chat", input="Where does Rosa live?\n\n")
    assert out.split("kith> ", 1)[1].splitlines()[0].startswith(
        "Rosa Vidal lives in Madrid (since June 2023); before that, Rosa lived in Berlin until June 2023")

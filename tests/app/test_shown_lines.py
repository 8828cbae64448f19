"""What `kith ask` and `kith profile` print for a fact and for a record whose day alone is known: the fact's
sentence without its "As of DATE, " lead (the line says the time in its own place), and the day, not the noon a
date-only photo is stored at.  The inputs are made here; the right lines are worked out in the comments."""
from __future__ import annotations

import json

from click.testing import CliRunner
from PIL import Image

from app.cli import main
from helpers.mboxes import write_mbox


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_fact_reads_as_its_sentence_with_since_records_and_confidence(tmp_path, monkeypatch):
    monkeypatch.setenv("KITH_HOME", str(tmp_path / "home"))
    # sent 2023-04-02 09:30 UTC (write_mbox's first day): the fact holds from that day
    run("ingest", str(write_mbox(tmp_path / "m.mbox", [
        ("Ann Lee <ann@example.org>", "News", "I moved to Lisbon last month and love it.")])))
    out = run("profile", "Ann Lee")
    assert "As of" not in out
    lines = [line for line in out.splitlines() if "Lisbon" in line]
    assert lines and lines[0].startswith("  - Ann Lee lives in Lisbon. (since 2023-")
    assert "; 1 record; confidence 0." in lines[0]
    shown = run("ask", "where does Ann live?")
    fact_lines = [line for line in shown.splitlines() if line.lstrip()[:1].isdigit() and " fact · " in line]
    assert fact_lines, shown
    assert "As of" not in shown.split("\n\n", 1)[-1]  # no source line leads with it
    assert "   Ann Lee lives in Lisbon." in shown


def test_a_photo_known_only_by_its_day_is_shown_on_that_day_not_at_noon(tmp_path, monkeypatch):
    monkeypatch.setenv("KITH_HOME", str(tmp_path / "home"))
    photos = tmp_path / "in"
    photos.mkdir()
    Image.new("RGB", (8, 8), (10, 120, 200)).save(photos / "IMG-20230504-WA0001.jpg")  # WhatsApp: the day alone
    run("ingest", str(photos))
    out = run("ask", "photo")
    assert "1. [" in out and "] photo · 2023-05-04 — " in out and "12:00" not in out and "T" not in \
        out.split("photo · ", 1)[1].split(" — ", 1)[0]
    (r,) = json.loads(run("ask", "photo", "--json"))["results"]
    assert r["date_only"] is True and r["when"].startswith("2023-05-04T")  # the stored instant stays in JSON

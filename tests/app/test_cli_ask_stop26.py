"""`kith ask` always says something: a graph answer that finds no one ("who is my boss?" with no boss known) was
printed as nothing at all (its sources are shown only when it rests on them)."""
from __future__ import annotations

from click.testing import CliRunner

from app.cli import main
from helpers.mboxes import write_mbox


def test_a_relationship_nobody_stated_is_said_so(kith_home, tmp_path):
    from app.settings import Settings

    settings = Settings.load(kith_home)
    settings.owner_name, settings.owner_emails = "Sam Lee", ["sam@lee.example"]
    settings.save()
    box = write_mbox(tmp_path / "m.mbox", [
        ("Ana Silva <ana@acme.example>", "sam@lee.example", "Q2 budget",
         "Sam, please send me the Q2 budget spreadsheet by Friday. I am your manager after all :)"),
    ])
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", str(box)], catch_exceptions=False).exit_code == 0
    out = runner.invoke(main, ["ask", "who is my manager?"], catch_exceptions=False)
    assert out.exit_code == 0
    assert out.output.strip().splitlines()[0] == "Nothing in your records says who your boss is."

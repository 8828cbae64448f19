"""Stop 26: `kith ingest` counts a file that is no archive after all, and its exit status says when a file failed.

Nine paths with a fake ``export.zip`` (``PK\\x03\\x04garbage``) and two cut exports: the progress went from [5/9] to
[6/8] and the summary said "8 file(s)" (the zip was taken off the count as "an archive, not a file", and no member
came in its place), and the exit status was 0.  Now the zip is one file that failed, and the status is 2."""
from __future__ import annotations

import json
import re

from click.testing import CliRunner

from app.cli import main
from helpers.files import rows


def _wa(folder, n: int):
    p = folder / f"chat_{n}.txt"
    p.write_text(f"01/02/2024, 10:0{n} - Ana Lima: hello {n}\n", encoding="utf-8")
    return p


def test_nine_paths_with_a_fake_zip_and_cut_files_are_nine_files_and_exit_2(tmp_path, kith_home):
    good = [_wa(tmp_path, n) for n in range(1, 7)]
    fake = tmp_path / "export.zip"
    fake.write_bytes(b"PK\x03\x04garbage")
    cut_tg = tmp_path / "result.json"  # a Telegram export cut inside its second message: the first is kept
    cut_tg.write_text('{"name": "Bo", "type": "personal_chat", "id": 7, "messages": [\n'
                      '{"id": 1, "type": "message", "date_unixtime": "1706781600", "from": "Bo", "from_id": "user2", '
                      '"text": "first"},\n{"id": 2, "type": "message", "date_unixt', encoding="utf-8")
    cut_fb = tmp_path / "message_1.json"  # a Messenger file cut inside its only message: nothing in it is whole
    cut_fb.write_text('{"participants": [{"name": "Cy"}], "messages": [{"sender_name": "Cy", "timestamp_ms": 17',
                      encoding="utf-8")
    paths = [*good[:4], fake, cut_tg, *good[4:], cut_fb]
    result = CliRunner().invoke(main, ["ingest", *map(str, paths)], catch_exceptions=False)
    assert result.exit_code == 2, result.output
    progress = re.findall(r"^\[(\d+)/(\d+)\] (.+)$", result.stderr, re.M)
    assert [(int(k), int(n)) for k, n, _p in progress] == [(k, 9) for k in range(1, 10)]
    assert sorted(p for _k, _n, p in progress) == sorted(map(str, paths))
    assert "9 file(s): 7 record(s) added, 0 already known, 3 error(s)" in result.stdout
    assert "not everything could be read (exit status 2)" in result.stderr
    assert sorted(rows(kith_home / "kith.sqlite3", "SELECT text FROM record")) == [
        ("first",), *[(f"hello {n}",) for n in range(1, 7)]]
    # the same nine again, as JSON: nine files, all known, the same three errors, still status 2
    again = CliRunner().invoke(main, ["ingest", "--json", *map(str, paths)], catch_exceptions=False)
    assert again.exit_code == 2
    report = json.loads(again.stdout)
    assert (report["files"], report["records_added"], report["records_skipped"]) == (9, 0, 7)
    assert sorted(e["path"] for e in report["errors"]) == sorted([str(fake), str(cut_tg), str(cut_fb)])


def test_everything_read_exits_0_and_nothing_read_exits_1(tmp_path, kith_home):
    ok = CliRunner().invoke(main, ["ingest", str(_wa(tmp_path, 1)), str(_wa(tmp_path, 2))], catch_exceptions=False)
    assert ok.exit_code == 0 and "2 file(s): 2 record(s) added, 0 already known, 0 error(s)" in ok.stdout
    fake = tmp_path / "export.zip"
    fake.write_bytes(b"PK\x03\x04garbage")
    bad = CliRunner().invoke(main, ["ingest", str(fake)], catch_exceptions=False)
    assert bad.exit_code == 1 and "1 file(s): 0 record(s) added, 0 already known, 1 error(s)" in bad.stdout
    assert "nothing could be read" in bad.stderr

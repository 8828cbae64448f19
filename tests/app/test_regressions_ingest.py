"""The issue-12 regression files through the whole import (``ingest``), then ``ask`` where the right value
asks for it.  Right values: ../shared/corpus/regressions/README.md."""
from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import select

from app.operations.ask import ask
from app.operations.ingest import ingest
from core.store.schema import Record, Source

pytestmark = pytest.mark.corpus
FILES = ["mbox_unquoted_from_after_blank.mbox", "mbox_no_leading_from_line.mbox", "mbox_nonstandard_date.mbox",
         "eml_html_reply_with_forward.eml", "whatsapp_arabic_locale.txt", "whatsapp_pasted_lines.txt",
         "whatsapp_us_dates_nnbsp.txt", "telegram_invalid_escape.json", "instagram_message_1.json",
         "facebook_message_1.json"]


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    from app.container import Container
    from tests.conftest import CORPUS

    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus not present (it exists only in the dev workspace and CI)")
    mp = pytest.MonkeyPatch()
    mp.setenv("KITH_HOME", str(tmp_path_factory.mktemp("kith-regressions")))
    c = Container()  # one import for the module's tests
    try:
        yield c, ingest(c, [CORPUS / "regressions" / name for name in FILES])
    finally:
        c.close()
        mp.undo()


def test_every_regression_file_is_read_whole(imported):
    c, report = imported
    assert report.errors == []
    with c.db.session() as s:
        rows = s.exec(select(Record, Source).join(Source, Source.id == Record.source_id)).all()
    per_file: dict[str, int] = {}
    for _, src in rows:
        per_file[Path(src.path).name] = per_file.get(Path(src.path).name, 0) + 1
    assert per_file == {"mbox_unquoted_from_after_blank.mbox": 2, "mbox_no_leading_from_line.mbox": 2,
                        "mbox_nonstandard_date.mbox": 2, "eml_html_reply_with_forward.eml": 2,
                        "whatsapp_arabic_locale.txt": 3, "whatsapp_pasted_lines.txt": 2,
                        "whatsapp_us_dates_nnbsp.txt": 4, "telegram_invalid_escape.json": 3,
                        "instagram_message_1.json": 3, "facebook_message_1.json": 3}
    assert all(r.subject != "" and (r.kind != "email" or r.sender_entity_id) for r, _ in rows)


def test_ask_finds_the_lines_an_unquoted_from_used_to_cut_off(imported):
    c, _ = imported
    top = ask(c, "Hotel Azul", k=3)
    assert top and top[0].kind == "record" and "Hotel Azul" in top[0].text
    assert top[0].subject == "Trip notes" and top[0].source.endswith("mbox_unquoted_from_after_blank.mbox")


def test_ask_finds_the_reply_not_the_forwarded_words(imported):
    c, _ = imported
    top = ask(c, "Harbour Hall", k=3)
    assert top and "I booked the Harbour Hall" in top[0].text and top[0].sender == "Dana Reyes"
    garden = [r for r in ask(c, "Garden Room on the 21st", k=5) if "Garden Room" in r.text]
    assert garden and all(r.sender == "Venue Desk" for r in garden)

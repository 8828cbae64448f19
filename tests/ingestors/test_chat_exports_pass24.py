"""Chat exports, fourth pass: inputs shaped like real exports that Kith still read wrongly.

Right values worked out by hand from the inputs (the wall-clock times are the phone's, read in UTC
as the ingestors' default zone)."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from ingestors.whatsapp import WhatsAppIngestor

UTC = timezone.utc
LRM = "\u200e"


def _wa(tmp_path: Path, text: str, name: str = "_chat.txt", **kw) -> list:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return list(WhatsAppIngestor(**kw).read(p))


# ----------------------------------------------------------------------------- WhatsApp media

def test_ios_caption_before_attached_file(tmp_path):
    """iOS writes a photo's caption before its file tag, on the same line (and lines above it)."""
    items = _wa(tmp_path, "\r\n".join([
        "[24.09.25, 17:50:12] Bob Stone: Hi there",
        f"{LRM}[24.09.25, 17:51:00] Bob Stone: The view from Sintra {LRM}<attached: 00000005-PHOTO-2025-09-24-17-50-12.jpg>",
        f"{LRM}[24.09.25, 17:52:00] Alice: First line\nSecond line {LRM}<attached: 00000006-VIDEO-2025-09-24-17-52-00.mp4>",
    ]) + "\r\n")
    assert [(r.sender.name, r.text, r.attrs.get("media")) for r in items] == [
        ("Bob Stone", "Hi there", None),
        ("Bob Stone", "The view from Sintra", "00000005-PHOTO-2025-09-24-17-50-12.jpg"),
        ("Alice", "First line\nSecond line", "00000006-VIDEO-2025-09-24-17-52-00.mp4"),
    ]
    assert items[1].sent_at == datetime(2025, 9, 24, 17, 51, tzinfo=UTC)


@pytest.mark.parametrize("placeholder", [
    "imagem não revelada", "ficheiro de áudio não revelado", "Contacto não revelado",  # Portuguese (Portugal)
    "зображення відсутнє", "GIF-анімацію пропущено", "Наклейку не додано", "Картка контакту відсутня",  # Ukrainian
    "obrázek vynechán", "video vynecháno", "Vizitka vynechána",  # Czech
    "لم يتم إدراج الصورة", "لم يتم إدراج المستند", "تم حذف الملصقات",  # Arabic
    "Fiche contact manquante", "document manquant", "GIF retiré",  # French
    "sticker non incluso", "GIF esclusa",  # Italian
    "стикер не добавлен", "Kontaktkarte ausgelassen", "obraz pominięty",  # Russian, German, Polish
])
def test_ios_media_omitted_in_more_locales(tmp_path, placeholder):
    """An iOS "image omitted" in the phone's language is Ana's photo message (empty text, media noted),
    not a system line that takes the message away."""
    items = _wa(tmp_path, f"[01.02.23, 10:00:00] Ana Silva: Look\n"
                          f"{LRM}[01.02.23, 10:01:00] Ana Silva: {LRM}{placeholder}\n"
                          f"[01.02.23, 10:02:00] Bo: ok\n")
    assert [(r.sender.name, r.text, r.attrs.get("media")) for r in items] == [
        ("Ana Silva", "Look", None), ("Ana Silva", "", "omitted"), ("Bo", "ok", None)]
    assert items[1].sent_at == datetime(2023, 2, 1, 10, 1, tzinfo=UTC)
    assert not any(r.attrs.get("system_events") for r in items)


@pytest.mark.parametrize("placeholder", ["<Без медіафайлів>", "<Παράλειψη πολυμέσων>"])
def test_android_media_omitted_ukrainian_greek(tmp_path, placeholder):
    items = _wa(tmp_path, f"01.02.23, 10:00 - Ana: {placeholder}\n01.02.23, 10:02 - Bo: ok\n")
    assert [(r.text, r.attrs.get("media")) for r in items] == [("", "omitted"), ("ok", None)]

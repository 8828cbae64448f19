"""One shot, two files: an iPhone's HEIC original and the JPEG exported from it (same file stem, camera, capture
time to the sub-second) are one photo record; other photos of that second stay their own."""
from __future__ import annotations

from pathlib import Path

from sqlmodel import select

from app.operations.ingest import ingest
from core.store.schema import Record


def shot(path: Path, stamp: str, subsec: str | None, shade: int) -> Path:
    """A small photo (HEIC for a .heic path) by an "iPhone 11 Pro" taken at ``stamp`` (EXIF form, +02:00)."""
    from PIL import Image

    im = Image.new("RGB", (64, 48), (shade, 120, 200))
    exif = Image.Exif()
    exif[0x010F], exif[0x0110] = "Apple", "iPhone 11 Pro"          # Make, Model
    ex = exif.get_ifd(0x8769)
    ex[0x9003], ex[0x9011] = stamp, "+02:00"                      # DateTimeOriginal, OffsetTimeOriginal
    if subsec is not None:
        ex[0x9291] = subsec                                        # SubSecTimeOriginal
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".heic":
        from pillow_heif import register_heif_opener

        register_heif_opener()
        im.save(path, format="HEIF", exif=exif.tobytes(), quality=60)
    else:
        im.save(path, format="JPEG", exif=exif.tobytes(), quality=85)
    return path


def test_a_heic_original_and_its_jpeg_export_are_one_photo(container, tmp_path):
    original = shot(tmp_path / "originals" / "IMG_1234.HEIC", "2023:05:04 10:12:33", "450", 40)
    export = shot(tmp_path / "export" / "IMG_1234.JPG", "2023:05:04 10:12:33", "450", 41)  # other bytes
    burst = shot(tmp_path / "export" / "IMG_1235.JPG", "2023:05:04 10:12:33", "780", 42)  # the next shot
    edited = shot(tmp_path / "export" / "IMG_1234 (edited).JPG", "2023:05:04 10:12:33", "450", 43)
    rep = ingest(container, [original])
    assert (rep.records_added, rep.errors) == (1, [])
    rep = ingest(container, [export, burst, edited])
    # the export is the original's shot (skipped as known); the burst's next frame and the edited copy are not
    assert (rep.records_added, rep.records_skipped) == (2, 1)
    with container.db.session() as s:
        names = sorted(s.exec(select(Record.external_id).where(Record.kind == "photo")).all())
    assert names == ["IMG_1234 (edited).JPG", "IMG_1234.HEIC", "IMG_1235.JPG"]

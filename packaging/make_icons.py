"""Render Kith's icon (resources/icons/kith.svg) to PNGs (16–512 px) and a macOS .icns, with Qt and Pillow.

    QT_QPA_PLATFORM=offscreen python packaging/make_icons.py OUT_DIR
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

SIZES = (16, 32, 48, 64, 128, 256, 512)


def main(out: Path) -> list[Path]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PIL import Image
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication(["icons"])  # noqa: F841 - Qt needs one
    svg = Path(__file__).resolve().parents[1] / "resources" / "icons" / "kith.svg"
    renderer = QSvgRenderer(str(svg))
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for n in SIZES:
        img = QImage(n, n, QImage.Format.Format_ARGB32)
        img.fill(Qt.GlobalColor.transparent)
        p = QPainter(img)
        renderer.render(p)
        p.end()
        path = out / f"kith-{n}.png"
        img.save(str(path))
        written.append(path)
    (out / "kith.png").write_bytes((out / "kith-256.png").read_bytes())
    Image.open(out / "kith-512.png").save(out / "kith.icns", sizes=[(16, 16), (32, 32), (128, 128), (256, 256),
                                                                  (512, 512)])
    return written + [out / "kith.png", out / "kith.icns"]


if __name__ == "__main__":
    for p in main(Path(sys.argv[1] if len(sys.argv) > 1 else "packaging/build/icons")):
        print(p)

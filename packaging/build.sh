#!/usr/bin/env bash
# Build Kith's Linux one-folder app from a fresh clone:   packaging/build.sh
#
# Sets up .venv with scripts/setup.sh when there is none, installs PyInstaller, writes the demo archive
# (scripts/make_demo.py) and the icons, runs PyInstaller on packaging/kith.spec, and puts the .desktop
# file, the AppStream metadata and the icons beside the app:
#   dist/kith/kith                                  the app (no arguments: the window; else the CLI)
#   dist/kith/share/applications/kith.desktop
#   dist/kith/share/metainfo/org.kith.Kith.metainfo.xml
#   dist/kith/share/icons/hicolor/<n>x<n>/apps/org.kith.Kith.png
# Environment: KITH_BUILD_OUT (default dist), KITH_BUILD_WORK (default packaging/build).
# On macOS the same spec makes dist/Kith.app (bundle id org.kith.Kith).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${KITH_BUILD_OUT:-$ROOT/dist}
WORK=${KITH_BUILD_WORK:-$ROOT/packaging/build}
cd "$ROOT"
start=$(date +%s)

[ -x .venv/bin/python ] || bash scripts/setup.sh
PY=$ROOT/.venv/bin/python
"$PY" -c "import PyInstaller" 2>/dev/null || "$PY" -m pip install -q "pyinstaller>=6.10"
# Kith's own metadata (its version) must be installed for the bundle to carry it.
"$PY" -c "import importlib.metadata as m; m.version('kith-app')" 2>/dev/null || "$PY" -m pip install -q --no-deps "$ROOT"

"$PY" scripts/make_demo.py resources/demo
QT_QPA_PLATFORM=offscreen "$PY" packaging/make_icons.py "$WORK/icons" >/dev/null
QT_QPA_PLATFORM=offscreen "$PY" -m PyInstaller --noconfirm --clean --log-level WARN --distpath "$OUT" --workpath "$WORK/pyinstaller" \
  packaging/kith.spec

if [ "$(uname -s)" = "Linux" ]; then
  APP=$OUT/kith
  install -Dm644 packaging/linux/kith.desktop "$APP/share/applications/kith.desktop"
  install -Dm644 packaging/linux/org.kith.Kith.metainfo.xml "$APP/share/metainfo/org.kith.Kith.metainfo.xml"
  for n in 16 32 48 64 128 256 512; do
    install -Dm644 "$WORK/icons/kith-$n.png" "$APP/share/icons/hicolor/${n}x${n}/apps/org.kith.Kith.png"
  done
fi
echo "built $(du -sh "$OUT/kith" | cut -f1) in $OUT/kith in $(( $(date +%s) - start )) s"

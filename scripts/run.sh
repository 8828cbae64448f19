#!/usr/bin/env bash
# Set everything up, then open the Kith window.
#   ./scripts/run.sh                 open the window (under Xvfb automatically when there is no display)
#   ./scripts/run.sh --headless PNG  no display needed: render the window offscreen, save a screenshot, exit
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
. .venv/bin/activate
if [ "${1:-}" = "--headless" ]; then
  out=${2:-kith-window.png}
  QT_QPA_PLATFORM=offscreen exec kith gui --screenshot "$out"
fi
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ "$(uname -s)" = "Linux" ]; then
  echo "run: no display; starting the window under Xvfb (use --headless PNG for a screenshot instead)" >&2
  exec xvfb-run -a kith gui "$@"
fi
exec kith gui "$@"

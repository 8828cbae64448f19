#!/usr/bin/env bash
# Set everything up, then run Kith's whole test suite. Extra arguments go to pytest
# (e.g. ./scripts/test.sh -m "not slow" to skip the slow model tests locally).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
. .venv/bin/activate
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
exec python -m pytest "$@"

#!/usr/bin/env bash
# Set everything up, then run Kith's whole test suite. Extra arguments go to pytest
# (e.g. ./scripts/test.sh -m "not slow" to skip the slow model tests locally). The suite runs on two worker
# processes (pytest-xdist), about 6 minutes on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
. .venv/bin/activate
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
# two workers, each taking whole test files (module fixtures stay in one process); KITH_TEST_WORKERS=0 runs in one
exec python -m pytest -n "${KITH_TEST_WORKERS:-2}" --dist loadfile "$@"

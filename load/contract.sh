#!/usr/bin/env bash
# The API contract check: Schemathesis against the packaged app and its /q/openapi document, two runs (a fixed and
# a random seed) of at most --max-time seconds each [480]; fails on any failure, any 5xx, or fewer than MIN_CASES
# [2000] test cases in a run. 480 s: this machine (2 vCPUs AMD EPYC, shared) generates about N cases/s, so a run
# reaches 2,000 with margin and the phase stays under CI's 20 minutes. Starts and stops the embedded DB and the app.
# Options: load/contract.sh -h. The runner is the harness package (load/harness/contract.py); this launcher installs
# it into load/.venv.
set -euo pipefail
. "$(dirname "$0")/tools.sh"
ensure_python
exec "$PYTHON" -m harness contract "$@"

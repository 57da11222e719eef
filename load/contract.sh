#!/usr/bin/env bash
# The API contract check: Schemathesis against the packaged app and its /q/openapi document, two runs (a fixed and
# a random seed) of at most --max-time seconds each [420]; fails on any failure, any 5xx, or fewer than MIN_CASES
# [2000] test cases in a run. 420 s: on 2 vCPUs AMD EPYC (shared, a `mvnw verify` beside it) a passing run generated
# 10.5-12.1 cases/s (5058 and 5794 in 480 s), a failing one (shrinking) 5.7/s (1704 in 300 s); 420 s reaches 2,000
# even at that rate with 20% margin, and both runs with the app's start stay under CI's 20 minutes (~15 min).
# Starts and stops the embedded DB and the app. Options: load/contract.sh -h. The runner is the harness package
# (load/harness/runs/contract.py); this launcher installs it into load/.venv.
set -euo pipefail
. "$(dirname "$0")/tools.sh"
ensure_python
exec "$PYTHON" -m harness contract "$@"

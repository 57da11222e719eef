#!/usr/bin/env bash
# The API contract check: Schemathesis against the packaged app and its /q/openapi document, two runs (a fixed and
# a random seed), each bounded by test cases rather than time: every phase (examples, coverage, fuzzing, stateful)
# once, fuzzing --max-examples [8] cases per operation, stateful 30 scenarios (harness/runs/schemathesis.toml);
# fails on any failure, any 5xx, or fewer than --min-cases [2000] test cases in all. About 1,200 cases a run (810 of
# them the coverage phase's), ~11 cases/s on 2 shared vCPUs, so the check takes ~4 min instead of 2 x 420 s.
# Starts and stops the embedded DB and the app. Options: load/contract.sh -h. The runner is the harness package
# (load/harness/runs/contract.py); this launcher installs it into load/.venv.
set -euo pipefail
. "$(dirname "$0")/tools.sh"
ensure_python
exec "$PYTHON" -m harness contract "$@"

#!/usr/bin/env bash
# Measures every scenario in the three execution models (Vegeta rate sweep, hey concurrency sweep, the server's
# cost per step) and writes the report; starts and stops all it needs. Options: load/compare.sh -h. The runner is
# the harness package (load/harness/compare.py, docs/harness.md); this launcher installs it into load/.venv.
set -euo pipefail
. "$(dirname "$0")/tools.sh"
ensure_python
exec "$PYTHON" -m harness compare "$@"

#!/usr/bin/env bash
# Runs the harness's checks in load/.venv, creating it on first use (load/pyproject.toml): `ruff check`, then pytest
# (load/tests) with the package's line coverage (at least 70 %; .ci/run asks for 80 with --cov-fail-under=80). Extra
# arguments go to pytest (e.g. -m 'not slow' leaves out the tests that start MariaDB, the app, Vegeta and hey: CI's
# only real compare, chaos, scale and startup runs, whole or interrupted). Exit 1 when either fails.
#
# Usage: load/test.sh [pytest options]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/tools.sh"
ensure_python
rc=0
"$PYTHON" -m ruff check "$here" || rc=1
cd "$here" && PYTHONDONTWRITEBYTECODE=1 "$PYTHON" -m pytest --cov=harness --cov-report=term --cov-fail-under=70 --durations=5 "$@" \
  || rc=1
exit "$rc"

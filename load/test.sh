#!/usr/bin/env bash
# Runs the harness's tests (pytest, load/tests) in load/.venv, creating it on first use (load/pyproject.toml), and
# prints the line coverage of the package; `ruff check` comes first. Extra arguments go to pytest
# (e.g. -m 'not slow' skips the tests that start MariaDB, the app and Vegeta).
#
# Usage: load/test.sh [pytest options]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/tools.sh"
ensure_python
"$PYTHON" -m ruff check "$here"
cd "$here" && PYTHONDONTWRITEBYTECODE=1 exec "$PYTHON" -m pytest --cov=harness --cov-report=term --cov-fail-under=70 "$@"

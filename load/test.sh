#!/usr/bin/env bash
# Runs the unit tests of the load/ analysis (pytest, load/tests) in the harness's virtual environment, creating it
# on first use (load/requirements.txt). Extra arguments go to pytest.
#
# Usage: load/test.sh [pytest options]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/tools.sh"
ensure_python
PYTHONDONTWRITEBYTECODE=1 exec "$PYTHON" -m pytest -q -p no:cacheprovider "$here/tests" "$@"

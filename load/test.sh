#!/usr/bin/env bash
# Runs the harness's checks in load/.venv, creating it on first use (load/pyproject.toml): `ruff check`, then pytest
# (load/tests) with the package's line coverage (at least 70 %; .ci/run asks for 80 with --cov-fail-under=80). Extra
# arguments go to pytest (e.g. -m 'not slow' leaves out the tests that start MariaDB, the app, Vegeta and hey: CI's
# only real compare, chaos, scale and startup runs, whole or interrupted). Exit 1 when either fails.
#
# The tests run in two pytest-xdist workers (-n 0 after this script's name runs them in one process): the slow tests
# mostly wait on timed load, so two of them share this project's 2 vCPUs. The JVMs they start (the app, the delay
# service, Hyperfoil) compile with C1 only (JDK_JAVA_OPTIONS), as the Maven test JVMs do: these runs check behaviour,
# not speed (C1 took 4-36 % off the CPU each of the four longest cost the machine, run one at a time). Beside
# load/contract.sh, as .ci/run runs it: 671-700 s in one process with the JVMs' defaults, 403 s like this
# (2026-11-27, docs/results/ci-2026-11-27).
#
# Usage: load/test.sh [pytest options]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/tools.sh"
ensure_python
rc=0
"$PYTHON" -m ruff check "$here" || rc=1
export JDK_JAVA_OPTIONS="${JDK_JAVA_OPTIONS:+$JDK_JAVA_OPTIONS }-XX:TieredStopAtLevel=1"
cd "$here" && PYTHONDONTWRITEBYTECODE=1 "$PYTHON" -m pytest -n 2 --dist loadgroup --cov=harness --cov-report=term \
  --cov-fail-under=70 --durations=5 "$@" || rc=1
exit "$rc"

#!/usr/bin/env bash
# Measures the scenarios in the three execution models (Vegeta and hey, the server's cost per step or trial) and
# writes the report; starts and stops all it needs. Every option is a flag: load/compare.sh -h, e.g.
#   load/compare.sh --experiment scale --app-java-opts=-XX:+UseG1GC   (a value starting with '-' needs the '=')
# The environment only overrides ports, the database, the cache, vegeta and JAVA_HOME (docs/harness.md
# "Environment"). The runner is the harness package (load/harness/runs/compare.py, docs/harness.md); this launcher
# installs it into load/.venv.
set -euo pipefail
. "$(dirname "$0")/tools.sh"
start_vegeta_build
ensure_python
exec "$PYTHON" -m harness compare "$@"

#!/usr/bin/env bash
# Failure checks: overload and recovery, SIGTERM under load, checkout through delay-service and database outages,
# hostile clients; pass/fail per check, exit 1 when one failed. Every parameter is a flag: load/chaos.sh -h, e.g.
#   load/chaos.sh --checks overload --rate-worker 3000 --app-java-opts=-XX:+UseG1GC
# The checks are the harness package (load/harness/runs/chaos/, docs/harness.md); this launcher installs it into
# load/.venv.
set -euo pipefail
. "$(dirname "$0")/tools.sh"
ensure_python
exec "$PYTHON" -m harness chaos "$@"

#!/usr/bin/env bash
# Startup and memory of the packaged app (jvm, aot, quarkus-aot, native): time and CPU to the first 200, RSS then
# and after a fixed load, over several starts. Parameters are environment variables: load/startup.sh -h. The
# measurement is the harness package (load/harness/startup.py, docs/harness.md); this launcher installs it.
set -euo pipefail
. "$(dirname "$0")/tools.sh"
ensure_python
exec "$PYTHON" -m harness startup "$@"

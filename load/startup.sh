#!/usr/bin/env bash
# Startup and memory of the packaged app (jvm, aot, quarkus-aot, native): time and CPU to the first 200, RSS then
# and after a fixed load, over several starts. Every parameter is a flag: load/startup.sh -h, e.g.
#   load/startup.sh --variants jvm,aot --runs 5 --java-opts=-XX:+UseParallelGC
# The measurement is the harness package (load/harness/runs/startup.py, docs/startup.md); this launcher installs it.
set -euo pipefail
. "$(dirname "$0")/tools.sh"
ensure_python
exec "$PYTHON" -m harness startup "$@"

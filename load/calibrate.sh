#!/usr/bin/env bash
# Calibrates the cost model on this machine (14-16 minutes here): the workload scenario at shapes that vary one part
# of a request at a time, per series, then load/results/calibration.json, which `vtvr-harness advise` reads
# (docs/advise.md). Options: load/calibrate.sh -h.
#
# Usage: load/calibrate.sh [--modes virtual,worker,reactive] [--reps 3] [--quick] [--out DIR]
set -euo pipefail
. "$(dirname "$0")/tools.sh"
ensure_python
exec "$PYTHON" -m harness calibrate "$@"

#!/usr/bin/env bash
# Open-model load on one endpoint: Vegeta sends a constant request rate whatever the latency, so a slow
# server shows up as latency, not as a lower send rate (no coordinated omission). Prints Vegeta's text report.
#
# Usage: load/vegeta.sh [-h] MODE SCENARIO [RATE] [DURATION]
#   MODE      virtual | worker | reactive (or floor, ladder-<rung>: docs/floor.md)
#   SCENARIO  io | fanout | db | slow-query | checkout | cpu | pinning | pinning-reentrant
#   RATE      requests per second                                          [100]
#   DURATION  how long to send, Go duration (5s, 1m)                        [10s]
#
# Environment (defaults in brackets):
#   APP_URL      base URL of the service                                    [http://127.0.0.1:8080]
#   VTVR_REMOTE  1: allow an APP_URL on another machine                      [0: loopback only]
#   RATE, DURATION  as the arguments above (arguments win)
#   TIMEOUT      per-request timeout; Vegeta waits at most this long for the last answers   [30s]
#   OUT          keep the raw results in OUT.bin and the JSON report in OUT.json             [unset]
#   VEGETA_ARGS  extra 'vegeta attack' flags, e.g. "-max-workers 2000"                        [unset]
#   DELAY, IO_CALLS, FANOUT_CALLS, DB_QUERIES, SLOW_DELAY, CPU_N, PINNING_LOCK: scenario parameters,
#                default: the app's catalogue, GET /scenarios (docs/harness.md)
#   WORKLOAD     the workload scenario's shape, e.g. 'calls=3,delay=50,queries=2'
#
# Example: RATE=500 load/vegeta.sh virtual io; OUT=/tmp/io load/vegeta.sh worker io 2000 20s
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib.sh"
. "$here/tools.sh"

vtvr_cli RATE 100 "$@"
rate="$level"

ensure_vegeta; ensure_python
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
vtvr_target "$mode" "$scenario" "$work" >"$work/targets" || die "see above"   # sets REQ_* too

results="$work/results.bin"
if [ -n "${OUT:-}" ]; then mkdir -p "$(dirname "$OUT")"; results="$OUT.bin"; fi
# shellcheck disable=SC2086,SC2046  # VEGETA_ARGS is a list of flags; laddr_for prints a flag and its value
"$VEGETA" attack -targets "$work/targets" -rate "$rate/1s" -duration "$duration" -timeout "${TIMEOUT:-30s}" \
  $(laddr_for "$base") -name "$mode-$scenario-$rate" ${VEGETA_ARGS:-} >"$results"
[ -z "${OUT:-}" ] || "$VEGETA" report -type json <"$results" >"$OUT.json"
echo "# vegeta $mode $scenario: $REQ_METHOD $base$REQ_PATH at $rate req/s for $duration"
"$VEGETA" report -type text <"$results"

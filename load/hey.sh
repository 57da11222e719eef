#!/usr/bin/env bash
# Closed-model load on one endpoint: hey keeps CONCURRENCY requests in flight, each worker sending its next
# request only when the last one answered, so it finds the saturation throughput (Little's law:
# throughput = concurrency / latency). Latency under a closed model hides queueing; use vegeta.sh for latency.
#
# Usage: load/hey.sh [-h] MODE SCENARIO [CONCURRENCY] [DURATION]
#   MODE         virtual | worker | reactive (or floor, ladder-<rung>: docs/floor.md)
#   SCENARIO     io | fanout | db | slow-query | checkout | cpu | pinning | pinning-reentrant
#   CONCURRENCY  requests in flight (hey workers)                     [50]
#   DURATION     how long to run, Go duration (5s, 1m)                [10s]
#
# Environment (defaults in brackets):
#   APP_URL        base URL of the service                            [http://127.0.0.1:8080]
#   CONCURRENCY, DURATION  as the arguments above (arguments win)
#   TIMEOUT_S      per-request timeout in seconds                     [20]
#   OUT            write hey's per-request CSV to OUT.csv and print a summary computed from it   [unset]
#   HEY_ARGS       extra hey flags, e.g. "-disable-keepalive"         [unset]
#   DELAY, IO_CALLS, FANOUT_CALLS, DB_QUERIES, SLOW_DELAY, CPU_N, PINNING_LOCK: scenario parameters,
#                  default: the app's catalogue, GET /scenarios (docs/harness.md)
#   WORKLOAD       the workload scenario's shape, e.g. 'calls=3,delay=50,queries=2'
#
# hey's CSV lists answered requests only (any status); transport errors and timeouts appear only in its
# text summary, which is what you get without OUT.
#
# Example: load/hey.sh worker io 400 10s; OUT=/tmp/io-400 load/hey.sh virtual io 400
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib.sh"
. "$here/tools.sh"

vtvr_cli CONCURRENCY 50 "$@"
conc="$level"

ensure_hey; ensure_python
vtvr_request "$mode" "$scenario" || die "see above"
args=(-z "$duration" -c "$conc" -t "${TIMEOUT_S:-20}" -m "$REQ_METHOD")
[ -z "$REQ_BODY" ] || args+=(-T application/json -d "$REQ_BODY")

echo "# hey $mode $scenario: $REQ_METHOD $base$REQ_PATH with $conc in flight for $duration"
if [ -n "${OUT:-}" ]; then
  mkdir -p "$(dirname "$OUT")"
  # shellcheck disable=SC2086  # HEY_ARGS is a list of flags
  "$HEY" "${args[@]}" ${HEY_ARGS:-} -o csv "$base$REQ_PATH" >"$OUT.csv"
  "$PYTHON" -m harness report hey-summary "$OUT.csv"
else
  # shellcheck disable=SC2086
  "$HEY" "${args[@]}" ${HEY_ARGS:-} "$base$REQ_PATH"
fi

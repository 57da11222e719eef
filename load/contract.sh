#!/usr/bin/env bash
# The API contract check: Schemathesis (load/contract-requirements.txt) against the packaged app and its
# /q/openapi document, every check and every phase (examples, coverage, fuzzing, stateful: checkout -> order
# read-back through the document's links), once with a fixed seed and once with a random one. Fails on any failure
# or when a run generated fewer than MIN_CASES test cases.
#
#   load/contract.sh [--max-time SECONDS] [--seed N]
#
#   --max-time SECONDS   time budget of each of the two runs (fuzzing and stateful repeat until it is spent) [300]
#   --seed N             the fixed seed [20261122]; the second run's seed is random and printed for 'st run --seed'
#
# Parameters (environment):
#   DB_PORT      embedded MariaDB port (load/db.sh); reused when already running, else started and stopped [3306]
#   MIN_CASES    fewest generated test cases a run must reach [2000]
#   VTVR_CACHE   the virtual environment and the database binaries [~/.cache/vt-vs-reactive]
#
# The app runs with smaller limits than its defaults (bench.max-delay 500 ms, bench.max-calls 10, bench.max-queries
# 50, bench.max-n 100,000), so no generated request waits seconds; the document reads them from the configuration,
# so it still describes the running app exactly. One worker: with two or four, Hypothesis parsing its lambdas from
# several threads at once hit a CPython 3.11 fault ("AST constructor recursion depth mismatch", a Runtime Error).
# The jar is target/quarkus-app (./mvnw verify builds it; built here if missing).
# Reports (JUnit XML, ndjson) and logs go to load/results/contract-<time>/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib.sh"

MAX_TIME=300 SEED=20261122
while [ $# -gt 0 ]; do
  opt="$1" val="" shift_by=1
  case "$opt" in --*=*) val="${opt#*=}"; opt="${opt%%=*}" ;; esac
  case "$opt" in
    --max-time) takes "$@"; MAX_TIME="$val" ;;
    --seed) takes "$@"; SEED="$val" ;;
    -h|--help) usage; exit 0 ;;
    *) usage; die "unknown option $opt" ;;
  esac
  shift "$shift_by"
done
DB_PORT="${DB_PORT:-3306}" MIN_CASES="${MIN_CASES:-2000}"
out="$here/results/contract-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
find_jdk

venv="$VTVR_CACHE/contract-venv"
if ! cmp -s "$here/contract-requirements.txt" "$venv/requirements.txt" 2>/dev/null; then
  log "installing $(grep -v '^#' "$here/contract-requirements.txt" | xargs) into $venv"
  rm -rf "$venv" && python3 -m venv "$venv" && "$venv/bin/pip" install -q -r "$here/contract-requirements.txt"
  cp "$here/contract-requirements.txt" "$venv/requirements.txt"
fi

jar="$VTVR_ROOT/target/quarkus-app/quarkus-run.jar"
[ -f "$jar" ] || (cd "$VTVR_ROOT" && ./mvnw -B -q package -DskipTests)

APP_PID="" DB_STARTED=0
cleanup() {
  stop_pid "$APP_PID"
  if [ "$DB_STARTED" = 1 ]; then DB_PORT="$DB_PORT" "$here/db.sh" stop >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT
if ! DB_PORT="$DB_PORT" "$here/db.sh" status >/dev/null 2>&1; then
  DB_PORT="$DB_PORT" "$here/db.sh" start >"$out/db.log" 2>&1 || { tail "$out/db.log" >&2; die "load/db.sh start failed"; }
  DB_STARTED=1
fi

port="$(free_port)" app="http://127.0.0.1:$port"
BENCH_MAX_DELAY=500 BENCH_MAX_CALLS=10 BENCH_MAX_N=100000 BENCH_MAX_QUERIES=50 QUARKUS_HTTP_PORT="$port" \
  QUARKUS_DATASOURCE_JDBC_URL="jdbc:mysql://127.0.0.1:$DB_PORT/bench" QUARKUS_DATASOURCE_REACTIVE_URL="mysql://127.0.0.1:$DB_PORT/bench" \
  "$JAVA_HOME/bin/java" -jar "$jar" >"$out/app.log" 2>&1 &
APP_PID=$!
wait_ready "$APP_PID" "$app/q/health/ready" 90 || { tail -20 "$out/app.log" >&2; die "the app did not start (log: $out/app.log)"; }
log "app on $app (log: $out/app.log)"

failed=0
for seed in "$SEED" "$((RANDOM * 32768 + RANDOM))"; do
  log "schemathesis, seed $seed, at most $MAX_TIME s (replay: st run $app/q/openapi?format=json --url $app -c all --seed $seed)"
  rc=0
  "$venv/bin/st" run "$app/q/openapi?format=json" --url "$app" --checks all --phases examples,coverage,fuzzing,stateful \
    --seed "$seed" --max-time "$MAX_TIME" --workers 1 --request-timeout 30 --no-color \
    --report junit,ndjson --report-dir "$out/seed-$seed" 2>&1 | tee "$out/seed-$seed.log" || rc=$?
  cases="$(grep -oE '[0-9]+ generated' "$out/seed-$seed.log" | tail -1 | cut -d' ' -f1)"
  log "seed $seed: exit $rc, ${cases:-no} test cases generated"
  if [ "$rc" != 0 ]; then failed=1; fi
  if [ "${cases:-0}" -lt "$MIN_CASES" ]; then log "seed $seed generated fewer than $MIN_CASES test cases"; failed=1; fi
done
[ "$failed" = 0 ] || die "the API contract check failed (reports: $out)"
log "the API contract holds (reports: $out)"

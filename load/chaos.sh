#!/usr/bin/env bash
# Failure checks: does the service recover from overload without a restart, stop promptly on SIGTERM under load,
# and keep its books straight while the delay service and the database go away and come back? Each check is a
# pass/fail with its figures; the exit status is 1 when any check failed. Everything runs on 127.0.0.1, on free
# ports, from a copy of target/quarkus-app (a concurrent rebuild does not disturb it), with its own embedded
# MariaDB in a temporary folder; all of it is stopped on exit.
#
# Usage: load/chaos.sh [options]
#   --quick             the CI preset, about 2 minutes on a quiet machine: 8 s overload rounds with a 5 s client
#                       timeout, 3 s warm-ups, shorter gaps in the checkout run
#   --checks a,b        hostile, overload, sigterm, checkout (run in this order)  [hostile,overload,sigterm,checkout]
#   --modes a,b         modes overloaded in check 1, in this order                    [worker,virtual,reactive]
#   --duration D        length of each overload round, in seconds                     [30; --quick 8]
#   --out DIR           where results go                                   [load/results/chaos-<timestamp>]
#   -h, --help
#
# Checks:
#   1 overload   one app for all rounds (no restart in between): Vegeta drives GET /{mode}/io at RATE_<MODE> for
#                --duration, then stops; from that moment io and db of EVERY mode must all answer 200 within
#                RECOVERY_LIMIT s (then 3 more times each). Printed: requests sent, achieved rate, codes, recovery.
#   2 sigterm    Vegeta drives GET /virtual/io at SIGTERM_RATE; after SIGTERM_AFTER s the app gets SIGTERM and must
#                be gone within SIGTERM_LIMIT s (quarkus.shutdown.timeout=10s + margin).
#   3 checkout   a fresh app, warmed up; then POST /{mode}/orders round-robin over the three modes at
#                CHECKOUT_RATE, each order with its own customer chaos-<runid>-<n>. Timeline: CHECKOUT_LEAD s of load,
#                the delay service is killed (SIGKILL) and restarted OUTAGE s later; CHECKOUT_GAP s after it answers
#                again the database is stopped (load/db.sh stop) and started OUTAGE s later; CHECKOUT_TAIL s after
#                that the load stops. Then: every 2xx order is readable via GET /{mode}/orders/{id} with its
#                customer; the database holds no chaos order whose request got an error (one whose request got no
#                answer at all is counted apart as 'unknown'); requests sent after the database came back got 2xx.
#   5 hostile    one hostile client (load/chaos/hostile.py, docs/hostile-clients.md), on the app of check 1 and before
#                its overload rounds, which leave a backlog behind: 2,000 idle
#                connections do not keep a new client out (200 within 1 s); four clients looping on the heaviest
#                reactive cpu leave virtual and worker io at p99 < 250 ms (HOSTILE_FLOOD s); past bench.max-in-flight
#                requests in progress a mode answers 503 problem at once and frees the slots when the client hangs up.
#   4 outage smoke, during check 3's outages: GET /{mode}/io answers 502 within 1 s while the delay service is
#                down, GET /{mode}/db answers 503 within DB_DOWN_LIMIT s while the database is down (3 requests
#                per mode: all must have that status, the median time must be within the limit).
#
# Environment (defaults in brackets):
#   RATE_WORKER, RATE_VIRTUAL, RATE_REACTIVE  overload rates in req/s: twice what each mode sustains on io at
#                   DELAY ms. worker: 200 threads / 0.1 s = a 2,000 req/s ceiling. On 2 cores shared with Vegeta,
#                   the delay service and MariaDB, virtual answered ~5,000 and reactive ~7,000 req/s with no error;
#                   Vegeta itself tops out near 8,000 req/s there, so the achieved rate (printed) is then Vegeta's
#                   ceiling rather than twice the mode's                 [4000, 10000, 16000]
#   OVERLOAD_TIMEOUT   Vegeta's per-request timeout in check 1 (a client that gives up)   [10s; --quick 5s]
#   OVERLOAD_WORKERS   Vegeta's -max-workers in check 1 (bounds its sockets and memory)        [6000]
#   RECOVERY_LIMIT     seconds from the end of an overload round to every probe answering 200   [10]
#   RECOVERY_GIVE_UP   seconds the recovery probes keep trying before reporting a failure       [40]
#   SIGTERM_RATE, SIGTERM_AFTER, SIGTERM_LIMIT   req/s, seconds of load before SIGTERM, seconds to exit
#                                                                        [1000, 3, 12]
#   CHECKOUT_RATE      orders per second in check 3                                           [100]
#   CHECKOUT_LEAD, CHECKOUT_GAP, CHECKOUT_TAIL  seconds of load before the delay outage, between the delay
#                      service's return and the database outage, after the database's return
#                                                                        [10, 10, 15; --quick 4, 5, 8]
#   CHECKOUT_WARMUP    seconds of uncounted checkout load (customers chaoswarm-...) on the fresh app [5; --quick 3]
#   CHECKOUT_TIMEOUT   client timeout of check 3, far above the service's own bounded waits (delay read timeout
#                      15 s per call, 3 s database acquisition) so that no request ends 'unknown'   [60s]
#   OUTAGE             seconds from stopping the delay service / the database to starting it again; their
#                      start-up comes on top (the real down times are printed)               [3]
#   DB_DOWN_LIMIT      seconds within which /{mode}/db must answer 503 while the database is down  [5]
#   WARMUP, WARMUP_RATE  warm-up (io and db, all modes) before check 1, seconds and req/s  [10, 300; --quick 3]
#   DELAY              ms of each delay call in io and checkout (load/scenarios.sh)            [100]
#   APP_PORT, DELAY_PORT, DB_PORT  ports on 127.0.0.1          [free ports below the ephemeral range]
#   APP_JAVA_OPTS, DELAY_JAVA_OPTS JVM flags of the app and of the delay service          [none]
#   VEGETA, PYTHON, VTVR_CACHE, MARIADB_VERSION   see load/tools.sh and load/db.sh
#
# Leaves DIR/summary.md, summary.json (every figure), params.json, checks/*.json, raw/ (Vegeta results), logs/.
# Needs: a JDK 21+, Vegeta (load/tools.sh builds it), Python 3.9+, curl; the jar is built only when missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source-path=SCRIPTDIR
. "$here/tools.sh"       # also sources lib.sh
# shellcheck source-path=SCRIPTDIR
. "$here/scenarios.sh"


quick=0 checks="hostile,overload,sigterm,checkout" modes="worker,virtual,reactive" duration="" out=""
while [ $# -gt 0 ]; do
  opt="$1"; val=""; shift_by=1
  case "$opt" in --*=*) val="${opt#*=}"; opt="${opt%%=*}" ;; esac
  case "$opt" in
    -h|--help) usage; exit 0 ;;
    --quick) quick=1 ;;
    --checks|--check) takes "$@"; checks="$val" ;;
    --modes|--mode) takes "$@"; modes="$val" ;;
    --duration) takes "$@"; duration="$val" ;;
    --out) takes "$@"; out="$val" ;;
    *) die "unknown option '$opt' (load/chaos.sh -h lists them)" ;;
  esac
  shift "$shift_by"
done

if [ "$quick" = 1 ]; then q="8 3 5s 4 5 8 3"; else q="30 10 10s 10 10 15 5"; fi
read -r q_dur q_warm q_timeout q_lead q_gap q_tail q_cwarm <<<"$q"
DURATION="${duration:-${DURATION:-$q_dur}}"
RATE_WORKER="${RATE_WORKER:-4000}" RATE_VIRTUAL="${RATE_VIRTUAL:-10000}" RATE_REACTIVE="${RATE_REACTIVE:-16000}"
OVERLOAD_TIMEOUT="${OVERLOAD_TIMEOUT:-$q_timeout}" OVERLOAD_WORKERS="${OVERLOAD_WORKERS:-6000}"
RECOVERY_LIMIT="${RECOVERY_LIMIT:-10}" RECOVERY_GIVE_UP="${RECOVERY_GIVE_UP:-40}"
SIGTERM_RATE="${SIGTERM_RATE:-1000}" SIGTERM_AFTER="${SIGTERM_AFTER:-3}" SIGTERM_LIMIT="${SIGTERM_LIMIT:-12}"
CHECKOUT_RATE="${CHECKOUT_RATE:-100}" CHECKOUT_LEAD="${CHECKOUT_LEAD:-$q_lead}" CHECKOUT_GAP="${CHECKOUT_GAP:-$q_gap}"
CHECKOUT_TAIL="${CHECKOUT_TAIL:-$q_tail}" CHECKOUT_WARMUP="${CHECKOUT_WARMUP:-$q_cwarm}"
CHECKOUT_TIMEOUT="${CHECKOUT_TIMEOUT:-60s}" OUTAGE="${OUTAGE:-3}"
DB_DOWN_LIMIT="${DB_DOWN_LIMIT:-5}"
HOSTILE_FLOOD="${HOSTILE_FLOOD:-$([ "$quick" = 1 ] && echo 5 || echo 10)}"
WARMUP="${WARMUP:-$q_warm}" WARMUP_RATE="${WARMUP_RATE:-300}"
export DELAY="${DELAY:-100}"

for v in DURATION RATE_WORKER RATE_VIRTUAL RATE_REACTIVE OVERLOAD_WORKERS RECOVERY_LIMIT RECOVERY_GIVE_UP SIGTERM_RATE \
         SIGTERM_AFTER SIGTERM_LIMIT CHECKOUT_RATE CHECKOUT_LEAD CHECKOUT_GAP CHECKOUT_TAIL CHECKOUT_WARMUP OUTAGE \
         DB_DOWN_LIMIT WARMUP WARMUP_RATE DELAY HOSTILE_FLOOD; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || die "$v must be a whole number, got '${!v}'"
done
for c in ${checks//,/ }; do case "$c" in overload|hostile|sigterm|checkout) ;; *) die "unknown check '$c' (overload, hostile, sigterm, checkout)" ;; esac; done
for m in ${modes//,/ }; do [[ " $VTVR_MODES " == *" $m "* ]] || die "unknown mode '$m' (one of: $VTVR_MODES)"; done
if [ "$CHECKOUT_TAIL" -lt 1 ] || [ "$CHECKOUT_RATE" -lt 1 ]; then die "CHECKOUT_TAIL and CHECKOUT_RATE must be at least 1"; fi
want() { [[ ",$checks," == *",$1,"* ]]; }

ensure_vegeta; ensure_python; need curl "apt-get install curl"
find_jdk; JAVA="$JAVA_HOME/bin/java"
MARIADB_CLIENT="$VTVR_CACHE/mariadb-${MARIADB_VERSION:-11.4.5}/bin/mariadb"
chaos() { "$PYTHON" "$here/chaos/chaos.py" "$@"; }
now() { date +%s.%N; }
ms_since() { "$PYTHON" -c 'import sys,time; print(round((time.time()-float(sys.argv[1]))*1000))' "$1"; }

stamp="$(date +%Y%m%d-%H%M%S)"
out="${out:-$VTVR_ROOT/load/results/chaos-$stamp}"
mkdir -p "$out/checks" "$out/raw" "$out/logs"
out="$(cd "$out" && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/vtvr-chaos.XXXXXX")"
runid="$stamp-$$"

# ---------------------------------------------------------------------------------------------- processes
APP_PID="" DELAY_PID="" TOOL_PIDS="" DB_STARTED=0
db() { DB_PORT="$DB_PORT" DB_DIR="$tmp/db" "$here/db.sh" "$@"; }
cleanup() {
  local rc=$? p
  trap - EXIT INT TERM
  for p in $TOOL_PIDS; do stop_pid "$p" INT 5; done
  # both at once: each waits out quarkus.shutdown.timeout (docs/faults.md, check 2)
  for p in $APP_PID $DELAY_PID; do if alive "$p"; then kill -TERM "$p" 2>/dev/null || true; fi; done
  stop_pid "$APP_PID" TERM 15; stop_pid "$DELAY_PID" TERM 5
  if [ "$DB_STARTED" = 1 ]; then db stop >>"$out/logs/db.log" 2>&1 || true; fi
  [ ! -f "$tmp/db/mariadbd.err" ] || cp "$tmp/db/mariadbd.err" "$out/logs/mariadbd.err" 2>/dev/null || true
  rm -rf "$tmp"
  # a run cut short (error, Ctrl-C) still leaves a summary of the checks it finished, marked incomplete
  if [ ! -f "$out/summary.json" ] && [ -f "$out/params.json" ]; then
    "$PYTHON" "$here/chaos/chaos.py" summary --dir "$out" --incomplete >&2 || true
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT
trap 'log "terminated"; exit 143' TERM

# the app, from a private copy: another build may replace target/quarkus-app at any moment
src="$VTVR_ROOT/target/quarkus-app"
if [ ! -f "$src/quarkus-run.jar" ]; then
  log "no $src/quarkus-run.jar: building (./mvnw -B -q package -DskipTests; log: $out/logs/build.log)"
  (cd "$VTVR_ROOT" && ./mvnw -B -q package -DskipTests) >"$out/logs/build.log" 2>&1 \
    || { tail -30 "$out/logs/build.log" >&2; die "build failed, see $out/logs/build.log"; }
fi
stale="$(cd "$VTVR_ROOT" && find src/main pom.xml -type f -newer "$src/quarkus-run.jar" 2>/dev/null | head -1)"
[ -z "$stale" ] || log "note: $stale is newer than the jar; testing the jar as built"
for attempt in 1 2 3; do
  rm -rf "$tmp/app"
  cp -a "$src" "$tmp/app" 2>/dev/null && [ -f "$tmp/app/quarkus-run.jar" ] && [ -d "$tmp/app/lib" ] && break
  [ "$attempt" -lt 3 ] || die "could not copy $src (a build running?)"
  log "copying $src failed (a build running?), retrying in 10 s"; sleep 10
done
jar="$tmp/app/quarkus-run.jar"

APP_PORT="${APP_PORT:-$(free_port)}"
DELAY_PORT="${DELAY_PORT:-$(free_port)}"
DB_PORT="${DB_PORT:-$(free_port)}"
APP_URL="http://127.0.0.1:$APP_PORT"
if [ "$APP_PORT" = "$DELAY_PORT" ] || [ "$APP_PORT" = "$DB_PORT" ] || [ "$DELAY_PORT" = "$DB_PORT" ]; then
  die "APP_PORT, DELAY_PORT and DB_PORT must differ ($APP_PORT, $DELAY_PORT, $DB_PORT)"
fi

start_delay() {   # start_delay LABEL
  # shellcheck disable=SC2086
  start_delay_service "$jar" "$DELAY_PORT" "$out/logs/delay.log" ${DELAY_JAVA_OPTS:-}
}
start_app() {   # start_app LABEL
  local t0=$SECONDS
  # shellcheck disable=SC2086
  env QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT="$APP_PORT" QUARKUS_REST_CLIENT_DELAY_URL="http://127.0.0.1:$DELAY_PORT" \
    QUARKUS_DATASOURCE_JDBC_URL="jdbc:mysql://127.0.0.1:$DB_PORT/bench" \
    QUARKUS_DATASOURCE_REACTIVE_URL="mysql://127.0.0.1:$DB_PORT/bench" \
    "$JAVA" ${APP_JAVA_OPTS:-} -jar "$jar" >"$out/logs/app-$1.log" 2>&1 &
  APP_PID=$!
  wait_ready "$APP_PID" "$APP_URL/q/health/ready" 120 \
    || { tail -30 "$out/logs/app-$1.log" >&2; die "the app ($1) did not become ready on $APP_URL"; }
  log "app ($1) ready in $((SECONDS - t0)) s (pid $APP_PID, $APP_URL)"
}

# vegeta_bg NAME ARGS...: starts 'vegeta attack ARGS' writing raw/NAME.bin; sets VPID. Each run binds its own
# loopback source address (loopback_source in lib.sh).
vegeta_bg() {
  local name="$1"; shift
  "$VEGETA" attack -laddr "$(loopback_source)" "$@" -output "$out/raw/$name.bin" 2>"$out/logs/vegeta-$name.log" &
  VPID=$!; TOOL_PIDS="$TOOL_PIDS $VPID"
}
vegeta_wait() {   # vegeta_wait PID SECONDS [DRAIN_S]: waits; after SECONDS interrupts it (stop sending, keep
                  # results) and gives the requests in flight DRAIN_S (10) seconds more
  local i
  for ((i = 0; i < $2 * 10; i++)); do alive "$1" || break; sleep 0.1; done
  stop_pid "$1" INT "${3:-10}"
  TOOL_PIDS="${TOOL_PIDS/ $1/}"
}
vegeta_figures() {   # vegeta_figures NAME -> raw/NAME.report.json, prints the compact figures
  "$VEGETA" report -type json "$out/raw/$1.bin" >"$out/raw/$1.report.json"
  chaos report "$out/raw/$1.report.json" >"$out/raw/$1.figures.json"
  cat "$out/raw/$1.figures.json"
}
figure_line() { "$PYTHON" -c 'import json,sys; f=json.load(open(sys.argv[1])); print("{requests} requests at {rate}/s achieved (throughput {throughput}/s), codes {codes}, p50 {p50_ms} ms, p99 {p99_ms} ms".format(**f) + (", errors {}".format(f["errors"]) if f["errors"] else ""))' "$1"; }

failed=0
verdict() {   # verdict CHECK_FILE: logs PASS/FAIL, counts failures
  local ok; ok="$("$PYTHON" -c 'import json,sys; print("PASS" if json.load(open(sys.argv[1]))["pass"] else "FAIL")' "$1")"
  [ "$ok" = PASS ] || failed=$((failed + 1))
  log "$ok: $("$PYTHON" -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["id"], r["name"])' "$1")"
}

"$PYTHON" - "$out/params.json" <<PY
import json, sys
json.dump({"started": "$stamp", "quick": $quick, "checks": "$checks", "modes": "$modes", "duration_s": $DURATION,
  "rate_worker": $RATE_WORKER, "rate_virtual": $RATE_VIRTUAL, "rate_reactive": $RATE_REACTIVE,
  "overload_timeout": "$OVERLOAD_TIMEOUT", "overload_workers": $OVERLOAD_WORKERS, "recovery_limit_s": $RECOVERY_LIMIT,
  "sigterm_rate": $SIGTERM_RATE, "sigterm_after_s": $SIGTERM_AFTER, "sigterm_limit_s": $SIGTERM_LIMIT,
  "checkout_rate": $CHECKOUT_RATE, "checkout_lead_s": $CHECKOUT_LEAD, "checkout_gap_s": $CHECKOUT_GAP,
  "checkout_tail_s": $CHECKOUT_TAIL, "checkout_warmup_s": $CHECKOUT_WARMUP, "checkout_timeout": "$CHECKOUT_TIMEOUT",
  "outage_s": $OUTAGE, "db_down_limit_s": $DB_DOWN_LIMIT, "hostile_flood_s": $HOSTILE_FLOOD,
  "warmup_s": $WARMUP, "warmup_rate": $WARMUP_RATE, "delay_ms": $DELAY, "runid": "$runid",
  "cores": $(nproc 2>/dev/null || echo 0), "java": "$("$JAVA" -version 2>&1 | head -1 | tr -d '"')",
  "vegeta": "$( (PATH="$PATH:/usr/local/go/bin" go version -m "$VEGETA" 2>/dev/null || true) | awk '$1 == "mod" && $2 == "github.com/tsenart/vegeta/v12" {print $3; exit}')"},
  open(sys.argv[1], "w"), indent=1)
PY
log "results -> $out; app $APP_URL, delay service :$DELAY_PORT, MariaDB :$DB_PORT (data in $tmp/db)"

# ---------------------------------------------------------------------------------------------- start
DB_STARTED=1
db start >"$out/logs/db.log" 2>&1 &
db_start_pid=$!
start_delay first
wait "$db_start_pid" || { tail -20 "$out/logs/db.log" >&2; die "load/db.sh start failed"; }

probe_paths=""
for m in $VTVR_MODES; do
  for s in io db; do vtvr_request "$m" "$s"; probe_paths="$probe_paths,$REQ_PATH"; done
done
probe_paths="${probe_paths#,}"

if want overload || want hostile || want sigterm; then
  start_app first
  chaos recover --base "$APP_URL" --paths "$probe_paths" --since "$(now)" --limit 30 --give-up 30 >"$out/raw/baseline.json"
  grep -q '"pass": true' "$out/raw/baseline.json" || die "before any load, not every probe answers 200: $(cat "$out/raw/baseline.json")"
  : >"$tmp/warm.targets"
  for p in ${probe_paths//,/ }; do printf 'GET %s%s\n\n' "$APP_URL" "$p" >>"$tmp/warm.targets"; done
  log "warm-up: io and db of every mode, ${WARMUP} s at $WARMUP_RATE req/s"
  vegeta_bg warmup -targets "$tmp/warm.targets" -rate "$WARMUP_RATE/1s" -duration "${WARMUP}s" -timeout 10s
  vegeta_wait "$VPID" $((WARMUP + 15))
  log "warm-up: $(vegeta_figures warmup >/dev/null; figure_line "$out/raw/warmup.figures.json")"
fi

# ---------------------------------------------------------------------------------------------- 5 hostile
# before the overload rounds, whose backlog (delay calls still queued in the REST client) would blur check 5.2
if want hostile; then
  log "5 hostile: 2,000 idle connections, a reactive cpu flood for $HOSTILE_FLOOD s, admission past bench.max-in-flight"
  "$PYTHON" "$here/chaos/hostile.py" --base "$APP_URL" --checks "$out/checks" --flood "$HOSTILE_FLOOD" \
    >"$out/logs/hostile.log" 2>&1 || true
  sed 's/^/  /' "$out/logs/hostile.log" >&2
  for f in "$out"/checks/5?-hostile-*.json; do [ -f "$f" ] && verdict "$f"; done
  alive "$APP_PID" || die "the app died during the hostile-client checks (log: $out/logs/app-first.log)"
fi

# ---------------------------------------------------------------------------------------------- 1 overload
if want overload; then
  n=0
  for m in ${modes//,/ }; do
    n=$((n + 1))
    case "$m" in worker) rate=$RATE_WORKER ;; virtual) rate=$RATE_VIRTUAL ;; reactive) rate=$RATE_REACTIVE ;; esac
    vtvr_request "$m" io
    log "1 overload $m: GET $REQ_PATH at $rate req/s for $DURATION s (timeout $OVERLOAD_TIMEOUT, max $OVERLOAD_WORKERS workers)"
    printf 'GET %s%s\n' "$APP_URL" "$REQ_PATH" >"$tmp/overload.targets"
    vegeta_bg "overload-$m" -targets "$tmp/overload.targets" -rate "$rate/1s" -duration "${DURATION}s" \
      -timeout "$OVERLOAD_TIMEOUT" -max-workers "$OVERLOAD_WORKERS"
    sleep "$DURATION"
    stopped="$(now)"
    chaos recover --base "$APP_URL" --paths "$probe_paths" --since "$stopped" --limit "$RECOVERY_LIMIT" \
      --give-up "$RECOVERY_GIVE_UP" >"$out/raw/recovery-$m.json"
    vegeta_wait "$VPID" 60
    vegeta_figures "overload-$m" >/dev/null
    alive "$APP_PID" || die "the app died during the $m overload round (log: $out/logs/app-first.log)"
    ok="$(grep -q '"pass": true' "$out/raw/recovery-$m.json" && echo 1 || echo 0)"
    chaos check "$out/checks/1$n-overload-$m.json" "1.$n" "overload $m at $rate req/s, recovery without restart" "$ok" \
      target_rate="$rate" load="@$out/raw/overload-$m.figures.json" recovery="@$out/raw/recovery-$m.json"
    log "  load: $(figure_line "$out/raw/overload-$m.figures.json")"
    log "  recovery: $("$PYTHON" -c 'import json,sys; r=json.load(open(sys.argv[1])); print("{} s to all six 200 (limit {} s); first 200 per probe {}; still failing {}; confirmation {}".format(r["recovery_s"], r["limit_s"], r["first_200_s"], r["still_failing"], r["confirm"]))' "$out/raw/recovery-$m.json")"
    verdict "$out/checks/1$n-overload-$m.json"
  done
fi

# ---------------------------------------------------------------------------------------------- 2 sigterm
if want sigterm; then
  vtvr_request virtual io
  log "2 sigterm: GET $REQ_PATH at $SIGTERM_RATE req/s, SIGTERM after $SIGTERM_AFTER s, limit $SIGTERM_LIMIT s"
  printf 'GET %s%s\n' "$APP_URL" "$REQ_PATH" >"$tmp/sigterm.targets"
  vegeta_bg sigterm -targets "$tmp/sigterm.targets" -rate "$SIGTERM_RATE/1s" \
    -duration "$((SIGTERM_AFTER + SIGTERM_LIMIT + 20))s" -timeout 20s
  sleep "$SIGTERM_AFTER"
  t0="$(now)"
  kill -TERM "$APP_PID"
  give_up=$((SIGTERM_LIMIT + 20))
  while alive "$APP_PID" && [ "$(ms_since "$t0")" -lt $((give_up * 1000)) ]; do sleep 0.05; done
  exit_ms="$(ms_since "$t0")"
  killed=0
  if alive "$APP_PID"; then killed=1; kill -KILL "$APP_PID" 2>/dev/null || true; fi
  app_rc=0; wait "$APP_PID" 2>/dev/null || app_rc=$?
  APP_PID=""
  vegeta_wait "$VPID" 0
  vegeta_figures sigterm >/dev/null
  ok=$([ "$killed" = 0 ] && [ "$exit_ms" -le $((SIGTERM_LIMIT * 1000)) ] && echo 1 || echo 0)
  exit_s="$("$PYTHON" -c "print(round($exit_ms / 1000, 2))")"
  # what the app said about its shutdown: a graceful phase that timed out waited quarkus.shutdown.timeout in full
  graceful_timed_out=false
  grep -q 'Timed out waiting for graceful shutdown' "$out/logs/app-first.log" && graceful_timed_out=true
  stopped_in="$(sed -n 's/.* stopped in \([0-9.]*\)s.*/\1/p' "$out/logs/app-first.log" | tail -1)"
  chaos check "$out/checks/2-sigterm.json" 2 "SIGTERM under load, exit within $SIGTERM_LIMIT s" "$ok" \
    exit_s="$exit_s" limit_s="$SIGTERM_LIMIT" exit_code="$app_rc" \
    killed_after_s="$([ "$killed" = 1 ] && echo "$give_up" || echo null)" \
    quarkus_stopped_in_s="${stopped_in:-null}" graceful_phase_timed_out="$graceful_timed_out" \
    load="@$out/raw/sigterm.figures.json"
  log "  exit ${exit_s} s after SIGTERM (exit code $app_rc$([ "$killed" = 1 ] && echo ", still running after $give_up s: KILLED"));" \
      "the app logged 'stopped in ${stopped_in:-?}s', graceful phase timed out: $graceful_timed_out"
  if [ "$graceful_timed_out" = true ] && grep -q 'All HTTP requests complete' "$out/logs/app-first.log"; then
    log "  WARNING: every HTTP request had completed, yet the graceful phase waited out quarkus.shutdown.timeout: a" \
        "shutdown listener never reported done (quarkus-jackson 3.30.5/3.30.6, quarkusio/quarkus#51915, fixed in 3.30.7)"
  fi
  log "  load: $(figure_line "$out/raw/sigterm.figures.json")"
  verdict "$out/checks/2-sigterm.json"
fi

# ---------------------------------------------------------------------------------------------- 3 checkout
sleep_until() {   # sleep_until T0 SECONDS: until SECONDS after epoch T0
  local left; left="$("$PYTHON" -c 'import sys,time; print(max(0, float(sys.argv[1]) + float(sys.argv[2]) - time.time()))' "$1" "$2")"
  sleep "$left"
}
paths_of() {   # paths_of SCENARIO -> the scenario's path in every mode, comma-separated
  local m p=""
  for m in $VTVR_MODES; do vtvr_request "$m" "$1"; p="$p,$REQ_PATH"; done
  echo "${p#,}"
}

if want checkout; then
  if alive "$APP_PID"; then stop_pid "$APP_PID" TERM 15; APP_PID=""; fi
  start_app checkout
  path_args=()
  for m in $VTVR_MODES; do vtvr_request "$m" checkout; path_args+=(--path "$m=$REQ_PATH"); done
  if [ "$CHECKOUT_WARMUP" -gt 0 ]; then
    # customers chaoswarm-<runid>-<n>: never matched by LIKE 'chaos-<runid>-%'
    chaos targets --base "$APP_URL" "${path_args[@]}" --prefix chaoswarm --runid "$runid" \
      --count $((CHECKOUT_RATE * CHECKOUT_WARMUP)) --out "$tmp/checkout-warm.targets"
    vegeta_bg checkout-warmup -format json -targets "$tmp/checkout-warm.targets" -rate "$CHECKOUT_RATE/1s" \
      -duration "${CHECKOUT_WARMUP}s" -timeout "$CHECKOUT_TIMEOUT"
    vegeta_wait "$VPID" $((CHECKOUT_WARMUP + 30))
    log "3 checkout warm-up (${CHECKOUT_WARMUP} s, not counted): $(vegeta_figures checkout-warmup >/dev/null; figure_line "$out/raw/checkout-warmup.figures.json")"
  fi
  # enough distinct targets for the longest run this timeline can take; Vegeta is stopped after the tail
  max_s=$((CHECKOUT_LEAD + OUTAGE + 60 + CHECKOUT_GAP + 30 + OUTAGE + 60 + CHECKOUT_TAIL))
  chaos targets --base "$APP_URL" "${path_args[@]}" --runid "$runid" --count $((CHECKOUT_RATE * max_s)) \
    --out "$tmp/checkout.targets"
  log "3 checkout: POST /{mode}/orders round-robin at $CHECKOUT_RATE req/s, customers chaos-$runid-<n>; delay service" \
      "down after $CHECKOUT_LEAD s, database down $CHECKOUT_GAP s after it is back, $OUTAGE s each, load ends $CHECKOUT_TAIL s after"
  vegeta_bg checkout -format json -targets "$tmp/checkout.targets" -rate "$CHECKOUT_RATE/1s" \
    -duration "${max_s}s" -timeout "$CHECKOUT_TIMEOUT"
  t_run="$(now)"

  sleep_until "$t_run" "$CHECKOUT_LEAD"
  stop_pid "$DELAY_PID" KILL 5; DELAY_PID=""
  t_down="$(now)"
  log "  delay service killed"
  chaos smoke --base "$APP_URL" --paths "$(paths_of io)" --expect 502 --limit 1 >"$out/raw/smoke-delay-down.json"
  sleep_until "$t_down" "$OUTAGE"
  start_delay restart
  t_delay_back="$(now)"
  delay_outage_ms="$(ms_since "$t_down")"
  log "  delay service answers again, $delay_outage_ms ms after the kill"

  sleep_until "$t_delay_back" "$CHECKOUT_GAP"
  t_stop="$(now)"
  db stop >>"$out/logs/db.log" 2>&1
  t_down="$(now)"
  log "  database stopped (load/db.sh stop took $(ms_since "$t_stop") ms)"
  chaos smoke --base "$APP_URL" --paths "$(paths_of db)" --expect 503 --limit "$DB_DOWN_LIMIT" >"$out/raw/smoke-db-down.json"
  sleep_until "$t_down" "$OUTAGE"
  db start >>"$out/logs/db.log" 2>&1 || die "load/db.sh start (after the outage) failed; see $out/logs/db.log"
  db_back="$(now)"
  db_outage_ms="$(ms_since "$t_down")"
  log "  database answers again, $db_outage_ms ms after it stopped"

  sleep_until "$db_back" "$CHECKOUT_TAIL"
  vegeta_wait "$VPID" 0 90   # stop sending; the requests in flight still get their answers
  run_s="$(ms_since "$t_run")"
  vegeta_figures checkout >/dev/null
  "$VEGETA" encode -to json "$out/raw/checkout.bin" >"$out/raw/checkout.results.json"
  sleep 1   # a request that got no answer may still commit; give it a moment before reading the table
  "$MARIADB_CLIENT" --no-defaults --protocol=tcp -h127.0.0.1 -P"$DB_PORT" -ubench -pbench bench -N -B \
    -e "SELECT customer, mode, id FROM orders WHERE customer LIKE 'chaos-$runid-%'" >"$out/raw/checkout.db-rows.tsv" \
    || die "could not read the orders table with $MARIADB_CLIENT"
  chaos verify --results "$out/raw/checkout.results.json" --base "$APP_URL" --db-rows "$out/raw/checkout.db-rows.tsv" \
    --runid "$runid" --db-back "$db_back" --timeline "$out/raw/checkout.timeline.csv" >"$out/raw/checkout.verify.json"
  ok="$(grep -q '"pass": true' "$out/raw/checkout.verify.json" && echo 1 || echo 0)"
  secs() { "$PYTHON" -c "print(round($1 / 1000, 1))"; }
  chaos check "$out/checks/3-checkout.json" 3 "nothing lost: checkout through delay and database outages" "$ok" \
    run_s="$(secs "$run_s")" delay_outage_s="$(secs "$delay_outage_ms")" db_outage_s="$(secs "$db_outage_ms")" \
    books="@$out/raw/checkout.verify.json" load="@$out/raw/checkout.figures.json"
  log "  load: $(figure_line "$out/raw/checkout.figures.json")"
  log "  books: $("$PYTHON" -c 'import json,sys; v=json.load(open(sys.argv[1])); print("{requests} requests, errors by status {errors_by_status}, acknowledged {acknowledged} {acknowledged_by_mode}, found in DB {found_in_db}, found without ack {found_without_ack}, unknown (no answer) {found_unknown_client_gave_up}, ack not readable {acknowledged_not_readable}, ack missing in DB {acknowledged_missing_in_db}, duplicates {duplicate_rows}, after DB back {after_db_back}".format(**v) + (", e.g. {}".format(v["examples"]) if v["examples"] else ""))' "$out/raw/checkout.verify.json")"
  log "  per second: $out/raw/checkout.timeline.csv"
  verdict "$out/checks/3-checkout.json"

  ok="$("$PYTHON" -c 'import json,sys; print(int(all(json.load(open(f))["pass"] for f in sys.argv[1:])))' \
    "$out/raw/smoke-delay-down.json" "$out/raw/smoke-db-down.json")"
  chaos check "$out/checks/4-outage-smoke.json" 4 "outage answers: delay down -> 502 within 1 s, database down -> 503 within $DB_DOWN_LIMIT s" \
    "$ok" delay_down="@$out/raw/smoke-delay-down.json" db_down="@$out/raw/smoke-db-down.json"
  log "  delay down: $(cat "$out/raw/smoke-delay-down.json")"
  log "  database down: $(cat "$out/raw/smoke-db-down.json")"
  verdict "$out/checks/4-outage-smoke.json"
fi

# ---------------------------------------------------------------------------------------------- summary
echo
chaos summary --dir "$out"
log "summary: $out/summary.md, $out/summary.json"
[ "$failed" = 0 ]

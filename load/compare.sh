#!/usr/bin/env bash
# Measures every scenario in the three execution models, one model at a time, with an open-model rate sweep
# (Vegeta: the latency truth) and a closed-model concurrency sweep (hey: the saturation probe), sampling the
# server's cost (CPU per request, RSS, threads, heap, pinned events, DB pool) while each step runs.
# Starts and stops everything it needs: the build, the embedded DB, a separate delay-service JVM and the app.
#
# Usage: load/compare.sh [options]
#   --quick               every scenario and mode once, 1 rate and 1 concurrency level, 1 s steps (~90 s)
#   --experiment E        a preset shaped like one of the experiments in docs/experiments.md: E1 .. E8
#   --scenario a,b        scenarios      [io,fanout,db,slow-query,checkout,cpu,pinning,pinning-reentrant]
#   --modes a,b           modes          [virtual,worker,reactive] (pinning runs for virtual and worker only);
#                         MODE+socket measures virtual or worker with the socket delay client
#                         (-Dbench.blocking-client=socket, its own app) as a series of its own, e.g.
#                         virtual,virtual+socket,worker,worker+socket,reactive
#   --aa MODE             the A/A row: MODE measured a second time at the io rates, from a fresh app, as
#                         MODE-aa; the targets call a difference within that spread "within noise"
#                         [reactive when io runs; none with --quick; --aa none: off]
#   --rotate K            measure the modes in the order rotated by K places            [random; --runs: 0..N-1]
#   --cpus app=N          pin the app to its own N core(s) with taskset, everything else (Vegeta, hey, delay
#                         service, DB, this script) to the other cores; stated in the report       [no pinning:
#                         on 2 cores it starves the generator, docs/harness.md "CPU placement"]
#   --rates r1,r2         Vegeta rates in req/s, for every chosen scenario       [per scenario, see levels()]
#   --concurrency c1,c2   hey concurrency levels, for every chosen scenario      [per scenario, see levels()]
#   --tools a,b           vegeta, hey    [vegeta,hey]
#   --duration D          length of each measured step, Go duration              [5s; --quick 1s]
#   --warmup D            the ramp of the warm-up per mode (see warm below), discarded [10s; --quick 1s]
#   --delay MS            DELAY of io, fanout, checkout, pinning                 [100]
#   --out DIR             where results go                                       [load/results/<timestamp>]
#   --runs N              the whole run N times (DIR/run-1 .., each in another mode order), then DIR/summary.*
#                         and report.html hold per step the row of the run with the median p99, with
#                         min-max of every figure over the runs                                   [1]
#   --reuse               one app and one delay service for all modes (faster; --quick implies it)
#   --fresh               a fresh app and delay service per mode (the default, undoes --quick's --reuse)
#   --native              run target/*-runner (build it with ./mvnw package -Dnative) instead of the JVM jar
#   --rebuild             rebuild the jar even if it looks current;  --no-build: never build, use the jar as is
#   --app-url URL --app-pid PID   measure an app you started yourself (no build, DB, delay service or restarts)
#   --app-url URL         without --app-pid: an app on another machine, sampled from its /q/metrics only (CPU
#                         from process_cpu_time_ns_total, threads, heap); see docs/harness.md for merging the
#                         results of several Vegeta generators
#   --dry-run             print the plan and its estimated time, start nothing
#   -h, --help
#
# Environment (defaults in brackets):
#   APP_PORT, DELAY_PORT  HTTP ports of the app and of the delay service; a busy one is replaced by a free port
#                         [8080, 8081]
#   DB_PORT               embedded MariaDB port (load/db.sh); reused when load/db.sh already runs it [3306]
#   QUARKUS_DATASOURCE_JDBC_URL, QUARKUS_DATASOURCE_REACTIVE_URL  use this database; no load/db.sh then
#   APP_JAVA_OPTS         JVM flags of the app; all modes get the same flags    [-XX:+UseParallelGC: on 2 cores
#                         it cut CPU per request 6-12 % and RSS 17 % against the default G1 (docs/tuning.md);
#                         max heap = 1/4 of RAM; set APP_JAVA_OPTS="" for the JVM's defaults]
#   DELAY_JAVA_OPTS       JVM flags of the delay service                          [none]
#   WARMUP_SCALE          warm-up peak per scenario, in % of its lowest default rate (levels) [100]
#   WARMUP_JIT_PCT, WARMUP_MAX  after the ramp the warm-up goes on while the JIT threads use more than this % of
#                         one core, up to WARMUP_MAX seconds in all             [5, 45; --quick: no extension]
#   TIMEOUT / TIMEOUT_S   Vegeta request timeout (Go duration) / hey timeout (s)  [10s / 10]
#   RAMP_IN               each Vegeta step sends RAMP_IN + --duration; the latency percentiles leave out the
#                         requests sent in the first RAMP_IN (a fresh Vegeta process opening all its
#                         connections at a new rate); their errors still count (Go duration) [1s; --quick 0s]
#   SETTLE                whole seconds of rest between steps                    [0]
#   METRICS_INTERVAL      seconds between /q/metrics scrapes during a step, for the pool peaks; their CPU
#                         stays in CPU ms/req and the report states it (0: no scrape inside a step)  [0.5]
#   DELAY, IO_CALLS, FANOUT_CALLS, DB_QUERIES, SLOW_DELAY, CPU_N, PINNING_LOCK: scenario parameters
#                         (load/scenarios.sh): 100, 1, 10, 1, 500, 100000, synchronized
#
# Experiments (docs/experiments.md; each sets scenarios, parameters and levels; explicit flags still win):
#   E1 io, 3 sequential calls of 300 ms (the write-ups' 900 ms), hey 300/1500/3000 users, rates 100-400
#   E2 cpu n=10,000,000 (the service's cap; the write-ups summed 10^8)   E3 cpu n=1,000,000 and fanout 50 x 100 ms
#   E4 fanout 100 x 100 ms at 10 req/s for 30 s (threads, heap)          E5 checkout, 2 x 100 ms calls + insert
#   E6 fanout 100 x 1 s                                                  E7 slow-query 1 s on a 20-connection pool
#   E8 pinning with synchronized and with ReentrantLock (virtual, worker)
#   saturate  io, Vegeta only, rates 1,000 .. 10,000 req/s: each mode's saturation point and what limited it
#             (add --modes virtual,virtual+socket,worker,worker+socket,reactive for the delay clients)
#   cost      how cost grows with work: fanout at 20 req/s with 1, 10 and 100 calls (Vegeta), io at 50 .. 4,000
#             in flight (hey); CPU per request and RSS per mode (and client) in the report's cost charts
#   E2 and E3 lift the reactive cpu guard (BENCH_MAX_N_EVENT_LOOP, docs/hostile-clients.md) to their n: they measure
#   what a kernel that size costs on the event loop
#
# Leaves DIR/summary.csv, summary.json, summary.md, report.html, machine.json (with mode_order), steps/*/ (raw
# Vegeta results, hey CSVs, process samples, generator CPU, metrics before/after), logs/. How the figures are
# taken: docs/harness.md. Exit 1 when a step produced no results.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib.sh"
. "$here/scenarios.sh"
. "$here/tools.sh"


# levels SCENARIO -> "rates|concurrencies", sized for a 2-core machine that also runs the load generator,
# the delay service and the database
levels() {
  case "$1" in
    io)                echo "500,1500,2500,4000|50,400" ;;  # 2,500 > the worker ceiling of 2,000; 400 in flight > 200 threads
    fanout)            echo "50,150,300|10,100" ;;      # x10 delay calls each
    db)                echo "200,800,1600|10,100" ;;
    slow-query)        echo "10,20,40|10,100" ;;        # 20 connections / 0.5 s = 40 req/s for every mode
    checkout)          echo "50,150,300|10,100" ;;
    cpu)               echo "50,200,400|2,16" ;;
    pinning*)          echo "20,100,400|10,300" ;;
    *)                 echo "50|10" ;;
  esac
}

# ---------------------------------------------------------------------------------------------- options
quick=0 dry=0 runs=1 reuse="" aa="" rotate="" cpus="" cost=0 native=0 rebuild=0 nobuild=0 experiment="" out="" app_url_ext="" app_pid_ext=""
o_scen="" o_modes="" o_rates="" o_conc="" o_tools="" o_dur="" o_warm="" o_delay=""
args=("$@")
while [ $# -gt 0 ]; do
  opt="$1"; val=""; shift_by=1
  case "$opt" in --*=*) val="${opt#*=}"; opt="${opt%%=*}" ;; esac
  case "$opt" in
    -h|--help) usage; exit 0 ;;
    --quick) quick=1 ;;
    --dry-run) dry=1 ;;
    --reuse) reuse=1 ;;
    --fresh) reuse=0 ;;
    --native) native=1 ;;
    --rebuild) rebuild=1 ;;
    --no-build) nobuild=1 ;;
    --experiment) takes "$@"; experiment="$val" ;;
    --scenario|--scenarios) takes "$@"; o_scen="$val" ;;
    --modes|--mode) takes "$@"; o_modes="$val" ;;
    --rates) takes "$@"; o_rates="$val" ;;
    --concurrency) takes "$@"; o_conc="$val" ;;
    --tools) takes "$@"; o_tools="$val" ;;
    --duration) takes "$@"; o_dur="$val" ;;
    --warmup) takes "$@"; o_warm="$val" ;;
    --delay) takes "$@"; o_delay="$val" ;;
    --out) takes "$@"; out="$val" ;;
    --runs) takes "$@"; runs="$val" ;;
    --app-url) takes "$@"; app_url_ext="$val" ;;
    --app-pid) takes "$@"; app_pid_ext="$val" ;;
    --aa) takes "$@"; aa="$val" ;;
    --rotate) takes "$@"; rotate="$val" ;;
    --cpus) takes "$@"; cpus="$val" ;;
    *) die "unknown option '$opt' (load/compare.sh -h lists them)" ;;
  esac
  shift "$shift_by"
done

scenarios="${VTVR_SCENARIOS// /,}" modes="${VTVR_MODES// /,}" rates="" conc="" tools="vegeta,hey"
duration=5s warmup=10s
export TIMEOUT="${TIMEOUT:-10s}" TIMEOUT_S="${TIMEOUT_S:-10}"
case "$experiment" in
  "") ;;
  E1|e1) scenarios=io; export IO_CALLS=3 DELAY=300; rates=100,200,400; conc=300,1500,3000; duration=10s
         export TIMEOUT=30s TIMEOUT_S=30 ;;
  E2|e2) scenarios=cpu; export CPU_N=10000000 BENCH_MAX_N_EVENT_LOOP=10000000; rates=5,10,20; conc=2,8,32; duration=10s; export TIMEOUT=30s TIMEOUT_S=30 ;;
  E3|e3) scenarios=cpu,fanout; export CPU_N=1000000 BENCH_MAX_N_EVENT_LOOP=1000000 FANOUT_CALLS=50 DELAY=100; rates=10,20,40; conc=4,16,64 ;;
  E4|e4) scenarios=fanout; export FANOUT_CALLS=100 DELAY=100; rates=10; conc=10; duration=30s ;;
  E5|e5) scenarios=checkout; export DELAY=100; rates=50,150,300; conc=50,500; duration=10s ;;
  E6|e6) scenarios=fanout; export FANOUT_CALLS=100 DELAY=1000; rates=1,5,10; conc=1,10; duration=10s
         export TIMEOUT=60s TIMEOUT_S=60 ;;
  E7|e7) scenarios=slow-query; export SLOW_DELAY=1000; rates=5,10,20,30; conc=20,100; duration=10s
         export TIMEOUT=30s TIMEOUT_S=30 ;;
  E8|e8) scenarios=pinning,pinning-reentrant; modes=virtual,worker; export DELAY=100; rates=20,100,400; conc=10,300 ;;
  saturate) scenarios=io; tools=vegeta; rates=1000,2500,4000,5500,7000,8500,10000 ;;
  cost) scenarios=io,fanout; cost=1; duration=10s; : "${aa:=none}" ;;
  *) die "unknown experiment '$experiment' (E1 .. E8, saturate, cost)" ;;
esac
WARMUP_MAX="${WARMUP_MAX:-45}"
RAMP_IN="${RAMP_IN:-$([ "$quick" = 1 ] && echo 0s || echo 1s)}"
if [ "$quick" = 1 ]; then duration=1s; warmup=1s; WARMUP_MAX=0; : "${reuse:=1}"; fi
reuse="${reuse:-0}"
[ -z "$o_scen" ] || scenarios="$o_scen"
[ -z "$o_modes" ] || modes="$o_modes"
[ -z "$o_rates" ] || rates="$o_rates"
[ -z "$o_conc" ] || conc="$o_conc"
[ -z "$o_tools" ] || tools="$o_tools"
[ -z "$o_dur" ] || duration="$o_dur"
[ -z "$o_warm" ] || warmup="$o_warm"
[ -z "$o_delay" ] || export DELAY="$o_delay"
export DELAY="${DELAY:-100}"
settle="${SETTLE:-0}"
APP_JAVA_OPTS="${APP_JAVA_OPTS--XX:+UseParallelGC}"
[[ "$WARMUP_MAX" =~ ^[0-9]+$ ]] || die "WARMUP_MAX is whole seconds, got '$WARMUP_MAX'"
WARMUP_SCALE="${WARMUP_SCALE:-100}" WARMUP_JIT_PCT="${WARMUP_JIT_PCT:-5}"
[[ "$WARMUP_SCALE" =~ ^[1-9][0-9]*$ ]] || die "WARMUP_SCALE is a positive whole percentage, got '$WARMUP_SCALE'"
ensure_python
millis() {  # millis GO_DURATION -> whole milliseconds (5s, 1.5s, 500ms, 2m)
  "$PYTHON" -c 'import sys,re; m=re.fullmatch(r"([\d.]+)(ms|s|m|h)?", sys.argv[1]); print(round(float(m.group(1))*{"ms":1,"s":1e3,"m":6e4,"h":3.6e6,None:1e3}[m.group(2)])) if m else sys.exit(1)' "$1"
}
dur_ms="$(millis "$duration")" || die "--duration must be a Go duration like 5s or 1m, got '$duration'"
warm_ms="$(millis "$warmup")" || die "--warmup must be a Go duration like 10s, got '$warmup'"
warm_est_ms=$((warm_ms > WARMUP_MAX * 1000 ? warm_ms : WARMUP_MAX * 1000))   # for the time estimates: the bound
secs() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }   # secs MS -> seconds with 3 decimals, for JSON
ramp_ms="$(millis "$RAMP_IN")" || die "RAMP_IN must be a Go duration like 1s or 0s, got '$RAMP_IN'"
timeout_ms="$(millis "$TIMEOUT")" || die "TIMEOUT must be a Go duration like 10s, got '$TIMEOUT'"
[ "$TIMEOUT_S" -ge 1 ] 2>/dev/null || die "TIMEOUT_S must be whole seconds, got '$TIMEOUT_S'"
step_limit_s=$(( (ramp_ms + dur_ms + (timeout_ms > TIMEOUT_S * 1000 ? timeout_ms : TIMEOUT_S * 1000)) / 1000 + 30 ))

for s in ${scenarios//,/ }; do [[ " $VTVR_SCENARIOS " == *" $s "* ]] || die "unknown scenario '$s' (one of: $VTVR_SCENARIOS)"; done
# base_of LABEL -> the URL's mode (virtual+socket -> virtual, reactive-aa -> reactive); client_of LABEL -> the
# bench.blocking-client the app of LABEL runs with (empty: the app's default)
base_of() { local b="${1%-aa}"; echo "${b%%+*}"; }
client_of() { local b="${1%-aa}"; [[ "$b" == *+* ]] && echo "${b#*+}" || true; }
for m in ${modes//,/ }; do
  [[ " $VTVR_MODES " == *" $(base_of "$m") "* ]] || die "unknown mode '$m' (one of: $VTVR_MODES, or virtual+socket, worker+socket)"
  case "$(base_of "$m")+$(client_of "$m")" in *+|virtual+socket|virtual+rest-client|worker+socket|worker+rest-client) ;;
    *) die "mode '$m': a delay client (+socket, +rest-client) exists for virtual and worker only" ;; esac
done
[ -n "$aa" ] || { [ "$quick" = 1 ] || [[ ",$scenarios," != *,io,* ]] || [[ ",$tools," != *,vegeta,* ]] || aa=reactive; }
[ "$aa" != none ] || aa=""
[ -z "$aa" ] || [[ ",$modes," == *",$aa,"* ]] || die "--aa $aa: not one of the measured modes ($modes)"
[ -z "$rotate" ] || [[ "$rotate" =~ ^[0-9]+$ ]] || die "--rotate takes a whole number, got '$rotate'"
for t in ${tools//,/ }; do case "$t" in vegeta|hey) ;; *) die "unknown tool '$t' (vegeta, hey)" ;; esac; done
for v in ${rates//,/ } ${conc//,/ }; do [[ "$v" =~ ^[1-9][0-9]*$ ]] || die "rates and concurrency levels are positive integers, got '$v'"; done

# ---------------------------------------------------------------------------------------------- plan
# the modes' order, rotated per run (the last mode measured gets the warmest DB buffer pool and page cache); the
# A/A mode goes into the rotation as a mode of its own, so its two measurements sit at different places
order=(${modes//,/ }); [ -z "$aa" ] || order+=("$aa-aa")
rotate="${rotate:-$((RANDOM % ${#order[@]}))}"
k=$((rotate % ${#order[@]})); order=("${order[@]:$k}" "${order[@]:0:$k}")
mode_order="$(IFS=,; echo "${order[*]}")"
plan=()   # "mode scenario tool level [VAR=value for this step]"
for m in "${order[@]}"; do
  if [ "$cost" = 1 ]; then   # the cost experiment's own plan: the work per request varies, not the load
    [[ "$m" == *-aa ]] && continue
    for x in 1 10 100; do plan+=("$m fanout vegeta 20 FANOUT_CALLS=$x"); done
    for x in 50 400 1000 2000 4000; do plan+=("$m io hey $x"); done
    continue
  fi
  for s in ${scenarios//,/ }; do
    [[ " $(vtvr_modes_for "$s") " == *" $(base_of "$m") "* ]] || continue
    [[ "$m" != *-aa ]] || [ "$s" = io ] || continue   # the A/A row: io, Vegeta
    lv="$(levels "$s")"; r="${rates:-${lv%%|*}}"; c="${conc:-${lv##*|}}"
    if [ "$quick" = 1 ]; then [ -n "$rates" ] || r="${r%%,*}"; [ -n "$conc" ] || c="${c%%,*}"; fi
    if [[ ",$tools," == *,vegeta,* ]]; then for x in ${r//,/ }; do plan+=("$m $s vegeta $x"); done; fi
    if [[ ",$tools," == *,hey,* ]] && [[ "$m" != *-aa ]]; then for x in ${c//,/ }; do plan+=("$m $s hey $x"); done; fi
  done
done
total=${#plan[@]}
[ "$total" -gt 0 ] || die "nothing to run: no chosen scenario has a chosen mode"
plan_modes=""; for p in "${plan[@]}"; do m="${p%% *}"; [[ " $plan_modes " == *" $m "* ]] || plan_modes="$plan_modes $m"; done
plan_modes="${plan_modes# }"
if [ "$dry" = 1 ]; then
  printf '%s\n' "${plan[@]}" | nl -w3 -s'. '
  n_modes=$(wc -w <<<"$plan_modes"); starts=$([ "$reuse" = 1 ] && echo 1 || echo "$n_modes")
  echo "$total steps of $duration, warm-up $warmup per mode, $starts app start(s): about $(((total * (dur_ms + ramp_ms + 1000 + settle * 1000) + starts * 15000 + n_modes * (warm_est_ms + 2000)) / 1000)) s at most"
  exit 0
fi

if [ "$runs" != 1 ]; then   # N complete runs, one after another, then the medians
  [[ "$runs" =~ ^[1-9][0-9]?$ ]] || die "--runs takes 1 to 99, got '$runs'"
  out="${out:-$VTVR_ROOT/load/results/$(date +%Y%m%d-%H%M%S)}"
  mkdir -p "$out"; out="$(cd "$out" && pwd)"
  once=()   # the arguments without --runs and --out
  for ((k = 0; k < ${#args[@]}; k++)); do
    case "${args[$k]}" in --runs|--out|--rotate) k=$((k + 1)) ;; --runs=*|--out=*|--rotate=*) ;; *) once+=("${args[$k]}") ;; esac
  done
  for k in $(seq 1 "$runs"); do
    log "run $k of $runs -> $out/run-$k"
    "$0" "${once[@]}" --rotate "$((k - 1))" --out "$out/run-$k" || log "run $k ended with an error; its steps still count"
  done
  done_runs=(); for k in $(seq 1 "$runs"); do [ ! -f "$out/run-$k/summary.json" ] || done_runs+=("$out/run-$k"); done
  [ "${#done_runs[@]}" -gt 0 ] || die "no run finished"
  "$PYTHON" "$here/report.py" median "$out" "${done_runs[@]}" >&2
  log "medians of ${#done_runs[@]} runs: $out/report.html"
  exit 0
fi

# ---------------------------------------------------------------------------------------------- processes
APP_PID="" DELAY_PID="" SAMPLER_PID="" TOOL_PID="" DB_STARTED=0 DB_START_PID=""

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  stop_pid "$TOOL_PID"; stop_pid "$SAMPLER_PID"; stop_pid "$DB_START_PID"; stop_pid "$APP_PID"; stop_pid "$DELAY_PID"
  if [ "$DB_STARTED" = 1 ]; then DB_PORT="$DB_PORT" "$here/db.sh" stop || true; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT
trap 'log "terminated"; exit 143' TERM

pick_port() {   # pick_port NAME WANTED -> WANTED, or a free port when WANTED is taken
  if ! port_free "$2"; then local p; p="$(free_port)"; log "port $2 for the $1 is busy, using $p"; echo "$p"; else echo "$2"; fi
}

external=0; [ -z "$app_url_ext" ] || external=1
if [ "$external" = 1 ]; then
  [ -z "$app_pid_ext" ] || kill -0 "$app_pid_ext" 2>/dev/null || die "--app-pid $app_pid_ext: no such process here"
  [ "$native" = 0 ] || die "--native and --app-url exclude each other"
  [ -z "$cpus" ] || die "--cpus places the processes this script starts; with --app-url place them yourself"
  reuse=1
fi

out="${out:-$VTVR_ROOT/load/results/$(date +%Y%m%d-%H%M%S)}"
[ -z "$(ls -A "$out/steps" 2>/dev/null)" ] || die "$out already holds a run (steps/); choose another --out"
mkdir -p "$out/steps" "$out/logs"
out="$(cd "$out" && pwd)"
log "results -> $out"

# --cpus app=N: the app on the last N cores, this script and all it starts (Vegeta, hey, the delay service, the DB,
# the sampler) on the others, as the Quarkus team's lab separates the server from the load generator
APP_TASKSET=() placement=""
if [ -n "$cpus" ]; then
  [[ "$cpus" =~ ^app=([1-9][0-9]*)$ ]] || die "--cpus takes app=N (N cores for the app), got '$cpus'"
  need taskset "apt-get install util-linux"
  ncpu="$(nproc)" app_n="${BASH_REMATCH[1]}"
  [ "$app_n" -lt "$ncpu" ] || die "--cpus app=$app_n leaves no core for the rest ($ncpu cores)"
  app_set="$((ncpu - app_n))-$((ncpu - 1))" rest_set="0-$((ncpu - app_n - 1))"
  [ "$app_n" != 1 ] || app_set="$((ncpu - 1))"
  [ "$((ncpu - app_n))" != 1 ] || rest_set=0
  taskset -pc "$rest_set" $$ >/dev/null
  APP_TASKSET=(taskset -c "$app_set")
  placement="app on cpu $app_set; Vegeta, hey, delay service, database, sampler on cpu $rest_set"
  log "placement: $placement"
fi

JAVA="" jar="$VTVR_ROOT/target/quarkus-app/quarkus-run.jar" runner=""
if [ "$external" = 0 ]; then
  find_jdk; JAVA="$JAVA_HOME/bin/java"
  if [ "$native" = 1 ]; then
    runner="$(ls "$VTVR_ROOT"/target/*-runner 2>/dev/null | head -1 || true)"
    [ -n "$runner" ] && [ -x "$runner" ] || die "--native: no target/*-runner. Build it with './mvnw package -Dnative' (GraalVM or Mandrel 21+ on PATH, or add -Dquarkus.native.container-build=true where Docker runs)"
  fi
  stale=""
  [ -f "$jar" ] && stale="$(cd "$VTVR_ROOT" && find src pom.xml -type f -newer "$jar" 2>/dev/null | head -1)"
  if [ "$nobuild" = 0 ] && { [ "$rebuild" = 1 ] || [ ! -f "$jar" ] || [ -n "$stale" ]; }; then
    log "building the app (${stale:+$stale is newer than the jar; }./mvnw -B -q package -DskipTests)"
    (cd "$VTVR_ROOT" && ./mvnw -B -q package -DskipTests) >"$out/logs/build.log" 2>&1 \
      || { tail -30 "$out/logs/build.log" >&2; die "build failed, see $out/logs/build.log"; }
  fi
  [ -f "$jar" ] || [ -n "$runner" ] || die "no $jar (build with ./mvnw package -DskipTests)"

  APP_PORT="$(pick_port app "${APP_PORT:-8080}")"
  DELAY_PORT="${DELAY_PORT:-8081}"; [ "$DELAY_PORT" != "$APP_PORT" ] || DELAY_PORT=$((APP_PORT + 1))
  DELAY_PORT="$(pick_port "delay service" "$DELAY_PORT")"
  if [ -n "${QUARKUS_DATASOURCE_JDBC_URL:-}" ] || [ -n "${QUARKUS_DATASOURCE_REACTIVE_URL:-}" ]; then
    [ -n "${QUARKUS_DATASOURCE_JDBC_URL:-}" ] && [ -n "${QUARKUS_DATASOURCE_REACTIVE_URL:-}" ] \
      || die "set both QUARKUS_DATASOURCE_JDBC_URL and QUARKUS_DATASOURCE_REACTIVE_URL (same database), or neither"
    log "database: $QUARKUS_DATASOURCE_JDBC_URL (given)"
  else
    DB_PORT="${DB_PORT:-3306}"
    if DB_PORT="$DB_PORT" "$here/db.sh" status >/dev/null 2>&1; then
      log "database: load/db.sh already runs MariaDB on $DB_PORT, reusing it (left running)"
    else
      if ! port_free "$DB_PORT"; then
        log "port $DB_PORT is taken by a server load/db.sh does not run; the embedded DB gets a free port"
        DB_PORT="$(free_port)"
      fi
      # started in the background: the delay service starts meanwhile; start_app waits for it (db_ready)
      log "database: starting the embedded MariaDB on $DB_PORT (load/db.sh start; log: $out/logs/db.log)"
      DB_STARTED=1
      DB_PORT="$DB_PORT" "$here/db.sh" start >"$out/logs/db.log" 2>&1 &
      DB_START_PID=$!
    fi
    export QUARKUS_DATASOURCE_JDBC_URL="jdbc:mysql://127.0.0.1:$DB_PORT/bench"
    export QUARKUS_DATASOURCE_REACTIVE_URL="mysql://127.0.0.1:$DB_PORT/bench"
  fi
  APP_URL="http://127.0.0.1:$APP_PORT"
else
  APP_URL="${app_url_ext%/}"
  is_loopback "$APP_URL" || export VTVR_REMOTE=1   # the user named another host: vegeta.sh and hey.sh may load it
fi
export APP_URL
ensure_vegeta; ensure_hey   # after the database start, which runs meanwhile (a first run builds Vegeta)

start_delay() {
  # shellcheck disable=SC2086
  start_delay_service "$([ -f "$jar" ] && echo "$jar" || echo "$runner")" "$DELAY_PORT" "$out/logs/delay-$1.log" ${DELAY_JAVA_OPTS:-}
}

db_ready() {   # waits for the background 'load/db.sh start', once
  [ -n "$DB_START_PID" ] || return 0
  local rc=0
  wait "$DB_START_PID" || rc=$?
  DB_START_PID=""
  [ "$rc" = 0 ] && DB_PORT="$DB_PORT" "$here/db.sh" status >/dev/null 2>&1 \
    || { tail -20 "$out/logs/db.log" >&2; die "load/db.sh start failed (exit $rc)"; }
  log "database: $(tail -1 "$out/logs/db.log" | sed 's/^\[[0-9:]*\] //')"
}

start_app() {   # start_app LABEL [CLIENT]: CLIENT sets bench.blocking-client
  local log_f="$out/logs/app-$1.log" t0=$SECONDS client=()
  db_ready
  [ -z "${2:-}" ] || client=(BENCH_BLOCKING_CLIENT="$2")
  if [ -n "$runner" ]; then
    env "${client[@]}" QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT="$APP_PORT" QUARKUS_REST_CLIENT_DELAY_URL="http://127.0.0.1:$DELAY_PORT" \
      "${APP_TASKSET[@]}" "$runner" >"$log_f" 2>&1 &
  else
    # shellcheck disable=SC2086
    env "${client[@]}" QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT="$APP_PORT" QUARKUS_REST_CLIENT_DELAY_URL="http://127.0.0.1:$DELAY_PORT" \
      "${APP_TASKSET[@]}" "$JAVA" ${APP_JAVA_OPTS:-} -jar "$jar" >"$log_f" 2>&1 &
  fi
  APP_PID=$!
  wait_ready "$APP_PID" "$APP_URL/q/health/ready" 120 \
    || { tail -30 "$log_f" >&2; die "the app did not become ready on $APP_URL (log: $log_f)"; }
  log "app ready in $((SECONDS - t0)) s (pid $APP_PID, $APP_URL, delay service on $DELAY_PORT${2:+, bench.blocking-client=$2})"
}

SCRAPE_MS=null
start_system() {   # start_system LABEL [CLIENT]
  [ "$external" = 0 ] || { APP_PID="$app_pid_ext"; return 0; }
  local t0=$SECONDS
  start_delay "$1"; start_app "$1" "${2:-}"
  startup_s=$((SECONDS - t0))
  APP_CLIENT="${2:-}"
  # one /q/metrics scrape's CPU at idle, for the report's statement of what the in-step scrapes cost
  SCRAPE_MS="$("$PYTHON" "$here/sample.py" --pid "$APP_PID" --scrape-cost "$APP_URL/q/metrics" 2>/dev/null \
    | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["scrape_cpu_ms"])' || echo null)"
}

stop_system() {   # stop_system [GRACE_S]
  [ "$external" = 0 ] || { APP_PID=""; return 0; }
  stop_pid "$APP_PID" TERM "${1:-20}"; APP_PID=""
  stop_pid "$DELAY_PID"; DELAY_PID=""
}

# smoke MODE: one request per scenario; a wrong status is reported now rather than found in the tables
smoke() {
  local m s code body
  m="$(base_of "$1")"
  for s in ${scenarios//,/ }; do
    [[ " $(vtvr_modes_for "$s") " == *" $m "* ]] || continue
    vtvr_request "$m" "$s"
    body="$out/logs/smoke-$m-$s.json"
    if [ -n "$REQ_BODY" ]; then
      code="$(curl -s -o "$body" -w '%{http_code}' --max-time 30 -X "$REQ_METHOD" -H 'Content-Type: application/json' -d "$REQ_BODY" "$APP_URL$REQ_PATH" || true)"
    else
      code="$(curl -s -o "$body" -w '%{http_code}' --max-time 30 "$APP_URL$REQ_PATH" || true)"
    fi
    if [ "$code" != "$REQ_STATUS" ]; then
      log "WARNING: $REQ_METHOD $REQ_PATH answered $code, expected $REQ_STATUS: $(head -c 300 "$body" 2>/dev/null)"
    elif [ "$s" = checkout ]; then
      local id; id="$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1])).get("orderId",""))' "$body" 2>/dev/null || true)"
      if [ -n "$id" ]; then
        code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$APP_URL/$m/orders/$id" || true)"
        [ "$code" = 200 ] || log "WARNING: GET /$m/orders/$id answered $code after the checkout created it"
      fi
    fi
  done
}

# warm MODE: every chosen scenario of MODE at once, each at the lowest rate of its default sweep (levels), ramped
# 1/4 -> 1/2 -> full over --warmup, then at full rate in 3 s rounds while the JIT compiler threads still use more
# than WARMUP_JIT_PCT % of one core, up to WARMUP_MAX s in all; results discarded. Without it, JIT compilation was
# 40-57 % of the app's CPU in the first measured steps and a cold app hit at 1,000 req/s queued for seconds
# (docs/harness.md).
warm() {
  local m s tdir="$out/logs/warmup-$1" t0=$SECONDS jit_pct="" j0 j1 w0 round=0 warm_scen="$scenarios"
  m="$(base_of "$1")"
  [[ "$1" != *-aa ]] || warm_scen=io   # the A/A row measures io only
  mkdir -p "$tdir"
  for s in ${warm_scen//,/ }; do
    [[ " $(vtvr_modes_for "$s") " == *" $m "* ]] || continue
    vtvr_target "$APP_URL" "$m" "$s" "$tdir" >"$tdir/$s.targets"
  done
  warm_round() {   # warm_round DIVISOR MS LABEL: every scenario at 1/DIVISOR of its warm-up rate for MS ms, at once
    local t s lowest rate
    for t in "$tdir"/*.targets; do
      s="$(basename "$t" .targets)"; lowest="$(levels "$s")"; lowest="${lowest%%[,|]*}"
      rate=$((lowest * WARMUP_SCALE / 100 / $1)); [ "$rate" -ge 1 ] || rate=1
      timeout -k 5 $(($2 / 1000 + step_limit_s)) "$VEGETA" attack -targets "$t" -rate "$rate/1s" -duration "${2}ms" \
        -timeout "$TIMEOUT" $(laddr_for "$APP_URL") >"$tdir/$s-$3.bin" &
    done
    wait
  }
  # a native binary has no JIT threads: its first round measures 0 and ends the warm-up
  jit_ms() {
    [ -n "$APP_PID" ] || { echo 0; return; }   # a remote app: no JIT reading, the ramp is the whole warm-up
    "$PYTHON" "$here/sample.py" --pid "$APP_PID" --once | "$PYTHON" -c 'import json,sys; print(int(json.load(sys.stdin)["jit_ms"]))'
  }
  # sampled like a step, so the metrics scrape path gets compiled during the warm-up too
  "$PYTHON" "$here/sample.py" ${APP_PID:+--pid "$APP_PID"} --out "$tdir/samples.jsonl" --interval 0.25 \
    --metrics "$APP_URL/q/metrics" --metrics-interval "${METRICS_INTERVAL:-0.5}" &
  SAMPLER_PID=$!
  (
    warm_round 4 $((warm_ms / 3)) ramp-1; warm_round 2 $((warm_ms / 3)) ramp-2; warm_round 1 $((warm_ms / 3)) ramp-3
  ) &
  TOOL_PID=$!; wait "$TOOL_PID" || true; TOOL_PID=""
  while [ $((SECONDS - t0 + 3)) -le "$WARMUP_MAX" ]; do
    j0="$(jit_ms)"; w0=$(date +%s%3N)
    round=$((round + 1))
    ( warm_round 1 3000 "more-$round" ) & TOOL_PID=$!; wait "$TOOL_PID" || true; TOOL_PID=""
    j1="$(jit_ms)"; jit_pct=$(( (j1 - j0) * 100 / ($(date +%s%3N) - w0) ))
    [ "$jit_pct" -gt "$WARMUP_JIT_PCT" ] || break
  done
  stop_pid "$SAMPLER_PID" TERM 5; SAMPLER_PID=""
  local summary
  summary="$("$VEGETA" report -type json "$tdir"/*.bin | "$PYTHON" -c 'import json,sys; r=json.load(sys.stdin); print("{} requests, {:.1f}% ok, status {}".format(r["requests"], 100*r["success"], r["status_codes"])); sys.exit(r["success"] < 1)')" \
    || { log "warm-up $m: ${summary:-no results}"; return 1; }
  log "warm-up $m: $((SECONDS - t0)) s${jit_pct:+ (JIT at $jit_pct % of a core in the last 3 s)}, $summary"
}

# children_cpu_ms VAR: sets VAR to the user+system CPU ms of this shell's finished (reaped) child processes. Not
# in $(...): a forked subshell starts with no children's time
children_cpu_ms() {
  local f="$out/logs/times.txt" a b t ms=0 sec
  times >"$f"
  { read -r _ _; read -r a b; } <"$f"
  for t in "$a" "$b"; do
    sec="${t#*m}"; sec="${sec%s}"
    ms=$((ms + 10#${t%%m*} * 60000 + 10#${sec%.*} * 1000 + 10#${sec#*.}))
  done
  printf -v "$1" '%s' "$ms"
}

json_str() { local v="${1//\\/\\\\}"; printf '"%s"' "${v//\"/\\\"}"; }

failed=0 startup_s=12 done_steps=0 measured_ms=0
run_step() {   # run_step INDEX MODE SCENARIO TOOL LEVEL
  local i="$1" m="$2" s="$3" tool="$4" lv="$5" dir t0 rc=0 b c0 c1
  # shellcheck disable=SC2163  # a scenario parameter of this step only (the cost experiment's calls)
  [ -z "${6:-}" ] || local -x "$6"
  b="$(base_of "$m")"
  dir="$out/steps/$(printf '%03d' "$i")-$s-$m-$tool-$lv${6:+-${6#*=}}"
  mkdir -p "$dir"
  vtvr_request "$b" "$s"
  cat >"$dir/meta.json" <<JSON
{"index": $i, "scenario": "$s", "mode": "$b", "series": "$m", "client": $(json_str "$(client_of "$m")"), "tool": "$tool", "load_kind": "$([ "$tool" = vegeta ] && echo rate || echo concurrency)",
 "load": $lv, "duration": "$duration", "duration_s": $(secs "$dur_ms"),
 "ramp_in_s": $(secs "$([ "$tool" = vegeta ] && echo "$ramp_ms" || echo 0)"), "params": $(json_str "$(vtvr_params "$s")"),
 "method": "$REQ_METHOD", "url": $(json_str "$APP_URL$REQ_PATH"), "expected_status": $REQ_STATUS,
 "app_pid": ${APP_PID:-null}, "scrape_cpu_ms": $SCRAPE_MS, "started": "$(date -u +%FT%TZ)"}
JSON
  curl -s --max-time 5 -o "$dir/metrics-before.prom" "$APP_URL/q/metrics" || true
  "$PYTHON" "$here/sample.py" ${APP_PID:+--pid "$APP_PID"} ${DELAY_PID:+--also "delay=$DELAY_PID"} \
    --out "$dir/samples.jsonl" --interval 0.25 --metrics "$APP_URL/q/metrics" --metrics-interval "${METRICS_INTERVAL:-0.5}" &
  SAMPLER_PID=$!
  # the load starts once the sampler has read the CPU, so the step's CPU window starts with the load
  for _ in $(seq 100); do [ ! -s "$dir/samples.jsonl" ] || break; sleep 0.02; done
  t0=$(date +%s%3N)
  children_cpu_ms c0
  # both tools stop by themselves after the step plus their request timeout; 'timeout' makes sure of it
  local sent="$duration"; [ "$tool" != vegeta ] || sent="$((ramp_ms + dur_ms))ms"
  OUT="$dir/results" timeout -k 5 "$step_limit_s" "$here/$tool.sh" "$b" "$s" "$lv" "$sent" >"$dir/stdout.txt" 2>&1 &
  TOOL_PID=$!; wait "$TOOL_PID" || rc=$?; TOOL_PID=""
  children_cpu_ms c1
  # the load generator's CPU: what the tool's process tree used, reaped by this shell (times' children line)
  echo "{\"cpu_ms\": $((c1 - c0)), \"wall_ms\": $(($(date +%s%3N) - t0))}" >"$dir/generator.json"
  [ "$rc" != 124 ] || echo "stopped after $step_limit_s s: the load tool did not end by itself" >>"$dir/stdout.txt"
  stop_pid "$SAMPLER_PID" TERM 5; SAMPLER_PID=""
  curl -s --max-time 5 -o "$dir/metrics-after.prom" "$APP_URL/q/metrics" || true
  measured_ms=$((measured_ms + $(date +%s%3N) - t0))
  local line st=0
  if [ "$rc" != 0 ]; then
    failed=$((failed + 1)); log "step failed (exit $rc): $(tail -3 "$dir/stdout.txt" | tr '\n' ' ')"
  else
    line="$("$PYTHON" "$here/report.py" step "$dir")" || st=$?
    log "  $line"
  fi
  [ -z "$APP_PID" ] || kill -0 "$APP_PID" 2>/dev/null || die "the app (pid $APP_PID) died during $s $m $tool $lv; see $out/logs"
  # a step whose requests all succeeded left a working app; after failures, make sure
  if [ "$rc" != 0 ] || [ "$st" != 0 ]; then probe "$m" "$s" "$dir"; fi
  [ "$settle" = 0 ] || sleep "$settle"
}

# probe MODE SCENARIO STEP_DIR: after a step with failures the app must still answer one request of that
# scenario correctly (3 tries, 1 s apart; one try when it does not answer at all). One that no longer does (a
# starved or deadlocked pool, a backlog of abandoned requests) would spoil every later step, so its thread dump
# is kept, the step is marked (APP_UNRESPONSIVE) and the app and delay service are restarted.
probe() {
  [ "$external" = 0 ] || return 0
  local code try wait_s=$((TIMEOUT_S > 10 ? TIMEOUT_S : 10)) what
  vtvr_request "$(base_of "$1")" "$2"
  for try in 1 2 3; do
    if [ -n "$REQ_BODY" ]; then
      code="$(curl -s -o /dev/null -w '%{http_code}' --max-time "$wait_s" -X "$REQ_METHOD" -H 'Content-Type: application/json' -d "$REQ_BODY" "$APP_URL$REQ_PATH" || true)"
    else
      code="$(curl -s -o /dev/null -w '%{http_code}' --max-time "$wait_s" "$APP_URL$REQ_PATH" || true)"
    fi
    [ "$code" != "$REQ_STATUS" ] || return 0
    [ "$code" != 000 ] || break
    sleep 1
  done
  if [ "$code" = 000 ]; then what="no answer within $wait_s s"; else what="status $code $try times (expected $REQ_STATUS)"; fi
  log "WARNING: after this step the app gives $REQ_METHOD $REQ_PATH $what; keeping a thread dump and restarting it"
  echo "$REQ_METHOD $REQ_PATH after the step: $what" >"$3/unresponsive.txt"
  [ -z "$JAVA" ] || [ -n "$runner" ] || "$JAVA_HOME/bin/jstack" "$APP_PID" >"$3/threads.txt" 2>&1 || true
  stop_system 5
  start_system "$1-restart-$(basename "$3")" "$(client_of "$1")"
  warm "$1" || true
}

eta() {   # eta INDEX MODE -> seconds left, from the measured cost per step so far
  local left=$((total - $1 + 1)) restarts=0 p seen=" $2 " overhead_ms=1000
  [ "$done_steps" -eq 0 ] || overhead_ms=$((measured_ms / done_steps - dur_ms))
  [ "$overhead_ms" -ge 300 ] || overhead_ms=300
  if [ "$reuse" = 0 ]; then
    for p in "${plan[@]:$(($1 - 1))}"; do [[ "$seen" == *" ${p%% *} "* ]] || { seen="$seen${p%% *} "; restarts=$((restarts + 1)); }; done
  fi
  echo $(((left * (dur_ms + ramp_ms + overhead_ms + settle * 1000) + restarts * (startup_s * 1000 + warm_est_ms + 2000)) / 1000))
}

# ---------------------------------------------------------------------------------------------- run
started_at="$(date -u +%FT%TZ)" t_run=$SECONDS
cmdline="load/compare.sh${args[*]:+ ${args[*]}}"
if [ "$external" = 1 ]; then app_desc="external, $APP_URL (${app_pid_ext:+pid $app_pid_ext}${app_pid_ext:-remote: sampled from /q/metrics only})"
elif [ -n "$runner" ]; then app_desc="native $(basename "$runner")"
else app_desc="JVM jar $(basename "$jar")"; fi
"$PYTHON" "$here/report.py" machine ${JAVA:+--java "$JAVA"} --set "app=$app_desc" --set "java_opts=${APP_JAVA_OPTS:-}" \
  --set "started=$started_at" --set "command=$cmdline" --set "vegeta=vegeta $VEGETA_VERSION ($VEGETA)" \
  --set "hey=hey ($HEY)" --set "reuse=$reuse" --set "duration=$duration" --set "warmup=$warmup" \
  --set "experiment=$experiment" \
  --list "mode_order=$mode_order" --set "placement=$placement" --set "app_cores=${app_n:-}" --set "metrics_interval=${METRICS_INTERVAL:-0.5}" \
  >"$out/machine.json"
log "plan: $total steps over modes [$plan_modes] (order rotated by $rotate), scenarios [$scenarios], $duration each, warm-up $warmup; $([ "$reuse" = 1 ] && echo 'one app for all modes' || echo 'a fresh app and delay service per mode')"

i=0 current_mode="" APP_CLIENT=""
for p in "${plan[@]}"; do
  i=$((i + 1))
  read -r m s tool lv extra <<<"$p"
  if [ "$m" != "$current_mode" ]; then
    # a fresh app per mode; with --reuse one app serves every mode, except that a delay-client variant and the
    # A/A row need their own
    if [ "$reuse" = 0 ] || [ -z "$current_mode" ] || [[ "$m" == *-aa ]] || [ "$(client_of "$m")" != "$APP_CLIENT" ]; then
      [ -z "$current_mode" ] || stop_system
      log "starting a fresh delay service and app for mode $m"
      start_system "$m" "$(client_of "$m")"
    fi
    current_mode="$m"
    # --quick skips the per-scenario check unless the warm-up (which hits every scenario) saw a failure
    if [ "$quick" = 1 ]; then warm "$m" || smoke "$m"; else smoke "$m"; warm "$m" || true; fi
  fi
  log "step $i/$total: $m $s $tool $lv$([ "$tool" = vegeta ] && echo ' req/s' || echo ' in flight') for $duration, ~$(eta "$i" "$m") s left"
  run_step "$i" "$m" "$s" "$tool" "$lv" "$extra"
  done_steps=$((done_steps + 1))
done
stop_system

"$PYTHON" "$here/report.py" build "$out" >&2
log "done in $((SECONDS - t_run)) s: $out/report.html"
flagged="$("$PYTHON" -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"]; print(sum(1 for x in r if x["flags"]))' "$out/summary.json")"
[ "$flagged" = 0 ] || log "$flagged flagged step(s): see 'Flagged steps' in $out/summary.md"
[ "$failed" = 0 ] || { log "$failed step(s) produced no results"; exit 1; }

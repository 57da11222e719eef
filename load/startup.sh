#!/usr/bin/env bash
# Startup and memory of the packaged app: time from process start to the first 200 on a real endpoint, RSS right
# after that first answer, and RSS after a fixed load, over several starts, for
#   jvm     the fast-jar on the JVM (java -jar quarkus-run.jar)
#   aot     the same jar with a JDK AOT cache (JEP 483/514/515): one training run with -XX:AOTCacheOutput=app.aot
#           that serves every scenario in every mode, then each start with -XX:AOTCache=app.aot (needs JDK 25+)
#   quarkus-aot  the AOT cache Quarkus 3.30 builds itself (JDK 25+): ./mvnw package -Dquarkus.package.jar.appcds.enabled=true
#           -Dquarkus.package.jar.appcds.use-aot=true writes target/quarkus-app/app.aot from a start-up-only training
#           run; measured when APP_DIR (or QUARKUS_AOT_DIR) holds such an app.aot, skipped with a note otherwise
#   native  the native executable target/*-runner (./mvnw package -Dnative); skipped with a note when none exists
# Starts and stops everything it needs: the embedded MariaDB (load/db.sh) and a separate delay-service JVM.
#
# Usage: load/startup.sh [-h]
#
# Environment (defaults in brackets):
#   RUNS              measured starts per variant; the variants take turns so drift hits all alike      [5]
#   WARMUP_RUNS       discarded starts per variant before measuring (page cache, DB seed)              [1]
#   VARIANTS          comma-separated subset of jvm,aot,quarkus-aot,native        [jvm,aot,quarkus-aot,native]
#   APP_DIR           the fast-jar folder; copied to a temp folder first, so a rebuild can't disturb it
#                     [target/quarkus-app, built with ./mvnw package -DskipTests when missing]
#   QUARKUS_AOT_DIR   a quarkus-app folder with the app.aot Quarkus built    [APP_DIR when it has an app.aot]
#   NATIVE_BIN        the native executable              [the newest target/*-runner; native skipped if none]
#   JAVA_OPTS         JVM flags of the jvm and aot starts and of the training run, e.g. "-Xmx256m"     [none]
#   FIRST_PATH        the endpoint whose first 200 stops the startup clock (a DB round trip)          [/virtual/db]
#   LOAD_PATHS        comma-separated endpoints of the fixed load, hey -n LOAD_REQUESTS each
#                     [/virtual/db,/reactive/db,/worker/io?delay=0,/virtual/fanout?delay=5&calls=5]
#   LOAD_REQUESTS     requests per load path                                                          [2000]
#   LOAD_CONCURRENCY  hey workers                                                                     [20]
#   TRAIN_REQUESTS    requests per scenario and mode in the AOT training run                          [200]
#   SETTLE            seconds between the end of the load and the RSS reading                         [1]
#   START_TIMEOUT     seconds a start may take before the script gives up                             [90]
#   POLL_MS           interval of the first-response poll                                             [5]
#   APP_PORT, DELAY_PORT   ports on 127.0.0.1; the app's is checked before every start and replaced
#                     when something else took it                      [free ports below the ephemeral range]
#   DB_PORT           embedded MariaDB port; a MariaDB already running there is reused and left running
#                     [a free port, with a throw-away data folder]
#   QUARKUS_DATASOURCE_JDBC_URL, QUARKUS_DATASOURCE_REACTIVE_URL  use this database instead (no load/db.sh)
#   OUT               output folder                                       [load/results/startup-<timestamp>]
#
# Leaves OUT/runs.csv (one row per start), summary.csv, summary.json, summary.md (median and min-max per variant),
# machine.json, logs/. RSS is VmRSS of the app process from /proc (MiB). "CPU to first 200" is the user+system CPU
# time the process (all its threads: JIT, GC, class loading) used until its first 200, from /proc/PID/stat: unlike
# the wall time it hardly moves when other processes compete for the CPUs. Everything listens on 127.0.0.1 only.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib.sh"
. "$here/scenarios.sh"
. "$here/tools.sh"

case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  "") ;;
  *) usage >&2; die "unknown argument '$1' (all parameters are environment variables)" ;;
esac

RUNS="${RUNS:-5}"
WARMUP_RUNS="${WARMUP_RUNS:-1}"
VARIANTS="${VARIANTS:-jvm,aot,quarkus-aot,native}"
FIRST_PATH="${FIRST_PATH:-/virtual/db}"
LOAD_PATHS="${LOAD_PATHS:-/virtual/db,/reactive/db,/worker/io?delay=0,/virtual/fanout?delay=5&calls=5}"
LOAD_REQUESTS="${LOAD_REQUESTS:-2000}"
LOAD_CONCURRENCY="${LOAD_CONCURRENCY:-20}"
TRAIN_REQUESTS="${TRAIN_REQUESTS:-200}"
SETTLE="${SETTLE:-1}"
START_TIMEOUT="${START_TIMEOUT:-90}"
POLL_MS="${POLL_MS:-5}"
JAVA_OPTS="${JAVA_OPTS:-}"
OUT="${OUT:-$VTVR_ROOT/load/results/startup-$(date +%Y%m%d-%H%M%S)}"

[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, got '$RUNS'"
[[ "$WARMUP_RUNS" =~ ^[0-9]+$ ]] || die "WARMUP_RUNS must be an integer >= 0, got '$WARMUP_RUNS'"

need curl "install curl (apt-get install curl)"
need python3 "install Python 3 (apt-get install python3)"
ensure_hey
find_jdk
JAVA="$JAVA_HOME/bin/java"
JAVA_VERSION="$(java_major "$JAVA")"

mkdir -p "$OUT/logs"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/vtvr-startup.XXXXXX")"

# ------------------------------------------------------------------------------------ cleanup: only our pids
PIDS=()
DB_STARTED=0
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  for pid in "${PIDS[@]}"; do stop_pid "$pid"; done
  stop_pid "${DELAY_PID:-}"   # started but not yet in PIDS when it never answered
  if [ "$DB_STARTED" = 1 ]; then DB_PORT="$DB_PORT" DB_DIR="$WORK/db" "$here/db.sh" stop || true; fi
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
forget_pid() { local keep=() p; for p in "${PIDS[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done; PIDS=("${keep[@]}"); }

# ------------------------------------------------------------------------------------ inputs
if [ -z "${APP_DIR:-}" ]; then
  APP_DIR="$VTVR_ROOT/target/quarkus-app"
  if [ ! -f "$APP_DIR/quarkus-run.jar" ]; then
    log "no $APP_DIR/quarkus-run.jar: building it (./mvnw package -DskipTests)"
    (cd "$VTVR_ROOT" && ./mvnw -B -q package -DskipTests) >&2
  fi
fi
[ -f "$APP_DIR/quarkus-run.jar" ] || die "APP_DIR=$APP_DIR holds no quarkus-run.jar"
cp -a "$APP_DIR" "$WORK/app"
rm -f "$WORK/app/app.aot"   # the aot variant trains its own cache here
[ -z "${QUARKUS_AOT_DIR:-}" ] && [ -f "$APP_DIR/app.aot" ] && QUARKUS_AOT_DIR="$APP_DIR"
log "app: $APP_DIR (copied to $WORK/app)"

if [ -z "${NATIVE_BIN:-}" ]; then
  NATIVE_BIN="$(ls -t "$VTVR_ROOT"/target/*-runner 2>/dev/null | head -1 || true)"
fi

NOTES=()
variants=()
IFS=, read -r -a wanted <<<"$VARIANTS"
for v in "${wanted[@]}"; do
  case "$v" in
    jvm) variants+=(jvm) ;;
    aot)
      if [ "$JAVA_VERSION" -ge 25 ]; then variants+=(aot)
      else NOTES+=("aot skipped: the one-step -XX:AOTCacheOutput needs JDK 25+, this is JDK $JAVA_VERSION ($JAVA_HOME)"); fi ;;
    quarkus-aot)
      if [ -n "${QUARKUS_AOT_DIR:-}" ] && [ -f "$QUARKUS_AOT_DIR/app.aot" ] && [ "$JAVA_VERSION" -ge 25 ]; then
        cp -a "$QUARKUS_AOT_DIR" "$WORK/app-qaot"; variants+=(quarkus-aot)
      else NOTES+=("quarkus-aot skipped: no app.aot built by Quarkus in APP_DIR or QUARKUS_AOT_DIR (./mvnw package -DskipTests -Dquarkus.package.jar.appcds.enabled=true -Dquarkus.package.jar.appcds.use-aot=true, JDK 25+)"); fi ;;
    native)
      if [ -n "$NATIVE_BIN" ] && [ -x "$NATIVE_BIN" ]; then
        cp "$NATIVE_BIN" "$WORK/app-native"; variants+=(native)
      else NOTES+=("native skipped: no native executable (build one with ./mvnw package -Dnative, or -Dnative -Dquarkus.native.container-build=true without GraalVM; or set NATIVE_BIN)"); fi ;;
    *) die "unknown variant '$v' in VARIANTS (expected jvm, aot, quarkus-aot, native)" ;;
  esac
done
for n in "${NOTES[@]}"; do log "$n"; done
[ ${#variants[@]} -gt 0 ] || die "nothing to measure"

# ------------------------------------------------------------------------------------ database
if [ -n "${QUARKUS_DATASOURCE_JDBC_URL:-}" ] || [ -n "${QUARKUS_DATASOURCE_REACTIVE_URL:-}" ]; then
  [ -n "${QUARKUS_DATASOURCE_JDBC_URL:-}" ] && [ -n "${QUARKUS_DATASOURCE_REACTIVE_URL:-}" ] \
    || die "set both QUARKUS_DATASOURCE_JDBC_URL and QUARKUS_DATASOURCE_REACTIVE_URL, or neither"
  JDBC_URL="$QUARKUS_DATASOURCE_JDBC_URL"; REACTIVE_URL="$QUARKUS_DATASOURCE_REACTIVE_URL"
  log "database: $JDBC_URL (given)"
else
  if [ -n "${DB_PORT:-}" ] && DB_PORT="$DB_PORT" "$here/db.sh" status >/dev/null 2>&1; then
    log "database: reusing the MariaDB already running on port $DB_PORT"
  else
    DB_PORT="${DB_PORT:-$(free_port)}"
    DB_STARTED=1
    # a private TMPDIR (MariaDB's default tmpdir): concurrent MariaDB instances sharing /tmp can clash there
    mkdir -p "$WORK/db-tmp"
    TMPDIR="$WORK/db-tmp" DB_PORT="$DB_PORT" DB_DIR="$WORK/db" "$here/db.sh" start
  fi
  JDBC_URL="jdbc:mysql://127.0.0.1:$DB_PORT/bench"; REACTIVE_URL="mysql://127.0.0.1:$DB_PORT/bench"
fi

APP_PORT="${APP_PORT:-$(free_port)}"
DELAY_PORT="${DELAY_PORT:-$(free_port)}"
BASE="http://127.0.0.1:$APP_PORT"

# ------------------------------------------------------------------------------------ delay service
log "delay service: JVM, QUARKUS_PROFILE=delay, 127.0.0.1:$DELAY_PORT"
start_delay_service "$WORK/app/quarkus-run.jar" "$DELAY_PORT" "$OUT/logs/delay.log"
PIDS+=("$DELAY_PID")

# ------------------------------------------------------------------------------------ one start
APP_PID=""
# launch VARIANT LOG [extra JVM flags...]: starts the app in the background, sets APP_PID and T0 (ns)
launch() {
  local variant="$1" logf="$2"; shift 2
  local cmd dir="$WORK/app"
  # shellcheck disable=SC2206  # JAVA_OPTS is a list of flags
  case "$variant" in
    jvm|train|aot) cmd=("$JAVA" $JAVA_OPTS "$@" -jar quarkus-run.jar) ;;
    quarkus-aot) cmd=("$JAVA" $JAVA_OPTS "$@" -jar quarkus-run.jar); dir="$WORK/app-qaot" ;;
    native) cmd=("$WORK/app-native") ;;
  esac
  if ! port_free "$APP_PORT"; then
    APP_PORT="$(free_port)"; BASE="http://127.0.0.1:$APP_PORT"; log "app port taken by another process, now $APP_PORT"
  fi
  T0="$(date +%s%N)"
  (cd "$dir" && QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT="$APP_PORT" \
    QUARKUS_DATASOURCE_JDBC_URL="$JDBC_URL" QUARKUS_DATASOURCE_REACTIVE_URL="$REACTIVE_URL" \
    QUARKUS_REST_CLIENT_DELAY_URL="http://127.0.0.1:$DELAY_PORT" exec "${cmd[@]}") >"$logf" 2>&1 &
  APP_PID=$!; PIDS+=("$APP_PID")
}

# first_ok URL T0: polls URL every POLL_MS until it answers 200; prints ms since T0 (ns). In-process polling
# (no fork per attempt), so the probe takes next to no CPU from the starting app on a small machine.
first_ok() {
  python3 - "$1" "$2" "$START_TIMEOUT" "$POLL_MS" "$APP_PID" <<'PY'
import http.client, os, sys, time, urllib.parse
url, t0, timeout, poll, pid = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]) / 1000, int(sys.argv[5])
u = urllib.parse.urlsplit(url)
deadline = time.time() + timeout
while time.time() < deadline:
    try:
        c = http.client.HTTPConnection(u.hostname, u.port, timeout=5)
        c.request("GET", u.path + ("?" + u.query if u.query else ""))
        if c.getresponse().status == 200:
            print((time.time_ns() - t0) // 1_000_000); sys.exit(0)
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("the app exited before answering")
    time.sleep(poll)
sys.exit("no 200 from %s within %.0f s" % (url, timeout))
PY
}

cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.0f", ($14 + $15) * 1000 / hz}' "/proc/$1/stat"; }
rss_mib() { awk '/^VmRSS:/ {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }

# load_run LOGPREFIX: the fixed load, hey -n LOAD_REQUESTS per path; prints "req_per_s errors"
load_run() {
  local prefix="$1" path total_n=0 total_s=0 errors=0 f ok secs
  IFS=, read -r -a paths <<<"$LOAD_PATHS"
  for path in "${paths[@]}"; do
    f="$prefix-$(echo "$path" | tr -c 'A-Za-z0-9\n' '_').txt"
    timeout 300 "$HEY" -n "$LOAD_REQUESTS" -c "$LOAD_CONCURRENCY" -t 10 "$BASE$path" >"$f" 2>&1 || true
    # the [200] line under "Status code distribution" (the histogram above it has "[count]" columns too)
    ok="$(awk '/^Status code distribution/ {s = 1; next} s && $1 == "[200]" {print $2; exit}' "$f")"; ok="${ok:-0}"
    secs="$(awk '/Total:/ {print $2; exit}' "$f")"; secs="${secs:-0}"
    errors=$((errors + LOAD_REQUESTS - ok)); total_n=$((total_n + LOAD_REQUESTS))
    total_s="$(awk -v a="$total_s" -v b="$secs" 'BEGIN {print a + b}')"
  done
  awk -v n="$total_n" -v s="$total_s" -v e="$errors" 'BEGIN {printf "%.0f %d\n", (s > 0 ? n / s : 0), e}'
}

stop_app() { stop_pid "$APP_PID"; forget_pid "$APP_PID"; APP_PID=""; }

RUNS_CSV="$OUT/runs.csv"
echo "variant,run,first_ok_ms,cpu_first_ms,quarkus_started_ms,rss_first_mib,rss_load_mib,load_req_per_s,load_errors,loadavg_1m" >"$RUNS_CSV"

# measure VARIANT RUN (RUN "w1".. for warm-up starts, which are logged but not kept)
measure() {
  local variant="$1" run="$2" logf="$OUT/logs/$1-$2.log" flags=() first cpu1 rss1 rss2 started rps errors attempt
  # AOTMode=on: fail rather than silently run without the cache
  case "$variant" in aot|quarkus-aot) flags=(-XX:AOTCache=app.aot -XX:AOTMode=on) ;; esac
  for attempt in 1 2 3; do
    launch "$variant" "$logf" "${flags[@]}"
    first="$(first_ok "$BASE$FIRST_PATH" "$T0")" && break
    stop_app
    # another process bound the port between the check and the app's bind: start again on another port
    if [ "$attempt" -lt 3 ] && grep -q 'seems to be in use' "$logf"; then
      log "$variant run $run: port $APP_PORT was taken, starting again"; APP_PORT="$(free_port)"; BASE="http://127.0.0.1:$APP_PORT"
      continue
    fi
    tail -30 "$logf" >&2; die "$variant run $run: no first response"
  done
  cpu1="$(cpu_ms "$APP_PID")"
  rss1="$(rss_mib "$APP_PID")"
  started="$(grep -o 'started in [0-9.]*s' "$logf" | head -1 | tr -dc '0-9.' || true)"
  started="$(awk -v s="$started" 'BEGIN {if (s == "") print ""; else printf "%.0f", s * 1000}')"
  read -r rps errors < <(load_run "$OUT/logs/$variant-$run-hey")
  sleep "$SETTLE"
  rss2="$(rss_mib "$APP_PID")"
  stop_app
  log "$(printf '%-11s run %-3s first 200 after %5s ms, %5s ms CPU (Quarkus: started in %s ms)  RSS %6s MiB -> %6s MiB after load (%s req/s, %s errors)' \
    "$variant" "$run" "$first" "$cpu1" "${started:-?}" "$rss1" "$rss2" "$rps" "$errors")"
  [[ "$run" == w* ]] && return 0
  echo "$variant,$run,$first,$cpu1,$started,$rss1,$rss2,$rps,$errors,$(cut -d' ' -f1 /proc/loadavg)" >>"$RUNS_CSV"
}

# ------------------------------------------------------------------------------------ AOT training run
if [[ " ${variants[*]} " == *" aot "* ]]; then
  log "AOT training run: -XX:AOTCacheOutput=app.aot, $TRAIN_REQUESTS requests per scenario and mode"
  launch train "$OUT/logs/aot-training.log" -XX:AOTCacheOutput=app.aot
  first_ok "$BASE$FIRST_PATH" "$T0" >/dev/null || { tail -30 "$OUT/logs/aot-training.log" >&2; die "the training run did not start"; }
  for mode in $VTVR_MODES; do
    for scenario in $VTVR_SCENARIOS; do
      DELAY=1 SLOW_DELAY=1 vtvr_request "$mode" "$scenario" 2>/dev/null || continue
      args=(-n "$TRAIN_REQUESTS" -c 8 -t 10 -m "$REQ_METHOD")
      [ -n "$REQ_BODY" ] && args+=(-T application/json -d "$REQ_BODY")
      timeout 120 "$HEY" "${args[@]}" "$BASE$REQ_PATH" >>"$OUT/logs/aot-training-hey.txt" 2>&1 || true
    done
  done
  for p in /q/health/ready /q/metrics "/delay/0"; do curl -fsS -o /dev/null "$BASE$p" || true; done
  # on exit the JVM hands the recorded profile to a child JVM that writes the cache; allow it time
  kill -TERM "$APP_PID"
  for _ in $(seq 1 600); do kill -0 "$APP_PID" 2>/dev/null || break; sleep 0.2; done
  stop_app
  [ -s "$WORK/app/app.aot" ] || { tail -30 "$OUT/logs/aot-training.log" >&2; die "the training run wrote no app.aot"; }
  log "app.aot: $(du -m "$WORK/app/app.aot" | cut -f1) MiB"
fi

# ------------------------------------------------------------------------------------ the measured starts
for w in $(seq 1 "$WARMUP_RUNS"); do for v in "${variants[@]}"; do measure "$v" "w$w"; done; done
for r in $(seq 1 "$RUNS"); do for v in "${variants[@]}"; do measure "$v" "$r"; done; done

# ------------------------------------------------------------------------------------ machine and summary
aot_mib=""; [ -s "$WORK/app/app.aot" ] && aot_mib="$(du -m "$WORK/app/app.aot" | cut -f1)"
export RUNS WARMUP_RUNS FIRST_PATH LOAD_PATHS LOAD_REQUESTS LOAD_CONCURRENCY TRAIN_REQUESTS SETTLE JAVA_OPTS
python3 - "$OUT" "$JAVA_HOME" "$("$JAVA" -version 2>&1 | sed -n 2p)" "$aot_mib" "$(printf '%s\n' "${NOTES[@]}")" <<'PY'
import csv, json, os, platform, statistics, subprocess, sys
out, java_home, java_version, aot_mib, notes = sys.argv[1:6]
mem = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal:"))
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
machine = {"nproc": os.cpu_count(), "cpu": cpu, "mem_gib": round(mem / 1024 / 1024, 1), "kernel": platform.release(),
           "java_home": java_home, "java": java_version, "loadavg_at_end": open("/proc/loadavg").read().split()[:3]}
params = {k: os.environ[k] for k in ("RUNS", "WARMUP_RUNS", "FIRST_PATH", "LOAD_PATHS", "LOAD_REQUESTS",
                                     "LOAD_CONCURRENCY", "TRAIN_REQUESTS", "SETTLE", "JAVA_OPTS")}
params["aot_cache_mib"] = aot_mib
rows = list(csv.DictReader(open(os.path.join(out, "runs.csv"))))
metrics = [("first_ok_ms", "first 200 (ms)"), ("cpu_first_ms", "CPU to first 200 (ms)"), ("quarkus_started_ms", "Quarkus 'started in' (ms)"),
           ("rss_first_mib", "RSS after first 200 (MiB)"), ("rss_load_mib", "RSS after load (MiB)"),
           ("load_req_per_s", "load throughput (req/s)"),
           ("loadavg_1m", "machine load average during the start (1 min)")]
summary = []
for variant in dict.fromkeys(r["variant"] for r in rows):
    for key, label in metrics:
        vals = [float(r[key]) for r in rows if r["variant"] == variant and r[key] != ""]
        if vals:
            summary.append({"variant": variant, "metric": key, "label": label, "n": len(vals),
                            "median": statistics.median(vals), "min": min(vals), "max": max(vals)})
    errs = sum(int(r["load_errors"]) for r in rows if r["variant"] == variant)
    summary.append({"variant": variant, "metric": "load_errors", "label": "load errors (sum)", "n": 0,
                    "median": errs, "min": errs, "max": errs})
with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, ["variant", "metric", "n", "median", "min", "max"], extrasaction="ignore")
    w.writeheader(); w.writerows(summary)
json.dump({"machine": machine, "parameters": params, "notes": [n for n in notes.split("\n") if n],
           "summary": summary, "runs": rows}, open(os.path.join(out, "summary.json"), "w"), indent=2)
json.dump(machine, open(os.path.join(out, "machine.json"), "w"), indent=2)
def fmt(x):
    return ("%.0f" % x) if abs(x) >= 100 or x == int(x) else ("%.1f" % x)
variants = list(dict.fromkeys(s["variant"] for s in summary))
lines = ["| metric | " + " | ".join(variants) + " |", "|---|" + "---|" * len(variants)]
for key, label in metrics + [("load_errors", "load errors (sum)")]:
    cells = []
    for v in variants:
        s = next((s for s in summary if s["variant"] == v and s["metric"] == key), None)
        cells.append("-" if s is None else fmt(s["median"]) if key == "load_errors"
                     else "%s (%s-%s)" % (fmt(s["median"]), fmt(s["min"]), fmt(s["max"])))
    lines.append("| %s | %s |" % (label, " | ".join(cells)))
n = max((s["n"] for s in summary), default=0)
md = ["# Startup and memory", "",
      "Median (min-max) of %d starts per variant. Machine: %d CPUs (%s), %.1f GiB RAM, %s, %s." %
      (n, machine["nproc"], cpu, machine["mem_gib"], java_version, "Linux " + machine["kernel"]), "",
      *lines, "",
      "Parameters: " + ", ".join("%s=%s" % kv for kv in params.items() if kv[1] != ""), ""]
md += ["Note: " + n for n in notes.split("\n") if n]
open(os.path.join(out, "summary.md"), "w").write("\n".join(md) + "\n")
print("\n".join(lines))
for note in notes.split("\n"):
    if note: print("note: " + note)
PY
log "results in $OUT"

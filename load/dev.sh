#!/usr/bin/env bash
# Quarkus dev mode (live reload) against the embedded MariaDB, in one command.
#
#   load/dev.sh [MAVEN_ARGS...]   starts the database, then ./mvnw quarkus:dev (Ctrl-C or q to stop)
#   load/dev.sh --check           CI: starts dev mode once, non-interactively, and proves that it serves a request
#                                 and a live reload; stops everything it started; exit 1 with a message on failure
#
# Parameters (environment):
#   HTTP_PORT        the app's port on 127.0.0.1                       default 8080 (--check: 8190)
#   DB_PORT          the embedded MariaDB's port (load/db.sh)          default 3306 (--check: 3407)
#   QUARKUS_DATASOURCE_JDBC_URL / QUARKUS_DATASOURCE_REACTIVE_URL      a database of your own (set both): no
#                    embedded one is started     default jdbc:mysql://127.0.0.1:$DB_PORT/bench, mysql://...same
#   READY_TIMEOUT    --check: seconds to wait for /q/health/ready      default 180
#   RELOAD_TIMEOUT   --check: seconds to wait for an edit to be served default 120
#   DEV_LOG          --check: dev mode's output                        default target/dev-check.log
#
# The database: load/db.sh start on DB_PORT, reused (and left running) when load/db.sh already runs one there,
# stopped at exit when this script started it. The app gets both datasource URLs from the environment, which wins
# over application.properties' %dev URLs (port 3306).
#
# --check, step by step: dev mode with -Dquarkus.console.enabled=false -Ddebug=false on HTTP_PORT; waits for
# /q/health/ready (both database clients); GET /virtual/io?delay=1 must answer 200; then adds a getter to the
# response record api/DelayReply.java (a temporary edit, restored byte for byte by the exit trap whatever happens)
# and polls GET /delay/0 until its JSON carries the getter's token: the live reload, timed; restores the file and
# polls until the token is gone (the class recompiled as it was); stops dev mode (its process group) and the
# database it started. Measured on 2 vCPUs (AMD EPYC, shared): see README "Develop".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

CHECK=0
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  --check) CHECK=1; shift; [ $# -eq 0 ] || die "--check takes no other arguments (got: $*)" ;;
esac

if [ "$CHECK" = 1 ]; then
  HTTP_PORT="${HTTP_PORT:-8190}"; DB_PORT="${DB_PORT:-3407}"
else
  HTTP_PORT="${HTTP_PORT:-8080}"; DB_PORT="${DB_PORT:-3306}"
fi
READY_TIMEOUT="${READY_TIMEOUT:-180}"
RELOAD_TIMEOUT="${RELOAD_TIMEOUT:-120}"
DEV_LOG="${DEV_LOG:-$VTVR_ROOT/target/dev-check.log}"
export DB_PORT

find_jdk
need curl "apt-get install curl"

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

DB_STARTED=0
DEV_PID=""
EDITED=""        # the source file --check edits, while it differs from its backup
BACKUP=""
WORK="$(mktemp -d)"

stop_dev() {
  [ -n "$DEV_PID" ] || return 0
  # dev mode is Maven plus the app's JVM it forks, in their own process group (setsid): stop both, SIGKILL after 20 s
  kill -TERM -- "-$DEV_PID" 2>/dev/null || true
  local deadline=$((SECONDS + 20))
  while kill -0 -- "-$DEV_PID" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.3; done
  if kill -0 -- "-$DEV_PID" 2>/dev/null; then
    log "dev mode (process group $DEV_PID) still running after 20 s: SIGKILL"
    kill -KILL -- "-$DEV_PID" 2>/dev/null || true
  fi
  wait "$DEV_PID" 2>/dev/null || true
  DEV_PID=""
}

restore_source() {
  [ -n "$EDITED" ] || return 0
  # same bytes; a new mtime (not cp -p), so Maven sees the source newer than the class dev mode compiled from the edit
  cat "$BACKUP" >"$EDITED"
  log "restored $EDITED"
  EDITED=""
}

cleanup() {
  local rc=$?
  restore_source
  stop_dev
  if [ -n "${STALE_CLASSES:-}" ]; then rm -f $STALE_CLASSES; fi   # the edit's classes, if dev mode did not recompile
  if [ "$DB_STARTED" = 1 ]; then "$VTVR_ROOT/load/db.sh" stop || true; fi
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- the database -----------------------------------------------------------------------------------------
if [ -n "${QUARKUS_DATASOURCE_JDBC_URL:-}${QUARKUS_DATASOURCE_REACTIVE_URL:-}" ]; then
  [ -n "${QUARKUS_DATASOURCE_JDBC_URL:-}" ] && [ -n "${QUARKUS_DATASOURCE_REACTIVE_URL:-}" ] \
    || die "set both QUARKUS_DATASOURCE_JDBC_URL and QUARKUS_DATASOURCE_REACTIVE_URL (same database), or neither"
  log "database: $QUARKUS_DATASOURCE_JDBC_URL (given)"
else
  if "$VTVR_ROOT/load/db.sh" status >/dev/null 2>&1; then
    log "database: load/db.sh already runs MariaDB on $DB_PORT, reusing it (left running)"
  else
    port_busy "$DB_PORT" && die "port $DB_PORT is taken by a server load/db.sh does not run: set DB_PORT to a free port"
    DB_STARTED=1
    "$VTVR_ROOT/load/db.sh" start
  fi
  export QUARKUS_DATASOURCE_JDBC_URL="jdbc:mysql://127.0.0.1:$DB_PORT/bench"
  export QUARKUS_DATASOURCE_REACTIVE_URL="mysql://127.0.0.1:$DB_PORT/bench"
fi
port_busy "$HTTP_PORT" && die "port $HTTP_PORT is taken: set HTTP_PORT to a free port"
cd "$VTVR_ROOT"

# ---- interactive dev mode ---------------------------------------------------------------------------------
if [ "$CHECK" = 0 ]; then
  log "dev mode on http://127.0.0.1:$HTTP_PORT (Dev UI: /q/dev-ui); edit src/ and reload the page"
  rc=0
  ./mvnw quarkus:dev -Dquarkus.http.port="$HTTP_PORT" "$@" || rc=$?
  exit "$rc"
fi

# ---- --check ----------------------------------------------------------------------------------------------
URL="http://127.0.0.1:$HTTP_PORT"
EDIT_FILE="$VTVR_ROOT/src/main/java/org/vtvr/api/DelayReply.java"
TOKEN="dev-check-$$-$RANDOM"
grep -q 'getDevCheck' "$EDIT_FILE" \
  && die "$EDIT_FILE still holds a getDevCheck() from an interrupted check: git checkout -- ${EDIT_FILE#"$VTVR_ROOT"/}"
mkdir -p "$(dirname "$DEV_LOG")"

# get PATH: prints the answer's body; fails on a status other than 200 or no answer within 60 s (a reload included)
get() { curl -sS --max-time 60 -f "$URL$1"; }

start=$SECONDS
log "starting dev mode on $URL (log: $DEV_LOG)"
setsid ./mvnw -B quarkus:dev -Dquarkus.http.port="$HTTP_PORT" -Dquarkus.console.enabled=false -Ddebug=false \
  </dev/null >"$DEV_LOG" 2>&1 &
DEV_PID=$!

fail() { log "last lines of $DEV_LOG:"; tail -40 "$DEV_LOG" >&2 || true; die "$*"; }

until curl -s -o /dev/null --max-time 5 -f "$URL/q/health/ready"; do
  kill -0 "$DEV_PID" 2>/dev/null || fail "dev mode ended before it was ready"
  [ $((SECONDS - start)) -lt "$READY_TIMEOUT" ] || fail "dev mode not ready within $READY_TIMEOUT s"
  sleep 0.5
done
ready_s=$((SECONDS - start))
log "ready in $ready_s s (./mvnw start, compile and app start included)"

body="$(get "/virtual/io?delay=1")" || fail "GET /virtual/io?delay=1 did not answer 200"
log "GET /virtual/io?delay=1: $body"
body="$(get /delay/0)" || fail "GET /delay/0 did not answer 200"
case "$body" in *"$TOKEN"*) fail "GET /delay/0 carries the token before the edit: $body" ;; esac

# the edit: a getter before the record's closing brace, which Jackson serialises as "devCheck"
BACKUP="$WORK/DelayReply.java"
cp "$EDIT_FILE" "$BACKUP"
awk -v token="$TOKEN" '{ line[NR] = $0 } END {
  last = NR; while (last > 0 && line[last] != "}") last--
  for (i = 1; i <= NR; i++) {
    if (i == last) print "    public String getDevCheck() { return \"" token "\"; }   // load/dev.sh --check, restored at exit"
    print line[i]
  } }' "$BACKUP" >"$WORK/edited.java"
grep -q "$TOKEN" "$WORK/edited.java" || die "could not place the edit in $EDIT_FILE (no closing brace line)"
EDITED="$EDIT_FILE"
STALE_CLASSES="$VTVR_ROOT/target/classes/org/vtvr/api/DelayReply*.class"
edit_at=$(date +%s%N)
cat "$WORK/edited.java" >"$EDIT_FILE"
log "edited ${EDIT_FILE#"$VTVR_ROOT"/}: polling GET /delay/0 for the token"

# dev mode scans for changes when a request comes in: each GET below may be the one that restarts the app
until body="$(get /delay/0 2>/dev/null)" && [[ "$body" == *"$TOKEN"* ]]; do
  kill -0 "$DEV_PID" 2>/dev/null || fail "dev mode ended during the live reload"
  [ $(( ($(date +%s%N) - edit_at) / 1000000000 )) -lt "$RELOAD_TIMEOUT" ] \
    || fail "the edit was not served within $RELOAD_TIMEOUT s (last answer: ${body:-none})"
  sleep 0.2
done
reload_ms=$(( ($(date +%s%N) - edit_at) / 1000000 ))
quarkus_says="$(grep -o 'Live reload total time: [0-9.]*s' "$DEV_LOG" | tail -1 || true)"
log "live reload: the edit served $reload_ms ms after the file changed (Quarkus: ${quarkus_says:-?}): $body"
get "/virtual/io?delay=1" >/dev/null || fail "GET /virtual/io?delay=1 did not answer 200 after the reload"

restore_source
restored_at=$SECONDS
until body="$(get /delay/0 2>/dev/null)" && [[ "$body" != *"$TOKEN"* ]]; do
  kill -0 "$DEV_PID" 2>/dev/null || fail "dev mode ended while reloading the restored file"
  [ $((SECONDS - restored_at)) -lt "$RELOAD_TIMEOUT" ] \
    || fail "the restored file was not served within $RELOAD_TIMEOUT s"
  sleep 0.2
done
STALE_CLASSES=""   # dev mode compiled the restored file: target/classes is as before
stop_dev
log "dev-mode check passed: ready in $ready_s s, live reload in $reload_ms ms, total $((SECONDS - start)) s"

#!/usr/bin/env bash
# Shared shell helpers for the scripts in load/ and .ci/run: JDK discovery, logging, tool checks.
# Source it: . "$(dirname "$0")/lib.sh"

VTVR_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VTVR_CACHE="${VTVR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vt-vs-reactive}"

# usage: prints the calling script's header comment (every script documents its parameters there)
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

# is_loopback URL: true when URL points at this machine
is_loopback() { case "$1" in http://127.0.0.1[:/]*|http://localhost[:/]*|http://\[::1\][:/]*) return 0 ;; esac; return 1; }

# require_loopback URL: dies unless URL points at this machine (load tests target loopback unless the user says
# otherwise: VTVR_REMOTE=1, which compare.sh --app-url sets for an app on another machine)
require_loopback() {
  is_loopback "$1" || [ "${VTVR_REMOTE:-0}" = 1 ] \
    || die "APP_URL must point at this machine (127.0.0.1/localhost), got '$1' (VTVR_REMOTE=1 allows another host)"
}

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# java_major JAVA_BIN -> prints the feature version (17, 21, 25, ...)
java_major() {
  "$1" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}' | cut -d. -f1
}

# find_jdk: exports JAVA_HOME pointing at a JDK >= 21. JAVA_HOME wins when it qualifies; otherwise the JVM
# folders next to the default java (and the usual Linux/macOS locations) are searched, newest first.
find_jdk() {
  local candidates=() dir
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  if command -v java >/dev/null 2>&1; then
    dir="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"   # .../jvm/<jdk>
    candidates+=("$dir")
    for d in "$(dirname "$dir")"/*/; do candidates+=("${d%/}"); done
  fi
  for d in /usr/lib/jvm/*/ /usr/local/lib/jvm/*/ /opt/java/*/ /Library/Java/JavaVirtualMachines/*/Contents/Home/; do
    [ -d "$d" ] && candidates+=("${d%/}")
  done
  local best="" best_v=0 v seen=" "
  for d in "${candidates[@]}"; do
    case "$seen" in *" $d "*) continue ;; esac
    seen+="$d "
    [ -x "$d/bin/java" ] && [ -x "$d/bin/javac" ] || continue
    v="$(java_major "$d/bin/java")"
    [ -n "$v" ] || continue
    if [ -n "${JAVA_HOME:-}" ] && [ "$d" = "$JAVA_HOME" ] && [ "$v" -ge 21 ]; then best="$d"; best_v="$v"; break; fi
    if [ "$v" -ge 21 ] && [ "$v" -gt "$best_v" ]; then best="$d"; best_v="$v"; fi
  done
  [ -n "$best" ] || die "no JDK 21 or newer found (JAVA_HOME=${JAVA_HOME:-unset}; searched${seen% }).
  Install one, e.g. 'apt-get install openjdk-21-jdk-headless', 'brew install openjdk@21' or 'sdk install java 21-tem';
  ./mvnw and load/ find it beside the default java or under /usr/lib/jvm, anywhere else set JAVA_HOME to it."
  export JAVA_HOME="$best"
  export PATH="$JAVA_HOME/bin:$PATH"
}

# takes "$@" (inside an option loop that sets opt, val="" and shift_by=1): the option's value, from "--opt=value"
# or from the next argument
takes() { if [ -z "$val" ]; then [ $# -ge 2 ] || die "$opt needs a value"; val="$2"; shift_by=2; fi; }

# need CMD "how to install": dies with the install hint when CMD is missing
need() { command -v "$1" >/dev/null 2>&1 || die "'$1' is needed: $2"; }

# alive PID: running and not a zombie waiting to be reaped
alive() {
  local st
  [ -n "$1" ] && st="$(cat "/proc/$1/stat" 2>/dev/null)" && [ -n "$st" ] || return 1
  st="${st##*) }"   # the fields after the command name, which may hold spaces and ')'
  [ "${st:0:1}" != Z ]
}

# wait_ready PID URL SECONDS: until URL answers 2xx; fails after SECONDS, or at once when PID has exited
wait_ready() {
  local deadline=$((SECONDS + $3))
  until curl -fsS -o /dev/null --max-time 2 "$2" 2>/dev/null; do
    alive "$1" && [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

# stop_pid PID [SIGNAL] [GRACE_S]: SIGNAL (TERM) to PID and its descendants, up to GRACE_S (20) seconds, then KILL;
# reaps it. KILL at once for SIGNAL=KILL. An empty or finished PID is a no-op.
stop_pid() {
  local pid="$1" sig="${2:-TERM}" grace="${3:-20}" i
  alive "$pid" || { [ -z "$pid" ] || wait "$pid" 2>/dev/null || true; return 0; }
  _signal_tree "$pid" "$sig"
  # reaped by 'wait' at once, a killed job leaves no "Killed" notice on the terminal
  if [ "$sig" = KILL ]; then wait "$pid" 2>/dev/null || true; return 0; fi
  for ((i = 0; i < grace * 10; i++)); do alive "$pid" || break; sleep 0.1; done
  if alive "$pid"; then log "pid $pid ignored $sig for $grace s, killing"; _signal_tree "$pid" KILL; fi
  wait "$pid" 2>/dev/null || true
}
_signal_tree() {   # _signal_tree PID SIGNAL: PID's descendants first, then PID
  local c
  for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do _signal_tree "$c" "$2"; done
  kill "-$2" "$1" 2>/dev/null || true
}

# port_free PORT: true when a server can bind the port on 127.0.0.1 (nothing listens there). SO_REUSEADDR as
# servers set it, so the TIME_WAIT sockets a previous run left do not count as busy
port_free() {
  python3 -c 'import socket,sys; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1",int(sys.argv[1]))); s.close()' "$1" 2>/dev/null
}

# free_port: prints a TCP port that is free on 127.0.0.1, below the kernel's range for outgoing connections
# (/proc/sys/net/ipv4/ip_local_port_range, 32768+), so the many client sockets of a load test cannot take it
# between this check and the server's bind
free_port() {
  python3 - <<'PY'
import random, socket
lo = 32768
try:
    lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
except OSError:
    pass
for port in random.sample(range(min(20000, lo - 2000), lo), 200):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port)); print(port); break
    except OSError:
        pass
    finally:
        s.close()
PY
}

# start_delay_service JAR_OR_RUNNER PORT LOG [JVM flags...]: starts the delay service (QUARKUS_PROFILE=delay) on
# 127.0.0.1:PORT in the background, sets DELAY_PID, waits until it answers; dies with its log's tail otherwise
start_delay_service() {
  local bin="$1" port="$2" logf="$3" cmd; shift 3
  if [[ "$bin" == *.jar ]]; then cmd=("$JAVA_HOME/bin/java" "$@" -jar "$bin"); else cmd=("$bin"); fi
  env QUARKUS_PROFILE=delay QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT="$port" "${cmd[@]}" >>"$logf" 2>&1 &
  DELAY_PID=$!
  wait_ready "$DELAY_PID" "http://127.0.0.1:$port/delay/0" 90 \
    || { tail -20 "$logf" >&2; die "the delay service did not answer on port $port (log: $logf)"; }
}

# loopback_source: prints a fresh loopback source address (127.0.0.2-251) for one Vegeta run ('-laddr'). Vegeta binds
# before it connects; bound to 0.0.0.0 it cannot reuse a port in TIME_WAIT, so the sockets one heavy run closed would
# use up the ephemeral ports of the next ("bind: address already in use", seen here after overload runs). Each
# 127.0.0.x has its own port space; the target stays 127.0.0.1.
loopback_source() {
  echo "127.0.0.$((2 + RANDOM % 250))"
}

# laddr_for URL: Vegeta's '-laddr' flag with a fresh loopback source (loopback_source) for a loopback URL; nothing
# for another host, which a loopback source cannot reach
laddr_for() { if is_loopback "$1"; then echo "-laddr $(loopback_source)"; fi; }

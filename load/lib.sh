#!/usr/bin/env bash
# Shared shell helpers for the scripts in load/ and .ci/run: JDK discovery, logging, tool checks, loopback checks.
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

# need CMD "how to install": dies with the install hint when CMD is missing
need() { command -v "$1" >/dev/null 2>&1 || die "'$1' is needed: $2"; }

# loopback_source: prints a fresh loopback source address (127.0.0.2-251) for one Vegeta run ('-laddr'). Vegeta binds
# before it connects; bound to 0.0.0.0 it cannot reuse a port in TIME_WAIT, so the sockets one heavy run closed would
# use up the ephemeral ports of the next ("bind: address already in use", seen here after overload runs). Each
# 127.0.0.x has its own port space; the target stays 127.0.0.1. (The harness package does the same for its Vegeta runs.)
loopback_source() {
  echo "127.0.0.$((2 + RANDOM % 250))"
}

# laddr_for URL: Vegeta's '-laddr' flag with a fresh loopback source (loopback_source) for a loopback URL; nothing
# for another host, which a loopback source cannot reach
laddr_for() { if is_loopback "$1"; then echo "-laddr $(loopback_source)"; fi; }

# vtvr_cli LEVEL_NAME DEFAULT_LEVEL "$@": the shared command line of vegeta.sh and hey.sh, MODE SCENARIO [LEVEL]
# [DURATION] (LEVEL is the rate or the concurrency, env LEVEL_NAME overrides its default). Sets mode, scenario,
# level, duration and base (APP_URL, loopback only); prints the header on -h.
vtvr_cli() {
  local name="$1" default="$2"; shift 2
  case "${1:-}" in -h|--help|"") usage; [ -n "${1:-}" ]; exit ;; esac
  [ $# -ge 2 ] && [ $# -le 4 ] || die "usage: $0 MODE SCENARIO [$name] [DURATION] (-h for help)"
  mode="$1" scenario="$2" level="${3:-${!name:-$default}}" duration="${4:-${DURATION:-10s}}"
  base="${APP_URL:-http://127.0.0.1:8080}"; base="${base%/}"
  [[ "$level" =~ ^[0-9]+$ ]] && [ "$level" -gt 0 ] || die "$name must be a positive integer, got '$level'"
  require_loopback "$base"
}

# vtvr_request MODE SCENARIO: sets REQ_METHOD, REQ_PATH (path and query), REQ_STATUS (a correct answer's) and
# REQ_BODY (JSON or empty) from the scenario catalogue of the app at $base (`vtvr-harness targets`, which reads its
# GET /scenarios and the scenario parameters DELAY, IO_CALLS, ... from the environment). Needs PYTHON
# (ensure_python); returns 1 with the harness's message for an unknown mode or scenario.
vtvr_request() {
  local out
  local params=() k
  for k in DELAY IO_CALLS FANOUT_CALLS DB_QUERIES SLOW_DELAY CPU_N PINNING_LOCK WORKLOAD; do
    [ -z "${!k:-}" ] || params+=(--param "$k=${!k}")
  done
  out="$("$PYTHON" -m harness targets --app-url "$base" "${params[@]}" "$2" "$1")" || return 1
  { read -r REQ_METHOD; read -r REQ_PATH; read -r REQ_STATUS; IFS= read -r REQ_BODY || true; } <<<"$out"
}

# vtvr_target MODE SCENARIO BODY_DIR -> prints one Vegeta target in its "http" format against $base (vtvr_request
# sets REQ_*); a POST body is written to BODY_DIR/<scenario>.json and referenced with '@file' as that format wants.
vtvr_target() {
  vtvr_request "$1" "$2" || return 1
  echo "$REQ_METHOD $base$REQ_PATH"
  if [ -n "$REQ_BODY" ]; then
    printf '%s' "$REQ_BODY" >"$3/$2.json"
    echo "Content-Type: application/json"
    echo "@$3/$2.json"
  fi
  echo
}

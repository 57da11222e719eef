#!/usr/bin/env bash
# Shared shell helpers for the scripts in load/ and .ci/run: JDK discovery, logging, tool checks.
# Source it: . "$(dirname "$0")/lib.sh"

VTVR_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VTVR_CACHE="${VTVR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vt-vs-reactive}"

# usage: prints the calling script's header comment (every script documents its parameters there)
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

# require_loopback URL: dies unless URL points at this machine (load and failure tests target loopback only)
require_loopback() {
  case "$1" in http://127.0.0.1[:/]*|http://localhost[:/]*|http://\[::1\][:/]*) ;;
    *) die "APP_URL must point at this machine (127.0.0.1/localhost), got '$1'" ;; esac
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

# wait_http URL SECONDS: waits until URL answers 2xx, fails after SECONDS
wait_http() {
  local url="$1" deadline=$((SECONDS + $2))
  until curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.3
  done
}

# free_port: prints a TCP port that is free on 127.0.0.1, below the kernel's range for outgoing connections
# (32768+), so another process's connection cannot take it between this check and the server's bind
free_port() {
  python3 -c '
import random, socket
for port in random.sample(range(20000, 32768), 200):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port)); print(port); break
    except OSError:
        pass
    finally:
        s.close()'
}

# loopback_source: prints a fresh loopback source address (127.0.0.2-251) for one Vegeta run ('-laddr'). Vegeta binds
# before it connects; bound to 0.0.0.0 it cannot reuse a port in TIME_WAIT, so the sockets one heavy run closed would
# use up the ephemeral ports of the next ("bind: address already in use", seen here after overload runs). Each
# 127.0.0.x has its own port space; the target stays 127.0.0.1.
loopback_source() {
  echo "127.0.0.$((2 + RANDOM % 250))"
}

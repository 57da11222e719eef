#!/usr/bin/env bash
# The one place where a scenario name becomes an HTTP request; sourced by vegeta.sh, hey.sh and compare.sh.
# Source it: . "$(dirname "$0")/scenarios.sh"
#
# Scenario parameters (environment, defaults in brackets):
#   DELAY         delay of every downstream call in ms, for io, fanout, checkout, pinning   [100]
#   IO_CALLS      sequential delay calls per io request                                     [1]
#   FANOUT_CALLS  parallel delay calls per fanout request                                   [10]
#   DB_QUERIES    queries per db request                                                    [1]
#   SLOW_DELAY    ms the slow-query holds its DB connection                                 [500]
#   CPU_N         size of the cpu kernel (the service caps it at 10,000,000)                [100000]
#   PINNING_LOCK  lock of the 'pinning' scenario: synchronized | reentrant                  [synchronized]
#
# Scenarios: io fanout db slow-query checkout cpu pinning pinning-reentrant
# Modes:     virtual worker reactive (pinning exists only for virtual and worker: Mutiny code holds no lock)
# Floor and ladder (docs/floor.md, never in a default run): floor (io, fanout) and the ladder's rungs ladder-<rung>
#            (io only), served at /floor/<scenario> and /ladder/<rung>/io

# shellcheck disable=SC2034  # REQ_* and these lists are read by the scripts that source this file
VTVR_SCENARIOS="io fanout db slow-query checkout cpu pinning pinning-reentrant"
VTVR_MODES="virtual worker reactive"
VTVR_LADDER="ladder-rest ladder-rest-client ladder-gateway ladder-reactive ladder-vt ladder-vt-rest-client ladder-vt-gateway ladder-virtual"

# The checkout body; the service answers 201 with the created order.
VTVR_CHECKOUT_BODY='{"customer":"alice","sku":"SKU-1","quantity":2}'

# vtvr_modes_for SCENARIO -> the modes that serve SCENARIO
vtvr_modes_for() {
  case "$1" in
    pinning|pinning-*) echo "virtual worker" ;;
    *) echo "$VTVR_MODES" ;;
  esac
}

# vtvr_series_for SCENARIO -> every series that serves SCENARIO: its modes, then the floor and the ladder's rungs
vtvr_series_for() {
  case "$1" in
    io) echo "$(vtvr_modes_for "$1") floor $VTVR_LADDER" ;;
    fanout) echo "$(vtvr_modes_for "$1") floor" ;;
    *) vtvr_modes_for "$1" ;;
  esac
}

# vtvr_request MODE SCENARIO: sets REQ_METHOD, REQ_PATH (path and query), REQ_BODY (JSON or empty) and
# REQ_STATUS (the status a correct answer has). Returns 1 with a message for an unknown mode or scenario.
vtvr_request() {
  local mode="$1" scenario="$2" delay="${DELAY:-100}" root
  case "$mode" in
    virtual|worker|reactive|floor) root="/$mode" ;;
    ladder-*) root="/ladder/${mode#ladder-}" ;;
    *) echo "unknown mode '$mode' (expected one of: $VTVR_MODES floor $VTVR_LADDER)" >&2; return 1 ;;
  esac
  case " $(vtvr_series_for "$scenario") " in
    *" $mode "*) ;;
    *) echo "scenario '$scenario' has no '$mode' mode (it has: $(vtvr_series_for "$scenario"))" >&2; return 1 ;;
  esac
  REQ_METHOD=GET; REQ_BODY=""; REQ_STATUS=200
  case "$scenario" in
    io)                REQ_PATH="$root/io?delay=$delay&calls=${IO_CALLS:-1}" ;;
    fanout)            REQ_PATH="$root/fanout?delay=$delay&calls=${FANOUT_CALLS:-10}" ;;
    db)                REQ_PATH="/$mode/db?queries=${DB_QUERIES:-1}" ;;
    slow-query)        REQ_PATH="/$mode/slow-query?delay=${SLOW_DELAY:-500}" ;;
    checkout)          REQ_METHOD=POST; REQ_STATUS=201; REQ_BODY="$VTVR_CHECKOUT_BODY"
                       REQ_PATH="/$mode/orders?delay=$delay" ;;
    cpu)               REQ_PATH="/$mode/cpu?n=${CPU_N:-100000}" ;;
    pinning)           REQ_PATH="/$mode/pinning?delay=$delay&lock=${PINNING_LOCK:-synchronized}" ;;
    pinning-reentrant) REQ_PATH="/$mode/pinning?delay=$delay&lock=reentrant" ;;
    *) echo "unknown scenario '$scenario' (expected one of: $VTVR_SCENARIOS)" >&2; return 1 ;;
  esac
}

# vtvr_params SCENARIO -> the query string of SCENARIO (the parameters a result was measured with)
vtvr_params() {
  local first
  first="$(vtvr_modes_for "$1")"; first="${first%% *}"
  vtvr_request "$first" "$1" || return 1
  echo "${REQ_PATH#*\?}"
}

# vtvr_target BASE_URL MODE SCENARIO BODY_DIR -> prints one Vegeta target in its "http" format; a POST body
# is written to BODY_DIR/<scenario>.json and referenced with '@file' as that format wants.
vtvr_target() {
  local base="$1" mode="$2" scenario="$3" dir="$4"
  vtvr_request "$mode" "$scenario" || return 1
  echo "$REQ_METHOD $base$REQ_PATH"
  if [ -n "$REQ_BODY" ]; then
    printf '%s' "$REQ_BODY" >"$dir/$scenario.json"
    echo "Content-Type: application/json"
    echo "@$dir/$scenario.json"
  fi
  echo
}

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

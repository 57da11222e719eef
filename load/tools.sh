#!/usr/bin/env bash
# Finds or installs the load tools (Vegeta, hey) and checks Python; sourced by the load scripts, or run alone
# to install everything and print where it is.
#
# Usage: load/tools.sh [-h]
#
# Environment (defaults in brackets):
#   VEGETA_VERSION  Vegeta release built from the Go module proxy          [v12.12.0]
#   HEY_VERSION     hey release built from the Go module proxy (no apt)    [v0.1.4]
#   VEGETA, HEY     use this binary instead of looking for one              [unset]
#   VTVR_CACHE      where built binaries go (bin/) and their Go sources     [~/.cache/vt-vs-reactive]
#
# Sets VEGETA, HEY and PYTHON to absolute paths. Vegeta: PATH, then $VTVR_CACHE/bin, then a build with Go >= 1.22
# (`go install vegeta@latest` is refused by some proxies, so a throwaway module requires the pinned version and
# builds it). hey: PATH, then `apt-get install hey` when root with apt, then a Go build.
# PYTHON is load/.venv's interpreter, with the harness package of load/pyproject.toml installed (ensure_python).

VEGETA_VERSION="${VEGETA_VERSION:-v12.12.0}"
HEY_VERSION="${HEY_VERSION:-v0.1.4}"

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# go_ok: true when a Go toolchain new enough for Vegeta (1.22) is on PATH (or in /usr/local/go)
go_ok() {
  if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then export PATH="$PATH:/usr/local/go/bin"; fi
  command -v go >/dev/null 2>&1 || return 1
  local v; v="$(go env GOVERSION 2>/dev/null)"; v="${v#go}"
  [ "${v%%.*}" -gt 1 ] 2>/dev/null && return 0
  v="${v#1.}"; [ "${v%%.*}" -ge 22 ] 2>/dev/null
}

# go_build MODULE@VERSION PACKAGE NAME: builds PACKAGE from a throwaway module into $VTVR_CACHE/bin/NAME; one build
# of NAME at a time (a first run's background build, start_vegeta_build, and the run's own ensure_vegeta wait for
# each other), and none when the binary is there by the time the lock is ours
go_build() {
  local mod="$1" pkg="$2" name="$3" src="$VTVR_CACHE/go-src/$3" lock rc=0
  mkdir -p "$VTVR_CACHE/bin" "$VTVR_CACHE/go-src"
  exec {lock}>"$VTVR_CACHE/go-src/$name.lock"
  flock "$lock"
  if [ ! -x "$VTVR_CACHE/bin/$name" ]; then
    rm -rf "$src" && mkdir -p "$src"
    log "building $name $mod with $(go env GOVERSION) (once, cached in $VTVR_CACHE/bin)"
    ( cd "$src" && go mod init "vtvr-tools/$name" >/dev/null 2>&1 && go get "$mod" >&2 \
        && GOFLAGS=-buildvcs=false go build -o "$VTVR_CACHE/bin/$name" "$pkg" >&2 ) || rc=$?
  fi
  exec {lock}>&-
  return "$rc"
}

# start_vegeta_build: on a first run (no Vegeta anywhere, Go at hand) builds it in the background, while the harness
# installs; the run's ensure_vegeta then waits for it (go_build's lock)
start_vegeta_build() {
  if [ -n "${VEGETA:-}" ] || command -v vegeta >/dev/null 2>&1 || [ -x "$VTVR_CACHE/bin/vegeta" ] || ! go_ok; then
    return 0
  fi
  log "first run: building Vegeta (Go, once) in the background while the harness installs"
  ( ensure_vegeta ) &
}

ensure_vegeta() {
  if [ -n "${VEGETA:-}" ] && [ -x "$VEGETA" ]; then return 0; fi
  if command -v vegeta >/dev/null 2>&1; then VEGETA="$(command -v vegeta)"
  elif [ -x "$VTVR_CACHE/bin/vegeta" ]; then VEGETA="$VTVR_CACHE/bin/vegeta"
  elif go_ok && go_build "github.com/tsenart/vegeta/v12@$VEGETA_VERSION" github.com/tsenart/vegeta/v12 vegeta; then
    VEGETA="$VTVR_CACHE/bin/vegeta"
  else
    die "Vegeta is needed and could not be installed. Install it, then run again:
  macOS:        brew install vegeta
  Go >= 1.22:   mkdir /tmp/v && cd /tmp/v && go mod init v && go get github.com/tsenart/vegeta/v12@$VEGETA_VERSION \\
                  && go build -o ~/.local/bin/vegeta github.com/tsenart/vegeta/v12
  or a release: https://github.com/tsenart/vegeta/releases (put 'vegeta' on PATH or set VEGETA=/path/to/vegeta)"
  fi
  export VEGETA
}

ensure_hey() {
  if [ -n "${HEY:-}" ] && [ -x "$HEY" ]; then return 0; fi
  if command -v hey >/dev/null 2>&1; then HEY="$(command -v hey)"
  elif [ -x "$VTVR_CACHE/bin/hey" ]; then HEY="$VTVR_CACHE/bin/hey"
  elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
       && { log "installing hey with apt-get"; DEBIAN_FRONTEND=noninteractive apt-get install -y -q hey >&2 \
            || { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q hey >&2; }; } \
       && command -v hey >/dev/null 2>&1; then
    HEY="$(command -v hey)"
  elif go_ok && mkdir -p "$VTVR_CACHE/bin" && log "building hey $HEY_VERSION" \
       && GOBIN="$VTVR_CACHE/bin" GOFLAGS=-buildvcs=false go install "github.com/rakyll/hey@$HEY_VERSION" >&2; then
    HEY="$VTVR_CACHE/bin/hey"
  else
    die "hey is needed and could not be installed. Install it, then run again:
  Debian/Ubuntu: sudo apt-get install hey
  macOS:         brew install hey
  Go:            go install github.com/rakyll/hey@$HEY_VERSION   (then put \$(go env GOPATH)/bin on PATH)"
  fi
  export HEY
}

# ensure_python: sets PYTHON to the interpreter of load/.venv, a virtual environment inside the checkout (two clones
# or worktrees never share one) holding the harness package (load/pyproject.toml, editable, with its dev and
# contract extras),
# created on first use and refreshed when pyproject.toml changes
ensure_python() {
  local venv="$VTVR_ROOT/load/.venv" proj="$VTVR_ROOT/load/pyproject.toml"
  if [ -n "${PYTHON:-}" ] && [ -x "$PYTHON" ] && "$PYTHON" -c 'import harness, psutil, rich' 2>/dev/null; then
    return 0
  fi
  if ! cmp -s "$proj" "$venv/pyproject.toml" 2>/dev/null; then
    need python3 "install Python 3.11 or newer (apt-get install python3 python3-venv, brew install python)"
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
      || die "python3 is older than 3.11 (numpy 2.4 needs 3.11): $(python3 --version 2>&1)"
    log "installing the harness (load/pyproject.toml) into $venv (once)"
    rm -rf "$venv"
    python3 -m venv "$venv" >&2 || die "python3 -m venv failed: install the venv module (apt-get install python3-venv)"
    "$venv/bin/pip" install -q --disable-pip-version-check -e "$VTVR_ROOT/load[dev,contract]" >&2 \
      || { rm -rf "$venv"; die "pip could not install load/pyproject.toml (needs PyPI or a mirror: PIP_INDEX_URL)"; }
    cp "$proj" "$venv/pyproject.toml"
  fi
  PYTHON="$venv/bin/python"
  export PYTHON
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  case "${1:-}" in -h|--help) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
  ensure_vegeta; ensure_hey; ensure_python
  echo "vegeta  $VEGETA"
  echo "hey     $HEY"
  echo "python  $PYTHON ($("$PYTHON" --version 2>&1))"
fi

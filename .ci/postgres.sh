#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server on 127.0.0.1 for the PostgreSQL tests, as the `postgres`
# user (the server refuses to run as root), and prints the URL the tests read from
# ENGINE_TEST_POSTGRES_URL:
#
#   export ENGINE_TEST_POSTGRES_URL=$(.ci/postgres.sh start)
#   .ci/postgres.sh stop
#
# Installs Debian's postgresql package when no server is installed. The cluster lives in
# /tmp/timeline-engine-pg and is deleted by `stop`.
set -euo pipefail
DATA=/tmp/timeline-engine-pg
PORT=${ENGINE_TEST_POSTGRES_PORT:-54329}

bindir() {
  local candidate
  for candidate in /usr/lib/postgresql/*/bin; do
    [ -x "$candidate/initdb" ] && { echo "$candidate"; return; }
  done
  command -v initdb >/dev/null 2>&1 && dirname "$(command -v initdb)"
}

as_postgres() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

case "${1:-start}" in
  start)
    BIN=$(bindir || true)
    if [ -z "$BIN" ]; then
      apt-get update -qq >&2
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
      BIN=$(bindir)
    fi
    if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
      useradd --system --no-create-home postgres
    fi
    if [ -f "$DATA/postmaster.pid" ]; then
      as_postgres "$BIN/pg_ctl" -D "$DATA" -m fast stop >&2 || true
    fi
    rm -rf "$DATA"
    mkdir -p "$DATA"
    [ "$(id -u)" = 0 ] && chown postgres "$DATA"
    as_postgres "$BIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 >/dev/null
    as_postgres "$BIN/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w \
      -o "-c listen_addresses=127.0.0.1 -c port=$PORT -c unix_socket_directories=$DATA -c max_connections=200 -c fsync=off" start >&2
    as_postgres "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -q -c "CREATE DATABASE timeline_sync_test" >&2
    echo "postgres://postgres@127.0.0.1:$PORT/timeline_sync_test"
    ;;
  stop)
    BIN=$(bindir)
    [ -f "$DATA/postmaster.pid" ] && as_postgres "$BIN/pg_ctl" -D "$DATA" -m fast stop >&2
    rm -rf "$DATA"
    ;;
  *)
    echo "usage: .ci/postgres.sh start|stop" >&2
    exit 2
    ;;
esac

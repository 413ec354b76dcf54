#!/usr/bin/env bash
# The sync server under load, on SQLite and on PostgreSQL, beside two peers in one table: a
# minimal Hummingbird route doing the same upsert and nothing else (the framework's own cost),
# and PostgreSQL's raw upsert rate (pgbench, the same statement, the same server); then the
# start-up of engine against plutil. When wrk is installed (apt: wrk), the server and the minimal
# route also take wrk's load, a load generator in C that leaves more of the 2 cores to them
# than the benchmark's own AsyncHTTPClient does. A table of its own pairs the server's rate with
# every write sealed end to end against in the clear, alternating, twice each.
# Everything goes to 127.0.0.1 and stops by itself. Starts a throwaway PostgreSQL server unless
# ENGINE_TEST_POSTGRES_URL is set. BEFORE=path/to/an/older/engine adds its start-up times.
#   Benchmarks/server-bench.sh [RATE] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rate=${1:-1000}
seconds=${2:-10}
if [ -z "${ENGINE_TEST_POSTGRES_URL:-}" ]; then
  ENGINE_TEST_POSTGRES_URL=$(.ci/postgres.sh start)
  trap '.ci/postgres.sh stop || true' EXIT
fi
swift build -c release --product engine --traits SyncServer >&2
swift build -c release --package-path Benchmarks --product server-bench >&2
bench=Benchmarks/.build/release/server-bench
work=$(mktemp -d)

echo "## Sync server: $rate writes/s for $seconds s with long-polls, then 16 clients as fast as answered"
echo "Peers in the same run: the minimal Hummingbird route (the same upsert, nothing else; MinimalRoute.swift)"
echo "and pgbench (the register upsert alone, each replacing the head, prepared, 16 clients, no HTTP; its p50 column is its mean latency);"
echo "then pgbench running the server's whole merge statement (the change counter too), for the database's own rate of the server's write."
echo
echo "| storage | phase | writes | failed | writes/s | p50 ms | p99 ms | long-poll wakes |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for mode in sqlite minimal-sqlite; do
  $bench $mode "$work/$mode.sqlite" "$rate" "$seconds" 50 16 | grep -E '^\| (sqlite|postgres|minimal)'
done
for mode in postgres minimal-postgres; do
  $bench $mode "$ENGINE_TEST_POSTGRES_URL" "$rate" "$seconds" 50 16 | grep -E '^\| (sqlite|postgres|minimal)'
done
echo
echo "## Sealed end to end against in the clear, paired"
echo "The same writes, alternately in the clear and sealed (sqlite-sealed, postgres-sealed: hashed names, seq and key id"
echo "in the clear, a real sealed box), twice each, in this run."
echo
echo "| storage | phase | writes | failed | writes/s | p50 ms | p99 ms | long-poll wakes |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for round in 1 2; do
  for mode in sqlite sqlite-sealed; do
    $bench $mode "$work/$mode-$round.sqlite" "$rate" "$seconds" 50 16 | grep -E '^\| (sqlite|postgres)' | grep -v 'first second'
  done
  for mode in postgres postgres-sealed; do
    $bench $mode "$ENGINE_TEST_POSTGRES_URL" "$rate" "$seconds" 50 16 | grep -E '^\| (sqlite|postgres)' | grep -v 'first second'
  done
done
echo
echo "| storage | phase | writes | failed | writes/s | p50 ms | p99 ms | long-poll wakes |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
# pgbench SCRIPT LABEL: a row of pgbench's rate for SCRIPT, 16 clients.
pgbench_row() {
  pgbench -n -c 16 -j 2 -M prepared -T "$seconds" -f "$1" "$ENGINE_TEST_POSTGRES_URL" 2>/dev/null | awk -v label="$2" '
    /^number of transactions actually processed/ { split($0, parts, ": "); split(parts[2], n, "/"); writes = n[1] }
    /^number of failed transactions/ { failed = $5 }
    /^latency average/ { latency = $4 }
    /^tps/ { tps = int($3) }
    END { printf "| %s | closed loop, 16 clients | %s | %s | %s | %s | - | - |\n", label, writes, failed + 0, tps, latency }'
}
pgbench_row Benchmarks/pgbench-upsert.sql pgbench
# The server's merge needs users 1 to 50, which the server's runs above made in a new database.
psql -q "$ENGINE_TEST_POSTGRES_URL" -c "INSERT INTO sync_user (name, created_at) SELECT 'pgbench-' || g, 0 FROM generate_series(1, 50) AS g ON CONFLICT (name) DO NOTHING"
pgbench_row Benchmarks/pgbench-merge.sql "pgbench, the server's merge"

# wrk against a server that `server-bench hold` runs: 16 connections on 2 threads, as fast as answered.
wrk_row() {
  local mode=$1 target=$2 out="$work/hold-$1.out"
  $bench hold "$mode" "$target" "$((seconds + 30))" 50 > "$out" &
  local server=$!
  for _ in $(seq 1 300); do
    [ "$(grep -c '^token' "$out" 2>/dev/null || true)" -ge 50 ] && break
    sleep 0.1
  done
  grep '^token' "$out" | cut -d' ' -f2 > "$work/tokens"
  local port
  port=$(awk '/^port/ { print $2 }' "$out")
  wrk -t2 -c16 -d"${seconds}s" --latency -s Benchmarks/wrk-writes.lua "http://127.0.0.1:$port/v1/registers" -- "$work/tokens" | awk -v mode="$mode" '
    function ms(text) { if (text ~ /us$/) return text / 1000; if (text ~ /ms$/) return text + 0; if (text ~ /s$/) return text * 1000; return text }
    / requests in / { writes = $1 }
    /Non-2xx/ { failed += $NF }
    /Socket errors/ { gsub(",", ""); failed += $4 + $6 + $8 + $10 }
    /^ +50%/ { p50 = ms($2) }
    /^ +99%/ { p99 = ms($2) }
    /^Requests\/sec/ { rate = int($2) }
    END { printf "| %s | closed loop, 16 connections, wrk | %s | %d | %s | %.2f | %.2f | - |\n", mode, writes, failed, rate, p50, p99 }'
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
}
if command -v wrk >/dev/null 2>&1; then
  for mode in sqlite minimal-sqlite; do wrk_row "$mode" "$work/wrk-$mode.sqlite"; done
  for mode in postgres minimal-postgres; do wrk_row "$mode" "$ENGINE_TEST_POSTGRES_URL"; done
fi
echo
echo "## Start-up: engine against plutil (30 runs)"
specs=("engine --version=.build/release/engine --version" "plutil -help=plutil -help"
       "engine validate=.build/release/engine validate config/SocialFusionTimelineConfiguration.plist"
       "plutil -lint=plutil -lint config/SocialFusionTimelineConfiguration.plist")
if [ -n "${BEFORE:-}" ]; then
  specs+=("engine --version, before=$BEFORE --version" "engine validate, before=$BEFORE validate config/SocialFusionTimelineConfiguration.plist")
fi
python3 Benchmarks/measure.py 30 "${specs[@]}"
echo
echo "shared libraries: $(ldd .build/release/engine | wc -l); libcurl: $(ldd .build/release/engine | grep -c libcurl || true)"
rm -rf "$work"

#!/usr/bin/env bash
# The sync server under load, on SQLite and on PostgreSQL, beside two peers in one table: a
# minimal Hummingbird route doing the same upsert and nothing else (the framework's own cost),
# and PostgreSQL's raw upsert rate (pgbench, the same statement, the same server); then the
# start-up of engine against plutil.
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
echo "and pgbench (the register upsert alone, each replacing the head, prepared, 16 clients, no HTTP; its p50 column is its mean latency)."
echo
echo "| storage | phase | writes | failed | writes/s | p50 ms | p99 ms | long-poll wakes |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for mode in sqlite minimal-sqlite; do
  $bench $mode "$work/$mode.sqlite" "$rate" "$seconds" 50 16 | grep -E '^\| (sqlite|postgres|minimal)'
done
for mode in postgres minimal-postgres; do
  $bench $mode "$ENGINE_TEST_POSTGRES_URL" "$rate" "$seconds" 50 16 | grep -E '^\| (sqlite|postgres|minimal)'
done
pgbench -n -c 16 -j 2 -M prepared -T "$seconds" -f Benchmarks/pgbench-upsert.sql "$ENGINE_TEST_POSTGRES_URL" 2>/dev/null | awk '
  /^number of transactions actually processed/ { split($0, parts, ": "); split(parts[2], n, "/"); writes = n[1] }
  /^number of failed transactions/ { failed = $5 }
  /^latency average/ { latency = $4 }
  /^tps/ { tps = int($3) }
  END { printf "| pgbench | closed loop, 16 clients | %s | %s | %s | %s | - | - |\n", writes, failed + 0, tps, latency }'
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

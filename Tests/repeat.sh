#!/bin/sh
# Runs the whole suite N times in a row on the build there is (build first), and prints one
# line per run: its number, pass or fail, the tests and the time. With --load, each run has
# both cores kept busy beside it (Tests/with-load.sh). Exits 1 when a run failed; the failing
# runs' logs are kept.
#
#   swift build --build-tests && Tests/repeat.sh 10
#   Tests/repeat.sh 10 --load
set -u
cd "$(dirname "$0")/.."
runs=${1:-10}
load=${2:-}
failed=0
for run in $(seq 1 "$runs"); do
  log=$(mktemp)
  start=$(date +%s)
  if [ "$load" = "--load" ]; then set -- Tests/with-load.sh swift test --skip-build; else set -- swift test --skip-build; fi
  if "$@" >"$log" 2>&1; then outcome=pass; else outcome=FAIL; failed=$((failed + 1)); fi
  seconds=$(( $(date +%s) - start ))
  summary=$(grep -E "Test run with" "$log" | tail -1 | sed 's/^[^A-Za-z]*//')
  echo "run $run${load:+ (under load)}: $outcome in ${seconds} s: $summary"
  if [ "$outcome" = pass ]; then rm -f "$log"; else grep -E "✘" "$log" | head -5; echo "  log: $log"; fi
done
[ "$failed" -eq 0 ]

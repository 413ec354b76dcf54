#!/bin/sh
# Runs the whole suite N times in a row on the build there is (build first), and prints one
# line per run: its number, pass or fail, the tests and the time. With --load, two busy loops
# keep both cores busy the whole time (`stress --cpu 2` when it is installed). Stops the loops
# however it ends. Exits 1 when a run failed; the failing runs' logs are kept.
#
#   swift build --build-tests && Tests/repeat.sh 10
#   Tests/repeat.sh 10 --load
set -u
cd "$(dirname "$0")/.."
runs=${1:-10}
load=${2:-}
pids=""
stop_load() { [ -n "$pids" ] && kill $pids 2>/dev/null; pids=""; }
trap stop_load EXIT INT TERM
if [ "$load" = "--load" ]; then
  if command -v stress >/dev/null 2>&1; then
    stress --cpu 2 >/dev/null 2>&1 & pids="$!"
  else
    for _ in 1 2; do python3 -c 'while True: pass' & pids="$pids $!"; done
  fi
fi
failed=0
for run in $(seq 1 "$runs"); do
  log=$(mktemp)
  start=$(date +%s)
  if swift test --skip-build >"$log" 2>&1; then outcome=pass; else outcome=FAIL; failed=$((failed + 1)); fi
  seconds=$(( $(date +%s) - start ))
  summary=$(grep -E "Test run with" "$log" | tail -1 | sed 's/^[^A-Za-z]*//')
  echo "run $run${load:+ (under load)}: $outcome in ${seconds} s: $summary"
  if [ "$outcome" = pass ]; then rm -f "$log"; else grep -E "✘" "$log" | head -5; echo "  log: $log"; fi
done
stop_load
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# Fails unless the libFuzzer targets are built with coverage instrumentation: every target's
# binary must hold the coverage counters (`__sancov_cntrs`), and a short run of each must report
# coverage (`cov:`). run.sh runs it before fuzzing: its figures are worthless without it.
# Usage: Tests/Fuzz/check-instrumented.sh   (Linux; builds as run.sh does)
set -euo pipefail
cd "$(dirname "$0")"
flags=($(./flags.sh))
swift build "${flags[@]}" >&2
bin=$(swift build "${flags[@]}" --show-bin-path)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for target in fuzz-plist fuzz-json fuzz-spec fuzz-config fuzz-plugin-schema fuzz-merge fuzz-wire fuzz-headers; do
  counters=$(readelf -S "$bin/$target" | grep -c "__sancov_cntrs" || true)
  mkdir -p "$work/$target"
  printf 'seed' > "$work/$target/seed"
  output=$(SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$bin/$target" "$work/$target" -runs=3000 -detect_leaks=0 2>&1 || true)
  first=$(printf '%s\n' "$output" | grep -oE 'cov: [0-9]+' | head -1 | grep -oE '[0-9]+' || echo 0)
  last=$(printf '%s\n' "$output" | grep -oE 'cov: [0-9]+' | tail -1 | grep -oE '[0-9]+' || echo 0)
  echo "$target: coverage counters $( [ "$counters" -gt 0 ] && echo present || echo MISSING ), cov $first → $last in 3,000 runs"
  if [ "$counters" -eq 0 ] || [ "$last" -eq 0 ]; then
    echo "$target is built without coverage instrumentation: libFuzzer would run blind (see Tests/Fuzz/flags.sh)" >&2
    status=1
  fi
done
exit $status

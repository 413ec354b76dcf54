#!/bin/sh
# ThreadSanitizer over the concurrency-heavy suites: the sync coordinator and rounds, the
# server, the façade and the store, the loaders. A build of its own (.build-tsan), so that the
# normal build stays as it is; about as long as a first build. Any report of a data race fails.
#
#   Tests/sanitize.sh                 # the default suites
#   Tests/sanitize.sh --filter Sync   # others
#   Tests/sanitize.sh --build-only    # the build alone (CI makes it beside the default tests)
set -eu
cd "$(dirname "$0")/.."
filter='SyncCoordinator|SyncRound|SyncServer|SyncBackends|Facade|TimelineEngineTests|TimelineStoreTests|CacheFirstLoader|ReachTests|FetchBoundsTests'
if [ "${1:-}" = "--filter" ]; then filter=$2; fi
mkdir -p .build-tsan
if [ "${1:-}" = "--build-only" ]; then
  swift build --build-tests --traits SyncServer --sanitize=thread --scratch-path .build-tsan >.build-tsan/build.log 2>&1 || {
    tail -40 .build-tsan/build.log >&2
    exit 1
  }
  exit 0
fi
log=.build-tsan/sanitize.log
status=0
# Loopback requests and test deadlines get ten times longer (Tests/TestSupport/Deadline.swift):
# instrumented code runs several times slower, more so with the PostgreSQL tests beside it.
ENGINE_TEST_DEADLINE_SCALE=${ENGINE_TEST_DEADLINE_SCALE:-10} \
TSAN_OPTIONS="halt_on_error=0 ${TSAN_OPTIONS:-}" swift test --traits SyncServer --sanitize=thread --scratch-path .build-tsan --filter "$filter" >"$log" 2>&1 || status=$?
grep -E "Test run with|WARNING: ThreadSanitizer|SUMMARY: ThreadSanitizer|error:" "$log" | sort | uniq -c || true
if grep -q "WARNING: ThreadSanitizer" "$log"; then
  echo "ThreadSanitizer reported races; the full log is $log" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then echo "swift test failed (exit $status); the full log is $log" >&2; fi
exit $status

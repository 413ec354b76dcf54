#!/bin/sh
# Runs a command with both cores kept busy the whole time, as on a developer's laptop during a
# build: two busy loops (`stress --cpu 2` when it is installed) beside it, stopped however the
# command ends, and after an hour at most. Exits with the command's status.
#
#   Tests/with-load.sh swift test
set -u
[ $# -gt 0 ] || { echo "usage: Tests/with-load.sh COMMAND [ARGUMENT...]" >&2; exit 2; }
pids=""
stop_load() { [ -n "$pids" ] && kill $pids 2>/dev/null; pids=""; }
trap stop_load EXIT INT TERM
if command -v stress >/dev/null 2>&1; then
  stress --cpu 2 --timeout 3600 >/dev/null 2>&1 & pids="$!"
else
  for _ in 1 2; do timeout 3600 python3 -c 'while True: pass' & pids="$pids $!"; done
fi
"$@"
status=$?
stop_load
exit $status

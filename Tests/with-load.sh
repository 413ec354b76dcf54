#!/bin/sh
# Runs a command with both cores kept busy the whole time, as on a developer's laptop during a
# build. The load is another command given with `--beside` (CI makes the SyncServer trait's build
# beside the tests, work it has to do anyway), then two busy loops (`stress --cpu 2` when it is
# installed) once that command has ended, or from the start without `--beside`; the loops stop
# however the command ends, and after an hour at most. Exits with the command's status, or with
# the `--beside` command's when only that one failed (after waiting for it).
#
#   Tests/with-load.sh swift test
#   Tests/with-load.sh --beside "swift build --build-tests --traits SyncServer --scratch-path .build-server" swift test
set -u
beside=""
if [ "${1:-}" = "--beside" ]; then beside=$2; shift 2; fi
[ $# -gt 0 ] || { echo "usage: Tests/with-load.sh [--beside COMMAND] COMMAND [ARGUMENT...]" >&2; exit 2; }
status_file=$(mktemp)
loops() {
  if command -v stress >/dev/null 2>&1; then
    exec stress --cpu 2 --timeout 3600 >/dev/null 2>&1
  else
    for _ in 1 2; do timeout 3600 python3 -c 'while True: pass' & done
    wait
  fi
}
# The load: the command beside (its status kept), then the loops, in one process group so that
# one kill stops what is running of it.
(
  if [ -n "$beside" ]; then
    sh -c "$beside"
    echo $? >"$status_file"
  fi
  loops
) &
load=$!
stop_load() {
  # The loops are the load's children once the command beside has ended; stop them and the
  # subshell, and never a build still running (its status is awaited below).
  if [ -z "$beside" ] || [ -s "$status_file" ]; then
    pkill -P "$load" 2>/dev/null
    kill "$load" 2>/dev/null
  fi
}
trap 'stop_load; rm -f "$status_file"' EXIT
trap 'stop_load; exit 130' INT TERM
"$@"
status=$?
if [ -n "$beside" ]; then
  # The command beside must finish, and pass, whichever ends first.
  while [ ! -s "$status_file" ]; do sleep 1; done
  beside_status=$(cat "$status_file")
  if [ "$status" -eq 0 ] && [ "$beside_status" -ne 0 ]; then
    echo "the command beside the tests failed (exit $beside_status): $beside" >&2
    status=$beside_status
  fi
fi
stop_load
exit $status

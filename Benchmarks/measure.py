#!/usr/bin/env python3
"""A plain benchmark harness: runs each command several times and prints the median wall time
and the peak resident memory of the child process (ru_maxrss), as a Markdown table.

Usage: measure.py RUNS LABEL=COMMAND [LABEL=COMMAND ...]"""
import os
import shlex
import statistics
import subprocess
import sys
import time

runs = int(sys.argv[1])
rows = []
for spec in sys.argv[2:]:
    label, command = spec.split("=", 1)
    times, peaks = [], []
    for _ in range(runs):
        start = time.perf_counter()
        process = subprocess.Popen(shlex.split(command), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        times.append(time.perf_counter() - start)
        peaks.append(usage.ru_maxrss / 1024)  # KiB -> MiB
        if os.waitstatus_to_exitcode(status) != 0:
            print(f"{label}: exit status {os.waitstatus_to_exitcode(status)}", file=sys.stderr)
    rows.append((label, statistics.median(times), min(times), max(peaks)))

print("| command | median | best | peak memory |")
print("|---|---|---|---|")
for label, median, best, peak in rows:
    print(f"| {label} | {median * 1000:.1f} ms | {best * 1000:.1f} ms | {peak:.1f} MiB |")

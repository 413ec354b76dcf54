#!/usr/bin/env python3
"""Benchmarks for recorded sessions, as Markdown tables: ingest throughput against CPython's
json on the same files, compare throughput, the speed-up of --jobs 2, and peak memory as the
number of sessions grows tenfold.

Usage: sessions-bench.py RUNS ENGINE INGEST CONFIG SMALL_DIR LARGE_DIR"""
import glob
import os
import re
import shlex
import statistics
import subprocess
import sys
import time

runs, engine, ingest, config, small, large = int(sys.argv[1]), *sys.argv[2:7]


def measure(command):
    """Median wall time, best wall time and peak RSS (MiB) of a command over the runs; its output."""
    times, peaks, output = [], [], ""
    for _ in range(runs):
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        output = process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)
        times.append(time.perf_counter() - start)
        peaks.append(usage.ru_maxrss / 1024)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"{shlex.join(command)}: exit status {os.waitstatus_to_exitcode(status)}")
    return statistics.median(times), min(times), max(peaks), output


files = sorted(glob.glob(os.path.join(large, "*.jsonl")))
size = sum(os.path.getsize(f) for f in files)
python = [sys.executable, "-c", "import json,sys\nfor f in sys.argv[1:]:\n    for line in open(f,'rb'): json.loads(line)", *files]

print(f"## Session ingest: {len(files)} sessions, {size / 1e6:.1f} MB ({runs} runs)")
print("| reader | median | MB/s | peak memory |")
print("|---|---|---|---|")
medians = []
for label, command in [("SessionReader (every event decoded)", [ingest, large]), ("CPython json.loads per line", python)]:
    median, best, peak, _ = measure(command)
    medians.append(median)
    print(f"| {label} | {median * 1000:.0f} ms | {size / 1e6 / median:.0f} | {peak:.1f} MiB |")
print(f"\nSessionReader vs CPython: {medians[1] / medians[0]:.2f}× faster")

default = "ExactMatch > ContentSimilarity(Threshold: 0.8) > NeighborAnchor > TemporalProximity > ContentSimilarity > Fallback"
print(f"\n## engine compare, default pipeline only ({runs} runs)")
print("| sessions | jobs | median | restore points | restore points/s | peak memory |")
print("|---|---|---|---|---|---|")
results = {}
for directory in [small, large]:
    for jobs in [1, 2]:
        command = [engine, "compare", "--config", config, "--sessions", directory, "--strategy", default, "--jobs", str(jobs),
                   "--format", "json", "--no-progress"]
        median, best, peak, output = measure(command)
        points = int(re.search(r'"restorePoints"\s*:\s*(\d+)', output).group(1))
        count = len(glob.glob(os.path.join(directory, "*.jsonl")))
        results[(directory, jobs)] = (median, peak)
        print(f"| {count} | {jobs} | {median * 1000:.0f} ms | {points} | {points / median:,.0f} | {peak:.1f} MiB |")
speedup = results[(large, 1)][0] / results[(large, 2)][0]
growth = results[(large, 1)][1] / results[(small, 1)][1]
print(f"\n--jobs 2 speed-up on {len(files)} sessions: {speedup:.2f}×; peak memory at 10× the sessions: {growth:.2f}× (jobs 1)")

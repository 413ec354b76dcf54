#!/usr/bin/env python3
"""Paired start-up timing: runs two or more commands in turn, RUNS rounds, so that a slow moment
of the machine falls on all of them alike, and prints each command's median and best wall time
and its median ratio to the last command (the peer), as a Markdown table.

Usage: paired.py RUNS LABEL=COMMAND [LABEL=COMMAND ...]   (the last one is the peer)"""
import shlex
import statistics
import subprocess
import sys
import time

runs = int(sys.argv[1])
specs = [spec.split("=", 1) for spec in sys.argv[2:]]
times = {label: [] for label, _ in specs}
for _ in range(runs):
    for label, command in specs:
        start = time.perf_counter()
        status = subprocess.run(shlex.split(command), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        times[label].append(time.perf_counter() - start)
        if status != 0:
            print(f"{label}: exit status {status}", file=sys.stderr)
peer = specs[-1][0]
print(f"| command | median | best | median ratio to {peer} |")
print("|---|---|---|---|")
for label, _ in specs:
    ratios = [mine / theirs for mine, theirs in zip(times[label], times[peer])]
    print(f"| {label} | {statistics.median(times[label]) * 1000:.1f} ms | {min(times[label]) * 1000:.1f} ms | {statistics.median(ratios):.2f}× |")

#!/usr/bin/env python3
"""Paired start-up timing: runs two or more commands in turn, RUNS rounds, so that a slow moment
of the machine falls on all of them alike (in a new order each round), and prints each command's median and best wall time
and its median ratio to the last command (the peer), as a Markdown table.

Usage: paired.py RUNS LABEL=COMMAND [LABEL=COMMAND ...]   (the last one is the peer)"""
import random
import shlex
import statistics
import subprocess
import sys
import time

runs = int(sys.argv[1])
specs = [spec.split("=", 1) for spec in sys.argv[2:]]
times = {label: [] for label, _ in specs}
order = random.Random(0)
for _ in range(runs):
    # A new order each round, so that no command always runs first (the first of a round
    # measured slower than the same binary later in it).
    for label, command in order.sample(specs, len(specs)):
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

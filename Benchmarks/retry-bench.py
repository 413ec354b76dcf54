#!/usr/bin/env python3
"""The network policies against injected failures: request counts and timings.

Starts Tests/Fixtures/api/serve.py once per case, on a free loopback port, with the case's
failures before the recorded Mastodon answer, runs `engine timeline fetch --format json` under
each policy, and prints a Markdown table: requests made, when each started, the status, and
the command's wall time. RequestTimeout is 2 s in every run.

Usage: python3 Benchmarks/retry-bench.py ENGINE
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

engine = sys.argv[1]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
serve = os.path.join(root, "Tests", "Fixtures", "api", "serve.py")
policies = {
    "NoRetry": {"Strategy": "NoRetry"},
    "ExponentialBackoff(4, 0.5 s)": {"Strategy": "ExponentialBackoff", "MaxAttempts": 4, "BaseDelay": 0.5, "MaxDelay": 30},
}
cases = [
    ("503, 503, then the answer", "503,503"),
    ("429 with Retry-After: 2, then the answer", "429:2"),
    ("no answer for 5 s (a timeout), then the answer", "hang:5"),
    ("a body cut off after 1,000 bytes, then the answer", "truncate"),
    ("a 200 that is not JSON", "garbage,garbage,garbage,garbage"),
    ("a 200 login page (text/html)", "html,html,html,html"),
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


print("| failure injected | policy | requests | attempts started at | status | wall time |")
print("|---|---|---|---|---|---|")
with tempfile.TemporaryDirectory() as work:
    for title, failures in cases:
        for name, policy in policies.items():
            config = os.path.join(work, "config.json")
            with open(config, "w") as out:
                json.dump({"Network": {"Policy": policy, "RequestTimeout": 2}}, out)
            port = free_port()
            server = subprocess.Popen([sys.executable, serve, "--port", str(port), "--failures", failures],
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            server.stdout.readline()  # "serving on …"
            store = os.path.join(work, f"{port}.sqlite")
            start = time.perf_counter()
            result = subprocess.run([engine, "timeline", "fetch", "--format", "json", "--config", config, "--store", store,
                                     "--source", f"http://127.0.0.1:{port}/api/v1/timelines/home?limit=40"],
                                    capture_output=True, text=True)
            elapsed = time.perf_counter() - start
            server.kill()
            server.wait()
            report = json.loads(result.stdout)
            starts = ", ".join(f"{a['startedAt']:.2f}" for a in report["attempts"])
            print(f"| {title} | {name} | {len(report['attempts'])} | {starts} s | {report['status']} | {elapsed:.2f} s |")

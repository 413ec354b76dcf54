#!/usr/bin/env python3
"""Live sync latency: two `engine sync watch` processes, one device each, over `engine serve` on
127.0.0.1 or over a shared folder. Each of SAVES saves runs `engine position save` on the first
device's store; the time from starting that save to the second watcher printing the position is
its latency. Saves are made one after the other, each waiting at most 10 s (a longer one counts
as lost). Everything stops by itself.

Usage: Benchmarks/sync-latency.py ENGINE http|directory [SAVES]
"""
import json, os, re, subprocess, sys, tempfile, threading, time

engine, mode = os.path.abspath(sys.argv[1]), sys.argv[2]
saves = int(sys.argv[3]) if len(sys.argv) > 3 else 200
work = tempfile.mkdtemp(prefix="sync-latency-")
env = dict(os.environ)
processes = []


def start(arguments, **kwargs):
    process = subprocess.Popen([engine] + arguments, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)
    processes.append(process)
    return process


def wait_for(stream, pattern, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        line = stream.readline()
        if not line:
            break
        match = re.search(pattern, line)
        if match:
            return match
    raise SystemExit(f"gave up waiting for {pattern!r}")


try:
    if mode == "http":
        token = subprocess.run([engine, "serve", "token", "create", "--store", "server.sqlite", "--user", "bench"], cwd=work, check=True,
                               capture_output=True, text=True).stdout.strip().splitlines()[-1]
        env["ENGINE_SYNC_TOKEN"] = token
        server = start(["serve", "--store", "server.sqlite", "--listen", "127.0.0.1:0"])
        port = wait_for(server.stderr, r"listening url=http://127\.0\.0\.1:(\d+)").group(1)
        transport = {"Strategy": "HTTP", "URL": f"http://127.0.0.1:{port}"}
    else:
        os.mkdir(os.path.join(work, "shared"))
        transport = {"Strategy": "Directory", "Path": "shared"}
    with open(os.path.join(work, "sync.json"), "w") as file:
        json.dump({"PositionPersistence": {"CrossSessionSync": True}, "Sync": {"Transport": transport, "DebounceInterval": 0}}, file)
    watchers = {}
    for device in ["phone", "laptop"]:
        watcher = start(["sync", "watch", "--store", f"{device}.sqlite", "--config", "sync.json", "--device", device, "--format", "json"])
        wait_for(watcher.stderr, "watching")
        watchers[device] = watcher
    arrivals = {}
    condition = threading.Condition()

    def read(stream):
        for line in stream:
            try:
                post = json.loads(line)["postId"]
            except (ValueError, KeyError):
                continue
            with condition:
                arrivals.setdefault(post, time.time())
                condition.notify_all()

    threading.Thread(target=read, args=(watchers["laptop"].stdout,), daemon=True).start()
    latencies, lost = [], 0
    for number in range(saves):
        post = f"p{number}"
        started = time.time()
        subprocess.run([engine, "position", "save", "--store", "phone.sqlite", "--config", "sync.json", "--device", "phone", "--post", post,
                        "--created-at", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1_790_000_000 + number))],
                       cwd=work, env=env, check=True, capture_output=True)
        with condition:
            condition.wait_for(lambda: post in arrivals, timeout=10)
            if post in arrivals:
                latencies.append((arrivals[post] - started) * 1000)
            else:
                lost += 1
    latencies.sort()

    def quantile(q):
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] if latencies else float("nan")

    print(f"| {mode} | {saves} | {quantile(0.5):.0f} ms | {quantile(0.9):.0f} ms | {quantile(0.99):.0f} ms | {latencies[-1] if latencies else float('nan'):.0f} ms | {lost} |")
finally:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    subprocess.run(["rm", "-rf", work])

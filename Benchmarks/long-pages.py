#!/usr/bin/env python3
"""A reach through pages far longer than asked: the figure behind docs/RELIABILITY.md's H2.

Serves PAGES Bluesky pages of SIZE posts each on a free loopback port, whatever `limit` the
request asks (as a careless or hostile server answers), saves a position on a post deep in the
last page, and runs `engine timeline fetch` with the default configuration under
`/usr/bin/time`, RUNS times: wall time, peak memory, and where the reader landed. The peer, in the
same run, is `curl` fetching the same pages one after the other into /dev/null: the time the
transfer alone takes.

Usage: python3 Benchmarks/long-pages.py ENGINE [PAGES [SIZE [RUNS]]]   (default 40 20000 3)
"""
import datetime
import http.server
import json
import os
import socket
import socketserver
import statistics
import subprocess
import sys
import tempfile
import threading
import urllib.parse

engine = sys.argv[1]
pages_count = int(sys.argv[2]) if len(sys.argv) > 2 else 40
size = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
base = datetime.datetime(2026, 8, 1, 12, 0, 0)


def uri(n):
    return "at://did:plc:abc/app.bsky.feed.post/%013x" % (0x16367B612D166 - n)


def stamp(n):
    return (base - datetime.timedelta(seconds=n)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


pages = []
for p in range(pages_count):
    feed = [{"post": {"uri": uri(n), "cid": "bafy%d" % n, "author": {"did": "did:plc:abc", "handle": "a.bsky.social"},
                      "record": {"$type": "app.bsky.feed.post", "text": "post %d" % n, "createdAt": stamp(n)}, "indexedAt": stamp(n)}}
            for n in range(p * size, (p + 1) * size)]
    document = {"feed": feed}
    if p + 1 < pages_count:
        document["cursor"] = str(p + 1)
    pages.append(json.dumps(document).encode())


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
        cursor = int(query.get("cursor", ["0"])[0])
        body = pages[cursor] if cursor < len(pages) else b'{"feed":[]}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *arguments):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


server = Server(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
url = "http://127.0.0.1:%d/xrpc/app.bsky.feed.getTimeline" % server.server_address[1]
target = (pages_count - 1) * size + size * 5 // 8


def timed(command):
    result = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + command, capture_output=True, text=True)
    seconds, kilobytes = result.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kilobytes) / 1024, result.stdout


engine_rows, curl_rows = [], []
landing = ""
with tempfile.TemporaryDirectory() as work:
    for run in range(runs):
        store = os.path.join(work, "run%d.sqlite" % run)
        subprocess.run([engine, "position", "save", "--store", store, "--post", uri(target), "--created-at", stamp(target)],
                       check=True, capture_output=True)
        seconds, mib, output = timed([engine, "timeline", "fetch", "--store", store, "--source", url + "?limit=50"])
        engine_rows.append((seconds, mib))
        landing = next((line for line in output.splitlines() if line.startswith("position:")), "no position")
        script = "for c in $(seq 0 %d); do curl -s -o /dev/null '%s?limit=100&cursor='$c; done" % (pages_count - 1, url)
        seconds, mib, _ = timed(["sh", "-c", script])
        curl_rows.append((seconds, mib))

print("## A reach through %d Bluesky pages of %d posts (%.1f MB each, %d runs)" % (pages_count, size, len(pages[0]) / 1e6, runs))
print("| command | median | best | peak memory |")
print("|---|---|---|---|")
for name, rows in (("engine timeline fetch (reach to a post in the last page)", engine_rows), ("curl, the same pages one by one", curl_rows)):
    print("| %s | %.2f s | %.2f s | %.0f MiB |" % (name, statistics.median(r[0] for r in rows), min(r[0] for r in rows), max(r[1] for r in rows)))
print()
print("Landed: `%s`" % landing)

#!/usr/bin/env python3
"""A stand-in Mastodon and Bluesky server for trying `engine timeline fetch` without an account.

Serves the recorded answers in this folder on 127.0.0.1:
  GET /api/v1/timelines/home            mastodon-home.json, then mastodon-home-refreshed.json
  GET /xrpc/app.bsky.feed.getTimeline   bluesky-timeline.json, then bluesky-timeline-refreshed.json
and can answer the first requests with failures, in order, before the recorded answers:
  --failures LIST   a comma-separated list of
                      503         an HTTP 503 with a JSON error
                      429:S       an HTTP 429 with Retry-After: S
                      hang:S      no answer for S seconds, then the recorded answer
                      truncate    the recorded answer cut off after 1,000 bytes
                      garbage     a 200 whose body is not JSON
                      html        a 200 login page (Content-Type text/html)

Usage: python3 serve.py [--port 8080] [--failures 503,503]
"""
import argparse
import http.server
import os
import threading
import time

here = os.path.dirname(os.path.abspath(__file__))
routes = {
    "/api/v1/timelines/home": ["mastodon-home.json", "mastodon-home-refreshed.json"],
    "/xrpc/app.bsky.feed.getTimeline": ["bluesky-timeline.json", "bluesky-timeline-refreshed.json"],
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--failures", default="")
    options = parser.parse_args()
    lock = threading.Lock()
    state = {"failures": [f for f in options.failures.split(",") if f], "served": {}}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            path = self.path.split("?", 1)[0]
            with lock:
                failure = state["failures"].pop(0) if state["failures"] else None
                if path not in routes:
                    return self.answer(404, b'{"error":"Record not found"}')
                if failure is None or failure.startswith("hang") or failure == "truncate":
                    count = state["served"].get(path, 0)
                    state["served"][path] = count + 1
            kind, _, argument = (failure or "").partition(":")
            if kind == "503":
                return self.answer(503, b'{"error":"Service unavailable"}')
            if kind == "429":
                return self.answer(429, b'{"error":"Too many requests"}', [("Retry-After", argument or "1")])
            if kind == "garbage":
                return self.answer(200, b'<?xml version="1.0"?><error/>')
            if kind == "html":
                return self.answer(200, b"<html><body>Log in</body></html>", content_type="text/html")
            if kind == "hang":
                time.sleep(float(argument or "30"))
            name = routes[path][min(count, len(routes[path]) - 1)]
            with open(os.path.join(here, name), "rb") as file:
                body = file.read()
            self.answer(200, body, cut=1000 if kind == "truncate" else None)

        def answer(self, status, body, headers=(), content_type="application/json; charset=utf-8", cut=None):
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body if cut is None else body[:cut])
                if cut is not None:
                    self.close_connection = True
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (its timeout)

        def log_message(self, format, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", options.port), Handler)
    print(f"serving on http://127.0.0.1:{options.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()

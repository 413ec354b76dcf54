#!/usr/bin/env python3
"""A stand-in Mastodon and Bluesky server for trying `engine timeline fetch` without an account.

Serves the recorded answers in this folder on 127.0.0.1:
  GET /api/v1/timelines/home            mastodon-home.json, then mastodon-home-refreshed.json
  GET /xrpc/app.bsky.feed.getTimeline   bluesky-timeline.json, then bluesky-timeline-refreshed.json
and can inject failures before answering:
  --fail N          answer 503 to the first N requests
  --rate-limit S    answer the first request 429 with Retry-After: S

Usage: python3 serve.py [--port 8080] [--fail N] [--rate-limit S]
"""
import argparse
import http.server
import os
import threading

here = os.path.dirname(os.path.abspath(__file__))
routes = {
    "/api/v1/timelines/home": ["mastodon-home.json", "mastodon-home-refreshed.json"],
    "/xrpc/app.bsky.feed.getTimeline": ["bluesky-timeline.json", "bluesky-timeline-refreshed.json"],
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--fail", type=int, default=0)
    parser.add_argument("--rate-limit", type=int, default=None)
    options = parser.parse_args()
    lock = threading.Lock()
    state = {"failures": options.fail, "limited": options.rate_limit is not None, "served": {}}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            path = self.path.split("?", 1)[0]
            with lock:
                if state["limited"]:
                    state["limited"] = False
                    return self.answer(429, b'{"error":"Too many requests"}', [("Retry-After", str(options.rate_limit))])
                if state["failures"] > 0:
                    state["failures"] -= 1
                    return self.answer(503, b'{"error":"Service unavailable"}')
                if path not in routes:
                    return self.answer(404, b'{"error":"Record not found"}')
                count = state["served"].get(path, 0)
                state["served"][path] = count + 1
            name = routes[path][min(count, len(routes[path]) - 1)]
            with open(os.path.join(here, name), "rb") as file:
                self.answer(200, file.read())

        def answer(self, status, body, headers=()):
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", options.port), Handler)
    print(f"serving on http://127.0.0.1:{options.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()

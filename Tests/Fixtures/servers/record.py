#!/usr/bin/env python3
"""Records the exchanges an app's reading flows make with a Mastodon-API server, in the format of
Tests/Fixtures/servers/README.md, for the recorded-server tests to replay:

    python3 Tests/Fixtures/servers/record.py --base https://server.example --token TOKEN \
        [--author-token TOKEN] --out FILE.json

TOKEN is the reading account's access token (read, write for the markers); with --author-token,
a token of an account the reader follows, one of whose posts in the second page is deleted to
record the flows around a deleted post. Tokens are sent, never written. The flows, in order:

- the instance (`/api/v1/instance`, for its software and version), `verify_credentials`;
- the home timeline's head page (40), twice: a refresh of an unchanged page;
- three pages down, each asked with `max_id` of the previous page's last post;
- the page just above the second page (`min_id` of its first post), and one asked with
  `since_id` of the head page's eleventh post;
- `statuses/:id` of the first post that is not a boost, of the first boost's own id and of the
  status it boosts, and of an id that never existed (`0`);
- the first boost of the third page looked up, the page just above it (`min_id`), and the page
  just below the post that one ends with (how a reach finds a post whose lookup says nothing);
- the home marker read, moved to the second page's sixth post, read again;
- with --author-token: one of that account's posts in the second page deleted, then the second
  page, the page below the post above it, the deleted post's `statuses/:id` again, and the two
  pages around it as for the boost.

Standard library only.
"""
import argparse
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

KEPT_HEADERS = {"content-type", "link", "date", "retry-after"}


class Recorder:
    def __init__(self, base, token):
        self.base = base.rstrip("/")
        self.token = token
        self.exchanges = []

    def call(self, method, path, token=None, body=None):
        url = path if path.startswith("http") else self.base + path
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Authorization": f"Bearer {token or self.token}", "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, answer_headers, raw = response.status, list(response.headers.items()), response.read()
        except urllib.error.HTTPError as error:
            status, answer_headers, raw = error.code, list(error.headers.items()), error.read()
        text = raw.decode("utf-8", errors="replace")
        kept = [[name.lower(), value] for name, value in answer_headers
                if name.lower() in KEPT_HEADERS or name.lower().startswith(("x-ratelimit", "ratelimit"))]
        self.exchanges.append({"request": {"method": method, "url": url, "body": data.decode() if data else None},
                               "response": {"status": status, "headers": kept, "body": text}})
        print(f"{method} {url} {status}", file=sys.stderr)
        try:
            return status, json.loads(text)
        except ValueError:
            return status, None


def around(r, home, post):
    """The page just above `post`, then the page just below the post that page ends with."""
    _, above = r.call("GET", f"{home}?limit=40&min_id={post}")
    if above:
        r.call("GET", f"{home}?limit=40&max_id={above[-1]['id']}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--author-token")
    parser.add_argument("--out", required=True)
    arguments = parser.parse_args()
    r = Recorder(arguments.base, arguments.token)
    home = "/api/v1/timelines/home"

    _, instance = r.call("GET", "/api/v1/instance")
    r.call("GET", "/api/v1/accounts/verify_credentials")
    _, head = r.call("GET", f"{home}?limit=40")
    r.call("GET", f"{home}?limit=40")
    pages = [head]
    for _ in range(3):
        if not pages[-1]:
            break
        _, page = r.call("GET", f"{home}?limit=40&max_id={pages[-1][-1]['id']}")
        pages.append(page or [])
    if len(pages) > 1 and pages[1]:
        r.call("GET", f"{home}?limit=40&min_id={pages[1][0]['id']}")
    if len(head) > 10:
        r.call("GET", f"{home}?limit=40&since_id={head[10]['id']}")
    everything = [status for page in pages for status in page]
    plain = next((s for s in everything if not s.get("reblog")), None)
    boost = next((s for s in everything if s.get("reblog")), None)
    for status in [plain, boost, boost and boost["reblog"]]:
        if status:
            r.call("GET", f"/api/v1/statuses/{status['id']}")
    r.call("GET", "/api/v1/statuses/0")
    third = pages[2] if len(pages) > 2 else []
    boosted = next((s for s in third if s.get("reblog")), None)
    if boosted:
        r.call("GET", f"/api/v1/statuses/{boosted['id']}")
        around(r, home, boosted["id"])
    r.call("GET", "/api/v1/markers?timeline[]=home")
    if len(pages) > 1 and len(pages[1]) > 5:
        r.call("POST", "/api/v1/markers", body={"home": {"last_read_id": pages[1][5]["id"]}})
        r.call("GET", "/api/v1/markers?timeline[]=home")

    if arguments.author_token and len(pages) > 1:
        _, author = r.call("GET", "/api/v1/accounts/verify_credentials", token=arguments.author_token)
        second = pages[1]
        victim = next((i for i, s in enumerate(second) if i > 0 and not s.get("reblog") and s["account"]["id"] == author["id"]), None)
        if victim is not None:
            deleted = second[victim]["id"]
            r.call("DELETE", f"/api/v1/statuses/{deleted}", token=arguments.author_token)
            time.sleep(5)
            r.call("GET", f"{home}?limit=40&max_id={head[-1]['id']}")
            r.call("GET", f"{home}?limit=40&max_id={second[victim - 1]['id']}")
            r.call("GET", f"/api/v1/statuses/{deleted}")
            around(r, home, deleted)

    software = (instance or {}).get("version", "unknown")
    with open(arguments.out, "w", encoding="utf-8") as handle:
        json.dump({"recordedFrom": f"{arguments.base} ({software}), {time.strftime('%Y-%m-%d', time.gmtime())}, by record.py",
                   "exchanges": r.exchanges}, handle, ensure_ascii=False, indent=1)
        handle.write("\n")
    print(f"wrote {len(r.exchanges)} exchanges to {arguments.out}", file=sys.stderr)


if __name__ == "__main__":
    main()

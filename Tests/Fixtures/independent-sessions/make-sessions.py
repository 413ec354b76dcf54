#!/usr/bin/env python3
"""Writes recorded sessions (format version 3) with a reading model that is not the engine's.

The engine's simulator (`engine simulate --devices --caches`) draws reading from published eye-
tracking figures and writes sessions from `tweets-rtweet.jsonl`. To check that the reach
figures do not depend on that model or those posts, this script builds sessions its own way,
with nothing taken from the engine's code:

- posts: `../posts/tweets-trump-3000.jsonl` (another corpus, one author), heights from a text
  length formula of its own (64 pt plus 19 pt per 40 characters);
- a phone reads down the shared timeline post by post, dwelling an exponential time per post
  (mean 3.5 s), 15 to 70 posts per visit, and scrolls so that a post's top meets the viewport's
  top, stepping back one to three posts one time in eight; it loads 30 older posts when it
  nears the end;
- between visits 0.5 to 30 hours pass at 30 new posts an hour; the laptop, which fetched a head
  page of 40 when the session began, opens, hears the phone, fetches its head page and
  restores; the truth is the post at the top of the phone's viewport at its last scroll; one
  switch in six first deletes that post, and the truth is the next post below;
- the server pages as Mastodon (`--api mastodon`) or Bluesky.

    python3 make-sessions.py --sessions 6 --seed 11 --api mastodon -o .
"""
import argparse
import json
import math
import pathlib
import random
from datetime import datetime, timedelta, timezone

HERE = pathlib.Path(__file__).resolve().parent
VIEWPORT = {"width": 390, "height": 844}


def height(post):
    return 64 + 19 * math.ceil(max(1, len(post.get("text") or "")) / 40)


def stamp(time):
    return time.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def post_value(post):
    return {"id": post["id"], "createdAt": post["createdAt"], "author": post["author"], "text": post["text"], "height": height(post)}


def session(number, seed, api, corpus):
    rng = random.Random(seed * 1_000_003 + number)
    lines = []
    start = rng.randint(1500, len(corpus) - 400)
    timeline = corpus[start:start + 60]
    newer, older = start, start + 60
    top_time = datetime.fromisoformat(timeline[0]["createdAt"].replace("Z", "+00:00"))
    now = top_time + timedelta(minutes=rng.uniform(5, 60))

    def emit(kind, device=None, **fields):
        line = {"type": kind, "at": stamp(now)}
        if device:
            line["device"] = device
        line.update(fields)
        lines.append(line)

    lines.append({"type": "session", "version": 3, "id": f"independent-{api}-{seed}-{number}", "device": "phone",
                  "account": f"independent-{number}", "timeline": "home", "feed": "chronological", "viewport": VIEWPORT,
                  "startedAt": stamp(now), "api": api})
    emit("lifecycle", state="launch")
    emit("timeline", reason="initial", posts=[post_value(p) for p in timeline])
    now += timedelta(seconds=1)
    emit("lifecycle", "laptop", state="launch")
    emit("fetch", "laptop", limit=40)
    now += timedelta(seconds=5)
    emit("lifecycle", "laptop", state="background")
    position = 0  # the post at the top of the phone's viewport

    def offset_of(index):
        return sum(height(p) for p in timeline[:index])

    for _ in range(rng.randint(4, 7)):
        # A visit on the phone.
        now += timedelta(seconds=rng.uniform(2, 20))
        emit("lifecycle", state="foreground")
        for _ in range(rng.randint(15, 70)):
            now += timedelta(seconds=rng.expovariate(1 / 3.5))
            if rng.random() < 0.125 and position > 3:
                position -= rng.randint(1, 3)
            else:
                position += 1
            if position + 12 >= len(timeline) and older < len(corpus):
                page = corpus[older:older + 30]
                older += len(page)
                emit("insert", index=len(timeline), posts=[post_value(p) for p in page])
                timeline.extend(page)
            position = min(position, len(timeline) - 1)
            emit("scroll", offset=offset_of(position))
        now += timedelta(seconds=rng.uniform(1, 5))
        emit("lifecycle", state="background")
        truth = timeline[position]["id"]
        # Time passes; new posts arrive on top; sometimes the reader's post is deleted.
        away = rng.uniform(1_800, 108_000)
        now += timedelta(seconds=away / 2)
        deleted = rng.random() < 1 / 6 and position + 1 < len(timeline)
        if deleted:
            gone = timeline.pop(position)
            emit("remove", ids=[gone["id"]])
            truth = timeline[position]["id"]
        arriving = min(newer, int(away / 3600 * 30))
        if arriving:
            fresh = corpus[newer - arriving:newer]
            newer -= arriving
            emit("insert", index=0, posts=[post_value(p) for p in fresh])
            timeline[0:0] = fresh
            position += arriving
        now += timedelta(seconds=away / 2)
        # The laptop opens, hears the phone, fetches its head page, and restores.
        emit("lifecycle", "laptop", state="launch")
        now += timedelta(seconds=0.5)
        emit("sync", **{"from": "phone", "to": "laptop"})
        emit("fetch", "laptop", limit=40)
        now += timedelta(seconds=1)
        emit("restore", "laptop", tag="independent-deleted" if deleted else "independent-switch", expected={"postId": truth})
        now += timedelta(seconds=rng.uniform(10, 120))
        emit("lifecycle", "laptop", state="background")
        # Back on the phone, which keeps its place above the new posts.
        now += timedelta(seconds=rng.uniform(30, 600))
        emit("lifecycle", state="launch")
        emit("scroll", offset=offset_of(position))
    return "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=6)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--api", choices=["mastodon", "bluesky"], default="mastodon")
    parser.add_argument("-o", "--output", default=str(HERE))
    arguments = parser.parse_args()
    corpus = [json.loads(line) for line in (HERE.parent / "posts" / "tweets-trump-3000.jsonl").read_text().splitlines() if line]
    output = pathlib.Path(arguments.output)
    output.mkdir(parents=True, exist_ok=True)
    for number in range(1, arguments.sessions + 1):
        (output / f"{arguments.api}-{number:04d}.jsonl").write_text(session(number, arguments.seed, arguments.api, corpus))


if __name__ == "__main__":
    main()

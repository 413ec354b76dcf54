#!/usr/bin/env python3
"""Writes multi-device sessions (format version 2) of true divergences and of the switches
beside them, from the definitions in docs/SESSIONS.md, with a reading model of its own.

The engine's simulator (`engine simulate --devices --divergences`) writes its divergences with
the same idea of reading that the engine's merge rule has. This script is the examiner beside
it: nothing here is taken from the engine's code, only from the format and its definitions.

- Posts: `../posts/tweets-trump-3000.jsonl` (another corpus than the simulator's), heights
  64 pt plus 19 pt per 40 characters; 20 new posts an hour arrive on top between visits.
- Reading: the reader reads down post by post, a scroll putting the post's top at the
  viewport's top, dwelling an exponential time per post (mean 4 s); one step in seven they
  scroll back one to three posts and read down again; a visit reads 8 to 40 posts; near the
  end of the timeline the app loads 30 older posts.
- A device pushes what it holds when it goes to the background; the other device hears it when
  it is next opened (a `sync` event then: a pull). A push may be lost (the device went offline):
  then it goes out late, when the device is next opened.
- One session in five has a laptop whose clock is wrong (an hour fast, or 20 minutes slow).

Each episode ends in a restore point whose truth is the reader's last reading place, by the
definitions:

| tag | what happens |
|---|---|
| `switch` | the reader puts device A down (it pushes) and picks up B 1 to 40 minutes later |
| `return` | the reader puts a device down and picks the same one up again |
| `glance` | B is opened before it hears from A, shows its own old place; the reader glances at a post or two for a few seconds, puts it down, and returns to A |
| `diverged` | A is put down without a push; B, opened at its own old place, is read for a stretch (at least 6 posts and 30 s) that never reaches A's place, in one of three ways: on from B's place, a flick up to the new posts and reading down from the top, or a short first reading; B pushes, then A's push goes out late; the reader picks up A or B. `"diverged": true`; the truth is the reader's answer, the later reading or A's place, half and half |

    python3 make-sessions.py --sessions 60 --seed 57 -o .
"""
import argparse
import json
import math
import pathlib
import random
from datetime import datetime, timedelta, timezone

HERE = pathlib.Path(__file__).resolve().parent
VIEWPORT = {"width": 390, "height": 700}


def height(post):
    return 64 + 19 * math.ceil(max(1, len(post.get("text") or "")) / 40)


def stamp(time):
    return time.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def post_value(post):
    return {"id": post["id"], "createdAt": post["createdAt"], "author": post["author"], "text": post["text"], "height": height(post)}


class Session:
    def __init__(self, number, seed, corpus):
        self.rng = random.Random(seed * 1_000_003 + number)
        rng = self.rng
        self.corpus = corpus
        self.lines = []
        start = rng.randint(600, len(corpus) - 400)
        self.timeline = list(corpus[start:start + 200])
        self.newer = start
        self.older = start + 200
        top_time = datetime.fromisoformat(self.timeline[0]["createdAt"].replace("Z", "+00:00"))
        self.now = top_time + timedelta(minutes=rng.uniform(5, 60))
        # Each device's place: the id of the post at the top of its viewport, its state.
        self.place = {"phone": None, "laptop": None}
        self.open = {"phone": False, "laptop": False}
        self.pushed = {"phone": True, "laptop": True}  # what it holds went out
        self.truth = None
        header = {"type": "session", "version": 2, "id": f"independent-divergences-{seed}-{number}", "device": "phone",
                  "account": f"reader-{number}", "timeline": "home", "feed": "chronological", "viewport": VIEWPORT,
                  "startedAt": stamp(self.now)}
        skew = rng.random()
        if skew < 0.1:
            header["clockSkew"] = {"laptop": 3600}
        elif skew < 0.2:
            header["clockSkew"] = {"laptop": -1200}
        self.lines.append(header)
        self.emit("timeline", reason="initial", posts=[post_value(p) for p in self.timeline])

    def emit(self, kind, device=None, **fields):
        line = {"type": kind, "at": stamp(self.now)}
        if device and device != "phone":
            line["device"] = device
        line.update(fields)
        self.lines.append(line)

    def wait(self, low, high):
        self.now += timedelta(seconds=self.rng.uniform(low, high))

    def index(self, post_id):
        return next(i for i, post in enumerate(self.timeline) if post["id"] == post_id)

    def offset(self, index):
        return sum(height(p) for p in self.timeline[:index])

    def scroll_to(self, device, index):
        self.place[device] = self.timeline[index]["id"]
        self.emit("scroll", device, offset=self.offset(index))

    def open_device(self, device, hear=True):
        """Opens `device` (a launch the first time, a return to the foreground after); with
        `hear`, it pulls what the other device pushed."""
        other = "laptop" if device == "phone" else "phone"
        self.emit("lifecycle", device, state="foreground" if self.place[device] else "launch")
        self.open[device] = True
        if hear and self.pushed[other] and self.place[other]:
            self.wait(0.3, 1.5)
            self.emit("sync", **{"from": other, "to": device})

    def close_device(self, device, push=True):
        self.wait(1, 4)
        self.emit("lifecycle", device, state="background")
        self.open[device] = False
        self.pushed[device] = push

    def arrive(self, since):
        """New posts on top: 20 an hour since `since`."""
        count = min(self.newer, int((self.now - since).total_seconds() / 180))
        if count:
            fresh = self.corpus[self.newer - count:self.newer]
            self.newer -= count
            self.timeline[0:0] = fresh
            self.emit("insert", index=0, posts=[post_value(p) for p in fresh])

    def read(self, device, start, posts, at_least=0.0, limit=None):
        """Reads down from index `start` for `posts` posts (with scroll-backs) and at least
        `at_least` seconds, never past index `limit`; returns the index of the last post read."""
        rng = self.rng
        position = start
        began = self.now
        self.scroll_to(device, position)
        steps = 0
        limit = 10**9 if limit is None else limit
        while steps < posts or (self.now - began).total_seconds() < at_least:
            self.now += timedelta(seconds=0.5 + rng.expovariate(1 / 3.5))
            if position >= limit:
                # Resting on the last post they will read here.
                if (self.now - began).total_seconds() >= at_least:
                    break
                continue
            if rng.random() < 1 / 7 and position > start + 3:
                back = rng.randint(1, 3)
                self.scroll_to(device, position - back)
                self.now += timedelta(seconds=0.5 + rng.expovariate(1 / 3.5))
                self.scroll_to(device, position)
                continue
            position = min(position + 1, limit, len(self.timeline) - 1)
            if position + 12 >= len(self.timeline) and self.older < len(self.corpus):
                # Near the end: the app loads 30 older posts.
                page = self.corpus[self.older:self.older + 30]
                self.older += len(page)
                self.emit("insert", index=len(self.timeline), posts=[post_value(p) for p in page])
                self.timeline.extend(page)
            self.scroll_to(device, position)
            steps += 1
        self.truth = self.timeline[position]["id"]
        return position

    def restore(self, device, tag, expected, diverged=False):
        value = {"postId": expected}
        if diverged:
            value["diverged"] = True
        self.wait(0.5, 2)
        self.emit("restore", device, tag=tag, expected=value)
        # The reader is on the truth now: the app put them there, and they read on.
        self.wait(1, 3)
        self.scroll_to(device, self.index(expected))
        self.truth = expected

    # Episodes: each starts with the reader holding `device`, open, on the truth.

    def episode_switch(self, device):
        other = "laptop" if device == "phone" else "phone"
        self.read(device, self.index(self.truth), self.rng.randint(8, 40))
        self.close_device(device)
        closed = self.now
        self.wait(60, 2400)
        self.arrive(closed)
        self.open_device(other)
        self.restore(other, "switch", self.truth)
        return other

    def episode_return(self, device):
        self.read(device, self.index(self.truth), self.rng.randint(8, 40))
        self.close_device(device)
        closed = self.now
        self.wait(120, 3600)
        self.arrive(closed)
        self.open_device(device)
        self.restore(device, "return", self.truth)
        return device

    def episode_glance(self, device):
        other = "laptop" if device == "phone" else "phone"
        self.read(device, self.index(self.truth), self.rng.randint(8, 40))
        truth = self.truth
        self.close_device(device)
        if not self.place[other]:
            return self.episode_return_after(device, truth)
        self.wait(20, 600)
        # The other device opens before it hears: its own old place, a glance, put down.
        self.open_device(other, hear=False)
        old = self.index(self.place[other])
        self.wait(0.5, 1.5)
        self.scroll_to(other, old)
        for _ in range(self.rng.randint(0, 2)):
            self.wait(1.5, 5)
            old = min(old + 1, len(self.timeline) - 1)
            self.scroll_to(other, old)
        self.wait(1, 6)
        self.close_device(other)
        self.wait(10, 300)
        self.open_device(device)
        self.restore(device, "glance", truth)
        return device

    def episode_return_after(self, device, truth):
        self.wait(60, 600)
        self.open_device(device)
        self.restore(device, "return", truth)
        return device

    def episode_diverged(self, device):
        rng = self.rng
        other = "laptop" if device == "phone" else "phone"
        if not self.place[other]:
            return self.episode_switch(device)
        # A reads on and is put down without a push.
        far = self.read(device, self.index(self.truth), rng.randint(12, 40), at_least=30)
        place_a = self.timeline[far]["id"]
        self.close_device(device, push=False)
        closed = self.now
        self.wait(60, 1800)
        self.arrive(closed)
        # B opens at its own old place, before hearing anything of A's reading.
        self.open_device(other, hear=False)
        own = self.index(self.place[other])
        a_index = self.index(place_a)
        way = rng.choice(["on", "flick", "short"])
        if way == "flick":
            start = 0
        else:
            start = own
        room = a_index - start - 3
        if room < 6:
            # B's place is too near A's for a stretch that stops short of it: a glance instead.
            self.wait(0.5, 1.5)
            self.scroll_to(other, own)
            self.wait(2, 8)
            self.close_device(other)
            self.pushed[device] = True
            self.wait(10, 300)
            self.open_device(device)
            self.restore(device, "glance", place_a)
            return device
        if way == "flick":
            self.wait(0.5, 1.5)
            self.scroll_to(other, own)
            self.wait(0.5, 2)
        posts = rng.randint(6, min(8, room)) if way == "short" else rng.randint(6, min(20, room))
        reached = self.read(other, start, posts, at_least=30, limit=a_index - 3)
        place_b = self.timeline[reached]["id"]
        self.close_device(other)
        # A's push goes out late; then the reader picks one up.
        self.wait(60, 1800)
        self.pushed[device] = True
        picked = rng.choice([device, other])
        answer = rng.choice([place_a, place_b])
        self.open_device(picked)
        self.restore(picked, "diverged", answer, diverged=True)
        return picked

    def write(self):
        rng = self.rng
        device = "phone"
        self.emit("lifecycle", state="launch")
        self.open["phone"] = True
        self.truth = self.timeline[rng.randint(0, 10)]["id"]
        self.wait(1, 3)
        # The laptop is opened once first at a place of its own.
        self.read("phone", self.index(self.truth), rng.randint(8, 30))
        self.close_device("phone")
        self.wait(30, 600)
        self.open_device("laptop")
        self.restore("laptop", "switch", self.truth)
        device = "laptop"
        for _ in range(rng.randint(6, 10)):
            kind = rng.choices(["switch", "return", "glance", "diverged"], [0.3, 0.15, 0.15, 0.4])[0]
            device = getattr(self, "episode_" + kind)(device)
        return "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in self.lines)


def main(session=Session, prefix="divergences", sessions=60, seed=57, doc=__doc__, here=HERE):
    """Writes `PREFIX-NNNN.jsonl` sessions of the class `session`, by the command line's
    arguments (the deletion examiner's script calls it with its own class and defaults)."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=sessions)
    parser.add_argument("--seed", type=int, default=seed)
    parser.add_argument("-o", "--output", default=str(here))
    arguments = parser.parse_args()
    corpus = [json.loads(line) for line in (HERE.parent / "posts" / "tweets-trump-3000.jsonl").read_text().splitlines() if line]
    output = pathlib.Path(arguments.output)
    output.mkdir(parents=True, exist_ok=True)
    for number in range(1, arguments.sessions + 1):
        (output / f"{prefix}-{number:04d}.jsonl").write_text(session(number, arguments.seed, corpus).write())


if __name__ == "__main__":
    main()

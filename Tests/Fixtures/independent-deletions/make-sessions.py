#!/usr/bin/env python3
"""Writes one-device sessions (format version 2) in which the reader's post is deleted while the
app is away, from the definitions in docs/SESSIONS.md, with a reading model of its own.

The truth of a deleted post is the definition of the format: the reader goes on to the next
surviving post in the direction they were reading, down the feed for a reader going down it,
up for a reader catching up from an old place. The reading model is built to make that
direction hard to tell by counting steps:

- A reader going down (two sessions in three) flicks down two to six posts at once and then
  nudges back up one post at a time, one to three times, to read what the flick passed: more
  scrolls go up than down, and the reader travels far down.
- A reader catching up (one in three) opens at an old place with new posts above and reads up
  post by post, now and then nudging down one post to read one again, until the newest post;
  their first visit opens 40 to 90 posts down.
- Between visits (2 minutes to 6 hours) 20 new posts an hour arrive on top; before each
  restore the reader's post is deleted, and in one episode in four the post after it in the
  reading direction too. The truth is the next post that survives in that direction.

Everything else (posts, heights, time stamps, events) is the divergence examiner's
(`../independent-divergences/make-sessions.py`), which this script reuses.

    python3 make-sessions.py --sessions 30 --seed 63 -o .
"""
import importlib.util
import json
import pathlib
from datetime import timedelta

HERE = pathlib.Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("divergences", HERE.parent / "independent-divergences" / "make-sessions.py")
divergences = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(divergences)


class DeletionSession(divergences.Session):
    def __init__(self, number, seed, corpus):
        super().__init__(number, seed, corpus)
        # One device only: no other device's clock matters.
        self.lines[0].pop("clockSkew", None)
        self.lines[0]["id"] = f"independent-deletions-{seed}-{number}"
        self.catching_up = self.rng.random() < 1 / 3
        self.position = 0

    def dwell(self):
        self.now += timedelta(seconds=0.5 + self.rng.expovariate(1 / 3.5))

    def move(self, position):
        self.position = max(0, min(position, len(self.timeline) - 1))
        if self.position + 12 >= len(self.timeline) and self.older < len(self.corpus):
            # Near the end: the app loads 30 older posts.
            page = self.corpus[self.older:self.older + 30]
            self.older += len(page)
            self.emit("insert", index=len(self.timeline), posts=[divergences.post_value(p) for p in page])
            self.timeline.extend(page)
        self.scroll_to("phone", self.position)
        self.dwell()

    def read_down(self, posts):
        """Flicks down and nudges back, `posts` posts further down in all."""
        rng = self.rng
        goal = self.position + posts
        while self.position < goal:
            start = self.position
            self.move(min(goal, self.position + rng.randint(2, 6)))
            for _ in range(min(self.position - start - 1, rng.randint(1, 3))):
                self.move(self.position - 1)
            self.dwell()

    def read_up(self):
        """Reads up post by post to the newest, nudging down one post now and then."""
        rng = self.rng
        while self.position > 0:
            self.move(self.position - 1)
            if rng.random() < 1 / 6 and self.position > 1:
                self.move(self.position + 1)
                self.move(self.position - 1)

    def visit(self):
        if self.catching_up:
            self.read_up()
        else:
            self.read_down(self.rng.randint(10, 40))

    def episode(self):
        rng = self.rng
        self.wait(1, 4)
        self.emit("lifecycle", state="background")
        closed = self.now
        self.wait(120, 6 * 3600)
        before = len(self.timeline)
        self.arrive(closed)
        self.position += len(self.timeline) - before
        # The reader's post is deleted, and sometimes the next one in the reading direction too.
        step = -1 if self.catching_up else 1
        gone = [self.position]
        if rng.random() < 0.25 and 0 <= self.position + step < len(self.timeline):
            gone.append(self.position + step)
        survivors = [i for i in range(len(self.timeline)) if i not in gone]
        ahead = [i for i in survivors if (i < self.position if self.catching_up else i > self.position)]
        behind = [i for i in survivors if i not in ahead]
        if not ahead and not behind:
            return False
        truth = (max(ahead) if self.catching_up else min(ahead)) if ahead else (
            min(behind) if self.catching_up else max(behind))
        truth_id = self.timeline[truth]["id"]
        self.emit("remove", ids=[self.timeline[i]["id"] for i in gone])
        for i in sorted(gone, reverse=True):
            del self.timeline[i]
        self.wait(0.5, 3)
        self.emit("lifecycle", state="foreground")
        self.wait(0.5, 2)
        self.emit("restore", tag="deleted", expected={"postId": truth_id})
        # The app put the reader there; they read on from it.
        self.position = self.index(truth_id)
        self.wait(1, 3)
        self.scroll_to("phone", self.position)
        return True

    def write(self):
        rng = self.rng
        self.emit("lifecycle", state="launch")
        self.open["phone"] = True
        self.wait(1, 3)
        self.position = rng.randint(40, 90) if self.catching_up else rng.randint(0, 10)
        self.scroll_to("phone", self.position)
        self.dwell()
        for _ in range(rng.randint(6, 10)):
            self.visit()
            if not self.episode():
                break
        return "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in self.lines)


def main():
    divergences.main(DeletionSession, "deletions", sessions=30, seed=63, doc=__doc__, here=HERE)


if __name__ == "__main__":
    main()

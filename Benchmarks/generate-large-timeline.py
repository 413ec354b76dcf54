#!/usr/bin/env python3
"""Writes a timeline of N posts as JSON Lines (the fixture's real texts, cycled and made unique),
and two positions for it: one of a post that is there, one of a post that is gone.

Usage: generate-large-timeline.py POSTS.jsonl N OUT.jsonl PRESENT.json GONE.json"""
import json
import sys

corpus, count, out, present, gone = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
texts = [json.loads(line)["text"] for line in open(corpus, encoding="utf-8")]
base = 1600000000000000000
with open(out, "w", encoding="utf-8") as handle:
    for i in range(count):
        stamp = "2022-12-%02dT%02d:%02d:%02dZ" % (1 + (i // 86400) % 28, (i // 3600) % 24, (i // 60) % 60, i % 60)
        handle.write(json.dumps({"id": str(base + i), "createdAt": stamp, "author": "user%d" % (i % 997),
                                 "text": texts[i % len(texts)] + " #%d" % i, "height": 80 + (i * 37) % 240}) + "\n")
middle = count // 2
json.dump({"postId": str(base + middle), "viewportY": -20, "contentOffset": 1000, "index": middle, "timelineCount": count},
          open(present, "w"))
json.dump({"postId": "gone", "postCreatedAt": "2022-12-05T10:00:00Z", "viewportY": 0, "index": middle, "timelineCount": count,
           "neighbors": {"above": [str(base + middle - 1)], "below": [str(base + middle + 1)]}, "text": texts[7] + " #x"},
          open(gone, "w"))

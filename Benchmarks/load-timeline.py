#!/usr/bin/env python3
"""The CPython peer of `engine restore` on a large JSON Lines timeline: json.loads per line and a
dict from id to position, then the restore is one dict lookup.

Usage: load-timeline.py TIMELINE.jsonl POST_ID"""
import json
import sys

posts, index = [], {}
with open(sys.argv[1], "rb") as handle:
    for number, line in enumerate(handle):
        post = json.loads(line)
        posts.append(post)
        index.setdefault(post["id"], number)
print(index.get(sys.argv[2]))

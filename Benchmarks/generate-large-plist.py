#!/usr/bin/env python3
"""Writes a deterministic XML property list of about 20 MB: a root dict of 200,000 entries whose
values cycle through every plist type (string, integer, real, true/false, date, data, array,
dict). Usage: generate-large-plist.py OUT [ENTRIES]"""
import base64
import random
import sys
from xml.sax.saxutils import escape

out = sys.argv[1]
entries = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
rng = random.Random(20261121)
words = ["timeline", "post", "reader", "anchor", "refresh", "café", "naïve", "ünïcode", "&", "<tag>", "東京", "🙂"]

with open(out, "w", encoding="utf-8") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    f.write('<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n')
    f.write('<plist version="1.0">\n<dict>\n')
    for i in range(entries):
        f.write(f"\t<key>entry{i:06d}</key>\n")
        kind = i % 8
        if kind == 0:
            text = " ".join(rng.choice(words) for _ in range(rng.randint(6, 16)))
            f.write(f"\t<string>{escape(text)}</string>\n")
        elif kind == 1:
            f.write(f"\t<integer>{rng.randint(-2**63, 2**64 - 1)}</integer>\n")
        elif kind == 2:
            f.write(f"\t<real>{rng.uniform(-1e6, 1e6)!r}</real>\n")
        elif kind == 3:
            f.write("\t<true/>\n" if rng.random() < 0.5 else "\t<false/>\n")
        elif kind == 4:
            f.write("\t<date>%04d-%02d-%02dT%02d:%02d:%02dZ</date>\n" % (
                rng.randint(1970, 2030), rng.randint(1, 12), rng.randint(1, 28),
                rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)))
        elif kind == 5:
            blob = base64.b64encode(rng.randbytes(rng.randint(40, 200))).decode()
            f.write(f"\t<data>\n\t{blob}\n\t</data>\n")
        elif kind == 6:
            f.write("\t<array>\n\t\t<integer>%d</integer>\n\t\t<string>%s</string>\n\t\t<real>%r</real>\n\t</array>\n" % (
                rng.randint(0, 10**6), escape(rng.choice(words)), rng.random()))
        else:
            f.write("\t<dict>\n\t\t<key>id</key>\n\t\t<string>%d</string>\n\t\t<key>read</key>\n\t\t<%s/>\n\t</dict>\n" % (
                rng.randint(0, 10**12), "true" if rng.random() < 0.5 else "false"))
    f.write("</dict>\n</plist>\n")

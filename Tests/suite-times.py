#!/usr/bin/env python3
"""Reads the output of `swift test` and prints each suite's time, longest first. With `--solo`,
the output of a run of the same build with `--no-parallel` on a quiet machine (each suite's own
work), it prints the suites that do under a second of work there and took more than 30 s in
the first run, and exits 1 if there is one: a short suite that waited that long waited for
something else (a long test holding the cooperative pool, or a dozen taking the cores). Two
kinds of suite wait on purpose and are left out: the long tests (`.ownThread`), which take
turns, and the suites that build an example package (`ExampleBuilds.build`), whose work is
the build.

Usage:
  swift test --no-parallel --skip-build > solo.log
  Tests/with-load.sh swift test --skip-build > loaded.log
  Tests/suite-times.py loaded.log --solo solo.log
"""
import glob
import os
import re
import sys

SUITE = re.compile(r'Suite "?(.*?)"? (?:passed|failed) after ([0-9.]+) seconds')


def suite_times(path):
    times = {}
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            match = SUITE.search(line)
            if match:
                times[match.group(1)] = float(match.group(2))
    return times


def waiting_on_purpose():
    """The names of the suites that take turns or build an example package, from the sources."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    names = set()
    for source in glob.glob(os.path.join(root, "Tests", "**", "*.swift"), recursive=True):
        with open(source, encoding="utf-8") as handle:
            text = handle.read()
        # A file whose suite builds an example, or has tests that take turns one by one.
        builds = "ExampleBuilds.build(" in text or re.search(r"@Test\([^\n]*\.ownThread", text) is not None
        for match in re.finditer(r"@Suite\b", text):
            declaration = re.search(r"\b(?:struct|final class|class|enum)\s+(\w+)", text[match.end():])
            if not declaration:
                continue
            attribute = text[match.end():match.end() + declaration.start()]
            if builds or ".ownThread" in attribute:
                title = re.match(r'\s*\(\s*"((?:[^"\\]|\\.)*)"', attribute)
                names.add(title.group(1) if title else declaration.group(1))
    return names


def main(arguments):
    if not arguments or arguments[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    run = suite_times(arguments[0])
    if not run:
        print(f"{arguments[0]}: no suite times (is it the output of swift test?)", file=sys.stderr)
        return 2
    if "--solo" not in arguments:
        for name, seconds in sorted(run.items(), key=lambda item: -item[1]):
            print(f"{seconds:9.1f} s  {name}")
        return 0
    solo = suite_times(arguments[arguments.index("--solo") + 1])
    exempt = waiting_on_purpose()
    short = {name: seconds for name, seconds in solo.items() if seconds < 1 and name not in exempt}
    waited = sorted(((run[name], name) for name in short if name in run and run[name] > 30), reverse=True)
    longest = max((run[name] for name in short if name in run), default=0)
    print(f"{len(short)} suites do under a second of work alone ({len(exempt)} long or building suites left out); "
          f"the longest of them took {longest:.1f} s in this run")
    for seconds, name in waited:
        print(f"{seconds:9.1f} s  {name} (alone: {solo[name]:.2f} s)")
    return 1 if waited else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

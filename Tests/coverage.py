#!/usr/bin/env python3
"""Line coverage per module from `swift test --enable-code-coverage`, with floors.

Reads the coverage JSON SwiftPM exports (`swift test --show-codecov-path`), sums the lines of
each module's files (`Sources/<Module>/`, `Strategies/<Name>/`), prints a table, and exits 1
when a module with a floor is below it: 85 % of lines for SyncModel, PositionSync, SyncServer,
StrategyPlugins and every strategy.

    swift test --enable-code-coverage && python3 Tests/coverage.py
    python3 Tests/coverage.py --markdown     # the table for docs/TESTING.md
"""
import json
import os
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLOOR = 85.0
FLOORED = {"SyncModel", "PositionSync", "SyncServer", "StrategyPlugins"}


def main():
    path = subprocess.run(["swift", "test", "--show-codecov-path"], cwd=root, capture_output=True, text=True, check=True).stdout.strip()
    if not os.path.exists(path):
        sys.exit(f"{path}: no coverage data; run swift test --enable-code-coverage first")
    with open(path) as handle:
        data = json.load(handle)
    modules = {}
    for export in data["data"]:
        for entry in export["files"]:
            relative = os.path.relpath(entry["filename"], root)
            parts = relative.split(os.sep)
            if len(parts) < 3 or parts[0] not in ("Sources", "Strategies"):
                continue
            name = parts[1]
            lines = entry["summary"]["lines"]
            total, covered = modules.get(name, (0, 0, parts[0]))[:2]
            modules[name] = (total + lines["count"], covered + lines["covered"], parts[0])
    failures = []
    rows = []
    for name in sorted(modules, key=lambda n: (modules[n][2], n)):
        total, covered, folder = modules[name]
        percent = 100.0 * covered / total if total else 100.0
        floor = FLOOR if name in FLOORED or folder == "Strategies" else None
        if floor is not None and percent < floor:
            failures.append(f"{folder}/{name}: {percent:.1f} % of lines covered, below the floor of {floor:.0f} %")
        rows.append((f"{folder}/{name}", total, covered, percent, floor))
    if "--markdown" in sys.argv:
        print("| module | lines | covered | % | floor |\n|---|---|---|---|---|")
        for name, total, covered, percent, floor in rows:
            print(f"| `{name}` | {total} | {covered} | {percent:.1f} | {'' if floor is None else f'{floor:.0f}'} |")
    else:
        for name, total, covered, percent, floor in rows:
            print(f"{name:<36} {covered:>6}/{total:<6} {percent:5.1f} %{'' if floor is None else f'  (floor {floor:.0f} %)'}")
    for failure in failures:
        print(failure, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

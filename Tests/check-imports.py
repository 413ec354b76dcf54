#!/usr/bin/env python3
"""Fails when a target imports a module it does not declare in Package.swift (it would build only
because another module re-exports it, as TimelineEngine re-exports its modules for apps), and
when a library or executable target declares a module it never imports (a dependency built and
linked for nothing). Test targets may declare executables and support modules they only run;
the strategies under Strategies/ share one dependency list and are not checked for the second.

Usage: Tests/check-imports.py   (runs `swift package dump-package`)
"""
import glob
import json
import os
import re
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
package = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, capture_output=True, text=True, check=True).stdout)
platform = {"Foundation", "FoundationNetworking", "FoundationEssentials", "Testing", "XCTest", "Dispatch", "Glibc", "Darwin", "os",
            "Synchronization"}
undeclared = 0
unused = 0
for target in package["targets"]:
    name = target["name"]
    default = ("Tests/" if target["type"] == "test" else "Sources/") + name
    path = os.path.join(root, target.get("path") or default)
    declared = set()
    for dependency in target["dependencies"]:
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                declared.add(dependency[kind][0])
    imported = set()
    for source in glob.glob(os.path.join(path, "**", "*.swift"), recursive=True):
        with open(source, encoding="utf-8") as handle:
            for line in handle:
                match = re.match(r"\s*(?:@testable\s+|@_exported\s+|@preconcurrency\s+)?import\s+(\w+)", line)
                if match:
                    imported.add(match.group(1))
    missing = sorted(imported - declared - platform - {name})
    # System libraries are targets too (CLibXML2); their imports are declared like any other.
    if missing:
        undeclared += len(missing)
        print(f"{name} imports {', '.join(missing)} without declaring it in Package.swift")
    checked = target["type"] in ("regular", "executable") and not (target.get("path") or "").startswith("Strategies/")
    never = sorted(declared - imported) if checked else []
    if never:
        unused += len(never)
        print(f"{name} declares {', '.join(never)} in Package.swift but never imports it")
print(f"{len(package['targets'])} targets, {undeclared} undeclared imports, {unused} unused dependencies")
sys.exit(1 if undeclared or unused else 0)

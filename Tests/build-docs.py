#!/usr/bin/env python3
"""Builds the DocC documentation of the library and of every module it re-exports, in one
archive, from the modules of an existing build, warnings as errors.

swift-docc-plugin's `generate-documentation` builds every target again with all the package's
traits enabled (its builds take no `--traits`): a second build of the whole package in CI. The
symbol graphs are the same read from the default build's modules, so this extracts them
(`swift-symbolgraph-extract`), converts each module in dependency order with the archives of its
dependencies for links across modules (`docc convert --dependency`, as the plugin's combined
documentation does), and merges the archives (`docc merge`).

    Tests/build-docs.py [BUILD_DIR] [OUTPUT]   (.build/debug and .build/documentation by default)
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from module_search import search_flags  # noqa: E402

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".build", "debug"))
output = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, ".build", "documentation"))
umbrella = "TimelineEngineKit"
exports = open(os.path.join(root, "Sources", umbrella, "TimelineEngine.swift"), encoding="utf-8").read()
modules = [umbrella] + re.findall(r"^@_exported import (\w+)$", exports, re.M)

package = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, capture_output=True, text=True, check=True).stdout)
depends = {}
for target in package["targets"]:
    names = set()
    for dependency in target["dependencies"]:
        for kind in ("byName", "target"):
            if kind in dependency:
                names.add(dependency[kind][0])
    depends[target["name"]] = names & set(modules)


def closure(name, seen=None):
    seen = set() if seen is None else seen
    for dependency in depends.get(name, ()):
        if dependency not in seen:
            seen.add(dependency)
            closure(dependency, seen)
    return seen


order = []
while len(order) < len(modules):
    ready = sorted(m for m in modules if m not in order and depends.get(m, set()) <= set(order))
    if not ready:
        sys.exit(f"a cycle among {sorted(set(modules) - set(order))}")
    order += ready

triple = subprocess.run(["swiftc", "-print-target-info"], capture_output=True, text=True, check=True)
target = json.loads(triple.stdout)["target"]["triple"]
shutil.rmtree(output, ignore_errors=True)
graphs = os.path.join(output, "symbol-graphs")
archives = os.path.join(output, "archives")
os.makedirs(archives)
search = search_flags(build)
failed = False
for module in order:
    folder = os.path.join(graphs, module)
    os.makedirs(folder)
    subprocess.run(["swift-symbolgraph-extract", "-module-name", module, "-target", target, *search, "-output-dir", folder,
                    "-minimum-access-level", "public", "-skip-inherited-docs"], check=True)
    catalog = [os.path.join(root, "Sources", module, entry) for entry in os.listdir(os.path.join(root, "Sources", module))
               if entry.endswith(".docc")]
    command = ["docc", "convert", *catalog, "--additional-symbol-graph-dir", folder, "--fallback-display-name", module,
               "--fallback-bundle-identifier", module, "--output-path", os.path.join(archives, module + ".doccarchive"),
               "--warnings-as-errors", "--enable-experimental-external-link-support"]
    for dependency in sorted(closure(module)):
        command += ["--dependency", os.path.join(archives, dependency + ".doccarchive")]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        failed = True
        print(f"{module}:\n{result.stderr}{result.stdout}", file=sys.stderr)
if failed:
    sys.exit(1)
combined = os.path.join(output, "TimelineEngine.doccarchive")
subprocess.run(["docc", "merge", *[os.path.join(archives, m + ".doccarchive") for m in order], "--output-path", combined,
                "--synthesized-landing-page-name", "TimelineEngine"], check=True, capture_output=True)
print(f"{len(order)} modules documented, no warning: {combined}")

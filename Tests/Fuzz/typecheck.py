#!/usr/bin/env python3
"""Type-checks the libFuzzer targets' sources against the modules of an existing build of the
package, so that a change to the library's API that breaks a fuzz target fails at once, without
the fuzz build (a release build of the whole package with two sanitizers, which run.sh and
check-instrumented.sh make when fuzzing).

    Tests/Fuzz/typecheck.py [BUILD_DIR]   (.build/debug by default)
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from module_search import search_flags  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".build", "debug"))
search = search_flags(build)
sources = os.path.join(here, "Sources")
failed = []
targets = sorted(os.listdir(sources))
for target in targets:
    files = sorted(os.path.join(sources, target, name) for name in os.listdir(os.path.join(sources, target)) if name.endswith(".swift"))
    result = subprocess.run(["swiftc", "-typecheck", "-parse-as-library", "-swift-version", "6", *search, *files],
                            capture_output=True, text=True)
    if result.returncode != 0:
        failed.append(target)
        print(f"{target}:\n{result.stderr}", file=sys.stderr)
if failed:
    sys.exit(f"{len(failed)} of {len(targets)} fuzz targets do not type-check against the library: {', '.join(failed)}")
print(f"{len(targets)} fuzz targets type-check against the library")

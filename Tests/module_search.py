"""The flags a tool that reads the modules of a SwiftPM build needs to load them
(`swift-symbolgraph-extract`, `swiftc -typecheck`): the build's module folder, and the C modules
and include folders the build's compile commands name (SwiftPM's manifest beside the build
folder): module maps of the packages' C targets and system libraries, and pkg-config's include
folders, as libxml2's."""
import os
import re


def search_flags(build):
    """`build` is a build folder, as `.build/debug`."""
    manifest = open(os.path.join(os.path.dirname(build), "debug.yaml"), encoding="utf-8").read()
    c_flags = sorted(set(re.findall(r'"-Xcc","(-fmodule-map-file=[^"]+|-I[^"]+)"', manifest)))
    include = sorted(set(re.findall(r'(?<!"-Xcc",)"(-I/[^"]+)"', manifest)))
    return ["-I", os.path.join(build, "Modules"), *include] + [flag for c_flag in c_flags for flag in ("-Xcc", c_flag)]

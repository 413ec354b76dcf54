#!/usr/bin/env python3
"""Every public type an app touches has a doc comment: the types, and the types nested in them,
declared `public` or `open` in the TimelineEngineKit module and in the modules it re-exports
(`@_exported import` in Sources/TimelineEngineKit/TimelineEngine.swift). DocC documents what they
say; a type without one is listed with its file and line, and the exit status is 1.

    python3 Tests/check-doc-comments.py"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
facade = (root / "Sources/TimelineEngineKit/TimelineEngine.swift").read_text()
modules = ["TimelineEngineKit"] + re.findall(r"^@_exported import (\w+)", facade, re.M)
declaration = re.compile(r"^\s*(?:@[\w().: ,\"]+\s+)*(?:public|open)\s+(?:final\s+|indirect\s+)*(struct|class|enum|protocol|actor|typealias)\s+(\w+)")
attribute = re.compile(r"^\s*@[\w().: ,\"]+\s*$")
missing = []
types = 0
for module in modules:
    folder = root / "Sources" / module
    if not folder.is_dir():
        continue
    for path in sorted(folder.rglob("*.swift")):
        lines = path.read_text().split("\n")
        for number, line in enumerate(lines):
            match = declaration.match(line)
            if not match:
                continue
            types += 1
            above = number - 1
            # Attributes and plain comments (`// @unchecked: …`) may stand between.
            while above >= 0 and (attribute.match(lines[above]) or re.match(r"^\s*//(?!/)", lines[above])):
                above -= 1
            if above < 0 or not (lines[above].strip().startswith("///") or lines[above].strip().endswith("*/")):
                missing.append(f"{path.relative_to(root)}:{number + 1}: public {match.group(1)} {match.group(2)} has no doc comment")
for line in missing:
    print(line)
print(f"{types} public types in {len(modules)} modules, {len(missing)} without a doc comment")
sys.exit(1 if missing else 0)

#!/usr/bin/env python3
"""Writes config/SocialFusionTimelineConfiguration.commented.plist from the configuration schema.

Every section and every key that is not deprecated, set to its default, with a comment made of
the key's title, its description and its type and bounds, exactly as the keys' declarations say
them (schemas/SocialFusionTimelineConfiguration.schema.json, composed from them): the commented
example cannot drift from the engine. Strategies/generate.sh runs it; with --check it writes
nothing and fails when the file differs from what it would write (.ci/run).
"""
import json
import sys
import textwrap
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
SCHEMA = TOP / "schemas" / "SocialFusionTimelineConfiguration.schema.json"
TARGET = TOP / "config" / "SocialFusionTimelineConfiguration.commented.plist"
WIDTH = 96

HEADER = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!--
  SocialFusionTimelineConfiguration: every key, each set to its default, with what it does.
  Every key is optional: leave out what you do not change. Check a file with
      engine validate FILE
  and print the effective configuration, with every default filled in, with
      engine config print FILE
  given the resolved flag (see engine config print help).
  The schema is schemas/SocialFusionTimelineConfiguration.schema.json. This file is written
  from it by schemas/commented-plist.py: edit the keys' declarations, not this file.
-->
<plist version="1.0">
<dict>
"""


def number(value):
    """A bound as the schema has it, without a needless fraction."""
    return str(int(value)) if float(value).is_integer() else repr(value)


def kind(schema):
    """The value's type and bounds, in words."""
    words = {"integer": "Integer", "number": "Number"}.get(schema.get("type"))
    if "enum" in schema:
        return "One of " + ", ".join(schema["enum"]) + "."
    if words is None:
        return ""
    bounds = []
    if "minimum" in schema:
        bounds.append("at least " + number(schema["minimum"]))
    if "exclusiveMinimum" in schema:
        bounds.append("more than " + number(schema["exclusiveMinimum"]))
    if "maximum" in schema:
        bounds.append("at most " + number(schema["maximum"]))
    return words + (", " + " and ".join(bounds) if bounds else "") + "."


def comment(text, indent):
    """`text` as an XML comment at `indent` tabs, wrapped."""
    text = text.replace("--", "- -")
    lines = textwrap.wrap(text, WIDTH - 5)
    tabs = "\t" * indent
    if len(lines) == 1:
        return f"{tabs}<!-- {lines[0]} -->\n"
    out = f"{tabs}<!-- {lines[0]}\n"
    for line in lines[1:-1]:
        out += f"{tabs}     {line}\n"
    return out + f"{tabs}     {lines[-1]} -->\n"


def escaped(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def value(item, indent):
    """`item` as property-list XML at `indent` tabs."""
    tabs = "\t" * indent
    if isinstance(item, bool):
        return f"{tabs}<{'true' if item else 'false'}/>\n"
    if isinstance(item, int) or (isinstance(item, float) and item.is_integer()):
        return f"{tabs}<integer>{int(item)}</integer>\n"
    if isinstance(item, float):
        return f"{tabs}<real>{item!r}</real>\n"
    if isinstance(item, str):
        return f"{tabs}<string>{escaped(item)}</string>\n"
    if isinstance(item, list):
        if not item:
            return f"{tabs}<array/>\n"
        return f"{tabs}<array>\n" + "".join(value(element, indent + 1) for element in item) + f"{tabs}</array>\n"
    if isinstance(item, dict):
        if not item:
            return f"{tabs}<dict/>\n"
        body = "".join(f"{tabs}\t<key>{escaped(key)}</key>\n" + value(element, indent + 1) for key, element in item.items())
        return f"{tabs}<dict>\n{body}{tabs}</dict>\n"
    raise SystemExit(f"commented-plist.py: a default of an unexpected type: {item!r}")


def key_comment(schema):
    parts = [schema["title"] + ".", schema["description"].rstrip()]
    if not parts[1].endswith("."):
        parts[1] += "."
    described = kind(schema)
    if described:
        parts.append(described)
    return " ".join(parts)


def render(schema):
    out = HEADER
    for name, section in schema["properties"].items():
        if section.get("type") != "object":
            out += "\n" + comment(f"{section['title']}. {section['description']}", 1)
            out += f"\t<key>{name}</key>\n" + value(section.get("default", []), 1)
            continue
        deprecated = [key for key, item in section["properties"].items() if item.get("deprecated")]
        text = f"{section['title']}: {section['description']}"
        if deprecated:
            text += " Deprecated and left out here (engine validate says why): " + ", ".join(deprecated) + "."
        out += "\n" + comment(text, 1) + f"\t<key>{name}</key>\n\t<dict>\n"
        for key, item in section["properties"].items():
            if item.get("deprecated"):
                continue
            if "default" not in item:
                raise SystemExit(f"commented-plist.py: {name}.{key} has no default in the schema")
            out += comment(key_comment(item), 2) + f"\t\t<key>{key}</key>\n" + value(item["default"], 2)
        out += "\t</dict>\n"
    return out + "</dict>\n</plist>\n"


def main():
    text = render(json.loads(SCHEMA.read_text()))
    if "--check" in sys.argv[1:]:
        if TARGET.read_text() != text:
            print(
                f"{TARGET.relative_to(TOP)} is not what schemas/commented-plist.py writes from the schema: "
                "run Strategies/generate.sh (or python3 schemas/commented-plist.py)",
                file=sys.stderr)
            return 1
        print(f"{TARGET.relative_to(TOP)} is up to date")
        return 0
    TARGET.write_text(text)
    print(f"wrote {TARGET.relative_to(TOP)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

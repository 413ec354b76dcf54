#!/bin/sh
# Regenerates everything derived from the declarations of strategies and configuration keys,
# after adding a strategy (its folder plus its name in `strategyNames` in Package.swift) or
# changing a strategy's parameters or summary, or a configuration key:
#   - Sources/TimelineEngineRestoration/BuiltInStrategies.swift, the registry's list of built-ins;
#   - schemas/SocialFusionTimelineConfiguration.schema.json, composed from the settings'
#     declarations and the registry, and its copy embedded in the library
#     (schemas/embed-in-sources.sh);
#   - schemas/SocialFusionTimelineConfiguration.file.schema.json;
#   - config/SocialFusionTimelineConfiguration.commented.plist, every key at its default with
#     its declaration's words (schemas/commented-plist.py);
#   - the table of strategies in Strategies/README.md.
# Tests fail until these are in step. One build: the composition is made from the
# declarations, never from the embedded copy.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top="$here/.."
cd "$top"
python3 Strategies/generate-built-ins.py
swift build --product engine -q
engine=$(swift build --show-bin-path)/engine
"$engine" schema print --compose > schemas/SocialFusionTimelineConfiguration.schema.json
schemas/embed-in-sources.sh
"$engine" schema print --file > schemas/SocialFusionTimelineConfiguration.file.schema.json
python3 schemas/commented-plist.py
python3 - "$engine" <<'PY'
import re, subprocess, sys
table = subprocess.run([sys.argv[1], "strategies", "--format", "markdown"], check=True, capture_output=True, text=True).stdout
path = "Strategies/README.md"
text = open(path).read()
begin, end = "<!-- strategies:begin -->\n", "<!-- strategies:end -->"
start, stop = text.index(begin) + len(begin), text.index(end)
open(path, "w").write(text[:start] + table + text[stop:])
PY
echo "regenerated the built-in list, the schemas and Strategies/README.md"

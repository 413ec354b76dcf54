#!/bin/sh
# Regenerates everything derived from the strategies' declarations, after adding a strategy
# (its folder plus its name in `strategyNames` in Package.swift) or changing one's parameters
# or summary:
#   - Sources/RestorationEngine/BuiltInStrategies.swift, the registry's list of built-ins;
#   - schemas/SocialFusionTimelineConfiguration.schema.json, composed from the registry, and
#     its copy embedded in the library (schemas/embed-in-sources.sh);
#   - schemas/SocialFusionTimelineConfiguration.file.schema.json;
#   - the table of strategies in Strategies/README.md.
# Tests fail until these are in step. Run it again if it says the schema changed: the embedded
# copy is compiled into the engine, so a second pass confirms the fixed point.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top="$here/.."
cd "$top"
python3 Strategies/generate-built-ins.py
swift build --product engine -q
engine=$(swift build --show-bin-path)/engine
schema=schemas/SocialFusionTimelineConfiguration.schema.json
"$engine" schema print --compose > "$schema.new"
if cmp -s "$schema" "$schema.new"; then
  rm "$schema.new"
else
  mv "$schema.new" "$schema"
  schemas/embed-in-sources.sh
  swift build --product engine -q
fi
"$engine" schema print --file > schemas/SocialFusionTimelineConfiguration.file.schema.json
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

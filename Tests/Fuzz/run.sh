#!/usr/bin/env bash
# Builds the libFuzzer targets (with the address sanitizer) and runs each for SECONDS (default
# 60), starting from seed corpora taken from the repository's fixtures. A crash is written to
# Tests/Fuzz/crashes/TARGET/ and the run of that target stops; every crash found becomes a
# regression test in the main package. Figures go to docs/RELIABILITY.md.
# Usage: Tests/Fuzz/run.sh [SECONDS] [TARGET…]   (Linux; libFuzzer comes with the Swift toolchain)
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-60}
shift || true
only="$*"
root=../..
flags=($(./flags.sh))
swift build "${flags[@]}" >&2
bin=$(swift build "${flags[@]}" --show-bin-path)
# Figures from targets built without coverage instrumentation are worthless: check first.
./check-instrumented.sh
work=${WORK:-$(mktemp -d)}

seed() {
    local target=$1; shift
    mkdir -p "$work/$target"
    for file in "$@"; do cp "$file" "$work/$target/$(basename "$file")"; done
}
seed fuzz-plist "$root"/Tests/Fixtures/plist-corpus/valid/*.plist "$root"/Tests/Fixtures/plist-corpus/invalid/*.plist "$root"/config/*.plist
seed fuzz-config "$root"/config/* "$root"/Tests/Fixtures/config-json/valid/*.json "$root"/Tests/Fixtures/config-json/invalid/*.json
head -c 20000 "$root/sessions/session-0001.jsonl" > "$work/session-head.jsonl"
head -n 40 "$root/Tests/Fixtures/restore/timeline.jsonl" > "$work/timeline-head.jsonl"
seed fuzz-json "$work/session-head.jsonl" "$work/timeline-head.jsonl" "$root"/Tests/Fixtures/restore/position*.json \
    "$root"/Tests/Fixtures/config-json/valid/*.json "$root"/Tests/Fixtures/sync/*.json
mkdir -p "$work/fuzz-spec"
n=0
for spec in "ExactMatch > Fallback" "ExactMatch > ContentSimilarity(Threshold: 0.8) > NeighborAnchor > Fallback(Mode: NearestContent) | ViewportAnchor" \
            "BestConfidence(ExactMatch, ContentSimilarity(Threshold: 0.5)) > Fallback" "WeightedVote(ExactMatch(Weight: 2), TemporalProximity(Window: 1800))" \
            "FirstMatch(ExactMatch, Fallback(Mode: 'TopOfTimeline'), MinimumConfidence: 0.7) | ViewportAnchor"; do
    n=$((n + 1)); printf '%s' "$spec" > "$work/fuzz-spec/seed$n"
done

mkdir -p "$work/fuzz-plugin-schema"
n=0
for document in '{"parameters": {"type": "object", "properties": {"Level": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.3}}}, "stage": {"Level": 0.5}}' \
                '{"parameters": {"type": "object", "$defs": {"level": {"type": "number", "maximum": 1}}, "properties": {"Level": {"$ref": "#/$defs/level"}}}, "stage": {"Level": 2}}' \
                '{"parameters": {"type": "object", "properties": {"Next": {"$ref": "#"}, "Items": {"type": "array", "items": {"$ref": "#/properties/Next"}}}}, "stage": {"Next": {"Next": {}}}}' \
                '{"parameters": {"type": "object", "required": ["Mode"], "properties": {"Mode": {"enum": ["A", {"$ref": "#"}]}}}, "stage": {"Mode": "A"}}'; do
    n=$((n + 1)); printf '%s' "$document" > "$work/fuzz-plugin-schema/seed$n"
done

# Page merging: a cache and an answer drawn from bytes (coverage, anchors, posts, times).
mkdir -p "$work/fuzz-merge"
printf '\x02\x30\x05\x01\x01\x02\x02\x03\x03\x04\x04\x05\x05\x03\x03\x09\x09\x01\x01' > "$work/fuzz-merge/window"
printf '\x01\x21\x03\x07\x10\x08\x11\x09\x12\x01\xfa\x07\x10\x02\xfb' > "$work/fuzz-merge/head-with-claimed-times"
# Causal contexts: length-prefixed device names and counters.
mkdir -p "$work/fuzz-wire"
printf '\x06laptop\x05\x05tablet\x01' > "$work/fuzz-wire/two-devices"
printf '\x00\x06laptop\x00\x06laptop\x03' > "$work/fuzz-wire/repeated"
# Status and headers: a selector byte, a value, a newline; 0xff starts the body.
mkdir -p "$work/fuzz-headers"
printf '\x02\x00120\n\x02Thu, 01 Jan 1970 00:00:00 GMT\n' > "$work/fuzz-headers/retry-after"
printf '\x00\x011\n\x020\n\x03inf\n\x041e300\n' > "$work/fuzz-headers/rate-limit"
printf '\x00\x05application/json\n\x0620\n\xff[{"id":"1"}]' > "$work/fuzz-headers/short-body"

for target in fuzz-plist fuzz-json fuzz-spec fuzz-config fuzz-plugin-schema fuzz-merge fuzz-wire fuzz-headers; do
    if [ -n "$only" ] && [[ " $only " != *" $target "* ]]; then continue; fi
    mkdir -p "crashes/$target"
    echo "== $target, $seconds s, seeds: $(ls "$work/$target" | wc -l)"
    # No leak detection: the Swift runtime's caches, kept for the life of the process, would be
    # reported as leaks at exit on every run.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$bin/$target" "$work/$target" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=4096 -detect_leaks=0 \
        -artifact_prefix="crashes/$target/" -print_final_stats=1 2>&1 \
        | grep -E "INITED|DONE|ERROR|SUMMARY|Test unit written|number_of_executed_units|peak_rss" || true
done

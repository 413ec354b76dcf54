#!/usr/bin/env bash
# Runs every benchmark and prints Markdown tables (copied into docs/PERFORMANCE.md).
# Needs: a release build (made here), python3, and for the peers plutil (Swift toolchain),
# xmllint (apt: libxml2-utils); for the default build linked statically, libcurl's development
# files (apt: libcurl4-openssl-dev).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
work=${WORK:-$(mktemp -d)}

swift build -c release --product engine >&2
swift build -c release --package-path Benchmarks --product plist-read >&2
engine=.build/release/engine
reader=Benchmarks/.build/release/plist-read

python3 Benchmarks/generate-large-plist.py "$work/large.plist"
size=$(stat -c %s "$work/large.plist" 2>/dev/null || stat -f %z "$work/large.plist")
# The same engine with the Swift runtime and Foundation linked in, as a Linux tool is shipped:
# with AsyncHTTPClient (the trait NIOClient, no libcurl), and as the default build (URLSession).
swift build -c release --product engine --static-swift-stdlib --traits NIOClient --scratch-path .build-static >&2
static=.build-static/release/engine
swift build -c release --product engine --static-swift-stdlib --scratch-path .build-static-urlsession >&2
static_default=.build-static-urlsession/release/engine
echo "## engine validate vs plutil -lint on the seed configuration (30 paired runs)"
python3 Benchmarks/paired.py 30 \
  "engine validate, default build=$engine validate config/SocialFusionTimelineConfiguration.plist" \
  "engine validate, --static-swift-stdlib=$static_default validate config/SocialFusionTimelineConfiguration.plist" \
  "engine validate, --static-swift-stdlib --traits NIOClient=$static validate config/SocialFusionTimelineConfiguration.plist" \
  "engine --version, default build (start-up only)=$engine --version" \
  "engine --version, --static-swift-stdlib=$static_default --version" \
  "engine --version, --static-swift-stdlib --traits NIOClient=$static --version" \
  "plutil -help=plutil -help" \
  "plutil -lint=plutil -lint config/SocialFusionTimelineConfiguration.plist"
echo
for binary in "$engine" "$static_default" "$static"; do
  echo "$binary: $(du -k "$binary" | cut -f1) KiB, $(ldd "$binary" | wc -l) shared libraries"
done
echo
echo "## Parsing a $(python3 -c "print(round($size / 1e6, 1))") MB plist of 200,000 entries ($size bytes, $runs runs)"
python3 Benchmarks/measure.py "$runs" \
  "engine plist lint (streaming check)=$engine plist lint $work/large.plist" \
  "PropertyListReader.read (value tree)=$reader $work/large.plist" \
  "plutil -lint=plutil -lint $work/large.plist" \
  "CPython plistlib.load=python3 -c 'import plistlib,sys; plistlib.load(open(sys.argv[1],\"rb\"))' $work/large.plist" \
  "xmllint --noout=xmllint --noout $work/large.plist"

echo
echo "## Restoration: index build and restore at 1k, 10k, 100k and 1M posts"
swift build -c release --package-path Benchmarks --product restore-bench >&2
# Texts: the fixture's cycled (every text has near-copies: the worst case for similarity),
# sampled word by word from real posts (no near-copies: the typical case), and real posts once
# each (up to the 23,130 of both corpora; ../shared/data/posts/tweets-trump.jsonl is read when
# it is there).
corpora="Tests/Fixtures/posts/tweets-rtweet.jsonl"
[ -f ../shared/data/posts/tweets-trump.jsonl ] && corpora="$corpora ../shared/data/posts/tweets-trump.jsonl"
Benchmarks/.build/release/restore-bench --texts cycled Tests/Fixtures/posts/tweets-rtweet.jsonl ${SIZES:-1000 10000 100000 1000000}
echo
Benchmarks/.build/release/restore-bench --texts sampled $corpora ${SIZES:-1000 10000 100000 1000000}
echo
Benchmarks/.build/release/restore-bench --texts real $corpora 1000 10000 20000

echo
echo "## The text index alone at ${LAUNCH_POSTS:-1000000} sampled posts, on every core and on one (5 rounds)"
Benchmarks/.build/release/restore-bench --texts sampled text-index "${LAUNCH_POSTS:-1000000}" 5 Tests/Fixtures/posts/tweets-rtweet.jsonl

echo
echo "## The first restore after launch on a ${LAUNCH_POSTS:-1000000}-post cached timeline, the index kept in the store or made at the restore"
Benchmarks/.build/release/restore-bench --texts sampled launch-prepare "$work/launch" "${LAUNCH_POSTS:-1000000}" Tests/Fixtures/posts/tweets-rtweet.jsonl
for run in 1 2 3; do
  for situation in present redrafted gone; do
    Benchmarks/.build/release/restore-bench launch "$work/launch" "$situation"
    Benchmarks/.build/release/restore-bench launch "$work/launch" "$situation" --rebuild
  done
done

echo
posts=${LOAD_POSTS:-1000000}
echo "## Loading a $posts-post JSON Lines timeline and restoring on it ($runs runs)"
python3 Benchmarks/generate-large-timeline.py Tests/Fixtures/posts/tweets-rtweet.jsonl "$posts" "$work/large.jsonl" \
  "$work/present.json" "$work/gone.json"
python3 Benchmarks/measure.py "$runs" \
  "engine restore, post present=$engine restore --config config/SocialFusionTimelineConfiguration.plist --timeline $work/large.jsonl --position $work/present.json" \
  "engine restore, post gone (builds the text index)=$engine restore --config config/SocialFusionTimelineConfiguration.plist --timeline $work/large.jsonl --position $work/gone.json" \
  "CPython json.loads per line + dict index=python3 Benchmarks/load-timeline.py $work/large.jsonl $(python3 -c "import json; print(json.load(open('$work/present.json'))['postId'])")"

echo
echo "## Recorded sessions"
swift build -c release --package-path Benchmarks --product session-ingest >&2
rm -rf "$work/sessions-large" "$work/sessions-small"
$engine simulate --posts Tests/Fixtures/posts/tweets-rtweet.jsonl --sessions ${SESSIONS:-500} --seed 1 -o "$work/sessions-large" --quiet
mkdir -p "$work/sessions-small"
ls "$work/sessions-large"/*.jsonl | head -n $(( ${SESSIONS:-500} / 10 )) | xargs -I{} cp {} "$work/sessions-small/"
python3 Benchmarks/sessions-bench.py "$runs" "$engine" Benchmarks/.build/release/session-ingest \
  config/SocialFusionTimelineConfiguration.plist "$work/sessions-small" "$work/sessions-large"

echo
echo "## The store"
swift build -c release --package-path Benchmarks --product store-bench >&2
Benchmarks/.build/release/store-bench Tests/Fixtures/posts/tweets-rtweet.jsonl ${STORE_POSTS:-1000000}

echo
echo "## A plugin strategy against the same algorithm built in"
swift build -c release --package-path Examples/SameAuthorPlugin >&2
swift build -c release --package-path Benchmarks --product plugin-bench >&2
Benchmarks/.build/release/plugin-bench "$(swift build -c release --package-path Examples/SameAuthorPlugin --show-bin-path)/libSameAuthorPlugin.$( [ "$(uname)" = Darwin ] && echo dylib || echo so)" ${PLUGIN_SIZES:-10000 1000000}

echo
echo "## Sync"
swift build -c release --package-path Benchmarks --product sync-bench >&2
Benchmarks/.build/release/sync-bench ${SYNC_SIZES:-10000 100000 1000000}
echo
echo "## Live sync latency: a save on one device to the position on another"
echo "| transport | saves | p50 | p90 | p99 | max | lost |"
echo "|---|---:|---:|---:|---:|---:|---:|"
python3 Benchmarks/sync-latency.py "$engine" http ${LATENCY_SAVES:-200}
python3 Benchmarks/sync-latency.py "$engine" directory ${LATENCY_SAVES:-200}

echo
Benchmarks/server-bench.sh

echo
echo "## Network policies against injected failures"
python3 Benchmarks/retry-bench.py "$engine"

echo
python3 Benchmarks/long-pages.py "$engine" ${LONG_PAGES:-40 20000} 3

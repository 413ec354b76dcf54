#!/usr/bin/env bash
# Runs the documentation's shell examples as written and compares their output with the docs'.
#
#   Tests/docs/run.sh [ENGINE_DIR] [FILE.md...]     (README.md and docs/*.md by default)
#
# ENGINE_DIR holds the `engine` the README says to build (`swift build -c release`, so
# .build/release by default); it goes first on the PATH. Each doc runs in a scratch copy of the
# repository's tracked files, so paths such as config/ and sessions/ are the docs' own and
# nothing in the checkout changes. Examples are `$ command` lines with the expected output below
# them; `<...>` in the expected output matches any text (times, latencies, ids), see
# Tests/docs/run-docs.py. Blocks that are not run say why in a comment (Tests/docs/check-blocks.py).
# A failing example prints its file and line; exit 1.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
engine_dir=${1:-$root/.build/release}
shift || true
# Absolute, since each document runs in a scratch folder elsewhere.
engine_dir=$(cd "$engine_dir" 2>/dev/null && pwd) || { echo "no folder $1" >&2; exit 2; }
docs=("$@")
if [ ${#docs[@]} -eq 0 ]; then
  docs=(README.md docs/*.md)
fi
if [ ! -x "$engine_dir/engine" ]; then
  echo "no engine in $engine_dir: swift build -c release --product engine" >&2
  exit 2
fi

cd "$root"
python3 Tests/docs/check-blocks.py "${docs[@]}"

status=0
scratch=
trap 'rm -rf "$scratch"' EXIT
for doc in "${docs[@]}"; do
  scratch=$(mktemp -d)
  git -C "$root" ls-files -z | (cd "$root" && xargs -0 cp --parents -t "$scratch")
  (
    cd "$scratch"
    export PATH="$engine_dir:$PATH" LC_ALL=C.UTF-8 TZ=UTC
    unset ENGINE_ACCESS_TOKEN
    python3 "$root/Tests/docs/run-docs.py" "$doc"
  ) || status=1
  rm -rf "$scratch"
done
exit $status

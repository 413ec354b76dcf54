#!/usr/bin/env python3
"""Seeds each bug in Tests/Mutations/*.patch into a scratch copy of the repository, one at a
time, runs the tests that should catch it, and prints a table: caught (by which tests) or
survived. Exits 1 when a mutant survives or a patch no longer applies.

Each patch starts with two lines before the diff:

    Mutant: what the bug is
    Catch: the `swift test --filter` pattern of the tests that should catch it

PostgreSQL is started as `.ci/run` starts it (`.ci/postgres.sh start`), unless
`ENGINE_TEST_POSTGRES_URL` names one. The scratch copy is a git worktree of HEAD in `.build-mutants/worktree` (ignored by git, kept
between runs so that builds are incremental: the first run builds everything once). Commit
before running: uncommitted changes are not in the worktree.

    python3 Tests/Mutations/run.py                 # every mutant
    python3 Tests/Mutations/run.py 05 17           # the mutants whose names start so
    python3 Tests/Mutations/run.py --markdown      # the table as markdown, for docs/TESTING.md
"""
import os
import pathlib
import re
import subprocess
import sys
import time

root = pathlib.Path(__file__).resolve().parents[2]
patches = sorted((root / "Tests/Mutations").glob("*.patch"))
scratch = root / ".build-mutants"
worktree = scratch / "worktree"


def sh(arguments, cwd=worktree, timeout=3600, check=True, env=None):
    result = subprocess.run(arguments, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    if check and result.returncode != 0:
        sys.exit(f"{' '.join(arguments)} failed:\n{result.stdout[-3000:]}{result.stderr[-3000:]}")
    return result


def prepare():
    scratch.mkdir(exist_ok=True)
    head = sh(["git", "rev-parse", "HEAD"], cwd=root).stdout.strip()
    if not (worktree / ".git").exists():
        sh(["git", "worktree", "prune"], cwd=root)
        sh(["git", "worktree", "add", "--detach", str(worktree), head], cwd=root)
    sh(["git", "checkout", "--quiet", "--detach", head])
    sh(["git", "reset", "--quiet", "--hard", head])
    return head


def header(patch):
    text = patch.read_text()
    mutant = re.search(r"^Mutant: (.*)$", text, re.M)
    catch = re.search(r"^Catch: (.*)$", text, re.M)
    return (mutant.group(1) if mutant else patch.stem), (catch.group(1) if catch else "")


def failing_tests(output):
    names = []
    for line in output.splitlines():
        match = re.match(r'.*✘ Test (".*?"|\S+\(\)) ', line)
        if match and match.group(1) not in names:
            names.append(match.group(1))
    return names


def run(patch):
    description, catch = header(patch)
    sh(["git", "reset", "--quiet", "--hard"])
    applied = sh(["git", "apply", str(patch)], check=False)
    if applied.returncode != 0:
        return description, "does not apply", applied.stderr.strip().splitlines()[:1]
    started = time.time()
    build = sh(["swift", "build", "--build-tests", "--traits", "SyncServer"], check=False, timeout=5400)
    if build.returncode != 0:
        return description, "does not build", [line for line in build.stdout.splitlines() if "error:" in line][:1]
    env = dict(os.environ, ENGINE_PROPERTY_SEED=os.environ.get("ENGINE_PROPERTY_SEED", "20261125"))
    tests = sh(["swift", "test", "--skip-build", "--traits", "SyncServer", "--filter", catch], check=False, timeout=1800, env=env)
    output = tests.stdout + tests.stderr
    if re.search(r"Test run with 0 tests", output):
        return description, "no test matched", [catch]
    if tests.returncode == 0 and re.search(r"↪ Test .* skipped", output) and not failing_tests(output):
        return description, "survived (tests skipped)", [line.strip() for line in output.splitlines() if "skipped" in line][:1]
    if tests.returncode == 0:
        return description, "survived", []
    crashed = "Program crashed" in output or "Fatal error" in output
    caught = failing_tests(output) or ["(the test process crashed)" if crashed else "(failed)"]
    return description, f"caught in {time.time() - started:.0f} s", caught


def postgres():
    """The PostgreSQL the server's tests need, started as CI starts it; None when it cannot be."""
    if os.environ.get("ENGINE_TEST_POSTGRES_URL"):
        return os.environ["ENGINE_TEST_POSTGRES_URL"]
    started = subprocess.run([str(root / ".ci/postgres.sh"), "start"], cwd=root, capture_output=True, text=True)
    return started.stdout.strip() if started.returncode == 0 and started.stdout.strip() else None


def main():
    arguments = [a for a in sys.argv[1:] if not a.startswith("--")]
    markdown = "--markdown" in sys.argv
    chosen = [p for p in patches if not arguments or any(p.name.startswith(a) for a in arguments)]
    head = prepare()
    url = postgres()
    if url:
        os.environ["ENGINE_TEST_POSTGRES_URL"] = url
    else:
        print("PostgreSQL could not be started: its tests are skipped, and mutants only they catch survive", file=sys.stderr)
    print(f"{len(chosen)} mutant(s) of {head[:12]} in {worktree}", file=sys.stderr)
    rows, bad = [], 0
    for patch in chosen:
        description, outcome, tests = run(patch)
        if not outcome.startswith("caught"):
            bad += 1
        rows.append((patch.stem, description, outcome, tests))
        print(f"{patch.stem}: {outcome}: {'; '.join(tests[:4])}", file=sys.stderr, flush=True)
    sh(["git", "reset", "--quiet", "--hard"])
    if markdown:
        print("| mutant | seeded bug | outcome | caught by |\n|---|---|---|---|")
        for name, description, outcome, tests in rows:
            shown = ", ".join(tests[:3]) + (f" (+{len(tests) - 3} more)" if len(tests) > 3 else "")
            print(f"| `{name}` | {description} | {outcome.split(' in ')[0]} | {shown} |")
    else:
        width = max(len(name) for name, *_ in rows)
        for name, description, outcome, tests in rows:
            print(f"{name.ljust(width)}  {outcome.split(' in ')[0].ljust(15)}  {'; '.join(tests[:3])}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

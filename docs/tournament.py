#!/usr/bin/env python3
"""Regenerates the tournament of merge policies in docs/SYNC.md: every registered merge policy
(the engine's and the peers' rules) replayed on the bundled multi-device sessions, the configured
pipeline's figures by tag.

Usage: docs/tournament.py ENGINE [--check]

ENGINE is the `engine` executable (`swift build --show-bin-path`/engine). The tables between
`<!-- tournament:begin -->` and `<!-- tournament:end -->` are rewritten from one run of
`engine compare --format json`; with --check nothing is written, and the exit status is 1 when
the document differs from what the run gives (CI runs it so).
"""
import json
import subprocess
import sys

POLICIES = ["CausalFurthest", "MarkerArrival", "WallClock", "FurthestWithPrompt", "NewerForwardOnly", "Overwrite", "LastWriterWins",
            "FurthestRead"]
SESSIONS = ["sessions/devices", "sessions/devices-catching-up", "sessions/devices-diverged"]
CONFIG = "config/SocialFusionTimelineConfiguration.plist"
DOCUMENT = "docs/SYNC.md"
BEGIN, END = "<!-- tournament:begin -->\n", "<!-- tournament:end -->"


def command():
    arguments = ["compare", "--config", CONFIG, "--sessions", *SESSIONS, "--format", "json", "--jobs", "2"]
    for policy in POLICIES:
        arguments += ["--merge-policy", policy]
    return arguments


def tables(report):
    rows = {}   # policy -> {tag: summary}
    for pipeline in report["pipelines"]:
        name = pipeline["name"]
        if not name.startswith("configured · "):
            continue
        policy = name[len("configured · "):]
        rows[policy] = {"all": pipeline["totals"], **{tag["tag"]: tag for tag in pipeline["tags"]}}
    tags = ["all"] + [tag["tag"] for tag in report["pipelines"][0]["tags"]]
    header = "| tag | points | " + " | ".join(POLICIES) + " |\n|---|---:|" + "---:|" * len(POLICIES) + "\n"

    def rate(value):
        return "-" if value is None else f"{value:.3f}"

    landing = header
    asking = header
    for tag in tags:
        points = rows[POLICIES[0]][tag]["restorePoints"]
        landing += f"| {tag} | {points} | " + " | ".join(
            f"{rate(rows[p][tag]['exact'])} ({rows[p][tag]['backJumps']})" for p in POLICIES) + " |\n"
        asking += f"| {tag} | {points} | " + " | ".join(
            f"{rows[p][tag]['prompts']} / {rows[p][tag]['phantomPrompts']}"
            + (f" / {rows[p][tag]['missedDivergences']}" if rows[p][tag]["divergentPoints"] else "") for p in POLICIES) + " |\n"
    lines = [f"engine compare --config {CONFIG} --sessions {' '.join(SESSIONS)}"] + [f"  --merge-policy {p}" for p in POLICIES]
    text = (
        "<!-- not run: it prints several hundred lines per policy; docs/tournament.py runs it and gathers the tables below -->\n"
        "```sh\n" + " \\\n".join(lines) + "\n```\n\n"
        "The `exact` rate of the configured pipeline after the reader answers any question as the truth says, back jumps in "
        "brackets:\n\n" + landing + "\n"
        "Questions asked: prompts / phantom prompts (asked where the reading had not diverged), and on the tags with true "
        "divergences, / divergences where the policy did not ask:\n\n" + asking)
    return text


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    engine, check = sys.argv[1], "--check" in sys.argv[2:]
    run = subprocess.run([engine] + command(), capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"engine compare failed ({run.returncode}):\n{run.stderr}")
    generated = tables(json.loads(run.stdout))
    document = open(DOCUMENT, encoding="utf-8").read()
    start, stop = document.index(BEGIN) + len(BEGIN), document.index(END)
    updated = document[:start] + generated + document[stop:]
    if check:
        if updated != document:
            sys.exit(f"{DOCUMENT}: the tournament tables are not what `docs/tournament.py ENGINE` gives now: run it and commit")
        print(f"{DOCUMENT}: the tournament tables are up to date")
    elif updated != document:
        open(DOCUMENT, "w", encoding="utf-8").write(updated)
        print(f"wrote the tournament tables of {DOCUMENT}")
    else:
        print(f"{DOCUMENT}: the tournament tables are up to date")


if __name__ == "__main__":
    main()

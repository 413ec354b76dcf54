#!/usr/bin/env python3
"""Every shell block of the documentation either runs or says why it does not.

A fenced block whose lines start with `$ ` is run by byexample (Tests/docs/run.sh) and its
output compared with the doc's. A ```sh, ```bash or ```console block without prompts, or any
block that starts with `engine `, `swift ` or `curl `, shows commands that are not run: it
must follow a comment `<!-- not run: REASON -->` on the line before its fence, which also keeps
a block with prompts from running.

Usage: Tests/docs/check-blocks.py FILE.md...   (exit 1 with FILE:LINE for each unmarked block)
"""
import re
import sys

COMMAND = re.compile(r"^(engine|swift|curl|export|cd|cat|ls|ENGINE_\w+=)\b")
problems = 0
runnable = 0
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    number = 0
    while number < len(lines):
        fence = re.match(r"^```(\w*)", lines[number])
        if not fence:
            number += 1
            continue
        start = number
        language = fence.group(1)
        number += 1
        body = []
        while number < len(lines) and not lines[number].startswith("```"):
            body.append(lines[number])
            number += 1
        number += 1
        if language not in ("", "sh", "bash", "console", "shell"):
            continue
        before = lines[start - 1] if start > 0 else ""
        if re.match(r"^<!-- not run: .+ -->$", before):
            continue
        if any(line.startswith("$ ") for line in body):
            runnable += 1
            continue
        shows_commands = language in ("sh", "bash", "console", "shell") or any(COMMAND.match(line) for line in body)
        if shows_commands:
            print(f"{path}:{start + 1}: a block of commands neither runs ($ prompts) nor says why not (<!-- not run: REASON --> on the line before it)")
            problems += 1
print(f"{runnable} blocks run, {problems} unmarked", file=sys.stderr)
sys.exit(1 if problems else 0)

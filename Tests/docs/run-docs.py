#!/usr/bin/env python3
"""Runs the documentation's shell examples as written and compares their output with the docs'.

Usage: Tests/docs/run-docs.py FILE.md...   (from a scratch copy of the repository; Tests/docs/run.sh makes one)

In a fenced block, a line `$ command` is run and the lines under it, up to the next `$ ` line
or the end of the block, are its expected output (standard output and standard error, in the
order they came). A command continues on the next line after a trailing backslash, and takes
the lines of a here-document (`<<'EOF'` to `EOF`) with it. A block
inside an HTML comment (`<!--` to `-->`) is run the same way but not shown: the setup a reader
is told in prose. A block right after a comment `<!-- not run: REASON -->` is not run. All of one document's commands run in order in one bash, in the folder the
runner starts in, so files, variables and background jobs carry from one to the next.

Comparing: runs of spaces count as one, trailing blank lines are ignored, and `<...>` in the
expected output matches any text (times, latencies, ids; across lines too). A command whose
output differs is reported with its file and line, the expected and the actual output.
"""
import os
import re
import select
import signal
import subprocess
import sys
import time

TIMEOUT = float(os.environ.get("DOCS_TIMEOUT", "300"))
MARK = "__timeline_engine_docs_done__"


def examples(path):
    """(line, command, expected lines) for every `$ ` command of the document, in order."""
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    found = []
    state = "prose"          # prose, run (a block or a hidden one), or shown (a block not run)
    current = None
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        opens = stripped.startswith("```") and state == "prose"
        closes = (stripped.startswith("```") and state in ("run", "shown")) or (stripped == "-->" and state == "run")
        if opens or closes or (stripped == "<!--" and state == "prose"):
            if current:
                found.append(current)
                current = None
            if closes:
                state = "prose"
            elif opens:
                # A block after `<!-- not run: REASON -->` is shown, not run.
                state = "shown" if number > 1 and lines[number - 2].startswith("<!-- not run: ") else "run"
            else:
                state = "run"
            continue
        if state != "run":
            continue
        if line.startswith("$ "):
            if current:
                found.append(current)
            current = [number, line[2:], []]
            continue
        if current is not None:
            heredoc = re.search(r"<<-?'?(\w+)'?", current[1])
            open_heredoc = heredoc and not current[1].endswith("\n" + heredoc.group(1))
            if not current[2] and (current[1].endswith("\\") or open_heredoc):
                current[1] = current[1] + "\n" + line
            else:
                current[2].append(line)
    return found


def normalise(text):
    lines = [re.sub(r"[ \t]+", " ", line).strip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines)


def matches(expected, actual):
    pattern = "^" + ".*?".join(re.escape(part) for part in normalise(expected).split("<...>")) + "$"
    return re.match(pattern, normalise(actual), re.DOTALL) is not None


class Shell:
    def __init__(self):
        self.process = subprocess.Popen(["bash", "--noprofile", "--norc"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, start_new_session=True)

    def run(self, command):
        # The status is printed after the output, then given back to `$?` for the next command.
        script = f"{command}\n__status=$?; printf '\\n{MARK} %s\\n' \"$__status\"; (exit $__status)\n"
        self.process.stdin.write(script.encode())
        self.process.stdin.flush()
        output = b""
        deadline = time.monotonic() + TIMEOUT
        while MARK.encode() not in output:
            left = deadline - time.monotonic()
            if left <= 0:
                return output.decode(errors="replace") + f"\n(no end after {TIMEOUT:.0f} s)", None
            ready, _, _ = select.select([self.process.stdout], [], [], left)
            if ready:
                chunk = os.read(self.process.stdout.fileno(), 65536)
                if not chunk:
                    return output.decode(errors="replace") + "\n(the shell exited)", None
                output += chunk
        while not output.endswith(b"\n"):
            output += os.read(self.process.stdout.fileno(), 65536)
        text = output.decode(errors="replace")
        body, _, status = text.rpartition(MARK)
        return body[:-1] if body.endswith("\n") else body, int(status.strip() or "0")

    def close(self):
        try:
            os.killpg(self.process.pid, 9)
        except ProcessLookupError:
            pass


def stop(signal_number, frame):
    """A runner stopped stops its shell too, and the servers the document started in it."""
    raise SystemExit(128 + signal_number)


signal.signal(signal.SIGTERM, stop)
failures = 0
count = 0
for path in sys.argv[1:]:
    shell = Shell()
    try:
        for line, command, expected in examples(path):
            count += 1
            actual, status = shell.run(command)
            if not matches("\n".join(expected), actual):
                failures += 1
                shown = command.replace("\n", "\n  ")
                print(f"{path}:{line}: the output of `{shown}` differs from the doc's (exit {status})")
                print("--- the doc's")
                print("\n".join(expected).rstrip())
                print("--- the command's")
                print(actual.rstrip())
                print(f"--- if the command is right, put its output in {path} under line {line}, keeping <...> where it varies")
    finally:
        shell.close()
print(f"{count} commands run from {len(sys.argv) - 1} document(s), {failures} with other output than the doc's", file=sys.stderr)
sys.exit(1 if failures else 0)

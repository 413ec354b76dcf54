#!/usr/bin/env python3
"""Fails when library or strategy code blocks a thread where it could be a cooperative-pool
thread: a semaphore, a dispatch group's or a condition's wait, a thread sleep, or the old
blocking bridge to async code. Async code waits by suspending (`await`); blocking work goes
through `OffPool.run`, which runs it on a dispatch queue and suspends the caller.

The places below block on purpose, each for the reason given; anything else fails.

The tests are held to the same rule, with blocking reads of pipes and waits for processes
added: a test waits by suspending, with a deadline (`Deadline`, `ChildProcess`,
`StreamingChild`), and every suite has a `.timeLimit`. A line that blocks on a thread of its
own (a test server's connection thread, a reader thread) says so with `// off-pool: why`.

It also holds the package to one lock type, `Locked` in EngineSupport: no library or strategy
code makes an `NSLock` (or another lock) of its own.

Usage: Tests/check-blocking.py
"""
import glob
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The places that make a lock of their own, each for its reason.
OWN_LOCKS = {
    "Sources/TimelineEngineSupport/Locked.swift": "the one lock type",
}

ALLOWED = {
    "Sources/TimelineEngineCommands/FetchProgress.swift":
        "the progress line's clock sleeps on a thread of its own, never on the pool",
    "Sources/TimelineEngineStrategyPlugins/PluginWatchdog.swift":
        "the watchdog's checker sleeps between checks on a thread of its own, never on the pool",
    "Sources/TimelineEngineSupport/ParallelWork.swift":
        "the synchronous form's caller works its share, then waits only for the parts still running on threads of their own",
    "Sources/TimelineEngineJSONSchema/DeepStack.swift":
        "synchronous validation waits for its own thread with a large stack, so that deep documents cannot overflow the caller's",
}

PATTERNS = [
    (re.compile(r"\bDispatchSemaphore\b"), "a semaphore"),
    (re.compile(r"\bThread\.sleep\b|\busleep\(|\bnanosleep\("), "a thread sleep"),
    (re.compile(r"(?<!await )\b\w+\.wait\((timeout:[^)]*)?\)"), "a blocking wait"),
    (re.compile(r"\bNSCondition\b|\bDispatchGroup\b"), "a condition or dispatch group"),
    (re.compile(r"\bBlockingExchange\b"), "the blocking bridge to async code"),
    (re.compile(r"\bwaitUntilExit\(|\.sync(\(execute| \{)"), "a wait for a process or a queue"),
    (re.compile(r"(?<!await )\bpool\.(read|write)\s*\{"), "a synchronous database access"),
    # On Linux the global queues' threads are the cooperative pool's: `concurrentPerform` ran a
    # comparison's second job on one for minutes. Parallel CPU work goes through `ParallelWork`.
    (re.compile(r"\bconcurrentPerform\b|\bDispatchQueue\.global\b"), "work on a global queue, whose threads are the pool's on Linux,"),
]

# Not a wait, a crash: on Linux the teardown of `FileHandle.readabilityHandler`'s read source
# races the descriptor's close in libdispatch's event loop, and the whole process dies in
# `_dispatch_event_loop_drain` (swiftlang/swift-corelibs-libdispatch#949; seen in a full test
# run). A pipe is read to its end on a thread of its own (`PipeDrain` in the tests).
READABILITY = re.compile(r"\breadabilityHandler\b")


def problem(what):
    """The sentence for a line that matched `what`."""
    if what == "readability":
        return "a readability handler's teardown can crash the process in libdispatch on Linux (read the pipe on a thread of its own: PipeDrain)"
    return f"{what} can block a cooperative-pool thread"


PATTERNS.append((READABILITY, "readability"))

found = 0
for folder in ("Sources", "Strategies"):
    for source in sorted(glob.glob(os.path.join(root, folder, "**", "*.swift"), recursive=True)):
        relative = os.path.relpath(source, root)
        if relative in ALLOWED:
            continue
        with open(source, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                code = line.split("//", 1)[0]
                for pattern, what in PATTERNS:
                    if pattern.search(code):
                        print(f"{relative}:{number}: {problem(what)}: {line.strip()}")
                        found += 1
TEST_PATTERNS = PATTERNS + [
    (re.compile(r"\breadDataToEndOfFile\(|\.availableData\b"), "a blocking read"),
]
for source in sorted(glob.glob(os.path.join(root, "Tests", "**", "*.swift"), recursive=True)):
    relative = os.path.relpath(source, root)
    if relative.startswith("Tests/Fuzz/") or "/.build" in relative:
        continue
    with open(source, encoding="utf-8") as handle:
        text = handle.read()
    for number, line in enumerate(text.splitlines(), 1):
        code, _, comment = line.partition("//")
        if "off-pool:" in comment:
            continue
        for pattern, what in TEST_PATTERNS:
            if pattern.search(code):
                print(f"{relative}:{number}: {problem(what)}: {line.strip()}")
                found += 1
    # Every suite declares how long it may take.
    for match in re.finditer(r"@Suite\b", text):
        declaration = re.search(r"\b(struct|final class|class|enum|actor|extension)\s", text[match.end():])
        attribute = text[match.start():match.end() + (declaration.start() if declaration else 0)]
        if ".timeLimit(" not in attribute:
            number = text.count("\n", 0, match.start()) + 1
            print(f"{relative}:{number}: a suite without .timeLimit: {attribute.strip()}")
            found += 1
        # Long tests take turns (`LongTestLane`), and a test's limit counts its wait for its turn.
        elif ".ownThread" in attribute and ".timeLimit(.minutes(30))" not in attribute:
            number = text.count("\n", 0, match.start()) + 1
            print(f"{relative}:{number}: an .ownThread suite waits its turn behind the other long tests: give it .timeLimit(.minutes(30))")
            found += 1
# Every @unchecked Sendable type says, beside it, why it is safe, and the library and the
# strategies have at most MAX_UNCHECKED of them: state shared across threads goes in a `Locked`.
MAX_UNCHECKED = 10
unchecked = 0
for folder in ("Sources", "Strategies", "Tests"):
    for source in sorted(glob.glob(os.path.join(root, folder, "**", "*.swift"), recursive=True)):
        relative = os.path.relpath(source, root)
        if relative.startswith("Tests/Fuzz/") or "/.build" in relative:
            continue
        with open(source, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
        for number, line in enumerate(lines, 1):
            code = line.split("//", 1)[0]
            if "@unchecked Sendable" in code:
                if not relative.startswith("Tests/"):
                    unchecked += 1
                beside = lines[max(0, number - 2):number + 1]
                if not any("// @unchecked:" in other for other in beside):
                    print(f"{relative}:{number}: @unchecked Sendable without a `// @unchecked: why` line beside it")
                    found += 1
            # One lock type: `Locked` (TimelineEngineSupport) is the only place a lock is made.
            if re.search(r"\b(NSLock|NSRecursiveLock|os_unfair_lock|pthread_mutex_t)\b", code) and relative not in OWN_LOCKS \
                    and not relative.startswith("Tests/"):
                print(f"{relative}:{number}: a lock of its own; keep the state in a `Locked` (TimelineEngineSupport) instead")
                found += 1
if unchecked > MAX_UNCHECKED:
    print(f"{unchecked} @unchecked Sendable types in Sources/ and Strategies/, more than {MAX_UNCHECKED}: keep the shared state in a `Locked`")
    found += 1
for relative in ALLOWED:
    if not os.path.exists(os.path.join(root, relative)):
        print(f"{relative}: allowed to block but no longer exists; remove it from Tests/check-blocking.py")
        found += 1
if found:
    print(f"{found} problem(s): suspend with await (in tests, with a deadline), run blocking work through OffPool.run, "
          "and give every suite a .timeLimit", file=sys.stderr)
    sys.exit(1)
print("no blocking calls outside the places that block on purpose; every test suite has a time limit; "
      f"{unchecked} @unchecked Sendable (at most {MAX_UNCHECKED}), each saying why; no lock outside `Locked`")

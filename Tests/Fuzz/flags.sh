#!/usr/bin/env bash
# The build flags of the libFuzzer targets, shared by run.sh and check-instrumented.sh.
#
# - SwiftPM passes `--sanitize=fuzzer --sanitize=address` to swiftc as two `-sanitize=` flags,
#   and swiftc keeps only the last: the targets were built with the address sanitizer alone, no
#   coverage instrumentation, and libFuzzer ran blind (no `cov:`, each corpus shrinking to one
#   input). `-Xswiftc -sanitize=fuzzer,address`, last on the command line, asks for both at once.
# - `--no-gc-sections`: the release link would otherwise drop the coverage counters.
echo -c release --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address --scratch-path .build-fuzz -Xlinker --no-gc-sections

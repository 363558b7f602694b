#!/usr/bin/env bash
# Runs the flag server's tests (already built) with every request they send logged, then checks each
# logged request against the OpenAPI document both ways: a body the document allows is not refused
# as malformed, a body it refuses is answered 4xx.
#
# ReplicaRestartTests (PostgreSQL stopped and started under running replicas) runs on its own,
# after the rest: run beside the whole suite it hung in 2 of 4 runs on 2 cores (it passes alone
# in about 2 seconds). One cause is fixed (the PostgreSQL it starts kept copies of the test
# process's sockets, see .ci/postgres.sh); what else it meets under the full suite's load is not
# understood yet.
#
# At most FLAG_SERVER_TEST_WIDTH tests (default 16) run at once. Unbounded, Swift Testing starts all
# 700 at once, each with a server of its own; on a loaded 2-core machine a test's first write then
# waited out the test server's 120 s write timeout (503 in CI, twice). Bounded at 16 the suite ran
# in 276 s here, against about 300 s unbounded.
#
# A run that has not ended after FLAG_SERVER_TEST_LIMIT seconds (default 900) is stopped and the
# tests that started but never finished are named, so a hang fails CI with its culprit instead
# of running into CI's own time limit.
set -euo pipefail
cd "$(dirname "$0")/.."
log="$(mktemp)"
output="$(mktemp)"
trap 'rm -f "$log" "$output"' EXIT

# Runs `swift test` for the server with ARGS, under the time limit.
run_server_tests() {
    local status=0
    # Line-buffered (stdbuf), so that what a stopped run printed reaches the file.
    FLAG_SERVER_REQUEST_LOG="$log" SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${FLAG_SERVER_TEST_WIDTH:-16}" timeout -k 15 "${FLAG_SERVER_TEST_LIMIT:-900}" stdbuf -oL -eL \
        swift test --skip-build --package-path Server --verbose "$@" > "$output" 2>&1 || status=$?
    # --verbose adds a "started" line per test: kept for the check below, left out of CI's output.
    grep -v -E '^◇ Test .* started\.$' "$output" || true
    if [[ $status -eq 124 || $status -eq 137 ]]; then
        echo "The server's tests did not end within ${FLAG_SERVER_TEST_LIMIT:-900} s. Started and not finished:" >&2
        python3 - "$output" >&2 <<'PYTHON'
import re, sys
started, ended = [], set()
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    line = line.rstrip("\n")
    if m := re.match(r"^◇ Test (.+) started\.$", line):
        started.append(m.group(1))
    elif m := re.match(r"^[✔✘] Test (.+?)( with \d+ test cases?)? (passed|failed)\b", line):
        ended.add(m.group(1))
for name in started:
    if name not in ended and name != "run":
        print(f"  {name}")
PYTHON
    fi
    return "$status"
}

run_server_tests --skip ReplicaRestartTests
run_server_tests --filter ReplicaRestartTests
python3 Server/scripts/tools/validate_responses.py --requests Server/Sources/FlagServer/Resources/openapi.json "$log"

#!/usr/bin/env bash
# Runs schemathesis against a real flag-server and the OpenAPI document it serves, bounded (fixed
# seed, a few examples per operation), and fails on any failing check not listed, with its
# reason, in schemathesis-expected-failures.txt. Prints `N passed, N failed` at its end.
#
#   Server/scripts/tools/schemathesis.sh [MAX_EXAMPLES]      (default 10; needs `pip install schemathesis`)
#
# The server is the built `flag-server` (swift build --package-path Server; FLAG_SERVER_BINARY to
# name another), started on loopback with a temporary SQLite directory and no rate limit, and
# stopped at the end. Two passes: the admin API with the first admin token (every environment),
# then delivery with a production server token (delivery needs a token of one environment).
#
# A request gets 30 s: on a 2-core machine busy with builds beside it, one request of a run took
# longer than the 10 s this used to allow and counted as a network error (CI, 2026-12-08). This
# checks the document, not speed; the bench scripts measure latency.
set -euo pipefail
cd "$(dirname "$0")/../.."
examples="${1:-10}"
seed="${SCHEMATHESIS_SEED:-20}"
binary="${FLAG_SERVER_BINARY:-$(swift build --show-bin-path)/flag-server}"
work="$(mktemp -d)"
server_pid=""
stop() {
    if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap stop EXIT

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
"$binary" serve --host 127.0.0.1 --port "$port" --data-directory "$work/data" --rate-limit-per-second 0 \
    --log-level error > "$work/server.log" 2>&1 &
server_pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 1 100); do
    curl -fsS "$base/health" > /dev/null 2>&1 && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
    sleep 0.1  # on purpose: waiting for the server to listen
done
admin="$(grep -o 'ffs_[0-9a-f]*_[0-9a-f]*' "$work/server.log" | head -1)"
[[ -n "$admin" ]] || { echo "the server printed no admin token" >&2; cat "$work/server.log" >&2; exit 1; }
delivery="$(curl -fsS -X POST "$base/admin/v1/tokens" -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
    -d '{"name": "schemathesis", "environment": "production", "role": "server"}' | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')"

run() {  # run NAME TOKEN PATH-REGEX (in the temporary directory, where schemathesis keeps its cache)
    (cd "$work" && schemathesis run "$base/openapi.json" --checks all --phases examples,coverage,fuzzing \
        --max-examples "$examples" --seed "$seed" --workers 1 --request-timeout 30 --no-color \
        --generation-database none --suppress-health-check all \
        --header "Authorization: Bearer $2" --include-path-regex "$3" \
        --report json --report-json-path "$work/$1.json") > "$work/$1.log" 2>&1 || true
    [[ -s "$work/$1.json" ]] || { echo "schemathesis ($1) wrote no report:" >&2; cat "$work/$1.log" >&2; exit 1; }
}
run admin "$admin" '^/admin/'
run delivery "$delivery" '^/(ofrep|rpc|flagd|health|metrics|openapi)'
status=0
python3 scripts/tools/schemathesis_report.py scripts/tools/schemathesis-expected-failures.txt "$work/admin.json" "$work/delivery.json" || status=$?
if [[ $status -ne 0 ]]; then
    # What schemathesis said about each failure and error (the cases to reproduce them).
    for pass in admin delivery; do echo "== schemathesis output ($pass)"; cat "$work/$pass.log"; done
fi
exit "$status"

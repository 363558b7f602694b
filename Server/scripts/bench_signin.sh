#!/usr/bin/env bash
# Delivery throughput while console sign-ins are hammered, beside the same delivery idle, in one run.
#
#   scripts/bench_signin.sh [SECONDS_PER_RUN] [CONNECTIONS] [SIGN_IN_CONNECTIONS]   # defaults: 10 s, 8, 32
#
# Starts flag-server-bench (release by default; BENCH_CONFIGURATION=debug uses the debug build
# `swift build --build-tests` made) with sign-in limits off (`--unlimited-sign-ins`), so that every
# wrong sign-in reaches bcrypt and the password pool stays saturated: the worst case for delivery.
# Then, with wrk (1 thread each):
#   1. OFREP bulk evaluation of the benchmark's flags, alone;
#   2. the same, while a second wrk sends wrong sign-ins (POST /console/login) on
#      SIGN_IN_CONNECTIONS connections for the whole run;
# and prints both throughputs and p99s, the ratio, and how the sign-ins were answered (checked by
# bcrypt, or refused 503 at once because the pool and its queue were full).
# Bounded: two runs of SECONDS_PER_RUN each, the server stopped on exit.
# Needs wrk, curl and python3 (Debian: apt-get install -y wrk curl).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
connections="${2:-8}"
sign_in_connections="${3:-32}"
configuration="${BENCH_CONFIGURATION:-release}"

if [[ "$configuration" == release ]]; then
    echo "Building flag-server-bench (release)…" >&2
    swift build -c release --product flag-server-bench >&2
fi
binary="$(swift build -c "$configuration" --show-bin-path)/flag-server-bench"
[[ -x "$binary" ]] || { echo "no $binary: build it first" >&2; exit 1; }

server_pid=""
stop_server() {
    if [[ -n "$server_pid" ]]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
}
trap stop_server EXIT

output="$(mktemp)"
"$binary" --flags 100 --unlimited-sign-ins >"$output" &
server_pid=$!
for _ in $(seq 1 600); do
    [[ -s "$output" ]] && break
    kill -0 "$server_pid" 2>/dev/null || { echo "flag-server-bench exited" >&2; exit 1; }
    sleep 0.1  # on purpose: waiting for the server to print its port
done
line="$(head -n 1 "$output")"
rm -f "$output"
port="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["port"])' "$line")"
token="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["token"])' "$line")"
lua="$(pwd)/scripts/wrk/post.lua"
sign_in_lua="$(mktemp --suffix=.lua)"
trap 'stop_server; rm -f "$sign_in_lua"' EXIT
cat >"$sign_in_lua" <<'LUA'
-- A wrong sign-in: the login form's CSRF check only compares the cookie with the field.
wrk.method = "POST"
wrk.body = "_csrf=bench&name=admin&password=wrong-password-guess"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Cookie"] = "flag_console_login=bench"
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) checked = 0; busy = 0; limited = 0; other = 0 end
function response(status, headers, body)
    if status == 401 then checked = checked + 1
    elseif status == 503 then busy = busy + 1
    elseif status == 429 then limited = limited + 1
    else other = other + 1 end
end
function done(summary, latency, requests)
    local c, b, l, o = 0, 0, 0, 0
    for _, thread in ipairs(threads) do
        c = c + thread:get("checked"); b = b + thread:get("busy"); l = l + thread:get("limited"); o = o + thread:get("other")
    end
    io.write(string.format("sign-in statuses: %d checked by bcrypt (401), %d refused at once (503), %d limited (429), %d other\n", c, b, l, o))
end
LUA

# Runs wrk against the bulk route; prints "requests_per_second p99_ms".
measure() {
    local text
    text="$(BENCH_TOKEN="$token" wrk -t1 -c"$connections" -d"${seconds}s" --latency -s "$lua" \
        "http://127.0.0.1:$port/ofrep/v1/evaluate/flags")"
    python3 - "$text" <<'PY'
import re, sys
text = sys.argv[1]
rate = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
value, unit = re.search(r"\n\s+99%\s+([\d.]+)(us|ms|s)\b", text).groups()
print(rate, float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit])
PY
}

# Two rounds of (idle, hammered), so that a drift of the shared machine shows.
results=()
for round in 1 2; do
    read -r idle idle_p99 < <(measure)
    sign_in_log="$(mktemp)"
    wrk -t1 -c"$sign_in_connections" -d"$((seconds + 2))s" -s "$sign_in_lua" "http://127.0.0.1:$port/console/login" >"$sign_in_log" &
    hammer=$!
    sleep 1  # on purpose: let the sign-ins saturate the password pool before measuring
    read -r busy busy_p99 < <(measure)
    wait "$hammer"
    statuses="$(grep '^sign-in statuses:' "$sign_in_log" | sed 's/^sign-in statuses: //' || true)"
    sign_in_rate="$(grep 'Requests/sec' "$sign_in_log" | awk '{print $2}')"
    rm -f "$sign_in_log"
    python3 - "$round" "$idle" "$idle_p99" "$busy" "$busy_p99" "$sign_in_rate" "$statuses" <<'PY'
import sys
round, (idle, idle_p99, busy, busy_p99) = sys.argv[1], map(float, sys.argv[2:6])
print(f"round {round}: bulk evaluation idle      {idle:9.1f} requests/s  p99 {idle_p99:8.2f} ms")
print(f"round {round}: bulk evaluation hammered  {busy:9.1f} requests/s  p99 {busy_p99:8.2f} ms  kept {100 * busy / idle:5.1f} %")
print(f"round {round}: sign-ins answered         {float(sys.argv[6] or 0):9.1f} /s: {sys.argv[7]}")
PY
done

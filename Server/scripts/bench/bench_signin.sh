#!/usr/bin/env bash
# Delivery throughput while console sign-ins are hammered, beside the same delivery idle, in one run.
#
#   scripts/bench/bench_signin.sh [SECONDS_PER_RUN] [CONNECTIONS] [SIGN_INS_PER_SECOND]   # defaults: 10 s, 8, 100
#
# Starts flag-server-bench (release by default; BENCH_CONFIGURATION=debug uses the debug build
# `swift build --build-tests` made) with sign-in limits off (`--unlimited-sign-ins`), so that every
# wrong sign-in reaches bcrypt and the password pool stays saturated: the worst case for delivery.
# Then, with wrk (1 thread each):
#   1. OFREP bulk evaluation of the benchmark's flags, alone;
#   2. the same, while wrong sign-ins (POST /console/login) arrive at SIGN_INS_PER_SECOND for the
#      whole run (16 client threads, paced; the pool checks a few per second at bcrypt cost 12,
#      so 100/s is far past what it can take: most are refused 503 at once);
# and prints both throughputs and p99s, the ratio, and how the sign-ins were answered (checked by
# bcrypt, or refused 503 at once because the pool and its queue were full).
# Bounded: two runs of SECONDS_PER_RUN each, the server stopped on exit.
# Needs wrk, curl and python3 (Debian: apt-get install -y wrk curl).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-10}"
connections="${2:-8}"
sign_ins_per_second="${3:-100}"
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
lua="$(pwd)/scripts/bench/wrk/post.lua"
hammer="$(mktemp --suffix=.py)"
trap 'stop_server; rm -f "$hammer"' EXIT
cat >"$hammer" <<'PY'
# Wrong sign-ins at a fixed rate for a fixed time, from 16 threads; prints how they were answered.
import collections, http.client, sys, threading, time
port, rate, seconds = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
body = "_csrf=bench&name=admin&password=wrong-password-guess"
headers = {"Content-Type": "application/x-www-form-urlencoded", "Cookie": "flag_console_login=bench"}
counts, lock, threads = collections.Counter(), threading.Lock(), 16
def run(index):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    interval, start = threads / rate, time.monotonic() + index / rate
    sent = 0
    while time.monotonic() < start + seconds:
        next_at = start + sent * interval
        if next_at > time.monotonic(): time.sleep(next_at - time.monotonic())  # on purpose: pacing
        sent += 1
        try:
            connection.request("POST", "/console/login", body=body, headers=headers)
            response = connection.getresponse(); response.read(); status = response.status
        except Exception:
            connection.close(); connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30); status = "error"
        with lock: counts[status] += 1
workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
for worker in workers: worker.start()
for worker in workers: worker.join()
total = sum(counts.values())
print(f"{total / seconds:.1f} {counts[401]} checked by bcrypt (401), {counts[503]} refused at once (503), "
      f"{counts[429]} limited (429), {total - counts[401] - counts[503] - counts[429]} other")
PY

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
    python3 "$hammer" "$port" "$sign_ins_per_second" "$((seconds + 2))" >"$sign_in_log" &
    hammering=$!
    sleep 1  # on purpose: let the sign-ins fill the password pool before measuring
    read -r busy busy_p99 < <(measure)
    wait "$hammering"
    read -r sign_in_rate statuses <"$sign_in_log"
    rm -f "$sign_in_log"
    python3 - "$round" "$idle" "$idle_p99" "$busy" "$busy_p99" "$sign_in_rate" "$statuses" <<'PY'
import sys
round, (idle, idle_p99, busy, busy_p99) = sys.argv[1], map(float, sys.argv[2:6])
print(f"round {round}: bulk evaluation idle      {idle:9.1f} requests/s  p99 {idle_p99:8.2f} ms")
print(f"round {round}: bulk evaluation hammered  {busy:9.1f} requests/s  p99 {busy_p99:8.2f} ms  kept {100 * busy / idle:5.1f} %")
print(f"round {round}: sign-ins answered         {float(sys.argv[6] or 0):9.1f} /s: {sys.argv[7]}")
PY
done

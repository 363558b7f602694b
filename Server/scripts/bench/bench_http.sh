#!/usr/bin/env bash
# HTTP benchmarks of the flag server's delivery routes with wrk, each beside a route of the same
# server answering a fixed pre-encoded body (the stack's limit), in the same run.
#
#   scripts/bench/bench_http.sh [SECONDS_PER_RUN] [CONNECTIONS]      # defaults: 10 s, 16 connections
#
# Builds flag-server-bench in release (the server in a benchmark-only configuration: in-memory
# store in a temporary directory, no rate limit, the fixed-body routes), then measures with wrk (1 thread, --latency):
#   - OFREP single evaluation of a targeted flag     beside POST /bench/fixed-single (same bytes)
#   - OFREP bulk evaluation of 1,000 flags           beside POST /bench/fixed-bulk (same bytes)
#   - bulk evaluation answered 304 (If-None-Match)   beside POST /bench/fixed-single
# and prints throughput and p99 for each, with the percentage of its fixed-body route. Then it
# loads 10,000 flags, serves bulk requests and prints the server's resident memory (VmRSS, VmHWM).
# Needs wrk and curl (Debian: apt-get install -y wrk curl).
set -euo pipefail
cd "$(dirname "$0")/../.."
server_dir="$(pwd)"
root_dir="$(cd .. && pwd)"
seconds="${1:-10}"
connections="${2:-16}"

# SwiftPM names a path dependency after its folder: when the repository sits in a folder named
# "server" (like this package's), the identities collide, so build from a copy then.
package_dir="$server_dir"
if [[ "$(basename "$root_dir" | tr '[:upper:]' '[:lower:]')" == "server" ]]; then
    copy="$server_dir/.build/root-copy/swift-feature-flags"
    mkdir -p "$copy"
    (cd "$root_dir" && tar --exclude=.build --exclude=.git -cf - .) | (cd "$copy" && tar -xf -)
    package_dir="$copy/Server"
fi
echo "Building flag-server-bench (release)…" >&2
swift build -c release --package-path "$package_dir" --product flag-server-bench >&2
binary="$(swift build -c release --package-path "$package_dir" --show-bin-path)/flag-server-bench"

server_pid=""
stop_server() {
    if [[ -n "$server_pid" ]]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
    fi
}
trap stop_server EXIT

# Starts the benchmark server with $1 flags; sets server_pid, port and token.
start_server() {
    local output
    output="$(mktemp)"
    "$binary" --flags "$1" >"$output" &
    server_pid=$!
    for _ in $(seq 1 600); do
        [[ -s "$output" ]] && break
        kill -0 "$server_pid" 2>/dev/null || { echo "flag-server-bench exited" >&2; exit 1; }
        sleep 0.1
    done
    local line
    line="$(head -n 1 "$output")"
    port="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["port"])' "$line")"
    token="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["token"])' "$line")"
    rm -f "$output"
}

context='{"context": {"targetingKey": "user-42", "email": "ann@example.com", "plan": "premium"}}'
lua="$server_dir/scripts/bench/wrk/post.lua"

# Runs wrk on path $1 (with BENCH_ETAG=$2 when given); prints "requests_per_second p99_ms".
measure() {
    local path="$1" etag="${2:-}" output
    output="$(BENCH_TOKEN="$token" BENCH_ETAG="$etag" wrk -t1 -c"$connections" -d"${seconds}s" --latency -s "$lua" \
        "http://127.0.0.1:$port$path")"
    if grep -q "Non-2xx or 3xx responses" <<<"$output"; then
        echo "wrk: $path answered errors:" >&2
        echo "$output" >&2
        exit 1
    fi
    python3 - "$output" <<'PY'
import re, sys
text = sys.argv[1]
rate = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
value, unit = re.search(r"\n\s+99%\s+([\d.]+)(us|ms|s)\b", text).groups()
p99 = float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
print(f"{rate:.0f} {p99:.3f}")
PY
}

# Prints one table row: the route, its figures, and its percentage of the fixed-body route.
row() {
    local name="$1" real="$2" fixed="$3"
    python3 - "$name" "$real" "$fixed" <<'PY'
import sys
name, real, fixed = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
rate, p99, base_rate, base_p99 = float(real[0]), float(real[1]), float(fixed[0]), float(fixed[1])
print(f"{name:<34} {rate:>10.0f} req/s  p99 {p99:>7.2f} ms   fixed body {base_rate:>8.0f} req/s  p99 {base_p99:>6.2f} ms   {100 * rate / base_rate:>5.1f} %")
PY
}

start_server 1000
curl -sf -o /dev/null -X POST -H "Authorization: Bearer $token" -H "Content-Type: application/json" -d "$context" \
    "http://127.0.0.1:$port/ofrep/v1/evaluate/flags/checkout"
etag="$(curl -sf -D - -o /dev/null -X POST -H "Authorization: Bearer $token" -H "Content-Type: application/json" \
    -d "$context" "http://127.0.0.1:$port/ofrep/v1/evaluate/flags" | tr -d '\r' | awk -F': ' 'tolower($1) == "etag" { print $2 }')"
bulk_bytes="$(curl -sf -X POST -H "Authorization: Bearer $token" -H "Content-Type: application/json" -d "$context" \
    "http://127.0.0.1:$port/ofrep/v1/evaluate/flags" | wc -c)"

echo "wrk: 1 thread, $connections connections, ${seconds} s per run; $(nproc) cores; bulk body $bulk_bytes bytes"
measure /bench/fixed-single >/dev/null  # warm up
fixed_single="$(measure /bench/fixed-single)"
single="$(measure /ofrep/v1/evaluate/flags/checkout)"
fixed_bulk="$(measure /bench/fixed-bulk)"
bulk="$(measure /ofrep/v1/evaluate/flags)"
fixed_again="$(measure /bench/fixed-single)"
not_modified="$(measure /ofrep/v1/evaluate/flags "$etag")"
row "OFREP single (targeted flag)" "$single" "$fixed_single"
row "OFREP bulk (1,000 flags)" "$bulk" "$fixed_bulk"
row "OFREP bulk 304 (If-None-Match)" "$not_modified" "$fixed_again"
stop_server

start_server 10000
BENCH_TOKEN="$token" wrk -t1 -c"$connections" -d"${seconds}s" -s "$lua" "http://127.0.0.1:$port/ofrep/v1/evaluate/flags" >/dev/null
rss="$(awk '/^VmRSS/ { print $2 }' "/proc/$server_pid/status")"
hwm="$(awk '/^VmHWM/ { print $2 }' "/proc/$server_pid/status")"
echo "resident memory with 10,000 flags after ${seconds} s of bulk requests: $((rss / 1024)) MB (peak $((hwm / 1024)) MB)"

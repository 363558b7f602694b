#!/usr/bin/env bash
# Two or more flag-server builds side by side on the cheapest routes, where a per-request cost
# shows most: wrk (1 thread, 16 connections, 6 s each) on GET /health/live and on an empty-context
# bulk evaluation, each build on a fresh server (SQLite in a temporary directory, rate limit off),
# in alternating rounds so that the machine's drift falls on every build alike.
#
#   Server/scripts/bench/bench_builds.sh OLD_BINARY NEW_BINARY [MORE…]
#   BENCH_ROUNDS=3 Server/scripts/bench/bench_builds.sh …
#
# Prints one line per build and round: requests a second on each route. Needs wrk, curl, python3.
set -euo pipefail
(( $# >= 2 )) || { sed -n 2,9p "$0"; exit 2; }
rounds="${BENCH_ROUNDS:-2}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for round in $(seq "$rounds"); do
    for binary in "$@"; do
        directory="$(mktemp -d "$work/server.XXXX")"
        "$binary" serve --port 0 --data-directory "$directory" --rate-limit-per-second 0 > "$directory/log" 2>&1 &
        server=$!
        for _ in $(seq 600); do grep -q "listening on" "$directory/log" && break; sleep 0.1; done
        port="$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$directory/log" | head -1 | grep -o '[0-9]*$')"
        admin="$(grep -o 'ffs_[A-Za-z0-9_-]*' "$directory/log" | head -1)"
        client="$(curl -sf -X POST -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
            -d '{"name":"bench","environment":"production","role":"client"}' "http://127.0.0.1:$port/admin/v1/tokens" |
            python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')"
        cat > "$directory/bulk.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"context":{"targetingKey":"user-1"}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $client"
LUA
        health="$(wrk -t1 -c16 -d6s "http://127.0.0.1:$port/health/live" | awk '/Requests\/sec/ {print $2}')"
        bulk="$(wrk -t1 -c16 -d6s -s "$directory/bulk.lua" "http://127.0.0.1:$port/ofrep/v1/evaluate/flags" |
            awk '/Requests\/sec/ {print $2} /Non-2xx/ {print "non-2xx:", $NF}' | paste -sd' ')"
        echo "round $round  $binary  GET /health/live: $health/s  bulk: $bulk/s"
        kill "$server"
        wait "$server" 2>/dev/null || true
    done
done

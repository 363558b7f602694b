#!/usr/bin/env bash
# Events stored per second with one caller and with eight at once, each honouring Retry-After.
#
#   Server/scripts/bench/bench_ingest_callers.sh          # builds flag-server in release first
#   FLAG_SERVER_BENCH_CONFIGURATION=debug Server/scripts/bench/bench_ingest_callers.sh   # the debug build
#   FLAG_SERVER_BENCH_BINARY=path/to/flag-server Server/scripts/bench/bench_ingest_callers.sh
#
# Starts `flag-server serve` (SQLite stores in a temporary directory, no rate limit) and runs
# scripts/bench/bench_ingest_callers.py (Python 3, standard library only): FLAG_SERVER_BENCH_CALLERS
# ("1,8") processes posting batches of 500 events back to back for FLAG_SERVER_BENCH_SECONDS (20),
# waiting out every Retry-After; printed per caller count: events stored per second and its ratio to
# one caller's in the same run. Figures and their reading: Docs/Scale.md, "Ingestion with many
# callers".
set -euo pipefail
cd "$(dirname "$0")/../../.."

binary="${FLAG_SERVER_BENCH_BINARY:-}"
if [ -z "$binary" ]; then
    configuration="${FLAG_SERVER_BENCH_CONFIGURATION:-release}"
    swift build -c "$configuration" --package-path Server --product flag-server >&2
    binary="Server/.build/$configuration/flag-server"
fi
exec python3 Server/scripts/bench/bench_ingest_callers.py "$binary"

#!/usr/bin/env bash
# Admin write costs at 100, 1,000, 10,000 and 50,000 flags (or the counts given), each beside
# in-run baselines: settings-write latency (p50, p99), import time and peak resident memory,
# beside GET /health over the same HTTP stack and a bare one-row SQLite transaction.
#
#   scripts/bench/bench_writes.sh [COUNTS...]                      # SQLite
#   BENCH_WRITES_DATABASE_URL=postgres://… \
#   BENCH_WRITES_RESET_DATABASE='psql … -c "DROP SCHEMA public CASCADE; CREATE SCHEMA public"' \
#       scripts/bench/bench_writes.sh [COUNTS...]                  # PostgreSQL, emptied before each count
#
# Builds flag-server in release and runs scripts/bench/bench_writes.py (Python 3, standard library only).
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "Building flag-server (release)…" >&2
swift build -c release --product flag-server >&2
binary="$(swift build -c release --show-bin-path)/flag-server"
arguments=("$binary" "$@")
if [[ -n "${BENCH_WRITES_DATABASE_URL:-}" ]]; then
    arguments+=(--database-url "$BENCH_WRITES_DATABASE_URL")
fi
exec python3 scripts/bench/bench_writes.py "${arguments[@]}"

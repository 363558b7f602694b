#!/usr/bin/env bash
# Delivery while ingesting events, and the server's resident memory under a sustained ingest.
#
#   Server/scripts/bench/bench_ingest_delivery.sh          # builds flag-server in release first
#   FLAG_SERVER_BENCH_CONFIGURATION=debug Server/scripts/bench/bench_ingest_delivery.sh   # the debug build
#
# Starts `flag-server serve` (SQLite flag and event stores in a temporary directory, no rate
# limit), creates 20 flags and a client token, and runs scripts/bench/bench_ingest_delivery.py (Python 3,
# standard library only): OFREP bulk throughput with wrk idle, beside GET /health (the in-run
# baseline); then the same while processes post batches of 500 events at each offered rate
# (FLAG_SERVER_BENCH_RATES, default "20000,50000,max" events/s), with the events stored per second,
# the 503s (shed) and the per-request latency; then VmRSS sampled every second during a sustained
# ingest (FLAG_SERVER_BENCH_SUSTAIN_SECONDS, default 90); then a flood (4 x 64 connections posting
# back to back, FLAG_SERVER_BENCH_FLOOD, default "max@64") past the queue's bound, so that requests
# are shed. The load generator runs on the same machine as the server and wrk: read the figures
# beside the baseline of the same run, and note the machine's load average (printed).
# Needs wrk (apt-get install -y wrk). Figures and their reading: Docs/Scale.md, "Delivery while
# ingesting".
set -euo pipefail
cd "$(dirname "$0")/../../.."

command -v wrk > /dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 1; }
configuration="${FLAG_SERVER_BENCH_CONFIGURATION:-release}"
swift build -c "$configuration" --package-path Server --product flag-server >&2
exec python3 Server/scripts/bench/bench_ingest_delivery.py "Server/.build/$configuration/flag-server"

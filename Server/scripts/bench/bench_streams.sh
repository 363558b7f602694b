#!/usr/bin/env bash
# Event streams at scale, on one server: resident memory per idle stream at several counts
# (beside an in-run baseline: the idle server, and the same load generator holding idle
# keep-alive connections to a fixed-body route), the delay from a write to the event at every
# client (p50/p99/max), the server's CPU with every stream idle, and what happens past the
# descriptor limit (refusals counted, open streams still served, no crash).
#
#   Server/scripts/bench/bench_streams.sh          # builds flag-server in release first
#   FLAG_SERVER_BENCH_CONFIGURATION=debug Server/scripts/bench/bench_streams.sh
#   FLAG_SERVER_BENCH_STREAMS=1000,10000 Server/scripts/bench/bench_streams.sh
#   FLAG_SERVER_BENCH_BINARY=path/to/flag-server FLAG_SERVER_BENCH_PARTS=burst Server/scripts/bench/bench_streams.sh
#
# First, on a fresh server, bursts of streams opening at once (FLAG_SERVER_BENCH_BURSTS, default
# 2,000 and 5,000): OFREP bulk throughput (wrk) during each burst as a share of idle, and resident
# memory before the burst, with it open (per stream), and after it closed.
#
# The stream counts default to 1,000, 5,000, 10,000, 50,000 and 100,000, as far as the
# descriptor hard limit allows (server and load generator both need one descriptor per
# connection; the load generator spreads its connections over worker processes and over
# loopback source addresses 127.x.y.z, so the ephemeral port range does not limit it). Raise the
# hard limit (`ulimit -Hn`, as root or through the container runtime) to go further. Needs only
# python3. Figures on a shared machine drift: read them beside the baseline printed in the run.
set -euo pipefail
cd "$(dirname "$0")/../../.."

binary="${FLAG_SERVER_BENCH_BINARY:-}"
if [ -z "$binary" ]; then
    configuration="${FLAG_SERVER_BENCH_CONFIGURATION:-release}"
    swift build -c "$configuration" --package-path Server --product flag-server
    binary="Server/.build/$configuration/flag-server"
fi
python3 Server/scripts/bench/bench_streams.py "$binary"

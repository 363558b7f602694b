#!/usr/bin/env bash
# Relays, measured: a chain of two relays (server -> relay 1 -> relay 2), the delay from a
# change on the server to the event at a client of relay 2 (p50/p99 over 100 changes) beside the
# same delay at a client of the server itself (the in-run baseline); then the resident memory of
# the server and of each relay with 10,000 flags (and before, with one).
#
#   Server/scripts/bench/bench_relay.sh            # builds flag-server in release first
#   FLAG_SERVER_BENCH_CONFIGURATION=debug Server/scripts/bench/bench_relay.sh
#   FLAG_SERVER_BENCH_CHANGES=100 FLAG_SERVER_BENCH_FLAGS=10000 (the defaults)
#
# SQLite in a temporary directory; everything on loopback. Figures on a shared machine drift:
# read them beside the baseline printed in the same run.
set -euo pipefail
cd "$(dirname "$0")/../../.."
configuration="${FLAG_SERVER_BENCH_CONFIGURATION:-release}"
swift build -c "$configuration" --package-path Server --product flag-server
python3 Server/scripts/bench/bench_relay.py "Server/.build/$configuration/flag-server"

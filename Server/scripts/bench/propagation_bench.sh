#!/usr/bin/env bash
# Replicas over PostgreSQL, measured: propagation delay (200 changes, A -> SSE on B), OFREP bulk
# throughput of one replica and of two (wrk), and the recovery after a PostgreSQL restart.
#
#   Server/scripts/bench/propagation_bench.sh          # builds flag-server in release first
#   FLAG_SERVER_BENCH_CONFIGURATION=debug Server/scripts/bench/propagation_bench.sh   # the debug build
#
# Needs PostgreSQL (Debian's package; .ci/postgres.sh starts one on 127.0.0.1:55432) and wrk
# (apt-get install -y wrk). Each run uses a fresh schema. Figures on a shared machine drift: read
# them beside the baseline printed in the same run.
set -euo pipefail
cd "$(dirname "$0")/../../.."

command -v wrk > /dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 1; }
.ci/postgres.sh status > /dev/null 2>&1 || .ci/postgres.sh start
configuration="${FLAG_SERVER_BENCH_CONFIGURATION:-release}"
swift build -c "$configuration" --package-path Server --product flag-server
schema="bench_$(date +%s)"
python3 Server/scripts/bench/propagation_bench.py \
    "Server/.build/$configuration/flag-server" "$(.ci/postgres.sh url)&schema=$schema" "$PWD/.ci/postgres.sh"

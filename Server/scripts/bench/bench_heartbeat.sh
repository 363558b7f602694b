#!/usr/bin/env bash
# A frozen notification connection, measured: two replicas over PostgreSQL; the listening
# backends are stopped with SIGSTOP (the TCP connections stay open, nothing arrives), a change is
# written on replica A at once, and the script times when replica B reports not ready, when its
# event stream announces the change (the repair: new connection, catch-up), and when it is ready
# again. Ten rounds by default (FLAG_SERVER_BENCH_ROUNDS).
#
#   Server/scripts/bench/bench_heartbeat.sh            # builds flag-server in release first
#   FLAG_SERVER_BENCH_CONFIGURATION=debug Server/scripts/bench/bench_heartbeat.sh
#
# Needs PostgreSQL (.ci/postgres.sh) and permission to signal its backends (the same user, or root).
set -euo pipefail
cd "$(dirname "$0")/../../.."
.ci/postgres.sh status > /dev/null 2>&1 || .ci/postgres.sh start
configuration="${FLAG_SERVER_BENCH_CONFIGURATION:-release}"
swift build -c "$configuration" --package-path Server --product flag-server
schema="heartbeat_$(date +%s)"
python3 Server/scripts/bench/bench_heartbeat.py \
    "Server/.build/$configuration/flag-server" "$(.ci/postgres.sh url)" "$schema"

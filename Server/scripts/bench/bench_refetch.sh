#!/usr/bin/env bash
# Refetch after a change: N clients with open event streams, one admin write, and how they all
# converge, beside the behaviour before (no spread, everybody refetches at once) in the same run.
#
#   Server/scripts/bench/bench_refetch.sh [COUNTS] [MODES]    # defaults: 1000,10000  old,inline,spread
#   BENCH_CONFIGURATION=debug Server/scripts/bench/bench_refetch.sh 1000   # the debug build
#   BENCH_REFETCHES_PER_SECOND=1000 …   # the server's --refetches-per-second in the new runs (5000)
#
# Per count and mode, a fresh flag-server (SQLite in a temporary directory, rate limit off, caps
# raised to the count) with 45 untargeted and 5 targeted flags; see bench_refetch.py for what each
# mode does and what is printed. More than ~15,000 streams need more descriptors than the
# default: the script raises its own limit (and so the server's and the clients') to
# 4 × the largest count when the hard limit allows (raise that first where permitted:
# `ulimit -Hn`, `prlimit`; a container may refuse it even to root), and clients use
# loopback source addresses 127.0.0.2… (20,000 each) so the ephemeral ports suffice.
# Needs python3. Figures on a shared machine drift: read them beside the baseline of the run.
set -euo pipefail
cd "$(dirname "$0")/../../.."
counts="${1:-1000,10000}"
modes="${2:-old,inline,spread}"
configuration="${BENCH_CONFIGURATION:-release}"
if [[ "$configuration" == release ]]; then
    echo "Building flag-server (release)…" >&2
    swift build -c release --package-path Server --product flag-server >&2
fi
binary="$(swift build -c "$configuration" --package-path Server --show-bin-path)/flag-server"
[[ -x "$binary" ]] || { echo "no $binary: build it first" >&2; exit 1; }
largest=$(tr ',' '\n' <<< "$counts" | sort -n | tail -1)
wanted=$((4 * largest + 10000))
if (( $(ulimit -n) < wanted )); then
    ulimit -Hn "$wanted" 2> /dev/null || true
    ulimit -n "$wanted" 2> /dev/null || echo "could not raise the descriptor limit to $wanted (it is $(ulimit -n))" >&2
fi
python3 Server/scripts/bench/bench_refetch.py "$binary" "$counts" "$modes"

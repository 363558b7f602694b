#!/usr/bin/env bash
# Builds the fuzz targets (libFuzzer + AddressSanitizer) and runs them on the seed corpus.
#
#   ./run.sh TARGET SECONDS        # one target, e.g. ./run.sh json 600
#   ./run.sh all SECONDS           # every target, SECONDS each
#   ./run.sh smoke                 # CI: every target for 20 seconds (FUZZ_SMOKE_SECONDS), debug build, seed 1
#   FUZZ_TIMEOUT=120 nice -n 19 ./run.sh all 3600   # long runs on a shared machine
#   ./run.sh list                  # the target names (the server ones build a second binary)
#
# Exits non-zero when any target crashes, times out on an input, runs out of memory, leaks or
# breaks an invariant. Crashing inputs are saved under Fuzz/crashes/<target>/ (git-ignored);
# reproduce one with ./run.sh TARGET crashes/<target>/<file>. Logs go to .build/fuzz-logs/.
set -euo pipefail
cd "$(dirname "$0")"
fuzz_dir="$(pwd)"
root_dir="$(cd .. && pwd)"

library_targets=(json definitions jsonlogic remote manifest launch store snapshot)
# The flag server's request decoders: a second executable (FlagServerFuzzer), so the library
# targets never build Hummingbird, NIO or SQLite.
server_targets=(admin ofrep import)
targets=("${library_targets[@]}" "${server_targets[@]}")
is_server_target() { [[ " ${server_targets[*]} " == *" $1 "* ]]; }

# Longest input per target: big enough for the seed files that matter, small enough to keep
# executions fast.
max_len() {
    case "$1" in
        json | definitions | remote | manifest | store | import) echo 20000 ;;
        jsonlogic | admin | ofrep) echo 4096 ;;
        launch) echo 1024 ;;
        snapshot) echo 256 ;;
    esac
}
# The JSON dictionary helps every target whose input is JSON text.
dictionary() {
    case "$1" in
        snapshot) ;;
        *) echo "-dict=$fuzz_dir/json.dict" ;;
    esac
}

mode="${1:-}"
case "$mode" in
    list) printf '%s\n' "${targets[@]}"; exit 0 ;;
    smoke)
        seconds="${FUZZ_SMOKE_SECONDS:-20}"; selected=("${targets[@]}")
        # A debug build compiles in about half the time (the server's fuzzer builds NIO, BoringSSL
        # and SQLite); twenty seconds need no optimizer. Long runs build in release.
        configuration="${FUZZ_CONFIGURATION:-debug}"
        # A fixed random seed: CI explores the same mutations on every run, so it passes or fails
        # for the code, not for luck; long runs (and FUZZ_SEED=0) draw a new seed each time.
        seed="${FUZZ_SEED:-1}"
        ;;
    all) seconds="${2:?usage: run.sh all SECONDS}"; selected=("${targets[@]}") ;;
    "") sed -n '2,12p' "$0"; exit 2 ;;
    *)
        if [[ ! " ${targets[*]} " == *" $mode "* ]]; then
            echo "Unknown target '$mode'; the targets are: ${targets[*]}." >&2
            exit 2
        fi
        seconds="${2:?usage: run.sh TARGET SECONDS (or a crash file to reproduce)}"
        selected=("$mode")
        ;;
esac

# SwiftPM names a path dependency after its folder: when the repository itself sits in a folder
# named "fuzz" (like this package), the two identities collide, so build from a copy instead.
package_dir="$fuzz_dir"
if [[ "$(basename "$root_dir" | tr '[:upper:]' '[:lower:]')" == "fuzz" ]]; then
    copy="$fuzz_dir/.build/root-copy/swift-feature-flags"
    mkdir -p "$copy/Fuzz"
    # Start from an empty copy (keeping only its build folder), so files renamed or removed in the
    # repository do not linger there and break the build.
    find "$copy" -mindepth 1 -maxdepth 1 ! -name Fuzz -exec rm -rf {} +
    find "$copy/Fuzz" -mindepth 1 -maxdepth 1 ! -name .build -exec rm -rf {} +
    (cd "$root_dir" && tar --exclude=.build --exclude=.git --exclude=Fuzz/crashes -cf - .) | (cd "$copy" && tar -xf -)
    package_dir="$copy/Fuzz"
fi

# The compiler keeps only the last `-sanitize=` flag, and `swift build --sanitize=fuzzer
# --sanitize=address` passes two in no fixed order, which builds either without coverage or
# without AddressSanitizer. So: `--sanitize=fuzzer` (SwiftPM then leaves `main` to libFuzzer),
# then one `-sanitize=fuzzer,address` after it. Both reach every target, so the library's code
# is instrumented, not only the harness; the check below makes sure.
configuration="${configuration:-${FUZZ_CONFIGURATION:-release}}"
build_flags=(--package-path "$package_dir" -c "$configuration" --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address)
# Builds PRODUCT (once) and prints its path.
build() {
    local product="$1"
    echo "Building $product ($configuration, -sanitize=fuzzer,address)…" >&2
    local started=$SECONDS
    # `exit` rather than `set -e`, which does not reach into the `$(build …)` that calls this: a
    # failed build must not leave an older binary to be fuzzed.
    swift build "${build_flags[@]}" --product "$product" >&2 || { echo "Building $product failed." >&2; exit 1; }
    echo "Built $product in $((SECONDS - started)) s." >&2
    local path
    path="$(swift build "${build_flags[@]}" --product "$product" --show-bin-path)/$product"
    local symbols
    symbols="$(nm "$path")"
    if ! grep -q __start___sancov_pcs <<<"$symbols" || ! grep -q __asan_report <<<"$symbols"; then
        echo "The fuzz binary lacks coverage or AddressSanitizer instrumentation: $path" >&2
        exit 1
    fi
    echo "$path"
}
library_binary=""
server_binary=""
for target in "${selected[@]}"; do
    if is_server_target "$target"; then
        [[ -n "$server_binary" ]] || server_binary="$(build FlagServerFuzzer)"
    else
        [[ -n "$library_binary" ]] || library_binary="$(build FeatureFlagsFuzzer)"
    fi
done

python3 "$fuzz_dir/make_seeds.py" "$fuzz_dir/.build/seeds" >&2

export SWIFT_BACKTRACE=enable=no  # the Swift backtracer trips over ASan; libFuzzer prints the stack
# malloc_context_size: the suppressions in lsan.supp match a frame deep in an allocation's stack
# (the server targets' fixture), which the default 30 frames cut off once the rule compiler
# recursed a few levels deeper (a leak "found" in CI that the suppression should have matched).
export ASAN_OPTIONS="detect_leaks=1:malloc_context_size=100:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$fuzz_dir/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"

# Seconds one input may take. libFuzzer measures wall time, so a long run under `nice` on a busy
# machine needs more (FUZZ_TIMEOUT=120): starved of CPU while others build, it reports inputs
# that take milliseconds as timeouts.
timeout="${FUZZ_TIMEOUT:-10}"

mkdir -p "$fuzz_dir/.build/fuzz-logs"
# Targets run side by side, one per core (FUZZ_JOBS; libFuzzer runs one input at a time), and
# their results print in the targets' order once all are done.
jobs="${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}"
binary_for() { if is_server_target "$1"; then echo "$server_binary"; else echo "$library_binary"; fi; }
if [[ -f "$seconds" ]]; then
    # Reproduce a saved input.
    FUZZ_TARGET="${selected[0]}" "$(binary_for "${selected[0]}")" -timeout=10 -rss_limit_mb=2048 "$seconds"
    exit $?
fi
# Runs one target; its log goes to .build/fuzz-logs/TARGET.log, its exit status beside it.
fuzz_target() {
    local target="$1" crashes="$fuzz_dir/crashes/$1" work="$fuzz_dir/.build/corpus/$1"
    local log="$fuzz_dir/.build/fuzz-logs/$1.log" status=0
    mkdir -p "$crashes" "$work"
    # $(dictionary) is deliberately unquoted: it is empty for targets without a dictionary.
    # -reload=0: one process per corpus, so nothing to pick up; rereading a corpus of thousands
    # of files every second took 12-17 % of the time of the slower targets.
    # shellcheck disable=SC2046
    FUZZ_TARGET="$target" "$(binary_for "$target")" "$work" "$fuzz_dir/.build/seeds/$target" \
        -max_total_time="$seconds" -max_len="$(max_len "$target")" $(dictionary "$target") \
        -timeout="$timeout" -rss_limit_mb=2048 -reload=0 -seed="${seed:-${FUZZ_SEED:-0}}" -artifact_prefix="$crashes/" -print_final_stats=1 \
        >"$log" 2>&1 || status=$?
    echo "$status" >"$log.status"
}
running=0
for target in "${selected[@]}"; do
    if [[ $running -ge $jobs ]]; then wait -n || true; running=$((running - 1)); fi
    fuzz_target "$target" &
    running=$((running + 1))
done
wait
failed=()
for target in "${selected[@]}"; do
    log="$fuzz_dir/.build/fuzz-logs/$target.log"
    status="$(cat "$log.status" 2>/dev/null || echo "no status")"
    stats="$(grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" |
        sed 's/^stat:://' | tr -s ' ' | tr '\n' ' ' || true)"
    coverage="$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)"
    if [[ "$status" == 0 ]]; then
        echo "PASS $target (${seconds}s): $stats$coverage"
    else
        echo "FAIL $target (exit $status): $stats$coverage"
        grep -E 'INVARIANT VIOLATED|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|SUMMARY|Test unit written' "$log" | head -20
        echo "  full log: $log"
        failed+=("$target")
    fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "Failed: ${failed[*]}"
    exit 1
fi

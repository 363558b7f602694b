#!/usr/bin/env bash
# Runs the flag server's tests (already built) with every request they send logged, then checks each
# logged request against the OpenAPI document both ways: a body the document allows is not refused
# as malformed, a body it refuses is answered 4xx.
set -euo pipefail
cd "$(dirname "$0")/.."
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
FLAG_SERVER_REQUEST_LOG="$log" swift test --skip-build --package-path Server
python3 Server/scripts/validate_responses.py --requests Server/Sources/FlagServer/Resources/openapi.json "$log"

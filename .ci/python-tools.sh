#!/usr/bin/env bash
# Installs every Python package CI uses, from the one list in .ci/requirements.txt: the lines
# marked `# no-deps` without their dependencies (pip has no per-line option for that), the others
# with theirs. Used by `.ci/run tools` and .ci/browser.sh; run it by hand for the same set.
set -euo pipefail
cd "$(dirname "$0")/.."

pip=(python3 -m pip install --quiet --disable-pip-version-check)
marked='^[^#].*#[[:space:]]*no-deps[[:space:]]*$'
with_dependencies="$(grep -v -e "$marked" .ci/requirements.txt)"
without_dependencies="$(grep -e "$marked" .ci/requirements.txt || true)"
"${pip[@]}" -r /dev/stdin <<<"$with_dependencies"
if [[ -n "$without_dependencies" ]]; then
    "${pip[@]}" --no-deps -r /dev/stdin <<<"$without_dependencies"
fi

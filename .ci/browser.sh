#!/usr/bin/env bash
# Browser tests of the flag server's web console (Server/browser-tests): headless Chromium from
# Debian's packages driven by Selenium, against the flag-server binary built by `.ci/run`.
# Fails (never skips) when Chromium, chromedriver, selenium or axe-core cannot be had. The Python
# packages come from the one list, .ci/requirements.txt (installed by .ci/python-tools.sh, so that
# this step also works alone): selenium, authlib, and axe-core's script from the PyPI package
# axe-playwright-python, installed without its Playwright dependency (the tests inject the script
# through Selenium).
# Screenshots of every page in both themes at laptop and phone widths: Server/.build/console-screenshots/.
# Then measures the flags grid with 10,000 flags (figures printed, not asserted).
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v chromium > /dev/null || ! command -v chromedriver > /dev/null; then
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver
fi
command -v chromium > /dev/null || { echo "browser tests: chromium is missing (apt-get install -y chromium)"; exit 1; }
command -v chromedriver > /dev/null || { echo "browser tests: chromedriver is missing (apt-get install -y chromium-driver)"; exit 1; }
.ci/python-tools.sh

FLAG_SERVER_BINARY="$(swift build --package-path Server --show-bin-path)/flag-server" \
    python3 -m unittest discover -s Server/browser-tests -p 'test_*.py' -v

FLAG_SERVER_BINARY="$(swift build --package-path Server --show-bin-path)/flag-server" \
    python3 Server/browser-tests/measure_flags_grid.py

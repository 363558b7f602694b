#!/usr/bin/env python3
"""Measures the console's flags grid with 10,000 flags in headless Chromium (a benchmark, not a test).

Starts the real `flag-server` binary (as the browser tests do), imports 10,000 flags in ten
requests (owners, phases, removal targets, tags, a tenth of them on as a 10 % rollout), signs in
and loads the grid's first page, a search, a tag filter and a page in the middle, several times
each, reading the browser's Navigation Timing:

  server   responseStart - requestStart: the server's time to the first byte of the page
  page     responseEnd - startTime: the whole HTML received
  ready    domContentLoadedEventEnd - startTime: the page parsed and its script run
  load     loadEventEnd - startTime: with the stylesheet

and how long the grid's key handler takes to move to the next row ("j"). Prints the medians and
the slowest. The numbers depend on the machine and on the build (debug or release): compare them
with the plain-asset baseline printed beside them (the stylesheet fetched the same way).

Run: python3 Server/browser-tests/measure_flags_grid.py [--flags 10000] [--runs 7]
"""
import argparse
import json
import os
import statistics
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_console import Server, find_browser, start_browser  # noqa: E402


def flagd_document(count):
    flags = {}
    for number in range(count):
        key = "flag-%05d" % number
        metadata = {
            "owner": ("payments", "search", "growth", "apps")[number % 4],
            "phase": number % 5,
            "removalTarget": "%d.%d" % (2 + number % 4, number % 10),
            "x-tags": ("checkout, web", "search", "ios, android", "experiment")[number % 4],
            "description": "Flag number %d of the benchmark" % number,
        }
        flag = {"state": "ENABLED", "variants": {"on": True, "off": False}, "defaultVariant": "off", "metadata": metadata}
        if number % 10 == 0:
            flag["targeting"] = {"fractional": [["on", 10], ["off", 90]]}
        flags[key] = flag
    return {"flags": flags}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flags", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    arguments = parser.parse_args()

    find_browser()
    from selenium.webdriver.common.by import By

    server = Server(["--write-timeout-seconds", "120"])
    browser = None
    try:
        # In writes of 1,000 flags: one write of all of them outlasts a debug build's write deadline.
        document = flagd_document(arguments.flags)["flags"]
        keys = sorted(document)
        started = time.monotonic()
        for first in range(0, len(keys), 1000):
            body = json.dumps({"flags": {key: document[key] for key in keys[first:first + 1000]}}).encode()
            request = urllib.request.Request(
                server.base + "/admin/v1/environments/production/import?reason=benchmark", method="POST", data=body,
                headers={"Authorization": "Bearer " + server.admin_token, "Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=600) as response:
                assert response.status == 200, response.status
        print("imported %d flags in %.1f s" % (arguments.flags, time.monotonic() - started))

        browser = start_browser("1366,900")
        browser.get(server.base + "/console/login")
        browser.find_element(By.ID, "name").send_keys("admin")
        browser.find_element(By.ID, "password").send_keys(server.admin_password)
        browser.find_element(By.ID, "sign-in").click()
        time.sleep(1)  # on purpose: a benchmark script, waiting for the sign-in's redirect to settle

        timing = """
            const [n] = performance.getEntriesByType("navigation");
            return {server: n.responseStart - n.requestStart, page: n.responseEnd - n.startTime,
                    ready: n.domContentLoadedEventEnd - n.startTime, load: n.loadEventEnd - n.startTime,
                    bytes: n.transferSize, rows: document.querySelectorAll("#flags-grid tbody tr").length};
        """
        key_handler = """
            const started = performance.now();
            document.dispatchEvent(new KeyboardEvent("keydown", {key: "j", bubbles: true}));
            return performance.now() - started;
        """
        cases = [
            ("first page", "/console/flags"),
            ("search", "/console/flags?q=flag-09"),
            ("tag filter", "/console/flags?tag=search&sort=removal"),
            ("page 50", "/console/flags?page=50"),
            ("stylesheet (baseline)", "/console/assets/console.css"),
        ]
        print("%-22s %10s %10s %10s %10s %8s %6s" % ("", "server ms", "page ms", "ready ms", "load ms", "KB", "rows"))
        for name, path in cases:
            samples = []
            for _ in range(arguments.runs):
                browser.get(server.base + path)
                samples.append(browser.execute_script(timing))
            def median(field):
                return statistics.median(sample[field] for sample in samples)
            def worst(field):
                return max(sample[field] for sample in samples)
            print("%-22s %10s %10s %10s %10s %8d %6d" % (
                name, "%.0f (≤%.0f)" % (median("server"), worst("server")), "%.0f (≤%.0f)" % (median("page"), worst("page")),
                "%.0f" % median("ready"), "%.0f" % median("load"), samples[0]["bytes"] // 1024, samples[0]["rows"]))
            if path == "/console/flags":
                moves = [browser.execute_script(key_handler) for _ in range(50)]
                print("%-22s %.2f ms median, %.2f ms slowest over 50 presses of j" % (
                    "  key handler", statistics.median(moves), max(moves)))
    finally:
        if browser:
            browser.quit()
        server.stop()


if __name__ == "__main__":
    main()

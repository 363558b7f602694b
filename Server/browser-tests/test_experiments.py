#!/usr/bin/env python3
"""An experiment end to end: a simulated app population with a known effect, sent through the real
ingestion endpoint, produces the expected decision on the console's results page (headless
Chromium driven by Selenium).

One real `flag-server serve` on its default event store (which counts experiment results). The
test creates a flag split 50/50 by `fractional` in production, a conversion metric and an
experiment through the admin API, and starts it; then `Server/scripts/bench/simulate_experiment.py`
runs a seeded population of 3,000 simulated apps: each asks the server's OFREP endpoint for its
variant, and sends its exposure and, with its variant's rate (10 % for `off`, 20 % for `on`), a
`purchase` event through `POST /ofrep/v1/ingestion`. The results page must then show:

- "Significant" as the decision, for the metric and for `on` against the control `off`;
- the units per arm the population sent, beside the allocation, with no sample ratio warning;
- the counted conversions per arm equal to what the population sent (the page's inputs);
- the lift chart and the sequential chart drawn.

An A/A experiment on a second flag (both arms converting at 15 %) must say "Keep collecting".

Results by segment: a third population on two app versions (half of those on the older one
upgrading later) must show, after "By app version", a table per metric with each version's units
per arm as first exposed (the upgrades stay in their first version) and the export links.
Both pages pass axe-core in both themes at laptop and phone widths, with a screenshot of each
(Server/.build/console-screenshots/experiment-*.png).

Needs what test_console.py needs (its helpers are reused). Run:
python3 -m unittest discover -s Server/browser-tests -p 'test_experiments.py' -v
"""
import os
import sys
import time
import unittest

import test_console as console

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts", "bench"))
import simulate_experiment  # noqa: E402

UNITS = 3000


class ExperimentBrowserTests(console.BrowserSuite, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        console.find_browser()
        cls.server = console.Server(("--rate-limit-per-second", "0"))
        try:
            cls.token = console.create_client_token(cls.server, "simulated-apps")
            status, body = cls.server.api("POST", "/admin/v1/metrics", cls.server.admin_token, {
                "key": "purchase-rate", "name": "Purchase rate", "event": "purchase", "kind": "conversion",
                "windowHours": 24})
            assert status == 201, body
            cls.browser = console.start_browser()
        except BaseException:
            cls.server.stop()
            raise
        os.makedirs(console.SCREENSHOTS, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        cls.server.stop()


    def api(self, method, path, body=None, expected=200):
        status, answer = self.server.api(method, path, self.server.admin_token, body)
        self.assertEqual(status, expected, answer)
        return answer

    def start_experiment(self, flag, experiment):
        """A boolean FLAG split 50/50 in production, and EXPERIMENT on it, started; its start time."""
        self.api("PUT", "/admin/v1/flags/" + flag,
                 {"type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off"})
        self.api("PUT", "/admin/v1/environments/production/flags/%s/settings" % flag, {
            "enabled": True, "defaultVariant": "off", "targeting": {"fractional": [["on", 50], ["off", 50]]},
            "reason": "a 50/50 experiment"})
        self.api("POST", "/admin/v1/environments/production/experiments", {
            "id": experiment, "flag": flag, "control": "off", "arms": ["off", "on"], "metrics": ["purchase-rate"],
            "hypothesis": "Showing the new checkout raises purchases."}, expected=201)
        started = self.api("POST", "/admin/v1/environments/production/experiments/%s/start" % experiment, {})
        self.assertEqual(started["status"], "running")
        return started

    def simulate(self, flag, seed, rates, prefix, *extra):
        # The population is exposed from just after the start to now, its conversions within the
        # window after that: every event counts.
        start = int(time.time() * 1000)
        time.sleep(0.05)  # on purpose: the first exposure must fall after the experiment's start
        arguments = ["--server", self.server.base, "--token", self.token, "--flag", flag, "--units", str(UNITS),
                     "--seed", str(seed), "--start", str(start), "--window-hours", "0.0001", "--prefix", prefix,
                     "--batch-size", "500", "--evaluation", "bulk", *extra]
        for variant, rate in rates.items():
            arguments += ["--rate", "%s=%s" % (variant, rate)]
        time.sleep(0.05)  # on purpose: --end (now) must come after --start
        return simulate_experiment.simulate(simulate_experiment.parser().parse_args(arguments))

    def results_page(self, experiment, sent):
        """Opens the results page once the server counted every exposure the population sent."""
        units = {variant: entry["units"] for variant, entry in sent["variants"].items()}
        path = "/admin/v1/environments/production/experiments/%s/results?refresh=true" % experiment
        for _ in range(300):
            report = self.api("GET", path)
            if {entry["arm"]: entry["units"] for entry in report["units"]} == units:
                break
            time.sleep(0.2)  # on purpose: the ingestion queue commits in the background
        else:
            self.fail("the server counted %s units, the population sent %s" % (report["units"], units))
        self.open("/console/environments/production/experiments/%s/results" % experiment)
        return report

    def test_a_known_effect_is_significant_on_the_results_page(self):
        self.start_experiment("browser-experiment", "checkout-test")
        sent = self.simulate("browser-experiment", 11, {"off": 0.10, "on": 0.20}, "ab-")
        self.assertEqual(sum(entry["units"] for entry in sent["variants"].values()), UNITS)
        self.sign_in("admin", self.server.admin_password)
        self.results_page("checkout-test", sent)
        self.assertEqual(self.find("#experiment-heading").text, "Experiment checkout-test")
        decision = self.find("#experiment-decision")
        self.assertEqual(decision.get_attribute("data-state"), "significant")
        self.assertEqual(self.find("#experiment-decision-heading").text, "Significant")
        self.assertEqual(self.find_all("#srm-warning"), [])
        # Units per arm: what the population sent, beside the planned 50 %.
        rows = {row.find_element("css selector", "th").text.split()[0]: row.text
                for row in self.find_all("#units-table tbody tr")}
        for variant, entry in sent["variants"].items():
            self.assertIn("%s %s" % (variant, format(entry["units"], ",")), rows[variant].replace(" control", ""))
            self.assertIn("50", rows[variant])
        # The metric: the page's inputs are the conversions sent, and "on" is significant.
        metric = self.find("section.metric[data-metric='purchase-rate']")
        self.assertEqual(metric.find_element("css selector", ".decision-line").get_attribute("data-state"), "significant")
        for variant, entry in sent["variants"].items():
            cells = [cell.text for cell in metric.find_elements("css selector", "tr[data-arm='%s'] td" % variant)]
            self.assertEqual(cells[0].replace(",", ""), str(entry["units"]), cells)
            self.assertEqual(cells[1].replace(",", ""), str(entry["converted"]), cells)
        self.assertEqual(len(metric.find_elements("css selector", "figure svg")), 2, "the lift and sequential charts")
        self.check_page("experiment-significant")

    def test_an_aa_experiment_keeps_collecting(self):
        self.start_experiment("browser-aa", "aa-test")
        sent = self.simulate("browser-aa", 5, {"off": 0.15, "on": 0.15}, "aa-")
        self.sign_in("admin", self.server.admin_password)
        self.results_page("aa-test", sent)
        self.assertEqual(self.find("#experiment-decision").get_attribute("data-state"), "keep-collecting")
        self.assertEqual(self.find("#experiment-decision-heading").text, "Keep collecting")
        self.check_page("experiment-aa")

    def test_results_by_app_version_on_the_results_page(self):
        self.start_experiment("browser-segments", "segments-test")
        sent = self.simulate("browser-segments", 3, {"off": 0.10, "on": 0.20}, "seg-",
                             "--app-version-share", "4.2=0.6", "--app-version-share", "5.0=0.4", "--upgrade-share", "0.5")
        self.sign_in("admin", self.server.admin_password)
        self.results_page("segments-test", sent)
        self.assertEqual(self.find_all("#segments-heading"), [])
        self.find("#segments-app-version").click()
        self.assertEqual(self.find("#segments-heading").text, "By app version")
        self.assertIn("adjusted together by Benjamini–Hochberg", self.find("#segments-statement").text)
        table = self.find("table.segment-table[data-metric='purchase-rate']")
        for version, variants in sent["segments"].items():
            for variant, entry in variants.items():
                row = table.find_element("css selector", "tr[data-segment='%s'][data-arm='%s']" % (version, variant))
                cells = [cell.text for cell in row.find_elements("css selector", "td")]
                self.assertEqual(cells[1].replace(",", ""), str(entry["units"]), (version, variant, cells))
        self.assertEqual(len(table.find_elements("css selector", "tbody tr")), 4)
        self.assertIn("segment=appVersion", self.find("#segments-export-csv").get_attribute("href"))
        self.check_page("experiment-segments")


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""The simulated app population (simulate_experiment.py) against the real `flag-server` binary.

Starts `flag-server serve` (the browser tests' helper, no browser needed) with no client rate
limit, creates a flag split 50/50 by `fractional` in production and a client token, runs a seeded
population with a known effect (10 % against 20 % conversion), and checks through the insights
API that every exposure and unit arrived in the variant the server assigned, that the split is
the planned one, and that sending the same run again is counted once.

Results by segment: an experiment on the flag, a population on three app versions (a share of
them upgrading later), and the results split by app version checked against this side: each
segment's units per arm (first exposure, sticky), each arm's mean, the Welch difference, interval
and p-value against scipy.stats (ttest_ind_from_stats, t), and the adjusted p-values of every
segment, metric and arm against statsmodels' multipletests (fdr_bh) on the server's own raw ones.

Run (after `swift build --package-path Server`):
python3 -m unittest discover -s Server/scripts/bench -p 'test_simulate_experiment.py' -v
"""
import datetime
import math
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "browser-tests"))
sys.path.insert(0, HERE)

import simulate_experiment  # noqa: E402
import test_console as console  # noqa: E402

FLAG = "sim-checkout"
# The results-by-segment test's flag (its exposures must not reach the population test's insights).
SEGMENT_FLAG = "sim-segments"
UNITS = 600
DAY = 86_400_000


def iso(milliseconds):
    return datetime.datetime.fromtimestamp(milliseconds / 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class SimulatedPopulationTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = console.Server(("--rate-limit-per-second", "0"))
        try:
            # A flag per test: the population test counts every exposure of its flag in insights.
            for flag in (FLAG, SEGMENT_FLAG):
                status, body = cls.server.api("PUT", "/admin/v1/flags/" + flag, cls.server.admin_token, {
                    "type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off"})
                assert status == 200, body
                status, body = cls.server.api(
                    "PUT", "/admin/v1/environments/production/flags/%s/settings" % flag, cls.server.admin_token,
                    {"enabled": True, "defaultVariant": "off", "targeting": {"fractional": [["on", 50], ["off", 50]]},
                     "reason": "a 50/50 experiment of the simulated population"})
                assert status == 200, body
            cls.token = console.create_client_token(cls.server, "simulated-apps")
        except BaseException:
            cls.server.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def simulate(self, *extra):
        arguments = ["--server", self.server.base, "--token", self.token, "--flag", FLAG, "--units", str(UNITS),
                     "--rate", "off=0.10", "--rate", "on=0.20", "--value-mean", "off=30", "--value-mean", "on=30",
                     "--days", "5", "--seed", "7", "--end", str(self.end), "--batch-size", "250", *extra]
        return simulate_experiment.simulate(simulate_experiment.parser().parse_args(arguments))

    def test_results_by_app_version_match_scipy_and_statsmodels(self):
        from scipy import stats
        from statsmodels.stats.multitest import multipletests

        api, token = self.server.api, self.server.admin_token
        for key, kind in (("seg-converted", "conversion"), ("seg-revenue", "mean")):
            status, body = api("POST", "/admin/v1/metrics", token, {
                "key": key, "name": key, "event": "seg-purchase", "kind": kind, "guardrail": False})
            self.assertEqual(status, 201, body)
        base = "/admin/v1/environments/production/experiments"
        status, body = api("POST", base, token, {
            "id": "seg-exp", "flag": SEGMENT_FLAG, "control": "off", "arms": ["off", "on"],
            "metrics": ["seg-converted", "seg-revenue"]})
        self.assertEqual(status, 201, body)
        status, body = api("POST", base + "/seg-exp/start", token, {})
        self.assertEqual(status, 200, body)
        start = int(time.time() * 1000) + 1
        time.sleep(0.05)  # on purpose: the exposures come after the experiment's start
        end = int(time.time() * 1000)
        arguments = ["--server", self.server.base, "--token", self.token, "--flag", SEGMENT_FLAG, "--units", "1500",
                     "--rate", "off=0.20", "--rate", "on=0.30", "--value-mean", "off=20", "--value-mean", "on=26",
                     "--start", str(start), "--end", str(end), "--seed", "11", "--prefix", "seg-",
                     "--conversion", "seg-purchase", "--app-version-share", "4.2=0.5", "--app-version-share", "4.3=0.3",
                     "--app-version-share", "5.0=0.2", "--upgrade-share", "0.4"]
        sent = simulate_experiment.simulate(simulate_experiment.parser().parse_args(arguments))
        self.assertEqual(sorted(sent["segments"]), ["4.2", "4.3", "5.0"])
        deadline = time.monotonic() + 60
        while True:
            status, report = api("GET", base + "/seg-exp/results?segment=appVersion&refresh=true", token)
            self.assertEqual(status, 200, report)
            counted = sum(arm["units"] for arm in report["units"])
            if counted == 1500 or time.monotonic() > deadline:
                break
            time.sleep(0.5)  # on purpose: waiting for the ingestion queue, bounded by the deadline
        segments = report["segments"]
        self.assertEqual(segments["dimension"], "appVersion")
        self.assertEqual(segments["correction"], "bh")
        self.assertEqual([segment["key"] for segment in segments["segments"]], ["4.2", "4.3", "5.0"])
        alpha = report["alpha"]
        raw, raw_fixed, adjusted, adjusted_fixed = [], [], [], []
        for segment in segments["segments"]:
            expected = sent["segments"][segment["key"]]
            # Units by first exposure: the upgrades stay in their first version.
            self.assertEqual({arm["arm"]: arm["units"] for arm in segment["units"]},
                             {variant: figures["units"] for variant, figures in expected.items()}, segment["key"])
            for metric in segment["metrics"]:
                conversion = metric["key"] == "seg-converted"
                summaries = {}
                for arm in metric["arms"]:
                    figures = expected[arm["arm"]]
                    n = figures["units"]
                    total = figures["converted"] if conversion else figures["valueSum"]
                    squares = figures["converted"] if conversion else figures["valueSumOfSquares"]
                    mean = total / n
                    variance = (squares - total * total / n) / (n - 1)
                    summaries[arm["arm"]] = (mean, variance, n)
                    self.assertAlmostEqual(arm["statistics"]["units"], n)
                    self.assertTrue(math.isclose(arm["mean"], mean, rel_tol=1e-9), (segment["key"], metric["key"], arm))
                treatment = metric["arms"][1]
                comparison = treatment["comparison"]
                (m1, v1, n1), (m0, v0, n0) = summaries["on"], summaries["off"]
                welch = stats.ttest_ind_from_stats(m1, math.sqrt(v1), n1, m0, math.sqrt(v0), n0, equal_var=False)
                se = math.sqrt(v1 / n1 + v0 / n0)
                df = (v1 / n1 + v0 / n0) ** 2 / ((v1 / n1) ** 2 / (n1 - 1) + (v0 / n0) ** 2 / (n0 - 1))
                critical = stats.t.ppf(1 - alpha / 2, df)
                absolute = comparison["absolute"]
                self.assertTrue(math.isclose(absolute["estimate"], m1 - m0, rel_tol=1e-9, abs_tol=1e-12))
                self.assertTrue(math.isclose(absolute["pValue"], welch.pvalue, rel_tol=1e-6, abs_tol=1e-12),
                                (segment["key"], metric["key"], absolute["pValue"], welch.pvalue))
                self.assertTrue(math.isclose(absolute["lower"], m1 - m0 - critical * se, rel_tol=1e-6, abs_tol=1e-9))
                self.assertTrue(math.isclose(absolute["upper"], m1 - m0 + critical * se, rel_tol=1e-6, abs_tol=1e-9))
                raw.append(comparison["sequential"]["pValue"])
                raw_fixed.append(absolute["pValue"])
                adjusted.append(comparison["sequential"]["adjustedPValue"])
                adjusted_fixed.append(comparison["adjustedPValue"])
        # Benjamini–Hochberg over every segment, metric and arm, against statsmodels.
        self.assertEqual(segments["comparisons"], len(raw))
        self.assertEqual(len(raw), 6)
        for got, expected in ((adjusted, multipletests(raw, method="fdr_bh")[1]),
                              (adjusted_fixed, multipletests(raw_fixed, method="fdr_bh")[1])):
            for a, b in zip(got, expected):
                self.assertTrue(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15), (got, list(expected)))

    def insights(self, start):
        status, body = self.server.api(
            "GET", "/admin/v1/environments/production/flags/%s/insights?from=%s&to=%s&granularity=day"
            % (FLAG, iso(start - start % DAY), iso(self.end + 1)), self.server.admin_token)
        self.assertEqual(status, 200, body)
        return body

    def test_the_population_arrives_as_sent_in_the_variants_the_server_assigned(self):
        self.end = int(time.time() * 1000) - 60_000
        sent = self.simulate()
        variants = sent["variants"]
        # Both arms of the 50/50 split, every unit once, the split within 4 standard deviations.
        self.assertEqual(sorted(variants), ["off", "on"])
        self.assertEqual(sum(entry["units"] for entry in variants.values()), UNITS)
        self.assertLess(abs(variants["on"]["units"] - UNITS / 2), 4 * math.sqrt(UNITS / 4))
        # The known effect: about twice the conversions in "on" (sent, before any counting).
        self.assertGreater(variants["on"]["converted"] / variants["on"]["units"],
                           variants["off"]["converted"] / variants["off"]["units"])
        self.assertEqual(sent["accepted"], UNITS + sent["events"])
        self.assertEqual(sent["duplicateBatches"], 0)

        # The server counted each exposure and unit in its variant (polled: the store's rollups
        # are written by the ingestion queue).
        deadline = time.monotonic() + 60
        while True:
            insights = self.insights(sent["start"])
            exposures = {series["variant"]: series["totalExposures"] for series in insights["variants"]}
            if exposures.get("on") == variants["on"]["exposures"] or time.monotonic() > deadline:
                break
            time.sleep(0.5)  # on purpose: waiting for the ingestion queue, bounded by the deadline
        for variant in ("on", "off"):
            self.assertEqual(exposures.get(variant), variants[variant]["exposures"], insights["variants"])
        units = {series["variant"]: series["unitDays"] for series in insights["units"]["variants"]}
        for variant in ("on", "off"):
            # Each unit is exposed once, on one day: its unit-days are its units.
            self.assertEqual(units.get(variant), variants[variant]["units"], insights["units"])
        self.assertEqual(insights["totalExposures"], UNITS)
        # The exposures are spread over the simulated days.
        days_with_units = [day for day in zip(*[series["daily"] for series in insights["units"]["variants"]]) if sum(day)]
        self.assertGreaterEqual(len(days_with_units), 5)

        # The same run again: the same assignments and batch ids, counted once.
        again = self.simulate()
        self.assertEqual(again["variants"], variants)
        self.assertEqual(again["duplicateBatches"], again["batches"])
        self.assertEqual(self.insights(sent["start"])["totalExposures"], UNITS)

        # Bulk evaluation serves the same variants.
        bulk = simulate_experiment.Client(self.server.base, self.token)
        single = [bulk.variant(FLAG, "sim-%06d" % index, bulk=False)[0] for index in range(20)]
        self.assertEqual([bulk.variant(FLAG, "sim-%06d" % index, bulk=True)[0] for index in range(20)], single)


if __name__ == "__main__":
    unittest.main(verbosity=2)

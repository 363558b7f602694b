#!/usr/bin/env python3
"""The simulated app population (simulate_experiment.py) against the real `flag-server` binary.

Starts `flag-server serve` (the browser tests' helper, no browser needed) with no client rate
limit, creates a flag split 50/50 by `fractional` in production and a client token, runs a seeded
population with a known effect (10 % against 20 % conversion), and checks through the insights
API that every exposure and unit arrived in the variant the server assigned, that the split is
the planned one, and that sending the same run again is counted once.

Run (after `swift build --package-path Server`):
python3 -m unittest discover -s Server/scripts -p 'test_simulate_experiment.py' -v
"""
import datetime
import math
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "browser-tests"))
sys.path.insert(0, HERE)

import simulate_experiment  # noqa: E402
import test_console as console  # noqa: E402

FLAG = "sim-checkout"
UNITS = 600
DAY = 86_400_000


def iso(milliseconds):
    return datetime.datetime.fromtimestamp(milliseconds / 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class SimulatedPopulationTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = console.Server(("--rate-limit-per-second", "0"))
        try:
            status, body = cls.server.api("PUT", "/admin/v1/flags/" + FLAG, cls.server.admin_token, {
                "type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off"})
            assert status == 200, body
            status, body = cls.server.api(
                "PUT", "/admin/v1/environments/production/flags/%s/settings" % FLAG, cls.server.admin_token,
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

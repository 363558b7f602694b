#!/usr/bin/env python3
"""The simulated fleet (simulate_fleet.py) against the real `flag-server` binary, at a small scale.

Starts `flag-server serve` (the browser tests' helper, no browser needed) with no client rate
limit and the rollout executor looking at plans every 2 s (`--rollout-tick-seconds 2`, instead of
10), and runs six rollouts, four at a time: the one-version regression and the doubled crash rate
(2 % -> 4 %) with seeds 1-3 first, then, as the doubled ones end, two A/A plans on a population
where one app version crashes more in both arms. 200 phones a plan (300 for the one-version one),
each plan 20 % -> 50 % -> 100 % with a `crash_rate` guardrail evaluated every 2 s that rolls back
(steps of 20 s and 20 s for the doubled crash rate, 10 s and 10 s for A/A, 15 s and 45 s for the
one-version regression). It checks that

- every seed of the doubled crash rate is rolled back before the new variant reaches 100 %, by the
  guardrail (the finding's new rate above the old one), with the sessions and crashes per variant
  the phones delivered showing it and most crashes arriving with their variant;
- no A/A plan is rolled back: each finishes;
- the one-version regression is rolled back (a finding that names an app version names 5.1.0):
  the server judges each guardrail per app version and platform as well as pooled.

Run (after `swift build --package-path Server`; about a minute):
python3 -m unittest discover -s Server/scripts/bench -p 'test_simulate_fleet.py' -v
"""
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "browser-tests"))
sys.path.insert(0, HERE)

import simulate_fleet  # noqa: E402
import test_console as console  # noqa: E402


class SimulatedFleetTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = console.Server(("--rate-limit-per-second", "0", "--rollout-tick-seconds", "2"))
        try:
            admin = simulate_fleet.Admin(cls.server.base, cls.server.admin_token)
            token = simulate_fleet.client_token(admin, "simulated-fleet")
            admin.close()
            common = ["--server", cls.server.base, "--admin-token", cls.server.admin_token, "--session-seconds", "0.2",
                      "--gap-seconds", "0.2", "--flush-seconds", "4", "--refresh-seconds", "5", "--workers", "4",
                      "--evaluation-interval", "2", "--max-seconds", "150"]
            # The doubled crash rate needs about 20 s of a step to be seen with 200 phones (the
            # evidence waits for the next launch and a flush); an A/A plan only has to finish.
            double = simulate_fleet.parser().parse_args(
                common + ["--phones", "200", "--steps", "20:20,50:20,100", "--minimum-units", "20"])
            aa = simulate_fleet.parser().parse_args(
                common + ["--phones", "200", "--steps", "20:10,50:10,100", "--minimum-units", "20"])
            # 5.1.0 on iOS is a quarter of the phones: enough units and sessions in its stratum
            # for a look per app version to see the regression at 50 %.
            one_version = simulate_fleet.parser().parse_args(
                common + ["--phones", "300", "--steps", "20:15,50:45,100", "--minimum-units", "10"])
            scenarios = simulate_fleet.SCENARIOS
            # The longest run first, so that it overlaps the others; each A/A plan starts when a
            # doubled one ends.
            jobs = [(scenarios["one-version"], 1, one_version)] + [(scenarios["double"], seed, double) for seed in (1, 2, 3)]
            jobs += [(scenarios["aa"], 1, aa), (scenarios["aa"], 2, aa)]
            results = simulate_fleet.run_many(cls.server.base, cls.server.admin_token, token, jobs, aa, parallel=4)
            for result in results:
                print(json.dumps(result, sort_keys=True), file=sys.stderr)
            cls.results = {(result["scenario"], result["seed"]): result for result in results}
        except BaseException:
            cls.server.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_the_doubled_crash_rate_is_rolled_back_in_every_seed_before_100_percent(self):
        for seed in (1, 2, 3):
            result = self.results[("double", seed)]
            with self.subTest(seed=seed):
                self.assertEqual(result["outcome"], "rolled back", result)
                # Steps 20 and 50 %: never served to everyone.
                self.assertIn(result["step"], (1, 2), result)
                finding = result["finding"]
                self.assertGreater(finding["newRate"], finding["oldRate"], result)
                self.assertGreater(finding["lower"], 0, result)
                self.assertIn("crash rate", result["regression"])
                # What the phones delivered shows the regression the guardrail saw.
                received = result["received"]
                self.assertGreater(received["on"]["crashRate"], received["off"]["crashRate"], result)
                # Crashes reach the server with the crashed session's variant, except those before
                # the session's first read (about a tenth of the baseline's, by the model).
                self.assertGreater(result["crashShareWithVariant"], 0.75, result)
                self.assertGreater(result["delivery"]["healthBatches"], 0, result)

    def test_aa_plans_are_not_rolled_back(self):
        for seed in (1, 2):
            result = self.results[("aa", seed)]
            with self.subTest(seed=seed):
                self.assertEqual(result["outcome"], "finished", result)
                self.assertNotIn("regression", result)
                # The fleet took part: both variants' sessions and crashes arrived.
                for variant in ("off", "on"):
                    self.assertGreater(result["received"][variant]["sessions"], 100, result)
                    self.assertGreater(result["received"][variant]["crashes"], 0, result)

    def test_the_one_version_regression_is_caught(self):
        result = self.results[("one-version", 1)]
        self.assertEqual(result["outcome"], "rolled back", result)
        # The pooled look may see it first (5.1.0's regression raises the pooled rate by 0.6
        # points); a look per version names the version that regressed.
        self.assertIn(result.get("finding", {}).get("appVersion", "5.1.0"), ("5.1.0",), result)


if __name__ == "__main__":
    unittest.main(verbosity=2)

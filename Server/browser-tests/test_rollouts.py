"""Browser test of the console's progressive-rollout pages: a plan created from the flag page's
"New rollout" link through the new-plan form, started (step 1 marked, the split served through
OFREP), paused, resumed and rolled back with a reason (the browser refuses the form without one),
the plan's status shown after each action, on the plan's page and in the environment's list.
Every page it reaches passes axe-core in both themes at both widths, with screenshots
(Server/.build/console-screenshots/rollout-*.png).

Starts the real `flag-server` binary the way test_console.py does (its Server class), in
headless Chromium.

Run: python3 -m unittest discover -s Server/browser-tests -p 'test_rollouts.py' -v
"""
import os
import time
import unittest

import test_console as console

FLAG = "browser-rollout"


class RolloutBrowserTests(console.BrowserSuite, unittest.TestCase):
    server_arguments = ("--rate-limit-per-second", "0")  # the test asks OFREP for 200 units at once
    client_token_name = "rollout-app"

    def served(self):
        """The variant OFREP serves each of 200 units."""
        variants = []
        for unit in range(200):
            status, reply = self.server.api(
                "POST", "/ofrep/v1/evaluate/flags/" + FLAG, self.client_token, {"context": {"targetingKey": "unit-%d" % unit}})
            self.assertEqual(status, 200, reply)
            variants.append(reply["variant"])
        return variants

    def status(self):
        return self.find("#rollout-status").text

    def test_b_a_guardrail_is_charted_over_the_run(self):
        key = FLAG + "-charted"
        self.api("PUT", "/admin/v1/flags/" + key, {"type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off"})
        self.api("PUT", "/admin/v1/environments/production/flags/%s/settings" % key, {
            "enabled": True, "defaultVariant": "off", "reason": "before the rollout"})
        plan = self.api("POST", "/admin/v1/environments/production/rollouts", {
            "flag": key, "oldVariant": "off", "newVariant": "on", "evaluationIntervalSeconds": 1,
            "steps": [{"percent": 50, "durationSeconds": 3600}, {"percent": 100, "durationSeconds": 1}],
            "guardrails": [{"metric": "crash_rate", "tolerance": 0.01, "direction": "increase"}]})
        self.api("POST", "/admin/v1/environments/production/rollouts/%s/start" % plan["id"], {})
        # Sessions of both variants, through the real ingestion endpoint, after the run started:
        # 120 units each (a guardrail waits for 100 per variant), one in ten of them crashed.
        now = int(time.time() * 1000)
        events = [{"name": "$crash" if unit % 20 < 2 else "$session", "unit": "unit-%d" % unit,
                   "variants": {key: "on" if unit % 2 else "off"}, "time": now}
                  for unit in range(240)]
        status, reply = self.server.api("POST", "/ofrep/v1/ingestion", self.client_token, {
            "version": 1, "batchId": "chart-sessions", "dropped": {"exposures": 0, "summaries": 0, "tracked": 0},
            "source": {"appVersion": "1.0", "buildConfiguration": "release", "platform": "iOS"},
            "exposures": [], "summaries": [], "events": events})
        self.assertEqual(status, 202, reply)
        # The server's executor looks at running plans every 10 s; wait (boundedly) for an evaluation.
        deadline = time.time() + 60
        while not self.api("GET", "/admin/v1/environments/production/rollouts/" + plan["id"]).get("evaluations"):
            self.assertLess(time.time(), deadline, "no evaluation was recorded within 60 s")
            time.sleep(1)  # on purpose: the executor runs on its own schedule
        self.sign_in("admin", self.server.admin_password)
        self.open("/console/environments/production/rollouts/" + plan["id"])
        chart = self.find("#guardrail-1-chart-title")
        self.assertIn("crash rate", chart.get_attribute("textContent"))
        self.assertGreaterEqual(len(self.find_all("#guardrail-1 svg .interval")), 1)
        self.assertEqual(len(self.find_all("#guardrail-1 svg .tolerance")), 1)
        self.assertIn("The interval never lay beyond the tolerance.", self.find("#guardrail-1 figcaption").text)
        self.check_page("rollout-chart")

    def test_a_plan_is_created_started_paused_resumed_and_rolled_back(self):
        self.api("PUT", "/admin/v1/flags/" + FLAG, {"type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off"})
        self.api("PUT", "/admin/v1/environments/production/flags/%s/settings" % FLAG, {
            "enabled": True, "defaultVariant": "off", "reason": "before the rollout"})
        self.sign_in("admin", self.server.admin_password)

        # The flag page links to a new plan of the flag in its environment.
        self.open("/console/flags/%s?environment=production" % FLAG)
        self.assertIn("No active rollout.", self.find("#no-active-rollout").text)
        self.navigate(self.find("#new-rollout-for-flag"))
        self.assertEqual(self.find("h1").text, "New rollout in production")
        self.assertEqual(self.find("#rollout-flag").get_attribute("value"), FLAG)
        self.check_page("rollout-new")

        # A typo in the steps: the form comes back as typed, the problem naming the field.
        self.find("#rollout-old").send_keys("off")
        self.find("#rollout-new").send_keys("on")
        self.find("#rollout-steps").send_keys("10 1h, 50 forever, 100")
        from selenium.webdriver.support.ui import Select
        Select(self.find("#guardrail1-metric")).select_by_value("crash_rate")
        self.find("#guardrail1-tolerance").send_keys("0.01")
        self.navigate(self.find("#create-rollout"))
        self.assertIn('steps: step 2 "50 forever"', self.find("#problems").text)
        self.assertEqual(self.find("#rollout-steps").get_attribute("value"), "10 1h, 50 forever, 100")
        self.assertEqual(self.find("#rollout-new").get_attribute("value"), "on")
        self.assertEqual(Select(self.find("#guardrail1-metric")).first_selected_option.get_attribute("value"), "crash_rate")
        self.check_page("rollout-new-refused")
        self.find("#rollout-steps").clear()
        self.find("#rollout-steps").send_keys("10 1h, 50 1h, 100")
        self.navigate(self.find("#create-rollout"))
        self.assertIn("Draft created", self.find("main").text)
        self.assertEqual(self.status(), "draft")
        self.assertEqual(len(self.find_all("#rollout-steps tbody tr")), 3)
        self.assertIn("crash rate", self.find("#guardrail-1").text)
        self.check_page("rollout-draft")

        # Start: step 1 (10 %) is served and marked.
        self.navigate(self.find("#start-rollout"))
        self.assertIn("Started", self.find("main").text)
        self.assertEqual(self.status(), "running")
        self.assertEqual(self.find("#rollout-steps tr[aria-current='step']").get_attribute("id"), "step-1")
        self.assertEqual(self.find("#rollout-step").text, "step 1 of 3 (10 %)")
        served = self.served()
        self.assertGreater(served.count("on"), 0)
        self.assertLess(served.count("on"), 60)  # about 10 % of 200 units
        self.check_page("rollout-running")

        # The environment's list and the flag page show the running plan.
        plan_url = self.browser.current_url.split("?")[0]
        self.open("/console/environments/production/rollouts")
        row = self.find("#rollouts-table tbody tr")
        self.assertIn(FLAG, row.text)
        self.assertIn("running", row.text)
        self.assertIn("step 1 of 3 (10 %)", row.text)
        self.check_page("rollout-list")
        self.open("/console/flags/%s?environment=production" % FLAG)
        self.assertIn("running", self.find("#active-rollout").text)
        self.browser.get(plan_url)

        # Pause, with a reason; resume.
        self.find("#pause-reason").send_keys("checking the dashboards")
        self.navigate(self.find("#pause-rollout"))
        self.assertIn("Paused", self.find("main").text)
        self.assertEqual(self.status(), "paused")
        self.assertIn("checking the dashboards", self.find("#rollout-history").text)
        self.navigate(self.find("#resume-rollout"))
        self.assertIn("Resumed", self.find("main").text)
        self.assertEqual(self.status(), "running")

        # Roll back: the browser does not send the form without its reason.
        self.assertTrue(self.find("#rollback-reason").get_attribute("required"))
        self.find("#rollback-rollout").click()
        self.assertEqual(self.status(), "running")
        self.find("#rollback-reason").send_keys("crash reports from the <b>new</b> login")
        self.navigate(self.find("#rollback-rollout"))
        self.assertIn("Rolled back", self.find("main").text)
        self.assertEqual(self.status(), "rolled_back")
        self.assertIn("crash reports from the <b>new</b> login", self.find("#rollout-history").text)
        self.assertEqual(self.find("#start-rollout").text, "Start again")
        self.assertEqual(set(self.served()), {"off"})
        self.check_page("rollout-rolled-back")


if __name__ == "__main__":
    unittest.main()

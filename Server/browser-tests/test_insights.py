#!/usr/bin/env python3
"""Browser tests of the flag page's Insights section: headless Chromium driven by Selenium.

Two real `flag-server serve` processes:

- one started with `--no-events`: the section says the server keeps no events, its range links
  keep the environment and mark the chosen range (flag-insights-empty-*.png);
- one on its default event store, to which the test sends a batch of summaries and exposures
  through `POST /ofrep/v1/ingestion` with a client token, as an app's delivery does: the page then
  charts them (a line per variant, the settings change marked on the time axis), with the units
  per variant, the app version and platform tables, the sessions and crashes per app version,
  platform and variant (from `$session` and `$crash` events in the same batches) and the last
  evaluation (flag-insights-*.png).

Every page passes axe-core in both themes at laptop and phone widths, with a screenshot of each
(Server/.build/console-screenshots).

Needs what test_console.py needs (its helpers are reused). Run:
python3 -m unittest discover -s Server/browser-tests -p 'test_insights.py' -v
"""
import json
import os
import time
import unittest
import urllib.request
import uuid

import test_console as console

FLAG = "browser-insights"


class InsightsBrowserTestCase(console.BrowserSuite, unittest.TestCase):
    """A browser and a server with FLAG on in production; subclasses name the server's arguments."""

    SERVER_ARGUMENTS = ()

    @classmethod
    def setUpClass(cls):
        console.find_browser()
        cls.server = console.Server(cls.SERVER_ARGUMENTS)
        try:
            status, body = cls.server.api("PUT", "/admin/v1/flags/" + FLAG, cls.server.admin_token, {
                "type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off"})
            assert status == 200, body
            status, body = cls.server.api(
                "PUT", "/admin/v1/environments/production/flags/%s/settings" % FLAG, cls.server.admin_token,
                {"enabled": True, "defaultVariant": "on", "reason": "insights browser test"})
            assert status == 200, body
            cls.browser = console.start_browser()
        except BaseException:
            cls.server.stop()
            raise
        os.makedirs(console.SCREENSHOTS, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        cls.server.stop()

    # The console tests' helpers, on this test's browser and server.


class InsightsWithoutEventsBrowserTests(InsightsBrowserTestCase):
    SERVER_ARGUMENTS = ("--no-events",)

    def test_the_flag_page_says_the_server_keeps_no_events_and_offers_the_ranges(self):
        self.sign_in("admin", self.server.admin_password)
        self.open("/console/flags/%s?environment=production" % FLAG)
        self.assertEqual(self.find("#insights-heading").text, "Insights in production")
        self.assertIn("This server keeps no events", self.find("#insights-empty").text)
        self.assertEqual(self.find_all("#insights svg.chart"), [])
        links = self.find_all("#insights .ranges a")
        self.assertEqual([link.text for link in links], ["24 hours", "7 days", "30 days", "90 days"])
        self.assertEqual([link.get_attribute("aria-current") for link in links], [None, "true", None, None])
        # A range link keeps the environment and brings the section into view.
        self.navigate(links[2])
        self.assertIn("environment=production", self.browser.current_url)
        self.assertIn("insights=30d", self.browser.current_url)
        self.assertTrue(self.browser.current_url.endswith("#insights"))
        self.assertEqual(self.find("#insights .ranges a[aria-current='true']").text, "30 days")
        self.assertTrue(self.browser.execute_script(
            "const box = document.getElementById('insights').getBoundingClientRect();"
            "return box.top < window.innerHeight && box.bottom > 0"))
        self.check_page("flag-insights-empty")
        # The section follows the environment the page shows.
        self.open("/console/flags/%s?environment=staging" % FLAG)
        self.assertEqual(self.find("#insights-heading").text, "Insights in staging")


class InsightsBrowserTests(InsightsBrowserTestCase):
    def ingest(self, token, batch):
        request = urllib.request.Request(
            self.server.base + "/ofrep/v1/ingestion", method="POST", data=json.dumps(batch).encode(),
            headers={"Authorization": "Bearer " + token, "Content-Type": "application/json",
                     "Idempotency-Key": batch["batchId"]})
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")

    def test_events_an_app_sent_are_charted_beside_the_flags_change(self):
        self.sign_in("admin", self.server.admin_password)
        self.open("/console/flags/%s?environment=production&insights=24h" % FLAG)
        self.assertIn("No evaluations of %s in production" % FLAG, self.find("#insights-empty").text)
        token = console.create_client_token(self.server, "insights-app")
        now = int(time.time() * 1000)
        hour = 3_600_000
        for version, platform, on, off in (("4.2", "iOS", 900, 100), ("4.1", "Android", 300, 0)):
            batch = {
                "version": 1, "batchId": str(uuid.uuid4()),
                "source": {"appVersion": version, "buildConfiguration": "release", "platform": platform},
                "summaries": [
                    {"flag": FLAG, "variant": "on", "reason": "STATIC", "count": on, "start": now - 2 * hour, "end": now - hour},
                    {"flag": FLAG, "variant": "on", "reason": "STATIC", "count": on // 3, "start": now - hour // 2, "end": now},
                ] + ([{"flag": FLAG, "variant": "off", "reason": "DEFAULT", "count": off, "start": now - 2 * hour,
                       "end": now - hour}] if off else []),
                "exposures": [{"flag": FLAG, "variant": "on", "reason": "STATIC", "unit": "user-%s-%d" % (version, index),
                               "time": now - hour} for index in range(3)],
                "events": self.session_health(version, now - hour),
            }
            status, answer = self.ingest(token, batch)
            self.assertEqual(status, 202, answer)
            self.assertEqual(answer["accepted"], 10 if off else 7)
            # The same batch again (a retry) is counted once.
            status, answer = self.ingest(token, batch)
            self.assertEqual(status, 202, answer)
        self.open("/console/flags/%s?environment=production&insights=24h" % FLAG)
        chart = self.find("#insights svg.chart[role=img]")
        self.assertTrue(chart.get_attribute("aria-label") or self.find_all("#insights svg.chart title"))
        self.assertTrue(self.find_all("#insights svg.chart polyline[data-variant='on']"))
        self.assertTrue(self.find_all("#insights svg.chart g.marker"), "the settings change is marked on the time axis")
        # 4.2: 900 + 300 on and 100 off; 4.1: 300 + 100 on; each batch once though sent twice.
        self.assertEqual(self.find("#insights-totals").text, "1,700 evaluations · 6 exposures")
        units = [row.text for row in self.find_all("#insights-units tbody tr")]
        self.assertTrue(any(row.startswith("on 6") for row in units), units)
        versions = [row.text for row in self.find_all("#insights-app-versions tbody tr")]
        self.assertTrue(versions[0].startswith("4.2"), versions)
        self.assertEqual(len(versions), 2)
        platforms = [row.text for row in self.find_all("#insights-platforms tbody tr")]
        self.assertEqual(sorted(row.split()[0] for row in platforms), ["Android", "iOS"])
        self.assertTrue(self.find("#last-evaluated").text)
        # Sessions and crashes per app version, platform and variant: newest version first, the
        # sessions without a variant of the flag last and muted.
        # (Cell by cell: "(no variant)" is two words.)
        health = [" ".join(cell.text for cell in row.find_elements("css selector", "th, td")[:5])
                  for row in self.find_all("#insights-session-health-table tbody tr")]
        self.assertEqual(health, [
            "4.2 iOS off 1 0", "4.2 iOS on 3 1", "4.1 Android on 1 0", "4.1 Android (no variant) 1 1"])
        self.assertEqual(len(self.find_all("#insights-session-health-table tr.without-variant")), 1)
        self.assertIn("6 sessions", self.find("#insights-session-health .totals").text)
        self.assertIn("1 of the sessions and 1 of the crashes named no variant", self.find("#insights-session-health-without").text)
        self.check_page("flag-insights")

    @staticmethod
    def session_health(version, time):
        """The session-health events an app's monitor sends: on 4.2 two clean sessions and a crash on
        "on", one clean session on "off"; on 4.1 a clean session on "on" and a crash that read no
        variant of the flag."""
        def event(name, variant):
            return {"name": name, "unit": "user-%s-0" % version, "time": time,
                    "variants": {FLAG: variant} if variant else None}
        if version == "4.2":
            return [event("$session", "on"), event("$session", "on"), event("$crash", "on"), event("$session", "off")]
        return [event("$session", "on"), event("$crash", None)]


if __name__ == "__main__":
    unittest.main(verbosity=2)

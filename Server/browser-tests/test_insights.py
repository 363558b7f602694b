#!/usr/bin/env python3
"""Browser tests of the flag page's Insights section: headless Chromium driven by Selenium.

The real `flag-server serve` keeps no events yet (its event store and the ingestion endpoint come
with the events work), so the section shows its empty state here: its heading names the page's
environment, it says the server keeps no events, its range links keep the environment and mark the
chosen range, and the page passes axe-core in both themes at laptop and phone widths, with a
screenshot of each (Server/.build/console-screenshots/flag-insights-empty-*.png). The chart itself
is checked by the Swift tests (InsightsChartTests, ConsoleInsightsTests) over an event store that
answers hand-made rollups.

Needs what test_console.py needs (its helpers are reused). Run:
python3 -m unittest discover -s Server/browser-tests -p 'test_insights.py' -v
"""
import os
import unittest

import test_console as console

FLAG = "browser-insights"


class InsightsBrowserTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        chromium, driver = console.find_browser()
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        cls.server = console.Server()
        try:
            status, body = cls.server.api("PUT", "/admin/v1/flags/" + FLAG, cls.server.admin_token, {
                "type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off"})
            assert status == 200, body
            status, body = cls.server.api(
                "PUT", "/admin/v1/environments/production/flags/%s/settings" % FLAG, cls.server.admin_token,
                {"enabled": True, "defaultVariant": "on", "reason": "insights browser test"})
            assert status == 200, body
            options = webdriver.ChromeOptions()
            options.binary_location = chromium
            for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"):
                options.add_argument(argument)
            cls.browser = webdriver.Chrome(service=Service(executable_path=driver), options=options)
        except BaseException:
            cls.server.stop()
            raise
        os.makedirs(console.SCREENSHOTS, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        cls.server.stop()

    # The console tests' helpers, on this test's browser and server.
    open = console.ConsoleBrowserTests.open
    find = console.ConsoleBrowserTests.find
    find_all = console.ConsoleBrowserTests.find_all
    navigate = console.ConsoleBrowserTests.navigate
    sign_in = console.ConsoleBrowserTests.sign_in
    check_page = console.ConsoleBrowserTests.check_page

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


if __name__ == "__main__":
    unittest.main(verbosity=2)

"""Browser test of the console's Experiments entry and metric pages: the navigation's
"Experiments" link leads to the first environment's experiments, whose page links the metrics;
a metric is created through its form (the kind chosen, the guardrail box ticked), listed, opened
and saved again, and an experiment's form then names it as defined; another is archived (listed
apart, not offered to experiments) and restored from its page; a ratio metric is created with its
numerator and denominator. The metrics page passes axe-core in both themes at both widths, with
and without archived metrics, with screenshots
(Server/.build/console-screenshots/).

Starts the real `flag-server` binary the way test_console.py does (its Server class), in
headless Chromium.

Run: python3 -m unittest discover -s Server/browser-tests -p 'test_console_metrics*.py' -v
"""
import unittest

import test_console as console


class MetricBrowserTests(console.BrowserSuite, unittest.TestCase):
    def test_the_experiments_link_and_a_metric_created_in_the_console(self):
        from selenium.webdriver.support.ui import Select

        self.sign_in("admin", self.server.admin_password)
        link = self.find('nav[aria-label="Sections"] a[href="/console/experiments"]')
        self.assertEqual(link.text, "Experiments")
        self.navigate(link)
        self.assertTrue(self.browser.current_url.endswith("/console/environments/development/experiments")
                        or self.browser.current_url.endswith("/experiments"), self.browser.current_url)
        self.assertTrue(self.find("h1").text.startswith("Experiments in "))
        self.assertEqual(self.find('nav[aria-label="Sections"] a[aria-current="page"]').text, "Experiments")
        self.assertIn("No metrics yet", self.find("#experiment-metrics-hint").text)

        self.navigate(self.find("#metrics-link"))
        self.assertEqual(self.find("h1").text, "Metrics")
        self.find("#metric-key").send_keys("checkout-conversion")
        self.find("#metric-name").send_keys("Checkout <conversion>")
        self.find("#metric-event").send_keys("checkout")
        Select(self.find("#metric-kind")).select_by_visible_text("conversion")
        window = self.find("#metric-window")
        window.clear()
        window.send_keys("48")
        self.find("#metric-guardrail").click()
        self.navigate(self.find("#create-metric"))
        self.assertIn("Metric created", self.find('[role="status"]').text)
        row = self.find("#metric-checkout-conversion")
        self.assertIn("Checkout <conversion>", row.text)
        self.assertIn("2 d", row.text)
        stored = self.api("GET", "/admin/v1/metrics/checkout-conversion")
        self.assertEqual((stored["kind"], stored["windowHours"], stored["guardrail"], stored["updatedBy"]),
                         ("conversion", 48, True, "user admin"))
        self.check_page("metrics")

        # Edit: the stored values are in the form; a save is the next version.
        self.navigate(self.find("#edit-checkout-conversion"))
        self.assertEqual(self.find("#metric-window").get_attribute("value"), "48")
        self.assertTrue(self.find("#metric-guardrail").is_selected())
        Select(self.find("#metric-kind")).select_by_visible_text("count")
        self.navigate(self.find("#save-metric"))
        self.assertIn("Metric saved", self.find('[role="status"]').text)
        stored = self.api("GET", "/admin/v1/metrics/checkout-conversion")
        self.assertEqual((stored["kind"], stored["version"]), ("count", 2))

        # The experiment form names the metric as defined.
        self.navigate(self.find('nav[aria-label="Sections"] a[href="/console/experiments"]'))
        self.assertIn("checkout-conversion", self.find("#experiment-metrics-hint").text)

    def test_a_metric_archived_and_restored_in_the_console(self):
        self.sign_in("admin", self.server.admin_password)
        self.api("POST", "/admin/v1/metrics", {"key": "refund-count", "name": "Refunds", "event": "refund", "kind": "count"})
        self.browser.get(self.server.base + "/console/metrics")
        self.navigate(self.find("#archive-refund-count"))
        self.assertIn("Metric archived", self.find('[role="status"]').text)
        self.assertIn("Refunds", self.find("#archived-metric-refund-count").text)
        self.assertEqual(self.find("#archived-metrics-heading").text, "Archived")
        self.assertFalse(self.browser.find_elements("css selector", "#metric-refund-count"))
        self.assertTrue(self.api("GET", "/admin/v1/metrics/refund-count")["archived"])
        self.check_page("metrics-archived")

        # Not offered to experiments while archived.
        self.navigate(self.find('nav[aria-label="Sections"] a[href="/console/experiments"]'))
        self.assertNotIn("refund-count", self.find("#experiment-metrics-hint").text)

        # Its own page says so and restores it.
        self.browser.get(self.server.base + "/console/metrics/refund-count")
        self.assertIn("Archived", self.find("#metric-archived").text)
        self.navigate(self.find("#restore-metric"))
        self.assertIn("Metric restored", self.find('[role="status"]').text)
        self.assertIn("Refunds", self.find("#metric-refund-count").text)
        self.assertFalse(self.api("GET", "/admin/v1/metrics/refund-count")["archived"])
        # The other test of this server starts with no metric.
        self.api("DELETE", "/admin/v1/metrics/refund-count")

    def test_a_ratio_metric_created_in_the_console(self):
        from selenium.webdriver.support.ui import Select

        self.sign_in("admin", self.server.admin_password)
        self.browser.get(self.server.base + "/console/metrics")
        self.find("#metric-key").send_keys("revenue-per-click")
        self.find("#metric-name").send_keys("Revenue per click")
        self.find("#metric-event").send_keys("purchase")
        Select(self.find("#metric-kind")).select_by_visible_text("ratio")
        Select(self.find("#metric-numerator")).select_by_visible_text("sum of values")
        self.find("#metric-denominator-event").send_keys("click")
        Select(self.find("#metric-denominator")).select_by_visible_text("number of events")
        self.navigate(self.find("#create-metric"))
        self.assertIn("Metric created", self.find('[role="status"]').text)
        self.assertIn("ratio: sum / count of click", self.find("#metric-revenue-per-click").text)
        stored = self.api("GET", "/admin/v1/metrics/revenue-per-click")
        self.assertEqual((stored["kind"], stored["ratio"]),
                         ("ratio", {"numerator": "sum", "denominatorEvent": "click", "denominator": "count"}))
        self.check_page("metrics-ratio")

        # Its page shows the parts as stored.
        self.navigate(self.find("#edit-revenue-per-click"))
        self.assertEqual(self.find("#metric-denominator-event").get_attribute("value"), "click")
        self.assertEqual(Select(self.find("#metric-numerator")).first_selected_option.text, "sum of values")
        # The other test of this server starts with no metric.
        self.api("DELETE", "/admin/v1/metrics/revenue-per-click")


if __name__ == "__main__":
    unittest.main()

"""Browser test of scheduling a change in the console: from the flag page's "Schedule a change"
link, the environment's calendar form is filled (switch the flag off, a time in UTC, a reason),
the change is listed as pending and stored as the admin API stores it, then cancelled from its
row. The calendar passes axe-core in both themes at both widths, with screenshots
(Server/.build/console-screenshots/).

Starts the real `flag-server` binary the way test_console.py does (its Server class), in
headless Chromium.

Run: python3 -m unittest discover -s Server/browser-tests -p 'test_console_schedules*.py' -v
"""
import datetime
import unittest

import test_console as console

FLAG = "browser-scheduled"


class ScheduleBrowserTests(console.BrowserSuite, unittest.TestCase):
    def test_a_change_is_scheduled_and_cancelled_in_the_console(self):
        from selenium.webdriver.support.ui import Select

        self.api("PUT", "/admin/v1/flags/" + FLAG, {"type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "on"})
        self.api("PUT", "/admin/v1/environments/production/flags/%s/settings" % FLAG, {
            "enabled": True, "defaultVariant": "on", "reason": "launched"})
        self.sign_in("admin", self.server.admin_password)
        self.open("/console/flags/%s?environment=production" % FLAG)
        self.navigate(self.find("#schedule-change-link"))
        self.assertEqual(self.find("h1").text, "Scheduled changes in production")
        # The calendar is an environment's page: the navigation says so.
        self.assertEqual(self.find('nav a[aria-current="page"]').text, "Environments")
        self.assertEqual(self.find("#schedule-flag").get_attribute("value"), FLAG)
        Select(self.find("#schedule-change")).select_by_value("off")
        # A datetime-local field is typed differently by locale: set its value as the browser would send it.
        when = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=30)).replace(second=0, microsecond=0)
        self.browser.execute_script("arguments[0].value = arguments[1]", self.find("#schedule-run-at"), when.strftime("%Y-%m-%dT%H:%M"))
        self.find("#schedule-reason").send_keys("end of the promotion")
        self.navigate(self.find("#create-schedule"))
        self.assertFalse(self.find_all("#problems"), self.find("main").text)
        self.assertIn("Scheduled:", self.find("#notice").text)
        stored = self.api("GET", "/admin/v1/environments/production/schedules")
        self.assertEqual(len(stored), 1)
        schedule = stored[0]
        self.assertEqual((schedule["flag"], schedule["status"], schedule["runAt"], schedule["change"]["patch"], schedule["actor"]),
                         (FLAG, "pending", when.strftime("%Y-%m-%dT%H:%M:%SZ"), {"enabled": False}, "user admin"))
        row = self.find("#schedule-" + schedule["id"])
        self.assertIn("pending", row.text)
        self.assertIn("end of the promotion", row.text)
        self.check_page("schedules")

        self.navigate(row.find_element("css selector", "button[type=submit]"))
        self.assertIn("Cancelled", self.find("#notice").text)
        self.assertIn("cancelled", self.find("#schedule-" + schedule["id"]).text)
        stored = self.api("GET", "/admin/v1/environments/production/schedules")
        self.assertEqual(stored[0]["status"], "cancelled")


if __name__ == "__main__":
    unittest.main()

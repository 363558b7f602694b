"""Browser tests of a flag's lifecycle and definition on its page: archiving a flag (reason and
confirmation), its archived page and the grid's "archived" filter, restoring it, checked through
OFREP at each step; and editing an existing flag's variants as typed rows (objects checked as you
type). Every page it reaches passes axe-core in both themes at both widths, with screenshots.

Starts the real `flag-server` binary the way test_console.py does (its Server class), in
headless Chromium.

Run: python3 -m unittest discover -s Server/browser-tests -p 'test_lifecycle.py' -v
"""
import os
import unittest

import test_console as console

FLAG = "browser-retiring"
OBJECT_FLAG = "browser-layout"


class LifecycleBrowserTests(console.BrowserSuite, unittest.TestCase):
    client_token_name = "lifecycle-app"

    def setUp(self):
        self.sign_in("admin", self.server.admin_password)

    def evaluate(self):
        return self.server.api(
            "POST", "/ofrep/v1/evaluate/flags/" + FLAG, self.client_token, {"context": {"targetingKey": "user-1"}})

    def test_1_a_flag_is_archived_then_restored_exactly_as_it_was(self):
        self.api("PUT", "/admin/v1/flags/" + FLAG, {
            "type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off",
            "metadata": {"owner": "web"}})
        self.api("PUT", "/admin/v1/environments/production/flags/%s/settings" % FLAG, {
            "enabled": True, "defaultVariant": "on", "reason": "launch"})
        status, served = self.evaluate()
        self.assertEqual((status, served.get("value")), (200, True))
        settings_before = self.api("GET", "/admin/v1/environments/production/flags/" + FLAG)["settings"]

        # Archive: the box asks for the reason and the confirmation, both required by the browser.
        self.open("/console/flags/" + FLAG)
        box = self.open_details(self.find("main"), "#archive-box")
        self.assertTrue(self.find("#archive-reason").get_attribute("required"))
        self.assertTrue(self.find("#archive-confirm").get_attribute("required"))
        self.find("#archive-reason").send_keys("launched everywhere; the code no longer reads it")
        self.shot("30-archive-box")
        self.find("#archive-flag").click()
        # Without the confirmation the browser does not send the form.
        self.assertIn("/console/flags/" + FLAG, self.browser.current_url)
        self.assertNotIn("done=archived", self.browser.current_url)
        box.find_element("css selector", "#archive-confirm").click()
        self.navigate(self.find("#archive-flag"))
        self.assertIn("done=archived", self.browser.current_url)
        self.assertIn("This flag is archived", self.find("#archived-banner").text)
        self.assertEqual(self.find_all("#settings-form"), [])
        self.assertEqual(self.find_all("#definition-form"), [])
        self.check_page("flag-archived")

        # Not served: OFREP answers as for a flag that does not exist.
        status, served = self.evaluate()
        self.assertEqual((status, served.get("errorCode")), (404, "FLAG_NOT_FOUND"))

        # The grid hides it; the filter shows it, marked, without switches.
        self.open("/console/flags")
        self.assertEqual(self.find_all("#flag-" + FLAG), [])
        from selenium.webdriver.support.ui import Select
        Select(self.find("#archived")).select_by_visible_text("only archived")
        self.navigate(self.find("#apply-filters"))
        self.assertIn("archived=only", self.browser.current_url)
        row = self.find("#flag-" + FLAG)
        self.assertEqual(row.find_element("css selector", ".badge.archived").text, "archived")
        self.assertEqual(row.find_elements("css selector", "button.switch"), [])
        self.check_page("flags-archived")

        # The history says it in words.
        self.open("/console/history?flag=" + FLAG)
        self.assertIn("archived " + FLAG, self.find_all("li.entry")[0].text)

        # Restore: served again exactly as before.
        self.open("/console/flags/" + FLAG)
        self.find("#restore-reason").send_keys("needed for the spring campaign")
        self.navigate(self.find("#restore-flag"))
        self.assertIn("done=restored", self.browser.current_url)
        self.assertEqual(self.find_all("#archived-banner"), [])
        self.assertTrue(self.find("#settings-form").is_displayed())
        status, served = self.evaluate()
        self.assertEqual((status, served.get("value")), (200, True))
        self.assertEqual(self.api("GET", "/admin/v1/environments/production/flags/" + FLAG)["settings"], settings_before)
        self.open("/console/history?flag=" + FLAG)
        self.assertIn("restored " + FLAG, self.find_all("li.entry")[0].text)

    def test_2_an_existing_flag_s_variants_are_edited_as_rows(self):
        from selenium.webdriver.support.ui import WebDriverWait
        self.api("PUT", "/admin/v1/flags/" + OBJECT_FLAG, {
            "type": "object", "variants": {"compact": {"columns": 1}, "wide": {"columns": 3}}, "defaultVariant": "compact"})
        self.open("/console/flags/" + OBJECT_FLAG)
        self.open_details(self.find("main"), "#definition-box")
        # Rows, not the raw JSON field.
        self.assertFalse(self.find("#variants").is_displayed())
        WebDriverWait(self.browser, 10).until(lambda _: len(self.find_all("#variant-rows tbody tr")) == 2)
        editors = self.find_all("#variant-rows textarea.variant-value")
        self.assertEqual(len(editors), 2)
        # Live validation of the object values.
        editors[1].send_keys(" oops")
        self.assertEqual(editors[1].get_attribute("aria-invalid"), "true")
        self.assertIn("not JSON", self.find("#variant-rows .status.bad").text)
        editors[1].clear()
        editors[1].send_keys('{"columns": 4}')
        self.assertEqual(editors[1].get_attribute("aria-invalid"), "false")
        self.find("#add-variant").click()
        rows = self.find_all("#variant-rows tbody tr")
        self.assertEqual(len(rows), 3)
        name = rows[2].find_element("css selector", ".variant-name")
        name.clear()
        name.send_keys("dense")
        value = rows[2].find_element("css selector", ".variant-value")
        value.clear()
        value.send_keys('{"columns": 6}')
        self.find("#owner").send_keys("web")
        self.find("#definition-reason").send_keys("a denser layout")
        self.shot("31-definition-rows")
        self.check_page("flag-definition-open")
        self.navigate(self.find("#save-definition"))
        self.assertIn("done=saved", self.browser.current_url)
        flag = self.api("GET", "/admin/v1/flags/" + OBJECT_FLAG)
        self.assertEqual(flag["variants"], {"compact": {"columns": 1}, "wide": {"columns": 4}, "dense": {"columns": 6}})
        self.assertEqual(flag["metadata"]["owner"], "web")
        self.assertEqual(flag["defaultVariant"], "compact")


if __name__ == "__main__":
    unittest.main(verbosity=2)

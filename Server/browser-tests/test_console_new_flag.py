"""Browser test of the new-flag dialog's "Served when switched on": for a boolean it proposes the
variant whose value is true and says so under the choice, follows the variant rows as they are
edited, keeps an explicit choice, and the flag created with the proposal serves true once
switched on (through OFREP).

Starts the real `flag-server` binary the way test_console.py does (its Server class), in
headless Chromium.

Run: python3 -m unittest discover -s Server/browser-tests -p 'test_console_new_flag*.py' -v
"""
import unittest

import test_console as console

FLAG = "browser-served-when-on"


class NewFlagBrowserTests(console.BrowserSuite, unittest.TestCase):
    client_token_name = "new-flag-app"

    def test_the_dialog_says_what_a_boolean_serves_when_on(self):
        from selenium.webdriver.support.ui import Select

        self.sign_in("admin", self.server.admin_password)
        self.open("/console/new-flag")
        line = self.find("#served-when-on")
        self.assertEqual(line.text, 'Created off in every environment; switched on, it serves "on" (true).')
        choice = Select(self.find("#defaultVariant"))
        self.assertEqual(choice.first_selected_option.text, 'Automatic: "on" (the variant whose value is true)')

        # The rows swap the values: the automatic choice follows the true variant.
        values = self.find_all("#variant-rows .variant-value")
        self.assertEqual(len(values), 2)
        Select(values[0]).select_by_value("false")
        Select(self.find_all("#variant-rows .variant-value")[1]).select_by_value("true")
        self.assertEqual(self.find("#served-when-on").text, 'Created off in every environment; switched on, it serves "off" (true).')
        Select(self.find_all("#variant-rows .variant-value")[0]).select_by_value("true")
        Select(self.find_all("#variant-rows .variant-value")[1]).select_by_value("false")

        # An explicit choice is said, and kept while the rows change.
        Select(self.find("#defaultVariant")).select_by_value("off")
        self.assertEqual(self.find("#served-when-on").text, 'Created off in every environment; switched on, it serves "off" (false).')
        Select(self.find("#defaultVariant")).select_by_value("")
        self.assertIn('serves "on" (true)', self.find("#served-when-on").text)

        self.find("#key").send_keys(FLAG)
        self.navigate(self.find("#create"))
        self.api("PATCH", "/admin/v1/environments/production/flags/%s/settings" % FLAG, {"enabled": True, "reason": "on"})
        status, reply = self.server.api(
            "POST", "/ofrep/v1/evaluate/flags/" + FLAG, self.client_token, {"context": {"targetingKey": "unit-1"}})
        self.assertEqual(status, 200, reply)
        self.assertEqual((reply["value"], reply["variant"]), (True, "on"))


if __name__ == "__main__":
    unittest.main()

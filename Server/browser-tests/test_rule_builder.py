#!/usr/bin/env python3
"""Browser tests of the console's editing without JSON (Sources/FlagServer/Resources/Console/
assets/rule-builder.js): the rule builder's round trip over every targeting rule of flagd's
evaluator test kit, building and saving a rule by clicking, the live "who gets what" preview, a
rule the builder cannot show kept exactly as written, segments built with the same builder and
refused deletion while in use, and variants edited as typed rows.

Starts the real `flag-server` binary the way test_console.py does (its Server class), in
headless Chromium. Needs the kit in ../shared/conformance/flagd-evaluator beside the repository
(as the server's FlagdKitReplayTests do); a missing kit FAILS the run.

Run: python3 -m unittest discover -s Server/browser-tests -p 'test_rule_builder.py' -v
"""
import json
import os
import sys
import unittest

import test_console as console

REPOSITORY = os.path.dirname(console.SERVER_DIR)
# Where the Swift tests read it (Tests/Shared/ConformanceMaterial.swift): the folder
# FEATURE_FLAGS_CONFORMANCE_DIR names, else ../shared/conformance beside the repository.
CONFORMANCE = os.environ.get("FEATURE_FLAGS_CONFORMANCE_DIR") or os.path.join(os.path.dirname(REPOSITORY), "shared", "conformance")
KIT = os.path.join(CONFORMANCE, "flagd-evaluator", "flags", "testkit-flags.json")

# The kit's targeting rules the builder does not show, by kind (the rest it shows and writes back
# JSON-equal). A change to the builder that shows more or fewer updates this list on purpose.
NOT_SHOWN = {
    "fractional-nested-if-flag": "a split whose variant is an expression",
    "fractional-nested-var-flag": "a split whose variant is an expression",
    "fractional-nested-weight-flag": "a split whose weight is an expression",
    "fractional-as-condition-flag": "fractional used as a condition",
    "fractional-as-condition-false-flag": "fractional used as a condition",
    "semver-invalid-version-flag": "a bare condition as the whole rule (serves true/false)",
    "semver-invalid-operator-flag": "a bare condition as the whole rule (serves true/false)",
    "starts-with-non-string-flag": "a bare condition as the whole rule (serves true/false)",
    "ends-with-non-string-flag": "a bare condition as the whole rule (serves true/false)",
    "starts-with-wrong-args-flag": "a bare condition as the whole rule (serves true/false)",
    "ends-with-wrong-args-flag": "a bare condition as the whole rule (serves true/false)",
    "semver-wrong-args-flag": "a bare condition as the whole rule (serves true/false)",
}


def json_equal(a, b):
    """JSON equality without Python's True == 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


# Reads each rule into the builder on the page (through its JSON field, as a person pasting it
# would), then has the builder write it back; and the same through the model alone.
ROUND_TRIP = """
const [rules, kind, fieldID] = arguments;
const field = document.getElementById(fieldID);
const builder = field.ruleBuilder;
const results = [];
for (const [key, rule] of Object.entries(rules)) {
  const text = JSON.stringify(rule, null, 1);
  const model = FlagRuleModel.read(rule, kind);
  field.value = text;
  field.dispatchEvent(new Event("input"));
  const shown = builder.root.dataset.shown === "true";
  const result = {key, modelShown: model.shown, why: model.why || "", shown,
                  modelWritten: model.shown ? JSON.stringify(FlagRuleModel.write(model.model, kind)) : null};
  if (shown) {
    builder.commit();
    result.written = field.value;
  } else {
    result.kept = field.value === text;
    result.jsonVisible = !field.closest("p").hidden;
    result.note = document.getElementById(fieldID + "-builder-note").textContent;
  }
  results.push(result);
}
return results;
"""


class RuleBuilderBrowserTests(console.BrowserSuite, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(KIT):
            raise AssertionError("flagd's evaluator test kit is missing: expected %s" % KIT)
        console.find_browser()
        cls.server = console.Server()
        try:
            cls.client_token = console.create_client_token(cls.server, "rule-builder-app")
            cls.browser = console.start_browser()
        except BaseException:
            cls.server.stop()
            raise
        os.makedirs(console.SCREENSHOTS, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        cls.server.stop()

    # Helpers (as in test_console.py)


    def setUp(self):
        self.browser.delete_all_cookies()
        self.open("/console/login")
        self.find("#name").send_keys("admin")
        self.find("#password").send_keys(self.server.admin_password)
        self.navigate(self.find("#sign-in"))

    def api(self, method, path, body=None, expect=200):
        status, answer = self.server.api(method, path, self.server.admin_token, body)
        self.assertEqual(status, expect, answer)
        return answer

    def flag(self, key, variants, flag_type="boolean", default="off", targeting=None):
        self.api("PUT", "/admin/v1/flags/" + key, {"type": flag_type, "variants": variants, "defaultVariant": default})
        settings = {"enabled": True, "defaultVariant": default}
        if targeting is not None:
            settings["targeting"] = targeting
        self.api("PUT", "/admin/v1/environments/production/flags/%s/settings" % key, settings)

    def part(self, path, builder="targeting"):
        return self.find('#%s-builder [data-path="%s"]' % (builder, path))

    def type_into(self, path, text, builder="targeting"):
        """Types into a builder input and leaves it, which is when the builder takes the value."""
        from selenium.webdriver.common.keys import Keys
        element = self.part(path, builder)
        # Select and type over (clear() would fire "change" and the builder would redraw first).
        element.send_keys(Keys.CONTROL + "a")
        element.send_keys(text + Keys.TAB)

    def choose(self, path, value, builder="targeting"):
        from selenium.webdriver.support.ui import Select
        Select(self.part(path, builder)).select_by_value(value)

    def field_json(self, field_id="targeting"):
        text = self.find("#" + field_id).get_attribute("value")
        return json.loads(text) if text.strip() else None

    def wait(self, condition, timeout=20):
        from selenium.webdriver.support.ui import WebDriverWait
        return WebDriverWait(self.browser, timeout).until(lambda _: condition())

    # Tests

    def test_1_every_kit_rule_is_shown_and_written_back_equal_or_said_not_shown(self):
        with open(KIT) as file:
            kit = json.load(file)
        rules = {key: flag["targeting"] for key, flag in kit["flags"].items() if "targeting" in flag}
        self.flag("kit-host", {"on": True, "off": False})
        self.open("/console/flags/kit-host?environment=production")
        results = self.browser.execute_script(ROUND_TRIP, rules, "targeting", "targeting")
        self.assertEqual(len(results), len(rules))
        shown, not_shown = [], {}
        for result in results:
            key = result["key"]
            self.assertEqual(result["shown"], result["modelShown"], key)
            if result["shown"]:
                shown.append(key)
                self.assertTrue(json_equal(json.loads(result["written"]), rules[key]), "%s: wrote %s" % (key, result["written"]))
                self.assertTrue(json_equal(json.loads(result["modelWritten"]), rules[key]), key)
            else:
                not_shown[key] = result["why"]
                # Not shown: the JSON is left exactly as it was, visible, with the reason.
                self.assertTrue(result["kept"], key)
                self.assertTrue(result["jsonVisible"], key)
                self.assertIn("cannot show", result["note"], key)
        self.assertEqual(set(not_shown), set(NOT_SHOWN))

        # The kit's shared rule, read as a segment on the segments page.
        self.open("/console/segments?environment=production")
        segments = self.browser.execute_script(ROUND_TRIP, kit["$evaluators"], "segment", "segment-rule")
        for result in segments:
            self.assertTrue(result["shown"], result)
            self.assertTrue(json_equal(json.loads(result["written"]), kit["$evaluators"][result["key"]]), result)

        kinds = sorted(set(NOT_SHOWN.values()))
        print("\nflagd evaluator kit through the rule builder: %d targeting rules, %d shown and written back JSON-equal, "
              "%d not shown (%s); %d of %d shared rules shown as segments.\n  not shown: %s"
              % (len(rules), len(shown), len(not_shown), "; ".join(kinds), len(segments), len(kit["$evaluators"]),
                 ", ".join("%s (%s)" % item for item in sorted(not_shown.items()))), file=sys.stderr)

    def test_2_a_rule_built_by_clicking_is_previewed_saved_served_and_read_back(self):
        self.flag("builder-checkout", {"on": True, "off": False})
        self.open("/console/flags/builder-checkout?environment=production")
        self.assertTrue(self.find("#targeting-builder").is_displayed())
        self.assertFalse(self.find("#targeting").is_displayed())

        self.find("#targeting-add-rule").click()
        self.type_into("rule-0-clause-0-attribute", "email")
        self.choose("rule-0-clause-0-operator", "ends_with")
        self.type_into("rule-0-clause-0-value", "@beta.example")
        self.choose("rule-0-serve-kind", "variant:on")
        self.part("rule-0-add-clause").click()
        self.type_into("rule-0-clause-1-attribute", "country")
        self.choose("rule-0-clause-1-operator", "in")
        self.type_into("rule-0-clause-1-list", "DE\nFR")
        condition = {"and": [{"ends_with": [{"var": "email"}, "@beta.example"]}, {"in": [{"var": "country"}, ["DE", "FR"]]}]}
        self.assertTrue(json_equal(self.field_json(), {"if": [condition, "on"]}), self.field_json())

        # Everyone else: a 90/10 split.
        self.choose("otherwise-kind", "split")
        self.type_into("otherwise-bucket-0-weight", "90")
        self.type_into("otherwise-bucket-1-weight", "10")
        expected = {"if": [condition, "on", {"fractional": [["off", 90], ["on", 10]]}]}
        self.assertTrue(json_equal(self.field_json(), expected), self.field_json())
        self.assertIn("10.0 %", self.find("#targeting-builder .rb-split").text)

        # The preview follows the edit: the sample users have no email, so they get the split.
        def counts():
            rows = self.find_all("#live-preview-table tbody tr")
            return {row.find_element("css selector", "th").text: int(row.find_elements("css selector", "td")[0].text) for row in rows}
        self.wait(lambda: set(counts()) == {"on", "off"})
        preview = counts()
        self.assertEqual(sum(preview.values()), 1000)
        self.assertTrue(50 <= preview["on"] <= 150, preview)
        self.wait(lambda: "The rule is valid." in self.find("#targeting-status").text)
        self.shot("20-rule-builder")

        self.find("#settings-reason").send_keys("beta in DE and FR, 10 % of the rest")
        self.navigate(self.find("#save-settings"))
        self.assertIn("Saved.", self.find("main").text)
        saved = self.api("GET", "/admin/v1/environments/production/flags/builder-checkout")["settings"]["targeting"]
        self.assertTrue(json_equal(saved, expected), saved)
        status, served = self.server.api(
            "POST", "/ofrep/v1/evaluate/flags/builder-checkout", self.client_token,
            {"context": {"targetingKey": "u1", "email": "ana@beta.example", "country": "FR"}})
        self.assertEqual((status, served.get("value"), served.get("reason")), (200, True, "TARGETING_MATCH"), served)

        # Read back: the saved rule opens in the builder as it was built.
        self.assertEqual(self.find("#targeting-builder").get_attribute("data-shown"), "true")
        self.assertEqual(self.part("rule-0-clause-0-attribute").get_attribute("value"), "email")
        self.assertEqual(self.part("rule-0-clause-1-list").get_attribute("value"), "DE\nFR")
        self.assertEqual(self.part("rule-0-combinator").get_attribute("value"), "and")
        self.assertEqual(self.part("otherwise-bucket-0-weight").get_attribute("value"), "90")

        # Reordering and removing rewrite the rule; "Any" joins the conditions with "or".
        self.choose("rule-0-combinator", "or")
        self.assertIn("or", self.field_json()["if"][0])
        self.find("#targeting-add-rule").click()
        self.type_into("rule-1-clause-0-attribute", "appVersion")
        self.choose("rule-1-clause-0-operator", "sem_ver >=")
        self.type_into("rule-1-clause-0-value", "2.1.0")
        self.choose("rule-1-serve-kind", "variant:off")
        self.part("rule-1-Up").click()
        rule = self.field_json()
        self.assertTrue(json_equal(rule["if"][0], {"sem_ver": [{"var": "appVersion"}, ">=", "2.1.0"]}), rule)
        self.assertEqual(rule["if"][1], "off")
        self.part("rule-0-remove").click()
        self.assertTrue(json_equal(self.field_json()["if"][0], {"or": condition["and"]}), self.field_json())
        self.shot("21-rule-builder-read-back")

    def test_3_a_rule_the_builder_cannot_show_stays_exactly_as_written(self):
        between = {"if": [{"<": [1, {"var": "n"}, 10]}, "on", "off"]}
        self.flag("between", {"on": True, "off": False}, targeting=between)
        self.open("/console/flags/between?environment=production")
        note = self.find("#targeting-builder-note")
        self.assertTrue(note.is_displayed())
        self.assertIn("cannot show this rule", note.text)
        self.assertFalse(self.find("#targeting-builder").is_displayed())
        self.assertTrue(self.find("#targeting").is_displayed())
        before = self.field_json()
        self.assertTrue(json_equal(before, between))
        self.shot("22-rule-builder-not-shown")
        # The live check still runs on the JSON; saving another setting keeps the rule.
        from selenium.webdriver.support.ui import Select
        Select(self.find("#defaultVariant")).select_by_visible_text("on")
        self.find("#settings-reason").send_keys("default on")
        self.navigate(self.find("#save-settings"))
        settings = self.api("GET", "/admin/v1/environments/production/flags/between")["settings"]
        self.assertEqual(settings["defaultVariant"], "on")
        self.assertTrue(json_equal(settings["targeting"], between), settings)

        # Typing a rule the builder can show brings the builder back.
        field = self.find("#targeting")
        field.clear()
        field.send_keys('{"if": [{"==": [{"var": "plan"}, "pro"]}, "on"]}')
        self.wait(lambda: self.find("#targeting-builder").is_displayed())
        self.assertEqual(self.part("rule-0-clause-0-attribute").get_attribute("value"), "plan")

    def test_4_segments_are_built_used_and_not_deleted_while_in_use(self):
        self.open("/console/segments?environment=production")
        self.part("segment-add-clause", "segment-rule").click()
        self.type_into("segment-clause-0-attribute", "email", "segment-rule")
        self.choose("segment-clause-0-operator", "ends_with", "segment-rule")
        self.type_into("segment-clause-0-value", "@staff.example", "segment-rule")
        self.find("#segment-key").send_keys("staff")
        self.find("#segment-reason").send_keys("the staff")
        self.shot("23-segment-new")
        self.navigate(self.find("#create-segment"))
        self.assertIn("The segment was created.", self.find("main").text)
        segments = self.api("GET", "/admin/v1/environments/production/segments")
        self.assertTrue(json_equal(segments["staff"], {"ends_with": [{"var": "email"}, "@staff.example"]}), segments)

        # Used in a flag's rule through the builder.
        self.flag("staff-only", {"on": True, "off": False})
        self.open("/console/flags/staff-only?environment=production")
        self.find("#targeting-add-rule").click()
        self.choose("rule-0-clause-0-operator", "segment")
        self.assertEqual(self.part("rule-0-clause-0-segment").get_attribute("value"), "staff")
        self.choose("rule-0-serve-kind", "variant:on")
        self.assertTrue(json_equal(self.field_json(), {"if": [{"$ref": "staff"}, "on"]}), self.field_json())
        self.navigate(self.find("#save-settings"))
        status, served = self.server.api(
            "POST", "/ofrep/v1/evaluate/flags/staff-only", self.client_token, {"context": {"targetingKey": "u", "email": "bo@staff.example"}})
        self.assertEqual(served.get("value"), True, served)

        # The segment page says who uses it; deleting is refused and names the flag.
        self.open("/console/segments/production/staff")
        self.assertIn("staff-only", self.find("#used-by").text)
        self.assertEqual(self.find("#segment-rule-builder").get_attribute("data-shown"), "true")
        self.navigate(self.find("#delete-segment"))
        self.assertIn("is used by flag staff-only", self.find("#problems").text)
        self.shot("24-segment-in-use")
        self.assertIn("staff", self.api("GET", "/admin/v1/environments/production/segments"))

        # Edited with the same builder.
        self.type_into("segment-clause-0-value", "@crew.example", "segment-rule")
        self.navigate(self.find("#save-segment"))
        self.assertIn("Saved.", self.find("main").text)
        segments = self.api("GET", "/admin/v1/environments/production/segments")
        self.assertTrue(json_equal(segments["staff"], {"ends_with": [{"var": "email"}, "@crew.example"]}), segments)

    def test_5_variants_are_rows_of_the_flag_type(self):
        from selenium.webdriver.support.ui import Select
        self.open("/console/new-flag")
        self.assertFalse(self.find("#variants").is_displayed())
        Select(self.find("#type")).select_by_visible_text("string")
        self.wait(lambda: len(self.find_all("#variant-rows tbody tr")) == 2)
        values = self.find_all("#variant-rows .variant-value")
        values[0].clear()
        values[0].send_keys("blue")
        self.find("#add-variant").click()
        rows = self.find_all("#variant-rows tbody tr")
        self.assertEqual(len(rows), 3)
        name = rows[2].find_element("css selector", ".variant-name")
        name.clear()
        name.send_keys("green")
        rows[2].find_element("css selector", ".variant-value").send_keys("green")
        self.shot("25-variant-rows")
        self.find("#key").send_keys("rows-string")
        self.navigate(self.find("#create"))
        self.assertIn("The flag was created", self.find("main").text)
        flag = self.api("GET", "/admin/v1/flags/rows-string")
        self.assertEqual(flag["variants"], {"control": "blue", "treatment": "treatment", "green": "green"})

        # Numbers get number inputs; objects a JSON editor checked as you type.
        self.open("/console/new-flag")
        Select(self.find("#type")).select_by_visible_text("integer")
        self.wait(lambda: self.find_all("#variant-rows input.variant-value[type=number]"))
        Select(self.find("#type")).select_by_visible_text("object")
        self.wait(lambda: self.find_all("#variant-rows textarea.variant-value"))
        editor = self.find("#variant-rows textarea.variant-value")
        editor.send_keys("oops")
        self.assertEqual(editor.get_attribute("aria-invalid"), "true")
        self.assertIn("not JSON", self.find("#variant-rows .status.bad").text)
        editor.clear()
        editor.send_keys('{"enabled": true, "limit": 3}')
        self.assertEqual(editor.get_attribute("aria-invalid"), "false")
        self.shot("26-variant-rows-object")
        self.find("#key").send_keys("rows-object")
        self.navigate(self.find("#create"))
        flag = self.api("GET", "/admin/v1/flags/rows-object")
        self.assertEqual(flag["variants"], {"default": {"enabled": True, "limit": 3}})


if __name__ == "__main__":
    unittest.main(verbosity=2)

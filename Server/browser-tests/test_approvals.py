"""Browser test of approvals and scheduled changes in the console (Server/Docs/Approvals.md,
Server/Docs/ScheduledChanges.md): under an approval rule of one approval on production (set
through the admin API: the console has no form for rules), an editor's save is refused with a
message pointing to change requests, "Propose as change request" opens one whose page shows the
exact diff, the author is offered no approve button and a forged self-approval is refused with
the server's message, applying without the approval is refused, a second user approves and
applies it and the flag page shows the new setting; a second request is rejected with a comment
and nothing changes. The kill switch applies at once under the rule, the browser does not send
it without its reason, and the history records it as a kill switch. Scheduled changes created
through the admin API show on the flag page and in the environment's calendar, and an editor
cancels one from each; they show as cancelled. Every page it reaches passes axe-core in both
themes at both widths, with screenshots (Server/.build/console-screenshots/approval-*.png).

Starts the real `flag-server` binary the way test_console.py does (its Server class), in
headless Chromium.

Run: python3 -m unittest discover -s Server/browser-tests -p 'test_approvals.py' -v
"""
import datetime
import os
import unittest

import test_console as console

FLAG = "browser-approval"
KILL_FLAG = "browser-kill"
SCHEDULED_FLAG = "browser-scheduled"
TIME = r"\d{4}-\d\d-\d\d \d\d:\d\d UTC"  # as the console shows times


class ApprovalBrowserTests(console.BrowserSuite, unittest.TestCase):
    @classmethod
    def prepare(cls):
        cls.erin = cls.server.add_user("erin", "editor")
        cls.alice = cls.server.add_user("alice", "editor")
        for key in (FLAG, KILL_FLAG, SCHEDULED_FLAG):
            status, reply = cls.server.api("PUT", "/admin/v1/flags/" + key, cls.server.admin_token, {
                "type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off"})
            assert status < 300, reply
        for key in (FLAG, KILL_FLAG):
            status, reply = cls.server.api(
                "PUT", "/admin/v1/environments/production/flags/%s/settings" % key, cls.server.admin_token,
                {"enabled": True, "defaultVariant": "off", "reason": "on before the rule"})
            assert status < 300, reply
        # The console has no form for approval rules: the admin API sets it.
        status, reply = cls.server.api(
            "PUT", "/admin/v1/environments/production/approval-rule", cls.server.admin_token,
            {"requiredApprovals": 1, "reason": "production is governed"})
        assert status < 300, reply

    def settings(self, key, environment="production"):
        return self.api("GET", "/admin/v1/environments/%s/flags/%s" % (environment, key))["settings"]

    def notice(self):
        return self.find("main p.notice").text

    def status_line(self):
        """The change request's status as its page says it ("applied at revision 7")."""
        return self.find("#request-status").find_element("xpath", "..").text

    def diff_rows(self):
        """The change request's diff: (field, before, after) of each row."""
        return [tuple(cell.text for cell in row.find_elements("css selector", "th, td"))
                for row in self.find_all("table.diff tbody tr")]

    def propose_default_variant(self, variant, reason):
        """On the flag page in production: the default variant chosen, proposed as a change request."""
        from selenium.webdriver.support.ui import Select
        self.open("/console/flags/%s?environment=production" % FLAG)
        Select(self.find("#defaultVariant")).select_by_visible_text(variant)
        self.find("#settings-reason").clear()
        self.find("#settings-reason").send_keys(reason)
        self.navigate(self.find("#propose-settings"))
        self.assertEqual(self.notice(), "Opened: it applies once approved.")
        return self.browser.current_url.split("?")[0]

    def test_1_a_settings_change_goes_through_a_change_request(self):
        from selenium.webdriver.support.ui import Select
        self.sign_in("erin", self.erin)

        # A direct save is refused, pointing to change requests; nothing is written.
        self.open("/console/flags/%s?environment=production" % FLAG)
        Select(self.find("#defaultVariant")).select_by_visible_text("on")
        self.find("#settings-reason").send_keys("serve on")
        self.navigate(self.find("#save-settings"))
        problems = self.find("#problems").text
        self.assertIn('environment "production" needs 1 approval for settings changes (flag "%s")' % FLAG, problems)
        self.assertIn("change request", problems)
        self.assertEqual(self.settings(FLAG)["defaultVariant"], "off")
        # The form comes back as chosen, so proposing it is one click.
        self.assertEqual(Select(self.find("#defaultVariant")).first_selected_option.text, "on")
        self.check_page("approval-save-refused")

        # Proposed instead: the request's page shows the exact change, the author, no approve form.
        request_url = self.propose_default_variant("on", "serve on")
        request_id = request_url.rsplit("/", 1)[1]
        self.assertEqual(self.find("#request-status").text, "open")
        self.assertEqual(self.find("#request-author").text, "user erin")
        self.assertEqual(self.find("#request-subject").text, "flag %s in production" % FLAG)
        self.assertEqual(self.find("#request-approvals").text, "0 of 1")
        # Only the facts it has: no "Not before" without a time, no revision before it is applied.
        self.assertEqual(self.status_line(), "open")
        self.assertNotIn("Not before", self.find("dl.facts").text)
        self.assertRegex(self.find("#request-history li").text, r"^user erin opened · %s: serve on$" % TIME)
        self.assertEqual(self.diff_rows(), [("settings.defaultVariant", '"off"', '"on"')])
        self.assertEqual(self.find("table.diff caption").text, "flag %s in production" % FLAG)
        self.assertEqual(self.find_all("#approve-request"), [], "the author is offered no approve form")
        self.assertEqual(self.settings(FLAG)["defaultVariant"], "off", "a change request is not applied when opened")
        self.check_page("approval-request-open")

        # A self-approval forged past the missing button is refused by the server, with its message.
        self.browser.execute_script(
            "const form = document.getElementById('reject-form');"
            "form.action = form.action.replace(/reject$/, 'approve');")
        self.navigate(self.find("#reject-request"))
        self.assertIn("author", self.find("#problems").text)
        self.assertEqual(self.find("#request-approvals").text, "0 of 1")
        # Applying without the approval is refused too.
        self.navigate(self.find("#apply-request"))
        self.assertIn("approval", self.find("#problems").text)
        self.assertEqual(self.find("#request-status").text, "open")
        self.assertEqual(self.settings(FLAG)["defaultVariant"], "off")
        self.check_page("approval-request-refused")
        self.sign_out()

        # A second user finds it in the list from the flag page, approves and applies it.
        self.sign_in("alice", self.alice)
        self.open("/console/flags/%s?environment=production" % FLAG)
        self.navigate(self.find("#change-requests-link"))
        self.assertEqual(self.find("h1").text, "Change requests in production")
        self.assertEqual(
            self.find("#approval-rule").text,
            "Changes to definitions, segments, settings here need 1 approval(s) by someone other than their author.")
        row = self.find("#request-" + request_id)
        self.assertIn("user erin", row.text)
        self.assertIn("open", row.text)
        self.assertIn("0 of 1", row.text)
        self.navigate(row.find_element("css selector", "a"))
        self.assertEqual(self.browser.current_url, request_url)
        self.find("#approve-comment").send_keys("checked the <b>dashboards</b>")
        self.navigate(self.find("#approve-request"))
        self.assertEqual(self.notice(), "Approved.")
        self.assertEqual(self.find("#request-approvals").text, "1 of 1")
        self.assertIn("user alice", self.find("#approvals-list").text)
        self.assertIn("checked the <b>dashboards</b>", self.find("#approvals-list").text)
        self.assertEqual(self.settings(FLAG)["defaultVariant"], "off", "approving does not apply")
        self.assertEqual(self.find_all("#approve-request"), [], "no second approval by the same user")
        self.check_page("approval-request-approved")
        self.navigate(self.find("#apply-request"))
        self.assertEqual(self.notice(), "Applied: written as a new revision.")
        self.assertEqual(self.find("#request-status").text, "applied")
        revision = self.api("GET", "/admin/v1/environments/production/change-requests/" + request_id)["appliedRevision"]
        self.assertEqual(self.status_line(), "applied at revision %d" % revision)
        self.assertRegex(self.find_all("#request-history li")[-1].text, r"^user alice applied · %s · revision %d$" % (TIME, revision))
        self.assertEqual(self.find_all("#apply-form"), [])
        history = self.find("#request-history").text
        for step in ("user erin opened", "user alice approved", "user alice applied"):
            self.assertIn(step, history)
        self.assertEqual(self.settings(FLAG)["defaultVariant"], "on")
        self.open("/console/flags/%s?environment=production" % FLAG)
        production = self.find("tr.current")
        self.assertIn("on", production.find_element("css selector", ".badge").text)
        self.assertEqual(production.find_elements("css selector", "td")[1].text, "on")
        self.assertEqual(Select(self.find("#defaultVariant")).first_selected_option.text, "on")
        self.check_page("approval-flag-applied")
        self.sign_out()

        # A second request is rejected with a comment; nothing changes.
        self.sign_in("erin", self.erin)
        second_url = self.propose_default_variant("off", "back to off")
        self.assertEqual(self.diff_rows(), [("settings.defaultVariant", '"on"', '"off"')])
        self.sign_out()
        self.sign_in("alice", self.alice)
        self.browser.get(second_url)
        self.find("#reject-comment").send_keys("not during the sale")
        self.navigate(self.find("#reject-request"))
        self.assertEqual(self.notice(), "Rejected: the change request is closed.")
        self.assertEqual(self.status_line(), "rejected")
        self.assertIn("user alice rejected", self.find("#request-history").text)
        self.assertIn("not during the sale", self.find("#request-history").text)
        self.assertEqual(self.find_all("#approve-form") + self.find_all("#reject-form") + self.find_all("#apply-form"), [])
        self.assertEqual(self.settings(FLAG)["defaultVariant"], "on")
        self.check_page("approval-request-rejected")
        self.navigate(self.find("#back-to-list"))
        statuses = {row.get_attribute("id"): row.find_element("css selector", ".badge").text
                    for row in self.find_all("#change-requests-table tbody tr")}
        self.assertEqual(sorted(statuses.values()), ["applied", "rejected"])
        self.check_page("approval-requests")
        self.sign_out()

    def test_2_the_kill_switch_applies_at_once_under_the_rule(self):
        self.sign_in("erin", self.erin)
        self.open("/console/flags/%s?environment=production" % KILL_FLAG)
        self.assertIn("whatever the approval rule", self.find("#kill-form").text)
        # The browser does not send it without its reason.
        self.assertTrue(self.find("#kill-reason").get_attribute("required"))
        self.find("#kill-flag").click()
        self.assertTrue(self.settings(KILL_FLAG)["enabled"])
        self.assertIn("/console/flags/%s" % KILL_FLAG, self.browser.current_url)
        self.find("#kill-reason").send_keys("checkout errors at 30 %")
        self.navigate(self.find("#kill-flag"))
        self.assertEqual(self.notice(), "Turned off with the kill switch: recorded and announced as such.")
        self.assertFalse(self.settings(KILL_FLAG)["enabled"])
        self.assertEqual(self.find_all("#kill-form"), [], "no kill switch where the flag is off")
        self.assertIn("off", self.find("tr.current .badge").text)
        self.check_page("approval-killed")
        # The history says it was the kill switch, by whom, with the reason.
        self.open("/console/history?flag=" + KILL_FLAG)
        newest = self.find_all("li.entry")[0]
        self.assertEqual(newest.find_element("css selector", ".what").text, "erin turned %s off in production" % KILL_FLAG)
        self.assertEqual(newest.find_element("css selector", ".reason").text, "Reason: kill switch: checkout errors at 30 %")
        self.open_details(newest, "details.fields")
        self.assertIn("settings.enabled true false", newest.find_element("css selector", "table.diff").text)
        self.check_page("approval-kill-history")
        self.sign_out()

    def test_3_scheduled_changes_are_listed_and_cancelled(self):
        # Staging has no approval rule: the admin API schedules there directly.
        run_at = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=2)
        scheduled = []
        for hours, reason in ((0, "launch on <b>Monday</b>"), (1, "second try")):
            created = self.api("POST", "/admin/v1/environments/staging/flags/%s/schedules" % SCHEDULED_FLAG, {
                "change": {"patch": {"enabled": True}}, "reason": reason,
                "runAt": (run_at + datetime.timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")})
            self.assertEqual(created["status"], "pending")
            scheduled.append(created["id"])
        first, second = scheduled

        self.sign_in("erin", self.erin)
        self.open("/console/flags/%s?environment=staging" % SCHEDULED_FLAG)
        rows = self.find_all("#flag-schedules tbody tr")
        self.assertEqual([row.get_attribute("id") for row in rows], ["schedule-" + first, "schedule-" + second])
        row = self.find("#schedule-" + first)
        self.assertIn("settings patch", row.text)
        self.assertIn("launch on <b>Monday</b>", row.text)
        self.assertEqual(row.find_element("css selector", ".badge").text, "pending")
        self.check_page("approval-flag-schedules")

        # Cancelled from the flag page: back on the flag page, shown as cancelled, no cancel button.
        self.navigate(self.find("#schedule-%s button" % first))
        self.assertIn("/console/flags/%s" % SCHEDULED_FLAG, self.browser.current_url)
        self.assertEqual(self.find("#schedule-%s .badge" % first).text, "cancelled")
        self.assertEqual(self.find_all("#schedule-%s button" % first), [])
        self.assertEqual(self.find("#schedule-%s .badge" % second).text, "pending")

        # The calendar, from the flag page's link: both; the second cancelled there.
        self.navigate(self.find("#schedules-heading ~ p a"))
        self.assertEqual(self.find("h1").text, "Scheduled changes in staging")
        self.assertEqual(self.find("#schedule-%s .badge" % first).text, "cancelled")
        self.assertEqual(self.find("#schedule-%s .badge" % second).text, "pending")
        self.check_page("approval-calendar")
        self.navigate(self.find("#schedule-%s button" % second))
        self.assertEqual(self.notice(), "Cancelled: the change is kept as cancelled and will not run.")
        self.assertEqual(self.find("#schedule-%s .badge" % second).text, "cancelled")
        self.assertEqual(self.find_all("#schedules-table button"), [])
        self.check_page("approval-calendar-cancelled")

        for id in scheduled:
            change = self.api("GET", "/admin/v1/environments/staging/flags/%s/schedules/%s" % (SCHEDULED_FLAG, id))
            self.assertEqual(change["status"], "cancelled")
        self.assertFalse(self.settings(SCHEDULED_FLAG, "staging")["enabled"])
        self.sign_out()


if __name__ == "__main__":
    unittest.main()

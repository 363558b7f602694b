#!/usr/bin/env python3
"""Browser tests of the flag server's web console: headless Chromium driven by Selenium.

Starts the real `flag-server` binary on a free port with a temporary data directory, then walks
the console as an admin (sign in, create a flag, turn it on, roll it out to 10 %, kill it with a
reason, find the change in history with its diff, revert it) checking every step through OFREP,
as a viewer (sees everything, can change nothing), and through the new-flag form's type switch. Screenshots of each page go to
Server/.build/console-screenshots/ (CI keeps them as artifacts).

Needs: chromium and chromedriver (Debian: apt-get install -y chromium chromium-driver), selenium
(pip install selenium), and a built server (swift build --package-path Server). Missing pieces
FAIL the run with a message saying what to install; nothing is skipped.

Run: python3 -m unittest discover -s Server/browser-tests -v
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request

SERVER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCREENSHOTS = os.path.join(SERVER_DIR, ".build", "console-screenshots")
FLAG = "browser-checkout"


def find_binary():
    configured = os.environ.get("FLAG_SERVER_BINARY")
    if configured:
        return configured
    for configuration in ("debug", "release"):
        candidate = os.path.join(SERVER_DIR, ".build", configuration, "flag-server")
        if os.path.exists(candidate):
            return candidate
    raise AssertionError("flag-server is not built: run `swift build --package-path Server` (or set FLAG_SERVER_BINARY)")


def find_browser():
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    driver = os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver")
    if not chromium or not driver:
        raise AssertionError(
            "Chromium is missing (chromium: %s, chromedriver: %s): apt-get install -y chromium chromium-driver"
            % (chromium, driver))
    try:
        import selenium  # noqa: F401
    except ImportError as error:
        raise AssertionError("selenium is missing: python3 -m pip install selenium") from error
    return chromium, driver


class Server:
    """The real binary on a free port (port 0, read back from its log) with its own data."""

    def __init__(self):
        self.binary = find_binary()
        self.data = tempfile.mkdtemp(prefix="flag-server-browser-")
        self.process = subprocess.Popen(
            [self.binary, "serve", "--port", "0", "--data-directory", self.data, "--log-level", "info"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        secrets = []
        self.port = None
        deadline = time.monotonic() + 120
        while self.port is None:
            line = self.process.stdout.readline()
            if not line:
                raise AssertionError("flag-server exited before listening (status %s)" % self.process.poll())
            if time.monotonic() > deadline:
                raise AssertionError("flag-server did not start listening within 120 s")
            if line.startswith("    ") and line.strip():
                secrets.append(line.strip())
            match = re.search(r"listening on http://[^:]+:(\d+)", line)
            if match:
                self.port = int(match.group(1))
        self.admin_token, self.admin_password = secrets[0], secrets[1]
        self.base = "http://127.0.0.1:%d" % self.port

    def add_user(self, name, role):
        output = subprocess.run(
            [self.binary, "add-user", "--name", name, "--role", role, "--data-directory", self.data],
            check=True, capture_output=True, text=True).stdout
        return [line.strip() for line in output.splitlines() if line.startswith("    ")][0]

    def api(self, method, path, token, body=None):
        request = urllib.request.Request(
            self.base + path, method=method, data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.data, ignore_errors=True)


class ConsoleBrowserTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        chromium, driver = find_browser()
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        cls.server = Server()
        try:
            status, created = cls.server.api(
                "POST", "/admin/v1/tokens", cls.server.admin_token,
                {"name": "browser-test-app", "environment": "production", "role": "client"})
            assert status == 201, created
            cls.client_token = created["token"]
            options = webdriver.ChromeOptions()
            options.binary_location = chromium
            for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"):
                options.add_argument(argument)
            cls.browser = webdriver.Chrome(service=Service(executable_path=driver), options=options)
        except BaseException:
            cls.server.stop()
            raise
        os.makedirs(SCREENSHOTS, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        cls.server.stop()

    # Helpers

    def open(self, path):
        self.browser.get(self.server.base + path)

    def shot(self, name):
        self.browser.save_screenshot(os.path.join(SCREENSHOTS, name + ".png"))

    def find(self, css):
        from selenium.webdriver.common.by import By
        return self.browser.find_element(By.CSS_SELECTOR, css)

    def find_all(self, css):
        from selenium.webdriver.common.by import By
        return self.browser.find_elements(By.CSS_SELECTOR, css)

    def navigate(self, element):
        """Clicks `element` and waits until the next page has replaced this one."""
        from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
        from selenium.webdriver.support.ui import WebDriverWait
        page = self.find("html")
        element.click()

        def replaced(_):
            try:
                page.is_enabled()
                return False
            except StaleElementReferenceException:
                return True
            except WebDriverException as error:
                # While the next page replaces this one, Chromium may answer a question about
                # the old page's node with this inspector error instead of a stale-element one.
                if "does not belong to the document" in str(error):
                    return True
                raise

        WebDriverWait(self.browser, 30).until(replaced)

    def sign_in(self, name, password):
        self.browser.delete_all_cookies()
        self.open("/console/flags")
        self.assertIn("/console/login", self.browser.current_url)
        self.find("#name").send_keys(name)
        self.find("#password").send_keys(password)
        self.navigate(self.find("#sign-in"))
        self.assertEqual(self.find("h1").text, "Flags")

    def sign_out(self):
        self.navigate(self.find("#sign-out"))
        self.assertIn("/console/login", self.browser.current_url)

    def switch(self, environment, reason):
        self.open("/console/flags")
        cell = "switch-%s-%s" % (FLAG, environment)
        self.find("#" + cell).click()
        self.find("#%s-reason" % cell).send_keys(reason)
        self.navigate(self.find("#%s-confirm" % cell))
        self.assertIn("Saved: the flag was switched.", self.find("main").text)

    def evaluate(self, targeting_key):
        status, body = self.server.api(
            "POST", "/ofrep/v1/evaluate/flags/" + FLAG, self.client_token, {"context": {"targetingKey": targeting_key}})
        self.assertEqual(status, 200, body)
        return body

    def production_settings(self):
        status, body = self.server.api(
            "GET", "/admin/v1/environments/production/flags/" + FLAG, self.server.admin_token)
        self.assertEqual(status, 200, body)
        return body["settings"]

    # The walk

    def test_1_an_admin_creates_rolls_out_kills_and_reverts_a_flag(self):
        self.open("/console/flags")
        self.shot("01-sign-in")
        self.sign_in("admin", self.server.admin_password)
        self.shot("02-flags-empty")

        # Create a flag (off everywhere).
        self.navigate(self.find("#new-flag"))
        self.find("#key").send_keys(FLAG)
        self.find("#owner").send_keys("web")
        self.find("#description").send_keys("The checkout rebuilt for the browser <b>not bold</b>")
        self.find("#removalTarget").send_keys("3.0")
        self.shot("03-new-flag")
        self.navigate(self.find("#create"))
        self.assertIn("The flag was created", self.find("main").text)
        self.assertIn("<b>not bold</b>", self.find("#flag-description").text)
        self.assertFalse(self.production_settings()["enabled"])

        # Turn it on in production, then roll it out to 10 %.
        self.switch("production", "launch behind a rollout")
        self.assertEqual(self.evaluate("user-1")["reason"], "STATIC")
        self.open("/console/flags/%s?environment=production" % FLAG)
        self.find("#percent-on").clear()
        self.find("#percent-on").send_keys("10")
        self.find("#percent-off").clear()
        self.find("#percent-off").send_keys("80")
        self.assertIn("must be 100", self.find("#rollout-total").text)
        self.find("#percent-off").clear()
        self.find("#percent-off").send_keys("90")
        self.assertEqual(self.find("#rollout-total").text, "Total: 100%")
        self.navigate(self.find("#preview-rollout"))
        self.assertIn("Preview over 1000 sample users", self.find("#preview").text)
        self.shot("04-rollout-preview")
        self.find("#rollout-reason").send_keys("10 % rollout")
        self.navigate(self.find("#save-rollout"))
        self.assertIn("Saved.", self.find("main").text)
        self.assertIn("rollout off 90% · on 10%", self.find("main").text)
        self.shot("05-flag-rolled-out")
        # (90 users: the client token's rate limit allows a burst of 100 requests.)
        served = [self.evaluate("user-%d" % number) for number in range(90)]
        on = sum(1 for result in served if result.get("value") is True)
        self.assertTrue(2 <= on <= 20, "%d of 90 users got the flag on a 10 %% rollout" % on)
        self.assertEqual({result["reason"] for result in served}, {"TARGETING_MATCH"})

        # The rule's JSON (behind the rule builder) is checked with the server's validator as it
        # is typed.
        self.find("#targeting-show-json").click()
        rule = self.find("#targeting")
        rule.clear()
        rule.send_keys('{"nope": [1]}')
        from selenium.webdriver.support.ui import WebDriverWait
        WebDriverWait(self.browser, 20).until(lambda _: "nope" in self.find("#targeting-status").text)
        self.assertEqual(rule.get_attribute("aria-invalid"), "true")
        self.shot("06-rule-validation")

        # Kill it with a reason: apps see DISABLED.
        self.switch("production", "incident 42")
        self.shot("07-flags-killed")
        self.assertEqual(self.evaluate("user-1")["reason"], "DISABLED")
        self.assertFalse(self.production_settings()["enabled"])

        # History shows the kill with its diff; revert to the rollout.
        self.open("/console/history?flag=" + FLAG)
        entries = self.find_all("li.entry")
        kill = [entry for entry in entries if "Reason: incident 42" in entry.text]
        self.assertEqual(len(kill), 1)
        self.assertIn("settings.enabled true false", kill[0].find_element("css selector", "table.diff").text)
        self.assertIn("admin", kill[0].find_element("css selector", ".actor").text)
        self.shot("08-history")
        rollout = [entry for entry in entries if "Reason: 10 % rollout" in entry.text]
        self.assertEqual(len(rollout), 1)
        self.navigate(rollout[0].find_element("css selector", "button[id$='-revert']"))
        self.assertIn("Reverted", self.find("main").text)
        self.shot("09-history-reverted")
        self.assertTrue(self.production_settings()["enabled"])
        self.assertEqual(self.evaluate("user-1")["reason"], "TARGETING_MATCH")
        self.sign_out()

    def test_2_a_viewer_sees_everything_and_changes_nothing(self):
        password = self.server.add_user("vera", "viewer")
        before = self.production_settings()
        self.sign_in("vera", password)
        self.assertIn("you can see everything and change nothing", self.find("#viewer-note").text)
        self.assertEqual(self.find_all("details.switch"), [])
        disabled = self.find_all("td.cell button[disabled]")
        self.assertTrue(disabled)
        self.shot("10-viewer-flags")

        self.open("/console/flags/%s?environment=production" % FLAG)
        self.assertEqual(self.find_all("#save-rollout"), [])
        self.assertEqual(self.find_all("#save-settings"), [])
        self.assertTrue(self.find_all("#rollout-form button[disabled]"))
        self.shot("11-viewer-flag")

        self.open("/console/history?flag=" + FLAG)
        self.assertEqual(self.find_all("form.revert"), [])
        self.assertTrue(self.find_all("li.entry button[disabled]"))
        self.shot("12-viewer-history")

        # The other pages, read-only.
        self.open("/console/evaluate?environment=production&targetingKey=user-1&attributes=%7B%22plan%22%3A%22pro%22%7D")
        self.assertIn("TARGETING_MATCH", self.find("#result-%s" % FLAG).text)
        self.shot("13-viewer-evaluate")
        self.open("/console/environments?left=staging&right=production")
        self.assertIn("differs", self.find("#compare-%s" % FLAG).text)
        self.assertTrue(self.find_all("#compare-%s button[disabled]" % FLAG))
        self.shot("14-viewer-environments")
        self.open("/console/tokens")
        self.assertIn("browser-test-app", self.find("main").text)
        self.assertNotIn(self.client_token, self.browser.page_source)
        self.shot("15-viewer-tokens")

        # A forged form post with the viewer's own session and CSRF token is refused.
        self.open("/console/flags")
        self.browser.execute_script(
            """
            const form = document.createElement("form");
            form.method = "post";
            form.action = "/console/flags/%s/environments/production/switch";
            for (const [name, value] of [["_csrf", document.querySelector("input[name=_csrf]").value],
                                         ["enabled", "false"], ["reason", "viewer tries"]]) {
              const input = document.createElement("input");
              input.type = "hidden"; input.name = name; input.value = value;
              form.appendChild(input);
            }
            document.body.appendChild(form);
            form.submit();
            """ % FLAG)
        from selenium.webdriver.support.ui import WebDriverWait
        WebDriverWait(self.browser, 20).until(lambda _: self.find_all("#refusal"))
        self.assertIn("Your role (viewer) cannot change anything here", self.find("#refusal").text)
        self.shot("16-viewer-refused")
        self.assertEqual(self.production_settings(), before)

    def test_3_the_new_flag_form_proposes_variants_of_the_chosen_type(self):
        from selenium.webdriver.support.ui import Select
        self.sign_in("admin", self.server.admin_password)
        self.open("/console/new-flag")
        variants = self.find("#variants")
        self.assertEqual(json.loads(variants.get_attribute("value")), {"on": True, "off": False})

        # Switching the type replaces the proposed Boolean variants with the new type's.
        Select(self.find("#type")).select_by_visible_text("string")
        proposed = json.loads(variants.get_attribute("value"))
        self.assertTrue(proposed and all(isinstance(value, str) for value in proposed.values()), proposed)
        self.shot("17-new-flag-string")
        self.find("#key").send_keys("browser-copy")
        self.navigate(self.find("#create"))
        self.assertIn("The flag was created", self.find("main").text)
        status, flag = self.server.api("GET", "/admin/v1/flags/browser-copy", self.server.admin_token)
        self.assertEqual(status, 200, flag)
        self.assertEqual(flag["type"], "string")
        self.assertEqual(flag["variants"], proposed)

        # Variants the user wrote are kept on a type change, with a word that they must match it.
        self.open("/console/new-flag")
        self.find("#variants-show-json").click()
        variants = self.find("#variants")
        variants.clear()
        variants.send_keys('{"a": true}')
        Select(self.find("#type")).select_by_visible_text("integer")
        self.assertEqual(variants.get_attribute("value"), '{"a": true}')
        self.assertIn("every value must be of type integer", self.find("#variants-status").text)
        self.sign_out()


if __name__ == "__main__":
    unittest.main(verbosity=2)

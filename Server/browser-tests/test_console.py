#!/usr/bin/env python3
"""Browser tests of the flag server's web console: headless Chromium driven by Selenium.

Starts the real `flag-server` binary on a free port with a temporary data directory, then walks
the console as an admin (sign in, create a flag, turn it on from the grid's switch with the reason
asked in a dialog, roll it out to 10 %, kill it, find the change in the history with its diff,
revert it) checking every step through OFREP, as a viewer (sees everything, can change nothing),
through the new-flag form's type switch, with the keyboard (`/`, j/k and arrows, Enter), without
JavaScript (the switch asks its reason on a page), and finally every page through axe-core (no
serious or critical violation) in the light and the dark theme at laptop (1366×900) and phone
(390×844) widths, with a full-page screenshot of each: Server/.build/console-screenshots/
(CI keeps them as artifacts).

Needs: chromium and chromedriver (Debian: apt-get install -y chromium chromium-driver), selenium
and axe-core's script (pip install selenium; pip install --no-deps axe-playwright-python, which
ships axe.min.js: the tests inject it through Selenium, Playwright is not needed), and
a built server (swift build --package-path Server). Missing pieces FAIL the run with a message
saying what to install; nothing is skipped.

Run: python3 -m unittest discover -s Server/browser-tests -v
"""
import base64
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
    axe_script()
    return chromium, driver


def start_browser(window_size="1400,1000"):
    """Headless Chromium driven by Selenium, as every browser test (and the grid measurement) uses it."""
    chromium, driver = find_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=" + window_size):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


def create_client_token(server, name):
    """A production client token named NAME, through the admin API."""
    status, created = server.api(
        "POST", "/admin/v1/tokens", server.admin_token, {"name": name, "environment": "production", "role": "client"})
    assert status == 201, created
    return created["token"]


def axe_script():
    """axe-core's script, as the PyPI package axe-playwright-python ships it (installed without its
    Playwright dependency: the script is injected through Selenium here)."""
    import importlib.util
    spec = importlib.util.find_spec("axe_playwright_python")
    path = spec and os.path.join(os.path.dirname(spec.origin), "axe.min.js")
    if not path or not os.path.exists(path):
        raise AssertionError(
            "axe-core is missing: python3 -m pip install --no-deps axe-playwright-python (it ships axe.min.js)")
    with open(path, encoding="utf-8") as file:
        return file.read()


# The page sizes every page is checked and photographed at: (name, width, height, mobile).
VIEWPORTS = (("laptop", 1366, 900, False), ("phone", 390, 844, True))
THEMES = ("light", "dark")

# On a phone nothing may run off the page's right edge (content inside a box that scrolls sideways,
# such as a wide table, may): answers the outermost such elements as "tag#id.class: N px", or [] when
# the page is no wider than the screen.
WIDER_THAN_SCREEN = """
const limit = document.documentElement.clientWidth;
if (document.documentElement.scrollWidth <= limit) { return []; }
const clipped = (element) => {
  for (let box = element.parentElement; box && box !== document.body; box = box.parentElement) {
    if (getComputedStyle(box).overflowX !== 'visible') { return true; }
  }
  return false;
};
const found = [];
for (const element of document.body.querySelectorAll('*')) {
  const right = element.getBoundingClientRect().right;
  if (right <= limit + 1 || clipped(element)) { continue; }
  if (found.some((outer) => outer.contains(element))) { continue; }
  found.push(element);
}
return found.slice(0, 8).map((element) =>
  element.tagName.toLowerCase() + (element.id ? '#' + element.id : '')
  + (element.className && typeof element.className === 'string' ? '.' + element.className.trim().split(/\\s+/).join('.') : '')
  + ': right edge at ' + Math.round(element.getBoundingClientRect().right) + ' px of ' + limit);
"""


class Server:
    """The real binary on a free port (port 0, read back from its log) with its own data."""

    def __init__(self, arguments=()):
        self.binary = find_binary()
        self.data = tempfile.mkdtemp(prefix="flag-server-browser-")
        self.process = subprocess.Popen(
            [self.binary, "serve", "--port", "0", "--data-directory", self.data, "--log-level", "info", *arguments],
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


class BrowserSuite:
    """A console server and a Chromium driving it, shared by the tests of a class (mixed into a
    `unittest.TestCase`): the class's set-up and tear-down, the admin API and the page helpers."""

    server_arguments = ()
    # A client token of production by this name, in `cls.client_token`; None: none.
    client_token_name = None

    @classmethod
    def prepare(cls):
        """What the suite sets up on its server before its tests (where the console has no form)."""

    @classmethod
    def setUpClass(cls):
        find_browser()
        cls.server = Server(cls.server_arguments)
        try:
            if cls.client_token_name:
                cls.client_token = create_client_token(cls.server, cls.client_token_name)
            cls.browser = start_browser()
            cls.prepare()
        except BaseException:
            if hasattr(cls, "browser"):
                cls.browser.quit()
            cls.server.stop()
            raise
        os.makedirs(SCREENSHOTS, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        cls.server.stop()

    def api(self, method, path, body=None):
        """An admin API call that must succeed (status below 300); its answer."""
        status, reply = self.server.api(method, path, self.server.admin_token, body)
        self.assertLess(status, 300, reply)
        return reply

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

    def open_details(self, element, css):
        """Opens the `<details>` under `element` matched by `css` (its summary clicked)."""
        details = element.find_element("css selector", css)
        if details.get_attribute("open") is None:
            details.find_element("css selector", "summary").click()
        return details

    def check_page(self, name):
        """Runs axe-core on the page in both themes at both widths (failing on any serious or
        critical violation) and saves a full-page screenshot of each: NAME-THEME-WIDTH.png."""
        script = axe_script()
        try:
            for theme in THEMES:
                self.browser.execute_cdp_cmd(
                    "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": theme}]})
                for label, width, height, mobile in VIEWPORTS:
                    self.browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
                    # Injected through WebDriver, so the page's Content-Security-Policy does not apply to it.
                    self.browser.execute_script(script)
                    results = self.browser.execute_async_script(
                        "const done = arguments[arguments.length - 1];"
                        "axe.run(document).then(done, (error) => done({error: String(error)}));")
                    self.assertNotIn("error", results, results.get("error"))
                    bad = [violation for violation in results["violations"] if violation["impact"] in ("serious", "critical")]
                    self.assertEqual(bad, [], "%s (%s, %s): axe-core %s found:\n%s" % (
                        name, theme, label, results["testEngine"]["version"], "\n".join(
                            "%s (%s): %s at %s" % (violation["id"], violation["impact"], violation["help"],
                                                    ", ".join(str(node["target"]) + " " + node.get("failureSummary", "")
                                                              for node in violation["nodes"][:5]))
                            for violation in bad)))
                    if mobile:
                        self.assertEqual(self.browser.execute_script(WIDER_THAN_SCREEN), [],
                                         "%s (%s, %s): the page is wider than the screen; these run off its right edge"
                                         % (name, theme, label))
                    page_height = self.browser.execute_script(
                        "return Math.max(document.documentElement.scrollHeight, document.body.scrollHeight)")
                    shot = self.browser.execute_cdp_cmd("Page.captureScreenshot", {
                        "format": "png", "captureBeyondViewport": True,
                        "clip": {"x": 0, "y": 0, "width": width, "height": min(max(page_height, height), 6000), "scale": 1}})
                    with open(os.path.join(SCREENSHOTS, "%s-%s-%s.png" % (name, theme, label)), "wb") as file:
                        file.write(base64.b64decode(shot["data"]))
        finally:
            self.browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
            self.browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})



class ConsoleBrowserTests(BrowserSuite, unittest.TestCase):
    client_token_name = "browser-test-app"

    # Helpers

    def switch(self, environment, reason):
        """Flips the flag's switch in the grid and gives the reason in the dialog it opens."""
        from selenium.webdriver.support.ui import WebDriverWait
        self.open("/console/flags")
        self.find("#switch-%s-%s" % (FLAG, environment)).click()
        WebDriverWait(self.browser, 10).until(lambda _: self.find("#switch-dialog").get_attribute("open") is not None)
        self.assertEqual(self.browser.switch_to.active_element, self.find("#switch-reason"))
        self.find("#switch-reason").send_keys(reason)
        self.navigate(self.find("#switch-confirm"))
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
        self.open("/console/flags")
        self.assertEqual(self.find("#flag-%s td[data-environment=production] .words" % FLAG).text, "on: 10 % rollout of on")
        self.open("/console/flags/%s?environment=production" % FLAG)
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
        # Words first; the field diff on demand.
        self.assertEqual("admin turned %s off in production" % FLAG, kill[0].find_element("css selector", ".what").text)
        diff = kill[0].find_element("css selector", "table.diff")
        self.assertFalse(diff.is_displayed())
        self.open_details(kill[0], "details.fields")
        self.assertIn("settings.enabled true false", diff.text)
        created = [entry for entry in entries if "created %s, off everywhere" % FLAG in entry.text]
        self.assertEqual(len(created), 1, "the creation is one entry across the environments")
        self.shot("08-history")
        rollout = [entry for entry in entries if "Reason: 10 % rollout" in entry.text]
        self.assertEqual(len(rollout), 1)
        self.assertIn("changed %s in production: now 10 %% rollout of on" % FLAG, rollout[0].text)
        self.open_details(rollout[0], "details.revert-box")
        self.navigate(rollout[0].find_element("css selector", "button[id$='-revert']"))
        self.assertIn("Reverted", self.find("main").text)
        # The filter stays; the revert is marked as one.
        self.assertEqual(self.find("#flag").get_attribute("value"), FLAG)
        newest = self.find_all("li.entry")[0]
        self.assertIn("revert", newest.find_element("css selector", ".badge.revert").text)
        self.assertIn("reverted %s to revision" % FLAG, newest.text)
        self.shot("09-history-reverted")
        self.assertTrue(self.production_settings()["enabled"])
        self.assertEqual(self.evaluate("user-1")["reason"], "TARGETING_MATCH")
        self.sign_out()

    def test_2_a_viewer_sees_everything_and_changes_nothing(self):
        password = self.server.add_user("vera", "viewer")
        before = self.production_settings()
        self.sign_in("vera", password)
        self.assertIn("you can see everything and change nothing", self.find("#viewer-note").text)
        self.assertEqual(self.find_all("form.switch-form"), [])
        self.assertEqual(self.find_all("#switch-dialog"), [])
        disabled = self.find_all("td.cell button[disabled]")
        self.assertTrue(disabled)
        self.shot("10-viewer-flags")
        self.check_page("viewer-flags")

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
        self.check_page("refused")
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

    def test_4_the_grid_works_from_the_keyboard(self):
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys
        self.sign_in("admin", self.server.admin_password)
        self.open("/console/flags")
        keys = [link.text for link in self.find_all("#flags-grid tbody a.key")]
        self.assertEqual(keys, sorted(keys))
        self.assertGreaterEqual(len(keys), 2)
        active = lambda: self.browser.switch_to.active_element
        # "/" focuses the search; Escape leaves it.
        ActionChains(self.browser).send_keys("/").perform()
        self.assertEqual(active().get_attribute("id"), "q")
        ActionChains(self.browser).send_keys(Keys.ESCAPE).perform()
        self.assertNotEqual(active().get_attribute("id"), "q")
        # j and k, then the arrows, move through the rows; focus is visible on each.
        ActionChains(self.browser).send_keys("j").perform()
        self.assertEqual(active().text, keys[0])
        self.assertNotEqual(active().value_of_css_property("outline-style"), "none")
        ActionChains(self.browser).send_keys("j").perform()
        self.assertEqual(active().text, keys[1])
        ActionChains(self.browser).send_keys("k").perform()
        self.assertEqual(active().text, keys[0])
        ActionChains(self.browser).send_keys(Keys.ARROW_DOWN).perform()
        self.assertEqual(active().text, keys[1])
        ActionChains(self.browser).send_keys(Keys.ARROW_UP).perform()
        self.assertEqual(active().text, keys[0])
        # Enter opens the flag.
        page = self.find("html")
        ActionChains(self.browser).send_keys(Keys.ENTER).perform()
        from selenium.webdriver.support.ui import WebDriverWait
        WebDriverWait(self.browser, 20).until(lambda _: "/console/flags/%s" % keys[0] in self.browser.current_url)
        del page
        # "/" then typing searches, and the search stays in the field.
        self.open("/console/flags")
        ActionChains(self.browser).send_keys("/").perform()
        ActionChains(self.browser).send_keys("copy" + Keys.ENTER).perform()
        WebDriverWait(self.browser, 20).until(lambda _: "q=copy" in self.browser.current_url)
        self.assertEqual([link.text for link in self.find_all("#flags-grid tbody a.key")], ["browser-copy"])
        self.assertEqual(self.find("#q").get_attribute("value"), "copy")
        self.sign_out()

    def test_5_the_switch_dialog_cancels_and_the_switch_works_without_javascript(self):
        from selenium.webdriver.common.keys import Keys
        from selenium.webdriver.support.ui import WebDriverWait
        self.sign_in("admin", self.server.admin_password)
        before = self.production_settings()
        self.open("/console/flags?q=browser")
        button = self.find("#switch-%s-production" % FLAG)
        button.click()
        dialog = self.find("#switch-dialog")
        WebDriverWait(self.browser, 10).until(lambda _: dialog.get_attribute("open") is not None)
        self.assertIn("Turn off %s in production" % FLAG, self.find("#switch-dialog-title").text)
        self.check_page("flags-switch-dialog")
        # Confirming without a reason is refused by the dialog itself.
        self.find("#switch-confirm").click()
        self.assertIsNotNone(dialog.get_attribute("open"))
        self.find("#switch-cancel").click()
        self.assertIsNone(dialog.get_attribute("open"))
        self.assertEqual(self.browser.switch_to.active_element, button)
        button.click()
        self.find("#switch-reason").send_keys(Keys.ESCAPE)
        self.assertIsNone(dialog.get_attribute("open"))
        self.assertEqual(self.production_settings(), before)

        # Without JavaScript the switch posts alone and the server asks the reason on a page;
        # afterwards the grid comes back with its search.
        self.browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
        try:
            self.open("/console/flags?q=browser")
            self.navigate(self.find("#switch-%s-production" % FLAG))
        finally:
            self.browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
        self.assertEqual(self.find("h1").text, "Turn off %s in production" % FLAG)
        self.assertEqual(self.production_settings(), before)
        self.check_page("switch-without-javascript")  # (axe needs script: the page stays as loaded without it)
        self.find("#switch-reason").send_keys("no script")
        self.navigate(self.find("#switch-confirm"))
        self.assertIn("q=browser", self.browser.current_url)
        self.assertIn("Saved: the flag was switched.", self.find("main").text)
        self.assertFalse(self.production_settings()["enabled"])
        self.switch("production", "back on after the no-script check")
        self.assertTrue(self.production_settings()["enabled"])
        self.sign_out()

    def test_6_every_page_passes_axe_in_both_themes_at_laptop_and_phone_widths(self):
        self.browser.delete_all_cookies()
        self.open("/console/login")
        self.check_page("login")
        self.sign_in("admin", self.server.admin_password)
        # A segment for the segment pages (before the flag: the history's newest entry is the
        # flag's, which has a revert box).
        status, body = self.server.api("PUT", "/admin/v1/environments/production/segments/browser-staff", self.server.admin_token, {
            "rule": {"ends_with": [{"var": "email"}, "@example.com"]}})
        self.assertEqual(status, 200, body)
        # A flag with tags and a removal target that is due, so the grid shows them.
        status, body = self.server.api("PUT", "/admin/v1/flags/browser-tagged", self.server.admin_token, {
            "type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off",
            "metadata": {"owner": "web", "removalTarget": "2.9", "custom": {"x-tags": "checkout, web"}}})
        self.assertEqual(status, 200, body)
        pages = [
            ("flags", "/console/flags"),
            ("flags-due", "/console/flags?due=3.0&tag=checkout"),
            ("flags-empty-search", "/console/flags?q=nothing-matches-this"),
            ("flag", "/console/flags/%s?environment=production" % FLAG),
            ("new-flag", "/console/new-flag"),
            ("history", "/console/history"),
            ("evaluate", "/console/evaluate?environment=production&targetingKey=user-1&attributes=%7B%7D"),
            ("environments", "/console/environments?left=staging&right=production"),
            ("tokens", "/console/tokens"),
            ("users", "/console/users"),
            ("segments", "/console/segments?environment=production"),
            ("segment", "/console/segments/production/browser-staff"),
        ]
        for name, path in pages:
            self.open(path)
            self.check_page(name)
        self.open("/console/flags?due=3.0&tag=checkout")
        self.assertEqual([link.text for link in self.find_all("#flags-grid tbody a.key")], ["browser-tagged"])
        self.assertEqual(self.find("#flag-browser-tagged .badge.due").text, "due")
        self.assertEqual([tag.text for tag in self.find_all("#flag-browser-tagged .tag")], ["checkout", "web"])
        # A tag is a link to the flags with that tag.
        self.open("/console/flags")
        self.navigate(self.find("#flag-browser-tagged .tag"))
        self.assertIn("tag=checkout", self.browser.current_url)
        self.open("/console/history")
        self.open_details(self.find_all("li.entry")[0], "details.fields")
        self.open_details(self.find_all("li.entry")[0], "details.revert-box")
        self.check_page("history-open")
        self.sign_out()


if __name__ == "__main__":
    unittest.main(verbosity=2)

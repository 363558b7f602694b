#!/usr/bin/env python3
"""Browser test of the console's single sign-on: headless Chromium through a real OpenID provider.

Starts scripts/tools/oidc_provider.py (Authlib) on `localhost` and the real `flag-server` on
`127.0.0.1` (two sites, so the provider's redirect back is a cross-site navigation, as in
production), with password sign-in turned off, then signs in by clicking "Sign in with …" and
checks that the browser lands on the flags page as the provider's user, with the role its group
maps to. Needs what test_console.py needs, plus Authlib (pip install authlib); missing pieces
FAIL the run.

Run: python3 -m unittest discover -s Server/browser-tests -p test_sso.py -v
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest

from test_console import SCREENSHOTS, SERVER_DIR, find_binary, find_browser, start_browser

CLIENT_SECRET = "browser-test-client-secret"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def read_until(process, pattern, what):
    deadline = time.monotonic() + 120
    seen = []
    while True:
        line = process.stdout.readline()
        if not line:
            raise AssertionError("%s exited early (status %s):\n%s" % (what, process.poll(), "".join(seen)))
        seen.append(line)
        match = re.search(pattern, line)
        if match:
            return match
        if time.monotonic() > deadline:
            raise AssertionError("%s did not start within 120 s:\n%s" % (what, "".join(seen)))


class SingleSignOnBrowserTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            import authlib  # noqa: F401
        except ImportError as error:
            raise AssertionError("authlib is missing: python3 -m pip install authlib") from error
        find_browser()
        binary = find_binary()

        cls.processes = []
        cls.data = tempfile.mkdtemp(prefix="flag-server-sso-")
        try:
            provider = subprocess.Popen(
                [sys.executable, os.path.join(SERVER_DIR, "scripts", "tools", "oidc_provider.py"), "--host", "localhost", "--port", "0",
                 "--client-id", "flag-console", "--client-secret", CLIENT_SECRET, "--user", "ana", "--groups", "staff,flag-admins"],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            cls.processes.append(provider)
            issuer = read_until(provider, r"listening on (\S+)", "the OpenID provider").group(1)
            port = free_port()
            cls.base = "http://127.0.0.1:%d" % port
            environment = dict(
                os.environ,
                FLAG_SERVER_OIDC_ISSUER=issuer, FLAG_SERVER_OIDC_CLIENT_ID="flag-console",
                FLAG_SERVER_OIDC_CLIENT_SECRET=CLIENT_SECRET,
                FLAG_SERVER_OIDC_REDIRECT_URL=cls.base + "/console/login/sso/callback",
                FLAG_SERVER_OIDC_ROLE_MAPPING="flag-admins=admin,flag-editors=editor",
                FLAG_SERVER_OIDC_NAME="Test IdP", FLAG_SERVER_PASSWORD_SIGN_IN="false")
            server = subprocess.Popen(
                [binary, "serve", "--port", str(port), "--data-directory", cls.data], env=environment,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            cls.processes.append(server)
            read_until(server, r"listening on http://", "flag-server")
            cls.browser = start_browser()
        except BaseException:
            cls.stop()
            raise
        os.makedirs(SCREENSHOTS, exist_ok=True)

    @classmethod
    def stop(cls):
        for process in reversed(cls.processes):
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(cls.data, ignore_errors=True)

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        cls.stop()

    def test_sign_in_through_the_provider_lands_on_the_flags_page_as_an_admin(self):
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions
        from selenium.webdriver.support.ui import WebDriverWait

        browser = self.browser
        browser.get(self.base + "/console/login")
        # Single sign-on only: no password form.
        self.assertEqual(browser.find_elements(By.ID, "password"), [])
        button = browser.find_element(By.ID, "sign-in-sso")
        self.assertIn("Sign in with Test IdP", button.text)
        browser.save_screenshot(os.path.join(SCREENSHOTS, "sso-login.png"))
        button.click()
        # To the provider (another site), straight back to the callback, then on to the flags page
        # with the session cookie (SameSite=Strict) sent.
        WebDriverWait(browser, 30).until(expected_conditions.url_to_be(self.base + "/console/flags"))
        self.assertIn("ana", browser.find_element(By.TAG_NAME, "body").text)
        browser.save_screenshot(os.path.join(SCREENSHOTS, "sso-flags.png"))
        # Admin from the flag-admins group: the users page lists ana.
        browser.get(self.base + "/console/users")
        row = browser.find_element(By.ID, "user-ana")
        self.assertIn("admin", row.text)


if __name__ == "__main__":
    unittest.main()

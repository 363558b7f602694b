#!/usr/bin/env python3
"""A small OpenID Connect provider for the flag server's single sign-on tests.

Authorization code flow with PKCE (S256 only), one confidential client, ID tokens signed with
Authlib's JOSE implementation (RS256 by default, ES256 on request). Every request is approved at
once (no login page): the person signing in is named by the command line (--user, --groups), or
per request by extra query parameters of the authorization request, which a test appends:

    test_user=alice  test_groups=flag-admins,ops  test_misbehave=<one of MISBEHAVIOURS>

so that tests running at the same time against one provider do not disturb each other.

    python3 oidc_provider.py --port 0 --client-id flag-console --client-secret s3cret
    -> prints "listening on http://127.0.0.1:<port>" on its first line of output.

Also: GET /test/stats (JSON: how often the JWKS was fetched) and POST /test/rotate (a new
signing key; the old one leaves the JWKS).
"""

import argparse
import base64
import hashlib
import json
import os
import secrets
import signal
import sys
import threading
import time
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

warnings.filterwarnings("ignore", message=".*authlib.jose module is deprecated.*")

from authlib.jose import JsonWebKey, jwt  # noqa: E402
from authlib.oauth2.rfc7636 import create_s256_code_challenge  # noqa: E402

MISBEHAVIOURS = {
    "wrong_audience",  # aud names another client
    "extra_audience_no_azp",  # aud names this client and another, without azp
    "expired",  # exp (and iat) an hour ago
    "issued_in_future",  # iat an hour ahead
    "forged_signature",  # signed with a key that is not in the JWKS (its kid is unknown)
    "forged_known_kid",  # signed with another key but claiming the published key's kid
    "wrong_nonce",  # nonce of another request
    "no_nonce",  # no nonce claim
    "wrong_issuer",  # iss of another provider
    "alg_none",  # an unsigned token (alg "none")
    "rotate_key",  # the provider rotates its key before signing: a kid the client has not seen
    "es256",  # signed with the provider's P-256 key
    "stall_token",  # the token endpoint sends its headers, then nothing for 60 s
    "huge_token_response",  # the token response is 1 MiB of JSON
}


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Provider:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.codes = {}
        self.jwks_fetches = 0
        self.key_number = 0
        self.rsa = self.new_rsa_key()
        self.ec = JsonWebKey.generate_key("EC", "P-256", is_private=True, options={"kid": "ec-1"})
        self.issuer = None

    def new_rsa_key(self):
        self.key_number += 1
        return JsonWebKey.generate_key("RSA", 2048, is_private=True, options={"kid": f"rsa-{self.key_number}"})

    def jwks(self):
        keys = []
        for key, alg in ((self.rsa, "RS256"), (self.ec, "ES256")):
            public = key.as_dict(is_private=False)
            public.update({"use": "sig", "alg": alg})
            keys.append(public)
        return {"keys": keys}

    def discovery(self):
        issuer = self.issuer
        return {
            "issuer": issuer,
            "authorization_endpoint": issuer + "/authorize",
            "token_endpoint": self.args.token_endpoint or issuer + "/token",
            "jwks_uri": issuer + "/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256", "ES256"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "scopes_supported": ["openid", "profile", "email", "groups"],
        }

    def id_token(self, grant):
        misbehave = grant["misbehave"]
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "sub": "sub-" + grant["user"],
            "aud": self.args.client_id,
            "iat": now,
            "exp": now + 300,
            "nonce": grant["nonce"],
            "preferred_username": grant["user"],
            "email": grant["user"] + "@example.test",
            "groups": grant["groups"],
        }
        if misbehave == "wrong_audience":
            claims["aud"] = "another-client"
        elif misbehave == "extra_audience_no_azp":
            claims["aud"] = [self.args.client_id, "another-client"]
        elif misbehave == "expired":
            claims["iat"] = now - 3600
            claims["exp"] = now - 3000
        elif misbehave == "issued_in_future":
            claims["iat"] = now + 3600
            claims["exp"] = now + 3900
        elif misbehave == "wrong_nonce":
            claims["nonce"] = secrets.token_urlsafe(16)
        elif misbehave == "no_nonce":
            del claims["nonce"]
        elif misbehave == "wrong_issuer":
            claims["iss"] = "https://another-provider.example"
        if misbehave == "alg_none":
            header = b64url(json.dumps({"alg": "none", "kid": self.rsa.as_dict()["kid"]}).encode())
            return header + "." + b64url(json.dumps(claims).encode()) + "."
        if misbehave == "rotate_key":
            with self.lock:
                self.rsa = self.new_rsa_key()
        if misbehave == "es256":
            key, alg = self.ec, "ES256"
        elif misbehave == "forged_signature":
            key, alg = JsonWebKey.generate_key("RSA", 2048, is_private=True, options={"kid": "forged"}), "RS256"
        else:
            key, alg = self.rsa, "RS256"
        kid = self.rsa.as_dict()["kid"] if misbehave == "forged_known_kid" else key.as_dict()["kid"]
        if misbehave == "forged_known_kid":
            key = JsonWebKey.generate_key("RSA", 2048, is_private=True)
        return jwt.encode({"alg": alg, "kid": kid, "typ": "JWT"}, claims, key).decode()


class Handler(BaseHTTPRequestHandler):
    provider: Provider = None

    def log_message(self, format, *args):  # quiet: tests read stdout
        if self.provider.args.verbose:
            sys.stderr.write("oidc_provider: " + (format % args) + "\n")

    def send_json(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-store")
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        provider = self.provider
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path == "/.well-known/openid-configuration":
            return self.send_json(200, provider.discovery())
        if url.path == "/jwks":
            with provider.lock:
                provider.jwks_fetches += 1
                body = provider.jwks()
            return self.send_json(200, body)
        if url.path == "/test/stats":
            return self.send_json(200, {"jwks_fetches": provider.jwks_fetches})
        if url.path == "/authorize":
            return self.authorize(query)
        self.send_json(404, {"error": "not_found"})

    def authorize(self, query):
        provider = self.provider
        problems = []
        if query.get("response_type") != "code":
            problems.append("response_type must be code")
        if query.get("client_id") != provider.args.client_id:
            problems.append("unknown client_id")
        if "openid" not in query.get("scope", "").split():
            problems.append("scope must include openid")
        if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
            problems.append("PKCE with S256 is required")
        for name in ("state", "nonce", "redirect_uri"):
            if not query.get(name):
                problems.append(name + " is missing")
        misbehave = query.get("test_misbehave", "")
        if misbehave and misbehave not in MISBEHAVIOURS:
            problems.append("unknown test_misbehave " + misbehave)
        if problems:
            return self.send_json(400, {"error": "invalid_request", "error_description": "; ".join(problems)})
        if query.get("test_deny"):
            location = query["redirect_uri"] + "?" + urlencode({"error": "access_denied", "state": query["state"]})
        else:
            code = secrets.token_urlsafe(24)
            groups = query.get("test_groups", provider.args.groups)
            with provider.lock:
                provider.codes[code] = {
                    "redirect_uri": query["redirect_uri"],
                    "challenge": query["code_challenge"],
                    "nonce": query["nonce"],
                    "user": query.get("test_user", provider.args.user),
                    "groups": [group for group in groups.split(",") if group],
                    "misbehave": misbehave,
                    "expires": time.time() + 60,
                }
            location = query["redirect_uri"] + "?" + urlencode({"code": code, "state": query["state"]})
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        provider = self.provider
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        if url.path == "/test/rotate":
            with provider.lock:
                provider.rsa = provider.new_rsa_key()
            return self.send_json(200, {"kid": provider.rsa.as_dict()["kid"]})
        if url.path != "/token":
            return self.send_json(404, {"error": "not_found"})
        form = {k: v[0] for k, v in parse_qs(body).items()}
        client_id, secret = form.get("client_id"), form.get("client_secret")
        authorization = self.headers.get("Authorization", "")
        if authorization.startswith("Basic "):
            decoded = base64.b64decode(authorization[6:]).decode()
            client_id, _, secret = decoded.partition(":")
        if client_id != provider.args.client_id or not secrets.compare_digest(secret or "", provider.args.client_secret):
            return self.send_json(401, {"error": "invalid_client"}, [("WWW-Authenticate", "Basic")])
        if form.get("grant_type") != "authorization_code":
            return self.send_json(400, {"error": "unsupported_grant_type"})
        with provider.lock:
            grant = provider.codes.pop(form.get("code", ""), None)
        if grant is None or grant["expires"] < time.time():
            return self.send_json(400, {"error": "invalid_grant", "error_description": "unknown or used code"})
        if form.get("redirect_uri") != grant["redirect_uri"]:
            return self.send_json(400, {"error": "invalid_grant", "error_description": "redirect_uri differs"})
        verifier = form.get("code_verifier", "")
        if not (43 <= len(verifier) <= 128) or create_s256_code_challenge(verifier) != grant["challenge"]:
            return self.send_json(400, {"error": "invalid_grant", "error_description": "PKCE verification failed"})
        if grant["misbehave"] == "stall_token":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b"{")
            self.wfile.flush()
            time.sleep(60)
            return
        if grant["misbehave"] == "huge_token_response":
            return self.send_json(200, {"padding": "x" * (1024 * 1024), "id_token": provider.id_token(grant)})
        self.send_json(200, {
            "access_token": secrets.token_urlsafe(24),
            "token_type": "Bearer",
            "expires_in": 300,
            "id_token": provider.id_token(grant),
        })


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--client-id", default="flag-console")
    parser.add_argument("--client-secret", required=True)
    parser.add_argument("--user", default="alice")
    parser.add_argument("--groups", default="flag-admins")
    parser.add_argument("--token-endpoint", help="announce another token endpoint (a misbehaving discovery document)")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--exit-with-stdin", action="store_true", help="exit when standard input closes")
    args = parser.parse_args()
    # A parent may start this with SIGTERM blocked (threads of a Swift test process do): unblock
    # it, so that the parent's terminate() ends the provider.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    provider = Provider(args)
    Handler.provider = provider
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    provider.issuer = f"http://{args.host}:{server.server_address[1]}"
    print("listening on " + provider.issuer, flush=True)
    if args.exit_with_stdin:
        # The test that started the provider holds its stdin open: when that process ends, so does this.
        def watch():
            sys.stdin.read()
            os._exit(0)

        threading.Thread(target=watch, daemon=True).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

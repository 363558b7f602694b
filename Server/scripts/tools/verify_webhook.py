#!/usr/bin/env python3
"""Checks a flag-server webhook signature the way a receiver does (Server/Docs/Webhooks.md).

Usage: verify_webhook.py SECRET SIGNATURE_HEADER NOW_UNIX_SECONDS < body
Prints "valid" and exits 0, or prints why not and exits 1. The tests run it on real deliveries,
so the snippet in the documentation is checked against the server.
"""
import hashlib
import hmac
import sys

TOLERANCE = 300  # seconds


def verify(secret: str, header: str, body: bytes, now: int) -> str:
    fields = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    timestamp = fields.get("t", "")
    if not timestamp.isdigit():
        return "no timestamp"
    if abs(now - int(timestamp)) > TOLERANCE:
        return "timestamp too far from now (replay?)"
    expected = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, fields.get("v1", "")):
        return "signature mismatch"
    return "valid"


if __name__ == "__main__":
    result = verify(sys.argv[1], sys.argv[2], sys.stdin.buffer.read(), int(sys.argv[3]))
    print(result)
    sys.exit(0 if result == "valid" else 1)

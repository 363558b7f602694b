#!/usr/bin/env python3
"""How long an experiment's results take to answer, at several numbers of units, beside an in-run
baseline (Python 3 standard library only).

    python3 Server/scripts/bench/bench_experiment_page.py FLAG_SERVER_BINARY [UNITS ...]   (default 10000 100000)

For each count it starts `flag-server serve` on a fresh SQLite directory (its default event store,
which counts experiment results), creates a flag split 50/50, 5 tracked events and 10 metrics over
them (conversion, mean and count; 4 with CUPED), an experiment on the flag with the 10 metrics, and
starts it. Then it sends UNITS units through `POST /ofrep/v1/ingestion` (an exposure each, in the
arm the split gives, 2 tracked events each, batches of 500 events) and times:

- `GET …/results?refresh=true` right after the ingest: the page counting what arrived itself
  (what the server's background count, every 60 s, had not counted yet: with a long ingest, part
  of the units), then 5 times more with nothing new;
- `GET …/results`: the page reading the totals counted last (`ExperimentResultsCache`), 30 times;
- `GET …/results?segment=appVersion`: the same with results by app version (the units' segments
  read from the event store on every request; the batches come from 3 app versions), 10 times;
- `GET /health`: the same HTTP stack answering a fixed body (the baseline), 30 times.

Prints a Markdown table (medians and the slowest of the 30).
"""
import hashlib
import http.client
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

EVENTS = ["purchase", "add_to_cart", "search", "session_length", "error"]
METRICS = [
    ("purchase-rate", "purchase", "conversion", False), ("revenue", "purchase", "mean", True),
    ("purchases", "purchase", "count", False), ("cart-rate", "add_to_cart", "conversion", False),
    ("carts", "add_to_cart", "count", True), ("search-rate", "search", "conversion", False),
    ("searches", "search", "count", True), ("session-length", "session_length", "mean", True),
    ("error-rate", "error", "conversion", False), ("errors", "error", "count", False),
]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def request(port, method, path, token, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    headers = {"Authorization": "Bearer " + token}
    payload = None
    if body is not None:
        payload = json.dumps(body, separators=(",", ":"))
        headers["Content-Type"] = "application/json"
        if "batchId" in body:
            headers["Idempotency-Key"] = body["batchId"]
    connection.request(method, path, body=payload, headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def call(port, method, path, token, body=None, expected=(200, 201, 202)):
    status, data = request(port, method, path, token, body)
    if status not in expected:
        sys.exit("%s %s answered %d: %s" % (method, path, status, data[:500]))
    return json.loads(data) if data else None


def timed(port, path, token, times):
    durations = []
    for _ in range(times):
        start = time.perf_counter()
        status, _ = request(port, "GET", path, token)
        durations.append((time.perf_counter() - start) * 1000)
        if status != 200:
            sys.exit("GET %s answered %d" % (path, status))
    return durations


def arm(key):
    """The arm a unit gets: any fixed 50/50 assignment does, the results count what exposures say."""
    return "on" if hashlib.sha256(key.encode()).digest()[0] % 2 else "off"


def run(binary, units):
    directory = tempfile.mkdtemp(prefix="bench-experiment-page-")
    port = free_port()
    server = subprocess.Popen(
        [binary, "serve", "--port", str(port), "--data-directory", directory, "--rate-limit-per-second", "0",
         "--log-level", "warning"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        token = None
        for line in server.stdout:
            if line.strip().startswith("ffs_"):
                token = line.strip()
                break
        if not token:
            sys.exit("the server printed no admin token")
        for _ in range(600):
            try:
                if request(port, "GET", "/health/ready", token)[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)  # on purpose: waiting for the server to listen
        call(port, "PUT", "/admin/v1/flags/checkout", token,
             {"type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off"})
        call(port, "PUT", "/admin/v1/environments/production/flags/checkout/settings", token,
             {"enabled": True, "defaultVariant": "off", "targeting": {"fractional": [["on", 50], ["off", 50]]}})
        for key, event, kind, cuped in METRICS:
            call(port, "POST", "/admin/v1/metrics", token,
                 {"key": key, "name": key, "event": event, "kind": kind, "windowHours": 168, "cuped": cuped})
        base = "/admin/v1/environments/production/experiments"
        call(port, "POST", base, token, {"id": "page", "flag": "checkout", "control": "off", "arms": ["off", "on"],
                                         "metrics": [key for key, _, _, _ in METRICS]})
        call(port, "POST", base + "/page/start", token, {})
        client = call(port, "POST", "/admin/v1/tokens", token,
                      {"name": "bench", "environment": "production", "role": "client"})["token"]
        time.sleep(0.01)  # on purpose: exposures must come after the start
        generator = random.Random(units)
        now = int(time.time() * 1000)
        ingest_start = time.perf_counter()
        batch, sent = None, 0
        for index in range(units):
            if batch is None:
                batch = {"version": 1, "batchId": "b-%d-%d" % (units, sent),
                         "source": {"appVersion": "1.%d" % (sent % 3), "buildConfiguration": "release", "platform": "iOS"},
                         "exposures": [], "summaries": [], "events": []}
            key = "u%07d" % index
            variant = arm(key)
            batch["exposures"].append({"flag": "checkout", "variant": variant, "reason": "TARGETING_MATCH", "unit": key,
                                       "time": now})
            for _ in range(2):
                batch["events"].append({"name": generator.choice(EVENTS), "value": round(generator.expovariate(0.1), 2),
                                        "unit": key, "variants": {"checkout": variant}, "time": now + 1})
            if len(batch["exposures"]) * 3 >= 498 or index == units - 1:
                call(port, "POST", "/ofrep/v1/ingestion", client, batch)
                sent += 1
                batch = None
        ingest_seconds = time.perf_counter() - ingest_start
        results = base + "/page/results"
        first_count = timed(port, results + "?refresh=true", token, 1)[0]
        report = call(port, "GET", results, token)
        counted = sum(entry["units"] for entry in report["units"])
        if counted != units:
            sys.exit("the first count found %d units of %d (ingestion not committed?)" % (counted, units))
        nothing_new = timed(port, results + "?refresh=true", token, 5)
        cached = timed(port, results, token, 30)
        segments = timed(port, results + "?segment=appVersion", token, 10)
        health = timed(port, "/health", token, 30)
        return {"units": units, "ingest": ingest_seconds, "first": first_count, "nothingNew": nothing_new,
                "cached": cached, "segments": segments, "health": health}
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(directory, ignore_errors=True)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary, counts = sys.argv[1], [int(count) for count in sys.argv[2:]] or [10_000, 100_000]
    print("# %s, load average %.2f on %d cores, 10 metrics, SQLite event store" % (
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.getloadavg()[0], os.cpu_count()))
    print("| units | ingest | `refresh=true` after the ingest | `refresh=true`, nothing new, p50 | cached, p50 / max "
          "| `segment=appVersion`, p50 / max | `GET /health`, p50 / max |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for units in counts:
        r = run(binary, units)
        print("| {:,} | {:.1f} s | {:.0f} ms | {:.1f} ms | {:.1f} / {:.1f} ms | {:.0f} / {:.0f} ms | {:.2f} / {:.2f} ms |".format(
            r["units"], r["ingest"], r["first"], statistics.median(r["nothingNew"]), statistics.median(r["cached"]),
            max(r["cached"]), statistics.median(r["segments"]), max(r["segments"]), statistics.median(r["health"]),
            max(r["health"])), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Measures flag-server replicas over one PostgreSQL (run through propagation_bench.sh).

1. Propagation: 200 settings changes written on replica A, each timed until replica B's
   server-sent-event stream announces its revision. Printed: median and p99, from A's
   acknowledgement and from the request's start (an upper bound of commit -> event).
2. OFREP bulk throughput with wrk: one replica alone, then two replicas loaded together,
   beside GET /health on one replica (a fixed response: the in-run baseline).
3. Recovery: PostgreSQL restarted (pg_ctl stop -m fast, start); the time until both
   replicas answer /health/ready 200 again, from PostgreSQL accepting connections again.
"""
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_support import EventStream, request, start  # noqa: E402

EXECUTABLE, DATABASE_URL, CONTROL = sys.argv[1], sys.argv[2], sys.argv[3]
LUA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "propagation_bench.lua")
CHANGES = int(os.environ.get("FLAG_SERVER_BENCH_CHANGES", "200"))
WRK_SECONDS = os.environ.get("FLAG_SERVER_BENCH_WRK_SECONDS", "10")
PROCESSES = []


def start_replica(name):
    process, port, token = start(
        f"replica {name}", EXECUTABLE,
        ["serve", "--port", "0", "--database-url", DATABASE_URL, "--log-level", "info", "--rate-limit-per-second", "0"],
        PROCESSES)
    return process, port, token


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def wrk(port, token, script, threads, connections):
    environment = dict(os.environ, FLAG_SERVER_BENCH_TOKEN=token or "")
    arguments = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{WRK_SECONDS}s"]
    if script:
        arguments += ["-s", script]
        url = f"http://127.0.0.1:{port}/ofrep/v1/evaluate/flags"
    else:
        url = f"http://127.0.0.1:{port}/health"
    return subprocess.Popen(arguments + [url], stdout=subprocess.PIPE, text=True, env=environment)


def requests_per_second(process):
    output = process.communicate()[0]
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if bad:
        sys.exit(f"wrk saw {bad.group(1)} non-2xx responses:\n{output}")
    return rate


def main():
    a, port_a, admin = start_replica("A")
    if not admin:
        sys.exit("replica A created no first admin token: use a fresh schema")
    status, created = request(port_a, "POST", "/admin/v1/tokens", admin,
                              {"name": "bench", "environment": "production", "role": "client"})
    assert status == 201, created
    client = created["token"]
    for index in range(20):
        status, _ = request(port_a, "PUT", f"/admin/v1/flags/flag-{index}", admin,
                            {"type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off"})
        assert status == 200
        request(port_a, "PUT", f"/admin/v1/environments/production/flags/flag-{index}/settings", admin,
                {"enabled": True, "defaultVariant": "on",
                 "targeting": {"if": [{"==": [{"var": "country"}, "DE"]}, "on", "off"]}})
    _, port_b, _ = start_replica("B")
    try:
        stream = EventStream(port_b, client)
        from_ack, from_start = [], []
        for index in range(CHANGES):
            started = time.perf_counter()
            status, reply = request(port_a, "PUT", "/admin/v1/environments/production/flags/flag-0/settings", admin,
                                    {"enabled": index % 2 == 0, "defaultVariant": "on"})
            acknowledged = time.perf_counter()
            assert status == 200, reply
            revision = reply["revisions"]["production"]
            arrived = stream.wait(revision)
            if arrived is None:
                sys.exit(f"revision {revision} did not reach replica B's stream")
            from_ack.append((arrived - acknowledged) * 1000)
            from_start.append((arrived - started) * 1000)
        print(f"propagation A -> SSE on B, {CHANGES} changes (ms):")
        print(f"  after A's acknowledgement  median {statistics.median(from_ack):7.2f}  p99 {percentile(from_ack, 0.99):7.2f}")
        print(f"  after the write request    median {statistics.median(from_start):7.2f}  p99 {percentile(from_start, 0.99):7.2f}")
        print(f"  (the write request itself  median {statistics.median([s - a for s, a in zip(from_start, from_ack)]):7.2f})")

        baseline = requests_per_second(wrk(port_a, None, None, 2, 32))
        one = requests_per_second(wrk(port_a, client, LUA, 2, 32))
        pair = [wrk(port, client, LUA, 1, 16) for port in (port_a, port_b)]
        two = sum(requests_per_second(process) for process in pair)
        print(f"throughput, wrk {WRK_SECONDS}s, 32 connections in all (requests/s):")
        print(f"  baseline GET /health, one replica      {baseline:10.0f}")
        print(f"  OFREP bulk (20 flags), one replica     {one:10.0f}")
        print(f"  OFREP bulk (20 flags), two replicas    {two:10.0f}  ({two / one:.2f}x)")

        def ready(port):
            try:
                return request(port, "GET", "/health/ready")[0] == 200
            except OSError:
                return False

        stopped = time.perf_counter()
        subprocess.run([CONTROL, "stop"], check=True)
        down = time.perf_counter()
        while ready(port_a) or ready(port_b):
            time.sleep(0.01)
        noticed = time.perf_counter()
        subprocess.run([CONTROL, "start"], check=True)
        up = time.perf_counter()
        while not (ready(port_a) and ready(port_b)):
            time.sleep(0.01)
        recovered = time.perf_counter()
        print("PostgreSQL restart (s):")
        print(f"  both replicas not ready {noticed - down:6.2f} after PostgreSQL stopped (stop took {down - stopped:.2f})")
        print(f"  both replicas ready     {recovered - up:6.2f} after PostgreSQL accepted connections again")
        status, after = request(port_b, "POST", "/ofrep/v1/evaluate/flags", client, {"context": {"country": "DE"}})
        print(f"  B served during and after: status {status}, {len(after['flags'])} flags")
    finally:
        for process in PROCESSES:
            process.terminate()
            process.wait()


main()

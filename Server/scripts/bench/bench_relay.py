"""Measures a chain of two relays: event delay at a client of the second relay beside a client of
the server, and resident memory with many flags. Run by bench_relay.sh."""
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_support import EventStream, production_revision, request, start  # noqa: E402

EXECUTABLE = sys.argv[1]
CHANGES = int(os.environ.get("FLAG_SERVER_BENCH_CHANGES", "100"))
FLAGS = int(os.environ.get("FLAG_SERVER_BENCH_FLAGS", "10000"))
processes = []


def rss_mib(process):
    with open(f"/proc/{process.pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def summary(values):
    milliseconds = [v * 1000 for v in values]
    return (f"p50 {statistics.median(milliseconds):.1f} ms, p99 {percentile(milliseconds, 0.99):.1f} ms, "
            f"max {max(milliseconds):.1f} ms")


def main():
    data = tempfile.mkdtemp(prefix="bench-relay-")
    server, server_port, admin = start(
        "server", EXECUTABLE, ["serve", "--port", "0", "--data-directory", data, "--rate-limit-per-second", "0", "--write-timeout-seconds", "600", "--log-level", "info"], processes)
    status, created = request(server_port, "POST", "/admin/v1/tokens", admin,
                              {"name": "bench-client", "environment": "production", "role": "client"})
    client = created["token"]
    status, created = request(server_port, "POST", "/admin/v1/tokens", admin,
                              {"name": "bench-relay", "environment": "production", "role": "server"})
    follower = created["token"]
    request(server_port, "PUT", "/admin/v1/flags/bench", admin,
            {"type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off"})
    relay_arguments = ["relay", "--port", "0", "--rate-limit-per-second", "0", "--log-level", "info"]
    relay1, relay1_port, _ = start("relay 1", EXECUTABLE, relay_arguments + ["--upstream", f"http://127.0.0.1:{server_port}"],
                                   processes, {"FLAG_SERVER_RELAY_TOKEN": follower})
    relay2, relay2_port, _ = start("relay 2", EXECUTABLE, relay_arguments + ["--upstream", f"http://127.0.0.1:{relay1_port}"],
                                   processes, {"FLAG_SERVER_RELAY_TOKEN": follower})
    for _ in range(600):
        if request(relay2_port, "GET", "/health/ready")[0] == 200:
            break
        time.sleep(0.05)  # on purpose: polling a process's readiness
    at_server = EventStream(server_port, client)
    at_relay = EventStream(relay2_port, client)
    time.sleep(0.5)  # on purpose: let both streams open before the first change

    server_delays, relay_delays, acknowledged = [], [], []
    for change in range(CHANGES):
        sent = time.perf_counter()
        status, reply = request(server_port, "PUT", "/admin/v1/environments/production/flags/bench/settings", admin,
                                {"enabled": change % 2 == 0, "defaultVariant": "on"})
        if status != 200:
            sys.exit(f"change {change} failed: {status} {reply}")
        done = time.perf_counter()
        revision = production_revision(server_port, admin)
        server_seen = at_server.wait(revision)
        relay_seen = at_relay.wait(revision)
        if server_seen is None or relay_seen is None:
            sys.exit(f"revision {revision} did not arrive (server {server_seen}, relay {relay_seen})")
        acknowledged.append(done - sent)
        server_delays.append(server_seen - sent)
        relay_delays.append(relay_seen - sent)
    print(f"changes: {CHANGES} (write request sent -> event)")
    print(f"  write acknowledged:                 {summary(acknowledged)}")
    print(f"  event at a client of the server:    {summary(server_delays)}   (baseline)")
    print(f"  event at a client of relay 2:       {summary(relay_delays)}")
    print(f"  relay 2 after the server's event:   {summary([r - s for r, s in zip(relay_delays, server_delays)])}")

    before = {name: rss_mib(p) for name, p in [("server", server), ("relay 1", relay1), ("relay 2", relay2)]}
    flags = {f"flag-{index:05d}": {"state": "ENABLED", "variants": {"on": True, "off": False},
                                   "defaultVariant": "on" if index % 2 else "off"} for index in range(FLAGS)}
    for index in range(0, FLAGS, 10):  # a tenth of the flags targeted
        flags[f"flag-{index:05d}"]["targeting"] = {"if": [{"==": [{"var": "plan"}, "pro"]}, "on", "off"]}
    started = time.perf_counter()
    status, reply = request(server_port, "POST", "/admin/v1/environments/production/import?format=flagd", admin,
                            raw=json.dumps({"flags": flags}), timeout=3600)
    if status != 200:
        sys.exit(f"import failed: {status} {str(reply)[:500]}")
    imported = time.perf_counter() - started
    revision = production_revision(server_port, admin)
    arrived = at_relay.wait(revision, timeout=600)
    print(f"import of {FLAGS} flags: {imported:.1f} s; event at relay 2 "
          f"{(arrived - started - imported) if arrived else float('nan'):.2f} s after the import's answer")
    # Both relays serve the new revision once relay 2 announced it; let allocations settle.
    time.sleep(2)  # on purpose: memory read after the processes went idle
    for name, process in [("server", server), ("relay 1", relay1), ("relay 2", relay2)]:
        print(f"resident memory, {name}: {before[name]:.1f} MiB with 1 flag, {rss_mib(process):.1f} MiB with {FLAGS + 1} flags")
    status, bulk = request(relay2_port, "POST", "/ofrep/v1/evaluate/flags", client, {"context": {"targetingKey": "u", "plan": "pro"}})
    print(f"relay 2 bulk evaluation: {status}, {len(bulk.get('flags', [])) if isinstance(bulk, dict) else 0} flags")


try:
    main()
finally:
    for process in processes:
        process.terminate()
    for process in processes:
        process.wait(timeout=30)

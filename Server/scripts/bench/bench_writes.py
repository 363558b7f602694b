#!/usr/bin/env python3
"""Admin write costs of the flag server at several flag counts, each beside in-run baselines.

    scripts/bench/bench_writes.py BINARY [COUNTS...] [--database-url URL] [--writes N]

Starts `BINARY serve` (the release flag-server) on a fresh SQLite data directory (or on
PostgreSQL with --database-url: a fresh, empty database each count) for each flag count, then:

  - baselines, in the same run: `GET /health` over the same HTTP stack (a fixed body, no
    database), and a bare one-row SQLite transaction (WAL, synchronous=FULL, as the store runs)
    in the same data directory;
  - imports N flags into `production` (flagd format; every tenth flag targeted with a fractional
    split) and reports the time and the server's peak resident memory (VmHWM) before and after;
  - times W settings writes (`PUT .../flags/KEY/settings`, alternating on and off) and reports
    p50 and p99.

Prints one table row per count (Markdown), the baselines beside each figure.
"""
import json
import os
import queue
import re
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(method, url, token=None, body=None, timeout=600):
    data = None if body is None else body.encode() if isinstance(body, str) else body
    req = urllib.request.Request(url, data=data, method=method)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=timeout) as response:
        return response.status, response.read()


def percentile(values, fraction):
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, int(round(fraction * (len(ordered) - 1)))))
    return ordered[index]


def memory(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) / 1024
    return fields


def import_body(count):
    flags = {}
    for index in range(count):
        flag = {"state": "ENABLED", "variants": {"on": True, "off": False}, "defaultVariant": "off"}
        if index % 10 == 0:
            flag["targeting"] = {"fractional": [["on", 10], ["off", 90]]}
        flags[f"flag-{index:05d}"] = flag
    return json.dumps({"flags": flags})


def sqlite_baseline(directory, runs):
    path = os.path.join(directory, "baseline.sqlite")
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
    times = []
    for index in range(runs):
        start = time.perf_counter()
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("INSERT OR REPLACE INTO t (id, v) VALUES (1, ?)", (str(index),))
        connection.execute("COMMIT")
        times.append(time.perf_counter() - start)
    connection.close()
    return statistics.median(times)


def run(binary, count, writes, database_url):
    directory = tempfile.mkdtemp(prefix="bench-writes-")
    port = free_port()
    arguments = [binary, "serve", "--port", str(port), "--log-level", "warning", "--rate-limit-per-second", "0", "--write-timeout-seconds", "600"]
    if database_url:
        arguments += ["--database-url", database_url]
    else:
        arguments += ["--data-directory", directory]
    server = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    token = None
    try:
        # The first start prints the admin token; a database that is not empty prints none, so
        # wait for it with a deadline rather than for a line that never comes. The thread keeps
        # draining the server's output afterwards.
        lines = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in server.stdout], daemon=True).start()
        deadline = time.time() + 120
        while token is None and time.time() < deadline:
            try:
                line = lines.get(timeout=max(0.01, deadline - time.time()))
            except queue.Empty:
                break
            match = re.match(r"^\s+(\S{20,})\s*$", line)
            if match:
                token = match.group(1)
        if not token:
            raise RuntimeError("no admin token printed within 120 s (the database was not empty? set BENCH_WRITES_RESET_DATABASE)")
        base = f"http://127.0.0.1:{port}"
        for _ in range(600):
            try:
                if request("GET", base + "/health/ready")[0] == 200:
                    break
            except Exception:
                time.sleep(0.1)  # on purpose: waiting for the server to listen
        health = []
        for _ in range(writes):
            start = time.perf_counter()
            request("GET", base + "/health")
            health.append(time.perf_counter() - start)
        transaction = sqlite_baseline(directory, writes)
        before = memory(server.pid)
        body = import_body(count)
        start = time.perf_counter()
        request("POST", base + "/admin/v1/environments/production/import?format=flagd", token, body)
        import_seconds = time.perf_counter() - start
        after_import = memory(server.pid)
        latencies = []
        for index in range(writes):
            key = f"flag-{(index * 7919) % count:05d}"
            settings = {"enabled": index % 2 == 0, "defaultVariant": "on" if index % 2 == 0 else "off"}
            start = time.perf_counter()
            request("PUT", f"{base}/admin/v1/environments/production/flags/{key}/settings", token, json.dumps(settings))
            latencies.append(time.perf_counter() - start)
        after_writes = memory(server.pid)
        return {
            "flags": count,
            "health_p50_ms": statistics.median(health) * 1000,
            "sqlite_tx_p50_ms": transaction * 1000,
            "write_p50_ms": percentile(latencies, 0.5) * 1000,
            "write_p99_ms": percentile(latencies, 0.99) * 1000,
            "import_s": import_seconds,
            "rss_start_mb": before["VmRSS"],
            "peak_before_import_mb": before["VmHWM"],
            "peak_after_import_mb": after_import["VmHWM"],
            "rss_after_writes_mb": after_writes["VmRSS"],
        }
    finally:
        server.terminate()
        server.wait(timeout=30)
        subprocess.run(["rm", "-rf", directory])


def main():
    arguments = sys.argv[1:]
    if not arguments:
        print(__doc__)
        sys.exit(2)
    binary = arguments.pop(0)
    database_url = None
    writes = 50
    counts = []
    while arguments:
        argument = arguments.pop(0)
        if argument == "--database-url":
            database_url = arguments.pop(0)
        elif argument == "--writes":
            writes = int(arguments.pop(0))
        else:
            counts.append(int(argument))
    counts = counts or [100, 1000, 10000, 50000]
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} cores, {'PostgreSQL' if database_url else 'SQLite'}, {writes} writes per count")
    print("| flags | settings write p50 | p99 | GET /health p50 | 1-row SQLite tx p50 | import | peak RSS before → after import | RSS after writes |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for count in counts:
        if database_url:
            reset = os.environ.get("BENCH_WRITES_RESET_DATABASE")
            if reset:
                subprocess.run(reset, shell=True, check=True)
        r = run(binary, count, writes, database_url)
        print(f"| {r['flags']:,} | {r['write_p50_ms']:.1f} ms | {r['write_p99_ms']:.1f} ms | {r['health_p50_ms']:.2f} ms "
              f"| {r['sqlite_tx_p50_ms']:.2f} ms | {r['import_s']:.2f} s "
              f"| {r['peak_before_import_mb']:.0f} → {r['peak_after_import_mb']:.0f} MB | {r['rss_after_writes_mb']:.0f} MB |",
              flush=True)


if __name__ == "__main__":
    main()

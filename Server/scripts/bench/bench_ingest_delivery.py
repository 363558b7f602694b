#!/usr/bin/env python3
"""Delivery while ingesting, and resident memory under sustained ingest (run through
bench_ingest_delivery.sh).

One `flag-server serve` (SQLite flag store, SQLite event store, no rate limit), 20 flags and a
client token, then:

1. Idle: wrk on GET /health (the in-run baseline: a fixed answer over the same HTTP stack), then
   wrk on OFREP bulk evaluation (POST /ofrep/v1/evaluate/flags, 20 flags).
2. For each offered ingest rate (events/s; "max" = as fast as the posting processes go): an
   ingest load (processes posting v1 batches of 500 events, 45 % summaries, 45 % exposures, 10 %
   tracked events, each with a batch id of its own) and, once it runs, wrk on OFREP bulk
   evaluation, then on GET /health, each for the same time. Printed: both as a percentage of
   idle, events stored per second, 202 / 503 / other answers, per-request latency p50 / p99, the
   server's CPU (cores) and the load generator's CPU seconds.
3. Sustained ingest for FLAG_SERVER_BENCH_SUSTAIN_SECONDS with the server's VmRSS sampled every
   second: start, quarter, mid, three quarters, end, max.
4. The flood phase(s), as in 2. (many connections, so that the queue's bound is reached and
   requests are shed), then GET /health again (did the machine's load change during the run?).

Arguments: the flag-server executable. Environment: FLAG_SERVER_BENCH_WRK_SECONDS (10),
FLAG_SERVER_BENCH_RATES ("20000,50000,max"), FLAG_SERVER_BENCH_FLOOD ("max@64", after the sustained
ingest: "@C" posts on C connections per process, enough to pass the queue's bound of 100,000 events
and see requests shed), FLAG_SERVER_BENCH_SUSTAIN_SECONDS (90),
FLAG_SERVER_BENCH_SUSTAIN_RATE ("max"), FLAG_SERVER_BENCH_POSTERS (4 processes),
FLAG_SERVER_BENCH_CONNECTIONS (2 per process), FLAG_SERVER_BENCH_WRK_CONNECTIONS (32, 2 threads),
FLAG_SERVER_BENCH_SERVE_ARGS (more `serve` options, split on spaces: "--events-ingest-share 0
--events-thread-niceness 0" runs the server as it was before those options),
FLAG_SERVER_BENCH_LOAD_NICENESS (the posting processes' niceness, default 0; see
bench_support.lower_load_priority).
"""
import http.client
import json
import multiprocessing
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_support import lower_load_priority, request, serve_with_client_token  # noqa: E402

LUA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "propagation_bench.lua")
WRK_SECONDS = int(os.environ.get("FLAG_SERVER_BENCH_WRK_SECONDS", "10"))
RATES = [r for r in os.environ.get("FLAG_SERVER_BENCH_RATES", "20000,50000,max").split(",") if r]
FLOOD = [r for r in os.environ.get("FLAG_SERVER_BENCH_FLOOD", "max@64").split(",") if r]
SUSTAIN_SECONDS = int(os.environ.get("FLAG_SERVER_BENCH_SUSTAIN_SECONDS", "90"))
SUSTAIN_RATE = os.environ.get("FLAG_SERVER_BENCH_SUSTAIN_RATE", "max")
POSTERS = int(os.environ.get("FLAG_SERVER_BENCH_POSTERS", "4"))
CONNECTIONS = int(os.environ.get("FLAG_SERVER_BENCH_CONNECTIONS", "2"))
WRK_CONNECTIONS = int(os.environ.get("FLAG_SERVER_BENCH_WRK_CONNECTIONS", "32"))
EVENTS_PER_BATCH = 500
FLAGS = [f"flag-{index}" for index in range(20)]
TEMPLATES = 16
# A batch id of fixed length, replaced in the encoded body for every request.
PLACEHOLDER = "B" * 36
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def batch_template(seed, now_ms):
    """One batch of 500 events as bytes, its id the placeholder: 225 summaries, 225 exposures,
    50 tracked events over the 20 flags, 50,000 units and six app version x platform sources."""
    rng = random.Random(seed)
    versions = [("4.1", "iOS"), ("4.2", "iOS"), ("4.2", "macOS"), ("4.3", "iOS"), ("4.3", "Linux"), ("5.0", "visionOS")]
    version, platform = versions[seed % len(versions)]
    reasons = ["TARGETING_MATCH", "SPLIT", "STATIC", "DEFAULT", "CACHED"]
    summaries = [
        {"flag": rng.choice(FLAGS), "variant": rng.choice(["on", "off"]), "reason": rng.choice(reasons),
         "count": rng.randint(1, 5000), "start": now_ms - 3_600_000 + index * 1000, "end": now_ms - 3_540_000 + index * 1000}
        for index in range(225)]
    exposures = [
        {"flag": rng.choice(FLAGS), "variant": variant, "value": variant == "on", "reason": rng.choice(reasons),
         "revision": '"r42"', "unit": f"user-{rng.randrange(50_000)}", "time": now_ms - rng.randrange(3_600_000)}
        for variant in (rng.choice(["on", "off"]) for _ in range(225))]
    tracked = [
        {"name": rng.choice(["checkout", "signup", "search", "share"]), "value": round(rng.uniform(1, 100), 2),
         "attributes": {"plan": rng.choice(["free", "pro"])}, "unit": f"user-{rng.randrange(50_000)}",
         "variants": {rng.choice(FLAGS): "on"}, "time": now_ms - rng.randrange(3_600_000)}
        for _ in range(50)]
    batch = {"version": 1, "batchId": PLACEHOLDER,
             "source": {"appVersion": version, "buildConfiguration": "release", "platform": platform},
             "exposures": exposures, "summaries": summaries, "events": tracked}
    return json.dumps(batch, separators=(",", ":"), sort_keys=True).encode()


def poster(index, port, token, rate, connections, stop_at, templates, results):
    """One posting process: `connections` threads, each on a keep-alive connection, posting batches
    at rate / (POSTERS x connections) batches per second ("max": back to back); a thread that falls
    behind its schedule posts at once (the offered rate is then what it manages)."""
    lower_load_priority()
    per_thread = None if rate is None else rate / EVENTS_PER_BATCH / (POSTERS * connections)
    lock = threading.Lock()
    latencies, counts = [], {}

    def run(thread):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        sent = 0
        begin = time.perf_counter()
        local_latencies, local_counts = [], {}
        while True:
            now = time.perf_counter()
            if now >= stop_at:
                break
            if per_thread is not None:
                due = begin + sent / per_thread
                if due > now:
                    time.sleep(min(due - now, stop_at - now))  # on purpose: the offered rate's pacing
                    continue
            batch_id = f"{index:04d}-{thread:04d}-{sent:012d}-{os.urandom(6).hex()}"[:36].ljust(36, "0")
            body = templates[sent % len(templates)].replace(PLACEHOLDER.encode(), batch_id.encode(), 1)
            headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}",
                       "Idempotency-Key": batch_id}
            started = time.perf_counter()
            try:
                connection.request("POST", "/ofrep/v1/ingestion", body=body, headers=headers)
                response = connection.getresponse()
                response.read()
                status = response.status
            except (OSError, http.client.HTTPException):
                status = "error"
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            local_latencies.append(time.perf_counter() - started)
            local_counts[status] = local_counts.get(status, 0) + 1
            sent += 1
        connection.close()
        with lock:
            latencies.extend(local_latencies)
            for key, value in local_counts.items():
                counts[key] = counts.get(key, 0) + value

    threads = [threading.Thread(target=run, args=(thread,)) for thread in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    usage = os.times()
    results.put((latencies, counts, usage.user + usage.system))


class IngestLoad:
    """POSTERS processes posting batches until `seconds` have passed."""

    def __init__(self, port, token, label, seconds, templates):
        rate, connections = parse(label)
        self.results = multiprocessing.Queue()
        self.started = time.perf_counter()
        stop_at = self.started + seconds
        self.processes = [
            multiprocessing.Process(target=poster, args=(index, port, token, rate, connections, stop_at, templates, self.results))
            for index in range(POSTERS)]
        for process in self.processes:
            process.start()

    def finish(self):
        latencies, counts, cpu = [], {}, 0.0
        for _ in self.processes:
            some, counted, used = self.results.get()
            latencies += some
            cpu += used
            for key, value in counted.items():
                counts[key] = counts.get(key, 0) + value
        for process in self.processes:
            process.join()
        return latencies, counts, cpu, time.perf_counter() - self.started


def parse(label):
    """An offered rate: "20000" (events/s) or "max" (back to back), with "@C" for C connections
    per posting process instead of FLAG_SERVER_BENCH_CONNECTIONS."""
    rate, _, connections = label.partition("@")
    return (None if rate == "max" else float(rate)), int(connections or CONNECTIONS)


def wrk(port, token, bulk, seconds=WRK_SECONDS):
    environment = dict(os.environ, FLAG_SERVER_BENCH_TOKEN=token or "")
    arguments = ["wrk", "-t2", f"-c{WRK_CONNECTIONS}", f"-d{seconds}s"]
    if bulk:
        arguments += ["-s", LUA]
    url = f"http://127.0.0.1:{port}" + ("/ofrep/v1/evaluate/flags" if bulk else "/health")
    output = subprocess.run(arguments + [url], stdout=subprocess.PIPE, text=True, env=environment, check=True).stdout
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if bad:
        sys.exit(f"wrk saw {bad.group(1)} non-2xx responses:\n{output}")
    return float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))] if ordered else float("nan")


def describe(label, latencies, counts, cpu, elapsed):
    accepted = counts.get(202, 0)
    shed = counts.get(503, 0)
    limited = counts.get(429, 0)
    others = {key: value for key, value in counts.items() if key not in (202, 429, 503)}
    print(f"  ingest {label}: {accepted * EVENTS_PER_BATCH / elapsed:9.0f} events/s stored "
          f"({accepted} batches 202, {shed} shed 503, {limited} over the token's budget 429, other {others or 0}) over {elapsed:.1f} s; "
          f"per request p50 {1000 * percentile(latencies, 0.5):6.1f} ms, p99 {1000 * percentile(latencies, 0.99):6.1f} ms; "
          f"load generator {cpu:.1f} CPU s")
    return others


def main():
    executable = sys.argv[1]
    directory = tempfile.mkdtemp(prefix="bench-ingest-")
    processes = []
    try:
        server, port, admin, client = serve_with_client_token(executable, directory, processes)
        for flag in FLAGS:
            status, reply = request(port, "PUT", f"/admin/v1/flags/{flag}", admin,
                                    {"type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off"})
            assert status == 200, reply
            status, reply = request(port, "PUT", f"/admin/v1/environments/production/flags/{flag}/settings", admin,
                                    {"enabled": True, "defaultVariant": "on",
                                     "targeting": {"if": [{"==": [{"var": "country"}, "DE"]}, "on", "off"]}})
            assert status == 200, reply
        status, bulk = request(port, "POST", "/ofrep/v1/evaluate/flags", client, {"context": {"targetingKey": "user-1", "country": "DE"}})
        assert status == 200 and "eventIngestion" in json.dumps(bulk), bulk
        now_ms = int(time.time() * 1000)
        templates = [batch_template(seed, now_ms) for seed in range(TEMPLATES)]
        probe = templates[0].replace(PLACEHOLDER.encode(), b"probe-" + b"0" * 30, 1)
        status, reply = request(port, "POST", "/ofrep/v1/ingestion", client, raw=probe)
        assert status == 202 and reply["accepted"] == EVENTS_PER_BATCH, (status, reply)

        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start; wrk 2 threads, "
              f"{WRK_CONNECTIONS} connections, {WRK_SECONDS} s per run; ingest {POSTERS} processes x {CONNECTIONS} "
              f"connections, batches of {EVENTS_PER_BATCH} events ({len(templates[0])} bytes)")
        wrk(port, client, True, 2)  # warm up
        health = wrk(port, None, False)
        cpu_before, started = cpu_seconds(server.pid), time.perf_counter()
        idle = wrk(port, client, True)
        cores = (cpu_seconds(server.pid) - cpu_before) / (time.perf_counter() - started)
        print(f"idle: GET /health {health:9.0f} req/s (baseline); OFREP bulk (20 flags) {idle:9.0f} req/s, "
              f"server {cores:.2f} cores; RSS {rss_mb(server.pid):.0f} MB")
        problems = []

        def phase(label):
            """Bulk throughput, then /health, while the ingest load runs."""
            cpu_before = cpu_seconds(server.pid)
            load = IngestLoad(port, client, label, 2 * WRK_SECONDS + 2, templates)
            time.sleep(1)  # on purpose: the ingest load is running before wrk starts
            busy = wrk(port, client, True)
            busy_health = wrk(port, None, False)
            latencies, counts, cpu, elapsed = load.finish()
            print(f"offered {label} events/s: OFREP bulk {busy:9.0f} req/s = {100 * busy / idle:5.1f} % of idle; "
                  f"GET /health {busy_health:9.0f} req/s = {100 * busy_health / health:5.1f} % of idle; "
                  f"server {(cpu_seconds(server.pid) - cpu_before) / elapsed:.2f} cores; RSS {rss_mb(server.pid):.0f} MB")
            if describe(label, latencies, counts, cpu, elapsed):
                problems.append(label)

        for label in RATES:
            phase(label)

        samples = [rss_mb(server.pid)]
        load = IngestLoad(port, client, SUSTAIN_RATE, SUSTAIN_SECONDS, templates)
        deadline = time.perf_counter() + SUSTAIN_SECONDS
        while time.perf_counter() < deadline:
            time.sleep(1)  # on purpose: one RSS sample a second
            samples.append(rss_mb(server.pid))
        latencies, counts, cpu, elapsed = load.finish()
        samples.append(rss_mb(server.pid))
        marks = [samples[0], samples[len(samples) // 4], samples[len(samples) // 2], samples[3 * len(samples) // 4], samples[-1]]
        print(f"sustained ingest, offered {SUSTAIN_RATE} events/s for {SUSTAIN_SECONDS} s: server VmRSS (MB) "
              f"start {marks[0]:.0f}, 1/4 {marks[1]:.0f}, mid {marks[2]:.0f}, 3/4 {marks[3]:.0f}, end {marks[4]:.0f}, "
              f"max {max(samples):.0f}")
        if describe(SUSTAIN_RATE, latencies, counts, cpu, elapsed):
            problems.append("sustained")
        for label in FLOOD:
            phase(label)
        events_file = os.path.join(directory, "flags-events.sqlite")
        if os.path.exists(events_file):
            print(f"  event database {os.path.getsize(events_file) / 1e6:.0f} MB "
                  f"(+ WAL {os.path.getsize(events_file + '-wal') / 1e6 if os.path.exists(events_file + '-wal') else 0:.0f} MB)")
        after = wrk(port, None, False)
        print(f"after: GET /health {after:9.0f} req/s ({100 * after / health:.0f} % of the first); "
              f"load average {os.getloadavg()[0]:.2f}")
        if problems:
            sys.exit(f"answers other than 202, 429 and 503 in: {', '.join(problems)}")
    finally:
        for process in processes:
            process.terminate()
            process.wait()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()

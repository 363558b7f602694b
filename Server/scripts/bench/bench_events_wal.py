#!/usr/bin/env python3
"""The events database's WAL under sustained ingest with insights read at the same time.

Usage: bench_events_wal.py path/to/flag-server

One `flag-server serve` (SQLite flag and event stores in a temporary directory, no rate limit), a
client token, the flag `flag-0` and a running experiment on it with a mean metric of `checkout`;
then, for FLAG_SERVER_BENCH_SECONDS (60): FLAG_SERVER_BENCH_CALLERS (8) processes posting the
500-event batches of bench_ingest_delivery.py back to back (each waiting out a Retry-After it is
given), FLAG_SERVER_BENCH_INSIGHTS_READERS (2) threads reading the flag's insights
(`GET …/flags/flag-0/insights`, 7 days by hour) back to back, FLAG_SERVER_BENCH_RESULTS_READERS (1)
threads counting the experiment's results (`GET …/experiments/wal/results?refresh=true`) back to
back, so that reads of the event database overlap one another and the ingests, and one thread
sampling the size of `flags-events.sqlite-wal` every 50 ms.

Printed: events stored per second, insights reads done, and the WAL file's peak, 99th percentile,
median and final size. The callers run on the same machine as the server: compare runs made at
the same load (the load average is printed), not absolute figures.
"""
import http.client
import multiprocessing
import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_support import request, serve_with_client_token  # noqa: E402
from bench_ingest_callers import caller  # noqa: E402
from bench_ingest_delivery import EVENTS_PER_BATCH, TEMPLATES, batch_template, percentile  # noqa: E402

CALLERS = int(os.environ.get("FLAG_SERVER_BENCH_CALLERS", "8"))
INSIGHTS_READERS = int(os.environ.get("FLAG_SERVER_BENCH_INSIGHTS_READERS", "2"))
RESULTS_READERS = int(os.environ.get("FLAG_SERVER_BENCH_RESULTS_READERS", "1"))
INSIGHTS = "/admin/v1/environments/production/flags/flag-0/insights?granularity=hour"
RESULTS = "/admin/v1/environments/production/experiments/wal/results?refresh=true"
SECONDS = float(os.environ.get("FLAG_SERVER_BENCH_SECONDS", "60"))


def sample_wal(path, stop, samples):
    """Appends the WAL file's size every 50 ms until `stop` is set."""
    while not stop.is_set():
        try:
            samples.append(os.path.getsize(path))
        except OSError:
            samples.append(0)
        time.sleep(0.05)  # on purpose: a sampling period, not a wait for something


def read_back_to_back(port, admin, path, stop, counts):
    """GETs `path` back to back until `stop` is set, counting answers by status."""
    while not stop.is_set():
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        try:
            connection.request("GET", path, headers={"Authorization": f"Bearer {admin}"})
            response = connection.getresponse()
            response.read()
            counts[response.status] = counts.get(response.status, 0) + 1
        except (OSError, http.client.HTTPException):
            counts["error"] = counts.get("error", 0) + 1
        finally:
            connection.close()


def main():
    executable = sys.argv[1]
    directory = tempfile.mkdtemp(prefix="bench-events-wal-")
    processes = []
    try:
        server, port, admin, client = serve_with_client_token(executable, directory, processes)
        status, _ = request(port, "PUT", "/admin/v1/flags/flag-0", admin,
                            {"type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off"})
        assert status == 200, status
        status, _ = request(port, "POST", "/admin/v1/metrics", admin,
                            {"key": "checkout-value", "name": "checkout value", "event": "checkout", "kind": "mean"})
        assert status == 201, status
        status, _ = request(port, "PUT", "/admin/v1/environments/production/flags/flag-0/settings", admin,
                            {"enabled": True, "defaultVariant": "off",
                             "targeting": {"fractional": [["on", 50], ["off", 50]]}})
        assert status == 200, status
        experiments = "/admin/v1/environments/production/experiments"
        status, _ = request(port, "POST", experiments, admin,
                            {"id": "wal", "flag": "flag-0", "control": "off", "arms": ["off", "on"],
                             "metrics": ["checkout-value"]})
        assert status == 201, status
        status, _ = request(port, "POST", experiments + "/wal/start", admin, {})
        assert status == 200, status
        wal = os.path.join(directory, "flags-events.sqlite-wal")
        now_ms = int(time.time() * 1000)
        templates = [batch_template(seed, now_ms) for seed in range(TEMPLATES)]
        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start; {CALLERS} callers, "
              f"{INSIGHTS_READERS} insights and {RESULTS_READERS} experiment-results readers back to back, {SECONDS:.0f} s")
        stop = threading.Event()
        samples, reads, results_reads = [], {}, {}
        threads = [threading.Thread(target=sample_wal, args=(wal, stop, samples))]
        threads += [threading.Thread(target=read_back_to_back, args=(port, admin, INSIGHTS, stop, reads))
                    for _ in range(INSIGHTS_READERS)]
        threads += [threading.Thread(target=read_back_to_back, args=(port, admin, RESULTS, stop, results_reads))
                    for _ in range(RESULTS_READERS)]
        for thread in threads:
            thread.start()
        results = multiprocessing.Queue()
        started = time.perf_counter()
        stop_at = started + SECONDS
        callers = [multiprocessing.Process(target=caller, args=(index, port, client, stop_at, templates, results))
                   for index in range(CALLERS)]
        for process in callers:
            process.start()
        counts = {}
        for _ in callers:
            _, counted, _ = results.get()
            for key, value in counted.items():
                counts[key] = counts.get(key, 0) + value
        for process in callers:
            process.join()
        elapsed = time.perf_counter() - started
        stop.set()
        for thread in threads:
            thread.join()
        rate = counts.get(202, 0) * EVENTS_PER_BATCH / elapsed
        mib = 1024 * 1024
        print("| events/s stored | 503 | 429 | insights reads (200) | results counts (200) | other read answers | "
              "WAL peak (MiB) | WAL p99 (MiB) | WAL median (MiB) | WAL at the end (MiB) |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        others = sum(v for k, v in reads.items() if k != 200) + sum(v for k, v in results_reads.items() if k != 200)
        print(f"| {rate:.0f} | {counts.get(503, 0)} | {counts.get(429, 0)} | {reads.get(200, 0)} | "
              f"{results_reads.get(200, 0)} | {others} | {max(samples) / mib:.1f} | "
              f"{percentile(samples, 0.99) / mib:.1f} | {percentile(samples, 0.5) / mib:.1f} | {samples[-1] / mib:.1f} |")
        print(f"load average {os.getloadavg()[0]:.2f} at the end")
        others = {key: value for key, value in counts.items() if key not in (202, 429, 503)}
        if others:
            sys.exit(f"answers other than 202, 429 and 503: {others}")
    finally:
        for process in processes:
            process.terminate()
            process.wait()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()

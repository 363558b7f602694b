#!/usr/bin/env python3
"""Events stored per second with one caller and with several at once, each honouring Retry-After
(run through bench_ingest_callers.sh).

One `flag-server serve` (SQLite flag and event stores in a temporary directory, no rate limit) and
a client token, then for each caller count (FLAG_SERVER_BENCH_CALLERS, default "1,8"): that many
processes, each on one keep-alive connection, posting v1 batches of 500 events back to back (the
batches of bench_ingest_delivery.py: 45 % summaries, 45 % exposures, 10 % tracked events, each with
a batch id of its own) for FLAG_SERVER_BENCH_SECONDS (20). A caller answered 503 or 429 waits the
Retry-After it was given before it posts again, as the SDK does. Printed per caller count: events
stored per second (202 answers x 500 over the phase), the same as a ratio to one caller's rate in
the same run (the in-run baseline), 503 / 429 answers, per-request latency p50 / p99 and the
server's CPU in cores. The callers run on the same machine as the server: read the ratio, not the
absolute figure, and note the load average (printed).
"""
import http.client
import multiprocessing
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_support import serve_with_client_token  # noqa: E402
from bench_ingest_delivery import EVENTS_PER_BATCH, PLACEHOLDER, TEMPLATES, batch_template, cpu_seconds, percentile  # noqa: E402

CALLERS = [int(count) for count in os.environ.get("FLAG_SERVER_BENCH_CALLERS", "1,8").split(",") if count]
SECONDS = float(os.environ.get("FLAG_SERVER_BENCH_SECONDS", "20"))


def caller(index, port, token, stop_at, templates, results):
    """Posts back to back until `stop_at`, waiting out every Retry-After it is given."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    sent, latencies, counts, waited = 0, [], {}, 0.0
    while time.perf_counter() < stop_at:
        batch_id = f"{index:04d}-{sent:012d}-{os.urandom(8).hex()}"[:36].ljust(36, "0")
        body = templates[sent % len(templates)].replace(PLACEHOLDER.encode(), batch_id.encode(), 1)
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}", "Idempotency-Key": batch_id}
        started = time.perf_counter()
        retry_after = None
        try:
            connection.request("POST", "/ofrep/v1/ingestion", body=body, headers=headers)
            response = connection.getresponse()
            response.read()
            status = response.status
            retry_after = response.getheader("Retry-After")
        except (OSError, http.client.HTTPException):
            status = "error"
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        latencies.append(time.perf_counter() - started)
        counts[status] = counts.get(status, 0) + 1
        sent += 1
        if status in (429, 503) and retry_after:
            pause = min(float(retry_after), max(0.0, stop_at - time.perf_counter()))
            waited += pause
            time.sleep(pause)  # on purpose: honouring Retry-After, as the SDK does
    connection.close()
    results.put((latencies, counts, waited))


def main():
    executable = sys.argv[1]
    directory = tempfile.mkdtemp(prefix="bench-ingest-callers-")
    processes = []
    try:
        server, port, admin, client = serve_with_client_token(executable, directory, processes)
        now_ms = int(time.time() * 1000)
        templates = [batch_template(seed, now_ms) for seed in range(TEMPLATES)]
        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start; batches of "
              f"{EVENTS_PER_BATCH} events ({len(templates[0])} bytes), {SECONDS:.0f} s per caller count")
        print("| callers | events/s stored | ratio to 1 caller | 503 | 429 | other | p50 (ms) | p99 (ms) | waited on Retry-After (s) | server cores |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        baseline = None
        problems = []
        for count in CALLERS:
            results = multiprocessing.Queue()
            cpu_before, started = cpu_seconds(server.pid), time.perf_counter()
            stop_at = started + SECONDS
            callers = [multiprocessing.Process(target=caller, args=(index, port, client, stop_at, templates, results))
                       for index in range(count)]
            for process in callers:
                process.start()
            latencies, counts, waited = [], {}, 0.0
            for _ in callers:
                some, counted, pause = results.get()
                latencies += some
                waited += pause
                for key, value in counted.items():
                    counts[key] = counts.get(key, 0) + value
            for process in callers:
                process.join()
            elapsed = time.perf_counter() - started
            cores = (cpu_seconds(server.pid) - cpu_before) / elapsed
            rate = counts.get(202, 0) * EVENTS_PER_BATCH / elapsed
            if baseline is None:
                baseline = rate
            others = {key: value for key, value in counts.items() if key not in (202, 429, 503)}
            if others:
                problems.append(f"{count} callers: {others}")
            print(f"| {count} | {rate:.0f} | {rate / baseline if baseline else float('nan'):.2f} | {counts.get(503, 0)} | "
                  f"{counts.get(429, 0)} | {sum(others.values())} | {1000 * percentile(latencies, 0.5):.1f} | "
                  f"{1000 * percentile(latencies, 0.99):.1f} | {waited:.0f} | {cores:.2f} |")
        print(f"load average {os.getloadavg()[0]:.2f} at the end")
        if problems:
            sys.exit(f"answers other than 202, 429 and 503: {'; '.join(problems)}")
    finally:
        for process in processes:
            process.terminate()
            process.wait()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()

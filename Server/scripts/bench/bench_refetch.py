#!/usr/bin/env python3
"""Refetch after a change, measured (run through bench_refetch.sh).

For each stream count N, three runs on a fresh flag-server each (SQLite, rate limit off):

  old      the behaviour before: the server advertises no spread and clients ignore `changes`;
           a settings change to an untargeted flag has all N clients refetch at once.
  inline   the same change; clients apply the event's `changes` (their values are at `since`)
           and send nothing.
  spread   a change to a targeted flag (no `changes`): clients wait a random delay within the
           event's `refetchSpreadMs` and refetch, as the library does.

Every client first reads the bulk answer's version (one request, shared: all clients have the
same context), opens its event stream, and counts as converged when it holds the new version:
the event applied, or its refetch answered. Printed per run: how long the admin write took to
answer, clients converged, time from the start of the admin write to the last (and p50/p99), errors, timeouts (a refetch not answered in 10 s), and
the p99 of a separate steady stream of bulk requests from another client (a paced probe), before
the change and while the clients converge.

Clients are spread over worker processes (asyncio each) and over loopback source addresses
(127.0.0.2, …), so that N streams plus N refetch connections fit in the ephemeral ports.
"""
import asyncio
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
import http.client

EXECUTABLE = sys.argv[1]
COUNTS = [int(count) for count in sys.argv[2].split(",")]
MODES = sys.argv[3].split(",") if len(sys.argv) > 3 else ["old", "inline", "spread"]
WORKERS = int(os.environ.get("BENCH_WORKERS", "4"))
REFETCH_TIMEOUT = 10.0
CONVERGE_LIMIT = float(os.environ.get("BENCH_CONVERGE_LIMIT", "90"))
PROBE_PER_SECOND = int(os.environ.get("BENCH_PROBE_PER_SECOND", "50"))
# The server's --refetches-per-second in the inline and spread runs (its default: 5,000).
REFETCHES_PER_SECOND = int(os.environ.get("BENCH_REFETCHES_PER_SECOND", "5000"))
STATIC_FLAGS = 45
TARGETED_FLAGS = 5
CONTEXT = json.dumps({"context": {"targetingKey": "bench-user", "plan": "free"}})


def source_address(index):
    """The loopback source address of client `index` (20,000 clients per address)."""
    return f"127.0.0.{2 + index // 20000}"


# --- the server ---------------------------------------------------------------------------

def start_server(count, refetches_per_second):
    data = tempfile.mkdtemp(prefix="bench-refetch-")
    arguments = [
        EXECUTABLE, "serve", "--port", "0", "--data-directory", data, "--rate-limit-per-second", "0",
        "--maximum-event-streams", str(count + 1000), "--maximum-event-streams-per-token", str(count + 1000),
        "--maximum-connections", str(3 * count + 2000), "--refetches-per-second", str(refetches_per_second),
        "--idle-timeout-seconds", "120",
    ]
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    text = ""
    while "listening on http://" not in text:
        line = process.stdout.readline()
        if not line:
            sys.exit(f"flag-server exited:\n{text}")
        text += line
    threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
    port = int(re.search(r"listening on http://127\.0\.0\.1:(\d+)", text).group(1))
    token = re.search(r"(ffs_\S+)", text).group(1)
    return process, port, token, data


def request(port, method, path, token, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    if response.status >= 300:
        sys.exit(f"{method} {path}: {response.status} {data[:300]!r}")
    return json.loads(data) if data else None


def set_up(port, admin):
    """Flags in production: STATIC_FLAGS on without targeting, TARGETED_FLAGS with a rule."""
    for index in range(STATIC_FLAGS + TARGETED_FLAGS):
        key = f"flag-{index:03d}"
        request(port, "PUT", f"/admin/v1/flags/{key}", admin,
                {"type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off"})
        settings = {"enabled": True, "defaultVariant": "on"}
        if index >= STATIC_FLAGS:
            settings["targeting"] = {"if": [{"==": [{"var": "plan"}, "free"]}, "off", None]}
        request(port, "PUT", f"/admin/v1/environments/production/flags/{key}/settings", admin, settings)
    client = request(port, "POST", "/admin/v1/tokens", admin,
                     {"name": "bench", "environment": "production", "role": "client"})["token"]
    bulk = request(port, "POST", "/ofrep/v1/evaluate/flags", client, json.loads(CONTEXT))
    return client, bulk["metadata"]["version"]


def change(port, admin, mode, version):
    """The change each mode measures: an untargeted flag switched off, or a targeted flag's rule."""
    if mode == "spread":
        key = f"flag-{STATIC_FLAGS:03d}"
        settings = {"enabled": True, "defaultVariant": "on",
                    "targeting": {"if": [{"==": [{"var": "plan"}, "pro"]}, "off", None]}}
    else:
        key = "flag-000"
        settings = {"enabled": True, "defaultVariant": "off"}
    request(port, "PUT", f"/admin/v1/environments/production/flags/{key}/settings", admin, settings)


# --- the clients (worker processes) -------------------------------------------------------

async def read_head(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, head


async def refetch(port, token, index, etag):
    """One bulk refetch, as OFREP clients send it after an event; the version it answered."""
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", port, local_addr=(source_address(index), 0)), REFETCH_TIMEOUT)
    try:
        body = CONTEXT.encode()
        writer.write(
            f"POST /ofrep/v1/evaluate/flags?flagConfigEtag={etag} HTTP/1.1\r\nHost: bench\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        await writer.drain()
        status, head = await asyncio.wait_for(read_head(reader), REFETCH_TIMEOUT)
        data = await asyncio.wait_for(reader.read(), REFETCH_TIMEOUT)
        if status != 200:
            return None, f"status {status}"
        return json.loads(data)["metadata"]["version"], None
    finally:
        writer.close()


async def client(index, port, token, version, mode, opened, results, start_event):
    """One phone: an open event stream, then whatever the event asks for."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source_address(index), 0))
        writer.write(f"GET /ofrep/v1/events HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {token}\r\n"
                     f"Accept: text/event-stream\r\n\r\n".encode())
        await writer.drain()
        status, _ = await read_head(reader)
        if status != 200:
            opened.append(f"status {status}")
            return
    except Exception as error:  # noqa: BLE001 - counted as an error of this client
        opened.append(f"open {type(error).__name__}")
        return
    opened.append(None)
    try:
        data = None
        while data is None:
            line = await reader.readline()
            if not line:
                results.append((None, "stream ended"))
                return
            if line.startswith(b"data: "):
                data = json.loads(line[6:])
        received = time.monotonic()
        changes = data.get("changes")
        if mode != "old" and changes is not None and changes.get("since") == version:
            results.append((received, None))
            return
        spread = data.get("refetchSpreadMs", 0) if mode != "old" else 0
        if spread:
            await asyncio.sleep(random.random() * spread / 1000)  # on purpose: the library's spread
        try:
            answered, error = await asyncio.wait_for(refetch(port, token, index, data["etag"]), REFETCH_TIMEOUT)
        except asyncio.TimeoutError:
            results.append((None, "timeout"))
            return
        except Exception as error:  # noqa: BLE001
            results.append((None, f"refetch {type(error).__name__}"))
            return
        if error:
            results.append((None, error))
        elif int(answered) < int(data["etag"]):
            results.append((None, "old version"))
        else:
            results.append((time.monotonic(), None))
    finally:
        writer.close()


def worker(indices, port, token, version, mode, pipe):
    async def run():
        opened, results = [], []
        start_event = asyncio.Event()
        tasks = []
        for batch in range(0, len(indices), 200):
            for index in indices[batch:batch + 200]:
                tasks.append(asyncio.create_task(client(index, port, token, version, mode, opened, results, start_event)))
            while len(opened) < min(len(indices), batch + 200):
                await asyncio.sleep(0.01)  # on purpose: pacing the opening of streams
        pipe.send(("opened", [error for error in opened if error]))
        deadline = time.monotonic() + CONVERGE_LIMIT + 30
        while len(results) < len(tasks) - sum(1 for error in opened if error) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # on purpose: polling the clients' progress
        pipe.send(("results", results))
        for task in tasks:
            task.cancel()
    asyncio.run(run())


# --- the probe: another client's steady requests ------------------------------------------

def probe(port, token, stop, samples):
    """PROBE_PER_SECOND paced bulk requests on one keep-alive connection: (start, latency)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    interval = 1 / PROBE_PER_SECOND
    next_at = time.monotonic()
    while not stop.is_set():
        next_at += interval
        start = time.monotonic()
        try:
            connection.request("POST", "/ofrep/v1/evaluate/flags", body=CONTEXT,
                               headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
            response = connection.getresponse()
            response.read()
            samples.append((start, time.monotonic() - start, response.status))
        except Exception:  # noqa: BLE001
            samples.append((start, time.monotonic() - start, 0))
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        delay = next_at - time.monotonic()
        if delay > 0:
            time.sleep(delay)  # on purpose: pacing


def percentile(values, fraction):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run(count, mode):
    process, port, admin, data = start_server(count, 0 if mode == "old" else REFETCHES_PER_SECOND)
    try:
        token, version = set_up(port, admin)
        pipes, workers = [], []
        for number in range(WORKERS):
            parent, child = multiprocessing.Pipe()
            indices = list(range(number, count, WORKERS))
            worker_process = multiprocessing.Process(target=worker, args=(indices, port, token, version, mode, child))
            worker_process.start()
            pipes.append(parent)
            workers.append(worker_process)
        open_errors = []
        for pipe in pipes:
            kind, errors = pipe.recv()
            open_errors += errors
        stop, samples = threading.Event(), []
        prober = threading.Thread(target=probe, args=(port, token, stop, samples), daemon=True)
        prober.start()
        time.sleep(3)  # on purpose: the probe's baseline before the change
        changed_at = time.monotonic()
        change(port, admin, mode, version)
        write_seconds = time.monotonic() - changed_at
        results = []
        for pipe in pipes:
            kind, part = pipe.recv()
            results += part
        stop.set()
        prober.join()
        for worker_process in workers:
            worker_process.join()
        done = [at - changed_at for at, error in results if error is None]
        errors = [error for at, error in results if error is not None]
        converged_at = max(done) if done else float("nan")
        before = [latency for start, latency, _ in samples if start < changed_at]
        during = [latency for start, latency, _ in samples if changed_at <= start <= changed_at + max(converged_at, 1)]
        probe_errors = sum(1 for _, _, status in samples if status != 200)
        timeouts = sum(1 for error in errors if error == "timeout")
        print(
            f"| {count:,} | {mode} | {write_seconds:.2f} s | {len(done):,}/{count:,} | {converged_at:.2f} s | "
            f"{percentile(done, 0.5):.2f} / {percentile(done, 0.99):.2f} s | "
            f"{len(errors) - timeouts + len(open_errors)} | {timeouts} | "
            f"{percentile(before, 0.99) * 1000:.1f} ms → {percentile(during, 0.99) * 1000:.1f} ms "
            f"({len(during)} probes, {probe_errors} failed) |", flush=True)
        if errors or open_errors:
            kinds = {}
            for error in errors + open_errors:
                kinds[error] = kinds.get(error, 0) + 1
            print(f"|   | errors: {kinds} | | | | | | | |", flush=True)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    multiprocessing.set_start_method("fork")
    print(f"flag-server refetch after a change, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"load average {os.getloadavg()[0]:.1f}, {WORKERS} client processes, probe {PROBE_PER_SECOND}/s, "
          f"--refetches-per-second {REFETCHES_PER_SECOND}")
    print("| streams | run | write answered | converged | last client | p50 / p99 | errors | timeouts | probe p99 before → during |")
    print("|---|---|---|---|---|---|---|---|---|")
    for count in COUNTS:
        for mode in MODES:
            run(count, mode)

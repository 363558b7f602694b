#!/usr/bin/env python3
"""Event streams at scale: memory per stream, event latency, idle CPU, and the descriptor limit.

    python3 Server/scripts/bench/bench_streams.py Server/.build/release/flag-server

Run by bench_streams.sh. The load generator is plain epoll over non-blocking sockets, in worker
processes of at most 15,000 connections each, bound to many loopback source addresses
(127.x.y.z) so that the ephemeral port range of one address does not limit it. Prints a report.

Environment: FLAG_SERVER_BENCH_STREAMS (counts, default those of 1,000, 5,000, 10,000, 50,000 and
100,000 below the server's connection cap, then 100 below the cap), FLAG_SERVER_BENCH_PAST_LIMIT (connections opened past the
server's cap, default 1500), FLAG_SERVER_BENCH_IDLE_SECONDS (idle CPU window, default 30),
FLAG_SERVER_BENCH_BURSTS (the bursts of the first part, default "2000,5000"; "" skips it),
FLAG_SERVER_BENCH_PARTS ("burst,scale" by default: the bursts, then the baselines and the counts above),
FLAG_SERVER_BENCH_WRK_SECONDS (each wrk run of the burst part, default 6),
FLAG_SERVER_BENCH_LOAD_NICENESS (the niceness of the load generator's workers, default 0; see
bench_support.lower_load_priority).

The burst part, on a fresh server with 20 flags: OFREP bulk evaluation with wrk (2 threads, 32
connections, as bench_ingest_delivery) idle, then again while a burst of streams opens at once
(the load generator keeps up to 256 opens in flight, each worker its own), throughput as a share
of the idle run's and p99 beside the idle p99; the server's resident memory before the burst, once
it is open (per stream), and after every stream of it closed (the memory a burst leaves behind).
"""

import errno
import http.client
import json
import multiprocessing
import os
import re
import resource
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_support import lower_load_priority  # noqa: E402

EXECUTABLE = sys.argv[1]
PER_WORKER = 15_000
IDLE_SECONDS = int(os.environ.get("FLAG_SERVER_BENCH_IDLE_SECONDS", "30"))
PAST_LIMIT = int(os.environ.get("FLAG_SERVER_BENCH_PAST_LIMIT", "1500"))
TICK = os.sysconf("SC_CLK_TCK")
KEEP_ALIVE = 15  # the server's default keep-alive interval, seconds


# ---------------------------------------------------------------- load generator (worker side)

class Worker:
    """One process holding many connections; commands arrive on a pipe."""

    def __init__(self, index, pipe, port):
        self.index, self.pipe, self.port = index, pipe, port
        self.epoll = select.epoll()
        self.epoll.register(pipe.fileno(), select.EPOLLIN)
        self.connections = {}  # fd -> [socket, state, buffer, opened]
        self.counts = {"ok": 0, "refused": 0, "reset": 0, "closed": 0}
        self.statuses = {}
        self.arrivals = {}  # revision -> [times]
        self.next_address = 0
        self.waiting = 0  # connections opened, no answer yet
        self.request = b""

    def address(self):
        n = self.next_address
        self.next_address += 1
        return f"127.{10 + self.index}.{(n // 250) % 250}.{1 + n % 250}"

    def open(self, count, path, token):
        """Opens `count` connections asking GET `path`; with no path, connections that send nothing."""
        self.request = (f"GET {path} HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n"
                        f"Authorization: Bearer {token}\r\n\r\n").encode() if path else b""
        for _ in range(count):
            while self.waiting >= 256:
                self.poll(0.05)
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            sock.bind((self.address(), 0))
            try:
                sock.connect(("127.0.0.1", self.port))
            except BlockingIOError:
                pass
            except OSError:
                self.counts["reset"] += 1
                sock.close()
                continue
            self.connections[sock.fileno()] = [sock, "connecting", b"", time.time()]
            self.waiting += 1
            self.epoll.register(sock.fileno(), select.EPOLLOUT | select.EPOLLIN)
        deadline = time.time() + 60
        while self.waiting and time.time() < deadline:
            self.poll(0.05)

    def drop(self, fd, outcome):
        entry = self.connections.pop(fd)
        if entry[1] in ("connecting", "sent"):
            self.waiting -= 1
        elif entry[1] == "open":
            self.counts["ok"] -= 1
        self.counts[outcome] += 1
        try:
            self.epoll.unregister(fd)
        except OSError:
            pass
        entry[0].close()

    def poll(self, timeout):
        for fd, mask in self.epoll.poll(timeout, 4096):
            if fd == self.pipe.fileno():
                continue
            entry = self.connections.get(fd)
            if entry is None:
                continue
            sock = entry[0]
            if entry[1] == "connecting" and mask & select.EPOLLOUT:
                error = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if error:
                    self.drop(fd, "reset")
                    continue
                if not self.request:
                    entry[1] = "open"
                    self.waiting -= 1
                    self.counts["ok"] += 1
                    self.epoll.modify(fd, select.EPOLLIN)
                    continue
                sock.send(self.request)
                entry[1] = "sent"
                self.epoll.modify(fd, select.EPOLLIN)
                continue
            if mask & (select.EPOLLIN | select.EPOLLHUP | select.EPOLLERR):
                try:
                    data = sock.recv(65536)
                except (ConnectionResetError, OSError):
                    self.drop(fd, "reset")
                    continue
                now = time.time()
                if not data:
                    self.drop(fd, "closed" if entry[1] == "open" else "reset")
                    continue
                if entry[1] == "sent":
                    entry[2] += data
                    if b"\r\n\r\n" not in entry[2]:
                        continue
                    status = entry[2].split(b" ", 2)[1].decode()
                    self.statuses[status] = self.statuses.get(status, 0) + 1
                    self.waiting -= 1
                    if status == "200":
                        entry[1] = "open"
                        self.counts["ok"] += 1
                        data = entry[2]
                        entry[2] = b""
                    else:
                        entry[1] = "refused"
                        self.counts["refused"] += 1
                        self.connections.pop(fd)
                        self.epoll.unregister(fd)
                        sock.close()
                        continue
                for match in re.finditer(rb"\nid: (\d+)\n", data):
                    self.arrivals.setdefault(int(match.group(1)), []).append(now)

    def run(self):
        while True:
            self.poll(0.05)
            while self.pipe.poll():
                command = self.pipe.recv()
                kind = command[0]
                if kind == "open":
                    self.open(*command[1:])
                    self.pipe.send(("opened", dict(self.counts), dict(self.statuses)))
                elif kind == "counts":
                    self.pipe.send(("counts", dict(self.counts), dict(self.statuses)))
                elif kind == "arrivals":
                    deadline = time.time() + command[2]
                    while len(self.arrivals.get(command[1], [])) < self.counts["ok"] and time.time() < deadline:
                        self.poll(0.01)
                    self.pipe.send(("arrivals", self.arrivals.get(command[1], []), self.counts["ok"]))
                elif kind == "shed":
                    for fd in [fd for fd, entry in self.connections.items() if entry[1] == "open"][:command[1]]:
                        self.drop(fd, "closed")
                    self.pipe.send(("shed",))
                elif kind == "close":
                    for fd in list(self.connections):
                        self.drop(fd, "closed")
                    self.pipe.send(("closed",))
                elif kind == "exit":
                    return


def worker_main(index, pipe, port):
    lower_load_priority()
    resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
    Worker(index, pipe, port).run()


class Load:
    """The parent's handle on the workers."""

    def __init__(self, port, total):
        self.workers = []
        for index in range(max(1, -(-total // PER_WORKER))):
            parent, child = multiprocessing.Pipe()
            process = multiprocessing.Process(target=worker_main, args=(index, child, port), daemon=True)
            process.start()
            self.workers.append((process, parent, [0]))

    def open(self, count, path, token):
        """Opens `count` more connections, spread over the workers; returns the summed counts."""
        plan = []
        for process, pipe, held in self.workers:
            share = min(count, PER_WORKER - held[0])
            count -= share
            held[0] += share
            if share:
                pipe.send(("open", share, path, token))
                plan.append(pipe)
        for pipe in plan:
            pipe.recv()
        return self.counts()

    def counts(self):
        total, statuses = {}, {}
        for _, pipe, _ in self.workers:
            pipe.send(("counts",))
            _, counts, status = pipe.recv()
            for key, value in counts.items():
                total[key] = total.get(key, 0) + value
            for key, value in status.items():
                statuses[key] = statuses.get(key, 0) + value
        total["statuses"] = statuses
        return total

    def arrivals(self, revision, timeout):
        for _, pipe, _ in self.workers:
            pipe.send(("arrivals", revision, timeout))
        times, expected = [], 0
        for _, pipe, _ in self.workers:
            _, arrived, ok = pipe.recv()
            times += arrived
            expected += ok
        return times, expected

    def shed(self, count):
        """Closes `count` open streams (from the first worker)."""
        _, pipe, _ = self.workers[0]
        pipe.send(("shed", count))
        pipe.recv()

    def close(self):
        for _, pipe, held in self.workers:
            pipe.send(("close",))
            pipe.recv()
            held[0] = 0

    def stop(self):
        for process, pipe, _ in self.workers:
            pipe.send(("exit",))
            process.join(5)


# ---------------------------------------------------------------- server side

def start_server(directory, *extra):
    process = subprocess.Popen(
        [EXECUTABLE, "serve", "--port", "0", "--data-directory", directory, "--rate-limit-per-second", "0",
         "--maximum-event-streams-per-token", "1000000", "--idle-timeout-seconds", "3600", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    text = ""
    while "listening on http://" not in text:
        line = process.stdout.readline()
        if not line:
            sys.exit(f"the server exited:\n{text}")
        text += line
    log = []
    threading.Thread(target=lambda: [log.append(line) for line in process.stdout], daemon=True).start()
    port = int(re.search(r"listening on http://127\.0\.0\.1:(\d+)", text).group(1))
    token = re.search(r"(ffs_\S+)", text)
    limit = re.search(r"open-file limit (\d+)", text)
    limit = int(limit.group(1)) if limit else resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return process, port, token.group(1) if token else None, limit, text, log


def request(port, method, path, token=None, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, (json.loads(data) if data and data[:1] in b"{[" else data)


def production_revision(port, admin):
    status, reply = request(port, "GET", "/admin/v1/environments", admin)
    listed = reply.get("environments", reply) if isinstance(reply, dict) else reply
    return next(entry["revision"] for entry in listed if entry["key"] == "production")


def rss(pid):
    with open(f"/proc/{pid}/status") as status:
        return int(re.search(r"VmRSS:\s+(\d+) kB", status.read()).group(1)) * 1024


def cpu_seconds(pid):
    """The process's CPU time so far: (user, system) seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICK, int(fields[12]) / TICK


def cpu_share(pid, seconds):
    """The share of one core the process used over `seconds`: (user, system)."""
    (user, system), started = cpu_seconds(pid), time.time()
    time.sleep(seconds)  # on purpose: the idle-CPU window
    (user_after, system_after), elapsed = cpu_seconds(pid), time.time() - started
    return (user_after - user) / elapsed, (system_after - system) / elapsed


def descriptors(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def settle(pid, seconds=3):
    time.sleep(seconds)  # on purpose: let the allocator and the connections settle before RSS
    return rss(pid)


BURSTS = [int(n) for n in os.environ.get("FLAG_SERVER_BENCH_BURSTS", "2000,5000").split(",") if n]
PARTS = os.environ.get("FLAG_SERVER_BENCH_PARTS", "burst,scale").split(",")
WRK_SECONDS = int(os.environ.get("FLAG_SERVER_BENCH_WRK_SECONDS", "6"))
LUA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "propagation_bench.lua")
BULK_FLAGS = [f"flag-{index}" for index in range(20)]


class Wrk:
    """wrk on OFREP bulk evaluation (20 flags), in the background: requests/s and p99."""

    def __init__(self, port, token, seconds):
        arguments = ["wrk", "-t2", "-c32", f"-d{seconds}s", "--latency", "-s", LUA,
                     f"http://127.0.0.1:{port}/ofrep/v1/evaluate/flags"]
        self.process = subprocess.Popen(arguments, stdout=subprocess.PIPE, text=True,
                                        env=dict(os.environ, FLAG_SERVER_BENCH_TOKEN=token))

    def result(self):
        output = self.process.communicate()[0]
        bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
        if bad:
            sys.exit(f"wrk saw {bad.group(1)} non-2xx responses:\n{output}")
        rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
        value, unit = re.search(r"\s99%\s+([\d.]+)(us|ms|s)", output).groups()
        return rate, float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def measure_bursts(server, port, admin):
    """OFREP bulk while a burst of streams opens, and the memory the burst takes and leaves."""
    status, created = request(port, "POST", "/admin/v1/tokens", admin,
                              {"name": "bench", "environment": "production", "role": "client"})
    assert status == 201, created
    client = created["token"]
    for flag in BULK_FLAGS:
        status, reply = request(port, "PUT", f"/admin/v1/flags/{flag}", admin,
                                {"type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off"})
        assert status == 200, reply
        status, reply = request(port, "PUT", f"/admin/v1/environments/production/flags/{flag}/settings", admin,
                                {"enabled": True, "defaultVariant": "on",
                                 "targeting": {"if": [{"==": [{"var": "country"}, "DE"]}, "on", "off"]}})
        assert status == 200, reply
    load = Load(port, max(BURSTS))
    try:
        Wrk(port, client, 2).result()  # warm up
        print(f"bursts of streams opening at once, wrk {WRK_SECONDS} s a run (2 threads, 32 connections), "
              f"load average {os.getloadavg()[0]:.2f}")
        print("| burst | OFREP bulk idle | p99 idle | during the burst | % of idle | p99 | opened in | "
              "RSS before | open | per stream | after close |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for count in BURSTS:
            idle, idle_p99 = Wrk(port, client, WRK_SECONDS).result()
            before = settle(server.pid)
            busy = Wrk(port, client, WRK_SECONDS)
            time.sleep(1)  # on purpose: wrk runs before the burst starts
            started = time.time()
            known = load.counts()["statuses"]
            state = load.open(count, "/ofrep/v1/events", client)
            answers = {key: value - known.get(key, 0) for key, value in state["statuses"].items() if value > known.get(key, 0)}
            opened_in = time.time() - started
            during, during_p99 = busy.result()
            peak = settle(server.pid)
            held = state["ok"]
            load.close()
            after = settle(server.pid, 6)
            print(f"| {count:,} ({held:,} open, answers {answers}) | {idle:,.0f} req/s | {idle_p99:.1f} ms | "
                  f"{during:,.0f} req/s | **{100 * during / idle:.1f} %** | {during_p99:.1f} ms | {opened_in:.2f} s | "
                  f"{before / 2**20:.1f} MiB | {peak / 2**20:.1f} MiB | {(peak - before) / max(1, held) / 1024:.2f} KiB | "
                  f"{after / 2**20:.1f} MiB ({(after - before) / 2**20:+.1f}) |", flush=True)
    finally:
        load.close()
        load.stop()


def main():
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    print(f"# event streams, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}, descriptor hard limit {hard}")
    directory = tempfile.mkdtemp(prefix="bench-streams-")
    try:
        if "burst" in PARTS and BURSTS:
            server, port, admin, _, _, _ = start_server(os.path.join(directory, "bursts"))
            try:
                measure_bursts(server, port, admin)
            finally:
                server.terminate()
                server.wait()
        if "scale" not in PARTS:
            return
        # Baselines, each on a fresh server (freed memory stays in the process, so one server's
        # figures would hide the next): idle keep-alive connections that asked a fixed-body route
        # once (/health/live), and connections that sent nothing, the server's per-connection
        # floor (the channel, its handlers, the connection's task), whatever a request adds.
        counts_wanted = [int(n) for n in os.environ.get("FLAG_SERVER_BENCH_STREAMS", "").split(",") if n]
        for name, path, label in (("keep-alive", "/health/live", "idle keep-alive connections after GET /health/live"),
                                  ("silent", None, "connections that sent nothing (the server's per-connection floor)")):
            base, port, _, limit, _, _ = start_server(os.path.join(directory, name))
            cap = limit - min(256, limit // 4)
            counts_wanted = counts_wanted or [n for n in (1000, 5000, 10_000, 50_000, 100_000) if n < cap] + [cap - 100]
            baseline_count = min(10_000, counts_wanted[-1])
            load = Load(port, baseline_count)
            try:
                request(port, "GET", "/health/live")
                empty = settle(base.pid)
                opened = load.open(baseline_count, path, "none")
                full = settle(base.pid)
                print(f"baseline: idle server {empty / 2**20:.1f} MiB; {opened['ok']} {label}: "
                      f"{(full - empty) / max(1, opened['ok']) / 1024:.2f} KiB each")
            finally:
                load.close()
                load.stop()
                base.terminate()
                base.wait()

        server, port, admin, limit, text, log = start_server(os.path.join(directory, "streams"))
        try:
            measure_streams(server, port, admin, limit, log, cap, counts_wanted)
        finally:
            server.terminate()
            server.wait()
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def measure_streams(server, port, admin, limit, log, cap, counts_wanted):
    print(f"server: descriptor limit {limit}, connection cap {cap}")
    status, created = request(port, "POST", "/admin/v1/tokens", admin,
                              {"name": "bench", "environment": "production", "role": "client"})
    assert status == 201, created
    client = created["token"]
    status, reply = request(port, "PUT", "/admin/v1/flags/bench", admin,
                            {"type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off"})
    assert status == 200, reply
    load = Load(port, max(counts_wanted) + PAST_LIMIT + 100)
    request(port, "GET", "/health/live")
    empty = settle(server.pid)
    idle_user, idle_system = cpu_share(server.pid, IDLE_SECONDS)
    print(f"idle server: {empty / 2**20:.1f} MiB RSS, {descriptors(server.pid)} descriptors, "
          f"CPU over {IDLE_SECONDS} s {(idle_user + idle_system) * 100:.2f} % of one core")
    print("| streams | RSS | per stream | event p50 | p99 | max | received |")
    print("|---|---|---|---|---|---|---|")
    held, flip = 0, False
    for count in counts_wanted:
        state = load.open(count - held, "/ofrep/v1/events", client)
        held = state["ok"]
        resident = settle(server.pid)
        flip = not flip
        started = time.time()
        status, reply = request(port, "PUT", "/admin/v1/environments/production/flags/bench/settings", admin,
                                {"enabled": flip, "defaultVariant": "on"})
        assert status == 200, reply
        revision = production_revision(port, admin)
        times, expected = load.arrivals(revision, 30)
        delays = [t - started for t in times]
        print(f"| {held:,} | {resident / 2**20:.0f} MiB | {(resident - empty) / held / 1024:.2f} KiB | "
              f"{percentile(delays, 0.5) * 1000:.0f} ms | {percentile(delays, 0.99) * 1000:.0f} ms | "
              f"{max(delays) * 1000 if delays else float('nan'):.0f} ms | {len(times):,} of {expected:,} |",
              flush=True)
    user, system = cpu_share(server.pid, IDLE_SECONDS)
    used = user + system
    print(f"idle CPU with {held:,} streams over {IDLE_SECONDS} s (keep-alive every {KEEP_ALIVE} s): "
          f"{used * 100:.1f} % of one core ({used * 100 / os.cpu_count():.1f} % of the machine; "
          f"user {user * 100:.1f} %, system {system * 100:.1f} %)")
    # Above the idle server's own CPU, per stream and keep-alive, and what that makes at 100,000
    # streams (an extrapolation: linear in the streams, as each keep-alive is one write).
    per_keep_alive = max(0.0, used - idle_user - idle_system) * KEEP_ALIVE / held
    at_100k = idle_user + idle_system + per_keep_alive * 100_000 / KEEP_ALIVE
    print(f"  per stream and keep-alive {per_keep_alive * 1e6:.1f} µs of CPU above the idle server; "
          f"at 100,000 streams that is {at_100k * 100:.1f} % of one core "
          f"({at_100k * 100 / os.cpu_count():.1f} % of the machine), extrapolated")

    # Past the limit: more connections than the server may hold.
    extra = cap - held + PAST_LIMIT
    state = load.open(extra, "/ofrep/v1/events", client)
    alive = server.poll() is None
    print(f"past the limit: asked {extra:,} more streams with {held:,} open (cap {cap:,}): "
          f"{state['ok']:,} streams open, answers {state['statuses']}, {state['reset']:,} reset; "
          f"server {'alive' if alive else 'EXITED ' + str(server.returncode)}, "
          f"{descriptors(server.pid) if alive else '?'} descriptors of {limit}")
    status, _ = request(port, "GET", "/health/live")
    print(f"at the cap, a new connection (GET /health/live) is answered {status}")
    time.sleep(5)  # on purpose: several of libdispatch's once-a-second checks at the limit
    alive = server.poll() is None
    if alive:
        # Make room for the admin connections (at the cap they are refused too), then write.
        load.shed(10)
        for _ in range(1000):
            status, _ = request(port, "GET", "/health/live")
            if status != 503:
                break
        flip = not flip
        started = time.time()
        status, reply = request(port, "PUT", "/admin/v1/environments/production/flags/bench/settings", admin,
                                {"enabled": flip, "defaultVariant": "on"})
        times, expected = load.arrivals(production_revision(port, admin), 30)
        delays = [t - started for t in times]
        print(f"after 5 s at the cap, 10 streams closed, a change (write {status}): {len(times):,} of {expected:,} "
              f"open streams received it, p50 {percentile(delays, 0.5) * 1000:.0f} ms, "
              f"p99 {percentile(delays, 0.99) * 1000:.0f} ms; server alive")
    else:
        print("the server crashed at the limit:\n" + "".join(log[-20:]))
    load.close()
    load.stop()


if __name__ == "__main__":
    main()

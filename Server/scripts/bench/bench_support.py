"""Helpers of the benchmark scripts: flag-server processes, requests, timed event streams."""
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time


LOAD_NICENESS = int(os.environ.get("FLAG_SERVER_BENCH_LOAD_NICENESS", "0"))


def lower_load_priority():
    """Runs the calling load-generator process at FLAG_SERVER_BENCH_LOAD_NICENESS (0 by default:
    as before). The generators share the machine's cores with the server and wrk; at nice 19 they
    get a core only when neither wants it, so that what a run shows is the server's isolation and
    not the generator's own processor time (on a deployment, the load comes from other machines).
    The generator then offers less when the cores are full: read its counts beside the figures."""
    if LOAD_NICENESS:
        os.nice(LOAD_NICENESS)


def start(name, executable, arguments, processes, environment=None):
    """Starts a flag-server process and returns it, its port and the token it printed, if any."""
    process = subprocess.Popen(
        [executable] + arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=dict(os.environ, **(environment or {})))
    processes.append(process)
    text = ""
    while "listening on http://" not in text:
        line = process.stdout.readline()
        if not line:
            sys.exit(f"{name} exited:\n{text}")
        text += line
    threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
    port = int(re.search(r"listening on http://127\.0\.0\.1:(\d+)", text).group(1))
    token = re.search(r"(ffs_\S+)", text)
    return process, port, token.group(1) if token else None


def request(port, method, path, token=None, body=None, raw=None, timeout=600):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    payload = raw if raw is not None else (json.dumps(body) if body is not None else None)
    connection.request(method, path, body=payload, headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, (json.loads(data) if data else None)



def serve_with_client_token(executable, directory, processes):
    """`flag-server serve` with its stores in `directory`, no rate limit and FLAG_SERVER_BENCH_SERVE_ARGS
    (split on spaces), and a client token of production: returns the server process, its port, the
    first admin token and the client token."""
    server, port, admin = start(
        "flag-server", executable,
        ["serve", "--port", "0", "--data-directory", directory, "--rate-limit-per-second", "0", "--log-level", "info"]
        + os.environ.get("FLAG_SERVER_BENCH_SERVE_ARGS", "").split(),
        processes)
    if not admin:
        sys.exit("the server printed no first admin token")
    status, created = request(port, "POST", "/admin/v1/tokens", admin,
                              {"name": "bench", "environment": "production", "role": "client"})
    assert status == 201, created
    return server, port, admin, created["token"]

class EventStream:
    """Reads a server-sent-event stream on a raw socket and stamps each revision's arrival."""

    def __init__(self, port, token):
        self.socket = socket.create_connection(("127.0.0.1", port))
        self.socket.sendall(
            f"GET /ofrep/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
        self.arrivals = {}
        self.condition = threading.Condition()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        buffer = b""
        while True:
            chunk = self.socket.recv(65536)
            if not chunk:
                return
            now = time.perf_counter()
            buffer += chunk
            for match in re.finditer(rb"(?:^|\n)id: (\d+)\n", buffer):
                with self.condition:
                    self.arrivals.setdefault(int(match.group(1)), now)
                    self.condition.notify_all()
            buffer = buffer[-64:]

    def wait(self, revision, timeout=120):
        with self.condition:
            self.condition.wait_for(lambda: any(r >= revision for r in self.arrivals), timeout)
            return min((t for r, t in self.arrivals.items() if r >= revision), default=None)


def production_revision(port, admin):
    """The production environment's revision, through the admin API."""
    return next(e["revision"] for e in request(port, "GET", "/admin/v1/environments", admin)[1] if e["key"] == "production")

"""Times the repair of frozen LISTEN connections (see bench_heartbeat.sh)."""
import os
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_support import EventStream, production_revision, request, start  # noqa: E402

EXECUTABLE, URL, SCHEMA = sys.argv[1], sys.argv[2], sys.argv[3]
ROUNDS = int(os.environ.get("FLAG_SERVER_BENCH_ROUNDS", "10"))
PSQL = next((os.path.join(d, "psql") for d in sorted(
    [f"/usr/lib/postgresql/{v}/bin" for v in os.listdir("/usr/lib/postgresql")]) if os.path.exists(os.path.join(d, "psql"))), "psql")


def sql(statement):
    output = subprocess.run([PSQL, URL.split("?")[0], "-At", "-c", statement], capture_output=True, text=True, check=True)
    return [line for line in output.stdout.splitlines() if line]


def main():
    processes = []
    try:
        database = f"{URL}&schema={SCHEMA}" if "?" in URL else f"{URL}?schema={SCHEMA}"
        arguments = ["serve", "--port", "0", "--database-url", database, "--rate-limit-per-second", "0", "--log-level", "info"]
        a, a_port, admin = start("replica A", EXECUTABLE, arguments, processes)
        b, b_port, _ = start("replica B", EXECUTABLE, arguments, processes)
        client = request(a_port, "POST", "/admin/v1/tokens", admin,
                         {"name": "bench", "environment": "production", "role": "client"})[1]["token"]
        request(a_port, "PUT", "/admin/v1/flags/bench", admin,
                {"type": "boolean", "variants": {"on": True, "off": False}, "defaultVariant": "off"})
        while request(b_port, "POST", "/ofrep/v1/evaluate/flags", client, {"context": {}})[0] != 200:
            time.sleep(0.05)  # on purpose: waiting for B to load the token
        stream = EventStream(b_port, client)
        time.sleep(0.5)  # on purpose: let the stream open
        unready, repaired, ready_again = [], [], []
        for round_number in range(ROUNDS):
            backends = [int(pid) for pid in sql(
                f"SELECT pid FROM pg_stat_activity WHERE query LIKE 'LISTEN%flag_server_revisions_{SCHEMA}%'")]
            if len(backends) != 2:
                sys.exit(f"round {round_number}: expected two listening backends, found {backends}")
            frozen = time.perf_counter()
            for pid in backends:
                os.kill(pid, signal.SIGSTOP)
            status, reply = request(a_port, "PUT", "/admin/v1/environments/production/flags/bench/settings", admin,
                                    {"enabled": round_number % 2 == 0, "defaultVariant": "on"})
            revision = production_revision(a_port, admin)
            seen_unready = None
            while True:
                code = request(b_port, "GET", "/health/ready")[0]
                now = time.perf_counter()
                if code != 200 and seen_unready is None:
                    seen_unready = now
                if code == 200 and seen_unready is not None:
                    break
                if now - frozen > 60:
                    sys.exit("replica B did not recover within 60 s")
                time.sleep(0.01)  # on purpose: polling readiness
            ready_again.append(now - frozen)
            unready.append(seen_unready - frozen)
            arrived = stream.wait(revision, timeout=60)
            if arrived is None:
                sys.exit(f"round {round_number}: revision {revision} never reached B's stream")
            repaired.append(arrived - frozen)
            for pid in backends:
                os.kill(pid, signal.SIGCONT)
            time.sleep(1)  # on purpose: let the stopped backends exit before the next round

        def line(values):
            return f"median {statistics.median(values) * 1000:.0f} ms, max {max(values) * 1000:.0f} ms"
        print(f"rounds: {ROUNDS} (listening backends of both replicas stopped with SIGSTOP, a change written on A at once)")
        print(f"  B reports not ready after:              {line(unready)}")
        print(f"  the change's event on B's stream after: {line(repaired)}")
        print(f"  B ready again after:                    {line(ready_again)}")
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)


main()

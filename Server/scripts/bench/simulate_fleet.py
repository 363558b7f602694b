#!/usr/bin/env python3
"""A seeded fleet of simulated phones taking part in a progressive rollout with a crash-rate
guardrail, against a real `flag-server serve` (Python 3 standard library only).

Each phone is modelled on the library's event path (`FlagEventRecorder` in FeatureFlags;
`FlagEventDelivery`, `SessionHealthMonitor`, `SessionMarker` in FeatureFlagsEvents):

- it has a targeting key (`<prefix><seed>-<n>`), an app version and a platform, drawn from the
  scenario's population; they are its OFREP context (`targetingKey`, `appVersion`, `osName`) and
  the `source` of every batch it sends;
- it evaluates flags by OFREP bulk (`POST /ofrep/v1/evaluate/flags` with `If-None-Match`), at its
  first launch and then every `--refresh-seconds`, and serves the variant the server named, so it
  follows the plan's split as the SDK's loader does (a value applies when it arrives; launch
  never waits, except the very first one, which has nothing cached);
- it runs sessions one after the other: a session reads the flag early on (an exposure: the first
  read of each variant in the session; each read is counted in the next summary), and when a
  refresh changes the variant while the session runs, it reads the new one too (the session then
  carries both, as the marker does);
- a session ends cleanly (`$session`, with the variants the session read, one event per variant
  as `SessionHealthMonitor` sends them) or crashes, with the crash probability the scenario gives
  for its app version and the variants it read. A crashed session is reported at the next launch
  (`$crash`, `detection: marker`, with the crashed session's variants and the app version it ran).
  A crash before the session read the flag (a baseline crash early in the session) carries no
  variant, as a marker without units does;
- it delivers like `FlagEventDelivery`: every `--flush-seconds`, session health events first in
  batches of their own marked `Flag-Event-Priority: health`, then exposures and summaries, at most
  500 events a batch, each with a batch id kept across retries and `Idempotency-Key`; a 429 or
  503 holds the phone's delivery for its `Retry-After`; nothing is lost when a session crashes
  (the SDK's queue is on disk).

Time is compressed: sessions last `--session-seconds` on average with `--gap-seconds` between them
(fractions of a second, not minutes), while refreshes and flushes come every few seconds, so that a
fleet of a few thousand phones gives a rollout step tens of thousands of sessions within its
half-minute. The server's executor looks at plans every 10 seconds by default, so a step lasts up
to 10 s more than its duration and an evaluation interval under 10 s is in effect 10 s;
`--tick-seconds` starts the server with `--rollout-tick-seconds` to shorten that.

Scenarios (probabilities are per session; the population's app versions are 5.2.0 for 50 % of the
phones, 5.1.0 for 30 %, 5.0.1 for 20 %):

- `double`: the new variant doubles the crash rate, 2 % -> 4 %, on every version; it must be rolled
  back, in the first steps;
- `one-version`: the new variant crashes in 4 % of sessions on 5.1.0 only (2 % elsewhere, and in
  the old variant); it must be caught;
- `aa`: both variants crash alike, 2 % on 5.2.0 and 5.0.1 and 6 % on 5.1.0 (a skewed population);
  it must not be rolled back.

For each run the script creates a boolean flag (off/on) in production, lets the fleet run on "off"
for `--warmup-seconds`, creates and starts a plan from "off" to "on" (`--steps`, one `crash_rate`
guardrail with tolerance 0, `rollback` on regression, `--minimum-units`, `--alpha`) and follows it
until it is rolled back, paused or finished (or `--max-seconds`). It prints one JSON object per run:
the outcome, the step (1-based) and its share, seconds from the step's start and from the plan's
start to the rollback, the finding, and per variant the sessions and crashes the server accepted,
the crashes that arrived without a variant, the share of crashes that arrived with one, and the
delivery: batches sent and answered 429/503, health and other batches apart, events accepted and
OFREP evaluations per second, how long the server took to answer (evaluations, health batches and
other batches apart), and how late evidence arrived (seconds from a crash, and from its `$crash`
being written at the next launch, to the server's 202: median, 95th percentile, largest).

`--flood-processes N` adds a flood from the plan's start: N processes (at nice 10, so that the
phones keep their times) of `--flood-connections` connections each send batches of
`--flood-events` events (2,000 by default, the server's largest batch: nine tenths exposures, one
tenth summaries, of a flag of their own) as fast as they can, each with a new batch id, ignoring
`Retry-After`, with the fleet's client token (it ships in every copy of the app), with
`--flood-token own` a client token of their own, or with `--flood-token each` one client token per
process (one token's uploads are capped, `maximumQueuedBytesPerToken`: several tokens reach the
server's own bounds). The run then reports the flood's answers by status, to set beside the fleet's
health batches.

Against a server it starts (a fresh data directory, no client rate limit):

    python3 Server/scripts/bench/simulate_fleet.py --binary Server/.build-release/release/flag-server \\
        --scenario double --scenario aa --scenario one-version --seeds 1-5 --phones 2000

or against a running server with an admin token (`--server URL --admin-token TOKEN`). The commands
and figures are in `Server/Docs/RolloutFleet.md`.
"""
import argparse
import calendar
import hashlib
import heapq
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
import urllib.parse

VERSIONS = (("5.2.0", 0.5), ("5.1.0", 0.3), ("5.0.1", 0.2))
PLATFORMS = (("iOS", 0.85), ("iPadOS", 0.15))
OLD, NEW = "off", "on"
HEALTH_EVENTS = ("$session", "$crash")
BATCH_EVENTS = 500
BATCHES_PER_FLUSH = 20
SESSION_ACTIONS = ("launch", "end", "warm")


class Scenario:
    """A population and the crash probability of a session by app version and variant."""

    def __init__(self, name, description, base, new=None, *, must):
        self.name = name
        self.description = description
        self.base = base  # version -> probability in the old variant (and before any read)
        self.new = new or {}  # version -> probability in the new variant, when it differs
        self.must = must  # "roll back" or "not roll back"

    def crash_probability(self, version, variants):
        base = self.base[version]
        return max([base] + [self.new.get(version, base) for variant in variants if variant == NEW])


SCENARIOS = {
    "double": Scenario(
        "double", "the new variant crashes in 4 % of sessions against 2 %, on every version",
        {"5.2.0": 0.02, "5.1.0": 0.02, "5.0.1": 0.02}, {"5.2.0": 0.04, "5.1.0": 0.04, "5.0.1": 0.04},
        must="roll back"),
    "one-version": Scenario(
        "one-version", "the new variant crashes in 4 % of sessions on 5.1.0 only (30 % of phones), 2 % elsewhere",
        {"5.2.0": 0.02, "5.1.0": 0.02, "5.0.1": 0.02}, {"5.1.0": 0.04}, must="roll back"),
    "aa": Scenario(
        "aa", "both variants alike: 2 % of sessions, 6 % on 5.1.0 (30 % of phones)",
        {"5.2.0": 0.02, "5.1.0": 0.06, "5.0.1": 0.02}, must="not roll back"),
}


def pick(generator, weighted):
    draw, total = generator.random(), 0.0
    for value, weight in weighted:
        total += weight
        if draw < total:
            return value
    return weighted[-1][0]


def now_ms():
    return int(time.time() * 1000)


class Connection:
    """One keep-alive HTTP connection to the server (a worker's), reopened after an error."""

    def __init__(self, base, timeout=30):
        parsed = urllib.parse.urlsplit(base)
        self.host, self.port = parsed.hostname, parsed.port or 80
        self.timeout = timeout
        self.connection = None

    def request(self, method, path, headers, body=None):
        """(status, headers, body bytes); retries once on a broken connection."""
        for attempt in (0, 1):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                return response.status, response.headers, response.read()
            except (OSError, http.client.HTTPException):
                self.connection.close()
                self.connection = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None


class Admin:
    """The admin API with one admin token."""

    def __init__(self, base, token):
        self.connection = Connection(base)
        self.token = token
        self.lock = threading.Lock()

    def call(self, method, path, body=None, expect=(200,)):
        data = None if body is None else json.dumps(body).encode()
        with self.lock:
            status, _, answer = self.connection.request(
                method, path, {"Authorization": "Bearer " + self.token, "Content-Type": "application/json"}, data)
        parsed = json.loads(answer) if answer else None
        if status not in expect:
            raise SystemExit("%s %s answered %d: %s" % (method, path, status, answer.decode(errors="replace")))
        return parsed

    def close(self):
        self.connection.close()


class Counts:
    """What the server accepted (202), counted by the worker that sent it."""

    def __init__(self):
        self.lock = threading.Lock()
        self.variants = {}
        self.crashes_without_variant = 0
        self.sessions_without_variant = 0
        self.batches = 0
        self.health_batches = 0
        self.events = 0
        self.shed = {}
        # Answers other than 202 by kind of batch: {"health": {"503": n}, "other": {...}}.
        self.shed_by_kind = {"health": {}, "other": {}}
        self.sent_by_kind = {"health": 0, "other": 0}
        # Seconds from a crash (the process dying) to the server's 202 for its `$crash`, and from
        # the `$crash` being written (the next launch) to that 202.
        self.crash_delays = []
        self.report_delays = []
        # Seconds from sending a request to its answer, by kind: "evaluation", "health", "other".
        self.answer_seconds = {"evaluation": [], "health": [], "other": []}
        self.refused = 0
        self.evaluations = 0
        self.not_modified = 0
        self.simulated_sessions = 0
        self.simulated_crashes = 0
        self.late_seconds = 0.0

    def accepted(self, batch, flag, health, crashes=()):
        """A batch answered 202; `crashes` holds (crashed, written) monotonic times of its `$crash`
        events."""
        now = time.monotonic()
        with self.lock:
            self.batches += 1
            self.health_batches += 1 if health else 0
            self.events += len(batch["exposures"]) + len(batch["summaries"]) + len(batch["events"])
            for crashed, written in crashes:
                self.crash_delays.append(now - crashed)
                self.report_delays.append(now - written)
            for event in batch["events"]:
                variant = event.get("variants", {}).get(flag)
                if variant is None:
                    if event["name"] == "$crash":
                        self.crashes_without_variant += 1
                    else:
                        self.sessions_without_variant += 1
                    continue
                entry = self.variants.setdefault(variant, {"$session": 0, "$crash": 0})
                entry[event["name"]] += 1

    def answered(self, status, health=None):
        """A request answered 429 or 503; `health`: whether it was a health batch (None: an
        evaluation)."""
        with self.lock:
            self.shed[str(status)] = self.shed.get(str(status), 0) + 1
            if health is not None:
                kind = self.shed_by_kind["health" if health else "other"]
                kind[str(status)] = kind.get(str(status), 0) + 1

    def sent(self, health):
        with self.lock:
            self.sent_by_kind["health" if health else "other"] += 1


class Phone:
    """One simulated phone: its app, cached evaluation, session marker and event queue."""

    def __init__(self, index, seed, prefix, generator):
        self.index = index
        self.key = "%s%d-%05d" % (prefix, seed, index)
        self.version = pick(generator, VERSIONS)
        self.platform = pick(generator, PLATFORMS)
        self.random = random.Random("%d|%d" % (seed, index))
        self.source = {"appVersion": self.version, "buildConfiguration": "release", "platform": self.platform}
        self.context = {"targetingKey": self.key, "appVersion": self.version, "osName": self.platform}
        self.variant = None  # the cached evaluation of the flag
        self.reason = None
        self.etag = None
        self.marker = None  # the running session's, or a crashed one's until the next launch
        self.session_number = 0
        self.pending = []  # (is health, kind, event, crash times: (crashed, written) or None)
        self.batches = []  # formed, not yet accepted: (is health, batch, crash times)
        self.batch_number = 0
        self.not_before = 0.0
        self.reads = {}  # (variant, reason) -> [count, start]


class Fleet:
    """The phones of one run, driven by a few worker threads in compressed real time."""

    def __init__(self, base, client_token, flag, scenario, seed, arguments):
        self.base = base
        self.token = client_token
        self.flag = flag
        self.scenario = scenario
        self.seed = seed
        self.arguments = arguments
        generator = random.Random(seed)
        self.phones = [Phone(index, seed, arguments.prefix, generator) for index in range(arguments.phones)]
        self.counts = Counts()
        self.stopping = threading.Event()
        self.threads = []
        self.errors = []

    # The workers.

    def start(self):
        self.started = time.monotonic()
        workers = max(1, min(self.arguments.workers, len(self.phones)))
        for number in range(workers):
            phones = self.phones[number::workers]
            thread = threading.Thread(target=self.work, args=(phones,), name="fleet-%d" % number, daemon=True)
            thread.start()
            self.threads.append(thread)

    def stop(self):
        self.stopping.set()
        self.stopped = time.monotonic()
        for thread in self.threads:
            thread.join(timeout=60)
        if self.errors:
            raise SystemExit("a fleet worker failed: %s" % self.errors[0])

    def work(self, phones):
        connection = Connection(self.base)
        try:
            queue = []
            sequence = 0
            start = time.monotonic()
            arguments = self.arguments
            for phone in phones:
                # Spread the first launches, refreshes and flushes over their periods.
                first = start + phone.random.random() * arguments.gap_seconds
                for action, at in (("launch", first), ("refresh", first + phone.random.random() * arguments.refresh_seconds),
                                   ("flush", first + phone.random.random() * arguments.flush_seconds)):
                    heapq.heappush(queue, (at, sequence, action, phone))
                    sequence += 1
            while not self.stopping.is_set():
                at, _, action, phone = heapq.heappop(queue)
                wait = at - time.monotonic()
                if wait > 0:
                    # On purpose: the fleet runs in compressed real time, each action at its time.
                    if self.stopping.wait(wait):
                        break
                else:
                    with self.counts.lock:
                        self.counts.late_seconds = max(self.counts.late_seconds, -wait)
                following = getattr(self, action)(phone, connection)
                now = time.monotonic()
                for next_action, delay in following:
                    # A phone's sessions follow one another on the fleet's clock, so a worker held
                    # up by a slow request catches up on them (at most 5 s behind) instead of
                    # losing them; refreshes and flushes come a period after they were done.
                    origin = max(at, now - 5) if next_action in SESSION_ACTIONS else now
                    heapq.heappush(queue, (origin + delay, sequence, next_action, phone))
                    sequence += 1
        except BaseException as error:  # reported by stop()
            self.errors.append(repr(error))
            self.stopping.set()
        finally:
            connection.close()

    # A phone's actions; each returns the actions it schedules, with their delays in seconds.

    def launch(self, phone, connection):
        """A cold launch: reports a crashed session's marker, evaluates once if nothing is cached,
        then begins a session."""
        if phone.marker is not None:
            self.report(phone, "$crash", phone.marker, {"detection": "marker"})
            phone.marker = None
        if phone.variant is None:
            self.evaluate(phone, connection)
        return self.begin(phone)

    def begin(self, phone):
        arguments = self.arguments
        phone.session_number += 1
        started = now_ms()
        marker = {"id": "%s-s%d" % (phone.key, phone.session_number), "start": started, "variants": [],
                  "draw": phone.random.random(), "open": True}
        phone.marker = marker
        duration = phone.random.expovariate(1 / arguments.session_seconds)
        # The first read comes in the first fifth of the session; a baseline crash at a uniform
        # time before it carries no variant (the marker holds no unit yet).
        read_at = phone.random.random() * 0.2
        crash_at = phone.random.random()
        base = self.scenario.base[phone.version]
        if marker["draw"] < base and crash_at < read_at:
            with self.counts.lock:
                self.counts.simulated_sessions += 1
            return self.crash(phone, after=crash_at * duration)
        self.read(phone)
        return [("end", duration)]

    def read(self, phone):
        """The app reads the flag: an exposure on the first read of a variant in the session."""
        if phone.variant is None:
            return
        key = (phone.variant, phone.reason)
        entry = phone.reads.setdefault(key, [0, now_ms()])
        entry[0] += 1 + phone.random.randrange(5)
        marker = phone.marker
        if marker is not None and marker["open"] and phone.variant not in marker["variants"]:
            marker["variants"].append(phone.variant)
            exposure = {"flag": self.flag, "variant": phone.variant, "value": phone.variant == NEW,
                        "reason": phone.reason, "unit": phone.key, "time": now_ms()}
            if phone.etag:
                exposure["revision"] = phone.etag
            phone.pending.append((False, "exposures", exposure, None))

    def end(self, phone, connection):
        marker = phone.marker
        if marker is None or not marker["open"]:
            return []
        probability = self.scenario.crash_probability(phone.version, marker["variants"])
        with self.counts.lock:
            self.counts.simulated_sessions += 1
        if marker["draw"] < probability:
            return self.crash(phone, after=0)
        marker["open"] = False
        self.report(phone, "$session", marker, {})
        phone.marker = None
        return [("warm", phone.random.expovariate(1 / self.arguments.gap_seconds))]

    def warm(self, phone, connection):
        """The app comes back to the foreground: a session in the same process."""
        return self.begin(phone)

    def crash(self, phone, after):
        """The process dies: the marker stays for the next launch."""
        phone.marker["open"] = False
        phone.marker["crashed"] = time.monotonic() + after
        with self.counts.lock:
            self.counts.simulated_crashes += 1
        return [("launch", after + phone.random.expovariate(1 / self.arguments.gap_seconds))]

    def report(self, phone, name, marker, attributes):
        """`$session` or `$crash` for a marker: one event per variant read, or one without unit
        and variants when the session read none."""
        attributes = dict(attributes, session=marker["id"])
        value = round(max(0, now_ms() - marker["start"]) / 1000, 3)
        times = (marker["crashed"], time.monotonic()) if name == "$crash" else None
        if not marker["variants"]:
            phone.pending.append((True, "events", {"name": name, "value": value, "attributes": attributes,
                                                   "variants": {}, "time": now_ms()}, times))
        for variant in marker["variants"]:
            phone.pending.append((True, "events", {"name": name, "value": value, "attributes": attributes,
                                                   "unit": phone.key, "variants": {self.flag: variant}, "time": now_ms()},
                                  times))

    def refresh(self, phone, connection):
        self.evaluate(phone, connection)
        return [("refresh", self.arguments.refresh_seconds * (0.75 + 0.5 * phone.random.random()))]

    def evaluate(self, phone, connection):
        """OFREP bulk with the phone's ETag; a changed variant is read again by a running session."""
        headers = {"Authorization": "Bearer " + self.token, "Content-Type": "application/json"}
        if phone.etag:
            headers["If-None-Match"] = phone.etag
        body = json.dumps({"context": phone.context}, separators=(",", ":"), sort_keys=True).encode()
        sent = time.monotonic()
        status, answer_headers, answer = connection.request("POST", "/ofrep/v1/evaluate/flags", headers, body)
        with self.counts.lock:
            self.counts.answer_seconds["evaluation"].append(time.monotonic() - sent)
            self.counts.evaluations += 1
            self.counts.not_modified += 1 if status == 304 else 0
        if status == 304:
            return
        if status in (429, 503):
            # Keep the cached values; the next refresh comes on its period.
            self.counts.answered(status)
            return
        if status != 200:
            raise AssertionError("the bulk evaluation answered %d: %s" % (status, answer[:300]))
        flags = json.loads(answer).get("flags", [])
        entry = next((flag for flag in flags if flag.get("key") == self.flag), None)
        if entry is None or "errorCode" in entry:
            raise AssertionError("the bulk evaluation has no value of %r: %s" % (self.flag, entry))
        phone.etag = answer_headers.get("ETag")
        changed = phone.variant != entry.get("variant")
        phone.variant, phone.reason = entry.get("variant"), entry.get("reason", "UNKNOWN")
        if changed and phone.marker is not None and phone.marker["open"]:
            self.read(phone)

    def flush(self, phone, connection):
        """Forms and sends batches: health events first, in batches of their own."""
        following = [("flush", self.arguments.flush_seconds * (0.75 + 0.5 * phone.random.random()))]
        if phone.reads:
            end = now_ms()
            for (variant, reason), (count, start) in phone.reads.items():
                phone.pending.append((False, "summaries", {"flag": self.flag, "variant": variant, "reason": reason,
                                                           "count": count, "start": start, "end": end}, None))
            phone.reads = {}
        if time.monotonic() < phone.not_before:
            return following
        for _ in range(BATCHES_PER_FLUSH):
            if not phone.batches and not self.form(phone):
                break
            health, batch, crashes = phone.batches[0]
            headers = {"Authorization": "Bearer " + self.token, "Content-Type": "application/json",
                       "Idempotency-Key": batch["batchId"]}
            if health:
                headers["Flag-Event-Priority"] = "health"
            body = json.dumps(batch, separators=(",", ":"), sort_keys=True).encode()
            self.counts.sent(health)
            sent = time.monotonic()
            status, answer_headers, answer = connection.request("POST", "/ofrep/v1/ingestion", headers, body)
            with self.counts.lock:
                self.counts.answer_seconds["health" if health else "other"].append(time.monotonic() - sent)
            if 200 <= status < 300:
                phone.batches.pop(0)
                self.counts.accepted(batch, self.flag, health, crashes)
            elif status in (429, 503):
                self.counts.answered(status, health)
                phone.not_before = time.monotonic() + min(60.0, float(answer_headers.get("Retry-After") or 10))
                break
            else:
                # The SDK drops a batch the server refuses as malformed; here it is a defect.
                phone.batches.pop(0)
                with self.counts.lock:
                    self.counts.refused += 1
                raise AssertionError("ingestion answered %d: %s" % (status, answer[:300].decode(errors="replace")))
        return following

    def form(self, phone):
        """The next batch from the pending events: health events first, at most 500."""
        if not phone.pending:
            return False
        health = any(item[0] for item in phone.pending)
        taken = [item for item in phone.pending if item[0] == health][:BATCH_EVENTS]
        taken_ids = set(map(id, taken))
        phone.pending = [item for item in phone.pending if id(item) not in taken_ids]
        phone.batch_number += 1
        digest = hashlib.sha256(("%s|%s|%d" % (self.flag, phone.key, phone.batch_number)).encode()).hexdigest()
        batch = {"version": 1, "batchId": "fleet-" + digest[:32], "source": phone.source,
                 "exposures": [], "summaries": [], "events": []}
        for _, kind, event, _ in taken:
            batch[kind].append(event)
        phone.batches.append((health, batch, [item[3] for item in taken if item[3] is not None]))
        return True


class Flood:
    """Clients that send batches of exposures and summaries as fast as they can and ignore
    `Retry-After` (a misbehaving app build, or anyone holding a client token): `processes` processes
    of `connections` keep-alive connections each, every batch a new batch id. Health batches of the
    fleet must still be accepted while these are shed."""

    def __init__(self, base, tokens, flag, processes, connections, events):
        """`tokens`: the client token of each process, in turn."""
        self.started = None
        self.events = events
        context = multiprocessing.get_context("spawn")
        self.stopping = context.Event()
        self.results = context.Queue()
        self.processes = [context.Process(target=flood_process, daemon=True,
                                          args=(base, tokens[number % len(tokens)], flag, number, connections, events,
                                                self.stopping, self.results))
                          for number in range(processes)]

    def start(self):
        self.started = time.monotonic()
        for process in self.processes:
            process.start()

    def stop(self):
        """Stops the processes; their answers by status, summed (None when it never started)."""
        if self.started is None:
            return None
        self.stopping.set()
        elapsed = time.monotonic() - self.started
        answers = {}
        for _ in self.processes:
            for status, count in self.results.get(timeout=120).items():
                answers[status] = answers.get(status, 0) + count
        for process in self.processes:
            process.join(timeout=30)
        requests = sum(answers.values())
        return {"answers": answers, "requestsPerSecond": round(requests / elapsed, 1),
                "eventsAcceptedPerSecond": round(answers.get("202", 0) * self.events / elapsed, 1),
                "seconds": round(elapsed, 1)}


def flood_process(base, token, flag, number, connections, events, stopping, results):
    """One process of a flood: `connections` threads sending batches of `events` (nine tenths
    exposures, one tenth summaries) without pause. The process runs at nice 10: the fleet and the
    flood share the machine with the server, and the fleet's phones must keep their times for the
    evidence's delays to be the server's."""
    os.nice(10)
    answers = {}
    lock = threading.Lock()
    at = now_ms()
    exposures = [{"flag": flag, "variant": NEW, "value": True, "reason": "SPLIT", "unit": "flood-%d-%d" % (number, unit),
                  "time": at} for unit in range(events - events // 10)]
    summaries = [{"flag": flag, "variant": NEW, "reason": "SPLIT", "count": 3, "start": at - 1000 - unit, "end": at}
                 for unit in range(events // 10)]
    template = json.dumps({"version": 1, "batchId": "@ID@", "source": {"appVersion": "5.2.0", "platform": "iOS",
                                                                         "buildConfiguration": "release"},
                           "exposures": exposures, "summaries": summaries, "events": []},
                          separators=(",", ":")).encode()
    before, _, after = template.partition(b"@ID@")

    def send(thread):
        connection = Connection(base)
        sequence = 0
        while not stopping.is_set():
            sequence += 1
            batch_id = "flood-%d-%d-%d-%d" % (os.getpid(), number, thread, sequence)
            body = before + batch_id.encode() + after
            try:
                status, _, _ = connection.request("POST", "/ofrep/v1/ingestion", {
                    "Authorization": "Bearer " + token, "Content-Type": "application/json",
                    "Idempotency-Key": batch_id}, body)
            except (OSError, http.client.HTTPException):
                status = "error"
            with lock:
                answers[str(status)] = answers.get(str(status), 0) + 1
        connection.close()

    threads = [threading.Thread(target=send, args=(thread,), daemon=True) for thread in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results.put(answers)


def parse_steps(text):
    """'20:15,50:15,100' as [{"percent": 20, "durationSeconds": 15}, …]."""
    steps = []
    for part in text.split(","):
        percent, _, duration = part.strip().partition(":")
        try:
            steps.append({"percent": float(percent), "durationSeconds": int(duration or 1)})
        except ValueError:
            raise SystemExit("--steps: %r is not percent:seconds" % part)
    return steps


def parse_seeds(text):
    """'1-5' or '1,4,9' as a list of ints."""
    seeds = []
    for part in text.split(","):
        first, dash, last = part.partition("-")
        try:
            seeds.extend(range(int(first), int(last) + 1) if dash else [int(first)])
        except ValueError:
            raise SystemExit("--seeds: %r is not a seed or a range of seeds" % part)
    return seeds


def iso_seconds(text):
    """An RFC 3339 time of the server as seconds since 1970."""
    match = re.match(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?Z$", text)
    if not match:
        raise AssertionError("not a time: %r" % text)
    values = [int(value) for value in match.groups()[:6]]
    return calendar.timegm(values) + float(match.group(7) or 0)


def run(admin, base, fleet_token, scenario, seed, arguments, label=""):
    """One rollout with one fleet; returns its report."""
    flag = "fleet-%s-%d%s" % (scenario.name, seed, label)
    admin.call("PUT", "/admin/v1/flags/" + flag, {
        "type": "boolean", "variants": {OLD: False, NEW: True}, "defaultVariant": OLD})
    admin.call("PUT", "/admin/v1/environments/production/flags/%s/settings" % flag, {
        "enabled": True, "defaultVariant": OLD, "targeting": None, "reason": "simulated fleet: %s" % scenario.name})
    fleet = Fleet(base, fleet_token, flag, scenario, seed, arguments)
    flood = None
    if arguments.flood_processes:
        if arguments.flood_token == "same":
            tokens = [fleet_token]
        elif arguments.flood_token == "own":
            tokens = [client_token(admin, "flood-" + flag)]
        else:
            tokens = [client_token(admin, "flood-%s-%d" % (flag, number)) for number in range(arguments.flood_processes)]
        flood = Flood(base, tokens, "flood-" + flag, arguments.flood_processes, arguments.flood_connections,
                      arguments.flood_events)
    fleet.start()
    try:
        # On purpose: the fleet's first launches and evaluations before the plan starts.
        time.sleep(arguments.warmup_seconds)
        if flood is not None:
            flood.start()
        plan = admin.call("POST", "/admin/v1/environments/production/rollouts", {
            "flag": flag, "oldVariant": OLD, "newVariant": NEW, "steps": parse_steps(arguments.steps),
            "guardrails": [{"metric": "crash_rate", "tolerance": 0, "direction": "increase"}],
            "alpha": arguments.alpha, "minimumUnits": arguments.minimum_units,
            "evaluationIntervalSeconds": arguments.evaluation_interval, "onRegression": "rollback"}, expect=(201,))
        path = "/admin/v1/environments/production/rollouts/" + urllib.parse.quote(plan["id"])
        plan = admin.call("POST", path + "/start", {})
        started = time.monotonic()
        while plan["status"] == "running" and time.monotonic() - started < arguments.max_seconds:
            if fleet.stopping.is_set():
                break
            # On purpose: following the plan as the executor moves it.
            time.sleep(0.5)
            plan = admin.call("GET", path)
    finally:
        fleet.stop()
        flooded = flood.stop() if flood is not None else None
    result = report(plan, fleet, scenario, seed, arguments)
    if flooded is not None:
        flooded.update(processes=arguments.flood_processes, connections=arguments.flood_connections,
                       events=arguments.flood_events, token=arguments.flood_token)
        result["flood"] = flooded
    return result


def report(plan, fleet, scenario, seed, arguments):
    history = plan["history"]
    start = next((entry for entry in history if entry["action"] == "started"), None)
    outcome = {"rolled_back": "rolled back", "finished": "finished", "paused": "paused",
               "running": "still running at --max-seconds"}.get(plan["status"], plan["status"])
    result = {"scenario": scenario.name, "seed": seed, "phones": arguments.phones, "flag": plan["flag"],
              "outcome": outcome, "expected": scenario.must}
    begun = iso_seconds(start["time"]) if start else float("inf")
    ending = next((entry for entry in reversed(history)
                   if entry["action"] in ("rolled_back", "paused", "finished") and iso_seconds(entry["time"]) >= begun), None)
    if ending is not None and ending["action"] != "finished":
        began = [entry for entry in history if entry["action"] in ("started", "stepped")
                 and iso_seconds(entry["time"]) <= iso_seconds(ending["time"])][-1]
        finding = next((entry.get("finding") for entry in reversed(history) if entry.get("finding")), None)
        result["step"] = began.get("step", 0) + 1
        result["stepPercent"] = began.get("percent")
        result["secondsIntoStep"] = round(iso_seconds(ending["time"]) - iso_seconds(began["time"]), 1)
        result["secondsSincePlanStart"] = round(iso_seconds(ending["time"]) - iso_seconds(start["time"]), 1)
        if finding:
            result["finding"] = {key: finding[key] for key in (
                "oldTrials", "newTrials", "oldEvents", "newEvents", "oldRate", "newRate", "difference", "lower", "upper")
                if key in finding}
            for key in ("oldUnits", "newUnits", "appVersion", "platform", "segment"):
                if key in finding:
                    result["finding"][key] = finding[key]
        comment = next((entry.get("comment") for entry in reversed(history) if entry["action"] == "regression"), None)
        if comment:
            result["regression"] = comment
    elif ending is not None:
        result["secondsSincePlanStart"] = round(iso_seconds(ending["time"]) - iso_seconds(start["time"]), 1)
    result["evaluations"] = len(plan.get("evaluations", []))
    counts = fleet.counts
    crashes_with = sum(entry["$crash"] for entry in counts.variants.values())
    all_crashes = crashes_with + counts.crashes_without_variant
    result["received"] = {variant: {"sessions": entry["$session"] + entry["$crash"], "crashes": entry["$crash"],
                                    "crashRate": round(entry["$crash"] / max(1, entry["$session"] + entry["$crash"]), 4)}
                          for variant, entry in sorted(counts.variants.items())}
    result["crashesWithoutVariant"] = counts.crashes_without_variant
    result["crashShareWithVariant"] = round(crashes_with / all_crashes, 4) if all_crashes else None
    result["simulated"] = {"sessions": counts.simulated_sessions, "crashes": counts.simulated_crashes}
    elapsed = max(1e-9, fleet.stopped - fleet.started)
    result["delivery"] = {"batches": counts.batches, "healthBatches": counts.health_batches, "shed": counts.shed,
                          "sent": counts.sent_by_kind, "shedByKind": counts.shed_by_kind,
                          "evaluations": counts.evaluations, "notModified": counts.not_modified,
                          "latestActionLateSeconds": round(counts.late_seconds, 2), "seconds": round(elapsed, 1),
                          "eventsAcceptedPerSecond": round(counts.events / elapsed, 1),
                          "evaluationsPerSecond": round(counts.evaluations / elapsed, 1),
                          "crashToAcceptedSeconds": percentiles(counts.crash_delays),
                          "crashReportToAcceptedSeconds": percentiles(counts.report_delays),
                          "answerSeconds": {kind: percentiles(values, 3) for kind, values in counts.answer_seconds.items()}}
    result["asExpected"] = (outcome == "rolled back") == (scenario.must == "roll back")
    return result


def percentiles(values, digits=2):
    """The median, 95th percentile and largest of `values` (seconds, to `digits` decimals), and how
    many."""
    if not values:
        return {"count": 0}
    ordered = sorted(values)
    at = lambda share: ordered[min(len(ordered) - 1, int(share * len(ordered)))]
    return {"count": len(ordered), "p50": round(at(0.5), digits), "p95": round(at(0.95), digits),
            "max": round(ordered[-1], digits)}


def start_server(binary, extra=()):
    """`flag-server serve` on a free port with a fresh data directory and no client rate limit:
    (process, data directory, base URL, admin token)."""
    data = tempfile.mkdtemp(prefix="flag-server-fleet-")
    process = subprocess.Popen(
        [binary, "serve", "--port", "0", "--data-directory", data, "--rate-limit-per-second", "0",
         "--log-level", "info", *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    secrets, port, text = [], None, ""
    while port is None:
        line = process.stdout.readline()
        if not line:
            shutil.rmtree(data, ignore_errors=True)
            raise SystemExit("flag-server exited before listening:\n" + text)
        text += line
        if line.startswith("    ") and line.strip():
            secrets.append(line.strip())
        match = re.search(r"listening on http://[^:]+:(\d+)", line)
        if match:
            port = int(match.group(1))
    threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
    return process, data, "http://127.0.0.1:%d" % port, secrets[0]


def client_token(admin, name):
    return admin.call("POST", "/admin/v1/tokens", {"name": name, "environment": "production", "role": "client"},
                      expect=(201,))["token"]


def parser():
    command = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    where = command.add_mutually_exclusive_group(required=True)
    where.add_argument("--binary", help="start this flag-server binary (fresh data directory, no rate limit)")
    where.add_argument("--server", help="a running server's base URL (with --admin-token)")
    command.add_argument("--admin-token", help="an admin token of the running server")
    command.add_argument("--scenario", action="append", choices=sorted(SCENARIOS), help="repeatable; default all three")
    command.add_argument("--seeds", default="1", help="seeds, 1-5 or 1,3,7; default 1")
    command.add_argument("--phones", type=int, default=2000, help="phones per run; default 2000")
    command.add_argument("--parallel", type=int, default=1, help="runs at once on the server; default 1")
    command.add_argument("--steps", default="5:30,20:30,50:30,100",
                         help="percent:seconds per step, the last 100; default 5:30,20:30,50:30,100")
    command.add_argument("--evaluation-interval", type=int, default=5, help="seconds; default 5 (the 10-s tick rules)")
    command.add_argument("--minimum-units", type=int, default=50, help="units per variant before any action; default 50")
    command.add_argument("--alpha", type=float, default=0.05)
    command.add_argument("--session-seconds", type=float, default=0.5, help="mean session length; default 0.5")
    command.add_argument("--gap-seconds", type=float, default=0.5, help="mean time between sessions; default 0.5")
    command.add_argument("--refresh-seconds", type=float, default=5, help="OFREP refresh period; default 5")
    command.add_argument("--flush-seconds", type=float, default=3, help="event delivery period; default 3")
    command.add_argument("--warmup-seconds", type=float, default=3, help="the fleet on the old variant before the plan")
    command.add_argument("--max-seconds", type=float, default=300, help="longest a plan is followed; default 300")
    command.add_argument("--workers", type=int, default=4, help="threads driving a run's phones; default 4")
    command.add_argument("--prefix", default="phone-", help="prefix of the targeting keys")
    command.add_argument("--tick-seconds", type=float,
                         help="with --binary: serve --rollout-tick-seconds (how often plans are looked at); "
                              "default the server's, 10")
    command.add_argument("--flood-processes", type=int, default=0,
                         help="processes flooding ingestion with exposure and summary batches from the plan's "
                              "start, ignoring Retry-After; default 0 (none)")
    command.add_argument("--flood-connections", type=int, default=8, help="connections per flood process; default 8")
    command.add_argument("--flood-events", type=int, default=2000,
                         help="events per flood batch (the server's largest batch by default: 2000)")
    command.add_argument("--flood-token", choices=("same", "own", "each"), default="same",
                         help="the flood sends with the fleet's client token (same, the default: it ships in every "
                              "copy of the app), a client token of its own (own), or one per process (each)")
    return command


def run_many(base, admin_token, token, jobs, arguments, parallel=1, label="", printing=False):
    """Runs (scenario, seed) jobs, or (scenario, seed, arguments) to give a job settings of its own,
    `parallel` at once on the server; returns their reports in order."""
    results = [None] * len(jobs)
    pending = list(range(len(jobs)))
    lock = threading.Lock()
    failures = []

    def runner():
        while True:
            with lock:
                if not pending or failures:
                    return
                number = pending.pop(0)
            scenario, seed, *own = jobs[number]
            admin = Admin(base, admin_token)
            try:
                results[number] = run(admin, base, token, scenario, seed, own[0] if own else arguments, label)
            except BaseException as error:  # raised below, once every runner stopped
                with lock:
                    failures.append(error)
                return
            finally:
                admin.close()
            if printing:
                with lock:
                    print(json.dumps(results[number], sort_keys=True), flush=True)

    threads = [threading.Thread(target=runner) for _ in range(max(1, min(parallel, len(jobs))))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    return results


def summarize(results):
    """Per scenario: runs, runs as expected, outcomes, and the steps and seconds of the rollbacks."""
    summary = {}
    for result in results:
        entry = summary.setdefault(result["scenario"], {"runs": 0, "asExpected": 0, "outcomes": {}, "rollbackSteps": [],
                                                        "secondsIntoStep": [], "crashShareWithVariant": []})
        entry["runs"] += 1
        entry["asExpected"] += 1 if result["asExpected"] else 0
        entry["outcomes"][result["outcome"]] = entry["outcomes"].get(result["outcome"], 0) + 1
        if result["outcome"] == "rolled back":
            entry["rollbackSteps"].append(result["step"])
            entry["secondsIntoStep"].append(result["secondsIntoStep"])
        entry["crashShareWithVariant"].append(result["crashShareWithVariant"])
    return summary


def main(argv=None):
    arguments = parser().parse_args(argv)
    if arguments.server and not arguments.admin_token:
        raise SystemExit("--server needs --admin-token")
    if arguments.phones < 1 or arguments.workers < 1 or arguments.parallel < 1:
        raise SystemExit("--phones, --workers and --parallel must be at least 1")
    if arguments.flood_processes < 0 or arguments.flood_connections < 1 or arguments.flood_events < 10:
        raise SystemExit("--flood-processes must be at least 0, --flood-connections at least 1 and --flood-events "
                         "at least 10")
    if arguments.tick_seconds is not None and arguments.server:
        raise SystemExit("--tick-seconds is the tick of a server the script starts (--binary); start yours with "
                         "--rollout-tick-seconds")
    scenarios = [SCENARIOS[name] for name in (arguments.scenario or ("double", "one-version", "aa"))]
    jobs = [(scenario, seed) for scenario in scenarios for seed in parse_seeds(arguments.seeds)]
    process = data = None
    if arguments.binary:
        extra = () if arguments.tick_seconds is None else ("--rollout-tick-seconds", "%g" % arguments.tick_seconds)
        process, data, base, admin_token = start_server(arguments.binary, extra)
    else:
        base, admin_token = arguments.server.rstrip("/"), arguments.admin_token
    try:
        admin = Admin(base, admin_token)
        token = client_token(admin, "simulated-fleet-%d" % os.getpid())
        admin.close()
        # Against a running server, flags of a new name for each invocation.
        label = "" if arguments.binary else "-%d" % int(time.time())
        results = run_many(base, admin_token, token, jobs, arguments, arguments.parallel, label, printing=True)
        print(json.dumps({"summary": summarize(results)}, sort_keys=True))
        return 0 if all(result["asExpected"] for result in results) else 1
    finally:
        if process is not None:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

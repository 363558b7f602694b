#!/usr/bin/env python3
"""A seeded population of simulated apps taking part in an experiment on a flag, through the
server's real endpoints (Python 3 standard library only).

Each of UNITS simulated apps (targeting keys `<prefix>000000`, `<prefix>000001`, ...):

1. asks the server which variant it gets: `POST /ofrep/v1/evaluate/flags/{flag}` (`--evaluation
   single`) or `POST /ofrep/v1/evaluate/flags` (`--evaluation bulk`) with the client token and the
   context `{"targetingKey": key}`, as an app's OFREP provider does;
2. is first exposed at a time spread uniformly over the last DAYS days before `--end` (now by
   default), or from `--start` to `--end` (an experiment started minutes ago), and sends that
   exposure;
3. converts with the rate given for its variant (`--rate on=0.12`): a tracked event CONVERSION at a
   uniform time within WINDOW hours after its exposure (never after `--end`) carrying a value drawn
   from an exponential distribution with the variant's mean (`--value-mean on=30`), and the
   variants it was exposed to.

Events travel in batches of at most `--batch-size` through `POST /ofrep/v1/ingestion` in the
library's wire format (version 1, an `Idempotency-Key` equal to the batch id). Batch ids derive
from the seed, so that the same run sent twice is counted once; a 429 or 503 is retried after its
`Retry-After`.

Segments (`--app-version-share 4.2=0.6 --app-version-share 5.0=0.4`): each unit is drawn an app
version by those shares (from a generator of its own, so the other draws do not change) and its
events travel in batches of that version; with `--upgrade-share P`, a share P of the units whose
version is not the last listed sends a second exposure (same variant) from the last listed version
later on: an upgrade, which must not move the unit out of its first segment. The output then adds
`segments`: per app version of the first exposure and variant, the same figures as `variants`.

The same seed, flag assignment and arguments give the same units, times, conversions and values.
The script prints, as JSON, what it sent per variant: units, exposures, converted units and, for
the value per unit (0 for a unit that did not convert), the sum and the sum of squares — the
sufficient statistics an experiment over these events should count.

Example:

    python3 Server/scripts/bench/simulate_experiment.py --server http://127.0.0.1:8080 \\
        --token "$CLIENT_TOKEN" --flag checkout --units 2000 --rate off=0.10 --rate on=0.13 \\
        --value-mean off=30 --value-mean on=30 --days 7 --seed 42
"""
import argparse
import hashlib
import json
import math
import random
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

DAY = 86_400_000
HOUR = 3_600_000


def parse_rates(pairs, name):
    """['on=0.1', 'off=0.08'] as {'on': 0.1, 'off': 0.08}."""
    rates = {}
    for pair in pairs or []:
        variant, separator, value = pair.partition("=")
        if not separator or not variant:
            raise SystemExit("%s: expected VARIANT=NUMBER, got %r" % (name, pair))
        try:
            rates[variant] = float(value)
        except ValueError:
            raise SystemExit("%s: %r is not a number (in %r)" % (name, value, pair))
        if not math.isfinite(rates[variant]) or rates[variant] < 0:
            raise SystemExit("%s: %r must be a finite number at least 0" % (name, pair))
    return rates


class Client:
    """The server's OFREP and ingestion endpoints with one client token."""

    def __init__(self, server, token, timeout=30):
        self.server = server.rstrip("/")
        self.token = token
        self.timeout = timeout

    def post(self, path, body, headers=None):
        data = json.dumps(body, separators=(",", ":"), sort_keys=True).encode()
        for _ in range(20):
            request = urllib.request.Request(
                self.server + path, method="POST", data=data,
                headers={"Authorization": "Bearer " + self.token, "Content-Type": "application/json", **(headers or {})})
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return response.status, json.loads(response.read() or b"null"), response.headers
            except urllib.error.HTTPError as error:
                if error.code in (429, 503):
                    # On purpose: the server asked to be called again after Retry-After seconds.
                    time.sleep(min(10.0, float(error.headers.get("Retry-After") or 1)))
                    continue
                raise SystemExit("%s answered %d: %s" % (path, error.code, error.read().decode(errors="replace")))
        raise SystemExit("%s kept answering 429 or 503" % path)

    def variant(self, flag, key, bulk):
        """(variant, reason, revision) the server serves KEY for FLAG."""
        context = {"context": {"targetingKey": key}}
        if bulk:
            _, answer, headers = self.post("/ofrep/v1/evaluate/flags", context)
            found = [entry for entry in answer.get("flags", []) if entry.get("key") == flag]
            if not found:
                raise SystemExit("the bulk evaluation has no flag %r" % flag)
            entry = found[0]
        else:
            _, entry, headers = self.post("/ofrep/v1/evaluate/flags/" + urllib.parse.quote(flag, safe=""), context)
        if "errorCode" in entry:
            raise SystemExit("evaluating %r for %r failed: %s" % (flag, key, entry))
        return entry.get("variant", ""), entry.get("reason", "UNKNOWN"), headers.get("ETag")


def simulate(arguments):
    """Runs the population; returns what it sent per variant."""
    rates = parse_rates(arguments.rate, "--rate")
    means = parse_rates(arguments.value_mean, "--value-mean")
    if any(rate > 1 for rate in rates.values()):
        raise SystemExit("--rate: a conversion rate is at most 1")
    if arguments.units < 1 or arguments.days < 1 or arguments.batch_size < 1:
        raise SystemExit("--units, --days and --batch-size must be at least 1")
    end = arguments.end if arguments.end is not None else int(time.time() * 1000)
    start = arguments.start if arguments.start is not None else end - arguments.days * DAY
    if start >= end:
        raise SystemExit("--start must be before --end (or now)")
    window = int(arguments.window_hours * HOUR)
    generator = random.Random(arguments.seed)
    shares = parse_rates(arguments.app_version_share, "--app-version-share")
    if shares and (sum(shares.values()) <= 0 or not 0 <= arguments.upgrade_share <= 1):
        raise SystemExit("--app-version-share: the shares must add up to more than 0; --upgrade-share is from 0 to 1")
    versions = sorted(shares, key=list(shares).index)
    segment_generator = random.Random(arguments.seed * 1_000_003 + 17)
    segments = {}
    client = Client(arguments.server, arguments.token)
    sent = {}
    exposures, events = [], []
    for index in range(arguments.units):
        key = "%s%06d" % (arguments.prefix, index)
        variant, reason, revision = client.variant(arguments.flag, key, arguments.evaluation == "bulk")
        # Every draw happens whatever the outcome, so that a unit's times and values do not
        # depend on the other units' variants.
        exposed = start + int(generator.random() * (end - start))
        converts = generator.random()
        delay = generator.random()
        amount = generator.expovariate(1.0)
        totals = sent.setdefault(variant, {"units": 0, "exposures": 0, "converted": 0, "valueSum": 0.0, "valueSumOfSquares": 0.0})
        totals["units"] += 1
        totals["exposures"] += 1
        exposure = {"flag": arguments.flag, "variant": variant, "reason": reason, "unit": key, "time": exposed}
        if revision:
            exposure["revision"] = revision
        exposures.append(exposure)
        segment = None
        if versions:
            version = segment_generator.choices(versions, weights=[shares[v] for v in versions])[0]
            upgrade, upgraded_at = segment_generator.random(), segment_generator.random()
            exposure["_appVersion"] = version
            segment = segments.setdefault(version, {}).setdefault(
                variant, {"units": 0, "exposures": 0, "converted": 0, "valueSum": 0.0, "valueSumOfSquares": 0.0})
            segment["units"] += 1
            segment["exposures"] += 1
            if version != versions[-1] and upgrade < arguments.upgrade_share:
                # Strictly after the first exposure (a tie would go to whichever batch arrived first).
                later = dict(exposure, time=exposed + 1 + int(upgraded_at * max(0, end - exposed - 1)), _appVersion=versions[-1])
                exposures.append(later)
                totals["exposures"] += 1
        if converts < rates.get(variant, 0):
            value = round(amount * means.get(variant, 1.0), 2)
            for figures in [totals] + ([segment] if segment else []):
                figures["converted"] += 1
                figures["valueSum"] += value
                figures["valueSumOfSquares"] += value * value
            events.append({
                "name": arguments.conversion, "value": value, "unit": key, "variants": {arguments.flag: variant},
                "time": min(end, exposed + 1 + int(delay * window)),
            })
            if segment:
                events[-1]["_appVersion"] = exposure["_appVersion"]
    delivery = send(client, arguments, exposures, events)
    for totals in list(sent.values()) + [figures for variants in segments.values() for figures in variants.values()]:
        totals["valueSum"] = round(totals["valueSum"], 6)
        totals["valueSumOfSquares"] = round(totals["valueSumOfSquares"], 6)
    report = {"flag": arguments.flag, "seed": arguments.seed, "start": start, "end": end, "variants": sent,
              "conversion": arguments.conversion, "events": len(events), **delivery}
    if segments:
        report["segments"] = segments
    return report


def send(client, arguments, exposures, events):
    """Exposures and events in batches through the ingestion endpoint; ids derived from the seed.
    Returns the batches sent, the events the server accepted and the batches it had already stored."""
    delivery = {"batches": 0, "accepted": 0, "duplicateBatches": 0}
    items = [("exposures", exposure) for exposure in exposures] + [("events", event) for event in events]
    # A batch comes from one app version: the items of each version travel apart (in the order
    # the versions first appear; every item of one version when no shares are given).
    groups = {}
    for kind, item in items:
        groups.setdefault(item.get("_appVersion"), []).append((kind, item))
    chunks = [(version, group[offset:offset + arguments.batch_size])
              for version, group in groups.items() for offset in range(0, len(group), arguments.batch_size)]
    for number, (version, chunk) in enumerate(chunks):
        batch = {"version": 1, "source": {"appVersion": version or arguments.app_version, "buildConfiguration": "release",
                                          "platform": arguments.platform},
                 "exposures": [], "summaries": [], "events": []}
        for kind, item in chunk:
            batch[kind].append({name: value for name, value in item.items() if name != "_appVersion"})
        label = "%s|%s|%s|%d" % (arguments.seed, arguments.flag, arguments.prefix, number)
        if version is not None:
            label += "|" + version
        digest = hashlib.sha256(label.encode()).hexdigest()
        batch["batchId"] = "sim-" + digest[:32]
        status, answer, _ = client.post("/ofrep/v1/ingestion", batch, {"Idempotency-Key": batch["batchId"]})
        if status != 202:
            raise SystemExit("ingestion answered %d: %s" % (status, answer))
        delivery["batches"] += 1
        if answer.get("duplicate"):
            delivery["duplicateBatches"] += 1
        else:
            delivery["accepted"] += answer.get("accepted", 0)
    return delivery


def parser():
    command = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    command.add_argument("--server", required=True, help="the flag server's base URL")
    command.add_argument("--token", required=True, help="a client token of the environment")
    command.add_argument("--flag", required=True, help="the experiment's flag key")
    command.add_argument("--units", type=int, default=1000, help="simulated apps (targeting keys); default 1000")
    command.add_argument("--rate", action="append", metavar="VARIANT=RATE", help="conversion rate of a variant (0 when not given)")
    command.add_argument("--value-mean", action="append", metavar="VARIANT=MEAN",
                         help="mean value of a conversion of a variant (exponential; 1 when not given)")
    command.add_argument("--days", type=int, default=7, help="days the exposures spread over, ending at --end; default 7")
    command.add_argument("--seed", type=int, default=1, help="the random seed; default 1")
    command.add_argument("--start", type=int,
                         help="the first exposure's earliest time, milliseconds since 1970; default --days before --end")
    command.add_argument("--end", type=int, help="the simulation's end, milliseconds since 1970; default now")
    command.add_argument("--window-hours", type=float, default=24, help="hours after exposure a conversion may come; default 24")
    command.add_argument("--conversion", default="purchase", help="the tracked event's name; default purchase")
    command.add_argument("--evaluation", choices=("single", "bulk"), default="single", help="OFREP evaluation; default single")
    command.add_argument("--prefix", default="sim-", help="prefix of the targeting keys; default sim-")
    command.add_argument("--batch-size", type=int, default=500, help="events per ingestion batch; default 500")
    command.add_argument("--app-version", default="1.0", help="the batches' app version without --app-version-share; default 1.0")
    command.add_argument("--app-version-share", action="append", metavar="VERSION=SHARE",
                         help="an app version and the share of units that run it (segments); repeatable")
    command.add_argument("--upgrade-share", type=float, default=0.0,
                         help="share of units not on the last listed version that later upgrade to it; default 0")
    command.add_argument("--platform", default="iOS")
    return command


def main(argv=None):
    report = simulate(parser().parse_args(argv))
    json.dump(report, sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

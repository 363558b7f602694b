#!/usr/bin/env python3
"""Seeded simulations of the bandit allocator (`flags stats bandit`): the regret of Thompson sampling
re-weighted at a set interval with a minimum share per arm, against a fixed equal allocation, and
how its stopping rule decides, in a few scenarios.

    python3 scripts/statistics/simulate_bandit.py [--flags PATH] [--quick] [--runs N] [--seed S] [--strict] [--write-docs]

Each run serves `units` units per interval for `intervals` intervals. At the start of every
interval the arms' counts so far go to the real allocator (one `flags stats bandit --lines`
process per interval, all runs of a scenario in lockstep, one JSON bandit per line); that
interval's units are split among the arms by a multinomial draw with the allocator's shares
(its weights / 10,000: how a `fractional` rule with those weights splits hashed units), and each
unit converts with its arm's true rate. The fixed allocation splits every interval's units
equally. The weights are not re-implemented here: the simulation reads the Swift allocator's.

Figures per scenario: the regret (units × (best rate − served arm's rate), in conversions lost
against always serving the best arm), summed over the run, mean with a 95 % interval, for both
allocations; the share of units the best arm got; and the stopping rule checked after every
interval: the share of runs it stopped by the end, with a winner, with the best arm, with a
wrong winner, with negligible loss, and the mean interval it stopped at. In the A/A scenario no
arm is better, so every "winner" is a wrong one.

--strict (CI) exits 1 when Thompson sampling's regret is not below the fixed allocation's (the
99.9 % interval of the difference, in every scenario with a best arm), when any weights do not
add up to 10,000 or give an arm less than its minimum share, or when an arm's mean share of
units falls below its minimum share by more than sampling error. --write-docs writes the table
between the markers of Sources/FlagStatistics/Documentation.docc/Bandits.md. --quick (CI) runs
fewer runs; the docs' figures come from the default.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

WEIGHT_TOTAL = 10_000
DEFECT_Z = 3.2905267314919255  # 99.9 %
DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "Sources", "FlagStatistics", "Documentation.docc", "Bandits.md")
BEGIN, END = "<!-- simulate_bandit.py: begin -->", "<!-- simulate_bandit.py: end -->"

# The rule every scenario is read with: stop with a winner at a 95 % chance of being best, or
# with negligible loss below 0.05 percentage points, once every arm has 1,000 units.
RULE = {"expectedLossThreshold": 0.0005, "probabilityToBeBest": 0.95, "minimumUnitsPerArm": 1000}

SCENARIOS = [
    # name, true rates, stopping rule (overrides of RULE)
    ("2 arms, +1 pp (5 % → 6 %)", [0.05, 0.06], {}),
    ("4 arms, one winner (5, 5, 5, 6 %)", [0.05, 0.05, 0.05, 0.06], {}),
    ("4 arms, graded (5, 5.3, 5.6, 6 %)", [0.05, 0.053, 0.056, 0.06], {}),
    ("A/A, 2 arms at 5 %", [0.05, 0.05], {}),
    ("A/A, 2 arms at 5 %, winner at 99 %", [0.05, 0.05], {"probabilityToBeBest": 0.99}),
    ("A/A, 4 arms at 5 %", [0.05, 0.05, 0.05, 0.05], {}),
]


def allocate(flags, bandits):
    payload = "".join(json.dumps(b) + "\n" for b in bandits).encode()
    run = subprocess.run([flags, "stats", "bandit", "--lines"], input=payload, capture_output=True)
    outputs = [json.loads(line) for line in run.stdout.decode().splitlines()]
    errors = [o["error"] for o in outputs if "error" in o]
    if run.returncode != 0 or len(outputs) != len(bandits) or errors:
        sys.exit(f"flags stats bandit failed: {errors[:3]} {run.stderr.decode()[:500]}")
    return outputs


def mean_interval(values, z=1.959963984540054):
    values = np.asarray(values, dtype=float)
    mean = float(values.mean())
    half = z * float(values.std(ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, half


def simulate(flags, rng, name, rates, rule, runs, intervals, units, minimum_share):
    k = len(rates)
    rates = np.asarray(rates)
    best = rates.max()
    gaps = best - rates
    names = [f"arm{i}" for i in range(k)]
    counts = np.zeros((runs, k))
    conversions = np.zeros((runs, k))
    regret = np.zeros(runs)
    fixed_counts = np.zeros((runs, k))
    fixed_regret = np.zeros(runs)
    stopped = [None] * runs  # (outcome, arm, interval)
    problems = []
    stopping = {**RULE, **rule}
    for interval in range(intervals):
        bandits = [
            {"arms": [{"name": names[i], "units": float(counts[r, i]), "conversions": float(conversions[r, i])} for i in range(k)],
             "minimumShare": minimum_share, "stopping": stopping}
            for r in range(runs)
        ]
        outputs = allocate(flags, bandits)
        for r, output in enumerate(outputs):
            weights = [arm["weight"] for arm in output["arms"]]
            if sum(weights) != WEIGHT_TOTAL or min(weights) < round(minimum_share * WEIGHT_TOTAL):
                problems.append(f"{name}: run {r} interval {interval}: weights {weights}")
            # The rule read on the counts so far (the first interval has none).
            decision = output["decision"]
            if stopped[r] is None and decision["outcome"] != "keepCollecting":
                stopped[r] = (decision["outcome"], decision["arm"], interval)
            served = rng.multinomial(units, np.asarray(weights) / WEIGHT_TOTAL)
            counts[r] += served
            conversions[r] += rng.binomial(served, rates)
            regret[r] += float(served @ gaps)
            even = rng.multinomial(units, np.full(k, 1 / k))
            fixed_counts[r] += even
            fixed_regret[r] += float(even @ gaps)
    # The rule once more on the final counts.
    outputs = allocate(flags, [
        {"arms": [{"name": names[i], "units": float(counts[r, i]), "conversions": float(conversions[r, i])} for i in range(k)],
         "minimumShare": minimum_share, "stopping": stopping}
        for r in range(runs)
    ])
    for r, output in enumerate(outputs):
        decision = output["decision"]
        if stopped[r] is None and decision["outcome"] != "keepCollecting":
            stopped[r] = (decision["outcome"], decision["arm"], intervals)
    best_arms = {names[i] for i in range(k) if rates[i] == best}
    aa = len(best_arms) == k
    winners = [s for s in stopped if s and s[0] == "winner"]
    shares = counts / counts.sum(axis=1, keepdims=True)
    return {
        "name": name, "rates": rates.tolist(), "runs": runs, "intervals": intervals, "units": units,
        "minimum_share": minimum_share, "rule": stopping, "aa": aa,
        "regret": mean_interval(regret), "fixed_regret": mean_interval(fixed_regret),
        "difference": mean_interval(regret - fixed_regret, DEFECT_Z),
        "best_share": mean_interval(shares[:, [i for i in range(k) if rates[i] == best]].sum(axis=1)),
        "lowest_share": float(shares.min()),
        "mean_share_per_arm": shares.mean(axis=0).tolist(),
        "share_error": (shares.std(axis=0, ddof=1) / math.sqrt(runs)).tolist(),
        "stopped": sum(1 for s in stopped if s) / runs,
        "winner": len(winners) / runs,
        "wrong_choice": 0.0 if aa else sum(1 for s in stopped if s and s[1] not in best_arms) / runs,
        "negligible": sum(1 for s in stopped if s and s[0] == "negligibleLoss") / runs,
        "stop_interval": float(np.mean([s[2] for s in stopped if s])) if any(stopped) else float("nan"),
        "problems": problems,
    }


def wilson(p, n, z=1.959963984540054):
    hits = p * n
    centre = (hits + z * z / 2) / (n + z * z)
    half = z * math.sqrt(hits * (n - hits) / n + z * z / 4) / (n + z * z)
    return max(0.0, centre - half), min(1.0, centre + half)


def percent(p, n):
    low, high = wilson(p, n)
    return f"{100 * p:.1f} % ({100 * low:.1f}–{100 * high:.1f})"


def table(results, args, seconds):
    rows = [
        "| Scenario | Runs | Regret, Thompson (95 % CI) | Regret, fixed equal (95 % CI) | Best arm's share of units | "
        "Stopped by the end (95 % CI) | Stopped on a worse arm | Winner declared | Negligible loss | Mean interval at stop |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        regret, half = r["regret"]
        fixed, fixed_half = r["fixed_regret"]
        share, _ = r["best_share"]
        n = r["runs"]
        rows.append(
            f"| {r['name']} | {n} | {regret:.1f} ± {half:.1f} | {fixed:.1f} ± {fixed_half:.1f} | "
            f"{100 * share:.1f} % | {percent(r['stopped'], n)} | "
            f"{'—' if r['aa'] else percent(r['wrong_choice'], n)} | {percent(r['winner'], n)} | "
            f"{percent(r['negligible'], n)} | {r['stop_interval']:.1f} |"
        )
    first = results[0]
    command = "python3 scripts/statistics/simulate_bandit.py" + (" --quick" if args.quick else "")
    rows += [
        "",
        f"{first['intervals']} intervals of {first['units']:,} units each per run; minimum share "
        f"{100 * first['minimum_share']:g} % per arm; regret in conversions lost against always serving the best arm. "
        f"Stopping rule: {json.dumps(RULE)} (the 99 % row: probabilityToBeBest 0.99), checked before every interval and on the "
        f"final counts. Seed {args.seed}; regenerate with `{command} --write-docs` ({seconds:.0f} s on the machine that wrote it).",
    ]
    return "\n".join(rows)


def strict_problems(results):
    problems = []
    for r in results:
        problems += r["problems"][:5]
        if not r["aa"]:
            difference, half = r["difference"]
            if not difference + half < 0:
                problems.append(f"{r['name']}: Thompson sampling's regret is not below the fixed allocation's "
                                f"(difference {difference:.1f} ± {half:.1f} at 99.9 %)")
        for i, (share, error) in enumerate(zip(r["mean_share_per_arm"], r["share_error"])):
            if share < r["minimum_share"] - DEFECT_Z * error - 1e-9:
                problems.append(f"{r['name']}: arm{i}'s mean share {share:.4f} is below the minimum {r['minimum_share']}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flags", default=".build/debug/flags")
    parser.add_argument("--quick", action="store_true", help="fewer runs (CI: well under 30 s)")
    parser.add_argument("--runs", type=int, help="runs per scenario (default 1000; --quick 60)")
    parser.add_argument("--intervals", type=int, default=28, help="re-weighting intervals per run (default 28)")
    parser.add_argument("--units", type=int, default=1000, help="units per interval (default 1000)")
    parser.add_argument("--minimum-share", type=float, default=0.05, help="each arm's minimum share (default 0.05)")
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--strict", action="store_true", help="exit 1 on a defect (see the module's text)")
    parser.add_argument("--write-docs", action="store_true", help="write the table into Bandits.md")
    args = parser.parse_args()
    runs = args.runs or (60 if args.quick else 1000)
    rng = np.random.default_rng(args.seed)
    start = time.monotonic()
    scenarios = SCENARIOS[:1] + SCENARIOS[3:4] if args.quick else SCENARIOS
    results = [simulate(args.flags, rng, name, rates, rule, runs, args.intervals, args.units, args.minimum_share)
               for name, rates, rule in scenarios]
    text = table(results, args, time.monotonic() - start)
    print(text)
    if args.write_docs:
        with open(DOCS) as file:
            page = file.read()
        before, rest = page.split(BEGIN, 1)
        _, after = rest.split(END, 1)
        with open(DOCS, "w") as file:
            file.write(before + BEGIN + "\n" + text + "\n" + END + after)
        print(f"wrote {os.path.normpath(DOCS)}")
    problems = strict_problems(results)
    for problem in problems:
        print("DEFECT", problem)
    if args.strict and problems:
        sys.exit(1)


if __name__ == "__main__":
    main()

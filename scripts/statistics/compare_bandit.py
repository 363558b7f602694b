#!/usr/bin/env python3
"""Compares `flags stats bandit` (the bandit allocator: Thompson sampling's allocation computed by
quadrature) with independent implementations on seeded random cases.

    python3 scripts/statistics/compare_bandit.py [--flags PATH] [--cases N] [--seed S]
    python3 scripts/statistics/compare_bandit.py --write-fixtures

For each case (2 to 20 arms, 0 to 10⁹ units per arm, rates from 0.1 % to 60 %, equal arms,
Beta(1, 1), Jeffreys' Beta(½, ½) and other priors, minimum shares from 0 to 1/arms) it runs the
engine on all cases in one `flags stats bandit --lines` process and checks:
  - each arm's chance of being best against scipy.integrate.quad of beta.pdf · Π beta.cdf (scipy's
    beta, i.e. Boost's), integrated piecewise between each posterior's mean ± 1 … 64 standard
    deviations, to 1e-9 absolute;
  - each arm's expected loss against a different identity, E[(max of the others − θᵢ)⁺] =
    ∫ Fᵢ(x)(1 − Πⱼ≠ᵢ Fⱼ(x)) dx, by quad, to 1e-10 absolute (the engine takes E[max] − E[θᵢ]);
  - both against a seeded Monte Carlo of 100,000 posterior draws per case (within 5 standard
    errors plus 1e-6): the same quantities by another route altogether;
  - the weights: whole numbers adding up to exactly 10,000, each at least the minimum share, and
    equal to the largest-remainder split of the rest by scipy's chances (a basis point may move
    between two arms only where their remainders tie within 1e-6);
  - the stopping rule's outcome and arm, recomputed here from scipy's figures (cases near a
    threshold are skipped);
  - inputs the allocator must refuse (conversions above units, negative counts, a minimum share
    the arms cannot all have, one arm, 21 arms, more than 10⁹ units, a prior outside ½ to 10⁶,
    duplicate names, a share in fractions of a basis point, a maximum duration without the time
    elapsed) refused with exit status 2 and a message naming the field.
Prints "N passed, N failed" and exits non-zero on any failure.

--write-fixtures writes Tests/FlagStatisticsTests/BanditScipyFixtures.swift: a dozen chosen
cases with scipy's figures, which BanditAllocatorTests compares with the allocator without Python.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import warnings

import numpy as np
from scipy import integrate, special
from scipy.special._ufuncs import _beta_pdf  # scipy.stats.beta.pdf's ufunc (Boost), without its per-call checks

WEIGHT_TOTAL = 10_000
STEPS = (1, 2, 4, 8, 16, 32, 64)
FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "FlagStatisticsTests", "BanditScipyFixtures.swift")


def posteriors(case):
    prior = case.get("prior", {"alpha": 1.0, "beta": 1.0})
    return [(prior["alpha"] + arm["conversions"], prior["beta"] + arm["units"] - arm["conversions"]) for arm in case["arms"]]


def moments(a, b):
    total = a + b
    return a / total, math.sqrt(a * b / (total * total * (total + 1)))


def pieces(params, low=0.0, high=1.0):
    """The segments quad integrates over: between each posterior's mean ± 1 … 64 sd, within [low, high]."""
    points = {low, high}
    for a, b in params:
        mean, sd = moments(a, b)
        points.add(mean)
        for s in STEPS:
            points.update((mean - s * sd, mean + s * sd))
    points = sorted(p for p in points if low <= p <= high)
    return list(zip(points, points[1:]))


def quad(f, segments):
    # quad warns of roundoff where a piece's integral is far below 1e-12 of its magnitude's
    # scale (a loss of 1e-9): the absolute error, which the checks use, is still below 1e-15.
    warnings.simplefilter("ignore", integrate.IntegrationWarning)
    return math.fsum(integrate.quad(f, lo, hi, epsabs=1e-15, epsrel=1e-12, limit=200)[0] for lo, hi in segments if hi > lo)


def scipy_figures(case):
    """P(best) and expected loss per arm by quad over Boost's beta density and incomplete beta
    (scipy.special.betainc, the function scipy.stats.beta.cdf calls; the density is
    scipy.stats.beta.pdf's own ufunc), vectorized over the arms at each point."""
    params = posteriors(case)
    a = np.array([p[0] for p in params])
    b = np.array([p[1] for p in params])
    upper = max(min(1.0, m + 64 * s) for m, s in (moments(*p) for p in params))
    best, loss = [], []
    for i in range(len(params)):
        mask = np.arange(len(params)) != i
        others_a, others_b = a[mask], b[mask]
        def density_times_others(x):
            return float(_beta_pdf(x, a[i], b[i]) * np.prod(special.betainc(others_a, others_b, x)))
        def below_times_others_above(x):
            return float(special.betainc(a[i], b[i], x) * (1 - np.prod(special.betainc(others_a, others_b, x))))
        mean, sd = moments(a[i], b[i])
        best.append(quad(density_times_others, pieces([params[i]], 0.0, 1.0)))
        low = max(0.0, mean - 64 * sd)
        loss.append(quad(below_times_others_above, pieces(params, low, upper)) if upper > low else 0.0)
    total = sum(best)
    return [p / total for p in best], loss


def monte_carlo(case, rng, draws=100_000):
    params = posteriors(case)
    samples = np.stack([rng.beta(a, b, draws) for a, b in params])
    winners = np.argmax(samples, axis=0)
    maximum = samples.max(axis=0)
    best = [(float(np.mean(winners == i)), math.sqrt(max(np.mean(winners == i) * (1 - np.mean(winners == i)), 1 / draws) / draws)) for i in range(len(params))]
    loss = [(float(np.mean(maximum - samples[i])), float(np.std(maximum - samples[i])) / math.sqrt(draws)) for i in range(len(params))]
    return best, loss


def expected_weights(probabilities, minimum_weight):
    rest = WEIGHT_TOTAL - minimum_weight * len(probabilities)
    quotas = [rest * p / sum(probabilities) for p in probabilities]
    weights = [math.floor(q) for q in quotas]
    order = sorted(range(len(quotas)), key=lambda i: (-(quotas[i] - weights[i]), i))
    for i in order[: rest - sum(weights)]:
        weights[i] += 1
    return [w + minimum_weight for w in weights], [q - math.floor(q) for q in quotas]


def random_case(rng, number):
    # Mostly few arms; every 25th case the most (scipy's quad takes seconds for 20 arms).
    k = int(rng.choice([2, 2, 2, 3, 4, 5, 8, 12])) if number % 25 else 20
    scale = 10 ** float(rng.uniform(0, 9))
    base = float(10 ** rng.uniform(-3, math.log10(0.6)))
    equal = rng.random() < 0.2
    arms = []
    for i in range(k):
        units = float(min(1e9, max(0, round(scale * rng.uniform(0.5, 1.5))))) if rng.random() > 0.05 else 0.0
        rate = base if equal else min(0.99, base * float(rng.lognormal(0, 0.3 / math.sqrt(1 + math.log10(1 + scale)))))
        conversions = float(rng.binomial(int(units), rate)) if units < 2**62 else 0.0
        arms.append({"name": f"arm{i}", "units": units, "conversions": conversions})
    case = {"arms": arms}
    prior = rng.random()
    if prior < 0.2:
        case["prior"] = {"alpha": 0.5, "beta": 0.5}
    elif prior < 0.35:
        case["prior"] = {"alpha": float(rng.uniform(0.5, 20)), "beta": float(rng.uniform(0.5, 200))}
    share_bp = int(rng.integers(0, WEIGHT_TOTAL // k + 1)) if rng.random() < 0.5 else [0, 100, 500, WEIGHT_TOTAL // k][int(rng.integers(0, 4))]
    case["minimumShare"] = share_bp / WEIGHT_TOTAL
    if rng.random() < 0.7:
        case["stopping"] = {"expectedLossThreshold": float(10 ** rng.uniform(-6, -2)), "minimumUnitsPerArm": float(rng.choice([0, 100, 1000, 100_000]))}
        if rng.random() < 0.5:
            case["stopping"]["probabilityToBeBest"] = float(rng.choice([0.9, 0.95, 0.99, 1.0]))
        if rng.random() < 0.3:
            case["stopping"]["maximumDurationSeconds"] = 14 * 86_400.0
            case["elapsedSeconds"] = float(rng.choice([86_400.0, 14 * 86_400.0, 20 * 86_400.0]))
    return case


REFUSED = [
    ("conversions above units", {"arms": [{"name": "a", "units": 10, "conversions": 11}, {"name": "b", "units": 10, "conversions": 1}]}, "arms[0].conversions"),
    ("negative units", {"arms": [{"name": "a", "units": -1, "conversions": 0}, {"name": "b", "units": 10, "conversions": 1}]}, "arms[0].units"),
    ("negative conversions", {"arms": [{"name": "a", "units": 5, "conversions": 0}, {"name": "b", "units": 10, "conversions": -2}]}, "arms[1].conversions"),
    ("minimum share × arms above 1", {"arms": [{"name": n, "units": 10, "conversions": 1} for n in "abc"], "minimumShare": 0.34}, "minimumShare"),
    ("share in fractions of a basis point", {"arms": [{"name": n, "units": 10, "conversions": 1} for n in "ab"], "minimumShare": 0.00005}, "minimumShare"),
    ("one arm", {"arms": [{"name": "a", "units": 10, "conversions": 1}]}, "arms"),
    ("21 arms", {"arms": [{"name": f"a{i}", "units": 10, "conversions": 1} for i in range(21)]}, "arms"),
    ("more than 1e9 units", {"arms": [{"name": "a", "units": 2e9, "conversions": 1}, {"name": "b", "units": 10, "conversions": 1}]}, "arms[0].units"),
    ("prior below ½", {"arms": [{"name": n, "units": 10, "conversions": 1} for n in "ab"], "prior": {"alpha": 0.4, "beta": 1}}, "prior.alpha"),
    ("duplicate names", {"arms": [{"name": "a", "units": 10, "conversions": 1}, {"name": "a", "units": 10, "conversions": 1}]}, "arms[1].name"),
    ("maximum duration without elapsed", {"arms": [{"name": n, "units": 10, "conversions": 1} for n in "ab"], "stopping": {"expectedLossThreshold": 0.001, "maximumDurationSeconds": 60}}, "elapsedSeconds"),
    ("threshold above 1", {"arms": [{"name": n, "units": 10, "conversions": 1} for n in "ab"], "stopping": {"expectedLossThreshold": 2}}, "stopping.expectedLossThreshold"),
]


def run_lines(flags, cases):
    payload = "".join(json.dumps(c) + "\n" for c in cases).encode()
    run = subprocess.run([flags, "stats", "bandit", "--lines"], input=payload, capture_output=True)
    return run, [json.loads(line) for line in run.stdout.decode().splitlines()]


def decision(case, best, loss):
    rule = case.get("stopping")
    leader = max(range(len(best)), key=lambda i: (best[i], -i))
    if rule is None:
        return "keepCollecting", None, False
    minimum = rule.get("minimumUnitsPerArm", 100.0)
    probability = rule.get("probabilityToBeBest", 0.95)
    near = abs(best[leader] - probability) < 1e-7 or abs(loss[leader] - rule["expectedLossThreshold"]) < 1e-9 * max(1, rule["expectedLossThreshold"])
    near = near or sorted(best)[-1] - sorted(best)[-2] < 1e-9
    name = case["arms"][leader]["name"]
    if all(a["units"] >= minimum for a in case["arms"]):
        if best[leader] >= probability:
            return "winner", name, near
        if loss[leader] <= rule["expectedLossThreshold"]:
            return "negligibleLoss", name, near
    if "maximumDurationSeconds" in rule and case["elapsedSeconds"] >= rule["maximumDurationSeconds"]:
        return "maximumDuration", name, near
    return "keepCollecting", None, near


def compare(flags, cases, rng):
    passed, failures = 0, []
    run, outputs = run_lines(flags, cases)
    if len(outputs) != len(cases):
        return 0, [f"flags gave {len(outputs)} lines for {len(cases)} cases: {run.stderr.decode()}"]
    for number, (case, output) in enumerate(zip(cases, outputs)):
        where = f"case {number} ({len(case['arms'])} arms, units {[a['units'] for a in case['arms']][:4]}…)"
        if "error" in output:
            failures.append(f"{where}: refused: {output['error']}")
            continue
        best, loss = scipy_figures(case)
        mc_best, mc_loss = monte_carlo(case, rng)
        arms = output["arms"]
        for i, arm in enumerate(arms):
            checks = [
                (f"P(best) of {arm['name']}", arm["probabilityToBeBest"], best[i], 1e-9),
                (f"expected loss of {arm['name']}", arm["expectedLoss"], loss[i], 1e-10),
                (f"P(best) of {arm['name']} (Monte Carlo)", arm["probabilityToBeBest"], mc_best[i][0], 5 * mc_best[i][1] + 1e-6),
                (f"expected loss of {arm['name']} (Monte Carlo)", arm["expectedLoss"], mc_loss[i][0], 5 * mc_loss[i][1] + 1e-6),
            ]
            for what, ours, theirs, tolerance in checks:
                if abs(ours - theirs) <= tolerance:
                    passed += 1
                else:
                    failures.append(f"{where}: {what}: engine {ours!r}, independent {theirs!r} (tolerance {tolerance})")
        weights = [arm["weight"] for arm in arms]
        minimum_weight = round(case.get("minimumShare", 0.01) * WEIGHT_TOTAL)
        expected, remainders = expected_weights(best, minimum_weight)
        tied = any(abs(remainders[i] - remainders[j]) < 1e-6 for i in range(len(arms)) for j in range(i))
        ok = sum(weights) == WEIGHT_TOTAL and min(weights) >= minimum_weight and output["weightTotal"] == WEIGHT_TOTAL
        ok = ok and (weights == expected or (tied and sum(abs(w - e) for w, e in zip(weights, expected)) <= 2))
        if ok:
            passed += 1
        else:
            failures.append(f"{where}: weights {weights}, expected {expected} (minimum {minimum_weight})")
        outcome, arm, near = decision(case, best, loss)
        if near:
            continue
        if (output["decision"]["outcome"], output["decision"].get("arm")) == (outcome, arm):
            passed += 1
        else:
            failures.append(f"{where}: decision {output['decision']}, expected {outcome} {arm}")
    return passed, failures


def check_refusals(flags):
    passed, failures = 0, []
    for what, case, path in REFUSED:
        run = subprocess.run([flags, "stats", "bandit"], input=json.dumps(case).encode(), capture_output=True)
        message = run.stderr.decode()
        if run.returncode == 2 and path in message:
            passed += 1
        else:
            failures.append(f"{what}: exit {run.returncode}, message {message.strip()!r}, expected 2 naming {path}")
    return passed, failures


# The fixtures of BanditAllocatorTests.

FIXTURE_CASES = [
    ("two arms, 5,000 units each", {"arms": [{"name": "off", "units": 5000, "conversions": 410}, {"name": "on", "units": 5021, "conversions": 468}]}),
    ("no data yet", {"arms": [{"name": "a", "units": 0, "conversions": 0}, {"name": "b", "units": 0, "conversions": 0}]}),
    ("Jeffreys prior, no conversions in one arm", {"arms": [{"name": "a", "units": 40, "conversions": 0}, {"name": "b", "units": 35, "conversions": 2}, {"name": "c", "units": 12, "conversions": 0}], "prior": {"alpha": 0.5, "beta": 0.5}}),
    ("informative prior", {"arms": [{"name": "a", "units": 120, "conversions": 9}, {"name": "b", "units": 80, "conversions": 11}], "prior": {"alpha": 3, "beta": 60}}),
    ("four arms, one winner", {"arms": [{"name": f"v{i}", "units": 2000, "conversions": c} for i, c in enumerate([100, 104, 97, 131])]}),
    ("a billion units, 0.01 pp apart", {"arms": [{"name": "a", "units": 1e9, "conversions": 50_000_000}, {"name": "b", "units": 1e9, "conversions": 50_100_000}]}),
    ("a billion and ten units", {"arms": [{"name": "a", "units": 1e9, "conversions": 123_456_789}, {"name": "b", "units": 10, "conversions": 1}]}),
    ("rare conversions at scale", {"arms": [{"name": "a", "units": 3e7, "conversions": 31}, {"name": "b", "units": 2.9e7, "conversions": 45}, {"name": "c", "units": 3.1e7, "conversions": 29}]}),
    ("equal arms", {"arms": [{"name": n, "units": 10_000, "conversions": 700} for n in "abcde"]}),
    ("twenty arms", {"arms": [{"name": f"arm{i:02}", "units": 50_000 + 1000 * i, "conversions": 2500 + 37 * i - (i % 3) * 60} for i in range(20)]}),
    ("high rates", {"arms": [{"name": "a", "units": 500, "conversions": 480}, {"name": "b", "units": 510, "conversions": 499}]}),
    ("one arm far behind", {"arms": [{"name": "a", "units": 100_000, "conversions": 12_000}, {"name": "b", "units": 100_000, "conversions": 9_000}]}),
]


def write_fixtures():
    rng = np.random.default_rng(38)
    lines = [
        "// Generated by scripts/statistics/compare_bandit.py --write-fixtures: scipy's figures for",
        "// BanditAllocatorTests (scipy.integrate.quad of scipy.stats.beta, and a seeded Monte Carlo of",
        "// 1,000,000 posterior draws). Do not edit; regenerate.",
        "",
        "/// One case of the bandit allocator with scipy's figures.",
        "struct BanditScipyFixture {",
        "    var name: String",
        "    var arms: [(name: String, units: Double, conversions: Double)]",
        "    var prior: (alpha: Double, beta: Double)",
        "    /// P(best) per arm by quad.",
        "    var probabilityToBeBest: [Double]",
        "    /// E[(max of the others − θᵢ)⁺] per arm by quad.",
        "    var expectedLoss: [Double]",
        "    /// P(best) per arm by Monte Carlo, and its standard error.",
        "    var monteCarloProbability: [(Double, Double)]",
        "}",
        "",
        "extension BanditScipyFixture {",
        "    static let all: [BanditScipyFixture] = [",
    ]
    for name, case in FIXTURE_CASES:
        best, loss = scipy_figures(case)
        mc, _ = monte_carlo(case, rng, draws=1_000_000)
        prior = case.get("prior", {"alpha": 1.0, "beta": 1.0})
        arms = ", ".join(f'(name: "{a["name"]}", units: {float(a["units"])!r}, conversions: {float(a["conversions"])!r})' for a in case["arms"])
        lines += [
            "        BanditScipyFixture(",
            f'            name: "{name}",',
            f"            arms: [{arms}],",
            f"            prior: (alpha: {float(prior['alpha'])!r}, beta: {float(prior['beta'])!r}),",
            f"            probabilityToBeBest: [{', '.join(repr(p) for p in best)}],",
            f"            expectedLoss: [{', '.join(repr(v) for v in loss)}],",
            f"            monteCarloProbability: [{', '.join(f'({m!r}, {s!r})' for m, s in mc)}]),",
        ]
    lines += ["    ]", "}", ""]
    with open(FIXTURES, "w") as file:
        file.write("\n".join(lines))
    print(f"wrote {len(FIXTURE_CASES)} cases to {os.path.normpath(FIXTURES)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flags", default=".build/debug/flags")
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--write-fixtures", action="store_true", help="write BanditScipyFixtures.swift and exit")
    args = parser.parse_args()
    if args.write_fixtures:
        write_fixtures()
        return
    rng = np.random.default_rng(args.seed)
    cases = [random_case(rng, n) for n in range(args.cases)] + [c for _, c in FIXTURE_CASES]
    passed, failures = compare(args.flags, cases, rng)
    refused_passed, refused_failures = check_refusals(args.flags)
    passed += refused_passed
    failures += refused_failures
    for failure in failures[:50]:
        print("FAIL", failure)
    print(f"{passed} passed, {len(failures)} failed ({len(cases)} cases, {len(REFUSED)} refusals)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

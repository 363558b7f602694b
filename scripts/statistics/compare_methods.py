#!/usr/bin/env python3
"""Compares `flags stats adjust`, `flags stats quantile` and `flags stats winsorize` with independent implementations
(statsmodels, scipy) on seeded random cases.

    python3 scripts/statistics/compare_methods.py [--flags PATH] [--cases N] [--seed S]
    python3 scripts/statistics/compare_methods.py --coverage [--replications R] [--seed S]

Checks:
  - Holm and Benjamini–Hochberg: statsmodels.stats.multitest.multipletests(method="holm" and
    "fdr_bh") on random families of p-values (with ties), to 1e-12;
  - Dunnett: scipy.stats.dunnett on raw normal samples (k = 1 to 5 treatments of unequal sizes,
    pooled variance, ν = N − k − 1): the t statistics (to 1e-9); the adjusted p-values against
    scipy.stats.dunnett (5e-4 absolute: its randomized quasi-Monte Carlo at default effort) and
    against scipy.stats.multivariate_t with 100 times the points (2e-5 absolute, seeded); the
    critical value against the t quantile (k = 1, to 1e-9) or that multivariate t, whose
    probability outside ±c must be α to 2e-5;
  - the percentile metric: each arm's quantile (numpy's default definition), order-statistic
    ranks, binomial coverage (scipy.stats.binom), standard errors, the interval and p-value of
    the difference (scipy.stats.norm), computed here from the raw values, to 1e-9; and the cases
    the method refuses (too few values for the quantile's ranks) refused by both;
  - capping (winsorization from above): the pooled percentile threshold against np.percentile
    (its default linear method) and the capped values and their count against np.clip, on
    heavy-tailed, tied and small samples (to 1e-12 relative); a fixed cap against np.clip exactly;
    percentiles outside (0.5, 1) refused.
Prints "N passed, N failed" and exits non-zero on any failure.

--coverage instead simulates the percentile interval (this file's formula, which the checks above
hold equal to the engine's, vectorized over experiments) on seeded A/A experiments and prints the
table of the DocC article "Many arms and percentile metrics" (about 5 minutes).
"""
import argparse
import json
import math
import subprocess
import sys

import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests


class Checker:
    def __init__(self):
        self.passed = 0
        self.failures = []

    def check(self, where, ours, theirs, relative=1e-9, absolute=0.0):
        if ours is not None and abs(ours - theirs) <= max(absolute, relative * max(abs(theirs), 1e-300)):
            self.passed += 1
        else:
            self.failures.append(f"{where}: engine {ours!r}, independent {theirs!r}")


def run_flags(flags, arguments, payload):
    return subprocess.run([flags, "stats", *arguments], input=json.dumps(payload).encode(), capture_output=True)


# Holm and Benjamini–Hochberg.

def compare_adjustments(flags, rng, cases, checker):
    for number in range(cases):
        m = int(rng.integers(1, 21))
        if rng.random() < 0.3:
            values = [float(v) for v in rng.integers(0, 40, m) / 400]  # ties
        else:
            values = [float(v) for v in rng.beta(0.4, 1.5, m)]
        for ours_name, theirs_name in (("holm", "holm"), ("bh", "fdr_bh")):
            run = run_flags(flags, ["adjust", "--method", ours_name], {"pValues": values})
            if run.returncode != 0:
                checker.failures.append(f"{ours_name} #{number}: flags failed: {run.stderr.decode()}")
                continue
            ours = json.loads(run.stdout)["adjusted"]
            theirs = multipletests(values, method=theirs_name)[1]
            for i, (o, t) in enumerate(zip(ours, theirs)):
                checker.check(f"{ours_name} #{number} [{i}] of {values}", o, float(t), relative=1e-12, absolute=1e-15)


# Dunnett.

def compare_dunnett(flags, rng, cases, checker):
    largest = {"p-value": 0.0, "alpha": 0.0}
    for number in range(cases):
        k = int(rng.integers(1, 6))
        sizes = [int(rng.integers(4, 60)) for _ in range(k + 1)]
        sigma = float(rng.uniform(0.5, 5))
        control = rng.normal(10, sigma, sizes[0])
        effects = [float(rng.choice([0, 0, rng.normal(0, 1.5 * sigma / math.sqrt(s))])) for s in sizes[1:]]
        treatments = [rng.normal(10 + e, sigma, s) for e, s in zip(effects, sizes[1:])]
        seed = int(rng.integers(0, 2**31))
        result = stats.dunnett(*treatments, control=control, alternative="two-sided", random_state=seed)
        # The pooled t statistics, computed here from the raw values.
        groups = [control, *treatments]
        df = sum(len(g) for g in groups) - len(groups)
        mse = sum(float(((g - g.mean()) ** 2).sum()) for g in groups) / df
        t = [float((g.mean() - control.mean()) / math.sqrt(mse * (1 / len(g) + 1 / len(control)))) for g in treatments]
        for i in range(k):
            checker.check(f"dunnett #{number} t[{i}]", t[i], float(result.statistic[i]))
        alpha = float(rng.choice([0.01, 0.05, 0.1]))
        payload = {
            "controlUnits": len(control), "treatmentUnits": [len(g) for g in treatments],
            "degreesOfFreedom": df, "tStatistics": t, "alpha": alpha,
        }
        run = run_flags(flags, ["adjust", "--method", "dunnett"], payload)
        if run.returncode != 0:
            checker.failures.append(f"dunnett #{number}: flags failed: {run.stderr.decode()}")
            continue
        output = json.loads(run.stdout)
        where = f"dunnett #{number} (k = {k}, sizes {sizes}, ν = {df})"
        lam = np.sqrt(np.array(sizes[1:]) / (np.array(sizes[1:]) + sizes[0]))
        shape = np.outer(lam, lam)
        np.fill_diagonal(shape, 1)
        distribution = stats.multivariate_t(shape=shape, df=df)
        def outside(c):
            # P(max |Tᵢ| ≥ c) by scipy's multivariate t, with 100 times its default points.
            if k == 1:
                return float(2 * stats.t.sf(c, df))
            return 1 - float(distribution.cdf(np.full(k, c), lower_limit=np.full(k, -c), maxpts=100_000 * k, random_state=seed))
        for i in range(k):
            ours = output["adjusted"][i]
            # scipy.stats.dunnett itself (default quasi-Monte Carlo effort), and the same
            # probability with 100 times the points.
            checker.check(f"{where} p[{i}] (scipy.stats.dunnett)", ours, float(result.pvalue[i]), relative=1e-3, absolute=5e-4)
            reference = outside(abs(t[i]))
            checker.check(f"{where} p[{i}] (multivariate t)", ours, reference, relative=1e-4, absolute=2e-5)
            largest["p-value"] = max(largest["p-value"], abs(ours - reference))
        # The critical value: with one treatment the t quantile; with more, the multivariate t
        # (correlations λᵢλⱼ, λᵢ² = nᵢ/(nᵢ + n₀)) must give it probability 1 − α of containing
        # every |Tᵢ| (scipy's own interval search does not always converge at α = 0.01).
        c = output["criticalValue"]
        if k == 1:
            checker.check(f"{where} critical value at α = {alpha}", c, float(stats.t.isf(alpha / 2, df)))
        else:
            checker.check(f"{where} α at the critical value {c}", outside(c), alpha, absolute=2e-5)
            largest["alpha"] = max(largest["alpha"], abs(outside(c) - alpha))
    print(f"Dunnett: largest difference from scipy's multivariate t {largest['p-value']:.1e} (p-values), "
          f"{largest['alpha']:.1e} (α at the critical value)")


# The percentile metric.

def ranks(n, p):
    """The order statistics' ranks (l, u) for the p-quantile of n values, or None when refused."""
    centre = (n + 1) * p
    spread = 2 * math.sqrt(n * p * (1 - p))
    lower = math.ceil(centre - spread - 0.5 - 1e-9)
    upper = math.floor(centre + spread + 0.5 + 1e-9)
    if lower < 1 or upper > n or lower >= upper:
        return None
    return lower, upper


def coverage_and_z(n, p, lower, upper):
    """P(l ≤ B ≤ u − 1) for B ~ Binomial(n, p), and z* = Φ⁻¹(1 − (1 − coverage)/2)."""
    outside = stats.binom.cdf(lower - 1, n, p) + stats.binom.sf(upper - 1, n, p)
    return float(1 - outside), float(stats.norm.isf(outside / 2))


def quantile_estimate(values, p):
    """One arm: (quantile, lower rank, upper rank, coverage, standard error), or None when refused."""
    n = len(values)
    bounds = ranks(n, p)
    if bounds is None:
        return None
    lower, upper = bounds
    ordered = np.sort(values)
    coverage, z = coverage_and_z(n, p, lower, upper)
    width = ordered[upper - 1] - ordered[lower - 1]
    if width <= 0:
        return None
    return float(np.quantile(values, p)), lower, upper, coverage, float(width / (2 * z))


def quantile_difference(treatment, control, p, alpha):
    a, b = quantile_estimate(treatment, p), quantile_estimate(control, p)
    if a is None or b is None:
        return None
    difference = a[0] - b[0]
    se = math.sqrt(a[4] ** 2 + b[4] ** 2)
    critical = stats.norm.isf(alpha / 2)
    return {
        "treatment": a, "control": b, "estimate": difference, "standardError": se,
        "lower": difference - critical * se, "upper": difference + critical * se,
        "pValue": min(1.0, 2 * stats.norm.sf(abs(difference) / se)),
    }


def draw(rng, kind, n):
    if kind == "normal":
        return rng.normal(100, 15, n)
    if kind == "lognormal":
        return rng.lognormal(5, 1, n)
    return rng.exponential(250, n)


def compare_quantiles(flags, rng, cases, checker):
    accepted, refused = [], []
    for number in range(cases):
        kind = str(rng.choice(["normal", "lognormal", "exponential"]))
        p = float(rng.choice([0.5, 0.75, 0.9, 0.95, 0.99]))
        alpha = float(rng.choice([0.01, 0.05, 0.1]))
        sizes = [int(rng.choice([rng.integers(3, 40), rng.integers(40, 600), rng.integers(600, 5000)])) for _ in range(2)]
        treatment = draw(rng, kind, sizes[0]) * float(rng.choice([1, 1, 1.1]))
        control = draw(rng, kind, sizes[1])
        payload = {"probability": p, "alpha": alpha, "treatment": [float(v) for v in treatment],
                   "control": [float(v) for v in control]}
        expected = quantile_difference(treatment, control, p, alpha)
        (accepted if expected is not None else refused).append((number, payload, expected, kind))
    # The accepted cases in one run; the refused ones one by one (each must end with status 2).
    run = run_flags(flags, ["quantile"], [payload for _, payload, _, _ in accepted])
    if run.returncode != 0:
        checker.failures.append(f"quantile: flags failed on accepted cases: {run.stderr.decode()}")
    else:
        for (number, payload, expected, kind), ours in zip(accepted, json.loads(run.stdout)):
            where = f"quantile #{number} ({kind}, p = {payload['probability']}, n = {len(payload['treatment'])}/{len(payload['control'])})"
            for arm in ("treatment", "control"):
                quantile, lower, upper, coverage, se = expected[arm]
                checker.check(f"{where} {arm} quantile", ours[arm]["quantile"], quantile, relative=1e-12)
                checker.check(f"{where} {arm} lower rank", ours[arm]["lowerRank"], lower, relative=0)
                checker.check(f"{where} {arm} upper rank", ours[arm]["upperRank"], upper, relative=0)
                checker.check(f"{where} {arm} coverage", ours[arm]["coverage"], coverage)
                checker.check(f"{where} {arm} standard error", ours[arm]["standardError"], se)
            for key in ("estimate", "standardError", "lower", "upper", "pValue"):
                checker.check(f"{where} {key}", ours[key], float(expected[key]), absolute=1e-12 if key == "estimate" else 0)
    for number, payload, _, kind in refused:
        run = run_flags(flags, ["quantile"], payload)
        if run.returncode == 2 and b"too few" in run.stderr:
            checker.passed += 1
        else:
            checker.failures.append(
                f"quantile #{number} ({kind}, p = {payload['probability']}, n = {len(payload['treatment'])}/"
                f"{len(payload['control'])}): refused here, flags answered {run.returncode}: {run.stderr.decode()}")


# Coverage simulation.

def coverage_table(rng, replications):
    """The A/A false-positive rate of 95 % intervals, many experiments at a time: the same ranks and
    z* as quantile_estimate, the sorting and quantiles vectorized over experiments."""
    print(f"Seeded A/A simulation ({replications} experiments per cell, two arms of n units from the same")
    print("distribution, 95 % intervals): the share whose interval excludes 0 (false positives; 5 % is exact).\n")
    print("| Distribution | n per arm | Median | 90th percentile | 99th percentile |")
    print("|---|---|---|---|---|")
    critical = stats.norm.isf(0.025)
    for kind in ("normal", "lognormal", "exponential"):
        for n in (20, 100, 1000, 10000):
            cells = []
            for p in (0.5, 0.9, 0.99):
                bounds = ranks(n, p)
                if bounds is None:
                    cells.append("refused")
                    continue
                lower, upper = bounds
                _, z = coverage_and_z(n, p, lower, upper)
                positives, done = 0, 0
                while done < replications:
                    batch = min(replications - done, max(1, 2_000_000 // n))
                    arms = [np.sort(draw(rng, kind, (batch, n)), axis=1) for _ in range(2)]
                    difference = np.quantile(arms[0], p, axis=1) - np.quantile(arms[1], p, axis=1)
                    se = np.sqrt(sum(((a[:, upper - 1] - a[:, lower - 1]) / (2 * z)) ** 2 for a in arms))
                    # Tied order statistics would be refused; continuous draws have none.
                    positives += int(np.sum(np.abs(difference) > critical * se))
                    done += batch
                cells.append(f"{100 * positives / replications:.1f} %")
            print(f"| {kind} | {n} | " + " | ".join(cells) + " |")
    print(f"\nEach cell's binomial standard error is about {100 * math.sqrt(0.05 * 0.95 / replications):.2f} points at 5 %.")


# Capping (winsorization from above).

def compare_winsorization(flags, rng, cases, checker):
    for number in range(cases):
        n = int(rng.choice([1, 2, 7, 50, 999, 5000]))
        shape = number % 3
        if shape == 0:
            values = rng.lognormal(2, 1.5, n)
        elif shape == 1:
            values = rng.integers(0, 6, n).astype(float)  # ties at the threshold
        else:
            values = np.where(rng.random(n) < 0.8, 0.0, rng.pareto(1.2, n) * 40)
        values = [float(v) for v in values]
        percentile = float(rng.choice([0.9, 0.95, 0.99, 0.999, float(rng.uniform(0.5001, 0.9999))]))
        run = run_flags(flags, ["winsorize"], {"percentile": percentile, "values": values})
        where = f"winsorize #{number} (n = {n}, p = {percentile})"
        if run.returncode != 0:
            checker.failures.append(f"{where}: flags failed: {run.stderr.decode()}")
            continue
        ours = json.loads(run.stdout)
        threshold = float(np.percentile(values, 100 * percentile))
        clipped = np.clip(values, None, threshold)
        checker.check(f"{where} threshold", ours["threshold"], threshold, relative=1e-12, absolute=1e-12)
        checker.check(f"{where} capped", ours["capped"], int((np.array(values) > threshold).sum()), relative=0)
        worst = max(abs(o - t) / max(abs(t), 1e-300) for o, t in zip(ours["values"], clipped)) if n else 0
        checker.check(f"{where} values (largest relative difference)", worst, 0.0, absolute=1e-12)
        cap = float(rng.uniform(0.5, 50))
        run = run_flags(flags, ["winsorize"], {"value": cap, "values": values})
        fixed = json.loads(run.stdout) if run.returncode == 0 else None
        checker.check(f"winsorize #{number} fixed cap {cap}", None if fixed is None else float(fixed["values"] == [float(v) for v in np.clip(values, None, cap)]), 1.0, relative=0)
    for percentile in (0.5, 0.3, 1.0):
        run = run_flags(flags, ["winsorize"], {"percentile": percentile, "values": [1.0, 2.0]})
        checker.check(f"winsorize refuses percentile {percentile}", float(run.returncode), 2.0, relative=0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flags", default=".build/debug/flags")
    parser.add_argument("--cases", type=int, default=40)
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--coverage", action="store_true")
    parser.add_argument("--replications", type=int, default=10000)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    if args.coverage:
        coverage_table(rng, args.replications)
        return
    checker = Checker()
    compare_adjustments(args.flags, rng, args.cases, checker)
    compare_dunnett(args.flags, rng, args.cases, checker)
    compare_quantiles(args.flags, rng, 2 * args.cases, checker)
    compare_winsorization(args.flags, rng, args.cases, checker)
    print(f"{checker.passed} passed, {len(checker.failures)} failed (Holm, Benjamini–Hochberg, Dunnett, percentiles and capping against statsmodels/scipy/numpy)")
    for failure in checker.failures[:50]:
        print("  FAILED", failure)
    sys.exit(1 if checker.failures else 0)


if __name__ == "__main__":
    main()

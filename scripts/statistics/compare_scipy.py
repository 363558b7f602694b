#!/usr/bin/env python3
"""Compares `flags stats analyze` with an independent implementation (scipy/numpy on the raw
per-unit values) on seeded random experiments, to 1e-9.

    python3 scripts/statistics/compare_scipy.py [--flags PATH] [--experiments N] [--seed S]

For each experiment it draws raw values per arm (conversion, mean and count metrics, with a
pre-exposure covariate for some), computes the sufficient statistics, runs the engine on them,
and checks against scipy computed from the raw values:
  - Welch's t: scipy.stats.ttest_ind(equal_var=False) statistic → p-value, and the interval from
    scipy.stats.t.ppf with the Welch–Satterthwaite degrees of freedom;
  - the relative difference (delta method) with scipy.stats.norm;
  - CUPED: numpy least squares over all units, each unit adjusted, then ttest_ind again;
  - the sample ratio check: scipy.stats.chisquare;
  - Benjamini–Hochberg: scipy.stats.false_discovery_control;
  - the Bayesian view: scipy.stats.norm and numerical integration (scipy.integrate.quad);
  - the sequential interval: its closed form evaluated with numpy (the engine's bound tested at
    the p-value α with scipy's root finder).
Prints "N passed, N failed" and exits non-zero on any failure.
"""
import argparse
import json
import math
import subprocess
import sys

import numpy as np
from scipy import integrate, optimize, stats

TOLERANCE = 1e-9


def close(a, b):
    return abs(a - b) <= TOLERANCE * max(1.0, abs(b))


def sufficient(y, x=None):
    arm = {"units": float(len(y)), "sum": math.fsum(y), "sumOfSquares": math.fsum(v * v for v in y)}
    if x is not None:
        arm["covariateSum"] = math.fsum(x)
        arm["covariateSumOfSquares"] = math.fsum(v * v for v in x)
        arm["sumOfProducts"] = math.fsum(a * b for a, b in zip(x, y))
    return arm


def make_experiment(rng):
    arm_names = ["control", "b", "c"][: rng.integers(2, 4)]
    alpha = float(rng.choice([0.01, 0.05, 0.1]))
    metrics, raw = [], []
    for index in range(rng.integers(1, 4)):
        kind = str(rng.choice(["conversion", "mean", "count"]))
        with_covariate = kind != "conversion" and rng.random() < 0.5
        arms, values = {}, {}
        for name in arm_names:
            n = int(rng.integers(30, 3000))
            if kind == "conversion":
                y = (rng.random(n) < rng.uniform(0.02, 0.6)).astype(float)
                x = None
            elif kind == "count":
                y = rng.poisson(rng.uniform(0.5, 6), n).astype(float)
                x = None
            else:
                x = rng.normal(20, 5, n) if with_covariate else None
                y = rng.normal(rng.uniform(5, 50), rng.uniform(0.5, 20), n)
                if x is not None:
                    y = y + rng.uniform(0.2, 1.5) * x
            y = [float(v) for v in y]
            x = [float(v) for v in x] if x is not None else None
            arm = sufficient(y, x)
            if kind == "conversion":
                del arm["sumOfSquares"]
            arms[name] = arm
            values[name] = (y, x)
        metrics.append({"name": f"m{index}", "kind": kind, "arms": arms})
        raw.append(values)
    weights = {name: float(rng.integers(1, 4)) for name in arm_names}
    data = {"control": "control", "alpha": alpha, "allocation": weights, "metrics": metrics}
    if rng.random() < 0.5:
        data["sequentialMixingStandardDeviation"] = float(rng.uniform(0.01, 2))
    return data, raw


class Checker:
    def __init__(self):
        self.passed = 0
        self.failures = []

    def check(self, where, ours, theirs):
        if close(ours, theirs):
            self.passed += 1
        else:
            self.failures.append(f"{where}: engine {ours!r}, independent {theirs!r}")


def compare(data, raw, analysis, checker, label):
    alpha = data["alpha"]
    control = data["control"]
    fixed_p, sequential_p = [], []
    for metric, values, result in zip(data["metrics"], raw, analysis["metrics"]):
        where = f"{label} {metric['name']} ({metric['kind']})"
        y0, x0 = values[control]
        cuped = x0 is not None
        if cuped:
            xs = np.concatenate([np.array(values[n][1]) for n in values])
            ys = np.concatenate([np.array(values[n][0]) for n in values])
            theta = np.cov(xs, ys, ddof=1)[0, 1] / np.var(xs, ddof=1)
            mean_x = xs.mean()
            checker.check(f"{where} CUPED theta", result["cuped"]["theta"], float(theta))
            adjust = lambda n: np.array(values[n][0]) - theta * (np.array(values[n][1]) - mean_x)
        else:
            adjust = lambda n: np.array(values[n][0])
        base = adjust(control)
        for comparison in result["comparisons"]:
            arm = comparison["arm"]
            treated = adjust(arm)
            w = f"{where} {arm}"
            # Welch's t.
            test = stats.ttest_ind(treated, base, equal_var=False)
            a, b = treated.var(ddof=1) / len(treated), base.var(ddof=1) / len(base)
            se = math.sqrt(a + b)
            df = (a + b) ** 2 / (a * a / (len(treated) - 1) + b * b / (len(base) - 1))
            diff = treated.mean() - base.mean()
            absolute = comparison["absolute"]
            checker.check(f"{w} difference", absolute["estimate"], float(diff))
            checker.check(f"{w} p-value", absolute["pValue"], float(test.pvalue))
            checker.check(f"{w} degrees of freedom", absolute["degreesOfFreedom"], float(df))
            critical = stats.t.ppf(1 - alpha / 2, df)
            checker.check(f"{w} lower", absolute["lower"], float(diff - critical * se))
            checker.check(f"{w} upper", absolute["upper"], float(diff + critical * se))
            # Relative difference, delta method.
            m1, m0 = treated.mean(), base.mean()
            var_rel = treated.var(ddof=1) / (len(treated) * m0**2) + m1**2 * base.var(ddof=1) / (len(base) * m0**4)
            lift, se_rel = m1 / m0 - 1, math.sqrt(var_rel)
            relative = comparison["relative"]
            checker.check(f"{w} lift", relative["estimate"], float(lift))
            checker.check(f"{w} lift p-value", relative["pValue"], float(2 * stats.norm.sf(abs(lift) / se_rel)))
            checker.check(f"{w} lift lower", relative["lower"], float(lift - stats.norm.ppf(1 - alpha / 2) * se_rel))
            # Bayesian: chance to beat and expected loss by numerical integration.
            sign = 1.0 if result["higherIsBetter"] else -1.0
            d = sign * diff
            checker.check(f"{w} chance to beat", comparison["bayesian"]["chanceToBeatControl"], float(stats.norm.cdf(d / se)))
            loss, _ = integrate.quad(lambda t: max(0.0, -t) * stats.norm.pdf(t, d, se), d - 14 * se, d + 14 * se,
                                     points=[0.0] if d - 14 * se < 0 < d + 14 * se else None, epsabs=1e-13, epsrel=1e-12, limit=200)
            checker.check(f"{w} expected loss", comparison["bayesian"]["expectedLoss"], float(loss))
            # Sequential: at the interval's bound the mixture likelihood ratio is exactly 1/α.
            tau2 = comparison["sequential"]["mixingVariance"]
            V = se * se
            def log_ratio(theta0):
                return 0.5 * math.log(V / (V + tau2)) + tau2 * (diff - theta0) ** 2 / (2 * V * (V + tau2))
            upper = optimize.brentq(lambda t: log_ratio(t) - math.log(1 / alpha), diff, diff + 100 * math.sqrt(V + tau2), xtol=1e-14, rtol=1e-15)
            checker.check(f"{w} sequential upper", comparison["sequential"]["upper"], upper)
            checker.check(f"{w} sequential p-value", comparison["sequential"]["pValue"], min(1.0, math.exp(-log_ratio(0.0))))
            fixed_p.append(float(test.pvalue))
            sequential_p.append(min(1.0, math.exp(-log_ratio(0.0))))
    # Benjamini–Hochberg across every comparison, in the engine's order.
    ours_fixed = [c["adjustedPValue"] for m in analysis["metrics"] for c in m["comparisons"]]
    ours_sequential = [c["sequential"]["adjustedPValue"] for m in analysis["metrics"] for c in m["comparisons"]]
    for i, (o, t) in enumerate(zip(ours_fixed, stats.false_discovery_control(fixed_p))):
        checker.check(f"{label} BH fixed #{i}", o, float(t))
    for i, (o, t) in enumerate(zip(ours_sequential, stats.false_discovery_control(sequential_p))):
        checker.check(f"{label} BH sequential #{i}", o, float(t))
    # Sample ratio.
    names = sorted(data["allocation"])
    observed = [data["metrics"][0]["arms"][n]["units"] for n in names]
    weights = [data["allocation"][n] for n in names]
    expected = [sum(observed) * w / sum(weights) for w in weights]
    chi = stats.chisquare(observed, expected)
    checker.check(f"{label} SRM chi-squared", analysis["sampleRatio"]["chiSquared"], float(chi.statistic))
    checker.check(f"{label} SRM p-value", analysis["sampleRatio"]["pValue"], float(chi.pvalue))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flags", default=".build/debug/flags")
    parser.add_argument("--experiments", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    checker = Checker()
    for number in range(args.experiments):
        data, raw = make_experiment(rng)
        run = subprocess.run([args.flags, "stats", "analyze"], input=json.dumps(data).encode(), capture_output=True)
        if run.returncode != 0:
            checker.failures.append(f"experiment {number}: flags stats analyze failed: {run.stderr.decode()}")
            continue
        compare(data, raw, json.loads(run.stdout), checker, f"experiment {number}")
    print(f"{checker.passed} passed, {len(checker.failures)} failed (statistics engine against scipy, tolerance {TOLERANCE})")
    for failure in checker.failures[:50]:
        print("  FAILED", failure)
    sys.exit(1 if checker.failures else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Compares `flags stats analyze` with an independent implementation (scipy/numpy on the raw
per-unit values) on seeded random experiments, to 1e-9.

    python3 scripts/statistics/compare_scipy.py [--flags PATH] [--experiments N] [--seed S]

For each experiment it draws raw values per arm (conversion, mean, count and ratio metrics, some
with a pre-exposure covariate, some far from zero and summed minus an offset, some with arms too
small or too rare to compare), computes the sufficient statistics, runs the engine on all of them
in one `flags stats analyze --lines` process, and checks against scipy/numpy computed from the
raw values:
  - which arms are compared: exactly those the minimum-sample rules allow (the arm and the control
    each with at least minimumUnitsPerArm units, a conversion with at least 5 converted and 5
    unconverted units, some variance in the two arms); the rest listed under notEnoughData;
  - Welch's t: scipy.stats.ttest_ind(equal_var=False) → p-value; the interval from
    scipy.stats.t.ppf with the Welch–Satterthwaite degrees of freedom;
  - the relative difference (Fieller): absent exactly when the control mean's own interval
    (m₀² ≤ q²s₀², q from scipy.stats.t.ppf) includes 0; otherwise its bounds are the roots of the
    quadratic in the relative difference (solved without cancellation) and satisfy the defining equality (m₁ − ρm₀)² = q²(s₁² + ρ²s₀²) while
    the estimate satisfies the inequality; its sign follows the absolute difference;
  - ratio metrics: Σ numerator/Σ denominator and the delta method's variance from the raw
    per-unit (numerator, denominator) pairs with numpy.cov, then Welch's t on them;
  - CUPED: numpy least squares over all units, each unit adjusted, then ttest_ind again;
  - the sample ratio check: scipy.stats.chisquare, and the Dirichlet-multinomial sequential
    p-value with scipy.special.gammaln, the largest share deviation and the mismatch decision;
  - Benjamini–Hochberg: scipy.stats.false_discovery_control;
  - the Bayesian view: scipy.stats.norm and numerical integration (scipy.integrate.quad);
  - the sequential interval: its closed form evaluated with numpy (the engine's bound tested at
    the p-value α with scipy's root finder);
  - that no number in any output is NaN or infinite.
Prints "N passed, N failed" and exits non-zero on any failure.
"""
import argparse
import json
import math
import subprocess
import sys

import numpy as np
from scipy import integrate, optimize, special, stats

TOLERANCE = 1e-9
MINIMUM_CONVERSIONS = 5
DEFAULT_MINIMUM_UNITS = 100
CONCENTRATION = 1000.0


def close(a, b, tolerance=TOLERANCE):
    return abs(a - b) <= tolerance * max(1.0, abs(b))


def sufficient(y, x=None, offset=0.0):
    """Sums of y − offset (and of x, x·(y − offset)), each correctly rounded (math.fsum)."""
    shifted = [v - offset for v in y]
    arm = {"units": float(len(y)), "sum": math.fsum(shifted), "sumOfSquares": math.fsum(v * v for v in shifted)}
    if offset:
        arm["offset"] = offset
    if x is not None:
        arm["covariateSum"] = math.fsum(x)
        arm["covariateSumOfSquares"] = math.fsum(v * v for v in x)
        arm["sumOfProducts"] = math.fsum(a * b for a, b in zip(x, shifted))
    return arm


def make_experiment(rng):
    arm_names = ["control", "b", "c"][: rng.integers(2, 4)]
    alpha = float(rng.choice([0.01, 0.05, 0.1]))
    # Most experiments lower the minimum so that their small arms are compared; the others keep
    # the default (100), so that the rule's arms are checked too.
    minimum = [None, 10.0, 20.0, 50.0][rng.integers(0, 4)]
    metrics, raw = [], []
    for index in range(rng.integers(1, 4)):
        kind = str(rng.choice(["conversion", "mean", "count", "ratio"]))
        with_covariate = kind == "mean" and rng.random() < 0.5
        far = kind == "mean" and not with_covariate and rng.random() < 0.25
        arms, values = {}, {}
        center = rng.uniform(-50, 50) if kind == "mean" and rng.random() < 0.3 else rng.uniform(5, 50)
        for name in arm_names:
            n = int(rng.integers(10, 3000))
            x = d = None
            offset = 0.0
            if kind == "conversion":
                rate = rng.uniform(0.001, 0.02) if rng.random() < 0.25 else rng.uniform(0.02, 0.6)
                y = (rng.random(n) < rate).astype(float)
            elif kind == "count":
                y = rng.poisson(rng.uniform(0.5, 6), n).astype(float)
            elif kind == "ratio":
                # Sessions per user, errors per session varying by user: the unit is the user.
                d = 1.0 + rng.poisson(rng.uniform(0.5, 4), n)
                y = rng.poisson(d * rng.gamma(2.0, rng.uniform(0.05, 1.0) / 2.0, n)).astype(float)
            else:
                x = rng.normal(20, 5, n) if with_covariate else None
                y = rng.normal(center + rng.uniform(-2, 2), rng.uniform(0.5, 20), n)
                if x is not None:
                    y = y + rng.uniform(0.2, 1.5) * x
                if far:
                    # Timestamp-like values: their spread would be lost in Σy²; summed minus an offset.
                    y = 1.7e9 + np.round(y, 3)
                    offset = float(y[0])
            y = [float(v) for v in y]
            x = [float(v) for v in x] if x is not None else None
            arm = sufficient(y, x, offset)
            if kind == "conversion":
                del arm["sumOfSquares"]
            if kind == "ratio":
                d = [float(v) for v in d]
                arm["denominatorSum"] = math.fsum(d)
                arm["denominatorSumOfSquares"] = math.fsum(v * v for v in d)
                arm["sumOfProducts"] = math.fsum(a * b for a, b in zip(y, d))
            arms[name] = arm
            values[name] = (y, x, d, offset)
        metrics.append({"name": f"m{index}", "kind": kind, "arms": arms})
        raw.append(values)
    weights = {name: float(rng.integers(1, 4)) for name in arm_names}
    data = {"control": "control", "alpha": alpha, "allocation": weights, "metrics": metrics}
    if minimum is not None:
        data["minimumUnitsPerArm"] = minimum
    if rng.random() < 0.5:
        data["sequentialMixingStandardDeviation"] = float(rng.uniform(0.01, 2))
    if rng.random() < 0.3:
        data["sampleRatioMinimumDeviation"] = float(rng.choice([0.0, 0.05, 0.2]))
    return data, raw


def edge_cases():
    """Fixed experiments for rules random draws rarely reach: a spread lost to rounding, the same
    values given with an offset, values that do not vary, a control mean not distinguishable
    from zero, a negative control mean, and a split sample ratio."""
    rng = np.random.default_rng(7)
    cases = []
    spread = [float(v) for v in 1e8 + np.round(rng.normal(0, 1e-3, 400), 6)]
    other = [float(v) for v in 1e8 + np.round(rng.normal(1e-4, 1e-3, 400), 6)]
    lost = {"control": "control", "metrics": [{"name": "lost", "kind": "mean", "arms": {
        "control": sufficient(spread), "b": sufficient(other)}}]}
    cases.append((lost, [{"control": (spread, None, None, 0.0), "b": (other, None, None, 0.0)}]))
    kept = {"control": "control", "metrics": [{"name": "offset", "kind": "mean", "arms": {
        "control": sufficient(spread, offset=1e8), "b": sufficient(other, offset=1e8)}}]}
    cases.append((kept, [{"control": (spread, None, None, 1e8), "b": (other, None, None, 1e8)}]))
    flat = [3.0] * 300
    constant = {"control": "control", "metrics": [{"name": "flat", "kind": "count", "arms": {
        "control": sufficient(flat), "b": sufficient(flat)}}]}
    cases.append((constant, [{"control": (flat, None, None, 0.0), "b": (flat, None, None, 0.0)}]))
    near_zero = [float(v) for v in rng.normal(0.01, 5, 500)]
    moved = [float(v) for v in rng.normal(0.5, 5, 500)]
    unbounded = {"control": "control", "metrics": [{"name": "zero", "kind": "mean", "arms": {
        "control": sufficient(near_zero), "b": sufficient(moved)}}]}
    cases.append((unbounded, [{"control": (near_zero, None, None, 0.0), "b": (moved, None, None, 0.0)}]))
    negative = [float(v) for v in rng.normal(-20, 5, 800)]
    better = [float(v) for v in rng.normal(-18, 5, 800)]
    signed = {"control": "control", "metrics": [{"name": "negative", "kind": "mean", "arms": {
        "control": sufficient(negative), "b": sufficient(better)}}]}
    cases.append((signed, [{"control": (negative, None, None, 0.0), "b": (better, None, None, 0.0)}]))
    ys = [(rng.random(n) < 0.1).astype(float).tolist() for n in (5000, 5400)]
    split = {"control": "control", "allocation": {"control": 1, "b": 1}, "metrics": [{"name": "srm", "kind": "conversion",
        "arms": {"control": {"units": 5000.0, "sum": math.fsum(ys[0])}, "b": {"units": 5400.0, "sum": math.fsum(ys[1])}}}]}
    cases.append((split, [{"control": (ys[0], None, None, 0.0), "b": (ys[1], None, None, 0.0)}]))
    return cases


class Checker:
    def __init__(self):
        self.passed = 0
        self.failures = []

    def check(self, where, ours, theirs, tolerance=TOLERANCE):
        if ours is not None and close(ours, theirs, tolerance):
            self.passed += 1
        else:
            self.failures.append(f"{where}: engine {ours!r}, independent {theirs!r}")

    def expect(self, where, condition, detail=""):
        if condition:
            self.passed += 1
        else:
            self.failures.append(f"{where}: {detail}")


def finite_everywhere(value, path, checker):
    """Every number of the output is finite (the JSON is parsed with NaN and Infinity allowed)."""
    bad = []

    def walk(v, p):
        if isinstance(v, float) and not math.isfinite(v):
            bad.append(p)
        elif isinstance(v, dict):
            for k, item in v.items():
                walk(item, f"{p}.{k}")
        elif isinstance(v, list):
            for i, item in enumerate(v):
                walk(item, f"{p}[{i}]")

    walk(value, path)
    checker.expect(f"{path} finite numbers", not bad, f"not finite: {bad[:5]}")


def welch_reference(m1, v1, n1, m0, v0, n0):
    """Welch's statistics from two arms' means and variances of a unit's value."""
    a, b = v1 / n1, v0 / n0
    se = math.sqrt(a + b)
    df = (a + b) ** 2 / (a * a / (n1 - 1) + b * b / (n0 - 1))
    return m1 - m0, se, df, a, b


def arm_problem(kind, values, minimum):
    """Whether an arm breaks a minimum-sample rule, from its raw values."""
    y = values[0]
    n = len(y)
    if n < minimum:
        return "units"
    if kind == "conversion":
        converted = sum(y)
        if min(converted, n - converted) < MINIMUM_CONVERSIONS:
            return "conversions"
    return None


def ratio_reference(y, d):
    """R = ΣN/ΣD and the delta method's Var(R̂) from the per-unit pairs."""
    n_values, d_values = np.array(y), np.array(d)
    n = len(n_values)
    r = n_values.sum() / d_values.sum()
    cov = np.cov(np.vstack([n_values, d_values]), ddof=1)
    variance = (cov[0, 0] - 2 * r * cov[0, 1] + r * r * cov[1, 1]) / (n * d_values.mean() ** 2)
    return float(r), float(max(0.0, variance))


def check_fieller(w, relative, m1, s1, m0, s0, q, diff, pvalue, checker):
    """Fieller's interval for (m₁ − m₀)/|m₀| at the critical value q, checked by its definition."""
    a = m0 * m0 - q * q * s0
    if a <= 0:
        checker.expect(f"{w} relative absent (control mean's interval includes 0)", relative is None, f"engine gave {relative}")
        return
    if relative is None:
        checker.expect(f"{w} relative present", False, f"m0²={m0 * m0}, q²s0²={q * q * s0}: the engine gave none")
        return
    checker.check(f"{w} lift", relative["estimate"], (m1 - m0) / abs(m0))
    checker.check(f"{w} lift p-value", relative["pValue"], pvalue)
    checker.expect(f"{w} lift sign", diff == 0 or math.copysign(1, relative["estimate"]) == math.copysign(1, diff),
                   f"lift {relative['estimate']} against difference {diff}")
    # In the relative difference t = sign(m₀)(ρ − 1), ρ = 1 + sign(m₀)·t, the definition reads
    # g(t) = (d − t|m₀|)² − q²(s₁² + (1 + sign(m₀)t)²s₀²) ≤ 0 with d = m₁ − m₀: every term is of
    # the size of d², so it is checked to 1e-9 of that without cancellation, even for means
    # far from zero.
    sign = 1.0 if m0 > 0 else -1.0
    lower, upper = relative["lower"], relative["upper"]

    def g(t):
        return (diff - t * abs(m0)) ** 2 - q * q * (s1 + (1 + sign * t) ** 2 * s0)

    def scale(t):
        return diff * diff + (t * m0) ** 2 + q * q * (s1 + (1 + sign * t) ** 2 * s0)

    # Each bound is a root of g, to 1e-9 of g's terms. (An interval narrower than 1e-6, for
    # means far from zero, is left to the root comparison below: ρ − 1 then carries the
    # rounding of ρ ≈ 1, 1e-16, which is below the script's tolerance but not below 1e-9 of t.)
    for t, side in ((lower, "lower"), (upper, "upper")):
        if upper - lower < 1e-6:
            continue
        on_boundary = abs(g(t)) <= 1e-9 * scale(t)
        checker.expect(f"{w} Fieller {side} bound on the boundary", on_boundary,
                       f"(d − t|m0|)² − q²(s1² + ρ²s0²) = {g(t)} at t = {t}")
    estimate = diff / abs(m0)
    checker.expect(f"{w} Fieller estimate inside", g(estimate) <= 0 and lower <= estimate <= upper,
                   f"{estimate} not in [{lower}, {upper}]")
    # The roots of g, a quadratic A·t² + B·t + C, by the formula without cancellation.
    A = a
    B = -2 * (diff * abs(m0) + sign * q * q * s0)
    C = diff * diff - q * q * (s1 + s0)
    half = -0.5 * (B + math.copysign(math.sqrt(max(0.0, B * B - 4 * A * C)), B))
    roots = sorted([half / A, C / half]) if half != 0 else [0.0, 0.0]
    checker.check(f"{w} Fieller lower root", lower, roots[0])
    checker.check(f"{w} Fieller upper root", upper, roots[1])


def compare(data, raw, analysis, checker, label):
    alpha = data.get("alpha", 0.05)
    control = data["control"]
    minimum = data.get("minimumUnitsPerArm", DEFAULT_MINIMUM_UNITS)
    fixed_p, sequential_p = [], []
    for metric, values, result in zip(data["metrics"], raw, analysis["metrics"]):
        kind = metric["kind"]
        where = f"{label} {metric['name']} ({kind})"
        y0, x0, _, _ = values[control]
        cuped = x0 is not None
        if cuped:
            xs = np.concatenate([np.array(values[n][1]) for n in values])
            ys = np.concatenate([np.array(values[n][0]) for n in values])
            theta = np.cov(xs, ys, ddof=1)[0, 1] / np.var(xs, ddof=1)
            mean_x = xs.mean()
            checker.check(f"{where} CUPED theta", result["cuped"]["theta"], float(theta))

            def adjust(n):
                return np.array(values[n][0]) - theta * (np.array(values[n][1]) - mean_x)
        else:
            def adjust(n):
                return np.array(values[n][0])

        def moments(n):
            """An arm's mean and per-unit variance (n·Var(R̂) for a ratio), from its raw values."""
            y, _, d, offset = values[n]
            if kind == "ratio":
                r, variance = ratio_reference(y, d)
                return r, variance * len(y), len(y)
            adjusted = adjust(n) - offset
            return offset + adjusted.mean(), float(adjusted.var(ddof=1)), len(y)

        # Which arms are compared: exactly those the rules allow.
        control_problem = arm_problem(kind, values[control], minimum)
        expected_missing = set()
        for name in values:
            if name == control:
                continue
            problem = control_problem or arm_problem(kind, values[name], minimum)
            if problem is None:
                _, v1, _ = moments(name)
                _, v0, _ = moments(control)
                if v1 == 0 and v0 == 0:
                    problem = "no variance"
            if problem is not None:
                expected_missing.add(name)
        listed = {entry["arm"] for entry in result["notEnoughData"]}
        compared = {c["arm"] for c in result["comparisons"]}
        # A spread lost to rounding is the engine's own judgement of its sums' precision; the
        # independent side confirms it only for the fixed case built for it (see edge_cases).
        rounding = {entry["arm"] for entry in result["notEnoughData"] if "lost to rounding" in entry["reason"]}
        checker.expect(f"{where} arms without enough data", listed - rounding == expected_missing - rounding,
                       f"engine lists {sorted(listed)}, the rules name {sorted(expected_missing)}")
        checker.expect(f"{where} every arm compared or listed", compared | listed == set(values) - {control} and not compared & listed,
                       f"compared {sorted(compared)}, listed {sorted(listed)}")
        if metric["name"] == "lost":
            checker.expect(f"{where} spread lost to rounding reported", rounding == {"b"}, f"listed {result['notEnoughData']}")
        for entry in result["notEnoughData"]:
            reason = entry["reason"]
            expected_word = {"units": "minimumUnitsPerArm", "conversions": "converted"}
            problem = control_problem or arm_problem(kind, values[entry["arm"]], minimum)
            if problem in expected_word:
                checker.expect(f"{where} {entry['arm']} reason names the rule", expected_word[problem] in reason, reason)
        for arm_summary in result["arms"]:
            if rounding:
                continue
            m, v, n = moments(arm_summary["arm"])
            checker.check(f"{where} {arm_summary['arm']} mean", arm_summary["mean"], m)
            checker.check(f"{where} {arm_summary['arm']} variance", arm_summary["variance"], v, 1e-8)
        m0, v0, n0 = moments(control)
        for comparison in result["comparisons"]:
            arm = comparison["arm"]
            w = f"{where} {arm}"
            m1, v1, n1 = moments(arm)
            diff, se, df, s1, s0 = welch_reference(m1, v1, n1, m0, v0, n0)
            if kind == "ratio" or values[arm][3] or values[control][3]:
                pvalue = float(2 * stats.t.sf(abs(diff) / se, df))
            else:
                test = stats.ttest_ind(adjust(arm), adjust(control), equal_var=False)
                pvalue = float(test.pvalue)
            absolute = comparison["absolute"]
            checker.check(f"{w} difference", absolute["estimate"], float(diff))
            checker.check(f"{w} standard error", absolute["standardError"], se, 1e-8)
            checker.check(f"{w} p-value", absolute["pValue"], pvalue, 1e-8)
            checker.check(f"{w} degrees of freedom", absolute["degreesOfFreedom"], float(df), 1e-8)
            critical = float(stats.t.ppf(1 - alpha / 2, df))
            checker.check(f"{w} lower", absolute["lower"], float(diff - critical * se))
            checker.check(f"{w} upper", absolute["upper"], float(diff + critical * se))
            check_fieller(w, comparison.get("relative"), m1, s1, m0, s0, critical, diff, pvalue, checker)
            # Bayesian: chance to beat and expected loss by numerical integration.
            sign = 1.0 if result["higherIsBetter"] else -1.0
            d = sign * diff
            checker.check(f"{w} chance to beat", comparison["bayesian"]["chanceToBeatControl"], float(stats.norm.cdf(d / se)))
            loss, _ = integrate.quad(lambda t: max(0.0, -t) * stats.norm.pdf(t, d, se), d - 14 * se, d + 14 * se,
                                     points=[0.0] if d - 14 * se < 0 < d + 14 * se else None, epsabs=1e-13, epsrel=1e-12, limit=200)
            checker.check(f"{w} expected loss", comparison["bayesian"]["expectedLoss"], float(loss), 1e-8)
            # Sequential: at the interval's bound the mixture likelihood ratio is exactly 1/α.
            tau2 = comparison["sequential"]["mixingVariance"]
            V = se * se

            def log_ratio(theta0):
                return 0.5 * math.log(V / (V + tau2)) + tau2 * (diff - theta0) ** 2 / (2 * V * (V + tau2))
            upper = optimize.brentq(lambda t: log_ratio(t) - math.log(1 / alpha), diff, diff + 100 * math.sqrt(V + tau2), xtol=1e-14, rtol=1e-15)
            checker.check(f"{w} sequential upper", comparison["sequential"]["upper"], upper, 1e-8)
            checker.check(f"{w} sequential p-value", comparison["sequential"]["pValue"], min(1.0, math.exp(-log_ratio(0.0))), 1e-8)
            fixed_p.append(float(absolute["pValue"]))
            sequential_p.append(float(comparison["sequential"]["pValue"]))
    # Benjamini–Hochberg across every comparison, in the engine's order.
    ours_fixed = [c["adjustedPValue"] for m in analysis["metrics"] for c in m["comparisons"]]
    ours_sequential = [c["sequential"]["adjustedPValue"] for m in analysis["metrics"] for c in m["comparisons"]]
    if fixed_p:
        for i, (o, t) in enumerate(zip(ours_fixed, stats.false_discovery_control(fixed_p))):
            checker.check(f"{label} BH fixed #{i}", o, float(t))
        for i, (o, t) in enumerate(zip(ours_sequential, stats.false_discovery_control(sequential_p))):
            checker.check(f"{label} BH sequential #{i}", o, float(t))
    if "allocation" in data:
        check_sample_ratio(data, analysis["sampleRatio"], checker, label)


def check_sample_ratio(data, result, checker, label):
    names = sorted(data["allocation"])
    observed = [data["metrics"][0]["arms"][n]["units"] for n in names]
    weights = [data["allocation"][n] for n in names]
    total, weight_total = sum(observed), sum(weights)
    expected = [total * w / weight_total for w in weights]
    chi = stats.chisquare(observed, expected)
    checker.check(f"{label} SRM chi-squared", result["chiSquared"], float(chi.statistic))
    checker.check(f"{label} SRM p-value", result["pValue"], float(chi.pvalue))
    # Lindon & Malek's Dirichlet-multinomial Bayes factor with prior Dirichlet(K·p).
    p = np.array(weights) / weight_total
    x = np.array(observed)
    log_factor = (special.gammaln(CONCENTRATION) - special.gammaln(CONCENTRATION + total)
                  + np.sum(special.gammaln(CONCENTRATION * p + x) - special.gammaln(CONCENTRATION * p)) - np.sum(x * np.log(p)))
    sequential = min(1.0, math.exp(-log_factor)) if log_factor > -700 else 1.0
    checker.check(f"{label} SRM sequential p-value", result["sequentialPValue"], sequential, 1e-7)
    deviation = max(abs((o / total) / pi - 1) for o, pi in zip(observed, p))
    checker.check(f"{label} SRM largest deviation", result["maximumDeviation"], deviation)
    minimum = data.get("sampleRatioMinimumDeviation", 0.01)
    threshold = data.get("sampleRatioThreshold", 0.001)
    checker.expect(f"{label} SRM mismatch decision", result["mismatch"] == (sequential < threshold and deviation >= minimum),
                   f"engine {result['mismatch']}, sequential p {sequential}, deviation {deviation}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flags", default=".build/debug/flags")
    parser.add_argument("--experiments", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    checker = Checker()
    experiments = [make_experiment(rng) for _ in range(args.experiments)] + edge_cases()
    text = "".join(json.dumps(data) + "\n" for data, _ in experiments)
    run = subprocess.run([args.flags, "stats", "analyze", "--lines"], input=text.encode(), capture_output=True)
    answers = run.stdout.decode().splitlines()
    if len(answers) != len(experiments):
        checker.failures.append(f"flags stats analyze --lines gave {len(answers)} lines for {len(experiments)} experiments: {run.stderr.decode()}")
    for number, ((data, raw), line) in enumerate(zip(experiments, answers)):
        label = f"experiment {number}" if number < args.experiments else f"edge case {number - args.experiments} ({data['metrics'][0]['name']})"
        analysis = json.loads(line)
        if "error" in analysis:
            checker.failures.append(f"{label}: flags stats analyze refused it: {analysis['error']}")
            continue
        finite_everywhere(analysis, label, checker)
        compare(data, raw, analysis, checker, label)
    checker.expect("exit status", run.returncode == 0, f"flags stats analyze --lines exited {run.returncode}: {run.stderr.decode()}")
    print(f"{checker.passed} passed, {len(checker.failures)} failed (statistics engine against scipy, tolerance {TOLERANCE})")
    for failure in checker.failures[:50]:
        print("  FAILED", failure)
    sys.exit(1 if checker.failures else 0)


if __name__ == "__main__":
    main()

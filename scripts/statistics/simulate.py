#!/usr/bin/env python3
"""Seeded A/A and A/B simulations of the statistics engine: each method's measured false-positive
rate (A/A) and interval coverage (A/B, a known true effect), through the real engine.

    python3 scripts/statistics/simulate.py [--flags PATH] [--quick] [--runs N] [--seed S] [--write-docs]

Every experiment is drawn from a population with numpy (seed fixed), reduced to the sufficient
statistics the engine takes, and analysed by `flags stats analyze --lines` (one process per
scenario, one JSON experiment per line). The table it prints (Markdown) has, per method and
population: the runs, the share of runs with "not enough data", the A/A false-positive rate among
the runs compared with its 95 % Wilson interval, and the coverage of the method's interval of a true effect in A/B runs.
A rate whose whole 99.9 % interval lies above α, or a coverage whose whole 99.9 % interval lies
below 1 − α, is marked "over α" / "under 1 − α": a defect, not noise (the naive per-session,
unadjusted and Pearson rows are there to show what goes wrong without the method, and are
expected to be marked). With --strict the script exits 1 when any other row is marked.

`--write-docs` writes the table between the markers of
Sources/FlagStatistics/Documentation.docc/SimulationResults.md, and each method's rows into its
own article there (WelchTest.md, RelativeDifference.md, …). `--quick` (CI) runs fewer runs
per scenario; the figures in the docs come from the default sizes.

Populations: normal; lognormal revenue (σ = 1.5); Pareto-like revenue (tail index 2.5); small n
(100 units per arm, the default minimum); rare conversion (1 %); clustered by user (sessions per
user and an error propensity per user), analysed per user as a ratio metric and, to show why the
unit matters, naively per session; revenue capped at its pooled 99th percentile (`flags stats
winsorize`'s definition, np.percentile and np.clip, which compare_methods.py holds equal) and then
compared by Welch; the 90th percentile of lognormal revenue by `flags stats quantile`; results by
app version (four versions of unequal size, version-skewed, adjusted together by Benjamini–Hochberg
as the flag server's `segment=appVersion` is).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

ALPHA = 0.05
# A rate is flagged when its 99.9 % interval excludes the promise: with twenty-odd rows, a 95 %
# interval would flag one of them by chance in about half of all seeds.
DEFECT_Z = 3.2905267314919255
Z = 1.959963984540054  # the normal 1 − α/2 quantile at α = 0.05
# The rows each DocC article shows, by method (and population) name.
PAGES = {
    "WelchTest.md": lambda r: r.method.startswith("Welch t"),
    "RelativeDifference.md": lambda r: r.method.startswith("Fieller"),
    "BayesianView.md": lambda r: r.method.startswith("Bayesian"),
    "SequentialTest.md": lambda r: r.method.startswith("Mixture sequential"),
    "CUPED.md": lambda r: r.method.startswith("CUPED"),
    "RatioMetrics.md": lambda r: "clustered" in r.population,
    "SampleRatioCheck.md": lambda r: r.method.startswith("Sample ratio"),
    "MinimumSample.md": lambda r: ("small n" in r.population or "rare" in r.population) and not r.method.startswith("Bayesian"),
    "Capping.md": lambda r: "capped" in r.method,
    "MultipleArmsAndPercentiles.md": lambda r: r.method.startswith("Percentile"),
    "SimulationResults.md": lambda r: True,
}
POWER_PAGES = ("SampleSizePlanning.md", "SimulationResults.md")
POWER_BEGIN, POWER_END = "<!-- simulate.py power: begin -->", "<!-- simulate.py power: end -->"
DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "Sources", "FlagStatistics", "Documentation.docc")
BEGIN, END = "<!-- simulate.py: begin -->", "<!-- simulate.py: end -->"


# Populations: each draws n values (and optionally a covariate), with its true mean known.

def normal(rng, n, shift=0.0):
    return rng.normal(10.0 + shift, 4.0, n)


def lognormal(rng, n, lift=0.0):
    # Revenue: most units small, a few large; E = exp(μ + σ²/2), scaled by (1 + lift).
    return rng.lognormal(1.0, 1.5, n) * (1 + lift)


LOGNORMAL_MEAN = math.exp(1.0 + 1.5 ** 2 / 2)


def pareto(rng, n, lift=0.0):
    # Pareto (Lomax) with tail index 2.5: finite variance, infinite third moment.
    return (rng.pareto(2.5, n) * 20.0) * (1 + lift)


PARETO_MEAN = 20.0 / (2.5 - 1)


def conversion(rng, n, rate):
    return (rng.random(n) < rate).astype(float)


def arm_sums(y, x=None):
    arm = {"units": float(len(y)), "sum": float(np.sum(y)), "sumOfSquares": float(np.sum(y * y))}
    if x is not None:
        arm["covariateSum"] = float(np.sum(x))
        arm["covariateSumOfSquares"] = float(np.sum(x * x))
        arm["sumOfProducts"] = float(np.sum(x * y))
    return arm


def experiment(kind, arms, **settings):
    data = {"control": "a", "alpha": ALPHA, "metrics": [{"name": "m", "kind": kind, "arms": arms}]}
    data.update(settings)
    return data


def analyse(flags, experiments):
    """The engine's analysis of each experiment (None for a line it refused)."""
    text = "".join(json.dumps(e) + "\n" for e in experiments)
    run = subprocess.run([flags, "stats", "analyze", "--lines"], input=text.encode(), capture_output=True)
    lines = run.stdout.decode().splitlines()
    if len(lines) != len(experiments):
        sys.exit(f"flags stats analyze --lines answered {len(lines)} lines for {len(experiments)}: {run.stderr.decode()[:500]}")
    answers = [json.loads(line) for line in lines]
    refused = [a["error"] for a in answers if "error" in a]
    if refused:
        sys.exit(f"the engine refused {len(refused)} simulated experiments, e.g. {refused[0]}")
    return answers


def comparison(analysis, arm="b"):
    for c in analysis["metrics"][0]["comparisons"]:
        if c["arm"] == arm:
            return c
    return None


def wilson(hits, n, z=1.959963984540054):
    if n == 0:
        return (float("nan"), float("nan"))
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


class Row:
    def __init__(self, method, population, units, unit):
        self.method, self.population, self.units, self.unit = method, population, units, unit
        self.aa_runs = self.aa_hits = self.aa_missing = 0
        self.ab_runs = self.ab_covered = self.ab_missing = 0
        self.level = ALPHA

    def false_positive(self, hit, missing=False):
        self.aa_runs += 1
        self.aa_missing += missing
        self.aa_hits += bool(hit) and not missing

    def coverage(self, covered, missing=False):
        if missing:
            self.ab_missing += 1
            return
        self.ab_runs += 1
        self.ab_covered += bool(covered)

    def cells(self):
        runs = self.aa_runs or self.ab_runs + self.ab_missing
        missing = self.aa_missing if self.aa_runs else self.ab_missing
        notes = []
        compared = self.aa_runs - self.aa_missing
        if compared:
            # Among the runs compared: a verdict the rules let through must be right as often as
            # promised, however many runs they held back.
            rate = self.aa_hits / compared
            low, high = wilson(self.aa_hits, compared)
            fp = f"{100 * rate:.2f} % ({100 * low:.2f}–{100 * high:.2f})"
            if wilson(self.aa_hits, compared, DEFECT_Z)[0] > self.level:
                notes.append("**over α**")
        else:
            fp = "—"
        if self.ab_runs:
            share = self.ab_covered / self.ab_runs
            low, high = wilson(self.ab_covered, self.ab_runs)
            cov = f"{100 * share:.1f} % ({100 * low:.1f}–{100 * high:.1f})"
            if wilson(self.ab_covered, self.ab_runs, DEFECT_Z)[1] < 1 - self.level:
                notes.append("**under 1 − α**")
        else:
            cov = "—"
        return [self.method, self.population, self.unit, self.units, str(runs), f"{100 * missing / max(1, runs):.1f} %", fp, cov,
                ", ".join(notes)]


def fixed_horizon(flags, rng, runs, rows):
    """Welch (absolute) and Fieller (relative) on one look, A/A and A/B, per population."""
    populations = [
        ("normal", 1000, lambda n, e: normal(rng, n, e * 4.0), 10.0, 0.1),
        ("lognormal revenue", 1000, lambda n, e: lognormal(rng, n, e), LOGNORMAL_MEAN, 0.05),
        ("Pareto-like revenue", 1000, lambda n, e: pareto(rng, n, e), PARETO_MEAN, 0.05),
        ("small n (normal)", 100, lambda n, e: normal(rng, n, e * 4.0), 10.0, 0.1),
        ("small n (lognormal)", 100, lambda n, e: lognormal(rng, n, e), LOGNORMAL_MEAN, 0.05),
    ]
    for name, n, draw, mean, effect in populations:
        welch = Row("Welch t (absolute)", name, str(n), "unit")
        fieller = Row("Fieller (relative)", name, str(n), "unit")
        bayes = Row("Bayesian (chance to beat ≥ 97.5 % or ≤ 2.5 %)", name, str(n), "unit")
        aa = [experiment("mean", {"a": arm_sums(draw(n, 0.0)), "b": arm_sums(draw(n, 0.0))}) for _ in range(runs)]
        ab = [experiment("mean", {"a": arm_sums(draw(n, 0.0)), "b": arm_sums(draw(n, effect))}) for _ in range(runs)]
        for analysis in analyse(flags, aa):
            c = comparison(analysis)
            welch.false_positive(c and c["absolute"]["pValue"] < ALPHA, c is None)
            r = c and c.get("relative")
            fieller.false_positive(r and (r["lower"] > 0 or r["upper"] < 0), not r)
            chance = c and c["bayesian"]["chanceToBeatControl"]
            bayes.false_positive(c and not (ALPHA / 2 < chance < 1 - ALPHA / 2), c is None)
        # The true differences: normal shifts by effect·σ; the revenue populations scale by 1 + effect.
        true_absolute = effect * 4.0 if "normal" in name else effect * mean
        true_relative = true_absolute / mean
        for analysis in analyse(flags, ab):
            c = comparison(analysis)
            welch.coverage(c and c["absolute"]["lower"] <= true_absolute <= c["absolute"]["upper"], c is None)
            r = c and c.get("relative")
            fieller.coverage(r and r["lower"] <= true_relative <= r["upper"], not r)
            # The posterior's central 1 − α interval: d ± z·SE (flat priors, normal likelihood).
            half = c and Z * c["absolute"]["standardError"]
            bayes.coverage(c and abs(c["absolute"]["estimate"] - true_absolute) <= half, c is None)
        rows += [welch, fieller, bayes]
    # Rare conversion, 1 %: at 500 units per arm (about 5 conversions: the minimum-sample rule
    # holds back many runs) and at 2,000 (about 20).
    rate = 0.01

    def conv(y):
        return {"units": float(len(y)), "sum": float(y.sum())}
    for n in (500, 2000):
        welch = Row("Welch t (absolute)", "rare conversion (1 %)", str(n), "unit")
        fieller = Row("Fieller (relative)", "rare conversion (1 %)", str(n), "unit")
        aa = [experiment("conversion", {"a": conv(conversion(rng, n, rate)), "b": conv(conversion(rng, n, rate))}) for _ in range(runs)]
        ab = [experiment("conversion", {"a": conv(conversion(rng, n, rate)), "b": conv(conversion(rng, n, rate * 1.3))})
              for _ in range(runs)]
        for analysis in analyse(flags, aa):
            c = comparison(analysis)
            welch.false_positive(c and c["absolute"]["pValue"] < ALPHA, c is None)
            r = c and c.get("relative")
            fieller.false_positive(r and (r["lower"] > 0 or r["upper"] < 0), not r)
        for analysis in analyse(flags, ab):
            c = comparison(analysis)
            welch.coverage(c and c["absolute"]["lower"] <= rate * 0.3 <= c["absolute"]["upper"], c is None)
            r = c and c.get("relative")
            fieller.coverage(r and r["lower"] <= 0.3 <= r["upper"], not r)
        rows += [welch, fieller]


def cuped(flags, rng, runs, rows):
    """CUPED with a pre-exposure covariate correlated with the metric."""
    for name, n in (("normal, covariate ρ ≈ 0.7", 1000), ("lognormal revenue, covariate ρ ≈ 0.6", 1000)):
        row = Row("CUPED (absolute)", name, str(n), "unit")

        def draw(effect):
            if name.startswith("normal"):
                x = rng.normal(10, 4, n)
                y = 0.7 * x + rng.normal(3, 4 * math.sqrt(1 - 0.49), n) + effect
            else:
                base = rng.lognormal(1.0, 1.0, n)
                x = base * rng.lognormal(0, 0.5, n)
                y = base * rng.lognormal(0, 0.5, n) + effect
            return arm_sums(y, x)
        effect = 0.3
        aa = [experiment("mean", {"a": draw(0), "b": draw(0)}) for _ in range(runs)]
        ab = [experiment("mean", {"a": draw(0), "b": draw(effect)}) for _ in range(runs)]
        for analysis in analyse(flags, aa):
            c = comparison(analysis)
            row.false_positive(c and c["absolute"]["pValue"] < ALPHA, c is None)
        for analysis in analyse(flags, ab):
            c = comparison(analysis)
            row.coverage(c and c["absolute"]["lower"] <= effect <= c["absolute"]["upper"], c is None)
        rows.append(row)


def clustered(flags, rng, runs, rows):
    """Errors clustered by user: per user as a ratio metric (the unit is the user) against the naive
    per-session mean (each session taken as independent)."""
    users = 1000
    per_user = Row("Ratio metric (delta method)", "clustered by user: errors/session", str(users), "user")
    per_session = Row("Welch t, naive", "clustered by user: errors/session", f"{users} users' sessions", "session")

    def draw(lift):
        sessions = 1 + rng.negative_binomial(1, 0.2, users)  # mean 5 sessions, over-dispersed
        propensity = rng.gamma(0.3, 0.2 / 0.3, users) * (1 + lift)  # errors per session, by user
        errors = rng.poisson(sessions * propensity)
        # Per session: split each user's errors over their sessions (multinomial), for the naive view.
        session_errors = np.concatenate([rng.multinomial(e, [1 / s] * s) for e, s in zip(errors, sessions)])
        ratio = {"units": float(users), "sum": float(errors.sum()), "sumOfSquares": float((errors * errors).sum()),
                 "denominatorSum": float(sessions.sum()), "denominatorSumOfSquares": float((sessions * sessions).sum()),
                 "sumOfProducts": float((errors * sessions).sum())}
        naive = {"units": float(len(session_errors)), "sum": float(session_errors.sum()),
                 "sumOfSquares": float((session_errors * session_errors).sum())}
        return ratio, naive
    lift = 0.2
    true_difference = 0.2 * lift  # E[propensity] = 0.2: the true errors per session differ by 0.2·lift
    for effect, record in ((0.0, "aa"), (lift, "ab")):
        pairs = [(draw(0.0), draw(effect)) for _ in range(runs)]
        ratio_runs = [experiment("ratio", {"a": a[0], "b": b[0]}, higherIsBetter=False) for a, b in pairs]
        naive_runs = [experiment("count", {"a": a[1], "b": b[1]}) for a, b in pairs]
        for row, answers in ((per_user, analyse(flags, ratio_runs)), (per_session, analyse(flags, naive_runs))):
            for analysis in answers:
                c = comparison(analysis)
                if record == "aa":
                    row.false_positive(c and c["absolute"]["pValue"] < ALPHA, c is None)
                else:
                    row.coverage(c and c["absolute"]["lower"] <= true_difference <= c["absolute"]["upper"], c is None)
    rows += [per_user, per_session]


def sequential(flags, rng, runs, rows, days):
    """The mixture sequential test read every day: a false positive is any day's p < α; coverage is
    the interval covering the true effect on every day (simultaneous)."""
    per_day = 200
    for name, draw, effect in (("normal, daily peeking", lambda n, e: normal(rng, n, e), 0.4),
                               ("lognormal revenue, daily peeking", lambda n, e: lognormal(rng, n, e / LOGNORMAL_MEAN), 0.4)):
        row = Row(f"Mixture sequential ({days} daily looks)", name, f"{per_day}/day", "unit")
        for e, record in ((0.0, "aa"), (effect, "ab")):
            experiments = []
            for _ in range(runs):
                sums = {"a": np.zeros(3), "b": np.zeros(3)}
                for _day in range(days):
                    for arm, shift in (("a", 0.0), ("b", e)):
                        y = draw(per_day, shift)
                        sums[arm] += [len(y), y.sum(), (y * y).sum()]
                    experiments.append(experiment("mean", {arm: {"units": float(s[0]), "sum": float(s[1]), "sumOfSquares": float(s[2])}
                                                           for arm, s in sums.items()}))
            answers = analyse(flags, experiments)
            for run in range(runs):
                looks = [comparison(a) for a in answers[run * days:(run + 1) * days]]
                compared = [c for c in looks if c]
                if record == "aa":
                    row.false_positive(any(c["sequential"]["pValue"] < ALPHA for c in compared), not compared)
                else:
                    row.coverage(all(c["sequential"]["lower"] <= e <= c["sequential"]["upper"] for c in compared), not compared)
        rows.append(row)


def sample_ratio(flags, rng, runs, rows, days):
    """The sequential sample ratio check read every day of an even split: a false alarm is a
    mismatch on any day; Pearson's test at p < 0.001 read the same way, for contrast."""
    per_day = 1000
    row = Row(f"Sample ratio, sequential ({days} daily checks)", "even split, 3 arms", f"{per_day}/day", "unit")
    pearson = Row(f"Sample ratio, Pearson p < 0.001 ({days} daily checks)", "even split, 3 arms", f"{per_day}/day", "unit")
    row.level = pearson.level = 0.001
    experiments = []
    for _ in range(runs):
        counts = np.zeros(3)
        for _day in range(days):
            counts += rng.multinomial(per_day, [1 / 3] * 3)
            units = {name: float(c) for name, c in zip("abc", counts)}
            arms = {name: {"units": u, "sum": float(int(u) // 10)} for name, u in units.items()}
            experiments.append(experiment("conversion", arms, allocation={"a": 1, "b": 1, "c": 1}, units=units))
    answers = analyse(flags, experiments)
    for run in range(runs):
        checks = [a["sampleRatio"] for a in answers[run * days:(run + 1) * days]]
        row.false_positive(any(c["mismatch"] for c in checks))
        pearson.false_positive(any(c["pValue"] < 0.001 for c in checks))
    rows += [row, pearson]


def many_arms(flags, rng, runs, rows):
    """Four arms, all alike: the family-wise false-positive rate of the three comparisons with
    the control, unadjusted, Benjamini–Hochberg (the engine's adjustedPValue) and Holm (applied
    to the engine's p-values; `flags stats adjust --method holm` computes the same)."""
    n = 1000
    raw = Row("Unadjusted, 3 comparisons", "normal, 4 arms A/A", str(n), "unit")
    bh = Row("Benjamini–Hochberg, 3 comparisons", "normal, 4 arms A/A", str(n), "unit")
    holm = Row("Holm, 3 comparisons", "normal, 4 arms A/A", str(n), "unit")
    experiments = [experiment("mean", {arm: arm_sums(normal(rng, n)) for arm in "abcd"}) for _ in range(runs)]
    for analysis in analyse(flags, experiments):
        comparisons = analysis["metrics"][0]["comparisons"]
        p = sorted(c["absolute"]["pValue"] for c in comparisons)
        m = len(p)
        holm_reject = False
        for i, value in enumerate(p):
            if value * (m - i) < ALPHA:
                holm_reject = True
            else:
                break
        raw.false_positive(p[0] < ALPHA, m < 3)
        bh.false_positive(any(c["adjustedPValue"] < ALPHA for c in comparisons), m < 3)
        holm.false_positive(holm_reject, m < 3)
    rows += [raw, bh, holm]


def planned_power(flags, rng, runs):
    """The planner's promise: at the units per arm `flags stats plan` gives, the test it sized
    rejects in at least 80 % of A/B runs with the planned effect (read once, at that size)."""
    results = []
    for label, plan_args, kind, effect in (
        ("mean, σ = 4, δ = 0.4", ["--standard-deviation", "4", "--effect", "0.4"], "mean", 0.4),
        ("conversion 10 % → 12 %", ["--baseline", "0.1", "--effect", "0.02"], "conversion", 0.02),
    ):
        for test in ("sequential", "fixed-horizon"):
            run = subprocess.run([flags, "stats", "plan", *plan_args, "--test", test], capture_output=True, check=True)
            n = int(math.ceil(json.loads(run.stdout)["unitsPerArm"]))
            experiments = []
            for _ in range(runs):
                if kind == "mean":
                    arms = {"a": arm_sums(normal(rng, n)), "b": arm_sums(normal(rng, n, effect))}
                else:
                    arms = {"a": {"units": float(n), "sum": float(rng.binomial(n, 0.1))},
                            "b": {"units": float(n), "sum": float(rng.binomial(n, 0.1 + effect))}}
                experiments.append(experiment(kind, arms))
            hits = 0
            for analysis in analyse(flags, experiments):
                c = comparison(analysis)
                p_value = c and (c["sequential"]["pValue"] if test == "sequential" else c["absolute"]["pValue"])
                hits += bool(c and p_value < ALPHA)
            low, high = wilson(hits, runs)
            flag = "**under 80 %**" if wilson(hits, runs, DEFECT_Z)[1] < 0.8 else ""
            results.append([label, test, str(n), str(runs), f"{100 * hits / runs:.1f} % ({100 * low:.1f}–{100 * high:.1f})", flag])
    lines = ["| Metric and effect | Test planned | Units per arm (planned) | Runs | Power measured (95 % CI) | Flag |",
             "|---|---|---|---|---|---|"]
    return lines + ["| " + " | ".join(r) + " |" for r in results], any(r[-1] for r in results)


def capped(flags, rng, runs, rows):
    """Capping: each unit's value winsorized at the pooled 99th percentile of both arms (np.percentile's
    linear definition and np.clip, as the server does), then Welch on the capped sums. The A/B
    interval's target is the difference of the capped population means at the population's pooled
    99th percentile (a 50/50 mixture of the two arms), computed by quadrature."""
    from scipy import integrate, optimize, stats
    percentile, n, lift = 0.99, 1000, 0.05
    populations = [
        ("lognormal revenue", lognormal, lambda t: stats.lognorm.cdf(t, 1.5, scale=math.exp(1.0))),
        ("Pareto-like revenue", pareto, lambda t: 1 - (1 + t / 20.0) ** -2.5),
    ]
    for name, draw, cdf in populations:
        row = Row("Welch t on values capped at the pooled p99", name, str(n), "unit")

        def treated(t):
            return cdf(t / (1 + lift))

        def capped_sums(a, b):
            threshold = np.percentile(np.concatenate([a, b]), 100 * percentile)
            return {"a": arm_sums(np.clip(a, None, threshold)), "b": arm_sums(np.clip(b, None, threshold))}
        aa = [experiment("mean", capped_sums(draw(rng, n), draw(rng, n))) for _ in range(runs)]
        ab = [experiment("mean", capped_sums(draw(rng, n), draw(rng, n, lift))) for _ in range(runs)]
        threshold = optimize.brentq(lambda t: (cdf(t) + treated(t)) / 2 - percentile, 1e-9, 1e7, xtol=1e-12)
        # E[min(Y, t)] = ∫₀ᵗ (1 − F(y)) dy.
        true_difference = (integrate.quad(lambda y: 1 - treated(y), 0, threshold, limit=200)[0]
                           - integrate.quad(lambda y: 1 - cdf(y), 0, threshold, limit=200)[0])
        for analysis in analyse(flags, aa):
            c = comparison(analysis)
            row.false_positive(c and c["absolute"]["pValue"] < ALPHA, c is None)
        for analysis in analyse(flags, ab):
            c = comparison(analysis)
            row.coverage(c and c["absolute"]["lower"] <= true_difference <= c["absolute"]["upper"], c is None)
        rows.append(row)


def percentiles(flags, rng, runs, rows):
    """The 90th percentile of lognormal revenue (QuantileDifference, `flags stats quantile`), A/A
    and A/B with the treatment scaled by 1.05 (its true p90 difference is 0.05 times the p90)."""
    from scipy import stats
    p, n, lift = 0.9, 1000, 0.05
    row = Row("Percentile difference (p90)", "lognormal revenue", str(n), "unit")
    true_difference = lift * float(stats.lognorm.ppf(p, 1.5, scale=math.exp(1.0)))

    def compare(pairs):
        answers = []
        for start in range(0, len(pairs), 100):
            payload = [{"probability": p, "alpha": ALPHA, "control": a.tolist(), "treatment": b.tolist()} for a, b in pairs[start:start + 100]]
            run = subprocess.run([flags, "stats", "quantile"], input=json.dumps(payload).encode(), capture_output=True)
            if run.returncode != 0:
                sys.exit(f"flags stats quantile refused a simulated experiment: {run.stderr.decode()[:500]}")
            answers += json.loads(run.stdout)
        return answers
    for answer in compare([(lognormal(rng, n), lognormal(rng, n)) for _ in range(runs)]):
        row.false_positive(answer["pValue"] < ALPHA)
    for answer in compare([(lognormal(rng, n), lognormal(rng, n, lift)) for _ in range(runs)]):
        row.coverage(answer["lower"] <= true_difference <= answer["upper"])
    rows.append(row)


def segments(flags, rng, runs, rows):
    """Results by app version, as the flag server reports them (`segment=appVersion`): four versions
    of unequal size (50, 30, 15 and 5 % of 4,000 units per arm) whose revenue and conversion differ
    by version, two metrics, A/A. Each version is analysed by the engine (its always-valid p-value;
    no comparison below the minimum sample, which the smallest version's 200 units pass), and the
    versions × metrics p-values are adjusted together by Benjamini–Hochberg (`flags stats adjust
    --method bh`), as the server adjusts them. A false positive is any adjusted p-value below α;
    the row of each version's fixed-horizon Welch p-value, unadjusted (what reading the versions one
    by one would conclude), shows why the adjustment is there."""
    n, shares = 4000, (0.5, 0.3, 0.15, 0.05)
    revenue_scale, conversion_rate = (1.0, 1.4, 2.0, 3.0), (0.05, 0.08, 0.12, 0.2)
    population = "4 app versions (50/30/15/5 %), skewed"
    adjusted = Row("Segments, BH over versions × metrics", population, str(n), "unit")
    raw = Row("Segments, Welch per version, unadjusted", population, str(n), "unit")
    experiments = []
    for _ in range(runs):
        for version, share in enumerate(shares):
            m = int(n * share)
            metrics = [
                {"name": "revenue", "kind": "mean",
                 "arms": {arm: arm_sums(lognormal(rng, m) * revenue_scale[version]) for arm in "ab"}},
                {"name": "conversion", "kind": "conversion",
                 "arms": {arm: {"units": float(m), "sum": float(conversion(rng, m, conversion_rate[version]).sum())}
                          for arm in "ab"}},
            ]
            experiments.append({"control": "a", "alpha": ALPHA, "metrics": metrics})
    answers = analyse(flags, experiments)
    for run in range(runs):
        compared = [c for answer in answers[run * len(shares):(run + 1) * len(shares)]
                    for metric in answer["metrics"] for c in metric["comparisons"] if c["arm"] == "b"]
        p_values = [c["sequential"]["pValue"] for c in compared]
        if not p_values:
            adjusted.false_positive(False, True)
            raw.false_positive(False, True)
            continue
        run_adjust = subprocess.run([flags, "stats", "adjust", "--method", "bh"], input=json.dumps({"pValues": p_values}).encode(),
                                    capture_output=True)
        if run_adjust.returncode != 0:
            sys.exit(f"flags stats adjust refused {p_values}: {run_adjust.stderr.decode()[:300]}")
        adjusted.false_positive(any(p < ALPHA for p in json.loads(run_adjust.stdout)["adjusted"]))
        raw.false_positive(any(c["absolute"]["pValue"] < ALPHA for c in compared))
    rows += [adjusted, raw]


def table(rows, args, seconds):
    header = ["Method", "Population", "Unit", "Units per arm", "Runs", "Not enough data", "A/A false positives among compared (95 % CI)",
              "A/B coverage (95 % CI)", "Flag"]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    command = "python3 scripts/statistics/simulate.py" + (" --quick" if args.quick else "") + (
        f" --runs {args.runs}" if args.runs else "") + (f" --seed {args.seed}" if args.seed != 35 else "")
    lines += ["", f"α = {ALPHA} (the sample ratio rows: threshold 0.001). Seed {args.seed}; regenerate with "
              f"`{command} --write-docs` ({seconds:.0f} s for every row on the machine that wrote it)."]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flags", default=".build/debug/flags")
    parser.add_argument("--quick", action="store_true", help="fewer runs per scenario (CI: under a minute)")
    parser.add_argument("--runs", type=int, help="runs per scenario (default 2000; --quick 200)")
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--write-docs", action="store_true", help="write the table into SimulationResults.md")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a method breaks its promise")
    args = parser.parse_args()
    runs = args.runs or (200 if args.quick else 2000)
    started = time.time()
    rng = np.random.default_rng(args.seed)
    rows = []
    fixed_horizon(flags=args.flags, rng=rng, runs=runs, rows=rows)
    cuped(args.flags, rng, runs, rows)
    clustered(args.flags, rng, max(100, runs // 2), rows)
    sequential(args.flags, rng, max(100, runs // 4), rows, days=7 if args.quick else 14)
    sample_ratio(args.flags, rng, max(100, runs // 4), rows, days=30)
    many_arms(args.flags, rng, runs, rows)
    power_lines, power_short = planned_power(args.flags, rng, max(100, runs // 2))
    # Drawn after every other row, so that adding them left the figures above unchanged.
    capped(args.flags, rng, runs, rows)
    percentiles(args.flags, rng, runs, rows)
    segments(args.flags, rng, max(100, runs // 2), rows)
    text = table(rows, args, time.time() - started)
    print(text)
    print()
    print("\n".join(power_lines))
    if args.write_docs:
        for name in sorted(set(PAGES) | set(POWER_PAGES)):
            path = os.path.normpath(os.path.join(DOCS, name))
            with open(path) as f:
                page = f.read()
            if name in PAGES:
                if BEGIN not in page or END not in page:
                    sys.exit(f"{path} has no {BEGIN} … {END} markers")
                part = table([r for r in rows if PAGES[name](r)], args, time.time() - started)
                page = page[: page.index(BEGIN) + len(BEGIN)] + "\n" + part + "\n" + page[page.index(END):]
            if name in POWER_PAGES:
                if POWER_BEGIN not in page or POWER_END not in page:
                    sys.exit(f"{path} has no {POWER_BEGIN} … {POWER_END} markers")
                page = (page[: page.index(POWER_BEGIN) + len(POWER_BEGIN)] + "\n" + "\n".join(power_lines) + "\n"
                        + page[page.index(POWER_END):])
            with open(path, "w") as f:
                f.write(page)
            print(f"wrote {path}", file=sys.stderr)
    flagged = [r for r in rows if r.cells()[-1] and "naive" not in r.method and "nadjusted" not in r.method and "Pearson" not in r.method]
    if power_short:
        flagged.append(Row("the sample size plan", "planned power", "", ""))
    if flagged:
        print(f"{len(flagged)} methods outside their promise: " + "; ".join(f"{r.method} on {r.population}" for r in flagged), file=sys.stderr)
        if args.strict:
            sys.exit(1)


if __name__ == "__main__":
    main()
